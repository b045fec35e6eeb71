"""UTM on WGS84: Krueger's series to sixth order in n (Karney 2011).

Specification ("INS and GNSS", section "UTM Projection"; GeographicToUtm and UtmToGeographic of
AcresGeoUtm.h). Ellipsoid WGS84, k0 = 0.9996, false easting E0 = 500 000 m, central meridian
lambda_c = -183 deg + 6 deg z for zone z. The specification covers the northern hemisphere
only; ``south=True`` adds the standard false northing of 10 000 000 m (issue 3, item 5).

Conventions: ``forward(lat_deg, lon_deg, zone)`` and ``inverse(easting_m, northing_m, zone)``
take numpy arrays or scalars (zone may be an array too) and return the broadcast shape.
The convergence gamma is grid north minus true north, positive east of the central meridian;
k is the point scale factor.

Domain (DatumError outside): latitude within [-90, 90] deg; longitude within 35 deg of the
zone's central meridian (Karney 2011: the 6th-order series is accurate to 5 nm within
3 900 km of the central meridian); for the inverse, |E - E0| <= 4 000 km and
|N - false northing| <= k0 A pi/2 = 9 997 964 m (the pole). Zones are integers 1..60.
"""

from __future__ import annotations

import math

import numpy as np

from navsense.constants import DEG as _D2R  # np.radians(x) is x * (pi / 180): the same bits
from navsense.constants import DEG_PER_RAD as _R2D  # np.degrees(x) is x * (180 / pi)
from navsense.errors import DatumError
from navsense.geo._arrays import (
    as_float,
    require_finite,
    require_range,
    shaped,
    utm_zone_array,
    zone_int,
)
from navsense.geo.ellipsoid import WGS84
from navsense.kernels import kernel
from navsense.rotation import wrap_degrees

__all__ = [
    "FALSE_EASTING_M",
    "FALSE_NORTHING_SOUTH_M",
    "K0",
    "central_meridian_deg",
    "forward",
    "geodetic_to_utm",
    "inverse",
    "utm_to_geodetic",
    "zone_of",
]

K0 = 0.9996  # scale on the central meridian (spec "UTM Projection")
FALSE_EASTING_M = 500_000.0  # E0, m (spec "UTM Projection")
FALSE_NORTHING_SOUTH_M = 10_000_000.0  # southern hemisphere false northing, m (UTM standard)
MAX_DLON_DEG = 35.0  # domain: |lambda - lambda_c|, deg
MAX_DE_M = 4_000_000.0  # domain of the inverse: |E - E0|, m
TAU_ITERATIONS = 6  # spec: "The loop stops after 6 iterations ..."
TAU_STEP_TOL = 1e-14  # spec: "... or at a step below 1e-14"

_ELL = WGS84
_A = _ELL.a_m
_F = _ELL.f
_N = _F / (2.0 - _F)  # spec: n = f / (2 - f)
_E2 = _F * (2.0 - _F)
_E = math.sqrt(_E2)  # spec: e = sqrt(f (2 - f))
_E2M = 1.0 - _E2
# spec: A = a / (1 + n) (1 + n^2/4 + n^4/64 + n^6/256)
_RA = _A / (1.0 + _N) * (1.0 + _N**2 / 4.0 + _N**4 / 64.0 + _N**6 / 256.0)
_K0A = K0 * _RA

