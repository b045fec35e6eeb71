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

Damage (issue 21): a pose whose position is not finite, a quaternion that is not finite or
whose norm is off 1 by more than :data:`navsense.score.tum.QUAT_NORM_TOL`, a covariance that is
not finite, a payload that is not CDR or ends early, a chunk that does not decompress to its
stated size or claims more than :data:`MAX_CHUNK_BYTES` are FormatErrors naming the file, topic
and message. A record cut short by the end of the file (a recorder that was stopped) ends the
reading: the complete messages before it are scored.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np

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


_MAGIC = b"\x89MCAP0\r\n"
_OP_SCHEMA, _OP_CHANNEL, _OP_MESSAGE, _OP_CHUNK, _OP_DATA_END = 0x03, 0x04, 0x05, 0x06, 0x0F
_U16, _U32, _U64 = struct.Struct("<H"), struct.Struct("<I"), struct.Struct("<Q")
_RECORD = struct.Struct("<BQ")  # opcode, content length


def _string(buf, off: int) -> tuple[str, int]:
    (n,) = _U32.unpack_from(buf, off)
    return bytes(buf[off + 4 : off + 4 + n]).decode("utf-8", errors="replace"), off + 4 + n


#: The largest uncompressed chunk read, bytes (recorders write chunks of about 1 to 4 MiB; a
#: damaged size field is refused before memory is taken).
MAX_CHUNK_BYTES = 1 << 30


def _decompress(data: bytes, compression: str, size: int, where: str) -> bytes:
    """A chunk's records; FormatError when the chunk is not what its header says."""
    if compression not in ("", "zstd", "lz4"):
        raise FormatError(f"{where}: a chunk compressed with {compression!r} (zstd, lz4 or none)")
    if size > MAX_CHUNK_BYTES:
        raise FormatError(
            f"{where}: a chunk of {size} bytes uncompressed; at most {MAX_CHUNK_BYTES} are read "
            "(a damaged bag?)"
        )
    try:
        if compression == "zstd":
            import zstandard

            try:
                out = zstandard.ZstdDecompressor().decompress(data, max_output_size=size)
            except zstandard.ZstdError as exc:
                raise ValueError(str(exc)) from None
        elif compression == "lz4":
            import lz4.frame

            with lz4.frame.LZ4FrameDecompressor() as d:
                out = d.decompress(data, max_length=size)
        else:
            out = data
    except (RuntimeError, ValueError, MemoryError) as exc:  # lz4 raises RuntimeError
        raise FormatError(f"{where}: a damaged {compression} chunk ({exc})") from None
    if len(out) != size:
        raise FormatError(
            f"{where}: a {compression or 'plain'} chunk of {len(out)} bytes; its header says {size}"
        )
    return out


class _McapScan:
    """One pass over an MCAP file's data section (MCAP format v0, mcap.dev/spec): its schemas,
    channels and the messages of one channel, inside chunks or not; the summary section and the
    indexes are not needed (an unindexed bag from a recorder that stopped reads as well)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.schemas: dict[int, str] = {}
        self.channels: dict[int, tuple[str, int]] = {}  # id -> (topic, schema id)

    def _records(self, buf, wanted: str | None, out: list, in_chunk: bool = False) -> None:
        """Read the records in buf: schemas and channels; the messages of topic ``wanted``. A
        record cut short by the end of the file (a recorder that stopped) ends the reading."""
        off, end = 0, len(buf)
        channel = self._channel_of(wanted)
        while off + 9 <= end:
            op, length = _RECORD.unpack_from(buf, off)
            body = off + 9
            off = body + length
            if off > end:
                return
            if op == _OP_MESSAGE:
                if channel is None:
                    channel = self._channel_of(wanted)
                if channel is not None and _U16.unpack_from(buf, body)[0] == channel:
                    out.append(bytes(buf[body + 22 : off]))
            elif op == _OP_CHANNEL:
                (cid,) = _U16.unpack_from(buf, body)
                (sid,) = _U16.unpack_from(buf, body + 2)
                topic, _ = _string(buf, body + 4)
                self.channels[cid] = (topic, sid)
            elif op == _OP_SCHEMA:
                (sid,) = _U16.unpack_from(buf, body)
                self.schemas[sid], _ = _string(buf, body + 2)
            elif op == _OP_CHUNK:
                if in_chunk:
                    raise FormatError(f"{self.path}: not a readable MCAP file (a chunk in a chunk)")
                (size,) = _U64.unpack_from(buf, body + 16)
                compression, pos = _string(buf, body + 28)
                (n,) = _U64.unpack_from(buf, pos)
                data = _decompress(
                    bytes(buf[pos + 8 : pos + 8 + n]), compression, size, str(self.path)
                )
                self._records(memoryview(data), wanted, out, in_chunk=True)
            elif op == _OP_DATA_END:
                return

    def _channel_of(self, topic: str | None) -> int | None:
        for cid, (name, _) in self.channels.items():
            if name == topic:
                return cid
        return None

    def messages(self, topic: str | None) -> list[bytes]:
        """The payloads of ``topic`` in file order (after reading, ``topics()`` lists all)."""
        import mmap

        out: list[bytes] = []
        with open(self.path, "rb") as f:
            if f.read(len(_MAGIC)) != _MAGIC:
                raise FormatError(f"{self.path}: not a readable MCAP file (no MCAP magic)")
            with (
                mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data,
                memoryview(data) as view,
                view[len(_MAGIC) :] as records,
            ):
                try:
                    self._records(records, topic, out)
                except (struct.error, ValueError) as exc:
                    if isinstance(exc, FormatError):
                        raise
                    raise FormatError(f"{self.path}: not a readable MCAP file ({exc})") from None
        return out

    def topics(self) -> dict[str, str]:
        """topic -> message type of every channel."""
        return {t: self.schemas.get(s, "?") for t, s in self.channels.values()}


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
    scan = _McapScan(path)
    payloads = scan.messages(topic)
    topics = scan.topics()
    listing = ", ".join(f"{t} ({m})" for t, m in sorted(topics.items())) or (
        "none found (a bag cut short or damaged?)"
    )
    if topic is None:
        raise ConfigError(f"{path}: an mcap estimate needs --topic; the bag's topics: {listing}")
    if topic not in topics:
        raise FormatError(f"{path}: no topic {topic!r}; the bag's topics: {listing}")
    msg_type = topics[topic]
    if msg_type not in MESSAGE_TYPES:
        raise FormatError(
            f"{path}: topic {topic} has messages {msg_type}; an estimate is one of "
            f"{', '.join(MESSAGE_TYPES)}"
        )
    if not payloads:
        raise FormatError(f"{path}: topic {topic} has no messages")
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
