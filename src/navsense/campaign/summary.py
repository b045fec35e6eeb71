"""The campaign's tables: statistics per run, and their distribution per sweep point.

``DIR/statistics.parquet`` (:func:`write_statistics_table`): one row a finished run of the
campaign in ``DIR/campaign.json``, built from ``DIR/results/*.json`` and sorted by ``run_id``, so
the table is the same whatever order the runs finished in, and whichever machine ran them.
Columns::

    run_id, status ("ok" | "failed"), error (message, null when ok),
    source, vehicle, agent, seed, point, point_label,
    <one column a swept key, e.g. "gnss.hz">   the point's value (int, float, bool or string
                                               column; JSON text for other values; null where
                                               a point of a sweep list leaves the key out)
    <navsense.campaign.stats.STATISTICS_KEYS>  float64, null without data or for a failed run
    score.<key>                                with an estimator: its score's figures
                                               (navsense.score.campaign.CAMPAIGN_SCORE_KEYS)

``DIR/summary.parquet`` and ``DIR/summary.csv`` (:func:`write_summary`): the distribution across
the runs of each group (sweep point, source, vehicle: the seeds and agents are the samples), one
row a group and statistic::

    point, point_label, source, vehicle, <swept keys>, statistic,
    runs (ok runs in the group), failed (failed runs in the group),
    n (runs with a value), mean, std (sample, n - 1), p5, p50, p95   (linear interpolation)

What ``navsense campaign summary`` prints (:func:`select_statistics`, :func:`render_summary`):
the files always hold every statistic; ``--keys PATTERN`` (repeatable; shell-style wildcards
as :mod:`fnmatch`, matched against the statistic's whole name, case-sensitive) keeps the
statistics any pattern matches, and ``--format`` prints them as a text table (a block a group,
the failed runs' messages after), CSV (summary.csv's columns) or JSON (an array of summary.csv's
rows as objects, null where a measure has no value). A pattern that matches no statistic is an
error naming it and the statistics there are (ruling: a typo must not print an empty summary
that reads as "no data").
"""

from __future__ import annotations

import fnmatch
import io
import math
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from navsense.campaign.results import CAMPAIGN_JSON, named_os_error, read_results
from navsense.campaign.stats import STATISTICS_KEYS
from navsense.errors import ConfigError
from navsense.jsonfile import MAX_INPUT_BYTES, check_input_file

__all__ = [
    "statistics_table",
    "write_statistics_table",
    "summary_table",
    "write_summary",
    "format_summary",
    "select_statistics",
    "render_summary",
    "SUMMARY_FORMATS",
    "read_campaign_json",
    "STATISTICS_PARQUET",
    "SUMMARY_PARQUET",
    "SUMMARY_CSV",
    "SUMMARY_MEASURES",
]

STATISTICS_PARQUET = "statistics.parquet"
SUMMARY_PARQUET = "summary.parquet"
SUMMARY_CSV = "summary.csv"
SUMMARY_MEASURES = ("mean", "std", "p5", "p50", "p95")
SUMMARY_FORMATS = ("table", "csv", "json")  # navsense campaign summary --format


def read_campaign_json(out_dir: str | os.PathLike) -> dict:
    """The resolved campaign saved in ``out_dir/campaign.json``; ConfigError if there is none."""
    path = Path(out_dir) / CAMPAIGN_JSON
    if os.path.lexists(path) and not path.is_dir():  # a FIFO never ends, /dev/zero neither
        check_input_file(path, f"campaign's {CAMPAIGN_JSON}", ConfigError, MAX_INPUT_BYTES)
    try:
        data = orjson.loads(path.read_bytes())
    except FileNotFoundError:
        raise ConfigError(
            f"{out_dir}: not a campaign directory (no {CAMPAIGN_JSON}); "
            f"run navsense campaign run FILE --out {out_dir} first"
        ) from None
    except IsADirectoryError:
        raise ConfigError(f"{path}: a directory, not the campaign's {CAMPAIGN_JSON}") from None
    except orjson.JSONDecodeError as exc:
        raise ConfigError(f"{path}: invalid JSON ({exc})") from None
    _check_shape(data, _CAMPAIGN_SHAPE, str(path), "")
    return data


