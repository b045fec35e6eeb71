"""The site's datum chain: the specification's tables and caveats, PROJ pipelines, round trips.

Figures of the specification reproduced here (spec value -> computed value):

origin table ("UTM Projection", NAD83(2011) of the tile origin, zone 16)
    latitude 40.4715765 N      -> 40.471576535 (rounds to the table)
    longitude 86.9943737 W     -> 86.994373750 (rounds to the table, 0.2e-8 deg from the edge)
    easting 500 476.935 m      -> 500 476.93502 m
    northing 4 480 099.755 m   -> 4 480 099.75478 m (0.23 mm below the printed value,
                                  inside its last digit's rounding)
    convergence 0.00365 deg    -> 0.0036518 deg
    scale 0.99960000           -> 0.9996000028
    grid rotation 0.0541 deg   -> 0.054089 deg (INS section: "0.054 deg")
caveats ("Georeference Caveats", at t = 0, epoch 2026.7277 ~ 2026.73)
    NAD83(2011) vs WGS84 1.30 m -> 1.302 m (ground; 1.302 m in UTM)
    0.97 m west                 -> 0.969 m
    0.87 m north                -> 0.870 m
    WGS84 height 1.13 m lower   -> 1.129 m
    HARN vs 2011 2.1 cm         -> 2.06 cm
limitations ("grid north differs from true north by 0.058 deg at the origin") -> 0.0577 deg
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from geo.geo_helpers import (
    as_kind,
    chain_pipeline,
    expected_shape,
    lat_err_m,
    lon_err_m,
    mm,
    nm,
    proj,
    um,
)
from navsense.config.typed.datum import datum_config
from navsense.errors import ConfigError, DatumError
from navsense.geo import Georeference, utm
from navsense.geo.ellipsoid import GRS80, WGS84
from navsense.geo.georef import OUTPUT_KEYS

DEFAULT_DATUM = datum_config(None).to_dict()

ORIGIN = np.zeros(3)


@pytest.fixture(scope="module")
def acre():
    return Georeference.acre()


def _radii(lat_deg, ell=GRS80):
    """Meridian radius M and normal radius N (m) at a latitude."""
    phi = math.radians(lat_deg)
    w = math.sqrt(1.0 - ell.e2 * math.sin(phi) ** 2)
    return ell.a_m * (1.0 - ell.e2) / w**3, ell.a_m / w


def _ground_en(lat1, lon1, lat2, lon2, ell=GRS80):
    """East and north ground distance (m) from point 1 to point 2 (small differences)."""
    m, n = _radii(float(lat1), ell)
    north = math.radians(float(lat2) - float(lat1)) * m
    east = math.radians(float(lon2) - float(lon1)) * n * math.cos(math.radians(float(lat1)))
    return east, north


def _tile_points(n=400, seed=7, half_m=3000.0):
    rng = np.random.default_rng(seed)
    enu = np.column_stack(
        [rng.uniform(-half_m, half_m, n), rng.uniform(-half_m, half_m, n), rng.uniform(-30, 60, n)]
    )
    t = rng.uniform(0.0, 400 * 86_400.0, n)  # times across more than a year (crosses New Year)
    return enu, t


# --------------------------------------------------------------------------- spec tables
def test_origin_table(acre):
    g = acre.enu_to_geodetic(ORIGIN, 0.0)
    lat, lon = float(g["nad83_2011_lat_deg"]), float(g["nad83_2011_lon_deg"])
    # printed to 7 decimals: within half a unit of the last digit
    assert abs(lat - 40.4715765) <= 0.5e-7
    assert abs(lon - -86.9943737) <= 0.5e-7
    e, n, gam, k = utm.forward(lat, lon, 16)
    assert abs(e - 500_476.935) <= 0.5 * mm
    assert abs(n - 4_480_099.755) <= 0.5 * mm
    assert abs(gam - 0.00365) <= 0.5e-5
    assert abs(k - 0.99960000) <= 0.5e-8
    assert abs(acre.grid_rotation_deg(ORIGIN, 0.0, 16) - 0.0541) <= 0.5e-4
    # the measured values, to notice a regression
    assert abs(e - 500_476.935020) < 1 * um and abs(n - 4_480_099.754775) < 1 * um


def test_origin_table_utm_agrees_with_pyproj(acre):
    """ "An independent implementation and pyproj give the same easting and northing to less
    than 0.001 mm" - here to a few nanometres."""
    g = acre.enu_to_geodetic(ORIGIN, 0.0)
    lat, lon = float(g["nad83_2011_lat_deg"]), float(g["nad83_2011_lon_deg"])
    e, n, _, _ = utm.forward(lat, lon, 16)
    ep, np_ = proj("+proj=utm +zone=16 +ellps=WGS84 +algo=poder_engsager").transform(lon, lat)
    assert math.hypot(e - ep, n - np_) < 0.001 * mm


