"""Whole-process benchmark of `navsense simulate` against the bare-numpy floor, in one run.

    python benchmarks/bench_run.py                  # 10 min, 1 h (JSONL and Parquet), streaming
    python benchmarks/bench_run.py --long           # also 4 h (linear scaling) and a 24 h log in chunks

With --long the 24 h Parquet run's peak memory is printed and written (peak_mib_24h_parquet) next
to the 1 h run's (its floor: memory is bounded by the chunk, not the run; goal <= 512 MiB).

Issue 31's figures are printed last, each next to its goal, and written under "goals" with
--json (:func:`issue_goals`): the whole 1 h run in Parquet (goal <= 2x the floor) and in JSON
Lines (<= 4x), each with its wall time and the floor's of the same run; one physics step in
process and SensorStream's step() at 1 kHz (<= 50 us), its worker's CPU (<= 500 us a step);
the 24 h Parquet run's peak (<= 512 MiB, with --long); start-up (<= 0.3 s). The campaigns' CPU
ratio is benchmarks/bench_campaign.py's.

Runs up to one hour are repeated (--repeat, default 3) and the fastest of each counts, the floor's
too: the shared machine's background load only ever adds time.

Each configuration runs as its own process (`python -m navsense simulate --truth LOG ...`) and
is measured from outside: wall time, CPU time (user + system, its worker process's included, by
os.wait4) and peak memory (the larger of its own peak RSS and the sampled sum of the RSS of the
process and its forked worker). The floor (`benchmarks/floor_numpy.py DURATION OUT`) runs the same way in the same
benchmark run, and every figure is also given as a ratio to it: absolute times on shared machines
drift from run to run, ratios much less.

The truth logs are the embedded acre-loop scenario (a closed 10-minute loop) repeated, written as
Parquet once and cached under the work folder; the 24 h log is written chunk by chunk.
The full Polaris suite runs: IMU 120 Hz, INS 100 Hz with the datum chain, GNSS 10 Hz with the
sky view over the embedded site's obstacles.

The streaming figure is in-process: one physics step per call of the IMU, the INS (ACRES Core
streaming API) and the GNSS receiver, averaged over the steps; the step's TruthStates is cut
inside the timed loop, the INS point (which a simulator has at hand) is prepared before it.
It is also measured paced at 120 Hz in real time, the loop spinning between steps as a
simulator busy with its own physics (caches and the idle core then cost more than back to back).
The SensorStream figures are a live simulator's view of navsense.stream.SensorStream with its
worker process, paced at 1 kHz and at 120 Hz in real time: the time spent in step() per step
and the worker's CPU time per step; and SensorStream without a worker, back to back (the models
and the building of their rows in the caller's process). Each streaming figure is the fastest
of 2 runs. The one-step-a-call APIs run navsense.kernels compiled by numba, from numba's cache
(the first run on a machine compiles them, a few seconds: the fastest of 2 leaves it out).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from floor import FLOOR  # noqa: E402  (benchmarks/floor_numpy.py)

ROOT = HERE.parent
RATES_HZ = {"imu": 120.0, "ins": 100.0, "gnss": 10.0}
DAY_PEAK_GOAL_MIB = 512  # issue 31 item 4: a 24 h Parquet run's peak RSS, any machine
# issue 31's goals: the whole 1 h run as a multiple of the floor's wall time in the same run
# (item 5), one physics step in process and SensorStream at 1 kHz (item 2), start-up (item 1)
WHOLE_RUN_GOAL_X_FLOOR = {"parquet": 2.0, "jsonl": 4.0}
STEP_GOAL_US = 50.0
WORKER_CPU_GOAL_US = 500.0
STARTUP_GOAL_S = 0.3


def issue_goals(by_name: dict, floor_1h: dict, stream: dict, startup_s: float) -> list[dict]:
    """Issue 31's figures next to their goals, each as measured in this run: ``figure``,
    ``value``, ``unit``, ``goal`` (at or under), ``met``; the whole runs also give the floor's
    wall time of the same run (``floor_wall_s``) and their own (``wall_s``).

    ``by_name``: the results by configuration name; ``stream``: the streaming figures by their
    JSON key; the 24 h peak only with --long (absent otherwise)."""
    goals = []
    for fmt, goal in WHOLE_RUN_GOAL_X_FLOOR.items():
        run = by_name.get(f"navsense 1 h {fmt}")
        if run is not None:
            goals.append(
                {
                    "figure": f"whole_run_1h_{fmt}_x_floor",
                    "value": run["wall_s"] / floor_1h["wall_s"],
                    "unit": "x floor",
                    "goal": goal,
                    "wall_s": run["wall_s"],
                    "floor_wall_s": floor_1h["wall_s"],
                }
            )
    for key, goal in (
        ("streaming_us_per_step", STEP_GOAL_US),
        ("sensor_stream_1khz_us_per_step", STEP_GOAL_US),
        ("sensor_stream_1khz_worker_cpu_us_per_step", WORKER_CPU_GOAL_US),
    ):
        goals.append({"figure": key, "value": stream[key], "unit": "us", "goal": goal})
    day = by_name.get("navsense 24 h parquet")
    if day is not None:
        goals.append(
            {
                "figure": "peak_mib_24h_parquet",
                "value": day["peak_mib"],
                "unit": "MiB",
                "goal": float(DAY_PEAK_GOAL_MIB),
            }
        )
    goals.append(
        {"figure": "startup_wall_s", "value": startup_s, "unit": "s", "goal": STARTUP_GOAL_S}
    )
    for g in goals:
        g["met"] = bool(g["value"] <= g["goal"])
    return goals


def _env() -> dict:
    """The children's environment: navsense from this checkout, its bytecode cached.

    An installed package has its bytecode compiled at install time (pip does it), so no user run
    compiles navsense's modules. The warm-up run writes the bytecode (src/navsense/__pycache__,
    ignored by git) even where PYTHONDONTWRITEBYTECODE is set, so that no measured run pays for
    compiling (about 50 ms here).
    """
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _tree_rss_kib(pid: int) -> int:
    """Resident memory of ``pid`` and its descendants, KiB (a sum of RSS: shared pages count twice)."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            status = Path(f"/proc/{p}/status").read_text()
            total += int(status.split("VmRSS:")[1].split()[0])
            for task in Path(f"/proc/{p}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except (OSError, IndexError, ValueError):
            continue  # the process ended between two reads
    return total


class _TreeMemory:
    """Peak of the process tree's summed RSS, sampled every 10 ms on a thread (Linux /proc; a
    sample reads a few /proc files, about 0.1 ms: 1 % of a core the measured run cannot use)."""

    def __init__(self, pid: int) -> None:
        import threading

        self.pid, self.peak_kib, self._stop = pid, 0, threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        while not self._stop.wait(0.010):
            self.peak_kib = max(self.peak_kib, _tree_rss_kib(self.pid))

    def stop(self) -> float:
        self._stop.set()
        self._thread.join()
        return self.peak_kib / 1024.0


def run_process(cmd: list[str]) -> dict:
    """Run ``cmd``; wall, CPU (user + system, the children's included) and peak memory.

    Dirty pages of earlier runs (a JSONL hour writes about 1 GB) are synced to disk first, so
    that no run pays for the kernel writing out another run's files.

    ``peak_mib`` is the larger of the child's own peak RSS (os.wait4) and the peak of the summed
    RSS of the child and the worker process it forks (sampled; an upper bound, since the pages
    the two processes share are counted twice).
    """
    if hasattr(os, "sync"):
        # the files of earlier runs go to disk now, not as kernel writeback during this run
        os.sync()
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    tree = _TreeMemory(proc.pid) if Path("/proc").exists() else None
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    tree_mib = tree.stop() if tree is not None else 0.0
    out, err = proc.stdout.read(), proc.stderr.read()
    proc.stdout.close()
    proc.stderr.close()
    if status != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{err.decode()}")
    return {
        "wall_s": wall,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "peak_mib": max(usage.ru_maxrss / 1024.0, tree_mib),
        "stdout": out.decode(),
    }


def truth_log(folder: Path, duration_s: float) -> Path:
    """acre-loop repeated to ``duration_s``, as a Parquet truth log (cached)."""
    sys.path.insert(0, str(ROOT / "src"))
    from navsense.scenarios import load_scenario
    from navsense.truth.io import TruthWriter
    from navsense.truth.states import TruthStates

    path = folder / f"acre-loop-{int(duration_s)}s.parquet"
    if path.exists():
        return path
    hour = min(duration_s, 3600.0)
    base = load_scenario("acre-loop", duration_s=hour).truth
    period = len(base) - 1  # the loop is closed: the last step equals the first of the next lap
    with TruthWriter(path) as writer:
        written = 0
        total = int(round(duration_s * base.rate_hz)) + 1
        while written < total:
            part = base.slice(0, min(period, total - written))
            writer.write(
                TruthStates(
                    written,
                    part.p_m,
                    part.q_xyzw,
                    part.v_mps,
                    part.w_radps,
                    part.c_m,
                    part.reset,
                    part.rate_hz,
                )
            )
            written += len(part)
    return path


def simulate(folder: Path, log: Path, fmt: str, name: str) -> dict:
    out = folder / name
    if out.exists():
        import shutil

        shutil.rmtree(out)
    result = run_process(
        [
            sys.executable,
            "-m",
            "navsense",
            "simulate",
            "--truth",
            str(log),
            "--out",
            str(out),
            "--quiet",
            "--format",
            fmt,
        ]
    )
    result["bytes"] = sum(p.stat().st_size for p in out.iterdir())
    return result


def floor(folder: Path, duration_s: float) -> dict:
    return run_process([sys.executable, str(FLOOR), str(duration_s), str(folder / "floor")])


def first_hour_identical(hour_dir: Path, day_dir: Path) -> bool:
    """The 24 h run's rows and frames up to the end of the 1 h log equal the 1 h run's."""
    import pyarrow.parquet as pq

    same = True
    for name in ("gnss", "imu", "ins"):
        hour = pq.read_table(hour_dir / f"{name}.parquet")
        day = pq.read_table(day_dir / f"{name}.parquet")
        same &= day.slice(0, hour.num_rows).equals(hour)
    for name in ("ins.frames", "gnss.nmea"):
        hour = (hour_dir / name).read_bytes()
        same &= (day_dir / name).read_bytes()[: len(hour)] == hour
    return bool(same)


def _paced(steps: int, pace_s: float, call) -> float:
    """Mean seconds in ``call(k)`` for k < steps, the calls ``pace_s`` apart (0: back to back);
    between calls the loop spins, as a simulator busy with its own step."""
    clock = time.perf_counter
    spent = 0.0
    t_next = clock()
    for k in range(steps):
        while clock() < t_next:
            pass
        t_next += pace_s
        t0 = clock()
        call(k)
        spent += clock() - t0
    return spent / steps


def streaming_us_per_step(steps: int = 12_000, pace_s: float = 0.0) -> float:
    """Mean cost of one physics step through the IMU, INS (streaming) and GNSS, microseconds."""
    sys.path.insert(0, str(ROOT / "src"))
    from navsense.config import load_config
    from navsense.config.typed.gnss import GnssConfig
    from navsense.config.typed.imu import ImuConfig
    from navsense.ins_stream import Ins
    from navsense.rotation import quat_to_matrix, rotate
    from navsense.scenarios import load_scenario
    from navsense.sensors.gnss.receiver import GnssReceiver
    from navsense.sensors.imu import ImuModel
    from navsense.vehicles import lever_arm_from_chassis

    scenario = load_scenario("acre-loop")
    cfg = load_config(vehicle="polaris")
    georef = scenario.site.make_georeference(
        cfg["gnss"]["datum"]["start_utc"], cfg["gnss"]["datum"]
    )
    truth = scenario.truth.slice(0, steps)
    imu = ImuModel(ImuConfig.from_validated(cfg), scenario.vehicle)
    gnss = GnssReceiver(GnssConfig.from_validated(cfg), scenario.vehicle, scenario.site, georef)
    ins = Ins(cfg, georef)
    # the streaming INS is given its reported point (base_footprint + the INS lever arm), which a
    # live simulator has at hand; the IMU and the GNSS take the step as a TruthStates
    arm = lever_arm_from_chassis(cfg["ins"]["position_flu_m"], "base_footprint", scenario.vehicle)
    footprint = (truth.p_m + rotate(quat_to_matrix(truth.q_xyzw), arm)).tolist()
    q, c, v, w = (a.tolist() for a in (truth.q_xyzw, truth.c_m, truth.v_mps, truth.w_radps))

    def one_step(k):
        step = truth.slice(k, k + 1)
        imu.process(step)
        gnss.process(step)
        t = k / truth.rate_hz
        if ins.due(t):
            ins.epoch(t, footprint[k], q[k], c[k], v[k], w[k])

    return _paced(steps, pace_s, one_step) * 1e6


REAL_TIME_S = 1.0 / 120.0  # a live simulator's step at 120 Hz
FAST_S = 0.001  # a simulator 8 times faster than real time


def sensor_stream_us_per_step(
    steps: int = 1200, pace_s: float = REAL_TIME_S
) -> tuple[float, float]:
    """SensorStream with a worker, steps pace_s apart: (us in step() per step, worker CPU us per step).

    The steps are sliced from the truth before the loop, so the time is step()'s alone (the
    simulator's own making of its TruthStates is not the stream's)."""
    sys.path.insert(0, str(ROOT / "src"))
    from navsense.config import load_config
    from navsense.scenarios import load_scenario
    from navsense.stream import SensorStream

    scenario = load_scenario("acre-loop")
    cfg = load_config(vehicle="polaris")
    truth = scenario.truth.slice(0, steps)
    one_steps = [truth.slice(k, k + 1) for k in range(steps)]
    stream = SensorStream(cfg, scenario.vehicle, scenario.site, worker=True)
    spent = _paced(steps, pace_s, lambda k: stream.step(one_steps[k]))
    stream.close()
    return spent * 1e6, stream.worker_cpu_s / steps * 1e6


def inline_stream_us_per_step(steps: int = 3000) -> float:
    """SensorStream without a worker (the models and their rows in this process), back to back."""
    sys.path.insert(0, str(ROOT / "src"))
    from navsense.config import load_config
    from navsense.scenarios import load_scenario
    from navsense.stream import SensorStream

    scenario = load_scenario("acre-loop")
    cfg = load_config(vehicle="polaris")
    truth = scenario.truth.slice(0, steps)
    stream = SensorStream(cfg, scenario.vehicle, scenario.site, worker=False)
    spent = _paced(steps, 0.0, lambda k: stream.step(truth.slice(k, k + 1)))
    stream.close()
    return spent * 1e6


def _in_child(call: str) -> list[float]:
    """bench_run.<call> in a fresh interpreter (this process stays small): its printed numbers."""
    code = (
        f"import sys; sys.path.insert(0, {str(HERE)!r}); import bench_run; "
        f"r = bench_run.{call}; print(*(r if isinstance(r, tuple) else (r,)))"
    )
    return [float(x) for x in run_process([sys.executable, "-c", code])["stdout"].split()]


def _label(duration_s: float) -> str:
    return f"{duration_s / 60:g} min" if duration_s < 3600.0 else f"{duration_s / 3600:g} h"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--long", action="store_true", help="also 4 h and a 24 h log in chunks")
    parser.add_argument("--work", default=None, help="work folder (default: a temporary one)")
    parser.add_argument("--json", default=None, help="write the results as JSON to this file")
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="runs of each configuration up to 1 h; the fastest counts (default 3)",
    )
    args = parser.parse_args(argv)
    folder = Path(args.work or tempfile.mkdtemp(prefix="navsense-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    if not FLOOR.exists():
        print(f"bench_run: the floor script {FLOOR} is missing", file=sys.stderr)
        return 2

    durations = [600.0, 3600.0] + ([14_400.0, 86_400.0] if args.long else [])
    startup_s = 2.0  # a 2-second log: the process's fixed cost (interpreter, imports, set-up)
    # truth logs and the streaming figure come from child processes, so this process stays small
    # (a child's peak RSS counts the parent's pages it was forked from until it execs)
    logs = {}
    for d in [startup_s, *durations]:
        code = (
            f"import sys; sys.path.insert(0, {str(HERE)!r}); import bench_run; "
            f"print(bench_run.truth_log(__import__('pathlib').Path({str(folder)!r}), {d}))"
        )
        logs[d] = Path(run_process([sys.executable, "-c", code])["stdout"].strip())
    results = []

    def best(runs):
        return min(runs, key=lambda r: r["wall_s"])

    simulate(folder, logs[startup_s], "parquet", "run-warm-up")  # compiles the bytecode once
    floor_1h = best([floor(folder, 3600.0) for _ in range(args.repeat)])
    results.append(("floor_numpy 1 h", 3600.0, floor_1h))
    startup = best(
        [simulate(folder, logs[startup_s], "parquet", "run-startup") for _ in range(args.repeat)]
    )
    for d in durations:
        for fmt in ("jsonl", "parquet") if d <= 3600.0 else ("parquet",):
            repeat = args.repeat if d <= 3600.0 else 1
            r = best([simulate(folder, logs[d], fmt, f"run-{int(d)}-{fmt}") for _ in range(repeat)])
            results.append((f"navsense {_label(d)} {fmt}", d, r))
    identical = None
    if 86_400.0 in durations:
        identical = first_hour_identical(folder / "run-3600-parquet", folder / "run-86400-parquet")
    # the streaming figures: each the fastest of 2 runs, in a fresh interpreter
    stream_us = min(_in_child("streaming_us_per_step()")[0] for _ in range(2))
    stream_live_us = min(
        _in_child(f"streaming_us_per_step(1200, {REAL_TIME_S!r})")[0] for _ in range(2)
    )
    fast_us, fast_worker_us = min(
        _in_child(f"sensor_stream_us_per_step(6000, {FAST_S!r})") for _ in range(2)
    )
    caller_us, worker_us = min(_in_child("sensor_stream_us_per_step()") for _ in range(2))
    inline_us = min(_in_child("inline_stream_us_per_step()")[0] for _ in range(2))

    print(
        f"\nnavsense benchmark, {time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores "
        f"({Path('/proc/cpuinfo').read_text().split('model name')[1].split(':')[1].splitlines()[0].strip() if Path('/proc/cpuinfo').exists() else 'unknown CPU'})"
    )
    head = (
        f"{'configuration':<26}{'wall s':>8}{'cpu s':>8}{'peak MiB':>10}{'x floor':>9}"
        f"{'IMU/s':>11}{'INS/s':>11}{'GNSS/s':>10}{'us/sample':>11}{'net us/s':>10}"
    )
    print(head)
    print("-" * len(head))
    rows_json = []
    for name, d, r in results:
        ratio = r["wall_s"] / floor_1h["wall_s"] * (3600.0 / d)
        per = {k: d * hz / r["wall_s"] for k, hz in RATES_HZ.items()}
        samples = d * sum(RATES_HZ.values())
        us = r["wall_s"] / samples * 1e6
        net = (r["wall_s"] - startup["wall_s"]) / samples * 1e6
        net_text = f"{net:>10.2f}" if name.startswith("navsense") else f"{'':>10}"
        print(
            f"{name:<26}{r['wall_s']:>8.2f}{r['cpu_s']:>8.2f}{r['peak_mib']:>10.0f}"
            f"{ratio:>9.2f}{per['imu']:>11.0f}{per['ins']:>11.0f}{per['gnss']:>10.0f}{us:>11.2f}"
            f"{net_text}"
        )
        rows_json.append(
            {
                "name": name,
                "duration_s": d,
                **{k: v for k, v in r.items() if k != "stdout"},
                "ratio_to_floor_per_hour": ratio,
                "us_per_sample": us,
                "net_us_per_sample": net,
            }
        )
    print(
        f"\nstreaming, in this process (IMU + INS + GNSS, one physics step per call): "
        f"{stream_us:.1f} us per step back to back, {stream_live_us:.1f} us at 120 Hz in real time"
    )
    print(
        f"SensorStream with its worker, us per step in step(): {fast_us:.1f} at 1 kHz, {caller_us:.1f} "
        f"at 120 Hz in real time ({caller_us * 1e-6 / REAL_TIME_S:.2%} of the step); the worker's "
        f"CPU {fast_worker_us:.0f} and {worker_us:.0f} us per step"
    )
    print(
        f"SensorStream without a worker (models and rows in this process): {inline_us:.1f} us per "
        f"step back to back"
    )
    print(
        f"start-up (a {startup_s:g} s log, Parquet): {startup['wall_s']:.2f} s wall, "
        f"{startup['peak_mib']:.0f} MiB"
    )
    print("x floor: wall time per hour of driving / the floor's wall time for 1 h, same run.")
    print("net us/s: (wall - start-up wall) per sample, the figure for linear scaling.")
    by_name = {name: r for name, _, r in results}
    for fmt in ("parquet", "jsonl"):
        ref = by_name.get(f"navsense 1 h {fmt}")
        if ref is None:
            continue
        parts = []
        for name, d, r in results:
            if name.startswith("navsense") and name.endswith(fmt) and r is not ref:
                whole = (r["wall_s"] / d) / (ref["wall_s"] / 3600.0)
                net = ((r["wall_s"] - startup["wall_s"]) / d) / (
                    (ref["wall_s"] - startup["wall_s"]) / 3600.0
                )
                parts.append(f"{_label(d)} {whole:.2f} (net {net:.2f})")
        if parts:
            print(f"time per sample / 1 h's, {fmt}: " + ", ".join(parts))
    if identical is not None:
        print(f"24 h run in chunks: its first hour equals the 1 h run, every sensor: {identical}")
    peaks = {
        label: by_name[f"navsense {label} parquet"]["peak_mib"]
        for label in ("1 h", "24 h")
        if f"navsense {label} parquet" in by_name
    }
    if "24 h" in peaks:  # issue 31 item 4: bounded by the chunk, not the run
        print(
            f"peak RSS, Parquet: 1 h {peaks['1 h']:.0f} MiB, 24 h {peaks['24 h']:.0f} MiB "
            f"(goal <= {DAY_PEAK_GOAL_MIB} MiB: {'met' if peaks['24 h'] <= DAY_PEAK_GOAL_MIB else 'NOT met'})"
        )
    stream = {
        "streaming_us_per_step": stream_us,
        "sensor_stream_1khz_us_per_step": fast_us,
        "sensor_stream_1khz_worker_cpu_us_per_step": fast_worker_us,
    }
    goals = issue_goals(by_name, floor_1h, stream, startup["wall_s"])
    print(f"\nissue 31's goals, this run (floor_numpy 1 h: {floor_1h['wall_s']:.2f} s wall):")
    for g in goals:
        print(
            f"  {g['figure']:<44}{g['value']:>9.2f} {g['unit']:<8} goal <= {g['goal']:g}"
            f"  {'met' if g['met'] else 'NOT met'}"
        )
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "floor_1h_wall_s": floor_1h["wall_s"],
                    "goals": goals,
                    "results": rows_json,
                    "streaming_us_per_step": stream_us,
                    "streaming_real_time_us_per_step": stream_live_us,
                    "sensor_stream_1khz_us_per_step": fast_us,
                    "sensor_stream_1khz_worker_cpu_us_per_step": fast_worker_us,
                    "sensor_stream_real_time_us_per_step": caller_us,
                    "sensor_stream_worker_cpu_us_per_step": worker_us,
                    "sensor_stream_inline_us_per_step": inline_us,
                    "startup_wall_s": startup["wall_s"],
                    "first_hour_identical": identical,
                    "peak_mib_1h_parquet": peaks.get("1 h"),
                    "peak_mib_24h_parquet": peaks.get("24 h"),  # with --long
                    "peak_goal_mib_24h_parquet": DAY_PEAK_GOAL_MIB,
                },
                indent=2,
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
