"""navsense: navigation sensor readings from a vehicle's truth motion.

Conventions (fixed once, here, for the whole package):

- World frame: the site's grid ENU (east, north, up), metres. For the ACRE tile these are the grid
  axes of EPSG:2968 scaled to metres, not a geodetic tangent frame (specification, "Frames and
  Sample Times"); for a local site, a tangent frame on WGS84 at the site origin.
- Body frame: FLU (forward, left, up) at the chassis origin.
- Quaternions: x, y, z, w order (scalar last), active rotation body FLU -> world ENU.
- Units: SI inside (m, s, rad, m/s, m/s^2, rad/s); degrees only where a name ends in ``_deg``;
  every quantity at an API boundary carries its unit in its name (``delay_s``, ``lat_deg``).
- Shapes: the component axis is last: vectors (..., 3), quaternions (..., 4), matrices
  (..., 3, 3); the output rank never depends on the number of rows.
- Time: episode time in seconds on the physics clock, t = step / 120 (default 120 Hz).
- Randomness: every noise source has its own :class:`navsense.rng.Pcg32` stream with the
  specification's seed offset, sequence and number of draws per epoch.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
