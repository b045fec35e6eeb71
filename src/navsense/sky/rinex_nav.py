"""RINEX navigation files: the broadcast ephemerides of each satellite, as numbers.

Read: RINEX 3.0x navigation files, mixed (``M``) or of one system, and RINEX 2.x GPS (``N``) and
GLONASS (``G``) navigation files (RINEX 3.05 and 2.11 format definitions, IGS/RTCM); gzip
compressed or plain. RINEX 4 (its records start with ``> EPH``) is refused by its header line.

Records (RINEX 3.05, Table A6 .. A16; RINEX 2.11, Tables A4, A11):

- GPS (G), Galileo (E), BeiDou (C), QZSS (J): eight lines, the epoch of clock (toc) with
  af0, af1, af2, then seven lines of four values ("broadcast orbits" 1 .. 7);
- GLONASS (R): four lines (five from RINEX 3.05: the status line), toc in UTC with -tau_n,
  +gamma_n and the message frame time, then X, Y, Z lines (position km, velocity km/s,
  lunar-solar acceleration km/s^2, and health, frequency number, age);
- SBAS (S, four lines) and NavIC (I, eight lines) are read past and not kept.

A value is a Fortran D19.12 field (``D`` or ``E`` exponent); a blank field is 0 (RINEX: "spare"
or not known), as the readers of these files take it. ``values[r, j]`` is field j of record r in
file order: j = 0, 1, 2 the three values of the epoch line, then 3 + 4 (k - 1) + i the i-th value
of broadcast orbit k (the names: :data:`KEPLER_FIELDS`, :data:`GLONASS_FIELDS`).

Times: each record's epoch as calendar seconds since 1980-01-06 00:00:00 of its own time scale
(GPS time for G, E (Galileo system time is aligned to it), J; BeiDou time for C; UTC for R, as
RINEX writes them). A two-digit year of RINEX 2 is 1980 .. 2079.

A damaged file (a field that is no number, a record cut short, an epoch that is no date, a
header that is not a navigation file's) is a :class:`navsense.errors.FormatError` of one line
naming the file, the line and what was found.
"""

from __future__ import annotations

import datetime as _dt
import gzip
import io
import math
import os
import re
import zlib
from dataclasses import dataclass

import numpy as np

from navsense.errors import FormatError
from navsense.jsonfile import file_kind
from navsense.sky.systems import SYSTEM_CODES

__all__ = [
    "NavFile",
    "NavRecords",
    "read_nav",
    "KEPLER_FIELDS",
    "GLONASS_FIELDS",
    "SYSTEM_LETTERS",
    "GPS_EPOCH",
]

GPS_EPOCH = _dt.datetime(1980, 1, 6)  # the origin of the records' epoch seconds

SYSTEM_LETTERS = {code.rinex: name for name, code in SYSTEM_CODES.items()}  # "G": "gps", ...
_SKIPPED = {"S": 4, "I": 8}  # SBAS and NavIC records: lines, read past
_KEPLER_LINES = 8
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([EeDd][+-]?\d+)?")  # a Fortran D19.12 field
_INTEGER = re.compile(r" *[+-]?\d+")

# field index -> name, GPS/Galileo/BeiDou/QZSS (RINEX 3.05 Tables A6, A8, A10, A12)
KEPLER_FIELDS = {
    "af0": 0, "af1": 1, "af2": 2,
    "iode": 3, "crs": 4, "delta_n": 5, "m0": 6,
    "cuc": 7, "e": 8, "cus": 9, "sqrt_a": 10,
    "toe": 11, "cic": 12, "omega0": 13, "cis": 14,
    "i0": 15, "crc": 16, "omega": 17, "omega_dot": 18,
    "idot": 19, "codes_or_sources": 20, "week": 21, "l2p": 22,
    "accuracy": 23, "health": 24, "tgd": 25, "iodc_or_bgd": 26,
    "transmission_time": 27, "fit_interval": 28,
}  # fmt: skip
# GLONASS (RINEX 3.05 Table A10; RINEX 2.11 Table A11): km, km/s, km/s^2
GLONASS_FIELDS = {
    "minus_tau_n": 0, "gamma_n": 1, "frame_time": 2,
    "x": 3, "vx": 4, "ax": 5, "health": 6,
    "y": 7, "vy": 8, "ay": 9, "frequency": 10,
    "z": 11, "vz": 12, "az": 13, "age": 14,
}  # fmt: skip


