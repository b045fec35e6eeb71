"""The dual-antenna heading's keys, ``gnss.heading`` (issue 29 item 4), and their cross-key
check against the antenna and the NMEA sentences (:func:`heading_antennas`, one of the GNSS
section's final checks); navsense.config.keys puts the section in the table of keys."""

from __future__ import annotations

from collections.abc import Mapping

from navsense.config.fields import Field, Section

__all__ = [
    "HEADING_BASELINE_TOLERANCE_M",
    "HEADING_MIN_BASELINE_M",
    "HEADING_SECTION",
    "heading_antennas",
]

#: m: gnss.heading.antenna2_flu_m's distance from gnss.antenna_flu_m must be
#: gnss.heading.baseline_m within this, as a Hemisphere Vector compass refuses a heading when the
#: measured separation (MSEP) it was given and the one it computes (CSEP) differ by 2 cm or more
#: (Hemisphere GNSS tech tips, "What is the difference between MSEP and CSEP")
HEADING_BASELINE_TOLERANCE_M = 0.02

#: m: the shortest baseline (gnss.heading.baseline_m > 0, and the antennas' distance). Ruling:
#: below an RTK fixed baseline's own precision, 7 mm (0.4 deg x 1 m, navsense.sensors.gnss.heading)
#: a heading is noise; and a baseline of 1e-300 m vanished in the lever arm's x + L (the second
#: antenna on the first), which gave no heading at all (null in every RTK fixed row) with no word
HEADING_MIN_BASELINE_M = 0.01

#: gnss.heading (issue 29 item 4): the second antenna of a moving-base / dual-antenna receiver
#: (navsense.sensors.gnss.heading, where each value's source is given)
HEADING_SECTION = Section(
    {
        "baseline_m": Field(
            "number",
            minimum=0,
            maximum=100,
            extension=True,
            chosen="m; 0: one antenna, no heading; else the distance between the two antennas, "
            "0.01 .. 100 m (a ship's dual-antenna baselines are tens of metres)",
            default=0,
        ),
        "antenna2_flu_m": Field(
            "vector",
            length=3,
            nullable=True,
            extension=True,
            chosen="the second antenna's lever arm in mount_frame axes, as gnss.antenna_flu_m, m; "
            "null: gnss.heading.baseline_m straight ahead of gnss.antenna_flu_m",
            default=None,
        ),
        "sigma_deg_at_1m": Field(
            "number",
            minimum=0,
            maximum=10,
            extension=True,
            chosen="deg, the heading's standard deviation in RTK fixed with a 1 m baseline, divided "
            "by the baseline's horizontal length in m (u-blox ZED-F9H: 0.4 deg at 1 m); <= 10",
            default=0.4,
        ),
        "pitch_sigma_ratio": Field(
            "number",
            minimum=0,
            maximum=10,
            extension=True,
            chosen="the pitch's standard deviation over the heading's at the same baseline "
            "(Spectra SP90m manual: heading about twice as accurate as pitch); <= 10",
            default=2,
        ),
        "rtk_float": Field(
            "boolean",
            extension=True,
            chosen="false: a heading in RTK fixed only (u-blox ZED-F9H integration manual); true: "
            "also in RTK float, its sigma times the float / fixed ratio of gnss.states' sigma_h_m",
            default=False,
        ),
    }
)


def heading_antennas(gnss: Mapping):
    """HDT in gnss.nmea.sentences needs the heading on; gnss.heading.antenna2_flu_m (when
    given) lies gnss.heading.baseline_m from
    gnss.antenna_flu_m, within HEADING_BASELINE_TOLERANCE_M; the baseline is not vertical (a
    heading needs a horizontal part: at least a tenth of its length)."""
    heading = gnss.get("heading")
    if not isinstance(heading, Mapping) or "antenna_flu_m" not in gnss:
        return None
    length, r2 = heading.get("baseline_m", 0), heading.get("antenna2_flu_m")
    sentences = (gnss.get("nmea") or {}).get("sentences") or ()
    if not length and "HDT" in sentences:
        return (
            "nmea.sentences",
            list(sentences),
            "lists HDT, a heading from two antennas: set gnss.heading.baseline_m > 0, or leave "
            "HDT out",
        )
    if length and float(length) < HEADING_MIN_BASELINE_M:
        return (
            "heading.baseline_m",
            length,
            f"is not 0 (one antenna, no heading) or {HEADING_MIN_BASELINE_M:g} .. 100 m: a "
            "shorter baseline is below an RTK fixed baseline's precision (7 mm)",
        )
    if not length or r2 is None:
        return None
    d = [float(b) - float(a) for a, b in zip(gnss["antenna_flu_m"], r2, strict=True)]
    distance = sum(x * x for x in d) ** 0.5
    if distance < HEADING_MIN_BASELINE_M:
        return (
            "heading.antenna2_flu_m",
            list(r2),
            f"is {distance:.3g} m from gnss.antenna_flu_m {list(gnss['antenna_flu_m'])}: the two "
            f"antennas must be at least {HEADING_MIN_BASELINE_M:g} m apart to give a heading",
        )
    if abs(distance - float(length)) >= HEADING_BASELINE_TOLERANCE_M:
        return (
            "heading.antenna2_flu_m",
            list(r2),
            f"is {distance:.3f} m from gnss.antenna_flu_m {list(gnss['antenna_flu_m'])}, not "
            f"gnss.heading.baseline_m = {float(length):g} m (within "
            f"{HEADING_BASELINE_TOLERANCE_M:g} m)",
        )
    if (d[0] * d[0] + d[1] * d[1]) ** 0.5 < 0.1 * distance:
        return (
            "heading.antenna2_flu_m",
            list(r2),
            "is straight above or below gnss.antenna_flu_m: the baseline's horizontal length "
            "must be at least a tenth of its length to give a heading",
        )
    return None
