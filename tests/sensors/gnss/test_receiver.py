"""The GNSS receiver end to end (specification, "GNSS Receiver"; CONTRACTS.md)."""

import datetime
import math

import numpy as np
import orjson
import pytest
from pynmeagps import NMEAReader
from scipy.spatial.transform import Rotation

from navsense.config import load_config
from navsense.config.typed.gnss import GnssConfig
from navsense.output.columns import rows_from_columns
from navsense.output.layouts import layout_for
from navsense.rng import Pcg32
from navsense.sensors.gnss.fixstate import DGPS, NO_FIX, RTK_FIXED, RTK_FLOAT, SINGLE
from navsense.sensors.gnss.receiver import GnssReceiver
from navsense.site import Site
from navsense.truth.states import TruthStates
from navsense.vehicles import vehicle_profile

mm = 1e-3
um = 1e-6
SEED = 42

ROW_KEYS = [
    "fix_type",
    "gga_quality",
    "solution",
    "satellites_used",
    "satellites_clear",
    "satellites_near_obstruction",
    "satellites_foliage",
    "satellites_blocked",
    "satellites_above_mask",
    "hdop",
    "vdop",
    "pdop",
    "hdop_open_sky",
    "vdop_open_sky",
    "multipath_index",
    "reflector_index",
    "correction_age_s",
    "rtk_lock_age_s",
    "rtk_converge_s",
    "rtk_time_to_fix_s",
    "model",
    "position_enu_m",
    "sigma_enu_m",
    "covariance_enu_m2",
    "position_std_m",
    "latitude_deg",
    "longitude_deg",
    "ellipsoidal_height_m",
    "altitude_navd88_m",
    "geoid_undulation_nad83_m",
    "nad83_harn_lat_deg",
    "nad83_harn_lon_deg",
    "nad83_2011_lat_deg",
    "nad83_2011_lon_deg",
    "nad83_2011_height_m",
    "wgs84_lat_deg",
    "wgs84_lon_deg",
    "wgs84_height_m",
    "nmea_gga",
]
GEO_KEYS = ROW_KEYS[25:38]
POSITION_KEYS = ["position_enu_m", "sigma_enu_m", "covariance_enu_m2", "position_std_m"]


# --------------------------------------------------------------------------- fixtures
def drive_east(duration_s, start_s=2.0, speed_mps=4.0, rate_hz=120.0):
    """Parked at the origin (heading east, slight yaw) until start_s, then east at speed_mps."""
    n = int(round(duration_s * rate_hz))
    t = np.arange(n) / rate_hz
    x = speed_mps * np.clip(t - start_s, 0.0, None)
    p = np.column_stack([x, np.zeros(n), np.full(n, 0.6)])
    yaw = 0.05
    q = np.tile([0.0, 0.0, math.sin(yaw / 2), math.cos(yaw / 2)], (n, 1))
    v = np.column_stack([np.where(t >= start_s, speed_mps, 0.0), np.zeros(n), np.zeros(n)])
    return TruthStates(
        step0=0,
        p_m=p,
        q_xyzw=q,
        v_mps=v,
        w_radps=np.zeros((n, 3)),
        c_m=p.copy(),
        reset=np.zeros(n, dtype=bool),
        rate_hz=rate_hz,
    )


def garage_site(georeference=True):
    """A closed box around the start (the antenna is inside it), open sky beyond."""
    return Site(
        name="garage",
        georeference={"kind": "acre"} if georeference else None,
        box_min_m=np.array([[-6.0, -6.0, 0.0]]),
        box_max_m=np.array([[6.0, 6.0, 5.0]]),
    )


def open_site():
    return Site(name="open", georeference={"kind": "acre"})


def receiver(site, **overrides):
    cfg = load_config(vehicle="polaris", overrides={"seed": SEED, **overrides})
    georef = site.make_georeference(cfg["gnss"]["datum"]["start_utc"], cfg["gnss"]["datum"])
    return GnssReceiver(GnssConfig.from_validated(cfg), vehicle_profile("polaris"), site, georef)


def rows_of(rx, block, layout=None):
    """The gnss.jsonl rows of a block (without the time keys), by the receiver's layout."""
    layout = layout or layout_for(rx)
    return rows_from_columns(layout.columns(block), len(block["sample_time_s"]))


def concat(blocks):
    out = {}
    for key in blocks[0]:
        out[key] = np.concatenate([b[key] for b in blocks])
    return out


