"""Track kinematics: the continuous trajectory of a placed track (path, attitude, rates, stops).

Conventions (DESIGN.md "Data contracts"; the same as navsense.truth.waypoints): a track point is
the position of ``base_footprint``; the chassis origin is ``p = F + R r_f`` with
``r_f = (0.4 wheelbase, 0, cg_height)`` and the centre of mass is the chassis origin, exactly as
for waypoint routes (shared code: ``waypoints.chassis_from_footprint``). So a GNSS antenna
mounted at base_footprint ``[0, 0, 0]`` (``gnss.mount_frame = base_footprint``) reports the
positions of the path; the default antenna (1.7 m above the chassis origin, 0.82 m ahead of the
rear axle for the Polaris) reports them moved by its lever arm.

Truth (:func:`build_truth_from_track`, :class:`TrackTrajectory`):

- Horizontal path in time: (x(t), y(t)), a cubic spline (:mod:`navsense.truth.track_fit`):

  - ``smoothing_m`` None (the default): the smoothing spline whose lambda minimises the
    generalised cross-validation score of x and y together (with the weight 1.4 on its degrees
    of freedom): a recording as it comes is smoothed as much as its data show to be noise. A
    recording without noise (GCV's minimum at the interpolating end) is passed through;
  - ``smoothing_m`` = sigma > 0: the smoothing spline whose RMS residual per horizontal axis is
    sigma (Morozov's discrepancy principle), so sigma is the standard deviation of the recorded
    horizontal noise per axis. It errs towards smoothing (the residual also holds the
    smoothing's bias: a 30 m circle at 5 m/s sampled every ~1 s with sigma = 0.3 m comes out
    0.1 .. 0.2 m too small, tests/truth/test_tracks.py);
  - ``smoothing_m`` 0: pass-through, the interpolating cubic spline (not-a-knot) through every
    point, for tracks without noise. No standstills are found (the path keeps every point).

  The fit is reported in ``smoothing_lambda`` (s^3; None: interpolation), ``smoothing_method``,
  ``residual_rms_m`` and ``noise_m`` (the noise per axis the fit implies).
- Outliers (smoothed paths; :func:`navsense.truth.track_fit.reject_outliers`): a point whose
  residual from the fit is more than 8 robust sigmas of the residuals, and the largest within 3
  points either side, is set aside (a multipath jump) and the fit repeated, at most 10 times;
  its height is set aside too. ``outliers`` lists them (indices of the track's points).
- Standstills (smoothed paths; :func:`navsense.truth.track_fit.find_standstills`): the vehicle
  stands where a more strongly smoothed path (10 lambda) is slower than 4 standard deviations of
  its speed noise (computed from the fit's noise; at least ``stop_speed_mps``) and the points
  there stand: their least-squares drift is below 0.05 m/s, or moves them less than 2 noise
  sigmas + 1.5 m over the interval, or is within 3 standard deviations of its own noise, or
  within 2.5 of what a standing receiver's wander (1 m over 30 s) and noise move it, and
  they lie within 2 sigmas + 1.5 m of their mean (RMS). The
  1.5 m is the slow wander of a standing receiver (GNSS error is correlated over tens of
  seconds: the fit's noise, from the residuals, is only its fast part). Two standstills whose
  centres are within that distance, or that stand together, are one (the hop between them is
  the wander, and a path that hops between two held positions in a second has metres per
  second squared of force), as are a slow interval and the points to the track's start or end
  within 10 s that stand with it (the detector is noisiest there: a 5 s stand at a track's
  start may show it one slow point); the next point on either side joins when within 2 sigmas
  of the mean. The path is fitted again constant on each standstill (lambda chosen again, so
  that a long stop does not make the drive look smooth): position held, zero velocity and
  acceleration, and C2 at both ends (F' = F'' = 0 there, so starts and stops are smooth). The
  intervals are ``standstills``. Where the moving points beside a standstill's edge meet it
  farther from the held position than their noise explains (the receiver's correlated error
  at the edge is not its mean over the stop), that offset is moved onto the moving points over
  the time in which moving it costs 0.2 m/s^2 and the distance in which it turns the path by
  0.05 rad at most, instead of a jump at the stop's edge
  (:func:`navsense.truth.track_fit.settle_edges`; recordings of 2 Hz and faster). A
  standstill's edges are timed between the points (:func:`navsense.truth.track_fit.edge_times`):
  a start from rest at constant jerk fitted to the points beside the edge, the latest departure
  (earliest arrival) within one noise variance of the best fit, at most two recording intervals
  beyond the last standing point, and not where the path would then accelerate harder by more
  than 1 m/s^2 (a knot there: the path stands up to that time, C2).
- Distance travelled S(t) = int |(x', y')| dt (8-point Gauss-Legendre between nodes at most
  :data:`DISTANCE_NODE_S` apart, the quintic Hermite interpolant of S, S' = h, S'' = h' between
  them: C2, navsense.truth.hermite).
- Height: the profile Z(s) over the distance travelled (the road's, not the receiver's time
  series): the GCV smoothing spline of the points' heights at their distances, its kernel at
  least :data:`~navsense.truth.track_fit.PROFILE_KERNEL_M` (50 m: a road's grade changes over
  vertical curves of tens of metres, while a receiver's height error is correlated over tens
  of seconds: it changes by metres during a stop, where the distance does not, and GCV alone
  takes that for a slope at the stop: 0.2 rad of pitch at a 10 Hz recording with 2 m of
  Gauss-Markov height error, 0.04 rad with the 50 m kernel), points closer than 1 m in
  distance one point, outliers set aside as for the path (interpolating with ``smoothing_m`` 0), and
  z(t) = Z(S(t)),
  z' = Z'(S) S', z'' = Z''(S) S'^2 + Z'(S) S''. Standing still, the height is held and nothing
  heaves.
- Velocity, acceleration and jerk are these derivatives (no finite differences); the truth rows
  sample the continuous trajectory at t = k / rate_hz, k = 0 .. floor(T rate_hz).
- Attitude from the path: heading psi = atan2(g y', g x'), pitch theta = atan(g Z'(S)) (the
  slope of the profile under the vehicle), with the gear g = +1 (forward) or -1 (reversing, see
  stops); roll 0. Analytic rates::

      psi'   = (x' y'' - y' x'') / h^2,        h = hypot(x', y')
      theta' = g Z''(S) S' / (1 + Z'(S)^2)

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
- Slow and stopped: below ``stop_speed_mps`` (v_lo, default :data:`STOP_SPEED_MPS`) the vehicle
  rests: it keeps its heading and pitch (rests less than :data:`MIN_HOP_M` + 4 noise sigmas of
  the fit of travel apart are one, and so are a rest and the track's start or end that close:
  a hop within the receiver's noise is no motion, and must not set the heading a departure is
  judged against, or turn the vehicle at the track's end). A car turns only as it moves, so the heading leaves a rest's, and reaches the next
  rest's, over :data:`HEADING_BLEND_M` of distance travelled (half the way between two rests
  closer than twice that), with ``w = 10x^3 - 15x^4 + 6x^5``, x = distance from the rest /
  blend length::

      psi = psi_hold + w (psi_path - psi_hold),   psi' = w psi_path' + w'(x) (S' / blend) (psi_path - psi_hold)

  (pitch alike; roll = w phi), so the heading is continuous and its rate bounded by the path's
  plus 1.875 v |psi_path - psi_hold| / blend: the path's direction in the last and first
  metres of a stop, which the receiver's noise sets, turns the vehicle slowly. A rest's heading
  is the path's where its arrival blend begins. Leaving a rest in a direction more than 90
  degrees away from the held heading (at the end of the departure blend) is reversing (a
  car-like vehicle cannot turn on the spot): the gear becomes -1 and the heading stays the
  vehicle's, opposite to the motion, until the next rest. The track starts in forward gear; a
  track that starts at rest takes the heading of its first motion; one that never moves faces
  east. On a standstill every rate is zero.
- What a land vehicle cannot do: when the sampled truth has more than 1 g of horizontal
  acceleration (:data:`MAX_HORIZONTAL_MPS2`) or turns faster than :data:`MAX_TURN_RATE_RADPS`,
  :meth:`TrackTrajectory.sample` warns once (:class:`navsense.errors.NavsenseWarning`, one line
  naming the time and the value): the recording is not what it claims, or wants smoothing.
"""

