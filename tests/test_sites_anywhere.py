"""Truth logs keep their site, and sites anywhere on Earth (issue 18 item 2).

A truth log carries its site and start time (Parquet metadata, CSV sidecar) and ``simulate
--truth`` uses them; a local site uses its own UTM zone and hemisphere, outside NAD83 reports
WGS84 (nad83 refused in one line), and its heights are EGM96 (pyproj and NGA are the truths).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from conftest import open_sky_circle
from navsense.cli import main
from navsense.errors import NavsenseError
from navsense.geo import Georeference
from navsense.geo.areas import in_nad83_area
from navsense.geo.geoid import egm96_undulation_m
from navsense.run import prepare_run
from navsense.site import embedded_site, site_from_json
from navsense.truth.io import (
    read_truth,
    read_truth_metadata,
    truth_sidecar,
    write_truth,
)

mm = 1e-3
REFERENCE = Path(__file__).parent / "reference"
PARIS_TRACK = REFERENCE / "track_paris_loop.gpx"
PARIS_START = "2013-05-09T11:24:28.776000Z"


def _site(name: str, lat: float, lon: float, h: float = 0.0):
    return site_from_json(
        {
            "name": name,
            "georeference": {"kind": "local", "lat_deg": lat, "lon_deg": lon, "height_m": h},
        }
    )


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _episode(run: Path) -> dict:
    return json.loads((run / "episode.json").read_text())


# ------------------------------------------------------------------ the log's site and time
@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_a_truth_log_carries_its_site_and_start_time(tmp_path, suffix):
    truth = open_sky_circle(50)
    munich = _site("munich", 48.137, 11.575, 567.0)
    path = write_truth(truth, tmp_path / f"drive{suffix}", site=munich, start_utc=PARIS_START)
    meta = read_truth_metadata(path)
    assert meta.site is not None and meta.site.to_json() == munich.to_json()
    assert meta.start_utc == PARIS_START
    if suffix == ".csv":  # the documented sidecar, a plain JSON object
        sidecar = tmp_path / "drive.truth.json"
        assert truth_sidecar(path) == sidecar
        assert json.loads(sidecar.read_text()) == {
            "site": munich.to_json(),
            "start_utc": PARIS_START,
        }
    else:
        assert sorted(p.name for p in tmp_path.iterdir()) == ["drive.parquet"]
    # the rows are the same as a log without them
    np.testing.assert_array_equal(read_truth(path).p_m, truth.p_m)
    # an embedded site is named, not copied; a log without either has none
    write_truth(truth, path, site="acre")
    assert read_truth_metadata(path).site.to_json() == embedded_site("acre").to_json()
    write_truth(truth, path)
    assert read_truth_metadata(path) == type(meta)()
    assert not truth_sidecar(path).exists()  # a CSV rewritten without them drops its sidecar


def test_malformed_metadata_is_one_line_naming_the_file(tmp_path):
    import pyarrow.parquet as pq

    path = write_truth(open_sky_circle(10), tmp_path / "drive.parquet", site="acre")
    table = pq.read_table(path)
    for meta, message in (
        ({b"navsense.site": b"{not json"}, "navsense.site = "),
        ({b"navsense.site": b'"atlantis"'}, "'atlantis' is not an embedded site"),
        ({b"navsense.start_utc": b'"yesterday"'}, "start_utc"),
    ):
        pq.write_table(table.replace_schema_metadata(meta), path)
        with pytest.raises(NavsenseError, match=message) as info:
            read_truth_metadata(path)
        assert str(path) in str(info.value) and "\n" not in str(info.value)
    csv = write_truth(open_sky_circle(10), tmp_path / "drive.csv")
    truth_sidecar(csv).write_text('{"site": "acre", "datum": 1}')
    with pytest.raises(NavsenseError, match="datum is not a known key; allowed: site, start_utc"):
        read_truth_metadata(csv)


def test_truth_then_simulate_runs_the_drive_where_and_when_it_was(tmp_path, capsys):
    log = tmp_path / "drive.parquet"
    assert main(["truth", "--track", str(PARIS_TRACK), "--out", str(log)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["drive.parquet"]  # no site file
    run = tmp_path / "run"
    assert main(["simulate", "--truth", str(log), "--out", str(run)]) == 0
    out = capsys.readouterr().out
    assert "names no site" not in out
    episode = _episode(run)
    assert episode["site"]["georeference"]["lat_deg"] == pytest.approx(48.8462)
    assert episode["start_utc"] == PARIS_START
    assert episode["ins"]["utm_zone"] == 31 and episode["ins"]["datum"] == "wgs84_g2139"
    lines = (run / "gnss.nmea").read_text().splitlines()
    gga = next(line for line in lines if line.startswith("$GNGGA")).split(",")
    assert gga[1] == "112428.78" and gga[2:5] == ["4850.7720089", "N", "00220.2268746"]
    # an explicit --site wins over the log's
    acre = tmp_path / "acre"
    assert main(["simulate", "--truth", str(log), "--site", "acre", "--out", str(acre)]) == 0
    assert _episode(acre)["site"]["name"] == "acre"
    # and an explicit start time over the log's
    later = tmp_path / "later"
    argv = ["simulate", "--truth", str(log), "--out", str(later), "--quiet"]
    assert main([*argv, "--set", "gnss.datum.start_utc=2026-01-02T03:04:05Z"]) == 0
    assert _episode(later)["start_utc"] == "2026-01-02T03:04:05Z"


def test_a_csv_log_with_its_sidecar_and_save_truth_keep_the_site(tmp_path, capsys):
    log = tmp_path / "drive.csv"
    assert main(["truth", "--track", str(PARIS_TRACK), "--out", str(log)]) == 0
    assert truth_sidecar(log).is_file()
    # the sidecar is refused like the log itself unless --force
    log.unlink()
    assert main(["truth", "--track", str(PARIS_TRACK), "--out", str(log)]) == 2
    assert "drive.truth.json exists" in capsys.readouterr().err
    assert main(["truth", "--track", str(PARIS_TRACK), "--out", str(log), "--force"]) == 0
    run = tmp_path / "run"
    assert main(["simulate", "--truth", str(log), "--out", str(run), "--save-truth"]) == 0
    saved = read_truth_metadata(run / "truth.parquet")
    assert saved.site.georeference["kind"] == "local" and saved.start_utc == PARIS_START
    again = tmp_path / "again"
    assert main(["simulate", "--truth", str(run / "truth.parquet"), "--out", str(again)]) == 0
    for name in ("gnss.jsonl", "ins.jsonl", "imu.jsonl", "gnss.nmea"):
        assert (again / name).read_bytes() == (run / name).read_bytes()


def test_a_log_without_a_site_runs_at_acre_and_the_summary_says_so(tmp_path, capsys):
    log = write_truth(open_sky_circle(240), tmp_path / "plain.parquet")
    run = tmp_path / "run"
    assert main(["simulate", "--truth", str(log), "--out", str(run)]) == 0
    lines = [ln for ln in capsys.readouterr().out.splitlines() if "names no site" in ln]
    assert len(lines) == 1 and "ACRE" in lines[0]
    assert _episode(run)["site"]["name"] == "acre"
    assert prepare_run(truth=log, site="acre").notes == ()


# ------------------------------------------------------------------------ sites anywhere
def _run_at(tmp_path, name, lat, lon, *options, seconds=2.0):
    """A 2 s open-sky circle on a local site at (lat, lon), with its rows."""
    site_file = tmp_path / f"{name}.site.json"
    site_file.write_text(json.dumps(_site(name, lat, lon, 30.0).to_json()))
    log = write_truth(open_sky_circle(int(seconds * 120) + 1), tmp_path / f"{name}.parquet")
    run = tmp_path / name
    argv = ["simulate", "--truth", str(log), "--site", str(site_file), "--out", str(run)]
    assert main([*argv, "--quiet", *options]) == 0
    return run


def test_a_southern_site_uses_its_own_zone_and_hemisphere_in_the_ins(tmp_path):
    """Sydney: UTM zone 56 south. The INS odometry's easting, northing (with the 10 000 km false
    northing) and grid rotation against PROJ's UTM of the same fixes."""
    pyproj = pytest.importorskip("pyproj")
    run = _run_at(tmp_path, "sydney", -33.8688, 151.2093)
    episode = _episode(run)
    assert episode["ins"]["utm_zone"] == 56 and episode["ins"]["datum"] == "wgs84_g2139"
    rows = _rows(run / "ins.jsonl")
    lat = np.array([r["fix"]["latitude"] for r in rows])
    lon = np.array([r["fix"]["longitude"] for r in rows])
    east, north = pyproj.Transformer.from_crs("EPSG:4326", "EPSG:32756", always_xy=True).transform(
        lon, lat
    )
    odom = np.array([r["odom"]["position_m"][:2] for r in rows])
    assert np.all(odom[:, 1] > 6_000_000.0)  # the southern false northing
    # the fix's 1e-9 deg (0.1 mm) and the odometry's 0.1 mm rounding
    np.testing.assert_allclose(odom[:, 0], east, rtol=0, atol=0.3 * mm)
    np.testing.assert_allclose(odom[:, 1], north, rtol=0, atol=0.3 * mm)
    # grid rotation: the UTM azimuth of the site's north (PROJ's meridian convergence, whose
    # sign convention is the opposite); a point of the grid north of the origin
    geo = Georeference.local(-33.8688, 151.2093, 30.0)
    alpha = float(geo.grid_rotation_deg(np.zeros(3), 0.0, 56, frame="wgs84_g2139"))
    gamma = pyproj.Proj("EPSG:32756").get_factors(151.2093, -33.8688).meridian_convergence
    assert alpha == pytest.approx(-gamma, abs=1e-4)
    # the rows' alpha is at the INS point (here within 35 m of the origin: the local frame's
    # north turns by 2e-4 deg over that)
    rotation = np.array([r["odom"]["grid_rotation_deg"] for r in rows])
    np.testing.assert_allclose(rotation, alpha, rtol=0, atol=5e-4)


