"""Campaign throughput and CPU per worker count, on the machine it runs on (issue 31 item 3).

    PYTHONPATH=src python benchmarks/bench_campaign.py [--runs 12] [--duration 300]
        [--workers 1,2] [--repeat 2] [--json FILE]

A campaign of ``--runs`` runs (the acre-loop scenario cut to ``--duration`` s, one seed each,
keep = "statistics": simulate into a scratch directory, compute the statistics, remove it) is run

1. serially in this process (``--workers 0``, no Dask: the baseline);
2. on a LocalCluster of N workers for each N of ``--workers`` (default 1, 2, 4 ... up to the
   cores), started as ``navsense campaign run`` starts it (navsense.campaign.executors) and
   reached through ``--scheduler``, after a warm-up campaign (the first import of navsense in
   each worker), so that the figures are those of the runs.

Each measurement alternates serial and cluster campaigns (``--repeat`` pairs; the best wall of
each kind counts, and the CPU of that same campaign): the machine may be shared, and a ratio
taken within one pair drifts much less than a time. Figures:

- wall time, runs per second and the speed-up over the serial campaign;
- CPU: the CPU time of every process of the campaign, user + system: this process (the client,
  the scheduler's thread, the serial runs) by ``resource.getrusage(RUSAGE_SELF)``, its children
  that ended by ``RUSAGE_CHILDREN``, and the cluster's worker processes by ``psutil`` (read
  before and after the campaign; a Dask dependency); the ratio to the serial campaign's CPU is
  the price of the parallel campaign (goal: within 15 %);
- each worker's peak RSS (``VmHWM``), which bounds a worker's memory: one run at a time;
- the cluster's start: from ``LocalCluster(...)`` to every worker ready, wall and CPU (the
  workers' interpreters and imports), and the warm-up's first runs (navsense's import).

The statistics tables of every campaign are checked to be identical (statistics.parquet, byte
for byte). The load average before and after is printed and written: on a shared machine it
says how much of the machine the figures had.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

from navsense.campaign.executors import local_cluster
from navsense.campaign.runner import run_campaign
from navsense.campaign.spec import load_campaign


def _campaign(folder: Path, runs: int, duration_s: float, name: str) -> Path:
    path = folder / f"{name}.json"
    path.write_text(
        json.dumps(
            {
                "name": name,
                "duration_s": duration_s,
                "seeds": {"start": 1000 if name == "warmup" else 1, "count": runs},
                "sources": [{"scenario": "acre-loop"}],
            }
        )
    )
    return path


def _own_cpu_s() -> float:
    """CPU of this process and of its children that ended, user + system, s."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    ended = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + ended.ru_utime + ended.ru_stime


def _workers_cpu_s(procs) -> float:
    """CPU of the cluster's worker processes (and of the children they waited for), s."""
    total = 0.0
    for p in procs:
        t = p.cpu_times()
        total += t.user + t.system + t.children_user + t.children_system
    return total


def _peak_rss_mib(procs) -> list[float]:
    """Each worker's peak resident memory (VmHWM), MiB."""
    peaks = []
    for p in procs:
        status = Path(f"/proc/{p.pid}/status")
        if status.exists():
            peaks.append(int(status.read_text().split("VmHWM:")[1].split()[0]) / 1024.0)
        else:  # pragma: no cover - no /proc: the current RSS
            peaks.append(p.memory_info().rss / 2**20)
    return peaks


def _timed(campaign, out: Path, procs=(), **kwargs) -> dict:
    c0, w0 = _own_cpu_s(), _workers_cpu_s(procs)
    t0 = time.perf_counter()
    outcome = run_campaign(campaign, out, progress=False, **kwargs)
    wall = time.perf_counter() - t0
    if outcome.ok != len(campaign.runs):
        raise SystemExit(f"bench_campaign: {outcome.text()}")
    cpu = _own_cpu_s() - c0 + _workers_cpu_s(procs) - w0
    return {"wall_s": wall, "cpu_s": cpu}


def _cluster(workers: int):
    """A LocalCluster as ``navsense campaign run`` starts it; its start's wall and CPU."""
    import psutil
    from dask.distributed import Client

    me = psutil.Process()
    before = set(me.children())
    c0, t0 = _own_cpu_s(), time.perf_counter()
    cluster = local_cluster(workers)
    with Client(cluster) as client:
        client.wait_for_workers(workers)
        pids = set(client.run(os.getpid).values())
    wall = time.perf_counter() - t0
    procs = [p for p in me.children() if p not in before and p.pid in pids]
    cpu = _own_cpu_s() - c0 + _workers_cpu_s(procs)
    return cluster, procs, {"wall_s": wall, "cpu_s": cpu}


