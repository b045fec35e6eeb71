"""navsense live through its Python API: a paced run served over Foxglove WebSocket (the
foxglove-sdk subprotocol, spoken here by the websockets package), NMEA over TCP and a
pseudo-terminal; what the clients receive is compared with the run directory the same run wrote
and with the ROS 2 bag exported from it. Loopback only, ports chosen by the system."""

import json
import os
import socket
import struct
import subprocess
import threading
import time

import pytest

pytest.importorskip("foxglove")
websockets_sync = pytest.importorskip("websockets.sync.client")
pynmeagps = pytest.importorskip("pynmeagps")

from mcap.reader import make_reader  # noqa: E402

from navsense.config import load_config  # noqa: E402
from navsense.live.pacing import Pacer, serve_paced  # noqa: E402
from navsense.live.server import LiveServer  # noqa: E402
from navsense.output.ros2 import msgdef  # noqa: E402
from navsense.runs.export_mcap import write_mcap  # noqa: E402
from navsense.scenarios import load_scenario  # noqa: E402

FIRST, STEPS = 3000, 720  # 25 to 31 s of acre-loop (the first GNSS fix at 26.5 s)
SPEED = 10.0  # 0.6 s of wall time
SUBPROTOCOL = "foxglove.sdk.v1"
OP_MESSAGE_DATA, OP_TIME = 1, 2


class WsClient:
    """A Foxglove WebSocket client: the advertised channels, subscribe, and every binary frame
    received with its arrival time (monotonic), until the server closes the connection."""

    def __init__(self, port: int) -> None:
        connection = websockets_sync.connect(f"ws://127.0.0.1:{port}", subprotocols=[SUBPROTOCOL])
        self.ws = connection.__enter__()  # closed by the server (or by close())
        self.info = json.loads(self.ws.recv(timeout=10))
        assert self.info["op"] == "serverInfo"
        advertise = json.loads(self.ws.recv(timeout=10))
        assert advertise["op"] == "advertise"
        self.channels = {c["id"]: c for c in advertise["channels"]}
        self.frames: list[tuple[float, bytes]] = []
        self.closed = threading.Event()

    def subscribe(self, topics=None) -> None:
        subs = [
            {"id": cid, "channelId": cid}
            for cid, c in self.channels.items()
            if topics is None or c["topic"] in topics
        ]
        self.ws.send(json.dumps({"op": "subscribe", "subscriptions": subs}))

    def start_reading(self) -> None:
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            while True:
                frame = self.ws.recv(timeout=60)
                if isinstance(frame, bytes):
                    self.frames.append((time.monotonic(), frame))
        except Exception:  # ConnectionClosed when the server stops
            pass
        finally:
            self.closed.set()

    def messages(self) -> dict[str, list[tuple[float, int, bytes]]]:
        """{topic: [(arrival, log time ns, payload), ...]} in arrival order."""
        out: dict[str, list] = {c["topic"]: [] for c in self.channels.values()}
        for arrival, frame in self.frames:
            if frame[0] == OP_MESSAGE_DATA:
                sub, log_ns = struct.unpack_from("<IQ", frame, 1)
                out[self.channels[sub]["topic"]].append((arrival, log_ns, frame[13:]))
        return out

    def times(self) -> list[int]:
        return [struct.unpack_from("<Q", f, 1)[0] for _, f in self.frames if f[0] == OP_TIME]


