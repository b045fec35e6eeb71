"""Dilution of precision (specification, "GNSS Receiver", "Dilution of Precision"; Dop).

One row of the geometry matrix G for each satellite in the set::

    g = [-l_e, -l_n, -l_u, 1]
    Q = (G^T G)^-1
    H = sqrt(Q11 + Q22),   V = sqrt(Q33),   P = sqrt(Q11 + Q22 + Q33)

where l is the unit line of sight in ENU. The three values are 99.99 (NO_DOP) with fewer than
4 satellites or with a singular matrix. The receiver computes H, V, P from the used satellites
and H_o, V_o from all satellites above the mask.

Computation. Only the position block of Q is needed. With n used satellites,
G^T G = [[A, -b], [-b^T, n]], A = sum l l^T, b = sum l, and the position block of its inverse is
the inverse of the Schur complement of the clock term (an exact identity)::

    Q_pos = M^-1,   M = A - b b^T / n = sum (l - lbar)(l - lbar)^T,   lbar = b / n

M is formed from the centred lines of sight (no cancellation between A and b b^T / n) and
inverted in closed form (3 x 3 adjugate over determinant), vectorised over epochs; the sums run
satellite by satellite within an epoch, so an epoch's values never depend on how the epochs were
cut into chunks. G^T G is singular exactly when M is (det G^T G = n det M, n >= 4).

Singularity test: M counts as singular when det M <= 0 or is not finite, or when its 1-norm
condition number ||M||_1 ||M^-1||_1 exceeds MAX_CONDITION = 1e12. An exactly degenerate sky
(every satellite at one elevation, or all in one vertical plane) has det M = 0 or a condition
number of order 1e16 in floating point; a usable sky is far below 1e12 (such a DOP would
already exceed 1e5).
"""

from __future__ import annotations

import numpy as np

from navsense.kernels import compiled, kernel
from navsense.sensors.gnss.pairwise import row_sums

__all__ = ["dop", "dops", "NO_DOP", "MAX_CONDITION", "MIN_SATELLITES"]

NO_DOP = (
    99.99  # the value of H, V and P without a solution (specification, "Dilution of Precision")
)
MIN_SATELLITES = 4  # specification, "Dilution of Precision"
MAX_CONDITION = 1e12  # 1-norm condition number of M above which G^T G counts as singular
_BLOCK_EPOCHS = 256  # epochs a block
_PAIRWISE_BLOCK = 128  # numpy's pairwise summation: a row of at most this many is one block
_COLUMN_EPOCHS = 32  # chunks of at least this many epochs take _dop_columns
_COLUMN_BLOCK = 4096  # epochs a block of _dop_columns


def dop(los, used) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """HDOP, VDOP and PDOP (each (m,)) of the satellites ``used`` (m, nsat) bool.

    ``los`` (m, nsat, 3) unit lines of sight in ENU. 99.99 for all three where fewer than 4
    satellites are used or the geometry is singular (see the module docstring).
    """
    return dops(los, used)[0]


def dops(los, *used_sets) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """:func:`dop` of several sets of satellites (each (m, nsat) bool) over the same lines of
    sight, in one pass over the blocks of epochs (the receiver's used and above-mask sets)."""
    los = np.asarray(los, dtype=np.float64)
    if los.ndim != 3 or los.shape[2] != 3:
        raise ValueError(f"Expected `los` to have shape (m, nsat, 3), got {los.shape}")
    sets = [np.asarray(used, dtype=bool) for used in used_sets]
    for used in sets:
        if used.shape != los.shape[:2]:
            raise ValueError(f"Expected `used` to have shape {los.shape[:2]}, got {used.shape}")
    m, nsat = los.shape[:2]
    n_sets = len(sets)
    hvp = np.empty((3, n_sets, m))  # H, V, P of each set
    if m and n_sets and nsat <= _PAIRWISE_BLOCK and compiled():  # the sums in one kernel
        w = np.empty((n_sets, m, nsat))
        for k, used in enumerate(sets):
            np.copyto(w[k], used)
        moments = np.empty((7, n_sets * m))
        _dop_moments(np.ascontiguousarray(los), w, moments)
        _dop_values(moments, hvp.reshape(3, -1))  # compiled: no floating-point warning
    elif m >= _COLUMN_EPOCHS and n_sets:  # a chunk: the sums over the sets' columns only
        _dop_columns(los, sets, hvp)
    elif m and n_sets:
        mb = min(m, _BLOCK_EPOCHS)
        buf = np.empty((n_sets, mb, nsat))  # reused by the blocks
        for b0 in range(0, m, mb):  # blocks keep the temporaries in cache
            b1 = min(m, b0 + mb)
            w = buf[:, : b1 - b0]
            for k, used in enumerate(sets):
                np.copyto(w[k], used[b0:b1])  # 1.0 for the used satellites, 0.0 for the others
            if b1 - b0 == m:  # one block: the kernel writes hvp itself
                _dop_block(los, w, hvp)
            else:
                out = np.empty((3, n_sets, b1 - b0))
                _dop_block(los[b0:b1], w, out)
                hvp[:, :, b0:b1] = out
    return [(hvp[0, k], hvp[1, k], hvp[2, k]) for k in range(n_sets)]


