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

import datetime as _dt

import numpy as np

from navsense.errors import ConfigError
from navsense.geo._arrays import as_float, require_finite, shaped

__all__ = ["DEFAULT_START_UTC", "decimal_year", "format_utc", "parse_utc", "utc_to_episode_s"]

# gnss.datum.start_utc default of the specification ("Parameters", GNSS receiver).
DEFAULT_START_UTC = "2026-09-23T15:00:00Z"

_SECONDS_PER_DAY = 86_400


def parse_utc(text: str) -> float:
    """POSIX seconds (UTC, no leap seconds) of an ISO 8601 time such as 2026-09-23T15:00:00Z.

    A time without an offset is taken as UTC; an explicit offset is applied. Fractional seconds
    are kept. Raises ConfigError naming the text when it is not an ISO 8601 time.
    """
    if not isinstance(text, str):
        raise ConfigError(f"start_utc must be an ISO 8601 string such as {DEFAULT_START_UTC!r}, got {text!r}")
    s = text.strip()
    try:
        t = _dt.datetime.fromisoformat(s[:-1] + "+00:00" if s.endswith(("Z", "z")) else s)
    except ValueError as exc:
        raise ConfigError(
            f"start_utc must be an ISO 8601 UTC time such as {DEFAULT_START_UTC!r}, got {text!r}"
        ) from exc
    if t.tzinfo is None:
        t = t.replace(tzinfo=_dt.UTC)
    return t.timestamp()


def format_utc(posix_s: float) -> str:
    """ISO 8601 UTC text (Z suffix, microseconds when not whole) of POSIX seconds."""
    t = _dt.datetime.fromtimestamp(posix_s, tz=_dt.UTC)
    text = t.isoformat(timespec="microseconds" if t.microsecond else "seconds")
    return text.replace("+00:00", "Z")


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
    start = parse_utc(start_utc)
    t = as_float("t_s", t_s)
    require_finite("t_s", t)
    # Whole seconds of the start plus a fraction: the sum keeps full resolution.
    sw = int(np.floor(start))
    frac = (start - sw) + t  # seconds after the whole second sw
    if frac.size:
        lo, hi = sw + int(np.floor(np.min(frac))), sw + int(np.floor(np.max(frac)))
    else:
        lo = hi = sw
    # Calendar years spanned by the instants and their 1 January boundaries T_Y (POSIX s)
    y_lo = int(np.datetime64(lo, "s").astype("datetime64[Y]").astype(np.int64)) + 1970
    y_hi = int(np.datetime64(hi, "s").astype("datetime64[Y]").astype(np.int64)) + 1970
    years = np.arange(y_lo, y_hi + 2)
    bounds = (years - 1970).astype("datetime64[Y]").astype("datetime64[s]").astype(np.int64)
    if y_lo == y_hi:
        k = 0  # one calendar year: the same formula with scalars
    else:
        # year of each instant; an instant exactly at 00:00:00 belongs to the new year
        k = np.searchsorted((bounds - sw).astype(np.float64), frac, side="right") - 1
    t_year = bounds[k]  # T_Y
    length = bounds[k + 1] - t_year  # T_{Y+1} - T_Y: 365 or 366 days
    # DecimalYear: Y + (T - T_Y) / (T_{Y+1} - T_Y), with T - T_Y = (sw - T_Y) + frac
    out = years[k] + ((sw - t_year) + frac) / length
    return shaped(np.asarray(out, dtype=np.float64))
