"""SensorStream: the rows of a run's files, each delivered at its delivery step, in this process
or in a worker process."""

import gc
import threading

import numpy as np
import orjson
import pytest

from navsense.config import load_config
from navsense.errors import DatumError, NavsenseError, StreamError
from navsense.scenarios import load_scenario
from navsense.simulate import simulate
from navsense.stream import SensorStream
from navsense.truth.states import TruthStates

STEPS = 1500  # 12.5 s of acre-loop: 125 GNSS epochs, the extra sensors too
EXTRAS = {"mag.enabled": True, "baro.enabled": True, "odom.enabled": True}


@pytest.fixture(scope="module")
def scenario():
    return load_scenario("acre-loop")


@pytest.fixture(scope="module")
def cfg():
    return load_config(vehicle="polaris", overrides=EXTRAS)


@pytest.fixture(scope="module")
def files(scenario, cfg, tmp_path_factory):
    """The JSONL lines of each sensor of a run over the same truth."""
    out = tmp_path_factory.mktemp("run") / "run"
    simulate(scenario.truth.slice(0, STEPS), cfg, scenario.vehicle, scenario.site, out)
    return {p.stem: p.read_bytes().splitlines() for p in out.glob("*.jsonl")}


def _stream_steps(stream, truth, sizes=(1,)):
    """Feed ``truth`` in chunks of the given sizes (cycled): [(last step, delivered rows)], rest."""
    out, start, i = [], 0, 0
    while start < len(truth):
        chunk = truth.slice(start, start + sizes[i % len(sizes)])
        out.append((chunk.step0 + len(chunk) - 1, stream.step(chunk)))
        start += len(chunk)
        i += 1
    return out, stream.close()


def _lines(delivered, rest) -> dict:
    lines: dict = {}
    for rows in [d for _, d in delivered] + [rest]:
        for name, sensor_rows in rows.items():
            lines.setdefault(name, []).extend(orjson.dumps(r) for r in sensor_rows)
    return lines


@pytest.mark.parametrize("worker", [False, True])
def test_the_rows_are_the_runs_files_each_at_its_delivery_step(scenario, cfg, files, worker):
    stream = SensorStream(cfg, scenario.vehicle, scenario.site, worker=worker)
    assert stream.in_worker == worker and stream.latency_steps == 6  # 0.05 s at 120 Hz
    delivered, rest = _stream_steps(stream, scenario.truth.slice(0, STEPS))
    assert _lines(delivered, rest) == files
    assert set(files) == {"gnss", "imu", "ins", "mag", "baro", "odom"}
    for last, rows in delivered:
        for sensor_rows in rows.values():
            for row in sensor_rows:  # delivered at the first step with t >= t_available
                assert round(row["delivery_time_s"] * 120.0) == last
                assert row["available_time_s"] <= last / 120.0 + 1e-9
    for sensor_rows in rest.values():
        assert all(round(r["delivery_time_s"] * 120.0) > STEPS - 1 for r in sensor_rows)
    # the samples at t = 0 are due at 0.05 s, step 6 (the IMU's first sample is later)
    assert delivered[5][1] == {} and delivered[6][1].keys() == {
        "gnss",
        "ins",
        "mag",
        "baro",
        "odom",
    }


def test_chunks_give_the_rows_of_steps_by_the_end_of_each_chunk(scenario, cfg, files):
    truth = scenario.truth.slice(0, STEPS)
    stream = SensorStream(cfg, scenario.vehicle, scenario.site, worker=True)
    # 600 steps fill more slots than the worker's ring has (8 of 64 steps)
    delivered, rest = _stream_steps(stream, truth, sizes=(1, 7, 2, 40, 3, 300, 600))
    assert _lines(delivered, rest) == files
    for last, rows in delivered:
        for sensor_rows in rows.values():
            assert all(round(r["delivery_time_s"] * 120.0) <= last for r in sensor_rows)


def test_without_latency_the_models_run_here_and_rows_come_at_once(scenario):
    cfg = load_config(vehicle="polaris", overrides={"delay_s": 0.0})
    stream = SensorStream(cfg, scenario.vehicle, scenario.site)
    assert not stream.in_worker and stream.latency_steps == 0
    first = stream.step(scenario.truth.slice(0, 1))
    assert first.keys() == {"gnss", "ins"}  # the IMU's first sample is at step 2
    assert first["ins"][0]["delivery_time_s"] == first["ins"][0]["sample_time_s"] == 0.0
    stream.step(scenario.truth.slice(1, 2))
    third = stream.step(scenario.truth.slice(2, 3))
    assert third["imu"][0]["delivery_time_s"] == third["imu"][0]["sample_time_s"] == 0.016666667
    assert stream.close() == {}


