"""The fix-state machine, rule by rule (specification, "Fix State Machine")."""

import math

import numpy as np
import pytest

from navsense.config.typed.gnss import FixConfig
from navsense.sensors.gnss.fixstate import (
    DGPS,
    NO_FIX,
    RTK_FIXED,
    RTK_FLOAT,
    SINGLE,
    FixMachineState,
    run_fix_states,
    time_to_fix_s,
)

DEFAULTS = dict(
    cold=False,
    cold_ttff_s=20.0,
    rtk_max_age_s=10.0,
    dgps_max_age_s=60.0,
    float_min_satellites=5,
    min_clear_satellites=6,
    max_pdop=5.0,
    cycle_slip_rate_per_s=0.3,
    ttf_median_s=10.0,
    ttf_log_sigma=0.5,
    ttf_multipath_gain=2.0,
    reacquire_factor=0.3,
    reacquire_window_s=10.0,
    reach="rtk",  # the specification's receiver (gnss.receiver acres)
)
DT = 0.1


def config(**kw):
    return FixConfig(**{**DEFAULTS, **kw})


def epochs(n, t0=0.0, **cols):
    """n epochs of 0.1 s: open sky (12 used, 12 clear, PDOP 1.5, m 0.1), fresh corrections,
    no cycle slip (uniform 0.99), g_t = 0; ``cols`` overrides whole columns."""
    base = dict(
        t_s=t0 + DT * np.arange(n),
        dt_s=np.full(n, DT),
        n_used=np.full(n, 12),
        n_clear=np.full(n, 12),
        pdop=np.full(n, 1.5),
        multipath_index=np.full(n, 0.1),
        age_s=np.full(n, 1.0),
        slip_uniform=np.full(n, 0.99),
        g_t=np.zeros(n),
    )
    for k, v in cols.items():
        base[k] = np.asarray(v, dtype=float) if np.ndim(v) else np.full(n, v, dtype=float)
    return base


def run(cfg, ep, state=None):
    state = FixMachineState.initial(cfg) if state is None else state
    out = run_fix_states(cfg, state, **ep)
    return out, state


# --------------------------------------------------------------------------- time to fix
def test_time_to_fix_formula():
    cfg = config()
    g = np.array([-1.0, 0.0, 0.7])
    m = np.array([0.0, 0.5, 1.0])
    since = np.array([100.0, 10.0, 10.0001])
    want = [
        10.0 * math.exp(0.5 * -1.0) * 1.0 * 1.0,
        10.0 * 1.0 * 2.0 * 0.3,  # within the window (t - t_loss <= T_q): r_q
        10.0 * math.exp(0.35) * 3.0 * 1.0,
    ]
    np.testing.assert_allclose(time_to_fix_s(cfg, g, m, since), want, rtol=1e-15)


# --------------------------------------------------------------------------- sequence 1
def test_fewer_than_four_used_is_no_fix():
    out, _ = run(config(), epochs(5, n_used=[12, 3, 0, 4, 12], n_clear=[12, 3, 0, 4, 12]))
    assert out["fix"].tolist()[1:4] == [NO_FIX, NO_FIX, DGPS]  # 4 used < float_min 5 -> dgps


def test_cold_start_is_no_fix_before_cold_ttff():
    cfg = config(cold=True, cold_ttff_s=2.0)
    out, _ = run(cfg, epochs(30))
    t = DT * np.arange(30)
    assert (out["fix"][t < 2.0] == NO_FIX).all()
    assert (out["fix"][t >= 2.0] != NO_FIX).all()
    assert np.isnan(out["lock_age_s"][t < 2.0]).all()


# --------------------------------------------------------------------------- sequence 2
@pytest.mark.parametrize(
    "age,n_used,want",
    [
        (math.nan, 12, SINGLE),  # no correction
        (10.0, 12, RTK_FIXED),  # a_c = rtk_max_age_s is still RTK (converged start: T_fix 0)
        (10.5, 12, DGPS),  # too old for RTK, young enough for DGPS
        (60.0, 12, DGPS),
        (60.01, 12, SINGLE),  # too old for DGPS
        (1.0, 4, DGPS),  # fewer than float_min_satellites
        (math.nan, 4, SINGLE),
    ],
)
def test_sequence_two(age, n_used, want):
    out, _ = run(config(), epochs(1, age_s=age, n_used=n_used, n_clear=n_used))
    assert out["fix"][0] == want


