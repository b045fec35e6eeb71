"""A campaign's sources and files (navsense.campaign.spec's docstring, "sources"): each scenario,
truth log or track checked, resolved against the campaign file's folder and hashed with its site
(:func:`sha256_of`: what decides a run's output), and the messages every check of a campaign
file gives (``<file>: <key> = <value> <complaint>``).
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import os
from collections.abc import Mapping
from pathlib import Path

from navsense.config.schema import format_value
from navsense.errors import ConfigError, TruthError
from navsense.jsonfile import is_finite
from navsense.truth.waypoints import check_built_steps

__all__ = ["SOURCE_KEYS", "TRACK_SUFFIXES", "sha256_of", "check_run_clock"]


SOURCE_KEYS = {
    "scenario": ("scenario", "duration_s", "site"),
    "truth": ("truth", "site", "duration_s"),
    "track": ("track", "site", "duration_s", "smoothing_m", "bank"),
}

TRACK_SUFFIXES = (".gpx", ".csv", ".json")

_READ_BLOCK_BYTES = 1 << 20


# ------------------------------------------------------------------------------------ messages
def _err(source: str, path: str, value, complaint: str) -> ConfigError:
    return ConfigError(f"{source}: {path} = {format_value(value)} {complaint}")


def _unknown(source: str, path: str, key: str, value, allowed) -> ConfigError:
    near = difflib.get_close_matches(key, list(allowed), n=1, cutoff=0.6)
    hint = f"; did you mean {near[0]}?" if near else f"; allowed: {', '.join(allowed)}"
    where = f"{path}.{key}" if path else key
    return _err(source, where, value, "is not a known key" + hint)


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and is_finite(v)


def sha256_of(path: Path) -> str:
    """SHA-256 of a file's bytes, hex."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(_READ_BLOCK_BYTES):
            h.update(block)
    return h.hexdigest()


def _sources(src: str, base: Path, value, duration) -> list[dict]:
    if not isinstance(value, list) or not value:
        raise _err(
            src,
            "sources",
            value,
            "is not a non-empty array of sources "
            "({scenario = NAME}, {truth = FILE} or {track = FILE})",
        )
    out = []
    labels: dict[str, int] = {}
    for i, item in enumerate(value):
        where = f"sources[{i}]"
        if not isinstance(item, Mapping):
            raise _err(src, where, item, "is not a table/object")
        kinds = [k for k in SOURCE_KEYS if k in item]
        if len(kinds) != 1:
            raise _err(
                src,
                where,
                item,
                "needs exactly one of scenario = NAME, truth = FILE or track = FILE",
            )
        kind = kinds[0]
        for key, v in item.items():
            if key not in SOURCE_KEYS[kind]:
                raise _unknown(src, where, str(key), v, SOURCE_KEYS[kind])
        ref = item[kind]
        if not isinstance(ref, str) or not ref:
            raise _err(src, f"{where}.{kind}", ref, "is not a non-empty string")
        if kind == "scenario":
            run_source, label, vehicle = _scenario_source(src, base, where, item, ref, duration)
        elif kind == "track":
            run_source, label = _track_source(src, base, where, item, ref, duration)
            vehicle = "polaris"
        else:
            run_source, label = _truth_source(src, base, where, item, ref, duration)
            vehicle = "polaris"
        site = item.get("site")
        if site is not None:
            run_source["site"] = _site_ref(src, base, f"{where}.site", site)
        k = labels.get(label, 0)
        labels[label] = k + 1
        if k:
            label = f"{label}#{k + 1}"
        out.append({"kind": kind, "label": label, "vehicle": vehicle, "run_source": run_source})
    return out


def _scenario_source(
    src: str, base: Path, where: str, item: Mapping, ref: str, duration
) -> tuple[dict, str, str]:
    """A scenario source (embedded by name, or a .json file): its run source, label, vehicle."""
    from navsense.scenarios import load_scenario, scenario_names

    run_source: dict = {}
    d = item.get("duration_s", duration)
    if d is not None:
        _check_duration(src, f"{where}.duration_s", d)
    if ref.endswith(".json"):
        p = _resolved(src, base, f"{where}.scenario", ref)
        if not p.is_file():
            raise _err(src, f"{where}.scenario", ref, f"is not a scenario file ({_absent(p)})")
        run_source["scenario"] = str(p)
        run_source["sha256"] = sha256_of(p)
        label = p.name[: -len(".scenario.json")] if p.name.endswith(".scenario.json") else p.stem
    else:
        if ref not in scenario_names():
            raise _err(
                src,
                f"{where}.scenario",
                ref,
                "is not an embedded scenario; known: " + ", ".join(scenario_names()),
            )
        run_source["scenario"] = ref
        label = ref
    try:
        scenario = load_scenario(run_source["scenario"])
    except ConfigError as exc:
        raise ConfigError(f"{src}: {where}.scenario: {exc}") from None
    if d is not None:
        rate = scenario.route.rate_hz
        try:  # a run would fail on it: longer than 24 h, or than an open route
            if scenario.route.closed:  # (no trajectory built for a closed one)
                check_built_steps(scenario.route.source, round(d * rate), rate)
            else:
                scenario.trajectory.rows(rate, d)
        except TruthError as exc:
            raise ConfigError(f"{src}: {where}.duration_s: {exc}") from None
        run_source["duration_s"] = d
        label = f"{label}[{d:g}s]"
    return run_source, label, scenario.vehicle.name


