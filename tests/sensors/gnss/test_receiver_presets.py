"""Receiver grades, gnss.receiver (issue 29, item 2): the specification's receiver with a
datasheet's figures and the fix states a grade can reach.

External truths: the figures cited in navsense.config.receiver_presets (u-blox NEO-M8N and
ZED-F9P data sheets, NovAtel OEM7 manual, Robustelli et al. 2019 for a phone), converted with
the Gaussian relations CEP = 1.1774 sigma, DRMS = sqrt(2) sigma. Each run is 1800 s at 1 Hz on a
parked vehicle in open sky, eight seeds: the correlated term's tau (60 to 300 s) leaves about
100 independent values per axis, so a right model lands within 20 % of the figure.
"""

from pathlib import Path

import numpy as np
import pytest

from conftest import layout_rows, stationary_truth
from navsense.config import load_config
from navsense.config.defaults import complete_recorded_config
from navsense.config.receiver_presets import CEP_PER_SIGMA, PRESETS, RECEIVERS, preset_values
from navsense.config.typed.gnss import GnssConfig
from navsense.errors import ConfigError
from navsense.sensors.gnss.receiver import GnssReceiver
from navsense.truth.states import TruthStates
from navsense.vehicles import VEHICLES

SEEDS = range(1, 9)
BASELINE_KM = 5.0  # the specification's gnss.corrections.baseline_km


def _truth(n: int) -> TruthStates:
    """A parked vehicle, one physics step a second (so a 1 Hz receiver has an epoch a step)."""
    s = stationary_truth(n)
    return TruthStates(
        step0=0, p_m=s.p_m, q_xyzw=s.q_xyzw, v_mps=s.v_mps, w_radps=s.w_radps, c_m=s.c_m,
        reset=s.reset, rate_hz=1.0,
    )  # fmt: skip


def _run(receiver: str, seed: int, n: int = 1800, **overrides) -> tuple[GnssReceiver, dict]:
    cfg = load_config(
        vehicle="maxxum",
        overrides={"gnss.hz": 1, "seed": seed, "gnss.receiver": receiver, **overrides},
    )
    rx = GnssReceiver(GnssConfig.from_validated(cfg), VEHICLES["maxxum"], None, None)
    return rx, rx.process(_truth(n))


# the state a preset holds in open sky with corrections, and its cited sigma per axis (m)
OPEN_SKY = {
    "phone": ("single", PRESETS["phone"]["figures"]["single"]),
    "standalone": ("single", 2.5 / CEP_PER_SIGMA),  # NEO-M8N: 2.5 m CEP
    "sbas": ("dgps", 2.0 / CEP_PER_SIGMA),  # NEO-M8N: SBAS 2.0 m CEP
    "dgps": ("dgps", 0.4 / np.sqrt(2.0)),  # OEM7: DGPS 0.4 m RMS
    # ZED-F9P: RTK 0.01 m + 1 ppm CEP at the 5 km baseline
    "rtk": ("rtk_fixed", (0.01 + 1e-6 * BASELINE_KM * 1e3) / CEP_PER_SIGMA),
    "survey": ("rtk_fixed", (0.01 + 1e-6 * BASELINE_KM * 1e3) / np.sqrt(2.0)),  # OEM7 RMS
}


@pytest.mark.parametrize("receiver", list(OPEN_SKY))
def test_open_sky_horizontal_error_is_the_cited_figure(receiver):
    state, sigma = OPEN_SKY[receiver]
    errors = []
    for seed in SEEDS:
        rx, block = _run(receiver, seed)
        assert set(block["fix"].tolist()) == {_code(state)}
        errors.append(block["error_enu_m"][:, :2])
    e = np.concatenate(errors)
    rms = float(np.sqrt(np.mean(e**2)))  # per axis
    cep = float(np.median(np.hypot(e[:, 0], e[:, 1])))
    assert rms == pytest.approx(sigma, rel=0.2), (receiver, rms, sigma)
    assert cep == pytest.approx(CEP_PER_SIGMA * sigma, rel=0.2), (receiver, cep)


@pytest.mark.parametrize("receiver", ["phone", "sbas", "rtk"])
def test_reported_sigma_is_the_model_sigma_of_the_figure(receiver):
    """The reported sigma (the row's) is the cited figure's (ppm and all) in open sky."""
    state, sigma = OPEN_SKY[receiver]
    _, block = _run(receiver, 1, n=60)
    if state == "rtk_fixed":  # the ppm term adds to the correlated part only (spec. "Error Model")
        s = PRESETS[receiver]["keys"]
        corr = s["gnss.states.rtk_fixed.sigma_h_m"] + 1e-3 * s["gnss.corrections.ppm_h"] * 5.0
        sigma = float(np.hypot(corr, s["gnss.states.rtk_fixed.white_h_m"]))
    np.testing.assert_allclose(block["sigma_enu_m"][:, 0], sigma, rtol=1e-3)


