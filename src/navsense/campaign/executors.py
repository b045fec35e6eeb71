"""The executors of a campaign's runs: (runs to do, the function of one run) -> results, in
completion order. :func:`serial_executor` runs them in this process, one after the other;
:func:`dask_executor` on a local Dask cluster or an existing scheduler (navsense.campaign.runner
chooses, and its module docstring tells the rules).

Cores. Serially, a run is alone in this process and sizes its threads (and its forked worker)
from the machine's cores, as ``navsense simulate`` does. On Dask a run runs in the worker that
took it, on the worker's thread alone (:func:`run_on_one_core`: no model threads, no writer
thread, no process of its own), with one BLAS thread (:data:`LOCAL_WORKER_CONFIG`): a campaign
on N workers then costs the CPU of the same runs done one after the other, plus the cluster's
own (its start: the workers' interpreters and imports; the scheduler), measured by
benchmarks/bench_campaign.py.

Memory. A worker holds one run at a time (threads_per_worker=1): its peak is one run's (a
scenario's truth held whole, about 55 MB an hour at 120 Hz, and a chunk's arrays and rows) plus
the interpreter and its imports (about 230 MiB for a 300 s run, bench_campaign.py). Dask's own
limit stays: each worker of a LocalCluster may use the machine's memory divided by the workers
(memory_limit="auto"), and its nanny restarts a worker beyond 95 % of it; the run it held is
then reported lost and done again when the campaign is resumed.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator

from navsense._runtime.process import stops_deferred
from navsense._runtime.waits import STEP_S
from navsense.errors import ConfigError

__all__ = [
    "Executor",
    "LOCAL_WORKER_CONFIG",
    "serial_executor",
    "dask_executor",
    "check_scheduler_address",
    "default_workers",
    "run_on_one_core",
]

#: Dask settings of the workers of the local cluster. The statistical profiler samples the
#: running task's stack every 10 ms, which slowed a run by ~27 % (benchmarks/bench_campaign.py);
#: MALLOC_TRIM_THRESHOLD_ (set by Dask) turns off glibc's adaptive mmap threshold, so large
#: numpy arrays are mapped and zeroed again at every allocation: another ~10 % measured here.
#: One BLAS thread a worker (OpenBLAS, OpenMP, MKL read these when numpy loads, before the
#: worker's first import: the nanny sets them before it starts the worker process; Dask's own
#: defaults, made explicit so that a user's Dask configuration cannot undo them): a worker is one
#: core's share, and navsense's numeric work is elementwise, never a large matrix product. For
#: the workers of an existing scheduler, set DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED=False and
#: OPENBLAS_NUM_THREADS=OMP_NUM_THREADS=MKL_NUM_THREADS=1 where they start.
LOCAL_WORKER_CONFIG = {
    "distributed.worker.profile.enabled": False,
    "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None,
    "distributed.nanny.pre-spawn-environ.OPENBLAS_NUM_THREADS": 1,
    "distributed.nanny.pre-spawn-environ.OMP_NUM_THREADS": 1,
    "distributed.nanny.pre-spawn-environ.MKL_NUM_THREADS": 1,
}

#: An executor: (runs to do, the function of one run) -> results, in completion order.
Executor = Callable[[list, Callable[[dict], dict]], Iterator[dict]]


def serial_executor(runs: list, fn: Callable[[dict], dict]) -> Iterator[dict]:
    """Run each run in this process, in order."""
    for run in runs:
        yield fn(run)


def check_scheduler_address(address: str) -> None:
    """ConfigError unless ``address`` reads as a Dask scheduler's ``[SCHEME://]HOST:PORT`` (port
    1..65535; inproc:// lives in another process only), before anything is started or made: an
    address that is none failed inside Dask's client, after the campaign directory was made."""
    try:
        from distributed.comm import parse_address
        from distributed.comm.addressing import parse_host_port
    except ImportError:  # the executor says that Dask is missing
        return
    what = f"--scheduler {address!r}: not a Dask scheduler address such as tcp://10.0.0.5:8786"
    try:
        scheme, where = parse_address(address.strip())
        if scheme == "inproc":
            raise ValueError("an inproc:// scheduler is inside another process")
        host, port = parse_host_port(where)
    except (ValueError, TypeError) as exc:
        raise ConfigError(f"{what} ({exc})") from None
    if not host or not 1 <= int(port) <= 65535:
        raise ConfigError(f"{what} (host {host!r}, port {port})")


