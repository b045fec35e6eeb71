"""ROS 2 bags in MCAP: the INS topics as the ROS 2 bridge publishes them (``navsense export mcap``).

Specification "INS and GNSS", section "INS", "Outputs" (ins_to_messages of the ROS 2 bridge,
conversions.cpp): each INS epoch becomes these messages. Topic names are absolute (as
``ros2 bag record`` stores them); message types are the ROS 2 Humble / Jazzy standard messages,
their definitions embedded in the bag as ``ros2msg`` schemas (so Foxglove and ``ros2 bag play``
decode them without a ROS installation).

=======================  ===================  ===========================  ====================
Polaris topic            Maxxum topic         message                      header frame_id
=======================  ===================  ===========================  ====================
/vehicle/odom            /odom                nav_msgs/msg/Odometry        utm (child base_footprint)
/oxts/fix                /gnss/fix            sensor_msgs/msg/NavSatFix    navsat_link | gnss_link
/oxts/imu                /imu/data            sensor_msgs/msg/Imu          oxts_link | base_footprint
/oxts/velocity           -                    geometry_msgs/msg/TwistStamped  oxts_link
/sim/ground_truth/odom   /ground_truth/odom   nav_msgs/msg/Odometry        utm (child base_footprint)
/tf                      /tf                  tf2_msgs/msg/TFMessage       utm -> base_footprint
=======================  ===================  ===========================  ====================

Optional topics (off by default, beyond the specification):

=======================  ===========================  ==========  ==============================
/gnss/receiver/fix       sensor_msgs/msg/NavSatFix    gnss_link   the GNSS receiver's own fix
                                                                  (``gnss.jsonl``), ``gnss_fix``
/imu/raw                 sensor_msgs/msg/Imu          imu_link    the IMU (``imu.jsonl``),
                                                                  ``raw_imu``
=======================  ===========================  ==========  ==============================

Contents (INS values from ``ins.frames``, full float64; times from ``ins.jsonl``)::

    odometry   pose.position = (InsUtmE, InsUtmN, InsUtmH)          UTM zone ins.utm_zone, m
               pose.orientation = q_utm = q_z(-alpha) q_ins         FLU -> UTM grid
               pose.covariance diagonal = (InsCovE, InsCovN, InsCovU,
                                           s_att^2, s_att^2, s_head^2)   m^2, rad^2
               twist.linear = (InsVelX, Y, Z) FLU m/s; twist.angular = (InsGyroX, Y, Z) FLU rad/s
               twist.covariance diagonal = (s_v^2 x 3, s_w^2 x 3)
    fix        latitude, longitude, altitude = InsLat, InsLon, InsHeight (ins.frame: NAD83(2011)
               or WGS84 (G2139) at the epoch; ellipsoidal height), status.status = 2
               (STATUS_GBAS_FIX, the specification's "status 2 (RTK)"), status.service = 1
               (SERVICE_GPS), position_covariance = diag(InsCovE, InsCovN, InsCovU),
               position_covariance_type = 2 (COVARIANCE_TYPE_DIAGONAL_KNOWN)
    imu        Polaris, the OxTS mounting axes (x left, y forward, z down):
                   q_imu = q_ins (x) (1/sqrt2, 1/sqrt2, 0, 0)_xyzw
                   (x, y, z)_imu = (y, x, -z)_FLU for the angular rate and the specific force
               Maxxum, body FLU: q_ins, (InsGyro), (InsAccel) unchanged.
               q_ins = (InsEnuQx..Qw), FLU -> grid ENU. Covariance diagonals: orientation
               (s_att^2, s_att^2, s_head^2) rad^2, rate s_w^2, specific force s_f^2
    velocity   twist.linear = (InsVelX, Y, Z) m/s, twist.angular = (InsGyroX, Y, Z) * 180/pi deg/s
    truth      the pose without errors in the same UTM frame: (InsTruthX, Y, Z),
               (InsTruthQx..Qw); twist zero and covariances zero (the frame carries only the
               truth speed, not the truth velocity vector)
    /tf        one geometry_msgs/TransformStamped a epoch: utm -> base_footprint, the pose of
               the odometry

    s_att, s_head   ins.attitude_sigma_deg, ins.heading_sigma_deg in rad; s_v, s_w, s_f
                    ins.velocity_white_mps, ins.gyro_white_radps, ins.accel_white_mps2 (the
                    one-sigma values of the INS error model; all zero with noise off)

Times: every header stamp is start_utc + sample_time_s (sec, nanosec); every message's log time
and publish time is start_utc + delivery_time_s (the row's delivery at the modelled latency).
Messages are written in log-time order (ties: topic order of the table, then epoch order).

Frame ids (navsense's choices where the specification names none): the Polaris IMU message uses
``oxts_link`` like the row and ``/oxts/velocity`` -- the bridge publishes both in that frame
although one is in the OxTS mounting axes and the other in FLU, so a URDF can make only one of
them right; the Maxxum IMU message is the base_footprint point in body FLU axes, so its frame is
``base_footprint`` (resolvable with the bag's own /tf). The receiver's fix uses ``gnss_link`` and
the raw IMU ``imu_link``; the bag carries no transform for those frames.

Encoding. Each topic's messages have a fixed layout (constant frame ids), so the CDR payloads
(XCDR1 little endian, ``00 01 00 00`` encapsulation header, natural alignment from the end of
the header) are built for whole blocks of epochs at once from a numpy structured dtype compiled
from the message definition (:class:`CdrLayout`); the MCAP container (chunks, zstd, indexes,
summary, CRCs) is written by the ``mcap`` library. The tests decode every topic with rosbags'
Humble typestore and compare the payloads byte for byte with mcap-ros2-support's encoder.
A message encoded one at a time by a generic encoder costs ~50 us, which would make a
10-minute acre-loop export (360 000 messages) take ~20 s; this takes ~2 s.

:class:`Ros2BagWriter` is a context manager: it writes to a temporary name beside the target
and renames it when the ``with`` block ends without an exception; it refuses to overwrite.
"""

