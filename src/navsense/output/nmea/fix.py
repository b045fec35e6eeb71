"""RMC, VTG, GST and ZDA: the sentences of the fix, talker GN (navsense extension, issue 20;
NMEA 0183 4.10 as u-blox receivers send it). Time and position fields as GGA's
(:mod:`navsense.output.nmea.fields`), speeds and distances rounded as rint(x 10^d)::

    $GNRMC,hhmmss.ss,A,ddmm.mmmmmmm,N,dddmm.mmmmmmm,W,s.sss,c.cc,ddmmyy,,,M,V*CS
        status A (V without a fix: position, speed and course empty), speed over ground in
        knots (3 decimals), true course (2 decimals, in [0, 360)), date, no magnetic variation,
        the mode indicator (N A D F R, the row's "solution"), navigational status V
    $GNVTG,c.cc,T,,M,s.sss,N,k.kkk,K,M*CS
        true course, no magnetic course, speed in knots and in km/h (3 decimals), the mode;
        without a fix the course and speeds empty, the unit fields kept (u-blox F9 interface
        description, NMEA 4.10/4.11: $GNVTG,,T,,M,,N,,K,N*32)
    $GNGST,hhmmss.ss,r.rrr,a.aaa,b.bbb,o.o,y.yyy,x.xxx,z.zzz*CS
        range RMS, the error ellipse's semi-major and semi-minor axes and the orientation of
        the major axis (deg from true north), the standard deviations of latitude, longitude and
        altitude (m, one sigma; 3 decimals); without a fix every field but the time empty
    $GNZDA,hhmmss.ss,dd,mm,yyyy,00,00*CS              UTC date and time, zone 00:00
"""

from __future__ import annotations

from typing import Any

import numpy as np

from navsense.output.nmea.fields import (
    _course_text,
    _dates,
    _position_text,
    _speed_text,
    _time_text,
)
from navsense.output.nmea.text import (
    Field,
    _blank,
    _chars,
    _choice,
    _decimal,
    _digits,
    _fields,
    _literal,
    _number,
    _one_char,
    _rows,
    sentence_lines,
)

__all__ = [
    "NAV_STATUS",
    "TALKER_COMBINED",
    "gst_chars",
    "gst_sentences",
    "rmc_chars",
    "rmc_sentences",
    "vtg_chars",
    "vtg_sentences",
    "zda_chars",
    "zda_sentences",
]

TALKER_COMBINED = "GN"  # the talker of a fix from several systems (NMEA 0183 4.10)

NAV_STATUS = "V"  # RMC navigational status (NMEA 4.10): V, not given (as u-blox receivers send)


def rmc_chars(
    utc_s,
    date0,
    lat_deg,
    lon_deg,
    speed_knots,
    course_deg,
    mode,
    valid,
    talker: str = TALKER_COMBINED,
    course_valid=None,
) -> np.ndarray:
    """The $GNRMC sentences of m epochs (module docstring).

    ``utc_s`` seconds since 00:00 UTC of the date ``date0`` (a datetime64 or an ISO date),
    ``mode`` the mode indicators (one-character strings), ``valid`` bool: status A with the
    position, speed and course, else status V and those fields empty; ``course_valid`` bool
    (None: ``valid``): the course field empty where False (no course known). Arrays (m,);
    scalars broadcast to the length of ``utc_s``.
    """
    utc = np.asarray(utc_s, dtype=np.float64).reshape(-1)
    m = utc.size
    ok = _rows(valid, m, bool)
    has_course = ok if course_valid is None else ok & _rows(course_valid, m, bool)
    year, month, day = _dates(utc, date0)
    return _chars(
        _fields(
            talker + "RMC",
            _time_text(utc),
            _choice(~ok, ("A", "V")),
            *_position_text(_rows(lat_deg, m), _rows(lon_deg, m), ok),
            _speed_text(_rows(speed_knots, m), ok),
            _course_text(_rows(course_deg, m), has_course),
            _digits(day * 10000 + month * 100 + year % 100, 6),
            [],  # magnetic variation and its direction
            [],
            _one_char(_rows(mode, m, "S1")),
            _literal(NAV_STATUS),
        ),
        m,
    )


