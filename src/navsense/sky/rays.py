"""The sky view's ray tests (specification, "Sky Obstruction": RayBox, RayCylinder, SphereChord),
on the components of broadcastable arrays; :mod:`navsense.sky.obstruction` gathers the rays and
obstacles of its epochs and applies them (and re-exports the public functions).

    RayBox       slab test: t_near = max_k min(t1_k, t2_k), t_far = min_k max(t1_k, t2_k),
                 t1,2_k = (lo_k - o_k) / l_k, (hi_k - o_k) / l_k; hit when t_near <= t_far and
                 t_far >= 0 (an axis with l_k = 0 constrains nothing when lo_k <= o_k <= hi_k
                 and excludes the box otherwise)
    RayCylinder  the interval of the infinite vertical cylinder |w + t l_xy| <= r (w = o_xy - c)
                 intersected with the slab base <= z <= top and with t >= 0
    SphereChord  the forward chord length max(0, t2 - max(t1, 0)), t1,2 = -b -+ sqrt(r^2 - q^2),
                 b = (o - c) . l, q the distance from the centre to the ray's line

Shapes are closed (a ray that touches a face, an edge or the mantle counts as a hit); an origin
inside a box or a cylinder hits it.
"""

from __future__ import annotations

import numpy as np

from navsense.kernels import kernel

__all__ = [
    "ray_box_hit",
    "ray_cylinder_hit",
    "sphere_chord",
    "one_epoch_hits",
    "one_epoch_status",
]

_INF = np.inf


# The kernels take components (x, y, z as separate broadcastable arrays): classify() gathers
# them per (epoch, satellite, obstacle) triple; the public functions unpack (..., 3) arrays.
def _slab(o, d, lo, hi):
    """The interval of t (t_lo, t_hi) with lo <= o + t d <= hi along one axis.

    The kernels divide by zero for rays parallel to an axis: callers hold np.errstate.
    """
    t1 = (lo - o) / d
    t2 = (hi - o) / d
    t_lo = np.minimum(t1, t2)
    t_hi = np.maximum(t1, t2)
    parallel = d == 0.0
    if np.count_nonzero(parallel):  # a slab parallel to the ray: all of it or none of it
        inside = (o >= lo) & (o <= hi)
        t_lo = np.where(parallel, np.where(inside, -_INF, _INF), t_lo)
        t_hi = np.where(parallel, np.where(inside, _INF, -_INF), t_hi)
    return t_lo, t_hi


def _box_hit(ox, oy, oz, dx, dy, dz, lx, ly, lz, hx, hy, hz):
    """RayBox on components: t_near = max of the slab starts, t_far = min of the slab ends."""
    a0, b0 = _slab(ox, dx, lx, hx)
    a1, b1 = _slab(oy, dy, ly, hy)
    a2, b2 = _slab(oz, dz, lz, hz)
    t_near = np.maximum(np.maximum(a0, a1), a2)
    t_far = np.minimum(np.minimum(b0, b1), b2)
    return (t_near <= t_far) & (t_far >= 0.0)


def _box_hit_axes(o, d, lo, hi):
    """:func:`_box_hit` of one origin ``o`` (3,) against boxes ``lo``, ``hi`` (K, 3) along
    directions ``d`` (P, 3) -> (K, P): the slabs of the three axes in one array (K, P, 3),
    each value the same operations; t_near, t_far the maximum and minimum over the axes (the
    same values as the pairwise ones: both are exact and the slabs hold no NaN)."""
    t_lo, t_hi = _slab(o, d[None, :, :], lo[:, None, :], hi[:, None, :])
    t_near = np.maximum.reduce(t_lo, axis=-1)
    t_far = np.minimum.reduce(t_hi, axis=-1)
    return (t_near <= t_far) & (t_far >= 0.0)


