"""The run report's sky plot: the satellites seen from the GNSS antenna at one epoch, with the
site's obstructions (navsense.sky), drawn with :mod:`navsense.runs.report_kit`."""

from __future__ import annotations

import math

import numpy as np

from navsense.rotation import wrap_degrees
from navsense.runs.report_kit import (
    SKY_COLORS,
    Figure,
    _new,
    _place,
    _png,
)

__all__ = [
    "sky_epoch",
    "sky_figure",
    "sky_status",
]


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
    off = wrap_degrees(_SKY_AZ_DEG - math.degrees(math.atan2(dx, dy)))
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
