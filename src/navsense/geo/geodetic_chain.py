"""The whole ACRE datum chain of a few points in as few kernels as its transcendental functions
allow (issue 31 item 2; navsense.kernels): Georeference.geodetic_rows, the GNSS receiver's epoch.

Specification "INS and GNSS", section "Datum Chain" (Geodetic of AcresGnssModel.cpp), steps 1-6
(the chain as a whole: navsense.geo.georef). For points p (k, 3) (rows e, n, u in the site's
grid ENU, m) at episode times t (k,), between two transcendental functions, which stay numpy's
(their last bit differs in numba), all the algebra is one kernel::

    grid_epoch       the points as rows, step 1 (x = c_f (E0 + e / c_f), y likewise) and the
                     footpoint's mu = (y - y0) / (k0 a M0) + mu0; the decimal year of start_utc
                     + t (geo.epoch.YearClock.array); the tests of finiteness, EPSG:2968's
                     domain and the start's calendar year
    np.tan(mu), stateplane._footpoint_series, np.tan(phi_1)
    series_wgs84     the state plane's inverse series (phi, lambda), steps 3 and 4, step 5
                     (GRS80 ECEF with numpy's sin and cos, libm=True; the inverse Helmert with
                     its parameters at the epoch) and step 6's latitude iteration and height
    np.arctan2 (latitude and longitude in one call), np.degrees' product

A kernel cannot call a function of another module (numba compiles it alone, and its cache
checks only its own file), so grid_epoch and series_wgs84 write out the operations of
acre_steps.grid_rows, stateplane._inverse_rows and _inverse_series, acre_steps.datum_rows,
ellipsoid._ecef_rows, helmert._at_epoch_rows and _inverse_rows, ellipsoid._ecef_update_rows and
_ecef_height_rows, and YearClock.array term for term in the same order: the same operations on
the same values, the same bits (tests/geo/test_geodetic_chain.py compares them with those
functions, compiled and as numpy). EcefToGeodetic's iteration (ellipsoid._ecef_to_geodetic)
stops an element at its exact fixed point, where further iterations give its bits again; here
all the points iterate until every one is at its fixed point (at most ECEF_ITERATIONS times),
so each gets the bits of its own iteration whatever the others. This is for a few points a
call (FUSED_MAX): a batch keeps the generic path, whose working set shrinks as points converge.

A point or time not finite or outside EPSG:2968's domain, or a time outside the start's
calendar year, makes :func:`acre_geodetic` return None: the caller runs the generic chain,
which raises the chain's own error line (or, for another year, gives the values).
"""

from __future__ import annotations

import numpy as np

from navsense.constants import DEG as _D2R  # np.radians(x) is x * (pi / 180): the same bits
from navsense.constants import DEG_PER_RAD as _R2D  # np.degrees(x) is x * (180 / pi)
from navsense.geo import ellipsoid as _ell
from navsense.geo import helmert as _helmert
from navsense.geo import stateplane as _sp
from navsense.geo.acre_steps import ACRE_ORIGIN_FT
from navsense.kernels import kernel

__all__ = ["FUSED_MAX", "OUT", "acre_geodetic", "chain_parameters"]

# the most points a call takes the fused path (a batch keeps the generic chain)
FUSED_MAX = 16

_CF = _sp.US_SURVEY_FOOT_M
_E0, _N0, _Z0 = ACRE_ORIGIN_FT
_H0_M = _CF * _Z0  # step 4: c_f Z0, m (acre_steps._H0_M)
_X0, _Y0 = _sp.FALSE_EASTING_M, _sp.FALSE_NORTHING_M
_DX, _DY = _sp.MAX_DX_M, _sp.MAX_DY_M
_MU_SCALE, _MU0 = _sp._MU_SCALE, _sp._MU0
_EP2, _E2M, _INV_E2M, _INV_AK0, _LAM0 = _sp._EP2, _sp._E2M, _sp._INV_E2M, _sp._INV_AK0, _sp._LAM0
_GA, _GE2 = _ell.GRS80.a_m, _ell.GRS80.e2  # step 5: GRS80 (ellipsoid._shape_row)
_WA, _WE2 = _ell.WGS84.a_m, _ell.WGS84.e2  # step 6: WGS84
_ITER = _ell.ECEF_ITERATIONS
_ARC = _helmert.ARCSEC_TO_RAD

# chain_parameters' row: acre_steps.datum_row (5), helmert._parameter_row (15) from _Q, then
# the YearClock's constants from _YEAR
_Q = 5
_YEAR, _OFF, _LEN, _SFRAC, _LO, _HI = range(_Q + 15, _Q + 21)