def test_caveat_nad83_2011_vs_wgs84(acre):
    """1.30 m on the tile at epoch 2026.73: 0.97 m west, 0.87 m north, WGS84 height 1.13 m lower."""
    assert round(float(acre.decimal_year(0.0)), 2) == 2026.73
    g = acre.enu_to_geodetic(ORIGIN, 0.0)
    east, north = _ground_en(
        g["nad83_2011_lat_deg"], g["nad83_2011_lon_deg"], g["wgs84_lat_deg"], g["wgs84_lon_deg"]
    )
    assert round(-east, 2) == 0.97  # west
    assert round(north, 2) == 0.87
    assert round(math.hypot(east, north), 2) == 1.30
    assert round(float(g["nad83_2011_height_m"] - g["wgs84_height_m"]), 2) == 1.13
    # in UTM (what a tool converting a fix to the grid sees) the figures are the same
    e1, n1, _, _ = utm.forward(g["nad83_2011_lat_deg"], g["nad83_2011_lon_deg"], 16)
    e2, n2, _, _ = utm.forward(g["wgs84_lat_deg"], g["wgs84_lon_deg"], 16)
    assert round(float(e1 - e2), 2) == 0.97 and round(float(n2 - n1), 2) == 0.87
    assert round(float(math.hypot(e2 - e1, n2 - n1)), 2) == 1.30


def test_caveat_harn_vs_2011(acre):
    """ "The difference is 2.1 cm": computed 2.06 cm (2.06 cm east, -0.09 cm north)."""
    g = acre.enu_to_geodetic(ORIGIN, 0.0)
    east, north = _ground_en(
        g["nad83_harn_lat_deg"],
        g["nad83_harn_lon_deg"],
        g["nad83_2011_lat_deg"],
        g["nad83_2011_lon_deg"],
    )
    assert round(math.hypot(east, north) * 100.0, 1) == 2.1
    assert abs(math.hypot(east, north) - 0.0206) < 0.0001


def test_grid_north_vs_true_north(acre):
    """Limitations: "The grid north differs from the true north by 0.058 deg at the origin"."""
    g = acre.enu_to_geodetic(np.array([[0.0, 0.0, 0.0], [0.0, 10.0, 0.0]]), 0.0)
    east, north = _ground_en(
        g["nad83_harn_lat_deg"][0],
        g["nad83_harn_lon_deg"][0],
        g["nad83_harn_lat_deg"][1],
        g["nad83_harn_lon_deg"][1],
    )
    azimuth = math.degrees(math.atan2(east, north))
    assert round(azimuth, 3) == 0.058


def test_origin_heights(acre):
    g = acre.enu_to_geodetic(ORIGIN, 0.0)
    cf = 1200.0 / 3937.0
    assert g["navd88_height_m"] == cf * 705.0  # step 4: c_f Z0
    assert g["geoid_undulation_m"] == DEFAULT_DATUM["geoid"]["n0_m"]
    assert g["nad83_2011_height_m"] == cf * 705.0 + DEFAULT_DATUM["geoid"]["n0_m"]


