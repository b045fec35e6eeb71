"""The ``baro`` section (the barometer, a navsense extension), typed."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["BaroConfig"]


@dataclass(frozen=True)
class BaroConfig:
    """The barometer's settings, with the run's seed, noise switch and mount frame.

    Pressures in Pa, ``bias_tau_s`` in s, ``base_altitude_m`` and ``position_flu_m`` in m.
    """

    enabled: bool
    hz: float
    noise_std_pa: float
    bias_sigma_pa: float
    bias_tau_s: float
    base_altitude_m: float
    position_flu_m: tuple[float, ...]
    mount_frame: str
    seed: int
    noise: bool

    @classmethod
    def from_validated(cls, cfg: Mapping[str, Any]) -> BaroConfig:
        """From the effective configuration that navsense.config validated (no check here)."""
        b = cfg["baro"]
        return cls(
            enabled=bool(b["enabled"]),
            hz=float(b["hz"]),
            noise_std_pa=float(b["noise_std_pa"]),
            bias_sigma_pa=float(b["bias_sigma_pa"]),
            bias_tau_s=float(b["bias_tau_s"]),
            base_altitude_m=float(b["base_altitude_m"]),
            position_flu_m=tuple(float(x) for x in b["position_flu_m"]),
            mount_frame=str(cfg["mount_frame"]),
            seed=int(cfg["seed"]),
            noise=bool(cfg["noise"]),
        )
