"""Fuzz: command-line options of every command with values at the edges, and a few real
subprocesses (the console script's own exit path)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from fuzz.fuzz_helpers import (
    check_outcome,
    check_run_directory,
    fuzz_settings,
    nasty_token,
    run_cli,
    scratch,
    tree,
)

SIMULATE_OPTIONS = [
    "--seed",
    "--delay",
    "--gnss-hz",
    "--imu-hz",
    "--gnss-start",
    "--gnss-frame",
    "--gnss-baseline-km",
    "--gnss-outage",
    "--agent",
    "--chunk-steps",
    "--format",
    "--workers",
    "--vehicle",
    "--site",
    "--scenario",
    "--smoothing-m",
    "--bank",
    "--physics-hz",
    "--duration",
    "--receiver",
    "--gnss-orbits",
    "--gnss-systems",
    "--nmea-sentences",
    "--buildings",
    "--corrections-outage",
    "--gnss-signal-outage",
]
EDGE_VALUES = [
    "1e-300",
    "1e300",
    "-1e300",
    "5e-324",
    "0",
    "-0",
    "-1",
    "1e12",
    "4294967297",
    "1:2",
    "-1e300:1e300",
    "0:0",
    "5:1",
    "nan:1",
    "1e17:1e18",
    "acre",
    "acre-loop",
    "polaris",
    "50",
    "2000",
    "2001",
    "49.999",
    "1000",
    "gps,gps",
    "GPS,glonass,galileo,beidou,qzss",
    ",",
    "GGA,GGA,RMC",
    "gga,XYZ",
    "rtk",
    "phone",
]


@fuzz_settings(share=2.0)
@given(
    option=st.sampled_from(SIMULATE_OPTIONS),
    value=st.one_of(nasty_token(), st.sampled_from(EDGE_VALUES)),
    twice=st.booleans(),
)
def test_a_simulate_option_at_the_edges(bases, option, value, twice):
    with scratch() as folder:
        (folder / "truth.csv").write_bytes(bases["truth.csv"].read_bytes())
        source = ["--truth", "truth.csv"] if option not in ("--scenario",) else []
        argv = ["simulate", *source, "--out", "out", "--quiet", option, value]
        if twice:
            argv += [option, value]
        if option == "--workers" or "--workers" not in argv:
            argv += [] if option == "--workers" else ["--workers", "threads"]
        if option == "--scenario":  # an embedded scenario takes 600 s: only its errors here
            argv += ["--no-gnss", "--no-ins", "--no-imu"]
        before = tree(folder)
        outcome = run_cli(argv, folder)
        after = tree(folder)
        check_outcome(outcome, before, after, may_create=("out",))
        if outcome.code == 0:
            check_run_directory(folder / "out")


@fuzz_settings()
@given(
    words=st.lists(
        st.one_of(
            st.sampled_from(
                [
                    "simulate",
                    "scenarios",
                    "config",
                    "show",
                    "keys",
                    "geo",
                    "export",
                    "mcap",
                    "report",
                    "truth",
                    "campaign",
                    "run",
                    "summary",
                    "rerun",
                    "score",
                    "allan",
                    "--out",
                    "--help",
                    "--version",
                    "--debug",
                    "--from",
                    "enu",
                    "--enu",
                    "--lat",
                    "--zone",
                    "--truth",
                    "--track",
                    "-",
                    "--",
                    "--=",
                ]
            ),
            nasty_token(),
        ),
        max_size=6,
    )
)
def test_any_command_line_ends_in_one_line_or_works(bases, words):
    """Random words: a usage error (one line), a command's own error, or its output."""
    if "simulate" in words and "--truth" not in words and "--track" not in words:
        words = [*words, "--no-gnss", "--no-imu", "--no-ins"]  # no 600 s scenario runs here
    with scratch() as folder:
        before = tree(folder)
        outcome = run_cli(words, folder)
        after = tree(folder)
        assert outcome.escaped is None, outcome.describe()
        if outcome.code == 0:
            return  # --help, --version, a listing, a conversion: fine
        check_outcome(outcome, before, after, allow_codes=(2,))


