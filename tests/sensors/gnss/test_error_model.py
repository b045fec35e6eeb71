"""The GNSS error model (specification, "Error Model"; DESIGN.md "Random values per epoch")."""

import math

import numpy as np
import pytest

from navsense.config import load_config
from navsense.config.typed.gnss import ErrorConfig
from navsense.gauss_markov import GaussMarkovStates
from navsense.rng import Pcg32
from navsense.sensors.gnss.error_model import (
    OUTPUTS_PER_EPOCH,
    combine,
    draw_epochs,
    error_sigmas,
    phi_of,
)
from navsense.sensors.gnss.fixstate import DGPS, NO_FIX, RTK_FIXED, RTK_FLOAT, SINGLE

um = 1e-6


@pytest.fixture(scope="module")
def errcfg():
    return ErrorConfig.from_validated(load_config(vehicle="maxxum"))


# --------------------------------------------------------------------------- draws
def test_draws_equal_the_streams_scalar_values_in_order():
    m = 5
    d = draw_epochs(Pcg32(42, 1), m)
    ref = Pcg32(42, 1)
    for k in range(m):
        g = [ref.gaussian() for _ in range(9)]
        u = ref.uniform()
        gt = ref.gaussian()
        assert d.g_u[k].tolist() == g[0:3]
        assert d.g_white[k].tolist() == g[3:6]
        assert d.g_z[k].tolist() == g[6:9]
        assert d.slip_uniform[k] == u
        assert d.g_t[k] == gt


def test_draws_use_21_outputs_an_epoch_however_grouped():
    a, b = Pcg32(7, 1), Pcg32(7, 1)
    whole = draw_epochs(a, 10)
    parts = [draw_epochs(b, n) for n in (3, 0, 1, 6)]
    assert a.state == b.state
    ref = Pcg32(7, 1)
    ref.u32(OUTPUTS_PER_EPOCH * 10)
    assert a.state == ref.state
    np.testing.assert_array_equal(whole.g_t, np.concatenate([p.g_t for p in parts]))
    np.testing.assert_array_equal(whole.g_u, np.concatenate([p.g_u for p in parts]))


# --------------------------------------------------------------------------- Gauss-Markov
def scalar_scan(phi, g, x0):
    x = list(map(float, x0))
    out = []
    for k in range(len(phi)):
        b = math.sqrt(1.0 - phi[k] * phi[k])
        x = [phi[k] * x[j] + b * float(g[k, j]) for j in range(len(x))]
        out.append(x)
    return np.array(out)


def test_states_follow_the_scalar_recursion_and_any_cut_gives_the_same_bits():
    rng = np.random.default_rng(11)
    n = 500
    choices = np.exp(-np.array([0.1, 1 / 120, 0.2]) / np.array([[60.0], [30.0], [8.0]])).ravel()
    phi = np.repeat(rng.choice(choices, 60), rng.integers(1, 20, 60))[:n]
    phi[0] = 0.0
    g = rng.normal(size=(phi.size, 3))
    want = scalar_scan(phi, g, np.zeros(3))
    got = GaussMarkovStates(3).run(phi, g)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    # resumed from the carried state at any cut: the very same bits
    states = GaussMarkovStates(3)
    parts = [states.run(phi[a:b], g[a:b]) for a, b in [(0, 1), (1, 7), (7, 250), (250, phi.size)]]
    np.testing.assert_array_equal(np.concatenate(parts), got)


def test_first_epoch_phi_is_zero():
    phi = phi_of(np.array([0.1, 0.1]), np.array([60.0, 60.0]), np.array([True, False]))
    assert phi[0] == 0.0 and phi[1] == math.exp(-0.1 / 60.0)


def test_scan_is_stationary_with_unit_variance():
    n = 200_000
    phi = np.full(n, math.exp(-0.1 / 8.0))
    phi[0] = 0.0
    g = Pcg32(5, 1).gaussians(n).reshape(n, 1)
    x = GaussMarkovStates(1).run(phi, g)[:, 0]
    # effective sample size n (1 - phi) / (1 + phi) ~ 1250: 5 sigma of the variance estimate
    n_eff = n * (1 - phi[1]) / (1 + phi[1])
    assert abs(x.var() - 1.0) < 5 * math.sqrt(2.0 / n_eff)


# --------------------------------------------------------------------------- sigmas
def sigmas(cfg, fix, lock_age=100.0, h=1.0, v=1.5, ho=1.0, vo=1.5, mi=0.2):
    n = len(fix)
    full = lambda x: np.full(n, float(x))
    return error_sigmas(
        cfg, np.array(fix), full(lock_age), full(h), full(v), full(ho), full(vo), full(mi)
    )


