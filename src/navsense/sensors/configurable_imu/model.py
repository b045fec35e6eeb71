"""``ConfigurableImuModel``: a navsense IMU with every common error term (``imu.model``
"configurable"; notes/configurable-imu.md).

Discretisation of the continuous-time parameters (nominal sample interval dt = 1 / imu.hz; IEEE
Std 952-1997 Annex C and IEEE Std 1293-2018 Annex C for the Allan-variance terms; MATLAB
``imuSensor``/``gyroparams`` documentation for the parameter set)::

    white (angle / velocity random walk) N:   e_w,k = N sqrt(1/dt) z            AVAR = N^2 / T
    bias instability B, correlation tau:      b_k = a b_k-1 + B sqrt(1 - a^2) z,  a = exp(-dt/tau)
                                              stationary sigma B, b_0 = B z (started stationary);
                                              AVAR peaks near T = 1.89 tau at (0.62 B)^2
    rate / acceleration random walk K:        r_k = r_k-1 + K sqrt(dt) z,  r_0 = 0  AVAR = K^2 T / 3
    e = e_w + b + r,  bias = b_const + b_turn_on + c_T (T - T_ref),  s = 1 + 1e-6 (sf + c_sf (T - T_ref))

so that the Allan deviation does not depend on the sample rate. The truth specific force and
angular rate are the ACRES IMU's (:func:`navsense.sensors.imu.imu_point_kinematics`: the average
of the last two physics steps), resolved in the platform frame and misaligned,
x_s = (I + M) [PB] x_FLU; the gyro adds g-sensitivity G * a_true before the errors; then the
error terms of :mod:`navsense.sensors.configurable_imu.error_terms`. Delta-velocity and delta-angle
between consecutive samples as ``BasiliskImu``'s DV and DR.

With ``imu.earth`` "wgs84" (issue 19; navsense.geo.earth) the truth specific force and rate are
the ACRES IMU's with the Earth (navsense.sensors.imu), and the deltas take the Earth's terms F,
W (grid axes) of the sample: dv_b = R_2^T ((v_2 - v_1) + F dt) instead of -g dt, and the delta
angle the grid's turn against inertial space over the interval, exp(-[W dt x])::

    C = [PB] R_2^T exp(-[W dt x]) R_1 [PB]^T     (the specification's C with exp = I)

Random streams: accelerometer ``Pcg32(seed + 7001, 12)``, gyro ``Pcg32(seed + 7001, 13)``; at the
start 6 Gaussians per sensor (turn-on bias x, y, z; initial bias-instability state x, y, z), then 9
per sensor per output epoch (white x, y, z; bias instability x, y, z; random walk x, y, z). With
``noise`` false every error is zero but the same values are drawn.
"""

from __future__ import annotations

import math

import numpy as np

from navsense.clock import Due
from navsense.config.typed.configurable_imu import ConfigurableImuConfig, SensorErrors
from navsense.constants import GRAVITY_MPS2
from navsense.geo.earth import site_earth
from navsense.rng import Pcg32
from navsense.rotation import dcm_to_prv, euler_321_to_dcm, matrix_product, rotate, rotate_inverse
from navsense.sensors.configurable_imu.error_terms import (
    IMU_STREAM_SEED_OFFSET,
    GaussMarkov,
    Quantizer,
    apply_imu_errors,
    round_code,
)
from navsense.sensors.imu import imu_point_kinematics
from navsense.truth.states import TruthStates
from navsense.vehicles import VehicleProfile, lever_arm_from_chassis

__all__ = ["ConfigurableImuModel", "CONFIGURABLE_ACCEL_SEQUENCE", "CONFIGURABLE_GYRO_SEQUENCE"]

CONFIGURABLE_ACCEL_SEQUENCE = 12  # ConfigurableImuModel accelerometer stream
CONFIGURABLE_GYRO_SEQUENCE = 13  # ConfigurableImuModel gyro stream


