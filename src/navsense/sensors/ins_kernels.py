"""The INS epoch's arithmetic as kernels over its epochs as rows (navsense.kernels; issue 31).

The equations are those of navsense.sensors.ins (its module docstring, specification "INS and
GNSS", section "INS"); :class:`navsense.sensors.ins.InsCore` calls these kernels for a block of
epochs, one epoch (the streaming INS) or a whole chunk alike, so an epoch's values do not depend
on how many share a call. The half angles' sines and cosines are the kernels' own (``libm``:
numpy's bits, navsense.kernels); the datum chain runs between the second and the third. Three
kernels over rows, and two for one epoch on a record (navsense.sensors.ins_one: the same
operations for one row, :func:`one_epoch` with the Gauss-Markov states, :func:`one_utm`)::

    epoch_vectors      v_n = v + w x (p_n - p_c), p_ins, the half error angles, |v_n|, and
                       the finite difference (v_n,k - v_n,k-1) / dt (0 where gravity alone)
                       (R = rotation.quat_to_matrix(q) the caller's)
    attitude_and_body  q_ins = q_z(dpsi) q_true q_y(dtheta) q_x(dphi) and (v_ins, f_ins, w_ins)
    utm_attitudes      alpha in degrees, q_z(-alpha) q_ins and q_z(-alpha) q_true

A kernel cannot call a function of another module (numba compiles a kernel alone, and its cache
checks the kernel's own file), so the rotation formulas they use are those of navsense.rotation
written out here, term for term in the same order: ``quat_to_matrix``, ``cross``,
``rotate_inverse`` and ``quat_multiply`` (with quat_about_axes' quaternions, whose zero
components are multiplied as the product does): the same operations on the same values, so the
same bits (tests/sensors/test_ins_kernels.py compares them with navsense.rotation's).
"""

from __future__ import annotations

import numpy as np

from navsense.constants import DEG, DEG_PER_RAD, GRAVITY_MPS2
from navsense.gauss_markov import A_MIN, SEGMENT
from navsense.geo.fix_chain import ALPHA as _ALPHA
from navsense.geo.fix_chain import EAST as _EAST
from navsense.geo.fix_chain import GRID_ROTATION_STEP_M
from navsense.geo.fix_chain import HEIGHT as _HEIGHT
from navsense.geo.fix_chain import LAT as _LAT
from navsense.geo.fix_chain import LON as _LON
from navsense.geo.fix_chain import NORTH as _NORTH
from navsense.kernels import kernel

__all__ = [
    "PARAMETERS",
    "UP_SIGMA_FACTOR",
    "epoch_vectors",
    "attitude_and_body",
    "utm_attitudes",
]

# the kernels' parameter row (InsCore builds it once): index of each value
PARAMETERS = (
    "position_m",  # sigma_p
    "position_white_m",  # sigma_pw
    "heading_rad",  # sigma_psi (x4)
    "attitude_rad",  # sigma_theta (x5, x6)
    "velocity_white_mps",  # sigma_v
    "accel_white_mps2",  # sigma_f
    "gyro_white_radps",  # sigma_w
    "earth",  # 1.0: imu.earth "wgs84" (the terms given), 0.0: (0, 0, g)
)
UP_SIGMA_FACTOR = 1.5  # spec "INS": the up axis uses 1.5 sigma_p (x1, x2, 1.5 x3)


