"""The MCAP container of a ROS 2 bag: :class:`Ros2BagWriter` and :func:`write_topics`.

The container (chunks, zstd, indexes, summary, CRCs) is written by the ``mcap`` library with the
``ros2`` profile; each topic's schema is its ``ros2msg`` definition
(:func:`navsense.output.ros2.msgdefs.msgdef`) and its messages are CDR payloads
(:mod:`navsense.output.ros2.cdr`). :func:`write_topics` writes the messages of several topics
(:class:`navsense.output.ros2.topics.TopicMessages`) in log-time order; log time = publish time.

:class:`Ros2BagWriter` is a context manager: it writes to a temporary name beside the target
and renames it when the ``with`` block ends without an exception; it refuses to overwrite.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from navsense import __version__
from navsense.errors import FormatError
from navsense.output.ros2.msgdefs import msgdef, ros2_name
from navsense.output.ros2.topics import TopicMessages

__all__ = ["LATCHED_QOS", "Ros2BagWriter", "write_topics"]

# The channel's offered_qos_profiles as rosbag2 records it: a YAML list of rmw_qos_profile_t with
# the integer enums (rosbag2_storage's qos.cpp, metadata version <= 8; Humble writes these and
# Jazzy's MCAP plugin reads a bag without rosbag2's own metadata record as version 8). This is
# what tf2_ros's StaticTransformBroadcaster offers: keep_last (1) depth 1, reliable (1),
# transient_local (1), liveliness automatic (1), durations unspecified ({0, 0}). `ros2 bag play`
# offers the recorded profile, so a late subscriber still gets the latched message.
LATCHED_QOS = (
    "- history: 1\n"
    "  depth: 1\n"
    "  reliability: 1\n"
    "  durability: 1\n"
    "  deadline:\n    sec: 0\n    nsec: 0\n"
    "  lifespan:\n    sec: 0\n    nsec: 0\n"
    "  liveliness: 1\n"
    "  liveliness_lease_duration:\n    sec: 0\n    nsec: 0\n"
    "  avoid_ros_namespace_conventions: false\n"
)


class Ros2BagWriter:
    """An MCAP file with the ros2 profile: ``with Ros2BagWriter(path) as bag: ...``.

    ``bag.channel(topic, msg_type)`` registers a topic (its schema once per type) and returns its
    id; ``bag.write(channel_id, log_ns, data)`` adds one CDR message, log time = publish time.
    The file is written under a temporary name beside ``path`` and renamed to ``path`` when the
    block ends without an exception (removed when it ends with one). An existing ``path`` is an
    error.
    """

    def __init__(self, path, *, metadata: Mapping[str, Mapping[str, str]] | None = None) -> None:
        self.path = Path(path)
        self._tmp_path = self.path.with_name(f".{self.path.name}.{os.getpid()}.partial")
        self._metadata = dict(metadata or {})
        self._file: Any = None  # the open temporary file
        self._writer: Any = None  # mcap.writer.Writer
        self._schemas: dict[str, int] = {}
        self._sequence: dict[int, int] = {}
        self.messages_written = 0

    def __enter__(self) -> Ros2BagWriter:
        from mcap import __version__ as mcap_version
        from mcap.writer import CompressionType, Writer

        if self.path.exists():
            raise FormatError(
                f"{self.path}: the bag exists; not overwriting it "
                "(remove it or choose another --out)"
            )
        if not self.path.parent.is_dir():
            raise FormatError(f"{self.path}: the folder {self.path.parent} does not exist")
        try:  # a failure or a stop here (no __exit__ follows) leaves no temporary file
            self._file = open(self._tmp_path, "wb")
            self._writer = Writer(self._file, compression=CompressionType.ZSTD)
            self._writer.start(
                profile="ros2", library=f"navsense {__version__}; mcap-python {mcap_version}"
            )
        except BaseException:
            f, self._file = self._file, None
            if f is not None:
                f.close()
            self._tmp_path.unlink(missing_ok=True)
            raise
        return self

    def channel(self, topic: str, msg_type: str, *, latched: bool = False) -> int:
        """Register ``topic`` with the message type ``msg_type`` (e.g. nav_msgs/msg/Odometry);
        ``latched``: offered with transient-local durability (:data:`LATCHED_QOS`)."""
        name = ros2_name(msg_type)
        if name not in self._schemas:
            self._schemas[name] = self._writer.register_schema(
                name=name, encoding="ros2msg", data=msgdef(name).encode("utf-8")
            )
        # the MCAP ros2 profile requires offered_qos_profiles; empty: `ros2 bag play` offers
        # its default QoS (reliable, volatile), as for a topic recorded without a publisher
        cid = self._writer.register_channel(
            topic=topic,
            message_encoding="cdr",
            schema_id=self._schemas[name],
            metadata={"offered_qos_profiles": LATCHED_QOS if latched else ""},
        )
        self._sequence[cid] = 0
        return cid

    def write(self, channel_id: int, log_ns: int, data: bytes) -> None:
        seq = self._sequence[channel_id]
        self._writer.add_message(
            channel_id=channel_id, log_time=log_ns, data=data, publish_time=log_ns, sequence=seq
        )
        self._sequence[channel_id] = seq + 1
        self.messages_written += 1

    def __exit__(self, exc_type, exc, tb) -> None:
        f, self._file = self._file, None
        if f is None:
            return
        try:
            try:
                if exc_type is None:
                    for name, data in self._metadata.items():
                        self._writer.add_metadata(name, dict(data))
                    self._writer.finish()
            finally:
                f.close()
            if exc_type is None:
                if self.path.exists():  # appeared while writing: still never overwrite
                    raise FormatError(
                        f"{self.path}: the bag appeared while writing; not overwriting it"
                    )
                os.replace(self._tmp_path, self.path)
        finally:  # whatever failed (a full disk while closing too): no temporary file left
            self._tmp_path.unlink(missing_ok=True)


_WINDOW_NS = 10_000_000_000  # messages are encoded and merged 10 s of log time at a time


def write_topics(bag: Ros2BagWriter, streams: list[TopicMessages]) -> None:
    """Write every topic's messages in log-time order (ties: topic order, then message order),
    encoding and merging ``_WINDOW_NS`` of log time at a time."""
    channels = [bag.channel(s.spec.topic, s.spec.msg_type, latched=s.spec.latched) for s in streams]
    for s in streams:
        if len(s.log_ns) and np.any(np.diff(s.log_ns) < 0):
            raise FormatError(f"{s.spec.topic}: the delivery times of its rows decrease")
    nonempty = [s.log_ns for s in streams if len(s.log_ns)]
    if not nonempty:
        return
    t0 = min(int(t[0]) for t in nonempty)
    t1 = max(int(t[-1]) for t in nonempty)
    lo = t0
    while lo <= t1:
        hi = lo + _WINDOW_NS
        blobs, logs, parts, rows = [], [], [], []
        for k, s in enumerate(streams):
            i0, i1 = np.searchsorted(s.log_ns, [lo, hi], side="left")
            if i1 <= i0:
                continue
            rec = s.encode(int(i0), int(i1))
            blobs.append((channels[k], rec.tobytes(), rec.dtype.itemsize))
            logs.append(s.log_ns[i0:i1])
            parts.append(np.full(i1 - i0, len(blobs) - 1))
            rows.append(np.arange(i1 - i0))
        lo = hi
        if not blobs:
            continue
        log, part, row = np.concatenate(logs), np.concatenate(parts), np.concatenate(rows)
        order = np.lexsort((row, part, log))
        for t, p, r in zip(log[order].tolist(), part[order].tolist(), row[order].tolist()):
            cid, blob, size = blobs[p]
            bag.write(cid, t, blob[r * size : (r + 1) * size])
