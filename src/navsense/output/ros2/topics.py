"""The topics of a navsense ROS 2 bag, and the messages of each from navsense's epochs.

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
                                                                  (the GNSS rows), ``gnss_fix``
/imu/raw                 sensor_msgs/msg/Imu          imu_link    the IMU (its rows),
                                                                  ``raw_imu``
=======================  ===========================  ==========  ==============================

Contents (INS values from ``ins.frames``, full float64; times from the INS rows)::

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

:func:`ins_topic_messages` (INS frames and their times), :func:`gnss_fix_topic` and
:func:`raw_imu_topic` (columns of the GNSS and IMU rows, as
:class:`navsense.output.runreader.RunReader` reads them; ``gnss_fix_messages`` and
``raw_imu_messages`` take row dicts) return :class:`TopicMessages`: each topic's log times and an
encoder of its messages (:mod:`navsense.output.ros2.cdr`), which
:func:`navsense.output.ros2.bag.write_topics` writes in log-time order.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from navsense.errors import FormatError
from navsense.output.frames import INS_FIELD_INDEX
from navsense.output.ros2.cdr import (
    COV3_DIAG,
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
from navsense.output.runreader import FLOAT, TEXT, columns_of_rows, vector
from navsense.rotation import quat_multiply

__all__ = [
    "GNSS_FIX_COLUMNS",
    "GNSS_FIX_TOPIC",
    "MAXXUM_TOPICS",
    "NAVSAT_STATUS_OF_FIX",
    "OXTS_MOUNT_XYZW",
    "POLARIS_TOPICS",
    "RAW_IMU_COLUMNS",
    "RAW_IMU_TOPIC",
    "TopicMessages",
    "TopicSpec",
    "gnss_fix_messages",
    "gnss_fix_topic",
    "ins_topic_messages",
    "raw_imu_messages",
    "raw_imu_topic",
    "seconds_to_ns",
    "topics_for",
    "utc_ns",
]

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
    stamp = start_ns + seconds_to_ns(sample_time_s)
    log = start_ns + seconds_to_ns(delivery_time_s)
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
    fix_cov9[:, list(COV3_DIAG)] = cov
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


#: The GNSS rows' columns of /gnss/receiver/fix (navsense.output.runreader kinds).
GNSS_FIX_COLUMNS = {
    "sample_time_s": FLOAT,
    "delivery_time_s": FLOAT,
    "fix_type": TEXT,
    "latitude_deg": FLOAT,
    "longitude_deg": FLOAT,
    "ellipsoidal_height_m": FLOAT,
    "covariance_enu_m2": vector(9),
}
#: The IMU rows' columns of /imu/raw.
RAW_IMU_COLUMNS = {
    "sample_time_s": FLOAT,
    "delivery_time_s": FLOAT,
    "specific_force_flu_mps2": vector(3),
    "angular_velocity_flu_radps": vector(3),
}


def gnss_fix_topic(
    columns: Mapping[str, np.ndarray], episode: Mapping, start_ns: int, where: str = "gnss.jsonl"
) -> TopicMessages:
    """/gnss/receiver/fix of the GNSS receiver's epochs: ``columns`` as :data:`GNSS_FIX_COLUMNS`
    (NaN where a row has null: no fix); ``where`` names the rows in errors. ``episode``,
    ``start_ns``: as :func:`ins_topic_messages`."""
    fix = columns["fix_type"].tolist()
    try:
        status = np.array([NAVSAT_STATUS_OF_FIX[f] for f in fix], dtype=np.int8)
    except KeyError as exc:
        raise FormatError(
            f"{where}: fix_type {exc.args[0]!r} is not one of {', '.join(NAVSAT_STATUS_OF_FIX)}"
        ) from None
    geo = np.stack(
        [columns["latitude_deg"], columns["longitude_deg"], columns["ellipsoidal_height_m"]],
        axis=-1,
    ).reshape(-1, 3)
    cov9 = np.asarray(columns["covariance_enu_m2"], dtype=np.float64).reshape(-1, 9)
    cov9 = np.where(np.isnan(cov9), 0.0, cov9)  # no fix: zeros, COVARIANCE_TYPE_UNKNOWN
    cov_type = np.where(
        status == STATUS_NO_FIX, COVARIANCE_TYPE_UNKNOWN, COVARIANCE_TYPE_DIAGONAL_KNOWN
    ).astype(np.uint8)
    systems = episode.get("config", {}).get("gnss", {}).get("constellations", {})
    service = (
        (SERVICE_GPS if systems.get("gps", True) else 0)
        | (SERVICE_GLONASS if systems.get("glonass", False) else 0)
        | (SERVICE_GALILEO if systems.get("galileo", False) else 0)
    )
    stamp = start_ns + seconds_to_ns(columns["sample_time_s"])
    log = start_ns + seconds_to_ns(columns["delivery_time_s"])
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


def gnss_fix_messages(
    rows: list[dict], episode: Mapping, start_ns: int, where: str = "gnss.jsonl"
) -> TopicMessages:
    """:func:`gnss_fix_topic` of the GNSS receiver's row dicts (``gnss.jsonl``'s, or
    SensorStream's)."""
    if rows and "latitude_deg" not in rows[0]:
        raise FormatError(
            f"{where}: the rows have no latitude_deg (a site without a "
            "georeference); --gnss-fix needs the geodetic output"
        )
    return gnss_fix_topic(columns_of_rows(rows, GNSS_FIX_COLUMNS), episode, start_ns, where)


