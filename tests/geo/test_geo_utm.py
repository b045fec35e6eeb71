"""UTM (Krueger 6th order, Karney 2011) against PROJ and its own identities.

PROJ's ``+proj=utm`` uses the tmerc algorithm of proj.ini (``tmerc_default_algo``; pyproj's
bundled PROJ sets poder_engsager, the 6th-order Krueger-type series of Poder and Engsager).
The tests name ``+algo=poder_engsager`` explicitly so a different proj.ini cannot switch to
the approximate evenden_snyder series (which differs by up to 2.3 cm at 10 deg from the
central meridian).
"""

from __future__ import annotations

import numpy as np
import pytest

from geo.geo_helpers import as_kind, deg, expected_shape, lat_err_m, lon_err_m, nm, proj, um
from navsense.errors import DatumError
from navsense.geo import utm

UTM16 = "+proj=utm +zone=16 +ellps=WGS84 +algo=poder_engsager"


def _grid():
    """Latitudes 0..84 deg and longitudes up to 10 deg from the central meridian of zone 16."""
    lat = np.linspace(0.0, 84.0, 85)
    dlon = np.linspace(-10.0, 10.0, 41)
    la, dl = np.meshgrid(lat, dlon, indexing="ij")
    return la.ravel(), -87.0 + dl.ravel()


def test_forward_matches_proj_to_0_1_um():
    lat, lon = _grid()
    e, n, _, _ = utm.forward(lat, lon, 16)
    ep, np_ = proj(UTM16).transform(lon, lat)
    assert np.max(np.abs(e - ep)) < 0.1 * um
    assert np.max(np.abs(n - np_)) < 0.1 * um


def test_forward_matches_proj_default_utm():
    """The plain ``+proj=utm`` of this PROJ (default algorithm) gives the same numbers."""
    lat, lon = _grid()
    e, n, _, _ = utm.forward(lat, lon, 16)
    ep, np_ = proj("+proj=utm +zone=16 +ellps=WGS84").transform(lon, lat)
    assert np.max(np.hypot(e - ep, n - np_)) < 0.1 * um


def test_inverse_matches_proj_to_0_1_um():
    lat, lon = _grid()
    ep, np_ = proj(UTM16).transform(lon, lat)
    la, lo = utm.inverse(ep, np_, 16)
    lo_p, la_p = proj(UTM16).transform(ep, np_, direction="INVERSE")
    assert np.max(lat_err_m(la - la_p)) < 0.1 * um
    assert np.max(lon_err_m(lo - lo_p, la_p)) < 0.1 * um
    # and against the grid the points came from
    assert np.max(lat_err_m(la - lat)) < 0.1 * um
    assert np.max(lon_err_m(lo - lon, lat)) < 0.1 * um


def test_convergence_and_scale_match_proj_factors():
    """gamma to 1e-9 deg and k to 1e-10 against PROJ's get_factors.

    PROJ computes these factors by numerical differentiation; its own error is of the order of
    1e-10 (for instance k on the central meridian, exactly k0, comes out 7e-11 off), which is
    the measured difference here.
    """
    lat, lon = _grid()
    _, _, gam, k = utm.forward(lat, lon, 16)
    f = pyproj_factors(lon, lat)
    assert np.max(np.abs(gam - f.meridian_convergence)) < 1e-9 * deg
    assert np.max(np.abs(k - f.meridional_scale)) < 1e-10
    assert np.max(np.abs(k - f.parallel_scale)) < 1e-10


def pyproj_factors(lon, lat):
    from pyproj import Proj

    return Proj(UTM16).get_factors(lon, lat)


def test_identities_on_the_central_meridian_and_equator():
    lat = np.linspace(0.0, 84.0, 15)
    e, n, gam, k = utm.forward(lat, -87.0, 16)
    assert np.all(e == 500_000.0)
    assert np.max(np.abs(gam)) == 0.0
    assert np.max(np.abs(k - 0.9996)) < 1e-15
    e, n, gam, _ = utm.forward(0.0, np.linspace(-90, -84, 7), 16)
    assert np.max(np.abs(n)) < 1 * nm
    assert np.max(np.abs(gam)) < 1e-14
    # gamma is positive east of the central meridian (spec "Convergence and scale")
    assert utm.forward(40.0, -86.0, 16)[2] > 0 > utm.forward(40.0, -88.0, 16)[2]


def test_round_trip_closes_to_1e_8_m():
    lat, lon = _grid()
    e, n, _, _ = utm.forward(lat, lon, 16)
    la, lo = utm.inverse(e, n, 16)
    e2, n2, _, _ = utm.forward(la, lo, 16)
    assert np.max(np.hypot(e2 - e, n2 - n)) < 1e-8
    # over the tile, UTM -> geodetic -> UTM
    E, N = np.meshgrid(
        500_476.935 + np.linspace(-5e3, 5e3, 21), 4_480_099.755 + np.linspace(-5e3, 5e3, 21)
    )
    la, lo = utm.inverse(E, N, 16)
    e2, n2, _, _ = utm.forward(la, lo, 16)
    assert np.max(np.hypot(e2 - E, n2 - N)) < 1e-8