_n = _N
# spec: alpha_1 .. alpha_6 (Karney 2011, eq. 35)
_ALPHA = (
    _n / 2
    - 2 * _n**2 / 3
    + 5 * _n**3 / 16
    + 41 * _n**4 / 180
    - 127 * _n**5 / 288
    + 7891 * _n**6 / 37800,
    13 * _n**2 / 48
    - 3 * _n**3 / 5
    + 557 * _n**4 / 1440
    + 281 * _n**5 / 630
    - 1983433 * _n**6 / 1935360,
    61 * _n**3 / 240 - 103 * _n**4 / 140 + 15061 * _n**5 / 26880 + 167603 * _n**6 / 181440,
    49561 * _n**4 / 161280 - 179 * _n**5 / 168 + 6601661 * _n**6 / 7257600,
    34729 * _n**5 / 80640 - 3418889 * _n**6 / 1995840,
    212378941 * _n**6 / 319334400,
)
# spec: beta_1 .. beta_6 (Karney 2011, eq. 36)
_BETA = (
    _n / 2
    - 2 * _n**2 / 3
    + 37 * _n**3 / 96
    - _n**4 / 360
    - 81 * _n**5 / 512
    + 96199 * _n**6 / 604800,
    _n**2 / 48 + _n**3 / 15 - 437 * _n**4 / 1440 + 46 * _n**5 / 105 - 1118711 * _n**6 / 3870720,
    17 * _n**3 / 480 - 37 * _n**4 / 840 - 209 * _n**5 / 4480 + 5569 * _n**6 / 90720,
    4397 * _n**4 / 161280 - 11 * _n**5 / 504 - 830251 * _n**6 / 7257600,
    4583 * _n**5 / 161280 - 108847 * _n**6 / 3991680,
    20648693 * _n**6 / 638668800,
)
del _n
# Clenshaw coefficients of the derivative sums: 2 j alpha_j (spec: p and q)
_ALPHA_D = tuple(2.0 * j * c for j, c in enumerate(_ALPHA, start=1))
# the coefficients as arrays, as the Clenshaw kernel takes them (the same float64 values)
_ALPHA_A, _BETA_A, _ALPHA_D_A = (np.array(c, dtype=np.float64) for c in (_ALPHA, _BETA, _ALPHA_D))
_K0A_A = _K0A / _A  # k0 A / a
_A1, _A2, _A3, _A4, _A5, _A6 = _ALPHA  # as _zeta_sums reads them (the same float64 values)


def central_meridian_deg(zone):
    """Central meridian lambda_c = -183 deg + 6 deg z of UTM zone z (spec "UTM Projection")."""
    z = utm_zone_array(zone)
    return shaped((-183.0 + 6.0 * z).astype(np.float64))


def zone_of(lon_deg):
    """The standard UTM zone floor((lon + 180) / 6) + 1 of a longitude (no Norway/Svalbard rules)."""
    lon = as_float("longitude_deg", lon_deg)
    require_finite("longitude_deg", lon)
    wrapped = (lon + 180.0) % 360.0
    z = np.floor(wrapped / 6.0).astype(np.int64) + 1
    z = np.minimum(z, 60)
    return z[()] if z.ndim == 0 else z


# --------------------------------------------------------------------------- kernels


def _clenshaw(ar, ai, coef):
    """Clenshaw's recurrence y_k = A y_{k+1} - y_{k+2} + c_k (k = 6 .. 1) for a complex A.

    ``A = ar + i ai`` is 2 cos(2 zeta); returns (y_1, y_2) as (re, im, re, im). Then
    sum_j c_j sin(2 j zeta) = y_1 sin(2 zeta) and sum_j c_j cos(2 j zeta) = y_1 cos(2 zeta) - y_2
    (Karney 2011, section 7). ``coef``: one of the module's coefficient arrays (6,). One kernel
    (navsense.kernels) over the points as rows, numpy's or compiled: the same bits.
    """
    ar = np.asarray(ar, dtype=np.float64)
    ai = np.asarray(ai, dtype=np.float64)
    if ar.shape != ai.shape:
        ar, ai = np.broadcast_arrays(ar, ai)
    out = np.empty((4,) + ar.shape)
    _clenshaw_rows(ar.reshape(-1), ai.reshape(-1), coef, out.reshape(4, -1))
    return out[0], out[1], out[2], out[3]


