"""The first-order Gauss-Markov recursion, evaluated in the same floating-point operations however
a run is cut into chunks.

    x_k = a_k x_(k-1) + d_k          (d_k the drive, e.g. sqrt(1 - a_k^2) sigma g_k)

Two evaluations, both giving the same bits for a whole log, chunks or single steps:

- :func:`scan`, the recursion as written, one multiply and one add an epoch on Python floats
  (IEEE binary64 like any compiled loop): the configurable IMU (Basilisk's exact recursion) and
  the barometer's bias (25 Hz by default);
- :class:`AnchoredScan`, the same recursion in anchored segments, vectorised over the epochs of
  a segment (about 3 times faster than the loop), and :class:`GaussMarkovStates` on it, the unit
  process x_k = a_k x_(k-1) + sqrt(1 - a_k^2) g_k of the INS and the GNSS error model.

Anchored segments. Epochs are counted from the first one (k = 0, 1, ...). Epoch k is an *anchor*
when k is a multiple of ``SEGMENT`` (128) or a_k < ``A_MIN`` (0.95; a_k = 0 restarts the state);
an anchor is computed as written, x_k = a_k x_(k-1) + d_k. Inside the segment that follows an
anchor k0 the recursion is unrolled exactly (mathematically) as

    P_k = a_(k0+1) a_(k0+2) ... a_k          (running product, P_k0 = 1)
    S_k = S_(k-1) + d_k / P_k                 (running sum,     S_k0 = 0)
    x_k = P_k (x_k0 + S_k)

with the products and sums accumulated in epoch order (numpy's multiply/add.accumulate along a
segment are sequential), so one epoch at a time reproduces them exactly. Rounding: a_k >= A_MIN
keeps P_k >= 0.95^127 = 1.5e-3 in a segment, so x differs from the loop by at most about 1e-13
relative (a few ulp for the INS's a = exp(-0.01 / 30)).
A compiled filter (scipy.signal.lfilter) would need a constant a and a third of a second to import.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["scan", "AnchoredScan", "GaussMarkovStates", "SEGMENT", "A_MIN"]

SEGMENT = 128  # epochs from one periodic anchor to the next
A_MIN = 0.95  # an a_k below this makes epoch k an anchor


def scan(a, drive: np.ndarray, x0) -> np.ndarray:
    """x_k = a_k x_(k-1) + drive_k for k = 0 .. m-1, from x_(-1) = x0, each column independently.

    ``a`` (m,) or a scalar, ``drive`` (m, n), ``x0`` (n,); returns (m, n) float64.
    """
    drive = np.asarray(drive, dtype=np.float64)
    m, n = drive.shape
    out = np.empty((m, n))
    if m == 0:
        return out
    a_list = np.broadcast_to(np.asarray(a, dtype=np.float64), (m,)).tolist()
    x0 = np.broadcast_to(np.asarray(x0, dtype=np.float64), (n,))
    for j in range(n):
        x = float(x0[j])
        res = []
        append = res.append
        for ak, dk in zip(a_list, drive[:, j].tolist()):
            x = ak * x + dk
            append(x)
        out[:, j] = res
    return out


class AnchoredScan:
    """x_k = a_k x_(k-1) + d_k for n columns that share a_k, in anchored segments (module doc).

    The state (the epoch count, the segment's anchor value, running product and sum, and the last
    x) is carried from one :meth:`run` to the next; x_(-1) = 0.
    """

    def __init__(self, n: int) -> None:
        self.n = int(n)
        self.epochs = 0  # epochs run so far (the index of the next epoch)
        self.offset = 0  # epochs of the current segment after its anchor
        # (Python floats: one epoch at a time, the streaming API's case, needs no numpy call)
        self.anchor = [0.0] * self.n  # x at the current segment's anchor
        self.product = 1.0  # P of the last epoch
        self.sum = [0.0] * self.n  # S of the last epoch
        self.last = [0.0] * self.n  # x of the last epoch

    def run(self, a: np.ndarray, drive: np.ndarray) -> np.ndarray:
        """The next m epochs: ``a`` (m,), ``drive`` (m, n) -> x (m, n)."""
        a = np.asarray(a, dtype=np.float64)
        drive = np.asarray(drive, dtype=np.float64)
        m = a.shape[0]
        n = self.n
        if m == 0:
            return np.empty((0, n))
        if m == 1:
            return np.array([self.step(float(a[0]), drive[0].tolist())])
        k = self.epochs + np.arange(m)
        is_anchor = (k % SEGMENT == 0) | ~(a >= A_MIN)
        seg = np.cumsum(is_anchor)  # 0: the segment carried in from the previous run
        n_seg = int(seg[-1]) + 1
        starts = np.flatnonzero(is_anchor)
        # column of each epoch in its segment's row; column 0 holds the segment's base (P, S)
        index = np.arange(m)
        col = index + 1 + self.offset
        if starts.size:
            later = seg > 0
            col[later] = index[later] - starts[seg[later] - 1]
        # segment s holds its epochs at flat positions s * SEGMENT + column; column 0 is the
        # anchor (P = 1, S = 0), or the state carried in for segment 0
        flat = seg * SEGMENT + col
        prod = np.ones(n_seg * SEGMENT)
        prod[self.offset] = self.product
        prod[flat[~is_anchor]] = a[~is_anchor]
        np.multiply.accumulate(
            prod.reshape(n_seg, SEGMENT), axis=1, out=prod.reshape(n_seg, SEGMENT)
        )
        p_k = prod[flat]
        terms = np.zeros((n_seg * SEGMENT, n))
        terms[self.offset] = self.sum
        terms[flat] = drive / p_k[:, None]
        terms[flat[starts]] = 0.0  # S = 0 at an anchor
        np.add.accumulate(
            terms.reshape(n_seg, SEGMENT, n), axis=1, out=terms.reshape(n_seg, SEGMENT, n)
        )
        s_k = terms[flat]

        # the anchors, segment after segment (the one sequential part: m / SEGMENT steps):
        # x at the end of segment s - 1 = P (anchor + S), then anchor_s = a x + d
        ends = starts - 1  # the epoch before each anchor
        anchor = self.anchor
        anchor_rows = [anchor]
        for s, (a_s, d_s, p, s_sum) in enumerate(
            zip(a[starts].tolist(), drive[starts].tolist(), p_k[ends].tolist(), s_k[ends].tolist()),
            start=1,
        ):
            if ends[s - 1] < 0:  # the run starts with an anchor: x of the previous run
                last = self.last
            else:
                last = [p * (x + y) for x, y in zip(anchor, s_sum)]
            anchor = [a_s * x + d for x, d in zip(last, d_s)]
            anchor_rows.append(anchor)
        anchors = np.array(anchor_rows)

        x = p_k[:, None] * (anchors[seg] + s_k)
        x[starts] = anchors[1:]

        # carry the state to the next run
        self.epochs += m
        self.offset = int(col[-1])
        self.anchor = anchors[-1].tolist()
        self.product = float(p_k[-1])
        self.sum = s_k[-1].tolist()
        self.last = x[-1].tolist()
        return x

    def step(self, a: float, d: list) -> list:
        """One epoch on Python floats (``d`` n floats -> x, n floats): the very operations of
        :meth:`run` for that epoch."""
        if self.epochs % SEGMENT == 0 or not a >= A_MIN:
            x = [a * x_prev + d_j for x_prev, d_j in zip(self.last, d)]
            self.offset, self.product = 0, 1.0
            self.anchor, self.sum = x, [0.0] * self.n
        else:
            p = self.product * a
            sums = [s_j + d_j / p for s_j, d_j in zip(self.sum, d)]
            x = [p * (x0 + s_j) for x0, s_j in zip(self.anchor, sums)]
            self.offset, self.product = self.offset + 1, p
            self.sum = sums
        self.epochs += 1
        self.last = x
        return x


class GaussMarkovStates:
    """x_k = a_k x_(k-1) + sqrt(1 - a_k^2) g_k over n columns, from x_(-1) = 0, the state carried
    from one block of epochs to the next (:class:`AnchoredScan`; a = 0 restarts it: x = g)."""

    def __init__(self, n: int) -> None:
        self._scan = AnchoredScan(n)

    def run(self, a: np.ndarray, g: np.ndarray) -> np.ndarray:
        """``a`` (m,), ``g`` (m, n) -> x (m, n)."""
        a = np.asarray(a, dtype=np.float64)
        if a.shape == (1,):  # one epoch (the streaming receiver): :meth:`step`, the same bits
            return np.array([self.step(a.item(), np.asarray(g, dtype=np.float64)[0].tolist())])
        return self._scan.run(a, np.sqrt(1.0 - a * a)[:, None] * np.asarray(g, dtype=np.float64))

    def step(self, a: float, g: list) -> list:
        """One epoch on Python floats: ``a``, ``g`` (n floats) -> x (n floats), the bits of
        :meth:`run` (sqrt is correctly rounded in numpy and math alike)."""
        w = math.sqrt(1.0 - a * a)
        return self._scan.step(a, [w * g_j for g_j in g])
