"""Recorded tracks: a self-consistent truth log from a GPS track (GPX, CSV) or a waypoint file.

The article ``seeds/003_6b4b004b956226f3.txt`` does this by hand (GPX -> metres -> cubic-spline
resampling -> attitude from the velocity vector -> sensors); here it is one call::

    track = load_track("field-test.gpx")                 # points, site, start_utc
    truth = build_truth_from_track(track, "polaris")     # TruthStates at 120 Hz, step 0 at t = 0

Three modules do the work, one job each; this one is the entry point and names them all:

- :mod:`navsense.truth.track_files`: the file formats (GPX via gpxpy, CSV) read into a
  ``RawTrack``; a ``.json`` file is a waypoint route of :mod:`navsense.truth.waypoints`, whose
  truth is the planned trajectory (``WaypointRoute.plan``), not a time spline;
- :mod:`navsense.truth.track_site`: times checked, the site chosen (ACRE on its tile, else a
  local site at the first point, or the one named) and the points placed in its grid ENU: a
  :class:`Track`;
- :mod:`navsense.truth.track_kinematics`: the continuous trajectory of a track (position spline,
  attitude from the velocity, analytic rates, stops) and its truth log.
"""

from __future__ import annotations

from pathlib import Path

from navsense.errors import TruthError
from navsense.site import Site
from navsense.truth.track_files import CSV_COLUMNS, MIN_TRACK_POINTS, read_csv, read_gpx
from navsense.truth.track_kinematics import (
    BANK_MODES,
    MAX_STOP_SPEED_MPS,
    STOP_SPEED_MPS,
    TrackSample,
    TrackTrajectory,
    build_truth_from_track,
    plan_track,
)
from navsense.truth.track_site import ACRE_TILE_RADIUS_M, Track, place_track, route_track
from navsense.truth.waypoints import load_waypoints

__all__ = [
    "Track",
    "TrackSample",
    "TrackTrajectory",
    "load_track",
    "plan_track",
    "build_truth_from_track",
    "ACRE_TILE_RADIUS_M",
    "STOP_SPEED_MPS",
    "MAX_STOP_SPEED_MPS",
    "BANK_MODES",
    "MIN_TRACK_POINTS",
    "CSV_COLUMNS",
]


def load_track(
    path, *, site: Site | str | None = None, start_utc: str | None = None, datum: dict | None = None
) -> Track:
    """Read a track (GPX, CSV or waypoint JSON; formats in :mod:`navsense.truth.track_files`).

    ``site``: a :class:`~navsense.site.Site`, an embedded site name or a site JSON file; None
    picks ACRE for a geodetic track on the tile (within :data:`ACRE_TILE_RADIUS_M`), else a local
    site at the first point; ENU tracks and waypoint routes default to ACRE. ``start_utc``: UTC of
    t = 0 for a track with relative times (a recorded UTC wins). ``datum``: the gnss.datum block
    of the run's configuration, so the ACRE chain here is the receiver's (default: the
    specification's). Raises TruthError naming the file and the point or line.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".gpx":
        raw = read_gpx(path)
    elif suffix in (".csv", ".txt", ".tsv"):
        raw = read_csv(path)
    elif suffix == ".json":
        return route_track(path, load_waypoints(path), site, start_utc)
    else:
        raise TruthError(
            f"{path}: unknown track format {path.suffix or '(no suffix)'!r}; "
            f"expected .gpx, .csv (.txt, .tsv) or .json (waypoints)"
        )
    return place_track(raw, site, start_utc, datum)
