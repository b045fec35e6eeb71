"""The campaign file: truth sources x vehicles x agents x sweep points x seeds, validated.

A campaign file is TOML (``.toml``, read with :mod:`tomllib`) or JSON (``.json``). Paths in it
are relative to the file. Example (TOML)::

    name = "baseline-sweep"            # optional; default: the file's stem
    keep = "statistics"                # "statistics" (default) or "runs": keep every run directory
    duration_s = 120                   # optional: cut every source to this, s (a source may
                                       # set its own duration_s)
    vehicles = ["polaris"]             # optional: default each source's own (a truth log: polaris)
    agents = [0]                       # optional: INS agent indices (seed + 7919 agent); default [0]
    seeds = { start = 1, count = 50 }  # or a list: seeds = [1, 2, 3]
    config = "my-sensors.json"         # optional: as --config
    overlay = "my-overlay.json"        # optional: as --overlay

    [[sources]]
    scenario = "acre-loop"             # an embedded scenario, or a scenario file (*.json)
    # duration_s = 60                  # optional, per source

    [[sources]]
    truth = "logs/drive.parquet"       # a truth log (.csv or .parquet)
    site = "acre"                      # optional: embedded site or site JSON file; default the
                                       # log's own (navsense.truth.io), else acre
    # duration_s = 60                  # optional, per source

    [[sources]]
    track = "drives/field.gpx"         # a GPS track (.gpx, .csv) or a waypoint route (.json)
    # site = "my-site.json"            # optional; default ACRE on its tile, else a local site
    # smoothing_m = 0.5                # optional: the recording's position noise, m (default:
    #                                  #   chosen from the data; 0: through every point)
    # bank = "coordinated"             # optional: none (default) or coordinated
    # duration_s = 60                  # optional, per source

    [overrides]                        # optional: configuration overrides for every run
    "gnss.start" = "cold"

    [sweep.grid]                       # optional: the cartesian product of the lists ...
    "gnss.corrections.baseline_km" = [1, 10, 30]
    "gnss.hz" = [5, 10]
    # ... or a list of points:  [[sweep.points]]  "gnss.hz" = 5  (one table a point)

    estimator = "my_filter --bag {run}/ros2.mcap --out {run}/estimate.tum"   # optional: run and
                                       # score an estimator after each run (a command line, or a
                                       # table with the estimate's path and navsense score's
                                       # options: navsense.score.campaign)

Override keys are the dotted keys of the sensor configuration (``navsense config keys``); a key
ending in ``+`` appends to a list (``"gnss.corrections.outages_s+" = [[10, 20]]``). TOML's own
dotted keys (``gnss.hz = [5, 10]`` without quotes) mean the same. ``seed`` is not an override:
it comes from ``seeds``.

:func:`load_campaign` checks the structure, the types, the ranges and the override keys, and
raises :class:`~navsense.errors.ConfigError` naming the file, the key, the value and what is
allowed (``campaign.toml: keep = "all" is not one of statistics, runs``). Override *values* are
checked too, before any run starts, by building each vehicle's configuration with the overrides
and each sweep point as the runs do (``c.toml: sweep point p002: gnss.hz = 240 is out of range
1..120``); what depends on a run's site or truth (a frame the site does not have, a bad row of a
truth log) fails that run alone, with its message, and the other runs go on.

The result, :class:`Campaign`, holds the resolved runs: every source with absolute paths and the
SHA-256 of each input file, the sweep points, and one JSON-ready dict a run (:data:`RUN_KEYS`).
A run's ``run_id`` is ``p<point>-s<seed>-<hash>``: the hash is the first 10 hex digits of the
SHA-256 of the run's canonical JSON (everything that decides its output, the navsense version
included), so the same run keeps its id across invocations and a changed input gets a new one.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import stat
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from navsense import __version__
from navsense.campaign.sources import (
    _check_duration,
    _err,
    _file_ref,
    _is_int,
    _sources,
    _unknown,
    check_run_clock,
)
from navsense.config.load import parse_config_text
from navsense.config.schema import SCHEMA, format_value, lookup, unknown_key_error
from navsense.errors import ConfigError

__all__ = [
    "Campaign",
    "load_campaign",
    "campaign_from_data",
    "run_hash",
    "KEEP_CHOICES",
    "TOP_KEYS",
    "RUN_KEYS",
    "SEED_MIN",
    "SEED_MAX",
    "MAX_CAMPAIGN_RUNS",
]

KEEP_CHOICES = ("statistics", "runs")
TOP_KEYS = (
    "name",
    "description",
    "keep",
    "duration_s",
    "sources",
    "seeds",
    "vehicles",
    "agents",
    "config",
    "overlay",
    "overrides",
    "sweep",
    "estimator",
)
RUN_KEYS = (
    "run_id",
    "point",
    "seed",
    "agent",
    "vehicle",
    "source",
    "source_label",
    "config",
    "overlay",
    "overrides",
    "navsense_version",
)
_SEED_FIELD: Any = lookup("seed", SCHEMA)  # a Field, with its range
SEED_MIN = int(_SEED_FIELD.minimum)
SEED_MAX = int(_SEED_FIELD.maximum)
HASH_HEX_DIGITS = 10  # 40 bits: a collision among 10^5 runs has probability ~5e-3 %
MAX_CAMPAIGN_RUNS = 100_000  # runs in one campaign (its ids stay unique: HASH_HEX_DIGITS)
MAX_AGENT = 1_000_000  # an agent index (as navsense simulate --agent)


@dataclass(frozen=True)
class Campaign:
    """A validated, resolved campaign (see the module docstring).

    ``points``: dicts ``{"point", "label", "overrides"}``; ``runs``: JSON-ready run dicts in plan
    order (sources, then vehicles, agents, points, seeds); ``sweep_keys``: the swept override
    keys in file order.
    """

    path: Path
    name: str
    description: str
    keep: str
    sources: tuple[dict, ...]
    seeds: tuple[int, ...]
    vehicles: tuple[str, ...] | None
    agents: tuple[int, ...]
    config: dict | None
    overlay: dict | None
    overrides: dict
    sweep_keys: tuple[str, ...]
    points: tuple[dict, ...]
    runs: tuple[dict, ...] = field(repr=False)
    estimator: dict | None = None

    def run(self, run_id: str) -> dict:
        """The run with this id (KeyError if none)."""
        for r in self.runs:
            if r["run_id"] == run_id:
                return r
        raise KeyError(run_id)

    def to_json(self) -> dict:
        """The resolved campaign as saved in ``DIR/campaign.json``."""
        return {
            "navsense_version": __version__,
            "campaign_file": str(self.path),
            "name": self.name,
            "description": self.description,
            "keep": self.keep,
            "sources": list(self.sources),
            "seeds": list(self.seeds),
            "vehicles": None if self.vehicles is None else list(self.vehicles),
            "agents": list(self.agents),
            "config": self.config,
            "overlay": self.overlay,
            "overrides": self.overrides,
            "sweep_keys": list(self.sweep_keys),
            "points": list(self.points),
            "runs": list(self.runs),
            "estimator": self.estimator,
        }


# ------------------------------------------------------------------------------------- reading
def _read(path: Path) -> dict:
    from navsense.jsonfile import json_depth_error, read_text

    source = str(path)
    suffix = path.suffix.lower()
    if suffix not in (".toml", ".json"):
        raise ConfigError(
            f"{source}: unknown campaign file type {path.suffix!r}; use .toml or .json"
        )
    text = read_text(path, "campaign file", ConfigError)
    if suffix == ".toml":
        deep = json_depth_error(_toml_brackets(text), source, ConfigError)
        if deep is not None:  # tomllib recurses per level of arrays and inline tables
            raise deep
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{source}: invalid TOML: {exc}") from None
        except RecursionError:
            raise ConfigError(f"{source}: invalid TOML: nested too deeply") from None
        return _toml_times_as_text(data)
    return parse_config_text(text, source)


def _toml_times_as_text(value):
    """TOML's dates and times (``2026-09-23T15:00:00Z``, ``1979-05-27``, ``07:32:00``) as their
    ISO 8601 text, the values JSON has for them: a start time then reads as the configuration's
    text would, and anywhere else the check names the key (a datetime object was a TypeError
    inside the JSON of the run ids). The nesting is checked before (64 levels)."""
    import datetime as dt

    if isinstance(value, dict):
        return {k: _toml_times_as_text(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_toml_times_as_text(v) for v in value]
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        text = value.isoformat()
        return text[:-6] + "Z" if text.endswith("+00:00") else text
    return value


def _toml_brackets(text: str) -> str:
    """The brackets of TOML ``text`` as JSON-like text (table headers ``[x]`` and ``[[x]]`` at
    the start of a line left out), for the nesting check; strings keep their quotes."""
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("[")]
    return "\n".join(lines).replace("'", '"')


def run_hash(run: Mapping) -> str:
    """The hash part of a run id: SHA-256 of the run's canonical JSON without ``run_id``."""
    body = {k: v for k, v in run.items() if k != "run_id"}
    return hashlib.sha256(orjson.dumps(body, option=orjson.OPT_SORT_KEYS)).hexdigest()[
        :HASH_HEX_DIGITS
    ]


