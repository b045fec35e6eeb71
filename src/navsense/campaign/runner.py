"""Executing a campaign: every run on Dask (or serially), results written as they complete.

Layout of a campaign directory ``DIR``::

    DIR/campaign.json           the resolved campaign (navsense.campaign.spec.Campaign.to_json)
    DIR/results/RUN_ID.json     one small file a finished run: status "ok" or "failed", the error
                                message, the statistics (navsense.campaign.stats), wall time, worker
    DIR/runs/RUN_ID/            the run directory (keep = "runs" only)
    DIR/statistics.parquet      one row a finished run, rebuilt from results/ sorted by RUN_ID
                                (navsense.campaign.summary.write_statistics_table)

A run is one call of :func:`execute_run` (a plain function of a JSON-ready run dict, so any Dask
worker can run it): it prepares the run as ``navsense simulate`` does (:func:`navsense.run.prepare_run`:
the configuration, defaults < config < vehicle overlay < the campaign's overrides < the sweep
point < the seed; the truth, a scenario, a truth log or a track; the site), writes the run directory with :func:`navsense.simulate.simulate` (into a scratch directory
under the worker's temporary folder, ``TMPDIR``, with keep = "statistics"), computes its
statistics and returns them. Every exception of a run becomes a "failed" result with its message;
the other runs go on. :func:`simulate_run` is the same run into a given directory, which
``navsense campaign rerun`` uses: same inputs, same bytes.

Executors: :func:`serial_executor` (in this process, one run after the other; ``--workers 0``,
and by default for fewer runs than two a core, where a local cluster's start costs more than it
saves) and :func:`dask_executor` (a ``LocalCluster(n_workers, threads_per_worker=1, processes=True)``, or
an existing scheduler by address). Both yield results in completion order; the table does not
depend on it. With an existing scheduler the workers must reach the same paths as this process
(the truth logs and, for keep = "runs", ``DIR``): a shared file system, and navsense installed.

Resuming: a run whose ``results/RUN_ID.json`` exists is not run again (a failed one only with
``retry_failed``; one whose statistics have another ``STATISTICS_VERSION`` always). The run ids are hashes of everything that decides a run's output, so a changed
campaign file keeps the results of the runs it still has, unchanged.
"""

from __future__ import annotations

import functools
import math
import os
import shutil
import socket
import sys
import tempfile
import time
import traceback
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from navsense.campaign.executors import (
    LOCAL_WORKER_CONFIG,
    Executor,
    check_scheduler_address,
    dask_executor,
    default_workers,
    serial_executor,
)
from navsense.campaign.results import (
    CAMPAIGN_JSON,
    RESULTS_DIR,
    RUNS_DIR,
    named_os_error,
    read_result,
    read_results,
    write_json_atomic,
)
from navsense.errors import ConfigError, NavsenseError
from navsense.progress import Progress, format_duration

__all__ = [
    "execute_run",
    "simulate_run",
    "prepared_run",
    "run_campaign",
    "CampaignOutcome",
    "serial_executor",
    "dask_executor",
    "read_results",
    "read_result",
    "write_json_atomic",
    "rerun",
    "RerunReport",
    "CAMPAIGN_JSON",
    "RESULTS_DIR",
    "RUNS_DIR",
    "LOCAL_WORKER_CONFIG",
    "check_scheduler_address",
    "named_os_error",
]


