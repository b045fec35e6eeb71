"""The GNSS receiver model: the epochs of ``gnss.jsonl`` and ``gnss.nmea`` from truth.

Specification "INS and GNSS", section "GNSS Receiver" (FAcresGnssModel::Epoch), every subsection;
the sensor-model contract of CONTRACTS.md. One epoch at each sample of gnss.hz (first at the first
physics step, t = 0 in the specification; navsense.clock):

1. Antenna position p_a = p + R r_a, r_a = gnss.antenna_flu_m moved from ``mount_frame`` to the
   chassis origin (DESIGN.md ruling "Mounts").
2. Sky view: lines of sight of the constellation (:mod:`navsense.sky.constellation`; with
   gnss.orbits a RINEX navigation file, its broadcast ephemerides' satellites that are valid and
   healthy at the epoch, :mod:`navsense.sky.orbits`), the elevation mask and the tracked
   systems, the obstacles of the site
   (:mod:`navsense.sky.obstruction`): N_u, N_c, N_n, N_f, blocked, above the mask. In a
   window of gnss.signal_outages_s (navsense extension, issue 19; :func:`signal_lost`) every
   satellite above the mask counts as blocked.
3. DOP (:mod:`.dop`): H, V, P of the used satellites, H_o, V_o of all above the mask.
4. Reflector index rho and multipath index m (:mod:`.multipath`).
5. Correction age a_c (:mod:`.corrections`).
6. Fix state (:mod:`.fixstate`), with the epoch's uniform and g_t.
7. Errors (:mod:`.error_model`): p_out = p_a + e, with the epoch's nine Gaussians.
8. Datum chain (navsense.geo.Georeference.geodetic_rows: enu_to_geodetic's values as rows) of p_out
   at the epoch's time.
9. Velocity (:mod:`.velocity`, navsense extension): the antenna's truth velocity plus a Doppler
   error, its speed over ground and true course.
10. Satellites (:mod:`.signal`, navsense extension): each satellite's elevation, azimuth, class
    and C/N0, from the sky view of step 2.

dt (the time since the previous epoch) is the number of physics steps between the two epochs
divided by the physics rate (exactly 0.1 s at 10 Hz on the 120 Hz clock, whatever t is); it is
0.1 s on the first epoch (specification, "Error Model").

The constellation is seen from the site's WGS84 origin (DESIGN.md ruling "Site position for the
constellation"). A site without a georeference sees the sky of the specification's ACRE tile
(its blocks have no geodetic keys, so its rows none and no sentence).

State carried between chunks (batch = chunks = steps): the sampler (Due), the streams
Pcg32(seed, 1), Pcg32(seed + 4051, 16) (C/N0), Pcg32(seed + 4051, 17) (velocity) and, with
gnss.heading on, Pcg32(seed + 4051, 20) (the heading, :mod:`.heading`), the fix machine
(:class:`~.fixstate.FixMachineState`), the unit Gauss-Markov states u and z, and the step of the
last epoch. Every other quantity depends on its epoch alone.

The block (the SI arrays of the m epochs, leading axis m): ``sample_time_s``, ``fix`` (state
code, numbered as its GGA quality), the six satellite counts, ``hdop``, ``vdop``, ``pdop``,
``hdop_open_sky``, ``vdop_open_sky``, ``multipath_index``, ``reflector_index``,
``correction_age_s``, ``rtk_lock_age_s``, ``rtk_converge_s``, ``rtk_time_to_fix_s`` (NaN: not
available), ``sigma_gm_m``, ``sigma_white_m``, ``sigma_mp_m``, ``tau_s``, ``k_h``, ``k_v``,
``dt_s``, ``antenna_enu_m``, ``error_enu_m``, ``position_enu_m`` (p_out), ``sigma_enu_m``, the
unit states ``u`` and ``z``; the velocity (:mod:`.velocity`): ``antenna_velocity_enu_mps``,
``velocity_enu_mps``, ``sigma_velocity_enu_mps`` (m, 3), ``speed_mps``, ``course_deg``; the
satellites (:mod:`.signal`), each (m, nsat) in the constellation's order: ``sat_prn``,
``sat_system``, ``sat_elevation_deg``, ``sat_azimuth_deg``, ``sat_class``, ``sat_used``,
``sat_cn0_dbhz``; with gnss.heading on (:mod:`.heading`) ``heading_deg``,
``heading_sigma_deg``, ``pitch_deg``, ``pitch_sigma_deg`` (NaN without a heading) and the
baseline's truth ``baseline_enu_m``, ``heading_truth_deg``, ``pitch_truth_deg``,
``baseline_horizontal_m``, ``baseline_length_m``; and with a georeference the datum chain of p_out: every key of
Georeference.enu_to_geodetic but ``navd88_height_m`` (which is ``orthometric_height_m``, the
height in the site's vertical datum: NAVD88 at ACRE, EGM96 at a local site), and
``latitude_deg``, ``longitude_deg``, ``ellipsoidal_height_m`` of the output frame:
gnss.datum.output_frame wgs84_g2139 -> WGS84 (G2139) latitude, longitude and height; nad83 ->
NAD83(HARN) latitude and longitude with the NAD83(2011) ellipsoidal height. Its gnss.jsonl rows
and gnss.nmea sentences are built by :class:`navsense.output.layouts.gnss.GnssLayout` from the
block and :meth:`GnssReceiver.output_info` (which names the vertical datum and says whether the
NAD83 keys apply at the site).
"""

