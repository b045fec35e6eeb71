"""Heading from two antennas, gnss.heading (issue 29 item 4; navsense.sensors.gnss.heading).

External truths: the cited accuracy (0.4 deg at a 1 m baseline in RTK fixed, 1 / baseline), the
geometry of the baseline computed here independently from the vehicle's yaw (ENU yaw counter-
clockwise from east, heading clockwise from north: heading = 90 deg - yaw), pynmeagps for HDT.
Invariants: the normalised error's RMS is 1 within its statistical bounds over seeds, no heading
outside RTK fixed, batch = chunks = steps, no other stream moves, defaults unchanged.
"""

import math

import numpy as np
import pytest
from pynmeagps import NMEAReader

from conftest import circle_truth, layout_rows, stationary_truth
from navsense.config import load_config
from navsense.config.typed.gnss import GnssConfig
from navsense.errors import ConfigError
from navsense.output.layouts import layout_for
from navsense.runs.episode import recorded_config as _recorded_config
from navsense.scenarios import load_scenario
from navsense.sensors.gnss.heading import HEADING_KEYS
from navsense.sensors.gnss.receiver import GnssReceiver
from navsense.truth.states import TruthStates
from navsense.vehicles import VEHICLES

SEEDS = range(1, 9)
CITED_SIGMA_DEG_AT_1M = 0.4  # u-blox ZED-F9H moving base, RTK fixed, 1 m baseline


def _receiver(georef=None, site=None, vehicle="maxxum", **overrides) -> GnssReceiver:
    cfg = load_config(vehicle=vehicle, overrides=overrides)
    return GnssReceiver(GnssConfig.from_validated(cfg), VEHICLES[vehicle], site, georef)


def _parked(n: int, yaw_rad: float = 0.3) -> TruthStates:
    """A parked vehicle, one physics step a second (a 1 Hz receiver has an epoch a step)."""
    s = stationary_truth(n, yaw_rad=yaw_rad)
    return TruthStates(
        step0=0, p_m=s.p_m, q_xyzw=s.q_xyzw, v_mps=s.v_mps, w_radps=s.w_radps, c_m=s.c_m,
        reset=s.reset, rate_hz=1.0,
    )  # fmt: skip


def _wrap180(x):
    return (np.asarray(x) + 180.0) % 360.0 - 180.0


def test_off_by_default_no_key_no_sentence_no_record():
    rx = _receiver()
    block = rx.process(circle_truth(240))
    assert not set(HEADING_KEYS) & set(block)
    assert "heading" not in rx.output_info()
    rows = layout_rows(rx, block)
    assert not {k for k in rows[0] if "heading" in k or "pitch" in k}
    recorded = _recorded_config(load_config())
    assert "heading" not in recorded["gnss"]
    on = _recorded_config(load_config(overrides={"gnss.heading.baseline_m": 1.2}))
    assert on["gnss"]["heading"]["baseline_m"] == 1.2


@pytest.mark.parametrize(
    "antenna2, offset_deg, pitch_deg",
    [
        (None, 0.0, 0.0),  # baseline_m straight ahead: the vehicle's heading
        ([0.0, 1.0, 1.7], -90.0, 0.0),  # 1 m to the left of the first antenna: heading - 90
        ([0.0, -1.0, 1.7], 90.0, 0.0),  # to the right: heading + 90
        ([-0.8, 0.0, 2.3], 180.0, math.degrees(math.atan2(0.6, 0.8))),  # behind, 0.6 m higher
    ],
)
def test_noise_off_reports_the_baselines_true_heading_and_pitch(antenna2, offset_deg, pitch_deg):
    """Driving a counter-clockwise circle (yaw = angle + 90 deg, ENU): the vehicle's heading
    is 90 deg - yaw; the baseline's is that plus its mounting azimuth (clockwise from the
    vehicle's forward axis); maxxum's first antenna is at (0, 0, 1.7) m, chassis."""
    overrides = {"noise": False, "gnss.heading.baseline_m": 1.0}
    if antenna2 is not None:
        overrides["gnss.heading.antenna2_flu_m"] = antenna2
    rx = _receiver(**overrides)
    truth = circle_truth(1200)
    block = rx.process(truth)
    fixed = block["fix"] == 4
    assert fixed.all()
    k = np.rint(block["sample_time_s"] * truth.rate_hz).astype(int)
    yaw_deg = np.degrees((5.0 / 25.0) * truth.t_s[k] + np.pi / 2)
    expected = (90.0 - yaw_deg + offset_deg) % 360.0
    assert np.abs(_wrap180(block["heading_deg"] - expected)).max() < 1e-9
    np.testing.assert_allclose(block["pitch_deg"], pitch_deg, atol=1e-9)
    assert (block["heading_sigma_deg"] == 0).all() and (block["pitch_sigma_deg"] == 0).all()


