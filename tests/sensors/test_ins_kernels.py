"""navsense.sensors.ins_kernels: the INS epoch's kernels give, bit for bit, the values of
navsense.rotation's functions and the equations of navsense.sensors.ins written as numpy
expressions (the way InsCore computed them before the kernels), numpy and compiled alike, for one
row, a few and a chunk, with gravity-only rows, the Earth's terms and signed zeros in the input."""

import numpy as np
import pytest

import navsense.kernels as kernels
from navsense.constants import DEG, GRAVITY_MPS2
from navsense.geo.georef import GRID_ROTATION_STEP_M
from navsense.rotation import (
    cross,
    quat_about_axes,
    quat_multiply,
    quat_to_matrix,
    rotate_inverse,
)
from navsense.sensors import ins_kernels as k


def _bits(a):
    return np.ascontiguousarray(a).view(np.int64)


def _inputs(m, seed):
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((m, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    p_n, c_m, v, w = (rng.standard_normal((m, 3)) * s for s in (300.0, 1.0, 10.0, 0.5))
    if m:
        w[0] = [-0.0, 0.0, -0.0]  # signed zeros, as a truth at rest gives them
        q[0] = [0.0, -0.0, 0.0, 1.0]
    x = rng.standard_normal((m, 6))
    g = rng.standard_normal((m, 18))
    dt = rng.uniform(0.008, 0.02, m)
    gravity = (rng.uniform(size=m) < 0.3).astype(np.float64)
    v_prev = rng.standard_normal(3)
    terms = rng.standard_normal((m, 2, 3)) * [[[1e-3], [1e-5]]]
    return q, p_n, c_m, v, w, x, g, dt, gravity, v_prev, terms


def _reference(q, p_n, c_m, v, w, x, g, dt, gravity, v_prev, terms, par):
    """The INS's equations with navsense.rotation's functions (sensors/ins.py before the
    kernels)."""
    m = q.shape[0]
    r = quat_to_matrix(q)
    v_n = v + cross(w, p_n - c_m)
    scale = np.array([1.0, 1.0, 1.5])
    p_ins = p_n + par[0] * (x[:, 0:3] * scale) + par[1] * g[:, 6:9]
    err = quat_about_axes(x[:, [3, 5, 4]] * np.array([par[2], par[3], par[3]]), (2, 1, 0))
    q_ins = quat_multiply(quat_multiply(quat_multiply(err[:, 0], q), err[:, 1]), err[:, 2])
    before = np.empty((m, 3))
    before[0] = v_prev
    before[1:] = v_n[:-1]
    acc = (v_n - before) / dt[:, None]
    acc[gravity != 0.0] = 0.0
    w_b = w
    if par[7] == 0.0:
        acc[:, 2] += GRAVITY_MPS2
    else:
        acc += terms[:, 0]
        w_b = w + terms[:, 1]
    vectors = np.stack([v_n, acc, w_b], axis=1)
    body = rotate_inverse(r[:, None], vectors)
    body += np.array([[par[4]], [par[5]], [par[6]]]) * g[:, 9:18].reshape(m, 3, 3)
    vv = v_n * v_n
    speed = np.sqrt(vv[:, 0] + vv[:, 1] + vv[:, 2])
    return r, v_n, p_ins, q_ins, body, speed


def _kernels(q, p_n, c_m, v, w, x, g, dt, gravity, v_prev, terms, par):
    m = q.shape[0]
    r = quat_to_matrix(q)  # the caller's (InsCore.run; the batch model has it from p_n)
    v_n, p_ins, half, acc = (np.empty((m, 3)) for _ in range(4))
    speed = np.empty(m)
    points = np.empty((3, 3 * m))
    k.epoch_vectors(
        p_n, c_m, v, w, x, g, dt, gravity, v_prev, par, v_n, p_ins, half, speed, acc, points
    )
    # the datum chain's points as Georeference.ins_fix_utm builds them
    want = np.empty((3, 3 * m))
    want[:, :m], want[:, m : 2 * m], want[:, 2 * m :] = p_ins.T, p_n.T, p_ins.T
    want[1, 2 * m :] += GRID_ROTATION_STEP_M
    assert np.array_equal(_bits(points), _bits(want))
    q_ins, body = np.empty((m, 4)), np.empty((m, 3, 3))
    k.attitude_and_body(q, half, r, v_n, acc, w, terms, g, par, q_ins, body)
    return r, v_n, p_ins, q_ins, body, speed


@pytest.mark.parametrize("m", [1, 3, 500])
@pytest.mark.parametrize("earth", [0.0, 1.0])
@pytest.mark.parametrize("compiled", [False, True])
def test_epoch_kernels_equal_the_rotation_functions(monkeypatch, m, earth, compiled):
    if compiled:
        pytest.importorskip("numba")
        if not kernels.libm_agrees():  # the kernel then runs as numpy: nothing else to test
            pytest.skip("numba's sin and cos differ from numpy's here")
    args = _inputs(m, m)
    par = np.array([0.01, 0.002, 0.003, 0.001, 0.01, 0.05, 0.001, earth])
    monkeypatch.setattr(kernels, "_on", False)
    want = _reference(*args, par)
    monkeypatch.setattr(kernels, "_on", compiled)
    got = _kernels(*args, par)
    for name, a, b in zip(("r", "v_n", "p_ins", "q_ins", "body", "speed"), want, got):
        assert a.shape == b.shape, name
        assert np.array_equal(_bits(a), _bits(b)), name
    assert np.allclose(np.linalg.norm(got[3], axis=1), 1.0, atol=1e-12)  # still a unit quaternion


@pytest.mark.parametrize("compiled", [False, True])
def test_utm_attitudes_equal_quat_multiply(monkeypatch, compiled):
    if compiled:
        pytest.importorskip("numba")
        if not kernels.libm_agrees():  # the kernel then runs as numpy: nothing else to test
            pytest.skip("numba's sin and cos differ from numpy's here")
    rng = np.random.default_rng(7)
    q_ins, q_true = (rng.standard_normal((5, 4)) for _ in range(2))
    alpha_rad = rng.uniform(-0.04, 0.04, 5)
    alpha_rad[0] = 0.0  # q_z(-0): a signed zero
    alpha_rad[1] = 5e-324  # its half angle underflows
    alpha = np.degrees(alpha_rad)  # as Georeference.ins_fix_utm gives it
    monkeypatch.setattr(kernels, "_on", False)
    q_rot = quat_about_axes(-(alpha * DEG), 2)
    want = quat_multiply(q_rot[:, None], np.stack([q_ins, q_true], axis=1))
    monkeypatch.setattr(kernels, "_on", compiled)
    got, utm, got_deg = np.empty((5, 2, 4)), np.empty((5, 2, 3)), np.empty(5)
    e, n, h = rng.standard_normal((3, 15))  # the fix's rows: INS points, truth points, P2
    k.utm_attitudes(alpha_rad, q_ins, q_true, e, n, h, got, utm, got_deg)
    assert np.array_equal(_bits(want), _bits(got))
    assert np.array_equal(_bits(got_deg), _bits(alpha))
    assert np.array_equal(
        utm,
        np.stack([np.stack([e[:5], n[:5], h[:5]], 1), np.stack([e[5:10], n[5:10], h[5:10]], 1)], 1),
    )
