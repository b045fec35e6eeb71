"""Fuzz: truth logs (CSV and Parquet) given to ``navsense simulate --truth``."""

from __future__ import annotations

import csv
import shutil

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import given
from hypothesis import strategies as st

from fuzz.fuzz_helpers import (
    NASTY_NUMBERS,
    SPECIAL_KINDS,
    csv_text_form,
    damaged_bytes,
    fuzz_settings,
    nasty_token,
    scratch,
    simulate_checked,
    special_path,
)
from navsense.truth.states import TRUTH_COLUMNS


def _simulate(folder, truth_name, must_fail=False, extra=()):
    return simulate_checked(folder, ["--truth", truth_name], extra, must_fail=must_fail)


# --------------------------------------------------------------------------------- CSV
@fuzz_settings()
@given(data=st.data())
def test_a_csv_truth_log_damaged_byte_by_byte(bases, data):
    damaged = data.draw(damaged_bytes(bases["truth.csv"].read_bytes(), deep_text=b'"'))
    with scratch() as folder:
        (folder / "t.csv").write_bytes(damaged)
        _simulate(folder, "t.csv")


@fuzz_settings()
@given(
    row=st.integers(0, 239),
    column=st.sampled_from(TRUTH_COLUMNS),
    token=nasty_token(),
)
def test_a_csv_truth_log_with_a_bad_field(bases, row, column, token):
    lines = bases["truth.csv"].read_text().splitlines()
    header = lines[0].split(",")
    fields = lines[1 + row].split(",")
    fields[header.index(column)] = token
    lines[1 + row] = ",".join(fields)
    with scratch() as folder:
        (folder / "t.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
        _simulate(folder, "t.csv")


@fuzz_settings()
@given(data=st.data())
def test_a_csv_truth_log_written_another_way(bases, data):
    """Spaces in the header or around fields, quotes, other line ends, separators, case or
    column order (a header with spaces was Arrow's KeyError, an internal error)."""
    text = data.draw(csv_text_form(bases["truth.csv"].read_bytes()))
    with scratch() as folder:
        (folder / "t.csv").write_bytes(text)
        _simulate(folder, "t.csv")


@st.composite
def extreme_truth(draw):
    """A truth table (dict of columns) that is well formed but extreme: far away, fast, a jump,
    huge times, few rows, spinning, every step a reset."""
    from conftest import open_sky_circle

    n = draw(st.sampled_from([2, 3, 4, 240]))
    truth = open_sky_circle(max(n, 3))
    cols = {
        "t_s": truth.t_s[:n].copy(),
        **{c: truth.p_m[:n, i].copy() for i, c in enumerate(("px_m", "py_m", "pz_m"))},
        **{c: truth.q_xyzw[:n, i].copy() for i, c in enumerate(("qx", "qy", "qz", "qw"))},
        **{c: truth.v_mps[:n, i].copy() for i, c in enumerate(("vx_mps", "vy_mps", "vz_mps"))},
        **{
            c: truth.w_radps[:n, i].copy()
            for i, c in enumerate(("wx_radps", "wy_radps", "wz_radps"))
        },
        **{c: truth.c_m[:n, i].copy() for i, c in enumerate(("cx_m", "cy_m", "cz_m"))},
        "reset": np.zeros(n, dtype=np.int64),
    }
    kind = draw(
        st.sampled_from(["offset", "jump", "scale", "time", "value", "reset", "quaternion"])
    )
    i = draw(st.integers(0, n - 1))
    if kind == "offset":  # the whole drive far away (or at a pole of the grid)
        d = draw(st.sampled_from([1e4, 1e5, 1e6, 6.4e6, 1e7, 1e9, 1e15, 1e300]))
        axis = draw(st.sampled_from(["px_m", "py_m", "pz_m"]))
        cols[axis] = cols[axis] + d
        cols["c" + axis[1:]] = cols["c" + axis[1:]] + d
    elif kind == "jump":  # positions jump by D from row i on
        d = draw(st.sampled_from([1e3, 1e5, 1e6, 1e7]))
        for c in ("px_m", "cx_m"):
            cols[c][i:] += d
    elif kind == "scale":  # fast or spinning
        c = draw(st.sampled_from(["vx_mps", "vy_mps", "wz_radps", "wx_radps"]))
        cols[c] = cols[c] * draw(st.sampled_from([1e3, 1e6, 1e12, 1e300]))
    elif kind == "time":  # the clock starts late
        t0 = draw(st.sampled_from([1e6, 1e9, 3.2e9, 1e12, 1e15, 1e17, 1e300]))
        cols["t_s"] = (np.float64(round(t0 * 120)) + np.arange(n)) / 120.0
    elif kind == "value":
        c = draw(st.sampled_from([c for c in TRUTH_COLUMNS if c not in ("t_s", "reset")]))
        cols[c][i] = draw(st.sampled_from(NASTY_NUMBERS))
    elif kind == "reset":
        cols["reset"][:] = 1
    elif kind == "quaternion":  # a unit quaternion with tiny or negative parts
        q = draw(
            st.sampled_from(
                [(0, 0, 0, -1.0), (1e-300, 0, 0, 1.0), (0, 0, 1.0, 5e-324), (0.6, 0.8, 0, 0)]
            )
        )
        for c, v in zip(("qx", "qy", "qz", "qw"), q, strict=True):
            cols[c][:] = v
    return cols, f"{kind} (row {i} of {n})"


@fuzz_settings()
@given(case=extreme_truth(), fmt=st.sampled_from(["csv", "parquet"]))
def test_a_well_formed_truth_log_with_extreme_values(case, fmt):
    cols, note = case
    with scratch() as folder:
        path = folder / f"t.{fmt}"
        table = pa.table({k: pa.array(v) for k, v in cols.items()})
        if fmt == "csv":
            import pyarrow.csv as pacsv

            pacsv.write_csv(table, path)
        else:
            pq.write_table(table, path)
        _simulate(folder, path.name)


# ------------------------------------------------------------------------------ Parquet
@fuzz_settings()
@given(data=st.data())
def test_a_parquet_truth_log_damaged_byte_by_byte(bases, data):
    damaged = data.draw(damaged_bytes(bases["truth.parquet"].read_bytes()))
    with scratch() as folder:
        (folder / "t.parquet").write_bytes(damaged)
        _simulate(folder, "t.parquet")


_TYPES = {
    "int8": pa.int8(),
    "uint64": pa.uint64(),
    "int64": pa.int64(),
    "float16": pa.float16(),
    "float32": pa.float32(),
    "string": pa.string(),
    "bool": pa.bool_(),
    "timestamp": pa.timestamp("ns"),
    "decimal": pa.decimal128(38, 10),
    "null": pa.null(),
    "list": pa.list_(pa.float64()),
    "dictionary": pa.dictionary(pa.int32(), pa.string()),
}


@st.composite
def parquet_column(draw, n):
    """A column of another type, or at the limits of its integer type, or with nulls."""
    kind = draw(st.sampled_from(sorted(_TYPES) + ["int limits", "nulls"]))
    if kind == "int limits":
        typ = draw(st.sampled_from([pa.int64(), pa.uint64(), pa.int32(), pa.int8()]))
        info = np.iinfo(typ.to_pandas_dtype())
        v = draw(st.sampled_from([info.min, info.max, 0, 1]))
        return pa.array(np.full(n, v, dtype=typ.to_pandas_dtype()), type=typ), kind
    if kind == "nulls":
        values = [None if k % 7 == 0 else float(k) for k in range(n)]
        return pa.array(values, type=pa.float64()), kind
    typ = _TYPES[kind]
    if kind == "null":
        return pa.nulls(n), kind
    if kind == "string":
        return pa.array([draw(st.sampled_from(["1", "x", ""])) for _ in range(n)]), kind
    if kind == "list":
        return pa.array([[1.0, 2.0]] * n, type=typ), kind
    if kind == "dictionary":
        return pa.array(["a"] * n).dictionary_encode(), kind
    if kind == "bool":
        return pa.array([k % 2 == 0 for k in range(n)]), kind
    if kind == "timestamp":
        return pa.array(np.arange(n, dtype="int64"), type=typ), kind
    if kind == "decimal":
        import decimal

        return pa.array([decimal.Decimal(k) for k in range(n)], type=typ), kind
    if kind == "float16":
        return pa.array(np.arange(n, dtype=np.float16)), kind
    return pa.array(np.arange(n) % 100).cast(typ), kind


@fuzz_settings()
@given(
    data=st.data(),
    column=st.sampled_from(TRUTH_COLUMNS),
    change=st.sampled_from(["type", "drop", "duplicate", "extra", "rows", "metadata"]),
)
def test_a_parquet_truth_log_with_odd_columns(bases, data, column, change):
    table = pq.read_table(bases["truth.parquet"])
    n = table.num_rows
    if change == "type":
        col, _ = data.draw(parquet_column(n))
        table = table.set_column(table.column_names.index(column), column, col)
    elif change == "drop":
        table = table.drop_columns([column])
    elif change == "duplicate":
        table = table.append_column(column, table.column(column))
    elif change == "extra":
        table = table.append_column("extra", pa.array(np.zeros(n)))
    elif change == "rows":
        table = table.slice(0, data.draw(st.sampled_from([0, 1, 2, 3])))
    elif change == "metadata":  # the log's site or start time (JSON text) damaged
        key = data.draw(st.sampled_from([b"navsense.site", b"navsense.start_utc"]))
        meta = dict(table.schema.metadata or {})
        value = meta.get(key, b'{"name": "s", "georeference": {"kind": "acre"}}')
        meta[key] = data.draw(damaged_bytes(value, deep_text=b"["))
        table = table.replace_schema_metadata(meta)
    with scratch() as folder:
        pq.write_table(table, folder / "t.parquet")
        _simulate(folder, "t.parquet")


# ------------------------------------------------------------------- not a regular file
@fuzz_settings(share=0.6)
@given(kind=st.sampled_from(SPECIAL_KINDS), suffix=st.sampled_from([".csv", ".parquet"]))
def test_a_truth_log_that_is_not_a_readable_file(kind, suffix):
    with scratch() as folder:
        path = special_path(folder, kind, suffix)
        _simulate(folder, path.name, must_fail=True)


@fuzz_settings(share=0.6)
@given(kind=st.sampled_from(SPECIAL_KINDS))
def test_a_csv_logs_sidecar_that_is_not_a_readable_file(bases, kind):
    """A ``<stem>.truth.json`` that is no file is refused, not left out (the log's site and
    start time would silently become the defaults)."""
    with scratch() as folder:
        shutil.copy(bases["truth.csv"], folder / "t.csv")
        path = special_path(folder, kind, ".json")
        if kind != "missing":
            path.rename(folder / "t.truth.json")
        _simulate(folder, "t.csv", must_fail=kind != "missing")


def test_the_base_truth_logs_run(bases):
    """The seeds of the damage are valid: a run of each succeeds."""
    for name in ("truth.csv", "truth.parquet"):
        with scratch() as folder:
            shutil.copy(bases[name], folder / name)
            assert _simulate(folder, name).code == 0


@fuzz_settings(share=0.5)
@given(
    rate=st.sampled_from([37.0, 50.0, 100.0, 120.0, 400 / 3, 1000.0, 1999.5, 2000.0, 3000.0]),
    fmt=st.sampled_from(["csv", "parquet"]),
    sidecar=st.booleans(),
    spacing=st.sampled_from(["even", "jitter", "gap", "repeat", "alternate"]),
    physics=st.one_of(st.none(), st.sampled_from(["50", "120", "400/3", "1000", "2000"])),
    data=st.data(),
)
def test_a_truth_log_at_another_rate_or_uneven_with_physics_hz(
    bases, rate, fmt, sidecar, spacing, physics, data
):
    """A truth log at a rate other than 120 Hz (the edges of 50..2000, fractional), its rate
    stated (Parquet metadata, CSV sidecar) or not, its rows evenly spaced or not (a row off by
    a tenth of a step, a gap, a repeat, alternate spacings), with or without a --physics-hz:
    one line and exit 2, or a complete run; a --physics-hz other than the log's rate and a log
    whose rows leave its clock are refused."""
    from conftest import circle_truth
    from navsense.truth.io import write_truth

    n = max(12, int(0.4 * rate))  # 0.4 s
    truth = circle_truth(n, rate_hz=rate)
    t = truth.t_s.copy()
    k = data.draw(st.integers(1, n - 2))
    if spacing == "jitter":
        t[k] += 0.1 / rate
    elif spacing == "gap":
        t[k:] += 1.0 / rate
    elif spacing == "repeat":
        t[k] = t[k - 1]
    elif spacing == "alternate":
        t[1::2] += 0.5 / rate
    physics_hz = {"400/3": 400 / 3}.get(physics) or (None if physics is None else float(physics))
    with scratch() as folder:
        name = f"log.{fmt}"
        write_truth(truth, folder / name)
        if not sidecar:
            (folder / "log.truth.json").unlink(missing_ok=True)
        if fmt == "parquet":  # its times, without its metadata's rate
            table = pq.read_table(folder / name)
            meta = table.schema.metadata or {}
            if not sidecar:
                meta = {k: v for k, v in meta.items() if b"rate" not in k}
            i = table.column_names.index("t_s")
            table = table.set_column(i, "t_s", pa.array(t)).replace_schema_metadata(meta)
            pq.write_table(table, folder / name)
        else:
            with open(folder / name, newline="") as f:
                rows = list(csv.reader(f))
            i = rows[0].index("t_s")
            for row, value in zip(rows[1:], t, strict=True):
                row[i] = repr(float(value))
            with open(folder / name, "w", newline="") as f:
                csv.writer(f, lineterminator="\n").writerows(rows)
        extra = ["--imu-hz", "20", "--gnss-hz", "5", "--set", "ins.hz=20"]  # below any rate
        extra += [] if physics_hz is None else ["--physics-hz", repr(physics_hz)]
        uneven = spacing != "even"  # rows are consecutive physics steps
        other = physics_hz is not None and abs(physics_hz - rate) > 1e-9
        _simulate(folder, name, must_fail=uneven or other, extra=extra)
