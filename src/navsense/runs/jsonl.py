"""The JSON Lines reader of a run's rows: the columns asked for, as :mod:`navsense.runs.kinds`
defines them, from ``<sensor>.jsonl``.

One reader with a fast path: a few top-level scalar keys (the times) are found in the raw bytes
(:func:`_jsonl_top_level_columns`, several times faster on long rows), everything else (and
whatever that scan cannot take) by Arrow's JSON reader with an explicit schema of the columns
asked for (the other keys skipped). Both give the same float64 bits. A file whose last line is
no whole JSON row, a row that is not JSON, a value of another kind: FormatError naming the file.
"""

from __future__ import annotations

import math
import mmap
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from navsense.errors import FormatError
from navsense.runs.kinds import FLOAT, INT, TEXT, arrow_type, first_line, to_numpy

__all__ = ["jsonl_columns"]

_JSON_BLOCK_BYTES = 1 << 22  # Arrow's JSON reader: bytes parsed at a time


def _jsonl_schema(spec: Mapping[str, Any]):
    """The Arrow schema of the keys asked for: a struct for each dotted key's parents."""
    import pyarrow as pa

    tree: dict = {}
    for name, kind in spec.items():
        node = tree
        *parents, leaf = name.split(".")
        for p in parents:
            node = node.setdefault(p, {})
        node[leaf] = arrow_type(kind)

    def fields(node: dict) -> list:
        return [
            pa.field(k, pa.struct(fields(v)) if isinstance(v, dict) else v) for k, v in node.items()
        ]

    return pa.schema(fields(tree))


def jsonl_columns(path: Path, spec: Mapping[str, Any]) -> dict[str, np.ndarray]:
    fast = _jsonl_top_level_columns(path, spec)
    if fast is not None:
        return fast
    return _jsonl_arrow_columns(path, spec)


_SCALAR = rb'("(?:[^"\\]|\\.)*"|[^,}\]]*)'  # a string or a number, true, false, null
_FAST_BLOCK_BYTES = 1 << 26  # bytes scanned at a time by the top-level reader
_FAST_MAX_KEYS = 2  # a scan of the bytes per key: beyond this, Arrow's one pass is faster


def _jsonl_top_level_columns(path: Path, spec: Mapping[str, Any]) -> dict[str, np.ndarray] | None:
    """A few scalar columns (FLOAT, INT, TEXT; at most ``_FAST_MAX_KEYS``) read by scanning the
    raw bytes for their keys; None when the request or the file is not of that shape (then
    Arrow's JSON reader reads it). Arrow parses every value of every row; this reads only the
    keys asked for, several times faster on long rows (the INS rows' times: 1 KB a row).

    Covered: every key asked for is a top-level key of the first row that occurs nowhere deeper
    in it, and occurs as often as the file has rows (the rows of one layout share their
    structure: a null may replace a value, never add a key). A regular expression per key
    (a literal prefix, which the engine searches fast) finds ``"key":value``; a key cannot
    match inside a string, where its quotes are escaped. Numbers are converted by Python's
    correctly rounded ``float``, the same float64 as Arrow's. The file is mapped and scanned in
    blocks of 64 MiB of whole rows, so memory stays bounded."""
    import re

    names = list(spec)
    if (
        not names
        or len(names) > _FAST_MAX_KEYS
        or any("." in n or spec[n] not in (FLOAT, INT, TEXT) for n in names)
    ):
        return None
    with open(path, "rb") as f:
        first = f.readline()
    try:
        row = orjson.loads(first)
    except orjson.JSONDecodeError:  # also an empty file (Arrow's reader: no rows)
        return None
    if not isinstance(row, dict):
        return None
    if any(n not in row for n in names) or _nested_key_count(row, set(names)) != 0:
        return None
    patterns = {n: re.compile(b'"' + re.escape(n.encode()) + b'":' + _SCALAR) for n in names}
    values: dict[str, list[bytes]] = {n: [] for n in names}
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mm:
        size, start = len(mm), 0
        _check_last_line(path, mm)
        while start < size:  # blocks of whole rows, scanned in place (no copy)
            end = mm.find(b"\n", min(start + _FAST_BLOCK_BYTES, size) - 1)
            end = size if end < 0 else end + 1
            block = memoryview(mm)[start:end]
            lines = _newlines(block) + (0 if block[-1] == 10 else 1)
            try:
                for name, pattern in patterns.items():
                    found = pattern.findall(block)
                    if len(found) != lines:
                        return None
                    values[name] += found
            finally:
                block.release()
            _drop_pages(mm, start, end)
            start = end
    out = {}
    for name, kind in spec.items():
        column = _parse_scalars(values[name], kind)
        if column is None:
            return None
        out[name] = column
    return out