@kernel(1, 1, 1, 2)
def _clenshaw_rows(ar, ai, coef, out):
    """_clenshaw on rows: ar, ai (n,), coef (6,) -> out (4, n) = (y_1 re, im, y_2 re, im).

    The first two steps start from y_7 = y_8 = 0 and are written out (y_6 = c_6 is real)."""
    c6 = coef[5]
    y5r = ar * c6 + coef[4]  # y_5 = A c_6 + c_5
    y5i = ai * c6
    y4r = ar * y5r - ai * y5i + (coef[3] - c6)  # y_4 = A y_5 - y_6 + c_4
    y4i = ar * y5i + ai * y5r
    y3r = ar * y4r - ai * y4i - y5r + coef[2]  # y_3 = A y_4 - y_5 + c_3
    y3i = ar * y4i + ai * y4r - y5i
    y2r = ar * y3r - ai * y3i - y4r + coef[1]  # y_2 = A y_3 - y_4 + c_2
    y2i = ar * y3i + ai * y3r - y4i
    out[0] = ar * y2r - ai * y2i - y3r + coef[0]  # y_1 = A y_2 - y_3 + c_1
    out[1] = ar * y2i + ai * y2r - y3i
    out[2] = y2r
    out[3] = y2i


def _forward_rad(phi, lam, factors: bool = True):
    """forward() on radians (lambda from the central meridian), northern false northing.

    Arrays, no checks. Returns (E, N, gamma_rad, k), or (E, N) when ``factors`` is false (gamma
    and k then cost nothing; E and N are the same bits).

    The harmonic sums need sin, cos of 2 xi' and sinh, cosh of 2 eta'. They come from the
    quantities the spec's formulas already hold, with no further transcendental function:
    xi' = atan2(tau', cos lambda) and sinh eta' = sin lambda / sqrt(tau'^2 + cos^2 lambda) give,
    with D^2 = tau'^2 + cos^2 lambda (so cosh eta' = sqrt(1 + tau'^2) / D)::

        sin 2xi'  = 2 tau' cos lambda / D^2,      cos 2xi'  = (cos^2 lambda - tau'^2) / D^2
        sinh 2eta' = 2 sin lambda sqrt(1 + tau'^2) / D^2,   cosh 2eta' = 1 + 2 sin^2 lambda / D^2

    and k uses sqrt(1 - e^2 sin^2 phi) sqrt(1 + tau^2) = sqrt(1 + (1 - e^2) tau^2).

    The arithmetic between the transcendental functions runs in kernels over the points as rows
    (navsense.kernels: :func:`_sigma_argument`, :func:`_zeta_sums` (the zeta terms and the
    Clenshaw sum of alpha_j), :func:`_easting_northing`; one call each for all the points; cos
    and sin of lambda in _zeta_sums, numpy's bits either way); tan, atanh, sinh, atan2 and asinh
    stay numpy's.
    """
    phi = np.asarray(phi, dtype=np.float64)
    shape = phi.shape
    lam = np.asarray(lam, dtype=np.float64)
    if lam.shape != shape:
        lam = np.broadcast_to(lam, shape)
    if phi.ndim != 1:  # as rows
        phi, lam = phi.reshape(-1), lam.reshape(-1)
    n = phi.shape[0]
    w = np.empty((_FW_ROWS, n))  # the kernels' rows (_FW_ROWS)
    tau = np.tan(phi, w[_TAU])  # spec: tau = tan phi
    w[_LAM] = lam
    _sigma_argument(w)
    sig = np.arctanh(w[1], w[_SIG])
    np.multiply(_E, sig, sig)
    np.sinh(sig, sig)  # spec: sigma
    _zeta_sums(w)
    taup, ar, ai, cl, sl = w[2], w[8], w[9], w[10], w[11]
    np.arctan2(taup, cl, w[_XIP])  # spec: xi'
    np.arcsinh(w[3], w[_ETAP])  # spec: eta' = asinh(sin lambda / D)
    en = np.empty((2, n))
    _easting_northing(w, en)
    easting, northing = (
        (en[0], en[1]) if len(shape) == 1 else (en[0].reshape(shape), en[1].reshape(shape))
    )
    if not factors:
        return easting, northing
    den, secp = w[4], w[5]
    gam1 = np.arctan2(taup * sl, secp * cl)  # spec: gamma, first term
    kk = np.sqrt(1.0 + _E2M * (tau * tau)) / den  # spec: k without (k0 A / a) sqrt(p^2 + q^2)
    # spec: p = 1 + sum 2j alpha_j cos(2j xi') cosh(2j eta'), q = sum 2j alpha_j sin(2j xi') sinh(2j eta'):
    # 1 + sum 2 j alpha_j cos(2 j zeta) = p - i q, and sum d_j cos(2 j zeta) = z_1 cos(2 zeta) - z_2
    z1r, z1i, z2r, z2i = _clenshaw(ar, ai, _ALPHA_D_A)
    cos2r = 0.5 * ar  # cos(2 zeta) (exact: halving)
    cos2i = 0.5 * ai
    p = 1.0 + (z1r * cos2r - z1i * cos2i - z2r)  # spec: p
    q = -(z1r * cos2i + z1i * cos2r - z2i)  # spec: q
    gam = gam1 + np.arctan2(q, p)  # spec: gamma
    k = _K0A_A * np.sqrt(p * p + q * q) * kk  # spec: k
    return easting, northing, gam.reshape(shape), k.reshape(shape)