from __future__ import annotations

import functools
import json
import math
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from navsense import __version__
from navsense.errors import FormatError
from navsense.output.frames import INS_FIELD_INDEX, read_ins_frames
from navsense.rotation import quat_multiply

__all__ = [
    "write_mcap",
    "Ros2BagWriter",
    "CdrLayout",
    "msgdef",
    "row_times",
    "read_episode",
    "utc_ns",
    "DEFAULT_BAG_NAME",
    "POLARIS_TOPICS",
    "MAXXUM_TOPICS",
    "GNSS_FIX_TOPIC",
    "RAW_IMU_TOPIC",
    "OXTS_MOUNT_XYZW",
    "NAVSAT_STATUS_OF_FIX",
    "CDR_LE_HEADER",
    "TopicSpec",
    "TopicMessages",
    "topics_for",
    "ins_topic_messages",
    "gnss_fix_messages",
    "raw_imu_messages",
    "odometry_layout",
    "encode_odometry",
    "navsatfix_layout",
    "encode_navsatfix",
    "imu_layout",
    "encode_imu",
    "twist_stamped_layout",
    "encode_twist_stamped",
    "tf_layout",
    "encode_tf",
]

DEFAULT_BAG_NAME = "ros2.mcap"  # RUN_DIR/ros2.mcap unless --out says otherwise

# ------------------------------------------------------------------------------ message catalog
# ROS 2 Humble / Jazzy definitions (identical in both distributions) of the messages written,
# without comments; the dependency closure is appended in the "ros2msg" schema format of rosbag2
# (a line of 80 "=", then "MSG: pkg/Type", then the body). Source: the .msg files of
# ros2/common_interfaces, ros2/rcl_interfaces (builtin_interfaces), ros2/geometry2 (tf2_msgs).
_MSG_BODIES: dict[str, str] = {
    "builtin_interfaces/Time": "int32 sec\nuint32 nanosec\n",
    "std_msgs/Header": "builtin_interfaces/Time stamp\nstring frame_id\n",
    "geometry_msgs/Vector3": "float64 x\nfloat64 y\nfloat64 z\n",
    "geometry_msgs/Point": "float64 x\nfloat64 y\nfloat64 z\n",
    "geometry_msgs/Quaternion": "float64 x\nfloat64 y\nfloat64 z\nfloat64 w\n",
    "geometry_msgs/Pose": "geometry_msgs/Point position\ngeometry_msgs/Quaternion orientation\n",
    "geometry_msgs/PoseWithCovariance": "geometry_msgs/Pose pose\nfloat64[36] covariance\n",
    "geometry_msgs/Twist": "geometry_msgs/Vector3 linear\ngeometry_msgs/Vector3 angular\n",
    "geometry_msgs/TwistWithCovariance": "geometry_msgs/Twist twist\nfloat64[36] covariance\n",
    "geometry_msgs/TwistStamped": "std_msgs/Header header\ngeometry_msgs/Twist twist\n",
    "geometry_msgs/Transform": "geometry_msgs/Vector3 translation\n"
    "geometry_msgs/Quaternion rotation\n",
    "geometry_msgs/TransformStamped": "std_msgs/Header header\nstring child_frame_id\n"
    "geometry_msgs/Transform transform\n",
    "nav_msgs/Odometry": "std_msgs/Header header\nstring child_frame_id\n"
    "geometry_msgs/PoseWithCovariance pose\n"
    "geometry_msgs/TwistWithCovariance twist\n",
    "sensor_msgs/NavSatStatus": "int8 STATUS_NO_FIX=-1\nint8 STATUS_FIX=0\nint8 STATUS_SBAS_FIX=1\n"
    "int8 STATUS_GBAS_FIX=2\nuint16 SERVICE_GPS=1\n"
    "uint16 SERVICE_GLONASS=2\nuint16 SERVICE_COMPASS=4\n"
    "uint16 SERVICE_GALILEO=8\nint8 status\nuint16 service\n",
    "sensor_msgs/NavSatFix": "uint8 COVARIANCE_TYPE_UNKNOWN=0\nuint8 COVARIANCE_TYPE_APPROXIMATED=1\n"
    "uint8 COVARIANCE_TYPE_DIAGONAL_KNOWN=2\nuint8 COVARIANCE_TYPE_KNOWN=3\n"
    "std_msgs/Header header\nsensor_msgs/NavSatStatus status\n"
    "float64 latitude\nfloat64 longitude\nfloat64 altitude\n"
    "float64[9] position_covariance\nuint8 position_covariance_type\n",
    "sensor_msgs/Imu": "std_msgs/Header header\ngeometry_msgs/Quaternion orientation\n"
    "float64[9] orientation_covariance\n"
    "geometry_msgs/Vector3 angular_velocity\n"
    "float64[9] angular_velocity_covariance\n"
    "geometry_msgs/Vector3 linear_acceleration\n"
    "float64[9] linear_acceleration_covariance\n",
    "tf2_msgs/TFMessage": "geometry_msgs/TransformStamped[] transforms\n",
}
_SEPARATOR = "=" * 80 + "\n"
_PRIMITIVES = {  # ROS 2 primitive -> little-endian numpy type (CDR alignment = item size)
    "bool": "u1",
    "byte": "u1",
    "char": "u1",
    "int8": "i1",
    "uint8": "u1",
    "int16": "<i2",
    "uint16": "<u2",
    "int32": "<i4",
    "uint32": "<u4",
    "int64": "<i8",
    "uint64": "<u8",
    "float32": "<f4",
    "float64": "<f8",
}
_FIELD_RE = re.compile(r"^([A-Za-z0-9_/]+)(\[(\d*)\])?\s+([A-Za-z0-9_]+)$")
CDR_LE_HEADER = b"\x00\x01\x00\x00"  # encapsulation: CDR (XCDR1), little endian, options 0

