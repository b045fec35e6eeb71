"""The ``imu`` section for the ACRES IMU (specification "Parameters", IMU), typed."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

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
    mount_frame: str
    seed: int
    noise: bool
    earth: str

    @classmethod
    def from_validated(cls, cfg: Mapping[str, Any]) -> ImuConfig:
        """From the effective configuration that navsense.config validated (no check here)."""
        imu = cfg["imu"]
        return cls(
            enabled=bool(imu["enabled"]),
            hz=float(imu["hz"]),
            accel_std_mps2=float(imu["accel_std_mps2"]),
            gyro_std_radps=float(imu["gyro_std_radps"]),
            accel_bias_mps2=float(imu["accel_bias_mps2"]),
            gyro_bias_radps=float(imu["gyro_bias_radps"]),
            position_flu_m=tuple(float(x) for x in imu["position_flu_m"]),
            mount_frame=str(cfg["mount_frame"]),
            seed=int(cfg["seed"]),
            noise=bool(cfg["noise"]),
            earth=str(imu["earth"]),
        )