# _forward_rad's work rows (n,) each: _sigma_argument's 0-1, _zeta_sums' 2-15 (Clenshaw's y in
# 12-15), then tau, sigma, lambda, xi' and eta' (its numpy functions' rows)
_TAU, _SIG, _LAM, _XIP, _ETAP = 16, 17, 18, 19, 20
_FW_ROWS = 21


@kernel(2)
def _sigma_argument(w):
    """_forward_rad before atanh, on rows: w[16] = tau (n,) -> w[0] = sqrt(1 + tau^2) and
    w[1] = e tau / sqrt(1 + tau^2) (spec: sigma = sinh(e atanh(e tau / sqrt(1 + tau^2))))."""
    tau = w[_TAU]
    np.sqrt(1.0 + tau * tau, w[0])  # sqrt(1 + tau^2) (each row written in place: out args)
    np.divide(_E * tau, w[0], w[1])


@kernel(2, libm=True)
def _zeta_sums(w):
    """_forward_rad from sigma through the Clenshaw sum of alpha_j (its docstring's
    identities), on rows: tau, sigma, lambda (n,) in w[16], w[17], w[18] and w[0] =
    sqrt(1 + tau^2) -> w[2..9] = tau', sin lambda / D, D, sqrt(1 + tau'^2), sin(2 zeta) (re,
    im), 2 cos(2 zeta) (re, im), with zeta = xi' + i eta' and D^2 = tau'^2 + cos^2 lambda;
    w[10], w[11] = cos lambda, sin lambda (``libm``: numpy's bits, navsense.kernels); w[12..15]
    = y, :func:`_clenshaw_rows` of A = 2 cos(2 zeta) and alpha_j, its operations written out in
    their order (one kernel where there were two; tests/geo/test_utm.py compares them bit for
    bit)::

        xi = xi' + sum alpha_j sin(2j xi') cosh(2j eta'),  eta = eta' + sum alpha_j cos(2j xi') sinh(2j eta')

    are the real and imaginary parts of sum alpha_j sin(2 j zeta) = y_1 sin(2 zeta)."""
    tau, sig, lam, y = w[_TAU], w[_SIG], w[_LAM], w[12:16]
    cl, sl = w[10], w[11]  # (each row written in place: out args)
    np.cos(lam, cl)
    np.sin(lam, sl)
    taup, den, secp = w[2], w[4], w[5]
    np.subtract(tau * np.sqrt(1.0 + sig * sig), sig * w[0], taup)  # spec: tau'
    taup2 = taup * taup
    cl2 = cl * cl
    np.sqrt(taup2 + cl2, den)
    inv = 1.0 / (taup2 + cl2)
    np.sqrt(1.0 + taup2, secp)  # sqrt(1 + tau'^2)
    s2 = 2.0 * taup * cl * inv  # sin 2xi'
    c2 = (cl2 - taup2) * inv  # cos 2xi'
    sh2 = 2.0 * sl * secp * inv  # sinh 2eta'
    ch2 = 1.0 + 2.0 * sl * sl * inv  # cosh 2eta'
    np.divide(sl, den, w[3])  # sinh eta'
    # sin(2 zeta) = s2 ch2 + i c2 sh2, cos(2 zeta) = c2 ch2 - i s2 sh2
    np.multiply(s2, ch2, w[6])
    np.multiply(c2, sh2, w[7])
    np.multiply(2.0, c2 * ch2, w[8])  # 2 cos(2 zeta): real part
    np.multiply(-2.0, s2 * sh2, w[9])  # and imaginary part
    ar, ai = w[8], w[9]  # _clenshaw_rows(ar, ai, _ALPHA_A, y), written out
    c6 = _A6
    y5r = ar * c6 + _A5  # y_5 = A c_6 + c_5 (c_j = alpha_j)
    y5i = ai * c6
    y4r = ar * y5r - ai * y5i + (_A4 - c6)  # y_4 = A y_5 - y_6 + c_4
    y4i = ar * y5i + ai * y5r
    y3r = ar * y4r - ai * y4i - y5r + _A3  # y_3 = A y_4 - y_5 + c_3
    y3i = ar * y4i + ai * y4r - y5i
    y2r = ar * y3r - ai * y3i - y4r + _A2  # y_2 = A y_3 - y_4 + c_2
    y2i = ar * y3i + ai * y3r - y4i
    y[0] = ar * y2r - ai * y2i - y3r + _A1  # y_1 = A y_2 - y_3 + c_1
    y[1] = ar * y2i + ai * y2r - y3i
    y[2] = y2r
    y[3] = y2i


