"""An estimator in a campaign: its command run after each run, its estimate scored.

A campaign file may name an estimator (issue 22, section 2)::

    estimator = "my_filter --bag {run}/ros2.mcap --out {run}/estimate.tum"

or, with the estimate's place and ``navsense score``'s options, a table::

    [estimator]
    command = "{python} filters/cv.py {run}/gnss.jsonl {run}/estimate.csv"
    estimate = "{run}/estimate.csv"     # the file scored (default {run}/estimate.tum)
    mcap = false                        # write {run}/ros2.mcap before the command (default false)
    timeout_s = 3600                    # the command's time limit (default 3600 s)
    point = "antenna"                   # and format, topic, frame, datum, utm_zone, align,
    align = "none"                      # rpe_delta, rpe_unit: as navsense score's options

The command is split like a shell line (``shlex``; no shell runs it) and each word's
placeholders replaced: ``{run}`` the run directory, ``{run_id}``, ``{seed}``, ``{python}`` the
Python running navsense, ``{campaign}`` the campaign file's folder (also the command's working
directory). A word that names a file in that folder (the filter's script) has its SHA-256 in
the run's ``estimator.inputs``, so a changed script gives new run ids and the runs are done
again, like a changed truth log.

After the run directory is written, :func:`estimate_and_score` runs the command and scores the
estimate against the run's truth (:func:`navsense.score.api.score_estimate`). The score joins
the run's result (``results/RUN_ID.json``, key ``score``) and ``statistics.parquet`` as
``score.<key>`` columns (:data:`CAMPAIGN_SCORE_KEYS`: the figures of every epoch and of each
fixed group, and the alignment), and ``navsense campaign summary`` gives their distribution per
sweep point. An estimator that fails (exit code, time limit, no or a malformed estimate) makes
the run "failed" with the reason, as a failing run is; its statistics are kept.
"""

from __future__ import annotations

import hashlib
import math
import re
import shlex
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from navsense.errors import ConfigError, NavsenseError

__all__ = [
    "CAMPAIGN_SCORE_KEYS",
    "ESTIMATOR_KEYS",
    "PLACEHOLDERS",
    "estimate_and_score",
    "estimator_from_data",
    "score_columns",
]

ESTIMATOR_KEYS = (
    "command",
    "estimate",
    "mcap",
    "timeout_s",
    "format",
    "topic",
    "frame",
    "datum",
    "utm_zone",
    "point",
    "align",
    "rpe_delta",
    "rpe_unit",
)
PLACEHOLDERS = ("run", "run_id", "seed", "python", "campaign")
DEFAULT_ESTIMATE = "{run}/estimate.tum"
DEFAULT_TIMEOUT_S = 3600.0
MAX_TIMEOUT_S = 30 * 86400.0  # beyond ~9.2e9 s subprocess's timeout is an OverflowError
_CHOICES = {
    "format": ("tum", "csv", "mcap"),
    "frame": ("enu", "utm", "geodetic"),
    "datum": ("nad83_2011", "nad83_harn", "wgs84_g2139"),
    "point": ("ins", "antenna", "base_footprint"),
    "align": ("none", "se3", "sim3"),
    "rpe_unit": ("m", "s"),
}
_PLACEHOLDER = re.compile(r"\{([A-Za-z_]*)\}")
_STDERR_CHARS = 600  # the end of a failing estimator's stderr kept in its message


def _campaign_score_keys() -> tuple[str, ...]:
    from navsense.score.breakdown import FIXED_GROUPS
    from navsense.score.scores import FIGURES

    meta = (
        "epochs_read",
        "epochs_outside_truth",
        "outage_windows",
        "align_scale",
        "align_rotation_deg",
        "align_t_e_m",
        "align_t_n_m",
        "align_t_u_m",
    )
    groups = [f"{g}." for g in FIXED_GROUPS]
    return meta + FIGURES + tuple(p + f for p in groups for f in FIGURES)


#: The score's numeric keys a campaign records per run (``score.<key>`` columns), in order.
CAMPAIGN_SCORE_KEYS: tuple[str, ...] = _campaign_score_keys()


def _err(src: str, key: str, value, complaint: str) -> ConfigError:
    return ConfigError(f"{src}: estimator.{key} = {value!r} {complaint}")


def _words(src: str, command) -> list[str]:
    if not isinstance(command, str) or not command.strip():
        raise _err(src, "command", command, "is not a non-empty command line")
    try:
        words = shlex.split(command)
    except ValueError as exc:
        raise _err(src, "command", command, f"is not a command line ({exc})") from None
    for word in words:
        for name in _PLACEHOLDER.findall(word):
            if name not in PLACEHOLDERS:
                raise _err(
                    src,
                    "command",
                    command,
                    f"has the placeholder {{{name}}}; allowed: "
                    + ", ".join(f"{{{p}}}" for p in PLACEHOLDERS),
                )
    return words


