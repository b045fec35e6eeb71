"""Reflector index and multipath index (specification, "GNSS Receiver", "Multipath Index").

Reflector index: each solid obstacle (building box, grain-bin cylinder; tree crowns are not
solid) with D < d_r adds::

    rho = clamp( sum 2 atan2(b_h, max(D, 1)) / (2 pi)
                     * clamp(atan2(z_t - z_a, max(D, 1)) / 30 deg, 0, 1)
                     * (1 - D / d_r),  0, 1)

Multipath index::

    m = clamp( (N_n + 0.5 N_f) / max(N_u, 1) + 0.5 rho,  0, 1)

where D is the horizontal distance (m) from the antenna to the obstacle's centre (box centre,
cylinder axis; DESIGN.md ruling "Distance D to an obstacle"), b_h the half width (the radius of
a cylinder, half the horizontal diagonal of a box), z_t the obstacle's top, z_a the antenna
height, d_r = reflector_range_m, and N_n, N_f, N_u the satellites near an obstruction, through
foliage and used.
"""

from __future__ import annotations

import numpy as np

from navsense.site import Site

__all__ = ["reflector_index", "multipath_index", "ELEVATION_SCALE_RAD"]

ELEVATION_SCALE_RAD = np.radians(30.0)  # the 30 deg of the reflector index (specification)
_MIN_DISTANCE_M = 1.0  # max(D, 1) (specification)


def reflector_index(antenna_enu_m, site: Site, reflector_range_m: float) -> np.ndarray:
    """The reflector index rho (m,) of antenna positions (m, 3) among the site's solid obstacles.

    Boxes first, then cylinders, each in site order, summed in that order for every epoch.
    """
    a = np.asarray(antenna_enu_m, dtype=np.float64)
    if a.ndim != 2 or a.shape[1] != 3:
        raise ValueError(f"Expected `antenna_enu_m` to have shape (m, 3), got {a.shape}")
    box_lo, box_hi = site.box_min_m, site.box_max_m
    center_xy = np.concatenate([0.5 * (box_lo[:, :2] + box_hi[:, :2]), site.cyl_xy_m])
    half_width = np.concatenate([
        0.5 * np.hypot(box_hi[:, 0] - box_lo[:, 0], box_hi[:, 1] - box_lo[:, 1]),  # half diagonal
        site.cyl_radius_m,
    ])
    top = np.concatenate([box_hi[:, 2], site.cyl_top_m])
    rho = np.zeros(a.shape[0])
    d_r = float(reflector_range_m)
    for k in range(center_xy.shape[0]):  # a few dozen obstacles; vectorised over epochs
        dist = np.hypot(center_xy[k, 0] - a[:, 0], center_xy[k, 1] - a[:, 1])
        dist1 = np.maximum(dist, _MIN_DISTANCE_M)
        width = 2.0 * np.arctan2(half_width[k], dist1) / (2.0 * np.pi)
        height = np.clip(np.arctan2(top[k] - a[:, 2], dist1) / ELEVATION_SCALE_RAD, 0.0, 1.0)
        term = width * height * (1.0 - dist / d_r)
        rho += np.where(dist < d_r, term, 0.0)
    return np.clip(rho, 0.0, 1.0)


def multipath_index(n_near, n_foliage, n_used, rho) -> np.ndarray:
    """The multipath index m = clamp((N_n + 0.5 N_f) / max(N_u, 1) + 0.5 rho, 0, 1), (m,)."""
    n_near = np.asarray(n_near, dtype=np.float64)
    n_foliage = np.asarray(n_foliage, dtype=np.float64)
    n_used = np.asarray(n_used, dtype=np.float64)
    rho = np.asarray(rho, dtype=np.float64)
    return np.clip((n_near + 0.5 * n_foliage) / np.maximum(n_used, 1.0) + 0.5 * rho, 0.0, 1.0)