@kernel(2, 2)
def _easting_northing(w, out):
    """_forward_rad's E and N, on rows: the work rows w (sin(2 zeta) in w[6], w[7], Clenshaw's
    y_1 in w[12], w[13], xi', eta' in w[19], w[20]) -> out (2, n) = (E, N), northern false
    northing::

        N = k0 A (xi' + Re(y_1 sin 2 zeta)),   E = E0 + k0 A (eta' + Im(y_1 sin 2 zeta))"""
    y1r, y1i, sin2r, sin2i = w[12], w[13], w[6], w[7]
    np.multiply(_K0A, w[_XIP] + (y1r * sin2r - y1i * sin2i), out[1])  # spec: N = k0 A xi
    np.add(
        FALSE_EASTING_M, _K0A * (w[_ETAP] + (y1r * sin2i + y1i * sin2r)), out[0]
    )  # E = E0 + k0 A eta


def _dlon_error(lat, lon, dlon, zone):
    """The point too far from the zone's meridian; near a pole (beyond UTM's 80 S .. 84 N) the
    reason is the latitude: there a few metres span every longitude (a site at 90 deg was
    refused naming a longitude the user never gave)."""
    polar = (
        f" at latitude_deg = {float(lat):.9g}, beyond UTM's 80 S .. 84 N, where a few metres "
        "span every longitude"
        if abs(float(lat)) > 84.0
        else ""
    )
    raise DatumError(
        f"longitude_deg = {float(lon)!r} is {float(dlon):.6g} deg from the central meridian of "
        f"UTM zone {int(zone)}{polar}; allowed: within {MAX_DLON_DEG} deg"
    )


def _forward_arrays(
    lat: np.ndarray, lon: np.ndarray, zone, factors: bool = True, check_lat: bool = True
):
    """forward() of arrays (zone an int or an int64 array): the domain checks, then the kernel.
    ``check_lat=False`` skips the latitude check (latitudes from the datum chain)."""
    if not (lat.shape == lon.shape and (type(zone) is int or zone.shape == lat.shape)):
        lat, lon, zone = np.broadcast_arrays(lat, lon, zone)
    if check_lat:
        require_range("latitude_deg", lat, -90.0, 90.0, "deg")
    dlon = lon - (-183.0 + 6.0 * zone)  # lambda - lambda_c, deg
    # else all finite (a NaN makes the max NaN), in the domain, no wrap needed
    if not (dlon.size == 0 or np.abs(dlon).max() <= MAX_DLON_DEG):
        require_finite("longitude_deg", lon)
        big = np.abs(dlon) > 180.0
        if big.any():  # wrap into [-180, 180) only where needed (no rounding elsewhere)
            dlon = np.where(big, wrap_degrees(dlon), dlon)
        bad = ~(np.abs(dlon) <= MAX_DLON_DEG)
        if bad.any():
            i = int(np.flatnonzero(bad.ravel())[0])
            zone_i = np.broadcast_to(zone, bad.shape).ravel()[i]
            _dlon_error(lat.ravel()[i], lon.ravel()[i], dlon.ravel()[i], zone_i)
    return _forward_rad(lat * _D2R, dlon * _D2R, factors)


