"""Truth logs on disk: CSV and Parquet readers (whole or streamed in chunks) and writers.

Format (DESIGN.md, "Data contracts"): one row per physics step, the 18 columns of
:data:`~navsense.truth.states.TRUTH_COLUMNS`::

    t_s, px_m, py_m, pz_m, qx, qy, qz, qw, vx_mps, vy_mps, vz_mps,
    wx_radps, wy_radps, wz_radps, cx_m, cy_m, cz_m, reset

- **Columns.** Exactly these 18 names, each once; the order is free (columns are matched by
  name; the writers use the order above). A missing, unknown or repeated column is an error.
- **CSV.** Comma separated, a header line, one row per line (no quoted multi-line fields).
  Numbers in any decimal or exponent notation; ``reset`` is ``0``/``1`` or ``true``/``false``
  (also ``True``/``TRUE``/``False``/``FALSE``, ``0.0``/``1.0``). Empty lines are skipped. Line
  numbers in messages count the header as line 1, as an editor shows them.
- **Parquet.** The same column names; numeric columns (any float or integer type), ``reset``
  boolean or integer 0/1. Messages name the data row, the first row being row 1.

Validation (specification "Frames and Sample Times", DESIGN.md invariant 4; the rules in
:mod:`navsense.truth.rules`), in row order; the first row that breaks a rule is reported with the
file, its line (row), the value and the rule:

- every value finite (no NaN, no infinity, no empty field) and within its limit: t_s up to
  :data:`MAX_TIME_S` (1e8 s), positions within :data:`MAX_POSITION_M` (1e9 m) of the grid's
  origin (a site's georeference bounds it further), velocity components up to
  :data:`MAX_SPEED_MPS` (1e4 m/s), angular rates up to :data:`MAX_RATE_RADPS` (1e3 rad/s);
- time on the physics clock: with ``k0 = round(t_0 rate_hz) >= 0``, row i must have
  ``|t_i - (k0 + i) / rate_hz| <= 1e-6 s`` (consecutive steps, no gap, no repeat);
- quaternion of unit norm: ``| |q| - 1 | <= 1e-6``;
- ``reset`` 0 or 1;
- at least 3 rows (the IMU's first row is at the third physics step).

The returned :class:`TruthStates` holds ``step0 = k0``; its times are recomputed exactly as
``k / rate_hz`` (the file's t_s is only checked). The other values are kept bit for bit:
quaternions are not renormalised.

The writers format floats with the shortest decimal that reads back to the same double (as
Python's ``repr``), so a CSV round trip is exact; they write to a temporary name in the target
directory and rename it when complete, so a failed write never leaves a file that looks whole.

**Where and when** (:func:`read_truth_metadata`): a truth log may carry its site and the UTC
time of t = 0, which ``navsense simulate --truth`` then uses (an explicit ``--site`` or
``gnss.datum.start_utc`` wins):

- Parquet: the file's key-value metadata ``navsense.site`` (JSON: an embedded site's name such
  as ``"acre"``, a site JSON file's path relative to the log's folder such as ``"site.json"``,
  or a site object as in a site JSON file, :mod:`navsense.site`) and ``navsense.start_utc``
  (ISO 8601 UTC, such as ``"2026-09-23T15:00:00Z"``);
- CSV: the sidecar file ``<stem>.truth.json`` beside the log (``drive.csv`` ->
  ``drive.truth.json``), a JSON object with the same two optional keys::

      {"site": {"name": "munich", "georeference": {"kind": "local", "lat_deg": 48.137,
                "lon_deg": 11.575, "height_m": 519.0}},
       "start_utc": "2026-05-04T09:30:00Z"}

The writers (:class:`TruthWriter`, :func:`write_truth`) write them when given a ``site`` or a
``start_utc``; ``navsense truth``, ``simulate --save-truth`` and a track's run do.

**Its rate**: ``navsense.rate_hz`` (Parquet) or ``rate_hz`` (sidecar), written when not 120 Hz;
else its rows' spacing (:mod:`navsense.truth.lograte`, issue 30), as the readers take it.
"""