# --------------------------------------------------------------------------- start modes
def test_converged_start_first_capable_epoch_is_fixed():
    out, st = run(config(), epochs(3))
    assert out["fix"].tolist() == [RTK_FIXED] * 3
    np.testing.assert_allclose(out["lock_age_s"], [600.0, 600.1, 600.2])
    assert out["time_to_fix_s"].tolist() == [0.0] * 3
    np.testing.assert_allclose(out["converge_s"], [0.1, 0.2, 0.3])
    assert st.lock and st.t_lock_s == -600.0


def test_converged_start_not_capable_is_float():
    out, _ = run(config(), epochs(2, n_clear=[5, 6]))  # 5 clear < min_clear_satellites 6
    assert out["fix"].tolist() == [RTK_FLOAT, RTK_FIXED]


# --------------------------------------------------------------------------- step 1: lock start
def test_lock_start_draws_time_to_fix_from_the_epochs_gaussian():
    cfg = config(cold=True, cold_ttff_s=1.0)
    g = np.linspace(-1.0, 1.0, 40)
    mi = np.linspace(0.0, 0.4, 40)
    out, _ = run(cfg, epochs(40, g_t=g, multipath_index=mi))
    k = 10  # first epoch at t >= 1.0: the lock starts, no earlier loss (r = 1)
    assert out["fix"][k - 1] == NO_FIX and out["fix"][k] == RTK_FLOAT
    want = 10.0 * math.exp(0.5 * g[k]) * (1.0 + 2.0 * mi[k])
    assert out["time_to_fix_s"][k] == pytest.approx(want, rel=1e-15)
    assert out["lock_age_s"][k] == 0.0
    assert out["converge_s"][k] == pytest.approx(DT)  # step 3 adds dt in the epoch of the lock


# --------------------------------------------------------------------------- steps 3, 4
def test_fixed_once_the_capable_time_reaches_time_to_fix():
    cfg = config(
        cold=True, cold_ttff_s=0.0, ttf_log_sigma=0.0, ttf_multipath_gain=0.0, ttf_median_s=0.95
    )
    n_clear = np.full(40, 12)
    n_clear[3:8] = 5  # five epochs not capable: c does not grow
    out, _ = run(cfg, epochs(40, n_clear=n_clear))
    c = out["converge_s"]
    assert c[2] == pytest.approx(0.3) and c[7] == pytest.approx(0.3)
    first_fixed = int(np.argmax(out["fix"] == RTK_FIXED))
    assert c[first_fixed] >= 0.95 and c[first_fixed - 1] < 0.95
    assert first_fixed == 14  # the 10th capable epoch: 3 before the gap, 7 after
    assert (out["fix"][:first_fixed] == RTK_FLOAT).all()


def test_pdop_limit_makes_an_epoch_not_capable():
    out, _ = run(config(), epochs(2, pdop=[5.01, 5.0]))
    assert out["fix"].tolist() == [RTK_FLOAT, RTK_FIXED]


# --------------------------------------------------------------------------- step 2: cycle slip
def test_cycle_slip_restarts_convergence_but_keeps_the_lock():
    cfg = config()
    u = np.full(10, 0.99)
    # rate m dt = 0.3 * 0.5 * 0.1 = 0.015: 0.0149 slips, 0.0151 does not
    u[4], u[6] = 0.0149, 0.0151
    g = np.zeros(10)
    g[4] = 0.2
    out, st = run(cfg, epochs(10, slip_uniform=u, multipath_index=0.5, g_t=g))
    assert out["fix"][3] == RTK_FIXED and out["fix"][4] == RTK_FLOAT
    ttf = 10.0 * math.exp(0.5 * 0.2) * (1.0 + 2.0 * 0.5) * 0.3  # t - t_loss = 0: r_q
    assert out["time_to_fix_s"][4] == pytest.approx(ttf, rel=1e-15)
    # rule 5 also fires (fixed -> float), with the same g_t: c restarts at 0
    assert out["converge_s"][4] == 0.0
    np.testing.assert_allclose(out["lock_age_s"], 600.0 + DT * np.arange(10))  # t_lock kept
    assert out["time_to_fix_s"][6] == out["time_to_fix_s"][5]  # no slip at 0.0151
    assert st.t_loss_s == pytest.approx(0.4)


def test_no_cycle_slip_without_multipath():
    out, _ = run(config(), epochs(10, slip_uniform=1e-9, multipath_index=0.0))
    assert (out["fix"] == RTK_FIXED).all()


