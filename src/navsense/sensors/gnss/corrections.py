"""The correction stream of the base station: the age of the newest correction message.

Specification, "GNSS Receiver / Correction Stream" (FAcresGnssModel::CorrectionAge); DESIGN.md
ruling "Correction stream".

The base station generates message j at ``j T_c`` (T_c = interval_s); it arrives T_l = latency_s
later. At the epoch time t the newest message that has arrived is::

    j = floor((t - T_l) / T_c + 1e-9),        a_c = t - j T_c

A message whose generation time ``j T_c`` lies in an outage ``[t1, t2)`` never arrives: the
receiver steps back to the last message generated before the outage, ``j' = max{j : j T_c < t1}``,
and again if that one lies in another outage. Start modes:

- ``converged``: the stream has been running before t = 0, so j may be negative;
- ``cold``: the first message is j = 0; before it arrives (or when stepping back goes below 0)
  there is no message and the age is not available (NaN here, null in the row).

With gnss.corrections.enabled false (navsense extension, issue 29; a phone's or a standalone
module's preset sets it) there is no stream: no message ever arrives and the age is NaN at every
epoch.

Everything is vectorised over the epochs; the stream has no state, so any cut of the log gives the
same ages.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from navsense.config.typed.gnss import CorrectionsConfig

__all__ = ["CorrectionStream", "J_SLACK"]

J_SLACK = 1e-9  # specification, "Correction Stream": j = floor((t - T_l) / T_c + 1e-9)


_MAX_CORRECTION_STEPS = 4  # floor() is off by at most one step; more would be a lost cause


@dataclass(frozen=True)
class CorrectionStream:
    """The base station's message schedule; ``outages_s`` a tuple of ``(t1, t2)`` pairs, s.

    The values are those of a validated configuration (:meth:`of`; interval_s > 0, latency_s
    >= 0, t1 < t2), which the stream does not check again.
    """

    interval_s: float
    latency_s: float
    outages_s: tuple[tuple[float, float], ...] = ()
    cold: bool = False
    enabled: bool = True

    @classmethod
    def of(cls, config: CorrectionsConfig) -> CorrectionStream:
        """The stream of the typed gnss.corrections (and gnss.start)."""
        return cls(
            config.interval_s,
            config.latency_s,
            config.outages_s,
            cold=config.cold,
            enabled=config.enabled,
        )

    def _last_before(self, t1: float) -> int:
        """The largest j with ``j T_c < t1`` (the generation times compared as computed).

        floor(t1 / T_c) is within one step of it; the corrections are bounded (a few steps), so
        a time beyond float64's resolution, where stepping changes nothing, cannot loop."""
        j = math.floor(t1 / self.interval_s)
        for _ in range(_MAX_CORRECTION_STEPS):
            if j * self.interval_s < t1:
                break
            j -= 1
        for _ in range(_MAX_CORRECTION_STEPS):
            if (j + 1) * self.interval_s >= t1:
                break
            j += 1
        return j

    def message_index(self, t_s: np.ndarray) -> np.ndarray:
        """Index j of the newest received message at each time, float64 (NaN: none), shape (m,)."""
        t_s = np.asarray(t_s, dtype=np.float64)
        if not self.enabled:
            return np.full(t_s.shape, np.nan)
        j = np.floor((t_s - self.latency_s) / self.interval_s + J_SLACK)
        # Step back out of the outages, latest start first: after outage k has been handled, every
        # j generates before t1_k, so it can only still fall into an outage that starts earlier.
        for t1, t2 in sorted(self.outages_s, key=lambda pair: pair[0], reverse=True):
            gen = j * self.interval_s
            hit = (gen >= t1) & (gen < t2)
            if np.count_nonzero(hit):
                j = np.where(hit, float(self._last_before(t1)), j)
        if self.cold:
            j = np.where(j >= 0.0, j, np.nan)
        return j

    def age_s(self, t_s: np.ndarray) -> np.ndarray:
        """Correction age a_c = t - j T_c at each time, s (NaN when no message has arrived)."""
        t_s = np.asarray(t_s, dtype=np.float64)
        if t_s.shape == (1,) and self.enabled:  # one epoch (streaming): on Python floats
            t = float(t_s[0])
            j = self._one_message_index(t)
            if j is not None:
                return np.array([t - j * self.interval_s])
        return t_s - self.message_index(t_s) * self.interval_s

    def _one_message_index(self, t: float) -> float | None:
        """:meth:`message_index` of one time on Python floats (the same IEEE operations; floor
        as np.floor's, the sign of a zero kept); None where the argument of floor is not finite
        (then the array path)."""
        x = (t - self.latency_s) / self.interval_s + J_SLACK
        if not math.isfinite(x):
            return None
        j = math.copysign(float(math.floor(x)), x)
        for t1, t2 in sorted(self.outages_s, key=lambda pair: pair[0], reverse=True):
            gen = j * self.interval_s
            if gen >= t1 and gen < t2:
                j = float(self._last_before(t1))
        if self.cold and not j >= 0.0:
            j = math.nan
        return j
