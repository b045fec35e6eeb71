"""``navsense geo`` through a small argparse parser (the main cli.py calls add_parser/run)."""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from geo.geo_helpers import um
from navsense.commands import geo as cli_geo
from navsense.errors import ConfigError, DatumError, FormatError
from navsense.geo import Georeference, utm


def _parser():
    parser = argparse.ArgumentParser(prog="navsense")
    sub = parser.add_subparsers(dest="command", required=True)
    cli_geo.add_parser(sub)
    return parser


def _run(argv, capsys):
    args = _parser().parse_args(["geo", *argv])
    assert cli_geo.run(args) == 0
    return json.loads(capsys.readouterr().out)


def test_enu_point_prints_every_frame(capsys):
    doc = _run(["--from", "enu", "--enu", "100", "200", "3", "--epoch-s", "3600"], capsys)
    assert set(cli_geo.OUTPUT_COLUMNS) <= set(doc)
    assert doc["site"] == "acre" and doc["start_utc"] == "2026-09-23T15:00:00Z"
    g = Georeference.acre().enu_to_geodetic([100.0, 200.0, 3.0], 3600.0)
    for k, v in g.items():
        assert doc[k] == float(v)
    assert doc["utm_zone"] == 16 and doc["utm_south"] == 0
    e, n, _, _ = utm.forward(g["nad83_2011_lat_deg"], g["nad83_2011_lon_deg"], 16)
    assert (doc["utm_nad83_2011_easting_m"], doc["utm_nad83_2011_northing_m"]) == (
        float(e),
        float(n),
    )
    assert doc["stateplane_easting_ft"] == 2_977_500.0 + 100.0 * 3937.0 / 1200.0
    assert abs(doc["grid_rotation_nad83_2011_deg"] - 0.0541) < 1e-3


@pytest.mark.parametrize(
    "argv_of",
    [
        lambda d: [
            "--from",
            "wgs84",
            "--lat",
            repr(d["wgs84_lat_deg"]),
            "--lon",
            repr(d["wgs84_lon_deg"]),
            "--h",
            repr(d["wgs84_height_m"]),
        ],
        lambda d: [
            "--from",
            "nad83_2011",
            "--lat",
            repr(d["nad83_2011_lat_deg"]),
            "--lon",
            repr(d["nad83_2011_lon_deg"]),
            "--h",
            repr(d["nad83_2011_height_m"]),
        ],
        lambda d: [
            "--from",
            "nad83_harn",
            "--lat",
            repr(d["nad83_harn_lat_deg"]),
            "--lon",
            repr(d["nad83_harn_lon_deg"]),
            "--h",
            repr(d["nad83_2011_height_m"]),
        ],
        lambda d: [
            "--from",
            "stateplane_ft",
            "--easting",
            repr(d["stateplane_easting_ft"]),
            "--northing",
            repr(d["stateplane_northing_ft"]),
            "--z-ft",
            repr(d["navd88_height_ft"]),
        ],
        lambda d: [
            "--from",
            "utm",
            "--zone",
            "16",
            "--easting",
            repr(d["utm_nad83_2011_easting_m"]),
            "--northing",
            repr(d["utm_nad83_2011_northing_m"]),
            "--h",
            repr(d["nad83_2011_height_m"]),
        ],
        lambda d: [
            "--from",
            "utm",
            "--zone",
            "16",
            "--utm-frame",
            "wgs84_g2139",
            "--easting",
            repr(d["utm_wgs84_easting_m"]),
            "--northing",
            repr(d["utm_wgs84_northing_m"]),
            "--h",
            repr(d["wgs84_height_m"]),
        ],
    ],
    ids=["wgs84", "nad83_2011", "nad83_harn", "stateplane_ft", "utm", "utm_wgs84"],
)
def test_every_input_frame_returns_to_the_same_enu(argv_of, capsys):
    ref = _run(
        ["--from", "enu", "--enu", "-1234.5", "876.25", "12.5", "--epoch-s", "86400"], capsys
    )
    doc = _run([*argv_of(ref), "--epoch-s", "86400"], capsys)
    for k in ("e_m", "n_m", "u_m"):
        assert abs(doc[k] - ref[k]) < 1 * um