OUTAGE = {"gnss.corrections.outages_s": [[40.0, 120.0]]}


@pytest.fixture(scope="module")
def outage_run():
    """150 s: garage, open sky, a correction outage from 40 s to 120 s."""
    rx = receiver(garage_site(), **OUTAGE)
    block = rx.process(drive_east(150.0))
    return rx, block, rows_of(rx, block)


# --------------------------------------------------------------------------- behaviour
def test_garage_open_sky_and_outage_transitions(outage_run):
    _, block, rows = outage_run
    t = block["sample_time_s"]
    fix = block["fix"]
    inside = block["antenna_enu_m"][:, 0] < 6.0
    assert inside[:20].all()
    assert (fix[inside] == NO_FIX).all()  # inside the garage
    assert (block["satellites_used"][inside] == 0).all()
    # open sky before the outage bites: the lock comes back (reacquire) and fixes
    open_sky = (t > 20.0) & (t < 45.0)
    assert np.mean(fix[open_sky] == RTK_FIXED) > 0.9
    # the outage: RTK until the age passes 10 s, then dgps until 60 s, then single
    age = block["correction_age_s"]
    during = (t >= 40.3) & (t < 120.3)
    assert (age[during] > 0.3).all()
    assert (fix[during & (age > 10.0) & (age <= 60.0)] == DGPS).all()
    assert (fix[during & (age > 60.0)] == SINGLE).all()
    assert (np.isin(fix[during & (age <= 10.0)], [RTK_FIXED, RTK_FLOAT])).all()
    # back after the outage: float, then fixed
    after = t >= 120.3
    assert fix[after][0] == RTK_FLOAT
    assert RTK_FIXED in fix[after]
    # the order of the states in time
    order = [int(fix[0])] + [int(b) for a, b in zip(fix[:-1], fix[1:]) if a != b]
    assert order[:2] == [NO_FIX, RTK_FLOAT]
    i_dgps = order.index(DGPS)
    assert order[i_dgps + 1] == SINGLE and order[i_dgps + 2] == RTK_FLOAT
    assert [r["fix_type"] for r in rows[:1]] == ["no_fix"]


def test_no_fix_rows_have_null_positions(outage_run):
    _, block, rows = outage_run
    r = rows[0]
    assert r["fix_type"] == "no_fix" and r["gga_quality"] == 0 and r["solution"] == "N"
    for key in POSITION_KEYS + GEO_KEYS:
        assert r[key] is None
    assert r["nmea_gga"].startswith("$GNGGA,150000.00,,,,,0,00,99.99,")
    assert r["hdop"] == 99.99 and r["vdop"] == 99.99 and r["pdop"] == 99.99


def test_row_keys_in_the_specification_order(outage_run):
    _, _, rows = outage_run
    for r in rows[::100]:
        assert list(r) == ROW_KEYS
        assert list(r["model"]) == [
            "sigma_gm_m",
            "sigma_white_m",
            "sigma_mp_m",
            "tau_s",
            "multipath_tau_s",
            "k_h",
            "k_v",
            "dt_s",
        ]
    fixed = next(r for r in rows if r["fix_type"] == "rtk_fixed")
    assert fixed["gga_quality"] == 4 and fixed["solution"] == "R"
    cov = fixed["covariance_enu_m2"]
    assert len(cov) == 9 and cov[1] == cov[2] == cov[3] == cov[5] == cov[6] == cov[7] == 0.0
    assert cov[0] == pytest.approx(fixed["sigma_enu_m"][0] ** 2, rel=1e-3)
    assert fixed["position_std_m"] == fixed["sigma_enu_m"][0]
    orjson.dumps(rows)  # JSON-ready


def test_rows_without_georeference_have_no_geodetic_keys():
    rx = receiver(garage_site(georeference=False))
    block = rx.process(drive_east(10.0))
    rows = rows_of(rx, block)
    assert list(rows[-1]) == ROW_KEYS[:25]
    assert layout_for(rx).extra(block) == []


def test_no_site_is_open_sky_without_geodesy():
    cfg = load_config(vehicle="maxxum")
    rx = GnssReceiver(GnssConfig.from_validated(cfg), vehicle_profile("maxxum"), None, None)
    rows = rows_of(rx, rx.process(drive_east(2.0)))
    assert all(r["fix_type"] == "rtk_fixed" and r["satellites_blocked"] == 0 for r in rows)
    assert "latitude_deg" not in rows[0] and "nmea_gga" not in rows[0]


