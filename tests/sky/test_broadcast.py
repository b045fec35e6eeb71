"""Satellites from a real RINEX navigation file (navsense.sky.rinex_nav, broadcast,
broadcast_sky) against independent truths:

- georinex (an independent RINEX reader, test-only dependency): every field of every record;
  its Kepler positions of the GPS satellites (georinex.keplerian2ecef), seen from ELKO with
  pyproj's geodetic -> ECEF: azimuth and elevation within 0.1 deg;
- the next broadcast record of each satellite (an independent fit of the control segment's
  orbit determination): positions from two consecutive records agree to metres at the time
  between them (GPS, Galileo, BeiDou Kepler; GLONASS Runge-Kutta);
- the GLONASS integration with nodes against the plain integration in equal steps (mm).

The file: tests/data/rinex/ (README.md there: provenance).
"""

from __future__ import annotations

import datetime as dt
import gzip
import warnings
from pathlib import Path

import numpy as np
import pytest

from navsense.errors import ConfigError, FormatError
from navsense.sky import broadcast as bc
from navsense.sky.broadcast_sky import BroadcastSky, gps_minus_utc_s
from navsense.sky.rinex_nav import GLONASS_FIELDS, GPS_EPOCH, KEPLER_FIELDS, read_nav

RINEX = Path(__file__).parents[1] / "data" / "rinex" / "ELKO00USA_R_20182100000_01D_MN.rnx.gz"
ELKO = (40.91, -115.81, 1665.0)  # deg, deg, m: the IGS station ELKO (about)
M = 1.0
DEG = 1.0


@pytest.fixture(scope="module")
def nav():
    return read_nav(RINEX)


@pytest.fixture(scope="module")
def georinex_nav():
    gr = pytest.importorskip("georinex")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {use: gr.load(RINEX, use=use) for use in "GREC"}


@pytest.mark.parametrize(
    ("use", "system", "width"),
    [("G", "gps", 29), ("E", "galileo", 28), ("C", "beidou", 29), ("R", "glonass", 15)],
)
def test_every_record_as_georinex_reads_it(nav, georinex_nav, use, system, width):
    ds = georinex_nav[use]
    rec = nav.records[system]
    names = list(ds.data_vars)[:width]
    table = np.stack([ds[name].values for name in names], axis=-1)  # (time, sv, k)
    times = ds["time"].values.astype("datetime64[us]").astype(dt.datetime)
    epoch = np.array([(t - GPS_EPOCH).total_seconds() for t in times])
    scale = np.ones(width)
    if system == "glonass":  # georinex gives GLONASS states in m, m/s, m/s^2; RINEX in km
        scale[[3, 4, 5, 7, 8, 9, 11, 12, 13]] = 1000.0
    checked = 0
    for j, sv in enumerate(ds["sv"].values):
        prn = int(str(sv)[1:3])
        for i in np.flatnonzero(~np.all(np.isnan(table[:, j]), axis=-1)):
            want = np.nan_to_num(table[i, j], nan=0.0)  # georinex: NaN for a blank field
            mine = rec.values[(rec.prn == prn) & (rec.epoch_s == epoch[i]), :width] * scale
            assert mine.size, f"{sv} {times[i]}: no record"
            assert np.any(np.all(mine == want, axis=-1)), f"{sv} {times[i]}: {mine} != {want}"
            checked += 1
    assert checked > 90


