"""One regression test per class of bad input of issue 21 (the fuzz suite, tests/fuzz, tries
many more): each ends in one line on stderr and exit 2, no traceback, nothing left behind."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

from conftest import open_sky_circle
from fuzz.fuzz_helpers import memory_cap, time_limit
from navsense.cli import main
from navsense.errors import NavsenseError
from navsense.truth.io import write_truth


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("bad-input")
    write_truth(open_sky_circle(240), folder / "truth.csv")
    write_truth(open_sky_circle(240), folder / "truth.parquet")
    args = ["--quiet", "--workers", "threads", "--save-truth"]
    assert (
        main(
            ["simulate", "--truth", str(folder / "truth.csv"), "--out", str(folder / "run"), *args]
        )
        == 0
    )
    return folder


def _fails_in_one_line(capsys, argv, cwd: Path | None = None, words: str = "") -> str:
    before = _listing(cwd) if cwd else None
    with time_limit(60), memory_cap():  # a hang or a MemoryError fails the test, not the machine
        code = main([str(a) for a in argv])
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert code == 2, err
    assert len(lines) == 1 and lines[0].startswith("navsense"), err
    assert "internal error" not in err and "Traceback" not in err, err
    assert words in lines[0], err
    if cwd is not None:
        assert _listing(cwd) == before, "a failed command left something behind"
    return lines[0]


def _listing(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def _simulate(folder: Path, truth: Path, *options) -> list:
    return [
        "simulate",
        "--truth",
        truth,
        "--out",
        folder / "out",
        "--quiet",
        "--workers",
        "threads",
        *options,
    ]


# 1. damaged run directories -------------------------------------------------------------
@pytest.mark.parametrize(
    "name, damage",
    [
        ("episode.json", b'{"navsense_version": "0.1", "conf'),
        ("episode.json", b"[" * 100_000),
        ("episode.json", b"\xff\xfe\x00{"),
        ("gnss.jsonl", b'{"sample_time_s": 0.0, "fix_t'),
        ("ins.jsonl", b"not json at all\n"),
        ("imu.jsonl", None),
        ("truth.parquet", b"PAR1\x00\x00PAR1"),
    ],
)
def test_a_damaged_run_directory(tmp_path, base, capsys, name, damage):
    from navsense.runs.stats import run_statistics

    run = tmp_path / "run"
    shutil.copytree(base / "run", run)
    if damage is None:
        (run / name).unlink()
    else:
        (run / name).write_bytes(damage)
    commands = [["export", "mcap", run, "--out", tmp_path / "b.mcap", "--gnss-fix", "--raw-imu"]]
    if name != "truth.parquet":  # the report notes an unreadable truth and goes on without it
        commands.append(["report", run])
    for argv in commands:
        _fails_in_one_line(capsys, argv, tmp_path)
    if name != "imu.jsonl":  # the statistics do not read the IMU
        with pytest.raises(NavsenseError):
            run_statistics(run)


@pytest.mark.parametrize(
    "key, value",
    [("ins", [1, 2]), ("config", [1]), ("site", "acre"), ("physics_hz", "120"), ("seed", 1.5)],
)
def test_an_episode_value_of_the_wrong_kind(tmp_path, base, capsys, key, value):
    """Found by the fuzz suite: episode.json's ins = [..] was an AttributeError inside
    run_statistics. Episode.read checks the values every reader uses (runs.episode_check)."""
    from navsense.runs.stats import run_statistics

    run = tmp_path / "run"
    shutil.copytree(base / "run", run)
    episode = json.loads((run / "episode.json").read_text())
    episode[key] = value
    (run / "episode.json").write_text(json.dumps(episode))
    with pytest.raises(NavsenseError, match=f"episode.json: {key} = "):
        run_statistics(run)
    _fails_in_one_line(capsys, ["report", run], tmp_path, key)
    _fails_in_one_line(capsys, ["export", "mcap", run, "--out", tmp_path / "b.mcap"], tmp_path, key)


# 2. site files --------------------------------------------------------------------------
@pytest.mark.parametrize(
    "site, words",
    [
        ({"name": "s", "buildings": [[{"min_enu_m": [0, 0, 0]}]]}, "buildings[0]"),
        ({"name": "s", "grain_bins": {"a": 1}}, "grain_bins"),
        ({"name": "s", "georeference": None}, "no georeference"),
        (
            {"name": "s", "georeference": {"kind": "local", "lat_deg": 40, "lon_deg": 540}},
            "lon_deg",
        ),
        (
            {"name": "s", "georeference": {"kind": "local", "lat_deg": 48.1, "lon_deg": 150.0}},
            "UTM",
        ),
        # a key an object does not have (a typo was a default taken silently)
        (
            {"georeference": {"kind": "local", "lat_deg": 40.5, "lon_deg": -87, "height": 9}},
            "s.json: georeference.height is not a known key; allowed: kind, lat_deg, lon_deg, "
            "height_m",
        ),
        ({"georeference": {"kind": "acre", "datum": "nad83"}}, "georeference.datum is not a"),
        # the kind's own value, not the whole georeference object (the fuzz helper's note)
        (
            {"georeference": {"kind": "utm", "lat_deg": 48.4, "lon_deg": 11.7}},
            's.json: georeference.kind = "utm" is not one of acre, local',
        ),
        ({"georeference": {"lat_deg": 48.4}}, "s.json: georeference.kind = null is not one of"),
        ({"georeference": "acre"}, 's.json: georeference = "acre" is not an object; allowed: '),
        (
            {"buildings": [{"min_enu_m": [0, 0, 0], "max_enu_m": [1, 1, 1], "bse_m": 0.5}]},
            "buildings[0].bse_m is not a known key; allowed: name, min_enu_m, max_enu_m, base_m",
        ),
        (
            {"grain_bins": [{"center_enu_m": [9, 9], "radius_m": 2, "heigth_m": 5}]},
            "grain_bins[0].heigth_m is not a known key",
        ),
        (
            {"tree_crowns": [{"center_enu_m": [9, 9, 9], "radius_m": 2, "kind": "oak"}]},
            "tree_crowns[0].kind is not a known key; allowed: name, center_enu_m, radius_m",
        ),
    ],
)
def test_a_bad_site_file(tmp_path, base, capsys, site, words):
    """The last: a site far from the INS's UTM zone (16, set in a configuration file)."""
    (tmp_path / "s.json").write_text(json.dumps(site))
    (tmp_path / "c.json").write_text(json.dumps({"ins": {"utm_zone": 16}}))
    for workers in ("threads", "processes"):
        argv = _simulate(
            tmp_path,
            base / "truth.csv",
            "--site",
            tmp_path / "s.json",
            "--config",
            tmp_path / "c.json",
        )
        argv[argv.index("--workers") + 1] = workers
        _fails_in_one_line(capsys, argv, tmp_path, words)


# 3. tracks and waypoints at the edges ----------------------------------------------------
@pytest.mark.parametrize(
    "name, text, options",
    [
        ("t.csv", "x_m,y_m,z_m,t_s\n0,0,0,0\n1,0,0,1e-6\n2,1,0,2e-6\n3,0,0,3e-6\n", ()),
        ("t.csv", "x_m,y_m,z_m,t_s\n0,0,0,0\n1,0,0,1\n2,1,0,2\n3,0,0,31536000\n", ()),
        ("t.csv", "x_m,y_m,z_m,t_s\n0,0,0,0\n1e300,0,0,1\n2,1,0,2\n3,0,0,3\n", ()),
        (
            "t.csv",
            "x_m,y_m,z_m,t_s\n0,0,0,0\n1,0,0,1\n2,1,0,2\n3,0,0,3\n4,1,0,4\n",
            ("--smoothing-m", "1e-300"),
        ),
        (
            "t.json",
            json.dumps(
                {"points": [{"enu_m": [0, 0, 0]}, {"enu_m": [30, 0, 0], "speed_mps": 1e-9}]}
            ),
            (),
        ),
        (
            "t.json",
            json.dumps({"points": [{"enu_m": [0, 0, 0]}, {"enu_m": [1e9, 0, 0], "speed_mps": 5}]}),
            (),
        ),
        ("t.json", json.dumps({"vehicle": ["polaris"], "points": []}), ()),
    ],
)
def test_a_track_at_the_edges(tmp_path, capsys, name, text, options):
    (tmp_path / name).write_text(text)
    _fails_in_one_line(
        capsys,
        ["truth", "--track", tmp_path / name, "--out", tmp_path / "o.parquet", *options],
        tmp_path,
    )


@pytest.mark.parametrize("value", ["1e308", "5.01", "inf"])
def test_a_stop_speed_above_a_walking_pace_is_refused(tmp_path, capsys, value):
    """truth --stop-speed-mps 1e308 held the heading of the whole drive and made it one
    standstill, exit 0 (session 13's note): the threshold is 0 .. 5 m/s."""
    (tmp_path / "t.csv").write_text("x_m,y_m,z_m,t_s\n0,0,0,0\n10,0,0,1\n20,5,0,2\n30,0,0,3\n")
    argv = ["truth", "--track", tmp_path / "t.csv", "--out", tmp_path / "o.parquet"]
    line = _fails_in_one_line(capsys, [*argv, "--stop-speed-mps", value], tmp_path)
    assert line.startswith("navsense: error: stop_speed_mps = "), line
    assert main([str(a) for a in [*argv, "--stop-speed-mps", "5"]]) == 0, capsys.readouterr().err


# 4. truth logs ---------------------------------------------------------------------------
def _columns(path: Path) -> dict:
    table = pacsv.read_csv(path)
    return {n: table.column(n).to_numpy().copy() for n in table.column_names}


@pytest.mark.parametrize(
    "case", ["t0 1e17", "value 1e300", "jump 1000 km", "int64 min", "damaged page", "speed 1e6"]
)
def test_a_bad_truth_log(tmp_path, base, capsys, case):
    cols = _columns(base / "truth.csv")
    path = tmp_path / "t.parquet"
    if case == "t0 1e17":
        cols["t_s"] = (np.float64(round(1e17 * 120)) + np.arange(240)) / 120.0
    elif case == "value 1e300":
        cols["vx_mps"][5] = 1e300
    elif case == "jump 1000 km":
        cols["px_m"][100:] += 1e6
        cols["cx_m"][100:] += 1e6
    elif case == "speed 1e6":
        cols["vy_mps"][:] = 1e6
    table = pa.table(cols)
    if case == "int64 min":
        table = table.set_column(1, "px_m", pa.array(np.full(240, np.iinfo(np.int64).min)))
    pq.write_table(table, path)
    if case == "damaged page":
        data = bytearray(path.read_bytes())
        data[200:260] = b"\xff" * 60
        path.write_bytes(bytes(data))
    for workers in ("threads", "processes"):
        argv = _simulate(tmp_path, path)
        argv[argv.index("--workers") + 1] = workers
        _fails_in_one_line(capsys, argv, tmp_path)


# 5. text files that are not what they claim ------------------------------------------------
@pytest.mark.parametrize("encoding", ["utf-16", "latin-1", "binary", "deep", "bom"])
@pytest.mark.parametrize(
    "kind",
    [
        "config",
        "site",
        "route",
        "campaign.toml",
        "campaign.json",
        "gpx",
        "track.csv",
        "truth.csv",
        "geo.csv",
    ],
)
def test_a_text_file_that_is_not_utf8_json(tmp_path, base, capsys, encoding, kind):
    text = {
        "config": '{"gnss": {"hz": 5}, "name": "\u00e9"}',
        "site": '{"name": "\u00e9"}',
        "route": '{"name": "\u00e9", "points": []}',
        "campaign.toml": 'name = "\u00e9"\nseeds = [1]\n',
        "campaign.json": '{"name": "\u00e9", "seeds": [1]}',
        "gpx": '<?xml version="1.0"?><gpx><trk><name>\u00e9</name></trk></gpx>',
        "track.csv": "x_m,y_m,t_s\n0,0,0\n\u00e9,1,1\n",
        "truth.csv": (base / "truth.csv").read_text()[:2000] + "\u00e9\n",
        "geo.csv": "e_m,n_m,u_m\n\u00e9,1,1\n",
    }[kind]
    deep = {
        "gpx": "<a>" * 100_000,
        "track.csv": '"' * 100_000,
        "geo.csv": '"' * 100_000,
        "truth.csv": '"' * 100_000,
        "campaign.toml": "a = " + "[" * 100_000,
    }.get(kind, "[" * 100_000)
    data = {
        "utf-16": text.encode("utf-16"),
        "latin-1": text.encode("latin-1"),
        "binary": bytes(range(256)) * 4,
        "deep": deep.encode(),
        "bom": b"\xfe\xff" + text.encode("utf-16-be"),
    }[encoding]
    suffix = {
        "config": ".json",
        "site": ".json",
        "route": ".json",
        "campaign.toml": ".toml",
        "campaign.json": ".json",
        "gpx": ".gpx",
        "track.csv": ".csv",
        "truth.csv": ".csv",
        "geo.csv": ".csv",
    }[kind]
    path = tmp_path / f"f{suffix}"
    path.write_bytes(data)
    argv = {
        "config": _simulate(tmp_path, base / "truth.csv", "--config", path),
        "site": _simulate(tmp_path, base / "truth.csv", "--site", path),
        "route": ["truth", "--track", path, "--out", tmp_path / "o.parquet"],
        "campaign.toml": ["campaign", "run", path, "--out", tmp_path / "c", "--workers", "0"],
        "campaign.json": ["campaign", "run", path, "--out", tmp_path / "c", "--workers", "0"],
        "gpx": ["truth", "--track", path, "--out", tmp_path / "o.parquet"],
        "track.csv": ["truth", "--track", path, "--out", tmp_path / "o.parquet"],
        "truth.csv": _simulate(tmp_path, path),
        "geo.csv": ["geo", "--from", "enu", "--in", path, "--out", tmp_path / "o.csv"],
    }[kind]
    _fails_in_one_line(capsys, argv, tmp_path)


