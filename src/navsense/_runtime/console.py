"""The ``navsense`` console script (and ``python -m navsense``): process settings, then the CLI.

One BLAS thread is set before :mod:`navsense.cli` imports numpy, and the process ends without
the interpreter's teardown after a command that allows it (:mod:`navsense._runtime.process`).
Ctrl-C, SIGTERM or SIGHUP while the command line's modules load (before
:func:`navsense.cli.main`'s own boundary) ends as it does in a command: one line, exit 130, 143
or 129, no traceback.

Those modules load with SIGINT and SIGTERM held back (:func:`~navsense._runtime.process.stops_held`)
and the stop is delivered once they have loaded: a KeyboardInterrupt raised inside a compiled
extension's initialisation is not always survivable. Found: Ctrl-C 30-50 ms after the start,
while orjson's module initialised, ended the process with SIGSEGV (exit -11, no line) about
once in thirty tries.
"""

import sys

from navsense._runtime import process

process.one_blas_thread()

__all__ = ["run"]


def run() -> None:
    """The console script: :func:`navsense.cli.main`, then the exit. A stop between the modules'
    load and :func:`~navsense.cli.main`'s own boundary ends here with the same line and code."""
    previous = process.stop_signals_raise()
    try:
        with process.stops_held():
            from navsense.cli import main  # after the BLAS setting, which numpy reads once
        process.stop_signals_restore(previous)  # main installs its own handlers
        code = main()
    except BaseException as exc:
        stop = process.stop_line(exc)
        if stop is None:
            raise
        print(stop[0], file=sys.stderr)
        code = stop[1]
    process.exit_process(code)
