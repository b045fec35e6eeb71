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
import struct

import numpy as np

from navsense.truth.states import TruthStates

__all__ = [
    "MAX_SLOT_STEPS",
    "MIN_POLL_MS",
    "StepRing",
    "TruthSlots",
    "steps_message",
    "truth_of_steps",
]

MIN_POLL_MS = 1  # StepRing: the worker's shortest wait between two looks at the ring
MAX_SLOT_STEPS = 100_000  # longer chunks go pickled through the pipe (a slot: 129 bytes a step)

# (field, columns): the float64 arrays of a TruthStates, in slot order
_FIELDS = (("p_m", 3), ("q_xyzw", 4), ("v_mps", 3), ("w_radps", 3), ("c_m", 3))
_FLOATS_PER_STEP = sum(k for _, k in _FIELDS)


def _shared_slots(n_slots: int, capacity: int) -> tuple[mmap.mmap, list[dict]]:
    """An anonymous shared mapping (MAP_SHARED | MAP_ANONYMOUS: a forked child shares it) of
    ``n_slots`` slots of ``capacity`` steps, and each slot's arrays (module docstring)."""
    floats = capacity * _FLOATS_PER_STEP * 8
    slot_bytes = -(-(floats + capacity) // 64) * 64  # slots start on cache lines
    shared = mmap.mmap(-1, n_slots * slot_bytes)
    slots = []
    for k in range(n_slots):
        views, offset = {}, k * slot_bytes
        for name, cols in _FIELDS:
            views[name] = np.frombuffer(
                shared, dtype=np.float64, count=capacity * cols, offset=offset
            ).reshape(capacity, cols)
            offset += capacity * cols * 8
        views["reset"] = np.frombuffer(shared, dtype=np.bool_, count=capacity, offset=offset)
        slots.append(views)
    return shared, slots


def _copy_out(views: dict, step0: int, n: int, rate_hz: float) -> TruthStates:
    """The first ``n`` steps of a slot as a TruthStates of their own arrays."""
    arrays = {name: views[name][:n].copy() for name, _ in _FIELDS}
    return TruthStates(step0=step0, reset=views["reset"][:n].copy(), rate_hz=rate_hz, **arrays)


class TruthSlots:
    """``n_slots`` shared slots of ``capacity`` steps each; make it before the fork.

    Parent: :meth:`fits`, then :meth:`put` (blocks while every slot is taken; returns the
    message to send; a chunk that does not fit goes pickled instead). Worker: :meth:`take` (the
    chunk of a message, in its own arrays; frees the slot).
    """

    def __init__(self, ctx, n_slots: int, capacity: int) -> None:
        self.n_slots = int(n_slots)
        self.capacity = int(capacity)
        self._map, self._views = _shared_slots(self.n_slots, self.capacity)
        self._free = ctx.Semaphore(self.n_slots)
        self._next = 0  # the parent's next slot (ring order)

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
        chunk = _copy_out(self._views[k], step0, n, rate_hz)
        self._free.release()
        return chunk


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


class StepRing:
    """SensorStream's steps to its forked worker through shared slots, announced without waking
    the worker; make it before the fork.

    A write to a pipe wakes the worker blocked on it, a switch that costs the simulator's thread
    about 65 us a batch on a busy 2-core machine (measured 2026-12-01: a 3 kB pipe write to a
    sleeping process, 65 us, against 3 us for posting a semaphore nobody waits on); a woken
    worker can even take the caller's core. Here the parent copies each step into the slot it
    is filling (:meth:`fill`) and announces a slot (:meth:`post`) by posting a semaphore the
    worker never blocks on: the worker looks every :attr:`poll_ms` (:meth:`take`, non-blocking;
    at least :data:`MIN_POLL_MS`, set by the parent from its pace: each look costs the worker
    some CPU), sleeping in between on its own timer. Slots are filled and taken in ring order; the worker
    frees a slot by taking it (its steps are copied out), before it answers for them, so the
    parent, which counts the slots whose answers it has not read, reads one answer before it
    opens a slot while all ``n_slots`` are out. The semaphore's post and take order the slot's
    memory between the processes on any CPU.

    Layout: a step is one row of 17 float64 (p, q, v, w, c, then the reset flag as 0 or 1;
    :data:`_FIELDS` order), a slot ``capacity`` rows; one step is written with a single
    ``struct.pack_into`` of its floats (1.5 us against 6 us for six array copies). A slot's
    header holds its first step and its number of steps.
    """

    def __init__(self, ctx, rate_hz: float, n_slots: int = 8, capacity: int = 64) -> None:
        self.n_slots = int(n_slots)
        self.capacity = int(capacity)
        self.rate_hz = float(rate_hz)
        width = _FLOATS_PER_STEP + 1
        rows = self.n_slots * self.capacity
        self._map = mmap.mmap(-1, rows * width * 8 + self.n_slots * 16 + 8)
        self._rows = np.frombuffer(self._map, dtype=np.float64, count=rows * width)
        self._rows = self._rows.reshape(rows, width)
        self._heads = np.frombuffer(
            self._map, dtype=np.int64, count=2 * self.n_slots + 1, offset=rows * width * 8
        )
        self._poll = self._heads[-1:]  # the worker's wait between looks, ms (set by the parent)
        self._heads = self._heads[:-1].reshape(self.n_slots, 2)
        self._poll[0] = MIN_POLL_MS
        self._pack_step = struct.Struct(f"{width}d").pack_into
        self._step_bytes = width * 8
        self._posted = ctx.Semaphore(0)
        self._fill = 0  # parent: the slot being filled
        self._filled = 0  # parent: its steps so far
        self._step0 = 0  # parent: its first step
        self._take = 0  # worker: the next slot to take

    @property
    def poll_ms(self) -> int:
        """The worker's wait between two looks at the ring, milliseconds."""
        return int(self._poll[0])

    @poll_ms.setter
    def poll_ms(self, ms: int) -> None:
        self._poll[0] = max(MIN_POLL_MS, int(ms))

    @property
    def filled(self) -> int:
        """Steps in the slot being filled (not yet posted)."""
        return self._filled

    @property
    def full(self) -> bool:
        return self._filled == self.capacity

    def fill(self, truth: TruthStates, start: int = 0) -> int:
        """Copy steps ``start ..`` of ``truth`` into the slot being filled, as many as it has
        room for (the caller posts a full slot); returns how many."""
        at = self._filled
        n = min(len(truth) - start, self.capacity - at)
        if at == 0:
            self._step0 = truth.step0 + start
        row = self._fill * self.capacity + at
        if n == 1:  # the usual step
            k = start
            self._pack_step(
                self._map,
                row * self._step_bytes,
                *truth.p_m[k].tolist(),
                *truth.q_xyzw[k].tolist(),
                *truth.v_mps[k].tolist(),
                *truth.w_radps[k].tolist(),
                *truth.c_m[k].tolist(),
                1.0 if truth.reset[k] else 0.0,
            )
        else:
            rows, col = self._rows[row : row + n], 0
            for name, cols in _FIELDS:
                rows[:, col : col + cols] = getattr(truth, name)[start : start + n]
                col += cols
            rows[:, col] = truth.reset[start : start + n]
        self._filled = at + n
        return n

    def post(self) -> bool:
        """Announce the slot being filled to the worker (False when it holds no step); the next
        :meth:`fill` goes to the next slot."""
        if self._filled == 0:
            return False
        self._heads[self._fill] = (self._step0, self._filled)
        self._posted.release()
        self._fill = (self._fill + 1) % self.n_slots
        self._filled = 0
        return True

    def take(self) -> TruthStates | None:
        """Worker: the steps of the next posted slot, copied out (the slot is then free), or
        None when none is posted."""
        if not self._posted.acquire(False):
            return None
        k = self._take
        self._take = (k + 1) % self.n_slots
        step0, n = (int(x) for x in self._heads[k])
        rows = self._rows[k * self.capacity : k * self.capacity + n]
        arrays, col = {}, 0
        for name, cols in _FIELDS:
            arrays[name] = np.ascontiguousarray(rows[:, col : col + cols])
            col += cols
        reset = rows[:, col] != 0.0
        return TruthStates(step0=step0, reset=reset, rate_hz=self.rate_hz, **arrays)