# ------------------------------------------------------------------------------- one run
def prepared_run(run: Mapping, campaign_file: str = "campaign"):
    """The run dict ``run`` (navsense.campaign.spec.RUN_KEYS) prepared by
    :func:`navsense.run.prepare_run`: its source (scenario, truth log or track, with its site,
    duration and track options), vehicle, configuration and overlay files, and the override
    layers: the campaign's overrides, the sweep point, then the seed.

    Raises the errors of the configuration (ConfigError naming ``campaign_file`` and the layer,
    e.g. ``c.toml: sweep point p002: gnss.hz = 2400 is out of range 1..2000``), of the scenario,
    the track and the site.
    """
    from navsense.run import prepare_run

    source = run["source"]
    layers = [(f"{campaign_file}: {label}", layer) for label, layer in run["overrides"]]
    layers.append((f"{campaign_file}: seeds", {"seed": run["seed"]}))
    return prepare_run(
        scenario=source.get("scenario"),
        truth=source.get("truth"),
        track=source.get("track"),
        site=source.get("site"),
        vehicle=run["vehicle"],
        config=(run["config"] or {}).get("path"),
        overlay=(run["overlay"] or {}).get("path"),
        overrides=layers,
        duration_s=source.get("duration_s"),
        smoothing_m=source.get("smoothing_m"),
        bank=source.get("bank", "none"),
    )


def simulate_run(run: Mapping, out_dir: str | os.PathLike, campaign_file: str = "campaign"):
    """Write the run directory of ``run`` to ``out_dir`` (which must not exist).

    Returns the truth (TruthStates) when it is held in memory (a scenario, a track), else None.
    """
    from navsense.simulate import DEFAULT_CHUNK_STEPS

    prep = prepared_run(run, campaign_file)
    prep.simulate(out_dir, agent=run["agent"], chunk_steps=DEFAULT_CHUNK_STEPS, progress=False)
    return prep.truth


def execute_run(run: Mapping, campaign_file: str = "campaign", keep_dir: str | None = None) -> dict:
    """Simulate one run and compute its statistics; never raises for a failing run.

    ``keep_dir``: write the run directory to ``keep_dir/RUN_ID`` and keep it (keep = "runs");
    None: write it to a scratch directory and remove it afterwards. Returns ``{"run_id",
    "status": "ok" | "failed", "error": message or None, "statistics": dict or None, "wall_s",
    "worker"}`` (and ``"traceback"`` for an error that is not a NavsenseError).
    """
    from navsense.campaign.stats import STATISTICS_VERSION, run_statistics

    t0 = time.perf_counter()
    run_id = run["run_id"]
    result: dict = {
        "run_id": run_id,
        "status": "ok",
        "error": None,
        "statistics": None,
        "statistics_version": STATISTICS_VERSION,
    }
    scratch = None
    try:
        if keep_dir is not None:
            out = Path(keep_dir) / run_id
            if out.exists():  # left by an interrupted campaign before its result was written
                shutil.rmtree(out)
        else:
            scratch = tempfile.mkdtemp(prefix=f"navsense-{run_id}-")
            out = Path(scratch) / run_id
        truth = simulate_run(run, out, campaign_file)
        result["statistics"] = run_statistics(out, truth=truth)
        if run.get("estimator"):  # its command, then its estimate scored (navsense.score.campaign)
            from navsense.score.campaign import estimate_and_score

            result.update(estimate_and_score(run["estimator"], out, run, truth=truth))
    except NavsenseError as exc:
        result.update(status="failed", error=str(exc))
    except Exception as exc:
        result.update(
            status="failed", error=f"{type(exc).__name__}: {exc}", traceback=traceback.format_exc()
        )
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
    result["wall_s"] = round(time.perf_counter() - t0, 3)
    result["worker"] = f"{socket.gethostname()}:{os.getpid()}"
    return result


#: A local Dask cluster pays for its start (about 5 s: processes, imports) from this many runs
#: per worker; fewer runs go serially unless --workers asks for the cluster (8 runs of 120 s on
#: 2 cores: Dask 10.0 s, serial 4.5 s; issue 18)
SERIAL_BELOW_RUNS_PER_WORKER = 2


