"""The synthetic constellation and the lines of sight (specification, "GNSS Receiver",
"Constellation"; FAcresGnssModel::Initialize).

Each satellite is on a circular orbit. System table (planes, satellites in a plane, orbit radius,
inclination):

    GPS       6 x 5   26 559.7 km   55.0 deg
    Galileo   3 x 8   29 599.8 km   56.0 deg
    GLONASS   3 x 8   25 508.0 km   64.8 deg

Draws (stream seed + 3027, sequence 4; DESIGN.md ruling "Constellation draws")::

    t0 = 86400 U
    then for GPS, Galileo, GLONASS in this order, also for a system that is off:
        Omega0 = 2 pi U,  u00 = 2 pi U,  then one U per satellite, plane by plane,
        satellite by satellite

Elements of satellite j of plane i, in a system of n_p planes of n_s satellites::

    Omega = Omega0 + 2 pi i / n_p
    u0    = u00 + 2 pi j / n_s + 2 pi i / (n_p n_s) + 0.2 (U - 0.5)
    n     = sqrt(mu / a^3),      u = u0 + n t

Position (inertial, then Earth-fixed relative to the site)::

    x_i = a [cos Omega cos u - sin Omega sin u cos i_o,
             sin Omega cos u + cos Omega sin u cos i_o,
             sin u sin i_o]
    theta = omega_E (t + t0)
    x_e = [x_i cos theta + y_i sin theta, -x_i sin theta + y_i cos theta, z_i] - x_site

Line of sight: x_e rotated into the site's ENU with the site latitude phi_s and longitude
lambda_s, then normalised::

    l ~ [-sin lambda_s x_e + cos lambda_s y_e,
         -sin phi_s cos lambda_s x_e - sin phi_s sin lambda_s y_e + cos phi_s z_e,
          cos phi_s cos lambda_s x_e + cos phi_s sin lambda_s y_e + sin phi_s z_e]

where t is the episode time (s), x_site the ECEF position of the site on the WGS84 ellipsoid
(DESIGN.md ruling "Site position for the constellation": the WGS84 (G2139) latitude, longitude
and height of the tile origin at t = 0; for a local site its origin). The line of sight is used
unchanged in the grid ENU frame of the site (the specification's assumption "The models ignore
the convergence of that grid"). A satellite is kept when its elevation arcsin(l_u) is not less
than elevation_mask_deg.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from navsense.constants import WGS84_A_M, WGS84_INV_F
from navsense.errors import ConfigError
from navsense.kernels import compiled, kernel
from navsense.rng import Pcg32

# np.clip's ufunc itself: np.clip reaches it through three Python layers (some microseconds
# on an epoch's row); the same ufunc, so the same values
_clip: Any = getattr(getattr(getattr(np, "_core", None), "umath", None), "clip", None) or np.clip

__all__ = [
    "SYSTEMS",
    "ORBITS",
    "Orbit",
    "Constellation",
    "elevation_deg",
    "MU_M3PS2",
    "OMEGA_E_RADPS",
    "SEED_OFFSET",
    "SEQUENCE",
    "site_ecef_m",
    "constellation_site",
]

MU_M3PS2 = (
    3.986004418e14  # m^3/s^2, Earth's gravitational parameter (specification, "Constellation")
)
OMEGA_E_RADPS = 7.2921151467e-5  # rad/s, Earth's rotation rate (specification, "Constellation")
T0_SPAN_S = 86400.0  # s, t0 = 86400 U (specification, "Constellation")
U0_JITTER_RAD = 0.2  # rad, u0 += 0.2 (U - 0.5) (specification, "Constellation")
SEED_OFFSET = 3027  # stream seed = seed + 3027 (specification, "Seeds and Determinism")
SEQUENCE = 4  # stream sequence (specification, "Seeds and Determinism")
_LOS_BLOCK_EPOCHS = 256  # epochs a block in los_enu (keeps the temporaries in cache)
_FAST_MASK_MAX_DEG = 89.0  # visible(): masks within +-89 deg compare l_u with sines
_MASK_MARGIN_DEG = 1e-6  # visible(): the margin of that comparison

WGS84_F = 1.0 / WGS84_INV_F  # WGS84 flattening


@dataclass(frozen=True)
class Orbit:
    """One system's shell: ``planes`` x ``sats_per_plane`` satellites on circular orbits."""

    planes: int
    sats_per_plane: int
    radius_m: float
    inclination_deg: float

    @property
    def count(self) -> int:
        """Satellites in the system."""
        return self.planes * self.sats_per_plane


