"""Physical and geodetic constants, each once, with its unit and source.

Every module takes these from here; a model's docstring may repeat a value in its equation, the
code never does.
"""

from __future__ import annotations

__all__ = [
    "GRAVITY_MPS2",
    "WGS84_A_M",
    "WGS84_INV_F",
    "GRS80_A_M",
    "GRS80_INV_F",
    "EARTH_ROTATION_RADPS",
    "WGS84_GM_M3PS2",
    "WGS84_GAMMA_EQUATOR_MPS2",
    "WGS84_GAMMA_POLE_MPS2",
    "DEG",
    "DEG_PER_RAD",
    "KNOT_MPS",
    "KMH_MPS",
    "GNSS_SYSTEMS",
]

GRAVITY_MPS2 = 9.80665  # m/s^2, standard gravity (CGPM 1901; specification "IMU" and "INS")

WGS84_A_M = 6_378_137.0  # m, WGS84 semi-major axis (NGA.STND.0036; spec "Datum Chain", "ECEF")
WGS84_INV_F = 298.257223563  # WGS84 inverse flattening (NGA.STND.0036)

GRS80_A_M = 6_378_137.0  # m, GRS80 semi-major axis (Moritz 1980; NAD83(HARN), NAD83(2011))
GRS80_INV_F = 298.257222101  # GRS80 inverse flattening (Moritz 1980)

EARTH_ROTATION_RADPS = 7.292115e-5  # rad/s, WGS84 Earth rotation rate (NGA.STND.0036)
WGS84_GM_M3PS2 = 3.986004418e14  # m^3/s^2, WGS84 geocentric gravitational constant (NGA.STND.0036)
WGS84_GAMMA_EQUATOR_MPS2 = 9.7803253359  # m/s^2, WGS84 normal gravity at the equator (TR8350.2)
WGS84_GAMMA_POLE_MPS2 = 9.8321849378  # m/s^2, WGS84 normal gravity at the poles (TR8350.2)

DEG = 0.017453292519943295  # rad per degree, pi / 180 rounded to binary64
DEG_PER_RAD = 57.29577951308232  # degrees per radian, 180 / pi rounded to binary64

KNOT_MPS = 1852.0 / 3600.0  # m/s per knot: the international nautical mile (1852 m) per hour
KMH_MPS = 1000.0 / 3600.0  # m/s per km/h

# the satellite systems a receiver may track (gnss.systems' choices, for navsense.config, which
# does not import navsense.sky): the names of navsense.sky.systems.SYSTEM_CODES, in its order
# (tests/sky/test_orbits.py holds them equal)
GNSS_SYSTEMS = ("gps", "galileo", "glonass", "beidou", "qzss")
