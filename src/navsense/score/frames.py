"""An estimate's coordinates to the site's grid ENU, through the run's own datum chain.

``enu``
    The site's grid ENU (the truth's frame): unchanged.
``utm``
    Easting, northing (m) in the run's UTM zone (``--utm-zone``, default the run's
    ins.utm_zone) and ellipsoidal height (m) of ``datum``; the UTM projection is on the WGS84
    ellipsoid for every datum, as the INS's converter does (spec caveat "Ellipsoid of the UTM
    projection")::

        (lat, lon) = utm.inverse(E, N, zone)
        enu = Georeference.geodetic_to_enu(lat, lon, h, t, datum)      (spec EnuFromWgs84)

``geodetic``
    Latitude, longitude (deg) and ellipsoidal height (m) of ``datum`` (``--datum``, default the
    run's INS datum: that of its /vehicle/odom and /oxts/fix): ``geodetic_to_enu`` as above.

t is the epoch's episode time (the Helmert transformation between WGS84 (G2139) and NAD83(2011)
moves with the epoch). Attitude and covariance are given in the frame's own east, north, up
axes (UTM grid; the local geodetic east, north, up); they turn about the vertical by the angle
theta between those axes and the grid's::

    v_grid = R_z(theta) v_frame,   theta = atan2(-de, dn)
    (de, dn) = the grid ENU of the point 10 m frame-north of the epoch's point, minus its own
    q_grid = q_z(theta) q_frame,   C_grid = R_z(theta) C_frame R_z(theta)^T

(for UTM, theta is the INS's grid rotation alpha, spec "Fix and UTM Odometry"). The point scale
of a projection (UTM k ~ 0.9996) is not applied to the covariance (a 0.04 % change of a sigma).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from navsense.errors import ConfigError, DatumError, FormatError
from navsense.rotation import quat_about_z, quat_multiply
from navsense.score.estimate import FRAMES, Estimate

__all__ = ["NORTH_STEP_M", "EnuTrajectory", "to_site_enu"]

#: The frame-north step that gives the axes' angle theta, m.
NORTH_STEP_M = 10.0
_M_PER_DEG_LAT = 111_000.0  # only the step's direction matters, not its exact length


@dataclass(frozen=True)
class EnuTrajectory:
    """An estimate in the site's grid ENU: t_s (n,), p_m (n, 3), q_xyzw (n, 4) or None,
    cov_m2 (n, 3, 3) or None (NaN rows where an epoch has none)."""

    t_s: np.ndarray
    p_m: np.ndarray
    q_xyzw: np.ndarray | None
    cov_m2: np.ndarray | None


def _rotate_about_z(theta: np.ndarray, q, cov):
    if q is not None:
        q = quat_multiply(quat_about_z(theta), q)
    if cov is not None:
        c, s = np.cos(theta), np.sin(theta)
        rz = np.zeros(theta.shape + (3, 3))
        rz[:, 0, 0], rz[:, 0, 1], rz[:, 1, 0], rz[:, 1, 1], rz[:, 2, 2] = c, -s, s, c, 1.0
        cov = rz @ cov @ np.swapaxes(rz, 1, 2)
    return q, cov


def to_site_enu(est: Estimate, frame: str, georef, *, datum: str, zone: int) -> EnuTrajectory:
    """The estimate ``est`` given in ``frame`` (module docstring) in the site's grid ENU.

    ``georef``: the run's navsense.geo.Georeference (may be None for ``enu``). A coordinate the
    chain refuses (outside the projection or the site's domain: typically the wrong --frame,
    --datum or --utm-zone) is a FormatError naming the estimate, the epoch and the value.
    """
    if frame not in FRAMES:
        raise ConfigError(f"--frame {frame!r} is not one of {', '.join(FRAMES)}")
    if est.frame is not None and est.frame != frame:
        raise ConfigError(
            f"--frame {frame}: {est.source} gives its position in {est.frame} ({est.frame_note})"
        )
    if frame == "enu":
        return EnuTrajectory(est.t_s, est.xyz, est.q_xyzw, est.cov_m2)
    if georef is None:
        raise FormatError(f"{est.source}: a {frame} estimate needs the run's datum chain")
    from navsense.geo import utm

    x, y, h, t = est.xyz[:, 0], est.xyz[:, 1], est.xyz[:, 2], est.t_s
    if frame == "geodetic":
        bad = np.flatnonzero(~((np.abs(x) <= 90.0) & (np.abs(y) <= 360.0)))
        if bad.size:
            i = int(bad[0])
            raise FormatError(
                f"{est.source}: the epoch at t = {t[i]:.9g} s: latitude {float(x[i])!r}, "
                f"longitude {float(y[i])!r} deg; a latitude is within +-90 deg, a longitude "
                "within +-360"
            )

    def chain(a, b):
        if frame == "utm":
            lat, lon = utm.inverse(a, b, zone)
        else:
            lat, lon = a, b
        return np.asarray(georef.geodetic_to_enu(lat, lon, h, t, datum)).reshape(-1, 3)

    try:
        p = chain(x, y)
        theta = None
        if est.q_xyzw is not None or est.cov_m2 is not None:
            if frame == "utm":  # northing + 10 m
                d = chain(x, y + NORTH_STEP_M) - p
            else:  # latitude + ~10 m
                d = chain(x + NORTH_STEP_M / _M_PER_DEG_LAT, y) - p
            theta = np.arctan2(-d[:, 0], d[:, 1])
    except DatumError as exc:
        what = (
            f"UTM zone {zone} easting, northing, height ({datum})"
            if frame == "utm"
            else f"latitude, longitude, height ({datum})"
        )
        raise FormatError(
            f"{est.source}: its coordinates as {what} (from {est.xyz[0].tolist()} at "
            f"t = {t[0]:.9g} s) leave the site's datum chain: {exc}. Is the estimate in "
            "another frame, datum or zone (--frame, --datum, --utm-zone)?"
        ) from None
    bad = np.flatnonzero(~np.isfinite(p).all(axis=1))
    if theta is not None:
        bad = np.union1d(bad, np.flatnonzero(~np.isfinite(theta)))
    if bad.size:  # the chain's own checks let it through (e.g. a longitude of 1e7 deg)
        i = int(bad[0])
        raise FormatError(
            f"{est.source}: the epoch at t = {t[i]:.9g} s: {est.xyz[i].tolist()} as {frame} "
            f"({datum}) has no place in the site's grid (the datum chain gives no finite "
            "position); is the estimate in another frame, datum or zone (--frame, --datum, "
            "--utm-zone)?"
        )
    q, cov = est.q_xyzw, est.cov_m2
    if theta is not None:
        q, cov = _rotate_about_z(theta, q, cov)
    return EnuTrajectory(est.t_s, p, q, cov)
