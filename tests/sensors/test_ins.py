"""Tests of the INS model (specification "INS and GNSS", section "INS"; CoreSimIns.h).

The expected values are computed here independently of navsense.sensors.ins: rotations with
scipy.spatial.transform.Rotation, the random values with scalar Pcg32 draws and math, the
grid rotation from its definition (a point 10 m grid-north through the chain and UTM).
"""

from __future__ import annotations

import copy
import math

import numpy as np
import orjson
import pytest
from scipy.spatial.transform import Rotation

from navsense.config import load_config
from navsense.config.typed.datum import datum_config
from navsense.constants import GRAVITY_MPS2
from navsense.errors import ConfigError, DatumError, TruthError
from navsense.geo import Georeference, utm
from navsense.ins_stream import Ins
from navsense.output.columns import rows_from_columns
from navsense.output.frames import INS_FIELD_INDEX as F
from navsense.output.frames import INS_FIELDS, InsFrameWriter
from navsense.output.layouts import layout_for
from navsense.output.layouts.ins import InsLayout
from navsense.rng import Pcg32
from navsense.runs.ins_frames import read_ins_frames
from navsense.sensors.ins import InsConfig, InsModel
from navsense.truth import TruthStates
from navsense.vehicles import VEHICLES, lever_arm_from_chassis

mm = 1e-3
um = 1e-6
POLARIS = VEHICLES["polaris"]
G = GRAVITY_MPS2


# --------------------------------------------------------------------------------- fixtures
def ins_model(cfg: dict, vehicle=POLARIS, georef=None, agent: int = 0) -> InsModel:
    """The INS model of an effective configuration, as simulate.build_models builds it."""
    return InsModel(InsConfig.from_validated(cfg), vehicle, georef, agent=agent)


def polaris_cfg(**ins_overrides) -> dict:
    cfg = copy.deepcopy(load_config())
    cfg["ins"].update(ins_overrides)
    return cfg


@pytest.fixture(scope="module")
def georef() -> Georeference:
    datum = load_config()["gnss"]["datum"]
    return Georeference.acre(datum["start_utc"], datum_config(datum))


def moving_truth(n: int = 360, rate_hz: float = 120.0, resets=(200,), offset=(120.0, -40.0, 1.5)):
    """A turning, pitching, accelerating vehicle with pose jumps at the steps in ``resets``."""
    t = np.arange(n) / rate_hz
    yaw = 0.4 * np.sin(0.5 * t) + 0.2 * t
    pitch = 0.05 * np.sin(1.3 * t)
    roll = 0.04 * np.sin(0.9 * t + 0.3)
    q = Rotation.from_euler("ZYX", np.stack([yaw, pitch, roll], axis=1)).as_quat()
    p = np.stack(
        [4.0 * t + 2.0 * np.sin(0.4 * t), t + 3.0 * np.sin(0.2 * t), 0.3 * np.sin(0.7 * t)], axis=1
    ) + np.asarray(offset)
    v = np.stack(
        [
            4.0 + 0.8 * np.cos(0.4 * t) + 0.3 * np.sin(3.0 * t),
            1.0 + 0.6 * np.cos(0.2 * t),
            0.21 * np.cos(0.7 * t),
        ],
        axis=1,
    )
    w = np.stack(
        [0.036 * np.cos(0.9 * t), 0.065 * np.cos(1.3 * t), 0.2 + 0.2 * np.cos(0.5 * t)], axis=1
    )
    reset = np.zeros(n, dtype=bool)
    for k in (k for k in resets if k < n):
        reset[k] = True
        p[k:] += np.array([15.0, -7.0, 0.0])
    c = p + Rotation.from_quat(q).apply([0.3, 0.0, 0.2])
    return TruthStates(
        step0=0, p_m=p, q_xyzw=q, v_mps=v, w_radps=w, c_m=c, reset=reset, rate_hz=rate_hz
    )


