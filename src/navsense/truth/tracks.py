"""Recorded tracks: a self-consistent truth log from a GPS track (GPX, CSV) or a waypoint file.

The article ``seeds/003_6b4b004b956226f3.txt`` does this by hand (GPX -> metres -> cubic-spline
resampling -> attitude from the velocity vector -> sensors); here it is one call::

    track = load_track("field-test.gpx")                 # points, site, start_utc
    truth = build_truth_from_track(track, "polaris")     # TruthStates at 120 Hz, step 0 at t = 0

Conventions (DESIGN.md "Data contracts"; the same as navsense.truth.waypoints):

- A track point is the position of ``base_footprint`` (the middle of the rear axle on the
  ground) in the site's grid ENU metres. The chassis origin is ``p = F + R r_f`` with
  ``r_f = (0.4 wheelbase, 0, cg_height)`` and the centre of mass is the chassis origin, exactly as
  for waypoint routes (shared code: ``waypoints.chassis_from_footprint``). So a GNSS antenna
  mounted at base_footprint ``[0, 0, 0]`` (``gnss.mount_frame = base_footprint``) reports the
  recorded positions; the default antenna (1.7 m above the chassis origin, 0.82 m ahead of the
  rear axle for the Polaris) reports them moved by its lever arm.
- Time base: the first point is t = 0. A track with absolute times (GPX, CSV ISO 8601) gives
  ``Track.start_utc`` = the UTC of its first point, so the GNSS rows and the GGA sentences carry
  the recorded UTC; the ``start_utc`` argument of :func:`load_track` is the UTC of t = 0 for a
  track whose times are relative (seconds), and is ignored when the file has absolute times.
  Times without a UTC offset are taken as UTC (GPX times are UTC by the GPX 1.1 schema).

Input formats (:func:`load_track`, chosen by the file suffix, case-insensitive):

``.gpx``  read with gpxpy. The track points ``trk/trkseg/trkpt`` of every track and segment in
          file order (segments are joined: a gap is bridged by the spline); a file without
          track points uses its route points ``rte/rtept``, and one without those its waypoints
          ``wpt``, which then need times too. ``lat``/``lon`` WGS84 degrees, ``<time>`` required
          on every point, ``<ele>`` on every point or on none: it is the height above the geoid
          (what GPS receivers record as altitude).
``.csv``  (also ``.txt``, ``.tsv``): one header line, then one point per line; blank lines and
          lines starting with ``#`` are skipped; delimiter comma, or semicolon or tab when the
          header has no comma. Header names are case-insensitive; unknown columns are ignored.
          Geodetic: ``lat_deg`` (or lat, latitude), ``lon_deg`` (or lon, lng, longitude), and
          optionally ``alt_m`` (or alt, altitude, ele, elevation: height above the geoid, m) OR
          ``height_m`` (WGS84 ellipsoidal height, m). ENU (site grid metres): ``x_m``, ``y_m``
          and optionally ``z_m`` (0 when absent). Time, required: ``time`` (or timestamp:
          ISO 8601 such as 2024-05-01T10:00:00.25Z, or a number of seconds) or ``t_s``
          (seconds). Geodetic and ENU columns together, or two time columns, are an error.
``.json`` a waypoint route of navsense.truth.waypoints (the skeleton's format); its truth is
          the planned trajectory (``WaypointRoute.plan``), not a time spline.

Sites: a geodetic track goes through a site's :class:`navsense.geo.Georeference` (WGS84 G2139
at the point's episode time). ``site`` None picks the embedded ACRE site when every point lies
within :data:`ACRE_TILE_RADIUS_M` of the ACRE origin, else a new local site whose origin is the
first point (``{"kind": "local", lat_deg, lon_deg, height_m}``, so that point is ENU (0, 0, 0));
a named site (Site, embedded name or site JSON file) is used as given. Heights: an ``alt_m``
(geoid) height is the site's ``navd88_height_m`` (ACRE: NAVD88 through the GEOID12B plane of the
chain, so ENU z = alt - 705 ftUS; a local site has no geoid model, undulation 0, so alt is taken
as the ellipsoidal height); ``height_m`` is the WGS84 ellipsoidal height; a track without heights
runs on the site's ground plane, ENU z = 0. ``Track.height_m`` is always the WGS84 height.
ENU tracks and waypoint routes use the named site, default ACRE.

Truth (:func:`build_truth_from_track`, :class:`TrackTrajectory`):

- Path in time: a cubic spline F(t) = (x(t), y(t), z(t)) through the points (scipy
  ``CubicSpline``, not-a-knot ends; C2: position, velocity and acceleration continuous), or with
  ``smoothing_m`` = sigma > 0 the cubic smoothing spline (scipy ``make_smoothing_spline``, one
  penalty for the three coordinates)::

      F = argmin  sum_i |p_i - F(t_i)|^2 + lambda int |F''(t)|^2 dt

  with lambda chosen so that the RMS horizontal residual per axis at the points equals sigma
  (Morozov's discrepancy principle)::

      sqrt( sum_i [(x_i - F_x(t_i))^2 + (y_i - F_y(t_i))^2] / (2 n) ) = sigma

  so ``smoothing_m`` is the standard deviation of the recorded horizontal position noise, per
  axis, in metres. The vertical is smoothed by the same filter (the same lambda); its residual
  is whatever it is (GPS heights are noisier). With no lambda reaching sigma the result is the
  smoothest spline (nearly the least-squares line). The fit is reported in
  ``TrackTrajectory.residual_rms_m`` and ``smoothing_lambda``. This is the classical choice
  (FITPACK's s = n sigma^2 for unit weights) and it errs towards smoothing, since the residual
  also holds the smoothing's bias: a 30 m circle at 5 m/s sampled every ~1 s with sigma = 0.3 m
  comes out 0.1 .. 0.2 m too small (tests/truth/test_tracks.py).
- Velocity, acceleration and jerk are the spline's derivatives (no finite differences); the
  truth rows sample the continuous trajectory at t = k / rate_hz, k = 0 .. floor(T rate_hz).
- Attitude from the velocity: heading psi = atan2(g y', g x'), pitch theta = atan2(g z', h),
  h = hypot(x', y'), with the gear g = +1 (forward) or -1 (reversing, see stops); roll 0. Analytic
  rates (the derivatives of these angles, from the spline's derivatives)::

      psi'   = (x' y'' - y' x'') / h^2
      theta' = g (z'' h - z' h') / (h^2 + z'^2),        h' = (x' x'' + y' y'') / h

  with the quaternion and world angular velocity of ``waypoints.attitude_from_angles`` and the
  chassis point of ``waypoints.chassis_from_footprint``. The angular velocity is continuous (it
  takes F''); its derivative steps at the track points (the cubic's jerk F''' is piecewise
  constant), so a point at a lever arm r from base_footprint sees acceleration steps of about
  |r| |jump of psi''| there: small steps, no spikes.
- ``bank="coordinated"``: the coordinated-turn bank (FLU, right side down positive): the roll
  that puts the specific force f = F'' + (0, 0, g0) at base_footprint in the body x-z plane (no
  lateral component), with x_h = g (x', y', 0) / h and y_h = z x x_h the horizontal axes::

      phi = -atan2(A, (g0 + z'') cos theta - a_l sin theta),   A = F''.y_h = g (x' y'' - y' x'') / h
                                                               a_l = F''.x_h,  g0 = 9.80665 m/s^2

  which on level ground is phi = -atan(v * yaw rate / g0). A takes F'', so phi' would take the
  piecewise-constant jerk and step at every track point, and a point at a lever arm would see
  acceleration spikes (|r| jump(phi') / dt). So the roll is a C2 cubic spline (not-a-knot)
  through phi(t_i) at the track points: the roll rate is continuous and the turn is coordinated
  exactly at the track points and to O(h^2) between them.
- Stops: below ``stop_speed_mps`` (v_lo, default :data:`STOP_SPEED_MPS`) the vehicle keeps the
  heading, pitch it had when its horizontal speed fell below v_hi = 2 v_lo; between v_lo and v_hi
  the angles blend with ``w = 10x^3 - 15x^4 + 6x^5``, ``x = (h - v_lo) / (v_hi - v_lo)``::

      psi = psi_hold + w (psi_path - psi_hold),  psi' = w psi_path' + w'(h) h' (psi_path - psi_hold)

  (pitch alike; roll = w phi), so the heading is continuous and the angular velocity bounded
  (|psi'| <= |F''| / v_lo + 1.875 |F''| |psi_path - psi_hold| / (v_hi - v_lo)) through a stop.
  Leaving a stop in a direction more than 90 degrees away from the held heading is reversing
  (a car-like vehicle cannot turn on the spot): the gear becomes -1 and the heading stays the
  vehicle's, opposite to the motion, until the next stop. The track starts in forward gear; a
  track that starts at rest takes the heading of its first motion; one that never reaches v_hi
  faces east.

Errors (:class:`navsense.errors.TruthError`, one line naming the file and the point or line):
no timestamps, duplicate or backwards times, fewer than 4 points (5 with smoothing), a file that
is not GPX given as .gpx, unparsable or non-finite numbers, latitude outside -90..90 or
longitude outside -180..180, a geodetic track and a site without georeference.
"""

