"""The receiver's velocity, speed over ground and course (navsense extension, issue 20).

The specification's receiver reports a position only; NMEA RMC and VTG carry the speed over
ground and the course. A receiver measures its velocity from the satellites' Doppler shifts, not
by differencing its positions (at 10 Hz the white position noise alone would give sqrt(2)
sigma_w / dt, 4 m/s in single), so the model is the truth velocity of the antenna plus a Doppler
error mapped by the geometry of the satellites used::

    v_a   = v + w x (p_a - c)                                 antenna velocity, grid ENU
    v_out = v_a + sigma_v g,   sigma_v = s_rr (H / sqrt 2, H / sqrt 2, V)
    speed = sqrt(v_e^2 + v_n^2)                               of v_out, m/s
    course = atan2(v_e, v_n) + alpha_n   mod 360 deg           true course

where v is the centre-of-mass velocity, w the angular velocity (world axes), c the centre of
mass and p_a the antenna position (:func:`navsense.sky.obstruction.antenna_position_enu`), H and
V the epoch's HDOP and VDOP of the satellites used (:mod:`.dop`; H^2 = G_ee + G_nn, shared
equally by east and north as in the error model), s_rr = 0.05 m/s the range-rate error (of the
order of a u-blox ZED-F9P's velocity accuracy, 0.05 m/s), g three standard Gaussians (east,
north, up) an epoch, and alpha_n the true azimuth of the grid north at the site's origin
(:func:`grid_north_azimuth_deg`: 0 on a local tangent site; on the ACRE tile the convergence of
EPSG:2968 there). With noise off sigma_v is zero (the draws go on). The velocity is computed in
every fix state; the layout leaves it out of the no-fix sentences.

Random values: the stream Pcg32(seed + 4051, 17) (a sequence no other stream uses): three
Gaussians an epoch, in every state.
"""

from __future__ import annotations

import math

import numpy as np

from navsense.geo.ellipsoid import geodetic_to_ecef
from navsense.kernels import kernel
from navsense.rng import Pcg32
from navsense.rotation import cross
from navsense.sensors.gnss.signal import SIGNAL_SEED_OFFSET
from navsense.sky.constellation import ecef_to_enu_matrix

__all__ = [
    "VelocityModel",
    "VELOCITY_SEQUENCE",
    "RANGE_RATE_SIGMA_MPS",
    "antenna_velocity_enu",
    "grid_north_azimuth_deg",
]

VELOCITY_SEQUENCE = 17  # navsense: stream Pcg32(seed + 4051, 17) (no specification stream)
RANGE_RATE_SIGMA_MPS = 0.05  # m/s, s_rr: the receiver's range-rate (Doppler) error
_GRID_NORTH_STEP_M = 10.0  # m, the second point of grid_north_azimuth_deg
_HALF_SQRT2 = math.sqrt(0.5)


def antenna_velocity_enu(v_mps, w_radps, antenna_enu_m, c_m) -> np.ndarray:
    """v_a = v + w x (p_a - c) (rigid body), (m, 3) grid ENU, m/s."""
    v = np.asarray(v_mps, dtype=np.float64)
    w = np.asarray(w_radps, dtype=np.float64)
    p_a = np.asarray(antenna_enu_m, dtype=np.float64)
    c = np.asarray(c_m, dtype=np.float64)
    if v.ndim == 2 and v.shape[1] == 3 and v.shape == w.shape == p_a.shape == c.shape:
        out = np.empty(v.shape)
        rows = (np.ascontiguousarray(a) for a in (v, w, p_a, c))
        _velocity_rows(*rows, out)
        return out
    return v + cross(w, p_a - c)


@kernel(1, 1, 2, 2, 1, 2, 2)
def _velocity_sigmas(hdop, vdop, v_a, g, scales, sigma, v):
    """The velocity's error on rows (module docstring): sigma = (H s_rr / sqrt 2, the same,
    V s_rr) with scales = (s_rr sqrt(1/2), s_rr), and v = v_a + sigma g, (m, 3) each."""
    h = hdop * scales[0]
    sigma[:, 0] = h
    sigma[:, 1] = h
    sigma[:, 2] = vdop * scales[1]
    v[:] = v_a + sigma * g


