"""docs/tutorials/campaign-scoring.md: its bash blocks run in a fresh folder (one run scored, a
campaign of 6 runs with the estimator, its summary); the summary quoted on the page is what
campaign summary prints, and the outage point is worse than open sky, as it says."""

from __future__ import annotations

import csv
import io

import pytest

from userdocs.tutorial_pages import fenced, page_text, run_bash_blocks

pytest.importorskip("dask.distributed")
pytest.importorskip("matplotlib")  # navsense score's plots

PAGE = "campaign-scoring.md"


@pytest.fixture(scope="module")
def followed(tmp_path_factory):
    return run_bash_blocks(PAGE, tmp_path_factory.mktemp("campaign"))


def _rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def test_the_single_run_is_scored(followed):
    work, printed = followed
    assert (work / "runs/one/score/score.json").is_file()
    assert "score of runs/one/estimate.csv (enu, point antenna" in printed


def test_the_quoted_summary_is_what_campaign_summary_prints(followed):
    _, printed = followed
    quoted = fenced(page_text(PAGE), "text")[0].splitlines()
    assert len(quoted) == 10
    got = printed.splitlines()
    start = got.index(quoted[0])
    assert got[start : start + len(quoted)] == quoted


def test_the_outage_point_is_worse_than_open_sky(followed):
    work, _ = followed
    got = {(r[0], r[5]): r for r in _rows((work / "camp/summary.csv").read_text())[1:]}
    open_sky = float(got[("0", "score.ate_h_rms_m")][9])
    outage = float(got[("1", "score.ate_h_rms_m")][9])
    assert outage > 2 * open_sky
    assert (work / "camp/summary.parquet").is_file()
