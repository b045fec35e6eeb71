"""Batch = chunks = steps (DESIGN.md invariant 2) for every public geo function.

A point must get the same bits whatever the call it comes in: alone (Python float, 0-d array,
1-element array), in a call of a few points and inside a 10 000-point call. The kernels run on
arrays, elementwise; this holds because +, -, *, / and sqrt are correctly rounded and numpy's
ufuncs give an element the same bits in a 1-element call and a long array (checked here first,
on the machine the tests run on).
"""

from __future__ import annotations

import numpy as np
import pytest

from navsense.errors import DatumError
from navsense.geo import Georeference, ellipsoid, epoch, helmert, utm
from navsense.geo.georef import FRAMES, OUTPUT_KEYS

N = 10_000
# indices checked one by one: both ends (SIMD loop tails) and a spread in between
PICK = sorted(
    {0, 1, 2, 3, 7, 8, 15, 16, 17, 31, 63, 64, 65, 127, 1000, 4095, 4096, 5001, N - 2, N - 1}
    | set(range(97, N, 997))
)
# sizes of the few-point calls (numpy's SIMD loops have tails below 8 elements)
FEW = (2, 4, 5, 7)
FRAME_KEYS = {
    "nad83_2011": ("nad83_2011_lat_deg", "nad83_2011_lon_deg", "nad83_2011_height_m"),
    "nad83_harn": ("nad83_harn_lat_deg", "nad83_harn_lon_deg", "nad83_2011_height_m"),
    "wgs84_g2139": ("wgs84_lat_deg", "wgs84_lon_deg", "wgs84_height_m"),
}


def _enu(seed=5, half_m=6000.0):
    rng = np.random.default_rng(seed)
    enu = np.column_stack(
        [
            rng.uniform(-half_m, half_m, N),
            rng.uniform(-half_m, half_m, N),
            rng.uniform(-40.0, 300.0, N),
        ]
    )
    t = rng.uniform(-1e6, 400 * 86_400.0, N)  # crosses New Year
    return enu, t


def _same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype == np.float64
    np.testing.assert_array_equal(a, b)


SITES = {
    "acre": (Georeference.acre(), 16),
    "munich": (Georeference.local(48.1, 11.6, 520.0, geoid_undulation_m=47.0), 32),
    "sydney": (Georeference.local(-33.9, 151.2, 40.0), 56),
}


# --------------------------------------------------------------------------- the assumption
@pytest.mark.parametrize(
    "name", ["sin", "cos", "tan", "arctan", "sinh", "cosh", "arcsinh", "arctanh", "sqrt"]
)
def test_numpy_ufuncs_give_a_float_the_bits_of_an_array_element(name):
    f = getattr(np, name)
    x = np.random.default_rng(1).uniform(-1.5, 1.5, 3000)
    x = x / 1.6 if name == "arctanh" else (np.abs(x) if name == "sqrt" else x)
    ref = f(x)
    assert all(f(float(v)) == r for v, r in zip(x, ref, strict=True))
    assert all(f(x[i : i + 1])[0] == ref[i] for i in range(0, 3000, 7))


def test_numpy_binary_ufuncs_give_a_float_the_bits_of_an_array_element():
    rng = np.random.default_rng(2)
    x, y = rng.uniform(-3, 3, (2, 3000))
    for f in (np.arctan2, np.remainder):
        ref = f(x, y)
        assert all(f(float(a), float(b)) == r for a, b, r in zip(x, y, ref, strict=True))


# --------------------------------------------------------------------------- Georeference
@pytest.mark.parametrize("site", SITES)
def test_enu_to_geodetic_alone_few_and_in_a_batch(site):
    geo, _ = SITES[site]
    enu, t = _enu()
    g = geo.enu_to_geodetic(enu, t)
    for i in PICK:
        for p, tt, idx in (
            (enu[i], t[i], i),
            (enu[i], float(t[i]), i),
            (enu[i : i + 1], t[i : i + 1], slice(i, i + 1)),
            (enu[i], np.asarray(t[i]), i),
        ):
            gi = geo.enu_to_geodetic(p, tt)
            for k in OUTPUT_KEYS:
                _same(gi[k], g[k][idx])
    for m in FEW:
        for i in (0, 500, N - m):
            gi = geo.enu_to_geodetic(enu[i : i + m], t[i : i + m])
            for k in OUTPUT_KEYS:
                _same(gi[k], g[k][i : i + m])
    # one scalar time for a batch: the bits of the same time given per point
    g0 = geo.enu_to_geodetic(enu, 1234.5)
    gi = geo.enu_to_geodetic(enu[17], 1234.5)
    for k in OUTPUT_KEYS:
        _same(gi[k], g0[k][17])