from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

if TYPE_CHECKING:
    from scipy.interpolate import PPoly

from navsense.constants import GRAVITY_MPS2
from navsense.errors import NavsenseWarning, TruthError
from navsense.rotation import wrap_angle
from navsense.truth.hermite import QuinticHermite
from navsense.truth.states import PHYSICS_HZ, TruthStates
from navsense.truth.track_fit import below_speed, fit_path, fit_profile
from navsense.truth.track_site import Track
from navsense.truth.waypoints import (
    MAX_TRUTH_STEPS,
    attitude_from_angles,
    chassis_from_footprint,
)
from navsense.vehicles import VehicleProfile, vehicle_profile

__all__ = [
    "TrackSample",
    "TrackTrajectory",
    "plan_track",
    "build_truth_from_track",
    "STOP_SPEED_MPS",
    "BANK_MODES",
    "SMOOTHING_RANGE_M",
    "MAX_HORIZONTAL_MPS2",
    "MAX_TURN_RATE_RADPS",
]

STOP_SPEED_MPS = 0.2  # v_lo: below it the heading is held; fully free above 2 v_lo
# ruling: a stop threshold above a walking pace (5 m/s, 18 km/h) would hold the heading of a
# driving vehicle and flatten its stops into the drive; --stop-speed-mps 1e308 made a whole
# track one standstill
MAX_STOP_SPEED_MPS = 5.0
BANK_MODES = ("none", "coordinated")
SMOOTHING_RANGE_M = (0.001, 100.0)  # a given smoothing_m (other than 0), m: 1 mm .. 100 m
MAX_HORIZONTAL_MPS2 = GRAVITY_MPS2  # 1 g: more horizontal acceleration than tyres give
MAX_TURN_RATE_RADPS = 2.0  # faster turning than a land vehicle does
HEADING_NODE_STEP_S = 0.05  # spacing of the heading-unwrap reference nodes (heading rates up to
# pi / 0.05 s = 63 rad/s are unwrapped correctly)
HEADING_BLEND_M = 3.0  # the heading leaves (reaches) a rest's over this distance, m
MIN_HOP_M = 0.5  # rests closer than this in distance are one (too short a hop to turn in), m
HOP_SIGMAS = 4.0  # ... plus this many noise sigmas of the fit (a hop within the noise)
DISTANCE_NODE_S = 0.25  # longest interval of the distance table S(t), s
SAMPLE_BLOCK_ROWS = 65_536  # sample() evaluates this many rows at a time (bounded memory)
_MERGE_S = 1e-9  # speed-threshold crossings closer than this are one event
_REST, _DEPART, _FAST, _ARRIVE = 0, 1, 2, 3  # interval zones
_MOVE = _FAST  # a stretch between rests
_GL_X, _GL_W = np.polynomial.legendre.leggauss(8)


