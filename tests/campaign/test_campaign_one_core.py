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


def test_a_stop_while_the_local_cluster_starts_closes_it():
    """Ctrl-C while the LocalCluster started (2-5 s) left it half made: nothing closed it, and
    distributed's own close at the exit failed on it with a traceback ('Exception ignored in
    atexit callback ... AssertionError: Status.init'; the stop hunt: 8 of 44 SIGINTs to a
    campaign on two workers). The stop is raised once the cluster and its client are made, and
    both are closed."""
    import signal
    from unittest import mock

    from navsense._runtime import process

    made = []

    class Made:
        closed = False

        def close(self):
            self.closed = True

    def cluster_stopped_as_it_starts(n):
        made.append(Made())
        signal.raise_signal(signal.SIGINT)
        return made[-1]

    def client(cluster):
        made.append(Made())
        return made[-1]

    previous = signal.signal(signal.SIGINT, process.raise_interrupt)
    try:
        with (
            mock.patch("navsense.campaign.executors.local_cluster", cluster_stopped_as_it_starts),
            mock.patch("dask.distributed.Client", client),
            pytest.raises(KeyboardInterrupt),
        ):
            list(dask_executor(workers=2)([{"run_id": "a"}], dict))
    finally:
        signal.signal(signal.SIGINT, previous)
    assert len(made) == 2 and all(m.closed for m in made)
