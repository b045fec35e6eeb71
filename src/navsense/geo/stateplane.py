"""EPSG:2968, NAD83(HARN) / Indiana West (US survey feet): the transverse Mercator of the site.

Specification ("INS and GNSS", "Datum Chain", paragraph "Inverse projection";
IndianaWestFeetToGeographic of AcresSensors.cpp): Snyder (1987) series on GRS80 with
phi0 = 37.5 deg, lambda0 = -(87 + 5/60) deg, k0 = 0.999966667, x0 = 900 000 m,
y0 = 250 000 m, c_f = 1200/3937 m per US survey foot.

Rulings (DESIGN.md):

* Central meridian exactly -(87 + 5/60) deg = -87 deg 05 min. The specification prints the
  rounded -87.08333, which taken literally moves every point 0.28 m east and breaks the
  specification's own origin table.
* The forward projection (GeographicToIndianaWestFeet, not given in the specification) is the
  exact inverse of the documented inverse series: Snyder's forward series (1987, eqs. 8-9, 8-10)
  gives the first value and three Newton steps on the inverse series refine it, so forward and
  inverse close to a few nanometres over the whole domain (the float64 resolution of a latitude
  in degrees is 0.8 nm).

False northing: the code uses y0 = 250 000 m. EPSG:2968 defines 820 208.333 US survey feet,
which is 249 999.999 898 m, 0.1016 mm smaller (spec "Georeference Caveats", "False northing").

Domain: |x - x0| <= 250 km and |y - y0| <= 1 000 km on the grid (latitude about 28.5 to
46.5 deg), for both directions (the forward also requires |lambda - lambda0| <= 10 deg before
it projects); anything else raises DatumError. Inside this box the series agrees with PROJ's
transverse Mercator (Poder/Engsager, exact to nanometres) to better than 0.7 mm; within
+-30 km of the tile origin to 3 um (tests/geo/test_geo_stateplane.py). The error grows
with the distance from the central meridian (the D^6 truncation of the series): 3 cm at
400 km.
"""

from __future__ import annotations

import math

import numpy as np

from navsense.errors import DatumError
from navsense.geo._arrays import (
    as_float,
    require_finite,
    require_range,
    shaped,
)
from navsense.geo.ellipsoid import GRS80
from navsense.kernels import kernel
from navsense.rotation import wrap_degrees

__all__ = [
    "EPSG_FALSE_NORTHING_FT",
    "EPSG_FALSE_NORTHING_M",
    "FALSE_EASTING_M",
    "FALSE_NORTHING_M",
    "K0",
    "LAT0_DEG",
    "LON0_DEG",
    "US_SURVEY_FOOT_M",
    "forward",
    "geodetic_to_grid_ft",
    "geodetic_to_grid_m",
    "grid_ft_to_geodetic",
    "grid_m_to_geodetic",
    "inverse",
]

US_SURVEY_FOOT_M = 1200.0 / 3937.0  # c_f, m per US survey foot (spec "Datum Chain", step 1)
LAT0_DEG = 37.5  # phi0, deg (spec "Inverse projection"; EPSG:2968)
LON0_DEG = -(87.0 + 5.0 / 60.0)  # lambda0, deg: exactly -87 deg 05 min (DESIGN.md ruling)
K0 = 0.999966667  # k0, scale on the central meridian (spec; EPSG:2968)
FALSE_EASTING_M = 900_000.0  # x0, m (spec; EPSG 2 952 750 ftUS is the same value)
FALSE_NORTHING_M = 250_000.0  # y0, m (spec; the code's value, see EPSG_FALSE_NORTHING_M)
EPSG_FALSE_NORTHING_FT = 820_208.333  # EPSG:2968 false northing, US survey ft (EPSG registry)
EPSG_FALSE_NORTHING_M = EPSG_FALSE_NORTHING_FT * US_SURVEY_FOOT_M  # 249 999.999 898 m

# Domain of the projection functions (see the module docstring).
MAX_DX_M = 250_000.0  # |x - x0|, m
MAX_DY_M = 1_000_000.0  # |y - y0|, m
MAX_DLON_DEG = 10.0  # |lambda - lambda0|, deg: sanity check before the forward series

