"""Sky view: ray tests, culling, classification and counts (specification, "Sky Obstruction")."""

import importlib.util
import math

import numpy as np
import pytest

from conftest import make_site
from navsense.rotation import quat_about_z
from navsense.sky import obstruction as sky
from navsense.sky.obstruction import (
    BELOW_MASK,
    BLOCKED,
    CLEAR,
    FOLIAGE,
    NEAR,
    SkyView,
    antenna_position_enu,
    classify,
    counts,
    keep_obstacles,
    ray_box_hit,
    ray_cylinder_hit,
    sphere_chord,
    used_mask,
)

um = 1e-6


def unit(v):
    v = np.asarray(v, dtype=float)
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def el_az(elev_deg, az_deg):
    """Unit ENU direction at an elevation and an azimuth (from north, clockwise)."""
    e, a = math.radians(elev_deg), math.radians(az_deg)
    return np.array([math.cos(e) * math.sin(a), math.cos(e) * math.cos(a), math.sin(e)])


# ------------------------------------------------------------------------------------ RayBox
BOX = ([5.0, -1.0, -1.0], [7.0, 1.0, 1.0])


@pytest.mark.parametrize(
    "origin, direction, expected",
    [
        ([0, 0, 0], [1, 0, 0], True),  # straight at it
        ([0, 0, 0], [1, 0.1, 0.05], True),  # oblique hit
        ([0, 0, 0], [1, 0.5, 0], False),  # passes beside
        ([0, 0, 0], [-1, 0, 0], False),  # pointing away
        ([10, 0, 0], [1, 0, 0], False),  # obstacle behind
        ([0, 1, 0], [1, 0, 0], True),  # grazing a face (closed box)
        ([0, 1 + 1e-9, 0], [1, 0, 0], False),  # just outside that face
        ([0, 3, 0], [1, -1, 0], False),  # diagonal, passes below the box's corner
        ([6, 0, 0], [0, 0, 1], True),  # antenna inside, ray up
        ([6, 0, 0], [-1, 0, 0], True),  # antenna inside, any direction
        ([6, 0, 1], [0, 0, 1], True),  # antenna on the roof (closed box)
        ([6, 0, -5], [0, 0, 1], True),  # roof overhead, vertical ray
        ([4, 0, -5], [0, 0, 1], False),  # beside it, vertical ray
    ],
)
def test_ray_box_cases(origin, direction, expected):
    assert (
        bool(ray_box_hit(np.array(origin, float), unit(direction), *map(np.array, BOX))) is expected
    )


def test_ray_box_touches_an_edge():
    # from (4, 0) along (1, 1): touches the edge x = 5, y = 1 only
    d = unit([1, 1, 0])
    assert ray_box_hit(np.array([4.0, 0.0, 0.0]), d, *map(np.array, BOX))
    assert not ray_box_hit(np.array([4.0, 1e-9, 0.0]), d, *map(np.array, BOX))


def test_ray_box_wall_at_elevation():
    # a wall 10 m east, 8 m high; antenna at 1.7 m: at 30 deg the ray is at 1.7 + 10 tan 30 = 7.47 m
    d = el_az(30.0, 90.0)
    a = np.array([0.0, 0.0, 1.7])
    assert ray_box_hit(a, d, np.array([10.0, -5, 0]), np.array([20.0, 5, 8]))
    assert not ray_box_hit(a, d, np.array([10.0, -5, 0]), np.array([20.0, 5, 7]))
    # the top is reached at 20 m: 1.7 + 20 tan 30 = 13.25 m; a 13.2 m wall hides the roof edge
    assert ray_box_hit(a, d, np.array([10.0, -5, 12]), np.array([20.0, 5, 13.2]))


def test_ray_box_broadcasts():
    o = np.zeros((4, 1, 3))
    d = unit([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [1, 0.1, 0]])[:, None, :]
    lo = np.array([[5.0, -1, -1], [-7, -1, -1]])[None]
    hi = lo + 2
    hit = ray_box_hit(o, d, lo, hi)
    assert hit.shape == (4, 2)
    np.testing.assert_array_equal(
        hit, [[True, False], [False, True], [False, False], [True, False]]
    )


# ------------------------------------------------------------------------------- RayCylinder
CYL = (np.array([10.0, 0.0]), 0.0, 10.0, 2.0)  # axis, base, top, radius


