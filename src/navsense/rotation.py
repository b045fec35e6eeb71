"""Quaternion and rotation helpers, vectorised over the leading axes.

Quaternions are x, y, z, w (scalar last), active rotations (body -> world), shape (..., 4);
vectors (..., 3); matrices (..., 3, 3). The output rank never depends on the number of rows.

A single row (shape (k,) or (1, k), the streaming API's one physics step) is computed on Python
floats with the very same operations in the same order: IEEE binary64 gives the same bits as the
array code, at a tenth of the cost of numpy's per-call overhead on one row.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = [
    "cross",
    "matrix_floats",
    "multiply_floats",
    "about_axis_floats",
    "quat_to_matrix",
    "quat_multiply",
    "quat_conjugate",
    "rotate",
    "rotate_inverse",
    "quat_about_z",
    "quat_about_y",
    "quat_about_x",
    "quat_from_euler_zyx",
    "euler_zyx_of_quat",
    "wrap_angle",
    "quat_normalize",
    "matrix_product",
    "euler_321_to_dcm",
    "mrp_to_dcm",
    "dcm_to_prv",
]


def quat_normalize(q: np.ndarray) -> np.ndarray:
    """q / |q|."""
    q = np.asarray(q, dtype=np.float64)
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


def _one_row(*arrays) -> bool:
    """True when every array is one row: shape (k,) or (1, k), the same for all."""
    shape = arrays[0].shape
    return (
        len(shape) <= 2
        and (len(shape) == 1 or shape[0] == 1)
        and all(a.shape == shape for a in arrays[1:])
    )


def _one_shape(r: np.ndarray, v: np.ndarray) -> tuple:
    """The shape R v has for one matrix and one vector: the larger of (..., 3) of either."""
    return r.shape[:-1] if r.ndim - 1 >= v.ndim else v.shape


def matrix_floats(x: float, y: float, z: float, w: float) -> tuple:
    """R of one unit quaternion on Python floats: (r00, r01, r02, r10, ..., r22), row by row."""
    xx, yy, zz = x * x, y * y, z * z
    xy, xz, yz = x * y, x * z, y * z
    wx, wy, wz = w * x, w * y, w * z
    return (
        1.0 - 2.0 * (yy + zz),
        2.0 * (xy - wz),
        2.0 * (xz + wy),
        2.0 * (xy + wz),
        1.0 - 2.0 * (xx + zz),
        2.0 * (yz - wx),
        2.0 * (xz - wy),
        2.0 * (yz + wx),
        1.0 - 2.0 * (xx + yy),
    )


def multiply_floats(a, b) -> tuple:
    """a (x) b of two quaternions given as 4 Python floats each (x, y, z, w)."""
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    )


def about_axis_floats(angle_rad: float, axis: int) -> tuple:
    """q about axis 0 (x), 1 (y) or 2 (z) by a Python float angle, as 4 floats."""
    half = 0.5 * angle_rad
    q = [0.0, 0.0, 0.0, float(np.cos(half))]  # numpy's cos and sin: the bits of the array code
    q[axis] = float(np.sin(half))
    return tuple(q)


def quat_to_matrix(q: np.ndarray) -> np.ndarray:
    """Rotation matrix R (..., 3, 3) of the unit quaternion q (..., 4), x, y, z, w order."""
    q = np.asarray(q, dtype=np.float64)
    if _one_row(q):
        return np.array(matrix_floats(*q.reshape(4).tolist())).reshape(q.shape[:-1] + (3, 3))
    x, y, z, w = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    xx, yy, zz = x * x, y * y, z * z
    xy, xz, yz = x * y, x * z, y * z
    wx, wy, wz = w * x, w * y, w * z
    r = np.empty(q.shape[:-1] + (3, 3))
    r[..., 0, 0] = 1.0 - 2.0 * (yy + zz)
    r[..., 0, 1] = 2.0 * (xy - wz)
    r[..., 0, 2] = 2.0 * (xz + wy)
    r[..., 1, 0] = 2.0 * (xy + wz)
    r[..., 1, 1] = 1.0 - 2.0 * (xx + zz)
    r[..., 1, 2] = 2.0 * (yz - wx)
    r[..., 2, 0] = 2.0 * (xz - wy)
    r[..., 2, 1] = 2.0 * (yz + wx)
    r[..., 2, 2] = 1.0 - 2.0 * (xx + yy)
    return r


def rotate(r: np.ndarray, v: np.ndarray) -> np.ndarray:
    """R v for matrices (..., 3, 3) and vectors (..., 3).

    Written out term by term (not einsum or matmul) so that each element is computed the same
    way whatever the number of rows: batch, chunks and single steps give identical bits.
    """
    v = np.asarray(v, dtype=np.float64)
    if r.size == 9 and v.size == 3:
        (r00, r01, r02), (r10, r11, r12), (r20, r21, r22) = r.reshape(3, 3).tolist()
        v0, v1, v2 = v.reshape(3).tolist()
        return np.array(
            [
                r00 * v0 + r01 * v1 + r02 * v2,
                r10 * v0 + r11 * v1 + r12 * v2,
                r20 * v0 + r21 * v1 + r22 * v2,
            ]
        ).reshape(_one_shape(r, v))
    return (
        r[..., :, 0] * v[..., None, 0]
        + r[..., :, 1] * v[..., None, 1]
        + r[..., :, 2] * v[..., None, 2]
    )


def rotate_inverse(r: np.ndarray, v: np.ndarray) -> np.ndarray:
    """R^T v for matrices (..., 3, 3) and vectors (..., 3) (term by term, like :func:`rotate`)."""
    v = np.asarray(v, dtype=np.float64)
    if r.size == 9 and v.size == 3:
        (r00, r01, r02), (r10, r11, r12), (r20, r21, r22) = r.reshape(3, 3).tolist()
        v0, v1, v2 = v.reshape(3).tolist()
        return np.array(
            [
                r00 * v0 + r10 * v1 + r20 * v2,
                r01 * v0 + r11 * v1 + r21 * v2,
                r02 * v0 + r12 * v1 + r22 * v2,
            ]
        ).reshape(_one_shape(r, v))
    return (
        r[..., 0, :] * v[..., None, 0]
        + r[..., 1, :] * v[..., None, 1]
        + r[..., 2, :] * v[..., None, 2]
    )


def quat_multiply(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamilton product a (x) b (apply b first, then a), x, y, z, w order."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if _one_row(a, b):
        return np.array(multiply_floats(a.reshape(4).tolist(), b.reshape(4).tolist())).reshape(
            a.shape
        )
    ax, ay, az, aw = a[..., 0], a[..., 1], a[..., 2], a[..., 3]
    bx, by, bz, bw = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
    return np.stack(
        [
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
            aw * bw - ax * bx - ay * by - az * bz,
        ],
        axis=-1,
    )


def quat_conjugate(q: np.ndarray) -> np.ndarray:
    """The inverse rotation of a unit quaternion."""
    q = np.asarray(q, dtype=np.float64)
    return np.concatenate([-q[..., :3], q[..., 3:]], axis=-1)


def _about_axis(angle_rad: np.ndarray, axis: int) -> np.ndarray:
    angle_rad = np.asarray(angle_rad, dtype=np.float64)
    if angle_rad.size == 1 and angle_rad.ndim <= 1:
        return np.array(about_axis_floats(float(angle_rad.reshape(())), axis)).reshape(
            angle_rad.shape + (4,)
        )
    q = np.zeros(angle_rad.shape + (4,))
    q[..., axis] = np.sin(0.5 * angle_rad)
    q[..., 3] = np.cos(0.5 * angle_rad)
    return q


def quat_about_z(angle_rad) -> np.ndarray:
    """q_z(angle): rotation about the z axis."""
    return _about_axis(angle_rad, 2)


def quat_about_y(angle_rad) -> np.ndarray:
    """q_y(angle): rotation about the y axis."""
    return _about_axis(angle_rad, 1)


def quat_about_x(angle_rad) -> np.ndarray:
    """q_x(angle): rotation about the x axis."""
    return _about_axis(angle_rad, 0)


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


def cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a x b for vectors (..., 3), written out term by term (identical bits for any row count)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if _one_row(a, b):
        (a0, a1, a2), (b0, b1, b2) = a.reshape(3).tolist(), b.reshape(3).tolist()
        return np.array([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0]).reshape(a.shape)
    return np.stack(
        [
            a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1],
            a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2],
            a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0],
        ],
        axis=-1,
    )


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
