"""The sky view: which satellites the site's obstacles block (specification, "GNSS Receiver",
"Antenna Position" and "Sky Obstruction"; RayBox, RayCylinder, SphereChord).

Antenna position ("Antenna Position")::

    p_a = p + R r_a

Obstacles (:class:`navsense.site.Site`, grid ENU metres): buildings are axis-aligned boxes,
grain bins vertical cylinders (base to top), tree crowns spheres.

Culling, per epoch ("Sky Obstruction"): the model keeps the obstacles with::

    z_t + d_n - z_a > 0   and   atan2(z_t + d_n - z_a, D) >= mask

where z_a is the antenna height, z_t the obstacle's top (a crown's top is its centre height plus
its radius), d_n = near_margin_m and D the horizontal distance from the antenna to the
obstacle's centre: box centre, cylinder axis, crown centre (DESIGN.md ruling "Distance D to an
obstacle"). The culling is part of the model: it is not conservative for a wide box whose centre
is far while its wall is close, and it is applied exactly as written.

Overhead boxes (navsense extension, issue 19 section 2; a building's ``base_m`` > 0 in the site
JSON: a bridge deck, an overpass, a tunnel roof) are culled with D the horizontal distance from
the antenna to the box's footprint, 0 beneath it::

    D = hypot(max(x_lo - x_a, x_a - x_hi, 0), max(y_lo - y_a, y_a - y_hi, 0))

so an antenna beneath a roof always tests it (the centre of a long tunnel roof may be far), and
one above its top never does. Their ray tests are RayBox from the underside to the top: a ray
from beneath is blocked where the slab hides it, and a roof that spans the antenna's sky above
the mask blocks every satellite.

Ray tests: the ray p_a + t l, t >= 0, against each kept obstacle: RayBox, RayCylinder and
SphereChord, their equations in :mod:`navsense.sky.rays`. Shapes are closed (a ray that touches
a face, an edge or the mantle counts as a hit); an antenna inside a box or a cylinder hits it.

Results, in this order of precedence:

    Blocked   the ray hits a box or a cylinder, or the summed chord through all crowns on the
              ray is foliage_block_path_m or longer           (not used)
    Foliage   the summed crown chord is > 0 and shorter        (used, N_f)
    Near      the ray hits a box enlarged by near_margin_m on every side, or a cylinder with
              radius and top enlarged by near_margin_m        (used, N_n)
    Clear     otherwise                                        (used, N_c)

Building footprints (navsense extension, issue 29 item 3; a site's ``footprints``): prisms,
culled and tested by :mod:`navsense.sky.footprints` (RayPrism; Near: the footprint buffered by
near_margin_m and its top raised by it). A hit is Blocked, a hit of the enlarged prism Near, as
for a box. A site without footprints is classified exactly as before.

N_u = N_c + N_n + N_f. A satellite that is not tracked (below the mask, or its system off) has
the status BELOW_MASK. The line of sight l is applied in the grid ENU frame (the specification's
assumption "The models ignore the convergence of that grid"). The specification computes the
sky view in Unreal metres; navsense keeps obstacles, antenna and line of sight in grid ENU.
"""

from __future__ import annotations

import functools

import numpy as np

from navsense.kernels import compiled, kernel
from navsense.rotation import quat_to_matrix, rotate
from navsense.site import Site
from navsense.sky.footprints import Prisms
from navsense.sky.rays import (
    _box_hit,
    _box_hit_axes,
    _chord_disc,
    _chord_length,
    _cylinder_hit,
    one_epoch_hits,
    one_epoch_status,
    ray_box_hit,
    ray_cylinder_hit,
    sphere_chord,
)
from navsense.sky.status import (
    BELOW_MASK,
    BLOCKED,
    CLEAR,
    FOLIAGE,
    NEAR,
    STATUS_NAMES,
    counts,
    signal_lost,
    used_mask,
)

__all__ = [
    "BELOW_MASK",
    "CLEAR",
    "NEAR",
    "FOLIAGE",
    "BLOCKED",
    "STATUS_NAMES",
    "antenna_position_enu",
    "ray_box_hit",
    "ray_cylinder_hit",
    "sphere_chord",
    "keep_obstacles",
    "classify",
    "SkyView",
    "counts",
    "used_mask",
    "signal_lost",
]


_NO_ROWS = np.zeros(0, dtype=np.int64)
_BLOCK_EPOCHS = 4096  # at most this many epochs a block
_BLOCK_TRIPLES = 1 << 16  # about this many (epoch, satellite, obstacle) tests a block (cache-sized)