@pytest.mark.parametrize("site", SITES)
@pytest.mark.parametrize("frame", FRAMES)
def test_grid_rotation_alone_few_and_in_a_batch(site, frame):
    geo, zone = SITES[site]
    enu, t = _enu()
    alpha = geo.grid_rotation_deg(enu, t, zone, frame=frame)
    assert alpha.shape == (N,)
    for i in PICK[::2]:
        _same(geo.grid_rotation_deg(enu[i], t[i], zone, frame=frame), alpha[i])
        _same(
            geo.grid_rotation_deg(enu[i : i + 1], t[i : i + 1], zone, frame=frame), alpha[i : i + 1]
        )
    for m in FEW:
        _same(geo.grid_rotation_deg(enu[:m], t[:m], zone, frame=frame), alpha[:m])
        _same(geo.grid_rotation_deg(enu[:m], t[:m], np.full(m, zone), frame=frame), alpha[:m])


@pytest.mark.parametrize("site", SITES)
@pytest.mark.parametrize("frame", FRAMES)
@pytest.mark.parametrize("south", [False, True])
def test_enu_to_fix_utm_is_the_three_public_calls(site, frame, south):
    """The INS's one-pass call gives bit for bit enu_to_geodetic, utm.forward, grid_rotation_deg."""
    geo, zone = SITES[site]
    enu, t = _enu()
    enu, t = enu[:3000], t[:3000]
    fix = geo.enu_to_fix_utm(enu, t, zone, frame=frame, south=south, grid_rotation=True)
    lat_k, lon_k, h_k = FRAME_KEYS[frame]
    g = geo.enu_to_geodetic(enu, t)
    e, n, _, _ = utm.forward(g[lat_k], g[lon_k], zone, south=south)
    for key, want in (
        ("lat_deg", g[lat_k]),
        ("lon_deg", g[lon_k]),
        ("height_m", g[h_k]),
        ("easting_m", e),
        ("northing_m", n),
        ("grid_rotation_deg", geo.grid_rotation_deg(enu, t, zone, frame=frame)),
    ):
        _same(fix[key], want)
    plain = geo.enu_to_fix_utm(enu, t, zone, frame=frame, south=south)
    assert tuple(plain) == ("lat_deg", "lon_deg", "height_m", "easting_m", "northing_m")
    for key in plain:
        _same(plain[key], fix[key])


@pytest.mark.parametrize("frame", FRAMES)
def test_enu_to_fix_utm_alone_few_and_in_a_batch(frame):
    geo, zone = SITES["acre"]
    enu, t = _enu()
    fix = geo.enu_to_fix_utm(enu, t, zone, frame=frame, grid_rotation=True)
    for i in PICK:
        one = geo.enu_to_fix_utm(
            enu[i : i + 1], t[i : i + 1], zone, frame=frame, grid_rotation=True
        )
        scalar = geo.enu_to_fix_utm(enu[i], float(t[i]), zone, frame=frame, grid_rotation=True)
        for key in fix:
            _same(one[key], fix[key][i : i + 1])
            _same(scalar[key], fix[key][i])
    for m in FEW:
        few = geo.enu_to_fix_utm(enu[-m:], t[-m:], zone, frame=frame, grid_rotation=True)
        for key in fix:
            _same(few[key], fix[key][-m:])


