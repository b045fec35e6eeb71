"""The ``mag`` section (the magnetometer, a navsense extension), typed."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

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
    seed: int
    noise: bool
    start_utc: str

    @classmethod
    def from_validated(cls, cfg: Mapping[str, Any]) -> MagConfig:
        """From the effective configuration that navsense.config validated (no check here)."""
        mag = cfg["mag"]
        return cls(
            enabled=bool(mag["enabled"]),
            hz=float(mag["hz"]),
            noise_std_ut=float(mag["noise_std_ut"]),
            hard_iron_ut=tuple(float(x) for x in mag["hard_iron_ut"]),
            soft_iron_matrix=tuple(float(x) for x in mag["soft_iron_matrix"]),
            seed=int(cfg["seed"]),
            noise=bool(cfg["noise"]),
            start_utc=str(cfg["gnss"]["datum"]["start_utc"]),
        )
