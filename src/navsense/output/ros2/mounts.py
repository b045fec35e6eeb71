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

The frames are those of the sensors' records in navsense.suite.SENSORS (``Sensor.frames``: the
frame, the key of its lever arm in the sensor's section, its axes), each at
:func:`sensor_point`; gnss_antenna_link and the Maxxum's gnss_link are this module's rule.

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
from navsense.runs.episode import Episode
from navsense.suite import SENSORS, resolve

__all__ = [
    "ANTENNA_BESIDE_INS",
    "BASE_FRAME",
    "GNSS_LINK",
    "WORLD_FRAME",
    "Mount",
    "OXTS_MOUNT_XYZW",
    "footprint_point",
    "imu_platform_xyzw",
    "oxts_mount_xyzw",
    "sensor_mounts",
    "sensor_point",
    "static_transforms",
]

BASE_FRAME = "base_footprint"  # the vehicle's frame: every sensor frame's parent
WORLD_FRAME = "utm"  # the frame of the poses (UTM grid, zone ins.utm_zone)

# spec "Outputs": q_imu = q_ins (x) (1/sqrt2, 1/sqrt2, 0, 0)_xyzw -- the rotation from the OxTS
# mounting axes (x left, y forward, z down) to body FLU (a half turn about (1, 1, 0)/sqrt2)
OXTS_MOUNT_XYZW = np.array([math.sqrt(0.5), math.sqrt(0.5), 0.0, 0.0])
_IDENTITY = (0.0, 0.0, 0.0, 1.0)
GNSS_LINK = "gnss_link"  # the GNSS receiver's frame
INS_POINT_FRAME = "navsat_link"  # the INS point, FLU axes
#: The receiver's antenna in a Maxxum bag with the INS on, whose /gnss/fix (the INS's) names
#: gnss_link, there the INS point (the specification's frame).
ANTENNA_BESIDE_INS = "gnss_antenna_link"


@dataclass(frozen=True)
class Mount:
    """A sensor frame: its origin in base_footprint (FLU, m) and its axes' rotation (x y z w)."""

    frame: str
    translation_m: tuple[float, float, float]
    rotation_xyzw: tuple[float, float, float, float] = _IDENTITY


def sensor_point(episode: Episode, sensor: str, arm: str | None = "position_flu_m") -> np.ndarray:
    """A point of the run's sensor ``sensor`` in chassis FLU coordinates (m): episode.json's
    ``<sensor>.point_chassis_flu_m`` when the model recorded it (the INS), else the key ``arm``
    of the sensor's configuration section (a lever arm in ``mount_frame`` axes), else (``arm``
    None) the chassis origin (:meth:`navsense.runs.Episode.sensor_point`)."""
    return episode.sensor_point(sensor, arm)


def footprint_point(episode: Episode) -> np.ndarray:
    """base_footprint in chassis FLU coordinates (m) of the run's vehicle."""
    return np.asarray(episode.vehicle_profile.footprint_in_chassis_m, dtype=np.float64)


def imu_platform_xyzw(cfg: Mapping) -> tuple[float, float, float, float]:
    """The axes of imu_link: the configurable IMU's platform axes in body axes (identity for
    the ACRES IMU)."""
    imu = cfg["imu"]  # the run's complete configuration (navsense.runs.Episode.config)
    if imu["model"] != "configurable":
        return _IDENTITY
    ypr = imu["configurable"]["platform_ypr_deg"]
    if not any(ypr):
        return _IDENTITY
    yaw, pitch, roll = (math.radians(float(a)) for a in ypr)
    q = quat_from_euler_zyx(np.array([yaw]), np.array([pitch]), np.array([roll]))[0]
    return tuple(float(x) for x in q)  # type: ignore[return-value]


def oxts_mount_xyzw(cfg: Mapping) -> tuple[float, float, float, float]:
    """The axes of oxts_link: the OxTS mounting axes (:data:`OXTS_MOUNT_XYZW`)."""
    return tuple(float(x) for x in OXTS_MOUNT_XYZW)  # type: ignore[return-value]


def sensor_mounts(episode: Episode, *, gnss_link_is_ins: bool = False) -> dict[str, Mount]:
    """Every sensor frame of the table above (module docstring; the frames of the records of
    navsense.suite.SENSORS), by name. ``gnss_link_is_ins``: gnss_link is the INS point (a
    Maxxum bag with the INS on) and the antenna is :data:`ANTENNA_BESIDE_INS`."""
    base = footprint_point(episode)
    cfg = episode.config
    mounts: dict[str, Mount] = {}
    for sensor in SENSORS.values():
        for frame in sensor.frames:
            at = tuple(float(x) for x in sensor_point(episode, sensor.name, frame.arm) - base)
            axes = resolve(frame.axes)(cfg) if frame.axes else _IDENTITY
            mounts[frame.name] = Mount(frame.name, at, axes)  # type: ignore[arg-type]
    gnss_link = mounts.get(GNSS_LINK)
    if gnss_link is not None:
        mounts[ANTENNA_BESIDE_INS] = Mount(ANTENNA_BESIDE_INS, gnss_link.translation_m)
        if gnss_link_is_ins and INS_POINT_FRAME in mounts:
            mounts[GNSS_LINK] = Mount(GNSS_LINK, mounts[INS_POINT_FRAME].translation_m)
    return mounts


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
