"""Waypoint trajectories: a self-consistent truth log from ENU waypoints with speeds or times.

Conventions (DESIGN.md "Data contracts", specification "Frames and Sample Times"):

- The waypoints are ground points of ``base_footprint`` (the middle of the rear axle on the
  ground), grid ENU metres; z is the ground height. The rear-axle middle of a car-like vehicle
  moves along its heading (bicycle model), so the path's tangent is the vehicle's x axis.
- Path: a C2 cubic spline ``F(u)`` through the points (scipy ``CubicSpline``), parameter ``u``
  the cumulative chord length; ``natural`` end conditions, or ``periodic`` for a closed route
  (the last point equals the first; the path, heading and curvature then close seamlessly).
  Arc length ``s(u) = int |F'(u)| du`` (8-point Gauss-Legendre on sub-intervals <= 2 m) and
  its inverse ``u(s)`` as a C2 quintic Hermite interpolant with the exact derivatives
  ``du/ds = 1/|F'|`` and ``d2u/ds2 = -(F'.F'')/|F'|^4`` at the table nodes.
- Timing: the distance along the path ``S(t)`` is a piecewise-linear "target" timeline (cruise
  at the leg speeds, rest at the start, at holds and at the end) smoothed at each speed change
  by a quintic ramp. A change dV centred at tau with width w contributes

      speed  dV h(x),  h(x) = 10x^3 - 15x^4 + 6x^5,           x = (t - tau)/w + 1/2 in [0, 1]
      accel  dV h'(x)/w,  h'(x) = 30 x^2 (1 - x)^2,           peak 1.875 dV/w at x = 1/2
      dist.  dV w H(x),   H(x) = 5/2 x^4 - 3x^5 + x^6          (x - 1/2 once complete)

  with ``w = max(1 s, 1.875 |dV| / accel_mps2)``, so the longitudinal acceleration never exceeds
  ``accel_mps2`` and is continuous (C2 position, no infinite acceleration). Ramps never overlap
  (checked; a leg too short for the speed changes at its ends is an error). Away from ramps the
  vehicle is exactly on the target timeline; at rest it is exactly at its point.
- Attitude from the path tangent ``F'(u)``: yaw ``psi = atan2(F'_y, F'_x)``, pitch
  ``theta = atan2(F'_z, hypot(F'_x, F'_y))`` (nose up positive), roll 0, and

      q = q_z(psi) (x) q_y(-theta)                 (FLU x axis = (cos th cos psi, cos th sin psi, sin th))

  At rest the tangent of the rest point keeps the heading of the approach. Yaw is unwrapped
  along the path, so the quaternion is continuous.
- Angular velocity (world axes), the exact derivative of the attitude, from the spline
  derivatives (no finite differences):

      omega = (theta' sin psi, -theta' cos psi, psi')
      psi'   = (F'_x F''_y - F'_y F''_x) / h^2 * du/dt,           h = hypot(F'_x, F'_y)
      theta' = (F''_z h - F'_z h_u) / (h^2 + F'_z^2) * du/dt,     h_u = (F'_x F''_x + F'_y F''_y)/h
      du/dt  = du/ds(S) * dS/dt

- Chassis origin ``p = F + R r_f`` with ``r_f = (0.4 wheelbase, 0, cg_height)`` (the chassis
  origin is 0.4 wheelbase ahead of the rear axle at the height of the centre of gravity, DESIGN.md
  ruling "Mounts"). The centre of mass is taken at the chassis origin, ``c = p`` (no published
  offset; the simplest consistent choice). Its velocity is the exact derivative
  ``v = dF/dt + omega x (R r_f)``, ``dF/dt = F'(u) du/dt``; integrating v with the trapezoid rule
  reproduces c to well under 1 mm over a run (the trapezoid error is dt^2/12 (a_end - a_start)).

Waypoint JSON (``load_waypoints``)::

    {"vehicle": "polaris",            # optional: polaris | maxxum (build() may override)
     "rate_hz": 120,                  # optional: physics rate of the built log
     "dwell_s": 20,                   # optional: rest at the first point before moving
     "accel_mps2": 1.0,               # optional: peak longitudinal acceleration of speed ramps
     "closed": false,                 # optional: the last point equals the first; periodic path
     "name": "...", "description": "...",   # optional
     "points": [{"enu_m": [x, y, z]},                         # first point: start, at rest
                {"enu_m": [x, y, z], "speed_mps": 3.0},       # cruise speed on the leg into it
                {"enu_m": [x, y, z], "t_s": 12.5},            # or the time it is reached
                {"enu_m": [x, y, z], "speed_mps": 3.0, "hold_s": 5}, ...]}   # stop and stand

Semantics: ``speed_mps`` on a point is the cruise speed of the leg that ends at it; ``t_s`` is the
time at which the target timeline reaches it (the leg speed is then its length over the time
available; the vehicle is exactly there at ``t_s`` unless a speed change is under way, whose
smoothing shifts it by a fraction of a second; at a stop it is at rest there by ``t_s + w/2``). A point with ``hold_s > 0`` is a stop: the vehicle comes to rest there and stands
``hold_s`` seconds. The last point is always a stop (its ``hold_s`` extends the final rest); the
first point's ``hold_s`` adds to ``dwell_s``; the first point's ``t_s``, if given, must be 0.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np

from navsense.errors import TruthError
from navsense.jsonfile import is_finite, read_json
from navsense.rotation import quat_about_x, quat_multiply
from navsense.truth.states import PHYSICS_HZ, TruthStates
from navsense.truth.waypoint_path import (
    MIN_RAMP_S,
    Waypoint,
    _Path,
    _Timing,
)
from navsense.vehicles import VEHICLES, VehicleProfile, vehicle_profile

__all__ = [
    "Waypoint",
    "WaypointRoute",
    "Trajectory",
    "TrajectorySample",
    "build_from_waypoints",
    "plan_trajectory",
    "load_waypoints",
    "route_from_json",
    "attitude_from_angles",
    "chassis_from_footprint",
    "DEFAULT_ACCEL_MPS2",
    "MIN_RAMP_S",
    "MAX_TRUTH_STEPS",
]

DEFAULT_ACCEL_MPS2 = 1.0  # peak longitudinal acceleration of a speed ramp, m/s^2 (gentle UTV)
CLOSE_TOLERANCE_M = 1e-3  # a closed route's last point must equal its first within this
MAX_WAYPOINT_ENU_M = 1e6  # a waypoint's coordinates: within 1000 km of the site's origin
SAMPLE_CHUNK_ROWS = 1 << 18  # rows of a truth log evaluated at once (Trajectory.sample)
MAX_LEG_SPEED_MPS = 1e4  # a leg's speed: the truth log's limit (navsense.truth.io.MAX_SPEED_MPS)
#: A route's physics rate, Hz, and its ramps' peak acceleration, m/s^2 (5e-324 made a ramp of
#: infinite width: an OverflowError).
ROUTE_RATE_HZ = (1.0, 10_000.0)
ROUTE_ACCEL_MPS2 = (1e-3, 1e3)
MAX_ROUTE_LENGTH_M = 1e6  # a route planned at once (its arc-length table: a node every 2 m)
MAX_TRUTH_STEPS = 24 * 3600 * 120  # longest truth log built from a route or track: 24 h at
# 120 Hz (1.2 GB of states); longer is refused before any memory is taken


@dataclass(frozen=True)
class WaypointRoute:
    """A waypoint file's content (see the module docstring for the JSON format)."""

    points: tuple[Waypoint, ...]
    vehicle: str | None = None
    rate_hz: float = PHYSICS_HZ
    dwell_s: float = 0.0
    accel_mps2: float = DEFAULT_ACCEL_MPS2
    closed: bool = False
    description: str = ""
    source: str = "waypoints"

    def _vehicle(self, vehicle: VehicleProfile | str | None) -> VehicleProfile:
        vehicle = vehicle if vehicle is not None else self.vehicle
        if vehicle is None:
            raise TruthError(f'{self.source}: no vehicle given (set "vehicle" or pass one)')
        return vehicle if isinstance(vehicle, VehicleProfile) else vehicle_profile(vehicle)

    def plan(self, vehicle: VehicleProfile | str | None = None) -> Trajectory:
        """The continuous-time trajectory (the route's own vehicle unless one is given)."""
        return plan_trajectory(
            self.points,
            self._vehicle(vehicle),
            dwell_s=self.dwell_s,
            accel_mps2=self.accel_mps2,
            closed=self.closed,
            source=self.source,
        )

    def build(
        self, vehicle: VehicleProfile | str | None = None, duration_s: float | None = None
    ) -> TruthStates:
        """The truth log at the route's ``rate_hz`` (see :meth:`Trajectory.sample`)."""
        return self.plan(vehicle).sample(self.rate_hz, duration_s=duration_s)


