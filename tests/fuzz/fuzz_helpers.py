"""The fuzz suite's machinery: the command line run in-process, folder snapshots, the checks of
an outcome, and the ways a file is damaged (hypothesis strategies).

Every test of tests/fuzz builds a malformed or extreme input, runs one command on it and checks
the promise of issue 21 (:func:`check_outcome`): exit 0 with complete, finite output, or exit 2
with exactly one line on stderr (``navsense...: error: ...``), no traceback, no internal error;
a failure leaves nothing that looks complete and changes no file that was there.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import math
import os
import re
import signal
import tempfile
import threading
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from hypothesis import strategies as st

# ------------------------------------------------------------------------------- running
PROFILE = None  # the hypothesis settings of the fuzz tests, chosen by conftest.pytest_configure


def fuzz_settings(share: float = 1.0):
    """The fuzz profile (normal or --fuzz) for a test, with ``share`` of its examples (a slow
    command tries fewer)."""
    from hypothesis import settings

    base = PROFILE or settings.get_profile("navsense-fuzz-ci")
    return settings(base, max_examples=max(1, round(base.max_examples * share)))


EXAMPLE_TIMEOUT_S = float(os.environ.get("NAVSENSE_FUZZ_TIMEOUT_S", "60"))


class Hang(BaseException):
    """An example ran longer than EXAMPLE_TIMEOUT_S (a loop that never ends)."""


@dataclass
class Outcome:
    argv: list[str]
    code: int | None
    out: str
    err: str
    escaped: BaseException | None  # an exception that got past navsense.cli.main
    warnings: list[str]
    seconds: float

    def describe(self) -> str:
        return (
            f"navsense {' '.join(map(repr, self.argv))}\n-> exit {self.code} in "
            f"{self.seconds:.2f} s\nstderr: {self.err!r}\nstdout: {self.out[-500:]!r}\n"
            f"escaped: {self.escaped!r}"
        )


#: Packages whose code the alarm does not interrupt: it holds locks across bytecodes (numba's
#: compiler lock, LLVM's), and a Hang raised there left LLVM's lock held (seen: a compile on a
#: cold cache outlived an example's limit, and the next run's model threads waited on the lock
#: for ever, the suite hung). A compile ends: the Hang is raised once it has, or when the
#: block ends (:func:`_overdue`), whichever comes first.
_UNINTERRUPTED = ("numba.", "llvmlite.")
_RETRY_S = 0.5
_HANG_WORDS = "no result within the time allowed (a loop that never ends?)"
_deferred = [False]  # the limit passed while the main thread was in numba's code


def _alarm(signum, frame):
    f = frame
    while f is not None:
        if f.f_globals.get("__name__", "").startswith(_UNINTERRUPTED):
            _deferred[0] = True
            signal.setitimer(signal.ITIMER_REAL, _RETRY_S)
            return
        f = f.f_back
    _deferred[0] = False
    raise Hang(_HANG_WORDS)


def _arm(seconds: float):
    """The alarm in ``seconds``; the handler it replaced."""
    _deferred[0] = False
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    return previous


def _overdue(previous) -> bool:
    """Disarm (``previous``: what :func:`_arm` returned); True when the limit had passed."""
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, previous)
    late, _deferred[0] = _deferred[0], False
    return late


EXAMPLE_MEMORY_BYTES = int(os.environ.get("NAVSENSE_FUZZ_MEMORY_MB", "3072")) << 20


@contextlib.contextmanager
def memory_cap(extra_bytes: int = EXAMPLE_MEMORY_BYTES) -> Iterator[None]:
    """At most ``extra_bytes`` more address space for this process while the block runs (Linux;
    an input that asks for more ends in MemoryError instead of the machine's OOM killer)."""
    try:
        import resource

        with open("/proc/self/statm") as f:
            used = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    except (ImportError, OSError, ValueError):
        yield
        return
    cap = used + extra_bytes
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


@contextlib.contextmanager
def time_limit(seconds: float = EXAMPLE_TIMEOUT_S) -> Iterator[None]:
    """:class:`Hang` raised in the block after ``seconds`` (SIGALRM; the main thread only), or at
    its end where the limit passed inside numba's code (:data:`_UNINTERRUPTED`)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = _arm(seconds)
    try:
        yield
    except BaseException:
        _overdue(previous)
        raise
    if _overdue(previous):
        raise Hang(_HANG_WORDS)


def run_cli(argv: list[str], cwd: Path, timeout_s: float = EXAMPLE_TIMEOUT_S) -> Outcome:
    """``navsense.cli.main(argv)`` in this process, in ``cwd``, its output captured; a run that
    takes longer than ``timeout_s`` is stopped (SIGALRM) and reported as a hang, one that asks
    for more than EXAMPLE_MEMORY_BYTES more memory gets a MemoryError (reported as a finding)."""
    from navsense.cli import main

    out, err = io.StringIO(), io.StringIO()
    old_cwd = os.getcwd()
    code, escaped = None, None
    use_alarm = threading.current_thread() is threading.main_thread()
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        os.chdir(cwd)
        previous = _arm(timeout_s) if use_alarm else None
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), memory_cap():
                code = main([str(a) for a in argv])
        except BaseException as exc:  # anything escaping main is a finding
            escaped = exc
        finally:
            if use_alarm and _overdue(previous) and escaped is None:
                escaped = Hang(_HANG_WORDS)
            os.chdir(old_cwd)
    return Outcome(
        argv=[str(a) for a in argv],
        code=code,
        out=out.getvalue(),
        err=err.getvalue(),
        escaped=escaped,
        warnings=[f"{w.category.__name__}: {w.message}" for w in caught],
        seconds=time.perf_counter() - t0,
    )


@contextlib.contextmanager
def scratch() -> Iterator[Path]:
    """A fresh temporary folder for one example."""
    with tempfile.TemporaryDirectory(prefix="navsense-fuzz-") as folder:
        yield Path(folder)


# ----------------------------------------------------------------------------- snapshots
def tree(folder: Path) -> dict[str, object]:
    """Every path under ``folder`` (hidden ones too): a file's bytes, None for a directory, the
    target of a symlink."""
    snap: dict[str, object] = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            p = Path(root) / name
            key = str(p.relative_to(folder))
            if p.is_symlink():
                snap[key] = ("link", os.readlink(p))
            elif p.is_dir():
                snap[key] = None
            elif p.is_file():
                snap[key] = p.read_bytes()
            else:
                snap[key] = ("special", p.stat().st_mode)
    return snap


# -------------------------------------------------------------------------------- checks
def check_outcome(
    outcome: Outcome,
    before: dict,
    after: dict,
    *,
    must_fail: bool = False,
    may_create: tuple[str, ...] = (),
    allow_codes: tuple[int, ...] = (0, 2),
) -> None:
    """The promise of issue 21 for one run (module docstring).

    ``before``/``after``: :func:`tree` of the example's folder around the run. ``may_create``:
    the outputs a successful run writes (top-level names; checked by the caller). ``must_fail``:
    the input is certainly bad, exit 2 is required.
    """
    text = outcome.describe()
    assert outcome.escaped is None, f"an exception escaped main: {text}"
    assert "Traceback" not in outcome.err, f"a traceback: {text}"
    assert "internal error" not in outcome.err, f"a bug: {text}"
    assert "out of memory" not in outcome.err, f"not refused before memory was taken: {text}"
    if must_fail:
        assert outcome.code == 2, f"bad input accepted: {text}"
    assert outcome.code in allow_codes, f"exit status: {text}"
    if outcome.code == 2:
        lines = outcome.err.splitlines()
        assert len(lines) == 1, f"not one line on stderr: {text}"
        assert lines[0].startswith("navsense") and "error:" in lines[0], f"not an error: {text}"
        assert after == before, (
            f"a failed run left or changed files: {sorted(set(after) ^ set(before))} "
            f"changed: {[k for k in before if k in after and before[k] != after[k]]}\n{text}"
        )
        return
    # success: nothing that was there changed, only the expected outputs are new
    for key, value in before.items():
        assert after.get(key) == value, f"{key} changed or vanished by a run: {text}"
    new = {k.split(os.sep)[0] for k in after if k not in before}
    assert new <= set(may_create), f"unexpected outputs {sorted(new - set(may_create))}: {text}"
    assert not [k for k in after if Path(k).name.endswith(".partial")], f"debris: {text}"


# the keys of gnss.jsonl that may be null in any fix state (DESIGN.md, output/layouts/gnss.py)
GNSS_NULLABLE = {"correction_age_s", "rtk_lock_age_s", "rtk_converge_s", "rtk_time_to_fix_s"}


def simulate_checked(
    folder: Path, source: list[str], options=(), *, must_fail: bool = False
) -> Outcome:
    """``navsense simulate`` of ``source`` (``["--truth", "t.csv"]``, ``["--track", ...]``) with
    ``options`` into ``folder/out``, checked by :func:`check_outcome`; a run that succeeds must
    be a complete run directory (:func:`check_run_directory`)."""
    before = tree(folder)
    argv = ["simulate", *source, "--out", "out", "--quiet", "--workers", "threads"]
    outcome = run_cli([*argv, *options], folder)
    after = tree(folder)
    check_outcome(outcome, before, after, must_fail=must_fail, may_create=("out",))
    if outcome.code == 0:
        check_run_directory(folder / "out")
    return outcome


def _nulls(value, path: str = "") -> Iterator[str]:
    if value is None:
        yield path
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _nulls(v, f"{path}.{k}" if path else k)
    elif isinstance(value, list):
        for v in value:
            yield from _nulls(v, path)
    elif isinstance(value, float) and not math.isfinite(value):
        yield path


def check_run_directory(run: Path) -> None:
    """A complete run directory: episode.json and rows that are numbers where the specification
    has numbers (nulls only where it has them: the no_fix positions and the RTK/correction ages)."""
    import orjson

    assert (run / "episode.json").is_file(), f"{run}: no episode.json"
    orjson.loads((run / "episode.json").read_bytes())
    for path in sorted(run.glob("*.jsonl")):
        for i, line in enumerate(path.read_bytes().splitlines()):
            row = orjson.loads(line)
            bad = set(_nulls(row))
            if path.name == "gnss.jsonl":
                bad -= GNSS_NULLABLE
                if row.get("fix_type") == "no_fix":
                    bad = {k for k in bad if k in ("fix_type", "solution", "nmea_gga")}
            assert not bad, f"{path.name} row {i + 1}: null or non-finite {sorted(bad)}"
    frames = run / "ins.frames"
    if frames.exists():
        values = np.frombuffer(frames.read_bytes(), dtype="<f8")
        assert np.all(np.isfinite(values)), f"{frames}: non-finite values"
    for path in sorted(run.glob("*.parquet")):
        import pyarrow.parquet as pq

        table = pq.read_table(path)
        for name in table.column_names:
            col = table.column(name)
            if path.name == "gnss.parquet":
                continue  # its nulls follow the JSON rules above; the JSON runs check them
            assert col.null_count == 0, f"{path.name}: {name} has nulls"


# ------------------------------------------------------------------------- damaged values
NASTY_TOKENS = [
    "nan",
    "NaN",
    "-nan",
    "inf",
    "-inf",
    "Infinity",
    "1e300",
    "-1e300",
    "1e-300",
    "1.7976931348623157e308",
    "1e309",
    "0",
    "-0",
    "-1",
    "1e17",
    "-1e17",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    "18446744073709551616",
    "1" + "0" * 400,
    "",
    " ",
    "x",
    "0x10",
    "1_000",
    "\u0661\u0662",
    "1e",
    "--1",
    "true",
    "null",
    "1,5",
    '"',
    "\u00e9",
]

NASTY_NUMBERS: list[object] = [
    float("nan"),
    float("inf"),
    float("-inf"),
    1e300,
    -1e300,
    1e-300,
    5e-324,
    0,
    -0.0,
    -1,
    -1e9,
    1e9,
    1e17,
    2**31,
    2**53 + 1,
    2**63,
    -(2**63) - 1,
    2**64,
    10**40,
    1e12,
]

NASTY_VALUES: list[object] = NASTY_NUMBERS + [
    None,
    True,
    False,
    "",
    "x",
    "NaN",
    "1e300",
    [],
    {},
    [[]],
    [None],
    {"": None},
    [1e300, -1e300, float("nan")],
    "\u00e9\u0000\ud7ff",
]


def nasty_token() -> st.SearchStrategy[str]:
    """A field's text that is not an ordinary finite number."""
    return st.one_of(
        st.sampled_from(NASTY_TOKENS),
        st.floats(allow_nan=True, allow_infinity=True).map(repr),
        st.integers(min_value=-(2**70), max_value=2**70).map(str),
        st.text(max_size=8),
    )


def nasty_value() -> st.SearchStrategy[object]:
    """A JSON value of the wrong kind or at an extreme (a copy: a mutation that adds a key to
    the ``{}`` it drew must not change the list, or the next example's draws differ)."""
    return st.one_of(
        st.sampled_from(NASTY_VALUES).map(copy.deepcopy),
        st.floats(allow_nan=True, allow_infinity=True),
        st.integers(min_value=-(2**70), max_value=2**70),
        st.text(max_size=6),
        st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=4),
    )


