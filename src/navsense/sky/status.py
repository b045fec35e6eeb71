"""The sky view's statuses of the satellites (specification, "Sky Obstruction"): their codes,
the counts of a row, the used satellites and the signal outages (navsense extension).

The codes, in the order of precedence of :mod:`navsense.sky.obstruction` (which classifies and
re-exports them): BELOW_MASK (not tracked: below the elevation mask, or its system off), CLEAR,
NEAR, FOLIAGE (used: N_c, N_n, N_f) and BLOCKED (not used). N_u = N_c + N_n + N_f.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "COUNT_KEYS",
    "BELOW_MASK",
    "CLEAR",
    "NEAR",
    "FOLIAGE",
    "BLOCKED",
    "STATUS_NAMES",
    "counts",
    "used_mask",
    "signal_lost",
]

BELOW_MASK = 0  # not tracked: below the elevation mask, or its system off
CLEAR = 1
NEAR = 2
FOLIAGE = 3
BLOCKED = 4
STATUS_NAMES = ("below_mask", "clear", "near", "foliage", "blocked")


def signal_lost(status: np.ndarray, t_s: np.ndarray, windows) -> np.ndarray:
    """The sky view's status (m, nsat) with every satellite lost in the signal outages.

    gnss.signal_outages_s (navsense extension, issue 19): in a window [t1, t2) of the epoch time
    the receiver tracks no satellite (jamming, a tunnel). A satellite above the mask counts as
    blocked (satellites_blocked = satellites_above_mask, satellites_used = N_c = N_n = N_f = 0),
    as when the site's obstacles hide the whole sky; below the mask it stays below the mask. The
    fix machine then sees N_u = 0 < 4 (no fix, the RTK lock ends) and reacquires by its own rules
    once the window ends. Epochs outside every window keep their status (same array). The
    receiver and the readers (the report's sky plot) both apply it.
    """
    t_s = np.asarray(t_s, dtype=np.float64)
    lost = np.zeros(t_s.shape, dtype=bool)
    for t1, t2 in windows:
        lost |= (t_s >= t1) & (t_s < t2)
    if not np.count_nonzero(lost):
        return status
    status = status.copy()
    rows = status[lost]
    rows[rows != BELOW_MASK] = BLOCKED
    status[lost] = rows
    return status


def used_mask(status) -> np.ndarray:
    """The used satellites (m, nsat): CLEAR, NEAR or FOLIAGE."""
    status = np.asarray(status)
    return (status >= CLEAR) & (status <= FOLIAGE)


def counts(status) -> dict[str, np.ndarray]:
    """The satellite counts of a row, each (m,) int64, from the status (m, nsat).

    satellites_used = N_u = N_c + N_n + N_f, satellites_clear = N_c,
    satellites_near_obstruction = N_n, satellites_foliage = N_f, satellites_blocked,
    satellites_above_mask (all tracked satellites: used + blocked).
    """
    status = np.asarray(status)
    if status.ndim != 2:
        raise ValueError(f"Expected `status` to have shape (m, nsat), got {status.shape}")
    m = status.shape[0]
    if m == 1 and status.dtype == np.int8:  # one epoch: its histogram (a code off 0..4 is
        hist = np.bincount(status.reshape(-1).view(np.uint8), minlength=5)  # a longer one)
        if hist.size == 5:  # its six counts as Python ints, then one array (6, 1)
            _, c, n, f, b = hist.tolist()
            u = c + n + f
            return dict(zip(COUNT_KEYS, np.array([u, c, n, f, b, u + b]).reshape(6, 1)))
    if status.size and not (status.min() >= 0 and status.max() <= BLOCKED):
        raise ValueError(
            f"status codes must be 0 .. {BLOCKED} ({', '.join(STATUS_NAMES)}), got "
            f"{status.min()} .. {status.max()}"
        )
    # one histogram of (epoch, status code) over all satellites
    cells = np.add(status, np.arange(0, 5 * m, 5, dtype=np.int64)[:, None], dtype=np.int64)
    return _counts(np.bincount(cells.ravel(), minlength=5 * m).reshape(m, 5))


COUNT_KEYS = (  # the counts of :func:`counts`, in the GNSS row's order (output.layouts.gnss)
    "satellites_used",
    "satellites_clear",
    "satellites_near_obstruction",
    "satellites_foliage",
    "satellites_blocked",
    "satellites_above_mask",
)


def _counts(hist: np.ndarray) -> dict[str, np.ndarray]:
    """:func:`counts` of the histogram (m, 5) of the epochs' status codes."""
    n = {code: hist[:, code] for code in (CLEAR, NEAR, FOLIAGE, BLOCKED)}
    used = n[CLEAR] + n[NEAR] + n[FOLIAGE]
    values = (used, n[CLEAR], n[NEAR], n[FOLIAGE], n[BLOCKED], used + n[BLOCKED])
    return dict(zip(COUNT_KEYS, values))
