"""Error models a user can cite (issue 30 item 3): the barometer's absolute offset, temperature
coefficient and weather drift, the BMP388/BMP390 presets and the aided INS's IMU grades.

External truths: the datasheet figures (typed here from Bosch's and the makers' sheets, not read
from the presets), the Gauss-Markov process's stationary variance and autocorrelation, the
PCG32 stream of the specification's generator; invariants: defaults leave every stream and
value as before, batch = chunks = steps, noise off = truth, an explicit key beats a preset.
"""

from __future__ import annotations

import math

import numpy as np
import orjson
import pytest

from conftest import layout_rows
from navsense.config import load_config
from navsense.config.typed.baro import BaroConfig
from navsense.errors import ConfigError
from navsense.rng import Pcg32
from navsense.sensors.barometer import BarometerModel, pressure_pa
from navsense.truth.states import TruthStates
from navsense.vehicles import VEHICLES

POLARIS = VEHICLES["polaris"]


def _cfg(noise=True, seed=42, hz=25.0, **baro) -> BaroConfig:
    base = {"enabled": True, "hz": hz, "noise_std_pa": 0.0, "bias_sigma_pa": 0.0}
    overrides = {"seed": seed, "noise": noise, "baro": {**base, **baro}}
    return BaroConfig.from_validated(load_config(vehicle="maxxum", overrides=overrides))


def _still(n: int, rate_hz: float = 120.0) -> TruthStates:
    z = np.zeros((n, 3))
    return TruthStates(
        0,
        z,
        np.tile([0.0, 0.0, 0.0, 1.0], (n, 1)),
        z,
        z.copy(),
        z.copy(),
        np.zeros(n, bool),
        rate_hz=rate_hz,
    )


P0 = float(pressure_pa(0.0))


# ----------------------------------------------------------------------------- barometer
def test_offset_is_one_draw_of_its_own_stream_per_run():
    """o = sigma_o g_o, g_o the first Gaussian of Pcg32(seed + 8011, 18); the same at every
    sample; the earlier streams do not move."""
    for seed in (1, 42, 999):
        model = BarometerModel(_cfg(seed=seed, offset_sigma_pa=50.0), POLARIS, None)
        block = model.process(_still(600))
        g = Pcg32(seed + 8011, 18).gaussians(1)[0]
        np.testing.assert_allclose(block["pressure_pa"] - P0, 50.0 * g, atol=1e-9)
        assert model.episode_info() == {"baro_offset_pa": 50.0 * g}
        plain = BarometerModel(_cfg(seed=seed), POLARIS, None)
        plain.process(_still(600))
        assert plain._rng.state == model._rng.state  # the bias/white stream: the same draws


def test_offsets_across_runs_have_the_configured_sigma():
    draws = [
        BarometerModel(_cfg(seed=s, offset_sigma_pa=50.0), POLARIS, None).offset_pa
        for s in range(2000)
    ]
    # sample standard deviation of 2000 Gaussians: relative error ~ 1 / sqrt(2 n) = 1.6 %
    assert np.std(draws) == pytest.approx(50.0, rel=0.05)
    assert abs(np.mean(draws)) < 4 * 50.0 / math.sqrt(2000)


def test_temperature_coefficient_is_per_kelvin_from_25_c():
    for t_c, want in ((25.0, 0.0), (35.0, 7.5), (-5.0, -22.5)):
        model = BarometerModel(_cfg(temp_coeff_pa_per_k=0.75, temperature_c=t_c), POLARIS, None)
        np.testing.assert_allclose(model.process(_still(50))["pressure_pa"] - P0, want, atol=1e-9)


def test_weather_is_a_gauss_markov_change_from_the_first_sample():
    """w = 0 at the first sample; after many tau its variance is sigma_W^2, and its
    autocorrelation at lag L is exp(-L / tau) (first-order Gauss-Markov)."""
    sigma, tau = 300.0, 60.0  # a short tau: the statistics of a 1 Hz series of 8 h
    model = BarometerModel(_cfg(hz=1.0, weather_sigma_pa=sigma, weather_tau_s=tau), POLARIS, None)
    w = model.process(_still(10 * 8 * 3600, 10.0))["pressure_pa"] - P0
    assert w[0] == 0.0
    steady = w[20 * int(tau) :]
    n_eff = steady.size / (2 * tau)  # independent samples of a GM series ~ T / (2 tau)
    assert np.std(steady) == pytest.approx(sigma, rel=4 / math.sqrt(2 * n_eff))
    lag = int(tau)
    rho = np.corrcoef(steady[:-lag], steady[lag:])[0, 1]
    assert rho == pytest.approx(math.exp(-1.0), abs=4 / math.sqrt(n_eff))


