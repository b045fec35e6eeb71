"""Footprint prisms (issue 29 item 3, navsense.sky.footprints): RayPrism and its Near test
against shapely (an independent computational geometry library: the ray's horizontal trace over
the prism's heights intersecting, or within d_n of, the polygon), the sky view's statuses over
epochs and satellites in one call equal to one epoch at a time, and the reflector index's span
against a brute-force scan of azimuths."""

import numpy as np
import pytest

from navsense.site import site_from_json
from navsense.sky import obstruction as sky
from navsense.sky.footprints import Prisms, ray_prism_hit

shapely = pytest.importorskip("shapely")
from shapely.geometry import LineString, Point, Polygon  # noqa: E402

# a concave L (a courtyard corner): the bounding box would block rays the footprint does not
L_RING = np.array([[0, 0], [20, 0], [20, 8], [8, 8], [8, 20], [0, 20]], dtype=float)


def _rays(n, seed):
    rng = np.random.default_rng(seed)
    o = np.c_[rng.uniform(-30, 50, n), rng.uniform(-30, 50, n), rng.uniform(0, 20, n)]
    el = np.radians(rng.uniform(0, 90, n))
    az = rng.uniform(0, 2 * np.pi, n)
    return o, np.c_[np.cos(el) * np.sin(az), np.cos(el) * np.cos(az), np.sin(el)]


def _shapely_hit(o, d, poly, base, top, margin):
    """The trace over base <= z <= top + margin, t >= 0, within ``margin`` of the polygon."""
    top = top + margin
    if d[2] > 0:
        t0, t1 = max(0.0, (base - o[2]) / d[2]), (top - o[2]) / d[2]
    else:
        t0, t1 = (0.0, 500.0) if base <= o[2] <= top else (1.0, 0.0)
    if t1 < t0:
        return False
    a, b = o[:2] + t0 * d[:2], o[:2] + t1 * d[:2]
    g = LineString([a, b]) if np.hypot(*(b - a)) > 0 else Point(a)
    return g.distance(poly) <= margin if margin else g.intersects(poly)


@pytest.mark.parametrize("margin", [0.0, 1.5])
def test_ray_prism_agrees_with_shapely(margin):
    o, d = _rays(4000, 1)
    prisms = Prisms(L_RING, [0, 6], [0.0], [15.0])
    k = np.zeros(len(o), dtype=np.int64)
    hit = prisms.hits(o[:, 0], o[:, 1], o[:, 2], d[:, 0], d[:, 1], d[:, 2], k, margin)
    poly = Polygon(L_RING)
    ref = np.array([_shapely_hit(o[i], d[i], poly, 0.0, 15.0, margin) for i in range(len(o))])
    assert 150 < hit.sum() < 3850  # both outcomes are tested
    np.testing.assert_array_equal(hit, ref)


def test_concave_notch_is_open_where_the_bounding_box_is_not():
    up_into_notch = ray_prism_hit([14.0, 14.0, 1.0], [0.0, 0.0, 1.0], L_RING, 0.0, 15.0)
    assert not up_into_notch  # the box [0, 20]^2 would block it
    assert ray_prism_hit([4.0, 4.0, 1.0], [0.0, 0.0, 1.0], L_RING, 0.0, 15.0)  # inside
    # a horizontal ray at the roof's height touches it; 1 mm higher misses
    assert ray_prism_hit([-5.0, 4.0, 15.0], [1.0, 0.0, 0.0], L_RING, 0.0, 15.0)
    assert not ray_prism_hit([-5.0, 4.0, 15.001], [1.0, 0.0, 0.0], L_RING, 0.0, 15.0)


def _street_site():
    """A 25 m tower east of the road (x 8 .. 22), an L-shaped 12 m house west of it."""
    return site_from_json(
        {
            "georeference": None,
            "footprints": [
                {"outline_enu_m": [[8, -50], [22, -50], [22, 50], [8, 50]], "height_m": 25},
                {"outline_enu_m": (L_RING * [-1, 1] - [8, 0]).tolist(), "height_m": 12},
            ],
        }
    )


def _los(az_deg, el_deg):
    az, el = np.radians(az_deg), np.radians(el_deg)
    return np.stack([np.cos(el) * np.sin(az), np.cos(el) * np.cos(az), np.sin(el)], axis=-1)


def test_the_tower_blocks_the_satellite_behind_it_and_not_one_over_its_roof():
    view = sky.SkyView(_street_site(), 1.5, 8.0, 10.0)
    antenna = np.array([[0.0, 5.0, 2.0]])
    # east: the wall at 8 m, the roof 23 m above the antenna: blocked below atan(23/8) = 70.8
    # deg (near within 1.5 m of it), clear above atan((23 + 1.5) / 6.5) = 75.1 deg
    los = _los([90, 90, 90, 270, 0], [45, 70, 80, 45, 45])[None]
    status = view.classify(antenna, los, np.ones((1, 5), dtype=bool))[0]
    assert status.tolist() == [sky.BLOCKED, sky.BLOCKED, sky.CLEAR, sky.BLOCKED, sky.CLEAR]
    # west at 45 deg: the L's wall at x = -8 is 12 m tall (10 above the antenna) -> blocked;
    # at 60 deg the ray passes 6.5 m out (the buffered wall) at 11.26 m < 10 + 1.5: near; at 65
    # deg at 13.9 m: clear
    st = view.classify(antenna, _los([270, 270], [60, 65])[None], np.ones((1, 2), dtype=bool))
    assert st[0].tolist() == [sky.NEAR, sky.CLEAR]


