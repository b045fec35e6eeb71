"""ROS 2 bags in MCAP: read back with independent readers and compared with the run's rows.

The bag is written by navsense (mcap container, navsense's block CDR encoder) and read with
rosbags (its own MCAP reader, the ROS 2 Humble typestore and its CDR deserialiser); the payloads
are also compared byte for byte with the generic encoder of mcap-ros2-support, and the embedded
message definitions with rosbags' own Humble definitions. Values are checked against ins.jsonl
(rounded to the row's decimals) and ins.frames (exact).
"""

import argparse
import math
from pathlib import Path

import numpy as np
import orjson
import pytest

from navsense.errors import FormatError
from navsense.output.frames import INS_FIELD_INDEX
from navsense.output.ros2 import (
    LATCHED_QOS,
    MAXXUM_TOPICS,
    POLARIS_TOPICS,
    msgdef,
    utc_ns,
)
from navsense.runs.export_mcap import DEFAULT_BAG_NAME, write_mcap
from navsense.runs.ins_frames import read_ins_frames
from navsense.scenarios import load_scenario
from output.ros2_helpers import (
    TYPESTORE,
    read_bag,
    reencode_with_mcap_ros2_support,
    short_run,
    topics,
)
from output.ros2_helpers import quat as _quat
from output.ros2_helpers import stamp_ns as _stamp_ns
from output.ros2_helpers import vec as _vec

# tolerances in physical units: the rows' decimals (half a unit of the last decimal)
ROW_M = 0.5e-4  # position_m, position_enu_m, altitude: 4 decimals
ROW_Q = 0.5e-9  # quaternions: 9 decimals
ROW_DEG = 0.5e-9  # latitude, longitude: 9 decimals
ROW_V = 0.5e-6  # linear velocity, specific force: 6 decimals
ROW_W = 0.5e-8  # angular velocity: 8 decimals
ROW_COV = 0.5e-10  # covariances: 10 decimals
ULP = 1e-12  # relative, for values that pass through one multiplication


@pytest.fixture(scope="module")
def polaris_run(tmp_path_factory) -> Path:
    return short_run(tmp_path_factory, "polaris", "polaris", 40.0)


@pytest.fixture(scope="module")
def maxxum_run(tmp_path_factory) -> Path:
    return short_run(tmp_path_factory, "maxxum", "maxxum", 8.0, {"ins.enabled": True})


@pytest.fixture(scope="module")
def polaris_bag(polaris_run) -> dict:
    path = write_mcap(polaris_run, gnss_fix=True, raw_imu=True)
    assert path == polaris_run / DEFAULT_BAG_NAME
    return read_bag(path)


@pytest.fixture(scope="module")
def rows(polaris_run) -> dict:
    def read(name):
        with open(polaris_run / name, "rb") as f:
            return [orjson.loads(line) for line in f]

    episode = orjson.loads((polaris_run / "episode.json").read_bytes())
    return {
        "ins": read("ins.jsonl"),
        "gnss": read("gnss.jsonl"),
        "imu": read("imu.jsonl"),
        "frames": read_ins_frames(polaris_run / "ins.frames"),
        "episode": episode,
    }


def _col(frames, *names) -> np.ndarray:
    return np.stack([frames[:, INS_FIELD_INDEX[n]] for n in names], axis=-1)


# --------------------------------------------------------------------------------- schemas
@pytest.mark.parametrize(
    "msg_type",
    [
        "nav_msgs/msg/Odometry",
        "sensor_msgs/msg/NavSatFix",
        "sensor_msgs/msg/Imu",
        "geometry_msgs/msg/TwistStamped",
        "tf2_msgs/msg/TFMessage",
        "sensor_msgs/msg/MagneticField",
        "sensor_msgs/msg/FluidPressure",
        "geometry_msgs/msg/TwistWithCovarianceStamped",
    ],
)
def test_embedded_message_definitions_are_rosbags_humble_definitions(msg_type):
    text, _ = TYPESTORE.generate_msgdef(msg_type, ros_version=2)
    assert msgdef(msg_type) == text


