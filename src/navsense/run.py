"""One way to prepare a run: the truth, its site, the vehicle and the effective configuration.

``navsense simulate``, the campaigns (:mod:`navsense.campaign.runner`) and the Python API all
call :func:`prepare_run`, then write the run with :meth:`PreparedRun.simulate` (which calls
:func:`navsense.simulate.simulate`)::

    from navsense.run import prepare_run

    run = prepare_run(scenario="acre-loop", overrides={"seed": 7})
    summary = run.simulate("runs/demo", output_format="parquet")

The rules, in this order:

1. **Vehicle**: the one named, else the scenario's, else ``polaris`` (truth logs and tracks).
2. **Configuration** (:func:`navsense.config.load_config`): the defaults < the configuration
   file < the vehicle overlay (the file given, else the vehicle's embedded one) < the override
   layers, each ``(source, {dotted key: value})`` validated in turn, an error naming its source:
   ``command line`` for the options of ``navsense simulate``; a campaign's overrides, sweep
   point and seed.
3. **Truth**, exactly one of:

   - ``scenario``: an embedded scenario's name or a scenario file; its site unless one is given;
   - ``truth``: a truth log (CSV or Parquet), read chunk by chunk when the run is written; the
     site given, else the log's own (its Parquet metadata or CSV sidecar,
     :func:`navsense.truth.io.read_truth_metadata`), else :data:`navsense.site.DEFAULT_SITE`
     (ACRE: the run summary says so in a line); the log's start UTC replaces
     ``gnss.datum.start_utc`` unless a configuration file, an overlay file or an override sets
     it;
   - ``track``: a GPX or CSV track or a waypoint route (:mod:`navsense.truth.tracks`), placed on
     the site given, else on ACRE when it lies on the tile, else on a local site at its first
     point, at the configuration's start UTC and datum; a start time the track records replaces
     ``gnss.datum.start_utc``; turned into truth for the vehicle (``smoothing_m``, ``bank``).
     The run keeps that truth (``truth.parquet``): it exists nowhere else.

   The physics clock (issue 30): a truth log runs at its own rate (its metadata, else its
   rows' spacing; :func:`navsense.truth.io.truth_rate`), and an explicit ``physics.hz`` that
   differs is refused; a scenario's route runs at its own rate (120 Hz unless its waypoint file
   says) unless ``physics.hz`` is set, a track at ``physics.hz``. The configuration's
   ``physics.hz`` is then the truth's rate, and an enabled sensor faster than it is refused
   (:func:`check_rates`).

   ``duration_s`` keeps the first ``duration_s`` seconds of any of them (a closed scenario route
   is repeated to that length, :func:`navsense.scenarios.load_scenario`).
4. **The site's defaults**, each unless a configuration file, an overlay file or an override
   sets the key: on a site with a local georeference the INS odometry uses the UTM zone of the
   site's longitude (``ins.utm_zone``; the defaults' zone 16 is the ACRE tile's; the hemisphere
   follows the site's latitude); outside the area of NAD83(2011) (:mod:`navsense.geo.areas`)
   the INS reports WGS84 (G2139) (``ins.frame``; the GNSS's default is already WGS84), and an
   explicit ``nad83`` frame there is refused (:func:`navsense.simulate.build_models`).
5. **episode.json's source**: ``{"scenario": NAME or FILE}``, ``{"truth": FILE}`` or
   ``{"track": FILE}``, with ``"duration_s"`` when the run was cut; it is how a reader of the
   run finds its truth again (:func:`navsense.runs.stats.find_truth`).

Errors are :class:`~navsense.errors.NavsenseError`: ConfigError (configuration, site, scenario,
vehicle), TruthError (a malformed track; a truth log's own errors come when it is read).
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from navsense.errors import ConfigError

if TYPE_CHECKING:
    from navsense.scenarios import Scenario
    from navsense.simulate import RunSummary
    from navsense.site import Site
    from navsense.truth.states import TruthStates
    from navsense.vehicles import VehicleProfile

__all__ = ["PreparedRun", "prepare_run", "Layers"]

#: Override layers: ``[(source named in errors, {dotted key: value}), ...]``, applied in order.
Layers = Sequence[tuple[str, Mapping[str, Any]]]

_DEFAULT_SCENARIO = "acre-loop"
_ZONE_KEY = "ins.utm_zone"
_FRAME_KEY = "ins.frame"
_START_KEY = "gnss.datum.start_utc"
_RATE_KEY = "physics.hz"


@dataclass(frozen=True)
class PreparedRun:
    """Everything :func:`navsense.simulate.simulate` needs for one run (:func:`prepare_run`).

    ``cfg`` the effective configuration (plain dict, as episode.json records it); ``vehicle`` a
    VehicleProfile; ``site`` a Site or None (open sky, no georeference); ``source`` episode.json's
    description of the truth; ``label`` the default name of the run directory; ``held_truth``
    the whole truth of a track, ``scenario`` the scenario whose :attr:`truth` is built when
    first asked for (a run over a route repeated beyond one run builds its chunks as it goes:
    :meth:`truth_chunks`), else ``truth_path`` the truth log streamed from disk; ``duration_s``
    the cut (None: the whole source);
    ``save_truth`` True when the run must keep its truth (a track); ``notes`` lines for the
    run summary (a truth log run at ACRE for want of a site).
    """

    cfg: dict
    vehicle: VehicleProfile
    site: Site | None
    source: dict
    label: str
    held_truth: TruthStates | None = None
    truth_path: Path | None = None
    duration_s: float | None = None
    save_truth: bool = False
    notes: tuple[str, ...] = ()
    scenario: Scenario | None = None

    @property
    def truth(self) -> TruthStates | None:
        """The whole truth (a track's, or a scenario's, built on first use), else None (a truth
        log)."""
        if self.held_truth is not None:
            return self.held_truth
        return None if self.scenario is None else self.scenario.truth

    @property
    def total_steps(self) -> int | None:
        """Physics steps of the run when known before it is read (None: a truth log)."""
        if self.scenario is not None:
            return self.scenario.truth_rows
        return None if self.held_truth is None else len(self.held_truth)

    def truth_chunks(self, chunk_steps: int) -> TruthStates | Iterator[TruthStates]:
        """The truth as :func:`navsense.simulate.simulate` takes it: the whole TruthStates, a
        repeated route's chunks made as they are asked for, or the truth log's chunks of
        ``chunk_steps`` steps (read when iterated)."""
        if self.held_truth is not None:
            return self.held_truth
        if self.scenario is not None:
            return self.scenario.truth_chunks(chunk_steps)
        from navsense.truth.io import iter_truth_chunks

        assert self.truth_path is not None  # prepare_run sets one of the two
        chunks = iter_truth_chunks(self.truth_path, chunk_steps, float(self.cfg["physics"]["hz"]))
        return chunks if self.duration_s is None else _first_seconds(chunks, self.duration_s)

    def simulate(self, out_dir: str | os.PathLike, **options) -> RunSummary:
        """Write the run directory ``out_dir`` with :func:`navsense.simulate.simulate`;
        ``options`` are its keyword options (``agent``, ``chunk_steps``, ``output_format``,
        ``workers``, ``progress``, ``save_truth``, ``announce`` ...); the summary carries the
        run's :attr:`notes`."""
        from navsense.simulate import DEFAULT_CHUNK_STEPS, simulate

        chunk_steps = options.pop("chunk_steps", DEFAULT_CHUNK_STEPS)
        save_truth = options.pop("save_truth", False) or self.save_truth
        summary = simulate(
            self.truth_chunks(chunk_steps),
            self.cfg,
            self.vehicle,
            self.site,
            Path(out_dir),
            source=self.source,
            chunk_steps=chunk_steps,
            total_steps=self.total_steps,
            save_truth=save_truth,
            notes=self.notes,
            **options,
        )
        warn_windows_past_end(self.cfg, summary.end_s)
        return summary


