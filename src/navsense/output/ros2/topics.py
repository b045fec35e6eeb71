"""The topics of a navsense ROS 2 bag, and the INS topics' messages from navsense's epochs.

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

The other topics (:mod:`navsense.output.ros2.sensor_topics`; :mod:`navsense.output.ros2.plan`
says which a bag has): ``/tf_static`` (every sensor frame from base_footprint,
:mod:`navsense.output.ros2.mounts`), the Maxxum's topics from its receiver and IMU when its INS
is off, the receiver's own fix, the raw IMU, the magnetometer, the barometer and the wheel
odometer.

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
               (InsTruthQx..Qw); the twist of the truth at the INS point in body FLU axes,
               R^T v_n and R^T w (navsense.truth.points, "Truth at the INS Point"; from the
               run's truth at the epoch's physics step, NaN when the run has no truth);
               covariances zero (the truth has no error)
    /tf        one geometry_msgs/TransformStamped a epoch: utm -> base_footprint, the pose of
               the odometry

    s_att, s_head   ins.attitude_sigma_deg, ins.heading_sigma_deg in rad; s_v, s_w, s_f
                    ins.velocity_white_mps, ins.gyro_white_radps, ins.accel_white_mps2 (the
                    one-sigma values of the INS error model; all zero with noise off)

Times: every header stamp is start_utc + sample_time_s (sec, nanosec); every message's log time
and publish time is start_utc + delivery_time_s (the row's delivery at the modelled latency).
Messages are written in log-time order (ties: topic order, then epoch order). The INS at 100 Hz
on the 120 Hz physics clock samples at steps 1 and 2 apart, so its stamps are 10 ms apart on
average but its log times (whole physics steps) alternate 8.3 and 16.7 ms: a consumer that
sorts by header stamp sees the sensor's times, one that plays by log time sees them as a
receiver of the live stream would (README, "The ROS 2 bag").

Frame ids (navsense's choices where the specification names none): the Polaris IMU message uses
``oxts_link`` like the row and ``/oxts/velocity`` -- the bridge publishes both in that frame
although one is in the OxTS mounting axes and the other in FLU, so a transform can make only
one of them right (``/tf_static`` gives oxts_link the mounting axes: the IMU message's); the
Maxxum IMU message is the base_footprint point in body FLU axes, so its frame is
``base_footprint``.

:func:`ins_topic_messages` (INS frames and their times) returns :class:`TopicMessages`: each
topic's log times and an encoder of its messages (:mod:`navsense.output.ros2.cdr`), which
:func:`navsense.output.ros2.bag.write_topics` writes in log-time order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from navsense.constants import DEG, DEG_PER_RAD
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
from navsense.output.ros2.mounts import ANTENNA_BESIDE_INS, OXTS_MOUNT_XYZW
from navsense.rotation import quat_multiply
from navsense.runs.episode import Episode

__all__ = [
    "BARO_TOPIC",
    "GNSS_FIX_TOPIC",
    "MAG_TOPIC",
    "MAXXUM_RECEIVER_TOPICS",
    "MAXXUM_TOPICS",
    "POLARIS_TOPICS",
    "RAW_IMU_TOPIC",
    "RECEIVER_FIX_FRAME_BESIDE_INS",
    "TF_STATIC_TOPIC",
    "TopicMessages",
    "TopicSpec",
    "WHEEL_TOPIC",
    "ins_topic_messages",
    "seconds_to_ns",
    "topics_for",
    "utc_ns",
]

# sensor_msgs/NavSatStatus and NavSatFix constants
STATUS_NO_FIX, STATUS_FIX, STATUS_SBAS_FIX, STATUS_GBAS_FIX = -1, 0, 1, 2
SERVICE_GPS, SERVICE_GLONASS, SERVICE_GALILEO = 1, 2, 8
COVARIANCE_TYPE_UNKNOWN, COVARIANCE_TYPE_DIAGONAL_KNOWN, COVARIANCE_TYPE_KNOWN = 0, 2, 3
INS_FIX_STATUS = STATUS_GBAS_FIX  # spec "Fix and UTM Odometry": status 2 (RTK)
INS_FIX_SERVICE = SERVICE_GPS  # spec "Outputs": service 1


@dataclass(frozen=True)
class TopicSpec:
    """One topic of the bag: name, message type, header frame id, child frame id; ``latched``:
    offered as a latched topic (transient-local durability, :mod:`navsense.output.ros2.bag`)."""

    topic: str
    msg_type: str
    frame_id: str
    child_frame_id: str = ""
    latched: bool = False


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
#: The Maxxum's topics when its INS is off: from its GNSS receiver and its IMU.
MAXXUM_RECEIVER_TOPICS: dict[str, TopicSpec] = {
    "odom": TopicSpec("/odom", "nav_msgs/msg/Odometry", "utm", "gnss_link"),
    "fix": TopicSpec("/gnss/fix", "sensor_msgs/msg/NavSatFix", "gnss_link"),
    "imu": TopicSpec("/imu/data", "sensor_msgs/msg/Imu", "imu_link"),
    "truth": TopicSpec("/ground_truth/odom", "nav_msgs/msg/Odometry", "utm", "base_footprint"),
}
TF_STATIC_TOPIC = TopicSpec("/tf_static", "tf2_msgs/msg/TFMessage", "base_footprint", latched=True)
GNSS_FIX_TOPIC = TopicSpec("/gnss/receiver/fix", "sensor_msgs/msg/NavSatFix", "gnss_link")
#: The receiver's fix in a Maxxum bag with the INS on, whose /gnss/fix holds gnss_link.
RECEIVER_FIX_FRAME_BESIDE_INS = ANTENNA_BESIDE_INS
RAW_IMU_TOPIC = TopicSpec("/imu/raw", "sensor_msgs/msg/Imu", "imu_link")
MAG_TOPIC = TopicSpec("/imu/mag", "sensor_msgs/msg/MagneticField", "mag_link")
BARO_TOPIC = TopicSpec("/baro/pressure", "sensor_msgs/msg/FluidPressure", "baro_link")
WHEEL_TOPIC = TopicSpec(
    "/wheel/twist", "geometry_msgs/msg/TwistWithCovarianceStamped", "base_footprint"
)


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


def _ins_sigmas(episode: Episode) -> dict[str, float]:
    """The INS one-sigma values (SI) of the run's configuration; zero with noise off."""
    ins = episode.ins_config
    k = 1.0 if episode.noise else 0.0
    return {
        "attitude_rad": k * ins.attitude_sigma_deg * DEG,
        "heading_rad": k * ins.heading_sigma_deg * DEG,
        "velocity_mps": k * ins.velocity_white_mps,
        "gyro_radps": k * ins.gyro_white_radps,
        "accel_mps2": k * ins.accel_white_mps2,
    }


