"""Buildings from the map (navsense extension, issue 29 item 3): OpenStreetMap data (``.osm``
XML, ``.osm.pbf`` through pyosmium) and GeoJSON building footprints read as
:class:`~navsense.mapdata.heights.MapBuilding` (:mod:`.osm`, :mod:`.geojson`), turned into a
site's ``footprints`` near a run's path (:mod:`.build`); the ``navsense site`` command
(:mod:`.cli`). Reading a file is :func:`read_buildings`.
"""

from __future__ import annotations

from navsense.mapdata.build import (
    DEFAULT_RADIUS_M,
    buildings_site,
    read_buildings,
    site_with_buildings,
)
from navsense.mapdata.heights import DEFAULT_HEIGHT_M, STOREY_HEIGHT_M, MapBuilding

__all__ = [
    "MapBuilding",
    "read_buildings",
    "buildings_site",
    "site_with_buildings",
    "DEFAULT_RADIUS_M",
    "DEFAULT_HEIGHT_M",
    "STOREY_HEIGHT_M",
]
