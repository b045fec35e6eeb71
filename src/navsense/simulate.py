"""The orchestrator: truth -> clock -> sensor models -> writers -> run directory.

Data flows one way (DESIGN.md): the truth arrives in chunks of consecutive physics steps, every
enabled model turns each chunk into the epochs it samples, and the writers append their rows.
Each model owns its state, so the chunk size changes no byte of the output.

Latency (specification "Frames and Sample Times"): every row carries ``sample_time_s``,
``available_time_s`` = sample + delay_s and ``delivery_time_s``, the first physics step at or after
it. Rows still in flight at the end of the log are written with the delivery time the physics
clock would have given them (DESIGN.md ruling).
"""

from __future__ import annotations

import itertools
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from navsense import suite
from navsense._runtime import machine, memory, waits
from navsense._runtime.pools import WriteQueue, model_pool
from navsense._runtime.process import stops_deferred
from navsense._runtime.worker import ChunkWorker, fork_safe
from navsense.clock import delivery_times
from navsense.errors import ConfigError
from navsense.output.columns import Column, arrow_table, jsonl_buffer_from_columns
from navsense.output.jsonl import JsonlWriter
from navsense.output.layouts import Layout, layout_for
from navsense.output.rundir import RunDirectory
from navsense.progress import Progress
from navsense.runs.episode import Episode
from navsense.site import Site
from navsense.suite import SENSORS, ModelContext, resolve
from navsense.truth.states import TruthStates
from navsense.vehicles import VehicleProfile

__all__ = ["simulate", "RunSummary", "build_models", "TIME_DECIMALS", "DEFAULT_CHUNK_STEPS"]

TIME_DECIMALS = 9  # sample, available and delivery times: nanoseconds
DEFAULT_CHUNK_STEPS = 12_000  # 100 s of physics at 120 Hz per chunk
WORKER_MODES = ("threads", "processes")


@dataclass
class RunSummary:
    """What a run wrote: ``rows`` per file stem, the run directory and the wall time; ``notes``
    lines that the summary adds (navsense.run.PreparedRun.notes)."""

    run_dir: Path
    rows: dict = field(default_factory=dict)
    steps: int = 0
    duration_s: float = 0.0
    end_s: float = 0.0  # the last physics step's time on the run's clock, s
    wall_s: float = 0.0
    notes: list = field(default_factory=list)

    def text(self) -> str:
        parts = ", ".join(f"{k} {v}" for k, v in self.rows.items()) or "no sensor enabled"
        return "\n".join(
            [
                f"navsense: {self.steps} physics steps ({self.duration_s:.1f} s) -> {parts} rows "
                f"in {self.wall_s:.2f} s",
                *self.notes,
                f"navsense: run directory {self.run_dir}",
            ]
        )


def build_models(cfg: dict, vehicle: VehicleProfile, site: Site | None, georef, agent: int = 0):
    """The enabled sensor models, in output order (the order of navsense.suite.SENSORS: gnss,
    imu, ins, mag, baro, odom), each built by its record's builder.

    ConfigError when the GNSS or the INS is to report the nad83 frame at a site outside the area
    of NAD83(2011) (navsense.geo.areas), where it is not defined.
    """
    if georef is not None and not georef.nad83_applies:
        _refuse_nad83(cfg, site, georef)
    context = ModelContext(cfg, vehicle, site, georef, agent)
    return [resolve(SENSORS[name].model)(context) for name in suite.enabled(cfg)]


def timed_columns(layout: Layout, block: dict, delay_s: float, rate_hz: float) -> list[Column]:
    """The layout's columns of ``block`` after ``sample_time_s``, ``available_time_s``, ``delivery_time_s``."""
    sample = np.asarray(block["sample_time_s"], dtype=np.float64)
    available = sample + delay_s
    delivery = delivery_times(available, rate_hz)
    return [
        Column("sample_time_s", np.round(sample, TIME_DECIMALS)),
        Column("available_time_s", np.round(available, TIME_DECIMALS)),
        Column("delivery_time_s", np.round(delivery, TIME_DECIMALS)),
        *layout.columns(block),
    ]


