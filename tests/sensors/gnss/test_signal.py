"""The satellites in view and their C/N0 (navsense.sensors.gnss.signal, issue 20)."""

import importlib.util
import math

import numpy as np
import pytest

from navsense.rng import Pcg32
from navsense.sensors.gnss.signal import (
    CLASS_LOSS_DB,
    CLASS_SIGMA_DB,
    CN0_MIN_DBHZ,
    CN0_SEQUENCE,
    SIGNAL_SEED_OFFSET,
    SignalModel,
    azimuth_deg,
)
from navsense.sky import obstruction as sky
from navsense.sky.constellation import Constellation, elevation_deg

SEED = 42
ALL_ON = {"gps": True, "galileo": True, "glonass": True}


def constellation(enabled=ALL_ON):
    return Constellation(SEED, enabled, 40.47, -86.99, 200.0)


def los_of(elevation_deg, azimuth_deg_):
    el, az = np.radians(elevation_deg), np.radians(azimuth_deg_)
    return np.stack([np.cos(el) * np.sin(az), np.cos(el) * np.cos(az), np.sin(el)], axis=-1)


def cn0_of(system_power_dbw, elevation_deg):
    """The link budget written out again: P + G(el) - N0 - F, G = 4 - 10 (1 - sin el)."""
    gain = 4.0 - 10.0 * (1.0 - math.sin(math.radians(elevation_deg)))
    return system_power_dbw + gain + 204.0 - 2.0


def test_link_budget_by_system_elevation_and_class_without_noise():
    k = constellation()
    model = SignalModel(k, SEED, noise=False)
    n = k.nsat
    el = np.array([[90.0] * n, [10.0] * n, [45.0] * n, [45.0] * n, [45.0] * n, [45.0] * n])
    los = los_of(el, np.full_like(el, 30.0))
    status = np.array(
        [[sky.CLEAR] * n, [sky.CLEAR] * n, [sky.NEAR] * n, [sky.FOLIAGE] * n, [sky.BLOCKED] * n]
        + [[sky.BELOW_MASK] * n],
        dtype=np.int8,
    )
    out = model.satellites(los, status)
    power = {"gps": -158.5, "galileo": -157.0, "glonass": -161.0}  # the ICDs' minima
    for j, system in enumerate(k.system):
        p = power[str(system)]
        assert out["sat_cn0_dbhz"][0, j] == pytest.approx(cn0_of(p, 90.0), abs=1e-9)
        assert out["sat_cn0_dbhz"][1, j] == pytest.approx(cn0_of(p, 10.0), abs=1e-9)
        assert out["sat_cn0_dbhz"][2, j] == pytest.approx(cn0_of(p, 45.0) - 3.0, abs=1e-9)
        assert out["sat_cn0_dbhz"][3, j] == pytest.approx(
            max(cn0_of(p, 45.0) - 10.0, CN0_MIN_DBHZ), abs=1e-9
        )
    # GPS in the clear: 47.5 dB-Hz at the zenith, about 39 at 10 deg
    gps = k.system == "gps"
    assert out["sat_cn0_dbhz"][0, gps] == pytest.approx(47.5)
    assert out["sat_cn0_dbhz"][1, gps] == pytest.approx(39.2, abs=0.05)
    # blocked and untracked: no signal; used: clear, near, foliage
    assert np.isnan(out["sat_cn0_dbhz"][4:]).all()
    assert out["sat_used"][:4].all() and not out["sat_used"][4:].any()
    np.testing.assert_array_equal(out["sat_class"], status)
    np.testing.assert_allclose(out["sat_elevation_deg"], el, atol=1e-9)
    np.testing.assert_allclose(out["sat_azimuth_deg"], 30.0, atol=1e-9)
    assert (out["sat_prn"] == k.prn).all()
    assert [("gps", "galileo", "glonass")[s] for s in out["sat_system"][0]] == list(k.system)


def test_azimuth_clockwise_from_north_in_0_360():
    los = los_of(np.zeros(5), np.array([0.0, 90.0, 180.0, 270.0, 359.9]))
    np.testing.assert_allclose(azimuth_deg(los), [0.0, 90.0, 180.0, 270.0, 359.9], atol=1e-9)
    assert azimuth_deg(np.array([0.0, -1.0, 0.0])) == 180.0
    assert 0.0 <= azimuth_deg(np.array([-1e-300, 1.0, 0.0])) < 360.0