# what the readers of campaign.json use (campaign run writes more): key -> type, or a list of
# one shape, or a nested shape
_RUN_SHAPE = {
    "run_id": str,
    "source_label": str,
    "vehicle": str,
    "agent": int,
    "seed": int,
    "point": int,
}
_POINT_SHAPE = {"point": int, "label": str, "overrides": dict}
_CAMPAIGN_SHAPE = {"runs": [_RUN_SHAPE], "points": [_POINT_SHAPE], "sweep_keys": [str]}


def _json_text(value) -> str:
    """A value of campaign.json as JSON text (orjson.loads reads 1024 levels of nesting, dumps
    writes 255: a value nested deeper is named as such)."""
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return f"a {type(value).__name__} nested too deep"


def _check_shape(value, shape, source: str, where: str) -> None:
    """ConfigError naming ``source`` and the key when ``value`` does not have ``shape``."""
    what = where or "the file"
    if isinstance(shape, dict):
        if not isinstance(value, dict):
            raise ConfigError(f"{source}: {what} is not a JSON object; a damaged {CAMPAIGN_JSON}")
        for key, sub in shape.items():
            if key not in value:
                raise ConfigError(f"{source}: {where}{'.' if where else ''}{key} is missing")
            _check_shape(value[key], sub, source, f"{where}{'.' if where else ''}{key}")
    elif isinstance(shape, list):
        if not isinstance(value, list):
            raise ConfigError(f"{source}: {what} is not a JSON array")
        for i, item in enumerate(value):
            _check_shape(item, shape[0], source, f"{where}[{i}]")
    elif not isinstance(value, shape) or (shape is int and isinstance(value, bool)):
        raise ConfigError(
            f"{source}: {what} = {_json_text(value)[:60]} is not "
            f"{'an integer' if shape is int else 'a ' + shape.__name__.replace('str', 'string')}"
        )


def _sweep_columns(campaign: dict, runs: list[dict]) -> list[tuple[str, pa.Array]]:
    """One column a swept key: the value of each run's point, typed when the values allow."""
    points = {p["point"]: p["overrides"] for p in campaign.get("points", [])}
    cols = []
    for key in campaign.get("sweep_keys", []):
        values = [points.get(r["point"], {}).get(key) for r in runs]
        present = [v for v in values if v is not None]
        if present and all(isinstance(v, bool) for v in present):
            typ = pa.bool_()
        elif present and all(isinstance(v, int) and not isinstance(v, bool) for v in present):
            typ = pa.int64()
        elif present and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in present
        ):
            typ = pa.float64()
            values = [None if v is None else float(v) for v in values]
        elif present and all(isinstance(v, str) for v in present):
            typ = pa.string()
        else:
            typ = pa.string()
            values = [None if v is None else _json_text(v) for v in values]
        cols.append((key, pa.array(values, type=typ)))
    return cols


def _float_or_none(v):
    """A statistic for the table: None for no value (null in JSON, nan in Python)."""
    if v is None:
        return None
    v = float(v)
    return None if math.isnan(v) else v


def statistics_table(out_dir: str | os.PathLike) -> pa.Table:
    """The statistics table of the campaign in ``out_dir`` (module docstring), sorted by run_id."""
    campaign = read_campaign_json(out_dir)
    results = read_results(out_dir)
    runs = sorted(
        (r for r in campaign["runs"] if r["run_id"] in results), key=lambda r: r["run_id"]
    )
    labels = {p["point"]: p["label"] for p in campaign.get("points", [])}
    res = [results[r["run_id"]] for r in runs]
    columns: list[tuple[str, pa.Array]] = [
        ("run_id", pa.array([r["run_id"] for r in runs], pa.string())),
        ("status", pa.array([x.get("status") for x in res], pa.string())),
        ("error", pa.array([x.get("error") for x in res], pa.string())),
        ("source", pa.array([r["source_label"] for r in runs], pa.string())),
        ("vehicle", pa.array([r["vehicle"] for r in runs], pa.string())),
        ("agent", pa.array([r["agent"] for r in runs], pa.int64())),
        ("seed", pa.array([r["seed"] for r in runs], pa.int64())),
        ("point", pa.array([r["point"] for r in runs], pa.int64())),
        ("point_label", pa.array([labels.get(r["point"], "") for r in runs], pa.string())),
    ]
    columns += _sweep_columns(campaign, runs)
    stats = [x.get("statistics") or {} for x in res]
    for key in STATISTICS_KEYS:
        columns.append((key, pa.array([_float_or_none(s.get(key)) for s in stats], pa.float64())))
    if campaign.get("estimator"):  # the estimator's score: score.<key> (navsense.score.campaign)
        from navsense.score.campaign import score_columns

        scores = [score_columns(x.get("score")) for x in res]
        for key in _statistic_keys(campaign)[len(STATISTICS_KEYS) :]:
            columns.append((key, pa.array([s[key] for s in scores], pa.float64())))
    return pa.table(dict(columns))


