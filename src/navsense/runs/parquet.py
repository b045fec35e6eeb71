"""The Parquet reader of a run's rows: the columns asked for, as :mod:`navsense.runs.kinds`
defines them, from ``<sensor>.parquet`` (a vector key's elements are the columns ``key.0``,
``key.1``, ...); only those columns are read."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from navsense.errors import FormatError
from navsense.runs.kinds import TEXT, arrow_type, first_line, plain_numpy, to_numpy

__all__ = ["parquet_columns"]


def parquet_columns(path: Path, spec: Mapping[str, Any]) -> dict[str, np.ndarray]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    wanted: list[str] = []
    for name, kind in spec.items():
        if isinstance(kind, tuple):
            wanted += [f"{name}.{j}" for j in range(kind[1])]
        else:
            arrow_type(kind)  # a known kind
            wanted.append(name)
    try:  # ParquetFile, not read_table: that loads pyarrow.dataset, which loads pandas (0.4 s)
        with pq.ParquetFile(path) as pf:
            missing = [c for c in wanted if c not in pf.schema_arrow.names]
            if missing and pf.metadata.num_rows == 0:  # no rows, and written with no columns
                return _no_rows(spec, path)
            # ParquetFile.read leaves out a column it does not have
            table = None if missing else pf.read(columns=wanted, use_threads=False)
    except (pa.ArrowInvalid, OSError, KeyError) as exc:
        raise FormatError(
            f"{path}: cannot read the columns {', '.join(wanted)} ({first_line(exc)})"
        ) from None
    if table is None:
        raise FormatError(
            f"{path}: cannot read the columns {', '.join(wanted)} "
            f"(the file has no column {', '.join(missing)})"
        )
    out = {}
    for name, kind in spec.items():
        if isinstance(kind, tuple):
            parts = [
                np.asarray(
                    plain_numpy(_parquet_array(table, f"{name}.{j}", True, path)),
                    dtype=np.float64,
                )
                for j in range(kind[1])
            ]
            out[name] = np.stack(parts, axis=-1).reshape(-1, kind[1])
        else:
            arr = _parquet_array(table, name, kind != TEXT, path)
            out[name] = to_numpy(arr, kind, path, name)
    return out


def _no_rows(spec: Mapping[str, Any], path: Path) -> dict[str, np.ndarray]:
    """Zero-length columns of ``spec`` (the file of a sensor that wrote no rows: an IMU over a
    truth log of resets)."""
    import pyarrow as pa

    out = {}
    for name, kind in spec.items():
        if isinstance(kind, tuple):
            out[name] = np.empty((0, kind[1]), dtype=np.float64)
        else:
            out[name] = to_numpy(pa.array([], type=arrow_type(kind)), kind, path, name)
    return out


def _parquet_array(table, name: str, numeric: bool, path: Path):
    """The column ``name`` of a run's Parquet rows as one array; FormatError if the file holds
    it twice or (``numeric``) holds no numbers in it: a file another tool wrote or changed (a
    string or list column was a ValueError inside numpy, a repeated one Arrow's KeyError)."""
    import pyarrow as pa

    found = table.schema.get_all_field_indices(name)
    if len(found) != 1:
        raise FormatError(f"{path}: the column {name} appears {len(found)} times")
    arr = table.column(found[0]).combine_chunks()
    t = arr.type
    if numeric and not (
        pa.types.is_integer(t)
        or pa.types.is_floating(t)
        or pa.types.is_boolean(t)
        or pa.types.is_null(t)
    ):
        raise FormatError(f"{path}: the column {name} holds {t} values, not numbers")
    return arr
