"""``navsense campaign``: Monte Carlo campaigns on the command line.

::

    navsense campaign run FILE --out DIR [--workers N] [--scheduler tcp://HOST:PORT]
                                         [--retry-failed] [--quiet]
    navsense campaign summary DIR [--keys PATTERN ...] [--format table|csv|json]
    navsense campaign rerun DIR RUN_ID [--out RUN_DIR]

``run`` executes every run of the campaign file (navsense.campaign.spec) that ``DIR`` does not
hold yet, on a local Dask cluster of N worker processes (default: one a core), on an existing
Dask scheduler (``--scheduler``), or serially in this process (``--workers 0``, and by default
when there are fewer runs than two a core, said in one line); it prints a
progress bar on stderr and ends with exit code 0 when every run is ok, 1 when some failed (their
messages are printed and kept in DIR/results/), 2 on a bad campaign file. ``summary`` rebuilds
DIR/statistics.parquet, writes DIR/summary.parquet and DIR/summary.csv and prints the
distribution per sweep point (``--keys``: only the statistics matching a pattern; ``--format``:
as a text table, CSV or JSON; navsense.campaign.summary). ``rerun`` writes one run's directory again (default
DIR/reruns/RUN_ID) and compares it with the campaign's copy (keep = "runs": byte for byte) or its
statistics (keep = "statistics"); exit code 1 if they differ.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

__all__ = ["add_parser", "run"]

MAX_WORKERS = 1024  # --workers: each a process of its own (a million was a machine's hang)


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register ``campaign`` (actions run, summary, rerun) on an argparse ``subparsers`` object."""
    parser = subparsers.add_parser(
        "campaign",
        help="Monte Carlo campaigns: seeds x sources x parameter sweeps, on Dask",
        description="Run a campaign file's runs on Dask, summarise their statistics, or "
        "reproduce one run.",
    )
    actions = parser.add_subparsers(dest="campaign_action", metavar="ACTION", required=True)
    p = actions.add_parser(
        "run",
        help="run every run of a campaign file not yet done in DIR",
        description="Run the campaign FILE (TOML or JSON) into DIR; a DIR that "
        "holds finished runs is resumed.",
    )
    p.add_argument("file", metavar="FILE", help="campaign file (.toml or .json)")
    p.add_argument("--out", metavar="DIR", required=True, help="campaign directory")
    p.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="N",
        help="worker processes of the local Dask cluster (default: one a core, or serially "
        "when there are fewer runs than two a core; at most one a run to do, and "
        f"{MAX_WORKERS}); 0 runs serially in this process without Dask",
    )
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="an existing Dask scheduler, e.g. tcp://10.0.0.5:8786, instead of a local "
        "cluster (the workers need navsense and the same paths)",
    )
    p.add_argument(
        "--retry-failed",
        action="store_true",
        help="run again the runs that failed before (default: keep their results)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress and no summary line")
    s = actions.add_parser(
        "summary",
        help="distribution of the statistics per sweep point",
        description="Rebuild DIR/statistics.parquet, write DIR/summary.parquet "
        "and DIR/summary.csv and print them.",
    )
    s.add_argument("dir", metavar="DIR", help="campaign directory")
    s.add_argument(
        "--keys",
        metavar="PATTERN",
        action="append",
        default=[],
        help="print only the statistics matching PATTERN (shell wildcards, e.g. 'gnss_*' or "
        "'score.*'); repeat for more; the files keep every statistic",
    )
    s.add_argument(
        "--format",
        metavar="FORMAT",
        default="table",
        help="what to print: table (the default: a text block a sweep point), csv or json",
    )
    r = actions.add_parser(
        "rerun",
        help="reproduce one run's directory",
        description="Write the run directory of RUN_ID again and compare it "
        "with the campaign's copy.",
    )
    r.add_argument("dir", metavar="DIR", help="campaign directory")
    r.add_argument("run_id", metavar="RUN_ID", help="run id (or a unique prefix of one)")
    r.add_argument("--out", metavar="RUN_DIR", help="new run directory (default DIR/reruns/RUN_ID)")
    parser.set_defaults(func=run)
    return parser


