"""Track kinematics: the continuous trajectory of a placed track (splines, attitude, rates).

Conventions (DESIGN.md "Data contracts"; the same as navsense.truth.waypoints): a track point is
the position of ``base_footprint``; the chassis origin is ``p = F + R r_f`` with
``r_f = (0.4 wheelbase, 0, cg_height)`` and the centre of mass is the chassis origin, exactly as
for waypoint routes (shared code: ``waypoints.chassis_from_footprint``). So a GNSS antenna
mounted at base_footprint ``[0, 0, 0]`` (``gnss.mount_frame = base_footprint``) reports the
recorded positions; the default antenna (1.7 m above the chassis origin, 0.82 m ahead of the
rear axle for the Polaris) reports them moved by its lever arm.

Truth (:func:`build_truth_from_track`, :class:`TrackTrajectory`):

- Path in time: a cubic spline F(t) = (x(t), y(t), z(t)) through the points (scipy
  ``CubicSpline``, not-a-knot ends; C2: position, velocity and acceleration continuous), or with
  ``smoothing_m`` = sigma > 0 the cubic smoothing spline (scipy ``make_smoothing_spline``, one
  penalty for the three coordinates)::

      F = argmin  sum_i |p_i - F(t_i)|^2 + lambda int |F''(t)|^2 dt

  with lambda chosen so that the RMS horizontal residual per axis at the points equals sigma
  (Morozov's discrepancy principle)::

      sqrt( sum_i [(x_i - F_x(t_i))^2 + (y_i - F_y(t_i))^2] / (2 n) ) = sigma

  so ``smoothing_m`` is the standard deviation of the recorded horizontal position noise, per
  axis, in metres. The vertical is smoothed by the same filter (the same lambda); its residual
  is whatever it is (GPS heights are noisier). With no lambda reaching sigma the result is the
  smoothest spline (nearly the least-squares line). The fit is reported in
  ``TrackTrajectory.residual_rms_m`` and ``smoothing_lambda``. This is the classical choice
  (FITPACK's s = n sigma^2 for unit weights) and it errs towards smoothing, since the residual
  also holds the smoothing's bias: a 30 m circle at 5 m/s sampled every ~1 s with sigma = 0.3 m
  comes out 0.1 .. 0.2 m too small (tests/truth/test_tracks.py).
- Velocity, acceleration and jerk are the spline's derivatives (no finite differences); the
  truth rows sample the continuous trajectory at t = k / rate_hz, k = 0 .. floor(T rate_hz).
- Attitude from the velocity: heading psi = atan2(g y', g x'), pitch theta = atan2(g z', h),
  h = hypot(x', y'), with the gear g = +1 (forward) or -1 (reversing, see stops); roll 0. Analytic
  rates (the derivatives of these angles, from the spline's derivatives)::

      psi'   = (x' y'' - y' x'') / h^2
      theta' = g (z'' h - z' h') / (h^2 + z'^2),        h' = (x' x'' + y' y'') / h

  with the quaternion and world angular velocity of ``waypoints.attitude_from_angles`` and the
  chassis point of ``waypoints.chassis_from_footprint``. The angular velocity is continuous (it
  takes F''); its derivative steps at the track points (the cubic's jerk F''' is piecewise
  constant), so a point at a lever arm r from base_footprint sees acceleration steps of about
  |r| |jump of psi''| there: small steps, no spikes.
- ``bank="coordinated"``: the coordinated-turn bank (FLU, right side down positive): the roll
  that puts the specific force f = F'' + (0, 0, g0) at base_footprint in the body x-z plane (no
  lateral component), with x_h = g (x', y', 0) / h and y_h = z x x_h the horizontal axes::

      phi = -atan2(A, (g0 + z'') cos theta - a_l sin theta),   A = F''.y_h = g (x' y'' - y' x'') / h
                                                               a_l = F''.x_h,  g0 = 9.80665 m/s^2

  which on level ground is phi = -atan(v * yaw rate / g0). A takes F'', so phi' would take the
  piecewise-constant jerk and step at every track point, and a point at a lever arm would see
  acceleration spikes (|r| jump(phi') / dt). So the roll is a C2 cubic spline (not-a-knot)
  through phi(t_i) at the track points: the roll rate is continuous and the turn is coordinated
  exactly at the track points and to O(h^2) between them.
- Stops: below ``stop_speed_mps`` (v_lo, default :data:`STOP_SPEED_MPS`) the vehicle keeps the
  heading, pitch it had when its horizontal speed fell below v_hi = 2 v_lo; between v_lo and v_hi
  the angles blend with ``w = 10x^3 - 15x^4 + 6x^5``, ``x = (h - v_lo) / (v_hi - v_lo)``::

      psi = psi_hold + w (psi_path - psi_hold),  psi' = w psi_path' + w'(h) h' (psi_path - psi_hold)

  (pitch alike; roll = w phi), so the heading is continuous and the angular velocity bounded
  (|psi'| <= |F''| / v_lo + 1.875 |F''| |psi_path - psi_hold| / (v_hi - v_lo)) through a stop.
  Leaving a stop in a direction more than 90 degrees away from the held heading is reversing
  (a car-like vehicle cannot turn on the spot): the gear becomes -1 and the heading stays the
  vehicle's, opposite to the motion, until the next stop. The track starts in forward gear; a
  track that starts at rest takes the heading of its first motion; one that never reaches v_hi
  faces east.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

if TYPE_CHECKING:
    from scipy.interpolate import PPoly

from navsense.constants import GRAVITY_MPS2
from navsense.errors import TruthError
from navsense.truth.states import PHYSICS_HZ, TruthStates
from navsense.truth.track_site import Track
from navsense.truth.waypoints import attitude_from_angles, chassis_from_footprint
from navsense.vehicles import VehicleProfile, vehicle_profile

__all__ = [
    "TrackSample",
    "TrackTrajectory",
    "plan_track",
    "build_truth_from_track",
    "STOP_SPEED_MPS",
    "BANK_MODES",
    "MIN_SMOOTHING_POINTS",
]

STOP_SPEED_MPS = 0.2  # v_lo: below it the heading is held; fully free above 2 v_lo
MIN_SMOOTHING_POINTS = 5  # scipy make_smoothing_spline needs 5
BANK_MODES = ("none", "coordinated")
HEADING_NODE_STEP_S = 0.05  # spacing of the heading-unwrap reference nodes (heading rates up to
# pi / 0.05 s = 63 rad/s are unwrapped correctly)
_MERGE_S = 1e-9  # speed-threshold crossings closer than this are one event
_REST, _BLEND, _FAST = 0, 1, 2


def _bspline_to_ppoly(spl, x: np.ndarray) -> PPoly:
    """The cubic B-spline (vector valued, breakpoints x) in the power basis, exactly."""
    from scipy.interpolate import PPoly

    left = x[:-1]
    c = np.stack([spl(left, 3) / 6.0, spl(left, 2) / 2.0, spl(left, 1), spl(left)], axis=0)
    return PPoly(c, x, extrapolate=False)


def _residual_rms_m(spline, t: np.ndarray, xyz: np.ndarray) -> float:
    r = spline(t) - xyz
    return float(np.sqrt(np.mean(r[:, 0] ** 2 + r[:, 1] ** 2) / 2.0))


def _fit(
    t: np.ndarray, xyz: np.ndarray, smoothing_m: float, source: str
) -> tuple[PPoly, float | None, float]:
    """The position spline F(t) (PPoly, 3 columns), lambda (None: interpolating), residual."""
    from scipy.interpolate import CubicSpline, make_smoothing_spline
    from scipy.optimize import brentq

    if smoothing_m == 0.0:
        return CubicSpline(t, xyz, axis=0, bc_type="not-a-knot", extrapolate=False), None, 0.0
    n = len(t)
    if n < MIN_SMOOTHING_POINTS:
        raise TruthError(f"{source}: {n} points; smoothing needs at least {MIN_SMOOTHING_POINTS}")

    def excess(log_lam: float) -> float:
        spl = make_smoothing_spline(t, xyz, lam=10.0**log_lam)
        return _residual_rms_m(spl, t, xyz) - smoothing_m

    # bracket in log10(lambda), starting at lambda ~ dt^3 (a window of about one interval)
    lo = 3.0 * math.log10(max(float(np.median(np.diff(t))), 1e-6))
    for _ in range(20):  # bounded: at most 20 decades each way
        if excess(lo) < 0.0:
            break
        lo -= 1.0
    hi = lo + 2.0
    for _ in range(30):
        if excess(hi) >= 0.0:
            break
        hi += 1.0
    if excess(hi) < 0.0:  # even the smoothest spline fits within sigma
        log_lam = hi
    else:
        log_lam = brentq(excess, lo, hi, xtol=1e-4, maxiter=100)
    lam = 10.0**log_lam
    spl = make_smoothing_spline(t, xyz, lam=lam)
    return _bspline_to_ppoly(spl, t), lam, _residual_rms_m(spl, t, xyz)


def _wrap(a):
    return (np.asarray(a) + np.pi) % (2.0 * np.pi) - np.pi


class TrackSample(NamedTuple):
    """A track trajectory at times t (arrays with leading axis n)."""

    t_s: np.ndarray
    footprint_m: np.ndarray  # base_footprint on the spline, (n, 3)
    footprint_v_mps: np.ndarray  # its velocity F', (n, 3)
    footprint_a_mps2: np.ndarray  # its acceleration F'', (n, 3)
    p_m: np.ndarray  # chassis origin = centre of mass, (n, 3)
    v_mps: np.ndarray  # centre-of-mass velocity, world, (n, 3)
    q_xyzw: np.ndarray  # FLU -> ENU, (n, 4)
    w_radps: np.ndarray  # angular velocity, world, (n, 3)
    speed_mps: np.ndarray  # horizontal speed of base_footprint, (n,)
    yaw_rad: np.ndarray  # continuous (unwrapped), (n,)
    pitch_rad: np.ndarray  # (n,)
    roll_rad: np.ndarray  # (n,)
    gear: np.ndarray  # +1 forward, -1 reversing, int8 (n,)


class TrackTrajectory:
    """A track's continuous trajectory (module docstring): evaluate at any t in [0, end_s].

    ``smoothing_lambda`` is None for the interpolating spline; ``residual_rms_m`` the RMS
    horizontal residual per axis at the track points (0 without smoothing, sigma with).
    """

    def __init__(
        self,
        track: Track,
        vehicle: VehicleProfile,
        *,
        smoothing_m: float = 0.0,
        bank: str = "none",
        stop_speed_mps: float = STOP_SPEED_MPS,
    ) -> None:
        self.track = track
        self.vehicle = vehicle
        self.bank = bank
        self.source = track.source
        self.end_s = track.duration_s
        self.spline, self.smoothing_lambda, self.residual_rms_m = _fit(
            track.t_s, track.enu_m, smoothing_m, track.source
        )
        self._r_f = -vehicle.footprint_in_chassis_m  # chassis origin in base_footprint, FLU
        self._v_lo = stop_speed_mps
        self._v_hi = 2.0 * stop_speed_mps
        self._build_heading()
        self._roll = None
        if bank == "coordinated":  # phi at the points (exactly coordinated), C2 spline between
            knots = np.asarray(self.spline.x)
            d1, d2 = self.spline(knots, 1), self.spline(knots, 2)
            j = np.clip(np.searchsorted(self._iv_start, knots, side="right") - 1, 0, None)
            g = self._iv_gear[j].astype(np.float64)
            h = np.maximum(np.hypot(d1[:, 0], d1[:, 1]), 1e-9)
            acc_lat = g * (d1[:, 0] * d2[:, 1] - d1[:, 1] * d2[:, 0]) / h  # a . y_h
            acc_long = g * (d1[:, 0] * d2[:, 0] + d1[:, 1] * d2[:, 1]) / h  # a . x_h
            pitch = np.arctan2(g * d1[:, 2], h)
            normal = (GRAVITY_MPS2 + d2[:, 2]) * np.cos(pitch) - acc_long * np.sin(pitch)
            from scipy.interpolate import CubicSpline

            self._roll = CubicSpline(
                knots, -np.arctan2(acc_lat, normal), bc_type="not-a-knot", extrapolate=False
            )

    # -------------------------------------------------------------- stops and heading
    def _crossings(self, speed: float) -> np.ndarray:
        """Times where the horizontal speed h(t) equals ``speed`` (roots of h^2, a quartic)."""
        from scipy.interpolate import PPoly

        d1 = self.spline.derivative()
        cx, cy = d1.c[:, :, 0], d1.c[:, :, 1]
        k = cx.shape[0]
        c2 = np.zeros((2 * k - 1, cx.shape[1]))
        for i in range(k):
            for j in range(k):
                c2[i + j] += cx[i] * cx[j] + cy[i] * cy[j]
        roots = PPoly(c2, d1.x, extrapolate=False).solve(
            speed * speed, discontinuity=False, extrapolate=False
        )
        return roots[np.isfinite(roots)]

    def _path_angles(self, t, gear) -> tuple[np.ndarray, np.ndarray]:
        """Heading (wrapped) and pitch of the vehicle moving along the spline in ``gear``."""
        d1 = self.spline(np.atleast_1d(np.asarray(t, dtype=np.float64)), 1)
        g = np.asarray(gear, dtype=np.float64)
        return (
            np.arctan2(g * d1[:, 1], g * d1[:, 0]),
            np.arctan2(g * d1[:, 2], np.hypot(d1[:, 0], d1[:, 1])),
        )

    def _build_heading(self) -> None:
        """Zones (rest, blend, moving) between speed crossings, gears, holds and unwrap nodes."""
        end = self.end_s
        events = np.unique(
            np.concatenate([[0.0, end], self._crossings(self._v_lo), self._crossings(self._v_hi)])
        )
        events = events[(events >= 0.0) & (events <= end)]
        events = events[np.concatenate([[True], np.diff(events) > _MERGE_S])]
        events[-1] = end
        if events.size < 2:
            events = np.array([0.0, end])
        starts = events[:-1]
        d1 = self.spline(0.5 * (events[:-1] + events[1:]), 1)
        h_mid = np.hypot(d1[:, 0], d1[:, 1])
        zone = np.where(h_mid >= self._v_hi, _FAST, np.where(h_mid >= self._v_lo, _BLEND, _REST))
        first = np.concatenate([[True], zone[1:] != zone[:-1]])
        starts, zone = starts[first], zone[first]
        ends = np.concatenate([starts[1:], [end]])

        m = len(starts)
        gears = np.ones(m, dtype=np.int8)
        hold_yaw = np.zeros(m)
        hold_pitch = np.zeros(m)
        node_t, node_ref = [], []
        gear = 1
        fast = np.flatnonzero(zone == _FAST)
        if zone[0] != _FAST and fast.size:  # starts at rest: the heading of the first motion
            y0, p0 = self._path_angles(starts[fast[0]], 1)
            hy, hp = float(y0[0]), float(p0[0])
        else:
            hy, hp = 0.0, 0.0
        prev_end: float | None = None  # unwrapped heading at the end of interval i - 1
        for i in range(m):
            a, b, z = float(starts[i]), float(ends[i]), zone[i]
            nodes = a + HEADING_NODE_STEP_S * np.arange(
                max(1, math.ceil((b - a) / HEADING_NODE_STEP_S))
            )
            nodes = nodes[nodes < b] if b > a else nodes[:1]
            if nodes.size == 0:
                nodes = np.array([a])
            entering = i > 0 and zone[i - 1] == _FAST and z != _FAST
            if entering and prev_end is not None:  # a stop begins: hold heading and pitch here
                hy = prev_end
                hp = float(self._path_angles(a, gear)[1][0])
            if z == _REST:
                ref = np.full(nodes.size, hy)
                prev_end = hy
            elif z == _FAST or entering:  # unwrap forward from the heading at a
                raw = self._path_angles(nodes, gear)[0]
                anchor = prev_end if prev_end is not None else float(raw[0])
                ref = np.unwrap(np.concatenate([[anchor], raw[1:]]))
                y_b = float(self._path_angles(b, gear)[0][0])
                prev_end = float(ref[-1] + _wrap(y_b - ref[-1]))
                if z == _FAST:
                    hy, hp = float(ref[0]), float(self._path_angles(a, gear)[1][0])
            else:  # blend after rest (or at the start): anchor at b
                if i > 0 and abs(_wrap(self._path_angles(b, gear)[0][0] - hy)) > 0.5 * np.pi:
                    gear = -gear  # moving off backwards: reversing
                y_b = float(self._path_angles(b, gear)[0][0])
                anchor = hy + float(_wrap(y_b - hy))
                raw = self._path_angles(nodes, gear)[0]
                ref = np.unwrap(np.concatenate([[anchor], raw[::-1]]))[1:][::-1]
                prev_end = anchor
            gears[i], hold_yaw[i], hold_pitch[i] = gear, hy, hp
            node_t.append(nodes)
            node_ref.append(ref)
        self._iv_start = starts
        self._iv_zone = zone
        self._iv_gear = gears
        self._iv_hold_yaw = hold_yaw
        self._iv_hold_pitch = hold_pitch
        self._node_t = np.concatenate(node_t)
        self._node_ref = np.concatenate(node_ref)

    @property
    def stops(self) -> list[tuple[float, float]]:
        """(start, end) times of the rests (horizontal speed below stop_speed_mps), s."""
        ends = np.concatenate([self._iv_start[1:], [self.end_s]])
        return [
            (float(a), float(b))
            for a, b, z in zip(self._iv_start, ends, self._iv_zone)
            if z == _REST
        ]

    # -------------------------------------------------------------- evaluation
    def steps(self, rate_hz: float) -> int:
        """Physics steps within the track: floor(end_s rate_hz); the log has steps + 1 rows."""
        return int(math.floor(self.end_s * rate_hz + 1e-9))

    def evaluate(self, t_s) -> TrackSample:
        """The trajectory at times ``t_s`` (s, within [0, end_s]; any shape flattened to (n,))."""
        t = np.atleast_1d(np.asarray(t_s, dtype=np.float64)).ravel()
        if t.size and (
            np.min(t) < -1e-9 or np.max(t) > self.end_s + 1e-9 or not np.all(np.isfinite(t))
        ):
            raise TruthError(
                f"{self.source}: times {np.min(t):g}..{np.max(t):g} s outside the "
                f"track, 0..{self.end_s:g} s"
            )
        t = np.clip(t, 0.0, self.end_s)
        f = self.spline(t)
        d1, d2 = self.spline(t, 1), self.spline(t, 2)
        x1, y1, z1 = d1[:, 0], d1[:, 1], d1[:, 2]
        x2, y2, z2 = d2[:, 0], d2[:, 1], d2[:, 2]
        h = np.hypot(x1, y1)
        hs = np.maximum(h, 1e-9)  # raw terms are multiplied by w = 0
        j = np.clip(np.searchsorted(self._iv_start, t, side="right") - 1, 0, None)
        k = np.clip(np.searchsorted(self._node_t, t, side="right") - 1, 0, None)
        g = self._iv_gear[j].astype(np.float64)

        # blend weight w(h) (quintic smoothstep) and dw/dh
        span = self._v_hi - self._v_lo
        x = np.clip((h - self._v_lo) / span, 0.0, 1.0)
        w = x * x * x * (10.0 - x * (15.0 - 6.0 * x))
        dw = 30.0 * x * x * (1.0 - x) ** 2 / span
        dh = (x1 * x2 + y1 * y2) / hs  # h'

        cross = x1 * y2 - y1 * x2
        ref = self._node_ref[k]
        yaw_path = ref + _wrap(np.arctan2(g * y1, g * x1) - ref)  # unwrapped near the node
        yaw_rate_path = cross / hs**2  # psi' = (x'y'' - y'x'') / h^2
        pitch_path = np.arctan2(g * z1, h)
        pitch_rate_path = g * (z2 * h - z1 * dh) / np.maximum(h * h + z1 * z1, 1e-18)
        hold_y, hold_p = self._iv_hold_yaw[j], self._iv_hold_pitch[j]
        yaw = np.where(w == 1.0, yaw_path, hold_y + w * (yaw_path - hold_y))
        yaw_rate = w * yaw_rate_path + dw * dh * (yaw_path - hold_y)
        pitch = np.where(w == 1.0, pitch_path, hold_p + w * (pitch_path - hold_p))
        pitch_rate = w * pitch_rate_path + dw * dh * (pitch_path - hold_p)

        if self._roll is not None:
            roll_path, roll_rate_path = self._roll(t), self._roll(t, 1)
            roll = w * roll_path
            roll_rate = w * roll_rate_path + dw * dh * roll_path
            q, omega = attitude_from_angles(yaw, pitch, yaw_rate, pitch_rate, roll, roll_rate)
            p, v = chassis_from_footprint(f, d1, yaw, pitch, omega, self._r_f, roll)
        else:
            roll = np.zeros_like(t)
            q, omega = attitude_from_angles(yaw, pitch, yaw_rate, pitch_rate)
            p, v = chassis_from_footprint(f, d1, yaw, pitch, omega, self._r_f)
        return TrackSample(
            t_s=t,
            footprint_m=f,
            footprint_v_mps=d1,
            footprint_a_mps2=d2,
            p_m=p,
            v_mps=v,
            q_xyzw=q,
            w_radps=omega,
            speed_mps=h,
            yaw_rad=yaw,
            pitch_rad=pitch,
            roll_rad=roll,
            gear=self._iv_gear[j],
        )

    def sample(self, rate_hz: float = PHYSICS_HZ) -> TruthStates:
        """The truth log: rows k = 0 .. steps(rate_hz) at t = k / rate_hz, from step 0."""
        n = self.steps(rate_hz) + 1
        ev = self.evaluate(np.arange(n, dtype=np.int64) / rate_hz)
        p = np.ascontiguousarray(ev.p_m)
        return TruthStates(
            step0=0,
            p_m=p,
            q_xyzw=np.ascontiguousarray(ev.q_xyzw),
            v_mps=np.ascontiguousarray(ev.v_mps),
            w_radps=np.ascontiguousarray(ev.w_radps),
            c_m=p.copy(),
            reset=np.zeros(n, dtype=np.bool_),
            rate_hz=float(rate_hz),
        )


# ----------------------------------------------------------------------------- build


def _options(vehicle, rate_hz, smoothing_m, bank, stop_speed_mps, track) -> VehicleProfile:
    if vehicle is None:
        vehicle = (track.route.vehicle if track.route is not None else None) or "polaris"
    vehicle = vehicle if isinstance(vehicle, VehicleProfile) else vehicle_profile(vehicle)
    for name, value, minimum in (
        ("rate_hz", rate_hz, None),
        ("smoothing_m", smoothing_m, 0.0),
        ("stop_speed_mps", stop_speed_mps, None),
    ):
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not math.isfinite(value)
            or (value < minimum if minimum is not None else value <= 0)
        ):
            rule = f">= {minimum:g}" if minimum is not None else "> 0"
            raise TruthError(f"{name} = {value!r} must be a finite number {rule}")
    if bank not in BANK_MODES:
        raise TruthError(f"bank = {bank!r} is not one of {', '.join(BANK_MODES)}")
    if track.route is not None and (smoothing_m != 0.0 or bank != "none"):
        raise TruthError(
            f"{track.source}: smoothing_m and bank apply to recorded tracks (GPX, "
            f"CSV); a waypoint route is planned, not smoothed or banked"
        )
    return vehicle


def plan_track(
    track: Track,
    vehicle: VehicleProfile | str | None = None,
    *,
    smoothing_m: float = 0.0,
    bank: str = "none",
    stop_speed_mps: float = STOP_SPEED_MPS,
):
    """The continuous trajectory of ``track``: a :class:`TrackTrajectory`, or for a waypoint
    route its planned :class:`~navsense.truth.waypoints.Trajectory` (both have evaluate, steps,
    end_s). ``vehicle`` None: the route's, else polaris."""
    vehicle = _options(vehicle, PHYSICS_HZ, smoothing_m, bank, stop_speed_mps, track)
    if track.route is not None:
        return track.route.plan(vehicle)
    return TrackTrajectory(
        track,
        vehicle,
        smoothing_m=float(smoothing_m),
        bank=bank,
        stop_speed_mps=float(stop_speed_mps),
    )


def build_truth_from_track(
    track: Track,
    vehicle: VehicleProfile | str | None = None,
    rate_hz: float = PHYSICS_HZ,
    *,
    smoothing_m: float = 0.0,
    bank: str = "none",
    stop_speed_mps: float = STOP_SPEED_MPS,
) -> TruthStates:
    """The truth log of ``track`` on the physics clock (step 0 at the first point, t = 0).

    ``smoothing_m``: standard deviation of the recorded horizontal position noise per axis, m
    (0: the spline passes through every point); ``bank``: "none" (roll 0) or "coordinated";
    ``stop_speed_mps``: below it the heading is held (module docstring). A waypoint route is
    sampled as planned (``route.plan(vehicle).sample(rate_hz)``).
    """
    vehicle = _options(vehicle, rate_hz, smoothing_m, bank, stop_speed_mps, track)
    traj = plan_track(
        track, vehicle, smoothing_m=smoothing_m, bank=bank, stop_speed_mps=stop_speed_mps
    )
    return traj.sample(float(rate_hz))
