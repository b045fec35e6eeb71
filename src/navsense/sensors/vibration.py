"""Vibration at the IMU point (issue 30 item 2, ``imu.vibration``): added to the truth's specific
force and angular rate at every physics step, before the IMU averages, filters and samples
them, so that a vibration above the IMU's Nyquist frequency aliases into its samples as it does
in a real IMU whose rate and bandwidth are wrong.

Sines (``imu.vibration.sines``), in the IMU's axes (the ACRES IMU's body FLU; the configurable
IMU's platform axes, [PB] x_FLU), each of frequency f_i and amplitudes a_i (m/s^2), g_i (rad/s)::

    f^b_k += [PB]^T sum_i a_i sin(2 pi f_i t_k),     w^b_k += [PB]^T sum_i g_i sin(2 pi f_i t_k)

with t_k = k / physics rate the step's time: a vibration that is the same function of time
however the run is cut (batch = chunks = steps). The phase is zero at t = 0 (ruling: one phase
is as good as another for a single sine; several sines add in phase at t = 0). No random draw.

Random vibration (``imu.vibration.random_psd_g2_per_hz`` S_j on the IMU's axis j, within
``random_band_hz`` [f_lo, f_hi]): band-limited Gaussian noise of one-sided PSD S_j g0^2 in the
band (g0 = 9.80665 m/s^2), the specific force only, made on the physics clock of rate f_s::

    x_j,k = sqrt(S_j g0^2 f_s / 2) z_j,k                 white, one-sided PSD S_j g0^2
    a_j,k = BP(x_j)_k                                    4th-order Butterworth band-pass

(scipy.signal.butter(2, [f_lo, f_hi], "bandpass"), the bilinear transform; its gain is 1 at
the band's centre, so the PSD there is S_j g0^2; the filter starts at rest at t = 0). Random
values: the stream Pcg32(seed + 1013, 21) (a sequence no other stream uses), 3 Gaussians a
physics step (x, y, z), only when a level is set: no other stream moves. The vibration is
motion, not a sensor error: ``noise`` false keeps it (ruling).

The level may be given instead as the RMS over the band (``random_rms_g`` R_j, g; the sources
of vibration levels give an RMS, navsense.config.vibration_presets): the white noise is scaled
so that the band-passed vibration's variance is (R_j g0)^2 exactly on the run's clock::

    x_j,k = R_j g0 / sqrt(sum_n h_n^2) z_j,k        h: the band-pass's impulse response

(sum_n h_n^2 = the digital filter's noise bandwidth / (f_s / 2), summed until the response
has decayed by e^-36; about 1.11 (f_hi - f_lo) / (f_s / 2) for a band well below f_s / 2,
pi / (2 sqrt 2) the 2nd-order Butterworth prototype's noise-bandwidth factor). Its one-sided
PSD in the band is then about R_j^2 / (1.11 (f_hi - f_lo)) g^2/Hz, flat: a published PSD of
another shape is represented by its RMS over its band (ruling, issue 30 item 2).

Engine order (``imu.vibration.engine_*``; navsense's model): the engine turns at
rpm_k = idle + c |v_h,k|, the idle speed plus ``engine_rpm_per_mps`` c times the chassis's
horizontal speed (c = overall gear ratio x 60 / (2 pi wheel radius): one gear, no clutch, no
shift), and its order n (``engine_order``; 2: a 4-cylinder four-stroke engine's firing) shakes
the IMU with the amplitude a (``engine_accel_mps2``, IMU axes)::

    phi_k = phi_k-1 + 2 pi n rpm_k / 60 h,   phi_-1 = 0,   h = 1 / physics rate
    f^b_k += [PB]^T a sin(phi_k)

(the phase summed in order, so the same bits however the run is cut). No random draw.

More orders of the same engine (``imu.vibration.engine_orders``: ``[{"order": n_j,
"accel_mps2": a_j}, ...]``; a 4-cylinder four-stroke shows its 2nd and 4th orders, a diesel
also its half orders): each is the order above with its own n_j and a_j, its phase summed
from 0 on its own, at the one engine speed rpm_k::

    f^b_k += [PB]^T sum_j a_j sin(phi_j,k),   phi_j,k = phi_j,k-1 + 2 pi n_j rpm_k / 60 h

added after ``engine_order``'s (which stays as it is: a configuration without the list gives
the same bits as before it). Ruling: every order starts at phase 0 at t = 0 (the orders of
one crankshaft are locked to it; the phase between them is the engine's, which no key
gives).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from navsense.constants import GRAVITY_MPS2
from navsense.rng import Pcg32

__all__ = [
    "SineVibration",
    "RandomVibration",
    "EngineVibration",
    "engine_vibrations",
    "ImuVibration",
    "VIBRATION_SEED_OFFSET",
    "VIBRATION_SEQUENCE",
]

VIBRATION_SEED_OFFSET = 1013  # navsense: the random vibration's stream Pcg32(seed + 1013, 21)
VIBRATION_SEQUENCE = 21


class SineVibration:
    """The sines of ``imu.vibration.sines`` (typed: ``(hz, accel xyz, gyro xyz)`` tuples) in the
    IMU's axes, ``axes`` the IMU-axes-from-FLU matrix ([PB]; identity for the ACRES IMU)."""

    def __init__(self, sines, axes: np.ndarray | None = None) -> None:
        self.hz = np.array([s[0] for s in sines], dtype=np.float64)
        amp = np.array([[s[1], s[2]] for s in sines], dtype=np.float64).reshape(-1, 2, 3)
        if axes is not None:  # into body FLU: x_FLU = [PB]^T x_IMU
            amp = amp @ np.asarray(axes, dtype=np.float64)
        self.amp = amp  # (m, 2, 3): accelerometer and gyro rows

    def add(self, t_s: np.ndarray, fw: np.ndarray) -> None:
        """Add the vibration at the steps' times ``t_s`` (n,) to ``fw`` (n, 2, 3) in place."""
        if self.hz.size == 0 or t_s.size == 0:
            return
        s = np.sin(2.0 * np.pi * np.outer(t_s, self.hz))  # (n, m)
        fw += np.einsum("nm,mij->nij", s, self.amp)


