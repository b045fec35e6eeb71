"""Estimates as CSV: a header line naming the columns, then one epoch a line.

Columns (names with their units, as navsense's own rows; any order; other columns are ignored
and listed in the score's ``estimate_note``):

==============================================  =============================================
time (exactly one)                              ``t_s`` episode seconds, or ``unix_time_s``
                                                UNIX seconds (UTC)
position (exactly one group; sets the frame)    ``e_m, n_m, u_m`` (or ``x_m, y_m, z_m``): site
                                                ENU; ``easting_m, northing_m, height_m``: UTM;
                                                ``lat_deg, lon_deg, height_m`` (or
                                                ``latitude_deg, longitude_deg``): geodetic
attitude (optional)                             ``qx, qy, qz, qw``: body FLU -> the frame's
                                                east, north, up axes
covariance (optional, one group)                ``sigma_e_m, sigma_n_m, sigma_u_m`` (diagonal)
                                                or ``cov_ee_m2, cov_en_m2, cov_eu_m2,
                                                cov_nn_m2, cov_nu_m2, cov_uu_m2``
==============================================  =============================================

Height is ellipsoidal in the datum of the coordinates (``--datum``). The covariance axes are the
frame's east, north, up (UTM: easting, northing, up; geodetic: the local east, north, up). An
attitude or covariance group whose cells are all empty means "none at this epoch" (a group
partly given is refused, naming the line); lines starting with ``#`` before or after the
header are skipped.
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

import numpy as np

from navsense.errors import FormatError
from navsense.score.estimate import Estimate, finish, read_estimate_text
from navsense.score.tum import QUAT_NORM_TOL

__all__ = ["POSITION_COLUMNS", "read_csv"]

#: The position columns of each frame (alternatives in order of preference).
POSITION_COLUMNS: dict[str, tuple[tuple[str, str, str], ...]] = {
    "enu": (("e_m", "n_m", "u_m"), ("x_m", "y_m", "z_m")),
    "utm": (("easting_m", "northing_m", "height_m"),),
    "geodetic": (("lat_deg", "lon_deg", "height_m"), ("latitude_deg", "longitude_deg", "height_m")),
}
_TIME = ("t_s", "unix_time_s")
_QUAT = ("qx", "qy", "qz", "qw")
_SIGMA = ("sigma_e_m", "sigma_n_m", "sigma_u_m")
_COV = ("cov_ee_m2", "cov_en_m2", "cov_eu_m2", "cov_nn_m2", "cov_nu_m2", "cov_uu_m2")


def _position_group(path: Path, header: list[str]) -> tuple[str, tuple[str, str, str]]:
    found = [
        (frame, cols)
        for frame, groups in POSITION_COLUMNS.items()
        for cols in groups
        if all(c in header for c in cols)
    ]
    if len(found) != 1:  # two groups of one frame too (e_m and x_m: which is meant?)
        allowed = "; ".join(
            f"{frame}: {' or '.join(', '.join(c) for c in groups)}"
            for frame, groups in POSITION_COLUMNS.items()
        )
        what = "none" if not found else " and ".join(", ".join(c) for _, c in found)
        raise FormatError(
            f"{path}: line 1: the header names {what} as position columns; "
            f"exactly one group is allowed ({allowed})"
        )
    return found[0]


def _header_columns(
    path: Path, header: list[str], header_line: int
) -> tuple[str, str, tuple, tuple, tuple, list[str]]:
    """The header's groups: (its one time column, frame, position, quaternion, covariance
    columns, the columns used in order); FormatError naming the header's line otherwise."""
    times = [c for c in _TIME if c in header]
    if len(times) != 1:
        raise FormatError(
            f"{path}: line {header_line}: the header needs exactly one time column of "
            f"{', '.join(_TIME)} (found {', '.join(times) or 'none'}): {','.join(header)[:120]}"
        )
    frame, pos = _position_group(path, header)
    quat = _QUAT if all(c in header for c in _QUAT) else ()
    cov = (
        _COV
        if all(c in header for c in _COV)
        else _SIGMA
        if all(c in header for c in _SIGMA)
        else ()
    )
    partial = [
        group
        for group in (_QUAT, _SIGMA, _COV)
        if any(c in header for c in group) and not all(c in header for c in group)
    ]
    if partial:
        g = partial[0]
        raise FormatError(
            f"{path}: line {header_line}: the header has "
            f"{', '.join(c for c in g if c in header)} but not "
            f"{', '.join(c for c in g if c not in header)} (all of {', '.join(g)} or none)"
        )
    if all(c in header for c in _COV) and all(c in header for c in _SIGMA):
        raise FormatError(
            f"{path}: line {header_line}: the header has both {', '.join(_SIGMA)} and "
            f"{', '.join(_COV)}; one covariance group or none"
        )
    used = [times[0], *pos, *quat, *cov]
    twice = [name for name in used if header.count(name) > 1]
    if twice:  # which of the two is meant? (the second was ignored and not said)
        raise FormatError(
            f"{path}: line {header_line}: the column {twice[0]} is in the header "
            f"{header.count(twice[0])} times; each column once"
        )
    return times[0], frame, pos, quat, cov, used