def test_geo_points_at_the_edges(bases):
    """One point per call: the poles, the antimeridian, far from the zone, huge heights."""
    cases = [
        ["--from", "wgs84", "--lat", "90", "--lon", "0", "--h", "0"],
        ["--from", "wgs84", "--lat", "-90", "--lon", "180", "--h", "0"],
        ["--from", "wgs84", "--lat", "40", "--lon", "-180.0000001", "--h", "0"],
        ["--from", "wgs84", "--lat", "91", "--lon", "0", "--h", "0"],
        ["--from", "wgs84", "--lat", "40", "--lon", "-87", "--h", "1e300"],
        ["--from", "wgs84", "--lat", "nan", "--lon", "-87", "--h", "0"],
        ["--from", "enu", "--enu", "1e7", "0", "0"],
        ["--from", "enu", "--enu", "1e300", "0", "0"],
        ["--from", "utm", "--easting", "1e300", "--northing", "0", "--zone", "16"],
        ["--from", "utm", "--easting", "500000", "--northing", "4e6", "--zone", "61"],
        ["--from", "enu", "--enu", "0", "0", "0", "--origin", "90", "0", "0"],
        ["--from", "enu", "--enu", "0", "0", "0", "--utc", "9999-12-31T23:59:59Z"],
        ["--from", "enu", "--enu", "0", "0", "0", "--epoch-s", "1e300"],
        ["--from", "stateplane_ft", "--easting", "-1e9", "--northing", "0", "--z-ft", "0"],
    ]
    for args in cases:
        with scratch() as folder:
            outcome = run_cli(["geo", *args], folder)
            check_outcome(outcome, {}, tree(folder))
            if outcome.code == 0:
                assert "NaN" not in outcome.out and "Infinity" not in outcome.out, outcome.out


# ------------------------------------------------------------------- real subprocesses
SRC = str(Path(__file__).resolve().parents[2] / "src")