from __future__ import annotations

import csv
import math
import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from navsense.errors import TruthError
from navsense.truth.logfiles import (
    MIN_TRUTH_ROWS,
    SITE_KEY,
    START_UTC_KEY,
    TruthMetadata,
    _check_header,
    _format_of,
    _parquet_file,
    read_truth_metadata,
    truth_sidecar,
)
from navsense.truth.lograte import spacing_note, truth_rate
from navsense.truth.rules import (
    MAX_POSITION_M,
    MAX_RATE_RADPS,
    MAX_SPEED_MPS,
    MAX_TIME_S,
    NUMERIC,
    QUAT_NORM_TOLERANCE,
    TIME_TOLERANCE_S,
    clock_passes,
    first_step,
    quaternion_failures,
    reset_flags,
    value_failures,
    values_pass,
)
from navsense.truth.states import TRUTH_COLUMNS, TruthStates
from navsense.truth.writer import (
    TruthWriter,
    write_truth,
)

__all__ = [
    "read_truth",
    "write_truth",
    "iter_truth_chunks",
    "TruthWriter",
    "TruthMetadata",
    "read_truth_metadata",
    "truth_rate",
    "truth_sidecar",
    "SITE_KEY",
    "START_UTC_KEY",
    "TIME_TOLERANCE_S",
    "QUAT_NORM_TOLERANCE",
    "MIN_TRUTH_ROWS",
    "MAX_TIME_S",
    "MAX_POSITION_M",
    "MAX_SPEED_MPS",
    "MAX_RATE_RADPS",
    "check_truth_values",
]

_CSV_BLOCK_BYTES = 1 << 18  # streamed CSV block (~1 300 rows); pyarrow reads ahead ~35 blocks,
# so a stream holds ~10 MB whatever the file's length
_PARQUET_BATCH_ROWS = 8192
_WORDS_TRUE = ("1", "true", "True", "TRUE", "1.0")
_WORDS_FALSE = ("0", "false", "False", "FALSE", "0.0")
# a reset value as its numbers are read: with spaces around it too ("t_s, px_m, ..., reset" and
# its rows, as numpy.savetxt(delimiter=", ") writes); Arrow trims a number, never a boolean
_TRUE = [f"{a}{w}{b}" for w in _WORDS_TRUE for a in ("", " ") for b in ("", " ")]
_FALSE = [f"{a}{w}{b}" for w in _WORDS_FALSE for a in ("", " ") for b in ("", " ")]


#: the TruthStates arrays and the columns they hold, in order
_STATE_COLUMNS = {
    "p_m": ("px_m", "py_m", "pz_m"),
    "q_xyzw": ("qx", "qy", "qz", "qw"),
    "v_mps": ("vx_mps", "vy_mps", "vz_mps"),
    "w_radps": ("wx_radps", "wy_radps", "wz_radps"),
    "c_m": ("cx_m", "cy_m", "cz_m"),
}


def _state_arrays(rows: int) -> dict[str, np.ndarray]:
    """Empty TruthStates arrays of ``rows`` rows (keys of :data:`_STATE_COLUMNS` and reset)."""
    out: dict[str, np.ndarray] = {
        key: np.empty((rows, len(names))) for key, names in _STATE_COLUMNS.items()
    }
    out["reset"] = np.empty(rows, dtype=np.bool_)
    return out


