"""Obstacles that do not stand on the ground (issue 19 section 2): a building's ``base_m``.

External truths: plane geometry of a slab over an antenna (a ray at elevation e meets the
underside h above the antenna at the horizontal distance h / tan e), and the specification's
boxes, which a building without base_m stays.
"""

import json
import math

import numpy as np
import pytest

from navsense.errors import ConfigError
from navsense.site import embedded_site, load_site, site_from_json
from navsense.sky.obstruction import BLOCKED, CLEAR, NEAR, classify

MASK, NEAR_M, FOLIAGE_M = 10.0, 1.5, 8.0


def el_az(elev_deg, az_deg):
    e, a = math.radians(elev_deg), math.radians(az_deg)
    return np.array([math.cos(e) * math.sin(a), math.cos(e) * math.cos(a), math.sin(e)])


def _site(*buildings, name="t"):
    return site_from_json({"name": name, "georeference": None, "buildings": list(buildings)})


def _sky(site, antenna, directions):
    """Statuses of the unit directions (n, 3) seen from one antenna (3,)."""
    d = np.asarray(directions, dtype=float)[None]
    return classify(
        np.asarray([antenna], dtype=float),
        d,
        np.ones(d.shape[:2], bool),
        site,
        NEAR_M,
        FOLIAGE_M,
        MASK,
    )[0]


# ----------------------------------------------------------------------------- the site file
def test_base_m_raises_the_underside_and_marks_the_box_overhead():
    site = _site(
        {"name": "deck", "min_enu_m": [-5, 0, 0], "max_enu_m": [5, 30, 6.2], "base_m": 4.8},
        {"name": "shed", "min_enu_m": [20, 0, 0], "max_enu_m": [30, 10, 4]},
        {
            "name": "slab on the ground",
            "min_enu_m": [40, 0, 0],
            "max_enu_m": [50, 10, 1],
            "base_m": 0,
        },
    )
    np.testing.assert_array_equal(site.box_min_m[:, 2], [4.8, 0.0, 0.0])
    np.testing.assert_array_equal(site.box_max_m[:, 2], [6.2, 4.0, 1.0])
    np.testing.assert_array_equal(site.box_overhead, [True, False, False])
    # base_m = 0 is a box on the ground: the same site as without the key
    plain = _site({"name": "slab on the ground", "min_enu_m": [40, 0, 0], "max_enu_m": [50, 10, 1]})
    zero = _site(
        {
            "name": "slab on the ground",
            "min_enu_m": [40, 0, 0],
            "max_enu_m": [50, 10, 1],
            "base_m": 0.0,
        }
    )
    assert zero.box_overhead is None and plain.box_overhead is None
    np.testing.assert_array_equal(zero.box_min_m, plain.box_min_m)


def test_the_embedded_acre_site_has_no_overhead_obstacle():
    acre = embedded_site("acre")
    assert acre.box_overhead is None
    assert all("base_m" not in b for b in acre.to_json()["buildings"])
    np.testing.assert_array_equal(acre.box_min_m[:, 2], 0.0)


@pytest.mark.parametrize("value", [-0.5, 6.2, 7.0, "4", None, True, float("nan")])
def test_a_bad_base_m_is_one_line_naming_file_key_value_and_range(tmp_path, value):
    path = tmp_path / "bridge.json"
    deck = {"name": "deck", "min_enu_m": [-5, 0, 0], "max_enu_m": [5, 30, 6.2], "base_m": value}
    path.write_text(json.dumps({"name": "b", "buildings": [deck]}, allow_nan=True))
    with pytest.raises(ConfigError) as err:
        load_site(path)
    msg = str(err.value)
    assert "\n" not in msg
    assert msg.startswith(f"{path}: buildings[0].base_m = {json.dumps(value)} is out of range")
    assert "0 <= base_m < 6.2" in msg


# --------------------------------------------------------------------------------- ray tests
# a deck 20 m wide (x), 30 m long (y), underside 5 m, top 6 m; the antenna 2 m up, beneath it
DECK = {"name": "deck", "min_enu_m": [-10, 0, 0], "max_enu_m": [10, 30, 6], "base_m": 5}
UNDER = [0.0, 10.0, 2.0]  # 10 m from the south edge, 20 m from the north one, 10 m from the sides


def test_the_zenith_is_blocked_beneath_and_clear_beside():
    site = _site(DECK)
    up = el_az(90.0, 0.0)
    assert _sky(site, UNDER, [up])[0] == BLOCKED
    assert _sky(site, [0.0, -20.0, 2.0], [up])[0] == CLEAR  # 20 m south of the deck


@pytest.mark.parametrize("az_deg, edge_m", [(0.0, 20.0), (180.0, 10.0), (90.0, 10.0)])
def test_a_bridge_blocks_what_its_slab_hides(az_deg, edge_m):
    """A ray at elevation e meets the underside (3 m up) at 3 / tan e: blocked when that is under
    the slab (within ``edge_m`` of the antenna), clear when it leaves beneath the edge."""
    site = _site(DECK)
    limit = math.degrees(math.atan2(3.0, edge_m))  # 8.5 (north), 16.7 (south, east) deg
    # the near test's margin (the slab enlarged by 1.5 m) lies between the two
    near_limit = math.degrees(math.atan2(3.0 - NEAR_M, edge_m + NEAR_M))
    els = [limit + 0.2, 89.0, 45.0]
    st = _sky(site, UNDER, [el_az(e, az_deg) for e in els])
    assert st.tolist() == [BLOCKED] * 3
    assert limit - 0.2 > near_limit + 0.2
    below = _sky(site, UNDER, [el_az(limit - 0.2, az_deg), el_az(near_limit - 0.2, az_deg)])
    assert below.tolist() == [NEAR, CLEAR]


def test_a_roof_over_the_whole_sky_above_the_mask_blocks_every_satellite():
    """A tunnel roof 200 m long, 40 m wide, 3 m above the antenna: every ray above the 10 deg
    mask meets it (3 / tan 10 deg = 17 m < 20 m to the side), wherever the antenna is under it.
    Its centre is far from the ends: there the specification's culling by the centre would drop
    it (atan2(6 - 2 + 1.5, 95) = 3.3 deg < 10 deg); the footprint's distance keeps it."""
    roof = {"name": "tunnel", "min_enu_m": [-20, 0, 0], "max_enu_m": [20, 200, 6], "base_m": 5}
    site = _site(roof)
    rng = np.random.default_rng(3)
    az = rng.uniform(0, 360, 400)
    el = rng.uniform(MASK, 90, 400)
    d = np.array([el_az(e, a) for e, a in zip(el, az, strict=True)])
    for y in (20.0, 100.0, 180.0):  # 17 m or more from the portals
        assert np.all(_sky(site, [0.0, y, 2.0], d) == BLOCKED), y
    # the same slab read as a specification box (no base_m, min z = 5): culled by its centre
    floating = _site({"name": "floating", "min_enu_m": [-20, 0, 5], "max_enu_m": [20, 200, 6]})
    assert floating.box_overhead is None
    assert np.all(_sky(floating, [0.0, 5.0, 2.0], d) == CLEAR)
    assert np.all(_sky(site, [0.0, 5.0, 2.0], d[el > 60.0]) == BLOCKED)


def test_driving_over_the_bridge_it_hides_nothing():
    site = _site(DECK)
    on_top = [0.0, 10.0, 6.0 + 1.9]
    d = [el_az(e, a) for e in (10.5, 30.0, 89.0) for a in (0.0, 90.0, 180.0, 270.0)]
    assert np.all(_sky(site, on_top, d) == CLEAR)
