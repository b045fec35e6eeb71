"""Every range of the configuration rejects the first value outside it (specification
"Parameters": "The game stops with a message when a value is out of its range").

RANGES is transcribed here: the ranges the specification states, and the ones navsense chose
where it states none (standard deviations >= 0, correlation times > 0, ...; see
``navsense config keys``). A meta-test checks that it lists every ranged key of the schema.
"""

import json

import pytest

from navsense.config import SCHEMA, Field, apply_overrides, load_config, lookup, validate
from navsense.config.schema import known_keys
from navsense.errors import ConfigError

INF = None
# key -> (kind, minimum, maximum, minimum excluded)
RANGES = {
    # Specification.
    "delay_s": ("number", 0, 10, False),
    # the sensors' rates: the specification's 1..120 on its 120 Hz clock, navsense's up to
    # the physics rate (issue 30), at most 2000 Hz (the physics rate's own check: navsense.run)
    "physics.hz": ("number", 50, 2000, False),
    "imu.configurable.bandwidth_hz": ("number", 0, INF, False),
    "imu.vibration.random_psd_g2_per_hz": ("vector", 0, INF, False),
    "imu.vibration.random_rms_g": ("vector", 0, 100, False),
    "imu.vibration.random_band_hz": ("vector", 0, INF, False),
    "imu.vibration.engine_idle_rpm": ("number", 0, INF, False),
    "imu.vibration.engine_rpm_per_mps": ("number", 0, INF, False),
    "imu.vibration.engine_order": ("number", 0, INF, True),
    "gnss.hz": ("number", 1, 2000, False),
    "imu.hz": ("number", 1, 2000, False),
    "ins.hz": ("number", 1, 2000, False),
    "gnss.elevation_mask_deg": ("number", 0, 45, False),
    "gnss.corrections.baseline_km": ("number", 0, 200, False),
    "gnss.rtk.reacquire_factor": ("number", 0, 1, False),
    "gnss.rtk.min_clear_satellites": ("integer", 4, INF, False),
    "gnss.rtk.float_min_satellites": ("integer", 4, INF, False),
    "ins.utm_zone": ("integer", 1, 60, False),
    # Chosen by navsense.
    "seed": ("integer", 0, 2**32 - 1, False),
    "gnss.std_m": ("number", 0, INF, False),
    "gnss.cold_ttff_s": ("number", 0, INF, False),
    "gnss.multipath_tau_s": ("number", 0, INF, True),
    "gnss.multipath_vertical_ratio": ("number", 0, INF, False),
    "gnss.rtk.ttf_median_s": ("number", 0, INF, False),
    "gnss.rtk.ttf_log_sigma": ("number", 0, INF, False),
    "gnss.rtk.ttf_multipath_gain": ("number", 0, INF, False),
    "gnss.rtk.reacquire_window_s": ("number", 0, INF, False),
    "gnss.rtk.max_pdop": ("number", 0, INF, True),
    "gnss.rtk.cycle_slip_rate_per_s": ("number", 0, INF, False),
    "gnss.corrections.interval_s": ("number", 0, INF, True),
    "gnss.corrections.latency_s": ("number", 0, INF, False),
    "gnss.corrections.rtk_max_age_s": ("number", 0, INF, False),
    "gnss.corrections.dgps_max_age_s": ("number", 0, INF, False),
    "gnss.corrections.ppm_h": ("number", 0, 1000, False),
    "gnss.corrections.ppm_v": ("number", 0, 1000, False),
    "gnss.heading.baseline_m": ("number", 0, 100, False),
    "gnss.heading.sigma_deg_at_1m": ("number", 0, 10, False),
    "gnss.heading.pitch_sigma_ratio": ("number", 0, 10, False),
    "gnss.obstruction.near_margin_m": ("number", 0, INF, False),
    "gnss.obstruction.foliage_block_path_m": ("number", 0, INF, True),
    "gnss.obstruction.reflector_range_m": ("number", 0, INF, True),
    "imu.accel_std_mps2": ("number", 0, INF, False),
    "imu.gyro_std_radps": ("number", 0, INF, False),
    "imu.accel_bias_mps2": ("number", 0, INF, False),
    "imu.gyro_bias_radps": ("number", 0, INF, False),
    "ins.position_sigma_m": ("number", 0, 1000, False),
    "ins.position_tau_s": ("number", 0, INF, True),
    "ins.position_white_m": ("number", 0, 1000, False),
    "ins.heading_sigma_deg": ("number", 0, INF, False),
    "ins.attitude_sigma_deg": ("number", 0, INF, False),
    "ins.velocity_white_mps": ("number", 0, INF, False),
    "ins.accel_white_mps2": ("number", 0, INF, False),
    "ins.gyro_white_radps": ("number", 0, INF, False),
    # navsense extensions (issue 7): magnetometer, barometer, odometer.
    "mag.hz": ("number", 1, 2000, False),
    "mag.noise_std_ut": ("number", 0, INF, False),
    "baro.hz": ("number", 1, 2000, False),
    "baro.noise_std_pa": ("number", 0, INF, False),
    "baro.bias_sigma_pa": ("number", 0, INF, False),
    "baro.bias_tau_s": ("number", 0, INF, True),
    "baro.base_altitude_m": ("number", -1000, 11000, False),
    # issue 30 item 3: the offset, its temperature coefficient and the weather
    "baro.offset_sigma_pa": ("number", 0, INF, False),
    "baro.temp_coeff_pa_per_k": ("number", -100, 100, False),
    "baro.temperature_c": ("number", -60, 100, False),
    "baro.weather_sigma_pa": ("number", 0, 10000, False),
    "baro.weather_tau_s": ("number", 60, 10_000_000, False),
    "odom.hz": ("number", 1, 2000, False),
    "odom.noise_std_mps": ("number", 0, INF, False),
    "odom.scale_factor_sigma": ("number", 0, 0.1, False),
    "odom.encoder_tick_m": ("number", 0, INF, False),
    # navsense extension (issue 19): the aided INS's filter and inertial errors.
    "ins.aiding_tau_s": ("number", 0.01, 100, False),
    "ins.drift.velocity_sigma_mps": ("number", 0, 1, False),
    "ins.drift.tilt_sigma_deg": ("number", 0, 1, False),
    "ins.drift.accel_bias_ug": ("number", 0, 10000, False),
    "ins.drift.gyro_bias_deg_per_h": ("number", 0, 100, False),
    "ins.drift.accel_vrw_mps_per_sqrt_h": ("number", 0, 10, False),
    "ins.drift.gyro_arw_deg_per_sqrt_h": ("number", 0, 10, False),
    # navsense extension (issue 8): the configurable IMU (null = the preset's value).
    "imu.configurable.gyro.noise_density_radps_rthz": ("vector", 0, None, False),
    "imu.configurable.gyro.bias_instability_radps": ("vector", 0, None, False),
    "imu.configurable.gyro.bias_instability_tau_s": ("number", 0, None, True),
    "imu.configurable.gyro.random_walk_radps2_rthz": ("vector", 0, None, False),
    "imu.configurable.gyro.random_walk_bound_radps": ("vector", 0, None, False),
    "imu.configurable.gyro.turn_on_bias_sigma_radps": ("vector", 0, None, False),
    "imu.configurable.gyro.lsb_radps": ("number", 0, None, False),
    "imu.configurable.gyro.saturation_radps": ("number", 0, None, False),
    "imu.configurable.accel.noise_density_mps2_rthz": ("vector", 0, None, False),
    "imu.configurable.accel.bias_instability_mps2": ("vector", 0, None, False),
    "imu.configurable.accel.bias_instability_tau_s": ("number", 0, None, True),
    "imu.configurable.accel.random_walk_mps3_rthz": ("vector", 0, None, False),
    "imu.configurable.accel.random_walk_bound_mps2": ("vector", 0, None, False),
    "imu.configurable.accel.turn_on_bias_sigma_mps2": ("vector", 0, None, False),
    "imu.configurable.accel.lsb_mps2": ("number", 0, None, False),
    "imu.configurable.accel.saturation_mps2": ("number", 0, None, False),
    # Chosen by navsense (issue 21): the datum chain's parameters, far beyond the published ones.
    "gnss.datum.harn_to_nad83_2011_shift_deg": ("vector", -0.01, 0.01, False),
    "gnss.datum.geoid.n0_m": ("number", -200, 200, False),
    "gnss.datum.geoid.dn_de": ("number", -0.01, 0.01, False),
    "gnss.datum.geoid.dn_dn": ("number", -0.01, 0.01, False),
    "gnss.datum.helmert_itrf2014_to_nad83_2011.t_m": ("vector", -1000, 1000, False),
    "gnss.datum.helmert_itrf2014_to_nad83_2011.r_arcsec": ("vector", -100, 100, False),
    "gnss.datum.helmert_itrf2014_to_nad83_2011.s_ppm": ("number", -1000, 1000, False),
    "gnss.datum.helmert_itrf2014_to_nad83_2011.dt_m_per_yr": ("vector", -1, 1, False),
    "gnss.datum.helmert_itrf2014_to_nad83_2011.dr_arcsec_per_yr": ("vector", -1, 1, False),
    "gnss.datum.helmert_itrf2014_to_nad83_2011.ds_ppm_per_yr": ("number", -1, 1, False),
    "gnss.datum.helmert_itrf2014_to_nad83_2011.reference_epoch": ("number", 1900, 2200, False),
}
for _state in ("rtk_fixed", "rtk_float", "dgps", "single"):
    for _key in (
        "sigma_h_m",
        "sigma_v_m",
        "initial_sigma_h_m",
        "initial_sigma_v_m",
        "white_h_m",
        "white_v_m",
        "multipath_h_m",
    ):
        RANGES[f"gnss.states.{_state}.{_key}"] = ("number", 0, 1000, False)
    for _key in ("convergence_tau_s", "tau_s"):
        RANGES[f"gnss.states.{_state}.{_key}"] = ("number", 0, INF, True)


