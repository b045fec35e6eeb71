"""Reading a run directory: episode.json and each sensor's rows, whichever format wrote them.

The one reader of what ``navsense simulate`` wrote, for every reader of a run (``navsense
report``, ``navsense export mcap``, :func:`navsense.runs.stats.run_statistics`, the campaigns,
``navsense score``)::

    run = RunReader("runs/acre-loop-20260923-150000")
    run.episode                                   # episode.json
    gnss = run.columns("gnss", {"sample_time_s": FLOAT, "fix_type": TEXT,
                                "position_enu_m": vector(3), "satellites_used": INT})
    frames, times = run.ins_epochs()              # ins.frames (m, 40) and the rows' times (m, 3)
    got, t = run.ins_fields(["InsUtmE", "InsUtmN"])   # only those fields, each (m,); times (m, 1)

A sensor's rows are ``<sensor>.jsonl`` or ``<sensor>.parquet``: episode.json's
``output_format`` says which, and a sensor whose file of that format is missing is read from the
other one if that is there (a run converted by hand, or written before the key existed). Both hold the same values
(:mod:`navsense.output.columns`), so a column reads back as the same float64 bits from either:
JSON Lines through Arrow's JSON reader with an explicit schema of the columns asked for (the
other keys are skipped; one or two scalar keys are found in the raw bytes instead, faster on
long rows), Parquet reading only those columns. A column is named by its dotted
key (``fix.latitude``, ``position_enu_m``), whatever the file's flattening (``position_enu_m.0``,
``.1``, ``.2`` in Parquet), and read as one of:

- :data:`FLOAT`: (m,) float64, NaN where the row has null;
- :data:`INT`: (m,) int64 (float64 with NaN if a row has null);
- :data:`TEXT`: (m,) object array of str (None where null);
- ``vector(k)``: (m, k) float64, a row of NaN where the row has null.

Errors are :class:`~navsense.errors.FormatError` naming the run directory or the file: not a run
directory, no episode.json, a sensor's rows missing, a column missing or of another shape.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from navsense.errors import FormatError
from navsense.runs.episode import EPISODE_FILE, Episode
from navsense.runs.kinds import (
    FLOAT,
    INT,
    TEXT,
    TIME_KEYS,
    checked,
    columns_of_rows,
    first_line,
    vector,
)

__all__ = [
    "FLOAT",
    "INT",
    "TEXT",
    "RunReader",
    "TIME_KEYS",
    "columns_of_rows",
    "vector",
    "EPISODE_FILE",
    "ROW_FORMATS",
]

ROW_FORMATS = ("jsonl", "parquet")  # episode.json's output_format = the rows' file suffix


class RunReader:
    """A run directory written by :func:`navsense.simulate.simulate` (module docstring)."""

    def __init__(self, run_dir: str | os.PathLike, *, cache: bool = False) -> None:
        """``cache``: keep every column and the INS frames read, so that a second request
        (another reader of the same run in the same process: the report's plots, then its
        statistics) costs nothing; the arrays returned are then shared, not copies."""
        self._cache: dict | None = {} if cache else None
        self.path = Path(run_dir)
        if not self.path.is_dir():
            raise FormatError(f"{self.path}: not a run directory")
        self.episode: Episode = Episode.read(self.path)
        fmt = self.episode.output_format
        if fmt not in ROW_FORMATS:
            raise FormatError(
                f"{self.path / EPISODE_FILE}: output_format = {fmt!r} is not one of "
                f"{', '.join(ROW_FORMATS)}"
            )
        self.format: str = fmt

    def file(self, sensor: str) -> Path:
        """The file of ``sensor``'s rows: ``<sensor>.<output_format>``, else the other format's
        file if only that one is there (the first path when neither is)."""
        path = self.path / f"{sensor}.{self.format}"
        if path.is_file():
            return path
        for fmt in ROW_FORMATS:
            other = self.path / f"{sensor}.{fmt}"
            if other.is_file():
                return other
        return path

    def enabled(self, sensor: str) -> bool | None:
        """episode.json's ``config.<sensor>.enabled`` (None when it does not say)."""
        return self.episode.enabled(sensor)

    def has(self, sensor: str) -> bool:
        """True when the run has rows of ``sensor`` (the sensor was on). A sensor that
        episode.json says was on but whose rows are missing is a damaged run (FormatError)."""
        path = self.file(sensor)
        if path.is_file():
            return True
        if os.path.lexists(path) or self.enabled(sensor):
            raise FormatError(
                f"{self.path}: {path.name} is missing or not a file, but episode.json has "
                f"{sensor}.enabled true: a damaged run directory"
            )
        return False

    def require(self, sensor: str, why: str = "") -> Path:
        """The file of ``sensor``'s rows; FormatError naming it (and ``why``) when it is missing."""
        path = self.file(sensor)
        if not path.is_file():
            raise FormatError(f"{self.path}: no {path.name} ({sensor} off){why}")
        return path

    def keys(self, sensor: str) -> list[str]:
        """The rows' keys in file order, dotted as the layout names them (``fix.latitude``), one
        per vector (``position_enu_m``, not its elements); [] for a file without rows."""
        path = self.require(sensor)
        if path.suffix == ".parquet":
            import pyarrow as pa
            import pyarrow.parquet as pq

            try:
                names = pq.read_schema(path).names
            except (pa.ArrowException, OSError) as exc:
                raise FormatError(f"{path}: not a Parquet file ({first_line(exc)})") from None
            out: list[str] = []
            for name in names:
                head, _, tail = name.rpartition(".")
                key = head if tail.isdigit() and head else name
                if key not in out:
                    out.append(key)
            return out
        with open(path, "rb") as f:
            first = f.readline()
        if not first.strip():
            return []
        try:
            row = orjson.loads(first)
        except orjson.JSONDecodeError as exc:
            raise FormatError(f"{path}: line 1 is not JSON ({exc})") from None
        out = []

        def walk(node: Mapping, prefix: str) -> None:
            for k, v in node.items():
                if isinstance(v, Mapping):
                    walk(v, f"{prefix}{k}.")
                else:
                    out.append(f"{prefix}{k}")

        walk(row, "")
        return out

    def columns(self, sensor: str, spec: Mapping[str, Any]) -> dict[str, np.ndarray]:
        """The columns ``spec`` (dotted key -> FLOAT, INT, TEXT or vector(k)) of ``sensor``'s
        rows, as numpy arrays (module docstring)."""
        path = self.require(sensor)
        cache = self._cache
        if cache is None:
            return checked(path, spec, _read_columns(path, spec))
        missing = {k: v for k, v in spec.items() if (sensor, k, v) not in cache}
        if missing:
            for k, column in checked(path, missing, _read_columns(path, missing)).items():
                cache[(sensor, k, missing[k])] = column
        return {k: cache[(sensor, k, v)] for k, v in spec.items()}

    def times(self, sensor: str, keys: tuple[str, ...] = TIME_KEYS) -> np.ndarray:
        """(m, len(keys)) float64: by default ``sample_time_s``, ``available_time_s``,
        ``delivery_time_s`` (:data:`TIME_KEYS`)."""
        got = self.columns(sensor, dict.fromkeys(keys, FLOAT))
        return np.stack([got[k] for k in keys], axis=-1).reshape(-1, len(keys))

    def has_ins_frames(self) -> bool:
        """True when the run has ``ins.frames`` (the INS was on); FormatError when episode.json
        says the INS was on and the file is missing."""
        path = self.path / "ins.frames"
        if path.is_file():
            return True
        if os.path.lexists(path) or self.enabled("ins"):
            raise FormatError(
                f"{self.path}: ins.frames is missing or not a file, but episode.json has "
                "ins.enabled true: a damaged run directory"
            )
        return False

    def ins_epochs(self, times: tuple[str, ...] = TIME_KEYS) -> tuple[np.ndarray, np.ndarray]:
        """The INS epochs: ``ins.frames`` as (m, 40) float64 and their rows' times (m, 3; or
        the ``times`` keys asked for: ``("sample_time_s",)`` reads the rows' one key), the same
        m (FormatError when they differ)."""
        from navsense.runs.ins_frames import read_ins_frames

        frames_path = self.path / "ins.frames"
        if not frames_path.is_file():
            raise FormatError(f"{self.path}: no ins.frames (ins off)")
        if self._cache is None:
            frames = read_ins_frames(frames_path)
        else:
            if "ins.frames" not in self._cache:
                self._cache["ins.frames"] = read_ins_frames(frames_path)
            frames = self._cache["ins.frames"]
        return frames, self._ins_times(len(frames), times)

    def ins_fields(
        self, names, times: tuple[str, ...] = ("sample_time_s",)
    ) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """The INS epochs' fields ``names`` (of ``ins.frames``, navsense.output.frames
        ``INS_FIELDS``), each a contiguous (m,) float64 array, and their rows' times (m,
        len(times)): :meth:`ins_epochs` for a reader that uses some fields only
        (:func:`navsense.runs.ins_frames.read_ins_fields`: memory for those alone, one pass over
        the file, every field checked). With the cache, a field read once is not read again,
        and a request for fields not yet read reads only those."""
        from navsense.runs.ins_frames import read_ins_fields

        names = list(dict.fromkeys(names))  # each once
        if not names:
            raise ValueError("ins_fields: no field asked for")
        frames_path = self.path / "ins.frames"
        if not frames_path.is_file():
            raise FormatError(f"{self.path}: no ins.frames (ins off)")
        cache = self._cache
        if cache is None:
            got = read_ins_fields(frames_path, names)
        else:
            missing = [n for n in names if ("ins.frames", n) not in cache]
            if missing:
                for n, column in read_ins_fields(frames_path, missing).items():
                    cache[("ins.frames", n)] = column
            got = {n: cache[("ins.frames", n)] for n in names}
        return got, self._ins_times(len(got[names[0]]), times)

    def _ins_times(self, m: int, times: tuple[str, ...]) -> np.ndarray:
        """The INS rows' ``times``, FormatError unless there are ``m`` (the frames' epochs)."""
        rows = self.times("ins", times)
        if m != len(rows):
            raise FormatError(
                f"{self.path}: ins.frames has {m} epochs but {self.file('ins').name} "
                f"{len(rows)} rows"
            )
        return rows


def _read_columns(path: Path, spec: Mapping[str, Any]) -> dict[str, np.ndarray]:
    if path.suffix == ".parquet":
        from navsense.runs.parquet import parquet_columns

        return parquet_columns(path, spec)
    from navsense.runs.jsonl import jsonl_columns

    return jsonl_columns(path, spec)