SYSTEMS = ("gps", "galileo", "glonass")  # the draw order (DESIGN.md, "Constellation draws")

ORBITS = {  # specification, "Constellation", system table
    "gps": Orbit(planes=6, sats_per_plane=5, radius_m=26_559_700.0, inclination_deg=55.0),
    "galileo": Orbit(planes=3, sats_per_plane=8, radius_m=29_599_800.0, inclination_deg=56.0),
    "glonass": Orbit(planes=3, sats_per_plane=8, radius_m=25_508_000.0, inclination_deg=64.8),
}

_LABEL_PREFIX = {"gps": "G", "galileo": "E", "glonass": "R"}  # RINEX system letters


def constellation_site(georef, start_utc: str) -> tuple[float, float, float]:
    """Where the constellation is seen from: WGS84 (G2139) latitude (deg), longitude (deg) and
    ellipsoidal height (m) of the site's origin at t = 0 (DESIGN.md ruling "Site position for the
    constellation"). ``georef`` the site's navsense.geo.Georeference; None (a site without a
    georeference) sees the sky of the specification's ACRE tile, whose chain starts at
    ``start_utc``."""
    if georef is None:
        from navsense.geo import Georeference

        georef = Georeference.acre(start_utc=start_utc)
    return georef.site_wgs84_lat_lon_h()


def site_ecef_m(lat_deg: float, lon_deg: float, h_m: float) -> np.ndarray:
    """ECEF position (3,) of a geodetic point on the WGS84 ellipsoid, m.

    x = (N + h) cos phi cos lambda,  y = (N + h) cos phi sin lambda,  z = (N (1 - e^2) + h) sin phi,
    N = a / sqrt(1 - e^2 sin^2 phi),  e^2 = f (2 - f).
    """
    phi, lam = np.radians(lat_deg), np.radians(lon_deg)
    e2 = WGS84_F * (2.0 - WGS84_F)
    n = WGS84_A_M / np.sqrt(1.0 - e2 * np.sin(phi) ** 2)
    return np.array(
        [
            (n + h_m) * np.cos(phi) * np.cos(lam),
            (n + h_m) * np.cos(phi) * np.sin(lam),
            (n * (1.0 - e2) + h_m) * np.sin(phi),
        ]
    )


def ecef_to_enu_matrix(lat_deg: float, lon_deg: float) -> np.ndarray:
    """The rotation (3, 3) from ECEF axes to the ENU axes at (lat, lon): rows e, n, u."""
    phi, lam = np.radians(lat_deg), np.radians(lon_deg)
    sp, cp, sl, cl = np.sin(phi), np.cos(phi), np.sin(lam), np.cos(lam)
    return np.array(
        [
            [-sl, cl, 0.0],
            [-sp * cl, -sp * sl, cp],
            [cp * cl, cp * sl, sp],
        ]
    )


def elevation_deg(los: np.ndarray) -> np.ndarray:
    """Elevation arcsin(l_u) in degrees of unit lines of sight (..., 3) -> (...)."""
    los = np.asarray(los, dtype=np.float64)
    return np.degrees(np.arcsin(_clip(los[..., 2], -1.0, 1.0)))