def _truth_log_run(
    truth, cfg: dict, profile, chosen_site, given_layers, duration_s, extra
) -> PreparedRun:
    """A run over a truth log: its site (given, the log's own, else the ACRE site with a note)
    and its start time (the log's, unless a layer sets gnss.datum.start_utc)."""
    from navsense.config import apply_overrides
    from navsense.site import DEFAULT_SITE, embedded_site
    from navsense.truth.io import read_truth_metadata, truth_rate

    meta = read_truth_metadata(truth)
    rate, how = truth_rate(truth)
    # a log of fewer than two readable times ("default"): its reader's own error comes first
    rate_set = _RATE_KEY in _keys_set(*given_layers) and how != "default"
    if rate_set and float(cfg["physics"]["hz"]) != rate:
        source = "metadata" if how == "metadata" else "rows' spacing"
        raise ConfigError(
            f"physics.hz = {cfg['physics']['hz']:.12g}: the truth log {truth} runs at "
            f"{rate:.12g} Hz "
            f"(its {source}); a truth log runs at its own rate (leave physics.hz out, or "
            "resample the track with navsense truth --rate-hz)"
        )
    cfg = _with_rate(cfg, rate, f"{truth} (its rate, from its {how})")
    if duration_s is not None:
        check_duration_steps(duration_s, rate)
    notes: tuple[str, ...] = ()
    log_site = chosen_site if chosen_site is not None else meta.site
    if chosen_site is None and log_site is not None and log_site.georeference is None:
        _refuse_ins_without_georeference(cfg, truth)
    if log_site is None:
        log_site = embedded_site(DEFAULT_SITE)
        notes = (
            f"navsense: {truth} names no site: run at the ACRE site (give --site NAME|FILE, "
            "or write the log with its site: navsense truth, simulate --save-truth)",
        )
    start = meta.start_utc
    if start and start != cfg["gnss"]["datum"]["start_utc"]:
        if _START_KEY not in _keys_set(*given_layers):
            cfg = apply_overrides(cfg, {_START_KEY: start}, source=str(meta.where))
    return PreparedRun(
        cfg=cfg,
        vehicle=profile,
        site=log_site,
        source={"truth": str(truth), **extra},
        label=Path(truth).stem,
        truth_path=Path(truth),
        duration_s=duration_s,
        notes=notes,
    )


