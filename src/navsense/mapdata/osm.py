"""OpenStreetMap files: the buildings of an ``.osm`` XML file (the standard library's expat
parser, with the line of each element) or of an ``.osm.pbf`` (pyosmium, the ``osm`` extra).

A building is a closed way tagged ``building=*`` (not ``building=no``), or a multipolygon
relation tagged ``building=*`` whose outer member ways join into closed rings (each ring one
footprint; inner rings, courtyards, are filled: the prism is the outer ring). Left out, as not
standing above the ground: ``location=underground``, ``building:part=*`` ways without
``building`` (parts of a building whose outline is tagged). Elements with ``action="delete"``
(a JOSM file) are left out.

Errors (:class:`navsense.errors.ConfigError`, one line naming the file, the element and its
line): an empty file, XML that is not well formed (expat's line and column), a root that is not
``<osm>``, a node without a latitude or longitude or with one out of range, a building way whose
nodes the file does not have or that is not closed or has fewer than 3 points, a relation whose
outer ways the file lacks or that do not close, a height that is not one
(:mod:`navsense.mapdata.heights`). Ruling: a bad building is an error, not a warning and a skip:
an extract with buildings cut at its edge is made complete with ``osmium extract -s
complete_ways`` or Overpass's ``(._;>;);``, and a building silently missing opens the sky.
"""

from __future__ import annotations

import math
from pathlib import Path
from xml.parsers import expat

from navsense.errors import ConfigError, NavsenseError
from navsense.mapdata.heights import MapBuilding, building_height, check_ring

__all__ = ["read_osm_xml", "read_osm_pbf", "is_building"]


def is_building(tags: dict) -> bool:
    """A building outline that stands above the ground (module docstring)."""
    b = tags.get("building")
    return b is not None and b != "no" and tags.get("location") != "underground"


def _label(kind: str, ident: str, tags: dict) -> str:
    name = tags.get("name")
    return f"{kind} {ident}" + (f" ({name})" if name else "")


class _Reader:
    """The expat handlers: nodes, ways and relations with their tags and lines."""

    def __init__(self, path: str, parser) -> None:
        self.path, self.parser = path, parser
        self.nodes: dict[str, tuple[float, float]] = {}
        self.ways: dict[str, tuple[list[str], dict, int]] = {}
        self.relations: list[tuple[str, list[tuple[str, str, str]], dict, int]] = []
        self.root: str | None = None
        self.current: tuple | None = None  # ("way"|"relation", id, refs|members, tags, line)

    def start(self, name: str, attrs: dict) -> None:
        line = self.parser.CurrentLineNumber
        if self.root is None:
            self.root = name
            if name != "osm":
                raise ConfigError(
                    f"{self.path}: line {line}: the root element is <{name}>, not <osm>: not an "
                    "OpenStreetMap XML file"
                )
            return
        if name in ("node", "way", "relation"):
            if attrs.get("action") == "delete":
                self.current = ("deleted", "", [], {}, line)
                return
            ident = attrs.get("id")
            if ident is None:
                raise ConfigError(f"{self.path}: line {line}: <{name}> has no id")
            if name == "node":
                self.nodes[ident] = self._lat_lon(attrs, ident, line)
                self.current = None
            else:
                self.current = (name, ident, [], {}, line)
        elif self.current is not None:
            if name == "tag":
                self.current[3][attrs.get("k", "")] = attrs.get("v", "")
            elif name == "nd" and self.current[0] == "way":
                self.current[2].append(attrs.get("ref", ""))
            elif name == "member" and self.current[0] == "relation":
                self.current[2].append(
                    (attrs.get("type", ""), attrs.get("ref", ""), attrs.get("role", ""))
                )

    def end(self, name: str) -> None:
        cur = self.current
        if cur is None or name not in ("node", "way", "relation"):
            return
        self.current = None
        kind, ident, items, tags, line = cur
        if kind == "way" and name == "way":
            self.ways[ident] = (items, tags, line)
        elif kind == "relation" and name == "relation":
            self.relations.append((ident, items, tags, line))

    def _lat_lon(self, attrs: dict, ident: str, line: int) -> tuple[float, float]:
        out = []
        for key, limit in (("lat", 90.0), ("lon", 180.0)):
            text = attrs.get(key)
            try:
                v = float(text) if text is not None else math.nan
            except ValueError:
                v = math.nan
            if not (math.isfinite(v) and abs(v) <= limit):
                raise ConfigError(
                    f"{self.path}: line {line}: node {ident}: {key} = {text!r} is not a "
                    f"coordinate in -{limit:g} .. {limit:g} degrees"
                )
            out.append(v)
        return out[0], out[1]