def test_weather_stream_only_when_set_and_noise_off_is_the_truth():
    assert BarometerModel(_cfg(), POLARIS, None)._weather_rng is None
    on = BarometerModel(_cfg(weather_sigma_pa=300.0), POLARIS, None)
    off = BarometerModel(
        _cfg(
            noise=False,
            weather_sigma_pa=300.0,
            offset_sigma_pa=50.0,
            temp_coeff_pa_per_k=0.75,
            temperature_c=40.0,
        ),
        POLARIS,
        None,
    )
    on.process(_still(1200))
    block = off.process(_still(1200))
    np.testing.assert_array_equal(block["pressure_pa"], P0)  # noise off: the standard pressure
    assert on._weather_rng.state == off._weather_rng.state  # the same draws


def test_batch_chunks_steps_give_identical_rows_with_every_term():
    cfg = _cfg(
        noise_std_pa=1.0,
        bias_sigma_pa=8.0,
        offset_sigma_pa=50.0,
        temp_coeff_pa_per_k=0.6,
        temperature_c=31.0,
        weather_sigma_pa=300.0,
        weather_tau_s=100.0,
    )
    truth = _still(900)
    outs = []
    for size in (len(truth), 77, 1):
        model = BarometerModel(cfg, POLARIS, None)
        rows = [r for part in truth.chunks(size) for r in layout_rows(model, model.process(part))]
        outs.append(b"\n".join(orjson.dumps(r) for r in rows))
    assert outs[0] == outs[1] == outs[2]


# ------------------------------------------------------------------------------- presets
def test_bmp388_and_bmp390_presets_are_bosch_datasheet_figures():
    """BMP388 (BST-BMP388-DS001): absolute +-50 Pa, relative +-8 Pa, TCO 0.75 Pa/K;
    BMP390 (BST-BMP390-DS002): absolute +-50 Pa, relative +-3 Pa, TCO 0.6 Pa/K."""
    for name, (offset, relative, tco) in {
        "bmp388": (50.0, 8.0, 0.75),
        "bmp390": (50.0, 3.0, 0.6),
    }.items():
        cfg = load_config(overrides={"baro.preset": name})["baro"]
        assert (cfg["offset_sigma_pa"], cfg["bias_sigma_pa"], cfg["temp_coeff_pa_per_k"]) == (
            offset,
            relative,
            tco,
        )
        assert cfg["noise_std_pa"] == 1.0 and cfg["weather_sigma_pa"] == 0  # not the preset's


def test_an_explicit_key_beats_the_preset_in_any_layer(tmp_path):
    cfg = load_config(overrides={"baro.preset": "bmp388", "baro.bias_sigma_pa": 2.0})["baro"]
    assert cfg["bias_sigma_pa"] == 2.0 and cfg["offset_sigma_pa"] == 50.0
    path = tmp_path / "c.json"
    path.write_text('{"baro": {"offset_sigma_pa": 5}, "ins": {"drift": {"accel_bias_ug": 7}}}')
    cfg = load_config(path, overrides={"baro.preset": "bmp390", "ins.imu_grade": "tactical"})
    assert cfg["baro"]["offset_sigma_pa"] == 5 and cfg["baro"]["temp_coeff_pa_per_k"] == 0.6
    assert cfg["ins"]["drift"]["accel_bias_ug"] == 7
    assert cfg["ins"]["drift"]["gyro_bias_deg_per_h"] == 0.05


def test_a_run_applies_a_preset_named_by_an_option():
    from navsense.run import prepare_run

    run = prepare_run(scenario="acre-loop", overrides={"baro.preset": "bmp388"}, duration_s=1)
    assert run.cfg["baro"]["offset_sigma_pa"] == 50.0
    run = prepare_run(
        scenario="acre-loop",
        overrides=[
            ("--set", {"baro.preset": "bmp388"}),
            ("--set", {"baro.offset_sigma_pa": 1.0}),
        ],
        duration_s=1,
    )
    assert run.cfg["baro"]["offset_sigma_pa"] == 1.0 and run.cfg["baro"]["bias_sigma_pa"] == 8.0


def test_unknown_preset_is_one_line_naming_the_key():
    with pytest.raises(ConfigError, match="baro.preset"):
        load_config(overrides={"baro.preset": "bmp999"})
    with pytest.raises(ConfigError, match="ins.imu_grade"):
        load_config(overrides={"ins.imu_grade": "military"})


