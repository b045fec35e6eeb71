"""The configurable IMU: Basilisk's imuSensor (``BasiliskImu``) and a navsense IMU with every
common error term (``ConfigurableImuModel``).

Specification: ``seeds/004_6235ade2fa1ac02d.txt`` (Basilisk imuSensor) with the equations of
``notes/configurable-imu.md`` (Basilisk 2.12.1 ``imuSensor.cpp``, ``gauss_markov.cpp``,
``discretize.cpp``, ``saturate.cpp``; where the specification differs from 2.12.1 -- delta-v and
Reset -- the specification wins).

Measurement equations, per call (subscript 2 the current call, 1 the previous one)::

    [PB]          = M1(roll) M2(pitch) M3(yaw)                  setBodyToPlatformDCM, 3-2-1
    DR_true       = PRV([PB][BN]_2 ([PB][BN]_1)^T)              principal rotation vector
    w_true        = [PB] omega_BN_B
    a_true        = [PB] (a_B + omegaDot x r_S + omega x (omega x r_S))
    v_SC_N        = v_BN_N - v_CN_N + [NB] (omega x r_S)
    DV_true       = [PB][BN]_2 (Delta TotalAccumDV_CN_N + Delta v_SC_N)   (specification's delta-v)
    e             <- A e + P z,  |e_i| clipped to bound_i > 0     z: 3 standard normals per sensor
    w  = w_true + (e_g + b_g),    DR = DR_true + (e_g + b_g) dt    errors and bias
    w  = s_g * w,                 DR = s_g * DR                    scale factor (per axis)
    w, err = Q(w),                DR -= err dt                     quantisation (LSB, carry, rounding)
    w  = clip(w, +-senRotMax),    DR_i = w_i dt where clipped      saturation
    (and likewise a, DV with e_a, b_a, s_a, senTransMax)

where Q: w' = x + (carry ? err : 0); q = round(|w' / LSB|) toward zero, away from zero or to the
nearest (half away from zero); Q(x) = sign(w') q LSB; err = w' - Q(x).

Random streams (navsense's own, not Basilisk's generator; DESIGN.md "Randomness by stream"):

- ``BasiliskImu``: accelerometer ``Pcg32(RNGSeed + 7001, 10)``, gyro ``Pcg32(RNGSeed + 7001, 11)``,
  3 Gaussians per sensor per call (none on the first call after construction or Reset).
- ``ConfigurableImuModel``: accelerometer ``Pcg32(seed + 7001, 12)``, gyro ``Pcg32(seed + 7001, 13)``;
  at the start 6 Gaussians per sensor (turn-on bias x, y, z; initial bias-instability state
  x, y, z), then 9 per sensor per output epoch (white x, y, z; bias instability x, y, z; random
  walk x, y, z). With ``noise`` false every error is zero but the same values are drawn.

Discretisation of the continuous-time parameters of ``ConfigurableImuModel`` (nominal sample
interval dt = 1 / imu.hz; IEEE Std 952-1997 Annex C and IEEE Std 1293-2018 Annex C for the
Allan-variance terms; MATLAB ``imuSensor``/``gyroparams`` documentation for the parameter set)::

    white (angle / velocity random walk) N:   e_w,k = N sqrt(1/dt) z            AVAR = N^2 / T
    bias instability B, correlation tau:      b_k = a b_k-1 + B sqrt(1 - a^2) z,  a = exp(-dt/tau)
                                              stationary sigma B, b_0 = B z (started stationary);
                                              AVAR peaks near T = 1.89 tau at (0.62 B)^2
    rate / acceleration random walk K:        r_k = r_k-1 + K sqrt(dt) z,  r_0 = 0  AVAR = K^2 T / 3
    e = e_w + b + r,  bias = b_const + b_turn_on + c_T (T - T_ref),  s = 1 + 1e-6 (sf + c_sf (T - T_ref))

so that the Allan deviation does not depend on the sample rate. The truth specific force and
angular rate are the ACRES IMU's (:func:`navsense.sensors.imu.imu_point_kinematics`: the average
of the last two physics steps), resolved in the platform frame and misaligned,
x_s = (I + M) [PB] x_FLU; the gyro adds g-sensitivity G * a_true before the errors.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from navsense import gauss_markov
from navsense.clock import Due
from navsense.constants import GRAVITY_MPS2
from navsense.errors import ConfigError
from navsense.rng import Pcg32
from navsense.rotation import (
    cross,
    dcm_to_prv,
    euler_321_to_dcm,
    matrix_product,
    mrp_to_dcm,
    rotate,
    rotate_inverse,
)
from navsense.sensors.imu import imu_point_kinematics
from navsense.truth.states import TruthStates
from navsense.vehicles import VehicleProfile, lever_arm_from_chassis

__all__ = [
    "ROUND_TO_ZERO",
    "ROUND_FROM_ZERO",
    "ROUND_NEAR",
    "GaussMarkov",
    "Quantizer",
    "apply_imu_errors",
    "BasiliskImu",
    "SensorErrors",
    "ConfigurableImuConfig",
    "ConfigurableImuModel",
    "IMU_STREAM_SEED_OFFSET",
    "BASILISK_ACCEL_SEQUENCE",
    "BASILISK_GYRO_SEQUENCE",
    "CONFIGURABLE_ACCEL_SEQUENCE",
    "CONFIGURABLE_GYRO_SEQUENCE",
    "BASILISK_DEFAULT_SEED",
]

# Basilisk's roundDirection_t (discretize.h): TO_ZERO, FROM_ZERO, NEAR
ROUND_TO_ZERO, ROUND_FROM_ZERO, ROUND_NEAR = 0, 1, 2
_ROUND_NAMES = {
    "TO_ZERO": ROUND_TO_ZERO,
    "FROM_ZERO": ROUND_FROM_ZERO,
    "NEAR": ROUND_NEAR,
    "to_zero": ROUND_TO_ZERO,
    "from_zero": ROUND_FROM_ZERO,
    "near": ROUND_NEAR,
}

IMU_STREAM_SEED_OFFSET = 7001  # navsense choice: streams Pcg32(seed + 7001, seq)
BASILISK_ACCEL_SEQUENCE = 10  # BasiliskImu accelerometer stream
BASILISK_GYRO_SEQUENCE = 11  # BasiliskImu gyro stream
CONFIGURABLE_ACCEL_SEQUENCE = 12
CONFIGURABLE_GYRO_SEQUENCE = 13
BASILISK_DEFAULT_SEED = 0x1BADCAD1  # Basilisk SysModel default RNGSeed (464374481)
BASILISK_DEFAULT_SATURATION = 1.0e6  # imuSensor constructor: senRotMax = senTransMax = 1e6


def _round_code(direction) -> int:
    if isinstance(direction, str):
        if direction not in _ROUND_NAMES:
            raise ConfigError(
                f"round direction = {direction!r} is not one of to_zero, from_zero, near"
            )
        return _ROUND_NAMES[direction]
    code = int(direction)
    if code not in (0, 1, 2):
        raise ConfigError(
            f"round direction = {direction!r} is not one of 0 (TO_ZERO), 1 (FROM_ZERO), 2 (NEAR)"
        )
    return code


def _vec3(value, name: str) -> np.ndarray:
    v = np.asarray(value, dtype=np.float64).reshape(-1)
    if v.size == 1:
        v = np.repeat(v, 3)
    if v.shape != (3,) or not np.all(np.isfinite(v)):
        raise ConfigError(f"{name} = {np.asarray(value).tolist()!r} is not 3 finite numbers")
    return v


def _mat(value, name: str, n: int = 3) -> np.ndarray:
    m = np.asarray(value, dtype=np.float64)
    if m.shape != (n, n) or not np.all(np.isfinite(m)):
        raise ConfigError(
            f"{name}: expected a {n}x{n} matrix of finite numbers, got shape {m.shape}"
        )
    return m


# ------------------------------------------------------------------------------ error states
class GaussMarkov:
    """Error states e <- A e + P z, each state with a bound > 0 clipped to +-bound (gauss_markov.cpp).

    ``propagate(z)`` takes the standard normals of m steps, shape (m, n), and returns the states
    after each step, shape (m, n). A = 0 (white noise) is vectorised; a diagonal A runs one
    scalar recursion per state (navsense.gauss_markov.scan when unbounded, a float loop when
    bounded);
    a full A runs a float loop. Every path computes each element the same way whatever m is.
    """

    def __init__(self, n: int = 3) -> None:
        self.n = n
        self.A = np.zeros((n, n))
        self.P = np.zeros((n, n))
        self.bounds = np.zeros(n)
        self.state = np.zeros(n)

    def reset(self, state=None) -> None:
        self.state = (
            np.zeros(self.n) if state is None else np.asarray(state, dtype=np.float64).copy()
        )

    def propagate(self, z: np.ndarray) -> np.ndarray:
        n, A, P = self.n, self.A, self.P
        z = np.asarray(z, dtype=np.float64).reshape(-1, n)
        m = z.shape[0]
        if m == 0:
            return np.zeros((0, n))
        # w = P z, term by term in a fixed order
        w = np.zeros((m, n))
        for i in range(n):
            acc = P[i, 0] * z[:, 0]
            for j in range(1, n):
                acc = acc + P[i, j] * z[:, j]
            w[:, i] = acc
        bounds = self.bounds
        out = np.empty((m, n))
        if not np.any(A):
            out[:] = w
            for i in range(n):
                if bounds[i] > 0.0:
                    np.clip(out[:, i], -bounds[i], bounds[i], out=out[:, i])
        elif np.count_nonzero(A - np.diag(np.diag(A))) == 0:
            for i in range(n):
                a, b, e0 = float(A[i, i]), float(bounds[i]), float(self.state[i])
                if b > 0.0:
                    out[:, i] = _bounded_scalar_recursion(a, b, e0, w[:, i])
                elif a == 0.0:
                    out[:, i] = w[:, i]
                else:
                    out[:, i] = gauss_markov.scan(a, w[:, i : i + 1], [e0])[:, 0]
        else:
            out[:] = _full_recursion(A, bounds, self.state, w)
        self.state = out[-1].copy()
        return out


def _bounded_scalar_recursion(a: float, b: float, e: float, w: np.ndarray) -> np.ndarray:
    out: list[float] = []
    append = out.append
    for wk in w.tolist():
        e = a * e + wk
        if e > b:
            e = b
        elif e < -b:
            e = -b
        append(e)
    return np.array(out)


def _full_recursion(A: np.ndarray, bounds: np.ndarray, e0: np.ndarray, w: np.ndarray) -> np.ndarray:
    n = A.shape[0]
    a = A.tolist()
    bnd = bounds.tolist()
    e = e0.tolist()
    out = []
    for wk in w.tolist():
        new = []
        for i in range(n):
            acc = a[i][0] * e[0]
            for j in range(1, n):
                acc = acc + a[i][j] * e[j]
            v = acc + wk[i]
            if bnd[i] > 0.0:
                v = min(max(v, -bnd[i]), bnd[i])
            new.append(v)
        e = new
        out.append(e)
    return np.array(out)


# ------------------------------------------------------------------------------ quantisation
def _round_magnitude(q, direction: int):
    if direction == ROUND_TO_ZERO:
        return np.floor(q)
    if direction == ROUND_FROM_ZERO:
        return np.ceil(q)
    r = np.floor(q)  # nearest, half away from zero (std::round) for q >= 0
    return r + (q - r >= 0.5)


class Quantizer:
    """Per-axis quantisation with a remainder carried between calls (discretize.cpp)."""

    def __init__(self) -> None:
        self.lsb = np.zeros(3)
        self.carry = False
        self.direction = ROUND_TO_ZERO
        self.err = np.zeros(3)

    def reset(self) -> None:
        self.err = np.zeros(3)

    def apply(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(quantised x, remainder err per epoch), shapes (m, 3); axes with LSB 0 pass through."""
        out = np.array(x, dtype=np.float64, copy=True)
        errs = np.zeros_like(out)
        m = out.shape[0]
        if m == 0:
            return out, errs
        for i in range(3):
            lsb = float(self.lsb[i])
            if lsb == 0.0:
                continue
            if not self.carry:
                w = out[:, i]
                q = _round_magnitude(np.abs(w / lsb), self.direction)
                o = np.copysign(q * lsb, w)
                errs[:, i] = w - o
                out[:, i] = o
                self.err[i] = errs[-1, i]
            else:
                e = float(self.err[i])
                col, ecol = [], []
                for xk in out[:, i].tolist():
                    w = xk + e
                    q = float(_round_magnitude(np.float64(abs(w / lsb)), self.direction))
                    o = math.copysign(q * lsb, w)
                    e = w - o
                    col.append(o)
                    ecol.append(e)
                out[:, i] = col
                errs[:, i] = ecol
                self.err[i] = e
        return out, errs


