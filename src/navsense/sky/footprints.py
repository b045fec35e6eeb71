"""Building footprints as prisms: ray tests and reflector terms (navsense extension, issue 29
item 3; the site's ``footprints``, :class:`navsense.site.Site`).

A footprint is a polygon P (its outline, grid ENU metres; the even-odd rule decides its inside,
its boundary belongs to it) extruded from its base z_b to its top z_t. The specification's
obstacles (boxes, cylinders, crowns: :mod:`navsense.sky.obstruction`) are unchanged; a prism is
a further kind, tested as exactly as RayBox tests a box.

RayPrism. The ray o + t l, t >= 0, meets the closed prism when, over the interval of t where
z_b <= o_z + t l_z <= z_t and t >= 0 (the z slab, as RayBox's), its horizontal trace, the segment
A B (A = o_xy + t_0 l_xy, B = o_xy + t_1 l_xy), meets P: A lies in P, or A B meets an edge of P
(closed segments: touching counts). Where the slab does not end (a horizontal ray within the
prism's heights) B is taken beyond the polygon's bounding circle, which changes nothing; a
vertical ray's trace is the point A.

Near (the specification's "Near" for boxes: the shape enlarged by near_margin_m d_n): the prism
with its footprint buffered by d_n (every point within d_n horizontally of P, as a GIS buffer
such as shapely's ``buffer(d_n)`` makes it) and its top raised by d_n, its base as it is (the
cylinder's rule: a footprint stands on the ground). The trace A B over the z slab
[z_b, z_t + d_n] then comes within d_n of P: A lies in P, A B meets an edge, or the distance
between A B and an edge is <= d_n (two segments that do not cross: the least of the four
distances from an end point to the other segment).

Culling (navsense's, for prisms): a prism is tested at an epoch when z_t + d_n - z_a > 0 and
atan2(z_t + d_n - z_a, D) >= mask, with D = max(D_box - d_n, 0) and D_box the horizontal distance
from the antenna to the footprint's bounding box (0 inside it). Unlike the specification's
culling by the centre (kept for its shapes), this one is conservative: a ray above the mask
that meets the enlarged prism meets it at a height <= z_t + d_n and a horizontal distance >= D,
so its elevation is <= atan2(z_t + d_n - z_a, D) (the mask is >= 0). The statuses are therefore
those of testing every prism.

Reflector index (the specification's "Multipath Index", its term for one obstacle, with the
footprint's own geometry): a footprint whose outline comes within d_r = reflector_range_m of
the antenna adds::

    (phi / 2 pi) * clamp(atan2(z_t - z_a, max(D, 1)) / 30 deg, 0, 1) * (1 - D / d_r)

where D is the horizontal distance from the antenna to the outline (0 inside) and phi the
azimuth span of its faces seen from the antenna: the range of the unwrapped azimuth along the
outline (the running sum of the angles its edges subtend), at most 2 pi (an antenna inside or
in a courtyard that the faces surround). The specification's 2 atan2(b_h, max(D, 1)) is the span
of a face of half width b_h seen head-on from distance D; phi measures the faces as they are (a
long wall beside the road spans nearly half the horizon, as its reflections do). The terms
follow the boxes' and cylinders' in the sum, in site order.
"""

from __future__ import annotations

import numpy as np

__all__ = ["Prisms", "ray_prism_hit"]

_INF = np.inf
_TWO_PI = 2.0 * np.pi
_ELEVATION_SCALE_RAD = np.radians(30.0)  # the reflector index's 30 deg (specification)


def _orient(ax, ay, bx, by, cx, cy):
    """(b - a) x (c - a): > 0 when c is left of a -> b, 0 on its line."""
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)


