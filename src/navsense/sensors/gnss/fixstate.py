"""The fix-state machine of the GNSS receiver: no_fix, single, dgps, rtk_float, rtk_fixed.

Specification, "GNSS Receiver / Fix State Machine" (FAcresGnssModel::Epoch). For each epoch, in
sequence:

1. cold start with t < cold_ttff_s, or N_u < 4                        -> no_fix
2. a_c not available or a_c > rtk_max_age_s, or N_u < float_min_satellites
                                 -> dgps when a_c <= dgps_max_age_s, single if not
3. all other epochs                                                   -> rtk_float or rtk_fixed

States 1 and 2 end the RTK lock; ending a lock records the loss time t_loss = t. In state 3:

1. with no lock, start one: t_lock = t, c = 0, draw T_fix;
2. with a lock (one held before this epoch), a cycle slip occurs when the epoch's uniform
   U < cycle_slip_rate_per_s * m * dt; then t_loss = t, c = 0, draw T_fix (t_lock is kept);
3. the epoch is capable when N_c >= min_clear_satellites and P <= max_pdop; a capable epoch adds
   dt to c;
4. rtk_fixed when capable and c >= T_fix, rtk_float if not;
5. a change rtk_fixed -> rtk_float sets t_loss = t, c = 0 and draws T_fix.

Time to fix, from the epoch's Gaussian g_t and multipath index m::

    T_fix = T_med exp(sigma_T g_t) (1 + G_m m) r,   r = r_q if t - t_loss <= T_q else 1

Receiver grades (navsense extension, issue 29; gnss.receiver, navsense.config.receiver_presets):
``FixConfig.reach`` caps the states of sequence 2 and 3 the receiver can reach. "rtk" (the
specification's receiver) caps nothing; "dgps" (an SBAS or DGPS receiver) turns sequence 3 into
sequence 2's choice (dgps when a_c <= dgps_max_age_s, single if not), so it never holds an RTK
lock; "single" (a phone, a standalone module) turns sequences 2 and 3 into single. Sequence 1
(no_fix) is every receiver's. The machine, its draws and its lock bookkeeping are otherwise the
specification's: a receiver that cannot reach RTK is a receiver whose epochs all fall in
sequence 1 or 2.

Start modes: ``converged``: a lock 600 s old at t = 0 (t_lock = -600 s) with T_fix = 0 and c = 0,
so the first capable epoch is rtk_fixed; ``cold``: no lock, no_fix while t < cold_ttff_s.
Before any loss t_loss = -inf (no reacquire factor).

Readings of the specification (say so if one proves wrong):

- "States 1 and 2 end the RTK lock and record the time of the loss": t_loss is recorded when a
  lock is ended, i.e. at the first epoch of state 1 or 2 after an RTK epoch. Later epochs without
  a lock keep that time, so the reacquire factor applies when the lock comes back within
  reacquire_window_s of its loss, and not after a long outage or a cold start.
- Steps 1 and 2 are alternatives: an epoch that starts a lock does not test for a cycle slip.
- With no lock (states 1 and 2) c and T_fix are not defined; they are reported as NaN (null).

The states are numbered as their NMEA GGA quality (0 no_fix, 1 single, 2 dgps, 4 rtk_fixed,
5 rtk_float). :func:`run_fix_states` is the receiver's only per-epoch Python loop; it works on
plain floats from precomputed lists and carries its state in :class:`FixMachineState`, so a log
cut anywhere gives the same states.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from navsense.config.typed.gnss import FixConfig

__all__ = [
    "NO_FIX",
    "SINGLE",
    "DGPS",
    "RTK_FIXED",
    "RTK_FLOAT",
    "FIX_TYPES",
    "FIX_CODES",
    "MIN_SATELLITES",
    "CONVERGED_LOCK_AGE_S",
    "FixMachineState",
    "time_to_fix_s",
    "run_fix_states",
]

# Fix states, numbered as their GGA quality (specification, "Output Row")
NO_FIX = 0
SINGLE = 1
DGPS = 2
RTK_FIXED = 4
RTK_FLOAT = 5
FIX_TYPES = {
    NO_FIX: "no_fix",
    SINGLE: "single",
    DGPS: "dgps",
    RTK_FIXED: "rtk_fixed",
    RTK_FLOAT: "rtk_float",
}
FIX_CODES = {name: code for code, name in FIX_TYPES.items()}

MIN_SATELLITES = 4  # specification, "Fix State Machine", condition 1: N_u < 4 -> no_fix
CONVERGED_LOCK_AGE_S = 600.0  # specification, "Fix State Machine": the lock is 600 s old at t = 0


@dataclass
class FixMachineState:
    """What the machine carries from one epoch to the next (plain Python floats)."""

    lock: bool
    t_lock_s: float
    t_loss_s: float
    converge_s: float
    time_to_fix_s: float
    previous: int  # fix state of the previous epoch, -1 before the first

    @classmethod
    def initial(cls, config: FixConfig) -> FixMachineState:
        """The state before the first epoch for the start mode of ``config``."""
        if config.cold:
            return cls(
                lock=False,
                t_lock_s=math.nan,
                t_loss_s=-math.inf,
                converge_s=math.nan,
                time_to_fix_s=math.nan,
                previous=-1,
            )
        return cls(
            lock=True,
            t_lock_s=-CONVERGED_LOCK_AGE_S,
            t_loss_s=-math.inf,
            converge_s=0.0,
            time_to_fix_s=0.0,
            previous=-1,
        )


def time_to_fix_s(config: FixConfig, g_t, multipath_index, since_loss_s):
    """T_fix = T_med exp(sigma_T g_t) (1 + G_m m) r (specification, "Fix State Machine").

    r = reacquire_factor when ``since_loss_s`` = t - t_loss <= reacquire_window_s, else 1.
    Vectorised; the loop of :func:`run_fix_states` multiplies the r = 1 values by r itself.
    """
    r = np.where(
        np.asarray(since_loss_s) <= config.reacquire_window_s, config.reacquire_factor, 1.0
    )
    return (
        config.ttf_median_s
        * np.exp(config.ttf_log_sigma * np.asarray(g_t))
        * (1.0 + config.ttf_multipath_gain * np.asarray(multipath_index))
        * r
    )


def run_fix_states(
    config: FixConfig,
    state: FixMachineState,
    t_s,
    dt_s,
    n_used,
    n_clear,
    pdop,
    multipath_index,
    age_s,
    slip_uniform,
    g_t,
) -> dict[str, np.ndarray]:
    """Run the machine over m epochs; ``state`` is updated in place.

    Inputs are arrays of shape (m,): epoch time, dt since the previous epoch, N_u, N_c, PDOP of the
    used satellites, multipath index m, correction age (NaN: none), the epoch's cycle-slip uniform
    and its Gaussian g_t. Returns ``fix`` (int8 state codes), ``lock_age_s`` (t - t_lock),
    ``converge_s`` (c) and ``time_to_fix_s`` (T_fix), NaN for the last three without a lock.
    """
    m = len(t_s)
    if m == 0:
        return {
            "fix": np.empty(0, dtype=np.int8),
            "lock_age_s": np.empty(0),
            "converge_s": np.empty(0),
            "time_to_fix_s": np.empty(0),
        }
    inputs = (t_s, dt_s, n_used, n_clear, pdop, multipath_index, age_s, slip_uniform, g_t)
    if m == 1:  # one epoch (streaming): the same conditions on Python scalars
        return _run(config, state, *_one_condition(config, *inputs))
    return _run(config, state, *_conditions(config, *inputs))


def _one_condition(
    config: FixConfig, t_s, dt_s, n_used, n_clear, pdop, multipath_index, age_s, slip_uniform, g_t
) -> tuple[list, ...]:
    """:func:`_conditions` of one epoch, its arrays' one value each as a Python float or int
    (IEEE double like numpy's: the same comparisons, products and sums in the same order);
    exp stays numpy's, on the epoch's row."""
    t, dt, mi = float(t_s[0]), float(dt_s[0]), float(multipath_index[0])
    n_u, age = int(n_used[0]), float(age_s[0])
    no_fix = n_u < MIN_SATELLITES or (config.cold and t < config.cold_ttff_s)
    have_age = not math.isnan(age)
    not_rtk = not have_age or age > config.rtk_max_age_s or n_u < config.float_min_satellites
    dgps = have_age and age <= config.dgps_max_age_s
    if config.reach != "rtk":  # a receiver grade without RTK (module docstring)
        not_rtk = True
        dgps = dgps and config.reach != "single"
    base = NO_FIX if no_fix else (DGPS if dgps else SINGLE) if not_rtk else -1
    capable = int(n_clear[0]) >= config.min_clear_satellites and float(pdop[0]) <= config.max_pdop
    slip = float(slip_uniform[0]) < config.cycle_slip_rate_per_s * mi * dt
    # time_to_fix_s with since_loss = inf: numpy's exp on the row, then its products in order
    e = float(np.exp(config.ttf_log_sigma * np.asarray(g_t, dtype=np.float64))[0])
    r = config.reacquire_factor if math.inf <= config.reacquire_window_s else 1.0
    ttf = config.ttf_median_s * e * (1.0 + config.ttf_multipath_gain * mi) * r
    return [base], [capable], [slip], [t], [dt], [ttf]


def _conditions(
    config: FixConfig, t_s, dt_s, n_used, n_clear, pdop, multipath_index, age_s, slip_uniform, g_t
) -> tuple[list, ...]:
    """The vectorised parts of the machine over m epochs, as lists for the loop of :func:`_run`:
    base state (-1: RTK), capable, cycle slip, t, dt and T_fix with r = 1."""
    t_s = np.asarray(t_s, dtype=np.float64)
    dt_s = np.asarray(dt_s, dtype=np.float64)
    multipath_index = np.asarray(multipath_index, dtype=np.float64)
    n_used = np.asarray(n_used)
    # Vectorised parts of the conditions (specification, "Fix State Machine", sequence 1 and 2)
    age = np.asarray(age_s, dtype=np.float64)
    no_fix = n_used < MIN_SATELLITES
    if config.cold:
        no_fix |= t_s < config.cold_ttff_s
    have_age = ~np.isnan(age)
    not_rtk = ~have_age | (age > config.rtk_max_age_s) | (n_used < config.float_min_satellites)
    dgps = have_age & (age <= config.dgps_max_age_s)
    if config.reach != "rtk":  # a receiver grade without RTK (module docstring)
        not_rtk = np.ones_like(not_rtk)
        if config.reach == "single":
            dgps = np.zeros_like(dgps)
    base = np.where(no_fix, NO_FIX, np.where(not_rtk, np.where(dgps, DGPS, SINGLE), -1))
    capable = (np.asarray(n_clear) >= config.min_clear_satellites) & (
        np.asarray(pdop) <= config.max_pdop
    )
    # the cycle slip test U < rate m dt, and T_fix without the reacquire factor (r = 1)
    slip = np.asarray(slip_uniform) < config.cycle_slip_rate_per_s * multipath_index * dt_s
    ttf_raw = time_to_fix_s(config, np.asarray(g_t, dtype=np.float64), multipath_index, math.inf)
    return (
        base.tolist(),
        capable.tolist(),
        slip.tolist(),
        t_s.tolist(),
        dt_s.tolist(),
        ttf_raw.tolist(),
    )


def _run(
    config: FixConfig, state: FixMachineState, base_l, cap_l, slip_l, t_l, dt_l, ttf_l
) -> dict[str, np.ndarray]:
    """The loop of :func:`run_fix_states` over the epochs' conditions; ``state`` updated in place."""
    m = len(t_l)
    rq, tq = config.reacquire_factor, config.reacquire_window_s
    r_now = rq if tq >= 0.0 else 1.0  # r for a loss at this very epoch (t - t_loss = 0)
    nan = math.nan
    lock, t_lock, t_loss = state.lock, state.t_lock_s, state.t_loss_s
    c, t_fix, prev = state.converge_s, state.time_to_fix_s, state.previous
    fix_l = [0] * m
    age_l, conv_l, ttf_out = [nan] * m, [nan] * m, [nan] * m
    for k in range(m):
        b = base_l[k]
        t = t_l[k]
        if b >= 0:  # sequence 1 and 2: the lock ends
            if lock:
                lock = False
                t_loss = t
                c = nan
                t_fix = nan
            fix_l[k] = b
            prev = b
            continue
        if not lock:  # step 1: start a lock
            lock = True
            t_lock = t
            c = 0.0
            t_fix = ttf_l[k] * (rq if t - t_loss <= tq else 1.0)
        elif slip_l[k]:  # step 2: cycle slip; t - t_loss = 0 <= T_q, so r = r_q
            t_loss = t
            c = 0.0
            t_fix = ttf_l[k] * r_now
        if cap_l[k]:  # step 3
            c += dt_l[k]
            s = RTK_FIXED if c >= t_fix else RTK_FLOAT  # step 4
        else:
            s = RTK_FLOAT
        if s == RTK_FLOAT and prev == RTK_FIXED:  # step 5; r = r_q as in step 2
            t_loss = t
            c = 0.0
            t_fix = ttf_l[k] * r_now
        fix_l[k] = s
        prev = s
        age_l[k] = t - t_lock
        conv_l[k] = c
        ttf_out[k] = t_fix

    state.lock, state.t_lock_s, state.t_loss_s = lock, t_lock, t_loss
    state.converge_s, state.time_to_fix_s, state.previous = c, t_fix, prev
    return {
        "fix": np.array(fix_l, dtype=np.int8),
        "lock_age_s": np.array(age_l, dtype=np.float64),
        "converge_s": np.array(conv_l, dtype=np.float64),
        "time_to_fix_s": np.array(ttf_out, dtype=np.float64),
    }
