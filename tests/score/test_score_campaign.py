"""An estimator in a campaign: its score joins statistics.parquet, Dask = serial, a failing
estimator is recorded for its run."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import orjson
import pyarrow.parquet as pq
import pytest

from campaign.campaign_helpers import campaign_cli, write_campaign, write_open_sky_truth
from navsense.campaign.runner import RESULTS_DIR, rerun, run_campaign
from navsense.campaign.spec import load_campaign
from navsense.campaign.summary import summary_table
from navsense.errors import ConfigError
from navsense.score.api import ScoreOptions, score_estimate
from navsense.score.campaign import CAMPAIGN_SCORE_KEYS

ESTIMATOR = {
    "command": "{python} cv_filter.py {run}/gnss.jsonl {run}/estimate.csv",
    "estimate": "{run}/estimate.csv",
    "point": "antenna",
    "rpe_delta": 2,
}
CAMPAIGN = {
    "seeds": {"start": 7, "count": 2},
    "sources": [{"truth": "circle.csv"}],
    "overrides": {"gnss.corrections.outages_s+": [[5, 12]]},
    "sweep": {"grid": {"gnss.corrections.baseline_km": [1, 30]}},
    "estimator": ESTIMATOR,
}


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("score-campaign")
    write_open_sky_truth(base / "circle.csv", seconds=20.0)
    shutil.copy(Path(__file__).with_name("cv_filter.py"), base / "cv_filter.py")
    return base


@pytest.fixture(scope="module")
def serial(folder) -> Path:
    path = write_campaign(folder / "est.json", **CAMPAIGN)
    out = folder / "serial"
    outcome = run_campaign(load_campaign(path), out, workers=0, progress=False)
    assert (outcome.ok, outcome.failed) == (4, 0)
    return out


def test_the_scores_join_the_statistics(serial):
    table = pq.read_table(serial / "statistics.parquet")
    names = table.column_names
    assert names.index("gnss_epochs") < names.index("score.ate_3d_rms_m")
    assert [n for n in names if n.startswith("score.")] == [
        f"score.{k}" for k in CAMPAIGN_SCORE_KEYS
    ]
    ate = table.column("score.ate_h_rms_m").to_pylist()
    assert all(0.001 < v < 0.5 for v in ate)  # a filter of RTK fixes: centimetres
    nees = table.column("score.nees_3d_mean").to_pylist()
    assert all(0.3 < v < 30 for v in nees)
    assert all(v > 0 for v in table.column("score.outage.epochs").to_pylist())
    assert set(table.column("status").to_pylist()) == {"ok"}


def test_a_recorded_score_is_the_score_of_the_kept_estimate(folder, tmp_path):
    """keep = "runs": the run directory holds the estimate; navsense score gives the recorded
    figures."""
    path = write_campaign(folder / "kept.json", **{**CAMPAIGN, "keep": "runs", "seeds": [7]})
    out = tmp_path / "kept"
    run_campaign(load_campaign(path), out, workers=0, progress=False)
    result = next((out / RESULTS_DIR).glob("*.json"))
    recorded = orjson.loads(result.read_bytes())["score"]
    run = out / "runs" / result.stem
    options = ScoreOptions(point="antenna", rpe_delta=2.0)
    again = score_estimate(run, run / "estimate.csv", options).scores
    for key in CAMPAIGN_SCORE_KEYS:
        a, b = recorded.get(key), again[key]
        assert (a is None and math.isnan(b)) or a == b, key
    report = rerun(out, result.stem)
    assert report.compared == "files" and report.differences == []


def test_summary_has_the_score_per_sweep_point(serial):
    table = summary_table(serial).to_pydict()
    rows = [i for i, s in enumerate(table["statistic"]) if s == "score.ate_h_rms_m"]
    assert len(rows) == 2  # one a sweep point
    for i in rows:
        assert table["n"][i] == 2 and table["p5"][i] <= table["p50"][i] <= table["p95"][i]


def test_dask_gives_the_serial_table(folder, serial):
    pytest.importorskip("distributed")
    out = folder / "dask"
    argv = ["run", str(folder / "est.json"), "--out", str(out), "--workers", "2", "--quiet"]
    assert campaign_cli(argv) == 0
    assert (out / "statistics.parquet").read_bytes() == (serial / "statistics.parquet").read_bytes()


def test_a_failing_estimator_is_recorded_for_its_run(folder, capsys):
    failing = {**ESTIMATOR, "command": ESTIMATOR["command"] + " --fail"}
    path = write_campaign(folder / "fail.json", **{**CAMPAIGN, "estimator": failing})
    out = folder / "fail"
    argv = ["run", str(path), "--out", str(out), "--workers", "0", "--quiet"]
    assert campaign_cli(argv) == 1
    table = pq.read_table(out / "statistics.parquet").to_pydict()
    assert set(table["status"]) == {"failed"}
    assert all("exit code 3: cv_filter: diverged" in e for e in table["error"])
    assert all(v is not None for v in table["gnss_epochs"])  # the run's statistics are kept
    assert all(v is None for v in table["score.ate_3d_rms_m"])
    # an estimate that is not there
    missing = {**ESTIMATOR, "estimate": "{run}/nothing.csv"}
    path = write_campaign(folder / "missing.json", **{**CAMPAIGN, "estimator": missing})
    run_campaign(load_campaign(path), folder / "missing", workers=0, progress=False)
    table = pq.read_table(folder / "missing" / "statistics.parquet").to_pydict()
    assert all("nothing.csv: the estimate file is not found" in e for e in table["error"])


@pytest.mark.parametrize(
    ("estimator", "match"),
    [
        ({"command": ""}, r"estimator.command = '' is not a non-empty command line"),
        (
            {"command": "f {out}"},
            r"estimator.command = 'f \{out\}' has the placeholder \{out\}; allowed: \{run\}",
        ),
        ({**ESTIMATOR, "align": "affine"}, r"estimator.align = 'affine' is not one of none"),
        ({**ESTIMATOR, "window": 3}, r"estimator.window is not a known key"),
        ({**ESTIMATOR, "timeout_s": 0}, r"estimator.timeout_s = 0 is not a number of seconds"),
        (3, r"estimator = 3 is not a command line or a table"),
    ],
)
def test_estimator_errors_name_the_key(folder, estimator, match):
    path = write_campaign(folder / "bad.json", **{**CAMPAIGN, "estimator": estimator})
    with pytest.raises(ConfigError, match=r"bad.json: " + match):
        load_campaign(path)


def test_the_estimator_and_its_script_are_in_the_run_ids(folder):
    a = load_campaign(write_campaign(folder / "a.json", **CAMPAIGN))
    plain = {k: v for k, v in CAMPAIGN.items() if k != "estimator"}
    b = load_campaign(write_campaign(folder / "b.json", **plain))
    assert not {r["run_id"] for r in a.runs} & {r["run_id"] for r in b.runs}
    assert "estimator" not in b.runs[0]  # a campaign without one keeps its run ids
    assert a.runs[0]["estimator"]["inputs"].keys() == {"cv_filter.py"}
    string = load_campaign(write_campaign(folder / "c.json", **{**plain, "estimator": "x {run}"}))
    assert string.estimator["estimate"] == "{run}/estimate.tum"
