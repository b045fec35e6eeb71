"""A run under the real sky (gnss.orbits a RINEX navigation file, issue 29 item 1): its GSV at
a time lists exactly the healthy satellites above the mask, GPS checked against an independent
computation (georinex's reader and Kepler positions, pyproj's station position), every system
against the library, BeiDou under GB; the rows' counts follow; a run outside the file is one
line. The file: tests/data/rinex/ (README.md: provenance)."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import orjson
import pytest

from navsense.cli import main
from navsense.sky.broadcast_sky import BroadcastSky

RINEX = Path(__file__).parents[1] / "data" / "rinex" / "ELKO00USA_R_20182100000_01D_MN.rnx.gz"
START = "2018-07-29T18:00:00Z"
MASK_DEG = 10.0
TALKERS = {"GP": "gps", "GL": "glonass", "GA": "galileo", "GB": "beidou", "GQ": "qzss"}
OFFSET = {"gps": 0, "glonass": 64, "galileo": 0, "beidou": 0, "qzss": 0}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("real_orbits") / "run"
    argv = ["simulate", "--scenario", "acre-loop", "--duration", "20", "--no-imu", "--no-ins",
            "--gnss-orbits", str(RINEX), "--set", f"gnss.datum.start_utc={START}",
            "--out", str(out), "--quiet"]  # fmt: skip
    assert main(argv) == 0
    episode = orjson.loads((out / "episode.json").read_bytes())
    lines = (out / "gnss.nmea").read_text().splitlines()
    rows = [orjson.loads(x) for x in (out / "gnss.jsonl").read_bytes().splitlines()]
    return episode, lines, rows


def _gsv_of_first_epoch(lines):
    """{(system, number within it): (elevation, azimuth)} of the first epoch's GSV."""
    seen = {}
    starts = [i for i, line in enumerate(lines) if line.startswith("$GNRMC")]
    for line in lines[starts[0] : starts[1]]:
        fields = line.split("*")[0].split(",")
        if fields[0][3:] != "GSV":
            continue
        system = TALKERS[fields[0][1:3]]
        sats = fields[4:-1]  # the last field is the signal ID
        for k in range(0, len(sats), 4):
            svid, el, az = sats[k : k + 3]
            seen[(system, int(svid) - OFFSET[system])] = (int(el), int(az))
    return seen


def test_gsv_lists_exactly_the_healthy_satellites_above_the_mask(run):
    episode, lines, rows = run
    info = episode["gnss_orbits"]
    assert info["systems"] == ["gps", "galileo", "glonass", "beidou"]
    lat, lon, h = info["site_wgs84_lat_lon_h"]
    sky = BroadcastSky(RINEX, None, START, lat, lon, h)
    los, visible = sky.sky(np.array([0.0]), MASK_DEG)
    want = {(str(s), int(p)) for s, p in zip(sky.system[visible[0]], sky.prn[visible[0]])}
    gsv = _gsv_of_first_epoch(lines)
    assert set(gsv) == want
    assert {s for s, _ in gsv} == {"gps", "galileo", "glonass", "beidou"}  # GB too
    # unhealthy in every record of the day: E14, E18 (the eccentric Galileo test satellites)
    assert not {("galileo", 14), ("galileo", 18)} & set(gsv)
    assert rows[0]["satellites_above_mask"] == len(gsv)


