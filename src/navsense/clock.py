"""The physics clock: sensor scheduling (:class:`Due`) and the delivery time of the modelled
latency (:func:`delivery_times`).

Specification, "Frames and Sample Times":

- a sensor of rate f has its first sample at t = 0 (or, for the ACRES Core streaming INS, at the
  first time it is asked); then ``sample when t + 1e-8 >= t_due, t_due <- t_due + 1/f`` at most
  once per physics step, the due time accumulated by repeated addition;
- ``t_available = t_sample + T_d`` (T_d = delay_s); a row is delivered at the first physics step
  with ``t >= t_available``; ``delivery_time_s`` is that step's time k / rate_hz.

The models' schedules start at the first physics step they are given (``Due(hz, start_s=None)``).
For the specification's runs, which start at t = 0, that is its first sample at t = 0. A user's
truth log may start later (a recording's own clock, t = 100 s): its first row is its t = 0, so
every sensor samples at its rate from there. Read literally, a schedule due at t = 0 would sample
at every physics step until it caught up with the log's clock (a 10 Hz receiver at 120 Hz for the
first 100 s of schedule), which no receiver does. (navsense's ruling; the specification's runs are
unchanged.)

:class:`Due` evaluates the rule over any run of consecutive physics steps at once: the due times
are the sequential running sum (``np.add.accumulate`` adds in order, so every value equals the
scalar loop's), and sample k lands on the first step i with ``t_i + 1e-8 >= due_k`` that comes
after the previous sample's step. One call over a whole log, many chunks or one call per step
give the same samples.
"""

from __future__ import annotations

import numpy as np

__all__ = ["Due", "DUE_SLACK_S", "delivery_times"]

DUE_SLACK_S = 1e-8  # specification, "Frames and Sample Times": t + 1e-8 >= t_due

# the sampled steps of a one-step call (shared, read only: every caller only indexes with them)
_ONE_STEP = np.zeros(1, dtype=np.int64)
_NO_STEP = np.zeros(0, dtype=np.int64)
_ONE_STEP.flags.writeable = False
_NO_STEP.flags.writeable = False


class Due:
    """Sample schedule of one sensor at ``hz``; ``start_s`` the first due time (None: first call).

    The rule is written once, in :meth:`__call__` (one physics step, as the specification
    states it). :meth:`sample_indices` is the models' one entry, for any number of steps: one
    step takes :meth:`__call__`; a block evaluates the same recurrence at once (the due times
    by the same additions in the same order), equal to calling :meth:`__call__` step by step
    (tests/test_clock.py). A model never calls :meth:`__call__` itself.
    """

    __slots__ = ("period_s", "t_due")

    def __init__(self, hz: float, start_s: float | None = 0.0) -> None:
        self.period_s = 1.0 / float(hz)
        self.t_due = None if start_s is None else float(start_s)

    def __call__(self, t_s: float) -> bool:
        """One physics step: True when the sensor samples at ``t_s`` (then the due time advances)."""
        if self.t_due is None:
            self.t_due = float(t_s)
        if t_s + DUE_SLACK_S >= self.t_due:
            self.t_due = self.t_due + self.period_s
            return True
        return False

    def sample_indices(self, t_s: np.ndarray) -> np.ndarray:
        """Indices into ``t_s`` (consecutive physics step times) of the steps that sample.

        Equivalent to calling the instance once per element, in order. The array returned is
        read only for a one-step call (shared).
        """
        t_s = np.asarray(t_s, dtype=np.float64)
        n = t_s.size
        if n == 0:
            return np.zeros(0, dtype=np.int64)
        if n == 1:  # one physics step (streaming): the rule as written
            return _ONE_STEP if self(float(t_s[0])) else _NO_STEP
        if self.t_due is None:
            self.t_due = float(t_s[0])
        # at most one sample per step, so n + 1 due times cover the run
        incr = np.full(n + 1, self.period_s)
        incr[0] = self.t_due
        due = np.add.accumulate(incr)
        first = np.searchsorted(t_s + DUE_SLACK_S, due, side="left")
        # sample k at step max(first_k, step_{k-1} + 1): k + running max of (first_j - j)
        k = np.arange(n + 1, dtype=np.int64)
        steps = k + np.maximum.accumulate(first - k)
        count = int(np.searchsorted(steps, n, side="left"))
        self.t_due = float(due[count])
        return steps[:count]


def delivery_times(available_s: np.ndarray, rate_hz: float) -> np.ndarray:
    """Time of the first physics step k / rate_hz with k / rate_hz >= available_s."""
    available_s = np.asarray(available_s, dtype=np.float64)
    k = np.ceil(available_s * rate_hz)
    t = k / rate_hz
    # correct the rare rounding of the product so the comparison holds exactly as written
    low = (k - 1.0) / rate_hz
    k = np.where(low >= available_s, k - 1.0, np.where(t < available_s, k + 1.0, k))
    return k / rate_hz
