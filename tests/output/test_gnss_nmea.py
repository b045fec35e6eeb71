"""gnss.nmea as a receiver sends it (issue 20): every sentence parsed by pynmeagps and equal to
its epoch's row and block (position, speed, course, DOPs, satellites, sigma), in a receiver's
order, with the talkers and NMEA 4.10 system and signal IDs (issue 29: GSA under GN with the
system ID; issue 32: the course frozen while standing)."""

import datetime
import itertools
from pathlib import Path

import numpy as np
import orjson
import pytest
from pynmeagps import VALCKSUM, NMEAReader

from navsense.config import load_config
from navsense.config.schema import NMEA_SENTENCES
from navsense.config.typed.gnss import GnssConfig
from navsense.constants import KMH_MPS, KNOT_MPS
from navsense.output.columns import rows_from_columns
from navsense.output.layouts import layout_for
from navsense.output.layouts.gnss import COURSE_HOLD_SPEED_MPS, GnssLayout
from navsense.output.nmea import SENTENCE_ORDER, nmea_checksum
from navsense.scenarios import load_scenario
from navsense.sensors.gnss.receiver import GnssReceiver
from navsense.sky import obstruction as sky

mm = 1e-3
START = datetime.datetime(2026, 9, 23, 15, 0, 0)
MINUTE_UNIT_DEG = 1e-7 / 60.0
SYSTEMS = {"GP": ("gps", 1, "1", 0), "GL": ("glonass", 2, "1", 64), "GA": ("galileo", 3, "7", 0)}
TALKER_OF_ID = {str(sys_id): talker for talker, (_, sys_id, _, _) in SYSTEMS.items()}


def receiver(**overrides):
    sc = load_scenario("acre-loop", duration_s=300.0)
    cfg = load_config(vehicle=sc.vehicle.name, overrides=overrides)
    georef = sc.site.make_georeference(cfg["gnss"]["datum"]["start_utc"], cfg["gnss"]["datum"])
    return GnssReceiver(GnssConfig.from_validated(cfg), sc.vehicle, sc.site, georef), sc.truth


@pytest.fixture(scope="module")
def run():
    """300 s of acre-loop: the garage (no fix), open sky, buildings, grain bins, the windbreak."""
    rx, truth = receiver()
    block = rx.process(truth)
    layout = layout_for(rx)
    rows = rows_from_columns(layout.columns(block), len(block["sample_time_s"]))
    lines = layout.extra(block)
    return rx, block, rows, lines


def epochs_of(lines):
    """The lines of each epoch (each starts with its RMC)."""
    out = []
    for line in lines:
        if line.startswith("$GNRMC"):
            out.append([])
        out[-1].append(line)
    return out


def parse(line):
    return NMEAReader.parse(line, validate=VALCKSUM)


def system_columns(block, name):
    return np.flatnonzero(block["sat_system"][0] == ("gps", "galileo", "glonass").index(name))


# --------------------------------------------------------------------------- structure
def test_every_line_parses_with_its_checksum_and_the_order_of_a_receiver(run):
    _, block, rows, lines = run
    epochs = epochs_of(lines)
    assert len(epochs) == len(rows) == len(block["sample_time_s"])
    for epoch in epochs:
        kinds = []
        for line in epoch:
            body, cs = line[1:].split("*")
            assert cs == nmea_checksum(body) and len(cs) == 2 and cs == cs.upper()
            msg = parse(line)
            kinds.append((msg.talker, msg.msgID))
        ids = [k for k, _ in itertools.groupby(kinds)]
        assert ids[:3] == [("GN", "RMC"), ("GN", "VTG"), ("GN", "GGA")]
        assert ids[3] == ("GN", "GSA")  # one a system, all under GN (NMEA 4.10, u-blox)
        assert [parse(x).systemId for x in epoch if x[3:6] == "GSA"] == ["1", "2", "3"]
        assert ids[4:7] == [("GP", "GSV"), ("GL", "GSV"), ("GA", "GSV")]
        assert ids[7:] == [("GN", "GST"), ("GN", "ZDA")]
    assert {r["fix_type"] for r in rows} >= {"no_fix", "rtk_float", "rtk_fixed"}
    assert set(NMEA_SENTENCES) == set(SENTENCE_ORDER)


