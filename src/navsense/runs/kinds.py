"""The columns of a run's rows as numpy arrays: the kinds a reader asks for, the checks of what
it got, and Arrow arrays as those columns (one definition for the JSON Lines and Parquet
readers, :mod:`navsense.runs.jsonl` and :mod:`navsense.runs.parquet`, and for rows as
SensorStream delivers them, :func:`columns_of_rows`).

A column is named by its dotted key (``fix.latitude``, ``position_enu_m``) and read as one of:

- :data:`FLOAT`: (m,) float64, NaN where the row has null;
- :data:`INT`: (m,) int64 (float64 with NaN if a row has null);
- :data:`TEXT`: (m,) object array of str (None where null);
- ``vector(k)``: (m, k) float64, a row of NaN where the row has null; ``vector(k,
  nullable=False)``: a value every row holds (a null one: a damaged file).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from navsense.errors import FormatError

__all__ = [
    "FLOAT",
    "INT",
    "MAX_TIME_S",
    "TEXT",
    "TIME_KEYS",
    "checked",
    "columns_of_rows",
    "vector",
]

FLOAT = "float"
INT = "int"
TEXT = "text"
TIME_KEYS = ("sample_time_s", "available_time_s", "delivery_time_s")  # every row's times
MAX_TIME_S = 1e9  # a row's times: navsense's limit of episode times


def first_line(exc: BaseException) -> str:
    """The first line of an exception's message (Arrow's messages add detail lines)."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def vector(k: int, *, nullable: bool = True) -> tuple:
    """The column kind of a k-vector key (``position_enu_m``: ``vector(3)``). ``nullable``
    False: a value the rows always hold (an IMU's specific force): a row where it is null or
    not finite is a damaged file (FormatError naming the file, the row and the key)."""
    return ("vector", int(k)) if nullable else ("vector", int(k), False)


