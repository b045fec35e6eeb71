"""The run reader's fast paths: a few scalar keys of JSON Lines found in the raw bytes read as
the same bits as Arrow's JSON reader gives, anything else falls back to it; the cache serves a
second request from the first."""

import json
from pathlib import Path

import numpy as np
import orjson
import pytest

from navsense.runs import jsonl as runreader
from navsense.runs import kinds
from navsense.runs import reader as run_reader
from navsense.runs.reader import FLOAT, INT, TEXT, RunReader, vector


def _write(path: Path, rows: list[dict], dumps=orjson.dumps) -> Path:
    path.write_bytes(b"".join(dumps(r) + b"\n" for r in rows))
    return path


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    if a.dtype == object:
        return a.tolist() == b.tolist()
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def _rows(n: int = 3000, seed: int = 1) -> list[dict]:
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        t = i / 120.0
        rows.append(
            {
                "sample_time_s": round(t, 9),
                "available_time_s": round(t + 0.05, 9),
                "count": int(rng.integers(0, 30)),
                "value": float(rng.normal() * 10.0 ** rng.integers(-9, 9)),
                "maybe": None if i % 7 == 0 else float(rng.normal()),
                "maybe_count": None if i % 5 == 0 else int(rng.integers(0, 9)),
                "name": ["no_fix", 'quo"te', "back\\slash", "ünï"][i % 4],
                "fix": {"latitude": 40.0 + rng.normal() * 1e-6, "status": 2},
                "vec": [float(x) for x in rng.normal(size=3)],
            }
        )
    return rows


@pytest.mark.parametrize(
    "spec",
    [
        {"sample_time_s": FLOAT},
        {"value": FLOAT, "count": INT},
        {"maybe": FLOAT},
        {"count": INT, "maybe_count": INT},  # an INT column with nulls: float64 with NaN
        {"name": TEXT},
    ],
)
def test_a_few_scalar_keys_read_as_arrows_bits(tmp_path, spec):
    path = _write(tmp_path / "s.jsonl", _rows())
    fast = runreader._jsonl_top_level_columns(path, spec)
    assert fast is not None  # the fast path took it
    arrow = runreader._jsonl_arrow_columns(path, spec)
    for name in spec:
        assert _same(fast[name], arrow[name]), name


def test_values_written_by_another_serialiser_read_the_same(tmp_path):
    """json.dumps (repr floats, spaces after separators is not used by the writer but a file
    edited by hand may have them): whatever the fast path accepts matches Arrow."""
    path = _write(
        tmp_path / "s.jsonl",
        _rows(500, seed=2),
        dumps=lambda r: json.dumps(r, separators=(",", ":")).encode(),
    )
    spec = {"value": FLOAT, "name": TEXT}
    fast = runreader._jsonl_top_level_columns(path, spec)
    arrow = runreader._jsonl_arrow_columns(path, spec)
    assert fast is not None
    for name in spec:
        assert _same(fast[name], arrow[name]), name


def test_blocks_split_rows_anywhere(tmp_path, monkeypatch):
    monkeypatch.setattr(runreader, "_FAST_BLOCK_BYTES", 997)  # a row split in every block
    path = _write(tmp_path / "s.jsonl", _rows(800))
    path.write_bytes(path.read_bytes().rstrip(b"\n"))  # and no newline after the last row
    spec = {"sample_time_s": FLOAT, "name": TEXT}
    fast = runreader._jsonl_top_level_columns(path, spec)
    assert fast is not None and fast["sample_time_s"].size == 800
    arrow = runreader._jsonl_arrow_columns(path, spec)
    for name in spec:
        assert _same(fast[name], arrow[name]), name


def test_what_the_fast_path_does_not_cover_goes_to_arrow(tmp_path):
    rows = _rows(50)
    path = _write(tmp_path / "s.jsonl", rows)
    fast = runreader._jsonl_top_level_columns
    assert fast(path, {"vec": vector(3)}) is None  # not a scalar
    assert fast(path, {"fix.latitude": FLOAT}) is None  # nested
    assert fast(path, {"a": FLOAT, "b": FLOAT, "c": FLOAT}) is None  # too many keys
    # a key that also occurs deeper in the row
    nested = _write(tmp_path / "n.jsonl", [{**r, "fix": {**r["fix"], "count": 1}} for r in rows])
    assert fast(nested, {"count": INT}) is None
    # a row without the key: Arrow reads it as null
    missing = [dict(r) for r in rows]
    del missing[10]["value"]
    path_m = _write(tmp_path / "m.jsonl", missing)
    assert fast(path_m, {"value": FLOAT}) is None
    # a fraction where an integer is asked for
    assert fast(path, {"maybe": INT}) is None
    # a string where a number is asked for
    text = _write(tmp_path / "t.jsonl", [{**r, "value": "x"} for r in rows])
    assert fast(text, {"value": FLOAT}) is None


