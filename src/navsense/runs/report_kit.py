"""The drawing kit of the run report's figures (matplotlib, Agg canvas, no pyplot state): the
colours of the fix states and satellite statuses, a figure's canvas in fixed margins
(:func:`_new`, :func:`_place`, :func:`_fit_left`, :func:`_settle`), series against time at a
few points per pixel column (:func:`line`, :func:`time_columns`) and the figure as PNG
(:func:`_png`, :class:`Figure`). The figures themselves: :mod:`navsense.runs.report_plots`
and :mod:`navsense.runs.report_sky`.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass

import numpy as np

from navsense.output.decimate import PixelColumns
from navsense.output.png import encode_png

__all__ = [
    "FIX_COLORS",
    "FIX_ORDER",
    "SKY_COLORS",
    "Figure",
    "line",
    "pixel_columns",
    "preload",
    "require_matplotlib",
    "time_columns",
]

FIX_COLORS = {
    "no_fix": "#9e9e9e",
    "single": "#d62728",
    "dgps": "#ff7f0e",
    "rtk_float": "#1f77b4",
    "rtk_fixed": "#2ca02c",
}
FIX_ORDER = ("no_fix", "single", "dgps", "rtk_float", "rtk_fixed")
SKY_COLORS = {
    "clear": "#2ca02c",
    "near": "#ff7f0e",
    "foliage": "#8c6d31",
    "blocked": "#d62728",
    "below_mask": "#bdbdbd",
}
_DPI = 100


def require_matplotlib(command: str = "navsense report") -> None:
    """DependencyError with the one-line hint when matplotlib is not installed (it is the
    ``report`` extra: ``pip install 'navsense[report]'``); nothing else needs it."""
    import importlib.util

    if importlib.util.find_spec("matplotlib") is None:
        from navsense.errors import DependencyError

        raise DependencyError(
            f"{command} draws its plots with matplotlib, which is not installed: "
            "pip install 'navsense[report]'"
        )


def preload() -> None:
    """Import matplotlib's Figure and Agg canvas now: before the report's figure child is
    forked (navsense.runs.report_draw), both processes then have them, 0.4 s of import paid
    once instead of in each."""
    import matplotlib.backends.backend_agg
    import matplotlib.figure  # noqa: F401


@dataclass(frozen=True)
class Figure:
    """One plot of the report: PNG bytes and where it goes."""

    title: str
    caption: str
    filename: str
    png: bytes
    width_px: int
    height_px: int


def _new(width_in: float, height_in: float):
    """A figure without a layout engine: its axes are placed by :func:`_place`."""
    import matplotlib as mpl
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure as MplFigure

    # layout None would mean the rcParams' layout, and a matplotlibrc may name one
    with mpl.rc_context({"figure.autolayout": False, "figure.constrained_layout.use": False}):
        fig = MplFigure(figsize=(width_in, height_in), dpi=_DPI, layout=None)
    FigureCanvasAgg(fig)  # the renderer of the figure's size, which _fit_left and savefig use
    return fig


#: the margins of the figures, inches: below the x axis's tick labels and label, above the
#: title, right of the last x tick label (half of "10000" past the axes' end), and between
#: stacked axes (room for a tick label at the top of the lower axes)
_BOTTOM_IN, _TOP_IN, _RIGHT_IN, _GAP_IN = 0.474, 0.265, 0.2, 0.19
_PAD_IN = 0.042  # the constrained layout's margin: left of the y label


def _place(
    fig,
    axes,
    left_in: float,
    ratios=None,
    *,
    right_in: float = _RIGHT_IN,
    bottom_in: float = _BOTTOM_IN,
    top_in: float = _TOP_IN,
) -> None:
    """Put ``axes`` (top to bottom, heights in ``ratios``) in fixed margins (inches): what the
    constrained layout made of the report's figures, with room for wider tick labels, and
    without its cost (about a quarter of a figure's CPU: it measures every text before the
    figure is drawn). ``left_in`` holds the y tick labels and the y label."""
    w, h = fig.get_size_inches()
    ratios = ratios or [1.0] * len(axes)
    height = h - top_in - bottom_in - _GAP_IN * (len(axes) - 1)
    top = h - top_in
    for ax, r in zip(axes, ratios):
        ah = height * r / sum(ratios)
        ax.set_position([left_in / w, (top - ah) / h, 1.0 - (left_in + right_in) / w, ah / h])
        top -= ah + _GAP_IN


def _fit_left(fig) -> None:
    """Move the left edge of the figure's axes (all by the same amount, the right edge stays)
    so that the widest y tick labels and y label start ``_PAD_IN`` from the canvas's edge, as
    the constrained layout does: only the y axes' texts are measured (their sizes are cached
    for the drawing), not every text of the figure. For axes of free aspect (placed by
    :func:`_place`)."""
    r = fig.canvas.get_renderer()
    axes = fig.get_axes()
    x0 = min(ax.yaxis.get_tightbbox(r).x0 for ax in axes)  # pixels
    shift = (_PAD_IN * fig.dpi - x0) / fig.bbox.width  # figure fraction
    for ax in axes:
        b = ax.get_position()
        ax.set_position([b.x0 + shift, b.y0, b.width - shift, b.height])
    _settle(axes, shift * fig.bbox.width, r)


def _settle(axes, shift_px: float, renderer) -> None:
    """Settle now what drawing the axes would work out again, to the same result, from the y
    ticks that :func:`_fit_left` measured before it moved them by ``shift_px`` (pixels):

    * the y label: matplotlib places it left of the y tick labels (measuring them again, and
      the spine); they moved with the axes, so does the label, placed where it was plus
      ``shift_px`` (``set_label_coords`` turns its placing off);
    * an empty axis label (the x label of stacked axes but the lowest) is not placed at all;
    * the title: matplotlib raises it clear of x tick labels on top and of the y axis's offset
      text ("1e5", measuring every y tick label again); with neither, and the title above the
      axes, it stays where it is (y = 1 in axes units), which is then fixed (a private flag,
      ``_autotitlepos``: a matplotlib without it places it as before).
    """
    for ax in axes:
        y = ax.yaxis
        if y.label.get_text():
            x_px, y_ax = y.label.get_position()
            y.set_label_coords(x_px + shift_px, y_ax, transform=y.label.get_transform())
        for axis in (ax.xaxis, ax.yaxis):
            if not axis.label.get_text():
                axis.set_label_coords(
                    *axis.label.get_position(), transform=axis.label.get_transform()
                )
        if _title_stays(ax, renderer):
            ax._autotitlepos = False


def _title_stays(ax, renderer) -> bool:
    """True if matplotlib's placing of the axes' title would leave it at y = 1:
    :meth:`matplotlib.axes.Axes._update_title_position` moves it only above x tick labels or
    an x label on top, or an offset text of the y axis, that it meets."""
    if ax.name != "rectilinear" or ax.child_axes or not ax.get_title():
        return False
    if ax.get_title(loc="left") or ax.get_title(loc="right"):
        return False
    tick = ax.xaxis.get_major_ticks(1)[0]
    if tick.tick2line.get_visible() or tick.label2.get_visible():
        return False
    if ax.xaxis.get_label_position() != "bottom" or ax.yaxis.offsetText.get_text():
        return False
    return ax.title.get_window_extent(renderer).y0 > ax.get_window_extent(renderer).y1


def pixel_columns(fig) -> int:
    """Columns to decimate a time axis on: twice the figure's width in pixels (no axes is
    wider, so a column is at most half a pixel; at one column a pixel the extremes are the
    same, and the antialiased edges of a dense line a little lighter than with every sample)."""
    return 2 * int(math.ceil(fig.get_figwidth() * _DPI))


def time_columns(fig, t: np.ndarray) -> PixelColumns:
    """The pixel columns of a time axis ``t`` on ``fig`` (:func:`pixel_columns`)."""
    return PixelColumns(t, pixel_columns(fig))


def line(ax, cols: PixelColumns, t: np.ndarray, y: np.ndarray, **kwargs):
    """``ax.plot(t, y, **kwargs)`` drawing only the samples that keep each pixel column's
    extremes and gaps (:meth:`navsense.output.decimate.PixelColumns.extremes`); axis limits and
    statistics still come from the whole data."""
    k = cols.extremes(y)
    return ax.plot(t[k], y[k], **kwargs)


def _png(fig, title: str, caption: str, filename: str) -> Figure:
    """The figure drawn once by savefig (the figure has no layout engine: savefig draws a
    figure that has one twice) into its raw RGBA pixels, encoded by
    :func:`navsense.output.png.encode_png` (Pillow, as savefig; the same pixels as savefig's
    PNG, in two thirds of its encoding time) with savefig's PNG metadata (Software, dpi)."""
    import matplotlib as mpl

    buf = io.BytesIO()
    fig.savefig(buf, format="rgba", dpi=_DPI)
    w, h = fig.canvas.get_width_height()
    rgba = np.frombuffer(buf.getbuffer(), dtype=np.uint8).reshape(int(h), int(w), 4)
    software = f"Matplotlib version{mpl.__version__}, https://matplotlib.org/"
    png = encode_png(rgba, dpi=_DPI, text={"Software": software})
    return Figure(title, caption, filename, png, int(w), int(h))