@pytest.mark.parametrize("baseline_m", [0.5, 1.0, 2.5])
def test_heading_error_over_sigma_is_honest_over_seeds(baseline_m):
    """Eight 1800-epoch runs of a parked vehicle in RTK fixed: the reported sigma is the cited
    0.4 deg / L (pitch twice that), and the error over the sigma has an RMS of 1 within 4 of its
    standard errors (1 / sqrt(2 n)) in each run and a mean of 0 within 4 / sqrt(N)."""
    z_psi, z_theta = [], []
    for seed in SEEDS:
        rx = _receiver(**{"seed": seed, "gnss.hz": 1, "gnss.heading.baseline_m": baseline_m})
        b = rx.process(_parked(1800))
        assert (b["fix"] == 4).all()
        np.testing.assert_allclose(b["heading_sigma_deg"], CITED_SIGMA_DEG_AT_1M / baseline_m)
        np.testing.assert_allclose(b["pitch_sigma_deg"], 2 * CITED_SIGMA_DEG_AT_1M / baseline_m)
        zp = _wrap180(b["heading_deg"] - b["heading_truth_deg"]) / b["heading_sigma_deg"]
        zt = (b["pitch_deg"] - b["pitch_truth_deg"]) / b["pitch_sigma_deg"]
        for z in (zp, zt):
            assert abs(math.sqrt(np.mean(z * z)) - 1.0) < 4.0 / math.sqrt(2 * z.size)
        z_psi.append(zp)
        z_theta.append(zt)
    for z in (np.concatenate(z_psi), np.concatenate(z_theta)):
        assert abs(z.mean()) < 4.0 / math.sqrt(z.size)


def test_no_heading_outside_rtk_fixed_and_float_when_asked():
    """A cold start (no_fix, RTK float, RTK fixed) and a 120 s outage of the corrections (dgps,
    then single): a heading only in RTK fixed; with gnss.heading.rtk_float also in float, its sigma 12.5 times the
    fixed one (the specification's rtk_float / rtk_fixed sigma_h_m, 0.10 / 0.008)."""
    base = {
        "gnss.start": "cold",
        "gnss.hz": 1,
        "gnss.heading.baseline_m": 1.0,
        "seed": 7,
        "gnss.corrections.outages_s": [[300, 420]],
    }
    for rtk_float in (False, True):
        rx = _receiver(**base, **{"gnss.heading.rtk_float": rtk_float})
        b = rx.process(_parked(600))
        fix = b["fix"]
        assert {0, 1, 2, 5, 4} <= set(fix.tolist())
        with_heading = ~np.isnan(b["heading_deg"])
        allowed = (fix == 4) | ((fix == 5) & rtk_float)
        assert (with_heading == allowed).all()
        assert (np.isnan(b["heading_sigma_deg"]) == ~allowed).all()
        assert (np.isnan(b["pitch_deg"]) == ~allowed).all()
        np.testing.assert_allclose(b["heading_sigma_deg"][fix == 4], 0.4)
        if rtk_float:
            np.testing.assert_allclose(b["heading_sigma_deg"][fix == 5], 0.4 * 0.10 / 0.008)
        rows = layout_rows(rx, b)
        assert [r["heading_deg"] is None for r in rows] == (~allowed).tolist()


def test_batch_chunks_steps_and_no_other_stream_moves():
    over = {"gnss.heading.baseline_m": 1.3, "gnss.heading.antenna2_flu_m": [0.5, 1.2, 1.7]}
    truth = circle_truth(900)
    whole = _receiver(**over).process(truth)
    for size in (1, 37):
        rx = _receiver(**over)
        parts = [rx.process(truth.slice(i, min(i + size, 900))) for i in range(0, 900, size)]
        for key in (*HEADING_KEYS, "position_enu_m", "fix"):
            got = np.concatenate([p[key] for p in parts])
            assert np.array_equal(got, whole[key], equal_nan=True), (size, key)
    off = _receiver().process(truth)
    for key, value in off.items():
        assert np.array_equal(value, whole[key], equal_nan=True), key


def test_hdt_first_in_each_epoch_parsed_by_pynmeagps():
    """acre-loop's garage (no fix) and open sky: HDT leads each epoch, pynmeagps reads the
    row's heading (2 decimals) and an empty heading where the row has none."""
    sc = load_scenario("acre-loop", duration_s=120.0)
    cfg = load_config(vehicle=sc.vehicle.name, overrides={"gnss.heading.baseline_m": 1.0})
    georef = sc.site.make_georeference(cfg["gnss"]["datum"]["start_utc"], cfg["gnss"]["datum"])
    rx = GnssReceiver(GnssConfig.from_validated(cfg), sc.vehicle, sc.site, georef)
    block = rx.process(sc.truth)
    layout = layout_for(rx)
    rows = layout_rows(rx, block)
    lines = layout.extra(block)
    hdt = [line for line in lines if line[3:6] == "HDT"]
    assert len(hdt) == len(rows)
    starts = [i for i, line in enumerate(lines) if line[3:6] == "HDT"]
    assert all(lines[i + 1].startswith("$GNRMC") for i in starts)
    assert {r["heading_deg"] is None for r in rows} == {True, False}
    for line, row in zip(hdt, rows, strict=True):
        msg = NMEAReader.parse(line, validate=1)
        assert msg.talker == "GN" and msg.headingTu == "T"
        if row["heading_deg"] is None:
            assert msg.headingT == ""
        else:
            assert abs(_wrap180(msg.headingT - row["heading_deg"])) <= 0.005 + 1e-9


