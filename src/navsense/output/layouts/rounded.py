"""A layout whose row keys are block keys, each rounded to its decimals (imu, mag, baro, odom)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from navsense.output.columns import Column

__all__ = ["RoundedKeys"]


class RoundedKeys:
    """Rows with the keys ``keys`` (name, decimals) of the block, in that order: np.round.

    A subclass names its keys; ``output_info`` is the model's per-run data (unused here)."""

    keys: tuple[tuple[str, int], ...] = ()

    def __init__(self, info: Mapping[str, Any]) -> None:
        self.info = info

    def columns(self, block: Mapping[str, Any]) -> list[Column]:
        return [Column(name, np.round(block[name], decimals)) for name, decimals in self.keys]

    def extra(self, block: Mapping[str, Any]) -> None:
        return None