def _truth_source(
    src: str, base: Path, where: str, item: Mapping, ref: str, duration
) -> tuple[dict, str]:
    """A truth-log source (.csv or .parquet, with a CSV's sidecar): its run source and label."""
    from navsense.truth.io import truth_sidecar

    run_source: dict = {}
    p = _resolved(src, base, f"{where}.truth", ref)
    if p.suffix.lower() not in (".csv", ".parquet", ".pq"):
        raise _err(src, f"{where}.truth", ref, "is not a truth log (.csv or .parquet)")
    if not p.is_file():
        raise _err(src, f"{where}.truth", ref, f"is not a file ({_absent(p)})")
    run_source["truth"] = str(p)
    run_source["sha256"] = sha256_of(p)
    sidecar = truth_sidecar(p) if p.suffix.lower() == ".csv" else None
    if sidecar is not None and sidecar.is_file():  # the log's site and start time
        run_source["sidecar"] = {"path": str(sidecar), "sha256": sha256_of(sidecar)}
    label = p.name
    d = item.get("duration_s", duration)
    if d is not None:
        _check_duration(src, f"{where}.duration_s", d)
        run_source["duration_s"] = d
        label = f"{label}[{d:g}s]"
    return run_source, label


def _track_source(
    src: str, base: Path, where: str, item: Mapping, ref: str, duration
) -> tuple[dict, str]:
    """The run source of a track (path, SHA-256, options) and its label."""
    from navsense.truth.track_kinematics import SMOOTHING_RANGE_M
    from navsense.truth.tracks import BANK_MODES

    p = _resolved(src, base, f"{where}.track", ref)
    if p.suffix.lower() not in TRACK_SUFFIXES:
        raise _err(
            src, f"{where}.track", ref, "is not a track (.gpx, .csv) or a waypoint route (.json)"
        )
    if not p.is_file():
        raise _err(src, f"{where}.track", ref, f"is not a file ({_absent(p)})")
    run_source: dict = {"track": str(p), "sha256": sha256_of(p)}
    label = p.name
    smoothing = item.get("smoothing_m")
    if smoothing is not None:
        if not (_is_number(smoothing) and smoothing >= 0):
            raise _err(src, f"{where}.smoothing_m", smoothing, "is not a number of metres >= 0")
        lo, hi = SMOOTHING_RANGE_M  # as the run checks it (every run of the source failed)
        if not (smoothing == 0 or lo <= smoothing <= hi):
            raise _err(
                src,
                f"{where}.smoothing_m",
                smoothing,
                f"is not 0 (through every point) or {lo:g} .. {hi:g} m (the recording's noise "
                "per axis); leave it out to choose it from the data",
            )
        run_source["smoothing_m"] = smoothing
    bank = item.get("bank", "none")
    if not isinstance(bank, str) or bank not in BANK_MODES:
        raise _err(src, f"{where}.bank", bank, f"is not one of {', '.join(BANK_MODES)}")
    if p.suffix.lower() == ".json" and (smoothing not in (None, 0) or bank != "none"):
        raise _err(  # as the run refuses it (every run of the source failed)
            src,
            f"{where}.{'smoothing_m' if smoothing not in (None, 0) else 'bank'}",
            smoothing if smoothing not in (None, 0) else bank,
            "applies to recorded tracks (GPX, CSV); a waypoint route is planned, not smoothed "
            "or banked",
        )
    if bank != "none":
        run_source["bank"] = bank
    d = item.get("duration_s", duration)
    if d is not None:
        _check_duration(src, f"{where}.duration_s", d)
        run_source["duration_s"] = d
        label = f"{label}[{d:g}s]"
    return run_source, label