def stationary_truth(n: int, rate_hz: float, p=(0.0, 0.0, 0.0)):
    p = np.tile(np.asarray(p, dtype=float), (n, 1))
    q = np.tile([0.0, 0.0, 0.0, 1.0], (n, 1))
    return TruthStates(
        step0=0,
        p_m=p,
        q_xyzw=q,
        v_mps=np.zeros((n, 3)),
        w_radps=np.zeros((n, 3)),
        c_m=p.copy(),
        reset=np.zeros(n, dtype=bool),
        rate_hz=rate_hz,
    )


def frames_of(model: InsModel, block) -> np.ndarray:
    """The block's ins.frames records, as the run writes them (the model's layout)."""
    return layout_for(model).extra(block)


def rows_of(model: InsModel, block) -> list[dict]:
    """The block's ins.jsonl rows without the time keys, as the run builds them."""
    return rows_from_columns(layout_for(model).columns(block), len(block["sample_time_s"]))


def run_chunks(model: InsModel, truth: TruthStates, size: int):
    blocks = [model.process(chunk) for chunk in truth.chunks(size)]
    frames = np.concatenate([frames_of(model, b) for b in blocks])
    rows = [r for b in blocks for r in rows_of(model, b)]
    return frames, rows, blocks


def expected_truth(truth: TruthStates, cfg: dict, due_hz: float):
    """Epoch indices, INS point p_n, its velocity v_n and R, independently of the model."""
    period = 1.0 / due_hz
    idx, t_due = [], 0.0
    for i, t in enumerate(truth.t_s):  # spec "Frames and Sample Times": t + 1e-8 >= t_due
        if t + 1e-8 >= t_due:
            idx.append(i)
            t_due += period
    idx = np.array(idx)
    rot = Rotation.from_quat(truth.q_xyzw[idx])
    r_n = lever_arm_from_chassis(cfg["ins"]["position_flu_m"], cfg["mount_frame"], POLARIS)
    p_n = truth.p_m[idx] + rot.apply(r_n)
    v_n = truth.v_mps[idx] + np.cross(truth.w_radps[idx], p_n - truth.c_m[idx])
    return idx, rot, p_n, v_n


def quat_close(a, b, tol):
    """Equal rotations: |a - b| or |a + b| below tol (q and -q are one rotation)."""
    a, b = np.asarray(a), np.asarray(b)
    d = np.minimum(np.abs(a - b).max(axis=-1), np.abs(a + b).max(axis=-1))
    return np.all(d < tol), d.max()


# ------------------------------------------------------------------------------ configuration
def test_config_from_effective_dict_and_code_defaults():
    c = InsConfig.from_validated(load_config())
    assert (c.hz, c.velocity_white_mps, c.frame, c.utm_zone, c.seed) == (
        100.0,
        0.02,
        "nad83",
        16,
        42,
    )
    assert c.mount_frame == "base_footprint" and c.enabled and c.noise
    # FInsConfig defaults, the "Code" column: the Maxxum has no INS overlay
    code = InsConfig.from_validated(load_config(vehicle="maxxum"))
    assert (code.enabled, code.velocity_white_mps, code.position_tau_s) == (False, 0.01, 30.0)


@pytest.mark.parametrize(
    "key, value",
    [
        ("hz", 0),
        ("hz", 2001),
        ("frame", "utm"),
        ("utm_zone", 61),
        ("position_sigma_m", -1.0),
        ("position_tau_s", 0.0),
    ],
)
def test_config_rejects_out_of_range(key, value):
    with pytest.raises(ConfigError, match=f"ins.{key} = "):
        load_config(overrides={f"ins.{key}": value})


def test_config_missing_key_names_it(georef):
    cfg = load_config()
    del cfg["ins"]["hz"]
    with pytest.raises(ConfigError, match="ins.hz is missing"):
        Ins(cfg, georef)


