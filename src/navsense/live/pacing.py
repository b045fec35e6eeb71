"""Feed a recorded truth to a LiveServer at the pace of the wall clock (or ``speed`` times it).

Physics step k (time t_k = k / rate_hz) is fed no earlier than ``wall0 + (t_k - t_first) /
speed``, wall0 the wall-clock time of the first step; a row delivered at step k therefore goes
out no earlier than its delivery time divided by the speed, as a vehicle's sensors would send
it. The clock starts once the first step is fed (the models' first call sets them up, 1 to 2 s).
The steps due when the loop wakes are fed together (at real time that is one step at a
time; faster, or when the machine falls behind, a chunk of up to ``max_chunk_s`` of physics, so
a slow step never shifts the later ones: the run keeps to the clock, not to its own speed).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from navsense.truth.states import TruthStates

__all__ = ["MAX_SPEED", "MIN_SPEED", "serve_paced", "Pacer", "PacedResult", "StopRequest"]

MAX_CHUNK_S = 0.25  # physics seconds fed at once at most, when many steps are due
#: The slowest pace, times real time: a physics step of 1/120 s then takes 8.3 s of wall time
#: (issue 21: nothing that looks like a hang; 1e-300 overflowed the sleep's timeout).
MIN_SPEED = 1e-3
#: The fastest: a day of physics time in 0.1 ms of wall time, beyond any server. Faster paces
#: (1e307) turned the physics time due after a slow step into infinity (an OverflowError).
MAX_SPEED = 1e9


@dataclass
class PacedResult:
    """What :func:`serve_paced` fed: steps, physics seconds, wall seconds, and why it ended."""

    steps: int = 0
    duration_s: float = 0.0
    wall_s: float = 0.0
    stopped: bool = False  # True: ended by ``stop`` (Ctrl-C), not by the end of the truth
    late_s: float = 0.0  # the largest lag of a step behind its wall-clock time


class StopRequest:
    """A stop request that a signal handler may make (Ctrl-C in ``navsense live``): ``set``,
    ``is_set`` and ``wait(timeout)`` as a ``threading.Event``'s, without its lock.

    A signal's handler runs in the main thread between two bytecodes, also while that thread is
    inside the Event's own ``wait`` holding the Event's (not reentrant) lock: ``Event.set`` in
    the handler then waited for that lock forever (Ctrl-C or SIGTERM that hung ``navsense live``;
    a timer-driven loop of ``wait`` and ``set`` in a handler hangs within a few hundred stops).
    Here :meth:`set` writes a byte to a socket pair, which :meth:`wait` selects on: neither
    takes a lock. :meth:`close` closes the pair.
    """

    def __init__(self) -> None:
        import socket

        self._flag = False
        self._wake, self._waker = socket.socketpair()
        self._waker.setblocking(False)

    def set(self) -> None:
        import contextlib

        self._flag = True
        with contextlib.suppress(OSError):  # full (a byte waits already) or closed
            self._waker.send(b"\0")

    def is_set(self) -> bool:
        return self._flag

    def wait(self, timeout: float | None = None) -> bool:
        """True once set, else after ``timeout`` s False."""
        import select

        if not self._flag:
            select.select([self._wake], [], [], timeout)
        return self._flag

    def close(self) -> None:
        self._wake.close()
        self._waker.close()


class Pacer:
    """The wall-clock time of a run's time: ``Pacer(speed)``; :meth:`start` at the first step,
    :meth:`wall_of` a run time, :meth:`wait_until` sleeps until then (False when ``stop`` is
    set first)."""

    def __init__(self, speed: float = 1.0, clock: Callable[[], float] = time.monotonic) -> None:
        if not (MIN_SPEED <= speed <= MAX_SPEED):
            from navsense.errors import ConfigError

            raise ConfigError(
                f"--speed {speed} must be a positive number, at least {MIN_SPEED:g} (times real "
                f"time) and at most {MAX_SPEED:g}"
            )
        self.speed = speed
        self.clock = clock
        self.wall0: float | None = None
        self.t0 = 0.0

    def start(self, t0_s: float) -> None:
        self.wall0 = self.clock()
        self.t0 = t0_s

    def wall_of(self, t_s: float) -> float:
        assert self.wall0 is not None
        return self.wall0 + (t_s - self.t0) / self.speed

    def wait_until(self, t_s: float, stop: threading.Event | StopRequest | None = None) -> bool:
        delay = self.wall_of(t_s) - self.clock()
        if delay > 0.0:
            if stop is not None:
                return not stop.wait(delay)
            time.sleep(delay)
        return stop is None or not stop.is_set()


def serve_paced(
    truth: TruthStates | Iterable[TruthStates],
    live,
    speed: float = 1.0,
    *,
    stop: threading.Event | StopRequest | None = None,
    max_chunk_s: float = MAX_CHUNK_S,
    on_step: Callable[[int], None] | None = None,
    pacer: Pacer | None = None,
) -> PacedResult:
    """Feed ``truth`` (one TruthStates or consecutive chunks of it) to ``live`` (a LiveServer,
    or anything with ``step(truth)``) paced by the wall clock ``speed`` times faster; return
    when the truth ends or ``stop`` is set (checked between steps and while waiting).
    ``on_step(steps fed)`` is called after each feed (a progress line). ``pacer``: the clock to
    use (default ``Pacer(speed)``; it keeps the run's wall time for what follows, e.g. the rows
    still in flight at the end). The caller closes ``live``."""
    pacer = pacer if pacer is not None else Pacer(speed)
    speed = pacer.speed
    result = PacedResult()
    chunks = [truth] if isinstance(truth, TruthStates) else truth
    wall_start = time.monotonic()
    for chunk in chunks:
        rate = chunk.rate_hz
        max_steps = max(1, int(max_chunk_s * rate))
        i, n = 0, len(chunk)
        while i < n:
            if stop is not None and stop.is_set():
                result.stopped = True
                break
            k = chunk.step0 + i  # the next step to feed
            if pacer.wall0 is None:  # the first step: the models' first call sets them up
                live.step(chunk.slice(i, i + 1))  # (1 to 2 s), then the clock starts
                pacer.start(k / rate)
                i += 1
                result.steps += 1
                continue
            if not pacer.wait_until(k / rate, stop):
                result.stopped = True
                break
            # every step due by now (at least step k, whose time has come)
            now_t = pacer.t0 + (pacer.clock() - pacer.wall0) * speed
            due = max(k, math.floor(now_t * rate))
            m = min(due - k + 1, n - i, max_steps)
            result.late_s = max(result.late_s, (now_t - k / rate) / speed)
            live.step(chunk.slice(i, i + m))
            i += m
            result.steps += m
            if on_step is not None:
                on_step(result.steps)
        if result.stopped:
            break
        if n:
            result.duration_s = (chunk.step0 + n - 1) / rate - pacer.t0
    result.wall_s = time.monotonic() - wall_start
    return result
