"""The position error of the GNSS receiver: correlated, white and multipath terms per fix state.

Specification, "GNSS Receiver / Error Model"; DESIGN.md ruling "Random values per epoch".

Base standard deviations of the fix state (no_fix uses the parameters of single)::

    s_H = sigma_h                                                   (s_V alike)
    s_H = sigma_h + (sigma_h0 - sigma_h) exp(-(t - t_lock) / tau_c)  in rtk_float
    s_H <- s_H + 1e-3 ppm_h B,  s_V <- s_V + 1e-3 ppm_v B           in rtk_float and rtk_fixed

DOP ratios: k_H = clamp(H / max(H_o, 1e-3), 0.5, 20), k_V = clamp(V / max(V_o, 1e-3), 0.5, 20).

Terms (east, north, up)::

    sigma_gm = (s_H k_H, s_H k_H, s_V k_V)
    sigma_w  = (w_H k_H, w_H k_H, w_V k_V)
    sigma_mp = m mu_H (1, 1, r_V)

Unit Gauss-Markov states, phi = exp(-dt / tau) with tau = tau_s of the current fix state and
phi_m = exp(-dt / tau_m) with tau_m = multipath_tau_s; on the first epoch phi = phi_m = 0 and
dt = 0.1 s::

    u_k = phi u_{k-1} + sqrt(1 - phi^2) g_k,     z_k = phi_m z_{k-1} + sqrt(1 - phi_m^2) g'_k
    e = sigma_gm u + sigma_w g'' + sigma_mp z,    sigma = sqrt(sigma_gm^2 + sigma_w^2 + sigma_mp^2)
    p_out = p_a + e

where g, g', g'' are the epoch's Gaussians. With noise off the three standard deviations are zero
(the draws and the unit states go on unchanged).

Draws (stream Pcg32(seed, 1)): 11 values an epoch, 21 32-bit outputs, in every state::

    outputs  0-5   3 Gaussians g   (u, east north up)
    outputs  6-11  3 Gaussians g'' (white)
    outputs 12-17  3 Gaussians g'  (z)
    output  18     1 uniform       (cycle slip)
    outputs 19-20  1 Gaussian g_t  (time to fix)

The Gauss-Markov states (navsense.gauss_markov.GaussMarkovStates, anchored segments) carry their
state from block to block, so they give the same values however the log is cut.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from navsense.config.typed.gnss import STATE_PARAM_KEYS, ErrorConfig
from navsense.kernels import kernel
from navsense.rng import Pcg32
from navsense.sensors.gnss.fixstate import DGPS, NO_FIX, RTK_FIXED, RTK_FLOAT, SINGLE

__all__ = [
    "OUTPUTS_PER_EPOCH",
    "FIRST_EPOCH_DT_S",
    "DOP_RATIO_MIN",
    "DOP_RATIO_MAX",
    "EpochDraws",
    "draw_epochs",
    "error_sigmas",
    "phi_of",
    "combine",
]

OUTPUTS_PER_EPOCH = 21  # DESIGN.md "Random values per epoch": 10 Gaussians x 2 + 1 uniform
FIRST_EPOCH_DT_S = 0.1  # specification, "Error Model": dt = 0.1 s in the first epoch
DOP_FLOOR = 1e-3  # specification, "Error Model": max(H_o, 1e-3)
DOP_RATIO_MIN = 0.5  # specification, "Error Model": clamp(.., 0.5, 20)
DOP_RATIO_MAX = 20.0
PPM_KM_TO_M = 1e-3  # 1 ppm of 1 km is 1 mm
_TWO_POW_32 = 4294967296.0
_TWO_PI = 2.0 * np.pi


@dataclass(frozen=True)
class EpochDraws:
    """The 11 values of each of m epochs, in the specification's order."""

    g_u: np.ndarray  # (m, 3)
    g_white: np.ndarray  # (m, 3)
    g_z: np.ndarray  # (m, 3)
    slip_uniform: np.ndarray  # (m,)
    g_t: np.ndarray  # (m,)


