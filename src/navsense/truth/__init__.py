"""Truth motion: TruthStates, truth-log readers and writers, trajectory builders."""

from navsense.truth.states import PHYSICS_HZ, TRUTH_COLUMNS, TruthStates

__all__ = ["TruthStates", "PHYSICS_HZ", "TRUTH_COLUMNS"]
