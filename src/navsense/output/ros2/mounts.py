"""The sensor frames of a navsense ROS 2 bag: where each is on the vehicle (``/tf_static``).

Every frame a message names is a point of the rigid vehicle with axes, given here as a static
transform from ``base_footprint`` (the middle of the rear axle on the ground, body FLU axes):
the frame's origin in base_footprint coordinates and the rotation of its axes. The lever arms
are the run's, as episode.json records them (its ``vehicle`` and ``config``: each sensor's
``position_flu_m`` in ``mount_frame``, DESIGN.md ruling "Mounts"; the INS point as
``ins.point_chassis_flu_m``)::

    r_P                   the point in chassis FLU (navsense.vehicles.lever_arm_from_chassis)
    translation = r_P - r_F        r_F = base_footprint in chassis FLU = (-0.4 wheelbase, 0, -cg)

==================  ======================================  ======================================
frame               point                                   axes (rotation from base_footprint)
==================  ======================================  ======================================
oxts_link           the INS point (ins.position_flu_m)      the OxTS mounting axes: x left,
                                                            y forward, z down (OXTS_MOUNT_XYZW)
navsat_link         the INS point                           FLU (identity)
gnss_link           the GNSS antenna (gnss.antenna_flu_m);  FLU
                    in a Maxxum bag with the INS on: the
                    INS point (its /gnss/fix, the
                    specification's frame)
gnss_antenna_link   the GNSS antenna (the receiver's fix    FLU
                    in a Maxxum bag with the INS on)
imu_link            the IMU point (imu.position_flu_m)      FLU; the configurable IMU's platform
                                                            axes (imu.configurable.platform_ypr_deg)
mag_link            the chassis origin (the magnetometer's  FLU
                    field point)
baro_link           the barometer point (baro.position_flu_m)  FLU
==================  ======================================  ======================================

The platform axes: [PB] = M1(roll) M2(pitch) M3(yaw) maps body components to platform
components, so the platform's axes in base_footprint are the active rotation
q_z(yaw) q_y(pitch) q_x(roll) (its matrix is [PB]^T).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from navsense.rotation import quat_from_euler_zyx
from navsense.vehicles import lever_arm_from_chassis, vehicle_profile

__all__ = [
    "BASE_FRAME",
    "WORLD_FRAME",
    "Mount",
    "OXTS_MOUNT_XYZW",
    "chassis_points",
    "sensor_mounts",
    "static_transforms",
]

BASE_FRAME = "base_footprint"  # the vehicle's frame: every sensor frame's parent
WORLD_FRAME = "utm"  # the frame of the poses (UTM grid, zone ins.utm_zone)

# spec "Outputs": q_imu = q_ins (x) (1/sqrt2, 1/sqrt2, 0, 0)_xyzw -- the rotation from the OxTS
# mounting axes (x left, y forward, z down) to body FLU (a half turn about (1, 1, 0)/sqrt2)
OXTS_MOUNT_XYZW = np.array([math.sqrt(0.5), math.sqrt(0.5), 0.0, 0.0])
_IDENTITY = (0.0, 0.0, 0.0, 1.0)


@dataclass(frozen=True)
class Mount:
    """A sensor frame: its origin in base_footprint (FLU, m) and its axes' rotation (x y z w)."""

    frame: str
    translation_m: tuple[float, float, float]
    rotation_xyzw: tuple[float, float, float, float] = _IDENTITY


def chassis_points(episode: Mapping) -> dict[str, np.ndarray]:
    """The run's points in chassis FLU coordinates (m): ``ins`` (episode.json
    ins.point_chassis_flu_m, else ins.position_flu_m of the configuration), ``antenna``, ``imu``,
    ``baro`` (their position_flu_m in mount_frame), ``mag`` (the chassis origin) and
    ``base_footprint``. ``episode``: episode.json, or its keys ``vehicle`` and ``config``."""
    vehicle = vehicle_profile(str(episode.get("vehicle") or "polaris"))
    cfg = episode.get("config") or {}
    mount = str(cfg.get("mount_frame", "chassis"))

    def arm(section: str, key: str = "position_flu_m") -> np.ndarray:
        value = (cfg.get(section) or {}).get(key) or (0.0, 0.0, 0.0)
        return lever_arm_from_chassis(value, mount, vehicle)

    ins_point = (episode.get("ins") or {}).get("point_chassis_flu_m")
    return {
        "ins": np.asarray(ins_point, dtype=np.float64) if ins_point is not None else arm("ins"),
        "antenna": arm("gnss", "antenna_flu_m"),
        "imu": arm("imu"),
        "baro": arm("baro"),
        "mag": np.zeros(3),
        "base_footprint": np.asarray(vehicle.footprint_in_chassis_m, dtype=np.float64),
    }


def _platform_xyzw(cfg: Mapping) -> tuple[float, float, float, float]:
    """The configurable IMU's platform axes in body axes (identity for the ACRES IMU)."""
    imu = cfg.get("imu") or {}
    if imu.get("model", "acres") != "configurable":
        return _IDENTITY
    ypr = (imu.get("configurable") or {}).get("platform_ypr_deg") or (0.0, 0.0, 0.0)
    if not any(ypr):
        return _IDENTITY
    yaw, pitch, roll = (math.radians(float(a)) for a in ypr)
    q = quat_from_euler_zyx(np.array([yaw]), np.array([pitch]), np.array([roll]))[0]
    return tuple(float(x) for x in q)  # type: ignore[return-value]


def sensor_mounts(episode: Mapping, *, gnss_link_is_ins: bool = False) -> dict[str, Mount]:
    """Every sensor frame of the table above (module docstring), by name. ``gnss_link_is_ins``:
    gnss_link is the INS point (a Maxxum bag with the INS on)."""
    points = chassis_points(episode)
    base = points["base_footprint"]
    cfg = episode.get("config") or {}

    def at(point: str) -> tuple[float, float, float]:
        return tuple(float(x) for x in points[point] - base)  # type: ignore[return-value]

    oxts = tuple(float(x) for x in OXTS_MOUNT_XYZW)
    mounts = [
        Mount("oxts_link", at("ins"), oxts),  # type: ignore[arg-type]
        Mount("navsat_link", at("ins")),
        Mount("gnss_link", at("ins") if gnss_link_is_ins else at("antenna")),
        Mount("gnss_antenna_link", at("antenna")),
        Mount("imu_link", at("imu"), _platform_xyzw(cfg)),
        Mount("mag_link", at("mag")),
        Mount("baro_link", at("baro")),
    ]
    return {m.frame: m for m in mounts}


def static_transforms(
    frames: Iterable[str], mounts: Mapping[str, Mount]
) -> tuple[tuple[tuple[str, str], ...], np.ndarray, np.ndarray]:
    """The (parent, child) pairs, (1, n, 3) translations and (1, n, 4) rotations of the static
    transforms from base_footprint to ``frames`` (in that order; base_footprint and the world
    frame are not sensor frames and are left out)."""
    chosen = [mounts[f] for f in frames if f not in (BASE_FRAME, WORLD_FRAME)]
    pairs = tuple((BASE_FRAME, m.frame) for m in chosen)
    translation = np.array([[m.translation_m for m in chosen]], dtype=np.float64).reshape(1, -1, 3)
    rotation = np.array([[m.rotation_xyzw for m in chosen]], dtype=np.float64).reshape(1, -1, 4)
    return pairs, translation, rotation