def test_outside_nad83_the_frames_are_wgs84_and_nad83_is_refused_in_one_line(tmp_path, capsys):
    assert not in_nad83_area(48.1, 11.6) and not in_nad83_area(-33.9, 151.2)
    assert in_nad83_area(39.7, -105.0) and in_nad83_area(21.3, -157.8)  # Denver, Honolulu
    assert in_nad83_area(51.9, 176.6)  # the Aleutians, west of the antimeridian
    munich = _run_at(tmp_path, "munich", 48.137, 11.575)
    assert _episode(munich)["config"]["ins"]["frame"] == "wgs84_g2139"
    gnss = _rows(munich / "gnss.jsonl")[0]
    assert not any(k.startswith("nad83") for k in gnss)  # NAD83 is not defined there
    for option, key in (
        (["--set", "ins.frame=nad83"], "ins.frame"),
        (["--gnss-frame", "nad83"], "gnss.datum.output_frame"),
    ):
        with pytest.raises(AssertionError):
            _run_at(tmp_path, f"munich{len(option[0])}", 48.137, 11.575, *option)
        err = capsys.readouterr().err.splitlines()
        assert len(err) == 1 and err[0].startswith(f'navsense: error: {key} = "nad83": the site')
        assert "outside the area of NAD83(2011)" in err[0]
    # inside the area, nad83 stays the INS's default and the GNSS may report it
    denver = _run_at(tmp_path, "denver", 39.74, -104.99, "--gnss-frame", "nad83")
    assert _episode(denver)["config"]["ins"]["frame"] == "nad83"
    assert _episode(denver)["ins"]["utm_zone"] == 13
    assert "nad83_harn_lat_deg" in _rows(denver / "gnss.jsonl")[0]


