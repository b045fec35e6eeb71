"""One reader of a run directory: a Parquet run reads, reports, exports and scores as the JSON
Lines run of the same configuration (issue 18, item 4)."""

import json
import math
from pathlib import Path

import numpy as np
import pytest

from navsense.cli import main
from navsense.errors import FormatError
from navsense.output.frames import INS_FIELD_INDEX
from navsense.run import prepare_run
from navsense.runs import Episode
from navsense.runs.export_mcap import write_mcap
from navsense.runs.reader import (
    FLOAT,
    INT,
    TEXT,
    RunReader,
    columns_of_rows,
    vector,
)
from navsense.runs.report import write_report
from navsense.runs.stats import run_statistics

SECONDS = 30.0
GNSS = {
    "sample_time_s": FLOAT,
    "delivery_time_s": FLOAT,
    "fix_type": TEXT,
    "satellites_used": INT,
    "hdop": FLOAT,
    "rtk_lock_age_s": FLOAT,  # null in the first epochs
    "position_enu_m": vector(3),  # null without a fix
    "covariance_enu_m2": vector(9),
    "model.sigma_gm_m": vector(3),  # a vector in an object
    "nmea_gga": TEXT,
}
INS = {"fix.latitude": FLOAT, "imu.orientation_enu_xyzw": vector(4), "odom.zone": INT}


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    """The same 30 s of acre-loop (a cold start: no fix, then fixes) as JSON Lines and as
    Parquet, in folders of the same name (the bag records the folder's name)."""
    base = tmp_path_factory.mktemp("formats")
    out = {}
    for fmt in ("jsonl", "parquet"):
        run = prepare_run(duration_s=SECONDS, overrides={"gnss.start": "cold", "mag.enabled": True})
        out[fmt] = base / fmt / "run"
        run.simulate(out[fmt], output_format=fmt)
    return out


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    if a.dtype == object:
        return a.tolist() == b.tolist()
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def test_both_formats_read_back_as_the_same_bits(runs):
    jsonl, parquet = RunReader(runs["jsonl"]), RunReader(runs["parquet"])
    assert (jsonl.format, parquet.format) == ("jsonl", "parquet")
    for sensor, spec in (("gnss", GNSS), ("ins", INS)):
        a, b = jsonl.columns(sensor, spec), parquet.columns(sensor, spec)
        for name in spec:
            assert _same(a[name], b[name]), (sensor, name)
    gnss = jsonl.columns("gnss", GNSS)
    assert gnss["fix_type"][0] == "no_fix" and np.isnan(gnss["position_enu_m"][0]).all()
    assert np.isfinite(gnss["position_enu_m"][-1]).all()  # nulls and values both seen
    assert gnss["satellites_used"].dtype == np.int64 and gnss["nmea_gga"][0].startswith("$GNGGA")
    for sensor in ("gnss", "imu", "ins", "mag"):
        assert _same(jsonl.times(sensor), parquet.times(sensor)), sensor
        assert jsonl.keys(sensor) == parquet.keys(sensor), sensor
    assert "model.sigma_gm_m" in jsonl.keys("gnss") and "fix.latitude" in jsonl.keys("ins")
    frames_j, times_j = jsonl.ins_epochs()
    frames_p, times_p = parquet.ins_epochs()
    assert _same(frames_j, frames_p) and _same(times_j, times_p) and len(frames_j) == 3001


