"""Presets of the error models a user can cite (issue 30 item 3): the aided INS's IMU grade
(``ins.imu_grade``), the barometer (``baro.preset``) and the magnetometer's installation
(``mag.preset``).

A preset names a set of keys of its section; load_config puts them in a layer just above the
defaults, so the configuration file, the vehicle overlay and the options still win (an explicit
key beats the preset; navsense.config.load). Each value cites its source on its line; the
figures were transcribed from the revisions named, check them against your copy before relying
on them for a safety case (a datasheet's "typical" is not its "maximum", and a ± range is read
here as one standard deviation: the datasheets give no distribution).

Conversions: ARW deg/s/sqrt(Hz) -> deg/sqrt(h): x 60; noise ug/sqrt(Hz) -> m/s/sqrt(h):
x 1e-6 g 60; ft/s/sqrt(h) -> m/s/sqrt(h): x 0.3048; g = 9.80665 m/s^2.

The aided INS's ``tilt_sigma_deg`` of a grade follows its accelerometer bias as the default's
does (navsense.sensors.ins_aiding: an aided filter observes the sum of the bias and g times the
tilt, so the residual tilt is bias / g rad), drawn at the loss of aiding on top of the tilt the
INS carries into it (its own, of ``ins.attitude_sigma_deg``, which a grade does not set);
``velocity_sigma_mps`` is the GNSS-aided filter's and stays the configuration's.
"""

from __future__ import annotations

import math

from navsense.constants import GRAVITY_MPS2

__all__ = ["INS_IMU_GRADES", "BARO_PRESETS", "MAG_PRESETS"]

_G = GRAVITY_MPS2


def _tilt_deg(accel_bias_ug: float) -> float:
    """The residual tilt an aided filter leaves with this accelerometer bias: bias / g, deg."""
    return float(f"{math.degrees(accel_bias_ug * 1e-6):.4g}")  # four figures


#: ins.imu_grade -> the ``ins.drift`` keys it sets
INS_IMU_GRADES: dict[str, dict[str, float]] = {
    # consumer MEMS: Bosch Sensortec BMI088 (data sheet BST-BMI088-DS001, rev. 1.9)
    "consumer_mems": {
        "gyro_bias_deg_per_h": 2.0,  # BMI088 DS001: gyro bias stability 2 deg/h
        "gyro_arw_deg_per_sqrt_h": 0.84,  # BMI088 DS001: rate noise density 0.014 deg/s/sqrt(Hz)
        "accel_bias_ug": 1000.0,  # not in the datasheet: El-Sheimy & Youssef 2020 Table 1, 100-1000 ug
        "accel_vrw_mps_per_sqrt_h": 0.103,  # BMI088 DS001: noise density 175 ug/sqrt(Hz)
        "tilt_sigma_deg": _tilt_deg(1000.0),  # bias / g (module docstring)
    },
    # industrial MEMS: Analog Devices ADIS16465-1 (data sheet ADIS16465, Rev. C)
    "industrial": {
        "gyro_bias_deg_per_h": 2.0,  # ADIS16465 Rev. C: in-run bias stability 2 deg/h
        "gyro_arw_deg_per_sqrt_h": 0.15,  # ADIS16465 Rev. C: angle random walk 0.15 deg/sqrt(h)
        "accel_bias_ug": 3.6,  # ADIS16465 Rev. C: in-run bias stability 3.6 ug
        "accel_vrw_mps_per_sqrt_h": 0.012,  # ADIS16465 Rev. C: velocity random walk 0.012 m/s/sqrt(h)
        "tilt_sigma_deg": _tilt_deg(3.6),  # bias / g (module docstring)
    },
    # tactical (FOG): KVH 1750 IMU (KVH "1750 IMU" technical specification sheet)
    "tactical": {
        "gyro_bias_deg_per_h": 0.05,  # KVH 1750: bias instability <= 0.05 deg/h (1 sigma)
        "gyro_arw_deg_per_sqrt_h": 0.012,  # KVH 1750: angle random walk <= 0.012 deg/sqrt(h)
        "accel_bias_ug": 50.0,  # KVH 1750: bias instability <= 0.05 mg (1 sigma)
        "accel_vrw_mps_per_sqrt_h": 0.0706,  # KVH 1750: velocity random walk 0.12 mg/sqrt(Hz)
        "tilt_sigma_deg": _tilt_deg(50.0),  # bias / g (module docstring)
    },
    # navigation (RLG): Honeywell HG9900 (brochure N61-1638-000-000, as quoted by IS4S NavToolkit
    # hg9900_model)
    "navigation": {
        "gyro_bias_deg_per_h": 0.0035,  # HG9900 brochure: gyro bias 0.0035 deg/h (1 sigma)
        "gyro_arw_deg_per_sqrt_h": 0.002,  # HG9900 brochure: angle random walk 0.002 deg/sqrt(h)
        "accel_bias_ug": 25.0,  # HG9900 brochure: accelerometer bias 25 ug (1 sigma)
        "accel_vrw_mps_per_sqrt_h": 0.0,  # not in the brochure
        "tilt_sigma_deg": _tilt_deg(25.0),  # bias / g (module docstring)
    },
}