class RandomVibration:
    """Band-limited random vibration of the specific force (module docstring): ``psd`` S on the
    IMU's x, y, z (g^2/Hz), ``band`` (f_lo, f_hi) Hz, ``axes`` as :class:`SineVibration`."""

    def __init__(
        self, psd, band, seed: int, axes: np.ndarray | None = None, rms=(0.0, 0.0, 0.0)
    ) -> None:
        self.psd = np.asarray(psd, dtype=np.float64)
        self.rms = np.asarray(rms, dtype=np.float64)
        self.band = (float(band[0]), float(band[1]))
        self.axes = np.eye(3) if axes is None else np.asarray(axes, dtype=np.float64)
        self._rng = Pcg32(int(seed) + VIBRATION_SEED_OFFSET, VIBRATION_SEQUENCE)
        self._filter: Any = None  # (b, a) at the physics rate, on the first chunk
        self._state: Any = None  # the band-pass's state (4, 3)

    def add(self, t_s: np.ndarray, fw: np.ndarray, rate_hz: float) -> None:
        """Add the vibration of the steps ``t_s`` (n,) to ``fw``'s specific force in place."""
        n = t_s.size
        if n == 0:
            return
        from scipy.signal import butter, lfilter

        if self._filter is None:
            self._filter = butter(2, self.band, btype="bandpass", fs=rate_hz)
            self._state = np.zeros((4, 3))
        b, a = self._filter
        if self.rms.any():  # the RMS over the band (module docstring)
            sigma = self.rms * GRAVITY_MPS2 / np.sqrt(_impulse_energy(b, a))
        else:
            sigma = np.sqrt(self.psd * GRAVITY_MPS2**2 * rate_hz / 2.0)
        x = self._rng.gaussians(3 * n).reshape(n, 3) * sigma
        y, self._state = lfilter(b, a, x, axis=0, zi=self._state)
        fw[:, 0] += y @ self.axes  # IMU axes -> FLU: [PB]^T x


