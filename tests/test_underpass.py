"""The example underpass (issue 19 section 2): a route that drives under a bridge deck.

examples/underpass.site.json holds a motorway deck 40 m wide (y 40 .. 80) whose underside is
4.8 m above the farm track (a building's base_m) between two embankments;
examples/underpass.waypoints.json drives north along the track under it at 4 m/s.

External truths: plane geometry (from an antenna h below the underside, a ray above the mask
meets the deck within h / tan(mask) of the antenna, and the embankments close the sides), and the
fix-state machine's rules (specification, "Fix State Machine": N_u < 4 is no fix, a state 1 or 2
epoch ends the RTK lock and records t_loss, a lock starts as RTK float with c = 0 and
T_fix = T_med exp(sigma_T g_t) (1 + G_m m) r, r = r_q within T_q of the loss, c grows by dt on
the capable epochs (N_c >= min_clear_satellites, PDOP <= max_pdop), fixed once c >= T_fix). The
receiver's answer under the deck is what gnss.signal_outages_s gives for the same interval.
"""

import json
import math
from pathlib import Path

import numpy as np
import pytest

from navsense.config import load_config
from navsense.config.typed.gnss import GnssConfig
from navsense.rng import Pcg32
from navsense.sensors.gnss.error_model import draw_epochs
from navsense.sensors.gnss.fixstate import DGPS, NO_FIX, RTK_FIXED, RTK_FLOAT, SINGLE, time_to_fix_s
from navsense.sensors.gnss.receiver import GNSS_SEQUENCE, GnssReceiver
from navsense.site import load_site
from navsense.truth.tracks import build_truth_from_track, load_track
from navsense.vehicles import vehicle_profile

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SITE = EXAMPLES / "underpass.site.json"
ROUTE = EXAMPLES / "underpass.waypoints.json"
SEED = 7
START_UTC = "2026-05-04T09:30:00Z"


def _receiver(site, **overrides):
    cfg = load_config(
        vehicle="polaris",
        overrides={"seed": SEED, "gnss.datum.start_utc": START_UTC, **overrides},
    )
    georef = site.make_georeference(START_UTC) if site is not None else None
    return GnssReceiver(GnssConfig.from_validated(cfg), vehicle_profile("polaris"), site, georef)


@pytest.fixture(scope="module")
def site():
    return load_site(SITE)


@pytest.fixture(scope="module")
def truth(site):
    return build_truth_from_track(load_track(ROUTE, site=site, start_utc=START_UTC), "polaris")


@pytest.fixture(scope="module")
def under(site, truth):
    rx = _receiver(site)
    return rx, rx.process(truth)


def _runs(mask):
    """(start, end) index pairs of the runs of True in ``mask``."""
    edges = np.flatnonzero(np.diff(np.concatenate([[0], mask.astype(np.int8), [0]])))
    return list(zip(edges[::2], edges[1::2], strict=True))


def _same(a, b):
    return np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True)


def test_the_example_files_describe_an_underpass(site, truth):
    data = json.loads(SITE.read_text(encoding="utf-8"))
    decks = [b for b in data["buildings"] if b.get("base_m", 0) > 0]
    assert len(decks) == 1 and site.box_overhead.tolist() == [True, False, False]
    deck_lo, deck_hi = site.box_min_m[0], site.box_max_m[0]
    assert deck_lo[2] == pytest.approx(4.8)
    # the route runs on the ground under the deck from one side to the other
    y = truth.p_m[:, 1]
    assert y.min() < deck_lo[1] - 50 and y.max() > deck_hi[1] + 50
    assert np.all(np.abs(truth.p_m[:, 0]) < 1e-6)


def test_no_satellite_under_the_middle_of_the_deck(site, under):
    """Where the antenna is h / tan(mask) or more from both portals (h the underside's height
    above it) the deck and the embankments hide the whole sky above the mask: no satellite, no
    fix, no RTK lock; outside the deck's footprint the sky is back."""
    rx, b = under
    a = b["antenna_enu_m"]
    deck_lo, deck_hi = site.box_min_m[0], site.box_max_m[0]
    h = deck_lo[2] - a[:, 2]
    reach = h / math.tan(math.radians(rx.config.elevation_mask_deg))
    middle = (a[:, 1] - deck_lo[1] >= reach) & (deck_hi[1] - a[:, 1] >= reach)
    assert middle.sum() >= 20  # 2 s or more at 10 Hz
    assert np.all(b["satellites_used"][middle] == 0)
    assert np.all(b["satellites_blocked"][middle] == b["satellites_above_mask"][middle])
    assert np.all(b["satellites_above_mask"][middle] >= 10)
    assert np.all(b["fix"][middle] == NO_FIX)
    for key in ("rtk_lock_age_s", "rtk_converge_s", "rtk_time_to_fix_s"):
        assert np.all(np.isnan(b[key][middle])), key
    # the zero-satellite epochs are one run, all under the deck
    zero = b["satellites_used"] == 0
    ((k0, k1),) = _runs(zero)
    assert np.all((a[k0:k1, 1] > deck_lo[1]) & (a[k0:k1, 1] < deck_hi[1]))
    # well away from the structure the open sky: RTK fixed with every satellite clear
    far = np.abs(a[:, 1] - 60.0) > 100.0
    assert np.all(b["fix"][far] == RTK_FIXED)
    assert np.all(b["satellites_blocked"][far] == 0)