@functools.lru_cache(maxsize=8)
def _state_table(config: ErrorConfig) -> np.ndarray:
    """The state parameters (STATE_PARAM_KEYS, rows) by fix-state code (columns 0..5: no_fix
    takes single's, code 3 is unused and NaN), read-only, built once per configuration."""
    out = np.full((len(STATE_PARAM_KEYS), 6), np.nan)
    for code, params in (
        (RTK_FIXED, config.rtk_fixed),
        (RTK_FLOAT, config.rtk_float),
        (DGPS, config.dgps),
        (SINGLE, config.single),
        (NO_FIX, config.single),
    ):
        out[:, code] = [getattr(params, k) for k in STATE_PARAM_KEYS]
    out.flags.writeable = False
    return out


def draw_epochs(rng: Pcg32, m: int) -> EpochDraws:
    """Draw the values of m epochs as one block of 21 m outputs (DESIGN.md "Random values per epoch").

    Decoded per position in the epoch (the uniform sits between Gaussians), with the expressions
    of :meth:`Pcg32.gaussians`, so each value equals the stream's scalar draw.
    """
    u = rng.u32(OUTPUTS_PER_EPOCH * m).astype(np.float64).reshape(m, OUTPUTS_PER_EPOCH)
    # Gaussians at outputs (0, 1), (2, 3), ... (16, 17) and (19, 20): Box-Muller, cosine branch;
    # the uniforms and the cosines of their angles by a kernel, log by numpy (on the same
    # layout as ever: the logs of strided columns of u)
    cos_a = np.empty((m, 10))
    _uniforms_and_cosines(u, cos_a)
    log_u = np.empty((m, 10))
    np.log(u[:, 0:18:2], out=log_u[:, :9])
    np.log(u[:, 19], out=log_u[:, 9])
    g = np.empty((m, 10))
    _box_muller_rows(log_u, cos_a, g)
    return EpochDraws(
        g_u=g[:, 0:3], g_white=g[:, 3:6], g_z=g[:, 6:9], slip_uniform=u[:, 18].copy(), g_t=g[:, 9]
    )


@kernel(2, 2, libm=True)
def _uniforms_and_cosines(u, cos_a):
    """draw_epochs before its logarithms, on rows (m, 21): the outputs (as float64) become
    U = (output + 0.5) / 2^32 in place, and cos_a (m, 10) = cos(2 pi U) of the Gaussians'
    second uniforms (outputs 1, 3, ... 17 and 20; the cosine numpy's or, compiled, the C
    library's: a ``libm`` kernel)."""
    u[:] = (u + 0.5) / _TWO_POW_32
    cos_a[:, :9] = np.cos(_TWO_PI * u[:, 1:18:2])
    cos_a[:, 9] = np.cos(_TWO_PI * u[:, 20])


@kernel(2, 2, 2)
def _box_muller_rows(log_u, cos_a, g):
    """g = sqrt(-2 ln U1) cos(2 pi U2) of ln U1 and cos(2 pi U2), on rows."""
    g[:] = np.sqrt(-2.0 * log_u) * cos_a


def error_sigmas(
    config: ErrorConfig, fix, lock_age_s, hdop, vdop, hdop_open, vdop_open, multipath_index
) -> dict[str, np.ndarray]:
    """Standard deviations of the three terms per epoch (specification, "Error Model").

    Returns ``sigma_gm_m``, ``sigma_white_m``, ``sigma_mp_m`` (m, 3), ``k_h``, ``k_v``, ``tau_s``
    (m,). ``lock_age_s`` is t - t_lock (only read in rtk_float). With noise off the sigmas are
    zero (k_h, k_v and tau_s are reported all the same). The float convergence (an exp) runs
    in numpy, the rest in one kernel (:func:`_sigma_rows`).
    """
    table, consts = _tables(config)
    code = int(fix[0]) if getattr(fix, "shape", None) == (1,) else -1
    if 0 <= code < table.shape[1]:  # one epoch: its column and rtk by its code
        m = 1
        cols = table[:, code : code + 1].copy()
        if code == RTK_FLOAT:  # the float convergence (as below, on the one row)
            s_h, s_v = cols[_COL["sigma_h_m"]], cols[_COL["sigma_v_m"]]
            decay = np.exp(
                -np.asarray(lock_age_s, dtype=np.float64) / cols[_COL["convergence_tau_s"]]
            )
            s_h += (cols[_COL["initial_sigma_h_m"]] - s_h) * decay
            s_v += (cols[_COL["initial_sigma_v_m"]] - s_v) * decay
        rtk = _RTK_ROWS[code in (RTK_FLOAT, RTK_FIXED)]
    else:
        fix = np.asarray(fix, dtype=np.intp)
        m = fix.shape[0]
        cols, rtk = _float_convergence(table, fix, lock_age_s)
    sig = np.empty((3, m, 3))
    k = np.empty((2, m))
    f64 = np.float64
    _sigma_rows(
        cols,
        np.ascontiguousarray(hdop, dtype=f64),
        np.ascontiguousarray(vdop, dtype=f64),
        np.ascontiguousarray(hdop_open, dtype=f64),
        np.ascontiguousarray(vdop_open, dtype=f64),
        np.ascontiguousarray(multipath_index, dtype=f64),
        rtk,
        consts,
        sig,
        k,
    )
    return {
        "sigma_gm_m": sig[0],
        "sigma_white_m": sig[1],
        "sigma_mp_m": sig[2],
        "k_h": k[0],
        "k_v": k[1],
        "tau_s": cols[_COL["tau_s"]],
    }