# sensor_msgs/NavSatStatus and NavSatFix constants
STATUS_NO_FIX, STATUS_FIX, STATUS_SBAS_FIX, STATUS_GBAS_FIX = -1, 0, 1, 2
SERVICE_GPS, SERVICE_GLONASS, SERVICE_GALILEO = 1, 2, 8
COVARIANCE_TYPE_UNKNOWN, COVARIANCE_TYPE_DIAGONAL_KNOWN = 0, 2
# gnss.jsonl fix_type -> NavSatStatus.status (the receiver's own fix, --gnss-fix)
NAVSAT_STATUS_OF_FIX = {
    "no_fix": STATUS_NO_FIX,
    "single": STATUS_FIX,
    "dgps": STATUS_SBAS_FIX,
    "rtk_float": STATUS_GBAS_FIX,
    "rtk_fixed": STATUS_GBAS_FIX,
}
INS_FIX_STATUS = STATUS_GBAS_FIX  # spec "Fix and UTM Odometry": status 2 (RTK)
INS_FIX_SERVICE = SERVICE_GPS  # spec "Outputs": service 1

# spec "Outputs": q_imu = q_ins (x) (1/sqrt2, 1/sqrt2, 0, 0)_xyzw -- the rotation from the OxTS
# mounting axes (x left, y forward, z down) to body FLU (a half turn about (1, 1, 0)/sqrt2)
OXTS_MOUNT_XYZW = np.array([math.sqrt(0.5), math.sqrt(0.5), 0.0, 0.0])
_RAD_TO_DEG = 180.0 / math.pi
_COV3_DIAG = (0, 4, 8)  # diagonal of a row-major 3 x 3 covariance
_COV6_DIAG = (0, 7, 14, 21, 28, 35)  # diagonal of a row-major 6 x 6 covariance


def _ros2_name(type_name: str) -> str:
    """nav_msgs/Odometry -> nav_msgs/msg/Odometry (the schema name rosbag2 writes)."""
    pkg, name = type_name.replace("/msg/", "/").split("/")
    return f"{pkg}/msg/{name}"


def _short_name(type_name: str) -> str:
    """nav_msgs/msg/Odometry -> nav_msgs/Odometry (the name inside message definitions)."""
    return type_name.replace("/msg/", "/")


def _fields(type_name: str) -> list[tuple[str, int | None, str]]:
    """(type, array length (None: scalar, -1: sequence), name) of each field of a message."""
    try:
        body = _MSG_BODIES[_short_name(type_name)]
    except KeyError:
        raise FormatError(f"message type {type_name!r} is not in navsense's catalog") from None
    out = []
    for line in body.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line or "=" in line:  # blank, comment or constant
            continue
        m = _FIELD_RE.match(line)
        if m is None:  # pragma: no cover - catalog guard
            raise FormatError(f"{type_name}: cannot parse the field {line!r}")
        ftype, is_array, length, name = m.groups()
        count = None if not is_array else (int(length) if length else -1)
        out.append((ftype, count, name))
    return out


def msgdef(type_name: str) -> str:
    """The ros2msg schema text of a message: its body, then each dependency once (depth first)."""
    root = _short_name(type_name)
    order: list[str] = []

    def visit(t: str) -> None:
        for ftype, _, _ in _fields(t):
            if ftype not in _PRIMITIVES and ftype != "string" and ftype not in order:
                order.append(ftype)
                visit(ftype)

    visit(root)
    text = _MSG_BODIES[root]
    for dep in order:
        text += _SEPARATOR + f"MSG: {dep}\n" + _MSG_BODIES[dep]
    return text


