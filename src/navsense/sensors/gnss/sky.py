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

Ray tests: the ray p_a + t l, t >= 0, against each kept obstacle. Shapes are closed (a ray that
touches a face, an edge or the mantle counts as a hit); an antenna inside a box or a cylinder
hits it.

    RayBox       slab test: t_near = max_k min(t1_k, t2_k), t_far = min_k max(t1_k, t2_k),
                 t1,2_k = (lo_k - o_k) / l_k, (hi_k - o_k) / l_k; hit when t_near <= t_far and
                 t_far >= 0 (an axis with l_k = 0 constrains nothing when lo_k <= o_k <= hi_k
                 and excludes the box otherwise)
    RayCylinder  the interval of the infinite vertical cylinder |w + t l_xy| <= r (w = o_xy - c)
                 intersected with the slab base <= z <= top and with t >= 0
    SphereChord  the forward chord length max(0, t2 - max(t1, 0)), t1,2 = -b -+ sqrt(r^2 - q^2),
                 b = (o - c) . l, q the distance from the centre to the ray's line

Results, in this order of precedence:

    Blocked   the ray hits a box or a cylinder, or the summed chord through all crowns on the
              ray is foliage_block_path_m or longer           (not used)
    Foliage   the summed crown chord is > 0 and shorter        (used, N_f)
    Near      the ray hits a box enlarged by near_margin_m on every side, or a cylinder with
              radius and top enlarged by near_margin_m        (used, N_n)
    Clear     otherwise                                        (used, N_c)

N_u = N_c + N_n + N_f. A satellite that is not tracked (below the mask, or its system off) has
the status BELOW_MASK. The line of sight l is applied in the grid ENU frame (the specification's
assumption "The models ignore the convergence of that grid"). The specification computes the
sky view in Unreal metres; navsense keeps obstacles, antenna and line of sight in grid ENU.
"""

from __future__ import annotations

import numpy as np

from navsense.rotation import quat_to_matrix, rotate
from navsense.site import Site

__all__ = [
    "BELOW_MASK", "CLEAR", "NEAR", "FOLIAGE", "BLOCKED", "STATUS_NAMES",
    "antenna_position_enu", "ray_box_hit", "ray_cylinder_hit", "sphere_chord",
    "keep_obstacles", "classify", "counts", "used_mask",
]

BELOW_MASK = 0  # not tracked: below the elevation mask, or its system off
CLEAR = 1
NEAR = 2
FOLIAGE = 3
BLOCKED = 4
STATUS_NAMES = ("below_mask", "clear", "near", "foliage", "blocked")

_BLOCK_EPOCHS = 4096  # at most this many epochs a block
_BLOCK_TRIPLES = 1 << 20  # at most about this many (epoch, satellite, obstacle) tests a block
_INF = np.inf


def antenna_position_enu(p_m, q_xyzw, lever_arm_flu_m) -> np.ndarray:
    """Antenna position p_a = p + R r_a ("Antenna Position"), (..., 3) grid ENU metres.

    ``p_m`` (..., 3) chassis origin, ``q_xyzw`` (..., 4) attitude FLU -> ENU, ``lever_arm_flu_m``
    (3,) the lever arm from the chassis origin (already moved out of base_footprint, see
    :func:`navsense.vehicles.lever_arm_from_chassis`).
    """
    p = np.asarray(p_m, dtype=np.float64)
    return p + rotate(quat_to_matrix(q_xyzw), np.asarray(lever_arm_flu_m, dtype=np.float64))


# ---------------------------------------------------------------------------------- ray tests
# The kernels take components (x, y, z as separate broadcastable arrays): classify() gathers
# them per (epoch, satellite, obstacle) triple; the public functions unpack (..., 3) arrays.
def _slab(o, d, lo, hi):
    """The interval of t (t_lo, t_hi) with lo <= o + t d <= hi along one axis."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t1 = (lo - o) / d
        t2 = (hi - o) / d
    t_lo = np.minimum(t1, t2)
    t_hi = np.maximum(t1, t2)
    parallel = d == 0.0
    if np.any(parallel):  # a slab parallel to the ray: all of it or none of it
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