def load_campaign(path: str | os.PathLike) -> Campaign:
    """Read, validate and resolve the campaign file ``path`` (TOML or JSON; module docstring).
    A file it cannot read or parse is named as given (an invalid TOML's line named it by its
    absolute path, every other line as given)."""
    return campaign_from_data(_read(Path(path)), Path(path).resolve())


# ---------------------------------------------------------------------------------- validation
def campaign_from_data(data: Mapping, path: str | os.PathLike) -> Campaign:
    """Validate and resolve a parsed campaign ``data`` whose file is ``path`` (for messages and
    relative paths; the file itself is not read)."""
    path = Path(path)
    src = path.name
    base = path.parent
    if not isinstance(data, Mapping):
        raise ConfigError(f"{src}: the campaign is {format_value(data, 40)}, not a table/object")
    for key, value in data.items():
        if key not in TOP_KEYS:
            raise _unknown(src, "", str(key), value, TOP_KEYS)

    name = data.get("name", path.stem)
    if not isinstance(name, str) or not name:
        raise _err(src, "name", name, "is not a non-empty string")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise _err(src, "description", description, "is not a string")
    keep = data.get("keep", "statistics")
    if keep not in KEEP_CHOICES:
        raise _err(src, "keep", keep, f"is not one of {', '.join(KEEP_CHOICES)}")
    duration = data.get("duration_s")
    if duration is not None:
        _check_duration(src, "duration_s", duration)

    sources = _sources(src, base, data.get("sources"), duration)
    seeds = _seeds(src, data.get("seeds"))
    vehicles = _vehicles(src, data.get("vehicles"))
    agents = _agents(src, data.get("agents", [0]))
    config = _file_ref(src, base, "config", data.get("config"))
    overlay = _file_ref(src, base, "overlay", data.get("overlay"))
    overrides = _overrides(src, "overrides", data.get("overrides", {}))
    sweep_keys, points = _sweep(src, data.get("sweep"))
    from navsense.score.campaign import estimator_from_data

    estimator = estimator_from_data(src, base, data.get("estimator"))

    total = (
        sum(len(vehicles) if vehicles else 1 for _ in sources)
        * len(agents)
        * len(points)
        * len(seeds)
    )
    if total > MAX_CAMPAIGN_RUNS:  # refused before the runs are built
        raise ConfigError(
            f"{src}: {total} runs ({len(sources)} sources x {len(vehicles or ()) or 1} vehicles "
            f"x {len(agents)} agents x {len(points)} sweep points x {len(seeds)} seeds); at most "
            f"{MAX_CAMPAIGN_RUNS} runs in one campaign"
        )
    runs = []
    for source in sources:
        for vehicle in vehicles or (source["vehicle"],):
            for agent in agents:
                for point in points:
                    for seed in seeds:
                        runs.append(
                            _run(
                                source,
                                vehicle,
                                agent,
                                point,
                                seed,
                                config,
                                overlay,
                                overrides,
                                estimator,
                            )
                        )
    _check_values(src, runs, sources)
    for run in runs:  # the values hash now (a JSON integer beyond 64 bits was a TypeError)
        try:
            digest = run_hash(run)
        except TypeError as exc:
            raise ConfigError(f"{src}: run p{run['point']:03d}: a value of it ({exc})") from None
        run["run_id"] = f"p{run['point']:03d}-s{run['seed']:04d}-{digest}"
    return Campaign(
        path=path,
        name=name,
        description=description,
        keep=keep,
        sources=tuple(sources),
        seeds=tuple(seeds),
        vehicles=vehicles,
        agents=tuple(agents),
        config=config,
        overlay=overlay,
        overrides=overrides,
        sweep_keys=tuple(sweep_keys),
        points=tuple(points),
        runs=tuple(runs),
        estimator=estimator,
    )