def test_empty_chunk_gives_no_rows():
    rx = receiver(open_site())
    rx.process(drive_east(1.0 / 120.0))  # the epoch at t = 0
    truth = drive_east(0.05)
    block = rx.process(truth.slice(1, 2))  # one step that does not sample
    assert block["sample_time_s"].shape == (0,) and block["position_enu_m"].shape == (0, 3)
    layout = layout_for(rx)
    assert rows_of(rx, block, layout) == [] and layout.extra(block) == []
    # the next step between epochs costs nothing: the same block, the same columns
    again = rx.process(truth.slice(2, 3))
    assert again is block
    assert [c.name for c in layout.columns(again)] == [c.name for c in layout.columns(block)]


# --------------------------------------------------------------------------- noise and draws
def test_noise_off_position_is_the_antenna_truth_exactly():
    rx = receiver(garage_site(), noise=False, **OUTAGE)
    truth = drive_east(60.0)
    block = rx.process(truth)
    np.testing.assert_array_equal(block["position_enu_m"], block["antenna_enu_m"])
    # independent antenna position: p + R r_a, r_a = [1.1, 0, 2.15] - (0.4 * 2.06, 0, 0.60)
    idx = np.arange(0, len(truth), 12)
    r_a = np.array([1.1 - 0.4 * 2.06, 0.0, 2.15 - 0.60])
    want = truth.p_m[idx] + Rotation.from_quat(truth.q_xyzw[idx]).apply(r_a)
    np.testing.assert_allclose(block["antenna_enu_m"], want, rtol=0, atol=1e-9 * mm)
    rows = rows_of(rx, block)
    k = next(k for k, r in enumerate(rows) if r["fix_type"] != "no_fix")
    assert rows[k]["position_enu_m"] == np.round(want[k], 4).tolist()
    assert rows[k]["sigma_enu_m"] == [0.0, 0.0, 0.0]


def test_first_epoch_error_recomputed_from_the_stream():
    rx = receiver(open_site())
    block = rx.process(drive_east(1.0))
    assert block["fix"][0] == RTK_FIXED  # converged start, open sky
    ref = Pcg32(SEED, 1)
    g = np.array([ref.gaussian() for _ in range(9)])
    k_h = min(max(block["hdop"][0] / block["hdop_open_sky"][0], 0.5), 20.0)
    k_v = min(max(block["vdop"][0] / block["vdop_open_sky"][0], 0.5), 20.0)
    s_h = 0.008 + 1e-3 * 1.0 * 5.0  # rtk_fixed sigma_h_m + ppm_h B
    s_v = 0.015 + 1e-3 * 1.5 * 5.0
    m = block["multipath_index"][0]
    sigma_gm = np.array([s_h * k_h, s_h * k_h, s_v * k_v])
    sigma_w = np.array([0.003 * k_h, 0.003 * k_h, 0.006 * k_v])
    sigma_mp = m * 0.015 * np.array([1.0, 1.0, 1.5])
    # first epoch: phi = phi_m = 0, so u = g and z = g'
    e = sigma_gm * g[0:3] + sigma_w * g[3:6] + sigma_mp * g[6:9]
    np.testing.assert_allclose(
        block["position_enu_m"][0] - block["antenna_enu_m"][0], e, rtol=0, atol=1e-6 * um
    )
    np.testing.assert_allclose(
        block["sigma_enu_m"][0], np.sqrt(sigma_gm**2 + sigma_w**2 + sigma_mp**2), rtol=1e-12
    )
    assert block["dt_s"][0] == 0.1


def test_fix_state_and_noise_do_not_move_later_draws():
    truth = drive_east(60.0)
    base = receiver(garage_site())
    quiet = receiver(garage_site(), noise=False)
    other = receiver(
        garage_site(),
        **{
            "gnss.start": "cold",
            "gnss.cold_ttff_s": 30.0,
            "gnss.corrections.outages_s": [[5.0, 50.0]],
        },
    )
    blocks = [rx.process(truth) for rx in (base, quiet, other)]
    assert (blocks[0]["fix"] != blocks[2]["fix"]).any()  # the states differ
    m = blocks[0]["fix"].size
    ref = Pcg32(SEED, 1)
    ref.u32(21 * m)
    for rx in (base, quiet, other):
        assert rx._rng.state == ref.state  # 21 outputs an epoch, in every state
    for b in blocks[1:]:
        np.testing.assert_array_equal(b["z"], blocks[0]["z"])  # z uses g' of every epoch
    np.testing.assert_array_equal(blocks[1]["u"], blocks[0]["u"])
    np.testing.assert_array_equal(blocks[1]["fix"], blocks[0]["fix"])