@pytest.mark.parametrize(
    "origin, direction, expected",
    [
        ([0, 0, 1], [1, 0, 0], True),  # side hit, horizontal ray
        ([0, 0, 1], [1, 0, 0.5], True),  # side hit, rising
        ([0, 0, 0], [8, 0, 9], True),  # enters the side, leaves through the top
        ([0, 0, 0], [8, 0, 10.01], False),  # passes just over the rim
        ([0, 0, 1], [-1, 0, 0], False),  # pointing away
        ([20, 0, 1], [1, 0, 0.2], False),  # obstacle behind
        ([0, 2, 1], [1, 0, 0], True),  # tangent to the mantle (closed)
        ([0, 2 + 1e-6, 1], [1, 0, 0], False),  # just beside it
        ([0, 0, 11], [1, 0, 0], False),  # horizontal ray above the top
        ([10, 0, 5], [1, 0, 1], True),  # antenna inside
        ([10, 1, -5], [0, 0, 1], True),  # vertical ray under the bin
        ([10, 2.5, -5], [0, 0, 1], False),  # vertical ray beside the bin
        ([10.5, 0, 20], [0.1, 0, -1], True),  # from above: through the top cap
    ],
)
def test_ray_cylinder_cases(origin, direction, expected):
    assert bool(ray_cylinder_hit(np.array(origin, float), unit(direction), *CYL)) is expected


def test_ray_cylinder_finite_base():
    # a bin standing on a 5 m base: a horizontal ray at 1 m passes under it
    assert not ray_cylinder_hit(np.array([0.0, 0, 1]), unit([1, 0, 0]), CYL[0], 5.0, 10.0, 2.0)
    # rising at 30 deg it meets the mantle between 8 and 12 m at 1 + x tan 30 in 5.6 .. 7.9 m
    assert ray_cylinder_hit(np.array([0.0, 0, 1]), el_az(30, 90), CYL[0], 5.0, 10.0, 2.0)


def test_ray_cylinder_top_edge_at_elevation():
    # a 10 m bin of radius 2 centred 10 m east; the near rim is at 8 m: the ray rising over the
    # rim at elevation atan((10 - 1.7) / 8) is the limit; the far rim at 12 m is the top-cap exit
    limit = math.degrees(math.atan2(10.0 - 1.7, 8.0))
    a = np.array([0.0, 0.0, 1.7])
    assert ray_cylinder_hit(a, el_az(limit - 0.01, 90), *CYL)
    assert not ray_cylinder_hit(a, el_az(limit + 0.01, 90), *CYL)


# ------------------------------------------------------------------------------- SphereChord
def test_chord_through_the_centre_is_the_diameter():
    c, r = np.array([10.0, 5.0, 8.0]), 3.0
    o = np.array([0.0, 0.0, 1.7])
    assert sphere_chord(o, unit(c - o), c, r) == pytest.approx(2 * r, abs=um)


@pytest.mark.parametrize("d", [0.0, 0.5, 1.7, 2.9, 2.999])
def test_chord_off_centre(d):
    r = 3.0
    chord = sphere_chord(np.zeros(3), np.array([1.0, 0, 0]), np.array([10.0, d, 0]), r)
    assert chord == pytest.approx(2 * math.sqrt(r * r - d * d), abs=um)


def test_chord_misses_tangent_behind_and_inside():
    r = 3.0
    x = np.array([1.0, 0, 0])
    assert sphere_chord(np.zeros(3), x, np.array([10.0, 3.0, 0]), r) == 0.0  # tangent
    assert sphere_chord(np.zeros(3), x, np.array([10.0, 3.5, 0]), r) == 0.0  # miss
    assert sphere_chord(np.zeros(3), x, np.array([-10.0, 0, 0]), r) == 0.0  # behind
    assert sphere_chord(np.zeros(3), x, np.zeros(3), r) == pytest.approx(r, abs=um)  # from centre
    # an antenna inside, 1 m behind the centre: the part ahead is r + 1
    assert sphere_chord(np.zeros(3), x, np.array([1.0, 0, 0]), r) == pytest.approx(r + 1, abs=um)
    # an antenna inside, looking back out: r - 1
    assert sphere_chord(np.zeros(3), -x, np.array([1.0, 0, 0]), r) == pytest.approx(r - 1, abs=um)


def test_chord_broadcasts():
    o = np.zeros((3, 1, 3))
    d = unit([[1, 0, 0], [0, 1, 0], [-1, 0, 0]])[:, None, :]
    c = np.array([[10.0, 0, 0], [0, 10.0, 0]])[None]
    ch = sphere_chord(o, d, c, np.array([2.0, 1.0]))
    np.testing.assert_allclose(ch, [[4, 0], [0, 2], [0, 0]], atol=um)