class _SensorOutput:
    """The rows of one model in the run's format: ``<name>.jsonl`` or ``<name>.parquet``."""

    def __init__(self, folder: Path, name: str, fmt: str, queue: WriteQueue) -> None:
        self.fmt = fmt
        self.queue = queue
        if fmt == "jsonl":
            self.writer = JsonlWriter(folder / f"{name}.jsonl").__enter__()
        else:
            from navsense.output.parquet import ParquetWriter

            self.writer = ParquetWriter(folder / f"{name}.parquet").__enter__()

    def encode(self, columns: list[Column], m: int):
        """The chunk's rows ready to write: JSON Lines bytes (an Arrow buffer from
        navsense.output.columns.JOIN_ROWS rows, written without a copy into bytes) or a pyarrow
        table (None: no row)."""
        if m == 0:
            return None
        if self.fmt == "jsonl":
            return jsonl_buffer_from_columns(columns, m)
        return arrow_table(columns, m)

    def submit(self, payload, m: int) -> None:
        if payload is None:
            return
        if self.fmt == "jsonl":
            self.queue.submit(self.writer.write_bytes, payload, m)
        else:
            self.queue.submit(self.writer.write_table, payload)

    @property
    def rows_written(self) -> int:
        return self.writer.rows_written

    def close(self) -> None:
        self.writer.close()


def _run_model(model, chunk: TruthStates, delay_s: float, outputs: _Outputs):
    """One model over one chunk: its encoded rows, their count and its extra payload."""
    block = model.process(chunk)
    m = len(block["sample_time_s"])
    layout = outputs.layouts[model.name]
    payload = outputs.writers[model.name].encode(
        timed_columns(layout, block, delay_s, chunk.rate_hz), m
    )
    return payload, m, outputs.extra.payload(model.name, layout, block)


def _chunks(truth: TruthStates | Iterable[TruthStates], chunk_steps: int) -> Iterator[TruthStates]:
    if isinstance(truth, TruthStates):
        yield from truth.chunks(chunk_steps)
    else:
        yield from truth


class _Schedule:
    """Run every model over the chunks on the worker threads, each model's chunks in order.

    A model's next chunk is submitted as soon as its previous one is done, so a fast model runs
    ahead of a slow one (no barrier per chunk) and the truth reader works while the models do;
    numpy and the file writes release the GIL. A chunk is read only while no model lags more
    than ``LAG`` chunks behind the reader, which bounds the memory. Results are handed to the
    writers from the calling thread, in chunk order for each model.
    """

    LAG = 3

    def __init__(self, models, pool, delay_s: float, outputs: _Outputs):
        self.models = models
        self.pool = pool
        self.delay_s = delay_s
        self.outputs = outputs

    def run(self, chunks: Iterable[TruthStates]) -> Iterator[TruthStates]:
        """Yield each chunk when it is read; return once every model has written every chunk."""
        from collections import deque

        waiting: dict[int, deque] = {id(m): deque() for m in self.models}
        running: dict = {}  # future -> model
        busy: set = set()
        source = iter(chunks)
        exhausted = False
        while True:
            while not exhausted and max((len(q) for q in waiting.values()), default=0) < self.LAG:
                chunk = next(source, None)
                if chunk is None:
                    exhausted = True
                elif len(chunk):
                    for q in waiting.values():
                        q.append(chunk)
                    yield chunk
            for model in self.models:
                if id(model) not in busy and waiting[id(model)]:
                    chunk = waiting[id(model)].popleft()
                    future = waits.submit(
                        self.pool, _run_model, model, chunk, self.delay_s, self.outputs
                    )
                    running[future] = model
                    busy.add(id(model))
            if not running:
                if exhausted:
                    return
                continue  # no model of this process (all run in the worker): read on
            done = waits.first_done(list(running))
            # hand results over in model order (each model's own chunks are already in order)
            for future in sorted(done, key=lambda f: self.models.index(running[f])):
                model = running.pop(future)
                busy.discard(id(model))
                self.outputs.submit(model, waits.result(future))
            memory.collect_young()  # what the chunks left in cycles (the collector is paused)


