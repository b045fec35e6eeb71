"""``/gnss/heading``: the heading of a receiver with two antennas (gnss.heading, issue 29 item 4)
as a ``sensor_msgs/msg/Imu`` that robot_localization takes, as GNSS-heading drivers publish it
(an IMU message carrying an orientation alone).

==============  ============================  ===============================================
topic           message                       contents
==============  ============================  ===============================================
/gnss/heading   sensor_msgs/Imu, frame        orientation q_z(yaw), yaw = 90 deg - heading_deg
(gnss.heading   gnss_heading_link (at the     (REP-103: yaw counter-clockwise from east, ENU;
on)             first antenna, its x axis     the heading clockwise from true north); roll and
                along the baseline's          pitch 0; orientation_covariance diagonal:
                horizontal direction in the   roll and pitch UNOBSERVED_VARIANCE, yaw
                vehicle)                      (heading_sigma_deg in rad)^2; angular velocity
                                              and linear acceleration not given: their
                                              covariance's element 0 is -1 (sensor_msgs/Imu:
                                              "a covariance matrix with -1 in element 0 means
                                              the data is not available"), the values 0
==============  ============================  ===============================================

Only the epochs with a heading (RTK fixed, or float with gnss.heading.rtk_float) have a message:
the rows' heading_deg is null at the others. The message's frame gnss_heading_link is rotated by
the baseline's azimuth in the vehicle (:func:`gnss_heading_xyzw`, /tf_static), so that a consumer
that turns the orientation into base_link's (robot_localization) gets the vehicle's yaw whatever
the direction of the baseline; with the second antenna straight ahead of the first (the
default) the frame's axes are the vehicle's. With noise off the yaw's variance is 0.

The pitch of the baseline stays in the rows (pitch_deg): a two-antenna receiver has no roll, and
an orientation with its pitch but no roll would be half an attitude.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from navsense.config.typed.gnss import HeadingConfig
from navsense.output.ros2.cdr import encode_imu, imu_layout
from navsense.output.ros2.sensor_topics import (
    _TIMES,
    UNOBSERVED_VARIANCE,
    SensorTopic,
    _times,
)
from navsense.output.ros2.topics import TopicMessages, TopicSpec
from navsense.rotation import quat_about_z
from navsense.runs.episode import Episode
from navsense.runs.kinds import FLOAT

__all__ = [
    "GNSS_HEADING",
    "GNSS_HEADING_COLUMNS",
    "GNSS_HEADING_FRAME",
    "GNSS_HEADING_TOPIC",
    "gnss_heading_topic",
    "gnss_heading_xyzw",
]

GNSS_HEADING_FRAME = "gnss_heading_link"
GNSS_HEADING_TOPIC = TopicSpec("/gnss/heading", "sensor_msgs/msg/Imu", GNSS_HEADING_FRAME)
#: The GNSS rows' columns of the heading (null without a heading: NaN)
GNSS_HEADING_COLUMNS = {**_TIMES, "heading_deg": FLOAT, "heading_sigma_deg": FLOAT}
_IDENTITY = (0.0, 0.0, 0.0, 1.0)


def gnss_heading_xyzw(cfg: Mapping) -> tuple[float, float, float, float]:
    """The axes of gnss_heading_link in body FLU: q_z(atan2(b_y, b_x)) of the baseline
    b = r_2 - r_a (navsense.config.typed.gnss.HeadingConfig.second_antenna_flu_m; the mount
    frame moves both antennas alike); identity with the heading off or straight ahead."""
    heading = HeadingConfig.from_validated(cfg)
    if not heading.on:
        return _IDENTITY
    r_a = [float(x) for x in cfg["gnss"]["antenna_flu_m"]]
    r_2 = heading.second_antenna_flu_m(r_a)
    azimuth = math.atan2(r_2[1] - r_a[1], r_2[0] - r_a[0])
    if azimuth == 0.0:
        return _IDENTITY
    return tuple(float(x) for x in quat_about_z(np.array([azimuth]))[0])  # type: ignore[return-value]


def gnss_heading_topic(
    spec: TopicSpec, columns: Mapping[str, np.ndarray], episode: Episode, start_ns: int
) -> TopicMessages:
    """The heading on ``spec`` (module docstring): ``columns`` as :data:`GNSS_HEADING_COLUMNS`;
    the epochs without a heading are left out."""
    heading = np.asarray(columns["heading_deg"], dtype=np.float64).reshape(-1)
    sigma = np.asarray(columns["heading_sigma_deg"], dtype=np.float64).reshape(-1)
    keep = ~np.isnan(heading)
    stamp, log = _times(columns, start_ns)
    stamp, log, heading, sigma = stamp[keep], log[keep], heading[keep], sigma[keep]
    m = heading.size
    yaw = np.radians(90.0 - heading)
    q = quat_about_z(yaw).reshape(m, 4)
    q_cov9 = np.zeros((m, 9))
    q_cov9[:, 0] = q_cov9[:, 4] = UNOBSERVED_VARIANCE
    q_cov9[:, 8] = np.radians(sigma) ** 2 if episode.noise else 0.0
    none_cov9 = np.zeros(9)
    none_cov9[0] = -1.0  # sensor_msgs/Imu: not available
    zero3 = np.zeros((m, 3))
    lay = imu_layout(spec.frame_id)
    return TopicMessages(
        spec,
        log,
        lambda a, b: encode_imu(
            lay, stamp[a:b], q[a:b], q_cov9[a:b], zero3[a:b], none_cov9, zero3[a:b], none_cov9
        ),
    )


#: The heading's topic: in the bag when the run's receiver has a heading (BagPlan.gnss_heading)
GNSS_HEADING = SensorTopic(
    GNSS_HEADING_TOPIC, GNSS_HEADING_COLUMNS, gnss_heading_topic, option="gnss_heading"
)