def _executor(runs: int, workers: int | None, scheduler: str | None, log) -> Executor:
    """The executor of ``runs`` runs: an existing scheduler; serial for ``workers`` 0, or when
    ``workers`` is not given and there are fewer than SERIAL_BELOW_RUNS_PER_WORKER runs a core
    (said in one line on ``log``); else a local Dask cluster."""
    if scheduler:
        return dask_executor(workers, scheduler)
    if workers == 0:
        return serial_executor
    if workers is None and 0 < runs < SERIAL_BELOW_RUNS_PER_WORKER * default_workers():
        n = default_workers()
        print(
            f"navsense: {runs} run(s) to do, fewer than {SERIAL_BELOW_RUNS_PER_WORKER} per core "
            f"({n} cores): run serially in this process, where a local Dask cluster would cost "
            f"more than it saves (--workers {n} runs them on Dask)",
            file=log,
        )
        return serial_executor
    return dask_executor(workers, scheduler)


# ------------------------------------------------------------------------------- a campaign
@dataclass
class CampaignOutcome:
    """What ``run_campaign`` did: runs planned, skipped (done before), ok, failed, lost (a worker
    failed; not recorded, done again on resume), and the failed runs' messages."""

    out_dir: Path
    planned: int = 0
    skipped: int = 0
    ok: int = 0
    failed: int = 0
    lost: int = 0
    errors: dict = field(default_factory=dict)
    wall_s: float = 0.0

    def text(self) -> str:
        lines = [
            f"campaign: {self.planned} runs: {self.skipped} done before, {self.ok} ok, "
            f"{self.failed} failed, {self.lost} lost in {self.wall_s:.1f} s -> {self.out_dir}"
        ]
        for run_id, message in sorted(self.errors.items()):
            lines.append(f"campaign: {run_id}: {message}")
        return "\n".join(lines)


def _campaign_note(old: dict, new: dict, done: int) -> str | None:
    if old == new:
        return None
    runs = old.get("runs") if isinstance(old, dict) else None  # a damaged file: none kept
    ids = {r.get("run_id") for r in runs if isinstance(r, dict)} if isinstance(runs, list) else ()
    kept = len({r["run_id"] for r in new["runs"] if r["run_id"] in ids})
    return (
        f"campaign: {CAMPAIGN_JSON} held another version of the campaign; {kept} of its runs "
        f"are still planned ({done} of them finished); the others are left out of the tables"
    )


def run_campaign(campaign, out_dir: str | os.PathLike, **options) -> CampaignOutcome:
    """Run every run of ``campaign`` (navsense.campaign.spec.Campaign) not yet finished in
    ``out_dir``, then rebuild ``out_dir/statistics.parquet`` (:func:`_run_campaign`; options
    ``workers``, ``scheduler``, ``retry_failed``, ``progress``, ``executor``, ``log``).

    A campaign that fails before any run has finished (a scheduler it cannot reach, Ctrl-C)
    removes the folders it made: no campaign directory without results is left behind.
    """
    text = os.fspath(out_dir)
    if not text:  # Path("") is ".": an empty --out ran the campaign into the cwd
        raise ConfigError(f"--out {text!r}: not a directory name; give the campaign directory")
    if os.path.lexists(text) and not os.path.isdir(text):  # mkdir's bare "File exists" before
        raise ConfigError(
            f"--out {text}: is a file, not a directory; give the campaign directory (a new one, "
            "or one of this campaign to resume)"
        )
    out = Path(text)
    if os.path.isdir(text) and not os.path.lexists(out / CAMPAIGN_JSON) and any(out.iterdir()):
        # ruling: a campaign resumes in its own folder or starts in a new or empty one; it
        # does not spread results/, runs/ and its tables among a user's other files
        raise ConfigError(
            f"--out {text}: a folder that holds other files and no campaign ({CAMPAIGN_JSON}); "
            "give a new or empty folder, or this campaign's folder to resume it"
        )
    made = None  # the outermost folder this call makes
    for folder in (out, *out.parents):
        if os.path.lexists(folder):
            break
        made = folder
    try:
        return _run_campaign(campaign, out, **options)
    except BaseException:
        if made is not None and not any((out / RESULTS_DIR).glob("*.json")):
            shutil.rmtree(made, ignore_errors=True)
        raise


