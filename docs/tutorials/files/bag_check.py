"""What robot_localization will get from a navsense bag: its input topics, frames and covariances.

    python bag_check.py RUN/ros2.mcap

Reads the bag with rosbags (``pip install rosbags``; no ROS installation needed) and prints, for
the topics the tutorial's EKF and navsat_transform read, the message type, the count, the frame
of the first message and the diagonal of its covariances; then the static transforms of
/tf_static. Tutorial: docs/tutorials/robot-localization.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

from rosbags.highlevel import AnyReader
from rosbags.typesys import Stores, get_typestore

INPUTS = ("/oxts/imu", "/oxts/fix", "/wheel/twist", "/tf_static")


def _diag(values, n: int) -> str:
    return "[" + ", ".join(f"{values[i * (n + 1)]:.3g}" for i in range(n)) + "]"


def describe(msgtype: str, msg) -> str:
    """The frame and covariance diagonals of one message, as a line."""
    if msgtype == "sensor_msgs/msg/Imu":
        return (
            f"frame {msg.header.frame_id}, orientation cov {_diag(msg.orientation_covariance, 3)},"
            f" rate cov {_diag(msg.angular_velocity_covariance, 3)},"
            f" accel cov {_diag(msg.linear_acceleration_covariance, 3)}"
        )
    if msgtype == "sensor_msgs/msg/NavSatFix":
        return (
            f"frame {msg.header.frame_id}, status {msg.status.status},"
            f" cov type {msg.position_covariance_type},"
            f" cov {_diag(msg.position_covariance, 3)}"
        )
    if msgtype == "geometry_msgs/msg/TwistWithCovarianceStamped":
        return f"frame {msg.header.frame_id}, cov {_diag(msg.twist.covariance, 6)}"
    if msgtype == "tf2_msgs/msg/TFMessage":
        return ", ".join(f"{t.header.frame_id}->{t.child_frame_id}" for t in msg.transforms)
    return ""


def main(argv: list[str]) -> int:
    path = Path(argv[0])
    typestore = get_typestore(Stores.ROS2_HUMBLE)
    with AnyReader([path], default_typestore=typestore) as reader:
        for topic in INPUTS:
            conns = [c for c in reader.connections if c.topic == topic]
            if not conns:
                print(f"{topic}: missing")
                continue
            conn = conns[0]
            _, _, raw = next(reader.messages(connections=conns))
            msg = reader.deserialize(raw, conn.msgtype)
            print(f"{topic}: {conn.msgtype}, {conn.msgcount} messages")
            print(f"    {describe(conn.msgtype, msg)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
