"""The benchmarks carry their own bare-numpy floor: a fresh clone runs them (issue 18 item 6)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def test_the_floor_script_is_inside_the_project_and_runs(tmp_path):
    spec = importlib.util.spec_from_file_location("bench_floor", BENCHMARKS / "floor.py")
    assert spec is not None and spec.loader is not None
    floor = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(floor)
    assert floor.FLOOR == BENCHMARKS / "floor_numpy.py"
    assert floor.FLOOR.is_file()
    out = subprocess.run(
        [sys.executable, str(floor.FLOOR), "2", str(tmp_path)],
        check=True,
        capture_output=True,
        text=True,
    )
    report = json.loads(out.stdout)
    assert (report["n_imu"], report["n_gps"]) == (240, 20)  # 2 s at 120 Hz, every 12th for GNSS
    imu = np.fromfile(tmp_path / "imu_f64.bin").reshape(-1, 7)
    # level and at constant height: the vertical specific force is -g (NED, body z down) + noise
    assert abs(np.mean(imu[:, 3]) + 9.80665) < 0.01
