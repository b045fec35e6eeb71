"""Quaternion and rotation helpers, vectorised over the leading axes.

Quaternions are x, y, z, w (scalar last), active rotations (body -> world), shape (..., 4);
vectors (..., 3); matrices (..., 3, 3). The output rank never depends on the number of rows.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "cross",
    "quat_to_matrix", "quat_multiply", "quat_conjugate", "rotate", "rotate_inverse",
    "quat_about_z", "quat_about_y", "quat_about_x", "quat_from_euler_zyx", "quat_normalize",
]


def quat_normalize(q: np.ndarray) -> np.ndarray:
    """q / |q|."""
    q = np.asarray(q, dtype=np.float64)
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


def quat_to_matrix(q: np.ndarray) -> np.ndarray:
    """Rotation matrix R (..., 3, 3) of the unit quaternion q (..., 4), x, y, z, w order."""
    q = np.asarray(q, dtype=np.float64)
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
    return (r[..., :, 0] * v[..., None, 0] + r[..., :, 1] * v[..., None, 1]
            + r[..., :, 2] * v[..., None, 2])


def rotate_inverse(r: np.ndarray, v: np.ndarray) -> np.ndarray:
    """R^T v for matrices (..., 3, 3) and vectors (..., 3) (term by term, like :func:`rotate`)."""
    v = np.asarray(v, dtype=np.float64)
    return (r[..., 0, :] * v[..., None, 0] + r[..., 1, :] * v[..., None, 1]
            + r[..., 2, :] * v[..., None, 2])


def quat_multiply(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamilton product a (x) b (apply b first, then a), x, y, z, w order."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    ax, ay, az, aw = a[..., 0], a[..., 1], a[..., 2], a[..., 3]
    bx, by, bz, bw = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
    return np.stack([
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ], axis=-1)


def quat_conjugate(q: np.ndarray) -> np.ndarray:
    """The inverse rotation of a unit quaternion."""
    q = np.asarray(q, dtype=np.float64)
    return np.concatenate([-q[..., :3], q[..., 3:]], axis=-1)


def _about_axis(angle_rad: np.ndarray, axis: int) -> np.ndarray:
    angle_rad = np.asarray(angle_rad, dtype=np.float64)
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
    return quat_multiply(quat_multiply(quat_about_z(yaw_rad), quat_about_y(pitch_rad)),
                         quat_about_x(roll_rad))


def cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a x b for vectors (..., 3), written out term by term (identical bits for any row count)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    return np.stack([
        a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1],
        a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2],
        a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0],
    ], axis=-1)