def test_gga_is_the_rows_sentence_unchanged(run):
    _, _, rows, lines = run
    assert [x for x in lines if x.startswith("$GNGGA")] == [r["nmea_gga"] for r in rows]


# --------------------------------------------------------------------------- RMC, VTG, ZDA
def test_rmc_and_vtg_agree_with_the_row_and_the_velocity(run):
    _, block, rows, lines = run
    held = np.nan  # the course of the last epoch with a fix at or above the hold speed
    frozen = 0
    for k, epoch in enumerate(epochs_of(lines)):
        r = rows[k]
        rmc, vtg = parse(epoch[0]), parse(epoch[1])
        when = START + datetime.timedelta(seconds=float(block["sample_time_s"][k]))
        assert rmc.time == when.time() and rmc.date == when.date()
        assert rmc.posMode == vtg.posMode == r["solution"] and rmc.navStatus == "V"
        if r["fix_type"] == "no_fix":
            assert rmc.status == "V" and rmc.lat == "" and rmc.spd == "" and rmc.cog == ""
            assert vtg.cogt == "" and vtg.sogn == "" and vtg.sogk == ""
            # the unit fields stay (u-blox F9: $GNVTG,,T,,M,,N,,K,N)
            assert epoch[1].split("*")[0] == "$GNVTG,,T,,M,,N,,K,N"
            continue
        assert rmc.status == "A"
        assert rmc.lat == pytest.approx(r["latitude_deg"], abs=MINUTE_UNIT_DEG / 2 + 1e-9)
        assert rmc.lon == pytest.approx(r["longitude_deg"], abs=MINUTE_UNIT_DEG / 2 + 1e-9)
        speed = block["speed_mps"][k]
        assert rmc.spd == vtg.sogn == pytest.approx(speed / KNOT_MPS, abs=0.0005 + 1e-9)
        assert vtg.sogk == pytest.approx(speed / KMH_MPS, abs=0.0005 + 1e-9)
        assert rmc.cog == vtg.cogt
        if speed >= COURSE_HOLD_SPEED_MPS:
            held = block["course_deg"][k]
        else:
            frozen += 1
        assert (rmc.cog - held + 180.0) % 360.0 - 180.0 == pytest.approx(0.0, abs=0.005 + 1e-9)
        assert 0.0 <= rmc.cog < 360.0
    assert frozen > 100  # the stop at the field's edge


def test_speed_and_course_follow_the_truth(run):
    """The reported speed is the antenna's truth speed within a few Doppler sigmas; the course,
    once the vehicle moves, its truth course (true north: grid course + convergence)."""
    rx, block, rows, _ = run
    v_a = block["antenna_velocity_enu_mps"]
    truth_speed = np.hypot(v_a[:, 0], v_a[:, 1])
    sigma_h = block["sigma_velocity_enu_mps"][:, 0]
    fix = block["fix"] != 0
    assert (np.abs(block["speed_mps"] - truth_speed)[fix] < 6 * np.sqrt(2) * sigma_h[fix]).all()
    moving = fix & (truth_speed > 2.0)
    assert moving.sum() > 500
    grid_course = np.degrees(np.arctan2(v_a[:, 0], v_a[:, 1]))
    alpha = rx._velocity.grid_north_azimuth_deg
    diff = (block["course_deg"] - grid_course - alpha + 180.0) % 360.0 - 180.0
    assert np.abs(diff[moving]).max() < 3.0  # 0.1 m/s of error at 2 m/s is 2.9 deg


