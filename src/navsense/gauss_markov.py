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
segment are sequential), so a run of one epoch at a time (the streaming step takes the same
path) reproduces them exactly. Consecutive whole segments of a block (SEGMENT epochs, the
periodic anchors alone: a chunk of the INS has some 80) accumulate side by side, as the rows of
one array (each row still in epoch order), and their anchors follow one another: 1.2 -> 0.6 ms
for 10 000 epochs of the INS's six states. Rounding: a_k >= A_MIN
keeps P_k >= 0.95^127 = 1.5e-3 in a segment, so x differs from the loop by at most about 1e-13
relative (a few ulp for the INS's a = exp(-0.01 / 30)).
A compiled filter (scipy.signal.lfilter) would need a constant a and a third of a second to import.
One epoch of the unit process (the streaming receiver's and INS's call) runs as one kernel
(:func:`_unit_one`, navsense.kernels: the same operations in the same order).
"""

from __future__ import annotations

import numpy as np

from navsense.kernels import kernel

__all__ = ["scan", "AnchoredScan", "GaussMarkovStates", "SEGMENT", "A_MIN"]

SEGMENT = 128  # epochs from one periodic anchor to the next
A_MIN = 0.95  # an a_k below this makes epoch k an anchor
_ONE = np.ones(1)  # P at an anchor


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
        res: list[float] = []
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
        self.anchor = np.zeros(self.n)  # x at the current segment's anchor
        self.product = np.ones(1)  # P of the last epoch
        self._zero = np.zeros((1, self.n))  # S at an anchor
        self.sum = self._zero  # S of the last epoch
        self.last = np.zeros(self.n)  # x of the last epoch (x_(-1) = 0)

    def run(self, a: np.ndarray, drive: np.ndarray) -> np.ndarray:
        """The next m epochs: ``a`` (m,), ``drive`` (m, n) -> x (m, n).

        Segment by segment: an anchor as written, then the epochs up to the next anchor with
        P and S accumulated in order from the segment's carried values (one numpy call per step
        of the recurrence for all of those epochs); consecutive whole segments (SEGMENT epochs
        each, no anchor but the periodic ones) side by side (:meth:`_whole_segments`).
        """
        a = np.asarray(a, dtype=np.float64)
        drive = np.asarray(drive, dtype=np.float64)
        m = a.shape[0]
        if m == 1:
            return self._one(float(a[0]), drive)
        x = np.empty((m, self.n))
        if m == 0:
            return x
        k = self.epochs + np.arange(m)
        anchors = np.flatnonzero((k % SEGMENT == 0) | ~(a >= A_MIN)).tolist()
        ends = anchors[1:] + [m]
        self._followers(a, drive, x, 0, anchors[0] if anchors else m)  # the carried segment
        r = 0
        while r < len(anchors):
            j = anchors[r]
            whole = 0  # whole segments from anchor j on
            while r + whole < len(anchors) and ends[r + whole] - anchors[r + whole] == SEGMENT:
                whole += 1
            if whole > 1:
                self._whole_segments(a, drive, x, j, whole)
                r += whole
                continue
            # the anchor, as written: x_j = a_j x_(j-1) + d_j; P = 1, S = 0
            x[j] = a[j] * (x[j - 1] if j else self.last) + drive[j]
            self.anchor, self.product, self.sum = x[j], _ONE, self._zero
            self._followers(a, drive, x, j + 1, ends[r])
            r += 1
        self.epochs += m
        self.last = x[-1]
        return x

    def _followers(self, a: np.ndarray, drive: np.ndarray, x: np.ndarray, i: int, j: int):
        """Epochs i .. j-1 of the current segment: P_k, S_k accumulated in order from the
        carried ones, x_k = P_k (x_k0 + S_k)."""
        if j > i:
            p = np.multiply.accumulate(np.concatenate([self.product, a[i:j]]))[1:]
            s = np.add.accumulate(np.concatenate([self.sum, drive[i:j] / p[:, None]]))[1:]
            x[i:j] = p[:, None] * (self.anchor + s)
            self.product, self.sum = p[-1:], s[-1:]

    def _whole_segments(self, a: np.ndarray, drive: np.ndarray, x: np.ndarray, i: int, count: int):
        """``count`` whole segments from the anchor at epoch i, side by side as the rows of
        (count, SEGMENT) arrays: P and S of each accumulated along its row in epoch order from
        the anchor's P = 1, S = 0 (the operations of one segment at a time, so the same bits);
        the anchors, each from the x before it, one after another (Python floats: IEEE
        binary64, the same multiply and add as written); then x_k = P_k (x_k0 + S_k) of all."""
        n, end = self.n, i + count * SEGMENT
        pa = a[i:end].reshape(count, SEGMENT).copy()
        pa[:, 0] = 1.0  # P at the anchor
        p = np.multiply.accumulate(pa, axis=1)
        q = drive[i:end].reshape(count, SEGMENT, n) / p[:, :, None]
        q[:, 0] = 0.0  # S at the anchor
        s = np.add.accumulate(q, axis=1)
        p_end, s_end = p[:, -1].tolist(), s[:, -1].tolist()
        a_at, d_at = a[i:end:SEGMENT].tolist(), drive[i:end:SEGMENT].tolist()
        before = (x[i - 1] if i else self.last).tolist()
        anchors = []
        for r in range(count):  # x_j = a_j x_(j-1) + d_j, x_(j-1) the segment before's last
            ar, pe = a_at[r], p_end[r]
            anchor = [ar * v + d for v, d in zip(before, d_at[r])]
            anchors.append(anchor)
            before = [pe * (v + t) for v, t in zip(anchor, s_end[r])]
        anchor_x = np.array(anchors)
        out = x[i:end].reshape(count, SEGMENT, n)
        np.add(anchor_x[:, None, :], s, out=out)
        out *= p[:, :, None]
        out[:, 0] = anchor_x  # the anchors as written
        self.anchor, self.product, self.sum = x[end - SEGMENT], p[-1, -1:], s[-1, -1:]

    def _one(self, a: float, drive: np.ndarray) -> np.ndarray:
        """One epoch (a streaming step): :meth:`run`'s operations for m = 1 without its
        bookkeeping over the epochs. An anchor as written; else the accumulations of a segment
        of one epoch are one multiply and one add, P = P_prev a and S = S_prev + d / P, then
        x = P (x_k0 + S): the same operations on the same values, so the same bits."""
        if self.epochs % SEGMENT == 0 or not a >= A_MIN:  # an anchor
            x = a * self.last + drive
            self.anchor, self.product, self.sum = x[0], _ONE, self._zero
        else:
            p = self.product * a
            s = self.sum + drive / p
            x = p * (self.anchor + s)
            self.product, self.sum = p, s
        self.epochs += 1
        self.last = x[0]
        return x

    def unit_one(self, a: np.ndarray, g: np.ndarray) -> np.ndarray:
        """:meth:`_one` of the unit process, drive sqrt(1 - a^2) g, as one kernel
        (:func:`_unit_one`): ``a`` (1,), ``g`` (1, n) C-contiguous float64 -> x (1, n)."""
        anchor = self.epochs % SEGMENT == 0 or not a[0] >= A_MIN
        x = np.empty((1, self.n))
        product, total = np.empty(1), np.empty((1, self.n))
        flag = _ONE if anchor else _ZERO
        _unit_one(
            a,
            np.ascontiguousarray(g),
            self.anchor,
            self.product,
            self.sum,
            self.last,
            flag,
            x,
            product,
            total,
        )
        if anchor:
            self.anchor, self.product, self.sum = x[0], _ONE, self._zero
        else:
            self.product, self.sum = product, total
        self.epochs += 1
        self.last = x[0]
        return x


_ZERO = np.zeros(1)  # _unit_one: not an anchor


@kernel(1, 2, 1, 1, 2, 1, 1, 2, 1, 2)
def _unit_one(a, g, anchor, product, total, last, is_anchor, x, product_out, total_out):
    """One epoch of the unit process in :class:`AnchoredScan`'s operations (module docstring):
    d = sqrt(1 - a^2) g; an anchor (is_anchor 1) x = a x_prev + d; else P = P_prev a,
    S = S_prev + d / P, x = P (x_k0 + S) into x, product_out and total_out. a (1,), g, total,
    x, total_out (1, n), anchor, last (n,), product, product_out (1,)."""
    d = np.sqrt(1.0 - a * a)[0] * g
    if is_anchor[0] != 0.0:
        x[0] = a[0] * last + d[0]
    else:
        p = product[0] * a[0]
        product_out[0] = p
        total_out[0] = total[0] + d[0] / p
        x[0] = p * (anchor + total_out[0])


class GaussMarkovStates:
    """x_k = a_k x_(k-1) + sqrt(1 - a_k^2) g_k over n columns, from x_(-1) = 0, the state carried
    from one block of epochs to the next (:class:`AnchoredScan`; a = 0 restarts it: x = g)."""

    def __init__(self, n: int) -> None:
        self._scan = AnchoredScan(n)

    def run(self, a: np.ndarray, g: np.ndarray) -> np.ndarray:
        """``a`` (m,), ``g`` (m, n) -> x (m, n)."""
        a = np.asarray(a, dtype=np.float64)
        g = np.asarray(g, dtype=np.float64)
        if a.shape == (1,) and g.shape == (1, self._scan.n):  # one epoch: one kernel
            return self._scan.unit_one(a, g)
        return self._scan.run(a, np.sqrt(1.0 - a * a)[:, None] * g)