def test_mcap_profile_schema_and_message_encodings(polaris_run, polaris_bag):
    from mcap.reader import make_reader

    with open(polaris_run / DEFAULT_BAG_NAME, "rb") as f:
        reader = make_reader(f)
        header = reader.get_header()
        summary = reader.get_summary()
    assert header.profile == "ros2"
    assert {s.encoding for s in summary.schemas.values()} == {"ros2msg"}
    assert {c.message_encoding for c in summary.channels.values()} == {"cdr"}
    # required by the ros2 profile; empty: rosbag2's player uses its default QoS (reliable,
    # volatile); /tf_static: latched, as tf2_ros's static broadcaster offers it
    qos = {c.topic: c.metadata for c in summary.channels.values()}
    assert qos.pop("/tf_static") == {"offered_qos_profiles": LATCHED_QOS}
    assert all(m == {"offered_qos_profiles": ""} for m in qos.values())
    assert {s.name for s in summary.schemas.values()} == {
        "nav_msgs/msg/Odometry",
        "sensor_msgs/msg/NavSatFix",
        "sensor_msgs/msg/Imu",
        "geometry_msgs/msg/TwistStamped",
        "tf2_msgs/msg/TFMessage",
    }


def test_payloads_equal_mcap_ros2_support_encoding(polaris_run, polaris_bag):
    """Every topic's first, middle and last payloads re-encode to the same bytes with the
    generic dynamic encoder of mcap-ros2-support (decoded by its own decoder)."""
    checked = reencode_with_mcap_ros2_support(polaris_run / DEFAULT_BAG_NAME)
    assert set(checked) == topics(polaris_bag)


# ------------------------------------------------------------------------- topics, frames
def test_polaris_topics_types_counts_and_frames(polaris_bag, rows):
    n_ins, n_gnss, n_imu = len(rows["ins"]), len(rows["gnss"]), len(rows["imu"])
    expected = {
        "/tf_static": ("tf2_msgs/msg/TFMessage", 1, None, None),
        "/vehicle/odom": ("nav_msgs/msg/Odometry", n_ins, "utm", "base_footprint"),
        "/oxts/fix": ("sensor_msgs/msg/NavSatFix", n_ins, "navsat_link", None),
        "/oxts/imu": ("sensor_msgs/msg/Imu", n_ins, "oxts_link", None),
        "/oxts/velocity": ("geometry_msgs/msg/TwistStamped", n_ins, "oxts_link", None),
        "/sim/ground_truth/odom": ("nav_msgs/msg/Odometry", n_ins, "utm", "base_footprint"),
        "/tf": ("tf2_msgs/msg/TFMessage", n_ins, None, None),
        "/gnss/receiver/fix": ("sensor_msgs/msg/NavSatFix", n_gnss, "gnss_link", None),
        "/imu/raw": ("sensor_msgs/msg/Imu", n_imu, "imu_link", None),
    }
    assert set(expected) == {t for t in polaris_bag if not t.startswith("_")}
    for topic, (msg_type, count, frame, child) in expected.items():
        entry = polaris_bag[topic]
        assert entry["type"] == msg_type, topic
        assert len(entry["msgs"]) == count == entry["count"], topic
        if frame is not None:
            assert {m.header.frame_id for m in entry["msgs"]} == {frame}, topic
        if child is not None:
            assert {m.child_frame_id for m in entry["msgs"]} == {child}, topic
    for msg in polaris_bag["/tf"]["msgs"]:
        assert len(msg.transforms) == 1
        assert msg.transforms[0].header.frame_id == "utm"
        assert msg.transforms[0].child_frame_id == "base_footprint"