# ----------------------------------------------------------------------------------- culling
def test_culling_by_height_and_angle():
    ant = np.array([[0.0, 0.0, 2.0], [0.0, 0.0, 20.0], [100.0, 0.0, 2.0]])
    centre = np.array([[20.0, 0.0]])
    top = np.array([5.0])
    keep = keep_obstacles(ant, centre, top, 1.5, 10.0)
    # rise 4.5 m: over D = 20 m it is atan2(4.5, 20) = 12.7 deg >= 10: kept
    # from 20 m up the top is below: culled; from 80 m away atan2(4.5, 80) = 3.2 deg: culled
    np.testing.assert_array_equal(keep, [[True], [False], [False]])
    # the limit: atan2(rise, D) = mask exactly at D = rise / tan(mask)
    d_lim = 4.5 / math.tan(math.radians(10.0))
    keep = keep_obstacles(
        np.array([[20.0 - d_lim + 1e-6, 0, 2], [20.0 - d_lim - 1e-6, 0, 2]]), centre, top, 1.5, 10.0
    )
    np.testing.assert_array_equal(keep[:, 0], [True, False])
    # the margin counts: without it the rise is 3 m, atan2(3, 20) = 8.5 deg: culled
    assert not keep_obstacles(ant[:1], centre, top, 0.0, 10.0)[0, 0]


def test_culling_is_applied_as_written():
    """A long wall whose centre is far is culled even where the ray would hit it."""
    wall = ([-100.0, 5.0, 0.0], [100.0, 6.0, 3.0])
    site = make_site(boxes=[wall])
    ant = np.array([[-99.0, 0.0, 1.7]])
    d = el_az(10.5, 0.0)[None, None]  # north: at y = 5 the ray is at 1.7 + 5 tan 10.5 = 2.6 m
    assert ray_box_hit(ant[0], d[0, 0], *map(np.array, wall))
    st = classify(ant, d, np.ones((1, 1), bool), site, 1.5, 8.0, 10.0)
    assert st[0, 0] == CLEAR  # atan2(3 + 1.5 - 1.7, 99) = 1.6 deg < 10 deg: not tested
    # near the wall's centre the same ray is blocked
    st = classify(np.array([[0.0, 0.0, 1.7]]), d, np.ones((1, 1), bool), site, 1.5, 8.0, 10.0)
    assert st[0, 0] == BLOCKED


# ---------------------------------------------------------------------------------- classify
def test_statuses_on_analytic_rays():
    site = make_site(
        boxes=[([10.0, -5.0, 0.0], [20.0, 5.0, 8.0])],  # building east
        cylinders=[(0.0, 15.0, 0.0, 12.0, 3.0)],  # grain bin north
        crowns=[(-15.0, 0.0, 6.0, 3.0), (-22.0, 0.0, 6.0, 3.0)],  # two crowns west, centres at 6 m
    )
    a = np.array([0.0, 0.0, 2.0])
    rays = {
        "box": (el_az(20, 90), BLOCKED),  # 2 + 10 tan 20 = 5.6 < 8
        "box near": (el_az(20, 90 - 28), NEAR),  # passes north of the box within the margin
        "box clear": (el_az(45, 90), CLEAR),  # over the roof by far: 2 + 10 = 12 > 8 + 1.5
        "bin": (el_az(30, 0), BLOCKED),  # near mantle at 12 m: 2 + 12 tan 30 = 8.9 < 12
        "bin near top": (el_az(math.degrees(math.atan2(12.5 - 2.0, 12.0)), 0), NEAR),
        "south": (el_az(30, 180), CLEAR),
    }
    # a ray west through the centre of crown 1 (chord 6 m); at x = -22 it is at
    # z = 2 + 22 * 4 / 15 = 7.87 m, inside crown 2 (centre 6 m, radius 3 m): a second chord
    d_west = unit([-15.0, 0.0, 4.0])
    los = np.array([v for v, _ in rays.values()] + [d_west])[None]
    vis = np.ones(los.shape[:2], bool)
    chord1 = sphere_chord(a, d_west, np.array([-15.0, 0, 6]), 3.0)
    chord2 = sphere_chord(a, d_west, np.array([-22.0, 0, 6]), 3.0)
    assert chord1 == pytest.approx(6.0, abs=um) and 2.0 < chord1 + chord2 - 8.0 < 3.0
    st = classify(a[None], los, vis, site, 1.5, 8.0, 10.0)
    np.testing.assert_array_equal(st[0, :-1], [s for _, s in rays.values()])
    assert st[0, -1] == BLOCKED  # 6 + 4.79 >= 8 m, though each crown alone is shorter
    st = classify(a[None], los, vis, site, 1.5, 11.0, 10.0)
    assert st[0, -1] == FOLIAGE  # the summed 10.79 m < 11 m


def test_foliage_sum_over_two_crowns_blocks():
    site = make_site(crowns=[(10.0, 0.0, 2.0, 2.5), (20.0, 0.0, 2.0, 2.5)])
    a = np.array([[0.0, 0.0, 2.0]])
    d = np.array([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])  # 0 deg elevation, mask 0
    st = classify(a, d, np.ones((1, 2), bool), site, 1.5, 8.0, 0.0)
    np.testing.assert_array_equal(st, [[BLOCKED, CLEAR]])  # 5 + 5 >= 8
    st = classify(a, d, np.ones((1, 2), bool), site, 1.5, 10.01, 0.0)
    np.testing.assert_array_equal(st, [[FOLIAGE, CLEAR]])