def _check_last_line(path: Path, mm) -> None:
    """FormatError naming the file and the line when the last line of the rows (mapped in
    ``mm``) is no whole JSON object: a file cut inside its last row, whose keys the scan of
    :func:`_jsonl_top_level_columns` may still find (the report read such a file; found by the
    fuzz suite). Arrow's reader refuses it whole, in its own words."""
    end = len(mm)
    while end and mm[end - 1] in (10, 13):
        end -= 1
    start = mm.rfind(b"\n", 0, end) + 1
    try:
        row = orjson.loads(mm[start:end])
    except orjson.JSONDecodeError:
        row = None
    if not isinstance(row, dict):
        line = mm[:start].count(b"\n") + 1
        raise FormatError(
            f"{path}: line {line} is not a whole JSON row (the file is cut or damaged)"
        )


def _drop_pages(mm, start: int, end: int) -> None:
    """Unmap the pages of ``mm`` (a read-only map of a file) from ``start`` (rounded down to
    a page) to ``end``, once scanned: they stay in the page cache, but no longer count in this
    process's resident memory, which otherwise grows by the whole file (an hour's INS rows:
    355 MB, the JSON Lines report's peak). A page touched again is mapped again."""
    advice = getattr(mmap, "MADV_DONTNEED", None)
    first = start - start % mmap.PAGESIZE
    if advice is not None and end > first:
        mm.madvise(advice, first, end - first)


_COUNT_BYTES = 1 << 20  # newlines counted a MiB at a time: its comparison stays in the cache


def _newlines(block: memoryview) -> int:
    """The newline bytes of ``block``, counted a MiB at a time (over 64 MiB at once, the
    comparison's bool array leaves the cache: twice the time, 0.15 s for an hour's INS rows)."""
    data = np.frombuffer(block, dtype=np.uint8)
    out = np.empty(min(data.size, _COUNT_BYTES), dtype=bool)
    count = 0
    for s in range(0, data.size, _COUNT_BYTES):
        part = data[s : s + _COUNT_BYTES]
        np.equal(part, 10, out=out[: part.size])
        count += int(np.count_nonzero(out[: part.size]))
    return count


def _nested_key_count(node: Any, names: set, depth: int = 0) -> int:
    """How often a key of ``names`` occurs below the top level of a parsed row."""
    count = 0
    if isinstance(node, Mapping):
        for k, v in node.items():
            count += (depth > 0 and k in names) + _nested_key_count(v, names, depth + 1)
    elif isinstance(node, list):
        for v in node:
            count += _nested_key_count(v, names, depth + 1)
    return count


def _number(v: bytes) -> float:
    return math.nan if v == b"null" else float(v)


def _parse_scalars(raw: list[bytes], kind) -> np.ndarray | None:
    """The raw JSON values of one key as the numpy column of ``kind`` (module docstring), None
    when a value is not of that kind."""
    n = len(raw)
    if kind == TEXT:
        out = np.empty(n, dtype=object)
        for i, v in enumerate(raw):
            if v == b"null":
                out[i] = None
            elif v[:1] == b'"' and b"\\" not in v:
                out[i] = v[1:-1].decode()
            else:
                try:
                    out[i] = orjson.loads(v)
                except orjson.JSONDecodeError:
                    return None
                if not isinstance(out[i], str):
                    return None
        return out
    nulls = b"null" in raw
    try:  # float() also takes what JSON does not write (inf, nan, 1_0, " 1"): not in our rows
        if kind == INT and not nulls:
            return np.array(list(map(int, raw)), dtype=np.int64)
        values = np.array(list(map(_number if nulls else float, raw)), dtype=np.float64)
    except (ValueError, OverflowError):  # a string, true, false: Arrow's reader says what is wrong
        return None
    if kind == INT and not np.all(np.isnan(values) | (values == np.round(values))):
        return None  # a fraction in an INT column: Arrow's reader says what is wrong
    return values