def test_ins_fields_are_the_frames_columns_and_read_once_with_the_cache(runs, monkeypatch):
    import navsense.runs.ins_frames as frames_module

    asked = []
    real = frames_module.read_ins_fields
    monkeypatch.setattr(
        frames_module,
        "read_ins_fields",
        lambda path, names: asked.append(names) or real(path, names),
    )
    frames, times = RunReader(runs["parquet"]).ins_epochs(("sample_time_s",))
    run = RunReader(runs["parquet"], cache=True)
    got, t = run.ins_fields(["InsUtmE", "InsCovU", "InsUtmE"])
    assert list(got) == ["InsUtmE", "InsCovU"] and t.tobytes() == times.tobytes()
    more, _ = run.ins_fields(["InsCovU", "InsTruthSpeed"])
    assert asked == [["InsUtmE", "InsCovU"], ["InsTruthSpeed"]]  # each field read once
    assert more["InsCovU"] is got["InsCovU"]
    for name, column in {**got, **more}.items():
        assert column.tobytes() == np.ascontiguousarray(frames[:, INS_FIELD_INDEX[name]]).tobytes()


def test_vector_columns_are_read_from_the_lists_offsets_without_pyarrow_compute(runs):
    import subprocess
    import sys

    import pyarrow as pa

    from navsense.runs.kinds import to_numpy as _numpy

    values = pa.array([9.0, 9.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0])
    offsets = pa.array([0, 2, 4, 6, 8, 10], type=pa.int32())
    mask = pa.array([False, False, True, False, False])  # row 2 null, its list [3, 4] not used
    lists = pa.ListArray.from_arrays(offsets, values, mask=mask)
    nan = math.nan
    got = _numpy(lists.slice(1), vector(2), Path("x.jsonl"), "v")  # rows 1 .. 4
    np.testing.assert_array_equal(got, [[1, 2], [nan, nan], [5, 6], [7, 8]])
    got = _numpy(lists.slice(3), vector(2), Path("x.jsonl"), "v")  # rows back to back
    np.testing.assert_array_equal(got, [[5, 6], [7, 8]])
    assert got.flags.writeable
    # the JSON Lines run's vectors (GNSS, IMU) read without loading pyarrow.compute
    code = (
        "import sys; from navsense.runs.reader import RunReader, vector;"
        f"r = RunReader({str(runs['jsonl'])!r});"
        "r.columns('gnss', {'position_enu_m': vector(3), 'covariance_enu_m2': vector(9)});"
        "r.columns('imu', {'specific_force_flu_mps2': vector(3)});"
        "print('pyarrow.compute' in sys.modules)"
    )
    assert (
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout
        == "False\n"
    )


def test_the_statistics_of_a_parquet_run_are_the_jsonl_runs(runs):
    a, b = run_statistics(runs["jsonl"]), run_statistics(runs["parquet"])
    assert list(a) == list(b)
    assert all(x == y or (math.isnan(x) and math.isnan(y)) for x, y in zip(a.values(), b.values()))
    assert a["gnss_epochs"] == 301 and not math.isnan(a["gnss_any_fix_h_rms_m"])


def test_the_bag_of_a_parquet_run_is_the_jsonl_runs(runs):
    bags = {}
    for fmt, run in runs.items():
        bags[fmt] = write_mcap(run, run.parent / "all.mcap", gnss_fix=True, raw_imu=True)
    assert bags["parquet"].read_bytes() == bags["jsonl"].read_bytes()
    assert bags["jsonl"].stat().st_size > 100_000


def test_simulate_format_parquet_with_mcap(runs, tmp_path):
    argv = ["simulate", "--scenario", "acre-loop", "--gnss-start", "cold", "--mag", "--quiet"]
    out = tmp_path / "parquet" / "run"
    assert main([*argv, "--format", "parquet", "--mcap", "--out", str(out)]) == 0
    assert (out / "ins.parquet").is_file() and not (out / "ins.jsonl").exists()
    # the whole 600 s run: its first 30 s of messages are the 30 s run's bag's
    reference = write_mcap(runs["jsonl"], runs["jsonl"].parent / "ins.mcap")
    assert _bag_messages(out / "ros2.mcap", SECONDS) == _bag_messages(reference, SECONDS)


