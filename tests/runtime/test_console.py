"""The console script's process settings (navsense._runtime.console): one OpenBLAS thread unless the user
says otherwise, and an exit without teardown."""

import os
import subprocess
import sys

import pytest

_PROBE = "import navsense._runtime.console, numpy, os; print(os.environ['OPENBLAS_NUM_THREADS'])"


@pytest.mark.parametrize("given, expected", [(None, "1"), ("3", "3")])
def test_the_cli_sets_one_blas_thread_before_numpy_and_a_users_value_wins(given, expected):
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if given is not None:
        env["OPENBLAS_NUM_THREADS"] = given
    out = subprocess.run(
        [sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == expected


def test_numpy_is_not_imported_before_the_setting_and_the_library_sets_nothing():
    """The variable is read once, when numpy loads OpenBLAS: nothing before it may import numpy;
    importing the library (navsense.cli included) leaves the environment alone."""
    probe = "import sys, navsense; print('numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    probe = "import os, navsense.cli; print(os.environ.get('OPENBLAS_NUM_THREADS'))"
    out = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "None"


def test_the_console_script_prints_writes_and_exits_like_main(tmp_path):
    """``python -m navsense simulate`` ends without the interpreter's teardown: its summary is
    still printed, its files complete, its exit code main's; a failing command exits as usual."""
    import json

    out = tmp_path / "run"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "navsense",
            "simulate",
            "--scenario",
            "acre-loop",
            "--out",
            str(out),
            "--no-gnss",
            "--no-imu",
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert "navsense: run directory" in done.stdout
    assert json.loads((out / "episode.json").read_text())["steps"] > 0
    lines = (out / "ins.jsonl").read_bytes().splitlines()
    assert lines and all(json.loads(line) for line in lines[-3:])
    failed = subprocess.run(
        [
            sys.executable,
            "-m",
            "navsense",
            "simulate",
            "--truth",
            str(tmp_path / "missing.csv"),
            "--out",
            str(tmp_path / "no"),
        ],
        capture_output=True,
        text=True,
    )
    assert failed.returncode == 2 and "no such truth log" in failed.stderr
