"""PCG32 random streams (O'Neill 2014), exactly as the specification's "Seeds and Determinism".

Each noise source of navsense owns one :class:`Pcg32` stream with the seed, sequence number and
number of draws per epoch of the specification. Nothing touches numpy's global random state.

Generator (PCG-XSH-RR 64/32, the reference implementation's ``pcg32_random_r``)::

    s <- 6364136223846793005 s + c   (mod 2^64)
    x = ((s_old >> 18) xor s_old) >> 27   (low 32 bits),   r = s_old >> 59
    output = rotr32(x, r)

Seeding (``pcg32_srandom_r``): s = 0, c = 2 q + 1, one step, s += seed, one step; q is the
stream's sequence number.

Derived values::

    U = (output + 0.5) / 2^32                      one output, never 0 or 1
    g = sqrt(-2 ln U1) cos(2 pi U2)                two uniforms in order (Box-Muller, cosine branch)

Block draws (:meth:`Pcg32.u32`, :meth:`Pcg32.uniforms`, :meth:`Pcg32.gaussians`) continue the very
same stream as the scalar calls. They jump ahead instead of looping: after k steps the LCG state
is A_k s + C_k with A_k = a^k and C_k = c (a^k - 1) / (a - 1) (mod 2^64), and the tables of A_k and
C_k are built by doubling with wrapping uint64 arithmetic. Scalar calls use the same numpy
expressions as block calls, so a value does not depend on how the draws were grouped.
"""

from __future__ import annotations

import numpy as np

__all__ = ["Pcg32", "PCG32_MULTIPLIER"]

PCG32_MULTIPLIER = 6364136223846793005  # O'Neill (2014), pcg32 default multiplier
_MASK64 = (1 << 64) - 1
_TABLE_SIZE = 16384  # steps per jump-ahead table; longer blocks are drawn table by table
READ_AHEAD = 1024  # outputs drawn at once to serve draws of fewer than READ_AHEAD / 4
_GAUSS_AHEAD = 256  # outputs of the read-ahead block turned into Gaussians at once
_VIEW_AHEAD = 4096  # outputs drawn at once for gaussians_view (a block stays within _TABLE_SIZE)
_VIEW_GAUSS = 2048  # outputs of the block turned into Gaussians at once by gaussians_view
_TWO_POW_32 = 4294967296.0
_INV_TWO_POW_32 = 1.0 / _TWO_POW_32
_TWO_PI = 2.0 * np.pi

_A_TABLE: np.ndarray | None = None  # a^k mod 2^64, k = 0 .. _TABLE_SIZE (shared by all streams)


def _multiplier_table() -> np.ndarray:
    """a^k mod 2^64 for k = 0 .. _TABLE_SIZE, built by doubling."""
    global _A_TABLE
    if _A_TABLE is None:
        a = np.ones(1, dtype=np.uint64)
        step = np.uint64(PCG32_MULTIPLIER)
        while a.size < _TABLE_SIZE + 1:
            # A_{m + j} = A_m A_j
            a = np.concatenate([a, a * a[-1] * step])
        _A_TABLE = a[: _TABLE_SIZE + 1]
    return _A_TABLE


def _increment_table(inc: int) -> np.ndarray:
    """C_k = inc (1 + a + ... + a^(k-1)) mod 2^64 for k = 0 .. _TABLE_SIZE."""
    a_tab = _multiplier_table()
    c = np.zeros(1, dtype=np.uint64)
    with np.errstate(over="ignore"):
        while c.size < _TABLE_SIZE + 1:
            m = c.size
            # s_{m + j} = A_j s_m + C_j, so C_{m + j} = A_j C_m + C_j, with C_m = C_{m-1} a + inc
            c_m = np.uint64((int(c[-1]) * PCG32_MULTIPLIER + inc) & _MASK64)
            c = np.concatenate([c, a_tab[:m] * c_m + c[:m]])
    return c[: _TABLE_SIZE + 1]


