"""Parquet writer of sensor rows (``--format parquet``): one file per sensor, chunk by chunk.

Columns are the JSON rows' keys with flattened names (``fix.latitude``; ``position_enu_m.0``,
``.1``, ``.2`` for the elements of a vector), the same values as the JSONL rows (both come from
the models' :func:`navsense.output.columns` definitions). Rows are buffered and written in row
groups of exactly ROW_GROUP_ROWS rows (the last one shorter), so the file's bytes do not depend on
the chunks the run was cut into; the schema is the first chunk's, later chunks are cast to it.

The file's bytes are those of pyarrow's ParquetWriter with snappy, no dictionary and no
statistics (parquet_encode.WRITER_OPTIONS); :mod:`navsense.output.parquet_encode` writes the
pages of most columns itself, in less CPU, and leaves the others to pyarrow.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

from navsense.output import parquet_encode as encode

__all__ = ["ParquetWriter", "ROW_GROUP_ROWS"]

# Rows a row group. Small enough that each file's last rows, written when the run ends, take a
# few milliseconds (an hour's 36 000 GNSS rows went out whole at the end with 65 536: 40 ms
# more on the run's critical path), large enough that the files are no larger.
ROW_GROUP_ROWS = 16_384


class ParquetWriter:
    """Append pyarrow tables to ``path``; a context manager (the run directory is atomic)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._file: Any = None  # the open file, from the first row group on
        self._schema: Any = None
        self._footer: tuple[bytes, bytes] = (b"", b"")  # parquet_encode.footer_template
        self._codec: Any = None
        self._names: list[bytes] = []
        self._at = 0  # bytes written
        self._groups: list[bytes] = []  # the row groups' metadata
        self._rows_out = 0
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

        if not self._pending:
            return
        buffered = pa.concat_tables(self._pending)
        full = (buffered.num_rows // ROW_GROUP_ROWS) * ROW_GROUP_ROWS
        stop = buffered.num_rows if final else full
        if stop and self._file is None:
            self._open()
        for start in range(0, stop, ROW_GROUP_ROWS):
            self._write_group(buffered.slice(start, min(ROW_GROUP_ROWS, stop - start)))
        rest = buffered.slice(stop)
        self._pending = [rest] if rest.num_rows else []
        self._pending_rows = rest.num_rows

    def _open(self) -> None:
        import pyarrow as pa

        assert self._schema is not None
        self._footer = encode.footer_template(self._schema)
        self._codec = pa.Codec("snappy")
        self._names = [name.encode("utf-8") for name in self._schema.names]
        self._file = open(self.path, "wb")  # noqa: SIM115 (closed by close())
        self._file.write(b"PAR1")
        self._at = 4

    def _write_group(self, table) -> None:
        """One row group: the columns this writer encodes (output.parquet_encode), the others
        by pyarrow, at the end of the file; its metadata kept for the footer."""
        encoded = [
            encode.encode_chunk(column.chunks, name, self._codec)
            for column, name in zip(table.columns, self._names)
        ]
        others = [j for j, chunk in enumerate(encoded) if chunk is None]
        by_pyarrow = encode.pyarrow_chunks(table.select(others)) if others else []
        chunks = [chunk or by_pyarrow[others.index(j)] for j, chunk in enumerate(encoded)]
        offsets = []
        for chunk in chunks:
            offsets.append(self._at)
            for data in chunk.data:
                self._file.write(data)
            self._at += chunk.compressed
        self._groups.append(encode.row_group(chunks, offsets, table.num_rows))
        self._rows_out += table.num_rows

    def close(self) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            self._flush(final=True)
            if self._file is not None:
                meta = encode.footer(*self._footer, self._rows_out, self._groups)
                self._file.write(meta + struct.pack("<I", len(meta)) + b"PAR1")
        finally:
            if self._file is not None:
                self._file.close()
                self._file = None
        if not self._groups and not self.path.exists():
            pq.write_table(pa.table({}), self.path)

    def __exit__(self, *exc) -> None:
        self.close()