def _prepare_dir(campaign, out: Path, log) -> tuple[dict[str, dict], Path | None]:
    """The campaign directory ``out`` made ready (its parts checked before any run, campaign.json
    written, a changed campaign said on ``log``): (the results there, the runs' folder for
    keep = "runs" or None)."""
    from navsense.campaign.summary import STATISTICS_PARQUET

    for name in (CAMPAIGN_JSON, STATISTICS_PARQUET):  # refused before the runs, not after them
        if os.path.lexists(out / name) and not (out / name).is_file():
            raise ConfigError(
                f"{out / name}: a directory or no regular file, where the campaign writes its "
                f"{name}; remove it or choose another --out"
            )
    (out / RESULTS_DIR).mkdir(exist_ok=True)
    keep_dir = None
    if campaign.keep == "runs":
        keep_dir = out / RUNS_DIR
        keep_dir.mkdir(exist_ok=True)
    resolved = campaign.to_json()
    previous = out / CAMPAIGN_JSON
    results = read_results(out)
    planned = {r["run_id"] for r in campaign.runs}
    for rid in sorted(planned - set(results)):  # refused before the runs, not at their end
        if (out / RESULTS_DIR / f"{rid}.json").is_dir():
            raise ConfigError(
                f"{out / RESULTS_DIR / rid}.json: a directory, where the campaign writes the "
                "result of that run; remove it or choose another --out"
            )
    if previous.is_file():  # a FIFO or a device (never ending) is replaced like damaged JSON
        try:
            old = orjson.loads(previous.read_bytes())
        except orjson.JSONDecodeError:
            old = {}
        note = _campaign_note(old, resolved, len(planned & set(results)))
        if note:
            print(note, file=log)
    write_json_atomic(previous, resolved)
    return results, keep_dir


def _run_campaign(
    campaign,
    out_dir: str | os.PathLike,
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    retry_failed: bool = False,
    progress: bool = True,
    executor: Executor | None = None,
    log=None,
) -> CampaignOutcome:
    """:func:`run_campaign` in ``out_dir``, made if it is not there.

    ``workers`` 0 runs serially in this process; otherwise Dask (``scheduler`` an address, or a
    LocalCluster of ``workers`` processes, default one a core). Without ``workers`` and
    ``scheduler``, fewer runs than 2 a core run serially, said in one line on ``log``
    (:data:`SERIAL_BELOW_RUNS_PER_WORKER`). ``executor`` replaces all of it (tests).
    """
    from navsense.campaign.stats import STATISTICS_VERSION
    from navsense.campaign.summary import write_statistics_table

    log = log or sys.stderr
    t0 = time.perf_counter()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    results, keep_dir = _prepare_dir(campaign, out, log)

    outcome = CampaignOutcome(out_dir=out, planned=len(campaign.runs))
    todo = []
    for run in campaign.runs:
        done = results.get(run["run_id"])
        if done is not None and done.get("statistics_version") != STATISTICS_VERSION:
            done = None  # statistics of another definition: do the run again
        if done is not None and (done.get("status") == "ok" or not retry_failed):
            outcome.skipped += 1
            continue
        todo.append(run)
    if executor is None:
        executor = _executor(len(todo), workers, scheduler, log)
    fn = functools.partial(
        execute_run,
        campaign_file=campaign.path.name,
        keep_dir=None if keep_dir is None else str(keep_dir),
    )
    bar = Progress("campaign", len(todo), enabled=progress and bool(todo), log_lines=True)
    finished = failed = 0
    try:
        if todo:
            for result in executor(todo, fn):
                status = result.get("status")
                if status in ("ok", "failed"):
                    write_json_atomic(out / RESULTS_DIR / f"{result['run_id']}.json", result)
                if status == "ok":
                    outcome.ok += 1
                else:
                    outcome.failed += status == "failed"
                    outcome.lost += status != "failed"
                    outcome.errors[result["run_id"]] = result.get("error")
                finished += 1
                failed += status != "ok"
                elapsed = bar.elapsed_s
                left = elapsed / finished * (len(todo) - finished)
                bar.update(
                    finished,
                    f"{finished}/{len(todo)} runs ({failed} failed) {format_duration(elapsed)} "
                    f"elapsed, ~{format_duration(left)} left",
                )
    finally:
        bar.close()
        write_statistics_table(out)
        outcome.wall_s = time.perf_counter() - t0
    return outcome


