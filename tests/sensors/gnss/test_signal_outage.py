"""gnss.signal_outages_s (issue 19, section 2): every satellite lost in a window, in open sky.

External truths: the fix-state machine's rules (specification "Fix State Machine": N_u < 4 is
no fix and ends the RTK lock; a lock starts at the first RTK epoch with c = 0 and is fixed once
c >= T_fix, T_fix = T_med exp(sigma_T g_t) (1 + G_m m) r with r = r_q within T_q of the loss),
the cold start's time to first fix, and the fixed number of draws per epoch.
"""

import argparse

import numpy as np
import pytest

from conftest import open_sky_circle
from navsense.commands import config as cli_config
from navsense.config import load_config
from navsense.config.typed.gnss import GnssConfig
from navsense.errors import ConfigError
from navsense.rng import Pcg32
from navsense.sensors.gnss.error_model import draw_epochs
from navsense.sensors.gnss.fixstate import NO_FIX, RTK_FIXED, RTK_FLOAT, time_to_fix_s
from navsense.sensors.gnss.receiver import GNSS_SEQUENCE, GnssReceiver
from navsense.vehicles import vehicle_profile

SEED = 11
STEPS = 120 * 60  # 60 s at 120 Hz, epochs at 10 Hz
T1, T2 = 20.0, 26.0  # 6 s: within the reacquire window (10 s), so r = r_q


def _run(**overrides):
    cfg = load_config(vehicle="polaris", overrides={"seed": SEED, **overrides})
    rx = GnssReceiver(GnssConfig.from_validated(cfg), vehicle_profile("polaris"), None, None)
    return rx, rx.process(open_sky_circle(STEPS))


def _same(a, b):
    return np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True)


@pytest.fixture(scope="module")
def runs():
    base = _run()
    lost = _run(**{"gnss.signal_outages_s": [[T1, T2]]})
    return base, lost


def _first_fixed_after(block, k0):
    fixed = np.flatnonzero(block["fix"][k0:] == RTK_FIXED)
    return k0 + int(fixed[0])


def test_no_fix_and_no_satellite_inside_the_window(runs):
    (_, base), (_, b) = runs
    t = b["sample_time_s"]
    inside = (t >= T1) & (t < T2)
    assert inside.sum() == 60  # 6 s at 10 Hz
    assert np.all(base["fix"][inside] == RTK_FIXED)  # open sky: fixed without the outage
    assert np.all(b["fix"][inside] == NO_FIX)
    for key in ("satellites_used", "satellites_clear", "satellites_near_obstruction"):
        assert np.all(b[key][inside] == 0), key
    assert np.all(b["satellites_foliage"][inside] == 0)
    # lost satellites count as blocked; the sky above the mask is the same
    assert np.array_equal(b["satellites_above_mask"], base["satellites_above_mask"])
    assert np.array_equal(b["satellites_blocked"][inside], b["satellites_above_mask"][inside])
    assert np.all(b["satellites_above_mask"][inside] >= 4)
    # the RTK lock is lost: no lock age, no convergence, no time to fix
    for key in ("rtk_lock_age_s", "rtk_converge_s", "rtk_time_to_fix_s"):
        assert np.all(np.isnan(b[key][inside])), key
    assert np.all(np.isnan(b["hdop"][inside]) | (b["satellites_used"][inside] == 0))
    # the open-sky DOP of the satellites above the mask is the sky's, not the receiver's
    assert _same(b["hdop_open_sky"], base["hdop_open_sky"])


def test_epochs_before_the_window_are_unchanged(runs):
    (_, base), (_, b) = runs
    before = b["sample_time_s"] < T1
    for key, value in base.items():
        assert _same(np.asarray(b[key])[before], np.asarray(value)[before]), key


