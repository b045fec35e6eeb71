"""Bad input ends in one navsense.errors error naming the file, line or value; the truth at
the estimate's stamps and point; the command line."""

from __future__ import annotations

import shutil

import numpy as np
import orjson
import pytest

from navsense.cli import main
from navsense.errors import ConfigError, FormatError, NavsenseError
from navsense.score.api import ScoreOptions, score_estimate, score_run
from navsense.score.runinfo import read_run_info
from navsense.score.truth import truth_at_estimate
from navsense.score.writer import read_score
from score.score_helpers import OFFSET_M, PHYSICS_HZ, write_csv, write_tum


def _tum_lines(tmp_path, lines: list[str]):
    path = tmp_path / "est.tum"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


GOOD = "1.0 400.0 300.0 0.6 0 0 0 1"


@pytest.mark.parametrize(
    ("line", "match"),
    [
        ("2.0 400 300 0.6 0 0 0", r"line 3: 7 fields"),
        ("2.0 400 30O 0.6 0 0 0 1", r"line 3: y = '30O' is not a number"),
        ("2.0 400 300 nan 0 0 0 1", r"line 3: z = 'nan' is not finite"),
        ("2.0 400 300 0.6 0 0 0 2", r"line 3: the quaternion .* has norm 2"),
        ("1.0 400 300 0.6 0 0 0 1", r"line 2 and line 3 have the same time 1.0"),
    ],
)
def test_a_malformed_tum_line_is_named(run_dir, tmp_path, line, match):
    path = _tum_lines(tmp_path, ["# t x y z qx qy qz qw", GOOD, line])
    with pytest.raises(FormatError, match=str(path).replace(".", r"\.") + ": " + match):
        score_estimate(run_dir, path)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("t_s,e_m,n_m,u_m\n1,400,300,x\n", r"line 2: u_m = 'x' is not a number"),
        ("t_s,e_m,n_m,u_m\n1,400,300\n", r"line 2: 3 fields, the header has 4"),
        ("time,e_m,n_m,u_m\n1,400,300,0\n", r"line 1: the header needs exactly one time column"),
        ("t_s,e_m,n_m\n1,400,300\n", r"line 1: the header names none as position columns"),
        (
            "t_s,e_m,n_m,u_m,lat_deg,lon_deg,height_m\n1,400,300,0,40,-87,0\n",
            r"exactly one group",
        ),
        ("t_s,e_m,n_m,u_m,qx,qy,qz\n1,400,300,0,0,0,0\n", r"has qx, qy, qz but not qw"),
        (
            "t_s,e_m,n_m,u_m,sigma_e_m,sigma_n_m,sigma_u_m\n1,400,300,0,0.1,-0.1,0.1\n",
            r"line 2: a sigma is negative",
        ),
        ("t_s,e_m,n_m,u_m\n", r"a header but no epochs"),
        # a group part empty: qz, qw (or two sigmas) of a line were dropped with no word
        # (the fuzz helper's note); all empty is still "none at this epoch"
        (
            "t_s,e_m,n_m,u_m,qx,qy,qz,qw\n1,400,300,0,0,0,0,1\n2,400,300,0,,,0,1\n",
            r"est.csv: line 3: qx, qy empty but qx .. qw partly given; leave all of them empty",
        ),
        (
            "t_s,e_m,n_m,u_m,sigma_e_m,sigma_n_m,sigma_u_m\n1,400,300,0,,,0.1\n",
            r"line 2: sigma_e_m, sigma_n_m empty but sigma_e_m .. sigma_u_m partly given",
        ),
    ],
)
def test_a_malformed_csv_is_named(run_dir, tmp_path, text, match):
    path = tmp_path / "est.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(FormatError, match=match):
        score_estimate(run_dir, path)