class TrackSample(NamedTuple):
    """A track trajectory at times t (arrays with leading axis n)."""

    t_s: np.ndarray
    footprint_m: np.ndarray  # base_footprint on the path, (n, 3)
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


def _distance_table(path: PPoly) -> QuinticHermite:
    """S(t), the horizontal distance travelled along ``path``, as a quintic Hermite table."""
    x = np.asarray(path.x)
    parts = np.maximum(1, np.ceil(np.diff(x) / DISTANCE_NODE_S)).astype(np.int64)
    first = np.repeat(np.arange(len(parts)), parts)  # the interval of each node
    k = np.arange(first.size) - np.repeat(np.cumsum(parts) - parts, parts)
    nodes = np.concatenate([x[first] + np.diff(x)[first] * k / parts[first], x[-1:]])
    a, b = nodes[:-1], nodes[1:]
    half = 0.5 * (b - a)
    tq = (0.5 * (a + b))[:, None] + half[:, None] * _GL_X[None, :]
    d1q = path(tq.ravel(), 1)
    hq = np.hypot(d1q[:, 0], d1q[:, 1]).reshape(tq.shape)
    s = np.concatenate([[0.0], np.cumsum(half * (hq @ _GL_W))])
    d1, d2 = path(nodes, 1), path(nodes, 2)
    h = np.hypot(d1[:, 0], d1[:, 1])
    dh = np.where(h > 0.0, (d1[:, 0] * d2[:, 0] + d1[:, 1] * d2[:, 1]) / np.maximum(h, 1e-300), 0.0)
    return QuinticHermite(nodes, s, h, dh)