# --------------------------------------------------------------------------- batch = chunks = steps
def test_batch_chunks_and_steps_give_identical_rows():
    over = {
        "gnss.start": "cold",
        "gnss.cold_ttff_s": 3.0,
        "gnss.corrections.outages_s": [[8.0, 14.0]],
        "gnss.corrections.rtk_max_age_s": 2.0,
        "gnss.corrections.dgps_max_age_s": 4.0,
    }
    truth = drive_east(20.0)
    whole = receiver(garage_site(), **over)
    whole_block = whole.process(truth)
    want = orjson.dumps(rows_of(whole, whole_block))
    rng = np.random.default_rng(1)
    cuts = np.unique(np.concatenate([[0, len(truth)], rng.integers(0, len(truth), 40)]))
    chunked = receiver(garage_site(), **over)
    rows, layout = [], layout_for(chunked)
    for a, b in zip(cuts[:-1], cuts[1:]):
        rows += rows_of(chunked, chunked.process(truth.slice(int(a), int(b))), layout)
    assert orjson.dumps(rows) == want
    stepped = receiver(garage_site(), **over)
    rows, blocks, layout = [], [], layout_for(stepped)
    for k in range(len(truth)):
        blocks.append(stepped.process(truth.slice(k, k + 1)))
        rows += rows_of(stepped, blocks[-1], layout)
    assert orjson.dumps(rows) == want
    # the unrounded values too, bit for bit (one-epoch chunks of sky, DOP, errors, datum chain)
    for key, value in whole_block.items():
        steps = np.concatenate([b[key] for b in blocks])
        assert steps.dtype == value.dtype and steps.tobytes() == value.tobytes(), key
    fixes = {r["fix_type"] for r in orjson.loads(want)}
    assert fixes == {"no_fix", "single", "dgps", "rtk_float", "rtk_fixed"}


@pytest.mark.parametrize("frame", ["wgs84_g2139", "nad83"])
def test_compiled_steps_give_the_batch_datum_chain(monkeypatch, frame):
    """One epoch a call with compiled kernels (the streaming case: the datum chain's fused
    kernels, navsense.geo.geodetic_chain) gives the numpy batch's geodetic keys bit for bit,
    the output frame's latitude, longitude and height among them."""
    pytest.importorskip("numba")
    import navsense.kernels as kernels

    truth = drive_east(6.0)
    over = {"gnss.datum.output_frame": frame}
    whole = receiver(open_site(), **over).process(truth)
    stepped = receiver(open_site(), **over)
    monkeypatch.setattr(kernels, "_on", True)
    blocks = [stepped.process(truth.slice(k, k + 1)) for k in range(len(truth))]
    monkeypatch.setattr(kernels, "_on", False)
    keys = [k for k in whole if k.endswith(("_deg", "_m")) and k.split("_")[0] in GEO_PREFIXES]
    assert len(keys) == 13
    for key in keys:
        steps = np.concatenate([b[key] for b in blocks])
        assert steps.dtype == whole[key].dtype and steps.tobytes() == whole[key].tobytes(), key
    lat = "wgs84_lat_deg" if frame == "wgs84_g2139" else "nad83_harn_lat_deg"
    assert whole["latitude_deg"].tobytes() == whole[lat].tobytes()


GEO_PREFIXES = ("nad83", "wgs84", "latitude", "longitude", "ellipsoidal", "orthometric", "geoid")


def test_compiled_steps_load_no_kernel_signature_of_their_own(monkeypatch):
    """Streaming steps with the kernels compiled call each kernel with the signature
    use_compiled() loaded (C-contiguous, writeable float64 arrays): a read-only or Fortran-order
    argument would make numba load or compile another one at a step (a few milliseconds)."""
    pytest.importorskip("numba")
    import navsense.kernels as kernels

    monkeypatch.setattr(kernels, "_on", False)
    assert kernels.use_compiled()

    def signatures():
        return {k.__name__: len(getattr(k._jit, "signatures", ())) for k in kernels._KERNELS}

    before = signatures()
    truth = drive_east(6.0)
    for site in (garage_site(), open_site()):
        rx = receiver(site)
        for k in range(len(truth)):
            rx.process(truth.slice(k, k + 1))
    monkeypatch.setattr(kernels, "_on", False)
    after = signatures()
    assert {k: n for k, n in after.items() if n != before[k]} == {}


