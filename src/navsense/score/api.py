"""The scoring pipeline: read, convert, take the truth, align, measure, break down, write.

:func:`score_estimate` computes a score without writing; :func:`score_run` (``navsense
score``) also writes score.json, the plots, and returns where.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from navsense.errors import ConfigError, FormatError

__all__ = [
    "SCORE_DIR",
    "SCORE_FILE",
    "SCORE_VERSION",
    "Score",
    "ScoreOptions",
    "score_estimate",
    "score_run",
]

#: Version of the score's definitions (score.json ``score_version``).
SCORE_VERSION = 1
SCORE_DIR = "score"
SCORE_FILE = "score.json"
#: An estimate (without --align) whose median distance from the truth exceeds this is taken to
#: be in another frame, m.
FRAME_MISMATCH_M = 100_000.0
#: The truth points (--point).
POINTS = ("ins", "antenna", "base_footprint")


@dataclass(frozen=True)
class ScoreOptions:
    """The options of ``navsense score`` (navsense.commands.score; meanings in navsense.score)."""

    format: str | None = None
    topic: str | None = None
    frame: str | None = None
    datum: str | None = None
    utm_zone: int | None = None
    point: str = "ins"
    align: str = "none"
    rpe_delta: float = 1.0
    rpe_unit: str = "s"

    def check(self) -> ScoreOptions:
        """The options if each is one that scoring can use, else a ConfigError naming the option,
        the value and what is allowed (checked before any file is read). ``--utm-zone`` 1..60;
        ``--rpe-delta`` a finite number > 0 (a delta longer than the estimate gives no pair: the
        RPE figures are null); ``--topic`` a non-empty name."""
        from navsense.runs.episode_check import INS_DATUMS as DATUMS
        from navsense.score.align import ALIGNMENTS
        from navsense.score.estimate import FORMATS, FRAMES
        from navsense.score.metrics import RPE_UNITS

        choices = {
            "--format": (self.format, (None, *FORMATS)),
            "--frame": (self.frame, (None, *FRAMES)),
            "--datum": (self.datum, (None, *DATUMS)),
            "--point": (self.point, POINTS),
            "--align": (self.align, ALIGNMENTS),
            "--rpe-unit": (self.rpe_unit, RPE_UNITS),
        }
        for option, (value, allowed) in choices.items():
            if value not in allowed:
                names = ", ".join(a for a in allowed if a is not None)
                raise ConfigError(f"{option} {value!r} is not one of {names}")
        zone = self.utm_zone
        if zone is not None and (isinstance(zone, bool) or not isinstance(zone, int)):
            raise ConfigError(f"--utm-zone {zone!r} is not a zone number 1..60")
        if zone is not None and not 1 <= zone <= 60:
            raise ConfigError(f"--utm-zone {zone} is not a UTM zone (1..60)")
        delta = self.rpe_delta
        if isinstance(delta, bool) or not isinstance(delta, (int, float)):
            raise ConfigError(f"--rpe-delta {delta!r} is not a number")
        if not 0.0 < delta < math.inf:
            raise ConfigError(f"--rpe-delta {delta!r} must be a finite number > 0")
        if self.topic is not None and (not isinstance(self.topic, str) or not self.topic):
            raise ConfigError(f"--topic {self.topic!r} is not a topic name")
        return self


@dataclass
class Score:
    """A score: the flat ``scores`` (score.json) and the arrays its plots draw.

    ``t_s`` (n,) scored stamps, ``error_enu_m`` (n, 3) after the alignment, ``cov_enu_m2``
    (n, 3, 3) or None, ``fix_type`` (n,) the fix state at each stamp (None: before the first
    GNSS epoch, or no GNSS), ``windows`` the run's outage windows.
    """

    scores: dict
    t_s: np.ndarray
    error_enu_m: np.ndarray
    cov_enu_m2: np.ndarray | None
    fix_type: np.ndarray
    windows: list = field(default_factory=list)
    path: Path | None = None


def _default_frame(est, options: ScoreOptions) -> tuple[str, str]:
    if options.frame is not None:
        return options.frame, "--frame"
    if est.frame is not None:
        return est.frame, est.frame_note
    return "enu", "default (" + (est.frame_note or "the file gives no frame") + ")"


def _check_same_frame(source, p_est, p_truth, frame: str, frame_note: str) -> None:
    """Unaligned, an estimate kilometres from the truth (median) is in another frame: said."""
    d = np.median(np.sqrt(np.sum((p_est - p_truth) ** 2, axis=1)))
    if d > FRAME_MISMATCH_M:
        raise FormatError(
            f"{source}: the estimate is {d / 1000:.0f} km from the truth (median) as "
            f"{frame} ({frame_note}); is it in another frame (--frame, --datum, "
            "--utm-zone), or in a frame of its own (--align se3)?"
        )


def _attitude_errors(q_est: np.ndarray, q_truth: np.ndarray) -> dict:
    """The attitude errors of the epochs that have an attitude (NaN where one is missing)."""
    from navsense.score import metrics

    has = ~np.isnan(q_est).any(axis=1)
    att = metrics.attitude_errors(np.where(has[:, None], q_est, q_truth), q_truth)
    return {k: np.where(has, v, np.nan) for k, v in att.items()}


def _outage_meta(windows) -> dict:
    """outage_<k>.kind, .start_s, .end_s of each outage window, k from 1."""
    meta: dict = {}
    for k, w in enumerate(windows, start=1):
        meta[f"outage_{k}.kind"] = w.kind
        meta[f"outage_{k}.start_s"] = w.start_s
        meta[f"outage_{k}.end_s"] = w.end_s
    return meta


def score_estimate(run_dir, estimate, options: ScoreOptions | None = None, *, truth=None) -> Score:
    """Score the estimate file ``estimate`` against the run directory ``run_dir``.

    ``truth``: the run's truth (navsense.truth.TruthStates) when the caller holds it (a campaign
    run); else it is found as for every reader of the run (navsense.score.truth)."""
    from navsense.score import metrics
    from navsense.score.align import umeyama
    from navsense.score.breakdown import fix_states_at, groups_of, outage_windows
    from navsense.score.estimate import format_of
    from navsense.score.frames import to_site_enu
    from navsense.score.readers import read_estimate
    from navsense.score.runinfo import read_gnss_timeline, read_run_info
    from navsense.score.scores import all_figures
    from navsense.score.truth import truth_at_estimate

    options = (options or ScoreOptions()).check()
    run = read_run_info(run_dir)
    fmt = format_of(estimate, options.format)
    est = read_estimate(estimate, fmt, start_ns=run.start_ns, topic=options.topic)
    frame, frame_note = _default_frame(est, options)
    if fmt == "tum" and frame == "geodetic":
        raise ConfigError(
            f"--frame geodetic: a TUM file's x y z are metres ({estimate}); give latitude and "
            "longitude in a CSV (lat_deg, lon_deg, height_m)"
        )
    datum = options.datum or run.ins_datum
    zone = options.utm_zone if options.utm_zone is not None else run.utm_zone
    georef = run.georeference() if frame != "enu" else None
    traj = to_site_enu(est, frame, georef, datum=datum, zone=zone)

    truth = truth_at_estimate(run, traj.t_s, options.point, truth=truth, estimate=est.source)
    keep = truth.inside
    t = traj.t_s[keep]
    p_est = traj.p_m[keep]
    q_est = None if traj.q_xyzw is None else traj.q_xyzw[keep]
    cov = None if traj.cov_m2 is None else traj.cov_m2[keep]
    if q_est is not None and np.isnan(q_est).any():
        q_est = None if np.isnan(q_est).all() else q_est

    if options.align == "none":
        _check_same_frame(est.source, p_est, truth.p_m, frame, frame_note)
    alignment = umeyama(p_est, truth.p_m, options.align)
    p_est = alignment.positions(p_est)
    q_est = alignment.attitudes(q_est)
    cov = alignment.covariances(cov)

    e = p_est - truth.p_m
    i, j = metrics.rpe_pairs(t, truth.p_m, options.rpe_delta, options.rpe_unit)
    has_q = q_est is not None and not np.isnan(q_est).any()
    rpe_trans, rpe_rot = metrics.rpe_errors(
        i, j, p_est, q_est if has_q else None, truth.p_m, truth.q_xyzw
    )
    att = None if q_est is None else _attitude_errors(q_est, truth.q_xyzw)
    nees = None if cov is None else metrics.nees(e, cov)

    gnss = read_gnss_timeline(run)
    windows = outage_windows(run, gnss)
    groups = groups_of(t, gnss, windows)
    figures = all_figures(groups, e, i, rpe_trans, rpe_rot, att, nees)

    fmt_source = {"tum": "TUM", "csv": "CSV", "mcap": "MCAP"}[fmt]
    meta: dict = {
        "score_version": SCORE_VERSION,
        "run": str(run.run_dir),
        "estimate": str(estimate),
        "estimate_format": fmt,
        "topic": options.topic,
        "estimate_note": est.frame_note or fmt_source,
        "frame": frame,
        "frame_from": frame_note,
        "datum": datum if frame != "enu" else None,
        "utm_zone": zone if frame == "utm" else None,
        "time_base": est.time_base,
        "point": options.point,
        "truth": truth.description,
        "align": options.align,
        "align_scale": alignment.scale,
        "align_rotation_deg": alignment.rotation_deg,
        "align_t_e_m": float(alignment.translation_m[0]),
        "align_t_n_m": float(alignment.translation_m[1]),
        "align_t_u_m": float(alignment.translation_m[2]),
        "rpe_delta": float(options.rpe_delta),
        "rpe_unit": options.rpe_unit,
        "rpe_relation": "se3" if has_q else "translation",
        "epochs_read": len(est),
        "epochs_outside_truth": int(np.count_nonzero(~keep)),
        "has_attitude": q_est is not None,
        "has_covariance": cov is not None,
        "outage_windows": len(windows),
    }
    meta.update(_outage_meta(windows))
    states = (
        fix_states_at(gnss, t)
        if gnss is not None and gnss.t_s.size
        else np.full(t.shape, None, dtype=object)
    )
    return Score({**meta, **figures}, t, e, cov, states, windows)


def score_run(
    run_dir, estimate, options: ScoreOptions | None = None, *, out=None, plots: bool = True
) -> Score:
    """Score the estimate and write score.json (``out``, default RUN_DIR/score/score.json) and,
    with ``plots``, the plots beside it (navsense.score.plots). The path is checked first
    (:func:`navsense.score.writer.check_score_path`: a score.json is replaced, any other file
    is refused); a failure leaves nothing new (navsense.score.writer)."""
    from navsense.score.writer import check_score_path, write_score

    (options or ScoreOptions()).check()
    if out is not None:
        path = check_score_path(out, "--out")
    else:  # RUN_DIR/score/score.json (a RUN_DIR that is not a directory: score_estimate says so)
        path = Path(run_dir) / SCORE_DIR / SCORE_FILE
        if Path(run_dir).is_dir():
            check_score_path(path, f"{run_dir}: the score")
    score = score_estimate(run_dir, estimate, options)
    figures = []
    if plots:
        from navsense.score.plots import score_figures

        figures = score_figures(score)
    score.path = write_score(path, score.scores, figures)
    return score
