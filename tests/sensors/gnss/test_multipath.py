"""Reflector index and multipath index (specification, "Multipath Index")."""

import importlib.util
import math

import numpy as np
import pytest

from conftest import make_site
from navsense.sensors.gnss.multipath import (
    ELEVATION_SCALE_RAD,
    Reflectors,
    multipath_index,
    reflector_index,
)

BOX = ([10.0, -5.0, 0.0], [20.0, 5.0, 8.0])  # centre (15, 0), half diagonal sqrt(50), top 8
CYL = (0.0, 30.0, 0.0, 15.0, 4.0)  # axis (0, 30), radius 4, top 15
ANT = np.array([[0.0, 0.0, 2.0]])


def test_one_box_by_hand():
    # D = 15, b_h = 7.0711: 2 atan2(7.0711, 15) / 2 pi = 0.140219;
    # atan2(8 - 2, 15) = 21.801 deg / 30 deg = 0.726714; 1 - 15/60 = 0.75 -> 0.076424
    rho = reflector_index(ANT, make_site(boxes=[BOX]), 60.0)
    expected = (
        2
        * math.atan2(math.sqrt(50.0), 15.0)
        / (2 * math.pi)
        * (math.degrees(math.atan2(6.0, 15.0)) / 30.0)
        * 0.75
    )
    assert rho[0] == pytest.approx(expected, rel=1e-12)
    assert rho[0] == pytest.approx(0.076424, abs=1e-6)


def test_one_cylinder_by_hand():
    # D = 30, b_h = 4: 2 atan2(4, 30) / 2 pi = 0.042193; atan2(13, 30) = 23.429 deg / 30 = 0.780956;
    # 1 - 30/60 = 0.5 -> 0.016475
    rho = reflector_index(ANT, make_site(cylinders=[CYL]), 60.0)
    expected = (
        2
        * math.atan2(4.0, 30.0)
        / (2 * math.pi)
        * (math.degrees(math.atan2(13.0, 30.0)) / 30.0)
        * 0.5
    )
    assert rho[0] == pytest.approx(expected, rel=1e-12)
    assert rho[0] == pytest.approx(0.016475, abs=1e-6)


def test_sum_range_clamps_and_crowns():
    site = make_site(boxes=[BOX], cylinders=[CYL], crowns=[(3.0, 0.0, 5.0, 3.0)])
    both = reflector_index(ANT, site, 60.0)
    assert both[0] == pytest.approx(0.076424 + 0.016475, abs=2e-6)  # crowns are not solid
    # the cylinder at D = 30 is out of a 30 m range (D < d_r only), the box is not
    only_box = reflector_index(ANT, make_site(boxes=[BOX]), 30.0)
    assert reflector_index(ANT, site, 30.0)[0] == pytest.approx(only_box[0], rel=1e-15)
    # an obstacle whose top is below the antenna adds nothing
    assert reflector_index(np.array([[0.0, 0.0, 9.0]]), make_site(boxes=[BOX]), 60.0)[0] == 0.0
    # a tall obstacle: the elevation factor saturates at 1
    tall = make_site(cylinders=[(0.0, 10.0, 0.0, 100.0, 2.0)])
    expected = 2 * math.atan2(2.0, 10.0) / (2 * math.pi) * 1.0 * (1 - 10 / 60)
    assert reflector_index(ANT, tall, 60.0)[0] == pytest.approx(expected, rel=1e-12)
    # at the axis D = 0 uses max(D, 1) = 1 in the angles and D = 0 in the range factor
    on_axis = reflector_index(np.array([[0.0, 10.0, 2.0]]), tall, 60.0)[0]
    assert on_axis == pytest.approx(2 * math.atan2(2.0, 1.0) / (2 * math.pi), rel=1e-12)
    # many close tall obstacles: clamped to 1
    ring = make_site(
        cylinders=[
            (10 * math.cos(a), 10 * math.sin(a), 0.0, 50.0, 4.0)
            for a in np.linspace(0, 2 * math.pi, 12, endpoint=False)
        ]
    )
    assert reflector_index(ANT, ring, 60.0)[0] == 1.0


def test_vectorised_over_epochs_and_empty_site():
    site = make_site(boxes=[BOX], cylinders=[CYL])
    ant = np.array([[0.0, 0.0, 2.0], [100.0, 100.0, 2.0], [15.0, 0.0, 2.0]])
    rho = reflector_index(ant, site, 60.0)
    assert rho.shape == (3,) and rho[1] == 0.0
    np.testing.assert_array_equal(rho[:1], reflector_index(ant[:1], site, 60.0))
    assert reflector_index(ant, make_site(), 60.0).tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(ValueError, match=r"shape \(m, 3\)"):
        reflector_index(np.zeros(3), site, 60.0)


