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

Random values (specification "Seeds and Determinism"): stream Pcg32(seed + 1009, 2); 6 Gaussians
for the biases at the start (accelerometer x, y, z, then gyroscope x, y, z), then 6 per sample
(g_a then g_g). With noise off every sigma is zero but the same values are drawn.

Sample times: the IMU's Due (imu.hz, first due at t = 0) is evaluated at every physics step; a due
step writes a row once two finite differences exist since the start or the last reset (the first
row is at the third physics step); a due step without them writes nothing and draws nothing.
A reset at step k restarts the differences: steps k and k + 1 write no row.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from navsense.clock import Due
from navsense.constants import GRAVITY_MPS2
from navsense.rng import Pcg32
from navsense.rotation import cross, matrix_floats, quat_to_matrix, rotate, rotate_inverse
from navsense.truth.states import TruthStates
from navsense.vehicles import VehicleProfile, lever_arm_from_chassis

__all__ = [
    "ImuConfig",
    "ImuModel",
    "ImuKinematics",
    "imu_point_kinematics",
    "IMU_SEED_OFFSET",
    "IMU_SEQUENCE",
]

IMU_SEED_OFFSET = 1009  # specification, "Seeds and Determinism": RngImu seed + 1009
IMU_SEQUENCE = 2  # specification, "Seeds and Determinism": RngImu sequence 2


@dataclass(frozen=True)
class ImuConfig:
    """The ``imu`` block of the effective configuration, typed (specification "Parameters", IMU)."""

    enabled: bool
    hz: float
    accel_std_mps2: float
    gyro_std_radps: float
    accel_bias_mps2: float
    gyro_bias_radps: float
    position_flu_m: tuple
    mount_frame: str
    seed: int
    noise: bool

    @classmethod
    def from_config(cls, cfg: dict) -> ImuConfig:
        imu = cfg["imu"]
        return cls(
            enabled=bool(imu["enabled"]),
            hz=float(imu["hz"]),
            accel_std_mps2=float(imu["accel_std_mps2"]),
            gyro_std_radps=float(imu["gyro_std_radps"]),
            accel_bias_mps2=float(imu["accel_bias_mps2"]),
            gyro_bias_radps=float(imu["gyro_bias_radps"]),
            position_flu_m=tuple(float(x) for x in imu["position_flu_m"]),
            mount_frame=str(cfg.get("mount_frame", "chassis")),
            seed=int(cfg["seed"]),
            noise=bool(cfg.get("noise", True)),
        )


