"""SensorStream: a vehicle's sensors fed by a live simulator, rows delivered with their latency.

A simulator calls :meth:`SensorStream.step` once per physics step (or per chunk of consecutive
steps) with the truth of those steps, and gets the sensor rows *delivered* by the last of them:
the rows of ``navsense simulate``'s JSONL files, each handed over at its ``delivery_time_s``
(specification, "Frames and Sample Times": ``t_available = t_sample + delay_s``; a row is
delivered at the first physics step with ``t >= t_available``). The rows are the same as a run's
files over the same truth, in the same order (tests/test_stream.py).

``extras=True`` also delivers what the run writes beside the rows, under the name of its file in
the run directory: ``"gnss.nmea"`` the lines of ``gnss.nmea`` (sentences without line ends) and
``"ins.frames"`` the 40-value frames of ``ins.frames`` (float64 arrays), each with the row it
belongs to (a frame with its INS row; the NMEA lines of a chunk with the chunk's last GNSS row,
so fed one step at a time each epoch's lines come with its row). Their order is the files'.

``worker=True`` runs the models in a worker process. The modelled latency leaves the worker
``L = ceil(delay_s * rate_hz)`` physics steps to compute a row before it is due (6 steps at the
default 0.05 s and 120 Hz), so the simulator's thread only hands over the steps (in batches as
long as its pace leaves the worker time for) and picks up finished rows; it waits only when rows
due now are not back yet, i.e. when the worker has fallen behind. A forked worker gets the steps
through a ring of shared slots that it looks at every 1 to 5 ms, 2 ms at 120 Hz
(:class:`navsense._runtime.transport.StepRing`): handing over a batch is a copy and a semaphore
post, no system call that wakes the worker (a pipe write that wakes it cost the caller tens of
microseconds and, on a busy machine, let the worker preempt it); a spawned worker gets them
through its pipe. The work moves to another core; the rows
and their delivery steps stay the same. With ``delay_s`` = 0 every row is due at the step it is
sampled, and the stream runs the models in the calling process, as it does on a machine of one
core. The worker (:mod:`navsense._runtime.worker`'s protocol) is forked where Linux allows it,
else spawned (the models are built in the worker from the configuration either way).
"""

from __future__ import annotations

import math
import time
import weakref
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from navsense._runtime.transport import MIN_POLL_MS, steps_message, truth_of_steps
from navsense.errors import ConfigError, StreamError
from navsense.output.columns import rows_from_columns
from navsense.output.layouts import layout_for
from navsense.simulate import build_models, timed_columns
from navsense.site import Site
from navsense.suite import SENSORS
from navsense.truth.states import TruthStates
from navsense.vehicles import VehicleProfile

if TYPE_CHECKING:
    from navsense._runtime.transport import StepRing
    from navsense._runtime.worker import Worker

__all__ = ["SensorStream"]

_LATENCY_SLACK = 1e-6  # of a step: delivery - sample >= delay_s * rate_hz up to rounding
_WORKER_STEP_S = 1e-3  # the worker's mean time per physics step, generously (measured 0.4-0.7 ms)


class _Sensors:
    """The models of a stream, and the rows of each chunk with their delivery steps."""

    def __init__(
        self,
        cfg: Mapping,
        vehicle: VehicleProfile,
        site: Site | None,
        agent: int,
        extras: bool = False,
    ) -> None:
        from navsense.kernels import use_compiled

        use_compiled()  # one step a call: the compiled kernels (navsense.kernels' ruling)
        georef = (
            site.make_georeference(cfg["gnss"]["datum"]["start_utc"], cfg["gnss"]["datum"])
            if site is not None
            else None
        )
        self.models = build_models(dict(cfg), vehicle, site, georef, agent=agent)
        self.layouts = [layout_for(model) for model in self.models]
        # each model's file beside the rows (navsense.suite.Sensor.extra), None: none
        self.extra_files = [
            SENSORS[m.name].extra if extras and m.name in SENSORS else None for m in self.models
        ]
        self.delay_s = float(cfg["delay_s"])
        self.extras = extras

    def run(self, truth: TruthStates) -> list[tuple[int, str, Any]]:
        """The rows sampled in ``truth``: (delivery step, sensor name, row), in model order;
        with ``extras`` each sensor's rows are followed by its extras (named by their file,
        navsense.suite.Sensor.extra)."""
        out = []
        rate = truth.rate_hz
        for model, layout, extra in zip(self.models, self.layouts, self.extra_files, strict=True):
            name = model.name
            block = model.process(truth)
            m = len(block["sample_time_s"])
            if m == 0:
                continue
            rows = rows_from_columns(timed_columns(layout, block, self.delay_s, truth.rate_hz), m)
            # the delivery step k of each row: its delivery_time_s is k / rate_hz to 1e-9 s
            steps = [round(row["delivery_time_s"] * rate) for row in rows]
            out += [(k, name, row) for k, row in zip(steps, rows)]
            if extra is not None:
                out += self._extras(extra, layout.extra(block), steps)
        return out

    @staticmethod
    def _extras(name: str, extra: Any, steps: list[int]) -> list[tuple[int, str, Any]]:
        """A block's extras with their delivery steps: an array of one record a row (the INS
        frames) row by row; a list of lines (NMEA) with the block's last row."""
        if extra is None:
            return []
        if isinstance(extra, np.ndarray) and len(extra) == len(steps):
            return [(k, name, record) for k, record in zip(steps, extra)]
        return [(steps[-1], name, item) for item in extra]


