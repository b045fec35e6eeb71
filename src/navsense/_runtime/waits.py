"""The main thread's calls on a run's threads, safe from a stop that arrives during them.

A stop (Ctrl-C, SIGTERM, SIGHUP) is raised in the main thread by its handler between any two
bytecodes. Raised inside ``concurrent.futures``, ``queue`` or ``threading`` code between a lock's
acquire and its release, it leaves the lock held, or released under the thread that holds it: the
writer thread then hangs on it (and the run's cleanup, which joins that thread, with it) or fails
with "release unlocked lock". Found by CI on stop 36: a SIGHUP that had not ended a run 60 s on;
replayed here under load, the writer thread's traceback. Each call below runs inside
:func:`navsense._runtime.process.stops_deferred`, which raises a stop that came during it once the
call is over. A wait that may last is cut into waits of at most :data:`STEP_S`, each its own
region, so a stop still ends it within that time; inside a larger region (a run's cleanup) the
stop waits for the region's end.
"""

from __future__ import annotations

import queue
import threading
from typing import TYPE_CHECKING

from navsense._runtime.process import stops_deferred

if TYPE_CHECKING:
    from concurrent.futures import Future

__all__ = ["STEP_S", "first_done", "join", "put", "result", "start", "submit"]

STEP_S = 0.1  # s: the longest a stop waits for a wait to return


def submit(pool, fn, *args) -> Future:
    """``pool.submit(fn, *args)`` (a ``ThreadPoolExecutor``, or a pool that runs ``fn`` at once)."""
    with stops_deferred():
        return pool.submit(fn, *args)


def result(future: Future):
    """The result of ``future`` once it is done (its exception raised)."""
    from concurrent.futures import wait

    while True:
        with stops_deferred():
            if future.done() or wait((future,), timeout=STEP_S).done:
                return future.result()


def first_done(futures) -> set:
    """The futures of ``futures`` that are done, once one is."""
    from concurrent.futures import FIRST_COMPLETED, wait

    while True:
        with stops_deferred():
            done = wait(futures, timeout=STEP_S, return_when=FIRST_COMPLETED).done
        if done:
            return done


def put(q: queue.Queue, item) -> None:
    """``q.put(item)``, waiting while ``q`` is full."""
    while True:
        with stops_deferred():
            try:
                q.put(item, timeout=STEP_S)
                return
            except queue.Full:
                pass


def start(thread: threading.Thread) -> None:
    """``thread.start()`` (which waits for the thread to run)."""
    with stops_deferred():
        thread.start()


def join(thread: threading.Thread, timeout: float | None = None) -> None:
    """``thread.join(timeout)``."""
    if timeout is not None:
        with stops_deferred():
            thread.join(timeout)
        return
    while thread.is_alive():
        with stops_deferred():
            thread.join(STEP_S)
