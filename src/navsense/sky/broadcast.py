"""Satellite positions from broadcast ephemerides (Earth-fixed, m), on arrays.

Kepler orbits (GPS, Galileo, BeiDou, QZSS): IS-GPS-200 Table 20-IV, which the Galileo OS SIS ICD
(section 5.1.1, Table 58), the BeiDou ICD (B1I, section 5.2.4.12, Table 5-11) and IS-QZSS
(section 4.1.2, the GPS algorithm) repeat with their own constants::

    A = sqrt_a^2,   n0 = sqrt(mu / A^3),   t_k = t - t_oe,   n = n0 + delta_n
    M_k = M0 + n t_k,   M_k = E_k - e sin E_k  (Newton, :data:`KEPLER_ITERATIONS` steps)
    nu_k = atan2(sqrt(1 - e^2) sin E_k, cos E_k - e),   Phi_k = nu_k + omega
    du_k = c_us sin 2 Phi_k + c_uc cos 2 Phi_k,   dr_k = c_rs sin 2 Phi_k + c_rc cos 2 Phi_k
    di_k = c_is sin 2 Phi_k + c_ic cos 2 Phi_k
    u_k = Phi_k + du_k,   r_k = A (1 - e cos E_k) + dr_k,   i_k = i0 + di_k + idot t_k
    x'_k = r_k cos u_k,   y'_k = r_k sin u_k
    Omega_k = Omega0 + (Omega_dot - omega_e) t_k - omega_e t_oe
    x = x' cos Omega_k - y' cos i_k sin Omega_k
    y = x' sin Omega_k + y' cos i_k cos Omega_k
    z = y' sin i_k

BeiDou GEO satellites (C01 .. C05, C59 .. C63; BeiDou ICD, section 5.2.4.12, the GEO rows)::

    Omega_k = Omega0 + Omega_dot t_k - omega_e t_oe
    (x_g, y_g, z_g) as (x, y, z) above with this Omega_k
    (x, y, z) = R_z(omega_e t_k) R_x(-5 deg) (x_g, y_g, z_g)
    R_x(phi) = [[1, 0, 0], [0, cos phi, sin phi], [0, -sin phi, cos phi]]
    R_z(phi) = [[cos phi, sin phi, 0], [-sin phi, cos phi, 0], [0, 0, 1]]

GLONASS (ICD GLONASS, edition 5.1, 2008, Appendix A.3.1.2): the state (x, v) of the message at
t_b, in the Earth-fixed PZ-90 frame, integrated to t with 4th-order Runge-Kutta, with the
lunar-solar acceleration of the message held constant: once per record to the nodes
t_b + 60 s k (:class:`GlonassNodes`), then one step from the node nearest t (at most 30 s)::

    r = |x|,   rho = a_e / r,   mu' = mu / r^2,   x' = x / r, y' = y / r, z' = z / r
    dv_x/dt = -mu' x' - 3/2 J2 mu' rho^2 x' (1 - 5 z'^2) + omega^2 x + 2 omega v_y + a_x
    dv_y/dt = -mu' y' - 3/2 J2 mu' rho^2 y' (1 - 5 z'^2) + omega^2 y - 2 omega v_x + a_y
    dv_z/dt = -mu' z' - 3/2 J2 mu' rho^2 z' (3 - 5 z'^2) + a_z

The frames are taken as one (WGS84, PZ-90.11, CGCS2000 and the Galileo terrestrial frame agree
to a few centimetres). Positions are those at the time of reception (the signal's flight of
about 0.07 s moves a satellite by some 270 m: 0.001 deg seen from the ground; the model needs
no ranges). Each element is computed from its own inputs alone, with the same operations in the
same order, so a satellite-epoch's value does not depend on the arrays it is computed with
(batch = chunks = steps).
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "KeplerConstants",
    "KEPLER_CONSTANTS",
    "KEPLER_ITERATIONS",
    "GLONASS_STEP_S",
    "kepler_ecef_m",
    "glonass_ecef_m",
    "GlonassNodes",
    "beidou_geo",
]

KEPLER_ITERATIONS = 10  # Newton steps for Kepler's equation (e < 0.2: converged to 1e-15 rad)
GLONASS_STEP_S = 60.0  # s, the longest Runge-Kutta step (RTKLIB's TSTEP; ICD A.3.1.2)
BEIDOU_GEO_TILT_RAD = np.radians(-5.0)  # R_x(-5 deg) of the BeiDou ICD's GEO rows


class KeplerConstants:
    """A system's ``mu_m3ps2`` and ``omega_e_radps`` (Earth's rotation rate)."""

    def __init__(self, mu_m3ps2: float, omega_e_radps: float) -> None:
        self.mu_m3ps2 = mu_m3ps2
        self.omega_e_radps = omega_e_radps


KEPLER_CONSTANTS = {
    # IS-GPS-200 Table 20-IV: mu = 3.986005e14 m^3/s^2, Omega_e_dot = 7.2921151467e-5 rad/s
    "gps": KeplerConstants(3.986005e14, 7.2921151467e-5),
    # IS-QZSS-PNT section 4.1.2: the GPS values
    "qzss": KeplerConstants(3.986005e14, 7.2921151467e-5),
    # Galileo OS SIS ICD Table 58: mu = 3.986004418e14, Omega_e_dot = 7.2921151467e-5
    "galileo": KeplerConstants(3.986004418e14, 7.2921151467e-5),
    # BeiDou ICD (CGCS2000), section 3.2: mu = 3.986004418e14, Omega_e_dot = 7.2921150e-5
    "beidou": KeplerConstants(3.986004418e14, 7.2921150e-5),
}

# GLONASS ICD (PZ-90.11), section 3.1.3 and Appendix A.3.1.2
GLONASS_MU_M3PS2 = 3.986004418e14  # m^3/s^2
GLONASS_AE_M = 6_378_136.0  # m, semi-major axis of PZ-90
GLONASS_J2 = 1.0826257e-3  # second zonal harmonic (J2^0 = 1082625.75e-9)
GLONASS_OMEGA_RADPS = 7.292115e-5  # rad/s, Earth's rotation rate


def beidou_geo(prn: np.ndarray) -> np.ndarray:
    """BeiDou GEO satellites (bool): PRN 1 .. 5 and 59 .. 63 (BeiDou ICD; RTKLIB's rule)."""
    prn = np.asarray(prn)
    return (prn <= 5) | (prn >= 59)


def kepler_ecef_m(eph: dict[str, np.ndarray], tk_s: np.ndarray, constants: KeplerConstants,
                  geo: np.ndarray | None = None) -> np.ndarray:  # fmt: skip
    """Earth-fixed positions (..., 3), m, of Kepler ephemerides at t_k = t - t_oe (...), s.

    ``eph`` maps the field names of :data:`navsense.sky.rinex_nav.KEPLER_FIELDS` (``sqrt_a``,
    ``e``, ``m0``, ``delta_n``, ``omega``, ``cuc``, ``cus``, ``crc``, ``crs``, ``cic``,
    ``cis``, ``i0``, ``idot``, ``omega0``, ``omega_dot``, ``toe``) to arrays broadcastable with
    ``tk_s``; ``geo`` (bool, same shape) marks BeiDou GEO satellites (module docstring).
    """
    mu, we = constants.mu_m3ps2, constants.omega_e_radps
    tk = np.asarray(tk_s, dtype=np.float64)
    a = eph["sqrt_a"] ** 2
    n = np.sqrt(mu / a**3) + eph["delta_n"]  # n = n0 + delta_n
    mk = eph["m0"] + n * tk  # M_k = M0 + n t_k
    e = eph["e"]
    ek = mk
    for _ in range(KEPLER_ITERATIONS):  # E - e sin E = M, Newton
        ek = ek - (ek - e * np.sin(ek) - mk) / (1.0 - e * np.cos(ek))
    sin_e, cos_e = np.sin(ek), np.cos(ek)
    nu = np.arctan2(np.sqrt(1.0 - e * e) * sin_e, cos_e - e)  # true anomaly
    phi = nu + eph["omega"]  # argument of latitude
    s2, c2 = np.sin(2.0 * phi), np.cos(2.0 * phi)
    u = phi + (eph["cus"] * s2 + eph["cuc"] * c2)  # u_k = Phi_k + du_k
    r = a * (1.0 - e * cos_e) + (eph["crs"] * s2 + eph["crc"] * c2)  # r_k
    i = eph["i0"] + (eph["cis"] * s2 + eph["cic"] * c2) + eph["idot"] * tk  # i_k
    xp, yp = r * np.cos(u), r * np.sin(u)
    toe = eph["toe"]
    if geo is None:
        geo = np.zeros(np.shape(tk), dtype=bool)
    geo = np.broadcast_to(geo, np.broadcast_shapes(np.shape(geo), np.shape(tk), np.shape(toe)))
    # Omega_k = Omega0 + (Omega_dot - omega_e) t_k - omega_e t_oe; GEO: Omega0 + Omega_dot t_k - ..
    rate = np.where(geo, eph["omega_dot"], eph["omega_dot"] - we)
    big_omega = eph["omega0"] + rate * tk - we * toe
    so, co = np.sin(big_omega), np.cos(big_omega)
    ci, si = np.cos(i), np.sin(i)
    x = xp * co - yp * ci * so
    y = xp * so + yp * ci * co
    z = yp * si
    if geo.any():  # (x, y, z) = R_z(omega_e t_k) R_x(-5 deg) (x_g, y_g, z_g)
        cp, sp = np.cos(BEIDOU_GEO_TILT_RAD), np.sin(BEIDOU_GEO_TILT_RAD)
        y1 = cp * y + sp * z
        z1 = -sp * y + cp * z
        ang = we * tk
        cz, sz = np.cos(ang), np.sin(ang)
        x2 = cz * x + sz * y1
        y2 = -sz * x + cz * y1
        x, y, z = np.where(geo, x2, x), np.where(geo, y2, y), np.where(geo, z1, z)
    return np.stack(np.broadcast_arrays(x, y, z), axis=-1)


def _glonass_derivative(p: np.ndarray, v: np.ndarray, acc: np.ndarray):
    """(dx/dt, dv/dt) of ICD GLONASS A.3.1.2, each (..., 3)."""
    x, y, z = p[..., 0], p[..., 1], p[..., 2]
    r2 = x * x + y * y + z * z
    r = np.sqrt(r2)
    mu_r2 = GLONASS_MU_M3PS2 / r2  # mu' = mu / r^2
    rho2 = GLONASS_AE_M * GLONASS_AE_M / r2  # rho^2
    zr2 = z * z / r2  # z'^2
    k = 1.5 * GLONASS_J2 * mu_r2 * rho2
    w2 = GLONASS_OMEGA_RADPS * GLONASS_OMEGA_RADPS
    w = GLONASS_OMEGA_RADPS
    ax = -mu_r2 * x / r - k * (x / r) * (1.0 - 5.0 * zr2) + w2 * x + 2.0 * w * v[..., 1]
    ay = -mu_r2 * y / r - k * (y / r) * (1.0 - 5.0 * zr2) + w2 * y - 2.0 * w * v[..., 0]
    az = -mu_r2 * z / r - k * (z / r) * (3.0 - 5.0 * zr2)
    return v, np.stack((ax, ay, az), axis=-1) + acc


def _rk4_step(p, v, acc, h):
    """One 4th-order Runge-Kutta step of length h (..., 1) of ICD GLONASS A.3.1.2."""
    k1p, k1v = _glonass_derivative(p, v, acc)
    k2p, k2v = _glonass_derivative(p + 0.5 * h * k1p, v + 0.5 * h * k1v, acc)
    k3p, k3v = _glonass_derivative(p + 0.5 * h * k2p, v + 0.5 * h * k2v, acc)
    k4p, k4v = _glonass_derivative(p + h * k3p, v + h * k3v, acc)
    return (
        p + h / 6.0 * (k1p + 2.0 * k2p + 2.0 * k3p + k4p),
        v + h / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v),
    )


