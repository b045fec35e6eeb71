"""The embedded defaults against the specification's tables ("Parameters", every table).

The expected values are transcribed here from the specification, independently of the JSON
files in the package.
"""

import orjson
import pytest

from navsense.config import (
    SCHEMA,
    code_defaults,
    known_keys,
    load_config,
    sensors_defaults,
    validate,
    vehicle_overlay,
)

# Specification "Parameters", GNSS Receiver, table gnss.states (columns rtk_fixed, rtk_float,
# dgps, single).
STATES_TABLE = {
    "sigma_h_m": (0.008, 0.10, 0.35, 1.0),
    "sigma_v_m": (0.015, 0.20, 0.70, 2.0),
    "initial_sigma_h_m": (0, 0.40, 0, 0),
    "initial_sigma_v_m": (0, 0.80, 0, 0),
    "convergence_tau_s": (30, 30, 30, 30),
    "white_h_m": (0.003, 0.02, 0.10, 0.30),
    "white_v_m": (0.006, 0.04, 0.20, 0.60),
    "tau_s": (60, 30, 120, 300),
    "multipath_h_m": (0.015, 0.15, 0.50, 1.50),
}
STATES = ("rtk_fixed", "rtk_float", "dgps", "single")

SPEC_SENSORS_JSON = {
    "seed": 42,
    "delay_s": 0.05,
    "mount_frame": "chassis",
    "gnss": {
        "enabled": True,
        "hz": 10,
        "antenna_flu_m": [0, 0, 1.7],
        "std_m": 0.02,
        "start": "converged",
        "cold_ttff_s": 20,
        "elevation_mask_deg": 10,
        "constellations": {"gps": True, "galileo": True, "glonass": True},
        "multipath_tau_s": 8,
        "multipath_vertical_ratio": 1.5,
        "states": {s: {k: col[i] for k, col in STATES_TABLE.items()} for i, s in enumerate(STATES)},
        "rtk": {
            "ttf_median_s": 10,
            "ttf_log_sigma": 0.5,
            "ttf_multipath_gain": 2,
            "reacquire_factor": 0.3,
            "reacquire_window_s": 10,
            "min_clear_satellites": 6,
            "float_min_satellites": 5,
            "max_pdop": 5,
            "cycle_slip_rate_per_s": 0.3,
        },
        "corrections": {
            "interval_s": 1,
            "latency_s": 0.3,
            "rtk_max_age_s": 10,
            "dgps_max_age_s": 60,
            "baseline_km": 5,
            "ppm_h": 1,
            "ppm_v": 1.5,
            "outages_s": [],
        },
        "obstruction": {"near_margin_m": 1.5, "foliage_block_path_m": 8, "reflector_range_m": 60},
        "datum": {
            "output_frame": "wgs84_g2139",
            "start_utc": "2026-09-23T15:00:00Z",
            "harn_to_nad83_2011_shift_deg": [-7.742258e-09, 2.4261007e-07],
            "geoid": {"n0_m": -33.6268735, "dn_de": -1.07779725e-05, "dn_dn": -6.19783884e-06},
            "helmert_itrf2014_to_nad83_2011": {
                "t_m": [1.00530, -1.90921, -0.54157],
                "r_arcsec": [0.02678138, -0.00042027, 0.01093206],
                "s_ppm": 0.00036891,
                "dt_m_per_yr": [0.00079, -0.00060, -0.00144],
                "dr_arcsec_per_yr": [0.00006667, -0.00075744, -0.00005133],
                "ds_ppm_per_yr": -0.00007201,
                "reference_epoch": 2010.0,
            },
        },
    },
    "imu": {
        "enabled": True,
        "hz": 120,
        "accel_std_mps2": 0.03,
        "gyro_std_radps": 0.002,
        "accel_bias_mps2": 0.01,
        "gyro_bias_radps": 0.001,
        "position_flu_m": [0, 0, 0],
    },
}