# rtk of one epoch (not in rtk_float or rtk_fixed, in); writeable: a kernel's signature
# (numba types a read-only array apart)
_RTK_ROWS = (np.zeros(1), np.ones(1))


def _float_convergence(table, fix, lock_age_s) -> tuple[np.ndarray, np.ndarray]:
    """The epochs' state parameters (K, m; a new array, sigma_h and sigma_v after the float
    convergence where in rtk_float) and rtk (m,) 1.0 in rtk_float and rtk_fixed."""
    cols = table[:, fix]  # the state parameters of each epoch (a new array)
    is_float = fix == RTK_FLOAT
    if np.count_nonzero(is_float):
        # float convergence from the initial values since the lock started
        s_h, s_v = cols[_COL["sigma_h_m"]], cols[_COL["sigma_v_m"]]
        decay = np.exp(
            -np.asarray(lock_age_s, dtype=np.float64)[is_float]
            / cols[_COL["convergence_tau_s"]][is_float]
        )
        s_h[is_float] += (cols[_COL["initial_sigma_h_m"]][is_float] - s_h[is_float]) * decay
        s_v[is_float] += (cols[_COL["initial_sigma_v_m"]][is_float] - s_v[is_float]) * decay
    return cols, (is_float | (fix == RTK_FIXED)).astype(np.float64)


_COL = {key: i for i, key in enumerate(STATE_PARAM_KEYS)}  # rows of _state_table
_S_H, _S_V, _W_H, _W_V, _MP_H = (
    _COL[k] for k in ("sigma_h_m", "sigma_v_m", "white_h_m", "white_v_m", "multipath_h_m")
)
_last_tables: tuple = (None, None, None)  # the last configuration and its two tables


