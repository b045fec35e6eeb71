"""navsense.kernels (issue 31 item 1): each kernel compiled by numba gives numpy's bits.

Every kernel of navsense.rotation runs on the same rows both ways (one row, a chunk, no rows,
broadcast leading axes, non-contiguous views) and the results must be equal bit for bit; the
values themselves are checked against scipy's rotations (an independent library), so a kernel
wrong in both modes fails too. A streamed INS (compiled) equals the batch model (numpy) in
tests/test_stream.py and tests/sensors/test_ins*.py.
"""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import navsense.kernels as kernels
from navsense.geo import stateplane, utm
from navsense.rotation import cross, quat_multiply, quat_to_matrix, rotate, rotate_inverse

pytest.importorskip("numba")


def _both(monkeypatch, call):
    """call() with the kernels as numpy, then compiled."""
    monkeypatch.setattr(kernels, "_on", False)
    plain = call()
    monkeypatch.setattr(kernels, "_on", True)
    fast = call()
    monkeypatch.setattr(kernels, "_on", False)
    return plain, fast


def _bits(a):
    return np.ascontiguousarray(a).view(np.int64)


def _quats(rng, shape):
    q = rng.standard_normal(shape + (4,))
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


@pytest.mark.parametrize("n", [0, 1, 7, 4000])
def test_compiled_equals_numpy_bit_for_bit(monkeypatch, n):
    rng = np.random.default_rng(n)
    a, b = _quats(rng, (n,)), _quats(rng, (n,))
    v, w = rng.standard_normal((n, 3)) * 1e3, rng.standard_normal((n, 3))
    r = quat_to_matrix(a)
    cases = {
        "quat_multiply": lambda: quat_multiply(a, b),
        "quat_to_matrix": lambda: quat_to_matrix(a),
        "cross": lambda: cross(v, w),
        "rotate": lambda: rotate(r, v),
        "rotate_inverse": lambda: rotate_inverse(r, v),
        # broadcast leading axes and strided views, as the INS calls them
        "quat_multiply broadcast": lambda: quat_multiply(a[:, None], np.stack([a, b], axis=1)),
        "rotate_inverse broadcast": lambda: rotate_inverse(r[:, None], np.stack([v, w, v], 1)),
        "quat_multiply strided": lambda: quat_multiply(np.stack([a, b], 1)[:, 1], a),
        "rotate one matrix": lambda: rotate(r[0] if n else np.eye(3), v),
        # one item against many rows: the kernel broadcasts a row of 1 (no copy)
        "quat_multiply one row": lambda: quat_multiply(b[:1, None], np.stack([a, b], 1)),
        "rotate_inverse one row": lambda: rotate_inverse(r[:1, None], np.stack([v, w], 1)),
        "cross one vector": lambda: cross(v, np.array([0.3, -1.2, 2.0])),
    }
    for name, call in cases.items():
        plain, fast = _both(monkeypatch, call)
        assert plain.shape == fast.shape, name
        assert np.array_equal(_bits(plain), _bits(fast)), name


def test_kernels_agree_with_scipy(monkeypatch):
    rng = np.random.default_rng(3)
    a, b = _quats(rng, (50,)), _quats(rng, (50,))
    v = rng.standard_normal((50, 3))
    ra, rb = Rotation.from_quat(a), Rotation.from_quat(b)
    for on in (False, True):
        monkeypatch.setattr(kernels, "_on", on)
        assert np.allclose(quat_to_matrix(a), ra.as_matrix(), atol=1e-14)
        q = quat_multiply(a, b)
        assert np.allclose(q * np.sign(q[:, 3:]), (ra * rb).as_quat(canonical=True), atol=1e-14)
        assert np.allclose(rotate(quat_to_matrix(a), v), ra.apply(v), atol=1e-14)
        assert np.allclose(rotate_inverse(quat_to_matrix(a), v), ra.inv().apply(v), atol=1e-14)
        assert np.allclose(cross(v, v[::-1]), np.cross(v, v[::-1]), atol=1e-14)
    monkeypatch.setattr(kernels, "_on", False)


