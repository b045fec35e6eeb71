"""The affine map between the site grid and UTM of "ACRES Core INS" (Georeference.affine_grid_utm).

Specification ("INS and GNSS"): section "ACRES Core INS" (FSiteGeoreference of CoreSimGeo.h).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from navsense.geo._arrays import as_float, shaped

__all__ = ["AffineGridUtm"]


@dataclass(frozen=True)
class AffineGridUtm:
    """The affine map between the site grid (ENU e, n) and UTM of "ACRES Core INS".

    FSiteGeoreference's map uses the UTM position of the origin and one grid rotation alpha;
    the specification leaves the scale implicit, without which the map is off by 0.37 m per km
    (grid metres are state-plane metres, scale ~0.99997, UTM metres have scale ~0.9996)::

        E = E_o + s ( e cos(alpha) + n sin(alpha))
        N = N_o + s (-e sin(alpha) + n cos(alpha))

    alpha is the grid rotation at the origin (UTM azimuth of the point 10 m grid-north) and
    s = |UTM(0, 10 m) - UTM(0, 0)| / 10 m, both at the episode time given to
    ``Georeference.affine_grid_utm``. Error against the full chain (ACRE, zone 16,
    nad83_2011, measured in tests/geo/test_geo_georef.py): 0.17 mm within +-1 km of the origin,
    0.7 mm within +-2 km, 1.6 mm within +-3 km, 4.4 mm within +-5 km; it grows as the square of
    the distance (the convergence and scale of the two projections differ to second order).
    Without the scale s the error would be 0.37 m per km. The wgs84_g2139 frame gives the same
    figures at a fixed epoch.
    """

    zone: int
    frame: str
    easting0_m: float
    northing0_m: float
    rotation_deg: float
    scale: float

    def grid_to_utm(self, e_m, n_m):
        """Grid ENU east, north (m) -> UTM easting, northing (m)."""
        e = as_float("e_m", e_m)
        n = as_float("n_m", n_m)
        a = math.radians(self.rotation_deg)
        ca, sa = math.cos(a), math.sin(a)
        easting = self.easting0_m + self.scale * (e * ca + n * sa)
        northing = self.northing0_m + self.scale * (-e * sa + n * ca)
        return shaped(np.asarray(easting)), shaped(np.asarray(northing))

    def utm_to_grid(self, easting_m, northing_m):
        """UTM easting, northing (m) -> grid ENU east, north (m): the exact inverse of grid_to_utm."""
        de = (as_float("easting_m", easting_m) - self.easting0_m) / self.scale
        dn = (as_float("northing_m", northing_m) - self.northing0_m) / self.scale
        a = math.radians(self.rotation_deg)
        ca, sa = math.cos(a), math.sin(a)
        e = de * ca - dn * sa
        n = de * sa + dn * ca
        return shaped(np.asarray(e)), shaped(np.asarray(n))
