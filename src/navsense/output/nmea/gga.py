"""The $GNGGA sentence of the GNSS receiver (the row key ``nmea_gga``, and in ``gnss.nmea``).

GGA: specification, "GNSS Receiver / Output Row"; DESIGN.md ruling "GGA number formats"::

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

from datetime import datetime
from typing import Any

import numpy as np

from navsense.output.nmea.fields import (
    _angle_fields,
    _minute_units,
    _time_text,
    utc_seconds_of_day,
)
from navsense.output.nmea.text import (
    Field,
    _as_rows,
    _blank,
    _chars,
    _choice,
    _digits,
    _fields,
    _fixed,
    _int,
    _literal,
    sentence_lines,
)

__all__ = ["STATION_ID", "TALKER_GGA", "gga_chars", "gga_sentence", "gga_sentences"]

TALKER_GGA = "GNGGA"  # multi-system talker (GPS, Galileo, GLONASS)

STATION_ID = "0001"  # specification, "Output Row": the station 0001


def gga_chars(
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
) -> np.ndarray:
    """The $GNGGA sentences of m epochs at once, as sentence characters (width, m) (see "text
    matrices" below; :func:`gga_sentences` reads them as strings).

    Arrays of shape (m,) (scalars broadcast to the length of ``utc_s``): ``utc_s`` seconds of
    the UTC day, ``lat_deg``, ``lon_deg``, ``quality``, ``satellites``, ``hdop``, ``altitude_m``
    (NAVD88), ``geoid_sep_m`` and ``age_s`` (NaN: age and station empty; None: empty in every
    row). ``no_fix`` (m,) bool selects the rows of the no-fix form (empty position, altitude and
    separation; their latitude, longitude, altitude and separation are not read; None: no such
    row). ``altitude_m`` None leaves altitude and separation empty in every row.

    The formats are those of the module docstring (DESIGN.md ruling "GGA number formats"): the
    time as floor(100 s + 0.5) hundredths of a second wrapped at midnight, the latitude and
    longitude as whole 1e-7 minutes (|value| 60 1e7 rounded half to even, as Python's round())
    split into degrees, minutes and the 7 decimals, so 59.99999996' carries into the degrees;
    quality %d, satellites %02d, HDOP %.2f, altitude and separation %.3f, age %.1f, each
    printed exactly as Python's %-format prints it (:func:`_fixed`, :func:`_int`).
    """
    utc = np.asarray(utc_s, dtype=np.float64)
    m = int(utc.size) if utc.ndim else 1
    utc = _as_rows(utc, m, np.float64)
    no_fix = np.zeros(m, dtype=bool) if no_fix is None else _as_rows(no_fix, m, bool)
    fix_rows = ~no_fix
    position: list[Field] = []
    for value, hemi, width in ((lat_deg, ("N", "S"), 4), (lon_deg, ("E", "W"), 5)):
        v = _as_rows(value, m, np.float64)
        units = np.zeros(m, dtype=np.int64)  # the no-fix rows print nothing: 0 in their place
        units[fix_rows] = _minute_units(v[fix_rows])
        whole, frac = _angle_fields(units)
        number = _int(whole, width) + _literal(".") + _digits(frac, 7)
        south = np.where(fix_rows, ~(v >= 0.0), False)
        position += [_blank(number, no_fix), _blank(_choice(south, hemi), no_fix)]
    if altitude_m is None:
        no_altitude = np.ones(m, dtype=bool)
        alt = sep = np.zeros(m)
    else:
        no_altitude = no_fix
        alt = np.where(no_fix, 0.0, _as_rows(altitude_m, m, np.float64))
        sep = np.where(no_fix, 0.0, _as_rows(geoid_sep_m, m, np.float64))
    age = np.full(m, np.nan) if age_s is None else _as_rows(age_s, m, np.float64)
    no_age = np.isnan(age)
    metres = [_blank(f, no_altitude) for f in (_fixed(alt, 3), _literal("M"), _fixed(sep, 3))]
    body = _fields(
        TALKER_GGA,
        _time_text(utc),
        *position,
        _int(_as_rows(quality, m, np.float64).astype(np.int64), 1),
        _int(_as_rows(satellites, m, np.float64).astype(np.int64), 2),
        _fixed(_as_rows(hdop, m, np.float64), 2),
        metres[0],
        metres[1],
        metres[2],
        metres[1],
        _blank(_fixed(np.where(no_age, 0.0, age), 1), no_age),
        _blank(_literal(station), no_age),
    )
    return _chars(body, m)


def gga_sentences(*args: Any, **kwargs: Any) -> list[str]:
    """The $GNGGA sentences (with their checksums, no line ending) of :func:`gga_chars` (the
    same arguments) as strings."""
    return sentence_lines(gga_chars(*args, **kwargs))


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