def test_reacquisition_follows_the_fix_machine(runs):
    (_, base), (rx, b) = runs
    t = b["sample_time_s"]
    k0 = int(np.searchsorted(t, T2 - 1e-9))  # the first epoch after the window
    assert t[k0] == pytest.approx(T2)
    assert b["satellites_used"][k0] == base["satellites_used"][k0] >= 4
    # no second time to first fix: the position fix returns at once, as after the garage
    assert b["fix"][k0] == RTK_FLOAT
    assert b["rtk_lock_age_s"][k0] == 0.0  # a new lock starts here
    # T_fix of the new lock: the machine's formula with the epoch's g_t, and r = r_q because the
    # lock comes back within reacquire_window_s of the loss at T1
    fix_cfg = rx.config.fix
    assert fix_cfg.reacquire_window_s >= T2 - T1
    g_t = draw_epochs(Pcg32(SEED, GNSS_SEQUENCE), len(t)).g_t
    expected = time_to_fix_s(fix_cfg, g_t[k0], b["multipath_index"][k0], T2 - T1)
    assert b["rtk_time_to_fix_s"][k0] == pytest.approx(float(expected), rel=1e-12)
    plain = time_to_fix_s(fix_cfg, g_t[k0], b["multipath_index"][k0], np.inf)
    assert float(expected) == pytest.approx(fix_cfg.reacquire_factor * float(plain))
    # float until the convergence c (dt per capable epoch) reaches T_fix, then fixed
    k1 = _first_fixed_after(b, k0)
    assert np.all(b["fix"][k0:k1] == RTK_FLOAT)
    assert b["rtk_converge_s"][k1] >= b["rtk_time_to_fix_s"][k1]
    assert b["rtk_converge_s"][k1 - 1] < b["rtk_time_to_fix_s"][k1 - 1]
    assert t[k1] - t[k0] == pytest.approx(np.ceil(expected / 0.1 - 1e-9) * 0.1 - 0.1, abs=1e-6)


def test_reacquisition_is_faster_than_a_cold_start(runs):
    (_, _), (_, b) = runs
    _, cold = _run(**{"gnss.start": "cold"})
    tc = cold["sample_time_s"]
    cfg = load_config()
    cold_ttff = cfg["gnss"]["cold_ttff_s"]
    first_cold = int(np.flatnonzero(cold["fix"] != NO_FIX)[0])
    assert tc[first_cold] == pytest.approx(cold_ttff)  # no fix before the cold TTFF
    t = b["sample_time_s"]
    k0 = int(np.searchsorted(t, T2 - 1e-9))
    first_back = k0 + int(np.flatnonzero(b["fix"][k0:] != NO_FIX)[0])
    assert t[first_back] - T2 == pytest.approx(0.0)  # the signals return: a fix at once
    # the RTK fix: the cold start's lock needs its full T_fix, the reacquired one r_q of it
    cold_fixed = _first_fixed_after(cold, first_cold)
    back_fixed = _first_fixed_after(b, k0)
    assert cold["rtk_time_to_fix_s"][cold_fixed] > 0
    assert t[back_fixed] - T2 < tc[cold_fixed]  # from the window's end vs from t = 0


def test_a_long_outage_has_no_reacquire_factor():
    rx, b = _run(**{"gnss.signal_outages_s": [[10, 30]]})
    t = b["sample_time_s"]
    k0 = int(np.searchsorted(t, 30 - 1e-9))
    g_t = draw_epochs(Pcg32(SEED, GNSS_SEQUENCE), len(t)).g_t
    expected = time_to_fix_s(rx.config.fix, g_t[k0], b["multipath_index"][k0], np.inf)
    assert b["fix"][k0] == RTK_FLOAT
    assert b["rtk_time_to_fix_s"][k0] == pytest.approx(float(expected), rel=1e-12)


def test_the_draws_per_epoch_do_not_change(runs):
    (rx_base, _), (rx_lost, _) = runs
    assert rx_base._rng.u32(4).tolist() == rx_lost._rng.u32(4).tolist()


def test_a_window_outside_the_log_changes_nothing():
    _, base = _run()
    _, late = _run(**{"gnss.signal_outages_s": [[100, 200], [-50, -1]]})
    assert base.keys() == late.keys()
    for key, value in base.items():
        assert _same(late[key], value), key


def test_chunks_give_the_same_epochs(runs):
    (_, _), (_, whole) = runs
    cfg = load_config(
        vehicle="polaris", overrides={"seed": SEED, "gnss.signal_outages_s": [[T1, T2]]}
    )
    rx = GnssReceiver(GnssConfig.from_validated(cfg), vehicle_profile("polaris"), None, None)
    truth = open_sky_circle(STEPS)
    parts = [rx.process(truth.slice(a, min(a + 1000, STEPS))) for a in range(0, STEPS, 1000)]
    for key in ("fix", "satellites_used", "rtk_time_to_fix_s", "position_enu_m"):
        assert _same(np.concatenate([p[key] for p in parts]), whole[key]), key


# ------------------------------------------------------------------------------ configuration
def _parser():
    parser = argparse.ArgumentParser(prog="navsense")
    subparsers = parser.add_subparsers(dest="command", required=True)
    cli_config.add_parser(subparsers)
    return parser


def _config(*argv):
    return cli_config.config_from_args(_parser().parse_args(["config", "show", *argv]))


def test_signal_outage_option_parses():
    cfg = _config("--gnss-signal-outage", "10:20", "--gnss-signal-outage", "30.5:40")
    assert cfg["gnss"]["signal_outages_s"] == [[10, 20], [30.5, 40]]
    assert cfg["gnss"]["corrections"]["outages_s"] == []
    assert load_config()["gnss"]["signal_outages_s"] == []
    typed = GnssConfig.from_validated(cfg)
    assert typed.signal_outages_s == ((10.0, 20.0), (30.5, 40.0))