def test_precedence_blocked_foliage_near():
    # a crown in front of a building: the blocked building wins; crown + near: foliage wins
    site = make_site(boxes=[([20.0, -5.0, 0.0], [30.0, 5.0, 10.0])], crowns=[(10.0, 0.0, 2.0, 1.0)])
    a = np.array([[0.0, 0.0, 2.0]])
    d = np.array([[[1.0, 0.0, 0.0], unit([20.0, 0.0, 9.0])]])  # through crown and wall; over roof
    st = classify(a, d, np.ones((1, 2), bool), site, 1.5, 8.0, 0.0)
    assert st[0, 0] == BLOCKED
    # second ray: rises to 2 + 9 = 11 m at the wall (roof 10 m, within the margin): near;
    # it passes 4.5 m over the crown centre, so no foliage
    assert st[0, 1] == NEAR
    site2 = make_site(
        boxes=[([20.0, -5.0, 0.0], [30.0, 5.0, 10.0])], crowns=[(10.0, 0.0, 6.5, 1.0)]
    )
    st = classify(a, d, np.ones((1, 2), bool), site2, 1.5, 8.0, 0.0)
    assert st[0, 1] == FOLIAGE  # crown at the ray's height there: foliage beats near


def test_antenna_inside_a_building_blocks_everything():
    site = make_site(boxes=[([-5.0, -5.0, 0.0], [5.0, 5.0, 4.0])])
    rng = np.random.default_rng(1)
    d = unit(rng.normal(size=(1, 40, 3)) * [1, 1, 0] + [0, 0, 1.5])
    vis = np.ones((1, 40), bool)
    vis[0, :5] = False
    st = classify(np.array([[1.0, 2.0, 1.7]]), d, vis, site, 1.5, 8.0, 10.0)
    assert np.all(st[0, :5] == BELOW_MASK) and np.all(st[0, 5:] == BLOCKED)


def test_no_obstacles_and_no_pairs():
    site = make_site()
    d = np.tile([0.0, 0.0, 1.0], (3, 4, 1))
    vis = np.array([[True] * 4, [False] * 4, [True, False, True, False]])
    st = classify(np.zeros((3, 3)), d, vis, site, 1.5, 8.0, 10.0)
    np.testing.assert_array_equal(st, np.where(vis, CLEAR, BELOW_MASK))
    assert st.dtype == np.int8
    assert classify(
        np.zeros((0, 3)), np.zeros((0, 4, 3)), np.zeros((0, 4), bool), site, 1.5, 8.0, 10.0
    ).shape == (0, 4)


def test_shape_errors():
    site = make_site()
    with pytest.raises(ValueError, match=r"`los` to have shape \(2, nsat, 3\)"):
        classify(
            np.zeros((2, 3)), np.zeros((3, 4, 3)), np.zeros((3, 4), bool), site, 1.5, 8.0, 10.0
        )
    with pytest.raises(ValueError, match="`visible`"):
        classify(
            np.zeros((2, 3)), np.zeros((2, 4, 3)), np.zeros((2, 5), bool), site, 1.5, 8.0, 10.0
        )


@pytest.mark.parametrize("mask", [-5.0, 0.0, 10.0, 45.0, 79.0, 80.0, 85.0, 90.0])
def test_culling_equals_the_angle_comparison_as_written(mask):
    """keep_obstacles decides most pairs by rise / D; the result is that of atan2 >= mask,
    also for obstacles placed at the mask angle to the last bit."""
    rng = np.random.default_rng(int(mask) + 100)
    ant = np.column_stack([rng.uniform(-40, 40, (400, 2)), rng.uniform(0.5, 4.0, 400)])
    ant[:50] = [0.0, 0.0, 1.0]
    centre = np.column_stack([rng.uniform(1.0, 60.0, 80), np.zeros(80)])
    top = rng.uniform(0.0, 20.0, 80)
    # tops at the mask angle from the antenna at (0, 0, 1), give or take an ulp
    top[:40] = (
        1.0
        + centre[:40, 0] * math.tan(math.radians(mask))
        - 1.5
        + rng.choice([0.0, 1e-15, -1e-15, 1e-13, -1e-13], 40)
    )
    ant[50:60, :2] = centre[0]  # straight above an obstacle's centre
    rise = top + 1.5 - ant[:, 2:3]
    dist = np.hypot(centre[:, 0] - ant[:, 0:1], centre[:, 1] - ant[:, 1:2])
    want = (rise > 0.0) & (np.arctan2(rise, dist) >= np.radians(mask))
    np.testing.assert_array_equal(keep_obstacles(ant, centre, top, 1.5, mask), want)


