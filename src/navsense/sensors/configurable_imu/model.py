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

Options of the physics clock (issue 30 item 1), both off by default (the specification's
outputs, bit for bit):

- ``imu.configurable.bandwidth_hz`` B > 0: the sensor's digital low-pass, as a MEMS IMU's
  (e.g. BMI088, ADIS16465: a configurable filter before the output data rate), run at the
  physics rate on the signal above, x_k = 1/2 (x^b_k + x^b_k-1), before it is sampled: a
  2nd-order Butterworth filter of -3 dB frequency B (the bilinear transform with the frequency
  prewarped, scipy.signal.butter), started settled on the first value after the start or a
  reset (a sensor powered before the run); B below half the physics rate.
- ``imu.configurable.deltas`` "integrated": the increments a strapdown IMU outputs, the sums
  over the physics steps j of the interval (t_1, t_2] of its body-axis rate and specific force,
  dtheta = sum w_j h, dv = sum f_j h with h = 1 / physics rate, w_j the trapezoid 1/2 (w^b_j +
  w^b_j-1) and f_j the specific force of the finite difference across step j (or both the
  filtered x_j with a bandwidth), in platform and sensor axes as above. Coning and sculling in
  the truth then appear in the increments (a coning motion's sum of dtheta drifts by
  -Omega (1 - cos beta) per second about the cone's axis, though the attitude returns), where
  "basilisk" gives the attitude change and the velocity change resolved at the second sample.

Random streams: accelerometer ``Pcg32(seed + 7001, 12)``, gyro ``Pcg32(seed + 7001, 13)``; at the
start 6 Gaussians per sensor (turn-on bias x, y, z; initial bias-instability state x, y, z), then 9
per sensor per output epoch (white x, y, z; bias instability x, y, z; random walk x, y, z). With
``noise`` false every error is zero but the same values are drawn.
"""

from __future__ import annotations

import math
from typing import Any

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
from navsense.sensors.vibration import ImuVibration
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
        self._vibration = ImuVibration(c.vibration, c.seed, self.dcm_pb)
        self._age = -1
        self._prev_vi = np.zeros(3)
        self._prev_fb = np.zeros(3)
        self._prev_wb = np.zeros(3)
        self._have_ref = False  # a previous sample to difference against
        self._ref_r = np.eye(3)  # its body -> world matrix, IMU-point velocity, time
        self._ref_vi = np.zeros(3)
        self._ref_t = 0.0
        # with a bandwidth: (b, a, the settled state per unit input, the state (2, 2, 3) or None)
        self._lowpass: tuple[Any, Any, Any, Any] | None = None
        self._sums = np.zeros((2, 3))  # dv, dtheta since the last sample ("integrated")

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
        if self._vibration.active:  # imu.vibration (navsense.sensors.vibration)
            self._vibration.add(truth, kin.fw)
        due = self._due.sample_indices(truth.t_s)
        rows = due[kin.age[due] >= 2]
        signal = self._signal(kin, truth.rate_hz)
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
        deltas = self._increments(kin, signal, rows, truth.reset, truth.rate_hz)
        chosen = None if deltas is None else deltas[valid]
        block = self._measure(kin, out_rows, ref_r, ref_vi, ref_t, t, signal, chosen)
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

    def _signal(self, kin, rate_hz: float) -> np.ndarray | None:
        """The filtered signal x_k of every step (n, 2, 3) with a bandwidth, else None (module
        docstring); steps before the second difference after a start or reset pass unfiltered
        and the filter settles again on the first step after them."""
        if not self.config.bandwidth_hz:
            return None
        from scipy.signal import butter, lfilter, lfilter_zi

        if self._lowpass is None:
            b, a = butter(2, self.config.bandwidth_hz, fs=rate_hz)
            self._lowpass = (b, a, lfilter_zi(b, a), None)
        b, a, zi, state = self._lowpass
        x = 0.5 * (kin.fw + kin.fw_prev)  # IMU section: the ACRES average
        y = x.copy()
        valid = kin.age >= 2
        n = valid.size
        edges = np.flatnonzero(np.diff(valid.astype(np.int8))) + 1
        for lo, hi in zip(np.concatenate([[0], edges]), np.concatenate([edges, [n]])):
            if not valid[lo]:
                state = None
                continue
            if state is None:  # settled on the first value after a start or reset
                state = zi[:, None, None] * x[lo][None]
            y[lo:hi], state = lfilter(b, a, x[lo:hi], axis=0, zi=state)
        self._lowpass = (b, a, zi, state)
        return y

    def _increments(self, kin, signal, rows, reset, rate_hz: float) -> np.ndarray | None:
        """With ``deltas`` "integrated": dv, dtheta (body axes) summed over the steps since the
        previous sample (module docstring) for each sample ``rows``, (m, 2, 3); the sums restart
        at every sample and reset, and carry over the chunk's end. Else None."""
        if self.config.deltas != "integrated":
            return None
        h = 1.0 / rate_hz
        if signal is None:  # f_j of the difference across step j, w_j the trapezoid
            x = np.stack([kin.f_b, 0.5 * (kin.w_b + kin.w_b_prev)], axis=1) * h
        else:
            x = signal * h
        x[kin.age < 1] = 0.0  # no difference before the step after a start or reset
        out = np.empty((rows.size, 2, 3))
        sums = np.zeros((2, 3)) if reset[0] else self._sums
        start = 0
        cuts = np.union1d(rows, np.flatnonzero(reset) - 1)
        for end in cuts[cuts >= 0]:
            # a sequential sum (the same bits however the steps are cut)
            sums = np.add.accumulate(np.concatenate([sums[None], x[start : end + 1]]))[-1]
            k = np.searchsorted(rows, end)
            if k < rows.size and rows[k] == end:
                out[k] = sums
            sums = np.zeros((2, 3))
            start = end + 1
        if start < x.shape[0]:
            sums = np.add.accumulate(np.concatenate([sums[None], x[start:]]))[-1]
        self._sums = sums
        return out

    def _measure(self, kin, rows, ref_r, ref_vi, ref_t, t, signal=None, deltas=None) -> dict:
        m = rows.size
        s = np.broadcast_to(matrix_product(self._gyro.misalign, self.dcm_pb), (m, 3, 3))
        sa = np.broadcast_to(matrix_product(self._accel.misalign, self.dcm_pb), (m, 3, 3))
        dt = t[rows] - ref_t
        r = kin.r[rows]
        if signal is None:
            f_b = 0.5 * (kin.f_b[rows] + kin.f_b_prev[rows])  # IMU section: the ACRES average
            w_b = 0.5 * (kin.w_b[rows] + kin.w_b_prev[rows])
        else:  # the low-pass's output (module docstring)
            f_b, w_b = signal[rows, 0], signal[rows, 1]
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
        if deltas is not None:  # "integrated": the sums of the body-axis values
            true["dv"] = rotate(sa, deltas[:, 0]) if m else np.zeros((0, 3))
            true["dr"] = rotate(s, deltas[:, 1]) if m else np.zeros((0, 3))
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