def antenna_position_enu(p_m, q_xyzw, lever_arm_flu_m) -> np.ndarray:
    """Antenna position p_a = p + R r_a ("Antenna Position"), (..., 3) grid ENU metres.

    ``p_m`` (..., 3) chassis origin, ``q_xyzw`` (..., 4) attitude FLU -> ENU, ``lever_arm_flu_m``
    (3,) the lever arm from the chassis origin (already moved out of base_footprint, see
    :func:`navsense.vehicles.lever_arm_from_chassis`).
    """
    p = np.asarray(p_m, dtype=np.float64)
    q = np.asarray(q_xyzw, dtype=np.float64)
    arm = np.asarray(lever_arm_flu_m, dtype=np.float64)
    if p.ndim == 2 and q.shape == (p.shape[0], 4) and arm.shape == (3,):  # rows: one kernel
        out = np.empty(p.shape)
        _antenna_rows(np.ascontiguousarray(p), np.ascontiguousarray(q), arm, out)
        return out
    return p + rotate(quat_to_matrix(q), arm)


@kernel(2, 2, 1, 2)
def _antenna_rows(p, q, arm, out):
    """antenna_position_enu on rows: p (n, 3), q (n, 4), arm (3,) -> out (n, 3) = p + R r_a,
    R written out as navsense.rotation's quat_to_matrix and R r_a as its rotate (the same
    operations in the same order: a kernel calls no other module's function)."""
    x, y, z, s = q[:, 0], q[:, 1], q[:, 2], q[:, 3]
    xx, yy, zz = x * x, y * y, z * z
    xy, xz, yz = x * y, x * z, y * z
    sx, sy, sz = s * x, s * y, s * z
    a0, a1, a2 = arm[0], arm[1], arm[2]
    r0 = (1.0 - 2.0 * (yy + zz)) * a0 + (2.0 * (xy - sz)) * a1 + (2.0 * (xz + sy)) * a2
    r1 = (2.0 * (xy + sz)) * a0 + (1.0 - 2.0 * (xx + zz)) * a1 + (2.0 * (yz - sx)) * a2
    r2 = (2.0 * (xz - sy)) * a0 + (2.0 * (yz + sx)) * a1 + (1.0 - 2.0 * (xx + yy)) * a2
    out[:, 0] = p[:, 0] + r0
    out[:, 1] = p[:, 1] + r1
    out[:, 2] = p[:, 2] + r2


# ------------------------------------------------------------------------------------ culling
_FAST_CULL_MAX_DEG = 80.0  # masks within +-80 deg may decide the culling angle by rise / D
_CULL_TAN_MARGIN = 1e-9  # relative margin of that decision (see _keep)
_SQRT_DISTANCE_SIZE = 256  # _keep of at least this many (epoch, obstacle) takes sqrt for hypot
_SQUARE_MIN, _SQUARE_MAX = 1e-200, 1e200  # ex^2 + ey^2 outside: hypot (see _keep)


def _keep(ax, ay, az, cx, cy, top_dn, mask_deg: float) -> np.ndarray:
    """The culling: (rise > 0) & (atan2(rise, D) >= mask), rise = (z_t + d_n) - z_a.

    ``ax``, ``ay``, ``az`` (m, 1); ``cx``, ``cy``, ``top_dn`` = z_t + d_n (K,); D the distance to
    the centres (:func:`_keep_angle`).
    """
    ex, ey = cx - ax, cy - ay
    if ex.size < _SQRT_DISTANCE_SIZE:
        return _keep_angle(top_dn - az, np.hypot(ex, ey), mask_deg)
    # D as sqrt(ex^2 + ey^2), within a few ulp of hypot(ex, ey): the ratio test's margin is
    # 1e-9; where arctan2 decides, and where a square under- or overflows, hypot is taken
    with np.errstate(over="ignore"):
        ex2 = ex * ex
        ex2 += ey * ey
    odd = ~((ex2 > _SQUARE_MIN) & (ex2 < _SQUARE_MAX))
    dist = np.sqrt(ex2, out=ex2)
    return _keep_angle(top_dn - az, dist, mask_deg, exact=(ex, ey, odd))


def _footprint_distance(ax, ay, lo_x, lo_y, hi_x, hi_y) -> np.ndarray:
    """Horizontal distance (m, K) from antennas (m, 1) to boxes' footprints (K,); 0 beneath."""
    ex = np.maximum(np.maximum(lo_x - ax, ax - hi_x), 0.0)
    ey = np.maximum(np.maximum(lo_y - ay, ay - hi_y), 0.0)
    return np.hypot(ex, ey)


