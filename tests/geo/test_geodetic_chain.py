"""navsense.geo.geodetic_chain: the whole ACRE chain of a few points in its fused kernels gives
bit for bit the values of the functions whose operations it writes out (Georeference's generic
chain: acre_steps, stateplane, ellipsoid, helmert, epoch), as numpy and compiled, one point a
call and a block, and Georeference.geodetic_rows keeps the chain's error lines."""

import numpy as np
import pytest

import navsense.kernels as kernels
from navsense.constants import DEG, DEG_PER_RAD
from navsense.errors import DatumError
from navsense.geo import Georeference, ellipsoid, geodetic_chain, helmert
from navsense.geo import fix_chain as fc
from navsense.geo import stateplane as sp
from navsense.geo.georef import OUTPUT_KEYS

pytest.importorskip("numba")


def _bits(a):
    return np.ascontiguousarray(a).view(np.int64)


def _reference(geo, p, t):
    """The generic chain's values (numpy kernels), OUTPUT_KEYS' order, rows (k,)."""
    g = geo.enu_to_geodetic(p, t)
    return [np.asarray(g[k]).reshape(-1) for k in OUTPUT_KEYS]


def _cases(seed):
    """Points (k, 3) and times (k,): near the origin, over the site, over the whole domain,
    heights from a trench to an aircraft's."""
    rng = np.random.default_rng(seed)
    for k, scale in ((1, 30.0), (2, 3e3), (5, 6e4), (geodetic_chain.FUSED_MAX, 2e5)):
        p = rng.normal(0.0, scale, (k, 3))
        p[:, 0] = np.clip(p[:, 0], -2.5e5, 2.4e5)
        p[:, 2] = rng.choice([-50.0, 0.0, 200.0, 1e4])
        yield np.ascontiguousarray(p), np.sort(rng.uniform(0.0, 2e6, k))


@pytest.mark.parametrize("on", [False, True])
def test_fused_chain_equals_the_chain_bit_for_bit(monkeypatch, on):
    geo = Georeference.acre()
    for seed in range(6):
        for p, t in _cases(seed):
            monkeypatch.setattr(kernels, "_on", False)
            want = _reference(geo, p, t)
            monkeypatch.setattr(kernels, "_on", on)
            w = geodetic_chain.acre_geodetic(p, t, geo._chain_par)
            assert w is not None  # the fused path, not the generic one
            got = w[geodetic_chain.OUT : geodetic_chain.OUT + 10]
            for key, g, r in zip(OUTPUT_KEYS, got, want):
                assert np.array_equal(_bits(g), _bits(r)), key
            rows = geo.geodetic_rows(p, t)
            assert all(np.array_equal(_bits(a), _bits(b)) for a, b in zip(rows, want))
            for i in range(p.shape[0]):  # one point a call: the block's values
                one = geo.geodetic_rows(p[i : i + 1], t[i : i + 1])
                for g1, g in zip(one, got):
                    assert np.array_equal(_bits(g1), _bits(g[i : i + 1]))
    monkeypatch.setattr(kernels, "_on", False)


@pytest.mark.parametrize("on", [False, True])
def test_series_wgs84_writes_out_the_functions(monkeypatch, on):
    """series_wgs84's steps, each against the function it writes out, on the same inputs:
    the inverse series, datum rows, GRS80 ECEF, inverse Helmert at the epoch, and the WGS84
    iteration's operands (atan2's Z, Y, w, X) and height."""
    geo = Georeference.acre("2026-09-23T15:00:00Z")
    rng = np.random.default_rng(11)
    k = 9
    p = np.ascontiguousarray(rng.normal(0.0, 5e4, (k, 3)))
    t = rng.uniform(0.0, 1e6, k)
    monkeypatch.setattr(kernels, "_on", on)
    w = geodetic_chain.acre_geodetic(p, t, geo._chain_par)
    monkeypatch.setattr(kernels, "_on", False)
    assert w is not None
    e, n, u = p.T.copy()
    g = geo._acre_rows(e, n, u)  # steps 1-4
    o = geodetic_chain.OUT
    for i in (0, 1, 2, 3, 4):
        assert np.array_equal(_bits(w[o + i]), _bits(g[i]))
    assert np.array_equal(_bits(w[o + 8]), _bits(g[5]))  # H_navd
    assert np.array_equal(_bits(w[o + 9]), _bits(g[6]))  # N_g
    ep = geo._epoch(t)
    assert np.array_equal(_bits(w[o + 17]), _bits(ep))  # the decimal year
    xg, yg, zg = ellipsoid._geodetic_to_ecef(g[2] * DEG, g[3] * DEG, g[4], ellipsoid.GRS80)
    x, y, z = helmert._inverse(xg, yg, zg, ep, geo._datum.helmert)
    assert np.array_equal(_bits(w[o + 10]), _bits(z))  # atan2's operands Z, Y, ., X
    assert np.array_equal(_bits(w[o + 11]), _bits(y))
    assert np.array_equal(_bits(w[o + 13]), _bits(x))
    phi, lam, h = ellipsoid._ecef_to_geodetic(x, y, z, ellipsoid.WGS84)
    assert np.array_equal(_bits(w[o + 7]), _bits(h))
    assert np.array_equal(_bits(np.arctan2(z, w[o + 12])), _bits(phi))  # the final w
    assert np.array_equal(_bits(w[o + 5]), _bits(phi * DEG_PER_RAD))
    assert np.array_equal(_bits(w[o + 6]), _bits(lam * DEG_PER_RAD))


