"""Waypoint trajectories: kinematic consistency (velocity, angular velocity), attitude
conventions, speed ramps, holds, closed and repeated routes, and the waypoint file format."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from navsense.errors import TruthError
from navsense.rotation import (
    quat_conjugate,
    quat_from_euler_zyx,
    quat_multiply,
    quat_to_matrix,
    rotate,
)
from navsense.truth import (
    Waypoint,
    build_from_waypoints,
    load_waypoints,
    plan_trajectory,
    route_from_json,
)
from navsense.vehicles import VEHICLES

mm = 1e-3
um = 1e-6

# a route with turns, a hill, a hold, a leg given by its time and a speed change
HILLY = [
    {"enu_m": [0, 0, 0]},
    {"enu_m": [30, 5, 1.0], "speed_mps": 4.0},
    {"enu_m": [60, 40, 3.0], "speed_mps": 6.0, "hold_s": 2.0},
    {"enu_m": [20, 80, 0.5], "speed_mps": 5.0},
    {"enu_m": [-15, 60, -1.0], "speed_mps": 5.0},
    {"enu_m": [-10, 30, -2.0], "t_s": 62.0},
]


def circle(radius_m: float, n: int, speed_mps: float, z_m: float = 0.0) -> list[dict]:
    """Counter-clockwise closed circle about the origin, starting on the +x axis."""
    ang = 2 * np.pi * np.arange(n + 1) / n
    pts = [
        {"enu_m": [radius_m * math.cos(a), radius_m * math.sin(a), z_m], "speed_mps": speed_mps}
        for a in ang
    ]
    del pts[0]["speed_mps"]
    pts[-1]["enu_m"] = pts[0]["enu_m"]
    return pts


def footprint_velocity(truth, vehicle):
    """Velocity of base_footprint from the CoM velocity: v_f = v - w x (R r_f)."""
    r_f = -vehicle.footprint_in_chassis_m
    lever = rotate(quat_to_matrix(truth.q_xyzw), np.broadcast_to(r_f, truth.p_m.shape))
    return truth.v_mps - np.cross(truth.w_radps, lever)


@pytest.fixture(scope="module")
def hilly():
    traj = plan_trajectory(HILLY, "maxxum", dwell_s=1.5, accel_mps2=1.5)
    return traj, traj.sample(120.0)


def test_velocity_integrates_to_the_position(hilly):
    """Trapezoid integral of v reproduces the CoM to 1 mm over the whole run (v = dc/dt)."""
    _, truth = hilly
    dt = 1.0 / truth.rate_hz
    steps = 0.5 * (truth.v_mps[1:] + truth.v_mps[:-1]) * dt
    integral = truth.c_m[0] + np.vstack([np.zeros(3), np.cumsum(steps, axis=0)])
    assert np.abs(integral - truth.c_m).max() < 1 * mm
    # and locally: each step's displacement matches its trapezoid to the O(dt^3) truncation
    assert np.abs(np.diff(truth.c_m, axis=0) - steps).max() < 1 * um


def test_angular_velocity_is_the_derivative_of_the_attitude(hilly):
    """omega (world) vs central differences of the quaternion at t +- h.

    q(t+h) = exp(omega_avg h) q(t-h) with omega_avg the mean of omega over [t-h, t+h], and
    |omega_avg - omega(t)| <= h max|d omega/dt|: the tolerance is h times the largest angular
    acceleration of the run (estimated from omega at 120 Hz) plus the round-off eps/h.
    """
    traj, truth = hilly
    h = 1e-4
    t = np.linspace(0.0, traj.end_s, 4001)
    ahead, behind, now = traj.evaluate(t + h), traj.evaluate(t - h), traj.evaluate(t)
    dq = quat_multiply(ahead.q_xyzw, quat_conjugate(behind.q_xyzw))
    dq *= np.where(dq[:, 3:] < 0, -1.0, 1.0)
    sin_half = np.linalg.norm(dq[:, :3], axis=1)
    angle = 2.0 * np.arctan2(sin_half, dq[:, 3])
    axis = dq[:, :3] / np.where(sin_half > 0, sin_half, 1.0)[:, None]
    w_fd = axis * (angle / (2.0 * h))[:, None]
    w_dot_max = np.abs(np.diff(truth.w_radps, axis=0)).max() * truth.rate_hz
    tolerance = h * w_dot_max + 1e-16 / h * 10
    assert np.abs(w_fd - now.w_radps).max() < tolerance
    assert np.abs(now.w_radps).max() > 0.1  # the route does turn and pitch


def test_heading_and_pitch_follow_the_velocity(hilly):
    """FLU x is along the footprint velocity (rear-axle middle, no side slip), roll is zero."""
    traj, truth = hilly
    r = quat_to_matrix(truth.q_xyzw)
    x_body, y_body = r[:, :, 0], r[:, :, 1]
    v_f = footprint_velocity(truth, traj.vehicle)
    speed = np.linalg.norm(v_f, axis=1)
    moving = speed > 0.05
    along = np.einsum("ij,ij->i", x_body[moving], v_f[moving]) / speed[moving]
    assert np.abs(along - 1.0).max() < 1e-9
    assert np.abs(y_body[:, 2]).max() < 1e-12  # roll 0: body y stays horizontal
    assert np.abs(np.linalg.norm(truth.q_xyzw, axis=1) - 1).max() < 1e-12
    assert np.abs(x_body[:, 2]).max() > 0.02  # the hill pitches the vehicle
    # the same attitude as the rotation module's q_z(yaw) q_y(-pitch) q_x(0)
    ev = traj.evaluate(truth.t_s)
    expected = quat_from_euler_zyx(ev.yaw_rad, -ev.pitch_rad, 0.0)
    assert np.abs(expected - truth.q_xyzw).max() < 1e-12


def test_quaternions_are_continuous(hilly):
    _, truth = hilly
    dots = np.einsum("ij,ij->i", truth.q_xyzw[1:], truth.q_xyzw[:-1])
    assert dots.min() > 0.999


def test_stops_keep_the_heading_and_stand_exactly_still(hilly):
    traj, truth = hilly
    ev = traj.evaluate(truth.t_s)
    still = ev.speed_mps == 0.0
    assert still[0] and still[-1]
    assert np.all(truth.v_mps[still] == 0.0) and np.all(truth.w_radps[still] == 0.0)
    # the hold at points[2]: 2 s at rest on the point, heading = the approach heading
    idx = np.flatnonzero(still & (truth.t_s > 2.0) & (truth.t_s < traj.end_s - 1.0))
    assert 2.0 - 1.5 / 120 <= len(idx) / 120 <= 2.0 + 1.5 / 120
    assert np.abs(ev.footprint_m[idx] - HILLY[2]["enu_m"]).max() < 1e-6
    assert np.ptp(ev.yaw_rad[idx]) == 0.0
    before = idx[0] - 1
    assert abs(ev.yaw_rad[before] - ev.yaw_rad[idx[0]]) < 1e-4
    # the start and end rests: at the first and last points
    assert np.abs(ev.footprint_m[0] - HILLY[0]["enu_m"]).max() < 1e-9
    assert np.abs(ev.footprint_m[-1] - HILLY[-1]["enu_m"]).max() < 1e-6


def test_chassis_origin_is_ahead_of_the_footprint_at_cg_height(hilly):
    traj, truth = hilly
    ev = traj.evaluate(truth.t_s)
    body = rotate(np.swapaxes(quat_to_matrix(truth.q_xyzw), 1, 2), truth.p_m - ev.footprint_m)
    assert np.abs(body - [0.4 * 2.69, 0.0, 1.10]).max() < 1e-12
    assert np.array_equal(truth.c_m, truth.p_m)


def test_speed_ramps_are_bounded_and_smooth(hilly):
    traj, truth = hilly
    ev = traj.evaluate(truth.t_s)
    assert np.abs(ev.accel_mps2).max() <= 1.5 * (1 + 1e-12)
    assert np.abs(np.diff(ev.speed_mps)).max() <= 1.5 / 120 * (1 + 1e-9)  # no speed jumps
    assert np.abs(np.diff(ev.accel_mps2)).max() < 1.5 * 5.8 / 120 / 1.0  # |jerk| <= 5.77 a/w
    assert math.isclose(ev.speed_mps.max(), 6.0, rel_tol=1e-12)
    assert ev.speed_mps.min() >= 0.0
    # the distance travelled is the path length
    assert math.isclose(ev.s_m[-1], traj.length_m, rel_tol=1e-12)


def test_a_point_with_a_time_is_reached_at_that_time():
    pts = [
        {"enu_m": [0, 0, 0]},
        {"enu_m": [40, 0, 0], "speed_mps": 4.0},
        {"enu_m": [80, 10, 0], "t_s": 40.0},
        {"enu_m": [120, 0, 0], "t_s": 50.0},
    ]
    traj = plan_trajectory(pts, "polaris")
    times = traj.point_times_s()
    assert times[2] == pytest.approx(40.0, abs=1e-9) and times[3] == pytest.approx(50.0, abs=1e-9)
    ev = traj.evaluate([40.0])
    # the speed changes at points[2] (from 4 m/s to the timed legs' speed): within a ramp's smoothing
    assert np.linalg.norm(ev.footprint_m[0] - [80, 10, 0]) < 1.0
    # a departure from rest given by time: the leg ends exactly on time
    pts = [
        {"enu_m": [0, 0, 0]},
        {"enu_m": [30, 0, 0], "t_s": 15.0},
        {"enu_m": [60, 0, 0], "t_s": 25.0},
    ]
    traj = plan_trajectory(pts, "polaris", dwell_s=2.0)
    assert traj.point_times_s()[1] == pytest.approx(15.0, abs=1e-9)


def test_steady_circle_turn_rate_and_centripetal_acceleration():
    """On a circle of radius R at speed v: yaw rate v/R, footprint acceleration v^2/R toward
    the centre, and the CoM (a = 0.4 wheelbase ahead) on radius sqrt(R^2 + a^2) with
    acceleration w^2 sqrt(R^2 + a^2).

    Tolerances from the spline through n points on the circle (chord h = 2 pi R / n): position
    error ~ h^4/384 |F| (~1e-7 R here), curvature error ~ h^2/12 |F| = (h/R)^2/12
    relative (6e-4 at n = 72); central differences of the velocity at 120 Hz add
    ~ (w dt)^2 / 6 relative (3e-7).
    """
    radius, speed, n = 20.0, 5.0, 72
    curvature_rel = 1.5 * (2 * np.pi / n) ** 2 / 12
    vehicle = VEHICLES["polaris"]
    traj = plan_trajectory(circle(radius, n, speed), vehicle, closed=True)
    truth = traj.sample(120.0, duration_s=2 * traj.end_s)  # two laps, seamless
    ev = traj.evaluate(truth.t_s[: len(truth) // 2])
    steady = ev.speed_mps == speed
    steady[:240] = False
    assert steady.sum() > 120 * 15
    yaw_rate = truth.w_radps[: len(ev.t_s)][steady, 2]
    assert np.abs(yaw_rate - speed / radius).max() < curvature_rel * speed / radius
    assert np.abs(truth.w_radps[: len(ev.t_s)][steady, :2]).max() == 0.0
    radial = np.linalg.norm(ev.footprint_m[steady, :2], axis=1)
    assert np.abs(radial - radius).max() < 1e-5 * radius
    # accelerations by central differences of the velocities at 120 Hz (error ~ dt^2 w^3 v / 6)
    dt = 1.0 / 120
    i = np.flatnonzero(steady)[1:-1]
    v_f = footprint_velocity(truth, vehicle)
    acc_f = (v_f[i + 1] - v_f[i - 1]) / (2 * dt)
    to_centre = -ev.footprint_m[i, :2] / radial[1:-1, None]
    assert (
        np.abs(np.einsum("ij,ij->i", acc_f[:, :2], to_centre) - speed**2 / radius).max()
        < curvature_rel * speed**2 / radius
    )
    a_m = 0.4 * vehicle.wheelbase_m
    acc_c = (truth.v_mps[i + 1] - truth.v_mps[i - 1]) / (2 * dt)
    expected = (speed / radius) ** 2 * math.hypot(radius, a_m)
    # plus the tangential term |dw/dt| a of the lever: the spline's curvature ripples between
    # its knots (relative amplitude curvature_rel, period h / v), so w wobbles slightly
    w_dot = np.abs(np.diff(truth.w_radps[i, 2])).max() * 120
    assert (
        w_dot < curvature_rel * (speed / radius) * 2 * np.pi * speed / (2 * np.pi * radius / n) * 2
    )
    assert (
        np.abs(np.linalg.norm(acc_c, axis=1) - expected).max()
        < 2 * curvature_rel * expected + w_dot * a_m
    )
    assert (
        np.abs(
            np.linalg.norm(truth.v_mps[i], axis=1) - speed / radius * math.hypot(radius, a_m)
        ).max()
        < curvature_rel * speed
    )


def test_closed_route_repeats_seamlessly():
    traj = plan_trajectory(circle(15.0, 40, 4.0), "polaris", dwell_s=3.0, closed=True)
    n_run = traj.steps(120.0)
    one = traj.sample(120.0)
    three = traj.sample(120.0, duration_s=3 * n_run / 120.0 + 10.0)
    assert len(three) == 3 * n_run + 1200 + 1
    # each lap repeats the first (quaternion sign aside), the seam is at rest at the start
    for lap in range(3):
        seg = three.slice(lap * n_run, lap * n_run + n_run)
        assert np.array_equal(seg.p_m, one.p_m[:n_run])
        assert np.array_equal(seg.v_mps, one.v_mps[:n_run])
        assert np.array_equal(np.abs(seg.q_xyzw), np.abs(one.q_xyzw[:n_run]))
    dots = np.einsum("ij,ij->i", three.q_xyzw[1:], three.q_xyzw[:-1])
    assert dots.min() > 0.999  # continuous across the seams
    assert np.abs(one.p_m[-1] - one.p_m[0]).max() < 1e-9 and np.all(one.v_mps[-1] == 0)
    dt = 1.0 / 120
    steps = 0.5 * (three.v_mps[1:] + three.v_mps[:-1]) * dt
    integral = three.c_m[0] + np.vstack([np.zeros(3), np.cumsum(steps, axis=0)])
    assert np.abs(integral - three.c_m).max() < 1 * mm
    # a shorter duration cuts the run
    assert np.array_equal(traj.sample(120.0, duration_s=5.0).p_m, one.p_m[:601])


def test_open_route_cannot_repeat():
    traj = plan_trajectory(HILLY, "polaris")
    with pytest.raises(TruthError, match=r"not closed; only a closed route"):
        traj.sample(120.0, duration_s=traj.end_s * 2)


def test_build_from_waypoints_matches_the_plan():
    wps = [
        Waypoint((0.0, 0.0, 0.0)),
        Waypoint((20.0, 0.0, 0.0), speed_mps=3.0),
        Waypoint((40.0, 15.0, 0.0), speed_mps=3.0),
    ]
    truth = build_from_waypoints(wps, "polaris", 100.0, dwell_s=1.0)
    assert truth.rate_hz == 100.0 and truth.step0 == 0 and not truth.reset.any()
    plan = plan_trajectory(wps, "polaris", dwell_s=1.0).sample(100.0)
    assert np.array_equal(truth.p_m, plan.p_m)
    assert len(truth) == plan_trajectory(wps, "polaris", dwell_s=1.0).steps(100.0) + 1


@pytest.mark.parametrize(
    "points, pattern",
    [
        ([{"enu_m": [0, 0, 0]}], r"points has 1 waypoint\(s\); at least 2"),
        (
            [{"enu_m": [0, 0, 0], "speed_mps": 2}, {"enu_m": [5, 0, 0], "speed_mps": 2}],
            r"points\[0\]\.speed_mps: the first point is the start",
        ),
        (
            [{"enu_m": [0, 0, 0]}, {"enu_m": [5, 0, 0]}],
            r"points\[1\] needs exactly one of speed_mps",
        ),
        (
            [{"enu_m": [0, 0, 0]}, {"enu_m": [5, 0, 0], "speed_mps": 2, "t_s": 3}],
            r"points\[1\] needs exactly one",
        ),
        (
            [{"enu_m": [0, 0, 0]}, {"enu_m": [0, 0, 0], "speed_mps": 2}],
            r"points\[1\] repeats points\[0\]",
        ),
        (
            [{"enu_m": [0, 0]}, {"enu_m": [5, 0, 0], "speed_mps": 2}],
            r"points\[0\]\.enu_m = \[0, 0\]",
        ),
        (
            [{"enu_m": [0, 0, 0]}, {"enu_m": [5, 0, 0], "speed_mps": -2}],
            r"points\[1\]\.speed_mps = -2",
        ),
        (
            [{"enu_m": [0, 0, 0]}, {"enu_m": [5, 0, 0], "speed_mps": 2, "hold": 1}],
            r"'hold' is not a known",
        ),
        (
            [{"enu_m": [0, 0, 0]}, {"enu_m": [5, 0, 0], "speed_mps": 8}],
            r"points\[0\]\.\.points\[1\]: 5\.0 m at 8 m/s last .* need .* accel_mps2 = 1",
        ),
        (
            [{"enu_m": [0, 0, 0]}, {"enu_m": [50, 0, 0], "t_s": 4}],
            r"points\[1\]: the leg of 50\.0 m starts from rest and has 4\.00 s; it needs at least",
        ),
    ],
)
def test_bad_waypoints(points, pattern):
    with pytest.raises(TruthError, match=pattern):
        build_from_waypoints(points, "polaris")


def test_waypoint_file(tmp_path):
    data = {"vehicle": "maxxum", "rate_hz": 100, "dwell_s": 2, "points": HILLY}
    path = tmp_path / "route.json"
    path.write_text(json.dumps(data))
    route = load_waypoints(path)
    assert route.vehicle == "maxxum" and route.rate_hz == 100.0 and route.dwell_s == 2.0
    truth = route.build()
    assert truth.rate_hz == 100.0
    assert np.array_equal(truth.p_m, build_from_waypoints(HILLY, "maxxum", 100.0, dwell_s=2).p_m)
    assert not np.array_equal(route.build("polaris").p_m, truth.p_m)  # another vehicle's cg


@pytest.mark.parametrize(
    "data, pattern",
    [
        ({"points": HILLY, "speed": 3}, r"route\.json: 'speed' is not a known key"),
        (
            {"points": HILLY, "vehicle": "tractor"},
            r"route\.json: vehicle = \"tractor\" is not one of",
        ),
        ({"points": HILLY, "dwell_s": -1}, r"route\.json: dwell_s = -1 must be >= 0"),
        (
            {"points": HILLY, "closed": "yes"},
            r"route\.json: closed = \"yes\" must be true or false",
        ),
        ({"points": HILLY, "closed": True}, r"closed = true but the last point"),
        ({"vehicle": "polaris"}, r"route\.json: points is missing"),
        # a timeline beyond 1e9 s (the fuzz helper's): its later legs lost their length to the
        # rounding and the route was refused as 'points[1]..points[2]: 0.0 m at 3 m/s last
        # 0.00 s, but the speed changes ...', which names no key the user gave
        (
            {"points": [*HILLY[:1], {**HILLY[1], "speed_mps": 1e-20}, *HILLY[2:]]},
            r"route\.json: points\[1\]\.speed_mps = 1e-20 puts the route at 3\.05835e\+21 s; a "
            r"route's timeline ends within 1e\+09 s",
        ),
        ({"points": HILLY, "dwell_s": 1e300}, r"route\.json: dwell_s = 1e\+300 puts the route"),
        (
            {"points": [{**HILLY[0], "hold_s": 1e20}, *HILLY[1:]]},
            r"route\.json: points\[0\]\.hold_s = 1e\+20 puts",
        ),
        (
            {"points": [*HILLY[:1], {**HILLY[1], "hold_s": 1e20}, *HILLY[2:]]},
            r"route\.json: points\[1\]\.hold_s = 1e\+20 puts",
        ),
    ],
)
def test_bad_waypoint_files(tmp_path, data, pattern):
    path = tmp_path / "route.json"
    path.write_text(json.dumps(data))
    with pytest.raises(TruthError, match=pattern):
        load_waypoints(path).build("polaris")


def test_malformed_json_names_the_line(tmp_path):
    path = tmp_path / "route.json"
    path.write_text('{\n "points": [\n  {"enu_m": [0, 0, 0]},,\n ]\n}\n')
    with pytest.raises(TruthError, match=r"route\.json: line 3 column"):
        load_waypoints(path)


def test_route_from_json_defaults():
    route = route_from_json({"points": HILLY[:3]})
    assert route.vehicle is None and route.rate_hz == 120.0 and route.closed is False
    with pytest.raises(TruthError, match="no vehicle given"):
        route.build()
