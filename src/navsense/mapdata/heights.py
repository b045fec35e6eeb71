"""A building's height and base from its map tags (OpenStreetMap keys, also read from GeoJSON
properties).

Rules, in order (OSM wiki "Simple 3D Buildings": ``height`` is the top of the roof above the
ground, in metres unless a unit is given; ``min_height`` the underside of a part that does not
reach the ground; ``building:levels`` the storeys above ground, roof storeys excluded):

- ``height``: a number of metres, ``"12"``, ``"12.5 m"``, ``"12.5m"``; feet as ``"40 ft"`` or
  ``"40'"`` or ``"40'6\\""`` (0.3048 m a foot, 0.0254 m an inch); a number in GeoJSON;
- else ``building:levels`` x :data:`STOREY_HEIGHT_M` (levels > 0);
- else :data:`DEFAULT_HEIGHT_M`.

``min_height`` (same units), else ``building:min_level`` x the storey height, else 0, is the
base; it must be below the height. A value that is not a height (``"approx 10"``, ``"12,5"``,
``"-3"``, over 1000 m) is an error naming the file and the building (ruling: a wrong height moves
the sky view silently, and the message says which element to fix); a ``building:levels`` that
is not a number likewise.

:data:`STOREY_HEIGHT_M` = 3.0 m: navsense's choice of a storey's floor-to-floor height, near the
CTBUH height calculator's figures (about 3.1 m residential, 3.9 m office); with a pitched roof
not counted by ``building:levels``, a building's walls are about that high.
:data:`DEFAULT_HEIGHT_M` = 6.0 m: navsense's choice for a building with neither tag, two storeys
(most untagged OSM buildings are houses, garages and sheds; a taller one should carry its tag).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from navsense.errors import ConfigError
from navsense.jsonfile import is_finite

__all__ = [
    "MapBuilding",
    "building_height",
    "check_ring",
    "STOREY_HEIGHT_M",
    "DEFAULT_HEIGHT_M",
]

STOREY_HEIGHT_M = 3.0
DEFAULT_HEIGHT_M = 6.0
MAX_HEIGHT_M = 1000.0  # taller than any building (the Burj Khalifa: 828 m)
_FOOT_M = 0.3048
_INCH_M = 0.0254
_METRES = re.compile(r"^\s*(\d+(?:\.\d+)?|\.\d+)\s*(?:m|meters?|metres?)?\s*$")
_FEET = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(?:ft|feet|')\s*(?:(\d+(?:\.\d+)?)\s*(?:\"|in))?\s*$")


@dataclass(frozen=True)
class MapBuilding:
    """One building read from a map file: its name (``way 123``, ``relation 7 (Town Hall)``,
    ``features[3]``), outline as (lat, lon) degrees WGS84 (an open ring of >= 3 points), height
    and base above the ground (m) and where the height came from."""

    name: str
    ring_lat_lon: tuple[tuple[float, float], ...]
    height_m: float
    base_m: float
    height_from: str


def _shown(value) -> str:
    """A tag's value for an error line: quoted, its first 40 characters and "..." when longer
    (a number of 400 digits cut to 40 read as 1e39)."""
    text = str(value)
    return repr(text) if len(text) <= 40 else f"{text[:40]!r}... ({len(text)} characters)"


def _length_m(value, key: str, where: str) -> float:
    """A length tag (module docstring), metres; ConfigError naming ``where`` and the value."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        # a JSON integer of 400 digits: float() raised OverflowError (an internal error)
        out = float(value) if is_finite(value) else math.nan
    else:
        text = str(value)
        m = _METRES.match(text)
        f = _FEET.match(text)
        if m:
            out = float(m.group(1))
        elif f:
            out = float(f.group(1)) * _FOOT_M + float(f.group(2) or 0.0) * _INCH_M
        else:
            out = math.nan
    if not (math.isfinite(out) and 0.0 <= out <= MAX_HEIGHT_M):
        raise ConfigError(
            f"{where}: {key} = {_shown(value)} is not a height: metres 0 .. "
            f"{MAX_HEIGHT_M:g} (12, 12.5 m) or feet (40 ft, 40')"
        )
    return out


def _levels(value, key: str, where: str) -> float:
    try:
        out = float(value) if not isinstance(value, bool) else math.nan
    except (TypeError, ValueError, OverflowError):  # OverflowError: a JSON integer of 400 digits
        out = math.nan
    if not (math.isfinite(out) and 0.0 <= out <= MAX_HEIGHT_M / STOREY_HEIGHT_M):
        raise ConfigError(f"{where}: {key} = {_shown(value)} is not a number of storeys >= 0")
    return out


def building_height(tags: dict, where: str) -> tuple[float, float, str]:
    """(height, base, height_from) of a building from its tags (module docstring)."""
    if tags.get("height") is not None:
        height = _length_m(tags["height"], "height", where)
        source = f"height {tags['height']}"
    elif (
        tags.get("building:levels") is not None
        and _levels(tags["building:levels"], "building:levels", where) > 0
    ):
        levels = _levels(tags["building:levels"], "building:levels", where)
        height = levels * STOREY_HEIGHT_M
        source = f"building:levels {tags['building:levels']} x {STOREY_HEIGHT_M:g} m"
    else:
        height = DEFAULT_HEIGHT_M
        source = f"default {DEFAULT_HEIGHT_M:g} m"
    if tags.get("min_height") is not None:
        base = _length_m(tags["min_height"], "min_height", where)
    elif tags.get("building:min_level") is not None:
        base = _levels(tags["building:min_level"], "building:min_level", where) * STOREY_HEIGHT_M
    else:
        base = 0.0
    if height <= 0.0:
        raise ConfigError(f"{where}: height = {height:g} m: a building is taller than 0 m")
    if base >= height:
        raise ConfigError(f"{where}: its base {base:g} m is not below its height {height:g} m")
    return height, base, source


def check_ring(ring, at: str) -> None:
    """ConfigError naming ``at`` unless the open ring of (lat, lon) has 3 distinct points and an
    area (points all on one line make no footprint)."""
    pts = list(ring)
    if len(set(pts)) < 3:
        raise ConfigError(f"{at}: the outline has {len(set(pts))} distinct points; >= 3")
    lat0, lon0 = pts[0]
    area2 = 0.0
    for (a_lat, a_lon), (b_lat, b_lon) in zip(pts, pts[1:] + pts[:1], strict=True):
        area2 += (a_lon - lon0) * (b_lat - lat0) - (b_lon - lon0) * (a_lat - lat0)
    if area2 == 0.0:
        raise ConfigError(f"{at}: the outline has no area (its points are on one line)")