def loop_reference(a, site, d_r):
    """The equation obstacle by obstacle (boxes, then cylinders), summed in that order."""
    lo, hi = site.box_min_m, site.box_max_m
    centre = np.concatenate([0.5 * (lo[:, :2] + hi[:, :2]), site.cyl_xy_m])
    half = np.concatenate(
        [0.5 * np.hypot(hi[:, 0] - lo[:, 0], hi[:, 1] - lo[:, 1]), site.cyl_radius_m]
    )
    top = np.concatenate([hi[:, 2], site.cyl_top_m])
    rho = np.zeros(len(a))
    for k in range(len(top)):
        dist = np.hypot(centre[k, 0] - a[:, 0], centre[k, 1] - a[:, 1])
        dist1 = np.maximum(dist, 1.0)
        width = 2.0 * np.arctan2(half[k], dist1) / (2.0 * np.pi)
        height = np.clip(np.arctan2(top[k] - a[:, 2], dist1) / ELEVATION_SCALE_RAD, 0.0, 1.0)
        rho += np.where(dist < d_r, width * height * (1.0 - dist / d_r), 0.0)
    return np.clip(rho, 0.0, 1.0)


@pytest.mark.parametrize("d_r", [5.0, 40.0, 300.0])
def test_prepared_reflectors_equal_the_obstacle_loop(d_r):
    rng = np.random.default_rng(int(d_r))
    boxes = [
        (lo, lo + [*rng.uniform(3, 20, 2), rng.uniform(2, 12)])
        for lo in np.column_stack([rng.uniform(-60, 60, (6, 2)), np.zeros(6)])
    ]
    cyl = [(*rng.uniform(-60, 60, 2), 0.0, rng.uniform(5, 20), rng.uniform(2, 6)) for _ in range(5)]
    site = make_site(boxes, cyl)
    ant = np.column_stack([rng.uniform(-70, 70, (400, 2)), rng.uniform(0.5, 4, 400)])
    ant[:5, :2] = site.cyl_xy_m[0]  # on an axis: D = 0
    want = loop_reference(ant, site, d_r)
    assert reflector_index(ant, site, d_r).tobytes() == want.tobytes()
    prepared = Reflectors(site, d_r)
    got = np.concatenate([prepared.index(ant[i : i + 1]) for i in range(len(ant))])
    assert got.tobytes() == want.tobytes()


def test_multipath_index():
    m = multipath_index(
        np.array([0, 2, 0, 10, 0]),
        np.array([0, 2, 0, 0, 0]),
        np.array([10, 10, 0, 10, 0]),
        np.array([0.0, 0.1, 0.4, 0.5, 0.0]),
    )
    # (2 + 1) / 10 + 0.05 = 0.35; no used satellites: max(N_u, 1) = 1; clamped at 1
    np.testing.assert_allclose(m, [0.0, 0.35, 0.2, 1.0, 0.0], rtol=1e-15)


# --------------------------------------------------------------------------- one epoch = batch
@pytest.mark.parametrize("site_kind", ["mixed", "ring", "empty", "one_tall"])
def test_one_epoch_reflector_index_equals_the_batch_bit_for_bit(monkeypatch, site_kind):
    rng = np.random.default_rng(4)
    sites = {
        "mixed": make_site(
            [BOX, ([-40.0, 20.0, 0.0], [-25.0, 35.0, 6.0])],
            [CYL, (50.0, -10.0, 0.0, 9.0, 3.0)],
            crowns=[(3.0, 0.0, 5.0, 3.0)],
        ),
        "ring": make_site(
            cylinders=[
                (10 * math.cos(a), 10 * math.sin(a), 0.0, 50.0, 4.0)  # rho clamped
                for a in np.linspace(0, 2 * math.pi, 12, endpoint=False)
            ]
        ),
        "empty": make_site(),
        "one_tall": make_site(
            cylinders=[(0.0, 10.0, 0.0, 100.0, 2.0)]
        ),  # height factor clamped at 1
    }
    site = sites[site_kind]
    ant = np.column_stack([rng.uniform(-120, 120, (600, 2)), rng.uniform(0.5, 12.0, 600)])
    ant[:3] = [
        [0.0, 10.0, 2.0],
        [15.0, 0.0, 9.0],
        [500.0, 500.0, 2.0],
    ]  # on an axis, above a top, far
    prepared = Reflectors(site, 60.0)
    whole = prepared.index(ant)
    import navsense.kernels as kernels  # one epoch: two kernels (multipath._reflector_*)

    for on in (False, True) if importlib.util.find_spec("numba") else (False,):
        monkeypatch.setattr(kernels, "_on", on)
        steps = [prepared.index(ant[i : i + 1]) for i in range(len(ant))]
        assert all(s.shape == (1,) and s.dtype == whole.dtype for s in steps)
        assert np.concatenate(steps).tobytes() == whole.tobytes()
    monkeypatch.setattr(kernels, "_on", False)
    if site_kind == "mixed":  # with and without reflectors in range
        assert 0 < np.count_nonzero(whole) < len(whole)


def test_one_epoch_multipath_index_equals_the_batch_bit_for_bit():
    rng = np.random.default_rng(8)
    n = 500
    counts = [rng.integers(0, 13, n) for _ in range(3)]  # integer counts; N_u = 0 uses max(N_u, 1)
    rho = rng.choice([0.0, 0.013, 0.4, 1.0], n)
    whole = multipath_index(*counts, rho)
    steps = [multipath_index(*(c[k : k + 1] for c in counts), rho[k : k + 1]) for k in range(n)]
    assert all(s.shape == (1,) and s.dtype == whole.dtype for s in steps)
    assert np.concatenate(steps).tobytes() == whole.tobytes()
    assert (whole == 1.0).any() and (counts[2] == 0).any()  # the clamp and max(N_u, 1) met
