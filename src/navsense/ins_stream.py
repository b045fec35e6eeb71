"""The streaming INS of ACRES Core (CoreSimIns.h FInsModel) for live simulators.

Specification "ACRES Core INS" and CoreSimIns.h: ``Init`` with an agent index, ``Due``,
``Teleported`` and ``Epoch``, which returns the 40-value INS frame (EInsField order). The
equations are those of navsense.sensors.ins (one epoch of :class:`InsCore`, the kernel of the
batch model), the frame is the layout of ``ins.frames`` (navsense.output.layouts.ins), so a stream
that starts at t = 0 and passes the INS point p + R r_n gives the batch model's frames bit for bit.
With imu.earth none an epoch runs on a record kept from epoch to epoch
(navsense.sensors.ins_one, the same operations: issue 31) and the frame is one ``take`` of it
(InsLayout.frame_index), a new array each epoch; with imu.earth wgs84 InsCore.run and
InsLayout.extra.

Ruling (issue 28): the streaming INS lives here, and its one public name is
``navsense.ins_stream.Ins``. ``navsense.sensors.ins`` holds the models (the batch InsModel and its
kernel InsCore) and never formats a frame; the streaming API needs the kernel and the frame
layout together, so it is a layer above both and imports them, and nothing below imports it.
The former alias ``navsense.sensors.ins.Ins`` (a lazy import back up into this module, an import
cycle) is gone.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from navsense.clock import Due
from navsense.config.schema import validate
from navsense.errors import TruthError
from navsense.kernels import use_compiled
from navsense.output.layouts.ins import InsLayout
from navsense.sensors.ins import InsConfig, InsCore
from navsense.sensors.ins_one import InsOne

__all__ = ["Ins"]


def _frame_inputs(values: tuple, row: np.ndarray, head: tuple = ()) -> None:
    """``head`` and the five values of an epoch into ``row``, a float64 row (n,) of
    len(head) + 16 values (each value's columns a C-ordered (1, n) row for the kernels where
    ``row`` is one), or TruthError naming the value."""
    a, b, c, d, e = values
    if (
        type(a) in _SEQUENCES
        and type(b) in _SEQUENCES
        and type(c) in _SEQUENCES
        and type(d) in _SEQUENCES
        and type(e) in _SEQUENCES
    ):
        try:  # the usual case: lists, tuples or arrays (n,) of n numbers, one conversion
            if (len(a), len(b), len(c), len(d), len(e)) == _LENGTHS:
                row[:] = [*head, *a, *b, *c, *d, *e]
                return
        except (TypeError, ValueError, OverflowError):  # not numbers (or a 0-d array, an
            pass  # integer beyond a float): _row names the value
    lo = len(head)
    for name, v, n in zip(_NAMES, values, _LENGTHS):
        row[lo : lo + n] = _row(name, v, n)[0]
        lo += n
    row[: len(head)] = head


_NAMES = (
    "footprint_enu_m",
    "orientation_xyzw",
    "com_enu_m",
    "velocity_mps",
    "angular_velocity_radps",
)
_LENGTHS = (3, 4, 3, 3, 3)
_SEQUENCES = frozenset((list, tuple, np.ndarray))


def _row(name: str, values, n: int) -> np.ndarray:
    """n values (a sequence or an array of n numbers) as a (1, n) float64 row, or TruthError."""
    try:
        v = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):  # OverflowError: an int beyond a float
        raise TruthError(f"{name} = {values!r}: expected {n} numbers") from None
    if v.size != n:
        raise TruthError(f"{name}: expected {n} values, got shape {np.shape(values)}")
    return v.reshape(1, n)


class Ins:
    """The streaming INS (FInsModel): ``Ins(config, georef, agent=0)``.

    ``config`` an InsConfig or the effective configuration dict (navsense.config.load_config,
    checked by its schema); ``agent`` the agent index (stream
    seed + 5045 + 7919 agent, sequence 6; agent 0 draws the game's stream). Per physics step: call
    :meth:`teleported` when the pose jumped, then ``if ins.due(t): frame = ins.epoch(t, ...)``.
    The first epoch is at the first call of :meth:`due` (ACRES Core's "first epoch at the first
    sample").
    """

    def __init__(self, config: InsConfig | Mapping, georef, agent: int = 0) -> None:
        if not isinstance(config, InsConfig):
            validate(config, "Ins config")  # an effective configuration (load_config)
            config = InsConfig.from_validated(config)
        self.config = config
        use_compiled()  # one epoch a call: the compiled kernels (navsense.kernels' ruling)
        self._core = InsCore(self.config, georef, agent)
        self._layout = InsLayout(self._core.output_info())
        self._due = Due(self.config.hz, start_s=None)
        # one epoch a call on a kept record (navsense.sensors.ins_one) where it applies
        self._one = InsOne.of(self._core, self._layout.frame_constants)
        if self._one is not None:
            self._frame_index = self._layout.frame_index(self._one.slots)
        self._no_reset = np.zeros(1, dtype=bool)
        # an epoch's inputs, written in place at each epoch (InsCore.run's block holds views of
        # them only until the frame is laid out): its time and the five values' columns
        self._t = np.empty(1)
        self._row = np.empty((1, 16))
        r = self._row
        self._columns = (r[:, 0:3], r[:, 3:7], r[:, 7:10], r[:, 10:13], r[:, 13:16])

    @property
    def agent(self) -> int:
        return self._core.agent

    def due(self, t_s: float) -> bool:
        """True when an epoch is due at ``t_s`` (then the due time advances by 1/hz)."""
        return self._due(float(t_s))

    def teleported(self) -> None:
        """The pose jumped: the next epoch reports gravity alone (no finite difference)."""
        self._core.reset_pending = True

    def epoch(
        self,
        t_s: float,
        footprint_enu_m,
        orientation_xyzw,
        com_enu_m,
        velocity_mps,
        angular_velocity_radps,
    ) -> np.ndarray:
        """One epoch -> its 40 values (EInsField order).

        footprint_enu_m: the reported point (base_footprint), grid ENU m; orientation_xyzw:
        body FLU -> ENU; com_enu_m: centre of mass, ENU m; velocity_mps and
        angular_velocity_radps: centre-of-mass velocity and angular velocity, world axes.
        TruthError when t_s is not after the previous epoch's time or a value has the wrong
        length; DatumError when the point leaves the site's domain.
        """
        t = float(t_s)
        t_prev = self._core.t_prev
        if t_prev is not None and not t > t_prev:
            raise TruthError(
                f"INS epoch at t_s = {t!r} is not after the previous epoch at {t_prev!r} s"
            )
        values = (
            footprint_enu_m,
            orientation_xyzw,
            com_enu_m,
            velocity_mps,
            angular_velocity_radps,
        )
        one = self._one
        if one is not None:  # the record's frame: a new array (the record changes next epoch)
            _frame_inputs(values, one.inputs, one.head(t))
            return one.run(t).take(self._frame_index)
        _frame_inputs(values, self._row[0])
        self._t[0] = t
        block = self._core.run(self._t, *self._columns, self._no_reset)
        return self._layout.extra(block)[0]
