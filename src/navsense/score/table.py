"""The score as a table for the terminal: one line for all epochs, then one a non-empty group."""

from __future__ import annotations

import math

from navsense.score.breakdown import FIXED_GROUPS

__all__ = ["score_table"]

_COLUMNS = (
    ("epochs", "epochs", "n"),
    ("ate_h_rms_m", "ATE h rms", "m"),
    ("ate_v_rms_m", "ATE v rms", "m"),
    ("ate_3d_rms_m", "ATE 3d rms", "m"),
    ("ate_3d_p95_m", "ATE 3d p95", "m"),
    ("rpe_trans_rms_m", "RPE rms", "m"),
    ("heading_rms_deg", "head rms", "deg"),
    ("nees_3d_mean", "NEES 3d", "x"),
    ("h_in_1sigma", "h<1s", "%"),
    ("h_in_2sigma", "h<2s", "%"),
    ("v_in_1sigma", "v<1s", "%"),
    ("v_in_2sigma", "v<2s", "%"),
)


def _cell(value, kind: str) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if kind == "n":
        return f"{int(value)}"
    if kind == "%":
        return f"{100.0 * value:.1f}"
    if kind == "x":
        return f"{value:.2f}"
    return f"{value:.4f}" if abs(value) < 10 else f"{value:.2f}"


def score_table(scores: dict) -> str:
    """The table of a score (dict of navsense.score.scores keys and the meta keys)."""
    head = ["group"] + [title for _, title, _ in _COLUMNS]
    lines = [head]
    windows = int(scores.get("outage_windows") or 0)
    names = [""] + list(FIXED_GROUPS)
    names += [f"{w}_{k}" for k in range(1, windows + 1) for w in ("outage", "after_outage")]
    for name in names:
        prefix = f"{name}." if name else ""
        if not scores.get(prefix + "epochs"):
            continue
        label = name or "all"
        if name.startswith("outage_"):
            k = name.split("_")[1]
            label += (
                f" ({scores.get(f'outage_{k}.kind')} {scores.get(f'outage_{k}.start_s'):.1f}-"
                f"{scores.get(f'outage_{k}.end_s'):.1f} s)"
            )
        lines.append([label] + [_cell(scores.get(prefix + key), kind) for key, _, kind in _COLUMNS])
    widths = [max(len(row[c]) for row in lines) for c in range(len(head))]
    text = [
        "  ".join(
            cell.ljust(w) if c == 0 else cell.rjust(w)
            for c, (cell, w) in enumerate(zip(row, widths))
        )
        for row in lines
    ]
    title = (
        f"score of {scores.get('estimate')} ({scores.get('frame')}, point {scores.get('point')}, "
        f"align {scores.get('align')}, RPE per {scores.get('rpe_delta'):g} {scores.get('rpe_unit')})"
    )
    rule = "-" * len(text[0])
    return "\n".join([title, text[0], rule, *text[1:]])
