"""LiveServer: a run served as it happens, fed one physics step (or chunk) at a time.

A physics simulator (or :func:`navsense.live.pacing.serve_paced`, which paces a recorded truth by
the wall clock) calls :meth:`LiveServer.step` with the truth of its next steps; the sensors run
in a :class:`navsense.stream.SensorStream` and what each step delivers goes out at once:

- to the Foxglove WebSocket server (:mod:`navsense.live.foxglove_out`): the bag's ROS 2 topics,
  encoded by :mod:`navsense.output.ros2`'s functions, and each sensor's rows as JSON;
- to the NMEA outputs (:mod:`navsense.live.nmea_out`, TCP and a pseudo-terminal): the lines of
  ``gnss.nmea``, whatever sentences the run writes there.

Every message carries the run's times: ROS 2 header stamps start_utc + ``sample_time_s``, log
times start_utc + ``delivery_time_s`` (as in the bag), the NMEA sentences their own UTC time. A
row goes out at its delivery step: the step whose time is at or after the sample time plus the
modelled latency ``delay_s`` (specification, "Frames and Sample Times").

With ``out_dir`` the run directory is written when the server closes, exactly as ``navsense
simulate`` writes it over the steps fed (by :func:`navsense.simulate.simulate` itself): the
truth fed is kept in memory for it (17 kB a second at 120 Hz, 62 MB an hour), so no client,
slow or gone, can touch the files.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from navsense.output.nmea.text import LINE_END
from navsense.output.ros2 import TF_STATIC_TOPIC, BagPlan, sensors_of_config
from navsense.output.ros2.topics import seconds_to_ns
from navsense.runs.kinds import columns_of_rows
from navsense.site import Site
from navsense.stream import SensorStream
from navsense.suite import enabled
from navsense.truth.states import TruthStates
from navsense.vehicles import VehicleProfile

__all__ = ["LiveServer"]

_RECORD_BLOCK = 12_000  # steps of recorded truth joined into one block (100 s at 120 Hz)


class _TruthRecord:
    """The truth fed, kept for the run directory in blocks of about ``_RECORD_BLOCK`` steps."""

    def __init__(self) -> None:
        self.blocks: list[TruthStates] = []
        self._pending: list[TruthStates] = []
        self._pending_steps = 0
        self.steps = 0

    def add(self, truth: TruthStates) -> None:
        # copies: a simulator may reuse its arrays for the next step
        self._pending.append(TruthStates.concatenate([truth]))
        self._pending_steps += len(truth)
        self.steps += len(truth)
        if self._pending_steps >= _RECORD_BLOCK:
            self._join()

    def _join(self) -> None:
        if self._pending:
            self.blocks.append(TruthStates.concatenate(self._pending))
            self._pending = []
            self._pending_steps = 0

    def chunks(self) -> list[TruthStates]:
        self._join()
        return list(self.blocks)


class _RecentTruth:
    """The truth of the last feed and of the ``keep`` physics steps before it (copies), for the
    ground truth of the rows it delivers (a row's sample step is at most the latency behind
    its delivery step)."""

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self._chunks: list[TruthStates] = []

    def add(self, truth: TruthStates) -> None:
        self._chunks.append(TruthStates.concatenate([truth]))  # a simulator may reuse its arrays
        first = truth.step0 - self.keep
        while self._chunks[0].step0 + len(self._chunks[0]) <= first:
            self._chunks.pop(0)

    def rows(self, steps: np.ndarray) -> dict:
        """The truth rows (navsense.runs.stats.truth_at_steps's keys) at ``steps`` (a few, kept)."""
        picked = []
        for step in steps.tolist():
            for chunk in reversed(self._chunks):
                if chunk.step0 <= step < chunk.step0 + len(chunk):
                    picked.append((chunk, step - chunk.step0))
                    break
            else:  # pragma: no cover - the buffer spans the latency
                raise RuntimeError(f"live: no truth kept for step {step}")
        names = ("p_m", "q_xyzw", "v_mps", "w_radps", "c_m")
        return {k: np.array([getattr(c, k)[i] for c, i in picked]) for k in names}


class _Delivered:
    """What one step delivered (SensorStream's rows and extras), as the bag plan's BagData."""

    def __init__(self, got: Mapping[str, list], truth: _RecentTruth) -> None:
        self.got = got
        self.truth = truth

    def has(self, sensor: str) -> bool:
        return bool(self.got.get(sensor))

    def columns(self, sensor: str, spec: Mapping[str, Any]) -> dict[str, np.ndarray]:
        return columns_of_rows(self.got[sensor], spec)

    def ins_epochs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        rows = self.got["ins"]
        times = np.array([[r["sample_time_s"], r["delivery_time_s"]] for r in rows])
        return np.array(self.got["ins.frames"]), times[:, 0], times[:, 1]

    def truth_rows(self, steps: np.ndarray) -> dict:
        return self.truth.rows(steps)


class _Ros2Topics:
    """The bag's ROS 2 topics that a run's sensors give (navsense.output.ros2.BagPlan, with the
    optional receiver fix and raw IMU whenever those sensors are on), and their messages from
    delivered data."""

    def __init__(
        self, cfg: Mapping, vehicle: VehicleProfile, site: Site | None, rate_hz: float
    ) -> None:
        sensors = sensors_of_config(cfg)
        geodetic = site is not None and site.georeference is not None
        self.plan = BagPlan.of_config(
            cfg,
            vehicle.name,
            site,
            rate_hz,
            gnss_fix="gnss" in sensors and geodetic,
            raw_imu="imu" in sensors,
        )
        self.start_ns = self.plan.start_ns
        self.specs = self.plan.specs()
        # a row is delivered at most delay_s + one physics step after its sample
        keep = int(math.ceil(float(cfg["delay_s"]) * rate_hz)) + 4
        self.truth = _RecentTruth(keep)
        self.static_stamp_ns: int | None = None  # /tf_static's stamp: the first step's time

    def static_payload(self) -> bytes:
        assert self.static_stamp_ns is not None
        group = self.plan.static_topic(self.static_stamp_ns)
        return group.encode(0, 1).tobytes()

    def messages(self, got: Mapping[str, list], wanted) -> list[tuple[int, int, str, bytes]]:
        """(log ns, topic index, topic, CDR payload) of the delivered rows, for the topics for
        which ``wanted(topic)`` is true, in the bag's order: log time, topic, epoch."""
        groups = self.plan.messages(_Delivered(got, self.truth), wanted)
        out = []
        for k, group in enumerate(groups):
            topic = group.spec.topic
            rec = group.encode(0, len(group.log_ns))
            size = rec.dtype.itemsize
            blob = rec.tobytes()
            out += [
                (t, k, topic, blob[i * size : (i + 1) * size])
                for i, t in enumerate(group.log_ns.tolist())
            ]
        out.sort(key=lambda m: (m[0], m[1]))  # stable: epoch order within a topic
        return out


class LiveServer:
    """A vehicle's sensors served live while a simulator feeds the truth.

    ``LiveServer(cfg, vehicle, site=None, *, agent=0, host="127.0.0.1", foxglove_port=8765,
    nmea_tcp_port=None, nmea_pty=None, out_dir=None, ...)``: ``cfg`` the effective configuration
    (:func:`navsense.config.load_config`), ``vehicle`` a VehicleProfile, ``site`` a Site (None:
    open sky, no datum chain, hence no NMEA and no fix). Servers: ``foxglove_port`` (None: no
    Foxglove server; 0: any free port), ``nmea_tcp_port`` (None: none; 0: any free port),
    ``nmea_pty`` (None: none; "": a pseudo-terminal; a path: also a symbolic link to it there),
    all listening on ``host``. ``out_dir``: write the run directory there at :meth:`close`
    (``source``, ``output_format``, ``save_truth``, ``finish``: as
    :func:`navsense.simulate.simulate`; ``finish`` adds files, e.g. the ROS 2 bag, before the
    run directory is renamed into place).
    ``worker``, ``rate_hz``: as :class:`navsense.stream.SensorStream`. ``backlog``: messages
    (Foxglove) or epochs (NMEA) queued a client before its oldest are dropped. ``linger_s``: at
    :meth:`close`, the time the servers keep running for the clients to receive what is queued.

    :meth:`step` feeds the next consecutive physics step(s), publishes what they deliver and
    returns it (``{sensor: [row, ...], "gnss.nmea": [line, ...], "ins.frames": [...]}``).
    :meth:`close` delivers the rows still in flight, stops the servers and writes the run
    directory; it returns the :class:`navsense.simulate.RunSummary` (None without ``out_dir``).
    Also a context manager.
    """

    def __init__(
        self,
        cfg: Mapping,
        vehicle: VehicleProfile,
        site: Site | None = None,
        *,
        agent: int = 0,
        host: str = "127.0.0.1",
        foxglove_port: int | None = 8765,
        nmea_tcp_port: int | None = None,
        nmea_pty: str | None = None,
        out_dir: str | Path | None = None,
        source: dict | None = None,
        output_format: str = "jsonl",
        save_truth: bool = False,
        finish: Callable[[Path, Path], object] | None = None,
        worker: bool | None = None,
        rate_hz: float | None = None,
        backlog: int | None = None,
        linger_s: float = 0.25,
    ) -> None:
        self.cfg = cfg
        self.vehicle = vehicle
        self.site = site
        self.agent = agent
        self.out_dir = Path(out_dir) if out_dir is not None else None
        if self.out_dir is not None:
            from navsense.output.rundir import check_out_dir

            check_out_dir(self.out_dir)  # now, not after the run
        self.linger_s = linger_s
        self._run_options = {
            "source": source,
            "output_format": output_format,
            "save_truth": save_truth,
            "finish": finish,
        }
        self._record = _TruthRecord() if out_dir is not None else None
        self.steps = 0  # physics steps fed
        self.last_t_s: float | None = None  # the time of the last step fed
        self._closed = False
        self._failed = False  # a model's error: the run cannot go on, nor be written
        self._interrupted = False  # a KeyboardInterrupt inside the stream: it cannot go on
        self.foxglove = None
        self.nmea_tcp = None
        self.nmea_pty = None
        # the stream first: its worker is forked before the servers' threads exist
        self._stream = SensorStream(
            cfg, vehicle, site, agent=agent, worker=worker, rate_hz=rate_hz, extras=True
        )
        try:
            self._ros2 = _Ros2Topics(cfg, vehicle, site, self._stream.rate_hz)
            self._static_subscriptions = 0  # /tf_static subscriptions it was sent after
            if foxglove_port is not None:
                from navsense.live.foxglove_out import DEFAULT_BACKLOG, FoxgloveServer

                sensors = enabled(cfg)  # a channel of rows each (navsense.suite.SENSORS)
                self.foxglove = FoxgloveServer(
                    [spec for spec in self._ros2.specs],
                    sensors,
                    host=host,
                    port=foxglove_port,
                    backlog=backlog or DEFAULT_BACKLOG,
                )
            if nmea_tcp_port is not None:
                from navsense.live.nmea_out import DEFAULT_BACKLOG as NMEA_BACKLOG
                from navsense.live.nmea_out import NmeaTcpServer

                self.nmea_tcp = NmeaTcpServer(host, nmea_tcp_port, backlog=backlog or NMEA_BACKLOG)
            if nmea_pty is not None:
                from navsense.live.nmea_out import NmeaPty

                self.nmea_pty = NmeaPty(nmea_pty or None)
        except BaseException:
            self._stop_servers()
            self._stream.close()
            raise

    @property
    def rate_hz(self) -> float:
        return self._stream.rate_hz

    @property
    def start_ns(self) -> int:
        """start_utc in nanoseconds since the Unix epoch (the run's time zero)."""
        return self._ros2.start_ns

    def step(self, truth: TruthStates) -> dict[str, list[Any]]:
        """Feed the next consecutive physics step(s); publish and return what they deliver."""
        try:
            got = self._stream.step(truth)
        except Exception:
            self._failed = True
            raise
        except BaseException:
            self._interrupted = True
            raise
        n = len(truth)
        if n:
            if self._record is not None:
                self._record.add(truth)
            self._ros2.truth.add(truth)
            self.steps += n
            self.last_t_s = t_last = (truth.step0 + n - 1) / truth.rate_hz
            now_ns = self.start_ns + round(t_last * 1e9)
            first_feed = self._ros2.static_stamp_ns is None
            if first_feed:  # /tf_static's stamp: the run's first physics step
                self._ros2.static_stamp_ns = self.start_ns + int(
                    seconds_to_ns(np.array([truth.step0 / truth.rate_hz]))[0]
                )
            if self.foxglove is not None:
                self.foxglove.broadcast_time(now_ns)
                if not first_feed:
                    self._publish_static(now_ns)
        self._publish(got)
        return got

    def _publish_static(self, now_ns: int) -> None:
        """/tf_static when a client has subscribed to it since it was last sent: the WebSocket
        protocol has no latched channels. The first time at the second feed (a paced run's clock
        starts after the first step, which sets the models up; or at :meth:`close`), log time
        its stamp, the first step's time, as in the bag; later, for a new subscriber, at the
        feed's time ``now_ns``."""
        fox = self.foxglove
        topic = TF_STATIC_TOPIC.topic
        stamp = self._ros2.static_stamp_ns
        if fox is None or stamp is None:
            return
        made = fox.subscriptions_made(topic)
        if made == self._static_subscriptions or not fox.subscribed(topic):
            return
        log_ns = stamp if self._static_subscriptions == 0 else now_ns
        fox.log(topic, self._ros2.static_payload(), log_ns)
        self._static_subscriptions = made

    def _publish(self, got: Mapping[str, list]) -> None:
        lines = got.get("gnss.nmea")
        if lines and (self.nmea_tcp is not None or self.nmea_pty is not None):
            data = "".join(line + LINE_END for line in lines).encode("ascii")
            if self.nmea_tcp is not None:
                self.nmea_tcp.send(data)
            if self.nmea_pty is not None:
                self.nmea_pty.send(data)
        fox = self.foxglove
        if fox is None or not got:
            return
        for name, rows in got.items():
            if "." not in name:  # rows, not the extras
                fox.log_rows(name, rows, self.start_ns)
        for log_ns, _, topic, payload in self._ros2.messages(got, fox.subscribed):
            fox.log(topic, payload, log_ns)

    def close(
        self,
        *,
        deliver: bool = True,
        wait_until: Callable[[float], Any] | None = None,
        write: bool = True,
    ):
        """Deliver the rows still in flight (``deliver``; after ``wait_until(the last one's
        delivery time)``, e.g. :meth:`navsense.live.pacing.Pacer.wait_until`), stop the servers,
        write the run directory (with ``out_dir``, unless ``write`` is False). Returns its
        RunSummary, or None."""
        if self._closed:
            return None
        self._closed = True
        try:
            if self._failed or self._interrupted:  # the stream is in no state to deliver
                self._stream.__exit__(RuntimeError, None, None)
            else:
                rest = self._stream.close()
                if deliver:
                    times = [
                        r["delivery_time_s"] for k, v in rest.items() if "." not in k for r in v
                    ]
                    if times and wait_until is not None:
                        wait_until(max(times))
                    if self._static_subscriptions == 0 and self._ros2.static_stamp_ns:
                        self._publish_static(self._ros2.static_stamp_ns)  # one feed only
                    self._publish(rest)
        finally:
            self._stop_servers(self.linger_s)
        if self._record is None or self._failed or self.out_dir is None or not write:
            return None
        return self._write_run()

    def _stop_servers(self, linger_s: float = 0.0) -> None:
        """Stop every server; with ``linger_s`` the Foxglove server first has that long to send
        what it has queued (the SDK's stop drops it; the NMEA server sends its own queues)."""
        if linger_s > 0.0 and self.foxglove is not None:
            import time

            time.sleep(linger_s)
        for server in (self.foxglove, self.nmea_tcp, self.nmea_pty):
            if server is not None:
                server.close()

    def _write_run(self):
        from navsense.simulate import simulate

        assert self._record is not None and self.out_dir is not None
        return simulate(
            self._record.chunks(),
            dict(self.cfg),
            self.vehicle,
            self.site,
            self.out_dir,
            agent=self.agent,
            workers="threads",
            **self._run_options,
        )

    def __enter__(self) -> LiveServer:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is not None and not issubclass(exc_type, KeyboardInterrupt):
            self._failed = True
        self.close(deliver=exc_type is None)
