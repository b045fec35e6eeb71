"""The real sky: satellites from a RINEX navigation file, seen from the site (``gnss.orbits``).

:class:`BroadcastSky` has the interface of :class:`navsense.sky.constellation.Constellation`
that the receiver and the report use (``nsat``, ``system``, ``prn``, ``label``, ``enabled``,
``site_*``, :meth:`sky`, :meth:`ecef_m`): the satellites are those of the tracked systems
(``gnss.systems``) that the file has, in the order of :data:`ALL_SYSTEMS`, then by number.

At the run's time t (s from its start; UTC of the start ``start_utc``, the run's
``gnss.datum.start_utc``), each satellite's position is that of its broadcast ephemeris valid at
t (:mod:`navsense.sky.broadcast`):

- times: GPS time = UTC + the leap seconds of the run's start (:data:`LEAP_SECONDS`, IERS
  Bulletin C; a run across a leap second keeps the first count); Galileo and QZSS times are GPS
  time (RINEX writes Galileo's in GPS weeks); BeiDou time = GPS time - 14 s; GLONASS records are
  in UTC. t_oe of a Kepler record is placed in the week of its toc (within half a week), so the
  week numbers' roll-overs and offsets do not matter;
- the ephemeris of a satellite at t is its record whose reference time (t_oe; GLONASS t_b) is
  nearest t (the later one on a tie), provided |t - t_ref| is within the system's
  :data:`MAX_AGE_S` (RTKLIB 2.4.3, rtklib.h, MAXDTOE*); a record whose health says unhealthy
  leaves the satellite out while it is the nearest (:func:`healthy`). A satellite without one
  is out at that time (its line of sight points to the nadir, below any mask);
- Galileo: the I/NAV records (data sources bits 0 or 2 or 9, the E1-B/E5b message an L1/E1
  receiver decodes); F/NAV ones only for a satellite without I/NAV records;
- duplicates (one reference time twice) keep the first record in the file;
- a record that puts its satellite nowhere a GNSS satellite can be (a non-finite position, or
  one outside 10 000 .. 100 000 km from the Earth's centre: a damaged record) leaves it out.

Lines of sight as the synthetic constellation's (:mod:`navsense.sky.constellation`): x - x_site
rotated into the ENU of the site's WGS84 origin, normalised.

Coverage: each tracked system's healthy records span [first t_ref - age, last t_ref + age]
(a damaged record, such as one with its t_oe days from its toc, is flagged unhealthy); the run's
time must lie in the span of every tracked system. A time outside is a
:class:`navsense.errors.ConfigError` naming the file, its span and the time (:meth:`check_times`).
"""

from __future__ import annotations

import datetime as _dt
import os

import numpy as np

from navsense.errors import ConfigError
from navsense.sky import broadcast as _bc
from navsense.sky.constellation import ecef_to_enu_matrix, elevation_deg, site_ecef_m
from navsense.sky.rinex_nav import GLONASS_FIELDS, GPS_EPOCH, KEPLER_FIELDS, NavFile, read_nav
from navsense.sky.systems import ALL_SYSTEMS, SYSTEM_CODES
from navsense.utc import utc_datetime, utc_text

__all__ = [
    "ALL_SYSTEMS",
    "BroadcastSky",
    "LEAP_SECONDS",
    "MAX_AGE_S",
    "healthy",
    "flags",
    "gps_minus_utc_s",
]


# s, the longest |t - t_ref| of a usable ephemeris (RTKLIB 2.4.3 rtklib.h: MAXDTOE, MAXDTOE_GAL,
# MAXDTOE_GLO, MAXDTOE_CMP, MAXDTOE_QZS)
MAX_AGE_S = {"gps": 7200.0, "galileo": 14400.0, "glonass": 1800.0, "beidou": 21600.0,
             "qzss": 7200.0}  # fmt: skip

