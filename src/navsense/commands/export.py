"""``navsense export mcap RUN_DIR`` and ``navsense report RUN_DIR``.

``add_parser(subparsers)`` registers both sub-commands; ``run(args)`` runs the chosen one and
returns the exit code. A :class:`navsense.errors.NavsenseError` propagates to the main command,
which prints one line and exits 2.

Examples::

    navsense export mcap runs/acre-loop-20260923-150000
    navsense export mcap RUN_DIR --out drive.mcap --gnss-fix --raw-imu
    navsense report RUN_DIR
    navsense report RUN_DIR --time-s 95
"""

from __future__ import annotations

import argparse

from navsense.commands import run_directory

__all__ = ["add_parser", "run"]


def add_parser(subparsers) -> None:
    """Register ``export`` (action ``mcap``) and ``report`` on an argparse subparsers object."""
    export = subparsers.add_parser(
        "export",
        help="export a run directory to another format (ROS 2 bag in MCAP)",
        description="Export a run directory to another format.",
    )
    formats = export.add_subparsers(dest="export_format", metavar="FORMAT", required=True)
    mcap = formats.add_parser(
        "mcap",
        help="a ROS 2 bag (MCAP): the ROS 2 bridge's topics, /tf_static and the other sensors",
        description="Write the run as a ROS 2 bag in MCAP that Foxglove and `ros2 bag play` "
        "open: the INS epochs as the ROS 2 bridge publishes them (odometry, fix, IMU, "
        "velocity, ground truth with the truth's twist, /tf; the Maxxum without INS: "
        "from its receiver and IMU), /tf_static (every sensor frame from base_footprint, "
        "latched), and the magnetometer, barometer and wheel odometer when the run has "
        "them. Header stamps are start_utc + sample time, log times start_utc + "
        "delivery time.",
    )
    mcap.add_argument(
        "run_dir", metavar="RUN_DIR", type=run_directory, help="a navsense run directory"
    )
    mcap.add_argument(
        "--out",
        metavar="FILE",
        help="the bag (default RUN_DIR/ros2.mcap); an existing file is an error",
    )
    mcap.add_argument(
        "--gnss-fix",
        action="store_true",
        help="add the GNSS receiver's own fix (gnss.jsonl) on /gnss/receiver/fix",
    )
    mcap.add_argument(
        "--raw-imu",
        action="store_true",
        help="add the IMU (imu.jsonl) as sensor_msgs/Imu on /imu/raw",
    )
    mcap.set_defaults(func=run, command_name="export")

    report = subparsers.add_parser(
        "report",
        help="an HTML report with plots and statistics of a run directory",
        description="Write RUN_DIR/report/report.html (self-contained, plots embedded) and the "
        "plots as PNG files: track over the obstacles, GNSS errors with the "
        "reported sigma bands, fix states, a sky plot, the IMU, and a summary table.",
    )
    report.add_argument(
        "run_dir", metavar="RUN_DIR", type=run_directory, help="a navsense run directory"
    )
    report.add_argument(
        "--time-s",
        type=float,
        default=None,
        metavar="T",
        help="episode time of the sky plot (default: the GNSS epoch with the "
        "most obstructed satellites)",
    )
    report.set_defaults(func=run, command_name="report")


def run(args: argparse.Namespace) -> int:
    """Run ``export mcap`` or ``report``; 0 on success (errors raise NavsenseError)."""
    name = getattr(args, "command_name", None) or getattr(args, "command", None)
    from pathlib import Path

    from navsense.errors import FormatError
    from navsense.output.outfiles import check_out_file, naming

    if name == "export":
        from navsense.runs.export_mcap import write_mcap

        bag = check_out_file(
            args.out if args.out is not None else _bag_in(args.run_dir), error=FormatError
        )
        with naming(bag):
            path = write_mcap(args.run_dir, bag, gnss_fix=args.gnss_fix, raw_imu=args.raw_imu)
        print(f"navsense: ROS 2 bag {path}")
        _teardown_not_needed()
        return 0
    if name == "report":
        from navsense.runs.report import REPORT_DIR, write_report

        with naming(Path(args.run_dir) / REPORT_DIR):
            path = write_report(args.run_dir, sky_time_s=args.time_s)
        print(f"navsense: report {path}")
        _teardown_not_needed()
        return 0
    raise ValueError(f"navsense.commands.export.run: unknown command {name!r}")  # pragma: no cover


def _teardown_not_needed() -> None:
    """The bag or the report is complete and closed, and the report's figure child joined: the
    console script may end without the interpreter's teardown (navsense._runtime.process; for a
    report, freeing matplotlib's, pyarrow's and numpy's objects, 0.07 s of a 1 s process)."""
    from navsense._runtime.process import teardown_not_needed

    teardown_not_needed()


def _bag_in(run_dir: str):
    """RUN_DIR/ros2.mcap, once RUN_DIR is known to be a directory."""
    from pathlib import Path

    from navsense.errors import FormatError
    from navsense.runs.export_mcap import DEFAULT_BAG_NAME

    if not Path(run_dir).is_dir():
        raise FormatError(f"{run_dir}: not a run directory")
    return Path(run_dir) / DEFAULT_BAG_NAME