# corrections cut for 200 s (beyond dgps_max_age_s, 60 s) and every satellite lost for 5 s
EVENTS = {
    "gnss.corrections.outages_s": [[300.0, 500.0]],
    "gnss.signal_outages_s": [[700.0, 705.0]],
}
REACH = {
    "phone": {"no_fix", "single"},
    "standalone": {"no_fix", "single"},
    "sbas": {"no_fix", "single", "dgps"},
    "dgps": {"no_fix", "single", "dgps"},
    "rtk": {"no_fix", "single", "dgps", "rtk_float", "rtk_fixed"},
    "survey": {"no_fix", "single", "dgps", "rtk_float", "rtk_fixed"},
    "acres": {"no_fix", "single", "dgps", "rtk_float", "rtk_fixed"},
}


@pytest.mark.parametrize("receiver", list(REACH))
def test_fix_states_a_grade_can_reach(receiver):
    rx, block = _run(receiver, 3, n=1000, **EVENTS)
    rows = layout_rows(rx, block)
    assert {r["fix_type"] for r in rows} == REACH[receiver]
    quality = {"no_fix": 0, "single": 1, "dgps": 2, "rtk_fixed": 4, "rtk_float": 5}
    assert all(r["gga_quality"] == quality[r["fix_type"]] for r in rows)
    ages = [r["correction_age_s"] for r in rows if r["fix_type"] != "no_fix"]
    if PRESETS.get(receiver, {}).get("corrections", True):
        assert any(a is not None for a in ages)
    else:  # a phone or a standalone module has no correction stream
        assert all(a is None for a in ages)


def test_rtk_converges_within_10_s_as_the_f9p_datasheet_says():
    """ZED-F9P: convergence time RTK < 10 s. Nine 30 s correction outages a run end the lock
    nine times; the time to fix drawn when it starts again (the row's rtk_time_to_fix_s), over
    ten seeds: at least 85 % under 10 s (the preset's median of 5 s with the specification's
    log-sigma 0.5 gives 92 %), where the specification's receiver (median 10 s) has half."""
    outages = [[100.0 * k, 100.0 * k + 30.0] for k in range(1, 10)]
    share = {}
    for receiver in ("rtk", "acres"):
        draws = []
        for seed in range(10):
            _, b = _run(receiver, seed, n=1000, **{"gnss.corrections.outages_s": outages})
            rtk = b["fix"] >= 4
            starts = rtk & ~np.concatenate([[True], rtk[:-1]])  # the first RTK epoch of a lock
            draws.extend(b["rtk_time_to_fix_s"][starts].tolist())
        assert len(draws) == 90
        share[receiver] = float(np.mean(np.array(draws) < 10.0))
    assert share["rtk"] >= 0.85, share
    assert 0.35 <= share["acres"] <= 0.65, share


def test_no_corrections_is_single_at_best_with_no_age():
    rx, block = _run("rtk", 2, n=300, **{"gnss.corrections.enabled": False})
    assert set(block["fix"].tolist()) == {1}
    assert np.isnan(block["correction_age_s"]).all()
    # and the specification's receiver alike
    _, block = _run("acres", 2, n=300, **{"gnss.corrections.enabled": False})
    assert set(block["fix"].tolist()) == {1}


def test_a_key_the_user_set_wins_over_the_preset():
    cfg = load_config(
        vehicle="maxxum",
        overrides={"gnss.receiver": "standalone", "gnss.states.single.sigma_h_m": 4.0},
    )
    typed = GnssConfig.from_validated(cfg)
    assert typed.errors.single.sigma_h_m == 4.0
    values = preset_values("standalone")
    assert typed.errors.single.white_h_m == values["gnss.states.single.white_h_m"]
    assert typed.fix.cold_ttff_s == 26.0 and typed.fix.reach == "single"
    assert typed.corrections.enabled is False


def test_acres_is_the_configuration_unchanged():
    cfg = load_config(vehicle="maxxum")
    assert cfg["gnss"]["receiver"] == "acres" and RECEIVERS[0] == "acres"
    typed = GnssConfig.from_validated(cfg)
    assert typed.fix.reach == "rtk" and typed.corrections.enabled is True
    assert typed.errors.single.sigma_h_m == cfg["gnss"]["states"]["single"]["sigma_h_m"]


def test_an_unknown_receiver_is_one_line_naming_the_key():
    with pytest.raises(ConfigError, match=r'gnss\.receiver = "f9p" is not one of acres, phone'):
        load_config(overrides={"gnss.receiver": "f9p"})


def rx_config(receiver: str) -> GnssConfig:
    """The typed configuration of a default run (Polaris) with ``receiver``."""
    return GnssConfig.from_validated(load_config(overrides={"gnss.receiver": receiver}))


def _code(state: str) -> int:
    return {"no_fix": 0, "single": 1, "dgps": 2, "rtk_fixed": 4, "rtk_float": 5}[state]


