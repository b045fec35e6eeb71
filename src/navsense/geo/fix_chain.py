"""The INS fix's ACRE chain to a NAD83 frame and UTM, in as few kernels as its transcendental
functions allow (issue 31 item 2; navsense.kernels).

Georeference.ins_fix_utm's points (rows e, n, u of the INS point, the truth point and the INS
point 10 m grid-north, spec "INS", "Fix and UTM Odometry") through steps 1-4 of the "Datum
Chain" (navsense.geo.acre_steps, the EPSG:2968 inverse of navsense.geo.stateplane) and the UTM
forward (navsense.geo.utm, E and N only), with the grid rotation's differences. Between two
transcendental functions, which stay numpy's (their last bit differs in numba), all the
algebra is one kernel::

    grid_mu          step 1 (x = c_f (E0 + e / c_f), y likewise) and the footpoint's
                     mu = (y - y0) / (k0 a M0) + mu0; the domain tests
    np.tan(mu), stateplane._footpoint_series, np.tan(phi_1)
    series_datum     the state plane's inverse series (phi, lambda), steps 3 and 4, the frame's
                     latitude, longitude and height, and UTM's phi and lambda - lambda_c (rad);
                     the longitude's domain test
    np.tan(phi), utm._sigma_argument, np.arctanh, e (.), np.sinh, utm._zeta_sums,
    np.arctan2, np.arcsinh
    easting_rotation UTM's E and N, and E2 - E1, N2 - N1 of the grid rotation

A kernel cannot call a function of another module (numba compiles it alone, and its cache
checks only its own file), so grid_mu, series_datum and easting_rotation write out the
operations of acre_steps.grid_rows, stateplane._inverse_rows and _inverse_series,
acre_steps.datum_rows, utm._forward_arrays and utm._easting_northing term for term in the same
order: the same operations on the same values, the same bits (tests/geo/test_fix_chain.py
compares them with those functions, compiled and as numpy). A point outside a domain takes the
checks of the functions themselves (the same error lines).

:func:`run_chain` runs the sequence on work rows (:class:`FixRows`): nad83_fix_utm's, new each
call, or a one-epoch caller's kept from epoch to epoch (the streaming INS,
navsense.sensors.ins_one), whose kernels are the same operations written out point by point
(``*_points``: scalars, no row temporaries; the test compares every work row bit for bit).
"""

from __future__ import annotations

import numpy as np

from navsense.constants import DEG as _D2R  # np.radians(x) is x * (pi / 180): the same bits
from navsense.constants import DEG_PER_RAD as _R2D  # np.degrees(x) is x * (180 / pi)
from navsense.geo import acre_steps as _steps
from navsense.geo import stateplane as _sp
from navsense.geo import utm as _utm
from navsense.geo._arrays import require_finite
from navsense.geo.acre_steps import ACRE_ORIGIN_FT
from navsense.kernels import kernel

__all__ = [
    "GRID_ROTATION_STEP_M",
    "FixRows",
    "fix_parameters",
    "ins_points",
    "nad83_fix_utm",
    "run_chain",
]

# The second point of the grid rotation is 10 m to the grid north (spec "INS", "Fix and UTM
# Odometry").
GRID_ROTATION_STEP_M = 10.0

_CF = _sp.US_SURVEY_FOOT_M
_E0, _N0, _Z0 = ACRE_ORIGIN_FT
_H0_M = _CF * _Z0  # step 4: c_f Z0, m (acre_steps._H0_M)
_X0, _Y0 = _sp.FALSE_EASTING_M, _sp.FALSE_NORTHING_M
_DX, _DY = _sp.MAX_DX_M, _sp.MAX_DY_M
_MU_SCALE, _MU0 = _sp._MU_SCALE, _sp._MU0
_EP2, _E2M, _INV_E2M, _INV_AK0, _LAM0 = _sp._EP2, _sp._E2M, _sp._INV_E2M, _sp._INV_AK0, _sp._LAM0
_UTM_E0, _K0A, _MAX_DLON = _utm.FALSE_EASTING_M, _utm._K0A, _utm.MAX_DLON_DEG
_UTM_E = _utm._E
_utm_TAU, _utm_SIG, _utm_LAM = _utm._TAU, _utm._SIG, _utm._LAM  # its rows (of _W on)

