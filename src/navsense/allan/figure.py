"""The Allan deviation figure (matplotlib, Agg canvas, no pyplot state).

Two panels, gyro (rad/s) and accelerometer (m/s^2): the overlapping Allan deviation of each
axis (points and line) against tau, log-log, and over it the lines the configuration implies
(navsense.allan.terms; the x axis's configuration, the three axes' being alike in the presets):
the random walk N / sqrt(tau) (slope -1/2, dotted), the flicker floor 0.664 B of the configured
bias instability (dash-dot), the rate random walk K sqrt(tau / 3) (slope +1/2, dotted) and the
sum of every configured term (dashed grey; with the configurable IMU's Gauss-Markov bias
instability its hump). Error bars: 1 / sqrt(2 (T / tau - 1)) of each point.

``navsense allan --plot FILE`` writes it; ``navsense report`` shows it for a run of 10 minutes
or more (:func:`run_report_figures`).
"""

from __future__ import annotations

import io
import os

import numpy as np

from navsense.allan.analysis import AXES, AllanResult
from navsense.allan.terms import FLICKER_FLOOR

__all__ = ["REPORT_MIN_DURATION_S", "PLOT_FILE", "allan_figure_png", "run_report_figures"]

REPORT_MIN_DURATION_S = 600.0  # the report's figure: runs of 10 minutes or more
PLOT_FILE = "imu_allan.png"
_DPI = 100
_COLORS = ("#d62728", "#2ca02c", "#1f77b4")
_UNITS = {"gyro": "rad/s", "accel": "m/s$^2$"}


def allan_figure_png(result: AllanResult) -> tuple[bytes, int, int]:
    """The figure as PNG bytes, with its width and height in pixels."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure as MplFigure

    fig = MplFigure(figsize=(11, 6.5), dpi=_DPI, layout="constrained")
    FigureCanvasAgg(fig)
    tau = result.tau_s
    err = 1.0 / np.sqrt(2.0 * np.maximum(result.duration_s / tau - 1.0, 1e-9))
    fine = np.logspace(np.log10(tau[0]), np.log10(tau[-1]), 200)
    for p, sensor in enumerate(("gyro", "accel")):
        ax = fig.add_subplot(1, 2, p + 1)
        series = [(i, a[0]) for i, a in enumerate(AXES) if a[1] == sensor]
        for c, (i, name) in enumerate(series):
            sigma = result.adev[:, i]
            ok = sigma > 0.0
            ax.errorbar(
                tau[ok],
                sigma[ok],
                yerr=sigma[ok] * err[ok],
                color=_COLORS[c],
                lw=1.0,
                marker=".",
                ms=4,
                elinewidth=0.6,
                label=name,
            )
        terms = result.terms[sensor]
        total = np.sqrt(terms.avar(fine)[:, 0])
        if np.any(total > 0.0):
            ax.plot(fine, total, color="0.45", ls="--", lw=1.2, label="configured (sum)")
        walk = "ARW" if sensor == "gyro" else "VRW"
        n = float(np.hypot(terms.white[0], terms.quant_white[0]))
        if n > 0.0:
            ax.plot(fine, n / np.sqrt(fine), color="k", ls=":", lw=1.0, label=f"{walk} N/√τ")
        b = float(terms.bias_instability[0])
        if b > 0.0:
            ax.axhline(FLICKER_FLOOR * b, color="k", ls="-.", lw=1.0, label="0.664 B")
        k = float(terms.random_walk[0])
        if k > 0.0:
            ax.plot(fine, k * np.sqrt(fine / 3.0), color="0.3", ls=":", lw=1.0, label="K √(τ/3)")
        ax.set_xscale("log")
        cols = [i for i, a in enumerate(AXES) if a[1] == sensor]
        if np.any(result.adev[:, cols] > 0.0) or np.any(total > 0.0):
            ax.set_yscale("log")
        else:  # noise off, or a constant reading: nothing to put on a log scale
            ax.text(0.5, 0.5, "Allan deviation 0 (no noise)", transform=ax.transAxes, ha="center")
        ax.set_xlabel("averaging time τ (s)")
        ax.set_ylabel(f"Allan deviation ({_UNITS[sensor]})")
        ax.set_title("gyro" if sensor == "gyro" else "accelerometer")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=_DPI)
    w, h = fig.canvas.get_width_height()
    return buf.getvalue(), int(w), int(h)


def run_report_figures(run_dir: str | os.PathLike) -> list:
    """The run report's Allan deviation figure (a list of one
    :class:`navsense.runs.report_plots.Figure`), for a run with IMU rows over 10 minutes or
    more; [] otherwise, or when allantools (the ``allan`` extra) is not installed. A damaged
    IMU file is the report's own error (its IMU figure reads the same rows first).

    Ruling: rows missing (their mean rate more than 1 % from imu.hz, which ``navsense allan``
    refuses: a gap in the file, or many truth resets, each dropping two physics steps' samples)
    leave the figure out of the report, as a run under 10 minutes does, rather than failing the
    whole report: its other figures do not need evenly spaced IMU rows."""
    import importlib.util

    from navsense.runs.reader import RunReader
    from navsense.runs.report_plots import Figure

    if importlib.util.find_spec("allantools") is None:
        return []
    run = RunReader(run_dir)
    if not run.has("imu"):
        return []
    if run.episode.steps / run.episode.physics_hz < REPORT_MIN_DURATION_S:
        return []
    from navsense.allan.analysis import RowsMissing, allan_of_run

    try:
        result = allan_of_run(run_dir)
    except RowsMissing:
        return []
    png, w, h = allan_figure_png(result)
    caption = (
        f"Overlapping Allan deviation of the IMU's {result.rows} rows at {result.rate_hz:.4g} Hz "
        "(allantools), with the lines the configuration implies; meaningful for a stationary "
        "run only (navsense allan RUN_DIR prints the readings)"
    )
    return [Figure("IMU Allan deviation", caption, PLOT_FILE, png, w, h)]
