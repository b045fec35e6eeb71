"""The figures of the run report (matplotlib, Agg canvas, no pyplot state).

Each function takes a :class:`navsense.runs.report.RunData` and returns a :class:`Figure`
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
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from navsense.output.decimate import PixelColumns
from navsense.output.layouts.gnss import COUNT_KEYS
from navsense.runs.report_kit import (
    _DPI,
    FIX_COLORS,
    FIX_ORDER,
    SKY_COLORS,
    Figure,
    _fit_left,
    _new,
    _place,
    _png,
    line,
    pixel_columns,
    preload,
    require_matplotlib,
    time_columns,
)
from navsense.runs.report_sky import sky_epoch, sky_figure, sky_status

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
    "sky_figure",
    "sky_status",
    "preload",
    "FIX_ORDER",
]


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
    32). Steps inside the linear band below ``linthresh`` are left out, where they crowd 0.
    A step is kept only where its label clears the labels kept before it (0 first, then the
    decades, the fives, the twos): over several decades 5 cm and 10 cm would overlap."""
    from matplotlib.ticker import FixedLocator, FuncFormatter

    lo, hi = ax.get_ylim()
    steps = [m * 10.0**k for m in (1.0, 5.0, 2.0) for k in range(-3, 5)]  # in order of keeping
    steps = [v for v in steps if v >= linthresh]
    wanted = [0.0] + [sgn * v for v in steps for sgn in (1.0, -1.0) if lo <= sgn * v <= hi]
    label_px = 1.4 * ax.yaxis.get_ticklabels()[0].get_fontsize() * ax.figure.dpi / 72.0
    at = ax.transData.transform(np.column_stack([np.zeros(len(wanted)), wanted]))[:, 1]
    kept: list[int] = []
    for i in range(len(wanted)):
        if all(abs(at[i] - at[j]) >= label_px for j in kept):
            kept.append(i)
    ax.yaxis.set_major_locator(FixedLocator(sorted(wanted[i] for i in kept)))
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
_COUNT_KEYS = COUNT_KEYS[:5]  # the row's counts but satellites_above_mask (used + blocked)


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
    navsense.runs.report.write_report).

    ``parallel``: where the machine has a second core and the process may fork
    (navsense._runtime.worker.fork_safe), a forked child and this process share out the
    figures (:class:`navsense.runs.report_draw.FigureWorker`) while this process calls
    ``meanwhile`` (e.g. statistics); the PNGs are the same bytes either way. ``meanwhile`` is
    called once, in this process, in any case."""
    from navsense.runs.report_draw import FigureWorker

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