class TcpClient:
    """A TCP client reading everything until the server closes."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=60)
        self.data = bytearray()
        self.done = threading.Event()

    def start_reading(self) -> None:
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            while chunk := self.sock.recv(65536):
                self.data += chunk
        finally:
            self.done.set()


def _wait(predicate, timeout=10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.002)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """One paced run with every output and these clients: a WebSocket client subscribed to every
    channel, one that leaves half-way, a TCP client, one that leaves half-way, a pty reader."""
    scenario = load_scenario("acre-loop")
    cfg = load_config(vehicle="polaris", overrides={"mag.enabled": True})
    out = tmp_path_factory.mktemp("live") / "run"
    truth = scenario.truth.slice(FIRST, FIRST + STEPS)
    live = LiveServer(
        cfg,
        scenario.vehicle,
        scenario.site,
        foxglove_port=0,
        nmea_tcp_port=0,
        nmea_pty="",
        out_dir=out,
        source={"scenario": "acre-loop"},
        linger_s=1.0,
    )
    ws = WsClient(live.foxglove.port)
    ws.subscribe()
    leaver = WsClient(live.foxglove.port)
    leaver.subscribe()
    assert live.foxglove.wait_subscribed(live.foxglove.topics, 10)
    tcp = TcpClient(live.nmea_tcp.port)
    tcp_leaver = TcpClient(live.nmea_tcp.port)
    _wait(lambda: live.nmea_tcp.clients == 2)
    pty_fd = os.open(live.nmea_pty.device, os.O_RDONLY | os.O_NOCTTY)
    # the pty's reader is a process of its own (cat, ending at EIO when the server closes its
    # end), as gpsd is: a thread of this one could wait on the models for the GIL while the
    # terminal's 20 KiB and the server's queue of 100 epochs fill (1 s at SPEED 10)
    pty_file = tmp_path_factory.mktemp("pty") / "received"
    with open(pty_file, "wb") as sink:
        pty_reader = subprocess.Popen(["cat"], stdin=pty_fd, stdout=sink)
    for client in (ws, tcp):
        client.start_reading()

    class Leave:  # both leavers go after 2 s of the run
        def __init__(self):
            self.left = False

        def step(self, chunk):
            got = live.step(chunk)
            if not self.left and live.last_t_s >= 2.0:
                leaver.ws.close()
                tcp_leaver.sock.close()
                self.left = True
            return got

    pacer = Pacer(SPEED)
    result = serve_paced(truth, Leave(), pacer=pacer)
    summary = live.close(wait_until=pacer.wait_until)
    assert ws.closed.wait(30) and tcp.done.wait(30)
    pty_reader.wait(30)
    os.close(pty_fd)
    write_mcap(out, gnss_fix=True, raw_imu=True)
    return {
        "live": live,
        "ws": ws,
        "tcp": tcp,
        "pty": pty_file.read_bytes(),
        "out": out,
        "pacer": pacer,
        "result": result,
        "summary": summary,
        "truth": truth,
    }


def _bag(path) -> dict[str, list[tuple[int, bytes]]]:
    with open(path, "rb") as f:
        reader = make_reader(f)
        out: dict[str, list] = {}
        for _, channel, message in reader.iter_messages(log_time_order=True):
            out.setdefault(channel.topic, []).append((message.log_time, message.data))
        return out


def test_the_run_directory_is_written_as_by_simulate(served):
    from navsense.simulate import simulate

    out, truth = served["out"], served["truth"]
    assert served["result"].steps == STEPS and not served["result"].stopped
    assert served["summary"].steps == STEPS
    reference = out.with_name("reference")
    scenario = load_scenario("acre-loop")
    cfg = load_config(vehicle="polaris", overrides={"mag.enabled": True})
    simulate(
        truth, cfg, scenario.vehicle, scenario.site, reference, source={"scenario": "acre-loop"}
    )
    names = sorted(p.name for p in reference.iterdir())
    assert names == ["episode.json", "gnss.jsonl", "gnss.nmea", "imu.jsonl", "ins.frames"] + [
        "ins.jsonl",
        "mag.jsonl",
    ]
    for name in names:
        if name != "episode.json":
            assert (out / name).read_bytes() == (reference / name).read_bytes(), name
    ep, ref = (json.loads((d / "episode.json").read_text()) for d in (out, reference))
    assert ep == ref


def test_the_foxglove_channels_are_the_bags_topics_with_the_same_messages(served):
    ws, out = served["ws"], served["out"]
    bag = _bag(out / "ros2.mcap")
    got = ws.messages()
    ros2 = {c["topic"]: c for c in ws.channels.values() if c["encoding"] == "cdr"}
    assert (
        set(ros2)
        == set(bag)
        == {
            "/tf_static",
            "/vehicle/odom",
            "/oxts/fix",
            "/oxts/imu",
            "/oxts/velocity",
            "/sim/ground_truth/odom",
            "/tf",
            "/gnss/receiver/fix",
            "/imu/raw",
            "/imu/mag",
        }
    )
    with open(out / "ros2.mcap", "rb") as f:
        summary = make_reader(f).get_summary()
    bag_schemas = {c.topic: summary.schemas[c.schema_id].name for c in summary.channels.values()}
    for topic, channel in ros2.items():
        assert channel["schemaEncoding"] == "ros2msg"
        assert channel["schemaName"] == bag_schemas[topic]
        assert channel["schema"] == msgdef(bag_schemas[topic])
        # every message, in order, with the bag's log time and the bag's CDR bytes
        assert [(t, data) for _, t, data in got[topic]] == bag[topic], topic


def test_the_json_channels_have_schemas_named_after_their_rows(served):
    """Each /navsense/<sensor> channel advertises a JSON Schema named navsense.<Sensor>Row (the
    SDK's made-up 'schema-f5wrpOiP' before, issue 32), an object that every row is."""
    json_channels = {
        c["topic"]: c for c in served["ws"].channels.values() if c["encoding"] == "json"
    }
    assert {"/navsense/" + s for s in ("gnss", "imu", "ins", "mag")} <= set(json_channels)
    names = {topic: c["schemaName"] for topic, c in json_channels.items()}
    assert names["/navsense/gnss"] == "navsense.GnssRow"
    assert names["/navsense/imu"] == "navsense.ImuRow"
    assert names["/navsense/ins"] == "navsense.InsRow"
    for topic, channel in json_channels.items():
        assert channel["schemaEncoding"] == "jsonschema"
        schema = json.loads(channel["schema"])
        assert schema["type"] == "object" and schema["title"] == names[topic]


class _RecordingFoxglove:
    """Stands in for the Foxglove server: every channel subscribed once, every message kept."""

    def __init__(self) -> None:
        self.messages: dict[str, list[tuple[int, bytes]]] = {}

    def subscribed(self, topic: str) -> bool:
        return True

    def subscriptions_made(self, topic: str) -> int:
        return 1

    def log(self, topic: str, data: bytes, log_ns: int) -> None:
        self.messages.setdefault(topic, []).append((log_ns, bytes(data)))

    def log_rows(self, *args) -> None:
        pass

    def broadcast_time(self, t_ns: int) -> None:
        pass

    def close(self) -> None:
        pass


def test_the_maxxum_without_ins_serves_its_bags_topics_and_messages(tmp_path):
    """The Maxxum's topics from its receiver and IMU (its INS off), the wheel odometer and
    /tf_static, fed a few steps at a time: the bag's messages, byte for byte."""
    from navsense.vehicles import vehicle_profile

    scenario = load_scenario("acre-loop")
    cfg = load_config(vehicle="maxxum", overrides={"odom.enabled": True})
    truth = scenario.truth.slice(FIRST, FIRST + STEPS)
    out = tmp_path / "run"
    live = LiveServer(
        cfg,
        vehicle_profile("maxxum"),
        scenario.site,
        foxglove_port=None,
        out_dir=out,
        source={"scenario": "acre-loop"},
        worker=False,
        linger_s=0.0,
    )
    fox = live.foxglove = _RecordingFoxglove()
    for k in range(0, STEPS, 7):
        live.step(truth.slice(k, k + 7))
    live.close()
    write_mcap(out, gnss_fix=True, raw_imu=True)
    bag = _bag(out / "ros2.mcap")
    assert set(fox.messages) == set(bag) >= {"/tf_static", "/odom", "/ground_truth/odom"}
    for topic, messages in bag.items():
        assert fox.messages[topic] == messages, topic
    assert len(bag["/odom"]) > 10 and len(bag["/tf_static"]) == 1


def test_the_row_channels_carry_the_jsonl_lines_at_their_delivery_times(served):
    ws, out, live = served["ws"], served["out"], served["live"]
    got = ws.messages()
    for sensor in ("gnss", "imu", "ins", "mag"):
        lines = (out / f"{sensor}.jsonl").read_bytes().splitlines()
        messages = got[f"/navsense/{sensor}"]
        assert [data for _, _, data in messages] == lines
        for _, log_ns, data in messages:
            row = json.loads(data)
            assert log_ns == live.start_ns + round(row["delivery_time_s"] * 1e9)
    # the run's clock: a time broadcast a feed (of one or more steps), the last at the last step
    times = ws.times()
    assert times == sorted(times) and len(set(times)) == len(times) > 10
    assert times[-1] == live.start_ns + round((FIRST + STEPS - 1) / 120 * 1e9)


def test_pacing_no_message_arrives_before_its_time_over_the_speed(served):
    ws, pacer, live = served["ws"], served["pacer"], served["live"]
    checked = 0
    for topic, messages in ws.messages().items():
        for arrival, log_ns, _ in messages:
            delivery_s = (log_ns - live.start_ns) / 1e9
            assert arrival >= pacer.wall_of(delivery_s) - 1e-6, (topic, delivery_s)
            checked += 1
    assert checked > 4000


def test_nmea_over_tcp_and_pty_is_the_runs_gnss_nmea(served):
    out = served["out"]
    expected = (out / "gnss.nmea").read_bytes()
    # 6 s from t = 25 s at 10 Hz: 60 epochs (the schedule starts at the first step served)
    assert bytes(served["tcp"].data) == expected
    assert served["live"].nmea_pty.dropped == 0
    assert served["pty"] == expected
    rows = [json.loads(line) for line in (out / "gnss.jsonl").read_text().splitlines()]
    lines = expected.decode("ascii").split("\r\n")[:-1]
    parsed = [pynmeagps.NMEAReader.parse(line, validate=pynmeagps.VALCKSUM) for line in lines]
    # the whole sentence set of gnss.nmea (issue 20), each epoch's GGA its row's
    assert {m.msgID for m in parsed} == {"RMC", "VTG", "GGA", "GSA", "GSV", "GST", "ZDA"}
    gga = [m for m in parsed if m.msgID == "GGA"]
    for msg, row in zip(gga, rows, strict=True):
        assert msg.quality == row["gga_quality"]
        if row["latitude_deg"] is not None:
            assert msg.lat == pytest.approx(row["latitude_deg"], abs=1e-8)
    assert len(rows) == 60 and rows[0]["sample_time_s"] == pytest.approx(FIRST / 120.0)
    assert {row["fix_type"] for row in rows} >= {"no_fix", "rtk_float"}


def test_clients_that_leave_cost_nothing(served):
    live = served["live"]
    assert live.nmea_tcp.connections == 2 and live.nmea_tcp.clients == 0
    assert live.nmea_tcp.dropped == 0


def test_a_client_that_never_reads_never_stalls_the_nmea_server():
    from navsense.live.nmea_out import NmeaTcpServer

    server = NmeaTcpServer("127.0.0.1", 0, backlog=5)
    stuck = socket.socket()
    stuck.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    stuck.connect(("127.0.0.1", server.port))
    _wait(lambda: server.clients == 1)
    epoch = b"$GNGGA," + b"0" * 1000 + b"*00\r\n"
    t0 = time.monotonic()
    for _ in range(20_000):  # 20 MB: more than any socket buffer holds
        server.send(epoch)
    assert time.monotonic() - t0 < 5.0  # queued and dropped, never waited for
    _wait(lambda: server._clients[0].dropped > 0)
    reader = TcpClient(server.port)  # a new client still gets what is sent from now on
    reader.start_reading()
    _wait(lambda: server.clients == 2)
    server.send(b"$LAST*00\r\n")
    server.close(timeout=1.0)
    assert reader.done.wait(10)
    assert bytes(reader.data) == b"$LAST*00\r\n"
    stuck.close()


def _ipv6_loopback() -> bool:
    try:
        socket.create_server(("::1", 0), family=socket.AF_INET6).close()
    except OSError:
        return False
    return True


@pytest.mark.skipif(not _ipv6_loopback(), reason="no IPv6 loopback on this machine")
def test_the_nmea_server_listens_on_an_ipv6_host():
    """--host ::1 failed in the NMEA TCP server, bound as IPv4 whatever the host, with 'choose
    another port' (the second fuzz helper's note): it listens in the host's own family."""
    from navsense.live.nmea_out import NmeaTcpServer

    server = NmeaTcpServer("::1", 0)
    client = socket.create_connection(("::1", server.port), timeout=10)
    _wait(lambda: server.clients == 1)
    server.send(b"$GNGGA*00\r\n")
    server.close(timeout=1.0)
    data = b""
    while chunk := client.recv(4096):
        data += chunk
    client.close()
    assert data == b"$GNGGA*00\r\n"


def test_a_pty_nobody_reads_never_stalls_and_a_late_reader_gets_whole_epochs():
    from navsense.live.nmea_out import NmeaPty

    pty = NmeaPty(backlog=5)
    epochs = [b"$GNGGA,%05d," % k + b"0" * 1000 + b"*00\r\n" for k in range(2000)]
    t0 = time.monotonic()
    for epoch in epochs:  # 2 MB: a hundred times the terminal's buffer
        pty.send(epoch)
    assert time.monotonic() - t0 < 5.0  # queued and dropped, never waited for
    _wait(lambda: pty.dropped > 0)
    fd = os.open(pty.device, os.O_RDONLY | os.O_NOCTTY)
    got = bytearray()

    def read_all():
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # EIO: closed
                return
            if not chunk:
                return
            got.extend(chunk)

    reader = threading.Thread(target=read_all, daemon=True)
    reader.start()
    pty.send(b"$LAST*00\r\n")
    t0 = time.monotonic()
    pty.close(timeout=5.0)
    assert time.monotonic() - t0 < 5.0
    reader.join(5)
    os.close(fd)
    lines = bytes(got).split(b"\r\n")
    assert lines[-2:] == [b"$LAST*00", b""]
    # whole sentences only, the most recent ones, in order: the oldest were dropped whole
    kept = [int(x[7:12]) for x in lines[:-2]]
    assert all(x + b"\r\n" in epochs for x in lines[:-2])
    assert kept == sorted(kept) and kept[-1] == 1999 and pty.dropped == 2000 - len(kept)
    # closing without a reader gives up after its timeout
    lonely = NmeaPty(backlog=5)
    for epoch in epochs[:100]:
        lonely.send(epoch)
    t0 = time.monotonic()
    lonely.close(timeout=0.2)
    assert time.monotonic() - t0 < 2.0


def test_a_websocket_client_that_never_reads_never_stalls_the_run(tmp_path):
    scenario = load_scenario("acre-loop")
    cfg = load_config(vehicle="polaris")
    live = LiveServer(cfg, scenario.vehicle, scenario.site, foxglove_port=0, backlog=16)
    stuck = WsClient(live.foxglove.port)  # subscribes, then reads nothing
    stuck.subscribe()
    assert live.foxglove.wait_subscribed(live.foxglove.topics, 10)
    payload = b"\x00\x01\x00\x00" + b"x" * 100_000
    t0 = time.monotonic()
    for k in range(300):  # 30 MB on one topic
        live.foxglove.log("/tf", payload, k)
    assert time.monotonic() - t0 < 5.0
    live.close()


def test_a_stop_request_ends_the_paced_run_at_once():
    calls = []

    class Recorder:
        def step(self, chunk):
            calls.append((time.monotonic(), chunk.step0, len(chunk)))

    stop = threading.Event()
    stopped_at = []

    def request_stop():
        stopped_at.append(time.monotonic())
        stop.set()

    truth = load_scenario("acre-loop").truth.slice(0, 1200)  # 10 s
    threading.Timer(0.3, request_stop).start()
    pacer = Pacer(1.0)
    result = serve_paced(truth, Recorder(), stop=stop, pacer=pacer)
    returned_at = time.monotonic()
    assert result.stopped and result.steps < 1200
    assert returned_at - stopped_at[0] < 0.1  # it does not wait for the next step
    assert sum(n for _, _, n in calls) == result.steps
    for fed_at, step0, _ in calls[1:]:
        assert fed_at >= pacer.wall_of(step0 / 120.0)  # the first step of a chunk was due
        assert fed_at <= stopped_at[0] + 0.05  # nothing fed after the stop request