def test_hdt_joins_the_default_sentences_only():
    on = {"gnss.heading.baseline_m": 1.0}
    assert GnssConfig.from_validated(load_config(overrides=on)).nmea_sentences_written[0] == "HDT"
    chosen = {**on, "gnss.nmea.sentences": ["GGA"]}
    assert GnssConfig.from_validated(load_config(overrides=chosen)).nmea_sentences_written == (
        "GGA",
    )
    listed = {**on, "gnss.nmea.sentences": ["GGA", "HDT"]}
    assert "HDT" in GnssConfig.from_validated(load_config(overrides=listed)).nmea_sentences_written
    assert "HDT" not in GnssConfig.from_validated(load_config()).nmea_sentences_written


@pytest.mark.parametrize(
    "overrides, message",
    [
        (
            {"gnss.nmea.sentences": ["GGA", "HDT"]},
            'command line: gnss.nmea.sentences = ["GGA", "HDT"] lists HDT, a heading from two '
            "antennas: set gnss.heading.baseline_m > 0, or leave HDT out",
        ),
        (
            {"gnss.heading.baseline_m": 1, "gnss.heading.antenna2_flu_m": [1, 0, 1.7]},
            None,  # accepted: 1 m ahead of the first antenna
        ),
        (
            {"gnss.heading.baseline_m": 1, "gnss.heading.antenna2_flu_m": [0, 0, 3]},
            "command line: gnss.heading.antenna2_flu_m = [0, 0, 3] is 1.300 m from "
            "gnss.antenna_flu_m [0, 0, 1.7], not gnss.heading.baseline_m = 1 m (within 0.02 m)",
        ),
        (
            {"gnss.heading.baseline_m": 1, "gnss.heading.antenna2_flu_m": [0.05, 0, 2.7]},
            "command line: gnss.heading.antenna2_flu_m = [0.05, 0, 2.7] is straight above or "
            "below gnss.antenna_flu_m: the baseline's horizontal length must be at least a "
            "tenth of its length to give a heading",
        ),
        (
            {"gnss.heading.baseline_m": -1},
            "command line: gnss.heading.baseline_m = -1 is out of range 0..100",
        ),
        # a baseline of 1e-300 m vanished in the lever arm (x + L = x): no heading in any RTK
        # fixed row (null) and no word; the antennas on each other within the 0.02 m tolerance
        # of a 0.01 m baseline did the same
        (
            {"gnss.heading.baseline_m": 1e-300},
            "command line: gnss.heading.baseline_m = 1e-300 is not 0 (one antenna, no heading) or "
            "0.01 .. 100 m: a shorter baseline is below an RTK fixed baseline's precision (7 mm)",
        ),
        (
            {"gnss.heading.baseline_m": 0.01, "gnss.heading.antenna2_flu_m": [0, 0, 1.7]},
            "command line: gnss.heading.antenna2_flu_m = [0, 0, 1.7] is 0 m from "
            "gnss.antenna_flu_m [0, 0, 1.7]: the two antennas must be at least 0.01 m apart to "
            "give a heading",
        ),
        ({"gnss.heading.baseline_m": 0.01}, None),
    ],
)
def test_bad_heading_settings_are_one_line(overrides, message):
    if message is None:
        load_config(vehicle="maxxum", overrides=overrides)
        return
    with pytest.raises(ConfigError) as err:
        load_config(vehicle="maxxum", overrides=overrides)
    assert str(err.value) == message


def test_layers_are_checked_together_once(tmp_path):
    """The second antenna, the first antenna and HDT may come from different layers: the
    checks run once, on the effective configuration, and name the layer that set the key. A
    file giving the second antenna 1 m ahead of the Polaris overlay's antenna (1.1, 0, 2.15)
    passes though the defaults' antenna is elsewhere; a file listing HDT passes with the
    heading turned on by an option."""
    ahead = tmp_path / "ahead.json"
    ahead.write_text('{"gnss": {"heading": {"baseline_m": 1, "antenna2_flu_m": [2.1, 0, 2.15]}}}')
    cfg = load_config(config_path=ahead)
    assert cfg["gnss"]["heading"]["antenna2_flu_m"] == [2.1, 0, 2.15]
    with pytest.raises(ConfigError, match=r"^.*ahead\.json: gnss\.heading\.antenna2_flu_m = "):
        load_config(config_path=ahead, vehicle="maxxum")
    hdt = tmp_path / "hdt.json"
    hdt.write_text('{"gnss": {"nmea": {"sentences": ["HDT", "GGA"]}}}')
    on = load_config(config_path=hdt, overrides={"gnss.heading.baseline_m": 1})
    assert on["gnss"]["nmea"]["sentences"] == ["HDT", "GGA"]
    with pytest.raises(ConfigError, match=r"^.*hdt\.json: gnss\.nmea\.sentences = "):
        load_config(config_path=hdt)
