"""The GNSS receiver model: ``gnss.jsonl`` rows and ``gnss.nmea`` sentences from truth.

Specification "INS and GNSS", section "GNSS Receiver" (FAcresGnssModel::Epoch), every subsection;
the sensor-model contract of CONTRACTS.md. One epoch at each sample of gnss.hz (first at t = 0):

1. Antenna position p_a = p + R r_a, r_a = gnss.antenna_flu_m moved from ``mount_frame`` to the
   chassis origin (DESIGN.md ruling "Mounts").
2. Sky view: lines of sight of the constellation (:mod:`.constellation`), the elevation mask and
   the enabled systems, the obstacles of the site (:mod:`.sky`): N_u, N_c, N_n, N_f, blocked,
   above the mask.
3. DOP (:mod:`.dop`): H, V, P of the used satellites, H_o, V_o of all above the mask.
4. Reflector index rho and multipath index m (:mod:`.multipath`).
5. Correction age a_c (:mod:`.corrections`).
6. Fix state (:mod:`.fixstate`), with the epoch's uniform and g_t.
7. Errors (:mod:`.error_model`): p_out = p_a + e, with the epoch's nine Gaussians.
8. Datum chain (navsense.geo.Georeference.enu_to_geodetic) of p_out at the epoch's time, and the
   $GNGGA sentence (navsense.output.nmea).

dt (the time since the previous epoch) is the number of physics steps between the two epochs
divided by the physics rate (exactly 0.1 s at 10 Hz on the 120 Hz clock, whatever t is); it is
0.1 s on the first epoch (specification, "Error Model").

The constellation is seen from the site's WGS84 origin (DESIGN.md ruling "Site position for the
constellation"). A site without a georeference sees the sky of the specification's ACRE tile
(its rows have no geodetic keys and no sentence).

State carried between chunks (batch = chunks = steps): the sampler (Due), the stream
Pcg32(seed, 1), the fix machine (:class:`~.fixstate.FixMachineState`), the unit Gauss-Markov
states u and z, and the step of the last epoch. Every other quantity depends on its epoch alone.

Row of ``gnss.jsonl`` (specification, "Output Row"; key order as there; decimals chosen by
navsense, :data:`ROW_DECIMALS`)::

    fix_type                  "no_fix" | "single" | "dgps" | "rtk_float" | "rtk_fixed"
    gga_quality               0 | 1 | 2 | 5 | 4
    solution                  NMEA 0183 v4.1 position mode indicator of the state:
                              "N" no fix, "A" autonomous, "D" differential, "F" float RTK,
                              "R" RTK (fixed integers)
    satellites_used, satellites_clear, satellites_near_obstruction, satellites_foliage,
    satellites_blocked, satellites_above_mask                                (integers)
    hdop, vdop, pdop, hdop_open_sky, vdop_open_sky    2 decimals (99.99: no geometry)
    multipath_index, reflector_index                  4 decimals
    correction_age_s          a_c, s, 3 decimals; null without a message
    rtk_lock_age_s            t - t_lock, s, 3 decimals; null without an RTK lock
    rtk_converge_s            c, s, 3 decimals; null without an RTK lock
    rtk_time_to_fix_s         T_fix, s, 3 decimals; null without an RTK lock
    model {sigma_gm_m, sigma_white_m, sigma_mp_m   [e, n, u] m, 5 decimals
           tau_s, multipath_tau_s                  s, 3 decimals
           k_h, k_v                                4 decimals
           dt_s}                                   s, 6 decimals
    position_enu_m            p_out [e, n, u], m, 4 decimals
    sigma_enu_m               sigma [e, n, u], m, 5 decimals
    covariance_enu_m2         diag(sigma^2) as 9 values, row-major ENU (as
                              sensor_msgs/NavSatFix.position_covariance), m^2, 10 decimals
    position_std_m            horizontal standard deviation per axis,
                              sqrt((sigma_e^2 + sigma_n^2) / 2) (= sigma_e = sigma_n), 5 decimals
    latitude_deg, longitude_deg        output frame, 9 decimals (1e-9 deg ~ 0.1 mm)
    ellipsoidal_height_m               output frame, 4 decimals
    altitude_navd88_m, geoid_undulation_nad83_m   4 decimals
    nad83_harn_lat_deg, nad83_harn_lon_deg, nad83_2011_lat_deg, nad83_2011_lon_deg,
    nad83_2011_height_m, wgs84_lat_deg, wgs84_lon_deg, wgs84_height_m   (9 / 4 decimals)
    nmea_gga                  the $GNGGA sentence

gnss.datum.output_frame selects latitude_deg, longitude_deg, ellipsoidal_height_m: wgs84_g2139 ->
WGS84 (G2139) latitude, longitude and height; nad83 -> NAD83(HARN) latitude and longitude with
the NAD83(2011) ellipsoidal height. In no_fix the position keys (position_enu_m, sigma_enu_m,
covariance_enu_m2, position_std_m and every geodetic key) are null. Without a georeference the
row has no geodetic keys and no nmea_gga.

The GGA sentence carries the time start_utc + t, the position of the output frame, the quality,
satellites_used, hdop (the row's value), the NAVD88 altitude, the geoid separation
(ellipsoidal_height_m - altitude_navd88_m), the correction age and station 0001; those two fields
are empty when no correction has arrived (the row's correction_age_s is null), as DESIGN.md's
ruling "GGA number formats" says, whatever the fix state.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from navsense.clock import Due
from navsense.errors import ConfigError
from navsense.gauss_markov import GaussMarkovStates
from navsense.geo.georef import OUTPUT_KEYS
from navsense.output.columns import Column, rows_from_columns
from navsense.output.nmea import gga_sentences, utc_seconds_of_day
from navsense.rng import Pcg32
from navsense.sensors.gnss import dop as _dop
from navsense.sensors.gnss import multipath as _mp
from navsense.sensors.gnss import sky as _sky
from navsense.sensors.gnss.constellation import SYSTEMS, Constellation
from navsense.sensors.gnss.corrections import CorrectionStream
from navsense.sensors.gnss.error_model import (
    FIRST_EPOCH_DT_S,
    ErrorConfig,
    combine,
    draw_epochs,
    error_sigmas,
    phi_of,
)
from navsense.sensors.gnss.fixstate import (
    DGPS,
    FIX_TYPES,
    NO_FIX,
    RTK_FIXED,
    RTK_FLOAT,
    SINGLE,
    FixConfig,
    FixMachineState,
    run_fix_states,
)
from navsense.site import Site
from navsense.truth.states import TruthStates
from navsense.vehicles import VehicleProfile, lever_arm_from_chassis

__all__ = [
    "GnssReceiver",
    "GnssConfig",
    "ROW_DECIMALS",
    "OUTPUT_FRAMES",
    "GNSS_SEQUENCE",
    "SOLUTION_MODES",
]

GNSS_SEQUENCE = 1  # specification, "Seeds and Determinism": RngGnss, seed, sequence 1
LOS_AHEAD = 64  # epochs whose satellites are computed at once on one-step calls
_ONE_STEP = np.zeros(1, dtype=np.int64)  # the sampled steps of a one-step call (read only)
_NO_STEP = np.zeros(0, dtype=np.int64)
_ONE_STEP.flags.writeable = False
_NO_STEP.flags.writeable = False

# NMEA 0183 v4.1 position mode indicator of each fix state (navsense's "solution" key)
SOLUTION_MODES = {NO_FIX: "N", SINGLE: "A", DGPS: "D", RTK_FLOAT: "F", RTK_FIXED: "R"}

# gnss.datum.output_frame -> keys of Georeference.enu_to_geodetic (latitude, longitude, height)
OUTPUT_FRAMES = {
    "wgs84_g2139": ("wgs84_lat_deg", "wgs84_lon_deg", "wgs84_height_m"),
    "nad83": ("nad83_harn_lat_deg", "nad83_harn_lon_deg", "nad83_2011_height_m"),
}
COUNT_KEYS = (
    "satellites_used",
    "satellites_clear",
    "satellites_near_obstruction",
    "satellites_foliage",
    "satellites_blocked",
    "satellites_above_mask",
)
_PREFIXED_KEYS = (
    "nad83_harn_lat_deg",
    "nad83_harn_lon_deg",
    "nad83_2011_lat_deg",
    "nad83_2011_lon_deg",
    "nad83_2011_height_m",
    "wgs84_lat_deg",
    "wgs84_lon_deg",
    "wgs84_height_m",
)

ROW_DECIMALS = {  # navsense's choice; the specification gives no decimals for gnss.jsonl
    "dop": 2,  # as the GGA HDOP and the 99.99 of "Dilution of Precision"
    "index": 4,
    "time_s": 3,  # correction age, lock age, convergence, time to fix
    "sigma_m": 5,  # 10 um: the white noise of rtk_fixed is 0.003 m
    "tau_s": 3,
    "ratio": 4,  # k_h, k_v
    "dt_s": 6,  # 1/120 s = 0.008333
    "position_m": 4,  # 0.1 mm
    "covariance_m2": 10,  # rtk_fixed 1.1e-4 m^2 keeps 6 digits
    "angle_deg": 9,  # 1e-9 deg ~ 0.1 mm
    "height_m": 4,
}


@dataclass(frozen=True)
class GnssConfig:
    """The receiver's typed configuration, built from the effective configuration dict."""

    hz: float
    antenna_flu_m: tuple[float, float, float]
    mount_frame: str
    seed: int
    elevation_mask_deg: float
    constellations: tuple[tuple[str, bool], ...]
    multipath_tau_s: float
    near_margin_m: float
    foliage_block_path_m: float
    reflector_range_m: float
    output_frame: str
    start_utc: str
    fix: FixConfig
    errors: ErrorConfig
    corrections: CorrectionStream

    @classmethod
    def from_config(cls, cfg: Mapping) -> GnssConfig:
        gnss = cfg["gnss"]
        hz = float(gnss["hz"])
        if not 1.0 <= hz <= 120.0:
            raise ConfigError(f"gnss.hz = {gnss['hz']} is out of range 1..120")
        arm = tuple(float(v) for v in gnss["antenna_flu_m"])
        if len(arm) != 3 or not all(map(math.isfinite, arm)):
            raise ConfigError(
                f"gnss.antenna_flu_m = {list(gnss['antenna_flu_m'])} must be 3 finite numbers"
            )
        frame = gnss["datum"]["output_frame"]
        if frame not in OUTPUT_FRAMES:
            raise ConfigError(
                f"gnss.datum.output_frame = {frame!r} is not one of {', '.join(OUTPUT_FRAMES)}"
            )
        const = gnss["constellations"]
        if not any(bool(const.get(s, False)) for s in SYSTEMS):
            raise ConfigError(f"gnss.constellations = {dict(const)}: one system must be on")
        obs = gnss["obstruction"]
        return cls(
            hz=hz,
            antenna_flu_m=arm,
            mount_frame=str(cfg.get("mount_frame", "chassis")),
            seed=int(cfg["seed"]),
            elevation_mask_deg=float(gnss["elevation_mask_deg"]),
            constellations=tuple((s, bool(const[s])) for s in SYSTEMS),
            multipath_tau_s=float(gnss["multipath_tau_s"]),
            near_margin_m=float(obs["near_margin_m"]),
            foliage_block_path_m=float(obs["foliage_block_path_m"]),
            reflector_range_m=float(obs["reflector_range_m"]),
            output_frame=frame,
            start_utc=str(gnss["datum"]["start_utc"]),
            fix=FixConfig.from_config(gnss),
            errors=ErrorConfig.from_config(cfg),
            corrections=CorrectionStream.from_config(gnss["corrections"], gnss["start"]),
        )