class TrackTrajectory:
    """A track's continuous trajectory (module docstring): evaluate at any t in [0, end_s].

    ``smoothing_lambda`` is None for the interpolating spline; ``residual_rms_m`` the RMS
    horizontal residual per axis at the track points; ``noise_m`` the noise per axis the fit
    implies; ``standstills`` the (start, end) times where the vehicle stands; ``profile_lambda``
    the height profile's lambda (m^3, None: interpolated or too few points).
    """

    def __init__(
        self,
        track: Track,
        vehicle: VehicleProfile,
        *,
        smoothing_m: float | None = None,
        bank: str = "none",
        stop_speed_mps: float = STOP_SPEED_MPS,
    ) -> None:
        self.track = track
        self.vehicle = vehicle
        self.bank = bank
        self.source = track.source
        self.end_s = track.duration_s
        fit = fit_path(track.t_s, track.enu_m[:, :2], smoothing_m, stop_speed_mps)
        self.spline = fit.path
        self.smoothing_lambda = fit.lam
        self.smoothing_method = fit.method
        self.residual_rms_m = fit.residual_rms_m
        self.noise_m = fit.noise_m
        self.standstills = fit.standstills
        self._distance = _distance_table(self.spline)
        self.outliers = fit.outliers
        keep = np.ones(len(track.t_s), dtype=bool)
        keep[list(fit.outliers)] = False  # a jump of the plane is one of the height too
        s_points = self._distance.derivatives(track.t_s[keep])[0]
        self.profile, self.profile_lambda = fit_profile(
            s_points, track.enu_m[keep, 2], interpolate=fit.method == "interpolation"
        )
        self._r_f = -vehicle.footprint_in_chassis_m  # chassis origin in base_footprint, FLU
        self._v_lo = stop_speed_mps
        self._build_heading()
        self._roll = None
        if bank == "coordinated":  # phi at the points (exactly coordinated), C2 spline between
            knots = np.asarray(self.spline.x)
            _, d1, d2, slope, _, _, _ = self._footprint(knots)
            j = np.clip(np.searchsorted(self._iv_start, knots, side="right") - 1, 0, None)
            g = self._iv_gear[j].astype(np.float64)
            h = np.maximum(np.hypot(d1[:, 0], d1[:, 1]), 1e-9)
            acc_lat = g * (d1[:, 0] * d2[:, 1] - d1[:, 1] * d2[:, 0]) / h  # a . y_h
            acc_long = g * (d1[:, 0] * d2[:, 0] + d1[:, 1] * d2[:, 1]) / h  # a . x_h
            pitch = np.arctan(g * slope)
            normal = (GRAVITY_MPS2 + d2[:, 2]) * np.cos(pitch) - acc_long * np.sin(pitch)
            from scipy.interpolate import CubicSpline

            self._roll = CubicSpline(
                knots, -np.arctan2(acc_lat, normal), bc_type="not-a-knot", extrapolate=False
            )

    # -------------------------------------------------------------- the footprint's path
    def _footprint(self, t: np.ndarray):
        """F, F', F'' (n, 3) at times ``t`` and the profile's slope Z'(S(t)) and curvature."""
        f_xy, d1_xy, d2_xy = self.spline(t), self.spline(t, 1), self.spline(t, 2)
        s, s1, s2 = self._distance.derivatives(t)
        z, z1, z2 = self.profile(s), self.profile(s, 1), self.profile(s, 2)
        f = np.column_stack([f_xy, z])
        d1 = np.column_stack([d1_xy, z1 * s1])
        d2 = np.column_stack([d2_xy, z2 * s1 * s1 + z1 * s2])
        return f, d1, d2, z1, z2, s, s1

    def _path_angles(self, t, gear) -> tuple[np.ndarray, np.ndarray]:
        """Heading (wrapped) and pitch of the vehicle moving along the path in ``gear``."""
        t = np.atleast_1d(np.asarray(t, dtype=np.float64))
        d1 = self.spline(t, 1)
        slope = self.profile(self._distance.derivatives(t)[0], 1)
        g = np.asarray(gear, dtype=np.float64)
        return np.arctan2(g * d1[:, 1], g * d1[:, 0]), np.arctan(g * slope)

    # -------------------------------------------------------------- stops and heading
    def _distance_at(self, t) -> np.ndarray:
        return self._distance.derivatives(np.atleast_1d(np.asarray(t, dtype=np.float64)))[0]

    def _time_at_distance(self, s_target: float, lo: float, hi: float) -> float:
        """The time in [lo, hi] where S(t) = s_target (S increases there): the node interval of
        the distance table, then bisection."""
        table = self._distance
        j = int(np.searchsorted(table.coef[:, 0], s_target, side="left")) - 1
        if 0 <= j < len(table.h):
            lo, hi = max(lo, float(table.nodes[j])), min(hi, float(table.nodes[j + 1]))
        for _ in range(60):  # bounded: the bracket halves each turn
            mid = 0.5 * (lo + hi)
            if float(self._distance_at(mid)[0]) < s_target:
                lo = mid
            else:
                hi = mid
            if hi - lo <= 1e-9 * max(1.0, abs(hi)):
                break
        return 0.5 * (lo + hi)

    def _stretches(self) -> tuple[list[tuple[float, float]], list[tuple[int, float, float]]]:
        """The rests (speed below the detector's low speed; a hop too short to turn in joins
        its neighbours) and the stretches, moving or at rest, that cover the track."""
        end = self.end_s
        hop = MIN_HOP_M + HOP_SIGMAS * self.noise_m
        rests: list[tuple[float, float]] = []
        for a, b in below_speed(self.spline, self._v_lo, 0.0, end):
            if (
                self._distance_at(a)[0] - (self._distance_at(rests[-1][1])[0] if rests else 0.0)
                < hop
            ):  # a hop too short to turn in (or the receiver's wander): one rest
                a = rests.pop()[0] if rests else 0.0
            rests.append((a, b))
        if rests and self._distance_at(end)[0] - self._distance_at(rests[-1][1])[0] < hop:
            rests[-1] = (rests[-1][0], end)
        stretches: list[tuple[int, float, float]] = []  # (zone, start, end), moving or rest
        cursor = 0.0
        for a, b in rests:
            if a > cursor:
                stretches.append((_MOVE, cursor, a))
            stretches.append((_REST, max(a, cursor), b))
            cursor = b
        if cursor < end or not stretches:
            stretches.append((_MOVE, cursor, end))

        return rests, stretches

    def _build_heading(self) -> None:
        """Rests, departures and arrivals (blends over distance), gears, holds, unwrap nodes."""
        rests, stretches = self._stretches()

        starts: list[float] = []
        zones: list[int] = []
        gears: list[int] = []
        holds_y: list[float] = []
        holds_p: list[float] = []
        refs_s: list[float] = []
        blends: list[float] = []
        node_t: list[np.ndarray] = []
        node_ref: list[np.ndarray] = []

        def interval(start, zone, gear, hy, hp, s_ref=0.0, blend=1.0):
            starts.append(start)
            zones.append(zone)
            gears.append(gear)
            holds_y.append(hy)
            holds_p.append(hp)
            refs_s.append(s_ref)
            blends.append(blend)

        def blend_length(i: int) -> tuple[float, float, float]:
            """Distance at the start and end of moving stretch i, and its blend length."""
            _, a, b = stretches[i]
            s0, s1 = float(self._distance_at(a)[0]), float(self._distance_at(b)[0])
            ends_at_rests = (i > 0) + (i + 1 < len(stretches))
            return s0, s1, min(HEADING_BLEND_M, (s1 - s0) / max(ends_at_rests, 1))

        gear = 1
        hy, hp = 0.0, float(self._path_angles(0.0, 1)[1][0])
        if stretches[0][0] == _REST and len(stretches) > 1:  # the heading of the first motion
            _, a, b = stretches[1]
            s0, s1, d = blend_length(1)
            t_d = self._time_at_distance(s0 + d, a, b) if d > 0 else a
            hy = float(self._path_angles(t_d, 1)[0][0])
        for i, (zone, a, b) in enumerate(stretches):
            if zone == _REST:
                interval(a, _REST, gear, hy, hp)
                node_t.append(np.array([a]))
                node_ref.append(np.array([hy]))
                continue
            s0, s1, d = blend_length(i)
            departs, arrives = i > 0, i + 1 < len(stretches)
            t_dep = self._time_at_distance(s0 + d, a, b) if departs and d > 0 else a
            t_arr = self._time_at_distance(s1 - d, a, b) if arrives and d > 0 else b
            t_dep, t_arr = min(t_dep, t_arr), max(t_dep, t_arr)
            if departs and abs(wrap_angle(self._path_angles(t_dep, gear)[0][0] - hy)) > 0.5 * np.pi:
                gear = -gear  # moving off away from the heading: reversing
            nodes = a + HEADING_NODE_STEP_S * np.arange(
                max(1, math.ceil((b - a) / HEADING_NODE_STEP_S))
            )
            nodes = nodes[nodes < b] if b > a else nodes[:1]
            if nodes.size == 0:
                nodes = np.array([a])
            raw = self._path_angles(nodes, gear)[0]
            anchor = hy + float(wrap_angle(raw[0] - hy)) if departs else float(raw[0])
            ref = np.unwrap(np.concatenate([[anchor], raw[1:]]))
            node_t.append(nodes)
            node_ref.append(ref)
            if departs and d > 0:
                interval(a, _DEPART, gear, hy, hp, s0, d)
            if t_dep < t_arr or not (departs or arrives) or d <= 0:
                interval(t_dep, _FAST, gear, hy, hp)
            if arrives:  # the rest's heading: the path's where the arrival begins (the
                # direction of the last metres is the noise's); its pitch: the path's at the rest
                kn = max(int(np.searchsorted(nodes, t_arr, side="right")) - 1, 0)
                y_a = self._path_angles(t_arr, gear)[0]
                hy = float(ref[kn] + wrap_angle(y_a[0] - ref[kn]))
                hp = float(self._path_angles(b, gear)[1][0])
                if d > 0:
                    interval(t_arr, _ARRIVE, gear, hy, hp, s1, d)
        self._rests = rests
        self._iv_start = np.array(starts)
        self._iv_zone = np.array(zones, dtype=np.int8)
        self._iv_gear = np.array(gears, dtype=np.int8)
        self._iv_hold_yaw = np.array(holds_y)
        self._iv_hold_pitch = np.array(holds_p)
        self._iv_s_ref = np.array(refs_s)
        self._iv_blend = np.array(blends)
        self._node_t = np.concatenate(node_t)
        self._node_ref = np.concatenate(node_ref)

    @property
    def stops(self) -> list[tuple[float, float]]:
        """(start, end) times of the rests (horizontal speed below stop_speed_mps), s."""
        return [(float(a), float(b)) for a, b in self._rests]

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
        f, d1, d2, slope, curvature, s, s1 = self._footprint(t)
        x1, y1 = d1[:, 0], d1[:, 1]
        x2, y2 = d2[:, 0], d2[:, 1]
        h = np.hypot(x1, y1)
        hs = np.maximum(h, 1e-9)  # raw terms are multiplied by w = 0
        j = np.clip(np.searchsorted(self._iv_start, t, side="right") - 1, 0, None)
        k = np.clip(np.searchsorted(self._node_t, t, side="right") - 1, 0, None)
        g = self._iv_gear[j].astype(np.float64)

        # blend weight w (quintic smoothstep of the distance from the rest) and dw/dt
        zone = self._iv_zone[j]
        sign = np.where(zone == _DEPART, 1.0, np.where(zone == _ARRIVE, -1.0, 0.0))
        blend = self._iv_blend[j]
        x = np.where(
            sign != 0.0,
            np.clip(sign * (s - self._iv_s_ref[j]) / np.maximum(blend, 1e-300), 0.0, 1.0),
            np.where(zone == _FAST, 1.0, 0.0),
        )
        w = x * x * x * (10.0 - x * (15.0 - 6.0 * x))
        dw = 30.0 * x * x * (1.0 - x) ** 2 * sign * s1 / np.maximum(blend, 1e-300)

        cross = x1 * y2 - y1 * x2
        ref = self._node_ref[k]
        yaw_path = ref + wrap_angle(np.arctan2(g * y1, g * x1) - ref)  # unwrapped near the node
        yaw_rate_path = cross / hs**2  # psi' = (x'y'' - y'x'') / h^2
        pitch_path = np.arctan(g * slope)  # theta = atan(g Z'(S))
        pitch_rate_path = g * curvature * s1 / (1.0 + slope * slope)
        hold_y, hold_p = self._iv_hold_yaw[j], self._iv_hold_pitch[j]
        yaw = np.where(w == 1.0, yaw_path, hold_y + w * (yaw_path - hold_y))
        yaw_rate = w * yaw_rate_path + dw * (yaw_path - hold_y)
        pitch = np.where(w == 1.0, pitch_path, hold_p + w * (pitch_path - hold_p))
        pitch_rate = w * pitch_rate_path + dw * (pitch_path - hold_p)

        if self._roll is not None:
            roll_path, roll_rate_path = self._roll(t), self._roll(t, 1)
            roll = w * roll_path
            roll_rate = w * roll_rate_path + dw * roll_path
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

    def _check_long_enough(self, rows: int, rate_hz: float) -> None:
        """TruthError when the track is shorter than the physics steps a truth log must have
        (navsense.truth.logfiles.MIN_TRUTH_ROWS): a track of 5 points 2 ms apart became a truth
        of one row, and its run one physics step without an IMU row, with no word (issue 28,
        found by the fuzz suite)."""
        from navsense.truth.logfiles import MIN_TRUTH_ROWS

        if rows < MIN_TRUTH_ROWS:
            raise TruthError(
                f"{self.source}: the track lasts {self.end_s:.6g} s, {rows} physics step(s) at "
                f"{rate_hz:g} Hz; a truth log needs at least {MIN_TRUTH_ROWS} (a track of "
                f"{(MIN_TRUTH_ROWS - 1) / rate_hz:.4g} s or more)"
            )

    def sample(self, rate_hz: float = PHYSICS_HZ) -> TruthStates:
        """The truth log: rows k = 0 .. steps(rate_hz) at t = k / rate_hz, from step 0.

        Evaluated :data:`SAMPLE_BLOCK_ROWS` rows at a time; warns (one line) when the truth asks
        more than a land vehicle can do (module docstring)."""
        steps = self.steps(rate_hz)
        if steps > MAX_TRUTH_STEPS:
            raise TruthError(
                f"{self.source}: {self.end_s:g} s at {rate_hz:g} Hz are {float(steps):.6g} steps; at most "
                f"{MAX_TRUTH_STEPS} (24 h at {PHYSICS_HZ:g} Hz) are built"
            )
        n = steps + 1
        self._check_long_enough(n, rate_hz)
        p = np.empty((n, 3))
        q = np.empty((n, 4))
        v = np.empty((n, 3))
        w = np.empty((n, 3))
        worst_acc = (0.0, 0.0)  # (value, time)
        worst_rate = (0.0, 0.0)
        for a in range(0, n, SAMPLE_BLOCK_ROWS):
            b = min(a + SAMPLE_BLOCK_ROWS, n)
            ev = self.evaluate(np.arange(a, b, dtype=np.int64) / rate_hz)
            p[a:b], q[a:b], v[a:b], w[a:b] = ev.p_m, ev.q_xyzw, ev.v_mps, ev.w_radps
            acc = np.hypot(ev.footprint_a_mps2[:, 0], ev.footprint_a_mps2[:, 1])
            i = int(np.argmax(acc))
            if acc[i] > worst_acc[0]:
                worst_acc = (float(acc[i]), float(ev.t_s[i]))
            rate = np.abs(ev.w_radps[:, 2])
            i = int(np.argmax(rate))
            if rate[i] > worst_rate[0]:
                worst_rate = (float(rate[i]), float(ev.t_s[i]))
        self._warn_if_impossible(worst_acc, worst_rate)
        truth = TruthStates(
            step0=0,
            p_m=p,
            q_xyzw=q,
            v_mps=v,
            w_radps=w,
            c_m=p.copy(),
            reset=np.zeros(n, dtype=np.bool_),
            rate_hz=float(rate_hz),
        )
        from navsense.truth.io import check_truth_values

        check_truth_values(truth, self.source)
        return truth

    def _warn_if_impossible(self, acc: tuple[float, float], rate: tuple[float, float]) -> None:
        parts = []
        if acc[0] > MAX_HORIZONTAL_MPS2:
            parts.append(
                f"{acc[0]:.3g} m/s^2 of horizontal acceleration at t = {acc[1]:.2f} s "
                f"(1 g is {MAX_HORIZONTAL_MPS2:.2f})"
            )
        if rate[0] > MAX_TURN_RATE_RADPS:
            parts.append(
                f"a turn rate of {rate[0]:.3g} rad/s at t = {rate[1]:.2f} s "
                f"(a land vehicle: at most {MAX_TURN_RATE_RADPS:g})"
            )
        if parts:
            advice = (
                "give --smoothing-m the recording's noise or check the recording"
                if self.smoothing_method == "interpolation"
                else "check the recording (jumps, wrong times)"
            )
            warnings.warn(
                f"{self.source}: the truth implies more than a land vehicle can do: "
                f"{' and '.join(parts)}; {advice}",
                NavsenseWarning,
                stacklevel=3,
            )