def apply_imu_errors(
    true: dict,
    dt: np.ndarray,
    e_gyro: np.ndarray,
    e_accel: np.ndarray,
    bias_gyro,
    bias_accel,
    scale_gyro,
    scale_accel,
    quant_gyro: Quantizer,
    quant_accel: Quantizer,
    rot_max: float,
    trans_max: float,
) -> dict:
    """The notes' order after the truth values: errors and bias, scale, quantisation, saturation.

    ``true`` has ``rate``, ``dr``, ``accel``, ``dv`` of shape (m, 3) (platform axes); dt (m,).
    """
    dt = np.asarray(dt, dtype=np.float64)[:, None]
    omega_err = e_gyro + bias_gyro  # errors and bias (applySensorErrors)
    accel_err = e_accel + bias_accel
    rate = true["rate"] + omega_err
    dr = true["dr"] + omega_err * dt
    accel = true["accel"] + accel_err
    dv = true["dv"] + accel_err * dt
    rate = rate * scale_gyro  # scale (scaleTruth)
    dr = dr * scale_gyro
    accel = accel * scale_accel
    dv = dv * scale_accel
    accel, err_a = quant_accel.apply(accel)  # quantisation (applySensorDiscretization)
    dv = dv - err_a * dt
    rate, err_g = quant_gyro.apply(rate)
    dr = dr - err_g * dt
    rate_s = np.clip(rate, -rot_max, rot_max)  # saturation (applySensorSaturation)
    dr = np.where(rate_s != rate, rate_s * dt, dr)
    accel_s = np.clip(accel, -trans_max, trans_max)
    dv = np.where(accel_s != accel, accel_s * dt, dv)
    return {"rate": rate_s, "dr": dr, "accel": accel_s, "dv": dv}


