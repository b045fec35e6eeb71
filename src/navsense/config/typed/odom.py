"""The ``odom`` section (the wheel odometer, a navsense extension), typed."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from navsense.config.typed.keyed import build, key

__all__ = ["OdomConfig"]


@dataclass(frozen=True)
class OdomConfig:
    """The wheel odometer's settings, with the run's seed and noise switch.

    ``noise_std_mps`` in m/s, ``scale_factor_sigma`` dimensionless, ``encoder_tick_m`` in m
    (0: no ticks).
    """

    enabled: bool
    hz: float
    noise_std_mps: float
    scale_factor_sigma: float
    encoder_tick_m: float
    seed: int = field(metadata=key("seed"))
    noise: bool = field(metadata=key("noise"))

    @classmethod
    def from_validated(cls, cfg: Mapping[str, Any]) -> OdomConfig:
        """From the effective configuration that navsense.config validated (no check here)."""
        return build(cls, cfg, "odom")
