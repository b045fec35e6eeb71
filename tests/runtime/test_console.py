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


def test_report_and_export_end_without_teardown_with_their_files_complete(tmp_path):
    """``navsense report`` and ``navsense export mcap`` also skip the teardown: the report's
    page, PNGs and statistics and the bag are complete when the process has ended (the page
    ends with its closing tag, every PNG with its IEND chunk, the bag reads to its summary)."""
    import json

    from mcap.reader import make_reader

    run = tmp_path / "run"
    made = subprocess.run(
        [sys.executable, "-m", "navsense", "simulate", "--duration", "20", "--out", str(run)],
        capture_output=True,
        text=True,
    )
    assert made.returncode == 0, made.stderr
    # an atexit handler is part of the teardown: it does not run
    probe = (
        "import atexit, sys; atexit.register(print, 'teardown ran'); "
        f"sys.argv = ['navsense', 'report', {str(run)!r}]; "
        "from navsense._runtime.console import run; run()"
    )
    report = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert report.returncode == 0, report.stderr
    assert "navsense: report" in report.stdout and "teardown ran" not in report.stdout
    page = (run / "report" / "report.html").read_text(encoding="utf-8")
    assert page.rstrip().endswith("</html>")
    pngs = sorted((run / "report").glob("*.png"))
    assert len(pngs) >= 5
    assert all(p.read_bytes().endswith(b"IEND\xaeB`\x82") for p in pngs)
    assert json.loads((run / "report" / "statistics.json").read_bytes())["duration_s"] > 0
    bag = tmp_path / "run.mcap"
    export = subprocess.run(
        [sys.executable, "-m", "navsense", "export", "mcap", str(run), "--out", str(bag)],
        capture_output=True,
        text=True,
    )
    assert export.returncode == 0, export.stderr
    assert "navsense: ROS 2 bag" in export.stdout
    with bag.open("rb") as f:
        reader = make_reader(f)
        summary = reader.get_summary()
        assert summary is not None and summary.statistics.message_count > 0
        assert sum(1 for _ in reader.iter_messages()) == summary.statistics.message_count


_STOP_WHILE_LOADING = """
import os, signal, sys
class Stop:
    def find_spec(self, name, path=None, target=None):
        if name == "navsense.cli":  # the signal arrives while the command line loads
            {how}
sys.meta_path.insert(0, Stop())
from navsense._runtime.console import run
run()
"""


@pytest.mark.parametrize(
    "how, code, line",
    [
        ("raise KeyboardInterrupt", 130, "navsense: interrupted"),
        ("os.kill(os.getpid(), signal.SIGTERM)", 143, "navsense: terminated (SIGTERM)"),
        ("raise ImportError('initialization failed') from KeyboardInterrupt()", 130, None),
    ],
)
def test_ctrl_c_or_sigterm_while_the_command_line_loads_is_one_line(how, code, line):
    """Found by the fuzz suite's interrupted commands: Ctrl-C in the first second of a command
    (before navsense.cli.main's boundary) printed the import's traceback; SIGTERM killed the
    process without a word."""
    probe = _STOP_WHILE_LOADING.format(how=how)
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == code, done.stderr
    assert done.stderr.splitlines() == [line or "navsense: interrupted"], done.stderr


_STOP_WHILE_A_COMPILED_MODULE_LOADS = """
import os, signal, sys
class Stop:
    def find_spec(self, name, path=None, target=None):
        if name == "orjson.orjson":  # orjson's compiled module, loaded by navsense.cli
            held = signal.pthread_sigmask(signal.SIG_BLOCK, [])
            print(sorted(int(s) for s in held & {signal.SIGINT, signal.SIGTERM}))
            os.kill(os.getpid(), signal.SIG{name})
sys.meta_path.insert(0, Stop())
from navsense._runtime.console import run
run()
"""


@pytest.mark.skipif(not hasattr(__import__("signal"), "pthread_sigmask"), reason="no signal masks")
@pytest.mark.parametrize("name, code", [("INT", 130), ("TERM", 143)])
def test_a_stop_waits_until_the_compiled_modules_have_loaded(name, code):
    """Found by CI's fuzz suite (interrupted commands): Ctrl-C 30-50 ms after the start, while
    orjson's compiled module initialised, ended the process with SIGSEGV (exit -11, nothing
    printed) about once in thirty tries. The command line's modules now load with SIGINT and
    SIGTERM held back; the stop then ends the command with its one line."""
    import signal

    probe = _STOP_WHILE_A_COMPILED_MODULE_LOADS.replace("{name}", name)
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.stdout.splitlines() == [str(sorted([int(signal.SIGINT), int(signal.SIGTERM)]))]
    assert (done.returncode, len(done.stderr.splitlines())) == (code, 1), done.stderr


_INTERRUPTED_IN_EXEC_TEXT = {
    # Ctrl-C inside the text that collections.namedtuple or dataclasses exec, in an import
    "while the command line loads": _STOP_WHILE_LOADING.format(
        how='exec("raise KeyboardInterrupt")'
    ),
    "during a command": (
        "import sys\n"
        "import navsense.commands.config as command\n"
        "command.run = lambda args: exec('raise KeyboardInterrupt')\n"
        "sys.argv = ['navsense', 'config', 'show']\n"
        "from navsense._runtime.console import run\n"
        "run()\n"
    ),
}


@pytest.mark.parametrize("when", sorted(_INTERRUPTED_IN_EXEC_TEXT))
def test_ctrl_c_inside_exec_text_still_exits_130(tmp_path, when):
    """Found by the fuzz suite's interrupted commands (CI, ``python -m navsense``): the line was
    printed, then the process ended by SIGINT (status -2): CPython 3.11's ``Py_RunMain`` ends a
    process with SIGINT after its teardown once a KeyboardInterrupt has left text run by
    ``exec``/``eval``, which the command had handled. A stop now ends with ``os._exit``."""
    package = tmp_path / "interrupted"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "__main__.py").write_text(_INTERRUPTED_IN_EXEC_TEXT[when])
    done = subprocess.run(
        [sys.executable, "-m", "interrupted"], cwd=tmp_path, capture_output=True, text=True
    )
    assert (done.returncode, done.stderr.splitlines()) == (130, ["navsense: interrupted"])
