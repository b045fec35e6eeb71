"""The machine a run is on: the cores this process may use, and what is sized from them.

``navsense simulate`` runs its models on threads of its own process and, with
``--workers processes``, in one forked worker process; SensorStream runs its models in a worker
process when the latency gives it time. Each is sized here from the cores this process may run
on (its CPU affinity where the system has one, else ``os.cpu_count()``), never from a constant:
a second process or thread on a single core only adds switches.
"""

from __future__ import annotations

import os

__all__ = ["available_cores", "model_threads", "worker_processes"]


def available_cores() -> int:
    """The processor cores this process may run on (at least 1)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - no affinity outside Linux
        return max(1, os.cpu_count() or 1)


def model_threads(n_models: int) -> int:
    """Threads that run ``n_models`` models side by side: one a core, no more than the models."""
    return max(1, min(int(n_models), available_cores()))


def worker_processes() -> int:
    """Worker processes a run may add beside its own: one where there is a second core, else 0.

    One: a run's models split well in two (navsense.simulate._split_models); a third process
    would need its own copy of the truth and a share of the GIL-free work that two already use.
    """
    return 1 if available_cores() >= 2 else 0