def _segments_meet(ax, ay, bx, by, cx, cy, dx, dy):
    """Do the closed segments A B and C D meet (touching and overlapping count)?"""
    d1 = _orient(cx, cy, dx, dy, ax, ay)
    d2 = _orient(cx, cy, dx, dy, bx, by)
    d3 = _orient(ax, ay, bx, by, cx, cy)
    d4 = _orient(ax, ay, bx, by, dx, dy)
    proper = (((d1 <= 0) & (d2 >= 0)) | ((d1 >= 0) & (d2 <= 0))) & (
        ((d3 <= 0) & (d4 >= 0)) | ((d3 >= 0) & (d4 <= 0))
    )
    collinear = (d1 == 0) & (d2 == 0)
    # on one line: the boxes of the two segments overlap
    overlap = (
        np.maximum(np.minimum(ax, bx), np.minimum(cx, dx))
        <= np.minimum(np.maximum(ax, bx), np.maximum(cx, dx))
    ) & (
        np.maximum(np.minimum(ay, by), np.minimum(cy, dy))
        <= np.minimum(np.maximum(ay, by), np.maximum(cy, dy))
    )
    return np.where(collinear, overlap, proper)


def _point_segment_d2(px, py, ax, ay, bx, by):
    """The squared distance from P to the closed segment A B."""
    ux, uy = bx - ax, by - ay
    uu = ux * ux + uy * uy
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(uu > 0.0, ((px - ax) * ux + (py - ay) * uy) / uu, 0.0)
    s = np.clip(s, 0.0, 1.0)
    ex, ey = ax + s * ux - px, ay + s * uy - py
    return ex * ex + ey * ey


def _crosses(px, py, cx, cy, dx, dy):
    """Even-odd rule: does the horizontal half-line from P to +x cross the edge C D?"""
    straddle = (cy > py) != (dy > py)
    with np.errstate(divide="ignore", invalid="ignore"):
        x_at = cx + (py - cy) * (dx - cx) / (dy - cy)
    return straddle & (px < x_at)


