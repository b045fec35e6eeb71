"""/gnss/heading in the ROS 2 bag (gnss.heading, issue 29 item 4; output.ros2.heading_topic).

Read back with the rosbags and mcap readers (independent of navsense's writer): a
sensor_msgs/Imu with the orientation alone, as robot_localization takes it (REP-103 ENU yaw,
roll and pitch variances large, angular velocity and acceleration marked not available with -1);
its yaw, turned into base_link's by /tf_static's gnss_heading_link as robot_localization does,
is the vehicle's true yaw from the run's truth within 4 of the reported sigmas.
"""

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from mcap.reader import make_reader
from rosbags.highlevel import AnyReader

from navsense.config import load_config
from navsense.geo.epoch import utc_ns
from navsense.output.ros2.sensor_topics import UNOBSERVED_VARIANCE
from navsense.rotation import euler_zyx_of_quat
from navsense.scenarios import load_scenario
from navsense.sensors.gnss.velocity import grid_north_azimuth_deg
from navsense.truth.io import read_truth


def _simulate(out: Path, *args: str) -> None:
    cmd = [sys.executable, "-m", "navsense", "simulate", "--duration", "90", "--out", str(out)]
    subprocess.run([*cmd, "--mcap", "--save-truth", *args], check=True, capture_output=True)


def _messages(bag: Path, topic: str) -> list:
    with AnyReader([bag]) as reader:
        conns = [c for c in reader.connections if c.topic == topic]
        return [(t, reader.deserialize(raw, c.msgtype)) for c, t, raw in reader.messages(conns)]


@pytest.fixture(scope="module")
def lateral(tmp_path_factory):
    """The Maxxum (INS off), its second antenna 1.2 m to the left of the first (0, 0, 1.7)."""
    out = tmp_path_factory.mktemp("heading") / "run"
    _simulate(
        out,
        "--vehicle",
        "maxxum",
        "--set",
        "gnss.heading.baseline_m=1.2",
        "--set",
        "gnss.heading.antenna2_flu_m=[0, 1.2, 1.7]",
    )
    return out


def test_heading_topic_is_an_orientation_only_imu(lateral):
    bag = lateral / "ros2.mcap"
    with open(bag, "rb") as f:
        summary = make_reader(f).get_summary()
    channels = {c.topic: c for c in summary.channels.values()}
    assert summary.schemas[channels["/gnss/heading"].schema_id].name == "sensor_msgs/msg/Imu"
    msgs = _messages(bag, "/gnss/heading")
    assert msgs
    for _, m in msgs:
        assert m.header.frame_id == "gnss_heading_link"
        assert m.orientation.x == 0 and m.orientation.y == 0
        cov = np.asarray(m.orientation_covariance).reshape(3, 3)
        assert cov[0, 0] == cov[1, 1] == UNOBSERVED_VARIANCE
        assert 0 < cov[2, 2] < math.radians(1.0) ** 2
        assert m.angular_velocity_covariance[0] == -1
        assert m.linear_acceleration_covariance[0] == -1


def test_yaw_through_the_frame_is_the_vehicles_true_yaw(lateral):
    """yaw(base_link) = yaw(message) - the frame's azimuth (+90 deg: the baseline points left);
    the truth's yaw is in the site's grid, the message's from true north: minus the grid north's
    true azimuth alpha_n."""
    msgs = _messages(lateral / "ros2.mcap", "/gnss/heading")
    tf = _messages(lateral / "ros2.mcap", "/tf_static")[0][1]
    frame = next(t for t in tf.transforms if t.child_frame_id == "gnss_heading_link")
    q_f = frame.transform.rotation
    assert math.degrees(2 * math.atan2(q_f.z, q_f.w)) == pytest.approx(90.0)
    truth = read_truth(lateral / "truth.parquet")
    sc = load_scenario("acre-loop")
    cfg = load_config(vehicle="maxxum")
    georef = sc.site.make_georeference(cfg["gnss"]["datum"]["start_utc"], cfg["gnss"]["datum"])
    alpha = math.radians(grid_north_azimuth_deg(georef))
    t0 = _run_start_ns(lateral)
    yaw_err, sig = [], []
    for _, m in msgs:
        stamp = m.header.stamp.sec * 10**9 + m.header.stamp.nanosec
        step = round((stamp - t0) * 1e-9 * truth.rate_hz)
        yaw_truth = euler_zyx_of_quat(truth.q_xyzw[step])[0] - alpha
        yaw_msg = 2 * math.atan2(m.orientation.z, m.orientation.w)
        yaw_base = yaw_msg - math.radians(90.0)
        yaw_err.append((yaw_base - yaw_truth + math.pi) % (2 * math.pi) - math.pi)
        sig.append(math.sqrt(m.orientation_covariance[8]))
    zs = np.asarray(yaw_err) / np.asarray(sig)
    assert np.abs(zs).max() < 4.5
    assert abs(math.sqrt(np.mean(zs * zs)) - 1.0) < 4.0 / math.sqrt(2 * zs.size)


def _run_start_ns(run: Path) -> int:
    return utc_ns(json.loads((run / "episode.json").read_text())["start_utc"])


def test_no_heading_topic_by_default(tmp_path):
    out = tmp_path / "run"
    _simulate(out, "--vehicle", "maxxum")
    with open(out / "ros2.mcap", "rb") as f:
        topics = {c.topic for c in make_reader(f).get_summary().channels.values()}
    assert "/gnss/heading" not in topics and topics