def test_a_single_quaternion_keeps_its_rank(monkeypatch):
    q = np.array([0.0, 0.0, np.sin(0.3), np.cos(0.3)])
    plain, fast = _both(monkeypatch, lambda: (quat_multiply(q, q), quat_to_matrix(q)))
    assert plain[0].shape == fast[0].shape == (4,)
    assert plain[1].shape == fast[1].shape == (3, 3)
    assert np.array_equal(plain[0], fast[0]) and np.array_equal(plain[1], fast[1])


def test_use_compiled_respects_the_environment(monkeypatch):
    monkeypatch.setattr(kernels, "_on", False)
    monkeypatch.setenv("NAVSENSE_KERNELS", "numpy")
    assert kernels.use_compiled() is False and not kernels.compiled()
    monkeypatch.delenv("NAVSENSE_KERNELS")
    assert kernels.use_compiled() is True and kernels.compiled()
    # every kernel's signature is loaded when compiled kernels are chosen, not at a first step
    assert all(k._jit is not None and k._jit.signatures for k in kernels._KERNELS)
    monkeypatch.setattr(kernels, "_on", False)


@pytest.mark.parametrize("coef", ["_ALPHA_A", "_BETA_A", "_ALPHA_D_A"])
def test_utm_clenshaw_compiled_equals_numpy(monkeypatch, coef):
    rng = np.random.default_rng(11)
    ar, ai = rng.uniform(-2.0, 2.0, 5000), rng.uniform(-3.0, 3.0, 5000)
    c = getattr(utm, coef)
    for rows in (slice(0, 1), slice(0, 2), slice(None)):
        plain, fast = _both(monkeypatch, lambda r=rows: utm._clenshaw(ar[r], ai[r], c))
        for p, f in zip(plain, fast):
            assert np.array_equal(_bits(p), _bits(f))
    # against the sum it evaluates: sum_j c_j sin(2 j zeta) = y_1 sin(2 zeta), zeta complex
    zeta = 0.3 + 0.2j
    a = 2.0 * np.cos(2.0 * zeta)
    for on in (False, True):
        monkeypatch.setattr(kernels, "_on", on)
        y1r, y1i, _, _ = utm._clenshaw(np.array([a.real]), np.array([a.imag]), c)
        direct = sum(cj * np.sin(2 * j * zeta) for j, cj in enumerate(c, start=1))
        assert abs((y1r[0] + 1j * y1i[0]) * np.sin(2.0 * zeta) - direct) < 1e-15
    monkeypatch.setattr(kernels, "_on", False)


def test_state_plane_inverse_compiled_equals_numpy(monkeypatch):
    rng = np.random.default_rng(5)
    # the zone's projection metres around the ACRE tile, and far out in its domain
    x = stateplane.FALSE_EASTING_M + rng.uniform(-2e5, 2e5, 4000)
    y = stateplane.FALSE_NORTHING_M + rng.uniform(-1e5, 3e5, 4000)
    for rows in (slice(0, 1), slice(0, 2), slice(None)):
        plain, fast = _both(monkeypatch, lambda r=rows: stateplane._inverse_rad(x[r], y[r]))
        for p, f in zip(plain, fast):
            assert np.array_equal(_bits(p), _bits(f))
    # a scalar stays a scalar; and the inverse inverts the forward (the series' own test)
    for on in (False, True):
        monkeypatch.setattr(kernels, "_on", on)
        phi, lam = stateplane._inverse_rad(float(x[0]), float(y[0]))
        assert np.ndim(phi) == 0 and np.ndim(lam) == 0
        back = stateplane._forward_m(np.array([phi]), np.array([lam]))
        assert abs(back[0][0] - x[0]) < 1e-6 and abs(back[1][0] - y[0]) < 1e-6
    monkeypatch.setattr(kernels, "_on", False)