# series_datum's parameter row (fix_parameters): the datum's (acre_steps.datum_row), then
_NAD83_2011 = 5  # 1.0: the frame nad83_2011 (+ the HARN -> NAD83(2011) shift), 0.0: nad83_harn
_LON_C = 6  # lambda_c = -183 + 6 z, deg (utm._forward_arrays)
# the rows of the work array (nad83_fix_utm): grid_mu's, footpoint's, series_datum's; then
# utm._forward_rad's rows (utm._FW_ROWS) from _W on, the longitude in its lambda row, and the
# grid rotation's E2 - E1, N2 - N1 (the first m columns), then UTM's E and N and alpha
_X, _MU, _OK, _TM, _PHI1, _TAN1, _LAT, _LON, _H, _PHI, _RE, _RN = range(12)
_W = 12
_TAU, _SIG, _LAM = _W + _utm._TAU, _W + _utm._SIG, _W + _utm._LAM
_XIP, _ETAP = _W + _utm._XIP, _W + _utm._ETAP
_E, _N = _W + _utm._FW_ROWS, _W + _utm._FW_ROWS + 1  # UTM's E and N
ALPHA = _N + 1  # the grid rotation alpha (rad, the first m columns)
_ROWS = ALPHA + 1
# the rows a caller of run_chain reads: lat, lon (deg), h (m), E, N (m), alpha (rad)
LAT, LON, HEIGHT, EAST, NORTH = _LAT, _LON, _H, _E, _N


def ins_points(p_ins: np.ndarray, p_truth: np.ndarray) -> np.ndarray:
    """The INS fix's points as the chain takes them: (3, 3 m), C order, rows e, n, u of p_ins,
    p_truth (m, 3) and p_ins + (0, GRID_ROTATION_STEP_M, 0) (spec "INS", "Fix and UTM
    Odometry": the grid rotation's second point, 10 m grid-north)."""
    m = p_ins.shape[0]
    pts = np.empty((3, 3 * m))
    pts[:, :m], pts[:, m : 2 * m], pts[:, 2 * m :] = p_ins.T, p_truth.T, p_ins.T
    pts[1, 2 * m :] += GRID_ROTATION_STEP_M  # P2 of p_ins, 10 m grid-north
    return pts


def fix_parameters(datum_a: np.ndarray, frame: str, zone: int) -> np.ndarray:
    """series_datum's parameters: acre_steps.datum_row's five values, 1.0 for the frame
    nad83_2011 (0.0: nad83_harn), lambda_c = -183 + 6 zone (deg, as utm._forward_arrays)."""
    return np.array([*datum_a, 1.0 if frame == "nad83_2011" else 0.0, -183.0 + 6.0 * zone])


@kernel(2, 1, 2)
def grid_mu(pts, t, w):
    """Step 1 and the footpoint's mu: pts (3, k) rows e, n, u and t (m,) -> w[0] = x,
    w[1] = mu (k,) (acre_steps.grid_rows, stateplane._inverse_rows); w[2, 0] = 1.0 when every
    point and time is finite and inside EPSG:2968's domain (|x - x0| - dx_max <= 0 and
    |y - y0| - dy_max <= 0, acre_steps.in_domain), else 0.0."""
    x = w[_X]
    np.multiply(_CF, _E0 + pts[0] / _CF, x)
    y = _CF * (_N0 + pts[1] / _CF)
    w[_MU] = (y - _Y0) * _MU_SCALE + _MU0  # spec: mu
    ok = np.isfinite(pts).all() and np.isfinite(t).all()
    ok = ok and (np.abs(x - _X0) - _DX <= 0.0).all() and (np.abs(y - _Y0) - _DY <= 0.0).all()
    w[_OK, 0] = 1.0 if ok else 0.0


