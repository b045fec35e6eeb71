"""numpy's pairwise summation of rows, restricted to the columns that can be non-zero.

``np.add.reduce(x, axis=-1)`` of a C-contiguous float64 row of n values is ``0.0 + s(x, n)``
with numpy's pairwise sum (numpy/_core/src/umath/loops_utils.h.src, ``pairwise_sum``)::

    s(x, n) = x_0 + x_1 + ... + x_{n-1} in order (from -0.0)                  n < 8
            = ((r_0 + r_1) + (r_2 + r_3)) + ((r_4 + r_5) + (r_6 + r_7))
              + x_{n - n mod 8} + ... + x_{n-1} in order,                      8 <= n <= 128
              r_k = x_k + x_{k+8} + ... (i = k mod 8, i < n - n mod 8, in order)
            = s(x, n2) + s(x + n2, n - n2),  n2 = n / 2 - (n / 2) mod 8          n > 128

A zero term changes nothing in it: x + 0 = x for x != 0, and a zero sum's sign goes at the
final 0.0 + s. So when the values of the columns outside a set are zero in every row, the
same tree over the set's columns alone (a node with one non-zero child is that child) gives
the same bits. :func:`plan` builds that tree as a list of additions once for (n, columns), and
:func:`row_sums` runs it over many rows at once: each addition is one vectorised numpy add of
a column's values over all rows (the rows along the last axes), so the order of additions of
every row is its own reduction's.
"""

from __future__ import annotations

import functools

import numpy as np

__all__ = ["plan", "row_sums", "PAIRWISE_BLOCK"]

PAIRWISE_BLOCK = 128  # numpy's PW_BLOCKSIZE: a row of at most this many is one block


@functools.lru_cache(maxsize=64)
def plan(n: int, columns: tuple[int, ...]) -> tuple[tuple[int, int, int], ...]:
    """The additions of ``s(x, n)`` over ``columns`` (sorted positions in 0 .. n-1; the values
    elsewhere zero): a tuple of (out, a, b), each ``slot[out] = ref(a) + ref(b)`` where a
    reference r >= 0 is the r-th of ``columns`` and r < 0 the slot -r - 1. The last addition's
    out slot holds the sum; () with fewer than two columns (:func:`row_sums` handles them)."""
    index = {c: i for i, c in enumerate(columns)}
    ops: list[tuple[int, int, int]] = []
    free: list[int] = []
    n_slots = [0]

    def add(a, b):
        if a is None:
            return b
        if b is None:
            return a
        if a < 0:  # a slot: add into it
            out = -a - 1
        elif b < 0:  # addition is commutative, bit for bit
            out = -b - 1
        else:
            out = free.pop() if free else n_slots[0]
            n_slots[0] = max(n_slots[0], out + 1)
        ops.append((out, a, b))
        if a < 0 and b < 0:
            free.append(-b - 1)
        return -out - 1

    def leaf(i):
        return index.get(i)

    def s(lo, count):
        if count < 8:
            res = None
            for i in range(lo, lo + count):
                res = add(res, leaf(i))
            return res
        if count <= PAIRWISE_BLOCK:
            r = [leaf(lo + k) for k in range(8)]
            main = count - count % 8
            for i in range(8, main, 8):
                for k in range(8):
                    r[k] = add(r[k], leaf(lo + i + k))
            res = add(add(add(r[0], r[1]), add(r[2], r[3])), add(add(r[4], r[5]), add(r[6], r[7])))
            for i in range(main, count):
                res = add(res, leaf(lo + i))
            return res
        n2 = count // 2
        n2 -= n2 % 8
        return add(s(lo, n2), s(lo + n2, count - n2))

    s(0, n)
    return tuple(ops)


def row_sums(x: np.ndarray, n: int, columns: tuple[int, ...], out: np.ndarray) -> np.ndarray:
    """``np.add.reduce`` of rows of n values whose columns outside ``columns`` are zero:
    ``x`` (len(columns), ...) the values of those columns (column first, the rows after) ->
    ``out`` (...) the sums, bit for bit those of the full rows (the module docstring)."""
    ops = plan(n, columns)
    if not ops:
        if len(columns):  # one column: 0.0 + x
            return np.add(x[0], 0.0, out=out)
        out[...] = 0.0
        return out
    n_slots = 1 + max(max(o for o, _, _ in ops), 0)
    slots = np.empty((n_slots,) + x.shape[1:])
    for o, a, b in ops:
        np.add(x[a] if a >= 0 else slots[-a - 1], x[b] if b >= 0 else slots[-b - 1], out=slots[o])
    return np.add(slots[ops[-1][0]], 0.0, out=out)