from __future__ import annotations

import csv
import datetime as _dt
import math
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple
from xml.parsers import expat

import numpy as np

if TYPE_CHECKING:
    from scipy.interpolate import PPoly

from navsense.constants import GRAVITY_MPS2
from navsense.errors import NavsenseError, TruthError
from navsense.site import Site, embedded_site, load_site, site_from_json
from navsense.truth.states import PHYSICS_HZ, TruthStates
from navsense.truth.waypoints import (
    WaypointRoute,
    attitude_from_angles,
    chassis_from_footprint,
    load_waypoints,
)
from navsense.vehicles import VehicleProfile, vehicle_profile

__all__ = [
    "Track",
    "TrackSample",
    "TrackTrajectory",
    "load_track",
    "plan_track",
    "build_truth_from_track",
    "ACRE_TILE_RADIUS_M",
    "STOP_SPEED_MPS",
    "BANK_MODES",
    "MIN_TRACK_POINTS",
    "CSV_COLUMNS",
]

ACRE_TILE_RADIUS_M = 5_000.0  # a geodetic track within this of the ACRE origin uses the ACRE
# site (the affine grid<->UTM map is good to 4 mm there, geo.georef)
STOP_SPEED_MPS = 0.2  # v_lo: below it the heading is held; fully free above 2 v_lo
MIN_TRACK_POINTS = 4  # a not-a-knot cubic spline needs 4 points
MIN_SMOOTHING_POINTS = 5  # scipy make_smoothing_spline needs 5
BANK_MODES = ("none", "coordinated")
HEADING_NODE_STEP_S = 0.05  # spacing of the heading-unwrap reference nodes (heading rates up to
# pi / 0.05 s = 63 rad/s are unwrapped correctly)
_MERGE_S = 1e-9  # speed-threshold crossings closer than this are one event
_REST, _BLEND, _FAST = 0, 1, 2

# canonical CSV column -> accepted header names (lower case)
CSV_COLUMNS: dict[str, tuple[str, ...]] = {
    "lat_deg": ("lat_deg", "lat", "latitude"),
    "lon_deg": ("lon_deg", "lon", "lng", "longitude"),
    "alt_m": ("alt_m", "alt", "altitude", "ele", "elevation"),
    "height_m": ("height_m",),
    "x_m": ("x_m",),
    "y_m": ("y_m",),
    "z_m": ("z_m",),
    "time": ("time", "timestamp"),
    "t_s": ("t_s",),
}
_GPX_KINDS = ("trkpt", "rtept", "wpt")


# ----------------------------------------------------------------------------------- Track


@dataclass(frozen=True)
class Track:
    """A loaded track: points of base_footprint in ``site``'s ENU frame and their times.

    ``t_s`` (n,) seconds since the first point (strictly increasing); ``enu_m`` (n, 3);
    ``start_utc`` the UTC of t = 0 (ISO 8601) or None when neither the file nor the caller gave
    one; ``lat_deg``, ``lon_deg``, ``height_m`` (WGS84, ellipsoidal) for a geodetic track, else
    None; ``labels`` where each point is in the file ("line 12", "line 40, trkpt[3]");
    ``route`` the waypoint route of a ``.json`` file (its t_s are the planned point times).
    """

    source: str
    kind: str  # "gpx" | "csv" | "waypoints"
    t_s: np.ndarray
    enu_m: np.ndarray
    site: Site
    start_utc: str | None
    start_recorded: bool = False  # start_utc is the recorded UTC of the first point
    lat_deg: np.ndarray | None = None
    lon_deg: np.ndarray | None = None
    height_m: np.ndarray | None = None
    labels: tuple[str, ...] = ()
    route: WaypointRoute | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return int(self.t_s.shape[0])

    @property
    def duration_s(self) -> float:
        """Time of the last point, s."""
        return float(self.t_s[-1])