def test_gps_azimuth_elevation_as_georinex_keplerian(georinex_nav):
    """GPS satellites at ELKO, 2018-07-29 10:30 UTC: navsense against georinex's Kepler
    positions (it solves Kepler's equation with one step: about a kilometre off along the
    orbit, 0.01 deg seen from the ground) and pyproj's station position."""
    from georinex.keplerian import keplerian2ecef
    from pyproj import Transformer

    start = "2018-07-29T10:00:00Z"
    sky = BroadcastSky(RINEX, ("gps",), start, *ELKO)
    t = 1800.0
    pos, ok = sky.ecef_m(np.array([t]))
    when = np.datetime64("2018-07-29T10:30:18")  # GPS time: UTC + 18 s
    ds = georinex_nav["G"]
    site = np.array(
        Transformer.from_crs("EPSG:4979", "EPSG:4978", always_xy=True).transform(
            ELKO[1], ELKO[0], ELKO[2]
        )
    )
    lat, lon = np.radians(ELKO[0]), np.radians(ELKO[1])
    enu = np.array(
        [
            [-np.sin(lon), np.cos(lon), 0.0],
            [-np.sin(lat) * np.cos(lon), -np.sin(lat) * np.sin(lon), np.cos(lat)],
            [np.cos(lat) * np.cos(lon), np.cos(lat) * np.sin(lon), np.sin(lat)],
        ]
    )

    def az_el(x):
        e, n, u = enu @ (x - site)
        return np.degrees(np.arctan2(e, n)) % 360.0, np.degrees(
            np.arcsin(u / np.hypot(np.hypot(e, n), u))
        )

    compared = 0
    for j, label in enumerate(sky.label):
        if not ok[0, j]:
            continue
        sv = ds.sel(sv=label).drop_vars("sv").dropna(dim="time", how="all")
        toe_time = sv["time"].values
        k = int(np.argmin(np.abs(toe_time - when)))  # the nearest record (toc = toe here)
        one = sv.isel(time=[k]).assign_coords(time=[when])
        x, y, z = keplerian2ecef(one)
        ref = np.array([float(np.asarray(x)[0]), float(np.asarray(y)[0]), float(np.asarray(z)[0])])
        assert np.linalg.norm(pos[0, j] - ref) < 5000.0 * M, label
        az0, el0 = az_el(pos[0, j])
        az1, el1 = az_el(ref)
        if el1 < -5.0:
            continue
        assert abs(el0 - el1) < 0.1 * DEG, label
        assert abs((az0 - az1 + 180.0) % 360.0 - 180.0) < 0.1 * DEG, label
        compared += 1
    assert compared >= 8


def _consecutive_gaps(nav, system, constants=None):
    """|x_a(t) - x_b(t)| at t midway between two consecutive healthy records a, b of one
    satellite (Kepler systems), m."""
    rec = nav.records[system]
    f = KEPLER_FIELDS
    gaps = []
    for prn in np.unique(rec.prn):
        rows = np.flatnonzero((rec.prn == prn) & (rec.values[:, f["health"]] == 0))
        if system == "galileo":  # I/NAV E1-B records
            rows = rows[(rec.values[rows, f["codes_or_sources"]].astype(int) & 1) == 1]
        toe_abs = rec.values[rows, f["week"]] * 604800.0 + rec.values[rows, f["toe"]]
        toe_abs, first = np.unique(toe_abs, return_index=True)
        rows = rows[first]
        for a, b in zip(range(len(rows) - 1), range(1, len(rows))):
            span = toe_abs[b] - toe_abs[a]
            if not 0 < span <= 7200.0:
                continue
            mid = 0.5 * (toe_abs[a] + toe_abs[b])
            xs = []
            for r, toe in ((rows[a], toe_abs[a]), (rows[b], toe_abs[b])):
                eph = {k: np.array(rec.values[r, i]) for k, i in f.items()}
                geo = bc.beidou_geo(np.array(prn)) if system == "beidou" else None
                xs.append(
                    bc.kepler_ecef_m(eph, np.array(mid - toe), bc.KEPLER_CONSTANTS[system], geo)
                )
            gaps.append(float(np.linalg.norm(xs[0] - xs[1])))
    return np.array(gaps)


@pytest.mark.parametrize(
    ("system", "median_m", "max_m"),
    [("gps", 2.0, 10.0), ("galileo", 1.0, 10.0), ("beidou", 3.0, 20.0)],
)
def test_consecutive_kepler_records_agree_to_metres(nav, system, median_m, max_m):
    """Two consecutive broadcast records of a satellite, each evaluated halfway between their
    t_oe: the control segments' independent fits agree to a few metres (broadcast orbit error,
    about 1 m for GPS and Galileo). A wrong term (a sign, a constant, Omega_e t_oe) moves
    them by kilometres."""
    gaps = _consecutive_gaps(nav, system)
    assert gaps.size > 20
    assert np.median(gaps) < median_m * M
    assert np.max(gaps) < max_m * M