def test_the_reader_uses_the_fast_path_and_falls_back(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    (run / "episode.json").write_text('{"output_format": "jsonl"}')
    rows = _rows(300)
    del rows[5]["maybe"]  # the fast path refuses: Arrow's null
    _write(run / "imu.jsonl", rows)
    got = RunReader(run).columns("imu", {"maybe": FLOAT, "sample_time_s": FLOAT})
    assert np.isnan(got["maybe"][5]) and np.isnan(got["maybe"][0])
    assert got["maybe"][1] == rows[1]["maybe"]
    assert got["sample_time_s"][-1] == rows[-1]["sample_time_s"]


def test_the_cache_serves_a_second_request_from_the_first(tmp_path, monkeypatch):
    run = tmp_path / "run"
    run.mkdir()
    (run / "episode.json").write_text('{"output_format": "jsonl"}')
    _write(run / "imu.jsonl", _rows(100))
    reader = RunReader(run, cache=True)
    first = reader.columns("imu", {"sample_time_s": FLOAT, "vec": vector(3)})
    calls = []
    real = run_reader._read_columns
    monkeypatch.setattr(
        run_reader,
        "_read_columns",
        lambda path, spec: (calls.append(dict(spec)), real(path, spec))[1],
    )
    again = reader.columns("imu", {"vec": vector(3), "count": INT})
    assert again["vec"] is first["vec"]
    assert calls == [{"count": INT}]  # only what was not read before
    assert RunReader(run).columns("imu", {"vec": vector(3)})["vec"] is not first["vec"]


def _arrow_arrays():
    import pyarrow as pa

    rng = np.random.default_rng(3)
    floats = rng.normal(size=200) * 10.0 ** rng.integers(-9, 9, size=200)
    ints = rng.integers(-(2**40), 2**40, size=200)
    nulls = rng.random(200) < 0.2
    yield pa.array(floats)
    yield pa.array(floats, mask=nulls)
    yield pa.array(ints)
    yield pa.array(ints, mask=nulls)
    yield pa.array(ints.astype(np.int32) % 1000, type=pa.int32(), mask=nulls)
    yield pa.array(floats, mask=nulls).slice(13, 101)  # an offset into the buffers
    yield pa.array(ints, mask=nulls).slice(7)
    yield pa.array(floats).slice(5, 9)
    lists = pa.array([None if m else [float(x), -float(x), 0.5] for m, x in zip(nulls, floats)])
    yield lists.value_lengths()
    yield lists.slice(3).drop_null().flatten()


@pytest.mark.parametrize("arr", list(_arrow_arrays()))
def test_arrow_buffers_read_as_to_numpys_bits(arr):
    """The reader's buffer conversion (no pandas) gives to_numpy's values, NaN for a null."""
    got = kinds.plain_numpy(arr)
    want = arr.to_numpy(zero_copy_only=False)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()
    assert kinds.validity(arr).tolist() == arr.is_valid().to_pylist()


def test_reading_a_run_does_not_load_pandas(tmp_path):
    """pyarrow's to_numpy and read_table load pandas (0.4-0.8 s of a report); the reader does
    not, in either format."""
    import subprocess
    import sys

    rows = _rows(200)
    for i in range(0, 200, 9):
        rows[i]["vec"] = None
    for fmt in ("jsonl", "parquet"):
        run = tmp_path / fmt
        run.mkdir()
        (run / "episode.json").write_text(json.dumps({"output_format": fmt}))
        if fmt == "jsonl":
            _write(run / "imu.jsonl", rows)
        else:
            import pyarrow as pa
            import pyarrow.parquet as pq

            flat = {
                "sample_time_s": [r["sample_time_s"] for r in rows],
                "maybe_count": [r["maybe_count"] for r in rows],
                **{
                    f"vec.{j}": [None if r["vec"] is None else r["vec"][j] for r in rows]
                    for j in range(3)
                },
            }
            pq.write_table(pa.table(flat), run / "imu.parquet")
        code = (
            "import sys\n"
            "from navsense.runs.reader import RunReader, FLOAT, INT, vector\n"
            f"got = RunReader({str(run)!r}).columns('imu', {{'sample_time_s': FLOAT,"
            " 'maybe_count': INT, 'vec': vector(3)})\n"
            "assert got['vec'].shape == (200, 3)\n"
            "print('pandas' in sys.modules)\n"
        )
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "False", fmt


def test_newlines_are_counted_across_the_counting_blocks(monkeypatch):
    monkeypatch.setattr(runreader, "_COUNT_BYTES", 1000)
    rng = np.random.default_rng(4)
    data = rng.choice(np.frombuffer(b"ab\n{", dtype=np.uint8), size=12_345).tobytes()
    for part in (data, data[:1000], data[:999], data[:1], b""):
        assert runreader._newlines(memoryview(part)) == part.count(b"\n")


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="Linux /proc")
def test_scanned_pages_do_not_stay_in_resident_memory(tmp_path):
    """The fast path maps the file; the pages it has scanned are unmapped block by block, so
    its peak resident memory does not grow by the file (the INS rows of an hour: 355 MB)."""
    import subprocess
    import sys

    path = tmp_path / "long.jsonl"
    pad = "x" * 2000
    with open(path, "wb") as f:  # 24 MB in rows of 2 KB
        for i in range(12_000):
            f.write(orjson.dumps({"sample_time_s": i / 100.0, "pad": pad}) + b"\n")
    code = f"""
import numpy as np
from navsense.runs import jsonl as runreader
from navsense.runs import kinds
from navsense.runs import reader as run_reader
runreader._FAST_BLOCK_BYTES = 1 << 20
def hwm():
    status = dict(line.split(":", 1) for line in open("/proc/self/status"))
    return int(status["VmHWM"].split()[0]) * 1024
before = hwm()
got = runreader._jsonl_top_level_columns({str(path)!r}, {{"sample_time_s": runreader.FLOAT}})
assert got["sample_time_s"][-1] == 119.99
print(hwm() - before)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) < 8 << 20  # without the unmapping: the file's 24 MB
