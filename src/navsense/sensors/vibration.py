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
"""

from __future__ import annotations

import numpy as np

__all__ = ["SineVibration"]


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
