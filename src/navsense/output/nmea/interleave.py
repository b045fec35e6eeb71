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

    A group's lines are strings or sentence characters (width, n) (the ``*_chars`` functions):
    each group's rows are put in their places of one (lines, width) matrix, read as one text,
    so a block of sentences costs no Python string a sentence (the GNSS layout's gnss.nmea).
    """
    if not groups:
        return b""
    counts = np.zeros((m, len(groups)), dtype=np.int64)
    for j, (_, epoch) in enumerate(groups):
        counts[:, j] = np.bincount(epoch, minlength=m)
    flat = counts.ravel()
    start = (np.cumsum(flat) - flat).reshape(m, len(groups))  # first line of (epoch, group)
    chars = [c if isinstance(c, np.ndarray) else _chars_of_lines(c) for c, _ in groups]
    rows = np.zeros((int(flat.sum()), max(c.shape[0] for c in chars)), dtype=np.uint8)
    for j, (_, epoch) in enumerate(groups):
        first_of_epoch = np.cumsum(counts[:, j]) - counts[:, j]
        rank = np.arange(epoch.size) - first_of_epoch[epoch]
        rows[start[epoch, j] + rank, : chars[j].shape[0]] = chars[j].T
    return _bytes(rows)
