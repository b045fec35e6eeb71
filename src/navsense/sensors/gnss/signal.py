"""The satellites in view and their carrier-to-noise density C/N0 (navsense extension, issue 20).

The specification's receiver counts satellites; a receiver's NMEA reports each one (GSV: PRN,
elevation, azimuth, C/N0; GSA: the PRNs used). This module gives the receiver those
per-satellite values so that they agree with its sky view (:mod:`navsense.sky.obstruction`):
a satellite the sky view blocks has no signal, one seen through foliage a weaker one.

Geometry, from the unit line of sight l = (l_e, l_n, l_u) of the constellation (computed in the
local ENU of the site's WGS84 origin, :mod:`navsense.sky.constellation`, so its north is true
north)::

    elevation = asin(l_u),   azimuth = atan2(l_e, l_n) mod 360 deg

C/N0 of a satellite the receiver tracks (status CLEAR, NEAR or FOLIAGE; a link budget)::

    C/N0 = P_s + G(el) - N_0 - F - L_c + sigma_c g,   at least CN0_MIN_DBHZ        [dB-Hz]
    G(el) = G_z - (G_z - G_h) (1 - sin el)                                         [dBic]

where

    P_s       the minimum received power at the ground of the system's open signal, as its
              interface specification states it: GPS L1 C/A -158.5 dBW (IS-GPS-200), Galileo
              E1 -157.0 dBW (Galileo OS SIS ICD), GLONASS L1OF -161.0 dBW (GLONASS ICD),
              BeiDou B1I -163.0 dBW (BeiDou ICD B1I), QZSS L1 C/A -158.5 dBW (IS-QZSS-PNT);
              satellites deliver a few dB more, and receivers lose a few dB to implementation,
              which the model takes as cancelling
    G(el)     the gain of a patch antenna toward the satellite: G_z = +4 dBic at the zenith,
              rolling off linearly in sin(el) to G_h = -6 dBic at the horizon (-4.3 dBic at
              10 deg), the shape of the patch antennas' datasheet patterns
    N_0       the thermal noise density k T_0, T_0 = 290 K: -204.0 dBW/Hz
    F         the receiver's noise figure, 2 dB
    L_c       the mean loss of the sky view's class, sigma_c the spread about it:
              clear     0 dB, 1.0 dB  the epoch-to-epoch scatter of a receiver's C/N0 estimate
              near      3 dB, 2.5 dB  a ray that passes within near_margin_m of an edge: diffraction
                                      loss between 0 dB (well inside the lit region) and 6.0 dB
                                      (grazing incidence, the single knife edge of ITU-R P.526,
                                      J(0) = 6.0 dB), with the fading of the nearby face's
                                      reflection
              foliage  10 dB, 3.0 dB  a path through tree crowns shorter than foliage_block_path_m:
                                      single roadside trees attenuate 10 to 20 dB at UHF and
                                      L-band, median about 12 dB (Goldhirsh and Vogel, Handbook of
                                      Propagation Effects for Vehicular and Personal Mobile
                                      Satellite Systems, 1998, ch. 2); the partial paths of this
                                      class take the lower end
    g         one standard Gaussian for each satellite and epoch

GPS in the clear reads about 47.5 dB-Hz at the zenith and 39 dB-Hz at 10 deg. A tracked
satellite is at least CN0_MIN_DBHZ = 20 dB-Hz (the receiver uses it: it keeps its lock). A
satellite the sky view blocks, one below the mask and one of a system that is off have no
C/N0 (NaN). With noise off sigma_c is zero (the losses stay; the draws go on).

Random values: the stream Pcg32(seed + 4051, 16) (a sequence no other stream uses): one
Gaussian for every satellite of the receiver's sky (the synthetic constellation's three
systems, or every satellite of the tracked systems of a RINEX file; in the sky's order, whatever
is tracked, enabled or written) at every epoch, so the count depends on the
number of epochs alone and no other stream moves.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from navsense.kernels import kernel
from navsense.rng import Pcg32
from navsense.sky import obstruction as _sky

__all__ = [
    "SignalModel",
    "SIGNAL_SEED_OFFSET",
    "CN0_SEQUENCE",
    "CN0_MIN_DBHZ",
    "MIN_RECEIVED_POWER_DBW",
    "CLASS_LOSS_DB",
    "CLASS_SIGMA_DB",
    "azimuth_deg",
]

SIGNAL_SEED_OFFSET = 4051  # navsense: the signal streams' seed + 4051 (no specification stream)
CN0_SEQUENCE = 16  # navsense: sequence 16 (the specification uses 1, 2, 4, 6)

MIN_RECEIVED_POWER_DBW = {  # minimum received power at the ground, dBW
    "gps": -158.5,  # IS-GPS-200, L1 C/A
    "galileo": -157.0,  # Galileo OS SIS ICD, E1 (E1-B + E1-C)
    "glonass": -161.0,  # GLONASS ICD, L1 open signal
    "beidou": -163.0,  # BeiDou ICD B1I (2019, v3.0), section 4.4: MEO/IGSO and GEO, B1I
    "qzss": -158.5,  # IS-QZSS-PNT, L1C/A (the GPS value)
}
ANTENNA_ZENITH_DBIC = 4.0  # dBic, patch antenna gain at the zenith
ANTENNA_HORIZON_DBIC = -6.0  # dBic, at the horizon (linear in sin(el) between)
THERMAL_NOISE_DBW_HZ = -204.0  # dBW/Hz, k T_0 with T_0 = 290 K (-203.98)
NOISE_FIGURE_DB = 2.0  # dB, receiver noise figure
CN0_MIN_DBHZ = 20.0  # dB-Hz, the weakest signal of a satellite the receiver uses
CLASS_LOSS_DB = {_sky.CLEAR: 0.0, _sky.NEAR: 3.0, _sky.FOLIAGE: 10.0}  # L_c, dB
CLASS_SIGMA_DB = {_sky.CLEAR: 1.0, _sky.NEAR: 2.5, _sky.FOLIAGE: 3.0}  # sigma_c, dB


def azimuth_deg(los: np.ndarray) -> np.ndarray:
    """Azimuth atan2(l_e, l_n) in degrees clockwise from north, in [0, 360), (..., 3) -> (...)."""
    los = np.asarray(los, dtype=np.float64)
    rad = np.arctan2(los[..., 0], los[..., 1])
    out = np.empty(rad.shape)
    _degrees_in_circle(rad.reshape(-1), out.reshape(-1))
    return out


# before the kernels that read it: a kernel made while kernels are on compiles at once
_RAD_TO_DEG = 180.0 / np.pi  # np.degrees' factor (it multiplies by this constant)


@kernel(2, 3, 3, 2, 2, 2, 3)
def _cn0_rows(base, los, loss_sigma, g, el_rad, az_rad, out):
    """C/N0, elevation and azimuth of the epochs' satellites (m, nsat; the module docstring):
    base (1, nsat) = P_s - N_0 - F, los (m, nsat, 3) the lines of sight (sin el = l_u),
    loss_sigma (m, nsat, 2) the class's loss L_c and sigma_c (NaN, 0: no signal), g the
    Gaussians (0 where none), el_rad = arcsin(clip(l_u, -1, 1)), az_rad = atan2(l_e, l_n) ->
    out (3, m, nsat) = max(P_s - N_0 - F + G(el) - L_c + sigma_c g, 20 dB-Hz) (NaN without a
    signal), G(el) = G_z - (G_z - G_h) (1 - sin el); the elevation in degrees (np.degrees'
    product: :func:`navsense.sky.constellation.elevation_deg`); the azimuth as
    :func:`_degrees_in_circle` (:func:`azimuth_deg`)."""
    up, loss, sigma = los[:, :, 2], loss_sigma[:, :, 0], loss_sigma[:, :, 1]
    gain = ANTENNA_ZENITH_DBIC - (ANTENNA_ZENITH_DBIC - ANTENNA_HORIZON_DBIC) * (1.0 - up)
    value = np.maximum(base + gain - loss + sigma * g, CN0_MIN_DBHZ)
    out[0] = np.where(np.isfinite(loss), value, np.nan)
    out[1] = el_rad * _RAD_TO_DEG
    az = az_rad * _RAD_TO_DEG
    az = np.where(az < 0.0, az + 360.0, az)
    out[2] = np.where(az >= 360.0, az - 360.0, az)


# np.clip's ufunc itself (as navsense.sky.constellation's elevation_deg calls it)
_clip: Any = getattr(getattr(getattr(np, "_core", None), "umath", None), "clip", None) or np.clip


@kernel(1, 1)
def _degrees_in_circle(rad, out):
    """azimuth_deg after its arctan2, on a row: degrees (np.degrees' product), then
    az + 360 below 0 and az - 360 at 360 or above (-1e-300 + 360 is 360.0)."""
    az = rad * _RAD_TO_DEG
    az = np.where(az < 0.0, az + 360.0, az)
    out[:] = np.where(az >= 360.0, az - 360.0, az)


class SignalModel:
    """The per-satellite values of the receiver's epochs: ``SignalModel(constellation, seed,
    noise)`` (the receiver's sky, navsense.sky.orbits); :meth:`satellites` of each block of
    epochs, in order (the stream carries on)."""

    def __init__(self, constellation, seed: int, noise: bool) -> None:
        self.nsat = constellation.nsat
        self._rng = Pcg32(int(seed) + SIGNAL_SEED_OFFSET, CN0_SEQUENCE)
        self.system = np.asarray(constellation.system_index, dtype=np.int8)
        self.prn = constellation.prn.astype(np.int16)
        power = np.array([MIN_RECEIVED_POWER_DBW[s] for s in constellation.system])
        # P_s - N_0 - F of each satellite; G(el) and the class's loss are added per epoch
        self._base_dbhz = power - THERMAL_NOISE_DBW_HZ - NOISE_FIGURE_DB
        self._base_row = self._base_dbhz.reshape(1, -1)
        loss = np.full(_sky.BLOCKED + 1, np.nan)  # by status code: NaN where no signal
        sigma = np.zeros(_sky.BLOCKED + 1)
        for code in (_sky.CLEAR, _sky.NEAR, _sky.FOLIAGE):
            loss[code] = CLASS_LOSS_DB[code]
            sigma[code] = CLASS_SIGMA_DB[code] if noise else 0.0
        self._loss_sigma_db = np.stack([loss, sigma], axis=-1)  # L_c, sigma_c by status code
        self._tracked = np.isfinite(loss)  # by status code: the receiver has a signal
        # sat_prn and sat_system of one epoch (read-only views, made on the first)
        self._one_epoch: tuple[np.ndarray, np.ndarray] | None = None

    def satellites(
        self, los: np.ndarray, status: np.ndarray, used: np.ndarray | None = None
    ) -> dict[str, np.ndarray]:
        """The block's per-satellite arrays, each (m, nsat): ``sat_prn`` (number within its
        system), ``sat_system`` (index into the sky's ``system_names``), ``sat_elevation_deg``,
        ``sat_azimuth_deg``, ``sat_class`` (the sky view's status code), ``sat_used`` and
        ``sat_cn0_dbhz`` (NaN: no signal). Draws nsat Gaussians an epoch. ``used``: the status's
        used satellites (navsense.sky.status.used_mask) when the caller has them."""
        shape = status.shape
        los = np.ascontiguousarray(los, dtype=np.float64)
        if shape[0] == 1:
            out = self._one_epoch_values(los, status)
        else:
            out = self._chunk_values(los, status, used)
        fixed = self._one_epoch if shape[0] == 1 else None
        if fixed is None:  # read-only broadcast rows (one epoch's made once: streaming)
            fixed = (np.broadcast_to(self.prn, shape), np.broadcast_to(self.system, shape))
            if shape[0] == 1:
                self._one_epoch = fixed
        return {
            "sat_prn": fixed[0],
            "sat_system": fixed[1],
            "sat_elevation_deg": out[1],
            "sat_azimuth_deg": out[2],
            "sat_class": status,
            "sat_used": _sky.used_mask(status) if used is None else used,
            "sat_cn0_dbhz": out[0],
        }

    def _one_epoch_values(self, los: np.ndarray, status: np.ndarray) -> np.ndarray:
        """C/N0, elevation and azimuth (3, 1, nsat) of one epoch: one call of
        :func:`_cn0_rows` over every satellite, with the nsat Gaussians as a view of the
        stream's block (0 where there is no signal)."""
        shape = status.shape
        tracked = self._tracked[status]
        g = self._rng.gaussians_view(shape[1]).reshape(shape)
        g_all = np.where(tracked, g, 0.0)
        out = np.empty((3,) + shape)
        loss_sigma = self._loss_sigma_db[status]  # (1, nsat, 2), C order
        el_rad = np.arcsin(_clip(los[..., 2], -1.0, 1.0))  # elevation_deg's, then its degrees
        az_rad = np.arctan2(los[..., 0], los[..., 1])  # azimuth_deg's, then the kernel's
        _cn0_rows(self._base_row, los, loss_sigma, g_all, el_rad, az_rad, out)
        return out

    def _chunk_values(self, los: np.ndarray, status: np.ndarray, used) -> np.ndarray:
        """:meth:`_one_epoch_values` of a chunk of epochs (3, m, nsat), the same values:
        :func:`_cn0_rows` runs over the k tracked (epoch, satellite) pairs alone, as one row
        of k (the others' C/N0 is NaN, their Gaussians never formed: the stream moves past
        them), and the elevations and azimuths of every pair are its degrees
        (np.degrees' product, :func:`_degrees_in_circle`)."""
        shape = status.shape
        out = np.empty((3,) + shape)
        east, north, up = np.ascontiguousarray(los.reshape(-1, 3).T)  # contiguous: half the cost
        el_rad = np.arcsin(_clip(up, -1.0, 1.0)).reshape(shape)
        az_rad = np.arctan2(east, north).reshape(shape)
        np.multiply(el_rad, _RAD_TO_DEG, out=out[1])
        _degrees_in_circle(az_rad.reshape(-1), out[2].reshape(-1))
        tracked = _sky.used_mask(status) if used is None else used  # self._tracked[status]
        pairs = np.flatnonzero(tracked)
        k = pairs.size
        g = self._rng.gaussians_where(tracked).reshape(1, k)
        cn0 = out[0].reshape(-1)
        cn0.fill(np.nan)
        if not k:
            return out
        code = status.reshape(-1).take(pairs)
        row = np.empty((3, 1, k))
        _cn0_rows(
            self._base_dbhz.take(pairs % shape[1]).reshape(1, k),
            los.reshape(-1, 3).take(pairs, axis=0).reshape(1, k, 3),
            self._loss_sigma_db.take(code, axis=0).reshape(1, k, 2),
            g,
            el_rad.reshape(-1).take(pairs).reshape(1, k),
            az_rad.reshape(-1).take(pairs).reshape(1, k),
            row,
        )
        cn0[pairs] = row[0, 0]
        return out