def test_utm_forward_compiled_equals_numpy(monkeypatch):
    rng = np.random.default_rng(7)
    # latitudes from pole to pole, longitudes up to the domain's 35 deg from the meridian
    phi = np.radians(rng.uniform(-89.9, 89.9, 4000))
    lam = np.radians(rng.uniform(-35.0, 35.0, 4000))
    for rows in (slice(0, 1), slice(0, 2), slice(None)):
        for factors in (False, True):
            plain, fast = _both(
                monkeypatch, lambda r=rows, f=factors: utm._forward_rad(phi[r], lam[r], f)
            )
            assert len(plain) == len(fast) == (4 if factors else 2)
            for p, f in zip(plain, fast):
                assert p.shape == f.shape == phi[rows].shape
                assert np.array_equal(_bits(p), _bits(f))
    # a point as 0-d arrays keeps its rank, both ways; and the values are the projection's
    # (the central meridian: E = E0, N = k0 M(phi); the equator: N = 0)
    for on in (False, True):
        monkeypatch.setattr(kernels, "_on", on)
        e, n = utm._forward_rad(np.array(0.0), np.array(0.1), False)
        assert np.ndim(e) == np.ndim(n) == 0 and n == 0.0 and e > utm.FALSE_EASTING_M
        e, n, gam, k = utm._forward_rad(np.array([0.5]), np.array([0.0]))
        assert e[0] == utm.FALSE_EASTING_M and gam[0] == 0.0 and abs(k[0] - utm.K0) < 1e-3
    monkeypatch.setattr(kernels, "_on", False)


def test_acre_chain_steps_compiled_equal_numpy(monkeypatch):
    from navsense.config.typed.datum import default_datum
    from navsense.geo import acre_steps

    rng = np.random.default_rng(9)
    # the site's grid metres, out to the edges of EPSG:2968's domain and beyond (a NaN too)
    e, n, u = (
        rng.uniform(-3e5, 3e5, 4000),
        rng.uniform(-5e5, 5e5, 4000),
        rng.uniform(-50, 500, 4000),
    )
    e[7] = np.nan
    phi, lam = rng.uniform(0.6, 0.8, 4000), rng.uniform(-1.6, -1.4, 4000)
    datum = acre_steps.datum_row(default_datum())
    for rows in (slice(0, 1), slice(0, 2), slice(None)):
        k = e[rows].size

        def both(r=rows, k=k):
            grid, steps = np.empty((4, k)), np.empty((7, k))
            acre_steps.grid_rows(e[r], n[r], grid)
            acre_steps.datum_rows(e[r], n[r], u[r], phi[r], lam[r], datum, steps)
            return grid, steps

        plain, fast = _both(monkeypatch, both)
        for p, f in zip(plain, fast):
            assert np.array_equal(_bits(p), _bits(f))
    # the domain test: inside, outside by a metre, not finite
    grid = np.empty((4, 1))
    for east, ok in ((0.0, True), (stateplane.MAX_DX_M + 1.0, False), (np.nan, False)):
        x = (
            east
            + stateplane.FALSE_EASTING_M
            - acre_steps.ACRE_ORIGIN_FT[0] * stateplane.US_SURVEY_FOOT_M
        )
        acre_steps.grid_rows(np.array([x]), np.array([0.0]), grid)
        assert acre_steps.in_domain(grid) is ok


def test_helmert_and_ecef_compiled_equal_numpy(monkeypatch):
    from navsense.geo import ellipsoid, helmert

    rng = np.random.default_rng(13)
    # points around the Earth's surface, heights from -1 km to 100 km, epochs 2000-2040
    phi, lam = rng.uniform(-1.5, 1.5, 4000), rng.uniform(-3.1, 3.1, 4000)
    h, epoch = rng.uniform(-1e3, 1e5, 4000), rng.uniform(2000.0, 2040.0, 4000)
    params = helmert.ITRF2014_TO_NAD83_2011
    for rows in (slice(0, 1), slice(0, 2), slice(None)):

        def chain(r=rows):
            x, y, z = ellipsoid._geodetic_to_ecef(phi[r], lam[r], h[r], ellipsoid.GRS80)
            back = helmert._inverse(x, y, z, epoch[r], params)
            fore = helmert._forward(*back, 2020.5, params)  # one epoch for all the points
            return (x, y, z, *back, *fore, *ellipsoid._ecef_to_geodetic(*back, ellipsoid.WGS84))

        plain, fast = _both(monkeypatch, chain)
        for p, f in zip(plain, fast):
            assert np.shape(p) == np.shape(f) == phi[rows].shape
            assert np.array_equal(_bits(p), _bits(f))
    # a single point stays a scalar, both ways
    for on in (False, True):
        monkeypatch.setattr(kernels, "_on", on)
        x, y, z = ellipsoid._geodetic_to_ecef(
            np.float64(0.5), np.float64(0.1), np.float64(1.0), ellipsoid.WGS84
        )
        assert np.ndim(x) == 0 and np.ndim(helmert._inverse(x, y, z, 2026.0, params)[0]) == 0
    monkeypatch.setattr(kernels, "_on", False)