def _range_text(lo, hi, open_):
    if hi is None:
        return f"{'>' if open_ else '>='} {lo}"
    return f"{lo}..{hi}"


def _cases():
    """(key, value, accepted): the bounds and the first values outside them."""
    for key, (kind, lo, hi, open_) in RANGES.items():
        step = 1 if kind == "integer" else 1e-9
        if open_:
            yield key, lo, False
            yield key, lo + step, True
        else:
            yield key, lo, True
            yield key, lo - step, False
            if kind == "number":
                yield key, lo - 0.5, False
        if hi is not None:
            yield key, hi, True
            yield key, hi + step, False
            if kind == "number":
                yield key, hi + 0.5, False


CASES = list(_cases())


def _with(cfg, dotted, value):
    node = cfg
    *parents, leaf = dotted.split(".")
    for p in parents:
        node = node[p]
    node[leaf] = value
    return cfg


def _message(source, key, value):
    kind, lo, hi, open_ = RANGES[key]
    if kind == "vector":  # the first element of [v, v, v] is the one named
        key, value = f"{key}[0]", value[0]
    return f"{source}: {key} = {json.dumps(value)} is out of range {_range_text(lo, hi, open_)}"


def _value(key, value):
    """A vector key takes the case's value on each of its axes."""
    return [value] * lookup(key).length if RANGES[key][0] == "vector" else value