def _impulse_energy(b, a) -> float:
    """sum_n h_n^2 of the stable IIR filter (b, a): its impulse response summed until its
    slowest pole has decayed by e^-36 (an energy tail below 1e-31 of the sum)."""
    from scipy.signal import lfilter

    radius = float(np.max(np.abs(np.roots(a))))
    n = int(min(20_000_000, np.ceil(36.0 / -np.log(radius)))) + len(b)
    impulse = np.zeros(n)
    impulse[0] = 1.0
    h = lfilter(b, a, impulse)
    return float(np.dot(h, h))


class EngineVibration:
    """One order of an engine whose speed follows the vehicle's (module docstring)."""

    def __init__(self, idle_rpm, rpm_per_mps, order, accel, axes: np.ndarray | None = None):
        self.idle_rpm, self.rpm_per_mps, self.order = float(idle_rpm), float(rpm_per_mps), order
        amp = np.asarray(accel, dtype=np.float64)
        self.amp = amp if axes is None else amp @ np.asarray(axes, dtype=np.float64)
        self.phase = 0.0  # phi of the last step, rad

    def add(self, v_mps: np.ndarray, fw: np.ndarray, rate_hz: float) -> None:
        """Add the order at the steps of chassis velocity ``v_mps`` (n, 3) to ``fw``."""
        if v_mps.shape[0] == 0:
            return
        rpm = self.idle_rpm + self.rpm_per_mps * np.hypot(v_mps[:, 0], v_mps[:, 1])
        step = 2.0 * np.pi * self.order * rpm / 60.0 / rate_hz
        phase = np.add.accumulate(np.concatenate([[self.phase], step]))[1:]
        self.phase = float(phase[-1])
        fw[:, 0] += np.sin(phase)[:, None] * self.amp


def engine_vibrations(c, axes: np.ndarray | None = None) -> list[EngineVibration]:
    """The engine's orders of an IMU's vibration ``c`` (typed: ``engine_*``): that of
    ``engine_order`` first, then those of ``engine_orders``, each with a non-zero amplitude;
    none when the engine does not turn (idle and rpm per m/s both 0)."""
    if not (c.engine_idle_rpm or c.engine_rpm_per_mps):
        return []
    orders = [(c.engine_order, c.engine_accel_mps2), *c.engine_orders]
    return [
        EngineVibration(c.engine_idle_rpm, c.engine_rpm_per_mps, n, amp, axes)
        for n, amp in orders
        if any(amp)
    ]


class ImuVibration:
    """All of an IMU's ``imu.vibration`` (typed: navsense.config.typed.vibration.VibrationConfig)
    in the order both IMUs add it to the IMU point's specific force and rate: the sines, the
    random vibration (its stream from ``seed``), then the engine's orders; ``axes`` as
    :class:`SineVibration`. ``active``: any of them is set (a run without vibration skips it)."""

    def __init__(self, v, seed: int, axes: np.ndarray | None = None) -> None:
        self.sines = SineVibration(v.sines, axes) if v.sines else None
        self.random = (
            RandomVibration(v.random_psd_g2_per_hz, v.random_band_hz, seed, axes, v.random_rms_g)
            if any(v.random_psd_g2_per_hz) or any(v.random_rms_g)
            else None
        )
        self.engines = engine_vibrations(v, axes)
        self.active = bool(self.sines or self.random or self.engines)

    def add(self, truth, fw: np.ndarray) -> None:
        """Add the vibration of the physics steps of ``truth`` (TruthStates) to ``fw`` (n, 2, 3),
        in place."""
        if self.sines is not None:
            self.sines.add(truth.t_s, fw)
        if self.random is not None:
            self.random.add(truth.t_s, fw, truth.rate_hz)
        for engine in self.engines:
            engine.add(truth.v_mps, fw, truth.rate_hz)
