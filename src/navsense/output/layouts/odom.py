"""odom.jsonl: ``speed_mps`` and ``distance_m``, 4 decimals each (0.1 mm/s, 0.1 mm)."""

from __future__ import annotations

from navsense.output.layouts.rounded import RoundedKeys

__all__ = ["OdomLayout"]

SPEED_DECIMALS = 4  # speed_mps: 0.1 mm/s
DISTANCE_DECIMALS = 4  # distance_m: 0.1 mm


class OdomLayout(RoundedKeys):
    """The rows of ``odom.jsonl`` (the wheel odometer, a navsense extension)."""

    keys = (("speed_mps", SPEED_DECIMALS), ("distance_m", DISTANCE_DECIMALS))
