"""The bag's topics from the sensors' rows: the GNSS receiver, the IMU, the magnetometer, the
barometer, the wheel odometer; the Maxxum's odometry and ground truth when its INS is off.

Each function takes the rows' columns (``<SENSOR>_COLUMNS``, as
:meth:`navsense.runs.reader.RunReader.columns` or
:func:`navsense.runs.reader.columns_of_rows` give them) and returns the topic's
:class:`~navsense.output.ros2.topics.TopicMessages`: header stamps start_utc + sample_time_s,
log times start_utc + delivery_time_s, as every topic of the bag. Covariances come from the
models' one-sigma values of the run's configuration (episode.json ``config``; all zero with
``noise`` false, except where noted), in SI units:

==================  ===========================  =============================================
topic               message                      contents
==================  ===========================  =============================================
/gnss/receiver/fix  sensor_msgs/NavSatFix        the receiver's fix: latitude_deg,
(Maxxum without     frame gnss_link (the          longitude_deg, ellipsoidal_height_m (in
INS: /gnss/fix)     antenna)                     gnss.datum.output_frame); status from
                                                 fix_type (no_fix -1 with NaN position,
                                                 single 0, dgps 1, rtk_float and rtk_fixed 2);
                                                 service GPS | GLONASS | Galileo as configured;
                                                 position_covariance = covariance_enu_m2 (the
                                                 receiver's reported covariance, grid ENU m^2),
                                                 type DIAGONAL_KNOWN (KNOWN when it has
                                                 off-diagonal terms; UNKNOWN without a fix)
/imu/raw (Maxxum    sensor_msgs/Imu, frame       specific_force_flu_mps2, angular_velocity_flu_
without INS:        imu_link                     radps; no orientation (orientation_covariance
/imu/data)                                       [0] = -1); covariances diagonal: the ACRES
                                                 IMU's white noise per sample, sigma_a^2 and
                                                 sigma_g^2 (imu.accel_std_mps2, gyro_std_radps);
                                                 the configurable IMU's noise densities N
                                                 discretised at its rate, (N sqrt(imu.hz))^2 per
                                                 axis (the white term of its error model; the
                                                 bias and random-walk terms are not white)
/imu/mag            sensor_msgs/MagneticField,   magnetic_field_flu_ut * 1e-6 T; covariance
                    frame mag_link               diag((1e-6 mag.noise_std_ut)^2) T^2 (the hard
                                                 and soft iron are constant, not noise)
/baro/pressure      sensor_msgs/FluidPressure,   pressure_pa, Pa; variance baro.noise_std_pa^2
                    frame baro_link              + baro.bias_sigma_pa^2 (white noise plus the
                                                 drifting bias's stationary variance: the
                                                 reading's error about the true pressure)
/wheel/twist        geometry_msgs/               twist.linear = (speed_mps, 0, 0) at the rear
                    TwistWithCovarianceStamped,  axle, body FLU; angular zero. Covariance
                    frame base_footprint         diagonal: vx sigma_v^2 + (sigma_s s)^2 +
                                                 (tick hz)^2 / 12 (odom.noise_std_mps,
                                                 odom.scale_factor_sigma times the speed read,
                                                 the encoder tick's quantisation of the speed
                                                 when odom.encoder_tick_m > 0, which stays with
                                                 noise off); vy, vz, wx, wy, wz not measured:
                                                 UNOBSERVED_VARIANCE
/odom (Maxxum       nav_msgs/Odometry, frame     the antenna's position_enu_m with its errors
without INS)        utm, child gnss_link         through the INS's datum chain and projection
                                                 (Georeference.enu_to_fix_utm: ins.frame,
                                                 ins.utm_zone, as the INS's odometry):
                                                 (E, N, h); orientation unknown: identity with
                                                 UNOBSERVED_VARIANCE; position covariance the
                                                 receiver's covariance_enu_m2 turned into the
                                                 UTM grid axes, R_z(-alpha) C R_z(-alpha)^T
                                                 (alpha the grid rotation at the point); twist
                                                 zero, not observed. Epochs with a fix only
/ground_truth/odom  nav_msgs/Odometry, frame     the truth of base_footprint at the GNSS
(Maxxum without     utm, child base_footprint    epochs (their sample step): the same chain,
INS)                                             (E, N, h) and q_z(-alpha) q; twist R^T v_P and
                                                 R^T w at base_footprint
                                                 (navsense.truth.points); covariances zero
==================  ===========================  =============================================

A variance of UNOBSERVED_VARIANCE (1e6 in the unit squared) marks a quantity the sensor does not
measure: a consumer that fuses it anyway gives it no weight.

A sensor's topics are :class:`SensorTopic` objects that its record in navsense.suite.SENSORS
names (``Sensor.topics``): the topic, the rows' columns it needs and its builder; the bag plan
(navsense.output.ros2.plan) adds each whenever its sensor is on (or, with ``option``, when the
bag asks for it), so a new sensor's topic is one SensorTopic here and one name in its record.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from navsense.errors import FormatError
from navsense.output.ros2.cdr import (
    COV3_DIAG,
    encode_fluid_pressure,
    encode_imu,
    encode_magnetic_field,
    encode_navsatfix,
    encode_odometry,
    encode_twist_with_covariance_stamped,
    fluid_pressure_layout,
    imu_layout,
    magnetic_field_layout,
    navsatfix_layout,
    odometry_layout,
    twist_with_covariance_stamped_layout,
)
from navsense.output.ros2.topics import (
    BARO_TOPIC,
    COVARIANCE_TYPE_DIAGONAL_KNOWN,
    COVARIANCE_TYPE_KNOWN,
    COVARIANCE_TYPE_UNKNOWN,
    GNSS_FIX_TOPIC,
    MAG_TOPIC,
    RAW_IMU_TOPIC,
    SERVICE_GALILEO,
    SERVICE_GLONASS,
    SERVICE_GPS,
    STATUS_FIX,
    STATUS_GBAS_FIX,
    STATUS_NO_FIX,
    STATUS_SBAS_FIX,
    WHEEL_TOPIC,
    TopicMessages,
    TopicSpec,
    seconds_to_ns,
)
from navsense.rotation import matrix_product, quat_about_z, quat_multiply
from navsense.runs.episode import Episode
from navsense.runs.kinds import FLOAT, TEXT, vector

__all__ = [
    "BARO",
    "BARO_COLUMNS",
    "GNSS_FIX",
    "GNSS_FIX_COLUMNS",
    "MAG",
    "MAG_COLUMNS",
    "NAVSAT_STATUS_OF_FIX",
    "RAW_IMU",
    "RAW_IMU_COLUMNS",
    "RECEIVER_ODOM_COLUMNS",
    "SensorTopic",
    "UNOBSERVED_VARIANCE",
    "WHEEL",
    "WHEEL_COLUMNS",
    "baro_topic",
    "gnss_fix_topic",
    "imu_noise_sigmas",
    "mag_topic",
    "raw_imu_topic",
    "receiver_odom_topic",
    "truth_odom_topic",
    "wheel_topic",
]

UNOBSERVED_VARIANCE = 1.0e6  # a quantity the sensor does not measure (unit^2)
# gnss.jsonl fix_type -> NavSatStatus.status (the receiver's own fix)
NAVSAT_STATUS_OF_FIX = {
    "no_fix": STATUS_NO_FIX,
    "single": STATUS_FIX,
    "dgps": STATUS_SBAS_FIX,
    "rtk_float": STATUS_GBAS_FIX,
    "rtk_fixed": STATUS_GBAS_FIX,
}
_TIMES = {"sample_time_s": FLOAT, "delivery_time_s": FLOAT}
#: The GNSS rows' columns of the receiver's fix.
GNSS_FIX_COLUMNS = {
    **_TIMES,
    "fix_type": TEXT,
    "latitude_deg": FLOAT,
    "longitude_deg": FLOAT,
    "ellipsoidal_height_m": FLOAT,
    "covariance_enu_m2": vector(9),
}
#: The GNSS rows' columns of the Maxxum's receiver odometry and ground truth.
RECEIVER_ODOM_COLUMNS = {**_TIMES, "position_enu_m": vector(3), "covariance_enu_m2": vector(9)}
#: The IMU rows' columns of the raw IMU (never null: a damaged file is refused by its row).
RAW_IMU_COLUMNS = {
    **_TIMES,
    "specific_force_flu_mps2": vector(3, nullable=False),
    "angular_velocity_flu_radps": vector(3, nullable=False),
}
MAG_COLUMNS = {**_TIMES, "magnetic_field_flu_ut": vector(3, nullable=False)}
BARO_COLUMNS = {**_TIMES, "pressure_pa": FLOAT}
WHEEL_COLUMNS = {**_TIMES, "speed_mps": FLOAT}
_UT_TO_T = 1.0e-6


def _times(columns: Mapping[str, np.ndarray], start_ns: int) -> tuple[np.ndarray, np.ndarray]:
    """(stamps, log times) in ns: start_utc + sample_time_s, start_utc + delivery_time_s."""
    return (
        start_ns + seconds_to_ns(columns["sample_time_s"]),
        start_ns + seconds_to_ns(columns["delivery_time_s"]),
    )


def _noise(episode: Episode) -> float:
    return 1.0 if episode.noise else 0.0


# ------------------------------------------------------------------------- GNSS receiver
def gnss_fix_topic(
    spec: TopicSpec,
    columns: Mapping[str, np.ndarray],
    episode: Episode,
    start_ns: int,
    where: str = "gnss.jsonl",
) -> TopicMessages:
    """The receiver's fix on ``spec`` (module docstring): ``columns`` as
    :data:`GNSS_FIX_COLUMNS` (NaN where a row has null: no fix); ``where`` names the rows in
    errors. ``episode``: episode.json or its ``noise`` and ``config``."""
    fix = columns["fix_type"].tolist()
    try:
        status = np.array([NAVSAT_STATUS_OF_FIX[f] for f in fix], dtype=np.int8)
    except KeyError:
        k = next(i for i, f in enumerate(fix) if f not in NAVSAT_STATUS_OF_FIX)
        raise FormatError(
            f"{where}: row {k + 1}: fix_type = {fix[k]!r} is not one of "
            f"{', '.join(NAVSAT_STATUS_OF_FIX)}"
        ) from None
    geo = np.stack(
        [columns["latitude_deg"], columns["longitude_deg"], columns["ellipsoidal_height_m"]],
        axis=-1,
    ).reshape(-1, 3)
    cov9 = np.asarray(columns["covariance_enu_m2"], dtype=np.float64).reshape(-1, 9)
    cov9 = np.where(np.isnan(cov9), 0.0, cov9)  # no fix: zeros, COVARIANCE_TYPE_UNKNOWN
    full = np.any(cov9[:, [1, 2, 3, 5, 6, 7]] != 0.0, axis=1)
    cov_type = np.where(
        status == STATUS_NO_FIX,
        COVARIANCE_TYPE_UNKNOWN,
        np.where(full, COVARIANCE_TYPE_KNOWN, COVARIANCE_TYPE_DIAGONAL_KNOWN),
    ).astype(np.uint8)
    systems = dict(episode.gnss_config.constellations)
    service = (
        (SERVICE_GPS if systems["gps"] else 0)
        | (SERVICE_GLONASS if systems["glonass"] else 0)
        | (SERVICE_GALILEO if systems["galileo"] else 0)
    )
    stamp, log = _times(columns, start_ns)
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


def _utm(georef, enu: np.ndarray, t_s: np.ndarray, episode: Episode) -> dict:
    """enu_to_fix_utm of the points in the INS's datum and zone (the configuration's zone), with
    the grid rotation."""
    zone = episode.ins_config.utm_zone
    south = bool(georef.site_wgs84_lat_lon_h()[0] < 0.0)
    return georef.enu_to_fix_utm(
        enu, t_s, zone, frame=episode.ins_datum, south=south, grid_rotation=True
    )


def receiver_odom_topic(
    spec: TopicSpec, columns: Mapping[str, np.ndarray], georef, start_ns: int, episode: Episode
) -> TopicMessages:
    """The Maxxum's /odom from its receiver (module docstring): ``columns`` as
    :data:`RECEIVER_ODOM_COLUMNS`; the epochs without a fix (NaN position) are left out."""
    pos = np.asarray(columns["position_enu_m"], dtype=np.float64).reshape(-1, 3)
    keep = np.all(np.isfinite(pos), axis=1)
    pos = pos[keep]
    cov = np.asarray(columns["covariance_enu_m2"], dtype=np.float64).reshape(-1, 3, 3)[keep]
    t = np.asarray(columns["sample_time_s"], dtype=np.float64)[keep]
    stamp, log = (x[keep] for x in _times(columns, start_ns))
    m = len(pos)
    east = north = height = alpha = np.zeros(0)
    if m:
        u = _utm(georef, pos, t, episode)
        east, north, height = u["easting_m"], u["northing_m"], u["height_m"]
        alpha = np.radians(u["grid_rotation_deg"])
    # grid ENU -> UTM grid axes: turned by -alpha about up
    c, s = np.cos(alpha), np.sin(alpha)
    rot = np.zeros((m, 3, 3))
    rot[:, 0, 0], rot[:, 0, 1], rot[:, 1, 0], rot[:, 1, 1], rot[:, 2, 2] = c, -s, s, c, 1.0
    cov_utm = matrix_product(matrix_product(rot, cov), np.swapaxes(rot, 1, 2))
    position = np.stack([east, north, height], axis=-1).reshape(m, 3)
    identity = np.broadcast_to([0.0, 0.0, 0.0, 1.0], (m, 4))
    zeros = np.zeros((m, 3))
    pose_diag = [0.0, 0.0, 0.0] + [UNOBSERVED_VARIANCE] * 3
    twist_diag = [UNOBSERVED_VARIANCE] * 6
    block = [0, 1, 2, 6, 7, 8, 12, 13, 14]  # the position block of a 6 x 6 row-major matrix
    lay = odometry_layout(spec.frame_id, spec.child_frame_id)

    def encode(a: int, b: int) -> np.ndarray:
        rec = encode_odometry(
            lay,
            stamp[a:b],
            position[a:b],
            identity[a:b],
            pose_diag,
            zeros[a:b],
            zeros[a:b],
            twist_diag,
        )
        rec["pose.covariance"][:, block] = cov_utm[a:b].reshape(-1, 9)
        return rec

    return TopicMessages(spec, log, encode)


def truth_odom_topic(
    spec: TopicSpec,
    columns: Mapping[str, np.ndarray],
    truth_point: Mapping[str, np.ndarray],
    truth_q_xyzw: np.ndarray,
    georef,
    start_ns: int,
    episode: Episode,
) -> TopicMessages:
    """The Maxxum's /ground_truth/odom at the GNSS epochs (module docstring): ``columns`` their
    times, ``truth_point`` :func:`navsense.truth.points.point_kinematics` of base_footprint at
    their sample steps, ``truth_q_xyzw`` the truth attitude there."""
    t = np.asarray(columns["sample_time_s"], dtype=np.float64)
    stamp, log = _times(columns, start_ns)
    m = len(t)
    position = np.zeros((m, 3))
    q_utm = np.zeros((m, 4))
    if m:
        u = _utm(georef, truth_point["position_m"], t, episode)
        position = np.stack([u["easting_m"], u["northing_m"], u["height_m"]], axis=-1)
        q_utm = quat_multiply(quat_about_z(-np.radians(u["grid_rotation_deg"])), truth_q_xyzw)
    lin, ang = truth_point["velocity_body_mps"], truth_point["angular_body_radps"]
    lay = odometry_layout(spec.frame_id, spec.child_frame_id)
    return TopicMessages(
        spec,
        log,
        lambda a, b: encode_odometry(
            lay, stamp[a:b], position[a:b], q_utm[a:b], 0.0, lin[a:b], ang[a:b], 0.0
        ),
    )


# ------------------------------------------------------------------------------------ IMU
def imu_noise_sigmas(episode: Episode) -> tuple[np.ndarray, np.ndarray]:
    """The IMU's white-noise standard deviation per sample and axis, (3,) specific force (m/s^2)
    and (3,) angular rate (rad/s) (module docstring); zero with noise off."""
    from navsense.config.typed.configurable_imu import ConfigurableImuConfig

    k = _noise(episode)
    c = episode.imu_config
    if isinstance(c, ConfigurableImuConfig):
        rate = math.sqrt(c.hz)  # N sqrt(1 / dt), the model's discretisation of the white term
        return k * c.accel.noise_density * rate, k * c.gyro.noise_density * rate
    return np.full(3, k * c.accel_std_mps2), np.full(3, k * c.gyro_std_radps)


def raw_imu_topic(
    spec: TopicSpec, columns: Mapping[str, np.ndarray], episode: Episode, start_ns: int
) -> TopicMessages:
    """The IMU's samples on ``spec`` (module docstring): ``columns`` as :data:`RAW_IMU_COLUMNS`."""
    force = np.asarray(columns["specific_force_flu_mps2"], dtype=np.float64).reshape(-1, 3)
    rate = np.asarray(columns["angular_velocity_flu_radps"], dtype=np.float64).reshape(-1, 3)
    s_f, s_w = imu_noise_sigmas(episode)
    accel_cov9 = np.diag(s_f**2).ravel()
    rate_cov9 = np.diag(s_w**2).ravel()
    q_cov9 = np.zeros(9)
    q_cov9[0] = -1.0  # sensor_msgs/Imu: no orientation estimate
    q_none = np.zeros((len(force), 4))
    stamp, log = _times(columns, start_ns)
    lay = imu_layout(spec.frame_id)
    return TopicMessages(
        spec,
        log,
        lambda a, b: encode_imu(
            lay, stamp[a:b], q_none[a:b], q_cov9, rate[a:b], rate_cov9, force[a:b], accel_cov9
        ),
    )