def test_consecutive_glonass_records_agree_to_metres(nav):
    """GLONASS: the state of each record integrated 15 min forward and the next record's state
    (30 min later) integrated 15 min back meet within metres (ICD: the integration's error
    over 15 min is a few metres)."""
    rec = nav.records["glonass"]
    f = GLONASS_FIELDS
    km = 1000.0

    def state(r):
        v = rec.values[r]
        return (
            np.array([v[f["x"]], v[f["y"]], v[f["z"]]]) * km,
            np.array([v[f["vx"]], v[f["vy"]], v[f["vz"]]]) * km,
            np.array([v[f["ax"]], v[f["ay"]], v[f["az"]]]) * km,
        )

    gaps = []
    for prn in np.unique(rec.prn):
        rows = np.flatnonzero((rec.prn == prn) & (rec.values[:, f["health"]] == 0))
        t, first = np.unique(rec.epoch_s[rows], return_index=True)
        rows = rows[first]
        for a, b in zip(range(len(rows) - 1), range(1, len(rows))):
            if t[b] - t[a] != 1800.0:
                continue
            half = 900.0
            xa = bc.glonass_ecef_m(*state(rows[a]), np.array(half))
            xb = bc.glonass_ecef_m(*state(rows[b]), np.array(-half))
            gaps.append(float(np.linalg.norm(xa - xb)))
    gaps = np.array(gaps)
    assert gaps.size > 100
    assert np.median(gaps) < 5.0 * M
    assert np.max(gaps) < 30.0 * M


def test_glonass_nodes_match_the_plain_integration(nav):
    rec = nav.records["glonass"]
    f = GLONASS_FIELDS
    v = rec.values[:50]
    p0 = v[:, [f["x"], f["y"], f["z"]]] * 1000.0
    v0 = v[:, [f["vx"], f["vy"], f["vz"]]] * 1000.0
    a0 = v[:, [f["ax"], f["ay"], f["az"]]] * 1000.0
    nodes = bc.GlonassNodes(p0, v0, a0, 1800.0)
    dt_s = np.linspace(-1800.0, 1800.0, 50)
    got = nodes.ecef_m(np.arange(50), dt_s)
    want = bc.glonass_ecef_m(p0, v0, a0, dt_s)
    assert np.max(np.linalg.norm(got - want, axis=-1)) < 0.01 * M


def test_beidou_geo_stays_over_its_longitude():
    """A BeiDou GEO (BeiDou ICD, the GEO rows): the elements of a geostationary satellite over
    140 deg E in the ICD's frame (Omega_k without the Earth's rotation, then R_z(omega_e t_k)
    R_x(-5 deg)): a circular orbit of mean motion omega_e, inclined 5 deg with its node at
    Omega = pi, argument of latitude lambda + pi + omega_e t_k (R_x(5 deg) of the equatorial
    circle). Computed as a GEO it stays at its Earth-fixed point; read as a MEO it does not."""
    k = bc.KEPLER_CONSTANTS["beidou"]
    we = k.omega_e_radps
    a = (k.mu_m3ps2 / we**2) ** (1.0 / 3.0)  # n = omega_e: 42 164 km
    toe, lon = 3600.0, np.radians(140.0)
    xe = a * np.array([np.cos(lon), np.sin(lon), 0.0])
    eph = {name: np.array(0.0) for name in KEPLER_FIELDS}
    eph.update(sqrt_a=np.array(np.sqrt(a)), i0=np.array(np.radians(5.0)),
               omega0=np.array(np.pi + we * toe), m0=np.array(lon + np.pi), toe=np.array(toe))  # fmt: skip
    tk = np.array([-7200.0, 0.0, 3600.0, 6 * 3600.0])
    x = bc.kepler_ecef_m(eph, tk, k, np.array(True))
    assert np.max(np.linalg.norm(x - xe, axis=-1)) < 0.01 * M
    meo = bc.kepler_ecef_m(eph, tk, k, np.array(False))
    assert np.min(np.linalg.norm(meo - xe, axis=-1)) > 1e6 * M


def test_leap_seconds():
    assert gps_minus_utc_s(dt.datetime(2018, 7, 29)) == 18
    assert gps_minus_utc_s(dt.datetime(2016, 12, 31)) == 17
    assert gps_minus_utc_s(dt.datetime(1980, 1, 6)) == 0


