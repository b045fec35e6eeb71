"""Dilution of precision (specification, "Dilution of Precision")."""

import numpy as np
import pytest

from navsense.sensors.gnss.dop import NO_DOP, dop, dops


def unit(v):
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def random_skies(rng, m, nsat):
    los = unit(rng.normal(size=(m, nsat, 3)))
    los[..., 2] = np.abs(los[..., 2])
    used = rng.uniform(size=(m, nsat)) < 0.6
    return los, used


def lstsq_dop(los, used):
    """Per epoch: the covariance of the least-squares position-and-clock solution (unit sigma)."""
    g = np.column_stack([-los[used], np.ones(used.sum())])
    # covariance of x = argmin |G x - y|: (G^T G)^-1, taken from the pseudo-inverse
    pinv = np.linalg.pinv(g)
    q = pinv @ pinv.T
    return np.sqrt(q[0, 0] + q[1, 1]), np.sqrt(q[2, 2]), np.sqrt(q[0, 0] + q[1, 1] + q[2, 2])


def test_dop_against_least_squares_on_random_skies():
    rng = np.random.default_rng(3)
    los, used = random_skies(rng, 500, 25)
    h, v, p = dop(los, used)
    for i in range(len(los)):
        if used[i].sum() < 4:
            continue
        eh, ev, ep = lstsq_dop(los[i], used[i])
        np.testing.assert_allclose([h[i], v[i], p[i]], [eh, ev, ep], rtol=1e-9)
    assert np.all(p >= h) and np.all(p >= v)
    np.testing.assert_allclose(p**2, h**2 + v**2, rtol=1e-12)


def test_dop_of_a_known_sky():
    # one satellite at the zenith and three at 0 deg, 120 deg apart: a closed form
    # G^T G = [[1.5, 0, 0, 0], [0, 1.5, 0, 0], [0, 0, 1, -1], [0, 0, -1, 4]]
    # -> Q11 = Q22 = 2/3, Q33 = 4/3  (the 2x2 block [[1, -1], [-1, 4]]^-1 = [[4, 1], [1, 1]] / 3)
    az = np.radians([0.0, 120.0, 240.0])
    los = np.array([[[0, 0, 1], *np.column_stack([np.sin(az), np.cos(az), np.zeros(3)])]])
    h, v, p = dop(los, np.ones((1, 4), bool))
    np.testing.assert_allclose(h, np.sqrt(4 / 3), rtol=1e-13)
    np.testing.assert_allclose(v, np.sqrt(4 / 3), rtol=1e-13)
    np.testing.assert_allclose(p, np.sqrt(8 / 3), rtol=1e-13)


def test_fewer_than_four_satellites():
    rng = np.random.default_rng(5)
    los, _ = random_skies(rng, 5, 10)
    used = np.zeros((5, 10), bool)
    for i in range(4):
        used[i, :i] = True
    used[4, :4] = True
    h, v, p = dop(los, used)
    np.testing.assert_array_equal(h[:4], NO_DOP)
    np.testing.assert_array_equal(v[:4], NO_DOP)
    np.testing.assert_array_equal(p[:4], NO_DOP)
    assert p[4] != NO_DOP


def test_singular_geometry():
    # every satellite at the same elevation: the up column is a multiple of the clock column
    az = np.radians(np.arange(0.0, 360.0, 45.0))
    el = np.radians(35.0)
    los = np.column_stack(
        [np.cos(el) * np.sin(az), np.cos(el) * np.cos(az), np.full(8, np.sin(el))]
    )
    # all in one vertical plane (two azimuths): east is unobservable
    el2 = np.radians(np.array([10.0, 30.0, 60.0, 80.0, 40.0]))
    plane = np.column_stack([np.zeros(5), np.cos(el2) * np.array([1, 1, 1, -1, -1]), np.sin(el2)])
    # four copies of one direction
    same = np.tile([0.3, 0.4, np.sqrt(0.75)], (4, 1))
    los3 = np.zeros((3, 8, 3))
    los3[0] = los
    los3[1, :5] = plane
    los3[2, :4] = same
    used = np.zeros((3, 8), bool)
    used[0] = True
    used[1, :5] = True
    used[2, :4] = True
    h, v, p = dop(los3, used)
    np.testing.assert_array_equal(h, NO_DOP)
    np.testing.assert_array_equal(v, NO_DOP)
    np.testing.assert_array_equal(p, NO_DOP)


