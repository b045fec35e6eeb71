"""The run report: ``RUN_DIR/report/report.html`` with its plots and the run's statistics.

``write_report(run_dir, sky_time_s=None)`` writes a self-contained HTML page (plots embedded as
base64 PNG, no script, no external resource), the same plots as PNG files and the statistics as
``statistics.json`` into ``RUN_DIR/report/`` (written in a temporary folder and swapped in when
complete, so an old report is replaced whole or not at all).

Statistics. The summary table shows :func:`navsense.runs.stats.run_statistics`, the one
implementation the campaigns record too (``run_statistics`` here is that function, imported):
time in each fix state, time to first fix and to rtk_fixed, error RMS and 95th percentile per
fix state, and the sigma honesty, each next to the Gaussian expectation of its own definition
(:data:`navsense.runs.stats.EXPECTED_GAUSSIAN_FRACTIONS`): horizontal, the share of epochs with
``(e_E/s_E)^2 + (e_N/s_N)^2 <= k^2`` (2-D: 39.3 % and 86.5 %); vertical, ``|e_U| <= k s_U``
(1-D: 68.3 % and 95.4 %). The errors are strongly correlated in time (Gauss-Markov, tau 30 s for
the INS, 60-300 s for the GNSS), so a 10-minute run holds only tens of independent samples:
expect a few percent of scatter around those values.

Truth. Found by :func:`navsense.runs.stats.find_truth` (the run's truth.parquet, else episode.json's
``source``: a truth log or a scenario rebuilt) and read whole for the plots; the statistics get
the same truth. Without a truth, or with one that cannot be read or does not cover the run's
epochs, the GNSS errors are left out (no plot; their statistics and the INS velocity's: NaN) and
the report says why. The plots use :class:`RunData`:

* GNSS error = position_enu_m - p_a, with the truth antenna p_a = p + R r_a ("Antenna Position";
  :func:`navsense.sky.obstruction.antenna_position_enu` and the lever arm of the run's
  configuration and vehicle, :meth:`RunData.sky`) at each GNSS epoch.
* INS error = the INS position minus the truth INS point, both from ``ins.frames``
  (InsUtmE/N/H - InsTruthX/Y/Z, the same datum chain and projection), rotated from UTM to grid
  axes by the epoch's grid rotation alpha. The UTM point scale (k = 0.9996, a 0.04 % change of a
  centimetre error) is ignored.
"""

from __future__ import annotations

import base64
import html
import math
import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import orjson

from navsense.errors import FormatError, NavsenseError
from navsense.output.layouts.gnss import COUNT_KEYS
from navsense.runs.episode import Episode
from navsense.runs.reader import FLOAT, INT, TEXT, RunReader, vector
from navsense.runs.stats import (
    EXPECTED_GAUSSIAN_FRACTIONS,
    GNSS_STATES,
    STATISTICS_INS_FIELDS,
    find_truth,
    run_statistics,
)

__all__ = [
    "FIX_STATE_ORDER",
    "REPORT_DIR",
    "RunData",
    "RunSky",
    "read_run",
    "run_statistics",
    "write_report",
]

REPORT_DIR = "report"
FIX_STATE_ORDER = GNSS_STATES[::-1]  # worst to best: no_fix, single, dgps, rtk_float, rtk_fixed


