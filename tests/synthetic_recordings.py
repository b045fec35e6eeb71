"""Recordings "like a user's" of known drives (issue 18 item 1), beside tests/synthetic_drives.py.

Drives (:data:`DRIVES`, each a :class:`synthetic_drives.Drive` of a known true motion):

- ``town``: stops at lights, 90-degree turns at 6 m/s (0.4 rad/s, 2.4 m/s^2 across), a
  roundabout (right, 270 degrees left, right) at 7 m/s, 13 m/s between;
- ``highway``: 30 m/s with gentle curves (0.01 .. 0.02 rad/s);
- ``parking``: a manoeuvre at 1 .. 2 m/s, forward, reverse and forward again;
- ``uturn``: 180 degrees at 3 m/s (0.35 rad/s);
- ``hill``: a 6 % grade up, level, down, with stops on the slope;
- ``standstills``: 5 min standing at the start and at the end of a town drive;
- ``queue``: a traffic queue, creeping 4 m at 0.4 .. 0.5 m/s between stops.

Receivers (:func:`record_noisy`): a period of 1, 0.2 or 0.1 s; horizontal noise per axis and
vertical noise, each the sum of a white part and a first-order Gauss-Markov part (time constant
``tau_s``, tens of seconds, as real GNSS error: ``e_k = a e_{k-1} + sqrt(1 - a^2) sigma w_k``,
``a = exp(-dt / tau)``); artefacts: timestamp jitter, a gap, an outlier jump of one point.

Writers: :func:`write_gpx_text` (GPX 1.1 written as text: time precision, a UTC offset, several
segments or tracks, no elevation, duplicated points), :func:`write_csv_geodetic` (lat, lon, alt,
ISO time) and :func:`write_csv_enu` (x_m, y_m, z_m, t_s).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import numpy as np

from synthetic_drives import Drive, make_drive

ORIGIN = (48.1374, 11.5755, 520.0)  # Munich, off the ACRE tile: a local site
START = dt.datetime(2024, 6, 1, 8, 0, 0, tzinfo=dt.UTC)


def _turn(rate: float, angle: float) -> float:
    """Duration of a make_drive turn of ``angle`` rad at yaw rate ``rate`` (2 s ramps)."""
    return 2.0 + abs(angle / rate)


def town(stand_s: float = 10.0) -> Drive:
    """Town: stops at lights, 90-degree turns at 6 m/s, a roundabout at 7 m/s."""
    q = np.pi / 2
    s0 = stand_s
    speeds = [
        (s0, 6.0, 13.0),
        (s0 + 20, 5.0, 6.0),  # slow for the turn
        (s0 + 36, 5.0, 13.0),
        (s0 + 55, 7.0, 0.0),  # red light: stands 62 .. 92 (+ s0)
        (s0 + 92, 5.0, 6.0),
        (s0 + 110, 5.0, 7.0),  # the roundabout
        (s0 + 150, 6.0, 13.0),
        (s0 + 175, 7.0, 0.0),  # stop 182 .. 200
        (s0 + 200, 4.0, 6.0),
        (s0 + 214, 4.0, 0.0),  # stop after the last turn
    ]
    turns = [
        (s0 + 26, _turn(0.4, q), 0.4),  # left at 6 m/s
        (s0 + 95, _turn(0.4, q), -0.4),  # right after the light
        (s0 + 116, _turn(0.35, 0.4), -0.35),  # roundabout entry
        (s0 + 116 + _turn(0.35, 0.4) + 0.5, _turn(0.35, 1.5 * np.pi), 0.35),
        (s0 + 116 + _turn(0.35, 0.4) + _turn(0.35, 1.5 * np.pi) + 1.0, _turn(0.35, 0.4), -0.35),
        (s0 + 203, _turn(0.45, q), 0.45),  # left at 6 m/s
    ]
    return make_drive(s0 + 218 + stand_s, speeds, turns)


def highway() -> Drive:
    """30 m/s with gentle curves, from and to a stand."""
    speeds = [(5.0, 15.0, 30.0), (275.0, 15.0, 0.0)]
    turns = [(40.0, 40.0, 0.015), (100.0, 30.0, -0.02), (160.0, 60.0, 0.01), (230.0, 30.0, -0.012)]
    return make_drive(300.0, speeds, turns)


def parking() -> Drive:
    """A parking manoeuvre at 1 .. 2 m/s: forward, stop, reverse turning in, stop, forward."""
    speeds = [
        (5.0, 3.0, 2.0),
        (15.0, 3.0, 0.0),  # stop 18 .. 22
        (22.0, 3.0, -1.5),  # reverse
        (31.0, 3.0, 0.0),  # stop 34 .. 38
        (38.0, 2.0, 1.0),
        (42.0, 2.0, 0.0),
    ]
    turns = [(23.0, 8.0, 0.25)]  # turned while reversing
    return make_drive(50.0, speeds, turns)


def uturn() -> Drive:
    """A U-turn at 3 m/s (0.35 rad/s), between 10 m/s stretches."""
    speeds = [(5.0, 6.0, 10.0), (25.0, 5.0, 3.0), (30.0 + _turn(0.35, np.pi), 5.0, 10.0)]
    speeds.append((60.0 + _turn(0.35, np.pi), 6.0, 0.0))
    return make_drive(72.0 + _turn(0.35, np.pi), speeds, [(30.0, _turn(0.35, np.pi), 0.35)])


def hill_profile(s: np.ndarray) -> np.ndarray:
    """A 6 % grade from 100 m to 500 m, level to 800 m, down at 6 % to 1200 m (the grade eased in
    and out over 40 m)."""

    def ramp(x, a, b):  # the integral of a smoothstep slope from a to b
        from synthetic_drives import smoothstep

        grid = np.linspace(0.0, 2000.0, 20001)
        slope = smoothstep((grid - a) / 40.0) - smoothstep((grid - b) / 40.0)
        integ = np.concatenate([[0.0], np.cumsum(0.5 * (slope[1:] + slope[:-1]) * 0.1)])
        return np.interp(x, grid, integ)

    return 0.06 * (ramp(s, 100.0, 460.0) - ramp(s, 800.0, 1160.0))


def hill() -> Drive:
    """Town speeds over a 6 % grade (hill_profile), a stop on the slope."""
    speeds = [
        (5.0, 6.0, 12.0),
        (30.0, 6.0, 0.0),  # stops 36 .. 50 on the grade (s ~ 340 m)
        (50.0, 6.0, 12.0),
        (120.0, 8.0, 0.0),
    ]
    turns = [(60.0, 10.0, 0.05)]
    return make_drive(140.0, speeds, turns, height=hill_profile)


def standstills() -> Drive:
    """Five minutes standing at the start and at the end of the town drive."""
    return town(stand_s=300.0)


def queue() -> Drive:
    """A traffic queue: creeping 4 m at 0.4 .. 0.5 m/s between stops, then away at 8 m/s."""
    speeds = [(5.0, 3.0, 0.5), (11.0, 3.0, 0.0)]  # ~4 m
    speeds += [(20.0, 3.0, 0.4), (28.0, 3.0, 0.0)]  # ~4 m
    speeds += [(40.0, 3.0, 0.5), (46.0, 3.0, 0.0)]
    speeds += [(55.0, 6.0, 8.0), (75.0, 6.0, 0.0)]
    return make_drive(88.0, speeds, [(62.0, 6.0, 0.1)])


DRIVES = {
    "town": town,
    "highway": highway,
    "parking": parking,
    "uturn": uturn,
    "hill": hill,
    "standstills": standstills,
    "queue": queue,
}


def gauss_markov(t: np.ndarray, sigma: float, tau_s: float, rng, k: int = 1) -> np.ndarray:
    """A first-order Gauss-Markov process of standard deviation ``sigma`` and time constant
    ``tau_s`` sampled at times ``t`` (stationary from the first), (n, k)."""
    out = np.zeros((len(t), k))
    if sigma == 0.0:
        return out
    out[0] = rng.normal(0.0, sigma, k)
    a = np.exp(-np.diff(t) / tau_s)
    w = rng.normal(0.0, 1.0, (len(t) - 1, k))
    for i in range(1, len(t)):
        out[i] = a[i - 1] * out[i - 1] + np.sqrt(1.0 - a[i - 1] ** 2) * sigma * w[i - 1]
    return out


def record_noisy(
    drive: Drive,
    *,
    period_s: float = 1.0,
    offset_s: float = 0.3,
    white_h_m: float = 0.5,
    white_v_m: float = 1.0,
    gm_h_m: float = 0.0,
    gm_v_m: float = 0.0,
    tau_s: float = 30.0,
    jitter_s: float = 0.0,
    gaps: tuple[tuple[float, float], ...] = (),
    outliers: tuple[tuple[float, float], ...] = (),
    seed: int = 1,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(recorded times, true times, noisy ENU points) of a recording of ``drive``.

    The point is the true position at the true time; the recorded time carries the jitter
    (uniform +-``jitter_s``, a logger's clock). ``outliers``: (time, metres) a jump of that size
    in a random horizontal direction on the point nearest the time."""
    t_true = np.arange(offset_s, drive.t_s[-1], period_s)
    for start, end in gaps:
        t_true = t_true[(t_true < start) | (t_true > end)]
    rng = np.random.default_rng(seed)
    enu = drive.at(t_true, "enu_m")
    noise = rng.normal(0.0, 1.0, (len(t_true), 3)) * [white_h_m, white_h_m, white_v_m]
    noise[:, :2] += gauss_markov(t_true, gm_h_m, tau_s, rng, 2)
    noise[:, 2:] += gauss_markov(t_true, gm_v_m, tau_s, rng, 1)
    enu = enu + noise
    for when, size in outliers:
        i = int(np.argmin(np.abs(t_true - when)))
        ang = rng.uniform(0, 2 * np.pi)
        enu[i, :2] += size * np.array([np.cos(ang), np.sin(ang)])
    t_rec = t_true + (rng.uniform(-jitter_s, jitter_s, len(t_true)) if jitter_s else 0.0)
    return t_rec, t_true, enu