def test_utc_option_sets_the_episode_time(capsys):
    a = _run(["--from", "enu", "--enu", "0", "0", "0", "--utc", "2026-09-24T15:00:00Z"], capsys)
    b = _run(["--from", "enu", "--enu", "0", "0", "0", "--epoch-s", "86400"], capsys)
    assert a["t_s"] == 86400.0 and a == b
    c = _run(
        ["--from", "enu", "--enu", "0", "0", "0", "--start-utc", "2027-01-01T00:00:00Z"], capsys
    )
    assert c["decimal_year"] == 2027.0 and c["start_utc"] == "2027-01-01T00:00:00Z"


def test_local_site(capsys):
    doc = _run(
        ["--origin", "-33.9", "151.2", "40", "--from", "enu", "--enu", "10", "0", "0"], capsys
    )
    assert doc["site"] == "local" and doc["stateplane_easting_ft"] is None
    assert doc["utm_zone"] == 56 and doc["utm_south"] == 1
    e, n, _, _ = utm.forward(doc["wgs84_lat_deg"], doc["wgs84_lon_deg"], 56, south=True)
    assert (doc["utm_wgs84_easting_m"], doc["utm_wgs84_northing_m"]) == (float(e), float(n))
    with pytest.raises(ConfigError, match="stateplane_ft needs the ACRE site"):
        _run(
            [
                "--origin",
                "0",
                "0",
                "0",
                "--from",
                "stateplane_ft",
                "--easting",
                "1",
                "--northing",
                "1",
                "--z-ft",
                "1",
            ],
            capsys,
        )


def _write(path: Path, rows):
    with open(path, "w", newline="") as fh:
        csv.writer(fh).writerows(rows)


