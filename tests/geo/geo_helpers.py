"""Helpers of the geo tests: input shapes, physical tolerances, PROJ truth.

PROJ (through pyproj, a test-only dependency) is the external truth. Every PROJ operation is
built from a pipeline string here, with the same parameters as the specification, so a test
compares algorithms, not parameter sets.
"""

from __future__ import annotations

import numpy as np
import pytest

pyproj = pytest.importorskip("pyproj")
from pyproj import Transformer

from navsense.config.typed.datum import default_datum
from navsense.geo import helmert, stateplane
from navsense.geo.georef import ACRE_ORIGIN_FT

DEFAULT_DATUM = default_datum().to_dict()

# Tolerances in physical units (STYLE.md habit 5).
m = 1.0
mm = 1e-3
um = 1e-6
nm = 1e-9
deg = 1.0
arcsec = 1.0 / 3600.0

# Metres per degree, for turning angle differences into ground distances at mid latitudes
# (upper bounds: one degree of latitude is at most 111.7 km).
M_PER_DEG_LAT = 111_700.0


def lat_err_m(dlat_deg):
    """Ground distance (m) of a latitude difference (upper bound)."""
    return np.abs(np.asarray(dlat_deg)) * M_PER_DEG_LAT


def lon_err_m(dlon_deg, lat_deg):
    """Ground distance (m) of a longitude difference at a latitude (upper bound)."""
    return np.abs(np.asarray(dlon_deg)) * 111_700.0 * np.cos(np.radians(lat_deg))


# --------------------------------------------------------------------------- shapes
SHAPES = ("scalar", "0d", "1", "N")


def as_kind(values, kind):
    """The first value (scalar, 0-d) or the first one / all values of ``values`` as arrays."""
    v = np.asarray(values, dtype=np.float64)
    if kind == "scalar":
        return float(v.ravel()[0])
    if kind == "0d":
        return np.asarray(v.ravel()[0])
    if kind == "1":
        return v.ravel()[:1].copy()
    return v


def expected_shape(kind, n):
    return () if kind in ("scalar", "0d") else ((1,) if kind == "1" else (n,))


# --------------------------------------------------------------------------- PROJ truth
def proj(pipeline: str) -> Transformer:
    return Transformer.from_pipeline(pipeline)


def helmert_proj_string(p: helmert.HelmertParameters = helmert.ITRF2014_TO_NAD83_2011) -> str:
    """PROJ's +proj=helmert with the specification's 14 parameters, coordinate-frame convention."""
    return (
        f"+proj=helmert +x={p.t_m[0]!r} +y={p.t_m[1]!r} +z={p.t_m[2]!r} "
        f"+rx={p.r_arcsec[0]!r} +ry={p.r_arcsec[1]!r} +rz={p.r_arcsec[2]!r} +s={p.s_ppm!r} "
        f"+dx={p.dt_m_per_yr[0]!r} +dy={p.dt_m_per_yr[1]!r} +dz={p.dt_m_per_yr[2]!r} "
        f"+drx={p.dr_arcsec_per_yr[0]!r} +dry={p.dr_arcsec_per_yr[1]!r} +drz={p.dr_arcsec_per_yr[2]!r} "
        f"+ds={p.ds_ppm_per_yr!r} +t_epoch={p.reference_epoch!r} +convention=coordinate_frame"
    )


LON0_EXACT = "-87.083333333333333333"  # -(87 + 5/60), DESIGN.md ruling


def tmerc_2968(false_northing_m=250_000.0, lon0=LON0_EXACT, algo="poder_engsager") -> str:
    return (
        f"+proj=tmerc +lat_0=37.5 +lon_0={lon0} +k_0=0.999966667 +x_0=900000 "
        f"+y_0={false_northing_m!r} +ellps=GRS80 +algo={algo}"
    )


def chain_pipeline(to: str = "wgs84") -> str:
    """PROJ pipeline of the specification's chain: ENU grid metres (+ decimal-year t) -> to.

    Steps: affine (step 1 and step 4 heights: x = c_f E0 + e, y = c_f N0 + n,
    h = c_f Z0 + N0g + a_e e + a_n n + u), inverse tmerc (step 2), geogoffset (step 3), then for
    WGS84: cart GRS80, inverse Helmert (step 5), inverse cart WGS84 (step 6). Output lon, lat
    in degrees and height in metres.
    """
    cf = stateplane.US_SURVEY_FOOT_M
    e0, n0, z0 = ACRE_ORIGIN_FT
    g = DEFAULT_DATUM["geoid"]
    sh = DEFAULT_DATUM["harn_to_nad83_2011_shift_deg"]
    steps = [
        "+proj=pipeline",
        (
            f"+step +proj=affine +xoff={cf * e0!r} +yoff={cf * n0!r} +zoff={cf * z0 + g['n0_m']!r} "
            f"+s31={g['dn_de']!r} +s32={g['dn_dn']!r}"
        ),
        f"+step +inv {tmerc_2968()}",
    ]
    if to in ("nad83_2011", "wgs84"):
        steps.append(f"+step +proj=geogoffset +dlat={sh[0] * 3600.0!r} +dlon={sh[1] * 3600.0!r}")
    if to == "wgs84":
        steps += [
            "+step +proj=cart +ellps=GRS80",
            f"+step +inv {helmert_proj_string()}",
            "+step +inv +proj=cart +ellps=WGS84",
        ]
    steps.append("+step +proj=unitconvert +xy_in=rad +xy_out=deg")
    return " ".join(steps)
