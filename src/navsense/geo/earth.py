"""The turning WGS84 Earth under a site's grid: true north, normal gravity, Earth and transport
rates (issue 19 section 3, ``imu.earth: "wgs84"``; the magnetometer's true north).

Grid convergence. A site's grid ENU (the ACRE tile's EPSG:2968 grid with NAVD88 heights, or a
local tangent frame) has its grid north at the azimuth gamma from true (WGS84 geodetic) north,
positive east (the ACRE tile: gamma = +0.0578 deg; a local tangent site: 0 at the origin).
gamma is measured, not approximated: the point and the point 10 m grid-north of it go through
``Georeference.enu_to_geodetic`` and::

    gamma = atan2(dlambda (N + h) cos phi, dphi (M + h))

with the WGS84 radii of curvature M (meridian) and N (prime vertical)::

    M = a (1 - e^2) / (1 - e^2 sin^2 phi)^(3/2),   N = a / (1 - e^2 sin^2 phi)^(1/2)

A vector's true east/north/up from its grid east/north/up (a conformal grid: grid east is grid
north turned 90 deg clockwise) is the rotation A(gamma) about up::

    E = e cos(gamma) + n sin(gamma),   N = -e sin(gamma) + n cos(gamma),   U = u

Normal gravity (NGA.STND.0036 / NIMA TR8350.2 eqs. 4-1 and 4-3: Somigliana's closed formula
with the second-order height term; it includes the centrifugal acceleration)::

    g_0(phi)  = g_e (1 + k sin^2 phi) / sqrt(1 - e^2 sin^2 phi),  k = b g_p / (a g_e) - 1
    g(phi, h) = g_0 (1 - 2/a (1 + f + m - 2 f sin^2 phi) h + 3 h^2 / a^2),  m = w^2 a^2 b / GM

g_e, g_p the WGS84 normal gravity at the equator and the poles, GM, w (EARTH_ROTATION_RADPS),
a, f, e^2 = f (2 - f), b = a (1 - f): navsense.constants.

Rates of a point moving with grid velocity v^g at (phi, h, gamma), true ENU axes (Groves,
"Principles of GNSS, Inertial, and Multisensor Integrated Navigation Systems", 2nd ed., 5.4)::

    Omega_ie^n = w (0, cos phi, sin phi)                                   Earth rate
    omega_en^n = (-v_N / (M + h), v_E / (N + h), v_E tan(phi) / (N + h))   transport rate
    v^n        = A(gamma) v^g

The truth's axes at a point are taken as the local level there, with grid north at gamma: the
body's attitude from true north is A(gamma) R, so the truth's angular rate w (relative to the
grid axes) and the grid's own turn against true north, gamma_dot = grad(gamma) . v^g, give the
body's rate from the local level, A w - gamma_dot up. With omega_eg = omega_en - gamma_dot up
(the grid axes' rate against the Earth; for a transverse Mercator grid gamma_dot nearly cancels
the transport rate's up component: a vehicle driving straight on the grid does not turn)::

    w_ib^g = w^g + A^T (Omega_ie^n + omega_eg^n)                               gyro, grid axes
    f^g    = a^g + A^T ((2 Omega_ie^n + omega_eg^n) x v^n + (0, 0, g(phi, h)))  specific force

a^g the truth's acceleration in grid axes (the derivative of A^T v^n is a^g: the term
-gamma_dot up x v^n of d(v^n)/dt is the one in omega_eg). :func:`SiteEarth.terms` returns the
two added terms (the Earth's part of w_ib^g and the term that replaces the specification's
constant gravity (0, 0, 9.80665) in f^g) for points, velocities and times, elementwise.
gamma, the WGS84 (G2139) latitude phi and the ellipsoidal height h are first-order models of
the site origin, x = x_0 + grad(x) . p (the georeference's values there at t = 0 and their
central differences over +-500 m, as the magnetometer's field): every step is elementwise and
cheap (no datum chain a step). Over 10 km the latitude's error is below 3e-6 rad (1e-7 m/s^2 of
gravity, 2e-10 rad/s of Earth rate), gamma's below 3e-6 rad; the height is the origin's plus
the grid's rise (a local site's tangent plane, rising d^2 / 2R above the ellipsoid, is read as
level: the ruling above).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from navsense.constants import (
    EARTH_ROTATION_RADPS,
    WGS84_A_M,
    WGS84_GAMMA_EQUATOR_MPS2,
    WGS84_GAMMA_POLE_MPS2,
    WGS84_GM_M3PS2,
    WGS84_INV_F,
)

__all__ = [
    "EARTH_MODELS",
    "SiteEarth",
    "grid_convergence_deg",
    "grid_enu_to_ned",
    "ned_to_grid_enu",
    "normal_gravity_mps2",
    "radii_of_curvature_m",
    "site_earth",
]

EARTH_MODELS = ("none", "wgs84")  # imu.earth: the specification's Earth, or WGS84's
GRID_NORTH_STEP_M = 10.0  # second point of the grid convergence, 10 m grid north, m
GRADIENT_STEP_M = 500.0  # half-width of the central differences of the gradients, m

_F = 1.0 / WGS84_INV_F
_E2 = (2.0 - _F) * _F  # e^2 = f (2 - f)
_B_M = WGS84_A_M * (1.0 - _F)
_K = _B_M * WGS84_GAMMA_POLE_MPS2 / (WGS84_A_M * WGS84_GAMMA_EQUATOR_MPS2) - 1.0
_M = EARTH_ROTATION_RADPS**2 * WGS84_A_M**2 * _B_M / WGS84_GM_M3PS2


def radii_of_curvature_m(lat_rad) -> tuple[np.ndarray, np.ndarray]:
    """WGS84 meridian (M) and prime-vertical (N) radii of curvature, m."""
    w2 = 1.0 - _E2 * np.sin(lat_rad) ** 2
    return WGS84_A_M * (1.0 - _E2) / (w2 * np.sqrt(w2)), WGS84_A_M / np.sqrt(w2)


def normal_gravity_mps2(lat_rad, height_m) -> np.ndarray:
    """WGS84 normal gravity g(phi, h), m/s^2 (Somigliana with the height term, module doc)."""
    s2 = np.sin(lat_rad) ** 2
    h = np.asarray(height_m, dtype=np.float64)
    g0 = WGS84_GAMMA_EQUATOR_MPS2 * (1.0 + _K * s2) / np.sqrt(1.0 - _E2 * s2)
    a = WGS84_A_M
    return g0 * (1.0 - 2.0 / a * (1.0 + _F + _M - 2.0 * _F * s2) * h + 3.0 * h * h / (a * a))


def grid_convergence_deg(georef, enu_m, t_s: float = 0.0) -> np.ndarray:
    """Azimuth of the site's grid north from true (WGS84 geodetic) north, deg, positive east.

    ``enu_m`` (n, 3): points of the site's grid ENU. Measured from the point and the point
    10 m grid-north of it through the georeference (module docstring).
    """
    enu = np.asarray(enu_m, dtype=np.float64).reshape(-1, 3)
    ahead = enu + np.array([0.0, GRID_NORTH_STEP_M, 0.0])
    g = georef.enu_to_geodetic(np.concatenate([enu, ahead]), t_s)
    n = enu.shape[0]
    lat = np.radians(g["wgs84_lat_deg"])
    lon = np.radians(g["wgs84_lon_deg"])
    h = g["wgs84_height_m"]
    m_r, n_r = radii_of_curvature_m(lat[:n])
    d_north = (lat[n:] - lat[:n]) * (m_r + h[:n])
    d_east = (lon[n:] - lon[:n]) * (n_r + h[:n]) * np.cos(lat[:n])
    return np.degrees(np.arctan2(d_east, d_north))


def ned_to_grid_enu(b_ned: np.ndarray, gamma_deg) -> np.ndarray:
    """Geodetic north/east/down (..., 3) to grid east/north/up, grid north at ``gamma_deg``."""
    b = np.asarray(b_ned, dtype=np.float64)
    gam = np.radians(np.asarray(gamma_deg, dtype=np.float64))
    c, s = np.cos(gam), np.sin(gam)
    x, y, z = b[..., 0], b[..., 1], b[..., 2]
    return np.stack([-x * s + y * c, x * c + y * s, -z], axis=-1)


def grid_enu_to_ned(b_enu: np.ndarray, gamma_deg) -> np.ndarray:
    """The inverse of :func:`ned_to_grid_enu`."""
    b = np.asarray(b_enu, dtype=np.float64)
    gam = np.radians(np.asarray(gamma_deg, dtype=np.float64))
    c, s = np.cos(gam), np.sin(gam)
    e, n, u = b[..., 0], b[..., 1], b[..., 2]
    return np.stack([n * c - e * s, n * s + e * c, -u], axis=-1)


@dataclass(frozen=True)
class SiteEarth:
    """The Earth under one site: first-order models of the latitude (rad), the ellipsoidal
    height (m) and the grid convergence (rad) at the site origin, ``x = x_0 + grad . p``.

    ``origin`` (lat_0, h_0, gamma_0); ``gradient`` (3, 3): rows d lat, d h, d gamma by
    d (e, n, u), per m. Build with :meth:`of`.
    """

    origin: tuple[float, float, float]
    gradient: tuple[tuple[float, ...], ...]

    @classmethod
    def of(cls, georef) -> SiteEarth:
        """The models at the site origin (t = 0) through ``georef`` (module docstring)."""
        d = GRADIENT_STEP_M
        pts = np.zeros((7, 3))
        for j in range(3):
            pts[1 + 2 * j, j], pts[2 + 2 * j, j] = d, -d
        geo = georef.enu_to_geodetic(pts, 0.0)
        values = np.stack(
            [
                np.radians(geo["wgs84_lat_deg"]),
                geo["wgs84_height_m"],
                np.radians(grid_convergence_deg(georef, pts, 0.0)),
            ]
        )
        grad = (values[:, 1::2] - values[:, 2::2]) / (2.0 * d)
        return cls(
            (float(values[0, 0]), float(values[1, 0]), float(values[2, 0])),
            tuple(tuple(float(x) for x in row) for row in grad),
        )

    def terms(self, p_m: np.ndarray, v_mps: np.ndarray) -> np.ndarray:
        """The Earth's terms at grid points ``p_m`` (n, 3) moving with ``v_mps`` (n, 3): (n, 2, 3),
        row 0 the term of the specific force (replacing (0, 0, 9.80665)), row 1 the Earth's part
        of the angular rate, both grid axes (module docstring). The site's Earth does not
        change over a run (the datum's epoch moves it by millimetres)."""
        p = np.asarray(p_m, dtype=np.float64)
        v = np.asarray(v_mps, dtype=np.float64)
        e, n, u = p[:, 0], p[:, 1], p[:, 2]
        (lat0, h0, gamma0), (d_lat, d_h, d_gamma) = self.origin, self.gradient
        lat = lat0 + d_lat[0] * e + d_lat[1] * n + d_lat[2] * u
        h = h0 + d_h[0] * e + d_h[1] * n + d_h[2] * u
        gamma = gamma0 + d_gamma[0] * e + d_gamma[1] * n + d_gamma[2] * u
        gamma_dot = d_gamma[0] * v[:, 0] + d_gamma[1] * v[:, 1] + d_gamma[2] * v[:, 2]
        c, s = np.cos(gamma), np.sin(gamma)
        v_e = v[:, 0] * c + v[:, 1] * s  # v^n = A(gamma) v^g
        v_n = -v[:, 0] * s + v[:, 1] * c
        v_u = v[:, 2]
        m_r, n_r = radii_of_curvature_m(lat)
        sin_lat, cos_lat = np.sin(lat), np.cos(lat)
        w_n = EARTH_ROTATION_RADPS * cos_lat  # Omega_ie^n (its east component is 0)
        w_u = EARTH_ROTATION_RADPS * sin_lat
        r_e = v_e / (n_r + h)
        t_e = -v_n / (m_r + h)  # omega_eg^n = omega_en^n - gamma_dot up
        t_n = r_e
        t_u = r_e * np.tan(lat) - gamma_dot
        out = np.empty((p.shape[0], 2, 3))
        # f: (2 Omega + omega_eg) x v^n + (0, 0, g), with (2 Omega + omega_eg) = (x, y, z)
        x, y, z = t_e, 2.0 * w_n + t_n, 2.0 * w_u + t_u
        f_e = y * v_u - z * v_n
        f_n = z * v_e - x * v_u
        out[:, 0, 2] = x * v_n - y * v_e + normal_gravity_mps2(lat, h)
        # w: Omega + omega_eg
        r_n, r_u = w_n + t_n, w_u + t_u
        # back to grid axes: A^T
        out[:, 0, 0] = f_e * c - f_n * s
        out[:, 0, 1] = f_e * s + f_n * c
        out[:, 1, 0] = t_e * c - r_n * s
        out[:, 1, 1] = t_e * s + r_n * c
        out[:, 1, 2] = r_u
        return out


def site_earth(earth: str, georef) -> SiteEarth | None:
    """The Earth a model's ``imu.earth`` asks for: None for "none" (the specification's
    constant gravity, no rotation), else the site's :class:`SiteEarth`; a site without a
    georeference is the ACRE tile (as the magnetometer's field; its start time moves the WGS84
    height by millimetres through the Helmert epoch, 1e-8 m/s^2 of gravity: the default's)."""
    if earth == "none":
        return None
    if georef is None:
        from navsense.geo import Georeference

        georef = Georeference.acre()
    return SiteEarth.of(georef)
