"""The barometer against the ICAO standard atmosphere, its Gauss-Markov bias and its stream."""

import numpy as np
import orjson
import pytest

from conftest import circle_truth, layout_rows, stationary_truth
from navsense.config import load_config
from navsense.config.typed.baro import BaroConfig
from navsense.geo import Georeference
from navsense.rng import Pcg32
from navsense.sensors.barometer import (
    BARO_SEED_OFFSET,
    BARO_SEQUENCE,
    BarometerModel,
    pressure_altitude_m,
    pressure_pa,
)
from navsense.truth.states import TruthStates
from navsense.vehicles import VEHICLES

POLARIS = VEHICLES["polaris"]
Pa = 1.0
mm = 1e-3
m = 1.0


def _cfg_dict(
    noise=True,
    seed=42,
    hz=25.0,
    white=1.0,
    bias=10.0,
    tau=300.0,
    base=0.0,
    position=(0.0, 0.0, 0.0),
    mount="chassis",
):
    overrides = {
        "seed": seed,
        "noise": noise,
        "mount_frame": mount,
        "delay_s": 0.05,
        "baro": {
            "enabled": True,
            "hz": hz,
            "noise_std_pa": white,
            "bias_sigma_pa": bias,
            "bias_tau_s": tau,
            "base_altitude_m": base,
            "position_flu_m": list(position),
        },
    }
    # an effective configuration: every key, the Maxxum's defaults under these
    return load_config(vehicle="maxxum", overrides=overrides)


def _cfg(**kw) -> BaroConfig:
    """The typed section of :func:`_cfg_dict`."""
    return BaroConfig.from_validated(_cfg_dict(**kw))


def _still(n, rate_hz, height_m=0.0):
    """A parked vehicle at ENU up ``height_m``, n steps of a physics clock at ``rate_hz``."""
    p = np.tile([0.0, 0.0, height_m], (n, 1))
    q = np.tile([0.0, 0.0, 0.0, 1.0], (n, 1))
    z = np.zeros((n, 3))
    return TruthStates(
        step0=0,
        p_m=p,
        q_xyzw=q,
        v_mps=z,
        w_radps=z.copy(),
        c_m=p.copy(),
        reset=np.zeros(n, dtype=bool),
        rate_hz=rate_hz,
    )


# ------------------------------------------------------------------ standard atmosphere
def test_standard_atmosphere_at_0_and_1000_m():
    assert pressure_pa(0.0) == 101325.0 * Pa
    # ICAO Doc 7488 / ISO 2533 table: 89 874.6 Pa at 1000 m geopotential
    assert abs(pressure_pa(1000.0) - 89874.6 * Pa) < 0.05 * Pa
    assert abs(pressure_pa(-500.0) - 107477.8 * Pa) < 0.5 * Pa  # ISA table, 107 478 Pa


def test_pressure_altitude_is_the_inverse():
    h = np.array([-300.0, 0.0, 214.884, 1000.0, 4000.0, 10999.0])
    np.testing.assert_allclose(pressure_altitude_m(pressure_pa(h)), h, rtol=0, atol=1e-6 * mm)
    assert pressure_altitude_m(101325.0) == 0.0


# ---------------------------------------------------------------------- heights and sites
def test_noise_off_is_the_standard_pressure_at_the_sensor_height_without_a_site():
    truth = _still(30, 120.0, height_m=2.5)
    block = BarometerModel(
        _cfg(noise=False, base=100.0, position=(0.0, 0.0, 1.0)), POLARIS, None
    ).process(truth)
    np.testing.assert_array_equal(block["pressure_pa"], np.full(7, pressure_pa(103.5)))
    np.testing.assert_allclose(block["pressure_altitude_m"], 103.5 * m, rtol=0, atol=1e-6 * mm)


def test_acre_uses_the_navd88_height():
    acre = Georeference.acre()
    truth = stationary_truth(10, position=(12.0, -30.0, 0.6))
    block = BarometerModel(_cfg(noise=False), POLARIS, acre).process(truth)
    h = 705 * 1200 / 3937 + 0.6  # NAVD88: Z0 = 705 US survey feet, plus ENU up
    np.testing.assert_allclose(block["pressure_altitude_m"], h, rtol=0, atol=1e-6 * mm)
    assert abs(block["pressure_pa"][0] - pressure_pa(h)) < 1e-9 * Pa


def test_lever_arm_in_base_footprint_moves_the_sensor_down():
    truth = _still(5, 120.0, height_m=0.0)
    block = BarometerModel(
        _cfg(noise=False, base=0.0, mount="base_footprint", position=(0.0, 0.0, 0.3)), POLARIS, None
    ).process(truth)
    # base_footprint z 0.3 m is 0.3 - cg_height (0.60) from the chassis origin
    np.testing.assert_allclose(block["pressure_altitude_m"], -0.3, rtol=0, atol=1e-6 * mm)