def _stream_worker(channel, cfg, vehicle, site, agent, extras) -> float:
    """The worker's target (navsense._runtime.worker): build the models, say so, then answer each
    batch of steps with ``(last step, rows)``; returns its CPU time for the steps."""
    sensors = _Sensors(cfg, vehicle, site, agent, extras)
    channel.reply(None)  # ready
    cpu0 = time.process_time()
    while (request := channel.receive()) is not None:
        # the steps of a ring slot, or (spawned worker) a batch of steps through the pipe
        truth = request if isinstance(request, TruthStates) else truth_of_steps(request)
        channel.reply((truth.step0 + len(truth) - 1, sensors.run(truth)))
    return time.process_time() - cpu0


class SensorStream:
    """The enabled sensors of a configuration, one physics step (or chunk) at a time.

    ``SensorStream(cfg, vehicle, site, agent=0, worker=None)``: ``cfg`` the effective
    configuration (:func:`navsense.config.load_config`), ``vehicle`` a VehicleProfile, ``site``
    a Site (None: open sky, no datum chain), ``agent`` the INS agent index, ``rate_hz`` the
    physics rate (default: the configuration's physics.hz, 120 Hz). ``extras``: also deliver ``"gnss.nmea"`` lines and
    ``"ins.frames"`` frames (module docstring). ``worker``: True runs the models in a worker
    process, False in this one, None (default) a worker when the latency gives it time
    (``delay_s`` of at least one physics step) and the machine a second core. ``worker_cpu_s``: the worker's CPU time, known
    after :meth:`close`.

    :meth:`step` takes the TruthStates of the next consecutive physics steps and returns the rows
    delivered by the last of them, ``{sensor name: [row, ...]}`` (only sensors with rows), in
    sample order. :meth:`close` ends the stream and returns the rows not yet delivered. Also a
    context manager. An error in the models (e.g. DatumError: the vehicle left the site's
    domain) ends the stream; with a worker it is raised by the next :meth:`step` that hears of
    it (at the latest the one that needs the rows of the failed step) or by :meth:`close`.
    """

    def __init__(
        self,
        cfg: Mapping,
        vehicle: VehicleProfile,
        site: Site | None = None,
        *,
        agent: int = 0,
        worker: bool | None = None,
        rate_hz: float | None = None,
        extras: bool = False,
    ) -> None:
        from navsense.config.physics import rates_above_physics
        from navsense.truth.states import PHYSICS_HZ

        # the physics clock: rate_hz, else the configuration's physics.hz (issue 30)
        physics = cfg.get("physics")
        self.rate_hz = float(rate_hz or (physics or {}).get("hz") or PHYSICS_HZ)
        above = rates_above_physics(cfg, self.rate_hz)
        if above:
            raise ConfigError(f"SensorStream: {above[0]}")
        delay_s = float(cfg["delay_s"])
        # a row sampled at step j is delivered at step j + latency or later
        self.latency_steps = max(0, math.ceil(delay_s * self.rate_hz - _LATENCY_SLACK))
        if worker is None:
            from navsense._runtime.machine import available_cores

            worker = self.latency_steps >= 1 and available_cores() >= 2
        self._pending: dict[int, list[tuple[str, Any]]] = {}  # delivery step -> (sensor, row)
        self._delivered = -1  # the last step whose rows have been handed over
        self._done_step = -1  # the last step whose rows have come back from the models
        self._closed = False
        self._sensors: _Sensors | None = None
        self._worker: Worker | None = None
        self._process: Any = None  # the worker's multiprocessing.Process
        self._ended = False
        self.worker_cpu_s: float | None = None  # the worker's CPU time for the steps, at close()
        self._next_step: int | None = None
        self._batch: list[tuple] = []  # steps not yet sent to the worker
        self._batch_steps = 0
        self._pace_s: float | None = None  # the caller's seconds per physics step (running mean)
        self._batch_limit = self._batch_size()
        self._last_call: float | None = None
        self._sent_step = -1  # the last step sent to the worker
        self._ring: StepRing | None = None  # shared slots to a forked worker (else the pipe)
        self._out_slots = 0  # ring slots opened whose rows have not come back
        if worker:
            self._start_worker(cfg, vehicle, site, agent, extras)
        else:
            self._sensors = _Sensors(cfg, vehicle, site, agent, extras)

    @property
    def in_worker(self) -> bool:
        """True when the models run in a worker process."""
        return self._process is not None

    def _start_worker(self, cfg, vehicle, site, agent, extras) -> None:
        import multiprocessing

        from navsense._runtime.transport import StepRing
        from navsense._runtime.worker import Worker, fork_safe

        # forked where it is safe, with the steps through shared slots; else a fresh interpreter
        # (spawned) and the steps through the pipe
        ring = None
        if fork_safe():
            try:
                ring = StepRing(multiprocessing.get_context("fork"), self.rate_hz)
            except OSError:  # no POSIX semaphores here (no /dev/shm): the steps by the pipe
                ring = None
        self._worker = worker = Worker(
            _stream_worker,
            (dict(cfg), vehicle, site, agent, extras),
            name="navsense-stream",
            method="fork" if ring is not None else None,
            slots=ring,
        )
        self._ring = worker.slots
        self._batch_limit = self._batch_size()
        self._process = worker.process
        # a stream dropped without close(): its pipes close, and the worker ends on its own
        weakref.finalize(self, worker.close_pipes)
        self._receive()  # ready, or the error of building the models

    def _receive(self) -> None:
        """Take one reply of the worker (blocking); its error ends the stream and is raised."""
        assert self._worker is not None  # called only with a worker
        try:
            done, payload = self._worker.receive()
        except BaseException:
            self._closed = True
            raise
        if done:
            self._ended = True
            self.worker_cpu_s = payload
        elif payload is not None:
            self._done_step, rows = payload
            self._hold(rows)
            if self._ring is not None:
                self._out_slots -= 1

    def step(self, truth: TruthStates) -> dict[str, list[Any]]:
        """Feed the next consecutive physics step(s); return the rows delivered by the last one."""
        if self._closed:
            raise StreamError("SensorStream.step: the stream is closed")
        if not isinstance(truth, TruthStates):
            raise StreamError(f"SensorStream.step takes a TruthStates, got {type(truth).__name__}")
        if truth.rate_hz != self.rate_hz:
            raise StreamError(
                f"SensorStream.step: truth at {truth.rate_hz} Hz, the stream runs at "
                f"{self.rate_hz} Hz"
            )
        step0 = truth.step0
        if step0 != self._next_step and self._next_step is not None:
            raise StreamError(
                f"SensorStream.step: physics step {step0} given, expected "
                f"{self._next_step} (steps must follow each other)"
            )
        n = truth.p_m.shape[0]
        if n == 0:
            return {}
        last = step0 + n - 1
        self._next_step = last + 1
        if self._sensors is not None:
            try:
                self._hold(self._sensors.run(truth))
            except BaseException:
                self._closed = True
                raise
            self._done_step = last
        else:
            # the steps go in batches (each write wakes the worker, a costly switch); the
            # replies are read in order when the rows due now need them, so at most
            # latency_steps replies wait in the pipe and no poll is needed
            now = time.perf_counter()
            if self._last_call is not None:
                pace = (now - self._last_call) / n
                self._pace_s = (
                    pace if self._pace_s is None else self._pace_s + 0.1 * (pace - self._pace_s)
                )
            self._last_call = now
            if self._ring is not None:
                self._fill_ring(truth)
            else:
                self._batch.append(steps_message(truth))
                self._batch_steps += n
            need = last - self.latency_steps
            if self._batch_steps >= self._batch_limit or self._sent_step < need:
                self._send_batch()
            while self._done_step < need:
                self._receive()
        return self._deliver(last)

    def _batch_size(self) -> int:
        """Steps a batch: the first step of a batch of B is due L - B + 1 steps after it is sent.
        The worker gets twice the time its B steps take at w a step (w a generous mean: a GNSS
        epoch, a busy core or a slow wake-up make some batches slower, and a late batch stops
        the caller), plus its shortest wait p between looks at a ring:
        (L - B + 1) pace >= 2 B w + p, B <= ((L + 1) pace - p) / (pace + 2 w); half the latency
        before the pace is known. At 120 Hz (L = 6) B = 5, due two steps after it is sent; at
        1 kHz B = 2, due five steps after. A ring's worker then waits an eighth of that time
        between looks (1 to 5 ms: 2 ms at 120 Hz, four looks a step, about 100 us of its CPU),
        leaving it at least 1.75 times its mean time for the batch (with a quarter, 4 ms, a
        slow batch missed its step now and then)."""
        lat = self.latency_steps
        if self._pace_s is None:
            return max(1, lat // 2)
        pace = self._pace_s
        ring = self._ring
        p = MIN_POLL_MS / 1000.0 if ring is not None else 0.0
        b = max(1, min(lat, int(((lat + 1) * pace - p) / (pace + 2.0 * _WORKER_STEP_S))))
        if ring is not None:
            ring.poll_ms = min(5, int(125.0 * (lat - b + 1) * pace))
        return b

    def _fill_ring(self, truth: TruthStates) -> None:
        """Copy the steps into the ring's slots; a full slot is posted (the first step of the
        next is due soon after). A new slot is opened only when the worker has taken one: with
        every slot out, one reply is read first (the worker frees a slot before it replies)."""
        ring = self._ring
        assert ring is not None
        start, n = 0, len(truth)
        while start < n:
            if ring.filled == 0:
                while self._out_slots >= ring.n_slots:
                    self._receive()
                self._out_slots += 1
            start += ring.fill(truth, start)
            if ring.full:
                self._send_batch(truth.step0 + start - 1)
        self._batch_steps = ring.filled

    def _send_batch(self, last: int | None = None) -> None:
        """Send the steps fed and not yet sent (``last``: the last of them, default the last
        fed)."""
        if self._ring is not None:
            if self._ring.post():
                self._sent_step = self._last_fed() if last is None else last
                self._batch_steps = 0
                self._batch_limit = self._batch_size()
        elif self._batch:
            self._send(self._batch)
            self._sent_step = self._last_fed()
            self._batch = []
            self._batch_steps = 0
            self._batch_limit = self._batch_size()  # the next batch's, at the pace known now

    def _last_fed(self) -> int:
        return -1 if self._next_step is None else self._next_step - 1

    def _send(self, message) -> None:
        """Send to the worker; a worker that has gone (after an error) is heard out instead."""
        assert self._worker is not None  # called only with a worker
        try:
            self._worker.send(message)
        except OSError:
            while True:  # its last replies: rows, then the error (raised), or the end of the pipe
                self._receive()

    def _hold(self, rows: list[tuple[int, str, Any]]) -> None:
        """Keep sampled rows until their delivery step."""
        pending = self._pending
        for k, name, row in rows:
            if k in pending:
                pending[k].append((name, row))
            else:
                pending[k] = [(name, row)]

    def _deliver(self, last: int | None) -> dict[str, list[Any]]:
        """Take the pending rows delivered by step ``last`` (None: all), by sensor, in sample
        order (a sensor's delivery steps grow with its sample times)."""
        pending = self._pending
        if last is not None and last == self._delivered + 1:  # one step (the usual call)
            self._delivered = last
            out: dict[str, list[Any]] = {}
            for name, row in pending.pop(last, ()):
                if name in out:
                    out[name].append(row)
                else:
                    out[name] = [row]
            return out
        if last is None:
            steps = sorted(pending)
        elif last - self._delivered <= len(pending):
            steps = [k for k in range(self._delivered + 1, last + 1) if k in pending]
        else:
            steps = sorted(k for k in pending if k <= last)
        if last is not None:
            self._delivered = last
        taken: dict[str, list[Any]] = {}
        for k in steps:
            for name, row in pending.pop(k):
                if name in taken:
                    taken[name].append(row)
                else:
                    taken[name] = [row]
        return taken

    def close(self) -> dict[str, list[Any]]:
        """End the stream: the rows sampled but not yet delivered, by sensor (their delivery
        times are after the last step)."""
        if self._closed:
            return {}
        self._closed = True
        if self._worker is not None:
            try:
                self._send_batch()
                self._worker.end()
                while not self._ended:
                    self._receive()
            finally:
                self._shut()
        return self._deliver(None)

    def _shut(self) -> None:
        """Stop the worker process and close the pipes."""
        self._closed = True
        if self._worker is not None:
            self._worker.close()

    def __enter__(self) -> SensorStream:
        return self

    def __exit__(self, *exc) -> None:
        if exc[0] is not None and self._worker is not None:
            self._shut()
        else:
            self.close()
