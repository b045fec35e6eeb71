"""NMEA 0183 sentences of the GNSS receiver (``gnss.nmea``, the row key ``nmea_gga``).

One module a job, each with the formats it writes in its docstring:

- :mod:`~navsense.output.nmea.gga`: $GNGGA (specification, "GNSS Receiver / Output Row";
  DESIGN.md ruling "GGA number formats");
- :mod:`~navsense.output.nmea.fix`: RMC, VTG, GST, ZDA (navsense extension, issue 20; NMEA 0183
  4.10 as u-blox receivers send it);
- :mod:`~navsense.output.nmea.satellites`: GSA and GSV, one set a system;
- :mod:`~navsense.output.nmea.hdt`: HDT, the heading of two antennas (gnss.heading);
- :mod:`~navsense.output.nmea.fields`: the time, date, position, course and speed fields;
- :mod:`~navsense.output.nmea.text`: sentences as character matrices (all rows of a type at
  once: the same code for one epoch or a whole log), the checksum and the line end;
- :mod:`~navsense.output.nmea.interleave`: a receiver's order within an epoch
  (:data:`SENTENCE_ORDER`);
- :mod:`~navsense.output.nmea.writer`: the ``gnss.nmea`` file.

The names below are the public API, importable from this package; navsense's own modules import
them from the module that defines them.
"""

from navsense.output.nmea.fields import utc_hhmmss, utc_seconds_of_day
from navsense.output.nmea.fix import (
    TALKER_COMBINED,
    gst_chars,
    gst_sentences,
    rmc_chars,
    rmc_sentences,
    vtg_chars,
    vtg_sentences,
    zda_chars,
    zda_sentences,
)
from navsense.output.nmea.gga import (
    STATION_ID,
    TALKER_GGA,
    gga_chars,
    gga_sentence,
    gga_sentences,
)
from navsense.output.nmea.hdt import TALKER_HDT, hdt_chars, hdt_sentences
from navsense.output.nmea.interleave import SENTENCE_ORDER, interleave, interleave_text
from navsense.output.nmea.satellites import gsa_chars, gsa_sentences, gsv_chars, gsv_sentences
from navsense.output.nmea.text import LINE_END, nmea_checksum, nmea_checksums, sentence_lines
from navsense.output.nmea.writer import NmeaWriter, read_nmea

__all__ = [
    "gga_sentence",
    "gga_sentences",
    "gga_chars",
    "nmea_checksum",
    "nmea_checksums",
    "utc_hhmmss",
    "utc_seconds_of_day",
    "NmeaWriter",
    "read_nmea",
    "STATION_ID",
    "TALKER_GGA",
    "LINE_END",
    "SENTENCE_ORDER",
    "TALKER_COMBINED",
    "rmc_sentences",
    "vtg_sentences",
    "gsa_sentences",
    "gsv_sentences",
    "gst_sentences",
    "zda_sentences",
    "interleave",
    "interleave_text",
    "sentence_lines",
    "rmc_chars",
    "vtg_chars",
    "gsa_chars",
    "gsv_chars",
    "gst_chars",
    "zda_chars",
    "hdt_chars",
    "hdt_sentences",
    "TALKER_HDT",
]
