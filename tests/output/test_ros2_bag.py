"""The complete ROS 2 bag (issue 20 section 1): /tf_static, the ground truth's twist, the
magnetometer, barometer and wheel odometer, the covariances, the Maxxum without INS.

Three runs' bags are read back with rosbags (every message deserialised) and mcap-ros2-support
(payloads decoded and re-encoded byte for byte): a Polaris run with --mag --baro --odom, a Maxxum
run (INS off, its default) and a Polaris run with the configurable IMU (the default Polaris bag
is tests/output/test_ros2.py's). Values are checked against the rows, the configuration and the
truth computed here with scipy and pyproj.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import orjson
import pytest
from scipy.spatial.transform import Rotation

from navsense.errors import FormatError
from navsense.output.ros2 import UNOBSERVED_VARIANCE
from navsense.runs.export_mcap import DEFAULT_BAG_NAME, write_mcap
from navsense.scenarios import load_scenario
from output.ros2_helpers import (
    quat,
    read_bag,
    reencode_with_mcap_ros2_support,
    short_run,
    stamp_ns,
    topics,
    vec,
)

EXTRAS = {"mag.enabled": True, "baro.enabled": True, "odom.enabled": True}
POLARIS_FOOTPRINT = np.array([-0.4 * 2.06, 0.0, -0.60])  # base_footprint in chassis FLU
MAXXUM_FOOTPRINT = np.array([-0.4 * 2.69, 0.0, -1.10])


def _rows(run: Path, sensor: str) -> list[dict]:
    with open(run / f"{sensor}.jsonl", "rb") as f:
        return [orjson.loads(line) for line in f]


def _episode(run: Path) -> dict:
    return orjson.loads((run / "episode.json").read_bytes())


@pytest.fixture(scope="module")
def extras_run(tmp_path_factory) -> Path:
    return short_run(tmp_path_factory, "extras", "polaris", 30.0, EXTRAS)


@pytest.fixture(scope="module")
def extras_bag(extras_run) -> dict:
    return read_bag(write_mcap(extras_run, gnss_fix=True, raw_imu=True))


@pytest.fixture(scope="module")
def maxxum_run(tmp_path_factory) -> Path:
    # INS off (the Maxxum's default); the first GNSS fix comes at 26.5 s, out of the garage
    return short_run(tmp_path_factory, "maxxum_rx", "maxxum", 40.0)


@pytest.fixture(scope="module")
def maxxum_bag(maxxum_run) -> dict:
    return read_bag(write_mcap(maxxum_run))


@pytest.fixture(scope="module")
def configurable_run(tmp_path_factory) -> Path:
    overrides = {
        "imu.model": "configurable",
        "imu.preset": "adis16465",
        "imu.configurable.platform_ypr_deg": [90.0, 0.0, 0.0],
    }
    return short_run(tmp_path_factory, "configurable", "polaris", 4.0, overrides)


# ------------------------------------------------------------------ what every bag must be
def _frames_used(bag: dict) -> set[str]:
    out = set()
    for topic in topics(bag):
        for m in bag[topic]["msgs"]:
            if hasattr(m, "transforms"):
                for t in m.transforms:
                    out |= {t.header.frame_id, t.child_frame_id}
            else:
                out.add(m.header.frame_id)
                out.add(getattr(m, "child_frame_id", ""))
    return out - {""}


def _assert_complete(bag: dict, expected_types: dict[str, str]) -> None:
    """Every topic with its type; /tf_static once, latched, from base_footprint to every frame a
    message names (utm, the world frame, is the root of /tf); covariances filled."""
    assert {t: bag[t]["type"] for t in topics(bag)} == expected_types
    static = bag["/tf_static"]
    assert len(static["msgs"]) == 1 and static["log_ns"][0] == min(bag["_order"])
    (qos,) = static["qos"]
    assert qos.durability.name == "TRANSIENT_LOCAL" and qos.reliability.name == "RELIABLE"
    assert qos.history.name == "KEEP_LAST" and qos.depth == 1
    tree = {t.child_frame_id: t.header.frame_id for t in static["msgs"][0].transforms}
    assert set(tree.values()) == {"base_footprint"}
    assert len(tree) == len(static["msgs"][0].transforms)  # each frame once
    for frame in _frames_used(bag) - {"utm", "base_footprint"}:
        assert frame in tree, frame
    if "/tf" in bag:
        assert {
            (t.header.frame_id, t.child_frame_id) for m in bag["/tf"]["msgs"] for t in m.transforms
        } == {("utm", "base_footprint")}
    for topic in topics(bag):
        msgs, kind = bag[topic]["msgs"], bag[topic]["type"]
        if kind == "sensor_msgs/msg/NavSatFix":
            fixed = [m for m in msgs if m.status.status >= 0]
            assert fixed, topic
            assert all(m.position_covariance_type in (2, 3) for m in fixed)
            assert all(np.all(np.diagonal(m.position_covariance.reshape(3, 3)) > 0) for m in fixed)
        elif kind == "sensor_msgs/msg/Imu":
            assert all(
                np.all(np.diag(m.angular_velocity_covariance.reshape(3, 3)) > 0) for m in msgs
            )
            assert all(
                np.all(np.diag(m.linear_acceleration_covariance.reshape(3, 3)) > 0) for m in msgs
            )
        elif kind == "nav_msgs/msg/Odometry" and "ground_truth" not in topic:
            assert all(np.all(np.diag(m.pose.covariance.reshape(6, 6)) > 0) for m in msgs), topic
            assert all(np.all(np.diag(m.twist.covariance.reshape(6, 6)) > 0) for m in msgs), topic
        elif kind == "nav_msgs/msg/Odometry":  # the truth: exact, and it moves
            lin = np.array([vec(m.twist.twist.linear) for m in msgs])
            assert np.max(np.abs(lin)) > 1.0, topic
        elif kind == "sensor_msgs/msg/MagneticField":
            assert all(np.all(np.diag(m.magnetic_field_covariance.reshape(3, 3)) > 0) for m in msgs)
        elif kind == "sensor_msgs/msg/FluidPressure":
            assert all(m.variance > 0 for m in msgs)
        elif kind == "geometry_msgs/msg/TwistWithCovarianceStamped":
            assert all(np.all(np.diag(m.twist.covariance.reshape(6, 6)) > 0) for m in msgs)


POLARIS_TYPES = {
    "/tf_static": "tf2_msgs/msg/TFMessage",
    "/vehicle/odom": "nav_msgs/msg/Odometry",
    "/oxts/fix": "sensor_msgs/msg/NavSatFix",
    "/oxts/imu": "sensor_msgs/msg/Imu",
    "/oxts/velocity": "geometry_msgs/msg/TwistStamped",
    "/sim/ground_truth/odom": "nav_msgs/msg/Odometry",
    "/tf": "tf2_msgs/msg/TFMessage",
}


def test_the_polaris_bag_with_mag_baro_odom_is_complete(extras_run, extras_bag):
    _assert_complete(
        extras_bag,
        POLARIS_TYPES
        | {
            "/gnss/receiver/fix": "sensor_msgs/msg/NavSatFix",
            "/imu/raw": "sensor_msgs/msg/Imu",
            "/imu/mag": "sensor_msgs/msg/MagneticField",
            "/baro/pressure": "sensor_msgs/msg/FluidPressure",
            "/wheel/twist": "geometry_msgs/msg/TwistWithCovarianceStamped",
        },
    )
    assert set(reencode_with_mcap_ros2_support(extras_run / DEFAULT_BAG_NAME)) == topics(extras_bag)


def test_the_maxxum_bag_without_ins_is_complete(maxxum_run, maxxum_bag):
    _assert_complete(
        maxxum_bag,
        {
            "/tf_static": "tf2_msgs/msg/TFMessage",
            "/odom": "nav_msgs/msg/Odometry",
            "/gnss/fix": "sensor_msgs/msg/NavSatFix",
            "/imu/data": "sensor_msgs/msg/Imu",
            "/ground_truth/odom": "nav_msgs/msg/Odometry",
        },
    )
    assert set(reencode_with_mcap_ros2_support(maxxum_run / DEFAULT_BAG_NAME)) == topics(maxxum_bag)


def test_the_default_polaris_bag_is_complete(tmp_path_factory):
    run = short_run(tmp_path_factory, "polaris_default", "polaris", 24.0)  # drives from 20 s
    _assert_complete(read_bag(write_mcap(run)), POLARIS_TYPES)


# ---------------------------------------------------------------------------- /tf_static
def _static(bag: dict) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    (msg,) = bag["/tf_static"]["msgs"]
    return {
        t.child_frame_id: (vec(t.transform.translation), quat(t.transform.rotation))
        for t in msg.transforms
    }


def test_static_transforms_are_the_mounts_of_the_configuration(extras_run, extras_bag):
    cfg = _episode(extras_run)["config"]
    assert cfg["mount_frame"] == "base_footprint"  # the Polaris overlay: arms from base_footprint
    static = _static(extras_bag)
    assert set(static) == {
        "navsat_link",
        "oxts_link",
        "gnss_link",
        "imu_link",
        "mag_link",
        "baro_link",
    }
    np.testing.assert_allclose(static["gnss_link"][0], cfg["gnss"]["antenna_flu_m"], atol=1e-12)
    np.testing.assert_allclose(static["imu_link"][0], cfg["imu"]["position_flu_m"], atol=1e-12)
    np.testing.assert_allclose(static["baro_link"][0], cfg["baro"]["position_flu_m"], atol=1e-12)
    np.testing.assert_allclose(static["oxts_link"][0], cfg["ins"]["position_flu_m"], atol=1e-12)
    np.testing.assert_allclose(
        static["mag_link"][0], -POLARIS_FOOTPRINT, atol=1e-12
    )  # chassis origin
    for frame in ("gnss_link", "imu_link", "baro_link", "navsat_link", "mag_link"):
        np.testing.assert_array_equal(static[frame][1], [0.0, 0.0, 0.0, 1.0])
    # oxts_link has the OxTS mounting axes: its rotation takes the IMU message's vectors to the
    # INS rows' FLU vectors
    r = Rotation.from_quat(static["oxts_link"][1])
    f_oxts = np.array([vec(m.linear_acceleration) for m in extras_bag["/oxts/imu"]["msgs"]])
    f_flu = np.array([r_["imu"]["linear_acceleration_flu_mps2"] for r_ in _rows(extras_run, "ins")])
    np.testing.assert_allclose(r.apply(f_oxts), f_flu, rtol=0, atol=1e-6)
    # stamped at the run's first physics step
    start = stamp_ns(extras_bag["/tf_static"]["msgs"][0].transforms[0].header)
    assert start == 1_790_175_600_000_000_000


def test_the_configurable_imus_platform_axes_and_noise_densities(configurable_run):
    from navsense.config.imu_presets import PRESETS

    bag = read_bag(write_mcap(configurable_run, raw_imu=True))
    # platform yaw 90 deg: the platform's x axis is the body's y (left) axis
    r = Rotation.from_quat(_static(bag)["imu_link"][1])
    np.testing.assert_allclose(r.apply([1.0, 0.0, 0.0]), [0.0, 1.0, 0.0], atol=1e-15)
    np.testing.assert_allclose(r.apply([0.0, 0.0, 1.0]), [0.0, 0.0, 1.0], atol=1e-15)
    # covariances: the white noise density discretised at the IMU's rate, (N sqrt(hz))^2
    hz = _episode(configurable_run)["config"]["imu"]["hz"]
    preset = PRESETS["adis16465"]
    s_a = preset["accel"]["noise_density_mps2_rthz"] * math.sqrt(hz)
    s_g = preset["gyro"]["noise_density_radps_rthz"] * math.sqrt(hz)
    for m in bag["/imu/raw"]["msgs"]:
        np.testing.assert_allclose(
            m.linear_acceleration_covariance, np.diag([s_a**2] * 3).ravel(), rtol=1e-12
        )
        np.testing.assert_allclose(
            m.angular_velocity_covariance, np.diag([s_g**2] * 3).ravel(), rtol=1e-12
        )
    # parked: the platform's z axis is the body's, up, and reads +g
    f = np.array([vec(m.linear_acceleration) for m in bag["/imu/raw"]["msgs"][:10]])
    assert np.all(np.abs(f[:, 2] - 9.80665) < 0.2)


# ------------------------------------------------------ magnetometer, barometer, wheel odometer
def test_magnetometer_in_tesla_with_its_noise(extras_run, extras_bag):
    rows, cfg = _rows(extras_run, "mag"), _episode(extras_run)["config"]["mag"]
    msgs = extras_bag["/imu/mag"]["msgs"]
    assert {m.header.frame_id for m in msgs} == {"mag_link"}
    np.testing.assert_allclose(
        [vec(m.magnetic_field) for m in msgs],
        np.array([r["magnetic_field_flu_ut"] for r in rows]) * 1e-6,
        rtol=1e-15,
    )
    assert 40e-6 < np.linalg.norm(vec(msgs[0].magnetic_field)) < 60e-6  # the Earth's field
    cov = np.diag([(cfg["noise_std_ut"] * 1e-6) ** 2] * 3).ravel()
    assert all(np.allclose(m.magnetic_field_covariance, cov, rtol=1e-12, atol=0) for m in msgs)


def test_barometer_in_pascal_with_noise_and_bias_variance(extras_run, extras_bag):
    rows, cfg = _rows(extras_run, "baro"), _episode(extras_run)["config"]["baro"]
    msgs = extras_bag["/baro/pressure"]["msgs"]
    assert {m.header.frame_id for m in msgs} == {"baro_link"}
    np.testing.assert_array_equal(
        [m.fluid_pressure for m in msgs], [r["pressure_pa"] for r in rows]
    )
    assert {m.variance for m in msgs} == {cfg["noise_std_pa"] ** 2 + cfg["bias_sigma_pa"] ** 2}


def test_wheel_odometer_is_a_forward_twist_with_its_variance(extras_run, extras_bag):
    rows, cfg = _rows(extras_run, "odom"), _episode(extras_run)["config"]["odom"]
    msgs = extras_bag["/wheel/twist"]["msgs"]
    assert {m.header.frame_id for m in msgs} == {"base_footprint"}
    speed = np.array([r["speed_mps"] for r in rows])
    lin = np.array([vec(m.twist.twist.linear) for m in msgs])
    np.testing.assert_array_equal(lin[:, 0], speed)
    assert not np.any(lin[:, 1:]) and not any(np.any(vec(m.twist.twist.angular)) for m in msgs)
    cov = np.array([m.twist.covariance for m in msgs]).reshape(-1, 6, 6)
    expected = cfg["noise_std_mps"] ** 2 + (cfg["scale_factor_sigma"] * speed) ** 2
    np.testing.assert_allclose(cov[:, 0, 0], expected, rtol=1e-12)
    assert np.all(cov[:, [1, 2, 3, 4, 5], [1, 2, 3, 4, 5]] == UNOBSERVED_VARIANCE)
    assert np.count_nonzero(cov) == 6 * len(msgs)  # diagonal
    assert speed.max() > 2.0


def test_stamps_and_log_times_of_the_sensor_topics(extras_run, extras_bag):
    start = 1_790_175_600_000_000_000
    for topic, sensor in (
        ("/imu/mag", "mag"),
        ("/baro/pressure", "baro"),
        ("/wheel/twist", "odom"),
    ):
        rows = _rows(extras_run, sensor)
        msgs = extras_bag[topic]
        assert [stamp_ns(m.header) for m in msgs["msgs"]] == [
            start + round(r["sample_time_s"] * 1e9) for r in rows
        ]
        assert msgs["log_ns"] == [start + round(r["delivery_time_s"] * 1e9) for r in rows]
    assert np.all(np.diff(extras_bag["_order"]) >= 0)


# ------------------------------------------------------------------ the Maxxum without INS
def test_maxxum_receiver_topics_stamps_frames(maxxum_run, maxxum_bag):
    gnss = _rows(maxxum_run, "gnss")
    start = 1_790_175_600_000_000_000
    fixed = [r for r in gnss if r["fix_type"] != "no_fix"]
    assert 0 < len(fixed) < len(gnss)
    for topic, rows in (("/gnss/fix", gnss), ("/ground_truth/odom", gnss), ("/odom", fixed)):
        msgs = maxxum_bag[topic]
        assert [stamp_ns(m.header) for m in msgs["msgs"]] == [
            start + round(r["sample_time_s"] * 1e9) for r in rows
        ]
        assert msgs["log_ns"] == [start + round(r["delivery_time_s"] * 1e9) for r in rows]
    assert {(m.header.frame_id, m.child_frame_id) for m in maxxum_bag["/odom"]["msgs"]} == {
        ("utm", "gnss_link")
    }
    assert {
        (m.header.frame_id, m.child_frame_id) for m in maxxum_bag["/ground_truth/odom"]["msgs"]
    } == {("utm", "base_footprint")}
    assert {m.header.frame_id for m in maxxum_bag["/imu/data"]["msgs"]} == {"imu_link"}
    assert len(maxxum_bag["/imu/data"]["msgs"]) == len(_rows(maxxum_run, "imu"))
    assert all(m.orientation_covariance[0] == -1.0 for m in maxxum_bag["/imu/data"]["msgs"])
    # the Maxxum's antenna, 1.7 m above its chassis origin
    np.testing.assert_allclose(_static(maxxum_bag)["gnss_link"][0], [1.076, 0.0, 2.8], atol=1e-12)


def test_maxxum_odom_is_the_receivers_fix_in_utm(maxxum_run, maxxum_bag):
    import pyproj

    fixed = [r for r in _rows(maxxum_run, "gnss") if r["fix_type"] != "no_fix"]
    msgs = maxxum_bag["/odom"]["msgs"]
    assert _episode(maxxum_run)["config"]["ins"]["frame"] == "nad83"
    utm = pyproj.Proj(proj="utm", zone=16, ellps="WGS84")  # spec "UTM Projection": WGS84, k0 0.9996
    e, n = utm([r["nad83_2011_lon_deg"] for r in fixed], [r["nad83_2011_lat_deg"] for r in fixed])
    pos = np.array([vec(m.pose.pose.position) for m in msgs])
    np.testing.assert_allclose(pos[:, 0], e, rtol=0, atol=2e-3)  # the rows' 9 decimals of a degree
    np.testing.assert_allclose(pos[:, 1], n, rtol=0, atol=2e-3)
    np.testing.assert_allclose(
        pos[:, 2], [r["nad83_2011_height_m"] for r in fixed], rtol=0, atol=1e-3
    )
    for m, r in zip(msgs, fixed, strict=True):
        cov = m.pose.covariance.reshape(6, 6)
        enu = np.array(r["covariance_enu_m2"]).reshape(3, 3)
        # the same ellipsoid turned about up by the grid rotation (0.05 deg): same eigenvalues
        np.testing.assert_allclose(
            np.linalg.eigvalsh(cov[:3, :3]), np.linalg.eigvalsh(enu), rtol=1e-12
        )
        assert cov[2, 2] == enu[2, 2]
        np.testing.assert_array_equal(np.diag(cov)[3:], [UNOBSERVED_VARIANCE] * 3)
        np.testing.assert_array_equal(
            np.diag(m.twist.covariance.reshape(6, 6)), [UNOBSERVED_VARIANCE] * 6
        )


def test_maxxum_ground_truth_is_base_footprint_and_the_odom_its_antenna(maxxum_run, maxxum_bag):
    """The ground truth's twist is the truth's at base_footprint (scipy); its pose, moved by the
    antenna's lever arm, is where the receiver's odometry is, within the reported sigma."""
    truth = load_scenario("acre-loop", duration_s=40.0).truth
    gnss = _rows(maxxum_run, "gnss")
    k = np.rint(np.array([r["sample_time_s"] for r in gnss]) * 120.0).astype(int)
    r = Rotation.from_quat(truth.q_xyzw[k])
    p_f = truth.p_m[k] + r.apply(MAXXUM_FOOTPRINT)
    v_f = truth.v_mps[k] + np.cross(truth.w_radps[k], p_f - truth.c_m[k])
    msgs = maxxum_bag["/ground_truth/odom"]["msgs"]
    lin = np.array([vec(m.twist.twist.linear) for m in msgs])
    np.testing.assert_allclose(lin, r.inv().apply(v_f), rtol=0, atol=1e-12)
    np.testing.assert_allclose(
        [vec(m.twist.twist.angular) for m in msgs],
        r.inv().apply(truth.w_radps[k]),
        rtol=0,
        atol=1e-12,
    )
    assert lin[:, 0].max() > 1.0  # it drives
    truth_at = {stamp_ns(m.header): m.pose.pose for m in msgs}
    z = []
    for m in maxxum_bag["/odom"]["msgs"]:
        pose = truth_at[stamp_ns(m.header)]
        antenna = vec(pose.position) + Rotation.from_quat(quat(pose.orientation)).apply(
            [1.076, 0.0, 2.8]
        )
        sigma = np.sqrt(np.diag(m.pose.covariance.reshape(6, 6))[:3])
        z.append((vec(m.pose.pose.position) - antenna) / sigma)
    z = np.abs(np.array(z))
    assert np.mean(z < 3.0) > 0.95 and np.median(z) < 1.5, np.median(z, axis=0)


# ----------------------------------------------------------------- simulate --mcap, the CLI
def test_simulate_mcap_of_the_maxxum_and_its_options(tmp_path, capsys):
    from navsense.cli import main
    from navsense.truth.io import write_truth

    truth = load_scenario("acre-loop", duration_s=30.0).truth
    write_truth(truth, tmp_path / "t.parquet")
    out = tmp_path / "mx"
    argv = ["simulate", "--truth", str(tmp_path / "t.parquet"), "--vehicle", "maxxum", "--quiet"]
    assert main([*argv, "--mcap", "--gnss-fix", "--raw-imu", "--odom", "--out", str(out)]) == 0
    bag = read_bag(out / DEFAULT_BAG_NAME)
    assert topics(bag) == {
        "/tf_static",
        "/odom",
        "/gnss/fix",
        "/imu/data",
        "/ground_truth/odom",
        "/gnss/receiver/fix",
        "/imu/raw",
        "/wheel/twist",
    }
    capsys.readouterr()
    # refused before the run: options without --mcap, a bag without topics
    for extra, message in (
        (["--gnss-fix"], "add --mcap"),
        (["--mcap", "--no-gnss", "--no-imu"], "no topic to write"),
        (["--mcap", "--no-gnss", "--gnss-fix"], "GNSS receiver off"),
    ):
        assert main([*argv, *extra, "--out", str(tmp_path / "refused")]) == 2
        assert message in capsys.readouterr().err
        assert not (tmp_path / "refused").exists()


def test_a_run_without_truth_has_a_nan_truth_twist(extras_run, tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    for p in extras_run.iterdir():
        if p.name != DEFAULT_BAG_NAME:
            (run / p.name).write_bytes(p.read_bytes())
    episode = _episode(run)
    episode["source"] = {}
    (run / "episode.json").write_text(json.dumps(episode))
    bag = read_bag(write_mcap(run))
    assert all(math.isnan(m.twist.twist.linear.x) for m in bag["/sim/ground_truth/odom"]["msgs"])
    # a truth log that is gone: the bag is still written, its metadata says why
    from mcap.reader import make_reader

    episode["source"] = {"truth": str(tmp_path / "gone.parquet")}
    (run / "episode.json").write_text(json.dumps(episode))
    path = write_mcap(run, run / "again.mcap")
    bag = read_bag(path)
    assert all(math.isnan(m.twist.twist.angular.z) for m in bag["/sim/ground_truth/odom"]["msgs"])
    with open(path, "rb") as f:
        (meta,) = [m for m in make_reader(f).iter_metadata() if m.name == "navsense"]
    assert meta.metadata["truth"].startswith("none: ") and "gone.parquet" in meta.metadata["truth"]
    with pytest.raises(FormatError, match="exists"):
        write_mcap(run, path)


@pytest.mark.parametrize(
    "start",
    [
        "1900-01-01T00:00:00Z",
        "1969-12-31T23:59:59Z",
        "2262-04-11T00:00:00Z",
        "5000-12-31T23:59:59Z",
    ],
)
def test_a_run_time_outside_the_bags_clock_is_one_line(tmp_path, capsys, start):
    """gnss.datum.start_utc = 1900-01-01T00:00:00Z with --mcap ended in the mcap library's
    'argument out of range' and 9999-12-31 in an OverflowError, internal errors (the stamps are
    nanoseconds since 1970 in 64 bits); found by the fuzz helper. Now one line naming the key,
    before the run with simulate --mcap, and naming the run with export mcap; the run itself
    is fine without a bag, and 1970 and 2262-04-09 are bags."""
    from navsense.cli import main
    from navsense.truth.io import write_truth

    write_truth(load_scenario("acre-loop", duration_s=1.0).truth, tmp_path / "t.parquet")
    argv = ["simulate", "--truth", str(tmp_path / "t.parquet"), "--quiet", "--workers", "threads"]
    argv += ["--set", f"gnss.datum.start_utc={start}"]
    words = f"gnss.datum.start_utc = {start}"
    assert main([*argv, "--mcap", "--out", str(tmp_path / "bag")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"navsense: error: --mcap: the run's time, {words}, is outside"), err
    assert "\n" not in err and not (tmp_path / "bag").exists()
    assert main([*argv, "--out", str(tmp_path / "run")]) == 0
    assert main(["export", "mcap", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err.strip()
    assert f"run: the run's time, {words} for 1 s, is outside the bag's clock" in err, err
    assert not (tmp_path / "run" / DEFAULT_BAG_NAME).exists()


@pytest.mark.parametrize("start", ["1970-01-01T00:00:00Z", "2262-04-09T23:47:16Z"])
def test_a_run_time_at_the_edges_of_the_bags_clock_is_a_bag(tmp_path, start):
    from navsense.cli import main
    from navsense.truth.io import write_truth

    write_truth(load_scenario("acre-loop", duration_s=1.0).truth, tmp_path / "t.parquet")
    argv = ["simulate", "--truth", str(tmp_path / "t.parquet"), "--quiet", "--workers", "threads"]
    argv += ["--set", f"gnss.datum.start_utc={start}", "--mcap", "--out", str(tmp_path / "b")]
    assert main(argv) == 0
    assert "/tf_static" in topics(read_bag(tmp_path / "b" / DEFAULT_BAG_NAME))