_ELL = GRS80
_A = _ELL.a_m
_E2 = _ELL.e2
_EP2 = _ELL.ep2
_E4 = _E2 * _E2
_E6 = _E4 * _E2
_PHI0 = math.radians(LAT0_DEG)
_LAM0 = math.radians(LON0_DEG)

# Snyder (1987) eq. 3-21, the meridian distance M(phi) (spec "Inverse projection")
_M0 = 1.0 - _E2 / 4.0 - 3.0 * _E4 / 64.0 - 5.0 * _E6 / 256.0
_M2 = 3.0 * _E2 / 8.0 + 3.0 * _E4 / 32.0 + 45.0 * _E6 / 1024.0
_M4 = 15.0 * _E4 / 256.0 + 45.0 * _E6 / 1024.0
_M6 = 35.0 * _E6 / 3072.0
_SQ = math.sqrt(1.0 - _E2)
_E1 = (1.0 - _SQ) / (1.0 + _SQ)  # spec: e_1
# Snyder eq. 3-26, footpoint latitude phi_1(mu) (spec "Inverse projection")
_F2 = 3.0 * _E1 / 2.0 - 27.0 * _E1**3 / 32.0
_F4 = 21.0 * _E1**2 / 16.0 - 55.0 * _E1**4 / 32.0
_F6 = 151.0 * _E1**3 / 96.0
_F8 = 1097.0 * _E1**4 / 512.0

NEWTON_ITERATIONS = 3  # fixed: each step shrinks the error by ~1e-6, see forward()


def _meridian_m(phi):
    """M(phi), m (spec "Inverse projection"; Snyder eq. 3-21)."""
    return _A * (
        _M0 * phi - _M2 * np.sin(2.0 * phi) + _M4 * np.sin(4.0 * phi) - _M6 * np.sin(6.0 * phi)
    )


_MPHI0 = float(_meridian_m(_PHI0))  # M(phi0), m
_MU0 = _MPHI0 / (_A * _M0)  # mu at y = y0, rad
_MU_SCALE = 1.0 / (K0 * _A * _M0)  # d mu / d y, rad/m
_E2M = 1.0 - _E2  # 1 - e^2
_INV_E2M = 1.0 / _E2M
_INV_AK0 = 1.0 / (_A * K0)


