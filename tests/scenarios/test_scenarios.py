"""The embedded ACRE site and the acre-loop scenario: layout, route properties, listing, loading."""

from __future__ import annotations

import json

import numpy as np
import pytest

from navsense.errors import ConfigError
from navsense.rotation import quat_to_matrix, rotate
from navsense.scenarios import Scenario, list_scenarios, load_scenario
from navsense.site import embedded_site
from navsense.vehicles import lever_arm_from_chassis

POLARIS_ANTENNA_FOOTPRINT_M = [1.1, 0.0, 2.15]  # the Polaris GNSS antenna, base_footprint mount
RATE_HZ = 120.0


@pytest.fixture(scope="module")
def loop() -> Scenario:
    return load_scenario("acre-loop")


@pytest.fixture(scope="module")
def antenna(loop) -> np.ndarray:
    truth = loop.truth
    arm = lever_arm_from_chassis(POLARIS_ANTENNA_FOOTPRINT_M, "base_footprint", loop.vehicle)
    return truth.p_m + rotate(quat_to_matrix(truth.q_xyzw), np.broadcast_to(arm, truth.p_m.shape))


def horizontal_clearance_m(xy: np.ndarray, site) -> np.ndarray:
    """Horizontal distance from each point to the nearest obstacle surface (box footprint,
    cylinder wall, crown sphere's equator), m."""
    lo, hi = site.box_min_m[None, :, :2], site.box_max_m[None, :, :2]
    out = np.maximum(np.maximum(lo - xy[:, None], 0.0), np.maximum(xy[:, None] - hi, 0.0))
    boxes = np.linalg.norm(out, axis=2).min(axis=1)
    bins = (np.linalg.norm(xy[:, None] - site.cyl_xy_m[None], axis=2) - site.cyl_radius_m).min(
        axis=1
    )
    crowns = (
        np.linalg.norm(xy[:, None] - site.crown_center_m[None, :, :2], axis=2) - site.crown_radius_m
    ).min(axis=1)
    return np.minimum(np.minimum(boxes, bins), crowns)


def test_acre_site_layout():
    site = embedded_site("acre")
    assert site.georeference == {"kind": "acre"}
    garage = site.names["buildings"].index("ICSC garage")
    size = site.box_max_m[garage] - site.box_min_m[garage]
    assert 10 <= size[0] <= 14 and 16 <= size[1] <= 20 and 5 <= size[2] <= 7
    assert np.all(site.box_min_m[garage, :2] < 0) and np.all(site.box_max_m[garage, :2] > 0)
    assert len(site.box_min_m) >= 2  # + shed / house
    assert 3 <= len(site.cyl_radius_m) <= 4
    assert np.all((site.cyl_radius_m >= 5) & (site.cyl_radius_m <= 9))
    heights = site.cyl_top_m - site.cyl_base_m
    assert np.all((heights >= 12) & (heights <= 25))
    d = np.linalg.norm(site.cyl_xy_m, axis=1)
    assert np.all((d >= 40) & (d <= 80))
    assert 20 <= len(site.crown_radius_m) <= 30
    assert np.all((site.crown_radius_m >= 4) & (site.crown_radius_m <= 6))
    assert np.all((site.crown_center_m[:, 2] >= 8) & (site.crown_center_m[:, 2] <= 12))
    # obstacles do not overlap each other (bins pairwise)
    gaps = (
        np.linalg.norm(site.cyl_xy_m[:, None] - site.cyl_xy_m[None], axis=2)
        - site.cyl_radius_m[:, None]
        - site.cyl_radius_m[None]
    )
    assert gaps[~np.eye(len(gaps), dtype=bool)].min() > 0


def test_list_scenarios_contains_acre_loop():
    listed = {s["name"]: s for s in list_scenarios()}
    assert "acre-loop" in listed
    entry = listed["acre-loop"]
    assert entry["vehicle"] == "polaris" and entry["site"] == "acre"
    assert entry["duration_s"] == 600.0 and entry["description"]


def test_loop_is_ten_minutes_at_120_hz(loop):
    truth = loop.truth
    assert loop.vehicle.name == "polaris" and loop.site.name == "acre"
    assert truth.rate_hz == RATE_HZ and truth.step0 == 0 and len(truth) == 72_001
    assert not truth.reset.any()


def test_starts_parked_in_the_garage_with_the_antenna_inside(loop, antenna):
    site, truth = loop.site, loop.truth
    garage = site.names["buildings"].index("ICSC garage")
    inside = np.all(
        (antenna >= site.box_min_m[garage]) & (antenna <= site.box_max_m[garage]), axis=1
    )
    parked = np.all(truth.v_mps == 0.0, axis=1)
    first_20_s = slice(0, int(20 * RATE_HZ) + 1)
    assert inside[first_20_s].all() and parked[first_20_s].all()
    assert not parked[int(21 * RATE_HZ)]
    assert inside[-1] and parked[-1]  # and back at the end
    assert np.abs(truth.p_m[-1] - truth.p_m[0]).max() < 1e-9


