"""Constellation: draws, orbits, lines of sight (specification, "Constellation")."""

import math

import numpy as np
import pytest

from navsense.errors import ConfigError
from navsense.rng import Pcg32
from navsense.sky.constellation import (
    MU_M3PS2,
    OMEGA_E_RADPS,
    ORBITS,
    SYSTEMS,
    Constellation,
    elevation_deg,
    site_ecef_m,
)

ALL_ON = {"gps": True, "galileo": True, "glonass": True}
LAT, LON, H = 40.4700, -86.9920, 185.0  # a mid-latitude site (Indiana)
mm = 1e-3


@pytest.fixture(scope="module")
def const():
    return Constellation(42, ALL_ON, LAT, LON, H)


def expected_elements(seed):
    """The elements from scalar draws, one at a time, in the ruling's order."""
    rng = Pcg32(seed + 3027, 4)
    t0 = 86400.0 * rng.uniform()
    table = {
        "gps": (6, 5, 26559.7e3, 55.0),
        "galileo": (3, 8, 29599.8e3, 56.0),
        "glonass": (3, 8, 25508.0e3, 64.8),
    }
    sats = []
    for name in ("gps", "galileo", "glonass"):
        n_p, n_s, a, inc = table[name]
        raan0 = 2 * math.pi * rng.uniform()
        u00 = 2 * math.pi * rng.uniform()
        for i in range(n_p):
            for j in range(n_s):
                u = rng.uniform()
                sats.append(
                    (
                        name,
                        raan0 + 2 * math.pi * i / n_p,
                        u00
                        + 2 * math.pi * j / n_s
                        + 2 * math.pi * i / (n_p * n_s)
                        + 0.2 * (u - 0.5),
                        a,
                        math.radians(inc),
                    )
                )
    return t0, sats, rng


def scalar_los(t0, sat, t, lat_deg, lon_deg, h_m):
    """The specification's equations for one satellite, in plain floats."""
    _, raan, u0, a, inc = sat
    u = u0 + math.sqrt(3.986004418e14 / a**3) * t
    xi = a * (math.cos(raan) * math.cos(u) - math.sin(raan) * math.sin(u) * math.cos(inc))
    yi = a * (math.sin(raan) * math.cos(u) + math.cos(raan) * math.sin(u) * math.cos(inc))
    zi = a * math.sin(u) * math.sin(inc)
    th = 7.2921151467e-5 * (t + t0)
    f = 1 / 298.257223563
    e2 = f * (2 - f)
    phi, lam = math.radians(lat_deg), math.radians(lon_deg)
    n = 6378137.0 / math.sqrt(1 - e2 * math.sin(phi) ** 2)
    xs = (
        (n + h_m) * math.cos(phi) * math.cos(lam),
        (n + h_m) * math.cos(phi) * math.sin(lam),
        (n * (1 - e2) + h_m) * math.sin(phi),
    )
    xe = xi * math.cos(th) + yi * math.sin(th) - xs[0]
    ye = -xi * math.sin(th) + yi * math.cos(th) - xs[1]
    ze = zi - xs[2]
    le = -math.sin(lam) * xe + math.cos(lam) * ye
    ln = (
        -math.sin(phi) * math.cos(lam) * xe
        - math.sin(phi) * math.sin(lam) * ye
        + math.cos(phi) * ze
    )
    lu = (
        math.cos(phi) * math.cos(lam) * xe + math.cos(phi) * math.sin(lam) * ye + math.sin(phi) * ze
    )
    norm = math.sqrt(le * le + ln * ln + lu * lu)
    return np.array([le, ln, lu]) / norm


def test_draw_order_recomputed_from_scalar_draws(const):
    t0, sats, _ = expected_elements(42)
    assert const.t0_s == t0
    assert list(const.system) == [s[0] for s in sats]
    np.testing.assert_array_equal(const.raan_rad, [s[1] for s in sats])
    np.testing.assert_allclose(const.u0_rad, [s[2] for s in sats], rtol=0, atol=1e-14)
    np.testing.assert_array_equal(const.radius_m, [s[3] for s in sats])


def test_line_of_sight_matches_the_equations_written_out(const):
    t0, sats, _ = expected_elements(42)
    t = np.array([0.0, 1234.5, 86399.9])
    los = const.los_enu(t)
    for k in (0, 17, 31, 40, 77):
        for m, tm in enumerate(t):
            np.testing.assert_allclose(
                los[m, k], scalar_los(t0, sats[k], tm, LAT, LON, H), rtol=0, atol=1e-12
            )