def _statistic_keys(campaign: dict) -> tuple[str, ...]:
    """The statistic columns of the campaign's table: the run statistics, then the score's."""
    if not campaign.get("estimator"):
        return STATISTICS_KEYS
    from navsense.score.campaign import CAMPAIGN_SCORE_KEYS

    return STATISTICS_KEYS + tuple(f"score.{k}" for k in CAMPAIGN_SCORE_KEYS)


def _write_atomic(path: Path, write) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    except OSError as exc:
        raise named_os_error(exc, path) from None
    finally:
        tmp.unlink(missing_ok=True)


def write_statistics_table(out_dir: str | os.PathLike) -> pa.Table:
    """Rebuild ``out_dir/statistics.parquet`` from the results; returns the table."""
    table = statistics_table(out_dir)
    _write_atomic(Path(out_dir) / STATISTICS_PARQUET, lambda p: pq.write_table(table, p))
    return table


def _measures(x: np.ndarray) -> list:
    x = x[~np.isnan(x)]
    if x.size == 0:
        return [None] * len(SUMMARY_MEASURES)
    p5, p50, p95 = np.percentile(x, [5.0, 50.0, 95.0])
    std = float(np.std(x, ddof=1)) if x.size > 1 else None
    return [float(np.mean(x)), std, float(p5), float(p50), float(p95)]


def summary_table(out_dir: str | os.PathLike) -> pa.Table:
    """The distribution of every statistic across the runs of each (point, source, vehicle)."""
    campaign = read_campaign_json(out_dir)
    stats = statistics_table(out_dir)
    cols = stats.to_pydict()
    n = stats.num_rows
    sweep_keys = list(campaign.get("sweep_keys", []))
    # groups in plan order: point, then source, then vehicle (first appearance)
    order: dict[tuple, int] = {}
    for r in campaign["runs"]:
        key = (r["point"], r["source_label"], r["vehicle"])
        order.setdefault(key, len(order))
    groups: dict[tuple, list[int]] = {}
    for i in range(n):
        key = (cols["point"][i], cols["source"][i], cols["vehicle"][i])
        groups.setdefault(key, []).append(i)
    keys = sorted(groups, key=lambda k: (k[0], order.get(k, len(order))))
    out: dict[str, list] = {
        c: []
        for c in (
            "point",
            "point_label",
            "source",
            "vehicle",
            *sweep_keys,
            "statistic",
            "runs",
            "failed",
            "n",
            *SUMMARY_MEASURES,
        )
    }
    status = np.array(cols["status"], dtype=object)
    for key in keys:
        rows = np.array(groups[key], dtype=np.int64)
        ok = rows[status[rows] == "ok"]
        first = int(rows[0])
        for stat in _statistic_keys(campaign):
            x = np.array(
                [np.nan if v is None else v for v in (cols[stat][i] for i in ok)], dtype=np.float64
            )
            out["point"].append(key[0])
            out["point_label"].append(cols["point_label"][first])
            out["source"].append(key[1])
            out["vehicle"].append(key[2])
            for k in sweep_keys:
                out[k].append(cols[k][first])
            out["statistic"].append(stat)
            out["runs"].append(int(ok.size))
            out["failed"].append(int(rows.size - ok.size))
            out["n"].append(int(np.count_nonzero(~np.isnan(x))))
            for name, value in zip(SUMMARY_MEASURES, _measures(x)):
                out[name].append(value)
    types = {
        "point": pa.int64(),
        "point_label": pa.string(),
        "source": pa.string(),
        "vehicle": pa.string(),
        "statistic": pa.string(),
        "runs": pa.int64(),
        "failed": pa.int64(),
        "n": pa.int64(),
        **{m: pa.float64() for m in SUMMARY_MEASURES},
    }
    for k in sweep_keys:
        types[k] = stats.schema.field(k).type
    return pa.table({c: pa.array(v, type=types[c]) for c, v in out.items()})


