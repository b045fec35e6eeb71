"""Input files read whole (sites, waypoint routes, scenarios, configurations, campaigns, tracks):
checked, decoded and parsed with errors that name the file, and the line and column at fault.

- :func:`check_input_file`: the path names a regular file of at most :data:`MAX_INPUT_BYTES`
  (a directory, a FIFO or a device such as /dev/zero is refused before it is opened: reading
  one would fail late or never end);
- :func:`decode_text`: UTF-8, with or without a byte-order mark; UTF-16 or UTF-32 (their BOM)
  and bytes that are not UTF-8 are refused with the line and column of the first bad byte;
- :func:`parse_json`: JSON, nested at most :data:`MAX_JSON_DEPTH` levels, without the
  non-standard constants NaN and Infinity (a number where navsense expects one must be finite)
  and without a key twice in one object (RFC 8259 leaves its meaning open; Python's parser
  would keep the last silently, as the configuration files refuse it).
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
import sys
from pathlib import Path

__all__ = [
    "parse_json",
    "read_json",
    "read_text",
    "check_input_file",
    "decode_text",
    "json_depth_error",
    "MAX_INPUT_BYTES",
    "MAX_JSON_DEPTH",
]

MAX_INPUT_BYTES = 256 * 1024 * 1024  # a file read whole (JSON, TOML, GPX, a track's CSV)
MAX_JSON_DEPTH = 64  # nesting of objects and arrays (navsense's own files use at most 5)


def is_finite(value) -> bool:
    """True for a finite float, or an int that a float holds; math.isfinite of a JSON integer
    of 400 digits raises OverflowError, and float() of it too, so it is not a finite number."""
    if isinstance(value, int):
        return abs(value) <= sys.float_info.max
    return math.isfinite(value)


def file_kind(mode: int) -> str:
    """What a file of ``os.stat`` mode ``mode`` is when it is not a regular file ("a directory",
    "a FIFO", "a device", "a socket"), "" for a regular file: the words of the errors about an
    input that cannot be read (a FIFO waits for a writer for ever, a device is endless) or an
    output that must not be replaced."""
    if stat.S_ISREG(mode):
        return ""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "a socket" if stat.S_ISSOCK(mode) else "not a regular file"


def check_input_file(
    path: str | os.PathLike, what: str, error: type[Exception], max_bytes: int | None = None
) -> Path:
    """``path`` if it is a regular file (of at most ``max_bytes``); ``error`` "PATH: cannot read
    the WHAT (reason)" otherwise."""
    path = Path(path)
    try:
        st = os.stat(path)
    except OSError as exc:
        raise error(f"{path}: cannot read the {what} ({exc.strerror or exc})") from None
    except ValueError as exc:  # a NUL in the path
        raise error(f"{str(path)!r}: cannot read the {what} ({exc})") from None
    kind = file_kind(st.st_mode)
    if kind:
        raise error(f"{path}: cannot read the {what} (it is {kind}, not a file)")
    if max_bytes is not None and st.st_size > max_bytes:
        raise error(
            f"{path}: the {what} has {st.st_size} bytes; at most {max_bytes} are read "
            f"({max_bytes // (1024 * 1024)} MiB)"
        )
    return path


def decode_text(raw: bytes, source: str, error: type[Exception]) -> str:
    """``raw`` as UTF-8 text (a UTF-8 byte-order mark is skipped); ``error`` naming ``source``
    and the line and column of the first byte that is not UTF-8."""
    for bom, name in (
        (b"\xff\xfe\x00\x00", "UTF-32"),
        (b"\x00\x00\xfe\xff", "UTF-32"),
        (b"\xff\xfe", "UTF-16"),
        (b"\xfe\xff", "UTF-16"),
    ):
        if raw.startswith(bom):
            raise error(f"{source}: the text is {name} (byte-order mark); save it as UTF-8")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        start = exc.start + (3 if raw.startswith(b"\xef\xbb\xbf") else 0)
        before = raw[:start]
        line = before.count(b"\n") + 1
        column = start - (before.rfind(b"\n") + 1) + 1
        raise error(
            f"{source}: line {line} column {column}: byte 0x{raw[start]:02x} is not UTF-8 "
            "text; save the file as UTF-8"
        ) from None


def read_text(path: str | Path, what: str, error: type[Exception]) -> str:
    """The UTF-8 text of the file ``path`` (:func:`check_input_file`, :func:`decode_text`)."""
    path = check_input_file(path, what, error, MAX_INPUT_BYTES)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise error(f"{path}: cannot read the {what} ({exc.strerror or exc})") from None
    return decode_text(raw, str(path), error)


