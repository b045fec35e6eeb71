"""Decimation of plotted series to what a figure can show, keeping the extremes.

A line over n samples drawn on a figure w pixels wide looks the same when, in every pixel
column, the samples kept are the first and the last (the line enters and leaves the column
where it did), the lowest and the highest (the column's vertical extent: spikes stay visible)
and, where the column has a gap (NaN), its first non-finite sample (the line still breaks).
That is the "M4" aggregation of Jugel et al., "M4: A Visualization-Oriented Time Series Data
Aggregation", PVLDB 7(10), 2014, with the gap kept. At most 5 points per column are drawn
whatever n is, so a one-hour run's 432 000 IMU samples become a few thousand points.

:class:`PixelColumns` and :func:`column_extremes` give the indices to keep for a time axis
(samples in time order).
"""

from __future__ import annotations

import numpy as np

__all__ = ["PixelColumns", "column_extremes"]


def _first_per_segment(candidates: np.ndarray, seg: np.ndarray) -> np.ndarray:
    """The first index of ``candidates`` (sorted indices) in each segment it touches."""
    if candidates.size == 0:
        return candidates
    s = seg[candidates]
    return candidates[np.concatenate([[True], s[1:] != s[:-1]])]


class PixelColumns:
    """The samples of a time axis ``x`` ((n,), non-decreasing) grouped into ``columns`` pixel
    columns spanning ``x_range`` (default: x's own, first to last; samples outside it go to
    the first or last column): column j holds the samples with
    ``floor((x - lo) / (hi - lo) * columns) == j``. :meth:`extremes` picks the samples to draw
    of each series against x; the grouping is done once for all of them."""

    def __init__(
        self, x: np.ndarray, columns: int, x_range: tuple[float, float] | None = None
    ) -> None:
        x = np.asarray(x, dtype=np.float64)
        if columns < 1:
            raise ValueError(f"columns = {columns}: at least 1")
        n = self.n = x.shape[0]
        self.whole = n <= 4 * columns  # nothing to gain: every sample is drawn
        if self.whole:
            return
        lo, hi = (float(x[0]), float(x[-1])) if x_range is None else map(float, x_range)
        span = hi - lo
        if span > 0 and np.isfinite(span):
            col = np.floor((x - lo) * (columns / span))
            col = np.clip(np.nan_to_num(col, nan=0.0), 0, columns - 1).astype(np.int64)
        else:
            col = np.zeros(n, dtype=np.int64)
        starts = np.concatenate([[0], np.flatnonzero(col[1:] != col[:-1]) + 1])
        self.starts = starts
        self.ends = np.concatenate([starts[1:] - 1, [n - 1]])
        self.counts = np.diff(np.concatenate([starts, [n]]))  # samples in each column
        self.seg = np.repeat(np.arange(starts.size), self.counts)

    def extremes(self, *series: np.ndarray) -> np.ndarray:
        """Sorted indices of the samples to draw of ``series`` ((n,) or (n, k) each; the union
        over them, so they can be drawn from the same indices): in each column its first and
        last sample, and of each series the first sample at its minimum, the first at its
        maximum (finite values) and its first non-finite sample. With as many columns as the
        axes has pixels or more, the drawing keeps every column's extent and its gaps, so the
        figure looks the same. ``arange(n)`` when a column holds 4 samples or fewer on
        average."""
        n = self.n
        for v in series:
            if np.shape(v)[0] != n:
                raise ValueError(f"x has {n} samples but a series {np.shape(v)[0]}")
        if self.whole:
            return np.arange(n)
        seg, starts, counts = self.seg, self.starts, self.counts
        keep = [starts, self.ends]
        for s in series:
            columns = np.asarray(s, dtype=np.float64).reshape(n, -1)
            for j in range(columns.shape[1]):
                # contiguous (a component of an (n, 3) array is strided: every pass over it
                # slower); the column's extreme beside each sample by repeat, not a gather
                v = np.ascontiguousarray(columns[:, j])
                finite = np.isfinite(v)
                every = bool(finite.all())
                low = np.minimum.reduceat(v if every else np.where(finite, v, np.inf), starts)
                high = np.maximum.reduceat(v if every else np.where(finite, v, -np.inf), starts)
                at_low = v == np.repeat(low, counts)
                at_high = v == np.repeat(high, counts)
                if not every:  # an all-NaN column's extremes are +-inf: no finite sample's
                    at_low &= finite
                    at_high &= finite
                keep.append(_first_per_segment(np.flatnonzero(at_low), seg))
                keep.append(_first_per_segment(np.flatnonzero(at_high), seg))
                if not every:
                    keep.append(_first_per_segment(np.flatnonzero(~finite), seg))
        return _sorted_unique(n, keep)


def column_extremes(
    x: np.ndarray,
    y: np.ndarray,
    columns: int,
    x_range: tuple[float, float] | None = None,
) -> np.ndarray:
    """Sorted indices of the samples of ``y`` ((n,) or (n, k)) against the time axis ``x`` to
    draw on ``columns`` pixel columns: ``PixelColumns(x, columns, x_range).extremes(y)``
    (:class:`PixelColumns`)."""
    return PixelColumns(x, columns, x_range).extremes(y)


def _sorted_unique(n: int, parts: list) -> np.ndarray:
    mask = np.zeros(n, dtype=bool)
    for part in parts:
        mask[part] = True
    return np.flatnonzero(mask)
