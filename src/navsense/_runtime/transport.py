"""How truth crosses to a worker process: shared-memory slots for chunks, lists for steps.

Chunks (``navsense simulate``'s forked model worker, :mod:`navsense._runtime.worker`). Pickled
through a pipe, an hour of truth (55 MB) costs about 0.18 s of CPU between the two processes
(pickling, the pipe's copies in and out, unpickling; measured 2026-11-30). Here the parent copies
each chunk's arrays into one of ``n_slots`` slots of an anonymous shared mapping made before the
fork, and the pipe carries only ``(slot, step0, n, rate_hz)``; the worker copies the chunk out
into its own arrays and frees the slot. Slots are taken and freed in the same (FIFO) order, so a
counting semaphore of free slots is all the bookkeeping: the parent blocks while every slot is
full, which bounds the memory as the pipe's queue did. Chunks of more than
:data:`MAX_SLOT_STEPS` steps, and every chunk where POSIX semaphores are missing, go pickled.

Layout of a slot of capacity C steps: float64 arrays p (C, 3), q (C, 4), v (C, 3), w (C, 3),
c (C, 3) one after the other, then the reset flags, C bytes. A chunk of n <= C steps uses the
first n rows of each. The floats keep their bits (a copy), so the worker's models see the
same truth as the parent's.

Steps (SensorStream's worker): one or a few physics steps at a time go as nested lists
(:func:`steps_message`, :func:`truth_of_steps`), which pickle 20 times faster than small arrays
and keep the floats' bits.
"""

from __future__ import annotations

import mmap

import numpy as np

from navsense.truth.states import TruthStates

__all__ = ["TruthSlots", "MAX_SLOT_STEPS", "steps_message", "truth_of_steps"]

MAX_SLOT_STEPS = 100_000  # longer chunks go pickled through the pipe (a slot: 129 bytes a step)

# (field, columns): the float64 arrays of a TruthStates, in slot order
_FIELDS = (("p_m", 3), ("q_xyzw", 4), ("v_mps", 3), ("w_radps", 3), ("c_m", 3))
_FLOATS_PER_STEP = sum(k for _, k in _FIELDS)


class TruthSlots:
    """``n_slots`` shared slots of ``capacity`` steps each; make it before the fork.

    Parent: :meth:`fits`, then :meth:`put` (blocks while every slot is taken; returns the
    message to send; a chunk that does not fit goes pickled instead). Worker: :meth:`take` (the
    chunk of a message, in its own arrays; frees the slot).
    """

    def __init__(self, ctx, n_slots: int, capacity: int) -> None:
        self.n_slots = int(n_slots)
        self.capacity = int(capacity)
        floats = self.capacity * _FLOATS_PER_STEP * 8
        self.slot_bytes = -(-(floats + self.capacity) // 64) * 64  # slots start on cache lines
        self._map = mmap.mmap(-1, self.n_slots * self.slot_bytes)  # MAP_SHARED | MAP_ANONYMOUS
        self._free = ctx.Semaphore(self.n_slots)
        self._next = 0  # the parent's next slot (ring order)
        self._views = [self._slot_views(k) for k in range(self.n_slots)]

    def _slot_views(self, k: int) -> dict:
        base = k * self.slot_bytes
        views, offset = {}, base
        for name, cols in _FIELDS:
            views[name] = np.frombuffer(
                self._map, dtype=np.float64, count=self.capacity * cols, offset=offset
            ).reshape(self.capacity, cols)
            offset += self.capacity * cols * 8
        views["reset"] = np.frombuffer(
            self._map, dtype=np.bool_, count=self.capacity, offset=offset
        )
        return views

    def fits(self, chunk: TruthStates) -> bool:
        """True when ``chunk`` has 1 to ``capacity`` steps."""
        return 0 < len(chunk) <= self.capacity

    def put(self, chunk: TruthStates, alive=lambda: True) -> tuple:
        """Copy ``chunk`` into the next slot once it is free; the message that names it.

        ``alive()`` is asked while waiting for a slot: a worker that has died frees none, and
        the wait then ends with BrokenPipeError.
        """
        while not self._free.acquire(timeout=0.2):
            if not alive():
                raise BrokenPipeError("the worker process ended")
        k = self._next
        self._next = (k + 1) % self.n_slots
        n = len(chunk)
        views = self._views[k]
        for name, _ in _FIELDS:
            np.copyto(views[name][:n], getattr(chunk, name))
        np.copyto(views["reset"][:n], chunk.reset)
        return (k, chunk.step0, n, chunk.rate_hz)

    def take(self, message: tuple) -> TruthStates:
        """The chunk of a :meth:`put` message, copied out of its slot; the slot is freed."""
        k, step0, n, rate_hz = message
        views = self._views[k]
        arrays = {name: views[name][:n].copy() for name, _ in _FIELDS}
        reset = views["reset"][:n].copy()
        self._free.release()
        return TruthStates(step0=step0, reset=reset, rate_hz=rate_hz, **arrays)


def steps_message(truth: TruthStates) -> tuple:
    """The steps of ``truth`` as a tuple of nested lists (for :func:`truth_of_steps`)."""
    return (
        truth.step0,
        truth.rate_hz,
        truth.p_m.tolist(),
        truth.q_xyzw.tolist(),
        truth.v_mps.tolist(),
        truth.w_radps.tolist(),
        truth.c_m.tolist(),
        truth.reset.tolist(),
    )


def truth_of_steps(messages: list[tuple]) -> TruthStates:
    """The consecutive steps of one or more :func:`steps_message` tuples as one TruthStates."""
    step0, rate = messages[0][:2]
    f64 = np.float64
    p, q, v, w, c, reset = ([row for msg in messages for row in msg[i]] for i in range(2, 8))
    return TruthStates(
        step0=step0,
        p_m=np.array(p, f64),
        q_xyzw=np.array(q, f64),
        v_mps=np.array(v, f64),
        w_radps=np.array(w, f64),
        c_m=np.array(c, f64),
        reset=np.array(reset, dtype=bool),
        rate_hz=rate,
    )
