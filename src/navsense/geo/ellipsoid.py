"""Reference ellipsoids and the conversions between geodetic and ECEF coordinates.

Specification ("INS and GNSS", section "Datum Chain", paragraphs "Inverse projection" and
"ECEF"): GeodeticToEcef and EcefToGeodetic of AcresGnssModel.cpp.

Conventions: latitude and longitude in degrees (``_deg``), heights and ECEF coordinates in
metres (``_m``). Functions take numpy arrays or scalars and return the broadcast shape.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from navsense.constants import DEG as _D2R  # np.radians(x) is x * (pi / 180): the same bits
from navsense.constants import DEG_PER_RAD as _R2D  # np.degrees(x) is x * (180 / pi)
from navsense.constants import GRS80_A_M, GRS80_INV_F, WGS84_A_M, WGS84_INV_F
from navsense.geo._arrays import as_float, require_finite, require_range, shaped
from navsense.kernels import kernel

__all__ = [
    "ECEF_ITERATIONS",
    "GRS80",
    "WGS84",
    "Ellipsoid",
    "ecef_to_geodetic",
    "geodetic_to_ecef",
]


@dataclass(frozen=True)
class Ellipsoid:
    """An ellipsoid of revolution given by its semi-major axis and inverse flattening.

    Derived quantities (all exact functions of ``a_m`` and ``inv_f``):
    f = 1/inv_f; e2 = 2f - f^2 (first eccentricity squared); ep2 = e2 / (1 - e2) (second);
    b_m = a (1 - f); n = f / (2 - f) (third flattening).
    """

    name: str
    a_m: float  # semi-major axis, m
    inv_f: float  # inverse flattening 1/f, dimensionless

    @property
    def f(self) -> float:
        """Flattening, dimensionless."""
        return 1.0 / self.inv_f

    @property
    def e2(self) -> float:
        """First eccentricity squared e^2 = 2f - f^2 (spec, "Inverse projection")."""
        f = self.f
        return 2.0 * f - f * f

    @property
    def ep2(self) -> float:
        """Second eccentricity squared e'^2 = e^2 / (1 - e^2) (spec, "Inverse projection")."""
        return self.e2 / (1.0 - self.e2)

    @property
    def b_m(self) -> float:
        """Semi-minor axis b = a (1 - f), m."""
        return self.a_m * (1.0 - self.f)

    @property
    def n(self) -> float:
        """Third flattening n = f / (2 - f) (spec, "UTM Projection")."""
        return self.f / (2.0 - self.f)


# GRS80: a = 6 378 137 m, 1/f = 298.257222101 (spec "Datum Chain", "Inverse projection";
# Moritz 1980, Geodetic Reference System 1980). Ellipsoid of NAD83(HARN) and NAD83(2011).
GRS80 = Ellipsoid("GRS80", GRS80_A_M, GRS80_INV_F)
# WGS84: a = 6 378 137 m, 1/f = 298.257223563 (spec "Datum Chain", "ECEF"; NGA.STND.0036).
# Ellipsoid of WGS84 (G2139) and of the UTM projection.
WGS84 = Ellipsoid("WGS84", WGS84_A_M, WGS84_INV_F)

# Number of latitude iterations of EcefToGeodetic (spec "Datum Chain", "ECEF": 8 iterations).
ECEF_ITERATIONS = 8


def geodetic_to_ecef(lat_deg, lon_deg, height_m, ellipsoid: Ellipsoid = WGS84):
    """Geodetic latitude, longitude and ellipsoidal height to ECEF X, Y, Z in metres.

    Spec "Datum Chain", "ECEF" (GeodeticToEcef)::

        N_e = a / sqrt(1 - e^2 sin^2 phi)
        X = (N_e + h) cos phi cos lambda
        Y = (N_e + h) cos phi sin lambda
        Z = (N_e (1 - e^2) + h) sin phi

    Raises DatumError for a latitude outside [-90, 90] deg or a non-finite value.
    Returns ``(x_m, y_m, z_m)`` with the broadcast shape of the inputs.
    """
    lat = as_float("latitude_deg", lat_deg)
    lon = as_float("longitude_deg", lon_deg)
    h = as_float("height_m", height_m)
    require_range("latitude_deg", lat, -90.0, 90.0, "deg")
    require_finite("longitude_deg", lon)
    require_finite("height_m", h)
    x, y, z = _geodetic_to_ecef(lat * _D2R, lon * _D2R, h, ellipsoid)
    return shaped(np.asarray(x)), shaped(np.asarray(y)), shaped(np.asarray(z))