class _SensorChannel:
    """One triad's error generator: 9 error states (white, bias instability, random walk)."""

    def __init__(
        self, p: SensorErrors, dt: float, rng: Pcg32, noise: bool, delta_t_k: float
    ) -> None:
        self.rng = rng
        start = rng.gaussians(6)  # turn-on bias x, y, z; stationary bias-instability state x, y, z
        on = 1.0 if noise else 0.0
        a = math.exp(-dt / p.bias_instability_tau_s)
        self.gm = GaussMarkov(9)
        self.gm.A = np.diag([0.0] * 3 + [a] * 3 + [1.0] * 3)
        self.gm.P = on * np.diag(
            np.concatenate(
                [
                    p.noise_density * math.sqrt(1.0 / dt),  # white: N sqrt(rate)
                    p.bias_instability * math.sqrt(1.0 - a * a),  # Gauss-Markov, stationary sigma B
                    p.random_walk * math.sqrt(dt),  # random walk: K sqrt(dt)
                ]
            )
        )
        self.gm.bounds = np.concatenate([np.zeros(6), p.random_walk_bound])
        self.gm.reset(
            np.concatenate([np.zeros(3), on * p.bias_instability * start[3:], np.zeros(3)])
        )
        self.bias = on * (p.bias + p.turn_on_bias_sigma * start[:3] + p.temp_bias_per_k * delta_t_k)
        self.scale = 1.0 + on * 1e-6 * (p.scale_factor_ppm + p.temp_scale_ppm_per_k * delta_t_k)
        self.misalign = np.eye(3) + on * p.misalignment_rad
        self.quant = Quantizer()
        if noise:
            self.quant.lsb = np.full(3, p.lsb)
            self.quant.carry = p.carry_error
            self.quant.direction = round_code(p.round_direction)
        self.saturation = p.saturation if (noise and p.saturation > 0.0) else math.inf

    def errors(self, m: int) -> np.ndarray:
        """The error e = white + bias instability + random walk of m epochs, (m, 3)."""
        s = self.gm.propagate(self.rng.gaussians(9 * m).reshape(m, 9))
        return s[:, 0:3] + s[:, 3:6] + s[:, 6:9]


