"""The ``baro`` section (the barometer, a navsense extension), typed."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from navsense.config.typed.keyed import build, key

__all__ = ["BaroConfig"]


@dataclass(frozen=True)
class BaroConfig:
    """The barometer's settings, with the run's seed, noise switch and mount frame.

    Pressures in Pa, ``bias_tau_s`` and ``weather_tau_s`` in s, ``temp_coeff_pa_per_k`` in Pa/K,
    ``temperature_c`` in deg C, ``base_altitude_m`` and ``position_flu_m`` in m.
    """

    enabled: bool
    hz: float
    noise_std_pa: float
    bias_sigma_pa: float
    bias_tau_s: float
    base_altitude_m: float
    position_flu_m: tuple[float, ...]
    offset_sigma_pa: float
    temp_coeff_pa_per_k: float
    temperature_c: float
    weather_sigma_pa: float
    weather_tau_s: float
    preset: str
    mount_frame: str = field(metadata=key("mount_frame"))
    seed: int = field(metadata=key("seed"))
    noise: bool = field(metadata=key("noise"))

    @classmethod
    def from_validated(cls, cfg: Mapping[str, Any]) -> BaroConfig:
        """From the effective configuration that navsense.config validated (no check here)."""
        return build(cls, cfg, "baro")
