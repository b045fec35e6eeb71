"""Track files: GPX (gpxpy) and CSV recordings read into a :class:`RawTrack`, before placement.

Formats (chosen by the file suffix in :func:`navsense.truth.tracks.load_track`):

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

Times without a UTC offset are taken as UTC (GPX times are UTC by the GPX 1.1 schema). Errors
(:class:`navsense.errors.TruthError`) are one line naming the file and the point or line: no
timestamps, a file that is not GPX given as .gpx, unparsable or non-finite numbers, mixed
columns. Times in order, point counts and coordinate ranges are checked by
:mod:`navsense.truth.track_site`.
"""

from __future__ import annotations

import csv
import datetime as _dt
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.parsers import expat

import numpy as np

from navsense.errors import TruthError
from navsense.utc import utc_datetime

__all__ = ["RawTrack", "read_gpx", "read_csv", "CSV_COLUMNS", "MIN_TRACK_POINTS"]

MIN_TRACK_POINTS = 4  # a not-a-knot cubic spline needs 4 points

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


@dataclass
class RawTrack:
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


def point_error(source: str, where: str, message: str) -> TruthError:
    return TruthError(f"{source}: {where}: {message}" if where else f"{source}: {message}")


def _csv_row(line: str, delim: str, source: str, where: str) -> list[str]:
    """The fields of one CSV line; TruthError naming the line when it is not CSV (a field
    longer than the csv module's limit of 131072 characters: binary or a damaged file)."""
    try:
        return next(csv.reader([line], delimiter=delim))
    except csv.Error as exc:
        raise point_error(source, where, f"not CSV ({exc})") from None


#: A decimal number as GPX (xsd:decimal, with an exponent) and CSV files write it: not the rest
#: of what Python's float() takes (``4_0.474`` read as 40.474, ``nan``, ``infinity``, other
#: scripts' digits), which the truth CSV reader refuses too.
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _decimal(text: str) -> float | None:
    """``text`` (stripped) as a float if it is a decimal number (:data:`_DECIMAL`), else None."""
    text = text.strip()
    return float(text) if _DECIMAL.fullmatch(text) else None


def _number(text: str | None, name: str, source: str, where: str) -> float:
    if text is None or not text.strip():
        raise point_error(source, where, f"{name} is empty; a number is required")
    value = _decimal(text)
    if value is None:
        raise point_error(source, where, f"{name} = {text.strip()!r} is not a number")
    if not math.isfinite(value):
        raise point_error(source, where, f"{name} = {text.strip()!r} is not a finite number")
    return value


def _as_utc(t: _dt.datetime) -> _dt.datetime:
    return t.replace(tzinfo=_dt.UTC) if t.tzinfo is None else t.astimezone(_dt.UTC)


#: An ISO 8601 time at second 60 (a leap second, 2016-12-31T23:59:60Z): a real time, but not one
#: that navsense's UTC datetimes (without leap seconds, as POSIX) hold.
_LEAP_SECOND = re.compile(r"^\s*\d{4}-\d\d-\d\d[Tt ]\d\d:\d\d:60(\.\d*)?")


def _leap_second(text: str) -> str:
    """The reason a time that parse_iso refused is refused when it is a leap second, else ''."""
    if _LEAP_SECOND.match(text):
        return (
            "is a leap second (second 60), which navsense's UTC times (without leap seconds, "
            "as POSIX) cannot hold; leave the point out"
        )
    return ""


