"""Sites: an origin (georeference) and the obstacles of the sky view.

Specification, "Sky Obstruction": buildings are axis-aligned boxes, grain bins vertical cylinders,
tree crowns spheres, all in the site's grid ENU metres.

A site file is JSON::

    {
      "name": "acre",
      "georeference": {"kind": "acre"}            # the specification's tile and datum chain
                   or {"kind": "local", "lat_deg": .., "lon_deg": .., "height_m": ..}
                   or null                         # no georeference: no geodetic output
      "buildings":   [{"name": "garage", "min_enu_m": [x, y, z], "max_enu_m": [x, y, z]}, ...],
                                                   # optional "base_m": see below
      "grain_bins":  [{"name": "bin 1", "center_enu_m": [x, y], "base_z_m": 0, "radius_m": r,
                       "height_m": h}, ...],
      "tree_crowns": [{"name": "...", "center_enu_m": [x, y, z], "radius_m": r}, ...],
      "footprints":  [{"name": "...", "outline_enu_m": [[x, y], ...], "base_z_m": 0,
                       "height_m": h, "height_from": "..."}, ...]
    }

Overhead obstacles (navsense extension, issue 19 section 2): a building may carry ``base_m``, the
height of its underside above the ground it stands on (``min_enu_m`` z), 0 <= base_m < the box's
height. With base_m > 0 it is a box that does not stand on the ground: a bridge deck, an
overpass, a tunnel roof, a carport. Its solid part runs from min z + base_m to max z, so an
antenna can be beneath it; the sky view culls it by the distance to its footprint rather than to
its centre (:mod:`navsense.sky.obstruction`). Without the key (or with 0) a building is the
specification's box, unchanged.

Building footprints (navsense extension, issue 29 item 3: buildings from OpenStreetMap or
GeoJSON, :mod:`navsense.mapdata`): a ``footprints`` entry is a prism, its outline (a simple
polygon of at least 3 points [x, y], grid ENU metres, not repeated at the end; a ring that
repeats its first point at the end is read as the open one) extruded from ``base_z_m`` (default
0: the ground) to ``base_z_m + height_m``. ``height_from`` is a note of where the height came
from (the OSM tag, the levels, the default). The sky view tests rays against the prism itself
(:mod:`navsense.sky.footprints`), not its bounding box; a site without ``footprints`` is the
specification's model, unchanged.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import overload

import numpy as np

from navsense.errors import ConfigError
from navsense.jsonfile import is_finite, read_json

__all__ = [
    "Site",
    "load_site",
    "embedded_sites",
    "embedded_site",
    "resolve_site",
    "DEFAULT_SITE",
    "footprint_outline",
]

DEFAULT_SITE = "acre"  # the specification's tile: the site of a truth log that names none
_SITES = Path(__file__).parent / "scenarios" / "sites"  # the embedded site files


@dataclass(frozen=True)
class Site:
    """A site's origin and obstacles as arrays (component axis last, grid ENU metres).

    boxes: ``box_min_m``, ``box_max_m`` (nb, 3). Cylinders: ``cyl_xy_m`` (nc, 2) axis,
    ``cyl_base_m`` (nc,) bottom height, ``cyl_top_m`` (nc,) top height, ``cyl_radius_m`` (nc,).
    Crowns: ``crown_center_m`` (ns, 3), ``crown_radius_m`` (ns,). ``box_overhead`` (nb,) bool:
    the boxes that do not stand on the ground (a building's ``base_m`` > 0; their ``box_min_m``
    z is already the underside); None: no box is overhead. Footprint prisms: ``poly_xy_m``
    (nv, 2) the outlines' vertices one after the other, polygon i being
    ``poly_xy_m[poly_start[i]:poly_start[i + 1]]`` (an open ring), ``poly_base_m`` and
    ``poly_top_m`` (np,) its bottom and top heights.
    """

    name: str
    georeference: dict | None
    box_min_m: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    box_max_m: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    cyl_xy_m: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    cyl_base_m: np.ndarray = field(default_factory=lambda: np.zeros(0))
    cyl_top_m: np.ndarray = field(default_factory=lambda: np.zeros(0))
    cyl_radius_m: np.ndarray = field(default_factory=lambda: np.zeros(0))
    crown_center_m: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    crown_radius_m: np.ndarray = field(default_factory=lambda: np.zeros(0))
    box_overhead: np.ndarray | None = None
    poly_xy_m: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    poly_start: np.ndarray = field(default_factory=lambda: np.zeros(1, dtype=np.int64))
    poly_base_m: np.ndarray = field(default_factory=lambda: np.zeros(0))
    poly_top_m: np.ndarray = field(default_factory=lambda: np.zeros(0))
    names: dict = field(default_factory=dict)
    source: dict = field(default_factory=dict)

    def make_georeference(self, start_utc: str, datum: dict | None = None):
        """The site's :class:`navsense.geo.Georeference`, or None without a georeference."""
        if self.georeference is None:
            return None
        from navsense.geo import Georeference

        kind = self.georeference.get("kind")
        if kind == "acre":
            from navsense.config.typed.datum import datum_config

            return Georeference.acre(
                start_utc=start_utc, datum=datum_config(datum, where="Georeference datum")
            )
        return Georeference.local(
            self.georeference["lat_deg"],
            self.georeference["lon_deg"],
            self.georeference.get("height_m", 0.0),
            start_utc=start_utc,
        )

    def to_json(self) -> dict:
        """The site as the JSON object it was read from."""
        return self.source