def _tables(config: ErrorConfig) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_state_table` and :func:`_sigma_rows`' constants of ``config``, the last ones
    kept by identity (an epoch a call would otherwise hash the configuration each time; one
    tuple, replaced whole, so a thread never reads another configuration's tables)."""
    global _last_tables
    last = _last_tables
    if last[0] is not config:
        baseline_h = PPM_KM_TO_M * config.ppm_h * config.baseline_km
        baseline_v = PPM_KM_TO_M * config.ppm_v * config.baseline_km
        noise = 1.0 if config.noise else 0.0
        consts = np.array([baseline_h, baseline_v, config.multipath_vertical_ratio, noise])
        last = _last_tables = (config, _state_table(config), consts)
    return last[1], last[2]


@kernel(2, 1, 1, 1, 1, 1, 1, 1, 3, 2)
def _sigma_rows(cols, hdop, vdop, hdop_o, vdop_o, mi, rtk, consts, sig, k):
    """The error model's arithmetic (module docstring) on m epochs: cols (K, m) the state
    parameters (rows STATE_PARAM_KEYS; sigma_h, sigma_v after the float convergence), the DOPs
    H, V, H_o, V_o, the multipath index m and rtk (1.0 in rtk_float and rtk_fixed), each (m,);
    consts = (1e-3 ppm_h B, 1e-3 ppm_v B, r_V, noise) -> sig (3, m, 3) = sigma_gm, sigma_w,
    sigma_mp (zero with noise 0) and k (2, m) = k_H, k_V; clamp(r, 0.5, 20) as max then min."""
    s_h = np.where(rtk != 0.0, cols[_S_H] + consts[0], cols[_S_H])
    s_v = np.where(rtk != 0.0, cols[_S_V] + consts[1], cols[_S_V])
    k_h = np.minimum(np.maximum(hdop / np.maximum(hdop_o, DOP_FLOOR), DOP_RATIO_MIN), DOP_RATIO_MAX)
    k_v = np.minimum(np.maximum(vdop / np.maximum(vdop_o, DOP_FLOOR), DOP_RATIO_MIN), DOP_RATIO_MAX)
    k[0] = k_h
    k[1] = k_v
    if consts[3] == 0.0:
        sig[:] = 0.0
        return
    sig[0, :, 0] = s_h * k_h
    sig[0, :, 1] = sig[0, :, 0]
    sig[0, :, 2] = s_v * k_v
    sig[1, :, 0] = cols[_W_H] * k_h
    sig[1, :, 1] = sig[1, :, 0]
    sig[1, :, 2] = cols[_W_V] * k_v
    sig[2, :, 0] = mi * cols[_MP_H]
    sig[2, :, 1] = sig[2, :, 0]
    sig[2, :, 2] = sig[2, :, 0] * consts[2]


def phi_of(dt_s: np.ndarray, tau_s, first: np.ndarray) -> np.ndarray:
    """phi = exp(-dt / tau), 0 on the first epoch of the log (specification, "Error Model").

    One epoch, not the log's first, with tau a float or one value (the receiver's streaming
    step): phi is remembered by (dt, tau) (dt is the same 0.1 s epoch after epoch, tau one per
    fix state), the array computed once by the same expression and shared: callers read it
    and never write into it."""
    if getattr(dt_s, "shape", None) == (1,) and not first[0]:
        tau = tau_s if type(tau_s) is float else _one_value(tau_s)
        if tau is not None and tau != 0.0:  # (a signed zero tau would share its key)
            key = (float(dt_s[0]), tau)
            phi = _PHI_ONE.get(key)
            if phi is None:
                phi = np.exp(-np.asarray(dt_s, dtype=np.float64) / tau_s)
                if len(_PHI_ONE) >= _PHI_ONE_SIZE:
                    _PHI_ONE.clear()
                _PHI_ONE[key] = phi
            return phi
    phi = np.exp(-np.asarray(dt_s, dtype=np.float64) / tau_s)
    if phi.shape == (1,) and not first[0]:  # one epoch, not the log's first: phi itself
        return phi
    return np.where(first, 0.0, phi)


_PHI_ONE: dict[tuple[float, float], np.ndarray] = {}  # phi_of of one epoch by (dt, tau)
_PHI_ONE_SIZE = 64  # at most this many kept (then forgotten at once)


def _one_value(tau_s) -> float | None:
    """tau as a float where it is a float64 array of one value, else None."""
    if type(tau_s) is np.ndarray and tau_s.shape == (1,) and tau_s.dtype == np.float64:
        return float(tau_s[0])
    return None


def combine(sig: dict, u: np.ndarray, g_white: np.ndarray, z: np.ndarray):
    """e = sigma_gm u + sigma_w g'' + sigma_mp z and sigma = sqrt(sum of squares), (m, 3) each
    (one kernel, :func:`_combine_rows`)."""
    gm, w, mp = sig["sigma_gm_m"], sig["sigma_white_m"], sig["sigma_mp_m"]
    rows = (np.ascontiguousarray(x, dtype=np.float64) for x in (gm, w, mp, u, g_white, z))
    e, sigma = np.empty(gm.shape), np.empty(gm.shape)
    _combine_rows(*rows, e, sigma)
    return e, sigma


@kernel(2, 2, 2, 2, 2, 2, 2, 2)
def _combine_rows(gm, w, mp, u, g, z, e, sigma):
    """:func:`combine` on rows (m, 3): e = gm u + w g + mp z, sigma = sqrt(gm^2 + w^2 + mp^2)
    (x^2 as x x: numpy's square)."""
    e[:] = gm * u + w * g + mp * z
    sigma[:] = np.sqrt(gm * gm + w * w + mp * mp)
