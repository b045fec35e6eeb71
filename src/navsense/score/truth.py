"""The run's truth at the estimate's point and stamps.

Where the truth is: :func:`navsense.runs.stats.find_truth`, the rule every reader of a run follows:
the run's ``truth.parquet`` (``navsense simulate --save-truth``, always with ``--track``), else
episode.json's source rebuilt (an embedded scenario or scenario file) or read again (a truth log
that still exists at its path). A run with none of them cannot be scored: the error asks for
``--save-truth``.

At each estimate stamp t (episode time) with x = t f (f the physics rate), the truth rows
k = floor(x) and k + 1 are taken (one row when x is within 1e-6 of a step) and::

    p_P(k) = p(k) + R(q(k)) r_P                    the point P on the rigid chassis
    p_P(t) = (1 - a) p_P(k) + a p_P(k + 1)         a = x - k, linear between physics steps
    q(t)   = q(k) exp(a log(q(k)^-1 q(k + 1)))     slerp

with r_P the point's lever arm (:meth:`navsense.score.runinfo.RunInfo.lever_arm_m`). Stamps
before the run's first step or after its last are outside the truth and are not scored.

Ruling (issue 21): an estimate none of whose stamps is inside the run (another run's estimate,
episode and UNIX time confused, an estimate of one epoch before the start) is not a score of
nothing: it is a FormatError (exit 2) that names the run's time span and the estimate's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from navsense.errors import FormatError
from navsense.rotation import quat_conjugate, quat_multiply, quat_to_matrix, rotate
from navsense.score.runinfo import RunInfo

__all__ = ["STEP_SNAP", "TruthAtEstimate", "slerp", "truth_at_estimate"]

#: A stamp within this many physics steps of a step is on it (the rows' times have 9 decimals).
STEP_SNAP = 1e-6


@dataclass(frozen=True)
class TruthAtEstimate:
    """Truth at the estimate's stamps inside the run: ``inside`` (n,) bool over the estimate's
    epochs, and for those epochs ``p_m`` (m, 3) the point in grid ENU, ``q_xyzw`` (m, 4) body
    FLU -> grid ENU; ``description`` names the truth's source."""

    inside: np.ndarray
    p_m: np.ndarray
    q_xyzw: np.ndarray
    description: str


def slerp(q0: np.ndarray, q1: np.ndarray, a: np.ndarray) -> np.ndarray:
    """Spherical interpolation q0 exp(a log(q0^-1 q1)) of unit quaternions (m, 4), x y z w,
    along the shorter arc; a (m,) in [0, 1]."""
    d = quat_multiply(quat_conjugate(q0), q1)
    d = np.where(d[:, 3:4] < 0.0, -d, d)
    s = np.sqrt(np.sum(d[:, :3] * d[:, :3], axis=1))
    half = np.arctan2(s, d[:, 3])
    with np.errstate(invalid="ignore", divide="ignore"):
        axis = np.where(s[:, None] > 0.0, d[:, :3] / s[:, None], 0.0)
    h = a * half
    step = np.concatenate([axis * np.sin(h)[:, None], np.cos(h)[:, None]], axis=1)
    return quat_multiply(q0, step)


def truth_at_estimate(
    run: RunInfo, t_s: np.ndarray, point: str, truth=None, estimate: str = "the estimate"
) -> TruthAtEstimate:
    """The truth at ``point`` (ins, antenna, base_footprint) at the stamps ``t_s`` (module
    docstring). ``truth``: the run's TruthStates if the caller holds it (it must cover the run).
    FormatError when the run has no truth or no stamp is inside the run (naming ``estimate``,
    the estimate file)."""
    from navsense.runs.stats import find_truth, truth_at_steps

    where = run.run_dir / "episode.json"
    if truth is None:
        found = find_truth(run.run_dir, run.episode)
        if found is None:
            raise FormatError(
                f"{run.run_dir}: no truth to score against: no truth.parquet and {where} names "
                "no truth log or scenario (source {}); simulate the run again with --save-truth"
            )
        source, description = found, found.description
    else:
        source, description = truth, "the run's truth (held by the caller)"
    # the readers bound times (navsense.score.estimate.MAX_TIME_S); the clip keeps the step
    # numbers of any other caller's stamps inside int64
    x = np.clip(np.asarray(t_s, dtype=np.float64) * run.rate_hz, -(2.0**62), 2.0**62)
    k = np.floor(x)
    a = x - k
    up = a > 1.0 - STEP_SNAP
    k = np.where(up, k + 1.0, k)
    a = np.where(up | (a < STEP_SNAP), 0.0, a)
    k0 = k.astype(np.int64)
    k1 = np.where(a > 0.0, k0 + 1, k0)
    inside = (k0 >= run.first_step) & (k1 <= run.last_step)
    if not inside.any():
        raise FormatError(
            f"{estimate}: no estimate stamp is inside the run's episode time "
            f"{run.first_step / run.rate_hz:g}..{run.last_step / run.rate_hz:g} s ({where}; the "
            f"estimate's: {t_s[0]:.9g}..{t_s[-1]:.9g} s); are its times episode or UNIX seconds "
            "of this run?"
        )
    k0, k1, a = k0[inside], k1[inside], a[inside]
    steps = np.unique(np.concatenate([k0, k1]))
    rows = truth_at_steps(source, steps, run.rate_hz, where=str(where))
    r = quat_to_matrix(rows["q_xyzw"])
    p_point = rows["p_m"] + rotate(r, np.broadcast_to(run.lever_arm_m(point), rows["p_m"].shape))
    i0, i1 = np.searchsorted(steps, k0), np.searchsorted(steps, k1)
    p = (1.0 - a)[:, None] * p_point[i0] + a[:, None] * p_point[i1]
    q = slerp(rows["q_xyzw"][i0], rows["q_xyzw"][i1], a)
    return TruthAtEstimate(inside, p, q, description)
