"""baro.jsonl: ``pressure_pa`` (2 decimals, 0.01 Pa) and ``pressure_altitude_m`` (3, 1 mm)."""

from __future__ import annotations

from navsense.output.layouts.rounded import RoundedKeys

__all__ = ["BaroLayout"]

PRESSURE_DECIMALS = 2  # pressure_pa: 0.01 Pa
ALTITUDE_DECIMALS = 3  # pressure_altitude_m: 1 mm


class BaroLayout(RoundedKeys):
    """The rows of ``baro.jsonl`` (the barometer, a navsense extension; its bias is not a key)."""

    keys = (("pressure_pa", PRESSURE_DECIMALS), ("pressure_altitude_m", ALTITUDE_DECIMALS))
