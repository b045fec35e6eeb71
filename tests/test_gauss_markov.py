"""The Gauss-Markov recursion x_k = a_k x_(k-1) + d_k: the loop and the anchored segments."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from navsense.gauss_markov import A_MIN, SEGMENT, AnchoredScan, GaussMarkovStates, scan


def _inputs(seed: int, m: int, tau_s: float, zeros: int = 0):
    rng = np.random.default_rng(seed)
    dt = rng.choice([1 / 120, 2 / 120], m)  # 100 Hz epochs on 120 Hz physics steps
    a = np.exp(-dt / tau_s)
    a[rng.integers(0, m, zeros)] = 0.0
    return a, rng.standard_normal((m, 6))


def test_scan_is_the_recursion_as_written():
    a, d = np.array([0.0, 0.5, 0.25]), np.array([[1.0], [2.0], [4.0]])
    assert scan(a, d, [7.0])[:, 0].tolist() == [1.0, 2.5, 4.625]


@pytest.mark.parametrize("tau_s", [30.0, 1.0, 0.1, 0.001])
def test_anchored_segments_agree_with_the_loop(tau_s):
    a, d = _inputs(1, 5 * SEGMENT + 17, tau_s, zeros=3)
    x = AnchoredScan(6).run(a, d)
    reference = scan(a, d, np.zeros(6))
    # a >= A_MIN keeps the running product above 0.95^127: a few ulp of x
    np.testing.assert_allclose(x, reference, rtol=1e-12, atol=1e-13)


def test_an_epoch_with_a_zero_restarts_the_state():
    a, d = _inputs(2, 300, 30.0)
    a[150] = 0.0
    x = AnchoredScan(6).run(a, d)
    assert x[150].tolist() == d[150].tolist()
    assert x[0].tolist() == (a[0] * 0.0 + d[0]).tolist()


def test_small_a_makes_every_epoch_an_anchor_computed_as_written():
    a, d = _inputs(3, 50, 0.001)
    assert (a < A_MIN).all()
    assert np.array_equal(AnchoredScan(6).run(a, d), scan(a, d, np.zeros(6)))


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    m=st.integers(1, 3 * SEGMENT + 5),
    cuts=st.lists(st.integers(1, 3 * SEGMENT + 4), max_size=8),
    tau_s=st.sampled_from([30.0, 0.05, 0.2]),
    zeros=st.integers(0, 3),
)
def test_whole_chunks_and_single_epochs_give_the_same_bits(seed, m, cuts, tau_s, zeros):
    a, d = _inputs(seed, m, tau_s, zeros)
    whole = AnchoredScan(6).run(a, d)
    bounds = [0, *sorted({c for c in cuts if c < m}), m]
    chunked = AnchoredScan(6)
    parts = [chunked.run(a[i:j], d[i:j]) for i, j in zip(bounds[:-1], bounds[1:])]
    assert np.array_equal(np.concatenate(parts), whole)
    stepped = AnchoredScan(6)
    steps = [stepped.run(a[i : i + 1], d[i : i + 1]) for i in range(m)]
    assert np.array_equal(np.concatenate(steps), whole)


@pytest.mark.parametrize("tau_s, compiled", [(30.0, False), (0.05, False), (30.0, True)])
def test_unit_states_run_one_epoch_at_a_time_gives_the_bits_of_a_block(
    monkeypatch, tau_s, compiled
):
    """GaussMarkovStates.run of one epoch (the streaming receiver's and INS's call, one kernel:
    gauss_markov._unit_one) = the block, bit for bit, as numpy and compiled; a block after
    single epochs carries their state."""
    import navsense.kernels as kernels

    if compiled:
        pytest.importorskip("numba")
    a, g = _inputs(11, 2 * SEGMENT + 7, tau_s, 2)
    a[40] = 0.0  # a restart inside a segment
    whole = GaussMarkovStates(6).run(a, g)
    monkeypatch.setattr(kernels, "_on", compiled)
    stepped = GaussMarkovStates(6)
    steps = [stepped.run(a[i : i + 1], g[i : i + 1]) for i in range(a.size - 30)]
    steps.append(stepped.run(a[-30:], g[-30:]))  # a block after the single epochs
    monkeypatch.setattr(kernels, "_on", False)
    assert all(s.shape == (1, 6) and s.dtype == np.float64 for s in steps[:-1])
    assert np.concatenate(steps).tobytes() == whole.tobytes()


def _segment_by_segment(scan_: AnchoredScan, a, drive):
    """AnchoredScan.run before whole segments ran side by side: each segment in turn, its
    anchor as written, its epochs by one accumulation of P and one of S."""
    m = a.shape[0]
    x = np.empty((m, scan_.n))
    k = scan_.epochs + np.arange(m)
    anchors = np.flatnonzero((k % SEGMENT == 0) | ~(a >= A_MIN)).tolist()
    anchor, product, total = scan_.anchor, scan_.product, scan_.sum
    i = 0
    for j in anchors + [m]:
        if j > i:
            p = np.multiply.accumulate(np.concatenate([product, a[i:j]]))[1:]
            s = np.add.accumulate(np.concatenate([total, drive[i:j] / p[:, None]]))[1:]
            x[i:j] = p[:, None] * (anchor + s)
            product, total = p[-1:], s[-1:]
        if j < m:
            x[j] = a[j] * (x[j - 1] if j else scan_.last) + drive[j]
            anchor, product, total = x[j], np.ones(1), np.zeros((1, scan_.n))
        i = j + 1
    scan_.epochs += m
    scan_.anchor, scan_.product, scan_.sum, scan_.last = anchor, product, total, x[-1]
    return x


@pytest.mark.parametrize("seed", range(12))
def test_whole_segments_side_by_side_give_the_bits_of_one_segment_at_a_time(seed):
    """Blocks of many whole segments (AnchoredScan._whole_segments), with restarts (a = 0)
    and gaps (a < A_MIN) among them, cut anywhere: x and the carried state, bit for bit."""
    rng = np.random.default_rng(seed)
    m = int(rng.integers(3 * SEGMENT, 40 * SEGMENT))
    a, d = _inputs(seed, m, float(rng.choice([30.0, 2.0])), zeros=int(rng.integers(0, 3)))
    a[rng.integers(0, m, int(rng.integers(0, 3)))] = 0.5  # a gap: an anchor off the period
    d[rng.integers(0, m, 5)] = -0.0
    bounds = [0, *sorted(set(rng.integers(1, m, int(rng.integers(0, 4))).tolist())), m]
    new, old = AnchoredScan(6), AnchoredScan(6)
    for i, j in zip(bounds[:-1], bounds[1:]):
        assert (
            new.run(a[i:j], d[i:j]).tobytes() == _segment_by_segment(old, a[i:j], d[i:j]).tobytes()
        )
        for name in ("epochs", "anchor", "product", "sum", "last"):
            got, want = np.asarray(getattr(new, name)), np.asarray(getattr(old, name))
            assert got.shape == want.shape and got.tobytes() == want.tobytes(), name