@kernel(2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 2, 2, 2, 1, 2, 2)
def epoch_vectors(
    p_n, c_m, v, w, x, g, dt, gravity, v_prev, par, v_n, p_ins, half, speed, acc, points
):
    """Before the half angles' sines: p_n, c_m, v, w (m, 3), the Gauss-Markov states x (m, 6),
    the epoch's Gaussians g (m, 18), dt (m,), gravity (m,: 1.0 gravity alone, else 0.0), the
    previous epoch's v_n (3,), the parameters par (:data:`PARAMETERS`) -> v_n, p_ins, half
    (m, 3), speed (m, ), acc (m, 3) and the datum chain's points (3, 3 m), rows e, n, u of
    p_ins, p_n and p_ins 10 m grid-north (Georeference.ins_fix_utm's ``points``); R =
    rotation.quat_to_matrix(q) is the caller's (the batch model has it from p_n = p + R r_n)::

        v_n = v + w x (p_n - p_c)
        p_ins = p_n + sigma_p (x1, x2, 1.5 x3) + sigma_pw g_p            (draws 6..8)
        half = 0.5 (sigma_psi x4, sigma_theta x6, sigma_theta x5)      (q_z, q_y, q_x)
        speed = |v_n|
        acc = (v_n,k - v_n,k-1) / dt, 0 where gravity alone
    """
    # each row's last operation writes into its output (np.add(a, b, out): no copy after it)
    d0, d1, d2 = p_n[:, 0] - c_m[:, 0], p_n[:, 1] - c_m[:, 1], p_n[:, 2] - c_m[:, 2]
    np.add(v[:, 0], w[:, 1] * d2 - w[:, 2] * d1, v_n[:, 0])  # v + w x (p_n - p_c): cross
    np.add(v[:, 1], w[:, 2] * d0 - w[:, 0] * d2, v_n[:, 1])
    np.add(v[:, 2], w[:, 0] * d1 - w[:, 1] * d0, v_n[:, 2])
    sigma_p, sigma_pw = par[0], par[1]  # (x 1.0 of the east and north states: x itself)
    np.add(p_n[:, 0] + sigma_p * x[:, 0], sigma_pw * g[:, 6], p_ins[:, 0])
    np.add(p_n[:, 1] + sigma_p * x[:, 1], sigma_pw * g[:, 7], p_ins[:, 1])
    np.add(p_n[:, 2] + sigma_p * (x[:, 2] * UP_SIGMA_FACTOR), sigma_pw * g[:, 8], p_ins[:, 2])
    m = dt.shape[0]
    for j in range(3):  # the chain's points: p_ins, p_n, P2 of p_ins
        points[j, :m] = p_ins[:, j]
        points[j, m : 2 * m] = p_n[:, j]
        points[j, 2 * m :] = p_ins[:, j]
    points[1, 2 * m :] += GRID_ROTATION_STEP_M  # P2 = p_ins + (0, 10 m, 0)
    np.multiply(0.5, x[:, 3] * par[2], half[:, 0])  # dpsi / 2 (heading, x4)
    np.multiply(0.5, x[:, 5] * par[3], half[:, 1])  # dtheta / 2 (pitch, x6)
    np.multiply(0.5, x[:, 4] * par[3], half[:, 2])  # dphi / 2 (roll, x5)
    vv0, vv1, vv2 = v_n[:, 0] * v_n[:, 0], v_n[:, 1] * v_n[:, 1], v_n[:, 2] * v_n[:, 2]
    np.sqrt(vv0 + vv1 + vv2, speed)
    alone = gravity != 0.0
    diff = np.empty(m)  # v_n,k - v_n,k-1, the previous epoch's v_n of the first v_prev
    for j in range(3):
        diff[0] = v_n[0, j] - v_prev[j]
        np.subtract(v_n[1:, j], v_n[:-1, j], diff[1:])
        np.divide(diff, dt, diff)
        acc[:, j] = np.where(alone, 0.0, diff)