class _Validator:
    """Checks consecutive blocks of rows and carries the clock across block boundaries."""

    def __init__(self, path: Path, rate_hz: float, kind: str) -> None:
        if not (isinstance(rate_hz, (int, float)) and math.isfinite(rate_hz) and rate_hz > 0):
            raise TruthError(f"rate_hz = {rate_hz!r} must be a positive number")
        self.path = path
        self.rate_hz = float(rate_hz)
        self.kind = kind
        self.from_spacing: bool | None = None  # the rate is the rows' spacing's (on an error)
        self.t_last: float | None = None  # t_s of the last row checked
        self.rows = 0  # rows checked so far
        self.k0: int | None = None

    def where(self, row: int) -> str:
        """'line L' (CSV, header = line 1, empty lines counted) or 'row N' (Parquet, 1-based)."""
        if self.kind == "csv":
            return f"line {_csv_line_of_row(self.path, row)}"
        return f"row {row + 1}"

    def fail(self, row: int, message: str) -> TruthError:
        return TruthError(f"{self.path}: {self.where(row)}: {message}")

    def check(self, cols: dict[str, np.ndarray], into: dict | None = None) -> TruthStates:
        """Validate one block (float64 columns, reset bool/number) and return it as TruthStates.

        ``into``: arrays for the whole log (:func:`_state_arrays`; read_truth): the block is
        written into them at its rows and returned as views of those, when it fits."""
        n = len(cols["t_s"])
        row0 = self.rows
        reset, reset_failures = reset_flags(cols["reset"])
        if reset_failures or not self._passes(cols, n, row0):
            # (row in block, rule order, message): the first row's first rule is reported
            failures = value_failures(cols) + self._clock_failures(cols["t_s"], n, row0)
            failures += quaternion_failures(cols) + reset_failures
            if failures:
                i, _, message = min(failures)
                raise self.fail(row0 + i, message)

        self.rows += n
        if n:
            self.t_last = float(cols["t_s"][-1])
        if into and row0 + n <= len(into["reset"]):
            rows = slice(row0, row0 + n)
            for key, names in _STATE_COLUMNS.items():
                for j, c in enumerate(names):
                    into[key][rows, j] = cols[c]
            into["reset"][rows] = reset
            fields = {key: into[key][rows] for key in (*_STATE_COLUMNS, "reset")}
        else:
            fields = {
                key: np.column_stack([cols[c] for c in names])
                for key, names in _STATE_COLUMNS.items()
            }
            fields["reset"] = np.ascontiguousarray(reset, dtype=np.bool_)
        return TruthStates(step0=(self.k0 or 0) + row0, **fields, rate_hz=self.rate_hz)

    def _passes(self, cols: dict[str, np.ndarray], n: int, row0: int) -> bool:
        """True when the block breaks no rule of the values or the clock (the cheap form of
        :mod:`navsense.truth.rules`); the log's first row sets k0 as :meth:`_clock_failures`
        does."""
        if n == 0:
            return True
        if self.k0 is None:
            k0 = first_step(float(cols["t_s"][0]), self.rate_hz)
            if k0 is None or k0 < 0:
                return False
            self.k0 = k0
        return values_pass(cols) and clock_passes(cols["t_s"], self.k0 + row0, self.rate_hz)

    def _clock_failures(self, t: np.ndarray, n: int, row0: int) -> list[tuple[int, int, str]]:
        """The physics clock: t_i = (k0 + i) / rate within TIME_TOLERANCE_S (k0 from the first
        row of the log)."""
        failures = []
        k0 = first_step(float(t[0]), self.rate_hz) if n and self.k0 is None else None
        if k0 is not None:
            if k0 < 0:
                failures.append(
                    (0, 1, f"t_s = {float(t[0])!r} is negative; the physics clock starts at 0")
                )
            else:
                self.k0 = k0
        if self.k0 is not None:
            k = self.k0 + row0 + np.arange(n, dtype=np.int64)
            expected = k / self.rate_hz
            off = np.abs(t - expected) > TIME_TOLERANCE_S
            if np.any(off):
                i = int(np.argmax(off))
                failures.append(
                    (
                        i,
                        1,
                        (
                            f"t_s = {float(t[i])!r} is not on the {self.rate_hz:.12g} Hz physics "
                            f"clock: expected {float(expected[i])!r} (step {int(k[i])}) within "
                            f"{TIME_TOLERANCE_S:g} s; rows must be consecutive physics steps"
                            + self._spacing_note(t, row0, i)
                        ),
                    )
                )
        return failures

    def _spacing_note(self, t: np.ndarray, row0: int, i: int) -> str:
        """A rate read from the spacing: the rows that break it (lograte.spacing_note)."""
        before = float(t[i - 1]) if i > 0 else self.t_last
        if self.from_spacing is None:  # the error's path only: the log's own rate read again
            own, how = truth_rate(self.path)
            self.from_spacing = how == "spacing" and own == self.rate_hz
        if not self.from_spacing or row0 + i == 0 or before is None:
            return ""
        rows = (self.where(row0 + i - 1), self.where(row0 + i))
        apart, rate = float(t[i]) - before, self.rate_hz
        return spacing_note(self.path, *rows, apart, rate, TIME_TOLERANCE_S)

    def finish(self) -> None:
        if self.rows == 0:
            raise TruthError(
                f"{self.path}: the truth log has no data rows; "
                f"at least {MIN_TRUTH_ROWS} physics steps are required"
            )
        if self.rows < MIN_TRUTH_ROWS:
            raise TruthError(
                f"{self.path}: the truth log has {self.rows} row(s); "
                f"at least {MIN_TRUTH_ROWS} physics steps are required"
            )