def _dop_columns(los: np.ndarray, sets: list[np.ndarray], hvp: np.ndarray) -> None:
    """:func:`_dop_block` of a chunk of epochs into ``hvp`` (3, S, m), the sums run over the
    satellites that are in some set at some epoch of a block (navsense.sensors.gnss.pairwise:
    the others' terms are zero in every row, so the sums over the rest have the bits of
    ``np.add.reduce`` over the whole rows); the products and means are _dop_block's, term for
    term. Lines of sight that are not all finite take :func:`_dop_block` (a NaN of a satellite
    outside the sets makes its epoch's sums NaN there)."""
    m, nsat = los.shape[:2]
    if not np.isfinite(np.add.reduce(los.reshape(-1))):
        w = np.empty((len(sets), m, nsat))
        for k, used in enumerate(sets):
            np.copyto(w[k], used)
        _dop_block(los, w, hvp)
        return
    for b0 in range(0, m, _COLUMN_BLOCK):
        b1 = min(m, b0 + _COLUMN_BLOCK)
        anywhere = np.logical_or.reduce([used[b0:b1].any(axis=0) for used in sets])
        cols = np.flatnonzero(anywhere)
        # column first, then the component, set and epoch: (k, 3, 1, mb) and (k, 1, S, mb)
        lk = np.ascontiguousarray(los[b0:b1].take(cols, axis=1).transpose(1, 2, 0))[:, :, None]
        w = np.empty((cols.size, 1, len(sets), b1 - b0))
        for k, used in enumerate(sets):
            np.copyto(w[:, 0, k], used[b0:b1, cols].T)
        moments = np.empty((7, len(sets), b1 - b0))
        np.add.reduce(w[:, 0], axis=0, out=moments[0])  # n: sums of ones, exact in any order
        _column_moments(lk, w, nsat, tuple(cols.tolist()), moments)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            out = np.empty((3, len(sets), b1 - b0))
            _dop_values(moments.reshape(7, -1), out.reshape(3, -1))
        hvp[:, :, b0:b1] = out


def _column_moments(lk, w, nsat: int, cols: tuple[int, ...], moments: np.ndarray) -> None:
    """The sums of :func:`_dop_sums` over the columns ``cols`` of rows of ``nsat``: ``lk``
    (k, 3, 1, mb) the columns' lines of sight, ``w`` (k, 1, S, mb) their weights, ``moments``
    (7, S, mb) with n in row 0 -> the means' and products' sums in rows 1 to 6."""
    mul = np.multiply
    d = mul(lk, w)  # l w, (k, 3, S, mb)
    mean = row_sums(d, nsat, cols, np.empty(d.shape[1:]))
    mean /= np.maximum(moments[0], 1.0)
    mul(np.subtract(lk, mean, out=d), w, out=d)  # (l - lbar) w
    prod = np.empty((len(cols), 6) + d.shape[2:])  # _FIRST times _SECOND, three calls
    mul(d, d, out=prod[:, 0:3])
    mul(d[:, 0:1], d[:, 1:3], out=prod[:, 3:5])
    mul(d[:, 1], d[:, 2], out=prod[:, 5])
    row_sums(prod, nsat, cols, moments[1:])