def test_a_system_that_is_off_draws_its_values():
    on = Constellation(7, ALL_ON, LAT, LON, H)
    off = Constellation(7, {"gps": False, "galileo": True, "glonass": False}, LAT, LON, H)
    assert on.t0_s == off.t0_s
    np.testing.assert_array_equal(on.u0_rad, off.u0_rad)
    np.testing.assert_array_equal(on.raan_rad, off.raan_rad)
    np.testing.assert_array_equal(off.enabled, off.system == "galileo")
    # the stream is used for exactly 1 + (2 + 30) + (2 + 24) + (2 + 24) = 85 values
    _, _, rng = expected_elements(7)
    ref = Pcg32(7 + 3027, 4)
    ref.uniforms(85)
    assert rng.state == ref.state


def test_satellite_counts_and_labels(const):
    assert const.nsat == 78
    for name, n in (("gps", 30), ("galileo", 24), ("glonass", 24)):
        assert np.count_nonzero(const.system == name) == n == ORBITS[name].count
    assert SYSTEMS == ("gps", "galileo", "glonass")
    assert const.label[0] == "G01" and const.label[29] == "G30"
    assert const.label[30] == "E01" and const.label[-1] == "R24"
    assert len(set(const.label)) == 78
    np.testing.assert_array_equal(const.plane[:10], [0] * 5 + [1] * 5)


def test_orbit_radius_is_preserved(const):
    t = np.linspace(0.0, 86400.0, 97)
    for x in (const.inertial_m(t), const.ecef_m(t)):
        np.testing.assert_allclose(
            np.linalg.norm(x, axis=-1),
            np.broadcast_to(const.radius_m, x.shape[:2]),
            rtol=0,
            atol=1 * mm,
        )


def test_periods_follow_keplers_law(const):
    # after one orbital period the inertial position repeats
    period = 2 * np.pi / const.mean_motion_radps
    x0 = const.inertial_m(np.zeros(1))[0]
    for k in (0, 30, 60):
        x1 = const.inertial_m(np.array([period[k]]))[0, k]
        np.testing.assert_allclose(x1, x0[k], rtol=0, atol=1 * mm)
    gps_period_s = 2 * np.pi * np.sqrt(26559.7e3**3 / MU_M3PS2)
    assert abs(gps_period_s - 43077.0) < 1.0  # about half a sidereal day


def test_earth_rotation_direction(const):
    # Earth-fixed longitude of a satellite drifts west at omega_E relative to its inertial one
    t = np.array([0.0, 1.0])
    xi, xe = const.inertial_m(t), const.ecef_m(t)
    lon_i = np.arctan2(xi[..., 1], xi[..., 0])
    lon_e = np.arctan2(xe[..., 1], xe[..., 0])
    drift = np.angle(np.exp(1j * ((lon_e[1] - lon_i[1]) - (lon_e[0] - lon_i[0]))))
    np.testing.assert_allclose(drift, -OMEGA_E_RADPS, rtol=1e-9)


def test_los_is_unit_and_points_at_the_satellite(const):
    t = np.linspace(0.0, 7200.0, 11)
    los = const.los_enu(t)
    np.testing.assert_allclose(np.linalg.norm(los, axis=-1), 1.0, rtol=0, atol=1e-15)
    # back to ECEF with the transposed rotation: the direction from the site to the satellite
    d = const.ecef_m(t) - const.site_ecef_m
    d /= np.linalg.norm(d, axis=-1, keepdims=True)
    np.testing.assert_allclose(los @ const.ecef_to_enu, d, rtol=0, atol=1e-14)


def test_site_ecef_against_pyproj():
    pyproj = pytest.importorskip("pyproj")
    tr = pyproj.Transformer.from_crs("EPSG:4979", "EPSG:4978", always_xy=True)
    for lat, lon, h in ((LAT, LON, H), (-33.9, 151.2, 40.0), (89.9, 10.0, 0.0), (0.0, 0.0, -20.0)):
        np.testing.assert_allclose(
            site_ecef_m(lat, lon, h), tr.transform(lon, lat, h), rtol=0, atol=0.1 * mm
        )


