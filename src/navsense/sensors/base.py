"""The contract every sensor model keeps (CONTRACTS.md "Sensor models"), stated in code."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

from navsense.truth.states import TruthStates

__all__ = ["SensorModel"]


@runtime_checkable
class SensorModel(Protocol):
    """A sensor model over consecutive truth chunks (batch = chunks = steps).

    ``name`` is the file stem of its rows (``imu`` -> ``imu.jsonl``). ``process`` returns the
    epochs sampled in the chunk as SI arrays with a leading axis m (m may be 0), always with
    ``sample_time_s``; results are bit-identical however the log is cut. ``output_info`` is the
    plain (picklable) per-run data its layout in ``navsense.output.layouts`` needs;
    ``episode_info`` the keys it adds to episode.json. A model never formats or writes.
    """

    name: str

    def process(self, truth: TruthStates) -> dict[str, np.ndarray]: ...

    def output_info(self) -> dict[str, Any]: ...

    def episode_info(self) -> dict[str, Any]: ...
