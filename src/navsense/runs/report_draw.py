"""The report's figures drawn in two processes, the second one forked before the run is read.

Why: of an hour's JSON Lines report, reading the rows takes seconds of one core (Arrow's JSON
parse of the GNSS, INS and IMU rows), importing matplotlib and drawing the first figure half a
second, each figure about half a second more. Forked once the run's episode.json is read, a
child imports matplotlib, reads the rows only its figures need (``early``: the IMU's, and the aided INS's
states, a nested key for which Arrow parses every INS row: 1.3 s of an hour) and draws what it
can while this process reads the GNSS and INS rows and the truth
(:class:`FigureWorker`). This process then sends it what it read (pickled, the arrays' memory
through a file without a name in shared memory that the child maps: :func:`_send`; the
arrays of the figures, not the truth nor the reader's cache) and the two share out the other
figures, each taking the next one not yet taken (a counter in shared memory: whichever is free draws it, so
the load of a shared machine balances itself), while this process also computes the
statistics. Each figure is drawn by the same function from the same arrays as in one process:
the same PNG bytes.

The child runs on navsense's one worker protocol (:class:`navsense._runtime.worker.Worker`,
forked: its pipes, its child's end with the parent, its errors), with the data this process
read as its one request and the figures it drew as its result.

Failures: if the child fails or dies, this process reads and draws what it did not deliver, so
that an error (a damaged imu.jsonl) is raised here as without a child; if this process fails
first, the child is killed. Without fork (or a second core), :meth:`FigureWorker.draw` reads
the early rows and draws every figure here.
"""

from __future__ import annotations

import contextlib
import dataclasses
import mmap
import os
import pickle
import tempfile
import threading
from collections.abc import Callable, Sequence
from typing import Any

from navsense._runtime import waits
from navsense._runtime.process import stops_deferred

__all__ = ["FigureWorker"]

_NOT_SENT = ("reader", "truth")  # the child has its own reader; the figures do not use the truth


def _send(conn, fields: dict, spill) -> None:
    """Send ``fields`` through the connection ``conn`` (:func:`_message`); OSError, ValueError
    (the child has gone) are left: its figures are drawn here."""
    with contextlib.suppress(OSError, ValueError):
        conn.send_bytes(_message(fields, spill))


def _message(fields: dict, spill) -> bytes:
    """``fields`` for the child: pickled, with the arrays' memory (pickle protocol 5's
    out-of-band buffers) written to ``spill``, a file without a name in shared memory
    (:func:`_spill_file`) that the child inherited when it was forked and maps, so that an
    hour's INS arrays (50 MB) reach the child in one write and a copy-on-write mapping (0.03 s)
    instead of through the pipe and two more copies (0.15 s); having no name, it is freed
    with the processes however they end. Without it (``None``), or where it cannot be written
    (a file size limit, a full /dev/shm), all goes through the pipe."""
    try:
        if spill is None:
            raise OSError("no spill file")
        message = _spilled(fields, spill)
    except OSError:
        inband = pickle.dumps(fields, protocol=pickle.HIGHEST_PROTOCOL)
        message = pickle.dumps((inband, []), protocol=pickle.HIGHEST_PROTOCOL)
    return message


def _spilled(fields: dict, spill) -> bytes:
    buffers: list = []
    head = pickle.dumps(fields, protocol=5, buffer_callback=buffers.append)
    sizes = []
    for b in buffers:
        raw = b.raw()
        spill.write(raw)
        sizes.append(raw.nbytes)
    spill.flush()
    return pickle.dumps((head, sizes), protocol=pickle.HIGHEST_PROTOCOL)


def _receive(conn, spill) -> dict:
    """What :func:`_send` sent (EOFError when the parent sent nothing): :func:`_fields`."""
    return _fields(conn.recv_bytes(), spill)


def _fields(message: bytes, spill) -> dict:
    """The fields of a :func:`_message`: the arrays map ``spill`` (copy-on-write: writable, the
    pages read when used)."""
    head, sizes = pickle.loads(message)
    buffers = []
    if sizes:
        view = memoryview(mmap.mmap(spill.fileno(), 0, access=mmap.ACCESS_COPY))
        start = 0
        for n in sizes:
            buffers.append(view[start : start + n])
            start += n
    return pickle.loads(head, buffers=buffers)


def _spill_file():
    """A new file without a name (O_TMPFILE, or removed at once) in /dev/shm, else in the
    temporary folder; None if none can be made."""
    shm = "/dev/shm"
    folder = shm if os.path.isdir(shm) and os.access(shm, os.W_OK) else None
    try:
        return tempfile.TemporaryFile(dir=folder)
    except OSError:
        return None


