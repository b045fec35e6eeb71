"""What scoring reads from a run directory: episode.json, the truth's source, the GNSS fix states.

A reader of the run (DESIGN.md: it never builds or imports a sensor model): the site's datum
chain from episode.json's ``site`` and ``config.gnss.datum``, the lever arms from its
configuration and vehicle, the truth found by :func:`navsense.runs.stats.find_truth` (the one rule for
every reader of a run), and the GNSS rows' sample times and fix types from ``gnss.jsonl`` or
``gnss.parquet``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from navsense.errors import FormatError, NavsenseError
from navsense.runs.episode import Episode

__all__ = ["GnssTimeline", "RunInfo", "read_gnss_timeline", "read_run_info"]


@dataclass(frozen=True)
class GnssTimeline:
    """The GNSS epochs of a run: sample times (m,) s and fix type names (m,)."""

    t_s: np.ndarray
    fix_type: np.ndarray
    hz: float


@dataclass(frozen=True)
class RunInfo:
    """A run directory as scoring needs it (:func:`read_run_info`): its typed episode.json
    (:class:`navsense.runs.Episode`) and the physics steps it covers."""

    run_dir: Path
    episode: Episode
    rate_hz: float
    first_step: int
    last_step: int
    start_ns: int

    @property
    def config(self) -> Mapping:
        return self.episode.config

    @property
    def ins_datum(self) -> str:
        """The datum of the run's UTM odometry and INS fix (Episode.ins_datum)."""
        return self.episode.ins_datum

    @property
    def utm_zone(self) -> int:
        """The run's UTM zone (Episode.ins_utm_zone)."""
        return self.episode.ins_utm_zone

    def georeference(self):
        """The site's navsense.geo.Georeference (FormatError when the run's site has none)."""
        where = self.episode.where
        if self.episode.site is None:
            raise FormatError(f"{where}: no site; a utm or geodetic estimate needs its datum chain")
        georef = self.episode.georeference()
        if georef is None:
            raise FormatError(
                f"{where}: the site has no georeference; a utm or geodetic estimate needs one"
            )
        return georef

    def lever_arm_m(self, point: str) -> np.ndarray:
        """The point's position in chassis FLU coordinates, m: ``ins`` the INS point
        (Episode.ins_point_chassis_m), ``antenna`` the GNSS antenna (gnss.antenna_flu_m),
        ``base_footprint`` its origin; lever arms in the configuration's mount_frame
        (navsense.vehicles.lever_arm_from_chassis)."""
        if point == "ins":
            return self.episode.ins_point_chassis_m
        if point == "antenna":
            return self.episode.mount_point("gnss", "antenna_flu_m")
        if point == "base_footprint":
            return np.asarray(self.episode.vehicle_profile.footprint_in_chassis_m, dtype=np.float64)
        from navsense.errors import ConfigError

        raise ConfigError(f"--point {point!r} is not one of ins, antenna, base_footprint")


def read_run_info(run_dir: str | Path) -> RunInfo:
    """Read episode.json of ``run_dir`` (FormatError when it is not a run directory, or its
    episode.json has no configuration: scoring needs the run's own)."""
    run = Path(run_dir)
    if not run.is_dir():
        raise FormatError(f"{run}: not a run directory (not found)")
    episode = Episode.read(run)
    if not episode.has_config:
        raise FormatError(
            f"{episode.where}: config = None is not the run's configuration (an object)"
        )
    try:
        start_ns = episode.start_ns
    except NavsenseError as exc:
        raise FormatError(f"{episode.where}: start_utc: {exc}") from None
    return RunInfo(
        run, episode, episode.physics_hz, episode.first_step, episode.last_step, start_ns
    )


def read_gnss_timeline(run: RunInfo) -> GnssTimeline | None:
    """The GNSS epochs' sample times and fix types (gnss.jsonl or gnss.parquet); None when the
    run has no GNSS rows."""
    from navsense.runs.reader import FLOAT, TEXT, RunReader

    hz = run.episode.gnss_config.hz
    reader = RunReader(run.run_dir)
    if not reader.has("gnss"):
        return None
    got = reader.columns("gnss", {"sample_time_s": FLOAT, "fix_type": TEXT})
    t, fix = got["sample_time_s"], got["fix_type"]
    return GnssTimeline(t, fix, hz)