@pytest.mark.parametrize("kind", ["config", "campaign", "site"])
def test_an_integer_beyond_pythons_digit_limit_names_its_line(tmp_path, capsys, monkeypatch, kind):
    """A JSON integer of 5000 digits (Python's limit is 4300) was refused with Python's words
    and no line ('invalid JSON: Exceeds the limit (4300 digits) for integer string
    conversion: value has 5000 digits', session 13's note). Now its line and its length."""
    big = "9" * 5000
    text = {
        "config": '{\n  "imu": {\n    "hz": ' + big + "\n  }\n}\n",
        "campaign": '{"sources": [{"scenario": "acre-loop"}],\n\n "seeds": [' + big + "]}",
        "site": '{"name": "x",\n\n "origin": ' + big + "}",
    }[kind]
    (tmp_path / "f.json").write_text(text)
    argv = {
        "config": ["simulate", "--config", "f.json", "--duration", "1", "--out", "r"],
        "campaign": ["campaign", "run", "f.json", "--out", "c"],
        "site": ["simulate", "--site", "f.json", "--duration", "1", "--out", "r"],
    }[kind]
    monkeypatch.chdir(tmp_path)
    line = _fails_in_one_line(capsys, argv, tmp_path)
    assert "line 3: an integer of 5000 digits (at most 4300)" in line, line


# 6. configuration values that break a model -------------------------------------------------
@pytest.mark.parametrize(
    "key, value",
    [
        ("gnss.states.rtk_fixed.sigma_h_m", 1e300),
        ("ins.position_flu_m", [1e300, 0, 0]),
        ("gnss.datum.helmert_itrf2014_to_nad83_2011.s_ppm", 1e12),
        ("gnss.datum.harn_to_nad83_2011_shift_deg", [90, 0]),
        ("gnss.datum.helmert_itrf2014_to_nad83_2011.reference_epoch", 2**70),
        ("seed", "1"),
    ],
)
def test_a_configuration_value_that_breaks_a_model(tmp_path, base, capsys, key, value):
    doc: dict = {}
    node = doc
    *parents, last = key.split(".")
    for part in parents:
        node = node.setdefault(part, {})
    node[last] = value
    (tmp_path / "c.json").write_text(json.dumps(doc))
    _fails_in_one_line(
        capsys,
        _simulate(tmp_path, base / "truth.csv", "--config", tmp_path / "c.json"),
        tmp_path,
        last,
    )


def test_a_csv_field_beyond_the_csv_modules_limit(tmp_path, base, capsys):
    """A line of 200 000 characters in one quoted field (a damaged or binary file): csv.Error
    (an internal error before) becomes one line naming the file and line (found by the fuzz)."""
    field = '"' + "x" * 200_000
    (tmp_path / "t.csv").write_text(f"lat_deg,lon_deg,alt_m,time\n{field}\n40,-86,1,0\n")
    (tmp_path / "e.csv").write_text(f"t_s,e_m,n_m,u_m\n{field}\n1,2,3,4\n")
    line = _fails_in_one_line(
        capsys, ["truth", "--track", tmp_path / "t.csv", "--out", tmp_path / "o.parquet"], tmp_path
    )
    assert "t.csv: line 2" in line
    line = _fails_in_one_line(
        capsys, ["score", base / "run", tmp_path / "e.csv", "--format", "csv"], tmp_path
    )
    assert "e.csv: line 2" in line
    # a truth log's header so (found by the fuzz suite at 1000 examples: "line 1: huge")
    lines = (base / "truth.csv").read_text().splitlines()
    (tmp_path / "h.csv").write_text("\n".join([lines[0] + "9" * 200_000, *lines[1:]]) + "\n")
    line = _fails_in_one_line(capsys, _simulate(tmp_path, tmp_path / "h.csv"), tmp_path)
    assert "h.csv: line 1 (header): not CSV (field larger than field limit" in line, line


def test_a_damaged_parquet_truth_log_is_named_on_one_line(tmp_path, base):
    """Arrow's messages run over several lines (a thrift error of a file saved with CRLF line
    ends): the error keeps the first (found by the fuzz)."""
    from navsense.truth.io import iter_truth_chunks

    (tmp_path / "t.parquet").write_bytes(
        (base / "truth.parquet").read_bytes().replace(b"\n", b"\r\n")
    )
    with pytest.raises(NavsenseError) as err:
        list(iter_truth_chunks(tmp_path / "t.parquet", 100))
    assert "\n" not in str(err.value) and "t.parquet" in str(err.value)


_HUGE = "1" + "0" * 400  # a JSON integer no float holds (math.isfinite raises OverflowError)


@pytest.mark.parametrize(
    "kind, text, words",
    [
        ("config", '{"gnss": {"std_m": ' + _HUGE + "}}", "gnss.std_m"),
        ("set", "gnss.std_m=" + _HUGE, "gnss.std_m"),
        (
            "site",
            '{"name": "s", "grain_bins": [{"center_enu_m": [0, 0], "height_m": 5, '
            '"radius_m": ' + _HUGE + "}]}",
            "radius_m",
        ),
        ("track", '{"points": [{"enu_m": [0, 0, 0]}, {"enu_m": [' + _HUGE + ", 0, 0]}]}", "enu_m"),
    ],
)
def test_a_json_integer_no_float_holds(tmp_path, base, capsys, kind, text, words):
    path = tmp_path / ("t.json" if kind == "track" else "f.json")
    if kind != "set":
        path.write_text(text)
    argv = {
        "config": _simulate(tmp_path, base / "truth.csv", "--config", path),
        "set": _simulate(tmp_path, base / "truth.csv", "--set", text),
        "site": _simulate(tmp_path, base / "truth.csv", "--site", path),
        "track": ["truth", "--track", path, "--out", tmp_path / "o.parquet"],
    }[kind]
    _fails_in_one_line(capsys, argv, tmp_path, words)


# 8. campaigns ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "seeds", [{"start": 1, "count": 10**12}, list(range(300_000)), {"start": 0, "count": 2**64}]
)
def test_a_campaign_of_too_many_runs_is_refused_before_it_starts(tmp_path, base, capsys, seeds):
    doc = {"seeds": seeds, "sources": [{"truth": str(base / "truth.csv")}]}
    (tmp_path / "c.json").write_text(json.dumps(doc))
    argv = ["campaign", "run", tmp_path / "c.json", "--out", tmp_path / "o", "--workers", "0"]
    _fails_in_one_line(capsys, argv, tmp_path, "seeds")


def test_a_damaged_campaign_directory(tmp_path, base, capsys):
    doc = {"seeds": [1], "sources": [{"truth": str(base / "truth.csv")}]}
    (tmp_path / "c.json").write_text(json.dumps(doc))
    out = tmp_path / "o"
    assert (
        main(
            [
                "campaign",
                "run",
                str(tmp_path / "c.json"),
                "--out",
                str(out),
                "--workers",
                "0",
                "--quiet",
            ]
        )
        == 0
    )
    capsys.readouterr()
    campaign = json.loads((out / "campaign.json").read_text())
    campaign["runs"][0]["seed"] = [1]
    (out / "campaign.json").write_text(json.dumps(campaign))
    _fails_in_one_line(capsys, ["campaign", "summary", out], tmp_path, "campaign.json")
    # found by the fuzz suite: a value nested deeper than orjson writes, in the message itself
    campaign["runs"][0]["seed"] = 1
    campaign["points"][0]["point"] = json.loads("[" * 300 + "]" * 300)
    (out / "campaign.json").write_text(json.dumps(campaign))
    _fails_in_one_line(capsys, ["campaign", "summary", out], tmp_path, "nested too deep")


@pytest.mark.parametrize(
    "key, value",
    [("error", 1e300), ("error", ["x"]), ("score", [1]), ("score", {"ate_3d_rms_m": "x"})],
)
def test_a_result_file_of_the_wrong_types_is_a_damaged_result(tmp_path, key, value):
    """Found by the fuzz suite: a result's error of 1e300 was an ArrowTypeError inside
    ``campaign summary``. Such a file is damaged: left out, and the run done again on resume."""
    from navsense.campaign.runner import read_result, read_results
    from navsense.errors import FormatError

    folder = tmp_path / "results"
    folder.mkdir()
    good = {"run_id": "r1", "status": "ok", "error": None, "statistics": {"h_rms_m": 0.1}}
    (folder / "r1.json").write_text(json.dumps(good))
    bad = dict(good, run_id="r2", **{key: value})
    (folder / "r2.json").write_text(json.dumps(bad))
    with pytest.raises(FormatError, match=f"r2.json: {key}"):
        read_result(folder / "r2.json")
    assert list(read_results(tmp_path)) == ["r1"]


# 11. loops that never end --------------------------------------------------------------------
def test_a_correction_outage_of_the_whole_float_range_ends(tmp_path, base, capsys):
    lines = (base / "truth.csv").read_text().splitlines()[:13]  # 12 rows
    (tmp_path / "t.csv").write_text("\n".join(lines) + "\n")
    (tmp_path / "c.json").write_text(
        json.dumps({"gnss": {"corrections": {"outages_s": [[-1e300, 1e300]]}}})
    )
    _fails_in_one_line(
        capsys,
        _simulate(tmp_path, tmp_path / "t.csv", "--config", tmp_path / "c.json"),
        tmp_path,
        "outages_s",
    )


def test_the_correction_stream_steps_back_a_bounded_number_of_times():
    from navsense.sensors.gnss.corrections import CorrectionStream

    stream = CorrectionStream(interval_s=0.1, latency_s=0.0, outages_s=((-1e300, 1e300),))
    with time_limit(10):  # Hang (a test failure) if it loops
        j = stream.message_index(np.array([0.0, 1.0]))
    assert j.shape == (2,)


# 12. estimates given to navsense score (found by tests/fuzz/test_fuzz_score.py) ---------------
def _estimate_rows(run: Path, every: int = 4) -> list[tuple[float, ...]]:
    """t, e, n, u, qx, qy, qz, qw of the run's INS rows."""
    import orjson

    rows = [orjson.loads(x) for x in (run / "ins.jsonl").read_bytes().splitlines()][::every]
    return [
        (r["sample_time_s"], *r["position_enu_m"], *r["imu"]["orientation_enu_xyzw"]) for r in rows
    ]


def _tum(path: Path, rows, head: bytes = b"") -> Path:
    path.write_bytes(head + "".join(" ".join(map(repr, r)) + "\n" for r in rows).encode())
    return path


@pytest.mark.parametrize(
    ("case", "words"),
    [
        ("latin-1 comment", "byte 0xe9 is not UTF-8"),
        ("huge positions, se3", "beyond 1e+09"),
        ("far times", "more than 1e+09 s from the run's start"),
        ("tiny spread, sim3", "do not fix a rotation"),
        ("rpe delta 1e-300", None),
        ("singular covariance", None),
        ("no stamp inside", "no estimate stamp is inside the run's episode time"),
    ],
)
def test_a_bad_estimate_for_score(tmp_path, base, capsys, case, words):
    rows = _estimate_rows(base / "run")
    run = tmp_path / "run"
    shutil.copytree(base / "run", run)
    options: list[str] = []
    path = tmp_path / "e.tum"
    if case == "latin-1 comment":
        _tum(path, rows, "# caf\u00e9\n".encode("latin-1"))
    elif case == "huge positions, se3":
        _tum(path, [(r[0], 1e300 * k, 1e300 * k * k, 0.0, *r[4:]) for k, r in enumerate(rows)])
        options = ["--align", "se3"]
    elif case == "far times":
        _tum(path, [(1e17 + r[0] * 1e3, *r[1:]) for r in rows])
    elif case == "tiny spread, sim3":
        _tum(path, [(r[0], 1e-300 * k, 1e-300 * k * k, 0.0, *r[4:]) for k, r in enumerate(rows)])
        options = ["--align", "sim3"]
    elif case == "no stamp inside":
        _tum(path, [(r[0] + 100.0, *r[1:]) for r in rows])
    elif case == "rpe delta 1e-300":  # a delta below the time tolerance: consecutive pairs
        _tum(path, rows)
        assert main(["score", str(run), str(path), "--rpe-delta", "1e-300", "--no-plots"]) == 0
        return
    else:  # variance 0 east, turned from the geodetic axes to the grid's: no NEES there
        import orjson

        path = tmp_path / "e.csv"
        lines = [
            "t_s,lat_deg,lon_deg,height_m,cov_ee_m2,cov_en_m2,cov_eu_m2,cov_nn_m2,cov_nu_m2,cov_uu_m2"
        ]
        for k, x in enumerate((run / "ins.jsonl").read_bytes().splitlines()[::4]):
            r = orjson.loads(x)
            f = r["fix"]
            ce, cn, cu = f["position_covariance"]
            cov = (0.0 if k == 0 else ce, 0.0, 0.0, cn, 0.0, cu)
            values = (r["sample_time_s"], f["latitude"], f["longitude"], f["altitude"], *cov)
            lines.append(",".join(map(repr, values)))
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        out = f"{tmp_path}/s.json"
        assert main(["score", str(run), str(path), "--no-plots", "--out", out]) == 0
        score = json.loads((tmp_path / "s.json").read_text())
        assert score["nees_epochs"] == len(rows) - 1
        return
    line = _fails_in_one_line(capsys, ["score", run, path, "--no-plots", *options], tmp_path)
    assert words in line and ("e.tum" in line or "--align" in line)