# --------------------------------------------------------------------------- PROJ pipelines
def test_full_chain_matches_proj_pipeline_to_20_um(acre):
    enu, t = _tile_points()
    g = acre.enu_to_geodetic(enu, t)
    lon_p, lat_p, h_p, _ = proj(chain_pipeline("wgs84")).transform(
        enu[:, 0], enu[:, 1], enu[:, 2], acre.decimal_year(t)
    )
    assert np.max(lat_err_m(g["wgs84_lat_deg"] - lat_p)) < 20 * um
    assert np.max(lon_err_m(g["wgs84_lon_deg"] - lon_p, lat_p)) < 20 * um
    assert np.max(np.abs(g["wgs84_height_m"] - h_p)) < 20 * um
    # NAD83(2011) and HARN stages of the same pipeline
    lon_p, lat_p, h_p = proj(chain_pipeline("nad83_2011")).transform(
        enu[:, 0], enu[:, 1], enu[:, 2]
    )
    assert np.max(lat_err_m(g["nad83_2011_lat_deg"] - lat_p)) < 20 * um
    assert np.max(lon_err_m(g["nad83_2011_lon_deg"] - lon_p, lat_p)) < 20 * um
    assert np.max(np.abs(g["nad83_2011_height_m"] - h_p)) < 1 * nm
    lon_p, lat_p, _ = proj(chain_pipeline("nad83_harn")).transform(enu[:, 0], enu[:, 1], enu[:, 2])
    assert np.max(lat_err_m(g["nad83_harn_lat_deg"] - lat_p)) < 20 * um


@pytest.mark.parametrize("frame, stage", [("nad83_2011", "nad83_2011"), ("wgs84_g2139", "wgs84")])
def test_grid_rotation_matches_proj_to_5e_8_deg(acre, frame, stage):
    enu, t = _tile_points(100)
    alpha = acre.grid_rotation_deg(enu, t, 16, frame=frame)
    p2 = enu + np.array([0.0, 10.0, 0.0])
    tr = proj(chain_pipeline(stage))
    u = proj("+proj=utm +zone=16 +ellps=WGS84 +algo=poder_engsager")
    ep = acre.decimal_year(t)
    lo1, la1, *_ = tr.transform(enu[:, 0], enu[:, 1], enu[:, 2], ep)
    lo2, la2, *_ = tr.transform(p2[:, 0], p2[:, 1], p2[:, 2], ep)
    e1, n1 = u.transform(lo1, la1)
    e2, n2 = u.transform(lo2, la2)
    alpha_p = np.degrees(np.arctan2(e2 - e1, n2 - n1))
    assert np.max(np.abs(alpha - alpha_p)) < 5e-8


# --------------------------------------------------------------------------- round trips
@pytest.mark.parametrize(
    "frame, prefix",
    [("wgs84_g2139", "wgs84"), ("nad83_2011", "nad83_2011"), ("nad83_harn", "nad83_harn")],
)
def test_round_trip_enu_geodetic_enu_1_um(acre, frame, prefix):
    enu, t = _tile_points()
    g = acre.enu_to_geodetic(enu, t)
    h = g["wgs84_height_m"] if prefix == "wgs84" else g["nad83_2011_height_m"]
    back = acre.geodetic_to_enu(g[f"{prefix}_lat_deg"], g[f"{prefix}_lon_deg"], h, t, frame)
    assert back.shape == enu.shape
    assert np.max(np.abs(back - enu)) < 1 * um


def test_round_trip_geodetic_enu_geodetic(acre):
    lat = 40.4715844 + np.linspace(-0.02, 0.02, 11)
    lon = -86.9943852 + np.linspace(-0.02, 0.02, 11)
    enu = acre.geodetic_to_enu(lat, lon, 180.0, 1000.0, "wgs84_g2139")
    g = acre.enu_to_geodetic(enu, 1000.0)
    assert np.max(lat_err_m(g["wgs84_lat_deg"] - lat)) < 1 * um
    assert np.max(lon_err_m(g["wgs84_lon_deg"] - lon, lat)) < 1 * um
    assert np.max(np.abs(g["wgs84_height_m"] - 180.0)) < 1 * um