def _refuse_ins_without_georeference(cfg: dict, truth) -> None:
    """ConfigError naming the truth log when the site its metadata carries has no georeference
    and the INS is on (it reports UTM and geodetic positions): the INS's own refusal would name
    the site alone, not the file it came from."""
    from navsense.truth.logfiles import SITE_KEY

    if cfg["ins"]["enabled"]:
        raise ConfigError(
            f"{truth}: the site of its metadata ({SITE_KEY}) has no georeference; the INS "
            "(ins.enabled) reports UTM and geodetic positions and needs one: give the run a "
            "site with one (--site NAME|FILE), or turn the INS off (--no-ins)"
        )


def _track_run(
    track, cfg: dict, profile, chosen_site, smoothing_m, bank: str, duration_s, extra
) -> PreparedRun:
    """A run over a track: placed on its site, planned into truth at the physics rate (its
    start time the track's when it records one), cut to ``duration_s``."""
    from navsense.config import apply_overrides
    from navsense.truth.track_report import track_lines
    from navsense.truth.tracks import load_track, plan_track

    datum = cfg["gnss"]["datum"]
    placed = load_track(track, site=chosen_site, start_utc=datum["start_utc"], datum=datum)
    if placed.start_utc and placed.start_utc != datum["start_utc"]:
        cfg = apply_overrides(cfg, {"gnss.datum.start_utc": placed.start_utc}, source=str(track))
    traj = plan_track(placed, profile, smoothing_m=smoothing_m, bank=bank)
    states = traj.sample(float(cfg["physics"]["hz"]))
    track_notes = tuple(track_lines(placed, traj, len(states), states.rate_hz))
    if duration_s is not None:
        check_duration_steps(duration_s, states.rate_hz)
        states = states.slice(0, min(len(states), _steps_of(duration_s, states.rate_hz)))
    return PreparedRun(
        cfg=cfg,
        vehicle=profile,
        site=placed.site,
        source={"track": str(track), **extra},
        label=Path(track).stem,
        held_truth=states,
        duration_s=duration_s,
        save_truth=True,
        notes=track_notes,
    )


