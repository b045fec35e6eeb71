"""A track's standstills and their edges (navsense.truth.track_fit's docstring, "Standstills"): the
detector (:func:`find_standstills`: a stiffer smoothing spline's speed below its noise, the
points' drift within a standing receiver's wander), the edges' levels (:func:`settle_edges`) and
times (:func:`edge_times`), and the knots they add (:func:`with_edge_knots`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from navsense.truth.spline_fit import (
    SplineSmoother,
)

if TYPE_CHECKING:
    from scipy.interpolate import PPoly

__all__ = [
    "DETECT_FACTOR",
    "DETECT_SIGMAS",
    "STAND_DRIFT_SIGMAS",
    "STAND_WANDER_M",
    "STAND_DRIFT_MPS",
    "WANDER_SIGMA_M",
    "WANDER_TAU_S",
    "WANDER_DRIFT_SIGMAS",
    "DRIFT_SIGMAS",
    "EDGE_POINTS",
    "EDGE_RADIUS_SIGMAS",
    "END_JOIN_S",
    "MIN_SPREAD_M",
    "EDGE_LEVEL_S",
    "EDGE_MIN_POINTS",
    "EDGE_SIGMAS",
    "OFFSET_ACCEL_MPS2",
    "OFFSET_TURN_RAD",
    "ONSET_STAND_S",
    "ONSET_REACH_SIGMAS",
    "ONSET_REACH_M",
    "ONSET_MAX_S",
    "ONSET_FORWARD",
    "ONSET_STEPS",
    "ONSET_SLACK",
    "speed_crossings",
    "below_speed",
    "find_standstills",
    "settle_edges",
    "edge_times",
    "with_edge_knots",
    "wander_drift_var",
]


DETECT_FACTOR = 10.0  # standstill detector: the smoothing spline of 10 lambda (a kernel 1.8 x
# longer: its speed noise is a quarter of the fit's)

DETECT_SIGMAS = 4.0  # a standstill: detector speed below 4 standard deviations of its noise

STAND_DRIFT_SIGMAS = 2.0  # ... and its points' drift over it below 2 noise sigmas + wander

STAND_WANDER_M = 1.5  # the slow wander of a standing receiver (correlated error), m

STAND_DRIFT_MPS = 0.05  # ... or a drift slower than this (a long stop's wander), m/s

WANDER_SIGMA_M = 1.0  # ... or a drift a standing receiver's wander makes: a Gauss-Markov error

WANDER_TAU_S = 30.0  # of this standard deviation per axis and correlation time (consumer GNSS)

WANDER_DRIFT_SIGMAS = 2.5  # ... within this many standard deviations of its least-squares drift

DRIFT_SIGMAS = 3.0  # ... or within this many standard deviations of the drift's noise

EDGE_POINTS = 1  # the next point on either side, when within 2 noise sigmas of it, joins too

EDGE_RADIUS_SIGMAS = 2.0  # (the stop began between two points: its force errs on the still side)

END_JOIN_S = 10.0  # the points to the track's start (end) join a standstill this close to it

MIN_SPREAD_M = 0.01  # floor of that radius (a recording without noise), m

EDGE_LEVEL_S = 2.0  # a standstill edge's level: the moving points within this of it, s

EDGE_MIN_POINTS = 4  # ... at least this many (1 Hz: none, the edge is left as it is)

EDGE_SIGMAS = 3.5  # ... an offset beyond this many standard deviations of its estimate is moved

OFFSET_ACCEL_MPS2 = 0.2  # ... over the time in which moving it costs this acceleration, m/s^2

OFFSET_TURN_RAD = 0.05  # ... and over the distance in which it turns the path by at most this

ONSET_STAND_S = 5.0  # a standstill edge's time (edge_times): the stop's points within this, s

ONSET_REACH_SIGMAS = 12.0  # ... the moving points up to the first this many noise sigmas away

ONSET_REACH_M = 2.0  # ... and at least this far from the stop, m

ONSET_MAX_S = 10.0  # ... within this of the edge, s

ONSET_FORWARD = 1  # ... up to this many moving points beyond the next

ONSET_STEPS = 20  # ... times tried per median spacing

ONSET_SLACK = 1.0  # ... the latest departure (earliest arrival) within this many noise variances
# of the least residual sum of squares

_SMOOTHSTEP_CURVATURE = 10.0 / math.sqrt(3.0)  # max |w''| of w = 10x^3 - 15x^4 + 6x^5

_SMOOTHSTEP_SLOPE = 1.875  # max |w'|


def speed_crossings(path: PPoly, speed: float) -> np.ndarray:
    """Times where the horizontal speed h = |(x', y')| of ``path`` (a cubic PPoly whose first two
    columns are x and y) equals ``speed``: the roots of h^2 - speed^2, a quartic per interval."""
    from scipy.interpolate import PPoly

    d1 = path.derivative()
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


def below_speed(path: PPoly, speed: float, start: float, end: float) -> list[tuple[float, float]]:
    """The intervals of [start, end] where the horizontal speed of ``path`` is below ``speed``."""
    events = np.unique(np.concatenate([[start, end], speed_crossings(path, speed)]))
    events = events[(events >= start) & (events <= end)]
    mid = 0.5 * (events[:-1] + events[1:])
    d1 = path(mid, 1)
    slow = np.hypot(d1[:, 0], d1[:, 1]) < speed
    runs: list[tuple[float, float]] = []
    for a, b, s in zip(events[:-1], events[1:], slow):
        if not s:
            continue
        if runs and runs[-1][1] == a:
            runs[-1] = (runs[-1][0], float(b))
        else:
            runs.append((float(a), float(b)))
    return runs


def find_standstills(
    smoother: SplineSmoother, y: np.ndarray, lam_u: float, noise_m: float, stop_speed_mps: float
) -> list[tuple[int, int]]:
    """Index pairs (p, q) of the points where the vehicle stands (module docstring of
    :mod:`navsense.truth.track_kinematics`, "Standstills")."""
    lam_det = lam_u * DETECT_FACTOR
    detector = smoother.ppoly(smoother.coefficients(y, lam_det))
    v_det = max(stop_speed_mps, DETECT_SIGMAS * noise_m * smoother.derivative_noise(lam_det))
    x, w = smoother.x, smoother.w
    last = smoother.n - 1

    def stands(p: int, q: int) -> tuple[bool, np.ndarray]:
        ww = w[p : q + 1]
        centre = np.sum(ww[:, None] * y[p : q + 1], axis=0) / np.sum(ww)
        return _standing(x[p : q + 1], y[p : q + 1], ww, centre, noise_m), centre

    flat: list[tuple[int, int]] = []
    for a, b in below_speed(detector, v_det, float(x[0]), float(x[-1])):
        idx = np.flatnonzero((x >= a) & (x <= b))
        if idx.size == 0:
            continue
        p, q = int(idx[0]), int(idx[-1])
        # the detector is noisiest at the track's ends: the points between a slow interval and
        # the track's start (end), within END_JOIN_S, join it when they all stand with it
        if p > 0 and x[p] - x[0] <= END_JOIN_S and stands(0, q)[0]:
            p = 0
        if q < last and x[last] - x[q] <= END_JOIN_S and stands(p, last)[0]:
            q = last
        if q == p:
            continue
        ok, centre = stands(p, q)
        if not ok:
            continue  # the points move: slow, not standing
        merged = False
        if flat:  # two standstills apart by the receiver's wander, not by motion: one
            a0, b0 = flat[-1]
            hop = math.dist(stands(a0, b0)[1], centre)
            if hop <= STAND_DRIFT_SIGMAS * noise_m + STAND_WANDER_M or stands(a0, q)[0]:
                p = flat.pop()[0]  # its start was extended already
                merged = True
        ok, centre = stands(p, q)
        near = EDGE_RADIUS_SIGMAS * noise_m + MIN_SPREAD_M
        for _ in range(int(EDGE_POINTS)):
            if p > 0 and not merged and math.dist(y[p - 1], centre) <= near:
                p -= 1
            if q < last and math.dist(y[q + 1], centre) <= near:
                q += 1
        if flat and p <= flat[-1][1] + 2:  # they would share a B-spline coefficient: one
            p = flat.pop()[0]
        flat.append((p, q))
    return flat


def settle_edges(
    x: np.ndarray,
    y: np.ndarray,
    w: np.ndarray,
    flat: Sequence[tuple[int, int]],
    noise_m: float,
    along: np.ndarray,
) -> np.ndarray:
    """``y`` (n, k) with each standstill's edge offset moved onto the moving points beside it,
    over the time in which moving it costs :data:`OFFSET_ACCEL_MPS2` (module docstring,
    "Standstill edges").

    For each edge e of a standstill (p, q) (x_p: arrival, x_q: departure; not at the track's
    ends), its hold H is the weighted mean of its points and the moving points within
    :data:`EDGE_LEVEL_S` of x_e (at least :data:`EDGE_MIN_POINTS`, up to the neighbouring
    standstill) give the level L at which the receiver's path meets the stop: the weighted
    least-squares fit ``y = L + b (x - x_e)^2`` (a vehicle at rest at x_e: zero velocity there).
    The offset d = L - H is moved when it is more than :data:`EDGE_SIGMAS` standard deviations
    of its estimate (noise_m^2 ((A^T W A)^-1)_00 + noise_m^2 / sum w over the stop, A the
    columns 1 and (x - x_e)^2): the moving points i on that side get
    ``y_i - d (1 - s(|x_i - x_e| / T))``, s the quintic smoothstep 10r^3 - 15r^4 + 6r^5
    (max |s''| = 10/sqrt(3), max |s'| = 1.875), T the longer of
    ``sqrt(10/sqrt(3) |d| / OFFSET_ACCEL_MPS2)`` and the time to travel
    ``1.875 |d| / OFFSET_TURN_RAD`` along ``along`` (the distance of the fit without standstills
    at the points), so the offset adds at most OFFSET_ACCEL_MPS2 of acceleration and turns the
    path by at most OFFSET_TURN_RAD (an offset across the motion moved over a few metres of a
    creeping queue turned it). When the next standstill or the track's end comes first, the
    edge is left as it is.
    """
    out = y.copy()
    n = len(x)
    for k, (p, q) in enumerate(flat):
        ww = w[p : q + 1]
        hold = np.sum(ww[:, None] * y[p : q + 1], axis=0) / np.sum(ww)
        before = flat[k - 1][1] if k > 0 else None  # the previous standstill's last point
        after = flat[k + 1][0] if k + 1 < len(flat) else None
        for edge, lo, hi, bound in (
            (p, (before + 1) if before is not None else 0, p, before),
            (q, q + 1, after if after is not None else n, after),
        ):
            side = np.arange(lo, hi)
            side = side[(np.abs(x[side] - x[edge]) <= EDGE_LEVEL_S) & (w[side] > 0)]
            if side.size < EDGE_MIN_POINTS:
                continue  # the track's end, or too few points to tell an offset
            root_w = np.sqrt(w[side])[:, None]
            basis = np.column_stack([np.ones(side.size), (x[side] - x[edge]) ** 2]) * root_w
            level = np.linalg.lstsq(basis, y[side] * root_w, rcond=None)[0][0]
            delta = level - hold
            size = math.sqrt(float(np.sum(delta * delta)))
            var = noise_m**2 * (float(np.linalg.inv(basis.T @ basis)[0, 0]) + 1.0 / np.sum(ww))
            if size <= EDGE_SIGMAS * math.sqrt(var):
                continue  # within the noise: nothing to move
            span = math.sqrt(_SMOOTHSTEP_CURVATURE * size / OFFSET_ACCEL_MPS2)
            reach = np.abs(along[lo:hi] - along[edge]) >= _SMOOTHSTEP_SLOPE * size / OFFSET_TURN_RAD
            if not np.any(reach):
                continue  # the next stop or the track's end comes first: moving it would turn
            far = lo + int(np.argmax(reach)) if edge == q else lo + int(np.flatnonzero(reach)[-1])
            span = max(span, abs(float(x[far] - x[edge])))
            if bound is not None and span > abs(float(x[bound] - x[edge])):
                continue
            r = np.clip(np.abs(x[lo:hi] - x[edge]) / span, 0.0, 1.0)
            keep = 1.0 - r * r * r * (10.0 - r * (15.0 - 6.0 * r))
            out[lo:hi] -= keep[:, None] * delta
    return out


def edge_times(
    x: np.ndarray,
    y: np.ndarray,
    w: np.ndarray,
    flat: Sequence[tuple[int, int]],
    noise_m: float,
) -> list[tuple[float, float]]:
    """The (arrival, departure) time of each standstill (p, q) of ``flat`` (module docstring,
    "Standstill edge times").

    A departure's time tau lies in [x_q, x_{q+1+F}] with F = :data:`ONSET_FORWARD` (an
    arrival's in [x_{p-1-F}, x_p], mirrored): the latest standing point the detector found, up
    to the point after the next. Each tau of a grid of :data:`ONSET_STEPS` per median spacing
    is fitted by weighted least squares with the onset model ``y = b + c (t - tau)_+^3`` (b, c
    vectors: the level the receiver shows at the stop, and a start from rest at constant jerk,
    the shape of the spline's first interval beside a standstill) to the stop's points within
    :data:`ONSET_STAND_S` of the edge (at least 3) and the moving points up to the first farther
    than :data:`ONSET_REACH_SIGMAS` noise sigmas (and :data:`ONSET_REACH_M`) from the stop's
    mean (at least 3, within :data:`ONSET_MAX_S`, before the next standstill). The time taken
    is the latest departure (earliest arrival) whose residual sum of squares is within
    :data:`ONSET_SLACK` noise variances of the least (a one-parameter likelihood-ratio bound at
    about 68 %: the data do not tell it from the best). An edge at the track's end, or with
    fewer than 3 moving points, stays at its point.
    """
    n = len(x)
    step = float(np.median(np.diff(x))) / ONSET_STEPS
    reach = max(ONSET_REACH_SIGMAS * noise_m, ONSET_REACH_M)
    times: list[tuple[float, float]] = []
    for k, (p, q) in enumerate(flat):
        ww = w[p : q + 1]
        hold = np.sum(ww[:, None] * y[p : q + 1], axis=0) / np.sum(ww)
        pair = [float(x[p]), float(x[q])]
        before = flat[k - 1][1] if k > 0 else -1  # the neighbouring standstills' last/first point
        after = flat[k + 1][0] if k + 1 < len(flat) else n
        for j, (edge, sign, inner, outer) in enumerate(((p, -1, q, before), (q, 1, p, after))):
            stand = [edge]
            i = edge - sign
            while (i - inner) * sign >= 0 and (
                abs(x[i] - x[edge]) <= ONSET_STAND_S or len(stand) < 3
            ):
                stand.append(i)
                i -= sign
            moving: list[int] = []
            i = edge + sign
            while (outer - i) * sign > 0 and abs(x[i] - x[edge]) <= ONSET_MAX_S:
                moving.append(i)
                if len(moving) >= 3 and math.dist(y[i], hold) > reach:
                    break
                i += sign
            if len(moving) < 3:
                continue  # the track's end, the next standstill, or a gap: left at its point
            idx = np.array(sorted(stand + moving))
            xs, ys, ws = x[idx], y[idx], w[idx]
            reach_i = moving[min(ONSET_FORWARD, len(moving) - 2)]
            lo, hi = sorted((float(x[edge]), float(x[reach_i])))
            cands = np.arange(lo, hi, step) if sign > 0 else np.arange(hi, lo, -step)[::-1]
            lag = np.clip(sign * (xs[None, :] - cands[:, None]), 0.0, None) ** 3  # (c, m)
            sw = float(np.sum(ws))
            yc = ys - (ws @ ys) / sw  # b eliminated: centred columns
            gc = lag - (lag @ ws)[:, None] / sw
            sgg = np.maximum((gc * gc) @ ws, 1e-300)
            sgy = (gc * ws) @ yc  # (c, k)
            rss = float(np.sum(ws[:, None] * yc * yc)) - np.sum(sgy * sgy, axis=1) / sgg
            ok = np.flatnonzero(rss <= rss.min() + ONSET_SLACK * noise_m**2)
            pair[j] = float(cands[ok[-1]] if sign > 0 else cands[ok[0]])
        times.append((pair[0], pair[1]))
    return times


def with_edge_knots(
    x: np.ndarray,
    y: np.ndarray,
    w: np.ndarray,
    flat: Sequence[tuple[int, int]],
    times: Sequence[tuple[float, float]],
) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[tuple[int, int]]]:
    """(x, y, w, flat) with a point of weight zero at each edge time of ``times`` that lies
    between two points (a knot: the spline may stand up to it), and the standstills as index
    pairs into them; an edge time within a tenth of the spacing of a point is that point (the
    system stays well conditioned). Its value is the standstill's mean (weight zero: it adds
    nothing to the sums). Where a departure's and the next arrival's times come closer than
    three knots (the standstills would share a B-spline coefficient: one held position), both
    stay at their points."""
    tol = 0.1 * float(np.median(np.diff(x)))
    edges = []
    for pair in times:
        snapped = []
        for t in pair:
            near = int(np.argmin(np.abs(x - t)))
            snapped.append(float(x[near]) if abs(x[near] - t) < tol else float(t))
        edges.append(snapped)
    while True:
        extra = np.array(sorted({t for pair in edges for t in pair} - set(x.tolist())))
        xa = np.concatenate([x, extra])
        order = np.argsort(xa, kind="stable")
        xa = xa[order]
        out = [(int(np.searchsorted(xa, a)), int(np.searchsorted(xa, b))) for a, b in edges]
        close = [k for k in range(len(out) - 1) if out[k + 1][0] < out[k][1] + 3]
        if not close:
            break
        k = close[0]
        edges[k][1], edges[k + 1][0] = float(x[flat[k][1]]), float(x[flat[k + 1][0]])
    if extra.size == 0:
        return x, y, w, out
    ya = np.concatenate([y, np.zeros((extra.size, y.shape[1]))])[order]
    wa = np.concatenate([w, np.zeros(extra.size)])[order]
    for pa, qa in out:
        ws = wa[pa : qa + 1]
        ya[pa : qa + 1][ws == 0] = np.sum(ws[:, None] * ya[pa : qa + 1], axis=0) / np.sum(ws)
    return xa, ya, wa, out


def _standing(
    x: np.ndarray, y: np.ndarray, w: np.ndarray, centre: np.ndarray, noise_m: float
) -> bool:
    """Whether points the detector found slow stand: they lie within ``a`` =
    :data:`STAND_DRIFT_SIGMAS` noise sigmas + :data:`STAND_WANDER_M` of their mean (RMS), and
    their weighted least-squares drift (the velocity of the line through them) is slower than
    :data:`STAND_DRIFT_MPS`, or moves them less than ``a`` over the interval, or is within
    :data:`DRIFT_SIGMAS` standard deviations of its own noise (noise_m / sqrt(sum w (t - t_mean)^2)
    per axis: two points a second apart tell no drift), or is within what a standing receiver's
    wander does over the interval (:func:`_wander_drift`). A vehicle creeping at 0.2 m/s for
    30 s moves; a receiver's wander of 1 m over 30 s, standing for 5 min, drifts at about
    0.005 m/s and stands."""
    allowed = STAND_DRIFT_SIGMAS * noise_m + STAND_WANDER_M
    spread = math.sqrt(float(np.sum(w[:, None] * (y - centre) ** 2)) / (2 * np.sum(w)))
    if spread > allowed:
        return False
    speed, stt = _drift(x, y, w, centre)
    return (
        speed <= STAND_DRIFT_MPS
        or speed * float(x[-1] - x[0]) <= allowed
        or speed <= DRIFT_SIGMAS * noise_m / math.sqrt(stt)  # not told from the noise
        or _wander_drift(x, speed, stt, noise_m)
    )


def _drift(x: np.ndarray, y: np.ndarray, w: np.ndarray, centre: np.ndarray) -> tuple[float, float]:
    """The speed of the weighted least-squares line through the points (|b|, b = sum w (t -
    t_mean) (y - centre) / S) and S = sum w (t - t_mean)^2."""
    tc = x - np.sum(w * x) / np.sum(w)
    stt = max(float(np.sum(w * tc * tc)), 1e-300)
    drift = np.sum((w * tc)[:, None] * (y - centre), axis=0) / stt
    return math.hypot(*drift), stt


def _wander_drift(x: np.ndarray, speed: float, stt: float, noise_m: float) -> bool:
    """Whether a drift ``speed`` over the points' span T moves them no farther than
    :data:`WANDER_DRIFT_SIGMAS` standard deviations of what a standing receiver's wander and
    noise do: ``speed T <= k sqrt(wander_drift_var(T) + noise^2 T^2 / S)``."""
    span = float(x[-1] - x[0])
    var = wander_drift_var(span) + (noise_m * span) ** 2 / stt
    return speed * span <= WANDER_DRIFT_SIGMAS * math.sqrt(var)


def wander_drift_var(span_s: float, grid: int = 64) -> float:
    """Variance per axis of the least-squares drift times ``span_s`` (the distance the line
    through the points moves over the interval) of a stationary Gauss-Markov error of
    :data:`WANDER_SIGMA_M` and :data:`WANDER_TAU_S`, sampled continuously over ``span_s``::

        Var(b T) = T^2 g^T K g,   g_i = c_i / sum c^2,  c_i = t_i - T/2,
        K_ij = sigma^2 exp(-|t_i - t_j| / tau)

    at ``grid`` midpoints t_i (0.4 m over 2 s, 0.8 m over 9 s, 1.27 m over 30 s, 1.5 m over
    60 s: a random walk's sqrt(12 sigma^2 T / (5 tau)) while T << tau, falling again as the
    error decorrelates)."""
    if not span_s > 0.0:
        return 0.0
    t = (np.arange(grid) + 0.5) * (span_s / grid)
    c = t - 0.5 * span_s
    k = WANDER_SIGMA_M**2 * np.exp(-np.abs(t[:, None] - t[None, :]) / WANDER_TAU_S)
    g = c * (span_s / float(np.sum(c * c)))
    return float(g @ k @ g)