def test_the_course_is_held_while_standing(run):
    """Issue 32: standing still (the antenna's truth speed 0, the stop at the field's edge),
    RMC's course no longer swings (it did 96 -> 179 -> 343 deg on consecutive epochs): the stand
    shows one course, and a new one only at an epoch whose noisy speed reaches the hold speed."""
    _, block, _, lines = run
    v_a = block["antenna_velocity_enu_mps"]
    standing = np.flatnonzero((np.hypot(v_a[:, 0], v_a[:, 1]) == 0.0) & (block["fix"] != 0))
    stand = np.split(standing, np.flatnonzero(np.diff(standing) > 1) + 1)[0]
    assert stand.size > 100
    epochs = epochs_of(lines)
    cog = np.array([parse(epochs[k][0]).cog for k in stand])
    reaching = int((block["speed_mps"][stand] >= COURSE_HOLD_SPEED_MPS).sum())
    assert reaching < 0.05 * stand.size
    assert np.unique(cog).size <= 1 + reaching
    assert np.ptp(block["course_deg"][stand]) > 90.0  # the velocity's course: noise


def test_zda_date_and_time(run):
    _, block, _, lines = run
    for k, epoch in enumerate(epochs_of(lines)[:50]):
        zda = parse(epoch[-1])
        when = START + datetime.timedelta(seconds=float(block["sample_time_s"][k]))
        assert zda.msgID == "ZDA" and zda.time == when.time()
        assert (zda.day, zda.month, zda.year) == (when.day, when.month, when.year)
        assert epoch[-1].split(",")[5:7] == ["00", "00*" + epoch[-1][-2:]]


# --------------------------------------------------------------------------- GSA, GSV
def test_gsa_lists_the_used_satellites_with_the_rows_dops(run):
    _, block, rows, lines = run
    for k, epoch in enumerate(epochs_of(lines)):
        r = rows[k]
        gsa = [parse(x) for x in epoch if x[3:6] == "GSA"]
        assert [m.talker for m in gsa] == ["GN", "GN", "GN"]
        assert [m.systemId for m in gsa] == ["1", "2", "3"]
        total = 0
        for m in gsa:
            name, sys_id, _, offset = SYSTEMS[TALKER_OF_ID[m.systemId]]
            assert m.opMode == "A"
            assert (r["pdop"], r["hdop"], r["vdop"]) == (m.PDOP, m.HDOP, m.VDOP)
            prns = [getattr(m, f"svid_{i:02d}") for i in range(1, 13)]
            prns = [p for p in prns if p != ""]
            cols = system_columns(block, name)
            used = block["sat_prn"][k, cols][block["sat_used"][k, cols]] + offset
            if r["fix_type"] == "no_fix":
                assert m.navMode == 1 and prns == []
            else:
                assert m.navMode == 3 and prns == used.tolist()
                total += len(prns)
        if r["fix_type"] != "no_fix":
            assert total == r["satellites_used"]