def _cylinder_hit(wx, wy, h2, wh, oz, dz, base_z, top_z, radius):
    """RayCylinder on components: w = origin - axis (horizontal), h2 = |l_xy|^2, wh = w . l_xy."""
    cc = wx * wx + wy * wy - radius * radius
    disc = wh * wh - h2 * cc  # |w + t l_xy|^2 = r^2 has real roots
    with np.errstate(divide="ignore", invalid="ignore"):
        sq = np.sqrt(np.maximum(disc, 0.0))
        t_r0 = (-wh - sq) / h2
        t_r1 = (-wh + sq) / h2
    vertical = h2 == 0.0
    if np.any(vertical):  # a vertical ray: inside the circle everywhere, or nowhere
        inside = cc <= 0.0
        t_r0 = np.where(vertical, np.where(inside, -_INF, _INF), t_r0)
        t_r1 = np.where(vertical, np.where(inside, _INF, -_INF), t_r1)
    tz_lo, tz_hi = _slab(oz, dz, base_z, top_z)
    t_near = np.maximum(np.maximum(t_r0, tz_lo), 0.0)
    t_far = np.minimum(t_r1, tz_hi)
    return (disc >= 0.0) & (t_near <= t_far)


def _chord(wx, wy, wz, dx, dy, dz, radius):
    """SphereChord on components: w = origin - centre, d a unit vector."""
    b = wx * dx + wy * dy + wz * dz
    qx, qy, qz = wx - b * dx, wy - b * dy, wz - b * dz  # centre -> closest point of the line
    disc = radius * radius - (qx * qx + qy * qy + qz * qz)
    half = np.sqrt(np.maximum(disc, 0.0))
    t1, t2 = -b - half, -b + half
    return np.where(disc > 0.0, np.maximum(t2 - np.maximum(t1, 0.0), 0.0), 0.0)


def _xyz(v):
    v = np.asarray(v, dtype=np.float64)
    return v[..., 0], v[..., 1], v[..., 2]


def ray_box_hit(origin, direction, box_min, box_max) -> np.ndarray:
    """RayBox (slab test): does the ray origin + t direction, t >= 0, meet the closed box?

    All arguments broadcast, component axis last (..., 3); returns bool (...).
    """
    return _box_hit(*_xyz(origin), *_xyz(direction), *_xyz(box_min), *_xyz(box_max))


def ray_cylinder_hit(origin, direction, axis_xy, base_z, top_z, radius) -> np.ndarray:
    """RayCylinder: does the ray origin + t direction, t >= 0, meet the closed vertical cylinder?

    ``origin``, ``direction`` (..., 3); ``axis_xy`` (..., 2); ``base_z``, ``top_z``, ``radius``
    (...); all broadcast. The interval of the infinite cylinder, clipped by the z slab and t >= 0.
    """
    ox, oy, oz = _xyz(origin)
    dx, dy, dz = _xyz(direction)
    c = np.asarray(axis_xy, dtype=np.float64)
    wx, wy = ox - c[..., 0], oy - c[..., 1]
    return _cylinder_hit(wx, wy, dx * dx + dy * dy, wx * dx + wy * dy, oz, dz,
                         np.asarray(base_z, dtype=np.float64), np.asarray(top_z, dtype=np.float64),
                         np.asarray(radius, dtype=np.float64))


def sphere_chord(origin, direction, center, radius) -> np.ndarray:
    """SphereChord: length (m) of the ray origin + t direction, t >= 0, inside the sphere.

    ``direction`` must be a unit vector. (..., 3) and (...) arguments broadcast; returns (...).
    An origin inside the sphere counts the part ahead of it; a tangent ray has chord 0.
    """
    ox, oy, oz = _xyz(origin)
    cx, cy, cz = _xyz(center)
    return _chord(ox - cx, oy - cy, oz - cz, *_xyz(direction), np.asarray(radius, dtype=np.float64))