def _iterations(geo, p, t):
    """How many EcefToGeodetic updates move each point's w before its fixed point (8: none
    reached), by the generic chain's functions."""
    g = geo._acre_rows(*p.T.copy())
    xg, yg, zg = ellipsoid._geodetic_to_ecef(g[2] * DEG, g[3] * DEG, g[4], ellipsoid.GRS80)
    x, y, z = helmert._inverse(xg, yg, zg, geo._epoch(t), geo._datum.helmert)
    ae = ellipsoid._shape_row(ellipsoid.WGS84)
    pp = np.sqrt(x * x + y * y)
    w, zz = pp * (1.0 - ellipsoid.WGS84.e2), z * z
    count, done = np.zeros(t.shape[0], dtype=int), np.zeros(t.shape[0], dtype=bool)
    for _ in range(ellipsoid.ECEF_ITERATIONS):
        wn = ellipsoid._ecef_update(pp, z, zz, w, ae)
        count[~done & (wn != w)] += 1
        done |= wn == w
        w = wn
    return count.tolist()


@pytest.mark.parametrize("on", [False, True])
def test_each_point_iterates_to_its_own_fixed_point(monkeypatch, on):
    """Points whose iterations reach their fixed points after 1, 2, 3 updates or never (8)
    get, together, the bits each gets alone: those of the ellipsoid's iteration with its
    working set (ellipsoid._ecef_to_geodetic)."""
    geo = Georeference.acre()
    p = np.array(
        [
            [149768.24151955073, -708630.341855363, 0.0],
            [62111.2267875126, 556834.0258162192, 8852.04221978855],
            [148502.4172081335, -1152014.5079118367, 835758.7515649877],
            [-16471.673364172486, 358180.0860530846, -5.759848136609347],
        ]
    )
    t = np.array([909043.7800974568, 255502.21047290278, 193986.16134102276, 975338.3572642613])
    assert _iterations(geo, p, t) == [1, 2, 3, 8]
    monkeypatch.setattr(kernels, "_on", on)
    block = geo.geodetic_rows(p, t)
    for i in range(4):
        one = geo.geodetic_rows(p[i : i + 1], t[i : i + 1])
        for a, b in zip(one, block):
            assert np.array_equal(_bits(a), _bits(b[i : i + 1]))
    monkeypatch.setattr(kernels, "_on", False)
    want = _reference(geo, p, t)
    assert all(np.array_equal(_bits(a), _bits(b)) for a, b in zip(block, want))


@pytest.mark.parametrize("on", [False, True])
def test_a_new_year_and_a_batch_take_the_generic_chain(monkeypatch, on):
    """Times past the start's calendar year: acre_geodetic refuses them and geodetic_rows
    gives the generic chain's values (DecimalYear of the next year); a batch beyond FUSED_MAX
    and a local site too."""
    geo = Georeference.acre("2026-12-31T23:59:59Z")
    p = np.array([[10.0, 20.0, 3.0], [-40.0, 5.0, 1.0]])
    t = np.array([0.5, 2.0])  # the second in 2027
    monkeypatch.setattr(kernels, "_on", on)
    assert geodetic_chain.acre_geodetic(p, t, geo._chain_par) is None
    assert geodetic_chain.acre_geodetic(p[:1], t[:1], geo._chain_par) is not None
    got = geo.geodetic_rows(p, t)
    big = np.zeros((geodetic_chain.FUSED_MAX + 1, 3))
    got_big = geo.geodetic_rows(big, np.zeros(big.shape[0]))
    local = Georeference.local(48.0, 11.0, 500.0)
    got_local = local.geodetic_rows(p, t)
    monkeypatch.setattr(kernels, "_on", False)
    for g, w in zip(got, _reference(geo, p, t)):
        assert np.array_equal(_bits(g), _bits(w))
    assert all(
        np.array_equal(_bits(g), _bits(w)) for g, w in zip(got_big, _reference(geo, big, 0.0))
    )
    for g, w in zip(got_local, _reference(local, p, t)):
        assert np.array_equal(_bits(g), _bits(w))


