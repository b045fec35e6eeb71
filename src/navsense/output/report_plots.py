"""The figures of the run report (matplotlib, Agg canvas, no pyplot state).

Each function takes a :class:`navsense.output.report.RunData` and returns a :class:`Figure`
(title, caption, file name, PNG bytes) or None when the run lacks the data; :func:`figure_makers`
lists them in report order and :func:`all_figures` draws them (two processes where there are two
cores: the report's statistics are computed meanwhile). A figure starts with :func:`_new`, draws series against time with
:func:`line` (or its indices from :func:`time_columns`) and ends with :func:`_png`. Colours are
fixed per fix state and per satellite status so that every plot reads the same way.

Speed: a plot against time draws at most a few points per pixel column of the figure, those
that keep the column's extremes (:func:`line`, :mod:`navsense.output.decimate`), so an hour's
run draws as fast as a minute's and looks the same; the track's paths are simplified as Agg
simplifies them when drawing (:func:`_track_points`). The axes are placed in fixed margins
(:func:`_place`, the constrained layout's result with room for wider labels, without its cost),
what :func:`_fit_left` measured is not measured again while drawing (:func:`_settle`), and
:func:`_png` draws each figure once and encodes it with :mod:`navsense.output.png`.
"""

from __future__ import annotations

import functools
import io
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from navsense.output.decimate import PixelColumns
from navsense.output.png import encode_png

