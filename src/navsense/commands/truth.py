"""``navsense truth``: build the truth log of a recorded track (GPX, CSV) or a waypoint route.

    navsense truth --track FILE --out truth.parquet [--force] [--site NAME|FILE] [--vehicle NAME]
                   [--smoothing-m S] [--bank none|coordinated] [--rate-hz HZ] [--start-utc UTC]

Writes the truth log (``.parquet`` or ``.csv``, navsense.truth.io) and prints what was built:
the points, duration and length, the site (ACRE, or the local site at the first point), the
start UTC and, with smoothing, how (chosen from the data or given), the RMS residual and the
standstills found. The log carries its site (ACRE, the ``--site`` given, or the local site made
at the track's first point, which exists nowhere else) and the recorded start UTC: in the
Parquet file's metadata, or for a CSV log in its sidecar ``<out stem>.truth.json``
(:mod:`navsense.truth.io`), so that ``navsense simulate --truth truth.parquet`` runs the log
where and when the track was. An existing ``--out`` (or a CSV log's sidecar) is refused unless
``--force``. Conventions and formats: :mod:`navsense.truth.tracks`.
"""

from __future__ import annotations

import argparse
import contextlib

import numpy as np

from navsense.config.fields import PHYSICS_HZ_RANGE
from navsense.errors import ConfigError
from navsense.truth.states import PHYSICS_HZ
from navsense.truth.tracks import BANK_MODES, MAX_STOP_SPEED_MPS, STOP_SPEED_MPS
from navsense.vehicles import VEHICLES

__all__ = ["add_parser", "run"]