def _xsh_rr(old: np.ndarray) -> np.ndarray:
    """PCG-XSH-RR output function of uint64 states, as uint32 values.

    x = ((old >> 18) xor old) >> 27 truncated to 32 bits, rotated right by r = old >> 59; the
    rotation runs on uint32 (left shift by (32 - r) mod 32, so r = 0 rotates by nothing).
    """
    x = old >> np.uint64(18)
    x ^= old
    x >>= np.uint64(27)
    x32 = x.astype(np.uint32)  # the low 32 bits
    r = (old >> np.uint64(59)).astype(np.uint32)
    left = np.uint32(32) - r
    left &= np.uint32(31)
    out = x32 >> r
    x32 <<= left
    out |= x32
    return out


_BM_BLOCK = 16384  # pairs a block of a Box-Muller draw (its temporaries stay in cache)


def _box_muller(out32: np.ndarray) -> np.ndarray:
    """g = sqrt(-2 ln U1) cos(2 pi U2) of the outputs ``out32`` (uint32, pairs in order), with
    U = (output + 0.5) / 2^32, block by block: the same elementwise operations on each value
    whatever the draw's length, without the draw's float64 uniforms and their strided copies
    (180 000 Gaussians: 8.0 -> 5.6 ms)."""
    n = out32.shape[0] // 2
    pairs = out32.reshape(n, 2)
    result = np.empty(n)
    block = min(n, _BM_BLOCK)
    radius, angle = np.empty(block), np.empty(block)
    for b0 in range(0, n, block or 1):
        b1 = min(n, b0 + block)
        r, a = radius[: b1 - b0], angle[: b1 - b0]
        np.copyto(r, pairs[b0:b1, 0], casting="safe")  # U1
        r += 0.5
        r *= _INV_TWO_POW_32
        np.log(r, out=r)
        r *= -2.0
        np.sqrt(r, out=r)
        np.copyto(a, pairs[b0:b1, 1], casting="safe")  # U2
        a += 0.5
        a *= _INV_TWO_POW_32
        a *= _TWO_PI
        np.cos(a, out=a)
        np.multiply(r, a, out=result[b0:b1])
    return result