@kernel(2, 1, 2)
def series_datum(pts, par, w):
    """The state plane's inverse series after tan phi_1 (stateplane._inverse_series), steps 3
    and 4 (acre_steps.datum_rows) and UTM's radians (utm._forward_arrays): pts (3, k), par
    (:func:`fix_parameters`), x, phi_1, tan phi_1 (w[0], w[4], w[5]) -> the frame's latitude,
    longitude (deg), h_2011 (m) (w[6..8]), UTM's phi (w[9]) and lambda - lambda_c (rad, in
    utm._forward_rad's lambda row); w[2, 0] = 1.0 when every |lambda - lambda_c| <= 35 deg
    (else 0.0: utm._forward_arrays' checks and wrap)."""
    tan1, phi1 = w[_TAN1], w[_PHI1]
    t1 = tan1 * tan1  # spec: T_1
    u = 1.0 + t1  # 1 / cos^2 phi_1
    cc = _EP2 / u  # spec: C_1 = e'^2 cos^2 phi_1
    ww = (1.0 + _E2M * t1) / u  # 1 - e^2 sin^2 phi_1
    d = (w[_X] - _X0) * np.sqrt(ww) * _INV_AK0  # spec: D = (x - x0) / (N_1 k0)
    d2 = d * d
    p4 = (5.0 - 9.0 * _EP2) + 3.0 * t1 + cc * (10.0 - 4.0 * cc)
    p6 = (61.0 - 252.0 * _EP2) + t1 * (90.0 + 45.0 * t1) + cc * (298.0 - 3.0 * cc)
    phi = phi1 - (tan1 * ww * _INV_E2M) * (
        d2 * (0.5 - d2 * (p4 * (1.0 / 24.0) - d2 * p6 * (1.0 / 720.0)))
    )
    q3 = 1.0 + 2.0 * t1 + cc
    q5 = (5.0 + 8.0 * _EP2) + t1 * (28.0 + 24.0 * t1) - cc * (2.0 + 3.0 * cc)
    lam = _LAM0 + d * (1.0 - d2 * (q3 * (1.0 / 6.0) - d2 * q5 * (1.0 / 120.0))) * np.sqrt(u)
    lat, lon = w[_LAT], w[_LON]
    np.multiply(phi, _R2D, lat)  # HARN latitude, longitude (deg)
    np.multiply(lam, _R2D, lon)
    if par[_NAD83_2011] != 0.0:  # step 3: + harn_to_nad83_2011_shift_deg
        lat += par[0]
        lon += par[1]
    # step 4: h_2011 = H_navd + N_g, H_navd = c_f Z0 + u, N_g = n0 + a_e e + a_n n
    np.add(_H0_M + pts[2], par[2] + par[3] * pts[0] + par[4] * pts[1], w[_H])
    dlon = lon - par[_LON_C]  # lambda - lambda_c, deg
    np.multiply(lat, _D2R, w[_PHI])
    np.multiply(dlon, _D2R, w[_LAM])
    w[_OK, 0] = 1.0 if (np.abs(dlon) <= _MAX_DLON).all() else 0.0


@kernel(2)
def easting_rotation(w):
    """UTM's E and N (utm._easting_northing) and the grid rotation's differences, from
    utm._forward_rad's rows (sin(2 zeta) in its rows 6, 7, Clenshaw's y_1 in 12, 13, xi' and
    eta' in 19, 20) -> E, N (w[33], w[34]) and E2 - E1, N2 - N1 of the first m points and the
    last m (k = 3 m) in w[10, :m], w[11, :m]::

        N = k0 A (xi' + Re(y_1 sin 2 zeta)),   E = E0 + k0 A (eta' + Im(y_1 sin 2 zeta))"""
    y1r, y1i, sin2r, sin2i = w[_W + 12], w[_W + 13], w[_W + 6], w[_W + 7]
    east, north = w[_E], w[_N]
    np.multiply(_K0A, w[_XIP] + (y1r * sin2r - y1i * sin2i), north)  # spec: N = k0 A xi
    np.add(_UTM_E0, _K0A * (w[_ETAP] + (y1r * sin2i + y1i * sin2r)), east)  # E = E0 + k0 A eta
    m = w.shape[1] // 3
    np.subtract(east[2 * m :], east[:m], w[_RE, :m])
    np.subtract(north[2 * m :], north[:m], w[_RN, :m])