@dataclass(frozen=True)
class NavRecords:
    """The records of one system, in file order: ``prn`` (R,), ``epoch_s`` (R,) the toc as
    calendar seconds since 1980-01-06 of the system's time scale, ``values`` (R, k) the fields
    (module docstring), ``line`` (R,) the record's first line in the file (1-based)."""

    system: str
    prn: np.ndarray
    epoch_s: np.ndarray
    values: np.ndarray
    line: np.ndarray

    def __len__(self) -> int:
        return int(self.prn.size)


@dataclass(frozen=True)
class NavFile:
    """A navigation file: its ``path``, RINEX ``version``, ``leap_seconds`` (the header's, or
    None) and ``records`` by system name (only systems with records)."""

    path: str
    version: float
    leap_seconds: int | None
    records: dict[str, NavRecords]


#: The most a navigation file holds, plain or decompressed, bytes (as the other input files
#: read whole, navsense.jsonfile.MAX_INPUT_BYTES): a day's mixed file is a few MB; a gzip of
#: 1 MB may hold 1 GB of nothing.
MAX_NAV_BYTES = 256 * 1024 * 1024


def _open_text(path: str) -> list[str]:
    """The lines of a regular file (a FIFO was waited on for ever, a device read without end),
    of at most :data:`MAX_NAV_BYTES`, gzip or plain."""
    try:
        kind = file_kind(os.stat(path).st_mode)
        if kind:
            raise FormatError(
                f"{path}: cannot read the navigation file (gnss.orbits): it is {kind}, not a file"
            )
        with open(path, "rb") as f:
            raw = f.read(MAX_NAV_BYTES + 1)
    except OSError as exc:
        raise FormatError(
            f"{path}: cannot read the navigation file (gnss.orbits): {exc.strerror}"
        ) from None
    what = "navigation file"
    if raw[:2] == b"\x1f\x8b":
        what = "decompressed navigation file"
        try:
            with gzip.GzipFile(fileobj=io.BytesIO(raw)) as z:
                raw = z.read(MAX_NAV_BYTES + 1)
        except (OSError, EOFError, zlib.error) as exc:
            raise FormatError(f"{path}: a damaged gzip file ({exc})") from None
    if len(raw) > MAX_NAV_BYTES:
        raise FormatError(
            f"{path}: the {what} has more than {MAX_NAV_BYTES} bytes; at most "
            f"{MAX_NAV_BYTES // (1024 * 1024)} MiB are read (a day's file is a few MB)"
        )
    return raw.decode("latin-1").splitlines()


class _Reader:
    def __init__(self, path: str) -> None:
        self.path = path

    def fail(self, line_no: int, what: str) -> FormatError:
        return FormatError(f"{self.path}, line {line_no}: {what}")

    def number(self, text: str, line_no: int) -> float:
        s = text.strip()
        if not s:
            return 0.0  # a blank field: spare or unknown, taken as 0
        try:
            value = float(s.replace("D", "E").replace("d", "e"))
        except ValueError:
            raise self.fail(line_no, f"expected a number, got {s!r}") from None
        if not math.isfinite(value) or not _NUMBER.fullmatch(s):  # nan, inf, 1_0, 1e999
            raise self.fail(line_no, f"expected a number, got {s!r}")
        return value

    def fields(self, text: str, start: int, count: int, line_no: int) -> list[float]:
        return [
            self.number(text[start + 19 * i : start + 19 * (i + 1)], line_no) for i in range(count)
        ]


def _epoch_s(fail, line_no: int, parts: list[str], text: str) -> float:
    try:
        if not all(re.fullmatch(r"\d{1,4}", p) for p in parts[:5]):
            raise ValueError
        if not re.fullmatch(r"\d{1,2}(\.\d*)?", parts[5]):
            raise ValueError
        year, month, day, hour, minute = (int(p) for p in parts[:5])
        sec = float(parts[5])
        whole = int(sec)
        t = _dt.datetime(year, month, day, hour, minute) - GPS_EPOCH
    except (ValueError, OverflowError):
        raise fail(line_no, f"the epoch {text.strip()!r} is no date and time") from None
    if not 0.0 <= sec < 61.0:
        raise fail(line_no, f"the epoch {text.strip()!r} is no date and time")
    return t.total_seconds() + whole + (sec - whole)


