"""A truth log's physics rate (issue 30): stated in its metadata, else read from its rows'
spacing (:func:`truth_rate`). navsense.truth.io's docstring tells the format.
"""

from __future__ import annotations

import csv
import math
import os
from pathlib import Path

import numpy as np
import pyarrow as pa

from navsense.truth.logfiles import RATE_KEY, _format_of, _parquet_file, read_truth_metadata
from navsense.truth.states import PHYSICS_HZ

__all__ = ["truth_rate", "spacing_note", "SPACING_ROWS"]

SPACING_ROWS = 1024  # rows whose spacing tells a log's rate when it states none


def truth_rate(path: str | os.PathLike) -> tuple[float, str]:
    """The physics rate of the truth log ``path`` and where it comes from: ``(rate, "metadata")``
    (``navsense.rate_hz`` in its Parquet metadata, ``rate_hz`` in a CSV log's sidecar, as
    ``navsense truth --rate-hz`` and the writers record a rate other than 120 Hz) or
    ``(rate, "spacing")``, from its first rows' times.

    Ruling (issue 30): from the spacing, the rate is the whole number of hertz nearest to
    (n - 1) / (t_n - t_1) over the first :data:`SPACING_ROWS` rows, or to one over their
    median spacing when their spacing varies by 1 % or more: a gap, a repeat, a row off the
    clock (physics simulators step at whole rates; a log at a fractional rate states it in its
    metadata). The reader then checks every row against that clock, and a row off it is one
    line naming the rows whose spacing differs. A log with fewer than two readable times is read
    at the specification's 120 Hz, ``(120.0, "default")`` (its own error, too few rows or a bad
    value, is then reported: before, a physics.hz set against it was refused as 'runs at 120 Hz
    (its rows' spacing)', a spacing one row does not have).
    """
    path = Path(path)
    meta = read_truth_metadata(path)
    if meta.rate_hz is not None:
        return meta.rate_hz, "metadata"
    t = _first_times(path)
    d = np.diff(t)
    if d.size == 0:
        return PHYSICS_HZ, "default"
    mean = (t[-1] - t[0]) / d.size
    if mean > 0 and np.all(np.abs(d - mean) < 0.01 * mean):
        rate = 1.0 / mean
    else:
        med = float(np.median(d))
        if not med > 0:
            return PHYSICS_HZ, "spacing"
        rate = 1.0 / med
    return float(max(1, round(rate))), "spacing"


def _first_times(path: Path) -> np.ndarray:
    """t_s of the log's first rows (up to :data:`SPACING_ROWS`), up to the first value that is
    not a finite number (the reader reports it, as it reports a file it cannot read)."""
    values: list[float] = []
    if _format_of(path) == "parquet":
        pf = _parquet_file(path)
        try:
            batch = next(pf.iter_batches(batch_size=SPACING_ROWS, columns=["t_s"]), None)
        except (OSError, pa.ArrowException):
            batch = None
        if batch is not None:
            col = batch.column(0)
            values = [float(x) if x is not None else math.nan for x in col.to_pylist()]
    else:
        try:
            with open(path, encoding="utf-8-sig", errors="replace", newline="") as f:
                reader = csv.reader(f)
                names = [n.strip() for n in next(reader, [])]
                if "t_s" in names:
                    column = names.index("t_s")
                    for fields in reader:
                        if not fields:
                            continue
                        if len(values) >= SPACING_ROWS or len(fields) <= column:
                            break
                        values.append(float(fields[column]))
        except (OSError, ValueError, csv.Error):
            pass
    out = np.asarray(values, dtype=np.float64)
    finite = np.isfinite(out)
    return out if finite.all() else out[: int(np.argmin(finite))]


def spacing_note(
    path: Path, before: str, row: str, apart_s: float, rate_hz: float, tolerance_s: float
) -> str:
    """What the reader adds to a row off the clock of a log whose rate its spacing gave: the
    two rows and their spacing against the first rows' (issue 30: a log whose spacing is not
    one rate is one line naming the file and the rows). First rows evenly spaced (within
    ``tolerance_s``, the reader's) at a rate that is not a whole number of Hz are a log at a fractional rate
    (133.33 Hz), which the spacing cannot give: the note says so, and how a log states it."""
    d = np.diff(_first_times(path))
    if d.size >= 1 and np.all(d > 0):
        mean = float(d.mean())
        own = 1.0 / mean
        if np.all(np.abs(d - mean) <= tolerance_s) and abs(own - round(own)) > 1e-6:
            return (
                f"; its first rows are {mean:.9g} s apart ({own:.9g} Hz): a rate read from the "
                f"rows' spacing is a whole number of Hz ({rate_hz:g}); a log at another rate "
                f"states it ({RATE_KEY} in its Parquet metadata, rate_hz in a CSV log's "
                "sidecar, as navsense truth --rate-hz writes them)"
            )
    return (
        f"; {before} and {row} are {apart_s:.6g} s apart, its first rows {1.0 / rate_hz:.6g} s "
        f"({rate_hz:g} Hz): a log's rows are one physics rate apart (the log states no rate: "
        f"{RATE_KEY} in its Parquet metadata, rate_hz in a CSV log's sidecar)"
    )