# --------------------------------------------------------------------------- noise off: chain
@pytest.mark.parametrize(
    "frame, keys",
    [
        (
            "nad83",
            ("nad83_2011_lat_deg", "nad83_2011_lon_deg", "nad83_2011_height_m", "nad83_2011"),
        ),
        ("wgs84_g2139", ("wgs84_lat_deg", "wgs84_lon_deg", "wgs84_height_m", "wgs84_g2139")),
    ],
)
def test_noise_off_outputs_are_truth_through_the_chain(georef, frame, keys):
    cfg = polaris_cfg(frame=frame)
    cfg["noise"] = False
    truth = moving_truth()
    model = ins_model(cfg, POLARIS, georef)
    block = model.process(truth)
    fr = frames_of(model, block)
    idx, rot, p_n, v_n = expected_truth(truth, cfg, 100.0)
    t = truth.t_s[idx]
    np.testing.assert_array_equal(block["sample_time_s"], t)
    assert fr.shape == (len(idx), 40)
    r = rot.as_matrix()

    # position (ENU, m), attitude, velocity (m/s), rates (rad/s): 1e-9 in their units
    np.testing.assert_allclose(
        fr[:, [F["InsEnuX"], F["InsEnuY"], F["InsEnuZ"]]], p_n, rtol=0, atol=1e-9
    )
    ok, worst = quat_close(fr[:, F["InsEnuQx"] : F["InsEnuQw"] + 1], truth.q_xyzw[idx], 1e-9)
    assert ok, worst
    np.testing.assert_allclose(
        fr[:, F["InsVelX"] : F["InsVelZ"] + 1], np.einsum("kji,kj->ki", r, v_n), rtol=0, atol=1e-9
    )
    np.testing.assert_allclose(
        fr[:, F["InsGyroX"] : F["InsGyroZ"] + 1],
        np.einsum("kji,kj->ki", r, truth.w_radps[idx]),
        rtol=0,
        atol=1e-9,
    )

    # specific force: finite difference between INS epochs plus gravity, body axes; gravity
    # alone at the first epoch and at the first epoch after the reset (step 200)
    gravity_only = np.zeros(len(idx), dtype=bool)
    gravity_only[0] = True
    after = np.searchsorted(idx, 200)
    gravity_only[after] = True
    acc = np.zeros_like(v_n)
    acc[1:] = (v_n[1:] - v_n[:-1]) / np.diff(t)[:, None]
    acc[gravity_only] = 0.0
    acc[:, 2] += 9.80665
    np.testing.assert_allclose(
        fr[:, F["InsAccelX"] : F["InsAccelZ"] + 1],
        np.einsum("kji,kj->ki", r, acc),
        rtol=0,
        atol=1e-9,
    )
    np.testing.assert_allclose(
        fr[0, F["InsAccelX"] : F["InsAccelZ"] + 1],
        rot[0].inv().apply([0.0, 0.0, 9.80665]),
        rtol=0,
        atol=1e-12,
    )
    np.testing.assert_array_equal(block["gravity_only"], gravity_only)

    # fix (deg, m) through the datum chain to ins.frame; UTM of the same point
    lat_key, lon_key, h_key, datum = keys
    geo = georef.enu_to_geodetic(p_n, t)
    np.testing.assert_allclose(fr[:, F["InsLat"]], geo[lat_key], rtol=0, atol=1e-9)
    np.testing.assert_allclose(fr[:, F["InsLon"]], geo[lon_key], rtol=0, atol=1e-9)
    np.testing.assert_allclose(fr[:, F["InsHeight"]], geo[h_key], rtol=0, atol=1e-9)
    np.testing.assert_allclose(fr[:, F["InsUtmH"]], geo[h_key], rtol=0, atol=1e-9)
    e1, n1, _, _ = utm.forward(geo[lat_key], geo[lon_key], 16)
    np.testing.assert_allclose(fr[:, F["InsUtmE"]], e1, rtol=0, atol=1e-9)
    np.testing.assert_allclose(fr[:, F["InsUtmN"]], n1, rtol=0, atol=1e-9)

    # grid rotation from its definition: point 2 is 10 m grid-north; q_utm = q_z(-alpha) q
    geo2 = georef.enu_to_geodetic(p_n + [0.0, 10.0, 0.0], t)
    e2, n2, _, _ = utm.forward(geo2[lat_key], geo2[lon_key], 16)
    alpha = np.arctan2(e2 - e1, n2 - n1)
    np.testing.assert_allclose(fr[:, F["InsGridRotationDeg"]], np.degrees(alpha), rtol=0, atol=1e-9)
    q_utm = (Rotation.from_rotvec(np.outer(-alpha, [0.0, 0.0, 1.0])) * rot).as_quat()
    ok, worst = quat_close(fr[:, F["InsUtmQx"] : F["InsUtmQw"] + 1], q_utm, 1e-9)
    assert ok, worst

    # truth fields: same point and attitude (noise off), |v_n|; constant fields
    np.testing.assert_array_equal(fr[:, F["InsTruthX"]], fr[:, F["InsUtmE"]])
    np.testing.assert_array_equal(fr[:, F["InsTruthY"]], fr[:, F["InsUtmN"]])
    np.testing.assert_array_equal(fr[:, F["InsTruthZ"]], fr[:, F["InsUtmH"]])
    ok, worst = quat_close(fr[:, F["InsTruthQx"] : F["InsTruthQw"] + 1], q_utm, 1e-9)
    assert ok, worst
    np.testing.assert_allclose(
        fr[:, F["InsTruthSpeed"]], np.linalg.norm(v_n, axis=1), rtol=0, atol=1e-9
    )
    assert np.all(fr[:, F["InsFixStatus"]] == 2) and np.all(fr[:, F["InsUtmZone"]] == 16)
    assert np.all(fr[:, F["InsCovE"] : F["InsCovU"] + 1] == 0.0)  # noise off zeroes every error

    # rows carry the same values at their decimals
    rows = rows_of(model, block)
    assert len(rows) == len(idx)
    row = rows[5]
    assert row["frame"] == "oxts_link" and row["fix"]["datum"] == datum
    assert row["fix"]["status"] == 2 and row["fix"]["service"] == 1
    assert abs(row["fix"]["latitude"] - fr[5, F["InsLat"]]) <= 0.5e-9
    assert abs(row["odom"]["position_m"][1] - fr[5, F["InsUtmN"]]) <= 0.5e-4
    assert row["odom"]["frame_id"] == "utm" and row["odom"]["child_frame_id"] == "base_footprint"
    assert row["odom"]["zone"] == 16
    orjson.dumps(rows)  # JSON-ready