# ------------------------------------------------------------------------------------ data
class RunSky(NamedTuple):
    """The run's GNSS antenna and sky (:mod:`navsense.sky`), from what episode.json carries."""

    lever_arm_m: np.ndarray  # r_a from the chassis origin, FLU (navsense.vehicles)
    constellation: Any  # navsense.sky.orbits.make_orbits: a Constellation or a BroadcastSky;
    # None when the run's RINEX file (gnss.orbits) cannot be read now (``note`` says why)
    view: Any  # navsense.sky.obstruction.SkyView: the site, the margins and the mask
    site: Any  # navsense.site.Site (open sky when the run has no site)
    signal_outages_s: tuple = ()  # gnss.signal_outages_s: [t1, t2) windows with every satellite lost
    note: str = ""  # why there is no constellation


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
    episode: Episode
    reader: RunReader | None = None  # the run's reader, its cache holding what was read
    truth_source: str | None = None
    truth: Any = None  # navsense.truth.TruthStates
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
    ins_state: np.ndarray | None = None  # the aided INS's state names (ins.aiding "gnss")
    ins_truth_enu_m: np.ndarray | None = None
    ins_q_enu_xyzw: np.ndarray | None = None
    imu_t_s: np.ndarray | None = None
    imu_specific_force_flu_mps2: np.ndarray | None = None
    imu_angular_velocity_flu_radps: np.ndarray | None = None

    @property
    def config(self) -> Mapping:
        return self.episode.config

    @property
    def gnss_hz(self) -> float:
        return self.episode.gnss_config.hz

    @property
    def physics_hz(self) -> float:
        return self.episode.physics_hz

    @property
    def duration_s(self) -> float:
        return self.episode.duration_s

    def site(self):
        """The run's navsense.site.Site, or None."""
        return self.episode.site_object()

    def vehicle(self):
        return self.episode.vehicle_profile

    def sky(self) -> RunSky:
        """The antenna lever arm, constellation and sky view of the run's receiver, from the
        configuration (typed: navsense.config.typed.gnss), vehicle and site in episode.json, with
        the receiver's own rules (the lever arm of navsense.vehicles, the constellation's site of
        navsense.sky.constellation)."""
        from navsense.errors import NavsenseError
        from navsense.site import Site
        from navsense.sky.constellation import constellation_site
        from navsense.sky.obstruction import SkyView
        from navsense.sky.orbits import make_orbits
        from navsense.vehicles import lever_arm_from_chassis

        c = self.episode.gnss_config
        site = self.site()
        georef = self.episode.georeference()
        if site is None:
            site = Site(name="open sky", georeference=None)
        note = ""
        try:
            orbits = make_orbits(
                c.orbits,
                c.systems,
                dict(c.constellations),
                c.seed,
                c.start_utc,
                *constellation_site(georef, c.start_utc),
            )
        except NavsenseError as exc:  # the run's RINEX file moved or changed since the run
            if c.orbits == "synthetic":
                raise
            orbits, note = None, str(exc)
        return RunSky(
            lever_arm_m=lever_arm_from_chassis(c.antenna_flu_m, c.mount_frame, self.vehicle()),
            constellation=orbits,
            note=note,
            view=SkyView(site, c.near_margin_m, c.foliage_block_path_m, c.elevation_mask_deg),
            site=site,
            signal_outages_s=c.signal_outages_s,
        )


_GNSS_COUNTS = COUNT_KEYS  # the GNSS row's satellite counts (its layout's)
_GNSS_COLUMNS = {
    "sample_time_s": FLOAT,
    "fix_type": TEXT,
    **dict.fromkeys(_GNSS_COUNTS, INT),
    "hdop": FLOAT,
    "position_enu_m": vector(3),
    "sigma_enu_m": vector(3),
}
#: the ins.frames fields of the report's INS arrays (RunData.ins_*)
_INS_FIELDS = (
    *(f"InsEnu{c}" for c in ("X", "Y", "Z", "Qx", "Qy", "Qz", "Qw")),
    *(f"InsUtm{c}" for c in "ENH"),
    *(f"InsTruth{c}" for c in "XYZ"),
    "InsGridRotationDeg",
    *(f"InsCov{c}" for c in "ENU"),
)
_IMU_COLUMNS = {  # an IMU row always holds both vectors (a null one: a damaged file)
    "sample_time_s": FLOAT,
    "specific_force_flu_mps2": vector(3, nullable=False),
    "angular_velocity_flu_radps": vector(3, nullable=False),
}


def _load_truth(run_dir: Path, episode: Episode):
    """(TruthStates, description) or (None, reason), the truth of navsense.runs.stats.find_truth. A
    source that cannot be read (a truth log that moved, a malformed log) gives (None, its
    error)."""
    try:
        source = find_truth(run_dir, episode)
        if source is None:
            return None, "the run directory has no truth.parquet and episode.json names no truth"
        return source.read(episode.physics_hz), source.description
    except NavsenseError as exc:
        return None, f"the truth source could not be read ({exc})"