class GlonassNodes:
    """GLONASS states integrated once from each record's t_b to the nodes t_b + 60 s k,
    k = -K .. K (K = ceil(max_age / 60 s)): ``GlonassNodes(p0_m, v0_mps, acc_mps2, max_age_s)``
    with the records' states (R, 3); :meth:`ecef_m` then takes one Runge-Kutta step from the
    node nearest t (|h| <= 30 s). Every node is computed from its record alone, so a position
    does not depend on the other records or epochs (batch = chunks = steps)."""

    def __init__(self, p0_m, v0_mps, acc_mps2, max_age_s: float) -> None:
        p0 = np.asarray(p0_m, dtype=np.float64).reshape(-1, 3)
        v0 = np.asarray(v0_mps, dtype=np.float64).reshape(-1, 3)
        acc = np.asarray(acc_mps2, dtype=np.float64).reshape(-1, 3)
        k_max = int(np.ceil(max_age_s / GLONASS_STEP_S))
        self.k_max = k_max
        self.acc = acc
        n = 2 * k_max + 1
        self.p = np.empty((p0.shape[0], n, 3))
        self.v = np.empty((p0.shape[0], n, 3))
        self.p[:, k_max], self.v[:, k_max] = p0, v0
        for sign in (1.0, -1.0):
            p, v = p0, v0
            h = np.full((p0.shape[0], 1), sign * GLONASS_STEP_S)
            for k in range(1, k_max + 1):
                p, v = _rk4_step(p, v, acc, h)
                self.p[:, k_max + int(sign) * k], self.v[:, k_max + int(sign) * k] = p, v

    def ecef_m(self, rows: np.ndarray, dt_s: np.ndarray) -> np.ndarray:
        """Positions (..., 3), m, of records ``rows`` (...) at t = t_b + dt_s (...)
        (|dt_s| <= K 60 s + 30 s; beyond, the farthest node's step is longer)."""
        dt = np.asarray(dt_s, dtype=np.float64)
        k = np.clip(np.round(dt / GLONASS_STEP_S), -self.k_max, self.k_max).astype(np.int64)
        node = k + self.k_max
        h = (dt - k * GLONASS_STEP_S)[..., None]
        p, _ = _rk4_step(self.p[rows, node], self.v[rows, node], self.acc[rows], h)
        return p