def test_stamps_are_sample_times_and_log_times_delivery_times(polaris_bag, rows):
    start = utc_ns(rows["episode"]["start_utc"])
    assert start == 1_790_175_600_000_000_000  # 2026-09-23T15:00:00Z
    sample = np.array([start + round(r["sample_time_s"] * 1e9) for r in rows["ins"]])
    delivery = np.array([start + round(r["delivery_time_s"] * 1e9) for r in rows["ins"]])
    for topic in (
        "/vehicle/odom",
        "/oxts/fix",
        "/oxts/imu",
        "/oxts/velocity",
        "/sim/ground_truth/odom",
    ):
        entry = polaris_bag[topic]
        np.testing.assert_array_equal([_stamp_ns(m.header) for m in entry["msgs"]], sample)
        np.testing.assert_array_equal(entry["log_ns"], delivery)
    tf = polaris_bag["/tf"]
    np.testing.assert_array_equal([_stamp_ns(m.transforms[0].header) for m in tf["msgs"]], sample)
    np.testing.assert_array_equal(tf["log_ns"], delivery)
    gnss = polaris_bag["/gnss/receiver/fix"]
    np.testing.assert_array_equal(
        [_stamp_ns(m.header) for m in gnss["msgs"]],
        [start + round(r["sample_time_s"] * 1e9) for r in rows["gnss"]],
    )
    np.testing.assert_array_equal(
        gnss["log_ns"], [start + round(r["delivery_time_s"] * 1e9) for r in rows["gnss"]]
    )
    # the latency is visible: delivery is delay_s (0.05 s) or up to one physics step later
    lag = delivery - sample
    assert lag.min() >= 50_000_000 and lag.max() <= 50_000_000 + 8_333_334
    order = np.array(polaris_bag["_order"])
    assert np.all(np.diff(order) >= 0)  # written in log-time order


# ---------------------------------------------------------------------------------- values
def test_odometry_pose_covariance_and_twist_match_ins_rows(polaris_bag, rows):
    msgs = polaris_bag["/vehicle/odom"]["msgs"]
    pos = np.array([_vec(m.pose.pose.position) for m in msgs])
    q = np.array([_quat(m.pose.pose.orientation) for m in msgs])
    cov = np.array([m.pose.covariance for m in msgs])
    lin = np.array([_vec(m.twist.twist.linear) for m in msgs])
    ang = np.array([_vec(m.twist.twist.angular) for m in msgs])
    tcov = np.array([m.twist.covariance for m in msgs])
    odom = [r["odom"] for r in rows["ins"]]
    np.testing.assert_allclose(pos, [o["position_m"] for o in odom], rtol=0, atol=ROW_M)
    np.testing.assert_allclose(q, [o["orientation_xyzw"] for o in odom], rtol=0, atol=ROW_Q)
    np.testing.assert_allclose(
        lin, [o["twist"]["linear_flu_mps"] for o in odom], rtol=0, atol=ROW_V
    )
    np.testing.assert_allclose(
        ang, [o["twist"]["angular_flu_radps"] for o in odom], rtol=0, atol=ROW_W
    )
    # the full float64 values of ins.frames
    f = rows["frames"]
    np.testing.assert_array_equal(pos, _col(f, "InsUtmE", "InsUtmN", "InsUtmH"))
    np.testing.assert_array_equal(q, _col(f, "InsUtmQx", "InsUtmQy", "InsUtmQz", "InsUtmQw"))
    # covariance: diagonal only; position = the fix covariance, orientation from the config
    ins_cfg = rows["episode"]["config"]["ins"]
    att = math.radians(ins_cfg["attitude_sigma_deg"]) ** 2
    head = math.radians(ins_cfg["heading_sigma_deg"]) ** 2
    diag = [0, 7, 14, 21, 28, 35]
    off = np.ones(36, dtype=bool)
    off[diag] = False
    assert np.all(cov[:, off] == 0) and np.all(tcov[:, off] == 0)
    np.testing.assert_allclose(
        cov[:, diag[:3]],
        [r["fix"]["position_covariance"] for r in rows["ins"]],
        rtol=0,
        atol=ROW_COV,
    )
    np.testing.assert_allclose(
        cov[:, diag[3:]], np.tile([att, att, head], (len(msgs), 1)), rtol=ULP
    )
    s2 = ins_cfg["position_sigma_m"] ** 2 + ins_cfg["position_white_m"] ** 2
    np.testing.assert_allclose(cov[0, diag[:3]], [s2, s2, 2.25 * s2], rtol=1e-12)
    np.testing.assert_allclose(
        tcov[0, diag],
        [ins_cfg["velocity_white_mps"] ** 2] * 3 + [ins_cfg["gyro_white_radps"] ** 2] * 3,
        rtol=ULP,
    )