def test_southern_hemisphere_matches_proj():
    lat = np.linspace(-80.0, 0.0, 41)
    lon = np.linspace(141.0, 155.0, 41)  # zone 56, central meridian 153
    e, n, _, _ = utm.forward(lat, lon, 56, south=True)
    ep, np_ = proj("+proj=utm +zone=56 +south +ellps=WGS84 +algo=poder_engsager").transform(
        lon, lat
    )
    assert np.max(np.hypot(e - ep, n - np_)) < 0.1 * um
    la, lo = utm.inverse(e, n, 56, south=True)
    assert np.max(lat_err_m(la - lat)) < 0.1 * um
    assert np.max(lon_err_m(lo - lon, lat)) < 0.1 * um
    # the false northing is the only difference between the hemispheres
    e_north, n_north, _, _ = utm.forward(lat, lon, 56)
    assert np.array_equal(e, e_north)
    assert np.max(np.abs(n - n_north - 10_000_000.0)) < 2 * nm


def test_zone_array_and_longitude_wrap():
    lat = np.array([40.0, -10.0, 60.0])
    lon = np.array([-86.9, 179.9, 2.9])
    zone = np.array([16, 60, 31])
    e, n, _, _ = utm.forward(lat, lon, zone)
    for i in range(3):
        ei, ni, _, _ = utm.forward(lat[i], lon[i], int(zone[i]))
        assert e[i] == ei and n[i] == ni
    # zone 1 at the antimeridian: lon 179.9 is 3.1 deg west of -177 through 180
    e1, _, _, _ = utm.forward(0.0, 179.9, 1)
    assert e1 < 500_000.0
    _, lo = utm.inverse(e1, 0.0, 1)
    assert abs(lo - 179.9) < 1e-12
    assert utm.zone_of(-86.99) == 16 and utm.zone_of(180.0) == 1 and utm.zone_of(179.99) == 60
    assert utm.central_meridian_deg(16) == -87.0


def test_shapes(shape_kind):
    lat = np.array([40.4715765, 45.0, 10.0])
    lon = np.array([-86.9943737, -90.0, -80.0])
    out = utm.forward(as_kind(lat, shape_kind), as_kind(lon, shape_kind), 16)
    want = expected_shape(shape_kind, 3)
    for v in out:
        assert np.shape(v) == want
    ref = utm.forward(lat, lon, 16)
    for v, r in zip(out, ref):
        np.testing.assert_array_equal(np.ravel(v), r[: np.size(v)])
    la, lo = utm.inverse(as_kind(ref[0], shape_kind), as_kind(ref[1], shape_kind), 16)
    assert np.shape(la) == want and np.shape(lo) == want
    np.testing.assert_allclose(np.ravel(la), lat[: np.size(la)], rtol=0, atol=1e-12)


def test_batch_equals_single_calls():
    """Per-element Newton stopping: an array gives the values of one call per element."""
    rng = np.random.default_rng(3)
    lat = rng.uniform(0, 84, 50)
    lon = rng.uniform(-97, -77, 50)
    e, n, g, k = utm.forward(lat, lon, 16)
    la, lo = utm.inverse(e, n, 16)
    for i in range(0, 50, 7):
        assert utm.forward(lat[i], lon[i], 16) == (e[i], n[i], g[i], k[i])
        assert utm.inverse(e[i], n[i], 16) == (la[i], lo[i])


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: utm.forward(40.0, -87.0, 0), "zone must be an integer 1..60, got 0"),
        (lambda: utm.forward(40.0, -87.0, 61), "got 61"),
        (lambda: utm.forward(40.0, -87.0, 16.5), "got 16.5"),
        (lambda: utm.forward(40.0, -87.0, True), "zone"),
        (
            lambda: utm.forward(90.5, -87.0, 16),
            r"latitude_deg = 90.5 deg is outside .*\[-90.0, 90.0\]",
        ),
        (lambda: utm.forward(np.nan, -87.0, 16), "latitude_deg must be finite, got nan"),
        (lambda: utm.forward(40.0, np.inf, 16), "longitude_deg must be finite"),
        (lambda: utm.forward(40.0, 10.0, 16), "from the central meridian of UTM zone 16; all"),
        (  # a site at a pole: the latitude is the reason, not the longitude the user never gave
            lambda: utm.forward(89.99994, 179.95588, 31),
            r"UTM zone 31 at latitude_deg = 89.99994, beyond UTM's 80 S \.\. 84 N",
        ),
        (lambda: utm.inverse(9e6, 4e6, 16), "easting_m = 9000000.0 m"),
        (lambda: utm.inverse(5e5, 2.1e7, 16), "northing_m"),
        (lambda: utm.inverse(5e5, np.nan, 16), "northing_m must be finite"),
        (lambda: utm.forward("abc", -87.0, 16), "latitude_deg must be a number"),
    ],
)
def test_out_of_domain_raises_datum_error(call, match):
    with pytest.raises(DatumError, match=match):
        call()