class Constellation:
    """The satellites of GPS, Galileo and GLONASS, built once from the constellation stream.

    ``Constellation(seed, enabled, site_lat_deg, site_lon_deg, site_h_m)``: ``seed`` is the
    configuration's seed (the stream is ``Pcg32(seed + 3027, 4)``), ``enabled`` maps each of
    :data:`SYSTEMS` to a bool (``gnss.constellations``), the site is its WGS84 latitude,
    longitude (deg) and ellipsoidal height (m).

    Per-satellite arrays (nsat,), satellites in draw order (system, plane, satellite):
    ``system`` (names), ``enabled`` (bool), ``prn`` (1-based number within its system),
    ``label`` ("G01", "E05", "R24"), ``plane`` (0-based), ``raan_rad`` (Omega), ``u0_rad``,
    ``radius_m`` (a), ``inclination_rad`` (i_o), ``mean_motion_radps`` (n).
    Scalars: ``t0_s``, ``site_ecef_m`` (3,), ``ecef_to_enu`` (3, 3).
    """

    def __init__(
        self,
        seed: int,
        enabled: dict[str, bool],
        site_lat_deg: float,
        site_lon_deg: float,
        site_h_m: float,
    ) -> None:
        unknown = sorted(set(enabled) - set(SYSTEMS))
        missing = [s for s in SYSTEMS if s not in enabled]
        if unknown or missing:
            raise ConfigError(
                f"gnss.constellations = {dict(enabled)!r}: expected one boolean for each of "
                f"{', '.join(SYSTEMS)}"
                + (f"; unknown: {', '.join(unknown)}" if unknown else "")
                + (f"; missing: {', '.join(missing)}" if missing else "")
            )
        if not -90.0 <= float(site_lat_deg) <= 90.0:
            raise ConfigError(f"site latitude = {site_lat_deg} deg is out of range -90..90")

        rng = Pcg32(int(seed) + SEED_OFFSET, SEQUENCE)
        n_draws = 1 + sum(2 + ORBITS[s].count for s in SYSTEMS)
        u = rng.uniforms(n_draws)  # the same values as scalar draws, in the same order
        self.t0_s = T0_SPAN_S * u[0]  # t0 = 86400 U

        system, on, prn, plane, raan, u0, radius, incl = [], [], [], [], [], [], [], []
        k = 1
        for name in SYSTEMS:
            orb = ORBITS[name]
            n_p, n_s = orb.planes, orb.sats_per_plane
            raan0 = 2.0 * np.pi * u[k]  # Omega0 = 2 pi U
            u00 = 2.0 * np.pi * u[k + 1]  # u00 = 2 pi U
            per_sat = u[k + 2 : k + 2 + orb.count].reshape(n_p, n_s)
            k += 2 + orb.count
            i, j = np.meshgrid(
                np.arange(n_p, dtype=np.float64), np.arange(n_s, dtype=np.float64), indexing="ij"
            )  # plane i, satellite j
            # Omega = Omega0 + 2 pi i / n_p
            raan.append((raan0 + 2.0 * np.pi * i / n_p).ravel())
            # u0 = u00 + 2 pi j / n_s + 2 pi i / (n_p n_s) + 0.2 (U - 0.5)
            u0.append(
                (
                    u00
                    + 2.0 * np.pi * j / n_s
                    + 2.0 * np.pi * i / (n_p * n_s)
                    + U0_JITTER_RAD * (per_sat - 0.5)
                ).ravel()
            )
            system += [name] * orb.count
            on += [bool(enabled[name])] * orb.count
            prn.append(np.arange(1, orb.count + 1))
            plane.append(i.ravel().astype(np.int64))
            radius.append(np.full(orb.count, orb.radius_m))
            incl.append(np.full(orb.count, np.radians(orb.inclination_deg)))

        self.system = np.array(system)
        self._on = {name: bool(enabled[name]) for name in SYSTEMS}
        self.enabled = np.array(on, dtype=bool)
        self.prn = np.concatenate(prn)
        self.label = np.array([f"{_LABEL_PREFIX[s]}{p:02d}" for s, p in zip(system, self.prn)])
        self.plane = np.concatenate(plane)
        self.raan_rad = np.concatenate(raan)
        self.u0_rad = np.concatenate(u0)
        self.radius_m = np.concatenate(radius)
        self.inclination_rad = np.concatenate(incl)
        self.mean_motion_radps = np.sqrt(MU_M3PS2 / self.radius_m**3)  # n = sqrt(mu / a^3)
        self.site_lat_deg = float(site_lat_deg)
        self.site_lon_deg = float(site_lon_deg)
        self.site_h_m = float(site_h_m)
        self.site_ecef_m = site_ecef_m(self.site_lat_deg, self.site_lon_deg, self.site_h_m)
        self.ecef_to_enu = ecef_to_enu_matrix(self.site_lat_deg, self.site_lon_deg)
        self._cos_raan, self._sin_raan = np.cos(self.raan_rad), np.sin(self.raan_rad)
        self._cos_i, self._sin_i = np.cos(self.inclination_rad), np.sin(self.inclination_rad)
        # los_enu's kernel's constants: a, cos O, sin O, cos i, sin i; the site and ecef_to_enu
        self._orbit = np.stack(
            [
                self.radius_m,
                self._cos_raan,
                self._sin_raan,
                self._cos_i,
                self._sin_i,
                self.u0_rad,
                self.mean_motion_radps,
            ]
        )
        self._on_row = self.enabled.astype(np.float64)  # _visible_row's enabled systems
        self._sines: dict[float, np.ndarray] = {}  # visible()'s sines by mask
        t0_row = np.array([[self.t0_s, 0.0, 0.0]])
        self._site_r = np.concatenate([self.site_ecef_m[None], self.ecef_to_enu, t0_row])

    @property
    def nsat(self) -> int:
        """Number of satellites (all systems, also those that are off)."""
        return self.system.size

    @property
    def system_names(self) -> tuple[str, ...]:
        """The names that :attr:`system_index` indexes (:data:`SYSTEMS`)."""
        return SYSTEMS

    @property
    def system_index(self) -> np.ndarray:
        """Each satellite's system as its index into :data:`SYSTEMS` (nsat,) int8."""
        return np.array([SYSTEMS.index(s) for s in self.system], dtype=np.int8)

    @property
    def systems_on(self) -> list[str]:
        """The systems that are on, in the order of :data:`SYSTEMS`."""
        return [s for s in SYSTEMS if self._on[s]]

    def sky(self, t_s, elevation_mask_deg: float) -> tuple[np.ndarray, np.ndarray]:
        """Lines of sight :meth:`los_enu` (m, nsat, 3) and the tracked satellites
        :meth:`visible` (m, nsat) at episode times t_s (m,): the interface of the receiver's
        sky (navsense.sky.orbits)."""
        los = self.los_enu(t_s)
        return los, self.visible(los, elevation_mask_deg)

    def episode_info(self) -> dict:
        """The constellation's draws and site, for episode.json."""
        return {
            "gnss_constellation": {
                "t0_s": round(float(self.t0_s), 6),
                "satellites_enabled": int(np.count_nonzero(self.enabled)),
                "site_wgs84_lat_lon_h": [
                    round(self.site_lat_deg, 9),
                    round(self.site_lon_deg, 9),
                    round(self.site_h_m, 4),
                ],
            }
        }

    # ------------------------------------------------------------------------------ geometry
    def _inertial(self, t: np.ndarray):
        """x_i, y_i, z_i, each (m, nsat), m."""
        u = self.u0_rad + self.mean_motion_radps * t[:, None]  # u = u0 + n t
        cu, su = np.cos(u), np.sin(u)
        a = self.radius_m
        return (
            a * (self._cos_raan * cu - self._sin_raan * su * self._cos_i),
            a * (self._sin_raan * cu + self._cos_raan * su * self._cos_i),
            a * (su * self._sin_i),
        )

    def _ecef(self, t: np.ndarray):
        """Earth-fixed x, y, z, each (m, nsat), m: x_i rotated by theta = omega_E (t + t0)."""
        xi, yi, zi = self._inertial(t)
        theta = OMEGA_E_RADPS * (t + self.t0_s)
        c, s = np.cos(theta)[:, None], np.sin(theta)[:, None]
        return xi * c + yi * s, -xi * s + yi * c, zi

    def inertial_m(self, t_s) -> np.ndarray:
        """Inertial positions x_i (m, nsat, 3) at episode times t_s (m,), m."""
        return np.stack(self._inertial(_times(t_s)), axis=-1)

    def ecef_m(self, t_s) -> np.ndarray:
        """Earth-fixed positions (m, nsat, 3) at episode times t_s (m,), m."""
        return np.stack(self._ecef(_times(t_s)), axis=-1)

    def los_enu(self, t_s) -> np.ndarray:
        """Unit lines of sight l (m, nsat, 3) in the site's ENU at episode times t_s (m,).

        x_e = x - x_site (x the Earth-fixed position of :meth:`ecef_m`), rotated to ENU with
        phi_s, lambda_s (rows of ``ecef_to_enu``) and divided by its length. Computed in blocks of
        epochs into reused buffers, with the operations of :meth:`_inertial` and :meth:`_ecef` in
        the same order (elementwise, so the values do not depend on the blocks or on how the
        caller cuts the epochs).
        """
        t = _times(t_s)
        m, nsat = t.size, self.nsat
        out = np.empty((m, nsat, 3))
        if m == 0:
            return out
        mb = min(m, _LOS_BLOCK_EPOCHS)
        for b0 in range(0, m, mb):
            b1 = min(m, b0 + mb)
            _los_rows(t[b0:b1, None], self._orbit, self._site_r, out[b0:b1])
        return out

    @staticmethod
    def elevation_deg(los: np.ndarray) -> np.ndarray:
        """Elevation arcsin(l_u) in degrees, (..., 3) -> (...)."""
        return elevation_deg(los)

    def _mask_sines(self, mask: float) -> np.ndarray:
        """sin(mask + margin), sin(mask - margin) of :meth:`visible` (computed once a mask)."""
        sines = self._sines.get(mask)
        if sines is None:
            hi = math.sin(math.radians(mask + _MASK_MARGIN_DEG))
            lo = math.sin(math.radians(mask - _MASK_MARGIN_DEG))
            sines = self._sines[mask] = np.array([hi, lo])
        return sines

    def visible(self, los: np.ndarray, elevation_mask_deg: float) -> np.ndarray:
        """Tracked satellites (m, nsat): elevation not less than the mask and system enabled.

        The elevation arcsin(l_u) is only evaluated where l_u lies within 1e-6 deg of the mask's
        sine (for masks within +-89 deg): elsewhere l_u against sin(mask +- 1e-6 deg) decides,
        with the result of the comparison of the angle (the margin is far above the errors of
        arcsin, sin and degrees).
        """
        los = np.asarray(los, dtype=np.float64)
        mask = float(elevation_mask_deg)
        if not abs(mask) <= _FAST_MASK_MAX_DEG:
            return (elevation_deg(los) >= mask) & self.enabled
        if los.shape[0] == 1 and los.ndim == 3 and compiled():  # one epoch: one kernel
            nsat = los.shape[1]
            out = np.empty(nsat + 1)
            _visible_row(np.ascontiguousarray(los[0]), self._mask_sines(mask), self._on_row, out)
            if out[nsat] == 0.0:  # no l_u within the margin: the comparisons decided
                return (out[:nsat] != 0.0).reshape(1, nsat)
        up = los[..., 2]
        above = up > math.sin(math.radians(mask + _MASK_MARGIN_DEG))
        unsure = (up >= math.sin(math.radians(mask - _MASK_MARGIN_DEG))) & ~above
        if np.count_nonzero(unsure):
            above[unsure] = elevation_deg(los[unsure]) >= mask
        return above & self.enabled