def _covariance(path: Path, v: np.ndarray, cov: tuple, where) -> np.ndarray:
    """The (n, 3, 3) position covariances of the sigma or covariance columns ``v`` (NaN where a
    row leaves one out); FormatError naming the line of a negative sigma."""
    n = v.shape[0]
    c = np.full((n, 3, 3), np.nan)
    if cov == _SIGMA:
        bad = np.flatnonzero((v < 0).any(axis=1))
        if bad.size:
            i = int(bad[0])
            raise FormatError(f"{path}: {where(i)}: a sigma is negative: {v[i].tolist()}")
        c[:, 0, 0], c[:, 1, 1], c[:, 2, 2] = v[:, 0] ** 2, v[:, 1] ** 2, v[:, 2] ** 2
        c[:, 0, 1] = c[:, 1, 0] = c[:, 0, 2] = c[:, 2, 0] = c[:, 1, 2] = c[:, 2, 1] = np.where(
            np.isnan(v).any(axis=1), np.nan, 0.0
        )
    else:
        for k, (a, b) in enumerate(((0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2))):
            c[:, a, b] = c[:, b, a] = v[:, k]
    c[np.isnan(c).any(axis=(1, 2))] = np.nan
    return c


def _whole_groups(path: Path, data: np.ndarray, used: list[str], groups, where) -> None:
    """FormatError naming the first line whose attitude or covariance group is part empty: an
    empty group means "none at this epoch", a part (qz, qw of a quaternion) would be dropped
    with the cells given."""
    for group in groups:
        if not group:
            continue
        k = [used.index(name) for name in group]
        empty = np.isnan(data[:, k])
        part = np.flatnonzero(empty.any(axis=1) & ~empty.all(axis=1))
        if part.size:
            i = int(part[0])
            missing = [name for name, e in zip(group, empty[i], strict=True) if e]
            raise FormatError(
                f"{path}: {where(i)}: {', '.join(missing)} empty but {group[0]} .. {group[-1]} "
                "partly given; leave all of them empty (none at this epoch) or give all"
            )


def read_csv(path: str | Path, *, start_ns: int) -> Estimate:
    """Read a CSV estimate (module docstring); FormatError naming the line, column and value."""
    path = Path(path)
    with io.StringIO(read_estimate_text(path), newline="") as f:
        numbered = [
            (i, line) for i, line in enumerate(f, start=1) if line.strip() and line[0] != "#"
        ]
    if not numbered:
        raise FormatError(f"{path}: empty (a CSV estimate starts with a header line)")
    reader = csv.reader(line for _, line in numbered)
    try:
        rows = list(reader)
    except csv.Error as exc:  # a field beyond the csv module's limit: binary or damaged
        line = numbered[min(reader.line_num, len(numbered)) - 1][0]
        raise FormatError(f"{path}: line {line}: not CSV ({exc})") from None
    header = [h.strip() for h in rows[0]]
    header_line = numbered[0][0]
    time_col, frame, pos, quat, cov, used = _header_columns(path, header, header_line)
    index = {name: header.index(name) for name in used}
    required = {time_col, *pos}
    n = len(rows) - 1
    data = np.full((n, len(used)), np.nan)
    for r, row in enumerate(rows[1:]):
        line = numbered[r + 1][0]
        if len(row) != len(header):
            raise FormatError(
                f"{path}: line {line}: {len(row)} fields, the header has {len(header)}"
            )
        for k, name in enumerate(used):
            cell = row[index[name]].strip()
            if not cell and name not in required:
                continue
            try:
                value = float(cell)
            except ValueError:
                raise FormatError(
                    f"{path}: line {line}: {name} = {cell!r} is not a number"
                ) from None
            if not math.isfinite(value):
                raise FormatError(f"{path}: line {line}: {name} = {cell!r} is not finite")
            data[r, k] = value
    lines = [numbered[r + 1][0] for r in range(n)]
    where = lambda i: f"line {lines[i]}"
    if n == 0:
        raise FormatError(f"{path}: a header but no epochs")
    _whole_groups(path, data, used, (quat, cov), where)
    t = data[:, 0]
    time_base = "episode"
    if time_col == "unix_time_s":
        t = t - start_ns * 1e-9
        time_base = "unix"
    xyz = data[:, 1:4]
    q = None
    col = 4
    if quat:
        q = data[:, col : col + 4]
        col += 4
        norm = np.sqrt(np.sum(q * q, axis=1))
        given = ~np.isnan(q).any(axis=1)
        bad = np.flatnonzero(given & (np.abs(norm - 1.0) > QUAT_NORM_TOL))
        if bad.size:
            i = int(bad[0])
            raise FormatError(
                f"{path}: {where(i)}: the quaternion {q[i].tolist()} has norm {norm[i]:.6g}, "
                f"not 1 (within {QUAT_NORM_TOL})"
            )
        q = np.where(given[:, None], q / np.where(given, norm, 1.0)[:, None], np.nan)
    c = _covariance(path, data[:, col:], cov, where) if cov else None
    ignored = [h for h in header if h not in used]
    note = f"columns {', '.join(pos)}" + (f" (ignored: {', '.join(ignored)})" if ignored else "")
    return finish(str(path), t, xyz, frame, q, c, time_base, note, where=where)
