"""The scoring pipeline (being built: issue 22)."""

from __future__ import annotations

from dataclasses import dataclass

from navsense.errors import NavsenseError

__all__ = ["ScoreOptions", "score_run"]


@dataclass(frozen=True)
class ScoreOptions:
    """The options of ``navsense score`` (navsense.score.cli)."""

    format: str | None = None
    topic: str | None = None
    frame: str | None = None
    datum: str | None = None
    utm_zone: int | None = None
    point: str = "ins"
    align: str = "none"
    rpe_delta: float = 1.0
    rpe_unit: str = "s"


def score_run(run_dir, estimate, options: ScoreOptions, *, out=None, plots: bool = True):
    """Score ``estimate`` against the truth of ``run_dir`` (not implemented yet)."""
    raise NavsenseError("navsense score: not implemented yet (issue 22)")