def _check_values(src: str, runs: list[dict], sources: list[dict]) -> None:
    """Each vehicle's configuration with the campaign's overrides and each sweep point, built
    as its runs will build it (navsense.run.prepare_run): a bad value is a ConfigError now,
    before the first run, naming the file and the layer; and each run's cut of its source and
    its sensors' rates on the run's physics clock (:func:`navsense.campaign.sources.check_run_clock`)."""
    from navsense.run import _effective_config, _keys_set

    where = {id(s["run_source"]): f"sources[{i}]" for i, s in enumerate(sources)}
    built: dict[str, tuple[dict, bool]] = {}
    for run in runs:
        key = json.dumps([run["vehicle"], run["config"], run["overlay"], run["overrides"]])
        if key not in built:
            files = ((run["config"] or {}).get("path"), (run["overlay"] or {}).get("path"))
            layers = [(f"{src}: {label}", layer) for label, layer in run["overrides"]]
            # as the run builds it, a preset a layer names included (imu.vibration.preset in a
            # sweep: its band was not checked, and every run of the point failed)
            cfg = _effective_config(*files, run["vehicle"], layers)
            built[key] = (cfg, "physics.hz" in _keys_set(*files, layers))
            _check_orbits_file(src, cfg)
        cfg, rate_set = built[key]
        check_run_clock(src, where[id(run["source"])], run, cfg, rate_set)


