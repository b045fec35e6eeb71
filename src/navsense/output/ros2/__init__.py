"""ROS 2 bags in MCAP: the INS topics as the ROS 2 bridge publishes them, with the vehicle's
static transforms and the other sensors (``navsense export mcap``, ``simulate --mcap``).

Specification "INS and GNSS", section "INS", "Outputs" (ins_to_messages of the ROS 2 bridge,
conversions.cpp). One job a module:

=================  ==========================================================================
module             job
=================  ==========================================================================
``msgdefs``        the message definitions (ROS 2 Humble / Jazzy), as ``ros2msg`` schema text
``cdr``            CDR encoding of blocks of messages (:class:`CdrLayout`, ``encode_<message>``)
``topics``         the topics, their frame ids, and the INS topics' messages from INS frames
``sensor_topics``  the topics from the sensors' rows (receiver, IMU, magnetometer, barometer,
                   wheel odometer; the Maxxum's odometry and ground truth without INS)
``mounts``         the sensor frames on the vehicle (``/tf_static``)
``plan``           which topics a run's bag has and their messages (export and live serving)
``bag``            the MCAP container (:class:`Ros2BagWriter`), QoS, the log-time order
=================  ==========================================================================

A run directory's bag: :func:`navsense.runs.export_mcap.write_mcap`.

Times: every header stamp is start_utc + sample_time_s (sec, nanosec); every message's log time
and publish time is start_utc + delivery_time_s (the row's delivery at the modelled latency).
Messages are written in log-time order (ties: topic order, then epoch order).
"""

from navsense.output.ros2.bag import LATCHED_QOS, Ros2BagWriter, write_topics
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
from navsense.output.ros2.mounts import OXTS_MOUNT_XYZW, Mount, sensor_mounts
from navsense.output.ros2.msgdefs import msgdef
from navsense.output.ros2.plan import BagData, BagPlan, sensors_of_config
from navsense.output.ros2.sensor_topics import NAVSAT_STATUS_OF_FIX, UNOBSERVED_VARIANCE
from navsense.output.ros2.topics import (
    BARO_TOPIC,
    GNSS_FIX_TOPIC,
    MAG_TOPIC,
    MAXXUM_RECEIVER_TOPICS,
    MAXXUM_TOPICS,
    POLARIS_TOPICS,
    RAW_IMU_TOPIC,
    TF_STATIC_TOPIC,
    WHEEL_TOPIC,
    TopicMessages,
    TopicSpec,
    ins_topic_messages,
    topics_for,
    utc_ns,
)

__all__ = [
    "write_topics",
    "Ros2BagWriter",
    "LATCHED_QOS",
    "CdrLayout",
    "msgdef",
    "utc_ns",
    "BagPlan",
    "BagData",
    "sensors_of_config",
    "Mount",
    "sensor_mounts",
    "POLARIS_TOPICS",
    "MAXXUM_TOPICS",
    "MAXXUM_RECEIVER_TOPICS",
    "TF_STATIC_TOPIC",
    "GNSS_FIX_TOPIC",
    "RAW_IMU_TOPIC",
    "MAG_TOPIC",
    "BARO_TOPIC",
    "WHEEL_TOPIC",
    "OXTS_MOUNT_XYZW",
    "NAVSAT_STATUS_OF_FIX",
    "UNOBSERVED_VARIANCE",
    "CDR_LE_HEADER",
    "TopicSpec",
    "TopicMessages",
    "topics_for",
    "ins_topic_messages",
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