def test_fix_matches_ins_rows(polaris_bag, rows):
    msgs = polaris_bag["/oxts/fix"]["msgs"]
    fix = [r["fix"] for r in rows["ins"]]
    assert {m.status.status for m in msgs} == {2}  # STATUS_GBAS_FIX: the spec's "status 2 (RTK)"
    assert {m.status.service for m in msgs} == {1}  # SERVICE_GPS
    assert {m.position_covariance_type for m in msgs} == {2}  # COVARIANCE_TYPE_DIAGONAL_KNOWN
    np.testing.assert_allclose(
        [m.latitude for m in msgs], [x["latitude"] for x in fix], rtol=0, atol=ROW_DEG
    )
    np.testing.assert_allclose(
        [m.longitude for m in msgs], [x["longitude"] for x in fix], rtol=0, atol=ROW_DEG
    )
    np.testing.assert_allclose(
        [m.altitude for m in msgs], [x["altitude"] for x in fix], rtol=0, atol=ROW_M
    )
    cov = np.array([m.position_covariance for m in msgs]).reshape(-1, 3, 3)
    np.testing.assert_allclose(
        np.diagonal(cov, axis1=1, axis2=2),
        [x["position_covariance"] for x in fix],
        rtol=0,
        atol=ROW_COV,
    )
    assert np.all(cov[:, [0, 0, 1, 1, 2, 2], [1, 2, 0, 2, 0, 1]] == 0)


def test_oxts_imu_is_in_the_mounting_axes_x_left_y_forward_z_down(polaris_bag, rows):
    from scipy.spatial.transform import Rotation

    msgs = polaris_bag["/oxts/imu"]["msgs"]
    imu = [r["imu"] for r in rows["ins"]]
    w_flu = np.array([x["angular_velocity_flu_radps"] for x in imu])
    f_flu = np.array([x["linear_acceleration_flu_mps2"] for x in imu])
    w = np.array([_vec(m.angular_velocity) for m in msgs])
    f = np.array([_vec(m.linear_acceleration) for m in msgs])
    # (x, y, z)_imu = (y, x, -z)_FLU
    np.testing.assert_allclose(
        w, np.stack([w_flu[:, 1], w_flu[:, 0], -w_flu[:, 2]], -1), rtol=0, atol=ROW_W
    )
    np.testing.assert_allclose(
        f, np.stack([f_flu[:, 1], f_flu[:, 0], -f_flu[:, 2]], -1), rtol=0, atol=ROW_V
    )
    # parked in the garage at the start: the down axis reads -g
    assert abs(f[0, 2] + 9.80665) < 0.1
    # q_imu = q_ins (x) (1/sqrt2, 1/sqrt2, 0, 0): checked with scipy's quaternion algebra and by
    # its meaning: the imu's y axis is the body's forward axis, x its left, z its down axis
    q_imu = np.array([_quat(m.orientation) for m in msgs])
    q_ins = np.array([x["orientation_enu_xyzw"] for x in imu])
    r_imu = Rotation.from_quat(q_imu)
    r_ins = Rotation.from_quat(q_ins)
    ref = (r_ins * Rotation.from_quat([math.sqrt(0.5), math.sqrt(0.5), 0.0, 0.0])).as_quat()
    sign = np.sign(np.sum(ref * q_imu, axis=1))[:, None]
    np.testing.assert_allclose(q_imu, sign * ref, rtol=0, atol=4 * ROW_Q)
    for imu_axis, flu_axis in (
        ([1, 0, 0], [0, 1, 0]),
        ([0, 1, 0], [1, 0, 0]),
        ([0, 0, 1], [0, 0, -1]),
    ):
        np.testing.assert_allclose(r_imu.apply(imu_axis), r_ins.apply(flu_axis), rtol=0, atol=1e-8)
    # covariances from the configuration: orientation (roll, pitch, yaw), rate, acceleration
    cfg = rows["episode"]["config"]["ins"]
    att, head = math.radians(cfg["attitude_sigma_deg"]), math.radians(cfg["heading_sigma_deg"])
    np.testing.assert_allclose(
        msgs[0].orientation_covariance, np.diag([att**2, att**2, head**2]).ravel(), rtol=ULP
    )
    np.testing.assert_allclose(
        msgs[0].angular_velocity_covariance,
        np.diag([cfg["gyro_white_radps"] ** 2] * 3).ravel(),
        rtol=ULP,
    )
    np.testing.assert_allclose(
        msgs[0].linear_acceleration_covariance,
        np.diag([cfg["accel_white_mps2"] ** 2] * 3).ravel(),
        rtol=ULP,
    )


