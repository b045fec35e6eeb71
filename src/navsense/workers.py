"""A group of sensor models in a forked worker process, fed chunk by chunk through a pipe.

The models of a run are independent (DESIGN.md: each owns its state), so a run can split them
between the main process and one forked child: each process computes and writes its own models'
files, and neither waits for the other's interpreter lock. On a 2-core machine this takes the
one-hour Parquet run from about 2.1 s (threads) to about 1.65 s (2026-11-29): on threads the
models take half as long again as alone, waiting for the lock (numpy releases it per operation,
the models' Python code holds it).

Protocol: the parent sends each chunk from a feeder thread through a bounded queue, so a slow
child holds the parent back (memory stays bounded) without blocking the parent's own models;
``None`` ends the stream. A truth chunk of at most ``slot_steps`` steps goes through shared memory
(:class:`navsense.truth.slots.TruthSlots`: the pipe carries only its slot), anything else pickled
through the pipe. The child runs ``target(next_chunk)`` and sends back its return value, or the
exception it raised with its traceback as text; the parent raises that exception again (a
:class:`navsense.errors.NavsenseError` as the same one-line error as in one process, a bug as
:class:`WorkerError`), the child's stack as its ``__cause__`` (``navsense --debug`` prints it).
multiprocessing then ends the child with
``os._exit``, so none of the parent's cleanup (the run directory's rename, buffered files) runs
twice.

Forking needs Linux (``fork`` start method); elsewhere callers run every model in the parent.
"""

from __future__ import annotations

import contextlib
import queue
import sys
import threading
import traceback
from collections.abc import Callable

from navsense.errors import NavsenseError

__all__ = ["ForkedWorker", "WorkerError", "WorkerLostError", "fork_available", "fork_safe"]


def fork_available() -> bool:
    """True where a worker can be forked (Linux with the fork start method)."""
    import multiprocessing

    return sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()


def fork_safe() -> bool:
    """True when this process may fork a worker now: :func:`fork_available` and no thread but
    this one (a fork copies only the calling thread: a lock another thread holds would stay
    locked in the child)."""
    return fork_available() and threading.active_count() == 1


class WorkerError(RuntimeError):
    """A bug in the worker process: an exception that is not a NavsenseError, OSError or
    MemoryError (its type and message; the child's traceback is the ``__cause__``)."""


class WorkerLostError(NavsenseError):
    """The worker process ended without a result (killed: a signal, the out-of-memory killer)."""


class ChildTraceback(Exception):
    """The traceback of an exception raised in the worker process, as text."""

    def __str__(self) -> str:
        return "the worker process's traceback:\n" + str(self.args[0] if self.args else "")


# errors that mean the same thing in either process: raised again as they are
_PASSED_ON = (NavsenseError, OSError, MemoryError, KeyboardInterrupt)


MAX_SLOT_STEPS = 100_000  # longer chunks go pickled through the pipe (a slot: 129 bytes a step)
_SLOT = "navsense-truth-slot"  # tags a pipe message that names a shared-memory slot


def _child(target, chunks, results, slots) -> None:
    def next_chunk():
        message = chunks.recv()
        if type(message) is tuple and message and message[0] == _SLOT:
            return slots.take(message[1:])
        return message

    try:
        outcome = ("done", target(next_chunk))
    except BaseException as exc:
        passed = exc if isinstance(exc, _PASSED_ON) else None
        outcome = ("error", (passed, type(exc).__name__, str(exc), traceback.format_exc()))
    try:
        try:
            results.send(outcome)
        except Exception:  # an exception that does not pickle: its type, message and stack
            status, (_, kind, message, trace) = outcome
            results.send((status, (None, kind, message, trace)))
    finally:
        results.close()


class ForkedWorker:
    """Run ``target(next_chunk)`` in a forked child; :meth:`send` chunks, :meth:`finish` the result.

    Fork before the parent starts threads of its own: the child keeps only the forking thread.
    ``slot_steps``: TruthStates chunks of up to this many steps go through ``lag`` shared-memory
    slots (None: every chunk pickled through the pipe).
    """

    def __init__(
        self,
        target: Callable,
        lag: int = 3,
        name: str = "navsense-worker",
        slot_steps: int | None = None,
    ) -> None:
        import multiprocessing

        ctx = multiprocessing.get_context("fork")
        self._slots = None
        if slot_steps and slot_steps <= MAX_SLOT_STEPS:
            from navsense.truth.slots import TruthSlots

            try:
                self._slots = TruthSlots(ctx, n_slots=lag, capacity=slot_steps)
            except OSError:  # no POSIX semaphores here (no /dev/shm): every chunk by the pipe
                self._slots = None
        child_chunks, self._chunks = ctx.Pipe(duplex=False)
        self._results, child_results = ctx.Pipe(duplex=False)
        self.process = ctx.Process(
            target=_child,
            name=name,
            daemon=True,
            args=(target, child_chunks, child_results, self._slots),
        )
        self.process.start()
        child_chunks.close()
        child_results.close()
        self._queue: queue.Queue = queue.Queue(maxsize=lag)
        self._broken: BaseException | None = None
        self._feeder = threading.Thread(target=self._feed, name=f"{name}-feeder", daemon=True)
        self._feeder.start()

    def _feed(self) -> None:
        while True:
            chunk = self._queue.get()
            if self._broken is None:
                try:
                    self._chunks.send(self._message_of(chunk))
                except OSError as exc:  # the child is gone: keep draining so send() never blocks
                    self._broken = exc
            if chunk is None:
                self._chunks.close()
                return

    def _message_of(self, chunk):
        """What goes through the pipe: a shared-memory slot's name, or the chunk itself."""
        from navsense.truth.states import TruthStates

        slots = self._slots
        if slots is not None and isinstance(chunk, TruthStates) and slots.fits(chunk):
            return (_SLOT, *slots.put(chunk, alive=self._child_alive))
        return chunk

    def _child_alive(self) -> bool:
        """True while the child runs (its sentinel not ready; unlike is_alive(), no wait())."""
        from multiprocessing.connection import wait

        return not wait([self.process.sentinel], timeout=0)

    @property
    def failed(self) -> bool:
        """True once the child can take no more chunks (it raised or died)."""
        return self._broken is not None or not self.process.is_alive()

    def send(self, chunk) -> None:
        """Queue a chunk for the child (blocks while ``lag`` chunks are already waiting)."""
        self._queue.put(chunk)

    def finish(self):
        """End the stream, wait for the child and return its result (or raise its exception)."""
        self._queue.put(None)
        self._feeder.join()
        try:
            status, value = self._results.recv()
        except EOFError:
            self.process.join()
            code = self.process.exitcode
            how = f"killed by signal {-code}" if code is not None and code < 0 else f"exit {code}"
            raise WorkerLostError(
                f"the {self.process.name} process ended without a result ({how})"
            ) from None
        finally:
            self._results.close()
        self.process.join()
        if status == "error":
            passed, kind, message, trace = value
            if passed is not None:
                raise passed from ChildTraceback(trace)
            raise WorkerError(f"{kind} in the {self.process.name} process: {message}") from (
                ChildTraceback(trace)
            )
        return value

    def abort(self) -> None:
        """Stop the child now (the run failed in the parent)."""
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        self._broken = self._broken or BrokenPipeError("aborted")
        while True:  # end the feeder: make room for the end marker
            try:
                self._queue.put_nowait(None)
                break
            except queue.Full:
                with contextlib.suppress(queue.Empty):
                    self._queue.get_nowait()
        self._feeder.join(timeout=5.0)
        self._results.close()
