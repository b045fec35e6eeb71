"""GSA and GSV: the satellites used and in view, one set of sentences a system (NMEA 0183
4.10/4.11 as the u-blox F9 interface description lays them out)::

    $GNGSA,A,3,pp,...,pp,p.pp,h.hh,v.vv,1*CS          one a system, all under the talker GN
        automatic 2D/3D, navigation mode 3 (1 without a fix, no PRN), 12 PRN fields of the
        system's satellites used (more than 12: another sentence), PDOP, HDOP, VDOP of the
        solution (2 decimals), the system ID (1 GPS, 2 GLONASS, 3 Galileo, 4 BeiDou, 5 QZSS)
    $GPGSV,t,i,nn,pp,ee,aaa,ss,...,1*CS                one set a system, under its own talker
        t sentences, this one's number, the satellites in view, up to four (PRN, elevation
        00..90 deg, azimuth 000..359 deg, C/N0 00..99 dB-Hz or empty: no signal), the signal ID
        (GPS L1 C/A 1, GLONASS L1 OF 1, Galileo E1 B/C 7, BeiDou B1I 1, QZSS L1 C/A 1); none in
        view: $GPGSV,1,1,00,1*CS

The functions take any talkers and IDs; the GNSS layout passes those of
:data:`navsense.sky.systems.SYSTEM_CODES` (talkers GP, GL, GA, GB, GQ; NMEA numbers GPS 1..32,
GLONASS 65..96 (slot + 64), Galileo 1..36, BeiDou 1..63, QZSS 1..10).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from navsense.output.nmea.text import (
    _TRIPLES,
    _chars,
    _choice,
    _decimal,
    _digits,
    _fields,
    _literal,
    _Text,
    sentence_lines,
)

__all__ = ["gsa_chars", "gsa_sentences", "gsv_chars", "gsv_sentences"]


def _compact(mask: np.ndarray, group: int, system: np.ndarray | None, systems: int):
    """:func:`_compact_rows`; where the rows come in few runs of equal rows (the satellites in
    view change a few times in a chunk of epochs), each run's values are its first row's
    repeated with their offsets (:func:`_compact_runs`: the same arrays)."""
    m = mask.shape[0]
    if m >= _RUN_MIN_ROWS:
        new_run = np.flatnonzero(np.any(mask[1:] != mask[:-1], axis=1))
        if new_run.size * _RUN_MIN_LENGTH < m:
            return _compact_runs(mask, group, system, systems, [0, *(new_run + 1).tolist(), m])
    return _compact_rows(mask, group, system, systems)


_RUN_MIN_ROWS = 16  # _compact looks for runs of equal rows in at least this many rows
# and takes them when they are this long on average: a run costs about 20 us of Python, a row
# of the row-by-row build 0.3 us (GSA's used satellites of an hour's chunks, 45 runs in 1000
# rows: 2.4 ms by runs, 0.5 ms row by row)
_RUN_MIN_LENGTH = 100


def _compact_runs(mask, group: int, system, systems: int, bounds: list[int]):
    """:func:`_compact_rows` of rows in runs of equal rows, runs ``bounds`` (first rows and the
    end): the first row's arrays of each run, repeated row after row with their offsets (row
    r's sentence rows r systems + those of the one row, its entries' flat indices r k + the
    columns, its sentences after the previous rows')."""
    m, k = mask.shape
    runs = []
    n = 0
    for a, b in zip(bounds[:-1], bounds[1:]):
        one = _compact_rows(mask[a : a + 1], group, system, systems)
        runs.append((a, b, n, one))
        n += (b - a) * one[2].size
    count = np.empty(m * systems, dtype=np.int64)
    groups = np.empty(m * systems, dtype=np.int64)
    rows = np.empty(n, dtype=np.int64)
    taken = np.empty((group, n), dtype=bool)
    flat, col, place = [], [], []
    for a, b, first, (c1, g1, r1, (_, c), p1, t1) in runs:
        q, n1 = b - a, r1.size
        epochs = np.arange(a, b, dtype=np.int64)[:, None]
        count[a * systems : b * systems] = np.tile(c1, q)
        groups[a * systems : b * systems] = np.tile(g1, q)
        rows[first : first + q * n1] = (epochs * systems + r1).reshape(-1)
        taken[:, first : first + q * n1] = np.tile(t1, (1, q))
        slot, line = np.divmod(p1, n1)  # the one row's places: slot n1 + sentence
        flat.append((epochs * k + c).reshape(-1))
        col.append(np.tile(c, q))
        place.append((slot * n + first + line + (epochs - a) * n1).reshape(-1))
    flat_all, col_all, place_all = (np.concatenate(v) for v in (flat, col, place))
    return count, groups, rows, (flat_all, col_all), place_all, taken