def _cylinder_hit(cc, h2, wh, oz, dz, base_z, top_z):
    """RayCylinder on components: w = origin - axis (horizontal), cc = |w|^2 - r^2,
    h2 = |l_xy|^2, wh = w . l_xy."""
    disc = wh * wh - h2 * cc  # |w + t l_xy|^2 = r^2 has real roots
    sq = np.sqrt(np.maximum(disc, 0.0))
    t_r0 = (-wh - sq) / h2
    t_r1 = (-wh + sq) / h2
    vertical = h2 == 0.0
    if np.count_nonzero(vertical):  # a vertical ray: inside the circle everywhere, or nowhere
        inside = cc <= 0.0
        t_r0 = np.where(vertical, np.where(inside, -_INF, _INF), t_r0)
        t_r1 = np.where(vertical, np.where(inside, _INF, -_INF), t_r1)
    tz_lo, tz_hi = _slab(oz, dz, base_z, top_z)
    t_near = np.maximum(np.maximum(t_r0, tz_lo), 0.0)
    t_far = np.minimum(t_r1, tz_hi)
    return (disc >= 0.0) & (t_near <= t_far)


def _chord_disc(wx, wy, wz, dx, dy, dz, rr):
    """SphereChord, first part: b = w . d and disc = r^2 - |w - b d|^2 (w = origin - centre)."""
    b = wx * dx + wy * dy + wz * dz
    qx, qy, qz = wx - b * dx, wy - b * dy, wz - b * dz  # centre -> closest point of the line
    return b, rr - (qx * qx + qy * qy + qz * qz)


def _chord_length(b, disc):
    """SphereChord, second part: max(0, t2 - max(t1, 0)), t1,2 = -b -+ sqrt(disc); 0 if disc <= 0."""
    half = np.sqrt(np.maximum(disc, 0.0))
    t1, t2 = -b - half, -b + half
    return np.where(disc > 0.0, np.maximum(t2 - np.maximum(t1, 0.0), 0.0), 0.0)


def _xyz(v) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    v = np.asarray(v, dtype=np.float64)
    return v[..., 0], v[..., 1], v[..., 2]