# ----------------------------------------------------------------------------------- CSV


def _csv_header(path: Path) -> list[str]:
    try:
        with open(path, encoding="utf-8-sig", newline="") as f:  # a BOM is skipped
            first = f.readline()
    except OSError as exc:
        raise TruthError(f"{path}: cannot read the truth log ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise TruthError(
            f"{path}: line 1: not a UTF-8 text file (a CSV truth log was expected)"
        ) from None
    if not first.strip():
        raise TruthError(
            f"{path}: the file is empty; a truth log needs the header "
            f"{','.join(TRUTH_COLUMNS)} and at least {MIN_TRUTH_ROWS} rows"
        )
    try:
        names = next(csv.reader([first]))
    except csv.Error as exc:  # a field beyond the csv module's limit: binary or damaged
        raise TruthError(f"{path}: line 1 (header): not CSV ({exc})") from None
    names = [n.strip() for n in names]
    _check_header(path, names, "line 1 (header)")
    return names


def _csv_line_of_row(path: Path, row: int) -> int:
    """The 1-based line of data row ``row`` (0-based; empty lines are skipped like the reader)."""
    with open(path, encoding="utf-8", errors="surrogateescape", newline="") as f:
        f.readline()
        line, seen = 1, -1
        for text in f:
            line += 1
            if text.strip("\r\n"):
                seen += 1
                if seen == row:
                    return line
    return line


def _csv_syntax_error(path: Path, names: list[str], arrow_message: str) -> TruthError:
    """Find the first line pyarrow could not parse or convert (error path only; streams the file)."""
    reset_col = names.index("reset")
    allowed = set(_TRUE) | set(_FALSE)
    with open(path, encoding="utf-8", errors="surrogateescape", newline="") as f:
        f.readline()
        try:
            rows = list(_numbered_rows(f))
        except csv.Error as exc:
            return TruthError(f"{path}: line {exc.args[1]}: not CSV ({exc.args[0]})")
        for line, fields in rows:
            if not fields:
                continue
            text = ",".join(fields)
            if any("\udc80" <= c <= "\udcff" for c in text):
                return TruthError(f"{path}: line {line}: not UTF-8 text (a CSV truth log)")
            if len(fields) != len(names):
                return TruthError(
                    f"{path}: line {line}: {len(fields)} values, expected "
                    f"{len(names)} (one per header column)"
                )
            for j, (name, text) in enumerate(zip(names, fields)):
                if j == reset_col:
                    if text not in allowed:
                        return TruthError(
                            f"{path}: line {line}: reset = {text!r} must be 0 or 1 (or true/false)"
                        )
                    continue
                try:
                    if "_" in text:
                        raise ValueError
                    float(text)
                except ValueError:
                    return TruthError(f"{path}: line {line}: {name} = {text!r} is not a number")
    return TruthError(f"{path}: cannot parse the CSV truth log: {arrow_message.splitlines()[0]}")


