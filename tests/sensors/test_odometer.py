"""The wheel odometer against rigid-body kinematics (a car on a circle) and its stream."""

import numpy as np
import orjson
import pytest

from conftest import circle_truth, layout_rows, stationary_truth
from navsense.config import load_config
from navsense.config.typed.odom import OdomConfig
from navsense.rng import Pcg32
from navsense.sensors.odometer import ODOM_SEED_OFFSET, ODOM_SEQUENCE, OdometerModel
from navsense.truth.states import TruthStates
from navsense.vehicles import VEHICLES

POLARIS = VEHICLES["polaris"]
mm = 1e-3
mps = 1.0


def _cfg_dict(noise=True, seed=42, hz=50.0, white=0.02, scale=0.01, tick=0.0):
    overrides = {
        "seed": seed,
        "noise": noise,
        "mount_frame": "chassis",
        "delay_s": 0.05,
        "odom": {
            "enabled": True,
            "hz": hz,
            "noise_std_mps": white,
            "scale_factor_sigma": scale,
            "encoder_tick_m": tick,
        },
    }
    # an effective configuration: every key, the Maxxum's defaults under these
    return load_config(vehicle="maxxum", overrides=overrides)


def _cfg(**kw) -> OdomConfig:
    """The typed section of :func:`_cfg_dict`."""
    return OdomConfig.from_validated(_cfg_dict(**kw))


def car_on_circle(n, rear_radius_m, rear_speed_mps, vehicle=POLARIS, rate_hz=120.0, cg_ahead_m=0.3):
    """A car turning without slip: the rear axle's middle runs on a circle, heading tangent to it.

    Every point of the body rotates about the circle's centre at w = V_r / R_r, so the rear axle
    moves straight forward at V_r while the chassis origin and the centre of mass (here
    ``cg_ahead_m`` ahead of the chassis origin) move faster and partly sideways.
    """
    w = rear_speed_mps / rear_radius_m
    t = np.arange(n) / rate_hz
    theta = w * t
    yaw = theta + np.pi / 2
    c, s = np.cos(yaw), np.sin(yaw)
    rear = np.column_stack(
        [rear_radius_m * np.cos(theta), rear_radius_m * np.sin(theta), np.zeros(n)]
    )
    ahead = -vehicle.footprint_in_chassis_m  # chassis origin from the axle, body FLU

    def body_to_world(v):
        return np.column_stack([c * v[0] - s * v[1], s * v[0] + c * v[1], np.full(n, v[2])])

    p = rear + body_to_world(ahead)
    com = p + body_to_world(np.array([cg_ahead_m, 0.0, 0.0]))
    omega = np.tile([0.0, 0.0, w], (n, 1))
    v = np.cross(omega, com)  # rigid rotation about the origin, the circle's centre
    q = np.column_stack([np.zeros(n), np.zeros(n), np.sin(yaw / 2), np.cos(yaw / 2)])
    return TruthStates(
        step0=0,
        p_m=p,
        q_xyzw=q,
        v_mps=v,
        w_radps=omega,
        c_m=com,
        reset=np.zeros(n, dtype=bool),
        rate_hz=rate_hz,
    )


# ------------------------------------------------------------------------------ kinematics
@pytest.mark.parametrize("radius, speed", [(8.0, 3.0), (25.0, 5.0), (4.0, -1.5)])
def test_circle_reads_the_rear_axle_speed(radius, speed):
    truth = car_on_circle(1200, radius, speed)
    block = OdometerModel(_cfg(noise=False), POLARIS).process(truth)
    np.testing.assert_allclose(block["speed_mps"], speed, rtol=0, atol=1e-12 * mps)
    # not the centre of mass's speed, which is larger on the circle
    ahead = 0.4 * POLARIS.wheelbase_m + 0.3  # centre of mass ahead of the axle, m
    com_speed = np.linalg.norm(truth.v_mps[0])
    assert com_speed == pytest.approx(abs(speed) * np.hypot(radius, ahead) / radius, rel=1e-12)
    assert com_speed - abs(speed) > 1e-3 * abs(speed)
    # distance: the rectangle rule of a constant speed is exact
    t = block["sample_time_s"]
    np.testing.assert_allclose(block["distance_m"], speed * t, rtol=0, atol=1e-9 * mm)