def _header(reader: _Reader, lines: list[str]) -> tuple[float, str, str, int | None, int]:
    """(version, file type letter, system letter, leap seconds, first data line index)."""
    path = reader.path
    if not lines or "RINEX VERSION / TYPE" not in lines[0][60:]:
        raise FormatError(
            f"{path}, line 1: not a RINEX file (its first line has no 'RINEX VERSION / TYPE')"
        )
    first = lines[0]
    try:
        version = float(first[:9])
    except ValueError:
        raise reader.fail(1, f"the RINEX version {first[:9].strip()!r} is no number") from None
    ftype = first[20:21].upper()
    system = first[40:41].upper() or "G"
    leap = None
    for i, text in enumerate(lines[1:], start=1):
        label = text[60:].strip()
        if label == "END OF HEADER":
            break
        if label == "LEAP SECONDS":
            try:
                leap = int(text[:6])
            except ValueError:
                raise reader.fail(
                    i + 1, f"LEAP SECONDS {text[:6].strip()!r} is no integer"
                ) from None
    else:
        raise FormatError(f"{path}: no END OF HEADER line: a damaged RINEX file")
    if 2.0 <= version < 3.0:
        if ftype not in ("N", "G"):
            raise reader.fail(
                1,
                f"RINEX {version:g} file type {ftype!r}: expected a navigation file, "
                "'N' (GPS) or 'G' (GLONASS)",
            )
        system = "G" if ftype == "N" else "R"
    elif 3.0 <= version < 4.0:
        if ftype != "N":
            raise reader.fail(
                1, f"RINEX {version:g} file type {ftype!r}: expected a navigation file ('N')"
            )
    else:
        raise reader.fail(
            1, f"RINEX version {version:g}: expected a navigation file of RINEX 2.x or 3.0x"
        )
    return version, ftype, system, leap, i + 1


def read_nav(path: str | os.PathLike) -> NavFile:
    """Every record of a RINEX 2.x / 3.0x navigation file (module docstring)."""
    path = os.fspath(path)
    reader = _Reader(path)
    lines = _open_text(path)
    version, _ftype, file_system, leap, k = _header(reader, lines)
    v2 = version < 3.0
    glonass_lines = 5 if version >= 3.05 else 4
    acc: dict[str, tuple[list, list, list, list]] = {}
    n = len(lines)
    while k < n:
        text = lines[k]
        line_no = k + 1
        if not text.strip():
            k += 1
            continue
        if v2:
            letter = file_system
            head = text[:22]
            parts = head[2:].split()
            prn_text = head[:2]
            if len(parts) != 6:
                raise reader.fail(line_no, f"expected a record's first line, got {text.rstrip()!r}")
            yy = int(parts[0]) if re.fullmatch(r"\d{1,2}", parts[0]) else -1
            if yy < 0:
                raise reader.fail(line_no, f"the epoch {head.strip()!r} is no date and time")
            parts[0] = str(yy + (1900 if yy >= 80 else 2000))
            start, cont = 22, 3
        else:
            letter = text[:1]
            prn_text = text[1:3]
            parts = text[4:23].split()
            head = text[:23]
            start, cont = 23, 4
            if letter in _SKIPPED:
                k += _SKIPPED[letter]
                continue
            if letter not in SYSTEM_LETTERS or len(parts) != 6:
                raise reader.fail(
                    line_no,
                    f"expected a record's first line (G, R, E, C, J, S, I), got "
                    f"{text.rstrip()[:40]!r}",
                )
        if not _INTEGER.fullmatch(prn_text):
            raise reader.fail(line_no, f"the satellite number {prn_text!r} is no number")
        prn = int(prn_text)
        count = glonass_lines if letter == "R" else _KEPLER_LINES
        if v2 and letter == "R":
            count = 4
        if k + count > n:
            raise reader.fail(
                n,
                f"the record of {letter}{prn:02d} at line {line_no} is cut short "
                f"({n - k} of its {count} lines)",
            )
        epoch = _epoch_s(reader.fail, line_no, parts, head)
        values = reader.fields(text, start, 3, line_no)
        for j in range(1, count):
            values += reader.fields(lines[k + j], cont, 4, line_no + j)
        rec = acc.setdefault(SYSTEM_LETTERS[letter], ([], [], [], []))
        rec[0].append(prn)
        rec[1].append(epoch)
        rec[2].append(values[: 3 + 4 * (count - 1)])
        rec[3].append(line_no)
        k += count
    records = {}
    for name, (prns, epochs, vals, line_nos) in acc.items():
        width = max(len(v) for v in vals)
        table = np.zeros((len(vals), width))
        for r, v in enumerate(vals):
            table[r, : len(v)] = v
        records[name] = NavRecords(
            system=name,
            prn=np.array(prns, dtype=np.int64),
            epoch_s=np.array(epochs, dtype=np.float64),
            values=table,
            line=np.array(line_nos, dtype=np.int64),
        )
    return NavFile(path=path, version=version, leap_seconds=leap, records=records)