def test_a_damaged_mcap_estimate(tmp_path, base, capsys):
    """A chunk whose zstd frame is damaged, and a bag cut short, end in one line naming the bag."""
    import struct

    run = tmp_path / "run"
    shutil.copytree(base / "run", run)
    assert main(["export", "mcap", str(run), "--out", str(tmp_path / "b.mcap")]) == 0
    raw = bytearray((tmp_path / "b.mcap").read_bytes())
    off = 8  # the magic; then records: opcode (1 byte), length (8 bytes), body
    while raw[off] != 0x06:
        off += 9 + struct.unpack_from("<Q", raw, off + 1)[0]
    body = off + 9
    (n,) = struct.unpack_from("<I", raw, body + 28)  # the compression's name
    assert raw[body + 32 : body + 32 + n] == b"zstd"
    frame = body + 32 + n + 8
    raw[frame + 4 : frame + 6] = b"\xff\xff"  # the frame header's descriptor
    (tmp_path / "d.mcap").write_bytes(bytes(raw))
    topic = ["--topic", "/vehicle/odom", "--no-plots"]
    line = _fails_in_one_line(capsys, ["score", run, tmp_path / "d.mcap", *topic], tmp_path)
    assert "d.mcap: a damaged zstd chunk" in line
    (tmp_path / "c.mcap").write_bytes(bytes(raw[: frame + 100]))
    line = _fails_in_one_line(capsys, ["score", run, tmp_path / "c.mcap", *topic], tmp_path)
    assert "c.mcap: no topic '/vehicle/odom'" in line and "cut short" in line


@pytest.mark.parametrize(
    ("out", "words"),
    [
        ("run/episode.json", "exists and is not a score.json; not overwriting it"),
        ("e.tum", "exists and is not a score.json"),
        (".", "not a file name"),
        ("", "not a file name"),
        ("e.tum/s.json", "is not a directory"),
        ("run", "exists and is not a file"),
    ],
)
def test_score_out_never_overwrites_what_is_not_a_score(tmp_path, base, capsys, out, words):
    """Ruling (navsense.score.writer): --out replaces a score.json, refuses any other file."""
    run = tmp_path / "run"
    shutil.copytree(base / "run", run)
    path = _tum(tmp_path / "e.tum", _estimate_rows(run))
    argv = ["score", "run", "e.tum", "--no-plots", "--out", out]
    import contextlib

    with contextlib.chdir(tmp_path):
        line = _fails_in_one_line(capsys, argv, tmp_path)
        assert words in line, line
        assert main(["score", "run", "e.tum", "--no-plots", "--out", "s.json", "--quiet"]) == 0
        first = (tmp_path / "s.json").read_bytes()
        assert main([*argv[:-1], "s.json", "--align", "se3", "--quiet"]) == 0  # a re-score
        assert (tmp_path / "s.json").read_bytes() != first
    assert path.read_bytes() == _tum(tmp_path / "again.tum", _estimate_rows(run)).read_bytes()


@pytest.mark.parametrize(
    ("option", "value", "words"),
    [
        ("--utm-zone", "0", "--utm-zone 0 is not a UTM zone (1..60)"),
        ("--utm-zone", "61", "--utm-zone 61 is not a UTM zone (1..60)"),
        ("--rpe-delta", "0", "--rpe-delta 0.0 must be a finite number > 0"),
        ("--rpe-delta", "nan", "--rpe-delta nan must be a finite number > 0"),
        ("--rpe-delta=-inf", None, "--rpe-delta -inf must be a finite number > 0"),
    ],
)
def test_score_options_are_checked_before_anything_is_read(tmp_path, capsys, option, value, words):
    """The run and the estimate do not exist: the option is refused first."""
    argv = ["score", tmp_path / "norun", tmp_path / "none.tum", option]
    argv += [] if value is None else [value]
    assert words in _fails_in_one_line(capsys, argv, tmp_path)


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [
        ("source", 1e300, "source = 1e+300 is not an object"),
        ("vehicle", 5, "vehicle = 5 is not one of"),
        ("physics_hz", "x", "physics_hz = 'x' is not a rate"),
        ("steps", -3, "steps = -3 is not an integer"),
        ("ins", {"utm_zone": 0}, "ins.utm_zone = 0 is not a UTM zone"),
        ("config", None, "config = None is not the run's configuration"),
    ],
)
def test_score_of_a_run_whose_episode_is_damaged(tmp_path, base, capsys, key, value, words):
    """episode.json's values that scoring reads are named when damaged (navsense.score.runinfo)."""
    run = tmp_path / "run"
    shutil.copytree(base / "run", run)
    episode = json.loads((run / "episode.json").read_text())
    episode[key] = value
    (run / "episode.json").write_text(json.dumps(episode))
    path = _tum(tmp_path / "e.tum", _estimate_rows(run))
    line = _fails_in_one_line(capsys, ["score", run, path, "--no-plots"], tmp_path)
    assert "episode.json: " + words in line, line


# 13. navsense live's options (found by tests/fuzz/test_fuzz_live.py) -------------------------
@pytest.mark.parametrize(
    ("options", "words"),
    [
        (["--speed", "1e-300"], "--speed 1e-300 must be a positive number, at least 0.001"),
        (["--speed", "1e-9"], "at least 0.001"),  # 2 s of truth in 63 years: refused
        (["--agent", "1000001"], "--agent 1000001 must be <= 1000000"),
        (["--nmea-pty", "a\0b"], "--nmea-pty 'a\\x00b': not a file name"),
        (["--nmea-pty", "nodir/lnk"], "--nmea-pty nodir/lnk: the folder nodir does not exist"),
    ],
)
def test_a_bad_live_option_fails_before_serving(tmp_path, base, capsys, options, words):
    from unittest import mock

    shutil.copy(base / "truth.csv", tmp_path / "truth.csv")
    argv = ["live", "--truth", "truth.csv", "--no-foxglove", "--quiet", *options]
    import contextlib

    served = AssertionError("served")
    with (
        contextlib.chdir(tmp_path),
        mock.patch("navsense.live.pacing.serve_paced", side_effect=served),
    ):
        line = _fails_in_one_line(capsys, argv, tmp_path)
    assert words in line, line


def test_live_mcap_is_written_before_the_run_directory_is_complete(
    tmp_path, base, capsys, compiled_kernels
):
    """A bag that cannot be written leaves no complete-looking run directory (class 10). The
    kernels are compiled first (conftest): this file's first live run that serves, its compile
    in a new worktree was a Hang within _fails_in_one_line's 60 s on a loaded machine."""
    from unittest import mock

    from navsense.errors import FormatError

    shutil.copy(base / "truth.csv", tmp_path / "truth.csv")
    argv = ["live", "--truth", "truth.csv", "--no-foxglove", "--quiet", "--speed", "1000"]
    import contextlib

    full = FormatError("ros2.mcap: no space left on device")
    with contextlib.chdir(tmp_path):
        with mock.patch("navsense.runs.export_mcap.write_mcap", side_effect=full):
            _fails_in_one_line(capsys, [*argv, "--out", "out", "--mcap"], tmp_path)
        assert main([*argv, "--out", "ok", "--mcap"]) == 0
    assert (tmp_path / "ok" / "ros2.mcap").is_file() and (
        tmp_path / "ok" / "episode.json"
    ).is_file()


def test_a_geodetic_estimate_off_the_earth(tmp_path, base, capsys):
    """A longitude of 1e7 deg passed the datum chain as NaN: --align se3 then failed in the SVD."""
    import orjson

    run = tmp_path / "run"
    shutil.copytree(base / "run", run)
    lines = ["t_s,lat_deg,lon_deg,height_m"]
    for k, x in enumerate((run / "ins.jsonl").read_bytes().splitlines()[::4]):
        r = orjson.loads(x)
        f = r["fix"]
        lon = 1e7 if k == 5 else f["longitude"]
        lines.append(",".join(map(repr, (r["sample_time_s"], f["latitude"], lon, f["altitude"]))))
    (tmp_path / "g.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    argv = ["score", run, tmp_path / "g.csv", "--align", "se3", "--no-plots"]
    line = _fails_in_one_line(capsys, argv, tmp_path)
    assert "longitude 10000000.0 deg; a latitude is within +-90 deg" in line, line


def test_a_live_host_that_is_no_name(tmp_path, base, capsys):
    shutil.copy(base / "truth.csv", tmp_path / "truth.csv")
    argv = ["live", "--truth", tmp_path / "truth.csv", "--no-foxglove", "--nmea-tcp", "0"]
    line = _fails_in_one_line(capsys, [*argv, "--host", "\x80"], tmp_path)
    assert "--host '\\x80': not an address or host name" in line, line


def test_a_campaign_sweep_value_beyond_64_bits(tmp_path, base, capsys):
    """A sweep value no float or int64 holds was hashed into the run id before it was checked
    (orjson's TypeError); now the configuration's check names it first."""
    doc = {
        "seeds": [1],
        "sources": [{"truth": str(base / "truth.csv")}],
        "sweep": {"grid": {"gnss.corrections.baseline_km": [-9223372036854775809]}},
    }
    (tmp_path / "c.json").write_text(json.dumps(doc))
    argv = ["campaign", "run", tmp_path / "c.json", "--out", tmp_path / "o", "--workers", "0"]
    _fails_in_one_line(capsys, argv, tmp_path, "baseline_km")


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [
        ("accel_mps2", 5e-324, "accel_mps2 = 5e-324 must be >= 0.001"),
        ("rate_hz", 1e-300, "rate_hz"),
    ],
)
def test_a_route_with_a_tiny_acceleration_or_rate(tmp_path, capsys, key, value, words):
    """A ramp of 1.875 dV / 5e-324 s was an OverflowError (found by the fuzz suite)."""
    route = {"points": [{"enu_m": [400, 300, 0]}, {"enu_m": [430, 300, 0], "speed_mps": 5}]}
    (tmp_path / "r.json").write_text(json.dumps({**route, key: value}))
    argv = ["truth", "--track", tmp_path / "r.json", "--out", tmp_path / "t.parquet"]
    _fails_in_one_line(capsys, argv, tmp_path, words)


ROUTE = '{"points": [{"enu_m": [400, 300, 0]}, {"enu_m": [430, 300, 0], "speed_mps": 5}]'


@pytest.mark.parametrize(
    ("name", "text", "words"),
    [
        ("s.json", '{"name": "a", "name": "b", "georeference": {"kind": "acre"}}', '"name"'),
        ("r.json", ROUTE + ', "rate_hz": 120, "rate_hz": 60}', '"rate_hz"'),
        ("r.json", ROUTE.replace('"speed_mps": 5', '"speed_mps": 5, "speed_mps": 50') + "}", ""),
        ("scenario.json", '{"name": "x", "site": "acre", "site": "x", "waypoints": "r.json"}', ""),
        ("truth.truth.json", '{"start_utc": "2026-01-01T00:00:00Z", "start_utc": "x"}', ""),
    ],
)
def test_a_json_input_with_a_key_twice(tmp_path, base, capsys, name, text, words):
    """Python's parser kept the last of a repeated key silently (a site, route, scenario file or
    a truth log's sidecar ran with half of what its author wrote); they are refused as a
    configuration file's are."""
    (tmp_path / name).write_text(text)
    if name == "s.json":
        argv = _simulate(tmp_path, base / "truth.csv", "--site", tmp_path / name)
    elif name == "r.json":
        argv = ["truth", "--track", tmp_path / name, "--out", tmp_path / "t.parquet"]
    elif name == "scenario.json":
        (tmp_path / "r.json").write_text(ROUTE + "}")
        argv = ["simulate", "--scenario", tmp_path / name, "--out", tmp_path / "out", "--quiet"]
    else:
        shutil.copy(base / "truth.csv", tmp_path / "truth.csv")
        argv = _simulate(tmp_path, tmp_path / "truth.csv")
    line = _fails_in_one_line(capsys, argv, tmp_path, f"{name}: the key {words}")
    assert "appears twice in one object" in line, line


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("[" * 3000 + "]" * 3000, "command line: --set gnss.antenna_flu_m: line 1: nested deeper"),
        ("[" * 100_000, "nested deeper than 64 levels"),
        ('{"a": 1, "a": 2}', 'the key "a" appears twice'),
    ],
)
def test_a_set_value_nested_too_deep_or_with_a_key_twice(tmp_path, base, capsys, value, words):
    """--set VALUE nested 3000 deep was a RecursionError inside json.loads (internal error)."""
    argv = _simulate(tmp_path, base / "truth.csv", "--set", f"gnss.antenna_flu_m={value}")
    _fails_in_one_line(capsys, argv, tmp_path, words)