def test_the_fix_states_follow_the_satellite_counts(under):
    _, b = under
    n = b["satellites_used"]
    # rule 1: no fix exactly where fewer than 4 satellites are used (converged start, no cold TTFF)
    np.testing.assert_array_equal(b["fix"] == NO_FIX, n < 4)
    # a fix again as soon as 4 are back: no time to first fix after an underpass
    ((k0, k1),) = _runs(b["fix"] == NO_FIX)
    assert n[k1] >= 4 and b["fix"][k1] != NO_FIX
    # rule 2: between 4 and float_min_satellites - 1 no RTK (dgps with corrections)
    few = (n >= 4) & (n < 5)
    assert few.any() and np.all(np.isin(b["fix"][few], [DGPS, SINGLE]))
    rtk = np.isin(b["fix"], [RTK_FLOAT, RTK_FIXED])
    np.testing.assert_array_equal(np.isnan(b["rtk_lock_age_s"]), ~rtk)


def _reacquisition(rx, b):
    """(t_loss index, first RTK index after it, first fixed index after that)."""
    t = b["sample_time_s"]
    rtk = np.isin(b["fix"], [RTK_FLOAT, RTK_FIXED])
    ((lo, hi),) = [r for r in _runs(~rtk) if r[0] > 0]
    k_fix = hi + int(np.flatnonzero(b["fix"][hi:] == RTK_FIXED)[0])
    assert t[hi] - t[lo] <= rx.config.fix.reacquire_window_s
    return lo, hi, k_fix


def test_reacquisition_after_the_deck_follows_the_fix_machine(under):
    rx, b = under
    t, cfg = b["sample_time_s"], rx.config.fix
    lo, hi, k_fix = _reacquisition(rx, b)
    assert b["fix"][lo - 1] in (RTK_FLOAT, RTK_FIXED)  # the lock ends at lo: t_loss = t[lo]
    # the new lock: RTK float, age 0, T_fix with the epoch's g_t and m, and r = r_q
    assert b["fix"][hi] == RTK_FLOAT and b["rtk_lock_age_s"][hi] == 0.0
    g_t = draw_epochs(Pcg32(SEED, GNSS_SEQUENCE), len(t)).g_t
    want = time_to_fix_s(cfg, g_t[hi], b["multipath_index"][hi], t[hi] - t[lo])
    assert b["rtk_time_to_fix_s"][hi] == pytest.approx(float(want), rel=1e-12)
    plain = time_to_fix_s(cfg, g_t[hi], b["multipath_index"][hi], math.inf)
    assert float(want) == pytest.approx(cfg.reacquire_factor * float(plain))
    # c grows by dt on the capable epochs only (near the portal some are not), T_fix held
    capable = (b["satellites_clear"] >= cfg.min_clear_satellites) & (b["pdop"] <= cfg.max_pdop)
    assert not capable[hi : k_fix + 1].all()  # the exit's shadow delays the fix
    dt = np.diff(t)
    c = b["rtk_converge_s"]
    expected_c = np.cumsum(np.where(capable[hi : k_fix + 1], np.r_[dt[hi - 1], dt[hi:k_fix]], 0))
    np.testing.assert_allclose(c[hi : k_fix + 1], expected_c, atol=1e-9)
    assert np.all(b["rtk_time_to_fix_s"][hi : k_fix + 1] == b["rtk_time_to_fix_s"][hi])
    # float until c reaches T_fix, then fixed
    assert np.all(b["fix"][hi:k_fix] == RTK_FLOAT)
    assert c[k_fix] >= b["rtk_time_to_fix_s"][k_fix] > c[k_fix - 1]
    # the lock's age is the time since it started
    np.testing.assert_allclose(b["rtk_lock_age_s"][hi : k_fix + 1], t[hi : k_fix + 1] - t[hi])


def test_the_deck_is_a_signal_outage_of_its_zero_satellite_interval(site, truth, under):
    """An outage [t1, t2) over the epochs the deck leaves without a satellite changes nothing:
    the receiver cannot tell the deck's shadow from jamming there."""
    _, b = under
    t = b["sample_time_s"]
    ((k0, k1),) = _runs(b["satellites_used"] == 0)
    rx = _receiver(site, **{"gnss.signal_outages_s": [[float(t[k0]), float(t[k1])]]})
    jammed = rx.process(truth)
    assert jammed.keys() == b.keys()
    for key, value in b.items():
        assert _same(jammed[key], value), key