@pytest.mark.parametrize(
    "grade, gyro_bias, arw, accel_bias, vrw",
    [
        # BMI088 DS001: 2 deg/h, 0.014 deg/s/sqrt(Hz), 175 ug/sqrt(Hz)
        ("consumer_mems", 2.0, 0.014 * 60, 1000.0, 175e-6 * 9.80665 * 60),
        # ADIS16465 Rev. C: 2 deg/h, 0.15 deg/sqrt(h), 3.6 ug, 0.012 m/s/sqrt(h)
        ("industrial", 2.0, 0.15, 3.6, 0.012),
        # KVH 1750: 0.05 deg/h, 0.012 deg/sqrt(h), 0.05 mg, 0.12 mg/sqrt(Hz)
        ("tactical", 0.05, 0.012, 50.0, 0.12e-3 * 9.80665 * 60),
        # HG9900: 0.0035 deg/h, 0.002 deg/sqrt(h), 25 ug
        ("navigation", 0.0035, 0.002, 25.0, 0.0),
    ],
)
def test_ins_imu_grades_are_their_datasheets(grade, gyro_bias, arw, accel_bias, vrw):
    drift = load_config(overrides={"ins.imu_grade": grade})["ins"]["drift"]
    assert drift["gyro_bias_deg_per_h"] == pytest.approx(gyro_bias, rel=1e-9)
    assert drift["gyro_arw_deg_per_sqrt_h"] == pytest.approx(arw, rel=2e-3)
    assert drift["accel_bias_ug"] == pytest.approx(accel_bias, rel=1e-9)
    assert drift["accel_vrw_mps_per_sqrt_h"] == pytest.approx(vrw, rel=2e-3)
    # the residual tilt of an aided filter: bias / g (ins_aiding), as the default's 10 ug
    assert drift["tilt_sigma_deg"] == pytest.approx(math.degrees(accel_bias * 1e-6), rel=1e-3)
    assert drift["velocity_sigma_mps"] == 0.014  # the filter's, not the grade's


def test_grades_order_the_dead_reckoning_drift():
    """60 s without aiding: the horizontal 1-sigma per axis grows from navigation to consumer
    grade (navsense.sensors.ins_aiding's closed form V(T))."""
    from navsense.config.typed.ins import InsConfig
    from navsense.sensors.ins_aiding import DriftModel

    sigmas = []
    for grade in ("navigation", "tactical", "industrial", "consumer_mems"):
        cfg = load_config(overrides={"ins.imu_grade": grade, "ins.aiding": "gnss"})
        model = DriftModel(InsConfig.from_validated(cfg).drift)
        sigmas.append(math.sqrt(model.horizontal_variance(60.0)))
    assert sigmas == sorted(sigmas) and sigmas[-1] > 10 * sigmas[0]


# --------------------------------------------------------------------------- magnetometer
def _mag_field(preset: str) -> np.ndarray:
    """Readings (uT) over a full turn, no white noise, with ``mag.preset`` ``preset``."""
    from conftest import circle_truth
    from navsense.config.typed.mag import MagConfig
    from navsense.geo import Georeference
    from navsense.sensors.magnetometer import MagnetometerModel

    overrides = {"mag": {"enabled": True, "noise_std_ut": 0.0, "preset": preset}}
    cfg = MagConfig.from_validated(load_config(vehicle="maxxum", overrides=overrides))
    model = MagnetometerModel(cfg, POLARIS, Georeference.acre())
    truth = circle_truth(int(2 * math.pi * 25.0 / 5.0 * 120), radius_m=25.0, speed_mps=5.0)
    return model.process(truth)["magnetic_field_flu_ut"]


def test_mag_presets_move_the_readings_by_their_iron():
    """|m| over a full turn: the Earth's field's magnitude without a preset (a sphere); the
    uncalibrated installation's hard and soft iron move it by tens of uT, the calibrated one's
    residual by about 1 uT: m = S m_0 + b_hi exactly."""
    from navsense.config.error_presets import MAG_PRESETS

    clean = _mag_field("none")
    earth = np.linalg.norm(clean, axis=1)
    assert np.ptp(earth) < 0.05  # a sphere: one magnitude at every heading
    for name, (lo, hi) in {"uncalibrated": (10.0, 80.0), "calibrated": (0.2, 3.0)}.items():
        got = _mag_field(name)
        preset = MAG_PRESETS[name]
        soft = np.asarray(preset["soft_iron_matrix"]).reshape(3, 3)
        np.testing.assert_allclose(got, clean @ soft.T + preset["hard_iron_ut"], atol=1e-9)
        error = np.abs(np.linalg.norm(got, axis=1) - earth)
        assert lo < error.max() < hi, (name, error.max())


def test_mag_preset_explicit_key_wins():
    cfg = load_config(overrides={"mag.preset": "uncalibrated", "mag.hard_iron_ut": [0, 0, 0]})
    assert cfg["mag"]["hard_iron_ut"] == [0, 0, 0]
    assert cfg["mag"]["soft_iron_matrix"][0] == 1.05
