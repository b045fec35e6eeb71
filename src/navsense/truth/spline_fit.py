"""The penalised smoothing spline of a track's fit and its smoothing parameter
(navsense.truth.track_fit's docstring, (1) to (3)): :class:`SplineSmoother` (the C2 cubic
smoothing spline on its B-spline band), :func:`gcv_lambda` (weighted GCV),
:func:`discrepancy_lambda` (the discrepancy principle), :func:`merge_close` (abscissae closer
than a fraction of the spacing are one point).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from navsense.errors import TruthError

if TYPE_CHECKING:
    from scipy.interpolate import PPoly

__all__ = [
    "LOG_LAMBDA_RANGE",
    "MERGE_FRACTION",
    "merge_close",
    "SplineSmoother",
    "gcv_lambda",
    "discrepancy_lambda",
]


LOG_LAMBDA_RANGE = (-3.0, 10.0)  # log10 lambda in units of the median spacing: an equivalent
# kernel of about lambda^(1/4) spacings, 0.2 (nearly through every point) .. 300

MERGE_FRACTION = 0.02  # abscissae closer than this fraction of the median spacing are one point

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
