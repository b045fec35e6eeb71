"""The EGM96 geoid (navsense.geo.geoid) against NGA's check values and PROJ's interpolation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from navsense.errors import DatumError
from navsense.geo.geoid import _grid, egm96_undulation_m

mm = 1e-3
cm = 1e-2

# NGA's published EGM96 check values (the test points distributed with its EGM96 geoid
# software): latitude, longitude (deg, east 0..360) and the geoid undulation of the
# spherical-harmonic model (m). The 15' grid interpolated bilinearly differs by a few centimetres.
NGA_CHECK = [
    (38.6281550, 269.7791550, -31.628),
    (-14.6212170, 305.0211140, -2.969),
    (46.8743190, 102.4487290, -43.575),
    (-23.6174460, 133.8747120, 15.871),
    (38.6254730, 359.9995000, 50.066),
    (-0.4667440, 0.0023000, 17.329),
]


@pytest.mark.parametrize("lat, lon, undulation", NGA_CHECK)
def test_nga_check_values(lat, lon, undulation):
    assert egm96_undulation_m(lat, lon) == pytest.approx(undulation, abs=6 * cm)
    # the same longitude written west of Greenwich
    assert egm96_undulation_m(lat, lon - 360.0) == pytest.approx(
        egm96_undulation_m(lat, lon), abs=1e-9
    )


def test_grid_nodes_are_the_published_values_and_the_poles_are_single_values():
    lat0, lon0, dlat, dlon, grid = _grid()
    assert (lat0, lon0, dlat, dlon) == (-90.0, -180.0, 0.25, 0.25)
    assert grid.shape == (721, 1441)
    # at a node the interpolation returns the node (rows south to north, columns from -180 E)
    assert egm96_undulation_m(-90.0 + 0.25 * 200, -180.0 + 0.25 * 300) == grid[200, 300]
    np.testing.assert_array_equal(grid[0], grid[0, 0])  # one value at each pole
    np.testing.assert_array_equal(grid[-1], grid[-1, 0])
    assert grid[-1, 0] == pytest.approx(13.606, abs=mm)  # EGM96 at the north pole
    assert grid[0, 0] == pytest.approx(-29.534, abs=mm)  # and at the south pole


def test_floats_and_arrays_give_the_same_bits():
    rng = np.random.default_rng(3)
    lat = np.r_[rng.uniform(-90, 90, 500), 90.0, -90.0, 0.0, 12.5]
    lon = np.r_[rng.uniform(-400, 400, 500), 180.0, -180.0, 359.999999, -1e-14]
    batch = egm96_undulation_m(lat, lon)
    one = [egm96_undulation_m(float(a), float(b)) for a, b in zip(lat, lon)]
    np.testing.assert_array_equal(batch, one)
    assert egm96_undulation_m(lat.reshape(2, -1), lon.reshape(2, -1)).shape == (2, 252)


def test_out_of_range_is_a_datum_error():
    with pytest.raises(DatumError, match=r"latitude_deg = 90.5 is out of range -90..90"):
        egm96_undulation_m(90.5, 0.0)
    with pytest.raises(DatumError, match="longitude_deg = nan"):
        egm96_undulation_m(np.array([1.0]), np.array([math.nan]))


def test_proj_interpolates_the_same_grid_the_same_way(tmp_path):
    """PROJ's vgridshift on the shipped grid written back as a GTX file (float32 metres): the
    same bilinear weights, the same wrap at the antimeridian and the same poles."""
    pyproj = pytest.importorskip("pyproj")
    lat0, lon0, dlat, dlon, grid = _grid()
    gtx = tmp_path / "egm96_15.gtx"
    header = np.array([lat0, lon0, dlat, dlon], ">f8").tobytes()
    header += np.array([grid.shape[0], grid.shape[1] - 1], ">i4").tobytes()
    gtx.write_bytes(header + grid[:, :-1].astype(">f4").tobytes())
    proj = pyproj.Transformer.from_pipeline(
        "+proj=pipeline +step +proj=unitconvert +xy_in=deg +xy_out=rad "
        f"+step +proj=vgridshift +grids={gtx} +multiplier=1 "
        "+step +proj=unitconvert +xy_in=rad +xy_out=deg"
    )
    rng = np.random.default_rng(7)
    lat = np.r_[rng.uniform(-90, 90, 20_000), 90.0, -90.0, 0.0, 0.0, 45.0, -33.9]
    lon = np.r_[rng.uniform(-180, 180, 20_000), 0.0, 0.0, 180.0, -180.0, 179.9, -179.99]
    _, _, undulation = proj.transform(lon, lat, np.zeros_like(lat))
    # float32 storage of the GTX: 4 um at 100 m
    np.testing.assert_allclose(egm96_undulation_m(lat, lon), undulation, rtol=0, atol=0.01 * mm)
