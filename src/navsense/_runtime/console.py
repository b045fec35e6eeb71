"""The ``navsense`` console script (and ``python -m navsense``): process settings, then the CLI.

One BLAS thread is set before :mod:`navsense.cli` imports numpy, and the process ends without
the interpreter's teardown after a command that allows it (:mod:`navsense._runtime.process`).
Ctrl-C or SIGTERM while the command line's modules load (before :func:`navsense.cli.main`'s
own boundary) ends as it does in a command: one line, exit 130 or 143, no traceback.
"""

import signal
import sys

from navsense._runtime import process

process.one_blas_thread()

__all__ = ["run"]


def run() -> None:
    """The console script: :func:`navsense.cli.main`, then the exit."""
    previous = signal.signal(signal.SIGTERM, process.raise_terminated)
    try:
        from navsense.cli import main  # after the BLAS setting, which numpy reads once
    except BaseException as exc:
        stop = process.stop_line(exc)
        if stop is None:
            raise
        print(stop[0], file=sys.stderr)
        process.exit_process(stop[1])
    finally:
        signal.signal(signal.SIGTERM, previous)
    process.exit_process(main())