def test_rear_axle_of_the_conftest_circle_has_the_rigid_body_forward_speed():
    """The conftest circle moves the centre of mass tangentially: a point behind it on the body
    x axis has the same forward speed (w x r is lateral for r along x)."""
    truth = circle_truth(300, radius_m=25.0, speed_mps=5.0)
    block = OdometerModel(_cfg(noise=False), POLARIS).process(truth)
    np.testing.assert_allclose(block["speed_mps"], 5.0, rtol=0, atol=1e-12 * mps)


def test_parked_reads_zero():
    block = OdometerModel(_cfg(noise=False), POLARIS).process(stationary_truth(100))
    np.testing.assert_array_equal(block["speed_mps"], 0.0)
    np.testing.assert_array_equal(block["distance_m"], 0.0)


# --------------------------------------------------------------------- errors and stream
def test_scale_factor_drawn_once_and_noise_per_sample():
    truth = car_on_circle(240, 10.0, 4.0)
    model = OdometerModel(_cfg(seed=5, white=0.05, scale=0.02), POLARIS)
    block = model.process(truth)
    k = block["sample_time_s"].size
    g = Pcg32(5 + ODOM_SEED_OFFSET, ODOM_SEQUENCE).gaussians(1 + k)
    eps = 0.02 * g[0]
    assert model.episode_info() == {"odom_scale_factor_error": eps}
    np.testing.assert_allclose(
        block["speed_mps"], (1 + eps) * 4.0 + 0.05 * g[1:], rtol=0, atol=1e-12 * mps
    )


def test_white_noise_sigma_and_scale_factor_statistics():
    sigma = 0.05
    truth = car_on_circle(12000, 10.0, 4.0)
    block = OdometerModel(_cfg(hz=120.0, white=sigma, scale=0.0), POLARIS).process(truth)
    e = block["speed_mps"] - 4.0
    assert abs(e.std() - sigma) < 4 * sigma / np.sqrt(2 * e.size)
    eps = np.array(
        [OdometerModel(_cfg(seed=s, scale=0.01), POLARIS).scale_factor_error for s in range(600)]
    )
    assert abs(eps.std() - 0.01) < 4 * 0.01 / np.sqrt(2 * eps.size)


def test_noise_off_is_truth_and_draws_the_same_values():
    truth = car_on_circle(500, 12.0, 3.0)
    on, off = OdometerModel(_cfg(), POLARIS), OdometerModel(_cfg(noise=False), POLARIS)
    on.process(truth)
    block = off.process(truth)
    assert on._rng.state == off._rng.state
    assert off.scale_factor_error == 0.0
    np.testing.assert_allclose(block["speed_mps"], 3.0, rtol=0, atol=1e-12 * mps)


def test_encoder_ticks_quantise_distance_and_speed():
    tick = 0.05
    truth = car_on_circle(1200, 20.0, 2.345)
    block = OdometerModel(_cfg(noise=False, hz=10.0, tick=tick), POLARIS).process(truth)
    d = block["distance_m"]
    np.testing.assert_allclose(d / tick, np.round(d / tick), rtol=0, atol=1e-9)
    exact = 2.345 * block["sample_time_s"]
    assert np.all((exact - d >= -1e-9) & (exact - d < tick + 1e-9))  # whole ticks, floored
    assert block["speed_mps"][0] == 0.0  # no interval before the first sample
    # the tick-count speed is one of the two neighbouring multiples of tick / dt
    s = block["speed_mps"][1:]
    assert set(np.round(s / (tick * 10.0)).astype(int)) <= {4, 5}
    # over the run it averages the true speed
    t_end = block["sample_time_s"][-1]
    assert abs(d[-1] / t_end - 2.345) < tick / t_end + 1e-9


