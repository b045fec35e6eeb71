"""The rules of a truth log's values (:mod:`navsense.truth.io`'s docstring): their limits, and
the checks of a block of rows in two forms.

- The failures of a block (:func:`value_failures`, :func:`quaternion_failures`,
  :func:`reset_flags`; the clock's are the reader's, :class:`navsense.truth.io._Validator`):
  ``(row in block, rule order, message)``, the first row's first rule being reported.
- :func:`values_pass` and :func:`clock_passes`: whether a block breaks none of those rules,
  answered with a minimum and a maximum of each column instead of an array of flags per rule.
  The reader asks them first and looks for the failures only when one says no: a valid log pays
  for the cheap form alone, a bad one gets its message from the failures as before.

The two forms agree (tests/truth/test_truth_rules.py): with ``lo, hi`` the smallest and largest
value of a column, every value of it lies in ``[-L, L]`` exactly when ``-L <= lo`` and
``hi <= L``; a NaN makes numpy's minimum and maximum NaN, and a comparison with NaN is false, so
a NaN fails as it does by name. Within ``[-L, L]`` a value is finite. The quaternion rule
``| |q| - 1 | <= tol`` is ``-tol <= |q| - 1 <= tol`` on the same difference (the absolute value
of a double is exact); a finite norm has finite components, so the quaternions' own finiteness
check is implied. The clock's ``|t_i - k_i / rate| <= tol`` likewise.
"""

from __future__ import annotations

import math

import numpy as np

from navsense.truth.states import TRUTH_COLUMNS

__all__ = [
    "TIME_TOLERANCE_S",
    "QUAT_NORM_TOLERANCE",
    "MAX_TIME_S",
    "MAX_POSITION_M",
    "MAX_SPEED_MPS",
    "MAX_RATE_RADPS",
    "NUMERIC",
    "LIMITS",
    "value_failures",
    "quaternion_failures",
    "reset_flags",
    "first_step",
    "values_pass",
    "clock_passes",
]

TIME_TOLERANCE_S = 1e-6  # t_s of a row vs k / rate_hz, s (issue 2, item 4)
# Limits of the values (issue 21): far beyond any vehicle, and small enough that every model's
# arithmetic stays finite and the physics clock's steps stay exact integers
MAX_TIME_S = 1e8  # episode time, s (3.2 years)
MAX_POSITION_M = 1e9  # grid ENU coordinate, m (a million km: the georeference bounds a site)
MAX_SPEED_MPS = 1e4  # velocity component, m/s
MAX_RATE_RADPS = 1e3  # angular-velocity component, rad/s
QUAT_NORM_TOLERANCE = 1e-6  # | |q| - 1 | allowed (issue 2, item 4)

NUMERIC = TRUTH_COLUMNS[:-1]
#: column -> (limit of its absolute value, unit, what it is); the quaternions' norm is apart
LIMITS = {
    "t_s": (MAX_TIME_S, "s", "the episode time (3.2 years)"),
    **{
        c: (MAX_POSITION_M, "m", "a grid coordinate")
        for c in NUMERIC
        if c[1:] in ("x_m", "y_m", "z_m")
    },
    **{c: (MAX_SPEED_MPS, "m/s", "a speed") for c in ("vx_mps", "vy_mps", "vz_mps")},
    **{
        c: (MAX_RATE_RADPS, "rad/s", "an angular rate")
        for c in ("wx_radps", "wy_radps", "wz_radps")
    },
}


