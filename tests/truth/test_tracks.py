"""Recorded tracks (GPX, CSV, waypoint JSON) -> truth: the path, turn rate and centripetal
acceleration of a known circle, no spikes at the track points, stops and reversing, smoothing,
the coordinated bank, far-away sites through a full simulate run, and one-line errors.

Tolerances of the interpolating cubic spline: Hall & Meyer (1976), "Optimal error bounds for
cubic spline interpolation", J. Approx. Theory 16: for f in C4 and mesh width h (mesh ratio beta),
||(f - s)^(r)|| <= C_r ||f''''|| h^(4-r) with C_0 = 5/384, C_1 = 1/24, C_2 = 3/8 and
C_3 = (beta + 1/beta) / 2. For a circle of radius R at speed v, ||f''''|| = R w^4, w = v / R.
The bounds hold away from the ends (the not-a-knot end effect decays by 2 - sqrt(3) = 0.27 per
interval), so the checks skip the first and last three intervals.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
from pathlib import Path

import gpxpy
import gpxpy.gpx
import numpy as np
import pytest

from navsense.commands import truth as cli_truth
from navsense.config import load_config
from navsense.constants import GRAVITY_MPS2
from navsense.errors import NavsenseError, TruthError
from navsense.geo import Georeference
from navsense.geo.geoid import egm96_undulation_m
from navsense.rotation import quat_conjugate, quat_multiply, quat_to_matrix, rotate_inverse
from navsense.sensors.imu import imu_point_kinematics
from navsense.simulate import simulate
from navsense.site import site_from_json
from navsense.truth.io import read_truth, read_truth_metadata
from navsense.truth.track_kinematics import HEADING_BLEND_M
from navsense.truth.tracks import (
    ACRE_TILE_RADIUS_M,
    build_truth_from_track,
    load_track,
    plan_track,
)
from navsense.truth.waypoints import load_waypoints
from navsense.vehicles import VEHICLES

mm = 1e-3
um = 1e-6
REFERENCE = Path(__file__).resolve().parents[1] / "reference"
WAYPOINTS = Path(__file__).resolve().parents[2] / "src/navsense/scenarios/acre-loop.waypoints.json"

# the circle: radius, speed, gaps between points (a 0.1 s grid, so that 10 Hz GNSS epochs fall
# on the points), 60 points (about 1.7 laps)
R_M, V_MPS = 30.0, 5.0
W_RADPS = V_MPS / R_M
GAP_MIN_S, GAP_MAX_S = 0.5, 1.5
F4 = R_M * W_RADPS**4  # ||f''''||, m/s^4
BETA = GAP_MAX_S / GAP_MIN_S  # mesh ratio bound
POS_BOUND_M = 5 / 384 * F4 * GAP_MAX_S**4  # 1.5 mm
VEL_BOUND_MPS = 1 / 24 * F4 * GAP_MAX_S**3  # 3.3 mm/s
ACC_BOUND_MPS2 = 3 / 8 * F4 * GAP_MAX_S**2  # 19.5 mm/s^2
JERK_BOUND_MPS3 = 0.5 * (BETA + 1 / BETA) * F4 * GAP_MAX_S  # error of the spline's jerk
# turn rate psi' = (v x a)_z / |v|^2: its error from those of a and v
TURN_BOUND_RADPS = ACC_BOUND_MPS2 / V_MPS + (V_MPS**2 / R_M) * 2 * VEL_BOUND_MPS / V_MPS**2


def circle_times(seed: int = 7, n: int = 60) -> np.ndarray:
    gaps = np.random.default_rng(seed).integers(int(GAP_MIN_S * 10), int(GAP_MAX_S * 10) + 1, n)
    return np.round(np.concatenate([[0.0], np.cumsum(gaps / 10.0)]), 1)


def circle_enu(t: np.ndarray) -> np.ndarray:
    """Counter-clockwise circle through the ENU origin at t = 0 (centre (-R, 0)), gentle hill."""
    a = W_RADPS * t
    return np.column_stack([R_M * np.cos(a) - R_M, R_M * np.sin(a), 0.4 * np.sin(a)])


def write_gpx(path: Path, lat, lon, ele, t, start: dt.datetime) -> Path:
    gpx = gpxpy.gpx.GPX()
    trk = gpxpy.gpx.GPXTrack()
    gpx.tracks.append(trk)
    seg = gpxpy.gpx.GPXTrackSegment()
    trk.segments.append(seg)
    for i in range(len(t)):
        seg.points.append(
            gpxpy.gpx.GPXTrackPoint(
                float(lat[i]),
                float(lon[i]),
                elevation=float(ele[i]),
                time=start + dt.timedelta(seconds=float(t[i])),
            )
        )
    path.write_text(gpx.to_xml(), encoding="utf-8")
    return path


def write_csv(path: Path, header: str, rows) -> Path:
    lines = [header] + [
        ",".join(v if isinstance(v, str) else repr(float(v)) for v in row) for row in rows
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def geodetic_circle(lat0: float, lon0: float, h0: float, t: np.ndarray):
    """The circle as WGS84 points around a local origin at (lat0, lon0, h0)."""
    g = Georeference.local(lat0, lon0, h0).enu_to_geodetic(circle_enu(t), t)
    return g["wgs84_lat_deg"], g["wgs84_lon_deg"], g["wgs84_height_m"]


def above_geoid(lat, lon, h):
    """A GPX <ele>: the height above the geoid (EGM96 at a local site) of WGS84 heights h."""
    return h - egm96_undulation_m(lat, lon)


START = dt.datetime(2024, 5, 1, 10, 0, 0, 300000, tzinfo=dt.UTC)


@pytest.fixture(scope="module")
def circle_files(tmp_path_factory):
    """The circle as a GPX near Paris (written with gpxpy) and as an ENU CSV, same times."""
    folder = tmp_path_factory.mktemp("circle")
    t = circle_times()
    lat, lon, h = geodetic_circle(48.85, 2.35, 35.0, t)
    gpx = write_gpx(folder / "circle.gpx", lat, lon, above_geoid(lat, lon, h), t, START)
    enu = circle_enu(t)
    csv = write_csv(folder / "circle.csv", "x_m,y_m,z_m,t_s", np.column_stack([enu, t]))
    return {"gpx": gpx, "csv": csv, "t": t, "enu": enu}


# ------------------------------------------------------------------ the circle, recovered


@pytest.mark.parametrize("kind", ["gpx", "csv"])
def test_circle_recovers_path_turn_rate_and_centripetal_acceleration(circle_files, kind):
    track = load_track(circle_files[kind])
    t, enu = circle_files["t"], circle_files["enu"]
    np.testing.assert_allclose(track.t_s, t, atol=1e-9)
    np.testing.assert_allclose(track.enu_m, enu, atol=1 * um)  # local site at the first point
    traj = plan_track(track, "polaris", smoothing_m=0.0)  # pass-through

    # through the track points (to rounding)
    at_points = traj.evaluate(t)
    assert np.max(np.abs(at_points.footprint_m - enu)) < 1 * mm

    # between them, on the circle (interior, Hall & Meyer bounds)
    tt = np.linspace(t[3], t[-4], 4001)
    ev = traj.evaluate(tt)
    a = W_RADPS * tt
    truth_xy = np.column_stack([R_M * np.cos(a) - R_M, R_M * np.sin(a)])
    assert np.max(np.hypot(*(ev.footprint_m[:, :2] - truth_xy).T)) < POS_BOUND_M
    assert np.max(np.abs(ev.speed_mps - V_MPS)) < VEL_BOUND_MPS
    # turn rate: the world z angular velocity (pitch terms are 1e-4 of it on this gentle hill)
    assert np.max(np.abs(ev.w_radps[:, 2] - W_RADPS)) < TURN_BOUND_RADPS
    # centripetal acceleration of base_footprint: its horizontal acceleration across the track
    acc = ev.footprint_a_mps2
    vel = ev.footprint_v_mps
    centripetal = (vel[:, 0] * acc[:, 1] - vel[:, 1] * acc[:, 0]) / ev.speed_mps
    assert np.max(np.abs(centripetal - V_MPS**2 / R_M)) < ACC_BOUND_MPS2
    # heading along the velocity, continuous over 1.7 laps
    assert np.max(np.abs(ev.yaw_rad - (a + np.pi / 2))) < TURN_BOUND_RADPS * GAP_MAX_S
    assert np.all(np.diff(ev.yaw_rad) > 0)


def test_gpx_and_csv_of_the_same_circle_give_the_same_truth(circle_files):
    a = build_truth_from_track(load_track(circle_files["gpx"]), "polaris")
    b = build_truth_from_track(load_track(circle_files["csv"]), "polaris")
    assert len(a) == len(b) == math.floor(circle_files["t"][-1] * 120 + 1e-9) + 1
    assert a.step0 == 0 and a.rate_hz == 120.0
    np.testing.assert_allclose(a.p_m, b.p_m, atol=1 * um)
    np.testing.assert_allclose(a.w_radps, b.w_radps, atol=1e-7)


# ------------------------------------------------------------------ no spikes at the points


@pytest.mark.parametrize("bank", ["none", "coordinated"])
def test_no_spikes_in_specific_force_or_angular_velocity_at_the_track_points(circle_files, bank):
    """The IMU's truth terms (finite differences of the IMU-point velocity, as the IMU model
    computes them) at 120 Hz have no spikes at the track points.

    Derivation: F'' is continuous and piecewise linear; omega = psi' z is continuous, its
    derivative psi'' ~ F'''_perp / v steps at the points by at most 2 JERK_BOUND / v (the true
    jerk is continuous). A point at lever arm r (the chassis origin: |r| = 1.02 m from
    base_footprint) has acceleration steps <= |r| 2 JERK_BOUND / v; a sampled step gives a
    second difference of at most its size, plus the smooth part jerk * dt. The rate's second
    difference is at most dt * 2 JERK_BOUND / v (a kink). A finite-difference artefact (a spike)
    would be of the order of the acceleration itself, v^2 / R = 0.83 m/s^2.
    """
    truth = build_truth_from_track(load_track(circle_files["csv"]), "polaris", bank=bank)
    z3 = np.zeros(3)
    kin = imu_point_kinematics(truth, np.zeros(3), -1, z3, z3, z3)
    f, w = kin.f_b[2:], kin.w_b[2:]
    d2f = np.abs(f[2:] - 2 * f[1:-1] + f[:-2])
    d2w = np.abs(w[2:] - 2 * w[1:-1] + w[:-2])
    dt_s = 1 / 120
    lever_m = float(np.linalg.norm(VEHICLES["polaris"].footprint_in_chassis_m))
    step_jump = 2 * JERK_BOUND_MPS3 / V_MPS  # jump of psi'', rad/s^2
    jerk = V_MPS**3 / R_M**2 + JERK_BOUND_MPS3
    f_bound = lever_m * step_jump + jerk * dt_s
    w_bound = dt_s * step_jump + 1e-6
    assert f_bound < 0.05 * V_MPS**2 / R_M  # the bound is no spike
    assert np.max(d2f) < f_bound, np.max(d2f, axis=0)
    assert np.max(d2w) < w_bound, np.max(d2w, axis=0)


def test_velocity_and_angular_velocity_are_the_derivatives_of_pose(circle_files):
    """v = dp/dt (trapezoid integral) and omega = the quaternion's rate, with the bank's roll."""
    truth = build_truth_from_track(load_track(circle_files["csv"]), "polaris", bank="coordinated")
    dt_s = 1 / truth.rate_hz
    p = truth.p_m[0] + np.concatenate(
        [np.zeros((1, 3)), np.cumsum(0.5 * (truth.v_mps[1:] + truth.v_mps[:-1]) * dt_s, axis=0)]
    )
    assert np.max(np.abs(p - truth.p_m)) < 1 * mm
    q = truth.q_xyzw
    dq = quat_multiply(q[2:], quat_conjugate(q[:-2]))  # rotation over 2 dt, world
    rotvec = 2 * dq[:, :3] * np.sign(dq[:, 3:])
    np.testing.assert_allclose(rotvec / (2 * dt_s), truth.w_radps[1:-1], atol=2e-5)
    # the chassis origin is R r_f from base_footprint, R of the (banked) quaternion
    ev = plan_track(load_track(circle_files["csv"]), "polaris", bank="coordinated").evaluate(
        truth.t_s
    )
    r_f = -VEHICLES["polaris"].footprint_in_chassis_m
    lever = np.einsum("nij,j->ni", quat_to_matrix(q), r_f)
    np.testing.assert_allclose(truth.p_m - ev.footprint_m, lever, atol=1e-12)
    roll = np.arctan2(
        2 * (q[:, 3] * q[:, 0] + q[:, 1] * q[:, 2]), 1 - 2 * (q[:, 0] ** 2 + q[:, 1] ** 2)
    )
    assert np.mean(roll) < -0.08  # banked into the left turn


def test_coordinated_bank_leaves_no_lateral_specific_force_at_the_footprint(circle_files):
    traj = plan_track(load_track(circle_files["csv"]), "polaris", bank="coordinated")
    t = circle_files["t"]
    tt = np.linspace(t[3], t[-4], 2001)
    ev = traj.evaluate(tt)
    f = rotate_inverse(quat_to_matrix(ev.q_xyzw), ev.footprint_a_mps2 + [0, 0, GRAVITY_MPS2])
    # exactly coordinated at the points; between them the roll spline's O(h^2) error
    assert np.max(np.abs(f[:, 1])) < 0.02 * V_MPS**2 / R_M
    on = traj.evaluate(t[3:-3])
    f_on = rotate_inverse(quat_to_matrix(on.q_xyzw), on.footprint_a_mps2 + [0, 0, GRAVITY_MPS2])
    assert np.max(np.abs(f_on[:, 1])) < 1e-9
    np.testing.assert_allclose(
        ev.roll_rad, -math.atan(V_MPS**2 / R_M / GRAVITY_MPS2), atol=ACC_BOUND_MPS2 / GRAVITY_MPS2
    )


# ------------------------------------------------------------------ smoothing


def test_smoothing_leaves_the_stated_noise_and_recovers_the_circle(tmp_path):
    """smoothing_m = sigma: the RMS horizontal residual per axis equals sigma, and the path
    and turn rate are closer to the circle than the noisy points are."""
    sigma = 0.3
    t = circle_times(seed=11, n=120)
    noisy = circle_enu(t) + np.random.default_rng(5).normal(0.0, sigma, (len(t), 3))
    track = load_track(
        write_csv(tmp_path / "noisy.csv", "t_s,x_m,y_m,z_m", np.column_stack([t, noisy]))
    )
    traj = plan_track(track, "polaris", smoothing_m=sigma)
    assert traj.smoothing_lambda is not None
    assert traj.residual_rms_m == pytest.approx(sigma, rel=1e-3)
    tt = np.linspace(t[5], t[-6], 3001)
    ev = traj.evaluate(tt)
    err = ev.footprint_m[:, :2] - circle_enu(tt)[:, :2]
    # Morozov's principle errs towards smoothing (the residual also holds the bias): the circle
    # is pulled in by 0.1 .. 0.2 m here, still well inside the noise
    assert np.sqrt(np.mean(np.sum(err**2, axis=1) / 2)) < 0.75 * sigma
    raw = plan_track(track, "polaris", smoothing_m=0.0).evaluate(tt)  # through the noisy points
    assert np.std(ev.w_radps[:, 2] - W_RADPS) < 0.2 * np.std(raw.w_radps[:, 2] - W_RADPS)
    assert np.max(np.abs(ev.w_radps[:, 2] - W_RADPS)) < 0.05


# ------------------------------------------------------------------ stops and reversing


def _stop_and_go(tmp_path, turn_deg: float) -> Path:
    """East at 5 m/s, a smooth stop (10..15 s), 5 s at rest, then off at turn_deg from east at
    up to 2 m/s; points every 0.3..0.7 s."""
    tt = np.linspace(0.0, 40.0, 40001)

    def ramp(t, t0, t1, v0, v1):
        x = np.clip((t - t0) / (t1 - t0), 0, 1)
        return v0 + (v1 - v0) * x * x * (3 - 2 * x)

    v_in = ramp(tt, 10, 15, 5, 0)
    v_out = ramp(tt, 20, 23, 0, 2)
    s_in = np.concatenate([[0], np.cumsum(0.5 * (v_in[1:] + v_in[:-1]) * np.diff(tt))])
    s_out = np.concatenate([[0], np.cumsum(0.5 * (v_out[1:] + v_out[:-1]) * np.diff(tt))])
    d = np.radians(turn_deg)
    x = s_in + s_out * math.cos(d)
    y = s_out * math.sin(d)
    t = np.concatenate([[0], np.cumsum(np.random.default_rng(3).uniform(0.3, 0.7, 120))])
    t = t[t < 40]
    return write_csv(
        tmp_path / f"stop_{turn_deg:g}.csv",
        "x_m,y_m,t_s",
        np.column_stack([np.interp(t, tt, x), np.interp(t, tt, y), t]),
    )


def test_a_stop_keeps_the_heading_and_moving_off_backwards_is_reversing(tmp_path):
    traj = plan_track(load_track(_stop_and_go(tmp_path, 180.0)), "polaris")
    ((rest_start, rest_end),) = traj.stops
    assert 12 < rest_start < 15 and 20 < rest_end < 22
    ev = traj.evaluate(np.arange(len(traj.sample(120.0))) / 120.0)
    np.testing.assert_allclose(ev.yaw_rad, 0.0, atol=1e-9)  # facing east throughout
    assert np.max(np.abs(ev.w_radps)) < 1e-9
    assert set(ev.gear[ev.t_s < rest_start]) == {1} and set(ev.gear[ev.t_s > rest_end]) == {-1}
    assert np.all(ev.v_mps[ev.t_s > 25, 0] < -1.9)  # backing west


def test_heading_is_continuous_and_the_rate_bounded_through_a_stop_and_turn(tmp_path):
    """Off at 90 degrees after the stop: the heading turns within the departure blend; the rate
    stays within the documented bound |F''| / v_lo + 1.875 v |dpsi| / blend (and within the
    looser one of the speed blend it replaced)."""
    traj = plan_track(load_track(_stop_and_go(tmp_path, 90.0)), "polaris")
    t = np.arange(0.0, traj.end_s, 1 / 120)
    ev = traj.evaluate(t)
    rest = (t > traj.stops[0][0]) & (t < traj.stops[0][1])
    np.testing.assert_allclose(ev.yaw_rad[rest], 0.0, atol=1e-6)
    assert ev.yaw_rad[-1] == pytest.approx(np.pi / 2, abs=1e-3)
    assert np.max(np.abs(np.diff(ev.yaw_rad))) < 0.1  # continuous at 120 Hz
    acc = np.max(np.linalg.norm(ev.footprint_a_mps2, axis=1))
    bound = acc / 0.2 + 1.875 * acc * (np.pi / 2) / 0.2
    assert np.max(np.abs(ev.w_radps)) < bound
    blend_bound = acc / 0.2 + 1.875 * np.max(ev.speed_mps) * (np.pi / 2) / HEADING_BLEND_M
    assert np.max(np.abs(ev.w_radps)) < blend_bound
    # the angular velocity is the heading's derivative through the blend (trapezoid integral)
    yaw = ev.yaw_rad[0] + np.concatenate(
        [[0.0], np.cumsum(0.5 * (ev.w_radps[1:, 2] + ev.w_radps[:-1, 2]) / 120)]
    )
    assert np.max(np.abs(yaw - ev.yaw_rad)) < 2e-3


# ------------------------------------------------------------------ sites and simulate


@pytest.mark.parametrize(
    "lat0, lon0, h0", [(48.85, 2.35, 35.0), (-33.86, 151.21, 12.0)], ids=["paris", "sydney"]
)
def test_far_from_acre_builds_on_a_local_site_and_gnss_comes_back_on_the_track(
    tmp_path, lat0, lon0, h0
):
    t = circle_times(seed=13, n=30)
    lat, lon, h = geodetic_circle(lat0, lon0, h0, t)
    track = load_track(
        write_gpx(tmp_path / "far.gpx", lat, lon, above_geoid(lat, lon, h), t, START)
    )
    geo = track.site.georeference
    assert geo["kind"] == "local"
    assert (geo["lat_deg"], geo["lon_deg"]) == pytest.approx((lat[0], lon[0]), abs=1e-12)
    assert track.start_utc == "2024-05-01T10:00:00.300000Z" and track.start_recorded
    truth = build_truth_from_track(track, "polaris")
    site = site_from_json({"name": "local", "georeference": dict(geo)})
    cfg = load_config(
        None,
        None,
        vehicle="polaris",
        overrides={
            "noise": False,
            "mount_frame": "base_footprint",
            "gnss.antenna_flu_m": [0, 0, 0],
            "imu.enabled": False,
            "ins.enabled": False,
            "gnss.datum.start_utc": track.start_utc,
        },
    )
    run = tmp_path / "run"
    simulate(truth, cfg, VEHICLES["polaris"], site, run)
    rows = [json.loads(line) for line in (run / "gnss.jsonl").read_text().splitlines()]
    by_time = {round(r["sample_time_s"], 6): r for r in rows}
    got = [by_time[round(float(ti), 6)] for ti in t]  # epochs on the points
    assert all(r["fix_type"] != "no_fix" for r in got)
    m_per_deg = 6_371_000 * math.pi / 180
    dn = (np.array([r["wgs84_lat_deg"] for r in got]) - lat) * m_per_deg
    de = (
        (np.array([r["wgs84_lon_deg"] for r in got]) - lon)
        * m_per_deg
        * math.cos(math.radians(lat0))
    )
    dh = np.array([r["wgs84_height_m"] for r in got]) - h
    assert np.max(np.abs(dn)) < 1 * mm and np.max(np.abs(de)) < 1 * mm
    assert np.max(np.abs(dh)) < 1 * mm
    gga = (run / "gnss.nmea").read_text().splitlines()[0].split(",")
    assert gga[1] == "100000.30"  # the recorded UTC
    assert json.loads((run / "episode.json").read_text())["start_utc"] == track.start_utc


def test_track_on_the_acre_tile_uses_the_acre_site_and_its_geoid(tmp_path):
    """The CSV fixture (alt_m = NAVD88) comes back on its grid ENU reference points."""
    track = load_track(REFERENCE / "track_acre_field.csv")
    assert track.site.name == "acre" and track.kind == "csv"
    assert track.start_utc == "2025-06-12T14:05:00Z"
    lines = [
        line
        for line in (REFERENCE / "track_acre_field.csv").read_text().splitlines()
        if line and not line.startswith("#")
    ][1:]
    ref = np.array([[float(v) for v in line.split(",")[5:8]] for line in lines])
    # lat/lon rounded to 1e-10 deg (0.01 mm), heights to 0.1 mm in the fixture
    np.testing.assert_allclose(track.enu_m, ref, atol=0.2 * mm)
    alt = np.array([float(line.split(",")[3]) for line in lines])
    geo = Georeference.acre(start_utc=track.start_utc)
    np.testing.assert_allclose(
        geo.enu_to_geodetic(track.enu_m, track.t_s)["navd88_height_m"], alt, atol=1 * um
    )
    # WGS84 height = NAVD88 + GEOID12B (-33.6 m) + NAD83(2011) -> WGS84 (-1.1 m here)
    assert np.all((track.height_m - alt > -35.5) & (track.height_m - alt < -34.0))


def test_a_named_site_wins_and_far_points_cannot_go_on_acre(tmp_path):
    t = circle_times(n=10)
    lat, lon, h = geodetic_circle(48.85, 2.35, 35.0, t)
    path = write_gpx(tmp_path / "paris.gpx", lat, lon, above_geoid(lat, lon, h), t, START)
    with pytest.raises(TruthError, match=r"paris\.gpx: cannot place the track on site 'acre'"):
        load_track(path, site="acre")
    mine = site_from_json(
        {
            "name": "mine",
            "georeference": {"kind": "local", "lat_deg": 48.85, "lon_deg": 2.35, "height_m": 0.0},
        }
    )
    track = load_track(path, site=mine)
    assert track.site is mine and np.hypot(*track.enu_m[0, :2]) < 100
    assert ACRE_TILE_RADIUS_M == 5000.0


def test_gpx_reference_fixture_with_namespace_segments_and_extensions():
    track = load_track(REFERENCE / "track_paris_loop.gpx")
    assert len(track) == 24 and track.site.georeference["kind"] == "local"
    assert track.start_utc == "2013-05-09T11:24:28.776000Z"
    assert track.labels[12].startswith("line ") and track.labels[12].endswith("trkpt[12]")
    w = 2 * np.pi / 30
    t = track.t_s
    expect = np.column_stack([40 * np.sin(w * t), 25 * (1 - np.cos(w * t)), 0.8 * np.sin(w * t)])
    np.testing.assert_allclose(track.enu_m, expect, atol=1 * mm)  # 1e-9 deg, 1 mm ele
    truth = build_truth_from_track(track, "maxxum", smoothing_m=0.0)
    assert len(truth) == math.floor(27.2 * 120 + 1e-9) + 1


def test_relative_times_take_the_given_start_utc(tmp_path):
    t = circle_times(n=8)
    lat, lon, h = geodetic_circle(48.85, 2.35, 35.0, t)
    path = write_csv(
        tmp_path / "rel.csv",
        "lat_deg,lon_deg,height_m,t_s",
        np.column_stack([lat, lon, h, t + 100.0]),
    )
    track = load_track(path, start_utc="2024-07-01T08:00:00Z")
    assert track.start_utc == "2024-07-01T08:00:00Z" and not track.start_recorded
    assert track.t_s[0] == 0.0 and track.t_s[-1] == pytest.approx(t[-1])
    assert load_track(path).start_utc is None  # local site: no epoch needed


def test_waypoint_json_builds_the_planned_route():
    track = load_track(WAYPOINTS)
    assert track.kind == "waypoints" and track.site.name == "acre"
    truth = build_truth_from_track(track, "polaris")
    expect = load_waypoints(WAYPOINTS).plan("polaris").sample(120.0)
    np.testing.assert_array_equal(truth.p_m, expect.p_m)
    with pytest.raises(TruthError, match="waypoint route is planned"):
        build_truth_from_track(track, "polaris", smoothing_m=1.0)


def test_cli_truth_writes_the_log_and_the_local_site(tmp_path, circle_files, capsys):
    parser = argparse.ArgumentParser(prog="navsense")
    cli_truth.add_parser(parser.add_subparsers(dest="command"))
    out = tmp_path / "truth.parquet"
    args = parser.parse_args(
        [
            "truth",
            "--track",
            str(circle_files["gpx"]),
            "--out",
            str(out),
            "--bank",
            "coordinated",
            "--vehicle",
            "maxxum",
        ]
    )
    assert args.func(args) == 0
    truth = read_truth(out)
    assert len(truth) == math.floor(circle_files["t"][-1] * 120 + 1e-9) + 1
    # the log carries its site and start time (issue 18 item 2): no file beside it
    meta = read_truth_metadata(out)
    assert meta.site is not None and meta.site.georeference["kind"] == "local"
    assert meta.start_utc == "2024-05-01T10:00:00.300000Z"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("truth")) == [
        "truth.parquet"
    ]
    text = capsys.readouterr().out
    assert "local site at 48.85" in text and "start_utc 2024-05-01T10:00:00.300000Z" in text


# ------------------------------------------------------------------ bad tracks

GPX_HEAD = '<?xml version="1.0"?>\n<gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1">'


def _gpx(points: str) -> str:
    return f"{GPX_HEAD}\n<trk><trkseg>\n{points}\n</trkseg></trk>\n</gpx>\n"


def _pt(lat="48.85", lon="2.35", time="2024-05-01T10:00:0{}Z", i=0, ele="35"):
    t = f"<time>{time.format(i)}</time>" if time else ""
    e = f"<ele>{ele}</ele>" if ele is not None else ""
    return f'<trkpt lat="{lat}" lon="{lon}">{e}{t}</trkpt>'


def _good(i):
    return _pt(lat=f"{48.85 + 1e-5 * i}", i=i)


BAD = {
    "gpx no time": (
        "t.gpx",
        _gpx("\n".join([_good(0), _good(1), _pt(lat="48.86", time=None), _good(3)])),
        r"t\.gpx: line 6, trkpt\[2\]: no <time>",
    ),
    "gpx bad time": (
        "t.gpx",
        _gpx("\n".join([_good(0), _pt(time="yesterday"), _good(2), _good(3)])),
        r"t\.gpx: line 5, trkpt\[1\]: <time> 'yesterday' is not an ISO 8601",
    ),
    # a leap second was 'not an ISO 8601 time', which it is (the fuzz helper's note)
    "gpx leap second": (
        "t.gpx",
        _gpx("\n".join([_good(0), _pt(time="2016-12-31T23:59:60Z"), _good(2), _good(3)])),
        r"t\.gpx: line 5, trkpt\[1\]: <time> '2016-12-31T23:59:60Z' is a leap second "
        r"\(second 60\), which navsense's UTC times \(without leap seconds, as POSIX\) cannot "
        r"hold; leave the point out",
    ),
    "csv leap second": (
        "t.csv",
        "time,lat_deg,lon_deg\n2016-12-31T23:59:59Z,48.85,2.35\n"
        "2016-12-31T23:59:60.5Z,48.86,2.35\n",
        r"t\.csv: line 3: time = '2016-12-31T23:59:60\.5Z' is a leap second \(second 60\)",
    ),
    "gpx duplicate time": (
        "t.gpx",
        _gpx("\n".join([_good(0), _good(1), _pt(lat="48.9", i=1), _good(3)])),
        r"t\.gpx: line 6, trkpt\[2\]: time 2024-05-01T10:00:01Z repeats",
    ),
    "gpx backwards": (
        "t.gpx",
        _gpx("\n".join([_good(0), _good(2), _pt(lat="48.9", i=1), _good(3)])),
        r"t\.gpx: line 6, trkpt\[2\]: time 2024-05-01T10:00:01Z is before",
    ),
    "gpx three points": (
        "t.gpx",
        _gpx("\n".join(_good(i) for i in range(3))),
        r"t\.gpx: 3 point\(s\); a track needs at least 4",
    ),
    "gpx not xml": (
        "t.gpx",
        "lat,lon,time\n48.85,2.35,0\n",
        r"t\.gpx: not a GPX file: XML error at line 1",
    ),
    "gpx other xml": (
        "t.gpx",
        '<?xml version="1.0"?><kml><Placemark/></kml>',
        r"t\.gpx: not a GPX file: the root element is <kml>",
    ),
    "gpx bad number": (
        "t.gpx",
        _gpx("\n".join([_good(0), _good(1), _good(2), _pt(ele="high", i=3)])),
        r"t\.gpx: line 7, trkpt\[3\]: <ele> = 'high' is not a number",
    ),
    "gpx latitude": (
        "t.gpx",
        _gpx("\n".join([_good(0), _pt(lat="-91.5", i=1), _good(2), _good(3)])),
        r"t\.gpx: line 5, trkpt\[1\]: latitude -91.5 deg is out of range",
    ),
    "gpx mixed ele": (
        "t.gpx",
        _gpx("\n".join([_good(0), _pt(ele=None, i=1), _good(2), _good(3)])),
        r"t\.gpx: line 5, trkpt\[1\]: no <ele> while",
    ),
    "csv no time column": (
        "t.csv",
        "lat_deg,lon_deg\n48.85,2.35\n48.86,2.35\n",
        r"t\.csv: line 1: no time column",
    ),
    "csv empty time": (
        "t.csv",
        "lat_deg,lon_deg,time\n48.85,2.35,0\n48.86,2.35,\n",
        r"t\.csv: line 3: time is empty",
    ),
    "csv duplicate time": (
        "t.csv",
        "x_m,y_m,t_s\n0,0,0\n1,0,1\n2,0,1\n3,0,2\n",
        r"t\.csv: line 4: time 1 s repeats the previous point's \(line 3\)",
    ),
    "csv backwards": (
        "t.csv",
        "x_m,y_m,t_s\n0,0,0\n1,0,2\n2,0,1.5\n3,0,3\n",
        r"t\.csv: line 4: time 1.5 s is before the previous point's 2 s",
    ),
    "csv few points": (
        "t.csv",
        "# three\nx_m,y_m,t_s\n0,0,0\n1,0,1\n2,0,2\n",
        r"t\.csv: 3 point\(s\); a track needs at least 4",
    ),
    "csv bad number": (
        "t.csv",
        "lat,lon,time\n48.85,2.35,0\n48.8x,2.35,1\n",
        r"t\.csv: line 3: lat_deg = '48.8x' is not a number",
    ),
    "csv latitude": (
        "t.csv",
        "lat,lon,time\n48.85,2.35,0\n95,2.35,1\n1,2,2\n1,2,3\n",
        r"t\.csv: line 3: latitude 95.0 deg is out of range -90..90",
    ),
    "csv bad iso": (
        "t.csv",
        "x_m,y_m,time\n0,0,2024-05-01T10:00:00Z\n1,0,2024-13-01T10:00Z\n",
        r"t\.csv: line 3: time = '2024-13-01T10:00Z' is neither an ISO 8601",
    ),
    "csv no columns": (
        "t.csv",
        "a,b,c\n1,2,3\n",
        r"t\.csv: line 1: header 'a,b,c' has no recognised position columns",
    ),
    "unknown suffix": ("t.kml", "<kml/>", r"t\.kml: unknown track format '\.kml'"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_tracks_end_with_one_clear_line(tmp_path, case):
    name, text, pattern = BAD[case]
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(TruthError, match=pattern) as info:
        load_track(path)
    message = str(info.value)
    assert "\n" not in message and message.startswith(str(path))


def test_bad_options_are_named(circle_files):
    track = load_track(circle_files["csv"])
    for kwargs, pattern in (
        ({"bank": "banked"}, "bank = 'banked' is not one of none, coord"),
        ({"smoothing_m": -1.0}, "smoothing_m = -1.0 must be"),
        ({"rate_hz": 0.0}, "rate_hz = 0.0 must be"),
    ):
        with pytest.raises(NavsenseError, match=pattern):
            build_truth_from_track(track, "polaris", **kwargs)
    with pytest.raises(TruthError, match="outside the track"):
        plan_track(track, "polaris").evaluate([circle_files["t"][-1] + 1.0])


def test_a_gpx_whose_namespace_has_a_prefix_reads_as_the_same_track(tmp_path):
    """Found by the fuzz helper: GPX 1.1 written with a prefixed namespace (<g:gpx
    xmlns:g="http://www.topografix.com/GPX/1/1">, <g:trkpt>, the same XML) was refused as '0
    point(s); a track needs at least 4' (gpxpy finds no point of it). Now it reads as the same
    points, elevations and times as the unprefixed file."""
    points = "\n".join(_good(i) for i in range(5))
    plain = tmp_path / "plain.gpx"
    plain.write_text(_gpx(points))
    prefixed = tmp_path / "prefixed.gpx"
    text = _gpx(points).replace('<gpx version="1.1" xmlns=', '<g:gpx version="1.1" xmlns:g=')
    for tag in ("trkpt", "trkseg", "trk", "ele", "time", "gpx"):
        text = text.replace(f"<{tag}>", f"<g:{tag}>").replace(f"<{tag} ", f"<g:{tag} ")
        text = text.replace(f"</{tag}>", f"</g:{tag}>")
    prefixed.write_text(text)
    assert "<g:trkpt lat=" in text and "<trkpt" not in text
    from navsense.truth.track_files import read_gpx

    a, b = read_gpx(plain), read_gpx(prefixed)
    assert b.labels == a.labels and b.times == a.times and len(a.times) == 5
    for key in ("a", "b", "c"):
        np.testing.assert_array_equal(getattr(b, key), getattr(a, key))


def test_a_track_far_from_the_site_it_is_placed_on_is_refused(tmp_path):
    """A GPX track at 48.47 N 86.99 W placed on a local site at 48.1 N 11.6 E (--site) was
    written as a truth log 5 567 km west of the site's origin and 3 250 km below its tangent
    plane (exit 0; simulate then failed on the INS's UTM zone; the third fuzz helper). A
    track placed from latitude and longitude lies within 1000 km of its site, as an ENU
    track's coordinates do."""
    points = "".join(
        f'<trkpt lat="{48.4740 + 2e-5 * i:.7f}" lon="-86.99"><time>2026-05-01T12:00:{i:02d}Z'
        "</time></trkpt>"
        for i in range(8)
    )
    path = tmp_path / "far.gpx"
    path.write_text(
        '<gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>'
        + points
        + "</trkseg></trk></gpx>"
    )
    site = {
        "name": "munich",
        "georeference": {"kind": "local", "lat_deg": 48.1, "lon_deg": 11.6, "height_m": 520.0},
    }
    with pytest.raises(TruthError) as err:
        load_track(path, site=site_from_json(site, source="s"))
    assert "far.gpx: line 1, trkpt[0]: latitude, longitude 48.474, -86.99 is 5567 km from the " in (
        str(err.value)
    ), str(err.value)
    assert "site 'munich'; a track lies within 1000 km of its site" in str(err.value)
    assert len(load_track(path).t_s) == 8  # on its own local site