# ------------------------------------------------------------------------------- rerun
@dataclass
class RerunReport:
    """What :func:`rerun` did: the new run directory, what it was compared with (``"files"``: the
    campaign's copy under DIR/runs; ``"statistics"``: the recorded statistics; None: nothing to
    compare, e.g. a run that failed) and the differences found."""

    run_id: str
    run_dir: Path
    compared: str | None = None
    reference: Path | None = None
    differences: list = field(default_factory=list)
    version_note: str | None = None

    @property
    def identical(self) -> bool | None:
        return None if self.compared is None else not self.differences

    def text(self) -> str:
        head = f"campaign: rerun of {self.run_id} -> {self.run_dir}"
        if self.compared is None:
            return (
                head
                + "\ncampaign: nothing to compare with (the run has no kept directory and no statistics)"
            )
        what = "every file" if self.compared == "files" else "the statistics"
        if not self.differences:
            return (
                f"{head}\ncampaign: identical to the campaign's copy ({what} of {self.reference})"
            )
        return (
            f"{head}\ncampaign: DIFFERS from the campaign's copy ({self.reference}): "
            + ", ".join(self.differences)
        )


def _find_run(campaign: dict, run_id: str, where: str) -> dict:
    """The run whose id is ``run_id`` or the one that starts with it. Ruling: an empty RUN_ID
    is no prefix (it matched a campaign's only run)."""
    runs = campaign.get("runs", [])
    if not run_id.strip():
        raise ConfigError(
            f"RUN_ID {run_id!r}: empty; give a run id of the campaign (navsense campaign summary "
            "lists them), or a unique prefix of one"
        )
    exact = [r for r in runs if r["run_id"] == run_id]
    if exact:
        return exact[0]
    found = [r for r in runs if r["run_id"].startswith(run_id)]
    if len(found) == 1:
        return found[0]
    if found:
        names = ", ".join(r["run_id"] for r in found[:5])
        raise ConfigError(
            f"{where}: RUN_ID {run_id!r} matches {len(found)} runs ({names}"
            f"{', ...' if len(found) > 5 else ''}); give more of it"
        )
    raise ConfigError(
        f"{where}: no run {run_id!r} in the campaign ({len(runs)} runs, "
        f"e.g. {runs[0]['run_id'] if runs else 'none'})"
    )


def _check_record(run: dict, where: str) -> None:
    """The run's record in campaign.json is the one its id was made of (``p<point>-s<seed>-``
    and the hash of the record, :func:`navsense.campaign.spec.run_hash`), else ConfigError: a
    changed or damaged record would not reproduce the run (its overrides a string, its config
    no file record: an internal error), and an id with a '/' or '..' put the rerun outside the
    campaign directory."""
    from navsense.campaign.spec import run_hash
    from navsense.config.schema import format_value

    rid = run["run_id"]
    try:
        expected = f"p{run['point']:03d}-s{run['seed']:04d}-{run_hash(run)}"
    except (TypeError, ValueError):  # a value orjson cannot write (an integer beyond 64 bits)
        expected = None
    if rid != expected:
        raise ConfigError(
            f"{where}: the record of run {format_value(rid, 40)} does not match its id (the "
            f"id of these values is {expected}); the file was changed or damaged, and the run "
            "cannot be reproduced from it"
        )


