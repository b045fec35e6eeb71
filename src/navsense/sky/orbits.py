"""The receiver's sky: the synthetic constellation or a RINEX navigation file (``gnss.orbits``).

:func:`make_orbits` builds one or the other from the run's settings; both give the receiver,
the report's sky plot and any reader the same interface: ``nsat``, per-satellite ``system``,
``prn``, ``label``, ``enabled``, ``site_lat_deg`` / ``site_lon_deg`` / ``site_h_m`` and
``sky(t_s, elevation_mask_deg) -> (los (m, nsat, 3), visible (m, nsat))``, ``system_index``
(each satellite's index into :data:`ALL_SYSTEMS`), ``system_names`` (the names those indices
are read with), ``systems_on`` and ``episode_info()``.

Rulings (issue 29, item 1):

- ``gnss.orbits`` "synthetic" (the default) is the specification's constellation, unchanged:
  the same draws, satellites and lines of sight, the same outputs byte for byte;
- ``gnss.systems`` lists the systems the receiver may track (default: all five of
  :data:`ALL_SYSTEMS`); a system is tracked when gnss.systems lists it and
  ``gnss.constellations`` does not turn it off (that key names gps, galileo and glonass), and
  the orbits have it. The synthetic constellation has GPS, Galileo and GLONASS (its satellites
  of an untracked system are drawn, and not tracked, as with gnss.constellations); a RINEX file
  has what its records hold. No tracked system at all is one line naming the keys;
- a relative file path is taken from the current directory (as the command line's paths).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from navsense.errors import ConfigError
from navsense.sky.broadcast_sky import BroadcastSky
from navsense.sky.constellation import SYSTEMS, Constellation
from navsense.sky.systems import ALL_SYSTEMS

__all__ = ["ALL_SYSTEMS", "SYNTHETIC", "make_orbits", "tracked_systems"]

SYNTHETIC = "synthetic"  # gnss.orbits: the specification's constellation


def tracked_systems(systems: Sequence[str], constellations: Mapping[str, bool]) -> tuple[str, ...]:
    """The systems the receiver may track: listed in gnss.systems and not turned off by
    gnss.constellations, in the order of :data:`ALL_SYSTEMS`."""
    return tuple(s for s in ALL_SYSTEMS if s in systems and constellations.get(s, True))


def make_orbits(
    orbits: str,
    systems: Sequence[str],
    constellations: Mapping[str, bool],
    seed: int,
    start_utc: str,
    site_lat_deg: float,
    site_lon_deg: float,
    site_h_m: float,
) -> Constellation | BroadcastSky:
    """The sky of ``gnss.orbits`` (module docstring): a :class:`Constellation` or a
    :class:`BroadcastSky`, seen from the site's WGS84 origin."""
    tracked = tracked_systems(systems, constellations)
    if not tracked:
        raise ConfigError(
            f"gnss.systems = {list(systems)!r} with gnss.constellations = "
            f"{dict(constellations)!r}: no system is tracked; list at least one of "
            f"{', '.join(ALL_SYSTEMS)} that gnss.constellations does not turn off"
        )
    if orbits == SYNTHETIC:
        on = {s: bool(constellations[s]) and s in tracked for s in SYSTEMS}
        if not any(on.values()):
            raise ConfigError(
                f"gnss.systems = {list(systems)!r}: the synthetic constellation (gnss.orbits "
                f"synthetic) has {', '.join(SYSTEMS)}; give one of them, or a RINEX navigation "
                "file in gnss.orbits (--gnss-orbits FILE)"
            )
        sky = Constellation(seed, on, site_lat_deg, site_lon_deg, site_h_m)
        return sky
    return BroadcastSky(
        os.path.expanduser(orbits), tracked, start_utc, site_lat_deg, site_lon_deg, site_h_m
    )