class _Outputs:
    """The files of a group of models: their rows, gnss.nmea and ins.frames, on one write queue."""

    def __init__(self, folder: Path, models, fmt: str) -> None:
        self.queue = WriteQueue()
        self.writers = {m.name: _SensorOutput(folder, m.name, fmt, self.queue) for m in models}
        self.layouts = {m.name: layout_for(m) for m in models}
        self.extra = _ExtraWriters(folder, models, self.queue)

    def submit(self, model, result: tuple) -> None:
        """Queue the writes of one model's chunk, ``result`` from :func:`_run_model`."""
        payload, m, extra_payload = result
        self.writers[model.name].submit(payload, m)
        self.extra.submit(model, extra_payload)

    def rows_written(self) -> dict:
        return {name: w.rows_written for name, w in self.writers.items()}

    def close(self) -> None:
        """Wait for the queued writes, then close every file (even after a failed write)."""
        try:
            self.queue.close()
        finally:
            for w in self.writers.values():
                w.close()
            self.extra.close()


def _run_group(channel, models, folder: Path, fmt: str, delay_s: float) -> tuple[dict, dict]:
    """A worker process's part of a run: its models over every chunk, in order, and their files.

    ``channel``: the worker's end of the pipe (navsense._runtime.worker.Channel). Returns the
    rows written and the episode.json entries of each model.
    """
    outputs = _Outputs(folder, models, fmt)
    try:
        with memory.collector_paused():
            while (chunk := channel.receive()) is not None:
                for model in models:
                    outputs.submit(model, _run_model(model, chunk, delay_s, outputs))
                memory.collect_young()
    finally:
        outputs.close()
    return outputs.rows_written(), {m.name: m.episode_info() for m in models}


# Each model's cost per hour of driving on one core (navsense.suite.Sensor.cost) splits the
# models between the two processes. For the Polaris suite in Parquet this gives INS here and
# GNSS + IMU in the worker: 1.61 s for the hour against 1.76 s with GNSS here and INS + IMU
# there (medians of 6 runs).
_UNKNOWN_COST = 0.3  # a model the suite does not list
_READER_COST = 0.2  # the parent also reads the truth and feeds the worker


def _split_models(models, fmt: str, workers: str) -> tuple[list, list]:
    """(models of this process, models of the worker process): greedy, heaviest first.

    Everything stays here with "threads", one model, on a machine of one core
    (:func:`navsense._runtime.machine.worker_processes`), or when this process may not fork
    (:func:`navsense._runtime.worker.fork_safe`: not Linux, or other threads running).
    """
    if (
        workers != "processes"
        or len(models) < 2
        or machine.worker_processes() < 1
        or not fork_safe()
    ):
        return list(models), []
    cost = {
        m.name: SENSORS[m.name].cost(fmt) if m.name in SENSORS else _UNKNOWN_COST for m in models
    }
    local: list = []
    remote: list = []
    load = {"local": _READER_COST, "remote": 0.0}
    for model in sorted(models, key=lambda m: -cost[m.name]):
        side = "local" if load["local"] <= load["remote"] else "remote"
        (local if side == "local" else remote).append(model)
        load[side] += cost[model.name]
    order = {id(m): i for i, m in enumerate(models)}
    return sorted(local, key=lambda m: order[id(m)]), sorted(remote, key=lambda m: order[id(m)])


def _refuse_nad83(cfg: dict, site: Site | None, georef) -> None:
    from navsense.geo.areas import nad83_area_text

    for enabled, key, value, option in (
        (cfg["ins"]["enabled"], "ins.frame", cfg["ins"]["frame"], "--set ins.frame=wgs84_g2139"),
        (
            cfg["gnss"]["enabled"],
            "gnss.datum.output_frame",
            cfg["gnss"]["datum"]["output_frame"],
            "--gnss-frame wgs84_g2139",
        ),
    ):
        if enabled and value == "nad83":
            lat, lon, _ = georef.origin_lat_lon_h
            name = site.name if site is not None else "local"
            raise ConfigError(
                f'{key} = "nad83": the site {name!r} at {lat:.4f}, {lon:.4f} deg is outside '
                f"{nad83_area_text()}, where NAD83 is not defined; use wgs84_g2139 ({option})"
            )


