"""Which topics a run's bag has, and their messages from the run's data.

One rule for the bag export (:mod:`navsense.runs.export_mcap`, from a run directory) and for
live serving (:mod:`navsense.live.server`, from the rows as they are delivered): a
:class:`BagPlan` lists the topics (:meth:`BagPlan.specs`, in the bag's order) and builds their
messages (:meth:`BagPlan.messages`) from a :class:`BagData` (the rows' columns, the INS frames,
the truth at physics steps).

Topics, in this order (ties in log time are written in it):

1. ``/tf_static`` (latched): one message at the run's first physics step, the transforms from
   base_footprint to every frame a topic names and every frame of the run's sensors
   (:mod:`navsense.output.ros2.mounts`);
2. with the INS on, the vehicle's INS topics (:mod:`navsense.output.ros2.topics`); with the INS
   off, for the Maxxum, its topics from its receiver and IMU: ``/odom`` and ``/gnss/fix`` (the
   receiver on, with a georeference), ``/imu/data`` (the IMU on), ``/ground_truth/odom`` (the
   receiver on, with a georeference and the run's truth);
3. the sensors' own topics, in the order of navsense.suite.SENSORS (each record's ``topics``,
   :class:`navsense.output.ros2.sensor_topics.SensorTopic`): ``/gnss/receiver/fix``
   (``gnss_fix``), ``/gnss/heading`` (the receiver's second antenna, gnss.heading on:
   :mod:`navsense.output.ros2.heading_topic`), ``/imu/raw`` (``raw_imu``), then whenever the run
   has them ``/imu/mag``, ``/baro/pressure``, ``/wheel/twist``: the magnetometer, barometer and
   wheel odometer.

The truth (ground truth twist, the Maxxum's receiver-side ground truth) is the run's truth at
the epochs' physics steps k = round(sample_time_s physics_hz).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import numpy as np

from navsense.errors import FormatError
from navsense.output.ros2.cdr import encode_transforms, transforms_layout
from navsense.output.ros2.mounts import (
    BASE_FRAME,
    GNSS_LINK,
    WORLD_FRAME,
    footprint_point,
    sensor_mounts,
    sensor_point,
    static_transforms,
)
from navsense.output.ros2.sensor_topics import (
    GNSS_FIX_COLUMNS,
    RAW_IMU_COLUMNS,
    RECEIVER_ODOM_COLUMNS,
    SensorTopic,
    gnss_fix_topic,
    raw_imu_topic,
    receiver_odom_topic,
    truth_odom_topic,
)
from navsense.output.ros2.topics import (
    MAXXUM_RECEIVER_TOPICS,
    RECEIVER_FIX_FRAME_BESIDE_INS,
    TF_STATIC_TOPIC,
    TopicMessages,
    TopicSpec,
    ins_topic_messages,
    topics_for,
)
from navsense.runs.episode import Episode
from navsense.suite import SENSORS, enabled, resolve
from navsense.truth.points import point_kinematics

__all__ = ["BagData", "BagPlan", "sensors_of_config"]


class BagData(Protocol):
    """A run's data for :meth:`BagPlan.messages`."""

    def has(self, sensor: str) -> bool:
        """True when there are rows of ``sensor`` to encode."""

    def columns(self, sensor: str, spec: Mapping[str, Any]) -> dict[str, np.ndarray]:
        """The columns ``spec`` of ``sensor``'s rows (navsense.runs.reader kinds)."""

    def ins_epochs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The INS frames (m, 40) and their rows' sample and delivery times (m,) each."""

    def truth_rows(self, steps: np.ndarray) -> dict | None:
        """The truth at the sorted, unique physics ``steps`` (navsense.runs.stats.truth_at_steps's
        rows), or None without a truth."""


def _steps(t_s: np.ndarray, rate_hz: float) -> np.ndarray:
    return np.rint(np.asarray(t_s, dtype=np.float64) * rate_hz).astype(np.int64)


