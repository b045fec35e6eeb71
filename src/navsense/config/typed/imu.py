"""The ``imu`` section for the ACRES IMU (specification "Parameters", IMU), typed."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from navsense.config.typed.keyed import build, key
from navsense.config.typed.vibration import VibrationConfig

__all__ = ["ImuConfig"]


@dataclass(frozen=True)
class ImuConfig:
    """The ACRES IMU's settings, with the run's seed, noise switch and mount frame.

    Rates in Hz, standard deviations in m/s^2 and rad/s, ``position_flu_m`` in ``mount_frame``
    axes (chassis or base_footprint), m. ``earth`` imu.earth ("none" or "wgs84",
    navsense.geo.earth).
    """

    enabled: bool
    hz: float
    accel_std_mps2: float
    gyro_std_radps: float
    accel_bias_mps2: float
    gyro_bias_radps: float
    position_flu_m: tuple[float, ...]
    mount_frame: str = field(metadata=key("mount_frame"))
    seed: int = field(metadata=key("seed"))
    noise: bool = field(metadata=key("noise"))
    earth: str
    vibration: VibrationConfig  # imu.vibration

    @classmethod
    def from_validated(cls, cfg: Mapping[str, Any]) -> ImuConfig:
        """From the effective configuration that navsense.config validated (no check here)."""
        return build(cls, cfg, "imu", vibration=VibrationConfig.from_validated(cfg))