# ----------------------------------------------------------------------- noise statistics
def test_stream_order_bias_then_white_and_stationary_start():
    tau, sb, sw = 5.0, 10.0, 1.0
    truth = _still(12, 120.0)
    block = BarometerModel(
        _cfg(seed=3, hz=120.0, white=sw, bias=sb, tau=tau, base=0.0), POLARIS, None
    ).process(truth)
    g = Pcg32(3 + BARO_SEED_OFFSET, BARO_SEQUENCE).gaussians(24).reshape(12, 2)
    a = np.exp(-(1 / 120.0) / tau)
    b = [sb * g[0, 0]]  # the first sample: a draw from the stationary distribution
    for k in range(1, 12):
        b.append(a * b[-1] + sb * np.sqrt(1 - a * a) * g[k, 0])
    np.testing.assert_allclose(block["bias_pa"], b, rtol=0, atol=1e-12 * Pa)
    np.testing.assert_allclose(
        block["pressure_pa"], 101325.0 + np.array(b) + sw * g[:, 1], rtol=0, atol=1e-9 * Pa
    )


def test_white_noise_sigma():
    sigma = 1.5
    n = 20000
    block = BarometerModel(_cfg(hz=10.0, white=sigma, bias=0.0), POLARIS, None).process(
        _still(n, 10.0)
    )
    e = block["pressure_pa"] - 101325.0
    assert abs(e.std() - sigma) < 4 * sigma / np.sqrt(2 * n)
    assert abs(e.mean()) < 4 * sigma / np.sqrt(n)


def test_bias_stationary_sigma_and_lag_tau_autocorrelation():
    """sigma_b over a long run and rho(tau) = exp(-1); tolerances from the sample size.

    For a Gauss-Markov series of length T, the sample variance has a relative standard deviation
    of about sqrt(2 tau / T) and the lag-tau autocorrelation about sqrt(tau / T) (Bartlett);
    four of each are allowed.
    """
    tau, sb, hz = 2.0, 10.0, 10.0
    n = 200_000  # 20 000 s = 10 000 tau
    block = BarometerModel(_cfg(hz=hz, white=0.0, bias=sb, tau=tau), POLARIS, None).process(
        _still(n, hz)
    )
    b = block["bias_pa"]
    T = n / hz
    assert abs(b.var() / sb**2 - 1.0) < 4 * np.sqrt(2 * tau / T)
    lag = int(round(tau * hz))
    x = b - b.mean()
    rho = np.dot(x[:-lag], x[lag:]) / np.dot(x, x)
    assert abs(rho - np.exp(-1.0)) < 4 * np.sqrt(tau / T)


def test_bias_starts_stationary_across_seeds():
    """The first sample's bias over many seeds has sigma_b (started from the stationary law)."""
    sb = 10.0
    first = np.array(
        [
            BarometerModel(_cfg(seed=s, white=0.0, bias=sb), POLARIS, None).process(
                _still(1, 120.0)
            )["bias_pa"][0]
            for s in range(800)
        ]
    )
    assert abs(first.std() - sb) < 4 * sb / np.sqrt(2 * first.size)


def test_noise_off_draws_the_same_values():
    on = BarometerModel(_cfg(), POLARIS, None)
    off = BarometerModel(_cfg(noise=False), POLARIS, None)
    truth = circle_truth(200)
    on.process(truth)
    block = off.process(truth)
    assert on._rng.state == off._rng.state
    np.testing.assert_array_equal(block["bias_pa"], 0.0)


# --------------------------------------------------------- batch = chunks = steps, rows
def _run(model, truth, size):
    rows = []
    for part in truth.chunks(size):
        rows.extend(layout_rows(model, model.process(part)))
    return b"\n".join(orjson.dumps(r) for r in rows)


@pytest.mark.parametrize("site", ["acre", "local", "none"])
def test_batch_chunks_steps_give_identical_rows(site):
    georef = {
        "acre": Georeference.acre(),
        "local": Georeference.local(47.0, 8.0, 500.0),
        "none": None,
    }[site]
    truth = circle_truth(700, radius_m=40.0)
    outs = [
        _run(BarometerModel(_cfg(hz=25.0, tau=3.0), POLARIS, georef), truth, size)
        for size in (len(truth), 61, 1)
    ]
    assert outs[0] == outs[1] == outs[2]
    assert outs[0].count(b"\n") + 1 == 146  # 25 Hz over 700 / 120 s


def test_rows_layout():
    model = BarometerModel(_cfg(), POLARIS, None)
    rows = layout_rows(model, model.process(_still(10, 120.0)))
    assert list(rows[0]) == ["pressure_pa", "pressure_altitude_m"]
    assert round(rows[0]["pressure_pa"], 2) == rows[0]["pressure_pa"]
    assert round(rows[0]["pressure_altitude_m"], 3) == rows[0]["pressure_altitude_m"]
    assert layout_rows(model, model.process(_still(0, 120.0))) == []


def test_built_from_the_effective_configuration():
    from navsense.config import apply_overrides, load_config
    from navsense.errors import ConfigError

    cfg = load_config()
    assert cfg["baro"]["enabled"] is False
    cfg = apply_overrides(cfg, {"baro.enabled": True})
    block = BarometerModel(BaroConfig.from_validated(cfg), POLARIS, Georeference.acre()).process(
        stationary_truth(120)
    )
    assert block["sample_time_s"].size == 25
    with pytest.raises(ConfigError, match=r"baro\.bias_tau_s = 0 is out of range > 0"):
        apply_overrides(cfg, {"baro.bias_tau_s": 0})