def test_elevation_over_a_day_is_sensible(const):
    t = np.arange(0.0, 86400.0, 10.0)
    el = elevation_deg(const.los_enu(t))
    assert el.min() >= -90.0 and el.max() <= 90.0
    # the sky moves slowly: a 12 h orbit seen from the ground moves well under 1 deg a minute
    assert np.abs(np.diff(el, axis=0)).max() < 1.0 / 6.0
    # every GPS satellite rises and sets at least once in a day at 40 deg latitude
    gps = el[:, const.system == "gps"]
    assert np.all(gps.max(axis=0) > 10.0) and np.all(gps.min(axis=0) < -10.0)
    # some satellite passes near the zenith, and the sky is never empty
    assert el.max() > 80.0
    # a GPS satellite's sky track repeats after one sidereal day up to the orbit's drift
    # (2 orbits = 86154 s against 86164 s): same elevation within a degree
    k = np.flatnonzero(const.system == "gps")[0]
    sid = 86164.0905
    np.testing.assert_allclose(
        elevation_deg(const.los_enu(np.array([sid]))[0, k]), el[0, k], atol=1.0
    )


def test_satellites_above_ten_degrees_at_a_mid_latitude_site(const):
    t = np.arange(0.0, 86400.0, 60.0)
    n = np.count_nonzero(const.visible(const.los_enu(t), 10.0), axis=1)
    assert 20 <= np.median(n) <= 35
    assert np.mean((n >= 20) & (n <= 35)) > 0.8
    assert n.min() >= 12 and n.max() <= 40


def test_global_average_of_visible_satellites_is_the_cap_fraction():
    """Averaged over sites uniform on the sphere, a shell of N satellites shows N (1 - cos psi)/2
    above the mask E, psi = 90 deg - E - asin(R cos E / a): any constellation, any time."""
    rng = np.random.default_rng(2024)
    mask = 10.0
    counts = {s: [] for s in SYSTEMS}
    for k in range(300):
        lat = np.degrees(np.arcsin(rng.uniform(-1, 1)))
        lon = rng.uniform(-180, 180)
        c = Constellation(k, ALL_ON, lat, lon, 0.0)
        vis = c.visible(c.los_enu(np.arange(0.0, 86400.0, 3600.0)), mask)
        for s in SYSTEMS:
            counts[s].append(np.count_nonzero(vis[:, c.system == s], axis=1).mean())
    e = np.radians(mask)
    for s in SYSTEMS:
        o = ORBITS[s]
        psi = np.pi / 2 - e - np.arcsin(6371e3 * np.cos(e) / o.radius_m)
        expected = o.count * (1 - np.cos(psi)) / 2
        assert np.mean(counts[s]) == pytest.approx(expected, rel=0.03)


def test_visible_respects_mask_and_systems():
    c = Constellation(3, {"gps": True, "galileo": False, "glonass": True}, LAT, LON, H)
    los = c.los_enu(np.arange(0.0, 3600.0, 60.0))
    vis = c.visible(los, 15.0)
    assert not vis[:, c.system == "galileo"].any()
    np.testing.assert_array_equal(vis[:, c.enabled], (c.elevation_deg(los) >= 15.0)[:, c.enabled])


def test_visible_at_the_mask_to_the_last_bit():
    """visible() compares l_u with sines away from the mask; the result is that of the
    elevation arcsin(l_u) compared with the mask, also within an ulp of it."""
    c = Constellation(3, ALL_ON, LAT, LON, H)
    rng = np.random.default_rng(4)
    for mask in (-5.0, 0.0, 10.0, 15.0, 70.0, 89.5, 90.0):
        s = math.sin(math.radians(mask))
        up = s + rng.integers(-4, 5, (40, c.nsat)) * np.spacing(abs(s) if s else 1e-300)
        up[0, :8] = [np.nan, 1.0, -1.0, np.nextafter(1.0, 2.0), 0.0, -0.0, s, -s]
        los = np.zeros((40, c.nsat, 3))
        los[..., 2] = up
        los[..., 1] = np.sqrt(np.maximum(0.0, 1.0 - np.nan_to_num(up) ** 2))
        want = (c.elevation_deg(los) >= mask) & c.enabled
        np.testing.assert_array_equal(c.visible(los, mask), want)