def prepare_run(
    *,
    scenario: str | None = None,
    truth: str | os.PathLike | None = None,
    track: str | os.PathLike | None = None,
    site=None,
    vehicle: str | VehicleProfile | None = None,
    config: str | os.PathLike | None = None,
    overlay: str | os.PathLike | None = None,
    overrides: Mapping[str, Any] | Layers = (),
    duration_s: float | None = None,
    smoothing_m: float | None = None,
    bank: str = "none",
    buildings: str | os.PathLike | None = None,
) -> PreparedRun:
    """Prepare one run (module docstring): at most one of ``scenario``, ``truth``, ``track``
    (none: the acre-loop scenario).

    ``site``: a Site, an embedded site's name, a site JSON file or ``{"path": FILE}``
    (:func:`navsense.site.resolve_site`). ``vehicle``: a name or a VehicleProfile.
    ``overrides``: ``{dotted key: value}`` (errors name the ``command line``) or override layers
    ``[(source, {dotted key: value}), ...]``. ``duration_s``: keep the first seconds only.
    ``smoothing_m`` and ``bank``: how a track becomes truth
    (:func:`navsense.truth.tracks.build_truth_from_track`; ``smoothing_m`` None: chosen from
    the data). ``buildings``: a map file (.osm, .osm.pbf, .geojson) whose buildings near the
    truth's path join the site as footprints (:func:`navsense.mapdata.site_with_buildings`).
    """
    from navsense.config import apply_overrides
    from navsense.vehicles import VehicleProfile, vehicle_profile

    for key, value, what in (
        ("scenario", scenario, "a name; give an embedded scenario or a scenario file"),
        ("truth", truth, "a file name; give a truth log (.csv, .parquet)"),
        ("track", track, "a file name; give a GPS track (.gpx, .csv) or a waypoint route (.json)"),
    ):  # an empty name was taken as none given: the default scenario ran, exit 0
        if value is not None and not os.fspath(value):
            raise ConfigError(f"{key} = '' is not {what}")
    given = [k for k, v in (("scenario", scenario), ("truth", truth), ("track", track)) if v]
    if len(given) > 1:
        raise ConfigError(f"a run has one truth source; got {' and '.join(given)}")
    if duration_s is not None and not (
        math.isfinite(duration_s) and 0 < duration_s <= MAX_DURATION_S
    ):
        raise ConfigError(
            f"duration_s = {duration_s!r} must be a finite number of seconds > 0 and at most "
            f"{MAX_DURATION_S:g} (a run directory records no longer cut)"
        )
    layers = _layers(overrides)
    chosen_site = _resolve_site_of(site, track)

    scen = None
    if not (truth or track):
        from navsense.scenarios import load_scenario

        scen = load_scenario(scenario or _DEFAULT_SCENARIO, duration_s=duration_s)
    if isinstance(vehicle, VehicleProfile):
        profile = vehicle
    else:
        profile = vehicle_profile(vehicle or (scen.vehicle.name if scen else "polaris"))

    cfg = _effective_config(config, overlay, profile.name, layers)

    extra: dict[str, Any] = {} if duration_s is None else {"duration_s": duration_s}
    if scen is not None:
        ref = scenario or _DEFAULT_SCENARIO
        if _RATE_KEY in _keys_set(config, overlay, layers):  # resampled at physics.hz
            scen = scen.at_rate(cfg["physics"]["hz"])
        cfg = _with_rate(cfg, scen.route.rate_hz, f"{ref} (its route's rate)")
        if duration_s is not None:
            check_duration_steps(duration_s, scen.route.rate_hz)
        run = PreparedRun(
            cfg=cfg,
            vehicle=profile,
            site=chosen_site if chosen_site is not None else scen.site,
            source={"scenario": ref, **extra},
            label=scen.name,
            scenario=scen,
            duration_s=duration_s,
        )
        _ = scen.truth_rows  # a duration the route cannot take is refused here, before the run
    elif truth:
        run = _truth_log_run(
            truth, cfg, profile, chosen_site, (config, overlay, layers), duration_s, extra
        )
    else:
        assert track is not None
        run = _track_run(track, cfg, profile, chosen_site, smoothing_m, bank, duration_s, extra)
    if buildings is not None:
        run = _with_buildings(run, buildings)
    defaults = _site_defaults(run.site, run.cfg)
    if defaults:
        explicit = _keys_set(config, overlay, layers)
        defaults = {k: v for k, v in defaults.items() if k not in explicit}
        if defaults:
            cfg = apply_overrides(run.cfg, defaults, source="the site's defaults")
            run = dataclasses.replace(run, cfg=cfg)
    check_rates(run.cfg, _rate_source(config, overlay, layers))
    return run