def test_enu_to_fix_utm_shapes_and_errors():
    geo, _ = SITES["acre"]
    out = geo.enu_to_fix_utm(np.zeros(3), 0.0, 16, grid_rotation=True)
    assert all(np.shape(v) == () for v in out.values())
    out = geo.enu_to_fix_utm(np.zeros((2, 3, 3)), np.zeros((2, 3)), 16)
    assert all(np.shape(v) == (2, 3) for v in out.values())
    out = geo.enu_to_fix_utm(np.zeros((0, 3)), np.zeros(0), 16, grid_rotation=True)
    assert all(np.shape(v) == (0,) for v in out.values()) and len(out) == 6
    with pytest.raises(DatumError, match="zone must be an integer 1..60, got 0"):
        geo.enu_to_fix_utm(np.zeros(3), 0.0, 0)
    with pytest.raises(DatumError, match="'nad83' is ambiguous"):
        geo.enu_to_fix_utm(np.zeros(3), 0.0, 16, frame="nad83")
    with pytest.raises(DatumError, match="enu must be finite"):
        geo.enu_to_fix_utm(np.array([np.nan, 0.0, 0.0]), 0.0, 16)
    with pytest.raises(DatumError, match="from the central meridian of UTM zone 30"):
        geo.enu_to_fix_utm(np.zeros(3), 0.0, 30)
    with pytest.raises(DatumError, match="enu north = 5000000.0 m is outside"):
        geo.enu_to_fix_utm(np.array([[0.0, 0.0, 0.0], [0.0, 5e6, 0.0]]), 0.0, 16)


@pytest.mark.parametrize("site", SITES)
@pytest.mark.parametrize("frame", FRAMES)
@pytest.mark.parametrize("south", [False, True])
def test_ins_fix_utm_is_two_fix_calls_in_one(site, frame, south):
    """The INS's pass: enu_to_fix_utm of its points with the grid rotation and of the truth
    points without, bit for bit, in a batch and one epoch at a time."""
    geo, zone = SITES[site]
    enu, t = _enu()
    ins, truth, t = enu[:2000], enu[5000:7000], t[:2000]
    want = geo.enu_to_fix_utm(ins, t, zone, frame=frame, south=south, grid_rotation=True)
    want_truth = geo.enu_to_fix_utm(truth, t, zone, frame=frame, south=south)
    keys = ("lat_deg", "lon_deg", "height_m", "easting_m", "northing_m", "grid_rotation_deg")
    for sl in [slice(0, 2000)] + [slice(i, i + 1) for i in PICK if i < 2000]:
        got, got_truth = geo.ins_fix_utm(ins[sl], truth[sl], t[sl], zone, frame, south)
        for key, value in zip(keys, got, strict=True):
            _same(value, want[key][sl])
        for key, value in zip(("height_m", "easting_m", "northing_m"), got_truth, strict=True):
            _same(value, want_truth[key][sl])
    with pytest.raises(DatumError, match="enu must be finite"):
        geo.ins_fix_utm(ins[:1], np.full((1, 3), np.nan), t[:1], zone, frame, south)


@pytest.mark.parametrize("site", SITES)
@pytest.mark.parametrize("frame", FRAMES)
def test_geodetic_to_enu_alone_and_in_a_batch(site, frame):
    geo, _ = SITES[site]
    enu, t = _enu()
    g = geo.enu_to_geodetic(enu, t)
    lat_k, lon_k, h_k = FRAME_KEYS[frame]
    back = geo.geodetic_to_enu(g[lat_k], g[lon_k], g[h_k], t, frame)
    assert back.shape == (N, 3)
    for i in PICK[::3]:
        _same(geo.geodetic_to_enu(g[lat_k][i], g[lon_k][i], g[h_k][i], t[i], frame), back[i])
        _same(
            geo.geodetic_to_enu(
                g[lat_k][i : i + 1], g[lon_k][i : i + 1], g[h_k][i : i + 1], t[i : i + 1], frame
            ),
            back[i : i + 1],
        )


def test_decimal_year_alone_and_in_a_batch():
    geo, _ = SITES["acre"]
    _, t = _enu()
    y = geo.decimal_year(t)
    y2 = epoch.decimal_year(geo.start_utc, t)
    _same(y, y2)
    for i in PICK:
        _same(geo.decimal_year(t[i]), y[i])
        _same(geo.decimal_year(float(t[i])), y[i])
        _same(epoch.decimal_year(geo.start_utc, t[i : i + 1]), y[i : i + 1])