@functools.lru_cache(maxsize=16)
def _mask_terms(mask_deg: float) -> tuple[float, float, float]:
    """The mask in radians, tan(mask) and the margin of :func:`_keep_angle` (once a mask)."""
    mask_rad = np.radians(mask_deg)
    tan_mask = float(np.tan(mask_rad))
    return mask_rad, tan_mask, _CULL_TAN_MARGIN * (1.0 + abs(tan_mask))


def _keep_angle(rise, dist, mask_deg: float, exact=None) -> np.ndarray:
    """(rise > 0) & (atan2(rise, dist) >= mask) for (m, K) rises and horizontal distances.

    arctan2 is only evaluated where rise / D lies within a relative 1e-9 of tan(mask):
    elsewhere the comparison of the ratio decides, and gives the result of the comparison of the
    angle (for |mask| <= 80 deg, 1e-9 of the ratio is more than 1e-11 rad of angle, a thousand
    times the error of arctan2, tan and the division). ``exact`` (ex, ey, odd): ``dist`` is
    within a few ulp of D = hypot(ex, ey) but where ``odd``; arctan2 then takes hypot's D, and
    decides where ``odd`` too.
    """
    mask_rad, tan_mask, margin = _mask_terms(mask_deg)
    keep = rise > 0.0
    if not abs(mask_deg) <= _FAST_CULL_MAX_DEG:
        if exact is not None:
            dist = np.hypot(exact[0], exact[1])
        return keep & (np.arctan2(rise, dist) >= mask_rad)
    ratio = rise / dist  # +inf straight above the centre (then rise > 0); callers hold errstate
    above = ratio > tan_mask + margin
    unsure = keep & ~above & (ratio >= tan_mask - margin)
    if exact is not None:
        unsure |= keep & exact[2]
        above &= ~exact[2]
    keep &= above | unsure
    if np.count_nonzero(unsure):
        d = dist[unsure] if exact is None else np.hypot(exact[0][unsure], exact[1][unsure])
        keep[unsure] = np.arctan2(rise[unsure], d) >= mask_rad
    return keep


def keep_obstacles(
    antenna_enu_m, center_xy_m, top_z_m, near_margin_m: float, elevation_mask_deg: float
) -> np.ndarray:
    """The culling of "Sky Obstruction": (m, K) bool, True where an obstacle is kept.

    ``antenna_enu_m`` (m, 3); ``center_xy_m`` (K, 2) the obstacles' centres (box centre,
    cylinder axis, crown centre); ``top_z_m`` (K,) their tops. Kept when
    z_t + d_n - z_a > 0 and atan2(z_t + d_n - z_a, D) >= mask, D horizontal.
    """
    a = np.asarray(antenna_enu_m, dtype=np.float64)
    c = np.asarray(center_xy_m, dtype=np.float64)
    top_dn = np.asarray(top_z_m, dtype=np.float64) + near_margin_m
    with np.errstate(divide="ignore", invalid="ignore"):
        return _keep(
            a[:, 0:1], a[:, 1:2], a[:, 2:3], c[:, 0], c[:, 1], top_dn, float(elevation_mask_deg)
        )


# --------------------------------------------------------------------------------- classify
def _check_shapes(antenna, los, visible) -> None:
    if antenna.ndim != 2 or antenna.shape[1] != 3:
        raise ValueError(f"Expected `antenna_enu_m` to have shape (m, 3), got {antenna.shape}")
    m = antenna.shape[0]
    if los.ndim != 3 or los.shape[0] != m or los.shape[2] != 3:
        raise ValueError(f"Expected `los` to have shape ({m}, nsat, 3), got {los.shape}")
    if visible.shape != los.shape[:2]:
        raise ValueError(f"Expected `visible` to have shape {los.shape[:2]}, got {visible.shape}")


def _ragged(first: np.ndarray, count: np.ndarray) -> np.ndarray:
    """The concatenated ranges first_i .. first_i + count_i - 1 (int64)."""
    total = int(count.sum())
    start = np.cumsum(count) - count  # where each range begins in the output
    return np.arange(total, dtype=np.int64) + np.repeat(first - start, count)


def _epoch_blocks(work: np.ndarray, budget: int) -> list[tuple[int, int]]:
    """Cut the epochs into consecutive blocks of about ``budget`` units of ``work`` (m,) each."""
    m = work.size
    if m <= 1 or int(work.sum()) <= budget and m <= _BLOCK_EPOCHS:
        return [(0, m)]
    cum = np.cumsum(work)
    blocks, b0 = [], 0
    while b0 < m:
        base = cum[b0 - 1] if b0 else 0
        b1 = int(np.searchsorted(cum, base + budget, side="right"))
        b1 = min(m, max(b1, b0 + 1), b0 + _BLOCK_EPOCHS)
        blocks.append((b0, b1))
        b0 = b1
    return blocks


