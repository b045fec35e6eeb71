"""A truth log on its own clock (t_0 > 0): every sensor samples at its rate from the log's first
row (navsense.clock, navsense's ruling), exactly as the same log started at t = 0 does."""

import csv
import json
from pathlib import Path

import pytest

from navsense.cli import main

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "drive.csv"
SENSORS = ("gnss", "imu", "ins", "mag", "baro", "odom")


def _shifted(src: Path, dst: Path, offset_s: float) -> None:
    with src.open(newline="") as f:
        rows = list(csv.reader(f))
    col = rows[0].index("t_s")
    with dst.open("w", newline="") as f:
        out = csv.writer(f)
        out.writerow(rows[0])
        for row in rows[1:]:
            row[col] = repr(float(row[col]) + offset_s)
            out.writerow(row)


def _sample_times(run: Path, sensor: str) -> list[float]:
    lines = (run / f"{sensor}.jsonl").read_text().splitlines()
    return [json.loads(line)["sample_time_s"] for line in lines]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("clock")
    out = {}
    for offset in (0.0, 100.0):
        log = tmp / f"drive_{offset:g}.csv"
        _shifted(EXAMPLE, log, offset)
        run = tmp / f"run_{offset:g}"
        argv = ["simulate", "--truth", str(log), "--mag", "--baro", "--odom", "--quiet"]
        assert main([*argv, "--out", str(run)]) in (0, None)
        out[offset] = run
    return out


@pytest.mark.parametrize("sensor", SENSORS)
def test_a_log_on_its_own_clock_samples_at_the_rate_from_its_first_row(runs, sensor):
    at_zero = _sample_times(runs[0.0], sensor)
    later = _sample_times(runs[100.0], sensor)
    assert len(at_zero) > 1
    # the same samples, 100 s later (to the physics step: the times are k / 120)
    assert len(later) == len(at_zero)
    assert [round(t - 100.0, 6) for t in later] == [round(t, 6) for t in at_zero]
