"""An estimator's trajectory as its file gives it (the readers: navsense.score.readers).

:class:`Estimate` holds what the readers (:mod:`navsense.score.tum`, :mod:`navsense.score.csvfile`,
:mod:`navsense.score.bag`) found, still in the estimate's own frame; :mod:`navsense.score.frames`
converts it to the site's grid ENU.

Time. ``t_s`` is episode time (s since the run's ``start_utc``, the physics clock). A file whose
times are UNIX seconds (UTC, as ROS stamps are) is converted by subtracting ``start_utc``:
a bag's header stamps always; a TUM file when its first time is at least
:data:`UNIX_TIME_MIN_S` (2001-09-09; no episode lasts 31 years); a CSV by its column name
(``t_s`` episode time, ``unix_time_s`` UNIX time). ``time_base`` says which was used.

Limits (each refused with a FormatError naming the file, the line or message and the value):
a text estimate (TUM, CSV) is UTF-8 of at most :data:`navsense.jsonfile.MAX_INPUT_BYTES`
(256 MiB); every number is finite; coordinates are at most :data:`MAX_COORDINATE` in magnitude
(1e9: metres of ENU or UTM, or degrees, which the datum chain then bounds); episode times
(after a UNIX time's start is subtracted) are at most :data:`MAX_TIME_S` (1e9 s, 31 years) from
the run's start. Stamps inside these limits but outside the run are not scored.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from navsense.errors import ConfigError, FormatError
from navsense.jsonfile import MAX_INPUT_BYTES, check_input_file, decode_text

__all__ = [
    "FORMATS",
    "FRAMES",
    "TIME_TOL_S",
    "UNIX_TIME_MIN_S",
    "MAX_COORDINATE",
    "MAX_TIME_S",
    "Estimate",
    "format_of",
]

FORMATS = ("tum", "csv", "mcap")
#: Frames of an estimate's coordinates: the site's grid ENU (m); UTM easting, northing (m) and
#: ellipsoidal height (m); latitude, longitude (deg) and ellipsoidal height (m).
FRAMES = ("enu", "utm", "geodetic")
#: A first time at or after this (2001-09-09T01:46:40Z) is UNIX time, not episode time.
UNIX_TIME_MIN_S = 1.0e9
#: The largest magnitude of an estimate's coordinate (m of ENU or UTM; deg), and of an episode
#: time, s (module docstring).
MAX_COORDINATE = 1.0e9
MAX_TIME_S = 1.0e9
#: Two times closer than this are one instant, s (a UNIX time near 1.8e9 s carries 0.24 us steps
#: as a float64; navsense's rows have 9 decimals).
TIME_TOL_S = 1e-6

_EXTENSIONS = {".tum": "tum", ".txt": "tum", ".csv": "csv", ".mcap": "mcap"}


@dataclass(frozen=True)
class Estimate:
    """An estimate read from ``source`` (n epochs, sorted by time, component axis last).

    ``xyz``: coordinates in ``frame`` (enu: e, n, u m; utm: easting, northing, ellipsoidal
    height m; geodetic: latitude deg, longitude deg, ellipsoidal height m); ``frame`` None when
    the file does not say (TUM, most bag topics), decided then by the caller.
    ``q_xyzw``: attitude, active rotation body FLU -> the frame's axes (for geodetic: the local
    east, north, up), or None; rows of NaN where an epoch has none.
    ``cov_m2``: position covariance (n, 3, 3) in the frame's east, north, up axes, m^2, or None;
    NaN where an epoch has none.
    ``frame_note``: where ``frame`` came from (the file's columns, the message type ...).
    """

    source: str
    t_s: np.ndarray
    xyz: np.ndarray
    frame: str | None
    q_xyzw: np.ndarray | None
    cov_m2: np.ndarray | None
    time_base: str
    frame_note: str = ""

    def __len__(self) -> int:
        return int(self.t_s.shape[0])


def format_of(path: str | Path, fmt: str | None) -> str:
    """The estimate format: ``fmt`` if given, else from the file's extension."""
    if fmt is not None:
        if fmt not in FORMATS:
            raise ConfigError(f"--format {fmt!r} is not one of {', '.join(FORMATS)}")
        return fmt
    suffix = Path(path).suffix.lower()
    if suffix not in _EXTENSIONS:
        raise ConfigError(
            f"{path}: cannot tell the estimate's format from the extension {suffix!r} "
            f"(.tum or .txt, .csv, .mcap); give --format {'|'.join(FORMATS)}"
        )
    return _EXTENSIONS[suffix]


def finish(
    source: str,
    t: np.ndarray,
    xyz: np.ndarray,
    frame: str | None,
    q_xyzw: np.ndarray | None,
    cov_m2: np.ndarray | None,
    time_base: str,
    frame_note: str,
    where=lambda i: f"row {i + 1}",
) -> Estimate:
    """An :class:`Estimate` of a reader's arrays: sorted by time; FormatError when it is empty,
    a time or coordinate is not finite or beyond its limit (module docstring), or two epochs
    have one time (``where(i)`` names row i of the file)."""
    if t.shape[0] == 0:
        raise FormatError(f"{source}: no epochs")
    bad = np.flatnonzero(~(np.abs(t) <= MAX_TIME_S))
    if bad.size:
        i = int(bad[0])
        given = "its UNIX time less the run's start" if time_base == "unix" else "its time"
        raise FormatError(
            f"{source}: {where(i)}: {given} is {float(t[i])!r} s, more than {MAX_TIME_S:g} s "
            "from the run's start; an estimate's times are episode seconds, or UNIX seconds "
            "of the run"
        )
    bad = np.flatnonzero(~(np.abs(xyz) <= MAX_COORDINATE).all(axis=1))
    if bad.size:
        i = int(bad[0])
        raise FormatError(
            f"{source}: {where(i)}: the position {xyz[i].tolist()} is not finite or beyond "
            f"{MAX_COORDINATE:g} (m or deg)"
        )
    order = np.argsort(t, kind="stable")
    ts = t[order]
    same = np.flatnonzero(np.diff(ts) == 0.0)
    if same.size:
        a, b = sorted((int(order[same[0]]), int(order[same[0] + 1])))
        raise FormatError(
            f"{source}: {where(a)} and {where(b)} have the same time {float(ts[same[0]])!r}; "
            "an estimate has one pose a time"
        )
    pick = lambda x: None if x is None else x[order]
    return Estimate(
        source=source,
        t_s=ts,
        xyz=xyz[order],
        frame=frame,
        q_xyzw=pick(q_xyzw),
        cov_m2=pick(cov_m2),
        time_base=time_base,
        frame_note=frame_note,
    )


def read_estimate_text(path: Path) -> str:
    """The UTF-8 text of a TUM or CSV estimate (a BOM is skipped); FormatError naming the file,
    and the line and column of a byte that is not UTF-8, or its size beyond MAX_INPUT_BYTES."""
    check_input_file(path, "estimate", FormatError, MAX_INPUT_BYTES)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise FormatError(f"{path}: cannot read the estimate ({exc.strerror or exc})") from None
    return decode_text(raw, str(path), FormatError)