def test_sky_view_keeps_the_site_between_calls():
    rng = np.random.default_rng(5)
    site = random_site(rng)
    ant, los, vis = random_sky(rng, 120, 30)
    view = SkyView(site, 1.5, 8.0, 10.0)
    want = classify(ant, los, vis, site, 1.5, 8.0, 10.0)
    np.testing.assert_array_equal(view.classify(ant, los, vis), want)
    np.testing.assert_array_equal(
        np.concatenate(
            [view.classify(ant[i : i + 1], los[i : i + 1], vis[i : i + 1]) for i in range(120)]
        ),
        want,
    )
    np.testing.assert_array_equal(view.classify(ant, los, vis), want)  # nothing carried over


# --------------------------------------------- against a plain per-ray reference, random skies
def ref_box(o, d, lo, hi):
    t0, t1 = 0.0, math.inf
    for k in range(3):
        if d[k] == 0.0:
            if not lo[k] <= o[k] <= hi[k]:
                return False
            continue
        a, b = (lo[k] - o[k]) / d[k], (hi[k] - o[k]) / d[k]
        t0, t1 = max(t0, min(a, b)), min(t1, max(a, b))
    return t0 <= t1


def ref_cyl(o, d, cx, cy, zb, zt, r):
    # sample-free: the closest approach of the horizontal projection, then the heights there
    wx, wy = o[0] - cx, o[1] - cy
    a = d[0] ** 2 + d[1] ** 2
    b = wx * d[0] + wy * d[1]
    c = wx * wx + wy * wy - r * r
    disc = b * b - a * c
    if disc < 0:
        return False
    s = math.sqrt(disc)
    lo, hi = (-b - s) / a, (-b + s) / a
    if d[2] != 0:
        z0, z1 = sorted(((zb - o[2]) / d[2], (zt - o[2]) / d[2]))
        lo, hi = max(lo, z0), min(hi, z1)
    return max(lo, 0.0) <= hi


def ref_chord(o, d, c, r):
    w = [o[k] - c[k] for k in range(3)]
    b = sum(w[k] * d[k] for k in range(3))
    disc = b * b - (sum(x * x for x in w) - r * r)
    if disc <= 0:
        return 0.0
    t1, t2 = -b - math.sqrt(disc), -b + math.sqrt(disc)
    return max(0.0, t2 - max(t1, 0.0))