def test_gsv_reports_the_sky_view(run):
    _, block, rows, lines = run
    snr = {sky.CLEAR: [], sky.NEAR: [], sky.FOLIAGE: []}
    for k, epoch in enumerate(epochs_of(lines)):
        in_view = 0
        for talker, (name, _, signal, offset) in SYSTEMS.items():
            gsv = [parse(x) for x in epoch if x.startswith(f"${talker}GSV")]
            cols = system_columns(block, name)
            status = block["sat_class"][k, cols]
            view = status != sky.BELOW_MASK
            assert len(gsv) == max(1, -(-int(view.sum()) // 4))
            got = []
            for j, m in enumerate(gsv):
                assert (m.numMsg, m.msgNum, m.numSV, m.signalID) == (
                    len(gsv),
                    j + 1,
                    int(view.sum()),
                    signal,
                )
                f = gsv_fields(m)
                got += [f[4 * i : 4 * i + 4] for i in range(len(f) // 4)]
            want = []
            for c in np.flatnonzero(view):
                cn0 = block["sat_cn0_dbhz"][k, cols[c]]
                want.append(
                    [
                        int(block["sat_prn"][k, cols[c]]) + offset,
                        int(np.rint(block["sat_elevation_deg"][k, cols[c]])),
                        int(np.rint(block["sat_azimuth_deg"][k, cols[c]])) % 360,
                        "" if np.isnan(cn0) else int(np.rint(cn0)),
                    ]
                )
                # blocked: no signal; clear, near, foliage: a signal
                assert (want[-1][3] == "") == (status[c] == sky.BLOCKED)
                if status[c] != sky.BLOCKED:
                    snr[int(status[c])].append(cn0)
            assert got == want
            in_view += int(view.sum())
        assert in_view == rows[k]["satellites_above_mask"]
    # through foliage weaker than near an obstacle, weaker than in the clear
    mean = {c: np.mean(v) for c, v in snr.items()}
    assert min(len(v) for v in snr.values()) > 200
    assert mean[sky.FOLIAGE] < mean[sky.NEAR] < mean[sky.CLEAR]


def gsv_fields(msg):
    """The satellites' fields of a parsed GSV, in order."""
    out = []
    for i in range(1, 5):
        if not hasattr(msg, f"svid_{i:02d}"):
            break
        out += [getattr(msg, f"{f}_{i:02d}") for f in ("svid", "elv", "az", "cno")]
    return out


# --------------------------------------------------------------------------- GST
def test_gst_carries_the_reported_sigma(run):
    _, block, rows, lines = run
    for k, epoch in enumerate(epochs_of(lines)):
        r = rows[k]
        gst = parse(epoch[-2])
        assert gst.msgID == "GST"
        if r["fix_type"] == "no_fix":
            assert gst.rangeRms == gst.stdLat == gst.stdAlt == ""
            continue
        s_e, s_n, s_u = r["sigma_enu_m"]
        half = 0.5 * mm + 1e-5 + 1e-9  # 3 decimals of the sentence, 5 of the row
        assert gst.stdLat == pytest.approx(s_n, abs=half)
        assert gst.stdLong == pytest.approx(s_e, abs=half)
        assert gst.stdAlt == pytest.approx(s_u, abs=half)
        assert gst.stdMajor == pytest.approx(max(s_e, s_n), abs=half)
        assert gst.stdMinor == pytest.approx(min(s_e, s_n), abs=half)
        assert gst.orient == 0.0  # sigma_e = sigma_n: a circle, reported north
        sigma = block["sigma_enu_m"][k]  # trace = PDOP^2 x the range variance
        rms = np.sqrt(np.sum(sigma * sigma)) / block["pdop"][k]
        assert gst.rangeRms == pytest.approx(rms, abs=0.0005 + 1e-9)


# --------------------------------------------------------------------------- configuration
def test_the_sentence_set_is_configurable_and_keeps_the_order():
    rx, truth = receiver(**{"gnss.nmea.sentences": ["ZDA", "GGA", "GSV"]})
    part = truth.slice(0, 1200)
    block = rx.process(part)
    lines = layout_for(rx).extra(block)
    kinds = [k for k, _ in itertools.groupby(x[3:6] for x in lines)]
    assert kinds[:3] == ["GGA", "GSV", "ZDA"] and set(kinds) == {"GGA", "GSV", "ZDA"}
    rx, _ = receiver(**{"gnss.nmea.sentences": ["GGA"]})
    block = rx.process(part)
    rows = rows_from_columns(layout_for(rx).columns(block), len(block["sample_time_s"]))
    assert layout_for(rx).extra(block) == [r["nmea_gga"] for r in rows]  # today's gnss.nmea
    rx, _ = receiver(**{"gnss.nmea.sentences": []})
    assert layout_for(rx).extra(rx.process(part)) == []


def test_systems_that_are_off_send_no_gsa_or_gsv():
    rx, truth = receiver(**{"gnss.constellations.glonass": False})
    lines = layout_for(rx).extra(rx.process(truth.slice(0, 600)))
    talkers = {x[1:6] for x in lines}
    assert "GLGSV" not in talkers and {"GPGSV", "GAGSV"} <= talkers
    epoch = epochs_of(lines)[0]
    assert [parse(x).systemId for x in epoch if x[3:6] == "GSA"] == ["1", "3"]


def test_batch_chunks_and_steps_give_identical_sentences():
    """The first 80 s: the garage without a fix, a drive, the stop at 50 .. 72 s (the course
    frozen across blocks) and the drive on."""
    rx, truth = receiver()
    part = truth.slice(0, 9600)
    want = layout_for(rx).extra(rx.process(part))
    assert sum(x.startswith("$GNRMC") and ",A," in x for x in want) > 400
    stepped, _ = receiver()
    layout = layout_for(stepped)
    got = []
    for k in range(len(part)):
        got += layout.extra(stepped.process(part.slice(k, k + 1)))
    assert orjson.dumps(got) == orjson.dumps(want)
    chunked, _ = receiver()
    layout = layout_for(chunked)
    got = []
    for a, b in itertools.pairwise([0, 7, 1000, 6011, 6012, 8000, 9600]):
        block = chunked.process(part.slice(a, b))
        got += layout.extra(block)
        assert layout.extra(block) == layout.extra(block)  # asked again: the same sentences
    assert orjson.dumps(got) == orjson.dumps(want)


# --------------------------------------------------------------------------- BeiDou and QZSS
ELKO_RINEX = Path(__file__).parents[1] / "data" / "rinex" / "ELKO00USA_R_20182100000_01D_MN.rnx.gz"


def five_system_block():
    """Acre-loop's first 50 s (a fix from 26.5 s) with the satellites of a real RINEX file
    (ELKO, 2018-07-29 12:00 UTC: GPS, Galileo, GLONASS, BeiDou; tests/data/rinex) in place of the
    synthetic constellation's, and four QZSS satellites (J11, which has no NMEA number, J01, J02
    and J07) on the geometry of BeiDou ones (the file has no QZSS); the layout of a receiver
    tracking the five systems."""
    from navsense.sensors.gnss.signal import azimuth_deg
    from navsense.sky.broadcast_sky import BroadcastSky
    from navsense.sky.constellation import elevation_deg
    from navsense.sky.systems import ALL_SYSTEMS

    rx, truth = receiver()
    block = dict(rx.process(truth.slice(0, 6000)))
    t = block["sample_time_s"]
    sky_ = BroadcastSky(ELKO_RINEX, None, "2018-07-29T12:00:00Z", 40.8, -115.7, 1600.0)
    los, visible = sky_.sky(t, 10.0)
    system = sky_.system_index.astype(np.int64)
    number = sky_.prn.astype(np.int64)
    beidou = np.flatnonzero(sky_.system == "beidou")
    qzss_geometry = beidou[np.argsort(~visible[0, beidou], kind="stable")[:4]]  # in view first
    los = np.concatenate([los, los[:, qzss_geometry]], axis=1)
    visible = np.concatenate([visible, visible[:, qzss_geometry]], axis=1)
    system = np.concatenate([system, np.full(4, ALL_SYSTEMS.index("qzss"))])
    number = np.concatenate([number, [11, 1, 2, 7]])  # J11 and J01 in view at the start
    m, n = visible.shape
    el = elevation_deg(los)
    block["sat_system"] = np.broadcast_to(system, (m, n))
    block["sat_prn"] = np.broadcast_to(number, (m, n))
    block["sat_elevation_deg"] = el
    block["sat_azimuth_deg"] = azimuth_deg(los)
    block["sat_class"] = np.where(visible, sky.CLEAR, sky.BELOW_MASK)
    block["sat_used"] = visible & (block["fix"] != 0)[:, None]
    block["sat_cn0_dbhz"] = np.where(visible, 30.0 + el / 5.0, np.nan)
    info = {**rx.output_info(), "systems": list(ALL_SYSTEMS), "systems_on": list(ALL_SYSTEMS)}
    return block, GnssLayout(info)


def test_beidou_and_qzss_under_their_talkers_and_ids():
    """Issue 29: GSA of BeiDou (system ID 4) and QZSS (5) under GN, GSV under GB and GQ with
    signal ID 1 (B1I, L1 C/A), NMEA 4.11 numbers (BeiDou 1..63, QZSS 1..10: J11 left out),
    parsed by pynmeagps; GPS, GLONASS and Galileo as before."""
    from navsense.sky.systems import ALL_SYSTEMS

    block, layout = five_system_block()
    lines = layout.extra(block)
    system, number = block["sat_system"][0], block["sat_prn"][0]
    codes = {"beidou": ("GB", "4"), "qzss": ("GQ", "5")}
    seen = {"beidou": 0, "qzss": 0}
    epochs = epochs_of(lines)
    assert len(epochs) == len(block["sample_time_s"])
    for k, epoch in enumerate(epochs):
        msgs = [parse(x) for x in epoch]
        gsa = [g for g in msgs if g.msgID == "GSA"]
        assert [(g.talker, g.systemId) for g in gsa] == [("GN", str(i)) for i in range(1, 6)]
        gsv_talkers = [g.talker for g in msgs if g.msgID == "GSV"]
        assert [t for t, _ in itertools.groupby(gsv_talkers)] == ["GP", "GL", "GA", "GB", "GQ"]
        for name, (talker, sys_id) in codes.items():
            cols = np.flatnonzero(system == ALL_SYSTEMS.index(name))
            if name == "qzss":
                cols = cols[number[cols] <= 10]
            (g,) = [g for g in gsa if g.systemId == sys_id]
            used = [getattr(g, f"svid_{i:02d}") for i in range(1, 13)]
            want = number[cols][block["sat_used"][k, cols]].tolist()
            assert [p for p in used if p != ""] == want
            view = cols[block["sat_class"][k, cols] == sky.CLEAR]
            gsv = [g for g in msgs if g.msgID == "GSV" and g.talker == talker]
            assert {(g.signalID, g.numSV) for g in gsv} == {("1", view.size)}
            got = []
            for g in gsv:
                f = gsv_fields(g)
                got += [f[4 * i : 4 * i + 4] for i in range(len(f) // 4)]
            assert [x[0] for x in got] == number[view].tolist()
            assert [x[1] for x in got] == np.rint(block["sat_elevation_deg"][k, view]).tolist()
            seen[name] += len(want)
    assert seen["beidou"] > 0 and seen["qzss"] > 0
    assert not any(x.startswith("$GQGSV") and ",11," in x for x in lines)


def test_a_receiver_of_three_systems_is_unchanged_by_the_table():
    """The rows of the systems' table that a receiver does not track send nothing: the
    synthetic constellation's gnss.nmea has no GB or GQ sentence and no GSA system ID 4 or 5."""
    rx, truth = receiver()
    lines = layout_for(rx).extra(rx.process(truth.slice(0, 6000)))
    assert not any(x[1:3] in ("GB", "GQ") for x in lines)
    assert {parse(x).systemId for x in lines if x[3:6] == "GSA"} == {"1", "2", "3"}


# --------------------------------------------------------------------------- below the mask
def test_gsv_below_mask_lists_the_satellites_down_to_the_horizon():
    """Issue 29, gnss.nmea.gsv_below_mask: GSV lists every satellite of a tracked system at or
    above the horizon, those below the mask without C/N0; the ones at or above the mask exactly
    as without the option; GSA, the rows and the other sentences unchanged."""
    part_steps = 6000
    rx, truth = receiver()
    block = rx.process(truth.slice(0, part_steps))
    plain = layout_for(rx).extra(block)
    rx_below, _ = receiver(**{"gnss.nmea.gsv_below_mask": True})
    block_below = rx_below.process(truth.slice(0, part_steps))
    layout = layout_for(rx_below)
    lines = layout.extra(block_below)
    assert [x for x in lines if x[3:6] != "GSV"] == [x for x in plain if x[3:6] != "GSV"]
    m = len(block["sample_time_s"])
    assert orjson.dumps(rows_from_columns(layout.columns(block_below), m)) == orjson.dumps(
        rows_from_columns(layout_for(rx).columns(block), m)
    )
    below_listed = 0
    for k, (epoch, epoch_plain) in enumerate(zip(epochs_of(lines), epochs_of(plain))):
        for talker, (name, _, _, offset) in SYSTEMS.items():
            cols = system_columns(block, name)
            el = block["sat_elevation_deg"][k, cols]
            below = block["sat_class"][k, cols] == sky.BELOW_MASK
            view = ~below | (el >= 0.0)
            gsv = [parse(x) for x in epoch if x.startswith(f"${talker}GSV")]
            assert {g.numSV for g in gsv} == {int(view.sum())}
            got = [f for g in gsv for f in gsv_fields(g)]
            sats = [got[4 * i : 4 * i + 4] for i in range(len(got) // 4)]
            want_prn = (block["sat_prn"][k, cols][view] + offset).tolist()
            assert [s[0] for s in sats] == want_prn
            for s, low in zip(sats, below[view]):
                if low:
                    assert s[3] == "" and 0 <= s[1] <= 90
            above = [s for s, low in zip(sats, below[view]) if not low]
            plain_sats = [
                f
                for x in epoch_plain
                if x.startswith(f"${talker}GSV")
                for f in gsv_fields(parse(x))
            ]
            assert [f for s in above for f in s] == plain_sats
            below_listed += int((below & (el >= 0.0)).sum())
    assert below_listed > 1000  # the satellites between the horizon and the 10 deg mask


def test_gsv_below_mask_is_recorded_only_when_on():
    """The key is in episode.json's configuration only when true (a default run's episode.json
    is that of the runs before the key), and a recorded run without it reads as false."""
    from navsense.config.defaults import complete_recorded_config
    from navsense.runs.episode import recorded_config as _recorded_config

    default = _recorded_config(load_config())
    assert "gsv_below_mask" not in default["gnss"]["nmea"]
    assert default["gnss"]["nmea"]["sentences"] == [s for s in NMEA_SENTENCES if s != "HDT"]
    assert complete_recorded_config(default)["gnss"]["nmea"]["gsv_below_mask"] is False
    on = _recorded_config(load_config(overrides={"gnss.nmea.gsv_below_mask": True}))
    assert on["gnss"]["nmea"]["gsv_below_mask"] is True


def test_gsv_below_mask_must_be_a_boolean():
    from navsense.errors import ConfigError

    with pytest.raises(ConfigError, match=r"gnss\.nmea\.gsv_below_mask"):
        load_config(overrides={"gnss.nmea.gsv_below_mask": "yes"})


# --------------------------------------------------------------------------- edges, batch = steps
def test_edges_the_runs_do_not_reach_print_the_same_in_a_block_and_epoch_by_epoch():
    """A synthetic block where the golden runs don't go: south and west, longitudes of three
    digits, altitudes below zero, minutes at their rounding boundary (59.99999996'), epochs
    without a fix, with no satellite in view and with 14 used of one system (two GSA, four GSV
    sentences), runs of equal satellite rows and rows that all differ, the date rolling over
    at midnight. The block's text (runs of rows, the epochs' matrix, times built once) equals
    its epochs' one by one, and every line parses with its checksum."""
    rng = np.random.default_rng(31)
    m, k = 240, 40
    info = {
        "fix_types": {0: "no_fix", 1: "single", 2: "dgps", 4: "rtk_fixed", 5: "rtk_float"},
        "multipath_tau_s": 8.0,
        "start_utc": "2026-12-31T23:59:50Z",
        "vertical_datum": "navd88",
        "nad83": True,
        "nmea_sentences": list(NMEA_SENTENCES),
        "nmea_gsv_below_mask": False,
        "systems": ["gps", "galileo", "glonass"],
        "systems_on": ["gps", "galileo", "glonass"],
        "sky_classes": ["below_mask", "clear", "near", "foliage", "blocked"],
    }
    t = np.arange(m) * 0.1
    fix = rng.choice([0, 1, 2, 4, 5], m)
    fix[:30] = 4
    lat = rng.choice([-1.0, 1.0], m) * rng.uniform(0, 89.9, m)
    lon = rng.choice([-1.0, 1.0], m) * rng.uniform(99.5, 179.9, m)
    lat[::7] = -(45.0 - 0.4 * MINUTE_UNIT_DEG)  # 44 deg 59.99999996' prints 4500.0000000
    lon[3::7] = 100.0 - 0.4 * MINUTE_UNIT_DEG
    system = np.repeat([0, 1, 2], [16, 12, 12])  # gps, galileo, glonass
    prn = np.concatenate([np.arange(1, 17), np.arange(1, 13), np.arange(1, 13)])
    in_view = np.broadcast_to(rng.random(k) < 0.8, (m, k)).copy()  # a run ...
    in_view[60:] = rng.random((m - 60, k)) < 0.6  # ... then rows that all differ
    in_view[:20, :16] = True  # 16 GPS in view, 14 used
    in_view[100:110] = False  # none in view
    used = in_view & (fix != 0)[:, None]
    used[:20, [3, 9]] = False
    alt = rng.uniform(-80.0, 50.0, m)
    block = {
        "sample_time_s": t,
        "fix": fix.astype(np.int8),
        "latitude_deg": lat,
        "longitude_deg": lon,
        "satellites_used": used.sum(axis=1),
        "hdop": rng.uniform(0.5, 3, m),
        "vdop": rng.uniform(0.5, 3, m),
        "pdop": rng.uniform(1.0, 4, m),
        "orthometric_height_m": alt,
        "ellipsoidal_height_m": alt - 34.0,
        "correction_age_s": np.where(rng.random(m) < 0.3, np.nan, rng.uniform(0, 9, m)),
        "sigma_enu_m": rng.uniform(0.005, 2.0, (m, 3)),
        "speed_mps": rng.uniform(0, 3, m),
        "course_deg": rng.uniform(0, 360, m),
        "heading_deg": np.where(rng.random(m) < 0.1, np.nan, rng.uniform(0, 360, m)),
        "sat_system": np.broadcast_to(system, (m, k)),
        "sat_prn": np.broadcast_to(prn, (m, k)),
        "sat_elevation_deg": rng.uniform(-5, 90, (m, k)),
        "sat_azimuth_deg": rng.uniform(0, 360, (m, k)),
        "sat_class": np.where(in_view, sky.CLEAR, sky.BELOW_MASK),
        "sat_used": used,
        "sat_cn0_dbhz": np.where(rng.random((m, k)) < 0.2, np.nan, rng.uniform(20, 55, (m, k))),
    }
    whole = GnssLayout(info).nmea_text(block)
    layout = GnssLayout(info)
    steps = b"".join(
        layout.nmea_text({key: v[i : i + 1] for key, v in block.items()}) for i in range(m)
    )
    assert whole == steps
    lines = whole.decode("ascii").split("\r\n")[:-1]
    for line in lines:
        parse(line)
    assert "$GNZDA,235959.90,31,12,2026,00,00" in whole.decode()
    assert "$GNZDA,000000.00,01,01,2027,00,00" in whole.decode()
    assert ",4500.0000000,S," in whole.decode() and ",10000.0000000,E," in whole.decode()
    assert any(x.startswith("$GPGSV,4,4,16,") for x in lines)
    assert any(x.startswith("$GPGSV,1,1,00,1*") for x in lines)
    gsa_gps = [x for x in lines[: len(lines) // 8] if x.startswith("$GNGSA") and x[-4] == "1"]
    assert any(x.count(",") == 18 and ",,,,,,,,,," in x for x in gsa_gps)  # the 13th and 14th
    assert ",-" in whole.decode() and ",S," in whole.decode() and ",W," in whole.decode()