def value_failures(cols: dict[str, np.ndarray]) -> list[tuple[int, int, str]]:
    """Every value finite, and within the limit of what a vehicle can have (LIMITS)."""
    failures = []
    bad_rows = [
        (int(np.argmax(~np.isfinite(cols[c]))), j, c)
        for j, c in enumerate(NUMERIC)
        if not np.all(np.isfinite(cols[c]))
    ]
    if bad_rows:
        i, _, c = min(bad_rows)
        failures.append((i, 0, f"{c} = {float(cols[c][i])!r} is not a finite number"))
    beyond = []
    for j, c in enumerate(NUMERIC):
        if c not in LIMITS:  # quaternions: their norm is checked apart
            continue
        limit, unit, what = LIMITS[c]
        with np.errstate(invalid="ignore"):
            out = np.isfinite(cols[c]) & (np.abs(cols[c]) > limit)
        if np.any(out):
            beyond.append((int(np.argmax(out)), j, c, limit, unit, what))
    if beyond:
        i, _, c, limit, unit, what = min(beyond)
        failures.append(
            (
                i,
                0,
                f"{c} = {float(cols[c][i])!r} is beyond the limit of {what}: "
                f"|{c}| <= {limit:g} {unit}",
            )
        )
    return failures


def _norm(cols: dict[str, np.ndarray]) -> np.ndarray:
    """|q| = sqrt(qx^2 + qy^2 + qz^2 + qw^2), row by row."""
    return np.sqrt(cols["qx"] ** 2 + cols["qy"] ** 2 + cols["qz"] ** 2 + cols["qw"] ** 2)


def quaternion_failures(cols: dict[str, np.ndarray]) -> list[tuple[int, int, str]]:
    """Unit quaternions: | |q| - 1 | <= QUAT_NORM_TOLERANCE."""
    norm = _norm(cols)
    off = np.abs(norm - 1.0) > QUAT_NORM_TOLERANCE
    if not np.any(off):
        return []
    i = int(np.argmax(off))
    q = ", ".join(repr(float(cols[c][i])) for c in ("qx", "qy", "qz", "qw"))
    return [
        (
            i,
            2,
            (
                f"quaternion (qx, qy, qz, qw) = ({q}) has norm {float(norm[i])!r}; "
                f"it must be a unit quaternion (|norm - 1| <= {QUAT_NORM_TOLERANCE:g})"
            ),
        )
    ]


def reset_flags(values) -> tuple[np.ndarray, list[tuple[int, int, str]]]:
    """The reset column as booleans (0/1 or true/false), and its failure if a value is neither."""
    reset = np.asarray(values)
    failures = []
    if reset.dtype != np.bool_:
        bad = ~((reset == 0) | (reset == 1))
        if np.any(bad):
            i = int(np.argmax(bad))
            failures.append((i, 3, f"reset = {reset[i].item()!r} must be 0 or 1 (or true/false)"))
        reset = reset == 1
    return reset, failures


def first_step(t0: float, rate_hz: float) -> int | None:
    """k0 = round(t_0 rate_hz) of a log's first time; None when t_0 is not a finite time within
    MAX_TIME_S (its value rule names it)."""
    if not (math.isfinite(t0) and abs(t0) <= MAX_TIME_S):
        return None
    return int(round(t0 * rate_hz))


def _within(x: np.ndarray, limit: float) -> bool:
    """Every value of ``x`` in [-limit, limit] (a NaN is not: module docstring)."""
    return bool(-limit <= x.min() and x.max() <= limit)


def values_pass(cols: dict[str, np.ndarray]) -> bool:
    """True when a block of at least one row breaks no rule of :func:`value_failures` and
    :func:`quaternion_failures` (the same answer, module docstring)."""
    for c, (limit, _, _) in LIMITS.items():
        if not _within(cols[c], limit):
            return False
    return _within(_norm(cols) - 1.0, QUAT_NORM_TOLERANCE)


def clock_passes(t: np.ndarray, k_first: int, rate_hz: float) -> bool:
    """True when the times ``t`` of a block of at least one row are the steps ``k_first, ..``
    within TIME_TOLERANCE_S: ``|t_i - k_i / rate_hz| <= TIME_TOLERANCE_S`` (the expected times
    computed as the reader's clock rule computes them). A time that is not finite fails here
    too; :func:`value_failures` names it."""
    k = np.arange(k_first, k_first + len(t), dtype=np.int64)
    return _within(t - k / rate_hz, TIME_TOLERANCE_S)
