"""EPSG:2968 (NAD83(HARN) / Indiana West, ftUS): Snyder's inverse series against PROJ.

PROJ's tmerc (Poder/Engsager) is exact to nanometres; the specification's series is Snyder's
(truncated in e^8 and D^8), so the comparison measures the series' truncation: 2.9 um at most
within +-30 km of the tile origin (a nearly constant -2.2 um in latitude, from the e^8 terms of
the meridian distance).
"""

from __future__ import annotations

import numpy as np
import pytest

from geo.geo_helpers import (
    LON0_EXACT,
    as_kind,
    expected_shape,
    lat_err_m,
    lon_err_m,
    mm,
    nm,
    proj,
    tmerc_2968,
    um,
)
from navsense.errors import DatumError
from navsense.geo import stateplane as sp
from navsense.geo.georef import ACRE_ORIGIN_FT

CF = 1200.0 / 3937.0
X0 = CF * ACRE_ORIGIN_FT[0]  # projection metres of the tile origin
Y0 = CF * ACRE_ORIGIN_FT[1]


def _inverse_proj(x, y, **kw):
    t = proj(
        f"+proj=pipeline +step +inv {tmerc_2968(**kw)} +step +proj=unitconvert +xy_in=rad +xy_out=deg"
    )
    lon, lat = t.transform(x, y)
    return lat, lon


def _tile_grid(half_m=30_000.0, n=61):
    g = np.linspace(-half_m, half_m, n)
    x, y = np.meshgrid(X0 + g, Y0 + g)
    return x.ravel(), y.ravel()


def test_constants():
    assert sp.US_SURVEY_FOOT_M == 1200.0 / 3937.0
    assert sp.LON0_DEG == -(87.0 + 5.0 / 60.0)
    assert (sp.K0, sp.FALSE_EASTING_M, sp.FALSE_NORTHING_M, sp.LAT0_DEG) == (
        0.999966667,
        900_000.0,
        250_000.0,
        37.5,
    )
    # EPSG's false northing, 820 208.333 ftUS, is 0.1016 mm short of 250 000 m (spec caveat)
    assert abs((sp.FALSE_NORTHING_M - sp.EPSG_FALSE_NORTHING_M) - 0.1016 * mm) < 0.0001 * mm


def test_inverse_matches_proj_to_10_um_over_30_km():
    x, y = _tile_grid()
    lat, lon = sp.grid_m_to_geodetic(x, y)
    lat_p, lon_p = _inverse_proj(x, y)
    assert np.max(lat_err_m(lat - lat_p)) < 10 * um
    assert np.max(lon_err_m(lon - lon_p, lat_p)) < 10 * um
    # the measured figure, to notice a regression: 2.9 um
    assert np.max(np.hypot(lat_err_m(lat - lat_p), lon_err_m(lon - lon_p, lat_p))) < 3.5 * um


def test_epsg_false_northing_is_0_1_mm_off():
    """EPSG:2968 itself (820 208.333 ftUS) puts the same grid point 0.1016 mm further north."""
    from pyproj import Transformer

    x, y = _tile_grid(n=11)
    lat, lon = sp.grid_m_to_geodetic(x, y)
    # EPSG:2968 in ftUS -> its geographic CRS NAD83(HARN) (EPSG:4152), a pure inverse projection
    t = Transformer.from_crs("EPSG:2968", "EPSG:4152", always_xy=True)
    lon_e, lat_e = t.transform(x / CF, y / CF)
    # north offset in metres: one degree of latitude is M(phi) pi/180 ~ 111 030 m at 40.5 deg
    north_m = (lat_e - lat) * 111_030.0
    assert np.all(np.abs(north_m - 0.1016 * mm) < 0.01 * mm)
    assert np.max(lon_err_m(lon_e - lon, lat)) < 10 * um
    # with the code's 250 000 m the same PROJ projection agrees to the series' 3 um again
    lat_p, _ = _inverse_proj(x, y, false_northing_m=250_000.0)
    assert np.max(lat_err_m(lat_p - lat)) < 3.5 * um


def test_literal_central_meridian_would_move_points_0_28_m_east():
    """DESIGN.md ruling: lambda0 = -(87 + 5/60); the printed -87.08333 moves points 0.28 m."""
    x, y = _tile_grid(n=5)
    lat, lon = sp.grid_m_to_geodetic(x, y)
    _, lon_lit = _inverse_proj(x, y, lon0="-87.08333")
    east_m = (lon_lit - lon) * 111_320.0 * np.cos(np.radians(lat))
    assert np.all(np.abs(east_m - 0.283) < 0.002)


