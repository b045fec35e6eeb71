"""The files of a campaign directory that record its runs: ``campaign.json``, one
``results/RUN_ID.json`` a finished run (written atomically, read back checked), and the
names of the directory's parts (navsense.campaign.runner's module docstring has the layout).
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson

from navsense.errors import FormatError

__all__ = [
    "CAMPAIGN_JSON",
    "RESULTS_DIR",
    "RUNS_DIR",
    "write_json_atomic",
    "named_os_error",
    "read_results",
    "read_result",
]

CAMPAIGN_JSON = "campaign.json"
RESULTS_DIR = "results"
RUNS_DIR = "runs"


def write_json_atomic(path: Path, data) -> None:
    """Write JSON (indented; nan as null) to a temporary name next to ``path``, then rename."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(
            orjson.dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY) + b"\n"
        )
        os.replace(tmp, path)
    except OSError as exc:
        raise named_os_error(exc, path) from None
    finally:
        tmp.unlink(missing_ok=True)


def named_os_error(exc: OSError, path: Path) -> OSError:
    """``exc`` naming ``path`` when it names no file (a full disk while writing: Python's write
    and Arrow's say only "No space left on device")."""
    if exc.filename is not None:
        return exc
    reason = exc.strerror or str(exc).strip().splitlines()[0]
    return OSError(exc.errno, reason, str(path))


def read_results(out_dir: str | os.PathLike) -> dict[str, dict]:
    """The finished runs' results in ``out_dir/results``, by run id."""
    folder = Path(out_dir) / RESULTS_DIR
    out = {}
    if folder.is_dir():
        for path in sorted(folder.glob("*.json")):
            if path.name.startswith("."):
                continue
            try:
                data = read_result(path)
            except FormatError:
                continue  # cut short by a crash, or damaged: the run is done again
            out[data.get("run_id", path.stem)] = data
    return out


def _numbers(obj) -> bool:
    """True for an object whose values are numbers or null (not booleans)."""
    return isinstance(obj, dict) and all(
        v is None or (isinstance(v, (int, float)) and not isinstance(v, bool)) for v in obj.values()
    )


def read_result(path: Path) -> dict:
    """One run's result file, as :func:`execute_run` writes it: an object whose run_id is the
    file's name, status "ok" or "failed", error a message or null, statistics an object of
    numbers (or null for a failed run), score (an estimator's campaign) null or an object whose
    campaign columns (navsense.score.campaign.CAMPAIGN_SCORE_KEYS) are numbers or null.
    FormatError naming the file otherwise."""
    from navsense.jsonfile import MAX_INPUT_BYTES, check_input_file

    check_input_file(path, "result file", FormatError, MAX_INPUT_BYTES)  # a FIFO never ends
    try:
        data = orjson.loads(path.read_bytes())
    except orjson.JSONDecodeError as exc:
        raise FormatError(f"{path}: not valid JSON ({exc}); a damaged result file") from None
    stem = path.stem
    if not isinstance(data, dict):
        raise FormatError(f"{path}: a result is a JSON object, got {type(data).__name__}")
    if data.get("run_id", stem) != stem:
        raise FormatError(f"{path}: run_id {data.get('run_id')!r} is not the file's name {stem}")
    if data.get("status") not in ("ok", "failed"):
        raise FormatError(f"{path}: status {data.get('status')!r} is not 'ok' or 'failed'")
    if not (data.get("error") is None or isinstance(data["error"], str)):
        raise FormatError(f"{path}: error {data['error']!r} is not a message (text) or null")
    stats = data.get("statistics")
    if not (_numbers(stats) or (stats is None and data["status"] == "failed")):
        raise FormatError(f"{path}: statistics is not an object of numbers")
    score = data.get("score")
    if score is not None:
        from navsense.score.campaign import CAMPAIGN_SCORE_KEYS

        if not (
            isinstance(score, dict) and _numbers({k: score.get(k) for k in CAMPAIGN_SCORE_KEYS})
        ):
            raise FormatError(f"{path}: score is not an object with numbers for its columns")
    return data