def _geodetic_to_ecef(phi, lam, h, ell: Ellipsoid):
    """geodetic_to_ecef on radians without checks (the chain's hot path): sin and cos by numpy,
    the rest in :func:`_ecef_rows`."""
    phi, lam, h = (np.asarray(v, dtype=np.float64) for v in (phi, lam, h))
    shape = phi.shape
    if not (lam.shape == h.shape == shape):
        phi, lam, h = np.broadcast_arrays(phi, lam, h)
        shape = phi.shape
    k = phi.size
    trig = np.empty((4, k))
    np.sin(phi.reshape(-1), out=trig[0])
    np.cos(phi.reshape(-1), out=trig[1])
    np.sin(lam.reshape(-1), out=trig[2])
    np.cos(lam.reshape(-1), out=trig[3])
    out = np.empty((3, k))
    _ecef_rows(trig, np.ascontiguousarray(h).reshape(-1), _shape_row(ell), out)
    if len(shape) == 1:
        return out[0], out[1], out[2]
    return tuple(shaped(v.reshape(shape)) for v in out)


@functools.cache
def _shape_row(ell: Ellipsoid) -> np.ndarray:
    """(a, e^2) of an ellipsoid as the kernels take them."""
    return np.array([ell.a_m, ell.e2])


@kernel(2, 1, 1, 2)
def _ecef_rows(trig, h, ae, out):
    """geodetic -> ECEF on rows: trig (4, k) = sin phi, cos phi, sin lambda, cos lambda, h (k,),
    ae = (a, e^2) -> out (3, k) = X, Y, Z (spec "ECEF")::

        N_e = a / sqrt(1 - e^2 sin^2 phi),  X = (N_e + h) cos phi cos lambda,
        Y = (N_e + h) cos phi sin lambda,   Z = (N_e (1 - e^2) + h) sin phi"""
    a, e2 = ae[0], ae[1]
    sphi, cphi = trig[0], trig[1]
    ne = a / np.sqrt(1.0 - e2 * sphi * sphi)  # ECEF: N_e
    r = (ne + h) * cphi
    out[0] = r * trig[3]  # ECEF: X
    out[1] = r * trig[2]  # ECEF: Y
    out[2] = (ne * (1.0 - e2) + h) * sphi  # ECEF: Z


def ecef_to_geodetic(x_m, y_m, z_m, ellipsoid: Ellipsoid = WGS84):
    """ECEF X, Y, Z in metres to geodetic latitude, longitude (deg) and ellipsoidal height (m).

    Spec "Datum Chain", "ECEF" (EcefToGeodetic): 8 iterations of the latitude from
    phi = atan2(Z, p (1 - e^2)), with p = sqrt(X^2 + Y^2)::

        N_e = a / sqrt(1 - e^2 sin^2 phi)
        h   = p / cos phi - N_e
        phi <- atan2(Z, p (1 - e^2 N_e / (N_e + h)))

    Implementation notes (same iteration, numerically safer form):

    * sin phi and cos phi of each iterate are taken from the two arguments of its atan2
      (phi = atan2(Z, w) gives sin phi = Z / hypot(Z, w), cos phi = w / hypot(Z, w)), so the loop
      needs no trigonometric function; one atan2 gives the final latitude.
    * The height uses h = p cos phi + Z sin phi - a sqrt(1 - e^2 sin^2 phi), which equals
      p / cos phi - N_e at the solution but stays well conditioned at the poles (p / cos phi
      is 0/0 there). Away from the poles the two forms reach the same fixed point; after 8
      iterations they agree to better than 1e-9 m and 1e-14 deg for heights from -1 km to
      100 km (tests/geo/test_geo_ellipsoid.py compares the literal form).
    * The iteration stops for a point at an exact fixed point (see ``_ecef_to_geodetic``):
      the values of 8 full iterations at the cost of about 3.

    Returns ``(lat_deg, lon_deg, height_m)`` with the broadcast shape of the inputs.
    """
    x = as_float("x_m", x_m)
    y = as_float("y_m", y_m)
    z = as_float("z_m", z_m)
    for name, arr in (("x_m", x), ("y_m", y), ("z_m", z)):
        require_finite(name, arr)
    phi, lam, h = _ecef_to_geodetic(x, y, z, ellipsoid)
    return shaped(phi * _R2D), shaped(lam * _R2D), shaped(h)


