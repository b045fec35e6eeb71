"""The ``navsense`` command line.

Every sub-command is a function returning an exit code. :func:`main` is the one error boundary:
whatever goes wrong ends the command with one line on stderr, never a traceback.

- exit 0: done;
- exit 1: done, but some of the work it ran did not succeed, said in its outputs: ``campaign run``
  with failed or lost runs (an estimator that fails makes its run failed), ``campaign rerun`` that
  differs from the campaign's copy (docs/guide/exit-codes.md has the table);
- exit 2: a failure, on one line ``navsense: error: ...``: a bad option (argparse's usage error,
  shortened to its one line), a :class:`navsense.errors.NavsenseError` (bad input, named with its
  file, key or line, the value and what is allowed), an :class:`OSError` (permission, a full disk,
  a file-size limit, not a directory, ...: the path and the system's reason) or a
  :class:`MemoryError`;
- exit 2 too for a bug (any other exception), on one line ``navsense: internal error: TYPE:
  MESSAGE (please report; --debug shows the traceback)``. Ruling (issue 21): a bug is a failure
  like any other for a script that calls navsense (0 done, 2 failed, 130 interrupted); the words
  "internal error" tell a person which kind it is;
- exit 130 on Ctrl-C (KeyboardInterrupt), 143 on SIGTERM, 129 on SIGHUP (unless ignored, as
  under ``nohup``): a run stops its worker process and removes its ``NAME.partial`` first.

``navsense --debug COMMAND ...`` (or ``NAVSENSE_DEBUG=1``) prints the traceback after the line,
with the worker process's own stack for an error raised there.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import traceback
import warnings
from pathlib import Path
from typing import NoReturn

from navsense import __version__
from navsense._runtime.process import stop_line, stop_signals_raise, stop_signals_restore
from navsense.commands.config import add_config_arguments, overrides_from_args
from navsense.errors import ConfigError, NavsenseError, NavsenseWarning

__all__ = ["main", "build_parser"]

MAX_CHUNK_STEPS = 10_000_000  # --chunk-steps: a day at 120 Hz (the chunk is held in memory)
MAX_AGENT = 1_000_000  # --agent: the INS seed adds 7919 K


def prepare_from_args(args: argparse.Namespace):
    """:func:`navsense.run.prepare_run` of the options of :func:`add_truth_source_arguments`
    and the configuration options (``simulate`` and ``live`` alike)."""
    from navsense.run import prepare_run

    return prepare_run(
        scenario=args.scenario,
        truth=args.truth,
        track=args.track,
        site=args.site,
        buildings=args.buildings,
        vehicle=args.vehicle,
        config=args.config,
        overlay=args.overlay,
        overrides=overrides_from_args(args),
        smoothing_m=args.smoothing_m,
        bank=args.bank,
        duration_s=args.duration,
    )


def add_truth_source_arguments(p: argparse.ArgumentParser) -> None:
    """The truth source options of ``simulate`` and ``live`` (:func:`navsense.run.prepare_run`):
    ``--truth | --scenario | --track``, ``--smoothing-m``, ``--bank``, ``--site``,
    ``--duration`` (``live`` had no ``--duration``, though it cuts any source: issue 32) and
    ``--buildings`` (a map file's buildings on the site, issue 29)."""
    src = p.add_mutually_exclusive_group()
    src.add_argument("--truth", metavar="FILE", help="truth log (.csv or .parquet)")
    src.add_argument("--scenario", metavar="NAME", help="embedded scenario (navsense scenarios)")
    src.add_argument(
        "--track",
        metavar="FILE",
        help="a route or GPS track (.gpx, .csv, waypoint .json) turned into truth",
    )
    p.add_argument(
        "--smoothing-m",
        type=float,
        default=None,
        metavar="SIGMA",
        help="--track: position noise of the recording per horizontal axis, m (default: chosen "
        "from the data by generalised cross-validation; 0: pass through every point)",
    )
    p.add_argument(
        "--bank",
        choices=["none", "coordinated"],
        default="none",
        help="--track: roll zero, or the coordinated-turn bank",
    )
    p.add_argument(
        "--site",
        metavar="NAME|FILE",
        help="site: an embedded site name or a site JSON file (default: the scenario's; a "
        "truth log's own, else acre; a track's)",
    )
    p.add_argument(
        "--duration",
        type=float,
        default=None,
        metavar="S",
        help="keep the first S seconds of the truth (any source; a closed scenario route is "
        "repeated to that length)",
    )
    p.add_argument(
        "--buildings",
        metavar="FILE",
        help="add the buildings of a map file (.osm, .osm.pbf, .geojson) near the path to the "
        "site as footprints (docs/guide/buildings.md)",
    )


def _add_simulate(sub) -> None:
    p = sub.add_parser(
        "simulate",
        help="run the sensors over a truth log or an embedded scenario",
        description="Run the GNSS receiver, IMU and INS over a truth log (--truth) or an embedded "
        "scenario (default: acre-loop) and write a run directory.",
    )
    add_truth_source_arguments(p)
    p.add_argument(
        "--save-truth",
        action="store_true",
        help="also write the truth as truth.parquet in the run directory (on with --track)",
    )
    add_config_arguments(p)
    p.add_argument(
        "--agent",
        type=int,
        default=0,
        metavar="K",
        help="agent index: the INS seed adds 7919 K (ACRES Core)",
    )
    p.add_argument("--out", metavar="DIR", help="run directory (default runs/<name>-<time>)")
    p.add_argument(
        "--chunk-steps",
        type=int,
        default=None,
        metavar="N",
        help="physics steps per processing chunk (output does not depend on it)",
    )
    p.add_argument(
        "--format",
        choices=["jsonl", "parquet"],
        default="jsonl",
        help="rows as JSON Lines (default) or one Parquet file per sensor",
    )
    p.add_argument(
        "--workers",
        choices=["processes", "threads"],
        default="processes",
        help="processes (default): the models are split between this process and one "
        "forked worker (Linux; threads elsewhere); threads: one process. "
        "Output does not depend on it",
    )
    p.add_argument(
        "--mcap",
        action="store_true",
        help="also write the ROS 2 bag ros2.mcap (as navsense export mcap RUN_DIR)",
    )
    p.add_argument(
        "--gnss-fix",
        action="store_true",
        help="--mcap: add the GNSS receiver's own fix on /gnss/receiver/fix",
    )
    p.add_argument(
        "--raw-imu", action="store_true", help="--mcap: add the IMU as sensor_msgs/Imu on /imu/raw"
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar and no summary")
    p.set_defaults(func=_run_simulate)


def _run_simulate(args) -> int:
    from navsense._runtime.memory import arrow_on_the_heap, keep_freed_memory
    from navsense.output.rundir import check_out_dir, default_run_dir
    from navsense.simulate import DEFAULT_CHUNK_STEPS

    if keep_freed_memory():  # half the page faults of a long run (navsense._runtime.memory)
        arrow_on_the_heap()  # and Arrow's buffers reused from it

    chunk_steps = DEFAULT_CHUNK_STEPS if args.chunk_steps is None else args.chunk_steps
    for option, value, low, high in (
        ("--chunk-steps", chunk_steps, 1, MAX_CHUNK_STEPS),
        ("--agent", args.agent, 0, MAX_AGENT),
    ):
        if value < low:
            raise ConfigError(f"{option} {value} must be >= {low}")
        if value > high:
            raise ConfigError(f"{option} {value} must be <= {high}")
    # the run directory is checked before anything is read (a bad --out fails at once)
    if args.out is not None:
        out = check_out_dir(args.out)
    else:
        source_file = args.track or args.truth
        label = Path(source_file).stem if source_file else (args.scenario or "acre-loop")
        out = check_out_dir(default_run_dir("runs", label))
    run = prepare_from_args(args)
    finish = None
    if (args.gnss_fix or args.raw_imu) and not args.mcap:
        raise ConfigError("--gnss-fix and --raw-imu choose topics of the bag: add --mcap")
    if args.mcap:
        from navsense.output.ros2 import BagPlan

        bag_options = {"gnss_fix": args.gnss_fix, "raw_imu": args.raw_imu}
        # the bag's topics checked now, not after the run
        BagPlan.of_config(
            run.cfg, run.vehicle.name, run.site, float(run.cfg["physics"]["hz"]), **bag_options
        ).check("--mcap")

        def finish(path: Path, final: Path) -> None:
            from navsense.runs.export_mcap import write_mcap

            write_mcap(path, run_name=final.name, **bag_options)

    def announce(summary) -> None:  # before the run directory gets its name (simulate)
        try:
            if args.mcap:
                print(f"navsense: ROS 2 bag {summary.run_dir / 'ros2.mcap'}")
            print(summary.text(), flush=True)
        except OSError as exc:  # a full or closed standard output, a reader that has gone
            reason = f"{exc.strerror or exc} (the run's summary; nothing kept)"
            raise OSError(exc.errno, reason, "standard output") from None

    run.simulate(
        out,
        agent=args.agent,
        chunk_steps=chunk_steps,
        progress=not args.quiet,
        output_format=args.format,
        save_truth=args.save_truth,
        workers=args.workers,
        finish=finish,
        announce=None if args.quiet else announce,
    )
    from navsense._runtime.process import teardown_not_needed

    teardown_not_needed()  # every file closed, the worker joined
    return 0


def _add_scenarios(sub) -> None:
    p = sub.add_parser("scenarios", help="list the embedded scenarios")
    p.set_defaults(func=_run_scenarios)


def _run_scenarios(args) -> int:
    from navsense.scenarios import list_scenarios

    for s in list_scenarios():
        print(
            f"{s['name']:<16} {s['duration_s']:7.1f} s  {s['vehicle']:<8} site {s['site']:<8} "
            f"{s['description']}"
        )
    return 0


def _add_module_parser(module: str):
    def add(sub) -> None:
        import importlib

        importlib.import_module(module).add_parser(sub)

    return add


# each command's parser, built only for the command being run (a full parser imports every
# command's module: 50 ms of a run's start-up); "export" also adds "report"
_PARSERS = {
    "simulate": _add_simulate,
    "scenarios": _add_scenarios,
    "config": _add_module_parser("navsense.commands.config"),
    "geo": _add_module_parser("navsense.commands.geo"),
    "export": _add_module_parser("navsense.commands.export"),
    "truth": _add_module_parser("navsense.commands.truth"),
    "campaign": _add_module_parser("navsense.commands.campaign"),
    "score": _add_module_parser("navsense.commands.score"),
    "live": _add_module_parser("navsense.commands.live"),
    "allan": _add_module_parser("navsense.commands.allan"),
    "site": _add_module_parser("navsense.commands.site"),
}
_PARSER_OF = {**{name: name for name in _PARSERS}, "report": "export"}


ROOT_PROG = "navsense"  # the top parser's name; a sub-command's is "navsense COMMAND"


class _UsageError(Exception):
    """A command line argparse refuses (its message: the one line to print)."""


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser whose usage errors are one line (``navsense simulate: error: ...``),
    raised to :func:`main` instead of printing the usage and exiting; its sub-parsers (made with
    the parent's class) do the same."""

    def error(self, message: str) -> NoReturn:
        raise _UsageError(f"{self.prog}: error: {message} (see {self.prog} --help)")

    def parse_known_args(self, args=None, namespace=None):
        """A sub-command's parser refuses the arguments it does not know itself, so that the
        line names its own help (``navsense live: error: unrecognized arguments: --durtion 5
        (see navsense live --help)``); argparse left them to the top parser, whose line said
        ``see navsense --help`` (issue 32)."""
        namespace, extras = super().parse_known_args(args, namespace)
        if extras and self.prog != ROOT_PROG:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return namespace, extras


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argparse parser of every sub-command, or of ``command`` only."""
    parser = ArgumentParser(
        prog=ROOT_PROG,
        description="Navigation sensor readings (GNSS receiver, IMU, INS) from truth motion.",
    )
    parser.add_argument("--version", action="version", version=f"navsense {__version__}")
    parser.add_argument(
        "--debug",
        action="store_true",
        help="on an error, also print the traceback (for a bug report)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    only = _PARSER_OF.get(command or "")
    for name, add in _PARSERS.items():
        if only is None or name == only:
            add(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``navsense`` console script: the exit code (module docstring)."""
    words = sys.argv[1:] if argv is None else list(argv)
    debug = "--debug" in words[: _command_index(words)] or bool(os.environ.get("NAVSENSE_DEBUG"))
    if sys.stdout is None:  # for the process's lifetime: its exit flushes stdout too
        sys.stdout = _ClosedStdout()
    stdout = sys.stdout
    sys.stdout = _NamedStdout(stdout)
    try:
        with _sigterm_raises():
            return _main(words, debug)
    finally:
        sys.stdout = stdout


class _NamedStdout:
    """sys.stdout while :func:`main` runs: a failed write or flush of a command's text (a full
    device, ``>/dev/full``; a closed pipe) is the OSError 'standard output: REASON', named like
    every file (it was the bare 'No space left on device'), and :func:`_main` flushes it inside
    its boundary (``--version >/dev/full`` ended with status 0 and no word). Everything else
    is the stream's own (``isatty``, ``buffer``, ``encoding``)."""

    def __init__(self, stream) -> None:
        self._stream = stream
        self.failure: OSError | None = None  # argparse's --help and --version swallow it

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except OSError as exc:
            self.failure = _named(exc)
            raise self.failure from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as exc:
            raise _named(exc) from None

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def _stdout_failure() -> OSError | None:
    """The failure of the text a command wrote to standard output (its flush, or a write that
    argparse's --help and --version swallowed), or None."""
    try:
        sys.stdout.flush()
    except OSError as exc:
        return exc
    return getattr(sys.stdout, "failure", None)


def _named(exc: OSError) -> OSError:
    if exc.filename is not None:
        return exc
    return OSError(exc.errno, exc.strerror or str(exc), "standard output")


class _ClosedStdout:
    """sys.stdout of a process started with its standard output closed (``>&-``: Python's
    sys.stdout is None, and a command's first write was an AttributeError, an internal error):
    a write is the OSError 'standard output: Bad file descriptor' (one line, exit 2); a
    command that writes nothing there works, and the process's exit can flush it."""

    def write(self, text: str) -> int:
        import errno

        raise OSError(errno.EBADF, os.strerror(errno.EBADF), "standard output")

    def flush(self) -> None:
        pass


class _sigterm_raises:
    """While :func:`main` runs in the main thread: SIGTERM and SIGHUP (unless ignored) raise
    :class:`navsense._runtime.process.Terminated` (``stop_signals_raise``)."""

    def __enter__(self) -> None:
        import threading

        self._installed = threading.current_thread() is threading.main_thread()
        if self._installed:
            self._previous = stop_signals_raise()

    def __exit__(self, *exc) -> None:
        if self._installed:
            stop_signals_restore(self._previous)


def _main(words: list[str], debug: bool) -> int:
    caught: list[warnings.WarningMessage] = []
    try:
        parser = build_parser(next((w for w in words if not w.startswith("-")), None))
        args = parser.parse_args(words)
        if not getattr(args, "command", None):
            parser.print_help()
            print("navsense: error: no command given (see navsense --help)", file=sys.stderr)
            return 2
        func = getattr(args, "func", None)
        if func is None:
            # sub-commands registered by their own modules expose run(args)
            module = {
                "config": "navsense.commands.config",
                "geo": "navsense.commands.geo",
                "export": "navsense.commands.export",
                "report": "navsense.commands.export",
                "truth": "navsense.commands.truth",
            }[args.command]
            import importlib

            func = importlib.import_module(module).run
        # warnings are held until the command ends: printed after a success (a NavsenseWarning
        # as one line), left out after a failure, whose one line says what went wrong
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("default")  # each distinct warning once
            code = int(func(args) or 0)
            sys.stdout.flush()
        _show_warnings(caught, debug)
        return code
    except BaseException as exc:  # the one boundary: every failure ends as one line
        if isinstance(exc, SystemExit):  # argparse's --help and --version (exit 0)
            status = exc.code
            failed = _stdout_failure()
            if failed is not None:
                _report(error_line(failed), debug)
                return 2
            return status if isinstance(status, int) else (0 if status is None else 2)
        stop = stop_line(exc)  # Ctrl-C or SIGTERM, or one that a library wrapped in its error
        if stop is not None:
            _report(stop[0], debug)
            return stop[1]
        if debug:
            _show_warnings(caught, debug)
        _report(error_line(exc), debug and not isinstance(exc, _UsageError))
        return 2


def _show_warnings(caught: list, debug: bool) -> None:
    """``navsense: warning: MESSAGE`` on one line of stderr for each NavsenseWarning (input that
    is usable but probably not what was meant); other warnings (numpy's, a library's) only with
    --debug, as Python shows them."""
    for w in caught:
        with contextlib.suppress(OSError, ValueError):  # stderr itself is gone
            if issubclass(w.category, NavsenseWarning):
                print(_one_line(f"navsense: warning: {w.message}"), file=sys.stderr)
            elif debug:
                print(
                    warnings.formatwarning(w.message, w.category, w.filename, w.lineno, w.line),
                    end="",
                    file=sys.stderr,
                )


def _command_index(words: list[str]) -> int:
    """Index of the first word that is not an option (the command), or len(words)."""
    return next((i for i, w in enumerate(words) if not w.startswith("-")), len(words))


def error_line(exc: BaseException) -> str:
    """The one line that reports ``exc`` on stderr (module docstring)."""
    if isinstance(exc, _UsageError):
        return _one_line(str(exc))
    if isinstance(exc, NavsenseError):
        return _one_line(f"navsense: error: {exc}")
    if isinstance(exc, OSError):
        return _one_line(f"navsense: error: {os_error_text(exc)}")
    if isinstance(exc, MemoryError):
        return "navsense: error: out of memory: the input asks for more than this machine has"
    return _one_line(
        f"navsense: internal error: {type(exc).__name__}: {exc} "
        "(please report; --debug shows the traceback)"
    )


def os_error_text(exc: OSError) -> str:
    """``PATH: reason`` (``PATH -> PATH2: reason`` for a rename) of an OSError."""
    reason = exc.strerror or str(exc) or type(exc).__name__
    if exc.filename is None:
        return reason if exc.strerror else f"{type(exc).__name__}: {reason}"
    where = os.fsdecode(exc.filename)
    if exc.filename2 is not None:
        where += f" -> {os.fsdecode(exc.filename2)}"
    return f"{where}: {reason}"


_MAX_LINE = 2000  # characters of the error line (a message may quote a huge value)


def _one_line(text: str) -> str:
    """``text`` on one line: line breaks (and other control characters) as spaces, the bytes of
    a name that are not UTF-8 (Python's surrogate escapes, U+DC80..U+DCFF) as ``\\xNN``, at most
    ``_MAX_LINE`` characters."""
    line = " ".join("".join(map(_printable, text)).split())
    return line if len(line) <= _MAX_LINE else line[: _MAX_LINE - 5] + " ..."


def _printable(c: str) -> str:
    if c.isprintable():
        return c
    if "\udc80" <= c <= "\udcff":  # a byte of a file name that is not UTF-8 ($'\xff.csv')
        return f"\\x{ord(c) - 0xDC00:02x}"
    return " "


def _report(line: str, debug: bool) -> None:
    try:
        if debug:
            traceback.print_exc(file=sys.stderr)
        print(line, file=sys.stderr)
        sys.stderr.flush()
    except (OSError, ValueError):  # stderr itself is gone: the exit code says it
        pass
