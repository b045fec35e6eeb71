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

from navsense.errors import TruthError

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

LOG_LAMBDA_RANGE = (-3.0, 10.0)  # log10 lambda in units of the median spacing: an equivalent
# kernel of about lambda^(1/4) spacings, 0.2 (nearly through every point) .. 300
GCV_GAMMA = 1.4  # weight of tr H in the GCV score (3): plain GCV (1) now and then follows the
# noise (1 noisy drive in 20 gave 0.5 m/s^2 RMS of force error, 1 in 30 a height profile with
# pitch errors of 0.1 rad); 1.4 (Kim & Gu 2004, mgcv's gamma) never did in our recordings
MERGE_FRACTION = 0.02  # abscissae closer than this fraction of the median spacing are one point
MIN_SMOOTHING_POINTS = 5  # fewer points are interpolated (nothing to estimate a noise from)
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
PROFILE_MERGE_M = 1.0  # points of the height profile closer than this in distance are one, m
PROFILE_KERNEL_M = 50.0  # the height profile's smoothing kernel is at least this long, m
OUTLIER_SIGMAS = 8.0  # a residual beyond this many robust sigmas is an outlier (multipath)
OUTLIER_NEIGHBOURS = 3  # ... when the largest within this many points either side
OUTLIER_ROUNDS = 10  # at most this many refits setting outliers aside
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
ONSET_ACCEL_SLACK = 1.0  # an edge moved between points may raise the path's largest
# acceleration beside it by this much at most (half the goal's largest along-track error), m/s^2
ONSET_CHECK_S = 3.0  # ... within this of the edge, s
_SMOOTHSTEP_CURVATURE = 10.0 / math.sqrt(3.0)  # max |w''| of w = 10x^3 - 15x^4 + 6x^5
_SMOOTHSTEP_SLOPE = 1.875  # max |w'|
_GCV_TOL = 0.02  # decades of lambda (5 %: GCV is flat at its minimum)


def merge_close(
    x: np.ndarray, y: np.ndarray, w: np.ndarray | None = None, tol: float | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Consecutive points whose abscissae lie within ``tol`` of a group's first become one point.

    ``x`` (n,) non-decreasing, ``y`` (n, k), ``w`` (n,) weights (default 1); ``tol`` default
    :data:`MERGE_FRACTION` times the median positive spacing. Returns the weighted means x, y,
    the summed weights and the group of each input point.
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64).reshape(len(x), -1)
    w = np.ones(len(x)) if w is None else np.asarray(w, dtype=np.float64)
    if tol is None:
        dx = np.diff(x)
        dx = dx[dx > 0]
        tol = MERGE_FRACTION * float(np.median(dx)) if dx.size else 0.0
    if len(x) < 2 or not np.any(np.diff(x) < tol):
        return x, y, w, np.arange(len(x))
    group = np.zeros(len(x), dtype=np.int64)
    start = float(x[0])
    g = 0
    for i in range(1, len(x)):  # a chain of close points splits every tol
        if x[i] - start >= tol:
            g += 1
            start = float(x[i])
        group[i] = g
    wsum = np.bincount(group, weights=w)
    xm = np.bincount(group, weights=w * x) / wsum
    ym = np.column_stack(
        [np.bincount(group, weights=w * y[:, j]) / wsum for j in range(y.shape[1])]
    )
    return xm, ym, wsum, group


