"""Rotation helpers: the formulas as written, bit for bit; one row (the streaming step) gives the
bits of the same row in a block."""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from navsense import rotation as rot


@pytest.fixture(scope="module")
def rows():
    rng = np.random.default_rng(7)
    q = rng.normal(size=(64, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    return q, rng.normal(size=(64, 4)), rng.normal(size=(64, 3)), rng.normal(size=64) * 4.0


def test_matrices_and_products_agree_with_scipy(rows):
    q, q2, v, _ = rows
    np.testing.assert_allclose(rot.quat_to_matrix(q), Rotation.from_quat(q).as_matrix(), atol=1e-15)
    p = q2 / np.linalg.norm(q2, axis=1, keepdims=True)
    want = (Rotation.from_quat(q) * Rotation.from_quat(p)).as_quat()
    got = rot.quat_multiply(q, p)
    np.testing.assert_allclose(np.abs(np.sum(got * want, axis=1)), 1.0, atol=1e-12)
    np.testing.assert_allclose(
        rot.rotate(rot.quat_to_matrix(q), v), Rotation.from_quat(q).apply(v), atol=1e-14
    )
    np.testing.assert_allclose(rot.cross(v, q2[:, :3]), np.cross(v, q2[:, :3]), atol=1e-15)


def test_products_are_the_formulas_evaluated_left_to_right_bit_for_bit(rows):
    """R(q), a (x) b and a x b equal their formulas written out on columns, every bit."""
    q, q2, v, _ = rows
    x, y, z, w = q.T
    r = rot.quat_to_matrix(q)
    want = [
        [1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - w * z), 2.0 * (x * z + w * y)],
        [2.0 * (x * y + w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - w * x)],
        [2.0 * (x * z - w * y), 2.0 * (y * z + w * x), 1.0 - 2.0 * (x * x + y * y)],
    ]
    for i in range(3):
        for j in range(3):
            assert r[:, i, j].tobytes() == want[i][j].tobytes(), (i, j)
    ax, ay, az, aw = q.T
    bx, by, bz, bw = q2.T
    want_q = np.stack(
        [
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
            aw * bw - ax * bx - ay * by - az * bz,
        ],
        axis=-1,
    )
    assert rot.quat_multiply(q, q2).tobytes() == want_q.tobytes()
    a, b = v.T, q2[:, :3].T
    want_c = np.stack(
        [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]], axis=-1
    )
    assert rot.cross(v, q2[:, :3]).tobytes() == want_c.tobytes()
    # signed zeros as written: 2 (xy - wz) of -0.0 and +0.0 is -0.0
    zero = rot.quat_to_matrix(np.array([-0.0, 1.0, 0.0, 1.0]))
    assert np.signbit(zero[0, 1]) == np.signbit(2.0 * (-0.0 * 1.0 - 1.0 * 0.0))


def test_one_row_equals_its_row_of_a_block_bit_for_bit(rows):
    q, q2, v, angle = rows
    block_r, block_q = rot.quat_to_matrix(q), rot.quat_multiply(q, q2)
    block_c = rot.cross(v, q2[:, :3])
    about = {f: f(angle) for f in (rot.quat_about_x, rot.quat_about_y, rot.quat_about_z)}
    for i in range(len(q)):
        for sl in (slice(i, i + 1), i):  # shape (1, k) and (k,)
            assert np.array_equal(rot.quat_to_matrix(q[sl]), block_r[sl])
            assert np.array_equal(rot.quat_multiply(q[sl], q2[sl]), block_q[sl])
            assert np.array_equal(rot.cross(v[sl], q2[sl][..., :3]), block_c[sl])
            for f, block in about.items():
                assert np.array_equal(f(angle[sl]), block[sl])
    assert rot.quat_about_z(0.25).shape == (4,) and rot.quat_to_matrix(q[0]).shape == (3, 3)


def test_one_matrix_rotates_a_lever_arm_like_a_block(rows):
    q, _, v, _ = rows
    r, arm = rot.quat_to_matrix(q), v[0]
    block, block_t = rot.rotate(r, arm), rot.rotate_inverse(r, arm)
    for i in range(len(q)):
        assert np.array_equal(rot.rotate(r[i : i + 1], arm), block[i : i + 1])
        assert np.array_equal(rot.rotate_inverse(r[i : i + 1], arm), block_t[i : i + 1])
        assert np.array_equal(rot.rotate(r[i], arm), block[i])
        assert rot.rotate(r[i], arm[None]).shape == (1, 3)


def test_euler_zyx_of_quat_inverts_quat_from_euler_zyx_and_wrap_angle():
    from navsense.rotation import euler_zyx_of_quat, quat_from_euler_zyx, wrap_angle

    rng = np.random.default_rng(5)
    ypr = np.stack(
        [
            rng.uniform(-np.pi, np.pi, 50),
            rng.uniform(-1.5, 1.5, 50),
            rng.uniform(-np.pi, np.pi, 50),
        ],
        axis=-1,
    )
    back = euler_zyx_of_quat(quat_from_euler_zyx(ypr[:, 0], ypr[:, 1], ypr[:, 2]))
    assert back.shape == (50, 3)
    np.testing.assert_allclose(wrap_angle(back - ypr), 0.0, atol=1e-12)
    a = np.array([-3 * np.pi, -np.pi, -0.5, 0.0, np.pi, 7.0])
    w = wrap_angle(a)
    assert np.all((w >= -np.pi) & (w < np.pi))
    np.testing.assert_allclose(np.cos(w), np.cos(a), atol=1e-15)
    np.testing.assert_allclose(np.sin(w), np.sin(a), atol=1e-15)