# ------------------------------------------------------------------ one epoch, point by point
# The kernels above over rows of a few points: each row expression allocates its result (about
# 0.1 us compiled). These write the same operations out point by point (scalars, no array but
# the libm sines), for one epoch's three points (FixRows(3, 1, one=True): the streaming INS);
# tests/geo/test_fix_chain.py compares every work row with the kernels above, bit for bit.
_A1, _A2, _A3, _A4, _A5, _A6 = _utm._A1, _utm._A2, _utm._A3, _utm._A4, _utm._A5, _utm._A6


@kernel(2, 1, 2)
def grid_mu_points(pts, t, w):
    """:func:`grid_mu`, point by point."""
    ok = True
    for i in range(t.shape[0]):
        ok = ok and np.isfinite(t[i])
    for i in range(pts.shape[1]):
        e, n = pts[0, i], pts[1, i]
        ok = ok and np.isfinite(e) and np.isfinite(n) and np.isfinite(pts[2, i])
        x = _CF * (_E0 + e / _CF)
        y = _CF * (_N0 + n / _CF)
        w[_X, i] = x
        w[_MU, i] = (y - _Y0) * _MU_SCALE + _MU0  # spec: mu
        ok = ok and abs(x - _X0) - _DX <= 0.0 and abs(y - _Y0) - _DY <= 0.0
    w[_OK, 0] = 1.0 if ok else 0.0


@kernel(2, 1, 2)
def series_datum_points(pts, par, w):
    """:func:`series_datum`, point by point."""
    ok = True
    for i in range(w.shape[1]):
        tan1 = w[_TAN1, i]
        t1 = tan1 * tan1  # spec: T_1
        u = 1.0 + t1
        cc = _EP2 / u  # spec: C_1
        ww = (1.0 + _E2M * t1) / u
        d = (w[_X, i] - _X0) * np.sqrt(ww) * _INV_AK0  # spec: D
        d2 = d * d
        p4 = (5.0 - 9.0 * _EP2) + 3.0 * t1 + cc * (10.0 - 4.0 * cc)
        p6 = (61.0 - 252.0 * _EP2) + t1 * (90.0 + 45.0 * t1) + cc * (298.0 - 3.0 * cc)
        phi = w[_PHI1, i] - (tan1 * ww * _INV_E2M) * (
            d2 * (0.5 - d2 * (p4 * (1.0 / 24.0) - d2 * p6 * (1.0 / 720.0)))
        )
        q3 = 1.0 + 2.0 * t1 + cc
        q5 = (5.0 + 8.0 * _EP2) + t1 * (28.0 + 24.0 * t1) - cc * (2.0 + 3.0 * cc)
        lam = _LAM0 + d * (1.0 - d2 * (q3 * (1.0 / 6.0) - d2 * q5 * (1.0 / 120.0))) * np.sqrt(u)
        lat, lon = phi * _R2D, lam * _R2D
        if par[_NAD83_2011] != 0.0:  # step 3
            lat += par[0]
            lon += par[1]
        w[_LAT, i], w[_LON, i] = lat, lon
        e, n = pts[0, i], pts[1, i]
        w[_H, i] = (_H0_M + pts[2, i]) + (par[2] + par[3] * e + par[4] * n)  # step 4
        dlon = lon - par[_LON_C]
        w[_PHI, i] = lat * _D2R
        w[_LAM, i] = dlon * _D2R
        ok = ok and abs(dlon) <= _MAX_DLON
    w[_OK, 0] = 1.0 if ok else 0.0


@kernel(2)
def sigma_argument_points(w):
    """utm._sigma_argument, point by point (w: utm._forward_rad's rows)."""
    for i in range(w.shape[1]):
        tau = w[_utm_TAU, i]
        root = np.sqrt(1.0 + tau * tau)
        w[0, i] = root
        w[1, i] = _UTM_E * tau / root