# ------------------------------------------------------------------------------------- CDR
class CdrLayout:
    """The fixed CDR layout of one message type with constant strings and sequence lengths.

    ``CdrLayout("nav_msgs/msg/Odometry", strings={"header.frame_id": "utm", ...},
    sequences={"transforms": 1})``. Fields are named by their dotted path ("pose.pose.position.x",
    "transforms.0.header.stamp.sec"); fixed arrays ("pose.covariance") are sub-arrays. Every
    string and every sequence of the message must be given (a layout is fixed-size only then).
    :meth:`records` returns ``m`` messages as a structured array whose bytes are the CDR
    payloads (encapsulation header included) back to back, each ``itemsize`` bytes.
    """

    def __init__(
        self,
        type_name: str,
        strings: Mapping[str, str] | None = None,
        sequences: Mapping[str, int] | None = None,
    ) -> None:
        self.type_name = _ros2_name(type_name)
        self._strings = dict(strings or {})
        self._sequences = dict(sequences or {})
        self._pos = 0  # offset from the end of the encapsulation header
        self._names: list[str] = []
        self._formats: list = []
        self._offsets: list[int] = []
        self._const: list[tuple[int, bytes]] = []
        self._used: set[str] = set()
        self._walk(_short_name(type_name), "")
        unused = (set(self._strings) | set(self._sequences)) - self._used
        if unused:
            raise FormatError(f"{self.type_name}: no string or sequence field {sorted(unused)}")
        size = len(CDR_LE_HEADER) + self._pos
        self.dtype = np.dtype(
            {
                "names": self._names,
                "formats": self._formats,
                "offsets": [len(CDR_LE_HEADER) + o for o in self._offsets],
                "itemsize": size,
            }
        )
        template = bytearray(size)
        template[:4] = CDR_LE_HEADER
        for off, data in self._const:
            template[4 + off : 4 + off + len(data)] = data
        self._template = np.frombuffer(bytes(template), dtype=np.uint8)

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    def _align(self, n: int) -> None:
        self._pos += (-self._pos) % n

    def _walk(self, type_name: str, prefix: str) -> None:
        for ftype, count, name in _fields(type_name):
            path = prefix + name
            if ftype == "string":
                if count is not None:  # pragma: no cover - not in the catalog
                    raise FormatError(f"{path}: string arrays are not supported")
                if path not in self._strings:
                    raise FormatError(f"{self.type_name}: the string {path} needs a constant value")
                self._used.add(path)
                data = self._strings[path].encode("utf-8") + b"\x00"
                self._align(4)
                self._const.append((self._pos, len(data).to_bytes(4, "little") + data))
                self._pos += 4 + len(data)
            elif count == -1:
                if path not in self._sequences:
                    raise FormatError(f"{self.type_name}: the sequence {path} needs a fixed length")
                self._used.add(path)
                n = int(self._sequences[path])
                self._align(4)
                self._const.append((self._pos, n.to_bytes(4, "little")))
                self._pos += 4
                for k in range(n):
                    self._element(ftype, None, f"{path}.{k}")
            else:
                self._element(ftype, count, path)

    def _element(self, ftype: str, count: int | None, path: str) -> None:
        if ftype in _PRIMITIVES:
            dt = np.dtype(_PRIMITIVES[ftype])
            self._align(dt.itemsize)
            self._names.append(path)
            self._formats.append(dt if count is None else (dt, (count,)))
            self._offsets.append(self._pos)
            self._pos += dt.itemsize * (count or 1)
        elif count is None:
            self._walk(ftype, path + ".")
        else:  # fixed array of messages: not in the catalog
            for k in range(count):  # pragma: no cover
                self._walk(ftype, f"{path}.{k}.")

    def records(self, m: int) -> np.ndarray:
        """``m`` messages with the constant fields set and every other field zero."""
        rec = np.empty(m, dtype=self.dtype)
        rec.view(np.uint8).reshape(m, self.itemsize)[:] = self._template
        return rec


def _set_stamp(rec: np.ndarray, prefix: str, stamp_ns: np.ndarray) -> None:
    rec[prefix + "sec"] = stamp_ns // 1_000_000_000
    rec[prefix + "nanosec"] = stamp_ns % 1_000_000_000


def _set_xyz(rec: np.ndarray, prefix: str, v: np.ndarray) -> None:
    rec[prefix + "x"], rec[prefix + "y"], rec[prefix + "z"] = v[:, 0], v[:, 1], v[:, 2]


def _set_xyzw(rec: np.ndarray, prefix: str, q: np.ndarray) -> None:
    _set_xyz(rec, prefix, q)
    rec[prefix + "w"] = q[:, 3]


def _set_diag(rec: np.ndarray, name: str, index: tuple, diag) -> None:
    view = rec[name]
    view[:, list(index)] = np.broadcast_to(
        np.asarray(diag, dtype=np.float64), (len(rec), len(index))
    )


# ---------------------------------------------------------------------------- message blocks
@functools.cache  # a layout is immutable; building one costs ~0.4 ms
def odometry_layout(frame_id: str, child_frame_id: str) -> CdrLayout:
    return CdrLayout(
        "nav_msgs/msg/Odometry",
        strings={"header.frame_id": frame_id, "child_frame_id": child_frame_id},
    )


def encode_odometry(
    layout: CdrLayout, stamp_ns, position, q_xyzw, pose_cov_diag, linear, angular, twist_cov_diag
) -> np.ndarray:
    """nav_msgs/Odometry messages: (m,) stamps, (m, 3) position, (m, 4) orientation, (m, 6) or
    (6,) pose covariance diagonal, (m, 3) twist, (m, 6) or (6,) twist covariance diagonal."""
    rec = layout.records(len(stamp_ns))
    _set_stamp(rec, "header.stamp.", stamp_ns)
    _set_xyz(rec, "pose.pose.position.", position)
    _set_xyzw(rec, "pose.pose.orientation.", q_xyzw)
    _set_diag(rec, "pose.covariance", _COV6_DIAG, pose_cov_diag)
    _set_xyz(rec, "twist.twist.linear.", linear)
    _set_xyz(rec, "twist.twist.angular.", angular)
    _set_diag(rec, "twist.covariance", _COV6_DIAG, twist_cov_diag)
    return rec


@functools.cache
def navsatfix_layout(frame_id: str) -> CdrLayout:
    return CdrLayout("sensor_msgs/msg/NavSatFix", strings={"header.frame_id": frame_id})


def encode_navsatfix(
    layout: CdrLayout, stamp_ns, status, service, lat_deg, lon_deg, alt_m, cov9, cov_type
) -> np.ndarray:
    """sensor_msgs/NavSatFix messages; ``cov9`` (m, 9) row-major ENU m^2."""
    rec = layout.records(len(stamp_ns))
    _set_stamp(rec, "header.stamp.", stamp_ns)
    rec["status.status"] = status
    rec["status.service"] = service
    rec["latitude"], rec["longitude"], rec["altitude"] = lat_deg, lon_deg, alt_m
    rec["position_covariance"] = cov9
    rec["position_covariance_type"] = cov_type
    return rec


