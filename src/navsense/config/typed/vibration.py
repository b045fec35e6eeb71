"""The ``imu.vibration`` block (issue 30 item 2), typed: one record both IMUs carry, so a
vibration key is declared once for the ACRES IMU and the configurable IMU alike
(navsense.sensors.vibration.imu_vibrations builds the models from it)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from navsense.config.typed.keyed import build

__all__ = ["VibrationConfig"]


@dataclass(frozen=True)
class VibrationConfig:
    """Sines, band-limited random vibration and engine orders at the IMU point, each field the
    key ``imu.vibration.<name>`` (units in navsense.config.vibration)."""

    sines: tuple
    random_psd_g2_per_hz: tuple[float, ...]
    random_band_hz: tuple[float, ...]
    random_rms_g: tuple[float, ...]
    engine_idle_rpm: float
    engine_rpm_per_mps: float
    engine_order: float
    engine_accel_mps2: tuple[float, ...]
    engine_orders: tuple

    @classmethod
    def from_validated(cls, cfg: Mapping[str, Any]) -> VibrationConfig:
        """From the effective configuration that navsense.config validated (no check here)."""
        return build(cls, cfg, "imu.vibration")