def dumps(doc) -> str:
    """JSON as Python writes it (NaN and Infinity as bare words, as some tools do)."""
    return json.dumps(doc, indent=1, ensure_ascii=False)


# ---------------------------------------------------------------------- JSON mutations
def _paths(doc, prefix=()) -> list[tuple]:
    """Every path (tuple of keys and indices) into a JSON document, the root included."""
    out = [prefix]
    if len(prefix) > 12:  # a deeply nested value (one of the mutations) is one leaf
        return out
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc[:6]):  # the first elements stand for the rest
            out += _paths(v, (*prefix, i))
    return out


def _get(doc, path):
    for p in path:
        doc = doc[p]
    return doc


def _set(doc, path, value):
    if not path:
        return value
    parent = _get(doc, path[:-1])
    parent[path[-1]] = value
    return doc


def _delete(doc, path):
    if not path:
        return doc
    parent = _get(doc, path[:-1])
    del parent[path[-1]]
    return doc


def deep(depth: int, leaf=0):
    """A list nested ``depth`` levels deep (built without recursion)."""
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


@st.composite
def json_mutation(draw, base):
    """``base`` (a JSON document) with one to three structural or value changes, as a
    :class:`Doc`. The document is copied first."""
    doc = json.loads(json.dumps(base))
    notes = []
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(doc)
        path = draw(st.sampled_from(paths))
        kind = draw(
            st.sampled_from(
                ["value", "value", "value", "delete", "unknown key", "wrap", "deep", "repeat"]
            )
        )
        target = _get(doc, path)
        if kind == "value":
            doc = _set(doc, path, draw(nasty_value()))
        elif kind == "delete" and path:
            doc = _delete(doc, path)
        elif kind == "unknown key" and isinstance(target, dict):
            target[draw(st.sampled_from(["", "x", "__proto__", "\u00e9", "1"]))] = draw(
                nasty_value()
            )
        elif kind == "wrap":
            doc = _set(doc, path, [target])
        elif kind == "deep":
            doc = _set(doc, path, deep(draw(st.sampled_from([50, 900, 5000]))))
        elif kind == "repeat" and isinstance(target, list) and target:
            doc = _set(doc, path, target * draw(st.sampled_from([2, 50])))
        notes.append(f"{kind} at {list(path)}: {_short(_get_or(doc, path))}")
    return Doc(doc, notes)