# ----------------------------------------------------------------------------- build


def _options(vehicle, rate_hz, smoothing_m, bank, stop_speed_mps, track) -> VehicleProfile:
    if vehicle is None:
        vehicle = (track.route.vehicle if track.route is not None else None) or "polaris"
    vehicle = vehicle if isinstance(vehicle, VehicleProfile) else vehicle_profile(vehicle)
    for name, value in (("rate_hz", rate_hz), ("stop_speed_mps", stop_speed_mps)):
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not math.isfinite(value)
            or value <= 0
        ):
            raise TruthError(f"{name} = {value!r} must be a finite number > 0")
    if stop_speed_mps > MAX_STOP_SPEED_MPS:
        raise TruthError(
            f"stop_speed_mps = {stop_speed_mps!r} is above {MAX_STOP_SPEED_MPS:g} m/s: the speed "
            f"below which the vehicle counts as stopped is 0 .. {MAX_STOP_SPEED_MPS:g} m/s"
        )
    if smoothing_m is not None:
        lo, hi = SMOOTHING_RANGE_M
        if (
            isinstance(smoothing_m, bool)
            or not isinstance(smoothing_m, (int, float))
            or not math.isfinite(smoothing_m)
            or not (smoothing_m == 0.0 or lo <= smoothing_m <= hi)
        ):
            raise TruthError(
                f"smoothing_m = {smoothing_m!r} must be 0 (through every point) or "
                f"{lo:g} .. {hi:g} m (the recording's noise per axis); leave it out to "
                f"choose it from the data"
            )
    if bank not in BANK_MODES:
        raise TruthError(f"bank = {bank!r} is not one of {', '.join(BANK_MODES)}")
    if track.route is not None and (smoothing_m not in (None, 0.0) or bank != "none"):
        raise TruthError(
            f"{track.source}: smoothing_m and bank apply to recorded tracks (GPX, "
            f"CSV); a waypoint route is planned, not smoothed or banked"
        )
    return vehicle


