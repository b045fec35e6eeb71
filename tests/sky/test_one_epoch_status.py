"""navsense.sky.rays.one_epoch_status (issue 31): the compiled one-epoch sky view gives the
statuses of the numpy block path, bit for bit, compiled and run as plain Python, on random skies
and on the cases its tests treat apart (rays along the axes, vertical, antennas inside
obstacles, crowns straddling the foliage threshold, culling near the mask)."""

import importlib.util

import numpy as np
import pytest

import navsense.kernels as kernels
from conftest import make_site
from navsense.sky.obstruction import SkyView
from navsense.sky.rays import one_epoch_status
from navsense.sky.status import BELOW_MASK, BLOCKED, CLEAR, FOLIAGE, NEAR

HAS_NUMBA = importlib.util.find_spec("numba") is not None


def unit(v):
    v = np.asarray(v, dtype=float)
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


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


def sky(rng, site, m, nsat):
    ant = np.column_stack([rng.uniform(-70, 70, (m, 2)), rng.uniform(0.5, 4, m)])
    los = unit(rng.normal(size=(m, nsat, 3)))
    los[..., 2] = np.abs(los[..., 2])
    axes = unit(np.array([[0, 0, 1], [1, 0, 1], [0, -1, 1], [1, 1, 0.3], [0, 1, 0.2]], float))
    los[:, : len(axes)] = axes  # along the axes and vertical, every epoch
    vis = np.degrees(np.arcsin(los[..., 2])) >= 10.0
    vis[:, : len(axes)] = True
    if len(site.box_min_m):  # inside a box, then on its face
        ant[0] = site.box_min_m[0] + 0.5
        ant[3] = [site.box_min_m[0][0], site.box_min_m[0][1] + 1.0, 1.0]
    if len(site.cyl_xy_m):  # inside a cylinder
        ant[1] = [*site.cyl_xy_m[0], 1.0]
    if len(site.crown_center_m):  # inside a crown
        ant[2] = site.crown_center_m[0]
    return ant, los, vis


def kernel_status(view, ant, lb, vis, compiled):
    """The kernel's out (nsat + 1,) for one epoch, compiled or as plain Python."""
    fn = one_epoch_status._dispatcher() if compiled else one_epoch_status.fn
    out = np.full(vis.size + 1, -1.0)
    dist = np.hypot(view._cx - ant[0], view._cy - ant[1])
    fn(
        ant,
        np.ascontiguousarray(lb),
        vis.astype(np.float64),
        dist,
        view._top_dn,
        view._box_rows,
        view._cyl_rows,
        view._crown_rows,
        view._one_par,
        out,
    )
    return out


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("seed, kinds", [(3, (8, 5, 15)), (4, (0, 4, 6)), (5, (5, 0, 0))])
def test_the_kernel_gives_the_block_statuses(compiled, seed, kinds):
    if compiled and not HAS_NUMBA:
        pytest.skip("numba is not installed")
    rng = np.random.default_rng(seed)
    site = random_site(rng, *kinds)
    ant, los, vis = sky(rng, site, 80, 30)
    view = SkyView(site, 1.5, 3.0, 10.0)  # a threshold that some crown sums straddle
    whole = view.classify(ant, los, vis)  # numpy, the block of all epochs
    for i in range(len(ant)):
        out = kernel_status(view, ant[i], los[i], vis[i], compiled)
        if out[-1] == 0.0:
            np.testing.assert_array_equal(out[:-1], whole[i].astype(float))
        else:  # an obstacle's culling near the mask: nothing written
            assert (out[:-1] == -1.0).all()
    if kinds == (8, 5, 15):  # every outcome occurs, so the comparison means something
        assert set(np.unique(whole)) == {BELOW_MASK, CLEAR, NEAR, FOLIAGE, BLOCKED}


def test_culling_near_the_mask_leaves_it_to_the_numpy_path(monkeypatch):
    """An obstacle whose top is seen at the mask (within the ratio test's margin) needs
    arctan2: the kernel says so, and the one-epoch call gives the block's statuses anyway."""
    site = make_site([((10.0, -5.0, 0.0), (20.0, 5.0, 1.0 + np.tan(np.radians(10.0)) * 15.0))])
    view = SkyView(site, 0.0, 3.0, 10.0)
    ant = np.array([[0.0, 0.0, 1.0]])
    los = unit(np.array([[[1.0, 0.0, 0.05], [1.0, 0.0, 0.5], [0.0, 1.0, 1.0]]]))
    vis = np.array([[True, True, True]])
    for compiled in (False, True) if HAS_NUMBA else (False,):
        assert kernel_status(view, ant[0], los[0], vis[0], compiled)[-1] == 1.0
    whole = view.classify(np.repeat(ant, 2, 0), np.repeat(los, 2, 0), np.repeat(vis, 2, 0))
    if HAS_NUMBA:
        monkeypatch.setattr(kernels, "_on", True)
    np.testing.assert_array_equal(view.classify(ant, los, vis), whole[:1])
    monkeypatch.setattr(kernels, "_on", False)


def test_the_kernel_is_not_used_where_it_does_not_apply():
    """Overhead boxes, footprints and masks beyond 80 deg keep the numpy one-epoch path."""
    site = make_site([((0.0, 0.0, 5.0), (10.0, 10.0, 6.0))], overhead=[True])
    assert SkyView(site, 1.0, 3.0, 10.0)._one_par is None
    assert SkyView(make_site(), 1.0, 3.0, 85.0)._one_par is None
    assert SkyView(make_site(), 1.0, 3.0, 10.0)._one_par is not None
