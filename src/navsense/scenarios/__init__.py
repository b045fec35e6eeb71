"""Embedded sites and scenarios (data files in this package's folder).

``list_scenarios()`` describes the embedded scenarios; ``load_scenario(name)`` returns a
:class:`Scenario` (site, vehicle, waypoint route and its truth log). Site files are under
``sites/``; scenario files are ``<name>.scenario.json`` next to their waypoint files.

The names load :mod:`navsense.scenarios.scenarios` (and the route planner) on first use: reading
an embedded site's file needs only this package.
"""

__all__ = ["Scenario", "list_scenarios", "load_scenario", "scenario_names", "DEFAULT_SCENARIO"]


def __getattr__(name: str):
    if name in __all__:
        from navsense.scenarios import scenarios

        return getattr(scenarios, name)
    raise AttributeError(f"module 'navsense.scenarios' has no attribute {name!r}")
