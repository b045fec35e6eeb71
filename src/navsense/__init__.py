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

import sys

__version__ = "0.1.0"

__all__ = ["__version__"]


def file_size_limited() -> bool:
    """True in a process with a file-size limit (``ulimit -f``, RLIMIT_FSIZE), where a write may
    be cut short. There navsense writes no ``.pyc``: CPython writes a module's bytecode with one
    ``write`` whose short count it does not check, so the file is cut at the limit and renamed
    into place, and from then on every process that imports the module (any user, any limit)
    fails with ``EOFError: marshal data too short`` until its source changes (seen:
    navsense/sensors/__pycache__/imu.cpython-311.pyc cut at 20 000 bytes by a run under a
    20 000-byte limit; only installs whose bytecode was not compiled at install time write it
    then). navsense.kernels compiles nothing there either (numba's cache writes fail)."""
    try:
        import resource
    except ImportError:  # not POSIX: no such limit
        return False
    return resource.getrlimit(resource.RLIMIT_FSIZE)[0] != resource.RLIM_INFINITY


if file_size_limited():
    sys.dont_write_bytecode = True
