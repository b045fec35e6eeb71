"""Property tests (hypothesis) of the invariants of DESIGN.md: determinism and batch = chunks = steps."""

import numpy as np
import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import circle_truth, layout_rows
from navsense.clock import Due
from navsense.config import load_config
from navsense.config.typed.imu import ImuConfig
from navsense.geo import utm
from navsense.output.columns import Column, arrow_table, jsonl_from_columns, rows_from_columns
from navsense.rng import Pcg32
from navsense.sensors.imu import ImuModel
from navsense.vehicles import VEHICLES

nm = 1e-9


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**64 - 1),
    seq=st.integers(0, 2**63 - 1),
    sizes=st.lists(st.integers(0, 5000), min_size=1, max_size=6),
)
def test_pcg32_blocks_of_any_sizes_are_one_stream(seed, seq, sizes):
    whole = Pcg32(seed, seq).u32(sum(sizes))
    rng = Pcg32(seed, seq)
    np.testing.assert_array_equal(np.concatenate([rng.u32(k) for k in sizes]), whole)


@settings(max_examples=60, deadline=None)
@given(hz=st.floats(1.0, 120.0), cuts=st.lists(st.integers(1, 700), min_size=1, max_size=8))
def test_due_in_any_chunks_equals_the_loop(hz, cuts):
    t = np.arange(2400) / 120.0
    t_due, expected = 0.0, []
    for i, ti in enumerate(t):  # the specification's loop
        if ti + 1e-8 >= t_due:
            t_due += 1.0 / hz
            expected.append(i)
    due, got, start = Due(hz), [], 0
    for k in cuts + [len(t)]:
        got.extend((start + due.sample_indices(t[start : start + k])).tolist())
        start += k
        if start >= len(t):
            break
    assert got == expected


@settings(max_examples=80, deadline=None)
@given(lat=st.floats(0.0, 84.0), dlon=st.floats(-9.0, 9.0), zone=st.integers(1, 60))
def test_utm_round_trip_closes(lat, dlon, zone):
    lon = -183.0 + 6.0 * zone + dlon
    e, n, _, _ = utm.forward(lat, lon, zone)
    lat2, lon2 = utm.inverse(e, n, zone)
    e2, n2, _, _ = utm.forward(lat2, lon2, zone)
    assert abs(e2 - e) < 10 * nm and abs(n2 - n) < 10 * nm


@settings(max_examples=25, deadline=None)
@given(
    cuts=st.lists(st.integers(1, 200), min_size=1, max_size=10),
    seed=st.integers(0, 1000),
    hz=st.sampled_from([120.0, 100.0, 50.0, 7.0]),
)
def test_imu_rows_do_not_depend_on_the_chunks(cuts, seed, hz):
    truth = circle_truth(600)
    cfg = load_config(  # the Polaris: mount frame base_footprint
        overrides={
            "seed": seed,
            "noise": True,
            "delay_s": 0.05,
            "imu": {
                "enabled": True,
                "hz": hz,
                "accel_std_mps2": 0.03,
                "gyro_std_radps": 0.002,
                "accel_bias_mps2": 0.01,
                "gyro_bias_radps": 0.001,
                "position_flu_m": [0.95, -0.45, 0.7],
            },
        }
    )

    def run(pieces):
        model = ImuModel(ImuConfig.from_validated(cfg), VEHICLES["polaris"])
        out = b""
        for piece in pieces:
            out += b"".join(orjson.dumps(r) for r in layout_rows(model, model.process(piece)))
        return out

    pieces, start = [], 0
    for k in cuts:
        pieces.append(truth.slice(start, start + k))
        start += k
    pieces.append(truth.slice(start, len(truth)))
    assert run(pieces) == run([truth])


@settings(max_examples=40, deadline=None)
@given(m=st.integers(1, 30), data=st.data())
def test_jsonl_rows_and_parquet_columns_carry_the_same_values(m, data):
    values = np.array(data.draw(st.lists(st.floats(-1e6, 1e6), min_size=m, max_size=m)))
    vec = np.array(
        data.draw(
            st.lists(st.lists(st.floats(-1e3, 1e3), min_size=3, max_size=3), min_size=m, max_size=m)
        )
    )
    valid = np.array(data.draw(st.lists(st.booleans(), min_size=m, max_size=m)))
    names = data.draw(
        st.lists(st.sampled_from(["rtk_fixed", "single", "no_fix"]), min_size=m, max_size=m)
    )
    cols = [
        Column("a", values),
        Column("b.c", vec, valid),
        Column("b.d", "k", constant=True),
        Column("e", names),
    ]
    rows = rows_from_columns(cols, m)
    table = arrow_table(cols, m).to_pydict()
    for i, row in enumerate(rows):
        assert table["a"][i] == row["a"]
        assert table["b.d"][i] == row["b"]["d"] == "k"
        assert table["e"][i] == row["e"]
        if row["b"]["c"] is None:
            assert not valid[i] and table["b.c.0"][i] is None
        else:
            assert [table[f"b.c.{j}"][i] for j in range(3)] == row["b"]["c"]


@settings(max_examples=60, deadline=None)
@given(m=st.integers(1, 25), data=st.data())
def test_jsonl_from_columns_is_orjson_of_each_row(m, data):
    floats = st.floats(allow_nan=True, allow_infinity=True, width=64)
    values = np.array(data.draw(st.lists(floats, min_size=m, max_size=m)), dtype=np.float64)
    vec = np.array(
        data.draw(st.lists(st.lists(floats, min_size=3, max_size=3), min_size=m, max_size=m)),
        dtype=np.float64,
    )
    ints = np.array(data.draw(st.lists(st.integers(-(2**62), 2**62), min_size=m, max_size=m)))
    valid = np.array(data.draw(st.lists(st.booleans(), min_size=m, max_size=m)))
    all_valid = np.ones(m, dtype=bool)
    names = data.draw(st.lists(st.text(max_size=6), min_size=m, max_size=m))
    cols = [
        Column("sample_time_s", values),
        Column("b.c", vec, valid),
        Column("b.v", vec),
        Column("b.w", vec, all_valid),
        Column("b.d", "100%", constant=True),
        Column("n", ints, valid),
        Column("e", names),
        Column("k", 7, constant=True),
        Column("flag", valid),
    ]
    expected = b"".join(orjson.dumps(r) + b"\n" for r in rows_from_columns(cols, m))
    assert jsonl_from_columns(cols, m) == expected
