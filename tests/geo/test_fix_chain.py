"""navsense.geo.fix_chain: the INS fix's chain to a NAD83 frame and UTM, in its fused kernels,
gives bit for bit the values of the functions whose operations it writes out (the ACRE chain's
steps by Georeference._acre_rows, utm._forward_arrays, the grid rotation's atan2), as numpy and
compiled, one point a call and a block, and the same error lines; utm._zeta_sums' Clenshaw sum
is _clenshaw_rows' own."""

import numpy as np
import pytest

import navsense.kernels as kernels
from navsense.errors import DatumError
from navsense.geo import Georeference, fix_chain, utm
from navsense.geo.georef import GRID_ROTATION_STEP_M

pytest.importorskip("numba")


def _bits(a):
    return np.ascontiguousarray(a).view(np.int64)


def _points(m, scale, seed):
    """The chain's points (3, 3 m) of m INS and truth points, and P2 10 m grid-north."""
    rng = np.random.default_rng(seed)
    p_ins, p_truth = rng.normal(0.0, scale, (m, 3)), rng.normal(0.0, scale, (m, 3))
    pts = np.concatenate([p_ins.T, p_truth.T, p_ins.T], axis=1)
    pts[1, 2 * m :] += GRID_ROTATION_STEP_M
    return np.ascontiguousarray(pts), np.sort(rng.uniform(0.0, 1e6, m))


def _reference(geo, pts, m, frame, zone):
    """The chain as the functions compute it: steps 1-4, utm._forward_arrays, atan2."""
    g = geo._acre_rows(pts[0], pts[1], pts[2])
    lat, lon = (g[2], g[3]) if frame == "nad83_2011" else (g[0], g[1])
    east, north = utm._forward_arrays(lat, lon, zone, factors=False, check_lat=False)
    alpha = np.arctan2(east[2 * m :] - east[:m], north[2 * m :] - north[:m])  # rad
    return lat, lon, g[4], east, north, alpha


@pytest.mark.parametrize("frame", ["nad83_2011", "nad83_harn"])
@pytest.mark.parametrize("zone", [16, 15, 21, 22])  # 22: 36 deg from its meridian, refused
def test_fused_chain_equals_the_functions_bit_for_bit(monkeypatch, frame, zone):
    geo = Georeference.acre()
    par = fix_chain.fix_parameters(geo._datum_a, frame, zone)
    for m, scale, seed in ((1, 30.0, 1), (7, 3e3, 2), (400, 6e4, 3)):
        pts, t = _points(m, scale, seed)
        for on in (False, True):
            monkeypatch.setattr(kernels, "_on", False)
            try:
                want = _reference(geo, pts, m, frame, zone)
            except DatumError as exc:
                monkeypatch.setattr(kernels, "_on", on)
                with pytest.raises(DatumError, match="^" + str(exc)[:60]):
                    fix_chain.nad83_fix_utm(pts, t, par, zone)
                continue
            monkeypatch.setattr(kernels, "_on", on)
            got = fix_chain.nad83_fix_utm(pts, t, par, zone)
            for g, w in zip(got, want):
                assert np.array_equal(_bits(g), _bits(w))
            if on:  # one epoch a call: the block's values
                for i in range(min(m, 3)):
                    one = np.ascontiguousarray(pts[:, i::m])
                    got1 = fix_chain.nad83_fix_utm(one, t[i : i + 1], par, zone)
                    for g1, g in zip(got1, got):
                        assert np.array_equal(_bits(g1), _bits(g[i::m][: g1.shape[0]]))
    monkeypatch.setattr(kernels, "_on", False)