def test_spec_origin_values(georef):
    """At the tile origin: UTM 500 476.935 m, 4 480 099.755 m; alpha 0.0541 deg (spec table)."""
    # the INS point is given in base_footprint: this one is the chassis origin, at the tile origin
    cfg = polaris_cfg(position_flu_m=(-POLARIS.footprint_in_chassis_m).tolist())
    cfg["noise"] = False
    model = ins_model(cfg, POLARIS, georef)
    fr = frames_of(model, model.process(stationary_truth(3, 120.0)))
    assert fr.shape == (2, 40)  # 100 Hz on steps 0, 1, 2 at 120 Hz: steps 0 and 2 sample
    assert abs(fr[0, F["InsUtmE"]] - 500_476.935) < 1 * mm
    assert abs(fr[0, F["InsUtmN"]] - 4_480_099.755) < 1 * mm
    assert round(fr[0, F["InsGridRotationDeg"]], 4) == 0.0541
    assert rows_of(model, model.process(stationary_truth(0, 120.0))) == []


# ------------------------------------------------------------------ noise on: the error model
def test_noise_on_errors_match_an_independent_recomputation(georef):
    """Position, attitude, velocity, force and rate errors from Pcg32(seed + 5045, 6)."""
    cfg = polaris_cfg()
    ins = cfg["ins"]
    truth = moving_truth(n=60)
    model = ins_model(cfg, POLARIS, georef)
    block = model.process(truth)
    idx, rot, p_n, v_n = expected_truth(truth, cfg, ins["hz"])
    t = truth.t_s[idx]
    assert len(idx) == 50

    rng = Pcg32(cfg["seed"] + 5045, 6)  # the game's RngIns: agent 0
    x = [0.0] * 6
    deg = math.pi / 180.0
    for k in range(len(idx)):
        g = [rng.gaussian() for _ in range(18)]  # 18 values an epoch, scalar draws
        if k == 0:
            x = g[0:6]  # stationary start
        else:
            a = math.exp(-(t[k] - t[k - 1]) / ins["position_tau_s"])
            x = [a * x[j] + math.sqrt(1.0 - a * a) * g[j] for j in range(6)]
        np.testing.assert_allclose(block["error_states"][k], x, rtol=0, atol=1e-12)
        err = [
            ins["position_sigma_m"] * x[0] + ins["position_white_m"] * g[6],
            ins["position_sigma_m"] * x[1] + ins["position_white_m"] * g[7],
            ins["position_sigma_m"] * 1.5 * x[2] + ins["position_white_m"] * g[8],
        ]
        np.testing.assert_allclose(block["position_enu_m"][k] - p_n[k], err, rtol=0, atol=1e-12)
        q_ins = (
            Rotation.from_rotvec([0.0, 0.0, ins["heading_sigma_deg"] * deg * x[3]])
            * rot[k]
            * Rotation.from_rotvec([0.0, ins["attitude_sigma_deg"] * deg * x[5], 0.0])
            * Rotation.from_rotvec([ins["attitude_sigma_deg"] * deg * x[4], 0.0, 0.0])
        )
        ok, worst = quat_close(block["orientation_enu_xyzw"][k], q_ins.as_quat(), 1e-12)
        assert ok, worst
        np.testing.assert_allclose(
            block["velocity_flu_mps"][k],
            rot[k].inv().apply(v_n[k]) + ins["velocity_white_mps"] * np.array(g[9:12]),
            rtol=0,
            atol=1e-12,
        )
        acc = [0.0, 0.0, G] if k == 0 else (v_n[k] - v_n[k - 1]) / (t[k] - t[k - 1]) + [0.0, 0.0, G]
        np.testing.assert_allclose(
            block["specific_force_flu_mps2"][k],
            rot[k].inv().apply(acc) + ins["accel_white_mps2"] * np.array(g[12:15]),
            rtol=0,
            atol=1e-12,
        )
        np.testing.assert_allclose(
            block["angular_velocity_flu_radps"][k],
            rot[k].inv().apply(truth.w_radps[idx[k]])
            + ins["gyro_white_radps"] * np.array(g[15:18]),
            rtol=0,
            atol=1e-12,
        )
    s2 = ins["position_sigma_m"] ** 2 + ins["position_white_m"] ** 2
    np.testing.assert_allclose(block["covariance_enu_m2"][0], [s2, s2, 2.25 * s2], rtol=1e-15)


