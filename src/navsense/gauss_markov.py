"""The first-order Gauss-Markov recursion, evaluated in the same floating-point operations however
a run is cut into chunks.

    x_k = a_k x_(k-1) + d_k          (d_k the drive, e.g. sqrt(1 - a_k^2) sigma g_k)

This is the one per-epoch loop the INS, GNSS and configurable IMU error models share. It runs
on Python floats (one multiply and one add an epoch, IEEE binary64 like any compiled loop), so a
whole log, chunks or single steps give the same bits; the drive is computed vectorised before.
A compiled filter (scipy.signal.lfilter) gives the same values but costs a third of a second to
import, more than the loop over an hour of epochs.
"""

from __future__ import annotations

import numpy as np

__all__ = ["scan"]


def scan(a, drive: np.ndarray, x0) -> np.ndarray:
    """x_k = a_k x_(k-1) + drive_k for k = 0 .. m-1, from x_(-1) = x0, each column independently.

    ``a`` (m,) or a scalar, ``drive`` (m, n), ``x0`` (n,); returns (m, n) float64.
    """
    drive = np.asarray(drive, dtype=np.float64)
    m, n = drive.shape
    out = np.empty((m, n))
    if m == 0:
        return out
    a_arr = np.broadcast_to(np.asarray(a, dtype=np.float64), (m,))
    a_list = a_arr.tolist()
    x0 = np.broadcast_to(np.asarray(x0, dtype=np.float64), (n,))
    for j in range(n):
        x = float(x0[j])
        col = drive[:, j].tolist()
        res = [0.0] * m
        for k, ak in enumerate(a_list):
            x = ak * x + col[k]
            res[k] = x
        out[:, j] = res
    return out