# (UTC date from which, GPS - UTC in s): IERS Bulletin C, the leap seconds since 1980-01-06
LEAP_SECONDS = (
    ((1981, 7, 1), 1), ((1982, 7, 1), 2), ((1983, 7, 1), 3), ((1985, 7, 1), 4),
    ((1988, 1, 1), 5), ((1990, 1, 1), 6), ((1991, 1, 1), 7), ((1992, 7, 1), 8),
    ((1993, 7, 1), 9), ((1994, 7, 1), 10), ((1996, 1, 1), 11), ((1997, 7, 1), 12),
    ((1999, 1, 1), 13), ((2006, 1, 1), 14), ((2009, 1, 1), 15), ((2012, 7, 1), 16),
    ((2015, 7, 1), 17), ((2017, 1, 1), 18),
)  # fmt: skip
# m, the distances from the Earth's centre between which a computed satellite is taken as one
# (GNSS orbits: 25 500 .. 42 200 km); a record that puts it elsewhere is damaged
MIN_RADIUS_M, MAX_RADIUS_M = 1.0e7, 1.0e8
BDT_MINUS_GPST_S = -14.0  # BeiDou ICD, section 4.3: BDT started 2006-01-01 00:00:00 UTC
WEEK_S = 604800.0
_NADIR = np.array([0.0, 0.0, -1.0])  # the line of sight of a satellite that is out


def gps_minus_utc_s(when: _dt.datetime) -> int:
    """GPS - UTC (leap seconds, s) at a UTC time (:data:`LEAP_SECONDS`)."""
    day = (when.year, when.month, when.day)
    leap = 0
    for start, value in LEAP_SECONDS:
        if day >= start:
            leap = value
    return leap


