"""Reading a finished run: :class:`Episode` (its episode.json, typed) and :class:`RunReader`
(its rows, either format, and ``ins.frames``).

The names are resolved when first used, so that a module which needs only the Episode (the
writer, navsense.simulate) does not load the readers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from navsense.runs.episode import Episode
    from navsense.runs.reader import RunReader

__all__ = ["Episode", "RunReader"]


def __getattr__(name: str):
    if name == "Episode":
        from navsense.runs.episode import Episode

        return Episode
    if name == "RunReader":
        from navsense.runs.reader import RunReader

        return RunReader
    raise AttributeError(f"module 'navsense.runs' has no attribute {name!r}")