@kernel(2, 1, 1, 1)
def _visible_row(los, sines, on, out):
    """Constellation.visible of one epoch after its sines, compiled: los (nsat, 3), sines (2,)
    = sin(mask + margin), sin(mask - margin), on (nsat,) 1.0 where the system is enabled ->
    out (nsat + 1,): 1.0 where l_u > sines[0] and enabled, else 0.0; out[nsat] the number of
    l_u within the margin (sines[1] <= l_u, not above: their arcsin decides, the caller's
    numpy path)."""
    nsat = los.shape[0]
    unsure = 0.0
    for p in range(nsat):
        up = los[p, 2]
        above = up > sines[0]
        if not above and up >= sines[1]:
            unsure += 1.0
        out[p] = 1.0 if above and on[p] != 0.0 else 0.0
    out[nsat] = unsure


def _times(t_s) -> np.ndarray:
    t = np.asarray(t_s, dtype=np.float64)
    if t.ndim != 1:
        raise ValueError(f"Expected `t_s` to have shape (m,), got {t.shape}")
    return t


@kernel(2, 2, 2, 3, libm=True)
def _los_rows(t, orbit, site_r, out):
    """Constellation.los_enu on rows of epochs (the operations of Constellation._inertial and
    _ecef in their order, the sines and cosines numpy's or, compiled, the C library's: a
    ``libm`` kernel): t (k, 1) the episode times; orbit (7, nsat) = a, cos O, sin O, cos i,
    sin i, u0, n; site_r (5, 3) = the site's ECEF, the rows of ecef_to_enu and (t0, 0, 0) ->
    out (k, nsat, 3), the unit lines of sight::

        u = u0 + n t,  theta = omega_E (t + t0)
        x_i = a (cos O cos u - sin O sin u cos i),  y_i = a (sin O cos u + cos O sin u cos i),
        z_i = a sin u sin i;  x_e = x_i c + y_i s,  y_e = y_i c - x_i s  (c, s of theta)
        l = R (x_e - x_site) / |R (x_e - x_site)|"""
    a, cos_raan, sin_raan, cos_i, sin_i = orbit[0], orbit[1], orbit[2], orbit[3], orbit[4]
    # in place on seven work arrays (numpy: no temporaries a block)
    work = np.empty((7, t.shape[0], orbit.shape[1]))
    x, y, z, tmp, w, cu, su = work[0], work[1], work[2], work[3], work[4], work[5], work[6]
    mul, add, sub = np.multiply, np.add, np.subtract
    add(orbit[5], mul(orbit[6], t, su), su)  # u = u0 + n t
    np.cos(su, cu)
    np.sin(su, su)
    theta = OMEGA_E_RADPS * (t + site_r[4, 0])  # (k, 1)
    c, s = np.cos(theta), np.sin(theta)
    mul(mul(sin_raan, su, tmp), cos_i, tmp)
    mul(sub(mul(cos_raan, cu, x), tmp, x), a, x)  # x_i = (cos O cos u - sin O sin u cos i) a
    mul(mul(cos_raan, su, tmp), cos_i, tmp)
    mul(add(mul(sin_raan, cu, y), tmp, y), a, y)  # y_i = (sin O cos u + cos O sin u cos i) a
    mul(mul(su, sin_i, z), a, z)  # z_i = sin u sin i a
    add(mul(x, c, cu), mul(y, s, tmp), cu)  # x_e = x_i c + y_i s
    sub(mul(y, c, w), mul(x, s, tmp), w)  # y_e = y_i c - x_i s
    sub(cu, site_r[0, 0], x)  # x_e - x_site
    sub(w, site_r[0, 1], y)
    sub(z, site_r[0, 2], z)
    enu = (cu, w, su)
    for row in range(3):  # R (x_e - x_site), row by row
        e = enu[row]
        add(mul(site_r[1 + row, 0], x, e), mul(site_r[1 + row, 1], y, tmp), e)
        add(e, mul(site_r[1 + row, 2], z, tmp), e)
    add(mul(cu, cu, x), mul(w, w, tmp), x)  # |.|^2
    add(x, mul(su, su, tmp), x)
    np.sqrt(x, x)
    for row in range(3):
        np.divide(enu[row], x, out[:, :, row])