@kernel(2, 2, 3, 2, 2, 2, 3, 2, 1, 2, 3, libm=True)
def attitude_and_body(q, half, r, v_n, acc, w, terms, g, par, q_ins, body):
    """The half angles (m, 3) and their sines and cosines, q (m, 4), r (m, 3, 3), v_n, acc, w
    (m, 3), the Earth's terms (m, 2, 3; read only when par's ``earth`` is 1.0), g (m, 18) ->
    q_ins (m, 4) and body (m, 3, 3) = (v_ins, f_ins, w_ins) (navsense.sensors.ins)::

        q_ins = q_z(dpsi) q_true q_y(dtheta) q_x(dphi)
        v_ins = R^T v_n + sigma_v g_v,   f_ins = R^T (acc + (0, 0, g)) + sigma_f g_f,
        w_ins = R^T w + sigma_w g_w                                   (draws 9..17)

    imu.earth "wgs84": acc + F in place of acc + (0, 0, g), w + W (the terms). ``acc`` is
    changed in place."""
    sin_half, cos_half = np.sin(half), np.cos(half)  # quat_about_axes' sines and cosines
    # q_z(dpsi) q_true: rotation.quat_multiply with a = (0, 0, s, c)
    # (each product with a zero component once: 0.0 b_x is the same value in x and in w)
    s, c = sin_half[:, 0], cos_half[:, 0]
    bx, by, bz, bw = q[:, 0], q[:, 1], q[:, 2], q[:, 3]
    zx, zy, zz, zw = 0.0 * bx, 0.0 * by, 0.0 * bz, 0.0 * bw
    x1 = c * bx + zw + zz - s * by
    y1 = c * by - zz + zw + s * bx
    z1 = c * bz + zy - zx + s * bw
    w1 = c * bw - zx - zy - s * bz
    # (...) q_y(dtheta): b = (0, s, 0, c)
    s, c = sin_half[:, 1], cos_half[:, 1]
    zx, zy, zz, zw = x1 * 0.0, y1 * 0.0, z1 * 0.0, w1 * 0.0
    x2 = zw + x1 * c + zy - z1 * s
    y2 = w1 * s - zx + y1 * c + zz
    z2 = zw + x1 * s - zy + z1 * c
    w2 = w1 * c - zx - y1 * s - zz
    # (...) q_x(dphi): b = (s, 0, 0, c)
    s, c = sin_half[:, 2], cos_half[:, 2]
    zx, zy, zz, zw = x2 * 0.0, y2 * 0.0, z2 * 0.0, w2 * 0.0
    np.subtract(w2 * s + x2 * c + zy, zz, q_ins[:, 0])
    np.add(zw - zx + y2 * c, z2 * s, q_ins[:, 1])
    np.add(zw + zx - y2 * s, z2 * c, q_ins[:, 2])
    np.subtract(w2 * c - x2 * s - zy, zz, q_ins[:, 3])
    if par[7] == 0.0:
        acc[:, 2] += GRAVITY_MPS2  # + (0, 0, g)
        w_b = w
    else:  # imu.earth "wgs84": F in place of (0, 0, g), w + W
        acc += terms[:, 0]
        w_b = w + terms[:, 1]
    # R's columns and each vector's components as contiguous rows, each read three times
    m = q.shape[0]
    rt, vt = np.empty((9, m)), np.empty((3, m))
    for j in range(3):
        for i in range(3):
            rt[3 * j + i] = r[:, j, i]
    for k in range(3):  # v_n, acc, w: R^T (rotation.rotate_inverse) + sigma g
        vec = v_n if k == 0 else (acc if k == 1 else w_b)
        sigma = par[4 + k]
        for j in range(3):
            vt[j] = vec[:, j]
        for i in range(3):
            rv = (
                rt[i] * vt[0] + rt[3 + i] * vt[1] + rt[6 + i] * vt[2]
            )  # r_0i v0 + r_1i v1 + r_2i v2
            np.add(rv, sigma * g[:, 9 + 3 * k + i], body[:, k, i])


