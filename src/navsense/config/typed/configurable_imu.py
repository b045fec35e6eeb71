"""The ``imu`` section with ``imu.model`` "configurable" (the configurable IMU), typed.

Each key of ``imu.configurable.gyro`` / ``.accel`` that is null (code_defaults.json's value)
takes the value of ``imu.preset`` (navsense.config.imu_presets), else its default below (zero:
no such error). A preset may give one number for the three axes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from navsense.config.imu_presets import PRESETS

__all__ = ["ConfigurableImuConfig", "SensorErrors", "sensor_keys"]

#: per-sensor key templates of ``imu.configurable.gyro`` / ``.accel``: {u} the sensor's unit
#: (radps, mps2), {rw} its random-walk unit (radps2_rthz, mps3_rthz).
_SENSOR_KEYS = {
    "noise_density": "noise_density_{u}_rthz",
    "bias_instability": "bias_instability_{u}",
    "bias_instability_tau_s": "bias_instability_tau_s",
    "random_walk": "random_walk_{rw}",
    "random_walk_bound": "random_walk_bound_{u}",
    "bias": "bias_{u}",
    "turn_on_bias_sigma": "turn_on_bias_sigma_{u}",
    "scale_factor_ppm": "scale_factor_ppm",
    "misalignment_rad": "misalignment_rad",
    "temp_bias_per_k": "temp_bias_{u}_per_k",
    "temp_scale_ppm_per_k": "temp_scale_ppm_per_k",
    "lsb": "lsb_{u}",
    "carry_error": "carry_error",
    "round_direction": "round_direction",
    "saturation": "saturation_{u}",
    "g_sensitivity": "g_sensitivity_radps_per_mps2",  # gyro only
}
_UNITS = {"gyro": ("radps", "radps2_rthz"), "accel": ("mps2", "mps3_rthz")}
_SCALARS = ("bias_instability_tau_s", "lsb", "saturation")


def sensor_keys(sensor: str) -> dict[str, str]:
    """Field name -> configuration key of ``imu.configurable.<sensor>`` (gyro or accel)."""
    u, rw = _UNITS[sensor]
    keys = {f: k.format(u=u, rw=rw) for f, k in _SENSOR_KEYS.items()}
    if sensor != "gyro":
        del keys["g_sensitivity"]
    return keys


def _three(value) -> np.ndarray:
    """Three numbers, from three or from one for every axis."""
    v = np.asarray(value, dtype=np.float64).reshape(-1)
    return np.repeat(v, 3) if v.size == 1 else v


@dataclass(frozen=True)
class SensorErrors:
    """Continuous-time error parameters of one sensor triad (3-vectors in sensor axes).

    Units: the sensor's unit x (rad/s or m/s^2); noise_density x/sqrt(Hz) (= rad/sqrt(s) angle
    random walk, m/s/sqrt(s) velocity random walk); random_walk x/s/sqrt(Hz); *_per_k per kelvin.
    ``misalignment_rad`` keeps the off-diagonal terms of its 3 x 3 matrix (the diagonal is the
    scale factor); ``round_direction`` to_zero, from_zero or near; ``saturation`` 0: none.
    """

    noise_density: np.ndarray = field(default_factory=lambda: np.zeros(3))
    bias_instability: np.ndarray = field(default_factory=lambda: np.zeros(3))
    bias_instability_tau_s: float = 100.0
    random_walk: np.ndarray = field(default_factory=lambda: np.zeros(3))
    random_walk_bound: np.ndarray = field(default_factory=lambda: np.zeros(3))
    bias: np.ndarray = field(default_factory=lambda: np.zeros(3))
    turn_on_bias_sigma: np.ndarray = field(default_factory=lambda: np.zeros(3))
    scale_factor_ppm: np.ndarray = field(default_factory=lambda: np.zeros(3))
    misalignment_rad: np.ndarray = field(default_factory=lambda: np.zeros((3, 3)))
    temp_bias_per_k: np.ndarray = field(default_factory=lambda: np.zeros(3))
    temp_scale_ppm_per_k: np.ndarray = field(default_factory=lambda: np.zeros(3))
    lsb: float = 0.0
    carry_error: bool = False
    round_direction: str = "near"
    saturation: float = 0.0
    g_sensitivity: np.ndarray = field(default_factory=lambda: np.zeros(3))

    @classmethod
    def from_validated(
        cls, sensor: str, explicit: Mapping[str, Any], preset: Mapping[str, Any]
    ) -> SensorErrors:
        """Explicit keys (not null) win over the preset's; a key null in both (``explicit`` has
        every key: the validated configuration) takes the default."""
        kw: dict[str, Any] = {}
        for f, key in sensor_keys(sensor).items():
            value = explicit[key]
            if value is None:
                value = preset.get(key)
            if value is None:
                continue
            if f in _SCALARS:
                kw[f] = float(value)
            elif f == "carry_error":
                kw[f] = bool(value)
            elif f == "round_direction":
                kw[f] = str(value)
            elif f == "misalignment_rad":
                kw[f] = np.asarray(value, dtype=np.float64).reshape(3, 3) * (1.0 - np.eye(3))
            else:
                kw[f] = _three(value)
        return cls(**kw)


@dataclass(frozen=True)
class ConfigurableImuConfig:
    """The configurable IMU's settings, with the run's seed, noise switch and mount frame.

    ``platform_ypr_deg`` the body-to-platform yaw, pitch, roll (deg, 3-2-1); temperatures in
    deg C; ``preset`` the name of ``imu.preset`` ("none": no preset); ``earth`` imu.earth
    (navsense.geo.earth).
    """

    hz: float
    position_flu_m: tuple[float, ...]
    mount_frame: str
    seed: int
    noise: bool
    preset: str
    platform_ypr_deg: tuple[float, ...]
    temperature_c: float
    reference_temperature_c: float
    gyro: SensorErrors
    accel: SensorErrors
    earth: str

    @classmethod
    def from_validated(cls, cfg: Mapping[str, Any]) -> ConfigurableImuConfig:
        """From the effective configuration that navsense.config validated (no check here)."""
        imu = cfg["imu"]
        name = imu["preset"]
        pre = PRESETS.get(name, {})  # "none": no preset
        conf = imu["configurable"]
        return cls(
            hz=float(imu["hz"]),
            position_flu_m=tuple(float(x) for x in imu["position_flu_m"]),
            mount_frame=str(cfg["mount_frame"]),
            seed=int(cfg["seed"]),
            noise=bool(cfg["noise"]),
            preset=name,
            platform_ypr_deg=tuple(float(x) for x in conf["platform_ypr_deg"]),
            temperature_c=float(conf["temperature_c"]),
            reference_temperature_c=float(conf["reference_temperature_c"]),
            gyro=SensorErrors.from_validated("gyro", conf["gyro"], pre.get("gyro", {})),
            accel=SensorErrors.from_validated("accel", conf["accel"], pre.get("accel", {})),
            earth=str(imu["earth"]),
        )
