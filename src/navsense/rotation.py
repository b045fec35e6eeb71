"""Quaternion and rotation helpers, vectorised over the leading axes.

Quaternions are x, y, z, w (scalar last), active rotations (body -> world), shape (..., 4);
vectors (..., 3); matrices (..., 3, 3). The output rank never depends on the number of rows.

Every element is the formula of the docstring evaluated left to right, written out term by term
(no BLAS, einsum or matmul, whose summation order may depend on the number of rows), so batch,
chunks and single steps give identical bits.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from navsense.kernels import kernel

__all__ = [
    "cross",
    "quat_to_matrix",
    "quat_multiply",
    "quat_conjugate",
    "rotate",
    "rotate_inverse",
    "quat_about_axes",
    "quat_about_z",
    "quat_about_y",
    "quat_about_x",
    "quat_from_euler_zyx",
    "euler_zyx_of_quat",
    "wrap_angle",
    "wrap_degrees",
    "matrix_product",
    "euler_321_to_dcm",
    "mrp_to_dcm",
    "dcm_to_prv",
]


def quat_to_matrix(q: np.ndarray) -> np.ndarray:
    """Rotation matrix R (..., 3, 3) of the unit quaternion q (..., 4), x, y, z, w order::

    R = [[1 - 2 (yy + zz),  2 (xy - wz),      2 (xz + wy)    ],
         [2 (xy + wz),      1 - 2 (xx + zz),  2 (yz - wx)    ],
         [2 (xz - wy),      2 (yz + wx),      1 - 2 (xx + yy)]]
    """
    q = np.asarray(q, dtype=np.float64)
    r = np.empty(q.shape[:-1] + (3, 3))
    if q.ndim == 2:  # rows already
        _quat_to_matrix(q, r)
    else:
        _quat_to_matrix(q.reshape(-1, 4), r.reshape(-1, 3, 3))
    return r


@kernel(2, 3)
def _quat_to_matrix(q, r):
    """quat_to_matrix's rows: q (n, 4) -> r (n, 3, 3)."""
    x, y, z, w = q[:, 0], q[:, 1], q[:, 2], q[:, 3]
    xx, yy, zz = x * x, y * y, z * z
    xy, xz, yz = x * y, x * z, y * z
    wx, wy, wz = w * x, w * y, w * z
    r[:, 0, 0] = 1.0 - 2.0 * (yy + zz)
    r[:, 0, 1] = 2.0 * (xy - wz)
    r[:, 0, 2] = 2.0 * (xz + wy)
    r[:, 1, 0] = 2.0 * (xy + wz)
    r[:, 1, 1] = 1.0 - 2.0 * (xx + zz)
    r[:, 1, 2] = 2.0 * (yz - wx)
    r[:, 2, 0] = 2.0 * (xz - wy)
    r[:, 2, 1] = 2.0 * (yz + wx)
    r[:, 2, 2] = 1.0 - 2.0 * (xx + yy)