def test_open_sky_with_the_same_outage_reacquires_alike(truth, under):
    """The same drive in open sky with gnss.signal_outages_s over the interval the deck ends the
    lock: the same no-RTK interval, a new lock at the same epoch with the same g_t and r = r_q,
    T_fix differing only by the multipath factor (1 + G_m m)."""
    rx, b = under
    t, cfg = b["sample_time_s"], rx.config.fix
    lo, hi, k_fix = _reacquisition(rx, b)
    rx_open = _receiver(None, **{"gnss.signal_outages_s": [[float(t[lo]), float(t[hi])]]})
    o = rx_open.process(truth)
    assert np.all(o["fix"][lo:hi] == NO_FIX) and np.all(o["satellites_used"][lo:hi] == 0)
    rtk = np.isin(o["fix"], [RTK_FLOAT, RTK_FIXED])
    assert rtk[:lo].all() and not rtk[lo:hi].any()
    assert o["fix"][hi] == RTK_FLOAT and o["rtk_lock_age_s"][hi] == 0.0
    gain = cfg.ttf_multipath_gain
    ratio = (1 + gain * b["multipath_index"][hi]) / (1 + gain * o["multipath_index"][hi])
    assert b["rtk_time_to_fix_s"][hi] / o["rtk_time_to_fix_s"][hi] == pytest.approx(ratio)
    # in open sky every epoch is capable: fixed after T_fix of epochs; under the bridge later
    o_fix = hi + int(np.flatnonzero(o["fix"][hi:] == RTK_FIXED)[0])
    steps = math.ceil(o["rtk_time_to_fix_s"][hi] / 0.1 - 1e-9)
    assert o_fix - hi == steps - 1
    assert k_fix > o_fix


# ---------------------------------------------------------------------------------- readers
@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    """``navsense simulate --track underpass.waypoints.json --site underpass.site.json``."""
    from navsense.cli import main

    out = tmp_path_factory.mktemp("underpass") / "run"
    argv = ["simulate", "--track", str(ROUTE), "--site", str(SITE), "--out", str(out)]
    assert main([*argv, "--seed", str(SEED)]) == 0
    return out


def test_the_report_recomputes_the_rows_sky_under_the_deck(run_dir):
    """The report's sky (navsense.sky from episode.json's site) gives the receiver's counts at
    epochs under, before and after the deck, and draws the raised deck."""
    pytest.importorskip("matplotlib")
    from navsense.runs import report_plots, report_sky
    from navsense.runs.report import read_run, write_report
    from navsense.sky import obstruction as sky

    data = read_run(run_dir)
    run_sky = data.sky()
    assert run_sky.site.box_overhead.tolist() == [True, False, False]
    used = data.gnss_counts["satellites_used"]
    zero = np.flatnonzero(used == 0)
    assert zero.size >= 20
    t = data.gnss_t_s
    for k in (zero[0] - 15, zero[0], zero[zero.size // 2], zero[-1] + 10, zero[-1] + 40):
        _, antenna, _, status = report_plots.sky_status(data, int(k), run_sky)
        counts = sky.counts(status[None, :])
        for key, value in counts.items():
            assert int(value[0]) == int(data.gnss_counts[key][k]), (key, t[k])
    # the drawn sky under the middle of the deck: the zenith blocked, the sky through the
    # portals below the deck's edge open (a skyline from the horizon could not show that)
    k = int(zero[zero.size // 2])
    _, antenna, _, _ = report_plots.sky_status(data, k, run_sky)
    az, el, blocked, _ = report_sky._sky_grid(antenna, run_sky.site, 8.0)
    assert blocked[:, el > 30.0].all()
    north = int(np.argmin(np.abs(az - 0.0)))
    assert not blocked[north, el < 2.0].all() and blocked[north, el > 12.0].all()
    path = write_report(run_dir, sky_time_s=float(t[k]))
    assert (path.parent / "sky.png").stat().st_size > 10_000
    assert (path.parent / "track.png").stat().st_size > 10_000


def test_chunks_and_steps_give_the_same_epochs_under_the_deck(site, truth, under):
    """The receiver in chunks (and one physics step a call, as a live run) gives the epochs of
    the whole log: the overhead culling depends on each epoch alone."""
    _, whole = under
    keys = ("fix", "satellites_used", "satellites_blocked", "rtk_time_to_fix_s", "position_enu_m")
    rx = _receiver(site)
    n = len(truth)
    parts = [rx.process(truth.slice(a, min(a + 997, n))) for a in range(0, n, 997)]
    for key in keys:
        assert _same(np.concatenate([p[key] for p in parts]), whole[key]), key
    # step by step over the deck's stretch (the same receiver state carried in)
    t = whole["sample_time_s"]
    k0 = int(np.flatnonzero(whole["satellites_used"] == 0)[0])
    first_step = int(round((t[k0] - 3.0) * 120))
    rx = _receiver(site)
    head = rx.process(truth.slice(0, first_step))
    steps = [rx.process(truth.slice(i, i + 1)) for i in range(first_step, first_step + 120 * 8)]
    m = len(head["fix"])
    for key in keys:
        got = np.concatenate([s[key] for s in steps if len(s["fix"])])
        assert len(got) >= 79  # 8 s of 10 Hz epochs, through the zero-satellite stretch
        assert _same(got, np.asarray(whole[key])[m : m + len(got)]), key