def _effective_config(config, overlay, vehicle: str, layers: Layers) -> dict:
    """The validated configuration: the default layers, ``config``, ``overlay`` and the
    vehicle's overlay, then the override ``layers``; a preset an option names (config.load
    preset_layer) puts its keys under every layer, so the configuration is loaded again with it.
    The checks of keys that different layers may set (a section's final checks: the second
    antenna against the first, HDT against gnss.heading) run once, on the result, naming the
    last layer that set the key (config.load.check_effective): a file listing HDT with the
    heading turned on by an option passes, an option's second antenna 3 m from the first does
    not."""
    from navsense.config import apply_overrides, load_config
    from navsense.config.load import check_effective, preset_layer

    later = [k for _, lay in layers for k in lay]
    cfg = load_config(config, overlay, vehicle=vehicle, later_keys=later, final_checks=False)
    for label, layer in layers:
        cfg = apply_overrides(cfg, layer, source=label)
    presets = preset_layer(cfg)
    if presets:  # a preset an option names: its keys under every layer (config.load)
        cfg = load_config(
            config, overlay, vehicle=vehicle, later_keys=later, presets=presets, final_checks=False
        )
        for label, layer in layers:
            cfg = apply_overrides(cfg, layer, source=label)
    check_effective(cfg, config, overlay, vehicle, layers)
    return cfg


def check_rates(cfg: Mapping, source=None) -> None:
    """ConfigError (one line) when an enabled sensor's rate is above the physics rate
    (navsense.config.physics.rates_above_physics: the Due rule samples at most once a step);
    ``source(key)`` names where the rate was set (None: no name)."""
    from navsense.config.physics import advice, rates_above_physics

    above = rates_above_physics(cfg)
    if above:
        where = source(above[0].split(" ", 1)[0]) if source is not None else None
        raise ConfigError(
            f"{where + ': ' if where else ''}{above[0]}; {advice(above[0])} "
            "(--physics-hz, or a truth log at a higher rate)"
        )


def _rate_source(config, overlay, layers):
    """``key -> the last layer that sets it`` (an override's source, the overlay or
    configuration file), None when only the defaults do."""

    def source(key: str) -> str | None:
        for label, layer in reversed(list(layers)):
            if key in _keys_set(None, None, [(label, layer)]):
                return label
        for path in (overlay, config):
            if path is not None and key in _keys_set(path, None, []):
                return str(path)
        return None

    return source


