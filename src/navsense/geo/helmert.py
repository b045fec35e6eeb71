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

import functools
import math

import numpy as np

from navsense.config.typed.datum import HelmertParameters
from navsense.geo._arrays import as_float, require_finite, shaped
from navsense.kernels import kernel

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
    """:func:`at_epoch` without the conversion (floats or arrays): :func:`_at_epoch_rows`."""
    ep = np.asarray(epoch_yr, dtype=np.float64)
    out = np.empty((7,) + ep.shape)
    _at_epoch_rows(ep.reshape(-1), _parameter_row(p), out.reshape(7, -1))
    return [out[0], out[1], out[2]], [out[3], out[4], out[5]], out[6]


@functools.cache
def _parameter_row(p: HelmertParameters) -> np.ndarray:
    """The parameters as the kernels take them: T0 (3), Tdot (3), r0 (3), rdot (3), s0, sdot,
    t_ref."""
    return np.array(
        [*p.t_m, *p.dt_m_per_yr, *p.r_arcsec, *p.dr_arcsec_per_yr]
        + [p.s_ppm, p.ds_ppm_per_yr, p.reference_epoch]
    )


@kernel(1, 1, 2)
def _at_epoch_rows(epoch, q, out):
    """The parameters at the epochs, on rows: epoch (k,) decimal years, q (:func:`_parameter_row`)
    -> out (7, k) = T (m, 3 rows), r (rad, 3 rows, position-vector sign) and s (module
    docstring: T = T0 + Tdot delta, r = -(r0 + rdot delta) pi/648000, s = 1 + (s0 + sdot delta)
    1e-6, delta = t_y - t_ref)."""
    delta = epoch - q[14]
    for i in range(3):
        out[i] = q[i] + q[3 + i] * delta  # Helmert: T
        out[3 + i] = -(q[6 + i] + q[9 + i] * delta) * ARCSEC_TO_RAD  # Helmert: r
    out[6] = 1.0 + (q[12] + q[13] * delta) * 1e-6  # Helmert: s


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
    return _apply(_forward_rows, x, y, z, epoch_yr, params)


def _inverse(x, y, z, epoch_yr, params):
    """inverse() without checks on floats or arrays (the chain's hot path)."""
    return _apply(_inverse_rows, x, y, z, epoch_yr, params)


def _apply(rows_kernel, x, y, z, epoch_yr, params):
    """``rows_kernel`` (:func:`_forward_rows` or :func:`_inverse_rows`) on the points as rows
    with the parameters at their epochs (:func:`_at_epoch_rows`, one epoch or one per point);
    returns (x, y, z) of the broadcast shape."""
    x, y, z, ep = (np.asarray(v, dtype=np.float64) for v in (x, y, z, epoch_yr))
    shape = x.shape
    if not (y.shape == z.shape == shape and (ep.ndim == 0 or ep.shape == shape)):
        x, y, z, ep = np.broadcast_arrays(x, y, z, ep)
        shape = x.shape
    pts = [np.ascontiguousarray(v).reshape(-1) for v in (x, y, z)]
    te = np.empty((7, ep.size))
    _at_epoch_rows(np.ascontiguousarray(ep).reshape(-1), _parameter_row(params), te)
    out = np.empty((3, pts[0].shape[0]))
    rows_kernel(pts[0], pts[1], pts[2], te, out)
    return out[0].reshape(shape), out[1].reshape(shape), out[2].reshape(shape)


@kernel(1, 1, 1, 2, 2)
def _forward_rows(x, y, z, te, out):
    """Forward on rows: X_ITRF (x, y, z (k,)), the parameters at the epochs te (7, k or 1) ->
    out (3, k) = X_2011 = T + s M X_ITRF, M = [[1, -rz, ry], [rz, 1, -rx], [-ry, rx, 1]]."""
    tx, ty, tz, rx, ry, rz, s = te[0], te[1], te[2], te[3], te[4], te[5], te[6]
    out[0] = tx + s * (x - rz * y + ry * z)
    out[1] = ty + s * (rz * x + y - rx * z)
    out[2] = tz + s * (-ry * x + rx * y + z)


@kernel(1, 1, 1, 2, 2)
def _inverse_rows(x, y, z, te, out):
    """Inverse on rows: X_2011 (x, y, z (k,)), te (7, k or 1) -> out (3, k) = X_ITRF =
    (1/s) M^T (X_2011 - T), M^T = [[1, rz, -ry], [-rz, 1, rx], [ry, -rx, 1]]."""
    tx, ty, tz, rx, ry, rz, s = te[0], te[1], te[2], te[3], te[4], te[5], te[6]
    dx, dy, dz = x - tx, y - ty, z - tz  # X_2011 - T
    inv_s = 1.0 / s
    out[0] = inv_s * (dx + rz * dy - ry * dz)
    out[1] = inv_s * (-rz * dx + dy + rx * dz)
    out[2] = inv_s * (ry * dx - rx * dy + dz)
