"""The ``imu`` section for the ACRES IMU (specification "Parameters", IMU), typed."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from navsense.config.typed.keyed import build, key

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
    vibration_sines: tuple = field(metadata=key("imu.vibration.sines"))
    vibration_psd: tuple[float, ...] = field(metadata=key("imu.vibration.random_psd_g2_per_hz"))
    vibration_band: tuple[float, ...] = field(metadata=key("imu.vibration.random_band_hz"))
    vibration_rms: tuple[float, ...] = field(metadata=key("imu.vibration.random_rms_g"))
    engine_idle_rpm: float = field(metadata=key("imu.vibration.engine_idle_rpm"))
    engine_rpm_per_mps: float = field(metadata=key("imu.vibration.engine_rpm_per_mps"))
    engine_order: float = field(metadata=key("imu.vibration.engine_order"))
    engine_accel_mps2: tuple[float, ...] = field(metadata=key("imu.vibration.engine_accel_mps2"))
    engine_orders: tuple = field(metadata=key("imu.vibration.engine_orders"))

    @classmethod
    def from_validated(cls, cfg: Mapping[str, Any]) -> ImuConfig:
        """From the effective configuration that navsense.config validated (no check here)."""
        return build(cls, cfg, "imu")