def test_missing_files_and_unknown_formats(run_dir, tmp_path):
    with pytest.raises(FormatError, match=r"nothere.tum: the estimate file is not found"):
        score_estimate(run_dir, tmp_path / "nothere.tum")
    with pytest.raises(ConfigError, match=r"from the extension '.xyz'.*--format tum\|csv\|mcap"):
        score_estimate(run_dir, tmp_path / "est.xyz")
    with pytest.raises(FormatError, match=r"not a run directory"):
        score_estimate(tmp_path / "norun", tmp_path / "est.tum")
    path = _tum_lines(tmp_path, [GOOD])
    with pytest.raises(ConfigError, match=r"--topic /x: only an mcap estimate has topics"):
        score_estimate(run_dir, path, ScoreOptions(topic="/x"))
    with pytest.raises(ConfigError, match=r"--frame geodetic: a TUM file's x y z are metres"):
        score_estimate(run_dir, path, ScoreOptions(frame="geodetic"))


def _circle_estimate(run_dir, tmp_path, name="est.csv", **extra):
    t = np.arange(0.0, 60.0, 0.5)
    arm = read_run_info(run_dir).lever_arm_m("ins")
    truth = truth_at_estimate(read_run_info(run_dir), t, "ins")
    cols = {"t_s": t, **{k: truth.p_m[:, i] for i, k in enumerate(("e_m", "n_m", "u_m"))}}
    return write_csv(tmp_path / name, {**cols, **extra}), truth, arm


def test_a_wrong_frame_is_named(run_dir, tmp_path):
    path, truth, _ = _circle_estimate(run_dir, tmp_path)
    with pytest.raises(ConfigError, match=r"--frame utm: .*est.csv gives its position in enu"):
        score_estimate(run_dir, path, ScoreOptions(frame="utm"))
    # site ENU metres in a TUM file read as UTM: outside the projection
    tum = write_tum(
        tmp_path / "e.tum", np.arange(3.0), truth.p_m[:3], np.tile([0, 0, 0, 1.0], (3, 1))
    )
    with pytest.raises(FormatError, match=r"e.tum: its coordinates as UTM zone 16 .*--frame"):
        score_estimate(run_dir, tum, ScoreOptions(frame="utm"))
    # UTM coordinates in a file said to be ENU: thousands of km from the truth
    from navsense.geo import utm

    lat, lon = 40.47, -86.99
    e, n, _, _ = utm.forward(lat, lon, 16)
    p = np.array([[e, n, 180.0]] * 3) + np.arange(3)[:, None]
    tum = write_tum(tmp_path / "u.tum", np.arange(3.0), p, np.tile([0, 0, 0, 1.0], (3, 1)))
    with pytest.raises(FormatError, match=r"u.tum: the estimate is \d+ km from the truth"):
        score_estimate(run_dir, tum)


def test_a_run_without_truth_asks_for_save_truth(run_dir, tmp_path):
    bare = tmp_path / "bare"
    bare.mkdir()
    for name in ("episode.json", "gnss.jsonl"):
        shutil.copy(run_dir / name, bare / name)
    path, _, _ = _circle_estimate(run_dir, tmp_path)
    with pytest.raises(FormatError, match=r"no truth to score against.*--save-truth"):
        score_estimate(bare, path)


def test_stamps_outside_the_run_are_left_out(run_dir, tmp_path):
    t = np.array([-1.0, 0.0, 30.0, 60.0, 61.0])
    truth = truth_at_estimate(read_run_info(run_dir), t, "ins")
    assert truth.inside.tolist() == [False, True, True, True, False]
    p = np.zeros((5, 3))
    p[truth.inside] = truth.p_m
    path = write_csv(tmp_path / "o.csv", {"t_s": t, "e_m": p[:, 0], "n_m": p[:, 1], "u_m": p[:, 2]})
    s = score_estimate(run_dir, path).scores
    assert (s["epochs_read"], s["epochs_outside_truth"], s["epochs"]) == (5, 2, 3)
    assert s["ate_3d_max_m"] == 0.0
    late = write_csv(
        tmp_path / "late.csv", {"t_s": [100.0, 101.0], **{k: [0, 0] for k in ("e_m", "n_m", "u_m")}}
    )
    with pytest.raises(FormatError, match=r"no estimate stamp is inside the run's episode time"):
        score_estimate(run_dir, late)


