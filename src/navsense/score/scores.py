"""The flat figures of a score: every figure for the whole estimate and for each group.

Keys (``navsense score``'s score.json, flat like :func:`navsense.runs.stats.run_statistics`): the
figures of :data:`FIGURES` without a prefix for every scored epoch, and again with the prefix
``<group>.`` for each group of :mod:`navsense.score.breakdown` (``rtk_fixed.ate_h_rms_m``,
``outage.nees_3d_mean``, ``after_outage_1.rpe_trans_rms_m`` ...). A figure without data (no
epoch in the group, no attitude, no covariance) is NaN (null in JSON)::

    epochs                          scored epochs (estimate stamps inside the run's truth)
    ate_{3d,h,v}_{rms,mean,median,p95,max}_m    absolute error |e|, hypot(e_E, e_N), |e_U|
    rpe_pairs                       pairs of the relative pose error
    rpe_trans_{rms,mean,median,p95,max}_m       relative translation error
    rpe_rot_{rms,mean,median,p95,max}_deg       relative rotation error (with attitude)
    att_{rms,mean,median,p95,max}_deg           attitude error angle (with attitude)
    heading_{rms,mean,median,p95,max}_deg       |heading error| (with attitude)
                                    (epochs without attitude are left out of these)
    roll_rms_deg, pitch_rms_deg     roll and pitch errors (with attitude)
    nees_epochs                     epochs with a positive definite covariance
    nees_3d_mean, nees_h_mean, nees_v_mean      mean NEES (consistent: 3, 2, 1)
    h_in_1sigma, h_in_2sigma        share with NEES_h <= 1, 4 (consistent: 0.393, 0.865)
    v_in_1sigma, v_in_2sigma        share with |e_U| <= 1, 2 sigma_U (consistent: 0.683, 0.954)

Definitions: :mod:`navsense.score.metrics`.
"""

from __future__ import annotations

import numpy as np

from navsense.score import metrics
from navsense.score.breakdown import Group

__all__ = ["FIGURES", "group_figures"]

_S = metrics.SUMMARY
#: The figures of one group, in order.
FIGURES: tuple[str, ...] = (
    "epochs",
    *(f"ate_{a}_{s}_m" for a in ("3d", "h", "v") for s in _S),
    "rpe_pairs",
    *(f"rpe_trans_{s}_m" for s in _S),
    *(f"rpe_rot_{s}_deg" for s in _S),
    *(f"att_{s}_deg" for s in _S),
    *(f"heading_{s}_deg" for s in _S),
    "roll_rms_deg",
    "pitch_rms_deg",
    "nees_epochs",
    "nees_3d_mean",
    "nees_h_mean",
    "nees_v_mean",
    "h_in_1sigma",
    "h_in_2sigma",
    "v_in_1sigma",
    "v_in_2sigma",
)
_NAN = float("nan")


def _finite(x: np.ndarray | None) -> np.ndarray:
    """x without its NaN (epochs without attitude); an empty array for None."""
    return np.zeros(0) if x is None else x[~np.isnan(x)]


def _put(out: dict, name: str, unit: str, x: np.ndarray | None) -> None:
    stats = metrics.describe(_finite(x))
    for s in _S:
        out[f"{name}_{s}_{unit}"] = stats[s]


def _fraction(mask: np.ndarray) -> float:
    return float(np.count_nonzero(mask) / mask.size) if mask.size else _NAN


def group_figures(
    mask: np.ndarray,
    e: np.ndarray,
    rpe_first: np.ndarray,
    rpe_trans: np.ndarray,
    rpe_rot: np.ndarray | None,
    att: dict[str, np.ndarray] | None,
    nees: dict[str, np.ndarray] | None,
) -> dict[str, float]:
    """The :data:`FIGURES` of the epochs ``mask`` (n,): ATE errors e (n, 3), the RPE pairs'
    first epochs ``rpe_first`` with their errors, attitude errors and NEES (metrics) or None."""
    out: dict[str, float] = {"epochs": float(np.count_nonzero(mask))}
    em = e[mask]
    _put(out, "ate_3d", "m", np.sqrt(np.sum(em * em, axis=1)))
    _put(out, "ate_h", "m", np.hypot(em[:, 0], em[:, 1]))
    _put(out, "ate_v", "m", np.abs(em[:, 2]))
    pm = mask[rpe_first]
    out["rpe_pairs"] = float(np.count_nonzero(pm))
    _put(out, "rpe_trans", "m", rpe_trans[pm])
    _put(out, "rpe_rot", "deg", None if rpe_rot is None else rpe_rot[pm])
    _put(out, "att", "deg", None if att is None else att["att"][mask])
    _put(out, "heading", "deg", None if att is None else att["heading"][mask])
    out["roll_rms_deg"] = metrics.describe(_finite(att["roll"][mask] if att else None))["rms"]
    out["pitch_rms_deg"] = metrics.describe(_finite(att["pitch"][mask] if att else None))["rms"]
    if nees is None:
        ok = np.zeros(0, bool)
        n3 = nh = nv = vr = np.zeros(0)
    else:
        ok = np.isfinite(nees["3d"]) & mask
        n3, nh, nv, vr = (nees[k][ok] for k in ("3d", "h", "v", "v_ratio"))
    out["nees_epochs"] = float(np.count_nonzero(ok))
    out["nees_3d_mean"] = float(np.mean(n3)) if n3.size else _NAN
    out["nees_h_mean"] = float(np.mean(nh)) if nh.size else _NAN
    out["nees_v_mean"] = float(np.mean(nv)) if nv.size else _NAN
    out["h_in_1sigma"] = _fraction(nh <= 1.0)
    out["h_in_2sigma"] = _fraction(nh <= 4.0)
    out["v_in_1sigma"] = _fraction(vr <= 1.0)
    out["v_in_2sigma"] = _fraction(vr <= 2.0)
    return out


def all_figures(
    groups: list[Group],
    e: np.ndarray,
    rpe_first: np.ndarray,
    rpe_trans: np.ndarray,
    rpe_rot: np.ndarray | None,
    att: dict[str, np.ndarray] | None,
    nees: dict[str, np.ndarray] | None,
) -> dict[str, float]:
    """The figures of every epoch (no prefix), then of each group (``<group>.`` prefix)."""
    n = e.shape[0]
    out = group_figures(np.ones(n, bool), e, rpe_first, rpe_trans, rpe_rot, att, nees)
    for g in groups:
        figs = group_figures(g.mask, e, rpe_first, rpe_trans, rpe_rot, att, nees)
        out.update({f"{g.name}.{k}": v for k, v in figs.items()})
    return out
