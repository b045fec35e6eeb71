"""The sentences of an epoch in a receiver's order, epoch after epoch (``gnss.nmea``).

:data:`SENTENCE_ORDER` is the order within an epoch (u-blox's: RMC, VTG, GGA, GSA, GSV, (GLL),
GST, ZDA; HDT, with a heading, first); :func:`interleave` and :func:`interleave_text` put the sentences of several types in
it, from their strings or their sentence characters (:mod:`navsense.output.nmea.text`).
"""

from __future__ import annotations

import numpy as np

from navsense.output.nmea.text import _bytes, _chars_of_lines, _split

__all__ = ["SENTENCE_ORDER", "interleave", "interleave_text"]

#: The sentences navsense writes, in the order a receiver sends them within an epoch (u-blox:
#: RMC, VTG, GGA, GSA, GSV, GLL, GST, ZDA; navsense writes no GLL). HDT (gnss.heading) comes
#: first, as a dual-antenna compass sends it ahead of its position sentences (Hemisphere VS100:
#: HDT, GGA, GLL, VTG, ZDA, RMC, GSA, GSV, GST each second, NOAA PSL ATOMIC 2020 recordings); a
#: u-blox moving-base rover reports its heading in UBX-NAV-RELPOSNED (no HDT was found among the
#: ZED-F9P interface description's NMEA messages), so u-blox sets no place for it
SENTENCE_ORDER = ("HDT", "RMC", "VTG", "GGA", "GSA", "GSV", "GST", "ZDA")


def interleave(groups: list[tuple[list[str] | np.ndarray, np.ndarray]], m: int) -> list[str]:
    """The lines of several sentence groups in epoch order, and within an epoch in the order of
    ``groups`` (each: its lines and the epoch of each line, ascending): :func:`interleave_text`
    as strings."""
    return _split(interleave_text(groups, m))


def interleave_text(groups: list[tuple[list[str] | np.ndarray, np.ndarray]], m: int) -> bytes:
    """The text (lines ending in CR LF, as a file holds them) of :func:`interleave`'s lines.

    A group's lines are strings or sentence characters (width, n) (the ``*_chars`` functions),
    put in their places of one matrix read as one text (its NULs left out), so a block of
    sentences costs no Python string a sentence (the GNSS layout's gnss.nmea). The matrix has
    a row an epoch, each group's lines of the epoch side by side in it (:func:`_by_epoch`),
    unless a group's lines crowd into a few epochs: then a row a line (:func:`_by_line`).
    """
    if not groups or m == 0:
        return b""
    chars = [c if isinstance(c, np.ndarray) else _chars_of_lines(c) for c, _ in groups]
    counts = np.zeros((len(groups), m), dtype=np.int64)
    for j, (_, epoch) in enumerate(groups):
        counts[j] = np.bincount(epoch, minlength=m)
    most = counts.max(axis=1)  # a group's lines in an epoch, at most
    widths = np.array([c.shape[0] for c in chars])
    lines = int(counts.sum())
    # an epoch's row holds `most` lines of each group: not much more than a row a line
    if m * int(most @ widths) <= _ROOM * lines * int(widths.max()):
        rows = _by_epoch(chars, [e for _, e in groups], counts, most, widths)
    else:
        rows = _by_line(chars, [e for _, e in groups], counts, lines)
    return _bytes(rows)


_ROOM = 2  # the epochs' matrix is used when at most this many times the lines' one


def _rank(counts: np.ndarray, epoch: np.ndarray) -> np.ndarray:
    """The place of each line among its epoch's lines of its group (0, 1, ...)."""
    first_of_epoch = np.cumsum(counts) - counts
    return np.arange(epoch.size) - first_of_epoch[epoch]


def _by_epoch(chars, epochs, counts, most, widths) -> np.ndarray:
    """(m, sum most widths) uint8: row e the lines of epoch e, group after group, each group's
    ``most`` places of its width side by side (NUL where an epoch has fewer lines)."""
    m = counts.shape[1]
    room = most * widths
    ends = np.cumsum(room)
    rows = np.zeros((m, int(ends[-1])), dtype=np.uint8)
    for j, (c, epoch) in enumerate(zip(chars, epochs)):
        block = rows[:, ends[j] - room[j] : ends[j]]
        if epoch.size == m and most[j] == 1:  # a line every epoch
            block[:] = c.T
        elif epoch.size:
            block.reshape(m, most[j], widths[j])[epoch, _rank(counts[j], epoch)] = c.T
    return rows


def _by_line(chars, epochs, counts, lines: int) -> np.ndarray:
    """(lines, max width) uint8: a row a line, epoch after epoch, group after group."""
    flat = counts.T.ravel()  # (epoch, group)
    start = (np.cumsum(flat) - flat).reshape(counts.shape[1], len(chars))  # first row of each
    rows = np.zeros((lines, max(c.shape[0] for c in chars)), dtype=np.uint8)
    for j, (c, epoch) in enumerate(zip(chars, epochs)):
        rows[start[epoch, j] + _rank(counts[j], epoch), : c.shape[0]] = c.T
    return rows
