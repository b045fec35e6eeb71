"""A toy sensor added from this test alone (issue 28 item 1): its model, layout, configuration
block and ROS 2 topic are defined here, one record goes into navsense.suite.SENSORS, and the run
has its rows in JSON Lines and Parquet, the schema checks its block, the live server serves its
channel and topic, and the exported ROS 2 bag has its topic and frame (read back with rosbags).

The toy reads the speed of the centre of mass |v| (m/s) at ``toy.hz``, published as a
sensor_msgs/FluidPressure (a message with one value and its variance) on /toy/speed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import numpy as np
import orjson
import pyarrow.parquet as pq
import pytest

from navsense.clock import Due
from navsense.config import load_config
from navsense.config.schema import BOOLEAN, RATE_HZ, VECTOR3_M, Section, validate
from navsense.errors import ConfigError
from navsense.output.layouts.rounded import RoundedKeys
from navsense.output.ros2.cdr import encode_fluid_pressure, fluid_pressure_layout
from navsense.output.ros2.sensor_topics import SensorTopic
from navsense.output.ros2.topics import TopicMessages, TopicSpec, seconds_to_ns
from navsense.runs.reader import FLOAT, RunReader
from navsense.scenarios import load_scenario
from navsense.simulate import simulate
from navsense.suite import SENSORS, Frame, Sensor

# ----------------------------------------------------------------- the toy sensor, whole
TOY_SECTION = Section(
    {
        "enabled": BOOLEAN.with_default(False),
        "hz": RATE_HZ.with_default(10),
        "position_flu_m": VECTOR3_M.with_default([0.5, -0.25, 1.25]),
    }
)
TOY_BLOCK = {"enabled": True, "hz": 10.0, "position_flu_m": [0.5, -0.25, 1.25]}
SPEED_DECIMALS = 4


@dataclasses.dataclass(frozen=True)
class ToyConfig:
    hz: float

    @classmethod
    def from_validated(cls, cfg: Mapping) -> ToyConfig:
        return cls(hz=float(cfg["toy"]["hz"]))


class ToyModel:
    name = "toy"

    def __init__(self, config: ToyConfig) -> None:
        self._due = Due(config.hz, start_s=None)

    def process(self, truth) -> dict:
        rows = self._due.sample_indices(truth.t_s)
        return {
            "sample_time_s": truth.t_s[rows],
            "speed_mps": np.sqrt(np.sum(truth.v_mps[rows] ** 2, axis=1)),
        }

    def output_info(self) -> dict:
        return {}

    def episode_info(self) -> dict:
        return {"toy": {"note": "a toy"}}


def build_toy(context) -> ToyModel:
    return ToyModel(ToyConfig.from_validated(context.cfg))


class ToyLayout(RoundedKeys):
    keys = (("speed_mps", SPEED_DECIMALS),)


def toy_topic(spec: TopicSpec, columns, episode, start_ns: int) -> TopicMessages:
    stamp = start_ns + seconds_to_ns(columns["sample_time_s"])
    log = start_ns + seconds_to_ns(columns["delivery_time_s"])
    speed = np.asarray(columns["speed_mps"], dtype=np.float64)
    lay = fluid_pressure_layout(spec.frame_id)
    return TopicMessages(
        spec, log, lambda a, b: encode_fluid_pressure(lay, stamp[a:b], speed[a:b], 0.0)
    )


TOY_TOPIC = SensorTopic(
    TopicSpec("/toy/speed", "sensor_msgs/msg/FluidPressure", "toy_link"),
    {"sample_time_s": FLOAT, "delivery_time_s": FLOAT, "speed_mps": FLOAT},
    toy_topic,
)
TOY = Sensor(
    name="toy",
    label="the toy speedometer",
    config=f"{__name__}:ToyConfig",
    section=f"{__name__}:TOY_SECTION",
    model=f"{__name__}:build_toy",
    layout=f"{__name__}:ToyLayout",
    cost_parquet=0.1,
    cost_jsonl=0.1,
    switch="--toy",
    frames=(Frame("toy_link"),),
    topics=(f"{__name__}:TOY_TOPIC",),
)
# ---------------------------------------------------------------------------------------

FIRST, STEPS = 3000, 1200  # 25 to 35 s of acre-loop


@pytest.fixture
def toy():
    """The effective configuration with the toy's block, while the toy is in the suite."""
    cfg = load_config(vehicle="polaris")  # the embedded defaults know no toy
    SENSORS["toy"] = TOY
    try:
        yield {**cfg, "toy": dict(TOY_BLOCK)}
    finally:
        del SENSORS["toy"]
    assert "toy" not in SENSORS


@pytest.fixture(scope="module")
def scenario():
    return load_scenario("acre-loop")


def _truth(scenario):
    return scenario.truth.slice(FIRST, FIRST + STEPS)


def _expected_speed(scenario) -> tuple[np.ndarray, np.ndarray]:
    truth = _truth(scenario)
    rows = Due(TOY_BLOCK["hz"], start_s=None).sample_indices(truth.t_s)
    speed = np.round(np.sqrt(np.sum(truth.v_mps[rows] ** 2, axis=1)), SPEED_DECIMALS)
    return truth.t_s[rows], speed