@functools.cache
def imu_layout(frame_id: str) -> CdrLayout:
    return CdrLayout("sensor_msgs/msg/Imu", strings={"header.frame_id": frame_id})


def encode_imu(
    layout: CdrLayout, stamp_ns, q_xyzw, q_cov9, rate, rate_cov9, accel, accel_cov9
) -> np.ndarray:
    """sensor_msgs/Imu messages; covariances (m, 9) or (9,) row-major."""
    rec = layout.records(len(stamp_ns))
    _set_stamp(rec, "header.stamp.", stamp_ns)
    _set_xyzw(rec, "orientation.", q_xyzw)
    rec["orientation_covariance"] = q_cov9
    _set_xyz(rec, "angular_velocity.", rate)
    rec["angular_velocity_covariance"] = rate_cov9
    _set_xyz(rec, "linear_acceleration.", accel)
    rec["linear_acceleration_covariance"] = accel_cov9
    return rec


@functools.cache
def twist_stamped_layout(frame_id: str) -> CdrLayout:
    return CdrLayout("geometry_msgs/msg/TwistStamped", strings={"header.frame_id": frame_id})


def encode_twist_stamped(layout: CdrLayout, stamp_ns, linear, angular) -> np.ndarray:
    rec = layout.records(len(stamp_ns))
    _set_stamp(rec, "header.stamp.", stamp_ns)
    _set_xyz(rec, "twist.linear.", linear)
    _set_xyz(rec, "twist.angular.", angular)
    return rec


@functools.cache
def tf_layout(parent: str, child: str) -> CdrLayout:
    return CdrLayout(
        "tf2_msgs/msg/TFMessage",
        sequences={"transforms": 1},
        strings={"transforms.0.header.frame_id": parent, "transforms.0.child_frame_id": child},
    )


def encode_tf(layout: CdrLayout, stamp_ns, translation, rotation) -> np.ndarray:
    """tf2_msgs/TFMessage messages of one transform each."""
    rec = layout.records(len(stamp_ns))
    _set_stamp(rec, "transforms.0.header.stamp.", stamp_ns)
    _set_xyz(rec, "transforms.0.transform.translation.", translation)
    _set_xyzw(rec, "transforms.0.transform.rotation.", rotation)
    return rec


# ------------------------------------------------------------------------------------ writer
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
        self._file = open(self._tmp_path, "wb")
        self._writer = Writer(self._file, compression=CompressionType.ZSTD)
        self._writer.start(
            profile="ros2", library=f"navsense {__version__}; mcap-python {mcap_version}"
        )
        return self

    def channel(self, topic: str, msg_type: str) -> int:
        """Register ``topic`` with the message type ``msg_type`` (e.g. nav_msgs/msg/Odometry)."""
        name = _ros2_name(msg_type)
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
            metadata={"offered_qos_profiles": ""},
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


# ---------------------------------------------------------------------------------- run data
_TIMES_RE = re.compile(
    rb'^\{"sample_time_s":([^,]+),"available_time_s":([^,]+),'
    rb'"delivery_time_s":([^,]+),',
    re.MULTILINE,
)


def row_times(path) -> np.ndarray:
    """(m, 3) float64: sample_time_s, available_time_s, delivery_time_s of each row of a run file.

    The orchestrator writes the three keys first in every row (simulate.py), so they are read
    without parsing the rest of the row (about twice as fast as a full parse for ins.jsonl).
    """
    path = Path(path)
    data = path.read_bytes()
    found = _TIMES_RE.findall(data)
    n_lines = data.count(b"\n") + (0 if not data or data.endswith(b"\n") else 1)
    if len(found) != n_lines:
        raise FormatError(
            f"{path}: {n_lines} rows but {len(found)} start with sample_time_s, "
            "available_time_s, delivery_time_s"
        )
    return np.array(found, dtype=np.float64).reshape(-1, 3)


def utc_ns(text: str) -> int:
    """POSIX nanoseconds (UTC, no leap seconds) of an ISO 8601 time (microsecond precision)."""
    from navsense.geo.epoch import parse_utc

    return round(parse_utc(text) * 1e6) * 1000


def _seconds_to_ns(t_s: np.ndarray) -> np.ndarray:
    """Episode seconds (written with 9 decimals) -> int64 nanoseconds."""
    return np.round(np.asarray(t_s, dtype=np.float64) * 1e9).astype(np.int64)


def _read_jsonl(path: Path) -> list[dict]:
    with open(path, "rb") as f:
        return [orjson.loads(line) for line in f if line.strip()]


def read_episode(run_dir) -> dict:
    """episode.json of a run directory (FormatError when missing or malformed)."""
    run_dir = Path(run_dir)
    path = run_dir / "episode.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FormatError(f"{run_dir}: no episode.json; is it a navsense run directory?") from None
    except json.JSONDecodeError as exc:
        raise FormatError(f"{path}: line {exc.lineno} column {exc.colno}: {exc.msg}") from None


# ----------------------------------------------------------------------------------- topics
@dataclass(frozen=True)
class TopicSpec:
    """One topic of the bag: name, message type, header frame id, child frame id."""

    topic: str
    msg_type: str
    frame_id: str
    child_frame_id: str = ""