def _numbered_rows(f) -> Iterator[tuple[int, list[str]]]:
    """(line, fields) of a CSV file object whose header is read; csv.Error's args are (message,
    line)."""
    reader = csv.reader(f)
    while True:
        try:
            fields = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise csv.Error(str(exc), reader.line_num + 1) from None
        yield reader.line_num + 1, fields


def _csv_options(names: list[str]):
    types = {c: pa.float64() for c in NUMERIC}
    types["reset"] = pa.bool_()
    convert = pacsv.ConvertOptions(
        column_types=types,
        null_values=[],
        strings_can_be_null=False,
        true_values=_TRUE,
        false_values=_FALSE,
    )
    # the header's names as _csv_header read them (stripped of spaces around them)
    read = pacsv.ReadOptions(
        block_size=_CSV_BLOCK_BYTES, use_threads=False, column_names=names, skip_rows=1
    )
    return read, pacsv.ParseOptions(), convert


def _buffer_values(col, dtype) -> np.ndarray:
    """A null-free Arrow array of a fixed-width type as a read-only numpy view of its buffer
    (which it keeps alive); the TruthStates built from it copies what it keeps.

    ``to_numpy`` goes through pyarrow's pandas layer, which costs 0.2 s to load.
    """
    dtype = np.dtype(dtype)
    return np.frombuffer(
        col.buffers()[1], dtype=dtype, count=len(col), offset=dtype.itemsize * col.offset
    )


def _boolean_values(col) -> np.ndarray:
    """A null-free Arrow boolean array (bit-packed, least significant bit first) as numpy bool."""
    bits = np.frombuffer(col.buffers()[1], dtype=np.uint8)
    return np.unpackbits(bits, count=col.offset + len(col), bitorder="little")[col.offset :].astype(
        bool
    )


def _columns(batch) -> dict[str, np.ndarray]:
    """Columns of an Arrow batch/table as numpy float64 (reset bool or number)."""
    cols = {}
    for name in TRUTH_COLUMNS:
        col = batch.column(name)
        if isinstance(col, pa.ChunkedArray):
            col = col.combine_chunks()
        numeric = pa.types.is_floating(col.type) or pa.types.is_integer(col.type)
        if name == "reset":
            if pa.types.is_boolean(col.type) and not col.null_count:
                cols[name] = _boolean_values(col)
            else:
                cols[name] = col.to_numpy(zero_copy_only=False)  # the file's number type
        elif numeric:
            if not pa.types.is_float64(col.type):
                # loads pyarrow.compute (70 ms): only when needed; an integer beyond 2^53 is
                # rounded (the limits below refuse such values by name)
                col = col.cast(pa.float64(), safe=False)
            if col.null_count:
                col = col.fill_null(float("nan"))
            cols[name] = _buffer_values(col, np.float64)
        else:
            cols[name] = np.ascontiguousarray(col.to_numpy(zero_copy_only=False), dtype=np.float64)
    return cols


def _csv_blocks(path: Path, validator: _Validator) -> Iterator[TruthStates]:
    names = _csv_header(path)
    read, parse, convert = _csv_options(names)
    try:
        reader = pacsv.open_csv(
            path, read_options=read, parse_options=parse, convert_options=convert
        )
    except pa.ArrowInvalid as exc:
        if "Empty CSV file" in str(exc):
            return
        raise _csv_syntax_error(path, names, str(exc)) from None
    except OSError as exc:
        raise TruthError(f"{path}: cannot read the truth log ({exc})") from None
    while True:
        try:
            batch = reader.read_next_batch()
        except StopIteration:
            return
        except pa.ArrowInvalid as exc:
            raise _csv_syntax_error(path, names, str(exc)) from None
        if batch.num_rows:
            yield validator.check(_columns(batch))


# ------------------------------------------------------------------------------- Parquet


