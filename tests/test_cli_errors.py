"""The command line's one error boundary (navsense.cli.main): one line on stderr, exit 2 (130 on
Ctrl-C), the traceback only with --debug."""

import errno
import signal

import pytest

import navsense.cli as cli
from navsense._runtime.process import Terminated
from navsense.cli import main
from navsense.errors import TruthError


def _run(capsys, argv):
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.err.splitlines()


def _fail_with(monkeypatch, exc):
    def boom(args):
        raise exc

    monkeypatch.setattr(cli, "_run_scenarios", boom)


@pytest.mark.parametrize(
    "argv",
    [
        ["simulate", "--agent", "x"],
        ["simulate", "--no-such-option"],
        ["no-such-command"],
        ["simulate", "--format", "xml"],
        ["export"],
        ["campaign"],
        [],
    ],
)
def test_a_bad_command_line_is_one_line_and_exit_2(capsys, argv):
    code, lines = _run(capsys, argv)
    assert code == 2
    assert len(lines) == 1 and "error" in lines[0] and "Traceback" not in lines[0]


def test_an_error_on_purpose_is_one_line(capsys, monkeypatch):
    _fail_with(monkeypatch, TruthError("log.csv line 3: t_s 'x' is not a number"))
    code, lines = _run(capsys, ["scenarios"])
    assert (code, lines) == (2, ["navsense: error: log.csv line 3: t_s 'x' is not a number"])


@pytest.mark.parametrize(
    "exc, line",
    [
        (
            PermissionError(errno.EACCES, "Permission denied", "/ro/run.partial"),
            "navsense: error: /ro/run.partial: Permission denied",
        ),
        (
            OSError(errno.ENOSPC, "No space left on device"),
            "navsense: error: No space left on device",
        ),
        (
            OSError(errno.EXDEV, "Invalid cross-device link", "a.partial", None, "a"),
            "navsense: error: a.partial -> a: Invalid cross-device link",
        ),
        (
            MemoryError(),
            "navsense: error: out of memory: the input asks for more than this machine has",
        ),
    ],
)
def test_a_system_error_names_the_path_on_one_line(capsys, monkeypatch, exc, line):
    _fail_with(monkeypatch, exc)
    assert _run(capsys, ["scenarios"]) == (2, [line])


def test_a_bug_is_one_line_asking_for_a_report_and_debug_shows_the_traceback(capsys, monkeypatch):
    _fail_with(monkeypatch, ZeroDivisionError("float division by zero\nsecond line"))
    code, lines = _run(capsys, ["scenarios"])
    assert code == 2
    assert lines == [
        "navsense: internal error: ZeroDivisionError: float division by zero second line "
        "(please report; --debug shows the traceback)"
    ]
    code, lines = _run(capsys, ["--debug", "scenarios"])
    assert code == 2
    assert lines[0].startswith("Traceback") and "boom" in "\n".join(lines)
    assert lines[-1].startswith("navsense: internal error: ZeroDivisionError")


def test_ctrl_c_is_one_line_and_exit_130(capsys, monkeypatch):
    _fail_with(monkeypatch, KeyboardInterrupt())
    assert _run(capsys, ["scenarios"]) == (130, ["navsense: interrupted"])


def _wrapped(stop: BaseException) -> ImportError:
    """pybind11's error for a module whose import was interrupted (found by Ctrl-C during
    ``navsense truth`` of a route: scipy.optimize's first import)."""
    try:
        try:
            raise stop
        except BaseException as inner:
            raise ImportError("initialization failed") from inner
    except ImportError as exc:
        return exc


@pytest.mark.parametrize(
    "stop, result",
    [
        (KeyboardInterrupt(), (130, ["navsense: interrupted"])),
        (Terminated(), (143, ["navsense: terminated (SIGTERM)"])),
        (Terminated(signal.SIGHUP), (129, ["navsense: terminated (SIGHUP)"])),
    ],
)
def test_ctrl_c_or_sigterm_inside_a_library_error_is_still_a_stop(
    capsys, monkeypatch, stop, result
):
    _fail_with(monkeypatch, _wrapped(stop))
    assert _run(capsys, ["scenarios"]) == result
    wrapped_twice = RuntimeError("while loading")
    wrapped_twice.__context__ = _wrapped(stop)
    _fail_with(monkeypatch, wrapped_twice)
    assert _run(capsys, ["scenarios"]) == result


def test_an_error_without_a_stop_behind_it_stays_an_error(capsys, monkeypatch):
    exc = ImportError("initialization failed")
    exc.__context__ = ValueError("x")
    exc.__context__.__context__ = exc  # a cycle ends the search
    _fail_with(monkeypatch, exc)
    code, lines = _run(capsys, ["scenarios"])
    assert code == 2 and lines[0].startswith("navsense: internal error: ImportError")


def test_a_huge_message_is_cut_to_one_readable_line(capsys, monkeypatch):
    _fail_with(monkeypatch, TruthError("value " + "9" * 100_000))
    code, lines = _run(capsys, ["scenarios"])
    assert code == 2 and len(lines) == 1 and len(lines[0]) <= 2000


@pytest.mark.parametrize(
    ("argv", "prog"),
    [
        (["simulate", "--no-such-option"], "navsense simulate"),
        (["live", "--durtion", "5"], "navsense live"),
        (["campaign", "summary", "DIR", "--bogus"], "navsense campaign summary"),
        (["export", "mcap", "RUN", "--bogus"], "navsense export mcap"),
        (["--bogus"], "navsense"),
    ],
)
def test_an_unknown_argument_points_at_its_commands_help(capsys, argv, prog):
    """The line names the help of the command that did not know the argument (issue 32: it
    said 'see navsense --help' for any sub-command)."""
    code, lines = _run(capsys, argv)
    assert code == 2 and len(lines) == 1
    assert lines[0].startswith(f"{prog}: error: unrecognized arguments: ")
    assert lines[0].endswith(f"(see {prog} --help)")


def test_an_unknown_site_for_a_track_says_that_without_site_it_runs_where_recorded(
    capsys, tmp_path
):
    track = tmp_path / "t.csv"
    track.write_text("x_m,y_m,z_m,t_s\n" + "".join(f"{400 + i},300,0,{i}\n" for i in range(10)))
    code, lines = _run(capsys, ["simulate", "--track", str(track), "--site", "munich"])
    assert code == 2 and len(lines) == 1
    assert "'munich' is not an embedded site; known: acre" in lines[0]
    assert lines[0].endswith(
        "without --site a track runs where it was recorded (a local site at its first point)"
    )


@pytest.mark.parametrize(
    "value, words",
    [
        (
            '[{"order": -1, "accel_mps2": [0, 0, 1]}]',
            "imu.vibration.engine_orders[0].order = -1 is not an engine order 0 < n <= 64",
        ),
        (
            '[{"order": 2, "accel_mps2": "loud"}]',
            'imu.vibration.engine_orders[0].accel_mps2 = "loud" is not an array of 3 amplitudes',
        ),
    ],
)
def test_a_bad_engine_order_is_one_line_and_exit_2(capsys, tmp_path, value, words):
    """issue 30 item 2: a bad imu.vibration.engine_orders names the key, the value and what is
    allowed, on one line, exit 2, and no run directory."""
    out = tmp_path / "run"
    argv = ["simulate", "--scenario", "acre-loop", "--duration", "1", "--out", str(out)]
    code, lines = _run(capsys, [*argv, "--set", f"imu.vibration.engine_orders={value}"])
    assert code == 2 and len(lines) == 1 and words in lines[0], lines
    assert not out.exists()
