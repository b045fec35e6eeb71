"""The goal figures of issue 18 item 1 on recordings "like a user's" (tests/synthetic_recordings.py).

Run: ``PYTHONPATH=src:tests python tests/measure_recordings.py [NAME ...]`` prints one row per
recording kind: along-track and lateral specific force error (RMS / largest) and yaw rate error
RMS while moving above 2 m/s, |omega| and horizontal force while standing, the vertical force's
largest error, |omega| and horizontal force while standing at least 1 s from motion
("settled"), the fit's noise and the CPU seconds the build took; a goal missed is marked ``!``.
``--seeds=N`` runs seeds 1 .. N of each kind; ``--edges`` adds a line per row with each true
stop edge (``arr`` the vehicle comes to rest, ``dep`` it moves off, at the drive's time) and the
time of the nearest standstill edge of the fit minus it (a departure's ``+`` and an arrival's
``-`` stand longer than the vehicle: force only while moving; the other signs move while it
stands).
"""

from __future__ import annotations

import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

import synthetic_recordings as sr
from navsense.vehicles import VEHICLES
from synthetic_drives import imu_truth_against_drive

POLARIS = VEHICLES["polaris"]
GOALS = {
    "along_rms": 0.5,
    "along_max": 2.0,
    "lateral_rms": 0.5,
    "lateral_max": 2.0,
    "yaw_rate_rms": 0.05,
    "stopped_omega_max": 0.02,
    "stopped_horizontal_max": 0.3,
    "vertical_max": 1.0,
    "settled_omega_max": 0.02,
    "settled_horizontal_max": 0.3,
}


def goal_figures(drive, t0_s: float, truth, vehicle=POLARIS, moving_mps: float = 2.0) -> dict:
    """As synthetic_drives.imu_errors, with |speed| (a reversing vehicle moves too) and empty
    selections giving 0."""
    t, f, w, f_true, rate, speed = imu_truth_against_drive(drive, t0_s, truth, vehicle)
    speed = np.abs(speed)
    moving = speed > moving_mps
    stopped = speed == 0.0
    # standing and at least a second from motion either side (the edges of a stop are known
    # to a sampling interval only)
    grid = drive.at(drive.t_s, "speed_mps")
    idx = np.clip(np.searchsorted(drive.t_s, t), 0, len(drive.t_s) - 1)
    still = np.concatenate([[0], np.cumsum(np.abs(grid) > 0.0)])  # moving samples before k
    k = int(round(1.0 / (drive.t_s[1] - drive.t_s[0])))
    lo, hi = np.clip(idx - k, 0, len(grid)), np.clip(idx + k + 1, 0, len(grid))
    settled = stopped & (still[hi] - still[lo] == 0)
    err = f - f_true

    def rms(x):
        return float(np.sqrt(np.mean(x * x))) if x.size else 0.0

    def top(x):
        return float(np.max(np.abs(x))) if x.size else 0.0

    return {
        "along_rms": rms(err[moving, 0]),
        "along_max": top(err[moving, 0]),
        "lateral_rms": rms(err[moving, 1]),
        "lateral_max": top(err[moving, 1]),
        "yaw_rate_rms": rms(w[moving, 2] - rate[moving]),
        "stopped_omega_max": top(np.linalg.norm(w[stopped], axis=1)),
        "stopped_horizontal_max": top(np.hypot(*err[stopped, :2].T)),
        "vertical_max": top(err[:, 2]),
        "settled_omega_max": top(np.linalg.norm(w[settled], axis=1)),
        "settled_horizontal_max": top(np.hypot(*err[settled, :2].T)),
    }


def stop_edges(drive, t0_s: float, traj) -> list[tuple[str, float, float]]:
    """(kind, true time, nearest fitted standstill edge - true time) for each time the drive
    comes to rest ("arr") or moves off ("dep"), in the drive's time (t0_s: its time of the
    recording's first point)."""
    still = drive.speed_mps == 0.0
    turns = np.flatnonzero(np.diff(still.astype(np.int8)))
    fitted = np.array([t + t0_s for pair in traj.standstills for t in pair])
    out = []
    for i in turns:
        kind, t = ("arr", drive.t_s[i + 1]) if still[i + 1] else ("dep", drive.t_s[i])
        off = float(fitted[np.argmin(np.abs(fitted - t))] - t) if fitted.size else float("nan")
        out.append((kind, float(t), off))
    return out