@pytest.mark.parametrize(
    ("site", "words"),
    [
        ("[" * 5000 + "]" * 5000, "is not JSON (line 1: nested deeper than 64 levels"),
        ('{"name": "a", "name": "b"}', 'is not JSON (the key "name" appears twice'),
        ("{", "is not JSON (line 1 column 2"),
    ],
)
def test_a_parquet_truth_logs_site_metadata_nested_too_deep(tmp_path, base, capsys, site, words):
    """The site in a Parquet truth log's metadata nested 5000 deep was a RecursionError."""
    table = pq.read_table(base / "truth.parquet")
    meta = dict(table.schema.metadata or {})
    meta[b"navsense.site"] = site.encode()
    pq.write_table(table.replace_schema_metadata(meta), tmp_path / "t.parquet")
    line = _fails_in_one_line(capsys, _simulate(tmp_path, tmp_path / "t.parquet"), tmp_path, words)
    assert "t.parquet (Parquet metadata): navsense.site = " in line, line


@pytest.mark.parametrize("site", ["{}", '{"name": "yard", "georeference": null}'])
def test_a_truth_logs_site_without_a_georeference_names_the_log(tmp_path, base, capsys, site):
    """A log whose metadata site has no georeference, with the INS on: the INS's refusal named
    the site ('site'), not the log it came from (fuzz, session 15). Without the INS it runs."""
    table = pq.read_table(base / "truth.parquet")
    meta = dict(table.schema.metadata or {})
    meta[b"navsense.site"] = site.encode()
    pq.write_table(table.replace_schema_metadata(meta), tmp_path / "t.parquet")
    line = _fails_in_one_line(capsys, _simulate(tmp_path, tmp_path / "t.parquet"), tmp_path)
    assert "t.parquet: the site of its metadata (navsense.site) has no georeference" in line
    assert "--no-ins" in line, line
    argv = _simulate(tmp_path, tmp_path / "t.parquet", "--no-ins")
    assert main([str(a) for a in argv]) == 0


def test_a_gpx_billion_laughs_ends_at_once(tmp_path, capsys):
    """Nine levels of entities of ten references each in every <ele>: reading a point's text by
    += of expat's 10-character pieces was quadratic (over a minute before expat's amplification
    limit stopped it); now expat's refusal comes within a second."""
    import time

    from fuzz.fuzz_helpers import entity_gpx

    (tmp_path / "t.gpx").write_text(entity_gpx(9, "ele"))
    t0 = time.process_time()
    argv = ["truth", "--track", tmp_path / "t.gpx", "--out", tmp_path / "t.parquet"]
    _fails_in_one_line(capsys, argv, tmp_path, "limit on input amplification factor")
    assert time.process_time() - t0 < 10


def _special(path: Path, kind: str) -> None:
    """``path`` replaced by a FIFO (reading it waits for a writer for ever) or a link to
    /dev/zero (reading it never ends)."""
    import os

    path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")


@pytest.mark.parametrize("kind, words", [("fifo", "it is a FIFO"), ("zero", "it is a device")])
def test_a_run_or_campaign_file_that_never_ends(tmp_path, base, capsys, kind, words):
    """episode.json, a campaign's campaign.json or a result file that is a FIFO hung every reader
    (export, score, report, campaign summary, rerun and resume); a link to /dev/zero read until
    memory ran out. They are refused by name (a result as a damaged one, run again)."""
    from navsense.campaign.runner import read_result

    run = tmp_path / "run"
    shutil.copytree(base / "run", run)
    _special(run / "episode.json", kind)
    line = _fails_in_one_line(capsys, ["export", "mcap", run, "--out", tmp_path / "o.mcap"])
    assert f"run/episode.json: cannot read the run's episode.json ({words}" in line, line
    campaign = tmp_path / "c"
    campaign.mkdir()
    (campaign / "campaign.json").write_text("{}")
    _special(campaign / "campaign.json", kind)
    line = _fails_in_one_line(capsys, ["campaign", "summary", campaign])
    assert f"c/campaign.json: cannot read the campaign's campaign.json ({words}" in line, line
    result = tmp_path / "p000-s0001-0123456789.json"
    result.write_text("{}")
    _special(result, kind)
    with time_limit(20), pytest.raises(NavsenseError, match=f"result file \\({words}"):
        read_result(result)


def test_a_truth_logs_sidecar_that_is_no_file_is_refused(tmp_path, base, capsys):
    """A CSV log's ``.truth.json`` that was a FIFO or a directory was left out silently (the run
    took the default site and start time); now it is named. A truth log or a campaign's file
    that is a FIFO was "no such truth log" or "PATH not found": now what it is."""
    import os

    shutil.copy(base / "truth.csv", tmp_path / "t.csv")
    os.mkfifo(tmp_path / "t.truth.json")
    line = _fails_in_one_line(capsys, _simulate(tmp_path, tmp_path / "t.csv"), tmp_path)
    assert "t.truth.json: cannot read the truth log sidecar (it is a FIFO, not a file)" in line
    (tmp_path / "t.truth.json").unlink()
    (tmp_path / "t.truth.json").mkdir()
    line = _fails_in_one_line(capsys, _simulate(tmp_path, tmp_path / "t.csv"), tmp_path)
    assert "(it is a directory, not a file)" in line, line
    os.mkfifo(tmp_path / "f.csv")
    line = _fails_in_one_line(capsys, _simulate(tmp_path, tmp_path / "f.csv"), tmp_path)
    assert "f.csv: cannot read the truth log (it is a FIFO, not a file)" in line, line
    (tmp_path / "c.json").write_text(json.dumps({"seeds": [1], "sources": [{"truth": "f.csv"}]}))
    argv = ["campaign", "run", tmp_path / "c.json", "--out", tmp_path / "o", "--workers", "0"]
    line = _fails_in_one_line(capsys, argv, tmp_path)
    assert "f.csv is not a regular file" in line, line


def test_campaign_workers_beyond_the_limit_or_a_scheduler_it_cannot_reach(
    tmp_path, base, capsys, monkeypatch
):
    """--workers 1000000 started a local Dask cluster of a million processes (a hang, then
    out of memory); a scheduler address that is none, or one that cannot be reached, left DIR
    with campaign.json and an empty statistics table. Now the first two are refused before
    anything starts, the third leaves nothing, and a local cluster never has more workers than
    runs to do."""
    import dask.distributed

    from navsense.campaign.runner import dask_executor, run_campaign
    from navsense.campaign.spec import load_campaign

    (tmp_path / "c.json").write_text(
        json.dumps({"seeds": [1], "sources": [{"truth": str(base / "truth.csv")}]})
    )
    argv = ["campaign", "run", tmp_path / "c.json", "--out", tmp_path / "o"]
    line = _fails_in_one_line(capsys, [*argv, "--workers", "1000000"], tmp_path)
    assert "--workers 1000000 must be 0..1024" in line, line
    argv[argv.index("--out") + 1] = tmp_path / "o" / "deeper"
    for address in ("x", "", "tcp://:0", "tcp://h:99999", "inproc://x"):
        line = _fails_in_one_line(capsys, [*argv, "--scheduler", address], tmp_path)
        assert f"--scheduler {address!r}: not a Dask scheduler address" in line, line

    def unreachable(runs, fn):  # as Dask's client fails on a scheduler it cannot reach
        raise NavsenseError("--scheduler tcp://10.0.0.5:8786: cannot connect")
        yield

    with pytest.raises(NavsenseError):
        run_campaign(load_campaign(tmp_path / "c.json"), tmp_path / "o" / "d", executor=unreachable)
    assert _listing(tmp_path) == ["c.json"]  # no campaign directory without results

    started = []

    class Cluster:
        def __init__(self, n_workers, **kwargs):
            started.append(n_workers)
            raise KeyboardInterrupt  # no cluster is started here

    monkeypatch.setattr(dask.distributed, "LocalCluster", Cluster)
    with pytest.raises(KeyboardInterrupt):
        next(dask_executor(workers=1024)([{"run_id": "a"}, {"run_id": "b"}], print))
    assert started == [2]


def test_a_full_disk_while_a_campaign_writes_names_the_file(tmp_path, base, monkeypatch, capsys):
    """Found by running commands on a full file system (a 300 kB tmpfs): the campaign's tables
    and JSON files failed with "No space left on device" or Arrow's "Error writing bytes to
    file" and no path; now the line names the file (the finished results are kept)."""
    import errno

    import navsense.campaign.summary as summary
    from navsense.campaign.runner import write_json_atomic

    def full(*args, **kwargs):
        raise OSError("Error writing bytes to file. Detail: [errno 28] No space left on device")

    doc = {"seeds": [1], "sources": [{"truth": str(base / "truth.csv")}]}
    (tmp_path / "c.json").write_text(json.dumps(doc))
    out = tmp_path / "o"
    argv = ["campaign", "run", tmp_path / "c.json", "--out", out, "--workers", "0", "--quiet"]
    assert main([str(a) for a in argv]) == 0
    monkeypatch.setattr(summary.pq, "write_table", full)
    line = _fails_in_one_line(capsys, ["campaign", "summary", out])
    assert line.startswith(f"navsense: error: {out / 'statistics.parquet'}: Error writing"), line
    assert sorted(p.name for p in out.iterdir()) == [
        "campaign.json",
        "results",
        "statistics.parquet",
    ]

    def no_space(self, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Path, "write_bytes", no_space)
    with pytest.raises(OSError) as info:
        write_json_atomic(tmp_path / "campaign.json", {"a": 1})
    assert info.value.filename == str(tmp_path / "campaign.json")
    from navsense.cli import error_line

    line = error_line(info.value)
    assert line == f"navsense: error: {tmp_path / 'campaign.json'}: No space left on device"


def test_a_full_disk_at_a_runs_first_write_names_the_run(tmp_path, monkeypatch):
    """The marker of NAME.partial is a run's first write; on a full disk its error named no file
    (found by campaign rerun on a full tmpfs): it names the run as the later writes' do."""
    import errno

    from navsense.output.rundir import RunDirectory

    def no_space(self, *args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Path, "write_text", no_space)
    with pytest.raises(OSError) as info, RunDirectory(tmp_path / "runs" / "r"):
        pass
    assert info.value.filename == str(tmp_path / "runs" / "r")
    assert "(while writing the run; nothing kept)" in info.value.strerror
    assert list(tmp_path.iterdir()) == []  # NAME.partial and runs/ removed


@pytest.mark.parametrize(
    "fmt, change, words",
    [
        ("jsonl", "null time", "ins.jsonl: row 1: delivery_time_s = null is not a time of a run"),
        ("parquet", "null time", "ins.parquet: row 1: delivery_time_s = null is not a time"),
        ("parquet", "string", "ins.parquet: the column sample_time_s holds string values"),
        ("parquet", "twice", "ins.parquet: the column sample_time_s appears 2 times"),
    ],
)
def test_a_rows_file_with_a_column_of_the_wrong_kind(tmp_path, base, capsys, fmt, change, words):
    """A run's rows with a null delivery time in every row (export mcap: struct.error in the
    bag's log times), or a Parquet column of strings or twice (a ValueError inside numpy, Arrow's
    KeyError): internal errors before, found by probing the Parquet rows' columns."""
    import orjson

    run = tmp_path / "run"
    if fmt == "jsonl":
        shutil.copytree(base / "run", run)
        rows = [orjson.loads(line) for line in (run / "ins.jsonl").read_bytes().splitlines()]
        for row in rows:
            row["delivery_time_s"] = None
        (run / "ins.jsonl").write_bytes(b"\n".join(orjson.dumps(r) for r in rows) + b"\n")
    else:
        argv = ["simulate", "--truth", base / "truth.csv", "--out", run, "--quiet"]
        assert main([str(a) for a in [*argv, "--format", "parquet", "--workers", "threads"]]) == 0
        capsys.readouterr()
        table = pq.read_table(run / "ins.parquet")
        n, names = table.num_rows, table.column_names
        if change == "null time":
            i = names.index("delivery_time_s")
            table = table.set_column(i, "delivery_time_s", pa.nulls(n, pa.float64()))
        elif change == "string":
            i = names.index("sample_time_s")
            table = table.set_column(i, "sample_time_s", pa.array(["x"] * n))
        else:
            table = table.append_column("sample_time_s", table.column("sample_time_s"))
        pq.write_table(table, run / "ins.parquet")
    line = _fails_in_one_line(capsys, ["export", "mcap", run, "--out", tmp_path / "o.mcap"])
    assert words in line, line