def _subprocess(args, cwd):
    env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run(
        [sys.executable, "-m", "navsense", *map(str, args)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_real_processes_end_in_one_line_with_exit_2(bases):
    """The console script (its own exit path, warnings on the real stderr) for a few inputs of
    each kind; the in-process suite above covers the many."""
    with scratch() as folder:
        (folder / "bad.csv").write_bytes(bases["truth.csv"].read_bytes()[:3000] + b"\xff\n")
        (folder / "far.csv").write_text(
            bases["truth.csv"].read_text().replace(",430,", ",1e300,", 1)
        )
        (folder / "deep.json").write_text("[" * 100_000)
        (folder / "utf16.json").write_text('{"gnss": {"hz": 5}}', encoding="utf-16")
        (folder / "route.json").write_text(
            '{"points": [{"enu_m": [0, 0, 0]}, {"enu_m": [10, 0, 0], "speed_mps": 1e-9}]}'
        )
        cases = [
            ["simulate", "--truth", "bad.csv", "--out", "o1"],
            ["simulate", "--truth", "far.csv", "--out", "o2"],
            ["simulate", "--truth", "bad.csv", "--config", "deep.json", "--out", "o3"],
            ["simulate", "--truth", "bad.csv", "--site", "deep.json", "--out", "o4"],
            ["config", "show", "--config", "utf16.json"],
            ["truth", "--track", "route.json", "--out", "t.parquet"],
            ["simulate", "--gnss-outage", "-1e300:1e300", "--out", "o5", "--agent", "-2"],
            ["report", "nowhere"],
            ["campaign", "summary", "nowhere"],
            ["export", "mcap", "deep.json"],
        ]
        before = tree(folder)
        for args in cases:
            done = _subprocess(args, folder)
            lines = done.stderr.splitlines()
            assert done.returncode == 2 and len(lines) == 1, (args, done.stderr)
            assert lines[0].startswith("navsense") and "error" in lines[0], (args, done.stderr)
            assert "internal error" not in lines[0], (args, done.stderr)
        assert tree(folder) == before
        done = _subprocess(
            ["simulate", "--truth", bases["truth.csv"], "--out", "ok", "--quiet"], folder
        )
        assert done.returncode == 0 and done.stderr == "", done.stderr
        check_run_directory(folder / "ok")


# ------------------------------------------------------------------------- campaign run
@fuzz_settings(share=0.5)
@given(
    option=st.sampled_from(["--workers", "--scheduler"]),
    value=st.one_of(
        st.sampled_from(["-1", "1025", "1000000", "99999999999", "2e3", "", "x", "-0x1"]),
        st.sampled_from(["x", "tcp://", "tcp://[::1", "inproc://x", "\x00", "tcp://h:port"]),
        st.integers(min_value=1025, max_value=2**70).map(str),
        st.integers(max_value=-1, min_value=-(2**70)).map(str),
    ),
)
def test_a_campaign_run_option_at_the_edges(bases, option, value):
    """``--workers`` beyond 0..1024 (a million started as many processes) and a scheduler
    address that is no address: refused before any process starts or folder is made."""
    with scratch() as folder:
        (folder / "truth.csv").write_bytes(bases["truth.csv"].read_bytes())
        (folder / "c.json").write_text('{"seeds": [1], "sources": [{"truth": "truth.csv"}]}')
        before = tree(folder)
        argv = ["campaign", "run", "c.json", "--out", "o/d", "--quiet", option, value]
        outcome = run_cli(argv, folder)
        check_outcome(outcome, before, tree(folder), must_fail=True)


# ------------------------------------------------------------------ interrupted commands
@fuzz_settings(share=0.25)
@given(
    command=st.sampled_from(["simulate", "simulate-parquet-mcap", "truth", "export", "campaign"]),
    sig=st.sampled_from([signal.SIGINT, signal.SIGTERM, signal.SIGHUP]),
    delay=st.floats(0.05, 4.0),
)
def test_an_interrupted_command_leaves_nothing_that_looks_complete(bases, command, sig, delay):
    """Ctrl-C, SIGTERM or SIGHUP at any moment of a real process: exit 130, 143 or 129 with one
    line and the
    folder as it was, or (the command had ended) complete output. Found: Ctrl-C
    during the first import of scipy.optimize became pybind11's "ImportError: initialization
    failed" (an internal error); Ctrl-C while the command line's modules loaded, a traceback."""
    with scratch() as folder:
        for name in ("truth.csv", "route.json", "campaign.json"):
            (folder / name).write_bytes(bases[name].read_bytes())
        shutil.copytree(bases["run"], folder / "run")
        argv = {
            "simulate": ["simulate", "--truth", "truth.csv", "--out", "out", "--quiet"],
            "simulate-parquet-mcap": [
                *("simulate", "--scenario", "acre-loop", "--duration", "60", "--out", "out"),
                *("--format", "parquet", "--mcap", "--quiet"),
            ],
            "truth": ["truth", "--track", "route.json", "--out", "out.csv"],
            "export": ["export", "mcap", "run", "--out", "out.mcap"],
            "campaign": [
                *("campaign", "run", "campaign.json", "--out", "out", "--workers", "0", "--quiet")
            ],
        }[command]
        before = tree(folder)
        env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
        proc = subprocess.Popen(
            [sys.executable, "-m", "navsense", *argv],
            cwd=folder,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            # the signal's default action in the child, whatever the test inherited (under
            # nohup SIGHUP is ignored, and navsense leaves an ignored SIGHUP ignored)
            preexec_fn=lambda: signal.signal(sig, signal.SIG_DFL),
        )
        time.sleep(delay)
        proc.send_signal(sig)
        try:
            _, err = proc.communicate(timeout=120)
        finally:
            proc.kill()
        after = tree(folder)
        # exit 0, or the signal's own exit after the command had ended (in the interpreter's
        # teardown): complete outputs
        if after != before and (proc.returncode == 0 or (proc.returncode == -sig and not err)):
            new = {k.split(os.sep)[0] for k in after if k not in before}
            assert new <= {"out", "out.csv", "out.truth.json", "out.mcap"}, (argv, err, new)
            assert not [k for k in after if ".partial" in k or k.endswith(".tmp")], sorted(after)
            if command.startswith("simulate"):
                check_run_directory(folder / "out")
            return
        if command == "campaign" and after != before:  # stopped after some runs: resumable
            from navsense.campaign.runner import read_result

            results = sorted((folder / "out" / "results").glob("*.json"))
            assert results and all(read_result(r) for r in results), sorted(after)
            assert not [k for k in after if k.endswith(".tmp")], sorted(after)
            after = {k: v for k, v in after.items() if k.split(os.sep)[0] != "out"}
        assert after == before, (argv, delay, proc.returncode, sorted(set(after) ^ set(before)))
        if proc.returncode == -sig and not err:
            return  # stopped before the interpreter had started
        if "Traceback" in err and SRC not in err:
            return  # Ctrl-C inside the interpreter's own start (runpy), before navsense's code
        stop, code = {
            signal.SIGINT: ("navsense: interrupted", 130),
            signal.SIGTERM: ("navsense: terminated (SIGTERM)", 143),
            signal.SIGHUP: ("navsense: terminated (SIGHUP)", 129),
        }[sig]
        assert err.splitlines() == [stop], (argv, delay, err)
        assert proc.returncode == code, (argv, err)