def parse_iso(text: str) -> _dt.datetime | None:
    """The UTC datetime of an ISO 8601 time (navsense.utc), None when it is not one."""
    try:
        return utc_datetime(text)
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
        self._parts: list[str] = []  # the child's text, joined at its end (+= is quadratic)
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
        except (LookupError, ValueError) as exc:  # an encoding expat cannot decode
            raise TruthError(
                f"{source}: line 1: not a GPX file navsense can read: its XML declaration "
                f"names an encoding expat cannot decode ({exc}); save it as UTF-8"
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
            if self._point[local] is not None:  # gpxpy reads the first, this scan the last
                self._point["repeated"] = self._point.get("repeated") or local
            self._child = local
            self._point[local] = ""
            self._parts = []

    def _end(self, name: str) -> None:
        if self._child is not None and self._point is not None:
            self._point[self._child] += "".join(self._parts)
        self._parts = []
        if self._point is not None and len(self._stack) == self._depth:
            self._point = None
        self._child = None
        self._stack.pop()

    def _text(self, text: str) -> None:
        if self._child is not None and self._point is not None:
            self._parts.append(text)


def read_gpx(path: Path) -> RawTrack:
    import gpxpy
    import gpxpy.gpx

    from navsense.jsonfile import MAX_INPUT_BYTES, check_input_file

    source = str(path)
    check_input_file(path, "track", TruthError, MAX_INPUT_BYTES)
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
        if r.get("repeated"):
            raise point_error(source, where, f"<{r['repeated']}> twice; a point has one")
        for key in ("lat", "lon"):
            if r[key] is None:
                raise point_error(source, where, f"no {key} attribute")
            _number(r[key], key, source, where)
        if r["ele"] is not None:
            _number(r["ele"], "<ele>", source, where)
        if r["time"] is None or not r["time"].strip():
            raise point_error(source, where, "no <time>; every track point needs a timestamp")
        if parse_iso(r["time"]) is None:
            raise point_error(
                source,
                where,
                f"<time> {r['time'].strip()!r} "
                + (
                    _leap_second(r["time"])
                    or "is not an ISO 8601 time such as 2024-05-01T10:00:00Z"
                ),
            )
    try:
        text = data.decode("utf-8-sig")
        gpx = gpxpy.parse(text)
    except UnicodeDecodeError:
        raise TruthError(f"{source}: not a GPX file navsense can read (not UTF-8 text)") from None
    except gpxpy.gpx.GPXException as exc:
        raise TruthError(f"{source}: not a valid GPX file ({exc})") from None
    pts: list[Any]
    if kind == "trkpt":
        pts = [p for trk in gpx.tracks for seg in trk.segments for p in seg.points]
    elif kind == "rtept":
        pts = [p for rte in gpx.routes for p in rte.points]
    else:
        pts = list(gpx.waypoints)
    if len(pts) != len(records):
        # gpxpy finds no point of a GPX whose namespace has a prefix (<g:gpx xmlns:g=...>,
        # <g:trkpt>: the same XML): the scan's points, checked above, are read instead
        from types import SimpleNamespace

        pts = [
            SimpleNamespace(
                latitude=_number(r["lat"], "lat", source, where),
                longitude=_number(r["lon"], "lon", source, where),
                elevation=None if r["ele"] is None else _number(r["ele"], "<ele>", source, where),
                time=None,
            )
            for r, where in zip(records, labels, strict=True)
        ]
    times = []
    for i, p in enumerate(pts):  # a time gpxpy does not read is read from the text
        t = _as_utc(p.time) if p.time is not None else parse_iso(records[i]["time"] or "")
        if t is None:
            raise point_error(source, labels[i], "no <time> gpxpy can read")
        times.append(t)
    elev = [p.elevation for p in pts]
    has = [e is not None for e in elev]
    if any(has) and not all(has):
        i = has.index(False) if has[0] else has.index(True)
        raise point_error(
            source,
            labels[i],
            f"{'no' if has[0] else 'an'} <ele> while "
            f"{labels[0]} has {'one' if has[0] else 'none'}; give "
            f"every point an elevation or none",
        )
    return RawTrack(
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


def _csv_columns(
    names: list[str], header: str, header_line: int, source: str
) -> tuple[dict[str, int], bool, tuple[str, str], str | None, str]:
    """The header's columns of a CSV track: (column index by canonical name, geodetic, the two
    horizontal keys, the height key or None, the time key); TruthError naming the line when the
    header is not one of the accepted sets."""
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
        raise point_error(source, where, f"both geodetic and ENU columns; use one set: {accepted}")
    if not geodetic and not enu:
        raise point_error(
            source,
            where,
            f"header {header.strip()!r} has no recognised position columns; accepted: {accepted}",
        )
    need = ("lat_deg", "lon_deg") if geodetic else ("x_m", "y_m")
    for key in need:
        if key not in col:
            raise point_error(source, where, f"no {key} column; accepted: {accepted}")
    if "alt_m" in col and "height_m" in col:
        raise point_error(
            source,
            where,
            "both alt_m (height above the geoid) and height_m "
            "(ellipsoidal height) columns; give one",
        )
    if not geodetic and ("alt_m" in col or "height_m" in col):
        raise point_error(
            source,
            where,
            "alt_m / height_m belong to lat_deg, lon_deg tracks; an ENU track gives z_m",
        )
    if geodetic and "z_m" in col:
        raise point_error(
            source,
            where,
            "z_m belongs to x_m, y_m tracks; a geodetic track gives alt_m or height_m",
        )
    if "time" in col and "t_s" in col:
        raise point_error(source, where, "both time and t_s columns; give one")
    if "time" not in col and "t_s" not in col:
        raise point_error(
            source,
            where,
            "no time column (time: ISO 8601 or seconds, or t_s: seconds); a track needs timestamps",
        )
    c_key = next((k for k in ("alt_m", "height_m", "z_m") if k in col), None)
    t_key = "time" if "time" in col else "t_s"
    return col, geodetic, need, c_key, t_key


def _csv_time(cell: str, t_key: str, source: str, where: str) -> tuple[Any, bool]:
    """A CSV track point's time: (seconds or an aware datetime, whether it is absolute)."""
    if not cell:
        raise point_error(source, where, f"{t_key} is empty; every point needs a timestamp")
    value: Any = _decimal(cell)
    is_abs = value is None
    if t_key == "t_s" and is_abs:
        raise point_error(source, where, f"t_s = {cell!r} is not a number of seconds")
    if is_abs:
        value = parse_iso(cell)
        if value is None:
            raise point_error(
                source,
                where,
                f"time = {cell!r} "
                + (
                    _leap_second(cell)
                    or "is neither an ISO 8601 time (2024-05-01T10:00:00Z) nor seconds"
                ),
            )
    elif not math.isfinite(value):
        raise point_error(source, where, f"{t_key} = {cell!r} is not a finite number")
    return value, is_abs


def read_csv(path: Path) -> RawTrack:
    from navsense.jsonfile import read_text

    source = str(path)
    text = read_text(path, "track", TruthError)
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
    names = [n.strip().lower() for n in _csv_row(header, delim, source, f"line {header_line}")]
    col, geodetic, need, c_key, t_key = _csv_columns(names, header, header_line, source)
    labels, a, b, c, times = [], [], [], [], []
    absolute = None
    for lineno, line in kept[1:]:
        where = f"line {lineno}"
        row = _csv_row(line, delim, source, where)
        if len(row) != len(names):
            raise point_error(source, where, f"{len(row)} fields, the header has {len(names)}")
        a.append(_number(row[col[need[0]]], need[0], source, where))
        b.append(_number(row[col[need[1]]], need[1], source, where))
        if c_key is not None:
            c.append(_number(row[col[c_key]], c_key, source, where))
        cell = row[col[t_key]].strip()
        value, is_abs = _csv_time(cell, t_key, source, where)
        if absolute is None:
            absolute = is_abs
        elif absolute != is_abs:
            raise point_error(
                source,
                where,
                f"time = {cell!r} mixes "
                f"{'seconds' if absolute else 'ISO 8601 times'} with "
                f"{'ISO 8601 times' if absolute else 'seconds'}",
            )
        times.append(value)
        labels.append(where)
    return RawTrack(
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