@pytest.mark.parametrize("on", [False, True])
def test_geodetic_rows_refuses_as_the_chain(monkeypatch, on):
    geo = Georeference.acre()
    monkeypatch.setattr(kernels, "_on", on)
    cases = {
        "enu must be finite, got nan (element 3)": ([[0.0, 0.0, 0.0], [np.nan, 0.0, 0.0]], 1.0),
        "enu must be finite, got inf (element 2)": ([[0.0, 0.0, np.inf]], 1.0),
        "t_s must be finite, got nan (element 0)": ([[0.0, 0.0, 0.0]], np.nan),
        "enu east = 300000.0 m is outside the ACRE site's domain": ([[3e5, 0.0, 0.0]], 1.0),
        "enu north = -2000000.0 m is outside": ([[0.0, 0.0, 0.0], [0.0, -2e6, 0.0]], 1.0),
    }
    for line, (p, t) in cases.items():
        p = np.array(p)
        t = np.full(p.shape[0], t)
        with pytest.raises(DatumError) as want:
            geo.enu_to_geodetic(p, t)
        assert str(want.value).startswith(line)
        assert geodetic_chain.acre_geodetic(p, t, geo._chain_par) is None
        with pytest.raises(DatumError) as got:
            geo.geodetic_rows(p, t)
        assert str(got.value) == str(want.value)
    monkeypatch.setattr(kernels, "_on", False)


def test_chain_parameters_are_the_functions_rows():
    """The parameter row: acre_steps.datum_row, helmert._parameter_row and the clock's
    constants, which give YearClock.array's decimal years."""
    geo = Georeference.acre("2025-03-01T12:34:56.25Z")
    par = geo._chain_par
    assert np.array_equal(par[:5], geo._datum_a)
    assert np.array_equal(par[5:20], helmert._parameter_row(geo._datum.helmert))
    year, off, length, sfrac, lo, hi = geo._clock.constants()
    assert (year, sfrac) == (2025, 0.25) and length == 365 * 86400 and lo < 0.0 < hi
    assert fc._MU == geodetic_chain._MU and fc._TM == geodetic_chain._TM  # footpoint's rows
    assert fc._PHI1 == geodetic_chain._PHI1 and sp._MU0 == geodetic_chain._MU0


@pytest.mark.parametrize("on", [False, True])
def test_geodetic_rows_takes_what_enu_to_geodetic_takes(monkeypatch, on):
    """Lists, integers, a point (3,) at a scalar time, points at one time: the generic chain's
    values as rows (m,); a value that is not a number: enu_to_geodetic's line."""
    geo = Georeference.acre()
    monkeypatch.setattr(kernels, "_on", on)
    cases = [
        ([[1, 2, 3], [4, 5, 6]], [0, 1]),
        ([10.0, 20.0, 30.0], 5.0),
        (np.array([[10.0, 20.0, 30.0], [1.0, 2.0, 3.0]]), 5.0),
        (np.array([[10, 20, 30]]), np.array([5])),
        (np.array([[10.0, 20.0, 30.0]]).T.copy().T, np.array([5.0])),  # Fortran order
    ]
    got = [geo.geodetic_rows(p, t) for p, t in cases]
    with pytest.raises(DatumError) as bad:
        geo.geodetic_rows([["a", 0.0, 0.0]], [0.0])
    monkeypatch.setattr(kernels, "_on", False)
    for (p, t), rows in zip(cases, got):
        want = _reference(geo, np.asarray(p, dtype=float), np.asarray(t, dtype=float))
        assert all(
            r.shape == w.shape and np.array_equal(_bits(r), _bits(w)) for r, w in zip(rows, want)
        )
    with pytest.raises(DatumError) as line:
        geo.enu_to_geodetic([["a", 0.0, 0.0]], [0.0])
    assert str(bad.value) == str(line.value)
