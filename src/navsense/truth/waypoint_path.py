"""The geometry and timing of a waypoint trajectory (navsense.truth.waypoints' docstring, "Path"
and "Timing"): :class:`Waypoint`, the C2 path through the points with its arc-length table
(``_Path``), and the smoothed distance timeline of the legs, holds and ramps (``_Timing``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np

from navsense.errors import TruthError
from navsense.truth.hermite import QuinticHermite

__all__ = ["ARC_TABLE_STEP_M", "MIN_RAMP_S", "RAMP_PEAK", "Waypoint"]


#: 8-point Gauss-Legendre nodes and weights on [-1, 1] (the arc length's quadrature)
_GL_X, _GL_W = np.polynomial.legendre.leggauss(8)


MIN_RAMP_S = 1.0  # shortest speed ramp, s

RAMP_PEAK = 1.875  # max of h'(x) = 30 x^2 (1-x)^2, at x = 1/2

ARC_TABLE_STEP_M = 2.0  # longest sub-interval of the arc-length table, m (in u, ~ metres)

#: Latest time of a route's target timeline, s (about 32 years). Beyond it the times lose their
#: resolution (a later leg's length / speed vanishes beside it: a leg into points[1] at 1e-20 m/s
#: made every later leg 0 s long); a truth log of at most 24 h is built from a timeline anyway.
MAX_TIMELINE_S = 1e9


def _within_timeline(t_s: float, spans: list[tuple[float, str, float]]) -> None:
    """TruthError when the timeline reaches ``t_s`` > MAX_TIMELINE_S, naming the key of the
    longest of its ``spans`` so far, ``(seconds, "file: key", value)``: the dwell, the holds and
    the legs (a leg of 10 s after a dwell of 1e9 s was blamed on the leg's speed)."""
    if not t_s <= MAX_TIMELINE_S:
        _, key, value = max(spans, key=lambda span: span[0])
        raise TruthError(
            f"{key} = {value:g} puts the route at {t_s:.6g} s; a route's timeline ends within "
            f"{MAX_TIMELINE_S:g} s (a truth log of at most 24 h is built from it)"
        )


@dataclass(frozen=True)
class Waypoint:
    """A ground point of base_footprint (ENU m) with the leg speed into it or its time."""

    enu_m: tuple[float, float, float]
    speed_mps: float | None = None
    t_s: float | None = None
    hold_s: float = 0.0


class _Path:
    """The ground path F(u) and its arc-length inverse u(s)."""

    def __init__(self, xyz: np.ndarray, closed: bool, source: str) -> None:
        chord = np.linalg.norm(np.diff(xyz, axis=0), axis=1)
        self.u_knots = np.concatenate([[0.0], np.cumsum(chord)])
        from scipy.interpolate import CubicSpline  # loaded on first use: truth logs need no scipy

        self.spline = CubicSpline(self.u_knots, xyz, bc_type="periodic" if closed else "natural")

        # table nodes: every knot, sub-intervals <= ARC_TABLE_STEP_M
        pieces = []
        for a, b in zip(self.u_knots[:-1], self.u_knots[1:]):
            m = max(4, int(math.ceil((b - a) / ARC_TABLE_STEP_M)))
            pieces.append(np.linspace(a, b, m + 1)[:-1])
        pieces.append(self.u_knots[-1:])
        u = np.concatenate(pieces)
        self.knot_nodes = np.searchsorted(u, self.u_knots)

        d1, d2 = self.spline(u, 1), self.spline(u, 2)
        speed = np.linalg.norm(d1, axis=1)
        horiz = np.hypot(d1[:, 0], d1[:, 1])
        bad = np.flatnonzero(horiz < 0.05)
        if bad.size:
            leg = int(np.searchsorted(self.u_knots, u[bad[0]], side="right"))
            raise TruthError(
                f"{source}: the path between points[{leg - 1}] and points[{leg}] "
                f"nearly stops or turns vertical (a cusp of the spline); move or "
                f"add points so the route is smooth"
            )
        # arc length per sub-interval: 8-point Gauss-Legendre on |F'(u)|
        a, b = u[:-1], u[1:]
        half = 0.5 * (b - a)
        uq = (0.5 * (a + b))[:, None] + half[:, None] * _GL_X[None, :]
        sq = np.linalg.norm(self.spline(uq.ravel(), 1), axis=1).reshape(uq.shape)
        s = np.concatenate([[0.0], np.cumsum(half * (sq @ _GL_W))])
        self.s_nodes = s
        self.length_m = float(s[-1])
        self.knot_s = s[self.knot_nodes]

        # u(s): the quintic Hermite interpolant of u, du/ds and d2u/ds2 at the nodes
        du = 1.0 / speed  # du/ds
        ddu = -np.einsum("ij,ij->i", d1, d2) / speed**4  # d2u/ds2
        self._u_of_s = QuinticHermite(s, u, du, ddu)

        # yaw at the nodes, unwrapped along the path (reference for continuous yaw)
        self._yaw_nodes = np.unwrap(np.arctan2(d1[:, 1], d1[:, 0]))

    def u_of_s(self, s_m: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """u(s), du/ds and the table interval of each s."""
        return self._u_of_s.value_slope(np.clip(s_m, 0.0, self.length_m))

    def yaw(self, d1: np.ndarray, node: np.ndarray) -> np.ndarray:
        """Yaw of the tangent d1, continuous along the path (2 pi branch of the nearest node)."""
        raw = np.arctan2(d1[:, 1], d1[:, 0])
        ref = self._yaw_nodes[node]
        return ref + (raw - ref + np.pi) % (2.0 * np.pi) - np.pi


def _ramp_width(dv_mps: float, accel_mps2: float) -> float:
    return max(MIN_RAMP_S, RAMP_PEAK * abs(dv_mps) / accel_mps2)


def _departure_leg(length_m: float, available_s: float, accel_mps2: float, where: str) -> float:
    """Speed of a leg that starts from rest and must be covered (target) within available_s.

    Leg time T = available_s - w/2 with w = max(MIN_RAMP_S, 1.875 V / a), V = L / T:
    T^2 - D T + 0.9375 L / a = 0 (larger root, the gentler speed) or T = D - MIN_RAMP_S / 2.
    """
    d = available_s
    t_min = d - 0.5 * MIN_RAMP_S
    if t_min > 0 and RAMP_PEAK * (length_m / t_min) / accel_mps2 <= MIN_RAMP_S:
        return length_m / t_min
    disc = d * d - 2.0 * RAMP_PEAK * length_m / accel_mps2
    if disc < 0 or d <= 0:
        need = math.sqrt(2.0 * RAMP_PEAK * length_m / accel_mps2)
        raise TruthError(
            f"{where}: the leg of {length_m:.1f} m starts from rest and has "
            f"{d:.2f} s; it needs at least {need:.2f} s at accel_mps2 = "
            f"{accel_mps2:g}"
        )
    t_leg = 0.5 * (d + math.sqrt(disc))
    return length_m / t_leg


class _Timing:
    """S(t): the smoothed target timeline (breakpoints tau, widths w, speed jumps dv)."""

    def __init__(
        self,
        wps: Sequence[Waypoint],
        knot_s: np.ndarray,
        dwell_s: float,
        accel_mps2: float,
        source: str,
    ) -> None:
        n = len(wps)
        taus, widths, dvs, at_point = [], [], [], []

        def ramp(tau: float, dv: float, point: int) -> float:
            w = _ramp_width(dv, accel_mps2)
            taus.append(tau)
            widths.append(w)
            dvs.append(dv)
            at_point.append(point)
            return w

        rest_until = dwell_s + wps[0].hold_s  # the vehicle stands still until this time
        spans = [(dwell_s, f"{source}: dwell_s", dwell_s)]  # what the timeline is made of
        spans.append((wps[0].hold_s, f"{source}: points[0].hold_s", wps[0].hold_s))
        _within_timeline(rest_until, spans)
        v_cur = 0.0  # target speed of the current leg
        t_here = 0.0  # target time at the current point
        for i in range(1, n):
            wp = wps[i]
            length = float(knot_s[i] - knot_s[i - 1])
            where = f"{source}: points[{i}]"
            if v_cur == 0.0:  # departure from rest
                if wp.t_s is not None:
                    v = _departure_leg(length, wp.t_s - rest_until, accel_mps2, where)
                else:
                    v = cast(float, wp.speed_mps)  # validated: one of speed_mps, t_s
                w = ramp(0.0, v, i - 1)
                taus[-1] = rest_until + 0.5 * w
                t_here = taus[-1] + length / v
            else:
                if wp.t_s is not None:
                    if wp.t_s <= t_here + 1e-9:
                        raise TruthError(
                            f"{where}.t_s = {wp.t_s:g} is not after the time the "
                            f"previous point is reached ({t_here:.3f} s)"
                        )
                    v = length / (wp.t_s - t_here)
                else:
                    v = cast(float, wp.speed_mps)  # validated: one of speed_mps, t_s
                if v != v_cur:
                    ramp(t_here, v - v_cur, i - 1)
                t_here = t_here + length / v
            if wp.t_s is not None:
                spans.append((length / v, f"{where}.t_s", wp.t_s))
            else:
                spans.append((length / v, f"{where}.speed_mps", cast(float, wp.speed_mps)))
            _within_timeline(t_here, spans)
            v_cur = v
            if wp.hold_s > 0 or i == n - 1:  # a stop: rest at this point
                w = ramp(t_here, -v_cur, i)
                v_cur = 0.0
                rest_until = t_here + 0.5 * w + wp.hold_s
                spans.append((wp.hold_s, f"{where}.hold_s", wp.hold_s))
                _within_timeline(rest_until, spans)
        self.end_s = rest_until  # motion ends, final hold included

        self.tau = np.array(taus)
        self.width = np.array(widths)
        self.dv = np.array(dvs)
        self.v_after = np.cumsum(self.dv)
        self.v_after[np.abs(self.v_after) < 1e-12] = 0.0
        # target distance at each breakpoint: S_T(tau_k+1) = S_T(tau_k) + V_k (tau_k+1 - tau_k)
        s_tau = np.zeros(len(taus))
        for k in range(1, len(taus)):
            s_tau[k] = s_tau[k - 1] + self.v_after[k - 1] * (taus[k] - taus[k - 1])
        self.s_tau = s_tau
        self.length_m = float(knot_s[-1])

        # ramps must not overlap (then each is monotone and the speed never changes sign)
        gap = np.diff(self.tau) - 0.5 * (self.width[:-1] + self.width[1:])
        bad = np.flatnonzero(gap < -1e-9)
        if bad.size:
            k = int(bad[0])
            i, j = at_point[k], at_point[k + 1]
            v_in = self.v_after[k] - self.dv[k]
            v_leg, v_out = self.v_after[k], self.v_after[k + 1]
            dist = self.s_tau[k + 1] - self.s_tau[k]
            raise TruthError(
                f"{source}: points[{i}]..points[{j}]: {dist:.1f} m at {v_leg:g} m/s last "
                f"{self.tau[k + 1] - self.tau[k]:.2f} s, but the speed changes at the ends "
                f"({v_in:g} -> {v_leg:g} -> {v_out:g} m/s) need "
                f"{0.5 * (self.width[k] + self.width[k + 1]):.2f} s at accel_mps2 = "
                f"{accel_mps2:g}; lengthen the leg, soften the speed change or raise accel_mps2"
            )

    def evaluate(self, t_s: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """S(t), dS/dt and d2S/dt2."""
        t = np.asarray(t_s, dtype=np.float64)
        k = np.searchsorted(self.tau, t, side="right") - 1
        moving = k >= 0
        kk = np.maximum(k, 0)
        s = np.where(moving, self.s_tau[kk] + self.v_after[kk] * (t - self.tau[kk]), 0.0)
        v = np.where(moving, self.v_after[kk], 0.0)
        a = np.zeros_like(t)
        # the active ramp (at most one): the last ramp that started before t
        r = np.searchsorted(self.tau - 0.5 * self.width, t, side="right") - 1
        rr = np.maximum(r, 0)
        x = (t - self.tau[rr]) / self.width[rr] + 0.5
        active = (r >= 0) & (x < 1.0)
        if np.any(active):
            x = x[active]
            rr = rr[active]
            dv, w = self.dv[rr], self.width[rr]
            v_before = self.v_after[rr] - dv
            x2 = x * x
            big_h = x2 * x2 * (2.5 - x * (3.0 - x))  # 5/2 x^4 - 3 x^5 + x^6
            h = x2 * x * (10.0 - x * (15.0 - 6.0 * x))  # 10 x^3 - 15 x^4 + 6 x^5
            dh = 30.0 * x2 * (1.0 - x) ** 2
            # S = S_T(tau) + V_before (t - tau) + dV w H(x)
            s[active] = self.s_tau[rr] + v_before * (t[active] - self.tau[rr]) + dv * w * big_h
            v[active] = v_before + dv * h
            a[active] = dv * dh / w
        return np.clip(s, 0.0, self.length_m), v, a
