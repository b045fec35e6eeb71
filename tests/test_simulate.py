"""navsense simulate end to end: determinism, batch = chunks = steps, clear failures."""

import json
from pathlib import Path

import numpy as np
import pytest

from conftest import open_sky_circle
from navsense.cli import main
from navsense.truth.io import write_truth

OUTPUTS = ("gnss.jsonl", "gnss.nmea", "imu.jsonl", "ins.jsonl", "ins.frames", "episode.json")


@pytest.fixture(scope="module")
def truth_csv(tmp_path_factory) -> Path:
    """A 20 s drive on a circle in open sky east of the farmstead, as a CSV truth log."""
    path = tmp_path_factory.mktemp("truth") / "circle.csv"
    write_truth(open_sky_circle(2400), path)
    return path


def _run(tmp_path, truth_csv, name, *extra) -> Path:
    out = tmp_path / name
    assert main(["simulate", "--truth", str(truth_csv), "--out", str(out), "--quiet", *extra]) == 0
    return out


def _files(run: Path) -> dict:
    return {name: (run / name).read_bytes() for name in OUTPUTS if (run / name).exists()}


def test_same_seed_same_bytes_and_another_seed_differs(tmp_path, truth_csv):
    a = _files(_run(tmp_path, truth_csv, "a"))
    b = _files(_run(tmp_path, truth_csv, "b"))
    c = _files(_run(tmp_path, truth_csv, "c", "--seed", "43"))
    assert set(a) == set(OUTPUTS)
    assert a == b
    for name in ("gnss.jsonl", "imu.jsonl", "ins.jsonl", "ins.frames"):
        assert a[name] != c[name], name


def test_one_run_equals_chunked_and_step_by_step_runs(tmp_path, truth_csv):
    whole = _files(_run(tmp_path, truth_csv, "whole", "--chunk-steps", "100000"))
    chunked = _files(_run(tmp_path, truth_csv, "chunked", "--chunk-steps", "7"))
    steps = _files(_run(tmp_path, truth_csv, "steps", "--chunk-steps", "1"))
    assert whole == chunked == steps


def test_rows_carry_sample_available_and_delivery_times(tmp_path, truth_csv):
    run = _run(tmp_path, truth_csv, "times", "--delay", "0.1")
    rows = [json.loads(line) for line in (run / "imu.jsonl").read_text().splitlines()]
    first = rows[0]
    assert first["sample_time_s"] == pytest.approx(2 / 120.0)
    assert first["available_time_s"] == pytest.approx(first["sample_time_s"] + 0.1)
    steps = np.array([r["delivery_time_s"] for r in rows]) * 120.0
    np.testing.assert_allclose(steps, np.round(steps), atol=1e-6)
    assert all(r["delivery_time_s"] >= r["available_time_s"] - 1e-9 for r in rows)
    episode = json.loads((run / "episode.json").read_text())
    assert episode["config"]["delay_s"] == 0.1 and "imu_bias_flu" in episode


def test_no_noise_writes_zero_biases(tmp_path, truth_csv):
    run = _run(tmp_path, truth_csv, "quiet", "--no-noise", "--no-gnss", "--no-ins")
    episode = json.loads((run / "episode.json").read_text())
    assert episode["imu_bias_flu"] == {"accel_mps2": [0.0] * 3, "gyro_radps": [0.0] * 3}
    assert not (run / "gnss.jsonl").exists() and not (run / "ins.jsonl").exists()


def _no_run_dir_left(folder: Path):
    return [p.name for p in folder.iterdir() if p.is_dir()] == []


def test_malformed_truth_ends_with_one_line_and_no_run_dir(tmp_path, capsys, truth_csv):
    bad = tmp_path / "bad.csv"
    lines = truth_csv.read_text().splitlines()
    lines[5] = lines[5].replace(lines[5].split(",")[1], "oops", 1)
    bad.write_text("\n".join(lines) + "\n")
    runs = tmp_path / "runs"
    runs.mkdir()
    code = main(["simulate", "--truth", str(bad), "--out", str(runs / "r"), "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "bad.csv" in err[0] and "6" in err[0]
    assert _no_run_dir_left(runs)


def test_out_of_range_key_ends_with_one_line(tmp_path, capsys, truth_csv):
    runs = tmp_path / "runs"
    runs.mkdir()
    code = main(
        [
            "simulate",
            "--truth",
            str(truth_csv),
            "--gnss-hz",
            "2400",
            "--out",
            str(runs / "r"),
            "--quiet",
        ]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and err == [
        "navsense: error: command line: gnss.hz = 2400 is out of range 1..2000"
    ]
    assert _no_run_dir_left(runs)


def test_unknown_scenario_ends_with_one_line(tmp_path, capsys):
    code = main(["simulate", "--scenario", "nowhere", "--out", str(tmp_path / "r"), "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "nowhere" in err[0] and "acre-loop" in err[0]
    assert not (tmp_path / "r").exists()


def test_existing_run_directory_is_not_overwritten(tmp_path, capsys, truth_csv):
    out = _run(tmp_path, truth_csv, "once", "--no-gnss", "--no-ins")
    before = _files(out)
    assert main(["simulate", "--truth", str(truth_csv), "--out", str(out), "--quiet"]) == 2
    assert "exists" in capsys.readouterr().err
    assert _files(out) == before


def test_simulate_a_gps_track_far_from_the_tile(tmp_path):
    """--track: a GPX recorded in Paris runs on a local site, in its own UTM zone."""
    import gpxpy

    gpx_path = Path(__file__).parent / "reference" / "track_paris_loop.gpx"
    out = tmp_path / "paris"
    assert (
        main(["simulate", "--track", str(gpx_path), "--out", str(out), "--quiet", "--no-noise"])
        == 0
    )
    points = [
        p for t in gpxpy.parse(gpx_path.read_text()).tracks for s in t.segments for p in s.points
    ]
    rows = [json.loads(line) for line in (out / "gnss.jsonl").read_text().splitlines()]
    fixes = [r for r in rows if r["latitude_deg"] is not None]
    assert fixes
    lat0 = np.mean([p.latitude for p in points])
    for r in fixes:  # the antenna rides 1-2 m from the base_footprint track
        assert abs(r["wgs84_lat_deg"] - lat0) < 0.01
    ins = [json.loads(line) for line in (out / "ins.jsonl").read_text().splitlines()]
    assert ins[0]["odom"]["zone"] == 31
    assert (out / "truth.parquet").exists()
    start = json.loads((out / "episode.json").read_text())["start_utc"]
    assert start.startswith(points[0].time.strftime("%Y-%m-%dT%H:%M:%S"))  # the recorded UTC


@pytest.mark.parametrize(
    "option, value, words",
    [
        ("--chunk-steps", "0", "--chunk-steps 0 must be >= 1"),
        ("--delay", "-1", "delay_s = -1 is out of range 0..10"),
        ("--gnss-outage", "5-10", "--gnss-outage"),
        ("--agent", "-1", "--agent -1 must be >= 0"),
    ],
)
def test_bad_options_end_with_one_line(tmp_path, capsys, truth_csv, option, value, words):
    code = main(
        [
            "simulate",
            "--truth",
            str(truth_csv),
            option,
            value,
            "--out",
            str(tmp_path / "r"),
            "--quiet",
        ]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and words in err[0]
    assert not (tmp_path / "r").exists()