def test_state_sigmas_with_baseline_and_multipath(errcfg):
    s = sigmas(errcfg, [RTK_FIXED, DGPS, SINGLE, NO_FIX])
    # rtk_fixed: 0.008 + 1e-3 * 1 ppm * 5 km;  up 0.015 + 1e-3 * 1.5 * 5
    np.testing.assert_allclose(s["sigma_gm_m"][0], [0.013, 0.013, 0.0225], rtol=1e-14)
    np.testing.assert_allclose(
        s["sigma_gm_m"][1], [0.35, 0.35, 0.7], rtol=1e-14
    )  # no baseline term
    np.testing.assert_allclose(s["sigma_gm_m"][2], [1.0, 1.0, 2.0], rtol=1e-14)
    np.testing.assert_array_equal(s["sigma_gm_m"][3], s["sigma_gm_m"][2])  # no_fix = single
    np.testing.assert_allclose(s["sigma_white_m"][0], [0.003, 0.003, 0.006], rtol=1e-14)
    np.testing.assert_allclose(
        s["sigma_mp_m"][0], [0.2 * 0.015, 0.2 * 0.015, 0.2 * 0.015 * 1.5], rtol=1e-14
    )
    np.testing.assert_allclose(s["sigma_mp_m"][2], [0.3, 0.3, 0.45], rtol=1e-14)
    assert s["tau_s"].tolist() == [60.0, 120.0, 300.0, 300.0]


def test_float_converges_from_the_initial_values(errcfg):
    ages = np.array([0.0, 30.0, 1e6])
    s = error_sigmas(
        errcfg,
        np.full(3, RTK_FLOAT),
        ages,
        np.ones(3),
        np.ones(3),
        np.ones(3),
        np.ones(3),
        np.zeros(3),
    )
    base_h = 0.1 + (0.4 - 0.1) * np.exp(-ages / 30.0) + 0.005
    base_v = 0.2 + (0.8 - 0.2) * np.exp(-ages / 30.0) + 0.0075
    np.testing.assert_allclose(s["sigma_gm_m"][:, 0], base_h, rtol=1e-14)
    np.testing.assert_allclose(s["sigma_gm_m"][:, 2], base_v, rtol=1e-14)


def test_dop_ratios_are_clamped(errcfg):
    s = error_sigmas(
        errcfg,
        np.full(4, SINGLE),
        np.zeros(4),
        np.array([3.0, 99.99, 0.2, 1.0]),
        np.array([3.0, 99.99, 0.2, 1.0]),
        np.array([1.5, 1.0, 1.0, 0.0]),
        np.array([1.5, 1.0, 1.0, 0.0]),
        np.zeros(4),
    )
    np.testing.assert_allclose(s["k_h"], [2.0, 20.0, 0.5, 20.0])  # 1 / max(0, 1e-3) = 1000 -> 20
    np.testing.assert_allclose(s["sigma_gm_m"][:, 0], [2.0, 20.0, 0.5, 20.0])
    np.testing.assert_allclose(s["sigma_white_m"][:, 2], 0.6 * np.array([2.0, 20.0, 0.5, 20.0]))


def test_noise_off_zeroes_the_sigmas(errcfg):
    cfg = load_config(vehicle="maxxum", overrides={"noise": False})
    off = ErrorConfig.from_validated(cfg)
    s = sigmas(off, [RTK_FIXED, SINGLE])
    for key in ("sigma_gm_m", "sigma_white_m", "sigma_mp_m"):
        assert (s[key] == 0.0).all()
    e, sigma = combine(s, np.ones((2, 3)), np.ones((2, 3)), np.ones((2, 3)))
    assert (e == 0.0).all() and (sigma == 0.0).all()


def test_combine(errcfg):
    s = sigmas(errcfg, [RTK_FIXED])
    u, w, z = (
        np.array([[1.0, -2.0, 0.5]]),
        np.array([[0.3, 0.1, -1.0]]),
        np.array([[2.0, 0.0, 1.0]]),
    )
    e, sigma = combine(s, u, w, z)
    want = s["sigma_gm_m"] * u + s["sigma_white_m"] * w + s["sigma_mp_m"] * z
    np.testing.assert_array_equal(e, want)
    np.testing.assert_allclose(
        sigma**2, s["sigma_gm_m"] ** 2 + s["sigma_white_m"] ** 2 + s["sigma_mp_m"] ** 2, rtol=1e-14
    )


# --------------------------------------------------------------------------- one epoch = batch
def same_bytes(one, whole):
    """Per-epoch results (each of leading length 1) concatenated equal ``whole`` in raw bytes."""
    assert all(
        x.shape[0] == 1 and x.shape[1:] == whole.shape[1:] and x.dtype == whole.dtype for x in one
    )
    return np.concatenate(one).tobytes() == whole.tobytes()


