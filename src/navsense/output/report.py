"""The run report: ``RUN_DIR/report/report.html`` with its plots, and the run's statistics.

``write_report(run_dir, sky_time_s=None)`` writes a self-contained HTML page (plots embedded as
base64 PNG, no script, no external resource) and the same plots as PNG files into
``RUN_DIR/report/`` (written in a temporary folder and swapped in when complete, so an old report
is replaced whole or not at all). ``run_statistics(run_dir)`` returns the summary table as a flat
dict of floats (:data:`STATISTICS_DOC` documents every key), for the report and for campaigns
that aggregate many runs.

Truth. The run directory holds no truth file, so the report rebuilds what it needs:

* GNSS error = position_enu_m - p_a, with the truth antenna p_a = p + R r_a ("Antenna Position";
  :func:`navsense.sensors.gnss.sky.antenna_position_enu` and the receiver's lever arm from the
  run's configuration and vehicle) at each GNSS epoch. The truth is read from, in this order:
  ``RUN_DIR/truth.parquet`` or ``RUN_DIR/truth.csv`` (if the orchestrator wrote one), the truth
  log named in episode.json's ``source.truth``, or the embedded scenario ``source.scenario``
  rebuilt for the run's ``first_step + steps`` physics steps. Without any of them the GNSS
  errors (and their statistics: NaN) are left out, and the report says so.
* INS error = the INS position minus the truth INS point, both from ``ins.frames``
  (InsUtmE/N/H - InsTruthX/Y/Z, the same datum chain and projection), rotated from UTM to grid
  axes by the epoch's grid rotation alpha. The UTM point scale (k = 0.9996, a 0.04 % change of a
  centimetre error) is ignored.

Sigma honesty. For each axis the fraction of epochs with |e| <= k sigma, k = 1, 2, where sigma is
the reported one-sigma of the epoch (GNSS: sigma_enu_m; INS: sqrt of InsCovE/N/U). "Horizontal"
pools the east and north samples, "vertical" is the up axis. An honest Gaussian sigma gives
68.27 % and 95.45 %. The errors are strongly correlated in time (Gauss-Markov, tau 30 s for the
INS, 60-300 s for the GNSS), so a 10-minute run holds only tens of independent samples: expect a
few percent of scatter around those values.

Fix states: the time in a state is its number of epochs times 1/gnss.hz. Time to first fix is
the sample time of the first epoch with a fix (any state but no_fix), counted from the first
epoch; likewise for rtk_fixed.
"""

from __future__ import annotations

import base64
import html
import math
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import orjson

from navsense.errors import FormatError, NavsenseError
from navsense.output.frames import INS_FIELD_INDEX, read_ins_frames
from navsense.output.ros2 import read_episode, row_times

__all__ = ["write_report", "run_statistics", "read_run", "RunData", "STATISTICS_DOC",
           "FIX_STATE_ORDER", "GAUSSIAN_WITHIN_1SIGMA", "GAUSSIAN_WITHIN_2SIGMA", "REPORT_DIR"]

REPORT_DIR = "report"
FIX_STATE_ORDER = ("no_fix", "single", "dgps", "rtk_float", "rtk_fixed")  # worst to best
GAUSSIAN_WITHIN_1SIGMA = math.erf(1.0 / math.sqrt(2.0))  # 0.682689...
GAUSSIAN_WITHIN_2SIGMA = math.erf(2.0 / math.sqrt(2.0))  # 0.954500...

_ERROR_KEYS_DOC = {
    "h_rms_m": "RMS of the horizontal error sqrt(e_E^2 + e_N^2), m",
    "h_p95_m": "95th percentile of the horizontal error, m",
    "v_rms_m": "RMS of the vertical error e_U, m",
    "v_p95_m": "95th percentile of |e_U|, m",
    "h_within_1sigma": "fraction of east and north samples with |e| <= sigma (Gaussian 0.6827)",
    "h_within_2sigma": "fraction of east and north samples with |e| <= 2 sigma (Gaussian 0.9545)",
    "v_within_1sigma": "fraction of up samples with |e| <= sigma",
    "v_within_2sigma": "fraction of up samples with |e| <= 2 sigma",
}
STATISTICS_DOC: dict[str, str] = {
    "duration_s": "time from the first to the last physics step of the run, s",
    "gnss_epochs": "number of GNSS epochs",
    "gnss_time_to_first_fix_s": "sample time of the first epoch with a fix (NaN: never), s",
    "gnss_time_to_first_rtk_fixed_s": "sample time of the first rtk_fixed epoch (NaN: never), s",
    **{f"gnss_{s}_time_s": f"time in {s}: epochs / gnss.hz, s" for s in FIX_STATE_ORDER},
    **{f"gnss_{s}_fraction": f"fraction of the GNSS epochs in {s}" for s in FIX_STATE_ORDER},
    **{f"gnss_{s}_{k}": f"{s} epochs: {d}" for s in FIX_STATE_ORDER[1:]
       for k, d in _ERROR_KEYS_DOC.items()},
    **{f"gnss_{k}": f"all epochs with a fix: {d}" for k, d in _ERROR_KEYS_DOC.items()},
    "ins_epochs": "number of INS epochs",
    **{f"ins_{k}": f"INS position: {d}" for k, d in _ERROR_KEYS_DOC.items()},
    "gaussian_within_1sigma": "the Gaussian reference erf(1/sqrt2) = 0.6827",
    "gaussian_within_2sigma": "the Gaussian reference erf(2/sqrt2) = 0.9545",
}


