"""Heading (and pitch) from two antennas: a moving-base / dual-antenna receiver (navsense
extension, issue 29 item 4; gnss.heading, off by default).

The receiver's second antenna sits at the lever arm r_2 (gnss.heading.antenna2_flu_m in
``mount_frame`` axes, as the first antenna's gnss.antenna_flu_m; null: gnss.heading.baseline_m
straight ahead of the first, r_2 = r_a + (L, 0, 0)). Both are moved to the chassis origin as the
first antenna is (:func:`navsense.vehicles.lever_arm_from_chassis`), so the baseline from the
first antenna to the second is, at each epoch,

    b = R (r_2 - r_a)                                   grid ENU, m (R: FLU -> ENU of q)
    psi   = atan2(b_e, b_n) + alpha_n   mod 360 deg     true heading of the baseline
    theta = atan2(b_u, sqrt(b_e^2 + b_n^2))             its pitch, positive when the second
                                                        antenna is the higher

alpha_n the true azimuth of the site's grid north (the receiver's course uses the same,
:func:`navsense.sensors.gnss.velocity.grid_north_azimuth_deg`). The heading is the baseline's,
as a moving-base receiver reports it (u-blox UBX-NAV-RELPOSNED relPosHeading, the vector from
the moving base to the rover); it is the vehicle's heading when the second antenna is straight
ahead of the first (the default), else the vehicle's plus the baseline's mounting azimuth.

Reported, with the epoch's two standard Gaussians g_1, g_2 (in every epoch and state)::

    sigma_psi   = k s_1 (1 m / L_h)                      L_h = sqrt(b_e^2 + b_n^2)
    sigma_theta = k s_1 rho (1 m / L)                    L = |b|
    heading_deg = psi + sigma_psi g_1   mod 360,  pitch_deg = theta + sigma_theta g_2

- s_1 = gnss.heading.sigma_deg_at_1m, default 0.4 deg: u-blox's moving-base heading accuracy
  for a 1 m baseline (ZED-F9H, the figure the issue quotes; the u-blox data sheet itself was not
  opened here). Its 1 / L is the geometry of an interferometer: the relative position error
  across the baseline (0.4 deg x 1 m = 7 mm, an RTK fixed baseline's precision) over its length
  (Spectra SP90m manual: "Accuracy has a linear relationship to baseline length"; Septentrio,
  "Attitude Determination": the accuracy "depends mainly upon the baseline").
- rho = gnss.heading.pitch_sigma_ratio, default 2: "Heading accuracy will be about a factor of
  2 better than pitch or roll accuracy" (Spectra SP90m manual; Septentrio PolaRx2: 0.3 deg
  heading, 0.5 deg pitch at 1 m, a ratio of 1.7).
- k, the fix state's factor: 1 in RTK fixed. In every other state there is no heading (NaN):
  the heading needs the carrier ambiguities fixed ("To provide accurate heading information RTK
  fixed mode should be kept", u-blox ZED-F9H integration manual, "MB rover operation"). With
  gnss.heading.rtk_float true a heading is also given in RTK float, with k the ratio of the
  float and fixed states' horizontal sigmas (gnss.states.rtk_float.sigma_h_m /
  rtk_fixed.sigma_h_m: 12.5 with the specification's table, 5 deg at 1 m): navsense's ruling,
  the baseline's error grows as the position's does.

Rulings: the heading's state is the receiver's fix state (the moving-base link of a real
receiver has its own, and keeps its heading through an outage of the base station's
corrections; navsense ties both to the one sky and multipath that drive the receiver's state).
The error is white from epoch to epoch (no data sheet gives its correlation time). With noise
off sigma_psi and sigma_theta are 0 and the truth is reported; the draws go on.

Random values: the stream Pcg32(seed + 4051, 20) (a sequence no other stream uses), two
Gaussians an epoch, drawn only with the heading on: no earlier stream moves (specification,
"Seeds and Determinism": a model draws the same number of values in every epoch and state).
"""

from __future__ import annotations

import numpy as np

from navsense.config.typed.gnss import ErrorConfig, HeadingConfig
from navsense.rng import Pcg32
from navsense.rotation import quat_to_matrix, rotate
from navsense.sensors.gnss.fixstate import FIX_TYPES
from navsense.sensors.gnss.signal import SIGNAL_SEED_OFFSET
from navsense.vehicles import VehicleProfile, lever_arm_from_chassis