def _inverse_rad(x, y):
    """The spec's inverse series: projection metres (x, y) -> (phi, lambda) in radians.

    Arrays, no checks (the chain's hot path). The spec's equations, evaluated with
    fewer operations (the same mathematics):

    * phi_1 = mu + F2 sin 2mu + ... + F8 sin 8mu by Clenshaw's recurrence on sin 2mu and
      cos 2mu (b_k = 2 cos(2mu) b_{k+1} - b_{k+2} + F_2k; the sum is b_1 sin 2mu), with
      sin 2mu and cos 2mu from t = tan mu: 2t / (1 + t^2) and (1 - t^2) / (1 + t^2)
      (|mu| < pi/2 on the whole domain);
    * the functions of phi_1 from tan phi_1 alone: with u = 1 + T_1 (T_1 = tan^2 phi_1),
      cos^2 phi_1 = 1/u, C_1 = e'^2 / u, and w = 1 - e^2 sin^2 phi_1 = (1 + (1 - e^2) T_1) / u,
      so N_1 / R_1 = w / (1 - e^2), D = (x - x0) sqrt(w) / (a k0) and 1 / cos phi_1 = sqrt(u);
    * the polynomials in D in Horner form.

    Two tangents instead of four sines and cosines; the tangent is accurate to 1 ulp, and
    the functions of phi_1 only scale the series' correction terms, so the result is as
    accurate as with sin and cos (tests/geo: round trips to nanometres, PROJ to the series'
    truncation).
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.shape != y.shape:
        x, y = np.broadcast_arrays(x, y)
    if x.ndim == 1:  # rows already
        out = _inverse_rows(x, y)
    else:
        out = _inverse_rows(x.reshape(-1), y.reshape(-1)).reshape((2,) + x.shape)
    return out[0], out[1]


def _inverse_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """:func:`_inverse_rad` of rows x, y (n,) float64: (2, n) = (phi, lambda), rad.

    The footpoint latitude: mu = (M(phi0) + (y - y0)/k0) / (a (1 - e^2/4 - 3e^4/64 - 5e^6/256))
    and phi_1 = mu + F2 sin 2mu + F4 sin 4mu + F6 sin 6mu + F8 sin 8mu, summed by Clenshaw
    (:func:`_footpoint_series`, after tan mu); then tan phi_1 and the series."""
    mu = (y - FALSE_NORTHING_M) * _MU_SCALE + _MU0  # spec: mu
    phi1 = np.empty(mu.shape[0])
    _footpoint_series(mu, np.tan(mu), phi1)  # spec: phi_1
    out = np.empty((2, mu.shape[0]))
    _inverse_series(x, phi1, np.tan(phi1), out)
    return out


@kernel(1, 1, 1, 2)
def _inverse_series(x, phi1, tan1, out):
    """_inverse_rad's series after tan phi_1 (its docstring), one kernel (navsense.kernels)
    over the points as rows: x, phi_1, tan phi_1 (n,) -> out (2, n) = (phi, lambda)."""
    t1 = tan1 * tan1  # spec: T_1
    u = 1.0 + t1  # 1 / cos^2 phi_1
    cc = _EP2 / u  # spec: C_1 = e'^2 cos^2 phi_1
    w = (1.0 + _E2M * t1) / u  # 1 - e^2 sin^2 phi_1: N_1 = a / sqrt(w), R_1 = a (1 - e^2) / w^(3/2)
    d = (x - FALSE_EASTING_M) * np.sqrt(w) * _INV_AK0  # spec: D = (x - x0) / (N_1 k0)
    d2 = d * d
    # spec: phi = phi_1 - (N_1 tan phi_1 / R_1) [D^2/2 - p4 D^4/24 + p6 D^6/720] with
    # p4 = 5 + 3 T_1 + 10 C_1 - 4 C_1^2 - 9 e'^2 and p6 = 61 + 90 T_1 + 298 C_1 + 45 T_1^2 - 252 e'^2 - 3 C_1^2
    p4 = (5.0 - 9.0 * _EP2) + 3.0 * t1 + cc * (10.0 - 4.0 * cc)
    p6 = (61.0 - 252.0 * _EP2) + t1 * (90.0 + 45.0 * t1) + cc * (298.0 - 3.0 * cc)
    out[0] = phi1 - (tan1 * w * _INV_E2M) * (
        d2 * (0.5 - d2 * (p4 * (1.0 / 24.0) - d2 * p6 * (1.0 / 720.0)))
    )
    # spec: lambda = lambda0 + [D - q3 D^3/6 + q5 D^5/120] / cos phi_1 with
    # q3 = 1 + 2 T_1 + C_1 and q5 = 5 - 2 C_1 + 28 T_1 - 3 C_1^2 + 8 e'^2 + 24 T_1^2
    q3 = 1.0 + 2.0 * t1 + cc
    q5 = (5.0 + 8.0 * _EP2) + t1 * (28.0 + 24.0 * t1) - cc * (2.0 + 3.0 * cc)
    out[1] = _LAM0 + d * (1.0 - d2 * (q3 * (1.0 / 6.0) - d2 * q5 * (1.0 / 120.0))) * np.sqrt(u)


@kernel(1, 1, 1)
def _footpoint_series(mu, tm, out):
    """The footpoint latitude's sum after tan mu (:func:`_inverse_rows`), one kernel over the points: mu, tan mu (n,) -> phi_1.

    sin 2mu = 2t / (1 + t^2), 2 cos 2mu = 2 (1 - t^2) / (1 + t^2) (t = tan mu); Clenshaw's
    b_k = 2 cos(2mu) b_(k+1) - b_(k+2) + F_2k, phi_1 = mu + b_1 sin 2mu."""
    tm2 = tm * tm
    inv = 1.0 / (1.0 + tm2)
    s2 = 2.0 * tm * inv  # sin 2mu
    a2 = 2.0 * (1.0 - tm2) * inv  # 2 cos 2mu
    b3 = a2 * _F8 + _F6
    b2 = a2 * b3 + (_F4 - _F8)
    b1 = a2 * b2 - b3 + _F2
    out[:] = mu + b1 * s2  # spec: phi_1


@kernel(1, 1, 1)
def _footpoint_points(mu, tm, out):
    """:func:`_footpoint_series`, point by point (the one-epoch chains: a compiled row
    expression makes a temporary a statement); the same operations in the same order."""
    for i in range(mu.shape[0]):
        t = tm[i]
        tm2 = t * t
        inv = 1.0 / (1.0 + tm2)
        s2 = 2.0 * t * inv  # sin 2mu
        a2 = 2.0 * (1.0 - tm2) * inv  # 2 cos 2mu
        b3 = a2 * _F8 + _F6
        b2 = a2 * b3 + (_F4 - _F8)
        b1 = a2 * b2 - b3 + _F2
        out[i] = mu[i] + b1 * s2  # spec: phi_1


def _snyder_forward_m(phi, lam):
    """Snyder (1987) eqs. 8-9 and 8-10, the forward series: first value of the Newton loop.

    Arrays (as every private kernel of this module)."""
    s = np.sin(phi)
    c = np.cos(phi)
    tn = s / c
    t = tn * tn  # T
    cc = _EP2 * c * c  # C
    aa = (lam - _LAM0) * c  # A
    n = _A / np.sqrt(1.0 - _E2 * s * s)  # N
    m = _meridian_m(phi)
    a2 = aa * aa
    x = FALSE_EASTING_M + K0 * n * (
        aa
        + (1.0 - t + cc) * a2 * aa / 6.0
        + (5.0 - 18.0 * t + t * t + 72.0 * cc - 58.0 * _EP2) * a2 * a2 * aa / 120.0
    )  # Snyder eq. 8-9
    y = FALSE_NORTHING_M + K0 * (
        m
        - _MPHI0
        + n
        * (s / c)
        * (
            a2 / 2.0
            + (5.0 - t + 9.0 * cc + 4.0 * cc * cc) * a2 * a2 / 24.0
            + (61.0 - 58.0 * t + t * t + 600.0 * cc - 330.0 * _EP2) * a2 * a2 * a2 / 720.0
        )
    )  # Snyder eq. 8-10
    return x, y


def _forward_m(phi, lam):
    """Exact inverse of :func:`_inverse_rad`: radians -> projection metres (x, y).

    Newton on the residual (dphi, dlambda) = target - inverse(x, y) with the Jacobian of a
    conformal map of scale k and convergence gamma (grid north minus true north)::

        de = N cos(phi) dlambda,  dn = R dphi           (ground metres east, north)
        dx = k (de cos gamma - dn sin gamma)
        dy = k (de sin gamma + dn cos gamma)

    with k = k0 (1 + D^2 / 2 ...) and gamma = (lambda - lambda0) sin(phi) to first order. The
    relative error of this Jacobian (about 1e-6 on the state plane) is the contraction factor
    per step. Snyder's forward series puts the first value within 0.7 mm of the solution over
    the whole domain (measured), so three steps reach the float64 floor.
    """
    x, y = _snyder_forward_m(phi, lam)
    s = np.sin(phi)
    c = np.cos(phi)
    w = 1.0 - _E2 * s * s
    n = _A / np.sqrt(w)
    r = _A * (1.0 - _E2) / (w * np.sqrt(w))
    for _ in range(NEWTON_ITERATIONS):
        phi_i, lam_i = _inverse_rad(x, y)
        de = n * c * (lam - lam_i)
        dn = r * (phi - phi_i)
        d = (x - FALSE_EASTING_M) / (n * K0)
        k = K0 * (1.0 + 0.5 * d * d * (1.0 + _EP2 * c * c))
        gam = (lam_i - _LAM0) * s
        cg = np.cos(gam)
        sg = np.sin(gam)
        x = x + k * (de * cg - dn * sg)
        y = y + k * (de * sg + dn * cg)
    return x, y


def _check_grid_m(x, y):
    require_finite("state-plane easting", x)
    require_finite("state-plane northing", y)
    _box("state-plane easting", x - FALSE_EASTING_M, MAX_DX_M, FALSE_EASTING_M)
    _box("state-plane northing", y - FALSE_NORTHING_M, MAX_DY_M, FALSE_NORTHING_M)


def _box(name, dv, half, centre):
    bad = np.abs(dv) > half
    if np.any(bad):
        i = int(np.flatnonzero(bad.ravel())[0])
        v = float(dv.ravel()[i] + centre)
        raise DatumError(
            f"{name} = {v!r} m is outside the domain of EPSG:2968 "
            f"[{centre - half!r}, {centre + half!r}] m"
        )


def _check_geodetic(lat, lon):
    """Sanity checks before the forward series; the grid box is checked on its result."""
    require_range("latitude_deg", lat, -90.0, 90.0, "deg")
    require_finite("longitude_deg", lon)
    require_range("latitude_deg", lat, -80.0, 80.0, "deg (EPSG:2968 forward)")
    dlon = wrap_degrees(lon - LON0_DEG)
    bad = np.abs(dlon) > MAX_DLON_DEG
    if np.any(bad):
        i = int(np.flatnonzero(bad.ravel())[0])
        raise DatumError(
            f"longitude_deg = {float(lon.ravel()[i])!r} is outside the domain of EPSG:2968 "
            f"[{LON0_DEG - MAX_DLON_DEG!r}, {LON0_DEG + MAX_DLON_DEG!r}] deg"
        )


def _check_forward_result(lat, lon, x, y):
    """DatumError naming the latitude/longitude whose grid point leaves the domain box."""
    slack = 1e-3  # m: a point on the box edge stays inside after a round trip
    bad = (np.abs(x - FALSE_EASTING_M) > MAX_DX_M + slack) | (
        np.abs(y - FALSE_NORTHING_M) > MAX_DY_M + slack
    )
    if np.any(bad):
        i = int(np.flatnonzero(bad.ravel())[0])
        raise DatumError(
            f"latitude_deg, longitude_deg = {float(lat.ravel()[i])!r}, {float(lon.ravel()[i])!r} "
            f"is outside the domain of EPSG:2968 (grid within {MAX_DX_M / 1000:.0f} km of the central "
            f"meridian {LON0_DEG:.6f} deg and {MAX_DY_M / 1000:.0f} km of the false northing, "
            f"about latitude 28.5 to 46.5 deg)"
        )


def grid_m_to_geodetic(x_m, y_m):
    """EPSG:2968 projection metres (x, y) -> NAD83(HARN) latitude and longitude in degrees.

    The specification's inverse series (IndianaWestFeetToGeographic) with x = c_f E_g and
    y = c_f N_g; see the module docstring for constants and domain.
    """
    x = as_float("state-plane easting", x_m)
    y = as_float("state-plane northing", y_m)
    x, y = np.broadcast_arrays(x, y)
    _check_grid_m(x, y)
    phi, lam = _inverse_rad(x, y)
    return shaped(np.degrees(phi)), shaped(np.degrees(lam))


def geodetic_to_grid_m(lat_deg, lon_deg):
    """NAD83(HARN) latitude and longitude (deg) -> EPSG:2968 projection metres (x, y).

    The exact inverse of :func:`grid_m_to_geodetic` (DESIGN.md ruling "Forward state-plane
    projection"): Snyder's forward series refined by Newton steps on the inverse series.
    """
    lat = as_float("latitude_deg", lat_deg)
    lon = as_float("longitude_deg", lon_deg)
    lat, lon = np.broadcast_arrays(lat, lon)
    _check_geodetic(lat, lon)
    x, y = _forward_m(np.radians(lat), np.radians(lon))
    _check_forward_result(lat, lon, x, y)
    return shaped(x), shaped(y)


def grid_ft_to_geodetic(easting_ft, northing_ft):
    """EPSG:2968 grid coordinates in US survey feet -> NAD83(HARN) latitude, longitude (deg).

    Spec "Datum Chain" step 2: x = c_f E_g, y = c_f N_g, then the inverse series.
    """
    e = as_float("easting_ft", easting_ft)
    n = as_float("northing_ft", northing_ft)
    require_finite("easting_ft", e)
    require_finite("northing_ft", n)
    return grid_m_to_geodetic(US_SURVEY_FOOT_M * e, US_SURVEY_FOOT_M * n)


def geodetic_to_grid_ft(lat_deg, lon_deg):
    """NAD83(HARN) latitude, longitude (deg) -> EPSG:2968 grid in US survey feet (E_g, N_g)."""
    x, y = geodetic_to_grid_m(lat_deg, lon_deg)
    return x / US_SURVEY_FOOT_M, y / US_SURVEY_FOOT_M


# The projection's two directions, named like utm.forward / utm.inverse.
inverse = grid_ft_to_geodetic
forward = geodetic_to_grid_ft
