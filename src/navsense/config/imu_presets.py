"""Presets of the configurable IMU for three grades, from public datasheets (typical values).

The values of ``imu.configurable.gyro`` / ``.accel`` that ``imu.preset`` names (the keys of
:data:`PRESETS` are the choices of ``imu.preset``); read by navsense.config.typed.configurable_imu.

Each value cites its datasheet on its line. Units are the configuration's (SI: rad/s, m/s^2,
noise densities per sqrt(Hz)); the datasheet's unit and the conversion are in the comment.
A term the datasheet does not give is 0 and says so. The datasheet values were transcribed from
the revisions named below; check them against your copy before relying on a preset for a
safety case (datasheets are revised, and "typical" is not "maximum").

Conversions: deg/h -> rad/s: x pi / 180 / 3600; deg/sqrt(h) -> rad/s/sqrt(Hz): x pi / 180 / 60;
ug/sqrt(Hz) -> m/s^2/sqrt(Hz): x 1e-6 g; m/s/sqrt(h) -> m/s^2/sqrt(Hz): x / 60; g = 9.80665.
"""

from __future__ import annotations

from navsense.constants import DEG as _DEG  # rad per degree
from navsense.constants import GRAVITY_MPS2

__all__ = ["PRESETS"]

_G = GRAVITY_MPS2
_DPH = _DEG / 3600.0  # rad/s per deg/h
_ARW = _DEG / 60.0  # rad/s/sqrt(Hz) per deg/sqrt(h)
_VRW = 1.0 / 60.0  # m/s^2/sqrt(Hz) per m/s/sqrt(h)

PRESETS: dict[str, dict] = {
    # Consumer MEMS: Bosch Sensortec BMI088 (data sheet BST-BMI088-DS001, rev. 1.9), gyro range
    # +-2000 deg/s, accelerometer range +-24 g.
    "bmi088": {
        "gyro": {
            "noise_density_radps_rthz": 0.014
            * _DEG,  # BMI088 DS001: rate noise density 0.014 deg/s/sqrt(Hz)
            "bias_instability_radps": 2.0 * _DPH,  # BMI088 DS001: bias stability 2 deg/h
            "bias_instability_tau_s": 100.0,  # not in the datasheet: navsense choice
            "random_walk_radps2_rthz": 0.0,  # not in the datasheet
            "turn_on_bias_sigma_radps": 1.0 * _DEG,  # BMI088 DS001: zero-rate offset +-1 deg/s
            "scale_factor_ppm": [0.0, 0.0, 0.0],
            "lsb_radps": 2000.0
            / 32768.0
            * _DEG,  # BMI088 DS001: 16 bit, 16.384 LSB/(deg/s) at 2000 deg/s
            "saturation_radps": 2000.0 * _DEG,  # BMI088 DS001: range +-2000 deg/s
            "g_sensitivity_radps_per_mps2": [0.1 * _DEG / _G]
            * 3,  # BMI088 DS001: g-sensitivity 0.1 deg/s/g
        },
        "accel": {
            "noise_density_mps2_rthz": 175e-6
            * _G,  # BMI088 DS001: output noise density 175 ug/sqrt(Hz) (z, +-3 g)
            "bias_instability_mps2": 0.0,  # not in the datasheet
            "bias_instability_tau_s": 100.0,
            "random_walk_mps3_rthz": 0.0,  # not in the datasheet
            "turn_on_bias_sigma_mps2": 20e-3 * _G,  # BMI088 DS001: zero-g offset +-20 mg
            "temp_bias_mps2_per_k": [0.2e-3 * _G]
            * 3,  # BMI088 DS001: offset temperature drift 0.2 mg/K
            "lsb_mps2": 24.0 * _G / 32768.0,  # BMI088 DS001: 16 bit at +-24 g (1365 LSB/g)
            "saturation_mps2": 24.0 * _G,  # BMI088 DS001: range +-24 g
        },
    },
    # Industrial MEMS: Analog Devices ADIS16465-1 (data sheet ADIS16465, Rev. C), +-125 deg/s, +-8 g.
    "adis16465": {
        "gyro": {
            "noise_density_radps_rthz": 0.15
            * _ARW,  # ADIS16465 Rev. C: angle random walk 0.15 deg/sqrt(h)
            "bias_instability_radps": 2.0 * _DPH,  # ADIS16465 Rev. C: in-run bias stability 2 deg/h
            "bias_instability_tau_s": 100.0,  # not in the datasheet: navsense choice
            "random_walk_radps2_rthz": 0.0,  # not in the datasheet
            "saturation_radps": 125.0 * _DEG,  # ADIS16465-1 Rev. C: dynamic range +-125 deg/s
        },
        "accel": {
            "noise_density_mps2_rthz": 0.012
            * _VRW,  # ADIS16465 Rev. C: velocity random walk 0.012 m/s/sqrt(h)
            "bias_instability_mps2": 3.6e-6 * _G,  # ADIS16465 Rev. C: in-run bias stability 3.6 ug
            "bias_instability_tau_s": 100.0,
            "random_walk_mps3_rthz": 0.0,  # not in the datasheet
            "saturation_mps2": 8.0 * _G,  # ADIS16465 Rev. C: dynamic range +-8 g
        },
    },
    # Tactical: KVH 1750 IMU (KVH "1750 IMU" technical specification sheet), FOG gyros, +-10 g.
    "kvh1750": {
        "gyro": {
            "noise_density_radps_rthz": 0.012
            * _ARW,  # KVH 1750: angle random walk <= 0.012 deg/sqrt(h)
            "bias_instability_radps": 0.05
            * _DPH,  # KVH 1750: bias instability <= 0.05 deg/h (1 sigma)
            "bias_instability_tau_s": 300.0,  # not in the datasheet: navsense choice
            "random_walk_radps2_rthz": 0.0,  # not in the datasheet
            "saturation_radps": 490.0 * _DEG,  # KVH 1750: maximum input rate +-490 deg/s
        },
        "accel": {
            "noise_density_mps2_rthz": 0.12e-3
            * _G,  # KVH 1750: velocity random walk <= 0.12 mg/sqrt(Hz)
            "bias_instability_mps2": 0.05e-3
            * _G,  # KVH 1750: bias instability <= 0.05 mg (1 sigma)
            "bias_instability_tau_s": 300.0,
            "random_walk_mps3_rthz": 0.0,  # not in the datasheet
            "saturation_mps2": 10.0 * _G,  # KVH 1750: range +-10 g
        },
    },
}