class ConfigurableImuModel:
    """The configurable IMU over consecutive truth chunks (batch = chunks = steps).

    Samples at imu.hz (Due, first due at t = 0) where the ACRES IMU does (two finite
    differences since the start or the last reset). The first such sample after the start or a
    truth reset writes no row and draws nothing: it is the reference of the delta-angle and
    delta-velocity of the next one (Basilisk's zero first call; a zero row would read as a real
    measurement). Outputs, platform axes (FLU when platform_ypr_deg is zero), sensor axes after
    misalignment: specific_force_flu_mps2, angular_velocity_flu_radps, delta_velocity_flu_mps,
    delta_angle_flu_rad. The error states keep running over a truth reset (the sensor does not
    restart when the vehicle is teleported).
    """

    name = "imu"

    def __init__(self, config: ConfigurableImuConfig, vehicle: VehicleProfile, georef=None) -> None:
        self.config = c = config
        self.lever_arm_m = lever_arm_from_chassis(c.position_flu_m, c.mount_frame, vehicle)
        self._earth = site_earth(c.earth, georef)
        dt = 1.0 / c.hz
        dtemp = c.temperature_c - c.reference_temperature_c
        seed = c.seed + IMU_STREAM_SEED_OFFSET
        self._accel = _SensorChannel(
            c.accel, dt, Pcg32(seed, CONFIGURABLE_ACCEL_SEQUENCE), c.noise, dtemp
        )
        self._gyro = _SensorChannel(
            c.gyro, dt, Pcg32(seed, CONFIGURABLE_GYRO_SEQUENCE), c.noise, dtemp
        )
        self._g_sens = c.gyro.g_sensitivity if c.noise else np.zeros(3)
        yaw, pitch, roll = (math.radians(x) for x in c.platform_ypr_deg)
        self.dcm_pb = euler_321_to_dcm(yaw, pitch, roll)
        self._due = Due(c.hz, start_s=None)
        self._age = -1
        self._prev_vi = np.zeros(3)
        self._prev_fb = np.zeros(3)
        self._prev_wb = np.zeros(3)
        self._have_ref = False  # a previous sample to difference against
        self._ref_r = np.eye(3)  # its body -> world matrix, IMU-point velocity, time
        self._ref_vi = np.zeros(3)
        self._ref_t = 0.0

    def process(self, truth: TruthStates) -> dict:
        n = len(truth)
        if n == 0:
            return _empty_block()
        kin = imu_point_kinematics(
            truth,
            self.lever_arm_m,
            self._age,
            self._prev_vi,
            self._prev_fb,
            self._prev_wb,
            self._earth,
        )
        due = self._due.sample_indices(truth.t_s)
        rows = due[kin.age[due] >= 2]
        idx = np.arange(n, dtype=np.int64)
        last_reset = np.maximum.accumulate(np.where(truth.reset, idx, -1))
        t = truth.t_s
        prev = np.concatenate([[-1], rows[:-1]])
        valid = np.where(
            prev >= 0, last_reset[rows] < prev, self._have_ref & (last_reset[rows] == -1)
        )
        out_rows, ref_rows = rows[valid], prev[valid]
        # the references: the carried sample for ref -1, else the chunk's sample
        ref_r = np.where((ref_rows < 0)[:, None, None], self._ref_r, kin.r[np.maximum(ref_rows, 0)])
        ref_vi = np.where((ref_rows < 0)[:, None], self._ref_vi, kin.v_i[np.maximum(ref_rows, 0)])
        ref_t = np.where(ref_rows < 0, self._ref_t, t[np.maximum(ref_rows, 0)])
        block = self._measure(kin, out_rows, ref_r, ref_vi, ref_t, t)
        # carry the state
        if rows.size:
            last = rows[-1]
            self._have_ref = bool(last_reset[-1] < last)
            self._ref_r, self._ref_vi, self._ref_t = (
                kin.r[last].copy(),
                kin.v_i[last].copy(),
                float(t[last]),
            )
        elif last_reset[-1] >= 0:
            self._have_ref = False
        self._age = int(min(kin.age[-1], 2))
        self._prev_vi = kin.v_i[-1].copy()
        self._prev_fb = kin.f_b[-1].copy()
        self._prev_wb = kin.w_b[-1].copy()
        return block

    def _measure(self, kin, rows, ref_r, ref_vi, ref_t, t) -> dict:
        m = rows.size
        s = np.broadcast_to(matrix_product(self._gyro.misalign, self.dcm_pb), (m, 3, 3))
        sa = np.broadcast_to(matrix_product(self._accel.misalign, self.dcm_pb), (m, 3, 3))
        dt = t[rows] - ref_t
        r = kin.r[rows]
        f_b = 0.5 * (kin.f_b[rows] + kin.f_b_prev[rows])  # IMU section: the ACRES average
        w_b = 0.5 * (kin.w_b[rows] + kin.w_b_prev[rows])
        pb = np.broadcast_to(self.dcm_pb, (m, 3, 3))
        if kin.earth is None:
            gravity = np.array([0.0, 0.0, -GRAVITY_MPS2])
            # specification's delta-v: change of the IMU point's velocity minus gravity's,
            # current axes
            dv_b = rotate_inverse(r, (kin.v_i[rows] - ref_vi) - gravity * dt[:, None])
            # delta angle: PRV of [PB][BN]_2 ([PB][BN]_1)^T = [PB] R_2^T R_1 [PB]^T
            c = matrix_product(
                matrix_product(pb, matrix_product(r.swapaxes(-1, -2), ref_r)), pb.swapaxes(-1, -2)
            )
        else:  # the Earth's F and W of the sample (module docstring)
            f_earth, w_earth = kin.earth[rows, 0], kin.earth[rows, 1]
            dv_b = rotate_inverse(r, (kin.v_i[rows] - ref_vi) + f_earth * dt[:, None])
            turn = _exp_minus_skew(w_earth * dt[:, None])
            c = matrix_product(
                matrix_product(pb, matrix_product(r.swapaxes(-1, -2), matrix_product(turn, ref_r))),
                pb.swapaxes(-1, -2),
            )
        dr_p = dcm_to_prv(c)
        true = {
            "accel": rotate(sa, f_b),
            "dv": rotate(sa, dv_b),
            "rate": rotate(s, w_b),
            "dr": rotate(self._gyro.misalign[None], dr_p) if m else np.zeros((0, 3)),
        }
        true["rate"] = true["rate"] + self._g_sens * true["accel"]  # gyro g-sensitivity
        true["dr"] = true["dr"] + self._g_sens * true["dv"]
        e_a = self._accel.errors(m)
        e_g = self._gyro.errors(m)
        out = apply_imu_errors(
            true,
            dt,
            e_g,
            e_a,
            self._gyro.bias,
            self._accel.bias,
            self._gyro.scale,
            self._accel.scale,
            self._gyro.quant,
            self._accel.quant,
            self._gyro.saturation,
            self._accel.saturation,
        )
        return {
            "sample_time_s": t[rows],
            "specific_force_flu_mps2": out["accel"],
            "angular_velocity_flu_radps": out["rate"],
            "delta_velocity_flu_mps": out["dv"],
            "delta_angle_flu_rad": out["dr"],
        }

    def output_info(self) -> dict:
        """For the layout (navsense.output.layouts.imu): the delta keys too."""
        return {"delta_outputs": True}

    def episode_info(self) -> dict:
        """``imu_bias_flu`` (constant + turn-on + temperature bias) and the model and preset."""
        return {
            "imu_bias_flu": {
                "accel_mps2": self._accel.bias.tolist(),
                "gyro_radps": self._gyro.bias.tolist(),
            },
            "imu_model": "configurable",
            "imu_preset": self.config.preset,
        }


def _exp_minus_skew(theta: np.ndarray) -> np.ndarray:
    """exp(-[theta x]) of rotation vectors theta (m, 3), (m, 3, 3), to second order (the Earth's
    turn over one sample, |theta| < 1e-5 rad: the third-order term is below 1e-16)."""
    x, y, z = theta[:, 0], theta[:, 1], theta[:, 2]
    k = np.zeros((theta.shape[0], 3, 3))
    k[:, 0, 1], k[:, 0, 2], k[:, 1, 2] = -z, y, -x
    k[:, 1, 0], k[:, 2, 0], k[:, 2, 1] = z, -y, x
    return np.eye(3) - k + 0.5 * matrix_product(k, k)


def _empty_block() -> dict:
    return {
        "sample_time_s": np.zeros(0),
        "specific_force_flu_mps2": np.zeros((0, 3)),
        "angular_velocity_flu_radps": np.zeros((0, 3)),
        "delta_velocity_flu_mps": np.zeros((0, 3)),
        "delta_angle_flu_rad": np.zeros((0, 3)),
    }