# ------------------------------------------------------------------------------------ culling
def keep_obstacles(antenna_enu_m, center_xy_m, top_z_m, near_margin_m: float,
                   elevation_mask_deg: float) -> np.ndarray:
    """The culling of "Sky Obstruction": (m, K) bool, True where an obstacle is kept.

    ``antenna_enu_m`` (m, 3); ``center_xy_m`` (K, 2) the obstacles' centres (box centre,
    cylinder axis, crown centre); ``top_z_m`` (K,) their tops. Kept when
    z_t + d_n - z_a > 0 and atan2(z_t + d_n - z_a, D) >= mask, D horizontal.
    """
    a = np.asarray(antenna_enu_m, dtype=np.float64)
    c = np.asarray(center_xy_m, dtype=np.float64)
    rise = np.asarray(top_z_m, dtype=np.float64) + near_margin_m - a[:, 2:3]
    dist = np.hypot(c[:, 0] - a[:, 0:1], c[:, 1] - a[:, 1:2])
    return (rise > 0.0) & (np.arctan2(rise, dist) >= np.radians(elevation_mask_deg))


# --------------------------------------------------------------------------------- classify
def _check_shapes(antenna, los, visible) -> None:
    if antenna.ndim != 2 or antenna.shape[1] != 3:
        raise ValueError(f"Expected `antenna_enu_m` to have shape (m, 3), got {antenna.shape}")
    m = antenna.shape[0]
    if los.ndim != 3 or los.shape[0] != m or los.shape[2] != 3:
        raise ValueError(f"Expected `los` to have shape ({m}, nsat, 3), got {los.shape}")
    if visible.shape != los.shape[:2]:
        raise ValueError(f"Expected `visible` to have shape {los.shape[:2]}, got {visible.shape}")


def _any_per_pair(pair: np.ndarray, hit: np.ndarray, n_pairs: int) -> np.ndarray:
    return np.bincount(pair[hit], minlength=n_pairs) > 0


