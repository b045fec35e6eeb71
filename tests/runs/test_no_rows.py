"""A run whose IMU wrote no rows (a truth log whose every row is a reset: a reset drops the IMU's
samples of the steps after it) is a good run: navsense report, score and export read its empty
imu.jsonl (0 bytes, which Arrow's JSON reader refused as 'Empty JSON file') or imu.parquet
(written with no columns) as zero rows; navsense allan names the 0 rows (the fuzz helper's
finding)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from conftest import stationary_truth
from navsense.cli import main
from navsense.runs.reader import RunReader
from navsense.truth.io import write_truth


@pytest.mark.parametrize("fmt, rows", [("jsonl", "imu.jsonl"), ("parquet", "imu.parquet")])
def test_a_run_of_resets_has_no_imu_rows_and_a_report(tmp_path, capsys, fmt, rows):
    still = stationary_truth(60)
    truth = tmp_path / "resets.parquet"
    write_truth(dataclasses.replace(still, reset=np.ones(60, dtype=bool)), truth)
    run = tmp_path / "run"
    argv = ["simulate", "--truth", str(truth), "--no-gnss", "--quiet", "--format", fmt]
    assert main([*argv, "--out", str(run)]) == 0
    assert (run / rows).exists()
    imu = RunReader(run).columns("imu", {"sample_time_s": "float"})
    assert imu["sample_time_s"].shape == (0,)
    capsys.readouterr()
    assert main(["report", str(run)]) == 0
    assert (run / "report").is_dir()
    assert main(["allan", str(run)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and f"{rows}: 0 IMU rows over 0 s" in err[0], err
