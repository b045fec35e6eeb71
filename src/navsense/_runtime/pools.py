"""The thread pools of a run: its models' threads and its one writer thread, or on one core
(:func:`navsense._runtime.machine.inline`) none. The main thread's calls on them go through
:mod:`navsense._runtime.waits` (a stop during one is raised after it)."""

from __future__ import annotations

from navsense._runtime import machine, waits
from navsense._runtime.process import stops_deferred

__all__ = ["InlinePool", "WriteQueue", "model_pool"]


class WriteQueue:
    """The blocking writes of a run on one background thread, in the order they were submitted.

    The main thread computes and encodes; file writes and Parquet encoding release the GIL, so
    they overlap with the next chunk's models on a second core. At most MAX_PENDING writes wait,
    which bounds the memory; a failed write raises in the main thread at the next submit. On one
    core (:func:`navsense._runtime.machine.inline`) each write is done when it is submitted.
    """

    MAX_PENDING = 6

    def __init__(self) -> None:
        from collections import deque
        from concurrent.futures import ThreadPoolExecutor

        self._pool: InlinePool | ThreadPoolExecutor = (
            InlinePool()
            if machine.inline()
            else ThreadPoolExecutor(max_workers=1, thread_name_prefix="navsense-writer")
        )
        self._pending: deque = deque()

    def submit(self, fn, *args) -> None:
        self._pending.append(waits.submit(self._pool, fn, *args))
        while len(self._pending) > self.MAX_PENDING:
            waits.result(self._pending.popleft())

    def close(self) -> None:
        """Wait for every write (raising the first failure), then stop the thread; a stop
        meanwhile is raised after (navsense._runtime.waits)."""
        with stops_deferred():
            try:
                while self._pending:
                    self._pending.popleft().result()
            finally:
                for future in self._pending:
                    future.cancel()
                self._pool.shutdown(wait=True)


class InlinePool:
    """A pool without threads (one core, :func:`navsense._runtime.machine.inline`): a call
    submitted runs at once in the calling thread; its future is done when ``submit`` returns."""

    def submit(self, fn, *args):
        from concurrent.futures import Future

        future: Future = Future()
        try:
            future.set_result(fn(*args))
        except Exception as exc:
            future.set_exception(exc)
        return future

    def shutdown(self, wait: bool = True) -> None:
        pass


def model_pool(n_models: int):
    """The threads that run this process's models (navsense._runtime.machine.model_threads), or
    on one core (:func:`navsense._runtime.machine.inline`) none: each model runs when submitted."""
    from concurrent.futures import ThreadPoolExecutor

    if machine.inline():
        return InlinePool()
    return ThreadPoolExecutor(
        max_workers=machine.model_threads(n_models), thread_name_prefix="navsense-model"
    )