def _get_or(doc, path):
    try:
        return _get(doc, path)
    except (KeyError, IndexError, TypeError):
        return "(deleted)"


def _short(value) -> str:
    import reprlib

    text = reprlib.repr(value)
    return text if len(text) < 80 else text[:77] + "..."


def json_text(doc) -> str:
    """JSON text of ``doc``; a document nested too deep for ``json`` is written by hand."""
    try:
        return dumps(doc)
    except RecursionError:
        return _deep_dumps(doc)


def _deep_dumps(doc) -> str:
    parts: list[str] = []
    stack: list[object] = [doc]
    while stack:
        item = stack.pop()
        if isinstance(item, str) and item.startswith("\0raw:"):
            parts.append(item[5:])
        elif isinstance(item, list):
            parts.append("[")
            stack.append("\0raw:]")
            for i, v in reversed(list(enumerate(item))):
                stack.append(v)
                if i:
                    stack.append("\0raw:,")
        elif isinstance(item, dict):
            parts.append("{")
            stack.append("\0raw:}")
            for i, (k, v) in reversed(list(enumerate(item.items()))):
                stack.append(v)
                stack.append("\0raw:" + json.dumps(str(k)) + ":")
                if i:
                    stack.append("\0raw:,")
        else:
            parts.append(json.dumps(item))
    return "".join(parts)