def build(path, **kwargs):
    from navsense.truth.tracks import load_track, plan_track

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        start = time.process_time()
        traj = plan_track(load_track(path), "polaris", **kwargs)
        truth = traj.sample(120.0)
        cpu = time.process_time() - start
    return traj, truth, cpu, [str(w.message) for w in caught]


# name: (drive, recording options, writer, writer options)
W = "gpx"
CASES: dict[str, tuple[str, dict, str, dict]] = {
    "town 1Hz white 0.5/1": ("town", {}, W, {}),
    "town 1Hz white 3/5": ("town", dict(white_h_m=3.0, white_v_m=5.0), W, {}),
    "town 1Hz white 0.3/1": ("town", dict(white_h_m=0.3), W, {}),
    "town 1Hz GM 1m/30s+0.3": ("town", dict(white_h_m=0.3, gm_h_m=1.0, gm_v_m=2.0), W, {}),
    "town 1Hz GM 3m/60s+0.5": (
        "town",
        dict(white_h_m=0.5, gm_h_m=3.0, gm_v_m=5.0, tau_s=60.0),
        W,
        {},
    ),
    "town 5Hz white 0.5/1": ("town", dict(period_s=0.2), W, {}),
    "town 10Hz white 0.5/1": ("town", dict(period_s=0.1), W, {}),
    "town 10Hz GM 1m/30s+0.3": (
        "town",
        dict(period_s=0.1, white_h_m=0.3, gm_h_m=1.0, gm_v_m=2.0),
        W,
        {},
    ),
    "town 5Hz GM 1m/30s+0.3": (
        "town",
        dict(period_s=0.2, white_h_m=0.3, gm_h_m=1.0, gm_v_m=2.0),
        W,
        {},
    ),
    "town 10Hz white 0.3 ms-jitter": (
        "town",
        dict(period_s=0.1, white_h_m=0.3, jitter_s=0.004),
        W,
        {},
    ),
    "highway 1Hz white 0.5/1": ("highway", {}, W, {}),
    "highway 1Hz GM 1m/30s+0.3": ("highway", dict(white_h_m=0.3, gm_h_m=1.0, gm_v_m=2.0), W, {}),
    "highway 10Hz white 0.5/1": ("highway", dict(period_s=0.1), W, {}),
    "highway 10Hz GM 1m/30s+0.3": (
        "highway",
        dict(period_s=0.1, white_h_m=0.3, gm_h_m=1.0, gm_v_m=2.0),
        W,
        {},
    ),
    "parking 1Hz white 0.5/1": ("parking", {}, W, {}),
    "parking 5Hz white 0.3/1": ("parking", dict(period_s=0.2, white_h_m=0.3), W, {}),
    "uturn 1Hz white 0.5/1": ("uturn", {}, W, {}),
    "queue 1Hz white 0.5/1": ("queue", {}, W, {}),
    "queue 1Hz GM 1m/30s+0.3": ("queue", dict(white_h_m=0.3, gm_h_m=1.0), W, {}),
    "queue 5Hz white 0.3/1": ("queue", dict(period_s=0.2, white_h_m=0.3), W, {}),
    "queue 10Hz GM 1m/30s+0.3": ("queue", dict(period_s=0.1, white_h_m=0.3, gm_h_m=1.0), W, {}),
    "hill 6% 1Hz white 0.5/1": ("hill", {}, W, {}),
    "hill 6% 1Hz white 0.5/5": ("hill", dict(white_v_m=5.0), W, {}),
    "hill 6% 1Hz GM v 3m": ("hill", dict(gm_v_m=3.0), W, {}),
    "standstills 5min 1Hz 0.5/1": ("standstills", {}, W, {}),
    "standstills 5min GM 1m/30s": ("standstills", dict(white_h_m=0.3, gm_h_m=1.0), W, {}),
    "town no elevation": ("town", {}, W, dict(elevation=False)),
    "town whole seconds": ("town", {}, W, dict(decimals=0)),
    "town +02:00 local time": ("town", {}, W, dict(utc_offset_h=2.0)),
    "town 3 segments 2 tracks": ("town", {}, W, dict(segments=3, tracks=2)),
    "town duplicated points": ("town", {}, W, dict(duplicate_every=37)),
    "town 5Hz jitter 30ms": ("town", dict(period_s=0.2, jitter_s=0.03), W, {}),
    "town 10s tunnel": ("town", dict(gaps=((50.0, 60.0),)), W, {}),
    "town 30s tunnel": ("town", dict(gaps=((30.0, 60.0),)), W, {}),
    "town outlier 20m": ("town", dict(outliers=((45.0, 20.0),)), W, {}),
    "town outlier 50m": ("town", dict(outliers=((45.0, 50.0),)), W, {}),
    "town outlier 30m in turn": ("town", dict(outliers=((40.0, 30.0),)), W, {}),
    "town 10Hz outlier 30m": ("town", dict(period_s=0.1, outliers=((45.0, 30.0),)), W, {}),
    "town csv lat/lon": ("town", {}, "csv", {}),
    "town csv enu": ("town", {}, "enu", {}),
}