@pytest.mark.parametrize("on", [False, True])
def test_fused_chain_refuses_as_the_chain(monkeypatch, on):
    geo = Georeference.acre()
    par = fix_chain.fix_parameters(geo._datum_a, "nad83_2011", 16)
    monkeypatch.setattr(kernels, "_on", on)
    cases = {
        "enu must be finite, got nan": ([np.nan, 0.0, 0.0], 1.0),
        "enu must be finite, got inf": ([0.0, 0.0, np.inf], 1.0),
        "t_s must be finite, got nan": ([0.0, 0.0, 0.0], np.nan),
        "enu east = 300000.0 m is outside": ([3e5, 0.0, 0.0], 1.0),
        "enu north = -2000000.0 m is outside": ([0.0, -2e6, 0.0], 1.0),
    }
    for line, (p, t) in cases.items():
        pts = np.repeat(np.array(p)[:, None], 3, axis=1)
        with pytest.raises(DatumError, match="^" + line):
            fix_chain.nad83_fix_utm(pts, np.array([t]), par, 16)
    # far from the zone's meridian: utm's line
    far = fix_chain.fix_parameters(geo._datum_a, "nad83_2011", 40)
    with pytest.raises(DatumError, match="from the central meridian of UTM zone 40"):
        fix_chain.nad83_fix_utm(np.zeros((3, 3)), np.array([1.0]), far, 40)
    monkeypatch.setattr(kernels, "_on", False)


@pytest.mark.parametrize("on", [False, True])
def test_zeta_sums_clenshaw_is_clenshaw_rows(monkeypatch, on):
    """utm._zeta_sums' written-out Clenshaw sum = _clenshaw_rows of its own 2 cos(2 zeta)."""
    rng = np.random.default_rng(7)
    n = 3000
    w = np.zeros((utm._FW_ROWS, n))
    phi, lam = rng.uniform(-1.4, 1.4, n), rng.uniform(-0.6, 0.6, n)
    monkeypatch.setattr(kernels, "_on", on)
    w[utm._TAU] = np.tan(phi)
    w[utm._LAM] = lam
    utm._sigma_argument(w)
    w[utm._SIG] = np.sinh(utm._E * np.arctanh(w[1]))
    utm._zeta_sums(w)
    y = np.empty((4, n))
    utm._clenshaw_rows(w[8], w[9], utm._ALPHA_A, y)
    assert np.array_equal(_bits(w[12:16]), _bits(y))
    monkeypatch.setattr(kernels, "_on", False)


@pytest.mark.parametrize("frame", ["nad83_2011", "nad83_harn"])
@pytest.mark.parametrize("zone", [16, 21, 22])
@pytest.mark.parametrize("on", [False, True])
def test_point_by_point_kernels_write_the_rows_of_the_row_kernels(monkeypatch, frame, zone, on):
    """run_chain on FixRows(3, 1, one=True) (the kernels written out point by point: the
    streaming INS's) writes every work row with the bits of the kernels over rows, epoch after
    epoch on the same rows, as numpy and compiled; the same error lines where a point is
    refused (the rows are then not compared)."""
    geo = Georeference.acre()
    par = fix_chain.fix_parameters(geo._datum_a, frame, zone)
    monkeypatch.setattr(kernels, "_on", on)
    kept = fix_chain.FixRows(3, 1, one=True)
    kept.w[:] = 0.0
    rng = np.random.default_rng(zone)
    for k in range(40):
        scale = (30.0, 3e3, 6e4, 1e5)[k % 4]
        pts, t = _points(1, scale, k)
        if k == 7:
            pts[0, 1] = np.nan
        if k == 9:
            t[0] = np.inf
        rows = fix_chain.FixRows(3, 1)
        rows.w[:] = kept.w  # the work rows as the previous epoch left them
        try:
            fix_chain.run_chain(rows, pts, t, par, zone)
        except DatumError as exc:
            with pytest.raises(DatumError) as refused:
                fix_chain.run_chain(kept, pts, t, par, zone)
            assert str(refused.value) == str(exc)
            kept.w[:] = rng.standard_normal(kept.w.shape)  # whatever the refused epoch left
            continue
        fix_chain.run_chain(kept, pts, t, par, zone)
        assert np.array_equal(_bits(kept.w), _bits(rows.w)), k
        want = fix_chain.nad83_fix_utm(pts, t, par, zone)
        got = (kept.lat, kept.lon, kept.h, kept.east, kept.north, kept.alpha)
        assert all(np.array_equal(_bits(a), _bits(b)) for a, b in zip(got, want))
    monkeypatch.setattr(kernels, "_on", False)