class ImuModel:
    """The ACRES IMU over consecutive truth chunks (batch = chunks = steps)."""

    name = "imu"

    def __init__(self, cfg: dict, vehicle: VehicleProfile) -> None:
        self.config = ImuConfig.from_config(cfg)
        c = self.config
        self.lever_arm_m = lever_arm_from_chassis(c.position_flu_m, c.mount_frame, vehicle)
        self._rng = Pcg32(c.seed + IMU_SEED_OFFSET, IMU_SEQUENCE)
        g = self._rng.gaussians(6)  # "Start draws them one time"
        sigma_ba = c.accel_bias_mps2 if c.noise else 0.0
        sigma_bg = c.gyro_bias_radps if c.noise else 0.0
        self.accel_bias_mps2 = sigma_ba * g[:3]
        self.gyro_bias_radps = sigma_bg * g[3:]
        self._sigma_a = c.accel_std_mps2 if c.noise else 0.0
        self._sigma_g = c.gyro_std_radps if c.noise else 0.0
        self._due = Due(c.hz, start_s=0.0)
        # state carried between chunks: the previous step's IMU-point velocity and body values
        self._age = -1  # physics steps since the start or the last reset (-1: no step yet)
        self._prev_vi = [0.0, 0.0, 0.0]
        self._prev_fb = [0.0, 0.0, 0.0]
        self._prev_wb = [0.0, 0.0, 0.0]
        # the one-step path's floats
        self._lever_arm = [float(v) for v in self.lever_arm_m]
        self._bias_floats = (self.accel_bias_mps2.tolist(), self.gyro_bias_radps.tolist())

    def process(self, truth: TruthStates) -> dict:
        """The IMU rows sampled in this chunk of physics steps."""
        n = len(truth)
        if n == 0:
            return _empty_block()
        if n == 1 and all(
            a.dtype == np.float64
            for a in (truth.p_m, truth.q_xyzw, truth.v_mps, truth.w_radps, truth.c_m)
        ):
            return self._process_step(truth)
        kin = imu_point_kinematics(
            truth,
            self.lever_arm_m,
            self._age,
            np.array(self._prev_vi),
            np.array(self._prev_fb),
            np.array(self._prev_wb),
        )
        f_b, w_b, f_b_prev, w_b_prev, age = kin.f_b, kin.w_b, kin.f_b_prev, kin.w_b_prev, kin.age
        due = self._due.sample_indices(truth.t_s)
        rows = due[age[due] >= 2]

        m = rows.size
        g = self._rng.gaussians(6 * m).reshape(m, 6)
        force = 0.5 * (f_b[rows] + f_b_prev[rows]) + self.accel_bias_mps2 + self._sigma_a * g[:, :3]
        rate = 0.5 * (w_b[rows] + w_b_prev[rows]) + self.gyro_bias_radps + self._sigma_g * g[:, 3:]

        self._age = int(min(age[-1], 2))
        self._prev_vi = kin.v_i[-1].tolist()
        self._prev_fb = f_b[-1].tolist()
        self._prev_wb = w_b[-1].tolist()
        return {
            "sample_time_s": truth.t_s[rows],
            "specific_force_flu_mps2": force,
            "angular_velocity_flu_radps": rate,
        }

    def _process_step(self, truth: TruthStates) -> dict:
        """One physics step (the streaming API) on Python floats: the operations of
        :func:`imu_point_kinematics` and :meth:`process` for that step, in the same order, so
        the same bits (IEEE binary64) at a fraction of the cost of numpy calls on one row."""
        ((px, py, pz),) = truth.p_m.tolist()
        ((qx, qy, qz, qw),) = truth.q_xyzw.tolist()
        ((v0, v1, v2),) = truth.v_mps.tolist()
        ((w0, w1, w2),) = truth.w_radps.tolist()
        ((cx, cy, cz),) = truth.c_m.tolist()
        r00, r01, r02, r10, r11, r12, r20, r21, r22 = matrix_floats(qx, qy, qz, qw)
        l0, l1, l2 = self._lever_arm
        # v_i = v + w x (p + R r_i - p_c)
        d0 = px + (r00 * l0 + r01 * l1 + r02 * l2) - cx
        d1 = py + (r10 * l0 + r11 * l1 + r12 * l2) - cy
        d2 = pz + (r20 * l0 + r21 * l1 + r22 * l2) - cz
        vi = [v0 + (w1 * d2 - w2 * d1), v1 + (w2 * d0 - w0 * d2), v2 + (w0 * d1 - w1 * d0)]
        dt = 1.0 / truth.rate_hz
        p0, p1, p2 = self._prev_vi
        # f_b = R^T (a - g) with a = (v_i - v_i,prev) / dt and g = (0, 0, -9.80665)
        a0 = (vi[0] - p0) / dt - 0.0
        a1 = (vi[1] - p1) / dt - 0.0
        a2 = (vi[2] - p2) / dt - -GRAVITY_MPS2
        fb = [
            r00 * a0 + r10 * a1 + r20 * a2,
            r01 * a0 + r11 * a1 + r21 * a2,
            r02 * a0 + r12 * a1 + r22 * a2,
        ]
        wb = [
            r00 * w0 + r10 * w1 + r20 * w2,
            r01 * w0 + r11 * w1 + r21 * w2,
            r02 * w0 + r12 * w1 + r22 * w2,
        ]
        age = 0 if truth.reset[0] else self._age + 1
        sampled = self._due(truth.step0 / truth.rate_hz) and age >= 2
        if sampled:
            g = self._rng.gaussian_list(6)
            sa, sg = self._sigma_a, self._sigma_g
            ba, bg = self._bias_floats
            fp, wp = self._prev_fb, self._prev_wb
            force = [0.5 * (fb[j] + fp[j]) + ba[j] + sa * g[j] for j in range(3)]
            rate = [0.5 * (wb[j] + wp[j]) + bg[j] + sg * g[3 + j] for j in range(3)]
        self._age = min(age, 2)
        self._prev_vi, self._prev_fb, self._prev_wb = vi, fb, wb
        if not sampled:
            return _empty_block()
        return {
            "sample_time_s": truth.t_s,
            "specific_force_flu_mps2": np.array([force]),
            "angular_velocity_flu_radps": np.array([rate]),
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


@dataclass(frozen=True)
class ImuKinematics:
    """Truth kinematics of the IMU point at the physics steps of one chunk (shapes (n, 3), (n,))."""

    r: np.ndarray  # body FLU -> world rotation matrices, (n, 3, 3)
    v_i: np.ndarray  # IMU-point velocity, world axes, m/s
    f_b: np.ndarray  # specific force from the finite difference ending at the step, body FLU
    w_b: np.ndarray  # angular rate, body FLU
    f_b_prev: np.ndarray  # f_b of the step before (carried over the chunk boundary)
    w_b_prev: np.ndarray  # w_b of the step before
    age: np.ndarray  # physics steps since the start or the last reset (int64)


def imu_point_kinematics(
    truth: TruthStates,
    lever_arm_m: np.ndarray,
    age_before: int,
    prev_vi: np.ndarray,
    prev_fb: np.ndarray,
    prev_wb: np.ndarray,
) -> ImuKinematics:
    """The IMU section's truth terms for one chunk (shared by the ACRES and configurable IMUs).

    ``age_before`` is the age of the last step before the chunk (-1: none); ``prev_*`` that step's
    IMU-point velocity, specific force and rate. A row needs ``age >= 2``.
    """
    n = len(truth)
    dt = 1.0 / truth.rate_hz
    r = quat_to_matrix(truth.q_xyzw)
    # IMU section: v_i = v + w x (p + R r_i - p_c)
    arm = truth.p_m + rotate(r, lever_arm_m) - truth.c_m
    v_i = truth.v_mps + cross(truth.w_radps, arm)
    v_prev = np.concatenate([prev_vi[None, :], v_i[:-1]])
    a = (v_i - v_prev) / dt
    gravity = np.array([0.0, 0.0, -GRAVITY_MPS2])
    f_b = rotate_inverse(r, a - gravity)
    w_b = rotate_inverse(r, truth.w_radps)
    f_b_prev = np.concatenate([prev_fb[None, :], f_b[:-1]])
    w_b_prev = np.concatenate([prev_wb[None, :], w_b[:-1]])
    # steps since the start or the last reset: a difference needs age >= 1, a row age >= 2
    idx = np.arange(n, dtype=np.int64)
    if truth.reset.any():
        start = np.where(truth.reset, idx, -1)
        last_reset = np.maximum.accumulate(start)
        age = np.where(last_reset >= 0, idx - last_reset, age_before + 1 + idx)
    else:
        age = age_before + 1 + idx
    return ImuKinematics(r, v_i, f_b, w_b, f_b_prev, w_b_prev, age)


def _empty_block() -> dict:
    return {
        "sample_time_s": np.zeros(0),
        "specific_force_flu_mps2": np.zeros((0, 3)),
        "angular_velocity_flu_radps": np.zeros((0, 3)),
    }
