"""docs/tutorials/live.md: the page's ``navsense live`` command run as a process (ports chosen by
the system instead of 8765 and 10110, the pseudo-terminal's link and --out in a fresh folder,
--speed 10), its Foxglove WebSocket read as Foxglove does (the foxglove-sdk subprotocol: the
server's info and its advertised channels), the page's Python NMEA client run against its TCP
port, then stopped with SIGINT (Ctrl-C): exit 0 and the run directory written. Loopback only."""

from __future__ import annotations

import json
import re
import shlex
import signal
import subprocess
import sys

import pytest

from userdocs.tutorial_pages import checkout_folder, fenced, page_text, user_env

pytest.importorskip("foxglove")
pytest.importorskip("pynmeagps")
websockets_sync = pytest.importorskip("websockets.sync.client")

PAGE = "live.md"
SUBPROTOCOL = "foxglove.sdk.v1"


def _live_command(tmp_link: str) -> list[str]:
    lines = [
        line
        for block in fenced(page_text(PAGE), "sh")
        for line in block.splitlines()
        if line.startswith("navsense live")
    ]
    (line,) = lines
    words = shlex.split(line)
    words[words.index("--nmea-tcp") + 1] = "0"
    words[words.index("--nmea-pty") + 1] = tmp_link
    return [sys.executable, "-m", "navsense", *words[1:], "--foxglove-port", "0", "--speed", "10"]


def test_the_pages_server_serves_foxglove_and_the_pages_nmea_client_reads_it(tmp_path):
    work = checkout_folder(tmp_path)
    link = str(tmp_path / "gps0")
    proc = subprocess.Popen(
        _live_command(link),
        cwd=work,
        env=user_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    try:
        ports: dict[str, int] = {}
        while len(ports) < 2:
            line = proc.stdout.readline()
            assert line, proc.stderr.read()
            if m := re.search(r"Foxglove WebSocket ws://127\.0\.0\.1:(\d+)", line):
                ports["ws"] = int(m.group(1))
            if m := re.search(r"NMEA over TCP 127\.0\.0\.1:(\d+)", line):
                ports["nmea"] = int(m.group(1))
        with websockets_sync.connect(
            f"ws://127.0.0.1:{ports['ws']}", subprotocols=[SUBPROTOCOL]
        ) as ws:
            assert json.loads(ws.recv(timeout=20))["op"] == "serverInfo"
            advertise = json.loads(ws.recv(timeout=20))
        topics = {c["topic"] for c in advertise["channels"]}
        # what the page tells the user to open in Foxglove's panels
        for topic in ("/oxts/fix", "/gnss/receiver/fix", "/tf", "/tf_static", "/oxts/imu"):
            assert topic in topics
        assert "/navsense/gnss" in topics
        (client,) = fenced(page_text(PAGE), "python")
        assert '("127.0.0.1", 10110)' in client
        client = client.replace("10110", str(ports["nmea"]))
        done = subprocess.run(
            [sys.executable, "-c", client],
            cwd=work,
            env=user_env(),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        gga = [line for line in done.stdout.splitlines() if "quality" in line]
        assert gga and all(" satellites " in line for line in gga)
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, stderr
    assert "navsense live: stopped at t = " in stdout
    assert "navsense: run directory runs/live" in stdout
    assert (work / "runs/live/episode.json").is_file()