class TrajectorySample(NamedTuple):
    """The trajectory at times t (arrays with leading axis n)."""

    t_s: np.ndarray
    footprint_m: np.ndarray  # base_footprint on the ground path, (n, 3)
    footprint_v_mps: np.ndarray  # its velocity, (n, 3)
    p_m: np.ndarray  # chassis origin = centre of mass, (n, 3)
    v_mps: np.ndarray  # centre-of-mass velocity, world, (n, 3)
    q_xyzw: np.ndarray  # FLU -> ENU, (n, 4), continuous along the path
    w_radps: np.ndarray  # angular velocity, world, (n, 3)
    s_m: np.ndarray  # distance travelled along the ground path, (n,)
    speed_mps: np.ndarray  # dS/dt, (n,)
    accel_mps2: np.ndarray  # d2S/dt2 (longitudinal), (n,)
    yaw_rad: np.ndarray  # unwrapped along the path, (n,)
    pitch_rad: np.ndarray  # (n,)


# ------------------------------------------------------------------ attitude (shared)


def attitude_from_angles(
    yaw_rad: np.ndarray,
    pitch_rad: np.ndarray,
    yaw_rate_radps: np.ndarray,
    pitch_rate_radps: np.ndarray,
    roll_rad: np.ndarray | None = None,
    roll_rate_radps: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Quaternion (FLU -> ENU) and world angular velocity of yaw psi, pitch theta, roll phi.

    Pitch is nose up positive, roll right side down positive (FLU), shapes (n,)::

        q     = q_z(psi) (x) q_y(-theta) (x) q_x(phi)
        omega = psi' z + theta' (sin psi, -cos psi, 0) + phi' x_body,
        x_body = (cos th cos psi, cos th sin psi, sin th)

    Without ``roll_rad`` (roll 0) the expressions are the roll-free ones of the waypoint
    trajectories, term for term. Used by :class:`Trajectory` and :mod:`navsense.truth.track_kinematics`.
    """
    yaw, pitch = yaw_rad, pitch_rad
    w = np.column_stack(
        [pitch_rate_radps * np.sin(yaw), -pitch_rate_radps * np.cos(yaw), yaw_rate_radps]
    )
    # q = q_z(psi) (x) q_y(-theta), expanded: (sin(psi/2) sin(th/2), -cos(psi/2) sin(th/2),
    #                                         sin(psi/2) cos(th/2),  cos(psi/2) cos(th/2))
    sz, cz = np.sin(0.5 * yaw), np.cos(0.5 * yaw)
    sy, cy = np.sin(0.5 * pitch), np.cos(0.5 * pitch)
    q = np.column_stack([sz * sy, -cz * sy, sz * cy, cz * cy])
    if roll_rad is None:
        return q, w
    q = quat_multiply(q, quat_about_x(roll_rad))
    c_th = np.cos(pitch)
    x_body = np.column_stack([c_th * np.cos(yaw), c_th * np.sin(yaw), np.sin(pitch)])
    rate = np.zeros_like(roll_rad) if roll_rate_radps is None else roll_rate_radps
    return q, w + rate[:, None] * x_body


def chassis_from_footprint(
    footprint_m: np.ndarray,
    footprint_v_mps: np.ndarray,
    yaw_rad: np.ndarray,
    pitch_rad: np.ndarray,
    w_radps: np.ndarray,
    r_f: np.ndarray,
    roll_rad: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Chassis origin p = F + R r_f and its velocity v = dF/dt + omega x (R r_f).

    ``r_f`` is the chassis origin in base_footprint, FLU, (a, 0, h) (DESIGN.md ruling "Mounts"):
    ``R r_f = a x_body + h z_body`` with
    ``z_body = (sin phi sin psi - cos phi sin th cos psi, -sin phi cos psi - cos phi sin th sin psi,
    cos phi cos th)`` (roll 0 without ``roll_rad``, the waypoint trajectories' expressions).
    """
    yaw, pitch = yaw_rad, pitch_rad
    c_psi, s_psi, c_th, s_th = np.cos(yaw), np.sin(yaw), np.cos(pitch), np.sin(pitch)
    a_m, h_m = r_f[0], r_f[2]
    if roll_rad is None:
        # R r_f with r_f = (a, 0, h): a x_body + h z_body (roll 0)
        lever = np.column_stack(
            [
                (a_m * c_th - h_m * s_th) * c_psi,
                (a_m * c_th - h_m * s_th) * s_psi,
                a_m * s_th + h_m * c_th,
            ]
        )
    else:
        c_ph, s_ph = np.cos(roll_rad), np.sin(roll_rad)
        lever = np.column_stack(
            [
                a_m * c_th * c_psi + h_m * (s_ph * s_psi - c_ph * s_th * c_psi),
                a_m * c_th * s_psi - h_m * (s_ph * c_psi + c_ph * s_th * s_psi),
                a_m * s_th + h_m * c_ph * c_th,
            ]
        )
    p = footprint_m + lever
    v = footprint_v_mps + np.cross(w_radps, lever)  # d/dt (R r) = w x R r
    return p, v


# ------------------------------------------------------------------------------- parsing


def _number(
    value,
    where: str,
    *,
    minimum: float | None = None,
    positive: bool = False,
    maximum: float | None = None,
) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not is_finite(value):
        raise TruthError(f"{where} = {json.dumps(value)} is not a finite number")
    if positive and value <= 0:
        raise TruthError(f"{where} = {value} must be > 0")
    if minimum is not None and value < minimum:
        raise TruthError(f"{where} = {value} must be >= {minimum:g}")
    if maximum is not None and value > maximum:
        raise TruthError(f"{where} = {value} must be <= {maximum:g}")
    return float(value)


def _waypoint(obj, where: str) -> Waypoint:
    if isinstance(obj, Waypoint):
        obj = {
            "enu_m": list(obj.enu_m),
            "speed_mps": obj.speed_mps,
            "t_s": obj.t_s,
            "hold_s": obj.hold_s,
        }
        obj = {k: v for k, v in obj.items() if v is not None}
    if not isinstance(obj, Mapping):
        raise TruthError(f"{where} = {obj!r} is not an object with enu_m")
    known = ("enu_m", "speed_mps", "t_s", "hold_s")
    for key in obj:
        if key not in known:
            raise TruthError(f"{where}: {key!r} is not a known key; allowed: {', '.join(known)}")
    enu = obj.get("enu_m")
    if (
        not isinstance(enu, (list, tuple))
        or len(enu) != 3
        or any(
            isinstance(v, bool)
            or not isinstance(v, (int, float))
            or not is_finite(v)
            or abs(v) > MAX_WAYPOINT_ENU_M
            for v in enu
        )
    ):
        raise TruthError(
            f"{where}.enu_m = {json.dumps(enu, default=str)} is not [x, y, z] "
            f"(3 finite numbers, metres, within {MAX_WAYPOINT_ENU_M:g} m of the site's origin)"
        )
    speed = obj.get("speed_mps")
    t = obj.get("t_s")
    return Waypoint(
        enu_m=(float(enu[0]), float(enu[1]), float(enu[2])),
        speed_mps=None
        if speed is None
        else _number(speed, f"{where}.speed_mps", positive=True, maximum=MAX_LEG_SPEED_MPS),
        t_s=None if t is None else _number(t, f"{where}.t_s", minimum=0.0),
        hold_s=_number(obj.get("hold_s", 0.0), f"{where}.hold_s", minimum=0.0),
    )


def _waypoints(points, source: str) -> tuple[Waypoint, ...]:
    if isinstance(points, (str, bytes)) or not isinstance(points, Sequence):
        raise TruthError(f"{source}: points must be a list of waypoints")
    if len(points) < 2:
        raise TruthError(f"{source}: points has {len(points)} waypoint(s); at least 2 are required")
    wps = tuple(_waypoint(p, f"{source}: points[{i}]") for i, p in enumerate(points))
    if wps[0].speed_mps is not None:
        raise TruthError(
            f"{source}: points[0].speed_mps: the first point is the start, at rest; "
            f"speed_mps belongs to the points that end a leg"
        )
    if wps[0].t_s not in (None, 0.0):
        raise TruthError(
            f"{source}: points[0].t_s = {wps[0].t_s:g} must be 0 (the trajectory "
            f"starts at the first point at t = 0; use dwell_s to wait there)"
        )
    for i, wp in enumerate(wps[1:], start=1):
        if (wp.speed_mps is None) == (wp.t_s is None):
            raise TruthError(
                f"{source}: points[{i}] needs exactly one of speed_mps (leg speed) "
                f"or t_s (time it is reached)"
            )
        if math.dist(wp.enu_m, wps[i - 1].enu_m) < 1e-3:
            raise TruthError(
                f"{source}: points[{i}] repeats points[{i - 1}] {list(wp.enu_m)}; "
                f"use hold_s to stand still"
            )
    return wps


def check_built_steps(source: str, steps: int, rate_hz: float) -> None:
    """TruthError when a truth log of ``steps`` physics steps at ``rate_hz`` would be longer than
    MAX_TRUTH_STEPS (24 h at 120 Hz): refused before anything is built."""
    if steps > MAX_TRUTH_STEPS:
        raise TruthError(
            f"{source}: {steps / rate_hz:g} s at {rate_hz:g} Hz are "
            f"{float(steps):.6g} steps; at most {MAX_TRUTH_STEPS} (24 h at "
            f"{PHYSICS_HZ:g} Hz) "
            f"are built"
        )


def route_from_json(data: dict, source: str = "waypoints.json") -> WaypointRoute:
    """A :class:`WaypointRoute` from a waypoint file's JSON object; errors name file and key."""
    if not isinstance(data, dict):
        raise TruthError(f"{source}: a waypoint file must be a JSON object")
    known = (
        "vehicle",
        "rate_hz",
        "dwell_s",
        "accel_mps2",
        "closed",
        "points",
        "description",
        "name",
    )
    for key in data:
        if key not in known:
            raise TruthError(f"{source}: {key!r} is not a known key; allowed: {', '.join(known)}")
    vehicle = data.get("vehicle")
    if vehicle is not None and (not isinstance(vehicle, str) or vehicle not in VEHICLES):
        raise TruthError(
            f"{source}: vehicle = {json.dumps(vehicle)} is not one of {', '.join(sorted(VEHICLES))}"
        )
    closed = data.get("closed", False)
    if not isinstance(closed, bool):
        raise TruthError(f"{source}: closed = {json.dumps(closed)} must be true or false")
    if "points" not in data:
        raise TruthError(f"{source}: points is missing")
    return WaypointRoute(
        points=_waypoints(data["points"], source),
        vehicle=vehicle,
        rate_hz=_number(
            data.get("rate_hz", PHYSICS_HZ),
            f"{source}: rate_hz",
            positive=True,
            minimum=ROUTE_RATE_HZ[0],
            maximum=ROUTE_RATE_HZ[1],
        ),
        dwell_s=_number(data.get("dwell_s", 0.0), f"{source}: dwell_s", minimum=0.0),
        accel_mps2=_number(
            data.get("accel_mps2", DEFAULT_ACCEL_MPS2),
            f"{source}: accel_mps2",
            positive=True,
            minimum=ROUTE_ACCEL_MPS2[0],
            maximum=ROUTE_ACCEL_MPS2[1],
        ),
        closed=closed,
        description=str(data.get("description", "")),
        source=source,
    )


def load_waypoints(path: str | Path) -> WaypointRoute:
    """Read a waypoint JSON file (format in the module docstring)."""
    return route_from_json(read_json(path, "waypoint file", TruthError), source=str(Path(path)))


# ----------------------------------------------------------------------------- geometry


# ------------------------------------------------------------------------------- timing


# ----------------------------------------------------------------------------- trajectory


class Trajectory:
    """A planned waypoint trajectory: continuous in time, sampled at any rate.

    ``end_s`` is the time the route ends (final rest included); :meth:`sample` rounds it up
    to a whole physics step. ``length_m`` is the ground-path length.
    """

    def __init__(
        self,
        points: Sequence[Waypoint],
        vehicle: VehicleProfile,
        dwell_s: float,
        accel_mps2: float,
        closed: bool,
        source: str,
    ) -> None:
        self.points = tuple(points)
        self.vehicle = vehicle
        self.closed = closed
        self.source = source
        xyz = np.array([p.enu_m for p in self.points], dtype=np.float64)
        if closed:
            if len(self.points) < 4:
                raise TruthError(
                    f"{source}: a closed route needs at least 3 distinct points "
                    f"and the closing point"
                )
            if np.linalg.norm(xyz[-1] - xyz[0]) > CLOSE_TOLERANCE_M:
                raise TruthError(
                    f"{source}: closed = true but the last point {xyz[-1].tolist()} "
                    f"is not the first {xyz[0].tolist()}"
                )
            xyz[-1] = xyz[0]
        chords = float(np.sum(np.linalg.norm(np.diff(xyz, axis=0), axis=1)))
        if not chords <= MAX_ROUTE_LENGTH_M:  # the arc-length table has a node every 2 m
            raise TruthError(
                f"{source}: the route is {chords:.6g} m long (point to point); at most "
                f"{MAX_ROUTE_LENGTH_M:g} m ({MAX_ROUTE_LENGTH_M / 1000:g} km) are planned"
            )
        self._path = _Path(xyz, closed, source)
        self._timing = _Timing(self.points, self._path.knot_s, dwell_s, accel_mps2, source)
        self.length_m = self._path.length_m
        self.end_s = self._timing.end_s
        self._r_f = -vehicle.footprint_in_chassis_m  # chassis origin in base_footprint, FLU

    def point_times_s(self) -> np.ndarray:
        """Time at which the target timeline reaches each waypoint, s.

        For the first point: the target departure, half a ramp after the vehicle starts moving.
        """
        s = self._path.knot_s
        tm = self._timing
        t = np.empty(len(s))
        for i, si in enumerate(s):
            k = int(np.searchsorted(tm.s_tau, si - 1e-9, side="left"))
            k = max(k - 1, 0)
            t[i] = (
                tm.tau[k] + (si - tm.s_tau[k]) / tm.v_after[k] if tm.v_after[k] > 0 else tm.tau[k]
            )
        return t

    def steps(self, rate_hz: float) -> int:
        """Physics steps of one run: ceil(end_s rate_hz); the run has steps + 1 rows."""
        return int(math.ceil(self.end_s * rate_hz - 1e-9))

    def evaluate(self, t_s) -> TrajectorySample:
        """The trajectory at times ``t_s`` (s, any shape flattened to (n,)); rest after ``end_s``."""
        t = np.atleast_1d(np.asarray(t_s, dtype=np.float64)).ravel()
        s, s_dot, s_ddot = self._timing.evaluate(t)
        u, du_ds, node = self._path.u_of_s(s)
        spline = self._path.spline
        f, d1, d2 = spline(u), spline(u, 1), spline(u, 2)
        u_dot = du_ds * s_dot

        hxy = np.hypot(d1[:, 0], d1[:, 1])
        yaw = self._path.yaw(d1, node)
        pitch = np.arctan2(d1[:, 2], hxy)
        dyaw_du = (d1[:, 0] * d2[:, 1] - d1[:, 1] * d2[:, 0]) / hxy**2
        dh_du = (d1[:, 0] * d2[:, 0] + d1[:, 1] * d2[:, 1]) / hxy
        dpitch_du = (d2[:, 2] * hxy - d1[:, 2] * dh_du) / (hxy**2 + d1[:, 2] ** 2)
        yaw_dot, pitch_dot = dyaw_du * u_dot, dpitch_du * u_dot
        q, w = attitude_from_angles(yaw, pitch, yaw_dot, pitch_dot)
        f_dot = d1 * u_dot[:, None]
        p, v = chassis_from_footprint(f, f_dot, yaw, pitch, w, self._r_f)
        return TrajectorySample(
            t_s=t,
            footprint_m=f,
            footprint_v_mps=f_dot,
            p_m=p,
            v_mps=v,
            q_xyzw=q,
            w_radps=w,
            s_m=s,
            speed_mps=s_dot,
            accel_mps2=s_ddot,
            yaw_rad=yaw,
            pitch_rad=pitch,
        )

    def rows(self, rate_hz: float = PHYSICS_HZ, duration_s: float | None = None) -> int:
        """The number of rows :meth:`sample` builds (``round(duration_s rate_hz) + 1``, or one
        run's ``steps(rate_hz) + 1``); TruthError for a duration longer than an open route or
        beyond MAX_TRUTH_STEPS, before anything is built (a campaign checks it at load)."""
        rate_hz = _number(rate_hz, "rate_hz", positive=True)
        n_run = self.steps(rate_hz)
        if duration_s is None:
            n_rows = n_run + 1
        else:
            duration_s = _number(duration_s, "duration_s", positive=True)
            n_rows = int(round(duration_s * rate_hz)) + 1
        if n_rows > n_run + 1 and not self.closed:
            raise TruthError(
                f"{self.source}: duration_s = {duration_s:g} is longer than the route "
                f"({n_run / rate_hz:.2f} s) and the route is not closed; only a "
                f'closed route ("closed": true) can be repeated'
            )
        check_built_steps(self.source, n_rows - 1, rate_hz)
        return n_rows

    def sample(self, rate_hz: float = PHYSICS_HZ, duration_s: float | None = None) -> TruthStates:
        """The truth log at ``rate_hz``: rows k = 0 .. n - 1 at t = k / rate_hz.

        Without ``duration_s`` one run: ``steps(rate_hz) + 1`` rows, the last at rest at the end.
        With ``duration_s`` ``round(duration_s rate_hz) + 1`` rows: a shorter duration cuts the
        run; a longer one repeats a closed route (period ``steps(rate_hz)`` steps; it ends where
        it starts, at rest, so the repeat is seamless; the quaternion sign is kept continuous).
        """
        lap = self.lap(rate_hz, duration_s)
        truth = lap.rows(0, lap.n_rows)
        from navsense.truth.io import check_truth_values

        check_truth_values(truth, self.source)
        return truth

    def lap(self, rate_hz: float = PHYSICS_HZ, duration_s: float | None = None) -> Lap:
        """The rows of :meth:`sample` without holding them: one run of the route, from which
        :meth:`Lap.rows` cuts any rows of the repeated log (issue 31 item 4: a 24 h log of a
        10-minute loop is 1.3 GB; its lap 8 MB). Its values are checked as a truth log's."""
        rate_hz = _number(rate_hz, "rate_hz", positive=True)
        n_run = self.steps(rate_hz)
        n_rows = self.rows(rate_hz, duration_s)
        m = min(n_rows, n_run + 1)
        p, v, w, q = np.empty((m, 3)), np.empty((m, 3)), np.empty((m, 3)), np.empty((m, 4))
        # a chunk of rows at a time (each row on its own: the same values): evaluate's dozen
        # intermediate arrays of every row at once were 3.4 GB for a 17-hour route
        for start in range(0, m, SAMPLE_CHUNK_ROWS):
            rows = slice(start, min(m, start + SAMPLE_CHUNK_ROWS))
            ev = self.evaluate(np.arange(rows.start, rows.stop, dtype=np.int64) / rate_hz)
            p[rows], v[rows], q[rows], w[rows] = ev.p_m, ev.v_mps, ev.q_xyzw, ev.w_radps
        seam = 1.0 if n_rows <= m or np.dot(q[n_run], q[0]) >= 0 else -1.0
        return Lap(p, v, w, q, n_rows, n_run, seam, rate_hz, self.source)


@dataclass(frozen=True)
class Lap:
    """One run of a route sampled (``m`` rows of ``p, v, w, q``) and the rows of the log it
    makes (:meth:`Trajectory.sample`): ``n_rows`` rows; beyond ``m`` the closed run repeats with
    period ``n_run`` steps, the quaternion's sign times ``seam`` on odd laps."""

    p: np.ndarray
    v: np.ndarray
    w: np.ndarray
    q: np.ndarray
    n_rows: int
    n_run: int
    seam: float
    rate_hz: float
    source: str

    @property
    def repeats(self) -> bool:
        return self.n_rows > len(self.p)

    def rows(self, start: int, stop: int) -> TruthStates:
        """Rows ``start`` .. ``stop - 1`` of the log: the same values as its slice."""
        p, v, w, q = self.p, self.v, self.w, self.q
        if self.repeats:  # repeat the closed run, period n_run steps
            k = np.arange(start, stop, dtype=np.int64)
            idx, lap = k % self.n_run, k // self.n_run
            p, v, w = p[idx], v[idx], w[idx]
            q = q[idx] * np.where(lap % 2 == 1, self.seam, 1.0)[:, None]
        elif (start, stop) != (0, len(p)):
            p, v, w, q = p[start:stop], v[start:stop], w[start:stop], q[start:stop]
        return TruthStates(
            step0=start,
            p_m=np.ascontiguousarray(p),
            q_xyzw=np.ascontiguousarray(q),
            v_mps=np.ascontiguousarray(v),
            w_radps=np.ascontiguousarray(w),
            c_m=np.array(p),
            reset=np.zeros(stop - start, dtype=np.bool_),
            rate_hz=self.rate_hz,
        )

    def chunks(self, chunk_steps: int) -> Iterator[TruthStates]:
        """The log in chunks of ``chunk_steps`` rows (the last may be shorter), each made when
        asked for; the rows of one run checked first, as :meth:`Trajectory.sample` checks the
        whole (every row of the log is one of them, a quaternion's sign aside)."""
        from navsense.truth.io import check_truth_values

        check_truth_values(self.rows(0, self.n_run if self.repeats else self.n_rows), self.source)
        for start in range(0, self.n_rows, chunk_steps):
            yield self.rows(start, min(self.n_rows, start + chunk_steps))


def plan_trajectory(
    waypoints: Sequence[Waypoint | Mapping],
    vehicle: VehicleProfile | str,
    *,
    dwell_s: float = 0.0,
    accel_mps2: float = DEFAULT_ACCEL_MPS2,
    closed: bool = False,
    source: str = "waypoints",
) -> Trajectory:
    """Plan the continuous trajectory through ``waypoints`` (Waypoint objects or JSON-style dicts)."""
    wps = _waypoints(waypoints, source)
    vehicle = vehicle if isinstance(vehicle, VehicleProfile) else vehicle_profile(vehicle)
    dwell_s = _number(dwell_s, f"{source}: dwell_s", minimum=0.0)
    accel_mps2 = _number(accel_mps2, f"{source}: accel_mps2", positive=True)
    return Trajectory(wps, vehicle, dwell_s, accel_mps2, bool(closed), source)


def build_from_waypoints(
    waypoints: Sequence[Waypoint | Mapping],
    vehicle: VehicleProfile | str,
    rate_hz: float = PHYSICS_HZ,
    *,
    dwell_s: float = 0.0,
    accel_mps2: float = DEFAULT_ACCEL_MPS2,
    closed: bool = False,
    duration_s: float | None = None,
) -> TruthStates:
    """A truth log through ``waypoints`` at ``rate_hz`` (module docstring for the conventions).

    ``waypoints``: :class:`Waypoint` objects or dicts ``{"enu_m": [x, y, z], "speed_mps": ..}``
    / ``{"enu_m": .., "t_s": ..}`` (+ optional ``hold_s``), ground points of base_footprint.
    ``duration_s`` cuts the run, or repeats a closed route (see :meth:`Trajectory.sample`).
    For a :class:`WaypointRoute` (a loaded file) use ``route.build(vehicle, duration_s)``.
    """
    traj = plan_trajectory(
        waypoints, vehicle, dwell_s=dwell_s, accel_mps2=accel_mps2, closed=closed
    )
    return traj.sample(rate_hz, duration_s=duration_s)
