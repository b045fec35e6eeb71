"""Reading a run directory: episode.json and each sensor's rows, whichever format wrote them.

The one reader of what ``navsense simulate`` wrote, for every reader of a run (``navsense
report``, ``navsense export mcap``, :func:`navsense.stats.run_statistics`, the campaigns,
``navsense score``)::

    run = RunReader("runs/acre-loop-20260923-150000")
    run.episode                                   # episode.json
    gnss = run.columns("gnss", {"sample_time_s": FLOAT, "fix_type": TEXT,
                                "position_enu_m": vector(3), "satellites_used": INT})
    frames, times = run.ins_epochs()              # ins.frames (m, 40) and the rows' times (m, 3)
    got, t = run.ins_fields(["InsUtmE", "InsUtmN"])   # only those fields, each (m,); times (m, 1)

A sensor's rows are ``<sensor>.jsonl`` or ``<sensor>.parquet``: episode.json's
``output_format`` says which, and a sensor whose file of that format is missing is read from the
other one if that is there (a run converted by hand, or written before the key existed). Both hold the same values
(:mod:`navsense.output.columns`), so a column reads back as the same float64 bits from either:
JSON Lines through Arrow's JSON reader with an explicit schema of the columns asked for (the
other keys are skipped; one or two scalar keys are found in the raw bytes instead, faster on
long rows), Parquet reading only those columns. A column is named by its dotted
key (``fix.latitude``, ``position_enu_m``), whatever the file's flattening (``position_enu_m.0``,
``.1``, ``.2`` in Parquet), and read as one of:

- :data:`FLOAT`: (m,) float64, NaN where the row has null;
- :data:`INT`: (m,) int64 (float64 with NaN if a row has null);
- :data:`TEXT`: (m,) object array of str (None where null);
- ``vector(k)``: (m, k) float64, a row of NaN where the row has null.

Errors are :class:`~navsense.errors.FormatError` naming the run directory or the file: not a run
directory, no episode.json, a sensor's rows missing, a column missing or of another shape.
"""

from __future__ import annotations

import math
import mmap
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from navsense.errors import FormatError
from navsense.runs.episode import EPISODE_FILE, Episode

__all__ = [
    "FLOAT",
    "INT",
    "TEXT",
    "RunReader",
    "TIME_KEYS",
    "columns_of_rows",
    "vector",
    "EPISODE_FILE",
    "ROW_FORMATS",
]

ROW_FORMATS = ("jsonl", "parquet")  # episode.json's output_format = the rows' file suffix
FLOAT = "float"
INT = "int"
TEXT = "text"
TIME_KEYS = ("sample_time_s", "available_time_s", "delivery_time_s")  # every row's times
_JSON_BLOCK_BYTES = 1 << 22  # Arrow's JSON reader: bytes parsed at a time


