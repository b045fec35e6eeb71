"""NMEA 0183 sentences of the GNSS receiver (``gnss.nmea``, the row key ``nmea_gga``).

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

The other sentences (navsense extension, issue 20; NMEA 0183 4.10 as u-blox receivers send it),
time and position fields as GGA's, speeds and distances rounded as rint(x 10^d)::

    $GNRMC,hhmmss.ss,A,ddmm.mmmmmmm,N,dddmm.mmmmmmm,W,s.sss,c.cc,ddmmyy,,,M,V*CS
        status A (V without a fix: position, speed and course empty), speed over ground in
        knots (3 decimals), true course (2 decimals, in [0, 360)), date, no magnetic variation,
        the mode indicator (N A D F R, the row's "solution"), navigational status V
    $GNVTG,c.cc,T,,M,s.sss,N,k.kkk,K,M*CS
        true course, no magnetic course, speed in knots and in km/h (3 decimals), the mode;
        without a fix every field but the mode empty (u-blox: $GNVTG,,,,,,,,,N*2E)
    $GPGSA,A,3,pp,...,pp,p.pp,h.hh,v.vv,1*CS          one a system (GP, GL, GA)
        automatic 2D/3D, navigation mode 3 (1 without a fix, no PRN), 12 PRN fields of the
        system's satellites used (more than 12: another sentence), PDOP, HDOP, VDOP of the
        solution (2 decimals), the system ID (1 GPS, 2 GLONASS, 3 Galileo)
    $GPGSV,t,i,nn,pp,ee,aaa,ss,...,1*CS                one set a system
        t sentences, this one's number, the satellites in view, up to four (PRN, elevation
        00..90 deg, azimuth 000..359 deg, C/N0 00..99 dB-Hz or empty: no signal), the signal ID
        (GPS L1 C/A 1, GLONASS L1 OF 1, Galileo E1 B/C 7); none in view: $GPGSV,1,1,00,1*CS
    $GNGST,hhmmss.ss,r.rrr,a.aaa,b.bbb,o.o,y.yyy,x.xxx,z.zzz*CS
        range RMS, the error ellipse's semi-major and semi-minor axes and the orientation of
        the major axis (deg from true north), the standard deviations of latitude, longitude and
        altitude (m, one sigma; 3 decimals); without a fix every field but the time empty
    $GNZDA,hhmmss.ss,dd,mm,yyyy,00,00*CS              UTC date and time, zone 00:00

PRNs as NMEA 4.10 numbers them: GPS 1..32, GLONASS 65..96 (slot + 64), Galileo 1..36. The date
of an epoch is the start date plus the whole days of its time rounded to the hundredth, so
23:59:59.996 is 00:00:00.00 of the next day in every field. :data:`SENTENCE_ORDER` is the order
within an epoch (u-blox's: RMC, VTG, GGA, GSA, GSV, (GLL), GST, ZDA); :func:`interleave` puts the
sentences of several types in it.

These sentences are built as character matrices, all rows of a type at once (see "text
matrices" below): the same code for one epoch or a whole log.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from navsense.output.appendfile import AppendFile
from navsense.utc import utc_datetime

__all__ = [
    "gga_sentence",
    "gga_sentences",
    "gga_chars",
    "nmea_checksum",
    "nmea_checksums",
    "utc_hhmmss",
    "utc_seconds_of_day",
    "NmeaWriter",
    "read_nmea",
    "STATION_ID",
    "TALKER_GGA",
    "LINE_END",
    "SENTENCE_ORDER",
    "TALKER_COMBINED",
    "rmc_sentences",
    "vtg_sentences",
    "gsa_sentences",
    "gsv_sentences",
    "gst_sentences",
    "zda_sentences",
    "interleave",
    "interleave_text",
    "sentence_lines",
    "rmc_chars",
    "vtg_chars",
    "gsa_chars",
    "gsv_chars",
    "gst_chars",
    "zda_chars",
]

TALKER_GGA = "GNGGA"  # multi-system talker (GPS, Galileo, GLONASS)
#: The sentences navsense writes, in the order a receiver sends them within an epoch (u-blox:
#: RMC, VTG, GGA, GSA, GSV, GLL, GST, ZDA; navsense writes no GLL)
SENTENCE_ORDER = ("RMC", "VTG", "GGA", "GSA", "GSV", "GST", "ZDA")
TALKER_COMBINED = "GN"  # the talker of a fix from several systems (NMEA 0183 4.10)
NAV_STATUS = "V"  # RMC navigational status (NMEA 4.10): V, not given (as u-blox receivers send)
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


def _as_rows(x, m: int, dtype) -> np.ndarray:
    """``x`` as an array (m,) of ``dtype`` (a scalar or a (1,) array is repeated)."""
    a = np.asarray(x, dtype=dtype)
    return a if a.shape == (m,) else np.broadcast_to(a, (m,))


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


# ---------------------------------------------------------------------------- text matrices
# The sentences other than GGA are built as character matrices, all rows of a sentence type at
# once. A part is a (w, n) uint8 matrix of characters, column i the characters of row i, with
# a mask of those it prints (broadcast to (w, n)), so a part of varying width (an empty field, a
# number of 1 to 4 integer digits) is a fixed-width matrix; a field is a list of parts, a
# sentence body the list of its fields' parts and commas. :func:`_chars` stacks them in one
# matrix and XORs the kept characters of each column into its checksum (characters of one row
# run down a column: each part is written as whole rows of the matrix, contiguous, and the
# checksum is an XOR of rows). The ``*_chars`` functions return that matrix, so that the
# sentences of all types of a block are read into strings at once (:func:`interleave`: a
# Python string costs more than its characters); the ``*_sentences`` functions read them.


class _Text(NamedTuple):
    """n texts: text i is ``chars[:, i][keep[:, i]]``; ``chars`` (w, n) or (w, 1) (the same
    characters in every text) uint8, ``keep`` bool broadcastable to (w, n)."""

    chars: np.ndarray
    keep: np.ndarray | bool


Field = list[_Text]

_ZERO = ord("0")
# the digits of 0 .. 999, zero-padded to three: column v holds the three characters of v
_TRIPLES = np.array(
    [[_ZERO + v // 100, _ZERO + v // 10 % 10, _ZERO + v % 10] for v in range(1000)], dtype=np.uint8
).T.copy()
_HEX_CHARS = np.frombuffer("".join(_HEX).encode("ascii"), dtype=np.uint8).reshape(256, 2)
_POW10 = 10 ** np.arange(19, dtype=np.int64)  # 10^0 .. 10^18


def _literal(text: str) -> Field:
    """The same text in every row."""
    b = np.frombuffer(text.encode("ascii"), dtype=np.uint8).reshape(-1, 1)
    return [_Text(b, True)]


def _digit_chars(values, width: int) -> np.ndarray:
    """The digits (width, n) uint8 of non-negative integers below 10^width, zero-padded, three
    digits at a time from a table."""
    v = np.asarray(values, dtype=np.int64).reshape(-1)
    out = np.empty((width, v.size), dtype=np.uint8)
    col = width
    while col > 3:
        v, low = np.divmod(v, 1000)
        out[col - 3 : col] = _TRIPLES.take(low, axis=1)
        col -= 3
    out[:col] = _TRIPLES[3 - col :].take(v, axis=1)
    return out


def _digits(values, width: int) -> Field:
    """Non-negative integers below 10^width, zero-padded to ``width`` digits (%0{width}d)."""
    return [_Text(_digit_chars(values, width), True)]


def _number(units, decimals: int) -> Field:
    """Non-negative integers ``units`` printed as units / 10^decimals with ``decimals`` decimals
    and no leading zero before the units digit: 4 with 3 decimals prints 0.004, 12345 with 2
    prints 123.45 (as "%.{decimals}f" of the value)."""
    u = np.asarray(units, dtype=np.int64).reshape(-1)
    whole, frac = np.divmod(u, _POW10[decimals])
    width = len(str(int(whole.max()))) if u.size else 1
    out: Field = []
    if width > 1:  # the leading digits, each where the number has it
        lead = _digit_chars(whole, width)
        keep = whole >= _POW10[width - 1 : 0 : -1, None]  # digit j shown when whole >= 10^(w-1-j)
        out.append(_Text(lead[:-1], keep))
        out.append(_Text(lead[-1:], True))
    else:
        out += _digits(whole, 1)
    if decimals:
        out += _literal(".") + _digits(frac, decimals)
    return out


def _decimal(values, decimals: int) -> Field:
    """The "%.{decimals}f" of finite non-negative values, rounded as rint(x 10^decimals)."""
    x = np.asarray(values, dtype=np.float64)
    return _number(np.rint(x * 10.0**decimals).astype(np.int64), decimals)


def _override(field: Field, rows: np.ndarray, texts: list[str], n: int) -> Field:
    """The field with the rows ``rows`` (a few) printing ``texts`` instead."""
    if rows.size == 0:
        return field
    chars = np.zeros((n, max(1, *map(len, texts))), dtype=np.uint8)
    for i, text in zip(rows.tolist(), texts):
        chars[i, : len(text)] = np.frombuffer(text.encode("ascii"), dtype=np.uint8)
    empty = np.zeros(n, dtype=bool)
    empty[rows] = True
    return _blank(field, empty) + [_Text(chars.T, chars.T != 0)]


def _int(values, min_width: int) -> Field:
    """Integers zero-padded to at least ``min_width`` digits, as "%0{min_width}d" prints them
    (a negative one, which no field has, printed by Python)."""
    v = np.asarray(values, dtype=np.int64).reshape(-1)
    negative = np.flatnonzero(v < 0)
    texts = [f"%0{min_width}d" % x for x in v[negative].tolist()]
    if negative.size:
        v = np.where(v < 0, 0, v)
    width = max(min_width, len(str(int(v.max()))) if v.size else 1)
    chars = _digit_chars(v, width)
    extra = width - min_width  # the digits beyond min_width, each where the number has it
    field = [_Text(chars[extra:], True)]
    if extra:
        keep = v >= _POW10[width - 1 : min_width - 1 : -1, None]
        field.insert(0, _Text(chars[:extra], keep))
    return _override(field, negative, texts, v.size)


_HALF_MARGIN = 1e-6  # rint(|x| 10^d) errs only within 1e-7 of a half unit (|x| 10^d < 1e9)


def _fixed(values, decimals: int) -> Field:
    """ "%.{decimals}f" % x of each value, exactly as Python prints it: "-" where the sign bit
    is set (-0.0004 prints -0.000), then |x| rounded to ``decimals`` decimals as the binary
    value's decimal expansion rounds (half to even on an exact tie). That is rint(|x| 10^d)
    except within a rounding error of a half unit; the values within _HALF_MARGIN of one,
    those of 1e9 units or more and the non-finite ones (rare) are printed by Python itself."""
    x = np.asarray(values, dtype=np.float64).reshape(-1)
    scaled = np.abs(x) * 10.0**decimals
    units = np.rint(scaled)
    with np.errstate(invalid="ignore"):  # inf - inf
        sure = np.abs(scaled - np.floor(scaled) - 0.5) >= _HALF_MARGIN  # False for NaN
    sure &= scaled < 1e9
    field = _blank(_literal("-"), ~np.signbit(x)) + _number(
        np.where(sure, units, 0.0).astype(np.int64), decimals
    )
    odd = np.flatnonzero(~sure)
    return _override(field, odd, [f"{v:.{decimals}f}" for v in x[odd].tolist()], x.size)


def _choice(codes, options: tuple[str, ...]) -> Field:
    """Row i prints ``options[codes[i]]``."""
    if len(options) == 1:
        return _literal(options[0])
    width = max(1, max(map(len, options)))
    table = np.zeros((width, len(options)), dtype=np.uint8)
    for k, text in enumerate(options):
        table[: len(text), k] = np.frombuffer(text.encode("ascii"), dtype=np.uint8)
    lengths = np.array([len(t) for t in options])
    c = np.asarray(codes, dtype=np.intp).reshape(-1)
    if (lengths == width).all():  # every option fills the width
        return [_Text(table.take(c, axis=1), True)]
    return [_Text(table[:, c], np.arange(width)[:, None] < lengths[c])]


def _one_char(codes) -> Field:
    """One ASCII character a row, from an array of one-character strings."""
    return [_Text(np.asarray(codes, dtype="S1").view(np.uint8).reshape(1, -1), True)]


def _blank(field: Field, empty) -> Field:
    """The field with the rows where ``empty`` is True printing nothing."""
    show = ~np.asarray(empty, dtype=bool).reshape(1, -1)
    return [_Text(p.chars, np.logical_and(p.keep, show)) for p in field]


def _fields(head: str, *fields: Field) -> Field:
    """``head`` (the address field, e.g. "GNRMC") and the fields, comma separated."""
    comma = _literal(",")
    out = _literal(head)
    for f in fields:
        out += comma + f
    return out


def _chars(body: Field, n: int) -> np.ndarray:
    """The n sentences $body*CS<CR><LF> of the bodies as characters (width, n) uint8, column i
    the sentence i with NUL where a character is not kept (checksum: XOR of a row's kept
    characters)."""
    width = sum(p.chars.shape[0] for p in body)
    chars = np.empty((width + 6, n), dtype=np.uint8)
    col = 1
    for p in body:
        w = p.chars.shape[0]
        if p.keep is True:
            chars[col : col + w] = p.chars
        else:  # NUL where not kept (a sentence has no NUL)
            np.multiply(p.chars, p.keep, out=chars[col : col + w])
        col += w
    cs = np.bitwise_xor.reduce(chars[1:col], axis=0)
    chars[0] = ord("$")
    chars[col] = ord("*")
    chars[col + 1] = _HEX_CHARS[cs, 0]
    chars[col + 2] = _HEX_CHARS[cs, 1]
    chars[col + 3 :] = _LINE_END_CHARS
    return chars


_LINE_END_CHARS = np.frombuffer(LINE_END.encode("ascii"), dtype=np.uint8).reshape(-1, 1)


def _bytes(rows: np.ndarray) -> bytes:
    """The characters of sentence rows (n, width) uint8 but NUL: the lines, each with its end."""
    return rows[rows != 0].tobytes()


def _split(text: bytes) -> list[str]:
    """The lines (without their ends) of text of whole lines."""
    return text.decode("ascii").split(LINE_END)[:-1]


def sentence_lines(chars: np.ndarray) -> list[str]:
    """The sentences (no line end) of sentence characters (width, n) (the ``*_chars``
    functions), as strings."""
    return _split(_bytes(chars.T))


def _chars_of_lines(lines: list[str]) -> np.ndarray:
    """Lines given as strings (no line end) as sentence characters (width, n), as :func:`_chars`."""
    n = len(lines)
    lengths = np.fromiter(map(len, lines), dtype=np.int64, count=n) + len(LINE_END)
    width = int(lengths.max()) if n else 1
    rows = np.zeros((n, width), dtype=np.uint8)
    # a row's first lengths[i] places, filled in row-major order: the text, line after line
    rows[np.arange(width) < lengths[:, None]] = np.frombuffer(
        (LINE_END.join(lines) + LINE_END).encode("ascii") if n else b"", dtype=np.uint8
    )
    return rows.T


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


def _rows(values, m: int, dtype=np.float64) -> np.ndarray:
    return _as_rows(values, m, dtype)


# ---------------------------------------------------------------------------- sentences
def _course_text(course_deg, valid) -> Field:
    """The course with 2 decimals in [0, 360) (359.996 prints 0.00), empty where not valid."""
    units = np.rint(np.where(valid, course_deg, 0.0) * 100.0).astype(np.int64) % 36000
    return _blank(_number(units, 2), ~valid)


def _speed_text(speed, valid) -> Field:
    """A speed with 3 decimals, empty where not valid."""
    return _blank(_decimal(np.where(valid, speed, 0.0), 3), ~valid)


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
) -> np.ndarray:
    """The $GNRMC sentences of m epochs (module docstring).

    ``utc_s`` seconds since 00:00 UTC of the date ``date0`` (a datetime64 or an ISO date),
    ``mode`` the mode indicators (one-character strings), ``valid`` bool: status A with the
    position, speed and course, else status V and those fields empty. Arrays (m,); scalars
    broadcast to the length of ``utc_s``.
    """
    utc = np.asarray(utc_s, dtype=np.float64).reshape(-1)
    m = utc.size
    ok = _rows(valid, m, bool)
    year, month, day = _dates(utc, date0)
    return _chars(
        _fields(
            talker + "RMC",
            _time_text(utc),
            _choice(~ok, ("A", "V")),
            *_position_text(_rows(lat_deg, m), _rows(lon_deg, m), ok),
            _speed_text(_rows(speed_knots, m), ok),
            _course_text(_rows(course_deg, m), ok),
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
    course_deg, speed_knots, speed_kmh, mode, valid, talker: str = TALKER_COMBINED
) -> np.ndarray:
    """The $GNVTG sentences of m epochs: true course, T, (no magnetic course), M, the speed in
    knots, N, in km/h, K, the mode indicator; every field but the mode empty where not
    ``valid`` (as u-blox receivers send it)."""
    course = np.asarray(course_deg, dtype=np.float64).reshape(-1)
    m = course.size
    ok = _rows(valid, m, bool)
    unit = [_blank(_literal(u), ~ok) for u in "TMNK"]
    return _chars(
        _fields(
            talker + "VTG",
            _course_text(course, ok),
            unit[0],
            [],
            unit[1],
            _speed_text(_rows(speed_knots, m), ok),
            unit[2],
            _speed_text(_rows(speed_kmh, m), ok),
            unit[3],
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


def _compact(mask: np.ndarray, group: int, system: np.ndarray | None, systems: int):
    """The entries where ``mask`` (m, k) of each row and system, in column order, packed to the
    left in sentences of ``group`` entries (a row's system without any gets one sentence).

    ``system`` (k,) the system of each column (0 .. systems - 1, non-decreasing: the columns of
    a system are consecutive and in system order; None: one system). A sentence row is
    (row, system), numbered row * systems + system. Returns the count of each sentence row
    (m systems,), its number of sentences, the sentence row of each sentence (n,), the flat index
    (into ``mask.ravel()``) and the column of each entry, its place as a flat index into a
    (group, n) matrix (slot * n + sentence) and the places taken, slot by slot (group, n).
    """
    m, k = mask.shape
    flat = np.flatnonzero(mask)
    r, c = np.divmod(flat, k)
    if system is not None:
        r = r * systems + system[c]  # ascending: flat is, and system[c] is along a row
    count = np.bincount(r, minlength=m * systems)
    groups = np.maximum(1, -(-count // group))
    slot = np.arange(r.size) - (np.cumsum(count) - count)[r]  # place within its sentence row
    line = (np.cumsum(groups) - groups)[r] + slot // group  # the row's sentence of the entry
    n = int(groups.sum())
    place = slot % group * n + line
    taken = np.zeros(group * n, dtype=bool)
    taken[place] = True
    rows = np.repeat(np.arange(m * systems), groups)
    return count, groups, rows, (flat, c), place, taken.reshape(group, n)


def _packed(values: np.ndarray, place: np.ndarray, n: int, group: int) -> np.ndarray:
    """(group, n) int64, slot by slot: the entries' ``values`` at their places (flat indices
    slot * n + sentence), 0 elsewhere."""
    out = np.zeros(group * n, dtype=np.int64)
    out[place] = values
    return out.reshape(group, n)


def _per_system(talker, code, system) -> tuple[tuple[str, ...], tuple[int, ...], np.ndarray | None]:
    """The talkers and the codes (system or signal IDs) of one or several systems, and the
    system of each column (None: one system)."""
    if isinstance(talker, str):
        return (talker,), (int(code),), None
    return tuple(talker), tuple(int(x) for x in code), np.asarray(system, dtype=np.int64)


def gsa_chars(
    used, prn, nav_mode, pdop, hdop, vdop, talker, system_id, system=None
) -> tuple[np.ndarray, np.ndarray]:
    """The GSA sentences of m epochs, system after system within an epoch, and the epoch of each.

    ``used`` (m, k) bool the satellites used, ``prn`` (k,) their NMEA numbers in the order
    printed, ``nav_mode`` (m,) 1 (no fix), 2 (2D) or 3 (3D), the DOPs (m,) printed with 2
    decimals. One system: ``talker`` (e.g. "GP") and ``system_id`` (NMEA 4.10); several: their
    sequences and ``system`` (k,) the index of each column's system into them (the columns of
    a system consecutive, in that order; one call for all systems costs a third of three).
    Each sentence: A (automatic 2D/3D), the mode, 12 PRN fields (empty beyond the used ones),
    PDOP, HDOP, VDOP and the NMEA 4.10 system ID; a system with more than 12 satellites used
    gets one more sentence for each 12 more, one with none a sentence with no PRN.
    """
    talkers, ids_of, system = _per_system(talker, system_id, system)
    used = np.asarray(used, dtype=bool)
    m, systems = used.shape[0], len(talkers)
    _, _, row, (_, c), place, ok = _compact(used, 12, system, systems)
    epoch, sys = np.divmod(row, systems)
    n = row.size
    ids = _packed(np.asarray(prn, dtype=np.int64)[c], place, n, 12)
    # the 12 PRN fields as one part: (field, [comma, two digits], sentence)
    svs = np.empty((12, 3, n), dtype=np.uint8)
    svs[:, 0] = ord(",")
    svs[:, 1] = _TRIPLES[1].take(ids)
    svs[:, 2] = _TRIPLES[2].take(ids)
    shown = np.ones((12, 3, n), dtype=bool)
    shown[:, 1] = shown[:, 2] = ok
    dops = [
        _decimal(np.asarray(d, dtype=np.float64).reshape(m)[epoch], 2) for d in (pdop, hdop, vdop)
    ]
    body = _choice(sys, tuple(t + "GSA" for t in talkers))
    body += _fields(
        "",
        _literal("A"),
        _digits(np.asarray(nav_mode).reshape(m)[epoch], 1),
    )
    body.append(_Text(svs.reshape(36, n), shown.reshape(36, n)))
    body += _fields("", *dops, _choice(sys, tuple(f"{i:X}" for i in ids_of)))
    return _chars(body, n), epoch


def gsa_sentences(*args: Any, **kwargs: Any) -> tuple[list[str], np.ndarray]:
    """The sentences of :func:`gsa_chars` (the same arguments) as strings, and the
    epoch of each."""
    chars, epoch = gsa_chars(*args, **kwargs)
    return sentence_lines(chars), epoch


def gsv_chars(
    in_view, prn, elevation_deg, azimuth_deg, cn0_dbhz, talker, signal_id, system=None
) -> tuple[np.ndarray, np.ndarray]:
    """The GSV sentences of m epochs, system after system within an epoch, and the epoch of each.

    ``in_view`` (m, k) bool the satellites in view, ``prn`` (k,) their NMEA numbers in the
    order printed, ``elevation_deg``, ``azimuth_deg``, ``cn0_dbhz`` (m, k) (C/N0 NaN: no
    signal); ``talker``, ``signal_id`` and ``system`` as :func:`gsa_chars`'s talker, system_id
    and system. Each sentence: the number of sentences of its system, its number, the
    satellites of its system in view (two digits), up to four satellites (PRN, elevation
    00..90, azimuth 000..359, C/N0 00..99 in dB-Hz or empty; integers, rounded), and the NMEA
    4.10 signal ID; no satellite in view gives one sentence with none.
    """
    talkers, ids_of, system = _per_system(talker, signal_id, system)
    in_view = np.asarray(in_view, dtype=bool)
    systems = len(talkers)
    count, groups, row, (flat, c), place, ok = _compact(in_view, 4, system, systems)
    n = row.size
    cn0 = np.asarray(cn0_dbhz, dtype=np.float64).reshape(-1)[flat]
    has_cn0 = np.isfinite(cn0)
    el = np.rint(np.asarray(elevation_deg, dtype=np.float64).reshape(-1)[flat]).astype(np.int64)
    az = np.rint(np.asarray(azimuth_deg, dtype=np.float64).reshape(-1)[flat]).astype(np.int64) % 360
    snr = np.rint(np.where(has_cn0, cn0, 0.0)).astype(np.int64)
    ids = _packed(np.asarray(prn, dtype=np.int64)[c], place, n, 4)
    e = _packed(np.minimum(np.maximum(el, 0), 99), place, n, 4)
    a = _packed(az, place, n, 4)
    sig = _packed(np.where(has_cn0, np.minimum(np.maximum(snr, 0), 99), -1), place, n, 4)
    number = np.arange(n) - (np.cumsum(groups) - groups)[row]  # 0-based within its row
    sys = row % systems
    parts = _choice(sys, tuple(t + "GSV" for t in talkers))
    parts += _fields(
        "",
        _digits(groups[row], 1),
        _digits(number + 1, 1),
        _digits(np.minimum(count[row], 99), 2),
    )
    # the four satellites as one part: (slot, [,PP,EE,AAA,SS], sentence); a slot beyond the
    # last satellite prints nothing (not four empty fields), a C/N0 without signal nothing
    sats = np.empty((4, 13, n), dtype=np.uint8)
    for r in (0, 3, 6, 10):
        sats[:, r] = ord(",")
    for r, values, digits in ((1, ids, 2), (4, e, 2), (7, a, 3), (11, np.maximum(sig, 0), 2)):
        for d in range(digits):
            sats[:, r + d] = _TRIPLES[3 - digits + d].take(values)
    shown = np.empty((4, 13, n), dtype=bool)
    shown[:] = ok[:, None, :]
    shown[:, 11] &= sig >= 0
    shown[:, 12] = shown[:, 11]
    parts.append(_Text(sats.reshape(52, n), shown.reshape(52, n)))
    parts += _literal(",") + _choice(sys, tuple(f"{i:X}" for i in ids_of))
    return _chars(parts, n), row // systems


def gsv_sentences(*args: Any, **kwargs: Any) -> tuple[list[str], np.ndarray]:
    """The sentences of :func:`gsv_chars` (the same arguments) as strings, and the
    epoch of each."""
    chars, epoch = gsv_chars(*args, **kwargs)
    return sentence_lines(chars), epoch


def interleave(groups: list[tuple[list[str] | np.ndarray, np.ndarray]], m: int) -> list[str]:
    """The lines of several sentence groups in epoch order, and within an epoch in the order of
    ``groups`` (each: its lines and the epoch of each line, ascending): :func:`interleave_text`
    as strings."""
    return _split(interleave_text(groups, m))


def interleave_text(groups: list[tuple[list[str] | np.ndarray, np.ndarray]], m: int) -> bytes:
    """The text (lines ending in CR LF, as a file holds them) of :func:`interleave`'s lines.

    A group's lines are strings or sentence characters (width, n) (the ``*_chars`` functions):
    each group's rows are put in their places of one (lines, width) matrix, read as one text,
    so a block of sentences costs no Python string a sentence (the GNSS layout's gnss.nmea).
    """
    if not groups:
        return b""
    counts = np.zeros((m, len(groups)), dtype=np.int64)
    for j, (_, epoch) in enumerate(groups):
        counts[:, j] = np.bincount(epoch, minlength=m)
    flat = counts.ravel()
    start = (np.cumsum(flat) - flat).reshape(m, len(groups))  # first line of (epoch, group)
    chars = [c if isinstance(c, np.ndarray) else _chars_of_lines(c) for c, _ in groups]
    rows = np.zeros((int(flat.sum()), max(c.shape[0] for c in chars)), dtype=np.uint8)
    for j, (_, epoch) in enumerate(groups):
        first_of_epoch = np.cumsum(counts[:, j]) - counts[:, j]
        rank = np.arange(epoch.size) - first_of_epoch[epoch]
        rows[start[epoch, j] + rank, : chars[j].shape[0]] = chars[j].T
    return _bytes(rows)


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

    def write_text(self, text: bytes) -> None:
        """Write a block of whole lines, each ending in CR LF (:func:`interleave_text`)."""
        self.append(text)
        self.sentences_written += text.count(b"\n")


def read_nmea(path: str | Path) -> list[str]:
    """The sentences of a file written by :class:`NmeaWriter` (line endings removed)."""
    with open(path, "rb") as f:
        return [line.decode("ascii").rstrip("\r\n") for line in f if line.strip()]