def plan_track(
    track: Track,
    vehicle: VehicleProfile | str | None = None,
    *,
    smoothing_m: float | None = None,
    bank: str = "none",
    stop_speed_mps: float = STOP_SPEED_MPS,
):
    """The continuous trajectory of ``track``: a :class:`TrackTrajectory`, or for a waypoint
    route its planned :class:`~navsense.truth.waypoints.Trajectory` (both have evaluate, steps,
    end_s). ``vehicle`` None: the route's, else polaris; ``smoothing_m`` None: chosen from the
    data (module docstring)."""
    vehicle = _options(vehicle, PHYSICS_HZ, smoothing_m, bank, stop_speed_mps, track)
    if track.route is not None:
        return track.route.plan(vehicle)
    return TrackTrajectory(
        track,
        vehicle,
        smoothing_m=None if smoothing_m is None else float(smoothing_m),
        bank=bank,
        stop_speed_mps=float(stop_speed_mps),
    )


def build_truth_from_track(
    track: Track,
    vehicle: VehicleProfile | str | None = None,
    rate_hz: float = PHYSICS_HZ,
    *,
    smoothing_m: float | None = None,
    bank: str = "none",
    stop_speed_mps: float = STOP_SPEED_MPS,
) -> TruthStates:
    """The truth log of ``track`` on the physics clock (step 0 at the first point, t = 0).

    ``smoothing_m``: None (default) chooses the smoothing from the data (generalised
    cross-validation); a sigma > 0 is the standard deviation of the recorded horizontal position
    noise per axis, m; 0 passes through every point. ``bank``: "none" (roll 0) or "coordinated";
    ``stop_speed_mps``: below it the heading is held (module docstring). A waypoint route is
    sampled as planned (``route.plan(vehicle).sample(rate_hz)``).
    """
    vehicle = _options(vehicle, rate_hz, smoothing_m, bank, stop_speed_mps, track)
    traj = plan_track(
        track, vehicle, smoothing_m=smoothing_m, bank=bank, stop_speed_mps=stop_speed_mps
    )
    return traj.sample(float(rate_hz))
