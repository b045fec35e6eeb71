"""A run's episode.json as one typed, frozen value: :class:`Episode`.

One class writes it (:func:`navsense.simulate.simulate`, through :meth:`Episode.to_json`) and
reads it (:meth:`Episode.read`: checked, completed, typed), so that no reader of a run fills in
a default of its own::

    ep = Episode.read("runs/acre-loop-20260923-150000")
    ep.physics_hz, ep.steps, ep.duration_s    # 120.0, 7201, 60.0
    ep.gnss_config.hz                         # navsense.config.typed.gnss.GnssConfig
    ep.ins_point_chassis_m                    # the INS point, chassis FLU (m)

episode.json, as simulate writes it, holds in this order: ``navsense_version``, ``source``,
``vehicle``, ``agent``, ``seed``, ``noise``, ``start_utc``, ``physics_hz`` (null for a run of
no steps), ``first_step``, ``steps``, ``output_format``, ``site``, then each model's
``episode_info()`` keys in model order (``ins``, ``gnss_constellation``, ``imu_bias_flu``,
``mag_field``: :attr:`Episode.models`), then ``config`` (the effective configuration without
the extension keys at their default: :func:`recorded_config`).

Reading (:meth:`Episode.read`): the file is checked (one line naming it, the key, the value
and what is allowed: :func:`navsense.runs.episode_check.check_episode`); its ``config`` is
completed with the defaults of the keys it leaves out
(:func:`navsense.config.defaults.complete_recorded_config`) and checked against the schema.
The keys a run may lack take their recorded defaults here, once:

==================  ====================================================================
key                 when episode.json lacks it (or holds null)
==================  ====================================================================
config              the defaults (``code_defaults.json`` < ``sensors.json``);
                    :attr:`Episode.has_config` is False (scoring needs the run's own)
vehicle             ``polaris`` (the specification's vehicle)
physics_hz          120 Hz (:data:`navsense.truth.states.PHYSICS_HZ`, the specification)
first_step, steps   0
start_utc           ``config.gnss.datum.start_utc``
seed, noise         ``config.seed``, ``config.noise``
output_format       ``jsonl``
source              {} (no truth named)
site                None (open sky, no georeference)
ins.datum           ``config.ins.frame`` as the INS names its datum (nad83 -> nad83_2011,
                    wgs84_g2139 as it is)
ins.utm_zone        ``config.ins.utm_zone``
ins.point_...       ``config.ins.position_flu_m`` from ``mount_frame`` (the INS model's
                    lever arm, navsense.vehicles.lever_arm_from_chassis)
==================  ====================================================================

Ruling: ``physics_hz`` and ``first_step`` are written null for a run of no steps (as before),
and read as the specification's 120 Hz and 0.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from navsense.errors import ConfigError, FormatError

__all__ = ["EPISODE_FILE", "Episode", "recorded_config"]

EPISODE_FILE = "episode.json"
#: the episode.json keys of the run itself, in the order they are written; the models' keys
#: follow, then ``config``
RUN_KEYS = (
    "navsense_version",
    "source",
    "vehicle",
    "agent",
    "seed",
    "noise",
    "start_utc",
    "physics_hz",
    "first_step",
    "steps",
    "output_format",
    "site",
)
#: the INS's datum names of config ins.frame (nad83 | wgs84_g2139; the INS's geo_frame,
#: navsense.sensors.ins.INS_FRAMES, which a reader does not import)
_INS_DATUM_OF_FRAME = {"nad83": "nad83_2011"}

#: navsense extension keys that episode.json leaves out when they hold their default of
#: code_defaults.json (issue 19: a default run writes the episode.json of the runs before the key
#: existed; navsense.config.defaults.complete_recorded_config puts them back): their paths
_LEFT_OUT_AT_DEFAULT: tuple[tuple[str, ...], ...] = (
    ("gnss", "corrections", "enabled"),
    ("gnss", "signal_outages_s"),
    ("gnss", "receiver"),
    ("gnss", "orbits"),  # issue 29: "synthetic"
    ("gnss", "systems"),  # issue 29: all five
    ("imu", "earth"),
    ("ins", "aiding"),
    ("ins", "imu_grade"),
    ("baro", "offset_sigma_pa"),
    ("baro", "temp_coeff_pa_per_k"),
    ("baro", "temperature_c"),
    ("baro", "weather_sigma_pa"),
    ("baro", "weather_tau_s"),
    ("baro", "preset"),
    ("gnss", "nmea", "gsv_below_mask"),  # issue 29: false
    ("gnss", "heading"),  # issue 29 item 4: one antenna (the section at its defaults)
    ("mag", "preset"),
    ("physics",),
    ("imu", "vibration"),  # issue 30 item 2: no vibration
    ("imu", "configurable", "deltas"),  # issue 30: "basilisk"
    (
        "imu",
        "configurable",
        "bandwidth_hz",
    ),  # issue 30: 0, no output filter  # issue 30: the 120 Hz clock (episode.json's physics_hz records the rate)
)
_AIDING_KEYS = ("aiding_tau_s", "drift")  # left out with ins.aiding at its default ("none")


def recorded_config(cfg: Mapping) -> dict:
    """The configuration episode.json records: ``cfg`` without the keys of
    ``_LEFT_OUT_AT_DEFAULT`` that hold their default, and without ins.aiding_tau_s and
    ins.drift when ins.aiding is left out (the aided INS's keys: unused then). A receiver
    preset's values (gnss.receiver, navsense.config.receiver_presets) are recorded as the
    values the run used; read back, they resolve to themselves."""
    from navsense.config.defaults import code_defaults
    from navsense.config.receiver import resolve_receiver

    defaults = code_defaults()
    resolved, _ = resolve_receiver(dict(cfg))
    out = dict(resolved)
    for path in _LEFT_OUT_AT_DEFAULT:
        out = _without_default(out, defaults, path)
    ins = out.get("ins")
    if isinstance(ins, dict) and "aiding" not in ins:
        out = {**out, "ins": {k: v for k, v in ins.items() if k not in _AIDING_KEYS}}
    return out


def _without_default(node: dict, defaults: dict, path: tuple[str, ...]) -> dict:
    """``node`` (copied where changed) without the key at ``path`` if it holds its default."""
    head, *rest = path
    if not isinstance(node, dict) or head not in node:
        return node
    if not rest:
        return (
            {k: v for k, v in node.items() if k != head} if node[head] == defaults[head] else node
        )
    child = _without_default(node[head], defaults[head], tuple(rest))
    return node if child is node[head] else {**node, head: child}


@dataclass(frozen=True)
class Episode:
    """A run's episode.json (module docstring): every value typed and complete.

    ``config`` is the effective configuration the run used (complete: every key of the
    schema); ``models`` the models' own keys (``ins``, ``gnss_constellation``, ...) in the order
    written; ``path`` the file it was read from (None for a run being written).
    """

    config: Mapping[str, Any]
    vehicle: str
    physics_hz: float
    first_step: int
    steps: int
    start_utc: str
    seed: int
    noise: bool
    agent: int | None = None
    source: Mapping[str, Any] = field(default_factory=dict)
    site: Mapping[str, Any] | None = None
    output_format: str = "jsonl"
    navsense_version: str | None = None
    models: Mapping[str, Any] = field(default_factory=dict)
    has_config: bool = True
    path: Path | None = None

    # ------------------------------------------------------------------ building
    @classmethod
    def of_run(
        cls,
        cfg: Mapping,
        *,
        vehicle: str,
        physics_hz: float | None,
        first_step: int | None,
        steps: int,
        start_utc: str,
        agent: int | None = None,
        source: Mapping | None = None,
        site: Mapping | None = None,
        output_format: str = "jsonl",
        models: Mapping[str, Any] | None = None,
    ) -> Episode:
        """The episode of a run just made (navsense.simulate): ``cfg`` its effective
        configuration, ``physics_hz`` None for a run of no steps."""
        from navsense import __version__
        from navsense.truth.states import PHYSICS_HZ

        return cls(
            config=cfg,
            vehicle=vehicle,
            physics_hz=float(physics_hz) if physics_hz is not None else PHYSICS_HZ,
            first_step=int(first_step or 0),
            steps=int(steps),
            start_utc=start_utc,
            seed=cfg["seed"],
            noise=cfg["noise"],
            agent=agent,
            source=source or {},
            site=site,
            output_format=output_format,
            navsense_version=__version__,
            models=dict(models or {}),
        )

    @classmethod
    def of_config(cls, cfg: Mapping, vehicle: str, physics_hz: float | None = None) -> Episode:
        """The episode of a run about to be made from the effective configuration ``cfg``
        (live serving, ``simulate --mcap``'s checks): no steps yet, no model's keys."""
        from navsense.truth.states import PHYSICS_HZ

        return cls(
            config=cfg,
            vehicle=vehicle,
            physics_hz=PHYSICS_HZ if physics_hz is None else float(physics_hz),
            first_step=0,
            steps=0,
            start_utc=str(cfg["gnss"]["datum"]["start_utc"]),
            seed=cfg["seed"],
            noise=cfg["noise"],
        )

    @classmethod
    def read(cls, run_dir: str | os.PathLike) -> Episode:
        """episode.json of the run directory ``run_dir`` (module docstring); FormatError naming
        the file when it is missing, not JSON, not an object, or a value is not allowed."""
        import orjson

        from navsense.jsonfile import MAX_INPUT_BYTES, check_input_file

        run = Path(run_dir)
        path = run / EPISODE_FILE
        if os.path.lexists(path) and not path.is_dir():  # a FIFO never ends, /dev/zero neither
            check_input_file(path, f"run's {EPISODE_FILE}", FormatError, MAX_INPUT_BYTES)
        try:
            data = orjson.loads(path.read_bytes())
        except FileNotFoundError:
            raise FormatError(f"{run}: not a run directory (no {EPISODE_FILE})") from None
        except IsADirectoryError:
            raise FormatError(f"{path}: a directory, not the run's {EPISODE_FILE}") from None
        except orjson.JSONDecodeError as exc:
            raise FormatError(f"{path}: not JSON ({exc})") from None
        if not isinstance(data, dict):
            raise FormatError(f"{path}: not a JSON object")
        return cls.from_json(data, path)

    @classmethod
    def from_json(cls, data: dict, path: Path) -> Episode:
        """The Episode of episode.json's object ``data`` read from ``path`` (checked,
        completed: module docstring)."""
        from navsense.config.defaults import complete_recorded_config
        from navsense.config.schema import validate
        from navsense.runs.episode_check import check_episode
        from navsense.truth.states import PHYSICS_HZ

        recorded = data.get("config")
        has_config = isinstance(recorded, dict)
        if "config" in data and not has_config:
            check_episode(data, path)  # names config
        # the keys a run's record leaves out (at their default, or newer than the run) as it ran
        cfg = complete_recorded_config(recorded if isinstance(recorded, dict) else {})
        try:  # every reader may then trust the configuration's types and ranges
            validate(cfg, f"{path}: config")
        except ConfigError as exc:
            raise FormatError(str(exc)) from None
        check_episode(data, path)

        def given(key: str, default):
            value = data.get(key)
            return default if value is None else value

        return cls(
            config=cfg,
            vehicle=str(given("vehicle", "polaris")),
            physics_hz=float(given("physics_hz", PHYSICS_HZ)),
            first_step=int(given("first_step", 0)),
            steps=int(given("steps", 0)),
            start_utc=str(given("start_utc", cfg["gnss"]["datum"]["start_utc"])),
            seed=int(given("seed", cfg["seed"])),
            noise=bool(given("noise", cfg["noise"])),
            agent=data.get("agent"),
            source=dict(given("source", {})),
            site=data.get("site"),
            output_format=str(given("output_format", "jsonl")),
            navsense_version=data.get("navsense_version"),
            models={k: v for k, v in data.items() if k not in RUN_KEYS and k != "config"},
            has_config=has_config,
            path=path,
        )

    def to_json(self) -> dict:
        """episode.json's object (module docstring): the run's keys, the models', the recorded
        configuration."""
        out: dict[str, Any] = {
            "navsense_version": self.navsense_version,
            "source": dict(self.source),
            "vehicle": self.vehicle,
            "agent": self.agent,
            "seed": self.seed,
            "noise": self.noise,
            "start_utc": self.start_utc,
            "physics_hz": self.physics_hz if self.steps else None,
            "first_step": self.first_step if self.steps else None,
            "steps": self.steps,
            "output_format": self.output_format,
            "site": self.site,
        }
        out.update(self.models)
        out["config"] = recorded_config(self.config)
        return out

    # ------------------------------------------------------------------ the run's values
    @property
    def where(self) -> str:
        """The file named in errors: episode.json's path (``episode.json`` for one not read)."""
        return str(self.path) if self.path is not None else EPISODE_FILE

    @property
    def duration_s(self) -> float:
        """(steps - 1) / physics_hz: from the first step to the last (0 for one step or none)."""
        return max(0, self.steps - 1) / self.physics_hz

    @property
    def last_step(self) -> int:
        """The run's last physics step (first_step - 1 for a run of no steps)."""
        return self.first_step + self.steps - 1

    @functools.cached_property
    def start_ns(self) -> int:
        """start_utc in POSIX nanoseconds (microsecond precision: navsense.geo.epoch.utc_ns)."""
        from navsense.geo.epoch import utc_ns

        return utc_ns(self.start_utc)

    @functools.cached_property
    def vehicle_profile(self):
        """The run's navsense.vehicles.VehicleProfile."""
        from navsense.vehicles import vehicle_profile

        return vehicle_profile(self.vehicle)

    def enabled(self, sensor: str) -> bool | None:
        """``config.<sensor>.enabled`` as the run recorded it (None without its configuration,
        or for a section it does not have)."""
        if not self.has_config:
            return None
        section = self.config.get(sensor)
        value = section.get("enabled") if isinstance(section, Mapping) else None
        return value if isinstance(value, bool) else None

    def site_object(self):
        """The run's navsense.site.Site (episode.json ``site``), or None."""
        from navsense.site import site_from_json

        if self.site is None:
            return None
        return site_from_json(dict(self.site), source=f"{self.where} site")

    def georeference(self):
        """The Georeference of the run's site at start_utc with ``config.gnss.datum``, or None
        when the run has no site or its site no georeference."""
        site = self.site_object()
        if site is None:
            return None
        return site.make_georeference(self.start_utc, self.config["gnss"]["datum"])

    @property
    def has_georeference(self) -> bool:
        """The run's site has a georeference (its GNSS rows then have the geodetic output)."""
        return self.site is not None and self.site.get("georeference") is not None

    # ------------------------------------------------------------------ typed sections
    @functools.cached_property
    def gnss_config(self):
        """navsense.config.typed.gnss.GnssConfig of the run's configuration."""
        from navsense.config.typed.gnss import GnssConfig

        return GnssConfig.from_validated(self.config)

    @functools.cached_property
    def imu_config(self):
        """The IMU's typed configuration: ConfigurableImuConfig for ``imu.model``
        configurable, else the ACRES IMU's ImuConfig."""
        if self.config["imu"]["model"] == "configurable":
            from navsense.config.typed.configurable_imu import ConfigurableImuConfig

            return ConfigurableImuConfig.from_validated(self.config)
        from navsense.config.typed.imu import ImuConfig

        return ImuConfig.from_validated(self.config)

    @functools.cached_property
    def ins_config(self):
        """navsense.config.typed.ins.InsConfig of the run's configuration."""
        from navsense.config.typed.ins import InsConfig

        return InsConfig.from_validated(self.config)

    @functools.cached_property
    def mag_config(self):
        """navsense.config.typed.mag.MagConfig of the run's configuration."""
        from navsense.config.typed.mag import MagConfig

        return MagConfig.from_validated(self.config)

    @functools.cached_property
    def baro_config(self):
        """navsense.config.typed.baro.BaroConfig of the run's configuration."""
        from navsense.config.typed.baro import BaroConfig

        return BaroConfig.from_validated(self.config)

    @functools.cached_property
    def odom_config(self):
        """navsense.config.typed.odom.OdomConfig of the run's configuration."""
        from navsense.config.typed.odom import OdomConfig

        return OdomConfig.from_validated(self.config)

    @property
    def mount_frame(self) -> str:
        """``config.mount_frame``: the frame of the mounts' positions (chassis, base_footprint)."""
        return str(self.config["mount_frame"])

    # ------------------------------------------------------------------ the INS's keys
    @property
    def ins_info(self) -> Mapping[str, Any]:
        """episode.json ``ins`` (the INS model's keys; {} when the INS was off)."""
        return self.models.get("ins") or {}

    @property
    def ins_datum(self) -> str:
        """The datum of the INS's fix and UTM output: episode.json ins.datum, else
        config ins.frame as the INS names it (module docstring)."""
        datum = self.ins_info.get("datum")
        if datum:
            return str(datum)
        frame = str(self.config["ins"]["frame"])
        return _INS_DATUM_OF_FRAME.get(frame, frame)

    @property
    def ins_utm_zone(self) -> int:
        """The INS's UTM zone: episode.json ins.utm_zone, else config ins.utm_zone."""
        zone = self.ins_info.get("utm_zone")
        return int(zone if zone is not None else self.config["ins"]["utm_zone"])

    @property
    def ins_point_chassis_m(self):
        """(3,) float64: the INS point in chassis FLU (m): episode.json
        ins.point_chassis_flu_m, else config ins.position_flu_m from ``mount_frame``."""
        return self.sensor_point("ins")

    def sensor_point(self, sensor: str, arm: str | None = "position_flu_m"):
        """(3,) float64: a point of the run's sensor in chassis FLU (m): episode.json's
        ``<sensor>.point_chassis_flu_m`` when its model recorded it (the INS), else the key
        ``arm`` of its configuration section (:meth:`mount_point`), else (``arm`` None) the
        chassis origin."""
        import numpy as np

        recorded = (self.models.get(sensor) or {}).get("point_chassis_flu_m")
        if recorded is not None:
            return np.asarray(recorded, dtype=np.float64)
        if arm is None:
            return np.zeros(3)
        return self.mount_point(sensor, arm)

    def mount_point(self, section: str, key: str = "position_flu_m"):
        """(3,) float64: ``config.<section>.<key>`` (a mount in ``mount_frame``) from the
        chassis origin, FLU (m)."""
        from navsense.vehicles import lever_arm_from_chassis

        return lever_arm_from_chassis(
            self.config[section][key], self.mount_frame, self.vehicle_profile
        )
