"""The ACRES IMU: specific force and angular rate with a constant bias and white noise.

Specification, section "IMU" (FAcresSensorRecorder::PhysicsSample)::

    v_i,k  = v_k + w_k x (p_k + R_k r_i - p_c,k)                 IMU-point velocity
    a_k    = (v_i,k - v_i,k-1) / dt                               dt = one physics step
    f^b_k  = R_k^T (a_k - g),   g = (0, 0, -9.80665) m/s^2
    w^b_k  = R_k^T w_k
    f_out  = 1/2 (f^b_k + f^b_k-1) + b_a + sigma_a g_a
    w_out  = 1/2 (w^b_k + w^b_k-1) + b_g + sigma_g g_g
    b_a    = sigma_ba g,  b_g = sigma_bg g                        drawn once, at the start

where r_i is imu.position_flu_m (converted from mount_frame, DESIGN.md ruling "Mounts"), p_c the
centre of mass, sigma_a = accel_std_mps2, sigma_g = gyro_std_radps, sigma_ba = accel_bias_mps2,
sigma_bg = gyro_bias_radps.

With ``imu.earth`` "wgs84" (navsense extension, issue 19; navsense.geo.earth) the Earth turns
under the grid: at each physics step, with the IMU point p_i,k = p_k + R_k r_i, its WGS84
latitude and height and the grid convergence there (first-order models of the site origin)::

    f^b_k = R_k^T (a_k + F_k),   w^b_k = R_k^T (w_k + W_k)
    F = A^T ((2 Omega_ie + omega_eg) x v^n + (0, 0, g(phi, h))),   W = A^T (Omega_ie + omega_eg)

(F replaces -g = (0, 0, 9.80665): Coriolis, transport rate and WGS84 normal gravity; W the
Earth rate and the transport rate; v^n = A v_i,k; :meth:`navsense.geo.earth.SiteEarth.terms`).

Random values (specification "Seeds and Determinism"): stream Pcg32(seed + 1009, 2); 6 Gaussians
for the biases at the start (accelerometer x, y, z, then gyroscope x, y, z), then 6 per sample
(g_a then g_g). With noise off every sigma is zero but the same values are drawn.

Sample times: the IMU's Due (imu.hz, first due at the first physics step: t = 0 in the
specification, navsense.clock) is evaluated at every physics step; a due step writes a row once two finite differences exist since the start or the last reset (the first
row is at the third physics step); a due step without them writes nothing and draws nothing.
A reset at step k restarts the differences: steps k and k + 1 write no row.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from navsense.clock import Due
from navsense.config.typed.imu import ImuConfig
from navsense.constants import GRAVITY_MPS2
from navsense.geo.earth import SiteEarth, site_earth
from navsense.kernels import kernel
from navsense.rng import Pcg32
from navsense.rotation import cross, quat_to_matrix, rotate, rotate_inverse
from navsense.sensors.vibration import ImuVibration
from navsense.truth.states import TruthStates
from navsense.vehicles import VehicleProfile, lever_arm_from_chassis

__all__ = [
    "ImuModel",
    "ImuKinematics",
    "imu_point_kinematics",
    "IMU_SEED_OFFSET",
    "IMU_SEQUENCE",
]

IMU_SEED_OFFSET = 1009  # specification, "Seeds and Determinism": RngImu seed + 1009
IMU_SEQUENCE = 2  # specification, "Seeds and Determinism": RngImu sequence 2


class ImuModel:
    """The ACRES IMU over consecutive truth chunks (batch = chunks = steps)."""

    name = "imu"

    def __init__(self, config: ImuConfig, vehicle: VehicleProfile, georef=None) -> None:
        self.config = c = config
        self.lever_arm_m = lever_arm_from_chassis(c.position_flu_m, c.mount_frame, vehicle)
        self._earth = site_earth(c.earth, georef)
        self._rng = Pcg32(c.seed + IMU_SEED_OFFSET, IMU_SEQUENCE)
        g = self._rng.gaussians(6)  # "Start draws them one time"
        sigma_ba = c.accel_bias_mps2 if c.noise else 0.0
        sigma_bg = c.gyro_bias_radps if c.noise else 0.0
        self.accel_bias_mps2 = sigma_ba * g[:3]
        self.gyro_bias_radps = sigma_bg * g[3:]
        # b_a and b_g, sigma_a and sigma_g as rows 0 (accelerometer) and 1 (gyro) of f^b, w^b
        self._bias = np.stack([self.accel_bias_mps2, self.gyro_bias_radps])
        self._sigma = np.array([[c.accel_std_mps2], [c.gyro_std_radps]]) * (1.0 if c.noise else 0.0)
        self._due = Due(c.hz, start_s=None)
        self._vibration = ImuVibration(c.vibration, c.seed)
        # state carried between chunks: the previous step's IMU-point velocity and body values
        self._age = -1  # physics steps since the start or the last reset (-1: no step yet)
        self._prev_vi = np.zeros(3)
        self._prev_fw = np.zeros((2, 3))  # f^b, w^b
        self._step_rate: float | None = None  # the physics rate of the one-step buffers

    def process(self, truth: TruthStates) -> dict:
        """The IMU rows sampled in this chunk of physics steps."""
        n = truth.p_m.shape[0]
        if n == 1 and self._earth is None:
            return self._one_step(truth)
        if n == 0:
            return _empty_block()
        kin = imu_point_kinematics(
            truth,
            self.lever_arm_m,
            self._age,
            self._prev_vi,
            self._prev_fw[0],
            self._prev_fw[1],
            self._earth,
        )
        t = truth.t_s
        if self._vibration.active:  # imu.vibration (navsense.sensors.vibration)
            self._vibration.add(truth, kin.fw)
        due = self._due.sample_indices(t)
        if due.size == 1 and len(truth) == 1:  # one step that samples: its age alone
            rows = due if kin.age[0] >= 2 else due[:0]
        else:
            rows = due[kin.age[due] >= 2]
        m = rows.size
        g = self._rng.gaussians(6 * m).reshape(m, 2, 3)  # g_a then g_g
        # f_out, w_out = 1/2 (x_k + x_k-1) + b + sigma g for x = f^b, w^b (one array, two rows)
        out = np.empty((m, 2, 3))
        _imu_outputs(kin.fw[rows], kin.fw_prev[rows], self._bias, self._sigma, g, out)
        self._age = min(int(kin.age[-1]), 2)
        self._prev_vi = kin.v_i[-1]
        self._prev_fw = kin.fw[-1]
        self._step_rate = None  # the one-step buffers no longer hold the last step
        return {
            "sample_time_s": t[rows],
            "specific_force_flu_mps2": out[:, 0],
            "angular_velocity_flu_radps": out[:, 1],
        }

    def _one_step(self, truth: TruthStates) -> dict:
        """One physics step (a streaming call), without imu.earth: :meth:`process`'s
        operations on the same values, in buffers kept from step to step (the previous step's
        IMU-point velocity and (f^b, w^b) in row 0, this step's in row 1, :func:`_imu_rows`
        shifting them), with Python scalars for the time, the age and the sampling."""
        rate = truth.rate_hz
        if self._step_rate != rate:  # the first step, after a chunk, or a new physics rate
            self._step_rate = rate
            self._step_arm = np.append(self.lever_arm_m, 1.0 / rate)
            self._step_r = np.empty((1, 3, 3))
            self._step_v = np.empty((2, 3))
            self._step_fw = np.empty((2, 2, 3))
            self._step_v[1] = self._prev_vi
            self._step_fw[1] = self._prev_fw
            self._step_fw_now, self._step_fw_prev = self._step_fw[1:], self._step_fw[:1]
        fw = self._step_fw
        _imu_rows(
            truth.q_xyzw,
            truth.p_m,
            truth.v_mps,
            truth.w_radps,
            truth.c_m,
            self._step_arm,
            self._step_r,
            self._step_v,
            fw,
            _SHIFT,
        )
        t = truth.step0 / rate  # TruthStates.t_s of one step
        if self._vibration.active:  # imu.vibration (navsense.sensors.vibration)
            self._vibration.add(truth, self._step_fw_now)
        # steps since the start or the last reset (imu_point_kinematics)
        age = 0 if truth.reset[0] else self._age + 1
        self._age = min(age, 2)
        self._prev_vi = self._step_v[1]
        self._prev_fw = fw[1]
        if not self._due(t) or age < 2:  # Due.sample_indices of one step
            return _empty_block()
        g = self._rng.gaussians(6).reshape(1, 2, 3)  # g_a then g_g
        out = np.empty((1, 2, 3))
        _imu_outputs(self._step_fw_now, self._step_fw_prev, self._bias, self._sigma, g, out)
        return {
            "sample_time_s": np.array([t]),
            "specific_force_flu_mps2": out[:, 0],
            "angular_velocity_flu_radps": out[:, 1],
        }

    def output_info(self) -> dict:
        """For the layout (navsense.output.layouts.imu): no delta keys."""
        return {"delta_outputs": False}

    def episode_info(self) -> dict:
        """``imu_bias_flu`` for episode.json: the constant biases in FLU axes."""
        return {
            "imu_bias_flu": {
                "accel_mps2": self.accel_bias_mps2.tolist(),
                "gyro_radps": self.gyro_bias_radps.tolist(),
            }
        }


class ImuKinematics(NamedTuple):
    """Truth kinematics of the IMU point at the physics steps of one chunk (n steps)."""

    r: np.ndarray  # body FLU -> world rotation matrices, (n, 3, 3)
    v_i: np.ndarray  # IMU-point velocity, world axes, m/s, (n, 3)
    fw: (
        np.ndarray
    )  # f^b (from the finite difference ending at the step) and w^b, body FLU, (n, 2, 3)
    fw_prev: np.ndarray  # fw of the step before (carried over the chunk boundary), (n, 2, 3)
    age: np.ndarray  # physics steps since the start or the last reset, int64 (n,)
    earth: np.ndarray | None = None  # the Earth's terms F, W in grid axes (n, 2, 3), or None

    @property
    def f_b(self) -> np.ndarray:
        """Specific force f^b, body FLU, (n, 3)."""
        return self.fw[:, 0]

    @property
    def w_b(self) -> np.ndarray:
        """Angular rate w^b, body FLU, (n, 3)."""
        return self.fw[:, 1]

    @property
    def f_b_prev(self) -> np.ndarray:
        return self.fw_prev[:, 0]

    @property
    def w_b_prev(self) -> np.ndarray:
        return self.fw_prev[:, 1]


_GRAVITY = np.array([0.0, 0.0, -GRAVITY_MPS2])  # IMU section: g = (0, 0, -9.80665) m/s^2


_SHIFT = np.ones(1)  # _imu_rows: shift the last row to row 0 first (one step a call)
_NO_SHIFT = np.zeros(1)  # _imu_rows: row 0 is given


@kernel(2, 2, 2, 2, 2, 1, 3, 2, 3, 1)
def _imu_rows(q, p, v, w, c, arm_dt, r, v_all, fw_all, shift):
    """The truth terms of n steps without imu.earth (module docstring), fused: q (n, 4),
    p, v, w, c (n, 3) the truth rows, arm_dt = (r_i, dt) the lever arm and one physics step ->
    r (n, 3, 3) = R_k, v_all[1:] (n, 3) = v_i,k and fw_all[1:] (n, 2, 3) = (f^b_k, w^b_k);
    v_all[0] and fw_all[0] hold the step before the chunk (shift[0] = 1: copied from row n
    first, the rows of the call before). The operations of navsense.rotation's quat_to_matrix,
    rotate, cross and rotate_inverse, written out in their order (no call between kernels):
    R, p_i = p + R r_i, v_i = v + w x (p_i - p_c), a = (v_i,k - v_i,k-1) / dt,
    f^b = R^T (a - g), w^b = R^T w."""
    n = q.shape[0]
    if shift[0] != 0.0:
        v_all[0] = v_all[n]
        fw_all[0] = fw_all[n]
    x, y, z, s = q[:, 0], q[:, 1], q[:, 2], q[:, 3]
    xx, yy, zz = x * x, y * y, z * z
    xy, xz, yz = x * y, x * z, y * z
    sx, sy, sz = s * x, s * y, s * z
    r[:, 0, 0] = 1.0 - 2.0 * (yy + zz)
    r[:, 0, 1] = 2.0 * (xy - sz)
    r[:, 0, 2] = 2.0 * (xz + sy)
    r[:, 1, 0] = 2.0 * (xy + sz)
    r[:, 1, 1] = 1.0 - 2.0 * (xx + zz)
    r[:, 1, 2] = 2.0 * (yz - sx)
    r[:, 2, 0] = 2.0 * (xz - sy)
    r[:, 2, 1] = 2.0 * (yz + sx)
    r[:, 2, 2] = 1.0 - 2.0 * (xx + yy)
    l0, l1, l2, dt = arm_dt[0], arm_dt[1], arm_dt[2], arm_dt[3]
    # p_i - p_c, p_i = p + R r_i
    a0 = p[:, 0] + (r[:, 0, 0] * l0 + r[:, 0, 1] * l1 + r[:, 0, 2] * l2) - c[:, 0]
    a1 = p[:, 1] + (r[:, 1, 0] * l0 + r[:, 1, 1] * l1 + r[:, 1, 2] * l2) - c[:, 1]
    a2 = p[:, 2] + (r[:, 2, 0] * l0 + r[:, 2, 1] * l1 + r[:, 2, 2] * l2) - c[:, 2]
    w0, w1, w2 = w[:, 0], w[:, 1], w[:, 2]
    v_all[1:, 0] = v[:, 0] + (w1 * a2 - w2 * a1)
    v_all[1:, 1] = v[:, 1] + (w2 * a0 - w0 * a2)
    v_all[1:, 2] = v[:, 2] + (w0 * a1 - w1 * a0)
    b0 = (v_all[1:, 0] - v_all[:-1, 0]) / dt - _GRAVITY[0]
    b1 = (v_all[1:, 1] - v_all[:-1, 1]) / dt - _GRAVITY[1]
    b2 = (v_all[1:, 2] - v_all[:-1, 2]) / dt - _GRAVITY[2]
    for i in range(3):
        fw_all[1:, 0, i] = r[:, 0, i] * b0 + r[:, 1, i] * b1 + r[:, 2, i] * b2
        fw_all[1:, 1, i] = r[:, 0, i] * w0 + r[:, 1, i] * w1 + r[:, 2, i] * w2


@kernel(3, 3, 2, 2, 3, 3)
def _imu_outputs(fw, fw_prev, bias, sigma, g, out):
    """The rows' outputs: fw, fw_prev (m, 2, 3) the steps' (f^b, w^b) and the step before's,
    bias (2, 3) = (b_a, b_g), sigma (2, 1) = (sigma_a, sigma_g), g (m, 2, 3) = (g_a, g_g) ->
    out (m, 2, 3) = 1/2 (x_k + x_k-1) + b + sigma g (module docstring)."""
    out[:] = 0.5 * (fw + fw_prev) + bias + sigma * g


def imu_point_kinematics(
    truth: TruthStates,
    lever_arm_m: np.ndarray,
    age_before: int,
    prev_vi: np.ndarray,
    prev_fb: np.ndarray,
    prev_wb: np.ndarray,
    earth: SiteEarth | None = None,
) -> ImuKinematics:
    """The IMU section's truth terms for one chunk (shared by the ACRES and configurable IMUs).

    ``age_before`` is the age of the last step before the chunk (-1: none); ``prev_*`` that step's
    IMU-point velocity, specific force and rate. A row needs ``age >= 2``. One physics step
    takes this path too: numpy calls are few and on whole (n, 2, 3) blocks. ``earth``: the
    site's Earth (imu.earth "wgs84"; module docstring), None for the specification's.
    """
    n = len(truth)
    dt = 1.0 / truth.rate_hz
    v_all = np.empty((n + 1, 3))
    v_all[0] = prev_vi
    fw_all = np.empty((n + 1, 2, 3))
    fw_all[0, 0] = prev_fb
    fw_all[0, 1] = prev_wb
    terms = None
    if earth is None:  # R, v_i, f^b = R^T (a - g), w^b = R^T w: one kernel
        r = np.empty((n, 3, 3))
        arm_dt = np.append(np.asarray(lever_arm_m, dtype=np.float64), dt)
        q, p, v, w, c = (
            np.ascontiguousarray(a, dtype=np.float64)
            for a in (truth.q_xyzw, truth.p_m, truth.v_mps, truth.w_radps, truth.c_m)
        )
        _imu_rows(q, p, v, w, c, arm_dt, r, v_all, fw_all, _NO_SHIFT)
    else:  # f^b = R^T (a + F), w^b = R^T (w + W)
        r = quat_to_matrix(truth.q_xyzw)
        # IMU section: v_i = v + w x (p + R r_i - p_c), after the previous step's
        p_i = truth.p_m + rotate(r, lever_arm_m)
        arm = p_i - truth.c_m
        np.add(truth.v_mps, cross(truth.w_radps, arm), out=v_all[1:])
        body = np.empty((n, 2, 3))
        terms = earth.terms(p_i, v_all[1:])
        np.add((v_all[1:] - v_all[:-1]) / dt, terms[:, 0], out=body[:, 0])
        np.add(truth.w_radps, terms[:, 1], out=body[:, 1])
        fw_all[1:] = rotate_inverse(r[:, None], body)
    # steps since the start or the last reset: a difference needs age >= 1, a row age >= 2
    age = np.arange(age_before + 1, age_before + 1 + n, dtype=np.int64)
    reset = truth.reset
    if reset[0] if n == 1 else reset.any():  # one step: its flag (no reduction)
        idx = np.arange(n, dtype=np.int64)
        last_reset = np.maximum.accumulate(np.where(truth.reset, idx, -1))
        age = np.where(last_reset >= 0, idx - last_reset, age)
    return ImuKinematics(r, v_all[1:], fw_all[1:], fw_all[:-1], age, terms)


def _empty_block() -> dict:
    return {
        "sample_time_s": np.zeros(0),
        "specific_force_flu_mps2": np.zeros((0, 3)),
        "angular_velocity_flu_radps": np.zeros((0, 3)),
    }
