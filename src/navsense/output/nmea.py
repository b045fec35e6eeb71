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
fields (u-blox style: ``$GNGGA,150001.00,,,,,0,03,99.99,,,,,,*..``). Pass ``lat_deg=None``.
"""

from __future__ import annotations

import math
from datetime import datetime, timezone
from pathlib import Path

from navsense.output.appendfile import AppendFile

__all__ = ["gga_sentence", "nmea_checksum", "utc_hhmmss", "utc_seconds_of_day", "NmeaWriter",
           "read_nmea", "STATION_ID", "TALKER_GGA", "LINE_END"]

TALKER_GGA = "GNGGA"  # multi-system talker (GPS, Galileo, GLONASS)
STATION_ID = "0001"  # specification, "Output Row": the station 0001
LINE_END = "\r\n"  # NMEA 0183: every sentence ends with <CR><LF>
_MINUTE_UNITS = 10_000_000  # 7 decimals of a minute
_DAY_CS = 8_640_000  # hundredths of a second in a day


def nmea_checksum(body: str) -> str:
    """XOR of the characters of ``body`` (the text between $ and *), two uppercase hex digits."""
    x = 0
    for ch in body.encode("ascii"):
        x ^= ch
    return f"{x:02X}"


def utc_seconds_of_day(start_utc) -> float:
    """Seconds since 00:00 UTC of the start time (ISO 8601 string or aware datetime)."""
    if isinstance(start_utc, str):
        start_utc = datetime.fromisoformat(start_utc.replace("Z", "+00:00"))
    if start_utc.tzinfo is not None:
        start_utc = start_utc.astimezone(timezone.utc)
    return (start_utc.hour * 3600 + start_utc.minute * 60 + start_utc.second
            + start_utc.microsecond * 1e-6)


def utc_hhmmss(seconds_of_day: float) -> str:
    """hhmmss.ss of a time of day in seconds (rounded to 0.01 s, wrapped at midnight)."""
    cs = math.floor(seconds_of_day * 100.0 + 0.5) % _DAY_CS
    s, cs = divmod(cs, 100)
    h, s = divmod(s, 3600)
    mi, s = divmod(s, 60)
    return f"{h:02d}{mi:02d}{s:02d}.{cs:02d}"


def _deg_min(value_deg: float, deg_digits: int) -> str:
    """|value| as d..dmm.mmmmmmm with the minutes rounded to 1e-7 (carry into the degrees)."""
    units = round(abs(value_deg) * 60.0 * _MINUTE_UNITS)  # whole 1e-7 minutes
    deg, rem = divmod(units, 60 * _MINUTE_UNITS)
    minutes, frac = divmod(rem, _MINUTE_UNITS)
    return f"{deg:0{deg_digits}d}{minutes:02d}.{frac:07d}"


def gga_sentence(utc_time, lat_deg, lon_deg, quality: int, satellites: int, hdop: float,
                 altitude_m, geoid_sep_m, age_s=None, station: str = STATION_ID) -> str:
    """One $GNGGA sentence with its checksum (no line ending).

    ``utc_time``: seconds of the UTC day (float) or a datetime. ``lat_deg`` None gives the no-fix
    form (empty position, altitude and separation). ``age_s`` None or NaN leaves the age and the
    station empty.
    """
    if isinstance(utc_time, datetime):
        utc_time = utc_seconds_of_day(utc_time)
    fields = [TALKER_GGA, utc_hhmmss(float(utc_time))]
    if lat_deg is None:
        fields += ["", "", "", ""]
    else:
        fields += [_deg_min(lat_deg, 2), "N" if lat_deg >= 0.0 else "S",
                   _deg_min(lon_deg, 3), "E" if lon_deg >= 0.0 else "W"]
    fields += [str(int(quality)), f"{int(satellites):02d}", f"{hdop:.2f}"]
    if lat_deg is None or altitude_m is None:
        fields += ["", "", "", ""]
    else:
        fields += [f"{altitude_m:.3f}", "M", f"{geoid_sep_m:.3f}", "M"]
    if age_s is None or math.isnan(age_s):
        fields += ["", ""]
    else:
        fields += [f"{age_s:.1f}", station]
    body = ",".join(fields)
    return f"${body}*{nmea_checksum(body)}"



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
