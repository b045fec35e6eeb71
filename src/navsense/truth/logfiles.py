"""A truth log's files besides its rows: its format by extension, its header's check, the Parquet
file, and its site and start time (the Parquet key-value metadata, a CSV log's sidecar
<stem>.truth.json: :func:`truth_sidecar`, :func:`read_truth_metadata`). navsense.truth.io's
docstring tells the format.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq

from navsense.errors import NavsenseError, TruthError
from navsense.truth.states import TRUTH_COLUMNS

if TYPE_CHECKING:
    from navsense.site import Site

__all__ = [
    "MIN_TRUTH_ROWS",
    "SITE_KEY",
    "START_UTC_KEY",
    "RATE_KEY",
    "TruthMetadata",
    "truth_sidecar",
    "read_truth_metadata",
]


MIN_TRUTH_ROWS = 3  # the IMU's first row is at the third physics step (spec, "IMU")

SITE_KEY = "navsense.site"  # Parquet key-value metadata: the log's site (module docstring)

START_UTC_KEY = "navsense.start_utc"  # and the UTC time of t = 0

RATE_KEY = "navsense.rate_hz"  # and its physics rate, Hz (issue 30; written when not 120 Hz)

_SIDECAR_SUFFIX = ".truth.json"  # a CSV log's site and start time: <stem>.truth.json


def _format_of(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return "csv"
    if suffix in (".parquet", ".pq"):
        return "parquet"
    raise TruthError(f"{path}: unknown truth-log format {path.suffix!r}; use .csv or .parquet")


def _check_header(path: Path, names: list[str], where: str) -> None:
    """Exactly the 18 TRUTH_COLUMNS, each once, in any order."""
    seen, repeated = set(), []
    for name in names:
        if name in seen:
            repeated.append(name)
        seen.add(name)
    missing = [c for c in TRUTH_COLUMNS if c not in seen]
    extra = [c for c in names if c not in TRUTH_COLUMNS]
    problems = []
    if missing:
        problems.append("missing column(s) " + ", ".join(missing))
    if extra:
        problems.append("unknown column(s) " + ", ".join(repr(c) for c in extra))
    if repeated:
        problems.append("repeated column(s) " + ", ".join(repeated))
    if problems:
        raise TruthError(
            f"{path}: {where}: {'; '.join(problems)}; the columns must be "
            f"{', '.join(TRUTH_COLUMNS)} (any order)"
        )


def _parquet_file(path: Path) -> pq.ParquetFile:
    """The truth log opened for reading row group after row group, its schema checked.

    ``pre_buffer=False``: with pyarrow's pre-buffering (its default) the reader keeps every
    row group's buffers until the file is closed, so reading a 24 h log (1 h row groups) chunk
    by chunk held 12.6 MiB more each hour: 301 MiB at its end against 25 MiB without it
    (pyarrow 26, measured 2026-12-04), and a 24 h run's peak grew with its length. Reading a
    local file whole row groups at a time gains nothing from pre-buffering (it merges small
    reads for remote file systems)."""
    try:
        pf = pq.ParquetFile(path, pre_buffer=False)
    except OSError as exc:
        text = str(exc).strip()
        reason = text.splitlines()[0] if text else type(exc).__name__  # Arrow adds lines
        raise TruthError(f"{path}: cannot read the truth log ({reason})") from None
    except (pa.ArrowInvalid, pa.ArrowException) as exc:
        raise TruthError(f"{path}: not a Parquet file ({str(exc).splitlines()[0]})") from None
    schema = pf.schema_arrow
    _check_header(path, list(schema.names), "schema")
    for name in TRUTH_COLUMNS:
        typ = schema.field(name).type
        ok = pa.types.is_integer(typ) or pa.types.is_floating(typ)
        if name == "reset":
            ok = ok or pa.types.is_boolean(typ)
        if not ok:
            raise TruthError(
                f"{path}: schema: column {name} has type {typ}; a number is required"
                + (" (or a boolean)" if name == "reset" else "")
            )
    return pf


@dataclass(frozen=True)
class TruthMetadata:
    """A truth log's site, start time and rate (module docstring): ``site`` a Site or None (the
    log names none), ``start_utc`` ISO 8601 or None, ``rate_hz`` its physics rate or None (the
    log states none: its rows' spacing tells it, navsense.truth.io.truth_rate), ``where`` the
    file they were read from (the log's Parquet metadata or its sidecar; None when there are
    none)."""

    site: Site | None = None
    start_utc: str | None = None
    where: str | None = None
    rate_hz: float | None = None


def truth_sidecar(path: str | os.PathLike) -> Path:
    """The sidecar file of a CSV truth log: ``<stem>.truth.json`` beside it."""
    path = Path(path)
    return path.with_name(path.stem + _SIDECAR_SUFFIX)


def read_truth_metadata(path: str | os.PathLike) -> TruthMetadata:
    """The site and start time that the truth log ``path`` carries (module docstring).

    Parquet: its key-value metadata; CSV: its sidecar ``<stem>.truth.json`` if there is one.
    A log without them gives ``TruthMetadata()``. A malformed value raises a NavsenseError (one
    line naming the file, the key, the value and what is allowed).
    """
    path = Path(path)
    kind = _format_of(path)
    if not os.path.lexists(path):
        raise TruthError(f"{path}: no such truth log")
    from navsense.jsonfile import check_input_file

    check_input_file(path, "truth log", TruthError)  # a FIFO, a device, a directory: named so
    if kind == "parquet":
        raw = _parquet_file(path).schema_arrow.metadata or {}
        where = f"{path} (Parquet metadata)"
        values: dict[str, Any] = {}
        for key, name in ((SITE_KEY, "site"), (START_UTC_KEY, "start_utc"), (RATE_KEY, "rate_hz")):
            text = raw.get(key.encode())
            if text is None:
                continue
            from navsense.jsonfile import parse_json

            try:  # nested at most 64 deep, no key twice (NaN: refused by the site's check)
                values[name] = parse_json(text.decode("utf-8"), key, TruthError, allow_nan=True)
            except (UnicodeDecodeError, TruthError) as exc:
                reason = "not UTF-8" if isinstance(exc, UnicodeDecodeError) else str(exc)
                raise TruthError(
                    f"{where}: {key} = {text[:60]!r} is not JSON ({reason.removeprefix(key + ': ')})"
                    " (an embedded site's name or a site object; an ISO 8601 UTC time; a rate in Hz)"
                ) from None
    else:
        sidecar = truth_sidecar(path)
        if not os.path.lexists(sidecar):  # a sidecar that is no file is refused, not left out
            return TruthMetadata()
        from navsense.jsonfile import read_json

        where = str(sidecar)
        values = read_json(sidecar, "truth log sidecar", TruthError)
        if not isinstance(values, dict):
            raise TruthError(
                f"{where}: the sidecar must be a JSON object with site, start_utc, rate_hz"
            )
        unknown = sorted(set(values) - {"site", "start_utc", "rate_hz"})
        if unknown:
            raise TruthError(
                f"{where}: {unknown[0]} is not a known key; allowed: site, start_utc, rate_hz"
            )
    return TruthMetadata(
        site=_site_of(values.get("site"), where, path.parent),
        start_utc=_start_of(values.get("start_utc"), where),
        where=where if values else None,
        rate_hz=_rate_of(values.get("rate_hz"), where),
    )


def _rate_of(value, where: str) -> float | None:
    """The log's stated physics rate (None: not stated); its range is physics.hz's, checked
    where the log is run (navsense.run)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise TruthError(
            f"{where}: rate_hz = {json.dumps(value)[:60]} is not a physics rate "
            "(a number of Hz > 0)"
        )
    try:  # an integer beyond a float's range (JSON's integers have no limit) is not finite
        finite = float(value) < float("inf")
    except OverflowError:
        finite = False
    if not finite:
        text = json.dumps(value)
        text = text if len(text) <= 60 else f"{text[:20]}...({len(text)} digits)"
        raise TruthError(f"{where}: rate_hz = {text} is not a finite number of Hz")
    return float(value)


def _site_of(value, where: str, folder: Path):
    """A Site from the metadata's site value (None: none); a file relative to ``folder``."""
    if value is None:
        return None
    from navsense.site import resolve_site, site_from_json

    if isinstance(value, str) and value:
        try:
            return resolve_site(value, base=folder)
        except NavsenseError as exc:
            raise TruthError(f"{where}: site: {exc}") from None
    if isinstance(value, dict):
        return site_from_json(value, source=f"{where}: site")
    raise TruthError(
        f"{where}: site = {json.dumps(value)[:60]} is not an embedded site's name, a site "
        "file or a site object"
    )


def _start_of(value, where: str) -> str | None:
    if value is None:
        return None
    from navsense.geo.epoch import parse_utc

    if not isinstance(value, str):
        raise TruthError(
            f"{where}: start_utc = {json.dumps(value)[:60]} is not an ISO 8601 UTC time"
        )
    try:
        parse_utc(value)
    except NavsenseError as exc:
        raise TruthError(f"{where}: start_utc: {exc}") from None
    return value


def _site_value(site) -> Any:
    """The JSON of ``site`` in the metadata: an embedded site's name when it is that site
    unchanged, else its site object; a Site None (no georeference) as an open-sky site."""
    from navsense.site import Site, embedded_site, embedded_sites

    if isinstance(site, str):
        return site
    if site is None:
        return {"name": "open sky", "georeference": None}
    assert isinstance(site, Site)
    if site.name in embedded_sites() and site.to_json() == embedded_site(site.name).to_json():
        return site.name
    return site.to_json()


def _metadata(
    site, start_utc: str | None, with_site: bool, rate_hz: float | None = None
) -> dict[str, str]:
    out = {}
    if with_site:
        out[SITE_KEY] = json.dumps(_site_value(site), separators=(",", ":"))
    if start_utc is not None:
        out[START_UTC_KEY] = json.dumps(start_utc)
    if rate_hz is not None:
        out[RATE_KEY] = json.dumps(float(rate_hz))
    return out


_NO_SITE: Any = object()  # TruthWriter(site=...) not given
