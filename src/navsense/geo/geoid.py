"""EGM96 geoid undulation N (m) from the published 15' grid, interpolated as PROJ does.

The orthometric (EGM96) height of a point of WGS84 ellipsoidal height h is ``H = h - N(lat,
lon)``. A local site (:meth:`navsense.geo.Georeference.local`) uses it for its geoid: the GGA
altitude and geoid separation and the ``altitude_egm96_m`` key of the GNSS rows, the
barometer's height above the geoid, the ``alt_m`` of a recorded track. (The ACRE site keeps the
specification's NAVD88 through its GEOID12B plane, "Datum Chain" step 4.)

Data (``navsense/geo/data/egm96_15.npz``, provenance in ``navsense/geo/data/README.md``): NGA's
EGM96 undulations on a 15' grid (WW15MGH), as PROJ-data 9.1.1 ships them (``egm96_15.gtx``),
721 rows from -90 to 90 deg, 1440 columns from -180 deg eastward, rounded to whole millimetres
(at most 0.5 mm from the published float32 values) and rebuilt exactly here by an integer
cumulative sum of the stored steps along longitude. ``tools/make_egm96.py`` makes the file.

Interpolation: bilinear in the cell of the grid, as PROJ's vertical grids (``vgridshift``,
``read_vgrid_value``)::

    x = (lon - lon0) / dlon  (wrapped into [0, 1440)),   y = (lat - lat0) / dlat
    i = floor(x), j = floor(y), fx = x - i, fy = y - j
    N = N[j, i] (1 - fx)(1 - fy) + N[j, i+1] fx (1 - fy) + N[j+1, i] (1 - fx) fy + N[j+1, i+1] fx fy

with column i+1 = 0 past the last column (the grid covers all longitudes) and row j+1 the last
row at the north pole. Agrees with NGA's published EGM96 check values to a few centimetres (the
15' grid's own interpolation error) and with PROJ on the same grid to float32 rounding
(tests/geo/test_geo_geoid.py).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

from navsense.errors import DatumError

__all__ = ["egm96_undulation_m", "GRID_FILE"]

GRID_FILE = "egm96_15.npz"  # in navsense/geo/data/


@lru_cache(maxsize=1)
def _grid() -> tuple[float, float, float, float, np.ndarray]:
    """(lat0, lon0, dlat, dlon) in degrees and the grid (721, 1441) in metres, the first column
    repeated at the end (so that i + 1 never wraps in the arrays)."""
    with np.load(Path(__file__).parent / "data" / GRID_FILE) as data:
        lat0, lon0, dlat, dlon = (float(v) for v in data["header_deg"])
        first = data["first_mm"].astype(np.int64)
        steps = data["steps_mm"].astype(np.int64)
    mm = np.empty((first.size, steps.shape[1] + 2), dtype=np.int64)
    mm[:, 0] = first
    np.cumsum(steps, axis=1, out=mm[:, 1:-1])
    mm[:, 1:-1] += first[:, None]
    mm[:, -1] = mm[:, 0]
    grid = mm / 1000.0
    grid.flags.writeable = False
    return lat0, lon0, dlat, dlon, grid


def egm96_undulation_m(lat_deg, lon_deg):
    """EGM96 geoid undulation N (m) at WGS84 latitudes and longitudes (deg; module docstring).

    Scalars give a Python float; arrays the broadcast shape of the two. Latitude must be in
    -90..90 deg (DatumError naming the value); any finite longitude is wrapped.
    """
    lat0, lon0, dlat, dlon, grid = _grid()
    rows, cols = grid.shape[0], grid.shape[1] - 1
    lat = np.asarray(lat_deg, dtype=np.float64)
    lon = np.asarray(lon_deg, dtype=np.float64)
    _check(lat, lon)
    x = np.mod((lon - lon0) / dlon, cols)
    y = (lat - lat0) / dlat
    i = np.minimum(np.floor(x).astype(np.intp), cols - 1)  # x = cols - tiny rounds up to cols
    j = np.minimum(np.floor(y).astype(np.intp), rows - 2)
    fx, fy = x - i, y - j
    a, b = grid[j, i], grid[j, i + 1]
    c, d = grid[j + 1, i], grid[j + 1, i + 1]
    n = a * (1.0 - fx) * (1.0 - fy) + b * fx * (1.0 - fy) + c * (1.0 - fx) * fy + d * fx * fy
    return n if n.ndim else float(n)


def _check(lat: np.ndarray, lon: np.ndarray) -> None:
    """DatumError naming the first latitude outside -90..90 or non-finite longitude."""
    bad = ~((lat >= -90.0) & (lat <= 90.0))
    if np.any(bad):
        value = float(np.ravel(lat)[np.flatnonzero(np.ravel(bad))[0]])
        raise DatumError(f"latitude_deg = {value!r} is out of range -90..90 deg (EGM96 geoid)")
    bad = ~np.isfinite(lon)
    if np.any(bad):
        value = float(np.ravel(lon)[np.flatnonzero(np.ravel(bad))[0]])
        raise DatumError(f"longitude_deg = {value!r} is not a finite number (EGM96 geoid)")