def test_noise_off_draws_the_same_values(georef):
    truth = moving_truth(n=50)
    cfg_off = polaris_cfg()
    cfg_off["noise"] = False
    on = ins_model(polaris_cfg(), POLARIS, georef).process(truth)
    off = ins_model(cfg_off, POLARIS, georef).process(truth)
    np.testing.assert_array_equal(on["error_states"], off["error_states"])


def test_agents_have_their_own_streams(georef):
    truth = moving_truth(n=30)
    cfg = polaris_cfg()
    b0 = ins_model(cfg, POLARIS, georef, agent=0).process(truth)
    b1 = ins_model(cfg, POLARIS, georef, agent=1).process(truth)
    assert not np.any(b0["error_states"] == b1["error_states"])
    # agent 1 draws the stream seed + 5045 + 7919
    g = Pcg32(cfg["seed"] + 5045 + 7919, 6).gaussians(18)
    np.testing.assert_array_equal(b1["error_states"][0], g[:6])
    assert (
        ins_model(cfg, POLARIS, georef, agent=1).episode_info()["ins"]["rng_seed"]
        == 42 + 5045 + 7919
    )


def test_stationary_statistics(georef):
    """Long stationary run: std of the position errors and lag-tau autocorrelation exp(-1).

    tau = 1 s at 10 Hz (phi = exp(-0.1) per epoch), N = 40 000 epochs, no white noise. For an
    AR(1) series the sampling sd of the variance is sigma^2 sqrt(2/N (1 + phi^2)/(1 - phi^2)) and
    of the lag-L autocorrelation sqrt(((1 + phi^2)(1 - phi^2L)/(1 - phi^2) - 2 L phi^2L) / N)
    (Bartlett); the test allows 5 of them.
    """
    sigma, tau, hz, n = 0.01, 1.0, 10.0, 40_000
    cfg = polaris_cfg(hz=hz, position_tau_s=tau, position_white_m=0.0, position_sigma_m=sigma)
    model = ins_model(cfg, POLARIS, georef)
    truth = stationary_truth(n, rate_hz=hz, p=(50.0, 20.0, 0.0))
    block = model.process(truth)
    assert block["sample_time_s"].shape == (n,)
    err = block["position_enu_m"] - block["truth_position_enu_m"]
    phi = math.exp(-1.0 / (hz * tau))
    lag = int(round(hz * tau))
    sd_var = math.sqrt(2.0 / n * (1 + phi**2) / (1 - phi**2))
    p2l = phi ** (2 * lag)
    sd_rho = math.sqrt(((1 + phi**2) * (1 - p2l) / (1 - phi**2) - 2 * lag * p2l) / n)
    # east, north, up position errors (sigma, sigma, 1.5 sigma), then the heading, roll and
    # pitch states (unit variance)
    series = [(err[:, 0], sigma), (err[:, 1], sigma), (err[:, 2], 1.5 * sigma)]
    series += [(block["error_states"][:, j], 1.0) for j in (3, 4, 5)]
    for i, (e, sd) in enumerate(series):
        var = np.mean(e * e)
        assert abs(var / sd**2 - 1.0) < 5 * sd_var, (i, var)
        rho = np.mean(e[lag:] * e[:-lag]) / var
        assert abs(rho - math.exp(-1.0)) < 5 * sd_rho, (i, rho)


