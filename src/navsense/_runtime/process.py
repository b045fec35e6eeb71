"""Process-wide settings of the ``navsense`` command: one BLAS thread, and its exit.

BLAS. The command line's numeric work is elementwise numpy, never a large matrix product, so it
runs one BLAS thread: OpenBLAS's pool (numpy's and scipy's wheels) otherwise spins for about
0.13 s of CPU after numpy's import, on the cores the models need. OpenBLAS reads the variable
when numpy loads it, so :func:`one_blas_thread` runs before anything imports numpy
(:mod:`navsense._runtime.console`); a value the user has set wins.

The exit. Once a command has closed every file it wrote and joined every worker, the process may
end without the interpreter's teardown (freeing numpy's and pyarrow's modules: 40 to 50 ms, a
sixth of a short run), which has nothing left to do for it: the command calls
:func:`teardown_not_needed`, and :func:`exit_process` then ends the process with ``os._exit``.

Only the console script applies these; importing the library changes no process setting.
"""

from __future__ import annotations

import os
import sys

__all__ = ["one_blas_thread", "teardown_not_needed", "exit_process"]

_SKIP_TEARDOWN = False


def one_blas_thread() -> None:
    """OPENBLAS_NUM_THREADS = 1 unless the user has set it (before numpy is imported)."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def teardown_not_needed() -> None:
    """Every file of the command is closed and every worker joined: :func:`exit_process` may skip the
    interpreter's teardown."""
    global _SKIP_TEARDOWN
    _SKIP_TEARDOWN = True


def exit_process(code: int) -> None:
    """End the process with ``code``: without the interpreter's teardown after
    :func:`teardown_not_needed`, else as ``sys.exit``."""
    if not _SKIP_TEARDOWN:
        sys.exit(code)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):  # a reader that has gone, or a closed stream
        code = code or 120  # as Python's own exit after a failed flush
    os._exit(code)