class Pcg32:
    """One PCG32 stream: ``Pcg32(seed, seq)`` seeds as ``pcg32_srandom_r(seed, seq)``.

    ``next_u32()``, ``uniform()`` and ``gaussian()`` draw one value; ``u32(n)``, ``uniforms(n)``
    and ``gaussians(n)`` draw n values of the same stream as numpy arrays (shape (n,)).
    """

    __slots__ = (
        "_state",
        "_inc",
        "_c_table",
        "_ahead",
        "_ahead_pos",
        "_ahead_start",
        "_gauss",
        "_gauss_pos",
    )

    def __init__(self, seed: int, seq: int) -> None:
        seed = int(seed) & _MASK64
        self._inc = ((int(seq) << 1) | 1) & _MASK64
        self._state = 0
        self._step()
        self._state = (self._state + seed) & _MASK64
        self._step()
        self._c_table: np.ndarray | None = None
        # outputs drawn ahead for small draws (the streaming API's one epoch at a time):
        # _state is the state after them, _ahead_start the state before the first of them
        self._ahead = np.empty(0, dtype=np.uint32)
        self._ahead_pos = 0
        self._ahead_start = self._state
        # the Gaussians of the read-ahead block's outputs from _gauss_pos on, in pairs (None: not
        # computed for this block)
        self._gauss: np.ndarray | None = None
        self._gauss_pos = 0

    def _step(self) -> None:
        self._state = (self._state * PCG32_MULTIPLIER + self._inc) & _MASK64

    @property
    def state(self) -> int:
        """The 64-bit LCG state after the outputs drawn so far (for tests and checkpoints)."""
        if self._ahead_pos == len(self._ahead):
            return self._state
        k = self._ahead_pos  # outputs taken from the read-ahead block
        return (
            int(_multiplier_table()[k]) * self._ahead_start + int(self._increments()[k])
        ) & _MASK64

    def _increments(self) -> np.ndarray:
        if self._c_table is None:
            self._c_table = _increment_table(self._inc)
        return self._c_table

    # ----------------------------------------------------------------------------- block draws
    def u32(self, n: int) -> np.ndarray:
        """The next n 32-bit outputs, as a uint32 array of shape (n,).

        Small draws are served from a block of READ_AHEAD outputs drawn at once (the same
        outputs, in the same order: only the cost of many small calls changes).
        """
        n = int(n)
        if n < 0:
            raise ValueError(f"Pcg32.u32: n = {n} must be >= 0")
        ahead = len(self._ahead) - self._ahead_pos
        if n <= ahead:
            self._ahead_pos += n
            return self._ahead[self._ahead_pos - n : self._ahead_pos].copy()
        out = np.empty(n, dtype=np.uint32)
        out[:ahead] = self._ahead[self._ahead_pos :]
        self._ahead_pos = len(self._ahead)
        rest = n - ahead
        if rest < READ_AHEAD // 4:
            self._ahead_start = self._state
            self._ahead = self._draw(READ_AHEAD)
            self._gauss = None
            self._ahead_pos = rest
            out[ahead:] = self._ahead[:rest]
        else:
            out[ahead:] = self._draw(rest)
        return out

    def _draw(self, n: int) -> np.ndarray:
        """n outputs from the LCG state, by jump-ahead tables; the state moves past them."""
        out = np.empty(n, dtype=np.uint32)
        a_tab = _multiplier_table()
        c_tab = self._increments()
        done = 0
        with np.errstate(over="ignore"):
            while done < n:
                k = min(_TABLE_SIZE, n - done)
                s = np.uint64(self._state)
                old = a_tab[:k] * s
                old += c_tab[:k]
                out[done : done + k] = _xsh_rr(old)
                self._state = int(a_tab[k] * s + c_tab[k])
                done += k
        return out

    def uniforms(self, n: int) -> np.ndarray:
        """The next n uniforms U = (output + 0.5) / 2^32, float64 array of shape (n,)."""
        u = self.u32(n).astype(np.float64)
        u += 0.5
        u *= _INV_TWO_POW_32  # = / 2^32 exactly (a power of two)
        return u

    def gaussians(self, n: int) -> np.ndarray:
        """The next n standard normal values (Box-Muller cosine branch, 2 uniforms each)."""
        n = int(n)
        if 0 < 2 * n <= len(self._ahead) - self._ahead_pos:
            return self._gaussians_ahead(n)
        return _box_muller(self.u32(2 * n))

    def gaussians_where(self, where: np.ndarray) -> np.ndarray:
        """Of the next n = where.size standard normal values, those where ``where`` is True, in
        order (an array of where.sum() values).

        The stream moves past all n, and each value is the one :meth:`gaussians` (n) gives at
        its place (the same two outputs, the same elementwise Box-Muller); only the outputs and
        the Box-Muller of the values not wanted are left out (the GNSS signal model wants the
        tracked satellites' of all, about a third).
        """
        want = np.asarray(where, dtype=bool).reshape(-1)
        n = want.size
        if n == 0:  # no draw: the stream and its read-ahead block stay as they are
            return np.zeros(0)
        ahead = len(self._ahead) - self._ahead_pos
        if 0 < 2 * n <= ahead:  # small: from the read-ahead block
            return self._gaussians_ahead(n)[want]
        if 0 < 2 * n < READ_AHEAD // 4:  # small: the rest of the block and a new one (u32)
            return self.gaussians(n)[want]
        first = 2 * np.flatnonzero(want)  # the first output of each wanted value
        index = np.empty(2 * first.size, dtype=np.int64)
        index[0::2] = first
        index[1::2] = first + 1
        outputs = np.empty(index.size, dtype=np.uint32)
        held = int(np.searchsorted(index, ahead))  # outputs still in the read-ahead block
        outputs[:held] = self._ahead[self._ahead_pos + index[:held]]
        self._ahead_pos = len(self._ahead)
        outputs[held:] = self._draw_at(2 * n - ahead, index[held:] - ahead)
        return _box_muller(outputs)

    def _draw_at(self, n: int, index: np.ndarray) -> np.ndarray:
        """The outputs at the places ``index`` (ascending, in [0, n)) of the next n outputs, by
        the jump-ahead tables (:meth:`_draw`'s states at those places only); the state moves
        past all n."""
        out = np.empty(index.size, dtype=np.uint32)
        a_tab = _multiplier_table()
        c_tab = self._increments()
        done = lo = 0
        with np.errstate(over="ignore"):
            while done < n:
                k = min(_TABLE_SIZE, n - done)
                hi = int(np.searchsorted(index, done + k))
                at = index[lo:hi] - done
                s = np.uint64(self._state)
                old = a_tab.take(at) * s
                old += c_tab.take(at)
                out[lo:hi] = _xsh_rr(old)
                self._state = int(a_tab[k] * s + c_tab[k])
                done += k
                lo = hi
        return out

    def _gaussians_ahead(self, n: int) -> np.ndarray:
        """n Gaussians of the read-ahead block's next 2 n outputs.

        The Gaussians of up to _GAUSS_AHEAD outputs are computed at once (one Box-Muller over
        their pairs: the same elementwise operations as a small draw, so the same values) and
        served by later calls that continue the same pairing.
        """
        pos = self._ahead_pos
        start = self._gauss_pos
        i = (pos - start) // 2
        if self._gauss is None or pos < start or (pos - start) % 2 or i + n > len(self._gauss):
            stop = min(len(self._ahead), pos + max(2 * n, _GAUSS_AHEAD))
            self._gauss = _box_muller(self._ahead[pos : stop - (stop - pos) % 2])
            self._gauss_pos = pos
            i = 0
        self._ahead_pos = pos + 2 * n
        return self._gauss[i : i + n].copy()

    def gaussians_view(self, n: int) -> np.ndarray:
        """The next n standard normal values, the very values of :meth:`gaussians` (n), as a
        view of the stream's own block of Gaussians (no copy): the caller reads them and keeps
        no reference it writes into (the streaming INS's 18 an epoch). Where the read-ahead
        block runs out, its rest and the next _VIEW_AHEAD outputs become the block (one
        jump-ahead draw), and the Box-Muller runs over up to _VIEW_GAUSS of its outputs at once
        (the same elementwise operations on each pair, so the same values): one draw for about
        110 epochs of the INS, one Box-Muller for about 55."""
        pos = self._ahead_pos
        g = self._gauss
        if g is not None and pos >= self._gauss_pos and not (pos - self._gauss_pos) % 2:
            i = (pos - self._gauss_pos) // 2
            if n > 0 and i + n <= g.shape[0]:
                self._ahead_pos = pos + 2 * n
                return g[i : i + n]
        if not 0 < 2 * n <= _VIEW_AHEAD:
            return self.gaussians(n)
        if 2 * n > len(self._ahead) - pos:  # the rest of the block, then _VIEW_AHEAD outputs
            start = self.state  # the state before the rest's first output
            self._ahead = np.concatenate([self._ahead[pos:], self._draw(_VIEW_AHEAD)])
            self._ahead_start, self._ahead_pos, pos = start, 0, 0
        # at most _VIEW_GAUSS outputs a pass: a stream that mixes draws of odd lengths in
        # (each one then starts a new pass) pays for that many, not for the whole block
        stop = min(len(self._ahead), pos + max(2 * n, _VIEW_GAUSS))
        self._gauss = g = _box_muller(self._ahead[pos : stop - (stop - pos) % 2])
        self._gauss_pos = pos
        self._ahead_pos = pos + 2 * n
        return g[:n]

    # ---------------------------------------------------------------------------- scalar draws
    def next_u32(self) -> int:
        """The next 32-bit output."""
        return int(self.u32(1)[0])

    def uniform(self) -> float:
        """The next uniform in (0, 1)."""
        return float(self.uniforms(1)[0])

    def gaussian(self) -> float:
        """The next standard normal value."""
        return float(self.gaussians(1)[0])

    def __repr__(self) -> str:
        return f"Pcg32(state=0x{self.state:016x}, inc=0x{self._inc:016x})"
