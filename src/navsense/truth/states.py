"""TruthStates: the vehicle's truth motion at the physics steps, the input of every sensor model.

Conventions (DESIGN.md, "Data contracts"; specification "Frames and Sample Times"):

- one row per physics step; the physics clock runs at ``rate_hz`` (default 120 Hz) and the time of
  step k is exactly ``k / rate_hz`` ("the physics steps since the start of the recording, divided
  by 120");
- ``p_m`` the chassis origin and ``c_m`` the centre of mass, grid ENU metres, shape (n, 3);
- ``q_xyzw`` the active rotation body FLU -> grid ENU, shape (n, 4), x, y, z, w;
- ``v_mps`` the centre-of-mass velocity and ``w_radps`` the angular velocity, world (ENU) axes;
- ``reset`` True at a step whose pose jumped (teleport, episode reset): finite differences that
  span it are not physical.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["TruthStates", "PHYSICS_HZ", "TRUTH_COLUMNS"]

PHYSICS_HZ = 120.0  # specification, "Symbols": episode time is physics steps / 120

TRUTH_COLUMNS = (
    "t_s",
    "px_m",
    "py_m",
    "pz_m",
    "qx",
    "qy",
    "qz",
    "qw",
    "vx_mps",
    "vy_mps",
    "vz_mps",
    "wx_radps",
    "wy_radps",
    "wz_radps",
    "cx_m",
    "cy_m",
    "cz_m",
    "reset",
)


@dataclass(frozen=True)
class TruthStates:
    """Truth at consecutive physics steps ``step0 .. step0 + n - 1`` (arrays, component axis last)."""

    step0: int
    p_m: np.ndarray
    q_xyzw: np.ndarray
    v_mps: np.ndarray
    w_radps: np.ndarray
    c_m: np.ndarray
    reset: np.ndarray
    rate_hz: float = PHYSICS_HZ

    def __len__(self) -> int:
        return int(self.p_m.shape[0])

    @property
    def steps(self) -> np.ndarray:
        """Physics step indices, int64, shape (n,)."""
        return self.step0 + np.arange(len(self), dtype=np.int64)

    @property
    def t_s(self) -> np.ndarray:
        """Episode time of each step, k / rate_hz, shape (n,)."""
        if self.p_m.shape[0] == 1:  # one step (streaming): the same division on a Python int
            return np.array([self.step0 / self.rate_hz])
        return self.steps / self.rate_hz

    def slice(self, start: int, stop: int) -> TruthStates:
        """Rows start .. stop - 1 as a new TruthStates (views, no copy)."""
        n = self.p_m.shape[0]
        start, stop = max(0, start), min(n, stop)
        # the fields set directly: the frozen dataclass's __init__ (one object.__setattr__ a
        # field) would double the cost of a streaming step's slice
        part = object.__new__(TruthStates)
        part.__dict__.update(
            step0=self.step0 + start,
            p_m=self.p_m[start:stop],
            q_xyzw=self.q_xyzw[start:stop],
            v_mps=self.v_mps[start:stop],
            w_radps=self.w_radps[start:stop],
            c_m=self.c_m[start:stop],
            reset=self.reset[start:stop],
            rate_hz=self.rate_hz,
        )
        return part

    def chunks(self, size: int):
        """Iterate over consecutive slices of at most ``size`` steps."""
        size = max(1, int(size))
        for start in range(0, len(self), size):
            yield self.slice(start, start + size)

    @staticmethod
    def concatenate(parts: list[TruthStates]) -> TruthStates:
        """Join consecutive chunks back into one TruthStates."""
        first = parts[0]
        return TruthStates(
            step0=first.step0,
            p_m=np.concatenate([p.p_m for p in parts]),
            q_xyzw=np.concatenate([p.q_xyzw for p in parts]),
            v_mps=np.concatenate([p.v_mps for p in parts]),
            w_radps=np.concatenate([p.w_radps for p in parts]),
            c_m=np.concatenate([p.c_m for p in parts]),
            reset=np.concatenate([p.reset for p in parts]),
            rate_hz=first.rate_hz,
        )
