"""Fuzz: map files given to ``navsense site --buildings`` and ``navsense simulate --buildings``
(issue 29 item 3): OpenStreetMap XML, its PBF form and GeoJSON, damaged byte by byte, with a
field set to an extreme (nan, 1e300, a latitude of 91, a height of -5, a way that names a node
that is not there), and GeoJSON of every wrong shape. A command ends with exit 0 and its complete
output, or exit 2 and one line that names the file; never a traceback, a hang or a half-written
file.

The base: examples/musterstrasse.osm (made up by hand for navsense, public domain), its
buildings as GeoJSON, and the same buildings as PBF (pyosmium, the `osm` extra)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fuzz.fuzz_helpers import (
    check_outcome,
    damaged_bytes,
    fuzz_settings,
    run_cli,
    scratch,
    simulate_checked,
    tree,
)

EXAMPLES = Path(__file__).parents[2] / "examples"
OSM = (EXAMPLES / "musterstrasse.osm").read_bytes()
SITE = EXAMPLES / "musterstrasse.site.json"


def _geojson() -> bytes:
    """The example's buildings as a GeoJSON FeatureCollection (lon, lat order)."""
    from navsense.mapdata import read_buildings

    with scratch() as folder:
        (folder / "m.osm").write_bytes(OSM)
        buildings = read_buildings(folder / "m.osm")
    features = [
        {
            "type": "Feature",
            "properties": {"height": b.height_m, "min_height": b.base_m, "name": b.name},
            "geometry": {
                "type": "Polygon",
                "coordinates": [[[lon, lat] for lat, lon in (*b.ring_lat_lon, b.ring_lat_lon[0])]],
            },
        }
        for b in buildings
    ]
    return json.dumps({"type": "FeatureCollection", "features": features}, indent=1).encode()


GEOJSON = _geojson()


def _site_command(folder: Path, name: str, *, must_fail: bool = False):
    """``navsense site --buildings NAME --site SITE --out s.json``, checked: one line and exit 2
    with nothing written, or a site file that reads back."""
    from navsense.site import load_site

    (folder / "base.site.json").write_bytes(SITE.read_bytes())
    before = tree(folder)
    argv = ["site", "--buildings", name, "--site", "base.site.json", "--out", "s.json"]
    outcome = run_cli(argv, folder)
    check_outcome(outcome, before, tree(folder), must_fail=must_fail, may_create=("s.json",))
    if outcome.code == 2:
        assert name in outcome.err, outcome.describe()
    if outcome.code == 0:
        load_site(folder / "s.json")
    return outcome


def test_the_bases_make_sites(tmp_path):
    (tmp_path / "m.osm").write_bytes(OSM)
    (tmp_path / "m.geojson").write_bytes(GEOJSON)
    assert _site_command(tmp_path, "m.osm").code == 0
    (tmp_path / "s.json").unlink()
    assert _site_command(tmp_path, "m.geojson").code == 0


@fuzz_settings(share=1.0)
@given(kind=st.sampled_from(["m.osm", "m.geojson"]), data=st.data())
def test_a_map_file_damaged_byte_by_byte(kind, data):
    base = OSM if kind.endswith(".osm") else GEOJSON
    deep = b"<a>" if kind.endswith(".osm") else b"["
    damaged = data.draw(damaged_bytes(base, deep))
    with scratch() as folder:
        (folder / kind).write_bytes(damaged)
        _site_command(folder, kind)


@fuzz_settings(share=0.5)
@given(data=st.data())
def test_a_pbf_file_damaged_byte_by_byte(data):
    osmium = pytest.importorskip("osmium")
    with scratch() as folder:
        (folder / "m.osm").write_bytes(OSM)
        with osmium.SimpleWriter(str(folder / "base.osm.pbf")) as writer:
            for obj in osmium.FileProcessor(str(folder / "m.osm")):
                writer.add(obj)
        damaged = data.draw(damaged_bytes((folder / "base.osm.pbf").read_bytes()))
        (folder / "base.osm.pbf").unlink()
        (folder / "m.osm").unlink()
        (folder / "m.osm.pbf").write_bytes(damaged)
        _site_command(folder, "m.osm.pbf")