#: --rate-hz: the physics clock's range (physics.hz, issue 30), so that the log runs in simulate
MIN_RATE_HZ, MAX_RATE_HZ = (float(x) for x in PHYSICS_HZ_RANGE)


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register the ``truth`` subcommand on an argparse subparsers object and return its parser."""
    p = subparsers.add_parser(
        "truth",
        help="build the truth log of a GPS track (GPX, CSV) or a waypoint route",
        description="Resample a recorded track (GPX, CSV) or a waypoint route (JSON) to the "
        "physics clock with cubic splines, attitude from the velocity, and write the "
        "truth log (.parquet or .csv).",
    )
    p.add_argument(
        "--track",
        required=True,
        metavar="FILE",
        help="track: .gpx, .csv (lat_deg, lon_deg [, alt_m | height_m] or x_m, y_m "
        "[, z_m], with time or t_s) or a waypoint .json",
    )
    p.add_argument("--out", required=True, metavar="FILE", help="truth log, .parquet or .csv")
    p.add_argument(
        "--force",
        action="store_true",
        help="replace an existing --out file (and a CSV log's sidecar .truth.json)",
    )
    p.add_argument(
        "--site",
        metavar="NAME|FILE",
        help="site: an embedded name or a site JSON file (default: acre for a track "
        "on the ACRE tile, else a local site at the first point)",
    )
    p.add_argument(
        "--vehicle",
        choices=sorted(VEHICLES),
        default=None,
        help="vehicle profile (default: the route's, else polaris)",
    )
    p.add_argument(
        "--smoothing-m",
        type=float,
        default=None,
        metavar="S",
        help="standard deviation of the recorded horizontal position noise per axis, m: a "
        "smoothing spline leaves this RMS residual (default: chosen from the data by "
        "generalised cross-validation; 0: through every point)",
    )
    p.add_argument(
        "--bank",
        choices=BANK_MODES,
        default="none",
        help="roll: none (0) or coordinated (coordinated-turn bank)",
    )
    p.add_argument(
        "--rate-hz",
        type=float,
        default=PHYSICS_HZ,
        metavar="HZ",
        help=f"physics rate of the log (default {PHYSICS_HZ:g})",
    )
    p.add_argument(
        "--stop-speed-mps",
        type=float,
        default=STOP_SPEED_MPS,
        metavar="V",
        help=f"below this speed the vehicle counts as stopped and its heading is held, 0 .. "
        f"{MAX_STOP_SPEED_MPS:g} m/s (default {STOP_SPEED_MPS:g})",
    )
    p.add_argument(
        "--start-utc",
        metavar="UTC",
        help="UTC of the first point for a track with relative times (seconds)",
    )
    p.set_defaults(func=run)
    return p


def _runs_can_start(track) -> None:
    """TruthError when the track's own first time (a GPX or CSV track of UTC times) is after
    LAST_START_YEAR: the log was written (exit 0) and every run of it refused by its start."""
    from navsense.config.fields import LAST_START_YEAR
    from navsense.errors import TruthError
    from navsense.utc import utc_datetime

    year = 0
    with contextlib.suppress(ValueError, TypeError):
        year = utc_datetime(track.start_utc).year
    if year > LAST_START_YEAR:
        raise TruthError(
            f"{track.source}: its first time {track.start_utc} is after {LAST_START_YEAR}: a "
            "run's NMEA sentences and ISO 8601 times write a year of four digits (navsense "
            "simulate would refuse the log)"
        )


def run(args) -> int:
    """Execute ``navsense truth`` for parsed ``args``; returns 0. NavsenseError on bad input."""
    from navsense.output.outfiles import check_out_file, naming
    from navsense.truth.io import truth_sidecar, write_truth
    from navsense.truth.track_report import track_lines
    from navsense.truth.tracks import load_track, plan_track

    # the files read, which --force must not replace (a CSV log's sidecar is any .truth.json: a
    # waypoint route or a site file of that name was overwritten with the log's metadata)
    reads = [("--track", args.track)] + ([("--site", args.site)] if args.site else [])
    out = check_out_file(args.out, force=args.force, reads=reads)
    if out.suffix.lower() not in (".parquet", ".csv"):
        raise ConfigError(f"--out {out}: the truth log must be .parquet or .csv")
    if not (np.isfinite(args.rate_hz) and MIN_RATE_HZ <= args.rate_hz <= MAX_RATE_HZ):
        raise ConfigError(
            f"--rate-hz {args.rate_hz:.12g} must be {MIN_RATE_HZ:g}..{MAX_RATE_HZ:g} Hz (the "
            "physics clock's range, physics.hz)"
        )
    if out.suffix.lower() == ".csv":
        check_out_file(
            truth_sidecar(out), option="--out (its sidecar)", force=args.force, reads=reads
        )
    if args.start_utc is not None:  # the start a run takes (gnss.datum.start_utc's check)
        from navsense.config.fields import LAST_START_YEAR
        from navsense.utc import utc_datetime

        year = 0
        with contextlib.suppress(ValueError):  # not a time: load_track's own error
            year = utc_datetime(args.start_utc).year
        if year > LAST_START_YEAR:
            raise ConfigError(
                f"--start-utc {args.start_utc} is after {LAST_START_YEAR}: a run's NMEA sentences "
                "and ISO 8601 times write a year of four digits"
            )
    track = load_track(args.track, site=args.site, start_utc=args.start_utc)
    _runs_can_start(track)
    traj = plan_track(
        track,
        args.vehicle,
        smoothing_m=args.smoothing_m,
        bank=args.bank,
        stop_speed_mps=args.stop_speed_mps,
    )
    truth = traj.sample(args.rate_hz)
    first, site_line = track_lines(track, traj, len(truth), truth.rate_hz)
    with naming(out):
        write_truth(truth, out, site=track.site, start_utc=track.start_utc)
    print(first)
    print(
        site_line
        + (
            f" (in {truth_sidecar(out)})"
            if out.suffix.lower() == ".csv"
            else " (in the log's Parquet metadata)"
        )
    )
    print(
        f"navsense: wrote {len(truth)} rows ({(len(truth) - 1) / truth.rate_hz:.2f} s at "
        f"{truth.rate_hz:g} Hz) to {out}"
    )
    return 0
