"""GeoJSON building footprints (RFC 7946): a FeatureCollection (or one Feature) whose Polygon
and MultiPolygon features are buildings, their heights from the properties as OSM's tags
(``height``, ``building:levels``, ``min_height``, ``building:min_level``;
:mod:`navsense.mapdata.heights`), their name from ``name`` or the feature's index.

Each polygon's exterior ring (its first) is a footprint; holes are filled (as for OSM
multipolygons). Features of other geometries (points, lines: a building's entrance, a road) are
left out with one warning counting them. Errors (one line naming the file and the feature): not
JSON, not a FeatureCollection or Feature, a ring that is not closed (RFC 7946 3.1.6: the first
and last positions are the same) or has fewer than 4 positions, a position that is not
[longitude, latitude] within range, a height that is not one, a ``crs`` member (GeoJSON 2008,
dropped by RFC 7946) that names another system than WGS84 longitude/latitude: such a file's
positions are projected coordinates, which were read as degrees (mostly refused as out of range,
without the reason).
"""

from __future__ import annotations

import warnings
from pathlib import Path

from navsense.errors import ConfigError, NavsenseWarning
from navsense.jsonfile import is_finite, read_json
from navsense.mapdata.heights import MapBuilding, building_height, check_ring

__all__ = ["read_geojson"]


def read_geojson(path: str | Path) -> list[MapBuilding]:
    """The building footprints of a GeoJSON file (module docstring)."""
    where = str(path)
    if Path(path).stat().st_size == 0:
        raise ConfigError(f"{where}: the file is empty: not GeoJSON")
    data = read_json(path, "GeoJSON file", ConfigError)
    kind = data.get("type") if isinstance(data, dict) else None
    if kind == "FeatureCollection" and isinstance(data.get("features"), list):
        features = data["features"]
        prefix = "features"
    elif kind == "Feature":
        features, prefix = [data], "feature"
    else:
        raise ConfigError(
            f"{where}: type = {str(kind)[:40]!r}: not a GeoJSON FeatureCollection (with a "
            "features array) or Feature"
        )
    _check_crs(where, data.get("crs"))
    out: list[MapBuilding] = []
    other = 0
    for i, f in enumerate(features):
        at = f"{where}: {prefix}[{i}]" if prefix == "features" else f"{where}: feature"
        if not isinstance(f, dict) or f.get("type") != "Feature":
            raise ConfigError(f"{at} is not a GeoJSON Feature")
        geom = f.get("geometry")
        props = f.get("properties") or {}
        if not isinstance(props, dict):
            raise ConfigError(f"{at}.properties is not a JSON object")
        if not isinstance(geom, dict):
            other += 1  # a feature without a geometry (null) is not a building
            continue
        gtype = geom.get("type")
        polygons: list = []
        if gtype == "Polygon":
            polygons = [geom.get("coordinates")]
        elif gtype == "MultiPolygon":
            coords = geom.get("coordinates")
            polygons = coords if isinstance(coords, list) else []
            if not isinstance(coords, list):
                raise ConfigError(f"{at}.geometry.coordinates is not an array of polygons")
        else:
            other += 1
            continue
        name = props.get("name")
        label = f"{prefix}[{i}]" + (f" ({name})" if isinstance(name, str) and name else "")
        height, base, source = building_height(props, at)
        for j, poly in enumerate(polygons):
            pat = f"{at}.geometry.coordinates" + (f"[{j}]" if gtype == "MultiPolygon" else "")
            if not isinstance(poly, list) or not poly:
                raise ConfigError(f"{pat} is not an array of linear rings")
            ring = _ring(poly[0], f"{pat}[0]")
            out.append(MapBuilding(label, ring, height, base, source))
    if other:
        warnings.warn(
            f"{where}: {other} feature(s) that are not polygons left out (a building is a "
            "Polygon or MultiPolygon)",
            NavsenseWarning,
            stacklevel=2,
        )
    return out


def _ring(ring, at: str) -> tuple[tuple[float, float], ...]:
    """A closed linear ring of [lon, lat(, h)] positions as an open ring of (lat, lon)."""
    if not isinstance(ring, list):
        raise ConfigError(f"{at} is not an array of positions")
    pts = []
    for k, p in enumerate(ring):
        ok = (
            isinstance(p, list)
            and len(p) in (2, 3)
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in p)
            and all(is_finite(v) for v in p)  # (math.isfinite of a 400-digit int overflows)
        )
        if not ok or abs(p[0]) > 180.0 or abs(p[1]) > 90.0:
            raise ConfigError(
                f"{at}[{k}] = {str(p)[:60]} is not a position [longitude, latitude] in degrees "
                "(-180 .. 180, -90 .. 90)"
            )
        pts.append((float(p[1]), float(p[0])))
    if len(pts) < 4:
        raise ConfigError(f"{at} has {len(pts)} positions; a closed ring has >= 4")
    if pts[0] != pts[-1]:
        raise ConfigError(
            f"{at} is not closed: its first position {list(ring[0])} is not its last "
            f"{list(ring[-1])} (RFC 7946 3.1.6)"
        )
    check_ring(pts[:-1], at)
    return tuple(pts[:-1])


def _check_crs(where: str, crs) -> None:
    """Refuse a GeoJSON 2008 ``crs`` member naming another system than WGS84 longitude/latitude
    (CRS84 or EPSG:4326, which GeoJSON 2008 wrote in longitude/latitude order)."""
    if crs is None:
        return
    name = crs.get("properties", {}).get("name") if isinstance(crs, dict) else None
    if not isinstance(name, str):
        raise ConfigError(
            f"{where}: crs = {str(crs)[:60]!r} is not a named coordinate system; GeoJSON "
            "positions are WGS84 longitude and latitude (RFC 7946: leave crs out)"
        )
    plain = name.upper().replace("::", ":")
    if not (plain.endswith("CRS84") or plain.endswith(":4326")):
        raise ConfigError(
            f"{where}: crs {name[:60]!r}: the footprints must be in WGS84 longitude and latitude "
            "(RFC 7946; e.g. ogr2ogr -t_srs EPSG:4326 out.geojson in.geojson)"
        )