#: A JSON string (to its closing quote, or to the end of an unterminated one); the depth scan
#: removes each, so that brackets and line breaks inside strings do not count.
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?', re.DOTALL)
_NOT_DEPTH = bytes(sorted(set(range(256)) - set(b"[]{}\n")))  # bytes the scan leaves out
_DEPTH_CHUNK = 1 << 22  # bytes scanned at once (the arrays of a 256 MB file stay small)


def json_depth_error(text: str, source: str, error: type[Exception], limit: int = MAX_JSON_DEPTH):
    """``error`` if the JSON ``text`` nests objects and arrays deeper than ``limit`` (found by a
    scan that skips strings), else None. Checked before parsing: a parser recurses per level.

    The depth is the running sum of +1 at ``[`` and ``{`` and -1 at ``]`` and ``}`` outside
    strings, computed by numpy in chunks (a character loop took 9 s for a 40 MB file)."""
    if text.count("[") + text.count("{") <= limit:
        return None
    import numpy as np

    data = np.frombuffer(  # brackets and line breaks outside strings only
        _JSON_STRING.sub("", text).encode("utf-8", "surrogatepass").translate(None, _NOT_DEPTH),
        dtype=np.uint8,
    )
    steps = np.zeros(256, dtype=np.int8)  # a byte's change of the depth
    steps[[ord("["), ord("{")]] = 1
    steps[[ord("]"), ord("}")]] = -1
    depth = 0
    lines = 1  # line breaks outside strings before the chunk
    for start in range(0, len(data), _DEPTH_CHUNK):
        chunk = data[start : start + _DEPTH_CHUNK]
        running = np.cumsum(steps[chunk], dtype=np.int64)
        running += depth
        over = np.flatnonzero(running > limit)
        if over.size:
            line = lines + int(np.count_nonzero(chunk[: over[0]] == ord("\n")))
            return error(
                f"{source}: line {line}: nested deeper than {limit} levels of objects and arrays"
            )
        depth = int(running[-1])
        lines += int(np.count_nonzero(chunk == ord("\n")))
    return None


def _no_constant(source: str, error: type[Exception]):
    def refuse(name: str):
        raise error(f"{source}: {name} is not a JSON number (a finite number is required)")

    return refuse


def _no_duplicate_keys(source: str, error: type[Exception]):
    def pairs_to_dict(pairs: list) -> dict:
        out = dict(pairs)
        if len(out) < len(pairs):
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen:
                    name = json.dumps(key, ensure_ascii=False)
                    raise error(f"{source}: the key {name} appears twice in one object")
                seen.add(key)
        return out

    return pairs_to_dict


def long_integer_words(text: str, exc: ValueError) -> str:
    """What :func:`json.loads`' ValueError for an integer beyond Python's digit limit (4300,
    ``sys.get_int_max_str_digits``) says, with the line of that integer: "line L: an integer
    of N digits (at most 4300)"; the error's own words when no such integer is found."""
    import re
    import sys

    limit = sys.get_int_max_str_digits()
    found = re.search(r"\d{" + str(limit + 1) + ",}", text) if limit else None
    if found is None:
        return str(exc).split(";")[0]
    line = text.count("\n", 0, found.start()) + 1
    return f"line {line}: an integer of {found.end() - found.start()} digits (at most {limit})"


def parse_json(text: str, source: str, error: type[Exception], allow_nan: bool = False):
    """The JSON value of ``text``; ``error`` "SOURCE: line L column C: message" if it is not JSON,
    nests deeper than :data:`MAX_JSON_DEPTH`, has a key twice in one object or holds NaN or
    Infinity (``allow_nan``: passed on as floats, for a reader that checks every number itself
    and names its key)."""
    deep = json_depth_error(text, source, error)
    if deep is not None:
        raise deep
    pairs = _no_duplicate_keys(source, error)
    try:
        if allow_nan:
            return json.loads(text, object_pairs_hook=pairs)
        return json.loads(text, object_pairs_hook=pairs, parse_constant=_no_constant(source, error))
    except json.JSONDecodeError as exc:
        raise error(f"{source}: line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:  # pragma: no cover - the depth is checked first
        raise error(f"{source}: nested too deeply") from None
    except error:  # NaN, Infinity or a repeated key (the hooks)
        raise
    except ValueError as exc:  # an integer of more than 4300 digits
        raise error(
            f"{source}: not JSON navsense reads ({long_integer_words(text, exc)})"
        ) from None


def read_json(path: str | Path, what: str, error: type[Exception], allow_nan: bool = False):
    """The JSON value of the file ``path`` (UTF-8); ``error`` "PATH: cannot read the WHAT (reason)"
    if it cannot be read, as :func:`decode_text` and :func:`parse_json` otherwise."""
    return parse_json(read_text(path, what, error), str(Path(path)), error, allow_nan)