def test_one_gaussian_per_satellite_and_epoch_whatever_is_tracked():
    k = constellation({"gps": True, "galileo": False, "glonass": False})
    m = 7
    los = los_of(np.full((m, k.nsat), 30.0), np.zeros((m, k.nsat)))
    for status_code, noise in ((sky.CLEAR, True), (sky.BELOW_MASK, True), (sky.CLEAR, False)):
        model = SignalModel(k, SEED, noise)
        model.satellites(los, np.full((m, k.nsat), status_code, dtype=np.int8))
        ref = Pcg32(SEED + SIGNAL_SEED_OFFSET, CN0_SEQUENCE)
        ref.u32(2 * k.nsat * m)  # Box-Muller: two outputs a Gaussian
        assert model._rng.state == ref.state


def test_the_noise_is_the_streams_gaussians_scaled_by_the_class():
    k = constellation()
    m = 4
    el = np.full((m, k.nsat), 50.0)
    los = los_of(el, np.zeros_like(el))
    status = np.full((m, k.nsat), sky.FOLIAGE, dtype=np.int8)
    status[:, ::3] = sky.NEAR
    status[:, 1::3] = sky.CLEAR
    quiet = SignalModel(k, SEED, noise=False).satellites(los, status)["sat_cn0_dbhz"]
    noisy = SignalModel(k, SEED, noise=True).satellites(los, status)["sat_cn0_dbhz"]
    g = Pcg32(SEED + SIGNAL_SEED_OFFSET, CN0_SEQUENCE).gaussians(m * k.nsat).reshape(m, k.nsat)
    sigma = np.vectorize(CLASS_SIGMA_DB.get)(status)
    want = np.maximum(quiet + sigma * g, CN0_MIN_DBHZ)
    np.testing.assert_allclose(noisy, want, atol=1e-9)


def test_class_statistics_over_many_epochs():
    k = constellation()
    m = 4000
    el = np.full((m, k.nsat), 60.0)
    los = los_of(el, np.zeros_like(el))
    status = np.full((m, k.nsat), sky.CLEAR, dtype=np.int8)
    status[:, 1::3] = sky.NEAR
    status[:, 2::3] = sky.FOLIAGE
    cn0 = SignalModel(k, SEED, noise=True).satellites(los, status)["sat_cn0_dbhz"]
    gps = k.system == "gps"
    base = cn0_of(-158.5, 60.0)
    for code in (sky.CLEAR, sky.NEAR, sky.FOLIAGE):
        x = cn0[:, gps & (status[0] == code)].ravel()
        n = x.size
        # mean within 5 standard errors, the spread within 5 standard errors of a deviation
        assert x.mean() == pytest.approx(
            base - CLASS_LOSS_DB[code], abs=5 * CLASS_SIGMA_DB[code] / math.sqrt(n)
        )
        assert x.std() == pytest.approx(
            CLASS_SIGMA_DB[code], abs=5 * CLASS_SIGMA_DB[code] / math.sqrt(2 * n)
        )
    # through foliage a satellite is weaker than in the clear at the same elevation
    assert cn0[:, status[0] == sky.FOLIAGE].mean() < cn0[:, status[0] == sky.CLEAR].mean() - 8.0


def test_a_chunk_of_no_epochs():
    k = constellation()
    out = SignalModel(k, SEED, True).satellites(
        np.zeros((0, k.nsat, 3)), np.zeros((0, k.nsat), np.int8)
    )
    assert all(v.shape == (0, k.nsat) for v in out.values())