def raw_imu_topic(
    columns: Mapping[str, np.ndarray], episode: Mapping, start_ns: int
) -> TopicMessages:
    """/imu/raw of the IMU's samples: ``columns`` as :data:`RAW_IMU_COLUMNS`; ``episode``,
    ``start_ns``: as :func:`ins_topic_messages`."""
    force = np.asarray(columns["specific_force_flu_mps2"], dtype=np.float64).reshape(-1, 3)
    rate = np.asarray(columns["angular_velocity_flu_radps"], dtype=np.float64).reshape(-1, 3)
    imu_cfg = episode.get("config", {}).get("imu", {})
    k = 1.0 if episode.get("noise", True) else 0.0
    accel_cov9 = np.diag([(k * float(imu_cfg.get("accel_std_mps2", 0.0))) ** 2] * 3).ravel()
    rate_cov9 = np.diag([(k * float(imu_cfg.get("gyro_std_radps", 0.0))) ** 2] * 3).ravel()
    q_cov9 = np.zeros(9)
    q_cov9[0] = -1.0  # sensor_msgs/Imu: no orientation estimate
    q_none = np.zeros((len(force), 4))
    stamp = start_ns + seconds_to_ns(columns["sample_time_s"])
    log = start_ns + seconds_to_ns(columns["delivery_time_s"])
    spec = RAW_IMU_TOPIC
    lay = imu_layout(spec.frame_id)
    return TopicMessages(
        spec,
        log,
        lambda a, b: encode_imu(
            lay, stamp[a:b], q_none[a:b], q_cov9, rate[a:b], rate_cov9, force[a:b], accel_cov9
        ),
    )


def raw_imu_messages(rows: list[dict], episode: Mapping, start_ns: int) -> TopicMessages:
    """:func:`raw_imu_topic` of the IMU's row dicts (``imu.jsonl``'s, or SensorStream's)."""
    return raw_imu_topic(columns_of_rows(rows, RAW_IMU_COLUMNS), episode, start_ns)


def utc_ns(text: str) -> int:
    """POSIX nanoseconds (UTC, no leap seconds) of an ISO 8601 time (microsecond precision)."""
    from navsense.geo.epoch import parse_utc

    return round(parse_utc(text) * 1e6) * 1000


def seconds_to_ns(t_s: np.ndarray) -> np.ndarray:
    """Episode seconds (written with 9 decimals) -> int64 nanoseconds."""
    return np.round(np.asarray(t_s, dtype=np.float64) * 1e9).astype(np.int64)