def test_empty_inputs_keep_their_shapes():
    for geo, zone in SITES.values():
        g = geo.enu_to_geodetic(np.zeros((0, 3)), np.zeros(0))
        assert tuple(g) == OUTPUT_KEYS and all(v.shape == (0,) for v in g.values())
        assert geo.grid_rotation_deg(np.zeros((0, 3)), np.zeros(0), zone).shape == (0,)
        assert geo.geodetic_to_enu(
            np.zeros(0), np.zeros(0), np.zeros(0), 0.0, "wgs84_g2139"
        ).shape == (0, 3)
    assert all(v.shape == (0,) for v in utm.forward(np.zeros(0), np.zeros(0), 16))
    assert all(v.shape == (0,) for v in utm.inverse(np.zeros(0), np.zeros(0), 16))
    assert all(
        v.shape == (0,) for v in ellipsoid.ecef_to_geodetic(np.zeros(0), np.zeros(0), np.zeros(0))
    )


# --------------------------------------------------------------------------- utm, ellipsoid, helmert
@pytest.mark.parametrize("south", [False, True])
def test_utm_alone_few_and_in_a_batch(south):
    rng = np.random.default_rng(9)
    lat = rng.uniform(-80.0, 84.0, N) if south else rng.uniform(0.0, 84.0, N)
    lon = -87.0 + rng.uniform(-30.0, 30.0, N)
    fwd = utm.forward(lat, lon, 16, south=south)
    inv = utm.inverse(fwd[0], fwd[1], 16, south=south)
    for i in PICK:
        for a, b in (
            (lat[i], lon[i]),
            (float(lat[i]), float(lon[i])),
            (np.asarray(lat[i]), lon[i]),
        ):
            for v, r in zip(utm.forward(a, b, 16, south=south), fwd, strict=True):
                _same(v, r[i])
        for v, r in zip(
            utm.forward(lat[i : i + 1], lon[i : i + 1], np.int64(16), south=south), fwd, strict=True
        ):
            _same(v, r[i : i + 1])
        for v, r in zip(utm.inverse(fwd[0][i], fwd[1][i], 16, south=south), inv, strict=True):
            _same(v, r[i])
    for m in FEW:
        for v, r in zip(
            utm.forward(lat[:m], lon[:m], np.full(m, 16), south=south), fwd, strict=True
        ):
            _same(v, r[:m])
        for v, r in zip(utm.inverse(fwd[0][:m], fwd[1][:m], 16, south=south), inv, strict=True):
            _same(v, r[:m])


def test_ellipsoid_and_helmert_alone_and_in_a_batch():
    rng = np.random.default_rng(4)
    lat, lon, h = (
        rng.uniform(-90.0, 90.0, N),
        rng.uniform(-180.0, 180.0, N),
        rng.uniform(-1e3, 1e5, N),
    )
    lat[:2] = (90.0, -90.0)
    xyz = ellipsoid.geodetic_to_ecef(lat, lon, h, ellipsoid.GRS80)
    llh = ellipsoid.ecef_to_geodetic(*xyz, ellipsoid.GRS80)
    ep = rng.uniform(2000.0, 2040.0, N)
    fw = helmert.forward(*xyz, ep)
    iv = helmert.inverse(*xyz, ep)
    for i in PICK:
        for v, r in zip(
            ellipsoid.geodetic_to_ecef(lat[i], lon[i], h[i], ellipsoid.GRS80), xyz, strict=True
        ):
            _same(v, r[i])
        for v, r in zip(
            ellipsoid.ecef_to_geodetic(*(c[i] for c in xyz), ellipsoid.GRS80), llh, strict=True
        ):
            _same(v, r[i])
        for v, r in zip(
            ellipsoid.ecef_to_geodetic(*(c[i : i + 1] for c in xyz), ellipsoid.GRS80),
            llh,
            strict=True,
        ):
            _same(v, r[i : i + 1])
        for v, r in zip(helmert.forward(*(c[i] for c in xyz), ep[i]), fw, strict=True):
            _same(v, r[i])
        for v, r in zip(helmert.inverse(*(c[i] for c in xyz), ep[i]), iv, strict=True):
            _same(v, r[i])