# ---------------------------------------------------------------- batch = chunks = steps
def test_batch_chunks_steps_and_stream_are_bit_identical(georef, tmp_path):
    truth = moving_truth(n=300, resets=(37, 38, 200))
    cfg = polaris_cfg()
    ref_frames, ref_rows, _ = run_chunks(ins_model(cfg, POLARIS, georef), truth, len(truth))
    ref_json = b"\n".join(orjson.dumps(r) for r in ref_rows)
    for size in (1, 2, 7, 64):
        frames, rows, _ = run_chunks(ins_model(cfg, POLARIS, georef), truth, size)
        assert frames.tobytes() == ref_frames.tobytes(), size
        assert b"\n".join(orjson.dumps(r) for r in rows) == ref_json, size

    # the streaming API (FInsModel): per step teleported(), due(t), epoch(t, footprint, ...)
    ins = Ins(cfg, georef)
    r_n = lever_arm_from_chassis(cfg["ins"]["position_flu_m"], cfg["mount_frame"], POLARIS)
    from navsense.rotation import quat_to_matrix

    stream = []
    for k in range(len(truth)):
        t = k / truth.rate_hz
        if truth.reset[k]:
            ins.teleported()
        if ins.due(t):
            r = quat_to_matrix(truth.q_xyzw[k])
            footprint = truth.p_m[k] + np.array(
                [r[i, 0] * r_n[0] + r[i, 1] * r_n[1] + r[i, 2] * r_n[2] for i in range(3)]
            )
            stream.append(
                ins.epoch(
                    t, footprint, truth.q_xyzw[k], truth.c_m[k], truth.v_mps[k], truth.w_radps[k]
                )
            )
    stream = np.array(stream)
    assert stream.tobytes() == ref_frames.tobytes()

    # the frames file round-trips
    path = tmp_path / "ins.frames"
    with InsFrameWriter(path) as w:
        w.write(ref_frames)
    back = read_ins_frames(path)
    assert back.tobytes() == ref_frames.tobytes() and len(INS_FIELDS) == back.shape[1] == 40


