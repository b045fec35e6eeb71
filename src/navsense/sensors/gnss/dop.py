"""Dilution of precision (specification, "GNSS Receiver", "Dilution of Precision"; Dop).

One row of the geometry matrix G for each satellite in the set::

    g = [-l_e, -l_n, -l_u, 1]
    Q = (G^T G)^-1
    H = sqrt(Q11 + Q22),   V = sqrt(Q33),   P = sqrt(Q11 + Q22 + Q33)

where l is the unit line of sight in ENU. The three values are 99.99 (NO_DOP) with fewer than
4 satellites or with a singular matrix. The receiver computes H, V, P from the used satellites
and H_o, V_o from all satellites above the mask.

Computation. Only the position block of Q is needed. With n used satellites,
G^T G = [[A, -b], [-b^T, n]], A = sum l l^T, b = sum l, and the position block of its inverse is
the inverse of the Schur complement of the clock term (an exact identity)::

    Q_pos = M^-1,   M = A - b b^T / n = sum (l - lbar)(l - lbar)^T,   lbar = b / n

M is formed from the centred lines of sight (no cancellation between A and b b^T / n) and
inverted in closed form (3 x 3 adjugate over determinant), vectorised over epochs; the sums run
satellite by satellite within an epoch, so an epoch's values never depend on how the epochs were
cut into chunks. G^T G is singular exactly when M is (det G^T G = n det M, n >= 4).

Singularity test: M counts as singular when det M <= 0 or is not finite, or when its 1-norm
condition number ||M||_1 ||M^-1||_1 exceeds MAX_CONDITION = 1e12. An exactly degenerate sky
(every satellite at one elevation, or all in one vertical plane) has det M = 0 or a condition
number of order 1e16 in floating point; a usable sky is far below 1e12 (such a DOP would
already exceed 1e5).
"""

from __future__ import annotations

import numpy as np

__all__ = ["dop", "NO_DOP", "MAX_CONDITION", "MIN_SATELLITES"]

NO_DOP = 99.99  # the value of H, V and P without a solution (specification, "Dilution of Precision")
MIN_SATELLITES = 4  # specification, "Dilution of Precision"
MAX_CONDITION = 1e12  # 1-norm condition number of M above which G^T G counts as singular
_BLOCK_EPOCHS = 256  # epochs a block


def dop(los, used) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """HDOP, VDOP and PDOP (each (m,)) of the satellites ``used`` (m, nsat) bool.

    ``los`` (m, nsat, 3) unit lines of sight in ENU. 99.99 for all three where fewer than 4
    satellites are used or the geometry is singular (see the module docstring).
    """
    los = np.asarray(los, dtype=np.float64)
    used = np.asarray(used, dtype=bool)
    if los.ndim != 3 or los.shape[2] != 3:
        raise ValueError(f"Expected `los` to have shape (m, nsat, 3), got {los.shape}")
    if used.shape != los.shape[:2]:
        raise ValueError(f"Expected `used` to have shape {los.shape[:2]}, got {used.shape}")
    m = los.shape[0]
    hdop, vdop, pdop = np.empty(m), np.empty(m), np.empty(m)
    for b0 in range(0, m, _BLOCK_EPOCHS):  # blocks keep the temporaries in cache
        b1 = min(m, b0 + _BLOCK_EPOCHS)
        hdop[b0:b1], vdop[b0:b1], pdop[b0:b1] = _dop_block(los[b0:b1], used[b0:b1])
    return hdop, vdop, pdop


def _dop_block(los: np.ndarray, used: np.ndarray):
    """dop() of a block of epochs."""
    w = used.astype(np.float64)
    n = w.sum(axis=1)
    n1 = np.maximum(n, 1.0)
    # centred lines of sight of the used satellites, zero for the others
    d = [(los[..., k] - (np.sum(los[..., k] * w, axis=1) / n1)[:, None]) * w for k in range(3)]
    a, b, c = (np.sum(d[0] * d[0], axis=1), np.sum(d[1] * d[1], axis=1),
               np.sum(d[2] * d[2], axis=1))
    e_n, e_u, n_u = (np.sum(d[0] * d[1], axis=1), np.sum(d[0] * d[2], axis=1),
                     np.sum(d[1] * d[2], axis=1))
    # M = [[a, e_n, e_u], [e_n, b, n_u], [e_u, n_u, c]]: cofactors (symmetric adjugate)
    c11, c22, c33 = b * c - n_u * n_u, a * c - e_u * e_u, a * b - e_n * e_n
    c12, c13, c23 = e_u * n_u - e_n * c, e_n * n_u - b * e_u, e_n * e_u - a * n_u
    det = a * c11 + e_n * c12 + e_u * c13
    norm_m = np.maximum.reduce([np.abs(a) + np.abs(e_n) + np.abs(e_u),
                                np.abs(e_n) + np.abs(b) + np.abs(n_u),
                                np.abs(e_u) + np.abs(n_u) + np.abs(c)])
    norm_adj = np.maximum.reduce([np.abs(c11) + np.abs(c12) + np.abs(c13),
                                  np.abs(c12) + np.abs(c22) + np.abs(c23),
                                  np.abs(c13) + np.abs(c23) + np.abs(c33)])
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        ok = ((n >= MIN_SATELLITES) & np.isfinite(det) & (det > 0.0)
              & (norm_m * norm_adj <= MAX_CONDITION * det))
        inv_det = np.where(ok, 1.0 / det, 0.0)
    q11, q22, q33 = c11 * inv_det, c22 * inv_det, c33 * inv_det
    return (np.where(ok, np.sqrt(np.maximum(q11 + q22, 0.0)), NO_DOP),
            np.where(ok, np.sqrt(np.maximum(q33, 0.0)), NO_DOP),
            np.where(ok, np.sqrt(np.maximum(q11 + q22 + q33, 0.0)), NO_DOP))
