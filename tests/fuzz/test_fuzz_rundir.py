"""Fuzz: damaged run directories given to ``report``, ``export mcap``, ``allan``,
``navsense.runs.stats.run_statistics`` and ``campaign summary``; campaign files to ``campaign run``."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from fuzz.fuzz_helpers import (
    check_outcome,
    damaged_bytes,
    fuzz_settings,
    json_mutation,
    json_text,
    run_cli,
    scratch,
    tree,
)

RUN_FILES = [
    "episode.json",
    "gnss.jsonl",
    "imu.jsonl",
    "ins.jsonl",
    "ins.frames",
    "gnss.nmea",
    "mag.jsonl",
    "truth.parquet",
]
PARQUET_RUN_FILES = ["episode.json", "gnss.parquet", "imu.parquet", "ins.parquet", "ins.frames"]


@st.composite
def damaged_run(draw, bases):
    """(the run's folder name, {file: new bytes or None (removed) or "dir"}, note)."""
    parquet = draw(st.booleans())
    names = PARQUET_RUN_FILES if parquet else RUN_FILES
    base = bases["run-parquet" if parquet else "run"]
    changes: dict[str, object] = {}
    for _ in range(draw(st.integers(1, 2))):
        name = draw(st.sampled_from(names))
        how = draw(
            st.sampled_from(["bytes", "bytes", "json", "remove", "dir", "row", "special", "column"])
        )
        data = (base / name).read_bytes()
        if how == "bytes":
            changes[name] = draw(damaged_bytes(data, deep_text=b"["))
        elif how == "json" and name == "episode.json":
            doc = draw(json_mutation(json.loads(data)))
            changes[name] = json_text(doc.doc).encode()
        elif how == "row" and name.endswith(".jsonl"):
            lines = data.splitlines()
            i = draw(st.integers(0, len(lines) - 1))
            doc = draw(json_mutation(json.loads(lines[i])))
            lines[i] = json_text(doc.doc).replace("\n", " ").encode()
            changes[name] = b"\n".join(lines) + b"\n"
        elif how == "remove":
            changes[name] = None
        elif how == "dir":
            changes[name] = "dir"
        elif how == "column" and name.endswith((".jsonl", ".parquet")):
            changes[name] = draw(damaged_column(data, name))
        elif how == "special":  # a FIFO, /dev/zero, /dev/null, a symlink loop or to nowhere
            changes[name] = ("special", draw(st.sampled_from(SPECIAL_FILE_KINDS)))
        else:  # a change that does not fit this file: byte damage
            changes[name] = draw(damaged_bytes(data, deep_text=b"["))
    return base, changes


COLUMN_VALUES: list[object] = [None, float("nan"), 1e300, -1.0, -1e12, "x", [], True, 2**70]


@st.composite
def damaged_column(draw, data: bytes, name: str):
    """A rows file (JSON Lines or Parquet) with one column the same bad value in every row (a
    time among them: a null delivery time was an internal error of export mcap)."""
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    value = draw(st.sampled_from(COLUMN_VALUES))
    if name.endswith(".jsonl"):
        rows = [json.loads(line) for line in data.splitlines()]
        keys = [k for k, v in rows[0].items() if not isinstance(v, dict)]
        key = draw(st.sampled_from(sorted(keys)))
        for row in rows:
            row[key] = value
        return ("\n".join(json.dumps(r) for r in rows) + "\n").encode()
    table = pq.read_table(io.BytesIO(data))
    key = draw(st.sampled_from(sorted(table.column_names)))
    n = table.num_rows
    try:
        column = pa.nulls(n) if value is None else pa.array([value] * n)
    except (OverflowError, pa.ArrowInvalid):  # beyond int64: its text
        column = pa.array([repr(value)] * n)
    table = table.set_column(table.column_names.index(key), key, column)
    out = io.BytesIO()
    pq.write_table(table, out)
    return out.getvalue()


def _make_run(folder, base, changes):
    run = folder / "run"
    shutil.copytree(base, run)
    for name, value in changes.items():
        p = run / name
        p.unlink(missing_ok=True)
        if value == "dir":
            p.mkdir()
        elif isinstance(value, tuple):
            _make_special(p, value[1])
        elif value is not None:
            p.write_bytes(value)
    return run


SPECIAL_FILE_KINDS = ["fifo", "zero", "null", "loop", "dangling"]


def _make_special(path, kind: str) -> None:
    """``path`` (absent) made a file that is no regular file (:data:`SPECIAL_FILE_KINDS`)."""
    if kind == "fifo":
        os.mkfifo(path)
    else:
        target = {"zero": "/dev/zero", "null": "/dev/null", "loop": path.name}
        path.symlink_to(target.get(kind, path.parent / "nowhere"))


@fuzz_settings()
@given(data=st.data())
def test_export_mcap_of_a_damaged_run(bases, data):
    base, changes = data.draw(damaged_run(bases))
    with scratch() as folder:
        _make_run(folder, base, changes)
        before = tree(folder)
        outcome = run_cli(["export", "mcap", "run", "--out", "bag.mcap", "--gnss-fix"], folder)
        check_outcome(outcome, before, tree(folder), may_create=("bag.mcap",))


@fuzz_settings()
@given(data=st.data())
def test_run_statistics_of_a_damaged_run(bases, data):
    from navsense.errors import NavsenseError
    from navsense.runs.stats import run_statistics

    base, changes = data.draw(damaged_run(bases))
    with scratch() as folder:
        run = _make_run(folder, base, changes)
        try:
            stats = run_statistics(run)
        except NavsenseError as exc:
            assert "\n" not in str(exc), str(exc)
            return
        assert isinstance(stats, dict)


@fuzz_settings(share=0.3)
@given(data=st.data())
def test_report_of_a_damaged_run(bases, data):
    base, changes = data.draw(damaged_run(bases))
    with scratch() as folder:
        _make_run(folder, base, changes)
        before = tree(folder)
        outcome = run_cli(["report", "run"], folder)
        after = tree(folder)
        if outcome.code == 0:  # the report folder is its output
            after = {k: v for k, v in after.items() if not k.startswith("run/report")}
        check_outcome(outcome, before, after)


@fuzz_settings(share=0.3)
@given(data=st.data())
def test_allan_of_a_damaged_run(bases, data):
    """navsense allan (issue 30 item 4): one line and exit 2, or its table and CSV."""
    base, changes = data.draw(damaged_run(bases))
    with scratch() as folder:
        _make_run(folder, base, changes)
        before = tree(folder)
        outcome = run_cli(["allan", "run", "--out", "allan.csv"], folder)
        after = tree(folder)
        if outcome.code == 0:  # the table is its output
            after = {k: v for k, v in after.items() if k != "allan.csv"}
        check_outcome(outcome, before, after)


@pytest.fixture(scope="module")
def long_run(tmp_path_factory):
    """A run long enough for navsense allan (25 s standing still, the IMU alone at 20 Hz: 500
    rows), made with relative paths so its bytes are the same in every session."""
    import contextlib

    from conftest import stationary_truth
    from navsense.cli import main
    from navsense.truth.io import write_truth

    base = tmp_path_factory.mktemp("fuzz-allan")
    write_truth(stationary_truth(3000), base / "still.csv")
    with contextlib.chdir(base):
        argv = ["simulate", "--truth", "still.csv", "--no-gnss", "--no-ins", "--quiet"]
        assert main([*argv, "--imu-hz", "20", "--workers", "threads", "--out", "run"]) == 0
    return base / "run"


@st.composite
def damaged_imu_rows(draw, data: bytes):
    """(imu.jsonl with rows missing, repeated, swapped, blank or cut, or one value changed;
    whether allan must refuse it: rows missing from the middle, repeated or out of order)."""
    lines = data.splitlines()
    n = len(lines)
    i = draw(st.integers(0, n - 1))
    j = draw(st.integers(i, min(n, i + draw(st.sampled_from([1, 2, 50, 400])))))
    how = draw(st.sampled_from(["drop", "repeat", "swap", "blank", "cut", "value", "time"]))
    must_fail = False
    if how == "drop":
        del lines[i:j]
        must_fail = i > 0 and j < n and j - i >= 10  # 2 % of the 500 rows: the rate 2 % off
    elif how == "repeat":
        lines[i:i] = lines[i:j]
        must_fail = j > i
    elif how == "swap":
        lines[i], lines[j - 1] = lines[j - 1], lines[i]
        must_fail = j - 1 > i
    elif how == "blank":
        lines[i:j] = [b""] * (j - i)
    elif how == "cut":
        lines = lines[:i] + [lines[i][: draw(st.integers(0, len(lines[i])))]]
    else:
        row = json.loads(lines[i])
        value = draw(st.sampled_from([*COLUMN_VALUES, 0.0, 1e-300, 1e17]))
        if how == "time":
            row["sample_time_s"] = value
        else:
            key = draw(st.sampled_from(["angular_velocity_flu_radps", "specific_force_flu_mps2"]))
            row[key][draw(st.integers(0, 2))] = value
        lines[i] = json.dumps(row).encode()
    return b"\n".join(lines) + b"\n", must_fail


@fuzz_settings(share=0.3)
@given(data=st.data())
def test_allan_of_a_long_run_with_damaged_imu_rows(long_run, data):
    """navsense allan of a run long enough to be read (the base runs are 2 s: refused before
    their rows are), its IMU rows damaged, with --plot and --out: one line and exit 2, or the
    table, the plot and the CSV. Found: 300 rows missing ran to a table read at the wrong
    rate."""
    damaged, must_fail = data.draw(damaged_imu_rows((long_run / "imu.jsonl").read_bytes()))
    plot = data.draw(st.sampled_from(["a.png", "run/a.png", "run/imu.jsonl", "run/episode.json"]))
    force = data.draw(st.booleans())
    with scratch() as folder:
        _make_run(folder, long_run, {"imu.jsonl": damaged})
        before = tree(folder)
        argv = ["allan", "run", "--plot", plot, "--out", "a.csv", *(["--force"] if force else [])]
        outcome = run_cli(argv, folder)
        after = tree(folder)
        if outcome.code == 0:  # the table and the plot are its output
            after = {k: v for k, v in after.items() if k not in ("a.csv", plot)}
        # a file the run is read from is never replaced (with --force it was, by the plot)
        reads = plot in ("run/imu.jsonl", "run/episode.json")
        check_outcome(outcome, before, after, must_fail=must_fail or reads)


@fuzz_settings()
@given(data=st.data())
def test_campaign_summary_of_a_damaged_campaign(bases, data):
    base = bases["campaign-dir"]
    files = sorted(p.relative_to(base) for p in base.rglob("*") if p.is_file())
    with scratch() as folder:
        camp = folder / "c"
        shutil.copytree(base, camp)
        for _ in range(data.draw(st.integers(1, 2))):
            rel = data.draw(st.sampled_from(files))
            target = camp / rel
            how = data.draw(st.sampled_from(["bytes", "json", "remove", "special"]))
            if how == "remove":
                target.unlink(missing_ok=True)
            elif how == "special":
                target.unlink(missing_ok=True)
                _make_special(target, data.draw(st.sampled_from(SPECIAL_FILE_KINDS)))
            elif target.is_symlink() or not target.is_file():  # removed or made special before
                continue
            elif how == "json" and rel.suffix == ".json":
                try:
                    doc = data.draw(json_mutation(json.loads(target.read_bytes())))
                except (ValueError, OSError, RecursionError):  # damaged by an earlier draw
                    continue
                target.write_text(json_text(doc.doc), encoding="utf-8")
            else:
                target.write_bytes(data.draw(damaged_bytes(target.read_bytes(), b"[")))
        before = tree(folder)
        outcome = run_cli(["campaign", "summary", "c"], folder)
        after = tree(folder)
        if outcome.code == 0:  # it rewrites its own tables; nothing else changes
            tables = ("summary.parquet", "summary.csv", "statistics.parquet")
            before = {k: v for k, v in before.items() if not k.endswith(tables)}
            after = {k: v for k, v in after.items() if not k.endswith(tables)}
        check_outcome(outcome, before, after)


# ------------------------------------------------------------------------ campaign files
@fuzz_settings()
@given(data=st.data(), fmt=st.sampled_from(["json", "toml"]))
def test_a_campaign_file_damaged_or_changed(bases, data, fmt):
    from navsense.campaign.spec import load_campaign
    from navsense.errors import NavsenseError

    repeated_key = False
    if fmt == "toml" or data.draw(st.booleans()):
        name = f"campaign.{fmt}"
        damaged = data.draw(damaged_bytes(bases[name].read_bytes(), deep_text=b"["))
        repeated_key = damaged.repeated_key
    else:
        doc = data.draw(json_mutation(json.loads(bases["campaign.json"].read_text())))
        damaged = json_text(doc.doc).encode()
    with scratch() as folder:
        shutil.copy(bases["truth.csv"], folder / "truth.csv")
        path = folder / f"c.{fmt}"
        path.write_bytes(damaged)
        try:
            runs = len(load_campaign(path).runs)
        except NavsenseError:
            runs = 0
        assume(runs <= 4)  # a valid campaign of many runs is not the point here
        before = tree(folder)
        outcome = run_cli(
            ["campaign", "run", path.name, "--out", "out", "--workers", "0", "--quiet"], folder
        )
        after = tree(folder)
        if outcome.code == 1:  # some runs failed: their messages, one line each
            assert "Traceback" not in outcome.err and "internal error" not in outcome.err
            return
        check_outcome(outcome, before, after, may_create=("out",), must_fail=repeated_key)


def _toml_value(value) -> str:
    """A JSON value as TOML (an object as an inline table; TOML has no null)."""
    if isinstance(value, dict):
        return (
            "{" + ", ".join(f"{json.dumps(k)} = {_toml_value(v)}" for k, v in value.items()) + "}"
        )
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return json.dumps(value)


#: keys of the runs' physics clock and of the newer features, with values at their edges
CAMPAIGN_KEYS = {
    "physics.hz": [50, 120, 240, 2000],
    "imu.hz": [50, 120, 400],
    "imu.vibration.preset": ["none", "car_paved_road", "mil_std_810h_cwv"],
    "imu.vibration.random_band_hz": [[1, 20], [0.1, 0.10000001], [59.9, 59.99999], [5, 500]],
    "imu.vibration.random_rms_g": [[0, 0, 0], [0.1, 0.1, 0.1]],
    "imu.configurable.bandwidth_hz": [0, 1e-9, 10, 59.95, 900],
    "imu.model": ["acres", "configurable"],
    "gnss.heading.baseline_m": [0, 1e-300, 1],
    "gnss.hz": [1, 100, 500],
}


@fuzz_settings(share=0.5)
@given(
    source=st.sampled_from([{"truth": "truth.csv"}, {"scenario": "acre-loop", "duration_s": 0.5}]),
    overrides=st.sets(st.sampled_from(sorted(CAMPAIGN_KEYS)), max_size=2),
    data=st.data(),
    grid_key=st.sampled_from(sorted(CAMPAIGN_KEYS)),
    fmt=st.sampled_from(["json", "toml"]),
)
def test_a_campaign_its_check_accepts_runs_every_run(bases, source, overrides, data, grid_key, fmt):
    """A campaign whose overrides and sweep set the physics clock and the newer features' keys
    at their edges: refused before the first run, or every run succeeds (a campaign the file's
    check accepts never fails its runs on its configuration). Found: physics.hz over a truth
    log at another rate, and imu.vibration.preset in a sweep, passed the check and every run
    failed."""
    from navsense.campaign.spec import load_campaign
    from navsense.errors import NavsenseError

    over = {k: data.draw(st.sampled_from(CAMPAIGN_KEYS[k])) for k in sorted(overrides)}
    values = data.draw(st.lists(st.sampled_from(CAMPAIGN_KEYS[grid_key]), min_size=1, max_size=2))
    doc = {
        "name": "f",
        "seeds": [1],
        "sources": [source],
        "overrides": over,
        "sweep": {"grid": {grid_key: values}},
    }
    if fmt == "json":
        text = json.dumps(doc)
    else:
        text = 'name = "f"\nseeds = [1]\n\n[[sources]]\n' + "".join(
            f"{k} = {_toml_value(v)}\n" for k, v in source.items()
        )
        text += "\n[overrides]\n" + "".join(f'"{k}" = {_toml_value(v)}\n' for k, v in over.items())
        text += f'\n[sweep.grid]\n"{grid_key}" = {_toml_value(values)}\n'
    with scratch() as folder:
        shutil.copy(bases["truth.csv"], folder / "truth.csv")
        path = folder / f"c.{fmt}"
        path.write_text(text, encoding="utf-8")
        try:
            load_campaign(path)
            accepted = True
        except NavsenseError:
            accepted = False
        before = tree(folder)
        outcome = run_cli(
            ["campaign", "run", path.name, "--out", "out", "--workers", "0", "--quiet"], folder
        )
        after = tree(folder)
        assert outcome.code == (0 if accepted else 2), outcome.describe()
        check_outcome(outcome, before, after, may_create=("out",))


@fuzz_settings()
@given(
    count=st.sampled_from([10**6, 10**9, 10**12, 2**63, 10**30]),
    start=st.sampled_from([0, 1, 2**31 - 1, 2**32]),
    as_list=st.booleans(),
)
def test_a_campaign_of_too_many_runs_is_refused_at_once(bases, count, start, as_list):
    with scratch() as folder:
        shutil.copy(bases["truth.csv"], folder / "truth.csv")
        seeds = list(range(200_000)) if as_list else {"start": start, "count": count}
        doc = {"seeds": seeds, "sources": [{"truth": "truth.csv"}]}
        (folder / "c.json").write_text(json.dumps(doc), encoding="utf-8")
        before = tree(folder)
        outcome = run_cli(
            ["campaign", "run", "c.json", "--out", "out", "--workers", "0", "--quiet"],
            folder,
            timeout_s=20.0,
        )
        check_outcome(outcome, before, tree(folder), must_fail=True)


def test_the_bases_do_not_record_their_folder(bases):
    """The examples are drawn from the bases' bytes: no file of theirs names this session's
    temporary folder or host (the derandomized examples are then the same on every machine)."""
    import socket

    folder = next(iter(bases.values())).parent
    marks = [str(folder).encode(), f'"{socket.gethostname()}:'.encode()]
    files = [p for p in folder.rglob("*") if p.is_file()]
    assert len(files) > 20
    for path in files:
        data = path.read_bytes()
        for mark in marks:
            assert mark not in data, (path, mark)