def test_passes_the_grain_bins_and_the_windbreak(loop, antenna):
    site = loop.site
    xy = antenna[:, :2]
    to_bin_axis = np.linalg.norm(xy[:, None] - site.cyl_xy_m[None], axis=2).min(axis=1)
    to_crown_centre = np.linalg.norm(xy[:, None] - site.crown_center_m[None, :, :2], axis=2).min(
        axis=1
    )
    assert to_bin_axis.min() <= 20.0
    assert (to_bin_axis <= 20.0).sum() / RATE_HZ > 30.0  # not just a glance
    assert to_crown_centre.min() <= 10.0
    assert (to_crown_centre <= 10.0).sum() / RATE_HZ > 60.0
    # never inside an obstacle (the garage excepted: it is driven through its doors)
    clearance = horizontal_clearance_m(xy, site)
    garage = site.names["buildings"].index("ICSC garage")
    in_garage = np.all(
        (xy >= site.box_min_m[garage, :2]) & (xy <= site.box_max_m[garage, :2]), axis=1
    )
    others = type(site)(
        **{
            **site.__dict__,
            "box_min_m": np.delete(site.box_min_m, garage, 0),
            "box_max_m": np.delete(site.box_max_m, garage, 0),
        }
    )
    assert horizontal_clearance_m(xy, others).min() > 1.0
    assert clearance[~in_garage].min() >= 0.0


def test_spends_three_minutes_in_open_sky(loop, antenna):
    clearance = horizontal_clearance_m(antenna[:, :2], loop.site)
    far = clearance > 100.0
    assert far.sum() / RATE_HZ >= 180.0
    # in one stretch (long enough for an RTK fix to converge)
    edges = np.diff(np.concatenate([[0], far.astype(np.int8), [0]]))
    longest = (np.flatnonzero(edges == -1) - np.flatnonzero(edges == 1)).max()
    assert longest / RATE_HZ >= 180.0


def test_route_is_drivable(loop):
    ev = loop.trajectory.evaluate(loop.truth.t_s)
    assert 2.0 <= ev.speed_mps[ev.speed_mps > 0].max() <= 8.0
    assert np.abs(ev.accel_mps2).max() <= loop.route.accel_mps2 * (1 + 1e-12)
    lateral = np.abs(ev.speed_mps * loop.truth.w_radps[:, 2])
    assert lateral.max() < 2.0  # m/s^2, comfortable
    moving = ev.speed_mps > 0.5
    radius = ev.speed_mps[moving] / np.maximum(np.abs(loop.truth.w_radps[moving, 2]), 1e-12)
    assert radius.min() > 6.0  # Polaris turning radius


def test_repeat_to_an_hour_is_seamless():
    hour = load_scenario("acre-loop", duration_s=3600.0)
    truth = hour.truth
    assert len(truth) == 3600 * 120 + 1
    one = load_scenario("acre-loop").truth
    period = len(one) - 1
    assert np.array_equal(truth.p_m[period : 2 * period], one.p_m[:period])
    seam = slice(period - 2, period + 3)
    assert np.all(truth.v_mps[seam] == 0.0)
    assert np.einsum("ij,ij->i", truth.q_xyzw[1:], truth.q_xyzw[:-1]).min() > 0.999
    dt = 1.0 / 120.0
    steps = 0.5 * (truth.v_mps[1:] + truth.v_mps[:-1]) * dt
    integral = truth.c_m[0] + np.vstack([np.zeros(3), np.cumsum(steps, axis=0)])
    assert np.abs(integral - truth.c_m).max() < 1e-3


def test_unknown_scenario_lists_the_known_ones():
    with pytest.raises(
        ConfigError,
        match=r"scenario = 'nowhere' is not an embedded scenario .*"
        r"known: .*acre-loop",
    ):
        load_scenario("nowhere")


def test_scenario_file_by_path(tmp_path):
    route = {
        "vehicle": "maxxum",
        "points": [{"enu_m": [0, 0, 0]}, {"enu_m": [30, 0, 0], "speed_mps": 3}],
    }
    (tmp_path / "r.waypoints.json").write_text(json.dumps(route))
    scen = {"name": "mine", "site": "acre", "vehicle": "maxxum", "waypoints": "r.waypoints.json"}
    (tmp_path / "mine.json").write_text(json.dumps(scen))
    sc = load_scenario(str(tmp_path / "mine.json"))
    assert sc.name == "mine" and sc.vehicle.name == "maxxum" and len(sc.truth) > 3
    (tmp_path / "bad.json").write_text(json.dumps({**scen, "vehicles": "x"}))
    with pytest.raises(ConfigError, match=r"bad\.json: 'vehicles' is not a known key"):
        load_scenario(str(tmp_path / "bad.json"))
