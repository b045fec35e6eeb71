"""Finding a run's truth, and its rows at the run's physics steps (every reader of a run: the
statistics, the report, the ROS 2 export, scoring).

Where the truth is (:func:`find_truth`, the one rule for every reader of a run), in this order:

1. ``RUN_DIR/truth.parquet``, the run's own truth (``navsense simulate --save-truth``, and always
   with ``--track``);
2. episode.json's ``source``: ``{"truth": path}``, a truth log (a relative path that does not
   exist from the working directory is taken relative to the run directory), or
   ``{"scenario": name[, "duration_s": d]}``, the embedded scenario or scenario file rebuilt for
   ``d`` seconds, or without ``d`` for the run's own ``(first_step + steps - 1) / physics_hz``
   (a shorter scenario is a prefix of the longer one, so either way the run's steps are covered);
   ``{"track": path}`` always comes with ``truth.parquet`` (1), and without it is an error.

Without any of them (a source ``{}``), the statistics that need the truth (GNSS errors, INS
velocity errors) are ``nan``; a source that is named but cannot be read raises.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from navsense.errors import FormatError
from navsense.runs.episode import Episode
from navsense.truth.states import TruthStates

__all__ = [
    "RUN_TRUTH_FILE",
    "TruthSource",
    "TruthTable",
    "find_truth",
    "truth_at_steps",
    "truth_table",
]

RUN_TRUTH_FILE = "truth.parquet"
_TRUTH_CHUNK_STEPS = 1 << 16  # rows per chunk when a truth log is streamed for its epochs


@dataclass(frozen=True)
class TruthSource:
    """Where a run's truth is (:func:`find_truth`): a truth log ``path`` (Parquet or CSV) or an
    embedded scenario or scenario file ``scenario`` rebuilt for ``duration_s`` seconds.
    ``description`` says which, for messages and the report."""

    description: str
    path: Path | None = None
    scenario: str | None = None
    duration_s: float | None = None

    def read(self, rate_hz: float) -> TruthStates:
        """The whole truth (a truth log is read into memory)."""
        if self.path is not None:
            from navsense.truth.io import read_truth

            return read_truth(self.path, rate_hz=rate_hz)
        from navsense.scenarios import load_scenario

        # at the run's rate (physics.hz, issue 30): the route resampled as the run did
        return load_scenario(self.scenario, duration_s=self.duration_s).at_rate(rate_hz).truth


def find_truth(run_dir: str | os.PathLike, episode: Episode | None = None) -> TruthSource | None:
    """The truth of the run directory ``run_dir`` (module docstring, "Where the truth is").

    ``episode``: the run's episode.json if already read. None when there is no truth.parquet and
    the source names no truth; :class:`~navsense.errors.FormatError` when the source names a
    truth log that is not found, or a track while truth.parquet is missing.
    """
    run = Path(run_dir)
    if (run / RUN_TRUTH_FILE).is_file():
        return TruthSource(f"{RUN_TRUTH_FILE} of the run directory", path=run / RUN_TRUTH_FILE)
    if episode is None:
        episode = Episode.read(run)
    # Episode.read has checked source's kinds (navsense.runs.episode_check)
    source = episode.source
    where = episode.where
    if source.get("truth"):
        path = Path(source["truth"])
        if not path.is_absolute() and not path.exists():
            path = run / path
        if not path.is_file():
            raise FormatError(
                f"{where}: the truth log {source['truth']} of source is not found "
                f"(nor relative to the run directory)"
            )
        return TruthSource(f"truth log {source['truth']}", path=path)
    if source.get("scenario"):
        duration_s = source.get("duration_s")
        if duration_s is None:
            duration_s = max(episode.first_step + max(episode.steps, 1) - 1, 1) / episode.physics_hz
        return TruthSource(
            f"scenario {source['scenario']} (rebuilt)",
            scenario=str(source["scenario"]),
            duration_s=float(duration_s),
        )
    if source.get("track"):
        raise FormatError(
            f"{where}: source track {source['track']} but no {RUN_TRUTH_FILE} in "
            f"{run} (navsense simulate --track writes it)"
        )
    return None


def truth_at_steps(
    truth: TruthStates | TruthSource,
    steps: np.ndarray,
    rate_hz: float,
    *,
    where: str = "episode.json",
) -> dict:
    """The truth rows at the sorted, unique physics ``steps``: arrays p_m, q_xyzw, v_mps,
    w_radps, c_m (leading axis len(steps)).

    ``truth``: the truth itself, or a :class:`TruthSource` (a truth log is streamed chunk by
    chunk for those rows only; a scenario is rebuilt). FormatError if a step is not in the truth.
    """
    steps = np.asarray(steps, dtype=np.int64)
    table = truth_table(truth, steps, rate_hz, where)
    return table.arrays if table.steps is not None else table.at(steps)


_TRUTH_ROW_KEYS = ("p_m", "q_xyzw", "v_mps", "w_radps", "c_m")


@dataclass(frozen=True)
class TruthTable:
    """Truth rows to pick a sensor's epochs from (:meth:`at`): ``arrays`` (the keys of
    :func:`truth_at_steps`) at the sorted physics ``steps``, or at ``step0, step0 + 1, ...``
    when ``steps`` is None (a whole TruthStates, not copied). Why not truth_at_steps of every
    sensor's epochs and then each sensor's rows of those: that copies an hour's truth twice
    (50 MB each time) where each reader needs only its own rows, some of their fields, a block
    at a time."""

    arrays: dict
    steps: np.ndarray | None = None
    step0: int = 0

    def at(self, steps: np.ndarray, keys: tuple[str, ...] = _TRUTH_ROW_KEYS) -> dict:
        """The rows at ``steps`` (each one of the table's), the fields ``keys``."""
        idx = steps - self.step0 if self.steps is None else np.searchsorted(self.steps, steps)
        return {k: self.arrays[k][idx] for k in keys}


def truth_table(
    truth: TruthStates | TruthSource, steps: np.ndarray, rate_hz: float, where: str
) -> TruthTable:
    """The truth of the sorted, unique ``steps`` (truth_at_steps's rules and errors): a truth
    log's rows at those steps, streamed; a TruthStates (or a scenario, rebuilt) as it is."""
    if isinstance(truth, TruthSource):
        if truth.path is not None:
            return TruthTable(_stream_truth_rows(truth.path, steps, rate_hz, where), steps)
        truth = truth.read(rate_hz)
    idx = steps - truth.step0
    if idx.size and (idx[0] < 0 or idx[-1] >= len(truth)):
        raise FormatError(
            f"{where}: the run has epochs at physics steps {int(steps[0])}.."
            f"{int(steps[-1])}, outside the truth's {truth.step0}.."
            f"{truth.step0 + len(truth) - 1}"
        )
    return TruthTable({k: getattr(truth, k) for k in _TRUTH_ROW_KEYS}, step0=truth.step0)


def _stream_truth_rows(path, steps: np.ndarray, rate_hz: float, where: str) -> dict:
    """Pick the rows at ``steps`` from a truth log read chunk by chunk (bounded memory)."""
    from navsense.truth.io import iter_truth_chunks

    names = _TRUTH_ROW_KEYS
    parts: dict[str, list] = {k: [] for k in names}
    found = 0
    for chunk in iter_truth_chunks(path, _TRUTH_CHUNK_STEPS, rate_hz):
        lo = np.searchsorted(steps, chunk.step0, side="left")
        hi = np.searchsorted(steps, chunk.step0 + len(chunk), side="left")
        if hi > lo:
            idx = steps[lo:hi] - chunk.step0
            for k in names:
                parts[k].append(getattr(chunk, k)[idx])
            found += int(hi - lo)
        if found == steps.size:
            break
    if found != steps.size:
        raise FormatError(
            f"{where}: the truth log {path} does not cover the run's physics steps "
            f"{int(steps[0])}..{int(steps[-1])}"
        )
    width = {"q_xyzw": 4}
    return {
        k: (np.concatenate(v) if v else np.zeros((0, width.get(k, 3)))) for k, v in parts.items()
    }