@pytest.mark.parametrize(
    "where, value, words",
    [
        ("grid", "1979-05-27", 'baseline_km = "1979-05-27" is not a number'),
        ("grid", "07:32:00", 'baseline_km = "07:32:00" is not a number'),
        ("override", "1979-05-27T07:32:00", 'start_utc = "1979-05-27T07:32:00" is not an ISO'),
    ],
)
def test_a_toml_campaign_with_a_date_or_time_value(tmp_path, base, capsys, where, value, words):
    """TOML's date and time values were a TypeError inside the run ids' JSON (an internal error;
    found by probing TOML's value types): they are read as their ISO 8601 text, so a start time
    written as a TOML datetime with Z works and anywhere else the check names the key."""
    truth = str(base / "truth.csv")
    text = f'seeds = [1]\n\n[[sources]]\ntruth = "{truth}"\n\n'
    if where == "grid":
        text += f'[sweep.grid]\n"gnss.corrections.baseline_km" = [1, {value}]\n'
    else:
        text += f'[overrides]\n"gnss.datum.start_utc" = {value}\n'
    (tmp_path / "c.toml").write_text(text)
    argv = ["campaign", "run", tmp_path / "c.toml", "--out", tmp_path / "o", "--workers", "0"]
    _fails_in_one_line(capsys, argv, tmp_path, words)
    from navsense.campaign.spec import load_campaign

    (tmp_path / "c.toml").write_text(text.replace(value, "2026-09-23T15:00:00Z"))
    if where == "override":
        run = load_campaign(tmp_path / "c.toml").runs[0]
        assert "2026-09-23T15:00:00Z" in json.dumps(run), run


@pytest.mark.parametrize(
    "change, words",
    [
        ({"name": -9223372036854808576}, "s.json: name = -9223372036854808576 is beyond 64 bits"),
        ({"name": 5}, "s.json: name = 5 is not text"),
        ({"description": None}, "s.json: description = null is not text"),
        ({"buildings": [{"name": 7, "min_enu_m": [0, 0, 0], "max_enu_m": [1, 1, 1]}]}, "[0].name"),
        ({"georeference": {"kind": "acre", "x": 2**64}}, "georeference.x is not a known key"),
        ({"name": "\ud800"}, "a lone UTF-16 surrogate"),
    ],
)
def test_a_site_value_its_record_cannot_hold(tmp_path, base, capsys, change, words):
    """A site is recorded in episode.json as read: a building's name of -2^63 - 32768 was
    orjson's TypeError when the run wrote it (an internal error; found by the fuzz suite at 1000
    examples). Names and the description must be text, and nothing beyond 64 bits."""
    site = {"name": "s", "georeference": {"kind": "acre"}, **change}
    (tmp_path / "s.json").write_text(json.dumps(site))
    argv = _simulate(tmp_path, base / "truth.csv", "--site", tmp_path / "s.json")
    _fails_in_one_line(capsys, argv, tmp_path, words)


def test_a_utm_zone_far_from_the_site_is_named(tmp_path, base, capsys):
    """--set ins.utm_zone=5 at the ACRE tile (zone 16) ended naming the longitude and 'UTM zone
    5' but not the key (found by the fuzz suite's --set test)."""
    argv = _simulate(tmp_path, base / "truth.csv", "--set", "ins.utm_zone=5")
    _fails_in_one_line(capsys, argv, tmp_path, "in zone 5 (ins.utm_zone): longitude_deg")


_TRUTH_ARRAYS = ("p_m", "q_xyzw", "v_mps", "w_radps", "c_m", "reset")


def test_a_truth_csv_header_with_spaces_after_the_commas(tmp_path, base, capsys):
    """'t_s, px_m, ...' (a header written with spaces) passed the header check, which strips
    the names, and then was Arrow's KeyError 'Field "px_m" does not exist' (an internal error;
    found by probing truth CSV files): the log is read with the stripped names, as the same rows
    without the spaces. Values with spaces around them are read as their numbers are, the reset
    too (numpy.savetxt(delimiter=", ") writes ", 0"; it was refused alone, session 16); a reset
    that is no boolean is named with its line (Arrow's message named none)."""
    from navsense.truth.io import read_truth

    lines = (base / "truth.csv").read_text().splitlines()
    plain = read_truth(base / "truth.csv")
    spaced = tmp_path / "spaced.csv"
    spaced.write_text("\n".join([lines[0].replace(",", ", ")] + lines[1:]) + "\n")
    padded = tmp_path / "padded.csv"
    padded.write_text("\n".join([lines[0]] + [r.replace(",", " , ") for r in lines[1:]]) + "\n")
    ends = tmp_path / "ends.csv"  # a space after the last value too, and a reset of 1
    ends.write_text("\n".join([lines[0]] + [r[:-1] + "1 " for r in lines[1:]]) + "\n")
    for path in (spaced, padded):
        read = read_truth(path)
        assert all(np.array_equal(getattr(read, f), getattr(plain, f)) for f in _TRUTH_ARRAYS)
    assert read_truth(ends).reset.all() and np.array_equal(read_truth(ends).p_m, plain.p_m)
    bad = tmp_path / "bad.csv"
    bad.write_text("\n".join([lines[0]] + [r[:-1] + " 2" for r in lines[1:]]) + "\n")
    _fails_in_one_line(
        capsys, _simulate(tmp_path, bad), tmp_path, "bad.csv: line 2: reset = ' 2' must be"
    )


@pytest.mark.parametrize(
    "argv, words",
    [
        (["campaign", "run", "c.json", "--out", "a\0b"], "--out 'a\\x00b': a path cannot hold"),
        (["campaign", "run", "a\0.json", "--out", "o"], "FILE 'a\\x00.json': a path cannot hold"),
        (["campaign", "summary", "a\0b"], "DIR 'a\\x00b': a path cannot hold a NUL"),
        (["campaign", "rerun", "a\0b", "x"], "DIR 'a\\x00b': a path cannot hold a NUL"),
    ],
)
def test_a_campaign_path_with_a_nul_character(tmp_path, base, capsys, argv, words):
    """campaign run --out 'a\\0b' (and summary's or rerun's DIR, run's FILE) was Python's
    ValueError 'embedded null byte' at the first mkdir or open (an internal error; found by
    giving every path option a NUL)."""
    (tmp_path / "c.json").write_text(json.dumps({"seeds": [1], "sources": [{"scenario": "x"}]}))
    _fails_in_one_line(capsys, argv, tmp_path, words)


def test_a_route_leg_faster_than_a_truth_log_allows(tmp_path, capsys):
    """speed_mps = 1e300 on a leg ended in a message quoting a 300-digit number of seconds
    (found by probing route files); a leg's speed is limited as the truth log's velocity is."""
    route = {"points": [{"enu_m": [0, 0, 0]}, {"enu_m": [30, 0, 0], "speed_mps": 1e300}]}
    (tmp_path / "r.json").write_text(json.dumps(route))
    argv = ["truth", "--track", tmp_path / "r.json", "--out", tmp_path / "o.csv"]
    _fails_in_one_line(capsys, argv, tmp_path, "points[1].speed_mps = 1e+300 must be <= 10000")


def test_a_configuration_of_millions_of_outage_windows_ends_at_once(tmp_path, base, capsys):
    """A configuration file of 2 million correction outages (40 MB) took 16 s and 800 MB before
    anything was said (the JSON depth scan ran a Python loop over every character, merging the
    layers copied every window), and a run of 200 000 took 7.7 s for 2 s of truth (found by
    probing big arrays): at most 100 000 windows a key, refused as the file is read."""
    from navsense.config.schema import MAX_INTERVALS

    windows = ",".join(f"[{i},{i}.5]" for i in range(2 * MAX_INTERVALS))
    (tmp_path / "c.json").write_text(f'{{"gnss": {{"corrections": {{"outages_s": [{windows}]}}}}}}')
    with time_limit(10):
        argv = ["config", "show", "--config", tmp_path / "c.json"]
        _fails_in_one_line(capsys, argv, tmp_path, "outages_s = [[0, 0.5], [1, 1.5]")
    (tmp_path / "c.json").unlink()
    argv = ["config", "show", "--set", "gnss.signal_outages_s=[" + windows + "]"]
    _fails_in_one_line(capsys, argv, tmp_path, f"has {2 * MAX_INTERVALS} windows; at most")


@pytest.mark.parametrize("duration", ["1e-300", "0.001"])
def test_a_duration_shorter_than_three_physics_steps(tmp_path, base, capsys, duration):
    """simulate --duration 0.001 made a run of one physics step: no IMU row, and report then
    called the run's own empty imu.jsonl unreadable (found by probing the options' edges). A cut
    keeps at least the 3 steps a truth log must have; 2/120 s does."""
    argv = _simulate(tmp_path, base / "truth.csv", "--duration", duration)
    _fails_in_one_line(capsys, argv, tmp_path, "keeps 1 physics step(s) at 120 Hz; a run needs")
    assert (
        main([str(a) for a in _simulate(tmp_path, base / "truth.csv", "--duration", "0.0167")]) == 0
    )
    assert main(["report", str(tmp_path / "out")]) == 0


@pytest.mark.parametrize(
    "origin, words",
    [
        (["0", "0", "1e300"], "--origin H_M = 1e+300 is out of range -10000..100000"),
        (["0", "1e300", "0"], "--origin LON_DEG = 1e+300 is out of range -180..180"),
        (["nan", "0", "0"], "--origin LAT_DEG = nan is out of range -90..90"),
    ],
)
def test_a_geo_origin_beyond_a_site_files_limits(tmp_path, capsys, origin, words):
    """geo --origin 0 0 1e300 ended in 'latitude_deg = nan is out of range (EGM96 geoid)', and a
    longitude of 1e300 was taken modulo 360 and converted (found by probing geo's options): the
    origin has a site file's limits, named by the option."""
    argv = ["geo", "--from", "enu", "--enu", "1", "2", "3", "--origin", *origin]
    _fails_in_one_line(capsys, argv, tmp_path, words)


@pytest.mark.parametrize(
    "change, words",
    [
        (
            {"sources": [{"truth": "a\0b.csv"}]},
            'sources[0].truth = "a\\u0000b.csv" is not a file path',
        ),
        ({"sources": [{"truth": "t.csv", "site": "a\0.json"}]}, "sources[0].site = "),
        ({"config": "a\0.json"}, 'config = "a\\u0000.json" is not a file path'),
        ({"duration_s": 0.001}, "duration_s = 0.001 keeps 1 physics step(s) at 120 Hz"),
        ({"sources": [{"truth": "t.csv", "duration_s": 1e-300}]}, "sources[0].duration_s: "),
    ],
)
def test_a_campaign_file_path_with_a_nul_or_a_cut_of_one_step(
    tmp_path, base, capsys, change, words
):
    """A campaign source's path with a NUL character was Python's ValueError 'embedded null byte'
    (an internal error), and duration_s = 0.001 failed every run instead of the file (found by
    probing campaign files' keys)."""
    shutil.copy(base / "truth.csv", tmp_path / "t.csv")
    campaign = {"seeds": [1], "sources": [{"truth": "t.csv"}], **change}
    (tmp_path / "c.json").write_text(json.dumps(campaign))
    argv = ["campaign", "run", tmp_path / "c.json", "--out", tmp_path / "o", "--workers", "0"]
    _fails_in_one_line(capsys, argv, tmp_path, words)


@pytest.mark.parametrize("column", ["t_s", "e_m", "qw"])
def test_a_csv_estimate_with_a_column_twice(tmp_path, base, capsys, column):
    """A CSV estimate whose header named t_s (or a position or attitude column) twice was scored
    with the first and the second left out without a word (found by probing estimate files)."""
    header = "t_s,e_m,n_m,u_m,qx,qy,qz,qw"
    lines = [f"{header},{column}"]
    lines += [",".join(map(repr, r)) + ",1" for r in _estimate_rows(base / "run")]
    (tmp_path / "e.csv").write_text("\n".join(lines) + "\n")
    argv = ["score", base / "run", tmp_path / "e.csv", "--out", tmp_path / "s.json", "--quiet"]
    _fails_in_one_line(capsys, argv, tmp_path, f"the column {column} is in the header 2 times")