def test_sky_chunks_equal_steps_and_health():
    sky = BroadcastSky(RINEX, None, "2018-07-29T12:00:00Z", *ELKO)
    t = np.arange(0.0, 30.0, 0.1)
    los, vis = sky.sky(t, 10.0)
    one = [sky.sky(t[k : k + 1], 10.0) for k in range(t.size)]
    assert np.array_equal(los, np.concatenate([o[0] for o in one]))
    assert np.array_equal(vis, np.concatenate([o[1] for o in one]))
    assert set(sky.systems) == {"gps", "galileo", "glonass", "beidou"}
    assert 15 <= vis[0].sum() <= 40
    assert np.allclose(np.linalg.norm(los, axis=-1), 1.0)


def test_unhealthy_satellite_is_left_out(tmp_path):
    """G02 made unhealthy in every record (SV health 1): out of the sky, though it has an
    ephemeris."""
    text = gzip.decompress(RINEX.read_bytes()).decode("latin-1").splitlines(keepends=True)
    out = []
    k = 0
    while k < len(text):
        out.append(text[k])
        if text[k].startswith("G02 "):
            block = text[k + 1 : k + 8]
            line6 = block[5]
            block[5] = line6[:23] + f"{1.0:19.12E}" + line6[42:]
            out.extend(block)
            k += 8
            continue
        k += 1
    path = tmp_path / "sick.rnx"
    path.write_text("".join(out), encoding="latin-1")
    start = "2018-07-29T12:00:00Z"
    well = BroadcastSky(RINEX, ("gps",), start, *ELKO)
    sick = BroadcastSky(path, ("gps",), start, *ELKO)
    j = list(well.label).index("G02")
    t = np.arange(0.0, 86400.0 - 43200.0, 600.0)
    _, v_well = well.sky(t, -90.0 + 1e-9)
    _, v_sick = sick.sky(t, -90.0 + 1e-9)
    assert v_well[:, j].any()
    assert not v_sick[:, j].any()
    others = np.arange(well.nsat) != j
    assert np.array_equal(v_well[:, others], v_sick[:, others])


def test_outside_the_file_is_one_line():
    with pytest.raises(ConfigError, match=r"does not cover the run's start"):
        BroadcastSky(RINEX, None, "2019-07-29T12:00:00Z", *ELKO)
    sky = BroadcastSky(RINEX, None, "2018-07-29T23:00:00Z", *ELKO)
    with pytest.raises(ConfigError, match=r"ELKO00USA.*2018-07-30T.*only in part") as err:
        sky.sky(np.array([0.0, 3 * 86400.0]), 10.0)
    assert "\n" not in str(err.value)


def test_the_tracked_systems_the_file_has():
    """gnss.systems lists what the receiver may track: a system the file lacks is not tracked;
    none at all is one line naming the file and what it has."""
    sky = BroadcastSky(RINEX, ("gps", "qzss"), "2018-07-29T12:00:00Z", *ELKO)
    assert sky.systems == ("gps",) and set(sky.system) == {"gps"}
    with pytest.raises(
        ConfigError,
        match=r"ELKO.*no ephemeris of the tracked systems \(qzss;.*it has: gps, galileo, glonass, beidou",
    ):
        BroadcastSky(RINEX, ("qzss",), "2018-07-29T12:00:00Z", *ELKO)


@pytest.mark.parametrize(
    ("mutate", "match"),
    [
        (
            lambda s: s.replace("5.153785652161E+03", "5.1537856x2161E+03", 1),
            r"line 13: expected a number",
        ),
        (lambda s: s.replace("G02 2018 07 28 22", "G02 2018 13 28 22", 1), r"line 11: the epoch"),
        (lambda s: s[: s.index("G04 2018 07 28 21 59 44") + 200], r"cut short"),
        (
            lambda s: s.replace("     3.03           N", "     3.03           O", 1),
            r"line 1: .*navigation",
        ),
        (
            lambda s: s.replace("     3.03           N", "     4.01           N", 1),
            r"line 1: RINEX version 4",
        ),
    ],
)
def test_a_damaged_file_is_one_line_naming_it(tmp_path, mutate, match):
    text = gzip.decompress(RINEX.read_bytes()).decode("latin-1")
    path = tmp_path / "bad.rnx"
    path.write_text(mutate(text), encoding="latin-1")
    with pytest.raises(FormatError, match=match) as err:
        read_nav(path)
    assert str(path) in str(err.value) and "\n" not in str(err.value)