def _check_orbits_file(src: str, cfg: Mapping) -> None:
    """gnss.orbits, a RINEX file, is a regular file that can be read where the runs read it
    (the working directory for a relative path, as navsense simulate): one missing (or a FIFO,
    on which every run waited) failed every run of its configuration, the campaign exit 1.
    Its contents are read by each run (navsense.sky.rinex_nav)."""
    gnss = cfg.get("gnss", {})
    path = gnss.get("orbits", "synthetic")
    if not gnss.get("enabled", True) or path == "synthetic":
        return
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise _err(src, "gnss.orbits", path, f"cannot be read ({reason})") from None
    if not stat.S_ISREG(mode):
        kind = "a directory" if stat.S_ISDIR(mode) else "not a regular file"
        raise _err(src, "gnss.orbits", path, f"is {kind}: give a RINEX navigation file")


def _run(
    source: dict,
    vehicle: str,
    agent: int,
    point: dict,
    seed: int,
    config,
    overlay,
    overrides: dict,
    estimator: dict | None = None,
) -> dict:
    layers = []
    if overrides:
        layers.append(["overrides", overrides])
    if point["overrides"]:
        layers.append([f"sweep point p{point['point']:03d}", point["overrides"]])
    run = {
        "run_id": "",
        "point": point["point"],
        "seed": seed,
        "agent": agent,
        "vehicle": vehicle,
        "source": source["run_source"],
        "source_label": source["label"],
        "config": config,
        "overlay": overlay,
        "overrides": layers,
        "navsense_version": __version__,
    }
    if estimator is not None:  # only then: the runs of a campaign without one keep their ids
        run["estimator"] = estimator
    return run  # its run_id is set once its values are checked (campaign_from_data)


def _seed_ok(v) -> bool:
    return _is_int(v) and SEED_MIN <= v <= SEED_MAX


def _seeds(src: str, value) -> list[int]:
    allowed = f"integers in {SEED_MIN}..{SEED_MAX}"
    if isinstance(value, Mapping):
        for key, v in value.items():
            if key not in ("start", "count"):
                raise _unknown(src, "seeds", str(key), v, ("start", "count"))
        start: Any = value.get("start")
        count: Any = value.get("count")
        if not _seed_ok(start):
            raise _err(src, "seeds.start", start, f"is not an integer in {SEED_MIN}..{SEED_MAX}")
        if not (_is_int(count) and count >= 1):
            raise _err(src, "seeds.count", count, "is not an integer >= 1")
        if count > MAX_CAMPAIGN_RUNS:
            raise _err(src, "seeds.count", count, f"is more than {MAX_CAMPAIGN_RUNS} runs")
        if start + count - 1 > SEED_MAX:
            raise _err(src, "seeds.count", count, f"takes the seeds past {SEED_MAX}")
        return list(range(start, start + count))
    if isinstance(value, list) and value:
        if len(value) > MAX_CAMPAIGN_RUNS:
            raise _err(
                src, "seeds", f"[{len(value)} seeds]", f"is more than {MAX_CAMPAIGN_RUNS} runs"
            )
        seen: set[int] = set()
        for i, v in enumerate(value):
            if not _seed_ok(v):
                raise _err(src, f"seeds[{i}]", v, f"is not an integer in {SEED_MIN}..{SEED_MAX}")
            if v in seen:
                raise _err(src, "seeds", value, f"lists the seed {v} twice")
            seen.add(v)
        return list(value)
    raise _err(
        src, "seeds", value, f"is not {{start = N, count = M}} or a non-empty array of {allowed}"
    )


def _vehicles(src: str, value) -> tuple[str, ...] | None:
    from navsense.vehicles import VEHICLES

    if value is None:
        return None
    if not isinstance(value, list) or not value:
        raise _err(src, "vehicles", value, f"is not a non-empty array of {', '.join(VEHICLES)}")
    for i, v in enumerate(value):
        if not isinstance(v, str) or v not in VEHICLES:  # (a list: unhashable, an internal error)
            raise _err(src, f"vehicles[{i}]", v, f"is not one of {', '.join(VEHICLES)}")
    if len(set(value)) != len(value):
        raise _err(src, "vehicles", value, "lists a vehicle twice")
    return tuple(value)