def test_slip_test_is_skipped_in_the_epoch_that_starts_the_lock():
    cfg = config(cold=True, cold_ttff_s=0.0)
    out, _ = run(cfg, epochs(1, slip_uniform=1e-9, g_t=0.0, multipath_index=1.0))
    assert out["time_to_fix_s"][0] == pytest.approx(10.0 * 3.0)  # r = 1: no loss, no slip


# --------------------------------------------------------------------------- step 5
def test_fixed_to_float_records_a_loss_and_redraws():
    cfg = config()
    n_clear = np.full(6, 12)
    n_clear[2] = 5
    g = np.zeros(6)
    g[2] = -0.4
    out, st = run(cfg, epochs(6, n_clear=n_clear, g_t=g, multipath_index=0.25))
    assert out["fix"].tolist()[:3] == [RTK_FIXED, RTK_FIXED, RTK_FLOAT]
    assert out["converge_s"][2] == 0.0
    assert out["time_to_fix_s"][2] == pytest.approx(10.0 * math.exp(-0.2) * 1.5 * 0.3, rel=1e-15)
    assert out["lock_age_s"][2] == pytest.approx(600.2)


# --------------------------------------------------------------------------- loss and reacquire
def test_states_one_and_two_end_the_lock_and_record_the_loss():
    cfg = config()
    age = np.full(200, 1.0)
    age[10:15] = math.nan  # short outage: loss at t = 1.0, back at 1.5 -> within the window
    age[50:180] = math.nan  # long outage: loss at 5.0, back at 18.0 -> after the window
    out, _ = run(cfg, epochs(200, age_s=age))
    fix = out["fix"]
    assert (fix[10:15] == SINGLE).all() and np.isnan(out["lock_age_s"][10:15]).all()
    assert fix[15] == RTK_FLOAT and out["lock_age_s"][15] == 0.0
    assert out["time_to_fix_s"][15] == pytest.approx(10.0 * 1.2 * 0.3)  # reacquire factor
    assert out["time_to_fix_s"][180] == pytest.approx(10.0 * 1.2)  # 13 s after the loss: r = 1


def test_reacquire_window_is_inclusive():
    cfg = config(reacquire_window_s=0.625)
    age = np.full(20, 1.0)
    age[5:10] = math.nan  # loss at 0.625, lock again at 1.25: t - t_loss = 0.625 <= 0.625
    out, _ = run(
        cfg, epochs(20, age_s=age, t0=0.0, dt_s=0.125, t_s=0.125 * np.arange(20))
    )  # exact binary times
    assert out["time_to_fix_s"][10] == pytest.approx(10.0 * 1.2 * 0.3)


# --------------------------------------------------------------------------- resumable
def test_any_cut_gives_the_same_states():
    rng = np.random.default_rng(3)
    n = 3000

    def runs(values):  # piecewise constant: 20 runs of 150 epochs
        return np.repeat(values, 150)

    cfg = config(cold=True, cold_ttff_s=3.0)
    draw = rng.uniform(size=20)
    age = np.where(draw < 0.1, np.nan, np.where(draw < 0.4, rng.uniform(0.0, 70.0, 20), 1.0))
    ep = epochs(
        n,
        n_used=runs(rng.integers(3, 14, 20)),
        n_clear=runs(rng.integers(5, 14, 20)),
        pdop=runs(rng.uniform(1.0, 6.0, 20)),
        multipath_index=runs(rng.uniform(0.0, 0.5, 20)),
        age_s=runs(age),
        slip_uniform=rng.uniform(size=n),
        g_t=rng.normal(size=n),
    )
    whole, _ = run(cfg, ep)
    state = FixMachineState.initial(cfg)
    parts = []
    cuts = [0, 1, 2, 17, 400, 401, 1999, n]
    for a, b in zip(cuts[:-1], cuts[1:]):
        parts.append(run_fix_states(cfg, state, **{k: v[a:b] for k, v in ep.items()}))
    for key in whole:
        np.testing.assert_array_equal(whole[key], np.concatenate([p[key] for p in parts]))
    assert set(np.unique(whole["fix"])) == {NO_FIX, SINGLE, DGPS, RTK_FLOAT, RTK_FIXED}


def test_empty_chunk():
    cfg = config()
    state = FixMachineState.initial(cfg)
    out = run_fix_states(cfg, state, **epochs(0))
    assert out["fix"].shape == (0,) and state == FixMachineState.initial(cfg)