@kernel(1, 2, 2, 1, 1, 1, 3, 3, 1, libm=True)
def utm_attitudes(alpha_rad, q_ins, q_true, e, n, h, out, utm, alpha_deg):
    """The grid rotation in degrees, q_z(-alpha) q_ins and q_z(-alpha) q_true: alpha (m,, rad:
    Georeference.ins_fix_rows' atan2), q_ins and q_true (m, 4) -> alpha_deg (m,) = alpha
    DEG_PER_RAD (np.degrees' product), out (m, 2, 4) (quat_about_axes' half angle
    (alpha DEG) (-0.5), the same bits as 0.5 (-(alpha DEG)), its sine and cosine;
    rotation.quat_multiply with a = (0, 0, s, c)); and the UTM positions (E, N, h) of the fix
    and of the truth point, the first m and the next m values of the rows e, n, h, as utm
    (m, 2, 3)."""
    m = alpha_rad.shape[0]
    np.multiply(alpha_rad, DEG_PER_RAD, alpha_deg)
    half = (alpha_deg * DEG) * -0.5
    sin_half, cos_half = np.sin(half), np.cos(half)
    utm[:, 0, 0], utm[:, 0, 1], utm[:, 0, 2] = e[:m], n[:m], h[:m]
    utm[:, 1, 0], utm[:, 1, 1], utm[:, 1, 2] = e[m : 2 * m], n[m : 2 * m], h[m : 2 * m]
    s, c = sin_half, cos_half
    for j in range(2):
        b = q_ins if j == 0 else q_true
        bx, by, bz, bw = b[:, 0], b[:, 1], b[:, 2], b[:, 3]
        zx, zy, zz, zw = 0.0 * bx, 0.0 * by, 0.0 * bz, 0.0 * bw  # each once (attitude_and_body)
        np.subtract(c * bx + zw + zz, s * by, out[:, j, 0])
        np.add(c * by - zz + zw, s * bx, out[:, j, 1])
        np.add(c * bz + zy - zx, s * bw, out[:, j, 2])
        np.subtract(c * bw - zx - zy, s * bz, out[:, j, 3])


# ------------------------------------------------------------------- one epoch (ins_one)
# The slots of the one-epoch record (navsense.sensors.ins_one: one float64 array (RECORD,) kept
# from epoch to epoch). The caller writes T .. W_ (INPUTS values) at each epoch, PAR and the
# Gauss-Markov state once; one_epoch and one_utm write the rest.
T, DT, A, GRAVITY = 0, 1, 2, 3  # t (s), dt (s), a = exp(-dt / tau_p), 1.0: gravity alone
P_N, Q, C_M, V, W_ = 4, 7, 11, 14, 17  # p_n (3), q (4), p_c (3), v (3), w (3)
INPUTS = 20
PAR = 20  # PARAMETERS (8)
EPOCHS, ANCHOR, PRODUCT, SUM, LAST = 28, 29, 35, 36, 42  # AnchoredScan's state (1, 6, 1, 6, 6)
V_PREV = 48  # the previous epoch's v_n (3)
X, V_N, P_INS, Q_INS, BODY = 51, 57, 60, 63, 67  # x (6), v_n, p_ins (3), q_ins (4), body (9)
SPEED, HALF, COVARIANCE = 76, 77, 80  # |v_n|, the half error angles (3), the fix's (3)
LAT, LON, HEIGHT, UTM, Q_UTM = 83, 84, 85, 86, 89  # the fix: deg, deg, m, (E, N, h), q_utm
GRID_DEG, TRUTH_UTM, TRUTH_Q_UTM, HALF_UTM = 93, 94, 97, 101  # alpha (deg), ..., -alpha / 2
RECORD = 102