from __future__ import annotations

import numpy as np

from navsense.clock import Due
from navsense.config.typed.gnss import GnssConfig
from navsense.gauss_markov import GaussMarkovStates
from navsense.geo.georef import FRAME_KEYS, OUTPUT_KEYS
from navsense.rng import Pcg32
from navsense.sensors.gnss import dop as _dop
from navsense.sensors.gnss import multipath as _mp
from navsense.sensors.gnss.corrections import CorrectionStream
from navsense.sensors.gnss.error_model import (
    FIRST_EPOCH_DT_S,
    combine,
    draw_epochs,
    error_sigmas,
    phi_of,
)
from navsense.sensors.gnss.fixstate import FIX_TYPES, FixMachineState, run_fix_states
from navsense.sensors.gnss.heading import HeadingModel
from navsense.sensors.gnss.signal import SignalModel
from navsense.sensors.gnss.velocity import VelocityModel, antenna_velocity_enu
from navsense.site import Site
from navsense.sky import obstruction as _sky
from navsense.sky.constellation import constellation_site
from navsense.sky.obstruction import signal_lost
from navsense.sky.orbits import make_orbits
from navsense.truth.states import TruthStates
from navsense.vehicles import VehicleProfile, lever_arm_from_chassis

__all__ = ["build_model", "GnssReceiver", "OUTPUT_FRAMES", "GNSS_SEQUENCE", "signal_lost"]

GNSS_SEQUENCE = 1  # specification, "Seeds and Determinism": RngGnss, seed, sequence 1

# gnss.datum.output_frame -> keys of Georeference.enu_to_geodetic (latitude, longitude, height)
OUTPUT_FRAMES = {
    "wgs84_g2139": ("wgs84_lat_deg", "wgs84_lon_deg", "wgs84_height_m"),
    "nad83": ("nad83_harn_lat_deg", "nad83_harn_lon_deg", "nad83_2011_height_m"),
}