# ------------------------------------------------------------------------------------ data
@dataclass
class RunData:
    """What the report reads from a run directory (arrays with the component axis last).

    gnss_* (m GNSS epochs): t_s sample times, fix_type names, counts (dict of (m,) int),
    hdop, position_enu_m and sigma_enu_m (NaN without a fix), truth_antenna_enu_m (None without
    truth), error_enu_m (None without truth). ins_* (n INS epochs): t_s, position_enu_m,
    error_enu_m (grid axes), sigma_enu_m, truth_enu_m (the truth INS point in grid ENU).
    imu_*: t_s, specific_force_flu_mps2, angular_velocity_flu_radps. Absent sensors: None.
    """

    run_dir: Path
    episode: dict
    truth_source: str | None = None
    truth: object | None = None  # navsense.truth.TruthStates
    gnss_t_s: np.ndarray | None = None
    gnss_fix_type: np.ndarray | None = None
    gnss_counts: dict | None = None
    gnss_hdop: np.ndarray | None = None
    gnss_position_enu_m: np.ndarray | None = None
    gnss_sigma_enu_m: np.ndarray | None = None
    gnss_truth_antenna_enu_m: np.ndarray | None = None
    gnss_error_enu_m: np.ndarray | None = None
    ins_t_s: np.ndarray | None = None
    ins_position_enu_m: np.ndarray | None = None
    ins_error_enu_m: np.ndarray | None = None
    ins_sigma_enu_m: np.ndarray | None = None
    ins_truth_enu_m: np.ndarray | None = None
    ins_q_enu_xyzw: np.ndarray | None = None
    imu_t_s: np.ndarray | None = None
    imu_specific_force_flu_mps2: np.ndarray | None = None
    imu_angular_velocity_flu_radps: np.ndarray | None = None

    @property
    def config(self) -> dict:
        return self.episode.get("config", {})

    @property
    def gnss_hz(self) -> float:
        return float(self.config.get("gnss", {}).get("hz", 10.0))

    @property
    def physics_hz(self) -> float:
        return float(self.episode.get("physics_hz") or 120.0)

    @property
    def duration_s(self) -> float:
        steps = int(self.episode.get("steps") or 0)
        return max(0, steps - 1) / self.physics_hz

    def site(self):
        """The run's navsense.site.Site, or None."""
        from navsense.site import site_from_json

        data = self.episode.get("site")
        return None if data is None else site_from_json(data, source="episode.json site")

    def vehicle(self):
        from navsense.vehicles import vehicle_profile

        return vehicle_profile(str(self.episode.get("vehicle", "polaris")))

    def receiver(self):
        """A GnssReceiver built like the run's (lever arm, constellation, sky settings)."""
        from navsense.sensors.gnss.receiver import GnssReceiver

        site = self.site()
        start_utc = self.episode.get("start_utc") or self.config["gnss"]["datum"]["start_utc"]
        georef = (site.make_georeference(start_utc, self.config["gnss"]["datum"])
                  if site is not None else None)
        return GnssReceiver(self.config, self.vehicle(), site, georef)


def _rows(path: Path) -> list[dict]:
    with open(path, "rb") as f:
        return [orjson.loads(line) for line in f if line.strip()]


def _nan_rows(values, width: int) -> np.ndarray:
    """A list of 3-lists or None as an (m, width) float array, None -> NaN."""
    nan = [math.nan] * width
    return np.array([nan if v is None else v for v in values], dtype=np.float64).reshape(-1, width)


