"""NMEA 0183 GGA sentences of the GNSS receiver (``gnss.nmea``, the row key ``nmea_gga``).

Specification, "GNSS Receiver / Output Row"; DESIGN.md ruling "GGA number formats"::

    $GNGGA,hhmmss.ss,ddmm.mmmmmmm,N,dddmm.mmmmmmm,W,q,ss,h.hh,a.aaa,M,g.ggg,M,c.c,0001*CS

- UTC time of the epoch (start_utc + t), rounded to the hundredth of a second, hhmmss.ss;
- latitude and longitude in degrees and minutes with 7 decimals of a minute (1e-7 minute is
  about 0.2 mm); the minutes are rounded as an integer count of 1e-7 minute, so 59.99999996'
  carries into the next whole degree (never "60.0000000");
- quality: 0 no_fix, 1 single, 2 dgps, 4 rtk_fixed, 5 rtk_float;
- satellites used: an integer, printed with at least two digits ("08"), as u-blox and NovAtel do;
- HDOP with 2 decimals; the NAVD88 altitude and the geoid separation (ellipsoidal height of the
  output frame minus the NAVD88 altitude) with 3 decimals, unit M;
- the correction age with 1 decimal and the station id 0001; both fields empty when no
  correction is given (``age_s`` None or NaN);
- checksum: the exclusive OR of the characters between $ and *, two uppercase hex digits.

No fix (quality 0): a receiver without a position still sends its GGA at the epoch rate with
the time, the quality, the satellite count and HDOP, and empty position, altitude and separation
fields (u-blox style: ``$GNGGA,150001.00,,,,,0,03,99.99,,,,,,*..``). Pass ``lat_deg=None``
(:func:`gga_sentence`) or mark the row in ``no_fix`` (:func:`gga_sentences`).

:func:`gga_sentences` is the one implementation, vectorised over the epochs of a block (one
epoch or a whole log: the same code); :func:`gga_sentence` calls it for one row.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from navsense.output.appendfile import AppendFile
from navsense.utc import utc_datetime

__all__ = [
    "gga_sentence",
    "gga_sentences",
    "nmea_checksum",
    "nmea_checksums",
    "utc_hhmmss",
    "utc_seconds_of_day",
    "NmeaWriter",
    "read_nmea",
    "STATION_ID",
    "TALKER_GGA",
    "LINE_END",
]

TALKER_GGA = "GNGGA"  # multi-system talker (GPS, Galileo, GLONASS)
STATION_ID = "0001"  # specification, "Output Row": the station 0001
LINE_END = "\r\n"  # NMEA 0183: every sentence ends with <CR><LF>
_MINUTE_UNITS = 10_000_000  # 7 decimals of a minute
_DAY_CS = 8_640_000  # hundredths of a second in a day
_HEX = [f"{x:02X}" for x in range(256)]  # checksum byte -> two uppercase hex digits


def nmea_checksum(body: str) -> str:
    """XOR of the characters of ``body`` (the text between $ and *), two uppercase hex digits
    (:func:`nmea_checksums` of one body)."""
    return _HEX[int(nmea_checksums([body])[0])]


def nmea_checksums(bodies: list[str]) -> np.ndarray:
    """The checksums (uint8, one a body) of many sentence bodies at once (as :func:`nmea_checksum`).

    The bodies are encoded as one ASCII buffer and XOR-reduced segment by segment
    (``np.bitwise_xor.reduceat`` over the bodies' offsets); an empty body has checksum 0.
    """
    if not bodies:
        return np.zeros(0, dtype=np.uint8)
    lengths = np.fromiter(map(len, bodies), dtype=np.int64, count=len(bodies))
    buf = np.frombuffer("".join(bodies).encode("ascii"), dtype=np.uint8)
    starts = np.zeros(len(bodies), dtype=np.int64)
    np.cumsum(lengths[:-1], out=starts[1:])
    nonempty = lengths > 0
    out = np.zeros(len(bodies), dtype=np.uint8)
    if nonempty.any():
        # reduceat over the starts of the non-empty bodies: each segment ends where the next starts
        out[nonempty] = np.bitwise_xor.reduceat(buf, starts[nonempty])
    return out


def utc_seconds_of_day(start_utc) -> float:
    """Seconds since 00:00 UTC of the start time (ISO 8601 string or aware datetime)."""
    if isinstance(start_utc, str):
        start_utc = utc_datetime(start_utc)
    if start_utc.tzinfo is not None:
        start_utc = start_utc.astimezone(UTC)
    return (
        start_utc.hour * 3600
        + start_utc.minute * 60
        + start_utc.second
        + start_utc.microsecond * 1e-6
    )


def _centiseconds_of_day(seconds_of_day: np.ndarray) -> np.ndarray:
    """Hundredths of a second, floor(s 100 + 0.5), wrapped at midnight (int64)."""
    s = np.asarray(seconds_of_day, dtype=np.float64)
    if not np.isfinite(s).all():
        raise ValueError("GGA: the UTC time of day must be finite")
    return np.floor(s * 100.0 + 0.5).astype(np.int64) % _DAY_CS


def _time_fields(centiseconds):
    """hhmmss as one integer hh * 10000 + mm * 100 + ss, and the hundredths, of hundredths of a
    second of the day (an int or an int64 array)."""
    sec, hund = divmod(centiseconds, 100)
    hh, sec = divmod(sec, 3600)
    mi, sec = divmod(sec, 60)
    return hh * 10000 + mi * 100 + sec, hund


def _angle_fields(units):
    """Degrees and whole minutes as one integer d * 100 + min, and the minutes' 7 decimals, of
    whole 1e-7 minutes (an int or an int64 array)."""
    deg, rem = divmod(units, 60 * _MINUTE_UNITS)
    minutes, frac = divmod(rem, _MINUTE_UNITS)
    return deg * 100 + minutes, frac


def utc_hhmmss(seconds_of_day: float) -> str:
    """hhmmss.ss of a time of day in seconds (rounded to 0.01 s, wrapped at midnight)."""
    hhmmss, hund = _time_fields(int(_centiseconds_of_day(np.array([float(seconds_of_day)]))[0]))
    return f"{hhmmss:06d}.{hund:02d}"


def _minute_units(value_deg: np.ndarray) -> np.ndarray:
    """|value| in whole 1e-7 minutes (int64): |value| 60 1e7 rounded half to even (as round())."""
    v = np.asarray(value_deg, dtype=np.float64)
    if not np.isfinite(v).all():
        raise ValueError("GGA: latitude and longitude must be finite")
    return np.rint(np.abs(v) * 60.0 * _MINUTE_UNITS).astype(np.int64)


def _as_rows(x, m: int, dtype) -> np.ndarray:
    """``x`` as an array (m,) of ``dtype`` (a scalar or a (1,) array is repeated)."""
    a = np.asarray(x, dtype=dtype)
    return a if a.shape == (m,) else np.broadcast_to(a, (m,))


def _body_formats(station: str) -> list[str]:
    """The 8 %-formats of a GGA body, indexed 4 no_fix + 2 (no altitude) + (no age).

    Every format takes the same 16 arguments; a field left empty consumes its argument with
    ``%.0s`` (which prints nothing). Degrees and whole minutes are one integer d * 100 + min,
    so ``%04d`` prints exactly what ``%02d%02d`` prints (``%05d``: ``%03d%02d``), and the time
    one integer hh * 10000 + mm * 100 + ss with ``%06d``.
    """
    station = station.replace("%", "%%")
    time = f"{TALKER_GGA},%06d.%02d,"
    position = ("%04d.%07d,%s,%05d.%07d,%s,", "%.0s%.0s%.0s%.0s%.0s%.0s,,,,")
    middle = "%d,%02d,%.2f,"
    altitude = ("%.3f,M,%.3f,M,", "%.0s%.0s,,,,")
    age = (f"%.1f,{station}", "%.0s,")
    return [
        time + position[p] + middle + altitude[a] + age[c]
        for p in (0, 1)
        for a in (0, 1)
        for c in (0, 1)
    ]


_STATION_FORMATS = {STATION_ID: _body_formats(STATION_ID)}


def gga_sentences(
    utc_s,
    lat_deg,
    lon_deg,
    quality,
    satellites,
    hdop,
    altitude_m,
    geoid_sep_m,
    age_s=None,
    no_fix=None,
    station: str = STATION_ID,
) -> list[str]:
    """The $GNGGA sentences (with their checksums, no line ending) of m epochs at once.

    Arrays of shape (m,) (scalars broadcast to the length of ``utc_s``): ``utc_s`` seconds of
    the UTC day, ``lat_deg``, ``lon_deg``, ``quality``, ``satellites``, ``hdop``, ``altitude_m``
    (NAVD88), ``geoid_sep_m`` and ``age_s`` (NaN: age and station empty; None: empty in every
    row). ``no_fix`` (m,) bool selects the rows of the no-fix form (empty position, altitude and
    separation; their latitude, longitude, altitude and separation are not read; None: no such
    row). ``altitude_m`` None leaves altitude and separation empty in every row.

    The formats are those of the module docstring (DESIGN.md ruling "GGA number formats"). The
    integer parts are computed in numpy: the time as floor(100 s + 0.5) hundredths of a second
    wrapped at midnight, the latitude and longitude as whole 1e-7 minutes (|value| 60 1e7 rounded
    half to even, as Python's round()) split into degrees, minutes and the 7 decimals, so
    59.99999996' carries into the degrees. Each body is one %-format; the checksums are computed
    for all bodies at once (:func:`nmea_checksums`).
    """
    utc = np.asarray(utc_s, dtype=np.float64)
    m = int(utc.size) if utc.ndim else 1
    utc = _as_rows(utc, m, np.float64)
    no_fix = np.zeros(m, dtype=bool) if no_fix is None else _as_rows(no_fix, m, bool)
    # time: hundredths of a second of the day -> hhmmss and the hundredths
    cols = [c.tolist() for c in _time_fields(_centiseconds_of_day(utc))]
    lat = _as_rows(lat_deg, m, np.float64)
    lon = _as_rows(lon_deg, m, np.float64)
    fix_rows = ~no_fix
    all_fix = bool(fix_rows.all())
    for value, hemi in ((lat, "NS"), (lon, "EW")):
        if all_fix:
            units = _minute_units(value)
        else:  # the no-fix rows print nothing: 0 in their place
            units = np.zeros(m, dtype=np.int64)
            units[fix_rows] = _minute_units(value[fix_rows])
        cols += [c.tolist() for c in _angle_fields(units)]
        cols.append(np.where(value >= 0.0, hemi[0], hemi[1]).tolist())
    cols += [
        _as_rows(quality, m, np.float64).astype(np.int64).tolist(),
        _as_rows(satellites, m, np.float64).astype(np.int64).tolist(),
        _as_rows(hdop, m, np.float64).tolist(),
    ]
    code = 4 * no_fix.astype(np.int64)
    if altitude_m is None:
        code += 2
        cols += [[0.0] * m, [0.0] * m]
    else:
        code += 2 * no_fix
        cols += [
            _as_rows(altitude_m, m, np.float64).tolist(),
            _as_rows(geoid_sep_m, m, np.float64).tolist(),
        ]
    if age_s is None:
        code += 1
        cols.append([0.0] * m)
    else:
        age = _as_rows(age_s, m, np.float64)
        code += np.isnan(age)
        cols.append(age.tolist())
    return _sentences(cols, code.tolist(), station)


def _sentences(cols: list, code: list, station: str) -> list[str]:
    """The sentences of the columns of :func:`gga_sentences` and the format code of each row."""
    formats = _STATION_FORMATS.get(station) or _body_formats(station)
    fmt = [formats[c] for c in code]
    bodies = [f % row for f, row in zip(fmt, zip(*cols))]
    return [f"${b}*{_HEX[c]}" for b, c in zip(bodies, nmea_checksums(bodies).tolist())]


def gga_sentence(
    utc_time,
    lat_deg,
    lon_deg,
    quality: int,
    satellites: int,
    hdop: float,
    altitude_m,
    geoid_sep_m,
    age_s=None,
    station: str = STATION_ID,
) -> str:
    """One $GNGGA sentence with its checksum (no line ending): :func:`gga_sentences` of one row.

    ``utc_time``: seconds of the UTC day (float) or a datetime. ``lat_deg`` None gives the no-fix
    form (empty position, altitude and separation). ``age_s`` None or NaN leaves the age and the
    station empty.
    """
    if isinstance(utc_time, datetime):
        utc_time = utc_seconds_of_day(utc_time)
    no_fix = lat_deg is None
    return gga_sentences(
        float(utc_time),
        0.0 if no_fix else lat_deg,
        0.0 if no_fix else lon_deg,
        int(quality),
        int(satellites),
        float(hdop),
        None if no_fix or altitude_m is None else altitude_m,
        geoid_sep_m,
        None if age_s is None else float(age_s),
        no_fix=no_fix,
        station=station,
    )[0]


class NmeaWriter(AppendFile):
    """Write sentences to ``path``, one a line (CR LF); a context manager that never overwrites.

    Like :class:`navsense.output.jsonl.JsonlWriter`, it relies on the run directory for atomicity.
    """

    def __init__(self, path: str | Path) -> None:
        super().__init__(path)
        self.sentences_written = 0

    def write_sentences(self, sentences: list[str]) -> None:
        """Write a block of sentences (each without its line ending)."""
        if not sentences:
            return
        self.append((LINE_END.join(sentences) + LINE_END).encode("ascii"))
        self.sentences_written += len(sentences)


def read_nmea(path: str | Path) -> list[str]:
    """The sentences of a file written by :class:`NmeaWriter` (line endings removed)."""
    with open(path, "rb") as f:
        return [line.decode("ascii").rstrip("\r\n") for line in f if line.strip()]