# the rows of the work array: the footpoint series reads mu (1) and tan mu (3) and writes
# phi_1 (4); the outputs in OUTPUT_KEYS' order from OUT; atan2's operands; the points; the epoch
_X, _MU, _OK, _TM, _PHI1, _TAN1 = range(6)
OUT = 6  # the 10 rows of Georeference.enu_to_geodetic's values, OUTPUT_KEYS' order
_LATH, _LONH, _LAT11, _LON11, _H11, _LATW, _LONW, _HW, _HNAVD, _NG = range(OUT, OUT + 10)
_ZN, _YN, _WD, _XD = range(OUT + 10, OUT + 14)  # atan2(Z, w), atan2(Y, X): Z, Y then w, X
_EE, _NN, _UU, _EP = range(OUT + 14, OUT + 18)
_ROWS = OUT + 18


def chain_parameters(datum_a: np.ndarray, helmert_q: np.ndarray, clock: tuple) -> np.ndarray:
    """The kernels' parameter row: acre_steps.datum_row (``datum_a``), helmert._parameter_row
    (``helmert_q``) and YearClock.constants() (``clock``: Y, sw - T_Y, T_(Y+1) - T_Y, the
    start's fraction of a second, the fractions of the year's start and end)."""
    return np.array([*datum_a, *helmert_q, *(float(v) for v in clock)])


@kernel(2, 1, 1, 2)
def grid_epoch(p, t, par, w):
    """The points as rows, step 1, mu and the epoch: p (k, 3), t (k,), par
    (:func:`chain_parameters`) -> w rows e, n, u, x, mu and the decimal year (k,); w[2, 0] = 1.0
    when every point and time is finite, inside EPSG:2968's domain (|x - x0| - dx_max <= 0,
    |y - y0| - dy_max <= 0) and in the start's calendar year (YearClock.array's test), else 0.0.

    DecimalYear (geo.epoch): t_y = Y + ((sw - T_Y) + frac) / (T_(Y+1) - T_Y), frac = (start - sw)
    + t."""
    e, n = w[_EE], w[_NN]
    e[:] = p[:, 0]
    n[:] = p[:, 1]
    w[_UU] = p[:, 2]
    x = w[_X]
    np.multiply(_CF, _E0 + e / _CF, x)  # step 1: x = c_f E_g, E_g = E0 + e / c_f
    y = _CF * (_N0 + n / _CF)
    w[_MU] = (y - _Y0) * _MU_SCALE + _MU0  # spec: mu
    frac = par[_SFRAC] + t
    w[_EP] = par[_YEAR] + (par[_OFF] + frac) / par[_LEN]  # DecimalYear
    ok = np.isfinite(p).all() and np.isfinite(t).all()
    ok = ok and (np.abs(x - _X0) - _DX <= 0.0).all() and (np.abs(y - _Y0) - _DY <= 0.0).all()
    ok = ok and (frac >= par[_LO]).all() and (frac < par[_HI]).all()
    w[_OK, 0] = 1.0 if ok else 0.0