def _site_ref(src: str, base: Path, where: str, site) -> dict | str:
    from navsense.site import embedded_sites

    if not isinstance(site, str) or not site:
        raise _err(src, where, site, "is not a site name or a site JSON file")
    if site.endswith(".json"):
        p = _resolved(src, base, where, site)
        if not p.is_file():
            raise _err(src, where, site, f"is not a site file ({_absent(p)})")
        return {"path": str(p), "sha256": sha256_of(p)}
    if site not in embedded_sites():
        raise _err(
            src,
            where,
            site,
            "is not an embedded site; known: "
            + ", ".join(embedded_sites())
            + " (or give a site JSON file)",
        )
    return site


def _check_duration(src: str, key: str, value) -> None:
    """A cut of the sources: seconds > 0. Whether it keeps the physics steps a run needs
    depends on the run's physics clock: :func:`check_run_clock`, once the runs' configurations
    are built."""
    from navsense.run import MAX_DURATION_S

    if not (_is_number(value) and value > 0):
        raise _err(src, key, value, "is not a number of seconds > 0")
    if value > MAX_DURATION_S:  # (1e308 overflowed the count of steps: an internal error)
        raise _err(src, key, value, f"is more than {MAX_DURATION_S:g} s")


def check_run_clock(src: str, where: str, run: Mapping, cfg: Mapping, rate_set: bool) -> None:
    """A run's cut keeps the physics steps a run needs (every run of the campaign failed on
    0.001 s; :func:`navsense.run.check_duration_steps`), and no enabled sensor's rate is above
    the physics rate (:func:`navsense.config.physics.rates_above_physics`; every run failed on
    ``physics.hz = 50`` with the default ``imu.hz = 120``; and on a truth log at another rate
    than a ``physics.hz`` a layer sets), on the run's own physics clock, as
    navsense.run.prepare_run steps it (issue 30 item 1): a truth log at its own rate, a scenario
    at its route's rate unless ``physics.hz`` is set (``rate_set``: a layer of the run sets it),
    a track at ``physics.hz`` of the run's configuration ``cfg``. ``where`` names the source
    (``sources[i]``)."""
    from navsense.config.physics import advice, rates_above_physics
    from navsense.run import check_duration_steps

    source = run["source"]
    if "truth" in source:
        rate, how = _truth_rate(source["truth"])
        if rate_set and how != "default" and float(cfg["physics"]["hz"]) != rate:  # as run.py
            raise ConfigError(
                f"{src}: {where}: physics.hz = {cfg['physics']['hz']:.12g}: the truth log "
                f"{source['truth']} runs at {rate:.12g} Hz; a truth log runs at its own rate "
                "(leave physics.hz out of the campaign's layers, or resample the track with "
                "navsense truth --rate-hz)"
            )
    elif "scenario" in source and not rate_set:
        rate = _route_rate(source["scenario"])
    else:
        rate = float(cfg["physics"]["hz"])
    duration = source.get("duration_s")
    if duration is not None:
        try:
            check_duration_steps(duration, rate)
        except ConfigError as exc:
            raise ConfigError(f"{src}: {where}.duration_s: {exc}") from None
    above = rates_above_physics(cfg, rate)
    if above:
        raise ConfigError(
            f"{src}: {where}: {above[0]}; {advice(above[0])} in the campaign's overrides "
            "(physics.hz)"
        )


@functools.cache
def _truth_rate(path: str) -> tuple[float, str]:
    from navsense.truth.io import truth_rate

    rate, how = truth_rate(path)
    return float(rate), how


@functools.cache
def _route_rate(ref: str) -> float:
    from navsense.scenarios import load_scenario

    return float(load_scenario(ref).route.rate_hz)


def _resolved(src: str, base: Path, key: str, ref: str) -> Path:
    """``base / ref`` made absolute; a path no file system holds (a NUL character: Python's
    ValueError) is refused naming the key."""
    if "\0" in ref:
        raise _err(src, key, ref, "is not a file path (it holds a NUL character)")
    return (base / ref).resolve()


def _absent(p: Path) -> str:
    """Why ``p`` (resolved) is no file to read: not there, a directory or no regular file."""
    if not os.path.lexists(p):
        return f"{p} not found"
    return f"{p} is a directory" if p.is_dir() else f"{p} is not a regular file"


def _file_ref(src: str, base: Path, key: str, value) -> dict | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise _err(src, key, value, "is not a file path")
    p = _resolved(src, base, key, value)
    if not p.is_file():
        raise _err(src, key, value, f"is not a file ({_absent(p)})")
    return {"path": str(p), "sha256": sha256_of(p)}
