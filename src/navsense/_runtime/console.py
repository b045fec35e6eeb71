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


class _Terminated(BaseException):
    """SIGTERM while the command line loads."""


def _terminated(signum, frame) -> None:
    raise _Terminated()


def _stop_line(exc: BaseException) -> tuple[str, int] | None:
    """The line and exit code of a Ctrl-C or SIGTERM behind ``exc`` (an import may wrap it)."""
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        e = todo.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        if isinstance(e, KeyboardInterrupt):
            return "navsense: interrupted", 130
        if isinstance(e, _Terminated):
            return "navsense: terminated (SIGTERM)", 143
        todo += [e.__cause__, e.__context__]
    return None


def run() -> None:
    """The console script: :func:`navsense.cli.main`, then the exit."""
    previous = signal.signal(signal.SIGTERM, _terminated)
    try:
        from navsense.cli import main  # after the BLAS setting, which numpy reads once
    except BaseException as exc:
        stop = _stop_line(exc)
        if stop is None:
            raise
        print(stop[0], file=sys.stderr)
        sys.exit(stop[1])
    finally:
        signal.signal(signal.SIGTERM, previous)
    process.exit_process(main())
