"""Placement of a track on a site: checked times, the site chosen, the points in its grid ENU.

Conventions (DESIGN.md "Data contracts"): a track point is the position of ``base_footprint``
(the middle of the rear axle on the ground) in the site's grid ENU metres. Time base: the first
point is t = 0. A track with absolute times (GPX, CSV ISO 8601) gives ``Track.start_utc`` = the
UTC of its first point, so the GNSS rows and the GGA sentences carry the recorded UTC; the
``start_utc`` argument is the UTC of t = 0 for a track whose times are relative (seconds), and is
ignored when the file has absolute times.

Sites: a geodetic track goes through a site's :class:`navsense.geo.Georeference` (WGS84 G2139
at the point's episode time). ``site`` None picks the embedded ACRE site when every point lies
within :data:`ACRE_TILE_RADIUS_M` of the ACRE origin, else a new local site whose origin is the
first point (``{"kind": "local", lat_deg, lon_deg, height_m}``, so that point is ENU (0, 0, 0));
a named site (Site, embedded name or site JSON file) is used as given. Heights: an ``alt_m``
(geoid) height is the site's ``navd88_height_m`` (ACRE: NAVD88 through the GEOID12B plane of the
chain, so ENU z = alt - 705 ftUS; a local site: EGM96, navsense.geo.geoid, so the local site's
origin is at the first point's alt + N_EGM96); ``height_m`` is the WGS84 ellipsoidal height; a
track without heights runs on the site's ground plane, ENU z = 0 (a local site's origin on the
geoid). ``Track.height_m`` is always the WGS84 height.
ENU tracks and waypoint routes use the named site, default ACRE.

A point that repeats the previous one exactly (its time and every coordinate: a fix written
twice) is dropped. Errors (:class:`navsense.errors.TruthError`, one line naming the file and
the point or line): a time repeated with another position, backwards times, points less than
:data:`MIN_POINT_SPACING_S` or more than :data:`MAX_POINT_GAP_S` apart, a track longer than
:data:`MAX_TRACK_DURATION_S`, fewer
than 4 points, latitude outside -90..90 or longitude outside -180..180, a geodetic track and a
site without georeference.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from navsense.errors import NavsenseError, TruthError
from navsense.site import Site, embedded_site, resolve_site, site_from_json
from navsense.truth.track_files import MIN_TRACK_POINTS, RawTrack, point_error
from navsense.truth.waypoints import WaypointRoute
from navsense.utc import utc_text

__all__ = [
    "Track",
    "place_track",
    "route_track",
    "ACRE_TILE_RADIUS_M",
    "MIN_POINT_SPACING_S",
    "MAX_TRACK_DURATION_S",
]

MIN_POINT_SPACING_S = 1e-3  # points closer in time are refused (a recording at up to 1 kHz)
MAX_TRACK_DURATION_S = 86_400.0  # a track spans at most 24 h (the truth log's limit)
#: Consecutive points at most this far apart, s: across a longer gap (a logger paused, the fix
#: lost in a car park) the motion is unknown, and the spline through the points either side
#: wandered (80 000 s between points 47 m apart: a drive of 61 km, 2.8 GB and 28 s to build).
#: A tunnel of 10 km at 60 km/h is bridged.
MAX_POINT_GAP_S = 600.0
ACRE_TILE_RADIUS_M = 5_000.0  # a geodetic track within this of the ACRE origin uses the ACRE
# site (the affine grid<->UTM map is good to 4 mm there, geo.georef)


@dataclass(frozen=True)
class Track:
    """A loaded track: points of base_footprint in ``site``'s ENU frame and their times.

    ``t_s`` (n,) seconds since the first point (strictly increasing); ``enu_m`` (n, 3);
    ``start_utc`` the UTC of t = 0 (ISO 8601) or None when neither the file nor the caller gave
    one; ``lat_deg``, ``lon_deg``, ``height_m`` (WGS84, ellipsoidal) for a geodetic track, else
    None; ``labels`` where each point is in the file ("line 12", "line 40, trkpt[3]");
    ``route`` the waypoint route of a ``.json`` file (its t_s are the planned point times).
    """

    source: str
    kind: str  # "gpx" | "csv" | "waypoints"
    t_s: np.ndarray
    enu_m: np.ndarray
    site: Site
    start_utc: str | None
    start_recorded: bool = False  # start_utc is the recorded UTC of the first point
    lat_deg: np.ndarray | None = None
    lon_deg: np.ndarray | None = None
    height_m: np.ndarray | None = None
    labels: tuple[str, ...] = ()
    route: WaypointRoute | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return int(self.t_s.shape[0])

    @property
    def duration_s(self) -> float:
        """Time of the last point, s."""
        return float(self.t_s[-1])


def drop_repeats(raw: RawTrack) -> RawTrack:
    """``raw`` without the points that repeat the previous point exactly (time and every
    coordinate: a logger that wrote a fix twice); a repeated time with another position is
    left for :func:`_check_times` to refuse (which of the two is the fix is unknown)."""
    n = len(raw.times)
    if n < 2:
        return raw
    same = np.zeros(n, dtype=bool)
    same[1:] = (raw.a[1:] == raw.a[:-1]) & (raw.b[1:] == raw.b[:-1])
    if raw.c is not None:
        same[1:] &= raw.c[1:] == raw.c[:-1]
    same[1:] &= np.array([raw.times[i] == raw.times[i - 1] for i in range(1, n)], dtype=bool)
    if not same.any():
        return raw
    keep = ~same
    return dataclasses.replace(
        raw,
        labels=[lab for lab, k in zip(raw.labels, keep) if k],
        a=raw.a[keep],
        b=raw.b[keep],
        c=None if raw.c is None else raw.c[keep],
        times=[t for t, k in zip(raw.times, keep) if k],
    )


def _check_times(raw: RawTrack, repeats: int = 0) -> tuple[np.ndarray, str | None]:
    """Seconds since the first point, and the recorded UTC of the first point (or None);
    ``repeats`` points repeating their predecessor were dropped before."""
    n = len(raw.times)
    if n < MIN_TRACK_POINTS:
        dropped = f" ({repeats} repeated point(s) read once)" if repeats else ""
        raise TruthError(
            f"{raw.source}: {n} point(s){dropped}; a track needs at least "
            f"{MIN_TRACK_POINTS} (the cubic spline through them)"
        )
    if raw.absolute:
        t0 = raw.times[0]
        one = _dt.timedelta(seconds=1)
        t = np.array([(ti - t0) / one for ti in raw.times], dtype=np.float64)
        text = [utc_text(ti) for ti in raw.times]
        start = text[0]
    else:
        secs = np.array(raw.times, dtype=np.float64)
        t = secs - secs[0]
        text = [f"{s:.9g} s" for s in secs]
        start = None
    dt = np.diff(t)
    bad = np.flatnonzero(~(dt > 0))
    if bad.size:
        i = int(bad[0]) + 1
        if dt[i - 1] == 0:
            msg = (
                f"time {text[i]} repeats the previous point's ({raw.labels[i - 1]}); "
                f"times must increase"
            )
        else:
            msg = (
                f"time {text[i]} is before the previous point's {text[i - 1]} "
                f"({raw.labels[i - 1]}); times must increase"
            )
        raise point_error(raw.source, raw.labels[i], msg)
    # 1 ms apart as written (0.011 - 0.010 = 0.00099999...) is a 1 kHz recording: allowed
    close = np.flatnonzero(dt < MIN_POINT_SPACING_S * (1.0 - 1e-9))
    if close.size:
        i = int(close[0]) + 1
        raise point_error(
            raw.source,
            raw.labels[i],
            f"time {text[i]} is {dt[i - 1]:.3g} s after the previous point's "
            f"({raw.labels[i - 1]}); points must be at least {MIN_POINT_SPACING_S:g} s apart",
        )
    if t[-1] > MAX_TRACK_DURATION_S:
        raise point_error(
            raw.source,
            raw.labels[-1],
            f"time {text[-1]} is {t[-1]:.6g} s after the first point's; a track may last "
            f"at most {MAX_TRACK_DURATION_S:g} s (24 h)",
        )
    far = np.flatnonzero(dt > MAX_POINT_GAP_S)
    if far.size:
        i = int(far[0]) + 1
        raise point_error(
            raw.source,
            raw.labels[i],
            f"time {text[i]} is {dt[i - 1]:.6g} s after the previous point's "
            f"({raw.labels[i - 1]}); points may be at most {MAX_POINT_GAP_S:g} s apart (the "
            f"motion across a longer gap is unknown): split the recording there",
        )
    return t, start


def _check_lat_lon(raw: RawTrack) -> None:
    for values, name, limit in ((raw.a, "latitude", 90.0), (raw.b, "longitude", 180.0)):
        bad = np.flatnonzero(np.abs(values) > limit)
        if bad.size:
            i = int(bad[0])
            raise point_error(
                raw.source,
                raw.labels[i],
                f"{name} {float(values[i])!r} deg is out of range -{limit:g}..{limit:g}",
            )


MAX_TRACK_ENU_M = 1e6  # an ENU track's coordinates: within 1000 km of the site's origin
TRACK_HEIGHT_RANGE_M = (-1e4, 1e5)  # a geodetic track's heights (alt_m, height_m, <ele>)


def _check_coordinates(raw: RawTrack) -> None:
    """ENU coordinates within :data:`MAX_TRACK_ENU_M`; heights within
    :data:`TRACK_HEIGHT_RANGE_M` (the splines and the datum chain need nothing beyond)."""
    lo, hi = TRACK_HEIGHT_RANGE_M
    big = MAX_TRACK_ENU_M
    checks = [] if raw.geodetic else [(raw.a, "x_m", -big, big), (raw.b, "y_m", -big, big)]
    if raw.c is not None:
        checks.append(
            (raw.c, raw.c_kind or "height", lo, hi) if raw.geodetic else (raw.c, "z_m", -big, big)
        )
    for values, name, low, high in checks:
        with np.errstate(invalid="ignore"):
            bad = np.flatnonzero(~((values >= low) & (values <= high)))
        if bad.size:
            i = int(bad[0])
            raise point_error(
                raw.source,
                raw.labels[i],
                f"{name} {float(values[i])!r} m is out of range {low:g}..{high:g} m",
            )


def _check_near_site(raw: RawTrack, enu: np.ndarray, site_name: str) -> None:
    """A track placed from latitude and longitude within :data:`MAX_TRACK_ENU_M` of its site's
    origin, as an ENU track's coordinates: one at -87 deg on a local site at 11.6 deg was
    placed 5 500 km from the origin and 3 250 km below its tangent plane, its truth written."""
    distance = np.hypot(enu[:, 0], enu[:, 1])
    far = np.flatnonzero(~(distance <= MAX_TRACK_ENU_M))
    if far.size:
        i = int(far[0])
        raise point_error(
            raw.source,
            raw.labels[i],
            f"latitude, longitude {float(raw.a[i])!r}, {float(raw.b[i])!r} is "
            f"{float(distance[i]) / 1e3:.0f} km from the origin of site {site_name!r}; a track "
            f"lies within {MAX_TRACK_ENU_M / 1e3:.0f} km of its site (leave --site out: a local "
            "site at its first point)",
        )


@lru_cache(maxsize=1)
def _acre_tangent():
    from navsense.geo import Georeference

    lat, lon, h = Georeference.acre().site_wgs84_lat_lon_h()
    return Georeference.local(lat, lon, h)


def _on_acre_tile(lat: np.ndarray, lon: np.ndarray) -> bool:
    enu = _acre_tangent().geodetic_to_enu(lat, lon, np.zeros_like(lat), 0.0, "wgs84_g2139")
    return bool(np.all(np.hypot(enu[..., 0], enu[..., 1]) <= ACRE_TILE_RADIUS_M))


def place_track(
    raw: RawTrack, site: Site | str | None, start_utc: str | None, datum: dict | None
) -> Track:
    """The raw track checked (times, coordinates) and placed on ``site`` (module docstring)."""
    read = len(raw.times)
    raw = drop_repeats(raw)
    t_s, recorded = _check_times(raw, read - len(raw.times))
    _check_coordinates(raw)
    if start_utc is not None:
        from navsense.geo.epoch import parse_utc

        parse_utc(start_utc)  # ConfigError naming a malformed time
    start = recorded if recorded is not None else start_utc
    chosen = resolve_site(site)
    common: dict[str, Any] = dict(
        source=raw.source,
        kind=raw.kind,
        t_s=t_s,
        start_recorded=recorded is not None,
        labels=tuple(raw.labels),
    )
    if not raw.geodetic:
        z = raw.c if raw.c is not None else np.zeros_like(raw.a)
        return Track(
            enu_m=np.column_stack([raw.a, raw.b, z]),
            site=chosen if chosen is not None else embedded_site("acre"),
            start_utc=start,
            **common,
        )
    _check_lat_lon(raw)
    lat, lon = raw.a, raw.b
    if chosen is None:
        if _on_acre_tile(lat, lon):
            chosen = embedded_site("acre")
        else:
            from navsense.geo.geoid import egm96_undulation_m

            h0 = float(raw.c[0]) if raw.c is not None else 0.0
            if raw.c_kind != "height_m":  # above the geoid (or on it): + N_EGM96
                h0 += egm96_undulation_m(float(lat[0]), float(lon[0]))
            chosen = site_from_json(
                {
                    "name": "local",
                    "description": f"local tangent site at the first point of {Path(raw.source).name}",
                    "georeference": {
                        "kind": "local",
                        "lat_deg": float(lat[0]),
                        "lon_deg": float(lon[0]),
                        "height_m": h0,
                    },
                },
                source=f"{raw.source} (local site)",
            )
    if chosen.georeference is None:
        raise TruthError(
            f"{raw.source}: site {chosen.name!r} has no georeference; a track in "
            f"latitude and longitude needs one (acre, or a local site)"
        )
    from navsense.geo.epoch import DEFAULT_START_UTC

    if start is None and chosen.georeference.get("kind") == "acre":
        start = DEFAULT_START_UTC  # the ACRE chain depends on the epoch (Helmert rates)
    try:
        geo = chosen.make_georeference(start or DEFAULT_START_UTC, datum)
        frame = "wgs84_g2139"
        if raw.c is None:  # no heights: on the site's ground plane
            h = np.full_like(lat, geo.site_wgs84_lat_lon_h()[2])
            enu = geo.geodetic_to_enu(lat, lon, h, t_s, frame)
            enu[:, 2] = 0.0
            height = np.asarray(geo.enu_to_geodetic(enu, t_s)["wgs84_height_m"])
        elif raw.c_kind == "height_m":  # ellipsoidal
            height = raw.c
            enu = geo.geodetic_to_enu(lat, lon, height, t_s, frame)
        else:  # above the geoid: solve navd88(enu) = alt
            enu = geo.geodetic_to_enu(lat, lon, raw.c, t_s, frame)
            for _ in range(2):  # linear in u: converged after the first
                g = geo.enu_to_geodetic(enu, t_s)
                enu[:, 2] += raw.c - np.asarray(g["navd88_height_m"])
                height = np.asarray(geo.enu_to_geodetic(enu, t_s)["wgs84_height_m"])
                enu = geo.geodetic_to_enu(lat, lon, height, t_s, frame)
    except NavsenseError as exc:
        raise TruthError(
            f"{raw.source}: cannot place the track on site {chosen.name!r}: {exc}"
        ) from None
    _check_near_site(raw, enu, chosen.name)
    return Track(
        enu_m=np.ascontiguousarray(enu, dtype=np.float64),
        site=chosen,
        start_utc=start,
        lat_deg=lat,
        lon_deg=lon,
        height_m=np.asarray(height, dtype=np.float64),
        **common,
    )


def route_track(
    path: Path, route: WaypointRoute, site: Site | str | None, start_utc: str | None
) -> Track:
    """A waypoint route as a Track: its points at the planned times, on ``site`` (default ACRE)."""
    chosen = resolve_site(site)
    traj = route.plan(route.vehicle or "polaris")
    return Track(
        source=str(path),
        kind="waypoints",
        t_s=traj.point_times_s(),
        enu_m=np.array([p.enu_m for p in route.points], dtype=np.float64),
        site=chosen if chosen is not None else embedded_site("acre"),
        start_utc=start_utc,
        labels=tuple(f"points[{i}]" for i in range(len(route.points))),
        route=route,
    )