def test_nearly_singular_but_solvable_geometry_is_kept():
    # the same ring plus one satellite 1 deg higher: poor vertical geometry, but a solution
    az = np.radians(np.arange(0.0, 360.0, 60.0))
    el = np.radians(np.r_[np.full(6, 35.0), 36.0])
    az = np.r_[az, 0.3]
    los = np.column_stack([np.cos(el) * np.sin(az), np.cos(el) * np.cos(az), np.sin(el)])[None]
    h, v, p = dop(los, np.ones((1, 7), bool))
    eh, ev, ep = lstsq_dop(los[0], np.ones(7, bool))
    assert v[0] > 50 and v[0] != NO_DOP
    np.testing.assert_allclose([h[0], v[0], p[0]], [eh, ev, ep], rtol=1e-6)


def test_unused_satellites_do_not_count():
    rng = np.random.default_rng(9)
    los, used = random_skies(rng, 50, 20)
    used[:, :6] = True
    h1, v1, p1 = dop(los, used)
    los2 = los.copy()
    los2[~used] = rng.normal(size=(np.count_nonzero(~used), 3))  # junk in unused rows
    h2, v2, p2 = dop(los2, used)
    np.testing.assert_array_equal(h1, h2)
    np.testing.assert_array_equal(v1, v2)
    np.testing.assert_array_equal(p1, p2)


def test_dop_is_the_same_however_the_epochs_are_cut():
    rng = np.random.default_rng(13)
    los, used = random_skies(rng, 300, 30)
    whole = np.array(dop(los, used))
    parts = np.concatenate(
        [np.array(dop(los[i : i + 1], used[i : i + 1])) for i in range(300)], axis=1
    )
    np.testing.assert_array_equal(whole, parts)


def test_several_sets_at_once_equal_one_set_at_a_time():
    rng = np.random.default_rng(17)
    los, used = random_skies(rng, 600, 40)
    tracked = used | (rng.random(used.shape) < 0.3)
    both = dops(los, used, tracked)
    assert len(both) == 2
    for got, want in zip(both, (dop(los, used), dop(los, tracked))):
        for g, w in zip(got, want):
            assert g.tobytes() == w.tobytes()
    assert dops(los) == []
    # one epoch at a time (the streaming receiver's path), few satellites and flat skies included
    used[::7] &= np.cumsum(used[::7], axis=1) <= 3
    los[::11, :, 2] = 0.3
    whole = dops(los, used, tracked)
    for k in range(0, 600, 3):
        one = dops(los[k : k + 1], used[k : k + 1], tracked[k : k + 1])
        for got, want in zip(one, whole):
            assert all(g.tobytes() == w[k : k + 1].tobytes() for g, w in zip(got, want)), k


def test_empty_and_shape_errors():
    h, v, p = dop(np.zeros((0, 5, 3)), np.zeros((0, 5), bool))
    assert h.shape == v.shape == p.shape == (0,)
    with pytest.raises(ValueError, match="`used`"):
        dop(np.zeros((2, 5, 3)), np.zeros((2, 4), bool))


def test_each_sum_is_a_reduction_over_one_contiguous_row():
    """The module's contract for the bits: every sum over the satellites is np.add.reduce of
    one epoch's row alone (numpy's pairwise order), the centring as written; a reduction
    over a strided axis (another order of additions) changes the last bits of some DOPs."""
    from navsense.sensors.gnss import dop as dop_module

    rng = np.random.default_rng(23)
    m, nsat = 40, 78
    el, az = rng.uniform(0.05, 1.5, (m, nsat)), rng.uniform(0.0, 2 * np.pi, (m, nsat))
    los = np.stack([np.cos(el) * np.sin(az), np.cos(el) * np.cos(az), np.sin(el)], axis=-1)
    sets = [rng.random((m, nsat)) < 0.3, rng.random((m, nsat)) < 0.8]
    got = dops(los, *sets)
    for s, used in enumerate(sets):
        moments = np.empty((7, m))
        for i in range(m):
            w = used[i].astype(np.float64)
            n = np.add.reduce(w)
            d = []
            for k in range(3):
                lk = np.ascontiguousarray(los[i, :, k])
                d.append((lk - np.add.reduce(lk * w) / max(n, 1.0)) * w)
            pairs = ((0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2))
            moments[:, i] = [n] + [np.add.reduce(d[a] * d[b]) for a, b in pairs]
        want = np.empty((3, m))
        dop_module._dop_values(moments, want)
        for k in range(3):
            assert got[s][k].tobytes() == want[k].tobytes(), (s, k)