@dataclass
class _Raw:
    """A track as read, before times are checked and points georeferenced."""

    source: str
    kind: str
    labels: list[str]
    geodetic: bool
    a: np.ndarray  # latitude (deg) or x (m)
    b: np.ndarray  # longitude (deg) or y (m)
    c: np.ndarray | None  # alt_m / height_m / z_m, None when absent
    c_kind: str | None  # "alt_m" | "height_m" | "z_m" | None
    times: list  # aware UTC datetimes or float seconds
    absolute: bool


def _fail(source: str, where: str, message: str) -> TruthError:
    return TruthError(f"{source}: {where}: {message}" if where else f"{source}: {message}")


def _number(text: str | None, name: str, source: str, where: str) -> float:
    if text is None or not text.strip():
        raise _fail(source, where, f"{name} is empty; a number is required")
    try:
        value = float(text)
    except ValueError:
        raise _fail(source, where, f"{name} = {text.strip()!r} is not a number") from None
    if not math.isfinite(value):
        raise _fail(source, where, f"{name} = {text.strip()!r} is not a finite number")
    return value


def _as_utc(t: _dt.datetime) -> _dt.datetime:
    return t.replace(tzinfo=_dt.UTC) if t.tzinfo is None else t.astimezone(_dt.UTC)


def _utc_text(t: _dt.datetime) -> str:
    t = _as_utc(t)
    return t.isoformat(timespec="microseconds" if t.microsecond else "seconds").replace(
        "+00:00", "Z"
    )


def _parse_iso(text: str) -> _dt.datetime | None:
    s = text.strip()
    try:
        return _as_utc(_dt.datetime.fromisoformat(s[:-1] + "+00:00" if s[-1:] in "Zz" and s else s))
    except ValueError:
        return None


# ------------------------------------------------------------------------------------- GPX


class _GpxScan:
    """Line numbers and raw text of every trkpt / rtept / wpt (expat; errors name lines)."""

    def __init__(self, data: bytes, source: str) -> None:
        self.root: str | None = None
        self.points: dict[str, list[dict]] = {k: [] for k in _GPX_KINDS}
        self._stack: list[str] = []
        self._point: dict | None = None
        self._depth = 0
        self._child: str | None = None
        parser = expat.ParserCreate()
        parser.StartElementHandler = self._start
        parser.EndElementHandler = self._end
        parser.CharacterDataHandler = self._text
        self._parser = parser
        try:
            parser.Parse(data, True)
        except expat.ExpatError as exc:
            raise TruthError(
                f"{source}: not a GPX file: XML error at line {exc.lineno} column "
                f"{exc.offset + 1} ({expat.ErrorString(exc.code)})"
            ) from None
        if self.root != "gpx":
            raise TruthError(
                f"{source}: not a GPX file: the root element is <{self.root}>, not <gpx>"
            )

    def _start(self, name: str, attrs: dict) -> None:
        local = name.rsplit(":", 1)[-1]
        if self.root is None:
            self.root = local
        self._stack.append(local)
        if self._point is None and local in self.points:
            self._point = {
                "line": self._parser.CurrentLineNumber,
                "lat": attrs.get("lat"),
                "lon": attrs.get("lon"),
                "ele": None,
                "time": None,
            }
            self.points[local].append(self._point)
            self._depth = len(self._stack)
        elif (
            self._point is not None
            and len(self._stack) == self._depth + 1
            and local in ("ele", "time")
        ):
            self._child = local
            self._point[local] = ""

    def _end(self, name: str) -> None:
        if self._point is not None and len(self._stack) == self._depth:
            self._point = None
        self._child = None
        self._stack.pop()

    def _text(self, text: str) -> None:
        if self._child is not None and self._point is not None:
            self._point[self._child] += text