class SplineSmoother:
    """The system (2) of the module docstring for abscissae ``x``, weights and standstills.

    ``x`` (n,) strictly increasing, n >= 2; ``w`` (n,) positive weights (default 1); ``flat``
    index pairs (p, q), p < q, disjoint and in order: F is constant on [x_p, x_q].
    """

    def __init__(
        self,
        x: np.ndarray,
        w: np.ndarray | None = None,
        flat: Sequence[tuple[int, int]] = (),
    ) -> None:
        from scipy import sparse
        from scipy.interpolate import BSpline

        x = np.asarray(x, dtype=np.float64)
        n = len(x)
        self.x = x
        self.n = n
        self.scale = float(np.median(np.diff(x)))
        u = (x - x[0]) / self.scale
        self.u = u
        knots = np.concatenate([np.full(3, u[0]), u, np.full(3, u[-1])])
        self.knots = knots
        m = n + 2
        w = np.ones(n) if w is None else np.asarray(w, dtype=np.float64)
        self.w = w

        # columns merged by the standstills: new index of each B-spline coefficient
        same = np.zeros(m, dtype=bool)  # column j is the same unknown as column j - 1
        for p, q in flat:
            same[p + 1 : q + 3] = True
        newcol = np.cumsum(~same) - 1
        self.flat = tuple((int(p), int(q)) for p, q in flat)
        self.m = int(newcol[-1]) + 1
        merge = sparse.csr_matrix((np.ones(m), (np.arange(m), newcol)), shape=(m, self.m))
        self.merge = merge

        design = BSpline.design_matrix(u, knots, 3).tocsr()
        self.design = (design @ merge).tocsr()
        wd = sparse.diags(w) @ self.design
        self._k_band = _band(self.design.T @ wd)

        # Omega = D2^T G D2: F'' in the hat functions on the knots knots[2:-2]
        d1 = _derivative_operator(knots, 3)
        d2 = _derivative_operator(knots[1:-1], 2) @ d1
        hat = knots[2:-2]
        span2 = hat[2:] - hat[:-2]  # support of N_l
        span1 = np.diff(hat)
        gram = sparse.diags(
            [span1[1:-1] / 6.0, span2 / 3.0, span1[1:-1] / 6.0], [-1, 0, 1], format="csr"
        )
        d2m = (d2 @ merge).tocsr()
        self._omega_band = _band(d2m.T @ gram @ d2m)

    def _factor(self, lam_u: float) -> np.ndarray:
        from scipy.linalg import LinAlgError, cholesky_banded

        try:
            return cholesky_banded(self._k_band + lam_u * self._omega_band, lower=False)
        except (LinAlgError, ValueError):
            raise TruthError(
                f"the smoothing spline's system is singular at lambda = {lam_u:g} "
                f"(points {self.n}, spacing {self.scale:g})"
            ) from None

    def coefficients(self, y: np.ndarray, lam_u: float) -> np.ndarray:
        """Merged B-spline coefficients (m, k) of the fit of ``y`` (n, k) at scaled lambda."""
        from scipy.linalg import cho_solve_banded

        factor = self._factor(lam_u)
        rhs = self.design.T @ (self.w[:, None] * y)
        return cho_solve_banded((factor, False), rhs)

    def residuals(self, y: np.ndarray, coef: np.ndarray) -> np.ndarray:
        """y - F(x_i), (n, k)."""
        return y - self.design @ coef

    def edf(self, lam_u: float) -> float:
        """Equivalent degrees of freedom tr H of the fit at scaled lambda ``lam_u``."""
        return _trace_inverse_product(self._factor(lam_u), self._k_band)

    def derivative_noise(self, lam_u: float, probes: int = 9) -> float:
        """Standard deviation of F'(x) (per unit of x) for unit noise on the data, 1 / w_i
        variance: ``sqrt(b'^T A^-1 B^T W B A^-1 b')`` with b' the basis' derivative at x, the
        largest at ``probes`` interval midpoints spread over the interior."""
        from scipy.interpolate import BSpline
        from scipy.linalg import cho_solve_banded

        if self.n < 3:
            return 0.0
        factor = self._factor(lam_u)
        idx = np.unique(np.linspace(1, self.n - 3, probes).round().astype(np.int64))
        mid = 0.5 * (self.u[idx] + self.u[idx + 1])
        eps = 1e-4 * np.diff(self.u)[idx]
        plus = BSpline.design_matrix(mid + eps, self.knots, 3) @ self.merge
        minus = BSpline.design_matrix(mid - eps, self.knots, 3) @ self.merge
        slope = ((plus - minus).toarray() / (2.0 * eps[:, None])).T  # (m, probes), d/du
        gain = self.design @ cho_solve_banded((factor, False), slope)  # dF'/dy_i, (n, probes)
        var = np.sum(self.w[:, None] * gain * gain, axis=0)
        return float(np.sqrt(np.max(var))) / self.scale

    def gcv_terms(self, y: np.ndarray, lam_u: float) -> tuple[float, float]:
        """The mean weighted squared residual per column and tr H at scaled lambda ``lam_u``."""
        from scipy.linalg import cho_solve_banded

        factor = self._factor(lam_u)
        coef = cho_solve_banded((factor, False), self.design.T @ (self.w[:, None] * y))
        r = self.residuals(y, coef)
        rss = float(np.sum(self.w[:, None] * r * r)) / (self.n * y.shape[1])
        return rss, _trace_inverse_product(factor, self._k_band)

    def gcv(self, y: np.ndarray, lam_u: float, gamma: float = 1.0) -> float:
        """The score (3) of the module docstring at scaled lambda ``lam_u``."""
        return _gcv_score(*self.gcv_terms(y, lam_u), self.n, gamma)

    def ppoly(self, coef: np.ndarray) -> PPoly:
        """F as a PPoly in the caller's abscissa (breakpoints x, columns of ``coef``)."""
        from scipy.interpolate import BSpline, PPoly

        spl = BSpline(self.knots, self.merge @ coef, 3, extrapolate=False)
        left = self.u[:-1]  # the cubic of each interval from its left end (exact)
        c = np.stack([spl(left, 3) / 6.0, spl(left, 2) / 2.0, spl(left, 1), spl(left)], axis=0)
        powers = self.scale ** -np.arange(3, -1, -1, dtype=np.float64)  # (u - u_i) = (x - x_i) / s
        c = c * powers.reshape((4,) + (1,) * (c.ndim - 1))
        return PPoly(c, self.x, extrapolate=False)

    def lam(self, lam_u: float) -> float:
        """Lambda of (1) in the caller's units from the scaled one (int F''^2 dx scales as
        spacing^-3)."""
        return lam_u * self.scale**3