def test_rinex2_gps_and_glonass(tmp_path):
    """RINEX 2.11 files written from the 3.03 records (the 2.x layout: two-digit years, D
    exponents, 3-column indent) read as the same values."""
    nav3 = read_nav(RINEX)
    text = gzip.decompress(RINEX.read_bytes()).decode("latin-1").splitlines()
    for letter, ftype, kind, count in (
        ("G", "N", "GPS NAV DATA", 8),
        ("R", "G", "GLONASS NAV DATA", 4),
    ):
        out = [f"{'2.11':>9}{'':11}{ftype:<20}{'':20}RINEX VERSION / TYPE", f"{'':60}END OF HEADER"]
        k = 0
        while k < len(text) and "END OF HEADER" not in text[k]:
            k += 1
        k += 1
        while k < len(text):
            line = text[k]
            if line.startswith(letter):
                prn = int(line[1:3])
                y, mo, d, h, mi, s = line[4:23].split()
                head = f"{prn:2d} {int(y) % 100:02d} {int(mo):2d} {int(d):2d} {int(h):2d} {int(mi):2d}{float(s):5.1f}"
                out.append(head + line[23:].replace("E", "D"))
                out += ["   " + ln[4:].replace("E", "D") for ln in text[k + 1 : k + count]]
                k += count
            else:
                k += 1
        path = tmp_path / f"x.18{ftype.lower()}"
        path.write_text("\n".join(out) + "\n", encoding="latin-1")
        nav2 = read_nav(path)
        system = "gps" if letter == "G" else "glonass"
        assert list(nav2.records) == [system], kind
        a, b = nav2.records[system], nav3.records[system]
        assert np.array_equal(a.prn, b.prn) and np.array_equal(a.epoch_s, b.epoch_s)
        assert np.array_equal(a.values, b.values[:, : a.values.shape[1]])


DATA = RINEX.parent
VILL = DATA / "VILL00ESP_R_20181700000_01D_MN.rnx.gz"  # BeiDou GEO C05, SBAS records
AB42 = DATA / "ab422100.18n.gz"  # RINEX 2.11 GPS, the day of ELKO's file
QZSS = DATA / "qzss_nav3.14n"  # RINEX 3.03 QZSS


def test_beidou_geo_c05_over_its_slot_from_a_real_file():
    """C05 (GEO, 58.75 deg E) from VILL's broadcast records (BeiDou ICD, the GEO rows): about
    42 164 km from the Earth's centre, over the equator at 58.75 deg E; consecutive records
    agree to metres halfway between them. Computed as a MEO its position is thousands of
    kilometres away. The file's SBAS records are read past."""
    nav = read_nav(VILL)
    assert set(nav.records) == {"gps", "glonass", "galileo", "beidou"}
    rec = nav.records["beidou"]
    f = KEPLER_FIELDS
    rows = np.flatnonzero(rec.prn == 5)
    toe = rec.values[rows, f["week"]] * 604800.0 + rec.values[rows, f["toe"]]
    toe, first = np.unique(toe, return_index=True)
    rows = rows[first]
    assert rows.size > 10
    k = bc.KEPLER_CONSTANTS["beidou"]
    gaps = []
    for a in range(rows.size - 1):
        if toe[a + 1] - toe[a] > 3600.0:
            continue
        mid = 0.5 * (toe[a] + toe[a + 1])
        xs = []
        for r, t0 in ((rows[a], toe[a]), (rows[a + 1], toe[a + 1])):
            eph = {name: np.array(rec.values[r, i]) for name, i in f.items()}
            xs.append(bc.kepler_ecef_m(eph, np.array(mid - t0), k, np.array(True)))
        gaps.append(float(np.linalg.norm(xs[0] - xs[1])))
        x = xs[0]
        radius = np.linalg.norm(x)
        assert abs(radius - 42_164e3) < 50e3
        assert abs(np.degrees(np.arcsin(x[2] / radius))) < 2.0
        assert abs(np.degrees(np.arctan2(x[1], x[0])) - 58.75) < 1.0
        meo = bc.kepler_ecef_m(eph, np.array(mid - t0), k, np.array(False))
        assert np.linalg.norm(meo - x) > 1e6
    assert len(gaps) > 5 and np.median(gaps) < 5.0 * M and max(gaps) < 30.0 * M


