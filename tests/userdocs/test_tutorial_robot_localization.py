"""docs/tutorials/robot-localization.md: its bash blocks run in a fresh folder, then the bag is
read back with rosbags and checked for what the page's robot_localization configuration needs
(robot_localization itself cannot be installed here): every topic the EKF, navsat_transform and
the page's ``ros2 bag play`` read, of the message type read there, in a frame of /tf_static, with
covariances the EKF can weigh (positive and finite where measured, 1e6 where not), stamps no
later than the message's log time. The bag_check.py output quoted on the page is what it prints.
"""

from __future__ import annotations

import math
import re
import shlex

import pytest
import yaml

from userdocs.tutorial_pages import REPO, fenced, page_text, run_bash_blocks

pytest.importorskip("rosbags")

from output.ros2_helpers import read_bag, stamp_ns

PAGE = "robot-localization.md"
TYPES = {
    "/oxts/imu": "sensor_msgs/msg/Imu",
    "/oxts/fix": "sensor_msgs/msg/NavSatFix",
    "/wheel/twist": "geometry_msgs/msg/TwistWithCovarianceStamped",
    "/tf_static": "tf2_msgs/msg/TFMessage",
}


@pytest.fixture(scope="module")
def bag(tmp_path_factory):
    work, printed = run_bash_blocks(PAGE, tmp_path_factory.mktemp("rl"))
    return read_bag(work / "runs/loop/ros2.mcap"), printed


def _sh_commands() -> list[list[str]]:
    lines = "\n".join(fenced(page_text(PAGE), "sh")).splitlines()
    return [shlex.split(line) for line in lines if line.strip() and not line.startswith("#")]


def test_the_quoted_bag_check_output_is_what_it_prints(bag):
    _, printed = bag
    quoted = fenced(page_text(PAGE), "text")[0].splitlines()
    got = printed.splitlines()
    start = got.index(quoted[0])
    assert got[start : start + len(quoted)] == quoted


def test_the_pages_configuration_is_the_examples_and_reads_topics_of_the_bag(bag):
    msgs, _ = bag
    text = page_text(PAGE)
    for name in ("ekf.yaml", "navsat_transform.yaml"):
        assert f'--8<-- "examples/ros2/{name}"' in text
    ekf = yaml.safe_load((REPO / "examples/ros2/ekf.yaml").read_text())["ekf_filter_node"]
    params = ekf["ros__parameters"]
    assert msgs[params["imu0"]]["type"] == TYPES["/oxts/imu"]
    assert msgs[params["twist0"]]["type"] == TYPES["/wheel/twist"]
    (play,) = [c for c in _sh_commands() if c[:3] == ["ros2", "bag", "play"]]
    played = play[play.index("--topics") + 1 :]
    assert set(played) == set(TYPES)
    for topic in played:
        assert msgs[topic]["type"] == TYPES[topic]
    (navsat,) = [c for c in _sh_commands() if "navsat_transform_node" in c]
    remaps = dict(navsat[i + 1].split(":=", 1) for i, w in enumerate(navsat) if w == "-r")
    assert msgs[remaps["imu"]]["type"] == TYPES["/oxts/imu"]
    assert msgs[remaps["gps/fix"]]["type"] == TYPES["/oxts/fix"]


def test_every_frame_is_in_the_static_tree_of_base_footprint(bag):
    msgs, _ = bag
    (static,) = msgs["/tf_static"]["msgs"]
    children = {t.child_frame_id for t in static.transforms}
    assert {t.header.frame_id for t in static.transforms} == {"base_footprint"}
    for topic in ("/oxts/imu", "/oxts/fix", "/wheel/twist"):
        frames = {m.header.frame_id for m in msgs[topic]["msgs"]}
        assert frames <= children | {"base_footprint"}, (topic, frames)


def _diag(cov, n):
    return [cov[i * (n + 1)] for i in range(n)]


def test_covariances_are_positive_where_measured_and_huge_where_not(bag):
    msgs, _ = bag
    for m in msgs["/oxts/imu"]["msgs"][::97]:
        for cov in (
            m.orientation_covariance,
            m.angular_velocity_covariance,
            m.linear_acceleration_covariance,
        ):
            assert all(0 < v < 1 and math.isfinite(v) for v in _diag(cov, 3))
    for m in msgs["/oxts/fix"]["msgs"][::97]:
        assert m.position_covariance_type == 2  # COVARIANCE_TYPE_DIAGONAL_KNOWN
        assert all(0 < v < 1 for v in _diag(m.position_covariance, 3))
    for m in msgs["/wheel/twist"]["msgs"][::97]:
        diag = _diag(m.twist.covariance, 6)
        assert 0 < diag[0] < 1 and diag[1:] == [1e6] * 5


def test_stamps_are_sample_times_no_later_than_the_log_times(bag):
    msgs, _ = bag
    for topic in ("/oxts/imu", "/oxts/fix", "/wheel/twist"):
        entry = msgs[topic]
        stamps = [stamp_ns(m.header) for m in entry["msgs"]]
        assert stamps == sorted(stamps)
        assert all(s <= log for s, log in zip(stamps, entry["log_ns"], strict=True))
        assert any(s < log for s, log in zip(stamps, entry["log_ns"], strict=True))


def test_the_score_command_names_the_ekfs_output(bag):
    (score,) = [c for c in _sh_commands() if c[:2] == ["navsense", "score"]]
    (record,) = [c for c in _sh_commands() if c[:3] == ["ros2", "bag", "record"]]
    assert score[score.index("--topic") + 1] == record[-1] == "/odometry/filtered"
    assert re.fullmatch(r"runs/loop/rl/rl_0\.mcap", score[3])