def test_velocity_is_flu_metres_per_second_and_degrees_per_second(polaris_bag, rows):
    msgs = polaris_bag["/oxts/velocity"]["msgs"]
    vel = [r["velocity"] for r in rows["ins"]]
    lin = np.array([_vec(m.twist.linear) for m in msgs])
    ang = np.array([_vec(m.twist.angular) for m in msgs])
    np.testing.assert_allclose(lin, [v["linear_flu_mps"] for v in vel], rtol=0, atol=ROW_V)
    ang_rad = np.array([v["angular_flu_radps"] for v in vel])
    np.testing.assert_allclose(ang, np.degrees(ang_rad), rtol=0, atol=np.degrees(ROW_W))
    gyro = _col(rows["frames"], "InsGyroX", "InsGyroY", "InsGyroZ")
    np.testing.assert_allclose(ang, gyro * (180.0 / math.pi), rtol=ULP, atol=0)
    # the turn out of the garage: more than 10 deg/s of yaw rate somewhere in 40 s
    assert np.max(np.abs(ang[:, 2])) > 10.0


def test_ground_truth_odometry_is_the_pose_without_errors(polaris_bag, rows):
    msgs = polaris_bag["/sim/ground_truth/odom"]["msgs"]
    f = rows["frames"]
    pos = np.array([_vec(m.pose.pose.position) for m in msgs])
    q = np.array([_quat(m.pose.pose.orientation) for m in msgs])
    np.testing.assert_array_equal(pos, _col(f, "InsTruthX", "InsTruthY", "InsTruthZ"))
    np.testing.assert_array_equal(
        q, _col(f, "InsTruthQx", "InsTruthQy", "InsTruthQz", "InsTruthQw")
    )
    assert all(not np.any(m.pose.covariance) and not np.any(m.twist.covariance) for m in msgs)
    # the twist: the truth's body-frame velocity of the INS point and angular velocity at the
    # epoch's physics step, computed here with scipy from the scenario's truth
    from scipy.spatial.transform import Rotation

    truth = load_scenario("acre-loop", duration_s=40.0).truth
    k = np.rint(np.array([r["sample_time_s"] for r in rows["ins"]]) * 120.0).astype(int)
    r = Rotation.from_quat(truth.q_xyzw[k])
    r_n = np.array(rows["episode"]["ins"]["point_chassis_flu_m"])
    p_n = truth.p_m[k] + r.apply(r_n)
    v_n = truth.v_mps[k] + np.cross(truth.w_radps[k], p_n - truth.c_m[k])
    lin = np.array([_vec(m.twist.twist.linear) for m in msgs])
    ang = np.array([_vec(m.twist.twist.angular) for m in msgs])
    np.testing.assert_allclose(lin, r.inv().apply(v_n), rtol=0, atol=1e-12)
    np.testing.assert_allclose(ang, r.inv().apply(truth.w_radps[k]), rtol=0, atol=1e-12)
    assert np.max(np.abs(lin[:, 0])) > 2.0 and np.max(np.abs(ang[:, 2])) > 0.2  # it drives
    # the INS's velocity is the truth's with white noise of velocity_white_mps
    ins_lin = np.array([_vec(m.twist.twist.linear) for m in polaris_bag["/vehicle/odom"]["msgs"]])
    s_v = rows["episode"]["config"]["ins"]["velocity_white_mps"]
    assert 0.8 * s_v < np.std(ins_lin - lin) < 1.2 * s_v
    # the INS odometry differs from it by the INS errors: centimetres, never zero
    ins = np.array([_vec(m.pose.pose.position) for m in polaris_bag["/vehicle/odom"]["msgs"]])
    d = np.linalg.norm(ins - pos, axis=1)
    assert d.min() > 0 and d.max() < 0.1


