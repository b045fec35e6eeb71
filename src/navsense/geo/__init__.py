"""Geodesy of navsense: the site's datum chain, EPSG:2968, UTM, Helmert, epochs.

Specification "INS and GNSS" (seeds/000_43cf7e0c35354d47.txt), sections "Datum Chain",
"UTM Projection" with its origin table, "Georeference Caveats", "ACRES Core INS" and the
gnss.datum parameters; the rulings of DESIGN.md on its open points.

Modules (one function per transform, named source_to_target where the name is free):

``ellipsoid``   GRS80, WGS84; geodetic_to_ecef, ecef_to_geodetic (8 iterations)
``stateplane``  EPSG:2968 NAD83(HARN) / Indiana West (ftUS): inverse (Snyder series as written),
                forward (Newton inverse of it)
``utm``         Krueger 6th order (Karney 2011) on WGS84: forward, inverse, both hemispheres
``helmert``     ITRF2014 -> NAD83(2011), 14 parameters, coordinate frame: forward, inverse
``epoch``       start_utc + t as a decimal year
``geoid``       the EGM96 geoid undulation (NGA's 15' grid, package data), bilinear as PROJ
``georef``      Georeference.acre() / Georeference.local(): ENU <-> every frame, grid rotation,
                affine grid <-> UTM map

The ``navsense geo`` command: navsense.commands.geo.

Conventions: latitude and longitude in degrees (``_deg``), lengths in metres (``_m``) unless the
name says ``_ft`` (US survey feet, 1200/3937 m), times in seconds (``_s``), epochs in decimal
years (``_yr``). Functions take numpy arrays or scalars and return the broadcast shape; ENU
points have the component axis last, shape (..., 3). Out-of-domain input raises
``navsense.errors.DatumError`` naming the value and the allowed domain. This package imports
numpy only (pyproj is the tests' external truth, never imported here).
"""

from navsense.geo import ellipsoid, epoch, helmert, stateplane, utm
from navsense.geo.georef import AffineGridUtm, Georeference

__all__ = [
    "AffineGridUtm",
    "Georeference",
    "ellipsoid",
    "epoch",
    "helmert",
    "stateplane",
    "utm",
]