def _worker_counts(text: str | None) -> list[int]:
    from navsense._runtime.machine import available_cores

    if text:
        return [int(x) for x in text.split(",") if x.strip()]
    cores = available_cores()
    counts = [n for n in (1, 2, 4, 8, 16, 32, 64) if n < cores]
    return [*counts, cores]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=12, help="runs in the campaign (default 12)")
    p.add_argument(
        "--duration",
        type=float,
        default=300.0,
        help="seconds of acre-loop a run (default 300)",
    )
    p.add_argument(
        "--workers",
        default=None,
        help="worker counts, comma-separated (default 1, 2, 4 ... up to the cores)",
    )
    p.add_argument(
        "--repeat",
        type=int,
        default=2,
        help="serial/cluster pairs for each worker count; the best of each counts (default 2)",
    )
    p.add_argument("--json", default=None, help="write the figures as JSON to this file")
    args = p.parse_args(argv)
    load_before = os.getloadavg()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in load_before)}")
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-campaign-") as tmp:
        folder = Path(tmp)
        campaign = load_campaign(_campaign(folder, args.runs, args.duration, "bench"))
        warmup = load_campaign(_campaign(folder, 4, 5.0, "warmup"))
        run_campaign(warmup, folder / "warmup-0", workers=0, progress=False)
        for n in _worker_counts(args.workers):
            cluster, procs, start = _cluster(n)
            try:
                t0 = time.perf_counter()
                run_campaign(
                    warmup,
                    folder / f"warmup-{n}",
                    scheduler=cluster.scheduler_address,
                    progress=False,
                )
                start["first_runs_s"] = time.perf_counter() - t0
                serial, parallel = [], []
                for k in range(args.repeat):
                    serial.append(_timed(campaign, folder / f"serial-{n}-{k}", workers=0))
                    parallel.append(
                        _timed(
                            campaign,
                            folder / f"cluster-{n}-{k}",
                            procs,
                            scheduler=cluster.scheduler_address,
                        )
                    )
                peaks = _peak_rss_mib(procs)
            finally:
                cluster.close()
            s = min(serial, key=lambda r: r["wall_s"])
            c = min(parallel, key=lambda r: r["wall_s"])
            rows.append(
                {
                    "workers": n,
                    "serial": s,
                    "cluster": c,
                    "speedup": s["wall_s"] / c["wall_s"],
                    "runs_per_s": args.runs / c["wall_s"],
                    "serial_runs_per_s": args.runs / s["wall_s"],
                    "cpu_ratio": c["cpu_s"] / s["cpu_s"],
                    "worker_peak_rss_mib": peaks,
                    "start": start,
                    "all_walls": {
                        "serial": [r["wall_s"] for r in serial],
                        "cluster": [r["wall_s"] for r in parallel],
                    },
                }
            )
        tables = {
            p.read_bytes()
            for p in folder.glob("*/statistics.parquet")
            if not p.parent.name.startswith("warmup")
        }
    load_after = os.getloadavg()
    print(
        f"campaign: {args.runs} runs of acre-loop cut to {args.duration:g} s, keep = statistics; "
        f"serial and cluster alternated, best wall of {args.repeat} each"
    )
    print(
        f"{'workers':>7} {'serial s':>9} {'cluster s':>9} {'runs/s':>7} {'speed-up':>8} "
        f"{'CPU serial':>10} {'CPU cluster':>11} {'CPU ratio':>9} {'start s':>8} {'start CPU':>9} "
        f"{'peak MiB/worker':>15}"
    )
    for r in rows:
        print(
            f"{r['workers']:>7} {r['serial']['wall_s']:>9.2f} {r['cluster']['wall_s']:>9.2f} "
            f"{r['runs_per_s']:>7.2f} {r['speedup']:>7.2f}x {r['serial']['cpu_s']:>10.2f} "
            f"{r['cluster']['cpu_s']:>11.2f} {r['cpu_ratio']:>8.2f}x {r['start']['wall_s']:>8.2f} "
            f"{r['start']['cpu_s']:>9.2f} {max(r['worker_peak_rss_mib']):>15.0f}"
        )
    print(f"tables identical: {len(tables) == 1}")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in load_after)}")
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "runs": args.runs,
                    "duration_s": args.duration,
                    "cores": os.cpu_count(),
                    "load_before": load_before,
                    "load_after": load_after,
                    "tables_identical": len(tables) == 1,
                    "by_workers": rows,
                },
                indent=2,
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