def _check_inputs(run: dict) -> None:
    """Every input file still has the SHA-256 recorded in the campaign (else ConfigError)."""
    from navsense.campaign.sources import sha256_of

    refs = []
    source = run["source"]
    if "sha256" in source:
        ref = source.get("truth") or source.get("track") or source.get("scenario")
        refs.append((ref, source["sha256"]))
    for ref in (source.get("site"), source.get("sidecar")):
        if isinstance(ref, Mapping):
            refs.append((ref["path"], ref["sha256"]))
    for key in ("config", "overlay"):
        if run.get(key):
            refs.append((run[key]["path"], run[key]["sha256"]))
    for path, digest in refs:
        try:
            now = sha256_of(Path(path))
        except OSError as exc:
            raise ConfigError(
                f"{path}: cannot read this input of run {run['run_id']} ({exc.strerror or exc})"
            ) from None
        if now != digest:
            raise ConfigError(
                f"{path}: changed since the campaign ran (SHA-256 {now[:12]}..., "
                f"recorded {digest[:12]}...); run {run['run_id']} cannot be "
                f"reproduced from it"
            )


def _same_number(a, b) -> bool:
    """Equal floats, None and nan being the same "no value"."""
    a = math.nan if a is None else float(a)
    b = math.nan if b is None else float(b)
    return a == b or (math.isnan(a) and math.isnan(b))


def rerun(
    campaign_dir: str | os.PathLike, run_id: str, out_dir: str | os.PathLike | None = None
) -> RerunReport:
    """Write the run directory of ``run_id`` (or a unique prefix) of the campaign in
    ``campaign_dir`` to ``out_dir`` (default ``campaign_dir/reruns/RUN_ID``) and compare it with
    the campaign's copy or recorded statistics."""
    from navsense import __version__
    from navsense.campaign.stats import run_statistics
    from navsense.campaign.summary import read_campaign_json

    base = Path(campaign_dir)
    campaign = read_campaign_json(base)
    run = _find_run(campaign, run_id, str(base / CAMPAIGN_JSON))
    rid = run["run_id"]
    _check_record(run, str(base / CAMPAIGN_JSON))
    _check_inputs(run)
    note = None
    if run.get("navsense_version") != __version__:
        note = (
            f"campaign: the campaign ran navsense {run.get('navsense_version')}, this is "
            f"{__version__}; the rerun may differ"
        )
    if out_dir is None:
        out = base / "reruns" / rid
        k = 2
        while os.path.lexists(out) or os.path.lexists(f"{out}.partial"):
            out = base / "reruns" / f"{rid}-{k}"
            k += 1
    else:
        out = out_dir  # as given: check_out_dir names an empty name as it was given
    from navsense.output.rundir import check_out_dir

    out = check_out_dir(out)
    kept = base / RUNS_DIR / rid
    # everything that can fail is read before the run is written: a damaged results file
    # leaves no rerun directory behind
    result_file = base / RESULTS_DIR / f"{rid}.json"
    recorded = None if kept.is_dir() or not result_file.exists() else read_result(result_file)
    truth = simulate_run(run, out, Path(campaign.get("campaign_file", "campaign")).name)
    scored: dict = {}
    if run.get("estimator"):  # the estimator's files in the run directory, and its score
        from navsense.score.campaign import estimate_and_score, score_columns

        scored = score_columns(estimate_and_score(run["estimator"], out, run, truth).get("score"))
    report = RerunReport(run_id=rid, run_dir=out, version_note=note)
    if kept.is_dir():
        report.compared, report.reference = "files", kept
        names = sorted({p.name for p in kept.iterdir()} | {p.name for p in out.iterdir()})
        for name in names:
            a, b = kept / name, out / name
            if not (a.is_file() and b.is_file()) or a.read_bytes() != b.read_bytes():
                report.differences.append(name)
        return report
    if recorded and recorded.get("status") == "ok":
        report.compared, report.reference = "statistics", base / RESULTS_DIR / f"{rid}.json"
        now = {**run_statistics(out, truth=truth), **scored}
        old = recorded.get("statistics") or {}
        if scored:
            old = {**old, **score_columns(recorded.get("score"))}
        report.differences = [k for k, v in now.items() if not _same_number(v, old.get(k))]
    return report
