"""Rough lower bound for 'IMU (+GNSS) from truth' on this machine: plain numpy.

For a trajectory of DURATION_S seconds sampled at 120 Hz (speed 5-10 m/s,
repeated +-9 deg/s turns, level, flat-earth NED):
  * builds the truth arrays (position, NED velocity, roll/pitch/heading);
  * specific force by finite differences of NED velocity minus gravity,
    rotated into body axes with per-epoch DCMs (einsum);
  * body rates from finite differences of the Euler angles (Euler kinematics);
  * adds seeded Gaussian noise (numpy Generator) to all 6 IMU channels;
  * GNSS at 10 Hz: every 12th position/velocity plus seeded noise;
  * writes IMU (t + 6 channels) and GNSS (t + 6) as raw float64 binary files.
No geodesy, no bias models, no interpolation: it is a floor, not a peer.

Usage: python benchmarks/floor_numpy.py DURATION_S OUT_DIR

The project's copy of the session's shared baseline (../shared/bench/floor_numpy.py, the same
computation, formatted by ruff), so that a fresh clone runs the benchmarks with their floor.
Measured there for 1 h (432 000 samples at 120 Hz): whole process about 0.57 s, about 200 MiB.
"""

import json
import os
import resource
import sys
import time

t_start = time.perf_counter()
import numpy as np  # noqa: E402

t_import = time.perf_counter()

FS = 120
G = 9.80665


def main():
    duration = float(sys.argv[1])
    out_dir = sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    rng = np.random.default_rng(12345)
    dt = 1.0 / FS

    t0 = time.perf_counter()
    n = int(round(duration * FS))
    t = np.arange(n) * dt
    speed = 7.5 + 2.5 * np.sin(2 * np.pi * t / 97.0)
    yaw_rate = np.deg2rad(9.0) * np.sin(2 * np.pi * t / 120.0) ** 15
    heading = np.cumsum(yaw_rate) * dt
    vel_n = np.column_stack([speed * np.cos(heading), speed * np.sin(heading), np.zeros(n)])
    pos_n = np.cumsum(vel_n, axis=0) * dt
    rph = np.column_stack([np.zeros(n), np.zeros(n), heading])
    t1 = time.perf_counter()

    # specific force in NED, then body axes
    f_n = np.gradient(vel_n, dt, axis=0)
    f_n[:, 2] -= G
    cr, sr = np.cos(rph[:, 0]), np.sin(rph[:, 0])
    cp, sp = np.cos(rph[:, 1]), np.sin(rph[:, 1])
    cy, sy = np.cos(rph[:, 2]), np.sin(rph[:, 2])
    c_nb = np.empty((n, 3, 3))  # body -> NED, ZYX
    c_nb[:, 0, 0] = cp * cy
    c_nb[:, 0, 1] = sr * sp * cy - cr * sy
    c_nb[:, 0, 2] = cr * sp * cy + sr * sy
    c_nb[:, 1, 0] = cp * sy
    c_nb[:, 1, 1] = sr * sp * sy + cr * cy
    c_nb[:, 1, 2] = cr * sp * sy - sr * cy
    c_nb[:, 2, 0] = -sp
    c_nb[:, 2, 1] = sr * cp
    c_nb[:, 2, 2] = cr * cp
    f_b = np.einsum("nji,nj->ni", c_nb, f_n)
    # body rates from Euler-angle rates
    d = np.gradient(rph, dt, axis=0)
    w_b = np.column_stack(
        [
            d[:, 0] - d[:, 2] * sp,
            d[:, 1] * cr + d[:, 2] * sr * cp,
            -d[:, 1] * sr + d[:, 2] * cr * cp,
        ]
    )
    t2 = time.perf_counter()

    imu = np.empty((n, 7))
    imu[:, 0] = t
    imu[:, 1:4] = f_b + 1e-2 * rng.standard_normal((n, 3))
    imu[:, 4:7] = w_b + 1e-3 * rng.standard_normal((n, 3))
    gi = slice(None, None, FS // 10)
    m = len(t[gi])
    gnss = np.empty((m, 7))
    gnss[:, 0] = t[gi]
    gnss[:, 1:4] = pos_n[gi] + 2.0 * rng.standard_normal((m, 3))
    gnss[:, 4:7] = vel_n[gi] + 0.1 * rng.standard_normal((m, 3))
    t3 = time.perf_counter()

    imu.tofile(os.path.join(out_dir, "imu_f64.bin"))
    gnss.tofile(os.path.join(out_dir, "gnss_f64.bin"))
    t4 = time.perf_counter()

    rss_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(
        json.dumps(
            {
                "peer": "floor_numpy",
                "duration_s": duration,
                "n_imu": n,
                "n_gps": m,
                "import_s": round(t_import - t_start, 3),
                "truth_s": round(t1 - t0, 3),
                "kinematics_s": round(t2 - t1, 3),
                "noise_s": round(t3 - t2, 3),
                "write_s": round(t4 - t3, 3),
                "sim_total_s": round(t3 - t1, 3),
                "total_in_process_s": round(t4 - t_start, 3),
                "out_bytes": imu.nbytes + gnss.nbytes,
                "peak_rss_mib": round(rss_kib / 1024, 1),
            }
        )
    )


if __name__ == "__main__":
    main()