# Specification "Parameters", INS: the "Default" column (sensors_polaris.json) and the "Code" column.
INS_KEYS = (
    "enabled",
    "hz",
    "position_flu_m",
    "position_sigma_m",
    "position_tau_s",
    "position_white_m",
    "heading_sigma_deg",
    "attitude_sigma_deg",
    "velocity_white_mps",
    "accel_white_mps2",
    "gyro_white_radps",
    "frame",
    "utm_zone",
)
INS_DEFAULT = dict(
    zip(
        INS_KEYS,
        (True, 100, [0, 0, 0], 0.01, 30, 0.003, 0.1, 0.03, 0.02, 0.02, 0.0005, "nad83", 16),
    )
)
INS_CODE = dict(
    zip(
        INS_KEYS,
        (False, 100, [0, 0, 0], 0.01, 30, 0.003, 0.1, 0.03, 0.01, 0.02, 0.0005, "nad83", 16),
    )
)
# navsense extension (issue 19): the aided INS, off; its filter and a generic grade's inertial errors
INS_EXTENSION = dict(
    aiding="none",
    aiding_tau_s=1.0,
    drift={
        "velocity_sigma_mps": 0.014,
        "tilt_sigma_deg": 0.0006,
        "accel_bias_ug": 10,
        "gyro_bias_deg_per_h": 2,
        "accel_vrw_mps_per_sqrt_h": 0.03,
        "gyro_arw_deg_per_sqrt_h": 0.2,
    },
    imu_grade="none",  # issue 30: no grade preset (navsense.config.error_presets)
)
INS_CODE.update(INS_EXTENSION)


def _get(cfg, dotted):
    for key in dotted.split("."):
        cfg = cfg[key]
    return cfg


def test_embedded_sensors_json_is_the_specification_table():
    assert sensors_defaults() == SPEC_SENSORS_JSON
    assert "ins" not in sensors_defaults()  # "The block ins is in sensors_polaris.json only."
    assert "noise" not in sensors_defaults()  # navsense extension, not in the file


def test_embedded_polaris_overlay():
    overlay, name = vehicle_overlay("polaris")
    assert name == "sensors_polaris.json"
    assert overlay == {
        "mount_frame": "base_footprint",
        "gnss": {"antenna_flu_m": [1.1, 0, 2.15]},
        "imu": {"position_flu_m": [0.95, -0.45, 0.7]},
        "ins": INS_DEFAULT,
    }
    assert vehicle_overlay("maxxum") is None


# navsense extensions (issue 7), off by default
MAG_CODE = {
    "enabled": False,
    "hz": 50,
    "noise_std_ut": 0.3,
    "hard_iron_ut": [0, 0, 0],
    "soft_iron_matrix": [1, 0, 0, 0, 1, 0, 0, 0, 1],
    "preset": "none",  # issue 30: no installation preset
}
BARO_CODE = {
    "enabled": False,
    "hz": 25,
    "noise_std_pa": 1.0,
    "bias_sigma_pa": 10.0,
    "bias_tau_s": 300,
    "base_altitude_m": 0,
    "position_flu_m": [0, 0, 0],
    # issue 30: the offset, its temperature coefficient and the weather, 0; no preset
    "offset_sigma_pa": 0,
    "temp_coeff_pa_per_k": 0,
    "temperature_c": 25,
    "weather_sigma_pa": 0,
    "weather_tau_s": 43200,
    "preset": "none",
}
ODOM_CODE = {
    "enabled": False,
    "hz": 50,
    "noise_std_mps": 0.02,
    "scale_factor_sigma": 0.01,
    "encoder_tick_m": 0,
}


# navsense extension (issue 8): the configurable IMU, off by default (model "acres"); every
# per-sensor key null = "the preset's value, else 0"
_GYRO_KEYS = (
    "noise_density_radps_rthz",
    "bias_instability_radps",
    "bias_instability_tau_s",
    "random_walk_radps2_rthz",
    "random_walk_bound_radps",
    "bias_radps",
    "turn_on_bias_sigma_radps",
    "scale_factor_ppm",
    "misalignment_rad",
    "temp_bias_radps_per_k",
    "temp_scale_ppm_per_k",
    "lsb_radps",
    "carry_error",
    "round_direction",
    "saturation_radps",
    "g_sensitivity_radps_per_mps2",
)
_ACCEL_KEYS = (
    "noise_density_mps2_rthz",
    "bias_instability_mps2",
    "bias_instability_tau_s",
    "random_walk_mps3_rthz",
    "random_walk_bound_mps2",
    "bias_mps2",
    "turn_on_bias_sigma_mps2",
    "scale_factor_ppm",
    "misalignment_rad",
    "temp_bias_mps2_per_k",
    "temp_scale_ppm_per_k",
    "lsb_mps2",
    "carry_error",
    "round_direction",
    "saturation_mps2",
)
IMU_CODE = {
    "earth": "none",  # navsense extension (issue 19 s.3): the specification's Earth
    "vibration": {  # navsense extension (issue 30 item 2): none
        "sines": [],
        "random_psd_g2_per_hz": [0, 0, 0],
        "random_rms_g": [0, 0, 0],
        "random_band_hz": [10, 100],
        "engine_idle_rpm": 0,
        "engine_rpm_per_mps": 0,
        "engine_order": 2,
        "engine_accel_mps2": [0, 0, 0],
        "engine_orders": [],
        "preset": "none",
    },
    "model": "acres",
    "preset": "none",
    "configurable": {
        "platform_ypr_deg": [0, 0, 0],
        "temperature_c": 25,
        "reference_temperature_c": 25,
        "deltas": "basilisk",  # issue 30: the specification's increments
        "bandwidth_hz": 0,  # issue 30: no output low-pass
        "gyro": dict.fromkeys(_GYRO_KEYS),
        "accel": dict.fromkeys(_ACCEL_KEYS),
    },
}