def test_the_schema_checks_the_toys_block(toy):
    validate(toy, "toy config")
    with pytest.raises(ConfigError, match=r"toy config: toy.hz = 5000 is out of range 1..2000"):
        validate({**toy, "toy": {**TOY_BLOCK, "hz": 5000}}, "toy config")
    with pytest.raises(ConfigError, match=r"toy config: toy is missing"):
        validate({k: v for k, v in toy.items() if k != "toy"}, "toy config")


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_a_run_writes_the_toys_rows(toy, scenario, tmp_path, fmt):
    out = tmp_path / "run"
    summary = simulate(
        _truth(scenario), toy, scenario.vehicle, scenario.site, out, output_format=fmt
    )
    t, speed = _expected_speed(scenario)
    assert list(summary.rows) == ["gnss", "imu", "ins", "toy"]  # the suite's order
    assert summary.rows["toy"] == len(t) == 100
    if fmt == "jsonl":
        rows = [orjson.loads(line) for line in (out / "toy.jsonl").read_bytes().splitlines()]
        assert list(rows[0]) == [
            "sample_time_s",
            "available_time_s",
            "delivery_time_s",
            "speed_mps",
        ]
        got_t = np.array([r["sample_time_s"] for r in rows])
        got = np.array([r["speed_mps"] for r in rows])
    else:
        table = pq.read_table(out / "toy.parquet")
        assert table.column_names == [
            "sample_time_s",
            "available_time_s",
            "delivery_time_s",
            "speed_mps",
        ]
        got_t = table.column("sample_time_s").to_numpy()
        got = table.column("speed_mps").to_numpy()
    np.testing.assert_array_equal(got_t, np.round(t, 9))
    np.testing.assert_array_equal(got, speed)
    episode = orjson.loads((out / "episode.json").read_bytes())
    assert episode["toy"] == {"note": "a toy"} and episode["config"]["toy"] == TOY_BLOCK
    run = RunReader(out)  # episode.json's config, toy block included, passes the schema
    np.testing.assert_array_equal(run.columns("toy", {"speed_mps": FLOAT})["speed_mps"], speed)


def test_the_bag_has_the_toys_topic_and_frame(toy, scenario, tmp_path):
    from navsense.output.ros2.topics import utc_ns
    from navsense.runs.export_mcap import write_mcap
    from navsense.vehicles import lever_arm_from_chassis
    from output.ros2_helpers import read_bag, stamp_ns, vec

    out = tmp_path / "run"
    simulate(_truth(scenario), toy, scenario.vehicle, scenario.site, out)
    bag = read_bag(write_mcap(out))
    t, speed = _expected_speed(scenario)
    got = bag["/toy/speed"]
    assert got["type"] == "sensor_msgs/msg/FluidPressure" and got["count"] == len(t)
    assert [m.header.frame_id for m in got["msgs"]] == ["toy_link"] * len(t)
    np.testing.assert_array_equal([m.fluid_pressure for m in got["msgs"]], speed)
    start = utc_ns(toy["gnss"]["datum"]["start_utc"])
    assert [stamp_ns(m.header) for m in got["msgs"]] == (start + seconds_to_ns(t)).tolist()
    # /tf_static: toy_link at the toy's lever arm from base_footprint
    (static,) = bag["/tf_static"]["msgs"]
    frames = {tf.child_frame_id: tf for tf in static.transforms}
    arm = lever_arm_from_chassis(TOY_BLOCK["position_flu_m"], toy["mount_frame"], scenario.vehicle)
    footprint = np.asarray(scenario.vehicle.footprint_in_chassis_m)
    np.testing.assert_allclose(vec(frames["toy_link"].transform.translation), arm - footprint)


def test_live_serves_the_toys_channel_and_topic(toy, scenario, tmp_path):
    pytest.importorskip("foxglove")
    from navsense.live.foxglove_out import ROWS_TOPIC_PREFIX
    from navsense.live.server import LiveServer

    truth = _truth(scenario)
    with LiveServer(
        toy, scenario.vehicle, scenario.site, foxglove_port=0, worker=False, linger_s=0.0
    ) as live:
        assert ROWS_TOPIC_PREFIX + "toy" in live.foxglove.topics
        assert "/toy/speed" in live.foxglove.topics
        rows, messages = [], []
        for k in range(len(truth)):
            got = live.step(truth.slice(k, k + 1))
            rows += got.get("toy", [])
            messages += [
                m for m in live._ros2.messages(got, lambda t: True) if m[2] == "/toy/speed"
            ]
    t, speed = _expected_speed(scenario)
    delivered = [r for r in rows]
    assert len(delivered) >= len(t) - 1  # the last may still be in flight at the last step
    np.testing.assert_array_equal([r["speed_mps"] for r in delivered], speed[: len(delivered)])
    assert len(messages) == len(delivered)  # one /toy/speed message a row delivered