@kernel(1, 1, 2, libm=True)
def one_epoch(s, g, pts):
    """One epoch of the Gauss-Markov states, :func:`epoch_vectors` and :func:`attitude_and_body`
    (imu.earth none: par's ``earth`` 0.0) on the record ``s`` (the slots above), the epoch's
    Gaussians g (18,) -> the chain's points pts (3, 3): the operations of those kernels and of
    gauss_markov._unit_one (AnchoredScan: an anchor when the epoch count is a multiple of
    SEGMENT or a < A_MIN) for one row, written out term for term in the same order::

        d = sqrt(1 - a^2) g;  anchor: x = a x_prev + d,  else P = P_prev a, S = S_prev + d / P,
        x = P (x_k0 + S); then the equations of epoch_vectors and attitude_and_body

    v_prev is left as it was (:func:`one_utm` moves it on once the fix is through)."""
    a = s[A]
    sq = np.sqrt(1.0 - a * a)
    if s[EPOCHS] % SEGMENT == 0.0 or not a >= A_MIN:  # an anchor, as written
        for j in range(6):
            x = a * s[LAST + j] + sq * g[j]
            s[X + j], s[ANCHOR + j], s[SUM + j], s[LAST + j] = x, x, 0.0, x
        s[PRODUCT] = 1.0
    else:
        p = s[PRODUCT] * a
        s[PRODUCT] = p
        for j in range(6):
            total = s[SUM + j] + (sq * g[j]) / p
            x = p * (s[ANCHOR + j] + total)
            s[X + j], s[SUM + j], s[LAST + j] = x, total, x
    s[EPOCHS] += 1.0
    # epoch_vectors
    qx, qy, qz, qw = s[Q], s[Q + 1], s[Q + 2], s[Q + 3]  # rotation.quat_to_matrix
    xx, yy, zz = qx * qx, qy * qy, qz * qz
    xy, xz, yz = qx * qy, qx * qz, qy * qz
    wx, wy, wz = qw * qx, qw * qy, qw * qz
    r00, r01, r02 = 1.0 - 2.0 * (yy + zz), 2.0 * (xy - wz), 2.0 * (xz + wy)
    r10, r11, r12 = 2.0 * (xy + wz), 1.0 - 2.0 * (xx + zz), 2.0 * (yz - wx)
    r20, r21, r22 = 2.0 * (xz - wy), 2.0 * (yz + wx), 1.0 - 2.0 * (xx + yy)
    p0, p1, p2 = s[P_N], s[P_N + 1], s[P_N + 2]
    w0, w1, w2 = s[W_], s[W_ + 1], s[W_ + 2]
    d0, d1, d2 = p0 - s[C_M], p1 - s[C_M + 1], p2 - s[C_M + 2]
    vn0 = s[V] + (w1 * d2 - w2 * d1)  # v + w x (p_n - p_c): rotation.cross
    vn1 = s[V + 1] + (w2 * d0 - w0 * d2)
    vn2 = s[V + 2] + (w0 * d1 - w1 * d0)
    s[V_N], s[V_N + 1], s[V_N + 2] = vn0, vn1, vn2
    sigma_p, sigma_pw = s[PAR], s[PAR + 1]
    e0 = p0 + sigma_p * s[X] + sigma_pw * g[6]
    e1 = p1 + sigma_p * s[X + 1] + sigma_pw * g[7]
    e2 = p2 + sigma_p * (s[X + 2] * UP_SIGMA_FACTOR) + sigma_pw * g[8]
    s[P_INS], s[P_INS + 1], s[P_INS + 2] = e0, e1, e2
    pts[0, 0], pts[1, 0], pts[2, 0] = e0, e1, e2  # the chain's points: p_ins, p_n, P2
    pts[0, 1], pts[1, 1], pts[2, 1] = p0, p1, p2
    pts[0, 2], pts[1, 2], pts[2, 2] = e0, e1 + GRID_ROTATION_STEP_M, e2
    s[HALF] = 0.5 * (s[X + 3] * s[PAR + 2])  # dpsi / 2 (heading, x4)
    s[HALF + 1] = 0.5 * (s[X + 5] * s[PAR + 3])  # dtheta / 2 (pitch, x6)
    s[HALF + 2] = 0.5 * (s[X + 4] * s[PAR + 3])  # dphi / 2 (roll, x5)
    s[SPEED] = np.sqrt(vn0 * vn0 + vn1 * vn1 + vn2 * vn2)
    if s[GRAVITY] != 0.0:
        a0, a1, a2 = 0.0, 0.0, 0.0
    else:
        dt = s[DT]
        a0, a1 = (vn0 - s[V_PREV]) / dt, (vn1 - s[V_PREV + 1]) / dt
        a2 = (vn2 - s[V_PREV + 2]) / dt
    # attitude_and_body
    half = s[HALF : HALF + 3]
    sin_half, cos_half = np.sin(half), np.cos(half)
    sn, c = sin_half[0], cos_half[0]  # q_z(dpsi) q_true
    bx, by, bz, bw = qx, qy, qz, qw
    x1 = c * bx + 0.0 * bw + 0.0 * bz - sn * by
    y1 = c * by - 0.0 * bz + 0.0 * bw + sn * bx
    z1 = c * bz + 0.0 * by - 0.0 * bx + sn * bw
    q1 = c * bw - 0.0 * bx - 0.0 * by - sn * bz
    sn, c = sin_half[1], cos_half[1]  # (...) q_y(dtheta)
    x2 = q1 * 0.0 + x1 * c + y1 * 0.0 - z1 * sn
    y2 = q1 * sn - x1 * 0.0 + y1 * c + z1 * 0.0
    z2 = q1 * 0.0 + x1 * sn - y1 * 0.0 + z1 * c
    q2 = q1 * c - x1 * 0.0 - y1 * sn - z1 * 0.0
    sn, c = sin_half[2], cos_half[2]  # (...) q_x(dphi)
    s[Q_INS] = q2 * sn + x2 * c + y2 * 0.0 - z2 * 0.0
    s[Q_INS + 1] = q2 * 0.0 - x2 * 0.0 + y2 * c + z2 * sn
    s[Q_INS + 2] = q2 * 0.0 + x2 * 0.0 - y2 * sn + z2 * c
    s[Q_INS + 3] = q2 * c - x2 * sn - y2 * 0.0 - z2 * 0.0
    a2 += GRAVITY_MPS2  # + (0, 0, g)
    for k in range(3):  # v_n, acc, w: R^T (rotation.rotate_inverse) + sigma g
        if k == 0:
            u0, u1, u2 = vn0, vn1, vn2
        elif k == 1:
            u0, u1, u2 = a0, a1, a2
        else:
            u0, u1, u2 = w0, w1, w2
        sigma = s[PAR + 4 + k]
        o = BODY + 3 * k
        s[o] = (r00 * u0 + r10 * u1 + r20 * u2) + sigma * g[9 + 3 * k]
        s[o + 1] = (r01 * u0 + r11 * u1 + r21 * u2) + sigma * g[10 + 3 * k]
        s[o + 2] = (r02 * u0 + r12 * u1 + r22 * u2) + sigma * g[11 + 3 * k]