# ---------------------------------------------------------------------------------- Basilisk
_STATE_KEYS = (
    "sigma_BN",
    "omega_BN_B",
    "omegaDot_BN_B",
    "nonConservativeAccelpntB_B",
    "v_BN_N",
    "v_CN_N",
    "TotalAccumDV_CN_N",
)
_OUTPUT_KEYS = ("DVFramePlatform", "AccelPlatform", "DRFramePlatform", "AngVelPlatform")


class BasiliskImu:
    """A drop-in for Basilisk's ``imuSensor.ImuSensor`` (names kept), per the specification.

    ``UpdateState(CurrentSimNanos, state)`` takes a mapping with ``sigma_BN``, ``omega_BN_B``,
    ``omegaDot_BN_B``, ``nonConservativeAccelpntB_B``, ``v_BN_N``, ``v_CN_N``,
    ``TotalAccumDV_CN_N`` (missing keys are zero) and returns ``DVFramePlatform``,
    ``AccelPlatform``, ``DRFramePlatform``, ``AngVelPlatform`` (numpy arrays, shape (3,)).
    The first call after construction or :meth:`Reset` returns zeros and draws nothing.
    Differences from Basilisk 2.12.1 (the specification wins): delta-v differences the inertial
    accumulated delta-v; Reset restarts the error states, the streams and the zero first call.
    """

    def __init__(self) -> None:
        self.PMatrixAccel = np.zeros((3, 3))  # [m/s^2] square root of the process-noise covariance
        self.PMatrixGyro = np.zeros((3, 3))  # [rad/s]
        self._A = {"accel": np.zeros((3, 3)), "gyro": np.zeros((3, 3))}
        self._bounds = {"accel": np.zeros(3), "gyro": np.zeros(3)}
        self.senRotBias = np.zeros(3)  # [rad/s] platform axes
        self.senTransBias = np.zeros(3)  # [m/s^2]
        self.accelScale = np.ones(3)
        self.gyroScale = np.ones(3)
        self.senRotMax = BASILISK_DEFAULT_SATURATION  # [rad/s]
        self.senTransMax = BASILISK_DEFAULT_SATURATION  # [m/s^2]
        self.sensorPos_B = np.zeros(3)  # [m] from point B
        self.dcm_PB = np.eye(3)
        self.RNGSeed = BASILISK_DEFAULT_SEED
        self._qa = Quantizer()
        self._qg = Quantizer()
        self.sensedValues: dict = _zero_output()
        self.trueValues: dict = _zero_output()
        self.Reset(0)

    # -- Basilisk setters and getters
    def setLSBs(self, LSBa: float, LSBo: float) -> None:
        self._qa.lsb = np.full(3, float(LSBa))
        self._qg.lsb = np.full(3, float(LSBo))

    def setCarryError(self, aCarry: bool, oCarry: bool) -> None:
        self._qa.carry, self._qg.carry = bool(aCarry), bool(oCarry)

    def setRoundDirection(self, aRound, oRound) -> None:
        """0 / "TO_ZERO" (default), 1 / "FROM_ZERO", 2 / "NEAR" (half away from zero)."""
        self._qa.direction, self._qg.direction = _round_code(aRound), _round_code(oRound)

    def setAMatrixAccel(self, propMatrix) -> None:
        self._A["accel"] = _mat(propMatrix, "AMatrixAccel").copy()

    def setAMatrixGyro(self, propMatrix) -> None:
        self._A["gyro"] = _mat(propMatrix, "AMatrixGyro").copy()

    def getAMatrixAccel(self) -> np.ndarray:
        return self._A["accel"].copy()

    def getAMatrixGyro(self) -> np.ndarray:
        return self._A["gyro"].copy()

    AMatrixAccel = property(getAMatrixAccel, setAMatrixAccel)
    AMatrixGyro = property(getAMatrixGyro, setAMatrixGyro)

    def setErrorBoundsAccel(self, bounds) -> None:
        self._bounds["accel"] = _vec3(bounds, "errorBoundsAccel")

    def setErrorBoundsGyro(self, bounds) -> None:
        self._bounds["gyro"] = _vec3(bounds, "errorBoundsGyro")

    setWalkBoundsAccel = (
        setErrorBoundsAccel  # the notes: the error and walk bounds set the same bound
    )
    setWalkBoundsGyro = setErrorBoundsGyro

    def getErrorBoundsAccel(self) -> np.ndarray:
        return self._bounds["accel"].copy()

    def getErrorBoundsGyro(self) -> np.ndarray:
        return self._bounds["gyro"].copy()

    getWalkBoundsAccel = getErrorBoundsAccel
    getWalkBoundsGyro = getErrorBoundsGyro

    def setBodyToPlatformDCM(self, yaw: float, pitch: float, roll: float) -> None:
        self.dcm_PB = euler_321_to_dcm(yaw, pitch, roll)

    @property
    def navErrorsAccel(self) -> np.ndarray:
        return self._gm_a.state.copy()

    @property
    def navErrorsGyro(self) -> np.ndarray:
        return self._gm_g.state.copy()

    # -- running
    def Reset(self, CurrentSimNanos: int = 0) -> None:
        """Restart: zero first call, zero error states and remainders, streams from RNGSeed."""
        seed = int(self.RNGSeed) + IMU_STREAM_SEED_OFFSET
        self._rng_a = Pcg32(seed, BASILISK_ACCEL_SEQUENCE)
        self._rng_g = Pcg32(seed, BASILISK_GYRO_SEQUENCE)
        self._gm_a = GaussMarkov(3)
        self._gm_g = GaussMarkov(3)
        self._qa.reset()
        self._qg.reset()
        self.NominalReady = False
        self._prev: dict = {}  # the previous call's values (empty before the first)
        self._prev_time = int(CurrentSimNanos)

    def UpdateState(self, CurrentSimNanos: int, state) -> dict:
        cur = {
            k: np.asarray(state.get(k, (0.0, 0.0, 0.0)), dtype=np.float64).reshape(3)
            for k in _STATE_KEYS
        }
        r_s = _vec3(self.sensorPos_B, "sensorPos_B")
        pb = np.asarray(self.dcm_PB, dtype=np.float64)
        bn2 = mrp_to_dcm(cur["sigma_BN"])
        omega_x_r = cross(cur["omega_BN_B"], r_s)
        v_sc_n = cur["v_BN_N"] - cur["v_CN_N"] + rotate_inverse(bn2, omega_x_r)
        if self.NominalReady:
            prev = self._prev
            dt = (int(CurrentSimNanos) - int(self._prev_time)) * 1.0e-9
            pn2 = matrix_product(pb, bn2)
            pn1 = matrix_product(pb, prev["bn"])
            true = {
                "dr": dcm_to_prv(matrix_product(pn2, pn1.swapaxes(-1, -2))),
                "rate": rotate(pb, cur["omega_BN_B"]),
                "accel": rotate(
                    pb,
                    cur["nonConservativeAccelpntB_B"]
                    + cross(cur["omegaDot_BN_B"], r_s)
                    + cross(cur["omega_BN_B"], omega_x_r),
                ),
                "dv": rotate(
                    pn2, (cur["TotalAccumDV_CN_N"] - prev["dv_cn_n"]) + (v_sc_n - prev["v_sc_n"])
                ),
            }
            self._gm_a.A, self._gm_a.P = self._A["accel"], _mat(self.PMatrixAccel, "PMatrixAccel")
            self._gm_g.A, self._gm_g.P = self._A["gyro"], _mat(self.PMatrixGyro, "PMatrixGyro")
            self._gm_a.bounds, self._gm_g.bounds = self._bounds["accel"], self._bounds["gyro"]
            e_a = self._gm_a.propagate(self._rng_a.gaussians(3)[None, :])  # accelerometer first
            e_g = self._gm_g.propagate(self._rng_g.gaussians(3)[None, :])
            out = apply_imu_errors(
                {k: v[None, :] for k, v in true.items()},
                np.array([dt]),
                e_g,
                e_a,
                _vec3(self.senRotBias, "senRotBias"),
                _vec3(self.senTransBias, "senTransBias"),
                _vec3(self.gyroScale, "gyroScale"),
                _vec3(self.accelScale, "accelScale"),
                self._qg,
                self._qa,
                float(self.senRotMax),
                float(self.senTransMax),
            )
            self.trueValues = {
                "DVFramePlatform": true["dv"],
                "AccelPlatform": true["accel"],
                "DRFramePlatform": true["dr"],
                "AngVelPlatform": true["rate"],
            }
            self.sensedValues = {
                "DVFramePlatform": out["dv"][0],
                "AccelPlatform": out["accel"][0],
                "DRFramePlatform": out["dr"][0],
                "AngVelPlatform": out["rate"][0],
            }
        else:
            self.trueValues = _zero_output()
            self.sensedValues = _zero_output()
        self._prev = {"bn": bn2, "dv_cn_n": cur["TotalAccumDV_CN_N"], "v_sc_n": v_sc_n}
        self._prev_time = int(CurrentSimNanos)
        self.NominalReady = True
        return {k: v.copy() for k, v in self.sensedValues.items()}


