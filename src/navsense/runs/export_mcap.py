"""``navsense export mcap``: a run directory's ROS 2 bag.

:func:`write_mcap` reads the run with :class:`navsense.runs.reader.RunReader` (JSON Lines or
Parquet rows, ``ins.frames``), lists its topics with a :class:`navsense.output.ros2.plan.BagPlan`
(the sensors whose rows the run has), builds their messages and writes them in log-time order
(:func:`navsense.output.ros2.bag.write_topics`). The truth (the ground truth's twist, the
Maxxum's ground truth without INS) is the run's, found by :func:`navsense.runs.stats.find_truth`
(``truth.parquet``, else the source episode.json names); a reader of a run builds no model. The
same run written as JSON Lines or as Parquet gives the same bag, byte for byte.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from navsense import __version__
from navsense.errors import FormatError
from navsense.output.ros2.bag import Ros2BagWriter, write_topics
from navsense.output.ros2.plan import BagPlan
from navsense.output.ros2.topics import seconds_to_ns
from navsense.runs.episode import Episode
from navsense.runs.reader import RunReader
from navsense.suite import SENSORS

__all__ = ["DEFAULT_BAG_NAME", "run_georeference", "write_mcap"]

DEFAULT_BAG_NAME = "ros2.mcap"  # RUN_DIR/ros2.mcap unless --out says otherwise


def run_georeference(episode: Episode):
    """The Georeference of the run's site (episode.json ``site``, ``config.gnss.datum``), or
    None when the site has none (:meth:`navsense.runs.Episode.georeference`)."""
    return episode.georeference()


class _RunData:
    """A run directory as :class:`navsense.output.ros2.plan.BagData`."""

    def __init__(self, run: RunReader, sensors: frozenset[str], truth: Any, rate_hz: float):
        self.run = run
        self.sensors = sensors
        self.truth = truth  # navsense.runs.stats.TruthSource or None
        self.rate_hz = rate_hz

    def has(self, sensor: str) -> bool:
        return sensor in self.sensors

    def columns(self, sensor: str, spec: Mapping[str, Any]) -> dict[str, np.ndarray]:
        return self.run.columns(sensor, spec)

    def ins_epochs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        frames, times = self.run.ins_epochs()
        return frames, times[:, 0], times[:, 2]

    def truth_rows(self, steps: np.ndarray) -> dict | None:
        if self.truth is None:
            return None
        from navsense.runs.stats import truth_at_steps

        return truth_at_steps(self.truth, steps, self.rate_hz, where=self.run.episode.where)


def _geodetic(run: RunReader, sensors: frozenset[str]) -> bool:
    """The GNSS rows have the geodetic output (without GNSS rows: the site has a
    georeference)."""
    if "gnss" in sensors:
        return "latitude_deg" in run.keys("gnss")
    return run.episode.has_georeference


def write_mcap(
    run_dir,
    out_path=None,
    *,
    gnss_fix: bool = False,
    raw_imu: bool = False,
    run_name: str | None = None,
) -> Path:
    """Write the run's ROS 2 bag (MCAP) and return its path.

    ``run_dir``: a navsense run directory (episode.json and its sensors' rows, ``ins.frames``),
    JSON Lines or Parquet. ``out_path``: the bag (default ``RUN_DIR/ros2.mcap``); an existing
    file is an error. ``gnss_fix`` adds the GNSS receiver's fix on /gnss/receiver/fix,
    ``raw_imu`` the IMU on /imu/raw. Topics and contents: :mod:`navsense.output.ros2.plan`.
    ``run_name``: the run directory's name in the bag's metadata (default: ``run_dir``'s; a run
    still written under ``NAME.partial`` gives ``NAME``).
    """
    run = RunReader(run_dir)
    out = Path(out_path) if out_path is not None else run.path / DEFAULT_BAG_NAME
    if out.exists():
        raise FormatError(
            f"{out}: the bag exists; not overwriting it (remove it or choose another --out)"
        )
    episode = run.episode
    rate_hz = episode.physics_hz
    start_ns = episode.start_ns
    sensors = frozenset(s for s in SENSORS if (run.has_ins_frames() if s == "ins" else run.has(s)))
    geodetic = _geodetic(run, sensors)
    receiver = episode.vehicle != "polaris" and "ins" not in sensors
    truth, truth_note = _find_truth(run)
    plan = BagPlan(
        episode,
        start_ns,
        rate_hz,
        sensors,
        geodetic,
        georef=episode.georeference() if receiver and geodetic else None,
        truth=truth is not None,
        gnss_fix=gnss_fix,
        raw_imu=raw_imu,
    )
    plan.check(str(run.path))
    t0_ns = start_ns + int(seconds_to_ns(np.array([episode.first_step / rate_hz]))[0])
    topics = [plan.static_topic(t0_ns)]
    topics += plan.messages(_RunData(run, sensors, truth, rate_hz))
    meta = {
        "navsense": {
            "navsense_version": str(episode.navsense_version or __version__),
            "exported_by": f"navsense {__version__}",
            "vehicle": episode.vehicle,
            "start_utc": episode.start_utc,
            "seed": str(episode.seed),
            "noise": str(episode.noise),
            "source": json.dumps(dict(episode.source), sort_keys=True),
            "run_dir": run_name or run.path.resolve().name,
            "truth": truth_note,
        }
    }
    with Ros2BagWriter(out, metadata=meta) as bag:
        write_topics(bag, topics)
    return out


def _find_truth(run: RunReader) -> tuple[Any, str]:
    """The run's truth source (navsense.runs.stats.find_truth) and a note for the bag's metadata;
    (None, why) when the run has none or the one it names is gone (then the ground truth's
    twist is NaN: the bag is still written)."""
    from navsense.runs.stats import find_truth

    try:
        truth = find_truth(run.path, run.episode)
    except FormatError as exc:
        return None, f"none: {exc}"
    if truth is None:
        return None, "none: no truth.parquet and the run's source names no truth"
    return truth, truth.description
