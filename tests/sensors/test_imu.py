"""The ACRES IMU (specification, "IMU") against physics identities and its seeded stream."""

import numpy as np
import orjson
import pytest

from conftest import circle_truth, layout_rows, stationary_truth
from navsense.config import load_config
from navsense.config.typed.imu import ImuConfig
from navsense.constants import GRAVITY_MPS2
from navsense.geo import Georeference
from navsense.rng import Pcg32
from navsense.sensors.imu import ImuModel
from navsense.truth.states import TruthStates
from navsense.vehicles import VEHICLES

POLARIS = VEHICLES["polaris"]


def _cfg_dict(
    noise=True, seed=42, hz=120.0, position=(0.0, 0.0, 0.0), mount="chassis", earth="none"
):
    overrides = {
        "seed": seed,
        "noise": noise,
        "mount_frame": mount,
        "delay_s": 0.05,
        "imu": {
            "enabled": True,
            "hz": hz,
            "accel_std_mps2": 0.03,
            "gyro_std_radps": 0.002,
            "accel_bias_mps2": 0.01,
            "gyro_bias_radps": 0.001,
            "position_flu_m": list(position),
            "earth": earth,
        },
    }
    # an effective configuration: every key, the Maxxum's defaults under these
    return load_config(vehicle="maxxum", overrides=overrides)


def _cfg(**kw) -> ImuConfig:
    """The typed section of :func:`_cfg_dict`."""
    return ImuConfig.from_validated(_cfg_dict(**kw))


def test_stationary_imu_reads_gravity_up_and_zero_rate():
    block = ImuModel(_cfg(noise=False), POLARIS).process(stationary_truth(50))
    assert block["sample_time_s"][0] == 2 / 120.0  # first row at the third physics step
    np.testing.assert_array_equal(
        block["specific_force_flu_mps2"], np.tile([0.0, 0.0, GRAVITY_MPS2], (48, 1))
    )
    np.testing.assert_array_equal(block["angular_velocity_flu_radps"], np.zeros((48, 3)))


@pytest.mark.parametrize("lever", [(0.0, 0.0, 0.0), (0.95, -0.45, 0.7), (-2.0, 1.0, 1.5)])
def test_steady_turn_reads_turn_rate_and_centripetal_force_of_the_lever_arm(lever):
    radius, speed, rate = 25.0, 5.0, 120.0
    truth = circle_truth(600, radius, speed, rate)
    block = ImuModel(_cfg(noise=False, position=lever), POLARIS).process(truth)
    w = speed / radius
    np.testing.assert_allclose(
        block["angular_velocity_flu_radps"], np.tile([0.0, 0.0, w], (598, 1)), rtol=0, atol=1e-15
    )
    # the IMU point circles the centre: specific force -w^2 (R^T p + r_i), horizontal, plus 1 g up
    rows = np.searchsorted(truth.t_s, block["sample_time_s"])
    yaw = w * truth.t_s[rows] + np.pi / 2
    c, s = np.cos(yaw), np.sin(yaw)
    p = truth.p_m[rows]
    body = np.column_stack([c * p[:, 0] + s * p[:, 1], -s * p[:, 0] + c * p[:, 1]]) + lever[:2]
    expected = np.column_stack([-w * w * body, np.full(len(rows), GRAVITY_MPS2)])
    # the finite difference over one step lags the attitude by half a step: a w dt / 2
    tol = w * w * np.linalg.norm(body, axis=1).max() * w / rate
    np.testing.assert_allclose(block["specific_force_flu_mps2"], expected, rtol=0, atol=tol)
    assert np.abs(block["specific_force_flu_mps2"][:, 1] - expected[:, 1]).max() < tol / 10


def test_biases_are_the_first_six_gaussians_times_sigmas():
    model = ImuModel(_cfg(seed=7), POLARIS)
    g = Pcg32(7 + 1009, 2).gaussians(6)
    info = model.episode_info()["imu_bias_flu"]
    assert info["accel_mps2"] == (0.01 * g[:3]).tolist()
    assert info["gyro_radps"] == (0.001 * g[3:]).tolist()


def test_noise_is_the_next_six_gaussians_per_sample():
    model = ImuModel(_cfg(seed=7), POLARIS)
    block = model.process(stationary_truth(10))
    g = Pcg32(7 + 1009, 2).gaussians(6 + 6 * 8).reshape(-1, 6)
    bias_a, bias_g = 0.01 * g[0, :3], 0.001 * g[0, 3:]
    expected_f = np.array([0.0, 0.0, GRAVITY_MPS2]) + bias_a + 0.03 * g[1:, :3]
    np.testing.assert_allclose(block["specific_force_flu_mps2"], expected_f, rtol=0, atol=1e-14)
    np.testing.assert_allclose(
        block["angular_velocity_flu_radps"], bias_g + 0.002 * g[1:, 3:], rtol=0, atol=1e-15
    )