def test_rinex2_gps_file_holds_the_ephemerides_of_the_rinex3_file():
    """ab422100.18n (RINEX 2.11, UNAVCO station AB42, 2018-07-29) and ELKO's RINEX 3.03 file
    of the same day: the GPS broadcast records both hold are the same numbers (to the last of
    the twelve digits, rounded by two decoders)."""
    two, three = read_nav(AB42).records["gps"], read_nav(RINEX).records["gps"]
    key3 = {(int(p), float(e)): v for p, e, v in zip(three.prn, three.epoch_s, three.values)}
    same = 0
    for p, e, v in zip(two.prn, two.epoch_s, two.values):
        w = key3.get((int(p), float(e)))
        if w is None:
            continue
        n = 27  # up to the transmission time, which each receiver logs its own
        # the same broadcast bits, written by two decoders: the 12th digit may differ
        assert np.allclose(v[:n], w[:n], rtol=2e-12, atol=0.0), (p, e)
        same += 1
    assert same > 50


@pytest.mark.parametrize(
    ("path", "use", "system"), [(AB42, "G", "gps"), (QZSS, "J", "qzss"), (VILL, "C", "beidou")]
)
def test_more_files_as_georinex_reads_them(path, use, system):
    gr = pytest.importorskip("georinex")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ds = gr.load(path, use=use)
    rec = read_nav(path).records[system]
    names = list(ds.data_vars)[:29]
    table = np.stack([ds[name].values for name in names], axis=-1)
    times = ds["time"].values.astype("datetime64[us]").astype(dt.datetime)
    epoch = np.array([(t - GPS_EPOCH).total_seconds() for t in times])
    checked = 0
    for j, sv in enumerate(ds["sv"].values):
        prn = int(str(sv)[1:3])
        for i in np.flatnonzero(~np.all(np.isnan(table[:, j]), axis=-1)):
            want = np.nan_to_num(table[i, j], nan=0.0)
            mine = rec.values[(rec.prn == prn) & (rec.epoch_s == epoch[i]), :29]
            assert np.any(np.all(mine == want, axis=-1)), f"{sv} {times[i]}"
            checked += 1
    assert checked >= 1


def test_qzss_file_gives_an_igso_satellite():
    """J01 of a 2014 QZSS file: the QZS-1 inclined geosynchronous orbit (about 42 164 km, a
    ground track centred near 135 deg E)."""
    sky = BroadcastSky(QZSS, None, "2014-05-13T08:00:00Z", 35.0, 139.0, 0.0)
    assert sky.systems == ("qzss",) and list(sky.label) == ["J01"]
    pos, ok = sky.ecef_m(np.arange(0.0, 3600.0, 600.0))
    r = np.linalg.norm(pos[ok], axis=-1)
    assert ok.any() and np.all(np.abs(r - 42_164e3) < 3500e3)
    lon = np.degrees(np.arctan2(pos[ok][:, 1], pos[ok][:, 0]))
    assert np.all(np.abs(lon - 135.0) < 30.0)


