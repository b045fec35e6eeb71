"""jsonl_from_columns: the bytes of orjson.dumps of each row of rows_from_columns, on both of its
paths (orjson of each row below JOIN_ROWS rows, Arrow's join of the columns' texts from there),
an array under several keys turned into text once."""

from __future__ import annotations

import numpy as np
import orjson
import pytest

from navsense.output import columns
from navsense.output.columns import (
    Column,
    jsonl_buffer_from_columns,
    jsonl_from_columns,
    rows_from_columns,
)


def _expected(cols: list[Column], m: int) -> bytes:
    return b"".join(orjson.dumps(r) + b"\n" for r in rows_from_columns(cols, m))


@pytest.fixture(params=["joined", "rows"])
def path(request, monkeypatch):
    """Each test on both paths: JOIN_ROWS 1 joins every chunk by Arrow, a large one none."""
    monkeypatch.setattr(columns, "JOIN_ROWS", 1 if request.param == "joined" else 1 << 30)
    return request.param


def _count_texts(monkeypatch) -> list[str]:
    """The names of the columns made text (columns._text), in the order made."""
    calls: list[str] = []
    made = columns._text

    def counted(col, m):
        calls.append(col.name)
        return made(col, m)

    monkeypatch.setattr(columns, "_text", counted)
    return calls


def test_one_array_under_three_keys_is_made_text_once(monkeypatch):
    monkeypatch.setattr(columns, "JOIN_ROWS", 1)
    m = 5
    gyro = np.arange(3 * m, dtype=np.float64).reshape(m, 3) * 0.25
    valid = np.array([True, False, True, True, False])
    cols = [
        Column("t", np.arange(m) * 0.1),
        Column("imu.w", gyro),  # followed by ','
        Column("imu.z", np.arange(m)),
        Column("velocity.w", gyro),  # followed by '}': the same text, another byte after it
        Column("odom.w", gyro, valid),  # the same array with nulls: text of its own
        Column("odom.twist.w", gyro),
    ]
    calls = _count_texts(monkeypatch)
    text = jsonl_from_columns(cols, m)
    assert calls == ["t", "imu.w", "imu.z", "odom.w"]
    assert text == _expected(cols, m)


def test_equal_arrays_are_made_text_once_and_a_zeros_sign_is_not_equal(monkeypatch):
    monkeypatch.setattr(columns, "JOIN_ROWS", 1)
    t = np.array([0.5, 0.0, 1.0, 2.0])
    signed = np.array([0.5, -0.0, 1.0, 2.0])  # the first and last values alike
    nan = np.array([0.5, np.nan, 1.0, 2.0])
    valid = np.array([True, True, False, True])
    cols = [
        Column("sample_time_s", t),
        Column("available_time_s", t.copy()),  # equal: no text of its own
        Column("delivery_time_s", signed),
        Column("n.a", nan),
        Column("n.b", nan.copy()),  # NaN where the other has NaN: equal
        Column("v.a", t.copy(), valid),  # equal values, nulls: text of its own
        Column("v.b", t.copy(), valid),  # equal values, the same mask: none
        Column("v.c", t.astype(np.float32)),
    ]
    calls = _count_texts(monkeypatch)
    assert jsonl_from_columns(cols, 4) == _expected(cols, 4)
    assert calls == ["sample_time_s", "delivery_time_s", "n.a", "v.a", "v.c"]


def test_rows_of_constants_alone_and_of_one_row_are_orjson_of_each_row(path):
    constants = [Column("frame", "a%s", constant=True), Column("b.zone", 16, constant=True)]
    line = orjson.dumps({"frame": "a%s", "b": {"zone": 16}}) + b"\n"
    assert jsonl_from_columns(constants, 3) == line * 3
    assert jsonl_from_columns(constants, 0) == b""
    for cols, m in (
        ([*constants, Column("x", np.array([[0.5, 1e-7]]))], 1),
        ([Column("x", np.array([0.5, 2.0])), *constants], 2),
        ([Column("x", np.array([0.5]))], 1),
        ([Column("x", np.array([[0.5, -0.0]]), np.array([False]))], 1),
    ):
        assert jsonl_from_columns(cols, m) == _expected(cols, m)


_FLOATS = [
    -0.0,
    0.0,
    1e300,
    -1.5e-300,
    5e-324,
    1.7976931348623157e308,
    1e16,
    1e-7,
    123456789.123456,
    float("nan"),
    float("inf"),
    -float("inf"),
    0.1,
]