def test_forward_is_the_exact_inverse_of_the_series():
    x, y = _tile_grid(half_m=100_000.0, n=41)
    lat, lon = sp.grid_m_to_geodetic(x, y)
    x2, y2 = sp.geodetic_to_grid_m(lat, lon)
    # the floor is the float64 resolution of a latitude in degrees (7e-15 deg = 0.8 nm)
    assert np.max(np.hypot(x2 - x, y2 - y)) < 5 * nm
    lat3, lon3 = sp.grid_m_to_geodetic(x2, y2)
    assert np.max(np.abs(lat3 - lat)) < 3e-14 and np.max(np.abs(lon3 - lon)) < 3e-14  # a few ulp
    # and over the whole domain box, to 10 nm
    gx = np.linspace(-sp.MAX_DX_M, sp.MAX_DX_M, 21) + sp.FALSE_EASTING_M
    gy = np.linspace(-sp.MAX_DY_M, sp.MAX_DY_M, 21) + sp.FALSE_NORTHING_M
    x, y = (a.ravel() for a in np.meshgrid(gx, gy))
    lat, lon = sp.grid_m_to_geodetic(x, y)
    x2, y2 = sp.geodetic_to_grid_m(lat, lon)
    assert np.max(np.hypot(x2 - x, y2 - y)) < 10 * nm


def test_forward_matches_proj_to_10_um_over_30_km():
    x, y = _tile_grid(n=21)
    lat, lon = _inverse_proj(x, y)
    xs, ys = sp.geodetic_to_grid_m(lat, lon)
    assert np.max(np.hypot(xs - x, ys - y)) < 10 * um


def test_domain_box_accuracy_against_proj():
    """Inside the domain box the series stays within 0.7 mm of PROJ (module docstring)."""
    gx = np.linspace(-sp.MAX_DX_M, sp.MAX_DX_M, 41) + sp.FALSE_EASTING_M
    gy = np.linspace(-sp.MAX_DY_M, sp.MAX_DY_M, 41) + sp.FALSE_NORTHING_M
    x, y = (a.ravel() for a in np.meshgrid(gx, gy))
    lat, lon = sp.grid_m_to_geodetic(x, y)
    lat_p, lon_p = _inverse_proj(x, y)
    err = np.hypot(lat_err_m(lat - lat_p), lon_err_m(lon - lon_p, lat_p))
    assert np.max(err) < 0.7 * mm


def test_feet_functions_and_origin():
    e0, n0, _ = ACRE_ORIGIN_FT
    lat, lon = sp.inverse(e0, n0)
    lat_m, lon_m = sp.grid_m_to_geodetic(CF * e0, CF * n0)
    assert (lat, lon) == (lat_m, lon_m)
    # NAD83(HARN) of the tile origin: 40.47157654 N, 86.99437399 W (table value + HARN shift)
    assert abs(lat - 40.4715765428) < 1e-9 and abs(lon - -86.9943739924) < 1e-9
    e, n = sp.forward(lat, lon)
    assert abs(e - e0) < 1e-8 and abs(n - n0) < 1e-8  # ft


def test_shapes(shape_kind):
    x = X0 + np.array([0.0, 1000.0, -2500.0])
    y = Y0 + np.array([0.0, -700.0, 3000.0])
    lat, lon = sp.grid_m_to_geodetic(as_kind(x, shape_kind), as_kind(y, shape_kind))
    want = expected_shape(shape_kind, 3)
    assert np.shape(lat) == want and np.shape(lon) == want
    xs, ys = sp.geodetic_to_grid_m(lat, lon)
    assert np.shape(xs) == want and np.shape(ys) == want
    assert np.max(np.abs(np.ravel(xs) - x[: np.size(xs)])) < 1 * nm


@pytest.mark.parametrize(
    "call, match",
    [
        (
            lambda: sp.grid_m_to_geodetic(900_000.0 + 300_000.0, 250_000.0),
            "state-plane easting = 1200000.0 m",
        ),
        (lambda: sp.grid_m_to_geodetic(900_000.0, 250_000.0 - 2e6), "state-plane northing"),
        (lambda: sp.grid_m_to_geodetic(np.nan, 250_000.0), "must be finite, got nan"),
        (lambda: sp.inverse(np.inf, 0.0), "easting_ft must be finite"),
        (lambda: sp.geodetic_to_grid_m(40.0, -60.0), r"longitude_deg = -60.0 is outside"),
        (lambda: sp.geodetic_to_grid_m(91.0, -87.0), r"latitude_deg = 91.0 deg is outside"),
        (lambda: sp.geodetic_to_grid_m(60.0, -87.0), "outside the domain of EPSG:2968"),
        (lambda: sp.geodetic_to_grid_m(40.0, -90.5), "outside the domain of EPSG:2968"),
    ],
)
def test_out_of_domain_raises_datum_error(call, match):
    with pytest.raises(DatumError, match=match):
        call()


def test_exact_lon0_string_is_the_ruling():
    assert float(LON0_EXACT) == sp.LON0_DEG
