"""``navsense live`` as a user runs it: a process serving NMEA over TCP, stopped by Ctrl-C."""

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time

import pytest

pytest.importorskip("foxglove")

from navsense.cli import main


def _src_env() -> dict:
    env = dict(os.environ)
    import navsense

    src = os.path.dirname(os.path.dirname(navsense.__file__))
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    return env


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_stops_the_run_cleanly_and_writes_the_run_directory(tmp_path, sig):
    out = tmp_path / "run"
    link = tmp_path / "gps0"
    proc = subprocess.Popen(
        [sys.executable, "-m", "navsense", "live", "--speed", "10", "--foxglove-port", "0"]
        + ["--nmea-tcp", "0", "--nmea-pty", str(link), "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_src_env(),
    )
    try:
        port = None
        lines = []
        while port is None:
            line = proc.stdout.readline()
            assert line, proc.stderr.read()
            lines.append(line)
            m = re.search(r"NMEA over TCP 127\.0\.0\.1:(\d+)", line)
            port = int(m.group(1)) if m else None
        assert re.search(
            # 9 ROS 2 topics (the Polaris's INS topics, /tf_static, the receiver's fix, the raw
            # IMU) and the rows of gnss, imu, ins
            r"Foxglove WebSocket ws://127\.0\.0\.1:\d+ \(12 channels\)",
            "".join(lines),
        )
        assert proc.stdout.readline().startswith("navsense live: NMEA on the pseudo-terminal /dev/")
        assert os.path.islink(link)
        received = bytearray()
        with socket.create_connection(("127.0.0.1", port), timeout=30) as client:
            while received.count(b"\r\n") < 15:  # 1.5 s of the run at 10 Hz, 0.15 s at 10x
                received += client.recv(4096)
            proc.send_signal(sig)
            while chunk := client.recv(4096):  # the server closes the connection
                received += chunk
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, stderr
    assert "navsense live: stopped at t = " in stdout and "navsense: run directory" in stdout
    assert not os.path.lexists(link)
    # the run directory covers the steps served; the client's sentences are a stretch of it
    steps = json.loads((out / "episode.json").read_text())["steps"]
    assert 0 < steps < 72_000
    nmea = (out / "gnss.nmea").read_bytes().split(b"\r\n")
    got = bytes(received).split(b"\r\n")
    assert got[-1] == b"" and len(got) > 15
    start = nmea.index(got[0])
    assert nmea[start : start + len(got)] == got


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--speed", "0"], "--speed 0.0 must be a positive number"),
        (["--speed", "nan"], "--speed nan must be a positive number"),
        (["--format", "parquet"], "--format, --save-truth and --mcap are about the run directory"),
        (["--nmea-tcp", "70000"], "--nmea-tcp 70000 is not a port number"),
        # a --host that does not resolve was blamed on the port: '--nmea-tcp 0: cannot listen
        # on a b:0 (...); choose another port' (the fuzz helper's finding)
        (
            ["--no-foxglove", "--nmea-tcp", "0", "--host", "a b"],
            "navsense: error: --host 'a b': not an address or a host name that resolves (",
        ),
        (["--host", "a b"], "give an address of this machine, such as 127.0.0.1 or 0.0.0.0"),
    ],
)
def test_bad_options_are_one_line(argv, message, capsys):
    assert main(["live", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_a_run_time_outside_the_foxglove_servers_clock_is_one_line(capsys):
    """live with gnss.datum.start_utc = 1900-01-01T00:00:00Z ended in 'OverflowError: can't
    convert negative int to unsigned' (the Foxglove server's stamps) as an internal error;
    found by the fuzz helper. Now one line before anything is served."""
    argv = ["live", "--scenario", "acre-loop", "--duration", "0.5", "--foxglove-port", "0"]
    assert main([*argv, "--set", "gnss.datum.start_utc=1900-01-01T00:00:00Z"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(
        "navsense: error: the Foxglove server (--no-foxglove serves without it): the run's time, "
        "gnss.datum.start_utc = 1900-01-01T00:00:00Z, is outside the bag's clock"
    ), err


def test_a_port_in_use_is_named(capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        t0 = time.monotonic()
        assert main(["live", "--no-foxglove", "--nmea-tcp", str(port), "--quiet"]) == 2
        assert time.monotonic() - t0 < 30
    err = capsys.readouterr().err
    assert f"--nmea-tcp {port}" in err


def test_a_foxglove_port_in_use_is_named(capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["live", "--foxglove-port", str(port), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert f"--foxglove-port {port}: cannot serve on 127.0.0.1:{port}" in err


def test_live_duration_cuts_the_source_as_simulate_does(tmp_path, capsys):
    """live --duration (issue 32: unrecognized; the truth-source options are simulate's): the
    run directory holds the first S seconds, as simulate --duration writes them."""
    argv = ["--duration", "2", "--no-foxglove", "--quiet", "--speed", "1000", "--out"]
    assert main(["live", *argv, str(tmp_path / "live")]) == 0
    assert main(["simulate", "--duration", "2", "--quiet", "--out", str(tmp_path / "sim")]) == 0
    live, sim = (json.loads((tmp_path / d / "episode.json").read_text()) for d in ("live", "sim"))
    assert live["steps"] == sim["steps"] == 241 and live["source"] == sim["source"]
    for name in ("gnss.jsonl", "imu.jsonl", "ins.jsonl"):
        assert (tmp_path / "live" / name).read_bytes() == (tmp_path / "sim" / name).read_bytes()