def _compact_rows(mask: np.ndarray, group: int, system: np.ndarray | None, systems: int):
    """The entries where ``mask`` (m, k) of each row and system, in column order, packed to the
    left in sentences of ``group`` entries (a row's system without any gets one sentence).

    ``system`` (k,) the system of each column (0 .. systems - 1, non-decreasing: the columns of
    a system are consecutive and in system order; None: one system). A sentence row is
    (row, system), numbered row * systems + system. Returns the count of each sentence row
    (m systems,), its number of sentences, the sentence row of each sentence (n,), the flat index
    (into ``mask.ravel()``) and the column of each entry, its place as a flat index into a
    (group, n) matrix (slot * n + sentence) and the places taken, slot by slot (group, n).
    """
    m, k = mask.shape
    flat = np.flatnonzero(mask)
    r = flat // k  # (np.divmod costs three times this and the product below)
    c = flat - r * k
    if system is not None:
        r = r * systems + system[c]  # ascending: flat is, and system[c] is along a row
    count = np.bincount(r, minlength=m * systems)
    groups = np.maximum(1, -(-count // group))
    slot = np.arange(r.size) - (np.cumsum(count) - count)[r]  # place within its sentence row
    line = (np.cumsum(groups) - groups)[r] + slot // group  # the row's sentence of the entry
    n = int(groups.sum())
    place = slot % group * n + line
    taken = np.zeros(group * n, dtype=bool)
    taken[place] = True
    rows = np.repeat(np.arange(m * systems), groups)
    return count, groups, rows, (flat, c), place, taken.reshape(group, n)


def _packed(values: np.ndarray, place: np.ndarray, n: int, group: int) -> np.ndarray:
    """(group, n) int64, slot by slot: the entries' ``values`` at their places (flat indices
    slot * n + sentence), 0 elsewhere."""
    out = np.zeros(group * n, dtype=np.int64)
    out[place] = values
    return out.reshape(group, n)


def _per_system(talker, code, system) -> tuple[tuple[str, ...], tuple[int, ...], np.ndarray | None]:
    """The talkers and the codes (system or signal IDs) of one or several systems, and the
    system of each column (None: one system)."""
    if isinstance(talker, str):
        return (talker,), (int(code),), None
    return tuple(talker), tuple(int(x) for x in code), np.asarray(system, dtype=np.int64)


def gsa_chars(
    used, prn, nav_mode, pdop, hdop, vdop, talker, system_id, system=None
) -> tuple[np.ndarray, np.ndarray]:
    """The GSA sentences of m epochs, system after system within an epoch, and the epoch of each.

    ``used`` (m, k) bool the satellites used, ``prn`` (k,) their NMEA numbers in the order
    printed, ``nav_mode`` (m,) 1 (no fix), 2 (2D) or 3 (3D), the DOPs (m,) printed with 2
    decimals. One system: ``talker`` (e.g. "GP") and ``system_id`` (NMEA 4.10); several: their
    sequences and ``system`` (k,) the index of each column's system into them (the columns of
    a system consecutive, in that order; one call for all systems costs a third of three).
    Each sentence: A (automatic 2D/3D), the mode, 12 PRN fields (empty beyond the used ones),
    PDOP, HDOP, VDOP and the NMEA 4.10 system ID; a system with more than 12 satellites used
    gets one more sentence for each 12 more, one with none a sentence with no PRN.
    """
    talkers, ids_of, system = _per_system(talker, system_id, system)
    used = np.asarray(used, dtype=bool)
    m, systems = used.shape[0], len(talkers)
    _, _, row, (_, c), place, ok = _compact(used, 12, system, systems)
    epoch, sys = np.divmod(row, systems)
    n = row.size
    ids = _packed(np.asarray(prn, dtype=np.int64)[c], place, n, 12)
    # the 12 PRN fields as one part: (field, [comma, two digits], sentence)
    svs = np.empty((12, 3, n), dtype=np.uint8)
    svs[:, 0] = ord(",")
    svs[:, 1] = _TRIPLES[1].take(ids)
    svs[:, 2] = _TRIPLES[2].take(ids)
    shown = np.ones((12, 3, n), dtype=bool)
    shown[:, 1] = shown[:, 2] = ok
    dops = [
        _decimal(np.asarray(d, dtype=np.float64).reshape(m)[epoch], 2) for d in (pdop, hdop, vdop)
    ]
    body = _choice(sys, tuple(t + "GSA" for t in talkers))
    body += _fields(
        "",
        _literal("A"),
        _digits(np.asarray(nav_mode).reshape(m)[epoch], 1),
    )
    body.append(_Text(svs.reshape(36, n), shown.reshape(36, n)))
    body += _fields("", *dops, _choice(sys, tuple(f"{i:X}" for i in ids_of)))
    return _chars(body, n), epoch


def gsa_sentences(*args: Any, **kwargs: Any) -> tuple[list[str], np.ndarray]:
    """The sentences of :func:`gsa_chars` (the same arguments) as strings, and the
    epoch of each."""
    chars, epoch = gsa_chars(*args, **kwargs)
    return sentence_lines(chars), epoch


def gsv_chars(
    in_view,
    prn,
    elevation_deg,
    azimuth_deg,
    cn0_dbhz,
    talker,
    signal_id,
    system=None,
    columns=None,
) -> tuple[np.ndarray, np.ndarray]:
    """The GSV sentences of m epochs, system after system within an epoch, and the epoch of each.

    ``in_view`` (m, k) bool the satellites in view, ``prn`` (k,) their NMEA numbers in the
    order printed, ``elevation_deg``, ``azimuth_deg``, ``cn0_dbhz`` (m, k) (C/N0 NaN: no
    signal); ``talker``, ``signal_id`` and ``system`` as :func:`gsa_chars`'s talker, system_id
    and system. Each sentence: the number of sentences of its system, its number, the
    satellites of its system in view (two digits), up to four satellites (PRN, elevation
    00..90, azimuth 000..359, C/N0 00..99 in dB-Hz or empty; integers, rounded), and the NMEA
    4.10 signal ID; no satellite in view gives one sentence with none.

    ``columns`` (k,) (None: the same columns): the columns of ``elevation_deg``,
    ``azimuth_deg`` and ``cn0_dbhz`` (m, K) holding ``in_view``'s, so that only the entries in
    view are read from a receiver's matrices (a copy of its columns costs more than the text).
    """
    talkers, ids_of, system = _per_system(talker, signal_id, system)
    in_view = np.asarray(in_view, dtype=bool)
    systems = len(talkers)
    count, groups, row, (flat, c), place, ok = _compact(in_view, 4, system, systems)
    n = row.size
    matrices = [np.asarray(v, dtype=np.float64) for v in (elevation_deg, azimuth_deg, cn0_dbhz)]
    if columns is not None:  # entry (r, c) is at (r, columns[c]) of the matrices
        k = in_view.shape[1]
        flat = (flat - c) // k * matrices[0].shape[1] + np.asarray(columns, dtype=np.int64)[c]
    el, az, cn0 = (v.reshape(-1).take(flat) for v in matrices)
    has_cn0 = np.isfinite(cn0)
    el = np.rint(el).astype(np.int64)
    az = np.rint(az).astype(np.int64) % 360
    snr = np.rint(np.where(has_cn0, cn0, 0.0)).astype(np.int64)
    ids = _packed(np.asarray(prn, dtype=np.int64)[c], place, n, 4)
    e = _packed(np.minimum(np.maximum(el, 0), 99), place, n, 4)
    a = _packed(az, place, n, 4)
    sig = _packed(np.where(has_cn0, np.minimum(np.maximum(snr, 0), 99), -1), place, n, 4)
    number = np.arange(n) - (np.cumsum(groups) - groups)[row]  # 0-based within its row
    sys = row % systems
    parts = _choice(sys, tuple(t + "GSV" for t in talkers))
    parts += _fields(
        "",
        _digits(groups[row], 1),
        _digits(number + 1, 1),
        _digits(np.minimum(count[row], 99), 2),
    )
    # the four satellites as one part: (slot, [,PP,EE,AAA,SS], sentence); a slot beyond the
    # last satellite prints nothing (not four empty fields), a C/N0 without signal nothing
    sats = np.empty((4, 13, n), dtype=np.uint8)
    for r in (0, 3, 6, 10):
        sats[:, r] = ord(",")
    for r, values, digits in ((1, ids, 2), (4, e, 2), (7, a, 3), (11, np.maximum(sig, 0), 2)):
        for d in range(digits):
            sats[:, r + d] = _TRIPLES[3 - digits + d].take(values)
    shown = np.empty((4, 13, n), dtype=bool)
    shown[:] = ok[:, None, :]
    shown[:, 11] &= sig >= 0
    shown[:, 12] = shown[:, 11]
    parts.append(_Text(sats.reshape(52, n), shown.reshape(52, n)))
    parts += _literal(",") + _choice(sys, tuple(f"{i:X}" for i in ids_of))
    return _chars(parts, n), row // systems


def gsv_sentences(*args: Any, **kwargs: Any) -> tuple[list[str], np.ndarray]:
    """The sentences of :func:`gsv_chars` (the same arguments) as strings, and the
    epoch of each."""
    chars, epoch = gsv_chars(*args, **kwargs)
    return sentence_lines(chars), epoch
