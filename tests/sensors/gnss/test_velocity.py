"""The receiver's velocity, speed over ground and course (navsense.sensors.gnss.velocity)."""

import math

import numpy as np
import pytest

from navsense.geo import Georeference
from navsense.rng import Pcg32
from navsense.sensors.gnss.signal import SIGNAL_SEED_OFFSET
from navsense.sensors.gnss.velocity import (
    RANGE_RATE_SIGMA_MPS,
    VELOCITY_SEQUENCE,
    VelocityModel,
    antenna_velocity_enu,
    grid_north_azimuth_deg,
)

SEED = 42
arcsec = 1.0 / 3600.0


def test_antenna_velocity_of_a_turning_vehicle():
    # yawing at 0.5 rad/s about the centre of mass, antenna 2 m ahead of it: 1 m/s to the left
    v = antenna_velocity_enu(
        [[3.0, 0.0, 0.0]], [[0.0, 0.0, 0.5]], [[12.0, 5.0, 1.5]], [[10.0, 5.0, 0.5]]
    )
    np.testing.assert_allclose(v, [[3.0, 1.0, 0.0]], atol=1e-15)


def test_grid_north_is_the_state_plane_convergence_at_the_acre_origin():
    pyproj = pytest.importorskip("pyproj")
    g = Georeference.acre()
    geo = g.enu_to_geodetic([0.0, 0.0, 0.0], 0.0)
    lat, lon = float(geo["nad83_harn_lat_deg"]), float(geo["nad83_harn_lon_deg"])
    gamma = pyproj.Proj("EPSG:2968").get_factors(lon, lat).meridian_convergence
    # east of the central meridian in the north: grid north lies east of true north (0.058 deg)
    assert gamma == pytest.approx(0.0577, abs=1e-4)
    # navsense's value goes through WGS84 (G2139), PROJ's stays in NAD83(HARN): 0.05 arcsec apart
    assert grid_north_azimuth_deg(g) == pytest.approx(gamma, abs=0.2 * arcsec)


def test_grid_north_of_a_local_tangent_site_and_no_site():
    assert grid_north_azimuth_deg(Georeference.local(48.85, 2.35, 35.0)) == pytest.approx(
        0.0, abs=1e-8
    )
    assert grid_north_azimuth_deg(None) == 0.0


def test_without_noise_the_truth_and_its_true_course():
    g = Georeference.acre()
    model = VelocityModel(SEED, noise=False, georef=g)
    alpha = grid_north_azimuth_deg(g)
    v_a = np.array([[4.0, 0.0, 0.1], [0.0, -2.0, 0.0], [-1.0, -1.0, 0.0], [0.0, 0.0, 0.0]])
    out = model.velocities(v_a, np.full(4, 0.7), np.full(4, 1.1))
    np.testing.assert_array_equal(out["velocity_enu_mps"], v_a)
    np.testing.assert_array_equal(out["antenna_velocity_enu_mps"], v_a)
    assert not out["sigma_velocity_enu_mps"].any()
    np.testing.assert_allclose(out["speed_mps"], [4.0, 2.0, math.sqrt(2.0), 0.0])
    np.testing.assert_allclose(out["course_deg"], np.array([90.0, 180.0, 225.0, 0.0]) + alpha)


def test_course_stays_in_0_360():
    model = VelocityModel(SEED, noise=False, georef=Georeference.acre())
    out = model.velocities(np.array([[-1e-9, 1.0, 0.0]]), [1.0], [1.0])  # a hair west of north
    assert 0.0 <= out["course_deg"][0] < 360.0


def test_doppler_error_statistics_and_the_stream():
    m = 20000
    hdop = np.full(m, 0.8)
    vdop = np.full(m, 1.3)
    model = VelocityModel(SEED, noise=True, georef=None)
    out = model.velocities(np.zeros((m, 3)), hdop, vdop)
    g = Pcg32(SEED + SIGNAL_SEED_OFFSET, VELOCITY_SEQUENCE).gaussians(3 * m).reshape(m, 3)
    sigma = RANGE_RATE_SIGMA_MPS * np.array([0.8 / math.sqrt(2), 0.8 / math.sqrt(2), 1.3])
    np.testing.assert_allclose(out["sigma_velocity_enu_mps"], np.tile(sigma, (m, 1)))
    np.testing.assert_allclose(out["velocity_enu_mps"], sigma * g, rtol=1e-15)
    std = out["velocity_enu_mps"].std(axis=0)
    np.testing.assert_allclose(std, sigma, rtol=5 / math.sqrt(2 * m))
    # the horizontal speed error of a standing receiver: Rayleigh, mean sigma_h sqrt(pi / 2)
    assert out["speed_mps"].mean() == pytest.approx(
        sigma[0] * math.sqrt(math.pi / 2), rel=5 * 0.52 / math.sqrt(m)
    )


def test_three_gaussians_an_epoch_with_noise_on_or_off():
    for noise in (True, False):
        model = VelocityModel(SEED, noise=noise, georef=None)
        model.velocities(np.zeros((5, 3)), np.ones(5), np.ones(5))
        model.velocities(np.zeros((0, 3)), np.ones(0), np.ones(0))
        ref = Pcg32(SEED + SIGNAL_SEED_OFFSET, VELOCITY_SEQUENCE)
        ref.u32(2 * 3 * 5)
        assert model._rng.state == ref.state


def test_one_epoch_a_call_equals_the_block_bit_for_bit():
    """velocities() of one epoch a call (the streaming step: the Gaussians a view of the
    stream's block) gives the block's arrays byte for byte, and the stream ends where the
    block's does."""
    rng = np.random.default_rng(12)
    m = 3000  # past several refills of the stream's block of Gaussians
    v_a = rng.normal(size=(m, 3))
    hdop, vdop = rng.uniform(0.6, 3.0, m), rng.uniform(0.8, 4.0, m)
    block = VelocityModel(SEED, noise=True, georef=Georeference.acre())
    whole = block.velocities(v_a, hdop, vdop)
    model = VelocityModel(SEED, noise=True, georef=Georeference.acre())
    steps = [model.velocities(v_a[k : k + 1], hdop[k : k + 1], vdop[k : k + 1]) for k in range(m)]
    for key, value in whole.items():
        assert np.concatenate([s[key] for s in steps]).tobytes() == value.tobytes(), key
    assert model._rng.gaussians(5).tobytes() == block._rng.gaussians(5).tobytes()