def _matrix_rows(r: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray, tuple]:
    """Matrices (..., 3, 3) and vectors (..., 3) as rows (n, 3, 3) and (n, 3), their leading axes
    broadcast, and the leading shape (:func:`_broadcast_rows`)."""
    r = np.asarray(r, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    lead = r.shape[:-2]
    if lead == v.shape[:-1]:
        if len(lead) == 1:  # rows already
            return r, v, lead
        return r.reshape(-1, 3, 3), v.reshape(-1, 3), lead
    if v.ndim == 1 and len(lead) == 1:  # one vector against rows: a row of 1 (_broadcast_rows)
        return r, v.reshape(1, 3), lead
    return _broadcast_rows(r, v, lead, v.shape[:-1], (3, 3), (3,))


def _broadcast_rows(a, b, lead_a: tuple, lead_b: tuple, tail_a: tuple, tail_b: tuple):
    """Rows of ``a`` and ``b`` whose leading shapes differ, and the broadcast leading shape.

    A single item against rows of the broadcast shape stays one row: the kernels' array
    expressions broadcast a row of 1 over n rows, numpy and numba alike, element for element the
    same operations (no copy). Otherwise both are broadcast and copied to rows."""
    # a single item's leading axes are all 1: the broadcast shape is the other's, when longer
    if a.size == math.prod(tail_a) and len(lead_a) <= len(lead_b):
        lead = lead_b
    elif b.size == math.prod(tail_b) and len(lead_b) <= len(lead_a):
        lead = lead_a
    else:
        lead = np.broadcast_shapes(lead_a, lead_b)
        a = np.broadcast_to(a, lead + tail_a)
        b = np.broadcast_to(b, lead + tail_b)
    return a.reshape((-1,) + tail_a), b.reshape((-1,) + tail_b), lead


def rotate(r: np.ndarray, v: np.ndarray) -> np.ndarray:
    """R v for matrices (..., 3, 3) and vectors (..., 3): r_i0 v0 + r_i1 v1 + r_i2 v2."""
    rows, vectors, lead = _matrix_rows(r, v)
    out = np.empty(lead + (3,))
    _rotate(rows, vectors, out if len(lead) == 1 else out.reshape(-1, 3))
    return out


@kernel(3, 2, 2)
def _rotate(r, v, out):
    """rotate's rows: r (n, 3, 3), v (n, 3) -> out (n, 3)."""
    for i in range(3):
        out[:, i] = r[:, i, 0] * v[:, 0] + r[:, i, 1] * v[:, 1] + r[:, i, 2] * v[:, 2]


def rotate_inverse(r: np.ndarray, v: np.ndarray) -> np.ndarray:
    """R^T v for matrices (..., 3, 3) and vectors (..., 3): r_0i v0 + r_1i v1 + r_2i v2."""
    rows, vectors, lead = _matrix_rows(r, v)
    out = np.empty(lead + (3,))
    _rotate_inverse(rows, vectors, out if len(lead) == 1 else out.reshape(-1, 3))
    return out


@kernel(3, 2, 2)
def _rotate_inverse(r, v, out):
    """rotate_inverse's rows: r (n, 3, 3), v (n, 3) -> out (n, 3)."""
    for i in range(3):
        out[:, i] = r[:, 0, i] * v[:, 0] + r[:, 1, i] * v[:, 1] + r[:, 2, i] * v[:, 2]


def _rows(a, b, k: int) -> tuple[np.ndarray, np.ndarray, tuple]:
    """Arrays (..., k) as rows (n, k), their leading axes broadcast, and the leading shape."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    lead = a.shape[:-1]
    if lead == b.shape[:-1]:
        if len(lead) == 1:  # rows already
            return a, b, lead
        return a.reshape(-1, k), b.reshape(-1, k), lead
    return _broadcast_rows(a, b, lead, b.shape[:-1], (k,), (k,))


def quat_multiply(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamilton product a (x) b (apply b first, then a), x, y, z, w order::

    x = aw bx + ax bw + ay bz - az by
    y = aw by - ax bz + ay bw + az bx
    z = aw bz + ax by - ay bx + az bw
    w = aw bw - ax bx - ay by - az bz
    """
    a, b, lead = _rows(a, b, 4)
    out = np.empty(lead + (4,))
    _quat_multiply(a, b, out if len(lead) == 1 else out.reshape(-1, 4))
    return out


@kernel(2, 2, 2)
def _quat_multiply(a, b, out):
    """quat_multiply's rows: a, b (n, 4) -> out (n, 4)."""
    ax, ay, az, aw = a[:, 0], a[:, 1], a[:, 2], a[:, 3]
    bx, by, bz, bw = b[:, 0], b[:, 1], b[:, 2], b[:, 3]
    out[:, 0] = aw * bx + ax * bw + ay * bz - az * by
    out[:, 1] = aw * by - ax * bz + ay * bw + az * bx
    out[:, 2] = aw * bz + ax * by - ay * bx + az * bw
    out[:, 3] = aw * bw - ax * bx - ay * by - az * bz


def quat_conjugate(q: np.ndarray) -> np.ndarray:
    """The inverse rotation of a unit quaternion."""
    q = np.asarray(q, dtype=np.float64)
    return np.concatenate([-q[..., :3], q[..., 3:]], axis=-1)


def quat_about_axes(angle_rad, axes) -> np.ndarray:
    """Rotations about coordinate axes: q = (sin(angle / 2) e_axis, cos(angle / 2)).

    ``axes``: 0 (x), 1 (y) or 2 (z) for every angle, or a sequence of k axes, one for each
    element of the last dimension of ``angle_rad`` (..., k). Returns angle_rad.shape + (4,).
    """
    angle_rad = np.asarray(angle_rad, dtype=np.float64)
    half = 0.5 * angle_rad
    q = np.zeros(angle_rad.shape + (4,))
    if isinstance(axes, int):
        q[..., axes] = np.sin(half)
    else:
        q[(..., *_axes_index(tuple(axes)))] = np.sin(half)
    q[..., 3] = np.cos(half)
    return q


@functools.cache
def _axes_index(axes: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The index (k, axis k) of quat_about_axes' sines for k axes (made once per sequence)."""
    return np.arange(len(axes)), np.array(axes, dtype=np.intp)


def quat_about_z(angle_rad) -> np.ndarray:
    """q_z(angle): rotation about the z axis."""
    return quat_about_axes(angle_rad, 2)


def quat_about_y(angle_rad) -> np.ndarray:
    """q_y(angle): rotation about the y axis."""
    return quat_about_axes(angle_rad, 1)


def quat_about_x(angle_rad) -> np.ndarray:
    """q_x(angle): rotation about the x axis."""
    return quat_about_axes(angle_rad, 0)


def quat_from_euler_zyx(yaw_rad, pitch_rad, roll_rad) -> np.ndarray:
    """q = q_z(yaw) (x) q_y(pitch) (x) q_x(roll) (intrinsic z-y'-x'' sequence)."""
    return quat_multiply(
        quat_multiply(quat_about_z(yaw_rad), quat_about_y(pitch_rad)), quat_about_x(roll_rad)
    )


def euler_zyx_of_quat(q: np.ndarray) -> np.ndarray:
    """(yaw, pitch, roll) rad, (..., 3), of quaternions (..., 4) x, y, z, w: the inverse of
    :func:`quat_from_euler_zyx` (pitch in [-pi/2, pi/2]).

    yaw = atan2(2 (w z + x y), 1 - 2 (y^2 + z^2)), pitch = asin(2 (w y - z x)),
    roll = atan2(2 (w x + y z), 1 - 2 (x^2 + y^2)).
    """
    q = np.asarray(q, dtype=np.float64)
    x, y, z, w = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    yaw = np.arctan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))
    pitch = np.arcsin(np.clip(2.0 * (w * y - z * x), -1.0, 1.0))
    roll = np.arctan2(2.0 * (w * x + y * z), 1.0 - 2.0 * (x * x + y * y))
    return np.stack([yaw, pitch, roll], axis=-1)


