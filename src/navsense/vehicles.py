"""Vehicle profiles and sensor mounts (specification "Frames and Sample Times"; DESIGN.md ruling "Mounts").

A mount in ``base_footprint`` is given from the middle of the rear axle on the ground; the chassis
origin is 0.4 wheelbase ahead of it, at the height of the centre of gravity. So a lever arm r given
in base_footprint is r - (0.4 wheelbase, 0, cg_height) from the chassis origin.

The wheelbases and centre-of-gravity heights are estimates (no measured values are published):
Polaris (Ranger-class utility vehicle) wheelbase 2.06 m, cg height 0.60 m; Maxxum (Case IH Maxxum
tractor) wheelbase 2.69 m, cg height 1.10 m.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from navsense.errors import ConfigError

__all__ = [
    "VehicleProfile",
    "VEHICLES",
    "vehicle_profile",
    "lever_arm_from_chassis",
    "BASE_FOOTPRINT_AHEAD_FRACTION",
]

BASE_FOOTPRINT_AHEAD_FRACTION = 0.4  # chassis origin ahead of the rear axle, fraction of wheelbase


@dataclass(frozen=True)
class VehicleProfile:
    """A vehicle's geometry: ``wheelbase_m`` and ``cg_height_m`` (estimates)."""

    name: str
    wheelbase_m: float
    cg_height_m: float

    @property
    def footprint_in_chassis_m(self) -> np.ndarray:
        """base_footprint's origin in chassis FLU coordinates, m."""
        return np.array([-BASE_FOOTPRINT_AHEAD_FRACTION * self.wheelbase_m, 0.0, -self.cg_height_m])


VEHICLES = {
    "polaris": VehicleProfile("polaris", wheelbase_m=2.06, cg_height_m=0.60),
    "maxxum": VehicleProfile("maxxum", wheelbase_m=2.69, cg_height_m=1.10),
}


def vehicle_profile(name: str) -> VehicleProfile:
    """The profile named ``name``; a ConfigError lists the known ones."""
    try:
        return VEHICLES[name]
    except KeyError:
        raise ConfigError(
            f"vehicle = {name!r} is not one of {', '.join(sorted(VEHICLES))}"
        ) from None


def lever_arm_from_chassis(r_m, mount_frame: str, vehicle: VehicleProfile) -> np.ndarray:
    """A lever arm given in ``mount_frame`` as FLU metres from the chassis origin."""
    r = np.asarray(r_m, dtype=np.float64)
    if mount_frame == "chassis":
        return r.copy()
    if mount_frame == "base_footprint":
        return r + vehicle.footprint_in_chassis_m
    raise ConfigError(f"mount_frame = {mount_frame!r} is not one of chassis, base_footprint")