def test_irregular_rate_dt_from_physics_steps():
    rx = receiver(open_site(), **{"gnss.hz": 7})
    block = rx.process(drive_east(5.0))
    dt = block["dt_s"]
    assert dt[0] == 0.1
    assert set(np.round(dt[1:] * 120).astype(int).tolist()) == {17, 18}
    np.testing.assert_array_equal(dt[1:] * 120.0, np.round(dt[1:] * 120.0))


# --------------------------------------------------------------------------- NMEA
def check_sentences(block, rows, start):
    for k, r in enumerate(rows):
        s = r["nmea_gga"]
        msg = NMEAReader.parse(s)  # raises on a bad checksum
        body, cs = s[1:].split("*")
        assert len(cs) == 2 and cs == cs.upper()
        assert msg.msgID == "GGA" and s.startswith("$GNGGA,")
        when = start + datetime.timedelta(seconds=float(block["sample_time_s"][k]))
        assert msg.time == when.time()  # sample times at 10 Hz are whole hundredths
        assert msg.quality == r["gga_quality"]
        assert msg.numSV == r["satellites_used"]
        assert r["hdop"] == msg.HDOP
        f = body.split(",")
        if r["fix_type"] == "no_fix":
            assert f[2:6] == ["", "", "", ""] and f[9:15] == ["", "", "", "", "", ""]
            continue
        half_unit = 0.5e-7 / 60.0
        assert msg.lat == pytest.approx(r["latitude_deg"], abs=half_unit + 1e-9)
        assert msg.lon == pytest.approx(r["longitude_deg"], abs=half_unit + 1e-9)
        assert msg.alt == pytest.approx(r["altitude_navd88_m"], abs=0.5 * mm + 0.05 * mm)
        assert msg.sep == pytest.approx(
            r["ellipsoidal_height_m"] - r["altitude_navd88_m"], abs=0.6 * mm
        )
        assert f[10] == "M" and f[12] == "M"
        if r["correction_age_s"] is not None:  # DESIGN.md "GGA number formats"
            assert msg.diffAge == pytest.approx(r["correction_age_s"], abs=0.05 + 1e-3)
            assert f[14] == "0001"
        else:
            assert f[13:15] == ["", ""]


def test_every_sentence_parses_and_equals_the_row(outage_run):
    rx, block, rows = outage_run
    start = datetime.datetime(2026, 9, 23, 15, 0, 0)
    check_sentences(block, rows, start)
    gga = [s for s in layout_for(rx).extra(block) if s.startswith("$GNGGA")]
    assert gga == [r["nmea_gga"] for r in rows]
    assert {r["gga_quality"] for r in rows} == {0, 1, 2, 4, 5}


def test_output_frame_nad83():
    rx = receiver(
        open_site(),
        **{"gnss.datum.output_frame": "nad83", "gnss.datum.start_utc": "2026-12-31T23:59:59Z"},
    )
    block = rx.process(drive_east(3.0))
    rows = rows_of(rx, block)
    r = rows[-1]
    assert (
        r["latitude_deg"] == r["nad83_harn_lat_deg"]
        and r["longitude_deg"] == r["nad83_harn_lon_deg"]
    )
    assert r["ellipsoidal_height_m"] == r["nad83_2011_height_m"]
    # separation of the nad83 frame = the NAD83 geoid undulation
    msg = NMEAReader.parse(r["nmea_gga"])
    assert msg.sep == pytest.approx(r["geoid_undulation_nad83_m"], abs=0.6 * mm)
    check_sentences(block, rows, datetime.datetime(2026, 12, 31, 23, 59, 59))
    assert rows[-1]["nmea_gga"].startswith("$GNGGA,000001.90,")  # past midnight
    w = receiver(open_site())
    rw = rows_of(w, w.process(drive_east(3.0)))[-1]
    assert (
        rw["latitude_deg"] == rw["wgs84_lat_deg"]
        and rw["ellipsoidal_height_m"] == rw["wgs84_height_m"]
    )


def test_episode_info():
    info = receiver(open_site()).episode_info()["gnss_constellation"]
    assert 0.0 <= info["t0_s"] < 86400.0 and info["satellites_enabled"] == 78