def test_imu_steps_compiled_equal_the_batch_as_numpy(monkeypatch):
    from navsense.config import load_config
    from navsense.config.typed.imu import ImuConfig
    from navsense.scenarios import load_scenario
    from navsense.sensors.imu import ImuModel

    scenario = load_scenario("acre-loop")
    truth = scenario.truth.slice(0, 600)
    cfg = ImuConfig.from_validated(load_config(vehicle="polaris"))
    monkeypatch.setattr(kernels, "_on", False)
    batch = ImuModel(cfg, scenario.vehicle).process(truth)
    monkeypatch.setattr(kernels, "_on", True)
    model = ImuModel(cfg, scenario.vehicle)
    steps = [model.process(truth.slice(k, k + 1)) for k in range(len(truth))]
    monkeypatch.setattr(kernels, "_on", False)
    assert batch["sample_time_s"].size == 598  # a row from the third step on
    for key, value in batch.items():
        assert np.array_equal(_bits(np.concatenate([s[key] for s in steps])), _bits(value)), key
    # the values themselves: at rest on level ground the accelerometer reads about +g up
    assert abs(np.median(batch["specific_force_flu_mps2"][:, 2]) - 9.8) < 0.5


def test_dop_compiled_equals_numpy(monkeypatch):
    from navsense.sensors.gnss import dop

    rng = np.random.default_rng(17)
    m, nsat = 300, 40
    el, az = rng.uniform(0.05, 1.5, (m, nsat)), rng.uniform(0.0, 2 * np.pi, (m, nsat))
    el[0] = 0.5  # one epoch with every satellite at one elevation: singular
    los = np.stack([np.cos(el) * np.sin(az), np.cos(el) * np.cos(az), np.sin(el)], axis=-1)
    used = rng.random((m, nsat)) < 0.3
    used[1] = False
    used[1, :3] = True  # three satellites: no solution
    for rows in (slice(0, 1), slice(0, 2), slice(None)):
        plain, fast = _both(
            monkeypatch, lambda r=rows: dop.dops(los[r], used[r], np.ones_like(used[r]))
        )
        for p_set, f_set in zip(plain, fast):
            for p, f in zip(p_set, f_set):
                assert np.array_equal(_bits(p), _bits(f))
    h, v, p = dop.dop(los[:3], used[:3])
    assert h[0] == v[0] == p[0] == dop.NO_DOP and h[1] == dop.NO_DOP  # singular, 3 satellites
    assert 0.5 < h[2] < 20.0 and abs(p[2] ** 2 - h[2] ** 2 - v[2] ** 2) < 1e-9


def test_constellation_lines_of_sight_compiled_equal_numpy(monkeypatch):
    from navsense.sky.constellation import SYSTEMS, Constellation

    sky = Constellation(7, {name: True for name in SYSTEMS}, 40.4, -86.9, 180.0)
    t = np.arange(0.0, 600.0, 0.7)  # more epochs than a block of los_enu, and a partial one
    for rows in (slice(0, 1), slice(0, 2), slice(None)):
        plain, fast = _both(monkeypatch, lambda r=rows: sky.los_enu(t[r]))
        assert np.array_equal(_bits(plain), _bits(fast))
    # unit vectors, the same as the Earth-fixed positions' directions from the site
    los = sky.los_enu(t[:3])
    assert np.allclose(np.linalg.norm(los, axis=-1), 1.0, atol=1e-15)
    rel = sky.ecef_m(t[:3]) - sky.site_ecef_m
    enu = np.einsum("ij,mnj->mni", sky.ecef_to_enu, rel)
    assert np.allclose(los, enu / np.linalg.norm(enu, axis=-1, keepdims=True), atol=1e-15)