def geodetic(t: np.ndarray, enu: np.ndarray, origin=ORIGIN) -> dict:
    from navsense.geo import Georeference

    return Georeference.local(*origin).enu_to_geodetic(enu, t)


def _time_text(seconds: float, decimals: int, utc_offset_h: float) -> str:
    tz = dt.timezone(dt.timedelta(hours=utc_offset_h))
    when = (START + dt.timedelta(seconds=float(seconds))).astimezone(tz)
    if decimals == 0:
        when = (START + dt.timedelta(seconds=round(float(seconds)))).astimezone(tz)
        text = when.isoformat(timespec="seconds")
    else:
        q = round(float(seconds), decimals)
        when = (START + dt.timedelta(seconds=q)).astimezone(tz)
        text = when.isoformat(timespec="milliseconds" if decimals <= 3 else "microseconds")
    return text.replace("+00:00", "Z")


def write_gpx_text(
    path: Path,
    t: np.ndarray,
    enu: np.ndarray,
    *,
    elevation: bool = True,
    decimals: int = 3,
    utc_offset_h: float = 0.0,
    segments: int = 1,
    tracks: int = 1,
    duplicate_every: int = 0,
    origin=ORIGIN,
) -> Path:
    """A GPX 1.1 file of the points, written as text as loggers do: 7-decimal coordinates,
    elevations (above the geoid) to 0.1 m, times to ``decimals`` digits of the second in the
    local time ``utc_offset_h`` (0: 'Z'); split into ``segments`` segments in each of
    ``tracks`` tracks; every ``duplicate_every``-th point written twice."""
    g = geodetic(t, enu, origin)
    lat, lon, alt = g["wgs84_lat_deg"], g["wgs84_lon_deg"], g["navd88_height_m"]
    parts = np.array_split(np.arange(len(t)), segments * tracks)
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<gpx version="1.1" creator="synthetic" xmlns="http://www.topografix.com/GPX/1/1">',
    ]
    for k in range(tracks):
        lines.append("<trk><name>drive</name>")
        for part in parts[k * segments : (k + 1) * segments]:
            lines.append("<trkseg>")
            for i in part:
                ele = f"<ele>{alt[i]:.1f}</ele>" if elevation else ""
                pt = (
                    f'<trkpt lat="{lat[i]:.7f}" lon="{lon[i]:.7f}">{ele}'
                    f"<time>{_time_text(t[i] - t[0], decimals, utc_offset_h)}</time></trkpt>"
                )
                lines.append(pt)
                if duplicate_every and i % duplicate_every == duplicate_every - 1:
                    lines.append(pt)
            lines.append("</trkseg>")
        lines.append("</trk>")
    lines.append("</gpx>")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def write_csv_geodetic(
    path: Path, t: np.ndarray, enu: np.ndarray, *, decimals: int = 3, origin=ORIGIN
) -> Path:
    """lat_deg, lon_deg, alt_m, time (ISO 8601 UTC) at 8 decimals of a degree, 0.01 m."""
    g = geodetic(t, enu, origin)
    rows = ["time,lat_deg,lon_deg,alt_m"]
    for i in range(len(t)):
        rows.append(
            f"{_time_text(t[i] - t[0], decimals, 0.0)},{g['wgs84_lat_deg'][i]:.8f},"
            f"{g['wgs84_lon_deg'][i]:.8f},{g['navd88_height_m'][i]:.2f}"
        )
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def write_csv_enu(path: Path, t: np.ndarray, enu: np.ndarray, *, decimals: int = 3) -> Path:
    """x_m, y_m, z_m, t_s (seconds from the first point) at the millimetre."""
    rows = ["t_s,x_m,y_m,z_m"]
    for i in range(len(t)):
        rows.append(f"{t[i] - t[0]:.{decimals}f},{enu[i, 0]:.3f},{enu[i, 1]:.3f},{enu[i, 2]:.3f}")
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path