class SkyView:
    """:func:`classify` prepared for one site and its parameters (the receiver keeps one).

    ``SkyView(site, near_margin_m, foliage_block_path_m, elevation_mask_deg)``; the obstacle
    arrays derived from the site (enlarged boxes, squared radii, tops plus the margin) are
    computed once, with the operations :func:`classify` used on them.
    """

    def __init__(
        self,
        site: Site,
        near_margin_m: float,
        foliage_block_path_m: float,
        elevation_mask_deg: float,
    ) -> None:
        d_n = float(near_margin_m)
        self.foliage_block_path_m = foliage_block_path_m
        self.mask_deg = float(elevation_mask_deg)
        f64 = np.float64
        box_lo = np.asarray(site.box_min_m, dtype=f64).reshape(-1, 3)
        box_hi = np.asarray(site.box_max_m, dtype=f64).reshape(-1, 3)
        near_lo, near_hi = box_lo - d_n, box_hi + d_n  # the box enlarged on every side
        # per axis k: lo_k and hi_k of the boxes, then of the enlarged boxes (2 nb)
        self._box_lo = [np.concatenate([box_lo[:, k], near_lo[:, k]]) for k in range(3)]
        self._box_hi = [np.concatenate([box_hi[:, k], near_hi[:, k]]) for k in range(3)]
        self._box_lo3 = np.stack(self._box_lo, axis=-1)  # the same, (2 nb, 3)
        self._box_hi3 = np.stack(self._box_hi, axis=-1)
        # the rows of sky.rays.one_epoch_hits: boxes (lo, hi), cylinders (x, y, r^2, base, top)
        # and crowns (centre, r^2), each kind's enlarged shapes after its own
        self._box_rows = np.concatenate([self._box_lo3, self._box_hi3], axis=1)
        cyl_xy = np.asarray(site.cyl_xy_m, dtype=f64).reshape(-1, 2)
        cyl_top = np.asarray(site.cyl_top_m, dtype=f64).reshape(-1)
        cyl_r = np.asarray(site.cyl_radius_m, dtype=f64).reshape(-1)
        cyl_near_r = cyl_r + d_n
        cyl_base = np.asarray(site.cyl_base_m, dtype=f64).reshape(-1)
        self._cyl_x, self._cyl_y = cyl_xy[:, 0].copy(), cyl_xy[:, 1].copy()
        # r^2, base and top of the cylinders, then of the ones with radius and top enlarged by
        # d_n (2 nc)
        self._cyl_rr = np.concatenate([cyl_r * cyl_r, cyl_near_r * cyl_near_r])
        self._cyl_base = np.concatenate([cyl_base, cyl_base])
        self._cyl_top = np.concatenate([cyl_top, cyl_top + d_n])
        crown_c = np.asarray(site.crown_center_m, dtype=f64).reshape(-1, 3)
        crown_r = np.asarray(site.crown_radius_m, dtype=f64).reshape(-1)
        self._crown_c = [crown_c[:, k].copy() for k in range(3)]
        self._crown_rr = crown_r * crown_r
        xy2 = np.concatenate([cyl_xy, cyl_xy]).reshape(-1, 2)
        self._cyl_rows = np.column_stack([xy2, self._cyl_rr, self._cyl_base, self._cyl_top])
        self._crown_rows = np.column_stack([crown_c, self._crown_rr])
        # culling of all obstacles at once: boxes, cylinders, crowns (centres, tops + d_n)
        centres = np.concatenate([0.5 * (box_lo[:, :2] + box_hi[:, :2]), cyl_xy, crown_c[:, :2]])
        tops = np.concatenate([box_hi[:, 2], cyl_top, crown_c[:, 2] + crown_r])
        self._cx, self._cy = centres[:, 0].copy(), centres[:, 1].copy()
        self._top_dn = tops + d_n
        nb, nc = len(box_lo), len(cyl_xy)
        # overhead boxes (a building's base_m > 0): culled by the distance to their footprint
        over = site.box_overhead
        self._over = (
            np.zeros(0, dtype=np.int64) if over is None else np.flatnonzero(np.asarray(over))
        )
        self._over_lo = [box_lo[self._over, k].copy() for k in range(2)]
        self._over_hi = [box_hi[self._over, k].copy() for k in range(2)]
        self._slices = (slice(0, nb), slice(nb, nb + nc), slice(nb + nc, len(tops)))
        # triples per kept obstacle of each kind (two tests for boxes and cylinders)
        self._weight = np.concatenate(
            [np.full(nb, 2), np.full(nc, 2), np.ones(len(crown_r))]
        ).astype(np.int64)
        # footprint prisms (navsense extension): None for a site without them
        self._near_m = d_n
        self._prisms = (
            Prisms(site.poly_xy_m, site.poly_start, site.poly_base_m, site.poly_top_m)
            if len(site.poly_top_m)
            else None
        )
        # sky.rays.one_epoch_status's constants (None: that kernel does not apply to this site
        # or mask, the one-epoch call takes _classify_one)
        _, tan_mask, margin = _mask_terms(self.mask_deg)
        fast = self._prisms is None and not self._over.size
        fast = fast and abs(self.mask_deg) <= _FAST_CULL_MAX_DEG
        codes = [BELOW_MASK, CLEAR, NEAR, FOLIAGE, BLOCKED]
        self._one_par = (
            np.array([tan_mask + margin, tan_mask - margin, foliage_block_path_m, *codes], f64)
            if fast
            else None
        )

    def classify(self, antenna_enu_m, los, visible) -> np.ndarray:
        """:func:`classify` with the prepared site and parameters."""
        antenna = np.asarray(antenna_enu_m, dtype=np.float64)
        los = np.asarray(los, dtype=np.float64)
        visible = np.asarray(visible, dtype=bool)
        _check_shapes(antenna, los, visible)
        m, nsat = visible.shape
        if m == 1 and self._one_par is not None and compiled():
            status = self._one_epoch_status(antenna[0], los[0], visible[0])
            if status is not None:
                return status
        status = np.zeros((m, nsat), dtype=np.int8)
        n_vis = np.add.reduce(visible, axis=1, dtype=np.intp)  # count_nonzero(axis=1): slower
        if m == 0 or not np.count_nonzero(n_vis):
            return status
        with np.errstate(divide="ignore", invalid="ignore"):  # rays parallel to an axis
            # the culling of every (epoch, obstacle)
            keep = _keep(
                antenna[:, 0:1],
                antenna[:, 1:2],
                antenna[:, 2:3],
                self._cx,
                self._cy,
                self._top_dn,
                self.mask_deg,
            )
            if self._over.size:
                keep[:, self._over] = self._keep_overhead(antenna)
            keeps = [keep[:, sl] if sl.stop > sl.start else None for sl in self._slices]
            if self._prisms is not None:
                keep_poly = self._keep_prisms(antenna)
                keeps.append(keep_poly)
            if m == 1:  # one epoch (streaming): one block
                blocks = [(0, 1)]
            else:
                work = 1 + keep.astype(np.int64) @ self._weight
                if self._prisms is not None:
                    work += 2 * np.count_nonzero(keep_poly, axis=1)
                blocks = _epoch_blocks(n_vis * work, _BLOCK_TRIPLES)
            for b0, b1 in blocks:
                self._classify_block(
                    antenna[b0:b1],
                    los[b0:b1],
                    visible[b0:b1],
                    n_vis[b0:b1],
                    [None if k is None else k[b0:b1] for k in keeps],
                    status[b0:b1],
                )
        return status

    def _one_epoch_status(self, ant, lb, vis) -> np.ndarray | None:
        """The statuses (1, nsat) of one epoch by the compiled kernel
        :func:`navsense.sky.rays.one_epoch_status` (the same values as :meth:`_classify_one`);
        None where an obstacle's culling is too close to the mask for its ratio test."""
        nsat = vis.shape[0]
        out = np.empty(nsat + 1)
        dist = np.hypot(self._cx - ant[0], self._cy - ant[1])  # _keep's D, (K,)
        one_epoch_status(
            ant,
            np.ascontiguousarray(lb),
            vis.astype(np.float64),
            dist,
            self._top_dn,
            self._box_rows,
            self._cyl_rows,
            self._crown_rows,
            self._one_par,
            out,
        )
        if out[nsat] != 0.0:
            return None
        return out[:nsat].astype(np.int8).reshape(1, nsat)

    def _keep_prisms(self, antenna: np.ndarray) -> np.ndarray:
        """The culling of the footprint prisms (m, P): conservative, D = max(D_box - d_n, 0)
        (:mod:`navsense.sky.footprints`)."""
        assert self._prisms is not None
        p = self._prisms
        dist = np.maximum(p.box_distance(antenna[:, 0:1], antenna[:, 1:2]) - self._near_m, 0.0)
        return _keep_angle(p.top + self._near_m - antenna[:, 2:3], dist, self.mask_deg)

    def _keep_overhead(self, antenna: np.ndarray) -> np.ndarray:
        """The culling of the overhead boxes (m, K_o): D is the distance to the footprint."""
        ax, ay = antenna[:, 0:1], antenna[:, 1:2]
        dist = _footprint_distance(ax, ay, *self._over_lo, *self._over_hi)
        return _keep_angle(self._top_dn[self._over] - antenna[:, 2:3], dist, self.mask_deg)

    def _classify_block(self, ant, lb, vis, count, keeps, status) -> None:
        """Statuses of a block of epochs (into ``status``), under np.errstate of the caller.

        A box or cylinder is tested twice per triple, as it is and enlarged by the margin: both
        tests run as one array of 2 T triples (the second half the enlarged shapes), their hits
        set ``hits[pair]`` (blocked) and ``hits[n_pairs + pair]`` (near).
        """
        if ant.shape[0] == 1:  # one epoch: its triples as (obstacle, satellite) arrays
            self._classify_one(ant[0], lb[0], vis[0], keeps, status[0])
            return
        flat = np.flatnonzero(vis)  # the pairs, epoch by epoch
        n_pairs = flat.size
        if n_pairs == 0:
            return
        d = lb.reshape(-1, 3).take(flat, axis=0)
        dx, dy, dz = d[:, 0], d[:, 1], d[:, 2]  # pair directions
        first = np.cumsum(count) - count  # each epoch's first pair
        hits = np.zeros(2 * n_pairs, dtype=bool)  # blocked, then near
        foliage_m: np.ndarray | None = None
        keep_box, keep_cyl, keep_crown = keeps[:3]

        def triples(keep, twice):
            """The kept (epoch, obstacle) pairs (twice: also as the enlarged obstacles, index
            + K), the satellite count of each, and the pair of each triple (hits index)."""
            ke, kk = np.nonzero(keep)
            if twice:
                ke = np.concatenate([ke, ke])
                kk = np.concatenate([kk, kk + keep.shape[1]])
            cnt = count[ke]
            pi = _ragged(first[ke], cnt)
            return ke, kk, cnt, pi

        if keep_box is not None and np.count_nonzero(keep_box):
            ke, kk, cnt, pi = triples(keep_box, True)
            if pi.size:
                half = pi.size // 2
                ox, oy, oz = (ant[ke, k].repeat(cnt) for k in range(3))
                lx, ly, lz = (v[kk].repeat(cnt) for v in self._box_lo)
                hx, hy, hz = (v[kk].repeat(cnt) for v in self._box_hi)
                hit = _box_hit(ox, oy, oz, dx[pi], dy[pi], dz[pi], lx, ly, lz, hx, hy, hz)
                pi[half:] += n_pairs
                hits[pi[hit]] = True
        if keep_cyl is not None and np.count_nonzero(keep_cyl):
            ke, kk, cnt, pi = triples(keep_cyl, True)
            if pi.size:
                half = pi.size // 2
                nk = ke.size // 2
                wx_k = ant[ke[:nk], 0] - self._cyl_x[kk[:nk]]
                wy_k = ant[ke[:nk], 1] - self._cyl_y[kk[:nk]]
                ww_k = wx_k * wx_k + wy_k * wy_k
                px, py = dx[pi[:half]], dy[pi[:half]]
                h2 = px * px + py * py
                wh = wx_k.repeat(cnt[:nk]) * px + wy_k.repeat(cnt[:nk]) * py
                h2, wh = np.concatenate([h2, h2]), np.concatenate([wh, wh])
                cc = (np.concatenate([ww_k, ww_k]) - self._cyl_rr[kk]).repeat(cnt)  # |w|^2 - r^2
                # a miss unless |w + t l_xy|^2 = r^2 has real roots
                j = np.flatnonzero(wh * wh - h2 * cc >= 0.0)
                if j.size:
                    tk = np.arange(ke.size).repeat(cnt)[j]  # kept pair of each triple
                    hit = _cylinder_hit(
                        cc[j],
                        h2[j],
                        wh[j],
                        ant[ke[tk], 2],
                        dz[pi[j]],
                        self._cyl_base[kk[tk]],
                        self._cyl_top[kk[tk]],
                    )
                    pi[half:] += n_pairs
                    hits[pi[j[hit]]] = True
        if keep_crown is not None and np.count_nonzero(keep_crown):
            ke, kk, cnt, pi = triples(keep_crown, False)
            if pi.size:
                wx, wy, wz = ((ant[ke, k] - c[kk]).repeat(cnt) for k, c in enumerate(self._crown_c))
                b, disc = _chord_disc(
                    wx, wy, wz, dx[pi], dy[pi], dz[pi], self._crown_rr[kk].repeat(cnt)
                )
                j = np.flatnonzero(disc > 0.0)  # elsewhere the chord is 0
                # summed in obstacle order within each pair (bincount adds in array order)
                foliage_m = np.bincount(
                    pi[j], weights=_chord_length(b[j], disc[j]), minlength=n_pairs
                )

        if len(keeps) > 3 and np.count_nonzero(keeps[3]):  # footprint prisms: blocked, then near
            assert self._prisms is not None
            ke, kk, cnt, pi = triples(keeps[3], False)
            if pi.size:
                ox, oy, oz = (ant[ke, c].repeat(cnt) for c in range(3))
                self._prism_hits(hits, pi, (ox, oy, oz, dx[pi], dy[pi], dz[pi], kk.repeat(cnt)))
        if status.flags.c_contiguous:  # (the rows of classify's array): its flat view
            status.reshape(-1)[flat] = self._statuses(hits, foliage_m)
        else:
            status.put(flat, self._statuses(hits, foliage_m))

    def _prism_hits(self, hits: np.ndarray, pi: np.ndarray, ray: tuple) -> None:
        """The footprint prisms' tests of the triples ``ray`` (origin, direction components
        and prism of each) of pairs ``pi``: Near into ``hits[n_pairs + pi]``, then Blocked
        (tested only where Near: the prism lies within its enlarged self) into ``hits[pi]``."""
        assert self._prisms is not None
        ox, oy, oz, lx, ly, lz, k = ray
        near = self._prisms.hits(ox, oy, oz, lx, ly, lz, k, margin=self._near_m)
        hits[hits.size // 2 + pi[near]] = True
        j = np.flatnonzero(near)
        hit = self._prisms.hits(*(v[j] for v in ray))
        hits[pi[j[hit]]] = True

    def _statuses(self, hits, foliage_m) -> np.ndarray:
        """The pairs' statuses from ``hits`` (blocked, then near; 2 n_pairs) and the summed
        crown chords ``foliage_m`` (None: no crown kept), in the module's precedence."""
        n_pairs = hits.size // 2
        st = np.full(n_pairs, CLEAR, dtype=np.int8)
        st[hits[n_pairs:]] = NEAR
        if foliage_m is None:
            foliage_m = np.zeros(n_pairs)
        st[foliage_m > 0.0] = FOLIAGE
        st[hits[:n_pairs] | (foliage_m >= self.foliage_block_path_m)] = BLOCKED
        return st

    def _one_epoch_kernel(self, ant, d, keeps, hits) -> np.ndarray | None:
        """The kept boxes', cylinders' and crowns' tests of one epoch by
        :func:`navsense.sky.rays.one_epoch_hits` (their rows gathered here): blocked and near
        into ``hits``; the summed crown chords (None without a kept crown)."""
        rows = []
        for keep, table in zip(keeps, (self._box_rows, self._cyl_rows, None)):
            kk = keep[0].nonzero()[0] if keep is not None else _NO_ROWS
            if table is not None:  # the obstacles, then the same enlarged
                kk = np.concatenate([kk, kk + keep.shape[1]]) if kk.size else kk
                rows.append(table[kk])
            else:
                rows.append(self._crown_rows[kk])
        out = np.empty((3, d.shape[0]))
        one_epoch_hits(np.ascontiguousarray(ant), np.ascontiguousarray(d), *rows, out)
        n_pairs = d.shape[0]
        hits[:n_pairs] = out[0] != 0.0
        hits[n_pairs:] = out[1] != 0.0
        return out[2] if rows[2].shape[0] else None

    def _classify_one(self, ant, lb, vis, keeps, status) -> None:
        """:meth:`_classify_block` of one epoch: ``ant`` (3,), ``lb`` (nsat, 3), ``vis`` (nsat,),
        ``keeps`` its culling rows (1, K), ``status`` (nsat,). The triples are the kept
        obstacles (rows) times the tracked satellites (columns), the antenna's coordinates
        scalars: each test the same operations on the same values as the block's, the crown
        chords summed per satellite in obstacle order (a chord of 0 adds nothing)."""
        sat = vis.nonzero()[0]
        n_pairs = sat.size
        if n_pairs == 0:
            return
        d = lb[sat]
        dx, dy, dz = d[:, 0], d[:, 1], d[:, 2]
        ox, oy, oz = ant[0], ant[1], ant[2]
        hits = np.zeros(2 * n_pairs, dtype=bool)  # blocked, then near
        foliage_m = None
        keep_box, keep_cyl, keep_crown = keeps[:3]
        if compiled():  # one kernel for the boxes, cylinders and crowns (sky.rays)
            foliage_m = self._one_epoch_kernel(ant, d, keeps[:3], hits)
            keep_box = keep_cyl = keep_crown = None
        if keep_box is not None and np.count_nonzero(keep_box):
            kk = keep_box[0].nonzero()[0]
            k2 = np.concatenate([kk, kk + keep_box.shape[1]])  # then enlarged
            hit = _box_hit_axes(ant, d, self._box_lo3[k2], self._box_hi3[k2])
            hits[:n_pairs] |= np.logical_or.reduce(hit[: kk.size], axis=0)
            hits[n_pairs:] |= np.logical_or.reduce(hit[kk.size :], axis=0)
        if keep_cyl is not None and np.count_nonzero(keep_cyl):
            kk = keep_cyl[0].nonzero()[0]
            k2 = np.concatenate([kk, kk + keep_cyl.shape[1]])
            wx, wy = ox - self._cyl_x[kk], oy - self._cyl_y[kk]
            ww = wx * wx + wy * wy
            h2 = dx * dx + dy * dy
            wh = wx[:, None] * dx + wy[:, None] * dy
            cc = (np.concatenate([ww, ww]) - self._cyl_rr[k2])[:, None]  # |w|^2 - r^2
            base, top = self._cyl_base[k2][:, None], self._cyl_top[k2][:, None]
            hit = _cylinder_hit(cc, h2, np.concatenate([wh, wh]), oz, dz, base, top)
            hits[:n_pairs] |= np.logical_or.reduce(hit[: kk.size], axis=0)
            hits[n_pairs:] |= np.logical_or.reduce(hit[kk.size :], axis=0)
        if keep_crown is not None and np.count_nonzero(keep_crown):
            kk = keep_crown[0].nonzero()[0]
            c = self._crown_c
            wx, wy, wz = ((a - c[k][kk])[:, None] for k, a in enumerate((ox, oy, oz)))
            b, disc = _chord_disc(wx, wy, wz, dx, dy, dz, self._crown_rr[kk][:, None])
            chord = _chord_length(b, disc)  # (K, n_pairs), 0 where disc <= 0
            foliage_m = np.bincount(
                np.arange(chord.size) % n_pairs, weights=chord.reshape(-1), minlength=n_pairs
            )
        if len(keeps) > 3 and np.count_nonzero(keeps[3]):  # footprint prisms
            kk = keeps[3][0].nonzero()[0]
            pi = np.arange(kk.size * n_pairs) % n_pairs
            ray = (ox, oy, oz, dx[pi], dy[pi], dz[pi], kk.repeat(n_pairs))
            self._prism_hits(hits, pi, tuple(np.broadcast_to(v, pi.shape) for v in ray))
        status[sat] = self._statuses(hits, foliage_m)


def classify(
    antenna_enu_m,
    los,
    visible,
    site: Site,
    near_margin_m: float,
    foliage_block_path_m: float,
    elevation_mask_deg: float,
) -> np.ndarray:
    """Status (m, nsat) int8 of each satellite: BELOW_MASK, CLEAR, NEAR, FOLIAGE or BLOCKED.

    ``antenna_enu_m`` (m, 3) antenna positions, ``los`` (m, nsat, 3) unit lines of sight,
    ``visible`` (m, nsat) bool: above the mask and its system enabled (only these are tested).
    Each epoch's result depends on that epoch alone, so any cut of the epochs gives the same
    statuses.

    Work: the culling ("Sky Obstruction") is evaluated for every (epoch, obstacle); the ray
    tests run vectorised over the (epoch, kept obstacle, tracked satellite) triples of a block
    of epochs. What depends on the epoch and the obstacle alone (w = antenna - centre,
    |w|^2 - r^2, ...) is computed once per kept pair and repeated over the satellites; the
    second half of a test (square roots, the intervals) only runs for the triples whose
    discriminant lets the ray meet the shape (elsewhere the test is a miss, the chord 0). The
    floating-point operations of each test are those of the ray functions above, and the crown
    chords of a satellite are summed in obstacle order, so the statuses do not depend on how
    the work is arranged. :class:`SkyView` keeps the site's arrays between calls.
    """
    return SkyView(site, near_margin_m, foliage_block_path_m, elevation_mask_deg).classify(
        antenna_enu_m, los, visible
    )