def _sin_cos_rows(a, out):
    """A kernel of the libm kind: out = (sin a0 cos a1, cos a0 + sin a1) row by row."""
    out[:, 0] = np.sin(a[:, 0]) * np.cos(a[:, 1])
    out[:, 1] = np.cos(a[:, 0]) + np.sin(a[:, 1])


_trig = kernels.Kernel(_sin_cos_rows, (2, 2), libm=True)


def test_a_libm_kernel_gives_numpys_bits_either_way(monkeypatch):
    """A kernel calling sin and cos (libm=True) gives numpy's bits compiled or not; where the
    probe found numba's sine or cosine unlike numpy's it runs as numpy, not compiled."""
    rng = np.random.default_rng(7)
    a = np.concatenate([rng.uniform(-50.0, 50.0, (4000, 2)), [[0.0, -0.0], [1e-300, 3e9]]])

    def call():
        out = np.empty_like(a)
        _trig(a, out)
        return out

    plain, fast = _both(monkeypatch, call)
    assert np.array_equal(_bits(plain), _bits(fast))
    assert np.array_equal(plain[:, 1], np.cos(a[:, 0]) + np.sin(a[:, 1]))
    monkeypatch.setattr(kernels, "_libm", False)  # as on a build whose sines differ
    monkeypatch.setattr(kernels, "_on", True)
    monkeypatch.setattr(_trig, "_jit", None)  # decided at its first compiled call

    def not_to_be_called():
        raise AssertionError("a libm kernel compiled where the probe failed")

    monkeypatch.setattr(_trig, "_dispatcher", not_to_be_called)
    assert np.array_equal(_bits(call()), _bits(plain))
    assert np.array_equal(_bits(call()), _bits(plain))  # the decision kept
    _trig.warm()  # compiles nothing there either


def test_the_libm_probe_compares_sines_and_cosines_bit_for_bit(monkeypatch):
    """libm_agrees is numba's sin and cos against numpy's on the probe values; one value off by
    one unit in the last place makes it False."""
    monkeypatch.setattr(kernels, "_libm", None)
    assert kernels.libm_agrees() == (
        np.array_equal(np.sin(kernels._probe_values()), _numba_sin(kernels._probe_values()))
    )
    real_cos = np.cos

    def cos_one_ulp_off(x):
        y = real_cos(x)
        y[5] = np.nextafter(y[5], 2.0)
        return y

    monkeypatch.setattr(kernels, "_libm", None)
    monkeypatch.setattr(kernels.np, "cos", cos_one_ulp_off)
    try:
        assert kernels.libm_agrees() is False
    finally:
        monkeypatch.setattr(kernels.np, "cos", real_cos)
        monkeypatch.setattr(kernels, "_libm", None)


def _numba_sin(x):
    import math

    import numba

    return numba.njit(lambda v: np.array([math.sin(e) for e in v]))(x)


def test_under_a_file_size_limit_the_kernels_run_as_numpy(tmp_path):
    """use_compiled() under ``ulimit -f`` (numba's cache writes fail): it was a traceback
    ('OSError: [Errno 27] File too large' out of numba's caching); now the kernels run as numpy
    and give their results (a copy of the package without any cache, as a new install has)."""
    import os
    import resource
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    package = Path(kernels.__file__).parent
    shutil.copytree(package, tmp_path / "navsense", ignore=shutil.ignore_patterns("__pycache__"))
    code = (
        "import numpy as np, navsense.kernels as k\n"
        "from navsense.rotation import quat_multiply\n"
        "q = np.array([[0.0, 0.0, 0.6, 0.8]])\n"
        "print(k.use_compiled(), quat_multiply(q, q).tolist())\n"
    )

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (4_000, resource.RLIM_INFINITY))

    done = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
        preexec_fn=limit,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("[")[0].strip() == "False"
    assert np.allclose(eval(done.stdout.split(" ", 1)[1]), [[0.0, 0.0, 0.96, 0.28]])


