"""``navsense geo``: convert one point or a CSV file between the site's frames.

Frames: grid ENU (m), EPSG:2968 state plane (US survey ft, ACRE only), NAD83(HARN),
NAD83(2011), WGS84 (G2139) at an epoch, UTM (m). One point prints a flat JSON object with every
frame; ``--in FILE --out FILE`` converts a CSV file (one row per point) and writes a CSV file
with the same flat columns.

Examples::

    navsense geo --from enu --enu 100 200 0 --epoch-s 3600
    navsense geo --from wgs84 --lat 40.4715844 --lon -86.9943852 --h 180.13 --utc 2026-10-01T00:00:00Z
    navsense geo --from stateplane_ft --easting 2977500 --northing 1902500 --z-ft 705
    navsense geo --from utm --zone 16 --easting 500476.935 --northing 4480099.755 --h 181.26
    navsense geo --origin 48.1 11.6 520 --from enu --enu 10 0 0
    navsense geo --from enu --in points.csv --out frames.csv

Input CSV columns by ``--from`` (header row required; an optional t_s column gives each row's
episode time, otherwise --epoch-s/--utc/0 applies)::

    enu            e_m, n_m, u_m
    wgs84, nad83_2011, nad83_harn   lat_deg, lon_deg, height_m
    stateplane_ft  easting_ft, northing_ft, navd88_height_ft
    utm            easting_m, northing_m, height_m        (with --zone, --south, --utm-frame)

Errors: out-of-domain or non-finite input raises DatumError, a malformed CSV FormatError, a bad
combination of options ConfigError; each has a one-line message naming the value. ``run``
raises them (the main ``navsense`` command prints one line and exits 2); ``main`` does that
itself for ``python -m navsense.commands.geo``.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import sys
import tempfile

import numpy as np

from navsense.errors import ConfigError, DatumError, FormatError, NavsenseError
from navsense.geo import stateplane as _sp
from navsense.geo import utm as _utm
from navsense.geo.epoch import DEFAULT_START_UTC, utc_to_episode_s
from navsense.geo.georef import ACRE_ORIGIN_FT, OUTPUT_KEYS, Georeference

__all__ = ["OUTPUT_COLUMNS", "add_parser", "convert", "main", "run"]

_FROM = ("enu", "wgs84", "nad83_2011", "nad83_harn", "stateplane_ft", "utm")
_FRAME_OF = {"wgs84": "wgs84_g2139", "nad83_2011": "nad83_2011", "nad83_harn": "nad83_harn"}
_IN_COLUMNS = {
    "enu": ("e_m", "n_m", "u_m"),
    "wgs84": ("lat_deg", "lon_deg", "height_m"),
    "nad83_2011": ("lat_deg", "lon_deg", "height_m"),
    "nad83_harn": ("lat_deg", "lon_deg", "height_m"),
    "stateplane_ft": ("easting_ft", "northing_ft", "navd88_height_ft"),
    "utm": ("easting_m", "northing_m", "height_m"),
}

OUTPUT_COLUMNS = (
    "t_s",
    "decimal_year",
    "e_m",
    "n_m",
    "u_m",
    "stateplane_easting_ft",
    "stateplane_northing_ft",
    "navd88_height_ft",
    *OUTPUT_KEYS,
    "utm_zone",
    "utm_south",
    "utm_nad83_2011_easting_m",
    "utm_nad83_2011_northing_m",
    "utm_nad83_2011_convergence_deg",
    "utm_nad83_2011_scale",
    "utm_wgs84_easting_m",
    "utm_wgs84_northing_m",
    "grid_rotation_nad83_2011_deg",
    "grid_rotation_wgs84_deg",
)


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register the ``geo`` subcommand on an argparse subparsers object and return its parser."""
    p = subparsers.add_parser(
        "geo",
        help="convert a point or a CSV file between ENU, state plane, NAD83, WGS84 and UTM",
        description=(
            "Convert one point (printed as JSON) or a CSV file (--in/--out) to every frame of "
            "the site's datum chain: grid ENU, EPSG:2968 (ftUS), NAD83(HARN), NAD83(2011), "
            "WGS84 (G2139) at the epoch, UTM and the grid rotation."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_arguments(p)
    p.set_defaults(func=run)
    return p


def _add_arguments(p: argparse.ArgumentParser) -> None:
    site = p.add_argument_group("site and time")
    site.add_argument(
        "--origin",
        nargs=3,
        type=float,
        metavar=("LAT_DEG", "LON_DEG", "H_M"),
        help="a local site: tangent ENU frame at this WGS84 origin (default: the ACRE site)",
    )
    site.add_argument(
        "--start-utc",
        default=None,
        help=f"UTC at episode time 0 (ISO 8601; default {DEFAULT_START_UTC})",
    )
    t = site.add_mutually_exclusive_group()
    t.add_argument("--epoch-s", type=float, default=None, help="episode time t in s (default 0)")
    t.add_argument(
        "--utc", default=None, help="the UTC time of the point (ISO 8601) instead of --epoch-s"
    )
    src = p.add_argument_group("input")
    src.add_argument(
        "--from", dest="source", choices=_FROM, required=True, help="frame of the input"
    )
    src.add_argument(
        "--enu", nargs=3, type=float, metavar=("E_M", "N_M", "U_M"), help="grid ENU, m"
    )
    src.add_argument("--lat", type=float, help="latitude, deg")
    src.add_argument("--lon", type=float, help="longitude, deg")
    src.add_argument(
        "--h",
        type=float,
        help="ellipsoidal height of the --from frame, m "
        "(NAD83(2011) height for nad83_harn and utm with --utm-frame nad83_2011)",
    )
    src.add_argument(
        "--easting", type=float, help="easting: US survey ft (stateplane_ft) or m (utm)"
    )
    src.add_argument(
        "--northing", type=float, help="northing: US survey ft (stateplane_ft) or m (utm)"
    )
    src.add_argument("--z-ft", type=float, help="NAVD88 height in US survey ft (stateplane_ft)")
    src.add_argument(
        "--utm-frame",
        choices=("nad83_2011", "wgs84_g2139"),
        default="nad83_2011",
        help="datum of UTM input coordinates (default nad83_2011, as the INS)",
    )
    out = p.add_argument_group("UTM output and files")
    out.add_argument(
        "--zone",
        type=int,
        help="UTM zone 1..60 (input: required; output: default from the longitude)",
    )
    out.add_argument(
        "--south", action="store_true", help="southern-hemisphere UTM (false northing 10 000 km)"
    )
    out.add_argument("--in", dest="infile", metavar="FILE", help="CSV file of points (header row)")
    out.add_argument("--out", dest="outfile", metavar="FILE", help="CSV file to write (with --in)")
    out.add_argument("--force", action="store_true", help="replace an existing --out file")


# --------------------------------------------------------------------------- core conversion
def _site(args) -> Georeference:
    if args.origin is not None:
        from navsense.site import HEIGHT_RANGE_M

        lat, lon, h = args.origin
        # a site file's limits: a height of 1e300 was "latitude_deg = nan" of the geoid model,
        # a longitude of 1e300 was taken modulo 360 (any digits)
        for name, value, (low, high) in (
            ("LAT_DEG", lat, (-90.0, 90.0)),
            ("LON_DEG", lon, (-180.0, 180.0)),
            ("H_M", h, HEIGHT_RANGE_M),
        ):
            if not low <= value <= high:
                raise ConfigError(f"--origin {name} = {value!r} is out of range {low:g}..{high:g}")
        return Georeference.local(lat, lon, h, start_utc=args.start_utc or DEFAULT_START_UTC)
    return Georeference.acre(start_utc=args.start_utc)


MAX_EPISODE_S = 1e10  # an episode time, s (317 years: the datum chain's rates act per year)


def _check_time(name: str, t) -> None:
    """ConfigError unless every time is finite and within MAX_EPISODE_S of the start."""
    t = np.asarray(t, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        bad = ~(np.abs(t) <= MAX_EPISODE_S)
    if np.any(bad):
        value = float(t.ravel()[int(np.argmax(bad.ravel()))])
        raise ConfigError(
            f"{name} = {value!r} s is out of range -{MAX_EPISODE_S:g}..{MAX_EPISODE_S:g} s "
            "from the start UTC"
        )


def _time_s(args, geo: Georeference) -> float:
    if args.utc is not None:
        t = utc_to_episode_s(args.utc, geo.start_utc)
        _check_time(f"--utc {args.utc}", t)
        return t
    t = 0.0 if args.epoch_s is None else args.epoch_s
    _check_time("--epoch-s", t)
    return t


def convert(
    geo: Georeference, source: str, a, b, c, t_s, *, zone=None, south=False, utm_frame="nad83_2011"
) -> dict:
    """Every frame of points given in ``source`` coordinates (a, b, c) at episode times t_s.

    (a, b, c) are the three input coordinates of ``source`` (see the module docstring's CSV
    columns); arrays broadcast. Returns a dict with the keys OUTPUT_COLUMNS (arrays).
    """
    a, b, c, t = (np.asarray(v, dtype=np.float64) for v in np.broadcast_arrays(a, b, c, t_s))
    cf = _sp.US_SURVEY_FOOT_M
    if source == "enu":
        enu = np.stack([a, b, c], axis=-1)
    elif source in _FRAME_OF:
        enu = geo.geodetic_to_enu(a, b, c, t, frame=_FRAME_OF[source])
    elif source == "stateplane_ft":
        if geo.kind != "acre":
            raise ConfigError("--from stateplane_ft needs the ACRE site (drop --origin)")
        for name, v in (("easting_ft", a), ("northing_ft", b), ("navd88_height_ft", c)):
            _require_finite(name, v)
        e0, n0, z0 = ACRE_ORIGIN_FT
        # Datum Chain, steps 1 and 4 reversed: e = c_f (E_g - E0), u = c_f (Z - Z0)
        enu = np.stack([cf * (a - e0), cf * (b - n0), cf * (c - z0)], axis=-1)
    elif source == "utm":
        if zone is None:
            raise ConfigError("--from utm needs --zone (1..60)")
        lat, lon = _utm.inverse(a, b, zone, south=south)
        enu = geo.geodetic_to_enu(lat, lon, c, t, frame=utm_frame)
    else:  # argparse restricts the choices
        raise ConfigError(f"--from must be one of {list(_FROM)}, got {source!r}")
    g = geo.enu_to_geodetic(enu, t)
    g = {k: np.asarray(v) for k, v in g.items()}
    out = {"t_s": t, "decimal_year": np.asarray(geo.decimal_year(t))}
    out["e_m"], out["n_m"], out["u_m"] = enu[..., 0], enu[..., 1], enu[..., 2]
    if geo.kind == "acre":
        e0, n0, z0 = ACRE_ORIGIN_FT
        out["stateplane_easting_ft"] = e0 + enu[..., 0] / cf  # Datum Chain, step 1
        out["stateplane_northing_ft"] = n0 + enu[..., 1] / cf
        out["navd88_height_ft"] = g["navd88_height_m"] / cf
    else:
        nan = np.full(enu.shape[:-1], np.nan)
        out["stateplane_easting_ft"] = out["stateplane_northing_ft"] = out["navd88_height_ft"] = nan
    out.update(g)
    lat11, lon11 = g["nad83_2011_lat_deg"], g["nad83_2011_lon_deg"]
    z = np.asarray(_utm.zone_of(lon11) if zone is None else np.broadcast_to(zone, lat11.shape))
    is_south = np.asarray(bool(south)) | (lat11 < 0)  # --south, or automatic for southern points
    fn = np.where(is_south, _utm.FALSE_NORTHING_SOUTH_M, 0.0)
    e11, n11, gam, k = (np.asarray(v) for v in _utm.forward(lat11, lon11, z))
    ew, nw, _, _ = (np.asarray(v) for v in _utm.forward(g["wgs84_lat_deg"], g["wgs84_lon_deg"], z))
    out["utm_zone"] = z.astype(np.int64)
    out["utm_south"] = is_south.astype(np.int64)
    out["utm_nad83_2011_easting_m"] = e11
    out["utm_nad83_2011_northing_m"] = n11 + fn
    out["utm_nad83_2011_convergence_deg"] = gam
    out["utm_nad83_2011_scale"] = k
    out["utm_wgs84_easting_m"] = ew
    out["utm_wgs84_northing_m"] = nw + fn
    out["grid_rotation_nad83_2011_deg"] = np.asarray(
        geo.grid_rotation_deg(enu, t, z, frame="nad83_2011")
    )
    out["grid_rotation_wgs84_deg"] = np.asarray(
        geo.grid_rotation_deg(enu, t, z, frame="wgs84_g2139")
    )
    return out


def _check_heights(source: str, c, where: str = "") -> None:
    """The third input coordinate, a height (u_m, height_m, navd88_height_ft), within a site's
    heights, -10 km .. 100 km (navsense.site.HEIGHT_RANGE_M, as a site's and a track's): 1e308
    overflowed the chain into NaN ('latitude_deg must be finite, got nan'), and -7e6 m, through
    the earth's centre, was refused as a latitude and longitude outside EPSG:2968's domain,
    neither of them the value at fault."""
    from navsense.site import HEIGHT_RANGE_M

    lo, hi = HEIGHT_RANGE_M
    c = np.asarray(c, dtype=np.float64)
    column = _IN_COLUMNS[source][2]
    name = column if where else {"enu": "--enu U_M", "stateplane_ft": "--z-ft"}.get(source, "--h")
    feet = column.endswith("_ft")
    metres = c * _sp.US_SURVEY_FOOT_M if feet else c
    bad = ~((metres >= lo) & (metres <= hi))  # NaN too
    if np.any(bad):
        i = int(np.flatnonzero(bad.ravel())[0])
        row = f", data row {i + 1}" if where else ""
        value = float(c.ravel()[i])
        unit = f" ft ({float(metres.ravel()[i]):g} m)" if feet else ""
        raise DatumError(
            f"{where}{name} = {value!r}{unit}{row}: outside {lo:g} .. {hi:g} m, the heights "
            "of a site's points"
        )


def _require_finite(name, v):
    v = np.asarray(v, dtype=np.float64)
    if not np.all(np.isfinite(v)):
        bad = float(v.ravel()[np.flatnonzero(~np.isfinite(v.ravel()))[0]])
        raise DatumError(f"{name} must be finite, got {bad!r}")


def _point_inputs(args):
    s = args.source
    if s == "enu":
        if args.enu is None:
            raise ConfigError("--from enu needs --enu E_M N_M U_M")
        return tuple(args.enu)
    if s in _FRAME_OF:
        missing = [
            o for o, v in (("--lat", args.lat), ("--lon", args.lon), ("--h", args.h)) if v is None
        ]
        if missing:
            raise ConfigError(f"--from {s} needs {' '.join(missing)}")
        return args.lat, args.lon, args.h
    if s == "stateplane_ft":
        missing = [
            o
            for o, v in (
                ("--easting", args.easting),
                ("--northing", args.northing),
                ("--z-ft", args.z_ft),
            )
            if v is None
        ]
        if missing:
            raise ConfigError(f"--from stateplane_ft needs {' '.join(missing)} (US survey feet)")
        return args.easting, args.northing, args.z_ft
    missing = [
        o
        for o, v in (
            ("--easting", args.easting),
            ("--northing", args.northing),
            ("--h", args.h),
            ("--zone", args.zone),
        )
        if v is None
    ]
    if missing:
        raise ConfigError(f"--from utm needs {' '.join(missing)}")
    return args.easting, args.northing, args.h


def _json_value(v):
    v = v.item() if hasattr(v, "item") else v
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


# --------------------------------------------------------------------------- CSV files
def _read_csv(path: str, source: str):
    import io

    from navsense.jsonfile import read_text

    cols = _IN_COLUMNS[source]
    text = read_text(path, "input file", FormatError)  # a regular file, UTF-8
    reader = csv.DictReader(io.StringIO(text, newline=""))
    try:
        return _csv_columns(path, source, cols, reader)
    except csv.Error as exc:
        raise FormatError(f"{path}, line {reader.line_num + 1}: not CSV ({exc})") from None


def _csv_columns(path: str, source: str, cols, reader):
    """The columns of a CSV reader positioned after its header (csv.Error passes on)."""
    header = reader.fieldnames or []
    missing = [c for c in cols if c not in header]
    if missing:
        raise FormatError(
            f"{path}: missing column(s) {missing} for --from {source}; header is {header}"
        )
    has_t = "t_s" in header
    for c in (*cols, "t_s"):
        if header.count(c) > 1:  # csv.DictReader would keep the last silently
            raise FormatError(
                f"{path}: column {c} appears {header.count(c)} times in the header; "
                "each column once"
            )
    rows: dict[str, list[float]] = {c: [] for c in (*cols, "t_s")}
    for row in reader:
        line = reader.line_num
        extra = row.get(None)
        if extra or any(row.get(c) is None for c in cols):
            # a ragged row (a decimal comma, a missing value) reads no value from the wrong column
            fields = sum(row.get(c) is not None for c in header) + len(extra or [])
            raise FormatError(
                f"{path}, line {line}: {fields} field(s); the header has {len(header)}"
            )
        for c in cols + (("t_s",) if has_t else ()):
            text = row.get(c)
            try:
                v = float(text)  # None: TypeError, named below
            except (TypeError, ValueError):
                raise FormatError(
                    f"{path}, line {line}: column {c} = {text!r} is not a number"
                ) from None
            if not math.isfinite(v):
                raise DatumError(
                    f"{path}, line {line}: column {c} = {text!r} is not a finite number"
                )
            rows[c].append(v)
    n = len(rows[cols[0]])
    if n == 0:
        raise FormatError(f"{path}: no data rows")
    arrays = [np.asarray(rows[c], dtype=np.float64) for c in cols]
    t = np.asarray(rows["t_s"], dtype=np.float64) if has_t else None
    return arrays, t


def _write_csv(path: str, out: dict, force: bool) -> None:
    from navsense.output.outfiles import check_out_file, naming

    check_out_file(path, force=force)
    with naming(path):
        _write_csv_file(path, out)


def _write_csv_file(path: str, out: dict) -> None:
    n = np.asarray(out["e_m"]).shape[0]
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".navsense-geo-", suffix=".csv.tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh)
            w.writerow(OUTPUT_COLUMNS)
            cols = [np.broadcast_to(np.asarray(out[c]), (n,)) for c in OUTPUT_COLUMNS]
            for i in range(n):
                w.writerow([_csv_value(col[i]) for col in cols])
        os.replace(tmp, path)  # complete files only: a crash leaves no file that looks whole
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _csv_value(v):
    v = v.item()
    if isinstance(v, float):
        return "" if not math.isfinite(v) else repr(v)
    return str(v)


# --------------------------------------------------------------------------- entry points
def run(args) -> int:
    """Execute ``navsense geo`` for parsed ``args``; returns 0. Raises NavsenseError on bad input."""
    if (args.infile is None) != (args.outfile is None):
        raise ConfigError("--in and --out go together (a CSV file in, a CSV file out)")
    if args.zone is not None:
        _utm.central_meridian_deg(args.zone)  # DatumError for a zone outside 1..60
    geo = _site(args)
    t0 = _time_s(args, geo)
    if args.infile is not None:
        from navsense.output.outfiles import check_out_file

        check_out_file(args.outfile, force=args.force, reads=(("--in", args.infile),))
        (a, b, c), t = _read_csv(args.infile, args.source)
        _check_heights(args.source, c, f"{args.infile}: ")
        if t is not None:
            _check_time(f"{args.infile}: t_s", t)
        out = convert(
            geo,
            args.source,
            a,
            b,
            c,
            t0 if t is None else t,
            zone=args.zone,
            south=args.south,
            utm_frame=args.utm_frame,
        )
        _write_csv(args.outfile, out, args.force)
        return 0
    a, b, c = _point_inputs(args)
    _check_heights(args.source, c)
    out = convert(
        geo, args.source, a, b, c, t0, zone=args.zone, south=args.south, utm_frame=args.utm_frame
    )
    doc = {"site": geo.kind, "start_utc": geo.start_utc}
    doc.update({k: _json_value(out[k]) for k in OUTPUT_COLUMNS})
    sys.stdout.write(json.dumps(doc, indent=2) + "\n")
    return 0


def main(argv=None) -> int:
    """Stand-alone entry (``python -m navsense.commands.geo``): one-line errors, exit code 2."""
    parser = argparse.ArgumentParser(prog="navsense")
    sub = parser.add_subparsers(dest="command", required=True)
    add_parser(sub)
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except NavsenseError as exc:
        sys.stderr.write(f"navsense geo: error: {exc}\n")
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
