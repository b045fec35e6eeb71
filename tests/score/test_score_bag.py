"""Estimates from a ROS 2 bag: navsense's own topics, and messages written by rosbags.

navsense's bag of the run carries the INS odometry (/vehicle/odom, UTM), its fix (/oxts/fix,
NavSatFix) and the truth odometry (/sim/ground_truth/odom): as estimates they must score as the
run statistics score the INS (navsense.runs.stats, from ins.frames) and as zero for the truth.
Other messages (PoseWithCovarianceStamped in a filter's map frame, big-endian CDR) are written
with rosbags, an independent CDR serialiser.
"""

from __future__ import annotations

import numpy as np
import pytest

from navsense.errors import FormatError
from navsense.runs.stats import run_statistics
from navsense.score.api import ScoreOptions, score_estimate
from navsense.score.bag import read_topic
from navsense.score.runinfo import read_run_info

mm = 1e-3
rosbags = pytest.importorskip("rosbags.rosbag2")
typesys = pytest.importorskip("rosbags.typesys")


def test_the_truth_topic_scores_zero(run_dir):
    s = score_estimate(
        run_dir, run_dir / "ros2.mcap", ScoreOptions(topic="/sim/ground_truth/odom")
    ).scores
    assert (s["frame"], s["time_base"], s["has_attitude"]) == ("utm", "unix", True)
    assert s["epochs"] == 6001  # the INS at 100 Hz for 60 s
    assert s["ate_3d_max_m"] < 0.01 * mm
    assert s["heading_max_deg"] < 1e-6
    assert not s["has_covariance"]  # the truth's covariance is zero: none


def test_the_ins_topics_score_as_the_run_statistics(run_dir):
    stats = run_statistics(run_dir)
    odom = score_estimate(run_dir, run_dir / "ros2.mcap", ScoreOptions(topic="/vehicle/odom"))
    fix = score_estimate(run_dir, run_dir / "ros2.mcap", ScoreOptions(topic="/oxts/fix"))
    s, f = odom.scores, fix.scores
    assert f["frame"] == "geodetic" and f["datum"] == "nad83_2011"
    # the statistics difference UTM metres (scale 0.9996), the score grid metres
    for key in ("h_rms_m", "v_rms_m", "h_p95_m"):
        a, b = s[f"ate_{key[0]}_{key[2:]}"], stats[f"ins_pos_{key}"]
        assert a == pytest.approx(b, rel=1e-3), key
        assert f[f"ate_{key[0]}_{key[2:]}"] == pytest.approx(a, abs=0.01 * mm), key
    for key in ("h_in_1sigma", "h_in_2sigma", "v_in_1sigma", "v_in_2sigma"):
        # the 0.04 % scale moves a few epochs across the boundary
        assert s[key] == pytest.approx(stats[f"ins_pos_{key}"], abs=0.002), key
        assert f[key] == pytest.approx(s[key], abs=1 / s["epochs"]), key
    assert s["heading_rms_deg"] == pytest.approx(stats["ins_heading_rms_deg"], rel=1e-6)
    assert s["nees_epochs"] == s["epochs"]


def _write_bag(path, messages, msg_type: str, topic: str, typestore, big_endian=False):
    from rosbags.rosbag2 import StoragePlugin, Writer

    with Writer(path, version=9, storage_plugin=StoragePlugin.MCAP) as writer:
        conn = writer.add_connection(topic, msg_type, typestore=typestore)
        for stamp_ns, msg in messages:
            data = typestore.serialize_cdr(msg, msg_type, little_endian=not big_endian)
            writer.write(conn, stamp_ns, bytes(data))
    return next(path.glob("*.mcap"))