def test_tf_is_utm_to_base_footprint_at_the_odometry_pose(polaris_bag):
    odom = polaris_bag["/vehicle/odom"]["msgs"]
    tf = [m.transforms[0] for m in polaris_bag["/tf"]["msgs"]]
    np.testing.assert_array_equal(
        [_vec(t.transform.translation) for t in tf], [_vec(o.pose.pose.position) for o in odom]
    )
    np.testing.assert_array_equal(
        [_quat(t.transform.rotation) for t in tf], [_quat(o.pose.pose.orientation) for o in odom]
    )


def test_gnss_receiver_fix_status_and_covariance(polaris_bag, rows):
    msgs = polaris_bag["/gnss/receiver/fix"]["msgs"]
    status = {"no_fix": -1, "single": 0, "dgps": 1, "rtk_float": 2, "rtk_fixed": 2}
    kinds = set()
    for m, r in zip(msgs, rows["gnss"]):
        kinds.add(r["fix_type"])
        assert m.status.status == status[r["fix_type"]]
        assert m.status.service == 1 | 2 | 8  # GPS, GLONASS, Galileo all on
        if r["fix_type"] == "no_fix":
            assert math.isnan(m.latitude) and math.isnan(m.longitude) and math.isnan(m.altitude)
            assert m.position_covariance_type == 0 and not np.any(m.position_covariance)
        else:
            assert m.latitude == r["latitude_deg"] and m.longitude == r["longitude_deg"]
            assert m.altitude == r["ellipsoidal_height_m"]
            assert m.position_covariance_type == 2
            np.testing.assert_array_equal(m.position_covariance, r["covariance_enu_m2"])
    assert {"no_fix", "rtk_float"} <= kinds  # the garage, then the way out


def test_raw_imu_has_no_orientation(polaris_bag, rows):
    msgs = polaris_bag["/imu/raw"]["msgs"]
    assert all(m.orientation_covariance[0] == -1.0 for m in msgs)
    np.testing.assert_array_equal(
        [_vec(m.linear_acceleration) for m in msgs],
        [r["specific_force_flu_mps2"] for r in rows["imu"]],
    )
    np.testing.assert_array_equal(
        [_vec(m.angular_velocity) for m in msgs],
        [r["angular_velocity_flu_radps"] for r in rows["imu"]],
    )
    cfg = rows["episode"]["config"]["imu"]
    np.testing.assert_allclose(
        msgs[0].linear_acceleration_covariance,
        np.diag([cfg["accel_std_mps2"] ** 2] * 3).ravel(),
        rtol=ULP,
    )
    np.testing.assert_allclose(
        msgs[-1].angular_velocity_covariance,
        np.diag([cfg["gyro_std_radps"] ** 2] * 3).ravel(),
        rtol=ULP,
    )