def simulate(
    truth: TruthStates | Iterable[TruthStates],
    cfg: dict,
    vehicle: VehicleProfile,
    site: Site | None,
    out_dir: str | Path,
    *,
    source: dict | None = None,
    agent: int = 0,
    chunk_steps: int = DEFAULT_CHUNK_STEPS,
    total_steps: int | None = None,
    progress: bool = False,
    output_format: str = "jsonl",
    save_truth: bool = False,
    workers: str = "threads",
    finish: Callable[[Path, Path], object] | None = None,
    announce: Callable[[RunSummary], object] | None = None,
    notes: Sequence[str] = (),
) -> RunSummary:
    """Run every enabled sensor over ``truth`` and write the run directory ``out_dir``.

    ``truth`` is a whole :class:`TruthStates` (cut into ``chunk_steps`` chunks) or an iterable of
    consecutive chunks (a truth log read chunk by chunk). ``source`` describes the truth for
    episode.json (scenario name or file). ``output_format`` is "jsonl" (the specification's rows)
    or "parquet" (one Parquet file per sensor with the same values, flattened column names).
    ``save_truth`` also writes the truth itself as ``truth.parquet`` (the TruthStates contract),
    with the run's site and start time in its metadata (:mod:`navsense.truth.io`).
    ``workers`` "threads" runs the models on threads of this process; "processes" also forks one
    worker process that runs part of them (:mod:`navsense._runtime.worker`; Linux with two cores
    or more, elsewhere it is "threads"); on one core, or within
    :func:`navsense._runtime.machine.one_core` (a campaign's run in a Dask worker), the models
    and the writes run in the calling thread. The files are the same bytes either way.
    ``finish(path, final)``, when given, adds files to the run once every model's file and
    episode.json are written, before the run directory is renamed from ``path``
    (``NAME.partial``) to ``final``: a failure there leaves no directory that looks complete
    (``navsense simulate --mcap`` writes the ROS 2 bag so). ``announce(summary)``, when given,
    then tells of the run (the command line's summary lines), still before the rename: a
    summary that cannot be written (a full or closed standard output) fails the run like any
    other failure, without a run directory (ruling: a command that ends with exit 2 leaves
    nothing that looks complete). ``notes``: lines the summary adds (its :attr:`RunSummary.notes`).
    """
    _check_modes(output_format, workers)
    t_wall = time.perf_counter()
    start_utc = cfg["gnss"]["datum"]["start_utc"]
    georef = site.make_georeference(start_utc, cfg["gnss"]["datum"]) if site is not None else None
    truth, cfg = _on_truth_clock(truth, cfg)
    models = build_models(cfg, vehicle, site, georef, agent=agent)
    truth, total_steps = _check_span(models, truth, total_steps)
    bar = Progress("simulating", total_steps, enabled=progress, delay_s=1.5)
    summary = RunSummary(run_dir=Path(out_dir), notes=list(notes))
    delay_s = float(cfg["delay_s"])
    with RunDirectory(out_dir) as run:
        local, remote = _split_models(models, output_format, workers)
        # fork first: the child keeps only this thread
        child = _fork(remote, run.path, output_format, delay_s, chunk_steps) if remote else None
        outputs = _Outputs(run.path, local, output_format)
        pool = model_pool(len(local))
        truth_writer = None
        if save_truth:
            truth_writer = _open_truth_writer(run.path, site, start_utc)
        streamed = _stream(
            _chunks(truth, chunk_steps),
            _Schedule(local, pool, delay_s, outputs),
            child=child,
            truth_writer=truth_writer,
            bar=bar,
            total_steps=total_steps,
        )
        rows, models_info = _rows_and_infos(models, local, outputs, streamed.remote)
        episode = Episode.of_run(
            cfg,
            vehicle=vehicle.name,
            physics_hz=streamed.rate_hz,
            first_step=streamed.first_step,
            steps=streamed.steps,
            start_utc=start_utc,
            agent=agent,
            source=source,
            site=site.to_json() if site is not None else None,
            output_format=output_format,
            models=models_info,
        )
        run.write_json("episode.json", episode.to_json())
        if finish is not None:
            finish(run.path, run.final)
        summary.rows = {m.name: rows[m.name] for m in models}
        summary.steps = streamed.steps
        summary.duration_s = streamed.duration_s
        summary.end_s = streamed.last_t
        summary.wall_s = time.perf_counter() - t_wall
        if announce is not None:
            announce(summary)
    return summary