# --------------------------------------------------------------------------- one epoch = batch
def eventful_epochs(n, seed):
    """Conditions in runs of 3 s, so that the machine meets every state, float convergence, cycle
    slips, fixed -> float, losses, reacquires within and after the window and correction outages
    (NaN ages); N_u and N_c integer arrays, as the receiver gives them."""
    rng = np.random.default_rng(seed)
    runs = n // 30 + 1

    def piecewise(values):
        return np.repeat(values, 30)[:n]

    draw = rng.uniform(size=runs)
    age = np.where(draw < 0.15, np.nan, np.where(draw < 0.35, rng.uniform(0.0, 70.0, runs), 1.0))
    ep = epochs(
        n,
        age_s=piecewise(age),
        pdop=piecewise(rng.choice([1.2, 2.5, 5.0, 6.0, math.nan], runs)),
        multipath_index=piecewise(rng.uniform(0.0, 0.8, runs)),
        slip_uniform=rng.uniform(0.0, 0.2, n),
        g_t=rng.normal(size=n),
    )
    ep["n_used"] = piecewise(rng.choice([3, 4, 5, 8, 12], runs, p=[0.05, 0.05, 0.1, 0.3, 0.5]))
    ep["n_clear"] = piecewise(rng.choice([4, 6, 9, 12], runs, p=[0.1, 0.2, 0.3, 0.4]))
    return ep


@pytest.mark.parametrize("cold", [False, True])
def test_one_epoch_steps_equal_the_whole_run_bit_for_bit(cold):
    cfg = config(cold=cold, cold_ttff_s=4.0, ttf_median_s=2.0, reacquire_window_s=3.0)
    n = 6000
    ep = eventful_epochs(n, 17 + cold)
    whole, final = run(cfg, ep)
    state = FixMachineState.initial(cfg)  # carried from epoch to epoch, as the receiver does
    steps = [
        run_fix_states(cfg, state, **{k: v[i : i + 1] for k, v in ep.items()}) for i in range(n)
    ]
    assert state == final
    for key, value in whole.items():
        assert all(s[key].shape == (1,) and s[key].dtype == value.dtype for s in steps), key
        assert np.concatenate([s[key] for s in steps]).tobytes() == value.tobytes(), key
    # the branches met: every state, float convergence, cycle slips, T_fix with and without r_q
    fix = whole["fix"]
    assert set(fix.tolist()) == {NO_FIX, SINGLE, DGPS, RTK_FLOAT, RTK_FIXED}
    held = (fix[1:] >= RTK_FIXED) & (fix[:-1] >= RTK_FIXED)
    slips = ep["slip_uniform"][1:] < 0.3 * ep["multipath_index"][1:] * ep["dt_s"][1:]
    assert (held & slips).sum() > 10
    assert ((fix[1:] == RTK_FIXED) & (fix[:-1] == RTK_FLOAT)).sum() > 10  # converged in float
    starts = np.flatnonzero(whole["lock_age_s"] == 0.0)
    raw = time_to_fix_s(cfg, ep["g_t"][starts], ep["multipath_index"][starts], math.inf)
    ratio = whole["time_to_fix_s"][starts] / raw
    assert np.isclose(ratio, 0.3).sum() > 3 and np.isclose(ratio, 1.0).sum() > 3  # reacquire or not
    assert cold == np.isnan(whole["lock_age_s"][0])


@pytest.mark.parametrize("reach", ["dgps", "single"])
def test_one_epoch_steps_of_a_receiver_without_rtk_equal_the_whole_run(reach):
    """The one-epoch conditions (fixstate._one_condition, Python scalars) of a grade without
    RTK (gnss.receiver presets): dgps keeps DGPS with corrections, single never has it."""
    cfg = config(reach=reach, ttf_median_s=2.0)
    n = 1500
    ep = eventful_epochs(n, 5)
    whole, final = run(cfg, ep)
    state = FixMachineState.initial(cfg)
    steps = [
        run_fix_states(cfg, state, **{k: v[i : i + 1] for k, v in ep.items()}) for i in range(n)
    ]
    assert state == final
    for key, value in whole.items():
        assert np.concatenate([s[key] for s in steps]).tobytes() == value.tobytes(), key
    states = set(whole["fix"].tolist())
    assert SINGLE in states and (DGPS in states) == (reach == "dgps")
    assert RTK_FLOAT not in states and RTK_FIXED not in states