def test_gga_heights_are_egm96_outside_the_navd88_area(tmp_path):
    """Munich: the rows name the height EGM96; altitude + undulation = the ellipsoidal height;
    the undulation is EGM96's at the fix (NGA's grid; PROJ agrees, tests/geo/test_geo_geoid.py);
    GGA carries the same altitude and separation."""
    run = _run_at(tmp_path, "munich", 48.137, 11.575)
    rows = _rows(run / "gnss.jsonl")
    for r in rows:
        assert "altitude_navd88_m" not in r and "geoid_undulation_nad83_m" not in r
        n = egm96_undulation_m(r["latitude_deg"], r["longitude_deg"])
        assert r["geoid_undulation_egm96_m"] == pytest.approx(n, abs=0.06 * mm)
        assert r["altitude_egm96_m"] + r["geoid_undulation_egm96_m"] == pytest.approx(
            r["ellipsoidal_height_m"], abs=0.11 * mm
        )
        assert 45.0 < n < 46.0  # EGM96 in Munich: 45.5 m
        gga = r["nmea_gga"].split(",")
        assert float(gga[9]) == pytest.approx(r["altitude_egm96_m"], abs=0.6 * mm)
        assert float(gga[11]) == pytest.approx(r["geoid_undulation_egm96_m"], abs=0.6 * mm)


def test_errors_while_preparing_a_run_are_one_line(tmp_path, capsys):
    log = write_truth(open_sky_circle(30), tmp_path / "drive.parquet")
    bad_site = tmp_path / "bad.site.json"
    bad_site.write_text('{"georeference": {"kind": "local", "lat_deg": 95, "lon_deg": 0}}')
    far = tmp_path / "far.site.json"
    far.write_text(json.dumps(_site("far", 48.1, 11.6).to_json()))
    broken = write_truth(open_sky_circle(30), tmp_path / "broken.csv")
    truth_sidecar(broken).write_text('{"site": 5}')
    for argv in (
        ["--truth", str(log), "--site", str(bad_site)],  # site
        ["--truth", str(log), "--site", str(far), "--set", "ins.utm_zone=16"],  # zone
        ["--truth", str(log), "--site", "atlantis"],  # no such site
        ["--truth", str(broken)],  # the log's sidecar
        ["--truth", str(tmp_path / "none.parquet")],  # no log
        ["--truth", str(log), "--set", "gnss.datum.start_utc=soon"],  # datum
    ):
        out = tmp_path / f"run{len(argv)}-{argv[-1][-4:]}"
        assert main(["simulate", *argv, "--out", str(out), "--quiet"]) == 2, argv
        err = capsys.readouterr().err.splitlines()
        assert len(err) == 1 and err[0].startswith("navsense: error: "), (argv, err)
        assert "Traceback" not in err[0] and not out.exists()