def _load_truth(run_dir: Path, episode: dict):
    """(TruthStates, description) or (None, reason): see the module docstring. A source that
    cannot be read (a scenario file that moved, a malformed log) gives (None, its error)."""
    try:
        return _find_truth(run_dir, episode)
    except NavsenseError as exc:
        return None, f"the truth source could not be read ({exc})"


def _find_truth(run_dir: Path, episode: dict):
    from navsense.truth.io import read_truth

    rate = float(episode.get("physics_hz") or 120.0)
    for name in ("truth.parquet", "truth.csv"):
        if (run_dir / name).is_file():
            return read_truth(run_dir / name, rate_hz=rate), f"{name} of the run directory"
    source = episode.get("source") or {}
    if source.get("truth"):
        path = Path(source["truth"])
        if not path.is_absolute() and not path.exists():
            path = run_dir / path
        if path.is_file():
            return read_truth(path, rate_hz=rate), f"truth log {source['truth']}"
        return None, f"the truth log {source['truth']} of episode.json is not found"
    if source.get("scenario"):
        from navsense.scenarios import load_scenario

        last = int(episode.get("first_step") or 0) + int(episode.get("steps") or 1) - 1
        duration = source.get("duration_s") or max(last, 1) / rate
        scenario = load_scenario(source["scenario"], duration_s=duration)
        return scenario.truth, f"scenario {source['scenario']} (rebuilt)"
    return None, "episode.json names no truth source"


def _truth_rows(truth, t_s: np.ndarray) -> np.ndarray | None:
    """Indices of the truth rows at times t_s (None when a time is not a physics step)."""
    if truth is None or len(t_s) == 0:
        return None
    steps = np.round(np.asarray(t_s) * truth.rate_hz).astype(np.int64) - int(truth.step0)
    if steps.min() < 0 or steps.max() >= len(truth):
        return None
    if np.max(np.abs(truth.t_s[steps] - t_s)) > 1e-6:
        return None
    return steps