def test_code_defaults_are_the_code_column_and_noise_on():
    assert code_defaults() == {
        "noise": True,
        "physics": {"hz": 120},  # issue 30: the specification's clock
        # navsense extensions: issue 19's signal outages, issue 20's sentences of gnss.nmea,
        # issue 29's GSV below the mask, orbits and systems
        "gnss": {
            "corrections": {"enabled": True},  # issue 29: the correction stream is on
            "signal_outages_s": [],
            # issue 29: the synthetic constellation, every system it may track
            "orbits": "synthetic",
            "systems": ["gps", "galileo", "glonass", "beidou", "qzss"],
            "nmea": {
                "sentences": ["RMC", "VTG", "GGA", "GSA", "GSV", "GST", "ZDA"],
                "gsv_below_mask": False,
            },
            # issue 29 item 4: one antenna, no heading
            "heading": {
                "baseline_m": 0,
                "antenna2_flu_m": None,
                "sigma_deg_at_1m": 0.4,
                "pitch_sigma_ratio": 2,
                "rtk_float": False,
            },
            "receiver": "acres",  # issue 29: the specification's receiver
        },
        "imu": IMU_CODE,
        "ins": INS_CODE,
        "mag": MAG_CODE,
        "baro": BARO_CODE,
        "odom": ODOM_CODE,
    }


@pytest.mark.parametrize("state", STATES)
def test_fix_state_columns(state):
    states = load_config()["gnss"]["states"]
    i = STATES.index(state)
    assert states[state] == {k: col[i] for k, col in STATES_TABLE.items()}


@pytest.mark.parametrize(
    "dotted, expected",
    [
        ("seed", 42),
        ("delay_s", 0.05),
        ("noise", True),
        ("gnss.enabled", True),
        ("gnss.hz", 10),
        ("gnss.std_m", 0.02),
        ("gnss.start", "converged"),
        ("gnss.cold_ttff_s", 20),
        ("gnss.elevation_mask_deg", 10),
        ("gnss.constellations", {"gps": True, "galileo": True, "glonass": True}),
        ("gnss.multipath_tau_s", 8),
        ("gnss.multipath_vertical_ratio", 1.5),
        ("gnss.rtk.ttf_median_s", 10),
        ("gnss.rtk.reacquire_factor", 0.3),
        ("gnss.rtk.min_clear_satellites", 6),
        ("gnss.rtk.float_min_satellites", 5),
        ("gnss.rtk.max_pdop", 5),
        ("gnss.rtk.cycle_slip_rate_per_s", 0.3),
        ("gnss.corrections.interval_s", 1),
        ("gnss.corrections.latency_s", 0.3),
        ("gnss.corrections.rtk_max_age_s", 10),
        ("gnss.corrections.dgps_max_age_s", 60),
        ("gnss.corrections.baseline_km", 5),
        ("gnss.corrections.ppm_h", 1),
        ("gnss.corrections.ppm_v", 1.5),
        ("gnss.corrections.outages_s", []),
        ("gnss.obstruction.near_margin_m", 1.5),
        ("gnss.obstruction.foliage_block_path_m", 8),
        ("gnss.obstruction.reflector_range_m", 60),
        ("gnss.datum.output_frame", "wgs84_g2139"),
        ("gnss.datum.start_utc", "2026-09-23T15:00:00Z"),
        ("gnss.datum.harn_to_nad83_2011_shift_deg", [-7.742258e-09, 2.4261007e-07]),
        ("gnss.datum.geoid.n0_m", -33.6268735),
        ("gnss.datum.geoid.dn_de", -1.07779725e-05),
        ("gnss.datum.geoid.dn_dn", -6.19783884e-06),
        ("gnss.datum.helmert_itrf2014_to_nad83_2011.t_m", [1.00530, -1.90921, -0.54157]),
        ("gnss.datum.helmert_itrf2014_to_nad83_2011.s_ppm", 0.00036891),
        ("gnss.datum.helmert_itrf2014_to_nad83_2011.ds_ppm_per_yr", -0.00007201),
        ("gnss.datum.helmert_itrf2014_to_nad83_2011.reference_epoch", 2010.0),
        ("imu.enabled", True),
        ("imu.hz", 120),
        ("imu.accel_std_mps2", 0.03),
        ("imu.gyro_std_radps", 0.002),
        ("imu.accel_bias_mps2", 0.01),
        ("imu.gyro_bias_radps", 0.001),
    ],
)
@pytest.mark.parametrize("vehicle", ["polaris", "maxxum"])
def test_vehicle_independent_defaults(vehicle, dotted, expected):
    assert _get(load_config(vehicle=vehicle), dotted) == expected


