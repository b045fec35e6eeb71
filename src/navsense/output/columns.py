"""Sensor rows as columns: one definition feeds the JSON Lines rows and the Parquet columns.

A model describes the epochs of a block as an ordered list of :class:`Column`: a dotted name
(``fix.latitude``, ``imu.orientation_enu_xyzw``), the values already rounded to the row's decimals
(an array of shape (m,) or (m, k), a list of m strings, or one constant for every row) and an
optional validity mask (False: the key is null in that row). From that list:

- :func:`rows_from_columns` builds the nested JSON rows with a row constructor compiled once per
  layout (a dict literal with the keys in column order), so building a row costs no more than a
  hand-written dict literal;
- :func:`jsonl_from_columns` writes the same rows straight to JSON Lines bytes: each column is
  serialised whole by orjson (numpy arrays in C) and cut into one token per row, and the chunk
  is one join of those tokens and the fixed pieces of text between them (built once per
  layout); the bytes equal orjson.dumps of each row of :func:`rows_from_columns` (tests), at a
  sixth of the cost;
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
    return list(map(row, *lists))


_NUMPY = orjson.OPT_SERIALIZE_NUMPY
_JSON_TEMPLATES: dict = {}


def _is_matrix(values) -> bool:
    return isinstance(values, np.ndarray) and values.ndim == 2


def _json_tokens(col: Column, m: int, bracketed: bool) -> list[bytes]:
    """The JSON text of the column's value in each of the m rows (b"null" where not valid)."""
    values = col.values
    if isinstance(values, np.ndarray):
        values = np.ascontiguousarray(values)
        blob = orjson.dumps(values, option=_NUMPY)
        if values.ndim == 2:
            tokens = blob[2:-2].split(b"],[") if values.shape[1] else [b""] * m
            if not bracketed:
                tokens = [b"[" + t + b"]" for t in tokens]
        else:
            tokens = blob[1:-1].split(b",")
    else:
        tokens = [orjson.dumps(v, option=_NUMPY) for v in values]
    if len(tokens) != m:
        raise ValueError(f"column {col.name}: {len(tokens)} values for {m} rows")
    if col.valid is not None:
        for i in np.flatnonzero(~np.asarray(col.valid, dtype=bool)).tolist():
            tokens[i] = b"null"
    return tokens


def _json_pieces(columns: list[Column], bracketed: tuple[bool, ...]) -> tuple[bytes, ...]:
    """The text of one line around its values: k + 1 pieces for the k non-constant columns, the
    constants written in; piece 0 opens the line and the last one closes it (no newline)."""
    key = (
        tuple(c.name for c in columns),
        tuple(c.constant for c in columns),
        bracketed,
        tuple(orjson.dumps(c.values, option=_NUMPY) if c.constant else None for c in columns),
    )
    if key in _JSON_TEMPLATES:
        return _JSON_TEMPLATES[key]
    tree: dict = {}
    for i, col in enumerate(columns):
        node = tree
        *parents, leaf = col.name.split(".")
        for p in parents:
            node = node.setdefault(p, {})
        node[leaf] = i

    pieces = [b""]  # the text since the last value; a value slot starts the next piece

    def literal(node: dict) -> None:
        pieces[-1] += b"{"
        for n, (k, v) in enumerate(node.items()):
            pieces[-1] += (b"," if n else b"") + orjson.dumps(k) + b":"
            if isinstance(v, dict):
                literal(v)
            elif columns[v].constant:
                pieces[-1] += key[3][v]
            else:
                pieces[-1] += b"[" if bracketed[v] else b""
                pieces.append(b"]" if bracketed[v] else b"")
        pieces[-1] += b"}"

    literal(tree)
    _JSON_TEMPLATES[key] = tuple(pieces)
    return _JSON_TEMPLATES[key]


def jsonl_from_columns(columns: list[Column], m: int) -> bytes:
    """The m rows as JSON Lines bytes: orjson.dumps of each row of :func:`rows_from_columns`.

    One join of the pieces of text around the values (:func:`_json_pieces`) and the values'
    tokens, interleaved by slice assignment into one list (about 2/3 of a bytes %-format a row).
    """
    if m == 0:
        return b""
    # a vector column without nulls gets its brackets from the template
    bracketed = tuple(
        not c.constant and _is_matrix(c.values) and (c.valid is None or bool(np.all(c.valid)))
        for c in columns
    )
    pieces = _json_pieces(columns, bracketed)
    # a layout may give one array to several keys (the INS's angular velocity under imu,
    # velocity and odom.twist): its text is made once (the columns hold the arrays, so their ids
    # stay distinct during the call)
    made: dict = {}
    tokens = []
    for c, b in zip(columns, bracketed):
        if not c.constant:
            key = (id(c.values), id(c.valid), b)
            if key not in made:
                made[key] = _json_tokens(c, m, b)
            tokens.append(made[key])
    if not tokens:
        return (pieces[0] + b"\n") * m
    # line i: its piece 0 (the previous line's last piece, its newline and this piece 0 are one
    # item), then each column's token and the piece after it
    step = 2 * len(tokens)
    parts = [pieces[-1] + b"\n" + pieces[0]] * (1 + m * step)
    parts[0] = pieces[0]
    parts[-1] = pieces[-1] + b"\n"
    for j, tok in enumerate(tokens):
        parts[1 + 2 * j :: step] = tok
        if j + 1 < len(tokens):
            parts[2 + 2 * j :: step] = [pieces[j + 1]] * m
    return b"".join(parts)


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
