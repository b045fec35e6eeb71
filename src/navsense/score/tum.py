"""TUM trajectory files: one pose a line, ``t x y z qx qy qz qw``.

The format of the TUM RGB-D benchmark (Sturm et al. 2012) as evo reads it: fields separated by
spaces (or tabs, or commas), lines starting with ``#`` and blank lines skipped. ``x y z``: the
position in metres in the estimate's frame (site ENU by default, or UTM easting, northing and
ellipsoidal height with ``--frame utm``); ``qx qy qz qw``: the attitude, active rotation body ->
that frame (normalised here; a norm off 1 by more than :data:`QUAT_NORM_TOL` is an error).
``t``: episode seconds, or UNIX seconds when the first time is large
(:data:`navsense.score.estimate.UNIX_TIME_MIN_S`).
"""

from __future__ import annotations

import io
import math
from pathlib import Path

import numpy as np

from navsense.errors import FormatError
from navsense.score.estimate import UNIX_TIME_MIN_S, Estimate, finish, read_estimate_text

__all__ = ["QUAT_NORM_TOL", "read_tum"]

#: A quaternion whose norm differs from 1 by more than this is refused (not an attitude).
QUAT_NORM_TOL = 1e-3


def read_tum(path: str | Path, *, start_ns: int) -> Estimate:
    """Read a TUM file; FormatError naming the line and the value of a malformed line."""
    path = Path(path)
    values: list[list[float]] = []
    lines: list[int] = []
    with io.StringIO(read_estimate_text(path), newline=None) as f:
        for number, line in enumerate(f, start=1):
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            fields = text.replace(",", " ").split()
            if len(fields) != 8:
                raise FormatError(
                    f"{path}: line {number}: {len(fields)} fields {text[:80]!r}; a TUM line "
                    "has 8: t x y z qx qy qz qw"
                )
            row = []
            for name, field in zip(("t", "x", "y", "z", "qx", "qy", "qz", "qw"), fields):
                try:
                    value = float(field)
                except ValueError:
                    raise FormatError(
                        f"{path}: line {number}: {name} = {field!r} is not a number"
                    ) from None
                if not math.isfinite(value):
                    raise FormatError(f"{path}: line {number}: {name} = {field!r} is not finite")
                row.append(value)
            values.append(row)
            lines.append(number)
    if not values:
        raise FormatError(f"{path}: no poses (a TUM line is t x y z qx qy qz qw)")
    a = np.array(values, dtype=np.float64)
    q = a[:, 4:8]
    norm = np.sqrt(np.sum(q * q, axis=1))
    bad = np.flatnonzero(np.abs(norm - 1.0) > QUAT_NORM_TOL)
    if bad.size:
        i = int(bad[0])
        raise FormatError(
            f"{path}: line {lines[i]}: the quaternion {q[i].tolist()} has norm {norm[i]:.6g}, "
            f"not 1 (within {QUAT_NORM_TOL})"
        )
    t = a[:, 0]
    time_base = "episode"
    if t[0] >= UNIX_TIME_MIN_S:
        t = t - start_ns * 1e-9
        time_base = "unix"
    return finish(
        str(path),
        t,
        a[:, 1:4],
        None,
        q / norm[:, None],
        None,
        time_base,
        "",
        where=lambda i: f"line {lines[i]}",
    )
