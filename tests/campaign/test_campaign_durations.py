"""Durations and campaign execution (issue 18 item 5): ``simulate --duration`` cuts any truth
source; a campaign's ``duration_s`` applies to every source and a source may set its own; few
runs run serially by default, and say so."""

from __future__ import annotations

import io
import json
import os
import re
import socket
from pathlib import Path

import pytest

from campaign.campaign_helpers import write_campaign, write_open_sky_truth
from navsense.campaign import runner
from navsense.campaign.runner import run_campaign, simulate_run
from navsense.campaign.spec import load_campaign
from navsense.cli import main
from navsense.errors import ConfigError

REFERENCE = Path(__file__).parents[1] / "reference"
PARIS_TRACK = REFERENCE / "track_paris_loop.gpx"


def _steps(run: Path) -> int:
    return json.loads((run / "episode.json").read_text())["steps"]


@pytest.mark.parametrize("source", ["scenario", "truth", "track"])
def test_simulate_duration_cuts_any_truth_source(tmp_path, source):
    log = write_open_sky_truth(tmp_path / "drive.parquet", seconds=20.0)
    argv = {
        "scenario": ["--scenario", "acre-loop"],
        "truth": ["--truth", str(log)],
        "track": ["--track", str(PARIS_TRACK)],
    }[source]
    out = tmp_path / "run"
    assert main(["simulate", *argv, "--duration", "5", "--out", str(out), "--quiet"]) == 0
    episode = json.loads((out / "episode.json").read_text())
    assert episode["steps"] == 601  # t = 0 .. 5 s at 120 Hz
    assert episode["source"]["duration_s"] == 5.0


@pytest.mark.parametrize("bad", ["0", "-2", "nan", "inf"])
def test_a_bad_duration_is_one_line(tmp_path, capsys, bad):
    out = tmp_path / "run"
    argv = ["simulate", "--scenario", "acre-loop", "--duration", bad, "--out", str(out)]
    assert main(argv) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "must be a finite number of seconds > 0" in err[0]
    assert not out.exists()