def _pose_messages(typestore, start_ns: int, n: int, frame_id: str):
    t = typestore.types
    Time, Header = t["builtin_interfaces/msg/Time"], t["std_msgs/msg/Header"]
    Point, Quat = t["geometry_msgs/msg/Point"], t["geometry_msgs/msg/Quaternion"]
    Pose, PwC = t["geometry_msgs/msg/Pose"], t["geometry_msgs/msg/PoseWithCovariance"]
    Stamped = t["geometry_msgs/msg/PoseWithCovarianceStamped"]
    rng = np.random.default_rng(5)
    out, values = [], []
    for k in range(n):
        stamp = start_ns + k * 250_000_000
        xyz = rng.normal(0, 50, 3)
        yaw = rng.uniform(-3, 3)
        q = (0.0, 0.0, np.sin(yaw / 2), np.cos(yaw / 2))
        cov = np.zeros(36)
        cov[[0, 7, 14]] = rng.uniform(0.01, 0.1, 3)
        cov[1] = cov[6] = 0.003
        header = Header(stamp=Time(sec=stamp // 10**9, nanosec=stamp % 10**9), frame_id=frame_id)
        pose = Pose(position=Point(x=xyz[0], y=xyz[1], z=xyz[2]), orientation=Quat(*q[:3], w=q[3]))
        msg = Stamped(header=header, pose=PwC(pose=pose, covariance=cov))
        out.append((stamp, msg))
        values.append((stamp, xyz, q, cov.reshape(6, 6)[:3, :3]))
    return out, values


@pytest.mark.parametrize("big_endian", [False, True])
def test_pose_with_covariance_stamped_written_by_rosbags(run_dir, tmp_path, big_endian):
    store = typesys.get_typestore(typesys.Stores.ROS2_HUMBLE)
    start_ns = read_run_info(run_dir).start_ns
    msgs, values = _pose_messages(store, start_ns, 40, "map")
    bag = _write_bag(
        tmp_path / "bag",
        msgs,
        "geometry_msgs/msg/PoseWithCovarianceStamped",
        "/pose",
        store,
        big_endian,
    )
    est = read_topic(bag, "/pose", start_ns=start_ns)
    assert est.frame is None and "'map'" in est.frame_note
    np.testing.assert_array_equal(est.t_s, [(v[0] - start_ns) * 1e-9 for v in values])
    np.testing.assert_array_equal(est.xyz, [v[1] for v in values])
    np.testing.assert_allclose(est.q_xyzw, [v[2] for v in values], rtol=0, atol=1e-15)
    np.testing.assert_array_equal(est.cov_m2, [v[3] for v in values])


def test_unknown_topic_lists_the_bags_topics(run_dir):
    with pytest.raises(FormatError, match=r"no topic '/odometry/filtered'.*/vehicle/odom"):
        score_estimate(run_dir, run_dir / "ros2.mcap", ScoreOptions(topic="/odometry/filtered"))


def test_a_topic_of_another_type_is_refused(run_dir):
    with pytest.raises(FormatError, match=r"/oxts/imu has messages sensor_msgs/msg/Imu"):
        score_estimate(run_dir, run_dir / "ros2.mcap", ScoreOptions(topic="/oxts/imu"))


def test_a_file_that_is_not_mcap(run_dir, tmp_path):
    path = tmp_path / "x.mcap"
    path.write_bytes(b"not a bag at all")
    with pytest.raises(FormatError, match=r"x.mcap: not a readable MCAP file"):
        score_estimate(run_dir, path, ScoreOptions(topic="/pose"))


def _bag_messages(path, topic):
    """(schema, channel, [(log_time, payload)]) of a topic, read with mcap's seeking reader."""
    from mcap.reader import make_reader

    with open(path, "rb") as f:
        reader = make_reader(f)
        summary = reader.get_summary()
        channel = next(c for c in summary.channels.values() if c.topic == topic)
        schema = summary.schemas[channel.schema_id]
        rows = [(m.log_time, m.data) for _, _, m in reader.iter_messages(topics=[topic])]
    return schema, channel, rows


@pytest.mark.parametrize(
    ("encoding", "schema_encoding", "words"),
    [
        (
            "json",
            "jsonschema",
            "has messages in the 'json' encoding; an estimate is read from 'cdr'",
        ),
        # the payloads are the CDR of the run's odometry: read as CDR before, scored silently
        ("ros1", "ros1msg", "has messages in the 'ros1' encoding; an estimate is read from 'cdr'"),
        ("cdr", "jsonschema", "has a schema in the 'jsonschema' encoding; an estimate is read"),
    ],
)
def test_a_topic_in_another_encoding_is_refused(
    run_dir, tmp_path, encoding, schema_encoding, words
):
    """A channel whose messages are not CDR (JSON, ROS 1, ...) or whose schema is not ROS 2's is
    refused by name, written with mcap's own Writer (the messages were decoded as CDR)."""
    import json

    from mcap.writer import Writer

    schema, _, rows = _bag_messages(run_dir / "ros2.mcap", "/vehicle/odom")
    path = tmp_path / f"{encoding}.mcap"
    with open(path, "wb") as f:
        writer = Writer(f)
        writer.start(profile="", library="test")
        sid = writer.register_schema(schema.name, schema_encoding, b"{}")
        cid = writer.register_channel("/odom", encoding, sid)
        for k, (log_time, data) in enumerate(rows[:50]):
            if encoding == "json":
                data = json.dumps({"header": {"stamp": log_time}, "k": k}).encode()
            writer.add_message(cid, log_time, data, log_time, sequence=k)
        writer.finish()
    start_ns = read_run_info(run_dir).start_ns
    with pytest.raises(FormatError, match=rf"{encoding}.mcap: topic /odom {words}"):
        read_topic(path, "/odom", start_ns=start_ns)


def test_a_bag_cut_in_a_chunk_scores_the_messages_before_it(run_dir, tmp_path):
    """A recorder stopped in the middle of a chunk: the messages of the complete chunks before
    it are read, the same as from the whole bag (counted chunk by chunk through the bag's index
    with mcap), and nothing of the cut chunk."""
    from mcap.reader import make_reader
    from mcap.records import Message
    from mcap.stream_reader import StreamReader, breakup_chunk

    full = run_dir / "ros2.mcap"
    topic = "/vehicle/odom"
    with open(full, "rb") as f:
        summary = make_reader(f).get_summary()
        cid = next(c.id for c in summary.channels.values() if c.topic == topic)
        chunks = sorted(summary.chunk_indexes, key=lambda c: c.chunk_start_offset)
        assert len(chunks) >= 4
        counts = []
        for c in chunks[:3]:
            f.seek(c.chunk_start_offset)
            chunk = next(StreamReader(f, skip_magic=True, emit_chunks=True).records)
            counts.append(
                sum(isinstance(r, Message) and r.channel_id == cid for r in breakup_chunk(chunk))
            )
    assert min(counts) > 0
    cut = chunks[3].chunk_start_offset + chunks[3].chunk_length // 2
    (tmp_path / "cut.mcap").write_bytes(full.read_bytes()[:cut])
    start_ns = read_run_info(run_dir).start_ns
    whole = read_topic(full, topic, start_ns=start_ns)
    est = read_topic(tmp_path / "cut.mcap", topic, start_ns=start_ns)
    n = sum(counts)
    assert len(est.t_s) == n < len(whole.t_s)
    np.testing.assert_array_equal(est.t_s, whole.t_s[:n])
    np.testing.assert_array_equal(est.xyz, whole.xyz[:n])
    assert f"the bag is cut short (no Data End record): the {n} messages before" in est.frame_note
    assert "cut short" not in whole.frame_note


@pytest.mark.parametrize(
    "form", ["plain", "lz4", "zstd, no index", "unchunked, no index", "unchunked, stopped"]
)
def test_a_topic_in_any_container_form(run_dir, tmp_path, form):
    """The run's odometry rewritten with mcap's Writer: chunks compressed with lz4, with zstd,
    or none; no summary nor index; no chunks; a recorder stopped after its last message (no Data
    End record): each reads as the run's own bag."""
    from mcap.writer import CompressionType, IndexType, Writer

    schema, channel, rows = _bag_messages(run_dir / "ros2.mcap", "/vehicle/odom")
    comp = {"plain": CompressionType.NONE, "lz4": CompressionType.LZ4}.get(form)
    indexed = "index" not in form and "stopped" not in form
    path = tmp_path / "b.mcap"
    with open(path, "wb") as f:
        writer = Writer(
            f,
            chunk_size=200_000,
            compression=comp or CompressionType.ZSTD,
            index_types=IndexType.ALL if indexed else IndexType.NONE,
            use_chunking="unchunked" not in form,
            use_summary_offsets=indexed,
            use_statistics=indexed,
            repeat_channels=indexed,
            repeat_schemas=indexed,
        )
        writer.start(profile="ros2", library="test")
        sid = writer.register_schema(schema.name, schema.encoding, schema.data)
        other = writer.register_channel("/other", "cdr", sid)
        cid = writer.register_channel("/odom", "cdr", sid)
        for k, (log_time, data) in enumerate(rows):
            writer.add_message(other, log_time, data[:-8], log_time, sequence=k)
            writer.add_message(cid, log_time, data, log_time, sequence=k)
        if "stopped" not in form:
            writer.finish()
    start_ns = read_run_info(run_dir).start_ns
    est = read_topic(path, "/odom", start_ns=start_ns)
    whole = read_topic(run_dir / "ros2.mcap", "/vehicle/odom", start_ns=start_ns)
    for name in ("t_s", "xyz", "q_xyzw", "cov_m2"):
        np.testing.assert_array_equal(getattr(est, name), getattr(whole, name), err_msg=name)
    assert ("cut short" in est.frame_note) == ("stopped" in form)


def _second_chunk(raw: bytes, path) -> tuple[int, int, int]:
    """(the body's offset, its uncompressed size, the compression name's length) of the bag's
    second chunk record, found through the bag's chunk index (mcap)."""
    import struct

    from mcap.reader import make_reader

    with open(path, "rb") as f:
        chunks = sorted(
            make_reader(f).get_summary().chunk_indexes, key=lambda c: c.chunk_start_offset
        )
    c = chunks[1]
    assert raw[c.chunk_start_offset] == 0x06
    body = c.chunk_start_offset + 9  # opcode, record length
    return body, c.uncompressed_size, struct.unpack_from("<I", raw, body + 28)[0]


@pytest.mark.parametrize(
    "damage",
    ["size 2**40", "size + 1", "data length 2**64 - 1", "compression", "frame header"],
)
def test_a_damaged_chunk_is_one_format_error(run_dir, tmp_path, damage):
    """A chunk whose header claims 1 TiB uncompressed (refused before memory is taken: zstandard
    would allocate it), one byte more than its frame, a data length past 2**63 (a buffered read
    of it would first allocate it), an unknown compression, a damaged zstd frame header: one
    FormatError naming the bag, never a MemoryError nor a traceback."""
    import struct

    full = run_dir / "ros2.mcap"
    raw = bytearray(full.read_bytes())
    body, size, n = _second_chunk(bytes(raw), full)
    words = {
        "size 2**40": "a chunk of 1099511627776 bytes uncompressed; at most 1073741824 are read",
        "size + 1": f"a zstd chunk of {size} bytes; its header says {size + 1}",
        "data length 2**64 - 1": "not a readable MCAP file (a length field of more than 2**63",
        "compression": "a chunk compressed with 'zstx' (zstd, lz4 or none)",
        "frame header": "a damaged zstd chunk (",
    }[damage]
    if damage.startswith("size"):
        struct.pack_into("<Q", raw, body + 16, 1 << 40 if "40" in damage else size + 1)
    elif damage == "compression":
        raw[body + 32 + n - 1] = ord("x")
    elif damage == "frame header":
        frame = body + 32 + n + 8
        raw[frame + 4 : frame + 6] = b"\xff\xff"
    else:
        struct.pack_into("<Q", raw, body + 32 + n, (1 << 64) - 1)
    path = tmp_path / "d.mcap"
    path.write_bytes(bytes(raw))
    with pytest.raises(FormatError) as info:
        read_topic(path, "/vehicle/odom", start_ns=read_run_info(run_dir).start_ns)
    assert str(info.value).startswith(f"{path}: ") and words in str(info.value), str(info.value)


def test_a_chunk_whose_crc_differs_is_refused(run_dir, tmp_path):
    """A bit flipped in a chunk's zstd frame that still decompresses (zstandard finds no error:
    the values change) is refused by the chunk's CRC-32: before, such a bag was scored with
    whatever the bit changed."""
    import zlib

    import zstandard

    full = run_dir / "ros2.mcap"
    raw = bytearray(full.read_bytes())
    body, size, n = _second_chunk(bytes(raw), full)
    frame = body + 32 + n + 8
    (length,) = np.frombuffer(bytes(raw[frame - 8 : frame]), "<u8")
    (crc,) = np.frombuffer(bytes(raw[body + 24 : body + 28]), "<u4")
    assert crc == zlib.crc32(zstandard.decompress(bytes(raw[frame : frame + int(length)])))
    for i in range(frame + 100, frame + int(length)):
        raw[i] ^= 0x10
        try:
            out = zstandard.decompress(bytes(raw[frame : frame + int(length)]), size)
        except zstandard.ZstdError:
            out = b""
        if len(out) == size and zlib.crc32(out) != crc:
            break
        raw[i] ^= 0x10
    else:
        pytest.fail("no flip that decompresses")
    path = tmp_path / "d.mcap"
    path.write_bytes(bytes(raw))
    with pytest.raises(
        FormatError,
        match=rf"d.mcap: a damaged zstd chunk \(its records' CRC-32 is "
        rf"{zlib.crc32(out):08x}; its header says {int(crc):08x}\)",
    ):
        read_topic(path, "/vehicle/odom", start_ns=read_run_info(run_dir).start_ns)