def test_a_spawned_worker_when_other_threads_run(scenario, cfg, files):
    """fork is unsafe with other threads alive: the worker is then a fresh interpreter."""
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        stream = SensorStream(cfg, scenario.vehicle, scenario.site, worker=True)
        assert stream._process._start_method == "spawn"
        delivered, rest = _stream_steps(stream, scenario.truth.slice(0, 200), sizes=(50,))
    finally:
        stop.set()
        other.join()
    lines = _lines(delivered, rest)
    assert lines == {name: files[name][: len(rows)] for name, rows in lines.items()}
    assert len(lines["imu"]) == 198 and len(lines["gnss"]) == 17  # 200 steps, all rows


def _far_truth(n: int) -> TruthStates:
    """n steps 5000 km north of the site: outside EPSG:2968's domain."""
    p = np.tile([0.0, 5e6, 0.0], (n, 1))
    q = np.tile([0.0, 0.0, 0.0, 1.0], (n, 1))
    z = np.zeros((n, 3))
    return TruthStates(
        step0=0, p_m=p, q_xyzw=q, v_mps=z, w_radps=z, c_m=p.copy(), reset=np.zeros(n, dtype=bool)
    )


@pytest.mark.parametrize("worker", [False, True])
def test_a_models_error_is_raised_and_ends_the_stream(scenario, cfg, worker):
    stream = SensorStream(cfg, scenario.vehicle, scenario.site, worker=worker)
    truth = _far_truth(40)
    with pytest.raises(DatumError, match="outside"):
        for k in range(len(truth)):
            stream.step(truth.slice(k, k + 1))
        stream.close()
    with pytest.raises(ValueError, match="the stream is closed") as closed:
        stream.step(truth.slice(0, 1))
    assert isinstance(closed.value, NavsenseError)  # one line on the command line
    if worker:
        assert not stream._process.is_alive()


def test_the_workers_error_comes_back_after_the_worker_has_gone(scenario, cfg):
    stream = SensorStream(cfg, scenario.vehicle, scenario.site, worker=True)
    truth = _far_truth(9)
    assert stream.step(truth.slice(0, 3)) == {}  # sent; its rows are not due yet
    stream._process.join(10.0)  # the worker failed on them and ended
    assert not stream._process.is_alive()
    with pytest.raises(DatumError, match="outside"):
        stream.step(
            truth.slice(3, 9)
        )  # rows of step 2 due: sent to a closed pipe, the last reply read


def test_a_dropped_stream_ends_its_worker(scenario, cfg):
    stream = SensorStream(cfg, scenario.vehicle, scenario.site, worker=True)
    stream.step(scenario.truth.slice(0, 10))
    process = stream._process
    del stream
    gc.collect()
    process.join(10.0)
    assert process.exitcode == 0


def test_a_stream_may_start_at_any_step_and_take_empty_chunks(scenario, cfg):
    truth = scenario.truth.slice(0, 400)
    late = TruthStates(
        step0=1000,
        p_m=truth.p_m,
        q_xyzw=truth.q_xyzw,
        v_mps=truth.v_mps,
        w_radps=truth.w_radps,
        c_m=truth.c_m,
        reset=truth.reset,
    )
    got = {}
    for worker in (False, True):
        stream = SensorStream(cfg, scenario.vehicle, scenario.site, worker=worker)
        assert stream.step(late.slice(0, 0)) == {}
        delivered, rest = _stream_steps(stream, late, sizes=(1, 0, 5))
        got[worker] = _lines(delivered, rest)
        first_imu = orjson.loads(got[worker]["imu"][0])
        assert first_imu["sample_time_s"] == round(1002 / 120.0, 9)  # the first sample at step 2
    assert got[False] == got[True]


def test_bad_calls_are_named(scenario, cfg):
    with SensorStream(cfg, scenario.vehicle, scenario.site, worker=False) as stream:
        truth = scenario.truth.slice(0, 10)
        stream.step(truth.slice(0, 2))
        with pytest.raises(ValueError, match="physics step 5 given, expected 2"):
            stream.step(truth.slice(5, 6))
    with SensorStream(cfg, scenario.vehicle, scenario.site, worker=True) as stream:
        with pytest.raises(StreamError, match="takes a TruthStates, got dict"):
            stream.step({"p_m": [0.0, 0.0, 0.0]})
        stream.step(truth.slice(0, 1))
        with pytest.raises(ValueError, match="physics step 3 given, expected 1"):
            stream.step(truth.slice(3, 4))
            stream.close()
