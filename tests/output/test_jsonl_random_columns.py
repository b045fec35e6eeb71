"""jsonl_from_columns against orjson.dumps of each row of rows_from_columns on random columns
(hypothesis): dtypes float64/32/16, int64/8, uint64, bool, big-endian ones, strings with quotes, backslashes,
control and astral characters, Python lists, shapes (m,), (m, 0), (m, 1), (m, k), validity
masks shared or not, constants of every JSON type, nested, interleaved and repeated dotted
names, one array under several keys, copies equal in bits, -0.0 against 0.0, NaN, inf,
subnormals and the largest floats; m on both sides of JOIN_ROWS, each call on both paths."""

from __future__ import annotations

import numpy as np
import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from navsense.output import columns
from navsense.output.columns import Column, jsonl_from_columns, rows_from_columns

LINE = orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_APPEND_NEWLINE
# no name is an object of another's (both paths refuse that); repeats, nesting and order are free
NAMES = ["t", "u", "g.x", "g.y", "g.h.p", "g.h.q", "k.x", 'sp"ec\\ial.k\u00e9', "w", "\U0001d11e"]
FLOATS = np.array(
    [0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 5e-324, -5e-324, 2.2250738585072009e-308,
     1.7976931348623157e308, -1e300, 1e16, 1e-7, 0.1, 123456789.123456789, 2.0**53 + 2, -1.5]
)  # fmt: skip
INTS = np.array([0, -1, 1, 2**63 - 1, -(2**63), 2**31, -(2**31) - 1, 10**15], dtype=np.int64)
CHARS = '"\\/,]}[{:\x00\x01\x1f\x7f \u00e9\u20ac\u2028\U0001f600\t\nab'
CONSTANTS = [None, True, False, 0, -7, 2**64 - 1, 0.5, -0.0, float("nan"), "", 'q"\\\n\u00e9',
             [1, "a", None], {"x": [1.5, {"y": None}]}, np.float32(0.1), np.int8(-3)]  # fmt: skip


def _floats(rng, shape, dtype):
    """Random bits (NaN payloads, subnormals) mixed with FLOATS, then as ``dtype``."""
    x = rng.integers(0, 2**64, size=shape, dtype=np.uint64, endpoint=False).view(np.float64)
    pick = rng.random(shape) < 0.5
    x = np.where(pick, FLOATS[rng.integers(0, len(FLOATS), size=shape)], x)
    with np.errstate(over="ignore", invalid="ignore"):
        return x.astype(dtype)


def _strings(rng, m):
    return ["".join(rng.choice(list(CHARS), size=int(rng.integers(0, 6)))) for _ in range(m)]


def _values(kind, rng, m, k):
    if kind in ("f8", "f4", "f2"):
        return _floats(rng, (m,) if k < 0 else (m, k), np.dtype(kind))
    if kind == "zeros":  # no NaN; zeros of both signs between non-zero first and last values
        x = np.where(rng.random((m,) if k < 0 else (m, k)) < 0.5, 0.0, 0.75)
        x[rng.random(x.shape) < 0.5] *= -1.0
        x[0], x[-1] = 1.0, 2.0
        return x
    if kind in ("i8", "i1", "u8"):
        x = np.where(
            rng.random(m) < 0.3, INTS[rng.integers(0, len(INTS), m)], rng.integers(-9, 9, m)
        )
        x = x if k < 0 else np.repeat(x[:, None], k, axis=1) + np.arange(k)
        return x.astype(kind) if kind != "u8" else x.view(np.uint64)
    if kind == "bool":
        return rng.random((m,) if k < 0 else (m, k)) < 0.5
    if kind == "str":
        strings = _strings(rng, m)
        return [s.replace('"', "") for s in strings] if k % 2 else strings
    if kind == "floatlist":
        return _floats(rng, (m,), np.float64).tolist()
    if kind == "ragged":
        return [_floats(rng, (int(rng.integers(0, 3)),), np.float64).tolist() for _ in range(m)]
    return rng.integers(0, 2**62, m).tolist()  # "intlist"


KINDS = [
    "zeros",
    "f8",
    "f4",
    "f2",
    "i8",
    "i1",
    "u8",
    "bool",
    "str",
    "floatlist",
    "ragged",
    "intlist",
]


@st.composite
def layouts(draw):
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    m = draw(st.sampled_from([1, 2, 3, 127, 128, 129, 130, 200, 257]))
    masks = [
        None,
        np.ones(m, dtype=bool),
        np.zeros(m, dtype=bool),
        rng.random(m) < 0.5,
        rng.random(m) < 0.9,
    ]
    cols: list[Column] = []
    for _ in range(draw(st.integers(1, 8))):
        name = draw(st.sampled_from(NAMES))
        how = draw(st.sampled_from(["new", "new", "new", "same", "copy", "signed", "const"]))
        mask = masks[draw(st.integers(0, len(masks) - 1))]
        if draw(st.booleans()) and mask is not None:
            mask = mask.copy()  # an equal mask, another object
        arrays = [c for c in cols if isinstance(c.values, np.ndarray)]
        if how == "const":
            cols.append(Column(name, draw(st.sampled_from(CONSTANTS)), constant=True))
        elif how != "new" and arrays:
            src = arrays[draw(st.integers(0, len(arrays) - 1))]
            values = src.values if how == "same" else src.values.copy()
            if how == "signed" and values.dtype.kind == "f":
                values[values == 0] *= -1.0  # the other zero, the same first and last bits mostly
            cols.append(Column(name, values, src.valid if draw(st.booleans()) else mask))
        else:
            kind = draw(st.sampled_from(KINDS))
            k = draw(st.sampled_from([-1, -1, 0, 1, 3]))
            values = _values(kind, rng, m, k)
            if isinstance(values, np.ndarray) and draw(st.integers(0, 4)) == 0:
                values = values.astype(values.dtype.newbyteorder(">"))  # a file's byte order
            cols.append(Column(name, values, mask))
    return cols, m


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(layouts())
def test_random_columns_are_orjson_of_each_row(layout):
    cols, m = layout
    want = b"".join(orjson.dumps(r, option=LINE) for r in rows_from_columns(cols, m))
    assert jsonl_from_columns(cols, m) == want
    assert bytes(columns._jsonl_joined(cols, m)) == want