@pytest.mark.parametrize("compiled", [False, True])
def test_visible_of_one_epoch_is_the_block(monkeypatch, compiled):
    """visible() of one epoch a call (compiled: its kernel _visible_row, as Python too) gives
    the block's result: l_u away from the mask, within an ulp of it (the numpy path's arcsin),
    NaN, +-1 and signed zeros, a system off."""
    import navsense.kernels as kernels
    from navsense.sky import constellation as _c

    if compiled:
        pytest.importorskip("numba")
    c = Constellation(3, {"gps": True, "galileo": False, "glonass": True}, LAT, LON, H)
    rng = np.random.default_rng(6)
    for mask in (-5.0, 0.0, 10.0, 70.0, 89.5):
        s = math.sin(math.radians(mask))
        near = rng.uniform(size=(60, c.nsat)) < 0.1
        near[30:] = False  # half the epochs have no l_u near the mask
        up = np.where(
            near,
            s + rng.integers(-4, 5, (60, c.nsat)) * np.spacing(abs(s) if s else 1e-300),
            rng.uniform(-1.0, 1.0, (60, c.nsat)),
        )
        up[0, :6] = [np.nan, 1.0, -1.0, 0.0, -0.0, s]
        up[59, :5] = [np.nan, 1.0, -1.0, 0.0, -0.0]
        los = np.zeros((60, c.nsat, 3))
        los[..., 2] = up
        los[..., 1] = np.sqrt(np.maximum(0.0, 1.0 - np.nan_to_num(up) ** 2))
        want = c.visible(los, mask)
        monkeypatch.setattr(kernels, "_on", compiled)
        ones = np.concatenate([c.visible(los[i : i + 1], mask) for i in range(60)])
        monkeypatch.setattr(kernels, "_on", False)
        assert ones.dtype == want.dtype and ones.tobytes() == want.tobytes()
        sure = 0
        for i in range(60):  # the kernel as plain Python: its rows where no l_u is unsure
            out = np.empty(c.nsat + 1)
            _c._visible_row.fn(los[i], c._mask_sines(mask), c._on_row, out)
            if out[-1] == 0.0:  # (an unsure row goes to the numpy path, compared above)
                sure += 1
                assert ((out[:-1] != 0.0) == want[i]).all()
        assert 0 < sure < 60  # both kinds of epoch met
        assert want.any() and not want[:, c.system == "galileo"].any()


def test_lines_of_sight_are_the_earth_fixed_positions_rotated_to_enu(const):
    """los_enu (blocks, reused buffers) gives the bits of ecef_m minus the site, rotated by the
    rows of ecef_to_enu and divided by the length, each written as one expression."""
    t = np.concatenate([np.arange(0.0, 700.0, 0.1), [86399.9, 1e6]])
    x = const.ecef_m(t) - const.site_ecef_m
    r = const.ecef_to_enu
    enu = np.stack(
        [r[k, 0] * x[..., 0] + r[k, 1] * x[..., 1] + r[k, 2] * x[..., 2] for k in range(3)], axis=-1
    )
    want = enu / np.sqrt(enu[..., 0] ** 2 + enu[..., 1] ** 2 + enu[..., 2] ** 2)[..., None]
    assert const.los_enu(t).tobytes() == want.tobytes()
    assert const.los_enu(t[:0]).shape == (0, const.nsat, 3)


def test_lines_of_sight_compiled_are_numpys_bits(const, monkeypatch):
    """los_enu's kernel compiled (its sines and cosines the C library's, a libm kernel) gives
    the bits of the numpy path, one epoch a call (the receiver's streaming step) and in blocks;
    the kernel run as plain Python (where the probe finds the sines unlike numpy's) too."""
    import navsense.kernels as kernels
    from navsense.sky import constellation as _c

    pytest.importorskip("numba")
    t = np.concatenate([np.arange(0.0, 300.0, 0.1), [86399.9, 1e6, 1e9]])
    monkeypatch.setattr(kernels, "_on", False)
    want = const.los_enu(t)
    monkeypatch.setattr(kernels, "_on", True)
    assert const.los_enu(t).tobytes() == want.tobytes()
    ones = np.concatenate([const.los_enu(t[i : i + 1]) for i in range(0, t.size, 7)])
    assert ones.tobytes() == want[::7].tobytes()
    out = np.empty((t.size, const.nsat, 3))
    _c._los_rows.fn(t[:, None], const._orbit, const._site_r, out)
    assert out.tobytes() == want.tobytes()
    monkeypatch.setattr(kernels, "_on", False)


def test_chunks_give_identical_lines_of_sight(const):
    t = np.arange(0, 2000) * 0.1
    whole = const.los_enu(t)
    parts = np.concatenate([const.los_enu(t[:1]), const.los_enu(t[1:777]), const.los_enu(t[777:])])
    np.testing.assert_array_equal(whole, parts)


@pytest.mark.parametrize(
    "enabled", [{"gps": True}, {"gps": True, "galileo": True, "glonass": True, "beidou": True}]
)
def test_enabled_must_name_every_system(enabled):
    with pytest.raises(ConfigError, match="gnss.constellations"):
        Constellation(1, enabled, LAT, LON, H)


def test_times_must_be_one_dimensional(const):
    with pytest.raises(ValueError, match=r"shape \(m,\)"):
        const.los_enu(np.zeros((2, 2)))