def test_antenna_position_and_velocity_rows_equal_the_rotation_functions(monkeypatch):
    """The sky view's antenna position and the receiver's antenna velocity as fused kernels
    (sky.obstruction._antenna_rows, sensors.gnss.velocity._velocity_rows) equal
    navsense.rotation's functions composed, bit for bit, as numpy and compiled."""
    from navsense.sensors.gnss.velocity import antenna_velocity_enu
    from navsense.sky.obstruction import antenna_position_enu

    rng = np.random.default_rng(29)
    for n in (1, 3, 500):
        p, v, w, c = (rng.standard_normal((n, 3)) * 1e3 for _ in range(4))
        q = _quats(rng, (n,))
        arm = np.array([0.3, -1.2, 2.0])
        want_p = p + rotate(quat_to_matrix(q), arm)
        want_v = v + cross(w, want_p - c)
        for on in (False, True):
            monkeypatch.setattr(kernels, "_on", on)
            got_p = antenna_position_enu(p, q, arm)
            assert np.array_equal(_bits(got_p), _bits(want_p)), (n, on)
            assert np.array_equal(_bits(antenna_velocity_enu(v, w, got_p, c)), _bits(want_v))
        monkeypatch.setattr(kernels, "_on", False)
    # one antenna (no rows) keeps the functions' path
    assert antenna_position_enu(p[0], q[0], arm).shape == (3,)


def test_azimuth_compiled_equals_numpy_and_stays_in_the_circle(monkeypatch):
    """signal._degrees_in_circle (azimuth_deg after its arctan2): np.degrees' product and the
    wrap into [0, 360), compiled = numpy bit for bit, at the wrap's edges too."""
    from navsense.sensors.gnss.signal import azimuth_deg

    rng = np.random.default_rng(31)
    los = rng.standard_normal((200, 40, 3))
    los[0, :4, :2] = [[0.0, 1.0], [-0.0, 1.0], [-1e-300, 1.0], [-1e-300, -1.0]]
    plain, fast = _both(monkeypatch, lambda: azimuth_deg(los))
    assert np.array_equal(_bits(plain), _bits(fast))
    assert ((plain >= 0.0) & (plain < 360.0)).all()
    want = np.degrees(np.arctan2(los[..., 0], los[..., 1]))
    assert (np.abs((plain - want + 180.0) % 360.0 - 180.0) < 1e-12).all()  # the same direction


def test_cn0_compiled_equals_numpy_and_the_tracked_satellites_only(monkeypatch):
    """signal._cn0_rows (C/N0 of every satellite, NaN without a signal): compiled = numpy bit
    for bit, one epoch a call = the block, each status code's loss, and no value where the
    sky view gives no signal (below the mask, blocked)."""
    from navsense.sensors.gnss.signal import CN0_MIN_DBHZ, SignalModel
    from navsense.sky.constellation import SYSTEMS, Constellation

    sky = Constellation(7, {name: True for name in SYSTEMS}, 40.4, -86.9, 180.0)
    rng = np.random.default_rng(37)
    m = 50
    los = sky.los_enu(np.arange(m) * 0.1)
    status = rng.integers(0, 5, (m, sky.nsat)).astype(np.int8)
    blocks = {}
    for on in (False, True):
        monkeypatch.setattr(kernels, "_on", on)
        whole = SignalModel(sky, 11, True).satellites(los, status)["sat_cn0_dbhz"]
        model = SignalModel(sky, 11, True)
        ones = [model.satellites(los[i : i + 1], status[i : i + 1]) for i in range(m)]
        assert np.array_equal(
            _bits(np.concatenate([o["sat_cn0_dbhz"] for o in ones])), _bits(whole)
        )
        blocks[on] = whole
    monkeypatch.setattr(kernels, "_on", False)
    assert np.array_equal(_bits(blocks[False]), _bits(blocks[True]))
    cn0 = blocks[False]
    no_signal = (status == 0) | (status == 4)
    assert np.isnan(cn0[no_signal]).all() and (cn0[~no_signal] >= CN0_MIN_DBHZ).all()
    # clear above near above foliage on average (their losses 0, 3 and 10 dB)
    means = [np.mean(cn0[status == code]) for code in (1, 2, 3)]
    assert means[0] > means[1] > means[2]