def test_noise_off_draws_the_same_values():
    on, off = ImuModel(_cfg(noise=True), POLARIS), ImuModel(_cfg(noise=False), POLARIS)
    on.process(stationary_truth(30))
    off.process(stationary_truth(30))
    assert on._rng.state == off._rng.state


def test_reset_restarts_the_differences():
    truth = circle_truth(40)
    reset = truth.reset.copy()
    reset[20] = True
    jumped = TruthStates(
        0,
        truth.p_m + np.where(np.arange(40)[:, None] >= 20, 100.0, 0.0),
        truth.q_xyzw,
        truth.v_mps,
        truth.w_radps,
        truth.c_m + np.where(np.arange(40)[:, None] >= 20, 100.0, 0.0),
        reset,
    )
    block = ImuModel(_cfg(noise=False), POLARIS).process(jumped)
    steps = np.rint(block["sample_time_s"] * 120).astype(int)
    assert 20 not in steps and 21 not in steps and 22 in steps and 19 in steps
    # no spike: every row still reads about 1 g up
    assert np.abs(block["specific_force_flu_mps2"][:, 2] - GRAVITY_MPS2).max() < 1e-9


def _bytes(model, chunks):
    """The rows as JSONL, then the unrounded values' bytes (one-step chunks too: bit for bit)."""
    out, raw = b"", {}
    for c in chunks:
        block = model.process(c)
        out += b"".join(orjson.dumps(r) + b"\n" for r in layout_rows(model, block))
        for k in block:
            raw[k] = raw.get(k, b"") + block[k].tobytes()
    return out + b"".join(raw[k] for k in sorted(raw))


@pytest.mark.parametrize(
    "hz, earth", [(120.0, "none"), (100.0, "none"), (33.0, "none"), (100.0, "wgs84")]
)
def test_batch_equals_chunks_equals_steps(hz, earth):
    truth = circle_truth(1500)
    reset = truth.reset.copy()
    reset[[96, 97, 700, 1499]] = True  # at a chunk's end, twice in a row, alone, the last step
    truth = TruthStates(
        0,
        truth.p_m,
        truth.q_xyzw,
        truth.v_mps + 0.01 * np.sin(np.arange(1500))[:, None],
        truth.w_radps,
        truth.c_m + [0.1, 0.0, 0.05],
        reset,
    )
    cfg = _cfg(hz=hz, position=(0.95, -0.45, 0.7), mount="base_footprint", earth=earth)
    georef = Georeference.acre()  # imu.earth wgs84: the Earth's terms at every step
    whole = _bytes(ImuModel(cfg, POLARIS, georef), [truth])
    chunked = _bytes(ImuModel(cfg, POLARIS, georef), list(truth.chunks(97)))
    steps = _bytes(ImuModel(cfg, POLARIS, georef), list(truth.chunks(1)))
    assert whole == chunked == steps
    assert whole.count(b"\n") > 0


@pytest.mark.parametrize("compiled", [False, True])
def test_steps_after_chunks_after_steps_equal_the_batch(monkeypatch, compiled):
    """A one-step call keeps its state in buffers of its own (ImuModel._one_step); a chunk
    after steps, and steps after a chunk, must carry the same state, compiled or not, and a
    reset on a one-step call must restart the differences there."""
    import navsense.kernels as kernels

    if compiled:
        pytest.importorskip("numba")
    truth = circle_truth(400)
    reset = truth.reset.copy()
    reset[[5, 6, 150, 260]] = True  # on one-step calls (two in a row) and inside a chunk
    truth = TruthStates(
        0, truth.p_m, truth.q_xyzw, truth.v_mps, truth.w_radps, truth.c_m + 0.1, reset
    )
    cfg = _cfg(hz=100.0, position=(0.95, -0.45, 0.7), mount="base_footprint")
    whole = ImuModel(cfg, POLARIS).process(truth)
    monkeypatch.setattr(kernels, "_on", compiled)
    imu = ImuModel(cfg, POLARIS)
    cuts = [0, 1, 2, 3, 4, 5, 6, 7, 8, 100, 101, 102, 103, 200, 201, 300, 399, 400]
    parts = [imu.process(truth.slice(a, b)) for a, b in zip(cuts[:-1], cuts[1:])]
    monkeypatch.setattr(kernels, "_on", False)
    for key, value in whole.items():
        got = np.concatenate([p[key] for p in parts])
        assert got.tobytes() == value.tobytes(), key
    steps = np.rint(whole["sample_time_s"] * 120).astype(int)
    assert 5 not in steps and 6 not in steps and 7 not in steps and 8 in steps


def test_rows_have_the_specified_decimals():
    model = ImuModel(_cfg(), POLARIS)
    rows = layout_rows(model, model.process(stationary_truth(5)))
    for r in rows:
        assert list(r) == ["specific_force_flu_mps2", "angular_velocity_flu_radps"]
        assert all(round(x, 6) == x for x in r["specific_force_flu_mps2"])
        assert all(round(x, 8) == x for x in r["angular_velocity_flu_radps"])
