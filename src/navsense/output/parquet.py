"""Parquet writer of sensor rows (``--format parquet``): one file per sensor, chunk by chunk.

Columns are the JSON rows' keys with flattened names (``fix.latitude``; ``position_enu_m.0``,
``.1``, ``.2`` for the elements of a vector), the same values as the JSONL rows (both come from
the models' :func:`navsense.output.columns` definitions). Each chunk of a run is one row group;
the schema is the first chunk's, and later chunks are cast to it.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["ParquetWriter", "read_parquet_rows"]


class ParquetWriter:
    """Append pyarrow tables to ``path``; a context manager (the run directory is atomic)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._writer = None
        self.rows_written = 0

    def __enter__(self) -> "ParquetWriter":
        if self.path.exists():
            raise FileExistsError(self.path)
        return self

    def write_table(self, table) -> None:
        import pyarrow.parquet as pq

        if table.num_rows == 0:
            return
        if self._writer is None:
            self._writer = pq.ParquetWriter(self.path, table.schema, compression="snappy",
                                            use_dictionary=False, write_statistics=False)
        elif table.schema != self._writer.schema:
            table = table.cast(self._writer.schema)
        self._writer.write_table(table)
        self.rows_written += table.num_rows

    def close(self) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        if self._writer is not None:
            self._writer.close()
            self._writer = None
        elif not self.path.exists():
            pq.write_table(pa.table({}), self.path)

    def __exit__(self, *exc) -> None:
        self.close()


def read_parquet_rows(path: str | Path) -> dict:
    """All columns of a sensor's Parquet file as a dict of Python lists."""
    import pyarrow.parquet as pq

    return pq.read_table(path).to_pydict()
