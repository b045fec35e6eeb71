"""The physics clock beyond 120 Hz (issue 30 item 1): physics.hz, a truth log at its own rate,
sensors up to the physics rate, and the invariants (batch = chunks = steps, SensorStream) at
1 kHz."""

import json

import numpy as np
import orjson
import pytest

from conftest import circle_truth
from navsense.cli import main
from navsense.config import load_config
from navsense.constants import GRAVITY_MPS2
from navsense.errors import ConfigError, TruthError
from navsense.run import prepare_run
from navsense.scenarios import load_scenario
from navsense.simulate import build_models, simulate
from navsense.stream import SensorStream
from navsense.truth.io import read_truth, read_truth_metadata, truth_rate, write_truth
from navsense.vehicles import vehicle_profile

RADIUS_M, SPEED_MPS = 25.0, 5.0


def _rows(run, name):
    return [json.loads(line) for line in (run / f"{name}.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_a_400_hz_log_gives_400_imu_rows_a_second_of_the_analytic_specific_force(tmp_path, suffix):
    """A circle at 5 m/s on 25 m: f = (0, v^2 / r, g) in FLU, w = (0, 0, v / r). The IMU's
    finite differences (specification "IMU") on a 400 Hz clock differ from that by the chord's
    angle, v^2 / r sin(w dt / 2) forward, 2.5e-4 m/s^2 at 400 Hz; read with 1/120 s (the old
    constant) the acceleration would be 3.3 times too large."""
    truth = circle_truth(400 * 5 + 1, RADIUS_M, SPEED_MPS, rate_hz=400.0)
    log = write_truth(truth, tmp_path / f"circle{suffix}", site=None)
    assert truth_rate(log) == (400.0, "metadata")
    over = {"imu.hz": 400, "noise": False, "gnss.enabled": False, "ins.enabled": False}
    over |= {"mount_frame": "chassis", "imu.position_flu_m": [0, 0, 0]}  # at the centre
    run = prepare_run(truth=log, overrides=over)
    assert run.cfg["physics"]["hz"] == 400
    run.simulate(tmp_path / "run")
    episode = json.loads((tmp_path / "run" / "episode.json").read_text())
    assert episode["physics_hz"] == 400.0 and episode["config"]["physics"] == {"hz": 400}
    rows = _rows(tmp_path / "run", "imu")
    t = np.array([r["sample_time_s"] for r in rows])
    assert np.all(np.abs(np.diff(t) - 0.0025) < 1e-9)  # every physics step
    assert np.sum((t >= 1.0) & (t < 2.0)) == 400
    f = np.array([r["specific_force_flu_mps2"] for r in rows])
    w = np.array([r["angular_velocity_flu_radps"] for r in rows])
    a = SPEED_MPS**2 / RADIUS_M
    bound = a * (SPEED_MPS / RADIUS_M) * 0.0025 + 1e-6  # the chord's angle, the 6 decimals
    np.testing.assert_allclose(f, np.tile([0.0, a, GRAVITY_MPS2], (len(f), 1)), atol=bound)
    np.testing.assert_allclose(w, np.tile([0.0, 0.0, SPEED_MPS / RADIUS_M], (len(w), 1)), atol=1e-8)


def test_a_log_states_its_rate_or_its_spacing_tells_it(tmp_path):
    truth = circle_truth(50, rate_hz=250.0)
    stated = write_truth(truth, tmp_path / "stated.parquet")
    assert read_truth_metadata(stated).rate_hz == 250.0
    assert read_truth(stated).rate_hz == 250.0
    # a CSV log without its sidecar: the rate from the rows' spacing
    bare = write_truth(truth, tmp_path / "bare.csv")
    (tmp_path / "bare.truth.json").unlink()
    assert truth_rate(bare) == (250.0, "spacing")
    assert read_truth(bare).t_s[-1] == 49 / 250.0
    # a 120 Hz log is written as before: no rate in its metadata
    plain = write_truth(circle_truth(10), tmp_path / "plain.parquet")
    assert read_truth_metadata(plain).rate_hz is None
    assert truth_rate(plain) == (120.0, "spacing")


def test_a_log_whose_spacing_is_not_one_rate_is_one_line_naming_the_rows(tmp_path):
    truth = circle_truth(40, rate_hz=400.0)
    path = write_truth(truth, tmp_path / "uneven.csv")
    (tmp_path / "uneven.truth.json").unlink()
    lines = path.read_text().splitlines()
    # rows 31.. recorded at 200 Hz: the clock's step doubles
    t = [float(line.split(",")[0]) for line in lines[1:]]
    for i in range(30, len(t)):
        t[i] = t[29] + (i - 29) * 0.005
    lines[1:] = [f"{ti!r}," + line.split(",", 1)[1] for ti, line in zip(t, lines[1:])]
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(TruthError) as err:
        read_truth(path)
    text = str(err.value)
    assert "\n" not in text
    assert "uneven.csv: line 32: t_s = 0.0775 is not on the 400 Hz physics clock" in text
    assert "line 31 and line 32 are 0.005 s apart, its first rows 0.0025 s (400 Hz)" in text


def test_a_log_at_a_fractional_rate_without_its_rate_says_how_to_state_it(tmp_path, capsys):
    """A CSV log at 133.33 Hz without its sidecar: the spacing gives a whole 133 Hz and row 1 is
    off that clock. The line said 't_s = ... is not on the 133 Hz physics clock' and nothing
    more in a run (the rows' note was given only when the reader read the rate itself; the
    fuzz helper's note); now, reading or running, it gives the first rows' rate and how a log
    states its own. With its sidecar the same rows run at 133.33 Hz."""
    truth = circle_truth(40, rate_hz=133.33)
    path = write_truth(truth, tmp_path / "frac.csv")
    (tmp_path / "frac.truth.json").rename(tmp_path / "kept.json")
    words = "its first rows are 0.0075001875 s apart (133.33 Hz): a rate read from the rows'"
    with pytest.raises(TruthError) as err:
        read_truth(path)
    assert "frac.csv: line 3: " in str(err.value) and words in str(err.value), str(err.value)
    out = tmp_path / "run"
    argv = ["simulate", "--truth", str(path), "--out", str(out), "--quiet", "--imu-hz", "100"]
    assert main(argv) == 2
    err_text = capsys.readouterr().err
    assert words in err_text and "rate_hz in a CSV log's sidecar" in err_text, err_text
    assert not out.exists()
    (tmp_path / "kept.json").rename(tmp_path / "frac.truth.json")
    assert truth_rate(path) == (133.33, "metadata")
    assert main(argv) == 0


def test_navsense_truth_at_400_hz_runs_in_simulate(tmp_path, capsys):
    log = tmp_path / "t400.parquet"
    route = "examples/route.waypoints.json"
    assert main(["truth", "--track", route, "--rate-hz", "400", "--out", str(log)]) == 0
    assert read_truth_metadata(log).rate_hz == 400.0
    out = tmp_path / "run"
    argv = ["simulate", "--truth", str(log), "--imu-hz", "400", "--out", str(out), "--quiet"]
    assert main(argv) == 0
    assert json.loads((out / "episode.json").read_text())["physics_hz"] == 400.0
    t = np.array([r["sample_time_s"] for r in _rows(out, "imu")])
    assert np.sum((t >= 10.0) & (t < 11.0)) == 400


def test_physics_hz_1000_runs_a_scenario_resampled_at_that_rate(tmp_path):
    over = {"physics.hz": 1000, "imu.hz": 1000, "ins.enabled": True}
    run = prepare_run(scenario="acre-loop", duration_s=5.0, overrides=over)
    assert run.truth is not None and run.truth.rate_hz == 1000.0 and len(run.truth) == 5001
    run.simulate(tmp_path / "run")
    imu = np.array([r["sample_time_s"] for r in _rows(tmp_path / "run", "imu")])
    assert len(imu) == 4999 and np.all(np.abs(np.diff(imu) - 0.001) < 1e-9)
    # the specification's GNSS at 10 Hz and INS at 100 Hz divide 1 kHz: exact epochs
    gnss = np.array([r["sample_time_s"] for r in _rows(tmp_path / "run", "gnss")])
    ins = np.array([r["sample_time_s"] for r in _rows(tmp_path / "run", "ins")])
    np.testing.assert_allclose(gnss, np.arange(51) * 0.1, atol=1e-9)
    np.testing.assert_allclose(ins, np.arange(501) * 0.01, atol=1e-9)


def test_ins_at_100_hz_on_a_250_hz_clock_follows_the_due_rule(tmp_path):
    """Specification "Frames and Sample Times": a rate that does not divide the clock gives
    intervals of two lengths, the mean rate kept (here 2 and 3 steps of 4 ms)."""
    over = {"physics.hz": 250, "ins.enabled": True, "imu.hz": 250}
    run = prepare_run(scenario="acre-loop", duration_s=4.0, overrides=over)
    run.simulate(tmp_path / "run")
    t = np.array([r["sample_time_s"] for r in _rows(tmp_path / "run", "ins")])
    steps = np.rint(np.diff(t) * 250).astype(int)
    assert set(steps) == {2, 3} and len(t) == 401  # 0 .. 4 s at 100 Hz on average


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"overrides": {"imu.hz": 200}}, r"^command line: imu\.hz = 200 is above the physics "),
        ({"overrides": {"physics.hz": 30}}, r"^command line: physics\.hz = 30 is out of range"),
        (
            {"overrides": {"physics.hz": 100}},
            r"^imu\.hz = 120 is above the physics rate, 100 Hz \(physics\.hz\)",
        ),
    ],
)
def test_rates_beyond_the_clock_are_one_line(kwargs, message):
    with pytest.raises(ConfigError, match=message) as err:
        prepare_run(scenario="acre-loop", duration_s=1.0, **kwargs)
    assert "\n" not in str(err.value)


