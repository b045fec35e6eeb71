"""The error figures of an estimate against the truth (all in the site's grid ENU).

Absolute trajectory error (ATE), at each scored epoch, after the alignment (navsense.score.align)::

    e = p_est - p_true,   ate_3d = |e|,   ate_h = hypot(e_E, e_N),   ate_v = |e_U|

Relative pose error (RPE), over pairs (i, j) of epochs D apart (evo's "consecutive pairs"
``filter_pairs_by_index / by_path``: from i = 0, j is the first epoch with t_j - t_i >= D
(``--rpe-unit s``; within TIME_TOL_S) or with the truth's path length from i at least D (``m``,
evo with ``pairs_from_reference``); the next pair starts at j). With attitude, evo's SE(3)
relation of the TUM RGB-D benchmark::

    E_ij = (Q_i^-1 Q_j)^-1 (P_i^-1 P_j)      (P estimate poses, Q truth poses)
    rpe_trans = |translation(E_ij)| = |R_Pi^T (p_j - p_i) - R_Qi^T (q_j - q_i)|
    rpe_rot   = the rotation angle of E_ij, deg

without attitude, the same with P's rotations set to Q's: rpe_trans = |(p_j - p_i) - (q_j - q_i)|.

Attitude (where the estimate has one): the angle of dq = q_true^-1 q_est (deg), and the
differences of the z-y-x Euler angles (heading = yaw, pitch, roll; wrapped to +-180 deg), as the
run statistics do for the INS (:mod:`navsense.runs.stats`).

Covariance honesty (where the estimate has a position covariance C, m^2)::

    NEES_3d = e^T C^-1 e              (chi-square, 3 degrees of freedom: mean 3)
    NEES_h  = e_h^T C_h^-1 e_h        (C_h the east-north block; 2 dof: mean 2)
    NEES_v  = e_U^2 / C_UU            (1 dof: mean 1)
    h_in_k_sigma = share of NEES_h <= k^2   (2-D: 39.3 %, 86.5 % for k = 1, 2)
    v_in_k_sigma = share of |e_U| <= k sqrt(C_UU)   (1-D: 68.3 %, 95.4 %)

the sigma tests of the run report (:data:`navsense.runs.stats.EXPECTED_GAUSSIAN_FRACTIONS`), with the
full horizontal covariance (for a diagonal C exactly the report's (e_E/s_E)^2 + (e_N/s_N)^2).
An epoch whose C is not positive definite is left out of them: its smallest eigenvalue must
exceed :data:`PD_MIN_RATIO` (1e-12) times its largest (a covariance with a zero or a rounding
error's variance, e.g. sigma 0 in one axis, has no NEES; its 2-D block is then invertible too).

Every distribution is summarised as rms, mean, median, p95 (numpy's linear percentile) and max;
an empty one is NaN.
"""

from __future__ import annotations

import numpy as np

from navsense.errors import ConfigError
from navsense.rotation import (
    euler_zyx_of_quat,
    quat_conjugate,
    quat_multiply,
    quat_to_matrix,
    wrap_angle,
)
from navsense.score.estimate import TIME_TOL_S

__all__ = [
    "PD_MIN_RATIO",
    "RPE_UNITS",
    "SUMMARY",
    "attitude_errors",
    "describe",
    "nees",
    "rpe_errors",
    "rpe_pairs",
]

SUMMARY = ("rms", "mean", "median", "p95", "max")
RPE_UNITS = ("m", "s")
_NAN = float("nan")
#: A covariance is positive definite when its smallest eigenvalue exceeds this times its largest.
PD_MIN_RATIO = 1e-12
#: A covariance entry beyond this (m^2; a sigma of 1e75 m) is no usable covariance: the
#: eigenvalue solver's squares of 1e308 overflowed ("Eigenvalues did not converge").
MAX_COVARIANCE_M2 = 1e150


def describe(x: np.ndarray) -> dict[str, float]:
    """rms, mean, median, p95, max of the values x (NaN when empty)."""
    x = np.asarray(x, dtype=np.float64)
    if x.size == 0:
        return dict.fromkeys(SUMMARY, _NAN)
    return {
        "rms": float(np.sqrt(np.mean(x * x))),
        "mean": float(np.mean(x)),
        "median": float(np.median(x)),
        "p95": float(np.percentile(x, 95.0)),
        "max": float(np.max(x)),
    }