# ----------------------------------------------------------- magnetometer, barometer, wheel
def mag_topic(
    spec: TopicSpec, columns: Mapping[str, np.ndarray], episode: Episode, start_ns: int
) -> TopicMessages:
    """The magnetometer on ``spec`` (module docstring): ``columns`` as :data:`MAG_COLUMNS`."""
    field_t = np.asarray(columns["magnetic_field_flu_ut"], dtype=np.float64).reshape(-1, 3)
    field_t = field_t * _UT_TO_T
    sigma_t = _noise(episode) * episode.mag_config.noise_std_ut * _UT_TO_T
    cov9 = np.zeros(9)
    cov9[list(COV3_DIAG)] = sigma_t**2
    stamp, log = _times(columns, start_ns)
    lay = magnetic_field_layout(spec.frame_id)
    return TopicMessages(
        spec, log, lambda a, b: encode_magnetic_field(lay, stamp[a:b], field_t[a:b], cov9)
    )


def baro_topic(
    spec: TopicSpec, columns: Mapping[str, np.ndarray], episode: Episode, start_ns: int
) -> TopicMessages:
    """The barometer on ``spec`` (module docstring): ``columns`` as :data:`BARO_COLUMNS`."""
    pressure = np.asarray(columns["pressure_pa"], dtype=np.float64).reshape(-1)
    c = episode.baro_config
    variance = _noise(episode) * (c.noise_std_pa**2 + c.bias_sigma_pa**2)
    stamp, log = _times(columns, start_ns)
    lay = fluid_pressure_layout(spec.frame_id)
    return TopicMessages(
        spec, log, lambda a, b: encode_fluid_pressure(lay, stamp[a:b], pressure[a:b], variance)
    )