class Prisms:
    """A site's footprint prisms prepared once: their edges, bounding boxes and circles.

    ``Prisms(xy, start, base, top)``: the site's ``poly_xy_m``, ``poly_start``, ``poly_base_m``,
    ``poly_top_m`` (:class:`navsense.site.Site`).
    """

    def __init__(self, xy, start, base, top) -> None:
        xy = np.asarray(xy, dtype=np.float64).reshape(-1, 2)
        start = np.asarray(start, dtype=np.int64).reshape(-1)
        self.count = n = start.size - 1
        self.base = np.asarray(base, dtype=np.float64).reshape(-1)
        self.top = np.asarray(top, dtype=np.float64).reshape(-1)
        nv = np.diff(start)
        owner = np.repeat(np.arange(n), nv)
        nxt = np.arange(xy.shape[0]) + 1
        last = start[1:] - 1
        nxt[last] = start[:-1]  # each ring closes on its first point
        self.edge_start = start  # polygon i's edges: edge_start[i] .. edge_start[i + 1] - 1
        self.edge_owner = owner
        self.cx, self.cy = xy[:, 0].copy(), xy[:, 1].copy()
        self.dx, self.dy = xy[nxt, 0].copy(), xy[nxt, 1].copy()
        if n:
            self.lo = np.stack([np.minimum.reduceat(xy[:, k], start[:-1]) for k in range(2)], 1)
            self.hi = np.stack([np.maximum.reduceat(xy[:, k], start[:-1]) for k in range(2)], 1)
        else:
            self.lo = self.hi = np.zeros((0, 2))
        self.mid = 0.5 * (self.lo + self.hi)
        self.radius = 0.5 * np.hypot(*(self.hi - self.lo).T) if n else np.zeros(0)

    def _edges(self, k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For items of polygons ``k``: (item index, edge index) of each of their edges."""
        first = self.edge_start[k]
        cnt = self.edge_start[k + 1] - first
        item = np.repeat(np.arange(k.size), cnt)
        begin = np.cumsum(cnt) - cnt
        edge = np.arange(item.size) - np.repeat(begin, cnt) + np.repeat(first, cnt)
        return item, edge

    def trace_meets(self, ax, ay, bx, by, k, margin: float) -> np.ndarray:
        """Does the segment A B (arrays, one per item) come within ``margin`` (>= 0) of polygon
        ``k`` of each item (0: meet it)? Inside, crossing an edge, or near one."""
        item, e = self._edges(k)
        cx, cy, dx, dy = self.cx[e], self.cy[e], self.dx[e], self.dy[e]
        iax, iay, ibx, iby = ax[item], ay[item], bx[item], by[item]
        meet = _segments_meet(iax, iay, ibx, iby, cx, cy, dx, dy)
        if margin > 0.0:
            d2 = np.minimum(
                np.minimum(
                    _point_segment_d2(iax, iay, cx, cy, dx, dy),
                    _point_segment_d2(ibx, iby, cx, cy, dx, dy),
                ),
                np.minimum(
                    _point_segment_d2(cx, cy, iax, iay, ibx, iby),
                    _point_segment_d2(dx, dy, iax, iay, ibx, iby),
                ),
            )
            meet |= d2 <= margin * margin
        crossings = np.bincount(item, weights=_crosses(iax, iay, cx, cy, dx, dy), minlength=k.size)
        hit = np.bincount(item, weights=meet, minlength=k.size) > 0
        return hit | (crossings % 2 == 1)

    def hits(self, ox, oy, oz, lx, ly, lz, k, margin: float = 0.0) -> np.ndarray:
        """RayPrism (module docstring) of rays o + t l against prisms ``k`` (one per item), the
        footprint buffered by ``margin`` and the top raised by it (0: the prism itself).

        First a test that only rules out (exact, cheap, per item): the ray's horizontal
        half-line must pass within R + margin of the centre of the footprint's bounding circle
        (radius R), and the ray must still be at or below the top + margin where it reaches
        that circle; the polygon tests run on the items that pass."""
        k = np.asarray(k, dtype=np.int64)
        out = np.zeros(k.shape, dtype=bool)
        reach_r = self.radius[k] + margin
        wx, wy = self.mid[k, 0] - ox, self.mid[k, 1] - oy  # antenna -> circle centre
        h = np.hypot(lx, ly)
        along = wx * lx + wy * ly  # |w| |l_xy| cos: the centre's distance along the trace x h
        across = wx * ly - wy * lx  # and across it x h
        w = np.hypot(wx, wy)
        near_d = w - reach_r  # the horizontal distance to the circle (< 0: inside it)
        with np.errstate(divide="ignore", invalid="ignore"):
            rise_ok = (near_d <= 0.0) | (lz * near_d <= (self.top[k] + margin - oz) * h)
        possible = (h == 0.0) | (
            (np.abs(across) <= reach_r * h) & (along >= -reach_r * h) & rise_ok
        )
        j = np.flatnonzero(possible)
        if j.size:
            out[j] = self._hits(ox[j], oy[j], oz[j], lx[j], ly[j], lz[j], k[j], margin)
        return out

    def _hits(self, ox, oy, oz, lx, ly, lz, k, margin: float) -> np.ndarray:
        """RayPrism without the first test (:meth:`hits`)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            t1 = (self.base[k] - oz) / lz
            t2 = (self.top[k] + margin - oz) / lz
            t_lo, t_hi = np.minimum(t1, t2), np.maximum(t1, t2)
            flat = lz == 0.0
            if flat.any():
                inside = (oz >= self.base[k]) & (oz <= self.top[k] + margin)
                t_lo = np.where(flat, np.where(inside, -_INF, _INF), t_lo)
                t_hi = np.where(flat, np.where(inside, _INF, -_INF), t_hi)
            t_lo = np.maximum(t_lo, 0.0)
            h = np.hypot(lx, ly)
            # beyond the bounding circle (and the margin) the trace meets nothing
            centre_d = np.hypot(ox - self.mid[k, 0], oy - self.mid[k, 1])
            reach = (centre_d + self.radius[k] + margin + 1.0) / h
            t_hi = np.minimum(t_hi, np.where(h > 0.0, reach, t_lo))
        out = np.zeros(k.shape, dtype=bool)
        j = np.flatnonzero(t_lo <= t_hi)
        if j.size:
            ax, ay = ox[j] + t_lo[j] * lx[j], oy[j] + t_lo[j] * ly[j]
            bx, by = ox[j] + t_hi[j] * lx[j], oy[j] + t_hi[j] * ly[j]
            out[j] = self.trace_meets(ax, ay, bx, by, k[j], margin)
        return out

    def box_distance(self, ax, ay) -> np.ndarray:
        """Horizontal distance (m, P) from antennas (m, 1) to the footprints' bounding boxes."""
        ex = np.maximum(np.maximum(self.lo[:, 0] - ax, ax - self.hi[:, 0]), 0.0)
        ey = np.maximum(np.maximum(self.lo[:, 1] - ay, ay - self.hi[:, 1]), 0.0)
        return np.hypot(ex, ey)

    def reflector_terms(self, antenna, reflector_range_m: float) -> np.ndarray:
        """The reflector index's terms (P, m) of the footprints (module docstring), 0 where a
        footprint is d_r or farther."""
        a = np.asarray(antenna, dtype=np.float64).reshape(-1, 3)
        m = a.shape[0]
        terms = np.zeros((self.count, m))
        if self.count == 0 or m == 0:
            return terms
        d_r = float(reflector_range_m)
        e, k = np.nonzero(self.box_distance(a[:, 0:1], a[:, 1:2]) < d_r)
        if e.size == 0:
            return terms
        item, edge = self._edges(k)
        px, py = a[e[item], 0], a[e[item], 1]
        cx, cy = self.cx[edge] - px, self.cy[edge] - py
        dx, dy = self.dx[edge] - px, self.dy[edge] - py
        d2 = np.minimum.reduceat(_point_segment_d2(0.0, 0.0, cx, cy, dx, dy), _firsts(item))
        inside = np.bincount(item, weights=_crosses(0.0, 0.0, cx, cy, dx, dy), minlength=k.size)
        dist = np.where(inside % 2 == 1, 0.0, np.sqrt(d2))
        # the unwrapped azimuth along the outline: running sums of the edges' angles
        turn = np.arctan2(cx * dy - cy * dx, cx * dx + cy * dy)
        run = np.cumsum(turn)
        firsts = _firsts(item)
        run -= np.repeat(run[firsts] - turn[firsts], np.diff(np.append(firsts, item.size)))
        span = np.maximum.reduceat(np.maximum(run, 0.0), firsts) - np.minimum.reduceat(
            np.minimum(run, 0.0), firsts
        )
        span = np.where(inside % 2 == 1, _TWO_PI, np.minimum(span, _TWO_PI))
        near = dist < d_r
        dist1 = np.maximum(dist, 1.0)
        height = np.clip(np.arctan2(self.top[k] - a[e, 2], dist1) / _ELEVATION_SCALE_RAD, 0.0, 1.0)
        terms[k[near], e[near]] = (span / _TWO_PI * height * (1.0 - dist / d_r))[near]
        return terms


def _firsts(item: np.ndarray) -> np.ndarray:
    """The index of each item's first entry in ``item`` (sorted, every item present)."""
    return np.flatnonzero(np.diff(item, prepend=-1))


def ray_prism_hit(origin, direction, outline_xy, base_z: float, top_z: float) -> np.ndarray:
    """RayPrism of rays (..., 3) against one prism: ``outline_xy`` (n, 2), its base and top.

    Returns bool (...): does origin + t direction, t >= 0, meet the closed prism?
    """
    o = np.asarray(origin, dtype=np.float64)
    d = np.asarray(direction, dtype=np.float64)
    o, d = np.broadcast_arrays(o, d)
    shape = o.shape[:-1]
    o, d = o.reshape(-1, 3), d.reshape(-1, 3)
    ring = np.asarray(outline_xy, dtype=np.float64).reshape(-1, 2)
    prisms = Prisms(ring, [0, len(ring)], [base_z], [top_z])
    k = np.zeros(o.shape[0], dtype=np.int64)
    return prisms.hits(o[:, 0], o[:, 1], o[:, 2], d[:, 0], d[:, 1], d[:, 2], k).reshape(shape)
