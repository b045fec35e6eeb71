"""Synthetic recordings of a known drive, for the track tests (tests/truth/test_track_recordings.py).

A drive is a speed profile v(t) and a yaw-rate profile r(t), each constant between smooth changes
(the quintic smoothstep ``h(x) = 10x^3 - 15x^4 + 6x^5``: speed, acceleration and yaw rate
continuous), and a height profile z(s) over the distance travelled. The true motion is integrated
on a 1 ms grid (heading psi = int r dt, position = int v (cos psi, sin psi) dt, trapezoid rule:
position error below 0.1 mm over minutes). Its specific force at base_footprint in body axes,
on a level road, is exactly (dv/dt, v r, g0).

A recording samples the motion every ``period_s`` (optionally with gaps) and adds seeded Gaussian
noise: ``sigma_h_m`` per horizontal axis, ``sigma_v_m`` vertically. :func:`imu_errors` compares
navsense's IMU truth terms at base_footprint (``sensors.imu.imu_point_kinematics``, what the IMU
model reads with its noise off) with the true motion's specific force and angular rate.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from navsense.constants import GRAVITY_MPS2

DT_S = 1e-3  # integration grid of the true motion, s


def smoothstep(x: np.ndarray) -> np.ndarray:
    x = np.clip(x, 0.0, 1.0)
    return x * x * x * (10.0 - x * (15.0 - 6.0 * x))


def smoothstep_rate(x: np.ndarray) -> np.ndarray:
    inside = (x > 0.0) & (x < 1.0)
    return np.where(inside, 30.0 * x * x * (1.0 - x) ** 2, 0.0)


@dataclass
class Drive:
    """The true motion on the integration grid."""

    t_s: np.ndarray
    enu_m: np.ndarray  # (n, 3)
    speed_mps: np.ndarray
    accel_mps2: np.ndarray  # along-track, dv/dt
    yaw_rad: np.ndarray
    yaw_rate_radps: np.ndarray
    s_m: np.ndarray  # distance travelled
    accel_enu_mps2: np.ndarray  # (n, 3) acceleration of the footprint, world
    pitch_rad: np.ndarray  # atan(dz/ds), nose up
    pitch_rate_radps: np.ndarray

    @property
    def lateral_mps2(self) -> np.ndarray:
        return self.speed_mps * self.yaw_rate_radps

    def at(self, t: np.ndarray, name: str) -> np.ndarray:
        """A profile interpolated at times ``t`` (linear on the 1 ms grid)."""
        values = getattr(self, name)
        if values.ndim == 1:
            return np.interp(t, self.t_s, values)
        return np.column_stack([np.interp(t, self.t_s, values[:, j]) for j in range(3)])


def make_drive(
    duration_s: float,
    speed_changes: list[tuple[float, float, float]],
    turns: list[tuple[float, float, float]],
    height=None,
) -> Drive:
    """``speed_changes``: (start s, duration s, new speed m/s), from rest; ``turns``: (start s,
    duration s, yaw rate rad/s), each rising and falling over 2 s within its duration;
    ``height(s)``: z of the distance travelled (default level, z = 0)."""
    t = np.arange(0.0, duration_s + DT_S / 2, DT_S)
    v = np.zeros_like(t)
    a = np.zeros_like(t)
    v_now = 0.0
    for start, dur, v_new in speed_changes:
        x = (t - start) / dur
        v += (v_new - v_now) * smoothstep(x)
        a += (v_new - v_now) * smoothstep_rate(x) / dur
        v_now = v_new
    r = np.zeros_like(t)
    for start, dur, rate in turns:
        up = smoothstep((t - start) / 2.0)
        down = smoothstep((t - (start + dur - 2.0)) / 2.0)
        r += rate * (up - down)
    psi = np.concatenate([[0.0], np.cumsum(0.5 * (r[1:] + r[:-1]) * DT_S)])
    vx, vy = v * np.cos(psi), v * np.sin(psi)
    x = np.concatenate([[0.0], np.cumsum(0.5 * (vx[1:] + vx[:-1]) * DT_S)])
    y = np.concatenate([[0.0], np.cumsum(0.5 * (vy[1:] + vy[:-1]) * DT_S)])
    s = np.concatenate([[0.0], np.cumsum(0.5 * (v[1:] + v[:-1]) * DT_S)])
    z = np.zeros_like(t) if height is None else height(s)
    vz = np.gradient(z, DT_S)
    az = np.gradient(vz, DT_S)
    acc = np.column_stack(
        [a * np.cos(psi) - v * r * np.sin(psi), a * np.sin(psi) + v * r * np.cos(psi), az]
    )
    ds = 1e-3  # dz/ds of the profile (also where the drive stands)
    slope = np.zeros_like(t) if height is None else (height(s + ds) - height(s - ds)) / (2 * ds)
    pitch = np.arctan(slope)
    return Drive(
        t, np.column_stack([x, y, z]), v, a, psi, r, s, acc, pitch, np.gradient(pitch, DT_S)
    )


def ordinary_drive(height=None) -> Drive:
    """Two stops between three drives at 10 m/s, a 90-degree left turn and an S-curve, 2 m/s^2
    at most along or across the track; stands 15 s at the start and 17 s at the end."""
    return make_drive(
        140.0,
        speed_changes=[
            (15.0, 8.0, 10.0),
            (55.0, 8.0, 0.0),  # stop 63 .. 83
            (83.0, 8.0, 10.0),
            (115.0, 8.0, 0.0),  # stop 123 .. 140
        ],
        turns=[(35.0, 10.0, 0.2), (91.0, 6.0, -0.15), (97.0, 6.0, 0.15)],
        height=height,
    )


def record(
    drive: Drive,
    *,
    period_s: float = 1.0,
    offset_s: float = 0.3,
    sigma_h_m: float = 0.5,
    sigma_v_m: float = 1.0,
    seed: int = 1,
    gaps: tuple[tuple[float, float], ...] = (),
) -> tuple[np.ndarray, np.ndarray]:
    """Times (s, on the drive's clock: the track's t = 0 is the first) and noisy ENU points (m)
    of a recording of ``drive``."""
    t = np.arange(offset_s, drive.t_s[-1], period_s)
    for start, end in gaps:
        t = t[(t < start) | (t > end)]
    enu = drive.at(t, "enu_m")
    rng = np.random.default_rng(seed)
    noise = rng.normal(0.0, 1.0, (len(t), 3)) * [sigma_h_m, sigma_h_m, sigma_v_m]
    return t, enu + noise


def body_axes(yaw: np.ndarray, pitch: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """FLU axes in ENU of a vehicle with heading ``yaw`` and pitch (nose up), no roll."""
    cp, sp, cy, sy = np.cos(pitch), np.sin(pitch), np.cos(yaw), np.sin(yaw)
    x = np.column_stack([cp * cy, cp * sy, sp])
    y = np.column_stack([-sy, cy, np.zeros_like(yaw)])
    z = np.column_stack([-sp * cy, -sp * sy, cp])
    return x, y, z


def imu_truth_against_drive(drive: Drive, t0_s: float, truth, vehicle):
    """navsense's IMU truth terms at base_footprint and the true motion's at the same times:
    ``(t, f, w, f_true, rate, speed)`` (specific force and angular rate in body axes; the true
    body z rate without roll; the true signed speed). ``t0_s``: the drive time of the track's
    t = 0. The IMU terms difference the velocity backwards, so row k holds the motion half a
    step before its time."""
    from navsense.sensors.imu import imu_point_kinematics

    z3 = np.zeros(3)
    kin = imu_point_kinematics(truth, vehicle.footprint_in_chassis_m, -1, z3, z3, z3)
    f, w = kin.f_b[2:], kin.w_b[2:]
    t = truth.t_s[2:] + t0_s - 0.5 / truth.rate_hz
    yaw, pitch = drive.at(t, "yaw_rad"), drive.at(t, "pitch_rad")
    bx, by, bz = body_axes(yaw, pitch)
    force = drive.at(t, "accel_enu_mps2") + [0.0, 0.0, GRAVITY_MPS2]
    f_true = np.column_stack([np.sum(b * force, axis=1) for b in (bx, by, bz)])
    rate = drive.at(t, "yaw_rate_radps") * np.cos(pitch)  # body z rate, no roll
    return t, f, w, f_true, rate, drive.at(t, "speed_mps")


def imu_errors(drive: Drive, t0_s: float, truth, vehicle, moving_mps: float = 2.0) -> dict:
    """navsense's IMU truth terms at base_footprint against the true motion's
    (:func:`imu_truth_against_drive`). Returns the errors while
    the true speed exceeds ``moving_mps`` (along-track and lateral specific force, yaw rate: RMS
    and largest), the largest |omega| and horizontal specific force while the true vehicle stands,
    and the largest error of the vertical specific force.
    """
    _, f, w, f_true, rate, speed = imu_truth_against_drive(drive, t0_s, truth, vehicle)
    moving = speed > moving_mps
    stopped = speed == 0.0
    err = f - f_true

    def rms(x):
        return float(np.sqrt(np.mean(x * x)))

    def top(x):
        return float(np.max(x)) if x.size else 0.0

    return {
        "along_rms": rms(err[moving, 0]),
        "along_max": float(np.max(np.abs(err[moving, 0]))),
        "lateral_rms": rms(err[moving, 1]),
        "lateral_max": float(np.max(np.abs(err[moving, 1]))),
        "yaw_rate_rms": rms(w[moving, 2] - rate[moving]),
        "yaw_rate_max": float(np.max(np.abs(w[moving, 2] - rate[moving]))),
        "stopped_omega_max": top(np.linalg.norm(w[stopped], axis=1)),
        "stopped_horizontal_max": top(np.hypot(*(f - f_true)[stopped, :2].T)),
        "stopped_horizontal_raw_max": top(np.hypot(*f[stopped, :2].T)),
        "vertical_max": float(np.max(np.abs(err[:, 2]))),
    }


def write_gpx(path: Path, t: np.ndarray, enu: np.ndarray, origin=(48.1374, 11.5755, 520.0)):
    """A GPX 1.1 track (gpxpy) of ENU points in the tangent frame at ``origin`` (lat, lon,
    ellipsoidal height), times from 2024-06-01T08:00:00Z, elevations above the geoid (EGM96, as
    a receiver writes them) to the millimetre."""
    import gpxpy.gpx

    from navsense.geo import Georeference

    g = Georeference.local(*origin).enu_to_geodetic(enu, t)
    start = dt.datetime(2024, 6, 1, 8, 0, 0, tzinfo=dt.UTC)
    gpx = gpxpy.gpx.GPX()
    trk = gpxpy.gpx.GPXTrack()
    gpx.tracks.append(trk)
    seg = gpxpy.gpx.GPXTrackSegment()
    trk.segments.append(seg)
    for i in range(len(t)):
        seg.points.append(
            gpxpy.gpx.GPXTrackPoint(
                float(g["wgs84_lat_deg"][i]),
                float(g["wgs84_lon_deg"][i]),
                elevation=round(float(g["navd88_height_m"][i]), 3),  # EGM96 at a local site
                time=start + dt.timedelta(seconds=float(t[i] - t[0])),
            )
        )
    path.write_text(gpx.to_xml(), encoding="utf-8")
    return path