def test_a_truth_log_runs_at_its_own_rate(tmp_path):
    log = write_truth(circle_truth(100, rate_hz=400.0), tmp_path / "t.parquet")
    with pytest.raises(
        ConfigError, match=r"physics\.hz = 1000: the truth log .*t\.parquet runs at"
    ):
        prepare_run(truth=log, overrides={"physics.hz": 1000})
    assert prepare_run(truth=log, overrides={"physics.hz": 400}).cfg["physics"]["hz"] == 400
    slow = write_truth(circle_truth(100, rate_hz=10.0), tmp_path / "slow.parquet")
    with pytest.raises(ConfigError, match=r"slow\.parquet \(its rate, from its metadata\): "):
        prepare_run(truth=slow)


def _models_rows(models, truth, sizes):
    out: dict = {m.name: [] for m in models}
    start, i = 0, 0
    while start < len(truth):
        chunk = truth.slice(start, start + sizes[i % len(sizes)])
        for m in models:
            block = m.process(chunk)
            out[m.name].append({k: np.asarray(v) for k, v in block.items()})
        start += len(chunk)
        i += 1
    return {
        name: {k: np.concatenate([b[k] for b in blocks]) for k in blocks[0]}
        for name, blocks in out.items()
    }


KHZ = {
    "physics.hz": 1000,
    "imu.hz": 1000,
    "ins.enabled": True,
    "mag.enabled": True,
    "baro.enabled": True,
    "odom.enabled": True,
}