POLARIS_TOPICS: dict[str, TopicSpec] = {
    "odom": TopicSpec("/vehicle/odom", "nav_msgs/msg/Odometry", "utm", "base_footprint"),
    "fix": TopicSpec("/oxts/fix", "sensor_msgs/msg/NavSatFix", "navsat_link"),
    "imu": TopicSpec("/oxts/imu", "sensor_msgs/msg/Imu", "oxts_link"),
    "velocity": TopicSpec("/oxts/velocity", "geometry_msgs/msg/TwistStamped", "oxts_link"),
    "truth": TopicSpec("/sim/ground_truth/odom", "nav_msgs/msg/Odometry", "utm", "base_footprint"),
    "tf": TopicSpec("/tf", "tf2_msgs/msg/TFMessage", "utm", "base_footprint"),
}
MAXXUM_TOPICS: dict[str, TopicSpec] = {
    "odom": TopicSpec("/odom", "nav_msgs/msg/Odometry", "utm", "base_footprint"),
    "fix": TopicSpec("/gnss/fix", "sensor_msgs/msg/NavSatFix", "gnss_link"),
    "imu": TopicSpec("/imu/data", "sensor_msgs/msg/Imu", "base_footprint"),
    "truth": TopicSpec("/ground_truth/odom", "nav_msgs/msg/Odometry", "utm", "base_footprint"),
    "tf": TopicSpec("/tf", "tf2_msgs/msg/TFMessage", "utm", "base_footprint"),
}
GNSS_FIX_TOPIC = TopicSpec("/gnss/receiver/fix", "sensor_msgs/msg/NavSatFix", "gnss_link")
RAW_IMU_TOPIC = TopicSpec("/imu/raw", "sensor_msgs/msg/Imu", "imu_link")


def topics_for(vehicle: str) -> dict[str, TopicSpec]:
    """The INS topics of a vehicle: the Polaris table for "polaris", the Maxxum table otherwise."""
    return POLARIS_TOPICS if vehicle == "polaris" else MAXXUM_TOPICS


@dataclass
class TopicMessages:
    """One topic's messages: log times (m,) int64 ns, nondecreasing, and an encoder of rows
    (``encode(i0, i1)``: the CDR records of messages i0 .. i1 - 1)."""

    spec: TopicSpec
    log_ns: np.ndarray
    encode: Callable[[int, int], np.ndarray]  # rows [i0, i1) -> structured CDR records


def _ins_sigmas(cfg: Mapping, noise: bool) -> dict[str, float]:
    """The INS one-sigma values (SI) of the configuration; zero with noise off."""
    ins = cfg.get("ins", {})
    k = 1.0 if noise else 0.0
    deg = math.pi / 180.0
    return {
        "attitude_rad": k * float(ins.get("attitude_sigma_deg", 0.0)) * deg,
        "heading_rad": k * float(ins.get("heading_sigma_deg", 0.0)) * deg,
        "velocity_mps": k * float(ins.get("velocity_white_mps", 0.0)),
        "gyro_radps": k * float(ins.get("gyro_white_radps", 0.0)),
        "accel_mps2": k * float(ins.get("accel_white_mps2", 0.0)),
    }


def _ins_streams(run_dir: Path, episode: Mapping, start_ns: int) -> list[TopicMessages]:
    frames_path, rows_path = run_dir / "ins.frames", run_dir / "ins.jsonl"
    frames = read_ins_frames(frames_path)
    times = row_times(rows_path)
    if len(frames) != len(times):
        raise FormatError(
            f"{run_dir}: ins.frames has {len(frames)} epochs but ins.jsonl {len(times)} rows"
        )
    return ins_topic_messages(frames, times[:, 0], times[:, 2], episode, start_ns)


