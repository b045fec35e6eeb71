"""Tracks from recordings as they come (issue 18 item 1): noisy 1 Hz GPX of an ordinary drive
with stops, turns and a gap, against the known true motion (tests/synthetic_drives.py);
the smoothing spline, its GCV and standstills (navsense.truth.track_fit); the edges of issue 21.

The goal: with the noise of a phone or a consumer receiver (0.5 m horizontal, 1 m vertical, 1 Hz),
while moving above 2 m/s the along-track and lateral specific force within 0.5 m/s^2 RMS of the
true motion (2 m/s^2 at most) and the yaw rate within 0.05 rad/s RMS; while standing
|omega| <= 0.02 rad/s and the horizontal specific force <= 0.3 m/s^2; the vertical specific force
within 1 m/s^2 of the truth's (g on a level road).
"""

from __future__ import annotations

import json
import math
import re
import warnings

import numpy as np
import pytest

from navsense.cli import main
from navsense.errors import NavsenseError, NavsenseWarning, TruthError
from navsense.truth.hermite import QuinticHermite
from navsense.truth.spline_fit import _trace_inverse_product
from navsense.truth.track_fit import (
    SplineSmoother,
    fit_path,
    gcv_lambda,
)
from navsense.truth.tracks import build_truth_from_track, load_track, plan_track
from navsense.truth.waypoints import MAX_TRUTH_STEPS, build_from_waypoints
from navsense.vehicles import VEHICLES
from synthetic_drives import imu_errors, make_drive, ordinary_drive, record, write_gpx

mm = 1e-3
POLARIS = VEHICLES["polaris"]
TRUE_STOPS_S = ((0.0, 15.0), (63.0, 83.0), (123.0, 140.0))  # ordinary_drive()


def goal_holds(e: dict) -> None:
    assert e["along_rms"] <= 0.5 and e["along_max"] <= 2.0, e
    assert e["lateral_rms"] <= 0.5 and e["lateral_max"] <= 2.0, e
    assert e["yaw_rate_rms"] <= 0.05, e
    assert e["stopped_omega_max"] <= 0.02, e
    assert e["stopped_horizontal_max"] <= 0.3, e
    assert e["vertical_max"] <= 1.0, e