MAX_SITE_ENU_M = 1e6  # an obstacle's coordinates: within 1000 km of the site's origin
MAX_OBSTACLE_SIZE_M = 1e4  # a radius or height, m
MAX_OBSTACLES = 10_000  # of each kind (the sky model tests every line of sight against each)
MAX_OUTLINE_POINTS = 2_000  # the vertices of one footprint's outline
HEIGHT_RANGE_M = (-1e4, 1e5)  # a local georeference's height, m


def _finite(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and is_finite(v)


def _vec(obj: dict, key: str, n: int, where: str) -> list:
    value = obj.get(key)
    if (
        not isinstance(value, list)
        or len(value) != n
        or not all(_finite(v) and abs(v) <= MAX_SITE_ENU_M for v in value)
    ):
        raise ConfigError(
            f"{where}.{key} = {_text(value)} is not an array of {n} finite numbers within "
            f"{MAX_SITE_ENU_M:g} m of the site's origin"
        )
    return [float(v) for v in value]


def _num(
    obj: dict,
    key: str,
    where: str,
    positive: bool = False,
    default=None,
    limit: float = MAX_SITE_ENU_M,
) -> float:
    value = obj.get(key, default)
    if not _finite(value):
        raise ConfigError(f"{where}.{key} = {_text(value)} is not a finite number")
    if positive and value <= 0:
        raise ConfigError(f"{where}.{key} = {value} must be > 0")
    if abs(value) > limit:
        raise ConfigError(f"{where}.{key} = {value} is out of range -{limit:g}..{limit:g}")
    return float(value)


def footprint_outline(value, where: str) -> list[list[float]]:
    """A footprint's outline: 3 .. MAX_OUTLINE_POINTS points [x, y] within MAX_SITE_ENU_M, with
    an area (not all on one line); a last point equal to the first is dropped (a closed ring)."""
    if not isinstance(value, list) or not all(
        isinstance(p, list)
        and len(p) == 2
        and all(_finite(v) and abs(v) <= MAX_SITE_ENU_M for v in p)
        for p in value
    ):
        raise ConfigError(
            f"{where} = {_text(value)} is not an array of points [x, y] (finite numbers within "
            f"{MAX_SITE_ENU_M:g} m of the site's origin)"
        )
    ring = [[float(x), float(y)] for x, y in value]
    if len(ring) > 1 and ring[0] == ring[-1]:
        ring.pop()
    if not 3 <= len(ring) <= MAX_OUTLINE_POINTS:
        raise ConfigError(
            f"{where} has {len(ring)} distinct points; a footprint has 3 .. {MAX_OUTLINE_POINTS}"
        )
    xy = np.array(ring)
    nxt = np.roll(xy, -1, axis=0)
    area2 = float(np.sum(xy[:, 0] * nxt[:, 1] - nxt[:, 0] * xy[:, 1]))  # shoelace, twice the area
    if area2 == 0.0:
        raise ConfigError(f"{where} = {_text(value)} has no area (its points are on one line)")
    return ring


def _base_m(value, height_m: float, where: str) -> float:
    """A building's base_m: a finite number, 0 <= base_m < its height (max z - min z)."""
    if not _finite(value) or not 0.0 <= value < height_m:
        raise ConfigError(
            f"{where} = {_text(value)} is out of range: 0 <= base_m < {height_m:g} "
            "(the height of the underside above min_enu_m z, below the top max_enu_m z)"
        )
    return float(value)


def _text(value) -> str:
    """A JSON value as a message shows it (short)."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _objects(data: dict, key: str, source: str) -> list[dict]:
    """The list of objects under ``key`` (absent: none)."""
    items = data.get(key, [])
    if not isinstance(items, list):
        raise ConfigError(f"{source}: {key} = {_text(items)} is not an array of objects")
    if len(items) > MAX_OBSTACLES:
        raise ConfigError(f"{source}: {key} has {len(items)} entries; at most {MAX_OBSTACLES}")
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise ConfigError(f"{source}: {key}[{i}] = {_text(item)} is not a JSON object")
    return items


_KEYS = {
    "site": (
        "name",
        "description",
        "georeference",
        "buildings",
        "grain_bins",
        "tree_crowns",
        "footprints",
    ),
    "acre": ("kind",),
    "local": ("kind", "lat_deg", "lon_deg", "height_m"),
    "buildings": ("name", "min_enu_m", "max_enu_m", "base_m"),
    "grain_bins": ("name", "center_enu_m", "base_z_m", "radius_m", "height_m"),
    "tree_crowns": ("name", "center_enu_m", "radius_m"),
    "footprints": ("name", "outline_enu_m", "base_z_m", "height_m", "height_from"),
}


def _known_keys(obj: dict, kind: str, prefix: str) -> None:
    """ConfigError naming (after ``prefix``) the first key of ``obj`` that a ``kind`` object does
    not have (a typo such as ``heigth_m`` would otherwise be a default taken silently)."""
    for key in obj:
        if key not in _KEYS[kind]:
            raise ConfigError(
                f"{prefix}{key} is not a known key; allowed: {', '.join(_KEYS[kind])}"
            )


def _label(obj: dict, default: str, where: str, key: str = "name") -> str:
    """``obj[key]`` (a name or a description): text, or ConfigError naming it."""
    value = obj.get(key, default)
    if not isinstance(value, str):
        sep = "." if where.endswith("]") else ": "
        raise ConfigError(f"{where}{sep}{key} = {_text(value)} is not text (a JSON string)")
    return value


def _recordable(data: dict, source: str) -> None:
    """ConfigError naming the first value of the site's JSON that its record in episode.json
    cannot hold: an integer beyond 64 bits, text with a lone surrogate (the site is written
    there as read; orjson's TypeError was an internal error)."""
    todo: list[tuple[str, object]] = [("", data)]
    while todo:
        path, value = todo.pop()
        if isinstance(value, dict):
            for k, v in value.items():
                todo += [(f"{path}.{k}" if path else str(k), k), (f"{path}.{k}" if path else k, v)]
        elif isinstance(value, list):
            todo += [(f"{path}[{i}]", v) for i, v in enumerate(value)]
        elif isinstance(value, int) and not isinstance(value, bool):
            if not -(2**63) <= value < 2**64:
                raise ConfigError(f"{source}: {path} = {value} is beyond 64 bits")
        elif isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise ConfigError(
                    f"{source}: {path} = {value!r} is not text (a lone UTF-16 surrogate)"
                ) from None


def site_from_json(data: dict, source: str = "site.json") -> Site:
    """Build a :class:`Site` from its JSON object; errors name the file and the key."""
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: a site must be a JSON object")
    _known_keys(data, "site", f"{source}: ")
    geo = data.get("georeference")
    if geo is not None:
        if not isinstance(geo, dict):
            raise ConfigError(
                f"{source}: georeference = {json.dumps(geo)[:80]} is not an object; allowed: "
                '{"kind": "acre"} or {"kind": "local", "lat_deg": .., "lon_deg": .., "height_m": ..}'
            )
        if geo.get("kind") not in ("acre", "local"):
            # the kind's own value (a missing kind is null), not the whole object
            raise ConfigError(
                f"{source}: georeference.kind = {json.dumps(geo.get('kind'))[:80]} "
                "is not one of acre, local"
            )
        _known_keys(geo, geo["kind"], f"{source}: georeference.")
        if geo["kind"] == "local":
            where = f"{source}: georeference"
            _num(geo, "lat_deg", where, limit=90.0)
            _num(geo, "lon_deg", where, limit=180.0)
            height = _num(geo, "height_m", where, default=0.0, limit=max(map(abs, HEIGHT_RANGE_M)))
            if not HEIGHT_RANGE_M[0] <= height <= HEIGHT_RANGE_M[1]:
                raise ConfigError(
                    f"{where}.height_m = {height} is out of range "
                    f"{HEIGHT_RANGE_M[0]:g}..{HEIGHT_RANGE_M[1]:g}"
                )
    names: dict[str, list] = {
        "buildings": [],
        "grain_bins": [],
        "tree_crowns": [],
        "footprints": [],
    }
    bmin, bmax, overhead = [], [], []
    for i, b in enumerate(_objects(data, "buildings", source)):
        where = f"{source}: buildings[{i}]"
        _known_keys(b, "buildings", f"{where}.")
        lo, hi = _vec(b, "min_enu_m", 3, where), _vec(b, "max_enu_m", 3, where)
        if not all(a < b for a, b in zip(lo, hi, strict=True)):
            raise ConfigError(f"{where}: min_enu_m {lo} must be below max_enu_m {hi} on every axis")
        if "base_m" in b:
            base = _base_m(b["base_m"], hi[2] - lo[2], f"{source}: buildings[{i}].base_m")
            lo[2] += base  # the underside: the solid part runs from here to the top
            overhead.append(base > 0.0)
        else:
            overhead.append(False)
        bmin.append(lo)
        bmax.append(hi)
        names["buildings"].append(_label(b, f"building {i}", where))
    cxy, cbase, ctop, crad = [], [], [], []
    for i, c in enumerate(_objects(data, "grain_bins", source)):
        where = f"{source}: grain_bins[{i}]"
        _known_keys(c, "grain_bins", f"{where}.")
        cxy.append(_vec(c, "center_enu_m", 2, where))
        base = _num(c, "base_z_m", where, default=0.0)
        cbase.append(base)
        ctop.append(base + _num(c, "height_m", where, positive=True, limit=MAX_OBSTACLE_SIZE_M))
        crad.append(_num(c, "radius_m", where, positive=True, limit=MAX_OBSTACLE_SIZE_M))
        names["grain_bins"].append(_label(c, f"grain bin {i}", where))
    sc, sr = [], []
    for i, s in enumerate(_objects(data, "tree_crowns", source)):
        where = f"{source}: tree_crowns[{i}]"
        _known_keys(s, "tree_crowns", f"{where}.")
        sc.append(_vec(s, "center_enu_m", 3, where))
        sr.append(_num(s, "radius_m", where, positive=True, limit=MAX_OBSTACLE_SIZE_M))
        names["tree_crowns"].append(_label(s, f"crown {i}", where))
    pxy, pstart, pbase, ptop = [], [0], [], []
    for i, f in enumerate(_objects(data, "footprints", source)):
        where = f"{source}: footprints[{i}]"
        _known_keys(f, "footprints", f"{where}.")
        ring = footprint_outline(f.get("outline_enu_m"), f"{where}.outline_enu_m")
        pxy += ring
        pstart.append(len(pxy))
        base = _num(f, "base_z_m", where, default=0.0)
        pbase.append(base)
        ptop.append(base + _num(f, "height_m", where, positive=True, limit=MAX_OBSTACLE_SIZE_M))
        names["footprints"].append(_label(f, f"footprint {i}", where))
        _label(f, "", where, "height_from")
    _label(data, "", source, "description")
    _recordable(data, source)
    return Site(
        name=_label(data, "site", source),
        georeference=geo,
        box_min_m=np.array(bmin, dtype=np.float64).reshape(-1, 3),
        box_max_m=np.array(bmax, dtype=np.float64).reshape(-1, 3),
        cyl_xy_m=np.array(cxy, dtype=np.float64).reshape(-1, 2),
        cyl_base_m=np.array(cbase, dtype=np.float64),
        cyl_top_m=np.array(ctop, dtype=np.float64),
        cyl_radius_m=np.array(crad, dtype=np.float64),
        crown_center_m=np.array(sc, dtype=np.float64).reshape(-1, 3),
        crown_radius_m=np.array(sr, dtype=np.float64),
        box_overhead=np.array(overhead, dtype=bool) if any(overhead) else None,
        poly_xy_m=np.array(pxy, dtype=np.float64).reshape(-1, 2),
        poly_start=np.array(pstart, dtype=np.int64),
        poly_base_m=np.array(pbase, dtype=np.float64),
        poly_top_m=np.array(ptop, dtype=np.float64),
        names=names,
        source=data,
    )


def load_site(path: str | Path) -> Site:
    """Read a site JSON file."""
    data = read_json(path, "site file", ConfigError, allow_nan=True)  # NaN: refused by its key
    return site_from_json(data, source=str(Path(path)))


def embedded_sites() -> list[str]:
    """Names of the sites shipped with navsense (``navsense/scenarios/sites/*.json``)."""
    return sorted(p.name[:-5] for p in _SITES.iterdir() if p.name.endswith(".json"))


def embedded_site(name: str) -> Site:
    """An embedded site by name (``acre`` is the specification's tile)."""
    res = _SITES / f"{name}.json"
    known = False
    with contextlib.suppress(OSError, ValueError):  # a name too long for a file, a NUL
        known = "/" not in name and res.is_file()
    if not known:
        shown = repr(name) if len(name) <= 80 else repr(name[:77]) + "..."
        raise ConfigError(
            f"site = {shown} is not an embedded site; known: {', '.join(embedded_sites())}"
        )
    return site_from_json(
        json.loads(res.read_text(encoding="utf-8")), source=f"{name}.json (embedded)"
    )


@overload
def resolve_site(spec: None, *, base: str | os.PathLike | None = None) -> None: ...


@overload
def resolve_site(
    spec: Site | str | os.PathLike | Mapping, *, base: str | os.PathLike | None = None
) -> Site: ...


def resolve_site(
    spec: Site | str | os.PathLike | Mapping | None, *, base: str | os.PathLike | None = None
) -> Site | None:
    """The one site resolver: a :class:`Site` as given; a site JSON file (a path ending in
    ``.json``, or naming an existing file; relative to ``base`` when given); ``{"path": FILE}``
    (a campaign's resolved reference); else an embedded site's name. None stays None (the
    caller's default applies).
    """
    if spec is None or isinstance(spec, Site):
        return spec
    if isinstance(spec, Mapping):
        return load_site(spec["path"])
    text = os.fspath(spec)
    path = Path(base) / text if base is not None else Path(text)
    is_file = False
    with contextlib.suppress(OSError, ValueError):  # not a file name (too long, a NUL)
        is_file = path.is_file()
    if text.endswith(".json") or is_file:
        return load_site(path)
    return embedded_site(text)