def test_distance_carries_on_over_a_reset_and_reverses_sign():
    fwd = car_on_circle(240, 10.0, 2.0)
    back = car_on_circle(240, 10.0, -2.0)
    back = TruthStates(
        step0=240,
        p_m=back.p_m,
        q_xyzw=back.q_xyzw,
        v_mps=back.v_mps,
        w_radps=back.w_radps,
        c_m=back.c_m,
        reset=np.r_[True, np.zeros(239, dtype=bool)],
        rate_hz=120.0,
    )
    model = OdometerModel(_cfg(noise=False, hz=10.0), POLARIS)
    d1 = model.process(fwd)["distance_m"]
    d2 = model.process(back)["distance_m"]
    assert d1[-1] == pytest.approx(2.0 * 1.9, abs=1e-9)
    # the first sample after the gap integrates the reversing speed over its interval
    assert d2[0] == pytest.approx(d1[-1] - 2.0 * 0.1, abs=1e-9)
    assert d2[-1] < d2[0]


# --------------------------------------------------------- batch = chunks = steps, rows
def _run(model, truth, size):
    rows = []
    for part in truth.chunks(size):
        rows.extend(layout_rows(model, model.process(part)))
    return b"\n".join(orjson.dumps(r) for r in rows)


@pytest.mark.parametrize("tick", [0.0, 0.02])
def test_batch_chunks_steps_give_identical_rows(tick):
    truth = car_on_circle(900, 15.0, 4.0)
    outs = [
        _run(OdometerModel(_cfg(hz=50.0, tick=tick), POLARIS), truth, size)
        for size in (len(truth), 53, 1)
    ]
    assert outs[0] == outs[1] == outs[2]
    assert outs[0].count(b"\n") + 1 == 375  # 50 Hz over 900 / 120 s


def test_rows_layout():
    model = OdometerModel(_cfg(), POLARIS)
    rows = layout_rows(model, model.process(car_on_circle(30, 10.0, 2.0)))
    assert list(rows[0]) == ["speed_mps", "distance_m"]
    assert rows[0]["distance_m"] == 0.0  # first sample at t = 0
    assert layout_rows(model, model.process(stationary_truth(0))) == []


def test_built_from_the_effective_configuration():
    from navsense.config import apply_overrides, load_config
    from navsense.errors import ConfigError

    cfg = load_config(vehicle="maxxum")
    assert cfg["odom"]["enabled"] is False and cfg["odom"]["encoder_tick_m"] == 0
    cfg = apply_overrides(cfg, {"odom.enabled": True})
    block = OdometerModel(OdomConfig.from_validated(cfg), VEHICLES["maxxum"]).process(
        car_on_circle(120, 9.0, 2.0, VEHICLES["maxxum"])
    )
    assert block["sample_time_s"].size == 50
    with pytest.raises(ConfigError, match=r"odom\.hz = 0\.5 is out of range 1\.\.2000"):
        apply_overrides(cfg, {"odom.hz": 0.5})


def test_a_parked_wheel_reads_zero_with_noise_and_noise_never_reverses_it():
    """Issue 18 item 6: an encoder at rest reports 0 (not noise around 0), and a slowly rolling
    wheel never reads the opposite direction; moving at speed, the noise is unchanged."""
    model = OdometerModel(_cfg(seed=3, white=0.05, scale=0.01), POLARIS)
    block = model.process(stationary_truth(1200))
    np.testing.assert_array_equal(block["speed_mps"], 0.0)
    np.testing.assert_array_equal(block["distance_m"], 0.0)
    for speed in (0.01, -0.01):  # 1 cm/s forward and backward, noise 5 cm/s
        block = OdometerModel(_cfg(seed=3, white=0.05), POLARIS).process(
            car_on_circle(2400, 10.0, speed)
        )
        s = block["speed_mps"]
        assert np.all(s * np.sign(speed) >= 0.0)
        assert np.count_nonzero(s == 0.0) > s.size // 3  # clamped where noise would reverse it
    # far from zero nothing is clamped: test_scale_factor_drawn_once_and_noise_per_sample
