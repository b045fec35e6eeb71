"""The ``navsense`` console script (and ``python -m navsense``): process settings, then the CLI.

One BLAS thread is set before :mod:`navsense.cli` imports numpy, and the process ends without
the interpreter's teardown after a command that allows it (:mod:`navsense._runtime.process`).
"""

from navsense._runtime import process

process.one_blas_thread()

from navsense.cli import main  # noqa: E402  (after the BLAS setting, which numpy reads once)

__all__ = ["run"]


def run() -> None:
    """The console script: :func:`navsense.cli.main`, then the exit."""
    process.exit_process(main())
