"""The ``navsense`` console script (and ``python -m navsense``): process settings, then the CLI.

The command line's numeric work is elementwise numpy, never a large matrix product, so it runs
one BLAS thread: OpenBLAS's pool (numpy's and scipy's wheels) otherwise spins for about 0.13 s
of CPU after numpy's import, on the cores the models need. OpenBLAS reads the variable when numpy
loads it, so it is set here, before :mod:`navsense.cli` imports numpy; a value the user has set
wins. A library import of navsense changes no process setting.
"""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from navsense.cli import run

__all__ = ["run"]
