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


def _bench_run():
    sys.path.insert(0, str(BENCHMARKS))
    try:
        spec = importlib.util.spec_from_file_location(
            "bench_run_goals", BENCHMARKS / "bench_run.py"
        )
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(BENCHMARKS))
    return module


def test_bench_run_gives_issue_31s_figures_next_to_the_floor_of_the_same_run():
    """bench_run.py --json's "goals": the whole 1 h runs as multiples of the floor's wall time
    (Parquet <= 2, JSONL <= 4), the streaming step, SensorStream at 1 kHz and its worker, the
    24 h peak when run, start-up; each with its goal and whether it is met."""
    bench = _bench_run()
    by_name = {
        "navsense 1 h parquet": {"wall_s": 0.9, "peak_mib": 300.0},
        "navsense 1 h jsonl": {"wall_s": 2.0, "peak_mib": 300.0},
    }
    stream = {
        "streaming_us_per_step": 40.0,
        "sensor_stream_1khz_us_per_step": 60.0,
        "sensor_stream_1khz_worker_cpu_us_per_step": 450.0,
    }
    goals = bench.issue_goals(by_name, {"wall_s": 0.5}, stream, 0.2)
    by_figure = {g["figure"]: g for g in goals}
    assert list(by_figure) == [
        "whole_run_1h_parquet_x_floor",
        "whole_run_1h_jsonl_x_floor",
        "streaming_us_per_step",
        "sensor_stream_1khz_us_per_step",
        "sensor_stream_1khz_worker_cpu_us_per_step",
        "startup_wall_s",
    ]
    parquet, jsonl = (
        by_figure["whole_run_1h_parquet_x_floor"],
        by_figure["whole_run_1h_jsonl_x_floor"],
    )
    assert (parquet["value"], parquet["goal"], parquet["met"]) == (1.8, 2.0, True)
    assert (parquet["wall_s"], parquet["floor_wall_s"]) == (0.9, 0.5)
    assert (jsonl["value"], jsonl["goal"], jsonl["met"]) == (4.0, 4.0, True)
    assert not by_figure["sensor_stream_1khz_us_per_step"]["met"]
    by_name["navsense 24 h parquet"] = {"wall_s": 30.0, "peak_mib": 600.0}
    day = {g["figure"]: g for g in bench.issue_goals(by_name, {"wall_s": 0.5}, stream, 0.2)}
    assert (day["peak_mib_24h_parquet"]["goal"], day["peak_mib_24h_parquet"]["met"]) == (512, False)
