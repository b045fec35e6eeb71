"""docs/tutorials/phone-gpx.md, followed as a user would: every bash block in a fresh folder,
then what the page says of the result checked against the files the commands wrote."""

from __future__ import annotations

import collections
import json

import pytest

from userdocs.tutorial_pages import fenced, page_text, run_bash_blocks

pytest.importorskip("matplotlib")  # navsense report


@pytest.fixture(scope="module")
def followed(tmp_path_factory):
    return run_bash_blocks("phone-gpx.md", tmp_path_factory.mktemp("phone-gpx"))


def test_the_truth_lines_quoted_on_the_page_are_what_navsense_truth_prints(followed):
    _, printed = followed
    quoted = fenced(page_text("phone-gpx.md"), "text")[0].splitlines()
    assert [line for line in quoted if line.startswith("navsense: ")] == quoted
    for line in quoted:
        assert line in printed.splitlines()


def test_the_run_is_on_a_local_site_at_the_recordings_place_and_time(followed):
    work, _ = followed
    episode = json.loads((work / "runs/drive/episode.json").read_text())
    text = json.dumps(episode)
    assert "2026-05-16T08:00:00Z" in text and '"local"' in text
    for name in ("gnss.jsonl", "gnss.nmea", "imu.jsonl", "ins.jsonl", "mag.jsonl", "baro.jsonl"):
        assert (work / "runs/drive" / name).stat().st_size > 0
    assert (work / "runs/drive/odom.jsonl").stat().st_size > 0
    assert (work / "runs/drive/ros2.mcap").stat().st_size > 0


def test_the_report_and_its_pictures_are_written(followed):
    work, _ = followed
    report = work / "runs/drive/report"
    assert (report / "report.html").is_file() and (report / "track.png").is_file()
    stats = json.loads((report / "statistics.json").read_text())
    assert stats["gnss_rtk_fixed_fraction"] == 1.0  # "RTK-fixed throughout"


def test_the_phone_grade_gives_single_point_fixes_only_as_the_page_says(followed):
    work, _ = followed
    with open(work / "runs/drive-phone/gnss.jsonl", encoding="utf-8") as f:
        kinds = collections.Counter(json.loads(line)["fix_type"] for line in f)
    assert set(kinds) == {"single"} and kinds["single"] == 2371
