"""Buildings from a map file as a site's ``footprints`` (:class:`navsense.site.Site`).

:func:`read_buildings` reads the file by its name: ``.osm`` (and ``.xml``) OpenStreetMap XML,
``.osm.pbf``/``.pbf`` (pyosmium), ``.geojson``/``.json`` GeoJSON.

:func:`buildings_site` puts them on a site: each outline's (lat, lon) (WGS84) goes through the
site's georeference to grid ENU metres (:meth:`navsense.geo.Georeference.geodetic_to_enu`; the
footprint stands on the site's ground, z = 0, from its base to its height). Without a site a
local one is made at the centre of the buildings' bounding box (height 0 m: the map has no
heights of the ground; edit ``georeference.height_m`` for the site's real one). Coordinates
are written to the millimetre.

Near the run's path: only buildings with a corner or their centre within ``radius_m``
(:data:`DEFAULT_RADIUS_M` = 300 m) of a point of the path are kept. Beyond, a building h metres
tall hides only satellites below atan(h / 300 m): 9.5 deg for a 50 m block, under the default
10 deg elevation mask; and each building kept costs ray tests at every epoch. Without a path
(``navsense site``) every building of the file is kept.
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path

import numpy as np

from navsense.errors import ConfigError, NavsenseError, NavsenseWarning
from navsense.mapdata.heights import MapBuilding
from navsense.site import MAX_OBSTACLES, MAX_SITE_ENU_M, Site, footprint_outline, site_from_json

__all__ = ["read_buildings", "buildings_site", "site_with_buildings", "DEFAULT_RADIUS_M"]

DEFAULT_RADIUS_M = 300.0
ODBL = "OpenStreetMap data: © OpenStreetMap contributors, ODbL (openstreetmap.org/copyright)"


def read_buildings(path: str | os.PathLike) -> list[MapBuilding]:
    """The buildings of a map file, by its extension (module docstring)."""
    from navsense.mapdata.geojson import read_geojson
    from navsense.mapdata.osm import read_osm_pbf, read_osm_xml

    name = os.fspath(path).lower()
    p = Path(path)
    if not os.fspath(path):  # Path("") is ".": the line named the working directory
        raise ConfigError(
            "--buildings '': not a file name; give a map file (.osm, .osm.pbf, .geojson)"
        )
    if "\0" in os.fspath(path) or not p.exists():
        raise ConfigError(f"--buildings {os.fspath(path)!r}: no such file")
    if not p.is_file():
        raise ConfigError(f"--buildings {p}: is not a file (a directory?)")
    if name.endswith((".osm.pbf", ".pbf")):
        return read_osm_pbf(p)
    if name.endswith((".osm", ".xml")):
        return read_osm_xml(p)
    if name.endswith((".geojson", ".json")):
        return read_geojson(p)
    raise ConfigError(
        f"{p}: --buildings takes .osm (OpenStreetMap XML), .osm.pbf or .geojson; "
        f"{p.suffix or 'no extension'} is none of them"
    )


def _is_osm(path: str) -> bool:
    return path.lower().endswith((".osm", ".xml", ".pbf"))


def buildings_site(
    path: str | os.PathLike,
    site: Site | None = None,
    *,
    start_utc: str | None = None,
    path_xy_m=None,
    radius_m: float = DEFAULT_RADIUS_M,
) -> dict:
    """The site JSON (a dict, :func:`navsense.site.site_from_json` reads it) of ``site`` (None:
    a local site at the buildings' centre) with the buildings of the map file ``path`` as its
    ``footprints`` after those it has (one it has already is not added again); ``path_xy_m`` (n, 2) the run's path in the site's grid
    ENU (None: keep every building)."""
    where = os.fspath(path)
    buildings = read_buildings(path)
    if not buildings:
        raise ConfigError(
            f"{where}: no building in the file (a closed way or polygon tagged building)"
        )
    if site is None:
        lat = np.array([p[0] for b in buildings for p in b.ring_lat_lon])
        lon = np.array([p[1] for b in buildings for p in b.ring_lat_lon])
        data: dict = {
            "name": Path(where).name.split(".")[0] or "buildings",
            "description": "",
            "georeference": {
                "kind": "local",
                "lat_deg": round(0.5 * (lat.min() + lat.max()), 7),
                "lon_deg": _centre_lon_deg(lon),
                "height_m": 0.0,
            },
        }
        site = site_from_json(data, "buildings site")
    else:
        data = (
            copy.deepcopy(site.to_json())
            if site.to_json()
            else {"name": site.name, "georeference": site.georeference}
        )
    if site.georeference is None:
        raise ConfigError(
            f"site {site.name!r} has no georeference: the buildings of {where} (latitudes and "
            "longitudes) need one"
        )
    from navsense.config.defaults import defaults

    georef = site.make_georeference(start_utc or defaults()["gnss"]["datum"]["start_utc"])
    origin_h = float((site.georeference or {}).get("height_m", 0.0))
    rings = _to_enu(buildings, georef, origin_h, where, site.name)
    keep = _near_path(rings, path_xy_m, radius_m)
    if not any(keep):
        import warnings

        warnings.warn(
            f"{where}: none of its {len(buildings)} buildings is within {radius_m:g} m of the "
            f"run's path on site {site.name!r}: the run has none of them",
            NavsenseWarning,
            stacklevel=2,
        )
    footprints = list(data.get("footprints", []))
    # a site that has them already (a truth log saved by a run with --buildings) keeps one copy
    have = {json.dumps(f, sort_keys=True) for f in footprints}
    for b, ring, k in zip(buildings, rings, keep, strict=True):
        entry = {
            "name": b.name,
            "outline_enu_m": ring.tolist(),
            "base_z_m": b.base_m,
            "height_m": b.height_m - b.base_m,
            "height_from": b.height_from,
        }
        if k and json.dumps(entry, sort_keys=True) not in have:
            footprints.append(entry)
    if len(footprints) > MAX_OBSTACLES:
        raise ConfigError(
            f"{where}: {len(footprints)} buildings; a site holds at most {MAX_OBSTACLES} "
            "footprints (cut the file to the area of the run)"
        )
    data["footprints"] = footprints
    note = f"Buildings from {Path(where).name}" + (f" ({ODBL})" if _is_osm(where) else "")
    if note in (data.get("description") or ""):
        return data
    data["description"] = (
        (data.get("description") or "") + (" " if data.get("description") else "") + note + "."
    )
    return data


def _centre_lon_deg(lon: np.ndarray) -> float:
    """The longitude midway across the buildings' box, deg in [-180, 180): the longitudes taken
    within 180 deg of the first, so that buildings across the antimeridian (179.9999 and
    -179.9999) centre on 180, not on 0 half the Earth away."""
    if lon.max() - lon.min() <= 180.0:  # not across: the box's own middle (as before)
        return round(0.5 * (lon.min() + lon.max()), 7)
    near = lon[0] + (lon - lon[0] + 180.0) % 360.0 - 180.0
    centre = 0.5 * (near.min() + near.max())
    return round((centre + 180.0) % 360.0 - 180.0, 7)


def _to_enu(buildings, georef, height_m: float, where: str, site_name: str) -> list[np.ndarray]:
    """Each building's outline in the site's grid ENU (n, 2), to the millimetre: every point in
    one call of the georeference; a building it cannot place is named."""
    lat = np.array([p[0] for b in buildings for p in b.ring_lat_lon])
    lon = np.array([p[1] for b in buildings for p in b.ring_lat_lon])
    try:
        enu = np.asarray(
            georef.geodetic_to_enu(lat, lon, np.full(lat.shape, height_m), 0.0, "wgs84_g2139")
        ).reshape(-1, 3)
    except NavsenseError:
        for b in buildings:  # which one: each alone
            try:
                georef.geodetic_to_enu(*np.array(b.ring_lat_lon).T, height_m, 0.0, "wgs84_g2139")
            except NavsenseError as exc:
                raise ConfigError(
                    f"{where}: {b.name} cannot be placed on site {site_name!r}: {exc} (give a "
                    "site near the buildings with --site, or none: a local site at their centre)"
                ) from None
        raise
    xy = np.round(enu[:, :2], 3)
    cuts = np.cumsum([len(b.ring_lat_lon) for b in buildings])[:-1]
    rings = np.split(xy, cuts)
    for b, ring in zip(buildings, rings, strict=True):
        if not np.all(np.abs(ring) <= MAX_SITE_ENU_M):  # a site's own limit (navsense.site)
            far = float(np.max(np.hypot(ring[:, 0], ring[:, 1])))
            raise ConfigError(
                f"{where}: {b.name} lies {far / 1000:.0f} km from the origin of site "
                f"{site_name!r}; a site's obstacles are within {MAX_SITE_ENU_M / 1000:.0f} km of "
                "it (a latitude or longitude wrong in the file? give a site near the buildings "
                "with --site, or none: a local site at their centre)"
            )
        # a building that the millimetre grid flattens (a mapping slip a few mm across) is named
        # here, in the map file, not by the written site's check (which named the --out file)
        footprint_outline(ring.tolist(), f"{where}: {b.name}: its outline on site {site_name!r}")
    return rings


def _near_path(rings, path_xy_m, radius_m: float) -> list[bool]:
    """Which buildings have a corner or their centre within radius_m of a point of the path."""
    if path_xy_m is None:
        return [True] * len(rings)
    from scipy.spatial import cKDTree

    pts = np.asarray(path_xy_m, dtype=np.float64).reshape(-1, 2)
    pts = pts[np.all(np.isfinite(pts), axis=1)]
    if pts.shape[0] == 0:
        return [True] * len(rings)
    pts = np.unique(np.round(pts, 0), axis=0)  # a metre's grid: the radius is hundreds of metres
    tree = cKDTree(pts)
    # every corner and centre at once: a building is kept if any of its points is near
    q = np.vstack([np.vstack([ring, ring.mean(axis=0)]) for ring in rings])
    d, _ = tree.query(q, k=1, distance_upper_bound=radius_m)
    owner = np.repeat(np.arange(len(rings)), [len(ring) + 1 for ring in rings])
    near = np.zeros(len(rings), dtype=bool)
    near[owner[np.isfinite(d)]] = True
    return near.tolist()


def site_with_buildings(
    site: Site | None,
    path: str | os.PathLike,
    *,
    start_utc: str | None = None,
    path_xy_m=None,
    radius_m: float = DEFAULT_RADIUS_M,
) -> Site:
    """:func:`buildings_site` read back as a :class:`Site` (the run's site)."""
    data = buildings_site(path, site, start_utc=start_utc, path_xy_m=path_xy_m, radius_m=radius_m)
    return site_from_json(data, f"{os.fspath(path)} (buildings)")
