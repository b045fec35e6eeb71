"""The executors of a campaign's runs: (runs to do, the function of one run) -> results, in
completion order. :func:`serial_executor` runs them in this process, one after the other;
:func:`dask_executor` on a local Dask cluster or an existing scheduler (navsense.campaign.runner
chooses, and its module docstring tells the rules).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator

from navsense.errors import ConfigError

__all__ = [
    "Executor",
    "LOCAL_WORKER_CONFIG",
    "serial_executor",
    "dask_executor",
    "check_scheduler_address",
    "default_workers",
]

#: Dask settings of the workers of the local cluster. The statistical profiler samples the
#: running task's stack every 10 ms, which slowed a run by ~27 % (benchmarks/bench_campaign.py);
#: MALLOC_TRIM_THRESHOLD_ (set by Dask) turns off glibc's adaptive mmap threshold, so large
#: numpy arrays are mapped and zeroed again at every allocation: another ~10 % measured here. For the workers of an
#: existing scheduler, set DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED=False where they start.
LOCAL_WORKER_CONFIG = {
    "distributed.worker.profile.enabled": False,
    "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None,
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


def dask_executor(workers: int | None = None, scheduler: str | None = None) -> Executor:
    """An executor on Dask: a new LocalCluster of ``workers`` processes of one thread each, or
    the existing scheduler at ``scheduler`` (``tcp://HOST:PORT``)."""

    def execute(runs: list, fn: Callable[[dict], dict]) -> Iterator[dict]:
        try:
            import logging

            from dask.distributed import Client, LocalCluster, as_completed
        except ImportError:
            raise ConfigError(
                "campaign run: Dask is not installed; pip install 'navsense[campaign]' "
                "(dask[distributed]), or use --workers 0 to run serially"
            ) from None
        cluster = None
        if scheduler:
            try:
                client = Client(scheduler, timeout="20s")
            except (OSError, TimeoutError, ValueError) as exc:
                raise ConfigError(
                    f"--scheduler {scheduler}: cannot connect to the Dask scheduler ({exc})"
                ) from None
        else:
            import dask

            n = max(1, min(workers or default_workers(), len(runs)))  # no idle processes
            # no dashboard; the scheduler's small HTTP server on a free loopback port
            with dask.config.set(LOCAL_WORKER_CONFIG):
                cluster = LocalCluster(
                    n_workers=n,
                    threads_per_worker=1,
                    processes=True,
                    host="127.0.0.1",
                    dashboard_address=None,
                    scheduler_kwargs={"dashboard_address": ":0"},
                    silence_logs=logging.ERROR,
                )
            client = Client(cluster)
        token = uuid.uuid4().hex[:8]
        try:
            futures = [
                client.submit(fn, run, key=f"navsense-run-{run['run_id']}-{token}") for run in runs
            ]
            by_key = {f.key: run for f, run in zip(futures, runs)}
            for future in as_completed(futures):
                run = by_key[future.key]
                try:
                    yield future.result()
                except Exception as exc:
                    yield {
                        "run_id": run["run_id"],
                        "status": "lost",
                        "error": f"{type(exc).__name__}: {exc}",
                    }
                future.release()
        finally:
            client.close()
            if cluster is not None:
                cluster.close()

    return execute


def default_workers() -> int:
    """The processor cores available to this process (navsense._runtime.machine)."""
    from navsense._runtime.machine import available_cores

    return available_cores()
