"""Fixtures of the geo tests (helpers and PROJ truth live in geo_helpers.py)."""

import pytest

from geo.geo_helpers import SHAPES


@pytest.fixture(params=SHAPES)
def shape_kind(request):
    """Run a numeric test on a Python scalar, a 0-d array, a 1-element and an N-element array."""
    return request.param
