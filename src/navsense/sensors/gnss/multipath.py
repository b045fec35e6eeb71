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

from typing import Any

import numpy as np

from navsense.kernels import kernel
from navsense.site import Site
from navsense.sky.footprints import Prisms

# np.clip's ufunc itself: np.clip reaches it through three Python layers (some microseconds
# on an epoch's row); the same ufunc, so the same values
_clip: Any = getattr(getattr(getattr(np, "_core", None), "umath", None), "clip", None) or np.clip

__all__ = ["reflector_index", "Reflectors", "multipath_index", "ELEVATION_SCALE_RAD"]

ELEVATION_SCALE_RAD = np.radians(30.0)  # the 30 deg of the reflector index (specification)
_MIN_DISTANCE_M = 1.0  # max(D, 1) (specification)
_ELEVATION_SCALE = float(ELEVATION_SCALE_RAD)


class Reflectors:
    """The solid obstacles of a site for the reflector index, prepared once.

    ``Reflectors(site, reflector_range_m)``: boxes first, then cylinders, each in site order, with
    their centres, half widths b_h and tops z_t.
    """

    def __init__(self, site: Site, reflector_range_m: float) -> None:
        box_lo = np.asarray(site.box_min_m, dtype=np.float64).reshape(-1, 3)
        box_hi = np.asarray(site.box_max_m, dtype=np.float64).reshape(-1, 3)
        center_xy = np.concatenate(
            [
                0.5 * (box_lo[:, :2] + box_hi[:, :2]),
                np.asarray(site.cyl_xy_m, dtype=np.float64).reshape(-1, 2),
            ]
        )
        self.center_x, self.center_y = center_xy[:, 0].copy(), center_xy[:, 1].copy()
        self.half_width = np.concatenate(
            [
                0.5
                * np.hypot(
                    box_hi[:, 0] - box_lo[:, 0], box_hi[:, 1] - box_lo[:, 1]
                ),  # half diagonal
                np.asarray(site.cyl_radius_m, dtype=np.float64).reshape(-1),
            ]
        )
        self.top = np.concatenate(
            [box_hi[:, 2], np.asarray(site.cyl_top_m, dtype=np.float64).reshape(-1)]
        )
        self.range_m = float(reflector_range_m)
        self._range_row = np.array([self.range_m])
        # footprint prisms (navsense extension, issue 29): their terms follow, in site order
        self._prisms = (
            Prisms(site.poly_xy_m, site.poly_start, site.poly_base_m, site.poly_top_m)
            if len(site.poly_top_m)
            else None
        )

    def index(self, antenna_enu_m) -> np.ndarray:
        """The reflector index rho (m,) of antenna positions (m, 3) (:func:`reflector_index`)."""
        a = np.asarray(antenna_enu_m, dtype=np.float64)
        if a.ndim != 2 or a.shape[1] != 3:
            raise ValueError(f"Expected `antenna_enu_m` to have shape (m, 3), got {a.shape}")
        m, k_count = a.shape[0], self.top.size
        rho = np.zeros(m)
        if (k_count == 0 and self._prisms is None) or m == 0:
            return _clip(rho, 0.0, 1.0)
        d_r = self.range_m
        # D of every (epoch, obstacle); the terms only where D < d_r (0 elsewhere)
        dist = np.hypot(self.center_x - a[:, 0:1], self.center_y - a[:, 1:2])
        if m == 1 and self._prisms is None:  # one epoch: every obstacle's term (0 out of range)
            return self._one_epoch(a[0], dist[0])
        e, k = np.nonzero(dist < d_r)
        terms = np.zeros((k_count, m))  # obstacle by obstacle
        if e.size:
            terms[k, e] = self._terms(a, dist, e, k)
        if self._prisms is not None:  # the footprints' terms (navsense.sky.footprints)
            terms = np.concatenate([terms, self._prisms.reflector_terms(a, d_r)])
        # summed in obstacle order for every epoch (accumulate adds row after row; the terms are
        # >= 0, so starting from the first term is starting from 0)
        return _clip(np.add.accumulate(terms, axis=0)[-1], 0.0, 1.0)

    def _one_epoch(self, a: np.ndarray, dist: np.ndarray) -> np.ndarray:
        """rho (1,) of one antenna ``a`` (3,) at the distances ``dist`` (K,) from the obstacles:
        :meth:`_terms` of every obstacle by two kernels around numpy's arctan2 (the terms out
        of range 0, as the block's), summed in obstacle order from the first term."""
        k_count = dist.size
        prep = np.empty((2, k_count))
        _reflector_prep(dist, a, self.top, prep)  # max(D, 1), z_t - z_a
        width_at = np.arctan2(self.half_width, prep[0])
        height_at = np.arctan2(prep[1], prep[0])
        rho = np.empty(1)
        _reflector_sum(width_at, height_at, dist, self._range_row, rho)
        return rho

    def _terms(self, a, dist, e, k) -> np.ndarray:
        """The terms of the (epoch ``e``, obstacle ``k``) pairs within range (D < d_r) of
        antennas ``a`` at distances ``dist`` (m, K); summed in obstacle order (the terms are
        >= 0: the zeros of the obstacles out of range add nothing)."""
        dk = dist[e, k]
        dist1 = np.maximum(dk, _MIN_DISTANCE_M)
        width = 2.0 * np.arctan2(self.half_width[k], dist1) / (2.0 * np.pi)
        height = _clip(np.arctan2(self.top[k] - a[e, 2], dist1) / ELEVATION_SCALE_RAD, 0.0, 1.0)
        return width * height * (1.0 - dk / self.range_m)


