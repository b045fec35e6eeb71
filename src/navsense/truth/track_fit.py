"""Track fitting: cubic smoothing splines whose smoothing is chosen from the data, standstills.

A recorded track is a sample of a smooth motion plus the receiver's noise. Its path is the cubic
smoothing spline of the points (Reinsch 1967; Green & Silverman 1994, ch. 2)::

    F = argmin  sum_i w_i (y_i - F(x_i))^2 + lambda int F''(x)^2 dx                       (1)

over the cubic splines with knots at the abscissae x_i (for lambda > 0 the minimiser over all
functions with a square-integrable second derivative is such a spline). In the B-spline basis
``F = sum_j c_j B_j`` (n + 2 functions, knots x_0 x 4, x_1 .. x_{n-2}, x_{n-1} x 4), (1) is the
banded linear system::

    (B^T W B + lambda Omega) c = B^T W y,    B_ij = B_j(x_i),  Omega_jk = int B_j'' B_k'' dx    (2)

solved by Cholesky (LAPACK pbtrf/pbtrs, bandwidth 3). ``Omega`` is exact: F'' is the linear
spline ``sum_l d_l N_l`` with ``d = D2 c`` (the B-spline derivative formula applied twice), so
``Omega = D2^T G D2`` with ``G`` the Gram matrix of the hat functions ``N_l``. The abscissae are
scaled by their median spacing first (lambda is reported in the caller's units).

Standstills: F is constant on [x_p, x_q] exactly when the coefficients of the B-splines that are
nonzero there, c_p .. c_{q+2}, are equal (they sum to one on the interval). So a standstill is
one unknown for those columns of B: (2) keeps its band, and F is C2 with F' = F'' = 0 at both
ends of the standstill.

Standstill edges (:func:`settle_edges`): the held position is about the mean of the stop's
points, so its error is the receiver's correlated error averaged over the stop, while the moving
path beside it follows that error as it is at the edge (GCV smooths only its fast part away); a
Gauss-Markov error of 1 m over 30 s differs by up to a metre between the two. The fit then turns
the offset into motion within its kernel, about a second at 10 Hz: 3.5 .. 4.2 m/s^2 of force
while the vehicle stands (10 Hz, 1 m Gauss-Markov of 30 s + 0.3 m white, the town drive's stop
edges). So the level at which the moving points meet the stop is estimated (the fit of a
vehicle at rest at the edge, ``L + b t^2``, to the moving points of the 2 s beside it), and an
offset from the hold beyond its noise is moved onto the moving points over the time in which
moving it costs :data:`OFFSET_ACCEL_MPS2` (a quintic smoothstep: 5.4 s for 1 m) and at least
the distance in which it turns the path by :data:`OFFSET_TURN_RAD` (37.5 m for 1 m): the truth's
error stays the receiver's correlated error, moved smoothly, instead of a jump at the stop. The
stop's own points near the edge were tried for the level and left (an offset appears as the
vehicle moves off, 0.7 m within 0.2 s in seed 2: the stop does not see it), as was the
unconstrained fit at the edge (half the offset, and applied at 1 Hz it made edges worse); a 1 Hz
recording has too few points beside an edge (2 s) to tell an offset from a start, and is left
as it was. What remains at 10 Hz is the detector's: a stop missed, split or ended early by a
wander that creeps at 0.5 m/s for seconds (below, after "A long stand's drift").

Standstill edge times (:func:`edge_times`, :func:`with_edge_knots`): a standstill found on the
points starts and ends at a point, while the vehicle stops between two; at 1 Hz the fit moved
off up to a second (two, when the detector's 2-sigma edge test missed a standing point) before
the vehicle did, with the constant jerk of its first interval (1 .. 3 m/s^3): 0.5 .. 0.85 m/s^2
of force while the vehicle stood (1 Hz town drive, 0.5 m white noise). So each edge gets a time
between its last standing point and the second moving point: the least-squares fit of a start
from rest at constant jerk (the shape of the spline's first interval beside a standstill) to the
points beside the edge, for each time on a grid of 1/20 of the spacing, and the latest departure
(earliest arrival) whose residual is within one noise variance of the least (the data do not
tell it from the best; a vehicle that moves off too early has force while it stands, one that
moves off a fraction of a second late has moved centimetres: a jerk-limited start covers
j t^3 / 6). A point of weight zero there is a knot, and the spline stands up to it (C2: the
acceleration leaves zero continuously). An edge so moved is put back at its point when the path
then accelerates harder beside it, by more than :data:`ONSET_ACCEL_SLACK` within
:data:`ONSET_CHECK_S` (a late start that must catch up with the points: 3.1 m/s^2 of
along-track error in a recording whose point 2 s after the start lay 1.5 m short).

What timing cannot do: the points fix an edge to about 0.7 s (standard deviation over 96 edges
of 1 Hz recordings with 0.5 m noise; a car leaving a stop at the town drive's rate moves 0.3 m
in its first second, under the noise), and the true acceleration half a second from standstill
is itself 0.25 .. 0.5 m/s^2 in these drives. So the force at the instants the vehicle stands
within about half a second of an edge exceeds 0.3 m/s^2 in about half of such recordings, while
the force a recording interval from motion ("settled") stays within it
(tests/measure_recordings.py).
Tried and left: heavier smoothing beside the edges (a 10 times larger roughness weight for 3 s
made the town drive's along-track force error 2 .. 4 m/s^2), an onset whose jerk starts at zero
(a sextic blend over 1 .. 2 s: the same force at the edges, more while moving), choosing the
edge by the penalised criterion (1), GCV or Mallows' Cp of the spline with a knot there (the
roughness term favours early departures; GCV and Cp favour long standstills, +1 s), an onset
model with a free acceleration step (a wider spread, 1.0 .. 1.5 s), and edges moved by more
than two intervals (the points farther away are seconds into the start, where a constant-jerk
model no longer holds).

Smoothing from the data: lambda minimises the generalised cross-validation score (Craven & Wahba
1979) of the columns of y together (x and y of a track share one lambda, so the fit does not
depend on the orientation of the grid), with the weight gamma = :data:`GCV_GAMMA` on the
degrees of freedom (Kim & Gu 2004) against GCV's occasional undersmoothing::

    V(lambda) = (1/(n k)) sum_i w_i |y_i - F(x_i)|^2 / (1 - gamma tr H(lambda) / n)^2      (3)

with ``tr H = tr((B^T W B + lambda Omega)^-1 B^T W B)`` from the band of the inverse
(Hutchinson & de Hoog 1985), searched over whole decades of lambda and then refined by Brent's
method. Data whose plain score (gamma = 1) is smallest at the lower end of
:data:`LOG_LAMBDA_RANGE` show no noise (a planned or synthetic track). Or lambda is chosen so
that the RMS residual per column equals a given noise sigma (Morozov's discrepancy principle;
FITPACK's s = n sigma^2).

Outliers (multipath jumps) are set aside before the standstills are sought
(:func:`reject_outliers`). Correlated noise (GNSS error is a Gauss-Markov process of tens of
seconds plus white noise) is not modelled in (3): GCV sees its slow part as motion and smooths
only the fast part away. Its effect on the IMU truth is small where the vehicle moves (a
random walk of 1 m over 30 s has accelerations of about 0.1 m/s^2 at a 2 s kernel) and large
where it stands (the wander looks like creeping and turning): standstills therefore allow a
drift of :data:`STAND_WANDER_M` (:func:`find_standstills`) and the height profile a kernel of
at least :data:`PROFILE_KERNEL_M`. A floor on the path's kernel (1 .. 1.4 s) was tried and
left: it bent the 90-degree turns of 1 Hz town drives more than it calmed 10 Hz ones.

A long stand's drift: the wander moves the least-squares line through a stand's points by
more than :data:`STAND_WANDER_M` over tens of seconds (a 1 m, 30 s Gauss-Markov error: 1.27 m
standard deviation per axis over 30 s, :func:`wander_drift_var`), so a 30 s stop of such a
receiver failed the flat 2 sigmas + 1.5 m about one time in five and was no standstill at all
(5 Hz town drive, seed 2: 2.45 m). Points also stand when their drift is within
:data:`WANDER_DRIFT_SIGMAS` standard deviations of that wander's and the white noise's
(:func:`_wander_drift`). The receiver is the one of the goal of issue 18 (1 m over 30 s,
:data:`WANDER_SIGMA_M`, :data:`WANDER_TAU_S`; the data tell only the white part, so it is a
stated assumption, not an estimate); a creep slower than such a wander (3.2 m in 30 s, 2 m in
9 s) is not told from a stand, and a receiver that wanders more (3 m over 60 s) is beyond it.
Below about 10 s the flat allowance is the larger, so short stands and slow manoeuvres are
judged as before.

What remains of the detector at 5 .. 10 Hz with such a wander (tests/measure_recordings.py,
seeds 1 .. 6): its threshold is 4 standard deviations of the white noise's speed at its kernel
(0.07 .. 0.09 m/s per axis), while the wander's speed there is 0.12 .. 0.14 m/s per axis, so a
stand's detector speed reaches 0.3 .. 0.6 m/s, a queue's creep. A stand is then missed
when no slow interval reaches it (highway 10 Hz seed 4, the 5 s at the start), ended early
(town 10 Hz seed 4, 2.9 s before the 210 s start), or lost when its slow interval takes in the
slow ends of the creeps beside it and moves as a whole (queue 10 Hz seed 1, 14 .. 20 s); and
the hop rule above merges a queue's stops across a 4 m creep (queue 10 Hz seeds 3, 4: yaw rate
error 0.11, 0.07 rad/s). Tried and left: the detector with the first fit's noise in the second
pass (the second's includes the held stands' wander: 0.31 -> 0.37 .. 0.51 m): the queue's
stops found, but the town's stops shorter and their force up to 0.36 -> 1.26 m/s^2; the
merge only when the two stand together: a 30 s stop split by the wander had 4 .. 7.5 m/s^2 at
the hop; keeping the part of a slow interval that stands (points taken off its ends until the
rest stands, at least 3 s and 20 points): seed 1's stop found (0.91 -> 0.04 m/s^2), but at
1 Hz the whole queue is slower than the threshold and a part that stands by the drift and the
spread took a 4 m creep between two stops with it (1 Hz queue seed 1: 0.53 -> 1.59 m/s^2).
The drift and spread of points tell a creep from the wander only over its whole length; a
test of the step a creep makes between two stands (or a detector whose kernel is long enough
in seconds that the wander's speed falls below a creep's) is what is left to try.

Abscissae closer than :data:`MERGE_FRACTION` of the median spacing are merged into one weighted
point (their mean), so a fit never meets the ill-conditioned system of nearly equal knots.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from navsense.truth.spline_fit import (
    LOG_LAMBDA_RANGE,
    MERGE_FRACTION,
    SplineSmoother,
    discrepancy_lambda,
    gcv_lambda,
    merge_close,
)
from navsense.truth.standstills import (
    below_speed,
    edge_times,
    find_standstills,
    settle_edges,
    speed_crossings,
    with_edge_knots,
)

if TYPE_CHECKING:
    from scipy.interpolate import PPoly

__all__ = [
    "PathFit",
    "fit_path",
    "fit_profile",
    "find_standstills",
    "speed_crossings",
    "below_speed",
    "SplineSmoother",
    "merge_close",
    "gcv_lambda",
    "discrepancy_lambda",
    "LOG_LAMBDA_RANGE",
    "MERGE_FRACTION",
]

GCV_GAMMA = 1.4  # weight of tr H in the GCV score (3): plain GCV (1) now and then follows the
# noise (1 noisy drive in 20 gave 0.5 m/s^2 RMS of force error, 1 in 30 a height profile with
# pitch errors of 0.1 rad); 1.4 (Kim & Gu 2004, mgcv's gamma) never did in our recordings
MIN_SMOOTHING_POINTS = 5  # fewer points are interpolated (nothing to estimate a noise from)
PROFILE_MERGE_M = 1.0  # points of the height profile closer than this in distance are one, m
PROFILE_KERNEL_M = 50.0  # the height profile's smoothing kernel is at least this long, m
OUTLIER_SIGMAS = 8.0  # a residual beyond this many robust sigmas is an outlier (multipath)
OUTLIER_NEIGHBOURS = 3  # ... when the largest within this many points either side
OUTLIER_ROUNDS = 10  # at most this many refits setting outliers aside
LAND_VEHICLE_MAX_ACCEL_MPS2 = 15.0  # a land vehicle's largest horizontal acceleration, m/s^2:
# about 1.5 g, above what tyres on dry asphalt give a road car (a friction coefficient of 0.8 to
# 1.0, Gillespie, Fundamentals of Vehicle Dynamics, ch. 3) and a racing car's braking without
# downforce; a path a vehicle cannot drive needs more (issue 32: a right-angle corner at 10 m/s
# through 1 Hz points needs 14 m/s^2)
OUTLIER_ACCEL_SIGMAS = 4.0  # ... plus this many sigmas of the noise's part of that acceleration
ONSET_ACCEL_SLACK = 1.0  # an edge moved between points may raise the path's largest
# acceleration beside it by this much at most (half the goal's largest along-track error), m/s^2
ONSET_CHECK_S = 3.0  # ... within this of the edge, s


# ------------------------------------------------------------------------- a track's path


@dataclass(frozen=True)
class PathFit:
    """A fitted horizontal path: ``path`` (x(t), y(t), cubic PPoly on the point times),
    ``standstills`` ((start, end) s: the path is constant there), ``lam`` the lambda of (1) in
    s^3 (None: the interpolating spline), ``method`` "interpolation" | "gcv" | "sigma",
    ``residual_rms_m`` the RMS residual per axis, ``noise_m`` the noise per axis the fit
    implies (sqrt(RSS / (2 (n - tr H))); 0 for the interpolating spline), ``outliers`` the
    indices of the points set aside (:func:`reject_outliers`)."""

    path: PPoly
    standstills: tuple[tuple[float, float], ...]
    lam: float | None
    method: str
    residual_rms_m: float
    noise_m: float
    outliers: tuple[int, ...] = ()


def fit_path(
    t: np.ndarray,
    xy: np.ndarray,
    smoothing_m: float | None,
    stop_speed_mps: float,
) -> PathFit:
    """The horizontal path of a track (times ``t`` (n,), points ``xy`` (n, 2)).

    ``smoothing_m`` 0: the interpolating cubic spline (not-a-knot), no standstills; a sigma > 0:
    the smoothing spline whose RMS residual per axis is sigma; None: lambda by GCV (3), or the
    interpolating spline when GCV finds no noise (its lambda at the lower end of
    :data:`LOG_LAMBDA_RANGE`: the natural ends of a smoothing spline, F'' = 0, would then turn
    into jerks at the track's ends) or below :data:`MIN_SMOOTHING_POINTS` points. Smoothed paths then get
    their standstills (:func:`find_standstills`) and are fitted again, constant on each.
    """
    from scipy.interpolate import CubicSpline

    n = len(t)
    if smoothing_m == 0.0 or (smoothing_m is None and n < MIN_SMOOTHING_POINTS):
        path = CubicSpline(t, xy, axis=0, bc_type="not-a-knot", extrapolate=False)
        return PathFit(path, (), None, "interpolation", 0.0, 0.0)
    x, y, w, group = merge_close(t, xy)
    x[0], x[-1] = t[0], t[-1]  # the path spans the track

    def choose(
        smoother: SplineSmoother, yy: np.ndarray, near: float | None = None
    ) -> tuple[float, bool]:
        if smoothing_m is None:
            return gcv_lambda(smoother, yy, GCV_GAMMA, near=near)
        return discrepancy_lambda(smoother, yy, smoothing_m), False

    keep, last = reject_outliers(x, y, w, choose, max_accel=LAND_VEHICLE_MAX_ACCEL_MPS2)
    outliers = tuple(int(i) for i in np.flatnonzero(~keep[group]))
    x, y, w = x[keep], y[keep], w[keep]
    x[0], x[-1] = t[0], t[-1]  # still, when an end point was an outlier
    smoother = SplineSmoother(x, w)
    lam_u, noise_free = last if last is not None else choose(smoother, y)
    if noise_free:  # no noise to remove: through every point but the outliers
        kept = keep[group]
        kept[0] = kept[-1] = True
        path = CubicSpline(t[kept], xy[kept], axis=0, bc_type="not-a-knot", extrapolate=False)
        return PathFit(path, (), None, "interpolation", 0.0, 0.0, outliers)
    noise = _noise(smoother, y, lam_u)
    flat = find_standstills(smoother, y, lam_u, noise, stop_speed_mps)
    fit = smoother
    if flat:
        # lambda again, the standstills held: a long stop no longer makes the drive look smooth
        fit = SplineSmoother(x, w, flat)
        lam_u = choose(fit, y, lam_u)[0]
        noise = _noise(fit, y, lam_u)
        flat = find_standstills(smoother, y, lam_u, noise, stop_speed_mps)
        fit = SplineSmoother(x, w, flat)
    if flat:
        free_path = smoother.ppoly(smoother.coefficients(y, lam_u))  # without the standstills
        scale = fit.scale

        def build(times):
            xa, ya, wa, fa = with_edge_knots(x, y, w, flat, times)
            free = free_path(xa)
            along = np.concatenate([[0.0], np.cumsum(np.hypot(*np.diff(free, axis=0).T))])
            y_fit = settle_edges(xa, ya, wa, fa, noise, along)
            sm = SplineSmoother(xa, wa, fa)
            lu = lam_u * (scale / sm.scale) ** 3
            return xa, ya, wa, fa, sm, lu, y_fit, sm.coefficients(y_fit, lu)

        at_points = [(float(x[p]), float(x[q])) for p, q in flat]
        timed = edge_times(x, y, w, flat, noise)
        best = build(timed)
        if timed != at_points:  # an edge between points that makes the path harsher: back
            plain = build(at_points)
            kept = _gentle_edges(best[4].ppoly(best[7]), plain[4].ppoly(plain[7]), timed, at_points)
            if kept != timed:
                best = plain if kept == at_points else build(kept)
        x, y, w, flat, fit, lam_u, y_fit, coef = best
    else:
        y_fit = y
        coef = fit.coefficients(y_fit, lam_u)
    r = fit.residuals(y, coef)
    rms = math.sqrt(float(np.sum(w[:, None] * r * r)) / (y.shape[1] * float(np.sum(w))))
    return PathFit(
        path=fit.ppoly(coef),
        standstills=tuple((float(x[p]), float(x[q])) for p, q in flat),
        lam=fit.lam(lam_u),
        method="gcv" if smoothing_m is None else "sigma",
        residual_rms_m=rms,
        noise_m=noise,
        outliers=outliers,
    )


def _gentle_edges(
    timed_path: PPoly,
    plain_path: PPoly,
    timed: Sequence[tuple[float, float]],
    at_points: Sequence[tuple[float, float]],
) -> list[tuple[float, float]]:
    """``timed`` with each edge put back at its point where the path with the timed edges
    (``timed_path``) accelerates harder than the path with the edges at the points
    (``plain_path``) by more than :data:`ONSET_ACCEL_SLACK` within :data:`ONSET_CHECK_S` on the
    moving side of the edge (the largest |F''| at 64 times)."""
    t0, t1 = float(plain_path.x[0]), float(plain_path.x[-1])
    out = [list(pair) for pair in timed]
    for k, (pair_t, pair_p) in enumerate(zip(timed, at_points)):
        for j, sign in ((0, -1.0), (1, 1.0)):
            if pair_t[j] == pair_p[j]:
                continue
            lo, hi = sorted((pair_t[j], pair_p[j]))
            lo, hi = (lo, hi + ONSET_CHECK_S) if sign > 0 else (lo - ONSET_CHECK_S, hi)
            grid = np.linspace(max(lo, t0), min(hi, t1), 64)
            harsh = float(np.max(np.hypot(*timed_path(grid, 2).T)))
            plain = float(np.max(np.hypot(*plain_path(grid, 2).T)))
            if harsh > plain + ONSET_ACCEL_SLACK:
                out[k][j] = pair_p[j]
    return [(a, b) for a, b in out]


def reject_outliers(
    x: np.ndarray, y: np.ndarray, w: np.ndarray, choose, *, max_accel: float | None = None
) -> tuple[np.ndarray, tuple[float, bool] | None]:
    """The points kept (bool (n,)), and ``choose``'s answer on them when the last fit was on
    them (else None): outliers set aside (``choose(smoother, y, near)`` gives the lambda of a
    fit and whether the data are noise-free).

    A point is an outlier when its residual from the fit is more than :data:`OUTLIER_SIGMAS`
    times the residuals' robust scale (1.4826 times their median absolute value per axis, of
    the points kept) and the largest such within :data:`OUTLIER_NEIGHBOURS` points either side
    (a jump pulls the fit, and with it its neighbours' residuals); the fit is repeated without
    it, at most :data:`OUTLIER_ROUNDS` times. Gaussian noise reaches 8 sigmas in the plane with
    probability exp(-32) (1e-14); the smoothing's bias at a 1 Hz stop or turn reaches about 5.
    A multipath jump of 20 m in 0.5 m noise leaves a residual of 20 .. 40 sigmas, in 3 m noise
    of about 6 (kept: it moves the path by about a metre for a second). Data the fit finds
    noise-free (``choose``'s flag) have no outliers to tell from.

    ``max_accel`` (the plane's fit: :data:`LAND_VEHICLE_MAX_ACCEL_MPS2`): such a point is set
    aside only when no motion a land vehicle can make explains it, :func:`implausible`. A
    smoothing spline cuts the apex of a sharp corner and rounds a brisk departure from a stop:
    their residuals reach 8 sigmas of small noise (a right-angle corner at 4 .. 10 m/s in 0.2 m
    noise at 1 Hz), yet a vehicle drove them (issue 32: a town drive's departure and two corner
    apexes were set aside, and its truth passed 6 .. 7 m from them)."""
    keep = np.ones(len(x), dtype=bool)
    near = None
    last = None
    for _ in range(OUTLIER_ROUNDS):
        idx = np.flatnonzero(keep)
        xs = x[idx].copy()
        xs[0], xs[-1] = x[0], x[-1]
        smoother = SplineSmoother(xs, w[idx])
        lam_u, noise_free = choose(smoother, y[idx], near)
        last = (lam_u, noise_free)
        if noise_free:
            break
        near = lam_u
        r = smoother.residuals(y[idx], smoother.coefficients(y[idx], lam_u))
        scale = 1.4826 * float(np.median(np.abs(r)))
        if not scale > 0.0:
            break
        z = np.sqrt(np.sum(r * r, axis=1)) / scale
        k = OUTLIER_NEIGHBOURS
        padded = np.concatenate([np.zeros(k), z, np.zeros(k)])
        window = np.lib.stride_tricks.sliding_window_view(padded, 2 * k + 1).max(axis=1)
        worst = np.flatnonzero((z > OUTLIER_SIGMAS) & (z >= window))
        if max_accel is not None and worst.size:
            sigma = scale / np.sqrt(w[idx])  # a merged point's noise, per axis
            worst = worst[implausible(xs, y[idx], sigma, worst, max_accel)]
        if worst.size == 0 or len(idx) - worst.size < MIN_SMOOTHING_POINTS:
            break
        keep[idx[worst]] = False
        last = None
    return keep, last


def implausible(
    t: np.ndarray, p: np.ndarray, sigma: np.ndarray, which: np.ndarray, max_accel: float
) -> np.ndarray:
    """For the points ``which`` of the path ``p`` (n, 2) at times ``t``: True where the
    acceleration the point and its neighbours need exceeds ``max_accel`` by more than
    :data:`OUTLIER_ACCEL_SIGMAS` of the part the noise (``sigma`` (n,) per axis) puts in it.

    The acceleration of three points at t_a < t_b < t_c (the point and its neighbours; an end
    point and the two next to it) is their divided second difference::

        a = 2 [(p_c - p_b) / h_2 - (p_b - p_a) / h_1] / (h_1 + h_2),  h_1 = t_b - t_a, h_2 = t_c - t_b

    the acceleration of the parabola through them; a smooth motion through the three points
    reaches at least |a| somewhere between them (the mean value theorem for divided
    differences, per axis). Its noise, per axis, has the standard deviation
    sqrt(sum c_k^2 sigma_k^2) with c = (2 / (h_1 (h_1 + h_2)), -2 / (h_1 h_2), 2 / (h_2 (h_1 + h_2))).
    A point is implausible when |a| > max_accel + OUTLIER_ACCEL_SIGMAS * that deviation."""
    n = len(t)
    if n < 3:
        return np.zeros(len(which), dtype=bool)
    b = np.clip(which, 1, n - 2)
    a_, c_ = b - 1, b + 1
    h1, h2 = t[b] - t[a_], t[c_] - t[b]
    span = h1 + h2
    ca, cb, cc = 2.0 / (h1 * span), -2.0 / (h1 * h2), 2.0 / (h2 * span)
    acc = ca[:, None] * p[a_] + cb[:, None] * p[b] + cc[:, None] * p[c_]
    noise = np.sqrt((ca * sigma[a_]) ** 2 + (cb * sigma[b]) ** 2 + (cc * sigma[c_]) ** 2)
    return np.hypot(acc[:, 0], acc[:, 1]) > max_accel + OUTLIER_ACCEL_SIGMAS * noise


def _noise(smoother: SplineSmoother, y: np.ndarray, lam_u: float) -> float:
    """The noise per column the fit implies: sqrt(RSS / (k (n - tr H)))."""
    r = smoother.residuals(y, smoother.coefficients(y, lam_u))
    dof = max(smoother.n - smoother.edf(lam_u), 1e-9)
    return math.sqrt(float(np.sum(smoother.w[:, None] * r * r)) / (y.shape[1] * dof))


def fit_profile(s: np.ndarray, z: np.ndarray, interpolate: bool) -> tuple[PPoly, float | None]:
    """The height profile Z(s) over the distance travelled and its lambda (m^3; None: not
    smoothed). Points closer than :data:`MERGE_FRACTION` of the median spacing, or than
    :data:`PROFILE_MERGE_M`, are one point (their mean height: a standstill's points are one);
    ``interpolate``: the cubic spline through the merged points (not-a-knot), else the GCV
    smoothing spline. With fewer than 4 merged points: the weighted least-squares line (one
    point: level)."""
    from scipy.interpolate import CubicSpline, PPoly

    ds = np.diff(s)
    ds = ds[ds > 0]
    tol = max(MERGE_FRACTION * float(np.median(ds)), PROFILE_MERGE_M) if ds.size else 1.0
    sm, zm, wm, _ = merge_close(s, z, tol=tol)
    zm = zm[:, 0]
    if len(sm) < 4:
        if len(sm) == 1:
            slope, level = 0.0, float(zm[0])
        else:
            slope, level = np.polyfit(sm - sm[0], zm, 1, w=np.sqrt(wm))
        c = np.array([[0.0], [0.0], [slope], [level]])
        return PPoly(c, np.array([sm[0], sm[0] + 1.0]), extrapolate=True), None
    if interpolate:
        return CubicSpline(sm, zm, bc_type="not-a-knot", extrapolate=True), None
    floor = (PROFILE_KERNEL_M / float(np.median(np.diff(sm)))) ** 4

    def choose(
        smoother: SplineSmoother, yy: np.ndarray, near: float | None = None
    ) -> tuple[float, bool]:
        return gcv_lambda(smoother, yy, GCV_GAMMA, near=near, floor=floor)[0], False

    keep, last = reject_outliers(sm, zm[:, None], wm, choose)
    ends = sm[0], sm[-1]
    sm, zm, wm = sm[keep], zm[keep], wm[keep]
    sm[0], sm[-1] = ends
    smoother = SplineSmoother(sm, wm)
    lam_u = (last if last is not None else choose(smoother, zm[:, None]))[0]
    pp = smoother.ppoly(smoother.coefficients(zm[:, None], lam_u))
    return PPoly(pp.c[:, :, 0], pp.x, extrapolate=True), smoother.lam(lam_u)
