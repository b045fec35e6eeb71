"""A run directory written before navsense had a configuration key (or whose episode.json leaves
a key out at its default) is read as it ran: the key takes the code's default
(navsense.config.defaults.complete_recorded_config), and report, export mcap and the statistics
work on it."""

import json
from pathlib import Path

import pytest

from navsense.cli import main
from navsense.config.defaults import code_defaults
from navsense.runs import Episode
from navsense.runs.stats import run_statistics

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "drive.csv"


@pytest.fixture(scope="module")
def older_run(tmp_path_factory) -> Path:
    run = tmp_path_factory.mktemp("older") / "run"
    assert main(["simulate", "--truth", str(EXAMPLE), "--quiet", "--out", str(run)]) == 0
    path = run / "episode.json"
    episode = json.loads(path.read_text())
    # as a run of 2026-11-30 recorded it: no gnss.nmea block (issue 20.2 added it)
    del episode["config"]["gnss"]["nmea"]
    path.write_text(json.dumps(episode, indent=1))
    return run


def test_a_key_the_record_lacks_reads_as_its_default_and_recorded_keys_stay(older_run):
    config = Episode.read(older_run).config
    assert config["gnss"]["nmea"] == code_defaults()["gnss"]["nmea"]
    assert config["imu"]["earth"] == "none" and config["gnss"]["signal_outages_s"] == []
    recorded = json.loads((older_run / "episode.json").read_text())["config"]
    assert config["gnss"]["hz"] == recorded["gnss"]["hz"]
    assert config["ins"] == {**config["ins"], **recorded["ins"]}


def test_report_export_and_statistics_read_an_older_run(older_run, capsys):
    assert main(["report", str(older_run)]) == 0
    assert main(["export", "mcap", str(older_run)]) == 0
    assert (older_run / "report" / "report.html").is_file() and (older_run / "ros2.mcap").is_file()
    gnss_rows = (older_run / "gnss.jsonl").read_text().splitlines()
    assert run_statistics(older_run)["gnss_epochs"] == len(gnss_rows)
    assert "internal error" not in capsys.readouterr().err
