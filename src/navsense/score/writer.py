"""score.json and the score's plots, written whole or not at all.

score.json is one flat JSON object (keys in order: what was scored and how, then the figures of
:mod:`navsense.score.scores`), NaN written as null. Each file is written under a temporary name
beside its target and renamed when all are complete; the plots (PNG, :mod:`navsense.score.plots`)
go into the folder of score.json.

Ruling (issue 21, "nothing already written is lost"): the path is checked before anything is
read (:func:`check_score_path`). A score.json there is replaced (scoring a run again), any other
file is refused: ``--out run/episode.json`` or ``--out estimate.tum`` would have destroyed it.
The plots beside it (``score_error.png``, ``score_cdf.png``) are the score's own names.
"""

from __future__ import annotations

import contextlib
import math
import os
from pathlib import Path

import orjson

from navsense.errors import ConfigError, FormatError
from navsense.output.outfiles import name_max as longest_name

__all__ = ["check_score_path", "read_score", "write_score"]

#: A score.json is small (about 40 kB); a larger file at the score's path is not one.
MAX_SCORE_BYTES = 16 * 1024 * 1024


def _plain(v):
    if isinstance(v, float) and math.isnan(v):
        return None
    return v


def check_score_path(path: str | os.PathLike, option: str = "--out") -> Path:
    """``path`` as a Path if the score may be written there, checked before anything is read:
    a name (no NUL, not empty, not ending in a separator, not too long for the file system) whose
    first existing folder is a writable directory (missing folders are made, and removed again
    after a failure). An existing file is replaced only when it is a score (a JSON object with
    ``score_version``: a re-score of the same run); any other file, a directory or a symbolic
    link is refused. ConfigError naming ``option`` otherwise."""
    text = os.fspath(path)
    if not text or "\0" in text or text.endswith(os.sep):
        raise ConfigError(f"{option} {text!r}: not a file name")
    out = Path(text)
    if out.name in ("", ".", ".."):
        raise ConfigError(f"{option} {text!r}: not a file name")
    if os.path.islink(out):
        raise ConfigError(f"{option} {out}: is a symbolic link; not overwriting it")
    if os.path.lexists(out):
        if not out.is_file():
            raise ConfigError(f"{option} {out}: exists and is not a file; give a file name")
        if not _is_score(out):
            raise ConfigError(
                f"{option} {out}: exists and is not a score.json; not overwriting it (remove it "
                "or choose another)"
            )
    folder = out.parent
    while not os.path.lexists(folder) and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise ConfigError(f"{option} {out}: {folder} is not a directory")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ConfigError(f"{option} {out}: the folder {folder} is not writable")
    name_max = longest_name(folder)
    names = [out.name, *(p.name for p in out.parents if not os.path.lexists(p))]
    for name in names:  # the score is written as ".NAME.PID.partial" first (17 more bytes)
        if len(os.fsencode(name)) + 17 > name_max:
            raise ConfigError(
                f"{option} {out}: the name {name[:40]!r}... is {len(os.fsencode(name))} bytes; "
                f"this file system allows {name_max - 17} here"
            )
    return out


def _is_score(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            data = orjson.loads(f.read(MAX_SCORE_BYTES + 1))
    except (OSError, orjson.JSONDecodeError):
        return False
    return isinstance(data, dict) and "score_version" in data


def write_score(path: str | Path, scores: dict, figures=()) -> Path:
    """Write ``scores`` as score.json at ``path`` and the ``figures`` beside it; return path.

    Every file is written under a temporary name first and renamed into place once all are
    complete; a failure removes the temporary files and the folders made for them (FormatError
    naming the file and the system's reason)."""
    path = Path(path)
    made: list[Path] = []  # the folders made here, outermost first
    folder = path.parent
    while not os.path.lexists(folder) and folder != folder.parent:
        made.insert(0, folder)
        folder = folder.parent
    data = orjson.dumps(
        {k: _plain(v) for k, v in scores.items()},
        option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY,
    )
    files = [(path.parent / fig.filename, fig.png) for fig in figures] + [(path, data + b"\n")]
    temps: list[tuple[Path, Path]] = []
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        for target, content in files:
            tmp = target.with_name(f".{target.name}.{os.getpid()}.partial")
            temps.append((tmp, target))
            tmp.write_bytes(content)
        for tmp, target in temps:
            os.replace(tmp, target)
    except BaseException as exc:
        for tmp, _ in temps:
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)
        for folder in reversed(made):
            with contextlib.suppress(OSError):
                folder.rmdir()
        if isinstance(exc, OSError):
            reason = exc.strerror or str(exc)
            raise FormatError(f"{path}: cannot write the score ({reason})") from None
        raise
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