def rmc_sentences(*args: Any, **kwargs: Any) -> list[str]:
    """The sentences of :func:`rmc_chars` (the same arguments) as strings."""
    return sentence_lines(rmc_chars(*args, **kwargs))


def vtg_chars(
    course_deg,
    speed_knots,
    speed_kmh,
    mode,
    valid,
    talker: str = TALKER_COMBINED,
    course_valid=None,
) -> np.ndarray:
    """The $GNVTG sentences of m epochs: true course, T, (no magnetic course), M, the speed in
    knots, N, in km/h, K, the mode indicator. Where not ``valid`` the course and speeds are
    empty and the unit fields stay, as the u-blox F9 interface description lays the sentence
    out (its fixed fields T, M, N, K: ``$GNVTG,,T,,M,,N,,K,N``); ``course_valid`` (None:
    ``valid``) empties the course alone where False (no course known)."""
    course = np.asarray(course_deg, dtype=np.float64).reshape(-1)
    m = course.size
    ok = _rows(valid, m, bool)
    has_course = ok if course_valid is None else ok & _rows(course_valid, m, bool)
    return _chars(
        _fields(
            talker + "VTG",
            _course_text(course, has_course),
            _literal("T"),
            [],
            _literal("M"),
            _speed_text(_rows(speed_knots, m), ok),
            _literal("N"),
            _speed_text(_rows(speed_kmh, m), ok),
            _literal("K"),
            _one_char(_rows(mode, m, "S1")),
        ),
        m,
    )


def vtg_sentences(*args: Any, **kwargs: Any) -> list[str]:
    """The sentences of :func:`vtg_chars` (the same arguments) as strings."""
    return sentence_lines(vtg_chars(*args, **kwargs))


def gst_chars(
    utc_s, rms_m, major_m, minor_m, orientation_deg, sigma_m, valid, talker=TALKER_COMBINED
) -> np.ndarray:
    """The $GNGST sentences of m epochs: time, RMS, the error ellipse's semi-major and
    semi-minor axes (m, one sigma) and the semi-major axis's orientation (deg from true north),
    the standard deviations of latitude, longitude and altitude (``sigma_m`` (m, 3) in that
    order, m); 3 decimals (the orientation 1); every field but the time empty where not
    ``valid``."""
    utc = np.asarray(utc_s, dtype=np.float64).reshape(-1)
    m = utc.size
    ok = _rows(valid, m, bool)
    sig = np.asarray(sigma_m, dtype=np.float64).reshape(m, 3)

    def metres(x) -> Field:
        return _blank(_decimal(np.where(ok, x, 0.0), 3), ~ok)

    orient = np.rint(np.where(ok, _rows(orientation_deg, m), 0.0) * 10.0).astype(np.int64) % 3600
    return _chars(
        _fields(
            talker + "GST",
            _time_text(utc),
            metres(_rows(rms_m, m)),
            metres(_rows(major_m, m)),
            metres(_rows(minor_m, m)),
            _blank(_number(orient, 1), ~ok),
            metres(sig[:, 0]),
            metres(sig[:, 1]),
            metres(sig[:, 2]),
        ),
        m,
    )


def gst_sentences(*args: Any, **kwargs: Any) -> list[str]:
    """The sentences of :func:`gst_chars` (the same arguments) as strings."""
    return sentence_lines(gst_chars(*args, **kwargs))


def zda_chars(utc_s, date0, talker: str = TALKER_COMBINED) -> np.ndarray:
    """The $GNZDA sentences of m epochs: time, day, month, year, local zone hours and minutes
    (00, 00: the time is UTC). ``utc_s`` and ``date0`` as :func:`rmc_sentences`."""
    utc = np.asarray(utc_s, dtype=np.float64).reshape(-1)
    m = utc.size
    year, month, day = _dates(utc, date0)
    return _chars(
        _fields(
            talker + "ZDA",
            _time_text(utc),
            _digits(day, 2),
            _digits(month, 2),
            _digits(year, 4),
            _literal("00"),
            _literal("00"),
        ),
        m,
    )


def zda_sentences(*args: Any, **kwargs: Any) -> list[str]:
    """The sentences of :func:`zda_chars` (the same arguments) as strings."""
    return sentence_lines(zda_chars(*args, **kwargs))