def test_the_table_lists_every_ranged_key_of_the_schema():
    ranged = {}
    for key in known_keys(SCHEMA):
        field = lookup(key)
        if field.has_range:
            ranged[key] = (field.kind, field.minimum, field.maximum, field.min_open)
    assert ranged == RANGES


@pytest.mark.parametrize("key, value, accepted", CASES, ids=[f"{k}={v!r}" for k, v, _ in CASES])
def test_range_in_sensors_json(key, value, accepted):
    value = _value(key, value)
    cfg = _with(load_config(), key, value)
    if accepted:
        validate(cfg, "sensors.json")
    else:
        with pytest.raises(ConfigError) as err:
            validate(cfg, "sensors.json")
        assert str(err.value) == _message("sensors.json", key, value)


@pytest.mark.parametrize("key, value, accepted", CASES, ids=[f"{k}={v!r}" for k, v, _ in CASES])
def test_range_on_the_command_line(key, value, accepted):
    value = _value(key, value)
    if accepted:
        assert apply_overrides(load_config(), {key: value}) == _with(load_config(), key, value)
    else:
        with pytest.raises(ConfigError) as err:
            load_config(overrides={key: value})
        assert str(err.value) == _message("command line", key, value)


@pytest.mark.parametrize(
    "key",
    [
        "seed",
        "gnss.hz",
        "ins.utm_zone",
        "gnss.rtk.min_clear_satellites",
        "gnss.states.single.tau_s",
    ],
)
def test_range_in_a_user_file(tmp_path, monkeypatch, key):
    kind, lo, hi, open_ = RANGES[key]
    bad = lo if open_ else lo - (1 if kind == "integer" else 0.5)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my.json").write_text(json.dumps(_nested(key, bad)))
    with pytest.raises(ConfigError) as err:
        load_config("my.json")
    assert str(err.value) == _message("my.json", key, bad)


def _nested(dotted, value):
    *parents, leaf = dotted.split(".")
    out = node = {}
    for p in parents:
        node[p] = {}
        node = node[p]
    node[leaf] = value
    return out


def test_the_brief_examples():
    with pytest.raises(
        ConfigError, match=r"^sensors\.json: gnss\.hz = 2400 is out of range 1\.\.2000$"
    ):
        validate(_with(load_config(), "gnss.hz", 2400), "sensors.json")
    for ok in (1, 120, 1.0, 120.0, 10.5):
        validate(_with(load_config(), "gnss.hz", ok))
    for bad in (0.5, 2000.5, 0, 2001, -10):
        with pytest.raises(ConfigError, match="is out of range 1..2000"):
            validate(_with(load_config(), "gnss.hz", bad))


def test_vector_elements_and_lever_arms_are_any_finite_number():
    validate(_with(load_config(), "gnss.antenna_flu_m", [-100.5, 1e3, 0]))
    with pytest.raises(ConfigError, match=r"gnss\.antenna_flu_m = \[0, NaN, 0\] is not an array"):
        validate(_with(load_config(), "gnss.antenna_flu_m", [0, float("nan"), 0]))
    assert isinstance(lookup("gnss.antenna_flu_m"), Field)
