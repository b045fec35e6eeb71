"""``BasiliskImu``: a drop-in for Basilisk's ``imuSensor.ImuSensor``, names kept for its users.

Specification: ``seeds/004_6235ade2fa1ac02d.txt`` (Basilisk imuSensor) with the equations of
``notes/configurable-imu.md`` (Basilisk 2.12.1 ``imuSensor.cpp``; where the specification differs
from 2.12.1 -- delta-v and Reset -- the specification wins).

Measurement equations, per call (subscript 2 the current call, 1 the previous one)::

    [PB]          = M1(roll) M2(pitch) M3(yaw)                  setBodyToPlatformDCM, 3-2-1
    DR_true       = PRV([PB][BN]_2 ([PB][BN]_1)^T)              principal rotation vector
    w_true        = [PB] omega_BN_B
    a_true        = [PB] (a_B + omegaDot x r_S + omega x (omega x r_S))
    v_SC_N        = v_BN_N - v_CN_N + [NB] (omega x r_S)
    DV_true       = [PB][BN]_2 (Delta TotalAccumDV_CN_N + Delta v_SC_N)   (specification's delta-v)

then the error terms of :mod:`navsense.sensors.configurable_imu.error_terms` (A, P, bounds from
the Basilisk setters; 3 error states per sensor).

Random streams (navsense's own, not Basilisk's generator; DESIGN.md "Randomness by stream"):
accelerometer ``Pcg32(RNGSeed + 7001, 10)``, gyro ``Pcg32(RNGSeed + 7001, 11)``, 3 Gaussians per
sensor per call (none on the first call after construction or Reset).
"""

from __future__ import annotations

import numpy as np

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
from navsense.sensors.configurable_imu.error_terms import (
    IMU_STREAM_SEED_OFFSET,
    ROUND_FROM_ZERO,
    ROUND_NEAR,
    ROUND_TO_ZERO,
    GaussMarkov,
    Quantizer,
    apply_imu_errors,
)

__all__ = [
    "BasiliskImu",
    "BASILISK_ACCEL_SEQUENCE",
    "BASILISK_GYRO_SEQUENCE",
    "BASILISK_DEFAULT_SEED",
    "BASILISK_DEFAULT_SATURATION",
]

BASILISK_ACCEL_SEQUENCE = 10  # BasiliskImu accelerometer stream
BASILISK_GYRO_SEQUENCE = 11  # BasiliskImu gyro stream
BASILISK_DEFAULT_SEED = 0x1BADCAD1  # Basilisk SysModel default RNGSeed (464374481)
BASILISK_DEFAULT_SATURATION = 1.0e6  # imuSensor constructor: senRotMax = senTransMax = 1e6


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


#: setRoundDirection's names as Basilisk spells them (roundDirection_t), and its codes
_BASILISK_ROUND = {"TO_ZERO": ROUND_TO_ZERO, "FROM_ZERO": ROUND_FROM_ZERO, "NEAR": ROUND_NEAR}
_ROUND_NAMES = {**_BASILISK_ROUND, **{k.lower(): v for k, v in _BASILISK_ROUND.items()}}


def _round_direction(direction) -> int:
    """Basilisk's roundDirection_t of a setRoundDirection argument: a name (TO_ZERO, or the
    configuration's to_zero) or its code 0, 1, 2 (the Basilisk API's argument, checked here
    as _vec3 and _mat check theirs)."""
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
        self._qa.direction, self._qg.direction = _round_direction(aRound), _round_direction(oRound)

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