__all__ = ["HeadingModel", "HEADING_SEQUENCE", "HEADING_KEYS"]

HEADING_SEQUENCE = 20  # navsense: stream Pcg32(seed + 4051, 20) (no other stream)
#: the block's keys of the heading (each (m,)), in the row's order
HEADING_KEYS = ("heading_deg", "heading_sigma_deg", "pitch_deg", "pitch_sigma_deg")
_CODE = {name: code for code, name in FIX_TYPES.items()}


class HeadingModel:
    """``HeadingModel(config, errors, antenna_flu_m, mount_frame, vehicle, seed, noise,
    grid_north_deg)``: :meth:`headings` of each block of epochs in order (the stream carries
    on)."""

    def __init__(
        self,
        config: HeadingConfig,
        errors: ErrorConfig,
        antenna_flu_m,
        mount_frame: str,
        vehicle: VehicleProfile,
        seed: int,
        noise: bool,
        grid_north_deg: float,
    ) -> None:
        r_a = lever_arm_from_chassis(antenna_flu_m, mount_frame, vehicle)
        r_2 = lever_arm_from_chassis(
            config.second_antenna_flu_m(antenna_flu_m), mount_frame, vehicle
        )
        self.baseline_flu_m = r_2 - r_a
        self._rng = Pcg32(int(seed) + SIGNAL_SEED_OFFSET, HEADING_SEQUENCE)
        self._s1 = config.sigma_deg_at_1m if noise else 0.0
        self._rho = config.pitch_sigma_ratio
        float_k = errors.rtk_float.sigma_h_m / errors.rtk_fixed.sigma_h_m
        # the fix state's factor k by state code (NaN: no heading)
        self._k = np.full(max(FIX_TYPES) + 1, np.nan)
        self._k[_CODE["rtk_fixed"]] = 1.0
        if config.rtk_float:
            self._k[_CODE["rtk_float"]] = float_k
        self._grid_north = float(grid_north_deg)

    def truth(self, q_xyzw) -> dict[str, np.ndarray]:
        """The baseline b (m, 3) grid ENU of the attitudes ``q_xyzw`` (m, 4), its true heading
        psi and pitch theta (deg), horizontal length L_h and length L (m)."""
        b = rotate(quat_to_matrix(np.asarray(q_xyzw, dtype=np.float64)), self.baseline_flu_m)
        b = b.reshape(-1, 3)
        horizontal = np.hypot(b[:, 0], b[:, 1])
        psi = (np.degrees(np.arctan2(b[:, 0], b[:, 1])) + self._grid_north) % 360.0
        return {
            "baseline_enu_m": b,
            "heading_truth_deg": psi,
            "pitch_truth_deg": np.degrees(np.arctan2(b[:, 2], horizontal)),
            "baseline_horizontal_m": horizontal,
            "baseline_length_m": np.sqrt(horizontal * horizontal + b[:, 2] * b[:, 2]),
        }

    def headings(self, q_xyzw, fix) -> dict[str, np.ndarray]:
        """The block's keys of :data:`HEADING_KEYS` (NaN where the state gives no heading) and
        the truth (:meth:`truth`) at the epochs' attitudes ``q_xyzw`` (m, 4) and fix-state
        codes ``fix`` (m,). Draws 2 Gaussians an epoch."""
        t = self.truth(q_xyzw)
        m = t["baseline_enu_m"].shape[0]
        g = self._rng.gaussians(2 * m).reshape(m, 2)
        k = self._k[np.asarray(fix, dtype=np.int64)]
        sigma_psi = k * (self._s1 / t["baseline_horizontal_m"])
        sigma_theta = k * (self._s1 * self._rho / t["baseline_length_m"])
        heading = (t["heading_truth_deg"] + sigma_psi * g[:, 0]) % 360.0
        return {
            "heading_deg": heading,
            "heading_sigma_deg": sigma_psi,
            "pitch_deg": t["pitch_truth_deg"] + sigma_theta * g[:, 1],
            "pitch_sigma_deg": sigma_theta,
            **t,
        }