@pytest.mark.parametrize("change", ["rename", "null"])
def test_a_gnss_row_without_a_satellite_count(tmp_path, base, capsys, change):
    """A GNSS row whose satellites_foliage key lost a letter (one byte removed) was NaN in the
    report's counts and int(nan) in the sky plot's title (an internal error; found by the fuzz
    suite's report test at 1000 examples): the row is named."""
    run = tmp_path / "run"
    shutil.copytree(base / "run", run)
    lines = (run / "gnss.jsonl").read_text().splitlines()
    row = json.loads(lines[3])
    if change == "rename":
        row["atellites_foliage"] = row.pop("satellites_foliage")
    else:
        row["satellites_foliage"] = None
    lines[3] = json.dumps(row)
    (run / "gnss.jsonl").write_text("\n".join(lines) + "\n")
    _fails_in_one_line(capsys, ["report", run], tmp_path, "gnss.jsonl: row 4: satellites_foliage")


def test_truth_of_a_long_track_fails_before_it_writes_and_sums_in_chunks(
    tmp_path, capsys, monkeypatch
):
    """navsense truth of a 20-hour ENU track (a first point at t_s = -72731: found by the fuzz
    suite) evaluated all 8.7 million steps at once for its summary line after writing the log,
    ran out of memory there and ended in exit 2 beside a complete log. The figures are now
    computed a chunk at a time before the log is written (the same figures; here chunks of 7
    steps), and a failure there leaves nothing."""
    import navsense.truth.track_report as track_report
    from navsense.truth.track_kinematics import TrackTrajectory

    rows = ["x_m,y_m,z_m,t_s"] + [f"{400 + 2.0 * i},{300 + 1.0 * i},0,{i}" for i in range(20)]
    (tmp_path / "t.csv").write_text("\n".join(rows) + "\n")
    argv = ["truth", "--track", str(tmp_path / "t.csv"), "--out", str(tmp_path / "a.parquet")]
    assert main(argv) == 0
    whole = capsys.readouterr().out
    monkeypatch.setattr(track_report, "_FIGURE_STEPS", 7)
    assert main([*argv[:-1], str(tmp_path / "b.parquet")]) == 0
    assert capsys.readouterr().out == whole.replace("a.parquet", "b.parquet")

    def no_memory(self, t_s):
        raise MemoryError

    monkeypatch.setattr(TrackTrajectory, "evaluate", no_memory)
    (tmp_path / "a.parquet").unlink()
    (tmp_path / "b.parquet").unlink()
    code = main([*argv[:-1], str(tmp_path / "c.parquet")])
    assert code == 2 and "out of memory" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.csv"]


def test_a_text_value_of_a_rows_file_that_is_not_utf8(tmp_path, base, capsys):
    """A byte 0x80 inserted in gnss.jsonl's first fix_type: Arrow's JSON reader kept the string's
    bytes and the report's decoding was a UnicodeDecodeError (an internal error; found by the
    fuzz suite's report test at 1000 examples)."""
    run = tmp_path / "run"
    shutil.copytree(base / "run", run)
    data = (run / "gnss.jsonl").read_bytes()
    at = data.index(b'"fix_type":"') + len(b'"fix_type":"')
    (run / "gnss.jsonl").write_bytes(data[:at] + b"\x80" + data[at:])
    _fails_in_one_line(
        capsys, ["report", run], tmp_path, "gnss.jsonl: row 1: fix_type is not UTF-8"
    )


def test_a_route_is_sampled_a_chunk_at_a_time_with_the_same_values(monkeypatch):
    """navsense truth of a route 306 km long (its first point moved to y = -305755 m: found by
    the fuzz suite) is 7.3 million rows: Trajectory.sample evaluated them all at once, 3.4 GB,
    out of memory under the suite's cap. It evaluates a chunk of rows at a time (2.2 GB for
    that route, the same bytes); here chunks of 7 rows against one chunk."""
    import navsense.truth.waypoints as waypoints

    route = [
        {"enu_m": [0, 0, 0]},
        {"enu_m": [60, 5, 1], "speed_mps": 5},
        {"enu_m": [80, 60, 0], "speed_mps": 3},
    ]
    traj = waypoints.plan_trajectory(route, "polaris")
    whole = traj.sample()
    monkeypatch.setattr(waypoints, "SAMPLE_CHUNK_ROWS", 7)
    chunked = traj.sample()
    for name in ("p_m", "v_mps", "q_xyzw", "w_radps", "c_m"):
        assert np.array_equal(getattr(chunked, name), getattr(whole, name)), name


def test_a_live_speed_so_high_that_the_time_due_is_infinite(tmp_path, base, capsys):
    """live --speed 1.7e308: the physics time due after a step (elapsed wall time x speed x
    rate) was infinity and math.floor's OverflowError (an internal error; the fuzz suite's
    --speed 1.1e307 on a loaded machine, where a step took more than 0.14 s). --speed is at
    most 1e9, checked before the truth is read."""
    argv = ["live", "--truth", base / "truth.csv", "--quiet", "--no-foxglove", "--speed", "1.7e308"]
    _fails_in_one_line(capsys, argv, tmp_path, "--speed 1.7e+308 must be a positive number")


def test_a_covariance_entry_near_the_float_limit_is_no_covariance():
    """A CSV estimate's cov_eu_m2 = 1.7976931348623157e308 made numpy's eigenvalue solver fail
    ('Eigenvalues did not converge', an internal error of score; found by the fuzz suite at 3000
    examples): such a covariance is none at that epoch (NaN NEES), as a non-finite one is."""
    from navsense.score.metrics import nees

    cov = np.stack([np.eye(3), np.eye(3)])
    cov[0, 0, 2] = cov[0, 2, 0] = 1.7976931348623157e308
    out = nees(np.ones((2, 3)), cov)
    assert np.isnan(out["3d"][0]) and out["3d"][1] == 3.0


def test_a_command_started_with_its_standard_output_closed(tmp_path, base, capsys, monkeypatch):
    """navsense config show >&- (Python's sys.stdout is None): the first write was an
    AttributeError, an internal error, and even a run that wrote nothing there ended with a
    traceback at the process's exit flush (found by probing closed and full standard streams).
    A write is now 'standard output: Bad file descriptor' as a full one is 'No space left'."""
    import sys

    monkeypatch.setattr(sys, "stdout", None)
    assert main(["config", "show"]) == 2
    assert capsys.readouterr().err == "navsense: error: standard output: Bad file descriptor\n"
    assert main([str(a) for a in _simulate(tmp_path, base / "truth.csv")]) == 0
    sys.stdout.flush()  # the process's exit does this


def test_a_campaign_directory_whose_statistics_table_is_a_directory(tmp_path, base, capsys):
    """campaign run --out DIR with DIR/statistics.parquet a directory did every run and then
    failed renaming the table onto it (after a note line when the campaign was resumed: two
    lines; found by probing campaign directories): refused before any run."""
    shutil.copy(base / "truth.csv", tmp_path / "t.csv")
    campaign = {"seeds": [1], "sources": [{"truth": "t.csv"}]}
    (tmp_path / "c.json").write_text(json.dumps(campaign))
    (tmp_path / "o" / "statistics.parquet").mkdir(parents=True)
    (tmp_path / "o" / "campaign.json").write_text("{}")  # a campaign's folder (resumed)
    argv = ["campaign", "run", tmp_path / "c.json", "--out", tmp_path / "o", "--workers", "0"]
    _fails_in_one_line(capsys, argv, tmp_path, "statistics.parquet: a directory or no regular")


def test_a_campaign_is_not_spread_over_a_folder_of_other_files(tmp_path, base, capsys):
    """campaign run --out DIR, DIR an existing folder of other files and no campaign.json, wrote
    campaign.json, results/ and the tables among them (session 13's note). Refused before any
    run, nothing written; an empty existing folder is used."""
    shutil.copy(base / "truth.csv", tmp_path / "t.csv")
    campaign = {"seeds": [1], "sources": [{"truth": "t.csv"}], "duration_s": 2}
    (tmp_path / "c.json").write_text(json.dumps(campaign))
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("my own file")
    argv = ["campaign", "run", tmp_path / "c.json", "--out", tmp_path / "mine", "--workers", "0"]
    line = _fails_in_one_line(capsys, argv, tmp_path, "holds other files and no campaign")
    assert "give a new or empty folder" in line
    (tmp_path / "empty").mkdir()
    argv[4] = tmp_path / "empty"
    assert main([str(a) for a in argv]) == 0, capsys.readouterr().err
    assert (tmp_path / "empty" / "campaign.json").is_file()


@pytest.mark.parametrize("mcap", [False, True])
def test_a_run_whose_summary_cannot_be_written_is_not_kept(tmp_path, base, mcap):
    """navsense simulate > /dev/full (or | head -c0) ended with exit 2 beside a complete run
    directory: the summary was printed after the rename (found by the fuzz round). The summary
    is now written before the run directory gets its name, and a failure there is the run's."""
    import subprocess
    import sys

    argv = [sys.executable, "-m", "navsense", "simulate", "--truth", str(base / "truth.csv")]
    argv += ["--out", "run", *(["--mcap"] if mcap else [])]
    with open("/dev/full", "w") as full:
        done = subprocess.run(argv, cwd=tmp_path, stdout=full, stderr=subprocess.PIPE, text=True)
    assert (done.returncode, done.stderr) == (
        2,
        "navsense: error: standard output: No space left on device (the run's summary; "
        "nothing kept)\n",
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "words", [["--version"], ["--help"], ["geo", "--help"], ["scenarios"], ["config", "show"]]
)
def test_a_full_standard_output_is_named_and_never_a_success(tmp_path, words):
    """navsense scenarios > /dev/full ended with the bare 'navsense: error: No space left on
    device', and --version or --help > /dev/full with status 0 and no word (argparse swallows
    the failed write): each is now 'standard output: No space left on device', exit 2."""
    import subprocess
    import sys

    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "navsense", *words],
            cwd=tmp_path,
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
        )
    assert (done.returncode, done.stderr) == (
        2,
        "navsense: error: standard output: No space left on device\n",
    )


@pytest.mark.parametrize("target", ["fifo", "link to a fifo", "link to a file"])
def test_force_never_replaces_a_pipe_a_device_or_a_link(tmp_path, capsys, target):
    """navsense geo (truth, export, site, allan) --out /dev/null --force replaced the device with
    a regular file (its output written beside it in /dev and renamed onto it: for every process
    of the machine when run as root), and --out /dev/stdout --force replaced that link: found
    with /dev/null, /dev/full and /dev/stdout gone from this machine. --force replaces a regular
    file only (a named pipe stands in for the devices here: a failing test must not break the
    machine's /dev/null)."""
    points = tmp_path / "p.csv"
    points.write_text("e_m,n_m,u_m\n1,2,3\n")
    track = tmp_path / "drive.csv"
    track.write_text("t_s,x_m,y_m\n0,0,0\n1,1,0\n2,2,0\n3,3,0\n")
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    (tmp_path / "kept.csv").write_text("a user's file\n")
    out = tmp_path / "out.csv"
    if target == "fifo":
        out = fifo
    else:
        out.symlink_to(fifo if target == "link to a fifo" else tmp_path / "kept.csv")
    words = "symbolic link" if target.startswith("link") else "is a FIFO, not a regular"
    for argv in (
        ["geo", "--from", "enu", "--in", points, "--out", out, "--force"],
        ["truth", "--track", track, "--out", out, "--force"],
    ):
        _fails_in_one_line(capsys, argv, tmp_path, words)
    assert (tmp_path / "kept.csv").read_text() == "a user's file\n"


def test_a_name_that_is_not_utf8_is_shown_with_its_bytes(tmp_path, capsys):
    """navsense simulate --truth $'\\xff.csv' said 'navsense: error: .csv: no such truth log': the
    byte that is not UTF-8 (a surrogate escape in Python) was dropped as unprintable. It is
    shown as \\xff now, so the line names the file that was given."""
    name = os.fsdecode(b"\xff.csv")
    line = _fails_in_one_line(capsys, ["simulate", "--truth", tmp_path / name], tmp_path)
    assert f"{tmp_path}/\\xff.csv: no such truth log" in line, line


def test_an_output_that_is_the_commands_own_input_is_refused(tmp_path, capsys):
    """navsense truth --track X --out X --force (and geo --in X --out X --force) replaced the
    input with what was made of it (noted by the fuzz round): the output may not be the file
    the command reads, with or without --force, and the input stays as it was."""
    track = tmp_path / "drive.csv"
    track.write_text("t_s,x_m,y_m\n0,0,0\n1,1,0\n2,2,0\n3,3,0\n")
    points = tmp_path / "p.csv"
    points.write_text("e_m,n_m,u_m\n1,2,3\n")
    before = {p: p.read_bytes() for p in (track, points)}
    for argv, words in (
        (["truth", "--track", track, "--out", track, "--force"], "is the --track file"),
        (["geo", "--from", "enu", "--in", points, "--out", points, "--force"], "is the --in file"),
    ):
        _fails_in_one_line(capsys, argv, tmp_path, words)
    assert {p: p.read_bytes() for p in (track, points)} == before