class GnssReceiver:
    """The GNSS receiver (navsense.sensors.base.SensorModel).

    ``GnssReceiver(config, vehicle, site, georef)``: ``config`` the typed
    :class:`navsense.config.typed.gnss.GnssConfig` (``GnssConfig.from_validated(cfg)``),
    ``vehicle`` the profile (for base_footprint mounts), ``site`` the obstacles (None: open
    sky), ``georef`` the site's Georeference or None (no geodetic output).
    """

    name = "gnss"

    def __init__(
        self, config: GnssConfig, vehicle: VehicleProfile, site: Site | None, georef
    ) -> None:
        self.config = c = config
        self.vehicle = vehicle
        self.site = site if site is not None else Site(name="open sky", georeference=None)
        self.georef = georef
        # Antenna Position: r_a from the chassis origin (ruling "Mounts")
        self.lever_arm_m = lever_arm_from_chassis(c.antenna_flu_m, c.mount_frame, vehicle)
        # the sky: the synthetic constellation or a RINEX file's satellites (gnss.orbits)
        self.constellation = make_orbits(
            c.orbits,
            c.systems,
            dict(c.constellations),
            c.seed,
            c.start_utc,
            *constellation_site(georef, c.start_utc),
        )
        # the site's obstacles, prepared once for the sky view and the reflector index
        self._sky = _sky.SkyView(
            self.site, c.near_margin_m, c.foliage_block_path_m, c.elevation_mask_deg
        )
        self._reflectors = _mp.Reflectors(self.site, c.reflector_range_m)
        self._due = Due(c.hz, start_s=None)
        self._rng = Pcg32(c.seed, GNSS_SEQUENCE)
        self._fix_state = FixMachineState.initial(c.fix)
        self._corrections = CorrectionStream.of(c.corrections)
        self._u = GaussMarkovStates(3)  # the unit Gauss-Markov error u (east, north, up)
        self._z = GaussMarkovStates(3)  # the unit multipath error z
        self._signal = SignalModel(self.constellation, c.seed, c.noise)
        self._velocity = VelocityModel(c.seed, c.noise, georef)
        # the second antenna (gnss.heading, off by default: no stream, no key)
        self._heading = (
            HeadingModel(
                c.heading,
                c.errors,
                c.antenna_flu_m,
                c.mount_frame,
                vehicle,
                c.seed,
                c.noise,
                self._velocity.grid_north_azimuth_deg,
            )
            if c.heading.on
            else None
        )
        self._last_step: int | None = None
        self._empty_block: dict = {}  # the block of a chunk without an epoch ({}: not made yet)

    def check_times(self, t_s) -> None:
        """ConfigError (one line naming the file and the times) when a run time t_s (s) is
        outside the RINEX file of gnss.orbits; nothing for the synthetic constellation. The
        orchestrator asks it with the first and last time of a run known in advance, so the
        run is refused before it starts; every epoch is checked anyway."""
        check = getattr(self.constellation, "check_times", None)
        if check is not None:
            check(t_s)

    # ------------------------------------------------------------------------------ epochs
    def process(self, truth: TruthStates) -> dict[str, np.ndarray]:
        """The GNSS epochs sampled in this chunk of physics steps (columns, leading axis m)."""
        empty = self._empty_block  # the block of no epoch, made once ({} before)
        if truth.p_m.shape[0] == 1 and empty:  # one physics step (streaming)
            t_step = truth.step0 / truth.rate_hz  # TruthStates.t_s as a Python float
            if not self._due(t_step):
                return empty  # between epochs
            idx, t, steps = _ONE_STEP, np.array([t_step]), np.array([truth.step0], dtype=np.int64)
        elif (sampled := self._sample(truth)) is None:
            return empty  # no epoch in the chunk
        else:
            idx, t, steps = sampled
        c = self.config
        m = int(idx.size)
        dt, first = self._epoch_intervals(steps, truth.rate_hz)

        # Antenna Position, of the epochs' truth rows (one step: the step's own rows, no copy)
        at = (lambda rows: rows) if idx is _ONE_STEP else (lambda rows: rows[idx])
        p_a = _sky.antenna_position_enu(at(truth.p_m), at(truth.q_xyzw), self.lever_arm_m)
        # Constellation and Sky Obstruction
        los, visible = self.constellation.sky(t, c.elevation_mask_deg)
        status = self._sky.classify(p_a, los, visible)
        if c.signal_outages_s:
            status = signal_lost(status, t, c.signal_outages_s)
        counts = _sky.counts(status)
        # Dilution of Precision: used satellites, and all above the mask
        used = _sky.used_mask(status)
        (hdop, vdop, pdop), (hdop_o, vdop_o, _) = _dop.dops(los, used, status != _sky.BELOW_MASK)
        # Multipath Index
        rho = self._reflectors.index(p_a)
        n_used = counts["satellites_used"]
        mi = _mp.multipath_index(
            counts["satellites_near_obstruction"], counts["satellites_foliage"], n_used, rho
        )
        age = self._corrections.age_s(t)  # Correction Stream
        # the epoch's 11 values, in every state
        draws = draw_epochs(self._rng, m)
        # Fix State Machine
        fx = run_fix_states(
            c.fix,
            self._fix_state,
            t,
            dt,
            n_used,
            counts["satellites_clear"],
            pdop,
            mi,
            age,
            draws.slip_uniform,
            draws.g_t,
        )
        fix = fx["fix"]
        # Error Model
        sig = error_sigmas(c.errors, fix, fx["lock_age_s"], hdop, vdop, hdop_o, vdop_o, mi)
        u = self._u.run(phi_of(dt, sig["tau_s"], first), draws.g_u)
        z = self._z.run(phi_of(dt, c.errors.multipath_tau_s, first), draws.g_z)
        e, sigma = combine(sig, u, draws.g_white, z)
        p_out = p_a + e
        # Velocity and satellites (navsense extension)
        v_a = antenna_velocity_enu(at(truth.v_mps), at(truth.w_radps), p_a, at(truth.c_m))
        velocity = self._velocity.velocities(v_a, hdop, vdop)
        satellites = self._signal.satellites(los, status, used)
        block = {
            "sample_time_s": t,
            "fix": fix,
            **counts,
            "hdop": hdop,
            "vdop": vdop,
            "pdop": pdop,
            "hdop_open_sky": hdop_o,
            "vdop_open_sky": vdop_o,
            "multipath_index": mi,
            "reflector_index": rho,
            "correction_age_s": age,
            "rtk_lock_age_s": fx["lock_age_s"],
            "rtk_converge_s": fx["converge_s"],
            "rtk_time_to_fix_s": fx["time_to_fix_s"],
            "sigma_gm_m": sig["sigma_gm_m"],
            "sigma_white_m": sig["sigma_white_m"],
            "sigma_mp_m": sig["sigma_mp_m"],
            "tau_s": sig["tau_s"],
            "k_h": sig["k_h"],
            "k_v": sig["k_v"],
            "dt_s": dt,
            "antenna_enu_m": p_a,
            "error_enu_m": e,
            "position_enu_m": p_out,
            "sigma_enu_m": sigma,
            "u": u,
            "z": z,
            **velocity,
            **satellites,
        }
        if self._heading is not None:
            block.update(self._heading.headings(at(truth.q_xyzw), fix))
        if self.georef is not None:
            block.update(self._geodetic(block))
        if m == 0:
            self._empty_block = block
        return block

    def _sample(self, truth: TruthStates) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """The chunk's epochs: their indices, times and physics steps; None when the chunk has
        none and the block of no epoch is made already (a one-step call after the first is
        sampled by :meth:`process` itself, on the step's time k / rate as a Python float)."""
        idx = self._due.sample_indices(truth.t_s)
        if idx.size == 0 and self._empty_block:
            return None
        return idx, truth.t_s[idx], truth.steps[idx]

    def _epoch_intervals(self, steps: np.ndarray, rate_hz: float) -> tuple[np.ndarray, np.ndarray]:
        """dt of each epoch (physics steps since the previous epoch / rate; FIRST_EPOCH_DT_S on
        the run's first epoch) and which epoch is the run's first."""
        m = steps.size
        if m == 1:  # one epoch (streaming): the same division on Python numbers
            step, last = int(steps[0]), self._last_step
            self._last_step = step
            if last is None:
                return np.array([FIRST_EPOCH_DT_S]), np.ones(1, dtype=bool)
            return np.array([(step - last) / rate_hz]), np.zeros(1, dtype=bool)
        prev = np.empty(m, dtype=np.int64)
        if m:
            prev[0] = steps[0] if self._last_step is None else self._last_step
            prev[1:] = steps[:-1]
        dt = (steps - prev) / rate_hz
        first = np.zeros(m, dtype=bool)
        if m and self._last_step is None:
            first[0] = True
            dt[0] = FIRST_EPOCH_DT_S
        if m:
            self._last_step = int(steps[-1])
        return dt, first

    def _geodetic(self, block: dict) -> zip:
        """Datum chain of p_out (specification, "Datum Chain"); the output frame's position: the
        block's geodetic keys and their rows (Georeference.geodetic_rows)."""
        rows = self.georef.geodetic_rows(block["position_enu_m"], block["sample_time_s"])
        return zip(_GEO_NAMES, [rows[i] for i in _GEO_ROWS[self.config.output_frame]])

    # ------------------------------------------------------------------------------ run info
    def output_info(self) -> dict:
        """What the layout needs (navsense.output.layouts.gnss): the fix-state names by code,
        multipath_tau_s (a constant of the row), the UTC time at t = 0 of the sentences, the
        site's ``vertical_datum`` (navd88, egm96), ``nad83`` (the NAD83 keys apply there), the
        sentences of gnss.nmea (gnss.nmea.sentences) and whether GSV lists the satellites below
        the mask (gnss.nmea.gsv_below_mask), the system names by ``sat_system`` index,
        the systems that are on and the sky-view class names by ``sat_class`` code; ``heading``
        True with the second antenna on (absent otherwise)."""
        geo = self.georef
        return {
            "fix_types": dict(FIX_TYPES),
            "multipath_tau_s": self.config.errors.multipath_tau_s,
            "start_utc": geo.start_utc if geo is not None else self.config.start_utc,
            "vertical_datum": geo.vertical_datum if geo is not None else "navd88",
            "nad83": geo.nad83_applies if geo is not None else True,
            "nmea_sentences": list(self.config.nmea_sentences_written),
            "nmea_gsv_below_mask": self.config.nmea_gsv_below_mask,
            "systems": list(self.constellation.system_names),
            "systems_on": self.constellation.systems_on,
            "sky_classes": list(_sky.STATUS_NAMES),
            **({"heading": True} if self._heading is not None else {}),
        }

    def episode_info(self) -> dict:
        """The sky's parameters, for episode.json: the synthetic constellation's draws and site
        (``gnss_constellation``), or the RINEX file and its systems (``gnss_orbits``)."""
        return self.constellation.episode_info()


