"""The 14-parameter, time-dependent Helmert transformation ITRF2014 -> NAD83(2011).

Specification ("INS and GNSS", "Datum Chain", paragraph "Helmert transformation";
HelmertForward and HelmertInverse of AcresGnssModel.cpp). The parameters are those of
"ITRF2014 to NAD83(2011) (1)" (NGS HTDP; EPSG registry) in the coordinate-frame convention.
With the epoch t_y in decimal years and delta = t_y - t_ref::

    T = T0 + Tdot delta
    r = -(r0 + rdot delta) pi / 648 000            (arcsec -> rad; sign: coordinate frame ->
                                                     the position-vector matrix below)
    s = 1 + (s0 + sdot delta) 1e-6
    M = [[1, -r_z, r_y], [r_z, 1, -r_x], [-r_y, r_x, 1]]
    X_2011 = T + s M X_ITRF                                     (forward)
    X_ITRF = (1 / s) M^T (X_2011 - T)                           (inverse, as written)

Ruling (DESIGN.md, "Helmert inverse"): the inverse is the specification's formula, the same as
PROJ's ``+inv +proj=helmert`` with the linearised matrix. It is not an exact inverse of the
forward (M^T M = I + O(r^2)): a forward-inverse round trip moves a point by about 2e-7 m, which
is accepted.

WGS84 (G2139) is taken equal to ITRF2014 (spec, "Datum Chain" step 6).
"""

from __future__ import annotations

import math

import numpy as np

from navsense.config.typed.datum import HelmertParameters
from navsense.geo._arrays import as_float, require_finite, shaped

__all__ = [
    "ARCSEC_TO_RAD",
    "ITRF2014_TO_NAD83_2011",
    "HelmertParameters",
    "at_epoch",
    "forward",
    "inverse",
]

# pi / 648 000: one arcsecond in radians (spec, "Helmert transformation").
ARCSEC_TO_RAD = math.pi / 648_000.0


def at_epoch(params: HelmertParameters, epoch_yr):
    """T (m, 3 arrays), r (rad, 3 arrays, position-vector sign) and s at the epoch(s).

    Spec "Helmert transformation": T = T0 + Tdot delta; r = -(r0 + rdot delta) pi/648000;
    s = 1 + (s0 + sdot delta) 1e-6, with delta = t_y - t_ref.
    """
    return _at_epoch(params, np.asarray(epoch_yr, dtype=np.float64))


def _at_epoch(p: HelmertParameters, epoch_yr):
    """:func:`at_epoch` without the conversion (floats or arrays)."""
    delta = epoch_yr - p.reference_epoch
    t = [p.t_m[i] + p.dt_m_per_yr[i] * delta for i in range(3)]  # Helmert: T
    r = [
        -(p.r_arcsec[i] + p.dr_arcsec_per_yr[i] * delta) * ARCSEC_TO_RAD for i in range(3)
    ]  # Helmert: r
    s = 1.0 + (p.s_ppm + p.ds_ppm_per_yr * delta) * 1e-6  # Helmert: s
    return t, r, s


# "ITRF2014 to NAD83(2011) (1)", gnss.datum.helmert_itrf2014_to_nad83_2011 defaults of the
# specification (section "Parameters", GNSS receiver); NGS HTDP / EPSG registry values.
ITRF2014_TO_NAD83_2011 = HelmertParameters(
    t_m=(1.00530, -1.90921, -0.54157),  # m
    r_arcsec=(0.02678138, -0.00042027, 0.01093206),  # arcsec, coordinate frame
    s_ppm=0.00036891,  # ppm
    dt_m_per_yr=(0.00079, -0.00060, -0.00144),  # m/yr
    dr_arcsec_per_yr=(0.00006667, -0.00075744, -0.00005133),  # arcsec/yr
    ds_ppm_per_yr=-0.00007201,  # ppm/yr
    reference_epoch=2010.0,  # decimal year
)


def _check(x_m, y_m, z_m, epoch_yr):
    arrs = []
    for name, v in (("x_m", x_m), ("y_m", y_m), ("z_m", z_m), ("epoch_yr", epoch_yr)):
        a = as_float(name, v)
        require_finite(name, a)
        arrs.append(a)
    return arrs


def forward(x_m, y_m, z_m, epoch_yr, params: HelmertParameters = ITRF2014_TO_NAD83_2011):
    """X_target = T + s M X_source at the decimal-year epoch(s) (spec HelmertForward).

    For the default parameters: ITRF2014 = WGS84 (G2139) ECEF -> NAD83(2011) ECEF, metres.
    Inputs broadcast together (points and epochs); returns ``(x_m, y_m, z_m)``.
    """
    x, y, z, ep = _check(x_m, y_m, z_m, epoch_yr)
    return tuple(shaped(np.asarray(v)) for v in _forward(x, y, z, ep, params))


def inverse(x_m, y_m, z_m, epoch_yr, params: HelmertParameters = ITRF2014_TO_NAD83_2011):
    """X_source = (1/s) M^T (X_target - T) at the decimal-year epoch(s) (spec HelmertInverse).

    For the default parameters: NAD83(2011) ECEF -> ITRF2014 = WGS84 (G2139) ECEF, metres.
    Inputs broadcast together (points and epochs); returns ``(x_m, y_m, z_m)``.
    """
    x, y, z, ep = _check(x_m, y_m, z_m, epoch_yr)
    return tuple(shaped(np.asarray(v)) for v in _inverse(x, y, z, ep, params))


def _forward(x, y, z, epoch_yr, params):
    """forward() without checks on floats or arrays (the chain's hot path)."""
    (tx, ty, tz), (rx, ry, rz), s = _at_epoch(params, epoch_yr)
    # Helmert: X_2011 = T + s M X_ITRF, M = [[1, -rz, ry], [rz, 1, -rx], [-ry, rx, 1]]
    xo = tx + s * (x - rz * y + ry * z)
    yo = ty + s * (rz * x + y - rx * z)
    zo = tz + s * (-ry * x + rx * y + z)
    return xo, yo, zo


def _inverse(x, y, z, epoch_yr, params):
    """inverse() without checks on floats or arrays (the chain's hot path)."""
    (tx, ty, tz), (rx, ry, rz), s = _at_epoch(params, epoch_yr)
    dx, dy, dz = x - tx, y - ty, z - tz  # X_2011 - T
    inv_s = 1.0 / s
    # Helmert: X_ITRF = (1/s) M^T (X_2011 - T), M^T = [[1, rz, -ry], [-rz, 1, rx], [ry, -rx, 1]]
    xo = inv_s * (dx + rz * dy - ry * dz)
    yo = inv_s * (-rz * dx + dy + rx * dz)
    zo = inv_s * (ry * dx - rx * dy + dz)
    return xo, yo, zo
