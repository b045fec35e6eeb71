"""Truth-log IO: exact round trips, streaming = whole read, validation messages with line numbers."""

from __future__ import annotations

import re

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import navsense.truth.io as tio
from navsense.errors import TruthError
from navsense.truth import TRUTH_COLUMNS, TruthStates, iter_truth_chunks, read_truth, write_truth
from navsense.truth.io import TruthWriter, read_truth_metadata

HEADER = ",".join(TRUTH_COLUMNS)


def make_truth(n: int = 50, step0: int = 0, seed: int = 7) -> TruthStates:
    """Random truth with awkward floats (thirds, tiny, huge, negative zero) and unit quaternions."""
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(n, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    p = rng.normal(scale=300.0, size=(n, 3))
    p[0] = [1.0 / 3.0, 1e-300, -0.0]
    p[1] = [123456789.12345679, 0.1, 2.5e-7]
    reset = np.zeros(n, dtype=bool)
    reset[[min(3, n - 1), n - 1]] = True
    return TruthStates(
        step0=step0,
        p_m=p,
        q_xyzw=q,
        v_mps=rng.normal(size=(n, 3)),
        w_radps=rng.normal(scale=0.1, size=(n, 3)),
        c_m=p + rng.normal(scale=0.01, size=(n, 3)),
        reset=reset,
    )


def assert_same(a: TruthStates, b: TruthStates) -> None:
    assert a.step0 == b.step0 and len(a) == len(b) and a.rate_hz == b.rate_hz
    for name in ("p_m", "q_xyzw", "v_mps", "w_radps", "c_m", "reset"):
        x, y = getattr(a, name), getattr(b, name)
        assert x.shape == y.shape, name
        assert np.array_equal(x, y), name  # bit-exact values
        if x.dtype.kind == "f":
            assert np.array_equal(np.signbit(x), np.signbit(y)), name  # even -0.0


def csv_rows(truth: TruthStates) -> list[str]:
    cols = np.column_stack(
        [truth.t_s, truth.p_m, truth.q_xyzw, truth.v_mps, truth.w_radps, truth.c_m]
    )
    return [
        ",".join(repr(float(v)) for v in row) + f",{int(r)}" for row, r in zip(cols, truth.reset)
    ]


def write_lines(path, lines: list[str]) -> None:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_round_trip_is_exact(tmp_path, suffix):
    truth = make_truth(60, step0=17)
    path = write_truth(truth, tmp_path / f"truth{suffix}")
    assert_same(read_truth(path), truth)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary left


def test_csv_floats_are_shortest_round_trip(tmp_path):
    truth = make_truth(5)
    path = write_truth(truth, tmp_path / "t.csv")
    lines = path.read_text().splitlines()
    assert lines[0] == HEADER
    first = lines[1].split(",")
    assert float(first[1]) == 1.0 / 3.0 and first[1] == "0.3333333333333333"
    assert first[-1] == "0"


def test_csv_columns_in_any_order(tmp_path):
    truth = make_truth(10)
    order = list(TRUTH_COLUMNS)[::-1]
    rows = csv_rows(truth)
    reordered = [",".join(reversed(r.split(","))) for r in rows]
    path = tmp_path / "rev.csv"
    write_lines(path, [",".join(order)] + reordered)
    assert_same(read_truth(path), truth)


def test_csv_reset_true_false_and_empty_lines(tmp_path):
    truth = make_truth(6)
    rows = csv_rows(truth)
    rows = [
        r[: r.rfind(",")] + ("," + ("true" if x else "false")) for r, x in zip(rows, truth.reset)
    ]
    path = tmp_path / "tf.csv"
    write_lines(path, [HEADER] + rows[:2] + [""] + rows[2:])
    assert_same(read_truth(path), truth)


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
@pytest.mark.parametrize("chunk", [1, 2, 7, 100, 1000, 5000])
def test_chunks_equal_whole_read(tmp_path, monkeypatch, suffix, chunk):
    monkeypatch.setattr(tio, "_CSV_BLOCK_BYTES", 4096)  # many reader blocks
    monkeypatch.setattr(tio, "_PARQUET_BATCH_ROWS", 37)
    truth = make_truth(1234, step0=3)
    path = write_truth(truth, tmp_path / f"t{suffix}")
    whole = read_truth(path)
    parts = list(iter_truth_chunks(path, chunk))
    assert [len(p) for p in parts[:-1]] == [chunk] * (len(parts) - 1)
    assert all(b.step0 == a.step0 + len(a) for a, b in zip(parts, parts[1:]))
    assert_same(TruthStates.concatenate(parts), whole)


def test_a_parquet_log_of_several_batches_reads_whole_into_one_set_of_arrays(tmp_path):
    # 20 000 rows: three of read_truth's batches of 8192, written into arrays of the file's
    # row count (no arrays per batch, no joining)
    truth = make_truth(20_000, step0=5)
    path = write_truth(truth, tmp_path / "t.parquet")
    whole = read_truth(path)
    assert_same(whole, truth)
    for name in ("p_m", "q_xyzw", "v_mps", "w_radps", "c_m", "reset"):
        assert getattr(whole, name).flags.c_contiguous, name
    assert_same(TruthStates.concatenate(list(iter_truth_chunks(path, 3000))), whole)


def test_streaming_memory_does_not_grow_with_the_file(tmp_path, monkeypatch):
    """Arrow memory stays within the reader's read-ahead (~35 blocks) and numpy memory within a
    few chunks, for a file many times larger than either."""
    import tracemalloc

    monkeypatch.setattr(tio, "_CSV_BLOCK_BYTES", 1 << 16)
    big = make_truth(60_000, seed=3)
    path = write_truth(big, tmp_path / "big.csv")
    del big
    size = path.stat().st_size
    base = pa.total_allocated_bytes()
    arrow_peak = 0
    tracemalloc.start()
    try:
        for _chunk in iter_truth_chunks(path, 500):
            arrow_peak = max(arrow_peak, pa.total_allocated_bytes() - base)
        numpy_peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert size > 15e6
    assert arrow_peak < 48 * tio._CSV_BLOCK_BYTES < size / 4
    assert numpy_peak < 2e6 < size / 4


def test_error_at_a_chunk_boundary_names_the_line(tmp_path, monkeypatch):
    monkeypatch.setattr(tio, "_CSV_BLOCK_BYTES", 4096)
    truth = make_truth(400)
    rows = csv_rows(truth)
    fields = rows[250].split(",")
    fields[0] = repr(251 / 120.0)  # a skipped step far past the first block
    rows[250] = ",".join(fields)
    path = tmp_path / "gap.csv"
    write_lines(path, [HEADER] + rows)
    pattern = (
        rf"gap\.csv: line 252: t_s = {re.escape(repr(251 / 120.0))} is not on the 120 Hz "
        rf"physics clock: expected {re.escape(repr(250 / 120.0))} \(step 250\)"
    )
    with pytest.raises(TruthError, match=pattern):
        for _ in iter_truth_chunks(path, 16):
            pass
    with pytest.raises(TruthError, match="line 252"):
        read_truth(path)


def bad_csv(tmp_path, row: int, column: str, text: str, blank_before: bool = False):
    """A valid 10-row CSV with one field replaced (data row ``row``, 0-based)."""
    truth = make_truth(10)
    rows = csv_rows(truth)
    fields = rows[row].split(",")
    fields[TRUTH_COLUMNS.index(column)] = text
    rows[row] = ",".join(fields)
    lines = [HEADER] + rows
    if blank_before:
        lines.insert(1, "")
    path = tmp_path / "bad.csv"
    write_lines(path, lines)
    return path


@pytest.mark.parametrize("read", [read_truth, lambda p: list(iter_truth_chunks(p, 4))])
@pytest.mark.parametrize(
    "row, column, text, pattern",
    [
        (3, "py_m", "abc", r"line 5: py_m = 'abc' is not a number"),
        (3, "qw", "", r"line 5: qw = '' is not a number"),
        (4, "vx_mps", "nan", r"line 6: vx_mps = nan is not a finite number"),
        (4, "cz_m", "-inf", r"line 6: cz_m = -inf is not a finite number"),
        (
            6,
            "t_s",
            "0.0501",
            r"line 8: t_s = 0\.0501 is not on the 120 Hz physics clock: "
            r"expected 0\.05 \(step 6\)",
        ),
        (
            2,
            "qx",
            "0.9",
            r"line 4: quaternion \(qx, qy, qz, qw\) = \(0\.9, .*\) has norm [0-9.]+; "
            r"it must be a unit quaternion",
        ),
        (5, "reset", "2", r"line 7: reset = '2' must be 0 or 1"),
        (5, "reset", "yes", r"line 7: reset = 'yes' must be 0 or 1"),
    ],
)
def test_csv_errors_name_file_line_and_value(tmp_path, read, row, column, text, pattern):
    path = bad_csv(tmp_path, row, column, text)
    with pytest.raises(TruthError, match=r"bad\.csv: " + pattern) as info:
        read(path)
    assert "\n" not in str(info.value)


def test_line_numbers_count_empty_lines(tmp_path):
    path = bad_csv(tmp_path, 4, "vx_mps", "nan", blank_before=True)
    with pytest.raises(TruthError, match="line 7: vx_mps = nan"):
        read_truth(path)


def test_time_must_start_on_the_clock_and_be_consecutive(tmp_path):
    path = bad_csv(tmp_path, 0, "t_s", "0.004")
    with pytest.raises(TruthError, match=r"line 2: t_s = 0\.004 .* expected 0\.0 \(step 0\)"):
        read_truth(path)
    truth = make_truth(10)
    rows = csv_rows(truth)
    rows[5] = rows[4]  # a repeated step
    write_lines(tmp_path / "rep.csv", [HEADER] + rows)
    with pytest.raises(
        TruthError,
        match=r"line 7: t_s = 0\.03333333333333333 .* "
        r"expected 0\.041666666666666664 \(step 5\)",
    ):
        read_truth(tmp_path / "rep.csv")


def test_other_rates(tmp_path):
    truth = TruthStates(**{**make_truth(20).__dict__, "rate_hz": 100.0})
    path = write_truth(truth, tmp_path / "t100.csv")
    assert_same(read_truth(path, rate_hz=100.0), truth)
    # a log runs at its own rate (issue 30): the CSV's sidecar states it
    assert read_truth_metadata(path).rate_hz == 100.0
    assert_same(read_truth(path), truth)
    with pytest.raises(TruthError, match="not on the 120 Hz physics clock"):
        read_truth(path, rate_hz=120.0)


@pytest.mark.parametrize(
    "header, pattern",
    [
        (HEADER.replace(",qw", ""), r"line 1 \(header\): missing column\(s\) qw"),
        (HEADER + ",speed", r"line 1 \(header\): unknown column\(s\) 'speed'"),
        (
            HEADER.replace("px_m", "px"),
            r"line 1 \(header\): missing column\(s\) px_m; unknown column\(s\) 'px'",
        ),
        (HEADER + ",qw", r"line 1 \(header\): repeated column\(s\) qw"),
    ],
)
def test_bad_header(tmp_path, header, pattern):
    path = tmp_path / "h.csv"
    write_lines(path, [header, "0"])
    with pytest.raises(TruthError, match=r"h\.csv: " + pattern + ".*the columns must be t_s, px_m"):
        read_truth(path)


def test_wrong_number_of_values(tmp_path):
    truth = make_truth(8)
    rows = csv_rows(truth)
    rows[2] = rows[2] + ",1.5"
    write_lines(tmp_path / "n.csv", [HEADER] + rows)
    with pytest.raises(TruthError, match=r"line 4: 19 values, expected 18"):
        read_truth(tmp_path / "n.csv")


@pytest.mark.parametrize("read", [read_truth, lambda p: list(iter_truth_chunks(p, 100))])
def test_empty_and_short_files(tmp_path, read):
    (tmp_path / "empty.csv").write_text("")
    with pytest.raises(TruthError, match=r"empty\.csv: the file is empty"):
        read(tmp_path / "empty.csv")
    write_lines(tmp_path / "header.csv", [HEADER])
    with pytest.raises(TruthError, match=r"header\.csv: the truth log has no data rows"):
        read(tmp_path / "header.csv")
    write_lines(tmp_path / "two.csv", [HEADER] + csv_rows(make_truth(2)))
    with pytest.raises(TruthError, match=r"two\.csv: the truth log has 2 row\(s\); at least 3"):
        read(tmp_path / "two.csv")


def test_short_file_fails_before_the_first_chunk(tmp_path):
    write_lines(tmp_path / "two.csv", [HEADER] + csv_rows(make_truth(2)))
    it = iter_truth_chunks(tmp_path / "two.csv", 1)
    with pytest.raises(TruthError, match="2 row"):
        next(it)


def test_parquet_errors_name_the_row(tmp_path):
    truth = make_truth(12)
    path = write_truth(truth, tmp_path / "t.parquet")
    table = pq.read_table(path)
    qx = table.column("qx").to_numpy().copy()
    qx[7] = 2.0
    bad = table.set_column(table.schema.get_field_index("qx"), "qx", pa.array(qx))
    pq.write_table(bad, tmp_path / "q.parquet")
    with pytest.raises(TruthError, match=r"q\.parquet: row 8: quaternion .* has norm 2\.2358"):
        read_truth(tmp_path / "q.parquet")
    with_null = table.set_column(
        table.schema.get_field_index("vy_mps"),
        "vy_mps",
        pa.array([1.0] * 4 + [None] + [1.0] * 7, pa.float64()),
    )
    pq.write_table(with_null, tmp_path / "n.parquet")
    with pytest.raises(TruthError, match=r"n\.parquet: row 5: vy_mps is null"):
        read_truth(tmp_path / "n.parquet")
    reset = table.set_column(
        table.schema.get_field_index("reset"),
        "reset",
        pa.array([0] * 9 + [3] + [0] * 2, pa.int64()),
    )
    pq.write_table(reset, tmp_path / "r.parquet")
    with pytest.raises(TruthError, match=r"r\.parquet: row 10: reset = 3"):
        read_truth(tmp_path / "r.parquet")
    null_reset = table.set_column(
        table.schema.get_field_index("reset"),
        "reset",
        pa.array([False] * 2 + [None] + [False] * 9, pa.bool_()),
    )
    pq.write_table(null_reset, tmp_path / "nr.parquet")
    # what a reset may be, not a number (fuzz, session 15)
    with pytest.raises(TruthError, match=r"nr\.parquet: row 3: reset is null; 0 or 1 \(or true"):
        read_truth(tmp_path / "nr.parquet")
    pq.write_table(table.drop_columns(["cz_m"]), tmp_path / "c.parquet")
    with pytest.raises(TruthError, match=r"c\.parquet: schema: missing column\(s\) cz_m"):
        read_truth(tmp_path / "c.parquet")
    (tmp_path / "junk.parquet").write_bytes(b"not parquet at all")
    with pytest.raises(TruthError, match=r"junk\.parquet: not a Parquet file"):
        read_truth(tmp_path / "junk.parquet")


def test_unknown_suffix_and_missing_file(tmp_path):
    with pytest.raises(TruthError, match=r"unknown truth-log format '\.txt'"):
        write_truth(make_truth(5), tmp_path / "t.txt")
    with pytest.raises(TruthError, match=r"nope\.csv: no such truth log"):
        read_truth(tmp_path / "nope.csv")


def test_failed_write_leaves_nothing(tmp_path):
    path = tmp_path / "out.csv"
    with pytest.raises(RuntimeError):
        with TruthWriter(path) as writer:
            writer.write(make_truth(10))
            raise RuntimeError("simulated crash")
    assert list(tmp_path.iterdir()) == []


def test_writer_appends_consecutive_chunks(tmp_path):
    truth = make_truth(100, step0=4)
    for suffix in (".csv", ".parquet"):
        path = tmp_path / f"w{suffix}"
        with TruthWriter(path) as writer:
            for chunk in truth.chunks(33):
                writer.write(chunk)
        assert_same(read_truth(path), truth)
    with pytest.raises(TruthError, match="expected 37"):
        with TruthWriter(tmp_path / "x.csv") as writer:
            writer.write(truth.slice(0, 33))
            writer.write(truth.slice(34, 50))
    assert not (tmp_path / "x.csv").exists()


def test_csv_with_bom_and_crlf(tmp_path):
    """Files saved by spreadsheet programs: a UTF-8 byte-order mark and CRLF line ends."""
    truth = make_truth(6)
    path = tmp_path / "excel.csv"
    path.write_text("\r\n".join([HEADER] + csv_rows(truth)) + "\r\n", encoding="utf-8-sig")
    assert_same(read_truth(path), truth)


def test_boolean_column_read_from_its_bits_at_any_offset():
    import pyarrow as pa

    from navsense.truth.io import _boolean_values

    values = [bool(v) for v in np.random.default_rng(5).integers(0, 2, 77)]
    array = pa.array(values, type=pa.bool_())
    for start in (0, 3, 8, 13):
        part = array.slice(start, 50)
        assert _boolean_values(part).tolist() == values[start : start + 50]


def test_a_rate_in_the_sidecar_is_named_as_given(tmp_path):
    """A CSV log of 120 Hz rows whose sidecar states rate_hz 120.0001 was refused as 't_s = ...
    is not on the 120 Hz physics clock: expected ...' (the rate printed to 6 digits, the line
    contradicting itself; found by the fuzz helper): now the rate as the sidecar gives it."""
    from conftest import circle_truth

    path = tmp_path / "log.csv"
    write_truth(circle_truth(300), path)
    (tmp_path / "log.truth.json").write_text('{"rate_hz": 120.0001}')
    with pytest.raises(TruthError, match=r"is not on the 120\.0001 Hz physics clock: expected"):
        read_truth(path)


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_a_rate_beyond_a_float_is_refused_in_one_line(tmp_path, suffix):
    """A log whose metadata (or sidecar) states rate_hz as an integer of 400 digits ended in
    'internal error: OverflowError: int too large to convert to float' (found by the third fuzz
    helper); now the line names the value and what is allowed."""
    from conftest import circle_truth

    path = tmp_path / f"log{suffix}"
    write_truth(circle_truth(30), path)
    rate = "1" + "0" * 400
    if suffix == ".csv":
        (tmp_path / "log.truth.json").write_text('{"rate_hz": ' + rate + "}")
    else:
        table = pq.read_table(path)
        meta = {**(table.schema.metadata or {}), b"navsense.rate_hz": rate.encode()}
        pq.write_table(table.replace_schema_metadata(meta), path)
    with pytest.raises(
        TruthError, match=r"rate_hz = 10000000000000000000\.\.\.\(401 digits\) is not a finite"
    ):
        read_truth_metadata(path)