# the block's geodetic keys by gnss.datum.output_frame: FRAME_KEYS, the output frame's latitude,
# longitude and height, orthometric_height_m and geoid_undulation_m; and the rows of
# Georeference.geodetic_rows (OUTPUT_KEYS' order) they take, in that order
_GEO_NAMES = (
    *FRAME_KEYS,
    "latitude_deg",
    "longitude_deg",
    "ellipsoidal_height_m",
    "orthometric_height_m",
    "geoid_undulation_m",
)
_GEO_ROWS = {
    frame: (
        *range(len(FRAME_KEYS)),
        *(OUTPUT_KEYS.index(k) for k in keys),
        OUTPUT_KEYS.index("navd88_height_m"),
        OUTPUT_KEYS.index("geoid_undulation_m"),
    )
    for frame, keys in OUTPUT_FRAMES.items()
}

_ONE_STEP = np.zeros(1, dtype=np.int64)  # the sampled index of a one-step call (read only)
_ONE_STEP.flags.writeable = False


def build_model(context) -> GnssReceiver:
    """The GNSS receiver of a run (navsense.suite.SENSORS["gnss"]; ``context`` a
    navsense.suite.ModelContext)."""
    return GnssReceiver(
        GnssConfig.from_validated(context.cfg), context.vehicle, context.site, context.georef
    )