# ------------------------------------------------------------------------------ the Maxxum
def test_maxxum_topics_and_flu_imu(maxxum_run):
    path = write_mcap(maxxum_run, maxxum_run / "maxxum.mcap")
    bag = read_bag(path)
    topics = {t for t in bag if not t.startswith("_")}
    assert (
        topics - {"/tf_static"}
        == {s.topic for s in MAXXUM_TOPICS.values()}
        == {"/odom", "/gnss/fix", "/imu/data", "/ground_truth/odom", "/tf"}
    )
    assert {m.header.frame_id for m in bag["/gnss/fix"]["msgs"]} == {"gnss_link"}
    assert {m.header.frame_id for m in bag["/imu/data"]["msgs"]} == {"base_footprint"}
    with open(maxxum_run / "ins.jsonl", "rb") as f:
        ins = [orjson.loads(line)["imu"] for line in f]
    np.testing.assert_allclose(
        [_quat(m.orientation) for m in bag["/imu/data"]["msgs"]],
        [x["orientation_enu_xyzw"] for x in ins],
        rtol=0,
        atol=ROW_Q,
    )
    np.testing.assert_allclose(
        [_vec(m.linear_acceleration) for m in bag["/imu/data"]["msgs"]],
        [x["linear_acceleration_flu_mps2"] for x in ins],
        rtol=0,
        atol=ROW_V,
    )
    assert all(len(bag[t]["msgs"]) == len(ins) for t in topics - {"/tf_static"})
    # gnss_link is the INS point here (the specification's frame of the Maxxum's INS fix)
    (static,) = bag["/tf_static"]["msgs"]
    links = {t.child_frame_id: _vec(t.transform.translation) for t in static.transforms}
    point = np.array(
        orjson.loads((maxxum_run / "episode.json").read_bytes())["ins"]["point_chassis_flu_m"]
    )
    np.testing.assert_allclose(links["gnss_link"], point - [-0.4 * 2.69, 0.0, -1.10], atol=1e-12)


def test_topic_tables_name_the_specification_topics():
    assert [s.topic for s in POLARIS_TOPICS.values()] == [
        "/vehicle/odom",
        "/oxts/fix",
        "/oxts/imu",
        "/oxts/velocity",
        "/sim/ground_truth/odom",
        "/tf",
    ]


# -------------------------------------------------------------------------------- failures
def test_refuses_to_overwrite_and_leaves_no_partial_file(polaris_run, polaris_bag):
    path = polaris_run / DEFAULT_BAG_NAME
    before = path.read_bytes()
    with pytest.raises(FormatError, match="exists"):
        write_mcap(polaris_run)
    assert path.read_bytes() == before
    assert not list(polaris_run.glob(".*partial"))


def test_failed_export_leaves_nothing(polaris_run, tmp_path):
    # the run's files (a sensor episode.json has on must have its rows), ins.frames truncated
    names = sorted(p.name for p in polaris_run.iterdir() if p.is_file() and p.suffix != ".mcap")
    for name in names:
        (tmp_path / name).write_bytes((polaris_run / name).read_bytes())
    (tmp_path / "ins.frames").write_bytes((polaris_run / "ins.frames").read_bytes()[:-8])
    with pytest.raises(FormatError, match="whole number"):
        write_mcap(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == names


def test_not_a_run_directory(tmp_path):
    with pytest.raises(FormatError, match="episode.json"):
        write_mcap(tmp_path)


# --------------------------------------------------------------------------------- the CLI
def _cli(argv):
    from navsense.commands import export as cli_export

    parser = argparse.ArgumentParser(prog="navsense")
    cli_export.add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    return args.func(args)


def test_cli_export_mcap(polaris_run, tmp_path, capsys):
    out = tmp_path / "drive.mcap"
    assert _cli(["export", "mcap", str(polaris_run), "--out", str(out)]) == 0
    assert str(out) in capsys.readouterr().out
    bag = read_bag(out)
    assert "/gnss/receiver/fix" not in bag and "/imu/raw" not in bag  # off by default
    with pytest.raises(FormatError, match="exists"):
        _cli(["export", "mcap", str(polaris_run), "--out", str(out), "--gnss-fix", "--raw-imu"])