def test_batch_equals_chunks_equals_steps_at_1_khz():
    scen = load_scenario("acre-loop")
    truth = scen.trajectory.sample(1000.0, duration_s=1.5)
    cfg = load_config(vehicle="polaris", overrides=KHZ)

    def models():
        georef = scen.site.make_georeference(
            cfg["gnss"]["datum"]["start_utc"], cfg["gnss"]["datum"]
        )
        return build_models(cfg, scen.vehicle, scen.site, georef)

    whole = _models_rows(models(), truth, (len(truth),))
    assert {k: len(v["sample_time_s"]) for k, v in whole.items()} == {
        "gnss": 16,
        "imu": 1499,
        "ins": 151,
        "mag": 76,
        "baro": 38,
        "odom": 76,
    }
    for sizes in [(1,), (7, 333, 1, 64)]:
        cut = _models_rows(models(), truth, sizes)
        for name, block in whole.items():
            for key, value in block.items():
                assert np.array_equal(cut[name][key], value, equal_nan=True), (name, key, sizes)


def test_sensor_stream_at_1_khz_delivers_the_runs_rows(tmp_path):
    scen = load_scenario("acre-loop")
    truth = scen.trajectory.sample(1000.0, duration_s=1.0)
    cfg = load_config(vehicle="polaris", overrides=KHZ)
    simulate(truth, cfg, scen.vehicle, scen.site, tmp_path / "run")
    files = {p.stem: p.read_bytes().splitlines() for p in (tmp_path / "run").glob("*.jsonl")}
    stream = SensorStream(cfg, scen.vehicle, scen.site, worker=False)
    assert stream.rate_hz == 1000.0 and stream.latency_steps == 50  # 0.05 s at 1 kHz
    lines: dict = {}
    delivered_at = []
    for k in range(len(truth)):
        for name, rows in stream.step(truth.slice(k, k + 1)).items():
            lines.setdefault(name, []).extend(orjson.dumps(r) for r in rows)
            delivered_at.extend((k, r["delivery_time_s"]) for r in rows)
    for name, rows in stream.close().items():
        lines.setdefault(name, []).extend(orjson.dumps(r) for r in rows)
    assert lines == files
    assert all(round(t * 1000.0) == k for k, t in delivered_at)


