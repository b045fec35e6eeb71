"""What scoring reads from a run directory: episode.json, the truth's source, the GNSS fix states.

A reader of the run (DESIGN.md: it never builds or imports a sensor model): the site's datum
chain from episode.json's ``site`` and ``config.gnss.datum``, the lever arms from its
configuration and vehicle, the truth found by :func:`navsense.stats.find_truth` (the one rule for
every reader of a run), and the GNSS rows' sample times and fix types from ``gnss.jsonl`` or
``gnss.parquet``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from navsense.errors import FormatError, NavsenseError

__all__ = ["GnssTimeline", "RunInfo", "read_gnss_timeline", "read_run_info"]


@dataclass(frozen=True)
class GnssTimeline:
    """The GNSS epochs of a run: sample times (m,) s and fix type names (m,)."""

    t_s: np.ndarray
    fix_type: np.ndarray
    hz: float


@dataclass(frozen=True)
class RunInfo:
    """A run directory as scoring needs it (:func:`read_run_info`)."""

    run_dir: Path
    episode: dict
    rate_hz: float
    first_step: int
    last_step: int
    start_ns: int

    @property
    def config(self) -> dict:
        return self.episode.get("config") or {}

    @property
    def ins_datum(self) -> str:
        """The datum of the run's UTM odometry and INS fix (episode.json ins.datum)."""
        datum = (self.episode.get("ins") or {}).get("datum")
        if datum:
            return str(datum)
        frame = (self.config.get("ins") or {}).get("frame", "nad83")
        return {"nad83": "nad83_2011", "wgs84": "wgs84_g2139"}.get(frame, str(frame))

    @property
    def utm_zone(self) -> int:
        """The run's UTM zone (episode.json ins.utm_zone, else config ins.utm_zone)."""
        zone = (self.episode.get("ins") or {}).get("utm_zone")
        if zone is None:
            zone = (self.config.get("ins") or {}).get("utm_zone", 16)
        return int(zone)

    def georeference(self):
        """The site's navsense.geo.Georeference (FormatError when the run's site has none)."""
        from navsense.site import site_from_json

        site = self.episode.get("site")
        where = self.run_dir / "episode.json"
        if site is None:
            raise FormatError(f"{where}: no site; a utm or geodetic estimate needs its datum chain")
        georef = site_from_json(site, source=f"{where} site").make_georeference(
            str(self.episode.get("start_utc") or self.config["gnss"]["datum"]["start_utc"]),
            (self.config.get("gnss") or {}).get("datum"),
        )
        if georef is None:
            raise FormatError(
                f"{where}: the site has no georeference; a utm or geodetic estimate needs one"
            )
        return georef

    def lever_arm_m(self, point: str) -> np.ndarray:
        """The point's position in chassis FLU coordinates, m: ``ins`` the INS point
        (episode.json ins.point_chassis_flu_m, else ins.position_flu_m of the configuration),
        ``antenna`` the GNSS antenna (gnss.antenna_flu_m), ``base_footprint`` its origin; lever
        arms in the configuration's mount_frame (navsense.vehicles.lever_arm_from_chassis)."""
        from navsense.vehicles import lever_arm_from_chassis, vehicle_profile

        vehicle = vehicle_profile(str(self.episode.get("vehicle", "polaris")))
        cfg = self.config
        mount = str(cfg.get("mount_frame", "chassis"))
        if point == "ins":
            arm = (self.episode.get("ins") or {}).get("point_chassis_flu_m")
            if arm is not None:
                return np.asarray(arm, dtype=np.float64)
            return lever_arm_from_chassis(cfg["ins"]["position_flu_m"], mount, vehicle)
        if point == "antenna":
            return lever_arm_from_chassis(cfg["gnss"]["antenna_flu_m"], mount, vehicle)
        if point == "base_footprint":
            return np.asarray(vehicle.footprint_in_chassis_m, dtype=np.float64)
        from navsense.errors import ConfigError

        raise ConfigError(f"--point {point!r} is not one of ins, antenna, base_footprint")


def read_run_info(run_dir: str | Path) -> RunInfo:
    """Read episode.json of ``run_dir`` (FormatError when it is not a run directory)."""
    from navsense.output.ros2 import utc_ns
    from navsense.output.runreader import read_episode

    run = Path(run_dir)
    if not run.is_dir():
        raise FormatError(f"{run}: not a run directory (not found)")
    episode = read_episode(run)
    if not isinstance(episode.get("config"), dict):
        raise FormatError(
            f"{run / 'episode.json'}: config = None is not the run's configuration (an object)"
        )
    rate = float(episode.get("physics_hz") or 120.0)
    first = int(episode.get("first_step") or 0)
    steps = int(episode.get("steps") or 0)
    cfg = episode["config"]
    start = str(episode.get("start_utc") or cfg["gnss"]["datum"]["start_utc"])
    try:
        start_ns = utc_ns(start)
    except NavsenseError as exc:
        raise FormatError(f"{run / 'episode.json'}: start_utc: {exc}") from None
    return RunInfo(run, episode, rate, first, first + steps - 1, start_ns)


def read_gnss_timeline(run: RunInfo) -> GnssTimeline | None:
    """The GNSS epochs' sample times and fix types (gnss.jsonl or gnss.parquet); None when the
    run has no GNSS rows."""
    from navsense.output.runreader import FLOAT, TEXT, RunReader

    hz = float((run.config.get("gnss") or {}).get("hz", 10.0))
    reader = RunReader(run.run_dir)
    if not reader.has("gnss"):
        return None
    got = reader.columns("gnss", {"sample_time_s": FLOAT, "fix_type": TEXT})
    t, fix = got["sample_time_s"], got["fix_type"]
    return GnssTimeline(t, fix, hz)
