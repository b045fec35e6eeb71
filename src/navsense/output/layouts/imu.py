"""imu.jsonl: the ACRES IMU's keys (specification "IMU"), and the configurable IMU's deltas.

Keys, in order: ``specific_force_flu_mps2`` (6 decimals) and ``angular_velocity_flu_radps``
(8 decimals), the specification's; with ``output_info()["delta_outputs"]`` (the configurable
IMU, a navsense extension) also ``delta_velocity_flu_mps`` (8 decimals) and
``delta_angle_flu_rad`` (10 decimals), decimals chosen as the rate's and two more.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from navsense.output.layouts.rounded import RoundedKeys

__all__ = ["ImuLayout", "IMU_KEYS", "DELTA_KEYS"]

FORCE_DECIMALS = 6  # specification, "IMU": specific_force_flu_mps2 with 6 decimals
RATE_DECIMALS = 8  # specification, "IMU": angular_velocity_flu_radps with 8 decimals
DELTA_V_DECIMALS = 8  # navsense extension keys, decimals chosen as the rate's
DELTA_ANGLE_DECIMALS = 10

IMU_KEYS = (
    ("specific_force_flu_mps2", FORCE_DECIMALS),
    ("angular_velocity_flu_radps", RATE_DECIMALS),
)
DELTA_KEYS = (
    ("delta_velocity_flu_mps", DELTA_V_DECIMALS),
    ("delta_angle_flu_rad", DELTA_ANGLE_DECIMALS),
)


class ImuLayout(RoundedKeys):
    """The rows of ``imu.jsonl``; ``info["delta_outputs"]`` adds the delta keys."""

    def __init__(self, info: Mapping[str, Any]) -> None:
        super().__init__(info)
        self.keys = IMU_KEYS + (DELTA_KEYS if info.get("delta_outputs") else ())
