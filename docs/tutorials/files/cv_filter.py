"""A constant-velocity Kalman filter over a run's gnss.jsonl: the tutorials' estimator
(docs/tutorials/campaign-scoring.md; the score tests use a copy, tests/score/cv_filter.py).

    python cv_filter.py RUN/gnss.jsonl OUT.csv

State x = (p, v) in site ENU (6), white-acceleration process noise q = 0.5 m^2/s^3 per axis;
measurement the receiver's position_enu_m with its covariance_enu_m2. Epochs without a fix are
predicted only. Writes t_s, e_m, n_m, u_m and the covariance columns from the first fix on:
a CSV estimate as navsense score reads it (docs/reference/scoring.md).
"""

import json
import sys

import numpy as np

Q_ACCEL = 0.5  # m^2/s^3


def main(argv: list[str]) -> int:
    src, out = argv[0], argv[1]
    x = None
    p = None
    t_prev = None
    rows = []
    with open(src, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            t = r["sample_time_s"]
            z, cov = r["position_enu_m"], r["covariance_enu_m2"]
            if x is None:
                if z is None:
                    continue
                x = np.concatenate([z, np.zeros(3)])
                p = np.zeros((6, 6))
                p[:3, :3] = np.asarray(cov).reshape(3, 3)
                p[3:, 3:] = np.eye(3) * 25.0
            else:
                dt = t - t_prev
                f_ = np.eye(6)
                f_[:3, 3:] = np.eye(3) * dt
                q = np.zeros((6, 6))
                q[:3, :3] = np.eye(3) * Q_ACCEL * dt**3 / 3
                q[:3, 3:] = q[3:, :3] = np.eye(3) * Q_ACCEL * dt**2 / 2
                q[3:, 3:] = np.eye(3) * Q_ACCEL * dt
                x = f_ @ x
                p = f_ @ p @ f_.T + q
                if z is not None:
                    h = np.hstack([np.eye(3), np.zeros((3, 3))])
                    s = h @ p @ h.T + np.asarray(cov).reshape(3, 3)
                    k = p @ h.T @ np.linalg.inv(s)
                    x = x + k @ (np.asarray(z) - h @ x)
                    p = (np.eye(6) - k @ h) @ p
            t_prev = t
            c = p[:3, :3]
            rows.append((t, *x[:3], c[0, 0], c[0, 1], c[0, 2], c[1, 1], c[1, 2], c[2, 2]))
    with open(out, "w", encoding="utf-8") as f:
        f.write("t_s,e_m,n_m,u_m,cov_ee_m2,cov_en_m2,cov_eu_m2,cov_nn_m2,cov_nu_m2,cov_uu_m2\n")
        for row in rows:
            f.write(",".join(repr(float(v)) for v in row) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
