"""The aided INS's dead reckoning starts from its own attitude error (issue 30 item 3).

At the loss of aiding the tilt and heading errors are those the INS showed, and reported, while
aided (ins.attitude_sigma_deg, ins.heading_sigma_deg), and the position drifts from that tilt
as g phi T^2 / 2 (navsense.sensors.ins_aiding, "The tilt at the loss").

External truths: the attitude error measured from the output quaternion against the truth (scipy's
rotations, not navsense's), the free-inertial closed form g phi T^2 / 2 of a tilt
(Titterton & Weston ch. 12) evaluated here, and the chi-square spread of an RMS of N unit
Gaussians (sd about 1 / sqrt(2 N)).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from conftest import open_sky_circle
from navsense.config import load_config
from navsense.config.typed.datum import datum_config
from navsense.config.typed.gnss import GnssConfig
from navsense.config.typed.ins import InsConfig
from navsense.constants import GRAVITY_MPS2 as G
from navsense.geo import Georeference
from navsense.sensors.gnss.receiver import GnssReceiver
from navsense.sensors.ins import InsModel
from navsense.vehicles import vehicle_profile

POLARIS = vehicle_profile("polaris")
RATE = 120.0
LOSS_S = 6.0  # the signal outage [6, 12] s
T_S = 5.0  # the dead-reckoning epoch looked at, T after the last aided epoch
SEEDS = range(1, 201)
DEG = math.pi / 180.0
NO_DRIFT = {
    f"ins.drift.{k}": 0
    for k in (
        "velocity_sigma_mps",
        "tilt_sigma_deg",
        "accel_bias_ug",
        "gyro_bias_deg_per_h",
        "accel_vrw_mps_per_sqrt_h",
        "gyro_arw_deg_per_sqrt_h",
    )
}


@pytest.fixture(scope="module")
def georef() -> Georeference:
    datum = load_config()["gnss"]["datum"]
    return Georeference.acre(datum["start_utc"], datum_config(datum))


@pytest.fixture(scope="module")
def truth():
    return open_sky_circle(int(RATE * 12))


def _run(seed: int, georef, truth, **overrides) -> dict:
    cfg = load_config(
        vehicle="polaris",
        overrides={
            "seed": seed,
            "ins.aiding": "gnss",
            "ins.hz": 10,
            "gnss.hz": 5,
            "gnss.signal_outages_s": [[LOSS_S, 12.0]],
            **overrides,
        },
    )
    receiver = GnssReceiver(GnssConfig.from_validated(cfg), POLARIS, None, georef)
    ins = InsModel(InsConfig.from_validated(cfg), POLARIS, georef, receiver=receiver)
    return ins.process(truth)


def _epochs(b) -> tuple[int, int]:
    """(the last aided epoch, the epoch T_S after it, dead reckoning)."""
    dr = np.flatnonzero(b["ins_state"] == 6)
    k0 = int(dr[0]) - 1
    assert abs(b["sample_time_s"][k0 + 1] - LOSS_S) < 0.21
    k = int(np.searchsorted(b["sample_time_s"], b["sample_time_s"][k0] + T_S - 1e-9))
    assert b["ins_state"][k] == 6
    return k0, k


def _attitude_error(b, truth, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(roll, pitch, heading) errors (rad) of epoch k from the output quaternion, and the tilt
    about east and north: the rotation q_ins q_true^-1 as a world rotation vector (E, N, U),
    roll and pitch its body x and y components."""
    q_true = Rotation.from_quat(truth.q_xyzw[int(round(b["sample_time_s"][k] * RATE))])
    world = (Rotation.from_quat(b["orientation_enu_xyzw"][k]) * q_true.inv()).as_rotvec()
    body = q_true.inv().apply(world)
    return np.array([body[0], body[1], world[2]]), world[0:2]


@pytest.fixture(scope="module")
def seeds(georef, truth):
    """Per seed: attitude errors at the loss and T_S later over their reported sigmas, and the
    horizontal position drift over T_S over its reported sigma (the default ins.drift)."""
    cfg = load_config()["ins"]
    sigma = np.array(
        [cfg["attitude_sigma_deg"], cfg["attitude_sigma_deg"], cfg["heading_sigma_deg"]]
    )
    at_loss, later, drift = [], [], []
    for seed in SEEDS:
        b = _run(seed, georef, truth)
        k0, k = _epochs(b)
        at_loss.append(_attitude_error(b, truth, k0 + 1)[0] / (sigma * DEG))
        later.append(_attitude_error(b, truth, k)[0] / (sigma * DEG))
        e = b["position_enu_m"] - b["truth_position_enu_m"]
        # the drift and its variance: the dead-reckoning part of the error and covariance
        var = b["covariance_enu_m2"][k, 0:2] - b["covariance_enu_m2"][k0, 0:2]
        drift.append((e[k, 0:2] - e[k0, 0:2]) / np.sqrt(var))
    return np.array(at_loss), np.array(later), np.array(drift)


def _rms(x: np.ndarray) -> np.ndarray:
    return np.sqrt(np.mean(x * x, axis=0))


def test_attitude_error_after_a_loss_is_the_reported_sigma(seeds):
    at_loss, later, _ = seeds
    # 200 seeds: the RMS of unit Gaussians has a sd of 0.05; roll, pitch, heading
    np.testing.assert_allclose(_rms(at_loss), 1.0, atol=0.15)
    # 5 s on the gyro bias (2 deg/h: 0.003 deg) and random walk add little to 0.03 deg
    np.testing.assert_allclose(_rms(later), 1.0, atol=0.15)


def test_position_drift_over_its_reported_sigma_has_rms_one(seeds):
    _, _, drift = seeds
    np.testing.assert_allclose(_rms(drift), 1.0, atol=0.15)  # east, north
    assert np.all(np.abs(np.mean(drift, axis=0)) < 0.25)


@pytest.mark.parametrize("seed", [3, 17])
def test_the_drift_is_the_tilt_at_the_loss(seed, georef, truth):
    """Without the drift model's draws the dead reckoning is the tilt the INS showed at its last
    aided epoch, g phi T^2 / 2: east from the tilt about north, north from minus the tilt about
    east; its variance (g sigma_theta T^2 / 2)^2 is the reported covariance's growth."""
    b = _run(seed, georef, truth, **NO_DRIFT)
    k0, k = _epochs(b)
    _, tilt = _attitude_error(b, truth, k0)
    T = b["sample_time_s"][k] - b["sample_time_s"][k0]
    e = b["position_enu_m"] - b["truth_position_enu_m"]
    # the specification's own position noise (10 mm Gauss-Markov, 3 mm white) stays on top
    spec = _run(seed, georef, truth, **{**NO_DRIFT, "ins.aiding": "none"})
    e_spec = spec["position_enu_m"] - spec["truth_position_enu_m"]
    dr = (e[k] - e_spec[k]) - (e[k0] - e_spec[k0])
    want = G * T * T / 2 * np.array([tilt[1], -tilt[0]])
    assert np.linalg.norm(want) > 0.01  # a tilt of 0.03 deg: centimetres in 5 s
    # first order in the attitude errors (heading x tilt: 1e-3 of the tilt)
    np.testing.assert_allclose(dr[0:2], want, rtol=0, atol=3e-3 * np.abs(want).max())
    assert dr[2] == pytest.approx(0.0, abs=1e-9)
    s_th = load_config()["ins"]["attitude_sigma_deg"] * DEG
    grow = b["covariance_enu_m2"][k] - b["covariance_enu_m2"][k0]
    np.testing.assert_allclose(grow[0:2], (G * s_th * T * T / 2) ** 2, rtol=1e-9)
