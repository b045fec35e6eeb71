"""A campaign's run inside a Dask worker runs on that worker's thread alone (issue 31 item 3):
one core granted (no model threads, no writer thread, no forked worker) and one BLAS thread."""

import pytest

from navsense.campaign.executors import LOCAL_WORKER_CONFIG, dask_executor, serial_executor


def test_blas_is_limited_to_one_thread_in_the_local_workers():
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        assert LOCAL_WORKER_CONFIG[f"distributed.nanny.pre-spawn-environ.{name}"] == 1


def test_a_run_in_a_dask_worker_has_one_core_and_one_blas_thread():
    pytest.importorskip("distributed")

    def probe(run):  # pickled by value: the workers need not import this module
        import os

        from navsense._runtime import machine

        return {
            "run_id": run["run_id"],
            "cores": machine.available_cores(),
            "inline": machine.inline(),
            "blas": [os.environ.get(k) for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")],
            "pid": os.getpid(),
        }

    runs = [{"run_id": f"r{k}"} for k in range(2)]
    results = list(dask_executor(workers=2)(runs, probe))
    assert sorted(r["run_id"] for r in results) == ["r0", "r1"]
    for r in results:
        assert (r["cores"], r["inline"], r["blas"]) == (1, True, ["1", "1"])
    # serially, a run is alone in this process: it may use the cores (threads, a forked worker)
    (here,) = serial_executor(runs[:1], probe)
    from navsense._runtime import machine

    assert here["cores"] == machine.available_cores()