def ins_topic_messages(
    frames: np.ndarray,
    sample_time_s: np.ndarray,
    delivery_time_s: np.ndarray,
    episode: Mapping,
    start_ns: int,
) -> list[TopicMessages]:
    """The INS topics of a vehicle (module docstring) of ``frames`` (m, 40), the ``ins.frames``
    records, whose rows have the sample and delivery times given (s). ``episode``: the run's
    episode.json or its keys ``vehicle``, ``noise`` and ``config``; ``start_ns`` start_utc in
    ns since the Unix epoch."""
    topics = topics_for(str(episode.get("vehicle", "")))
    polaris = topics is POLARIS_TOPICS
    stamp = start_ns + _seconds_to_ns(sample_time_s)
    log = start_ns + _seconds_to_ns(delivery_time_s)
    col = lambda name: frames[:, INS_FIELD_INDEX[name]]
    cols = lambda *names: frames[:, [INS_FIELD_INDEX[n] for n in names]]
    utm_pos = cols("InsUtmE", "InsUtmN", "InsUtmH")
    q_utm = cols("InsUtmQx", "InsUtmQy", "InsUtmQz", "InsUtmQw")
    q_enu = cols("InsEnuQx", "InsEnuQy", "InsEnuQz", "InsEnuQw")
    vel = cols("InsVelX", "InsVelY", "InsVelZ")
    gyro = cols("InsGyroX", "InsGyroY", "InsGyroZ")
    accel = cols("InsAccelX", "InsAccelY", "InsAccelZ")
    cov = cols("InsCovE", "InsCovN", "InsCovU")
    lat, lon, height = col("InsLat"), col("InsLon"), col("InsHeight")
    truth_pos = cols("InsTruthX", "InsTruthY", "InsTruthZ")
    truth_q = cols("InsTruthQx", "InsTruthQy", "InsTruthQz", "InsTruthQw")

    s = _ins_sigmas(episode.get("config", {}), bool(episode.get("noise", True)))
    att2, head2 = s["attitude_rad"] ** 2, s["heading_rad"] ** 2
    pose_cov = np.concatenate([cov, np.broadcast_to([att2, att2, head2], (len(cov), 3))], axis=1)
    twist_cov = [s["velocity_mps"] ** 2] * 3 + [s["gyro_radps"] ** 2] * 3
    q_cov9 = np.diag([att2, att2, head2]).ravel()  # roll, pitch, yaw: the same in both axes sets
    rate_cov9 = np.diag([s["gyro_radps"] ** 2] * 3).ravel()
    accel_cov9 = np.diag([s["accel_mps2"] ** 2] * 3).ravel()
    fix_cov9 = np.zeros((len(cov), 9))
    fix_cov9[:, list(_COV3_DIAG)] = cov
    if polaris:  # the OxTS mounting axes: x left, y forward, z down
        imu_q = quat_multiply(q_enu, OXTS_MOUNT_XYZW)
        swap = lambda v: np.stack([v[:, 1], v[:, 0], -v[:, 2]], axis=-1)
        imu_rate, imu_accel = swap(gyro), swap(accel)
    else:
        imu_q, imu_rate, imu_accel = q_enu, gyro, accel
    zeros3 = np.zeros((len(cov), 3))

    streams = []
    spec = topics["odom"]
    lay_odom = odometry_layout(spec.frame_id, spec.child_frame_id)
    streams.append(
        TopicMessages(
            spec,
            log,
            lambda a, b: encode_odometry(
                lay_odom,
                stamp[a:b],
                utm_pos[a:b],
                q_utm[a:b],
                pose_cov[a:b],
                vel[a:b],
                gyro[a:b],
                twist_cov,
            ),
        )
    )
    spec = topics["fix"]
    lay_fix = navsatfix_layout(spec.frame_id)
    streams.append(
        TopicMessages(
            spec,
            log,
            lambda a, b: encode_navsatfix(
                lay_fix,
                stamp[a:b],
                INS_FIX_STATUS,
                INS_FIX_SERVICE,
                lat[a:b],
                lon[a:b],
                height[a:b],
                fix_cov9[a:b],
                COVARIANCE_TYPE_DIAGONAL_KNOWN,
            ),
        )
    )
    spec = topics["imu"]
    lay_imu = imu_layout(spec.frame_id)
    streams.append(
        TopicMessages(
            spec,
            log,
            lambda a, b: encode_imu(
                lay_imu,
                stamp[a:b],
                imu_q[a:b],
                q_cov9,
                imu_rate[a:b],
                rate_cov9,
                imu_accel[a:b],
                accel_cov9,
            ),
        )
    )
    if "velocity" in topics:
        spec = topics["velocity"]
        lay_vel = twist_stamped_layout(spec.frame_id)
        streams.append(
            TopicMessages(
                spec,
                log,
                lambda a, b: encode_twist_stamped(
                    lay_vel, stamp[a:b], vel[a:b], gyro[a:b] * _RAD_TO_DEG
                ),
            )
        )
    spec = topics["truth"]
    lay_truth = odometry_layout(spec.frame_id, spec.child_frame_id)
    streams.append(
        TopicMessages(
            spec,
            log,
            lambda a, b: encode_odometry(
                lay_truth,
                stamp[a:b],
                truth_pos[a:b],
                truth_q[a:b],
                0.0,
                zeros3[a:b],
                zeros3[a:b],
                0.0,
            ),
        )
    )
    spec = topics["tf"]
    lay_tf = tf_layout(spec.frame_id, spec.child_frame_id)
    streams.append(
        TopicMessages(
            spec, log, lambda a, b: encode_tf(lay_tf, stamp[a:b], utm_pos[a:b], q_utm[a:b])
        )
    )
    return streams


def _gnss_fix_stream(run_dir: Path, episode: Mapping, start_ns: int) -> TopicMessages:
    path = run_dir / "gnss.jsonl"
    if not path.is_file():
        raise FormatError(f"{run_dir}: no gnss.jsonl (GNSS receiver off); --gnss-fix needs it")
    return gnss_fix_messages(_read_jsonl(path), episode, start_ns, where=str(path))


def gnss_fix_messages(
    rows: list[dict], episode: Mapping, start_ns: int, where: str = "gnss.jsonl"
) -> TopicMessages:
    """/gnss/receiver/fix of the GNSS receiver's ``rows`` (``gnss.jsonl``); ``where`` names them
    in errors. ``episode``, ``start_ns``: as :func:`ins_topic_messages`."""
    m = len(rows)
    if m and "latitude_deg" not in rows[0]:
        raise FormatError(
            f"{where}: the rows have no latitude_deg (a site without a "
            "georeference); --gnss-fix needs the geodetic output"
        )
    times = np.array(
        [[r["sample_time_s"], r["delivery_time_s"]] for r in rows], dtype=np.float64
    ).reshape(-1, 2)
    try:
        status = np.array([NAVSAT_STATUS_OF_FIX[r["fix_type"]] for r in rows], dtype=np.int8)
    except KeyError as exc:
        raise FormatError(
            f"{where}: fix_type {exc.args[0]!r} is not one of {', '.join(NAVSAT_STATUS_OF_FIX)}"
        ) from None
    nan = float("nan")
    geo = np.array(
        [
            [
                nan if r["latitude_deg"] is None else r["latitude_deg"],
                nan if r["longitude_deg"] is None else r["longitude_deg"],
                nan if r["ellipsoidal_height_m"] is None else r["ellipsoidal_height_m"],
            ]
            for r in rows
        ],
        dtype=np.float64,
    ).reshape(-1, 3)
    cov9 = np.array([r["covariance_enu_m2"] or [0.0] * 9 for r in rows], dtype=np.float64).reshape(
        -1, 9
    )
    cov_type = np.where(
        status == STATUS_NO_FIX, COVARIANCE_TYPE_UNKNOWN, COVARIANCE_TYPE_DIAGONAL_KNOWN
    ).astype(np.uint8)
    systems = episode.get("config", {}).get("gnss", {}).get("constellations", {})
    service = (
        (SERVICE_GPS if systems.get("gps", True) else 0)
        | (SERVICE_GLONASS if systems.get("glonass", False) else 0)
        | (SERVICE_GALILEO if systems.get("galileo", False) else 0)
    )
    stamp = start_ns + _seconds_to_ns(times[:, 0])
    log = start_ns + _seconds_to_ns(times[:, 1])
    spec = GNSS_FIX_TOPIC
    lay = navsatfix_layout(spec.frame_id)
    return TopicMessages(
        spec,
        log,
        lambda a, b: encode_navsatfix(
            lay,
            stamp[a:b],
            status[a:b],
            service,
            geo[a:b, 0],
            geo[a:b, 1],
            geo[a:b, 2],
            cov9[a:b],
            cov_type[a:b],
        ),
    )