def ins_topic_messages(
    frames: np.ndarray,
    sample_time_s: np.ndarray,
    delivery_time_s: np.ndarray,
    episode: Episode,
    start_ns: int,
    truth_twist: tuple[np.ndarray, np.ndarray] | None = None,
    service: np.ndarray | None = None,
) -> list[TopicMessages]:
    """The INS topics of a vehicle (module docstring) of ``frames`` (m, 40), the ``ins.frames``
    records, whose rows have the sample and delivery times given (s). ``episode``: the run's
    :class:`navsense.runs.Episode`; ``start_ns`` start_utc in
    ns since the Unix epoch. ``truth_twist``: the truth's body-frame linear (m/s) and angular
    (rad/s) velocity at the INS point, (m, 3) each (None: unknown, NaN). ``service``: the
    rows' fix.service of an aided INS (ins.aiding "gnss", navsense extension, issue 19): then
    the fix's status is the frame's InsFixStatus and its service this, and before the INS is
    initialised (status -1) the fix has no covariance (COVARIANCE_TYPE_UNKNOWN, zeros) and no
    odometry, /tf, imu or velocity message is written (the INS has no solution to publish).
    The topics come in the order of the vehicle's table (:func:`topics_for`)."""
    topics = topics_for(episode.vehicle)
    epochs = _InsEpochs.of(
        frames,
        start_ns + seconds_to_ns(sample_time_s),
        start_ns + seconds_to_ns(delivery_time_s),
        episode,
        topics is POLARIS_TOPICS,
        truth_twist,
        service,
    )
    messages = {
        "odom": epochs.odometry,
        "fix": epochs.fix,
        "imu": epochs.imu,
        "velocity": epochs.velocity,
        "truth": epochs.truth,
        "tf": epochs.tf,
    }
    return [messages[name](spec) for name, spec in topics.items()]


def _columns(frames: np.ndarray, *names: str) -> np.ndarray:
    """The ``ins.frames`` fields ``names`` (EInsField), (m, len(names))."""
    return frames[:, [INS_FIELD_INDEX[n] for n in names]]


