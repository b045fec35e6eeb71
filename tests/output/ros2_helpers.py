"""Helpers of the ROS 2 bag tests: short runs of acre-loop and a bag read back with rosbags."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from rosbags.highlevel import AnyReader
from rosbags.typesys import Stores, get_typestore

from navsense.config import load_config
from navsense.scenarios import load_scenario
from navsense.simulate import simulate
from navsense.vehicles import vehicle_profile

TYPESTORE = get_typestore(Stores.ROS2_HUMBLE)


def short_run(tmp_path_factory, name: str, vehicle: str, duration_s: float, overrides=None) -> Path:
    """A short drive of the acre-loop scenario (out of the garage, past the grain bins)."""
    scenario = load_scenario("acre-loop", duration_s=duration_s)
    profile = vehicle_profile(vehicle)
    cfg = load_config(vehicle=vehicle, overrides=overrides or {})
    out = tmp_path_factory.mktemp(name) / "run"
    simulate(scenario.truth, cfg, profile, scenario.site, out, source={"scenario": "acre-loop"})
    return out


def read_bag(path: Path) -> dict:
    """topic -> {"type", "log_ns" (list), "msgs" (list), "count", "qos"} through rosbags'
    AnyReader; "_order": every message's log time in file order."""
    out = {}
    with AnyReader([path], default_typestore=TYPESTORE) as reader:
        for conn in reader.connections:
            out[conn.topic] = {
                "type": conn.msgtype,
                "log_ns": [],
                "msgs": [],
                "count": conn.msgcount,
                "qos": list(getattr(conn.ext, "offered_qos_profiles", []) or []),
            }
        order = []
        for conn, log_ns, raw in reader.messages():
            entry = out[conn.topic]
            entry["log_ns"].append(log_ns)
            entry["msgs"].append(reader.deserialize(raw, conn.msgtype))
            order.append(log_ns)
    out["_order"] = order
    return out


def topics(bag: dict) -> set[str]:
    return {t for t in bag if not t.startswith("_")}


def vec(v) -> np.ndarray:
    return np.array([v.x, v.y, v.z])


def quat(q) -> np.ndarray:
    return np.array([q.x, q.y, q.z, q.w])


def stamp_ns(header) -> int:
    return header.stamp.sec * 1_000_000_000 + header.stamp.nanosec


def reencode_with_mcap_ros2_support(path: Path) -> dict[str, int]:
    """Decode every topic's first, middle and last message with mcap-ros2-support's decoder and
    assert that its generic dynamic encoder gives the same bytes; {topic: messages checked}."""
    from mcap.reader import make_reader
    from mcap_ros2._dynamic import serialize_dynamic
    from mcap_ros2.decoder import DecoderFactory

    factory = DecoderFactory()
    checked: dict[str, int] = {}
    with open(path, "rb") as f:
        reader = make_reader(f, decoder_factories=[factory])
        summary = reader.get_summary()
        assert summary is not None and summary.statistics is not None
        counts = {
            c.topic: summary.statistics.channel_message_counts.get(c.id, 0)
            for c in summary.channels.values()
        }
        seen: dict[str, int] = {}
        for schema, channel, message in reader.iter_messages():
            k = seen.get(channel.topic, 0)
            seen[channel.topic] = k + 1
            n = counts[channel.topic]
            if k not in (0, n // 2, n - 1):
                continue
            decoded = factory.decoder_for("cdr", schema)(message.data)
            encoder = serialize_dynamic(schema.name, schema.data.decode())[schema.name]
            assert encoder(decoded) == message.data, (channel.topic, k)
            checked[channel.topic] = checked.get(channel.topic, 0) + 1
    for topic, n in checked.items():
        assert n == len({0, counts[topic] // 2, counts[topic] - 1}), topic
    return checked