@pytest.mark.parametrize("receiver, quality", [("phone", 1), ("sbas", 2)])
def test_a_run_with_receiver_records_it_and_its_nmea_follows(tmp_path, receiver, quality):
    """navsense simulate --receiver NAME: episode.json records gnss.receiver, the rows and the
    GGA sentences (read by pynmeagps, a real parser) carry the preset's fix state."""
    import orjson
    from pynmeagps import NMEAReader

    from navsense.cli import main

    track = Path(__file__).resolve().parents[2] / "reference" / "track_paris_loop.gpx"
    out = tmp_path / receiver
    argv = ["simulate", "--track", str(track), "--receiver", receiver, "--no-ins", "--no-imu"]
    assert main([*argv, "--out", str(out), "--quiet"]) == 0
    episode = orjson.loads((out / "episode.json").read_bytes())
    assert episode["config"]["gnss"]["receiver"] == receiver
    rows = [orjson.loads(line) for line in (out / "gnss.jsonl").read_bytes().splitlines()]
    assert {r["gga_quality"] for r in rows} == {quality}
    gnss = episode["config"]["gnss"]
    for key, value in preset_values(receiver).items():  # the values the run used
        node = episode["config"]
        for part in key.split("."):
            node = node[part]
        assert node == value, key
    read_back = GnssConfig.from_validated(complete_recorded_config(episode["config"]))
    expected = rx_config(receiver)
    assert (read_back.fix, read_back.errors) == (expected.fix, expected.errors)
    assert read_back.corrections.enabled == expected.corrections.enabled
    if receiver == "phone":
        assert gnss["corrections"]["enabled"] is False
        assert all(r["correction_age_s"] is None for r in rows)  # no correction stream
    gga = [
        NMEAReader.parse(line)
        for line in (out / "gnss.nmea").read_text().splitlines()
        if line[3:6] == "GGA"
    ]
    assert len(gga) == len(rows) and {m.quality for m in gga} == {quality}
    if receiver == "phone":  # the report names the preset and its source
        pytest.importorskip("matplotlib")
        assert main(["report", str(out)]) == 0
        html = (out / "report" / "report.html").read_text()
        assert "<dt>GNSS receiver</dt><dd>phone (Robustelli et al. 2019" in html


def test_the_default_run_records_no_receiver_key(tmp_path):
    """gnss.receiver acres and gnss.corrections.enabled true are left out of episode.json (its
    bytes stay those of the runs before the keys existed)."""
    import orjson

    from navsense.cli import main

    track = Path(__file__).resolve().parents[2] / "reference" / "track_paris_loop.gpx"
    out = tmp_path / "acres"
    argv = ["simulate", "--track", str(track), "--no-ins", "--no-imu", "--out", str(out)]
    assert main([*argv, "--quiet"]) == 0
    gnss = orjson.loads((out / "episode.json").read_bytes())["config"]["gnss"]
    assert "receiver" not in gnss and "enabled" not in gnss["corrections"]
    out2 = tmp_path / "off"
    assert main([*argv[:-1], str(out2), "--no-corrections", "--quiet"]) == 0
    gnss = orjson.loads((out2 / "episode.json").read_bytes())["config"]["gnss"]
    assert gnss["corrections"]["enabled"] is False


def test_config_show_gives_the_presets_values_and_explain_names_it(capsys):
    import json

    from navsense.cli import main

    assert main(["config", "show", "--receiver", "rtk"]) == 0
    cfg = json.loads(capsys.readouterr().out)
    assert cfg["gnss"]["rtk"]["ttf_median_s"] == 5.0
    assert cfg["gnss"]["states"]["rtk_fixed"]["sigma_h_m"] == pytest.approx(0.00795)
    assert main(["config", "show", "--explain", "--receiver", "rtk", "--gnss-hz", "5"]) == 0
    lines = capsys.readouterr().out.splitlines()
    (ttf,) = [line for line in lines if line.startswith("gnss.rtk.ttf_median_s")]
    assert ttf.split("=")[1].split("#")[0].strip() == "5.0"
    assert "# receiver preset rtk (u-blox ZED-F9P data sheet" in ttf
    (hz,) = [line for line in lines if line.startswith("gnss.hz ")]
    assert "option --gnss-hz" in hz


@pytest.mark.parametrize(
    "receiver, ttff_s",
    [("standalone", 26.0), ("sbas", 26.0), ("rtk", 25.0), ("phone", 20.0), ("acres", 20.0)],
)
def test_cold_start_time_to_first_fix_is_the_datasheets(receiver, ttff_s):
    """gnss.start cold: no fix before the preset's time to first fix (NEO-M8N 26 s, ZED-F9P
    25 s; a phone keeps the specification's 20 s), a fix from its first epoch on."""
    _, block = _run(receiver, 4, n=40, **{"gnss.start": "cold"})
    t, fix = block["sample_time_s"], block["fix"]
    assert t[fix > 0][0] == ttff_s
    assert (fix[t < ttff_s] == 0).all() and (fix[t >= ttff_s] > 0).all()
