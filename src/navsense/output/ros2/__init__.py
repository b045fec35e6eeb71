"""ROS 2 bags in MCAP: the INS topics as the ROS 2 bridge publishes them (``navsense export mcap``).

Specification "INS and GNSS", section "INS", "Outputs" (ins_to_messages of the ROS 2 bridge,
conversions.cpp). One job a module:

============  ===============================================================================
module        job
============  ===============================================================================
``msgdefs``   the message definitions (ROS 2 Humble / Jazzy), as ``ros2msg`` schema text
``cdr``       CDR encoding of blocks of messages (:class:`CdrLayout`, ``encode_<message>``)
``topics``    the topics, their frame ids and contents, and the messages of each from
              navsense's epochs (INS frames, GNSS and IMU rows)
``bag``       the MCAP container (:class:`Ros2BagWriter`) and the log-time order of messages
``export``    a run directory -> its bag (:func:`write_mcap`)
============  ===============================================================================

Times: every header stamp is start_utc + sample_time_s (sec, nanosec); every message's log time
and publish time is start_utc + delivery_time_s (the row's delivery at the modelled latency).
Messages are written in log-time order (ties: topic order, then epoch order).
"""

from navsense.output.ros2.bag import Ros2BagWriter, write_topics
from navsense.output.ros2.cdr import (
    CDR_LE_HEADER,
    CdrLayout,
    encode_imu,
    encode_navsatfix,
    encode_odometry,
    encode_tf,
    encode_twist_stamped,
    imu_layout,
    navsatfix_layout,
    odometry_layout,
    tf_layout,
    twist_stamped_layout,
)
from navsense.output.ros2.export import DEFAULT_BAG_NAME, write_mcap
from navsense.output.ros2.msgdefs import msgdef
from navsense.output.ros2.topics import (
    GNSS_FIX_TOPIC,
    MAXXUM_TOPICS,
    NAVSAT_STATUS_OF_FIX,
    OXTS_MOUNT_XYZW,
    POLARIS_TOPICS,
    RAW_IMU_TOPIC,
    TopicMessages,
    TopicSpec,
    gnss_fix_messages,
    gnss_fix_topic,
    ins_topic_messages,
    raw_imu_messages,
    raw_imu_topic,
    topics_for,
    utc_ns,
)

__all__ = [
    "write_mcap",
    "write_topics",
    "Ros2BagWriter",
    "CdrLayout",
    "msgdef",
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
    "gnss_fix_topic",
    "raw_imu_messages",
    "raw_imu_topic",
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