def _with_rate(cfg: dict, rate_hz: float, source: str) -> dict:
    """``cfg`` with physics.hz = ``rate_hz`` (the truth's own rate), checked as the key is: a
    rate out of physics.hz's range is one line naming ``source``."""
    if float(cfg["physics"]["hz"]) == float(rate_hz):
        return cfg
    from navsense.config import apply_overrides

    # a whole rate as an integer (the key's form), not one beyond 2**53 (a sidecar's 1e300 was
    # printed as its 301 digits in the line that refused it)
    whole = float(rate_hz).is_integer() and abs(rate_hz) < 2**53
    value = int(rate_hz) if whole else float(rate_hz)
    return apply_overrides(cfg, {_RATE_KEY: value}, source=source)


def _resolve_site_of(site, track) -> Site | None:
    """:func:`navsense.site.resolve_site` of ``site``; for a track, an unknown site name adds
    that without ``--site`` the track runs where it was recorded (issue 32: ``--site munich``
    answered only "known: acre")."""
    from navsense.site import resolve_site

    try:
        return resolve_site(site)
    except ConfigError as exc:
        if track and site is not None and not Path(str(site)).suffix:
            raise ConfigError(
                f"{exc}; without --site a track runs where it was recorded (a local site at "
                "its first point)"
            ) from None
        raise


def windows_past_end(cfg: Mapping, end_s: float) -> list[str]:
    """The time windows of the configuration (every key of kind ``intervals``: the correction
    outages, the signal outages, ...) that begin at or after ``end_s``, the run's last time:
    one text a key, ``KEY: [a, b) s begins after the run's end (T s)``. Such a window changes
    nothing; a window that begins within the run and ends after it is cut there, as meant
    ("from 100 s on"), and is not named. Ruling (issue 32): an option that reaches past the
    run is almost always a mistake (the run is shorter than the user thought), so it is said."""
    from navsense.config.schema import describe_keys

    out = []
    for row in describe_keys():
        if row["type"] != "array of [start, end) pairs":
            continue
        value: Any = cfg
        for part in row["key"].split("."):
            value = value.get(part) if isinstance(value, Mapping) else None
        late = [w for w in value or () if float(w[0]) >= end_s]
        if late:
            shown = ", ".join(f"[{w[0]:g}, {w[1]:g})" for w in late[:3])
            more = f" and {len(late) - 3} more" if len(late) > 3 else ""
            verb = "s" if len(late) == 1 else ""
            out.append(
                f"{row['key']}: {shown}{more} s begin{verb} after the run's end ({end_s:.1f} s) "
                f"and change{verb} nothing"
            )
    return out


def warn_windows_past_end(cfg: Mapping, end_s: float) -> None:
    """One NavsenseWarning (one line) for each key of :func:`windows_past_end`."""
    import warnings

    from navsense.errors import NavsenseWarning

    for text in windows_past_end(cfg, end_s):
        warnings.warn(text, NavsenseWarning, stacklevel=2)


def _with_buildings(run: PreparedRun, buildings: str | os.PathLike) -> PreparedRun:
    """The run with the map file's buildings near its path on its site (issue 29 item 3)."""
    import numpy as np

    from navsense.mapdata import site_with_buildings

    if run.truth is not None:
        xy = run.truth.p_m[:, :2]
    else:  # a truth log: its positions, read once in chunks (about a point a second)
        from navsense.truth.io import iter_truth_chunks

        assert run.truth_path is not None
        parts = [c.p_m[::100, :2] for c in iter_truth_chunks(run.truth_path, 100_000)]
        xy = np.concatenate(parts) if parts else np.zeros((0, 2))
    site = site_with_buildings(
        run.site, buildings, start_utc=run.cfg["gnss"]["datum"]["start_utc"], path_xy_m=xy
    )
    return dataclasses.replace(run, site=site)