def _batches(path: Path, pf: pq.ParquetFile, batch_rows: int) -> Iterator:
    """The file's record batches; a damaged page is a TruthError naming the file.

    Decoded in the calling thread: on pyarrow's thread pool the 18 columns of a batch cost more
    CPU (an hour at 120 Hz in 12 000-row batches: 39 ms against 31 ms; measured 2026-12-05),
    and the caller waits for them either way."""
    batches = pf.iter_batches(batch_size=batch_rows, columns=list(TRUTH_COLUMNS), use_threads=False)
    rows = 0
    while True:
        try:
            batch = next(batches)
        except StopIteration:
            return
        except (OSError, pa.ArrowException) as exc:
            raise TruthError(
                f"{path}: a damaged Parquet file (after row {rows}): "
                f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
            ) from None
        rows += batch.num_rows
        yield batch


def _parquet_blocks(
    path: Path, validator: _Validator, batch_rows: int, out: dict | None = None
) -> Iterator[TruthStates]:
    """The validated blocks; ``out`` (a dict, read_truth's): filled with the whole log's arrays
    (the file's row count), into which the blocks are written (:meth:`_Validator.check`)."""
    pf = _parquet_file(path)
    if out is not None:
        out.update(_state_arrays(pf.metadata.num_rows))
    for batch in _batches(path, pf, batch_rows):
        if batch.num_rows == 0:
            continue
        for name in TRUTH_COLUMNS:
            col = batch.column(name)
            if col.null_count:
                i = int(np.argmax(~col.is_valid().to_numpy(zero_copy_only=False)))
                wanted = "0 or 1 (or true/false)" if name == "reset" else "a finite number"
                raise validator.fail(validator.rows + i, f"{name} is null; {wanted} is required")
        yield validator.check(_columns(batch), out)


# --------------------------------------------------------------------------------- public


def _blocks(
    path: Path,
    rate_hz: float | None,
    batch_rows: int = _PARQUET_BATCH_ROWS,
    out: dict | None = None,
) -> Iterator[TruthStates]:
    """Validated blocks of the reader (any sizes; ``batch_rows`` rows for Parquet), then the
    minimum-length check. ``out``: see :func:`_parquet_blocks` (a CSV log leaves it empty).
    ``rate_hz`` None: the log's own rate (:func:`navsense.truth.lograte.truth_rate`)."""
    from navsense.jsonfile import check_input_file

    kind = _format_of(path)
    if not os.path.lexists(path):
        raise TruthError(f"{path}: no such truth log")
    check_input_file(path, "truth log", TruthError)
    if rate_hz is None:
        rate_hz, _ = truth_rate(path)
    validator = _Validator(path, rate_hz, kind)
    blocks = (
        _csv_blocks(path, validator)
        if kind == "csv"
        else _parquet_blocks(path, validator, batch_rows, out)
    )
    yield from blocks
    validator.finish()


def check_truth_values(truth: TruthStates, source: str) -> None:
    """TruthError naming ``source`` and the time when ``truth`` (built from a track or a route,
    not read) has a value a truth log may not have: not finite or beyond its limit (module
    docstring), so that what ``navsense truth`` writes reads back and every model gets numbers
    it can turn into finite readings."""
    rate = truth.rate_hz
    for name, values, limit, unit in (
        ("position", truth.p_m, MAX_POSITION_M, "m"),
        ("centre of mass", truth.c_m, MAX_POSITION_M, "m"),
        ("velocity", truth.v_mps, MAX_SPEED_MPS, "m/s"),
        ("angular velocity", truth.w_radps, MAX_RATE_RADPS, "rad/s"),
        ("attitude quaternion", truth.q_xyzw, 1.0 + QUAT_NORM_TOLERANCE, ""),
    ):
        with np.errstate(invalid="ignore"):
            bad = ~(np.abs(values) <= limit)
        if np.any(bad):
            i = int(np.flatnonzero(bad.any(axis=1))[0])
            value = float(values[i][bad[i]][0])
            raise TruthError(
                f"{source}: the truth built from it has a {name} component of {value:.6g} "
                f"{unit} at t = {(truth.step0 + i) / rate:.3f} s; a truth log allows at most "
                f"{limit:g} {unit} (points too far apart for their times: a jump in the "
                "recording?)"
            )