__all__ = [
    "Figure",
    "all_figures",
    "figure_makers",
    "line",
    "pixel_columns",
    "time_columns",
    "require_matplotlib",
    "FIX_COLORS",
    "SKY_COLORS",
    "sky_epoch",
    "sky_status",
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
    forked (navsense.output.report_draw), both processes then have them, 0.4 s of import paid
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


# ---------------------------------------------------------------------------------- track
def _track_points(fig, ax, points: np.ndarray, limits_set: bool):
    """x and y of a path on the track's equal-aspect axes, simplified as Agg simplifies a line
    when it draws it (matplotlib's path simplification: the path stays within 1/9 of a pixel),
    here in units of the largest a pixel can be (the view's width and height over the
    figure's pixels; an axes pixel spans at least that): an hour's 360 000 INS points become a
    few hundred, and the legend's "best" place and the layout no longer walk through them all.
    Without set limits (the view follows the data) the path's own extent."""
    from matplotlib.path import Path as MplPath

    x, y = points[:, 0], points[:, 1]
    if limits_set:
        (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    else:
        x0, x1, y0, y1 = np.nanmin(x), np.nanmax(x), np.nanmin(y), np.nanmax(y)
    w, h = fig.get_figwidth() * _DPI, fig.get_figheight() * _DPI
    unit = max(abs(x1 - x0) / w, abs(y1 - y0) / h)
    if not (unit > 0 and np.isfinite(unit)) or len(x) < 2:
        return x, y
    path = MplPath(np.column_stack([x, y]) / unit).cleaned(remove_nans=True, simplify=True)
    v, codes = np.asarray(path.vertices), np.asarray(path.codes)
    v, codes = v[codes != MplPath.STOP], codes[codes != MplPath.STOP]
    # a MOVETO after the first vertex starts a piece after NaNs: a NaN row keeps the break
    v = np.insert(v, np.flatnonzero(codes[1:] == MplPath.MOVETO) + 1, np.nan, axis=0) * unit
    return v[:, 0], v[:, 1]


def track_figure(data) -> Figure | None:
    from matplotlib.patches import Circle, Polygon, Rectangle

    site = data.site()
    if data.ins_t_s is None and data.gnss_t_s is None:
        return None
    fig = _new(10, 8)
    ax = fig.add_subplot()
    # equal aspect: the box shrinks to the data's shape, centred (as the constrained layout)
    _place(fig, [ax], 0.8, right_in=0.8)
    xs, ys = [], []
    if site is not None:
        # add_artist, not add_patch: the view's limits are set below from xs and ys, which
        # hold every obstacle, so add_patch's update of the data limits (the Bezier extrema of
        # each circle: about 1 ms a patch, ACRE has 35) would go unused; the same drawing
        over = site.box_overhead
        if over is None:
            over = np.zeros(len(site.box_min_m), dtype=bool)
        labelled = False
        for lo, hi, up in zip(site.box_min_m, site.box_max_m, over):
            style: dict[str, Any] = {
                "facecolor": "#cfcfcf",
                "edgecolor": "#555555",
                "lw": 0.8,
                "zorder": 1,
            }
            if up:  # a deck, a roof: hatched and dashed, the ground beneath it drivable
                style.update(facecolor="none", hatch="///", ls="--")
                if not labelled:
                    style["label"] = f"overhead from {lo[2]:.1f} m (base_m)"
                    labelled = True
            ax.add_artist(Rectangle((lo[0], lo[1]), hi[0] - lo[0], hi[1] - lo[1], **style))
            xs += [lo[0], hi[0]]
            ys += [lo[1], hi[1]]
        starts = site.poly_start
        for i in range(len(site.poly_top_m)):  # building footprints (issue 29 item 3)
            ring = site.poly_xy_m[starts[i] : starts[i + 1]]
            ax.add_artist(
                Polygon(ring, closed=True, facecolor="#cfcfcf", edgecolor="#555555", lw=0.6)
            )
            xs += [ring[:, 0].min(), ring[:, 0].max()]
            ys += [ring[:, 1].min(), ring[:, 1].max()]
        for (x, y), r in zip(site.cyl_xy_m, site.cyl_radius_m):
            ax.add_artist(
                Circle((x, y), r, facecolor="#e0c9a6", edgecolor="#7f5f2f", lw=0.8, zorder=1)
            )
            xs += [x - r, x + r]
            ys += [y - r, y + r]
        for c, r in zip(site.crown_center_m, site.crown_radius_m):
            ax.add_artist(
                Circle(
                    (c[0], c[1]),
                    r,
                    facecolor="#74c476",
                    edgecolor="#238b45",
                    alpha=0.45,
                    lw=0.6,
                    zorder=1,
                )
            )
            xs += [c[0] - r, c[0] + r]
            ys += [c[1] - r, c[1] + r]
    paths = []  # (line, (n, 2+) points): drawn once the view, and so the pixel size, is known
    # the INS point's truth is known where the INS reports a position (an aided INS not yet
    # initialised reports none): without any, the antenna's truth is drawn
    if data.ins_truth_enu_m is not None and np.isfinite(data.ins_truth_enu_m[:, :2]).any():
        tr = data.ins_truth_enu_m
        (line,) = ax.plot([], [], color="black", lw=1.4, label="truth (INS point)", zorder=2)
        paths.append((line, tr))
        (line,) = ax.plot([], [], color="#6a3d9a", lw=0.8, ls="--", label="INS", zorder=3)
        paths.append((line, data.ins_position_enu_m))
        xs += [np.nanmin(tr[:, 0]), np.nanmax(tr[:, 0])]
        ys += [np.nanmin(tr[:, 1]), np.nanmax(tr[:, 1])]
    elif data.gnss_truth_antenna_enu_m is not None:
        tr = data.gnss_truth_antenna_enu_m
        (line,) = ax.plot([], [], color="black", lw=1.4, label="truth (antenna)", zorder=2)
        paths.append((line, tr))
    if data.gnss_t_s is not None:
        pos = data.gnss_position_enu_m
        for s in FIX_ORDER[1:]:
            sel = data.gnss_fix_type == s
            if sel.any():
                ax.scatter(
                    pos[sel, 0],
                    pos[sel, 1],
                    s=4,
                    color=FIX_COLORS[s],
                    zorder=4,
                    label=f"GNSS {s} ({np.count_nonzero(sel)})",
                    linewidths=0,
                )
        ok = np.isfinite(pos[:, 0])
        if ok.any():
            # GNSS single fixes can wander metres; keep the view on the site and the track
            xs += list(np.percentile(pos[ok, 0], [1, 99]))
            ys += list(np.percentile(pos[ok, 1], [1, 99]))
    if xs:
        pad = 10.0
        ax.set_xlim(min(xs) - pad, max(xs) + pad)
        ax.set_ylim(min(ys) - pad, max(ys) + pad)
    for line, points in paths:
        line.set_data(*_track_points(fig, ax, points, bool(xs)))
    ax.set_aspect("equal", adjustable="box")
    ax.set_xlabel("grid east (m)")
    ax.set_ylabel("grid north (m)")
    ax.grid(True, color="#eeeeee", zorder=0)
    ax.legend(loc="best", fontsize=8, markerscale=3)
    ax.set_title("Track over the site's obstacles")
    return _png(
        fig,
        "Track",
        "Truth INS point, INS position and GNSS fixes by fix state over the "
        "buildings (grey), grain bins (tan) and tree crowns (green), grid ENU.",
        "track.png",
    )


# ---------------------------------------------------------------------------------- errors
def _bands(ax, cols: PixelColumns, t, sigma, color):
    k = cols.extremes(sigma)
    t, s = t[k], np.ma.masked_invalid(sigma[k])
    ax.fill_between(t, -2 * s, 2 * s, color=color, alpha=0.15, lw=0, label="±2σ reported")
    ax.fill_between(t, -s, s, color=color, alpha=0.30, lw=0, label="±1σ reported")


def _error_lines(ax_h, ax_v, cols, t, err, sigma) -> None:
    """East and north error over the horizontal sigma band, up error over the vertical one."""
    _bands(ax_h, cols, t, sigma[:, 0], "#1f77b4")
    line(ax_h, cols, t, err[:, 0], color="#08306b", lw=0.7, label="east error")
    line(ax_h, cols, t, err[:, 1], color="#e6550d", lw=0.7, label="north error")
    ax_h.set_ylabel("horizontal error (m)")
    _bands(ax_v, cols, t, sigma[:, 2], "#31a354")
    line(ax_v, cols, t, err[:, 2], color="#00441b", lw=0.7, label="up error")
    ax_v.set_ylabel("vertical error (m)")
    ax_v.set_xlabel("episode time (s)")


def _metre_text(v: float, _pos=None) -> str:
    """A tick label of an error axis in metres: ``0``, ``5 mm``, ``2 cm``, ``1 m``."""
    a = abs(v)
    if a == 0.0:
        return "0"
    if a < 0.01 - 1e-12:
        return f"{v * 1000:g} mm"
    if a < 1.0 - 1e-12:
        return f"{v * 100:g} cm"
    return f"{v:g} m"


def _symlog_metre_ticks(ax, linthresh: float) -> None:
    """Labelled ticks of a symmetric-log error axis at the 1-2-5 steps of each decade from the
    millimetre up (2 cm, 5 cm, 10 cm, ... 1 m, 2 m ...), both signs, and 0, within the view;
    matplotlib's decades alone labelled a centimetre-level axis only at +-10^-2 and 0 (issue
    32). Steps inside the linear band below ``linthresh`` are left out, where they crowd 0."""
    from matplotlib.ticker import FixedLocator, FuncFormatter

    lo, hi = ax.get_ylim()
    steps = [m * 10.0**k for k in range(-3, 5) for m in (1.0, 2.0, 5.0)]
    steps = [v for v in steps if v >= linthresh]
    ticks = [0.0] + [sgn * v for v in steps for sgn in (1.0, -1.0) if lo <= sgn * v <= hi]
    crowded = sum(1 for v in ticks if v > 0) > 6 or sum(1 for v in ticks if v < 0) > 6
    if crowded:  # a view over several decades: the decades and their halves only
        ticks = [
            v for v in ticks if v == 0.0 or round(abs(v) / 10 ** np.floor(np.log10(abs(v)))) != 2
        ]
    ax.yaxis.set_major_locator(FixedLocator(sorted(ticks)))
    ax.yaxis.set_major_formatter(FuncFormatter(_metre_text))
    ax.set_ylim(lo, hi)


def _error_figure(t, err, sigma, title, filename, caption, symlog: float | None) -> Figure:
    fig = _new(10, 6.5)
    ax_h, ax_v = fig.subplots(2, 1, sharex=True)
    _place(fig, [ax_h, ax_v], 0.8)
    cols = time_columns(fig, t)
    _error_lines(ax_h, ax_v, cols, t, err, sigma)
    for ax in (ax_h, ax_v):
        if symlog:
            ax.set_yscale("symlog", linthresh=symlog)
            _symlog_metre_ticks(ax, symlog)
        ax.grid(True, color="#eeeeee")
        ax.legend(loc="upper right", fontsize=8, ncol=4)
    ax_h.set_title(title)
    _fit_left(fig)
    return _png(fig, title, caption, filename)


def gnss_error_figure(data) -> Figure | None:
    if data.gnss_error_enu_m is None:
        return None
    return _error_figure(
        data.gnss_t_s,
        data.gnss_error_enu_m,
        data.gnss_sigma_enu_m,
        "GNSS position error",
        "gnss_error.png",
        "Error of the GNSS position against the truth antenna, east and north (top, band: "
        "σ_E = σ_N) and up (bottom), with the receiver's reported ±1σ and ±2σ; symmetric-log "
        "scale, linear within ±1 cm. Gaps: no fix.",
        symlog=0.01,
    )


def ins_error_figure(data) -> Figure | None:
    if data.ins_error_enu_m is None:
        return None
    return _error_figure(
        data.ins_t_s,
        data.ins_error_enu_m,
        data.ins_sigma_enu_m,
        "INS position error",
        "ins_error.png",
        "Error of the INS position against the truth INS point (grid axes) with ±1σ and ±2σ of "
        "the reported covariance (InsCovE/N/U).",
        symlog=None,
    )


#: the aided INS's states (ins.aiding "gnss") in the order of the strip, and their colours
INS_STATE_ORDER = ("not_initialised", "dead_reckoning", *FIX_ORDER[1:])
INS_STATE_COLORS = {"not_initialised": "#9e9e9e", "dead_reckoning": "#9467bd", **FIX_COLORS}


def ins_aided_figure(data) -> Figure | None:
    """The aided INS (ins.aiding "gnss"): its state over time, and its position error with
    the reported +-1 sigma and +-2 sigma (symmetric-log scale: centimetres aided, metres after
    a long outage)."""
    if data.ins_state is None or data.ins_error_enu_m is None:
        return None
    t, err, sigma = data.ins_t_s, data.ins_error_enu_m, data.ins_sigma_enu_m
    fig = _new(10, 7.5)
    ax_s, ax_h, ax_v = fig.subplots(3, 1, sharex=True, height_ratios=[0.8, 1.6, 1.2])
    _place(fig, [ax_s, ax_h, ax_v], 0.93, [0.8, 1.6, 1.2])  # the states' names
    period = float(np.median(np.diff(t))) if len(t) > 1 else 0.01
    level = {s: i for i, s in enumerate(INS_STATE_ORDER)}
    states = np.asarray(data.ins_state)
    for state in INS_STATE_ORDER:
        spans = [(t[a], t[b - 1] - t[a] + period) for a, b, s in _runs(states) if s == state]
        if spans:
            ax_s.broken_barh(spans, (level[state] - 0.4, 0.8), facecolors=INS_STATE_COLORS[state])
    ax_s.set_yticks(range(len(INS_STATE_ORDER)), INS_STATE_ORDER, fontsize=7)
    ax_s.set_ylim(-0.6, len(INS_STATE_ORDER) - 0.4)
    cols = time_columns(fig, t)
    _error_lines(ax_h, ax_v, cols, t, err, sigma)
    for ax in (ax_h, ax_v):
        ax.set_yscale("symlog", linthresh=0.01)
        _symlog_metre_ticks(ax, 0.01)
        ax.legend(loc="upper right", fontsize=8, ncol=4)
    for ax in (ax_s, ax_h, ax_v):
        ax.set_axisbelow(True)
        ax.grid(True, color="#eeeeee")
    ax_s.set_title("Aided INS: state and position error")
    _fit_left(fig)
    return _png(
        fig,
        "Aided INS",
        "State of the GNSS-aided INS (ins.aiding gnss: not initialised before the receiver's "
        "first fix, dead reckoning without a usable fix, else the receiver's fix state) and the "
        "error of its position against the truth INS point (grid axes) with ±1σ and ±2σ of the "
        "reported covariance; symmetric-log scale, linear within ±1 cm. Gaps: not initialised.",
        "ins_aided.png",
    )


# ------------------------------------------------------------------------------ fix states
_COUNT_KEYS = (
    "satellites_used",
    "satellites_clear",
    "satellites_near_obstruction",
    "satellites_foliage",
    "satellites_blocked",
)


def _runs(values: np.ndarray):
    """(start index, end index, value) of each run of equal values."""
    if len(values) == 0:
        return []
    change = np.flatnonzero(values[1:] != values[:-1]) + 1
    starts = np.concatenate([[0], change])
    ends = np.concatenate([change, [len(values)]])
    return [(int(a), int(b), values[a]) for a, b in zip(starts, ends)]


def fix_state_figure(data) -> Figure | None:
    if data.gnss_t_s is None:
        return None
    t, fix, c = data.gnss_t_s, data.gnss_fix_type, data.gnss_counts
    period = 1.0 / data.gnss_hz
    fig = _new(10, 7.5)
    ax_f, ax_n, ax_d = fig.subplots(3, 1, sharex=True, height_ratios=[1.0, 1.6, 1.0])
    _place(fig, [ax_f, ax_n, ax_d], 0.66, [1.0, 1.6, 1.0])
    spans: dict = {s: [] for s in FIX_ORDER}
    for a, b, s in _runs(fix):
        spans[str(s)].append((t[a], t[b - 1] - t[a] + period))
    for i, s in enumerate(FIX_ORDER):  # one collection per state, not one per run
        if spans[s]:
            ax_f.broken_barh(spans[s], (i - 0.4, 0.8), facecolors=FIX_COLORS[s])
    ax_f.set_yticks(range(len(FIX_ORDER)), FIX_ORDER, fontsize=8)
    ax_f.set_ylim(-0.6, len(FIX_ORDER) - 0.4)
    ax_f.set_title("Fix state, satellites and HDOP")
    hdop = np.where(data.gnss_hdop >= 99.0, np.nan, data.gnss_hdop)  # 99.99: no geometry
    cols = time_columns(fig, t)
    for key, label, color in (
        ("satellites_used", "used", "black"),
        ("satellites_clear", "clear", SKY_COLORS["clear"]),
        ("satellites_near_obstruction", "near", SKY_COLORS["near"]),
        ("satellites_foliage", "foliage", SKY_COLORS["foliage"]),
        ("satellites_blocked", "blocked", SKY_COLORS["blocked"]),
    ):
        k = cols.extremes(c[key])
        ax_n.step(
            t[k],
            c[key][k],
            where="post",
            color=color,
            lw=1.0 if key != "satellites_used" else 1.6,
            label=label,
        )
    ax_n.set_ylabel("satellites")
    ax_n.set_ylim(-0.5, max(4, int(c["satellites_above_mask"].max(initial=0))) * 1.3)
    ax_n.legend(loc="upper right", fontsize=8, ncol=5)
    line(ax_d, cols, t, hdop, color="#6a3d9a", lw=1.0)
    ax_d.set_ylabel("HDOP")
    ax_d.set_xlabel("episode time (s)")
    if np.isfinite(hdop).any():
        ax_d.set_ylim(0, max(2.0, float(np.nanpercentile(hdop, 99)) * 1.2))
    for ax in (ax_f, ax_n, ax_d):
        ax.set_axisbelow(True)
        ax.grid(True, color="#eeeeee")
    _fit_left(fig)
    return _png(
        fig,
        "Fix states",
        "Fix state of each GNSS epoch, the satellites used (clear + "
        "near + foliage), clear, near an obstruction, through foliage and blocked, and the "
        "HDOP of the used satellites (empty: no geometry).",
        "fix_states.png",
    )


# ------------------------------------------------------------------------------------- sky
def sky_epoch(data, sky_time_s: float | None) -> int | None:
    """Index of the GNSS epoch of the sky plot: the epoch nearest ``sky_time_s``, or by default
    the epoch (with a satellite used) that shows the most kinds of status (clear, near, foliage,
    blocked), then the most satellites in foliage, near and blocked (the first such epoch)."""
    if data.gnss_t_s is None or len(data.gnss_t_s) == 0:
        return None
    if sky_time_s is not None:
        return int(np.argmin(np.abs(data.gnss_t_s - float(sky_time_s))))
    c = data.gnss_counts
    kinds = sum(
        (c[k] > 0).astype(int)
        for k in (
            "satellites_clear",
            "satellites_near_obstruction",
            "satellites_foliage",
            "satellites_blocked",
        )
    )
    score = (
        100 * kinds
        + 2 * c["satellites_foliage"]
        + c["satellites_near_obstruction"]
        + c["satellites_blocked"]
    ).astype(float)
    score[c["satellites_used"] == 0] = -1.0
    return int(np.argmax(score))


def _antenna_at(data, k: int, sky) -> np.ndarray | None:
    """The antenna at GNSS epoch k: from the truth, else from the INS pose (nearest epoch)."""
    if data.gnss_truth_antenna_enu_m is not None:
        return data.gnss_truth_antenna_enu_m[k]
    if data.ins_t_s is None:
        return None
    from navsense.rotation import quat_to_matrix, rotate

    j = int(np.argmin(np.abs(data.ins_t_s - data.gnss_t_s[k])))
    ins_arm = data.episode.ins_point_chassis_m
    r = quat_to_matrix(data.ins_q_enu_xyzw[j])
    return data.ins_position_enu_m[j] + rotate(r, sky.lever_arm_m - ins_arm)


_SKY_AZ_DEG = np.arange(0, 361, 1.0)  # the illustration's grid of rays
_SKY_EL_DEG = np.arange(0.0, 90.01, 0.5)


def _skyline(antenna, site, foliage_block_path_m: float):
    """Upper elevation (deg) of the blocked and of the foliage sky at each azimuth, (361,) each.

    Illustration only: rays on a 1-degree azimuth grid and a 0.5-degree elevation grid against
    the raw obstacle shapes (the model's culling is not applied).
    """
    az_deg, deg, blocked, foliage = _sky_grid(antenna, site, foliage_block_path_m)

    def top(mask):
        any_ = mask.any(axis=1)
        idx = mask.shape[1] - 1 - np.argmax(mask[:, ::-1], axis=1)
        return np.where(any_, deg[idx], np.nan)

    return az_deg, top(blocked), top(foliage | blocked)


def _sky_grid(antenna, site, foliage_block_path_m: float):
    """The rays of the illustration: azimuths (naz,) and elevations (nel,) in degrees, and the
    blocked and foliage rays (naz, nel) against the raw obstacle shapes."""
    from navsense.sky import obstruction as sky

    az = np.radians(_SKY_AZ_DEG)
    el = np.radians(_SKY_EL_DEG)
    ca, sa = np.cos(el)[None, :], np.sin(el)[None, :]
    d = np.stack(
        [
            np.sin(az)[:, None] * ca,
            np.cos(az)[:, None] * ca,
            np.broadcast_to(sa, (az.size, el.size)),
        ],
        axis=-1,
    )  # (naz, nel, 3) ENU
    blocked = np.zeros(d.shape[:2], dtype=bool)
    for lo, hi in zip(site.box_min_m, site.box_max_m):
        k = _facing(antenna, (lo[:2] + hi[:2]) / 2, math.hypot(*(hi[:2] - lo[:2])) / 2)
        blocked[k] |= sky.ray_box_hit(antenna, d[k], lo, hi)
    for xy, b, t, r in zip(site.cyl_xy_m, site.cyl_base_m, site.cyl_top_m, site.cyl_radius_m):
        k = _facing(antenna, xy, r)
        blocked[k] |= sky.ray_cylinder_hit(antenna, d[k], xy, b, t, r)
    if len(site.poly_top_m):  # building footprints (issue 29 item 3): prisms
        from navsense.sky.footprints import Prisms

        prisms = Prisms(site.poly_xy_m, site.poly_start, site.poly_base_m, site.poly_top_m)
        for i in range(prisms.count):
            k = _facing(antenna, prisms.mid[i], float(prisms.radius[i]))
            rays = d[k].reshape(-1, 3)
            o = np.broadcast_to(np.asarray(antenna, dtype=np.float64), rays.shape)
            idx = np.full(rays.shape[0], i)
            hit = prisms.hits(o[:, 0], o[:, 1], o[:, 2], rays[:, 0], rays[:, 1], rays[:, 2], idx)
            blocked[k] |= hit.reshape(d[k].shape[:2])
    chord = np.zeros(d.shape[:2])
    for c, r in zip(site.crown_center_m, site.crown_radius_m):
        k = _facing(antenna, c[:2], r)
        chord[k] += sky.sphere_chord(antenna, d[k], c, r)
    blocked |= chord >= foliage_block_path_m
    foliage = (chord > 0) & ~blocked
    return np.degrees(az), np.degrees(el), blocked, foliage


def _facing(antenna, center_xy, radius: float) -> np.ndarray | slice:
    """The azimuths of the illustration's grid (indices into ``_SKY_AZ_DEG``) whose rays can
    meet an obstacle inside the vertical cylinder of ``radius`` about ``center_xy``: a ray
    meets it only if its horizontal half-line does, so within asin(radius / distance) of the
    bearing to the centre (1 degree more for rounding); every azimuth when the antenna stands
    inside. The other rays miss it: the grid is the same as testing every ray, in a tenth of
    the time (ACRE's 29 crowns, 4 boxes and 2 bins are a few degrees wide each)."""
    dx, dy = float(center_xy[0] - antenna[0]), float(center_xy[1] - antenna[1])
    dist = math.hypot(dx, dy)
    if not dist > 1.01 * radius + 1e-6:
        return slice(None)
    half = math.degrees(math.asin(radius / dist)) + 1.0
    off = (_SKY_AZ_DEG - math.degrees(math.atan2(dx, dy)) + 180.0) % 360.0 - 180.0
    return np.flatnonzero(np.abs(off) <= half)


def _sky_cells(ax, antenna, site, foliage_block_path_m: float) -> None:
    """The blocked and foliage sky drawn ray by ray (a cell of the 1 x 0.5 degree grid each):
    for a site with overhead obstacles, whose blocked sky need not reach down to the horizon
    (the open sky under a bridge's edge, a deck seen from afar)."""
    from matplotlib.colors import ListedColormap

    az_deg, el_deg, blocked, foliage = _sky_grid(antenna, site, foliage_block_path_m)
    th = np.radians(np.concatenate([az_deg - 0.5, [az_deg[-1] + 0.5]]))
    el_edges = np.clip(np.concatenate([el_deg - 0.25, [el_deg[-1] + 0.25]]), 0.0, 90.0)
    kind = np.where(blocked, 2.0, np.where(foliage, 1.0, np.nan)).T  # (nel, naz)
    ax.pcolormesh(
        th,
        90 - el_edges,
        np.ma.masked_invalid(kind),
        cmap=ListedColormap(["#74c476", "#969696"]),
        vmin=1.0,
        vmax=2.0,
        alpha=0.5,
        shading="flat",
        zorder=1,
    )
    for color, label, alpha in (("#74c476", "foliage", 0.35), ("#969696", "obstacles", 0.5)):
        ax.fill_between([], [], color=color, alpha=alpha, lw=0, label=label)


def sky_status(data, k: int, sky=None):
    """The sky of GNSS epoch k recomputed with the run's receiver settings and site
    (``data.sky()``, navsense.sky): (t_s, antenna (3,) or None, lines of sight (1, nsat, 3),
    status (nsat,) of navsense.sky.obstruction). Without an antenna position only the mask
    applies. In a window of gnss.signal_outages_s every tracked satellite is lost, as in the
    receiver (:func:`navsense.sky.obstruction.signal_lost`)."""
    from navsense.sky import obstruction

    sky = sky if sky is not None else data.sky()
    t = float(data.gnss_t_s[k])
    antenna = _antenna_at(data, k, sky)
    los, visible = sky.constellation.sky(np.array([t]), sky.view.mask_deg)
    if antenna is not None:
        status = sky.view.classify(antenna[None, :], los, visible)[0]
    else:  # no pose: only the elevation mask
        status = np.where(visible[0], obstruction.CLEAR, obstruction.BELOW_MASK).astype(np.int8)
    if sky.signal_outages_s:
        status = obstruction.signal_lost(status[None, :], np.array([t]), sky.signal_outages_s)[0]
    return t, antenna, los, status


#: where a satellite's label may go beside its marker, in points (x right, y up), in order
_LABEL_OFFSETS = ((5, 4), (5, -11), (-5, 4), (-5, -11), (9, -3.5), (-9, -3.5), (0, 9), (0, -16))


def _label_satellites(fig, ax, marked) -> None:
    """Each satellite's name beside its marker, at the first place of :data:`_LABEL_OFFSETS`
    where it overlaps no name already placed and no other marker; where there is none, the
    first place (issue 32: G07 and R07 overlapped when two satellites stood close). Names are
    placed from the zenith outwards, their boxes measured with the figure's renderer."""
    renderer = fig.canvas.get_renderer()
    centres = [ax.transData.transform((a, r)) for a, r, _ in marked]
    marker_px = 5.0 * fig.dpi / 72.0  # a marker's radius (s=70: about 8.4 pt across)
    placed: list = []
    for i in sorted(range(len(marked)), key=lambda j: marked[j][1]):
        a, r, lab = marked[i]
        text = None
        for k, (dx, dy) in enumerate(_LABEL_OFFSETS):
            ha = "left" if dx > 0 else "right" if dx < 0 else "center"
            candidate = ax.annotate(
                lab,
                (a, r),
                textcoords="offset points",
                xytext=(dx, dy),
                fontsize=7,
                zorder=6,
                ha=ha,
            )
            box = candidate.get_window_extent(renderer)
            clear = not any(box.overlaps(b) for b in placed) and not any(
                j != i
                and box.x0 - marker_px < c[0] < box.x1 + marker_px
                and box.y0 - marker_px < c[1] < box.y1 + marker_px
                for j, c in enumerate(centres)
            )
            if clear or k == len(_LABEL_OFFSETS) - 1:
                if not clear and text is not None:  # none is clear: the first place
                    candidate.remove()
                    candidate = text
                elif text is not None:
                    text.remove()
                placed.append(candidate.get_window_extent(renderer))
                break
            if text is None:
                text = candidate  # the first place, kept should none be clear
            else:
                candidate.remove()


def sky_figure(data, sky_time_s: float | None = None) -> Figure | None:
    from navsense.sky import obstruction as sky

    k = sky_epoch(data, sky_time_s)
    if k is None:
        return None
    run_sky = data.sky()
    if run_sky.constellation is None:  # the run's RINEX file is gone (sky_time_note says so)
        return None
    t, antenna, los, status = sky_status(data, k, run_sky)
    l_e, l_n, l_u = los[0, :, 0], los[0, :, 1], los[0, :, 2]
    el = np.degrees(np.arcsin(np.clip(l_u, -1, 1)))
    az = np.arctan2(l_e, l_n)

    fig = _new(7.5, 7.5)
    ax = fig.add_subplot(projection="polar")
    # a square (equal aspect), the legend right of it
    _place(fig, [ax], 0.4, right_in=1.5, bottom_in=0.935, top_in=0.935)
    ax.set_theta_zero_location("N")
    ax.set_theta_direction(-1)
    if antenna is not None and data.site() is not None and run_sky.site.box_overhead is not None:
        _sky_cells(ax, antenna, run_sky.site, run_sky.view.foliage_block_path_m)
    elif antenna is not None and data.site() is not None:
        az_deg, top_blocked, top_foliage = _skyline(
            antenna, run_sky.site, run_sky.view.foliage_block_path_m
        )
        th = np.radians(az_deg)
        ax.fill_between(
            th,
            90 - np.nan_to_num(top_foliage, nan=0.0),
            90,
            color="#74c476",
            alpha=0.35,
            lw=0,
            label="foliage",
        )
        ax.fill_between(
            th,
            90 - np.nan_to_num(top_blocked, nan=0.0),
            90,
            color="#969696",
            alpha=0.5,
            lw=0,
            label="obstacles",
        )
    mask_r = 90 - run_sky.view.mask_deg
    ax.plot(
        np.linspace(0, 2 * np.pi, 361),
        np.full(361, mask_r),
        color="#555555",
        lw=0.8,
        ls=":",
        label=f"mask {run_sky.view.mask_deg:g}°",
    )
    names = {
        sky.CLEAR: "clear",
        sky.NEAR: "near",
        sky.FOLIAGE: "foliage",
        sky.BLOCKED: "blocked",
        sky.BELOW_MASK: "below_mask",
    }
    up = el > 0
    ax.set_rlim(0, 90)
    marked: list = []  # (azimuth, zenith distance, label) of each marker drawn
    for code, name in names.items():
        sel = (status == code) & up
        if code == sky.BELOW_MASK:
            sel &= run_sky.constellation.enabled
        if not sel.any():
            continue
        hollow = code == sky.BELOW_MASK
        ax.scatter(
            az[sel],
            90 - el[sel],
            s=70,
            zorder=5,
            facecolors="none" if hollow else SKY_COLORS[name],
            edgecolors=SKY_COLORS[name],
            linewidths=1.2,
            label=f"{name.replace('_', ' ')} ({np.count_nonzero(sel)})",
        )
        marked.extend(zip(az[sel], 90 - el[sel], run_sky.constellation.label[sel]))
    _label_satellites(fig, ax, marked)
    ax.set_rticks([0, 30, 60, 90], ["90°", "60°", "30°", "0°"])
    ax.set_rlabel_position(135)
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=8)
    row = {key: int(v[k]) for key, v in data.gnss_counts.items()}
    lost = any(t1 <= t < t2 for t1, t2 in run_sky.signal_outages_s)
    ax.set_title(
        f"Sky at t = {t:.1f} s ({data.gnss_fix_type[k]}): {row['satellites_used']} used, "
        f"{row['satellites_clear']} clear, {row['satellites_near_obstruction']} near, "
        f"{row['satellites_foliage']} foliage, {row['satellites_blocked']} blocked"
        + ("\nsignal outage (gnss.signal_outages_s): every satellite lost" if lost else ""),
        fontsize=10,
    )
    source = (
        "the truth antenna"
        if data.gnss_truth_antenna_enu_m is not None
        else "the antenna placed from the INS pose"
        if antenna is not None
        else "no antenna position: the elevation mask only"
    )
    return _png(
        fig,
        "Sky plot",
        f"Satellites at t = {t:.1f} s seen from {source}: azimuth clockwise from grid "
        "north, elevation from the rim (0°) to the centre (90°). Markers are the "
        "receiver model's classification; the shaded skyline (obstacles grey, crowns "
        "green) is an illustration of the raw shapes.",
        "sky.png",
    )


# ------------------------------------------------------------------------------------- IMU
def imu_figure(data) -> Figure | None:
    if data.imu_t_s is None:
        return None
    t = data.imu_t_s
    f, w = data.imu_specific_force_flu_mps2, data.imu_angular_velocity_flu_radps
    fig = _new(10, 8)
    ax_h, ax_u, ax_w = fig.subplots(3, 1, sharex=True, height_ratios=[1.2, 0.8, 1.2])
    _place(fig, [ax_h, ax_u, ax_w], 0.85, [1.2, 0.8, 1.2])
    cols = time_columns(fig, t)
    colors = {"forward": "#d62728", "left": "#2ca02c", "up": "#1f77b4"}
    line(ax_h, cols, t, f[:, 0], color=colors["forward"], lw=0.5, label="forward")
    line(ax_h, cols, t, f[:, 1], color=colors["left"], lw=0.5, label="left")
    line(ax_u, cols, t, f[:, 2], color=colors["up"], lw=0.5, label="up")
    for i, name in enumerate(colors):
        line(ax_w, cols, t, w[:, i], color=colors[name], lw=0.5, label=name)
    ax_h.set_ylabel("specific force\n(m/s²)")
    ax_u.set_ylabel("specific force\nup (m/s²)")
    ax_w.set_ylabel("angular rate\n(rad/s)")
    ax_w.set_xlabel("episode time (s)")
    for ax in (ax_h, ax_u, ax_w):
        ax.grid(True, color="#eeeeee")
        ax.legend(loc="lower right", fontsize=8, ncol=3)
    ax_h.set_title("IMU, body FLU axes")
    _fit_left(fig)
    return _png(
        fig,
        "IMU",
        "Specific force (forward and left; up) and angular rate of the IMU "
        "in body FLU axes, with bias and noise (a stationary level IMU reads +9.81 m/s² "
        "up).",
        "imu.png",
    )


def ins_figure(data) -> Figure | None:
    """The INS's figure: the aided INS's (ins.aiding "gnss") or else the INS position error."""
    return ins_aided_figure(data) or ins_error_figure(data)


def figure_makers(sky_time_s: float | None = None) -> list:
    """The report's figures in report order: functions of the run's data, each returning a
    :class:`Figure` or None (a new figure is one more entry here)."""
    return [
        track_figure,
        gnss_error_figure,
        ins_figure,
        fix_state_figure,
        functools.partial(sky_figure, sky_time_s=sky_time_s),
        imu_figure,
    ]


def all_figures(
    data,
    *,
    sky_time_s: float | None = None,
    notes: list | None = None,
    parallel: bool = True,
    meanwhile: Callable[[], Any] | None = None,
) -> list:
    """Every figure the run's data allow, in report order (:func:`figure_makers`), from data
    read already (``navsense report`` forks its child before reading:
    navsense.output.report.write_report).

    ``parallel``: where the machine has a second core and the process may fork
    (navsense._runtime.worker.fork_safe), a forked child and this process share out the
    figures (:class:`navsense.output.report_draw.FigureWorker`) while this process calls
    ``meanwhile`` (e.g. statistics); the PNGs are the same bytes either way. ``meanwhile`` is
    called once, in this process, in any case."""
    from navsense.output.report_draw import FigureWorker

    with FigureWorker(data, _nothing, figure_makers(sky_time_s), [], parallel=parallel) as w:
        figs = w.draw(data, meanwhile)
    if notes is not None:
        sky_time_note(data, sky_time_s, notes)
    return [f for f in figs if f is not None]


def _nothing(data) -> None:
    """No early rows: the child forked after the data were read has them all."""


def sky_time_note(data, sky_time_s: float | None, notes: list) -> None:
    """The note that the sky plot moved ``sky_time_s`` to the nearest GNSS epoch, if it did,
    or that it is left out (the run's RINEX navigation file cannot be read now)."""
    if data.gnss_t_s is not None and len(data.gnss_t_s):
        run_sky = data.sky()
        if run_sky.constellation is None:
            notes.append(f"Sky plot left out: {run_sky.note}")
            return
    if sky_time_s is not None and data.gnss_t_s is not None:
        k = sky_epoch(data, sky_time_s)
        if not math.isclose(float(data.gnss_t_s[k]), float(sky_time_s), abs_tol=1e-6):
            notes.append(
                f"Sky plot: --time-s {sky_time_s:g} moved to the nearest GNSS epoch, "
                f"t = {data.gnss_t_s[k]:.2f} s."
            )