def _truth_at(data: BagData, t_s: np.ndarray, rate_hz: float) -> dict | None:
    """The truth rows at the epochs' sample steps (one row an epoch), or None."""
    steps = _steps(t_s, rate_hz)
    wanted, index = np.unique(steps, return_inverse=True)
    rows = data.truth_rows(wanted)
    if rows is None:
        return None
    return {k: v[index] for k, v in rows.items()}


#: POSIX ns of the last start of a bag's run (the signed 64-bit stamps of navsense's ROS 2
#: messages end at 2**63 - 1 ns, 2262-04-11T23:47:16Z: a day kept for the rows' delivery delays;
#: a start of 1900 or 9999 ended in the mcap library's 'argument out of range' or an
#: OverflowError as an internal error, found by the fuzz helper)
LAST_BAG_START_NS = 2**63 - 1 - 86_400 * 10**9


@dataclass(frozen=True)
class BagPlan:
    """The topics of a run's bag (module docstring).

    ``episode``: the run's :class:`navsense.runs.Episode` (of a run about to be made:
    ``Episode.of_config``);
    ``start_ns`` start_utc in ns; ``rate_hz`` the physics rate; ``sensors`` the run's sensors
    (of navsense.suite.SENSORS); ``geodetic``: the GNSS rows have the geodetic output (a site with a
    georeference); ``georef``: the site's Georeference (needed for the Maxxum's topics without
    INS); ``truth``: the run's truth is known; ``gnss_fix``, ``raw_imu``: the optional topics.
    """

    episode: Episode
    start_ns: int
    rate_hz: float
    sensors: frozenset[str]
    geodetic: bool
    georef: Any = None
    truth: bool = True
    gnss_fix: bool = False
    raw_imu: bool = False
    _specs: list[TopicSpec] = field(default_factory=list, init=False, repr=False)
    # (sensor, its topic, the topic's spec in this bag): the sensors' own topics (module docstring)
    _topics: list[tuple[str, SensorTopic, TopicSpec]] = field(
        default_factory=list, init=False, repr=False
    )

    def __post_init__(self) -> None:
        self._specs.extend(self._make_specs())

    @classmethod
    def of_config(
        cls,
        cfg: Mapping,
        vehicle: str,
        site: Any,
        rate_hz: float,
        *,
        gnss_fix: bool = False,
        raw_imu: bool = False,
    ) -> BagPlan:
        """The plan of a run about to be made (live serving, ``simulate --mcap``'s checks):
        ``cfg`` the effective configuration, ``site`` a navsense.site.Site or None; the truth
        is known (it is being fed)."""
        episode = Episode.of_config(cfg, vehicle, rate_hz)
        sensors = sensors_of_config(cfg)
        geodetic = site is not None and site.georeference is not None
        georef = None
        if vehicle != "polaris" and "ins" not in sensors and geodetic:
            datum = cfg["gnss"]["datum"]
            georef = site.make_georeference(datum["start_utc"], datum)
        return cls(
            episode,
            episode.start_ns,
            rate_hz,
            sensors,
            geodetic,
            georef=georef,
            gnss_fix=gnss_fix,
            raw_imu=raw_imu,
        )

    @property
    def vehicle(self) -> str:
        return self.episode.vehicle

    @property
    def gnss_heading(self) -> bool:
        """The receiver has a second antenna (gnss.heading on): its ``/gnss/heading`` topic
        (navsense.output.ros2.heading_topic)."""
        return "gnss" in self.sensors and self.episode.gnss_config.heading.on

    @property
    def receiver_topics(self) -> bool:
        """The Maxxum's topics come from its receiver and IMU (its INS is off)."""
        return self.vehicle != "polaris" and "ins" not in self.sensors

    @property
    def _gnss_link_is_ins(self) -> bool:
        return self.vehicle != "polaris" and "ins" in self.sensors

    def _make_specs(self) -> list[TopicSpec]:
        specs = [TF_STATIC_TOPIC]
        on = self.sensors.__contains__
        if on("ins"):
            specs += topics_for(self.vehicle).values()
        elif self.receiver_topics:
            gnss = on("gnss") and self.geodetic and self.georef is not None
            rx = MAXXUM_RECEIVER_TOPICS
            specs += [rx["odom"], rx["fix"]] if gnss else []
            specs += [rx["imu"]] if on("imu") else []
            specs += [rx["truth"]] if gnss and self.truth else []
        for name, sensor in SENSORS.items():
            for target in sensor.topics:
                topic: SensorTopic = resolve(target)
                if not (getattr(self, topic.option) if topic.option else on(name)):
                    continue
                spec = topic.spec
                if spec.frame_id == GNSS_LINK and self._gnss_link_is_ins:
                    spec = replace(spec, frame_id=RECEIVER_FIX_FRAME_BESIDE_INS)
                specs.append(spec)
                self._topics.append((name, topic, spec))
        return specs

    def check(self, where: str) -> None:
        """FormatError (prefixed with ``where``) when an optional topic's sensor is missing or
        the bag would have nothing but ``/tf_static``."""
        if self.gnss_fix and "gnss" not in self.sensors:
            raise FormatError(f"{where}: no GNSS rows (GNSS receiver off); --gnss-fix needs it")
        if self.gnss_fix and not self.geodetic:
            raise FormatError(
                f"{where}: the GNSS rows have no latitude_deg (a site without a "
                "georeference); --gnss-fix needs the geodetic output"
            )
        if self.raw_imu and "imu" not in self.sensors:
            raise FormatError(f"{where}: no IMU rows (IMU off); --raw-imu needs it")
        self.check_clock(where)

    def check_clock(self, where: str) -> None:
        """FormatError (prefixed with ``where``) when the run's time does not fit the stamps of
        a bag or of the Foxglove server's messages (:data:`LAST_BAG_START_NS`)."""
        start = int(self.episode.start_ns)
        if not 0 <= start <= LAST_BAG_START_NS - int(self.episode.duration_s * 1e9):
            length = self.episode.duration_s
            raise FormatError(
                f"{where}: the run's time, gnss.datum.start_utc = {self.episode.start_utc}"
                + (f" for {length:g} s" if length else "")
                + ", is outside the bag's clock: a ROS 2 stamp and an MCAP log time are "
                "nanoseconds since 1970-01-01T00:00:00Z in 64 bits, so the run starts from then "
                "and ends a day before 2262-04-11T23:47:16Z"
            )
        if len(self._specs) == 1:
            switches = [  # the sensors off by default that have a topic of their own
                s.switch
                for s in SENSORS.values()
                if s.switch == f"--{s.name}" and any(resolve(t).option is None for t in s.topics)
            ]
            turn_on = ", ".join(switches[:-1]) + " or " + switches[-1] if len(switches) > 1 else ""
            turn_on = turn_on or "".join(switches) or "another sensor"
            raise FormatError(
                f"{where}: no topic to write (the INS is off and no other sensor of the bag "
                f"is on; add --gnss-fix or --raw-imu, or turn on {turn_on})"
            )

    def specs(self) -> list[TopicSpec]:
        """Every topic of the bag, in the bag's order."""
        return list(self._specs)

    def frames(self) -> list[str]:
        """The sensor frames of ``/tf_static``: every frame a topic names, then every frame of
        the run's sensors (base_footprint and utm left out)."""
        named: list[str] = []
        for spec in self._specs[1:]:
            named += [spec.frame_id, spec.child_frame_id]
        for name, sensor in SENSORS.items():
            if name in self.sensors:
                named += [self._frame(f.name) for f in sensor.frames if f.listed]
        out: list[str] = []
        for f in named:
            if f and f not in (BASE_FRAME, WORLD_FRAME) and f not in out:
                out.append(f)
        return out

    def _frame(self, frame: str) -> str:
        """The frame as this bag names it: the antenna is gnss_antenna_link in a Maxxum bag with
        the INS on (navsense.output.ros2.mounts)."""
        if frame == GNSS_LINK and self._gnss_link_is_ins:
            return RECEIVER_FIX_FRAME_BESIDE_INS
        return frame

    def static_topic(self, t_ns: int) -> TopicMessages:
        """``/tf_static``: one message, stamp and log time ``t_ns``."""
        mounts = sensor_mounts(self.episode, gnss_link_is_ins=self._gnss_link_is_ins)
        pairs, translation, rotation = static_transforms(self.frames(), mounts)
        lay = transforms_layout(pairs)
        stamp = np.array([t_ns], dtype=np.int64)
        return TopicMessages(
            TF_STATIC_TOPIC,
            stamp,
            lambda a, b: encode_transforms(lay, stamp, translation, rotation),
        )

    def messages(
        self, data: BagData, wanted: Callable[[str], bool] = lambda topic: True
    ) -> list[TopicMessages]:
        """The messages of every topic but ``/tf_static`` whose data ``data`` has and for which
        ``wanted(topic)`` is true, in the bag's topic order."""
        ep, start = self.episode, self.start_ns
        names = {s.topic for s in self._specs if wanted(s.topic)}
        out: list[TopicMessages] = []
        if "ins" in self.sensors and data.has("ins"):
            ins_specs = topics_for(self.vehicle)
            if names & {s.topic for s in ins_specs.values()}:
                frames, t_sample, t_delivery = data.ins_epochs()
                twist = None
                if ins_specs["truth"].topic in names:
                    rows = _truth_at(data, t_sample, self.rate_hz)
                    if rows is not None:
                        k = point_kinematics(rows, sensor_point(ep, "ins"))
                        twist = (k["velocity_body_mps"], k["angular_body_radps"])
                service = None
                if ep.ins_config.aiding == "gnss":
                    service = data.columns("ins", {"fix.service": "int"})["fix.service"]
                out += ins_topic_messages(frames, t_sample, t_delivery, ep, start, twist, service)
        rx = MAXXUM_RECEIVER_TOPICS
        read: dict[str, dict[str, np.ndarray]] = {}

        def columns(sensor: str) -> dict[str, np.ndarray]:
            """The columns of ``sensor`` that this bag's topics read, read once."""
            if sensor not in read:
                read[sensor] = data.columns(sensor, self._columns(sensor))
            return read[sensor]

        def gnss() -> dict[str, np.ndarray]:
            return columns("gnss")

        receiver = self.receiver_topics and data.has("gnss")
        if receiver and rx["odom"].topic in names:
            out.append(receiver_odom_topic(rx["odom"], gnss(), self.georef, start, ep))
        if receiver and rx["fix"].topic in names:
            out.append(gnss_fix_topic(rx["fix"], gnss(), ep, start))
        if self.receiver_topics and data.has("imu") and rx["imu"].topic in names:
            cols = data.columns("imu", RAW_IMU_COLUMNS)
            out.append(raw_imu_topic(rx["imu"], cols, ep, start))
        if receiver and rx["truth"].topic in names:
            cols = gnss()
            rows = _truth_at(data, cols["sample_time_s"], self.rate_hz)
            if rows is not None:
                k = point_kinematics(rows, footprint_point(ep))
                out.append(
                    truth_odom_topic(rx["truth"], cols, k, rows["q_xyzw"], self.georef, start, ep)
                )
        for name, topic, spec in self._topics:
            if spec.topic in names and data.has(name):
                out.append(topic.build(spec, columns(name), ep, start))
        return out

    def _columns(self, sensor: str) -> dict[str, Any]:
        """The columns of ``sensor``'s rows that this bag's topics read: its own topics', and
        the GNSS receiver's for the Maxxum's receiver topics."""
        spec: dict[str, Any] = {}
        for name, topic, _ in self._topics:
            if name == sensor:
                spec.update(topic.columns)
        if sensor == "gnss" and self.receiver_topics:
            spec.update(GNSS_FIX_COLUMNS)
            spec.update(RECEIVER_ODOM_COLUMNS)
        return spec


def sensors_of_config(cfg: Mapping) -> frozenset[str]:
    """The sensors a configuration turns on (of navsense.suite.SENSORS)."""
    return frozenset(enabled(cfg))