@kernel(2, 2, 2, 2, 2)
def _velocity_rows(v, w, p_a, c, out):
    """antenna_velocity_enu on rows (n, 3): out = v + w x (p_a - c), the cross product
    written out as navsense.rotation's cross (the same operations in the same order)."""
    a0, a1, a2 = p_a[:, 0] - c[:, 0], p_a[:, 1] - c[:, 1], p_a[:, 2] - c[:, 2]
    w0, w1, w2 = w[:, 0], w[:, 1], w[:, 2]
    out[:, 0] = v[:, 0] + (w1 * a2 - w2 * a1)
    out[:, 1] = v[:, 1] + (w2 * a0 - w0 * a2)
    out[:, 2] = v[:, 2] + (w0 * a1 - w1 * a0)


def grid_north_azimuth_deg(georef) -> float:
    """alpha_n: the true azimuth (deg, clockwise from true north) of the site's grid north at
    its origin, at t = 0.

    The origin and the point 10 m grid north of it through the datum chain to WGS84 (G2139),
    both to ECEF, their difference in the local ENU axes of the origin (rows of
    :func:`navsense.sky.constellation.ecef_to_enu_matrix`): alpha_n = atan2(d_e, d_n). 0 without
    a georeference.
    """
    if georef is None:
        return 0.0
    geo = georef.enu_to_geodetic(np.array([[0.0, 0.0, 0.0], [0.0, _GRID_NORTH_STEP_M, 0.0]]), 0.0)
    lat, lon, h = geo["wgs84_lat_deg"], geo["wgs84_lon_deg"], geo["wgs84_height_m"]
    x, y, z = geodetic_to_ecef(lat, lon, h)
    d = np.array([x[1] - x[0], y[1] - y[0], z[1] - z[0]])
    d_e, d_n, _ = ecef_to_enu_matrix(float(lat[0]), float(lon[0])) @ d
    return float(np.degrees(np.arctan2(d_e, d_n)))


class VelocityModel:
    """``VelocityModel(seed, noise, georef)``: :meth:`velocities` of each block of epochs in
    order (the stream carries on)."""

    def __init__(self, seed: int, noise: bool, georef) -> None:
        self._rng = Pcg32(int(seed) + SIGNAL_SEED_OFFSET, VELOCITY_SEQUENCE)
        self._scale = RANGE_RATE_SIGMA_MPS if noise else 0.0
        self._scales = np.array([self._scale * _HALF_SQRT2, self._scale])  # horizontal, vertical
        self.grid_north_azimuth_deg = grid_north_azimuth_deg(georef)

    def velocities(self, antenna_velocity_mps, hdop, vdop) -> dict[str, np.ndarray]:
        """``velocity_enu_mps`` v_out and ``sigma_velocity_enu_mps`` sigma_v (m, 3),
        ``speed_mps`` and ``course_deg`` (m,) of the antenna velocities v_a (m, 3) and the
        epochs' DOPs. Draws 3 Gaussians an epoch."""
        v_a = np.asarray(antenna_velocity_mps, dtype=np.float64)
        m = v_a.shape[0]
        if m == 1:  # one epoch (streaming): the values of gaussians(3), a view of the block
            g = self._rng.gaussians_view(3).reshape(1, 3)
        else:
            g = self._rng.gaussians(3 * m).reshape(m, 3)
        sigma, v = np.empty((m, 3)), np.empty((m, 3))
        f64 = np.float64
        dops = (np.ascontiguousarray(x, dtype=f64) for x in (hdop, vdop))
        _velocity_sigmas(*dops, np.ascontiguousarray(v_a), g, self._scales, sigma, v)
        course = np.degrees(np.arctan2(v[:, 0], v[:, 1])) + self.grid_north_azimuth_deg
        course %= 360.0
        return {
            "antenna_velocity_enu_mps": v_a,
            "velocity_enu_mps": v,
            "sigma_velocity_enu_mps": sigma,
            "speed_mps": np.hypot(v[:, 0], v[:, 1]),
            "course_deg": course,
        }