@pytest.mark.parametrize("compiled", [False, True])
def test_one_epoch_a_call_equals_the_block_bit_for_bit(monkeypatch, compiled):
    """satellites() of one epoch a call (the streaming step; its kernel compiled or as numpy)
    gives the block's arrays byte for byte: every class, low and high elevations, the 20 dB-Hz
    floor, NaN without a signal."""
    import navsense.kernels as kernels

    if compiled:
        pytest.importorskip("numba")
    k = constellation()
    rng = np.random.default_rng(4)
    m = 200
    los = los_of(rng.uniform(-10.0, 90.0, (m, k.nsat)), rng.uniform(0.0, 360.0, (m, k.nsat)))
    status = rng.integers(0, 5, (m, k.nsat)).astype(np.int8)
    whole = SignalModel(k, SEED, noise=True).satellites(los, status)
    model = SignalModel(k, SEED, noise=True)
    monkeypatch.setattr(kernels, "_on", compiled)
    steps = [model.satellites(los[i : i + 1], status[i : i + 1]) for i in range(m)]
    monkeypatch.setattr(kernels, "_on", False)
    for key, value in whole.items():
        assert np.concatenate([s[key] for s in steps]).tobytes() == value.tobytes(), key
    cn0 = whole["sat_cn0_dbhz"]
    assert np.isnan(cn0).any() and (cn0 == CN0_MIN_DBHZ).any() and (cn0 > 45.0).any()
    # the elevations and azimuths: elevation_deg's and azimuth_deg's values, byte for byte
    assert whole["sat_elevation_deg"].tobytes() == elevation_deg(los).tobytes()
    assert whole["sat_azimuth_deg"].tobytes() == azimuth_deg(los).tobytes()


# lines of sight at an edge: l_u beyond +-1 by an ulp, a hair west of north, south at -0.0 east
_EDGE_DIRECTIONS = [
    [0.0, 0.0, np.nextafter(1.0, 2.0)],
    [0.0, 0.0, -np.nextafter(1.0, 2.0)],
    [-1e-300, 1.0, 0.0],
    [0.0, -1.0, 0.0],
    [-0.0, -1.0, 0.0],
]


def test_elevation_and_azimuth_at_their_edges(monkeypatch):
    """The kernel's degrees (C/N0's kernel, compiled and numpy) on l_u beyond +-1 by an ulp,
    azimuths a hair west of north (-1e-300 rad: 360 - 0 = 360 -> 0) and at +-180 deg."""
    import navsense.kernels as kernels

    k = constellation()
    los = np.zeros((1, k.nsat, 3))
    los[0, :, 1] = 1.0
    los[0, :6] = [*_EDGE_DIRECTIONS, [1e-17, -1.0, 0.5]]
    status = np.full((1, k.nsat), sky.CLEAR, dtype=np.int8)
    for on in (False, True) if importlib.util.find_spec("numba") else (False,):
        monkeypatch.setattr(kernels, "_on", on)
        got = SignalModel(k, SEED, noise=True).satellites(los, status)
        monkeypatch.setattr(kernels, "_on", False)
        assert got["sat_elevation_deg"].tobytes() == elevation_deg(los).tobytes()
        assert got["sat_azimuth_deg"].tobytes() == azimuth_deg(los).tobytes()


def test_a_chunk_with_the_callers_used_mask_and_edge_directions_equals_one_epoch_a_call():
    """A chunk's values (C/N0 over its tracked pairs only, as the receiver calls it with its
    used mask) equal the one-epoch path's byte for byte, the stream left in the same state:
    every class, no tracked satellite in some epochs, lines of sight at l_u = +-1 by an ulp,
    azimuths a hair west of north and at +-180 deg."""
    k = constellation()
    rng = np.random.default_rng(8)
    m = 120
    los = los_of(rng.uniform(-10.0, 90.0, (m, k.nsat)), rng.uniform(0.0, 360.0, (m, k.nsat)))
    los[0, :6] = [*_EDGE_DIRECTIONS, [-0.0, 1.0, 0.5]]
    status = rng.integers(0, 5, (m, k.nsat)).astype(np.int8)
    status[5:9] = sky.BELOW_MASK
    chunk_model = SignalModel(k, SEED, noise=True)
    whole = chunk_model.satellites(los, status, sky.used_mask(status))
    model = SignalModel(k, SEED, noise=True)
    steps = [model.satellites(los[i : i + 1], status[i : i + 1]) for i in range(m)]
    for key, value in whole.items():
        assert np.concatenate([s[key] for s in steps]).tobytes() == value.tobytes(), key
    assert chunk_model._rng.state == model._rng.state