@kernel(2, libm=True)
def zeta_sums_points(w):
    """utm._zeta_sums, point by point (w: utm._forward_rad's rows; the cosines and sines of
    lambda over the row, numpy's bits)."""
    cos_lam, sin_lam = np.cos(w[_utm_LAM]), np.sin(w[_utm_LAM])
    for i in range(w.shape[1]):
        tau, sig, cl, sl = w[_utm_TAU, i], w[_utm_SIG, i], cos_lam[i], sin_lam[i]
        w[10, i], w[11, i] = cl, sl
        taup = tau * np.sqrt(1.0 + sig * sig) - sig * w[0, i]  # spec: tau'
        taup2 = taup * taup
        cl2 = cl * cl
        den = np.sqrt(taup2 + cl2)
        inv = 1.0 / (taup2 + cl2)
        secp = np.sqrt(1.0 + taup2)
        w[2, i], w[4, i], w[5, i] = taup, den, secp
        s2 = 2.0 * taup * cl * inv  # sin 2xi'
        c2 = (cl2 - taup2) * inv  # cos 2xi'
        sh2 = 2.0 * sl * secp * inv  # sinh 2eta'
        ch2 = 1.0 + 2.0 * sl * sl * inv  # cosh 2eta'
        w[3, i] = sl / den  # sinh eta'
        w[6, i] = s2 * ch2
        w[7, i] = c2 * sh2
        ar = 2.0 * (c2 * ch2)
        ai = -2.0 * (s2 * sh2)
        w[8, i], w[9, i] = ar, ai
        c6 = _A6
        y5r = ar * c6 + _A5
        y5i = ai * c6
        y4r = ar * y5r - ai * y5i + (_A4 - c6)
        y4i = ar * y5i + ai * y5r
        y3r = ar * y4r - ai * y4i - y5r + _A3
        y3i = ar * y4i + ai * y4r - y5i
        y2r = ar * y3r - ai * y3i - y4r + _A2
        y2i = ar * y3i + ai * y3r - y4i
        w[12, i] = ar * y2r - ai * y2i - y3r + _A1
        w[13, i] = ar * y2i + ai * y2r - y3i
        w[14, i], w[15, i] = y2r, y2i


@kernel(2)
def easting_rotation_points(w):
    """:func:`easting_rotation`, point by point."""
    k = w.shape[1]
    for i in range(k):
        y1r, y1i, sin2r, sin2i = w[_W + 12, i], w[_W + 13, i], w[_W + 6, i], w[_W + 7, i]
        w[_N, i] = _K0A * (w[_XIP, i] + (y1r * sin2r - y1i * sin2i))  # spec: N = k0 A xi
        w[_E, i] = _UTM_E0 + _K0A * (w[_ETAP, i] + (y1r * sin2i + y1i * sin2r))
    m = k // 3
    for i in range(m):
        w[_RE, i] = w[_E, 2 * m + i] - w[_E, i]
        w[_RN, i] = w[_N, 2 * m + i] - w[_N, i]


def _check_points(pts: np.ndarray, t_s: np.ndarray) -> None:
    """The errors of a point or time not finite or outside EPSG:2968's domain (the chain's own
    checks and lines, acre_steps.check_enu)."""
    require_finite("enu", pts.T)
    require_finite("t_s", t_s)
    grid = np.empty((4, pts.shape[1]))
    _steps.grid_rows(pts[0], pts[1], grid)
    _steps.check_enu(pts[0], pts[1], grid[0], grid[1])


