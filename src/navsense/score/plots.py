"""The score's plots (matplotlib, Agg canvas, no pyplot state), beside score.json.

``score_error.png``
    The estimate's position error (east, north, up; m, after the alignment) over episode time,
    with the estimator's own 1-sigma and 2-sigma bands (+-k sqrt(C_EE), sqrt(C_NN), sqrt(C_UU))
    when it gives a covariance: an honest estimator's error stays inside 2 sigma about 95 % of
    the time. Below, the GNSS fix state in effect at each stamp (the report's colours) and the
    outage windows (grey).
``score_cdf.png``
    The cumulative distribution of the horizontal, vertical and 3-D error: the share of epochs
    whose error is at most x; the dotted line marks 95 %.

The run report (``navsense report``) shows them too when the run has been scored into its own
``RUN_DIR/score/`` (:func:`run_report_figures`).
"""

from __future__ import annotations

import io

import numpy as np

from navsense.runs.report_plots import FIX_COLORS, Figure

__all__ = ["PLOT_FILES", "cdf_figure", "error_figure", "run_report_figures", "score_figures"]

PLOT_FILES = ("score_error.png", "score_cdf.png")
_DPI = 100
_FIX_ORDER = ("no_fix", "single", "dgps", "rtk_float", "rtk_fixed")


def _new(width_in: float, height_in: float):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure as MplFigure

    fig = MplFigure(figsize=(width_in, height_in), dpi=_DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _png(fig, title: str, caption: str, filename: str) -> Figure:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=_DPI)
    w, h = fig.canvas.get_width_height()
    return Figure(title, caption, filename, buf.getvalue(), int(w), int(h))


def _spans(t: np.ndarray, labels: np.ndarray):
    """(label, start, end) of the runs of equal labels over the stamps t."""
    if t.size == 0:
        return []
    change = np.flatnonzero(labels[1:] != labels[:-1]) + 1
    starts = np.concatenate([[0], change])
    ends = np.concatenate([change, [t.size]])
    tail = t[-1] + (t[-1] - t[-2] if t.size > 1 else 0.1)
    return [
        (labels[a], float(t[a]), float(t[b]) if b < t.size else float(tail))
        for a, b in zip(starts, ends)
    ]


def error_figure(score) -> Figure:
    """Error over time with the sigma bands and the fix-state timeline (module docstring)."""
    t, e, cov = score.t_s, score.error_enu_m, score.cov_enu_m2
    fig = _new(11, 8)
    grid = fig.add_gridspec(4, 1, height_ratios=[3, 3, 3, 0.7])
    axes = [fig.add_subplot(grid[k]) for k in range(4)]
    for k, (ax, name) in enumerate(zip(axes, ("east", "north", "up"))):
        if cov is not None:
            s = np.sqrt(np.clip(cov[:, k, k], 0.0, None))
            ax.fill_between(t, -2 * s, 2 * s, color="#c6dbef", label="2 sigma", lw=0)
            ax.fill_between(t, -s, s, color="#9ecae1", label="1 sigma", lw=0)
        for w in score.windows:
            ax.axvspan(w.start_s, w.end_s, color="#bdbdbd", alpha=0.35, lw=0)
        ax.plot(t, e[:, k], color="#08306b", lw=0.6, label="error")
        if cov is not None:  # the 2-sigma bounds again over the error
            ax.plot(t, 2 * s, color="#2171b5", lw=0.8, ls="--")
            ax.plot(t, -2 * s, color="#2171b5", lw=0.8, ls="--")
        ax.set_ylabel(f"{name} error (m)")
        ax.grid(True, alpha=0.3)
        ax.sharex(axes[3])
        ax.tick_params(labelbottom=False)
    axes[0].legend(loc="upper right", fontsize=8)
    ax = axes[3]
    labels = np.array(["none" if s is None else str(s) for s in score.fix_type], dtype=object)
    for label, a, b in _spans(t, labels):
        ax.axvspan(a, b, color=FIX_COLORS.get(label, "#ffffff"), lw=0)
    ax.set_yticks([])
    ax.set_xlabel("episode time (s)")
    ax.set_ylabel("fix")
    from matplotlib.patches import Patch

    handles = [Patch(color=FIX_COLORS[s], label=s) for s in _FIX_ORDER]
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.9), ncol=5, fontsize=8)
    caption = (
        "Position error of the estimate (east, north, up) over time"
        + (", with its own 1- and 2-sigma bands" if cov is not None else "")
        + "; grey: outage windows; bottom: the GNSS fix state."
    )
    return _png(fig, "Estimate error over time", caption, PLOT_FILES[0])


def cdf_figure(score) -> Figure:
    """The error CDF (module docstring)."""
    e = score.error_enu_m
    fig = _new(8, 5)
    ax = fig.add_subplot()
    n = e.shape[0]
    y = np.arange(1, n + 1) / n
    for label, x, color in (
        ("horizontal", np.hypot(e[:, 0], e[:, 1]), "#1f77b4"),
        ("vertical", np.abs(e[:, 2]), "#ff7f0e"),
        ("3-D", np.sqrt(np.sum(e * e, axis=1)), "#2ca02c"),
    ):
        ax.step(np.sort(x), y, where="post", label=label, color=color)
    ax.axhline(0.95, color="#666666", ls=":", lw=1)
    ax.set_xlabel("error (m)")
    ax.set_ylabel("share of epochs")
    ax.set_ylim(0, 1.0)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="lower right")
    caption = "Cumulative distribution of the horizontal, vertical and 3-D error (dotted: 95 %)."
    return _png(fig, "Estimate error CDF", caption, PLOT_FILES[1])


def score_figures(score) -> list[Figure]:
    """The plots of a score (navsense.score.api.Score)."""
    if score.t_s.size == 0:
        return []
    return [error_figure(score), cdf_figure(score)]


def run_report_figures(run_dir) -> list[Figure]:
    """The score's plots in ``RUN_DIR/score/`` as report figures, their captions with the score's
    main figures; [] when the run has not been scored there."""
    from pathlib import Path

    from navsense.score.writer import read_score

    folder = Path(run_dir) / "score"
    if not (folder / "score.json").is_file():
        return []
    s = read_score(folder / "score.json")

    def num(key: str, fmt: str) -> str:
        v = s.get(key)
        return "-" if v is None else format(v, fmt)

    what = (
        f"Score of {Path(str(s.get('estimate'))).name} ({s.get('frame')}, point {s.get('point')}, "
        f"align {s.get('align')}): ATE horizontal RMS {num('ate_h_rms_m', '.3f')} m, vertical "
        f"{num('ate_v_rms_m', '.3f')} m, RPE {num('rpe_trans_rms_m', '.3f')} m per "
        f"{s.get('rpe_delta')} {s.get('rpe_unit')}, mean NEES {num('nees_3d_mean', '.2f')} "
        "(3 when honest). "
    )
    titles = {
        PLOT_FILES[0]: (
            "Estimate error over time",
            "Position error of the scored estimate "
            "with its own 1- and 2-sigma bands, outage windows and fix states.",
        ),
        PLOT_FILES[1]: (
            "Estimate error CDF",
            "Cumulative distribution of the scored estimate's horizontal, vertical and 3-D error.",
        ),
    }
    out = []
    for name in PLOT_FILES:
        path = folder / name
        if path.is_file():
            png = path.read_bytes()
            w, h = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
            title, caption = titles[name]
            out.append(Figure(title, what + caption, name, png, w, h))
    return out
