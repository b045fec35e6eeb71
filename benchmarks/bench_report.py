"""Whole-process benchmark of `navsense report` against the run that made it, in one run.

    python benchmarks/bench_report.py                 # 10 min and 1 h, JSONL and Parquet
    python benchmarks/bench_report.py --repeat 1      # one run of each (quicker, noisier)

For each duration and format, `navsense simulate --truth LOG --format FMT` makes the run (the
acre-loop truth logs of benchmarks/bench_run.py: the embedded 10-minute loop repeated, Parquet,
cached in the work folder) and `navsense report RUN` reports on it; both run as their own
process, measured from outside (wall, CPU user + system, peak RSS; bench_run.run_process), each
the fastest of --repeat runs: the shared machine's background load only ever adds time.

The goal (issue 18 item 7): the report of a 1 h run within 5 s, whole process, and never slower
than the run that made it, in both formats. The table gives both, and the ratio report / run,
for every duration; the goal column judges the 1 h runs (and longer). A shorter run's report is
shown for what it costs: its fixed part (the interpreter, the imports of numpy, pyarrow and
matplotlib: about 0.4 s of one core before the figure child is forked, then about 0.1-0.2 s of
CPU a figure, six figures) is more than a 10-minute run takes in all.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import bench_run  # noqa: E402  (benchmarks/bench_run.py: run_process, truth_log, simulate)

GOAL_S = 5.0  # the report of a 1 h run, whole process
GOAL_DURATION_S = 3600.0  # the runs the goal is about


def report(run: Path) -> dict:
    return bench_run.run_process([sys.executable, "-m", "navsense", "report", str(run)])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", default=None, help="work folder (default: a temporary one)")
    parser.add_argument("--json", default=None, help="write the results as JSON to this file")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each; the fastest counts")
    parser.add_argument(
        "--durations",
        default="600,3600",
        help="comma-separated run durations in seconds (default 600,3600)",
    )
    args = parser.parse_args(argv)
    folder = Path(args.work or tempfile.mkdtemp(prefix="navsense-bench-report-"))
    folder.mkdir(parents=True, exist_ok=True)
    durations = [float(d) for d in args.durations.split(",")]
    logs = {}
    for d in [2.0, *durations]:
        code = (
            f"import sys; sys.path.insert(0, {str(HERE)!r}); import bench_run; "
            f"print(bench_run.truth_log(__import__('pathlib').Path({str(folder)!r}), {d}))"
        )
        logs[d] = Path(bench_run.run_process([sys.executable, "-c", code])["stdout"].strip())
    warm = bench_run.simulate(folder, logs[2.0], "parquet", "run-warm-up")  # bytecode, once
    del warm
    report(folder / "run-warm-up")  # matplotlib's font cache and the report's bytecode, once

    def best(runs):
        return min(runs, key=lambda r: r["wall_s"])

    rows = []
    for d in durations:
        for fmt in ("jsonl", "parquet"):
            name = f"run-{int(d)}-{fmt}"
            run = best([bench_run.simulate(folder, logs[d], fmt, name) for _ in range(args.repeat)])
            rep = best([report(folder / name) for _ in range(args.repeat)])
            rows.append((d, fmt, run, rep))

    print(
        f"\nnavsense report benchmark, {time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, "
        f"fastest of {args.repeat}"
    )
    head = (
        f"{'run':<18}{'simulate wall':>14}{'cpu':>7}{'report wall':>13}{'cpu':>7}"
        f"{'peak MiB':>10}{'report/run':>12}{'goal':>7}"
    )
    print(head)
    print("-" * len(head))
    out = []
    ok_all = True
    for d, fmt, run, rep in rows:
        ratio = rep["wall_s"] / run["wall_s"]
        judged = d >= GOAL_DURATION_S
        ok = rep["wall_s"] <= run["wall_s"] and rep["wall_s"] <= GOAL_S if judged else None
        ok_all &= ok is not False
        verdict = {True: "met", False: "MISSED", None: "-"}[ok]
        print(
            f"{bench_run._label(d) + ' ' + fmt:<18}{run['wall_s']:>14.2f}{run['cpu_s']:>7.2f}"
            f"{rep['wall_s']:>13.2f}{rep['cpu_s']:>7.2f}{rep['peak_mib']:>10.0f}"
            f"{ratio:>12.2f}{verdict:>7}"
        )
        out.append(
            {
                "duration_s": d,
                "format": fmt,
                "simulate": {k: v for k, v in run.items() if k != "stdout"},
                "report": {k: v for k, v in rep.items() if k != "stdout"},
                "report_over_run": ratio,
                "goal_met": ok,
            }
        )
    print(
        f"goal: the report of a 1 h run within {GOAL_S:g} s and not slower than its run: "
        f"{'met' if ok_all else 'MISSED'}"
    )
    if args.json:
        Path(args.json).write_text(json.dumps({"results": out, "goal_met": ok_all}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