# --------------------------------------------------------------------------- shapes, batches
def test_output_keys_and_shapes(acre):
    enu, t = _tile_points(5)
    cases = [
        (enu[0], 0.0, ()),
        (enu[0], np.asarray(5.0), ()),
        (enu, 0.0, (5,)),
        (enu, t, (5,)),
        (enu[0], t, (5,)),  # one point at five times
        (enu[:1], t[:1], (1,)),
        (enu.reshape(5, 1, 3), t.reshape(1, 5), (5, 5)),
    ]
    for e, tt, shape in cases:
        g = acre.enu_to_geodetic(e, tt)
        assert tuple(g) == OUTPUT_KEYS
        for v in g.values():
            assert np.shape(v) == shape and np.asarray(v).dtype == np.float64


def test_numeric_inputs_in_every_shape(acre, shape_kind):
    enu, t = _tile_points(3)
    ref = acre.enu_to_geodetic(enu, t)
    lat = as_kind(ref["wgs84_lat_deg"], shape_kind)
    lon = as_kind(ref["wgs84_lon_deg"], shape_kind)
    h = as_kind(ref["wgs84_height_m"], shape_kind)
    tt = as_kind(t, shape_kind)
    back = acre.geodetic_to_enu(lat, lon, h, tt, "wgs84_g2139")
    want = expected_shape(shape_kind, 3)
    assert back.shape == want + (3,)
    assert np.max(np.abs(back.reshape(-1, 3) - enu[: back.reshape(-1, 3).shape[0]])) < 1 * um
    alpha = acre.grid_rotation_deg(back, tt, 16)
    assert np.shape(alpha) == want
    assert np.shape(acre.decimal_year(tt)) == want


def test_batch_equals_chunks_equals_single_calls(acre):
    """Batch = chunks = steps (CONTRACTS.md): bit-identical values however the points are cut.

    Holds because every operation is elementwise (the ECEF iteration drops an element only at
    an exact fixed point); it also relies on numpy's ufuncs giving an element the same bits in
    a long and in a one-element array, which this test checks on the machine it runs on.
    """
    enu, t = _tile_points(60)
    g = acre.enu_to_geodetic(enu, t)
    chunks = [acre.enu_to_geodetic(enu[i : i + 7], t[i : i + 7]) for i in range(0, 60, 7)]
    for k in OUTPUT_KEYS:
        np.testing.assert_array_equal(np.concatenate([c[k] for c in chunks]), g[k])
    alpha = acre.grid_rotation_deg(enu, t, 16)
    back = acre.geodetic_to_enu(
        g["wgs84_lat_deg"], g["wgs84_lon_deg"], g["wgs84_height_m"], t, "wgs84_g2139"
    )
    for i in range(0, 60, 6):
        gi = acre.enu_to_geodetic(enu[i], t[i])
        for k in OUTPUT_KEYS:
            assert float(gi[k]) == float(g[k][i])
        assert float(acre.grid_rotation_deg(enu[i], t[i], 16)) == float(alpha[i])
        bi = acre.geodetic_to_enu(
            g["wgs84_lat_deg"][i],
            g["wgs84_lon_deg"][i],
            g["wgs84_height_m"][i],
            t[i],
            "wgs84_g2139",
        )
        np.testing.assert_array_equal(bi, back[i])


def test_site_position_for_the_constellation(acre):
    lat, lon, h = acre.site_wgs84_lat_lon_h()
    g = acre.enu_to_geodetic(ORIGIN, 0.0)
    assert (lat, lon, h) == (
        float(g["wgs84_lat_deg"]),
        float(g["wgs84_lon_deg"]),
        float(g["wgs84_height_m"]),
    )
    assert all(isinstance(v, float) for v in (lat, lon, h))
    assert abs(lat - 40.4715844) < 1e-7 and abs(lon - -86.9943852) < 1e-7 and abs(h - 180.13) < 0.01