def test_a_csv_logs_sidecar_that_is_the_commands_own_input_is_refused(tmp_path, capsys):
    """navsense truth --out X.csv --force writes the sidecar X.truth.json: a waypoint route
    (--track) or a site file (--site) of that name was replaced with the log's metadata, exit 0
    (the fuzz helper's finding). The sidecar may not be a file the command reads either."""
    points = [{"enu_m": [0, 0, 0]}, {"enu_m": [30, 0, 0], "speed_mps": 3.0}]
    route = tmp_path / "r.truth.json"
    route.write_text(json.dumps({"points": points}))
    site = tmp_path / "s.truth.json"
    site.write_text(json.dumps({"name": "s", "georeference": {"kind": "acre"}}))
    before = {p: p.read_bytes() for p in (route, site)}
    for argv, words in (
        (["truth", "--track", route, "--out", tmp_path / "r.csv", "--force"], "--track file"),
        (
            ["truth", "--track", route, "--site", site, "--out", tmp_path / "s.csv", "--force"],
            "--out (its sidecar) " + str(site) + " is the --site file that it is made from",
        ),
    ):
        _fails_in_one_line(capsys, argv, tmp_path, words)
    assert {p: p.read_bytes() for p in (route, site)} == before
    assert not (tmp_path / "r.csv").exists() and not (tmp_path / "s.csv").exists()


_GPX_POINT = '<trkpt lat="{lat}" lon="-86.99"><time>2026-05-04T09:30:0{i}Z</time></trkpt>'


@pytest.mark.parametrize("bad", ["4_0.474", "nan", "infinity", "\u0664\u0660.474", "0x28"])
def test_a_track_coordinate_that_is_not_a_decimal_number(tmp_path, capsys, bad):
    """A GPX or track CSV coordinate was read with Python's float(): 4_0.474 was 40.474, and
    'nan', 'infinity' and other scripts' digits were numbers too (noted by the fuzz round; the
    truth CSV reader refuses them). Now it must be a decimal number, as GPX and CSV write it."""
    lats = [bad, "40.4741", "40.4742", "40.4743"]
    points = "".join(_GPX_POINT.format(lat=lat, i=i) for i, lat in enumerate(lats))
    gpx = f'<gpx version="1.1" creator="t"><trk><trkseg>{points}</trkseg></trk></gpx>'
    (tmp_path / "t.gpx").write_text(gpx, encoding="utf-8")
    rows = "".join(f"{lat},-86.99,{i}\n" for i, lat in enumerate(lats))
    (tmp_path / "t.csv").write_text("lat_deg,lon_deg,t_s\n" + rows, encoding="utf-8")
    for name in ("t.gpx", "t.csv"):
        argv = ["truth", "--track", tmp_path / name, "--out", tmp_path / "o.parquet"]
        _fails_in_one_line(capsys, argv, tmp_path, f"{bad!r} is not a number")


@pytest.mark.parametrize("child", ["<time>2026-05-04T09:30:09Z</time>", "<ele>300</ele>"])
def test_a_gpx_point_with_its_time_or_height_twice(tmp_path, capsys, child):
    """A trkpt with two <time> (or <ele>) was read with the first by gpxpy and checked with the
    last (noted by the fuzz round): which one was meant cannot be known; refused, by line."""
    points = [
        _GPX_POINT.format(lat=f"40.474{i}", i=i).replace("<time>", "<ele>200</ele><time>")
        for i in range(4)
    ]
    points[2] = points[2].replace("</trkpt>", f"{child}</trkpt>")
    gpx = '<gpx version="1.1" creator="t"><trk><trkseg>\n' + "\n".join(points) + "\n</trkseg>"
    (tmp_path / "t.gpx").write_text(gpx + "</trk></gpx>", encoding="utf-8")
    argv = ["truth", "--track", tmp_path / "t.gpx", "--out", tmp_path / "o.parquet"]
    tag = child[1:5].rstrip(">")
    _fails_in_one_line(capsys, argv, tmp_path, f"line 4, trkpt[2]: <{tag}> twice")


def test_a_configuration_file_name_too_long_says_so(tmp_path, base, capsys):
    """--config with a name of 300 bytes said "No such file or directory" (os.path.lexists is
    False for any error; noted by the fuzz round): the system's reason is the line's."""
    name = tmp_path / ("a" * 300 + ".json")
    argv = _simulate(tmp_path, base / "truth.csv", "--config", name)
    _fails_in_one_line(capsys, argv, tmp_path, "cannot read the configuration file (File name too")


def test_a_site_name_of_100_kb_in_a_sidecar_names_the_sidecar(tmp_path, base, capsys):
    """A truth CSV's sidecar with a site name of 100 000 characters ended in the system's 'File
    name too long' after the whole name, cut before the sidecar was named (noted by the fuzz
    round): the name is no file name, so it is an unknown embedded site, shown shortened."""
    truth = tmp_path / "d.csv"
    shutil.copy(base / "truth.csv", truth)
    (tmp_path / "d.truth.json").write_text(json.dumps({"site": "x" * 100_000}))
    line = _fails_in_one_line(
        capsys, _simulate(tmp_path, truth), tmp_path, "d.truth.json: site: site = 'xxx"
    )
    assert line.endswith("... is not an embedded site; known: acre") and len(line) < 500


@pytest.mark.parametrize(
    "duration, words",
    [
        (1e300, "c.json: duration_s = 1e+300 is more than 1e+09 s"),  # any run's limit (30fd236)
        (86_401, "sources[0].duration_s: acre-loop.waypoints"),
    ],
)
def test_a_campaign_scenario_longer_than_a_day_is_refused_before_any_run(
    tmp_path, capsys, duration, words
):
    """duration_s = 1e300 on a scenario source passed the campaign's checks and failed its
    every run (exit 1 after a results folder was made; found by the fourth fuzz round): a
    route is built to at most 24 h (waypoints.MAX_TRUTH_STEPS), known when the file loads."""
    doc = {"seeds": [1], "duration_s": duration, "sources": [{"scenario": "acre-loop"}]}
    (tmp_path / "c.json").write_text(json.dumps(doc))
    argv = ["campaign", "run", tmp_path / "c.json", "--out", tmp_path / "o", "--workers", "0"]
    _fails_in_one_line(capsys, argv, tmp_path, words)


@pytest.mark.parametrize(
    "key, value, words",
    [
        ("overrides", "x", "does not match its id"),  # was ValueError: not enough values
        ("config", "/c.json", "does not match its id"),  # was TypeError: string indices
        ("run_id", "../../evil", 'run "../../evil" does not match'),  # was a rerun outside
    ],
)
def test_a_damaged_run_record_is_not_rerun(tmp_path, base, capsys, key, value, words):
    """campaign rerun of a run whose record in campaign.json was changed: overrides or config
    of another type ended in an internal error, a run id '../../evil' wrote the rerun beside
    the campaign directory (found by the fourth fuzz round). The record must be the one its
    id was made of (p<point>-s<seed>-<hash of the record>)."""
    doc = {"seeds": [1], "duration_s": 1, "sources": [{"truth": str(base / "truth.csv")}]}
    (tmp_path / "c.json").write_text(json.dumps(doc))
    out = tmp_path / "o"
    argv = ["campaign", "run", tmp_path / "c.json", "--out", out, "--workers", "0", "--quiet"]
    assert main([str(a) for a in argv]) == 0
    capsys.readouterr()
    campaign = json.loads((out / "campaign.json").read_text())
    campaign["runs"][0][key] = value
    (out / "campaign.json").write_text(json.dumps(campaign))
    rid = campaign["runs"][0]["run_id"]
    _fails_in_one_line(capsys, ["campaign", "rerun", out, rid], tmp_path, words)


def test_a_track_with_a_gap_of_hours_is_refused_at_the_gap(tmp_path, capsys):
    """A track whose last point came 80 000 s after the one before (a timestamp mutated, a logger
    paused overnight) was bridged by the spline: a drive of 61 km between points 47 m apart,
    9.6 million rows, 2.8 GB and 28 s. Points may be at most 600 s apart (a tunnel of 10 km at
    60 km/h); the line names the point and the gap."""
    (tmp_path / "t.csv").write_text("t_s,x_m,y_m\n0,0,0\n1,1,0\n2,2,0\n3,3,0\n80000,50,0\n")
    argv = ["truth", "--track", tmp_path / "t.csv", "--out", tmp_path / "o.parquet"]
    _fails_in_one_line(
        capsys,
        argv,
        tmp_path,
        "line 6: time 80000 s is 79997 s after the previous point's (line 5)",
    )
    ok = "t_s,x_m,y_m\n0,0,0\n1,1,0\n2,2,0\n3,3,0\n603,30,0\n604,31,0\n"  # 600 s: bridged
    (tmp_path / "t.csv").write_text(ok)
    with time_limit(60):
        assert main([str(a) for a in argv]) == 0


@pytest.mark.parametrize(
    "extra, words",
    [
        ("x_m,y_m,z_m", "names e_m, n_m, u_m and x_m, y_m, z_m as position columns"),
        ("cov_ee_m2,cov_en_m2,cov_eu_m2,cov_nn_m2,cov_nu_m2,cov_uu_m2", "one covariance group"),
    ],
)
def test_a_csv_estimate_with_two_groups_of_one_kind(tmp_path, base, capsys, extra, words):
    """A CSV estimate with both e_m.. and x_m.. (both site ENU), or both sigmas and a full
    covariance, was scored with the first group and the other noted as ignored (found by the
    fourth fuzz round); csvfile's docstring allows exactly one position group and one
    covariance group: which one is meant cannot be known, refused naming the header line."""
    n = len(extra.split(","))
    rows = ["t_s,e_m,n_m,u_m,sigma_e_m,sigma_n_m,sigma_u_m," + extra]
    rows += [f"{t},0,0,0,1,1,1," + ",".join(["1"] * n) for t in range(3)]
    (tmp_path / "e.csv").write_text("\n".join(rows) + "\n")
    argv = ["score", base / "run", tmp_path / "e.csv", "--no-plots", "--out", tmp_path / "s.json"]
    _fails_in_one_line(capsys, argv, tmp_path, words)


@pytest.mark.parametrize("damage", ["campaign.json array", "result a directory"])
def test_a_campaign_resumed_in_a_damaged_directory(tmp_path, base, capsys, damage):
    """campaign run into its directory again (found by the fourth fuzz round): a campaign.json
    of [] ended in AttributeError, an internal error (now: the damaged copy is replaced, as
    invalid JSON was); a result file that is a directory made the run, then failed to rename
    its result onto it, after the note line (now: refused naming it, before any run)."""
    doc = {"seeds": [1], "duration_s": 1, "sources": [{"truth": str(base / "truth.csv")}]}
    (tmp_path / "c.json").write_text(json.dumps(doc))
    out = tmp_path / "o"
    argv = ["campaign", "run", tmp_path / "c.json", "--out", out, "--workers", "0", "--quiet"]
    argv = [str(a) for a in argv]
    assert main(argv) == 0
    capsys.readouterr()
    if damage == "campaign.json array":
        (out / "campaign.json").write_text("[]")
        assert main(argv) == 0, capsys.readouterr().err
        assert "runs" in json.loads((out / "campaign.json").read_text())
        return
    (result,) = (out / "results").iterdir()
    result.unlink()
    result.mkdir()
    _fails_in_one_line(capsys, argv, tmp_path, f"{result.name}: a directory, where the campaign")


def test_live_an_empty_pty_link_name_is_refused(tmp_path, capsys):
    """live --nmea-pty '' was the option alone (no link) and the run started, serving for as
    long as the scenario lasts (found by the fourth fuzz round): an empty LINK is no file name.
    (--set gnss.hz=0: the old main failed there instead of serving.)"""
    argv = ["live", "--no-foxglove", "--nmea-pty", "", "--set", "gnss.hz=0"]
    _fails_in_one_line(capsys, argv, tmp_path, "argument --nmea-pty: '' is not a link name")
    argv = ["live", "--no-foxglove", "--nmea-pty", "--set", "gnss.hz=0"]  # alone: as before
    _fails_in_one_line(capsys, argv, tmp_path, "gnss.hz = 0 is out of range")


def test_a_campaign_estimator_timeout_beyond_30_days_is_refused_at_load(tmp_path, capsys):
    """estimator.timeout_s = 1e300 passed the campaign's checks and failed every run with
    'OverflowError: timestamp too large to convert to C _PyTime_t' (found by the fourth fuzz
    round): at most 30 days, refused naming the key before any run."""
    doc = {
        "seeds": [1],
        "duration_s": 1,
        "sources": [{"scenario": "acre-loop"}],
        "estimator": {"command": "true", "timeout_s": 1e300},
    }
    (tmp_path / "c.json").write_text(json.dumps(doc))
    argv = ["campaign", "run", tmp_path / "c.json", "--out", tmp_path / "o", "--workers", "0"]
    _fails_in_one_line(capsys, argv, tmp_path, "estimator.timeout_s = 1e+300 is more than 2592000")