def rpe_pairs(
    t_s: np.ndarray, p_true: np.ndarray, delta: float, unit: str
) -> tuple[np.ndarray, np.ndarray]:
    """The consecutive pairs (i, j) D = ``delta`` apart in ``unit`` s or m (module docstring)."""
    if unit not in RPE_UNITS:
        raise ConfigError(f"--rpe-unit {unit!r} is not one of {', '.join(RPE_UNITS)}")
    if not np.isfinite(delta) or delta <= 0.0:
        raise ConfigError(f"--rpe-delta {delta!r} must be a positive number")
    if unit == "s":
        axis = np.asarray(t_s, dtype=np.float64)
        target = delta - TIME_TOL_S
    else:
        steps = np.sqrt(np.sum(np.diff(p_true, axis=0) ** 2, axis=1))
        axis = np.concatenate([[0.0], np.cumsum(steps)])
        target = delta
    ids = [0]
    n = axis.shape[0]
    while True:
        j = max(int(np.searchsorted(axis, axis[ids[-1]] + target, side="left")), ids[-1] + 1)
        if j >= n:
            break
        ids.append(j)
    a = np.array(ids, dtype=np.int64)
    return a[:-1], a[1:]


def rpe_errors(
    i: np.ndarray,
    j: np.ndarray,
    p_est: np.ndarray,
    q_est: np.ndarray | None,
    p_true: np.ndarray,
    q_true: np.ndarray,
) -> tuple[np.ndarray, np.ndarray | None]:
    """(rpe_trans m, rpe_rot deg or None) of the pairs (module docstring); without attitude
    (``q_est`` None) only the translation."""
    dp, dq = p_est[j] - p_est[i], p_true[j] - p_true[i]
    if q_est is None:
        return np.sqrt(np.sum((dp - dq) ** 2, axis=1)), None
    r_pi, r_qi = quat_to_matrix(q_est[i]), quat_to_matrix(q_true[i])
    a = np.einsum("nji,nj->ni", r_pi, dp)  # R_Pi^T (p_j - p_i)
    b = np.einsum("nji,nj->ni", r_qi, dq)  # R_Qi^T (q_j - q_i)
    trans = np.sqrt(np.sum((a - b) ** 2, axis=1))
    # rotation of E: (q_Qi^-1 q_Qj)^-1 (q_Pi^-1 q_Pj)
    q_rel_true = quat_multiply(quat_conjugate(q_true[i]), q_true[j])
    q_rel_est = quat_multiply(quat_conjugate(q_est[i]), q_est[j])
    return trans, _angle_deg(quat_multiply(quat_conjugate(q_rel_true), q_rel_est))


def _angle_deg(dq: np.ndarray) -> np.ndarray:
    """Rotation angle of quaternions (m, 4), deg, in [0, 180]."""
    s = np.sqrt(np.sum(dq[:, :3] * dq[:, :3], axis=1))
    return np.degrees(2.0 * np.arctan2(s, np.abs(dq[:, 3])))


def attitude_errors(q_est: np.ndarray, q_true: np.ndarray) -> dict[str, np.ndarray]:
    """att (total angle), heading, pitch, roll errors in deg (module docstring); heading,
    pitch and roll as absolute values."""
    dq = quat_multiply(quat_conjugate(q_true), q_est)
    d_euler = np.degrees(np.abs(wrap_angle(euler_zyx_of_quat(q_est) - euler_zyx_of_quat(q_true))))
    return {
        "att": _angle_deg(dq),
        "heading": d_euler[:, 0],
        "pitch": d_euler[:, 1],
        "roll": d_euler[:, 2],
    }


def nees(e: np.ndarray, cov: np.ndarray) -> dict[str, np.ndarray]:
    """NEES_3d, NEES_h, NEES_v and the vertical ratio |e_U| / sqrt(C_UU) of errors e (m, 3)
    with covariances (m, 3, 3) (module docstring); NaN where C is not positive definite or
    has an entry beyond :data:`MAX_COVARIANCE_M2`."""
    m = e.shape[0]
    out = {k: np.full(m, np.nan) for k in ("3d", "h", "v", "v_ratio")}
    if m == 0:
        return out
    with np.errstate(invalid="ignore"):
        finite = (np.abs(cov) <= MAX_COVARIANCE_M2).all(axis=(1, 2))  # NaN too: not finite
    c = np.where(finite[:, None, None], cov, np.eye(3))
    c = 0.5 * (c + np.swapaxes(c, 1, 2))
    with np.errstate(over="ignore", invalid="ignore"):
        eig = np.linalg.eigvalsh(c)
        ok = finite & (eig[:, 0] > PD_MIN_RATIO * eig[:, 2]) & np.isfinite(eig).all(axis=1)
    if not ok.any():
        return out
    ce, ee = c[ok], e[ok]
    out["3d"][ok] = np.einsum("ni,ni->n", ee, np.linalg.solve(ce, ee[:, :, None])[:, :, 0])
    eh = ee[:, :2]
    out["h"][ok] = np.einsum(
        "ni,ni->n", eh, np.linalg.solve(ce[:, :2, :2], eh[:, :, None])[:, :, 0]
    )
    out["v"][ok] = ee[:, 2] ** 2 / ce[:, 2, 2]
    out["v_ratio"][ok] = np.abs(ee[:, 2]) / np.sqrt(ce[:, 2, 2])
    return out