def ref_classify(a, d, site, dn, fb, mask):
    def kept(cx, cy, top):
        rise = top + dn - a[2]
        return rise > 0 and math.atan2(rise, math.hypot(cx - a[0], cy - a[1])) >= math.radians(mask)

    def kept_overhead(lo, hi):
        # an overhead box: D is the distance to its footprint (0 beneath it)
        rise = hi[2] + dn - a[2]
        ex = max(lo[0] - a[0], a[0] - hi[0], 0.0)
        ey = max(lo[1] - a[1], a[1] - hi[1], 0.0)
        return rise > 0 and math.atan2(rise, math.hypot(ex, ey)) >= math.radians(mask)

    over = site.box_overhead
    if over is None:
        over = np.zeros(len(site.box_min_m), dtype=bool)
    blocked = near = False
    foliage = 0.0
    for lo, hi, up in zip(site.box_min_m, site.box_max_m, over):
        if kept_overhead(lo, hi) if up else kept((lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, hi[2]):
            blocked |= ref_box(a, d, lo, hi)
            near |= ref_box(a, d, lo - dn, hi + dn)
    for (cx, cy), zb, zt, r in zip(
        site.cyl_xy_m, site.cyl_base_m, site.cyl_top_m, site.cyl_radius_m
    ):
        if kept(cx, cy, zt):
            blocked |= ref_cyl(a, d, cx, cy, zb, zt, r)
            near |= ref_cyl(a, d, cx, cy, zb, zt + dn, r + dn)
    for c, r in zip(site.crown_center_m, site.crown_radius_m):
        if kept(c[0], c[1], c[2] + r):
            foliage += ref_chord(a, d, c, r)
    if blocked or foliage >= fb:
        return BLOCKED
    if foliage > 0:
        return FOLIAGE
    return NEAR if near else CLEAR


def random_site(rng, n_box=8, n_cyl=5, n_crown=15):
    boxes = []
    for _ in range(n_box):
        lo = np.append(rng.uniform(-60, 50, 2), 0.0)
        boxes.append((lo, lo + [*rng.uniform(4, 30, 2), rng.uniform(3, 12)]))
    cyl = [
        (*rng.uniform(-60, 60, 2), 0.0, rng.uniform(6, 20), rng.uniform(2, 6)) for _ in range(n_cyl)
    ]
    crowns = [
        (*rng.uniform(-60, 60, 2), rng.uniform(4, 10), rng.uniform(2, 5)) for _ in range(n_crown)
    ]
    return make_site(boxes, cyl, crowns)


def random_sky(rng, m, nsat):
    ant = np.column_stack([rng.uniform(-70, 70, (m, 2)), rng.uniform(0.5, 4, m)])
    los = unit(rng.normal(size=(m, nsat, 3)))
    los[..., 2] = np.abs(los[..., 2])
    vis = np.degrees(np.arcsin(los[..., 2])) >= 10.0
    return ant, los, vis


def test_classify_matches_a_per_ray_reference_on_random_skies():
    rng = np.random.default_rng(7)
    site = random_site(rng)
    ant, los, vis = random_sky(rng, 150, 30)
    st = classify(ant, los, vis, site, 1.5, 8.0, 10.0)
    ref = np.array(
        [
            [
                ref_classify(ant[i], los[i, k], site, 1.5, 8.0, 10.0) if vis[i, k] else BELOW_MASK
                for k in range(los.shape[1])
            ]
            for i in range(len(ant))
        ],
        dtype=np.int8,
    )
    np.testing.assert_array_equal(st, ref)
    # every outcome occurs, so the comparison means something
    assert set(np.unique(st)) == {BELOW_MASK, CLEAR, NEAR, FOLIAGE, BLOCKED}


def test_classify_is_the_same_however_the_epochs_are_cut(monkeypatch):
    rng = np.random.default_rng(11)
    site = random_site(rng)
    ant, los, vis = random_sky(rng, 400, 40)
    whole = classify(ant, los, vis, site, 1.5, 8.0, 10.0)
    parts = np.concatenate(
        [
            classify(ant[i : i + 37], los[i : i + 37], vis[i : i + 37], site, 1.5, 8.0, 10.0)
            for i in range(0, 400, 37)
        ]
    )
    np.testing.assert_array_equal(whole, parts)
    monkeypatch.setattr(sky, "_BLOCK_TRIPLES", 500)  # many small internal blocks
    np.testing.assert_array_equal(classify(ant, los, vis, site, 1.5, 8.0, 10.0), whole)
    # one epoch a call (the streaming path), with a foliage threshold that some sums straddle,
    # as numpy and as the compiled one-epoch kernel (sky.rays.one_epoch_hits)
    view = SkyView(site, 1.5, 3.0, 10.0)
    whole = view.classify(ant, los, vis)
    import navsense.kernels as kernels

    for on in (False, True) if importlib.util.find_spec("numba") else (False,):
        monkeypatch.setattr(kernels, "_on", on)
        ones = np.concatenate(
            [view.classify(ant[i : i + 1], los[i : i + 1], vis[i : i + 1]) for i in range(400)]
        )
        np.testing.assert_array_equal(ones, whole)
    monkeypatch.setattr(kernels, "_on", False)
    assert set(np.unique(whole)) == {BELOW_MASK, CLEAR, NEAR, FOLIAGE, BLOCKED}


@pytest.mark.parametrize("compiled", [False, True])
def test_one_epoch_a_call_equals_the_block_for_rays_along_the_axes_and_antennas_inside(
    monkeypatch, compiled
):
    """The one-epoch path (SkyView._classify_one: obstacles times satellites, the antenna's
    coordinates as scalars) on the rays the slab and cylinder tests treat apart: parallel to
    an axis (a zero component), vertical, from inside a box, a cylinder and a crown."""
    rng = np.random.default_rng(5)
    site = random_site(rng, n_box=6, n_cyl=4, n_crown=8)
    ant, los, vis = random_sky(rng, 60, 24)
    axes = unit(np.array([[0, 0, 1], [1, 0, 1], [0, -1, 1], [1, 1, 0.3], [0, 1, 0.2]], float))
    los[:, : len(axes)] = axes  # along the axes and vertical, every epoch
    vis[:, : len(axes)] = True
    ant[0] = site.box_min_m[0] + 0.5  # inside a box, a cylinder and a crown
    ant[1] = [*site.cyl_xy_m[0], 1.0]
    ant[2] = site.crown_center_m[0]
    view = SkyView(site, 1.5, 3.0, 10.0)
    whole = view.classify(ant, los, vis)
    if compiled:  # the one-epoch kernel (sky.rays.one_epoch_hits)
        import navsense.kernels as kernels

        pytest.importorskip("numba")
        monkeypatch.setattr(kernels, "_on", True)
    ones = [view.classify(ant[i : i + 1], los[i : i + 1], vis[i : i + 1]) for i in range(60)]
    np.testing.assert_array_equal(np.concatenate(ones), whole)
    assert (whole[:2, : len(axes)] == BLOCKED).all()  # from inside a box or a cylinder
    # the reference's cylinder test needs a horizontal component: the rays but the vertical one
    ref = [
        ref_classify(ant[i], los[i, k], site, 1.5, 3.0, 10.0)
        for i in range(60)
        for k in (1, 2, 3, 4)
    ]
    np.testing.assert_array_equal(whole[:, 1:5].reshape(-1), ref)


# ------------------------------------------------------------------------------ counts, antenna
def test_counts():
    st = np.array([[0, 1, 1, 2, 3, 4, 4], [0, 0, 0, 0, 0, 0, 0]], dtype=np.int8)
    c = counts(st)
    assert {k: v.tolist() for k, v in c.items()} == {
        "satellites_used": [4, 0],
        "satellites_clear": [2, 0],
        "satellites_near_obstruction": [1, 0],
        "satellites_foliage": [1, 0],
        "satellites_blocked": [2, 0],
        "satellites_above_mask": [6, 0],
    }
    np.testing.assert_array_equal(used_mask(st)[0], [False, True, True, True, True, False, False])
    assert counts(np.zeros((0, 5), np.int8))["satellites_used"].shape == (0,)
    # many epochs at once: each row counted on its own
    many = np.random.default_rng(5).integers(0, 5, (300, 41)).astype(np.int8)
    c = counts(many)
    for code, key in (
        (1, "satellites_clear"),
        (2, "satellites_near_obstruction"),
        (3, "satellites_foliage"),
        (4, "satellites_blocked"),
    ):
        np.testing.assert_array_equal(c[key], (many == code).sum(axis=1))
    for i in range(0, 300, 7):  # one epoch a call (its own path): the block's row, int64 (1,)
        one = counts(many[i : i + 1])
        assert list(one) == list(c)
        for key, value in one.items():
            assert value.shape == (1,) and value.dtype == c[key].dtype and value[0] == c[key][i]
    with pytest.raises(ValueError, match="status codes must be 0 .. 4"):
        counts(np.array([[1, 5]], dtype=np.int8))


def test_antenna_position_from_lever_arm():
    p = np.array([[10.0, -5.0, 0.6], [0.0, 0.0, 0.0]])
    q = quat_about_z(np.array([np.pi / 2, 0.0]))
    pa = antenna_position_enu(p, q, [1.1, 0.0, 2.15])
    np.testing.assert_allclose(pa, [[10.0, -3.9, 2.75], [1.1, 0.0, 2.15]], atol=1e-12)


def test_default_spawn_in_the_acre_garage_sees_no_satellite():
    """Specification, "Limitations": at the default spawn the antenna is in the box of the ICSC
    garage, so the receiver has no fix until the vehicle leaves it."""
    from navsense.site import embedded_site, embedded_sites

    if "acre" not in embedded_sites():
        pytest.skip("the embedded acre site is not there yet")
    from navsense.sky.constellation import Constellation

    site = embedded_site("acre")
    const = Constellation(42, {"gps": True, "galileo": True, "glonass": True}, 40.47, -86.99, 185.0)
    t = np.arange(0.0, 60.0, 0.1)
    los = const.los_enu(t)
    vis = const.visible(los, 10.0)
    inside = np.tile([0.0, 0.0, 2.15], (t.size, 1))
    c = counts(classify(inside, los, vis, site, 1.5, 8.0, 10.0))
    assert np.all(c["satellites_used"] == 0) and np.all(c["satellites_blocked"] >= 15)
    outside = np.tile([200.0, -200.0, 2.15], (t.size, 1))  # the open field south-east
    c = counts(classify(outside, los, vis, site, 1.5, 8.0, 10.0))
    np.testing.assert_array_equal(c["satellites_clear"], c["satellites_above_mask"])


@pytest.mark.parametrize(
    "n_box, n_cyl, n_crown", [(0, 0, 9), (6, 0, 0), (0, 4, 0), (3, 2, 0), (0, 0, 0)]
)
def test_classify_with_some_kinds_of_obstacles_missing(n_box, n_cyl, n_crown):
    rng = np.random.default_rng(n_box * 100 + n_cyl * 10 + n_crown)
    site = random_site(rng, n_box, n_cyl, n_crown)
    ant, los, vis = random_sky(rng, 60, 25)
    st = classify(ant, los, vis, site, 1.5, 8.0, 10.0)
    ref = np.array(
        [
            [
                ref_classify(ant[i], los[i, k], site, 1.5, 8.0, 10.0) if vis[i, k] else BELOW_MASK
                for k in range(los.shape[1])
            ]
            for i in range(len(ant))
        ],
        dtype=np.int8,
    )
    np.testing.assert_array_equal(st, ref)
    view = SkyView(site, 1.5, 8.0, 10.0)
    np.testing.assert_array_equal(
        np.concatenate(
            [view.classify(ant[i : i + 1], los[i : i + 1], vis[i : i + 1]) for i in range(60)]
        ),
        ref,
    )


# ------------------------------------- overhead boxes (a building's base_m > 0; issue 19 s.2)
def random_site_with_overhead(rng):
    """:func:`random_site` plus long raised slabs (bridges, tunnel roofs) over the antennas."""
    base = random_site(rng)
    boxes = list(zip(base.box_min_m, base.box_max_m, strict=True))
    flags = [False] * len(boxes)
    for _ in range(6):
        lo = np.array([*rng.uniform(-80, 40, 2), rng.uniform(3.0, 6.0)])
        size = [rng.uniform(40, 160), rng.uniform(6, 40), rng.uniform(0.5, 2.0)]
        if rng.uniform() < 0.5:
            size[0], size[1] = size[1], size[0]
        boxes.append((lo, lo + size))
        flags.append(True)
    cyl = np.column_stack(
        [base.cyl_xy_m, base.cyl_base_m, base.cyl_top_m, base.cyl_radius_m]
    ).tolist()
    crowns = np.column_stack([base.crown_center_m, base.crown_radius_m]).tolist()
    return make_site(boxes, cyl, crowns, overhead=flags)


def test_classify_with_overhead_boxes_matches_the_per_ray_reference():
    rng = np.random.default_rng(19)
    site = random_site_with_overhead(rng)
    ant, los, vis = random_sky(rng, 200, 30)
    ant[:, 2] = rng.uniform(0.5, 8.0, len(ant))  # some antennas above the slabs
    st = classify(ant, los, vis, site, 1.5, 8.0, 10.0)
    ref = np.array(
        [
            [
                ref_classify(ant[i], los[i, k], site, 1.5, 8.0, 10.0) if vis[i, k] else BELOW_MASK
                for k in range(los.shape[1])
            ]
            for i in range(len(ant))
        ],
        dtype=np.int8,
    )
    np.testing.assert_array_equal(st, ref)
    assert set(np.unique(st)) == {BELOW_MASK, CLEAR, NEAR, FOLIAGE, BLOCKED}
    # the footprint culling decides something here: as boxes culled by their centres, the
    # statuses differ for some rays
    as_ground = make_site(
        list(zip(site.box_min_m, site.box_max_m, strict=True)),
        np.column_stack([site.cyl_xy_m, site.cyl_base_m, site.cyl_top_m, site.cyl_radius_m]),
        np.column_stack([site.crown_center_m, site.crown_radius_m]),
    )
    assert np.any(classify(ant, los, vis, as_ground, 1.5, 8.0, 10.0) != st)


def test_overhead_boxes_give_the_same_statuses_however_the_epochs_are_cut(monkeypatch):
    rng = np.random.default_rng(23)
    site = random_site_with_overhead(rng)
    ant, los, vis = random_sky(rng, 300, 30)
    view = SkyView(site, 1.5, 8.0, 10.0)
    whole = view.classify(ant, los, vis)
    ones = np.concatenate(
        [view.classify(ant[i : i + 1], los[i : i + 1], vis[i : i + 1]) for i in range(300)]
    )
    np.testing.assert_array_equal(ones, whole)
    monkeypatch.setattr(sky, "_BLOCK_TRIPLES", 500)
    np.testing.assert_array_equal(classify(ant, los, vis, site, 1.5, 8.0, 10.0), whole)


def test_culling_of_tiny_and_huge_distances_takes_hypot():
    """keep_obstacles of a chunk takes D = sqrt(ex^2 + ey^2) for hypot(ex, ey) where the
    ratio decides; where the squares under- or overflow it is hypot's D again (an antenna
    1e-160 m from a centre below a rise of 1e-170 m is not kept)."""
    ant = np.zeros((300, 3))
    ant[:, 0] = np.geomspace(1e-170, 1e170, 300)
    ant[:, 2] = -ant[:, 0] * np.resize([1e-10, 0.1, 1.0, 10.0], 300)  # rise / D
    ant[:2] = [[1e-170, 0.0, -1e-180], [1e170, 0.0, -1e170]]  # not kept; kept
    centre = np.zeros((2, 2))
    top = np.zeros(2)
    rise = top + 0.0 - ant[:, 2:3]
    dist = np.hypot(centre[:, 0] - ant[:, 0:1], centre[:, 1] - ant[:, 1:2])
    with np.errstate(over="ignore"):  # rise / D overflows (on either path)
        want = (rise > 0.0) & (np.arctan2(rise, dist) >= np.radians(10.0))
        got = keep_obstacles(ant, centre, top, 0.0, 10.0)
    np.testing.assert_array_equal(got, want)
    assert want.any() and not want.all()