def _truth_rows(truth, t_s: np.ndarray) -> np.ndarray | None:
    """Indices of the truth rows at times t_s (None when a time is not a physics step)."""
    if truth is None or len(t_s) == 0:
        return None
    steps = np.round(np.asarray(t_s) * truth.rate_hz).astype(np.int64) - int(truth.step0)
    if steps.min() < 0 or steps.max() >= len(truth):
        return None
    # the times of those rows only (truth.t_s[steps]: every row's, 432 000 for an hour)
    if np.max(np.abs((truth.step0 + steps) / truth.rate_hz - t_s)) > 1e-6:
        return None
    return steps


def read_run(run_dir, *, early: bool = True) -> RunData:
    """Read a run directory (episode.json, the GNSS, INS and IMU rows, JSON Lines or Parquet,
    and ins.frames; :class:`navsense.runs.reader.RunReader`, or that reader itself) and
    its truth (module docstring); the truth is dropped, with the reason in ``truth_source``, if
    it does not cover every GNSS and INS epoch. ``early=False``: not the rows that only the
    report's figure child needs (:func:`read_early`: the IMU rows, the aided INS's states)."""
    run = run_dir if isinstance(run_dir, RunReader) else RunReader(run_dir, cache=True)
    run_dir = run.path
    data = RunData(run_dir=run_dir, episode=run.episode, reader=run)
    data.truth, data.truth_source = _load_truth(run_dir, data.episode)

    if run.has("gnss"):
        got = run.columns("gnss", _GNSS_COLUMNS)
        data.gnss_t_s = got["sample_time_s"]
        data.gnss_fix_type = got["fix_type"]
        _check_fix_types(run.file("gnss"), data.gnss_fix_type)
        data.gnss_counts = _checked_counts(run.file("gnss"), {k: got[k] for k in _GNSS_COUNTS})
        data.gnss_hdop = got["hdop"]
        data.gnss_position_enu_m = got["position_enu_m"]
        data.gnss_sigma_enu_m = got["sigma_enu_m"]

    if run.has_ins_frames():
        # with the statistics' fields: the report computes them next from the same reader's
        # cache, so ins.frames is read once
        fields, times = run.ins_fields((*_INS_FIELDS, *STATISTICS_INS_FIELDS))
        col = fields.__getitem__
        data.ins_t_s = times[:, 0]
        data.ins_position_enu_m = np.stack([col("InsEnuX"), col("InsEnuY"), col("InsEnuZ")], -1)
        data.ins_q_enu_xyzw = np.stack([col(f"InsEnuQ{c}") for c in "xyzw"], -1)
        # UTM error rotated to grid axes: v_enu = R_z(alpha) v_utm (q_utm = q_z(-alpha) q_enu)
        de, dn = col("InsUtmE") - col("InsTruthX"), col("InsUtmN") - col("InsTruthY")
        alpha = np.radians(col("InsGridRotationDeg"))
        ca, sa = np.cos(alpha), np.sin(alpha)
        err = np.stack(
            [ca * de - sa * dn, sa * de + ca * dn, col("InsUtmH") - col("InsTruthZ")], -1
        )
        data.ins_error_enu_m = err
        data.ins_sigma_enu_m = np.sqrt(
            np.stack([col("InsCovE"), col("InsCovN"), col("InsCovU")], -1)
        )
        data.ins_truth_enu_m = data.ins_position_enu_m - err
        if early:
            _read_ins_state(data)

    if early:
        _read_imu(data)

    if data.truth is not None:
        epochs = [t for t in (data.gnss_t_s, data.ins_t_s) if t is not None and len(t)]
        if any(_truth_rows(data.truth, t) is None for t in epochs):
            data.truth_source = (
                f"{data.truth_source}, which does not cover the run's epochs (not used)"
            )
            data.truth = None
    if data.truth is not None and data.gnss_t_s is not None and len(data.gnss_t_s):
        from navsense.sky.obstruction import antenna_position_enu

        idx = _truth_rows(data.truth, data.gnss_t_s)
        lever = data.sky().lever_arm_m
        data.gnss_truth_antenna_enu_m = antenna_position_enu(
            data.truth.p_m[idx], data.truth.q_xyzw[idx], lever
        )
        data.gnss_error_enu_m = data.gnss_position_enu_m - data.gnss_truth_antenna_enu_m
    return data


def aided(data: RunData) -> bool:
    """True when the run's INS was aided by the GNSS (ins.aiding "gnss"): its rows name the
    state (``fix.ins_state``)."""
    return data.episode.ins_config.aiding == "gnss"


