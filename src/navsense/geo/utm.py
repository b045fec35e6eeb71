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

from navsense.errors import DatumError
from navsense.geo._arrays import as_float, require_finite, require_range, shaped, utm_zone_array
from navsense.geo.ellipsoid import WGS84

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
    _n / 2 - 2 * _n**2 / 3 + 5 * _n**3 / 16 + 41 * _n**4 / 180 - 127 * _n**5 / 288 + 7891 * _n**6 / 37800,
    13 * _n**2 / 48 - 3 * _n**3 / 5 + 557 * _n**4 / 1440 + 281 * _n**5 / 630 - 1983433 * _n**6 / 1935360,
    61 * _n**3 / 240 - 103 * _n**4 / 140 + 15061 * _n**5 / 26880 + 167603 * _n**6 / 181440,
    49561 * _n**4 / 161280 - 179 * _n**5 / 168 + 6601661 * _n**6 / 7257600,
    34729 * _n**5 / 80640 - 3418889 * _n**6 / 1995840,
    212378941 * _n**6 / 319334400,
)
# spec: beta_1 .. beta_6 (Karney 2011, eq. 36)
_BETA = (
    _n / 2 - 2 * _n**2 / 3 + 37 * _n**3 / 96 - _n**4 / 360 - 81 * _n**5 / 512 + 96199 * _n**6 / 604800,
    _n**2 / 48 + _n**3 / 15 - 437 * _n**4 / 1440 + 46 * _n**5 / 105 - 1118711 * _n**6 / 3870720,
    17 * _n**3 / 480 - 37 * _n**4 / 840 - 209 * _n**5 / 4480 + 5569 * _n**6 / 90720,
    4397 * _n**4 / 161280 - 11 * _n**5 / 504 - 830251 * _n**6 / 7257600,
    4583 * _n**5 / 161280 - 108847 * _n**6 / 3991680,
    20648693 * _n**6 / 638668800,
)
del _n


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


def _harmonics(xi, eta, coef):
    """Clenshaw sums S = sum_j c_j sin(2 j zeta) and its derivative dS/dzeta, zeta = xi + i eta.

    Returns (Re S, Im S, Re dS, Im dS) where, term by term,
    sin(2 j zeta) = sin(2 j xi) cosh(2 j eta) + i cos(2 j xi) sinh(2 j eta) and
    d/dzeta: 2 j c_j cos(2 j zeta) = 2 j c_j [cos(2 j xi) cosh(2 j eta) - i sin(2 j xi) sinh(2 j eta)].
    This is the spec's sum over j = 1..6 evaluated by the Clenshaw recurrence on complex
    numbers (Karney 2011, section 7), which needs one sin, cos, sinh and cosh per point.
    """
    s2 = np.sin(2.0 * xi)
    c2 = np.cos(2.0 * xi)
    sh2 = np.sinh(2.0 * eta)
    ch2 = np.cosh(2.0 * eta)
    # 2 cos(2 zeta) = 2 (c2 ch2 - i s2 sh2)
    ar = 2.0 * c2 * ch2
    ai = -2.0 * s2 * sh2
    # Clenshaw for sum c_j sin(2 j zeta): y_k = a y_{k+1} - y_{k+2} + c_k; S = y_1 sin(2 zeta)
    # and for the derivative sum 2 j c_j cos(2 j zeta): z_k = a z_{k+1} - z_{k+2} + 2 k c_k;
    # dS = z_1 cos(2 zeta) - z_2 ... handled by the standard form below.
    y0r = np.zeros_like(ar)
    y0i = np.zeros_like(ar)
    y1r = np.zeros_like(ar)
    y1i = np.zeros_like(ar)
    z0r = np.zeros_like(ar)
    z0i = np.zeros_like(ar)
    z1r = np.zeros_like(ar)
    z1i = np.zeros_like(ar)
    for j in range(6, 0, -1):
        c = coef[j - 1]
        # y_new = a * y0 - y1 + c ; z_new = a * z0 - z1 + 2 j c
        yr = ar * y0r - ai * y0i - y1r + c
        yi = ar * y0i + ai * y0r - y1i
        zr = ar * z0r - ai * z0i - z1r + 2.0 * j * c
        zi = ar * z0i + ai * z0r - z1i
        y1r, y1i, y0r, y0i = y0r, y0i, yr, yi
        z1r, z1i, z0r, z0i = z0r, z0i, zr, zi
    # sum_j c_j sin(2 j zeta) = y_1 sin(2 zeta)
    sin2r = s2 * ch2
    sin2i = c2 * sh2
    sr = y0r * sin2r - y0i * sin2i
    si = y0r * sin2i + y0i * sin2r
    # sum_j 2 j c_j cos(2 j zeta) = z_1 cos(2 zeta) - z_2
    cos2r = c2 * ch2
    cos2i = -s2 * sh2
    dr = z0r * cos2r - z0i * cos2i - z1r
    di = z0r * cos2i + z0i * cos2r - z1i
    return sr, si, dr, di