@pytest.mark.parametrize("source", ["truth", "track"])
@pytest.mark.parametrize("bad", ["1e308", "4294967297"])
def test_a_duration_beyond_1e9_s_is_one_line(tmp_path, capsys, source, bad):
    """simulate --duration 1e308 ended in 'internal error: OverflowError: cannot convert float
    infinity to integer' (the count of steps; live the same), and --duration 4294967297 of a
    20 s log wrote a run directory whose episode.json report and export then refused
    ('source.duration_s = 4294967297.0 is not a duration in (0, 1e9] s'; the third fuzz
    helper). Both are refused before anything is written."""
    log = write_open_sky_truth(tmp_path / "drive.parquet", seconds=2.0)
    argv = {"truth": ["--truth", str(log)], "track": ["--track", str(PARIS_TRACK)]}[source]
    out = tmp_path / "run"
    assert main(["simulate", *argv, "--duration", bad, "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "must be a finite number of seconds > 0 and at most 1e+09" in err[0]
    assert not out.exists()


def test_a_campaign_duration_applies_to_every_source_and_a_source_may_set_its_own(tmp_path):
    write_open_sky_truth(tmp_path / "drive.csv", seconds=20.0)
    write_open_sky_truth(tmp_path / "long.parquet", seconds=20.0)
    path = write_campaign(
        tmp_path / "c.json",
        seeds=[1],
        duration_s=3,
        sources=[
            {"truth": "drive.csv"},
            {"truth": "long.parquet", "duration_s": 4},
            {"scenario": "acre-loop"},
            {"track": str(PARIS_TRACK), "duration_s": 2},
        ],
    )
    campaign = load_campaign(path)
    assert [s["run_source"].get("duration_s") for s in campaign.sources] == [3, 4, 3, 2]
    assert [s["label"] for s in campaign.sources][:2] == ["drive.csv[3s]", "long.parquet[4s]"]
    steps = []
    for run in campaign.runs:
        out = tmp_path / run["run_id"]
        simulate_run(run, out)
        steps.append(_steps(out))
    assert steps == [361, 481, 361, 241]


def test_few_runs_run_serially_by_default_and_say_so(tmp_path, monkeypatch):
    write_open_sky_truth(tmp_path / "drive.csv", seconds=2.0)
    path = write_campaign(tmp_path / "c.json", seeds=[1, 2], sources=[{"truth": "drive.csv"}])
    monkeypatch.setattr(runner, "default_workers", lambda: 2)  # 2 runs < 2 x 2 cores

    def no_dask(*args, **kwargs):
        raise AssertionError("a local Dask cluster for 2 runs")

    monkeypatch.setattr(runner, "dask_executor", no_dask)
    log = io.StringIO()
    outcome = run_campaign(load_campaign(path), tmp_path / "out", progress=False, log=log)
    assert outcome.ok == 2
    lines = log.getvalue().splitlines()
    assert len(lines) == 1 and "run serially" in lines[0] and "--workers 2" in lines[0]
    workers = {
        json.loads(p.read_text())["worker"] for p in (tmp_path / "out" / "results").glob("*.json")
    }
    assert workers == {f"{socket.gethostname()}:{os.getpid()}"}  # in this process
    # enough runs (or --workers N) take the cluster
    chosen = []
    monkeypatch.setattr(runner, "dask_executor", lambda w, s: chosen.append((w, s)) or "dask")
    assert runner._executor(4, None, None, io.StringIO()) == "dask"
    assert runner._executor(2, 2, None, io.StringIO()) == "dask"
    assert runner._executor(2, 0, None, io.StringIO()) is runner.serial_executor
    assert chosen == [(None, None), (2, None)]


@pytest.mark.parametrize(
    "physics_hz, duration_s, refused",
    [
        (
            50,
            0.02,
            "keeps 2 physics step(s) at 50 Hz",
        ),  # 3 steps at 120 Hz: passed, every run failed
        (1000, 0.005, None),  # 6 steps at 1 kHz: refused at 120 Hz (2 steps)
    ],
)
def test_a_campaign_cut_is_checked_on_the_runs_physics_clock(
    tmp_path, physics_hz, duration_s, refused
):
    """A campaign's duration_s was checked against 120 Hz whatever the runs' physics.hz (issue
    30 item 1): 0.02 s at 50 Hz keeps 2 steps and each run failed; 0.005 s at 1 kHz keeps 6 and
    was refused. The track steps at physics.hz, as navsense.run.prepare_run steps it."""
    path = write_campaign(
        tmp_path / "c.json",
        seeds=[1],
        duration_s=duration_s,
        sources=[{"track": str(PARIS_TRACK)}],
        overrides={"physics": {"hz": physics_hz}, "imu": {"hz": 50}},
    )
    if refused is None:
        assert load_campaign(path).runs[0]["source"]["duration_s"] == duration_s
    else:
        with pytest.raises(ConfigError, match=r"sources\[0\]\.duration_s: duration_s = 0.02 "):
            load_campaign(path)
        with pytest.raises(ConfigError, match=re.escape(refused)):
            load_campaign(path)


def test_a_truth_log_cut_is_checked_at_its_own_rate(tmp_path):
    """A truth log runs at its own rate (120 Hz here) whatever physics.hz the campaign's file
    would give a track: 0.01 s keeps 2 of its steps and is refused naming 120 Hz."""
    write_open_sky_truth(tmp_path / "drive.parquet", seconds=2.0)
    path = write_campaign(
        tmp_path / "c.json", seeds=[1], duration_s=0.01, sources=[{"truth": "drive.parquet"}]
    )
    with pytest.raises(ConfigError, match=re.escape("keeps 2 physics step(s) at 120 Hz")):
        load_campaign(path)


@pytest.mark.parametrize("source", ["track", "truth"])
def test_a_sensor_faster_than_the_runs_physics_clock_is_refused_before_the_first_run(
    tmp_path, source
):
    """Found by the vibration helper (issue 30): ``physics.hz = 50`` in a campaign's overrides
    with the default ``imu.hz = 120`` passed the campaign file's check, then every run failed on
    "imu.hz = 120 is above the physics rate". A truth log runs at its own rate: with physics.hz
    set to another in the campaign's layers every run failed on "physics.hz = 50: the truth log
    ... runs at 120 Hz" (navsense.run's refusal; found by the fuzz helper), now refused before
    the first run naming the source."""
    write_open_sky_truth(tmp_path / "drive.parquet", seconds=2.0)
    ref = {"track": {"track": str(PARIS_TRACK)}, "truth": {"truth": "drive.parquet"}}[source]
    path = write_campaign(
        tmp_path / "c.json", seeds=[1], sources=[ref], overrides={"physics": {"hz": 50}}
    )
    if source == "truth":
        with pytest.raises(ConfigError) as err:
            load_campaign(path)
        assert str(err.value).startswith("c.json: sources[0]: physics.hz = 50: the truth log ")
        assert "drive.parquet runs at 120 Hz; a truth log runs at its own rate" in str(err.value)
        equal = write_campaign(
            tmp_path / "e.json", seeds=[1], sources=[ref], overrides={"physics": {"hz": 120}}
        )
        assert load_campaign(equal).runs  # the log's own rate, set explicitly: fine
        return
    with pytest.raises(ConfigError) as err:
        load_campaign(path)
    text = str(err.value)
    assert (
        text.startswith("c.json: sources[0]: imu.hz = 120 ")
        and "is above the physics rate, 50 Hz" in text
    )


def test_a_preset_in_a_sweep_is_checked_before_the_first_run(tmp_path):
    """Found by the fuzz helper: imu.vibration.preset = mil_std_810h_cwv in a sweep's grid
    passed the campaign file's check (the preset's keys were not put under the layers there, as
    navsense.run does), then every run of that point failed on its band [5, 500] at 120 Hz; now
    refused before the first run, as the same band given as a key was."""
    write_open_sky_truth(tmp_path / "drive.parquet", seconds=2.0)
    path = write_campaign(
        tmp_path / "c.json",
        seeds=[1],
        sources=[{"truth": "drive.parquet"}],
        sweep={"grid": {"imu.vibration.preset": ["car_paved_road", "mil_std_810h_cwv"]}},
    )
    with pytest.raises(ConfigError) as err:
        load_campaign(path)
    assert str(err.value).startswith(
        "c.json: sources[0]: imu.vibration.random_band_hz = [5, 500] is not 0.1 <= low"
    )
    ok = write_campaign(
        tmp_path / "ok.json",
        seeds=[1],
        sources=[{"truth": "drive.parquet"}],
        sweep={"grid": {"imu.vibration.preset": ["none", "car_paved_road"]}},
    )
    assert len(load_campaign(ok).runs) == 2