def test_one_step_blocks_are_the_whole_logs_bit_for_bit(georef):
    """InsModel.process of one physics step (Python floats) = the whole log, every key's bytes,
    resets included (on steps without an epoch, 37 and 259, and on epochs twice in a row)."""
    truth = moving_truth(n=300, resets=(37, 200, 201, 259))
    cfg = polaris_cfg()
    whole = ins_model(cfg, POLARIS, georef).process(truth)
    model = ins_model(cfg, POLARIS, georef)
    blocks = [model.process(truth.slice(k, k + 1)) for k in range(len(truth))]
    assert np.flatnonzero(whole["gravity_only"]).tolist() == [
        0,
        31,
        166,
        167,
        216,
    ]  # steps 0, 38, 200, 201, 260
    for key, value in whole.items():
        steps = np.concatenate([b[key] for b in blocks])
        assert steps.dtype == value.dtype and steps.shape == value.shape, key
        assert steps.tobytes() == value.tobytes(), key


def test_stream_starts_at_first_call_and_teleport(georef):
    cfg = polaris_cfg()
    cfg["noise"] = False
    ins = Ins(InsConfig.from_validated(cfg), georef, agent=3)
    assert ins.agent == 3
    import navsense.sensors.ins

    assert not hasattr(navsense.sensors.ins, "Ins")  # one name: navsense.ins_stream.Ins
    assert ins.due(5.0) and not ins.due(5.0 + 1 / 120) and ins.due(5.0 + 2 / 120)
    q = Rotation.from_euler("Z", 0.7).as_quat()
    f0 = ins.epoch(5.0, [1.0, 2.0, 0.0], q, [1.0, 2.0, 0.5], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0])
    kept = f0.copy()
    f1 = ins.epoch(5.01, [1.01, 2.0, 0.0], q, [1.01, 2.0, 0.5], [2.0, 0.0, 0.0], [0.0, 0.0, 0.0])
    # the stream writes each epoch's inputs into its own buffer: a frame given out stays as it was
    assert np.array_equal(f0, kept) and not np.array_equal(f0, f1)
    gravity = Rotation.from_quat(q).inv().apply([0.0, 0.0, G])
    np.testing.assert_allclose(f0[F["InsAccelX"] : F["InsAccelZ"] + 1], gravity, atol=1e-12)
    np.testing.assert_allclose(
        f1[F["InsAccelX"] : F["InsAccelZ"] + 1],
        Rotation.from_quat(q).inv().apply([100.0, 0.0, G]),
        atol=1e-6,
    )
    ins.teleported()
    f2 = ins.epoch(5.02, [9.0, 2.0, 0.0], q, [9.0, 2.0, 0.5], [5.0, 0.0, 0.0], [0.0, 0.0, 0.0])
    np.testing.assert_allclose(f2[F["InsAccelX"] : F["InsAccelZ"] + 1], gravity, atol=1e-12)
    assert f2.shape == (40,)
    with pytest.raises(TruthError, match="t_s = 5.02 is not after the previous epoch at 5.02 s"):
        ins.epoch(5.02, [9.0, 2.0, 0.0], q, [9.0, 2.0, 0.5], [5.0, 0.0, 0.0], [0.0, 0.0, 0.0])
    with pytest.raises(TruthError, match="expected 4 values"):
        ins.epoch(5.03, [9.0, 2.0, 0.0], q[:3], [9.0, 2.0, 0.5], [5.0, 0.0, 0.0], [0.0, 0.0, 0.0])
    with pytest.raises(DatumError, match="enu"):
        ins.epoch(5.03, [9.0, np.nan, 0.0], q, [9.0, 2.0, 0.5], [5.0, 0.0, 0.0], [0.0, 0.0, 0.0])