def _read_gpx(path: Path) -> _Raw:
    import gpxpy
    import gpxpy.gpx

    source = str(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise TruthError(f"{source}: cannot read the track ({exc.strerror})") from None
    scan = _GpxScan(data, source)
    kind = next((k for k in _GPX_KINDS if scan.points[k]), None)
    if kind is None:
        raise TruthError(
            f"{source}: no <trkpt>, <rtept> or <wpt> points; a track needs at least "
            f"{MIN_TRACK_POINTS} points with times"
        )
    records = scan.points[kind]
    labels = [f"line {r['line']}, {kind}[{i}]" for i, r in enumerate(records)]
    # check the raw text first: gpxpy names no line, and reads a bad <time> as no time
    for r, where in zip(records, labels):
        for key in ("lat", "lon"):
            if r[key] is None:
                raise _fail(source, where, f"no {key} attribute")
            _number(r[key], key, source, where)
        if r["ele"] is not None:
            _number(r["ele"], "<ele>", source, where)
        if r["time"] is None or not r["time"].strip():
            raise _fail(source, where, "no <time>; every track point needs a timestamp")
        if _parse_iso(r["time"]) is None:
            raise _fail(
                source,
                where,
                f"<time> {r['time'].strip()!r} is not an ISO 8601 time "
                f"such as 2024-05-01T10:00:00Z",
            )
    try:
        text = data.decode("utf-8-sig")
        gpx = gpxpy.parse(text)
    except UnicodeDecodeError:
        raise TruthError(f"{source}: not a GPX file navsense can read (not UTF-8 text)") from None
    except gpxpy.gpx.GPXException as exc:
        raise TruthError(f"{source}: not a valid GPX file ({exc})") from None
    if kind == "trkpt":
        pts = [p for trk in gpx.tracks for seg in trk.segments for p in seg.points]
    elif kind == "rtept":
        pts = [p for rte in gpx.routes for p in rte.points]
    else:
        pts = list(gpx.waypoints)
    if len(pts) != len(records):  # cannot happen with gpxpy's reader; keep the labels honest
        labels = [f"{kind}[{i}]" for i in range(len(pts))]
        records = [{"time": None}] * len(pts)
    times = []
    for i, p in enumerate(pts):  # a time gpxpy does not read is read from the text
        t = _as_utc(p.time) if p.time is not None else _parse_iso(records[i]["time"] or "")
        if t is None:
            raise _fail(source, labels[i], "no <time> gpxpy can read")
        times.append(t)
    elev = [p.elevation for p in pts]
    has = [e is not None for e in elev]
    if any(has) and not all(has):
        i = has.index(False) if has[0] else has.index(True)
        raise _fail(
            source,
            labels[i],
            f"{'no' if has[0] else 'an'} <ele> while "
            f"{labels[0]} has {'one' if has[0] else 'none'}; give "
            f"every point an elevation or none",
        )
    return _Raw(
        source=source,
        kind="gpx",
        labels=labels,
        geodetic=True,
        a=np.array([p.latitude for p in pts], dtype=np.float64),
        b=np.array([p.longitude for p in pts], dtype=np.float64),
        c=np.array(elev, dtype=np.float64) if all(has) else None,
        c_kind="alt_m" if all(has) else None,
        times=times,
        absolute=True,
    )


# ------------------------------------------------------------------------------------- CSV


def _read_csv(path: Path) -> _Raw:
    source = str(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise TruthError(f"{source}: not a CSV text file (not UTF-8)") from None
    except OSError as exc:
        raise TruthError(f"{source}: cannot read the track ({exc.strerror})") from None
    kept = [
        (i, line)
        for i, line in enumerate(text.splitlines(), start=1)
        if line.strip() and not line.lstrip().startswith("#")
    ]
    if not kept:
        raise TruthError(
            f"{source}: empty; expected a header line and at least {MIN_TRACK_POINTS} points"
        )
    header_line, header = kept[0]
    delim = "," if "," in header else ";" if ";" in header else "\t" if "\t" in header else ","
    names = [n.strip().lower() for n in next(csv.reader([header], delimiter=delim))]
    col: dict[str, int] = {}
    for j, name in enumerate(names):
        for canon, aliases in CSV_COLUMNS.items():
            if name in aliases:
                if canon in col:
                    raise TruthError(
                        f"{source}: line {header_line}: columns "
                        f"{names[col[canon]]!r} and {name!r} both give {canon}"
                    )
                col[canon] = j
    accepted = (
        "lat_deg, lon_deg [, alt_m | height_m] or x_m, y_m [, z_m], "
        "with time (ISO 8601 or seconds) or t_s"
    )
    geodetic = "lat_deg" in col or "lon_deg" in col
    enu = "x_m" in col or "y_m" in col
    where = f"line {header_line}"
    if geodetic and enu:
        raise _fail(source, where, f"both geodetic and ENU columns; use one set: {accepted}")
    if not geodetic and not enu:
        raise _fail(
            source,
            where,
            f"header {header.strip()!r} has no recognised position columns; accepted: {accepted}",
        )
    need = ("lat_deg", "lon_deg") if geodetic else ("x_m", "y_m")
    for key in need:
        if key not in col:
            raise _fail(source, where, f"no {key} column; accepted: {accepted}")
    if "alt_m" in col and "height_m" in col:
        raise _fail(
            source,
            where,
            "both alt_m (height above the geoid) and height_m "
            "(ellipsoidal height) columns; give one",
        )
    if not geodetic and ("alt_m" in col or "height_m" in col):
        raise _fail(
            source,
            where,
            "alt_m / height_m belong to lat_deg, lon_deg tracks; an ENU track gives z_m",
        )
    if geodetic and "z_m" in col:
        raise _fail(
            source,
            where,
            "z_m belongs to x_m, y_m tracks; a geodetic track gives alt_m or height_m",
        )
    if "time" in col and "t_s" in col:
        raise _fail(source, where, "both time and t_s columns; give one")
    if "time" not in col and "t_s" not in col:
        raise _fail(
            source,
            where,
            "no time column (time: ISO 8601 or seconds, or t_s: seconds); a track needs timestamps",
        )
    c_key = next((k for k in ("alt_m", "height_m", "z_m") if k in col), None)
    t_key = "time" if "time" in col else "t_s"
    labels, a, b, c, times = [], [], [], [], []
    absolute = None
    rows = csv.reader((line for _, line in kept[1:]), delimiter=delim)
    for (lineno, _), row in zip(kept[1:], rows):
        where = f"line {lineno}"
        if len(row) != len(names):
            raise _fail(source, where, f"{len(row)} fields, the header has {len(names)}")
        a.append(_number(row[col[need[0]]], need[0], source, where))
        b.append(_number(row[col[need[1]]], need[1], source, where))
        if c_key is not None:
            c.append(_number(row[col[c_key]], c_key, source, where))
        cell = row[col[t_key]].strip()
        if not cell:
            raise _fail(source, where, f"{t_key} is empty; every point needs a timestamp")
        try:
            value = float(cell)
            is_abs = False
        except ValueError:
            value = None
            is_abs = True
        if t_key == "t_s" and is_abs:
            raise _fail(source, where, f"t_s = {cell!r} is not a number of seconds")
        if is_abs:
            value = _parse_iso(cell)
            if value is None:
                raise _fail(
                    source,
                    where,
                    f"time = {cell!r} is neither an ISO 8601 time "
                    f"(2024-05-01T10:00:00Z) nor seconds",
                )
        elif not math.isfinite(value):
            raise _fail(source, where, f"{t_key} = {cell!r} is not a finite number")
        if absolute is None:
            absolute = is_abs
        elif absolute != is_abs:
            raise _fail(
                source,
                where,
                f"time = {cell!r} mixes "
                f"{'seconds' if absolute else 'ISO 8601 times'} with "
                f"{'ISO 8601 times' if absolute else 'seconds'}",
            )
        times.append(value)
        labels.append(where)
    return _Raw(
        source=source,
        kind="csv",
        labels=labels,
        geodetic=geodetic,
        a=np.array(a, dtype=np.float64),
        b=np.array(b, dtype=np.float64),
        c=np.array(c, dtype=np.float64) if c_key is not None else None,
        c_kind=c_key,
        times=times,
        absolute=bool(absolute),
    )


# ------------------------------------------------------------------------- checks and sites


def _check_times(raw: _Raw) -> tuple[np.ndarray, str | None]:
    """Seconds since the first point, and the recorded UTC of the first point (or None)."""
    n = len(raw.times)
    if n < MIN_TRACK_POINTS:
        raise TruthError(
            f"{raw.source}: {n} point(s); a track needs at least "
            f"{MIN_TRACK_POINTS} (the cubic spline through them)"
        )
    if raw.absolute:
        t0 = raw.times[0]
        one = _dt.timedelta(seconds=1)
        t = np.array([(ti - t0) / one for ti in raw.times], dtype=np.float64)
        text = [_utc_text(ti) for ti in raw.times]
        start = text[0]
    else:
        secs = np.array(raw.times, dtype=np.float64)
        t = secs - secs[0]
        text = [f"{s:g} s" for s in secs]
        start = None
    dt = np.diff(t)
    bad = np.flatnonzero(~(dt > 0))
    if bad.size:
        i = int(bad[0]) + 1
        if dt[i - 1] == 0:
            msg = (
                f"time {text[i]} repeats the previous point's ({raw.labels[i - 1]}); "
                f"times must increase"
            )
        else:
            msg = (
                f"time {text[i]} is before the previous point's {text[i - 1]} "
                f"({raw.labels[i - 1]}); times must increase"
            )
        raise _fail(raw.source, raw.labels[i], msg)
    return t, start


def _check_lat_lon(raw: _Raw) -> None:
    for values, name, limit in ((raw.a, "latitude", 90.0), (raw.b, "longitude", 180.0)):
        bad = np.flatnonzero(np.abs(values) > limit)
        if bad.size:
            i = int(bad[0])
            raise _fail(
                raw.source,
                raw.labels[i],
                f"{name} {float(values[i])!r} deg is out of range -{limit:g}..{limit:g}",
            )


def _resolve_site(site: Site | str | None) -> Site | None:
    """A Site, an embedded site name or a site JSON file (as ``navsense simulate --site``)."""
    if site is None or isinstance(site, Site):
        return site
    spec = str(site)
    if spec.endswith(".json") or Path(spec).exists():
        return load_site(spec)
    return embedded_site(spec)


@lru_cache(maxsize=1)
def _acre_tangent():
    from navsense.geo import Georeference

    lat, lon, h = Georeference.acre().site_wgs84_lat_lon_h()
    return Georeference.local(lat, lon, h)


def _on_acre_tile(lat: np.ndarray, lon: np.ndarray) -> bool:
    enu = _acre_tangent().geodetic_to_enu(lat, lon, np.zeros_like(lat), 0.0, "wgs84_g2139")
    return bool(np.all(np.hypot(enu[..., 0], enu[..., 1]) <= ACRE_TILE_RADIUS_M))


def _place(raw: _Raw, site, start_utc: str | None, datum: dict | None) -> Track:
    t_s, recorded = _check_times(raw)
    if start_utc is not None:
        from navsense.geo.epoch import parse_utc

        parse_utc(start_utc)  # ConfigError naming a malformed time
    start = recorded if recorded is not None else start_utc
    chosen = _resolve_site(site)
    common = dict(
        source=raw.source,
        kind=raw.kind,
        t_s=t_s,
        start_recorded=recorded is not None,
        labels=tuple(raw.labels),
    )
    if not raw.geodetic:
        z = raw.c if raw.c is not None else np.zeros_like(raw.a)
        return Track(
            enu_m=np.column_stack([raw.a, raw.b, z]),
            site=chosen if chosen is not None else embedded_site("acre"),
            start_utc=start,
            **common,
        )
    _check_lat_lon(raw)
    lat, lon = raw.a, raw.b
    if chosen is None:
        if _on_acre_tile(lat, lon):
            chosen = embedded_site("acre")
        else:
            h0 = float(raw.c[0]) if raw.c is not None else 0.0  # geoid = ellipsoid locally
            chosen = site_from_json(
                {
                    "name": "local",
                    "description": f"local tangent site at the first point of {Path(raw.source).name}",
                    "georeference": {
                        "kind": "local",
                        "lat_deg": float(lat[0]),
                        "lon_deg": float(lon[0]),
                        "height_m": h0,
                    },
                },
                source=f"{raw.source} (local site)",
            )
    if chosen.georeference is None:
        raise TruthError(
            f"{raw.source}: site {chosen.name!r} has no georeference; a track in "
            f"latitude and longitude needs one (acre, or a local site)"
        )
    from navsense.geo.epoch import DEFAULT_START_UTC

    if start is None and chosen.georeference.get("kind") == "acre":
        start = DEFAULT_START_UTC  # the ACRE chain depends on the epoch (Helmert rates)
    try:
        geo = chosen.make_georeference(start or DEFAULT_START_UTC, datum)
        frame = "wgs84_g2139"
        if raw.c is None:  # no heights: on the site's ground plane
            h = np.full_like(lat, geo.site_wgs84_lat_lon_h()[2])
            enu = geo.geodetic_to_enu(lat, lon, h, t_s, frame)
            enu[:, 2] = 0.0
            height = np.asarray(geo.enu_to_geodetic(enu, t_s)["wgs84_height_m"])
        elif raw.c_kind == "height_m":  # ellipsoidal
            height = raw.c
            enu = geo.geodetic_to_enu(lat, lon, height, t_s, frame)
        else:  # above the geoid: solve navd88(enu) = alt
            enu = geo.geodetic_to_enu(lat, lon, raw.c, t_s, frame)
            for _ in range(2):  # linear in u: converged after the first
                g = geo.enu_to_geodetic(enu, t_s)
                enu[:, 2] += raw.c - np.asarray(g["navd88_height_m"])
                height = np.asarray(geo.enu_to_geodetic(enu, t_s)["wgs84_height_m"])
                enu = geo.geodetic_to_enu(lat, lon, height, t_s, frame)
    except NavsenseError as exc:
        raise TruthError(
            f"{raw.source}: cannot place the track on site {chosen.name!r}: {exc}"
        ) from None
    return Track(
        enu_m=np.ascontiguousarray(enu, dtype=np.float64),
        site=chosen,
        start_utc=start,
        lat_deg=lat,
        lon_deg=lon,
        height_m=np.asarray(height, dtype=np.float64),
        **common,
    )


def load_track(
    path, *, site: Site | str | None = None, start_utc: str | None = None, datum: dict | None = None
) -> Track:
    """Read a track (GPX, CSV or waypoint JSON; formats in the module docstring).

    ``site``: a :class:`~navsense.site.Site`, an embedded site name or a site JSON file; None
    picks ACRE for a geodetic track on the tile (within :data:`ACRE_TILE_RADIUS_M`), else a local
    site at the first point; ENU tracks and waypoint routes default to ACRE. ``start_utc``: UTC of
    t = 0 for a track with relative times (a recorded UTC wins). ``datum``: the gnss.datum block
    of the run's configuration, so the ACRE chain here is the receiver's (default: the
    specification's). Raises TruthError naming the file and the point or line.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".gpx":
        raw = _read_gpx(path)
    elif suffix in (".csv", ".txt", ".tsv"):
        raw = _read_csv(path)
    elif suffix == ".json":
        route = load_waypoints(path)
        chosen = _resolve_site(site)
        traj = route.plan(route.vehicle or "polaris")
        return Track(
            source=str(path),
            kind="waypoints",
            t_s=traj.point_times_s(),
            enu_m=np.array([p.enu_m for p in route.points], dtype=np.float64),
            site=chosen if chosen is not None else embedded_site("acre"),
            start_utc=start_utc,
            labels=tuple(f"points[{i}]" for i in range(len(route.points))),
            route=route,
        )
    else:
        raise TruthError(
            f"{path}: unknown track format {path.suffix or '(no suffix)'!r}; "
            f"expected .gpx, .csv (.txt, .tsv) or .json (waypoints)"
        )
    return _place(raw, site, start_utc, datum)


# --------------------------------------------------------------------------------- splines


def _bspline_to_ppoly(spl, x: np.ndarray) -> PPoly:
    """The cubic B-spline (vector valued, breakpoints x) in the power basis, exactly."""
    from scipy.interpolate import PPoly

    left = x[:-1]
    c = np.stack([spl(left, 3) / 6.0, spl(left, 2) / 2.0, spl(left, 1), spl(left)], axis=0)
    return PPoly(c, x, extrapolate=False)


def _residual_rms_m(spline, t: np.ndarray, xyz: np.ndarray) -> float:
    r = spline(t) - xyz
    return float(np.sqrt(np.mean(r[:, 0] ** 2 + r[:, 1] ** 2) / 2.0))


def _fit(
    t: np.ndarray, xyz: np.ndarray, smoothing_m: float, source: str
) -> tuple[PPoly, float | None, float]:
    """The position spline F(t) (PPoly, 3 columns), lambda (None: interpolating), residual."""
    from scipy.interpolate import CubicSpline, make_smoothing_spline
    from scipy.optimize import brentq

    if smoothing_m == 0.0:
        return CubicSpline(t, xyz, axis=0, bc_type="not-a-knot", extrapolate=False), None, 0.0
    n = len(t)
    if n < MIN_SMOOTHING_POINTS:
        raise TruthError(f"{source}: {n} points; smoothing needs at least {MIN_SMOOTHING_POINTS}")

    def excess(log_lam: float) -> float:
        spl = make_smoothing_spline(t, xyz, lam=10.0**log_lam)
        return _residual_rms_m(spl, t, xyz) - smoothing_m

    # bracket in log10(lambda), starting at lambda ~ dt^3 (a window of about one interval)
    lo = 3.0 * math.log10(max(float(np.median(np.diff(t))), 1e-6))
    for _ in range(20):  # bounded: at most 20 decades each way
        if excess(lo) < 0.0:
            break
        lo -= 1.0
    hi = lo + 2.0
    for _ in range(30):
        if excess(hi) >= 0.0:
            break
        hi += 1.0
    if excess(hi) < 0.0:  # even the smoothest spline fits within sigma
        log_lam = hi
    else:
        log_lam = brentq(excess, lo, hi, xtol=1e-4, maxiter=100)
    lam = 10.0**log_lam
    spl = make_smoothing_spline(t, xyz, lam=lam)
    return _bspline_to_ppoly(spl, t), lam, _residual_rms_m(spl, t, xyz)


def _wrap(a):
    return (np.asarray(a) + np.pi) % (2.0 * np.pi) - np.pi


class TrackSample(NamedTuple):
    """A track trajectory at times t (arrays with leading axis n)."""

    t_s: np.ndarray
    footprint_m: np.ndarray  # base_footprint on the spline, (n, 3)
    footprint_v_mps: np.ndarray  # its velocity F', (n, 3)
    footprint_a_mps2: np.ndarray  # its acceleration F'', (n, 3)
    p_m: np.ndarray  # chassis origin = centre of mass, (n, 3)
    v_mps: np.ndarray  # centre-of-mass velocity, world, (n, 3)
    q_xyzw: np.ndarray  # FLU -> ENU, (n, 4)
    w_radps: np.ndarray  # angular velocity, world, (n, 3)
    speed_mps: np.ndarray  # horizontal speed of base_footprint, (n,)
    yaw_rad: np.ndarray  # continuous (unwrapped), (n,)
    pitch_rad: np.ndarray  # (n,)
    roll_rad: np.ndarray  # (n,)
    gear: np.ndarray  # +1 forward, -1 reversing, int8 (n,)


class TrackTrajectory:
    """A track's continuous trajectory (module docstring): evaluate at any t in [0, end_s].

    ``smoothing_lambda`` is None for the interpolating spline; ``residual_rms_m`` the RMS
    horizontal residual per axis at the track points (0 without smoothing, sigma with).
    """

    def __init__(
        self,
        track: Track,
        vehicle: VehicleProfile,
        *,
        smoothing_m: float = 0.0,
        bank: str = "none",
        stop_speed_mps: float = STOP_SPEED_MPS,
    ) -> None:
        self.track = track
        self.vehicle = vehicle
        self.bank = bank
        self.source = track.source
        self.end_s = track.duration_s
        self.spline, self.smoothing_lambda, self.residual_rms_m = _fit(
            track.t_s, track.enu_m, smoothing_m, track.source
        )
        self._r_f = -vehicle.footprint_in_chassis_m  # chassis origin in base_footprint, FLU
        self._v_lo = stop_speed_mps
        self._v_hi = 2.0 * stop_speed_mps
        self._build_heading()
        self._roll = None
        if bank == "coordinated":  # phi at the points (exactly coordinated), C2 spline between
            knots = np.asarray(self.spline.x)
            d1, d2 = self.spline(knots, 1), self.spline(knots, 2)
            j = np.clip(np.searchsorted(self._iv_start, knots, side="right") - 1, 0, None)
            g = self._iv_gear[j].astype(np.float64)
            h = np.maximum(np.hypot(d1[:, 0], d1[:, 1]), 1e-9)
            acc_lat = g * (d1[:, 0] * d2[:, 1] - d1[:, 1] * d2[:, 0]) / h  # a . y_h
            acc_long = g * (d1[:, 0] * d2[:, 0] + d1[:, 1] * d2[:, 1]) / h  # a . x_h
            pitch = np.arctan2(g * d1[:, 2], h)
            normal = (GRAVITY_MPS2 + d2[:, 2]) * np.cos(pitch) - acc_long * np.sin(pitch)
            from scipy.interpolate import CubicSpline

            self._roll = CubicSpline(
                knots, -np.arctan2(acc_lat, normal), bc_type="not-a-knot", extrapolate=False
            )

    # -------------------------------------------------------------- stops and heading
    def _crossings(self, speed: float) -> np.ndarray:
        """Times where the horizontal speed h(t) equals ``speed`` (roots of h^2, a quartic)."""
        from scipy.interpolate import PPoly

        d1 = self.spline.derivative()
        cx, cy = d1.c[:, :, 0], d1.c[:, :, 1]
        k = cx.shape[0]
        c2 = np.zeros((2 * k - 1, cx.shape[1]))
        for i in range(k):
            for j in range(k):
                c2[i + j] += cx[i] * cx[j] + cy[i] * cy[j]
        roots = PPoly(c2, d1.x, extrapolate=False).solve(
            speed * speed, discontinuity=False, extrapolate=False
        )
        return roots[np.isfinite(roots)]

    def _path_angles(self, t, gear) -> tuple[np.ndarray, np.ndarray]:
        """Heading (wrapped) and pitch of the vehicle moving along the spline in ``gear``."""
        d1 = self.spline(np.atleast_1d(np.asarray(t, dtype=np.float64)), 1)
        g = np.asarray(gear, dtype=np.float64)
        return (
            np.arctan2(g * d1[:, 1], g * d1[:, 0]),
            np.arctan2(g * d1[:, 2], np.hypot(d1[:, 0], d1[:, 1])),
        )

    def _build_heading(self) -> None:
        """Zones (rest, blend, moving) between speed crossings, gears, holds and unwrap nodes."""
        end = self.end_s
        events = np.unique(
            np.concatenate([[0.0, end], self._crossings(self._v_lo), self._crossings(self._v_hi)])
        )
        events = events[(events >= 0.0) & (events <= end)]
        events = events[np.concatenate([[True], np.diff(events) > _MERGE_S])]
        events[-1] = end
        if events.size < 2:
            events = np.array([0.0, end])
        starts = events[:-1]
        d1 = self.spline(0.5 * (events[:-1] + events[1:]), 1)
        h_mid = np.hypot(d1[:, 0], d1[:, 1])
        zone = np.where(h_mid >= self._v_hi, _FAST, np.where(h_mid >= self._v_lo, _BLEND, _REST))
        first = np.concatenate([[True], zone[1:] != zone[:-1]])
        starts, zone = starts[first], zone[first]
        ends = np.concatenate([starts[1:], [end]])

        m = len(starts)
        gears = np.ones(m, dtype=np.int8)
        hold_yaw = np.zeros(m)
        hold_pitch = np.zeros(m)
        node_t, node_ref = [], []
        gear = 1
        fast = np.flatnonzero(zone == _FAST)
        if zone[0] != _FAST and fast.size:  # starts at rest: the heading of the first motion
            y0, p0 = self._path_angles(starts[fast[0]], 1)
            hy, hp = float(y0[0]), float(p0[0])
        else:
            hy, hp = 0.0, 0.0
        prev_end = None  # unwrapped heading at the end of interval i - 1
        for i in range(m):
            a, b, z = float(starts[i]), float(ends[i]), zone[i]
            nodes = a + HEADING_NODE_STEP_S * np.arange(
                max(1, math.ceil((b - a) / HEADING_NODE_STEP_S))
            )
            nodes = nodes[nodes < b] if b > a else nodes[:1]
            if nodes.size == 0:
                nodes = np.array([a])
            entering = i > 0 and zone[i - 1] == _FAST and z != _FAST
            if entering:  # a stop begins: hold the heading and pitch here
                hy = prev_end
                hp = float(self._path_angles(a, gear)[1][0])
            if z == _REST:
                ref = np.full(nodes.size, hy)
                prev_end = hy
            elif z == _FAST or entering:  # unwrap forward from the heading at a
                raw = self._path_angles(nodes, gear)[0]
                anchor = prev_end if prev_end is not None else float(raw[0])
                ref = np.unwrap(np.concatenate([[anchor], raw[1:]]))
                y_b = float(self._path_angles(b, gear)[0][0])
                prev_end = float(ref[-1] + _wrap(y_b - ref[-1]))
                if z == _FAST:
                    hy, hp = float(ref[0]), float(self._path_angles(a, gear)[1][0])
            else:  # blend after rest (or at the start): anchor at b
                if i > 0 and abs(_wrap(self._path_angles(b, gear)[0][0] - hy)) > 0.5 * np.pi:
                    gear = -gear  # moving off backwards: reversing
                y_b = float(self._path_angles(b, gear)[0][0])
                anchor = hy + float(_wrap(y_b - hy))
                raw = self._path_angles(nodes, gear)[0]
                ref = np.unwrap(np.concatenate([[anchor], raw[::-1]]))[1:][::-1]
                prev_end = anchor
            gears[i], hold_yaw[i], hold_pitch[i] = gear, hy, hp
            node_t.append(nodes)
            node_ref.append(ref)
        self._iv_start = starts
        self._iv_zone = zone
        self._iv_gear = gears
        self._iv_hold_yaw = hold_yaw
        self._iv_hold_pitch = hold_pitch
        self._node_t = np.concatenate(node_t)
        self._node_ref = np.concatenate(node_ref)

    @property
    def stops(self) -> list[tuple[float, float]]:
        """(start, end) times of the rests (horizontal speed below stop_speed_mps), s."""
        ends = np.concatenate([self._iv_start[1:], [self.end_s]])
        return [
            (float(a), float(b))
            for a, b, z in zip(self._iv_start, ends, self._iv_zone)
            if z == _REST
        ]

    # -------------------------------------------------------------- evaluation
    def steps(self, rate_hz: float) -> int:
        """Physics steps within the track: floor(end_s rate_hz); the log has steps + 1 rows."""
        return int(math.floor(self.end_s * rate_hz + 1e-9))

    def evaluate(self, t_s) -> TrackSample:
        """The trajectory at times ``t_s`` (s, within [0, end_s]; any shape flattened to (n,))."""
        t = np.atleast_1d(np.asarray(t_s, dtype=np.float64)).ravel()
        if t.size and (
            np.min(t) < -1e-9 or np.max(t) > self.end_s + 1e-9 or not np.all(np.isfinite(t))
        ):
            raise TruthError(
                f"{self.source}: times {np.min(t):g}..{np.max(t):g} s outside the "
                f"track, 0..{self.end_s:g} s"
            )
        t = np.clip(t, 0.0, self.end_s)
        f = self.spline(t)
        d1, d2 = self.spline(t, 1), self.spline(t, 2)
        x1, y1, z1 = d1[:, 0], d1[:, 1], d1[:, 2]
        x2, y2, z2 = d2[:, 0], d2[:, 1], d2[:, 2]
        h = np.hypot(x1, y1)
        hs = np.maximum(h, 1e-9)  # raw terms are multiplied by w = 0
        j = np.clip(np.searchsorted(self._iv_start, t, side="right") - 1, 0, None)
        k = np.clip(np.searchsorted(self._node_t, t, side="right") - 1, 0, None)
        g = self._iv_gear[j].astype(np.float64)

        # blend weight w(h) (quintic smoothstep) and dw/dh
        span = self._v_hi - self._v_lo
        x = np.clip((h - self._v_lo) / span, 0.0, 1.0)
        w = x * x * x * (10.0 - x * (15.0 - 6.0 * x))
        dw = 30.0 * x * x * (1.0 - x) ** 2 / span
        dh = (x1 * x2 + y1 * y2) / hs  # h'

        cross = x1 * y2 - y1 * x2
        ref = self._node_ref[k]
        yaw_path = ref + _wrap(np.arctan2(g * y1, g * x1) - ref)  # unwrapped near the node
        yaw_rate_path = cross / hs**2  # psi' = (x'y'' - y'x'') / h^2
        pitch_path = np.arctan2(g * z1, h)
        pitch_rate_path = g * (z2 * h - z1 * dh) / np.maximum(h * h + z1 * z1, 1e-18)
        hold_y, hold_p = self._iv_hold_yaw[j], self._iv_hold_pitch[j]
        yaw = np.where(w == 1.0, yaw_path, hold_y + w * (yaw_path - hold_y))
        yaw_rate = w * yaw_rate_path + dw * dh * (yaw_path - hold_y)
        pitch = np.where(w == 1.0, pitch_path, hold_p + w * (pitch_path - hold_p))
        pitch_rate = w * pitch_rate_path + dw * dh * (pitch_path - hold_p)

        if self._roll is not None:
            roll_path, roll_rate_path = self._roll(t), self._roll(t, 1)
            roll = w * roll_path
            roll_rate = w * roll_rate_path + dw * dh * roll_path
            q, omega = attitude_from_angles(yaw, pitch, yaw_rate, pitch_rate, roll, roll_rate)
            p, v = chassis_from_footprint(f, d1, yaw, pitch, omega, self._r_f, roll)
        else:
            roll = np.zeros_like(t)
            q, omega = attitude_from_angles(yaw, pitch, yaw_rate, pitch_rate)
            p, v = chassis_from_footprint(f, d1, yaw, pitch, omega, self._r_f)
        return TrackSample(
            t_s=t,
            footprint_m=f,
            footprint_v_mps=d1,
            footprint_a_mps2=d2,
            p_m=p,
            v_mps=v,
            q_xyzw=q,
            w_radps=omega,
            speed_mps=h,
            yaw_rad=yaw,
            pitch_rad=pitch,
            roll_rad=roll,
            gear=self._iv_gear[j],
        )

    def sample(self, rate_hz: float = PHYSICS_HZ) -> TruthStates:
        """The truth log: rows k = 0 .. steps(rate_hz) at t = k / rate_hz, from step 0."""
        n = self.steps(rate_hz) + 1
        ev = self.evaluate(np.arange(n, dtype=np.int64) / rate_hz)
        p = np.ascontiguousarray(ev.p_m)
        return TruthStates(
            step0=0,
            p_m=p,
            q_xyzw=np.ascontiguousarray(ev.q_xyzw),
            v_mps=np.ascontiguousarray(ev.v_mps),
            w_radps=np.ascontiguousarray(ev.w_radps),
            c_m=p.copy(),
            reset=np.zeros(n, dtype=np.bool_),
            rate_hz=float(rate_hz),
        )


# ----------------------------------------------------------------------------- build


def _options(vehicle, rate_hz, smoothing_m, bank, stop_speed_mps, track):
    if vehicle is None:
        vehicle = (track.route.vehicle if track.route is not None else None) or "polaris"
    vehicle = vehicle if isinstance(vehicle, VehicleProfile) else vehicle_profile(vehicle)
    for name, value, minimum in (
        ("rate_hz", rate_hz, None),
        ("smoothing_m", smoothing_m, 0.0),
        ("stop_speed_mps", stop_speed_mps, None),
    ):
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not math.isfinite(value)
            or (value < minimum if minimum is not None else value <= 0)
        ):
            rule = f">= {minimum:g}" if minimum is not None else "> 0"
            raise TruthError(f"{name} = {value!r} must be a finite number {rule}")
    if bank not in BANK_MODES:
        raise TruthError(f"bank = {bank!r} is not one of {', '.join(BANK_MODES)}")
    if track.route is not None and (smoothing_m != 0.0 or bank != "none"):
        raise TruthError(
            f"{track.source}: smoothing_m and bank apply to recorded tracks (GPX, "
            f"CSV); a waypoint route is planned, not smoothed or banked"
        )
    return vehicle


def plan_track(
    track: Track,
    vehicle: VehicleProfile | str | None = None,
    *,
    smoothing_m: float = 0.0,
    bank: str = "none",
    stop_speed_mps: float = STOP_SPEED_MPS,
):
    """The continuous trajectory of ``track``: a :class:`TrackTrajectory`, or for a waypoint
    route its planned :class:`~navsense.truth.waypoints.Trajectory` (both have evaluate, steps,
    end_s). ``vehicle`` None: the route's, else polaris."""
    vehicle = _options(vehicle, PHYSICS_HZ, smoothing_m, bank, stop_speed_mps, track)
    if track.route is not None:
        return track.route.plan(vehicle)
    return TrackTrajectory(
        track,
        vehicle,
        smoothing_m=float(smoothing_m),
        bank=bank,
        stop_speed_mps=float(stop_speed_mps),
    )


def build_truth_from_track(
    track: Track,
    vehicle: VehicleProfile | str | None = None,
    rate_hz: float = PHYSICS_HZ,
    *,
    smoothing_m: float = 0.0,
    bank: str = "none",
    stop_speed_mps: float = STOP_SPEED_MPS,
) -> TruthStates:
    """The truth log of ``track`` on the physics clock (step 0 at the first point, t = 0).

    ``smoothing_m``: standard deviation of the recorded horizontal position noise per axis, m
    (0: the spline passes through every point); ``bank``: "none" (roll 0) or "coordinated";
    ``stop_speed_mps``: below it the heading is held (module docstring). A waypoint route is
    sampled as planned (``route.plan(vehicle).sample(rate_hz)``).
    """
    vehicle = _options(vehicle, rate_hz, smoothing_m, bank, stop_speed_mps, track)
    traj = plan_track(
        track, vehicle, smoothing_m=smoothing_m, bank=bank, stop_speed_mps=stop_speed_mps
    )
    return traj.sample(float(rate_hz))
