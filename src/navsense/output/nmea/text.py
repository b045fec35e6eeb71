"""Text matrices: NMEA sentences built as characters, all rows of a sentence type at once.

A part (:class:`_Text`) is a (w, n) uint8 matrix of characters, column i the characters of row
i, with a mask of those it prints (broadcast to (w, n)), so a part of varying width (an empty
field, a number of 1 to 4 integer digits) is a fixed-width matrix; a field is a list of parts, a
sentence body the list of its fields' parts and commas. :func:`_chars` stacks them in one matrix
and XORs the kept characters of each column into its checksum (characters of one row run down a
column: each part is written as whole rows of the matrix, contiguous, and the checksum is an XOR
of rows). The ``*_chars`` functions of the sentence modules return that matrix, so that the
sentences of all types of a block are read into strings at once
(:func:`navsense.output.nmea.interleave.interleave`: a Python string costs more than its
characters); the ``*_sentences`` functions read them (:func:`sentence_lines`).

Also the checksum (NMEA 0183: the exclusive OR of the characters between $ and *, two uppercase
hex digits) and the line end (CR LF). The underscored helpers are the package's own (used by its
sentence modules, not part of the public API).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["LINE_END", "nmea_checksum", "nmea_checksums", "sentence_lines"]

LINE_END = "\r\n"  # NMEA 0183: every sentence ends with <CR><LF>

_HEX = [f"{x:02X}" for x in range(256)]  # checksum byte -> two uppercase hex digits


def nmea_checksum(body: str) -> str:
    """XOR of the characters of ``body`` (the text between $ and *), two uppercase hex digits
    (:func:`nmea_checksums` of one body)."""
    return _HEX[int(nmea_checksums([body])[0])]


def nmea_checksums(bodies: list[str]) -> np.ndarray:
    """The checksums (uint8, one a body) of many sentence bodies at once (as :func:`nmea_checksum`).

    The bodies are encoded as one ASCII buffer and XOR-reduced segment by segment
    (``np.bitwise_xor.reduceat`` over the bodies' offsets); an empty body has checksum 0.
    """
    if not bodies:
        return np.zeros(0, dtype=np.uint8)
    lengths = np.fromiter(map(len, bodies), dtype=np.int64, count=len(bodies))
    buf = np.frombuffer("".join(bodies).encode("ascii"), dtype=np.uint8)
    starts = np.zeros(len(bodies), dtype=np.int64)
    np.cumsum(lengths[:-1], out=starts[1:])
    nonempty = lengths > 0
    out = np.zeros(len(bodies), dtype=np.uint8)
    if nonempty.any():
        # reduceat over the starts of the non-empty bodies: each segment ends where the next starts
        out[nonempty] = np.bitwise_xor.reduceat(buf, starts[nonempty])
    return out


def _as_rows(x, m: int, dtype) -> np.ndarray:
    """``x`` as an array (m,) of ``dtype`` (a scalar or a (1,) array is repeated)."""
    a = np.asarray(x, dtype=dtype)
    return a if a.shape == (m,) else np.broadcast_to(a, (m,))


def _rows(values, m: int, dtype=np.float64) -> np.ndarray:
    return _as_rows(values, m, dtype)


class _Text(NamedTuple):
    """n texts: text i is ``chars[:, i][keep[:, i]]``; ``chars`` (w, n) or (w, 1) (the same
    characters in every text) uint8, ``keep`` bool broadcastable to (w, n)."""

    chars: np.ndarray
    keep: np.ndarray | bool


Field = list[_Text]

_ZERO = ord("0")


# the digits of 0 .. 999, zero-padded to three: column v holds the three characters of v
_TRIPLES = np.array(
    [[_ZERO + v // 100, _ZERO + v // 10 % 10, _ZERO + v % 10] for v in range(1000)], dtype=np.uint8
).T.copy()

_HEX_CHARS = np.frombuffer("".join(_HEX).encode("ascii"), dtype=np.uint8).reshape(256, 2)

_POW10 = 10 ** np.arange(19, dtype=np.int64)  # 10^0 .. 10^18


def _literal(text: str) -> Field:
    """The same text in every row."""
    part = _LITERALS.get(text)
    if part is None:  # read-only characters (frombuffer of bytes), kept for the next block
        b = np.frombuffer(text.encode("ascii"), dtype=np.uint8).reshape(-1, 1)
        part = _LITERALS.setdefault(text, _Text(b, True))
    return [part]


_LITERALS: dict[str, _Text] = {}


def _digit_chars(values, width: int) -> np.ndarray:
    """The digits (width, n) uint8 of non-negative integers below 10^width, zero-padded, three
    digits at a time from a table."""
    v = np.asarray(values, dtype=np.int64).reshape(-1)
    out = np.empty((width, v.size), dtype=np.uint8)
    col = width
    while col > 3:
        v, low = np.divmod(v, 1000)
        out[col - 3 : col] = _TRIPLES.take(low, axis=1)
        col -= 3
    out[:col] = _TRIPLES[3 - col :].take(v, axis=1)
    return out


def _digits(values, width: int) -> Field:
    """Non-negative integers below 10^width, zero-padded to ``width`` digits (%0{width}d)."""
    return [_Text(_digit_chars(values, width), True)]


def _number(units, decimals: int) -> Field:
    """Non-negative integers ``units`` printed as units / 10^decimals with ``decimals`` decimals
    and no leading zero before the units digit: 4 with 3 decimals prints 0.004, 12345 with 2
    prints 123.45 (as "%.{decimals}f" of the value)."""
    u = np.asarray(units, dtype=np.int64).reshape(-1)
    whole, frac = np.divmod(u, _POW10[decimals])
    width = len(str(int(whole.max()))) if u.size else 1
    out: Field = []
    if width > 1:  # the leading digits, each where the number has it
        lead = _digit_chars(whole, width)
        keep = whole >= _POW10[width - 1 : 0 : -1, None]  # digit j shown when whole >= 10^(w-1-j)
        out.append(_Text(lead[:-1], keep))
        out.append(_Text(lead[-1:], True))
    else:
        out += _digits(whole, 1)
    if decimals:
        out += _literal(".") + _digits(frac, decimals)
    return out


def _decimal(values, decimals: int) -> Field:
    """The "%.{decimals}f" of finite non-negative values, rounded as rint(x 10^decimals)."""
    x = np.asarray(values, dtype=np.float64)
    return _number(np.rint(x * 10.0**decimals).astype(np.int64), decimals)


def _override(field: Field, rows: np.ndarray, texts: list[str], n: int) -> Field:
    """The field with the rows ``rows`` (a few) printing ``texts`` instead."""
    if rows.size == 0:
        return field
    chars = np.zeros((n, max(1, *map(len, texts))), dtype=np.uint8)
    for i, text in zip(rows.tolist(), texts):
        chars[i, : len(text)] = np.frombuffer(text.encode("ascii"), dtype=np.uint8)
    empty = np.zeros(n, dtype=bool)
    empty[rows] = True
    return _blank(field, empty) + [_Text(chars.T, chars.T != 0)]


def _int(values, min_width: int) -> Field:
    """Integers zero-padded to at least ``min_width`` digits, as "%0{min_width}d" prints them
    (a negative one, which no field has, printed by Python)."""
    v = np.asarray(values, dtype=np.int64).reshape(-1)
    negative = np.flatnonzero(v < 0)
    texts = [f"%0{min_width}d" % x for x in v[negative].tolist()]
    if negative.size:
        v = np.where(v < 0, 0, v)
    width = max(min_width, len(str(int(v.max()))) if v.size else 1)
    chars = _digit_chars(v, width)
    extra = width - min_width  # the digits beyond min_width, each where the number has it
    field = [_Text(chars[extra:], True)]
    if extra:
        keep = v >= _POW10[width - 1 : min_width - 1 : -1, None]
        field.insert(0, _Text(chars[:extra], keep))
    return _override(field, negative, texts, v.size)


_HALF_MARGIN = 1e-6  # rint(|x| 10^d) errs only within 1e-7 of a half unit (|x| 10^d < 1e9)


def _fixed(values, decimals: int) -> Field:
    """ "%.{decimals}f" % x of each value, exactly as Python prints it: "-" where the sign bit
    is set (-0.0004 prints -0.000), then |x| rounded to ``decimals`` decimals as the binary
    value's decimal expansion rounds (half to even on an exact tie). That is rint(|x| 10^d)
    except within a rounding error of a half unit; the values within _HALF_MARGIN of one,
    those of 1e9 units or more and the non-finite ones (rare) are printed by Python itself."""
    x = np.asarray(values, dtype=np.float64).reshape(-1)
    scaled = np.abs(x) * 10.0**decimals
    units = np.rint(scaled)
    with np.errstate(invalid="ignore"):  # inf - inf
        sure = np.abs(scaled - np.floor(scaled) - 0.5) >= _HALF_MARGIN  # False for NaN
    sure &= scaled < 1e9
    field = _blank(_literal("-"), ~np.signbit(x)) + _number(
        np.where(sure, units, 0.0).astype(np.int64), decimals
    )
    odd = np.flatnonzero(~sure)
    return _override(field, odd, [f"{v:.{decimals}f}" for v in x[odd].tolist()], x.size)


def _choice(codes, options: tuple[str, ...]) -> Field:
    """Row i prints ``options[codes[i]]``."""
    if len(options) == 1:
        return _literal(options[0])
    width = max(1, max(map(len, options)))
    table = np.zeros((width, len(options)), dtype=np.uint8)
    for k, text in enumerate(options):
        table[: len(text), k] = np.frombuffer(text.encode("ascii"), dtype=np.uint8)
    lengths = np.array([len(t) for t in options])
    c = np.asarray(codes, dtype=np.intp).reshape(-1)
    if (lengths == width).all():  # every option fills the width
        return [_Text(table.take(c, axis=1), True)]
    return [_Text(table[:, c], np.arange(width)[:, None] < lengths[c])]


def _one_char(codes) -> Field:
    """One ASCII character a row, from an array of one-character strings."""
    return [_Text(np.asarray(codes, dtype="S1").view(np.uint8).reshape(1, -1), True)]


def _blank(field: Field, empty) -> Field:
    """The field with the rows where ``empty`` is True printing nothing."""
    show = ~np.asarray(empty, dtype=bool).reshape(1, -1)
    return [_Text(p.chars, np.logical_and(p.keep, show)) for p in field]


def _fields(head: str, *fields: Field) -> Field:
    """``head`` (the address field, e.g. "GNRMC") and the fields, comma separated."""
    comma = _literal(",")
    out = _literal(head)
    for f in fields:
        out += comma + f
    return out


def _chars(body: Field, n: int) -> np.ndarray:
    """The n sentences $body*CS<CR><LF> of the bodies as characters (width, n) uint8, column i
    the sentence i with NUL where a character is not kept (checksum: XOR of a row's kept
    characters)."""
    width = sum(p.chars.shape[0] for p in body)
    chars = np.empty((width + 6, n), dtype=np.uint8)
    col = 1
    for p in body:
        w = p.chars.shape[0]
        if p.keep is True:
            chars[col : col + w] = p.chars
        else:  # NUL where not kept (a sentence has no NUL)
            np.multiply(p.chars, p.keep, out=chars[col : col + w])
        col += w
    cs = np.bitwise_xor.reduce(chars[1:col], axis=0)
    chars[0] = ord("$")
    chars[col] = ord("*")
    chars[col + 1] = _HEX_CHARS[cs, 0]
    chars[col + 2] = _HEX_CHARS[cs, 1]
    chars[col + 3 :] = _LINE_END_CHARS
    return chars


_LINE_END_CHARS = np.frombuffer(LINE_END.encode("ascii"), dtype=np.uint8).reshape(-1, 1)


def _bytes(rows: np.ndarray) -> bytes:
    """The characters of sentence rows (n, width) uint8 but NUL: the lines, each with its end."""
    return rows[rows != 0].tobytes()


def _split(text: bytes) -> list[str]:
    """The lines (without their ends) of text of whole lines."""
    return text.decode("ascii").split(LINE_END)[:-1]


def sentence_lines(chars: np.ndarray) -> list[str]:
    """The sentences (no line end) of sentence characters (width, n) (the ``*_chars``
    functions), as strings."""
    return _split(_bytes(chars.T))


def _chars_of_lines(lines: list[str]) -> np.ndarray:
    """Lines given as strings (no line end) as sentence characters (width, n), as :func:`_chars`."""
    n = len(lines)
    lengths = np.fromiter(map(len, lines), dtype=np.int64, count=n) + len(LINE_END)
    width = int(lengths.max()) if n else 1
    rows = np.zeros((n, width), dtype=np.uint8)
    # a row's first lengths[i] places, filled in row-major order: the text, line after line
    rows[np.arange(width) < lengths[:, None]] = np.frombuffer(
        (LINE_END.join(lines) + LINE_END).encode("ascii") if n else b"", dtype=np.uint8
    )
    return rows.T
