"""``navsense export mcap``: a run directory's ROS 2 bag.

:func:`write_mcap` reads the run with :class:`navsense.output.runreader.RunReader` (JSON Lines or
Parquet rows, ``ins.frames``), builds the messages of its topics
(:mod:`navsense.output.ros2.topics`) and writes them in log-time order
(:func:`navsense.output.ros2.bag.write_topics`). The same run written as JSON Lines or as Parquet
gives the same bag, byte for byte.
"""

from __future__ import annotations

import json
from pathlib import Path

from navsense import __version__
from navsense.errors import FormatError
from navsense.output.ros2.bag import Ros2BagWriter, write_topics
from navsense.output.ros2.topics import (
    GNSS_FIX_COLUMNS,
    RAW_IMU_COLUMNS,
    TopicMessages,
    gnss_fix_topic,
    ins_topic_messages,
    raw_imu_topic,
    utc_ns,
)
from navsense.output.runreader import RunReader

__all__ = ["DEFAULT_BAG_NAME", "write_mcap"]

DEFAULT_BAG_NAME = "ros2.mcap"  # RUN_DIR/ros2.mcap unless --out says otherwise


def write_mcap(
    run_dir,
    out_path=None,
    *,
    gnss_fix: bool = False,
    raw_imu: bool = False,
    run_name: str | None = None,
) -> Path:
    """Write the run's ROS 2 bag (MCAP) and return its path.

    ``run_dir``: a navsense run directory (episode.json, the INS rows and ins.frames, and the GNSS
    / IMU rows for the optional topics), JSON Lines or Parquet. ``out_path``: the bag (default
    ``RUN_DIR/ros2.mcap``); an existing file is an error. ``gnss_fix`` adds the GNSS receiver's
    fix on /gnss/receiver/fix, ``raw_imu`` the IMU on /imu/raw. Topics and contents:
    :mod:`navsense.output.ros2.topics`. ``run_name``: the run directory's name in the bag's
    metadata (default: ``run_dir``'s; a run still written under ``NAME.partial`` gives ``NAME``).
    """
    run = RunReader(run_dir)
    out = Path(out_path) if out_path is not None else run.path / DEFAULT_BAG_NAME
    if out.exists():
        raise FormatError(
            f"{out}: the bag exists; not overwriting it (remove it or choose another --out)"
        )
    episode = run.episode
    start_ns = utc_ns(episode.get("start_utc") or "")
    topics: list[TopicMessages] = []
    if run.has_ins_frames():
        frames, times = run.ins_epochs()
        topics += ins_topic_messages(frames, times[:, 0], times[:, 2], episode, start_ns)
    if gnss_fix:
        path = run.require("gnss", " (GNSS receiver off); --gnss-fix needs it")
        if "latitude_deg" not in run.keys("gnss"):
            raise FormatError(
                f"{path}: the rows have no latitude_deg (a site without a "
                "georeference); --gnss-fix needs the geodetic output"
            )
        columns = run.columns("gnss", GNSS_FIX_COLUMNS)
        topics.append(gnss_fix_topic(columns, episode, start_ns, where=str(path)))
    if raw_imu:
        run.require("imu", " (IMU off); --raw-imu needs it")
        topics.append(raw_imu_topic(run.columns("imu", RAW_IMU_COLUMNS), episode, start_ns))
    if not topics:
        raise FormatError(
            f"{run.path}: no ins.frames (INS off) and no optional topic chosen; "
            "nothing to export (add --gnss-fix or --raw-imu)"
        )
    meta = {
        "navsense": {
            "navsense_version": str(episode.get("navsense_version", __version__)),
            "exported_by": f"navsense {__version__}",
            "vehicle": str(episode.get("vehicle", "")),
            "start_utc": str(episode.get("start_utc", "")),
            "seed": str(episode.get("seed", "")),
            "noise": str(episode.get("noise", "")),
            "source": json.dumps(episode.get("source", {}), sort_keys=True),
            "run_dir": run_name or run.path.resolve().name,
        }
    }
    with Ros2BagWriter(out, metadata=meta) as bag:
        write_topics(bag, topics)
    return out