def _site_defaults(site, cfg: Mapping) -> dict[str, Any]:
    """The keys a site sets when the user does not (module docstring, rule 4)."""
    out: dict[str, Any] = {}
    zone = _local_zone(site)
    if zone is not None and zone != cfg["ins"]["utm_zone"]:
        out[_ZONE_KEY] = zone
    geo = None if site is None else site.georeference
    if geo and geo.get("kind") == "local" and cfg["ins"]["frame"] == "nad83":
        from navsense.geo.areas import in_nad83_area

        if not in_nad83_area(geo["lat_deg"], geo["lon_deg"]):
            out[_FRAME_KEY] = "wgs84_g2139"
    return out


def _layers(overrides: Mapping[str, Any] | Layers) -> list[tuple[str, Mapping[str, Any]]]:
    from navsense.config.load import COMMAND_LINE

    if isinstance(overrides, Mapping):
        return [(COMMAND_LINE, overrides)] if overrides else []
    return [(str(label), layer) for label, layer in overrides]


def _keys_set(config, overlay, layers) -> set[str]:
    """Dotted keys that the configuration file, the overlay file or an override layer sets (a
    user's explicit choice, which a site's default does not replace)."""
    from navsense.config import read_config_file

    keys: set[str] = set()

    def walk(node: Mapping, prefix: str = "") -> None:
        for k, v in node.items():
            if isinstance(v, Mapping):
                walk(v, f"{prefix}{k}.")
            else:
                keys.add(f"{prefix}{k}")

    for path in (config, overlay):
        if path is not None:
            walk(read_config_file(path))
    for _, layer in layers:
        for key, value in layer.items():
            key = key.removesuffix("+")
            if isinstance(value, Mapping):
                walk(value, f"{key}.")
            else:
                keys.add(key)
    return keys


def _local_zone(site) -> int | None:
    """The UTM zone of a site with a local georeference (None for ACRE or no georeference)."""
    geo = None if site is None else site.georeference
    if not geo or geo.get("kind") != "local":
        return None
    from navsense.geo.utm import zone_of

    return int(zone_of(geo["lon_deg"]))


#: The longest cut of a truth source, s: episode.json's ``source.duration_s`` is read back
#: within (0, 1e9] (navsense.runs.episode_check); a run cut at 4294967297 s wrote a run
#: directory that report and export refused, and 1e308 s overflowed the count of steps.
MAX_DURATION_S = 1e9


def _steps_of(duration_s: float, rate_hz: float) -> int:
    """Physics steps from t = 0 to ``duration_s`` included."""
    return int(round(duration_s * rate_hz)) + 1


def check_duration_steps(duration_s: float, rate_hz: float) -> None:
    """A cut that keeps fewer physics steps than a truth log must have is refused: its run had
    no IMU row, and report called the run's own empty imu.jsonl unreadable."""
    from navsense.truth.io import MIN_TRUTH_ROWS

    steps = _steps_of(duration_s, rate_hz)
    if steps < MIN_TRUTH_ROWS:
        raise ConfigError(
            f"duration_s = {duration_s!r} keeps {steps} physics step(s) at {rate_hz:g} Hz; a "
            f"run needs at least {MIN_TRUTH_ROWS} (duration_s >= "
            f"{(MIN_TRUTH_ROWS - 1) / rate_hz:.4g} s)"
        )


def _first_seconds(chunks: Iterator[TruthStates], duration_s: float) -> Iterator[TruthStates]:
    """The chunks of a truth log up to its first ``duration_s`` seconds."""
    left = None
    for chunk in chunks:
        if left is None:
            left = _steps_of(duration_s, chunk.rate_hz)
        if len(chunk) >= left:
            yield chunk.slice(0, left)
            return
        left -= len(chunk)
        yield chunk
