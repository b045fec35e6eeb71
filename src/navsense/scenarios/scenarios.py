"""Embedded scenarios: a site, a vehicle and a waypoint route, as data files in this package.

A scenario file ``<name>.scenario.json`` (in ``navsense/scenarios/``, or anywhere when loaded
by path)::

    {"name": "acre-loop",
     "description": "...",
     "site": "acre",                        # an embedded site, or a site JSON path (relative to
                                            #   the scenario file)
     "vehicle": "polaris",                  # polaris | maxxum
     "waypoints": "acre-loop.waypoints.json"}   # waypoint JSON, relative to the scenario file

The truth log is built from the waypoints (navsense.truth.waypoints) at the route's rate when
first asked for (``Scenario.truth``) and kept. ``duration_s`` cuts the route or repeats a closed
one seamlessly (at rest, where it started): ``load_scenario("acre-loop", duration_s=3600)`` is
the loop repeated for an hour.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path

from navsense.errors import ConfigError
from navsense.jsonfile import parse_json
from navsense.site import Site, embedded_site, resolve_site
from navsense.truth.states import TruthStates
from navsense.truth.waypoints import Trajectory, WaypointRoute, route_from_json
from navsense.vehicles import VehicleProfile, vehicle_profile

__all__ = ["Scenario", "list_scenarios", "load_scenario", "scenario_names", "DEFAULT_SCENARIO"]

DEFAULT_SCENARIO = "acre-loop"
_SUFFIX = ".scenario.json"
_KEYS = ("name", "description", "site", "vehicle", "waypoints")


@dataclass(frozen=True)
class Scenario:
    """A scenario: ``site``, ``vehicle`` and the waypoint ``route``; ``truth`` built on first use."""

    name: str
    description: str
    site: Site
    vehicle: VehicleProfile
    route: WaypointRoute
    duration_s: float | None = None  # None: one run of the route

    @cached_property
    def trajectory(self) -> Trajectory:
        """The continuous-time trajectory of the route (evaluate it at any time)."""
        return self.route.plan(self.vehicle)

    @cached_property
    def truth(self) -> TruthStates:
        """The truth log at the route's rate (72 000 steps for acre-loop, built in ~0.1 s)."""
        return self.trajectory.sample(self.route.rate_hz, duration_s=self.duration_s)

    @property
    def truth_rows(self) -> int:
        """Rows of :attr:`truth` (known without building it)."""
        return self.trajectory.rows(self.route.rate_hz, self.duration_s)

    def truth_chunks(self, chunk_steps: int) -> TruthStates | Iterator[TruthStates]:
        """The truth as :func:`navsense.simulate.simulate` takes it: :attr:`truth` whole, unless
        the route is repeated beyond one run and the whole is not built yet: then its chunks of
        ``chunk_steps`` rows, each made from one run of the route when asked for (the same
        values; a day of acre-loop is 1.3 GB whole, issue 31 item 4)."""
        rate = self.route.rate_hz
        if "truth" in self.__dict__ or self.truth_rows <= self.trajectory.steps(rate) + 1:
            return self.truth
        return self.trajectory.lap(rate, self.duration_s).chunks(chunk_steps)

    def at_rate(self, rate_hz: float) -> Scenario:
        """This scenario with its route sampled at ``rate_hz`` (physics.hz, issue 30); itself
        at the route's own rate."""
        if float(rate_hz) == self.route.rate_hz:
            return self
        return replace(self, route=replace(self.route, rate_hz=float(rate_hz)))

    @property
    def truth_duration_s(self) -> float:
        """Duration of the truth log, s (last row's time)."""
        if self.duration_s is not None:
            return round(self.duration_s * self.route.rate_hz) / self.route.rate_hz
        return self.trajectory.steps(self.route.rate_hz) / self.route.rate_hz


def _folder():
    return Path(__file__).parent


def scenario_names() -> list[str]:
    """Names of the embedded scenarios, sorted."""
    return sorted(p.name[: -len(_SUFFIX)] for p in _folder().iterdir() if p.name.endswith(_SUFFIX))


def _read_json(text: str, source: str) -> dict:
    data = parse_json(text, source, ConfigError)
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: a scenario must be a JSON object")
    return data


def _scenario_from(
    data: dict, source: str, base, embedded: bool, duration_s: float | None
) -> Scenario:
    for key in data:
        if key not in _KEYS:
            raise ConfigError(f"{source}: {key!r} is not a known key; allowed: {', '.join(_KEYS)}")
    for key in ("name", "site", "vehicle", "waypoints"):
        if not isinstance(data.get(key), str):
            raise ConfigError(f"{source}: {key} = {json.dumps(data.get(key))} must be a string")
    site_ref = data["site"]
    # an embedded scenario names an embedded site; a scenario file, either (relative to it)
    site = embedded_site(site_ref) if embedded else resolve_site(site_ref, base=base)
    try:
        vehicle = vehicle_profile(data["vehicle"])
    except ConfigError as exc:
        raise ConfigError(f"{source}: {exc}") from None
    wp = base.joinpath(data["waypoints"]) if embedded else Path(base) / data["waypoints"]
    wp_source = f"{data['waypoints']} (embedded)" if embedded else str(wp)
    try:
        if embedded:
            text = wp.read_text(encoding="utf-8")
        else:
            from navsense.jsonfile import read_text

            text = read_text(wp, "waypoint file", ConfigError)
    except (OSError, ConfigError) as exc:
        raise ConfigError(
            f"{source}: waypoints = {data['waypoints']!r} cannot be read "
            f"({getattr(exc, 'strerror', None) or exc})"
        ) from None
    route = route_from_json(parse_json(text, wp_source, ConfigError), source=wp_source)
    if duration_s is not None and (
        isinstance(duration_s, bool)
        or not isinstance(duration_s, (int, float))
        or not duration_s > 0
    ):
        raise ConfigError(f"duration_s = {duration_s!r} must be a positive number of seconds")
    return Scenario(
        name=data["name"],
        description=str(data.get("description", "")),
        site=site,
        vehicle=vehicle,
        route=route,
        duration_s=None if duration_s is None else float(duration_s),
    )


def load_scenario(name: str, duration_s: float | None = None) -> Scenario:
    """An embedded scenario by name, or a scenario file by path (``*.json``).

    ``duration_s`` cuts the route or repeats a closed route to that duration. An unknown name
    raises :class:`~navsense.errors.ConfigError` listing the embedded scenarios.
    """
    folder = _folder()
    res = folder.joinpath(f"{name}{_SUFFIX}")
    if res.is_file():
        source = f"{name}{_SUFFIX} (embedded)"
        return _scenario_from(
            _read_json(res.read_text(encoding="utf-8"), source), source, folder, True, duration_s
        )
    path = Path(name)
    if name.endswith(".json") and path.is_file():
        from navsense.jsonfile import read_text

        return _scenario_from(
            _read_json(read_text(path, "scenario file", ConfigError), str(path)),
            str(path),
            path.parent,
            False,
            duration_s,
        )
    raise ConfigError(
        f"scenario = {name!r} is not an embedded scenario or a scenario file; "
        f"known: {', '.join(scenario_names())}"
    )


def list_scenarios() -> list[dict]:
    """The embedded scenarios: ``name``, ``description``, ``duration_s``, ``vehicle``, ``site``."""
    out = []
    for name in scenario_names():
        sc = load_scenario(name)
        out.append(
            {
                "name": sc.name,
                "description": sc.description,
                "duration_s": sc.truth_duration_s,
                "vehicle": sc.vehicle.name,
                "site": sc.site.name,
            }
        )
    return out