def _jsonl_arrow_columns(path: Path, spec: Mapping[str, Any]) -> dict[str, np.ndarray]:
    import pyarrow as pa
    import pyarrow.json as pajson

    try:
        if path.stat().st_size == 0:  # no rows (an IMU over a truth log of resets): Arrow refuses
            return _table_columns(path, spec, _jsonl_schema(spec).empty_table())
        table = pajson.read_json(
            path,
            read_options=pajson.ReadOptions(use_threads=False, block_size=_JSON_BLOCK_BYTES),
            parse_options=pajson.ParseOptions(
                explicit_schema=_jsonl_schema(spec), unexpected_field_behavior="ignore"
            ),
        )
    except OSError as exc:
        raise FormatError(f"{path}: cannot read the rows ({first_line(exc)})") from None
    except pa.ArrowInvalid as exc:  # Arrow's row is counted from its block's start, from 0
        found = _first_bad_row(path, spec)
        raise FormatError(found or f"{path}: cannot read the rows ({first_line(exc)})") from None
    return _table_columns(path, spec, table)


_KIND_NAMES = {FLOAT: "a number", INT: "an integer", TEXT: "a string"}


def _fits(value: Any, kind: Any) -> bool:
    """Whether a row's value (JSON, parsed) is null or of the column kind ``kind``."""
    if value is None:
        return True
    if kind == TEXT:
        return isinstance(value, str)
    if isinstance(kind, tuple):
        return isinstance(value, list) and all(_fits(v, FLOAT) for v in value)
    number = (int,) if kind == INT else (int, float)
    return isinstance(value, number) and not isinstance(value, bool)


def _first_bad_row(path: Path, spec: Mapping[str, Any]) -> str | None:
    """The message of the first line that is no JSON object or holds a key of ``spec`` of
    another kind, named by its line in the file (1-based, as an editor shows it); None when
    every line fits (Arrow's own message is then given). The error path only: reads the file
    line by line."""
    with open(path, "rb") as f:
        for line, text in enumerate(f, start=1):
            if not text.strip():
                continue
            try:
                row = orjson.loads(text)
            except orjson.JSONDecodeError as exc:
                return f"{path}: line {line}: not a JSON row ({first_line(exc)})"
            if not isinstance(row, dict):
                return f"{path}: line {line}: not a JSON object (a row of keys and values)"
            for name, kind in spec.items():
                value: Any = row
                parts = name.split(".")
                for i, part in enumerate(parts):
                    if value is not None and not isinstance(value, dict):
                        key = ".".join(parts[:i])
                        return f"{path}: line {line}: {key} = {_shown(value)} is not an object"
                    value = None if value is None else value.get(part)
                if not _fits(value, kind):
                    what = _KIND_NAMES.get(kind, "a list of numbers")
                    return f"{path}: line {line}: {name} = {_shown(value)} is not {what} (or null)"
    return None


def _shown(value: Any) -> str:
    """A row's value as JSON, cut to 40 characters."""
    text = orjson.dumps(value).decode(errors="replace")
    return text if len(text) <= 40 else text[:40] + "..."


def _table_columns(path: Path, spec: Mapping[str, Any], table) -> dict[str, np.ndarray]:
    """The numpy columns of ``spec`` of an Arrow table of the rows."""
    out = {}
    for name, kind in spec.items():
        top, *rest = name.split(".")
        arr = table.column(top).combine_chunks()
        for part in rest:  # a null parent makes its fields null
            arr = arr.field(part) if arr.null_count == 0 else _null_parent(arr, part)
        out[name] = to_numpy(arr, kind, path, name)
    return out


def _null_parent(struct_array, part: str):
    import pyarrow.compute as pc

    return pc.if_else(struct_array.is_valid(), struct_array.field(part), None)