# ------------------------------------------------------------------------ byte damage
class Blob(bytes):
    """Damaged file content whose repr (in hypothesis's report) is what was done, not the bytes.
    ``repeated_key``: a JSON member was repeated in its object, which a JSON input navsense
    checks (site, route, configuration, campaign) must refuse."""

    note = ""
    repeated_key = False

    def __repr__(self) -> str:
        return f"<{len(self)} bytes: {self.note}>"


def blob(data: bytes, note: str) -> Blob:
    b = Blob(data)
    b.note = note
    return b


_STRING = rb'"(?:[^"\\\n]|\\.)*"'
_MEMBER = re.compile(_STRING + rb"\s*:\s*(?:" + _STRING + rb"|[-+.\w]+)\s*,")  # "k": plain value,


class Doc:
    """A mutated JSON document whose repr is the list of changes."""

    def __init__(self, doc, notes: list[str]) -> None:
        self.doc = doc
        self.notes = notes

    def __repr__(self) -> str:
        return f"<document: {'; '.join(self.notes)}>"


ENCODINGS = ["utf-16", "utf-16-le", "utf-32", "latin-1", "utf-8-sig", "cp1252"]


@st.composite
def damaged_bytes(draw, data: bytes, deep_text: bytes | None = None):
    """``data`` damaged at the byte level: cut short, bytes inserted, overwritten or removed,
    lines repeated or dropped, another encoding, a BOM, garbage, empty, or deeply nested text
    (``deep_text``: the format's own nesting, e.g. ``[`` for JSON), as a :class:`Blob`."""
    kind = draw(
        st.sampled_from(
            [
                "truncate",
                "insert",
                "overwrite",
                "remove",
                "line",
                "encoding",
                "bom",
                "garbage",
                "empty",
                "deep",
                "nul",
                "crlf",
                "twice",
            ]
        )
    )
    n = len(data)
    if kind == "truncate" and n:
        cut = draw(st.integers(0, n - 1))
        return blob(data[:cut], f"cut at byte {cut} of {n}")
    if kind == "insert":
        at = draw(st.integers(0, n))
        extra = draw(st.binary(min_size=1, max_size=16))
        return blob(data[:at] + extra + data[at:], f"{extra!r} inserted at {at}")
    if kind == "overwrite" and n:
        at = draw(st.integers(0, n - 1))
        extra = draw(st.binary(min_size=1, max_size=8))
        return blob(data[:at] + extra + data[at + len(extra) :], f"{extra!r} written at {at}")
    if kind == "remove" and n:
        at = draw(st.integers(0, n - 1))
        k = draw(st.integers(1, 64))
        return blob(data[:at] + data[at + k :], f"{k} bytes removed at {at}")
    if kind == "line":
        lines = data.split(b"\n")
        i = draw(st.integers(0, len(lines) - 1))
        how = draw(st.sampled_from(["drop", "repeat", "swap", "huge"]))
        if how == "drop":
            del lines[i]
        elif how == "repeat":
            lines.insert(i, lines[i])
        elif how == "swap" and i + 1 < len(lines):
            lines[i], lines[i + 1] = lines[i + 1], lines[i]
        elif how == "huge":
            lines[i] = lines[i] + b"9" * 200_000
        return blob(b"\n".join(lines), f"line {i + 1}: {how}")
    if kind == "encoding":
        enc = draw(st.sampled_from(ENCODINGS))
        text = data.decode("utf-8", errors="replace").replace("\ufffd", "?")
        text = draw(st.sampled_from(["", "\u00e9", "\u00c5\u00df"])) + text
        return blob(text.encode(enc, errors="replace"), f"re-encoded as {enc}")
    if kind == "bom":
        bom = draw(st.sampled_from([b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff"]))
        return blob(bom + data, f"BOM {bom!r}")
    if kind == "garbage":
        extra = draw(st.binary(min_size=1, max_size=2048))
        return blob(extra, f"garbage {extra[:16]!r}...")
    if kind == "deep" and deep_text:
        k = draw(st.sampled_from([1000, 10_000, 100_000]))
        return blob(deep_text * k, f"nested {k} deep")
    if kind == "nul" and n:
        at = draw(st.integers(0, n - 1))
        return blob(data[:at] + b"\0" + data[at:], f"NUL at {at}")
    if kind == "crlf":
        return blob(data.replace(b"\n", b"\r\n"), "CRLF")
    if kind == "twice":  # a JSON member repeated in its object ("k": 1, "k": 1, ...)
        members = list(_MEMBER.finditer(data))
        if members:
            m = members[draw(st.integers(0, len(members) - 1))]
            b = blob(data[: m.end()] + m.group() + data[m.end() :], f"{m.group()!r} twice")
            b.repeated_key = True
            return b
    return blob(b"", "empty")


def entity_gpx(levels: int, where: str, points: int = 20) -> str:
    """A GPX track whose ``where`` (``ele``, ``time``, ``name``, ``lat``) is the entity ``&lN;``
    of ``levels`` levels of ten references each (10^(levels+1) characters: a "billion laughs"
    from 8 levels on)."""
    ents = '<!ENTITY l0 "1234567890">' + "".join(
        f'<!ENTITY l{k} "{f"&l{k - 1};" * 10}">' for k in range(1, levels + 1)
    )
    ref = f"&l{levels};"
    rows = []
    for i in range(points):
        lat = ref if where == "lat" else f"{40.474 + 2.0e-5 * i:.7f}"
        ele = ref if where == "ele" else "180.0"
        time = ref if where == "time" else f"2026-05-01T12:00:{i:02d}Z"
        name = f"<name>{ref}</name>" if where == "name" else ""
        rows.append(
            f'<trkpt lat="{lat}" lon="{-86.99 + 1.5e-5 * i:.7f}"><ele>{ele}</ele>'
            f"<time>{time}</time>{name}</trkpt>"
        )
    return (
        f'<?xml version="1.0"?>\n<!DOCTYPE gpx [{ents}]>\n<gpx version="1.1" '
        'xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>\n'
        + "\n".join(rows)
        + "\n</trkseg></trk></gpx>\n"
    )


def special_path(folder: Path, kind: str, suffix: str = ".csv") -> Path:
    """An input path that is not a regular readable file: missing, a directory, a dangling
    symlink, a symlink loop, a FIFO, /dev/zero (endless), /dev/null (empty)."""
    p = folder / f"special-{kind}{suffix}"
    if kind == "missing":
        return p
    if kind == "directory":
        p.mkdir()
        return p
    if kind == "dangling":
        p.symlink_to(folder / "nowhere")
        return p
    if kind == "loop":
        p.symlink_to(p)
        return p
    if kind == "fifo":
        os.mkfifo(p)
        return p
    if kind == "zero":
        p.symlink_to("/dev/zero")
        return p
    if kind == "null":
        p.symlink_to("/dev/null")
        return p
    raise AssertionError(kind)


SPECIAL_KINDS = ["missing", "directory", "dangling", "loop", "fifo", "zero", "null"]


CSV_FORMS = [
    "header spaces",  # 't_s, px_m, ...': a header written by hand
    "field spaces",  # ' 1.5 , 2 ' around every field of the data rows
    "quoted fields",
    "quoted header",
    "crlf",
    "cr",
    "blank lines",
    "trailing comma",
    "tabs",
    "semicolons",
    "upper-case header",
    "columns reversed",
    "a column twice",
    "no final newline",
    "bom",
]


@st.composite
def csv_text_form(draw, data: bytes):
    """The CSV ``data`` (UTF-8, a header line) written another way (:data:`CSV_FORMS`, one or
    two of them), as a :class:`Blob` naming them: what a spreadsheet or a hand writes."""
    import csv as _csv
    import io as _io

    forms = draw(st.lists(st.sampled_from(CSV_FORMS), min_size=1, max_size=2, unique=True))
    rows = list(_csv.reader(_io.StringIO(data.decode("utf-8"))))
    header, body = rows[0], [r for r in rows[1:] if r]
    if "columns reversed" in forms:
        header, body = header[::-1], [r[::-1] for r in body]
    if "a column twice" in forms:
        k = draw(st.integers(0, len(header) - 1))
        header, body = [*header, header[k]], [[*r, r[k]] for r in body]
    if "upper-case header" in forms:
        header = [h.upper() for h in header]
    if "quoted header" in forms:
        header = [f'"{h}"' for h in header]
    if "quoted fields" in forms:
        body = [[f'"{v}"' for v in r] for r in body]
    if "field spaces" in forms:
        body = [[f" {v} " for v in r] for r in body]
    sep = "\t" if "tabs" in forms else ";" if "semicolons" in forms else ","
    head = (sep + " " if "header spaces" in forms else sep).join(header)
    tail = sep if "trailing comma" in forms else ""
    lines = [head + tail] + [sep.join(r) + tail for r in body]
    eol = "\r\n" if "crlf" in forms else "\r" if "cr" in forms else "\n"
    if "blank lines" in forms:
        eol = eol * 2
    text = eol.join(lines) + ("" if "no final newline" in forms else eol)
    raw = ("\ufeff" if "bom" in forms else "") + text
    return blob(raw.encode("utf-8"), ", ".join(forms))
