"""The 14-parameter Helmert ITRF2014 -> NAD83(2011) against PROJ's +proj=helmert."""

from __future__ import annotations

import numpy as np
import pytest

from geo.geo_helpers import as_kind, expected_shape, helmert_proj_string, proj, um
from navsense.config.typed.datum import datum_config
from navsense.errors import ConfigError, DatumError
from navsense.geo import Georeference, helmert

EPOCHS = (2010.0, 1997.0, 2015.5, 2026.7277397260275, 2050.25)


def _points(n=500, seed=0):
    """ECEF points on and around the Earth's surface (all octants) plus the ACRE origin."""
    rng = np.random.default_rng(seed)
    v = rng.normal(size=(3, n))
    v *= (6_371_000.0 + rng.uniform(-1e4, 1e5, n)) / np.linalg.norm(v, axis=0)
    acre = np.array([[256_500.0], [-4_857_000.0], [4_116_000.0]])  # near the tile
    return np.concatenate([v, acre], axis=1)


@pytest.mark.parametrize("epoch", EPOCHS)
def test_forward_matches_proj(epoch):
    x, y, z = _points()
    ours = helmert.forward(x, y, z, epoch)
    theirs = proj(helmert_proj_string()).transform(x, y, z, np.full(x.shape, epoch))
    for a, b in zip(ours, theirs[:3]):
        assert np.max(np.abs(a - b)) < 1e-6  # m
        assert np.max(np.abs(a - b)) < 0.01 * um  # measured: a few nanometres


@pytest.mark.parametrize("epoch", EPOCHS)
def test_inverse_matches_proj(epoch):
    x, y, z = _points()
    ours = helmert.inverse(x, y, z, epoch)
    theirs = proj(helmert_proj_string()).transform(
        x, y, z, np.full(x.shape, epoch), direction="INVERSE"
    )
    for a, b in zip(ours, theirs[:3]):
        assert np.max(np.abs(a - b)) < 1e-6  # m


def test_epochs_vectorised_with_points():
    x, y, z = _points(200)
    ep = np.linspace(2000.0, 2040.0, x.size)
    ours = helmert.forward(x, y, z, ep)
    theirs = proj(helmert_proj_string()).transform(x, y, z, ep)
    for a, b in zip(ours, theirs[:3]):
        assert np.max(np.abs(a - b)) < 1e-6


def test_inverse_is_as_written_not_exact():
    """DESIGN.md ruling: X = (1/s) M^T (X' - T) is not an exact inverse; the gap is ~2e-7 m."""
    x, y, z = _points()
    fx, fy, fz = helmert.forward(x, y, z, 2026.73)
    bx, by, bz = helmert.inverse(fx, fy, fz, 2026.73)
    gap = np.sqrt((bx - x) ** 2 + (by - y) ** 2 + (bz - z) ** 2)
    assert np.max(gap) < 1 * um
    assert np.max(gap) > 1e-8  # it is not the identity: M^T M = I + O(r^2)


def test_parameter_values_and_rates_at_epoch():
    p = helmert.ITRF2014_TO_NAD83_2011
    t, r, s = helmert.at_epoch(p, 2026.73)
    d = 2026.73 - 2010.0
    assert np.isclose(t[0], 1.00530 + 0.00079 * d, rtol=0, atol=1e-15)
    assert np.isclose(r[1], -(-0.00042027 - 0.00075744 * d) * np.pi / 648_000.0, rtol=0, atol=1e-20)
    assert np.isclose(s, 1.0 + (0.00036891 - 0.00007201 * d) * 1e-6, rtol=0, atol=1e-16)
    # the translation is about 2.2 m: the size of the NAD83/ITRF offset
    assert 2.0 < np.linalg.norm([float(v) for v in t]) < 2.3


def test_shapes(shape_kind):
    x, y, z = _points(3)[:, :3]
    out = helmert.forward(
        as_kind(x, shape_kind), as_kind(y, shape_kind), as_kind(z, shape_kind), 2026.73
    )
    want = expected_shape(shape_kind, 3)
    for v in out:
        assert np.shape(v) == want
    inv = helmert.inverse(*out, as_kind(np.full(3, 2026.73), shape_kind))
    for v in inv:
        assert np.shape(v) == want


def test_parameters_from_the_datum_block_defaults_and_errors():
    """gnss.datum.helmert_itrf2014_to_nad83_2011: missing keys take the specification's values;
    the schema names a bad key."""
    assert Georeference.acre().datum["helmert_itrf2014_to_nad83_2011"] == (
        helmert.ITRF2014_TO_NAD83_2011.to_dict()
    )
    key = "helmert_itrf2014_to_nad83_2011"
    p = Georeference.acre(datum=datum_config({key: {"s_ppm": 0.0, "reference_epoch": 2011}})).datum[
        key
    ]
    assert (
        p["s_ppm"] == 0.0
        and p["reference_epoch"] == 2011.0
        and p["t_m"] == list(helmert.ITRF2014_TO_NAD83_2011.t_m)
    )
    with pytest.raises(ConfigError, match=f"{key}.t = .* is not a known key"):
        Georeference.acre(datum=datum_config({key: {"t": [0, 0, 0]}}))
    with pytest.raises(ConfigError, match=rf"{key}.t_m = \[0, 0\] is not an array of 3 numbers"):
        Georeference.acre(datum=datum_config({key: {"t_m": [0, 0]}}))
    with pytest.raises(ConfigError, match=f'{key}.s_ppm = "x" is not a number'):
        Georeference.acre(datum=datum_config({key: {"s_ppm": "x"}}))
    with pytest.raises(DatumError, match="epoch_yr must be finite"):
        helmert.forward(1.0, 2.0, 3.0, np.nan)