def gcv_lambda(
    smoother: SplineSmoother,
    y: np.ndarray,
    gamma: float = 1.0,
    near: float | None = None,
    floor: float | None = None,
) -> tuple[float, bool]:
    """Scaled lambda minimising the GCV score (3) with ``gamma`` over :data:`LOG_LAMBDA_RANGE`
    (whole decades, then Brent's method between the neighbours of the best to :data:`_GCV_TOL`
    decades: about 22 fits; within 2 decades of ``near`` when given), and whether the data show no noise: the
    plain score (gamma 1) is smallest at the lower end of the range, where the spline nearly
    interpolates."""
    lo, hi = LOG_LAMBDA_RANGE
    if near is not None:
        lo, hi = max(lo, round(math.log10(near)) - 2.0), min(hi, round(math.log10(near)) + 2.0)
    grid = np.arange(lo, hi + 0.5)
    terms = [smoother.gcv_terms(y, 10.0**g) for g in grid]
    plain = [_gcv_score(rss, edf, smoother.n, 1.0) for rss, edf in terms]
    noise_free = int(np.argmin(plain)) == 0 and grid[0] == LOG_LAMBDA_RANGE[0]
    scores = [_gcv_score(rss, edf, smoother.n, gamma) for rss, edf in terms]
    best = int(np.argmin(scores))
    if floor is not None and grid[best] < math.log10(floor) + 1.0:
        log_floor = min(max(math.log10(floor), LOG_LAMBDA_RANGE[0]), LOG_LAMBDA_RANGE[1])
        if grid[best] <= log_floor:
            return 10.0**log_floor, noise_free  # the floor: below it GCV follows the noise
        grid, scores = (
            np.array([log_floor, *grid[grid > log_floor]]),
            [
                smoother.gcv(y, 10.0**log_floor, gamma),
                *[sc for g, sc in zip(grid, scores) if g > log_floor],
            ],
        )
        best = int(np.argmin(scores))
    if len(grid) < 2:
        return 10.0 ** grid[best], noise_free
    from scipy.optimize import minimize_scalar

    a, b = grid[max(best - 1, 0)], grid[min(best + 1, len(grid) - 1)]
    res = minimize_scalar(  # Brent's parabolic steps: about 8 fits
        lambda g: smoother.gcv(y, 10.0**g, gamma),
        bounds=(a, b),
        method="bounded",
        options={"xatol": _GCV_TOL, "maxiter": 50},
    )
    log_lam = float(res.x) if res.fun < scores[best] else float(grid[best])
    return 10.0**log_lam, noise_free


def _gcv_score(rss: float, edf: float, n: int, gamma: float) -> float:
    """V = rss / (1 - gamma tr H / n)^2, infinite where gamma tr H >= n."""
    slack = 1.0 - gamma * edf / n
    return rss / (slack * slack) if slack > 1e-12 else math.inf


