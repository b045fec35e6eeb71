"""Writing a truth log (CSV or Parquet, with its site and start time): :class:`TruthWriter` (block
by block) and :func:`write_truth` (a whole TruthStates). navsense.truth.io's docstring tells the
format.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from navsense.errors import TruthError
from navsense.truth.logfiles import (
    _NO_SITE,
    MIN_TRUTH_ROWS,
    RATE_KEY,
    SITE_KEY,
    START_UTC_KEY,
    _format_of,
    _metadata,
    truth_sidecar,
)
from navsense.truth.states import PHYSICS_HZ, TRUTH_COLUMNS, TruthStates

if TYPE_CHECKING:
    from navsense.site import Site

__all__ = ["TruthWriter", "write_truth"]


class TruthWriter:
    """Write a truth log chunk by chunk (``.csv`` or ``.parquet`` from the suffix).

    A context manager: the rows go to a temporary file next to ``path`` that is renamed to
    ``path`` on a clean exit and removed on an error. It refuses to overwrite an existing file
    unless ``overwrite=True``. Chunks must be consecutive physics steps (checked).

    ``site`` (a Site, an embedded site's name or a site file's path relative to the log's
    folder, or None for a site without georeference) and
    ``start_utc``: the log's site and start time (module docstring), in the Parquet metadata or
    the CSV sidecar ``<stem>.truth.json``. A CSV log written without them removes its old
    sidecar (it described the file it replaces).
    """

    def __init__(
        self,
        path: str | os.PathLike,
        overwrite: bool = True,
        *,
        site: Site | str | None = _NO_SITE,
        start_utc: str | None = None,
    ) -> None:
        self.path = Path(path)
        self.kind = _format_of(self.path)
        if self.path.exists() and not overwrite:
            raise TruthError(f"{self.path}: exists; refusing to overwrite it")
        self._meta = _metadata(site, start_utc, site is not _NO_SITE)
        self._tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        self._writer: pq.ParquetWriter | None = None
        self._file: BinaryIO | None = None
        self._next_step: int | None = None
        self.rows = 0

    def __enter__(self) -> TruthWriter:
        try:
            self._file = open(self._tmp, "wb")
        except OSError as exc:
            raise TruthError(f"{self.path}: cannot write the truth log ({exc.strerror})") from None
        except BaseException:  # a stop as the file was made (no __exit__ follows)
            self._tmp.unlink(missing_ok=True)
            raise
        return self

    def _table(self, truth: TruthStates) -> pa.Table:
        cols = [
            truth.t_s,
            *truth.p_m.T,
            *truth.q_xyzw.T,
            *truth.v_mps.T,
            *truth.w_radps.T,
            *truth.c_m.T,
        ]
        arrays = [pa.array(np.ascontiguousarray(c, dtype=np.float64)) for c in cols]
        if self.kind == "csv":
            arrays.append(pa.array(np.asarray(truth.reset, dtype=np.int8)))
        else:
            arrays.append(pa.array(np.asarray(truth.reset, dtype=np.bool_)))
        return pa.Table.from_arrays(arrays, names=list(TRUTH_COLUMNS))

    def write(self, truth: TruthStates) -> None:
        """Append the rows of ``truth`` (the next consecutive physics steps)."""
        if self._file is None:
            raise TruthError(f"{self.path}: TruthWriter.write outside its with-block")
        if self._next_step is not None and truth.step0 != self._next_step:
            raise TruthError(
                f"{self.path}: chunk starts at step {truth.step0}, expected "
                f"{self._next_step} (chunks must be consecutive)"
            )
        if len(truth) == 0:
            return
        table = self._table(truth)
        if self._writer is None:
            if truth.rate_hz != PHYSICS_HZ:  # the log's rate (issue 30); 120 Hz: as before
                self._meta[RATE_KEY] = json.dumps(float(truth.rate_hz))
            if self.kind == "csv":
                self._file.write((",".join(TRUTH_COLUMNS) + "\n").encode())
                self._writer = pacsv.CSVWriter(
                    self._file,
                    table.schema,
                    write_options=pacsv.WriteOptions(include_header=False, quoting_style="needed"),
                )
            else:
                schema = table.schema.with_metadata(self._meta) if self._meta else table.schema
                self._writer = pq.ParquetWriter(self._file, schema)
        self._writer.write_table(table)
        self._next_step = truth.step0 + len(truth)
        self.rows += len(truth)

    def __exit__(self, exc_type, exc, tb) -> None:
        try:
            if self._writer is not None:
                self._writer.close()
            if self._file is not None:
                self._file.close()
        except BaseException:
            self._tmp.unlink(missing_ok=True)
            raise
        if exc_type is not None:
            self._tmp.unlink(missing_ok=True)
            return
        if self.rows == 0:
            self._tmp.unlink(missing_ok=True)
            raise TruthError(
                f"{self.path}: no rows to write; a truth log needs at least "
                f"{MIN_TRUTH_ROWS} physics steps"
            )
        if self.kind == "csv":
            self._write_sidecar()
        os.replace(self._tmp, self.path)

    def _write_sidecar(self) -> None:
        """The CSV log's sidecar (before the log is renamed: a log never lacks its site)."""
        sidecar = truth_sidecar(self.path)
        if not self._meta:
            sidecar.unlink(missing_ok=True)
            return
        body = {
            {SITE_KEY: "site", START_UTC_KEY: "start_utc", RATE_KEY: "rate_hz"}[k]: json.loads(v)
            for k, v in self._meta.items()
        }
        tmp = sidecar.with_name(f".{sidecar.name}.{os.getpid()}.tmp")
        try:
            tmp.write_text(json.dumps(body, indent=1) + "\n", encoding="utf-8")
            os.replace(tmp, sidecar)
        except BaseException:
            tmp.unlink(missing_ok=True)
            self._tmp.unlink(missing_ok=True)
            raise


def write_truth(
    truth: TruthStates,
    path: str | os.PathLike,
    *,
    site: Site | str | None = _NO_SITE,
    start_utc: str | None = None,
) -> Path:
    """Write ``truth`` to ``path`` (``.csv`` or ``.parquet``), replacing it atomically, with the
    log's ``site`` and ``start_utc`` when given (:class:`TruthWriter`). Returns the path."""
    path = Path(path)
    with TruthWriter(path, site=site, start_utc=start_utc) as writer:
        writer.write(truth)
    return path
