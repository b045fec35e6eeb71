"""The machine a run is on: the cores this process may use, and what is sized from them.

``navsense simulate`` runs its models on threads of its own process and, with
``--workers processes``, in one forked worker process; SensorStream runs its models in a worker
process when the latency gives it time. Each is sized here from the cores this process may run
on (its CPU affinity where the system has one, else ``os.cpu_count()``), never from a constant:
a second process or thread on a single core only adds switches.

One core. Where there is one core, or inside :func:`one_core` (a campaign's run in a Dask
worker, :mod:`navsense.campaign.executors`: the campaign runs one run a core already), a run has
no thread or process of its own: its models and its writes run in the calling thread, one after
the other (:func:`inline`), in the same order, so the files are the same bytes.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
from collections.abc import Iterator

__all__ = ["available_cores", "inline", "model_threads", "one_core", "worker_processes"]

#: The cores granted by :func:`one_core` (None: the process's own); a context variable, so a
#: task running on one thread of a pool grants it to that thread alone.
_GRANTED: contextvars.ContextVar[int | None] = contextvars.ContextVar(
    "navsense_cores", default=None
)


def available_cores() -> int:
    """The processor cores this process may run on (at least 1), or 1 inside :func:`one_core`."""
    if _GRANTED.get() is not None:
        return 1
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - no affinity outside Linux
        return max(1, os.cpu_count() or 1)


@contextlib.contextmanager
def one_core() -> Iterator[None]:
    """Within it, this thread's work counts on one core: :func:`available_cores` is 1, so a run
    adds no thread and no process (:func:`inline`, :func:`worker_processes`)."""
    token = _GRANTED.set(1)
    try:
        yield
    finally:
        _GRANTED.reset(token)


def inline() -> bool:
    """True when a run's models and writes run in the calling thread: one core."""
    return available_cores() == 1


def model_threads(n_models: int) -> int:
    """Threads that run ``n_models`` models side by side: one a core, no more than the models."""
    return max(1, min(int(n_models), available_cores()))


def worker_processes() -> int:
    """Worker processes a run may add beside its own: one where there is a second core, else 0.

    One: a run's models split well in two (navsense.simulate._split_models); a third process
    would need its own copy of the truth and a share of the GIL-free work that two already use.
    """
    return 1 if available_cores() >= 2 else 0