_VALUES = ["nan", "inf", "-inf", "1e300", "-1e300", "91", "-181", "", "x", "1e-320", "0x10", "-0"]


@fuzz_settings(share=1.0)
@given(
    attribute=st.sampled_from(["lat", "lon", "ref", "id", "v"]),
    occurrence=st.integers(0, 200),
    value=st.sampled_from([*_VALUES, "-5", "1000000", "12 ft", "3'", "7 m", "2;3"]),
)
def test_an_osm_attribute_set_to_an_extreme(attribute, occurrence, value):
    text = OSM.decode()
    found = list(re.finditer(rf' {attribute}="([^"]*)"', text))
    m = found[occurrence % len(found)]
    text = text[: m.start(1)] + value + text[m.end(1) :]
    with scratch() as folder:
        (folder / "m.osm").write_text(text)
        _site_command(folder, "m.osm")


_SHAPES = [
    "null",
    "[]",
    "{}",
    '{"type": "FeatureCollection"}',
    '{"type": "FeatureCollection", "features": {}}',
    '{"type": "FeatureCollection", "features": [null]}',
    '{"type": "FeatureCollection", "features": [{"type": "Feature"}]}',
    '{"type": "Feature", "geometry": null, "properties": null}',
    '{"type": "Polygon", "coordinates": [[[11.58, 48.15], [11.581, 48.15], [11.58, 48.151]]]}',
    '{"type": "Polygon", "coordinates": [[[11.58, 48.15], [11.58, 48.15], [11.58, 48.15], '
    "[11.58, 48.15]]]}",
    '{"type": "Polygon", "coordinates": [[["a", "b"], [1, 2], [3, 4], ["a", "b"]]]}',
    '{"type": "Polygon", "coordinates": [[[1e400, 48.15], [11.58, 48.15], [11.58, 48.16], '
    "[1e400, 48.15]]]}",
    '{"type": "MultiPolygon", "coordinates": [[[]]]}',
    '{"type": "MultiPolygon", "coordinates": [[[[11.58, 48.15]]]]}',
    '{"type": "GeometryCollection", "geometries": [{"type": "GeometryCollection", '
    '"geometries": []}]}',
    '{"type": "Polygon", "coordinates": [[[11.58, 48.15, "x"], [11.581, 48.15], [11.581, 48.151], '
    "[11.58, 48.15]]]}",
]


@fuzz_settings(share=1.0)
@given(
    shape=st.sampled_from(_SHAPES),
    height=st.sampled_from(["null", "-5", "1e300", '"12 m"', '"x"', "true", "[1]", "NaN"]),
    wrap=st.booleans(),
)
def test_geojson_of_a_wrong_shape(shape, height, wrap):
    text = shape
    if wrap and shape.startswith(('{"type": "Polygon', '{"type": "Multi')):
        text = (
            '{"type": "FeatureCollection", "features": [{"type": "Feature", '
            f'"properties": {{"height": {height}}}, "geometry": {shape}}}]}}'
        )
    with scratch() as folder:
        (folder / "m.geojson").write_text(text)
        _site_command(folder, "m.geojson")


@fuzz_settings(share=0.25)
@given(kind=st.sampled_from(["m.osm", "m.geojson"]), data=st.data())
def test_simulate_with_damaged_buildings(kind, data):
    """``simulate --buildings``: a run directory that is complete, or one line and nothing."""
    base = OSM if kind.endswith(".osm") else GEOJSON
    damaged = data.draw(damaged_bytes(base))
    with scratch() as folder:
        (folder / kind).write_bytes(damaged)
        (folder / "route.json").write_bytes(
            (EXAMPLES / "musterstrasse.waypoints.json").read_bytes()
        )
        (folder / "base.site.json").write_bytes(SITE.read_bytes())
        simulate_checked(
            folder,
            ["--track", "route.json", "--site", "base.site.json"],
            ["--duration", "5", "--buildings", kind, "--no-imu"],
        )