def _zero_output() -> dict:
    return {k: np.zeros(3) for k in _OUTPUT_KEYS}


# ------------------------------------------------------------------- navsense configurable IMU
#: per-sensor key templates of ``imu.configurable.gyro`` / ``.accel``: {u} the sensor's unit
#: (radps, mps2), {rw} its random-walk unit (radps2_rthz, mps3_rthz).
_SENSOR_KEYS = {
    "noise_density": "noise_density_{u}_rthz",
    "bias_instability": "bias_instability_{u}",
    "bias_instability_tau_s": "bias_instability_tau_s",
    "random_walk": "random_walk_{rw}",
    "random_walk_bound": "random_walk_bound_{u}",
    "bias": "bias_{u}",
    "turn_on_bias_sigma": "turn_on_bias_sigma_{u}",
    "scale_factor_ppm": "scale_factor_ppm",
    "misalignment_rad": "misalignment_rad",
    "temp_bias_per_k": "temp_bias_{u}_per_k",
    "temp_scale_ppm_per_k": "temp_scale_ppm_per_k",
    "lsb": "lsb_{u}",
    "carry_error": "carry_error",
    "round_direction": "round_direction",
    "saturation": "saturation_{u}",
    "g_sensitivity": "g_sensitivity_radps_per_mps2",  # gyro only
}
_UNITS = {"gyro": ("radps", "radps2_rthz"), "accel": ("mps2", "mps3_rthz")}


