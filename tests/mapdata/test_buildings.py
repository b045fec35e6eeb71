"""Buildings from the map (issue 29 item 3, navsense.mapdata): the example OSM street read with
the documented height rules, the same buildings from its PBF (pyosmium) and GeoJSON forms, a
site written by ``navsense site`` that reads back with the same sky, a run whose street blocks
the satellites behind its buildings, and bad files as one line naming the file and element."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from navsense.errors import ConfigError
from navsense.mapdata import read_buildings, site_with_buildings
from navsense.site import load_site, resolve_site
from navsense.sky import obstruction as sky

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
OSM = EXAMPLES / "musterstrasse.osm"
SITE = EXAMPLES / "musterstrasse.site.json"


def test_example_street_heights_follow_the_rules():
    got = {b.name: (b.height_m, b.base_m, len(b.ring_lat_lon)) for b in read_buildings(OSM)}
    assert got == {
        "way 1001 (Block A)": (18.0, 0.0, 4),  # height=18
        "way 1002": (15.0, 0.0, 4),  # building:levels=5 x 3 m
        "way 1003": (12.0, 0.0, 4),  # height="12 m"
        "way 1004": (12.0, 0.0, 6),  # levels 4 (roof:levels not added), an L
        "way 1005": (6.0, 0.0, 4),  # no tag: the default
        "way 1006 (Tower)": (25.0, 0.0, 4),
        "way 1007": (6.0, 0.0, 4),
        "way 1010 (Arcade house)": (9.0, 3.0, 4),  # min_height=3
        "relation 1 (Market hall)": (pytest.approx(65 * 0.3048), 0.0, 4),  # 65 feet
    }  # building=no, the road and the relation's member ways are not buildings


def _sky(site):
    rng = np.random.default_rng(5)
    m, nsat = 200, 10
    antenna = np.c_[rng.uniform(-6, 6, m), rng.uniform(-110, 110, m), np.full(m, 1.8)]
    az, el = np.radians(rng.uniform(0, 360, (m, nsat))), np.radians(rng.uniform(10, 90, (m, nsat)))
    los = np.stack([np.cos(el) * np.sin(az), np.cos(el) * np.cos(az), np.sin(el)], axis=-1)
    return sky.SkyView(site, 1.5, 8.0, 10.0).classify(antenna, los, np.ones((m, nsat), bool))


def test_pbf_gives_the_same_buildings(tmp_path):
    osmium = pytest.importorskip("osmium")
    pbf = tmp_path / "street.osm.pbf"
    with osmium.SimpleWriter(str(pbf)) as writer:
        for obj in osmium.FileProcessor(str(OSM)):
            writer.add(obj)
    xml = sorted((b.name, b.height_m, b.base_m) for b in read_buildings(OSM))
    assert sorted((b.name, b.height_m, b.base_m) for b in read_buildings(pbf)) == xml
    base = resolve_site(SITE)
    a, b = site_with_buildings(base, OSM), site_with_buildings(base, pbf)
    np.testing.assert_array_equal(_sky(a), _sky(b))


def test_geojson_gives_the_same_sky(tmp_path):
    features = [
        {
            "type": "Feature",
            "properties": {"height": b.height_m, "min_height": b.base_m, "name": b.name},
            "geometry": {
                "type": "Polygon",
                "coordinates": [[[lon, lat] for lat, lon in (*b.ring_lat_lon, b.ring_lat_lon[0])]],
            },
        }
        for b in read_buildings(OSM)
    ]
    features.append(
        {
            "type": "Feature",
            "properties": {},
            "geometry": {"type": "Point", "coordinates": [11.58, 48.15]},
        }
    )
    path = tmp_path / "street.geojson"
    path.write_text(json.dumps({"type": "FeatureCollection", "features": features}))
    base = resolve_site(SITE)
    with pytest.warns(Warning, match="1 feature"):
        gj = site_with_buildings(base, path)
    np.testing.assert_array_equal(_sky(gj), _sky(site_with_buildings(base, OSM)))


@pytest.mark.parametrize(
    "name", ["urn:ogc:def:crs:OGC:1.3:CRS84", "urn:ogc:def:crs:EPSG::4326", "EPSG:4326"]
)
def test_a_geojson_crs_of_wgs84_longitude_and_latitude_is_read_as_none(tmp_path, name):
    ring = [[11, 48], [11.001, 48], [11, 48.001], [11, 48]]
    feature = {"type": "Feature", "properties": {"height": 9}, "geometry": {"type": "Polygon"}}
    feature["geometry"]["coordinates"] = [ring]
    plain, named = tmp_path / "plain.geojson", tmp_path / "named.geojson"
    plain.write_text(json.dumps({"type": "FeatureCollection", "features": [feature]}))
    crs = {"type": "name", "properties": {"name": name}}
    named.write_text(json.dumps({"type": "FeatureCollection", "crs": crs, "features": [feature]}))
    assert read_buildings(named) == read_buildings(plain)


def _navsense(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "navsense", *args], capture_output=True, text=True, cwd=cwd
    )


def test_site_command_writes_a_site_that_reads_back_with_the_same_sky(tmp_path):
    out = tmp_path / "street.site.json"
    r = _navsense("site", "--buildings", str(OSM), "--site", str(SITE), "--out", str(out))
    assert r.returncode == 0, r.stderr
    written = load_site(out)
    assert len(written.names["footprints"]) == 9
    np.testing.assert_array_equal(_sky(written), _sky(site_with_buildings(resolve_site(SITE), OSM)))
    assert (_sky(written) == sky.BLOCKED).any() and (_sky(written) == sky.CLEAR).any()
    # a local site at the buildings' centre without --site; --out is not replaced silently
    local = tmp_path / "local.json"
    assert _navsense("site", "--buildings", str(OSM), "--out", str(local)).returncode == 0
    assert load_site(local).georeference["kind"] == "local"
    again = _navsense("site", "--buildings", str(OSM), "--out", str(local))
    assert again.returncode == 2 and "--force" in again.stderr


def test_a_run_in_the_street_loses_the_satellites_behind_its_buildings(tmp_path):
    from navsense.run import prepare_run

    track = str(EXAMPLES / "musterstrasse.waypoints.json")
    run = prepare_run(track=track, site=str(SITE), buildings=str(OSM), duration_s=40.0)
    assert len(run.site.names["footprints"]) == 9
    run.simulate(tmp_path / "run", progress=False, workers="threads")
    rows = [json.loads(line) for line in (tmp_path / "run" / "gnss.jsonl").open()]
    blocked = np.array([r["satellites_blocked"] for r in rows])
    assert blocked.max() >= 10  # between the tower and Block A
    open_run = prepare_run(track=track, site=str(SITE), duration_s=40.0)
    assert len(open_run.site.names["footprints"]) == 0


def test_buildings_far_from_the_path_are_left_out():
    base = resolve_site(SITE)
    near = site_with_buildings(base, OSM, path_xy_m=np.array([[0.0, -95.0]]), radius_m=12.0)
    assert near.names["footprints"] == ["way 1001 (Block A)", "way 1006 (Tower)"]


BAD = {
    "empty.osm": ("", "the file is empty"),
    "broken.osm": ("<osm><node id='1' lat='1' lon='2'></osm>", "line 1, column"),
    "root.osm": ("<gpx></gpx>", "not <osm>"),
    "missing.osm": (
        "<osm>\n<node id='1' lat='48' lon='11'/>\n<way id='7'><nd ref='1'/><nd ref='2'/>"
        "<nd ref='1'/><tag k='building' v='yes'/></way></osm>",
        "line 3: way 7: node 2 is not in the file",
    ),
    "open.osm": (
        "<osm><node id='1' lat='48' lon='11'/><node id='2' lat='48.001' lon='11'/>"
        "<node id='3' lat='48' lon='11.001'/><way id='7'><nd ref='1'/><nd ref='2'/><nd ref='3'/>"
        "<tag k='building' v='yes'/></way></osm>",
        "way 7: the building's outline is not closed",
    ),
    "lat.osm": ("<osm>\n<node id='4' lat='91' lon='11'/></osm>", "line 2: node 4: lat = '91'"),
    "height.osm": (
        "<osm><node id='1' lat='48' lon='11'/><node id='2' lat='48.001' lon='11'/>"
        "<node id='3' lat='48' lon='11.001'/><way id='7'><nd ref='1'/><nd ref='2'/><nd ref='3'/>"
        "<nd ref='1'/><tag k='building' v='yes'/><tag k='height' v='approx 10'/></way></osm>",
        "way 7: height = 'approx 10' is not a height",
    ),
    "two.osm": (
        "<osm><node id='1' lat='48' lon='11'/><node id='2' lat='48.001' lon='11'/><way id='7'>"
        "<nd ref='1'/><nd ref='2'/><nd ref='1'/><tag k='building' v='yes'/></way></osm>",
        "has 2 nodes",
    ),
    "ring.geojson": (
        '{"type": "FeatureCollection", "features": [{"type": "Feature", "properties": {}, '
        '"geometry": {"type": "Polygon", "coordinates": [[[11, 48], [11.001, 48], [11, 48.001]]]}}]}',
        "features[0].geometry.coordinates[0] has 3 positions",
    ),
    "notclosed.geojson": (
        '{"type": "FeatureCollection", "features": [{"type": "Feature", "properties": {}, '
        '"geometry": {"type": "Polygon", "coordinates": [[[11, 48], [11.001, 48], [11, 48.001], [11.001, 48.001]]]}}]}',
        "is not closed",
    ),
    "range.geojson": (
        '{"type": "Feature", "properties": {}, "geometry": {"type": "Polygon", '
        '"coordinates": [[[11, 48], [191, 48], [11, 48.001], [11, 48]]]}}',
        "feature.geometry.coordinates[0][1] = [191, 48] is not a position",
    ),
    "empty.geojson": ("", "the file is empty"),
    # GeoJSON 2008's crs: projected positions were read as degrees, refused as out of range
    # without the reason (session 16)
    "mercator.geojson": (
        '{"type": "Feature", "crs": {"type": "name", "properties": {"name": "EPSG:3857"}}, '
        '"properties": {}, "geometry": {"type": "Polygon", "coordinates": [[[1288000, 6130000], '
        "[1288100, 6130000], [1288000, 6130100], [1288000, 6130000]]]}}",
        "crs 'EPSG:3857': the footprints must be in WGS84 longitude and latitude",
    ),
    "crslink.geojson": (
        '{"type": "Feature", "crs": {"type": "link", "properties": {"href": "x.prj"}}, '
        '"properties": {}, "geometry": {"type": "Polygon", "coordinates": '
        "[[[11, 48], [11.001, 48], [11, 48.001], [11, 48]]]}}",
        "is not a named coordinate system",
    ),
    "line.osm": (
        "<osm><node id='1' lat='48' lon='11'/><node id='2' lat='48.001' lon='11'/>"
        "<node id='3' lat='48.002' lon='11'/><way id='7'><nd ref='1'/><nd ref='2'/><nd ref='3'/>"
        "<nd ref='1'/><tag k='building' v='yes'/></way></osm>",
        "line 1: way 7: the outline has no area",
    ),
    "flat.geojson": (
        '{"type": "Feature", "properties": {}, "geometry": {"type": "Polygon", '
        '"coordinates": [[[11, 48], [11, 48.001], [11, 48.002], [11, 48]]]}}',
        "feature.geometry.coordinates[0]: the outline has no area",
    ),
    "roads.txt": ("x", "--buildings takes .osm"),
    # a JSON integer beyond a float ended in 'internal error: OverflowError: int too large to
    # convert to float' (the third fuzz helper)
    "hugeheight.geojson": (
        '{"type": "Feature", "properties": {"height": 1' + "0" * 400 + '}, "geometry": '
        '{"type": "Polygon", "coordinates": [[[11, 48], [11.001, 48], [11, 48.001], [11, 48]]]}}',
        "feature: height = '1000000000000000000000000000000000000000'... (401 characters) is not a "
        "height",
    ),
    "hugelon.geojson": (
        '{"type": "Feature", "properties": {}, "geometry": {"type": "Polygon", '
        '"coordinates": [[[11, 48], [-1' + "0" * 400 + ", 48], [11, 48.001], [11, 48]]]}}",
        "feature.geometry.coordinates[0][1] = [-1000000000",
    ),
    "hugelevels.geojson": (
        '{"type": "Feature", "properties": {"building:levels": -1' + "0" * 400 + "}, "
        '"geometry": {"type": "Polygon", "coordinates": '
        "[[[11, 48], [11.001, 48], [11, 48.001], [11, 48]]]}}",
        "building:levels = '-100000000000000000000000000000000000000'... (402 characters) is not a",
    ),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_files_are_one_line_naming_the_file_and_element(tmp_path, name):
    text, words = BAD[name]
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ConfigError, match=None) as err:
        read_buildings(path)
    assert str(path) in str(err.value) and words in str(err.value), str(err.value)


def test_bad_file_on_the_command_line_is_exit_2_one_line(tmp_path):
    path = tmp_path / "broken.osm"
    path.write_text("<osm><way id='3'>")
    r = _navsense("site", "--buildings", str(path), "--out", str(tmp_path / "s.json"))
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and str(path) in r.stderr and "line 1" in r.stderr
    assert not (tmp_path / "s.json").exists()


def test_a_building_beyond_the_sites_reach_is_named_in_the_map_file(tmp_path):
    """Found by tests/fuzz/test_fuzz_mapdata.py: a node of the example at lon 91 instead of 11.58
    (a building 4 000 km from the site) was read, then refused by the written site's own check
    naming the --out file (``s.json: footprints[0].outline_enu_m = ...``), not the map file."""
    path = tmp_path / "far.osm"
    path.write_text(OSM.read_text().replace('lon="11.5797312"', 'lon="91"', 1))
    with pytest.raises(ConfigError) as err:
        site_with_buildings(resolve_site(SITE), path)
    assert str(err.value).startswith(f"{path}: way 1001 (Block A) lies ")
    assert "km from the origin of site" in str(err.value)
    r = _navsense(
        "site", "--buildings", str(path), "--site", str(SITE), "--out", "s.json", cwd=tmp_path
    )
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and str(path) in r.stderr, r.stderr
    assert not (tmp_path / "s.json").exists()


def _pbf(tmp_path, xml: str):
    osmium = pytest.importorskip("osmium")
    src, pbf = tmp_path / "in.osm", tmp_path / "out.osm.pbf"
    src.write_text(xml.replace("<osm>", "<osm version='0.6'>"))
    with osmium.SimpleWriter(str(pbf)) as writer:
        for obj in osmium.FileProcessor(str(src)):
            writer.add(obj)
    return pbf


@pytest.mark.parametrize(
    ("xml", "words"),
    [
        (BAD["missing.osm"][0], "way 7: node 2 is not in the file"),
        (BAD["open.osm"][0], "way 7: the building's outline is not closed"),
        (BAD["height.osm"][0], "way 7: height = 'approx 10' is not a height"),
        (
            "<osm><relation id='5'><member type='way' ref='9' role='outer'/>"
            "<tag k='type' v='multipolygon'/><tag k='building' v='yes'/></relation></osm>",
            "relation 5: its outer ways are not in the file",
        ),
    ],
)
def test_bad_pbf_files_are_named_as_the_xml_ones(tmp_path, xml, words):
    pbf = _pbf(tmp_path, xml)
    with pytest.raises(ConfigError) as err:
        read_buildings(pbf)
    assert str(pbf) in str(err.value) and words in str(err.value), str(err.value)


def test_pbf_without_pyosmium_says_what_to_install(tmp_path, monkeypatch):
    pbf = tmp_path / "city.osm.pbf"
    pbf.write_bytes(b"\0" * 16)
    monkeypatch.setitem(sys.modules, "osmium", None)
    with pytest.raises(
        ConfigError, match=r"city.osm.pbf: reading .osm.pbf needs pyosmium: pip install"
    ):
        read_buildings(pbf)


def test_buildings_off_the_site_or_away_from_the_path_are_said(tmp_path):
    r = _navsense(
        "site", "--buildings", str(OSM), "--site", "acre", "--out", str(tmp_path / "a.json")
    )
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert str(OSM) in r.stderr and "cannot be placed on site 'acre'" in r.stderr
    underpass = resolve_site(EXAMPLES / "underpass.site.json")  # 35 km away
    with pytest.warns(Warning, match="none of its 9 buildings is within 300 m"):
        far = site_with_buildings(underpass, OSM, path_xy_m=np.zeros((1, 2)))
    assert far.names["footprints"] == []


def test_a_truth_log_of_a_run_with_buildings_gets_them_once(tmp_path):
    from navsense.run import prepare_run

    track = str(EXAMPLES / "musterstrasse.waypoints.json")
    first = prepare_run(track=track, site=str(SITE), buildings=str(OSM), duration_s=5.0)
    again = site_with_buildings(first.site, OSM)
    assert again.names["footprints"] == first.site.names["footprints"]
    assert again.to_json()["description"] == first.site.to_json()["description"]


@pytest.mark.parametrize(
    ("buildings", "out", "words"),
    [
        ("a\0b.osm", "s.json", "--buildings 'a\\x00b.osm': no such file"),
        (".", "s.json", "is not a file"),
        (str(OSM), "s\0.json", "not a file name"),
        (str(OSM), "nowhere/s.json", "the folder nowhere does not exist"),
        (str(OSM), str(OSM), "is the --buildings file that it is made from"),
    ],
)
def test_site_command_bad_paths_are_one_line(tmp_path, monkeypatch, capsys, buildings, out, words):
    from navsense.cli import main

    monkeypatch.chdir(tmp_path)
    argv = ["site", "--buildings", buildings, "--out", out, "--force"]
    assert main(argv) == 2  # NUL bytes: not through a subprocess's argv
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err and "internal error" not in err, err


def _geojson(path: Path, *rings) -> Path:
    features = [
        {
            "type": "Feature",
            "properties": {"height": 10},
            "geometry": {"type": "Polygon", "coordinates": [ring]},
        }
        for ring in rings
    ]
    path.write_text(json.dumps({"type": "FeatureCollection", "features": features}))
    return path


def test_buildings_across_the_antimeridian_get_a_site_at_their_centre(tmp_path):
    """Found by the fuzz helper: a building from lon 179.9999 to -179.9999 (15 m wide) had its
    local site at lon 0 (the box's middle, min -179.9999 and max 179.9999) and was refused as
    '6345 km from the origin of site'. Now the centre is lon 180, written as -180."""
    ring = [[179.9999, 48.4], [-179.9999, 48.4], [-179.9999, 48.4001], [179.9999, 48.4]]
    out = tmp_path / "am.json"
    r = _navsense(
        "site", "--buildings", str(_geojson(tmp_path / "am.geojson", ring)), "--out", str(out)
    )
    assert r.returncode == 0, r.stderr
    site = load_site(out)
    assert site.georeference["lon_deg"] == -180.0 and site.georeference["lat_deg"] == 48.40005
    outline = np.array(json.loads(out.read_text())["footprints"][0]["outline_enu_m"])
    # 0.0002 deg of longitude at 48.4 deg: 14.81 m (R cos(lat) on the ellipsoid, to 1 cm)
    assert abs(outline[:, 0].max() - outline[:, 0].min() - 14.81) < 0.01


def test_a_building_the_millimetre_flattens_is_named_in_the_map_file(tmp_path):
    """Found by the fuzz helper: a building 1e-8 deg across (a mapping slip) became an outline
    of no area on the millimetre grid, refused by the written site's check naming the --out
    file ('tiny.json: footprints[1].outline_enu_m = ...', a file that is not written). Now the
    map file and the building."""
    good = [[11.7, 48.4], [11.7001, 48.4], [11.7001, 48.4001], [11.7, 48.4]]
    tiny = [[11.7, 48.4], [11.70000001, 48.4], [11.70000001, 48.40000001], [11.7, 48.4]]
    path = _geojson(tmp_path / "tiny.geojson", good, tiny)
    r = _navsense("site", "--buildings", str(path), "--out", "tiny.json", cwd=tmp_path)
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert f"{path}: features[1]: its outline on site 'tiny' = " in r.stderr
    assert "has no area" in r.stderr and not (tmp_path / "tiny.json").exists()