def _raw_imu_stream(run_dir: Path, episode: Mapping, start_ns: int) -> TopicMessages:
    path = run_dir / "imu.jsonl"
    if not path.is_file():
        raise FormatError(f"{run_dir}: no imu.jsonl (IMU off); --raw-imu needs it")
    return raw_imu_messages(_read_jsonl(path), episode, start_ns)


def raw_imu_messages(rows: list[dict], episode: Mapping, start_ns: int) -> TopicMessages:
    """/imu/raw of the IMU's ``rows`` (``imu.jsonl``); ``episode``, ``start_ns``: as
    :func:`ins_topic_messages`."""
    times = np.array(
        [[r["sample_time_s"], r["delivery_time_s"]] for r in rows], dtype=np.float64
    ).reshape(-1, 2)
    force = np.array([r["specific_force_flu_mps2"] for r in rows], dtype=np.float64).reshape(-1, 3)
    rate = np.array([r["angular_velocity_flu_radps"] for r in rows], dtype=np.float64).reshape(
        -1, 3
    )
    imu_cfg = episode.get("config", {}).get("imu", {})
    k = 1.0 if episode.get("noise", True) else 0.0
    accel_cov9 = np.diag([(k * float(imu_cfg.get("accel_std_mps2", 0.0))) ** 2] * 3).ravel()
    rate_cov9 = np.diag([(k * float(imu_cfg.get("gyro_std_radps", 0.0))) ** 2] * 3).ravel()
    q_cov9 = np.zeros(9)
    q_cov9[0] = -1.0  # sensor_msgs/Imu: no orientation estimate
    q_none = np.zeros((len(rows), 4))
    stamp = start_ns + _seconds_to_ns(times[:, 0])
    log = start_ns + _seconds_to_ns(times[:, 1])
    spec = RAW_IMU_TOPIC
    lay = imu_layout(spec.frame_id)
    return TopicMessages(
        spec,
        log,
        lambda a, b: encode_imu(
            lay, stamp[a:b], q_none[a:b], q_cov9, rate[a:b], rate_cov9, force[a:b], accel_cov9
        ),
    )


_WINDOW_NS = 10_000_000_000  # messages are encoded and merged 10 s of log time at a time


def _write_streams(bag: Ros2BagWriter, streams: list[TopicMessages]) -> None:
    """Write every stream's messages in log-time order (ties: stream order, then row order)."""
    channels = [bag.channel(s.spec.topic, s.spec.msg_type) for s in streams]
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


def write_mcap(
    run_dir,
    out_path=None,
    *,
    gnss_fix: bool = False,
    raw_imu: bool = False,
    run_name: str | None = None,
) -> Path:
    """Write the run's ROS 2 bag (MCAP) and return its path.

    ``run_dir``: a navsense run directory (episode.json, ins.jsonl + ins.frames, and gnss.jsonl /
    imu.jsonl for the optional topics). ``out_path``: the bag (default ``RUN_DIR/ros2.mcap``);
    an existing file is an error. ``gnss_fix`` adds the GNSS receiver's fix on
    /gnss/receiver/fix, ``raw_imu`` the IMU on /imu/raw. Topics and contents: module docstring.
    ``run_name``: the run directory's name in the bag's metadata (default: ``run_dir``'s; a run
    still written under ``NAME.partial`` gives ``NAME``).
    """
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise FormatError(f"{run_dir}: not a run directory")
    out = Path(out_path) if out_path is not None else run_dir / DEFAULT_BAG_NAME
    if out.exists():
        raise FormatError(
            f"{out}: the bag exists; not overwriting it (remove it or choose another --out)"
        )
    episode = read_episode(run_dir)
    start_ns = utc_ns(episode.get("start_utc") or "")
    streams: list[TopicMessages] = []
    if (run_dir / "ins.frames").is_file():
        streams += _ins_streams(run_dir, episode, start_ns)
    if gnss_fix:
        streams.append(_gnss_fix_stream(run_dir, episode, start_ns))
    if raw_imu:
        streams.append(_raw_imu_stream(run_dir, episode, start_ns))
    if not streams:
        raise FormatError(
            f"{run_dir}: no ins.frames (INS off) and no optional topic chosen; "
            "nothing to export (add --gnss-fix or --raw-imu)"
        )
    meta = {
        "navsense": {
            "navsense_version": str(episode.get("navsense_version", __version__)),
            "exported_by": f"navsense {__version__}",
            "vehicle": str(episode.get("vehicle", "")),
            "start_utc": str(episode.get("start_utc", "")),
            "seed": str(episode.get("seed", "")),
            "noise": str(episode.get("noise", "")),
            "source": json.dumps(episode.get("source", {}), sort_keys=True),
            "run_dir": run_name or run_dir.resolve().name,
        }
    }
    with Ros2BagWriter(out, metadata=meta) as bag:
        _write_streams(bag, streams)
    return out
