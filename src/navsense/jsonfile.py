"""JSON input files (sites, waypoint routes, scenarios): read and parse with errors that name the
file, and the line and column of a syntax error."""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["parse_json", "read_json"]


def parse_json(text: str, source: str, error: type[Exception]):
    """The JSON value of ``text``; ``error`` "SOURCE: line L column C: message" if it is not JSON."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise error(f"{source}: line {exc.lineno} column {exc.colno}: {exc.msg}") from None


def read_json(path: str | Path, what: str, error: type[Exception]):
    """The JSON value of the file ``path`` (UTF-8); ``error`` "PATH: cannot read the WHAT (reason)"
    if it cannot be read, as :func:`parse_json` if it is not JSON."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise error(f"{path}: cannot read the {what} ({exc.strerror})") from None
    return parse_json(text, str(path), error)
