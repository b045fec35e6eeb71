"""The command line's process settings: one OpenBLAS thread unless the user says otherwise."""

import os
import subprocess
import sys

import pytest

_PROBE = "import navsense.cli, numpy, os; print(os.environ['OPENBLAS_NUM_THREADS'])"


@pytest.mark.parametrize("given, expected", [(None, "1"), ("3", "3")])
def test_the_cli_sets_one_blas_thread_before_numpy_and_a_users_value_wins(given, expected):
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if given is not None:
        env["OPENBLAS_NUM_THREADS"] = given
    out = subprocess.run([sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == expected


def test_numpy_is_not_imported_before_the_setting():
    """The variable is read once, when numpy loads OpenBLAS: nothing before it may import numpy."""
    probe = "import sys, navsense; print('numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