def run(args: argparse.Namespace) -> int:
    """Run ``navsense campaign <action>``; returns the exit code. Raises NavsenseError on bad input."""
    action = getattr(args, "campaign_action", None)
    _check_paths(args)
    if action == "run":
        return _run(args)
    if action == "summary":
        return _summary(args)
    if action == "rerun":
        return _rerun(args)
    sys.stderr.write("navsense campaign: choose an action: run, summary or rerun\n")
    return 2


def _check_paths(args: argparse.Namespace) -> None:
    """A path argument that no file system can hold (a NUL character: Python's ValueError at
    the first open) is refused by name before anything is read or made."""
    from navsense.errors import ConfigError

    for attr, name in (("file", "FILE"), ("dir", "DIR"), ("out", "--out"), ("run_id", "RUN_ID")):
        value = getattr(args, attr, None)
        if isinstance(value, str) and "\0" in value:
            raise ConfigError(f"{name} {value!r}: a path cannot hold a NUL character")


def _run(args) -> int:
    from navsense.campaign.runner import check_scheduler_address, run_campaign
    from navsense.campaign.spec import load_campaign
    from navsense.errors import ConfigError

    if args.workers is not None and not 0 <= args.workers <= MAX_WORKERS:
        raise ConfigError(f"--workers {args.workers} must be 0..{MAX_WORKERS}")
    if args.scheduler is not None:
        check_scheduler_address(args.scheduler)
    if args.scheduler and args.workers is not None:
        raise ConfigError(
            "--workers and --scheduler exclude each other: the scheduler's workers run"
        )
    campaign = load_campaign(args.file)
    outcome = run_campaign(
        campaign,
        args.out,
        workers=args.workers,
        scheduler=args.scheduler,
        retry_failed=args.retry_failed,
        progress=not args.quiet,
    )
    if not args.quiet or outcome.failed or outcome.lost:
        print(outcome.text(), file=sys.stderr)
    return 0 if outcome.failed == 0 and outcome.lost == 0 else 1


def _summary(args) -> int:
    from navsense.campaign.summary import (
        SUMMARY_FORMATS,
        render_summary,
        select_statistics,
        statistics_table,
        write_summary,
    )
    from navsense.errors import ConfigError

    if args.format not in SUMMARY_FORMATS:
        raise ConfigError(f"--format {args.format!r} is not one of {', '.join(SUMMARY_FORMATS)}")
    note = _results_to_summarise(args.dir)
    table = write_summary(args.dir)
    shown = select_statistics(table, args.keys)
    sys.stdout.write(render_summary(shown, statistics_table(args.dir), args.format))
    if note:  # after the work: an error on the way is the one line on stderr
        print(note, file=sys.stderr)
    print(
        f"navsense: wrote {Path(args.dir) / 'summary.parquet'} and "
        f"{Path(args.dir) / 'summary.csv'}",
        file=sys.stderr,
    )
    return 0


def _results_to_summarise(out_dir) -> str:
    """FormatError when none of the campaign's runs has a result (a summary of no runs looked
    complete: its header, 'wrote ...', exit 0); a note when some have none ('' when all have).
    A run without a result is not done yet, or its result file is damaged (campaign run redoes
    it)."""
    from navsense.campaign.results import RESULTS_DIR, read_results
    from navsense.campaign.summary import read_campaign_json
    from navsense.errors import FormatError

    planned = {r["run_id"] for r in read_campaign_json(out_dir)["runs"]}
    missing = len(planned - set(read_results(out_dir)))
    if not missing:
        return ""
    where = (
        f"in {Path(out_dir) / RESULTS_DIR} (not run yet, or a damaged result file; "
        f"navsense campaign run FILE --out {out_dir} does them)"
    )
    if missing == len(planned):
        raise FormatError(
            f"{out_dir}: none of the campaign's {len(planned)} runs has a result {where}"
        )
    return f"navsense: note: {missing} of the campaign's {len(planned)} runs have no result {where}"


def _rerun(args) -> int:
    from navsense.campaign.runner import rerun

    report = rerun(args.dir, args.run_id, args.out)
    if report.version_note:
        print(report.version_note, file=sys.stderr)
    print(report.text())
    return 0 if report.identical is not False else 1