def ray_box_hit(origin, direction, box_min, box_max) -> np.ndarray:
    """RayBox (slab test): does the ray origin + t direction, t >= 0, meet the closed box?

    All arguments broadcast, component axis last (..., 3); returns bool (...).
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        return _box_hit(*_xyz(origin), *_xyz(direction), *_xyz(box_min), *_xyz(box_max))


def ray_cylinder_hit(origin, direction, axis_xy, base_z, top_z, radius) -> np.ndarray:
    """RayCylinder: does the ray origin + t direction, t >= 0, meet the closed vertical cylinder?

    ``origin``, ``direction`` (..., 3); ``axis_xy`` (..., 2); ``base_z``, ``top_z``, ``radius``
    (...); all broadcast. The interval of the infinite cylinder, clipped by the z slab and t >= 0.
    """
    ox, oy, oz = _xyz(origin)
    dx, dy, dz = _xyz(direction)
    c = np.asarray(axis_xy, dtype=np.float64)
    r = np.asarray(radius, dtype=np.float64)
    wx, wy = ox - c[..., 0], oy - c[..., 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        return _cylinder_hit(
            wx * wx + wy * wy - r * r,
            dx * dx + dy * dy,
            wx * dx + wy * dy,
            oz,
            dz,
            np.asarray(base_z, dtype=np.float64),
            np.asarray(top_z, dtype=np.float64),
        )


def sphere_chord(origin, direction, center, radius) -> np.ndarray:
    """SphereChord: length (m) of the ray origin + t direction, t >= 0, inside the sphere.

    ``direction`` must be a unit vector. (..., 3) and (...) arguments broadcast; returns (...).
    An origin inside the sphere counts the part ahead of it; a tangent ray has chord 0.
    """
    ox, oy, oz = _xyz(origin)
    cx, cy, cz = _xyz(center)
    r = np.asarray(radius, dtype=np.float64)
    return _chord_length(*_chord_disc(ox - cx, oy - cy, oz - cz, *_xyz(direction), r * r))


@kernel(1, 2, 2, 2, 2, 2)
def one_epoch_hits(o, d, box, cyl, crown, out):
    """The ray tests of one epoch in one kernel (the sky view's streaming step): origin o (3,),
    the tracked satellites' directions d (P, 3); the kept obstacles as rows, each test's
    operations those of :func:`_box_hit_axes`, :func:`_cylinder_hit` and :func:`_slab`,
    :func:`_chord_disc` and :func:`_chord_length` in their order:

    - box (2 K_b, 6): lo, hi of the kept boxes, then of the same enlarged by the margin;
    - cyl (2 K_c, 5): x, y of the axis, r^2, base, top of the kept cylinders, then of the same
      with radius and top enlarged;
    - crown (K_r, 4): centre and r^2 of the kept crowns;

    -> out (3, P): 1.0 where a box or cylinder blocks, 1.0 where an enlarged one is hit (Near),
    and the crowns' chords summed in obstacle order from 0 (as the block's bincount)."""
    inf = np.inf
    ox, oy, oz = o[0], o[1], o[2]
    dx, dy, dz = d[:, 0], d[:, 1], d[:, 2]
    out[:] = 0.0
    nb = box.shape[0] // 2
    for k in range(box.shape[0]):  # RayBox: the slabs of the three axes
        t_near = np.full(dx.shape, -inf)
        t_far = np.full(dx.shape, inf)
        for a in range(3):
            lo, hi, oa, da = box[k, a], box[k, 3 + a], o[a], d[:, a]
            t1 = (lo - oa) / da
            t2 = (hi - oa) / da
            inside = oa >= lo and oa <= hi
            t_lo = np.where(da == 0.0, -inf if inside else inf, np.minimum(t1, t2))
            t_hi = np.where(da == 0.0, inf if inside else -inf, np.maximum(t1, t2))
            t_near = np.maximum(t_near, t_lo)
            t_far = np.minimum(t_far, t_hi)
        hit = (t_near <= t_far) & (t_far >= 0.0)
        row = 0 if k < nb else 1
        out[row] = np.where(hit, 1.0, out[row])
    nc = cyl.shape[0] // 2
    h2 = dx * dx + dy * dy
    for k in range(cyl.shape[0]):  # RayCylinder: the circle, then the z slab
        wx, wy = ox - cyl[k, 0], oy - cyl[k, 1]
        cc = (wx * wx + wy * wy) - cyl[k, 2]
        wh = wx * dx + wy * dy
        disc = wh * wh - h2 * cc
        sq = np.sqrt(np.maximum(disc, 0.0))
        t_r0 = np.where(h2 == 0.0, -inf if cc <= 0.0 else inf, (-wh - sq) / h2)
        t_r1 = np.where(h2 == 0.0, inf if cc <= 0.0 else -inf, (-wh + sq) / h2)
        base, top = cyl[k, 3], cyl[k, 4]
        t1 = (base - oz) / dz
        t2 = (top - oz) / dz
        inside = oz >= base and oz <= top
        tz_lo = np.where(dz == 0.0, -inf if inside else inf, np.minimum(t1, t2))
        tz_hi = np.where(dz == 0.0, inf if inside else -inf, np.maximum(t1, t2))
        t_near = np.maximum(np.maximum(t_r0, tz_lo), 0.0)
        t_far = np.minimum(t_r1, tz_hi)
        hit = (disc >= 0.0) & (t_near <= t_far)
        row = 0 if k < nc else 1
        out[row] = np.where(hit, 1.0, out[row])
    for k in range(crown.shape[0]):  # SphereChord, summed in obstacle order
        wx, wy, wz = ox - crown[k, 0], oy - crown[k, 1], oz - crown[k, 2]
        b = wx * dx + wy * dy + wz * dz
        qx, qy, qz = wx - b * dx, wy - b * dy, wz - b * dz
        disc = crown[k, 3] - (qx * qx + qy * qy + qz * qz)
        half = np.sqrt(np.maximum(disc, 0.0))
        t1, t2 = -b - half, -b + half
        out[2] = out[2] + np.where(disc > 0.0, np.maximum(t2 - np.maximum(t1, 0.0), 0.0), 0.0)


@kernel(1, 2, 1, 1, 1, 2, 2, 2, 1, 1)
def one_epoch_status(o, los, vis, dist, top_dn, box, cyl, crown, par, out):
    """The sky view of one epoch in one compiled kernel (a site without overhead boxes and
    footprints): the culling after its distances, the ray tests on scalars, the statuses. Each
    value by the operations of obstruction._keep_angle, :func:`_slab`, :func:`_box_hit_axes`,
    :func:`_cylinder_hit` and the chord in their order (a division only where theirs is not
    replaced by a ``where``; min and max keep NaN as np.minimum and np.maximum); a satellite
    blocked by a box or a cylinder skips the rest (Blocked wins). o (3,) the antenna, los
    (nsat, 3), vis (nsat,) 1.0 where tracked; dist (K,) hypot(c_x - x_a, c_y - y_a), top_dn
    (K,) z_t + d_n of the obstacles in the culling's order (boxes, cylinders, crowns); box,
    cyl, crown the rows of :func:`one_epoch_hits` for every obstacle; par (8,) = tan(mask) +
    margin, tan(mask) - margin, foliage_block_path_m, the codes BELOW_MASK, CLEAR, NEAR,
    FOLIAGE, BLOCKED -> out (nsat + 1,): the status codes, out[nsat] = 0.0; or out[nsat] = 1.0
    alone where an obstacle's culling needs its arctan2 (the caller takes the numpy path)."""
    inf = np.inf

    def fmin(a, b):
        return a if (a < b or a != a) else b

    def fmax(a, b):
        return a if (a > b or a != a) else b

    def slab(oa, da, lo, hi):  # _slab on scalars: (t_lo, t_hi)
        if da == 0.0:
            inside = oa >= lo and oa <= hi
            return (-inf, inf) if inside else (inf, -inf)
        t1, t2 = (lo - oa) / da, (hi - oa) / da
        return fmin(t1, t2), fmax(t1, t2)

    nsat, nb, nc, nr = los.shape[0], box.shape[0] // 2, cyl.shape[0] // 2, crown.shape[0]
    ox, oy, oz = o[0], o[1], o[2]
    kept = np.zeros(top_dn.shape[0], dtype=np.bool_)  # the culling (_keep_angle)
    out[nsat] = 0.0
    for k in range(top_dn.shape[0]):
        rise = top_dn[k] - oz
        if rise > 0.0:
            ratio = rise / dist[k] if dist[k] != 0.0 else inf
            kept[k] = ratio > par[0]
            if not kept[k] and ratio >= par[1]:
                out[nsat] = 1.0
                return
    for p in range(nsat):
        if vis[p] == 0.0:
            out[p] = par[3]
            continue
        dx, dy, dz = los[p, 0], los[p, 1], los[p, 2]
        blocked, near = False, False
        for k in range(2 * nb):  # RayBox: the slabs of the three axes
            if blocked or not kept[k % nb] or (k >= nb and near):
                continue
            t_near, t_far = -inf, inf
            for a in range(3):
                t_lo, t_hi = slab(o[a], los[p, a], box[k, a], box[k, 3 + a])
                t_near, t_far = fmax(t_near, t_lo), fmin(t_far, t_hi)
            if t_near <= t_far and t_far >= 0.0:
                blocked, near = (True, near) if k < nb else (blocked, True)
        h2 = dx * dx + dy * dy
        for k in range(2 * nc):  # RayCylinder: the circle, then the z slab
            if blocked or not kept[nb + k % nc] or (k >= nc and near):
                continue
            wx, wy = ox - cyl[k, 0], oy - cyl[k, 1]
            cc = (wx * wx + wy * wy) - cyl[k, 2]
            wh = wx * dx + wy * dy
            disc = wh * wh - h2 * cc
            if not disc >= 0.0:  # a miss (NaN too)
                continue
            sq = np.sqrt(disc)
            if h2 == 0.0:
                t_r0, t_r1 = (-inf, inf) if cc <= 0.0 else (inf, -inf)
            else:
                t_r0, t_r1 = (-wh - sq) / h2, (-wh + sq) / h2
            tz_lo, tz_hi = slab(oz, dz, cyl[k, 3], cyl[k, 4])
            if fmax(fmax(t_r0, tz_lo), 0.0) <= fmin(t_r1, tz_hi):
                blocked, near = (True, near) if k < nc else (blocked, True)
        chords = 0.0
        for k in range(nr):  # SphereChord, summed in obstacle order
            if blocked or not kept[nb + nc + k]:
                continue
            wx, wy, wz = ox - crown[k, 0], oy - crown[k, 1], oz - crown[k, 2]
            b = wx * dx + wy * dy + wz * dz
            qx, qy, qz = wx - b * dx, wy - b * dy, wz - b * dz
            disc = crown[k, 3] - (qx * qx + qy * qy + qz * qz)
            if disc > 0.0:
                half = np.sqrt(disc)
                chords = chords + fmax((-b + half) - fmax(-b - half, 0.0), 0.0)
        if blocked or chords >= par[2]:
            out[p] = par[7]
        else:
            out[p] = par[6] if chords > 0.0 else (par[5] if near else par[4])