@pytest.mark.parametrize("compiled", [False, True])
def test_the_sums_kernel_is_numpys_reduction_bit_for_bit(compiled):
    """dop._dop_moments (the compiled path's sums: numpy's pairwise summation written out)
    against dop._dop_sums (numpy's np.add.reduce), compiled and run as plain Python, on every
    row length up to the pairwise block (below 8, multiples of 8 and not), values of mixed
    magnitudes and signs, signed zeros, and sets with no satellite."""
    from navsense.sensors.gnss import dop as _dop

    if compiled:
        pytest.importorskip("numba")
        fn = _dop._dop_moments._dispatcher()
    else:
        fn = _dop._dop_moments.fn
    rng = np.random.default_rng(17)
    lengths = list(range(0, 20)) + [23, 31, 32, 33, 63, 64, 65, 78, 100, 127, 128]
    for nsat in lengths:
        m = 3
        los = rng.normal(size=(m, nsat, 3)) * 10.0 ** rng.integers(-6, 6, size=(m, nsat, 3))
        los[0, : nsat // 2, 0] = -0.0
        w = (rng.uniform(size=(2, m, nsat)) < 0.7).astype(float)
        w[1, 2] = 0.0  # a set with no satellite
        ref = _dop._dop_sums(los, w).reshape(7, -1)
        got = np.full((7, 2 * m), np.nan)
        fn(np.ascontiguousarray(los), w, got)
        np.testing.assert_array_equal(got.view(np.int64), ref.view(np.int64), err_msg=f"{nsat}")


def test_dops_compiled_equal_numpy(monkeypatch):
    """dops with the kernels compiled (the sums' kernel) gives numpy's bits."""
    import navsense.kernels as kernels

    pytest.importorskip("numba")
    rng = np.random.default_rng(23)
    for m, nsat in ((1, 78), (5, 30), (300, 12), (2, 129)):
        los, used = random_skies(rng, m, nsat)
        above = used | (rng.uniform(size=used.shape) < 0.3)
        monkeypatch.setattr(kernels, "_on", False)
        plain = dops(los, used, above)
        monkeypatch.setattr(kernels, "_on", True)
        fast = dops(los, used, above)
        monkeypatch.setattr(kernels, "_on", False)
        for p, f in zip(plain, fast):
            for a, b in zip(p, f):
                np.testing.assert_array_equal(np.asarray(a).view(np.int64), b.view(np.int64))


def test_pairwise_row_sums_over_some_columns_are_numpys_reduction():
    """pairwise.row_sums over the columns that can be non-zero gives np.add.reduce of the whole
    rows bit for bit: every row length up to 600 (below 8, within numpy's block of 128 and
    split beyond it), values of mixed magnitudes, signed zeros, columns kept at random."""
    from navsense.sensors.gnss.pairwise import row_sums

    rng = np.random.default_rng(29)
    lengths = list(range(0, 40)) + [63, 64, 65, 78, 127, 128, 129, 136, 200, 256, 257, 600]
    for n in lengths:
        for _ in range(6):
            x = rng.normal(size=(40, n)) * 10.0 ** rng.integers(-8, 8, size=(40, n))
            cols = rng.random(n) < rng.random()
            x[:, ~cols] = 0.0
            x[rng.random(x.shape) < 0.3] = 0.0
            x[rng.random(x.shape) < 0.1] = -0.0
            kept = np.flatnonzero(cols)
            got = np.full(40, np.nan)
            row_sums(np.ascontiguousarray(x[:, kept].T), n, tuple(kept.tolist()), got)
            want = np.add.reduce(x, axis=-1)
            np.testing.assert_array_equal(got.view(np.int64), want.view(np.int64), err_msg=f"{n}")


@pytest.mark.parametrize("nsat", [5, 30, 78, 129, 200])
def test_a_chunk_takes_the_used_columns_and_gives_the_blocks_bits(nsat):
    """dops of a chunk (_dop_columns: the sums over the satellites in some set) against
    _dop_block over whole rows (the path of fewer epochs), bit for bit: satellites never
    used, a set with none, flat skies, lines of sight that are not finite (a NaN of a satellite
    outside the sets makes its epoch NO_DOP on both paths)."""
    from navsense.sensors.gnss import dop as _dop

    rng = np.random.default_rng(nsat)
    m = 700
    los, used = random_skies(rng, m, nsat)
    used[:, rng.random(nsat) < 0.5] = False
    used[::9] &= np.cumsum(used[::9], axis=1) <= 3
    los[::11, :, 2] = 0.3
    above = used | (rng.random(used.shape) < 0.2)
    none = np.zeros_like(used)
    for case in ("finite", "nan"):
        if case == "nan":
            los[5, np.flatnonzero(~above[5])[:1]] = np.nan
        got = dops(los, used, above, none)
        w = np.stack([used, above, none]).astype(np.float64)
        want = np.empty((3, 3, m))
        _dop._dop_block(los, w, want)
        for s, set_values in enumerate(got):
            for k in range(3):
                assert set_values[k].tobytes() == want[k, s].tobytes(), (case, s, k)
