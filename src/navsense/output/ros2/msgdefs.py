"""ROS 2 message definitions: the catalog of the messages navsense writes, as ros2msg schemas.

The ROS 2 Humble / Jazzy definitions (identical in both distributions) of the messages of the
bag, without comments (:data:`MSG_BODIES`); :func:`msgdef` appends their dependency closure in the
``ros2msg`` schema format of rosbag2 (a line of 80 ``=``, then ``MSG: pkg/Type``, then the body),
which the bag embeds so that Foxglove and ``ros2 bag play`` decode the messages without a ROS
installation. :func:`message_fields` parses a definition for :class:`navsense.output.ros2.cdr.CdrLayout`.
"""

from __future__ import annotations

import re

from navsense.errors import FormatError

__all__ = ["MSG_BODIES", "PRIMITIVES", "message_fields", "msgdef", "ros2_name", "short_name"]

# ROS 2 Humble / Jazzy definitions (identical in both distributions) of the messages written,
# without comments; the dependency closure is appended in the "ros2msg" schema format of rosbag2
# (a line of 80 "=", then "MSG: pkg/Type", then the body). Source: the .msg files of
# ros2/common_interfaces, ros2/rcl_interfaces (builtin_interfaces), ros2/geometry2 (tf2_msgs).
MSG_BODIES: dict[str, str] = {
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
    "geometry_msgs/TwistWithCovarianceStamped": "std_msgs/Header header\n"
    "geometry_msgs/TwistWithCovariance twist\n",
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
    "sensor_msgs/MagneticField": "std_msgs/Header header\ngeometry_msgs/Vector3 magnetic_field\n"
    "float64[9] magnetic_field_covariance\n",
    "sensor_msgs/FluidPressure": "std_msgs/Header header\nfloat64 fluid_pressure\nfloat64 variance\n",
    "tf2_msgs/TFMessage": "geometry_msgs/TransformStamped[] transforms\n",
}
_SEPARATOR = "=" * 80 + "\n"
PRIMITIVES = {  # ROS 2 primitive -> little-endian numpy type (CDR alignment = item size)
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


def ros2_name(type_name: str) -> str:
    """nav_msgs/Odometry -> nav_msgs/msg/Odometry (the schema name rosbag2 writes)."""
    pkg, name = type_name.replace("/msg/", "/").split("/")
    return f"{pkg}/msg/{name}"


def short_name(type_name: str) -> str:
    """nav_msgs/msg/Odometry -> nav_msgs/Odometry (the name inside message definitions)."""
    return type_name.replace("/msg/", "/")


def message_fields(type_name: str) -> list[tuple[str, int | None, str]]:
    """(type, array length (None: scalar, -1: sequence), name) of each field of a message."""
    try:
        body = MSG_BODIES[short_name(type_name)]
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
    root = short_name(type_name)
    order: list[str] = []

    def visit(t: str) -> None:
        for ftype, _, _ in message_fields(t):
            if ftype not in PRIMITIVES and ftype != "string" and ftype not in order:
                order.append(ftype)
                visit(ftype)

    visit(root)
    text = MSG_BODIES[root]
    for dep in order:
        text += _SEPARATOR + f"MSG: {dep}\n" + MSG_BODIES[dep]
    return text