def columns_of_rows(rows: list[dict], spec: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """The columns ``spec`` of row dicts (a run's rows as SensorStream delivers them), the same
    arrays :meth:`RunReader.columns` reads from the run's files."""
    out: dict[str, np.ndarray] = {}
    for name, kind in spec.items():
        path = name.split(".")
        values = []
        for row in rows:
            v: Any = row
            for part in path:
                v = None if v is None else v.get(part)
            values.append(v)
        if kind == TEXT:
            out[name] = np.asarray(values, dtype=object).reshape(len(values))
        elif isinstance(kind, tuple):
            k = kind[1]
            nan = [np.nan] * k
            out[name] = np.array(
                [nan if v is None else v for v in values], dtype=np.float64
            ).reshape(-1, k)
        elif kind == INT and None not in values:
            out[name] = np.array(values, dtype=np.int64)
        else:
            out[name] = np.array(
                [np.nan if v is None else v for v in values], dtype=np.float64
            ).reshape(len(values))
    return out


MAX_TIME_S = 1e9  # a row's times: navsense's limit of episode times


def checked(
    path: Path, spec: Mapping[str, Any], columns: dict[str, np.ndarray]
) -> dict[str, np.ndarray]:
    """``columns``, after a FormatError naming the first row of a damaged rows file:

    - a time (:data:`TIME_KEYS`) null, not finite or beyond +-MAX_TIME_S (a null delivery time
      was an internal error in the ROS 2 bag's log times);
    - a time before the row before's: a sensor's rows are written in the order of their
      samples, and each of their times is nondecreasing (rows in reverse order were a report
      drawn backwards; found by the fuzz suite);
    - a value of a ``vector(k, nullable=False)`` column null or not finite (an IMU message of
      NaN in the ROS 2 bag)."""
    for key in TIME_KEYS:
        t = columns.get(key)
        if t is None or t.dtype.kind != "f":
            continue
        bad = ~(np.abs(t) <= MAX_TIME_S)
        if bad.any():
            row = int(np.argmax(bad))
            value = "null" if np.isnan(t[row]) else repr(float(t[row]))
            raise FormatError(
                f"{path}: row {row + 1}: {key} = {value} is not a time of a run "
                f"(a finite number of seconds within +-{MAX_TIME_S:g})"
            )
        back = t[1:] < t[:-1]
        if back.any():
            row = int(np.argmax(back)) + 1
            raise FormatError(
                f"{path}: row {row + 1}: {key} = {float(t[row])!r} is before row {row}'s "
                f"{float(t[row - 1])!r}: the rows are not in the order of their times"
            )
    for name, kind in spec.items():
        if isinstance(kind, tuple) and len(kind) > 2 and kind[2] is False:
            bad = ~np.isfinite(columns[name]).all(axis=-1)
            if bad.any():
                row = int(np.argmax(bad))
                raise FormatError(
                    f"{path}: row {row + 1}: {name} is null or not finite (its rows always "
                    f"hold {kind[1]} numbers)"
                )
    return columns


def arrow_type(kind):
    import pyarrow as pa

    if kind == FLOAT:
        return pa.float64()
    if kind == INT:
        return pa.int64()
    if kind == TEXT:
        return pa.string()
    if isinstance(kind, tuple) and kind[0] == "vector":
        return pa.list_(pa.float64())
    raise ValueError(f"column kind {kind!r} is not FLOAT, INT, TEXT or vector(k)")


def validity(arr) -> np.ndarray:
    """An Arrow array's validity as numpy bool (its bitmap: least significant bit first)."""
    n = len(arr)
    bitmap = arr.buffers()[0]
    if bitmap is None or arr.null_count == 0:
        return np.ones(n, dtype=bool)
    bits = np.frombuffer(bitmap, dtype=np.uint8)
    return np.unpackbits(bits, count=arr.offset + n, bitorder="little")[arr.offset :].astype(bool)


def plain_numpy(arr) -> np.ndarray:
    """A fixed-width numeric Arrow array (float64, int64, int32, ...) as numpy, a null as NaN in
    float64: the values of ``arr.to_numpy(zero_copy_only=False)``, read from the array's
    buffers, because ``to_numpy`` loads pyarrow's pandas layer (pandas: 0.4-0.8 s) at its first
    call. Without nulls a read-only view of the buffer (which it keeps alive), as ``to_numpy``'s."""
    import pyarrow as pa

    if arr.type == pa.bool_() or not (
        pa.types.is_integer(arr.type) or pa.types.is_floating(arr.type)
    ):
        return arr.to_numpy(zero_copy_only=False)
    dtype = np.dtype(arr.type.to_pandas_dtype())
    values = np.frombuffer(
        arr.buffers()[1], dtype=dtype, count=len(arr), offset=dtype.itemsize * arr.offset
    )
    if arr.null_count == 0:
        return values
    out = values.astype(np.float64)
    out[~validity(arr)] = np.nan
    return out


def _first_not_utf8(arr) -> int:
    """The index of the first value of a string array that is not UTF-8 (error path only)."""
    for k in range(len(arr)):
        try:
            arr[k].as_py()
        except UnicodeDecodeError:
            return k
    return 0


def to_numpy(arr, kind, path: Path, name: str) -> np.ndarray:
    """An Arrow array as the numpy column of ``kind`` (module docstring)."""
    n = len(arr)
    if kind == TEXT:
        try:
            return np.asarray(arr.to_pylist(), dtype=object).reshape(n)
        except UnicodeDecodeError:  # Arrow's JSON reader keeps a string's bytes unchecked
            raise FormatError(
                f"{path}: row {_first_not_utf8(arr) + 1}: {name} is not UTF-8 text"
            ) from None
    if kind in (FLOAT, INT):
        values = plain_numpy(arr)
        return np.asarray(values, dtype=np.float64 if kind == FLOAT else values.dtype)
    # a list array's rows from its offsets and values (buffers, no copy): value_lengths,
    # drop_null and flatten would load pyarrow.compute (0.05-0.2 s), in the report's two
    # processes each
    k = kind[1]
    out = np.full((n, k), np.nan)
    valid = validity(arr)
    if valid.any():
        offsets = np.asarray(plain_numpy(arr.offsets), dtype=np.int64)  # n + 1, into values
        starts = offsets[:-1][valid]
        lengths = offsets[1:][valid] - starts
        if np.any(lengths != k):
            row = int(np.flatnonzero(valid)[np.argmax(lengths != k)]) + 1
            raise FormatError(f"{path}: row {row}: {name} has not {k} values")
        values = np.asarray(plain_numpy(arr.values), dtype=np.float64)
        if starts.size == n and offsets[-1] - offsets[0] == n * k:  # every row, back to back
            out[:] = values[offsets[0] : offsets[-1]].reshape(n, k)
        else:
            out[valid] = values[starts[:, None] + np.arange(k)]
    return out