@dataclass
class _InsEpochs:
    """What the INS topics' messages say, per epoch (module docstring, "Contents"): header
    stamps and log times (ns), the frames' values, the covariances of the run's sigmas and the
    fix's status. The ``nav_`` arrays hold the epochs with a navigation solution (all but an
    aided INS's before it is initialised), which odometry, imu, velocity and /tf publish."""

    stamp: np.ndarray
    log: np.ndarray
    lat: np.ndarray
    lon: np.ndarray
    height: np.ndarray
    fix_status: np.ndarray | int
    fix_service: np.ndarray | int
    fix_cov9: np.ndarray
    fix_cov_type: np.ndarray | int
    truth_pos: np.ndarray
    truth_q: np.ndarray
    truth_lin: np.ndarray
    truth_ang: np.ndarray
    nav_stamp: np.ndarray
    nav_log: np.ndarray
    nav_pos: np.ndarray
    nav_q: np.ndarray
    nav_pose_cov: np.ndarray
    nav_vel: np.ndarray
    nav_gyro: np.ndarray
    nav_imu_q: np.ndarray
    nav_imu_rate: np.ndarray
    nav_imu_accel: np.ndarray
    twist_cov: list[float]
    q_cov9: np.ndarray
    rate_cov9: np.ndarray
    accel_cov9: np.ndarray

    @classmethod
    def of(cls, frames, stamp, log, episode: Episode, polaris: bool, truth_twist, service):
        """From the frames, their stamps and log times (ns) and the run (ins_topic_messages)."""
        cov = _columns(frames, "InsCovE", "InsCovN", "InsCovU")
        s = _ins_sigmas(episode)
        att2, head2 = s["attitude_rad"] ** 2, s["heading_rad"] ** 2
        pose_cov = np.concatenate(
            [cov, np.broadcast_to([att2, att2, head2], (len(cov), 3))], axis=1
        )
        fix_status, fix_service, fix_cov9, fix_cov_type, nav = _fix_status(frames, cov, service)
        q_enu = _columns(frames, "InsEnuQx", "InsEnuQy", "InsEnuQz", "InsEnuQw")
        vel = _columns(frames, "InsVelX", "InsVelY", "InsVelZ")
        gyro = _columns(frames, "InsGyroX", "InsGyroY", "InsGyroZ")
        accel = _columns(frames, "InsAccelX", "InsAccelY", "InsAccelZ")
        if polaris:  # the OxTS mounting axes: x left, y forward, z down
            imu_q = quat_multiply(q_enu, OXTS_MOUNT_XYZW)
            swap = lambda v: np.stack([v[:, 1], v[:, 0], -v[:, 2]], axis=-1)
            imu_rate, imu_accel = swap(gyro), swap(accel)
        else:
            imu_q, imu_rate, imu_accel = q_enu, gyro, accel
        if truth_twist is None:
            truth_lin = truth_ang = np.full((len(cov), 3), np.nan)
        else:
            truth_lin, truth_ang = truth_twist
        return cls(
            stamp=stamp,
            log=log,
            lat=frames[:, INS_FIELD_INDEX["InsLat"]],
            lon=frames[:, INS_FIELD_INDEX["InsLon"]],
            height=frames[:, INS_FIELD_INDEX["InsHeight"]],
            fix_status=fix_status,
            fix_service=fix_service,
            fix_cov9=fix_cov9,
            fix_cov_type=fix_cov_type,
            truth_pos=_columns(frames, "InsTruthX", "InsTruthY", "InsTruthZ"),
            truth_q=_columns(frames, "InsTruthQx", "InsTruthQy", "InsTruthQz", "InsTruthQw"),
            truth_lin=truth_lin,
            truth_ang=truth_ang,
            nav_stamp=stamp[nav],
            nav_log=log[nav],
            nav_pos=_columns(frames, "InsUtmE", "InsUtmN", "InsUtmH")[nav],
            nav_q=_columns(frames, "InsUtmQx", "InsUtmQy", "InsUtmQz", "InsUtmQw")[nav],
            nav_pose_cov=pose_cov[nav],
            nav_vel=vel[nav],
            nav_gyro=gyro[nav],
            nav_imu_q=imu_q[nav],
            nav_imu_rate=imu_rate[nav],
            nav_imu_accel=imu_accel[nav],
            twist_cov=[s["velocity_mps"] ** 2] * 3 + [s["gyro_radps"] ** 2] * 3,
            # roll, pitch, yaw: the same in both axes sets
            q_cov9=np.diag([att2, att2, head2]).ravel(),
            rate_cov9=np.diag([s["gyro_radps"] ** 2] * 3).ravel(),
            accel_cov9=np.diag([s["accel_mps2"] ** 2] * 3).ravel(),
        )

    def odometry(self, spec: TopicSpec) -> TopicMessages:
        """The INS's odometry: the UTM pose and the body-frame twist, with covariances."""
        lay = odometry_layout(spec.frame_id, spec.child_frame_id)
        return TopicMessages(
            spec,
            self.nav_log,
            lambda a, b: encode_odometry(
                lay,
                self.nav_stamp[a:b],
                self.nav_pos[a:b],
                self.nav_q[a:b],
                self.nav_pose_cov[a:b],
                self.nav_vel[a:b],
                self.nav_gyro[a:b],
                self.twist_cov,
            ),
        )

    def fix(self, spec: TopicSpec) -> TopicMessages:
        """The INS's fix: latitude, longitude and height of ins.frame, status and covariance."""
        lay = navsatfix_layout(spec.frame_id)
        status, service, cov_type = self.fix_status, self.fix_service, self.fix_cov_type
        return TopicMessages(
            spec,
            self.log,
            lambda a, b: encode_navsatfix(
                lay,
                self.stamp[a:b],
                status if isinstance(status, int) else status[a:b],
                service if isinstance(service, int) else service[a:b],
                self.lat[a:b],
                self.lon[a:b],
                self.height[a:b],
                self.fix_cov9[a:b],
                cov_type if isinstance(cov_type, int) else cov_type[a:b],
            ),
        )

    def imu(self, spec: TopicSpec) -> TopicMessages:
        """The INS's attitude, rate and specific force in the vehicle's IMU axes."""
        lay = imu_layout(spec.frame_id)
        return TopicMessages(
            spec,
            self.nav_log,
            lambda a, b: encode_imu(
                lay,
                self.nav_stamp[a:b],
                self.nav_imu_q[a:b],
                self.q_cov9,
                self.nav_imu_rate[a:b],
                self.rate_cov9,
                self.nav_imu_accel[a:b],
                self.accel_cov9,
            ),
        )

    def velocity(self, spec: TopicSpec) -> TopicMessages:
        """The OxTS velocity message: m/s and deg/s."""
        lay = twist_stamped_layout(spec.frame_id)
        return TopicMessages(
            spec,
            self.nav_log,
            lambda a, b: encode_twist_stamped(
                lay, self.nav_stamp[a:b], self.nav_vel[a:b], self.nav_gyro[a:b] * DEG_PER_RAD
            ),
        )

    def truth(self, spec: TopicSpec) -> TopicMessages:
        """The ground truth's odometry at the INS point, without covariance."""
        lay = odometry_layout(spec.frame_id, spec.child_frame_id)
        return TopicMessages(
            spec,
            self.log,
            lambda a, b: encode_odometry(
                lay,
                self.stamp[a:b],
                self.truth_pos[a:b],
                self.truth_q[a:b],
                0.0,
                self.truth_lin[a:b],
                self.truth_ang[a:b],
                0.0,
            ),
        )

    def tf(self, spec: TopicSpec) -> TopicMessages:
        """/tf: utm -> base_footprint, the odometry's pose."""
        lay = tf_layout(spec.frame_id, spec.child_frame_id)
        return TopicMessages(
            spec,
            self.nav_log,
            lambda a, b: encode_tf(lay, self.nav_stamp[a:b], self.nav_pos[a:b], self.nav_q[a:b]),
        )