def _edge_columns(m: int, rng: np.random.Generator) -> list[Column]:
    """Columns that a wrong cut or gather would break: nulls in vectors, empty vectors, strings
    holding the separators, quotes and escapes, floats in exponent form, nested objects."""
    floats = rng.choice(np.array(_FLOATS), size=(m, 4))
    with np.errstate(over="ignore", invalid="ignore"):
        f32 = floats[:, 2].astype(np.float32)
        zeros = -floats[:, 0] * 0.0
    some = rng.random(m) < 0.5
    some[0] = False  # a null first
    # strings with '"' are orjson of each value, those without one orjson of the list
    quoted = ["a,b],[c", 'q"uote', "back\\slash", "\u00e9t\u00e9 \u2603 \U0001f600", "", "\n"]
    plain = ["rtk_fixed", "$GPGGA,1,2*5C", "]", "", "\u00e9\U0001f600", "\n\t\x01\\", "[,]"]
    return [
        Column("sample_time_s", floats[:, 0]),
        Column("frame", '\u00e9"x', constant=True),
        Column("a.vec", floats[:, :3], some),  # nulls in a vector column
        Column("a.empty", np.zeros((m, 0))),  # empty vectors
        Column("a.empty_null", np.zeros((m, 0)), ~some),
        Column("a.b.last_vec", floats[:, 1:]),  # a vector closing two objects
        Column("a.ints", rng.integers(-(2**62), 2**62, size=m), some),
        Column("a.flags", some.copy(), ~some),
        Column("a.c", 7, constant=True),
        Column("quoted", [quoted[i % len(quoted)] for i in range(m)]),
        Column("plain", [plain[i % len(plain)] for i in range(m)], ~some),
        Column("plain_all", [plain[i % len(plain)] for i in range(m)]),
        Column("f32", f32),
        Column("floats_null", floats[:, 3], some),
        Column("listed", [float(v) for v in floats[:, 1]]),
        Column("nested.ragged", [[[1, 2], [], [3.5]][i % 3] for i in range(m)]),
        Column('k\u00e9y "q"', floats[:, 0]),
        Column("z.zero", zeros),  # negative zeros (and NaN)
    ]


@pytest.mark.parametrize("m", [1, 2, 3, 7, 200])
def test_edge_values_are_orjson_of_each_row(m, path):
    cols = _edge_columns(m, np.random.default_rng(m))
    expected = _expected(cols, m)
    assert jsonl_from_columns(cols, m) == expected
    assert bytes(jsonl_buffer_from_columns(cols, m)) == expected


def test_all_rows_null_and_no_row_null(path):
    m = 4
    vec = np.arange(12.0).reshape(m, 3)
    for valid in (np.zeros(m, dtype=bool), np.ones(m, dtype=bool), [False, True, True, False]):
        cols = [
            Column("v", vec, valid),
            Column("s", vec[:, 0], valid),
            Column("i", np.arange(m), valid),
            Column("t", ["x", "y", "z", "w"], valid),
        ]
        assert jsonl_from_columns(cols, m) == _expected(cols, m)


def test_a_column_of_the_wrong_length_is_refused(path):
    with pytest.raises(ValueError, match="column x: 2 values for 3 rows"):
        jsonl_from_columns([Column("x", np.array([1.0, 2.0]))], 3)
    with pytest.raises(ValueError, match="column s: 2 values for 3 rows"):
        jsonl_from_columns([Column("t", np.arange(3.0)), Column("s", ["a", "b"])], 3)


def test_a_runs_chunks_on_both_paths_are_the_same_bytes(monkeypatch):
    """A chunk of each model of a real run (GNSS with nulls and NMEA strings, IMU, INS)."""
    from navsense.output.layouts import layout_for
    from navsense.run import prepare_run
    from navsense.simulate import build_models, timed_columns
    from navsense.truth.states import TruthStates

    run = prepare_run(scenario="acre-loop", duration_s=12.0)
    cfg = run.cfg
    georef = run.site.make_georeference(cfg["gnss"]["datum"]["start_utc"], cfg["gnss"]["datum"])
    models = build_models(cfg, run.vehicle, run.site, georef)
    truth = run.truth_chunks(1200)
    chunk = truth.slice(0, 1200) if isinstance(truth, TruthStates) else next(iter(truth))
    for model in models:
        block = model.process(chunk)
        m = len(block["sample_time_s"])
        cols = timed_columns(layout_for(model), block, 0.0, chunk.rate_hz)
        monkeypatch.setattr(columns, "JOIN_ROWS", 1)
        joined = jsonl_from_columns(cols, m)
        monkeypatch.setattr(columns, "JOIN_ROWS", 1 << 30)
        assert joined == jsonl_from_columns(cols, m) == _expected(cols, m), model.name


def test_interleaved_and_repeated_names_fill_the_rows_keys(path):
    """A dotted name joins its object where the object's first key opened it, and a repeated
    name keeps its first place with its last column's values (the row dict's rules): the joined
    path filled its value slots in column order, so ``g.y`` got ``u``'s values and the first of
    two ``x`` columns was written."""
    m = 200
    a, b, c = np.arange(m) * 0.5, np.arange(m) * 2, np.arange(m) * -1.25
    for cols in (
        [Column("g.x", a), Column("u", b), Column("g.y", c)],
        [Column("x", a), Column("u", b), Column("x", c)],
        [Column("g.x", a), Column("u", b), Column("g", c)],  # g's object replaced by a value
        [Column("g", 1, constant=True), Column("u", b), Column("g", c)],
        [Column("g", a), Column("u", b), Column("g", "k", constant=True)],
    ):
        assert jsonl_from_columns(cols, m) == _expected(cols, m), [c.name for c in cols]


def test_arrays_in_the_other_byte_order(path):
    """Big-endian arrays (as read from a file): orjson refuses them whole, not row values."""
    m = 200
    x = np.linspace(-3.0, 5.0, 3 * m).reshape(m, 3)
    cols = [
        Column("f", x[:, 0].astype(">f8")),
        Column("v", x.astype(">f8"), np.arange(m) % 3 > 0),
        Column("i", np.arange(m, dtype=">i8"), np.arange(m) % 5 > 0),
        Column("u", np.arange(m, dtype=">u4")),
        Column("h", x[:, 1].astype(">f4")),
    ]
    assert jsonl_from_columns(cols, m) == _expected(cols, m)