def iter_truth_chunks(
    path: str | os.PathLike, chunk_steps: int, rate_hz: float | None = None
) -> Iterator[TruthStates]:
    """Stream a truth log as consecutive :class:`TruthStates` of ``chunk_steps`` rows (the last
    may be shorter), validated as :func:`read_truth` does, across chunk boundaries.

    Memory holds the reader's read-ahead (~35 blocks of 256 KiB of CSV; one chunk of Parquet
    rows) and one chunk, whatever the file's length. The chunks are identical to slices of
    ``read_truth(path)``. A file with fewer than 3 rows raises before the first chunk is
    yielded; any other error is raised when the iteration reaches the offending row.
    ``rate_hz``: the physics rate the log must be on; None: its own (module docstring).
    """
    path = Path(path)
    if (
        isinstance(chunk_steps, bool)
        or not isinstance(chunk_steps, (int, np.integer))
        or chunk_steps < 1
    ):
        raise TruthError(f"chunk_steps = {chunk_steps!r} must be a positive integer")
    chunk_steps = int(chunk_steps)
    pending: list[TruthStates] = []
    held = 0
    started = False
    # Parquet batches of one chunk each: a chunk is then its block (no joining, no copy)
    for block in _blocks(path, rate_hz, batch_rows=chunk_steps):
        pending.append(block)
        held += len(block)
        if not started and held < MIN_TRUTH_ROWS:
            continue  # do not yield before the log is known to have 3 rows
        started = True
        while held >= chunk_steps:
            joined = pending[0] if len(pending) == 1 else TruthStates.concatenate(pending)
            if len(joined) == chunk_steps:  # its arrays hold this chunk alone
                pending, held = [], 0
                yield joined
                continue
            yield _own(joined.slice(0, chunk_steps))
            rest = joined.slice(chunk_steps, len(joined))
            pending, held = ([rest], len(rest)) if len(rest) else ([], 0)
    if held:
        yield _own(pending[0] if len(pending) == 1 else TruthStates.concatenate(pending))


def _own(chunk: TruthStates) -> TruthStates:
    """A chunk with its own contiguous arrays (not views that pin a larger block)."""
    return TruthStates(
        step0=chunk.step0,
        p_m=chunk.p_m.copy(),
        q_xyzw=chunk.q_xyzw.copy(),
        v_mps=chunk.v_mps.copy(),
        w_radps=chunk.w_radps.copy(),
        c_m=chunk.c_m.copy(),
        reset=chunk.reset.copy(),
        rate_hz=chunk.rate_hz,
    )


def read_truth(path: str | os.PathLike, rate_hz: float | None = None) -> TruthStates:
    """Read and validate a whole truth log (``.csv`` or ``.parquet``, see the module docstring).

    ``rate_hz``: the physics rate the log must be on; None (the default): the log's own rate
    (its metadata, else its rows' spacing: :func:`navsense.truth.lograte.truth_rate`).

    Raises :class:`~navsense.errors.TruthError` naming the file, the line (CSV; the header is
    line 1) or row (Parquet), the value and the rule it breaks.
    """
    # a Parquet log's blocks are written into arrays of its row count (out): no arrays per
    # block and no joining them (an hour: 0.03 s of column_stack, 0.03 s and 60 MB of joining)
    out: dict = {}
    parts = list(_blocks(Path(path), rate_hz, out=out))
    if len(parts) == 1:
        return parts[0]
    rows = sum(len(part) for part in parts)
    if out and rows <= len(out["reset"]):  # every block was written into out
        return TruthStates(
            step0=parts[0].step0, **{k: v[:rows] for k, v in out.items()}, rate_hz=parts[0].rate_hz
        )
    return TruthStates.concatenate(parts)


# ------------------------------------------------------------------------ where and when
