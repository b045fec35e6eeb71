"""Decimal year of start_utc + t (DESIGN.md ruling), tested directly.

An epoch error of days moves a position by micrometres only (the Helmert rates are below
2 mm/yr), so the chain tests cannot see it; these tests pin the calendar arithmetic.
"""

from __future__ import annotations

import numpy as np
import pytest

from geo.geo_helpers import as_kind, expected_shape
from navsense.errors import ConfigError, DatumError
from navsense.geo import epoch

DAY = 86_400.0


def test_specification_default_start():
    # 2026-09-23 15:00 UTC: 265 whole days and 15 h into 2026 (365 days) = 2026.7277 ~ 2026.73
    y = epoch.decimal_year("2026-09-23T15:00:00Z", 0.0)
    assert y == 2026.0 + (265.0 + 15.0 / 24.0) / 365.0
    assert round(float(y), 2) == 2026.73  # the caveats' epoch 2026.73


@pytest.mark.parametrize(
    "start, t_s, expected",
    [
        ("2026-12-31T23:59:59Z", 1.0, 2027.0),  # the boundary belongs to the new year
        ("2026-12-31T23:59:59Z", 0.0, 2026.0 + (365 * DAY - 1.0) / (365 * DAY)),
        ("2027-01-01T00:00:00Z", -1.0, 2026.0 + (365 * DAY - 1.0) / (365 * DAY)),
        ("2028-01-01T00:00:00Z", 0.0, 2028.0),
        ("2028-03-01T00:00:00Z", 0.0, 2028.0 + 60.0 / 366.0),  # leap year: 31 + 29 days
        ("2027-03-01T00:00:00Z", 0.0, 2027.0 + 59.0 / 365.0),  # common year
        ("2024-12-31T12:00:00Z", 0.0, 2024.0 + 365.5 / 366.0),
        ("2028-12-31T23:59:59Z", 0.5, 2028.0 + (366 * DAY - 0.5) / (366 * DAY)),
        ("2100-03-01T00:00:00Z", 0.0, 2100.0 + 59.0 / 365.0),  # 2100 is not a leap year
        ("2000-03-01T00:00:00Z", 0.0, 2000.0 + 60.0 / 366.0),  # 2000 is
    ],
)
def test_year_boundaries_and_leap_years(start, t_s, expected):
    assert abs(epoch.decimal_year(start, t_s) - expected) < 1e-12


def test_episode_crossing_new_year_is_vectorised():
    t = np.array([0.0, 0.5 * DAY, 1.0 * DAY, 1.5 * DAY, 400 * DAY])
    y = epoch.decimal_year("2027-12-31T00:00:00Z", t)
    want = [
        2027.0 + 364.0 / 365.0,
        2027.0 + 364.5 / 365.0,
        2028.0,
        2028.0 + 0.5 / 366.0,
        2029.0 + (400 - 1 - 366) / 365.0,
    ]
    np.testing.assert_allclose(y, want, rtol=0, atol=1e-12)
    for ti, yi in zip(t, y):
        assert epoch.decimal_year("2027-12-31T00:00:00Z", ti) == yi


def test_start_formats():
    base = epoch.decimal_year("2026-09-23T15:00:00Z", 0.0)
    assert epoch.decimal_year("2026-09-23T15:00:00+00:00", 0.0) == base
    assert epoch.decimal_year("2026-09-23T17:00:00+02:00", 0.0) == base
    assert epoch.decimal_year("2026-09-23T15:00:00", 0.0) == base  # no offset: UTC
    assert epoch.decimal_year("2026-09-23T14:59:59.75Z", 0.25) == base  # fractional seconds
    assert epoch.parse_utc("1970-01-01T00:00:00Z") == 0.0
    assert epoch.format_utc(epoch.parse_utc("2026-09-23T15:00:00Z")) == "2026-09-23T15:00:00Z"
    assert epoch.utc_to_episode_s("2026-09-23T16:00:00Z", "2026-09-23T15:00:00Z") == 3600.0


def test_resolution_of_a_physics_step():
    """One physics step (1/120 s = 2.6e-10 yr) is resolved to the float64 ulp of 2026 (4.5e-13 yr)."""
    y0 = epoch.decimal_year("2026-09-23T15:00:00Z", 0.0)
    y1 = epoch.decimal_year("2026-09-23T15:00:00Z", 1.0 / 120.0)
    assert abs((y1 - y0) - 1.0 / 120.0 / (365 * DAY)) < 1e-12


def test_shapes(shape_kind):
    t = np.array([0.0, 10.0, 1e6])
    y = epoch.decimal_year("2026-09-23T15:00:00Z", as_kind(t, shape_kind))
    assert np.shape(y) == expected_shape(shape_kind, 3)


def test_errors():
    with pytest.raises(ConfigError, match="start_utc must be an ISO 8601 UTC time"):
        epoch.decimal_year("23/09/2026", 0.0)
    with pytest.raises(ConfigError, match="start_utc must be an ISO 8601"):
        epoch.decimal_year(2026, 0.0)
    with pytest.raises(DatumError, match="t_s must be finite"):
        epoch.decimal_year("2026-09-23T15:00:00Z", np.nan)