def build(path, **kwargs):
    """Trajectory and truth of a track file; any NavsenseWarning fails the test."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", NavsenseWarning)
        traj = plan_track(load_track(path), "polaris", **kwargs)
        return traj, traj.sample(120.0)


# ------------------------------------------------------------------ the goal, on recordings


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_noisy_1hz_gpx_of_an_ordinary_drive_gives_the_true_imu_readings(tmp_path, seed):
    drive = ordinary_drive()
    t, enu = record(drive, seed=seed)
    traj, truth = build(write_gpx(tmp_path / "drive.gpx", t, enu))
    assert traj.smoothing_method == "gcv"
    # the noise the fit implies is the recording's (0.5 m per axis)
    assert 0.35 < traj.noise_m < 0.65
    # the three stops are found within 1.5 sampling intervals of the true ones (the vehicle is
    # still within centimetres of the stop there)
    assert len(traj.standstills) == 3
    for (a, b), (ta, tb) in zip(traj.standstills, TRUE_STOPS_S):
        assert abs(a + t[0] - max(ta, t[0])) <= 1.5 and abs(b + t[0] - min(tb, t[-1])) <= 1.5
    goal_holds(imu_errors(drive, t[0], truth, POLARIS))


def test_noisy_recording_on_a_hill_gives_pitch_from_the_profile(tmp_path):
    """4 m of rise and fall every 500 m: pitch within 0.01 rad of the road's slope while moving,
    and the goal on the specific force (gravity's share included)."""
    drive = ordinary_drive(height=lambda s: 4.0 * np.sin(2 * np.pi * s / 500.0))
    t, enu = record(drive, seed=4)
    traj, truth = build(write_gpx(tmp_path / "hill.gpx", t, enu))
    ev = traj.evaluate(truth.t_s)
    moving = drive.at(truth.t_s + t[0], "speed_mps") > 2.0
    pitch_err = ev.pitch_rad - drive.at(truth.t_s + t[0], "pitch_rad")
    assert np.sqrt(np.mean(pitch_err[moving] ** 2)) < 0.01
    goal_holds(imu_errors(drive, t[0], truth, POLARIS))


def test_a_5_s_gap_in_the_recording(tmp_path):
    """Five seconds without points in the middle of the 90-degree turn, and in an S-curve."""
    drive = ordinary_drive()
    for gap in ((38.0, 43.0), (92.0, 97.0)):
        t, enu = record(drive, seed=5, gaps=(gap,))
        assert np.max(np.diff(t)) == pytest.approx(6.0)
        traj, truth = build(write_gpx(tmp_path / "gap.gpx", t, enu))
        goal_holds(imu_errors(drive, t[0], truth, POLARIS))


def test_a_clean_recording_is_passed_through(tmp_path):
    """No noise: GCV finds none, the path goes through every point (as --smoothing-m 0)."""
    drive = ordinary_drive()
    t, enu = record(drive, sigma_h_m=0.0, sigma_v_m=0.0)
    path = write_gpx(tmp_path / "clean.gpx", t, enu)
    traj, truth = build(path)
    assert traj.smoothing_method == "interpolation" and traj.smoothing_lambda is None
    assert np.max(np.abs(traj.evaluate(t - t[0]).footprint_m - enu)) < 2 * mm
    e = imu_errors(drive, t[0], truth, POLARIS)
    goal_holds(e)
    assert e["along_rms"] < 0.05 and e["lateral_rms"] < 0.05 and e["yaw_rate_rms"] < 0.01
    same = build_truth_from_track(load_track(path), "polaris", smoothing_m=0.0)
    np.testing.assert_array_equal(same.p_m, truth.p_m)


def test_standing_still_is_standing_still(tmp_path):
    """On a standstill the truth is exactly at rest: position, attitude held, no rates."""
    drive = ordinary_drive()
    t, enu = record(drive, seed=6)
    traj, truth = build(write_gpx(tmp_path / "drive.gpx", t, enu))
    for a, b in traj.standstills:
        rows = (truth.t_s >= a) & (truth.t_s <= b)
        assert np.count_nonzero(rows) > 120 * 10
        assert np.ptp(truth.p_m[rows], axis=0).max() < 1e-9
        assert np.ptp(truth.q_xyzw[rows], axis=0).max() < 1e-12
        assert np.max(np.abs(truth.v_mps[rows])) < 1e-9
        assert np.max(np.abs(truth.w_radps[rows])) < 1e-12
    # starts and stops are smooth: no step in speed, heading or rate at 120 Hz
    ev = traj.evaluate(truth.t_s)
    assert np.max(np.abs(np.diff(ev.speed_mps))) < 2.5 / 120 * 1.5
    assert np.max(np.abs(np.diff(ev.yaw_rad))) < 0.5 / 120
    assert np.max(np.abs(np.diff(ev.w_radps[:, 2]))) < 0.05


def test_pass_through_of_a_noisy_recording_warns_once_with_time_and_value(tmp_path):
    """--smoothing-m 0 on a noisy 1 Hz recording gives forces no land vehicle has: one warning
    naming the time and the value (the old behaviour of issue 18: 5 300 m/s^2, 78 rad/s)."""
    drive = ordinary_drive()
    t, enu = record(drive, seed=1)
    track = load_track(write_gpx(tmp_path / "drive.gpx", t, enu))
    with pytest.warns(NavsenseWarning) as caught:
        build_truth_from_track(track, "polaris", smoothing_m=0.0)
    assert len(caught) == 1
    text = str(caught[0].message)
    assert "drive.gpx: the truth implies more than a land vehicle can do" in text
    assert re.search(
        r"(m/s\^2 of horizontal acceleration|turn rate of [\d.]+ rad/s) at t = \d", text
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", NavsenseWarning)
        build_truth_from_track(track, "polaris")  # smoothed: no warning


def test_the_cli_prints_the_warning_as_one_line(tmp_path, capsys):
    drive = ordinary_drive()
    t, enu = record(drive, seed=1)
    path = write_gpx(tmp_path / "drive.gpx", t, enu)
    out = tmp_path / "truth.parquet"
    assert main(["truth", "--track", str(path), "--out", str(out), "--smoothing-m", "0"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("navsense: warning: ")
    out = tmp_path / "smoothed.parquet"
    assert main(["truth", "--track", str(path), "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    assert "smoothing (chosen from the data) residual" in captured.out
    assert "3 standstill(s)" in captured.out


# ------------------------------------------------------------------ the spline and its GCV


def test_the_smoothing_spline_is_scipys_at_a_given_lambda():
    """System (2) of track_fit against scipy.interpolate.make_smoothing_spline (same criterion,
    another basis and solver), on irregular times."""
    from scipy.interpolate import make_smoothing_spline

    rng = np.random.default_rng(1)
    x = np.cumsum(rng.uniform(0.5, 1.5, 120))
    y = 5 * np.sin(x / 5) + rng.normal(0, 0.3, x.size)
    smoother = SplineSmoother(x)
    tt = np.linspace(x[0], x[-1], 2001)
    for lam in (1e-3, 0.5, 30.0, 1e4):
        ours = smoother.ppoly(smoother.coefficients(y[:, None], lam / smoother.scale**3))
        np.testing.assert_allclose(
            ours(tt)[:, 0], make_smoothing_spline(x, y, lam=lam)(tt), atol=1e-9
        )


def test_gcv_chooses_scipys_lambda():
    """The plain GCV minimum (Hutchinson-de Hoog trace, golden section) is scipy's (its own
    GCV); with gamma = 1.4 the fit is smoother (fewer degrees of freedom)."""
    from scipy.interpolate import make_smoothing_spline

    rng = np.random.default_rng(2)
    x = np.cumsum(rng.uniform(0.8, 1.2, 300))
    y = 20 * np.sin(x / 10) + rng.normal(0, 0.5, x.size)
    smoother = SplineSmoother(x)
    lam, noise_free = gcv_lambda(smoother, y[:, None], gamma=1.0)
    assert not noise_free
    ours = smoother.ppoly(smoother.coefficients(y[:, None], lam))
    tt = np.linspace(x[0], x[-1], 3001)
    np.testing.assert_allclose(ours(tt)[:, 0], make_smoothing_spline(x, y)(tt), atol=3 * mm)
    assert smoother.edf(gcv_lambda(smoother, y[:, None], gamma=1.4)[0]) < smoother.edf(lam)


def test_the_trace_of_the_hat_matrix_is_the_dense_one():
    rng = np.random.default_rng(3)
    x = np.cumsum(rng.uniform(0.2, 2.0, 40))
    smoother = SplineSmoother(x, w=rng.uniform(0.5, 2.0, 40), flat=[(10, 15)])
    for lam in (1e-2, 1.0, 100.0):
        band = smoother._k_band + lam * smoother._omega_band
        m = band.shape[1]
        dense = np.zeros((m, m))
        k_dense = np.zeros((m, m))
        for d in range(4):
            idx = np.arange(m - d)
            dense[idx, idx + d] = dense[idx + d, idx] = band[3 - d, d:]
            k_dense[idx, idx + d] = k_dense[idx + d, idx] = smoother._k_band[3 - d, d:]
        expect = np.trace(np.linalg.solve(dense, k_dense))
        assert smoother.edf(lam) == pytest.approx(expect, rel=1e-10)
        assert _trace_inverse_product(smoother._factor(lam), smoother._k_band) == pytest.approx(
            expect, rel=1e-10
        )


def test_a_standstill_is_exactly_constant_and_the_path_c2_through_its_ends():
    rng = np.random.default_rng(4)
    x = np.arange(60.0)
    y = np.column_stack([np.cumsum(rng.normal(0, 1, 60)), rng.normal(0, 1, 60)])
    smoother = SplineSmoother(x, flat=[(20, 30)])
    pp = smoother.ppoly(smoother.coefficients(y, 2.0))
    inside = np.linspace(20, 30, 101)
    assert np.ptp(pp(inside), axis=0).max() < 1e-12
    for edge, side in ((20.0, -1e-9), (30.0, 1e-9)):
        np.testing.assert_allclose(pp(edge + side, 1), 0.0, atol=1e-8)
        np.testing.assert_allclose(pp(edge + side, 2), 0.0, atol=1e-6)


def test_quintic_hermite_reproduces_a_quintic():
    p = np.polynomial.Polynomial([0.3, -1.0, 0.5, 0.25, -0.125, 0.0625])
    nodes = np.array([0.0, 0.7, 1.1, 2.5, 3.0])
    table = QuinticHermite(nodes, p(nodes), p.deriv(1)(nodes), p.deriv(2)(nodes))
    x = np.linspace(0.0, 3.0, 301)
    f, df, d2f = table.derivatives(x)
    np.testing.assert_allclose(f, p(x), atol=1e-12)
    np.testing.assert_allclose(df, p.deriv(1)(x), atol=1e-11)
    np.testing.assert_allclose(d2f, p.deriv(2)(x), atol=1e-10)


# ------------------------------------------------------------------ the edges (issue 21)


def _csv(path, t, x, y=None):
    y = np.zeros_like(x) if y is None else y
    rows = zip(np.asarray(t, float), np.asarray(x, float), np.asarray(y, float))
    lines = ["t_s,x_m,y_m"] + [f"{float(a)!r},{float(b)!r},{float(c)!r}" for a, b, c in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_points_a_microsecond_apart_are_refused(tmp_path):
    t = [0.0, 1.0, 1.000001, 2.0, 3.0]
    path = _csv(tmp_path / "close.csv", t, [0.0, 1.0, 1.0, 2.0, 3.0])
    with pytest.raises(TruthError, match=r"close\.csv: line 4: time 1\.000001 s is 1e-06 s after"):
        load_track(path)


def test_a_speed_of_a_nanometre_a_second_is_a_vehicle_standing(tmp_path):
    t = np.arange(0.0, 60.0)
    path = _csv(tmp_path / "creep.csv", t, 1e-9 * t)
    for smoothing in (None, 0.0):
        traj, truth = build(path, smoothing_m=smoothing)
        assert np.max(np.abs(truth.w_radps)) < 1e-12
        assert np.max(np.abs(truth.v_mps)) < 1e-8
        assert traj.evaluate([30.0]).yaw_rad[0] == 0.0  # never moved: faces east


def test_a_ten_hour_stop_builds_and_a_year_long_track_is_refused(tmp_path):
    """A long dwell (36 000 points at rest between two drives) builds quickly; a last point a
    year later, or a planned route that waits 1e9 s, is refused before memory is taken."""
    rng = np.random.default_rng(7)
    drive_t = np.arange(0.0, 30.0)  # 300 m from rest to rest (1.6 m/s^2 at most)
    dwell_t = np.arange(30.0, 36_030.0)
    t = np.concatenate([drive_t, dwell_t, 36_030.0 + drive_t])
    leg = 150.0 * (1.0 - np.cos(np.pi * drive_t / 30.0))
    x = np.concatenate([leg, np.full(dwell_t.size, 300.0), 300.0 + leg])
    x = x + rng.normal(0, 0.5, t.size)
    track = load_track(_csv(tmp_path / "dwell.csv", t, x, rng.normal(0, 0.5, t.size)))
    traj = plan_track(track, "polaris")
    (stand,) = [s for s in traj.standstills if s[1] - s[0] > 30_000]
    assert stand[0] < 35 and stand[1] > 36_025
    truth = traj.sample(1.0)  # 36 060 rows
    rows = (truth.t_s > 40) & (truth.t_s < 36_000)
    assert np.max(np.abs(truth.w_radps[rows])) == 0.0
    path = _csv(tmp_path / "year.csv", [0.0, 1.0, 2.0, 31_536_000.0], [0.0, 1.0, 2.0, 3.0])
    with pytest.raises(TruthError, match=r"year\.csv: line 5: .* a track may last at most 86400"):
        load_track(path)
    points = [{"enu_m": [0, 0, 0]}, {"enu_m": [50, 0, 0], "speed_mps": 5}]
    with pytest.raises(TruthError, match=f"at most {MAX_TRUTH_STEPS}"):
        build_from_waypoints(points, "polaris", dwell_s=1e8)
    # a wait beyond a route's timeline (1e9 s) is named, not the leg after it (8c43826 blamed
    # points[1].speed_mps = 5 for the dwell's 1e9 s)
    with pytest.raises(TruthError, match=r"dwell_s = 1e\+09 puts the route at 1e\+09 s"):
        build_from_waypoints(points, "polaris", dwell_s=1e9)


@pytest.mark.parametrize("value", [1e-300, 1e300, 1000.0, -1.0, math.nan, math.inf])
def test_extreme_smoothing_is_refused_with_its_range(tmp_path, value):
    t = np.arange(0.0, 10.0)
    track = load_track(_csv(tmp_path / "t.csv", t, 3 * t))
    with pytest.raises(NavsenseError, match=r"smoothing_m = .* must be 0 .* or 0\.001 \.\. 100 m"):
        build_truth_from_track(track, "polaris", smoothing_m=value)


def test_smoothing_limits_fit_without_singular_systems(tmp_path):
    """The smallest and largest accepted sigma, and points 2 ms apart among 1 s ones (merged
    for the fit), fit without a LinAlgError."""
    rng = np.random.default_rng(8)
    t = np.sort(np.concatenate([np.arange(0.0, 100.0), [50.002, 70.003]]))
    x = 5 * t + rng.normal(0, 0.5, t.size)
    y = 20 * np.sin(t / 15) + rng.normal(0, 0.5, t.size)
    for smoothing in (None, 0.001, 100.0):
        fit = fit_path(t, np.column_stack([x, y]), smoothing, 0.2)
        assert np.all(np.isfinite(fit.path(t)))
    track = load_track(_csv(tmp_path / "t.csv", t, x, y))
    for smoothing in (None, 0.001, 100.0):
        truth = build_truth_from_track(track, "polaris", smoothing_m=smoothing)
        assert np.all(np.isfinite(truth.w_radps))


def test_a_waypoint_route_takes_no_smoothing_but_the_default(tmp_path):
    points = [{"enu_m": [0, 0, 0]}, {"enu_m": [50, 0, 0], "speed_mps": 5}]
    path = tmp_path / "route.json"
    path.write_text(json.dumps({"vehicle": "polaris", "points": points}))
    track = load_track(path)
    assert len(build_truth_from_track(track)) > 0  # smoothing_m None: nothing to smooth
    with pytest.raises(TruthError, match="waypoint route is planned"):
        build_truth_from_track(track, smoothing_m=0.5)


def test_a_drive_that_never_stops_has_no_standstill(tmp_path):
    drive = make_drive(60.0, [(-10.0, 1.0, 8.0)], [(10.0, 20.0, 0.1)])
    t, enu = record(drive, seed=9)
    traj, truth = build(write_gpx(tmp_path / "cruise.gpx", t, enu))
    assert traj.standstills == () and traj.stops == []
    e = imu_errors(drive, t[0], truth, POLARIS)
    assert e["along_rms"] <= 0.5 and e["lateral_rms"] <= 0.5 and e["yaw_rate_rms"] <= 0.05


def test_stop_edges_timed_between_the_points_get_knots_that_keep_stops_apart():
    """A standstill's edge time between two points becomes a knot of weight zero (the spline
    stands up to it); a departure and the next arrival timed closer than three knots would
    share a B-spline coefficient (one held position for both stops, the motion between them
    lost): both stay at their points."""
    from navsense.truth.track_fit import with_edge_knots

    x = np.arange(31.0)
    y = np.column_stack([x, -x])
    w = np.ones(31)
    flat = [(0, 10), (14, 30)]
    xa, ya, wa, fa = with_edge_knots(x, y, w, flat, [(0.0, 10.5), (13.5, 30.0)])
    assert fa == [(0, 11), (15, 32)] and xa[11] == 10.5 and xa[15] == 13.5
    assert wa[11] == wa[15] == 0.0 and np.all(wa[xa == np.round(xa)] == 1.0)
    np.testing.assert_allclose(ya[11], np.mean(y[0:11], axis=0))
    np.testing.assert_allclose(ya[15], np.mean(y[14:31], axis=0))
    xa, ya, wa, fa = with_edge_knots(x, y, w, flat, [(0.0, 11.8), (12.2, 30.0)])
    assert fa == flat and np.array_equal(xa, x)
    # within a tenth of the spacing of a point: that point, no knot
    xa, ya, wa, fa = with_edge_knots(x, y, w, flat, [(0.0, 11.03), (13.5, 30.0)])
    assert fa == [(0, 11), (14, 31)] and xa.size == 32 and xa[14] == 13.5