def read_osm_xml(path: str | Path) -> list[MapBuilding]:
    """The buildings of an OpenStreetMap XML file (module docstring)."""
    where = str(path)
    data = Path(path).read_bytes()
    if not data.strip():
        raise ConfigError(f"{where}: the file is empty: not an OpenStreetMap XML file")
    parser = expat.ParserCreate()
    reader = _Reader(where, parser)
    parser.StartElementHandler = reader.start
    parser.EndElementHandler = reader.end
    try:
        parser.Parse(data, True)
    except expat.ExpatError as exc:
        raise ConfigError(
            f"{where}: line {exc.lineno}, column {exc.offset + 1}: not well-formed XML "
            f"({expat.ErrorString(exc.code)})"
        ) from None
    except NavsenseError:
        raise
    except (LookupError, ValueError) as exc:  # an encoding expat cannot decode
        raise ConfigError(
            f"{where}: line 1: its XML declaration names an encoding expat cannot decode "
            f"({exc}); save it as UTF-8"
        ) from None
    out = []
    for ident, (refs, tags, line) in reader.ways.items():
        if is_building(tags):
            label = _label("way", ident, tags)
            ring = _way_ring(reader, where, ident, refs, line, label, closed=True)
            out.append(_building(ring, tags, f"{where}: line {line}: {label}", label))
    for ident, members, tags, line in reader.relations:
        if is_building(tags) and tags.get("type") == "multipolygon":
            label = _label("relation", ident, tags)
            at = f"{where}: line {line}: {label}"
            for ring in _relation_rings(reader, where, members, at):
                out.append(_building(ring, tags, at, label))
    return out


def _way_ring(reader, where, ident, refs, line, label, closed: bool) -> list[tuple[float, float]]:
    """A way's points (lat, lon); ConfigError for a node the file lacks, or (closed) a way that
    is not a closed ring of >= 3 points."""
    at = f"{where}: line {line}: {label}"
    for ref in refs:
        if ref not in reader.nodes:
            raise ConfigError(
                f"{at}: node {ref} is not in the file (an extract cut at a building: make it "
                "with complete ways)"
            )
    if closed:
        if len(refs) < 2 or refs[0] != refs[-1]:
            ends = f"{refs[0]} .. {refs[-1]}" if refs else "no nodes"
            raise ConfigError(f"{at}: the building's outline is not closed (nodes {ends})")
        if len(set(refs)) < 3:
            raise ConfigError(f"{at}: the building's outline has {len(set(refs))} nodes; >= 3")
    return [reader.nodes[r] for r in refs]


def _relation_rings(reader, where, members, at) -> list[list[tuple[float, float]]]:
    """The closed outer rings of a multipolygon relation: its outer ways joined end to end."""
    pieces = []
    for kind, ref, role in members:
        if kind != "way" or role not in ("outer", ""):
            continue
        if ref not in reader.ways:
            raise ConfigError(f"{at}: its outer way {ref} is not in the file")
        refs, _, line = reader.ways[ref]
        _way_ring(reader, where, ref, refs, line, f"way {ref}", closed=False)
        if refs:
            pieces.append(list(refs))
    rings = []
    while pieces:
        ring = pieces.pop(0)
        while ring[0] != ring[-1]:
            for i, p in enumerate(pieces):
                if p[0] == ring[-1]:
                    ring += p[1:]
                elif p[-1] == ring[-1]:
                    ring += p[-2::-1]
                else:
                    continue
                pieces.pop(i)
                break
            else:
                raise ConfigError(f"{at}: its outer ways do not join into closed rings")
        if len(set(ring)) < 3:
            raise ConfigError(f"{at}: an outer ring has {len(set(ring))} nodes; >= 3")
        rings.append([reader.nodes[r] for r in ring])
    if not rings:
        raise ConfigError(f"{at}: a building multipolygon without an outer way")
    return rings


