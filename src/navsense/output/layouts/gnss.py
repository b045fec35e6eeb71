"""The layout of the GNSS receiver: ``gnss.jsonl`` rows and ``gnss.nmea`` sentences.

Specification "INS and GNSS", "GNSS Receiver / Output Row"; the receiver
(:mod:`navsense.sensors.gnss.receiver`) returns the SI arrays of its epochs (a block) and
``output_info()``; :class:`GnssLayout` turns them into rows and sentences.

Row of ``gnss.jsonl`` (after the three time keys; key order of the specification; decimals
chosen by navsense, :data:`ROW_DECIMALS`)::

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
    altitude_navd88_m, geoid_undulation_nad83_m   4 decimals: the orthometric height and the
                              geoid undulation of the site's vertical datum; at a local site
                              (EGM96, navsense.geo.geoid) altitude_egm96_m,
                              geoid_undulation_egm96_m
    nad83_harn_lat_deg, nad83_harn_lon_deg, nad83_2011_lat_deg, nad83_2011_lon_deg,
    nad83_2011_height_m       9 / 4 decimals; only where NAD83 applies (ACRE, a local site in
                              the area of NAD83(2011), navsense.geo.areas)
    wgs84_lat_deg, wgs84_lon_deg, wgs84_height_m   (9 / 4 decimals)
    heading_deg, heading_sigma_deg, pitch_deg, pitch_sigma_deg
                              only with gnss.heading on (two antennas,
                              navsense.sensors.gnss.heading): the baseline's true heading and
                              pitch and their standard deviations, deg, 4 decimals; null
                              without a heading (any state but RTK fixed, or RTK float with
                              gnss.heading.rtk_float)
    nmea_gga                  the $GNGGA sentence

In no_fix the position keys (position_enu_m, sigma_enu_m, covariance_enu_m2, position_std_m and
every geodetic key) are null. Without a georeference (the block has no ``latitude_deg``) the row
has no geodetic keys and no nmea_gga, and gnss.nmea gets no sentence.

The GGA sentence (:func:`navsense.output.nmea.gga.gga_chars`) carries the time start_utc + t, the
position of the output frame, the quality, satellites_used, hdop (the row's value), the
orthometric altitude (NAVD88 at ACRE, EGM96 at a local site), the geoid separation
(ellipsoidal_height_m - the altitude), the correction age and
station 0001; those two fields are empty when no correction has arrived (the row's
correction_age_s is null), as DESIGN.md's ruling "GGA number formats" says, whatever the fix
state. A no_fix epoch gets the no-fix form (empty position, altitude, separation, age, station).

gnss.nmea (navsense extension, issue 20) holds, epoch by epoch, the sentences of
gnss.nmea.sentences in a receiver's order (:mod:`navsense.output.nmea`): RMC and VTG (the row's
position; speed over ground ``speed_mps`` in knots and km/h and true course ``course_deg`` of
the receiver's velocity, the course frozen below COURSE_HOLD_SPEED_MPS; status and mode from the
fix state), GGA (the row's nmea_gga), GSA and GSV for each system that is on (NMEA 4.10/4.11
system and signal IDs of :data:`navsense.sky.systems.SYSTEM_CODES`, GPS, GLONASS, Galileo,
BeiDou, QZSS in that order; GSA under the talker GN with the system ID, as the u-blox F9
interface description sends it: the PRNs of ``sat_used``, none without a fix, and the row's
PDOP, HDOP, VDOP; GSV under the system's talker GP, GL, GA, GB, GQ: the satellites at or above
the elevation mask, blocked ones included, with ``sat_elevation_deg``, ``sat_azimuth_deg`` and
``sat_cn0_dbhz``, empty where the sky view blocks the signal; with gnss.nmea.gsv_below_mask
also those below the mask down to the horizon, see below), GST and ZDA; and, with
gnss.heading on, HDT first (:mod:`navsense.output.nmea.hdt`: the row's heading_deg, the field
empty without a heading), which joins the default set of sentences (a list the user gave is
written as given). GST's standard
deviations of latitude, longitude and altitude are the row's sigma_enu_m
(north, east, up); the error ellipse of its diagonal horizontal covariance has the semi-major
axis max(sigma_e, sigma_n), the semi-minor min(...), oriented north (0 deg) unless sigma_e is
the larger (90 deg); the range RMS is the range standard deviation that the covariance implies,
sqrt(sigma_e^2 + sigma_n^2 + sigma_u^2) / PDOP (the trace of the covariance is PDOP^2 times the
range variance). Combined sentences (RMC, VTG, GGA, GSA, GST, ZDA) have the talker GN,
whatever systems are on.

The course over ground (issue 32): below a ground speed of COURSE_HOLD_SPEED_MPS (0.1 m/s) the
course of the velocity is noise (it swung 96 -> 179 -> 343 deg on consecutive epochs standing
still), so RMC and VTG report the last course at or above it, frozen, as a u-blox receiver
freezes its course over ground (ZED-F9P integration manual, "Freezing the course over ground");
before the first such course the course field is empty. Ruling: navsense prints the frozen course,
as a u-blox receiver does with the NMEA output of frozen courses on (CFG-NMEA-OUT_FROZENCOG); at
its factory setting a u-blox receiver leaves the course field empty while it is frozen.

Satellites below the mask (issue 29, gnss.nmea.gsv_below_mask, default false: GSV as before): a
receiver's GSV lists the satellites in view that it does not use, the elevation mask deciding
only what the solution uses (u-blox: CFG-NAVSPG-INFIL_MINELEV). With the option on, GSV lists
every satellite of a tracked system whose elevation is at least 0 deg (the horizon: the
constellation's line of sight, ``sat_elevation_deg``, which the receiver computes for every
satellite) as well as those at or above the mask, and its count is theirs. Ruling: a satellite
below the mask is listed with its elevation and azimuth and an empty C/N0: the receiver models
no signal below the mask (neither the sky view's ray tests nor a C/N0 draw), and computing one
would change its random draws; GSA (the satellites used) and the rows do not change.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from navsense.constants import KMH_MPS, KNOT_MPS
from navsense.output.columns import Column
from navsense.output.nmea.fields import utc_seconds_of_day
from navsense.output.nmea.fix import TALKER_COMBINED, gst_chars, rmc_chars, vtg_chars, zda_chars
from navsense.output.nmea.gga import gga_chars
from navsense.output.nmea.hdt import hdt_chars
from navsense.output.nmea.interleave import SENTENCE_ORDER, interleave_text
from navsense.output.nmea.satellites import gsa_chars, gsv_chars
from navsense.output.nmea.text import LINE_END, sentence_lines
from navsense.sky.status import COUNT_KEYS
from navsense.sky.systems import NMEA_ORDER, SYSTEM_CODES, GnssSystem
from navsense.utc import utc_datetime

__all__ = [
    "GnssLayout",
    "ROW_DECIMALS",
    "SOLUTION_MODES",
    "COUNT_KEYS",
    "GEODETIC_KEYS",
    "HEIGHT_KEYS",
    "NAD83_KEYS",
    "NMEA_SYSTEMS",
    "COURSE_HOLD_SPEED_MPS",
    "HEADING_ROW_KEYS",
]

GGA_NO_FIX = 0  # GGA quality 0: no valid position (the receiver numbers its states so)
# NMEA 0183 v4.1 position mode indicator of each GGA quality (navsense's "solution" key)
SOLUTION_MODES = {0: "N", 1: "A", 2: "D", 5: "F", 4: "R"}
GEODETIC_KEYS = (  # the row's geodetic keys at ACRE (block keys, row names in HEIGHT_KEYS)
    "latitude_deg",
    "longitude_deg",
    "ellipsoidal_height_m",
    "orthometric_height_m",
    "geoid_undulation_m",
    "nad83_harn_lat_deg",
    "nad83_harn_lon_deg",
    "nad83_2011_lat_deg",
    "nad83_2011_lon_deg",
    "nad83_2011_height_m",
    "wgs84_lat_deg",
    "wgs84_lon_deg",
    "wgs84_height_m",
)
NAD83_KEYS = GEODETIC_KEYS[5:10]  # only where NAD83 applies
# the site's vertical datum (output_info) -> the row names of orthometric_height_m and
# geoid_undulation_m; "navd88" the specification's (ACRE)
HEIGHT_KEYS = {
    "navd88": ("altitude_navd88_m", "geoid_undulation_nad83_m"),
    "egm96": ("altitude_egm96_m", "geoid_undulation_egm96_m"),
    "geoid": ("altitude_geoid_m", "geoid_undulation_m"),
}

#: The systems' codes (talker of its GSV, system ID, GSV signal ID, NMEA numbers) in the order
#: of their NMEA system IDs: GPS, GLONASS, Galileo, BeiDou, QZSS, from the one table of them
#: (:data:`navsense.sky.systems.SYSTEM_CODES`)
NMEA_SYSTEMS: tuple[GnssSystem, ...] = tuple(SYSTEM_CODES[name] for name in NMEA_ORDER)
NAV_MODE_NO_FIX, NAV_MODE_3D = 1, 3  # GSA navigation mode
#: m/s: below this ground speed the course over ground is frozen (the last course at or above
#: it is reported): u-blox's "Freezing the course over ground" (ZED-F9P integration manual
#: UBX-18010802 section 3.1.7.5, the same text for the ZED-F9T, M10 and F10: "if the absolute
#: speed value is very low (under 0.1 m/s) ... the previous value is kept")
COURSE_HOLD_SPEED_MPS = 0.1

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
    "attitude_deg": 4,  # heading, pitch and their sigmas (gnss.heading): 1e-4 deg
}
#: the rows' keys of gnss.heading (the block's, navsense.sensors.gnss.heading.HEADING_KEYS)
HEADING_ROW_KEYS = ("heading_deg", "heading_sigma_deg", "pitch_deg", "pitch_sigma_deg")


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


class GnssLayout:
    """The gnss.jsonl columns and gnss.nmea sentences of the receiver's blocks.

    ``GnssLayout(info)``, ``info`` the receiver's ``output_info()``: ``fix_types`` (state code,
    its GGA quality -> fix_type name), ``multipath_tau_s``, ``start_utc`` (the UTC time at t = 0,
    ISO 8601).
    """

    def __init__(self, info: Mapping[str, Any]) -> None:
        self._fix_types = {int(k): str(v) for k, v in info["fix_types"].items()}
        self._multipath_tau = round(float(info["multipath_tau_s"]), ROW_DECIMALS["tau_s"])
        self._utc0_s = utc_seconds_of_day(info["start_utc"])
        altitude, undulation = HEIGHT_KEYS[str(info.get("vertical_datum", "navd88"))]
        rename = {"orthometric_height_m": altitude, "geoid_undulation_m": undulation}
        nad83 = bool(info.get("nad83", True))
        # (block key, row key) of the geodetic keys, in row order
        self._geodetic = [
            (k, rename.get(k, k)) for k in GEODETIC_KEYS if nad83 or k not in NAD83_KEYS
        ]
        self._date0 = utc_datetime(info["start_utc"]).date()  # the day of utc0_s
        chosen = set(info["nmea_sentences"])
        self._nmea = tuple(name for name in SENTENCE_ORDER if name in chosen)
        systems = list(info["systems"])
        on = set(info["systems_on"])
        # (sat_system index, codes) of the systems that are on, in their NMEA order
        self._systems = [(systems.index(s.name), s) for s in NMEA_SYSTEMS if s.name in on]
        self._below_mask = list(info["sky_classes"]).index("below_mask")
        # gnss.heading on: the rows' heading keys (absent from the info without it)
        self._heading = bool(info.get("heading", False))
        # gnss.nmea.gsv_below_mask (absent from an older receiver's info: false)
        self._gsv_below_mask = bool(info.get("nmea_gsv_below_mask", False))
        self._modes = np.array(
            [SOLUTION_MODES.get(q, "N") for q in range(max(SOLUTION_MODES) + 1)], dtype="S1"
        )
        self._empty: list[Column] | None = None  # the columns of a block without an epoch
        self._gga_block: Mapping | None = None  # the last block whose sentences were built
        self._gga: list[str] = []
        self._gga_chars_block: Mapping | None = None  # the last block whose GGA was built
        self._gga_text = np.zeros((0, 0), dtype=np.uint8)
        self._sat_columns: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        # the course over ground held below COURSE_HOLD_SPEED_MPS (:meth:`_held_course`): the
        # last block, its courses and the course held after it (NaN: none yet)
        self._course_block: Mapping | None = None
        self._course_held = np.zeros(0)
        self._course_after = np.nan

    # ------------------------------------------------------------------------------ sentences
    def sentences(self, block: Mapping[str, np.ndarray]) -> list[str]:
        """The block's $GNGGA sentences (empty without a georeference); the last block's kept,
        since a run asks for them twice (the row key nmea_gga and gnss.nmea)."""
        if block is not self._gga_block:
            chars = self._gga_chars(block)
            self._gga = [] if chars is None else sentence_lines(chars)
            self._gga_block = block
        return self._gga

    def _gga_chars(self, block: Mapping[str, np.ndarray]) -> np.ndarray | None:
        """The block's $GNGGA sentences as characters (None without a georeference)."""
        if "latitude_deg" not in block:
            return None
        if block is not self._gga_chars_block:
            fix = block["fix"]
            no_fix = fix == GGA_NO_FIX
            # GGA: geoid separation = ellipsoidal height of the output frame - the altitude
            sep = block["ellipsoidal_height_m"] - block["orthometric_height_m"]
            self._gga_text = gga_chars(
                self._utc0_s + block["sample_time_s"],
                block["latitude_deg"],
                block["longitude_deg"],
                fix,
                block["satellites_used"],
                np.round(block["hdop"], ROW_DECIMALS["dop"]),
                block["orthometric_height_m"],
                sep,
                np.where(no_fix, np.nan, block["correction_age_s"]),  # empty in the no-fix form
                no_fix=no_fix,
            )
            self._gga_chars_block = block
        return self._gga_text

    def extra(self, block: Mapping[str, np.ndarray]) -> list[str]:
        """The block's lines of gnss.nmea (:meth:`nmea_text`, without their line ends)."""
        text = self.nmea_text(block)
        return text.decode("ascii").split(LINE_END)[:-1] if text else []

    def nmea_text(self, block: Mapping[str, np.ndarray]) -> bytes:
        """The block's text of gnss.nmea: the sentences of gnss.nmea.sentences, epoch by epoch,
        each epoch's in the order (HDT,) RMC, VTG, GGA, GSA, GSV, GST, ZDA (module docstring), each
        line ending in CR LF; none without a georeference. Built as characters and written as
        they are (a run's 14 lines an epoch as Python strings cost more than all the rest)."""
        m = len(block["sample_time_s"])
        if "latitude_deg" not in block or not self._nmea or m == 0:
            return b""
        epochs = np.arange(m)
        groups: list = []  # (lines or sentence characters, the epoch of each)
        for name in self._nmea:
            if name == "HDT":
                groups.append((hdt_chars(block["heading_deg"]), epochs))
            elif name == "GGA":
                groups.append((self._gga_chars(block), epochs))
            elif name in ("GSA", "GSV"):
                groups += self._per_system(name, block)
            else:
                groups.append((self._combined(name, block), epochs))
        return interleave_text(groups, m)

    def _combined(self, name: str, block: Mapping[str, np.ndarray]) -> np.ndarray:
        """RMC, VTG, GST or ZDA (talker GN) of the block's epochs, as sentence characters."""
        utc = self._utc0_s + block["sample_time_s"]
        if name == "ZDA":
            return zda_chars(utc, self._date0)
        fix = block["fix"]
        ok = fix != GGA_NO_FIX
        if name == "GST":
            sigma = block["sigma_enu_m"]  # [e, n, u]
            s_e, s_n, s_u = sigma[:, 0], sigma[:, 1], sigma[:, 2]
            # the range RMS of the reported covariance: sqrt(trace) = PDOP x range sigma
            rms = np.sqrt(s_e * s_e + s_n * s_n + s_u * s_u) / block["pdop"]
            return gst_chars(
                utc,
                rms,
                np.maximum(s_e, s_n),
                np.minimum(s_e, s_n),
                np.where(s_e > s_n, 90.0, 0.0),  # the covariance is diagonal in east, north
                np.column_stack([s_n, s_e, s_u]),
                ok,
            )
        mode = self._modes[fix]
        speed = block["speed_mps"]
        course = self._held_course(block)
        has_course = ok & ~np.isnan(course)
        if name == "RMC":
            return rmc_chars(
                utc,
                self._date0,
                block["latitude_deg"],
                block["longitude_deg"],
                speed / KNOT_MPS,
                course,
                mode,
                ok,
                course_valid=has_course,
            )
        return vtg_chars(
            course, speed / KNOT_MPS, speed / KMH_MPS, mode, ok, course_valid=has_course
        )

    def _held_course(self, block: Mapping[str, np.ndarray]) -> np.ndarray:
        """The course over ground that RMC and VTG report at the block's epochs: the receiver's
        ``course_deg`` at an epoch with a fix and a ground speed ``speed_mps`` of at least
        COURSE_HOLD_SPEED_MPS, else the last such course before it (frozen, as u-blox receivers
        freeze it; carried across no-fix epochs and from block to block), NaN before the first
        (the course field empty: no course yet). The speed fields stay the measured speed (a
        u-blox receiver zeroes it only in its static hold mode, off by default).

        The state carries from block to block (batch = chunks = steps); asked again for the same
        block (RMC, then VTG), the same values."""
        if block is not self._course_block:
            before = self._course_after
            m = len(block["sample_time_s"])
            moving = (block["fix"] != GGA_NO_FIX) & (block["speed_mps"] >= COURSE_HOLD_SPEED_MPS)
            last = np.maximum.accumulate(np.where(moving, np.arange(m), -1))  # last moving epoch
            held = np.where(last >= 0, block["course_deg"][np.maximum(last, 0)], before)
            self._course_block, self._course_held = block, held
            self._course_after = float(held[-1]) if m else before
        return self._course_held

    def _per_system(self, name: str, block: Mapping[str, np.ndarray]) -> list:
        """The GSA or GSV sentences (characters) of the systems that are on, with their epochs:
        one group, each epoch's sentences system after system (one call for all systems)."""
        if not self._systems:
            return []
        cols, system, prn = self._columns_of_systems(block)
        talkers = [s.nmea_talker for _, s in self._systems]
        fix = block["fix"]
        ok = fix != GGA_NO_FIX
        if name == "GSA":  # talker GN, the system in the system ID (NMEA 4.10, u-blox)
            ids = [s.nmea_system_id for _, s in self._systems]
            talkers = [TALKER_COMBINED] * len(talkers)
            return [
                gsa_chars(
                    block["sat_used"].take(cols, axis=1) & ok[:, None],
                    prn,
                    np.where(ok, NAV_MODE_3D, NAV_MODE_NO_FIX),
                    block["pdop"],
                    block["hdop"],
                    block["vdop"],
                    talkers,
                    ids,
                    system,
                )
            ]
        # take, not [:, cols]: a C-ordered copy (a fancy index of columns is not, and costs more)
        in_view = block["sat_class"].take(cols, axis=1) != self._below_mask
        if self._gsv_below_mask:  # and those below the mask, down to the horizon
            in_view |= block["sat_elevation_deg"].take(cols, axis=1) >= 0.0
        return [
            gsv_chars(
                in_view,
                prn,
                block["sat_elevation_deg"],
                block["sat_azimuth_deg"],
                block["sat_cn0_dbhz"],
                talkers,
                [s.nmea_signal_id for _, s in self._systems],
                system,
                columns=cols,
            )
        ]

    def _columns_of_systems(self, block: Mapping[str, np.ndarray]):
        """The satellite columns of the systems that are on, in their NMEA order; the index of
        each one's system into self._systems; their NMEA numbers (number within the system +
        the system's offset; a satellite beyond the system's NMEA numbers is left out, as a
        u-blox receiver's strict numbering leaves it out). The block's satellites are the sky's,
        the same in every block: built once."""
        if self._sat_columns is None:
            system = block["sat_system"][0]
            number = block["sat_prn"][0].astype(np.int64)
            cols, which, prn = [], [], []
            for j, (index, codes) in enumerate(self._systems):
                # a system's satellites are consecutive, by number
                c = np.flatnonzero((system == index) & (number >= 1) & (number <= codes.max_number))
                cols.append(c)
                which.append(np.full(c.size, j))
                prn.append(number[c] + codes.nmea_offset)
            self._sat_columns = (np.concatenate(cols), np.concatenate(which), np.concatenate(prn))
        return self._sat_columns

    # ------------------------------------------------------------------------------ rows
    def columns(self, block: Mapping[str, np.ndarray]) -> list[Column]:
        """The gnss.jsonl keys as columns (rounded; NaN and no_fix positions null)."""
        m = len(block["sample_time_s"])
        if m == 0:
            if self._empty is None:  # a step between epochs (streaming): built once
                self._empty = self._columns(block)
            return list(self._empty)
        return self._columns(block)

    def _columns(self, block: Mapping[str, np.ndarray]) -> list[Column]:
        d = ROW_DECIMALS
        m = len(block["sample_time_s"])
        fix = block["fix"]
        fix_list = fix.tolist()
        has_fix = fix != GGA_NO_FIX
        sigma = block["sigma_enu_m"]
        var = sigma * sigma
        cov9 = np.zeros((m, 9))
        cov9[:, 0], cov9[:, 4], cov9[:, 8] = var[:, 0], var[:, 1], var[:, 2]
        # (name, values, decimals, validity) of the numeric keys, in row order
        specs: list[tuple[str, Any, int | None, np.ndarray | None]] = [
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
            specs += [
                (name, block[k], ang if k.endswith("_deg") else hgt, has_fix)
                for k, name in self._geodetic
            ]
        if self._heading:  # gnss.heading: NaN (null) without a heading
            specs += [(k, block[k], d["attitude_deg"], None) for k in HEADING_ROW_KEYS]
        numeric = _rounded_columns([sp for sp in specs if sp[1] is not None])
        numeric["model.multipath_tau_s"] = Column(
            "model.multipath_tau_s", self._multipath_tau, constant=True
        )

        cols = [
            Column("fix_type", [self._fix_types[q] for q in fix_list]),
            Column("gga_quality", fix.astype(np.int64)),
            Column("solution", [SOLUTION_MODES[q] for q in fix_list]),
        ]
        cols += [Column(k, block[k].astype(np.int64)) for k in COUNT_KEYS]
        cols += [numeric[sp[0]] for sp in specs]
        if geodetic:
            cols.append(Column("nmea_gga", list(self.sentences(block))))
        return cols