def discrepancy_lambda(smoother: SplineSmoother, y: np.ndarray, sigma: float) -> float:
    """Scaled lambda whose RMS residual per column equals ``sigma`` (Morozov); the ends of
    :data:`LOG_LAMBDA_RANGE` when no lambda within it reaches sigma."""
    from scipy.optimize import brentq

    wsum = float(np.sum(smoother.w)) * y.shape[1]

    def excess(log_lam: float) -> float:
        r = smoother.residuals(y, smoother.coefficients(y, 10.0**log_lam))
        return math.sqrt(float(np.sum(smoother.w[:, None] * r * r)) / wsum) - sigma

    lo, hi = LOG_LAMBDA_RANGE[0], LOG_LAMBDA_RANGE[1] + 2.0
    e_lo, e_hi = excess(lo), excess(hi)
    if e_lo >= 0.0:
        return 10.0**lo
    if e_hi <= 0.0:
        return 10.0**hi
    return 10.0 ** brentq(excess, lo, hi, xtol=1e-4, maxiter=100)


def _band(matrix) -> np.ndarray:
    """Upper LAPACK band storage (4, m) of a symmetric sparse matrix of bandwidth 3."""
    m = matrix.shape[0]
    ab = np.zeros((4, m))
    for d in range(4):
        ab[3 - d, d:] = matrix.diagonal(d)
    return ab


def _derivative_operator(knots: np.ndarray, k: int):
    """Sparse D with d = D c: the B-spline coefficients of the derivative of a degree-k spline
    on ``knots`` (de Boor: d_j = k (c_{j+1} - c_j) / (t_{j+k+1} - t_{j+1}))."""
    from scipy import sparse

    m = len(knots) - k - 1
    span = knots[k + 1 : k + m] - knots[1:m]
    f = k / span
    return sparse.diags([-f, f], [0, 1], shape=(m - 1, m), format="csr")


def _trace_inverse_product(factor: np.ndarray, band: np.ndarray) -> float:
    """tr(A^-1 K) for A = R^T R (``factor``: R in upper band storage, bandwidth 3) and the
    symmetric band ``band`` of K: the band of Z = A^-1 by the recursion of Hutchinson & de Hoog
    (1985), R Z = R^-T (lower triangular, diagonal 1 / r_ii)::

        Z_ij = (delta_ij / r_ii - sum_{k=i+1}^{i+3} r_ik Z_kj) / r_ii,   j = i+3 .. i, i = m-1 .. 0
    """
    m = factor.shape[1]
    pad = np.zeros(3)
    # the bands as lists, row i = m - 1 down to 0 (zero beyond the matrix)
    rows = [
        np.concatenate([band_row, pad])[shift : shift + m][::-1].tolist()
        for band_row, shift in (
            (factor[3], 0),  # r_ii
            (factor[2], 1),  # r_{i,i+1}
            (factor[1], 2),  # r_{i,i+2}
            (factor[0], 3),  # r_{i,i+3}
            (band[3], 0),  # K_ii
            (band[2], 1),  # K_{i,i+1}
            (band[1], 2),  # K_{i,i+2}
            (band[0], 3),  # K_{i,i+3}
        )
    ]
    # rolling band of Z: a* row i+1, b* row i+2, c* row i+3 (0: Z_kk, 1: Z_k,k+1, 2: Z_k,k+2)
    a0 = a1 = a2 = b0 = b1 = c0 = 0.0
    trace = 0.0
    for d, e1, e2, e3, k0, k1, k2, k3 in zip(*rows):
        z3 = -(e1 * a2 + e2 * b1 + e3 * c0) / d
        z2 = -(e1 * a1 + e2 * b0 + e3 * b1) / d
        z1 = -(e1 * a0 + e2 * a1 + e3 * a2) / d
        z0 = (1.0 / d - (e1 * z1 + e2 * z2 + e3 * z3)) / d
        trace += z0 * k0 + 2.0 * (z1 * k1 + z2 * k2 + z3 * k3)
        c0 = b0
        b0, b1 = a0, a1
        a0, a1, a2 = z0, z1, z2
    return trace


# ------------------------------------------------------------------------- a track's path


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

    keep, last = reject_outliers(x, y, w, choose)
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
    x: np.ndarray, y: np.ndarray, w: np.ndarray, choose
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
    noise-free (``choose``'s flag) have no outliers to tell from."""
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
        if worst.size == 0 or len(idx) - worst.size < MIN_SMOOTHING_POINTS:
            break
        keep[idx[worst]] = False
        last = None
    return keep, last


def _noise(smoother: SplineSmoother, y: np.ndarray, lam_u: float) -> float:
    """The noise per column the fit implies: sqrt(RSS / (k (n - tr H)))."""
    r = smoother.residuals(y, smoother.coefficients(y, lam_u))
    dof = max(smoother.n - smoother.edf(lam_u), 1e-9)
    return math.sqrt(float(np.sum(smoother.w[:, None] * r * r)) / (y.shape[1] * dof))


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
