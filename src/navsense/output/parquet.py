"""Parquet writer of sensor rows (``--format parquet``): one file per sensor, chunk by chunk.

Columns are the JSON rows' keys with flattened names (``fix.latitude``; ``position_enu_m.0``,
``.1``, ``.2`` for the elements of a vector), the same values as the JSONL rows (both come from
the models' :func:`navsense.output.columns` definitions). Rows are buffered and written in row
groups of exactly ROW_GROUP_ROWS rows (the last one shorter), so the file's bytes do not depend on
the chunks the run was cut into; the schema is the first chunk's, later chunks are cast to it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["ParquetWriter", "ROW_GROUP_ROWS"]

# Rows a row group. Small enough that each file's last rows, written when the run ends, take a
# few milliseconds (an hour's 36 000 GNSS rows went out whole at the end with 65 536: 40 ms
# more on the run's critical path), large enough that the files are no larger.
ROW_GROUP_ROWS = 16_384


class ParquetWriter:
    """Append pyarrow tables to ``path``; a context manager (the run directory is atomic)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._writer: Any = None  # pyarrow.parquet.ParquetWriter, made with the first rows
        self._schema = None
        self._pending: list = []
        self._pending_rows = 0
        self.rows_written = 0

    def __enter__(self) -> ParquetWriter:
        if self.path.exists():
            raise FileExistsError(self.path)
        return self

    def write_table(self, table) -> None:
        """Append a table of rows (cast to the first table's schema)."""
        if table.num_rows == 0:
            return
        if self._schema is None:
            self._schema = table.schema
        elif table.schema != self._schema:
            table = table.cast(self._schema)
        self._pending.append(table)
        self._pending_rows += table.num_rows
        self.rows_written += table.num_rows
        if self._pending_rows >= ROW_GROUP_ROWS:
            self._flush(final=False)

    def _flush(self, final: bool) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        if not self._pending:
            return
        buffered = pa.concat_tables(self._pending)
        full = (buffered.num_rows // ROW_GROUP_ROWS) * ROW_GROUP_ROWS
        stop = buffered.num_rows if final else full
        if self._writer is None:
            self._writer = pq.ParquetWriter(
                self.path,
                self._schema,
                compression="snappy",
                use_dictionary=False,
                write_statistics=False,
            )
        for start in range(0, stop, ROW_GROUP_ROWS):
            self._writer.write_table(
                buffered.slice(start, min(ROW_GROUP_ROWS, stop - start)),
                row_group_size=ROW_GROUP_ROWS,
            )
        rest = buffered.slice(stop)
        self._pending = [rest] if rest.num_rows else []
        self._pending_rows = rest.num_rows

    def close(self) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        self._flush(final=True)
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        elif not self.path.exists():
            pq.write_table(pa.table({}), self.path)

    def __exit__(self, *exc) -> None:
        self.close()