def wrap_angle(angle_rad):
    """The angle in [-pi, pi): (a + pi) mod 2 pi - pi, elementwise."""
    return (np.asarray(angle_rad) + np.pi) % (2.0 * np.pi) - np.pi


def wrap_degrees(angle_deg):
    """The angle in degrees in [-180, 180): (a + 180) mod 360 - 180 (a longitude, a bearing).

    A Python float stays a float and an array an array: the same operations either way."""
    return (angle_deg + 180.0) % 360.0 - 180.0


def cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a x b for vectors (..., 3): (a1 b2 - a2 b1, a2 b0 - a0 b2, a0 b1 - a1 b0)."""
    a, b, lead = _rows(a, b, 3)
    out = np.empty(lead + (3,))
    _cross(a, b, out if len(lead) == 1 else out.reshape(-1, 3))
    return out


@kernel(2, 2, 2)
def _cross(a, b, out):
    """cross's rows: a, b (n, 3) -> out (n, 3)."""
    out[:, 0] = a[:, 1] * b[:, 2] - a[:, 2] * b[:, 1]
    out[:, 1] = a[:, 2] * b[:, 0] - a[:, 0] * b[:, 2]
    out[:, 2] = a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]


# ----------------------------------------------------------------------------------------------
# Direction cosine matrices (Basilisk's convention, used by the configurable IMU): [BN] maps the
# components of a vector in frame N to its components in frame B (the transpose of the active
# body -> world matrix R above).