def _fix_status(frames: np.ndarray, cov: np.ndarray, service: np.ndarray | None):
    """The fix's (status, service, covariance (m, 9), covariance type) and the epochs with a
    navigation solution: the specification's status 2, service 1 and diagonal covariance at
    every epoch; an aided INS's (``service`` given): the frame's InsFixStatus and the rows'
    service, and before initialisation (status -1) no covariance and no solution."""
    fix_cov9 = np.zeros((len(cov), 9))
    fix_cov9[:, list(COV3_DIAG)] = cov
    fix_status: np.ndarray | int = INS_FIX_STATUS
    fix_service: np.ndarray | int = INS_FIX_SERVICE
    fix_cov_type: np.ndarray | int = COVARIANCE_TYPE_DIAGONAL_KNOWN
    nav: slice | np.ndarray = slice(None)  # every epoch
    if service is not None:
        fix_status = frames[:, INS_FIELD_INDEX["InsFixStatus"]].astype(np.int8)
        fix_service = np.asarray(service, dtype=np.uint16)
        blank = fix_status == -1
        fix_cov9[blank] = 0.0
        fix_cov_type = np.where(blank, COVARIANCE_TYPE_UNKNOWN, fix_cov_type).astype(np.uint8)
        if blank.any():
            nav = np.flatnonzero(~blank)
    return fix_status, fix_service, fix_cov9, fix_cov_type, nav


def utc_ns(text: str) -> int:
    """POSIX nanoseconds (UTC, no leap seconds) of an ISO 8601 time (microsecond precision:
    navsense.geo.epoch.utc_ns)."""
    from navsense.geo.epoch import utc_ns as _utc_ns

    return _utc_ns(text)


def seconds_to_ns(t_s: np.ndarray) -> np.ndarray:
    """Episode seconds (written with 9 decimals) -> int64 nanoseconds."""
    return np.round(np.asarray(t_s, dtype=np.float64) * 1e9).astype(np.int64)
