"""navsense.utc: the one parser and formatter of UTC times."""

import datetime as dt

import pytest

from navsense.errors import ConfigError
from navsense.geo.epoch import format_utc, parse_utc
from navsense.utc import utc_datetime, utc_posix_s, utc_text

# 2026-09-23T15:00:00Z in POSIX seconds (date -u -d 2026-09-23T15:00:00Z +%s)
START_POSIX_S = 1_790_175_600


@pytest.mark.parametrize(
    "text",
    [
        "2026-09-23T15:00:00Z",
        "2026-09-23T15:00:00z",
        "2026-09-23T15:00:00+00:00",
        "2026-09-23T17:00:00+02:00",
        "2026-09-23T10:00:00-05:00",
        "2026-09-23T15:00:00",  # no offset: UTC
        "  2026-09-23T15:00:00Z ",
    ],
)
def test_every_spelling_of_the_same_instant(text):
    t = utc_datetime(text)
    assert t == dt.datetime(2026, 9, 23, 15, tzinfo=dt.UTC) and t.utcoffset() == dt.timedelta(0)
    assert utc_posix_s(text) == START_POSIX_S == parse_utc(text)
    assert utc_text(t) == "2026-09-23T15:00:00Z" == format_utc(START_POSIX_S)


def test_microseconds_are_kept_and_written_only_when_not_zero():
    t = utc_datetime("2013-05-09T11:24:28.776Z")
    assert t.microsecond == 776_000
    assert utc_text(t) == "2013-05-09T11:24:28.776000Z"
    assert utc_text(dt.datetime(2013, 5, 9, 11, 24, 28)) == "2013-05-09T11:24:28Z"  # naive: UTC
    assert utc_text(utc_posix_s("2013-05-09T11:24:28.5Z")) == "2013-05-09T11:24:28.500000Z"


@pytest.mark.parametrize("bad", ["", "yesterday", "2026-13-01T00:00:00Z", None, 1790175600])
def test_not_a_time(bad):
    with pytest.raises(ValueError, match="not an ISO 8601 time"):
        utc_datetime(bad)
    with pytest.raises(ConfigError, match="start_utc must be an ISO 8601"):
        parse_utc(bad)