def wheel_topic(
    spec: TopicSpec, columns: Mapping[str, np.ndarray], episode: Episode, start_ns: int
) -> TopicMessages:
    """The wheel odometer on ``spec`` (module docstring): ``columns`` as :data:`WHEEL_COLUMNS`."""
    speed = np.asarray(columns["speed_mps"], dtype=np.float64).reshape(-1)
    c = episode.odom_config
    k = _noise(episode)
    quantisation = (c.encoder_tick_m * c.hz) ** 2 / 12.0  # uniform over one tick a sample
    var_x = (k * c.noise_std_mps) ** 2 + (k * c.scale_factor_sigma * speed) ** 2 + quantisation
    cov6 = np.empty((len(speed), 6))
    cov6[:, 0] = var_x
    cov6[:, 1:] = UNOBSERVED_VARIANCE
    linear = np.zeros((len(speed), 3))
    linear[:, 0] = speed
    zeros = np.zeros((len(speed), 3))
    stamp, log = _times(columns, start_ns)
    lay = twist_with_covariance_stamped_layout(spec.frame_id)
    return TopicMessages(
        spec,
        log,
        lambda a, b: encode_twist_with_covariance_stamped(
            lay, stamp[a:b], linear[a:b], zeros[a:b], cov6[a:b]
        ),
    )


