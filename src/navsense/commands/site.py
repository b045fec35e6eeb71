"""``navsense site --buildings FILE [--site NAME|FILE] --out SITE.json``: a site JSON file with
the buildings of an OpenStreetMap (``.osm``, ``.osm.pbf``) or GeoJSON file as its footprints
(:func:`navsense.mapdata.buildings_site`), for a user to look at, edit and give to ``--site``.

Without ``--site`` the site is a local one at the centre of the buildings; with it, the buildings
join that site's obstacles in its georeference. Every building of the file is written (a run's
``--buildings`` keeps those near its path). The file has one obstacle a line. Errors (a bad map
file, an --out that exists without --force) are one line, exit 2, before anything is written.
"""

from __future__ import annotations

import argparse
import json
import os

__all__ = ["add_parser", "run", "site_text"]


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register ``site`` on an argparse ``subparsers`` object."""
    p = subparsers.add_parser(
        "site",
        help="write a site JSON file from map data (OpenStreetMap, GeoJSON buildings)",
        description="Write a site JSON file whose footprints are the buildings of an "
        "OpenStreetMap (.osm, .osm.pbf) or GeoJSON file, each a prism of its outline and height "
        "(docs/guide/buildings.md).",
    )
    p.add_argument("--buildings", metavar="FILE", required=True, help=".osm, .osm.pbf or .geojson")
    p.add_argument(
        "--site",
        metavar="NAME|FILE",
        help="add the buildings to this site (default: a local site at their centre)",
    )
    p.add_argument("--out", metavar="FILE", required=True, help="the site JSON file to write")
    p.add_argument("--force", action="store_true", help="replace an existing --out")
    p.set_defaults(func=run)
    return p


def site_text(data: dict) -> str:
    """The site JSON as text: one key a line, one obstacle a line (easy to read and edit)."""
    lines = []
    for key, value in data.items():
        if isinstance(value, list):
            items = [" " * 2 + json.dumps(v, ensure_ascii=False) for v in value]
            body = "[\n" + ",\n".join(items) + "\n ]" if items else "[]"
            lines.append(f" {json.dumps(key)}: {body}")
        else:
            lines.append(f" {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def run(args) -> int:
    """``navsense site``: exit 0, or an error (one line, exit 2) before anything is written."""
    from navsense.mapdata.build import buildings_site
    from navsense.output.outfiles import check_out_file
    from navsense.site import resolve_site, site_from_json

    reads = [("--buildings", args.buildings)] + ([("--site", args.site)] if args.site else [])
    out = check_out_file(args.out, "--out", force=args.force, reads=reads)
    site = resolve_site(args.site)
    data = buildings_site(args.buildings, site)
    text = site_text(data)
    site_from_json(json.loads(text), str(out))  # it reads back
    tmp = out.with_name(out.name + ".partial")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, out)
    except BaseException:  # a full disk, or a stop: no NAME.partial left
        tmp.unlink(missing_ok=True)
        raise
    n = len(data["footprints"])
    print(f"navsense: {out}: site {data.get('name')!r} with {n} footprint(s)")
    return 0
