"""Helpers of the score tests: a short run with its truth, estimates written as files."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from conftest import circle_truth
from navsense.config import load_config
from navsense.runs.export_mcap import write_mcap
from navsense.simulate import simulate
from navsense.site import embedded_site
from navsense.truth.io import read_truth
from navsense.vehicles import vehicle_profile

PHYSICS_HZ = 120.0
OFFSET_M = (400.0, 300.0, 0.0)  # east of the farmstead: open sky
OUTAGE_S = (20.0, 35.0)  # a correction outage of the run


def make_run(out: Path, seconds: float = 60.0, *, output_format: str = "jsonl") -> Path:
    """A run on a 30 m circle in open sky with a correction outage, truth.parquet and ros2.mcap."""
    truth = circle_truth(int(seconds * PHYSICS_HZ) + 1, radius_m=30.0, speed_mps=4.0)
    truth = type(truth)(
        truth.step0,
        truth.p_m + OFFSET_M,
        truth.q_xyzw,
        truth.v_mps,
        truth.w_radps,
        truth.c_m + OFFSET_M,
        truth.reset,
    )
    cfg = load_config(
        vehicle="polaris", overrides={"gnss.corrections.outages_s+": [list(OUTAGE_S)]}
    )
    simulate(
        truth,
        cfg,
        vehicle_profile("polaris"),
        embedded_site("acre"),
        out,
        source={},
        save_truth=True,
        output_format=output_format,
    )
    write_mcap(out)
    return out


def truth_point(run: Path, arm_m, steps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The truth point p + R r and the attitude at physics steps, from truth.parquet with scipy's
    rotation (independent of navsense.rotation)."""
    from scipy.spatial.transform import Rotation

    truth = read_truth(run / "truth.parquet", rate_hz=PHYSICS_HZ)
    idx = steps - truth.step0
    q = truth.q_xyzw[idx]
    return truth.p_m[idx] + Rotation.from_quat(q).apply(np.asarray(arm_m)), q


def write_tum(path: Path, t: np.ndarray, p: np.ndarray, q: np.ndarray) -> Path:
    """A TUM file with every float written exactly (repr)."""
    with open(path, "w", encoding="utf-8") as f:
        f.write("# t x y z qx qy qz qw\n")
        for ti, pi, qi in zip(t, p, q):
            f.write(" ".join(repr(float(v)) for v in (ti, *pi, *qi)) + "\n")
    return path


def write_csv(path: Path, columns: dict[str, np.ndarray]) -> Path:
    """A CSV estimate with the given columns (values written exactly)."""
    names = list(columns)
    n = len(next(iter(columns.values())))
    with open(path, "w", encoding="utf-8") as f:
        f.write(",".join(names) + "\n")
        for i in range(n):
            f.write(",".join(repr(float(columns[c][i])) for c in names) + "\n")
    return path