def test_polaris_effective_configuration():
    cfg = load_config()
    assert cfg["mount_frame"] == "base_footprint"
    assert cfg["gnss"]["antenna_flu_m"] == [1.1, 0, 2.15]
    assert cfg["imu"]["position_flu_m"] == [0.95, -0.45, 0.7]
    assert cfg["ins"] == {**INS_DEFAULT, **INS_EXTENSION}


def test_maxxum_effective_configuration_uses_the_code_column():
    cfg = load_config(vehicle="maxxum")
    assert cfg["mount_frame"] == "chassis"
    assert cfg["gnss"]["antenna_flu_m"] == [0, 0, 1.7]
    assert cfg["imu"]["position_flu_m"] == [0, 0, 0]
    assert cfg["ins"] == INS_CODE
    # The two columns differ in exactly these keys.
    assert {k for k in INS_KEYS if INS_CODE[k] != INS_DEFAULT[k]} == {
        "enabled",
        "velocity_white_mps",
    }
    assert cfg["ins"]["enabled"] is False and cfg["ins"]["velocity_white_mps"] == 0.01


def test_layout_and_order_of_the_effective_configuration():
    cfg = load_config()
    assert list(cfg) == [
        "seed",
        "delay_s",
        "mount_frame",
        "noise",
        "physics",
        "gnss",
        "imu",
        "ins",
        "mag",
        "baro",
        "odom",
    ]
    assert list(cfg["gnss"]) == [
        "enabled",
        "hz",
        "antenna_flu_m",
        "std_m",
        "start",
        "cold_ttff_s",
        "elevation_mask_deg",
        "constellations",
        "multipath_tau_s",
        "multipath_vertical_ratio",
        "states",
        "rtk",
        "corrections",
        "obstruction",
        "datum",
        "signal_outages_s",
        "orbits",
        "systems",
        "nmea",
        "heading",
        "receiver",
    ]
    assert list(cfg["gnss"]["datum"]) == [
        "output_frame",
        "start_utc",
        "harn_to_nad83_2011_shift_deg",
        "geoid",
        "helmert_itrf2014_to_nad83_2011",
    ]


def _flatten(cfg, path=""):
    for key, value in cfg.items():
        p = f"{path}.{key}" if path else key
        if isinstance(value, dict):
            yield from _flatten(value, p)
        else:
            yield p


@pytest.mark.parametrize("vehicle", ["polaris", "maxxum"])
def test_every_schema_key_has_a_default_and_nothing_else(vehicle):
    cfg = load_config(vehicle=vehicle)
    assert list(_flatten(cfg)) == known_keys(SCHEMA)
    validate(cfg)


def test_effective_configuration_is_plain_json_and_a_fresh_copy():
    cfg = load_config()
    assert orjson.loads(orjson.dumps(cfg)) == cfg
    cfg["gnss"]["states"]["single"]["tau_s"] = -1
    cfg["gnss"]["corrections"]["outages_s"].append([1, 2])
    again = load_config()
    assert again["gnss"]["states"]["single"]["tau_s"] == 300
    assert again["gnss"]["corrections"]["outages_s"] == []
    sensors_defaults()["seed"] = 1
    assert sensors_defaults()["seed"] == 42


def test_embedded_files_validate_on_their_own():
    validate(sensors_defaults(), "sensors.json", partial=True)
    validate(vehicle_overlay("polaris")[0], "sensors_polaris.json", partial=True)
    validate(code_defaults(), "code_defaults.json", partial=True)