class FigureWorker:
    """``with FigureWorker(start, early, makers, early_makers) as w: data = ...; w.draw(data)``.

    ``start``: the child's data before anything is read (a RunData with the episode and the
    reader); ``early(data)`` reads into it what ``early_makers`` (indices into ``makers``)
    need; the other makers need the data this process reads meanwhile and passes to
    :meth:`draw`, ``child_late`` ones both (the child draws them once it has this process's
    data). ``parallel=False`` (or no fork, no second core): no child.
    """

    def __init__(
        self,
        start: Any,
        early: Callable[[Any], None],
        makers: Sequence[Callable[[Any], Any]],
        early_makers: Sequence[int],
        *,
        child_late: Sequence[int] = (),
        parallel: bool = True,
    ) -> None:
        self._start = start
        self._early = early
        self._makers = list(makers)
        self._early_makers = list(early_makers)
        self._child_late = list(child_late)
        own = {*self._early_makers, *self._child_late}
        self._late = [i for i in range(len(self._makers)) if i not in own]
        self._child: Any = None  # the child process (multiprocessing's), while it runs
        self._worker: Any = None  # its navsense._runtime.worker.Worker
        self._sender: threading.Thread | None = None
        self._spill: Any = None  # the file of _send, inherited by the child
        if parallel and len(self._makers) > 1:
            from navsense._runtime.machine import available_cores
            from navsense._runtime.worker import fork_safe

            if available_cores() >= 2 and fork_safe():
                self._fork(start)

    # ------------------------------------------------------------------------------ parent
    def _fork(self, start: Any) -> None:
        import multiprocessing

        from navsense._runtime.worker import Worker

        self._next = multiprocessing.get_context("fork").Value("i", 0)  # the next late figure
        self._spill = _spill_file()  # before the fork: the child inherits it
        self._worker = Worker(
            _child_main, (self, start), name="navsense-report-figures", method="fork"
        )
        self._child = self._worker.process

    def __enter__(self) -> FigureWorker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the child (killed unless it has delivered its figures)."""
        worker, self._worker = self._worker, None
        if worker is None:
            return
        with stops_deferred():  # a stop meanwhile is raised once it is closed (_runtime.waits)
            worker.abort()  # the child has ended (its result received) or is killed now
            if self._sender is not None:  # it ends: the pipe is closed
                self._sender.join()
            if self._spill is not None:
                self._spill.close()

    def _take(self) -> int | None:
        """The index (into makers) of the next late figure not yet taken, or None."""
        with self._next.get_lock():
            k = self._next.value
            if k >= len(self._late):
                return None
            self._next.value = k + 1
        return self._late[k]

    def draw(self, data: Any, meanwhile: Callable[[], Any] | None = None) -> list:
        """Every maker's figure, in the makers' order, from ``data`` (what this process read:
        the early data are read by the child, or here without one); ``meanwhile`` is called
        once, in this process, while the child draws."""
        makers = self._makers
        out: dict[int, Any] = {}
        if self._child is None:
            self._early(data)
            if meanwhile is not None:
                meanwhile()
            return [m(data) for m in makers]
        fields = (
            {}  # the child was forked with these very data
            if data is self._start
            else {
                f.name: getattr(data, f.name)
                for f in dataclasses.fields(data)
                if f.name not in _NOT_SENT and getattr(data, f.name) is not None
            }
        )
        # sent by a thread: the child reads it only once its early figures are drawn, and the
        # pipe holds 64 KiB (the pickle without the arrays' memory can be more)
        sender = threading.Thread(
            target=self._send,
            args=(fields,),
            name="navsense-report-send",
            daemon=True,
        )
        self._sender = sender
        waits.start(sender)
        if meanwhile is not None:
            meanwhile()
        while (i := self._take()) is not None:
            out[i] = makers[i](data)
        assert self._worker is not None
        try:
            done, payload = self._worker.receive()
            kind = "ok" if done else "lost"
        except Exception:  # the child's error or its loss: its figures are drawn here
            kind, payload = "lost", None
        self.close()
        if kind == "ok":
            out.update(payload)
        else:  # the child failed: the early rows and its figures here, raising its error
            self._early(data)
            with self._next.get_lock():
                self._next.value = len(self._late)
            for i in range(len(makers)):
                if i not in out:
                    out[i] = makers[i](data)
        return [out[i] for i in range(len(makers))]

    def _send(self, fields: dict) -> None:
        """The data this process read, to the child (its one request; OSError: it has gone)."""
        assert self._worker is not None
        with contextlib.suppress(OSError, ValueError):
            self._worker.send(_message(fields, self._spill))


# ----------------------------------------------------------------------------------- child
def _child_main(channel, worker: FigureWorker, data: Any) -> dict | None:
    """The forked child (a navsense._runtime.worker target): the early figures, then the
    parent's data and the late figures taken one by one; returns ``{index: figure}``, or None
    when the parent has gone before sending its data. An error is the protocol's (the parent
    then draws the child's figures itself and raises its own error)."""
    worker._early(data)
    drawn = {i: worker._makers[i](data) for i in worker._early_makers}
    message = channel.receive()
    if message is None:  # the parent failed: nothing more is wanted
        return None
    for name, value in _fields(message, worker._spill).items():
        setattr(data, name, value)
    for k in worker._child_late:
        drawn[k] = worker._makers[k](data)
    while (i := worker._take()) is not None:
        drawn[i] = worker._makers[i](data)
    return drawn