def test_sensor_stream_refuses_a_sensor_above_its_clock():
    cfg = load_config(vehicle="polaris")
    with pytest.raises(ConfigError, match=r"imu\.hz = 120 is above the physics rate, 60 Hz"):
        SensorStream(cfg, vehicle_profile("polaris"), None, rate_hz=60.0, worker=False)


def test_a_scenario_run_at_1_khz_finds_its_truth_again_for_its_bag(tmp_path):
    """The bag's truth topics rebuild the scenario's truth at the run's rate (episode.json's
    physics_hz): at 120 Hz the run's 1 kHz epochs were 'outside the truth's 0..3600'."""
    from mcap.reader import make_reader

    from navsense.runs.truth import find_truth

    out = tmp_path / "run"
    argv = ["simulate", "--physics-hz", "1000", "--imu-hz", "1000", "--duration", "3"]
    assert main([*argv, "--mcap", "--raw-imu", "--out", str(out), "--quiet"]) == 0
    assert find_truth(out).read(1000.0).t_s[-1] == 3.0
    with open(out / "ros2.mcap", "rb") as f:
        summary = make_reader(f).get_summary()
    assert summary is not None and summary.statistics is not None
    counts = {
        summary.channels[c].topic: n for c, n in summary.statistics.channel_message_counts.items()
    }
    assert counts["/imu/raw"] == 2999 and counts["/sim/ground_truth/odom"] == 301


def test_navsense_truth_writes_only_rates_simulate_runs(tmp_path, capsys):
    route = "examples/route.waypoints.json"
    out = str(tmp_path / "t.parquet")
    assert main(["truth", "--track", route, "--rate-hz", "5000", "--out", out]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        "navsense: error: --rate-hz 5000 must be 50..2000 Hz (the physics clock's range, "
        "physics.hz)"
    )
    assert not (tmp_path / "t.parquet").exists()


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["truth", "--track", "examples/route.waypoints.json", "--rate-hz", "2000.001"],
            "navsense: error: --rate-hz 2000.001 must be 50..2000 Hz",
        ),
        (
            ["simulate", "--scenario", "acre-loop", "--duration", "1", "--imu-hz", "120.0000001"],
            "navsense: error: command line: imu.hz = 120.0000001 is above the physics rate, 120 Hz",
        ),
    ],
)
def test_a_value_just_past_its_limit_is_printed_as_given(argv, message, tmp_path, capsys):
    """--rate-hz 2000.001 was refused as '--rate-hz 2000 must be 50..2000 Hz', and
    --imu-hz 120.0000001 as 'imu.hz = 120 is above the physics rate, 120 Hz' (the value
    printed to 6 digits): now to 12 digits, the value as given."""
    assert main([*argv, "--out", str(tmp_path / "o.parquet")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith(message), err


def test_a_log_of_one_row_with_physics_hz_names_its_rows(tmp_path, capsys):
    """A truth log of one row with --physics-hz 50 was refused as 'the truth log ... runs at
    120 Hz (its rows' spacing)', a spacing one row does not have (found by the fuzz helper):
    its own error, too few rows, is now the line; truth_rate says the rate is the default."""
    from navsense.truth.io import truth_rate, write_truth

    path = tmp_path / "one.csv"
    write_truth(circle_truth(1), path)
    assert truth_rate(path) == (120.0, "default")
    argv = ["simulate", "--truth", str(path), "--physics-hz", "50", "--out", str(tmp_path / "o")]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith(
        "one.csv: the truth log has 1 row(s); at least 3 physics steps are required"
    )
    assert "\n" not in err


def test_a_huge_rate_in_a_sidecar_is_printed_short(tmp_path, capsys):
    """A CSV log whose sidecar states rate_hz 1e300 was refused with physics.hz printed as its
    301 digits (a whole float made an integer; found by the fuzz helper): now 1e+300."""
    from navsense.truth.io import write_truth

    path = tmp_path / "log.csv"
    write_truth(circle_truth(30), path)
    (tmp_path / "log.truth.json").write_text('{"rate_hz": 1e300}')
    assert main(["simulate", "--truth", str(path), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith(
        "(its rate, from its metadata): physics.hz = 1e+300 is out of range 50..2000"
    )
