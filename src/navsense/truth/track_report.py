"""What reading a track did, in the lines ``navsense truth`` and ``navsense simulate --track``
print (issue 32: ``simulate --track`` said nothing of how it read the track).

:func:`track_lines`::

    navsense: track FILE: N points, D s, L m, max speed V m/s[, smoothing (chosen from the data
    | given) residual R m RMS, K standstill(s)][, M point(s) set aside as outliers (WHERE: X m
    from the path; ...)]
    navsense: site NAME | local site at LAT, LON, H m[; start_utc UTC]

An outlier's reason is its distance from the path built without it: a point is set aside only
when no motion a land vehicle can make explains it (navsense.truth.track_fit.reject_outliers),
so the distance says how far the recording jumped. At most three are named.
"""

from __future__ import annotations

import numpy as np

__all__ = ["track_lines", "path_figures", "NAMED_OUTLIERS"]

NAMED_OUTLIERS = 3  # outliers named in the line; more are counted
_FIGURE_STEPS = 1 << 20  # steps evaluated at once for the figures


def path_figures(traj, steps: int, rate_hz: float) -> tuple[float, float]:
    """The footprint's distance (the sum of its steps) and top speed over ``steps`` physics
    steps, evaluated a chunk at a time: a 20-hour track's 8.7 million steps at once took
    gigabytes (found by the fuzz suite). The same figures: the same steps' distances summed
    in one array."""
    distances, top = [], -np.inf
    for start in range(0, steps, _FIGURE_STEPS):
        stop = min(steps, start + _FIGURE_STEPS + 1)  # one step beyond: the step across the edge
        ev = traj.evaluate(np.arange(start, stop) / rate_hz)
        distances.append(np.linalg.norm(np.diff(ev.footprint_m, axis=0), axis=1))
        top = max(top, float(np.max(ev.speed_mps)))
        if stop == steps:
            break
    return float(np.sum(np.concatenate(distances))), top


def _outliers_text(track, traj) -> str:
    """', N point(s) set aside as outliers (WHERE: X m from the path; ...)' or ''."""
    outliers = tuple(getattr(traj, "outliers", ()))
    if not outliers:
        return ""
    named = []
    for i in outliers[:NAMED_OUTLIERS]:
        where = track.labels[i] if i < len(track.labels) else f"point {i}"
        on_path = traj.evaluate(np.array([track.t_s[i]])).footprint_m[0, :2]
        off = float(np.hypot(*(track.enu_m[i, :2] - on_path)))
        named.append(f"{where}: {off:.1f} m from the path")
    more = ", ..." if len(outliers) > NAMED_OUTLIERS else ""
    return (
        f", {len(outliers)} point(s) set aside as outliers, beyond what a land vehicle can "
        f"drive ({'; '.join(named)}{more})"
    )


def track_lines(track, traj, steps: int, rate_hz: float) -> list[str]:
    """The two lines of the module docstring for ``track`` (navsense.truth.track_site.Track)
    read into ``traj`` (its TrackTrajectory) and sampled to ``steps`` steps at ``rate_hz``."""
    distance_m, top_speed_mps = path_figures(traj, steps, rate_hz)
    smoothing = ""
    if getattr(traj, "smoothing_lambda", None) is not None:
        how = "chosen from the data" if traj.smoothing_method == "gcv" else "given"
        smoothing = (
            f", smoothing ({how}) residual {traj.residual_rms_m:.3f} m RMS, "
            f"{len(traj.standstills)} standstill(s)"
        )
    geo = track.site.georeference or {}
    where = (
        f"local site at {geo['lat_deg']:.7f}, {geo['lon_deg']:.7f}, "
        f"{geo.get('height_m', 0.0):.3f} m"
        if geo.get("kind") == "local"
        else f"site {track.site.name}"
    )
    return [
        f"navsense: track {track.source}: {len(track)} points, {track.duration_s:.1f} s, "
        f"{distance_m:.1f} m, max speed {top_speed_mps:.2f} m/s"
        + smoothing
        + _outliers_text(track, traj),
        f"navsense: {where}" + (f"; start_utc {track.start_utc}" if track.start_utc else ""),
    ]