def _dop_block(los: np.ndarray, w: np.ndarray, out: np.ndarray) -> None:
    """H, V, P of a block of epochs into ``out`` (3, S, mb), C-contiguous: ``los`` (mb, nsat,
    3); ``w`` (S, mb, nsat) the S sets as weights 1.0 (used) and 0.0.

    Every sum over the satellites is ``np.add.reduce(x, axis=-1)`` over the contiguous last axis
    (nsat), so its order of additions is that of a row alone, whatever the block, the sets or
    the other sums computed in the same call (the three components' means and the six
    products' sums each run as one reduction over their rows).
    """
    moments = _dop_sums(los, w)
    # the arithmetic after the sums, one kernel over the sets and epochs as rows
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        _dop_values(moments.reshape(7, -1), out.reshape(3, -1))


def _dop_sums(los: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The sums of :func:`_dop_block` (numpy): ``los`` (mb, nsat, 3), ``w`` (S, mb, nsat) ->
    (7, S, mb) = n, a, b, c, e_n, e_u, n_u."""
    mul, reduce = np.multiply, np.add.reduce
    # the sums as rows n, a, b, c, e_n, e_u, n_u of one array (the kernel's input)
    moments = np.empty((7,) + w.shape[:-1])
    n = reduce(w, axis=-1, out=moments[0])
    n1 = np.maximum(n, 1.0)
    # centred lines of sight of the used satellites, zero for the others: (3, S, mb, nsat)
    lk = np.moveaxis(los, -1, 0)[:, None]  # l_e, l_n, l_u (3, 1, mb, nsat)
    d = mul(lk, w, out=np.empty((3,) + w.shape))  # C order: each sum over a contiguous row
    mean = reduce(d, axis=-1) / n1
    mul(np.subtract(lk, mean[..., None], out=d), w, out=d)
    # M = [[a, e_n, e_u], [e_n, b, n_u], [e_u, n_u, c]]
    reduce(mul(d[_FIRST], d[_SECOND]), axis=-1, out=moments[1:])
    return moments


@kernel(3, 3, 2)
def _dop_moments(los, w, moments):
    """The sums of :func:`_dop_block` in one compiled kernel (rows of at most
    ``_PAIRWISE_BLOCK`` satellites): ``los`` (mb, nsat, 3), ``w`` (S, mb, nsat) -> ``moments``
    (7, S mb) = n, a, b, c, e_n, e_u, n_u of set s, epoch e in column s mb + e.

    Each sum is numpy's ``np.add.reduce`` of a contiguous row written out: 0.0 plus the
    pairwise sum of the row, which for n < 8 adds the values in order to -0.0 and otherwise
    runs eight sums over the values i mod 8, adds them as ((r0 + r1) + (r2 + r3)) + ((r4 + r5)
    + (r6 + r7)) and then the last n mod 8 values in order (numpy's loops_utils.h.src,
    pairwise_sum, for n <= 128). The products and means are _dop_block's: lbar = sum(l w) /
    max(n, 1), d = (l - lbar) w, then the sums of d0 d0, d1 d1, d2 d2, d0 d1, d0 d2, d1 d2."""
    n_sets, mb, nsat = w.shape
    buf = np.empty((6, nsat))
    sums = np.zeros(6)
    for s in range(n_sets):
        for e in range(mb):
            col = s * mb + e
            for stage in range(2):
                if stage == 0:  # n and the sums of l w
                    rows = 4
                    for i in range(nsat):
                        wi = w[s, e, i]
                        buf[0, i] = wi
                        buf[1, i] = los[e, i, 0] * wi
                        buf[2, i] = los[e, i, 1] * wi
                        buf[3, i] = los[e, i, 2] * wi
                else:  # the centred lines of sight's products
                    rows = 6
                    n1 = sums[0] if sums[0] > 1.0 else 1.0
                    m0, m1, m2 = sums[1] / n1, sums[2] / n1, sums[3] / n1
                    for i in range(nsat):
                        wi = w[s, e, i]
                        d0 = (los[e, i, 0] - m0) * wi
                        d1 = (los[e, i, 1] - m1) * wi
                        d2 = (los[e, i, 2] - m2) * wi
                        buf[0, i] = d0 * d0
                        buf[1, i] = d1 * d1
                        buf[2, i] = d2 * d2
                        buf[3, i] = d0 * d1
                        buf[4, i] = d0 * d2
                        buf[5, i] = d1 * d2
                for r in range(rows):  # np.add.reduce of the row: 0.0 + pairwise sum
                    if nsat < 8:
                        res = -0.0
                        for i in range(nsat):
                            res += buf[r, i]
                    else:
                        r0, r1, r2, r3 = buf[r, 0], buf[r, 1], buf[r, 2], buf[r, 3]
                        r4, r5, r6, r7 = buf[r, 4], buf[r, 5], buf[r, 6], buf[r, 7]
                        i = 8
                        while i < nsat - nsat % 8:
                            r0 += buf[r, i]
                            r1 += buf[r, i + 1]
                            r2 += buf[r, i + 2]
                            r3 += buf[r, i + 3]
                            r4 += buf[r, i + 4]
                            r5 += buf[r, i + 5]
                            r6 += buf[r, i + 6]
                            r7 += buf[r, i + 7]
                            i += 8
                        res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
                        while i < nsat:
                            res += buf[r, i]
                            i += 1
                    sums[r] = 0.0 + res
                if stage == 0:
                    moments[0, col] = sums[0]
                else:
                    for r in range(6):
                        moments[1 + r, col] = sums[r]


# the six products of M's sums: a = d0 d0, b = d1 d1, c = d2 d2, e_n = d0 d1, e_u = d0 d2, n_u = d1 d2
_FIRST = np.array([0, 1, 2, 0, 0, 1])
_SECOND = np.array([0, 1, 2, 1, 2, 2])


@kernel(2, 2)
def _dop_values(moments, out):
    """H, V, P from the sums, on rows: moments (7, k) = n, a, b, c, e_n, e_u, n_u (the used
    satellites' count and M = [[a, e_n, e_u], [e_n, b, n_u], [e_u, n_u, c]]) -> out (3, k).

    Q_pos = M^-1 = adj(M) / det M by cofactors; NO_DOP where fewer than MIN_SATELLITES are used
    or M is singular (the module docstring's test on det M and the 1-norms of M and adj(M))."""
    n, a, b, c = moments[0], moments[1], moments[2], moments[3]
    e_n, e_u, n_u = moments[4], moments[5], moments[6]
    # M = [[a, e_n, e_u], [e_n, b, n_u], [e_u, n_u, c]]: cofactors (symmetric adjugate)
    c11, c22, c33 = b * c - n_u * n_u, a * c - e_u * e_u, a * b - e_n * e_n
    c12, c13, c23 = e_u * n_u - e_n * c, e_n * n_u - b * e_u, e_n * e_u - a * n_u
    det = a * c11 + e_n * c12 + e_u * c13
    # 1-norms (maximum absolute column sums; M and its adjugate are symmetric)
    mx, ab = np.maximum, np.abs
    a_a, a_b, a_c, a_en, a_eu, a_nu = ab(a), ab(b), ab(c), ab(e_n), ab(e_u), ab(n_u)
    norm_m = mx(mx(a_a + a_en + a_eu, a_en + a_b + a_nu), a_eu + a_nu + a_c)
    a11, a22, a33, a12, a13, a23 = ab(c11), ab(c22), ab(c33), ab(c12), ab(c13), ab(c23)
    norm_adj = mx(mx(a11 + a12 + a13, a12 + a22 + a23), a13 + a23 + a33)
    ok = (
        (n >= MIN_SATELLITES)
        & np.isfinite(det)
        & (det > 0.0)
        & (norm_m * norm_adj <= MAX_CONDITION * det)
    )
    inv_det = np.where(ok, 1.0 / det, 0.0)
    q11, q22, q33 = c11 * inv_det, c22 * inv_det, c33 * inv_det
    out[0] = np.where(ok, np.sqrt(np.maximum(q11 + q22, 0.0)), NO_DOP)
    out[1] = np.where(ok, np.sqrt(np.maximum(q33, 0.0)), NO_DOP)
    out[2] = np.where(ok, np.sqrt(np.maximum(q11 + q22 + q33, 0.0)), NO_DOP)