def test_time_dependence_is_the_helmert_rate(acre):
    """A year moves the WGS84 position of a fixed grid point by the Helmert rates: 1.7 cm/yr.

    The rotation rates (North American plate motion in ITRF2014, up to 0.00076 arcsec/yr)
    dominate; a one-day epoch error would thus move a point by 47 um.
    """
    g0 = acre.enu_to_geodetic(ORIGIN, 0.0)
    g1 = acre.enu_to_geodetic(ORIGIN, 365.0 * 86_400.0)
    east, north = _ground_en(
        g0["wgs84_lat_deg"], g0["wgs84_lon_deg"], g1["wgs84_lat_deg"], g1["wgs84_lon_deg"]
    )
    assert abs(math.hypot(east, north) - 0.0172) < 0.5 * mm
    assert g0["nad83_2011_lat_deg"] == g1["nad83_2011_lat_deg"]


# --------------------------------------------------------------------------- affine map
def test_affine_grid_utm_map(acre):
    aff = acre.affine_grid_utm(16)
    assert aff.rotation_deg == acre.grid_rotation_deg(ORIGIN, 0.0, 16)
    assert abs((1.0 - aff.scale) * 1000.0 - 0.367) < 0.001  # 0.37 m per km without the scale
    for half, limit in (
        (1000.0, 0.2 * mm),
        (2000.0, 0.75 * mm),
        (3000.0, 1.7 * mm),
        (5000.0, 4.5 * mm),
    ):
        q = np.linspace(-half, half, 21)
        e, n = (a.ravel() for a in np.meshgrid(q, q))
        enu = np.column_stack([e, n, np.zeros_like(e)])
        ec, nc, _, _ = acre.enu_to_utm(enu, 0.0, 16)
        ea, na = aff.grid_to_utm(e, n)
        assert np.max(np.hypot(ec - ea, nc - na)) < limit
    eb, nb = aff.utm_to_grid(*aff.grid_to_utm(123.4, -567.8))
    assert abs(eb - 123.4) < 1 * nm and abs(nb - -567.8) < 1 * nm


# --------------------------------------------------------------------------- datum dict
def test_datum_dict_defaults_overrides_and_errors():
    assert Georeference.acre(datum=datum_config(DEFAULT_DATUM)).datum == Georeference.acre().datum
    g = Georeference.acre(datum=datum_config({"geoid": {"n0_m": -30.0}}))
    assert g.datum["geoid"] == {"n0_m": -30.0, "dn_de": -1.07779725e-05, "dn_dn": -6.19783884e-06}
    assert float(g.enu_to_geodetic(ORIGIN)["geoid_undulation_m"]) == -30.0
    assert (
        Georeference.acre(datum=datum_config({"start_utc": "2027-01-01T00:00:00Z"})).start_utc
        == "2027-01-01T00:00:00Z"
    )
    # the explicit argument wins over the dict
    g = Georeference.acre(
        start_utc="2028-01-01T00:00:00Z", datum=datum_config({"start_utc": "2027-01-01T00:00:00Z"})
    )
    assert g.start_utc == "2028-01-01T00:00:00Z" and g.decimal_year(0.0) == 2028.0
    assert Georeference.acre().start_utc == "2026-09-23T15:00:00Z"
    # the geodesy takes a typed datum: a dict is the configuration's to check and complete
    with pytest.raises(TypeError, match="datum_config"):
        Georeference.acre(datum={"geoid": {"n0_m": -30.0}})
    # checked by the configuration's schema (section gnss.datum): key, value, what is allowed
    with pytest.raises(ConfigError, match="gnss.datum.geoid_n0 = 1.0 is not a known key"):
        Georeference.acre(datum=datum_config({"geoid_n0": 1.0}))
    with pytest.raises(ConfigError, match="gnss.datum.geoid.n1_m = 1.0 is not a known key"):
        Georeference.acre(datum=datum_config({"geoid": {"n1_m": 1.0}}))
    with pytest.raises(
        ConfigError, match=r"harn_to_nad83_2011_shift_deg = \[1.0\] is not an array of 2 numbers"
    ):
        Georeference.acre(datum=datum_config({"harn_to_nad83_2011_shift_deg": [1.0]}))
    with pytest.raises(ConfigError, match="output_frame"):
        Georeference.acre(datum=datum_config({"output_frame": "nad27"}))
    with pytest.raises(ConfigError, match="helmert_itrf2014_to_nad83_2011.s_ppm"):
        Georeference.acre(datum=datum_config({"helmert_itrf2014_to_nad83_2011": {"s_ppm": None}}))
    with pytest.raises(ConfigError, match="start_utc"):
        Georeference.acre(start_utc="yesterday")


