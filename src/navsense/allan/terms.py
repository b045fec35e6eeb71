"""The Allan-variance terms a run's recorded IMU configuration implies.

Each IMU error process has a known Allan variance AVAR(tau) (IEEE Std 952-1997 Annex C, Table
C.2; IEEE Std 1293-2018 Annex C for the Gauss-Markov process), for an averaging time tau::

    white rate noise (ARW / VRW), density N      N^2 / tau            slope -1/2, N = sigma(1 s)
    bias instability (flicker), coefficient B     B^2 2 ln 2 / pi      flat: sigma = 0.664 B
    rate random walk, density K                   K^2 tau / 3          slope +1/2, K = sigma(3 s)
    quantisation, Q                               3 Q^2 / tau^2        slope -1
    first-order Gauss-Markov, sigma B, time Tc    B^2 h(tau / Tc),
        h(x) = (2 / x) (1 - (3 - 4 e^-x + e^-2x) / (2 x))           peak 0.618 B at tau = 1.89 Tc

The configurable IMU (navsense.sensors.configurable_imu) models ``bias_instability`` as the
stationary sigma of a first-order Gauss-Markov process of time ``bias_instability_tau_s``, not
as flicker noise: its Allan deviation has a hump, not the flat floor of IEEE 952, so the reading
"minimum / 0.664" of a run does not return B exactly. ``navsense allan`` reads the configured
curve as it reads the run's (its ``expected`` column) beside the configured B.

Quantisation (the configurable IMU's ``lsb``): without ``carry_error`` each sample is rounded
on its own, an added white noise of variance LSB^2 / 12 (density LSB / sqrt(12 hz)); with
``carry_error`` the rounding error is carried to the next sample, so the integrated angle's
error stays bounded: quantisation noise with Q = LSB dt / sqrt(12). Both assume the noise spans
several LSB (true of the presets). The ACRES IMU (specification, "IMU") adds white noise of
standard deviation ``gyro_std_radps`` / ``accel_std_mps2`` per sample: N = sigma / sqrt(hz); its
bias is a constant, which the Allan deviation does not see.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "FLICKER_FLOOR",
    "SensorTerms",
    "configured_terms",
    "gauss_markov_avar",
]

#: sigma / B on the flat part of flicker (bias instability) noise: sqrt(2 ln 2 / pi), IEEE Std
#: 952-1997 Annex C (C.1.4)
FLICKER_FLOOR = math.sqrt(2.0 * math.log(2.0) / math.pi)


@dataclass(frozen=True)
class SensorTerms:
    """One triad's configured error terms, per axis (3-vectors, SI units of its sensor).

    ``white``: rate-noise density N (rad/s/sqrt(Hz) = rad/sqrt(s), or m/s^2/sqrt(Hz));
    ``bias_instability``: B (rad/s or m/s^2) of a Gauss-Markov process of time ``tau_s``
    (0: none); ``random_walk``: K (x/s/sqrt(Hz)); ``quant_white``: the white density of
    rounding without carry; ``quant_q``: Q of rounding with carry (x s).
    """

    white: np.ndarray
    bias_instability: np.ndarray
    tau_s: float
    random_walk: np.ndarray
    quant_white: np.ndarray
    quant_q: np.ndarray

    def avar(self, tau: np.ndarray) -> np.ndarray:
        """The Allan variance of the sum of the terms, (len(tau), 3) (module docstring)."""
        t = np.asarray(tau, dtype=np.float64)[:, None]
        out = (self.white**2 + self.quant_white**2) / t + self.random_walk**2 * t / 3.0
        out = out + 3.0 * self.quant_q**2 / t**2
        if np.any(self.bias_instability > 0.0):
            out = out + self.bias_instability**2 * gauss_markov_avar(t / self.tau_s)
        return out


def gauss_markov_avar(x: np.ndarray) -> np.ndarray:
    """h(x), the Allan variance of a first-order Gauss-Markov process of unit variance at
    tau = x Tc (IEEE Std 1293-2018 Annex C; module docstring)."""
    x = np.asarray(x, dtype=np.float64)
    return (2.0 / x) * (1.0 - (3.0 - 4.0 * np.exp(-x) + np.exp(-2.0 * x)) / (2.0 * x))


def configured_terms(cfg: Mapping[str, Any]) -> dict[str, SensorTerms]:
    """``{"gyro": ..., "accel": ...}``: the terms of the IMU of a run's recorded (completed and
    validated) configuration (episode.json ``config``); all zero with ``noise`` false."""
    from navsense.config.typed.configurable_imu import ConfigurableImuConfig
    from navsense.config.typed.imu import ImuConfig

    zero = np.zeros(3)
    on = 1.0 if cfg["noise"] else 0.0
    if cfg["imu"]["model"] != "configurable":
        c = ImuConfig.from_validated(cfg)
        root_rate = math.sqrt(c.hz)
        std = {"gyro": c.gyro_std_radps, "accel": c.accel_std_mps2}
        return {
            s: SensorTerms(np.full(3, on * v / root_rate), zero, 1.0, zero, zero, zero)
            for s, v in std.items()
        }
    cc = ConfigurableImuConfig.from_validated(cfg)
    out = {}
    for s, p in (("gyro", cc.gyro), ("accel", cc.accel)):
        lsb = on * p.lsb / math.sqrt(12.0)
        carry = p.carry_error
        out[s] = SensorTerms(
            white=on * p.noise_density,
            bias_instability=on * p.bias_instability,
            tau_s=float(p.bias_instability_tau_s),
            random_walk=on * p.random_walk,
            quant_white=np.full(3, 0.0 if carry else lsb / math.sqrt(cc.hz)),
            quant_q=np.full(3, lsb / cc.hz if carry else 0.0),
        )
    return out
