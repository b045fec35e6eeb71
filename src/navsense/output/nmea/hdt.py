"""HDT, heading true: the heading of a receiver with two antennas (navsense extension, issue 29
item 4; gnss.heading)::

    $GNHDT,h.hh,T*CS
        the true heading of the antennas' baseline, degrees in [0, 360), 2 decimals (as a
        Hemisphere VS100 dual-antenna compass sends it, e.g. ``$GPHDT,74.20,T*34``, NOAA PSL
        ATOMIC 2020 ship recordings; Trimble's HDT has 3: ``$GPHDT,123.456,T``; navsense's course
        over ground has 2, :mod:`navsense.output.nmea.fix`), T (true); without a heading the
        heading field empty and T kept: ``$GNHDT,,T*05`` ("By default the receiver will not
        output invalid data. In such cases, it will output empty fields", u-blox ZED-F9P
        interface description, 4.1.8; the fixed field stays, as navsense's VTG keeps its unit
        fields).

Talker GN: the heading comes from the receiver's multi-system solution (Fixposition's NMEA-GN-HDT,
NMEA 0183 4.11). Parsed by pynmeagps (heading, "T") in tests/output/test_heading_nmea.py.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from navsense.output.nmea.fields import _course_text
from navsense.output.nmea.text import _chars, _fields, _literal, _rows, sentence_lines

__all__ = ["hdt_chars", "hdt_sentences", "TALKER_HDT"]

TALKER_HDT = "GN"  # the combined talker, as RMC, VTG, GGA, GST, ZDA


def hdt_chars(heading_deg, valid=None, talker: str = TALKER_HDT) -> np.ndarray:
    """The $GNHDT sentences of m epochs (module docstring) as sentence characters: ``heading_deg``
    (m,) true heading, degrees; ``valid`` bool (m,) (None: where the heading is not NaN), the
    heading field empty where False."""
    heading = np.asarray(heading_deg, dtype=np.float64).reshape(-1)
    m = heading.size
    ok = ~np.isnan(heading) if valid is None else _rows(valid, m, bool) & ~np.isnan(heading)
    return _chars(
        _fields(talker + "HDT", _course_text(np.where(ok, heading, 0.0), ok), _literal("T")), m
    )


def hdt_sentences(*args: Any, **kwargs: Any) -> list[str]:
    """The sentences of :func:`hdt_chars` (the same arguments) as strings."""
    return sentence_lines(hdt_chars(*args, **kwargs))