def read_early(data: RunData) -> None:
    """What the report's figure child reads itself (navsense.runs.report_draw), into
    ``data``: the IMU rows and the aided INS's states. Both only for figures: the IMU's, and
    the INS's (its state strip), whose nested key makes Arrow parse every INS row."""
    run = data.reader if data.reader is not None else RunReader(data.run_dir, cache=True)
    if run.has_ins_frames():
        _read_ins_state(data)
    _read_imu(data)


def _read_ins_state(data: RunData) -> None:
    if aided(data):
        run = data.reader if data.reader is not None else RunReader(data.run_dir, cache=True)
        data.ins_state = run.columns("ins", {"fix.ins_state": TEXT})["fix.ins_state"]


def _read_imu(data: RunData) -> None:
    """The IMU rows into ``data`` (by its reader), if the run has them."""
    run = data.reader if data.reader is not None else RunReader(data.run_dir, cache=True)
    if run.has("imu"):
        got = run.columns("imu", _IMU_COLUMNS)
        data.imu_t_s = got["sample_time_s"]
        data.imu_specific_force_flu_mps2 = got["specific_force_flu_mps2"]
        data.imu_angular_velocity_flu_radps = got["angular_velocity_flu_radps"]


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
    """The table of navsense.runs.stats keys: per fix state, all fixes (any_fix) and the INS."""
    head = (
        "<tr><th rowspan=2>solution</th><th rowspan=2>time (s)</th><th rowspan=2>share</th>"
        "<th colspan=2>horizontal error (m)</th><th colspan=2>vertical error (m)</th>"
        "<th colspan=2>horizontal inside (2-D)</th><th colspan=2>vertical inside (1-D)</th>"
        "</tr><tr><th>RMS</th><th>95 %</th><th>RMS</th><th>95 %</th>"
        "<th>1&sigma;</th><th>2&sigma;</th>"
        "<th>&plusmn;1&sigma;</th><th>&plusmn;2&sigma;</th></tr>"
    )
    rows = []

    def err_cells(prefix: str) -> str:
        return "".join(
            f"<td>{_fmt(stats[prefix + k], u)}</td>"
            for k, u in (
                ("h_rms_m", "m"),
                ("h_p95_m", "m"),
                ("v_rms_m", "m"),
                ("v_p95_m", "m"),
                ("h_in_1sigma", "pct"),
                ("h_in_2sigma", "pct"),
                ("v_in_1sigma", "pct"),
                ("v_in_2sigma", "pct"),
            )
        )

    for s in FIX_STATE_ORDER:
        cells = (
            f"<td>GNSS {s}</td><td>{_fmt(stats[f'gnss_{s}_time_s'], 's')}</td>"
            f"<td>{_fmt(stats[f'gnss_{s}_fraction'], 'pct')}</td>"
        )
        cells += (
            err_cells(f"gnss_{s}_")
            if s != "no_fix"
            else "<td colspan=8 style='text-align:center'>no position</td>"
        )
        rows.append(f"<tr class='state-{s}'>{cells}</tr>")
    gnss_time = sum(stats[f"gnss_{s}_time_s"] for s in FIX_STATE_ORDER[1:])
    rows.append(
        f"<tr class='total'><td>GNSS, all fixes</td><td>{_fmt(gnss_time, 's')}</td>"
        f"<td></td>{err_cells('gnss_any_fix_')}</tr>"
    )
    ins_time = stats["duration_s"] if not math.isnan(stats["ins_epochs"]) else math.nan
    rows.append(
        f"<tr class='total'><td>INS</td><td>{_fmt(ins_time, 's')}</td><td></td>"
        f"{err_cells('ins_pos_')}</tr>"
    )
    ref = "".join(
        f"<td>{_fmt(EXPECTED_GAUSSIAN_FRACTIONS[k], 'pct')}</td>"
        for k in ("h_in_1sigma", "h_in_2sigma", "v_in_1sigma", "v_in_2sigma")
    )
    rows.append(
        "<tr class='ref'><td>Gaussian reference</td><td></td><td></td><td colspan=4></td>"
        f"{ref}</tr>"
    )
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