def _first_line(exc: BaseException) -> str:
    """The first line of an exception's message (Arrow's messages add detail lines)."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def vector(k: int, *, nullable: bool = True) -> tuple:
    """The column kind of a k-vector key (``position_enu_m``: ``vector(3)``). ``nullable``
    False: a value the rows always hold (an IMU's specific force): a row where it is null or
    not finite is a damaged file (FormatError naming the file, the row and the key)."""
    return ("vector", int(k)) if nullable else ("vector", int(k), False)


class RunReader:
    """A run directory written by :func:`navsense.simulate.simulate` (module docstring)."""

    def __init__(self, run_dir: str | os.PathLike, *, cache: bool = False) -> None:
        """``cache``: keep every column and the INS frames read, so that a second request
        (another reader of the same run in the same process: the report's plots, then its
        statistics) costs nothing; the arrays returned are then shared, not copies."""
        self._cache: dict | None = {} if cache else None
        self.path = Path(run_dir)
        if not self.path.is_dir():
            raise FormatError(f"{self.path}: not a run directory")
        self.episode: Episode = Episode.read(self.path)
        fmt = self.episode.output_format
        if fmt not in ROW_FORMATS:
            raise FormatError(
                f"{self.path / EPISODE_FILE}: output_format = {fmt!r} is not one of "
                f"{', '.join(ROW_FORMATS)}"
            )
        self.format: str = fmt

    def file(self, sensor: str) -> Path:
        """The file of ``sensor``'s rows: ``<sensor>.<output_format>``, else the other format's
        file if only that one is there (the first path when neither is)."""
        path = self.path / f"{sensor}.{self.format}"
        if path.is_file():
            return path
        for fmt in ROW_FORMATS:
            other = self.path / f"{sensor}.{fmt}"
            if other.is_file():
                return other
        return path

    def enabled(self, sensor: str) -> bool | None:
        """episode.json's ``config.<sensor>.enabled`` (None when it does not say)."""
        return self.episode.enabled(sensor)

    def has(self, sensor: str) -> bool:
        """True when the run has rows of ``sensor`` (the sensor was on). A sensor that
        episode.json says was on but whose rows are missing is a damaged run (FormatError)."""
        path = self.file(sensor)
        if path.is_file():
            return True
        if os.path.lexists(path) or self.enabled(sensor):
            raise FormatError(
                f"{self.path}: {path.name} is missing or not a file, but episode.json has "
                f"{sensor}.enabled true: a damaged run directory"
            )
        return False

    def require(self, sensor: str, why: str = "") -> Path:
        """The file of ``sensor``'s rows; FormatError naming it (and ``why``) when it is missing."""
        path = self.file(sensor)
        if not path.is_file():
            raise FormatError(f"{self.path}: no {path.name} ({sensor} off){why}")
        return path

    def keys(self, sensor: str) -> list[str]:
        """The rows' keys in file order, dotted as the layout names them (``fix.latitude``), one
        per vector (``position_enu_m``, not its elements); [] for a file without rows."""
        path = self.require(sensor)
        if path.suffix == ".parquet":
            import pyarrow as pa
            import pyarrow.parquet as pq

            try:
                names = pq.read_schema(path).names
            except (pa.ArrowException, OSError) as exc:
                raise FormatError(f"{path}: not a Parquet file ({_first_line(exc)})") from None
            out: list[str] = []
            for name in names:
                head, _, tail = name.rpartition(".")
                key = head if tail.isdigit() and head else name
                if key not in out:
                    out.append(key)
            return out
        with open(path, "rb") as f:
            first = f.readline()
        if not first.strip():
            return []
        try:
            row = orjson.loads(first)
        except orjson.JSONDecodeError as exc:
            raise FormatError(f"{path}: line 1 is not JSON ({exc})") from None
        out = []

        def walk(node: Mapping, prefix: str) -> None:
            for k, v in node.items():
                if isinstance(v, Mapping):
                    walk(v, f"{prefix}{k}.")
                else:
                    out.append(f"{prefix}{k}")

        walk(row, "")
        return out

    def columns(self, sensor: str, spec: Mapping[str, Any]) -> dict[str, np.ndarray]:
        """The columns ``spec`` (dotted key -> FLOAT, INT, TEXT or vector(k)) of ``sensor``'s
        rows, as numpy arrays (module docstring)."""
        path = self.require(sensor)
        cache = self._cache
        if cache is None:
            return _checked(path, spec, _read_columns(path, spec))
        missing = {k: v for k, v in spec.items() if (sensor, k, v) not in cache}
        if missing:
            for k, column in _checked(path, missing, _read_columns(path, missing)).items():
                cache[(sensor, k, missing[k])] = column
        return {k: cache[(sensor, k, v)] for k, v in spec.items()}

    def times(self, sensor: str, keys: tuple[str, ...] = TIME_KEYS) -> np.ndarray:
        """(m, len(keys)) float64: by default ``sample_time_s``, ``available_time_s``,
        ``delivery_time_s`` (:data:`TIME_KEYS`)."""
        got = self.columns(sensor, dict.fromkeys(keys, FLOAT))
        return np.stack([got[k] for k in keys], axis=-1).reshape(-1, len(keys))

    def has_ins_frames(self) -> bool:
        """True when the run has ``ins.frames`` (the INS was on); FormatError when episode.json
        says the INS was on and the file is missing."""
        path = self.path / "ins.frames"
        if path.is_file():
            return True
        if os.path.lexists(path) or self.enabled("ins"):
            raise FormatError(
                f"{self.path}: ins.frames is missing or not a file, but episode.json has "
                "ins.enabled true: a damaged run directory"
            )
        return False

    def ins_epochs(self, times: tuple[str, ...] = TIME_KEYS) -> tuple[np.ndarray, np.ndarray]:
        """The INS epochs: ``ins.frames`` as (m, 40) float64 and their rows' times (m, 3; or
        the ``times`` keys asked for: ``("sample_time_s",)`` reads the rows' one key), the same
        m (FormatError when they differ)."""
        from navsense.output.frames import read_ins_frames

        frames_path = self.path / "ins.frames"
        if not frames_path.is_file():
            raise FormatError(f"{self.path}: no ins.frames (ins off)")
        if self._cache is None:
            frames = read_ins_frames(frames_path)
        else:
            if "ins.frames" not in self._cache:
                self._cache["ins.frames"] = read_ins_frames(frames_path)
            frames = self._cache["ins.frames"]
        return frames, self._ins_times(len(frames), times)

    def ins_fields(
        self, names, times: tuple[str, ...] = ("sample_time_s",)
    ) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """The INS epochs' fields ``names`` (of ``ins.frames``, navsense.output.frames
        ``INS_FIELDS``), each a contiguous (m,) float64 array, and their rows' times (m,
        len(times)): :meth:`ins_epochs` for a reader that uses some fields only
        (:func:`navsense.output.frames.read_ins_fields`: memory for those alone, one pass over
        the file, every field checked). With the cache, a field read once is not read again,
        and a request for fields not yet read reads only those."""
        from navsense.output.frames import read_ins_fields

        names = list(dict.fromkeys(names))  # each once
        if not names:
            raise ValueError("ins_fields: no field asked for")
        frames_path = self.path / "ins.frames"
        if not frames_path.is_file():
            raise FormatError(f"{self.path}: no ins.frames (ins off)")
        cache = self._cache
        if cache is None:
            got = read_ins_fields(frames_path, names)
        else:
            missing = [n for n in names if ("ins.frames", n) not in cache]
            if missing:
                for n, column in read_ins_fields(frames_path, missing).items():
                    cache[("ins.frames", n)] = column
            got = {n: cache[("ins.frames", n)] for n in names}
        return got, self._ins_times(len(got[names[0]]), times)

    def _ins_times(self, m: int, times: tuple[str, ...]) -> np.ndarray:
        """The INS rows' ``times``, FormatError unless there are ``m`` (the frames' epochs)."""
        rows = self.times("ins", times)
        if m != len(rows):
            raise FormatError(
                f"{self.path}: ins.frames has {m} epochs but {self.file('ins').name} "
                f"{len(rows)} rows"
            )
        return rows


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


def _read_columns(path: Path, spec: Mapping[str, Any]) -> dict[str, np.ndarray]:
    if path.suffix == ".parquet":
        return _parquet_columns(path, spec)
    return _jsonl_columns(path, spec)


# ------------------------------------------------------------------------------------ JSON Lines
MAX_TIME_S = 1e9  # a row's times: navsense's limit of episode times


def _checked(
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


def _arrow_type(kind):
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


def _jsonl_schema(spec: Mapping[str, Any]):
    """The Arrow schema of the keys asked for: a struct for each dotted key's parents."""
    import pyarrow as pa

    tree: dict = {}
    for name, kind in spec.items():
        node = tree
        *parents, leaf = name.split(".")
        for p in parents:
            node = node.setdefault(p, {})
        node[leaf] = _arrow_type(kind)

    def fields(node: dict) -> list:
        return [
            pa.field(k, pa.struct(fields(v)) if isinstance(v, dict) else v) for k, v in node.items()
        ]

    return pa.schema(fields(tree))


def _jsonl_columns(path: Path, spec: Mapping[str, Any]) -> dict[str, np.ndarray]:
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
        table = pajson.read_json(
            path,
            read_options=pajson.ReadOptions(use_threads=False, block_size=_JSON_BLOCK_BYTES),
            parse_options=pajson.ParseOptions(
                explicit_schema=_jsonl_schema(spec), unexpected_field_behavior="ignore"
            ),
        )
    except (pa.ArrowInvalid, OSError) as exc:
        raise FormatError(f"{path}: cannot read the rows ({_first_line(exc)})") from None
    out = {}
    for name, kind in spec.items():
        top, *rest = name.split(".")
        arr = table.column(top).combine_chunks()
        for part in rest:  # a null parent makes its fields null
            arr = arr.field(part) if arr.null_count == 0 else _null_parent(arr, part)
        out[name] = _numpy(arr, kind, path, name)
    return out


def _null_parent(struct_array, part: str):
    import pyarrow.compute as pc

    return pc.if_else(struct_array.is_valid(), struct_array.field(part), None)


def _valid(arr) -> np.ndarray:
    """An Arrow array's validity as numpy bool (its bitmap: least significant bit first)."""
    n = len(arr)
    bitmap = arr.buffers()[0]
    if bitmap is None or arr.null_count == 0:
        return np.ones(n, dtype=bool)
    bits = np.frombuffer(bitmap, dtype=np.uint8)
    return np.unpackbits(bits, count=arr.offset + n, bitorder="little")[arr.offset :].astype(bool)


def _plain_numpy(arr) -> np.ndarray:
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
    out[~_valid(arr)] = np.nan
    return out


def _first_not_utf8(arr) -> int:
    """The index of the first value of a string array that is not UTF-8 (error path only)."""
    for k in range(len(arr)):
        try:
            arr[k].as_py()
        except UnicodeDecodeError:
            return k
    return 0


def _numpy(arr, kind, path: Path, name: str) -> np.ndarray:
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
        values = _plain_numpy(arr)
        return np.asarray(values, dtype=np.float64 if kind == FLOAT else values.dtype)
    # a list array's rows from its offsets and values (buffers, no copy): value_lengths,
    # drop_null and flatten would load pyarrow.compute (0.05-0.2 s), in the report's two
    # processes each
    k = kind[1]
    out = np.full((n, k), np.nan)
    valid = _valid(arr)
    if valid.any():
        offsets = np.asarray(_plain_numpy(arr.offsets), dtype=np.int64)  # n + 1, into values
        starts = offsets[:-1][valid]
        lengths = offsets[1:][valid] - starts
        if np.any(lengths != k):
            row = int(np.flatnonzero(valid)[np.argmax(lengths != k)]) + 1
            raise FormatError(f"{path}: row {row}: {name} has not {k} values")
        values = np.asarray(_plain_numpy(arr.values), dtype=np.float64)
        if starts.size == n and offsets[-1] - offsets[0] == n * k:  # every row, back to back
            out[:] = values[offsets[0] : offsets[-1]].reshape(n, k)
        else:
            out[valid] = values[starts[:, None] + np.arange(k)]
    return out


# ------------------------------------------------------------------------------------ Parquet
def _parquet_columns(path: Path, spec: Mapping[str, Any]) -> dict[str, np.ndarray]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    wanted: list[str] = []
    for name, kind in spec.items():
        if isinstance(kind, tuple):
            wanted += [f"{name}.{j}" for j in range(kind[1])]
        else:
            _arrow_type(kind)  # a known kind
            wanted.append(name)
    try:  # ParquetFile, not read_table: that loads pyarrow.dataset, which loads pandas (0.4 s)
        with pq.ParquetFile(path) as pf:
            missing = [c for c in wanted if c not in pf.schema_arrow.names]
            # ParquetFile.read leaves out a column it does not have
            table = None if missing else pf.read(columns=wanted, use_threads=False)
    except (pa.ArrowInvalid, OSError, KeyError) as exc:
        raise FormatError(
            f"{path}: cannot read the columns {', '.join(wanted)} ({_first_line(exc)})"
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
                    _plain_numpy(_parquet_array(table, f"{name}.{j}", True, path)),
                    dtype=np.float64,
                )
                for j in range(kind[1])
            ]
            out[name] = np.stack(parts, axis=-1).reshape(-1, kind[1])
        else:
            arr = _parquet_array(table, name, kind != TEXT, path)
            out[name] = _numpy(arr, kind, path, name)
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