def _check_modes(output_format: str, workers: str) -> None:
    """Refuse an unknown output format or worker mode (ConfigError, the option named)."""
    if output_format not in ("jsonl", "parquet"):
        raise ConfigError(f"--format {output_format!r} is not one of jsonl, parquet")
    if workers not in WORKER_MODES:
        raise ConfigError(f"--workers {workers!r} is not one of {', '.join(WORKER_MODES)}")


def _fork(remote, folder: Path, fmt: str, delay_s: float, chunk_steps: int) -> ChunkWorker:
    """The forked worker process that runs the models ``remote`` and writes their files
    (:func:`_run_group`, navsense._runtime.worker)."""
    return ChunkWorker(
        _run_group,
        (remote, folder, fmt, delay_s),
        lag=_Schedule.LAG,
        name="navsense-models",
        slot_steps=chunk_steps,
    )


def _open_truth_writer(folder: Path, site: Site | None, start_utc):
    """truth.parquet of ``--save-truth``, open: the log carries its site and start time
    (navsense.truth.io)."""
    from navsense.truth.io import TruthWriter

    return TruthWriter(folder / "truth.parquet", site=site, start_utc=start_utc).__enter__()


def _check_span(models, truth, total_steps: int | None):
    """(truth, total_steps) after a model's data that must cover the run (gnss.orbits) was
    asked about the run's span (:func:`_check_times`), before anything is written: the whole
    truth's, or for chunks of a known length (a repeated route, made as asked for) the span
    from the first chunk's time and the length. A truth log's chunks are checked as read."""
    if isinstance(truth, TruthStates):
        total_steps = len(truth)
        if total_steps:
            _check_times(models, truth.t_s[[0, -1]])
    elif total_steps:
        truth, first = _peek(truth)
        if first is not None and len(first):
            t0 = float(first.t_s[0])
            _check_times(models, np.array([t0, t0 + (total_steps - 1) / first.rate_hz]))
    return truth, total_steps


def _peek(chunks) -> tuple[Iterator[TruthStates], TruthStates | None]:
    """The first chunk of ``chunks`` and the chunks again, that one included (none: None)."""
    it = iter(chunks)
    first = next(it, None)
    return (it if first is None else itertools.chain([first], it)), first


def _check_times(models, span_s: np.ndarray) -> None:
    """Ask each model that has data that must cover the run (its optional ``check_times``,
    CONTRACTS.md: gnss.orbits) about the run's first and last time ``span_s``; it raises."""
    for model in models:
        check = getattr(model, "check_times", None)
        if check is not None:
            check(span_s)


@dataclass
class _Streamed:
    """What streaming the truth through the models counted, and the worker's share."""

    steps: int = 0
    first_step: int | None = None
    last_t: float = 0.0  # the last step's time, s
    rate_hz: float | None = None  # the truth's rate (None: no step)
    remote: tuple[dict, dict] | None = None  # the worker's (rows, episode.json entries)

    @property
    def duration_s(self) -> float:
        """From the first step (0 without one) to the last step's time."""
        return self.last_t - (self.first_step or 0) / (
            self.rate_hz if self.rate_hz is not None else 1.0
        )


def _stream(
    chunks: Iterator[TruthStates],
    schedule: _Schedule,
    *,
    child: ChunkWorker | None,
    truth_writer,
    bar: Progress,
    total_steps: int | None,
) -> _Streamed:
    """Run the chunks through the models: this process's on ``schedule``'s threads, each chunk
    also sent to the forked worker ``child`` (its rows and entries collected at the end), the
    truth written when asked, the progress shown. Then, even on a failure, close what streamed
    them: the worker aborted if it did not finish, the threads, the files, the bar (a stop
    meanwhile is raised once they are closed: navsense._runtime.waits)."""
    steps = 0
    first_step = None
    last_t = 0.0
    remote_result = None
    pool, outputs = schedule.pool, schedule.outputs
    try:
        # the collector paused, and run once a chunk (navsense._runtime.memory)
        with memory.collector_paused():
            for chunk in schedule.run(chunks):
                if child is not None:
                    if child.failed:
                        break  # finish() below raises the child's error
                    child.send(chunk)
                if first_step is None:
                    first_step = chunk.step0
                if truth_writer is not None:
                    truth_writer.write(chunk)
                steps += len(chunk)
                last_t = float(chunk.t_s[-1])
                bar.update(
                    steps,
                    f"{100 * steps / total_steps:5.1f} %" if total_steps else f"{steps} steps",
                )
            if child is not None:
                remote_result = child.finish()
    finally:
        with stops_deferred():
            if child is not None and remote_result is None:
                child.abort()
            pool.shutdown(wait=True)
            try:
                outputs.close()
            finally:
                bar.close()
                if truth_writer is not None:
                    truth_writer.__exit__(*sys.exc_info())
    rate_hz = chunk.rate_hz if steps else None
    return _Streamed(steps, first_step, last_t, rate_hz, remote_result)


