"""The satellite systems a receiver may track, and their codes: the one table of them.

Each system once, with the codes every layer uses (the receiver's blocks, the sky plot's labels,
RINEX files, NMEA sentences)::

    system    RINEX  NMEA talker  system ID  GSV signal ID      NMEA numbers
    gps       G      GP           1          1 (L1 C/A)         PRN 1..32
    glonass   R      GL           2          1 (L1 OF)          slot + 64: 65..96
    galileo   E      GA           3          7 (E1 B/C)         PRN 1..36
    beidou    C      GB           4          1 (B1I)            PRN 1..63
    qzss      J      GQ           5          1 (L1 C/A)         PRN 1..10 (RINEX J01..J10)

The talkers, system IDs and signal IDs are NMEA 0183 4.11's (4.10 for GPS, GLONASS and Galileo)
as the u-blox F9 interface description lists them ("NMEA GNSS, satellite and signal numbering":
BeiDou under its own talker GB with 1..63, QZSS under GQ with 1..10). A satellite's number
within its system (the receiver's ``sat_prn``) is the one RINEX writes after the letter (the
GLONASS slot; QZSS J01 is PRN 193 - 192); its NMEA number is that plus ``nmea_offset``.

:data:`ALL_SYSTEMS` is the order of a system's index in the receiver's blocks (``sat_system``):
the synthetic constellation's three first, in its draw order
(:data:`navsense.sky.constellation.SYSTEMS`), then BeiDou and QZSS. A new system is one row here
(and its orbits); the NMEA layout (:mod:`navsense.output.layouts.gnss`) needs nothing more.
A satellite whose number is beyond ``max_number`` has no NMEA number: the layout leaves it out
of GSA and GSV (as a u-blox receiver in its strict NMEA numbering does).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["GnssSystem", "SYSTEM_CODES", "ALL_SYSTEMS", "NMEA_ORDER"]


@dataclass(frozen=True)
class GnssSystem:
    """One satellite system's codes (module docstring)."""

    name: str  # navsense's name, as gnss.constellations / gnss.systems write it
    rinex: str  # RINEX 3 system letter (and the sky plot's label prefix)
    nmea_talker: str  # NMEA talker of its GSV
    nmea_system_id: int  # NMEA 4.10/4.11 system ID (GSA's last field)
    nmea_signal_id: int  # GSV signal ID of the signal navsense models
    nmea_offset: int  # NMEA satellite number = number within the system + nmea_offset
    max_number: int  # the highest number within the system that NMEA numbers


#: Every system, by name, in the order of :data:`ALL_SYSTEMS`
SYSTEM_CODES: dict[str, GnssSystem] = {
    s.name: s
    for s in (
        GnssSystem("gps", "G", "GP", 1, 1, 0, 32),
        GnssSystem("galileo", "E", "GA", 3, 7, 0, 36),
        GnssSystem("glonass", "R", "GL", 2, 1, 64, 32),
        GnssSystem("beidou", "C", "GB", 4, 1, 0, 63),
        GnssSystem("qzss", "J", "GQ", 5, 1, 0, 10),
    )
}
#: The index of each system in the receiver's blocks (``sat_system``)
ALL_SYSTEMS = tuple(SYSTEM_CODES)
#: The systems in the order of their NMEA system IDs (a receiver's GSA and GSV order)
NMEA_ORDER = tuple(sorted(SYSTEM_CODES, key=lambda name: SYSTEM_CODES[name].nmea_system_id))