def forward(lat_deg, lon_deg, zone, south: bool = False):
    """Geodetic latitude, longitude (deg, WGS84 ellipsoid) -> UTM E, N (m), gamma (deg), k.

    Spec "UTM Projection", Forward (GeographicToUtm), with tau = tan phi and lambda measured from
    lambda_c::

        sigma = sinh(e atanh(e tau / sqrt(1 + tau^2)))
        tau'  = tau sqrt(1 + sigma^2) - sigma sqrt(1 + tau^2)
        xi'   = atan2(tau', cos lambda),  eta' = asinh(sin lambda / sqrt(tau'^2 + cos^2 lambda))
        xi    = xi'  + sum_{j=1..6} alpha_j sin(2j xi') cosh(2j eta')
        eta   = eta' + sum_{j=1..6} alpha_j cos(2j xi') sinh(2j eta')
        E = E0 + k0 A eta,  N = k0 A xi (+ 10 000 000 m when south)
        p = 1 + sum 2j alpha_j cos(2j xi') cosh(2j eta'),  q = sum 2j alpha_j sin(2j xi') sinh(2j eta')
        gamma = atan(tau' / sqrt(1 + tau'^2) tan lambda) + atan2(q, p)
        k = (k0 A / a) sqrt(p^2 + q^2) sqrt(1 - e^2 sin^2 phi) sqrt(1 + tau^2) / sqrt(tau'^2 + cos^2 lambda)

    The sums are evaluated by Clenshaw's recurrence (``_clenshaw``) on sin, cos, sinh and cosh
    of 2 xi' and 2 eta' found algebraically (``_forward_rad``). gamma is computed in the
    equivalent form atan2(tau' sin lambda, sqrt(1 + tau'^2) cos lambda) so it stays defined
    at |lambda| = 90 deg. lambda - lambda_c is wrapped into [-180, 180) only when it is outside
    (no rounding of in-range values). Returns ``(easting_m, northing_m, convergence_deg, scale)``.
    """
    lat = as_float("latitude_deg", lat_deg)
    lon = as_float("longitude_deg", lon_deg)
    z = zone_int(zone)
    e, n, gam, k = _forward_arrays(lat, lon, z)
    if south:
        n += FALSE_NORTHING_SOUTH_M  # n, gam: fresh arrays of the kernel
    gam *= _R2D
    return shaped(e), shaped(n), shaped(gam), shaped(k)


def _taupf(tau):
    """tau' of tau (spec forward: sigma and tau')."""
    sec = np.sqrt(1.0 + tau * tau)
    sig = np.sinh(_E * np.arctanh(_E * tau / sec))
    return tau * np.sqrt(1.0 + sig * sig) - sig * sec


def _tau_step(tau, taup):
    """One Newton step for tau (spec "UTM Projection", Inverse)."""
    taupi = _taupf(tau)  # spec: tau'_i
    return (
        (taup - taupi)
        / np.sqrt(1.0 + taupi * taupi)
        * (1.0 + _E2M * tau * tau)
        / (_E2M * np.sqrt(1.0 + tau * tau))
    )  # spec: Newton step for tau


def _tauf(taup):
    """tau from tau' by Newton (spec "UTM Projection", Inverse), on an array.

    First value tau = tau'; per element, stop after 6 iterations or once a step is below 1e-14::

        tau <- tau + (tau' - tau'_i) / sqrt(1 + tau'_i^2) * (1 + (1 - e^2) tau^2) / ((1 - e^2) sqrt(1 + tau^2))

    An element that has stopped is not updated again, so its value does not depend on the other
    elements of the array.
    """
    tau = taup.copy()
    active = np.ones(tau.shape, dtype=bool)
    for _ in range(TAU_ITERATIONS):
        step = _tau_step(tau, taup)
        tau = np.where(active, tau + step, tau)
        active &= ~(np.abs(step) < TAU_STEP_TOL)
        if not active.any():
            break
    return tau


