"""``navsense score RUN_DIR ESTIMATE``: score an estimator's trajectory against the run's truth.

::

    navsense score RUN_DIR ESTIMATE [--format tum|csv|mcap] [--topic TOPIC]
                   [--frame enu|utm|geodetic] [--datum FRAME] [--utm-zone N]
                   [--point ins|antenna|base_footprint] [--align none|se3|sim3]
                   [--rpe-delta D --rpe-unit m|s] [--out FILE] [--no-plots] [--quiet]

Writes ``RUN_DIR/score/score.json`` (or ``--out FILE``) and the plots beside it, and prints the
table. The option names are fixed (issue 22): scripts rely on them. What each option means is in
:mod:`navsense.score`.
"""

from __future__ import annotations

import argparse

from navsense.commands import file_name, run_directory

__all__ = ["add_parser", "run"]


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register ``score`` on an argparse ``subparsers`` object."""
    p = subparsers.add_parser(
        "score",
        help="score an estimator's trajectory against a run's truth (ATE, RPE, NEES)",
        description="Score an estimate (TUM, CSV or a topic of a ROS 2 bag) against the truth of "
        "the run directory: absolute and relative errors, attitude, NEES and sigma fractions, "
        "overall, per GNSS fix state and per outage window.",
    )
    p.add_argument(
        "run_dir",
        metavar="RUN_DIR",
        type=run_directory,
        help="the run directory (navsense simulate)",
    )
    p.add_argument(
        "estimate",
        metavar="ESTIMATE",
        type=file_name,
        help="the estimate: .tum/.txt, .csv or .mcap",
    )
    p.add_argument(
        "--format",
        choices=["tum", "csv", "mcap"],
        default=None,
        help="estimate format (default: from the extension; .txt is TUM)",
    )
    p.add_argument(
        "--topic",
        metavar="TOPIC",
        help="mcap: the topic (Odometry, PoseWithCovarianceStamped or NavSatFix)",
    )
    p.add_argument(
        "--frame",
        choices=["enu", "utm", "geodetic"],
        default=None,
        help="frame of the estimate: the site's ENU, UTM of the run's zone, or latitude, "
        "longitude, ellipsoidal height (default: CSV from its columns; TUM enu; mcap from the "
        "message: NavSatFix geodetic, frame_id utm utm, else enu)",
    )
    p.add_argument(
        "--datum",
        choices=["nad83_2011", "nad83_harn", "wgs84_g2139"],
        default=None,
        help="utm and geodetic: the datum of the coordinates (default: the run's INS datum, "
        "that of its /vehicle/odom and /oxts/fix)",
    )
    p.add_argument(
        "--utm-zone",
        type=int,
        default=None,
        metavar="N",
        help="utm: the zone (default: the run's ins.utm_zone)",
    )
    p.add_argument(
        "--point",
        choices=["ins", "antenna", "base_footprint"],
        default="ins",
        help="the truth point the estimate locates (default ins: the INS point of the run)",
    )
    p.add_argument(
        "--align",
        choices=["none", "se3", "sim3"],
        default="none",
        help="Umeyama alignment of the estimate to the truth before scoring (default none)",
    )
    p.add_argument(
        "--rpe-delta",
        type=float,
        default=1.0,
        metavar="D",
        help="relative pose error over pairs D apart (default 1)",
    )
    p.add_argument(
        "--rpe-unit",
        choices=["m", "s"],
        default="s",
        help="unit of --rpe-delta: metres travelled (along the truth) or seconds (default s)",
    )
    p.add_argument("--out", metavar="FILE", help="score.json path (default RUN_DIR/score/)")
    p.add_argument("--no-plots", action="store_true", help="write no plots")
    p.add_argument("--quiet", action="store_true", help="print no table")
    p.set_defaults(func=run)
    return p


def run(args) -> int:
    """Score the estimate; exit code 0 (a NavsenseError ends in one line and exit code 2)."""
    from navsense.score.api import ScoreOptions, score_run

    options = ScoreOptions(
        format=args.format,
        topic=args.topic,
        frame=args.frame,
        datum=args.datum,
        utm_zone=args.utm_zone,
        point=args.point,
        align=args.align,
        rpe_delta=args.rpe_delta,
        rpe_unit=args.rpe_unit,
    ).check()
    result = score_run(args.run_dir, args.estimate, options, out=args.out, plots=not args.no_plots)
    if not args.quiet:
        from navsense.score.table import score_table

        print(score_table(result.scores))
        print(f"navsense: score written to {result.path}")
    return 0