def sensor_keys(sensor: str) -> dict[str, str]:
    """Field name -> configuration key of ``imu.configurable.<sensor>`` (gyro or accel)."""
    u, rw = _UNITS[sensor]
    keys = {f: k.format(u=u, rw=rw) for f, k in _SENSOR_KEYS.items()}
    if sensor != "gyro":
        del keys["g_sensitivity"]
    return keys


@dataclass(frozen=True)
class SensorErrors:
    """Continuous-time error parameters of one sensor triad (3-vectors in sensor axes).

    Units: the sensor's unit x (rad/s or m/s^2); noise_density x/sqrt(Hz) (= rad/sqrt(s) angle
    random walk, m/s/sqrt(s) velocity random walk); random_walk x/s/sqrt(Hz); *_per_k per kelvin.
    """

    noise_density: np.ndarray = field(default_factory=lambda: np.zeros(3))
    bias_instability: np.ndarray = field(default_factory=lambda: np.zeros(3))
    bias_instability_tau_s: float = 100.0
    random_walk: np.ndarray = field(default_factory=lambda: np.zeros(3))
    random_walk_bound: np.ndarray = field(default_factory=lambda: np.zeros(3))
    bias: np.ndarray = field(default_factory=lambda: np.zeros(3))
    turn_on_bias_sigma: np.ndarray = field(default_factory=lambda: np.zeros(3))
    scale_factor_ppm: np.ndarray = field(default_factory=lambda: np.zeros(3))
    misalignment_rad: np.ndarray = field(default_factory=lambda: np.zeros((3, 3)))
    temp_bias_per_k: np.ndarray = field(default_factory=lambda: np.zeros(3))
    temp_scale_ppm_per_k: np.ndarray = field(default_factory=lambda: np.zeros(3))
    lsb: float = 0.0
    carry_error: bool = False
    round_direction: int = ROUND_NEAR
    saturation: float = 0.0  # 0: none
    g_sensitivity: np.ndarray = field(default_factory=lambda: np.zeros(3))

    @classmethod
    def from_mapping(cls, sensor: str, explicit: dict, preset: dict, where: str) -> SensorErrors:
        """Explicit keys (not None) win over the preset's; a key in neither takes the default."""
        keys = sensor_keys(sensor)
        known = set(keys.values())
        for k in explicit:
            if k not in known:
                raise ConfigError(
                    f"{where}.{k} is not a key of {where}; known: {', '.join(sorted(known))}"
                )
        kw: dict[str, Any] = {}
        for f, key in keys.items():
            value = explicit.get(key)
            if value is None:
                value = preset.get(key)
            if value is None:
                continue
            name = f"{where}.{key}"
            if f in ("bias_instability_tau_s", "lsb", "saturation"):
                kw[f] = float(value)
                if not (math.isfinite(kw[f]) and kw[f] >= 0.0) or (
                    f == "bias_instability_tau_s" and kw[f] == 0.0
                ):
                    raise ConfigError(
                        f"{name} = {value!r} is out of range "
                        f"{'> 0' if f == 'bias_instability_tau_s' else '>= 0'}"
                    )
            elif f == "carry_error":
                kw[f] = bool(value)
            elif f == "round_direction":
                kw[f] = _round_code(value)
            elif f == "misalignment_rad":
                m = np.asarray(value, dtype=np.float64).reshape(-1)
                if m.size != 9 or not np.all(np.isfinite(m)):
                    raise ConfigError(
                        f"{name} = {value!r} is not 9 numbers (a 3x3 matrix, row-major)"
                    )
                kw[f] = m.reshape(3, 3) * (
                    1.0 - np.eye(3)
                )  # off-diagonal only: the diagonal is the scale factor
            else:
                kw[f] = _vec3(value, name)
        return cls(**kw)


