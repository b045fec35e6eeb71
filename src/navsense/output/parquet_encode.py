"""The bytes of a sensor Parquet file's row groups and footer, as pyarrow's writer writes them
with :class:`navsense.output.parquet.ParquetWriter`'s settings (snappy, no dictionary, no
statistics, V1 data pages), for float64 and int64 columns (with nulls or not) and strings of
one length without nulls, each column chunk one page.

Why: pyarrow copies every value twice before snappy reads it (into its plain encoder's buffer,
then into the page behind the definition levels) and encodes the levels value by value; here
the page is assembled from the column's own buffer in one copy and compressed by the same
snappy (pyarrow's Codec). An hour's three files, best of 5 (2026-12-05): ins.parquet 0.21 s ->
0.15 s of CPU, imu.parquet 0.046 -> 0.028 s, gnss.parquet about the same (its NMEA column
goes to pyarrow); the same bytes.

Format (Apache Parquet, parquet.thrift; Thrift compact protocol): ``PAR1``; per row group, per
column, a PageHeader and its page; the FileMetaData, its length (4 bytes, little-endian) and
``PAR1``. A V1 data page of n values holds the definition levels (4-byte length, then the RLE /
bit-packed hybrid of bit width 1: :func:`_levels`) and the present values, plain (doubles and
int64 little-endian; a string as its 4-byte length and its bytes). The FileMetaData's schema,
key-value metadata (``ARROW:schema``), created_by and column orders are pyarrow's, cut from the
footer it writes for the schema and no row (:func:`footer_template`); num_rows and the row
groups are encoded here. A column chunk of any other kind (booleans, int32, float, strings of
several lengths or with nulls, more than MAX_LEVEL_RUNS changes between null and value, a page
of PAGE_LIMIT bytes or MAX_PAGE_ROWS values, which pyarrow would split) is written by pyarrow
into memory, and its bytes and metadata moved to their place (:func:`pyarrow_chunks`).
tests/output/test_parquet_encode.py compares whole files with pyarrow's, byte for byte.
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np

__all__ = [
    "MAX_LEVEL_RUNS",
    "MAX_PAGE_ROWS",
    "PAGE_LIMIT",
    "WRITER_OPTIONS",
    "ColumnChunk",
    "encode_chunk",
    "footer",
    "footer_template",
    "pyarrow_chunks",
    "row_group",
    "varint",
]

PAGE_LIMIT = 1 << 20  # pyarrow's data_page_size: a page is cut once it holds this many bytes
MAX_PAGE_ROWS = 20_000  # pyarrow's max_rows_per_page: a page holds at most this many values
MAX_LEVEL_RUNS = 256  # a column of more changes between null and value goes to pyarrow

#: pyarrow.parquet.ParquetWriter's options of the sensor files (the bytes encoded here)
WRITER_OPTIONS: dict[str, Any] = {
    "compression": "snappy",
    "use_dictionary": False,
    "write_statistics": False,
}

_BYTES = [bytes((i,)) for i in range(128)]
_INT64, _DOUBLE, _BYTE_ARRAY = 2, 5, 6  # parquet physical types (Type)
_I32, _I64, _BINARY, _LIST, _STRUCT = 5, 6, 8, 9, 12  # compact protocol types


def varint(n: int) -> bytes:
    """Unsigned LEB128."""
    if n < 0x80:
        return _BYTES[n]
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _zigzag(n: int) -> bytes:
    """A signed integer (i16, i32, i64) as the compact protocol writes it."""
    return varint((n << 1) ^ (n >> 63))


def _list_header(size: int, kind: int) -> bytes:
    """A list's header: its size and its elements' type."""
    return bytes(((size << 4) | kind,)) if size < 15 else bytes((0xF0 | kind,)) + varint(size)


class ColumnChunk:
    """One column chunk of a row group: its bytes (page headers and pages) and the fields of its
    ColumnMetaData after ``data_page_offset`` is known (:meth:`metadata`)."""

    __slots__ = ("data", "head", "tail", "uncompressed", "compressed")

    def __init__(self, data: list, head: bytes, tail: bytes, uncompressed: int, compressed: int):
        self.data = data  # buffers written one after the other
        self.head = head  # ColumnMetaData fields 1 .. 7 (up to total_compressed_size)
        self.tail = tail  # its fields after data_page_offset (not its stop)
        self.uncompressed = uncompressed
        self.compressed = compressed

    def metadata(self, offset: int) -> bytes:
        """The ColumnChunk struct (file_offset 0, as pyarrow writes it) with the data page at
        ``offset``."""
        return b"\x26\x00\x1c" + self.head + b"\x26" + _zigzag(offset) + self.tail + b"\x00\x00"


def _page_header(n: int, uncompressed: int, compressed: int) -> bytes:
    """PageHeader of a V1 data page of ``n`` values, plain, RLE levels, empty statistics."""
    return (
        b"\x15\x00\x15"
        + _zigzag(uncompressed)
        + b"\x15"
        + _zigzag(compressed)
        + b"\x2c\x15"
        + _zigzag(n)
        + b"\x15\x00\x15\x06\x15\x06\x1c\x00\x00\x00"
    )


def _present(n: int) -> bytes:
    """V1 definition levels of ``n`` present values: their length, then one RLE run of ones."""
    ones = varint(n << 1) + b"\x01"
    return struct.pack("<I", len(ones)) + ones


def _levels(valid: np.ndarray | None, n: int) -> bytes | None:
    """V1 definition levels (1 present, 0 null): their length, then Arrow's RLE/bit-packed
    hybrid of bit width 1 (parquet's RleEncoder), or None past MAX_LEVEL_RUNS changes.

    The encoder buffers values in groups of 8: a group of 8 equal values starts a repeated run,
    which goes on to the next change of value (``varint(count << 1)``, then the value's byte);
    any other group is bit-packed into a literal run (one indicator byte ``groups << 1 | 1``,
    at most 63 groups, then a byte a group, least significant bit first); the next group starts
    where the last one ended. A last group of fewer than 8 values is a repeated run if they are
    equal and no literal run is open, else it is padded with zeros into the literal run."""
    if valid is None:
        return _present(n)
    changes = np.flatnonzero(valid[1:] != valid[:-1]) + 1
    if len(changes) > MAX_LEVEL_RUNS:
        return None
    ends = changes.tolist() + [n]
    out = bytearray()
    literal_at, groups, s, k = -1, 0, 0, 0  # the open literal run's indicator byte
    while s < n:
        while ends[k] <= s:
            k += 1
        run = ends[k] - s
        if run >= 8 or (s + run == n and literal_at < 0):  # a repeated run
            if literal_at >= 0:
                out[literal_at] = groups << 1 | 1
                literal_at, groups = -1, 0
            out += varint(run << 1) + bytes((int(valid[s]),))
            s += run
            continue
        if literal_at < 0:
            literal_at = len(out)
            out.append(0)
        bits = np.zeros(8, dtype=np.uint8)
        bits[: min(8, n - s)] = valid[s : s + 8]
        out.append(int(np.packbits(bits, bitorder="little")[0]))
        groups += 1
        s += 8
        if groups == 63:
            out[literal_at] = groups << 1 | 1
            literal_at, groups = -1, 0
    if literal_at >= 0:
        out[literal_at] = groups << 1 | 1
    return struct.pack("<I", len(out)) + bytes(out)


def _string_values(array, n: int) -> np.ndarray | None:
    """PLAIN byte arrays (4-byte length, then the bytes, value after value) of a null-free
    string array whose values all have one length (a frame name, a datum), or None (other
    strings, or a page of PAGE_LIMIT bytes or more)."""
    offsets = np.frombuffer(
        array.buffers()[1], dtype=np.int32, count=n + 1, offset=4 * array.offset
    )
    start, stop = int(offsets[0]), int(offsets[-1])
    width = (stop - start) // n
    if stop - start + 4 * n >= PAGE_LIMIT or np.any(np.diff(offsets) != width):
        return None
    data = np.frombuffer(array.buffers()[2], dtype=np.uint8, count=stop)[start:stop]
    rows = np.empty((n, 4 + width), dtype=np.uint8)
    rows[:, :4] = np.frombuffer(struct.pack("<i", width), dtype=np.uint8)
    rows[:, 4:] = data.reshape(n, width)
    return rows.reshape(-1)


def _validity(arrays: list, n: int) -> np.ndarray:
    """1 where a value is present, 0 where it is null (uint8), over the arrays one after the
    other."""
    out = np.empty(n, dtype=np.uint8)
    at = 0
    for a in arrays:
        k = len(a)
        bitmap = a.buffers()[0]
        if bitmap is None:
            out[at : at + k] = 1
        else:
            bits = np.frombuffer(bitmap, dtype=np.uint8)
            out[at : at + k] = np.unpackbits(bits, count=a.offset + k, bitorder="little")[
                a.offset :
            ]
        at += k
    return out


def _numeric_page(arrays: list, n: int, nulls: int) -> np.ndarray | None:
    """The page (levels, then the present values' 8 bytes each) of float64 or int64 arrays."""
    if n * 8 >= PAGE_LIMIT:
        return None
    valid = _validity(arrays, n) if nulls else None
    levels = _levels(valid, n)
    if levels is None:
        return None
    page = np.empty(len(levels) + 8 * (n - nulls), dtype=np.uint8)
    page[: len(levels)] = np.frombuffer(levels, dtype=np.uint8)
    start, at = len(levels), 0
    for a in arrays:
        if len(a):
            values = np.frombuffer(
                a.buffers()[1], dtype=np.uint64, count=len(a), offset=8 * a.offset
            )
            if valid is not None and a.null_count:
                values = values[valid[at : at + len(a)].view(bool)]
            page[start : start + 8 * len(values)] = values.view(np.uint8)
            start += 8 * len(values)
            at += len(a)
    return page


def _string_page(arrays: list, n: int) -> np.ndarray | None:
    """The page (levels, then the values) of null-free string arrays of one length."""
    import pyarrow as pa

    values = _string_values(arrays[0] if len(arrays) == 1 else pa.concat_arrays(arrays), n)
    if values is None:
        return None
    levels = _present(n)
    page = np.empty(len(levels) + values.size, dtype=np.uint8)
    page[: len(levels)] = np.frombuffer(levels, dtype=np.uint8)
    page[len(levels) :] = values
    return page


def encode_chunk(arrays: list, name: bytes, codec) -> ColumnChunk | None:
    """The column chunk of a column's pyarrow arrays (its chunks in a row group, one after the
    other) as pyarrow would write it, or None when it is not of the kinds of this module (the
    module docstring)."""
    import pyarrow as pa

    if len(arrays) > 2:  # small chunks (GNSS: ~1 000 rows): one array costs less Python
        arrays = [pa.concat_arrays(arrays)]
    n = sum(len(a) for a in arrays)
    nulls = sum(a.null_count for a in arrays)
    if n == 0 or n > MAX_PAGE_ROWS:
        return None
    kind = arrays[0].type
    histogram = b""
    page: np.ndarray | None = None
    if pa.types.is_float64(kind) or pa.types.is_int64(kind):
        physical = _DOUBLE if pa.types.is_float64(kind) else _INT64
        page = _numeric_page(arrays, n, nulls)
    elif pa.types.is_string(kind) and not nulls:
        physical = _BYTE_ARRAY
        page = _string_page(arrays, n)
        if page is not None:  # unencoded_byte_array_data_bytes: the strings' bytes
            histogram = b"\x16" + _zigzag(page.size - len(_present(n)) - 4 * n)
    if page is None:
        return None
    packed = codec.compress(page, asbytes=False)
    header = _page_header(n, page.size, packed.size)
    uncompressed = len(header) + page.size
    compressed = len(header) + packed.size
    head = (
        b"\x15"
        + _zigzag(physical)
        + b"\x19\x25\x06\x00"  # encodings [RLE, PLAIN]
        + b"\x19\x18"
        + varint(len(name))
        + name
        + b"\x15\x02"  # codec SNAPPY
        + b"\x16"
        + _zigzag(n)
        + b"\x16"
        + _zigzag(uncompressed)
        + b"\x16"
        + _zigzag(compressed)
    )
    tail = (
        b"\x49\x1c\x15\x00\x15\x00\x15\x02\x00"  # encoding_stats [(DATA_PAGE, PLAIN, 1)]
        + b"\x3c"  # size_statistics
        + (histogram + b"\x19" if histogram else b"\x29")
        + b"\x06\x19\x26"  # repetition histogram [], definition histogram [nulls, values]
        + _zigzag(nulls)
        + _zigzag(n - nulls)
        + b"\x00"
    )
    return ColumnChunk([header, packed], head, tail, uncompressed, compressed)


# --------------------------------------------------------------------------- metadata parsing


class _Reader:
    """Just enough of a compact-protocol reader to find fields' byte spans."""

    def __init__(self, data: bytes, pos: int = 0) -> None:
        self.data = data
        self.pos = pos

    def varint(self) -> int:
        shift = result = 0
        while True:
            byte = self.data[self.pos]
            self.pos += 1
            result |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                return result

    def skip(self, kind: int) -> None:
        if kind in (1, 2):
            return
        if kind == 3:
            self.pos += 1
        elif kind in (4, _I32, _I64):
            self.varint()
        elif kind == 7:
            self.pos += 8
        elif kind == _BINARY:
            size = self.varint()
            self.pos += size
        elif kind in (_LIST, 10):
            header = self.data[self.pos]
            self.pos += 1
            size = header >> 4 if header >> 4 != 15 else self.varint()
            for _ in range(size):
                if header & 15 in (1, 2):
                    self.pos += 1
                else:
                    self.skip(header & 15)
        elif kind == _STRUCT:
            self.fields()
        else:
            raise ValueError(f"thrift type {kind}")

    def fields(self) -> list[tuple[int, int, int, int]]:
        """(id, type, start of its header, end) of a struct's fields; ends after its stop."""
        out: list[tuple[int, int, int, int]] = []
        last = 0
        while True:
            start = self.pos
            header = self.data[self.pos]
            self.pos += 1
            if header == 0:
                return out
            kind, delta = header & 15, header >> 4
            if delta:
                last += delta
            else:
                value = self.varint()
                last = (value >> 1) ^ -(value & 1)
            self.skip(kind)
            out.append((last, kind, start, self.pos))


def footer_template(schema) -> tuple[bytes, bytes]:
    """pyarrow's FileMetaData of ``schema`` and no row, cut around num_rows and row_groups:
    (the bytes before num_rows' field header, the bytes from key_value_metadata's on)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = pa.BufferOutputStream()
    pq.ParquetWriter(sink, schema, **WRITER_OPTIONS).close()
    data = sink.getvalue().to_pybytes()
    size = struct.unpack("<I", data[-8:-4])[0]
    meta = data[-8 - size : -8]
    fields = {f[0]: f for f in _Reader(meta).fields()}
    if sorted(fields)[:4] != [1, 2, 3, 4] or 5 not in fields:
        raise ValueError("unexpected FileMetaData")
    return meta[: fields[3][2]], meta[fields[5][2] :]


def pyarrow_chunks(table) -> list[ColumnChunk]:
    """The column chunks of ``table`` as one row group, written by pyarrow into memory (the
    columns this module does not encode); their metadata is pyarrow's, moved to where the
    chunks go."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = pa.BufferOutputStream()
    writer = pq.ParquetWriter(sink, table.schema, **WRITER_OPTIONS)
    writer.write_table(table, row_group_size=max(1, table.num_rows))
    writer.close()
    data = sink.getvalue().to_pybytes()
    size = struct.unpack("<I", data[-8:-4])[0]
    end = len(data) - 8
    reader = _Reader(data, end - size)
    meta = {f[0]: f for f in reader.fields()}
    groups = _Reader(data, meta[4][2] + 1)
    header = data[groups.pos]
    groups.pos += 1
    if (header >> 4) != 1:
        raise ValueError("expected one row group")
    group = {f[0]: f for f in groups.fields()}
    columns = _Reader(data, group[1][2] + 1)
    header = data[columns.pos]
    columns.pos += 1
    count = header >> 4 if header >> 4 != 15 else columns.varint()
    out: list[ColumnChunk] = []
    for _ in range(count):
        chunk = {f[0]: f for f in columns.fields()}
        _, _, start, stop = chunk[3]
        inner = _Reader(data, start + 1)
        fields = {f[0]: f for f in inner.fields()}
        plain = data[chunk[2][2] : chunk[2][3]] == b"\x26\x00"  # file_offset 0
        if set(fields) & {8, 10, 11, 14, 15} or set(chunk) != {2, 3} or not plain:
            raise ValueError("unexpected ColumnMetaData")  # index, dictionary or bloom offsets
        offset_field = fields[9]
        value = _Reader(data, offset_field[2] + 1)
        page_at = value.varint()
        page_at = (page_at >> 1) ^ -(page_at & 1)
        compressed = _Reader(data, fields[7][2] + 1).varint()
        compressed = (compressed >> 1) ^ -(compressed & 1)
        uncompressed = _Reader(data, fields[6][2] + 1).varint()
        uncompressed = (uncompressed >> 1) ^ -(uncompressed & 1)
        head = data[start + 1 : offset_field[2]]
        tail = data[offset_field[3] : stop - 1]
        out.append(
            ColumnChunk(
                [data[page_at : page_at + compressed]], head, tail, uncompressed, compressed
            )
        )
    return out


def footer(prefix: bytes, suffix: bytes, num_rows: int, groups: list[bytes]) -> bytes:
    """The FileMetaData: pyarrow's prefix, num_rows, the encoded row groups, pyarrow's rest."""
    return (
        prefix
        + b"\x16"
        + _zigzag(num_rows)
        + b"\x19"
        + _list_header(len(groups), _STRUCT)
        + b"".join(groups)
        + suffix
    )


def row_group(chunks: list[ColumnChunk], offsets: list[int], num_rows: int) -> bytes:
    """The RowGroup struct of column chunks written at ``offsets``."""
    body = _list_header(len(chunks), _STRUCT) + b"".join(
        c.metadata(at) for c, at in zip(chunks, offsets)
    )
    total = sum(c.uncompressed for c in chunks)
    compressed = sum(c.compressed for c in chunks)
    return (
        b"\x19"
        + body
        + b"\x16"
        + _zigzag(total)
        + b"\x16"
        + _zigzag(num_rows)
        + b"\x26"
        + _zigzag(offsets[0])
        + b"\x16"
        + _zigzag(compressed)
        + b"\x00"
    )