def test_error_combination_and_velocity_error_compiled_equal_numpy(monkeypatch):
    """error_model._combine_rows and velocity._velocity_sigmas: compiled = numpy bit for bit,
    and the values as written (e = sum of sigma x state, sigma the root of the squares;
    v = v_a + sigma g with sigma = (H s / sqrt 2, H s / sqrt 2, V s))."""
    from navsense.sensors.gnss.error_model import combine
    from navsense.sensors.gnss.velocity import RANGE_RATE_SIGMA_MPS, VelocityModel

    rng = np.random.default_rng(41)
    m = 300
    sig = {k: rng.uniform(0.0, 3.0, (m, 3)) for k in ("sigma_gm_m", "sigma_white_m", "sigma_mp_m")}
    u, g, z = (rng.standard_normal((m, 3)) for _ in range(3))
    hdop, vdop, v_a = rng.uniform(0.5, 5.0, m), rng.uniform(0.5, 8.0, m), rng.normal(0, 5, (m, 3))
    plain, fast = _both(monkeypatch, lambda: combine(sig, u, g, z))
    for p, f in zip(plain, fast):
        assert np.array_equal(_bits(p), _bits(f))
    gm, w, mp = sig["sigma_gm_m"], sig["sigma_white_m"], sig["sigma_mp_m"]
    assert np.allclose(plain[0], gm * u + w * g + mp * z, rtol=1e-15, atol=0)
    assert np.allclose(plain[1], np.sqrt(gm**2 + w**2 + mp**2), rtol=1e-15, atol=0)
    runs = _both(monkeypatch, lambda: VelocityModel(5, True, None).velocities(v_a, hdop, vdop))
    for key in runs[0]:
        assert np.array_equal(_bits(runs[0][key]), _bits(runs[1][key])), key
    s = runs[0]["sigma_velocity_enu_mps"]
    assert np.allclose(s[:, 0], hdop * RANGE_RATE_SIGMA_MPS / np.sqrt(2.0), rtol=1e-15)
    assert np.array_equal(s[:, 0], s[:, 1]) and np.allclose(s[:, 2], vdop * RANGE_RATE_SIGMA_MPS)


def test_a_kernels_runner_is_what_a_call_runs_now(monkeypatch):
    """Kernel.runner(): the function itself as numpy, numba's dispatcher compiled (a libm
    kernel's probe decides as for a call), giving a call's bits; it keeps what it was given."""
    from navsense.geo import fix_chain

    w = np.random.default_rng(3).uniform(0.1, 0.7, (fix_chain._ROWS, 3))
    k = fix_chain.easting_rotation_points
    monkeypatch.setattr(kernels, "_on", False)
    plain = k.runner()
    assert plain is k.fn
    want = w.copy()
    k(want)
    monkeypatch.setattr(kernels, "_on", True)
    fast = k.runner()
    assert fast is not k.fn and fast is k._jit
    got, kept = w.copy(), w.copy()
    fast(got)
    plain(kept)  # still the function: a runner does not follow a later change
    assert np.array_equal(_bits(got), _bits(want)) and np.array_equal(_bits(kept), _bits(want))
    monkeypatch.setattr(kernels, "_on", False)


def test_every_module_imports_with_its_kernels_compiled_at_once():
    """A kernel made while kernels are on (NAVSENSE_KERNELS=numba, or a module first imported
    after use_compiled(): navsense live's GNSS) compiles at its decoration, so a global it reads
    must be defined above it. sensors.gnss.signal's _cn0_rows read _RAD_TO_DEG, defined below
    it: 'navsense live' ended in 'internal error: TypingError ... NameError: _RAD_TO_DEG'. Every
    module of the package is imported in a fresh interpreter with the kernels on."""
    import os
    import subprocess
    import sys

    code = (
        "import importlib, pkgutil, navsense\n"
        "for m in pkgutil.walk_packages(navsense.__path__, 'navsense.'):\n"
        "    if m.name.endswith('__main__'):\n"
        "        continue\n"
        "    try:\n"
        "        importlib.import_module(m.name)\n"
        "    except ModuleNotFoundError as e:\n"
        "        if not (e.name or '').startswith('navsense'):\n"
        "            continue  # an optional extra not installed\n"
        "        raise\n"
    )
    env = dict(os.environ, NAVSENSE_KERNELS="numba")
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