@pytest.mark.parametrize("compiled", [False, True])
def test_one_epoch_draws_equal_the_block_bit_for_bit(monkeypatch, compiled):
    """One epoch a call (its uniforms, angles and Box-Muller products as kernels, compiled or
    not) equals the block as numpy, bit for bit."""
    import navsense.kernels as kernels

    if compiled:
        pytest.importorskip("numba")
    n = 700  # 14 700 outputs: many read-ahead blocks of the stream (1024 outputs) and their seams
    a, b = Pcg32(23, 1), Pcg32(23, 1)
    whole = draw_epochs(a, n)
    monkeypatch.setattr(kernels, "_on", compiled)
    steps = [draw_epochs(b, 1) for _ in range(n)]
    monkeypatch.setattr(kernels, "_on", False)
    assert a.state == b.state
    for key in ("g_u", "g_white", "g_z", "slip_uniform", "g_t"):
        assert same_bytes([getattr(d, key) for d in steps], getattr(whole, key)), key
    # one epoch after blocks of other sizes (the stream at any position)
    c = Pcg32(23, 1)
    parts = [draw_epochs(c, k) for k in (3, 1, 1, 50, 1, 2, 1)]
    got = np.concatenate([p.g_t for p in parts])
    assert got.tobytes() == whole.g_t[:59].tobytes()


def epoch_inputs(n, seed):
    """Inputs of error_sigmas over n epochs: every fix state, float locks young and old, DOP ratios
    inside and outside the clamp (and H_o = 0, NaN DOP), multipath 0 .. 1."""
    rng = np.random.default_rng(seed)
    fix = rng.choice(np.array([NO_FIX, SINGLE, DGPS, RTK_FIXED, RTK_FLOAT], dtype=np.int8), n)
    lock_age = np.where(np.isin(fix, (RTK_FIXED, RTK_FLOAT)), rng.uniform(0.0, 200.0, n), np.nan)
    lock_age[:2] = 0.0
    dops = [rng.choice([0.2, 0.7, 1.3, 3.1, 99.99], n) for _ in range(2)]
    dops_open = [rng.choice([0.0, 0.6, 1.1, 2.0], n) for _ in range(2)]
    dops[0][5] = np.nan
    dops_open[1][6] = np.nan
    mi = rng.choice([0.0, 0.25, 0.61, 1.0], n)
    return fix, lock_age, dops[0], dops[1], dops_open[0], dops_open[1], mi


@pytest.mark.parametrize("noise, compiled", [(True, False), (False, False), (True, True)])
def test_one_epoch_sigmas_equal_the_array_path(monkeypatch, noise, compiled):
    """One epoch a call equals the block, and the compiled kernel (error_model._sigma_rows)
    equals numpy bit for bit, NaN DOPs and every fix state included."""
    import navsense.kernels as kernels

    if compiled:
        pytest.importorskip("numba")
    cfg = ErrorConfig.from_validated(load_config(vehicle="maxxum", overrides={"noise": noise}))
    inputs = epoch_inputs(2000, 5)
    whole = error_sigmas(cfg, *inputs)
    monkeypatch.setattr(kernels, "_on", compiled)
    steps = [error_sigmas(cfg, *(x[k : k + 1] for x in inputs)) for k in range(2000)]
    monkeypatch.setattr(kernels, "_on", False)
    assert set(steps[0]) == set(whole)
    for key, value in whole.items():
        assert same_bytes([s[key] for s in steps], value), key
    assert set(inputs[0].tolist()) == {NO_FIX, SINGLE, DGPS, RTK_FIXED, RTK_FLOAT}


def test_one_epoch_phi_equals_the_array_path(errcfg):
    rng = np.random.default_rng(9)
    n = 300
    dt = rng.choice([0.1, 1 / 120, 17 / 120, 2.5], n)
    tau = rng.choice([60.0, 120.0, 300.0, 8.0], n)
    first = np.zeros(n, dtype=bool)
    first[0] = True  # phi = 0 on the first epoch of the log
    for t in (tau, errcfg.multipath_tau_s):  # per epoch, and one float for all
        whole = phi_of(dt, t, first)
        steps = [
            phi_of(dt[k : k + 1], t if isinstance(t, float) else t[k : k + 1], first[k : k + 1])
            for k in range(n)
        ]
        assert same_bytes(steps, whole) and steps[0][0] == 0.0


def test_one_epoch_phi_remembered_equals_the_array_path():
    """phi_of of one epoch remembers phi by (dt, tau): the values of the array path, after
    the memory is full and forgotten (more than 64 pairs), for a zero and a signed zero dt,
    and each tau's own value (an array of one, or a float)."""
    from navsense.sensors.gnss import error_model

    rng = np.random.default_rng(21)
    dt = np.concatenate([rng.choice([0.1, 1 / 120, 0.0, -0.0], 300), rng.uniform(0.01, 3, 300)])
    tau = rng.choice([60.0, 120.0, 300.0, 8.0, 1e-300], dt.size)
    first = np.zeros(dt.size, dtype=bool)
    whole = phi_of(dt, tau, first)
    for _ in range(2):  # the second time from the memory where it kept them
        steps = [phi_of(dt[k : k + 1], tau[k : k + 1], first[k : k + 1]) for k in range(dt.size)]
        assert same_bytes(steps, whole)
        steps = [phi_of(dt[k : k + 1], float(tau[k]), first[k : k + 1]) for k in range(dt.size)]
        assert same_bytes(steps, whole)
    assert 0 < len(error_model._PHI_ONE) <= error_model._PHI_ONE_SIZE