def matrix_product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a b for (..., 3, 3) matrices, term by term (no BLAS: same bits whatever the row count)."""
    return (
        a[..., :, 0, None] * b[..., None, 0, :]
        + a[..., :, 1, None] * b[..., None, 1, :]
        + a[..., :, 2, None] * b[..., None, 2, :]
    )


def euler_321_to_dcm(yaw_rad: float, pitch_rad: float, roll_rad: float) -> np.ndarray:
    """[PB] = M1(roll) M2(pitch) M3(yaw), 3-2-1 Euler angles (Basilisk setBodyToPlatformDCM)."""

    def m1(a):
        c, s = math.cos(a), math.sin(a)
        return np.array([[1.0, 0.0, 0.0], [0.0, c, s], [0.0, -s, c]])

    def m2(a):
        c, s = math.cos(a), math.sin(a)
        return np.array([[c, 0.0, -s], [0.0, 1.0, 0.0], [s, 0.0, c]])

    def m3(a):
        c, s = math.cos(a), math.sin(a)
        return np.array([[c, s, 0.0], [-s, c, 0.0], [0.0, 0.0, 1.0]])

    return matrix_product(m1(roll_rad), matrix_product(m2(pitch_rad), m3(yaw_rad)))


def mrp_to_dcm(sigma: np.ndarray) -> np.ndarray:
    """[BN] of MRPs sigma_BN (..., 3) (Basilisk rigidBodyKinematics MRP2C)."""
    q = np.asarray(sigma, dtype=np.float64)
    q1, q2, q3 = q[..., 0], q[..., 1], q[..., 2]
    d1 = q1 * q1 + q2 * q2 + q3 * q3
    s = 1.0 - d1
    d = (1.0 + d1) * (1.0 + d1)
    c = np.empty(q.shape[:-1] + (3, 3))
    c[..., 0, 0] = 4.0 * (2.0 * q1 * q1 - d1) + s * s
    c[..., 0, 1] = 8.0 * q1 * q2 + 4.0 * q3 * s
    c[..., 0, 2] = 8.0 * q1 * q3 - 4.0 * q2 * s
    c[..., 1, 0] = 8.0 * q2 * q1 - 4.0 * q3 * s
    c[..., 1, 1] = 4.0 * (2.0 * q2 * q2 - d1) + s * s
    c[..., 1, 2] = 8.0 * q2 * q3 + 4.0 * q1 * s
    c[..., 2, 0] = 8.0 * q3 * q1 + 4.0 * q2 * s
    c[..., 2, 1] = 8.0 * q3 * q2 - 4.0 * q1 * s
    c[..., 2, 2] = 4.0 * (2.0 * q3 * q3 - d1) + s * s
    return c / d[..., None, None]


def dcm_to_prv(c: np.ndarray) -> np.ndarray:
    """Principal rotation vector (..., 3) of DCMs (..., 3, 3) (Shepperd's method, then
    phi = 2 atan2(|beta_v|, beta_0), which is accurate for small angles)."""
    c = np.asarray(c, dtype=np.float64)
    c00, c01, c02 = c[..., 0, 0], c[..., 0, 1], c[..., 0, 2]
    c10, c11, c12 = c[..., 1, 0], c[..., 1, 1], c[..., 1, 2]
    c20, c21, c22 = c[..., 2, 0], c[..., 2, 1], c[..., 2, 2]
    tr = c00 + c11 + c22
    b2 = np.stack(
        [
            (1.0 + tr) / 4.0,
            (1.0 + 2.0 * c00 - tr) / 4.0,
            (1.0 + 2.0 * c11 - tr) / 4.0,
            (1.0 + 2.0 * c22 - tr) / 4.0,
        ],
        axis=-1,
    )
    k = np.argmax(b2, axis=-1)
    root = np.sqrt(np.maximum(np.take_along_axis(b2, k[..., None], axis=-1)[..., 0], 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        d = 4.0 * root
        cand = [
            np.stack([root, (c12 - c21) / d, (c20 - c02) / d, (c01 - c10) / d], axis=-1),
            np.stack([(c12 - c21) / d, root, (c01 + c10) / d, (c20 + c02) / d], axis=-1),
            np.stack([(c20 - c02) / d, (c01 + c10) / d, root, (c12 + c21) / d], axis=-1),
            np.stack([(c01 - c10) / d, (c20 + c02) / d, (c12 + c21) / d, root], axis=-1),
        ]
    beta = np.choose(k[..., None], cand)
    beta = np.where(beta[..., :1] < 0.0, -beta, beta)
    bv = beta[..., 1:]
    s = np.sqrt(bv[..., 0] ** 2 + bv[..., 1] ** 2 + bv[..., 2] ** 2)
    phi = 2.0 * np.arctan2(s, beta[..., 0])
    with np.errstate(divide="ignore", invalid="ignore"):
        f = np.where(s > 0.0, phi / s, 2.0)
    return bv * f[..., None]