def test_csv_in_csv_out(tmp_path, capsys):
    src = tmp_path / "in.csv"
    _write(
        src, [["e_m", "n_m", "u_m", "t_s"], [0, 0, 0, 0], [100, -50, 2, 10], [2500, 1800, -3, 1e6]]
    )
    out = tmp_path / "out.csv"
    args = _parser().parse_args(["geo", "--from", "enu", "--in", str(src), "--out", str(out)])
    assert cli_geo.run(args) == 0
    with open(out, newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 3 and list(rows[0]) == list(cli_geo.OUTPUT_COLUMNS)
    enu = np.array([[0, 0, 0], [100, -50, 2], [2500, 1800, -3]], dtype=float)
    g = Georeference.acre().enu_to_geodetic(enu, np.array([0, 10, 1e6]))
    for i, row in enumerate(rows):
        for k, v in g.items():
            assert float(row[k]) == float(v[i])  # repr() keeps every digit
    # refuses to overwrite, unless --force
    with pytest.raises(ConfigError, match="exists; use --force"):
        cli_geo.run(args)
    args = _parser().parse_args(
        ["geo", "--from", "enu", "--in", str(src), "--out", str(out), "--force"]
    )
    assert cli_geo.run(args) == 0
    assert not list(tmp_path.glob(".navsense-geo-*"))  # no temporary file left


def test_csv_from_wgs84_with_epoch_option(tmp_path):
    geo = Georeference.acre()
    enu = np.array([[10.0, 20.0, 1.0], [-300.0, 400.0, 5.0]])
    g = geo.enu_to_geodetic(enu, 7200.0)
    src = tmp_path / "wgs.csv"
    _write(
        src,
        [
            ["lat_deg", "lon_deg", "height_m"],
            *[
                [
                    repr(float(g["wgs84_lat_deg"][i])),
                    repr(float(g["wgs84_lon_deg"][i])),
                    repr(float(g["wgs84_height_m"][i])),
                ]
                for i in range(2)
            ],
        ],
    )
    out = tmp_path / "o.csv"
    args = _parser().parse_args(
        ["geo", "--from", "wgs84", "--in", str(src), "--out", str(out), "--epoch-s", "7200"]
    )
    cli_geo.run(args)
    with open(out, newline="") as fh:
        rows = list(csv.DictReader(fh))
    back = np.array([[float(r["e_m"]), float(r["n_m"]), float(r["u_m"])] for r in rows])
    assert np.max(np.abs(back - enu)) < 1 * um


@pytest.mark.parametrize(
    "rows, exc, match",
    [
        ([["e_m", "n_m"], [1, 2]], FormatError, r"missing column\(s\) \['u_m'\]"),
        (
            [["e_m", "n_m", "u_m"], [1, "x", 2]],
            FormatError,
            "line 2: column n_m = 'x' is not a number",
        ),
        (
            [["e_m", "n_m", "u_m"], [1, 2, 3], [1, "nan", 2]],
            DatumError,
            "line 3: column n_m = 'nan' is not a finite",
        ),
        ([["e_m", "n_m", "u_m"]], FormatError, "no data rows"),
        # the fuzz helper's: a column twice (the last was read), a ragged row (a decimal comma
        # read 1, 5, 2 of 1,5,2,5,3,5; a short row's missing value was "None is not a number")
        (
            [["e_m", "n_m", "u_m", "e_m"], [1, 2, 3, 4]],
            FormatError,
            "bad.csv: column e_m appears 2 times in the header; each column once",
        ),
        (
            [["e_m", "n_m", "u_m"], [1, 5, 2, 5, 3, 5]],
            FormatError,
            r"bad.csv, line 2: 6 field\(s\); the header has 3",
        ),
        ([["e_m", "n_m", "u_m"], [1, 2]], FormatError, r"line 2: 2 field\(s\); the header has 3"),
    ],
)
def test_csv_errors(tmp_path, rows, exc, match):
    src = tmp_path / "bad.csv"
    _write(src, rows)
    args = _parser().parse_args(
        ["geo", "--from", "enu", "--in", str(src), "--out", str(tmp_path / "o.csv")]
    )
    with pytest.raises(exc, match=match):
        cli_geo.run(args)
    assert not (tmp_path / "o.csv").exists()


@pytest.mark.parametrize(
    "argv, exc, match",
    [
        (
            ["--from", "wgs84", "--lat", "95", "--lon", "-87", "--h", "0"],
            DatumError,
            "latitude_deg = 95.0 deg is outside",
        ),
        (
            ["--from", "wgs84", "--lat", "-95", "--lon", "-87", "--h", "0"],
            DatumError,
            "latitude_deg = -95.0",
        ),
        (
            ["--from", "utm", "--zone", "61", "--easting", "5e5", "--northing", "4e6", "--h", "0"],
            DatumError,
            "UTM zone must be an integer 1..60, got 61",
        ),
        (
            ["--from", "utm", "--zone", "0", "--easting", "5e5", "--northing", "4e6", "--h", "0"],
            DatumError,
            "got 0",
        ),
        (["--from", "enu", "--enu", "nan", "0", "0"], DatumError, "must be finite, got nan"),
        (["--from", "enu", "--enu", "0", "inf", "0"], DatumError, "must be finite, got inf"),
        (
            ["--from", "enu", "--enu", "1e7", "0", "0"],
            DatumError,
            "enu east = 10000000.0 m is outside",
        ),
        (
            ["--from", "wgs84", "--lat", "40", "--lon", "10", "--h", "0"],
            DatumError,
            "longitude_deg = 10.0 is outside",
        ),
        (
            ["--from", "stateplane_ft", "--easting", "nan", "--northing", "1", "--z-ft", "1"],
            DatumError,
            "easting_ft must be finite",
        ),
        (
            ["--from", "utm", "--zone", "16", "--easting", "9e6", "--northing", "4e6", "--h", "0"],
            DatumError,
            "easting_m = 9000000.0 m",
        ),
        (["--from", "wgs84", "--lat", "40"], ConfigError, "--from wgs84 needs --lon --h"),
        (
            ["--from", "utm", "--easting", "1", "--northing", "1", "--h", "0"],
            ConfigError,
            "needs --zone",
        ),
        (["--from", "enu"], ConfigError, "needs --enu"),
        (
            ["--from", "enu", "--enu", "0", "0", "0", "--in", "x.csv"],
            ConfigError,
            "--in and --out go together",
        ),
        (["--from", "enu", "--enu", "0", "0", "0", "--utc", "tomorrow"], ConfigError, "ISO 8601"),
    ],
)
def test_bad_input_raises_one_line_error(argv, exc, match, capsys):
    args = _parser().parse_args(["geo", *argv])
    with pytest.raises(exc, match=match) as info:
        cli_geo.run(args)
    assert "\n" not in str(info.value)


def test_main_prints_one_line_and_exits_2(capsys):
    assert cli_geo.main(["geo", "--from", "wgs84", "--lat", "95", "--lon", "0", "--h", "0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("navsense geo: error: latitude_deg = 95.0")


def test_module_entry_point_runs():
    src = Path(__file__).resolve().parents[2] / "src"
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "navsense.commands.geo",
            "geo",
            "--from",
            "enu",
            "--enu",
            "0",
            "0",
            "0",
        ],
        check=False,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(src)},
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    assert abs(json.loads(r.stdout)["nad83_2011_lat_deg"] - 40.4715765) < 1e-7
