"""The wheel odometer: forward speed of the rear axle and distance travelled (``odom.jsonl``).

A navsense extension (issue 7): the specification has no odometer.

Measurement equation, at each sample k::

    p_f,k = p_k + R_k r_f                              middle of the rear axle (base_footprint)
    v_f,k = v_k + w_k x (p_f,k - p_c,k)                its velocity, world axes
    u_k   = (R_k^T v_f,k) . (1, 0, 0)                  its forward (body x) speed, m/s
    m_k   = (1 + eps) u_k + sigma_v g_k                the wheel speed with its errors
    s_k   = sgn(u_k) max(0, sgn(u_k) m_k)              speed_mps (sgn(0) = 0)
    d_k   = d_k-1 + s_k (t_k - t_k-1),  d_0 = 0        distance_m (the first sample: t_0 - t_-1 = 0)

where

    p, R       chassis origin (grid ENU, m) and rotation body FLU -> ENU
    v, w, p_c  centre-of-mass velocity (m/s), angular velocity (rad/s), centre of mass
    r_f        base_footprint in chassis FLU: (-0.4 wheelbase, 0, -cg_height) of the vehicle
               (DESIGN.md ruling "Mounts"; the rear axle is where a wheel-speed sensor on the
               driven axle measures, and where the vehicle's lateral velocity is zero in a turn)
    eps        the scale-factor error (tyre radius, wear, pressure): eps = sigma_s g_0, drawn once
               at the start; sigma_s = odom.scale_factor_sigma (dimensionless, 0.01 = 1 %)
    sigma_v    odom.noise_std_mps;  g standard normal values

A wheel measures its own rotation, so noise never turns it (navsense's ruling, issue 18): the
reading has the sign of the true motion (the direction a quadrature encoder's phase gives) and is
clamped at 0 where noise would reverse it, and a standing wheel (u_k = 0: a parked vehicle, whose
truth velocity and rate are zero) reads exactly 0, as a real encoder does.

The distance is the signed integral of the measured speed (reversing decreases it), rectangle
rule over each sample interval, accumulated by sequential addition (batch = chunks = steps).
A reset (teleport) moves no wheel: the distance carries on.

Encoder ticks (odom.encoder_tick_m > 0; 0, the default, is off): the wheel counts whole ticks of
``tick`` metres. Then N_k = floor(d_k / tick), distance_m = N_k tick and speed_mps =
(N_k - N_k-1) tick / (t_k - t_k-1), the tick-count speed over the last sample interval (0 at the
first sample, which has no interval).

Random values: the stream Pcg32(seed + 9013, 14) (a sequence no specification stream uses): one
Gaussian at the start (g_0), then one a sample. With cfg["noise"] False, eps = 0 and sigma_v = 0
(the ticks stay: they are the sensor's resolution, not an error) and the same values are drawn.

Outputs: ``speed_mps`` and ``distance_m``, (m,) each; the rows of ``odom.jsonl`` are
``navsense.output.layouts.odom``'s.
"""

from __future__ import annotations

import numpy as np

from navsense.clock import Due
from navsense.config.typed.odom import OdomConfig
from navsense.rng import Pcg32
from navsense.rotation import cross, quat_to_matrix, rotate, rotate_inverse
from navsense.truth.states import TruthStates
from navsense.vehicles import VehicleProfile

__all__ = ["build_model", "OdometerModel", "ODOM_SEED_OFFSET", "ODOM_SEQUENCE"]

ODOM_SEED_OFFSET = 9013  # navsense: odometer stream seed + 9013 (no specification stream)
ODOM_SEQUENCE = 14  # navsense: sequence 14 (the specification uses 1, 2, 4, 6)


class OdometerModel:
    """``OdometerModel(config, vehicle)``: the rear-axle wheel odometer over consecutive chunks."""

    name = "odom"

    def __init__(self, config: OdomConfig, vehicle: VehicleProfile) -> None:
        self.config = c = config
        self.axle_in_chassis_m = vehicle.footprint_in_chassis_m
        self._rng = Pcg32(c.seed + ODOM_SEED_OFFSET, ODOM_SEQUENCE)
        g0 = float(self._rng.gaussians(1)[0])  # the scale factor, drawn once at the start
        self.scale_factor_error = (c.scale_factor_sigma * g0) if c.noise else 0.0
        self._sigma_v = c.noise_std_mps if c.noise else 0.0
        self._due = Due(c.hz, start_s=None)
        self._t_prev: float | None = None
        self._distance_m = 0.0  # d at the previous sample (unquantised)
        self._ticks = 0.0  # N at the previous sample

    def axle_speed_mps(self, truth: TruthStates, rows: np.ndarray) -> np.ndarray:
        """Truth forward speed u (m/s) of the rear axle at the steps ``rows``."""
        r = quat_to_matrix(truth.q_xyzw[rows])
        m = rows.size
        p_f = truth.p_m[rows] + rotate(r, np.broadcast_to(self.axle_in_chassis_m, (m, 3)))
        v_f = truth.v_mps[rows] + cross(truth.w_radps[rows], p_f - truth.c_m[rows])
        return rotate_inverse(r, v_f)[:, 0]

    def process(self, truth: TruthStates) -> dict:
        """The odometer samples in this chunk of physics steps."""
        if len(truth) == 0:
            return _empty_block()
        rows = self._due.sample_indices(truth.t_s)
        m = rows.size
        if m == 0:
            return _empty_block()
        g = self._rng.gaussians(m)
        t = truth.t_s[rows]
        u = self.axle_speed_mps(truth, rows)
        speed = (1.0 + self.scale_factor_error) * u + self._sigma_v * g
        direction = np.sign(u)  # a standing wheel (u = 0) reads 0; noise never reverses it
        speed = direction * np.maximum(direction * speed, 0.0)

        t_before = np.empty(m)
        t_before[1:] = t[:-1]
        t_before[0] = t[0] if self._t_prev is None else self._t_prev
        dt = t - t_before
        # d_k = d_k-1 + s_k dt_k, added in order (np.add.accumulate is sequential)
        distance = np.add.accumulate(np.concatenate([[self._distance_m], speed * dt]))[1:]
        self._distance_m = float(distance[-1])
        self._t_prev = float(t[-1])

        tick = self.config.encoder_tick_m
        if tick > 0.0:
            ticks = np.floor(distance / tick)
            before = np.empty(m)
            before[1:] = ticks[:-1]
            before[0] = self._ticks
            self._ticks = float(ticks[-1])
            safe_dt = np.where(dt > 0.0, dt, 1.0)
            speed = np.where(dt > 0.0, (ticks - before) * tick / safe_dt, 0.0)
            distance = ticks * tick
        return {"sample_time_s": t, "speed_mps": speed, "distance_m": distance}

    def output_info(self) -> dict:
        """For the layout (navsense.output.layouts.odom): nothing per run."""
        return {}

    def episode_info(self) -> dict:
        """``odom_scale_factor_error``: the constant eps (dimensionless)."""
        return {"odom_scale_factor_error": self.scale_factor_error}


def _empty_block() -> dict:
    z = np.zeros(0)
    return {"sample_time_s": z, "speed_mps": z.copy(), "distance_m": z.copy()}


def build_model(context) -> OdometerModel:
    """The wheel odometer of a run (navsense.suite.SENSORS["odom"]; ``context`` a
    navsense.suite.ModelContext)."""
    return OdometerModel(OdomConfig.from_validated(context.cfg), context.vehicle)