@dataclass(frozen=True)
class ConfigurableImuConfig:
    """``imu`` with ``imu.model`` "configurable", typed."""

    hz: float
    position_flu_m: tuple
    mount_frame: str
    seed: int
    noise: bool
    preset: str
    platform_ypr_deg: tuple
    temperature_c: float
    reference_temperature_c: float
    gyro: SensorErrors
    accel: SensorErrors

    @classmethod
    def from_config(cls, cfg: dict) -> ConfigurableImuConfig:
        from navsense.sensors.imu_presets import PRESETS

        imu = cfg["imu"]
        name = imu.get("preset") or "none"
        if name != "none" and name not in PRESETS:
            raise ConfigError(f"imu.preset = {name!r} is not one of none, {', '.join(PRESETS)}")
        pre = PRESETS.get(name, {})
        conf = dict(imu.get("configurable") or {})
        common = {"platform_ypr_deg", "temperature_c", "reference_temperature_c", "gyro", "accel"}
        for k in conf:
            if k not in common:
                raise ConfigError(
                    f"imu.configurable.{k} is not a key of imu.configurable; "
                    f"known: {', '.join(sorted(common))}"
                )
        ypr = conf.get("platform_ypr_deg") or (0.0, 0.0, 0.0)
        return cls(
            hz=float(imu["hz"]),
            position_flu_m=tuple(float(x) for x in imu["position_flu_m"]),
            mount_frame=str(cfg.get("mount_frame", "chassis")),
            seed=int(cfg["seed"]),
            noise=bool(cfg.get("noise", True)),
            preset=name,
            platform_ypr_deg=tuple(
                float(x) for x in _vec3(ypr, "imu.configurable.platform_ypr_deg")
            ),
            temperature_c=float(_or(conf.get("temperature_c"), 25.0)),
            reference_temperature_c=float(_or(conf.get("reference_temperature_c"), 25.0)),
            gyro=SensorErrors.from_mapping(
                "gyro", dict(conf.get("gyro") or {}), pre.get("gyro", {}), "imu.configurable.gyro"
            ),
            accel=SensorErrors.from_mapping(
                "accel",
                dict(conf.get("accel") or {}),
                pre.get("accel", {}),
                "imu.configurable.accel",
            ),
        )