def write_summary(out_dir: str | os.PathLike) -> pa.Table:
    """Rebuild statistics.parquet, then write summary.parquet and summary.csv; returns the summary."""
    out = Path(out_dir)
    write_statistics_table(out)
    table = summary_table(out)
    _write_atomic(out / SUMMARY_PARQUET, lambda p: pq.write_table(table, p))
    _write_atomic(out / SUMMARY_CSV, lambda p: pacsv.write_csv(table, p))
    return table


def _num(v) -> str:
    return f"{'-':>11}" if v is None else f"{v:11.4g}"


def format_summary(table: pa.Table, statistics: pa.Table | None = None) -> str:
    """The summary as text: a block a group with the statistics that have values, then the
    failed runs and their messages (from ``statistics``, the per-run table)."""
    cols = table.to_pydict()
    lines = []
    width = max((len(s) for s in cols["statistic"]), default=10)
    current = None
    for i in range(table.num_rows):
        key = (cols["point"][i], cols["source"][i], cols["vehicle"][i])
        if key != current:
            current = key
            lines.append("")
            lines.append(
                f"p{key[0]:03d} {cols['point_label'][i]} | {key[1]} | {key[2]}: "
                f"{cols['runs'][i]} runs ok, {cols['failed'][i]} failed"
            )
            lines.append(
                f"  {'statistic':<{width}} {'n':>4} "
                + " ".join(f"{m:>11}" for m in SUMMARY_MEASURES)
            )
        if cols["n"][i] == 0:
            continue
        lines.append(
            f"  {cols['statistic'][i]:<{width}} {cols['n'][i]:>4} "
            + " ".join(_num(cols[m][i]) for m in SUMMARY_MEASURES)
        )
    if statistics is not None:
        st = statistics.to_pydict()
        failed = [
            (st["run_id"][i], st["error"][i])
            for i in range(statistics.num_rows)
            if st["status"][i] != "ok"
        ]
        if failed:
            lines.append("")
            lines.append(f"{len(failed)} failed runs:")
            lines.extend(f"  {rid}: {msg}" for rid, msg in failed)
    return "\n".join(lines).lstrip("\n") + "\n"


def select_statistics(table: pa.Table, patterns: Sequence[str]) -> pa.Table:
    """The summary's rows whose statistic matches one of ``patterns`` (module docstring), in
    the table's order; all rows for no pattern. A pattern matching no statistic of the table
    (a campaign with no finished run has none) is a ConfigError naming it."""
    if not patterns:
        return table
    names = table.column("statistic").to_pylist()
    known = list(dict.fromkeys(names))
    for pattern in patterns:
        if not any(fnmatch.fnmatchcase(name, pattern) for name in known):
            shown = ", ".join(known[:12]) + (
                f", ... ({len(known)} in all)" if len(known) > 12 else ""
            )
            raise ConfigError(
                f"--keys {pattern!r} matches no statistic of the summary; "
                + (f"its statistics: {shown}" if known else "the summary has no statistics")
            )
    keep = [any(fnmatch.fnmatchcase(n, p) for p in patterns) for n in names]
    return table.filter(pa.array(keep, type=pa.bool_()))


def render_summary(table: pa.Table, statistics: pa.Table | None, fmt: str = "table") -> str:
    """The summary ``table`` as ``fmt`` (one of SUMMARY_FORMATS): :func:`format_summary`'s text,
    CSV with summary.csv's header and quoting, or a JSON array of its rows."""
    if fmt == "table":
        return format_summary(table, statistics)
    if fmt == "csv":
        buffer = io.BytesIO()
        pacsv.write_csv(table, buffer)
        return buffer.getvalue().decode("utf-8")
    if fmt == "json":
        return orjson.dumps(table.to_pylist(), option=orjson.OPT_INDENT_2).decode("utf-8") + "\n"
    raise ValueError(f"format {fmt!r} is not one of {', '.join(SUMMARY_FORMATS)}")