def test_truth_at_the_point_between_physics_steps(run_dir):
    """The run's truth is a 30 m circle at 4 m/s (tests/conftest.circle_truth): between physics
    steps the interpolated point is within the chord's sagitta v^2 dt^2 / (8 r) = 5 um of the
    circle, the slerped heading exact."""
    run = read_run_info(run_dir)
    rng = np.random.default_rng(2)
    t = np.sort(rng.uniform(0, 60, 500))
    w = 4.0 / 30.0
    yaw = w * t + np.pi / 2
    c, s = np.cos(yaw), np.sin(yaw)
    for point in ("ins", "antenna", "base_footprint"):
        r = run.lever_arm_m(point)
        got = truth_at_estimate(run, t, point)
        chassis = np.stack([30 * np.cos(w * t), 30 * np.sin(w * t), np.full_like(t, 0.6)], 1)
        arm = np.stack([c * r[0] - s * r[1], s * r[0] + c * r[1], np.full_like(t, r[2])], 1)
        expected = chassis + OFFSET_M + arm
        assert np.max(np.abs(got.p_m - expected)) < 6e-6
        heading = 2 * np.arctan2(got.q_xyzw[:, 2], got.q_xyzw[:, 3])
        assert np.max(np.abs(np.angle(np.exp(1j * (heading - yaw))))) < 1e-9
    assert not np.allclose(run.lever_arm_m("ins"), run.lever_arm_m("antenna"))


def test_score_run_writes_score_json_and_plots(run_dir, tmp_path):
    path, _, _ = _circle_estimate(run_dir, tmp_path)
    out = tmp_path / "out" / "score.json"
    result = score_run(run_dir, path, ScoreOptions(align="se3"), out=out)
    assert result.path == out
    data = read_score(out)
    assert data["align"] == "se3" and data["ate_3d_max_m"] < 1e-6
    assert data["rpe_rot_rms_deg"] is None  # no attitude: null in JSON
    assert list(data)[:2] == ["score_version", "run"]
    assert {"score_error.png", "score_cdf.png"} <= {p.name for p in out.parent.iterdir()}
    assert not [p for p in out.parent.iterdir() if p.name.startswith(".")]


def test_the_command_line(run_dir, tmp_path, capsys):
    path, _, _ = _circle_estimate(run_dir, tmp_path)
    out = tmp_path / "cli" / "score.json"
    assert main(["score", str(run_dir), str(path), "--out", str(out), "--no-plots"]) == 0
    text = capsys.readouterr().out
    assert "ATE h rms" in text and "rtk_fixed" in text and "outage_1 (corrections" in text
    assert orjson.loads(out.read_bytes())["epochs"] == 120
    assert main(["score", str(run_dir), str(tmp_path / "none.tum")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("navsense: error: ") and err.count("\n") == 1
    assert issubclass(FormatError, NavsenseError)


def test_a_parquet_run_has_the_same_fix_states(run_dir, tmp_path):
    """The fix states come from gnss.parquet as from gnss.jsonl."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from navsense.score.runinfo import read_gnss_timeline

    run = tmp_path / "pq"
    shutil.copytree(run_dir, run, ignore=shutil.ignore_patterns("*.mcap", "ins.*", "imu.*"))
    jsonl = read_gnss_timeline(read_run_info(run))
    pq.write_table(
        pa.table({"sample_time_s": jsonl.t_s, "fix_type": list(jsonl.fix_type)}),
        run / "gnss.parquet",
    )
    (run / "gnss.jsonl").unlink()
    parquet = read_gnss_timeline(read_run_info(run))
    np.testing.assert_array_equal(parquet.t_s, jsonl.t_s)
    assert parquet.fix_type.tolist() == jsonl.fix_type.tolist()
    assert PHYSICS_HZ == 120.0


def test_the_run_report_shows_the_score(run_dir, tmp_path):
    from navsense.runs.report import write_report

    run = tmp_path / "scored"
    shutil.copytree(run_dir, run, ignore=shutil.ignore_patterns("*.mcap"))
    path, _, _ = _circle_estimate(run, tmp_path)
    score_run(run, path)
    page = write_report(run).read_text(encoding="utf-8")
    for name in ("score_error.png", "score_cdf.png"):
        assert (run / "report" / name).read_bytes() == (run / "score" / name).read_bytes()
        assert f"({name})" in page
    assert "Score of est.csv (enu, point ins, align none): ATE horizontal RMS 0.000 m" in page
