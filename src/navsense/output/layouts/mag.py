"""mag.jsonl: ``magnetic_field_flu_ut`` [x, y, z] in uT with 4 decimals (0.1 nT)."""

from __future__ import annotations

from navsense.output.layouts.rounded import RoundedKeys

__all__ = ["MagLayout"]

FIELD_DECIMALS = 4  # magnetic_field_flu_ut: 4 decimals of uT = 0.1 nT


class MagLayout(RoundedKeys):
    """The rows of ``mag.jsonl`` (the magnetometer, a navsense extension)."""

    keys = (("magnetic_field_flu_ut", FIELD_DECIMALS),)