def _check_forward(lat, lon, zone):
    require_range("latitude_deg", lat, -90.0, 90.0, "deg")
    require_finite("longitude_deg", lon)
    lam_c = -183.0 + 6.0 * zone
    dlon = (lon - lam_c + 180.0) % 360.0 - 180.0
    bad = np.abs(dlon) > MAX_DLON_DEG
    if np.any(bad):
        i = int(np.flatnonzero(bad.ravel())[0])
        zi = int(np.broadcast_to(zone, bad.shape).ravel()[i])
        raise DatumError(
            f"longitude_deg = {float(np.broadcast_to(lon, bad.shape).ravel()[i])!r} is "
            f"{float(dlon.ravel()[i]):.6g} deg from the central meridian of UTM zone {zi}; "
            f"allowed: within {MAX_DLON_DEG} deg"
        )
    return np.radians(dlon)


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

    The sums are evaluated by Clenshaw's recurrence (see ``_harmonics``). gamma is computed in
    the equivalent form atan2(tau' sin lambda, sqrt(1 + tau'^2) cos lambda) so it stays defined
    at |lambda| = 90 deg. Returns ``(easting_m, northing_m, convergence_deg, scale)``.
    """
    lat = as_float("latitude_deg", lat_deg)
    lon = as_float("longitude_deg", lon_deg)
    z = utm_zone_array(zone)
    lat, lon, z = np.broadcast_arrays(lat, lon, z)
    lam = _check_forward(lat, lon, z)
    e, n, gam, k = _forward_rad(np.radians(lat), lam)
    if south:
        n = n + FALSE_NORTHING_SOUTH_M
    return shaped(e), shaped(n), shaped(np.degrees(gam)), shaped(k)


def _forward_rad(phi, lam):
    """forward() on radians (lambda from the central meridian), northern false northing."""
    tau = np.tan(phi)  # spec: tau = tan phi
    sec = np.sqrt(1.0 + tau * tau)  # sqrt(1 + tau^2)
    sig = np.sinh(_E * np.arctanh(_E * tau / sec))  # spec: sigma
    taup = tau * np.sqrt(1.0 + sig * sig) - sig * sec  # spec: tau'
    cl = np.cos(lam)
    sl = np.sin(lam)
    xip = np.arctan2(taup, cl)  # spec: xi'
    den = np.sqrt(taup * taup + cl * cl)
    etap = np.arcsinh(sl / den)  # spec: eta'
    sr, si, dr, di = _harmonics(xip, etap, _ALPHA)
    xi = xip + sr  # spec: xi
    eta = etap + si  # spec: eta
    easting = FALSE_EASTING_M + _K0A * eta  # spec: E = E0 + k0 A eta
    northing = _K0A * xi  # spec: N = k0 A xi
    p = 1.0 + dr  # spec: p
    q = -di  # spec: q
    gam = np.arctan2(taup * sl, np.sqrt(1.0 + taup * taup) * cl) + np.arctan2(q, p)  # spec: gamma
    sphi = np.sin(phi)
    k = (_K0A / _A) * np.hypot(p, q) * np.sqrt(1.0 - _E2 * sphi * sphi) * sec / den  # spec: k
    return easting, northing, gam, k


def _taupf(tau):
    """tau' of tau (spec forward: sigma and tau')."""
    sec = np.sqrt(1.0 + tau * tau)
    sig = np.sinh(_E * np.arctanh(_E * tau / sec))
    return tau * np.sqrt(1.0 + sig * sig) - sig * sec


def _tauf(taup):
    """tau from tau' by Newton (spec "UTM Projection", Inverse).

    First value tau = tau'; per element, stop after 6 iterations or once a step is below 1e-14::

        tau <- tau + (tau' - tau'_i) / sqrt(1 + tau'_i^2) * (1 + (1 - e^2) tau^2) / ((1 - e^2) sqrt(1 + tau^2))

    An element that has stopped is not updated again, so an array gives the same values as one
    call per element.
    """
    tau = taup.copy()
    active = np.ones(tau.shape, dtype=bool)
    for _ in range(TAU_ITERATIONS):
        taupi = _taupf(tau)  # spec: tau'_i
        step = (
            (taup - taupi) / np.sqrt(1.0 + taupi * taupi)
            * (1.0 + _E2M * tau * tau) / (_E2M * np.sqrt(1.0 + tau * tau))
        )  # spec: Newton step for tau
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
    e = as_float("easting_m", easting_m)
    n = as_float("northing_m", northing_m)
    z = utm_zone_array(zone)
    e, n, z = np.broadcast_arrays(e, n, z)
    require_finite("easting_m", e)
    require_finite("northing_m", n)
    n0 = FALSE_NORTHING_SOUTH_M if south else 0.0
    require_range("easting_m", e, FALSE_EASTING_M - MAX_DE_M, FALSE_EASTING_M + MAX_DE_M, "m")
    half = _K0A * math.pi / 2.0
    require_range("northing_m", n, n0 - half, n0 + half, "m")
    phi, lam = _inverse_rad(e, n - n0)
    lon = np.degrees(lam) + (-183.0 + 6.0 * z)
    lon = np.where(lon > 180.0, lon - 360.0, np.where(lon <= -180.0, lon + 360.0, lon))
    return shaped(np.degrees(phi)), shaped(lon)


def _inverse_rad(easting, northing):
    """inverse() core: (E, N north) -> (phi, lambda from the central meridian) in radians."""
    xi = northing / _K0A  # spec: xi = N / (k0 A)
    eta = (easting - FALSE_EASTING_M) / _K0A  # spec: eta = (E - E0) / (k0 A)
    sr, si, _, _ = _harmonics(xi, eta, _BETA)
    xip = xi - sr  # spec: xi'
    etap = eta - si  # spec: eta'
    she = np.sinh(etap)
    cxi = np.cos(xip)
    taup = np.sin(xip) / np.sqrt(she * she + cxi * cxi)  # spec: tau'
    lam = np.arctan2(she, cxi)  # spec: lambda
    tau = _tauf(taup)
    phi = np.arctan(tau)  # spec: phi = arctan tau
    return phi, lam


# source_to_target aliases (STYLE.md): the same functions.
geodetic_to_utm = forward
utm_to_geodetic = inverse