def _rows_and_infos(models, local, outputs: _Outputs, remote: tuple[dict, dict] | None):
    """The rows each model wrote and episode.json's "models" entries, in model order, whichever
    process ran it (``local``: this process's models; ``remote``: the worker's share)."""
    rows = outputs.rows_written()
    infos = {m.name: m.episode_info() for m in local}
    if remote is not None:
        rows.update(remote[0])
        infos.update(remote[1])
    models_info: dict = {}
    for model in models:
        models_info.update(infos[model.name])
    return rows, models_info


def _on_truth_clock(
    truth: TruthStates | Iterable[TruthStates], cfg: dict
) -> tuple[TruthStates | Iterable[TruthStates], dict]:
    """The truth (its first chunk read when it is an iterable) and ``cfg`` with physics.hz at
    the truth's rate: a run's physics clock is its truth's (issue 30 ruling; navsense.run has
    refused an explicit physics.hz that differs from a truth log's). ConfigError when an
    enabled sensor's rate is above it (navsense.config.physics.rates_above_physics)."""
    import itertools

    from navsense.config.physics import rates_above_physics

    if isinstance(truth, TruthStates):
        rate = truth.rate_hz
    else:
        chunks = iter(truth)
        first = next(chunks, None)
        if first is None:
            return (), cfg
        rate = first.rate_hz
        truth = itertools.chain([first], chunks)
    if float(cfg["physics"]["hz"]) != rate:
        hz = int(rate) if float(rate).is_integer() else float(rate)
        cfg = {**cfg, "physics": {**cfg["physics"], "hz": hz}}
    above = rates_above_physics(cfg)
    if above:
        raise ConfigError(f"{above[0]}, the truth's rate")
    return truth, cfg


class _ExtraWriters:
    """The files beside the JSONL rows: gnss.nmea (NMEA sentences) and ins.frames (40 x float64)."""

    def __init__(self, folder: Path, models, queue: WriteQueue) -> None:
        self._queue = queue
        self._nmea = None
        self._frames = None
        names = {m.name for m in models}
        if "gnss" in names:
            from navsense.output.nmea.writer import NmeaWriter

            self._nmea = NmeaWriter(folder / "gnss.nmea").__enter__()
        if "ins" in names:
            from navsense.output.frames import InsFrameWriter

            self._frames = InsFrameWriter(folder / "ins.frames").__enter__()

    def payload(self, name: str, layout: Layout, block: dict):
        """What a model adds beside its rows: the text of gnss.nmea (bytes) or INS frames (None:
        nothing)."""
        if name == "gnss" and self._nmea is not None:
            from navsense.output.layouts.gnss import GnssLayout

            if isinstance(layout, GnssLayout):  # the lines as the file holds them, at once
                return layout.nmea_text(block)
            return layout.extra(block)
        if name == "ins" and self._frames is not None:
            return layout.extra(block)
        return None

    def submit(self, model, payload) -> None:
        if payload is None:
            return
        if model.name == "gnss" and self._nmea is not None:
            write = (
                self._nmea.write_text if isinstance(payload, bytes) else self._nmea.write_sentences
            )
            self._queue.submit(write, payload)
        elif self._frames is not None:
            self._queue.submit(self._frames.write, payload)

    def close(self) -> None:
        if self._nmea is not None:
            self._nmea.close()
        if self._frames is not None:
            self._frames.__exit__(None, None, None)
