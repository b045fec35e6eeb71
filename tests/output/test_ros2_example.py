"""examples/ros2: the robot_localization configuration consumes the bag's topics and frames as
they are. The YAML files are parsed (PyYAML) and the commands read from the example's README;
every topic they name must be in the bag of the run the README makes (a Polaris run with the
wheel odometer) with the message type robot_localization reads there, and every frame in the
bag's /tf_static tree."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import yaml

from navsense.runs.export_mcap import write_mcap
from output.ros2_helpers import read_bag, short_run, topics

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "ros2"

# robot_localization's inputs: the EKF's <kind><n> parameters and navsat_transform's topics
EKF_INPUT_TYPES = {
    "imu": "sensor_msgs/msg/Imu",
    "twist": "geometry_msgs/msg/TwistWithCovarianceStamped",
    "odom": "nav_msgs/msg/Odometry",
    "pose": "geometry_msgs/msg/PoseWithCovarianceStamped",
}
NAVSAT_INPUT_TYPES = {"imu": "sensor_msgs/msg/Imu", "gps/fix": "sensor_msgs/msg/NavSatFix"}
NAVSAT_OUTPUTS = {"odometry/gps", "gps/filtered"}  # topics navsat_transform publishes
EKF_OUTPUT = "odometry/filtered"


def _yaml(name: str) -> dict:
    return yaml.safe_load((EXAMPLE / name).read_text())


def _params(name: str) -> dict:
    (node,) = _yaml(name).values()
    return node["ros__parameters"]


def _commands() -> list[list[str]]:
    text = (EXAMPLE / "README.md").read_text()
    (block,) = re.findall(r"```sh\n(.*?)```", text, flags=re.S)
    return [shlex.split(line) for line in block.splitlines() if line and not line.startswith("#")]


def _command(*words: str) -> list[str]:
    (cmd,) = [c for c in _commands() if all(w in c for w in words)]
    return cmd


def _remaps(cmd: list[str]) -> dict[str, str]:
    return dict(cmd[i + 1].split(":=", 1) for i, w in enumerate(cmd) if w == "-r")


@pytest.fixture(scope="module")
def example_bag(tmp_path_factory) -> dict:
    simulate = _command("navsense", "simulate")
    assert "--mcap" in simulate and "--odom" in simulate
    assert "--vehicle" not in simulate  # the Polaris
    run = short_run(tmp_path_factory, "example", "polaris", 30.0, {"odom.enabled": True})
    return read_bag(write_mcap(run))


def _static_frames(bag: dict) -> tuple[set[str], set[str]]:
    (msg,) = bag["/tf_static"]["msgs"]
    return {t.header.frame_id for t in msg.transforms}, {t.child_frame_id for t in msg.transforms}


def test_the_ekf_reads_bag_topics_of_the_right_type_in_known_frames(example_bag):
    ekf = _params("ekf.yaml")
    parents, children = _static_frames(example_bag)
    assert parents == {"base_footprint"} and ekf["base_link_frame"] == "base_footprint"
    own = {ekf["map_frame"], ekf["odom_frame"]}
    assert ekf["world_frame"] in own and not own & (parents | children)  # the EKF's own frames
    navsat_out = {"/" + t for t in NAVSAT_OUTPUTS}
    inputs = {k: v for k, v in ekf.items() if re.fullmatch(r"(imu|twist|odom|pose)\d+", k)}
    assert set(inputs) == {"imu0", "twist0", "odom0"}
    for key, topic in inputs.items():
        kind = key.rstrip("0123456789")
        assert isinstance(ekf[f"{key}_config"], list) and len(ekf[f"{key}_config"]) == 15
        if topic in navsat_out:  # produced by navsat_transform from the bag's fix
            assert kind == "odom"
            continue
        assert topic in topics(example_bag), topic
        assert example_bag[topic]["type"] == EKF_INPUT_TYPES[kind], topic
        frames = {m.header.frame_id for m in example_bag[topic]["msgs"]}
        assert frames <= children | parents, (topic, frames)


def test_navsat_transform_reads_bag_topics_and_feeds_the_ekf(example_bag):
    cmd = _command("navsat_transform_node")
    remaps = _remaps(cmd)
    assert cmd[cmd.index("--params-file") + 1] == "examples/ros2/navsat_transform.yaml"
    assert remaps["__node"] == next(iter(_yaml("navsat_transform.yaml")))
    _, children = _static_frames(example_bag)
    for name, msg_type in NAVSAT_INPUT_TYPES.items():
        topic = remaps[name]
        assert example_bag[topic]["type"] == msg_type, topic
        assert {m.header.frame_id for m in example_bag[topic]["msgs"]} <= children, topic
    assert remaps["odometry/gps"] == _params("ekf.yaml")["odom0"]
    assert remaps[EKF_OUTPUT] == "/" + EKF_OUTPUT
    params = _params("navsat_transform.yaml")
    assert params["use_sim_time"] is True and params["yaw_offset"] == 0.0
    ekf_cmd = _command("ekf_node")
    assert ekf_cmd[ekf_cmd.index("--params-file") + 1] == "examples/ros2/ekf.yaml"
    assert _remaps(ekf_cmd)["__node"] == next(iter(_yaml("ekf.yaml")))
    assert _params("ekf.yaml")["use_sim_time"] is True


def test_the_bag_is_played_with_the_inputs_and_without_its_tf(example_bag):
    play = _command("ros2", "bag", "play")
    assert "--clock" in play
    played = set(play[play.index("--topics") + 1 :])
    needed = {_params("ekf.yaml")[k] for k in ("imu0", "twist0")}
    navsat = _remaps(_command("navsat_transform_node"))
    needed |= {v for k, v in navsat.items() if k in NAVSAT_INPUT_TYPES}
    assert played == needed | {"/tf_static"}
    assert played <= topics(example_bag)
    assert "/tf" in topics(example_bag) and "/tf" not in played  # the EKF's odom -> base_footprint