def test_helmert_parameters_flow_into_the_chain():
    zero = {
        k: ([0.0, 0.0, 0.0] if isinstance(v, list) else (2010.0 if k == "reference_epoch" else 0.0))
        for k, v in DEFAULT_DATUM["helmert_itrf2014_to_nad83_2011"].items()
    }
    g = Georeference.acre(
        datum=datum_config({"helmert_itrf2014_to_nad83_2011": zero})
    ).enu_to_geodetic(ORIGIN)
    # identity Helmert: WGS84 differs from NAD83(2011) by the ellipsoids only (0.1 mm in height)
    assert abs(g["wgs84_lat_deg"] - g["nad83_2011_lat_deg"]) < 1e-9
    assert abs(g["wgs84_height_m"] - g["nad83_2011_height_m"]) < 0.2 * mm


# --------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    "call, match",
    [
        (lambda g: g.enu_to_geodetic([np.nan, 0.0, 0.0]), "enu must be finite, got nan"),
        (
            lambda g: g.enu_to_geodetic([0.0, 0.0]),
            r"Expected enu to have shape \(..., 3\), got \(2,\)",
        ),
        (lambda g: g.enu_to_geodetic(ORIGIN, np.inf), "t_s must be finite"),
        (
            lambda g: g.enu_to_geodetic([1e7, 0.0, 0.0]),
            r"enu east = 10000000.0 m is outside the ACRE site's domain",
        ),
        (lambda g: g.enu_to_geodetic([0.0, -5e6, 0.0]), r"enu north = -5000000.0 m is outside"),
        (  # the grid of 1e308 m overflows: the domain was told as [-inf, -inf] (the fuzz helper)
            lambda g: g.enu_to_geodetic([1e308, 0.0, 0.0]),
            r"enu east = 1e\+308 m is outside the ACRE site's domain \[-257543\.8, 242456\.2\] m",
        ),
        (
            lambda g: g.enu_to_geodetic([0.0, -1e308, 0.0]),
            r"enu north = -1e\+308 m is outside the ACRE site's domain \[-\d+\.\d, \d+\.\d\] m",
        ),
        (
            lambda g: g.geodetic_to_enu(95.0, -87.0, 0.0, 0.0, "wgs84_g2139"),
            r"latitude_deg = 95.0 deg is outside",
        ),
        (
            lambda g: g.geodetic_to_enu(40.0, 20.0, 0.0, 0.0, "wgs84_g2139"),
            r"longitude_deg = 20.0 is outside",
        ),
        (
            lambda g: g.geodetic_to_enu(10.0, -87.0, 0.0, 0.0, "wgs84_g2139"),
            r"latitude_deg, longitude_deg = 10.0, -87.0",
        ),
        (lambda g: g.geodetic_to_enu(40.0, -87.0, 0.0, 0.0, "nad83"), "'nad83' is ambiguous"),
        (lambda g: g.grid_rotation_deg(ORIGIN, 0.0, 0), "zone must be an integer 1..60, got 0"),
        (
            lambda g: g.grid_rotation_deg(ORIGIN, 0.0, 16, frame="itrf"),
            "frame = 'itrf' is not one of",
        ),
    ],
)
def test_out_of_domain_raises_datum_error(acre, call, match):
    with pytest.raises(DatumError, match=match):
        call(acre)


# --------------------------------------------------------------------------- local sites
LOCAL_SITES = [
    (48.1, 11.6, 520.0),
    (-33.9, 151.2, 40.0),
    (0.0, 179.999, 0.0),
    (89.9, -45.0, 2800.0),
]