def test_an_output_file_name_ending_with_a_slash_is_refused(tmp_path, base, capsys):
    """export mcap --out x.mcap/ wrote a file named x.mcap (pathlib drops the trailing slash;
    noted by the fuzz round): a name ending with '/' is a folder's, refused before any work."""
    run = tmp_path / "run"
    shutil.copytree(base / "run", run)
    out = str(tmp_path / "x.mcap") + "/"
    _fails_in_one_line(capsys, ["export", "mcap", run, "--out", out], tmp_path, "ends with '/'")


def _damaged_rows(run: Path, name: str, damage: str) -> None:
    """``name`` (JSON Lines rows of ``run``) cut inside its last row, its rows in reverse order,
    the specific force of its sixth row null, or its sixth row's fix type unknown."""
    import orjson

    data = (run / name).read_bytes()
    if damage == "cut":  # inside the last row, after its time keys
        last = data.rstrip(b"\n").rfind(b"\n") + 1
        (run / name).write_bytes(data[: last + 200])
        return
    rows = data.splitlines(keepends=True)
    if damage == "reversed":
        (run / name).write_bytes(b"".join(reversed(rows)))
        return
    row = orjson.loads(rows[5])
    if damage == "fix_type":
        row["fix_type"] = "rtk_magic"
    else:
        row["specific_force_flu_mps2"] = None
    rows[5] = orjson.dumps(row) + b"\n"
    (run / name).write_bytes(b"".join(rows))


@pytest.mark.parametrize(
    "name, damage, argv, words",
    [
        ("ins.jsonl", "cut", ["report", "RUN"], "ins.jsonl: line {last} is not a whole JSON row"),
        (
            "ins.jsonl",
            "reversed",
            ["report", "RUN"],
            "ins.jsonl: row 2: sample_time_s = {second} is before row 1's",
        ),
        (
            "imu.jsonl",
            "null",
            ["export", "mcap", "RUN", "--raw-imu"],
            "imu.jsonl: row 6: specific_force_flu_mps2 is null",
        ),
        (  # the row was not named (the fuzz hunt, session 15)
            "gnss.jsonl",
            "fix_type",
            ["export", "mcap", "RUN", "--gnss-fix"],
            "gnss.jsonl: row 6: fix_type = 'rtk_magic' is not one of no_fix, single",
        ),
    ],
)
def test_a_reader_refuses_rows_cut_reversed_or_null(
    tmp_path, base, capsys, name, damage, argv, words
):
    """Found by the fuzz suite: navsense report read an ins.jsonl cut inside its last row (the
    fast scan of its times found every key) or with its rows in reverse order, and export mcap
    --raw-imu wrote an IMU message of NaN for a null specific force. Each reader of a run's rows
    (navsense.runs.reader) checks the file is whole, its times in order and a value that
    is never null there; one line names the file, the row (or line) and the key."""
    import orjson

    run = tmp_path / "run"
    shutil.copytree(base / "run", run)
    lines = (run / name).read_bytes().splitlines()
    second = orjson.loads(lines[-2])["sample_time_s"]
    _damaged_rows(run, name, damage)
    argv = [run if a == "RUN" else a for a in argv]
    line = _fails_in_one_line(capsys, argv, tmp_path)
    assert words.format(last=len(lines), second=second) in line, line


@pytest.mark.parametrize("command", ["truth", "simulate"])
def test_a_track_shorter_than_a_truth_log_is_refused(tmp_path, capsys, command):
    """Five points 2 ms apart (8 ms): a truth of one row and a run of one physics step without
    an IMU row, with no word (issue 28, found by the fuzz suite). One line naming the file,
    nothing written."""
    rows = ["x_m,y_m,z_m,t_s"] + [f"{400 + 0.01 * i},300,0,{0.002 * i:.3f}" for i in range(5)]
    (tmp_path / "short.csv").write_text("\n".join(rows) + "\n")
    out = tmp_path / ("t.parquet" if command == "truth" else "run")
    code = main([command, "--track", str(tmp_path / "short.csv"), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "short.csv: the track lasts 0.008 s, 1 physics step(s) at 120 Hz" in err
    assert not out.exists()


def test_points_1_ms_apart_as_written_are_a_1_khz_recording(tmp_path, capsys):
    """Times written 1 ms apart (0.010, 0.011: 0.00099999.. s as floats) were refused as 'is
    0.001 s after the previous point's; points must be at least 0.001 s apart'."""
    rows = ["x_m,y_m,z_m,t_s"] + [f"{400 + 0.005 * i},300,0,{0.001 * i:.3f}" for i in range(40)]
    (tmp_path / "khz.csv").write_text("\n".join(rows) + "\n")
    code = main(
        ["truth", "--track", str(tmp_path / "khz.csv"), "--out", str(tmp_path / "t.parquet")]
    )
    assert code == 0, capsys.readouterr().err


def test_an_empty_run_directory_name_is_named_as_given(tmp_path, base, capsys, monkeypatch):
    """simulate, live and campaign rerun --out '' were refused as "--out '.': not a directory
    name" (Path('') is '.'), a name the user did not give (the fuzz helper's note). Now the
    empty name as given, nothing written."""
    monkeypatch.chdir(tmp_path)
    truth = str(base / "truth.csv")
    for argv in (
        ["simulate", "--truth", truth, "--quiet", "--out", ""],
        ["live", "--truth", truth, "--quiet", "--no-foxglove", "--out", ""],
    ):
        line = _fails_in_one_line(capsys, argv, tmp_path)
        assert line == "navsense: error: --out '': not a directory name; give the run directory"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "argv, name",
    [
        (["report", ""], "RUN_DIR"),
        (["allan", ""], "RUN_DIR"),
        (["export", "mcap", ""], "RUN_DIR"),
        (["score", "", "est.tum"], "RUN_DIR"),
        (["score", "run", ""], "ESTIMATE"),
    ],
)
def test_an_empty_run_directory_or_estimate_is_named_as_given(
    tmp_path, capsys, monkeypatch, argv, name
):
    """report, allan, export mcap and score took RUN_DIR '' as the working folder and said
    ".: not a run directory (no episode.json)", a name the user did not give (session 13's note).
    Now argparse's line names the argument and the empty name; nothing written."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "run").mkdir()
    line = _fails_in_one_line(capsys, argv, tmp_path)
    assert f"argument {name}: '' is not a " in line, line
    assert "'.'" not in line and ".:" not in line, line


@pytest.mark.parametrize(
    "option, words",
    [
        ("--truth", "truth = '' is not a file name; give a truth log"),
        ("--track", "track = '' is not a file name; give a GPS track"),
        ("--scenario", "scenario = '' is not a name; give an embedded scenario"),
        ("--config", "'' is not a file name; give a configuration file"),
        ("--overlay", "'' is not a file name; give a configuration file"),
        ("--buildings", "--buildings '': not a file name; give a map file"),
    ],
)
def test_an_empty_file_name_is_refused(tmp_path, capsys, monkeypatch, option, words):
    """simulate --truth '' (--track '', --scenario '') ran the default scenario, exit 0, as if
    no source were given; --config '' was refused as ': cannot read the configuration file'
    (no name) and --buildings '' as '--buildings .: is not a file', a folder the user did not
    name (Path('') is '.'; the third fuzz helper). Each is now refused by its option, nothing
    written."""
    monkeypatch.chdir(tmp_path)
    argv = ["simulate", option, "", "--duration", "1", "--out", tmp_path / "run", "--quiet"]
    _fails_in_one_line(capsys, argv, tmp_path, words)


@pytest.mark.parametrize(
    "options, words",
    [
        (["--nmea-tcp", "0", "--no-gnss"], "--nmea-tcp: no NMEA sentences to serve (the GNSS"),
        (["--nmea-pty", "--no-gnss"], "--nmea-pty: no NMEA sentences to serve (the GNSS"),
        (
            ["--nmea-tcp", "0", "--nmea-sentences", ","],
            "--nmea-tcp: no NMEA sentences to serve (gnss.nmea.sentences = [])",
        ),
    ],
)
def test_live_nmea_with_nothing_to_serve(tmp_path, base, capsys, options, words):
    """navsense live --nmea-tcp 0 --no-gnss (or --nmea-pty with no sentence chosen) served a
    port or a terminal that never said a word, exit 0 (the third fuzz helper); refused now,
    as simulate --gnss-fix --no-gnss is."""
    shutil.copy(base / "truth.csv", tmp_path / "truth.csv")
    argv = ["live", "--truth", tmp_path / "truth.csv", "--no-foxglove", "--speed", "1e9"]
    _fails_in_one_line(capsys, [*argv, "--quiet", *options], tmp_path, words)


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--from", "enu", "--enu", "0", "0", "1e308"], "--enu U_M = 1e+308: outside -10000"),
        (
            ["--from", "wgs84", "--lat", "40.47", "--lon", "-86.99", "--h=-7e6"],
            "--h = -7000000.0: outside -10000 .. 100000 m",
        ),
        (
            ["--from", "stateplane_ft", "--easting", "3e6", "--northing", "1.7e6", "--z-ft=1e9"],
            "--z-ft = 1000000000.0 ft (3.04801e+08 m): outside",
        ),
    ],
)
def test_a_geo_height_beyond_a_sites_is_named(tmp_path, capsys, argv, words):
    """navsense geo --enu 0 0 1e308 was refused as 'latitude_deg must be finite, got nan' (the
    chain overflowed), --h=-7e6 (through the earth's centre) as 'latitude_deg, longitude_deg =
    40.47, -86.99 is outside the domain of EPSG:2968': neither the value at fault (the third
    fuzz helper). A height is now checked where it is read, a site's -10 km .. 100 km; a CSV's
    column and data row are named."""
    _fails_in_one_line(capsys, ["geo", *argv], tmp_path, words)
    points = tmp_path / "p.csv"
    points.write_text("e_m,n_m,u_m\n1,2,3\n0,0,1e308\n")
    argv = ["geo", "--from", "enu", "--in", points, "--out", tmp_path / "o.csv"]
    _fails_in_one_line(capsys, argv, tmp_path, "p.csv: u_m = 1e+308, data row 2: outside")


@pytest.mark.parametrize("kind", ["file", "link"])
def test_a_report_place_that_is_no_folder_is_refused(tmp_path, base, capsys, kind):
    """navsense report RUN of a run whose RUN/report was a file of the user's (or a symbolic
    link) renamed it to RUN/.report.PID.old, left there, and wrote the report folder, exit 0
    (the third fuzz helper). It is refused now before any figure, the file as it was."""
    run = tmp_path / "run"
    shutil.copytree(base / "run", run)
    shutil.rmtree(run / "report", ignore_errors=True)
    if kind == "file":
        (run / "report").write_text("my notes\n")
        words = "report: is not a folder; the report is written there as a folder"
    else:
        (run / "report").symlink_to(tmp_path)
        words = "report: is a symbolic link; the report is written there as a folder"
    _fails_in_one_line(capsys, ["report", run], tmp_path, words)
    assert kind == "link" or (run / "report").read_text() == "my notes\n"


_GPX_POINTS = "".join(
    f'<trkpt lat="{40.474 + 2e-5 * i:.6f}" lon="{-86.99 + 1.5e-5 * i:.6f}">'
    f"<time>2026-05-01T12:00:{i:02d}Z</time></trkpt>"
    for i in range(20)
)


@pytest.mark.parametrize("encoding", ["klingon", "utf-32", "x-mac-roman"])
@pytest.mark.parametrize("kind", ["gpx", "osm"])
def test_an_xml_encoding_expat_cannot_decode_is_named(tmp_path, capsys, kind, encoding):
    """Found by the fuzz hunt of 2026-12-05: a GPX track or an OpenStreetMap file whose XML
    declaration names an encoding Python has no codec for (expat: LookupError) or a multi-byte
    one (ValueError) was an internal error of navsense truth, simulate --track, navsense site
    and simulate --buildings."""
    declaration = f'<?xml version="1.0" encoding="{encoding}"?>'
    if kind == "gpx":
        (tmp_path / "a.gpx").write_text(
            declaration + '<gpx version="1.1" creator="x" xmlns="http://www.topografix.com/'
            f'GPX/1/1"><trk><trkseg>{_GPX_POINTS}</trkseg></trk></gpx>\n'
        )
        commands = [
            ["truth", "--track", tmp_path / "a.gpx", "--out", tmp_path / "t.parquet"],
            ["simulate", "--track", tmp_path / "a.gpx", "--out", tmp_path / "run", "--quiet"],
        ]
    else:
        (tmp_path / "a.osm").write_text(declaration + '<osm version="0.6"></osm>\n')
        commands = [
            ["site", "--buildings", tmp_path / "a.osm", "--out", tmp_path / "s.json"],
            ["simulate", "--buildings", tmp_path / "a.osm", "--out", tmp_path / "run", "--quiet"],
        ]
    for argv in commands:
        line = _fails_in_one_line(capsys, argv, tmp_path, "save it as UTF-8")
        assert f"a.{kind}: line 1: " in line and "encoding" in line, line