def classify(antenna_enu_m, los, visible, site: Site, near_margin_m: float,
             foliage_block_path_m: float, elevation_mask_deg: float) -> np.ndarray:
    """Status (m, nsat) int8 of each satellite: BELOW_MASK, CLEAR, NEAR, FOLIAGE or BLOCKED.

    ``antenna_enu_m`` (m, 3) antenna positions, ``los`` (m, nsat, 3) unit lines of sight,
    ``visible`` (m, nsat) bool: above the mask and its system enabled (only these are tested).
    Each epoch's result depends on that epoch alone, so any cut of the epochs gives the same
    statuses. Work is vectorised over the (epoch, satellite, kept obstacle) triples of a block.
    """
    antenna = np.asarray(antenna_enu_m, dtype=np.float64)
    los = np.asarray(los, dtype=np.float64)
    visible = np.asarray(visible, dtype=bool)
    _check_shapes(antenna, los, visible)
    m, nsat = visible.shape
    status = np.zeros((m, nsat), dtype=np.int8)
    d_n = float(near_margin_m)

    box_lo, box_hi = site.box_min_m, site.box_max_m
    box_center = 0.5 * (box_lo[:, :2] + box_hi[:, :2])
    near_lo, near_hi = box_lo - d_n, box_hi + d_n  # the box enlarged on every side
    blo, bhi, nlo, nhi = box_lo.T, box_hi.T, near_lo.T, near_hi.T
    cyl_xy, cyl_base, cyl_top, cyl_r = site.cyl_xy_m, site.cyl_base_m, site.cyl_top_m, site.cyl_radius_m
    cyl_x, cyl_y = cyl_xy[:, 0], cyl_xy[:, 1]
    crown_c, crown_r = site.crown_center_m, site.crown_radius_m
    crown_top = crown_c[:, 2] + crown_r
    n_obstacles = len(box_lo) + len(cyl_xy) + len(crown_c)

    block = max(1, min(_BLOCK_EPOCHS, _BLOCK_TRIPLES // max(1, nsat * n_obstacles)))
    for b0 in range(0, m, block):
        b1 = min(m, b0 + block)
        ep, sat = np.nonzero(visible[b0:b1])
        n_pairs = ep.size
        if n_pairs == 0:
            continue
        ant = antenna[b0:b1]
        ox, oy, oz = ant[ep].T  # pair components (origin, direction)
        dx, dy, dz = los[b0:b1][ep, sat].T
        blocked = np.zeros(n_pairs, dtype=bool)
        near = np.zeros(n_pairs, dtype=bool)
        foliage_m = np.zeros(n_pairs)

        if len(box_lo):
            keep = keep_obstacles(ant, box_center, box_hi[:, 2], d_n, elevation_mask_deg)
            pi, ki = np.nonzero(keep[ep])
            if pi.size:
                o = (ox[pi], oy[pi], oz[pi])
                d = (dx[pi], dy[pi], dz[pi])
                hit = _box_hit(*o, *d, blo[0][ki], blo[1][ki], blo[2][ki],
                               bhi[0][ki], bhi[1][ki], bhi[2][ki])
                blocked |= _any_per_pair(pi, hit, n_pairs)
                hit = _box_hit(*o, *d, nlo[0][ki], nlo[1][ki], nlo[2][ki],
                               nhi[0][ki], nhi[1][ki], nhi[2][ki])
                near |= _any_per_pair(pi, hit, n_pairs)
        if len(cyl_xy):
            keep = keep_obstacles(ant, cyl_xy, cyl_top, d_n, elevation_mask_deg)
            pi, ki = np.nonzero(keep[ep])
            if pi.size:
                px, py, oz_t, pz = dx[pi], dy[pi], oz[pi], dz[pi]
                wx, wy = ox[pi] - cyl_x[ki], oy[pi] - cyl_y[ki]
                h2, wh = px * px + py * py, wx * px + wy * py  # shared by both tests
                zb, zt, rr = cyl_base[ki], cyl_top[ki], cyl_r[ki]
                hit = _cylinder_hit(wx, wy, h2, wh, oz_t, pz, zb, zt, rr)
                blocked |= _any_per_pair(pi, hit, n_pairs)
                hit = _cylinder_hit(wx, wy, h2, wh, oz_t, pz, zb, zt + d_n, rr + d_n)
                near |= _any_per_pair(pi, hit, n_pairs)
        if len(crown_c):
            keep = keep_obstacles(ant, crown_c[:, :2], crown_top, d_n, elevation_mask_deg)
            pi, ki = np.nonzero(keep[ep])
            if pi.size:
                chord = _chord(ox[pi] - crown_c[ki, 0], oy[pi] - crown_c[ki, 1],
                               oz[pi] - crown_c[ki, 2], dx[pi], dy[pi], dz[pi], crown_r[ki])
                # summed in obstacle order within each pair, whatever the block
                foliage_m = np.bincount(pi, weights=chord, minlength=n_pairs)

        st = np.full(n_pairs, CLEAR, dtype=np.int8)
        st[near] = NEAR
        st[foliage_m > 0.0] = FOLIAGE
        st[blocked | (foliage_m >= foliage_block_path_m)] = BLOCKED
        status[b0 + ep, sat] = st
    return status


def used_mask(status) -> np.ndarray:
    """The used satellites (m, nsat): CLEAR, NEAR or FOLIAGE."""
    status = np.asarray(status)
    return (status >= CLEAR) & (status <= FOLIAGE)


def counts(status) -> dict[str, np.ndarray]:
    """The satellite counts of a row, each (m,) int64, from the status (m, nsat).

    satellites_used = N_u = N_c + N_n + N_f, satellites_clear = N_c,
    satellites_near_obstruction = N_n, satellites_foliage = N_f, satellites_blocked,
    satellites_above_mask (all tracked satellites: used + blocked).
    """
    status = np.asarray(status)
    if status.ndim != 2:
        raise ValueError(f"Expected `status` to have shape (m, nsat), got {status.shape}")
    n = {code: np.count_nonzero(status == code, axis=1).astype(np.int64)
         for code in (CLEAR, NEAR, FOLIAGE, BLOCKED)}
    used = n[CLEAR] + n[NEAR] + n[FOLIAGE]
    return {
        "satellites_used": used,
        "satellites_clear": n[CLEAR],
        "satellites_near_obstruction": n[NEAR],
        "satellites_foliage": n[FOLIAGE],
        "satellites_blocked": n[BLOCKED],
        "satellites_above_mask": used + n[BLOCKED],
    }