# --------------------------------------------------------------------------- acre-loop
def _acre_loop_receiver(scenario, **overrides):
    cfg = load_config(vehicle=scenario.vehicle.name, overrides={"seed": SEED, **overrides})
    georef = scenario.site.make_georeference(
        cfg["gnss"]["datum"]["start_utc"], cfg["gnss"]["datum"]
    )
    return GnssReceiver(GnssConfig.from_validated(cfg), scenario.vehicle, scenario.site, georef)


def _runs(mask):
    """(start, stop) index pairs of the runs of True."""
    edges = np.flatnonzero(np.diff(np.concatenate([[0], mask.astype(np.int8), [0]])))
    return list(zip(edges[::2], edges[1::2]))


def test_acre_loop_transitions():
    """Issue 5, "Done when": garage, open sky, windbreak and grain bins, a correction outage."""
    scenarios = pytest.importorskip("navsense.scenarios")
    if "acre-loop" not in scenarios.scenario_names():
        pytest.skip("the embedded scenario acre-loop is not there")
    sc = scenarios.load_scenario("acre-loop")
    site = sc.site
    base = _acre_loop_receiver(sc)
    b = base.process(sc.truth)
    rows = rows_of(base, b)
    t, fix, ant = b["sample_time_s"], b["fix"], b["antenna_enu_m"]
    sigma_h = b["sigma_enu_m"][:, 0]

    # the antenna inside the garage box: no fix
    g = site.names["buildings"].index("ICSC garage")
    inside = ((ant >= site.box_min_m[g]) & (ant <= site.box_max_m[g])).all(axis=1)
    assert inside[0] and inside.sum() > 100
    assert (fix[inside] == NO_FIX).all()
    assert all(r["position_enu_m"] is None for r, i in zip(rows, inside) if i)
    # open sky (nothing near, through foliage or blocked): rtk_fixed
    open_sky = (
        (b["satellites_near_obstruction"] == 0)
        & (b["satellites_foliage"] == 0)
        & (b["satellites_blocked"] == 0)
        & (b["satellites_used"] >= 10)
    )
    assert open_sky.sum() > 600
    assert np.mean(fix[open_sky] == RTK_FIXED) > 0.9
    sigma_open = np.median(sigma_h[open_sky & (fix == RTK_FIXED)])
    # along the windbreak and beside the grain bins: the fix is lost or its sigma grows
    windbreak = b["satellites_foliage"] > 0
    d_bin = np.min(
        np.hypot(
            ant[:, None, 0] - site.cyl_xy_m[None, :, 0], ant[:, None, 1] - site.cyl_xy_m[None, :, 1]
        ),
        axis=1,
    )
    beside_bins = (d_bin < 30.0) & ~inside
    for where in (windbreak, beside_bins):
        assert where.sum() > 20
        assert (b["multipath_index"][where] > 0).all()
        rtk = where & np.isin(fix, [RTK_FIXED, RTK_FLOAT])
        lost = (fix[where] != RTK_FIXED).any()
        assert lost or np.median(sigma_h[rtk]) > 1.05 * sigma_open

    # a correction outage in the longest open-sky stretch: dgps, single, and back to RTK
    start, stop = max(_runs(open_sky), key=lambda r: r[1] - r[0])
    assert t[stop - 1] - t[start] > 100.0
    t1 = float(np.floor(t[start])) + 5.0
    t2 = t1 + 70.0
    out = _acre_loop_receiver(sc, **{"gnss.corrections.outages_s": [[t1, t2]]})
    bo = out.process(sc.truth)
    fo, to = bo["fix"], bo["sample_time_s"]
    window = (to >= t1) & (to < t2 + 30.0)
    seq = [int(fo[window][0])] + [int(y) for x, y in zip(fo[window][:-1], fo[window][1:]) if x != y]
    assert seq[:4] == [RTK_FIXED, DGPS, SINGLE, RTK_FLOAT], seq
    assert RTK_FIXED in seq[4:]
    k_dgps = np.flatnonzero(window & (fo == DGPS))[0]
    k_single = np.flatnonzero(window & (fo == SINGLE))[0]
    assert bo["correction_age_s"][k_dgps] > 10.0 and bo["correction_age_s"][k_single] > 60.0
    k_back = np.flatnonzero(window & (to >= t2) & (fo == RTK_FLOAT))[0]
    assert bo["correction_age_s"][k_back] <= 1.0 + 0.3 + 1e-9
    # the two runs agree epoch by epoch until the last message before t1 is 10 s old
    before = to < t1 + 9.0
    np.testing.assert_array_equal(fo[before], fix[before])
