"""Truth motion: TruthStates, truth-log readers and writers, trajectory builders."""

from navsense.truth.io import TruthWriter, iter_truth_chunks, read_truth, write_truth
from navsense.truth.states import PHYSICS_HZ, TRUTH_COLUMNS, TruthStates
from navsense.truth.waypoints import (
    Trajectory, Waypoint, WaypointRoute, build_from_waypoints, load_waypoints, plan_trajectory,
    route_from_json,
)

__all__ = [
    "TruthStates", "PHYSICS_HZ", "TRUTH_COLUMNS",
    "read_truth", "write_truth", "iter_truth_chunks", "TruthWriter",
    "Waypoint", "WaypointRoute", "Trajectory", "build_from_waypoints", "plan_trajectory",
    "load_waypoints", "route_from_json",
]
