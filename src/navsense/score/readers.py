"""The one entry to the estimate readers: the file's format (from ``--format`` or its
extension) picks :mod:`navsense.score.tum`, :mod:`navsense.score.csvfile` or
:mod:`navsense.score.bag`; each builds a :class:`navsense.score.estimate.Estimate`.

Apart from :mod:`navsense.score.estimate` so the readers, which import the Estimate, are not
imported back by it (no import cycle).
"""

from __future__ import annotations

import os
from pathlib import Path

from navsense.errors import ConfigError, FormatError
from navsense.jsonfile import check_input_file
from navsense.score.estimate import Estimate, format_of

__all__ = ["read_estimate"]


def read_estimate(
    path: str | Path, fmt: str | None, *, start_ns: int, topic: str | None = None
) -> Estimate:
    """Read an estimate file (``fmt`` tum, csv, mcap or None: from the extension).

    ``start_ns``: the run's start_utc in UNIX nanoseconds (to turn UNIX times into episode
    time); ``topic``: the bag's topic (mcap only, required there).
    """
    path = Path(path)
    kind = format_of(path, fmt)
    if not os.path.lexists(path):
        raise FormatError(f"{path}: the estimate file is not found")
    check_input_file(path, "estimate", FormatError)
    if kind != "mcap" and topic is not None:
        raise ConfigError(f"--topic {topic}: only an mcap estimate has topics ({path} is {kind})")
    if kind == "tum":
        from navsense.score.tum import read_tum

        return read_tum(path, start_ns=start_ns)
    if kind == "csv":
        from navsense.score.csvfile import read_csv

        return read_csv(path, start_ns=start_ns)
    from navsense.score.bag import read_topic

    return read_topic(path, topic, start_ns=start_ns)