@kernel(1, 1, 1, 2)
def _reflector_prep(dist, a, top, prep):
    """Reflectors._one_epoch before its arctan2: prep = (max(D, 1), z_t - z_a) of the K
    obstacles at distances D (K,) from the antenna a (3,) (the specification's terms)."""
    prep[0] = np.maximum(dist, _MIN_DISTANCE_M)
    prep[1] = top - a[2]


@kernel(1, 1, 1, 1, 1)
def _reflector_sum(width_at, height_at, dist, d_r, rho):
    """Reflectors._one_epoch after its arctan2: the terms 2 atan2(w, D') / (2 pi) times
    clamp(atan2(z_t - z_a, D') / 30 deg, 0, 1) times (1 - D / d_r) where D < d_r (0 beyond),
    summed in obstacle order from the first term, clamped to [0, 1] -> rho (1,)."""
    width = 2.0 * width_at / (2.0 * np.pi)
    height = np.minimum(np.maximum(height_at / ELEVATION_SCALE_RAD, 0.0), 1.0)
    terms = np.where(dist < d_r[0], width * height * (1.0 - dist / d_r[0]), 0.0)
    total = terms[0]
    for k in range(1, terms.size):
        total = total + terms[k]
    rho[0] = min(max(total, 0.0), 1.0)


def reflector_index(antenna_enu_m, site: Site, reflector_range_m: float) -> np.ndarray:
    """The reflector index rho (m,) of antenna positions (m, 3) among the site's solid obstacles.

    Boxes first, then cylinders, each in site order, summed in that order for every epoch
    (:class:`Reflectors` keeps the site's arrays between calls).
    """
    return Reflectors(site, reflector_range_m).index(antenna_enu_m)


def multipath_index(n_near, n_foliage, n_used, rho) -> np.ndarray:
    """The multipath index m = clamp((N_n + 0.5 N_f) / max(N_u, 1) + 0.5 rho, 0, 1), (m,).

    One epoch (every argument of shape (1,)): the same operations on Python floats (IEEE
    doubles; the counts' conversions are exact), clamped as np.clip's loop does."""
    args = (n_near, n_foliage, n_used, rho)
    if all(getattr(a, "shape", None) == (1,) for a in args):
        nn, nf, nu, r = (float(a[0]) for a in args)
        v = (nn + 0.5 * nf) / (nu if nu >= 1.0 or nu != nu else 1.0) + 0.5 * r
        v = v if v > 0.0 or v != v else 0.0
        return np.array([v if v < 1.0 or v != v else 1.0])
    n_near = np.asarray(n_near, dtype=np.float64)
    n_foliage = np.asarray(n_foliage, dtype=np.float64)
    n_used = np.asarray(n_used, dtype=np.float64)
    rho = np.asarray(rho, dtype=np.float64)
    return _clip((n_near + 0.5 * n_foliage) / np.maximum(n_used, 1.0) + 0.5 * rho, 0.0, 1.0)