def test_a_damaged_record_leaves_its_satellite_out_without_a_warning(tmp_path):
    """Healthy records with sqrt(A) 0 (G02) and a GLONASS state at the Earth's centre (R01):
    their satellites are out (no NaN in any line of sight, no numpy warning), the others
    as before."""
    text = gzip.decompress(RINEX.read_bytes()).decode("latin-1").splitlines(keepends=True)
    zero = f"{0.0:19.12E}"
    k = 0
    while k < len(text):
        if text[k].startswith("G02 "):
            line = text[k + 2]
            text[k + 2] = line[: 4 + 57] + zero + line[4 + 76 :]  # sqrt_a: the 4th value
            k += 8
        elif text[k].startswith("R01 "):
            for j in (1, 2, 3):
                line = text[k + j]
                text[k + j] = line[:4] + zero + line[23:]
            k += 4
        else:
            k += 1
    path = tmp_path / "damaged.rnx"
    path.write_text("".join(text), encoding="latin-1")
    start = "2018-07-29T12:00:00Z"
    well = BroadcastSky(RINEX, None, start, *ELKO)
    t = np.arange(0.0, 7200.0, 300.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bad = BroadcastSky(path, None, start, *ELKO)
        los, vis = bad.sky(t, 0.0)
    _, v_well = well.sky(t, 0.0)
    assert np.all(np.isfinite(los))
    out = np.isin(bad.label, ["G02", "R01"])
    assert v_well[:, out].any() and not vis[:, out].any()
    assert np.array_equal(vis[:, ~out], v_well[:, ~out])


def test_rinex305_glonass_records_have_a_fifth_line(tmp_path):
    """RINEX 3.05 adds a status line to each GLONASS record (five lines): the file rewritten as
    3.05 with that line reads as the same records, and the next record is not lost."""
    text = gzip.decompress(RINEX.read_bytes()).decode("latin-1").splitlines(keepends=True)
    out = [text[0].replace("     3.03", "     3.05", 1)]
    k = 1
    while k < len(text):
        out.append(text[k])
        if text[k].startswith("R") and text[k][1:3].isdigit():
            out.extend(text[k + 1 : k + 4])
            out.append("    " + f"{0.0:19.12E}" * 4 + "\n")  # status flags, delay, URAI, health
            k += 4
            continue
        k += 1
    path = tmp_path / "v305.rnx"
    path.write_text("".join(out), encoding="latin-1")
    a, b = read_nav(path), read_nav(RINEX)
    assert a.version == 3.05
    for system in b.records:
        ra, rb = a.records[system], b.records[system]
        assert np.array_equal(ra.prn, rb.prn) and np.array_equal(ra.epoch_s, rb.epoch_s)
        w = rb.values.shape[1]
        assert np.array_equal(ra.values[:, :w], rb.values)


def test_each_satellite_takes_its_nearest_reference_time():
    """The schedule of choices (one search an epoch for all satellites) against a search of
    each satellite's own reference times: the nearest, the later on a tie, at times on, just
    before and between the midpoints."""
    sky = BroadcastSky(RINEX, None, "2018-07-29T00:00:00Z", *ELKO)
    first = sky._choice[0]
    last = np.append(first[1:], sky._rel_all.size)
    mids = np.concatenate(
        [0.5 * (sky._rel_all[a + 1 : b] + sky._rel_all[a : b - 1]) for a, b in zip(first, last)]
    )
    t = np.concatenate([mids, np.nextafter(mids, -np.inf), np.arange(-7000.0, 90000.0, 97.3)])
    k = sky._choice[np.searchsorted(sky._cuts, t, side="right")]
    for j, (a, b) in enumerate(zip(first, last)):
        rel = sky._rel_all[a:b]
        best = np.abs(t[:, None] - rel[None, :]).min(axis=1)
        assert np.array_equal(np.abs(t - sky._rel_all[k[:, j]]), best), sky.label[j]
        on_mid = np.isin(t, 0.5 * (rel[1:] + rel[:-1]))  # a tie: the later record
        assert np.all(sky._rel_all[k[on_mid, j]] > t[on_mid]), sky.label[j]


def test_a_navigation_file_that_is_no_regular_file_or_too_large_is_one_line(tmp_path):
    """simulate --gnss-orbits FIFO waited for ever for a writer (a hang; found by the third fuzz
    helper), and a gzip file of 260 kB was decompressed whole however large (1 GB of blanks:
    1 GB of memory, then 'not a RINEX file'). A FIFO, a directory or a device is refused by
    name, and at most 256 MiB are read, plain or decompressed."""
    import os
    import zlib

    from fuzz.fuzz_helpers import time_limit

    max_bytes = 256 * 1024 * 1024  # navsense.sky.rinex_nav.MAX_NAV_BYTES

    fifo = tmp_path / "nav.rnx"
    os.mkfifo(fifo)
    with time_limit(20), pytest.raises(FormatError, match=r"nav\.rnx: .* it is a FIFO, not a file"):
        read_nav(fifo)
    with pytest.raises(FormatError, match=r"it is a directory, not a file"):
        read_nav(tmp_path)
    bomb = tmp_path / "bomb.rnx.gz"
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)  # the gzip container
    block = b" " * (1 << 20)
    with open(bomb, "wb") as f:
        for _ in range(max_bytes // len(block) + 1):
            f.write(packer.compress(block))
        f.write(packer.flush())
    assert bomb.stat().st_size < 1_000_000
    with pytest.raises(FormatError, match=r"bomb\.rnx\.gz: the decompressed navigation file has "):
        read_nav(bomb)
