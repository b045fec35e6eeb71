"""The report's figures made fast and the same: the decimation of plotted series
(navsense.output.decimate) against brute-force computations (every pixel column keeps its first
and last sample, its minimum and maximum and its gaps), the figures of an hour's run drawn from
few points with the extremes kept, and the figures drawn in two processes as in one."""

import math

import numpy as np
import pytest

from navsense.config.defaults import complete_recorded_config
from navsense.output.decimate import PixelColumns, column_extremes
from navsense.runs import Episode

_EPISODE = Episode.of_config(complete_recorded_config({}), "polaris")  # no site


def _columns_brute(x, columns, lo, hi):
    """Column of each sample, one sample at a time (the documented rule)."""
    out = []
    for xi in x:
        j = math.floor((xi - lo) / (hi - lo) * columns)
        out.append(min(max(j, 0), columns - 1))
    return np.array(out)


def _series(rng, n):
    """Uneven time steps, a random walk with single-sample spikes and NaN gaps."""
    t = np.cumsum(rng.choice([1 / 120, 1 / 60, 0.25], size=n, p=[0.7, 0.29, 0.01]))
    y = np.cumsum(rng.normal(size=n))
    spikes = rng.choice(n, size=25, replace=False)
    y[spikes] += rng.choice([-1, 1], size=25) * 500.0
    gaps = rng.choice(n - 40, size=6, replace=False)
    for g in gaps:
        y[g : g + rng.integers(1, 40)] = np.nan
    return t, y


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("columns", [37, 500])
def test_each_column_keeps_its_first_last_min_max_and_gap(seed, columns):
    rng = np.random.default_rng(seed)
    n = 20_000
    t, y = _series(rng, n)
    kept = column_extremes(t, y, columns)
    assert np.all(np.diff(kept) > 0)  # sorted, unique
    assert kept.size <= 5 * columns
    col = _columns_brute(t, columns, t[0], t[-1])
    for j in np.unique(col):
        members = np.flatnonzero(col == j)
        mine = kept[col[kept] == j]
        assert members[0] in mine and members[-1] in mine
        finite = members[np.isfinite(y[members])]
        if finite.size:
            values = y[mine][np.isfinite(y[mine])]
            assert values.min() == y[finite].min()
            assert values.max() == y[finite].max()
        if not np.isfinite(y[members]).all():
            assert not np.isfinite(y[mine]).all()  # the gap stays a gap


def test_every_single_sample_spike_is_drawn():
    t = np.arange(432_000) / 120.0  # an hour of IMU samples
    y = np.random.default_rng(3).normal(scale=0.01, size=t.size) + 9.8
    spikes = np.arange(1000, t.size, 4321)  # one per column or fewer
    y[spikes] += np.where(spikes % 2 == 0, 5.0, -5.0)
    kept = column_extremes(t, y, 2000)
    assert kept.size <= 4 * 2000
    assert np.isin(spikes, kept).all()


def test_several_series_keep_each_ones_extremes_and_the_union_is_sorted():
    rng = np.random.default_rng(7)
    t = np.arange(50_000) / 120.0
    y = rng.normal(size=(50_000, 3))
    cols = PixelColumns(t, 200)
    both = cols.extremes(y[:, 0], y[:, 1:])
    for i in range(3):
        alone = cols.extremes(y[:, i])
        assert np.isin(alone, both).all()
    assert np.all(np.diff(both) > 0)


def test_an_explicit_range_puts_outside_samples_in_the_edge_columns():
    t = np.linspace(-10.0, 110.0, 10_001)
    y = np.sin(t)
    y[0], y[-1] = 50.0, -50.0
    kept = column_extremes(t, y, 100, x_range=(0.0, 100.0))
    assert kept[0] == 0 and kept[-1] == t.size - 1
    assert y[kept].max() == 50.0 and y[kept].min() == -50.0


def test_few_samples_are_returned_whole():
    t = np.arange(100.0)
    assert np.array_equal(column_extremes(t, t * t, 25), np.arange(100))


def test_a_constant_time_axis_is_one_column():
    t = np.zeros(1000)
    y = np.arange(1000.0)
    kept = column_extremes(t, y, 10)
    assert set(kept) == {0, 999}


