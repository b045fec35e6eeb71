"""The one worker-process protocol of navsense: a target in another process, fed through a pipe.

Two workers use it: ``navsense simulate``'s forked model worker (:class:`ChunkWorker`: part of a
run's models over every truth chunk, each writing its own files) and SensorStream's worker
(:mod:`navsense.stream`: the rows of each physics step sent back). The models of a run are
independent (DESIGN.md: each owns its state), so they may be split between processes: each
process computes its own models, and neither waits for the other's interpreter lock. On a
2-core machine this takes the one-hour Parquet run from about 2.1 s (threads) to about 1.65 s
(2026-11-29): on threads the models take half as long again as alone, waiting for the lock
(numpy releases it per operation, the models' Python code holds it).

Protocol. :class:`Worker` starts ``target(channel, *args)`` in a child process (forked where
:func:`fork_safe`, else spawned where the caller allows it: a fresh interpreter that imports
the target) with two one-way pipes:

- requests, parent -> child: pickled messages; ``None`` (or the parent closing its end) ends the
  stream: :meth:`Channel.receive` returns None. A truth chunk may go through shared memory
  (:class:`navsense._runtime.transport.TruthSlots`): the pipe carries only its slot. Or the
  steps go through a :class:`navsense._runtime.transport.StepRing`, which the child looks at
  between short waits on the pipe, and the pipe carries only the end;
- replies, child -> parent: pickled ``(kind, payload)``: ``("reply", x)`` for each
  :meth:`Channel.reply`, then exactly one ``("done", the target's return value)`` or
  ``("error", (exception or None, type name, message, traceback))``.

Errors. An error that means the same in either process (a
:class:`~navsense.errors.NavsenseError`, an OSError, a MemoryError, KeyboardInterrupt) is raised
again in the parent as itself: the command line's same one line as in one process. Any other
exception (a bug) becomes a :class:`WorkerError` with its type and message. Either way the
child's stack is the ``__cause__`` (:class:`ChildTraceback`; ``navsense --debug`` prints it). A
child that ends without a word (a signal, the out-of-memory killer) is a
:class:`WorkerLostError`. multiprocessing ends the child with ``os._exit``, so none of the
parent's cleanup (the run directory's rename, buffered files) runs twice.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import queue
import sys
import threading
import traceback
from collections.abc import Callable
from typing import Any

from navsense._runtime import waits
from navsense._runtime.process import stops_deferred, stops_held
from navsense.errors import NavsenseError

__all__ = [
    "Channel",
    "ChildTraceback",
    "ChunkWorker",
    "Worker",
    "WorkerError",
    "WorkerLostError",
    "fork_available",
    "fork_safe",
]

_PROTOCOL = pickle.HIGHEST_PROTOCOL
_SLOT = "navsense-truth-slot"  # tags a request that names a shared-memory slot
_JOIN_S = 5.0  # a child that has sent its last reply ends within this, or is killed


class WorkerError(RuntimeError):
    """A bug in a worker process: an exception that is not a NavsenseError, OSError or
    MemoryError (its type and message; the child's traceback is the ``__cause__``)."""


class WorkerLostError(NavsenseError):
    """A worker process ended without a result (killed: a signal, the out-of-memory killer)."""


class ChildTraceback(Exception):
    """The traceback of an exception raised in a worker process, as text."""

    def __str__(self) -> str:
        return "the worker process's traceback:\n" + str(self.args[0] if self.args else "")


# errors that mean the same thing in either process: raised again as they are
_PASSED_ON = (NavsenseError, OSError, MemoryError, KeyboardInterrupt)


def fork_available() -> bool:
    """True where a worker can be forked (Linux with the fork start method)."""
    import multiprocessing

    return sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()


def fork_safe() -> bool:
    """True when this process may fork a worker now: :func:`fork_available` and no thread but
    this one (a fork copies only the calling thread: a lock another thread holds would stay
    locked in the child)."""
    return fork_available() and threading.active_count() == 1


class Channel:
    """The child's end of the protocol: :meth:`receive` requests, :meth:`reply` payloads."""

    __slots__ = ("_requests", "_replies", "_slots", "_ring", "_ended", "_wait")

    def __init__(self, requests, replies, slots) -> None:
        import select

        from navsense._runtime.transport import StepRing

        self._requests = requests
        self._replies = replies
        self._slots = slots
        self._ring = slots if isinstance(slots, StepRing) else None
        self._ended = False
        self._wait = None
        if self._ring is not None:
            # one poll object for the pipe (Connection.poll builds a selector each call: about
            # 50 us of CPU a look, 5 % of a core at a look a millisecond)
            self._wait = select.poll()
            self._wait.register(requests.fileno(), select.POLLIN)

    def receive(self):
        """The next request; None at the end of the stream (or when the parent has gone).

        With a :class:`~navsense._runtime.transport.StepRing`: the steps of the next posted
        slot, looked for every ``poll_ms`` while the pipe is quiet; the parent posts its last
        slot before it ends the stream, so the end is returned once no posted slot is left."""
        ring = self._ring
        if ring is not None:
            while True:
                chunk = ring.take()
                if chunk is not None:
                    return chunk
                if self._ended:
                    return None
                if self._wait.poll(ring.poll_ms):  # the end, or the parent gone (POLLHUP)
                    break
        try:
            message = pickle.loads(self._requests.recv_bytes())
        except EOFError:
            message = None
        if message is None and ring is not None:
            self._ended = True
            return self.receive()
        if type(message) is tuple and message and message[0] == _SLOT:
            return self._slots.take(message[1:])
        return message

    def reply(self, payload) -> None:
        """Send ``payload`` to the parent (:meth:`Worker.receive` returns it)."""
        self._replies.send_bytes(pickle.dumps(("reply", payload), protocol=_PROTOCOL))


def _error_report(exc: BaseException) -> tuple:
    """(the exception if it is passed on as itself and pickles, else None, type name, message,
    traceback) of an exception being handled."""
    kept = None
    if isinstance(exc, _PASSED_ON):
        try:
            pickle.loads(pickle.dumps(exc, protocol=_PROTOCOL))
            kept = exc
        except Exception:  # an exception whose arguments do not pickle: its text only
            kept = None
    return (kept, type(exc).__name__, str(exc), traceback.format_exc())


def die_with_parent(parent_pid: int) -> None:
    """In a child process: end with the parent, even a parent killed with SIGKILL.

    The kernel sends the child SIGKILL when the parent dies (Linux ``prctl(PR_SET_PDEATHSIG)``),
    so no orphan keeps computing and holding the run's files and pipes; a parent already gone
    ends the child now. SIGTERM and SIGHUP get their default action back (the command line's
    handler, which a forked child inherits, turns them into an exception that would read as the
    child's error; an ignored SIGHUP stays ignored)."""
    import signal

    from navsense._runtime.process import stop_signals_default, stops_released

    with contextlib.suppress(ValueError):  # not the main thread: nothing inherited to undo
        stop_signals_default()
    stops_released()
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # 1: PR_SET_PDEATHSIG
        except (OSError, AttributeError):  # no prctl: the end of the pipes ends the child
            pass
    if os.getppid() != parent_pid:
        os._exit(1)


def _child_main(target, args, requests, replies, slots, parents_ends, parent_pid) -> None:
    """The child process: ``target(channel, *args)``, then its outcome as the last reply.

    ``parents_ends``: the parent's ends of the pipes, which a forked child holds too; closed
    here, so that the parent closing its end reaches the child as the end of the stream. The
    child dies with the parent (:func:`die_with_parent`)."""
    die_with_parent(parent_pid)
    for conn in parents_ends:
        conn.close()
    try:
        outcome = ("done", target(Channel(requests, replies, slots), *args))
    except BaseException as exc:
        outcome = ("error", _error_report(exc))
    try:
        try:
            data = pickle.dumps(outcome, protocol=_PROTOCOL)
        except Exception as exc:  # a result that does not pickle
            data = pickle.dumps(("error", _error_report(exc)), protocol=_PROTOCOL)
        replies.send_bytes(data)
    except OSError:  # the parent has gone: nobody to tell
        pass
    finally:
        replies.close()


class Worker:
    """``target(channel, *args)`` in a child process; :meth:`send` requests, :meth:`receive`
    replies (module docstring).

    ``method``: "fork", "spawn", or None for a fork where :func:`fork_safe` allows it and a
    spawn elsewhere (the target and ``args`` must then pickle). ``slots``: a
    :class:`~navsense._runtime.transport.TruthSlots` made before (fork only), through which
    :meth:`send_truth` passes chunks that fit, or a
    :class:`~navsense._runtime.transport.StepRing` that the parent fills itself (fork only;
    :attr:`slots` is None when the child was spawned).
    """

    def __init__(
        self,
        target: Callable,
        args: tuple = (),
        *,
        name: str = "navsense-worker",
        method: str | None = None,
        slots=None,
    ) -> None:
        import multiprocessing

        if method is None:
            method = "fork" if fork_safe() else "spawn"
        if method != "fork":
            slots = None  # an anonymous shared mapping reaches a forked child only
        ctx: Any = multiprocessing.get_context(method)  # fork or spawn: both have Process
        self.name = name
        self.slots = slots
        child_requests, self._requests = ctx.Pipe(duplex=False)
        self._replies, child_replies = ctx.Pipe(duplex=False)
        parents_ends = (self._requests, self._replies) if method == "fork" else ()
        self.process = ctx.Process(
            target=_child_main,
            name=name,
            daemon=True,
            args=(target, args, child_requests, child_replies, slots, parents_ends, os.getpid()),
        )
        with stops_held():
            self.process.start()
        child_requests.close()
        child_replies.close()

    # ------------------------------------------------------------------ parent -> child
    def send(self, message) -> None:
        """Send one request (OSError, e.g. BrokenPipeError, when the child has gone)."""
        self._requests.send_bytes(pickle.dumps(message, protocol=_PROTOCOL))

    def send_truth(self, chunk) -> None:
        """Send a truth chunk: through a shared-memory slot when it fits (blocks while every
        slot is taken), else pickled."""
        from navsense.truth.states import TruthStates

        slots = self.slots
        if slots is not None and isinstance(chunk, TruthStates) and slots.fits(chunk):
            self.send((_SLOT, *slots.put(chunk, alive=self.alive)))
        else:
            self.send(chunk)

    def end(self) -> None:
        """End the stream of requests (the child's :meth:`Channel.receive` returns None)."""
        with contextlib.suppress(OSError):  # the child has gone already; its last reply says why
            self.send(None)
        self._requests.close()

    # ------------------------------------------------------------------ child -> parent
    def receive(self) -> tuple[bool, Any]:
        """The next reply: ``(False, payload)``, or ``(True, the target's return value)`` once it
        has returned. Raises the child's error (module docstring) or, when the child ended
        without a word, WorkerLostError; the child is then joined."""
        try:
            kind, payload = pickle.loads(self._replies.recv_bytes())
        except (EOFError, OSError):
            self.close()
            code = self.process.exitcode
            how = f"killed by signal {-code}" if code is not None and code < 0 else f"exit {code}"
            raise WorkerLostError(
                f"the {self.name} process ended without a result ({how})"
            ) from None
        if kind == "reply":
            return False, payload
        self.close()
        if kind == "done":
            return True, payload
        kept, kind_name, message, trace = payload
        if kept is not None:
            raise kept from ChildTraceback(trace)
        raise WorkerError(f"{kind_name} in the {self.name} process: {message}") from (
            ChildTraceback(trace)
        )

    # ------------------------------------------------------------------ the process
    def alive(self) -> bool:
        """True while the child runs (its sentinel not ready; unlike is_alive(), no wait())."""
        from multiprocessing.connection import wait

        return not wait([self.process.sentinel], timeout=0)

    def close_pipes(self) -> None:
        """Close this end of both pipes (a dropped stream: the child sees the end and returns)."""
        self._requests.close()
        self._replies.close()

    def close(self) -> None:
        """Close the pipes and wait for the child (killed if it has not ended within 5 s)."""
        self.close_pipes()
        self.process.join(timeout=_JOIN_S)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()

    def abort(self) -> None:
        """Stop the child now."""
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        self.close_pipes()


class ChunkWorker:
    """``navsense simulate``'s model worker: a forked :class:`Worker` fed chunk by chunk.

    The parent's :meth:`send` puts each chunk on a queue of ``lag`` places, from which a feeder
    thread sends it, so a slow child holds the parent back (memory stays bounded) without
    blocking the parent's own models. TruthStates chunks of up to ``slot_steps`` steps go
    through ``lag`` shared-memory slots (None, or where POSIX semaphores are missing: every
    chunk pickled). :meth:`finish` ends the stream and returns the target's result.

    Fork before the parent starts threads of its own: the child keeps only the forking thread.
    """

    def __init__(
        self,
        target: Callable,
        args: tuple = (),
        *,
        lag: int = 3,
        name: str = "navsense-worker",
        slot_steps: int | None = None,
    ) -> None:
        import multiprocessing

        from navsense._runtime import transport

        slots = None
        if slot_steps and slot_steps <= transport.MAX_SLOT_STEPS:
            try:
                slots = transport.TruthSlots(
                    multiprocessing.get_context("fork"), n_slots=lag, capacity=slot_steps
                )
            except OSError:  # no POSIX semaphores here (no /dev/shm): every chunk by the pipe
                slots = None
        self.worker = Worker(target, args, name=name, method="fork", slots=slots)
        self._queue: queue.Queue = queue.Queue(maxsize=lag)
        self._broken: BaseException | None = None
        self._feeder = threading.Thread(target=self._feed, name=f"{name}-feeder", daemon=True)
        waits.start(self._feeder)

    def _feed(self) -> None:
        while True:
            chunk = self._queue.get()
            if chunk is None:
                if self._broken is None:
                    self.worker.end()
                return
            if self._broken is None:
                try:
                    self.worker.send_truth(chunk)
                except OSError as exc:  # the child is gone: keep draining so send() never blocks
                    self._broken = exc

    @property
    def failed(self) -> bool:
        """True once the child can take no more chunks (it raised or died)."""
        return self._broken is not None or not self.worker.process.is_alive()

    def send(self, chunk) -> None:
        """Queue a chunk for the child (blocks while ``lag`` chunks are already waiting)."""
        waits.put(self._queue, chunk)

    def finish(self):
        """End the stream, wait for the child and return its result (or raise its error)."""
        waits.put(self._queue, None)
        waits.join(self._feeder)
        while True:
            done, value = self.worker.receive()
            if done:
                return value

    def abort(self) -> None:
        """Stop the child now (the run failed in the parent); a stop meanwhile is raised after."""
        with stops_deferred():
            self._abort()

    def _abort(self) -> None:
        self.worker.abort()
        self._broken = self._broken or BrokenPipeError("aborted")
        while True:  # end the feeder: make room for the end marker
            try:
                self._queue.put_nowait(None)
                break
            except queue.Full:
                with contextlib.suppress(queue.Empty):
                    self._queue.get_nowait()
        self._feeder.join(timeout=5.0)