def local_cluster(workers: int):
    """A Dask LocalCluster of ``workers`` processes of one thread each, as ``navsense campaign
    run`` starts it (:data:`LOCAL_WORKER_CONFIG`; no dashboard; the scheduler's small HTTP
    server on a free loopback port); ``benchmarks/bench_campaign.py`` times the same start."""
    import logging

    import dask
    from dask.distributed import LocalCluster

    with dask.config.set(LOCAL_WORKER_CONFIG):
        return LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            scheduler_kwargs={"dashboard_address": ":0"},
            silence_logs=logging.ERROR,
        )


def dask_executor(workers: int | None = None, scheduler: str | None = None) -> Executor:
    """An executor on Dask: a new LocalCluster of ``workers`` processes of one thread each, or
    the existing scheduler at ``scheduler`` (``tcp://HOST:PORT``)."""

    def execute(runs: list, fn: Callable[[dict], dict]) -> Iterator[dict]:
        try:
            from dask.distributed import Client, as_completed
        except ImportError:
            raise ConfigError(
                "campaign run: Dask is not installed; pip install 'navsense[campaign]' "
                "(dask[distributed]), or use --workers 0 to run serially"
            ) from None
        cluster = client = None
        token = uuid.uuid4().hex[:8]
        try:
            # made whole under a stop, which is raised once they are (then closed below): a
            # cluster left half made could not be closed, and distributed's own close at the
            # exit failed on it with a traceback (AssertionError: Status.init)
            with stops_deferred():
                if scheduler:
                    client = _connect(scheduler)
                else:
                    n = max(1, min(workers or default_workers(), len(runs)))  # no idle processes
                    cluster = local_cluster(n)
                    client = Client(cluster)
            with stops_deferred():
                futures = [
                    client.submit(
                        run_on_one_core, fn, run, key=f"navsense-run-{run['run_id']}-{token}"
                    )
                    for run in runs
                ]
                pending = as_completed(futures)
            by_key = {f.key: run for f, run in zip(futures, runs)}
            for future in _each_done(pending):
                run = by_key[future.key]
                with stops_deferred():
                    try:
                        outcome = future.result()
                    except Exception as exc:
                        outcome = {
                            "run_id": run["run_id"],
                            "status": "lost",
                            "error": f"{type(exc).__name__}: {exc}",
                        }
                    future.release()
                yield outcome
        finally:
            with stops_deferred():  # Dask's locks and threads are left whole (_each_done)
                if client is not None:
                    client.close()
                if cluster is not None:
                    cluster.close()

    return execute


def _connect(scheduler: str):
    """A Dask client of the scheduler at ``scheduler`` (ConfigError when it cannot connect)."""
    from dask.distributed import Client

    try:
        return Client(scheduler, timeout="20s")
    except (OSError, TimeoutError, ValueError) as exc:
        raise ConfigError(
            f"--scheduler {scheduler}: cannot connect to the Dask scheduler ({exc})"
        ) from None


def _each_done(pending) -> Iterator:
    """The futures of Dask's ``as_completed`` ``pending`` as they are done. Its own iteration
    waits on a ``threading.Condition`` that Dask's event-loop thread notifies: a stop raised in
    that wait could leave the condition's lock held, and the client's close, which needs that
    thread, hung. Here each look at ``pending`` is whole (navsense._runtime.waits), and the waits
    between them are plain sleeps, where a stop is raised safely."""
    import time

    while True:
        with stops_deferred():
            batch = pending.next_batch(block=False)
            left = pending.count()
        yield from batch
        if not batch:
            if not left:
                return
            time.sleep(STEP_S)


def run_on_one_core(fn: Callable[[dict], dict], run: dict) -> dict:
    """``fn(run)`` in a Dask worker, on the worker's thread alone
    (:func:`navsense._runtime.machine.one_core`): the run adds no thread and no process of its
    own, since the campaign already runs one run on each core."""
    from navsense._runtime.machine import one_core

    with one_core():
        return fn(run)


def default_workers() -> int:
    """The processor cores available to this process (navsense._runtime.machine)."""
    from navsense._runtime.machine import available_cores

    return available_cores()
