"""Sensor rows as columns: one definition feeds the JSON Lines rows and the Parquet columns.

A model describes the epochs of a block as an ordered list of :class:`Column`: a dotted name
(``fix.latitude``, ``imu.orientation_enu_xyzw``), the values already rounded to the row's decimals
(an array of shape (m,) or (m, k), a list of m strings, or one constant for every row) and an
optional validity mask (False: the key is null in that row). From that list:

- :func:`rows_from_columns` builds the nested JSON rows with a row constructor compiled once per
  layout (a dict literal with the keys in column order), so building a row costs no more than a
  hand-written dict literal;
- :func:`jsonl_from_columns` writes the same rows straight to JSON Lines bytes: each column is
  serialised whole by orjson (numpy arrays in C) and cut into rows by numpy (an Arrow array over
  the text), and Arrow joins those values and the fixed text between them (built once per
  layout) row by row; the bytes equal orjson.dumps of each row of :func:`rows_from_columns`
  (tests), at a tenth of their cost for an INS chunk (a few rows: orjson of each row dict);
- :func:`arrow_table` builds the Parquet table: one column per scalar, ``name.0``, ``name.1`` ...
  for the elements of a vector (the flattened names of the JSON keys), nulls where not valid.

Both carry the very same values, so JSONL and Parquet agree by construction.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import orjson

__all__ = [
    "Column",
    "rows_from_columns",
    "jsonl_from_columns",
    "arrow_table",
    "TIME_COLUMNS",
]

TIME_COLUMNS = ("sample_time_s", "available_time_s", "delivery_time_s")


class Column(NamedTuple):
    """One key of the rows: ``values`` (m,) / (m, k) array, list of m values, or a constant.

    A named tuple (immutable; built in a third of a frozen dataclass's time: a streaming step
    builds some 30 of them)."""

    name: str
    values: Any
    valid: np.ndarray | None = None
    constant: bool = False


def _python_values(col: Column, m: int) -> list:
    values = col.values
    out = values.tolist() if isinstance(values, np.ndarray) else list(values)
    if col.valid is not None:
        for i in np.flatnonzero(~np.asarray(col.valid, dtype=bool)).tolist():
            out[i] = None
    if len(out) != m:
        raise ValueError(f"column {col.name}: {len(out)} values for {m} rows")
    return out


_TEMPLATES: dict = {}


def _template(names: tuple[str, ...], constants: tuple[bool, ...]):
    """Compile ``f(*columns) -> nested dict`` for the layout ``names`` (constants bound once)."""
    key = (names, constants)
    if key in _TEMPLATES:
        return _TEMPLATES[key]
    args = [f"a{i}" for i, c in enumerate(constants) if not c]
    tree: dict = {}
    for i, name in enumerate(names):
        node = tree
        *parents, leaf = name.split(".")
        for p in parents:
            node = node.setdefault(p, {})
        node[leaf] = f"k{i}" if constants[i] else f"a{i}"

    def literal(node: dict) -> str:
        items = []
        for k, v in node.items():
            items.append(f"{k!r}: " + (literal(v) if isinstance(v, dict) else v))
        return "{" + ", ".join(items) + "}"

    bound = "".join(f"k{i}, " for i, c in enumerate(constants) if c)
    source = (
        f"def make(k):\n    ({bound}) = k\n"
        f"    def row({', '.join(args)}): return {literal(tree)}\n    return row\n"
    )
    namespace: dict = {}
    exec(compile(source, f"<row template {len(names)} keys>", "exec"), namespace)
    _TEMPLATES[key] = namespace["make"]
    return namespace["make"]


def rows_from_columns(columns: list[Column], m: int) -> list[dict]:
    """The m nested row dicts, keys in column order."""
    if m == 0:
        return []
    names = tuple(c.name for c in columns)
    constants = tuple(c.constant for c in columns)
    make = _template(names, constants)
    row = make(tuple(c.values for c in columns if c.constant))
    lists = [_python_values(c, m) for c in columns if not c.constant]
    return list(map(row, *lists)) if lists else [row() for _ in range(m)]


_NUMPY = orjson.OPT_SERIALIZE_NUMPY
_LINE = orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_APPEND_NEWLINE

#: From this many rows a chunk is joined by Arrow (:func:`_jsonl_joined`); below, it is orjson of
#: each row dict (an Arrow join's fixed cost, 5-15 us a column, is more than the rows': one INS
#: row 13 us, 33 us by the former token join, 240 us joined by Arrow; even at some 128 rows).
JOIN_ROWS = 128

_JSON_PLANS: dict = {}


class _Plan(NamedTuple):
    """The text of a line around its values, as the Arrow join takes it: ``line0`` opens the line
    (the constants written in) up to the first value; value slot j is followed by the byte
    ``after[j]`` (',' or '}': the value's token carries it) and the Arrow scalar ``rest[j]``
    (the rest of the text up to the next value, the newline after the last one; None if empty).
    ``slots[j]``: the index of the column whose values fill slot j, in the order of the row's keys
    (a dotted name joins its object where that object's first key opened it, and a repeated name
    keeps its first place with its last column's values, as in the row dict)."""

    line0: bytes
    slots: tuple[int, ...]
    after: tuple[int, ...]
    rest: tuple
    head: Any  # line0 as an Arrow scalar
    separator: Any  # b"" as an Arrow scalar


def _json_pieces(columns: list[Column]) -> tuple[tuple[bytes, ...], tuple[int, ...]]:
    """The text of one line around its values and the columns of its value slots: k + 1 pieces
    for the k non-constant columns of the row (in the row's key order), the constants written
    in; piece 0 opens the line and the last one closes it (no newline)."""
    texts = [orjson.dumps(c.values, option=_NUMPY) if c.constant else b"" for c in columns]
    tree: dict = {}
    for i, col in enumerate(columns):
        node = tree
        *parents, leaf = col.name.split(".")
        for p in parents:
            node = node.setdefault(p, {})
        node[leaf] = i

    pieces = [b""]  # the text since the last value; a value slot starts the next piece
    slots: list[int] = []

    def literal(node: dict) -> None:
        pieces[-1] += b"{"
        for n, (k, v) in enumerate(node.items()):
            pieces[-1] += (b"," if n else b"") + orjson.dumps(k) + b":"
            if isinstance(v, dict):
                literal(v)
            elif columns[v].constant:
                pieces[-1] += texts[v]
            else:
                pieces.append(b"")
                slots.append(v)
        pieces[-1] += b"}"

    literal(tree)
    return tuple(pieces), tuple(slots)


def _plan(columns: list[Column]) -> _Plan:
    """The layout's :class:`_Plan`, made once per layout and constants."""
    key = (
        tuple(c.name for c in columns),
        tuple(orjson.dumps(c.values, option=_NUMPY) if c.constant else None for c in columns),
    )
    plan = _JSON_PLANS.get(key)
    if plan is None:
        pieces, slots = _json_pieces(columns)
        tails = [*pieces[1:-1], pieces[-1] + b"\n"]
        # after a value comes ',' (next key) or '}' (end of its object): never an empty piece
        plan = _JSON_PLANS[key] = _Plan(
            line0=pieces[0],
            slots=slots,
            after=tuple(t[0] for t in tails),
            rest=tuple(_binary_scalar(t[1:]) if t[1:] else None for t in tails),
            head=_binary_scalar(pieces[0]),
            separator=_binary_scalar(b""),
        )
    return plan


def _binary_array(offsets: np.ndarray, data) -> Any:
    """An Arrow large_binary array over ``data``'s bytes, value i ``offsets[i]:offsets[i + 1]``."""
    import pyarrow as pa

    return pa.Array.from_buffers(
        pa.large_binary(), len(offsets) - 1, [None, pa.py_buffer(offsets), pa.py_buffer(data)]
    )


def _binary_scalar(value: bytes) -> Any:
    """An Arrow large_binary scalar (pa.scalar's first call loads pyarrow's pandas layer: 0.2 s)."""
    return _binary_array(np.array([0, len(value)], dtype=np.int64), value)[0]


def _text(col: Column, m: int) -> tuple[bytes, int, np.ndarray, bool]:
    """The column's values as one JSON text: ``(text, start, ends, nulls_left)``; the value of row
    i is ``text[start or ends[i - 1] + 1 : ends[i]]`` and ``text[ends[i]]`` is a separator byte.

    A numeric array is one orjson text (``[a,b]``; ``[[a,b],[c,d]]`` for a matrix, whose rows
    keep their brackets), the values found by its commas (rows: by their ']'), which no number
    holds; a float vector's nulls are NaN there (orjson writes null, as for a NaN row value).
    A list of strings is one orjson text too, the values found by their quotes
    (:func:`_strings_text`); other columns are orjson of each value, nulls written in.
    ``nulls_left``: the column has nulls still to write (an integer, matrix or string column's).
    """
    values, valid = col.values, col.valid
    if isinstance(values, np.ndarray) and values.dtype.kind in "fiub" and values.ndim in (1, 2):
        if len(values) != m:
            raise ValueError(f"column {col.name}: {len(values)} values for {m} rows")
        if not values.dtype.isnative:  # orjson takes arrays in the machine's byte order only
            values = values.astype(values.dtype.newbyteorder("="))
        if values.dtype.kind == "f" and values.dtype.itemsize < 8:
            values = values.astype(np.float64)  # a row's Python float (orjson: float32's text)
        nulls = valid is not None and not bool(np.all(valid))
        if nulls and values.ndim == 1 and values.dtype.kind == "f":
            values, nulls = np.where(np.asarray(valid, dtype=bool), values, np.nan), False
        text = orjson.dumps(np.ascontiguousarray(values), option=_NUMPY)
        codes = np.frombuffer(text, dtype=np.uint8)
        if values.ndim == 1:
            ends = np.empty(m, dtype=np.int64)
            ends[:-1] = np.flatnonzero(codes == ord(","))
            ends[-1] = len(text) - 1
        else:
            ends = np.flatnonzero(codes == ord("]"))[:-1] + 1
        return text, 1, ends, nulls
    items = values.tolist() if isinstance(values, np.ndarray) else list(values)
    if len(items) != m:
        raise ValueError(f"column {col.name}: {len(items)} values for {m} rows")
    strings = _strings_text(items)
    if strings is not None:
        return *strings, valid is not None and not bool(np.all(valid))
    tokens = [orjson.dumps(v, option=_NUMPY) for v in items]
    if valid is not None:
        for i in np.flatnonzero(~np.asarray(valid, dtype=bool)).tolist():
            tokens[i] = b"null"
    ends = np.cumsum(np.fromiter(map(len, tokens), dtype=np.int64, count=m) + 1) - 1
    return b",".join(tokens) + b",", 0, ends, False


def _strings_text(items: list) -> tuple[bytes, int, np.ndarray] | None:
    """``(text, 1, ends)`` of a list of strings none of which holds '"' (else None): one orjson
    text, whose every '"' then opens or closes a string (orjson escapes only '"' with one)."""
    try:
        if '"' in "".join(items):
            return None
    except TypeError:  # not all strings
        return None
    text = orjson.dumps(items)
    quotes = np.flatnonzero(np.frombuffer(text, dtype=np.uint8) == ord('"'))
    return text, 1, quotes[1::2] + 1


def _call_function():
    """pyarrow's ``call_function`` (a compute function by name): from pyarrow._compute, which
    pyarrow.compute re-exports it from, since pyarrow.compute's import costs 30 ms; from
    pyarrow.compute should a release move it."""
    try:
        from pyarrow._compute import call_function
    except ImportError:  # pragma: no cover - a pyarrow that moved its private module
        from pyarrow.compute import call_function
    return call_function


def _token_array(made: tuple[bytes, int, np.ndarray, bool], after: int, valid, m: int):
    """The values of a column as an Arrow large_binary array over a copy of its text, each value
    with the byte ``after`` that follows it in the line (written over its separator)."""
    import pyarrow as pa

    call_function = _call_function()
    text, start, ends, nulls = made
    codes = np.frombuffer(text, dtype=np.uint8).copy()
    codes[ends] = after
    offsets = np.empty(m + 1, dtype=np.int64)
    offsets[0] = start
    np.add(ends, 1, out=offsets[1:])
    tokens = _binary_array(offsets, codes)
    if nulls:
        mask = pa.Array.from_buffers(pa.bool_(), m, [None, _validity(valid)])
        tokens = call_function("if_else", [mask, tokens, _binary_scalar(b"null" + bytes([after]))])
    return tokens


def _signature(col: Column) -> tuple | None:
    """What two numeric columns of the same text share: dtype, shape, validity (the same mask) and
    the bits of their first and last values (None: no numeric array)."""
    x = col.values
    if not isinstance(x, np.ndarray) or x.dtype.kind not in "fiub" or not x.size:
        return None
    return x.dtype.str, x.shape, id(col.valid), x[:1].tobytes(), x[-1:].tobytes()


def _same_values(a: Column, b: Column) -> bool:
    """Two numeric columns of one signature hold the same bits (-0.0 and 0.0 differ)."""
    bits = np.dtype(f"u{a.values.dtype.itemsize}")
    return bool(np.array_equal(a.values.view(bits), b.values.view(bits)))


def _jsonl_joined(columns: list[Column], m: int):
    """The m lines as the data of one Arrow array (bytes-like): the values' texts (each column
    one orjson text, cut into rows by numpy) and the text between them joined row by row by
    Arrow's binary_join_element_wise, in C and without the GIL (no Python object a value)."""
    call_function = _call_function()
    plan = _plan(columns)
    slots = [columns[i] for i in plan.slots]
    if not slots:
        return (plan.line0 + b"\n") * m
    # a layout may give one array to several keys (the INS's angular velocity under imu,
    # velocity and odom.twist): its text is made once (the columns hold the arrays, so their ids
    # stay distinct during the call)
    texts: dict = {}
    arrays: dict = {}
    made: dict = {}  # signature -> the columns of that signature made text, with their keys
    args = [plan.head]
    for col, after, rest in zip(slots, plan.after, plan.rest):
        key = (id(col.values), id(col.valid))
        if key not in texts:
            # equal values, as the times of a model without delay, have the same text too
            signature = _signature(col)
            alike = made.setdefault(signature, []) if signature is not None else []
            same = next((k for c, k in alike if _same_values(c, col)), None)
            texts[key] = _text(col, m) if same is None else texts[same]
            key = key if same is None else same
            alike.append((col, key))
        if (key, after) not in arrays:
            arrays[key, after] = _token_array(texts[key], after, col.valid, m)
        args.append(arrays[key, after])
        if rest is not None:
            args.append(rest)
    args.append(plan.separator)
    lines = call_function("binary_join_element_wise", args)
    _, offsets, data = lines.buffers()
    end = int(np.frombuffer(offsets, dtype=np.int64, count=m + 1, offset=8 * lines.offset)[m])
    return data if data.size == end else data.slice(0, end)


def jsonl_buffer_from_columns(columns: list[Column], m: int):
    """:func:`jsonl_from_columns` as a bytes-like object (an Arrow buffer from JOIN_ROWS rows:
    a writer takes it without the copy into bytes)."""
    if m == 0:
        return b""
    if m < JOIN_ROWS:
        return b"".join([orjson.dumps(r, option=_LINE) for r in rows_from_columns(columns, m)])
    return _jsonl_joined(columns, m)


def jsonl_from_columns(columns: list[Column], m: int) -> bytes:
    """The m rows as JSON Lines bytes: orjson.dumps of each row of :func:`rows_from_columns`.

    Below JOIN_ROWS rows it is that; from JOIN_ROWS rows the values are joined by Arrow
    (:func:`_jsonl_joined`; an INS chunk of 10000 rows 15 ms, 27 ms by the former token join,
    160 ms as rows), with the same bytes (tests/output/test_columns_jsonl.py).
    """
    data = jsonl_buffer_from_columns(columns, m)
    return data if isinstance(data, bytes) else data.to_pybytes()


def _validity(valid) -> object | None:
    import pyarrow as pa

    if valid is None:
        return None
    return pa.py_buffer(np.packbits(np.asarray(valid, dtype=bool), bitorder="little"))


def _numeric_array(values: np.ndarray, valid):
    """An Arrow array over a numpy column's buffer (pa.array would load pyarrow's pandas layer)."""
    import pyarrow as pa

    values = np.ascontiguousarray(values)
    if values.dtype.kind == "f":
        values, kind = values.astype(np.float64, copy=False), pa.float64()
    elif values.dtype.kind in "iu":
        values, kind = values.astype(np.int64, copy=False), pa.int64()
    elif values.dtype.kind == "b":
        values, kind = values.astype(np.int64), pa.int64()
    else:
        raise TypeError(f"column of dtype {values.dtype} is not numeric")
    nulls = 0 if valid is None else int(len(values) - np.count_nonzero(valid))
    return pa.Array.from_buffers(
        kind, len(values), [_validity(valid), pa.py_buffer(values)], null_count=nulls
    )


def _string_array(values: list, valid):
    """An Arrow UTF-8 array of Python strings ("" where not valid, and null)."""
    import pyarrow as pa

    if valid is not None:
        values = [v if ok else "" for v, ok in zip(values, np.asarray(valid).tolist())]
    values = [v if isinstance(v, str) else str(v) for v in values]
    text = "".join(values)
    data = text.encode("utf-8")
    offsets = np.zeros(len(values) + 1, dtype=np.int32)
    if len(data) == len(text):  # ASCII: a string's length is its number of bytes
        np.cumsum(np.fromiter(map(len, values), dtype=np.int32, count=len(values)), out=offsets[1:])
    else:
        np.cumsum([len(v.encode("utf-8")) for v in values], out=offsets[1:])
    nulls = 0 if valid is None else int(len(values) - np.count_nonzero(valid))
    return pa.Array.from_buffers(
        pa.string(),
        len(values),
        [_validity(valid), pa.py_buffer(offsets), pa.py_buffer(data)],
        null_count=nulls,
    )


def _constant_string_array(value: str, m: int):
    """An Arrow UTF-8 array of m copies of ``value``."""
    import pyarrow as pa

    data = value.encode("utf-8")
    offsets = np.arange(m + 1, dtype=np.int32) * np.int32(len(data))
    return pa.Array.from_buffers(
        pa.string(), m, [None, pa.py_buffer(offsets), pa.py_buffer(data * m)], null_count=0
    )


def _arrow_column(values, valid, m: int):
    if isinstance(values, np.ndarray):
        return _numeric_array(values, valid)
    values = list(values)
    if values and all(isinstance(v, str) or v is None for v in values):
        if valid is None and None in values:
            valid = np.array([v is not None for v in values])
        return _string_array(values, valid)
    return _numeric_array(np.asarray(values), valid)


def arrow_table(columns: list[Column], m: int):
    """A pyarrow Table with one column per scalar key and per vector element."""
    import pyarrow as pa

    arrays, names = [], []
    for col in columns:
        valid = None if col.valid is None else np.asarray(col.valid, dtype=bool)
        if col.constant:
            value = col.values
            arrays.append(
                _constant_string_array(value, m)
                if isinstance(value, str)
                else _arrow_column(np.full(m, value), None, m)
            )
            names.append(col.name)
            continue
        values = col.values
        if isinstance(values, np.ndarray) and values.ndim == 2:
            for j in range(values.shape[1]):
                arrays.append(_numeric_array(values[:, j], valid))
                names.append(f"{col.name}.{j}")
        else:
            arrays.append(_arrow_column(values, valid, m))
            names.append(col.name)
    return pa.Table.from_arrays(arrays, names=names)