def estimator_from_data(src: str, base: Path, value) -> dict | None:
    """The campaign's estimator (module docstring) validated into a JSON-ready dict, or None.

    ``src``: the campaign file's name (for messages); ``base``: its folder. ConfigError names the
    key, the value and what is allowed.
    """
    if value is None:
        return None
    data = {"command": value} if isinstance(value, str) else value
    if not isinstance(data, Mapping):
        raise ConfigError(f"{src}: estimator = {value!r} is not a command line or a table")
    for key in data:
        if key not in ESTIMATOR_KEYS:
            raise ConfigError(
                f"{src}: estimator.{key} is not a known key; allowed: {', '.join(ESTIMATOR_KEYS)}"
            )
    words = _words(src, data.get("command"))
    estimate = data.get("estimate", DEFAULT_ESTIMATE)
    if not isinstance(estimate, str) or not estimate:
        raise _err(src, "estimate", estimate, "is not a path")
    _words(src, estimate)
    mcap = data.get("mcap", False)
    if not isinstance(mcap, bool):
        raise _err(src, "mcap", mcap, "is not true or false")
    timeout = data.get("timeout_s", DEFAULT_TIMEOUT_S)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise _err(src, "timeout_s", timeout, "is not a number of seconds > 0")
    if timeout > MAX_TIMEOUT_S:
        raise _err(src, "timeout_s", timeout, f"is more than {MAX_TIMEOUT_S:.0f} s (30 days)")
    options: dict = {}
    for key, allowed in _CHOICES.items():
        if key in data:
            if data[key] not in allowed:
                raise _err(src, key, data[key], f"is not one of {', '.join(allowed)}")
            options[key] = data[key]
    if "topic" in data:
        if not isinstance(data["topic"], str) or not data["topic"]:
            raise _err(src, "topic", data["topic"], "is not a topic name")
        options["topic"] = data["topic"]
    if "utm_zone" in data:
        z = data["utm_zone"]
        if isinstance(z, bool) or not isinstance(z, int) or not 1 <= z <= 60:
            raise _err(src, "utm_zone", z, "is not a zone 1..60")
        options["utm_zone"] = z
    if "rpe_delta" in data:
        d = data["rpe_delta"]
        if isinstance(d, bool) or not isinstance(d, (int, float)) or not (0 < d < math.inf):
            raise _err(src, "rpe_delta", d, "is not a number > 0")
        options["rpe_delta"] = float(d)
    inputs = {}
    for word in words:
        path = base / word
        if "{" not in word and path.is_file():
            inputs[word] = hashlib.sha256(path.read_bytes()).hexdigest()
    return {
        "command": data["command"],
        "estimate": estimate,
        "mcap": mcap,
        "timeout_s": float(timeout),
        "options": options,
        "cwd": str(base),
        "inputs": inputs,
    }


def _fill(word: str, values: Mapping[str, str]) -> str:
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], word)


def _values(spec: Mapping, run_dir: Path, run: Mapping) -> dict[str, str]:
    """The placeholders' values for a run."""
    return {
        "run": str(run_dir.resolve()),
        "run_id": str(run.get("run_id", "")),
        "seed": str(run.get("seed", "")),
        "python": sys.executable,
        "campaign": str(spec["cwd"]),
    }


def _run_command(spec: Mapping, run_dir: Path, run: Mapping) -> str | None:
    """Run the estimator's command; None when it succeeded, else the reason."""
    args = [_fill(w, _values(spec, run_dir, run)) for w in shlex.split(spec["command"])]
    try:
        done = subprocess.run(
            args,
            cwd=spec["cwd"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            timeout=float(spec["timeout_s"]),
            check=False,
        )
    except subprocess.TimeoutExpired:
        return f"estimator: {args[0]} did not end within {spec['timeout_s']:g} s (timeout_s)"
    except OSError as exc:
        return f"estimator: cannot start {args[0]} ({exc.strerror or exc})"
    if done.returncode != 0:
        tail = done.stderr.decode("utf-8", errors="replace").strip()[-_STDERR_CHARS:]
        return f"estimator: {args[0]} ended with exit code {done.returncode}" + (
            f": {tail}" if tail else ""
        )
    return None


def estimate_and_score(spec: Mapping, run_dir: str | Path, run: Mapping, truth=None) -> dict:
    """Run the estimator of ``spec`` (:func:`estimator_from_data`) on the run directory and score
    its estimate. Returns ``{"score": flat score}`` or ``{"status": "failed", "error": reason}``;
    never raises for a failing estimator. ``truth``: the run's TruthStates when held in memory
    (else the run's own truth is found as ``navsense score`` finds it)."""
    from navsense.score.api import ScoreOptions, score_estimate

    run_dir = Path(run_dir)
    try:
        if spec.get("mcap"):
            from navsense.runs.export_mcap import write_mcap

            if not (run_dir / "ros2.mcap").exists():
                write_mcap(run_dir)
        failure = _run_command(spec, run_dir, run)
        if failure is not None:
            return {"status": "failed", "error": failure}
        estimate = Path(spec["cwd"]) / _fill(spec["estimate"], _values(spec, run_dir, run))
        score = score_estimate(run_dir, estimate, ScoreOptions(**spec["options"]), truth=truth)
    except NavsenseError as exc:
        return {"status": "failed", "error": f"estimator's estimate: {exc}"}
    # without the paths of the run and the estimate (a scratch folder: not part of the result)
    scores = {
        k: (None if isinstance(v, float) and math.isnan(v) else v)
        for k, v in score.scores.items()
        if k not in ("run", "estimate")
    }
    return {"score": scores}


def score_columns(score: Mapping | None) -> dict[str, float | None]:
    """The ``score.<key>`` columns of a run's recorded score (None: no value)."""
    score = score or {}
    out: dict[str, float | None] = {}
    for key in CAMPAIGN_SCORE_KEYS:
        v = score.get(key)
        out[f"score.{key}"] = None if v is None else float(v)
    return out