def _rounded_columns(specs) -> dict[str, Column]:
    """Columns of numeric keys: ``specs`` (name, values (m,) or (m, k), decimals, validity or None).

    Each value is np.round(x, decimals) + 0.0 (no negative zero), null where NaN (any NaN
    element of a vector) or where the validity is False. Keys of the same decimals and shape are
    rounded as one stacked array (elementwise, the same values), each column a row of it.
    """
    groups: dict = {}
    for name, values, decimals, valid in specs:
        x = np.asarray(values, dtype=np.float64)
        groups.setdefault((decimals, x.shape), []).append((name, x, valid))
    out = {}
    all_valid: dict = {}  # id(validity) -> every row valid
    for (decimals, _), members in groups.items():
        r = np.array([x for _, x, _ in members]).round(decimals)
        r += 0.0
        nan = np.isnan(r)
        if nan.ndim == 3:
            nan = nan.any(axis=2)
        any_nan = nan.any(axis=1).tolist() if nan.any() else [False] * len(members)
        for j, (name, _, valid) in enumerate(members):
            ok = None
            if valid is None:
                if any_nan[j]:
                    ok = ~nan[j]
            else:
                key = id(valid)
                if key not in all_valid:
                    all_valid[key] = bool(valid.all())
                if any_nan[j] or not all_valid[key]:
                    ok = ~nan[j] & valid
                    if ok.all():
                        ok = None
            out[name] = Column(name, r[j], ok)
    return out


