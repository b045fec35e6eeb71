"""Estimates from a ROS 2 bag: navsense's own topics, and messages written by rosbags.

navsense's bag of the run carries the INS odometry (/vehicle/odom, UTM), its fix (/oxts/fix,
NavSatFix) and the truth odometry (/sim/ground_truth/odom): as estimates they must score as the
run statistics score the INS (navsense.runs.stats, from ins.frames) and as zero for the truth.
Other messages (PoseWithCovarianceStamped in a filter's map frame, big-endian CDR) are written
with rosbags, an independent CDR serialiser.
"""

from __future__ import annotations

import numpy as np
import pytest

from navsense.errors import FormatError
from navsense.runs.stats import run_statistics
from navsense.score.api import ScoreOptions, score_estimate
from navsense.score.bag import read_topic
from navsense.score.runinfo import read_run_info

mm = 1e-3
rosbags = pytest.importorskip("rosbags.rosbag2")
typesys = pytest.importorskip("rosbags.typesys")


def test_the_truth_topic_scores_zero(run_dir):
    s = score_estimate(
        run_dir, run_dir / "ros2.mcap", ScoreOptions(topic="/sim/ground_truth/odom")
    ).scores
    assert (s["frame"], s["time_base"], s["has_attitude"]) == ("utm", "unix", True)
    assert s["epochs"] == 6001  # the INS at 100 Hz for 60 s
    assert s["ate_3d_max_m"] < 0.01 * mm
    assert s["heading_max_deg"] < 1e-6
    assert not s["has_covariance"]  # the truth's covariance is zero: none


def test_the_ins_topics_score_as_the_run_statistics(run_dir):
    stats = run_statistics(run_dir)
    odom = score_estimate(run_dir, run_dir / "ros2.mcap", ScoreOptions(topic="/vehicle/odom"))
    fix = score_estimate(run_dir, run_dir / "ros2.mcap", ScoreOptions(topic="/oxts/fix"))
    s, f = odom.scores, fix.scores
    assert f["frame"] == "geodetic" and f["datum"] == "nad83_2011"
    # the statistics difference UTM metres (scale 0.9996), the score grid metres
    for key in ("h_rms_m", "v_rms_m", "h_p95_m"):
        a, b = s[f"ate_{key[0]}_{key[2:]}"], stats[f"ins_pos_{key}"]
        assert a == pytest.approx(b, rel=1e-3), key
        assert f[f"ate_{key[0]}_{key[2:]}"] == pytest.approx(a, abs=0.01 * mm), key
    for key in ("h_in_1sigma", "h_in_2sigma", "v_in_1sigma", "v_in_2sigma"):
        # the 0.04 % scale moves a few epochs across the boundary
        assert s[key] == pytest.approx(stats[f"ins_pos_{key}"], abs=0.002), key
        assert f[key] == pytest.approx(s[key], abs=1 / s["epochs"]), key
    assert s["heading_rms_deg"] == pytest.approx(stats["ins_heading_rms_deg"], rel=1e-6)
    assert s["nees_epochs"] == s["epochs"]


def _write_bag(path, messages, msg_type: str, topic: str, typestore, big_endian=False):
    from rosbags.rosbag2 import StoragePlugin, Writer

    with Writer(path, version=9, storage_plugin=StoragePlugin.MCAP) as writer:
        conn = writer.add_connection(topic, msg_type, typestore=typestore)
        for stamp_ns, msg in messages:
            data = typestore.serialize_cdr(msg, msg_type, little_endian=not big_endian)
            writer.write(conn, stamp_ns, bytes(data))
    return next(path.glob("*.mcap"))


def _pose_messages(typestore, start_ns: int, n: int, frame_id: str):
    t = typestore.types
    Time, Header = t["builtin_interfaces/msg/Time"], t["std_msgs/msg/Header"]
    Point, Quat = t["geometry_msgs/msg/Point"], t["geometry_msgs/msg/Quaternion"]
    Pose, PwC = t["geometry_msgs/msg/Pose"], t["geometry_msgs/msg/PoseWithCovariance"]
    Stamped = t["geometry_msgs/msg/PoseWithCovarianceStamped"]
    rng = np.random.default_rng(5)
    out, values = [], []
    for k in range(n):
        stamp = start_ns + k * 250_000_000
        xyz = rng.normal(0, 50, 3)
        yaw = rng.uniform(-3, 3)
        q = (0.0, 0.0, np.sin(yaw / 2), np.cos(yaw / 2))
        cov = np.zeros(36)
        cov[[0, 7, 14]] = rng.uniform(0.01, 0.1, 3)
        cov[1] = cov[6] = 0.003
        header = Header(stamp=Time(sec=stamp // 10**9, nanosec=stamp % 10**9), frame_id=frame_id)
        pose = Pose(position=Point(x=xyz[0], y=xyz[1], z=xyz[2]), orientation=Quat(*q[:3], w=q[3]))
        msg = Stamped(header=header, pose=PwC(pose=pose, covariance=cov))
        out.append((stamp, msg))
        values.append((stamp, xyz, q, cov.reshape(6, 6)[:3, :3]))
    return out, values


@pytest.mark.parametrize("big_endian", [False, True])
def test_pose_with_covariance_stamped_written_by_rosbags(run_dir, tmp_path, big_endian):
    store = typesys.get_typestore(typesys.Stores.ROS2_HUMBLE)
    start_ns = read_run_info(run_dir).start_ns
    msgs, values = _pose_messages(store, start_ns, 40, "map")
    bag = _write_bag(
        tmp_path / "bag",
        msgs,
        "geometry_msgs/msg/PoseWithCovarianceStamped",
        "/pose",
        store,
        big_endian,
    )
    est = read_topic(bag, "/pose", start_ns=start_ns)
    assert est.frame is None and "'map'" in est.frame_note
    np.testing.assert_array_equal(est.t_s, [(v[0] - start_ns) * 1e-9 for v in values])
    np.testing.assert_array_equal(est.xyz, [v[1] for v in values])
    np.testing.assert_allclose(est.q_xyzw, [v[2] for v in values], rtol=0, atol=1e-15)
    np.testing.assert_array_equal(est.cov_m2, [v[3] for v in values])


def test_unknown_topic_lists_the_bags_topics(run_dir):
    with pytest.raises(FormatError, match=r"no topic '/odometry/filtered'.*/vehicle/odom"):
        score_estimate(run_dir, run_dir / "ros2.mcap", ScoreOptions(topic="/odometry/filtered"))


def test_a_topic_of_another_type_is_refused(run_dir):
    with pytest.raises(FormatError, match=r"/oxts/imu has messages sensor_msgs/msg/Imu"):
        score_estimate(run_dir, run_dir / "ros2.mcap", ScoreOptions(topic="/oxts/imu"))


def test_a_file_that_is_not_mcap(run_dir, tmp_path):
    path = tmp_path / "x.mcap"
    path.write_bytes(b"not a bag at all")
    with pytest.raises(FormatError, match=r"x.mcap: not a readable MCAP file"):
        score_estimate(run_dir, path, ScoreOptions(topic="/pose"))