@kernel(1, 2, libm=True)
def one_utm(s, w):
    """:func:`utm_attitudes` for one epoch on the record ``s``, from the rows ``w`` of
    navsense.geo.fix_chain.run_chain (its LAT, LON, HEIGHT, EAST, NORTH and ALPHA rows: the fix
    in column 0, the truth point in column 1) -> the fix's lat, lon, h, (E, N, h) of the fix and
    of the truth point, alpha in degrees, q_z(-alpha) q_ins and q_z(-alpha) q_true; then
    v_prev = v_n (the epoch is through)."""
    alpha_deg = w[_ALPHA, 0] * DEG_PER_RAD
    s[GRID_DEG] = alpha_deg
    s[HALF_UTM] = (alpha_deg * DEG) * -0.5
    half = s[HALF_UTM : HALF_UTM + 1]
    sn, c = np.sin(half)[0], np.cos(half)[0]
    s[LAT], s[LON], s[HEIGHT] = w[_LAT, 0], w[_LON, 0], w[_HEIGHT, 0]
    s[UTM], s[UTM + 1], s[UTM + 2] = w[_EAST, 0], w[_NORTH, 0], w[_HEIGHT, 0]
    s[TRUTH_UTM], s[TRUTH_UTM + 1] = w[_EAST, 1], w[_NORTH, 1]
    s[TRUTH_UTM + 2] = w[_HEIGHT, 1]
    for j in range(2):
        b, o = (Q_INS, Q_UTM) if j == 0 else (Q, TRUTH_Q_UTM)
        bx, by, bz, bw = s[b], s[b + 1], s[b + 2], s[b + 3]
        s[o] = c * bx + 0.0 * bw + 0.0 * bz - sn * by
        s[o + 1] = c * by - 0.0 * bz + 0.0 * bw + sn * bx
        s[o + 2] = c * bz + 0.0 * by - 0.0 * bx + sn * bw
        s[o + 3] = c * bw - 0.0 * bx - 0.0 * by - sn * bz
    s[V_PREV], s[V_PREV + 1], s[V_PREV + 2] = s[V_N], s[V_N + 1], s[V_N + 2]