def run_case(name: str, seed: int = 1, folder: Path | None = None) -> dict:
    drive_name, rec, writer, wopts = CASES[name]
    drive = sr.DRIVES[drive_name]()
    t_rec, t_true, enu = sr.record_noisy(drive, seed=seed, **rec)
    folder = folder or Path(tempfile.mkdtemp())
    if writer == "gpx":
        path = sr.write_gpx_text(folder / "track.gpx", t_rec, enu, **wopts)
    elif writer == "csv":
        path = sr.write_csv_geodetic(folder / "track.csv", t_rec, enu, **wopts)
    else:
        path = sr.write_csv_enu(folder / "track.csv", t_rec, enu, **wopts)
    try:
        traj, truth, cpu, warns = build(path)
    except Exception as exc:  # a measurement: shown in the table
        return {"error": f"{type(exc).__name__}: {exc}"}
    e = goal_figures(drive, t_true[0], truth)
    e["noise_m"] = traj.noise_m
    e["cpu_s"] = cpu
    e["warnings"] = len(warns)
    e["edges"] = stop_edges(drive, t_true[0], traj)
    return e


def main(names: list[str], seeds: int = 1, edges: bool = False) -> None:
    keys = list(GOALS)
    head = ["along", "amax", "lat", "lmax", "yaw", "st_w", "st_f", "vert", "set_w", "set_f"]
    head += ["noise", "cpu"]
    print(f"{'recording':32s} " + " ".join(f"{h:>7s}" for h in head))
    for name in names or list(CASES):
        for seed in range(1, seeds + 1):
            e = run_case(name, seed)
            if "error" in e:
                print(f"{name:32s} {e['error'][:150]}")
                continue
            cells = []
            for k in keys:
                mark = "!" if e[k] > GOALS[k] else " "
                cells.append(f"{e[k]:6.3f}{mark}")
            cells.append(f"{e['noise_m']:7.2f}")
            cells.append(f"{e['cpu_s']:7.2f}")
            warn = f" w{e['warnings']}" if e["warnings"] else ""
            print(f"{name + (f' s{seed}' if seeds > 1 else ''):32s} " + " ".join(cells) + warn)
            if edges:
                print("    edges " + " ".join(f"{k}{t:.0f}:{d:+.2f}" for k, t, d in e["edges"]))
            sys.stdout.flush()


if __name__ == "__main__":
    args = sys.argv[1:]
    seeds = 1
    edges = "--edges" in args
    args = [a for a in args if a != "--edges"]
    if args and args[0].startswith("--seeds="):
        seeds = int(args.pop(0).split("=")[1])
    main(args, seeds, edges)
