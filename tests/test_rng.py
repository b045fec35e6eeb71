"""Pcg32 against the PCG reference implementation's published demo output, and block = scalar."""

from pathlib import Path

import numpy as np
import pytest

from navsense.rng import Pcg32

REFERENCE = Path(__file__).parent / "reference" / "pcg32_demo.txt"


def _reference() -> dict:
    out = {}
    for line in REFERENCE.read_text().splitlines():
        if line and not line.startswith("#"):
            key, value = line.split(":", 1)
            out[key] = value.split()
    return out


def _bounded(rng: Pcg32, bound: int) -> int:
    """pcg32_boundedrand_r of the reference implementation."""
    threshold = (-bound) % (1 << 32) % bound
    while True:
        r = rng.next_u32()
        if r >= threshold:
            return r % bound


def test_pcg32_reproduces_the_reference_demo():
    ref = _reference()
    rng = Pcg32(42, 54)
    assert [f"0x{rng.next_u32():08x}" for _ in range(6)] == ref["round1_32bit"]
    assert "".join("H" if _bounded(rng, 2) else "T" for _ in range(65)) == ref["round1_coins"][0]
    assert [str(_bounded(rng, 6) + 1) for _ in range(33)] == ref["round1_rolls"]
    cards = list(range(52))
    for i in range(52, 1, -1):
        chosen = _bounded(rng, i)
        cards[chosen], cards[i - 1] = cards[i - 1], cards[chosen]
    assert [("A23456789TJQK"[c // 4] + "hcds"[c % 4]) for c in cards] == ref["round1_cards"]
    assert [f"0x{x:08x}" for x in rng.u32(6)] == ref["round2_32bit"]


def test_block_draws_continue_the_scalar_stream():
    a, b = Pcg32(42, 54), Pcg32(42, 54)
    assert [f"0x{x:08x}" for x in a.u32(6)] == [f"0x{b.next_u32():08x}" for _ in range(6)]


@pytest.mark.parametrize("sizes", [(1, 3, 4095, 4097, 1811), (7, 1, 1, 9000), (10007,)])
def test_u32_blocks_equal_one_block(sizes):
    whole = Pcg32(7, 3).u32(sum(sizes))
    rng = Pcg32(7, 3)
    parts = np.concatenate([rng.u32(k) for k in sizes])
    np.testing.assert_array_equal(parts, whole)
    single = Pcg32(7, 3)
    np.testing.assert_array_equal([single.next_u32() for _ in range(300)], whole[:300])


def test_gaussians_and_uniforms_equal_scalar_calls():
    a, b = Pcg32(1234, 6), Pcg32(1234, 6)
    blocks = np.concatenate([a.gaussians(3), a.uniforms(1), a.gaussians(2001), a.uniforms(5)])
    scalars = (
        [b.gaussian() for _ in range(3)]
        + [b.uniform()]
        + [b.gaussian() for _ in range(2001)]
        + [b.uniform() for _ in range(5)]
    )
    np.testing.assert_array_equal(blocks, np.array(scalars))


def test_uniform_and_box_muller_formulas():
    """U = (out + 0.5) / 2^32 and g = sqrt(-2 ln U1) cos(2 pi U2), two uniforms in order."""
    raw = Pcg32(99, 1).u32(4).astype(np.float64)
    u = (raw + 0.5) / 2.0**32
    g = Pcg32(99, 1).gaussians(2)
    np.testing.assert_allclose(
        g, np.sqrt(-2 * np.log(u[[0, 2]])) * np.cos(2 * np.pi * u[[1, 3]]), rtol=0, atol=1e-15
    )
    assert u.min() > 0.0 and u.max() < 1.0


def test_gaussian_statistics():
    g = Pcg32(5, 11).gaussians(200_000)
    n = g.size
    assert abs(g.mean()) < 5 / np.sqrt(n)
    assert abs(g.std() - 1.0) < 5 * np.sqrt(0.5 / n)


def test_streams_differ_by_sequence_and_seed():
    base = Pcg32(42, 1).u32(8)
    assert not np.array_equal(base, Pcg32(42, 2).u32(8))
    assert not np.array_equal(base, Pcg32(43, 1).u32(8))


def test_negative_count_is_rejected():
    with pytest.raises(ValueError):
        Pcg32(1, 1).u32(-1)


def _lcg_outputs(seed: int, seq: int, n: int) -> tuple[list[int], int]:
    """pcg32_srandom_r + pcg32_random_r written out on Python ints: n outputs and the state after."""
    mask, mult = (1 << 64) - 1, 6364136223846793005
    inc = ((seq << 1) | 1) & mask
    state = (0 * mult + inc) & mask
    state = ((state + seed) * mult + inc) & mask
    out = []
    for _ in range(n):
        old = state
        state = (old * mult + inc) & mask
        x = (((old >> 18) ^ old) >> 27) & 0xFFFFFFFF
        r = old >> 59
        out.append(((x >> r) | (x << ((-r) & 31))) & 0xFFFFFFFF)
    return out, state


def test_small_draws_read_ahead_without_changing_the_stream_or_its_state():
    rng = Pcg32(42, 54)
    sizes = [1, 6, 18, 36, 255, 3, 256, 1, 1500, 7, 1024, 2]
    drawn = []
    for n in sizes:
        drawn += rng.u32(n).tolist()
        want, state = _lcg_outputs(42, 54, len(drawn))
        assert drawn == want
        assert rng.state == state  # the state after the outputs taken, not after the read-ahead


@pytest.mark.parametrize(
    "kinds",
    [["g", "u", "u32"], ["g", "v", "u", "u32"], ["v", "v", "v", "g", "u"], ["v18"]],
)
def test_small_gaussian_draws_from_the_read_ahead_equal_the_stream(kinds):
    """Gaussians served from the read-ahead (computed a block at a time; gaussians_view: "v",
    views of the whole rest of the block's, "v18" the streaming INS's 18 an epoch) are the
    stream's values, whatever draws of odd numbers of outputs come between, and a view given
    out keeps its values after later draws."""
    plan = np.random.default_rng(8)
    ops = [(plan.choice(kinds), int(plan.integers(1, 40))) for _ in range(400)]
    ops = [("v", 18) if op == "v18" else (op, k) for op, k in ops]
    kept = []
    total = sum(2 * k if op in ("g", "v") else k for op, k in ops)
    outputs, _ = _lcg_outputs(9, 4, total)
    u = (np.array(outputs, dtype=np.float64) + 0.5) / 2.0**32
    rng = Pcg32(9, 4)
    pos = 0
    for op, k in ops:
        if op in ("g", "v"):
            got = rng.gaussians(k) if op == "g" else rng.gaussians_view(k)
            pairs = u[pos : pos + 2 * k]
            want = np.sqrt(-2.0 * np.log(pairs[0::2])) * np.cos(2.0 * np.pi * pairs[1::2])
            pos += 2 * k
            kept.append((got, want))
        else:
            got = rng.uniforms(k) if op == "u" else rng.u32(k)
            want = (
                u[pos : pos + k] if op == "u" else np.array(outputs[pos : pos + k], dtype=np.uint32)
            )
            pos += k
        assert got.tobytes() == want.tobytes(), (op, k, pos)
    assert rng.state == _lcg_outputs(9, 4, total)[1]
    assert all(got.tobytes() == want.tobytes() for got, want in kept)


@pytest.mark.parametrize("n", [300, 1023, 16384, 16385, 40_001])
def test_draws_in_blocks_give_the_bits_of_one_box_muller(n):
    """gaussians(n) (Box-Muller block by block from the outputs) equals the Box-Muller of the
    draw's uniforms at once, operation for operation, and the stream continues the same."""
    a, b = Pcg32(11, 3), Pcg32(11, 3)
    a.gaussians(5)
    b.gaussians(5)
    got = a.gaussians(n)
    u = b.uniforms(2 * n)
    expected = np.sqrt(np.log(u[0::2]) * -2.0) * np.cos(u[1::2] * (2.0 * np.pi))
    assert got.tobytes() == expected.tobytes()
    assert a.gaussians(9).tobytes() == b.gaussians(9).tobytes()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_gaussians_where_are_the_streams_values_where_wanted(seed):
    """gaussians_where(mask) gives gaussians(n)'s bits where the mask is True, and leaves the
    stream where gaussians(n) does: draws of every size (read-ahead, across
    the jump-ahead tables), masks from none to all, between other draws."""
    plan = np.random.default_rng(seed)
    a, b = Pcg32(21 + seed, 16), Pcg32(21 + seed, 16)
    for n in [5, 80, 127, 600, 3, 16384, 9000, 1, 40_001, 2]:
        k = int(plan.integers(0, 300))
        assert a.u32(k).tobytes() == b.u32(k).tobytes()  # leaves part of a read-ahead block
        mask = plan.random(n) < plan.choice([0.0, 0.3, 1.0])
        got = a.gaussians_where(mask)
        want = b.gaussians(n)[mask]
        assert got.tobytes() == want.tobytes(), n
        assert a.state == b.state


def test_gaussians_where_of_no_values_moves_nothing():
    """An empty mask (a GNSS chunk without an epoch) draws nothing: the rest of a read-ahead
    block stays for the next draw (it was dropped, and the next values came from further on)."""
    a, b = Pcg32(5, 16), Pcg32(5, 16)
    mask = np.arange(78) % 3 == 0
    a.gaussians_where(mask)  # a small draw: a read-ahead block, partly used
    b.gaussians_where(mask)
    assert a.gaussians_where(np.zeros((0, 78), dtype=bool)).shape == (0,)
    assert a.state == b.state
    assert a.gaussians_where(mask).tobytes() == b.gaussians_where(mask).tobytes()
    c, d = Pcg32(6, 16), Pcg32(6, 16)
    c.u32(5)
    d.u32(5)
    c.gaussians_where(np.zeros(0, dtype=bool))
    assert c.gaussians(3).tobytes() == d.gaussians(3).tobytes()