def test_gps_in_gsv_as_an_independent_computation(run):
    """The GPS satellites of the first epoch's GSV against georinex's reader (health, the
    nearest t_oe) and Kepler positions (georinex.keplerian2ecef) seen from the run's site
    (pyproj): the same satellites above the 10 deg mask (those within 0.2 deg of it aside) and
    elevation and azimuth within 1 deg (GSV's whole degrees)."""
    gr = pytest.importorskip("georinex")
    from georinex.keplerian import keplerian2ecef
    from pyproj import Transformer

    episode, lines, _ = run
    lat, lon, h = episode["gnss_orbits"]["site_wgs84_lat_lon_h"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ds = gr.load(RINEX, use="G")
    site = np.array(
        Transformer.from_crs("EPSG:4979", "EPSG:4978", always_xy=True).transform(lon, lat, h)
    )
    p, q = np.radians(lat), np.radians(lon)
    enu = np.array(
        [
            [-np.sin(q), np.cos(q), 0.0],
            [-np.sin(p) * np.cos(q), -np.sin(p) * np.sin(q), np.cos(p)],
            [np.cos(p) * np.cos(q), np.cos(p) * np.sin(q), np.sin(p)],
        ]
    )
    when = np.datetime64("2018-07-29T18:00:18")  # GPS time = UTC + 18 s
    expected, borderline = {}, set()
    for sv in ds["sv"].values:
        one = ds.sel(sv=sv).drop_vars("sv").dropna(dim="time", how="all")
        toe = one["time"].values  # toc; toe = toc in this file but for G04's odd ones
        k = int(np.argmin(np.abs(toe - when)))
        if abs((toe[k] - when) / np.timedelta64(1, "s")) > 7200 or one["health"].values[k] != 0:
            continue
        x, y, z = keplerian2ecef(one.isel(time=[k]).assign_coords(time=[when]))
        d = enu @ (np.array([np.asarray(x)[0], np.asarray(y)[0], np.asarray(z)[0]]) - site)
        el = np.degrees(np.arcsin(d[2] / np.linalg.norm(d)))
        az = np.degrees(np.arctan2(d[0], d[1])) % 360.0
        prn = int(str(sv)[1:])
        if abs(el - MASK_DEG) < 0.2:
            borderline.add(prn)
        elif el > MASK_DEG:
            expected[prn] = (el, az)
    gsv = {prn: v for (s, prn), v in _gsv_of_first_epoch(lines).items() if s == "gps"}
    assert set(gsv) - borderline == set(expected)
    assert len(expected) >= 6
    for prn, (el, az) in expected.items():
        assert abs(gsv[prn][0] - el) <= 1.0
        assert abs((gsv[prn][1] - az + 180.0) % 360.0 - 180.0) <= 1.0


def test_a_run_outside_the_file_is_one_line(tmp_path, capsys):
    argv = ["simulate", "--scenario", "acre-loop", "--duration", "900", "--no-imu", "--no-ins",
            "--gnss-orbits", str(RINEX), "--set", "gnss.datum.start_utc=2018-07-30T00:05:00Z",
            "--out", str(tmp_path / "late"), "--quiet"]  # fmt: skip
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "ELKO00USA_R_20182100000_01D_MN.rnx.gz" in err
    assert "2018-07-30T00:15:00Z" in err and "2018-07-30T00:20:00Z" in err
    assert "only in part" in err
    assert not (tmp_path / "late").exists()


def _with_qzss_copy(tmp_path: Path, gps_prn: int) -> Path:
    """The ELKO file with the records of G<prn> repeated as QZSS J<prn> (IS-QZSS-PNT: the GPS
    algorithm and constants, so J<prn> must sit where G<prn> is)."""
    import gzip

    text = gzip.decompress(RINEX.read_bytes()).decode("latin-1").splitlines(keepends=True)
    out, k, tag = [], 0, f"G{gps_prn:02d} "
    while k < len(text):
        out.append(text[k])
        if text[k].startswith(tag):
            out.extend(text[k + 1 : k + 8])
            out.append("J" + text[k][1:])
            out.extend(text[k + 1 : k + 8])
            k += 8
            continue
        k += 1
    path = tmp_path / "with_qzss.rnx"
    path.write_text("".join(out), encoding="latin-1")
    return path


def test_qzss_sits_where_its_gps_twin_is_and_reaches_gsv_under_gq(tmp_path):
    start = "2018-07-29T12:00:00Z"
    gps = BroadcastSky(RINEX, ("gps",), start, 40.4716, -86.9944, 180.0)  # about ACRE's origin
    _, visible = gps.sky(np.array([0.0, 3.0]), 15.0)
    prn = int(gps.prn[np.flatnonzero(visible.all(axis=0))[0]])
    path = _with_qzss_copy(tmp_path, prn)
    out = tmp_path / "run"
    argv = ["simulate", "--scenario", "acre-loop", "--duration", "3", "--no-imu", "--no-ins",
            "--gnss-orbits", str(path), "--gnss-systems", "gps,qzss",
            "--set", f"gnss.datum.start_utc={start}", "--out", str(out), "--quiet"]  # fmt: skip
    assert main(argv) == 0
    gsv = _gsv_of_first_epoch((out / "gnss.nmea").read_text().splitlines())
    assert {s for s, _ in gsv} == {"gps", "qzss"}
    assert gsv[("qzss", prn)] == gsv[("gps", prn)]
    episode = orjson.loads((out / "episode.json").read_bytes())
    assert episode["gnss_orbits"]["systems"] == ["gps", "qzss"]


def test_the_receiver_batch_equals_steps_under_the_real_sky():
    """batch = chunks = steps (CONTRACTS.md) with gnss.orbits a RINEX file: the whole block and
    the blocks of one physics step at a time are the same numbers."""
    from navsense.config import load_config
    from navsense.config.typed.gnss import GnssConfig
    from navsense.scenarios import load_scenario
    from navsense.sensors.gnss.receiver import GnssReceiver

    sc = load_scenario("acre-loop", duration_s=3.0)
    cfg = load_config(
        vehicle=sc.vehicle.name,
        overrides={"gnss.orbits": str(RINEX), "gnss.datum.start_utc": START},
    )
    georef = sc.site.make_georeference(START, cfg["gnss"]["datum"])

    def receiver():
        return GnssReceiver(GnssConfig.from_validated(cfg), sc.vehicle, sc.site, georef)

    whole = receiver().process(sc.truth)
    one = receiver()
    steps = [one.process(sc.truth.slice(i, i + 1)) for i in range(len(sc.truth))]
    for key, value in whole.items():
        joined = np.concatenate([s[key] for s in steps])
        assert np.array_equal(value, joined, equal_nan=True), key
    assert whole["sat_system"].shape[1] == 89


def test_report_draws_the_real_sky_and_notes_a_file_that_is_gone(tmp_path):
    """navsense report builds the run's sky from episode.json: the RINEX file again (its
    absolute path recorded); a file moved since leaves the sky plot out with a note naming it,
    and the rest of the report is made."""
    pytest.importorskip("matplotlib")
    import shutil

    copy = tmp_path / "brdc.rnx.gz"
    shutil.copy(RINEX, copy)
    out = tmp_path / "run"
    argv = ["simulate", "--scenario", "acre-loop", "--duration", "30", "--no-imu", "--no-ins",
            "--gnss-orbits", str(copy), "--set", f"gnss.datum.start_utc={START}",
            "--out", str(out), "--quiet"]  # fmt: skip
    assert main(argv) == 0
    assert main(["report", str(out)]) == 0
    assert (out / "report" / "sky.png").exists()
    copy.unlink()
    shutil.rmtree(out / "report")
    assert main(["report", str(out)]) == 0
    assert not (out / "report" / "sky.png").exists()
    html = (out / "report" / "report.html").read_text()
    assert f"Sky plot left out: {copy}: cannot read the navigation file" in html


def test_gsv_below_the_mask_lists_the_healthy_satellites_above_the_horizon(tmp_path):
    """gnss.nmea.gsv_below_mask true: GSV lists every healthy satellite down to the horizon; a
    satellite without a healthy ephemeris (its line of sight at the nadir) stays out."""
    out = tmp_path / "run"
    argv = ["simulate", "--scenario", "acre-loop", "--duration", "3", "--no-imu", "--no-ins",
            "--gnss-orbits", str(RINEX), "--set", f"gnss.datum.start_utc={START}",
            "--set", "gnss.nmea.gsv_below_mask=true", "--out", str(out), "--quiet"]  # fmt: skip
    assert main(argv) == 0
    episode = orjson.loads((out / "episode.json").read_bytes())
    sky = BroadcastSky(RINEX, None, START, *episode["gnss_orbits"]["site_wgs84_lat_lon_h"])
    _, visible = sky.sky(np.array([0.0]), 0.0)
    want = {(str(s), int(p)) for s, p in zip(sky.system[visible[0]], sky.prn[visible[0]])}
    gsv = _gsv_of_first_epoch((out / "gnss.nmea").read_text().splitlines())
    assert set(gsv) == want
    _, above = sky.sky(np.array([0.0]), MASK_DEG)
    assert len(want) > int(above.sum())  # some below the mask are listed


def test_a_streamed_truth_log_past_the_file_ends_in_one_line(tmp_path, capsys):
    """A truth log is read chunk by chunk (its length unknown before): the receiver refuses the
    first epoch past the file's span, in one line, and no run directory is left."""
    made = tmp_path / "made"
    argv = ["simulate", "--scenario", "acre-loop", "--duration", "700", "--no-imu", "--no-ins",
            "--set", "gnss.datum.start_utc=2018-07-30T00:05:00Z", "--save-truth",
            "--out", str(made), "--quiet"]  # fmt: skip
    assert main(argv) == 0  # the synthetic sky: any time
    truth = made / "truth.parquet"
    capsys.readouterr()
    argv = ["simulate", "--truth", str(truth), "--no-imu", "--no-ins", "--gnss-orbits",
            str(RINEX), "--chunk-steps", "6000", "--out", str(tmp_path / "late"), "--quiet"]  # fmt: skip
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "only in part" in err
    assert "2018-07-30T00:15:00Z" in err and "the run's time 2018-07-30T00:15:00.100000Z" in err
    assert not (tmp_path / "late").exists()