def test_corrections_outage_and_its_former_name():
    new = _config("--corrections-outage", "10:20")
    old = _config("--gnss-outage", "10:20")
    assert new == old
    assert new["gnss"]["corrections"]["outages_s"] == [[10, 20]]
    assert new["gnss"]["signal_outages_s"] == []
    both = _config("--corrections-outage", "10:20", "--gnss-outage", "30:40")
    assert both["gnss"]["corrections"]["outages_s"] == [[10, 20], [30, 40]]
    parser = argparse.ArgumentParser(prog="navsense")
    cli_config.add_config_arguments(parser)
    helps = {a.option_strings[0]: a.help for a in parser._actions if a.option_strings}
    assert "the same as --corrections-outage" in helps["--gnss-outage"]


@pytest.mark.parametrize(
    "option", ["--gnss-signal-outage", "--corrections-outage", "--gnss-outage"]
)
def test_a_bad_window_names_its_option(option):
    with pytest.raises(ConfigError, match=rf'^command line: {option} = "10" is not <start>:<end>'):
        _config(option, "10")


def test_a_reversed_window_is_refused():
    with pytest.raises(
        ConfigError,
        match=r"^command line: gnss\.signal_outages_s\[0\] = \[20, 10\] is not a \[start, end\)",
    ):
        load_config(overrides={"gnss.signal_outages_s": [[20, 10]]})


def test_episode_records_the_key_only_when_set():
    from navsense.config.defaults import complete_recorded_config
    from navsense.runs.episode import recorded_config as _recorded_config

    default = load_config()
    assert "signal_outages_s" not in _recorded_config(default)["gnss"]
    assert "signal_outages_s" in default["gnss"]  # the effective configuration keeps it
    given = load_config(overrides={"gnss.signal_outages_s": [[1, 2]]})
    assert _recorded_config(given)["gnss"]["signal_outages_s"] == [[1, 2]]
    # a run's recorded configuration (or one from before the key) reads as no outage
    recorded = complete_recorded_config(_recorded_config(default))  # as Episode.read reads it
    assert GnssConfig.from_validated(recorded).signal_outages_s == ()


def test_an_outage_from_the_start_ends_the_converged_lock():
    """Converged start: the lock held at t = 0 ends at the first epoch of a window that opens
    the log (t_loss = 0), and the new one after it has r = r_q (5 s <= reacquire_window_s)."""
    rx, b = _run(**{"gnss.signal_outages_s": [[0, 5]]})
    t = b["sample_time_s"]
    k0 = int(np.searchsorted(t, 5 - 1e-9))
    assert np.all(b["fix"][:k0] == NO_FIX) and np.all(b["satellites_used"][:k0] == 0)
    assert b["fix"][k0] == RTK_FLOAT and b["rtk_lock_age_s"][k0] == 0.0
    g_t = draw_epochs(Pcg32(SEED, GNSS_SEQUENCE), len(t)).g_t
    want = time_to_fix_s(rx.config.fix, g_t[k0], b["multipath_index"][k0], t[k0] - t[0])
    assert b["rtk_time_to_fix_s"][k0] == pytest.approx(float(want), rel=1e-12)
    assert b["rtk_time_to_fix_s"][k0] < float(
        time_to_fix_s(rx.config.fix, g_t[k0], b["multipath_index"][k0], np.inf)
    )


def test_a_cold_start_inside_an_outage_waits_for_both():
    """Cold start (no fix before cold_ttff_s) and an outage [10, 30) over it: no fix until the
    later of the two ends, then a fix at once; no lock was ever lost, so r = 1."""
    rx, b = _run(**{"gnss.start": "cold", "gnss.signal_outages_s": [[10, 30]]})
    t = b["sample_time_s"]
    assert rx.config.fix.cold_ttff_s < 30
    first = int(np.flatnonzero(b["fix"] != NO_FIX)[0])
    assert t[first] == pytest.approx(30.0)
    assert np.all(b["satellites_used"][t < 10] > 0)  # before the window: satellites, no fix yet
    assert b["fix"][first] == RTK_FLOAT and b["rtk_lock_age_s"][first] == 0.0
    g_t = draw_epochs(Pcg32(SEED, GNSS_SEQUENCE), len(t)).g_t
    want = time_to_fix_s(rx.config.fix, g_t[first], b["multipath_index"][first], np.inf)
    assert b["rtk_time_to_fix_s"][first] == pytest.approx(float(want), rel=1e-12)