def test_stream_takes_any_form_of_its_values_and_names_a_bad_one(georef):
    """Lists, tuples, arrays (n,) and arrays of any shape holding n numbers give the same frame
    (ins_stream reads the usual forms in one conversion, the others as before); a value that
    is not n numbers is refused by name."""
    cfg = InsConfig.from_validated(polaris_cfg())
    q = Rotation.from_euler("Z", 0.7).as_quat()
    p, c, v, w = [1.0, 2.0, 0.0], [1.0, 2.0, 0.5], [1.0, 0.25, 0.0], [0.0, 0.01, -0.0]
    forms = {
        "lists": lambda a: list(a),
        "tuples": lambda a: tuple(a),
        "arrays": lambda a: np.array(a),
        "rows": lambda a: np.array(a).reshape(1, -1),
        "columns": lambda a: np.array(a).reshape(-1, 1),
    }
    frames = []
    for form in forms.values():
        ins = Ins(cfg, georef)
        frames.append([ins.epoch(t, *(form(a) for a in (p, q, c, v, w))) for t in (0.0, 0.01)])
    for name, got in zip(forms, frames):
        assert np.array_equal(np.array(got), np.array(frames[0])), name
    ins = Ins(cfg, georef)
    for bad, message in (
        (
            {1: 0.0, 2: 0.0, 3: 0.0},
            "footprint_enu_m = {1: 0.0, 2: 0.0, 3: 0.0}: expected 3 numbers",
        ),
        ("abc", "footprint_enu_m = 'abc': expected 3 numbers"),
        (np.float64(1.0), r"footprint_enu_m: expected 3 values, got shape \(\)"),
        ([1.0, 2.0, [3.0]], "footprint_enu_m = \\[1.0, 2.0, \\[3.0\\]\\]: expected 3 numbers"),
        ([[1.0, 2.0, 3.0, 4.0]], r"footprint_enu_m: expected 3 values, got shape \(1, 4\)"),
        (
            [10**400, 0.0, 0.0],
            "footprint_enu_m = \\[1000.*: expected 3 numbers",
        ),  # was OverflowError
    ):
        with pytest.raises(TruthError, match=message):
            ins.epoch(0.5, bad, q, c, v, w)


def test_empty_chunk_keeps_shapes(georef):
    model = ins_model(polaris_cfg(), POLARIS, georef)
    assert isinstance(layout_for(model), InsLayout)  # navsense.suite.SENSORS["ins"].layout
    block = model.process(stationary_truth(0, 120.0))
    assert block["position_enu_m"].shape == (0, 3)
    assert frames_of(model, block).shape == (0, 40)
    assert rows_of(model, block) == []


def test_maxxum_ins_reports_base_footprint(georef):
    """FInsConfig's point is in base_footprint even where the other mounts use chassis."""
    cfg = load_config(vehicle="maxxum", overrides={"ins.enabled": True, "noise": False})
    assert cfg["mount_frame"] == "chassis"
    maxxum = VEHICLES["maxxum"]
    model = ins_model(cfg, maxxum, georef)
    block = model.process(stationary_truth(3, 120.0))
    np.testing.assert_allclose(
        block["position_enu_m"][0], maxxum.footprint_in_chassis_m, rtol=0, atol=1e-12
    )
