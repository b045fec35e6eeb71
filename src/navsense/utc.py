"""UTC times: the one parser and formatter of ISO 8601 times in navsense.

Every UTC time navsense reads (``gnss.datum.start_utc``, a track's point times, a truth log's
start) goes through :func:`utc_datetime`, and every one it writes through :func:`utc_text`:

- read: ``2026-09-23T15:00:00Z``, ``...+00:00``, another offset (converted to UTC), or no offset
  (taken as UTC); fractional seconds kept (microseconds); surrounding spaces ignored. With
  ``strict`` (a configuration key, ``gnss.datum.start_utc``: navsense's ruling, one spelling of
  a time in a configuration, the form it records) only ``YYYY-MM-DDThh:mm:ss[.f]`` then ``Z`` or
  ``+00:00``: the same parser, a narrower set of texts;
- written: ``YYYY-MM-DDThh:mm:ssZ``, with ``.ffffff`` when the microseconds are not zero.

Times are on the UTC scale without leap seconds (POSIX time), as the datum chain's epochs
(:mod:`navsense.geo.epoch`).
"""

from __future__ import annotations

import datetime as _dt
import re

__all__ = ["utc_datetime", "utc_posix_s", "utc_text"]


#: the texts ``strict`` reads: YYYY-MM-DDThh:mm:ss[.f] and Z or +00:00
_STRICT = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|\+00:00)")


def utc_datetime(text: str, *, strict: bool = False) -> _dt.datetime:
    """The aware UTC datetime of an ISO 8601 time (module docstring); ValueError naming the text
    when it is not one (with ``strict``, not one in the configuration's form)."""
    if not isinstance(text, str):
        raise ValueError(f"not an ISO 8601 time: {text!r}")
    if strict and not _STRICT.fullmatch(text):
        raise ValueError(f"not an ISO 8601 UTC time: {text!r}")
    s = text.strip()
    try:
        t = _dt.datetime.fromisoformat(s[:-1] + "+00:00" if s.endswith(("Z", "z")) else s)
    except ValueError:
        raise ValueError(f"not an ISO 8601 time: {text!r}") from None
    return t.replace(tzinfo=_dt.UTC) if t.tzinfo is None else t.astimezone(_dt.UTC)


def utc_posix_s(text: str) -> float:
    """POSIX seconds (UTC, no leap seconds) of an ISO 8601 time; ValueError if it is not one."""
    return utc_datetime(text).timestamp()


def utc_text(t: _dt.datetime | float) -> str:
    """ISO 8601 UTC text (Z suffix, microseconds when not whole) of a datetime (naive: taken as
    UTC) or of POSIX seconds."""
    if isinstance(t, _dt.datetime):
        t = t.replace(tzinfo=_dt.UTC) if t.tzinfo is None else t.astimezone(_dt.UTC)
    else:
        t = _dt.datetime.fromtimestamp(t, tz=_dt.UTC)
    return t.isoformat(timespec="microseconds" if t.microsecond else "seconds").replace(
        "+00:00", "Z"
    )