def _bag_messages(path: Path, until_s: float) -> list:
    from mcap.reader import make_reader

    with open(path, "rb") as f:
        reader = make_reader(f)
        first = None
        out = []
        for _, channel, message in reader.iter_messages(log_time_order=True):
            first = message.log_time if first is None else first
            if message.log_time - first <= until_s * 1e9 - 1e8:  # the rows delivered by then
                out.append((channel.topic, message.log_time, message.data))
    return out


def test_the_report_of_a_parquet_run_is_the_jsonl_runs(runs):
    pytest.importorskip("matplotlib")
    pages = {fmt: write_report(run).parent for fmt, run in runs.items()}
    names = sorted(p.name for p in pages["jsonl"].iterdir())
    assert "statistics.json" in names and any(n.endswith(".png") for n in names)
    assert names == sorted(p.name for p in pages["parquet"].iterdir())
    for name in names:
        if name != "report.html":
            assert (pages["jsonl"] / name).read_bytes() == (pages["parquet"] / name).read_bytes()


def test_rows_as_a_stream_delivers_them_give_the_same_columns(runs):
    """columns_of_rows (SensorStream's row dicts) gives the arrays the files read back as."""
    lines = (runs["jsonl"] / "gnss.jsonl").read_text().splitlines()
    rows = [json.loads(line) for line in lines]
    got = columns_of_rows(rows, GNSS)
    read = RunReader(runs["jsonl"]).columns("gnss", GNSS)
    for name in GNSS:
        assert _same(got[name], read[name]), name


def test_errors_name_the_run_the_file_and_the_column(runs, tmp_path):
    with pytest.raises(FormatError, match="not a run directory"):
        RunReader(tmp_path / "nowhere")
    with pytest.raises(FormatError, match=r"not a run directory \(no episode.json\)"):
        RunReader(tmp_path)
    (tmp_path / "episode.json").write_text("[1, 2]")
    with pytest.raises(FormatError, match="episode.json: not a JSON object"):
        Episode.read(tmp_path)
    (tmp_path / "episode.json").write_text(json.dumps({"output_format": "csv"}))
    with pytest.raises(FormatError, match="output_format = 'csv' is not one of jsonl, parquet"):
        RunReader(tmp_path)
    run = RunReader(runs["parquet"])
    assert not run.has("odom")
    with pytest.raises(FormatError, match=r"no odom\.parquet \(odom off\)"):
        run.columns("odom", {"speed_mps": FLOAT})
    with pytest.raises(FormatError, match=r"gnss\.parquet: cannot read the columns .*nope"):
        run.columns("gnss", {"nope": FLOAT})
    with pytest.raises(
        FormatError, match=r"gnss\.jsonl: row 1: model\.sigma_gm_m has not 2 values"
    ):
        RunReader(runs["jsonl"]).columns("gnss", {"model.sigma_gm_m": vector(2)})


def test_simulate_and_export_never_import_matplotlib(runs, tmp_path):
    """matplotlib is the report extra: only the plots need it (issue 17, item 9)."""
    import subprocess
    import sys

    code = (
        "import sys; from navsense.cli import main; "
        f"assert main(['simulate', '--scenario', 'acre-loop', '--out', {str(tmp_path / 'r')!r}, "
        "'--quiet', '--mcap']) == 0; "
        f"assert main(['export', 'mcap', {str(runs['parquet'])!r}, '--out', "
        f"{str(tmp_path / 'b.mcap')!r}]) == 0; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'matplotlib'))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_without_matplotlib_the_report_says_what_to_install(runs, monkeypatch, capsys):
    import importlib.util

    from navsense.errors import DependencyError

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a, **k: None if name == "matplotlib" else real(name, *a, **k),
    )
    with pytest.raises(DependencyError, match=r"pip install 'navsense\[report\]'"):
        write_report(runs["jsonl"])
    assert main(["report", str(runs["jsonl"])]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line == (
        "navsense: error: navsense report draws its plots with matplotlib, which is not "
        "installed: pip install 'navsense[report]'"
    )