def _ecef_update(p, z, zz, w, ae):
    """One EcefToGeodetic iteration on w = p (1 - e^2 N_e / (N_e + h)), phi = atan2(Z, w), of
    rows (k,) (:func:`_ecef_update_rows`); ae = (a, e^2)."""
    out = np.empty_like(w)
    _ecef_update_rows(p, z, zz, w, ae, out)
    return out


@kernel(1, 1, 1, 1, 1, 1)
def _ecef_update_rows(p, z, zz, w, ae, out):
    """One EcefToGeodetic iteration on rows: p, Z, Z^2, w (k,), ae = (a, e^2) -> out = w'.

    Only correctly rounded operations (+ - * / sqrt), so w' == w means an exact fixed point:
    later iterations would return the same bits.
    """
    a, e2 = ae[0], ae[1]
    r = np.sqrt(zz + w * w)
    s = z / r  # sin phi of the current iterate
    c = w / r  # cos phi of the current iterate
    root = np.sqrt(1.0 - e2 * s * s)
    ne = a / root  # ECEF: N_e
    h = p * c + z * s - a * root  # ECEF: h (= p / cos phi - N_e at the solution)
    out[:] = p * (1.0 - e2 * ne / (ne + h))  # ECEF: phi <- atan2(Z, p (1 - e^2 N_e / (N_e + h)))


@kernel(1, 1, 1, 1, 1, 1)
def _ecef_height_rows(p, z, zz, w, ae, out):
    """The height at the final iterate w, on rows: p, Z, Z^2, w (k,), ae = (a, e^2) -> out =
    h = p cos phi + Z sin phi - a sqrt(1 - e^2 sin^2 phi), sin phi = Z / r, cos phi = w / r,
    r = sqrt(Z^2 + w^2) (ecef_to_geodetic's notes)."""
    a, e2 = ae[0], ae[1]
    r = np.sqrt(zz + w * w)
    s = z / r
    c = w / r
    out[:] = p * c + z * s - a * np.sqrt(1.0 - e2 * s * s)  # height at the final latitude


def _ecef_final(x, y, z, p, zz, w, ae):
    """Latitude, longitude (rad) and height of the final iterate w (arrays of the points'
    shape)."""
    h = np.empty(w.shape)
    rows = (np.ascontiguousarray(v).reshape(-1) for v in (p, z, zz, w))
    _ecef_height_rows(*rows, ae, h.reshape(-1))
    return np.arctan2(z, w), np.arctan2(y, x), h


def _ecef_to_geodetic(x, y, z, ell: Ellipsoid):
    """ecef_to_geodetic returning radians, without checks (the chain's hot path)."""
    e2 = ell.e2
    ae = _shape_row(ell)
    if not (x.shape == y.shape == z.shape):
        x, y, z = np.broadcast_arrays(x, y, z)
    p = np.sqrt(x * x + y * y)  # ECEF: p
    w = p * (1.0 - e2)  # ECEF: first value, phi = atan2(Z, p (1 - e^2))
    zz = z * z
    # An element with w' == w is at an exact fixed point (see _ecef_update): it leaves the
    # working set, which gives the values of 8 full iterations (bit for bit, whatever the batch)
    # at the cost of about 3.
    shape = w.shape
    w = w.ravel()  # w is a fresh array: updated in place below
    idx = None  # None: all elements; else the indices still changing
    pw, zw, zzw, ww = p.ravel(), z.ravel(), zz.ravel(), w
    for _ in range(ECEF_ITERATIONS):
        wn = _ecef_update(pw, zw, zzw, ww, ae)
        moved = wn != ww
        if idx is None:
            w = wn
        else:
            w[idx] = wn
        n_moved = int(np.count_nonzero(moved))
        if n_moved == 0:
            break
        if 4 * n_moved < 3 * moved.size:  # compact the working set to the elements still moving
            keep = np.flatnonzero(moved)
            idx = keep if idx is None else idx[keep]
            pw, zw, zzw, ww = pw[keep], zw[keep], zzw[keep], wn[keep]
        else:
            ww = wn
    w = w.reshape(shape)
    return _ecef_final(x, y, z, p, zz, w, ae)
