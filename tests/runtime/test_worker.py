"""Models split between this process and a forked worker: same bytes, errors come back, no leftovers."""

import multiprocessing
from pathlib import Path

import pytest

from conftest import open_sky_circle
from navsense._runtime.worker import WorkerError, fork_available
from navsense.cli import main
from navsense.config import load_config
from navsense.scenarios import load_scenario
from navsense.simulate import _split_models, build_models, simulate
from navsense.truth.io import write_truth
from navsense.vehicles import vehicle_profile

pytestmark = pytest.mark.skipif(not fork_available(), reason="forked workers need Linux")


@pytest.fixture
def alone(monkeypatch):
    """navsense forks only from a process without other threads; earlier tests of this session
    may leave an idle daemon thread (Dask's offload pool): let the fork happen anyway."""
    import navsense._runtime.worker

    monkeypatch.setattr(navsense._runtime.worker.threading, "active_count", lambda: 1)


@pytest.fixture(scope="module")
def truth_parquet(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("truth") / "circle.parquet"
    write_truth(open_sky_circle(1800, radius_m=25.0), path)
    return path


def _files(run: Path) -> dict:
    return {p.name: p.read_bytes() for p in sorted(run.iterdir())}


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_processes_and_threads_write_the_same_bytes(tmp_path, truth_parquet, fmt, alone):
    runs = {}
    for workers in ("threads", "processes"):
        out = tmp_path / workers
        assert (
            main(
                [
                    "simulate",
                    "--truth",
                    str(truth_parquet),
                    "--out",
                    str(out),
                    "--quiet",
                    "--format",
                    fmt,
                    "--mag",
                    "--baro",
                    "--odom",
                    "--chunk-steps",
                    "500",
                    "--workers",
                    workers,
                ]
            )
            == 0
        )
        runs[workers] = _files(out)
    assert set(runs["threads"]) >= {
        f"{s}.{fmt}" for s in ("gnss", "imu", "ins", "mag", "baro", "odom")
    }
    assert runs["threads"] == runs["processes"]
    assert not multiprocessing.active_children()


def _setup():
    scenario = load_scenario("acre-loop", duration_s=20.0)
    cfg = load_config(vehicle="polaris")
    return scenario, cfg


def _split_classes(cfg, scenario):
    georef = scenario.site.make_georeference(
        cfg["gnss"]["datum"]["start_utc"], cfg["gnss"]["datum"]
    )
    models = build_models(cfg, vehicle_profile("polaris"), scenario.site, georef)
    local, remote = _split_models(models, "jsonl", "processes")
    assert local and remote
    return type(local[0]), type(remote[0])


def _failing(original):
    def process(self, chunk):
        if chunk.step0 > 0:
            raise RuntimeError(f"{self.name} broke at step {chunk.step0}")
        return original(self, chunk)

    return process


@pytest.mark.parametrize(
    "where, error, message",
    [
        ("worker", WorkerError, "RuntimeError.*broke at step"),  # raised there, reported here
        ("here", RuntimeError, "broke at step"),  # raised here: the worker is stopped
    ],
)
def test_an_error_in_either_process_ends_the_run_and_leaves_nothing(
    tmp_path, monkeypatch, where, error, message, alone
):
    scenario, cfg = _setup()
    local_cls, remote_cls = _split_classes(cfg, scenario)
    cls = remote_cls if where == "worker" else local_cls
    monkeypatch.setattr(cls, "process", _failing(cls.process))
    out = tmp_path / "run"
    with pytest.raises(error, match=message):
        simulate(
            scenario.truth,
            cfg,
            scenario.vehicle,
            scenario.site,
            out,
            chunk_steps=600,
            workers="processes",
        )
    assert not out.exists() and not list(tmp_path.iterdir())
    assert not multiprocessing.active_children()


def test_models_are_split_by_cost_and_one_model_stays_here(alone):
    scenario, cfg = _setup()
    georef = scenario.site.make_georeference(
        cfg["gnss"]["datum"]["start_utc"], cfg["gnss"]["datum"]
    )
    models = build_models(cfg, vehicle_profile("polaris"), scenario.site, georef)
    local, remote = _split_models(models, "parquet", "processes")
    # heaviest first, the parent starting with the reader's share: GNSS there, INS here, IMU there
    assert {m.name for m in local} == {"ins"} and {m.name for m in remote} == {"gnss", "imu"}
    assert _split_models(models[:1], "parquet", "processes") == (models[:1], [])
    assert _split_models(models, "parquet", "threads") == (models, [])


def test_a_process_with_other_threads_does_not_fork():
    import threading

    scenario, cfg = _setup()
    georef = scenario.site.make_georeference(
        cfg["gnss"]["datum"]["start_utc"], cfg["gnss"]["datum"]
    )
    models = build_models(cfg, vehicle_profile("polaris"), scenario.site, georef)
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert _split_models(models, "parquet", "processes") == (models, [])
    finally:
        stop.set()
        other.join()


def test_an_input_error_in_the_worker_is_the_same_one_line_as_in_one_process(
    tmp_path, monkeypatch, capsys, truth_parquet, alone
):
    """Issue 21: the worker's error carried the child's whole stack in its message."""
    from navsense.errors import DatumError

    def refuse(self, chunk):
        raise DatumError("latitude 91.0 is outside -90..90")

    _, remote_cls = _split_classes(*reversed(_setup()))
    monkeypatch.setattr(remote_cls, "process", refuse)
    lines = {}
    for workers in ("threads", "processes"):
        out = tmp_path / workers
        argv = ["simulate", "--truth", str(truth_parquet), "--out", str(out), "--quiet"]
        assert main([*argv, "--workers", workers]) == 2
        lines[workers] = capsys.readouterr().err.splitlines()
        assert not list(tmp_path.iterdir())
    assert (
        lines["processes"]
        == lines["threads"]
        == ["navsense: error: latitude 91.0 is outside -90..90"]
    )
    assert not multiprocessing.active_children()
    # --debug shows where the worker raised it
    argv = ["--debug", "simulate", "--truth", str(truth_parquet), "--out", str(tmp_path / "d")]
    assert main([*argv, "--quiet", "--workers", "processes"]) == 2
    err = capsys.readouterr().err
    assert "the worker process's traceback" in err and "in refuse" in err
    assert err.splitlines()[-1] == "navsense: error: latitude 91.0 is outside -90..90"


def test_sizes_come_from_the_cores_this_process_may_use(monkeypatch, alone):
    import os

    from navsense._runtime import machine

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)
    assert machine.available_cores() == 4
    assert machine.model_threads(3) == 3 and machine.model_threads(9) == 4
    assert machine.model_threads(0) == 1 and machine.worker_processes() == 1
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {5}, raising=False)
    assert machine.model_threads(3) == 1 and machine.worker_processes() == 0
    scenario, cfg = _setup()
    georef = scenario.site.make_georeference(
        cfg["gnss"]["datum"]["start_utc"], cfg["gnss"]["datum"]
    )
    models = build_models(cfg, vehicle_profile("polaris"), scenario.site, georef)
    assert _split_models(models, "parquet", "processes") == (models, [])  # one core: no worker


_STOP_DURING_THE_FORK = """
import os, signal
from navsense._runtime import process
from navsense._runtime.worker import Worker

signal.signal(signal.SIGTERM, process.raise_terminated)
armed = [True]


def sigterm_in_the_forks_callbacks():
    if armed[0]:
        armed[0] = False
        os.kill(os.getpid(), signal.SIGTERM)


os.register_at_fork(after_in_parent=sigterm_in_the_forks_callbacks)
try:
    Worker(len, ("ab",), method="fork")
except process.Terminated:
    print("stopped after the fork")
else:
    print("went on")
"""


def test_a_stop_during_the_fork_is_delivered_after_it():
    """Found by the interrupted-commands fuzz test: SIGTERM while the worker was forked was
    raised in the fork's callbacks (logging's lock release), where Python prints it as
    "Exception ignored" and goes on: the run then completed with exit 0. The stop now waits
    until the child is started (process.stops_held) and ends the command."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", _STOP_DURING_THE_FORK], capture_output=True, text=True, timeout=60
    )
    assert (done.stdout, done.stderr) == ("stopped after the fork\n", "")