def read_run(run_dir) -> RunData:
    """Read a run directory (episode.json, gnss.jsonl, ins.jsonl + ins.frames, imu.jsonl) and
    rebuild the truth the statistics need (module docstring)."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise FormatError(f"{run_dir}: not a run directory")
    data = RunData(run_dir=run_dir, episode=read_episode(run_dir))
    data.truth, data.truth_source = _load_truth(run_dir, data.episode)

    path = run_dir / "gnss.jsonl"
    if path.is_file():
        rows = _rows(path)
        data.gnss_t_s = np.array([r["sample_time_s"] for r in rows], dtype=np.float64)
        data.gnss_fix_type = np.array([r["fix_type"] for r in rows], dtype=object)
        data.gnss_counts = {k: np.array([r[k] for r in rows], dtype=np.int64)
                            for k in ("satellites_used", "satellites_clear",
                                      "satellites_near_obstruction", "satellites_foliage",
                                      "satellites_blocked", "satellites_above_mask")}
        data.gnss_hdop = np.array([r["hdop"] for r in rows], dtype=np.float64)
        data.gnss_position_enu_m = _nan_rows([r["position_enu_m"] for r in rows], 3)
        data.gnss_sigma_enu_m = _nan_rows([r["sigma_enu_m"] for r in rows], 3)
        idx = _truth_rows(data.truth, data.gnss_t_s)
        if idx is not None:
            from navsense.sensors.gnss.sky import antenna_position_enu

            lever = data.receiver().lever_arm_m
            data.gnss_truth_antenna_enu_m = antenna_position_enu(
                data.truth.p_m[idx], data.truth.q_xyzw[idx], lever)
            data.gnss_error_enu_m = data.gnss_position_enu_m - data.gnss_truth_antenna_enu_m
        elif data.truth is not None:
            data.truth_source = (f"{data.truth_source}, which does not cover the GNSS epochs "
                                 "(not used)")
            data.truth = None

    if (run_dir / "ins.frames").is_file():
        frames = read_ins_frames(run_dir / "ins.frames")
        times = row_times(run_dir / "ins.jsonl")
        if len(frames) != len(times):
            raise FormatError(f"{run_dir}: ins.frames has {len(frames)} epochs but ins.jsonl "
                              f"{len(times)} rows")
        col = lambda name: frames[:, INS_FIELD_INDEX[name]]  # noqa: E731
        data.ins_t_s = times[:, 0]
        data.ins_position_enu_m = np.stack([col("InsEnuX"), col("InsEnuY"), col("InsEnuZ")], -1)
        data.ins_q_enu_xyzw = np.stack([col(f"InsEnuQ{c}") for c in "xyzw"], -1)
        # UTM error rotated to grid axes: v_enu = R_z(alpha) v_utm (q_utm = q_z(-alpha) q_enu)
        de, dn = col("InsUtmE") - col("InsTruthX"), col("InsUtmN") - col("InsTruthY")
        alpha = np.radians(col("InsGridRotationDeg"))
        ca, sa = np.cos(alpha), np.sin(alpha)
        err = np.stack([ca * de - sa * dn, sa * de + ca * dn, col("InsUtmH") - col("InsTruthZ")],
                       -1)
        data.ins_error_enu_m = err
        data.ins_sigma_enu_m = np.sqrt(np.stack([col("InsCovE"), col("InsCovN"), col("InsCovU")],
                                                -1))
        data.ins_truth_enu_m = data.ins_position_enu_m - err

    path = run_dir / "imu.jsonl"
    if path.is_file():
        rows = _rows(path)
        data.imu_t_s = np.array([r["sample_time_s"] for r in rows], dtype=np.float64)
        data.imu_specific_force_flu_mps2 = np.array(
            [r["specific_force_flu_mps2"] for r in rows], dtype=np.float64).reshape(-1, 3)
        data.imu_angular_velocity_flu_radps = np.array(
            [r["angular_velocity_flu_radps"] for r in rows], dtype=np.float64).reshape(-1, 3)
    return data


# ------------------------------------------------------------------------------ statistics
def _error_stats(err: np.ndarray, sigma: np.ndarray) -> dict[str, float]:
    """The _ERROR_KEYS_DOC statistics of errors (m, 3) with their one-sigma values (m, 3)."""
    nan = math.nan
    if len(err) == 0:
        return dict.fromkeys(_ERROR_KEYS_DOC, nan)
    h = np.hypot(err[:, 0], err[:, 1])
    v = np.abs(err[:, 2])
    h_abs, h_sig = np.abs(err[:, :2]).ravel(), sigma[:, :2].ravel()
    v_sig = sigma[:, 2]
    # |e| <= k sigma as written (no division: with noise off both are 0, and 0 <= 0)
    return {
        "h_rms_m": float(np.sqrt(np.mean(h * h))),
        "h_p95_m": float(np.percentile(h, 95)),
        "v_rms_m": float(np.sqrt(np.mean(v * v))),
        "v_p95_m": float(np.percentile(v, 95)),
        "h_within_1sigma": float(np.mean(h_abs <= h_sig)),
        "h_within_2sigma": float(np.mean(h_abs <= 2.0 * h_sig)),
        "v_within_1sigma": float(np.mean(v <= v_sig)),
        "v_within_2sigma": float(np.mean(v <= 2.0 * v_sig)),
    }


def statistics(data: RunData) -> dict[str, float]:
    """The summary table of a read run (see :func:`run_statistics`)."""
    nan = math.nan
    out: dict[str, float] = {"duration_s": float(data.duration_s)}
    if data.gnss_t_s is not None:
        t, fix = data.gnss_t_s, data.gnss_fix_type
        period = 1.0 / data.gnss_hz
        out["gnss_epochs"] = float(len(t))
        has_fix = fix != "no_fix"
        t0 = float(t[0]) if len(t) else 0.0
        out["gnss_time_to_first_fix_s"] = float(t[has_fix][0] - t0) if has_fix.any() else nan
        fixed = fix == "rtk_fixed"
        out["gnss_time_to_first_rtk_fixed_s"] = float(t[fixed][0] - t0) if fixed.any() else nan
        for s in FIX_STATE_ORDER:
            n = int(np.count_nonzero(fix == s))
            out[f"gnss_{s}_time_s"] = n * period
            out[f"gnss_{s}_fraction"] = n / len(t) if len(t) else nan
        err, sig = data.gnss_error_enu_m, data.gnss_sigma_enu_m
        for s in FIX_STATE_ORDER[1:]:
            sel = fix == s
            stats = (_error_stats(err[sel], sig[sel]) if err is not None
                     else dict.fromkeys(_ERROR_KEYS_DOC, nan))
            out.update({f"gnss_{s}_{k}": v for k, v in stats.items()})
        stats = (_error_stats(err[has_fix], sig[has_fix]) if err is not None
                 else dict.fromkeys(_ERROR_KEYS_DOC, nan))
        out.update({f"gnss_{k}": v for k, v in stats.items()})
    else:
        out.update({k: nan for k in STATISTICS_DOC if k.startswith("gnss_")})
    if data.ins_t_s is not None:
        out["ins_epochs"] = float(len(data.ins_t_s))
        out.update({f"ins_{k}": v for k, v in
                    _error_stats(data.ins_error_enu_m, data.ins_sigma_enu_m).items()})
    else:
        out.update({k: nan for k in STATISTICS_DOC if k.startswith("ins_")})
    out["gaussian_within_1sigma"] = GAUSSIAN_WITHIN_1SIGMA
    out["gaussian_within_2sigma"] = GAUSSIAN_WITHIN_2SIGMA
    return {k: float(out[k]) for k in STATISTICS_DOC}


def run_statistics(run_dir) -> dict[str, float]:
    """The summary table of a run directory as a flat dict of floats, keys of STATISTICS_DOC.

    Every key is always present (NaN where it does not apply: a state never reached, a sensor
    off, no truth for the GNSS errors), so the dicts of many runs stack into one table.
    """
    return statistics(read_run(run_dir))


# ----------------------------------------------------------------------------------- HTML
def _fmt(value: float, kind: str) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "&ndash;"
    if kind == "pct":
        return f"{100.0 * value:.1f} %"
    if kind == "m":
        return f"{value:.3f}" if abs(value) < 10 else f"{value:.2f}"
    if kind == "s":
        return f"{value:.1f}"
    return f"{value:g}"


def _summary_table(stats: dict) -> str:
    head = ("<tr><th rowspan=2>solution</th><th rowspan=2>time (s)</th><th rowspan=2>share</th>"
            "<th colspan=2>horizontal error (m)</th><th colspan=2>vertical error (m)</th>"
            "<th colspan=2>horizontal inside</th><th colspan=2>vertical inside</th></tr>"
            "<tr><th>RMS</th><th>95 %</th><th>RMS</th><th>95 %</th>"
            "<th>&plusmn;1&sigma;</th><th>&plusmn;2&sigma;</th>"
            "<th>&plusmn;1&sigma;</th><th>&plusmn;2&sigma;</th></tr>")
    rows = []

    def err_cells(prefix: str) -> str:
        return "".join(f"<td>{_fmt(stats[prefix + k], u)}</td>" for k, u in (
            ("h_rms_m", "m"), ("h_p95_m", "m"), ("v_rms_m", "m"), ("v_p95_m", "m"),
            ("h_within_1sigma", "pct"), ("h_within_2sigma", "pct"),
            ("v_within_1sigma", "pct"), ("v_within_2sigma", "pct")))

    for s in FIX_STATE_ORDER:
        cells = (f"<td>GNSS {s}</td><td>{_fmt(stats[f'gnss_{s}_time_s'], 's')}</td>"
                 f"<td>{_fmt(stats[f'gnss_{s}_fraction'], 'pct')}</td>")
        cells += (err_cells(f"gnss_{s}_") if s != "no_fix"
                  else "<td colspan=8 style='text-align:center'>no position</td>")
        rows.append(f"<tr class='state-{s}'>{cells}</tr>")
    gnss_time = sum(stats[f"gnss_{s}_time_s"] for s in FIX_STATE_ORDER[1:])
    rows.append(f"<tr class='total'><td>GNSS, all fixes</td><td>{_fmt(gnss_time, 's')}</td>"
                f"<td></td>{err_cells('gnss_')}</tr>")
    ins_time = stats["duration_s"] if not math.isnan(stats["ins_epochs"]) else math.nan
    rows.append(f"<tr class='total'><td>INS</td><td>{_fmt(ins_time, 's')}</td><td></td>"
                f"{err_cells('ins_')}</tr>")
    rows.append("<tr class='ref'><td>Gaussian reference</td><td></td><td></td><td colspan=4></td>"
                f"<td>{_fmt(GAUSSIAN_WITHIN_1SIGMA, 'pct')}</td>"
                f"<td>{_fmt(GAUSSIAN_WITHIN_2SIGMA, 'pct')}</td>"
                f"<td>{_fmt(GAUSSIAN_WITHIN_1SIGMA, 'pct')}</td>"
                f"<td>{_fmt(GAUSSIAN_WITHIN_2SIGMA, 'pct')}</td></tr>")
    return f"<table class='summary'>{head}{''.join(rows)}</table>"


_CSS = """
body { font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; margin: 2em auto;
       max-width: 1100px; color: #222; line-height: 1.4; padding: 0 1em; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.2em; margin-top: 1.8em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
td:first-child, th:first-child { text-align: left; }
th { background: #f2f2f2; }
tr.total td { font-weight: 600; }
tr.ref td { color: #666; font-style: italic; }
dl.facts { display: grid; grid-template-columns: max-content auto; gap: 0.15em 1em; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; }
figure { margin: 1em 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { font-size: 0.9em; color: #555; }
p.note { color: #8a4b00; }
"""


def _html(data: RunData, stats: dict, figures: list, notes: list[str]) -> str:
    from navsense import __version__

    ep = data.episode
    e = html.escape
    source = ep.get("source") or {}
    source_text = ", ".join(f"{k} {v}" for k, v in source.items()) or "unknown"
    ttff = stats["gnss_time_to_first_fix_s"]
    ttfix = stats["gnss_time_to_first_rtk_fixed_s"]
    facts = [
        ("run", data.run_dir.resolve().name), ("source", source_text),
        ("vehicle", str(ep.get("vehicle", ""))), ("seed", str(ep.get("seed", ""))),
        ("noise", str(ep.get("noise", ""))), ("start (UTC)", str(ep.get("start_utc", ""))),
        ("duration", f"{stats['duration_s']:.1f} s"),
        ("time to first fix", "never" if math.isnan(ttff) else f"{ttff:.1f} s"),
        ("time to first RTK fixed", "never" if math.isnan(ttfix) else f"{ttfix:.1f} s"),
        ("truth for the GNSS errors", data.truth_source or "none"),
        ("written by", f"navsense {__version__} (run: navsense {ep.get('navsense_version', '?')})"),
    ]
    parts = [
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        f"<title>navsense report: {e(data.run_dir.resolve().name)}</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1>navsense run report</h1><p>{e(data.run_dir.resolve().name)}</p>",
        "<dl class='facts'>" + "".join(f"<dt>{e(k)}</dt><dd>{e(v)}</dd>" for k, v in facts)
        + "</dl>",
    ]
    parts += [f"<p class='note'>{e(n)}</p>" for n in notes]
    parts.append("<h2>Summary</h2>")
    parts.append(_summary_table(stats))
    parts.append("<p>Inside &plusmn;k&sigma;: the share of east and north (horizontal) or up "
                 "(vertical) errors within k times the reported one-sigma of their epoch. An "
                 "honest Gaussian sigma gives 68.3 % and 95.4 %; time-correlated errors scatter "
                 "around those values in a short run.</p>")
    for fig in figures:
        b64 = base64.b64encode(fig.png).decode("ascii")
        parts.append(f"<h2>{e(fig.title)}</h2><figure><img src='data:image/png;base64,{b64}' "
                     f"alt='{e(fig.title)}' width='{fig.width_px}' height='{fig.height_px}'>"
                     f"<figcaption>{e(fig.caption)} ({e(fig.filename)})</figcaption></figure>")
    parts.append("</body></html>\n")
    return "\n".join(parts)


def write_report(run_dir, *, sky_time_s: float | None = None) -> Path:
    """Write RUN_DIR/report/ (report.html and the plots as PNG) and return report.html's path.

    ``sky_time_s``: episode time of the sky plot (the nearest GNSS epoch is used; default: the
    epoch that shows the most kinds of obstruction, see report_plots.sky_epoch). An existing report folder is replaced when the new one is complete.
    """
    from navsense.output import report_plots

    data = read_run(run_dir)
    stats = statistics(data)
    notes = []
    if data.gnss_t_s is not None and data.gnss_error_enu_m is None:
        notes.append(f"No truth for the GNSS errors: {data.truth_source}.")
    figures = report_plots.all_figures(data, sky_time_s=sky_time_s, notes=notes)
    page = _html(data, stats, figures, notes)

    final = data.run_dir / REPORT_DIR
    tmp = data.run_dir / f".{REPORT_DIR}.{os.getpid()}.partial"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:
        for fig in figures:
            (tmp / fig.filename).write_bytes(fig.png)
        (tmp / "report.html").write_text(page, encoding="utf-8")
        (tmp / "statistics.json").write_bytes(
            orjson.dumps({k: (None if math.isnan(v) else v) for k, v in stats.items()},
                         option=orjson.OPT_INDENT_2) + b"\n")
        if final.exists():
            old = data.run_dir / f".{REPORT_DIR}.{os.getpid()}.old"
            final.rename(old)
            tmp.rename(final)
            shutil.rmtree(old, ignore_errors=True)
        else:
            tmp.rename(final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return final / "report.html"