def test_mismatched_lengths_are_refused():
    with pytest.raises(ValueError):
        column_extremes(np.arange(10.0), np.arange(11.0), 1)


def test_the_report_figures_draw_the_extremes_of_an_hours_imu_and_ins(monkeypatch):
    """imu_figure and ins_error_figure on an hour of synthetic rows: every line is decimated,
    keeps every spike and the data's range, and the PNG is still written."""
    pytest.importorskip("matplotlib")
    from pathlib import Path

    from navsense.runs import report_plots
    from navsense.runs.report import RunData

    rng = np.random.default_rng(11)
    n = 432_000
    t = np.arange(n) / 120.0
    f = rng.normal(scale=0.02, size=(n, 3)) + [0.0, 0.0, 9.8]
    w = rng.normal(scale=0.001, size=(n, 3))
    spikes = np.arange(777, n, 5003)
    f[spikes, 0] += 3.0
    w[spikes, 2] -= 0.5
    m = 360_000
    err = np.cumsum(rng.normal(scale=1e-4, size=(m, 3)), axis=0)
    err[100_000:100_500] = np.nan  # a gap
    data = RunData(run_dir=Path("."), episode=_EPISODE)
    data.imu_t_s, data.imu_specific_force_flu_mps2, data.imu_angular_velocity_flu_radps = t, f, w
    data.ins_t_s = np.arange(m) / 100.0
    data.ins_error_enu_m = err
    data.ins_sigma_enu_m = np.full((m, 3), 0.01)

    drawn = []
    png = report_plots._png
    monkeypatch.setattr(report_plots, "_png", lambda fig, *a: (drawn.append(fig), png(fig, *a))[1])
    imu = report_plots.imu_figure(data)
    ins = report_plots.ins_error_figure(data)
    assert imu.png.startswith(b"\x89PNG") and ins.png.startswith(b"\x89PNG")
    ax_h, ax_u, ax_w = drawn[0].axes
    expected = [f[:, 0], f[:, 1], f[:, 2], w[:, 0], w[:, 1], w[:, 2]]
    for ln, y in zip([*ax_h.lines, *ax_u.lines, *ax_w.lines], expected, strict=True):
        yd = np.asarray(ln.get_ydata())
        assert yd.size < n / 20
        assert yd.min() == y.min() and yd.max() == y.max()
    for ln in (ax_h.lines[0], ax_w.lines[2]):  # forward force and up rate: every spike drawn
        assert np.isin(t[spikes], np.asarray(ln.get_xdata())).all()
    ins_lines = [ln for ax in drawn[1].axes for ln in ax.lines]
    for ln, y in zip(ins_lines, (err[:, 0], err[:, 1], err[:, 2])):
        yd = np.asarray(ln.get_ydata())
        assert yd.size < m / 20
        assert np.nanmin(yd) == np.nanmin(y) and np.nanmax(yd) == np.nanmax(y)
        assert np.isnan(yd).any()  # the gap is drawn as a gap


def test_the_track_draws_an_hours_laps_as_few_points_and_keeps_an_excursion(monkeypatch):
    """Six laps of a 150 m circle at 100 Hz with one 40 m excursion: the drawn truth path has a
    small fraction of the points, all of them points of the path, and reaches the excursion's
    tip."""
    pytest.importorskip("matplotlib")
    from pathlib import Path

    from navsense.runs import report_plots
    from navsense.runs.report import RunData

    m = 360_000
    a = np.linspace(0.0, 12 * np.pi, m)
    truth = np.column_stack([150 * np.cos(a), 150 * np.sin(a), np.zeros(m)])
    tip = 200_000
    bump = np.exp(-0.5 * ((np.arange(m) - tip) / 30.0) ** 2) * 40.0
    truth[:, 0] += bump * np.cos(a)
    truth[:, 1] += bump * np.sin(a)
    data = RunData(run_dir=Path("."), episode=_EPISODE)
    data.ins_t_s = np.arange(m) / 100.0
    data.ins_truth_enu_m = truth
    data.ins_position_enu_m = truth + 0.01
    drawn = []
    png = report_plots._png
    monkeypatch.setattr(report_plots, "_png", lambda fig, *a: (drawn.append(fig), png(fig, *a))[1])
    report_plots.track_figure(data)
    ax = drawn[0].axes[0]
    line = next(ln for ln in ax.lines if ln.get_label() == "truth (INS point)")
    xy = np.column_stack([line.get_xdata(), line.get_ydata()])
    assert len(xy) < m / 100
    r = np.hypot(xy[:, 0], xy[:, 1])
    assert r.max() == pytest.approx(np.hypot(*truth[tip, :2]), abs=0.1)  # the tip is drawn
    # every drawn point is a point of the path (to a micrometre: scaled to pixels and back)
    on_path = {tuple(p) for p in np.round(truth[:, :2], 6)}
    assert all(tuple(p) in on_path for p in np.round(xy, 6))