def _building(ring, tags: dict, at: str, label: str) -> MapBuilding:
    height, base, source = building_height(tags, at)
    pts = tuple(ring[:-1] if len(ring) > 1 and ring[0] == ring[-1] else ring)
    check_ring(pts, at)
    return MapBuilding(label, pts, height, base, source)


def read_osm_pbf(path: str | Path) -> list[MapBuilding]:
    """The buildings of an ``.osm.pbf`` file through pyosmium (``pip install osmium``, the
    ``osm`` extra), by the rules of :func:`read_osm_xml`: building ways read with their node
    locations (a node the file lacks, a way not closed or of fewer than 3 nodes: an error), the
    multipolygon relations' rings assembled by libosmium (a relation it cannot close: an error).
    Elements are named without a line (a PBF has none)."""
    where = str(path)
    try:
        import osmium
    except ImportError:
        raise ConfigError(
            f"{where}: reading .osm.pbf needs pyosmium: pip install 'navsense[osm]' (or "
            "pip install osmium); or convert the file to .osm XML"
        ) from None
    if Path(path).stat().st_size == 0:
        raise ConfigError(f"{where}: the file is empty: not an OpenStreetMap PBF file")
    ways: list[MapBuilding] = []
    rels: list[MapBuilding] = []
    wanted: dict[int, str] = {}  # building multipolygon relations -> their label
    try:
        fp = osmium.FileProcessor(where).with_locations().with_areas()
        for obj in fp:
            if isinstance(obj, osmium.osm.Way):
                tags = {t.k: t.v for t in obj.tags}
                if is_building(tags):
                    ways.append(_pbf_way(obj, tags, where))
            elif isinstance(obj, osmium.osm.Relation):
                tags = {t.k: t.v for t in obj.tags}
                if is_building(tags) and tags.get("type") == "multipolygon":
                    wanted[obj.id] = _label("relation", str(obj.id), tags)
            elif isinstance(obj, osmium.osm.Area) and not obj.from_way():
                if obj.orig_id() not in wanted:
                    continue
                tags = {t.k: t.v for t in obj.tags}
                label = wanted.pop(obj.orig_id())
                for outer in obj.outer_rings():
                    ring = [(n.lat, n.lon) for n in outer]
                    rels.append(_building(ring, tags, f"{where}: {label}", label))
    except ConfigError:
        raise
    except (RuntimeError, osmium.InvalidLocationError) as exc:
        raise ConfigError(f"{where}: not a readable OpenStreetMap PBF file ({exc})") from None
    if wanted:
        label = next(iter(wanted.values()))
        raise ConfigError(
            f"{where}: {label}: its outer ways are not in the file or do not join into closed rings"
        )
    return ways + rels


def _pbf_way(way, tags: dict, where: str) -> MapBuilding:
    """A building way of a PBF file (pyosmium, with locations) as a MapBuilding."""
    label = _label("way", str(way.id), tags)
    at = f"{where}: {label}"
    refs = [n.ref for n in way.nodes]
    for n in way.nodes:
        if not n.location.valid():
            raise ConfigError(
                f"{at}: node {n.ref} is not in the file (an extract cut at a building: make it "
                "with complete ways)"
            )
    if len(refs) < 2 or refs[0] != refs[-1]:
        ends = f"{refs[0]} .. {refs[-1]}" if refs else "no nodes"
        raise ConfigError(f"{at}: the building's outline is not closed (nodes {ends})")
    if len(set(refs)) < 3:
        raise ConfigError(f"{at}: the building's outline has {len(set(refs))} nodes; >= 3")
    ring = [(n.location.lat, n.location.lon) for n in way.nodes]
    return _building(ring, tags, at, label)