# ------------------------------------------------------------------------ the suite's topics
@dataclass(frozen=True)
class SensorTopic:
    """A topic of a sensor's rows (module docstring): ``spec`` the topic, ``columns`` the rows'
    columns its builder reads (navsense.runs.reader kinds), ``build(spec, columns, episode,
    start_ns) -> TopicMessages``; ``option``: the BagPlan flag that adds it (``gnss_fix``,
    ``raw_imu``), None: whenever the sensor is on."""

    spec: TopicSpec
    columns: Mapping[str, Any]
    build: Callable[[TopicSpec, Mapping[str, np.ndarray], Episode, int], TopicMessages]
    option: str | None = None


GNSS_FIX = SensorTopic(GNSS_FIX_TOPIC, GNSS_FIX_COLUMNS, gnss_fix_topic, option="gnss_fix")
RAW_IMU = SensorTopic(RAW_IMU_TOPIC, RAW_IMU_COLUMNS, raw_imu_topic, option="raw_imu")
MAG = SensorTopic(MAG_TOPIC, MAG_COLUMNS, mag_topic)
BARO = SensorTopic(BARO_TOPIC, BARO_COLUMNS, baro_topic)
WHEEL = SensorTopic(WHEEL_TOPIC, WHEEL_COLUMNS, wheel_topic)