def test_parallel_and_serial_figures_are_the_same_pngs(monkeypatch):
    pytest.importorskip("matplotlib")
    from pathlib import Path

    from navsense._runtime import machine, worker
    from navsense.runs import report_plots
    from navsense.runs.report import RunData

    monkeypatch.setattr(machine, "available_cores", lambda: 2)
    monkeypatch.setattr(worker, "fork_safe", worker.fork_available)
    rng = np.random.default_rng(5)
    n = 20_000
    data = RunData(run_dir=Path("."), episode=_EPISODE)
    data.imu_t_s = np.arange(n) / 120.0
    data.imu_specific_force_flu_mps2 = rng.normal(size=(n, 3))
    data.imu_angular_velocity_flu_radps = rng.normal(size=(n, 3))
    data.ins_t_s = np.arange(n) / 100.0
    data.ins_truth_enu_m = np.cumsum(rng.normal(size=(n, 3)), axis=0)
    data.ins_position_enu_m = data.ins_truth_enu_m + 0.01
    data.ins_error_enu_m = rng.normal(size=(n, 3)) * 0.01
    data.ins_sigma_enu_m = np.full((n, 3), 0.01)
    serial = report_plots.all_figures(data, parallel=False)
    parallel = report_plots.all_figures(data, parallel=True)
    assert [f.filename for f in serial] == ["track.png", "ins_error.png", "imu.png"]
    assert [(f.filename, f.png) for f in parallel] == [(f.filename, f.png) for f in serial]


def _extremes_every_pass(cols, *series):
    """PixelColumns.extremes as first written (every column's extremes gathered per sample,
    NaN replaced in every series): the reference of the faster one."""
    from navsense.output.decimate import _first_per_segment, _sorted_unique

    n = cols.n
    if cols.whole:
        return np.arange(n)
    seg, starts = cols.seg, cols.starts
    keep = [starts, cols.ends]
    for s in series:
        for v in np.asarray(s, dtype=np.float64).reshape(n, -1).T:
            finite = np.isfinite(v)
            low = np.minimum.reduceat(np.where(finite, v, np.inf), starts)
            high = np.maximum.reduceat(np.where(finite, v, -np.inf), starts)
            keep.append(_first_per_segment(np.flatnonzero(finite & (v == low[seg])), seg))
            keep.append(_first_per_segment(np.flatnonzero(finite & (v == high[seg])), seg))
            if not finite.all():
                keep.append(_first_per_segment(np.flatnonzero(~finite), seg))
    return _sorted_unique(n, keep)


@pytest.mark.parametrize("seed", range(6))
def test_extremes_are_the_reference_ones(seed):
    """The samples kept are those of the plain algorithm, for finite series, ties (integer
    counts), NaN gaps, all-NaN columns, infinities and (n, 3) arrays, uneven columns."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2_000, 30_000))
    t = np.cumsum(rng.uniform(0.001, 0.02, n))
    cols = PixelColumns(t, int(rng.integers(10, 400)))
    noise = rng.normal(size=(n, 3))
    counts = rng.integers(0, 12, n)  # many ties in a column
    gappy = rng.normal(size=n)
    gappy[rng.random(n) < 0.05] = np.nan
    gappy[n // 3 : n // 3 + n // 10] = np.nan  # whole columns without a value
    gappy[rng.integers(0, n, 5)] = np.inf
    gappy[rng.integers(0, n, 5)] = -np.inf
    for series in ([noise], [noise[:, 1]], [counts], [gappy], [noise, gappy, counts]):
        assert np.array_equal(cols.extremes(*series), _extremes_every_pass(cols, *series))
