"""The ``imu`` section with ``imu.model`` "configurable" (the configurable IMU), typed.

Each key of ``imu.configurable.gyro`` / ``.accel`` that is null (its default) takes the value of
``imu.preset`` (navsense.config.imu_presets), else what the table of keys says a null means
(``Field.null_means``, navsense.config.keys: zero, no such error). A preset may give one number
for the three axes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from navsense.config.fields import Field
from navsense.config.imu_presets import PRESETS
from navsense.config.keys import ROUND_DIRECTIONS
from navsense.config.typed.keyed import build, key, section
from navsense.config.typed.vibration import VibrationConfig

__all__ = ["ConfigurableImuConfig", "SensorErrors", "sensor_keys", "ROUND_DIRECTIONS"]

_SCALARS = ("bias_instability_tau_s", "lsb", "saturation")


def sensor_keys(sensor: str) -> dict[str, str]:
    """Field name -> configuration key of ``imu.configurable.<sensor>`` (gyro or accel): the
    fields of :class:`SensorErrors` in the order of the section's keys (the keys carry the
    unit, ``bias_radps``; the field does not, ``bias``; the accelerometer has no
    g-sensitivity)."""
    names = [f.name for f in fields(SensorErrors)]
    return dict(zip(names, section(f"imu.configurable.{sensor}").fields))


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

    noise_density: np.ndarray
    bias_instability: np.ndarray
    bias_instability_tau_s: float
    random_walk: np.ndarray
    random_walk_bound: np.ndarray
    bias: np.ndarray
    turn_on_bias_sigma: np.ndarray
    scale_factor_ppm: np.ndarray
    misalignment_rad: np.ndarray
    temp_bias_per_k: np.ndarray
    temp_scale_ppm_per_k: np.ndarray
    lsb: float
    carry_error: bool
    round_direction: str
    saturation: float
    g_sensitivity: np.ndarray  # the accelerometer has none: zeros

    @classmethod
    def from_validated(
        cls, sensor: str, explicit: Mapping[str, Any], preset: Mapping[str, Any]
    ) -> SensorErrors:
        """Explicit keys (not null) win over the preset's; a key null in both (``explicit`` has
        every key: the validated configuration) takes what its null means (the table's
        ``null_means``)."""
        kw: dict[str, Any] = {"g_sensitivity": np.zeros(3)}
        block = section(f"imu.configurable.{sensor}")
        for f, name in sensor_keys(sensor).items():
            value = explicit[name]
            if value is None:
                value = preset.get(name)
            if value is None:
                node = block.fields[name]
                assert isinstance(node, Field)
                value = node.null_means
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
    mount_frame: str = field(metadata=key("mount_frame"))
    seed: int = field(metadata=key("seed"))
    noise: bool = field(metadata=key("noise"))
    preset: str
    platform_ypr_deg: tuple[float, ...] = field(metadata=key("imu.configurable.platform_ypr_deg"))
    temperature_c: float = field(metadata=key("imu.configurable.temperature_c"))
    reference_temperature_c: float = field(metadata=key("imu.configurable.reference_temperature_c"))
    deltas: str = field(metadata=key("imu.configurable.deltas"))
    bandwidth_hz: float = field(metadata=key("imu.configurable.bandwidth_hz"))
    gyro: SensorErrors
    accel: SensorErrors
    earth: str
    vibration: VibrationConfig  # imu.vibration

    @classmethod
    def from_validated(cls, cfg: Mapping[str, Any]) -> ConfigurableImuConfig:
        """From the effective configuration that navsense.config validated (no check here)."""
        imu = cfg["imu"]
        pre = PRESETS.get(imu["preset"], {})  # "none": no preset
        conf = imu["configurable"]
        return build(
            cls,
            cfg,
            "imu",
            gyro=SensorErrors.from_validated("gyro", conf["gyro"], pre.get("gyro", {})),
            accel=SensorErrors.from_validated("accel", conf["accel"], pre.get("accel", {})),
            vibration=VibrationConfig.from_validated(cfg),
        )
