"""The time, date, position, course and speed fields of the NMEA sentences (GGA's rulings).

DESIGN.md ruling "GGA number formats": the UTC time of an epoch is rounded to the hundredth of a
second, floor(100 s + 0.5), and printed hhmmss.ss, wrapped at midnight; the date of an epoch is
the start date plus the whole days of its time so rounded (23:59:59.996 is 00:00:00.00 of the
next day in every field); latitude and longitude are whole 1e-7 minutes (|value| 60 1e7 rounded
half to even), split into degrees, minutes and 7 decimals, so 59.99999996' carries into the next
whole degree; courses have 2 decimals in [0, 360), speeds 3 decimals (rint(x 10^d)).
"""

from __future__ import annotations

from datetime import UTC

import numpy as np

from navsense.output.nmea.text import Field, _blank, _choice, _decimal, _digits, _literal, _number
from navsense.utc import utc_datetime

__all__ = ["utc_hhmmss", "utc_seconds_of_day"]

_MINUTE_UNITS = 10_000_000  # 7 decimals of a minute

_DAY_CS = 8_640_000  # hundredths of a second in a day


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


def _centiseconds(seconds: np.ndarray) -> np.ndarray:
    """Hundredths of a second, floor(s 100 + 0.5) (int64), of a time in seconds."""
    s = np.asarray(seconds, dtype=np.float64)
    if not np.isfinite(s).all():
        raise ValueError("NMEA: the UTC time of day must be finite")
    return np.floor(s * 100.0 + 0.5).astype(np.int64)


def _centiseconds_of_day(seconds_of_day: np.ndarray) -> np.ndarray:
    """Hundredths of a second, floor(s 100 + 0.5), wrapped at midnight (int64)."""
    return _centiseconds(seconds_of_day) % _DAY_CS


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


def _time_text(utc_s) -> Field:
    """hhmmss.ss of times in seconds (floor(100 s + 0.5) hundredths, wrapped at midnight)."""
    hhmmss, hund = _time_fields(_centiseconds_of_day(utc_s))
    return _digits(hhmmss, 6) + _literal(".") + _digits(hund, 2)


def _dates(utc_s, date0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(year, month, day) of the times ``utc_s`` (seconds since 00:00 UTC of the date ``date0``,
    rounded to the hundredth as the time fields are, so 23:59:59.996 is the next day's 00:00)."""
    days = _centiseconds(utc_s) // _DAY_CS
    d = np.datetime64(date0, "D") + days
    month_start = d.astype("datetime64[M]")
    year = month_start.astype("datetime64[Y]").astype(np.int64) + 1970
    month = month_start.astype(np.int64) % 12 + 1
    day = (d - month_start).astype(np.int64) + 1
    return year, month, day


def _position_text(lat_deg, lon_deg, valid) -> list[Field]:
    """The four fields ddmm.mmmmmmm, N|S, dddmm.mmmmmmm, E|W of GGA (same rounding), empty where
    not ``valid``."""
    out = []
    for value, hemi, width in ((lat_deg, ("N", "S"), 4), (lon_deg, ("E", "W"), 5)):
        v = np.where(valid, value, 0.0)
        whole, frac = _angle_fields(_minute_units(v))
        number = _digits(whole, width) + _literal(".") + _digits(frac, 7)
        out += [_blank(number, ~valid), _blank(_choice(v < 0.0, hemi), ~valid)]
    return out


def _course_text(course_deg, valid) -> Field:
    """The course with 2 decimals in [0, 360) (359.996 prints 0.00), empty where not valid."""
    units = np.rint(np.where(valid, course_deg, 0.0) * 100.0).astype(np.int64) % 36000
    return _blank(_number(units, 2), ~valid)


def _speed_text(speed, valid) -> Field:
    """A speed with 3 decimals, empty where not valid."""
    return _blank(_decimal(np.where(valid, speed, 0.0), 3), ~valid)
