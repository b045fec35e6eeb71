"""score.json and the score's plots, written whole or not at all.

score.json is one flat JSON object (keys in order: what was scored and how, then the figures of
:mod:`navsense.score.scores`), NaN written as null. Each file is written under a temporary name
beside its target and renamed when complete; the plots (PNG, :mod:`navsense.score.plots`) go into
the folder of score.json.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import orjson

from navsense.errors import FormatError

__all__ = ["read_score", "write_score"]


def _plain(v):
    if isinstance(v, float) and math.isnan(v):
        return None
    return v


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_score(path: str | Path, scores: dict, figures=()) -> Path:
    """Write ``scores`` as score.json at ``path`` and the ``figures`` beside it; return path."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        for fig in figures:
            _write_atomic(path.parent / fig.filename, fig.png)
        data = orjson.dumps(
            {k: _plain(v) for k, v in scores.items()},
            option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY,
        )
        _write_atomic(path, data + b"\n")
    except OSError as exc:
        raise FormatError(f"{path}: cannot write the score ({exc.strerror or exc})") from None
    return path


def read_score(path: str | Path) -> dict:
    """A score.json back as a dict (null -> NaN for the figures)."""
    path = Path(path)
    try:
        data = orjson.loads(path.read_bytes())
    except FileNotFoundError:
        raise FormatError(f"{path}: no score.json") from None
    except orjson.JSONDecodeError as exc:
        raise FormatError(f"{path}: invalid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise FormatError(f"{path}: not a JSON object")
    return data