def _or(value, default):
    return default if value is None else value


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
            self.quant.direction = p.round_direction
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

    def __init__(self, cfg: dict, vehicle: VehicleProfile) -> None:
        self.config = ConfigurableImuConfig.from_config(cfg)
        c = self.config
        self.lever_arm_m = lever_arm_from_chassis(c.position_flu_m, c.mount_frame, vehicle)
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
        self._due = Due(c.hz, start_s=0.0)
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
            truth, self.lever_arm_m, self._age, self._prev_vi, self._prev_fb, self._prev_wb
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
        gravity = np.array([0.0, 0.0, -GRAVITY_MPS2])
        # specification's delta-v: change of the IMU point's velocity minus gravity's, current axes
        dv_b = rotate_inverse(r, (kin.v_i[rows] - ref_vi) - gravity * dt[:, None])
        # delta angle: PRV of [PB][BN]_2 ([PB][BN]_1)^T = [PB] R_2^T R_1 [PB]^T
        pb = np.broadcast_to(self.dcm_pb, (m, 3, 3))
        c = matrix_product(
            matrix_product(pb, matrix_product(r.swapaxes(-1, -2), ref_r)), pb.swapaxes(-1, -2)
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


def _empty_block() -> dict:
    return {
        "sample_time_s": np.zeros(0),
        "specific_force_flu_mps2": np.zeros((0, 3)),
        "angular_velocity_flu_radps": np.zeros((0, 3)),
        "delta_velocity_flu_mps": np.zeros((0, 3)),
        "delta_angle_flu_rad": np.zeros((0, 3)),
    }