class GnssReceiver:
    """The GNSS receiver (CONTRACTS.md sensor model): ``GnssReceiver(cfg, vehicle, site, georef)``.

    ``cfg`` the effective configuration, ``vehicle`` the profile (for base_footprint mounts),
    ``site`` the obstacles (None: open sky), ``georef`` the site's Georeference or None (no
    geodetic output).
    """

    name = "gnss"

    def __init__(self, cfg: Mapping, vehicle: VehicleProfile, site: Site, georef) -> None:
        self.config = cfg if isinstance(cfg, GnssConfig) else GnssConfig.from_config(cfg)
        c = self.config
        self.vehicle = vehicle
        self.site = site if site is not None else Site(name="open sky", georeference=None)
        self.georef = georef
        # Antenna Position: r_a from the chassis origin (ruling "Mounts")
        self.lever_arm_m = lever_arm_from_chassis(c.antenna_flu_m, c.mount_frame, vehicle)
        if georef is not None:
            lat, lon, h = georef.site_wgs84_lat_lon_h()
            self._utc0_s = utc_seconds_of_day(georef.start_utc)
        else:
            from navsense.geo import Georeference  # the ACRE tile's sky (module docstring)

            lat, lon, h = Georeference.acre(start_utc=c.start_utc).site_wgs84_lat_lon_h()
            self._utc0_s = utc_seconds_of_day(c.start_utc)
        self.constellation = Constellation(c.seed, dict(c.constellations), lat, lon, h)
        # the site's obstacles, prepared once for the sky view and the reflector index
        self._sky = _sky.SkyView(
            self.site, c.near_margin_m, c.foliage_block_path_m, c.elevation_mask_deg
        )
        self._reflectors = _mp.Reflectors(self.site, c.reflector_range_m)
        self._due = Due(c.hz)
        self._rng = Pcg32(c.seed, GNSS_SEQUENCE)
        self._fix_state = FixMachineState.initial(c.fix)
        self._u = GaussMarkovStates(3)  # the unit Gauss-Markov error u (east, north, up)
        self._z = GaussMarkovStates(3)  # the unit multipath error z
        self._last_step: int | None = None
        self._sky_ahead: dict = {}  # time -> (los, visible) of foreseen epochs (one-step calls)
        self._empty_block: dict | None = None  # the block of a chunk without an epoch
        self._empty_columns: list[Column] | None = None  # and its columns

    # ------------------------------------------------------------------------------ epochs
    def process(self, truth: TruthStates) -> dict[str, np.ndarray]:
        """The GNSS epochs sampled in this chunk of physics steps (columns, leading axis m)."""
        c = self.config
        if truth.p_m.shape[0] == 1:  # one physics step (streaming): the Due rule on its time
            idx = _ONE_STEP if self._due(truth.step0 / truth.rate_hz) else _NO_STEP
        else:
            idx = self._due.sample_indices(truth.t_s)
        m = int(idx.size)
        if m == 0 and self._empty_block is not None:
            return self._empty_block  # a step between epochs (streaming): nothing to compute
        steps = truth.steps[idx]
        t = truth.t_s[idx]
        # dt: physics steps since the previous epoch / rate; 0.1 s on the first epoch
        prev = np.empty(m, dtype=np.int64)
        if m:
            prev[0] = steps[0] if self._last_step is None else self._last_step
            prev[1:] = steps[:-1]
        dt = (steps - prev) / truth.rate_hz
        first = np.zeros(m, dtype=bool)
        if m and self._last_step is None:
            first[0] = True
            dt[0] = FIRST_EPOCH_DT_S
        if m:
            self._last_step = int(steps[-1])

        # Antenna Position
        p_a = _sky.antenna_position_enu(truth.p_m[idx], truth.q_xyzw[idx], self.lever_arm_m)
        # Constellation and Sky Obstruction
        if m == 1:
            los, visible = self._sky_of_one(int(steps[0]), truth.rate_hz)
        else:
            los = self.constellation.los_enu(t)
            visible = self.constellation.visible(los, c.elevation_mask_deg)
        status = self._sky.classify(p_a, los, visible)
        counts = _sky.counts(status)
        # Dilution of Precision: used satellites, and all above the mask
        (hdop, vdop, pdop), (hdop_o, vdop_o, _) = _dop.dops(
            los, _sky.used_mask(status), status != _sky.BELOW_MASK
        )
        # Multipath Index
        rho = self._reflectors.index(p_a)
        mi = _mp.multipath_index(
            counts["satellites_near_obstruction"],
            counts["satellites_foliage"],
            counts["satellites_used"],
            rho,
        )
        # Correction Stream
        age = c.corrections.age_s(t)
        # the epoch's 11 values, in every state
        draws = draw_epochs(self._rng, m)
        # Fix State Machine
        fx = run_fix_states(
            c.fix,
            self._fix_state,
            t,
            dt,
            counts["satellites_used"],
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
        z = self._z.run(phi_of(dt, c.multipath_tau_s, first), draws.g_z)
        e, sigma = combine(sig, u, draws.g_white, z)
        p_out = p_a + e

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
        }
        if self.georef is not None:
            block.update(self._geodetic(block))
        if m == 0:
            self._empty_block = block
        return block

    def _sky_of_one(self, step: int, rate_hz: float) -> tuple[np.ndarray, np.ndarray]:
        """Lines of sight (1, nsat, 3) and tracked satellites (1, nsat) of the epoch at ``step``.

        The satellites depend on the time alone, so on one-step calls (the streaming API) they
        are computed for LOS_AHEAD epochs at once: this one and the next ones the sampler will
        take if the physics steps keep coming one after the other (a copy of the Due schedule
        run over them). Each epoch's values are those of a call for it alone (los_enu and
        visible are elementwise in the time); a time not foreseen is computed when it comes.
        """
        t = step / rate_hz
        hit = self._sky_ahead.get(t)
        if hit is None:
            schedule = Due(self.config.hz)
            schedule.t_due = self._due.t_due  # the due time after this epoch
            later = step + 1 + np.arange(int(LOS_AHEAD * rate_hz / self.config.hz) + 1)
            steps = np.concatenate([[step], later[schedule.sample_indices(later / rate_hz)]])
            times = steps / rate_hz
            los = self.constellation.los_enu(times)
            visible = self.constellation.visible(los, self.config.elevation_mask_deg)
            self._sky_ahead = {
                tt: (los[i : i + 1], visible[i : i + 1]) for i, tt in enumerate(times.tolist())
            }
            hit = self._sky_ahead[t]
        return hit

    def _geodetic(self, block: dict) -> dict:
        """Datum chain of p_out and the GGA sentences (specification, "Datum Chain", "Output Row")."""
        t = block["sample_time_s"]
        p = block["position_enu_m"]
        if t.shape[0] == 1:  # one epoch (streaming): the chain on Python floats, the same bits
            geo = dict(
                zip(
                    OUTPUT_KEYS,
                    (
                        np.array([v])
                        for v in self.georef.geodetic_of_point(*p[0].tolist(), t.item())
                    ),
                )
            )
        else:
            geo = self.georef.enu_to_geodetic(p.reshape(-1, 3), t)
        lat_key, lon_key, h_key = OUTPUT_FRAMES[self.config.output_frame]
        out = {k: np.asarray(geo[k], dtype=np.float64).reshape(-1) for k in _PREFIXED_KEYS}
        out["latitude_deg"] = out[lat_key]
        out["longitude_deg"] = out[lon_key]
        out["ellipsoidal_height_m"] = out[h_key]
        out["altitude_navd88_m"] = np.asarray(geo["navd88_height_m"], dtype=np.float64).reshape(-1)
        out["geoid_undulation_nad83_m"] = np.asarray(
            geo["geoid_undulation_m"], dtype=np.float64
        ).reshape(-1)
        # GGA: geoid separation = ellipsoidal height of the output frame - NAVD88 altitude
        sep = out["ellipsoidal_height_m"] - out["altitude_navd88_m"]
        fix = block["fix"]
        no_fix = fix == NO_FIX
        # the no-fix form; its age and station are empty too
        age = np.where(no_fix, np.nan, block["correction_age_s"])
        sentences = gga_sentences(
            self._utc0_s + t,
            out["latitude_deg"],
            out["longitude_deg"],
            fix,
            block["satellites_used"],
            np.round(block["hdop"], ROW_DECIMALS["dop"]),
            out["altitude_navd88_m"],
            sep,
            age,
            no_fix=no_fix,
        )
        out["nmea_gga"] = np.array(sentences, dtype=object)
        return out

    # ------------------------------------------------------------------------------ outputs
    def columns(self, block: Mapping[str, np.ndarray]) -> list[Column]:
        """The gnss.jsonl keys as columns (rounded; NaN and no_fix positions null)."""
        if block is self._empty_block and self._empty_columns is not None:
            return list(self._empty_columns)  # a step between epochs (streaming)
        cols = self._columns(block)
        if block is self._empty_block:
            self._empty_columns = cols
            return list(cols)
        return cols

    def _columns(self, block: Mapping[str, np.ndarray]) -> list[Column]:
        d = ROW_DECIMALS
        m = len(block["sample_time_s"])
        fix = block["fix"]
        fix_list = fix.tolist()
        has_fix = fix != NO_FIX
        sigma = block["sigma_enu_m"]
        var = sigma * sigma
        cov9 = np.zeros((m, 9))
        cov9[:, 0], cov9[:, 4], cov9[:, 8] = var[:, 0], var[:, 1], var[:, 2]
        # (name, values, decimals, validity) of the numeric keys, in row order
        specs = [
            (k, block[k], d["dop"], None)
            for k in ("hdop", "vdop", "pdop", "hdop_open_sky", "vdop_open_sky")
        ]
        specs += [(k, block[k], d["index"], None) for k in ("multipath_index", "reflector_index")]
        specs += [
            (k, block[k], d["time_s"], None)
            for k in ("correction_age_s", "rtk_lock_age_s", "rtk_converge_s", "rtk_time_to_fix_s")
        ]
        specs += [
            ("model.sigma_gm_m", block["sigma_gm_m"], d["sigma_m"], None),
            ("model.sigma_white_m", block["sigma_white_m"], d["sigma_m"], None),
            ("model.sigma_mp_m", block["sigma_mp_m"], d["sigma_m"], None),
            ("model.tau_s", block["tau_s"], d["tau_s"], None),
            ("model.multipath_tau_s", None, None, None),  # a constant
            ("model.k_h", block["k_h"], d["ratio"], None),
            ("model.k_v", block["k_v"], d["ratio"], None),
            ("model.dt_s", block["dt_s"], d["dt_s"], None),
            ("position_enu_m", block["position_enu_m"], d["position_m"], has_fix),
            ("sigma_enu_m", sigma, d["sigma_m"], has_fix),
            ("covariance_enu_m2", cov9, d["covariance_m2"], has_fix),
            ("position_std_m", np.sqrt(0.5 * (var[:, 0] + var[:, 1])), d["sigma_m"], has_fix),
        ]
        geodetic = "latitude_deg" in block
        if geodetic:
            ang, hgt = d["angle_deg"], d["height_m"]
            geo_keys = (
                "latitude_deg",
                "longitude_deg",
                "ellipsoidal_height_m",
                "altitude_navd88_m",
                "geoid_undulation_nad83_m",
            ) + _PREFIXED_KEYS
            specs += [(k, block[k], ang if k.endswith("_deg") else hgt, has_fix) for k in geo_keys]
        numeric = _rounded_columns([sp for sp in specs if sp[1] is not None])
        numeric["model.multipath_tau_s"] = Column(
            "model.multipath_tau_s", round(self.config.multipath_tau_s, d["tau_s"]), constant=True
        )

        cols = [
            Column("fix_type", [FIX_TYPES[q] for q in fix_list]),
            Column("gga_quality", fix.astype(np.int64)),
            Column("solution", [SOLUTION_MODES[q] for q in fix_list]),
        ]
        cols += [Column(k, block[k].astype(np.int64)) for k in COUNT_KEYS]
        cols += [numeric[sp[0]] for sp in specs]
        if geodetic:
            cols.append(Column("nmea_gga", block["nmea_gga"].tolist()))
        return cols

    def rows(self, block: Mapping[str, np.ndarray]) -> list[dict]:
        """gnss.jsonl rows (without the three time keys); layout in the module docstring."""
        return rows_from_columns(self.columns(block), len(block["sample_time_s"]))

    def nmea_lines(self, block: Mapping[str, np.ndarray]) -> list[str]:
        """The block's $GNGGA sentences for gnss.nmea (empty without a georeference)."""
        if "nmea_gga" not in block:
            return []
        return list(block["nmea_gga"].tolist())

    def episode_info(self) -> dict:
        """The constellation's draws and site, for episode.json."""
        k = self.constellation
        return {
            "gnss_constellation": {
                "t0_s": round(float(k.t0_s), 6),
                "satellites_enabled": int(np.count_nonzero(k.enabled)),
                "site_wgs84_lat_lon_h": [
                    round(k.site_lat_deg, 9),
                    round(k.site_lon_deg, 9),
                    round(k.site_h_m, 4),
                ],
            }
        }