@kernel(2, 1, libm=True)
def series_wgs84(w, par):
    """Steps 2 (after tan phi_1) to 6 (before its atan2): x, phi_1, tan phi_1, e, n, u and the
    epoch (w rows) and par (:func:`chain_parameters`) -> HARN and NAD83(2011) latitude,
    longitude (deg), h_2011, the WGS84 height, H_navd and N_g (m) (w[6..15] but 11, 12), and
    atan2's operands Z, Y, w, X (w[16..19]) of the WGS84 latitude and longitude.

    The inverse series (stateplane._inverse_series), steps 3-4 (acre_steps.datum_rows), GRS80
    ECEF (ellipsoid._ecef_rows: N_e = a / sqrt(1 - e^2 sin^2 phi), X = (N_e + h) cos phi
    cos lambda, ...), the inverse Helmert X_ITRF = (1/s) M^T (X_2011 - T) at the epoch
    (helmert._at_epoch_rows, _inverse_rows), EcefToGeodetic's iteration w <- p (1 - e^2 N_e /
    (N_e + h)) from w = p (1 - e^2) until every point is at its fixed point (at most 8 times;
    ellipsoid._ecef_update_rows) and the height p cos phi + Z sin phi - a sqrt(1 - e^2 sin^2
    phi) (ellipsoid._ecef_height_rows)."""
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
    lat_h, lon_h, lat_11, lon_11 = w[_LATH], w[_LONH], w[_LAT11], w[_LON11]
    h_11, h_navd, n_g = w[_H11], w[_HNAVD], w[_NG]
    np.multiply(phi, _R2D, lat_h)  # HARN latitude, longitude (deg)
    np.multiply(lam, _R2D, lon_h)
    np.add(lat_h, par[0], lat_11)  # step 3: + harn_to_nad83_2011_shift_deg
    np.add(lon_h, par[1], lon_11)
    np.add(_H0_M, w[_UU], h_navd)  # step 4: H_navd = c_f Z0 + u
    np.add(par[2] + par[3] * w[_EE], par[4] * w[_NN], n_g)  # N_g = N0^g + a_e e + a_n n
    np.add(h_navd, n_g, h_11)  # step 4: h_2011 = H_navd + N_g
    # step 5: ECEF on GRS80
    phi5 = lat_11 * _D2R
    lam5 = lon_11 * _D2R
    sphi, cphi = np.sin(phi5), np.cos(phi5)
    ne = _GA / np.sqrt(1.0 - _GE2 * sphi * sphi)  # ECEF: N_e
    r = (ne + h_11) * cphi
    xg = r * np.cos(lam5)  # ECEF: X
    yg = r * np.sin(lam5)  # ECEF: Y
    zg = (ne * (1.0 - _GE2) + h_11) * sphi  # ECEF: Z
    # step 5: the Helmert parameters at the epoch, then the inverse
    delta = w[_EP] - par[_Q + 14]
    tx = par[_Q + 0] + par[_Q + 3] * delta  # Helmert: T
    ty = par[_Q + 1] + par[_Q + 4] * delta
    tz = par[_Q + 2] + par[_Q + 5] * delta
    rx = -(par[_Q + 6] + par[_Q + 9] * delta) * _ARC  # Helmert: r
    ry = -(par[_Q + 7] + par[_Q + 10] * delta) * _ARC
    rz = -(par[_Q + 8] + par[_Q + 11] * delta) * _ARC
    s = 1.0 + (par[_Q + 12] + par[_Q + 13] * delta) * 1e-6  # Helmert: s
    dx, dy, dz = xg - tx, yg - ty, zg - tz  # X_2011 - T
    inv_s = 1.0 / s
    x = inv_s * (dx + rz * dy - ry * dz)
    y = inv_s * (-rz * dx + dy + rx * dz)
    z = inv_s * (ry * dx - rx * dy + dz)
    # step 6: EcefToGeodetic on WGS84
    pp = np.sqrt(x * x + y * y)  # ECEF: p
    wi = pp * (1.0 - _WE2)  # ECEF: first value, phi = atan2(Z, p (1 - e^2))
    zz = z * z
    for _ in range(_ITER):
        rr = np.sqrt(zz + wi * wi)
        sn = z / rr  # sin phi of the current iterate
        cs = wi / rr  # cos phi of the current iterate
        root = np.sqrt(1.0 - _WE2 * sn * sn)
        nw = _WA / root  # ECEF: N_e
        hw = pp * cs + z * sn - _WA * root  # ECEF: h
        wn = pp * (1.0 - _WE2 * nw / (nw + hw))  # phi <- atan2(Z, p (1 - e^2 N_e / (N_e + h)))
        fixed = (wn == wi).all()
        wi = wn
        if fixed:
            break
    rr = np.sqrt(zz + wi * wi)
    sn = z / rr
    cs = wi / rr
    w[_HW] = pp * cs + z * sn - _WA * np.sqrt(1.0 - _WE2 * sn * sn)  # height, final latitude
    w[_ZN] = z
    w[_YN] = y
    w[_WD] = wi
    w[_XD] = x


def acre_geodetic(p: np.ndarray, t: np.ndarray, par: np.ndarray) -> np.ndarray | None:
    """Georeference.enu_to_geodetic's values of points p (k, 3) at times t (k,) (float64, C
    order, 1 <= k <= FUSED_MAX) at the ACRE site: the work array, whose rows OUT .. OUT + 9
    are the values in OUTPUT_KEYS' order; None for a point or time not finite, outside
    EPSG:2968's domain or outside the start's calendar year (the generic chain's case)."""
    w = np.empty((_ROWS, p.shape[0]))
    grid_epoch(p, t, par, w)  # step 1, mu, the epoch
    if w[_OK, 0] != 1.0:
        return None
    np.tan(w[_MU], w[_TM])
    _sp._footpoint_series(w[_MU], w[_TM], w[_PHI1])  # spec: phi_1
    np.tan(w[_PHI1], w[_TAN1])
    series_wgs84(w, par)  # steps 2-6
    ll = w[_LATW : _LONW + 1]
    np.arctan2(w[_ZN : _YN + 1], w[_WD : _XD + 1], ll)  # step 6: latitude, longitude (rad)
    np.multiply(ll, _R2D, ll)
    return w