#: baro.preset -> the ``baro`` keys it sets
BARO_PRESETS: dict[str, dict[str, float]] = {
    # Bosch Sensortec BMP388 (data sheet BST-BMP388-DS001, rev. 1.0, Table 2 "Parameter
    # specification"), 300 .. 1100 hPa
    "bmp388": {
        "offset_sigma_pa": 50.0,  # BMP388 DS001: absolute accuracy +-0.50 hPa (0 .. 65 deg C)
        "bias_sigma_pa": 8.0,  # BMP388 DS001: relative accuracy +-0.08 hPa (25 .. 40 deg C)
        "temp_coeff_pa_per_k": 0.75,  # BMP388 DS001: temperature coefficient of offset +-0.75 Pa/K
    },
    # Bosch Sensortec BMP390 (data sheet BST-BMP390-DS002, rev. 1.7, Table 2), 300 .. 1250 hPa
    "bmp390": {
        "offset_sigma_pa": 50.0,  # BMP390 DS002: absolute accuracy +-0.50 hPa
        "bias_sigma_pa": 3.0,  # BMP390 DS002: relative accuracy +-0.03 hPa
        # BMP390 DS002: temperature coefficient of offset +-0.6 Pa/K (not confirmed against the
        # sheet: the summaries of DS002-07 read for this say "best-in-class TCO" only)
        "temp_coeff_pa_per_k": 0.6,
    },
}

#: mag.preset -> the ``mag`` keys it sets. A generic installation, navsense's choice with its
#: reasoning (no datasheet gives a vehicle's iron: it is the installation's, not the sensor's).
#: Uncalibrated: a hard iron comparable to the Earth's field (25 .. 65 uT, the WMM's range) on
#: every axis, from the vehicle's steel and the board's parts, and a soft iron of a few percent
#: of scale and cross-coupling; calibrated: what an ellipsoid fit (as Freescale AN4246 or
#: MATLAB magcal describe) typically leaves, about 1 uT and a few tenths of a percent.
MAG_PRESETS: dict[str, dict[str, list[float]]] = {
    "uncalibrated": {
        "hard_iron_ut": [25.0, -15.0, 40.0],  # navsense choice: of the Earth's field's size
        "soft_iron_matrix": [
            *(1.05, 0.03, -0.02),  # navsense choice: scale 3 .. 5 %, cross-coupling 2 .. 4 %
            *(0.03, 0.97, 0.04),
            *(-0.02, 0.04, 1.02),
        ],
    },
    "calibrated": {
        "hard_iron_ut": [0.6, -0.4, 0.9],  # navsense choice: an ellipsoid fit's residual ~1 uT
        "soft_iron_matrix": [
            *(1.004, 0.002, -0.001),  # navsense choice: residual scale and coupling < 0.5 %
            *(0.002, 0.997, 0.003),
            *(-0.001, 0.003, 1.002),
        ],
    },
}
