"""UTC start times and decimal-year epochs of the datum chain.

Specification ("INS and GNSS", "Datum Chain", "Helmert transformation"): "The epoch is
start_utc plus t, as a decimal year of the correct year length (DecimalYear)."

Ruling (DESIGN.md, "Decimal year"): the instant is start_utc + t on the UTC scale without leap
seconds (POSIX time), and the decimal year is::

    t_y = Y + (T - T_Y) / (T_{Y+1} - T_Y)

where Y is the calendar year of the instant T and T_Y is 00:00:00 UTC of 1 January of Y, so the
divisor is 365 or 366 days. At the ACRE site the Helmert rates move a point by 1.7 cm/yr
(mostly the rotation rates: North American plate motion), so an epoch error of one day moves it
by 47 um and a leap second on the way (3e-8 yr) by 0.5 nm.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from navsense.errors import ConfigError
from navsense.geo._arrays import as_float, require_finite, shaped
from navsense.utc import utc_posix_s, utc_text

__all__ = [
    "DEFAULT_START_UTC",
    "YearClock",
    "decimal_year",
    "format_utc",
    "parse_utc",
    "utc_ns",
    "utc_to_episode_s",
    "year_clock",
]

# gnss.datum.start_utc default of the specification ("Parameters", GNSS receiver).
DEFAULT_START_UTC = "2026-09-23T15:00:00Z"

_SECONDS_PER_DAY = 86_400


def parse_utc(text: str) -> float:
    """POSIX seconds (UTC, no leap seconds) of an ISO 8601 time such as 2026-09-23T15:00:00Z.

    A time without an offset is taken as UTC; an explicit offset is applied. Fractional seconds
    are kept. Raises ConfigError naming the text when it is not an ISO 8601 time.
    """
    if not isinstance(text, str):
        raise ConfigError(
            f"start_utc must be an ISO 8601 string such as {DEFAULT_START_UTC!r}, got {text!r}"
        )
    try:
        return utc_posix_s(text)
    except ValueError as exc:
        raise ConfigError(
            f"start_utc must be an ISO 8601 UTC time such as {DEFAULT_START_UTC!r}, got {text!r}"
        ) from exc


def utc_ns(text: str) -> int:
    """POSIX nanoseconds (UTC, no leap seconds) of an ISO 8601 time (microsecond precision:
    :func:`parse_utc` rounded to the microsecond); ConfigError naming the text."""
    return round(parse_utc(text) * 1e6) * 1000


def format_utc(posix_s: float) -> str:
    """ISO 8601 UTC text (Z suffix, microseconds when not whole) of POSIX seconds."""
    return utc_text(posix_s)


def utc_to_episode_s(utc: str, start_utc: str) -> float:
    """Episode time t in seconds of the UTC time ``utc`` for an episode starting at start_utc."""
    return parse_utc(utc) - parse_utc(start_utc)


def decimal_year(start_utc: str, t_s):
    """Decimal year of the instant start_utc + t_s (DESIGN.md ruling "Decimal year").

    ``t_s`` is the episode time in seconds (scalar or array, may be negative). The year is
    found per element, so an episode that crosses New Year is handled; the result has the shape
    of ``t_s``. Resolution: the float64 spacing of years near 2026, 4.5e-13 yr (14 us); the
    sum start + t is formed in whole seconds plus a fraction so it loses nothing before that.
    """
    clock = year_clock(start_utc)
    t = as_float("t_s", t_s)
    require_finite("t_s", t)
    return shaped(np.asarray(clock.array(t), dtype=np.float64))


def year_clock(start_utc: str) -> YearClock:
    """The (cached) YearClock of a start time; ConfigError when it is not an ISO 8601 time."""
    if not isinstance(start_utc, str):
        parse_utc(start_utc)  # raises ConfigError naming the value
    return _year_clock(start_utc)


@functools.lru_cache(maxsize=64)
def _year_clock(start_utc: str) -> YearClock:
    return YearClock(parse_utc(start_utc))


class YearClock:
    """Decimal years of start + t for one start time (POSIX s), the constants computed once.

    ``array(t)`` (a float64 array) evaluates DecimalYear: t_y = Y + (T - T_Y) / (T_{Y+1} - T_Y),
    with T - T_Y formed as (sw - T_Y) + frac, sw the whole seconds of the start and
    frac = (start - sw) + t, elementwise (a time gets the same bits alone or in an array). Times
    in the start's calendar year (the common case) use the year found at construction; others
    look their year up. Inputs are not checked (finite times expected).
    """

    __slots__ = ("_hi", "_length", "_lo", "_off", "_sfrac", "_sw", "_year")

    def __init__(self, start_posix: float) -> None:
        sw = math.floor(start_posix)
        self._sw = sw
        self._sfrac = start_posix - sw  # seconds after the whole second sw
        year = int(np.datetime64(sw, "s").astype("datetime64[Y]").astype(np.int64)) + 1970
        t_y, t_y1 = (
            int(b)
            for b in (np.array([year, year + 1]) - 1970)
            .astype("datetime64[Y]")
            .astype("datetime64[s]")
            .astype(np.int64)
        )
        self._year = year  # Y of the start
        self._lo = t_y - sw  # frac of 00:00:00 on 1 January of Y
        self._hi = t_y1 - sw  # frac of 00:00:00 on 1 January of Y + 1
        self._off = sw - t_y  # sw - T_Y
        self._length = t_y1 - t_y  # T_{Y+1} - T_Y: 365 or 366 days

    def constants(self) -> tuple:
        """(Y, sw - T_Y, T_(Y+1) - T_Y, start - sw, the lowest and the first excluded frac of
        the year Y): :meth:`array`'s values for times in the start's calendar year."""
        return self._year, self._off, self._length, self._sfrac, self._lo, self._hi

    def array(self, t: np.ndarray) -> np.ndarray:
        """Decimal years of start + t for an array of times t (s); same shape."""
        frac = self._sfrac + t
        if frac.size == 0 or (frac.min() >= self._lo and frac.max() < self._hi):
            return self._year + (self._off + frac) / self._length  # DecimalYear
        return self._any_year(frac)

    def _any_year(self, frac: np.ndarray) -> np.ndarray:
        """DecimalYear for instants sw + frac in any calendar years (per element)."""
        sw = self._sw
        lo, hi = sw + int(np.floor(np.min(frac))), sw + int(np.floor(np.max(frac)))
        # Calendar years spanned by the instants and their 1 January boundaries T_Y (POSIX s)
        y_lo = int(np.datetime64(lo, "s").astype("datetime64[Y]").astype(np.int64)) + 1970
        y_hi = int(np.datetime64(hi, "s").astype("datetime64[Y]").astype(np.int64)) + 1970
        years = np.arange(y_lo, y_hi + 2)
        bounds = (years - 1970).astype("datetime64[Y]").astype("datetime64[s]").astype(np.int64)
        # year of each instant; an instant exactly at 00:00:00 belongs to the new year
        k = np.searchsorted((bounds - sw).astype(np.float64), frac, side="right") - 1
        t_year = bounds[k]  # T_Y
        length = bounds[k + 1] - t_year  # T_{Y+1} - T_Y: 365 or 366 days
        # DecimalYear: Y + (T - T_Y) / (T_{Y+1} - T_Y), with T - T_Y = (sw - T_Y) + frac
        return years[k] + ((sw - t_year) + frac) / length