def test_statuses_over_epochs_and_satellites_equal_one_epoch_at_a_time():
    rng = np.random.default_rng(3)
    m, nsat = 300, 12
    antenna = np.c_[rng.uniform(-5, 5, m), rng.uniform(-80, 80, m), np.full(m, 2.0)]
    los = _los(rng.uniform(0, 360, (m, nsat)), rng.uniform(5, 89, (m, nsat)))
    visible = rng.uniform(size=(m, nsat)) > 0.2
    view = sky.SkyView(_street_site(), 1.5, 8.0, 10.0)
    whole = view.classify(antenna, los, visible)
    steps = np.concatenate(
        [view.classify(antenna[i : i + 1], los[i : i + 1], visible[i : i + 1]) for i in range(m)]
    )
    np.testing.assert_array_equal(whole, steps)
    assert {sky.CLEAR, sky.NEAR, sky.BLOCKED} <= set(np.unique(whole).tolist())
    # and equal to testing every prism for every pair (the culling is conservative)
    prisms = view._prisms
    e, s = np.nonzero(visible)
    for k in range(prisms.count):
        kk = np.full(e.size, k)
        a, d = antenna[e], los[e, s]
        hit = prisms.hits(a[:, 0], a[:, 1], a[:, 2], d[:, 0], d[:, 1], d[:, 2], kk)
        assert np.all(whole[e[hit], s[hit]] == sky.BLOCKED)


def test_reflector_span_agrees_with_a_scan_of_azimuths():
    prisms = Prisms(L_RING, [0, 6], [0.0], [15.0])
    poly = Polygon(L_RING)
    for p in ([30.0, 10.0], [14.0, 14.0], [-10.0, -10.0], [10.0, -5.0]):
        terms = prisms.reflector_terms(np.array([[p[0], p[1], 0.0]]), 1000.0)[0, 0]
        dist = poly.exterior.distance(Point(p))
        height = min(np.arctan2(15.0, max(dist, 1.0)) / np.radians(30.0), 1.0)
        span = terms / (height * (1.0 - dist / 1000.0)) * 2 * np.pi
        az = np.radians(np.arange(0.0, 360.0, 0.05))
        seen = [
            LineString([p, (p[0] + 500 * np.sin(a), p[1] + 500 * np.cos(a))]).intersects(poly)
            for a in az
        ]
        assert span == pytest.approx(np.count_nonzero(seen) * np.radians(0.05), abs=np.radians(0.2))


def test_a_site_without_footprints_keeps_the_specification_s_sky_view():
    site = site_from_json({"buildings": [{"min_enu_m": [8, -50, 0], "max_enu_m": [22, 50, 25]}]})
    view = sky.SkyView(site, 1.5, 8.0, 10.0)
    assert view._prisms is None


@pytest.mark.parametrize("margin", [0.0, 1.5])
def test_the_first_test_only_rules_out_rays_that_miss(margin):
    """Prisms.hits's cheap bounding-circle test (14x faster on a city grid: 3600 epochs x 30
    satellites x 289 blocks in 1.3 s instead of 19 s) gives the polygon tests' result."""
    o, d = _rays(20000, 7)
    rings = np.concatenate([L_RING, L_RING + [60.0, -40.0], L_RING * 0.2 + [-20.0, 30.0]])
    prisms = Prisms(rings, [0, 6, 12, 18], [0.0, 3.0, 0.0], [15.0, 9.0, 30.0])
    k = np.arange(len(o)) % 3
    args = (o[:, 0], o[:, 1], o[:, 2], d[:, 0], d[:, 1], d[:, 2], k, margin)
    fast = prisms.hits(*args)
    assert fast.sum() > 500
    np.testing.assert_array_equal(fast, prisms._hits(*args))


def test_the_report_s_sky_grid_draws_the_footprints_as_the_sky_view_sees_them():
    from navsense.runs.report_sky import _sky_grid

    site = _street_site()
    antenna = np.array([0.0, 5.0, 2.0])
    az, el, blocked, _ = _sky_grid(antenna, site, 8.0)
    los = _los(az[:, None] + 0 * el[None, :], el[None, :] + 0 * az[:, None])
    view = sky.SkyView(site, 0.0, 8.0, 0.0)
    status = view.classify(
        np.repeat(antenna[None], len(az), 0), los, np.ones(blocked.shape, dtype=bool)
    )
    np.testing.assert_array_equal(blocked, status == sky.BLOCKED)
    assert 0.2 < blocked.mean() < 0.8