def flags(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A field of bit flags (R,) as integers and whether it is one (a whole number 0 .. 2^31;
    a damaged field, NaN or 1e300, is none)."""
    ok = np.isfinite(values) & (values >= 0.0) & (values < 2.0**31)
    ok &= np.floor(np.where(ok, values, 0.0)) == np.where(ok, values, 0.0)
    return np.where(ok, values, 0.0).astype(np.int64), ok


def healthy(system: str, values: np.ndarray) -> np.ndarray:
    """Healthy records (R,) bool from their fields (R, k) (RINEX 3.05 tables):

    GPS: SV health 0 (all signals OK); QZSS: SV health 0 but for its least significant bit,
    the L6 signal's (IS-QZSS-PNT, the 6-bit SV health; RTKLIB masks it so); Galileo: the E1-B
    data validity and signal health bits (0 .. 2) clear; BeiDou: SatH1 0; GLONASS: health 0
    (the MSB of B_n). A Kepler record whose t_oe is no second of a week (0 .. 604800 s) is
    damaged and taken as unhealthy.
    """
    if system == "glonass":
        return values[:, GLONASS_FIELDS["health"]] == 0.0
    h, whole = flags(values[:, KEPLER_FIELDS["health"]])
    toe = values[:, KEPLER_FIELDS["toe"]]
    whole &= (toe >= 0.0) & (toe <= WEEK_S)
    if system == "galileo":
        return whole & ((h & 0b111) == 0)
    if system == "qzss":
        return whole & ((h & 0xFE) == 0)  # the LSB is the L6 (LEX) signal's (RTKLIB rinex.c)
    return whole & (h == 0)


class _SatRecords:
    """One satellite's usable records: reference times relative to the run's start (sorted),
    their rows in the system's table, healthy flags."""

    def __init__(self, rel_s: np.ndarray, rows: np.ndarray, ok: np.ndarray) -> None:
        self.rel_s = rel_s
        self.rows = rows
        self.ok = ok
        self.mid_s = 0.5 * (rel_s[1:] + rel_s[:-1])  # nearest: between two midpoints


class BroadcastSky:
    """The satellites of a RINEX navigation file (module docstring).

    ``BroadcastSky(path, systems, start_utc, site_lat_deg, site_lon_deg, site_h_m)``:
    ``systems`` the systems the receiver may track (names of :data:`ALL_SYSTEMS`; None: every
    one): those of them the file has are tracked. ``ConfigError`` when the file has none.
    """

    def __init__(
        self,
        path: str | os.PathLike,
        systems: tuple[str, ...] | None,
        start_utc: str,
        site_lat_deg: float,
        site_lon_deg: float,
        site_h_m: float,
        *,
        nav: NavFile | None = None,
    ) -> None:
        self.path = os.fspath(path)
        nav = read_nav(self.path) if nav is None else nav
        have = [s for s in ALL_SYSTEMS if s in nav.records]
        chosen = [s for s in have if systems is None or s in systems]
        if not chosen:
            raise ConfigError(
                f"{self.path} has no ephemeris of the tracked systems "
                f"({', '.join(systems or ALL_SYSTEMS)}; gnss.systems, gnss.constellations); "
                f"it has: {', '.join(have) or 'none of GPS, Galileo, GLONASS, BeiDou, QZSS'}"
            )
        self.systems = tuple(chosen)
        start = utc_datetime(start_utc)
        self.start_utc = start_utc
        utc0 = (start.replace(tzinfo=None) - GPS_EPOCH).total_seconds()  # UTC s since 1980-01-06
        self.leap_s = gps_minus_utc_s(start)
        offsets = {"glonass": 0.0, "beidou": self.leap_s + BDT_MINUS_GPST_S}
        self._tables: dict[str, dict] = {}
        system, prn, label, sats = [], [], [], []
        self.span_s: dict[str, tuple[float, float]] = {}  # run-relative coverage of each system
        for name in self.systems:
            rec = nav.records[name]
            values = rec.values
            keep = np.ones(len(rec), dtype=bool)
            if name == "galileo":
                src, _ = flags(values[:, KEPLER_FIELDS["codes_or_sources"]])
                inav = (src & ((1 << 0) | (1 << 2) | (1 << 9))) != 0
                has_inav = {p for p in rec.prn[inav]}
                keep = inav | np.array([p not in has_inav for p in rec.prn])
            start_sys = utc0 + offsets.get(name, float(self.leap_s))  # the start in its time
            if name == "glonass":
                ref = rec.epoch_s  # t_b: the record's epoch (UTC)
            else:
                toe = values[:, KEPLER_FIELDS["toe"]]
                week0 = np.floor(rec.epoch_s / WEEK_S) * WEEK_S
                ref = week0 + toe
                ref = ref + WEEK_S * np.round((rec.epoch_s - ref) / WEEK_S)  # within half a week
            rel = ref - start_sys
            ok = healthy(name, values)
            self._tables[name] = {"values": values, "rel_s": rel, "start_sys_s": start_sys}
            if name == "glonass":
                f, km = GLONASS_FIELDS, 1000.0
                cols3 = [[f[a + c] for c in "xyz"] for a in ("", "v", "a")]
                with np.errstate(all="ignore"):  # a damaged record: out in ecef_m
                    self._glonass = _bc.GlonassNodes(
                        values[:, cols3[0]] * km,
                        values[:, cols3[1]] * km,
                        values[:, cols3[2]] * km,
                        MAX_AGE_S[name],
                    )
            age = MAX_AGE_S[name]
            usable = keep & ok
            if not usable.any():
                raise ConfigError(f"{self.path}: no healthy {name} ephemeris (gnss.systems)")
            span = (float(rel[usable].min() - age), float(rel[usable].max() + age))
            self.span_s[name] = span
            for p in sorted({int(x) for x in rec.prn[keep]}):
                rows = np.flatnonzero(keep & (rec.prn == p))
                order = np.argsort(rel[rows], kind="stable")
                rows = rows[order]
                r = rel[rows]
                first = np.concatenate(([True], r[1:] != r[:-1]))  # duplicates: the first
                rows = rows[first]
                sats.append(_SatRecords(rel[rows], rows, ok[rows]))
                system.append(name)
                prn.append(p)
                label.append(f"{SYSTEM_CODES[name].rinex}{p:02d}")
        self._build_schedule(sats, system)
        self.system = np.array(system)
        self.prn = np.array(prn, dtype=np.int64)
        self.label = np.array(label)
        self.enabled = np.ones(self.system.size, dtype=bool)
        self.system_index = np.array([ALL_SYSTEMS.index(s) for s in system], dtype=np.int8)
        self.site_lat_deg = float(site_lat_deg)
        self.site_lon_deg = float(site_lon_deg)
        self.site_h_m = float(site_h_m)
        self.site_ecef_m = site_ecef_m(self.site_lat_deg, self.site_lon_deg, self.site_h_m)
        self.ecef_to_enu = ecef_to_enu_matrix(self.site_lat_deg, self.site_lon_deg)
        self._utc0_s = utc0
        self._groups = {
            name: np.flatnonzero(self.system == name) for name in self.systems
        }  # satellites by system
        self.check_times(np.zeros(1))

    @property
    def nsat(self) -> int:
        """Number of satellites (of the tracked systems that the file has)."""
        return int(self.system.size)

    @property
    def system_names(self) -> tuple[str, ...]:
        """The names that :attr:`system_index` indexes."""
        return ALL_SYSTEMS

    @property
    def systems_on(self) -> list[str]:
        """The tracked systems."""
        return list(self.systems)

    # ------------------------------------------------------------------------------ coverage
    def _utc_text(self, rel_s: float) -> str:
        try:
            when = GPS_EPOCH + _dt.timedelta(seconds=self._utc0_s + rel_s)
        except OverflowError:  # beyond the year 9999 (a damaged record's time)
            return f"{self._utc0_s + rel_s:.0f} s after 1980-01-06"
        return utc_text(when.replace(tzinfo=_dt.UTC))

    def check_times(self, t_s) -> None:
        """ConfigError naming the file and the times when a time t_s (run seconds) lies outside
        the coverage of a tracked system (module docstring)."""
        t = np.asarray(t_s, dtype=np.float64)
        if t.size == 0:
            return
        lo, hi = float(t.min()), float(t.max())
        for name, (a, b) in self.span_s.items():
            if lo < a or hi > b:
                at = lo if lo < a else float(t[t > b].min())  # the first time beyond
                how = (
                    "it covers the run only in part"
                    if a <= 0.0 <= b
                    else "it does not cover the run's start"
                )
                raise ConfigError(
                    f"{self.path}: its {name} ephemerides cover {self._utc_text(a)} .. "
                    f"{self._utc_text(b)}, the run's time {self._utc_text(at)} is outside "
                    f"({how}): give a navigation file of the run's time, or another "
                    "gnss.datum.start_utc"
                )

    # ------------------------------------------------------------------------------ geometry
    def _build_schedule(self, sats: list[_SatRecords], system: list[str]) -> None:
        """The choice of every satellite's record between two of all the satellites' midpoints
        (:meth:`_select` then costs one search and one gather an epoch, whatever nsat): row i
        of ``_choice`` holds, for each satellite, its number of midpoints at or before the
        i-th of the sorted union ``_cuts`` (so the nearest reference time of a satellite at
        t is its record number count(mid <= t), as a search of its own midpoints gives it)."""
        offsets = np.cumsum([0] + [s.rel_s.size for s in sats[:-1]]).astype(np.int64)
        self._rel_all = np.concatenate([s.rel_s for s in sats])
        self._rows_all = np.concatenate([s.rows for s in sats])
        self._ok_all = np.concatenate([s.ok for s in sats])
        self._age_s = np.array([MAX_AGE_S[name] for name in system])
        cuts = np.unique(np.concatenate([s.mid_s for s in sats]))
        choice = np.empty((cuts.size + 1, len(sats)), dtype=np.int64)
        choice[0] = offsets
        for j, sat in enumerate(sats):
            choice[1:, j] = offsets[j] + np.searchsorted(sat.mid_s, cuts, side="right")
        self._cuts = cuts
        self._choice = choice

    def _select(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each (epoch, satellite)'s record row (m, nsat) and whether it has a healthy valid
        ephemeris (m, nsat): the record of the nearest reference time (the later on a tie),
        healthy, within the system's age."""
        k = self._choice[np.searchsorted(self._cuts, t, side="right")]  # (m, nsat)
        ok = self._ok_all[k] & (np.abs(t[:, None] - self._rel_all[k]) <= self._age_s)
        return self._rows_all[k], ok

    def ecef_m(self, t_s) -> tuple[np.ndarray, np.ndarray]:
        """Earth-fixed positions (m, nsat, 3), m, at run times t_s (m,), and which satellites
        have a healthy ephemeris then (m, nsat) (positions of the others: the nadir of the
        site's origin, m from it)."""
        t = np.asarray(t_s, dtype=np.float64)
        if t.ndim != 1:
            raise ValueError(f"Expected `t_s` to have shape (m,), got {t.shape}")
        rows, ok = self._select(t)
        pos = np.empty((t.size, self.nsat, 3))
        with np.errstate(all="ignore"):  # a damaged record's NaN or inf: out, below
            self._positions(t, rows, ok, pos)
        # a record that puts its satellite where no GNSS satellite can be (damaged)
        radius = np.sqrt(pos[..., 0] ** 2 + pos[..., 1] ** 2 + pos[..., 2] ** 2)
        ok &= np.isfinite(radius) & (radius > MIN_RADIUS_M) & (radius < MAX_RADIUS_M)
        nadir = self.site_ecef_m - self.site_ecef_m / np.linalg.norm(self.site_ecef_m)
        pos[~ok] = nadir
        return pos, ok

    def _positions(self, t, rows, ok, pos) -> None:
        """The positions of every group of satellites into ``pos`` (m, nsat, 3)."""
        for name, cols in self._groups.items():
            tab = self._tables[name]
            r = rows[:, cols]
            dt = np.where(ok[:, cols], t[:, None] - tab["rel_s"][r], 0.0)  # t - t_ref, s
            if name == "glonass":
                pos[:, cols] = self._glonass.ecef_m(r, dt)
            else:
                v = tab["values"][r]  # (m, n, k)
                eph = {key: v[..., i] for key, i in KEPLER_FIELDS.items()}
                geo = _bc.beidou_geo(self.prn[cols]) if name == "beidou" else None
                pos[:, cols] = _bc.kepler_ecef_m(eph, dt, _bc.KEPLER_CONSTANTS[name], geo)

    def sky(self, t_s, elevation_mask_deg: float) -> tuple[np.ndarray, np.ndarray]:
        """Unit lines of sight (m, nsat, 3) in the site's ENU and the tracked satellites
        (m, nsat): a healthy ephemeris, elevation not less than the mask. A satellite that is
        out points to the nadir (0, 0, -1). ConfigError when a time is outside the file."""
        t = np.asarray(t_s, dtype=np.float64)
        self.check_times(t)
        pos, ok = self.ecef_m(t)
        d = pos - self.site_ecef_m
        r = self.ecef_to_enu
        x, y, z = d[..., 0], d[..., 1], d[..., 2]
        enu = np.stack([r[k, 0] * x + r[k, 1] * y + r[k, 2] * z for k in range(3)], axis=-1)
        norm = np.sqrt(enu[..., 0] ** 2 + enu[..., 1] ** 2 + enu[..., 2] ** 2)
        los = enu / norm[..., None]
        los[~ok] = _NADIR
        visible = ok & (elevation_deg(los) >= float(elevation_mask_deg))
        return los, visible

    def episode_info(self) -> dict:
        """The file and what was tracked, for episode.json."""
        return {
            "gnss_orbits": {
                "file": os.path.basename(self.path),
                "systems": list(self.systems),
                "satellites": int(self.nsat),
                "gps_minus_utc_s": int(self.leap_s),
                "site_wgs84_lat_lon_h": [
                    round(self.site_lat_deg, 9),
                    round(self.site_lon_deg, 9),
                    round(self.site_h_m, 4),
                ],
            }
        }