class FixRows:
    """The work rows of the chain for k = 3 m points (m epochs), and views of the rows each step
    reads and writes (named once: a one-epoch caller keeps them from epoch to epoch)."""

    __slots__ = (
        "w", "m", "mu", "tm", "phi1", "tan1", "lat", "lon", "h", "phi", "fw", "tau", "sig",
        "fw1", "fw2", "fw3", "fw10", "xip", "etap", "east", "north", "de", "dn", "alpha",
        "kernels",
    )  # fmt: skip

    def __init__(self, k: int, m: int, one: bool = False) -> None:
        w = self.w = np.empty((_ROWS, k))
        self.m = m
        # the kernels as they run now (Kernel.runner): over rows, or point by point (``one``)
        ks = _POINT_KERNELS if one else _ROW_KERNELS
        self.kernels = tuple(k.runner() for k in ks)
        self.mu, self.tm, self.phi1, self.tan1 = w[_MU], w[_TM], w[_PHI1], w[_TAN1]
        self.lat, self.lon, self.h, self.phi = w[_LAT], w[_LON], w[_H], w[_PHI]
        fw = self.fw = w[_W:]
        self.tau, self.sig, self.xip, self.etap = w[_TAU], w[_SIG], w[_XIP], w[_ETAP]
        self.fw1, self.fw2, self.fw3, self.fw10 = fw[1], fw[2], fw[3], fw[10]
        self.east, self.north = w[_E], w[_N]
        self.de, self.dn, self.alpha = w[_RE, :m], w[_RN, :m], w[ALPHA, :m]


def run_chain(r: FixRows, pts: np.ndarray, t_s: np.ndarray, par: np.ndarray, zone: int) -> None:
    """:func:`nad83_fix_utm`'s chain into the rows ``r`` (lat, lon, h, east, north (3 m,) and
    alpha (m,) in their rows; its arguments as nad83_fix_utm's)."""
    w = r.w
    grid, foot, series, sigma_argument, zeta_sums, east_rot = r.kernels
    grid(pts, t_s, w)  # step 1, mu
    if w[_OK, 0] != 1.0:
        _check_points(pts, t_s)
    np.tan(r.mu, r.tm)
    foot(r.mu, r.tm, r.phi1)  # spec: phi_1 (stateplane's footpoint series)
    np.tan(r.phi1, r.tan1)
    series(pts, par, w)  # step 2's series, steps 3-4, UTM's radians
    if w[_OK, 0] != 1.0:  # a longitude far from the zone's meridian: utm's checks (and wrap)
        m = r.m
        east, north = _utm._forward_arrays(r.lat, r.lon, zone, factors=False, check_lat=False)
        r.east[:], r.north[:] = east, north
        np.subtract(east[2 * m :], east[:m], r.de)
        np.subtract(north[2 * m :], north[:m], r.dn)
    else:  # utm._forward_rad(phi, lam, factors=False) on the work rows
        np.tan(r.phi, r.tau)  # spec: tau = tan phi
        fw, sig = r.fw, r.sig
        sigma_argument(fw)
        np.arctanh(r.fw1, sig)
        np.multiply(_UTM_E, sig, sig)
        np.sinh(sig, sig)  # spec: sigma
        zeta_sums(fw)
        np.arctan2(r.fw2, r.fw10, r.xip)  # spec: xi'
        np.arcsinh(r.fw3, r.etap)  # spec: eta'
        east_rot(w)
    np.arctan2(r.de, r.dn, r.alpha)  # INS: alpha = atan2(E2 - E1, N2 - N1)


def nad83_fix_utm(pts: np.ndarray, t_s: np.ndarray, par: np.ndarray, zone: int) -> tuple:
    """Georeference.ins_fix_utm's chain for the frames nad83_2011 and nad83_harn at the ACRE
    site: pts (3, 3 m), C order, rows e, n, u of the INS points, the truth points and the INS
    points 10 m grid-north; t_s (m,); par :func:`fix_parameters` (for ``zone``) -> (lat, lon, h,
    E, N) (3 m,) each, northern northings, and alpha = atan2(E2 - E1, N2 - N1) (m,, rad).
    DatumError for a point or time not finite or outside the domains (the chain's lines)."""
    r = FixRows(pts.shape[1], t_s.shape[0])
    run_chain(r, pts, t_s, par, zone)
    return r.lat, r.lon, r.h, r.east, r.north, r.alpha


_ROW_KERNELS = (grid_mu, _sp._footpoint_series, series_datum, _utm._sigma_argument, _utm._zeta_sums,
                easting_rotation)  # fmt: skip
_POINT_KERNELS = (grid_mu_points, _sp._footpoint_points, series_datum_points, sigma_argument_points,
                  zeta_sums_points, easting_rotation_points)  # fmt: skip
