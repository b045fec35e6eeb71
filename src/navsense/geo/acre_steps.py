"""Steps 1, 3 and 4 of the ACRE datum chain as kernels over the points as rows (navsense.kernels).

Specification "INS and GNSS", section "Datum Chain" (Geodetic of AcresGnssModel.cpp), for an ENU
point (e, n, u) in metres (the chain as a whole: navsense.geo.georef)::

    1. E_g = E0 + e / c_f,  N_g = N0 + n / c_f;   x = c_f E_g,  y = c_f N_g      (US survey feet)
    2. NAD83(HARN) phi, lambda = EPSG:2968 inverse (x, y)                   (navsense.geo.stateplane)
    3. NAD83(2011) = HARN + harn_to_nad83_2011_shift_deg
    4. H_navd = c_f Z0 + u,  N_g = n0 + a_e e + a_n n,  h_2011 = H_navd + N_g

with (E0, N0, Z0) = ACRE_ORIGIN_FT (origin_source_ft of site.json). Each kernel is the arithmetic
of its steps as written, evaluated the same way for one point or a whole log (numpy's or
numba's: the same bits); one call does all of a step's values for all the points.
"""

from __future__ import annotations

import numpy as np

from navsense.constants import DEG_PER_RAD as _R2D  # np.degrees(x) is x * (180 / pi)
from navsense.errors import DatumError
from navsense.geo import stateplane as _sp
from navsense.kernels import kernel

__all__ = [
    "ACRE_ORIGIN_FT",
    "DATUM_ROWS",
    "datum_row",
    "grid_rows",
    "datum_rows",
    "in_domain",
    "check_enu",
]

# origin_source_ft of Acres/Content/Simulation/ACRE/site.json (spec "Datum Chain"):
# (E0, N0, Z0) = 2 977 500 ftUS, 1 902 500 ftUS (EPSG:2968 grid) and 705 ftUS (NAVD88).
ACRE_ORIGIN_FT = (2_977_500.0, 1_902_500.0, 705.0)
_CF = _sp.US_SURVEY_FOOT_M
_E0, _N0, _Z0 = ACRE_ORIGIN_FT
_H0_M = _CF * _Z0  # step 4: c_f Z0, m
_X0, _Y0 = _sp.FALSE_EASTING_M, _sp.FALSE_NORTHING_M
_DX, _DY = _sp.MAX_DX_M, _sp.MAX_DY_M
# the rows of datum_rows' output
DATUM_ROWS = ("lat_harn", "lon_harn", "lat_2011", "lon_2011", "h_2011", "h_navd", "n_geoid")


def datum_row(datum) -> np.ndarray:
    """The datum's values as datum_rows takes them: (shift lat, shift lon, n0, a_e, a_n);
    ``datum`` a navsense.config.typed.datum.DatumConfig."""
    return np.array(
        [
            datum.shift_lat_deg,
            datum.shift_lon_deg,
            datum.geoid_n0_m,
            datum.geoid_dn_de,
            datum.geoid_dn_dn,
        ]
    )


@kernel(1, 1, 2)
def grid_rows(e, n, out):
    """Step 1: e, n (k,) -> out (4, k) = x, y (projection metres, x = c_f (E0 + e / c_f),
    y = c_f (N0 + n / c_f)) and |x - x0| - dx_max, |y - y0| - dy_max (both <= 0 inside
    EPSG:2968's domain, :func:`in_domain`; the sign of a difference is exact)."""
    x, y = out[0], out[1]  # (each row written in place: out args)
    np.multiply(_CF, _E0 + e / _CF, x)
    np.multiply(_CF, _N0 + n / _CF, y)
    np.subtract(np.abs(x - _X0), _DX, out[2])
    np.subtract(np.abs(y - _Y0), _DY, out[3])


def in_domain(grid: np.ndarray) -> bool:
    """True when every point of :func:`grid_rows`' output lies in EPSG:2968's domain (False for
    a value not finite: NaN fails the test)."""
    return grid.shape[1] == 0 or bool(grid[2:4].max() <= 0.0)  # NaN: the max is NaN


@kernel(1, 1, 1, 1, 1, 1, 2)
def datum_rows(e, n, u, phi, lam, datum, out):
    """Steps 3 and 4 after step 2: e, n, u (k,), HARN phi, lambda (k,, rad) and
    :func:`datum_row` -> out (7, k), the rows of DATUM_ROWS: HARN latitude and longitude (deg),
    NAD83(2011) latitude and longitude (deg, + the shift), h_2011, H_navd and N_g (m)."""
    np.multiply(phi, _R2D, out[0])  # (each row written in place: out args)
    np.multiply(lam, _R2D, out[1])
    np.add(out[0], datum[0], out[2])  # step 3: + harn_to_nad83_2011_shift_deg
    np.add(out[1], datum[1], out[3])
    np.add(_H0_M, u, out[5])  # step 4: H_navd = c_f Z0 + u
    np.add(datum[2] + datum[3] * e, datum[4] * n, out[6])  # step 4: N_g = N0^g + a_e e + a_n n
    np.add(out[5], out[6], out[4])  # step 4: h_2011 = H_navd + N_g


def check_enu(e, n, x, y) -> None:
    """DatumError naming the ENU value when a point leaves the domain of EPSG:2968 (its
    domain in ENU: the grid's less the origin's grid coordinate, c_f E0 or c_f N0; the grid
    of a value near 1e308 overflows, so the offset is not read off the point)."""
    for name, v, p, c, origin in (
        ("enu east", e, x, _sp.FALSE_EASTING_M, _CF * _E0),
        ("enu north", n, y, _sp.FALSE_NORTHING_M, _CF * _N0),
    ):
        half = _sp.MAX_DX_M if name == "enu east" else _sp.MAX_DY_M
        bad = np.abs(p - c) > half
        if np.any(bad):
            i = int(np.flatnonzero(bad.ravel())[0])
            lo = c - half - origin
            raise DatumError(
                f"{name} = {float(v.ravel()[i])!r} m is outside the ACRE site's domain "
                f"[{lo:.1f}, {lo + 2 * half:.1f}] m (EPSG:2968 within {half / 1000:.0f} km of its "
                f"{'central meridian' if name == 'enu east' else 'false northing'})"
            )