def _agents(src: str, value) -> list[int]:
    if not isinstance(value, list) or not value:
        raise _err(src, "agents", value, "is not a non-empty array of integers >= 0")
    if len(value) > MAX_CAMPAIGN_RUNS:
        raise _err(src, "agents", f"[{len(value)} agents]", f"is more than {MAX_CAMPAIGN_RUNS}")
    for i, v in enumerate(value):
        if not (_is_int(v) and v >= 0):
            raise _err(src, f"agents[{i}]", v, "is not an integer >= 0")
        if v > MAX_AGENT:
            raise _err(src, f"agents[{i}]", v, f"is more than {MAX_AGENT}")
    if len(set(value)) != len(value):
        raise _err(src, "agents", value, "lists an agent twice")
    return list(value)


def _flatten(value: Mapping, prefix: str = "") -> list[tuple[str, object]]:
    """Nested tables as (dotted key, leaf) pairs, in order (TOML dotted keys nest)."""
    out = []
    for key, item in value.items():
        path = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(item, Mapping):
            out.extend(_flatten(item, path))
        else:
            out.append((path, item))
    return out


def _check_key(src: str, where: str, key: str, value) -> None:
    path = key.removesuffix("+")
    if path == "seed":
        raise _err(src, f"{where}.seed", value, "cannot be set here: the seeds come from seeds")
    try:
        lookup(path, SCHEMA)
    except KeyError:
        raise unknown_key_error(f"{src}: {where}", path, value) from None


def _overrides(src: str, where: str, value) -> dict:
    if not isinstance(value, Mapping):
        raise _err(src, where, value, "is not a table/object of configuration keys and values")
    out = {}
    for key, item in _flatten(value):
        _check_key(src, where, key, item)
        if key in out:
            raise _err(src, f"{where}.{key}", item, "sets a key that is already set")
        out[key] = item
    return out


def _label(overrides: Mapping) -> str:
    if not overrides:
        return "defaults"
    return " ".join(f"{k}={json.dumps(v, separators=(',', ':'))}" for k, v in overrides.items())


def _sweep(src: str, value) -> tuple[list[str], list[dict]]:
    if value is None:
        return [], [{"point": 0, "label": _label({}), "overrides": {}}]
    if not isinstance(value, Mapping):
        raise _err(src, "sweep", value, "is not a table/object with grid or points")
    for key, v in value.items():
        if key not in ("grid", "points"):
            raise _unknown(src, "sweep", str(key), v, ("grid", "points"))
    if ("grid" in value) == ("points" in value):
        raise _err(
            src,
            "sweep",
            value,
            "needs exactly one of grid (key -> list of values) or "
            "points (a list of override tables)",
        )
    if "grid" in value:
        grid = value["grid"]
        if not isinstance(grid, Mapping) or not grid:
            raise _err(src, "sweep.grid", grid, "is not a non-empty table of key -> list of values")
        keys, lists = [], []
        for key, item in _flatten(grid):
            if not isinstance(item, list) or not item:
                raise _err(
                    src, f"sweep.grid.{key}", item, "is not a non-empty array of values to sweep"
                )
            _check_key(src, "sweep.grid", key, item)
            keys.append(key)
            lists.append(item)
        size = math.prod(len(item) for item in lists)
        if size > MAX_CAMPAIGN_RUNS:
            raise _err(
                src,
                "sweep.grid",
                f"[{' x '.join(str(len(item)) for item in lists)} points]",
                f"is more than {MAX_CAMPAIGN_RUNS} sweep points",
            )
        combos = itertools.product(*lists)
        points = [dict(zip(keys, combo)) for combo in combos]
    else:
        raw = value["points"]
        if not isinstance(raw, list) or not raw:
            raise _err(src, "sweep.points", raw, "is not a non-empty array of override tables")
        if len(raw) > MAX_CAMPAIGN_RUNS:
            raise _err(
                src, "sweep.points", f"[{len(raw)} points]", f"is more than {MAX_CAMPAIGN_RUNS}"
            )
        points, keys = [], []
        for i, item in enumerate(raw):
            ovr = _overrides(src, f"sweep.points[{i}]", item)
            points.append(ovr)
            keys.extend(k for k in ovr if k not in keys)
    return keys, [{"point": i, "label": _label(p), "overrides": p} for i, p in enumerate(points)]