def inverse(easting_m, northing_m, zone, south: bool = False):
    """UTM E, N (m) -> geodetic latitude, longitude (deg, WGS84 ellipsoid).

    Spec "UTM Projection", Inverse (UtmToGeographic)::

        xi = N / (k0 A),  eta = (E - E0) / (k0 A)       (N without the southern false northing)
        xi'  = xi  - sum_{j=1..6} beta_j sin(2j xi) cosh(2j eta)
        eta' = eta - sum_{j=1..6} beta_j cos(2j xi) sinh(2j eta)
        tau' = sin xi' / sqrt(sinh^2 eta' + cos^2 xi'),  lambda = atan2(sinh eta', cos xi')
        tau from tau' by Newton (see ``_tauf``),  phi = atan tau

    Returns ``(lat_deg, lon_deg)``, longitude within (-180, 180].
    """
    n0 = FALSE_NORTHING_SOUTH_M if south else 0.0
    half = _K0A * math.pi / 2.0
    e = as_float("easting_m", easting_m)
    n = as_float("northing_m", northing_m)
    z = utm_zone_array(zone)
    e, n, z = np.broadcast_arrays(e, n, z)
    require_finite("easting_m", e)
    require_finite("northing_m", n)
    require_range("easting_m", e, FALSE_EASTING_M - MAX_DE_M, FALSE_EASTING_M + MAX_DE_M, "m")
    require_range("northing_m", n, n0 - half, n0 + half, "m")
    phi, lam = _inverse_rad(e, n - n0)
    lon = lam * _R2D + (-183.0 + 6.0 * z)
    lon = np.where(lon > 180.0, lon - 360.0, np.where(lon <= -180.0, lon + 360.0, lon))
    return shaped(np.asarray(phi * _R2D)), shaped(np.asarray(lon))


def _inverse_rad(easting, northing):
    """inverse() core: (E, N north) -> (phi, lambda from the central meridian) in radians.

    sin, cos of 2 xi come from
    t = tan xi (|xi| <= pi/2 on the domain): 2t / (1 + t^2), (1 - t^2) / (1 + t^2); sinh, cosh
    of 2 eta from one sinh and one cosh of eta; sin xi', cos xi' from tan xi'
    (cos xi' = 1 / sqrt(1 + tan^2 xi') >= 0).
    """
    xi = northing / _K0A  # spec: xi = N / (k0 A)
    eta = (easting - FALSE_EASTING_M) / _K0A  # spec: eta = (E - E0) / (k0 A)
    t = np.tan(xi)
    t2 = t * t
    inv = 1.0 / (1.0 + t2)
    s2 = 2.0 * t * inv  # sin 2xi
    c2 = (1.0 - t2) * inv  # cos 2xi
    sh1 = np.sinh(eta)
    ch1 = np.cosh(eta)
    sh2 = 2.0 * sh1 * ch1  # sinh 2eta
    ch2 = 1.0 + 2.0 * sh1 * sh1  # cosh 2eta
    sin2r = s2 * ch2
    sin2i = c2 * sh2
    ar = 2.0 * (c2 * ch2)
    ai = -2.0 * (s2 * sh2)
    y1r, y1i, _, _ = _clenshaw(ar, ai, _BETA_A)
    xip = xi - (y1r * sin2r - y1i * sin2i)  # spec: xi'
    etap = eta - (y1r * sin2i + y1i * sin2r)  # spec: eta'
    she = np.sinh(etap)
    tp = np.tan(xip)
    cxi = 1.0 / np.sqrt(1.0 + tp * tp)  # cos xi'
    taup = (
        tp * cxi / np.sqrt(she * she + cxi * cxi)
    )  # spec: tau' = sin xi' / sqrt(sinh^2 eta' + cos^2 xi')
    lam = np.arctan2(she, cxi)  # spec: lambda
    tau = _tauf(taup)
    phi = np.arctan(tau)  # spec: phi = arctan tau
    return phi, lam


# source_to_target aliases (STYLE.md): the same functions.
geodetic_to_utm = forward
utm_to_geodetic = inverse
