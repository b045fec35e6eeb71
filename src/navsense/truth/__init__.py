"""Truth motion: TruthStates, truth-log readers and writers, trajectory builders.

The trajectory builders (``waypoints``, which needs scipy.interpolate) load on first use, so
reading a truth log does not pay for them.
"""

from navsense.truth.io import TruthWriter, iter_truth_chunks, read_truth, write_truth
from navsense.truth.states import PHYSICS_HZ, TRUTH_COLUMNS, TruthStates

_WAYPOINT_NAMES = (
    "Trajectory",
    "Waypoint",
    "WaypointRoute",
    "build_from_waypoints",
    "load_waypoints",
    "plan_trajectory",
    "route_from_json",
)

__all__ = [
    "TruthStates",
    "PHYSICS_HZ",
    "TRUTH_COLUMNS",
    "read_truth",
    "write_truth",
    "iter_truth_chunks",
    "TruthWriter",
    *_WAYPOINT_NAMES,
]


def __getattr__(name: str):
    if name in _WAYPOINT_NAMES:
        from navsense.truth import waypoints

        return getattr(waypoints, name)
    raise AttributeError(f"module 'navsense.truth' has no attribute {name!r}")
