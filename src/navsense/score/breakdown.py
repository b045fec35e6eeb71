"""The groups of epochs each figure is also given for: GNSS fix states and outage windows.

Fix state at an estimate stamp t: the ``fix_type`` of the run's latest GNSS epoch sampled at or
before t (gnss.jsonl / gnss.parquet; the receiver's state holds until its next epoch). Stamps
before the first GNSS epoch have no state (counted in no group of this kind). Groups
``rtk_fixed``, ``rtk_float``, ``dgps``, ``single``, ``no_fix``.

Outage windows of the run, in time order:

* a span without a fix: consecutive GNSS epochs whose fix_type is no_fix, from the first one's
  sample time to the next epoch's (the one with a fix again), or to the run's end;
* a correction outage of the configuration: ``gnss.corrections.outages_s`` [t1, t2) of
  episode.json (base-station messages lost; the receiver drops from RTK as their age grows).

Groups: ``outage`` every stamp inside a window; ``after_outage`` every stamp within
:data:`RECOVERY_S` (30 s) after a window's end and inside none; and per window k (1, 2, ...)
``outage_k`` and ``after_outage_k``. The window itself is in the score as ``outage_k.kind``
(``no_fix`` or ``corrections``), ``outage_k.start_s`` and ``outage_k.end_s``.

A relative pose error pair (i, j) belongs to the group of its first epoch i. Times within
:data:`navsense.score.estimate.TIME_TOL_S` of an epoch or a window's edge are on it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from navsense.runs.stats import GNSS_STATES
from navsense.score.estimate import TIME_TOL_S
from navsense.score.runinfo import GnssTimeline, RunInfo

__all__ = ["FIXED_GROUPS", "RECOVERY_S", "Group", "OutageWindow", "groups_of", "outage_windows"]

#: After a window ends: the span of the after_outage groups, s.
RECOVERY_S = 30.0
#: The groups every score has (besides the whole estimate), in order.
FIXED_GROUPS = (*GNSS_STATES, "outage", "after_outage")


@dataclass(frozen=True)
class OutageWindow:
    """[start_s, end_s) of kind ``no_fix`` or ``corrections``."""

    kind: str
    start_s: float
    end_s: float


@dataclass(frozen=True)
class Group:
    """A group of epochs: its key prefix (``rtk_fixed.``) and mask over the scored epochs."""

    name: str
    mask: np.ndarray


def outage_windows(run: RunInfo, gnss: GnssTimeline | None) -> list[OutageWindow]:
    """The run's outage windows (module docstring), sorted by start."""
    windows = []
    end_s = run.last_step / run.rate_hz
    if gnss is not None and gnss.t_s.size:
        no_fix = np.asarray(gnss.fix_type == "no_fix", dtype=np.int8)
        edges = np.diff(np.concatenate([[0], no_fix, [0]]))
        for a, b in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)):
            stop = float(gnss.t_s[b]) if b < gnss.t_s.size else end_s
            windows.append(OutageWindow("no_fix", float(gnss.t_s[a]), stop))
    for t1, t2 in run.episode.gnss_config.corrections.outages_s:
        windows.append(OutageWindow("corrections", float(t1), float(t2)))
    return sorted(windows, key=lambda w: (w.start_s, w.end_s))


def fix_states_at(gnss: GnssTimeline, t_s: np.ndarray) -> np.ndarray:
    """The fix type in effect at each stamp (None before the first GNSS epoch)."""
    k = np.searchsorted(gnss.t_s, t_s + TIME_TOL_S, side="right") - 1
    out = np.full(t_s.shape, None, dtype=object)
    ok = k >= 0
    out[ok] = gnss.fix_type[k[ok]]
    return out


def groups_of(
    t_s: np.ndarray, gnss: GnssTimeline | None, windows: list[OutageWindow]
) -> list[Group]:
    """The groups of the stamps t_s (module docstring): the fixed ones, then per window."""
    groups = []
    states = fix_states_at(gnss, t_s) if gnss is not None and gnss.t_s.size else None
    for state in GNSS_STATES:
        mask = np.zeros(t_s.shape, bool) if states is None else states == state
        groups.append(Group(state, np.asarray(mask, dtype=bool)))
    t = t_s + TIME_TOL_S
    inside = [(t >= w.start_s) & (t < w.end_s) for w in windows]
    after = [(t >= w.end_s) & (t < w.end_s + RECOVERY_S) for w in windows]
    any_inside = np.logical_or.reduce(inside) if inside else np.zeros(t_s.shape, bool)
    any_after = np.logical_or.reduce(after) if after else np.zeros(t_s.shape, bool)
    groups.append(Group("outage", any_inside))
    groups.append(Group("after_outage", any_after & ~any_inside))
    for k, (a, b) in enumerate(zip(inside, after), start=1):
        groups.append(Group(f"outage_{k}", a))
        groups.append(Group(f"after_outage_{k}", b & ~any_inside))
    return groups
