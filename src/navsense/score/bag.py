"""Estimates as a topic of a ROS 2 bag (MCAP): Odometry, PoseWithCovarianceStamped, NavSatFix.

E.g. robot_localization's ``/odometry/filtered`` recorded while playing navsense's bag. Each
message is decoded from its CDR payload (XCDR1, little- or big-endian, as rosbag2 stores it):

=================================================  ==========================================
nav_msgs/msg/Odometry                              pose.pose.position, .orientation, the
geometry_msgs/msg/PoseWithCovarianceStamped        position block (rows/columns 0..2) of
                                                   pose.covariance (row-major 6 x 6)
sensor_msgs/msg/NavSatFix                          latitude, longitude, altitude (ellipsoidal),
                                                   position_covariance (ENU at the point, m^2;
                                                   none when position_covariance_type is 0)
=================================================  ==========================================

Time: header.stamp (UNIX time) minus the run's start_utc. Frame: NavSatFix is geodetic; a pose
whose header frame_id is ``utm`` (navsense's own odometry) is UTM; any other frame_id leaves the
frame to ``--frame`` (default enu; e.g. ``map`` or ``odom`` of a filter, often with ``--align``).
A covariance block of zeros (unset) is "no covariance", a zero quaternion "no attitude"; a
NavSatFix with status -1 (STATUS_NO_FIX) or a NaN coordinate is left out.

Container: the mcap library (mcap.dev, the format's own Python reader) reads the file in one
pass, its StreamReader over the data section (:func:`_scan`; the summary and indexes are not
needed, so an unindexed bag reads as well). Only CDR is decoded: a topic whose channel's
message_encoding is not ``cdr``, or whose schema's encoding is not ``ros2msg`` (or ``ros2idl``,
rosbag2's for a type defined in IDL: the payload is CDR either way), is a FormatError naming the
topic and its encoding (JSON, Protobuf or ROS 1 messages were decoded as CDR before).

Damage (issue 21): a pose whose position is not finite, a quaternion that is not finite or
whose norm is off 1 by more than :data:`navsense.score.tum.QUAT_NORM_TOL`, a covariance that is
not finite, a payload that is not CDR or ends early, a chunk whose header claims more than
:data:`MAX_CHUNK_BYTES` uncompressed or another size than its zstd or lz4 frame states, a
damaged frame, records whose CRC-32 is not the chunk's (where one is written; a bit flipped in a
zstd frame often decompresses to other values without an error), an unknown compression, no MCAP magic, bytes that are not MCAP records are
FormatErrors naming the file (topic and message where known). Never a MemoryError: a chunk's
sizes are checked before mcap decompresses it, and the file is memory-mapped so that a damaged
length is never allocated (a read stops at the end of the file). A bag that ends before its Data
End record (a recorder that was stopped: the end of the file inside a record or after one) ends
the reading: the complete messages before are scored, and the estimate's note says the bag is
cut short. (A chunk's data-length field damaged past its record reads as such a cut: mcap
trusts it over the record's length.)
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
from mcap.data_stream import ReadDataStream
from mcap.exceptions import InvalidMagic, McapError, RecordLengthLimitExceeded
from mcap.records import Channel, Chunk, DataEnd, Message, Schema
from mcap.stream_reader import (
    MAGIC_SIZE,
    CRCValidationError,
    StreamReader,
    breakup_chunk,
    read_magic,
)

from navsense.errors import ConfigError, FormatError
from navsense.score.estimate import Estimate, finish

__all__ = ["MESSAGE_TYPES", "read_topic"]

MESSAGE_TYPES = (
    "nav_msgs/msg/Odometry",
    "geometry_msgs/msg/PoseWithCovarianceStamped",
    "sensor_msgs/msg/NavSatFix",
)


@dataclass(frozen=True)
class _Layout:
    """Where a message's fields are (byte offsets from the payload's start): payloads with one
    layout (same length, byte order and string lengths) are decoded together as arrays."""

    order: str  # "<" or ">"
    frame_id: str
    doubles: int  # first of the float64 block: pose (43) or NavSatFix (12)
    status: int = -1  # NavSatFix: status.status (int8)
    cov_type: int = -1  # NavSatFix: position_covariance_type (uint8)


def _key(msg_type: str, data: bytes, where: str) -> tuple:
    """The payload's length, byte order and string lengths: payloads with one key have one
    layout. FormatError when it is not a CDR payload."""
    if len(data) < 16 or data[0] != 0 or data[1] not in (0, 1):
        raise FormatError(
            f"{where}: not a CDR payload (encapsulation {bytes(data[:2]).hex() or 'missing'}; "
            "expected 0000 or 0001)"
        )
    order: Literal["little", "big"] = "little" if data[1] == 1 else "big"
    n = int.from_bytes(data[12:16], order)
    if msg_type != "nav_msgs/msg/Odometry":
        return (len(data), data[1], n)
    pos = 16 + n
    pos += (-(pos - 4)) % 4
    return (len(data), data[1], n, int.from_bytes(data[pos : pos + 4], order))


def _layout(msg_type: str, data: bytes, where: str) -> _Layout:
    """The layout of one CDR payload (XCDR1: the 4-byte encapsulation header, then each field
    at a multiple of its size counted from the header's end)."""
    order = "<" if data[1] == 1 else ">"
    u32 = struct.Struct(order + "I")
    pos = 12  # header: encapsulation 4, stamp sec and nanosec 8

    def align(p: int, k: int) -> int:
        return p + (-(p - 4)) % k

    try:
        (n,) = u32.unpack_from(data, pos)
        frame_id = bytes(data[pos + 4 : pos + 3 + n]).decode("utf-8", errors="replace")
        pos += 4 + n
        if msg_type == "nav_msgs/msg/Odometry":  # child_frame_id
            pos = align(pos, 4)
            (n,) = u32.unpack_from(data, pos)
            pos += 4 + n
    except struct.error:
        raise FormatError(f"{where}: the message ends early") from None
    if msg_type == "sensor_msgs/msg/NavSatFix":
        status = align(pos, 1)
        doubles = align(align(status + 1, 2) + 2, 8)
        cov_type = doubles + 12 * 8
        layout = _Layout(order, frame_id, doubles, status, cov_type)
        end = cov_type + 1
    else:
        layout = _Layout(order, frame_id, align(pos, 8))
        end = layout.doubles + 43 * 8
    if end > len(data):
        raise FormatError(f"{where}: the message ends early ({len(data)} bytes, {end} needed)")
    return layout


def _decode(msg_type: str, payloads: list[bytes], where) -> tuple[dict, str]:
    """The messages' fields as arrays (n = len(payloads)): stamp_ns, xyz (n, 3), q (n, 4) and
    cov (n, 3, 3) with NaN rows where a message has none, ok (n,) bool; and the first message's
    frame_id. ``where(k)`` names message k. Messages of one layout are decoded together."""
    n = len(payloads)
    out: dict[str, np.ndarray] = {
        "stamp_ns": np.zeros(n, np.int64),
        "xyz": np.zeros((n, 3)),
        "q": np.full((n, 4), np.nan),
        "cov": np.full((n, 3, 3), np.nan),
        "ok": np.ones(n, bool),
    }
    groups: dict[tuple, list[int]] = {}
    for k, data in enumerate(payloads):
        groups.setdefault(_key(msg_type, data, where(k)), []).append(k)
    for idx in groups.values():
        lay = _layout(msg_type, payloads[idx[0]], where(idx[0]))
        rows = np.frombuffer(b"".join(payloads[k] for k in idx), np.uint8).reshape(len(idx), -1)
        f8 = np.dtype(lay.order + "f8")
        sec = rows[:, 4:8].copy().view(lay.order + "i4")[:, 0].astype(np.int64)
        nsec = rows[:, 8:12].copy().view(lay.order + "u4")[:, 0].astype(np.int64)
        out["stamp_ns"][idx] = sec * 1_000_000_000 + nsec
        if msg_type == "sensor_msgs/msg/NavSatFix":
            v = rows[:, lay.doubles : lay.doubles + 96].copy().view(f8).astype(np.float64)
            status = rows[:, lay.status].view(np.int8)
            known = rows[:, lay.cov_type] != 0
            out["xyz"][idx] = v[:, :3]
            out["ok"][idx] = (status >= 0) & np.isfinite(v[:, :3]).all(axis=1)
            cov = np.where(known[:, None], v[:, 3:12], np.nan).reshape(-1, 3, 3)
            out["cov"][idx] = cov
            continue
        v = rows[:, lay.doubles : lay.doubles + 344].copy().view(f8).astype(np.float64)
        out["xyz"][idx] = v[:, :3]
        q = v[:, 3:7]
        out["q"][idx] = np.where(np.any(q != 0.0, axis=1)[:, None], q, np.nan)
        cov = v[:, 7:].reshape(-1, 6, 6)[:, :3, :3]
        out["cov"][idx] = np.where(np.any(cov != 0.0, axis=(1, 2))[:, None, None], cov, np.nan)
    return out, _layout(msg_type, payloads[0], where(0)).frame_id


#: The largest uncompressed chunk read, bytes (recorders write chunks of about 1 to 4 MiB; a
#: damaged size field is refused before memory is taken).
MAX_CHUNK_BYTES = 1 << 30

#: The encodings read: the channel's message encoding and its schema's (rosbag2 writes ros2msg,
#: or ros2idl for a type defined in IDL only: the payload is CDR either way).
MESSAGE_ENCODING = "cdr"
SCHEMA_ENCODINGS = ("ros2msg", "ros2idl")

#: What mcap (and the compressors it calls) raise at bytes that are not a record: a short read
#: at the end of the file (EndOfFile, struct.error), a length beyond the file, a damaged frame
#: (zstandard.ZstdError, lz4's RuntimeError), a name that is not UTF-8 (ValueError).
_READ_ERRORS: tuple[type[BaseException], ...] = (
    McapError,
    struct.error,
    ValueError,
    OverflowError,
    RuntimeError,
    MemoryError,
)


def _chunk_records(chunk: Chunk, where: str) -> list:
    """The records of a chunk (mcap's ``breakup_chunk``), after its header is checked: the
    compression is one mcap reads, the uncompressed size at most MAX_CHUNK_BYTES and the same as
    the compressed frame's own (zstandard and lz4 allocate the frame's stated size before they
    decompress: a damaged size is refused before memory is taken); then the records' CRC-32 is
    the header's (where one is written: a bit flipped in a zstd frame often decompresses without
    an error, to other values). FormatError otherwise."""
    comp, size = chunk.compression, chunk.uncompressed_size
    if comp not in ("", "zstd", "lz4"):
        raise FormatError(f"{where}: a chunk compressed with {comp!r} (zstd, lz4 or none)")
    if size > MAX_CHUNK_BYTES:
        raise FormatError(
            f"{where}: a chunk of {size} bytes uncompressed; at most {MAX_CHUNK_BYTES} are read "
            "(a damaged bag?)"
        )
    errors = _READ_ERRORS  # lz4 raises RuntimeError
    try:
        if comp == "zstd":
            import zstandard

            errors = (*errors, zstandard.ZstdError)
            stated = zstandard.frame_content_size(chunk.data)  # -1: not stated
        elif comp == "lz4":
            import lz4.frame

            stated = lz4.frame.get_frame_info(chunk.data)["content_size"] or -1  # 0: not stated
        else:
            stated = len(chunk.data)
        if stated in (-1, size):
            return breakup_chunk(chunk, validate_crc=True)  # a CRC of 0: none written
    except errors as exc:
        raise FormatError(f"{where}: a damaged {comp or 'plain'} chunk ({_words(exc)})") from None
    raise FormatError(
        f"{where}: a {comp or 'plain'} chunk of {stated} bytes; its header says {size}"
    )


def _words(exc: BaseException) -> str:
    if isinstance(exc, CRCValidationError):
        return f"its records' CRC-32 is {exc.actual:08x}; its header says {exc.expected:08x}"
    if isinstance(exc, OverflowError):  # a length read from the file past 2**63
        return "a length field of more than 2**63 bytes"
    return str(exc) or type(exc).__name__


@dataclass
class _Bag:
    """What one pass over a bag found: channels by topic (the first of a topic) with their
    schema (None: schema id 0), the payloads of the wanted topic in file order, and whether the
    file ended before its Data End record (a recorder that was stopped)."""

    channels: dict[str, tuple[Channel, Schema | None]]
    payloads: list[bytes]
    cut: bool = False

    def topics(self) -> dict[str, str]:
        """topic -> message type of every channel ('?' without a schema)."""
        return {t: s.name if s else "?" for t, (_, s) in self.channels.items()}


def _scan(path: Path, topic: str | None) -> _Bag:
    """One pass over the bag's data section with mcap's StreamReader (mcap.dev/spec): schemas,
    channels and the messages of ``topic``, in chunks or not, up to the Data End record. The
    summary section and the indexes are not needed, so an unindexed bag and a bag cut short read
    the same way (a seeking reader would need the footer), and each chunk's header is checked
    before mcap decompresses it (:func:`_chunk_records`). The file is memory-mapped: mcap reads
    a record's stated length from it, and a read from a map stops at the end of the file where a
    buffered file would first allocate the stated length (a damaged length: MemoryError)."""
    import mmap

    where = str(path)
    size = path.stat().st_size
    bag = _Bag({}, [])
    schemas: dict[int, Schema] = {}
    wanted = -1  # the channel id of topic
    with open(path, "rb") as f:
        if size < MAGIC_SIZE:
            raise FormatError(f"{where}: not a readable MCAP file (no MCAP magic)")
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            try:
                read_magic(ReadDataStream(data))  # type: ignore[arg-type]
            except InvalidMagic:
                raise FormatError(f"{where}: not a readable MCAP file (no MCAP magic)") from None
            reader = StreamReader(
                data,  # type: ignore[arg-type]
                skip_magic=True,
                emit_chunks=True,
                record_size_limit=size,
            )
            try:
                for record in reader.records:
                    inner = _chunk_records(record, where) if isinstance(record, Chunk) else [record]
                    for r in inner:
                        if isinstance(r, Message):
                            if r.channel_id == wanted:
                                bag.payloads.append(r.data)
                        elif isinstance(r, Channel):
                            if r.topic not in bag.channels:
                                bag.channels[r.topic] = (r, schemas.get(r.schema_id))
                                if r.topic == topic:
                                    wanted = r.id
                        elif isinstance(r, Schema):
                            schemas[r.id] = r
                    if isinstance(record, DataEnd):
                        break
            except FormatError:
                raise
            except RecordLengthLimitExceeded:
                bag.cut = True  # a record longer than the file: cut short
            except _READ_ERRORS as exc:
                if data.tell() < size:  # not at the end of the file: damage
                    raise FormatError(
                        f"{where}: not a readable MCAP file ({_words(exc)} at byte "
                        f"{data.tell()} of {size})"
                    ) from None
                bag.cut = True
    return bag


def _check_encoding(path: Path, topic: str, channel: Channel, schema: Schema | None) -> None:
    """FormatError unless the topic's messages are CDR (and its schema ROS 2's)."""
    if channel.message_encoding != MESSAGE_ENCODING:
        raise FormatError(
            f"{path}: topic {topic} has messages in the {channel.message_encoding!r} encoding; "
            f"an estimate is read from {MESSAGE_ENCODING!r} (ROS 2's CDR, as rosbag2 records)"
        )
    if schema is not None and schema.encoding not in SCHEMA_ENCODINGS:
        raise FormatError(
            f"{path}: topic {topic} has a schema in the {schema.encoding!r} encoding; an "
            f"estimate is read with a ROS 2 schema ({' or '.join(map(repr, SCHEMA_ENCODINGS))})"
        )


def _checked(path: Path, topic: str, stamp: np.ndarray, q: np.ndarray, cov: np.ndarray):
    """The messages' attitudes (normalised) and covariances, or None where no message has one;
    FormatError naming the first message whose quaternion is not finite or not of norm 1
    (within QUAT_NORM_TOL), or whose covariance is not finite."""
    from navsense.score.tum import QUAT_NORM_TOL

    has_q = ~np.isnan(q).all(axis=1)  # a zero quaternion is "no attitude" (_decode: NaN)
    with np.errstate(invalid="ignore", over="ignore"):
        norm = np.sqrt(np.sum(q * q, axis=1))
    bad = np.flatnonzero(has_q & ~(np.abs(norm - 1.0) <= QUAT_NORM_TOL))
    if bad.size:
        i = int(bad[0])
        raise FormatError(
            f"{path}: topic {topic}: message at stamp {int(stamp[i])} ns: the quaternion "
            f"{q[i].tolist()} has norm {norm[i]:.6g}, not 1 (within {QUAT_NORM_TOL})"
        )
    has_c = ~np.isnan(cov).all(axis=(1, 2))
    bad = np.flatnonzero(has_c & ~np.isfinite(cov).all(axis=(1, 2)))
    if bad.size:
        i = int(bad[0])
        raise FormatError(
            f"{path}: topic {topic}: message at stamp {int(stamp[i])} ns: the position "
            f"covariance {cov[i].ravel().tolist()} is not finite"
        )
    unit = q / np.where(has_q, norm, 1.0)[:, None]
    return (unit if has_q.any() else None), (cov if has_c.any() else None)


def read_topic(path: str | Path, topic: str | None, *, start_ns: int) -> Estimate:
    """Read the messages of ``topic`` from the MCAP bag ``path`` (module docstring)."""
    path = Path(path)
    bag = _scan(path, topic)
    topics = bag.topics()
    cut = " (a recorder that was stopped?)"
    listing = ", ".join(f"{t} ({m})" for t, m in sorted(topics.items())) or (
        f"none found before the bag is cut short{cut}" if bag.cut else "none found (a damaged bag?)"
    )
    if topic is None:
        raise ConfigError(f"{path}: an mcap estimate needs --topic; the bag's topics: {listing}")
    if topic not in topics:
        raise FormatError(f"{path}: no topic {topic!r}; the bag's topics: {listing}")
    _check_encoding(path, topic, *bag.channels[topic])
    msg_type = topics[topic]
    payloads = bag.payloads
    if msg_type not in MESSAGE_TYPES:
        raise FormatError(
            f"{path}: topic {topic} has messages {msg_type}; an estimate is one of "
            f"{', '.join(MESSAGE_TYPES)}"
        )
    if not payloads:
        before = f" before the bag is cut short{cut}" if bag.cut else ""
        raise FormatError(f"{path}: topic {topic} has no messages{before}")
    m, frame_id = _decode(msg_type, payloads, lambda k: f"{path}: topic {topic} message {k + 1}")
    ok = m["ok"]
    if not ok.any():
        raise FormatError(f"{path}: topic {topic}: every NavSatFix has status -1 (no fix)")
    stamp = m["stamp_ns"][ok]
    t = (stamp - start_ns).astype(np.float64) * 1e-9
    q, cov = _checked(path, topic, stamp, m["q"][ok], m["cov"][ok])
    if msg_type == "sensor_msgs/msg/NavSatFix":
        frame, note = "geodetic", f"{msg_type}"
    elif frame_id == "utm":
        frame, note = "utm", f"{msg_type} in frame_id utm"
    else:
        frame, note = None, f"{msg_type} in frame_id {frame_id!r}"
    dropped = int(np.count_nonzero(~ok))
    if dropped:
        note += f"; {dropped} messages without a fix left out"
    if bag.cut:
        note += f"; the bag is cut short (no Data End record): the {len(payloads)} messages before"
    return finish(
        f"{path}:{topic}",
        t,
        m["xyz"][ok],
        frame,
        q,
        cov,
        "unix",
        note,
        where=lambda i: f"message at stamp {int(stamp[i])} ns",
    )