def glonass_ecef_m(
    p0_m: np.ndarray, v0_mps: np.ndarray, acc_mps2: np.ndarray, dt_s: np.ndarray
) -> np.ndarray:
    """Earth-fixed positions (..., 3), m, of GLONASS states (x at t_b (..., 3) m, v m/s, the
    lunar-solar acceleration m/s^2) at t = t_b + dt_s (...), by 4th-order Runge-Kutta in
    ceil(|dt| / 60 s) equal steps for each element (the reference integration of the tests;
    the sky uses :class:`GlonassNodes`)."""
    dt = np.asarray(dt_s, dtype=np.float64)
    shape = np.broadcast_shapes(dt.shape, np.shape(p0_m)[:-1])
    dt = np.broadcast_to(dt, shape)
    p = np.broadcast_to(p0_m, (*shape, 3)).copy()
    v = np.broadcast_to(v0_mps, (*shape, 3)).copy()
    acc = np.broadcast_to(acc_mps2, (*shape, 3))
    steps = np.ceil(np.abs(dt) / GLONASS_STEP_S)
    h = np.where(steps > 0, dt / np.where(steps > 0, steps, 1.0), 0.0)[..., None]
    n_max = int(steps.max()) if steps.size else 0
    for k in range(n_max):
        go = (steps > k)[..., None]
        p1, v1 = _rk4_step(p, v, acc, h)
        p, v = np.where(go, p1, p), np.where(go, v1, v)
    return p
