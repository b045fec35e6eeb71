"""Embedded sites and scenarios (data files read with importlib.resources).

``list_scenarios()`` describes the embedded scenarios; ``load_scenario(name)`` returns a
:class:`Scenario` (site, vehicle, waypoint route and its truth log). Site files are under
``sites/``; scenario files are ``<name>.scenario.json`` next to their waypoint files.
"""

from navsense.scenarios.scenarios import (
    DEFAULT_SCENARIO, Scenario, list_scenarios, load_scenario, scenario_names,
)

__all__ = ["Scenario", "list_scenarios", "load_scenario", "scenario_names", "DEFAULT_SCENARIO"]