def _receiver_fact(episode: Episode) -> list[tuple[str, str]]:
    """("GNSS receiver", the preset and its source) for a run with a receiver preset (issue 29;
    the specification's receiver, the default, adds no line)."""
    from navsense.config.receiver_presets import PRESETS

    name = episode.config["gnss"]["receiver"]
    if name not in PRESETS:
        return []
    return [("GNSS receiver", f"{name} ({PRESETS[name]['source']})")]


def _html(data: RunData, stats: dict, figures: list, notes: list[str]) -> str:
    from navsense import __version__

    ep = data.episode
    e = html.escape
    source = ep.source
    source_text = ", ".join(f"{k} {v}" for k, v in source.items()) or "unknown"
    ttff = stats["gnss_time_to_first_fix_s"]
    ttfix = stats["gnss_time_to_rtk_fixed_s"]
    facts = [
        ("run", data.run_dir.resolve().name),
        ("source", source_text),
        ("vehicle", ep.vehicle),
        ("seed", str(ep.seed)),
        ("noise", str(ep.noise)),
        ("start (UTC)", ep.start_utc),
        ("duration", f"{stats['duration_s']:.1f} s"),
        ("time to first fix", "never" if math.isnan(ttff) else f"{ttff:.1f} s"),
        ("time to first RTK fixed", "never" if math.isnan(ttfix) else f"{ttfix:.1f} s"),
        ("truth", data.truth_source or "none"),
        *_receiver_fact(data.episode),
        ("written by", f"navsense {__version__} (run: navsense {ep.navsense_version or '?'})"),
    ]
    parts = [
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        f"<title>navsense report: {e(data.run_dir.resolve().name)}</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1>navsense run report</h1><p>{e(data.run_dir.resolve().name)}</p>",
        "<dl class='facts'>"
        + "".join(f"<dt>{e(k)}</dt><dd>{e(v)}</dd>" for k, v in facts)
        + "</dl>",
    ]
    parts += [f"<p class='note'>{e(n)}</p>" for n in notes]
    parts.append("<h2>Summary</h2>")
    parts.append(_summary_table(stats))
    g = {k: _fmt(v, "pct") for k, v in EXPECTED_GAUSSIAN_FRACTIONS.items()}
    parts.append(
        "<p>Inside k&sigma;, against the reported one-sigmas of each epoch: "
        "horizontal, the share of epochs with (e<sub>E</sub>/&sigma;<sub>E</sub>)&sup2; "
        "+ (e<sub>N</sub>/&sigma;<sub>N</sub>)&sup2; &le; k&sup2; (a 2-D test: an honest "
        f"Gaussian sigma gives {g['h_in_1sigma']} and {g['h_in_2sigma']}); vertical, "
        "the share with |e<sub>U</sub>| &le; k&sigma;<sub>U</sub> (1-D: "
        f"{g['v_in_1sigma']} and {g['v_in_2sigma']}). GNSS errors are first shrunk by "
        "the 0.05 mm rounding of the rows. Time-correlated errors scatter around those "
        "values in a short run.</p>"
    )
    for fig in figures:
        b64 = base64.b64encode(fig.png).decode("ascii")
        parts.append(
            f"<h2>{e(fig.title)}</h2><figure><img src='data:image/png;base64,{b64}' "
            f"alt='{e(fig.title)}' width='{fig.width_px}' height='{fig.height_px}'>"
            f"<figcaption>{e(fig.caption)} ({e(fig.filename)})</figcaption></figure>"
        )
    parts.append("</body></html>\n")
    return "\n".join(parts)


def _check_sky_time(gnss_t_s, sky_time_s: float) -> None:
    """ConfigError unless ``sky_time_s`` lies within the run's GNSS epochs (half an interval of
    margin at each end): a time after the run is a mistake, not the last epoch (issue 18)."""
    from navsense.errors import ConfigError

    t = np.asarray([] if gnss_t_s is None else gnss_t_s, dtype=np.float64)
    if t.size == 0:
        raise ConfigError(f"--time-s {sky_time_s:g}: the run has no GNSS epochs for the sky plot")
    margin = 0.5 * (t[-1] - t[0]) / (t.size - 1) if t.size > 1 else 0.0
    if not (math.isfinite(sky_time_s) and t[0] - margin <= sky_time_s <= t[-1] + margin):
        raise ConfigError(
            f"--time-s {sky_time_s:g} is outside the run: its GNSS epochs are at "
            f"{t[0]:g} .. {t[-1]:g} s"
        )


