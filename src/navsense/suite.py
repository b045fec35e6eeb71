"""The sensor suite: one registry of navsense's sensors, :data:`SENSORS` (issue 28).

Everything that lists sensors derives from it: the models a run builds and their order
(:func:`navsense.simulate.build_models`), the split of the models between two processes (their
cost), the configuration's sensor sections (:data:`navsense.config.keys.SCHEMA`), the
``--no-gnss`` ... ``--mag`` ... switches (:mod:`navsense.commands.config`), the layouts
(:func:`navsense.output.layouts.layout_for`), the extras a stream delivers
(:mod:`navsense.stream`), the live server's channels (:mod:`navsense.live.server`), the ROS 2
bag's sensors, frames and per-sensor topics (:mod:`navsense.output.ros2`). No other module
holds a list of sensor names.

A record names its model, layout, configuration and topic builders as ``"module:attr"`` strings,
resolved when used (:func:`resolve`, once per run, never per step): importing this module
imports nothing of navsense, and the layers stay apart (a model never imports its layout; the
bag export builds no model).

Adding a sensor is its model (``navsense.sensors``, with a builder ``build_model(context)``),
its layout (``navsense.output.layouts``), its configuration block (a Section of its keys with
their defaults in navsense.config.keys, its typed configuration) and one :class:`Sensor` here
(plus a topic builder, :class:`navsense.output.ros2.sensor_topics.SensorTopic`, when it has a
ROS 2 topic): five files, six with a topic (nine to fourteen before issue 28).

A plugin or a test may add a record to :data:`SENSORS` before a run and remove it after
(tests/test_suite_toy.py runs a toy sensor so): the schema knows its section at once, but the
default layers are computed once per process (navsense.config.defaults), so such a sensor gives
its whole block in the configuration. Two things stay code of their own: a file beside the rows
(``extra``: gnss.nmea, ins.frames) is written by navsense.simulate's writer for it, and the
Maxxum's receiver topics and the INS topics are navsense.output.ros2.plan's rules.

The order of :data:`SENSORS` is the output order: the models' order in a run, episode.json's
entries, the configuration's sections, the summary line.
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass
from typing import Any

__all__ = ["SENSORS", "Frame", "ModelContext", "Sensor", "enabled", "resolve"]


@functools.cache
def resolve(target: str) -> Any:
    """The object a ``"module:attr"`` string names (``attr`` may be dotted: ``Class.NAME``)."""
    module, _, attr = target.partition(":")
    obj: Any = importlib.import_module(module)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


@dataclass(frozen=True)
class Frame:
    """A sensor frame of the ROS 2 bag's ``/tf_static`` (navsense.output.ros2.mounts).

    ``name`` the frame id; ``arm`` the key of the sensor's configuration section that holds the
    frame's point (``position_flu_m`` in ``mount_frame`` axes; episode.json's
    ``<sensor>.point_chassis_flu_m``, when the model records it, wins), None: the chassis origin;
    ``axes``: ``"module:attr"`` of a function (the run's configuration) -> (x, y, z, w) of the
    frame's axes in body FLU (None: FLU); ``listed``: a frame of the run's sensors, sent whenever
    the sensor is on (False: only when a topic names it).
    """

    name: str
    arm: str | None = "position_flu_m"
    axes: str | None = None
    listed: bool = True


@dataclass(frozen=True)
class ModelContext:
    """What a model is built with: ``cfg`` the effective configuration (validated), ``vehicle`` a
    navsense.vehicles.VehicleProfile, ``site`` a navsense.site.Site or None, ``georef`` its
    Georeference at the run's start (None without a site or georeference), ``agent`` the
    agent index."""

    cfg: Any
    vehicle: Any
    site: Any
    georef: Any
    agent: int = 0


@dataclass(frozen=True)
class Sensor:
    """One sensor of the suite.

    ``name``: its configuration section, the stem of its files (``<name>.jsonl``) and the
    model's ``name``. ``label``: how messages and help name it ("the magnetometer").
    ``config``: ``"module:Class"`` of its typed configuration (``Class.from_validated(cfg)``,
    navsense.config.typed). ``section``: ``"module:attr"`` of its schema Section
    (navsense.config.keys: each key with its range and default). ``model``:
    ``"module:function"``, the builder ``build(context: ModelContext) -> model`` of the enabled
    sensor (navsense.sensors.base.SensorModel). ``layout``: ``"module:Class"``, built with the
    model's ``output_info()`` (navsense.output.layouts). ``cost_parquet``, ``cost_jsonl``: the
    model's CPU seconds per hour of driving on one core in each output format (measured
    2026-11-29; JSON Lines adds the encoding), which split the models between two processes
    (navsense.simulate). ``switch``: its command-line switch: ``--no-NAME`` (on by default:
    a flag that turns it off) or ``--NAME`` (off by default: ``--NAME`` / ``--no-NAME``).
    ``extra``: the file its layout's ``extra()`` fills beside the rows (``gnss.nmea``), None
    when it has none. ``frames``: its frames in the ROS 2 bag. ``topics``: ``"module:attr"``
    of its ROS 2 topics (navsense.output.ros2.sensor_topics.SensorTopic), in the bag's order.
    """

    name: str
    label: str
    config: str
    section: str
    model: str
    layout: str
    cost_parquet: float
    cost_jsonl: float
    switch: str
    extra: str | None = None
    frames: tuple[Frame, ...] = ()
    topics: tuple[str, ...] = ()

    def cost(self, output_format: str) -> float:
        """CPU seconds per hour of driving in ``output_format`` ("parquet" or "jsonl")."""
        return self.cost_parquet if output_format == "parquet" else self.cost_jsonl


_SCHEMA = "navsense.config.keys"
_TOPICS = "navsense.output.ros2.sensor_topics"

#: navsense's sensors, by name, in output order.
SENSORS: dict[str, Sensor] = {
    s.name: s
    for s in (
        Sensor(
            name="gnss",
            label="the GNSS receiver",
            config="navsense.config.typed.gnss:GnssConfig",
            section=f"{_SCHEMA}:GNSS_SECTION",
            model="navsense.sensors.gnss.receiver:build_model",
            layout="navsense.output.layouts.gnss:GnssLayout",
            cost_parquet=0.9,
            cost_jsonl=0.95,
            switch="--no-gnss",
            extra="gnss.nmea",
            frames=(
                Frame("gnss_link", "antenna_flu_m"),
                # the second antenna's baseline (gnss.heading): named by /gnss/heading only
                Frame(
                    "gnss_heading_link",
                    "antenna_flu_m",
                    axes="navsense.output.ros2.heading_topic:gnss_heading_xyzw",
                    listed=False,
                ),
            ),
            topics=(f"{_TOPICS}:GNSS_FIX", "navsense.output.ros2.heading_topic:GNSS_HEADING"),
        ),
        Sensor(
            name="imu",
            label="the IMU",
            config="navsense.config.typed.imu:ImuConfig",
            section=f"{_SCHEMA}:IMU_SECTION",
            model="navsense.sensors.imus:build_model",
            layout="navsense.output.layouts.imu:ImuLayout",
            cost_parquet=0.27,
            cost_jsonl=0.65,
            switch="--no-imu",
            frames=(Frame("imu_link", axes="navsense.output.ros2.mounts:imu_platform_xyzw"),),
            topics=(f"{_TOPICS}:RAW_IMU",),
        ),
        Sensor(
            name="ins",
            label="the INS",
            config="navsense.config.typed.ins:InsConfig",
            section=f"{_SCHEMA}:INS_SECTION",
            model="navsense.sensors.ins:build_model",
            layout="navsense.output.layouts.ins:InsLayout",
            cost_parquet=0.8,
            cost_jsonl=2.1,
            switch="--no-ins",
            extra="ins.frames",
            frames=(
                Frame(
                    "oxts_link", axes="navsense.output.ros2.mounts:oxts_mount_xyzw", listed=False
                ),
                Frame("navsat_link", listed=False),
            ),
        ),
        Sensor(
            name="mag",
            label="the magnetometer",
            config="navsense.config.typed.mag:MagConfig",
            section=f"{_SCHEMA}:MAG_SECTION",
            model="navsense.sensors.magnetometer:build_model",
            layout="navsense.output.layouts.mag:MagLayout",
            cost_parquet=0.3,
            cost_jsonl=0.6,
            switch="--mag",
            frames=(Frame("mag_link", None),),
            topics=(f"{_TOPICS}:MAG",),
        ),
        Sensor(
            name="baro",
            label="the barometer",
            config="navsense.config.typed.baro:BaroConfig",
            section=f"{_SCHEMA}:BARO_SECTION",
            model="navsense.sensors.barometer:build_model",
            layout="navsense.output.layouts.baro:BaroLayout",
            cost_parquet=0.1,
            cost_jsonl=0.3,
            switch="--baro",
            frames=(Frame("baro_link"),),
            topics=(f"{_TOPICS}:BARO",),
        ),
        Sensor(
            name="odom",
            label="the wheel odometer",
            config="navsense.config.typed.odom:OdomConfig",
            section=f"{_SCHEMA}:ODOM_SECTION",
            model="navsense.sensors.odometer:build_model",
            layout="navsense.output.layouts.odom:OdomLayout",
            cost_parquet=0.1,
            cost_jsonl=0.3,
            switch="--odom",
            topics=(f"{_TOPICS}:WHEEL",),
        ),
    )
}


def enabled(cfg: Any) -> list[str]:
    """The names of the sensors that the configuration ``cfg`` (a mapping) turns on, in order."""
    return [name for name in SENSORS if (cfg.get(name) or {}).get("enabled")]
