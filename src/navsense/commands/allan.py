"""``navsense allan RUN_DIR [--out FILE.csv] [--plot FILE.png]``: the Allan deviation of a
run's IMU and the error terms read off it beside the configured ones (navsense.allan).

Prints one table (datasheet units: deg/sqrt(h), deg/h, deg/h/sqrt(h) for the gyro; m/s/sqrt(h),
ug, m/s/h/sqrt(h) for the accelerometer); ``--out`` writes it as CSV (the same columns, those
units), ``--plot`` the figure as PNG (matplotlib, the ``report`` extra). allantools is the
``allan`` extra (ruling: allantools requires matplotlib, numpydoc and pytest at run time, too
heavy for every install; the command says in one line what to install). Bad input (a run
without IMU rows, a damaged file, a run under 20 s, an --out that cannot be written) ends in one
line, exit 2, before anything is written.
"""

from __future__ import annotations

import argparse
import math
import os
from pathlib import Path

from navsense.commands import run_directory
from navsense.constants import DEG_PER_RAD, GRAVITY_MPS2

__all__ = ["add_parser", "run", "table_rows", "CSV_COLUMNS"]

#: (sensor, term) -> (unit, factor from SI)
_UNITS = {
    ("gyro", "ARW"): ("deg/sqrt(h)", DEG_PER_RAD * 60.0),
    ("gyro", "bias instability"): ("deg/h", DEG_PER_RAD * 3600.0),
    ("gyro", "rate random walk"): ("deg/h/sqrt(h)", DEG_PER_RAD * 3600.0 * 60.0),
    ("accel", "VRW"): ("m/s/sqrt(h)", 60.0),
    ("accel", "bias instability"): ("ug", 1e6 / GRAVITY_MPS2),
    ("accel", "rate random walk"): ("m/s/h/sqrt(h)", 3600.0 * 60.0),
}
CSV_COLUMNS = (
    "axis",
    "term",
    "unit",
    "configured",
    "expected",
    "fitted",
    "tau_s",
    "rel_uncertainty",
    "note",
)


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register ``allan`` on an argparse ``subparsers`` object."""
    p = subparsers.add_parser(
        "allan",
        help="Allan deviation of a run's IMU, with the configured error terms",
        description="The overlapping Allan deviation of each gyro and accelerometer axis of the "
        "run's IMU rows (allantools), with the random walk, bias instability and rate random "
        "walk read off it (IEEE Std 952) beside the values the run was configured with. Meant "
        "for a stationary run (docs/guide/allan.md).",
    )
    p.add_argument(
        "run_dir",
        metavar="RUN_DIR",
        type=run_directory,
        help="the run directory (navsense simulate)",
    )
    p.add_argument("--out", metavar="FILE", help="also write the table as CSV")
    p.add_argument("--plot", metavar="FILE.png", help="also write the figure as PNG (matplotlib)")
    p.add_argument("--force", action="store_true", help="replace an existing --out or --plot")
    p.set_defaults(func=run)
    return p


def _si_to_unit(sensor: str, term: str, value: float) -> tuple[str, float]:
    unit, factor = _UNITS[(sensor, term)]
    return unit, value * factor


def table_rows(result) -> list[dict]:
    """The table's rows (CSV_COLUMNS), values in datasheet units."""
    rows = []
    for r in result.readings:
        sensor = "gyro" if r.axis.startswith("gyro") else "accel"
        unit, configured = _si_to_unit(sensor, r.term, r.configured)
        rows.append(
            {
                "axis": r.axis,
                "term": r.term,
                "unit": unit,
                "configured": configured,
                "expected": _si_to_unit(sensor, r.term, r.expected)[1],
                "fitted": _si_to_unit(sensor, r.term, r.fitted)[1],
                "tau_s": r.tau_s,
                "rel_uncertainty": r.rel_uncertainty,
                "note": r.note,
            }
        )
    return rows


def _g(value: float) -> str:
    return "-" if math.isnan(value) else f"{value:.4g}"


def _text(result, rows: list[dict]) -> str:
    lines = [
        f"{result.run_dir}: {result.rows} IMU rows at {result.rate_hz:.6g} Hz over "
        f"{result.duration_s:.6g} s; overlapping Allan deviation (allantools), readings of IEEE "
        "Std 952-1997 Annex C",
        "expected: the reading on the configured error processes (bias instability: the "
        "configurable IMU's Gauss-Markov has no flat floor); +-: 1/sqrt(2(T/tau-1))",
        f"{'axis':<8} {'term':<17} {'unit':<14} {'configured':>10} {'expected':>10} "
        f"{'fitted':>10} {'tau_s':>7} {'+-':>6}  note",
    ]
    for r in rows:
        unc = r["rel_uncertainty"]
        lines.append(
            f"{r['axis']:<8} {r['term']:<17} {r['unit']:<14} {_g(r['configured']):>10} "
            f"{_g(r['expected']):>10} {_g(r['fitted']):>10} {_g(r['tau_s']):>7} "
            f"{'-' if math.isnan(unc) else f'{100 * unc:.1f}%':>6}  {r['note']}".rstrip()
        )
    return "\n".join(lines)


def _csv(rows: list[dict]) -> str:
    import csv
    import io

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for r in rows:
        w.writerow(
            [
                r[c] if isinstance(r[c], str) else ("" if math.isnan(r[c]) else f"{r[c]:.6g}")
                for c in CSV_COLUMNS
            ]
        )
    return buf.getvalue()


def _write(path: Path, data: bytes) -> None:
    """``path`` replaced atomically (a failure leaves no file that looks complete)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def run(args) -> int:
    """Run ``navsense allan`` (module docstring); 0 on success."""
    from navsense.allan.analysis import allan_of_run, require_allantools
    from navsense.output.outfiles import check_out_file

    require_allantools()
    # never a file the command reads (with --force a plot replaced the run's imu.jsonl)
    run_dir = Path(args.run_dir)
    reads = [("RUN_DIR", run_dir / name) for name in ("episode.json", "imu.jsonl", "imu.parquet")]
    outs = {}
    for option, value in (("--out", args.out), ("--plot", args.plot)):
        if value is not None:
            outs[option] = check_out_file(value, option, force=args.force, reads=reads)
    if args.plot is not None and not str(args.plot).lower().endswith(".png"):
        from navsense.errors import ConfigError

        raise ConfigError(f"--plot {args.plot!r}: the figure is a PNG: give a FILE.png")
    if "--plot" in outs:
        from navsense.runs.report_plots import require_matplotlib

        require_matplotlib("navsense allan --plot")
    if len(outs) == 2 and os.path.abspath(outs["--out"]) == os.path.abspath(outs["--plot"]):
        from navsense.errors import ConfigError

        raise ConfigError(f"--out and --plot are the same file {outs['--out']}")
    result = allan_of_run(args.run_dir)
    rows = table_rows(result)
    if "--plot" in outs:
        from navsense.allan.figure import allan_figure_png

        _write(outs["--plot"], allan_figure_png(result)[0])
    if "--out" in outs:
        _write(outs["--out"], _csv(rows).encode())
    print(_text(result, rows), flush=True)
    return 0