def _check_report_place(final: Path) -> None:
    """FormatError when RUN_DIR/report is there and is not a folder (a file, a symbolic link,
    a FIFO): the report replaced it, a user's file of that name deleted, exit 0. A folder (an
    earlier report) is replaced when the new one is complete."""
    if os.path.lexists(final) and (os.path.islink(final) or not os.path.isdir(final)):
        what = "a symbolic link" if os.path.islink(final) else "not a folder"
        raise FormatError(
            f"{final}: is {what}; the report is written there as a folder: remove it or move it"
        )


def write_report(run_dir, *, sky_time_s: float | None = None) -> Path:
    """Write RUN_DIR/report/ (report.html and the plots as PNG) and return report.html's path.

    ``sky_time_s``: episode time of the sky plot (the nearest GNSS epoch is used; default: the
    epoch that shows the most kinds of obstruction, see report_plots.sky_epoch); a time outside
    the run's GNSS epochs (by more than half an epoch interval) is refused (ConfigError). An
    existing report folder is replaced when the new one is complete.
    """
    from navsense.runs import report_plots
    from navsense.runs.report_draw import FigureWorker

    report_plots.require_matplotlib("navsense report")
    run = RunReader(run_dir, cache=True)
    _check_report_place(run.path / REPORT_DIR)
    report_plots.preload()
    makers = report_plots.figure_makers(sky_time_s)
    start = RunData(run_dir=run.path, episode=run.episode, reader=run)
    # a forked child reads the IMU rows (and the aided INS's states) and draws their figure
    # while this process reads the rest; then the two draw the other figures (the aided INS's:
    # the child) while this one computes the statistics
    early = [makers.index(report_plots.imu_figure)]
    child_late = [makers.index(report_plots.ins_figure)] if aided(start) else []
    with FigureWorker(start, read_early, makers, early, child_late=child_late) as w:
        data = read_run(run, early=False)
        if sky_time_s is not None:
            _check_sky_time(data.gnss_t_s, sky_time_s)
        # the truth read_run found with the shared lookup (None: none, unreadable or not
        # covering)
        got: dict = {}

        def statistics() -> None:  # the rows read_run read, from the reader's cache
            got["stats"] = run_statistics(run, truth=data.truth, search_truth=False)

        notes = []
        if data.gnss_t_s is not None and data.gnss_error_enu_m is None:
            notes.append(f"No truth for the GNSS errors: {data.truth_source}.")
        figures = [f for f in w.draw(data, meanwhile=statistics) if f is not None]
    report_plots.sky_time_note(data, sky_time_s, notes)
    stats = got["stats"]
    from navsense.score.plots import run_report_figures

    figures += run_report_figures(data.run_dir)  # RUN_DIR/score/ of navsense score, if any
    from navsense.allan.figure import run_report_figures as allan_figures

    figures += allan_figures(data.run_dir)  # the IMU's Allan deviation: runs of 10 min or more
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
            orjson.dumps(
                {k: (None if math.isnan(v) else v) for k, v in stats.items()},
                option=orjson.OPT_INDENT_2,
            )
            + b"\n"
        )
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


def _checked_counts(path: Path, counts: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """``counts``, after a FormatError naming the first GNSS row whose satellite count is null
    or missing (an INT column with a null is float with NaN: the sky plot's title was
    ``int(nan)``, an internal error)."""
    from navsense.errors import FormatError

    for key, v in counts.items():
        if v.dtype.kind == "f" and np.isnan(v).any():
            k = int(np.argmax(np.isnan(v)))
            raise FormatError(f"{path}: row {k + 1}: {key} is null or missing; a count is required")
    return counts


def _check_fix_types(path: Path, fix_type: np.ndarray) -> None:
    """FormatError naming the file, row and value when a GNSS row's fix_type is not one the
    receiver writes (a damaged file)."""
    from navsense.errors import FormatError
    from navsense.runs.report_plots import FIX_ORDER

    known = np.isin(fix_type.astype(str), list(FIX_ORDER))
    if not known.all():
        k = int(np.flatnonzero(~known)[0])
        raise FormatError(
            f"{path}: row {k + 1}: fix_type = {str(fix_type[k])!r} is not one of "
            f"{', '.join(FIX_ORDER)}"
        )
