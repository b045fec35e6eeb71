"""output.parquet writes the bytes pyarrow's writer writes (navsense.output.parquet_encode):
the same file, byte for byte, for every kind of column the sensors have and the ones they might
(nulls in runs and scattered, all null, strings of one and of several lengths, strings past a
page, booleans, int32, float32), at every row count around the row groups and the RLE groups,
and chunks of any size."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from navsense.output import parquet_encode as encode
from navsense.output.parquet import ROW_GROUP_ROWS, ParquetWriter


def _pyarrow_file(tables: list, path) -> bytes:
    """The file as pyarrow's ParquetWriter writes it (the writer before parquet_encode)."""
    table = pa.concat_tables(tables)
    writer = pq.ParquetWriter(path, tables[0].schema, **encode.WRITER_OPTIONS)
    for start in range(0, table.num_rows, ROW_GROUP_ROWS):
        writer.write_table(table.slice(start, ROW_GROUP_ROWS), row_group_size=ROW_GROUP_ROWS)
    writer.close()
    return path.read_bytes()


def _ours(tables: list, path) -> bytes:
    with ParquetWriter(path) as writer:
        for table in tables:
            writer.write_table(table)
    return path.read_bytes()


def _chunks(table, sizes):
    out, start = [], 0
    for size in sizes:
        if start >= table.num_rows:
            break
        out.append(table.slice(start, size))
        start += size
    if start < table.num_rows:
        out.append(table.slice(start))
    return out


def _assert_same(tmp_path, table, sizes=(10_000,)):
    chunks = _chunks(table, list(sizes) * (table.num_rows // max(1, sum(sizes)) + 2))
    for name in ("pyarrow.parquet", "ours.parquet"):
        (tmp_path / name).unlink(missing_ok=True)
    expected = _pyarrow_file(chunks, tmp_path / "pyarrow.parquet")
    got = _ours(chunks, tmp_path / "ours.parquet")
    assert got == expected
    assert pq.read_table(tmp_path / "ours.parquet").equals(table.combine_chunks())


def _valid(kind: str, n: int, rng) -> np.ndarray:
    if kind == "none":
        return np.ones(n, dtype=bool)
    if kind == "runs":  # no-fix spells, as a GNSS receiver's
        valid = np.ones(n, dtype=bool)
        for start in rng.integers(0, n, size=6):
            valid[start : start + int(rng.integers(1, 400))] = False
        return valid
    if kind == "groups":  # every 8-group mixed: literal runs past 63 groups
        return (np.arange(n) % 8) < 4
    if kind == "scattered":  # more changes than MAX_LEVEL_RUNS: pyarrow's chunk
        return rng.random(n) < 0.7
    if kind == "short":  # runs of 1 .. 17 around the groups of 8
        lengths = np.resize(np.arange(1, 18), n)
        return np.repeat(np.arange(len(lengths)) % 2 == 0, lengths)[:n]
    return np.zeros(n, dtype=bool)  # all null


def _table(n: int, nulls: str, seed: int = 1):
    rng = np.random.default_rng(seed)
    valid = _valid(nulls, n, rng)
    mask = ~valid
    names = ["FK5", "ITRF", "a", ""]
    return pa.table(
        {
            "t": pa.array(np.arange(n) / 120.0),
            "x": pa.array(rng.normal(size=n), mask=mask),
            "k": pa.array(rng.integers(-(2**62), 2**62, size=n), mask=mask),
            "frame": pa.array(["enu"] * n),
            "fix": pa.array([names[i % 4] for i in range(n)]),
            "flag": pa.array(rng.random(n) < 0.5),
            "i32": pa.array(rng.integers(0, 9, size=n).astype(np.int32)),
            "f32": pa.array(rng.normal(size=n).astype(np.float32), mask=mask),
            "s": pa.array([None if m else "x" * 3 for m in mask], pa.string()),
        }
    )


@pytest.mark.parametrize("nulls", ["none", "runs", "groups", "scattered", "short", "all"])
@pytest.mark.parametrize("n", [1, 7, 8, 9, 517, ROW_GROUP_ROWS, ROW_GROUP_ROWS + 3, 40_000])
def test_the_same_bytes_as_pyarrow(tmp_path, n, nulls):
    _assert_same(tmp_path, _table(n, nulls))


@pytest.mark.parametrize("sizes", [(1,), (973, 1000, 1), (16_383,), (16_385, 7)])
def test_any_chunks_give_the_same_bytes(tmp_path, sizes):
    _assert_same(tmp_path, _table(20_000, "runs", seed=4), sizes)


def test_levels_at_every_tail_and_run_length(tmp_path):
    """Definition levels: a run of nulls of every length 1 .. 20 at every offset mod 8."""
    columns = {}
    for length in range(1, 21):
        for offset in range(8):
            valid = np.ones(64 + length, dtype=bool)
            valid[offset + 16 : offset + 16 + length] = False
            columns[f"run{length}_{offset}"] = pa.array(
                np.arange(len(valid), dtype=np.float64), mask=~valid
            ).slice(0, 40 + offset)
    for name, array in columns.items():
        table = pa.table({name: array})
        _assert_same(tmp_path, table, (len(array),))


def test_a_string_column_past_a_page_goes_to_pyarrow_in_the_same_bytes(tmp_path):
    n = ROW_GROUP_ROWS + 10
    text = [f"$GPGGA,{i:06d}," + "x" * (70 + i % 5) for i in range(n)]
    table = pa.table({"nmea": pa.array(text), "v": pa.array(np.arange(n, dtype=np.float64))})
    _assert_same(tmp_path, table, (1_000,))


def test_no_rows_writes_an_empty_table(tmp_path):
    path = tmp_path / "empty.parquet"
    with ParquetWriter(path) as writer:
        writer.write_table(pa.table({"x": pa.array([], pa.float64())}))
    assert pq.read_table(path).num_rows == 0


def test_levels_encoder_runs():
    """_levels against the RLE/bit-packed hybrid read back by pyarrow (the file tests compare
    bytes); here its shape: one run of n present values, and None past MAX_LEVEL_RUNS."""
    assert encode._present(16384) == b"\x04\x00\x00\x00\x80\x80\x02\x01"
    alternating = (np.arange(2 * encode.MAX_LEVEL_RUNS + 4) % 2).astype(np.uint8)
    assert encode._levels(alternating, len(alternating)) is None


def test_which_columns_are_encoded_here():
    """The comparisons above go through this module's encoder for these columns (not all
    through pyarrow): float64 and int64 with or without nulls, strings of one length."""
    table = _table(ROW_GROUP_ROWS, "runs").combine_chunks()
    codec = pa.Codec("snappy")
    here = {
        name: encode.encode_chunk(table.column(name).chunks, name.encode(), codec) is not None
        for name in table.column_names
    }
    assert here == {
        "t": True,
        "x": True,
        "k": True,
        "frame": True,
        "fix": False,
        "flag": False,
        "i32": False,
        "f32": False,
        "s": False,
    }
