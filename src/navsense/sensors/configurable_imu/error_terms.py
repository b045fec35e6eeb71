"""The configurable IMUs' error terms after the truth values (Basilisk 2.12.1 ``imuSensor.cpp``,
``gauss_markov.cpp``, ``discretize.cpp``, ``saturate.cpp``; notes/configurable-imu.md).

Per epoch, for the gyro (and likewise the accelerometer: a, DV with e_a, b_a, s_a, senTransMax)::

    e             <- A e + P z,  |e_i| clipped to bound_i > 0     z: standard normals
    w  = w_true + (e_g + b_g),    DR = DR_true + (e_g + b_g) dt    errors and bias
    w  = s_g * w,                 DR = s_g * DR                    scale factor (per axis)
    w, err = Q(w),                DR -= err dt                     quantisation (LSB, carry, rounding)
    w  = clip(w, +-senRotMax),    DR_i = w_i dt where clipped      saturation

where Q: w' = x + (carry ? err : 0); q = round(|w' / LSB|) toward zero, away from zero or to the
nearest (half away from zero); Q(x) = sign(w') q LSB; err = w' - Q(x).
"""

from __future__ import annotations

import math

import numpy as np

from navsense.config.typed.configurable_imu import ROUND_DIRECTIONS

__all__ = [
    "ROUND_TO_ZERO",
    "ROUND_FROM_ZERO",
    "ROUND_NEAR",
    "round_code",
    "GaussMarkov",
    "Quantizer",
    "apply_imu_errors",
    "IMU_STREAM_SEED_OFFSET",
]

IMU_STREAM_SEED_OFFSET = 7001  # navsense choice: both IMUs' streams Pcg32(seed + 7001, seq)

# Basilisk's roundDirection_t (discretize.h): TO_ZERO, FROM_ZERO, NEAR; the configuration's
# names (imu.configurable.<sensor>.round_direction, navsense.config.keys.ROUND_DIRECTIONS) are
# in this order, so a name's index is its code.
ROUND_TO_ZERO, ROUND_FROM_ZERO, ROUND_NEAR = 0, 1, 2


def round_code(direction: str) -> int:
    """Basilisk's roundDirection_t of a validated round_direction (to_zero, from_zero, near)."""
    return ROUND_DIRECTIONS.index(direction)


# ------------------------------------------------------------------------------ error states
class GaussMarkov:
    """Error states e <- clip(A e + P z), each state with a bound > 0 clipped to +-bound
    (gauss_markov.cpp).

    ``propagate(z)`` takes the standard normals of m steps, shape (m, n), and returns the states
    after each step, shape (m, n). One equation, evaluated by the structure of A: a state whose
    row of A is zero takes e_k = clip(w_k) (no state enters; on the block at once); a diagonal A
    runs each state's own recursion (:func:`_state_recursion`, one multiply and one add a step);
    a full A runs the coupled one (:func:`_coupled_recursion`, the row's terms in j order).
    Every path computes each element the same way whatever m is.
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
        if np.count_nonzero(A - np.diag(np.diag(A))):
            out = _coupled_recursion(A, bounds, self.state, w)
        else:
            out = w
            for i in range(n):
                a, b = float(A[i, i]), float(bounds[i])
                if a != 0.0 or (b > 0.0 and np.any(A)):
                    out[:, i] = _state_recursion(a, b, float(self.state[i]), w[:, i])
                elif b > 0.0:  # A = 0: e_k = clip(w_k)
                    np.clip(out[:, i], -b, b, out=out[:, i])
        self.state = out[-1].copy()
        return out


def _state_recursion(a: float, b: float, e: float, w: np.ndarray) -> np.ndarray:
    """One state's e_k = a e_(k-1) + w_k, clipped to +-b when b > 0 (Python floats)."""
    out: list[float] = []
    append = out.append
    for wk in w.tolist():
        e = a * e + wk
        if b > 0.0:
            if e > b:
                e = b
            elif e < -b:
                e = -b
        append(e)
    return np.array(out)


def _coupled_recursion(
    A: np.ndarray, bounds: np.ndarray, e0: np.ndarray, w: np.ndarray
) -> np.ndarray:
    """e_k = clip(A e_(k-1) + w_k) with a full A: each row's terms in j order (Python floats)."""
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
