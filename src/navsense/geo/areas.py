"""Where a datum applies: the area of use of NAD83(2011).

The ``nad83`` output frames (the GNSS receiver's NAD83(HARN), the INS's NAD83(2011)) are defined
only where NAD83 is: the ACRE site's chain transforms WGS84 to NAD83(2011) with the Helmert of
the U.S. National Geodetic Survey. A local site outside that area defaults its frames to WGS84
(G2139), and ``nad83`` is refused there (:func:`navsense.run.prepare_run`,
:func:`navsense.simulate.build_models`).

The area is EPSG's bounding box of NAD83(2011) (EPSG:6318: Puerto Rico, the United States and
the US Virgin Islands, onshore and offshore), which crosses the antimeridian: latitude 14.92 to
74.71 deg, longitude from 167.65 deg east eastward to 63.88 deg west. It is a box, so it also
holds most of Canada and northern Mexico, whose national NAD83 realisations agree with
NAD83(2011) to a metre or better.
"""

from __future__ import annotations

from navsense.rotation import wrap_degrees

__all__ = ["NAD83_AREA", "in_nad83_area", "nad83_area_text"]

# EPSG:6318 (NAD83(2011)) area of use, bounding box: south, north, west, east (deg); west > east:
# the box crosses the antimeridian
NAD83_AREA = (14.92, 74.71, 167.65, -63.88)


def in_nad83_area(lat_deg: float, lon_deg: float) -> bool:
    """True when the point lies in the area of use of NAD83(2011) (module docstring)."""
    south, north, west, east = NAD83_AREA
    lon = wrap_degrees(float(lon_deg))
    return south <= float(lat_deg) <= north and (lon >= west or lon <= east)


def nad83_area_text() -> str:
    """The area in words, for messages."""
    south, north, west, east = NAD83_AREA
    return (
        f"the area of NAD83(2011) (EPSG:6318: latitude {south:g}..{north:g} deg, longitude "
        f"{west:g} E eastward to {-east:g} W)"
    )
