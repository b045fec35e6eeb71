"""The values of a run's episode.json that its readers use, checked once when it is read.

:meth:`navsense.runs.Episode.read` calls :func:`check_episode` after it has
completed and checked the configuration, so that every reader of a run (the report, the
statistics, the MCAP export, scoring) may trust these values' kinds and ranges: a damaged file
ends in one line naming the file, the key, the value and what is allowed (issue 21), not in an
exception inside a reader. The top-level sections navsense writes as objects must be objects.
"""

from __future__ import annotations

import math
from pathlib import Path

from navsense.errors import FormatError

__all__ = ["INS_DATUMS", "MAX_PHYSICS_HZ", "MAX_STEPS", "check_episode"]

INS_DATUMS = ("nad83_2011", "nad83_harn", "wgs84_g2139")  # episode.json's ins.datum
MAX_PHYSICS_HZ = 1e6
MAX_STEPS = 10**12
#: top-level sections that the models' episode_info and the run write as objects
OBJECT_SECTIONS = (
    "source",
    "site",
    "ins",
    "gnss_constellation",
    "gnss_orbits",
    "imu_bias_flu",
    "mag_field",
)


def check_episode(episode: dict, where: Path) -> None:
    """FormatError naming ``where`` and the key when a value the readers take from episode.json
    is missing or of the wrong kind (the configuration itself is checked against the schema)."""
    from navsense.vehicles import VEHICLES

    def bad(key: str, value, allowed: str) -> FormatError:
        return FormatError(f"{where}: {key} = {value!r:.80} is not {allowed}")

    def number(v) -> bool:
        return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)

    def integer(v) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    # a run without its configuration is read with the defaults (a reader that needs the run's
    # own, such as scoring, says so); one that is there must be an object
    if "config" in episode and not isinstance(episode["config"], dict):
        raise bad("config", episode["config"], "the run's configuration (an object)")
    for key in OBJECT_SECTIONS:
        if episode.get(key) is not None and not isinstance(episode[key], dict):
            raise bad(key, episode[key], "an object")
    hz = episode.get("physics_hz")
    if hz is not None and not (number(hz) and 0 < hz <= MAX_PHYSICS_HZ):
        raise bad("physics_hz", hz, f"a rate in (0, {MAX_PHYSICS_HZ:g}] Hz")
    for key, low in (("first_step", 0), ("steps", 1)):
        v = episode.get(key)
        if v is not None and not (integer(v) and low <= v <= MAX_STEPS):
            raise bad(key, v, f"an integer {low}..{MAX_STEPS}")
    for key in ("start_utc", "output_format", "navsense_version"):
        if episode.get(key) is not None and not isinstance(episode[key], str):
            raise bad(key, episode[key], "text")
    vehicle = episode.get("vehicle", "polaris")
    if not isinstance(vehicle, str) or vehicle not in VEHICLES:
        raise bad("vehicle", vehicle, f"one of {', '.join(sorted(VEHICLES))}")
    for key in ("seed", "agent"):
        v = episode.get(key)
        if v is not None and not integer(v):
            raise bad(key, v, "an integer")
    ins = episode.get("ins") or {}
    if "datum" in ins and ins["datum"] not in INS_DATUMS:
        raise bad("ins.datum", ins["datum"], f"one of {', '.join(INS_DATUMS)}")
    if "utm_zone" in ins and not (integer(ins["utm_zone"]) and 1 <= ins["utm_zone"] <= 60):
        raise bad("ins.utm_zone", ins["utm_zone"], "a UTM zone 1..60")
    arm = ins.get("point_chassis_flu_m")
    if arm is not None and not (
        isinstance(arm, list) and len(arm) == 3 and all(number(v) and abs(v) <= 1e3 for v in arm)
    ):
        raise bad("ins.point_chassis_flu_m", arm, "three numbers (m, within 1000)")
    source = episode.get("source") or {}
    for key in ("truth", "scenario", "track"):
        if source.get(key) is not None and not isinstance(source[key], str):
            raise bad(f"source.{key}", source[key], "a path or name")
    duration = source.get("duration_s")
    if duration is not None and not (number(duration) and 0 < duration <= 1e9):
        raise bad("source.duration_s", duration, "a duration in (0, 1e9] s")
