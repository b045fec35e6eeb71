"""A run on one core (navsense._runtime.machine.one_core, a campaign's run in a Dask worker):
no thread and no process of its own, the same bytes as a run on threads and a forked worker."""

import threading
from pathlib import Path

import pytest

import navsense._runtime.worker
from navsense._runtime import machine
from navsense.campaign.executors import run_on_one_core
from navsense.config import load_config
from navsense.scenarios import load_scenario
from navsense.simulate import simulate


def _files(run: Path) -> dict:
    return {p.name: p.read_bytes() for p in sorted(run.iterdir())}


def test_one_core_is_granted_to_this_thread_alone_and_given_back():
    cores = machine.available_cores()
    seen = {}
    with machine.one_core():
        seen["here"] = machine.available_cores()
        other = threading.Thread(target=lambda: seen.update(other=machine.available_cores()))
        other.start()
        other.join()
        assert machine.inline() and machine.worker_processes() == 0
        assert machine.model_threads(6) == 1
    assert seen == {"here": 1, "other": cores}
    assert machine.available_cores() == cores
    assert run_on_one_core(lambda run: {"cores": machine.available_cores(), **run}, {"a": 1}) == {
        "cores": 1,
        "a": 1,
    }


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_a_run_on_one_core_starts_no_thread_and_writes_the_same_bytes(tmp_path, fmt, monkeypatch):
    scenario = load_scenario("acre-loop", duration_s=15.0)
    cfg = load_config(vehicle="polaris")
    for name in ("mag", "baro", "odom"):
        cfg[name]["enabled"] = True
    # earlier tests may leave an idle daemon thread (Dask's offload pool): let the fork happen
    monkeypatch.setattr(navsense._runtime.worker.threading, "active_count", lambda: 1)
    args = (scenario.truth, cfg, scenario.vehicle, scenario.site)
    options = {"output_format": fmt, "chunk_steps": 400}
    simulate(*args, tmp_path / "threads", **options)
    simulate(*args, tmp_path / "processes", workers="processes", **options)

    def no_thread(self, *args, **kwargs):
        raise AssertionError(f"a thread started on one core: {self!r}")

    monkeypatch.setattr(threading.Thread, "start", no_thread)
    with machine.one_core():
        simulate(*args, tmp_path / "one", workers="processes", **options)
    one = _files(tmp_path / "one")
    assert one == _files(tmp_path / "threads") == _files(tmp_path / "processes")
    assert {"imu", "ins", "gnss", "mag", "baro", "odom"} <= {n.split(".")[0] for n in one}
