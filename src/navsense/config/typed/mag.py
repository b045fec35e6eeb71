"""The ``mag`` section (the magnetometer, a navsense extension), typed."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from navsense.config.typed.keyed import build, key

__all__ = ["MagConfig"]


@dataclass(frozen=True)
class MagConfig:
    """The magnetometer's settings, with the run's seed, noise switch and start time (UTC).

    ``noise_std_ut`` and ``hard_iron_ut`` in uT; ``soft_iron_matrix`` 9 numbers, row-major 3 x 3.
    """

    enabled: bool
    hz: float
    noise_std_ut: float
    hard_iron_ut: tuple[float, ...]
    soft_iron_matrix: tuple[float, ...]
    seed: int = field(metadata=key("seed"))
    noise: bool = field(metadata=key("noise"))
    start_utc: str = field(metadata=key("gnss.datum.start_utc"))

    @classmethod
    def from_validated(cls, cfg: Mapping[str, Any]) -> MagConfig:
        """From the effective configuration that navsense.config validated (no check here)."""
        return build(cls, cfg, "mag")