@pytest.mark.parametrize("lat0, lon0, h0", LOCAL_SITES)
def test_local_site_matches_proj_topocentric(lat0, lon0, h0):
    """ENU tangent frame on WGS84 against PROJ's +proj=topocentric, compared in ECEF.

    (Compared in ECEF because PROJ's inverse cart, one Bowring step, is only good to ~0.3 um
    at a few km of height; see test_geo_ellipsoid.py.)
    """
    site = Georeference.local(lat0, lon0, h0)
    rng = np.random.default_rng(11)
    enu = rng.uniform(-5000.0, 5000.0, (300, 3))
    g = site.enu_to_geodetic(enu, 0.0)
    x, y, z = proj("+proj=cart +ellps=WGS84").transform(
        g["wgs84_lon_deg"], g["wgs84_lat_deg"], g["wgs84_height_m"]
    )
    topo = proj(f"+proj=topocentric +ellps=WGS84 +lat_0={lat0!r} +lon_0={lon0!r} +h_0={h0!r}")
    xp, yp, zp = topo.transform(enu[:, 0], enu[:, 1], enu[:, 2], direction="INVERSE")
    assert np.max(np.sqrt((x - xp) ** 2 + (y - yp) ** 2 + (z - zp) ** 2)) < 20 * nm
    back = site.geodetic_to_enu(
        g["wgs84_lat_deg"], g["wgs84_lon_deg"], g["wgs84_height_m"], 0.0, "wgs84_g2139"
    )
    assert np.max(np.abs(back - enu)) < 20 * nm


def test_local_site_frames_and_methods():
    site = Georeference.local(48.1, 11.6, 520.0, geoid_undulation_m=47.0)
    assert site.kind == "local" and site.start_utc == "2026-09-23T15:00:00Z"
    g = site.enu_to_geodetic([[0.0, 0.0, 0.0], [100.0, 50.0, 2.0]], [0.0, 10.0])
    for frame in ("nad83_harn", "nad83_2011"):
        np.testing.assert_array_equal(g[f"{frame}_lat_deg"], g["wgs84_lat_deg"])
        np.testing.assert_array_equal(g[f"{frame}_lon_deg"], g["wgs84_lon_deg"])
    np.testing.assert_array_equal(g["nad83_2011_height_m"], g["wgs84_height_m"])
    np.testing.assert_array_equal(g["geoid_undulation_m"], [47.0, 47.0])
    np.testing.assert_allclose(g["navd88_height_m"], g["wgs84_height_m"] - 47.0, rtol=0, atol=1e-12)
    assert (
        abs(g["wgs84_lat_deg"][0] - 48.1) < 1e-13 and abs(g["wgs84_height_m"][0] - 520.0) < 1 * nm
    )
    assert site.site_wgs84_lat_lon_h() == pytest.approx((48.1, 11.6, 520.0), abs=1e-9)
    # a tangent frame's north is true north: the grid rotation is minus the UTM convergence
    # (to the change of the convergence along the 10 m chord, 1.4e-6 deg here)
    alpha = site.grid_rotation_deg([0.0, 0.0, 0.0], 0.0, 32)
    _, _, gam, _ = utm.forward(48.1, 11.6, 32)
    assert abs(alpha + gam) < 1e-5
    assert Georeference.local(10.0, 190.0, 0.0).origin_lat_lon_h == (10.0, -170.0, 0.0)
    with pytest.raises(DatumError, match="lat_deg = 91.0 deg is outside"):
        Georeference.local(91.0, 0.0, 0.0)
    with pytest.raises(DatumError, match="height_m must be finite"):
        Georeference.local(0.0, 0.0, np.nan)


def test_kind_and_repr(acre):
    assert acre.kind == "acre"
    assert "Georeference.acre" in repr(acre)
    assert "Georeference.local(48.1" in repr(Georeference.local(48.1, 11.6, 520.0))


def test_wgs84_constant_used_for_utm_of_nad83(acre):
    """Caveat "Ellipsoid of the UTM projection": UTM uses WGS84 for NAD83(2011) too."""
    e, n, _, _ = acre.enu_to_utm(ORIGIN, 0.0, 16)
    g = acre.enu_to_geodetic(ORIGIN, 0.0)
    assert (e, n) == utm.forward(g["nad83_2011_lat_deg"], g["nad83_2011_lon_deg"], 16)[:2]
    assert WGS84.inv_f == 298.257223563
