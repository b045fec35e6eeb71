"""The site's datum chain: grid ENU metres <-> NAD83(HARN), NAD83(2011), WGS84 (G2139), UTM.

Specification ("INS and GNSS"): sections "Datum Chain" (Geodetic and EnuFromWgs84 of
AcresGnssModel.cpp), "UTM Projection" and its origin table, "Georeference Caveats",
"ACRES Core INS" (FSiteGeoreference of CoreSimGeo.h), and the gnss.datum parameters.

Two kinds of site:

``Georeference.acre()``
    The ACRE tile. ENU is the grid of EPSG:2968 (not a tangent frame). The chain of
    "Datum Chain", for an ENU point (e, n, u) in metres at episode time t::

        1. E_g = E0 + e / c_f,  N_g = N0 + n / c_f               (US survey feet)
        2. NAD83(HARN) phi, lambda = EPSG:2968 inverse (x = c_f E_g, y = c_f N_g)
        3. NAD83(2011) = HARN + harn_to_nad83_2011_shift_deg
        4. H_navd = c_f Z0 + u,  N_g = n0 + a_e e + a_n n,  h_2011 = H_navd + N_g
        5. ECEF on GRS80, then the inverse Helmert at the epoch start_utc + t
        6. geodetic on WGS84: WGS84 (G2139) = ITRF2014

    with (E0, N0, Z0) = (2 977 500, 1 902 500, 705) US survey feet (origin_source_ft of
    site.json). ``geodetic_to_enu`` runs the chain backwards (EnuFromWgs84): WGS84 geodetic ->
    ECEF -> forward Helmert -> GRS80 geodetic = NAD83(2011) -> minus the shift = HARN ->
    EPSG:2968 forward (Newton inverse of the series) -> e, n; u from step 4.

``Georeference.local(lat_deg, lon_deg, height_m)``
    Any other site: ENU is the local tangent frame (east, north, up) of the WGS84 ellipsoid at
    the given WGS84 (G2139) origin. Such a site has no datum chain, so by this module's choice:
    the nad83_2011_* and nad83_harn_* values EQUAL the WGS84 ones (a local site is one datum;
    inside the area of NAD83 this keeps the INS's default frame nad83 defined; outside it the
    run defaults the frames to WGS84 and refuses nad83, :mod:`navsense.geo.areas`). The geoid is
    EGM96 (:mod:`navsense.geo.geoid`, NGA's 15' grid): geoid_undulation_m = N_EGM96(lat, lon)
    of each point and the key navd88_height_m holds the orthometric height of the site's
    vertical datum, here EGM96, wgs84_height_m - N (``vertical_datum`` says which; the GNSS
    rows name it ``altitude_egm96_m``). A constant ``geoid_undulation_m`` given to ``local``
    replaces the model. ``frame`` arguments are accepted and all frames give the same result.

Output dict keys of ``enu_to_geodetic`` (arrays of the broadcast shape of the points and times):
nad83_harn_lat_deg, nad83_harn_lon_deg, nad83_2011_lat_deg, nad83_2011_lon_deg,
nad83_2011_height_m, wgs84_lat_deg, wgs84_lon_deg, wgs84_height_m, navd88_height_m,
geoid_undulation_m. NAD83(HARN) has no height of its own: the specification pairs HARN latitude
and longitude with the NAD83(2011) ellipsoidal height (output_frame nad83). navd88_height_m is
the orthometric height of the site's vertical datum (``Georeference.vertical_datum``): NAVD88
(GEOID12B plane, "Datum Chain" step 4) at ACRE, EGM96 at a local site.

``enu_to_fix_utm`` is the INS's one-pass call (spec "INS", "Fix and UTM Odometry"): latitude,
longitude and height in one frame, UTM easting and northing, and optionally the grid rotation,
bit for bit the values of enu_to_geodetic, utm.forward and grid_rotation_deg, computing only the
chain steps the frame needs.
"""

from __future__ import annotations

import functools
import math
from dataclasses import replace

import numpy as np

from navsense.config.typed.datum import DatumConfig
from navsense.constants import DEG as _D2R  # np.radians(x) is x * (pi / 180): the same bits
from navsense.constants import DEG_PER_RAD as _R2D  # np.degrees(x) is x * (180 / pi)
from navsense.errors import DatumError
from navsense.geo import acre_steps as _steps
from navsense.geo import ellipsoid as _ell
from navsense.geo import fix_chain as _fix
from navsense.geo import geodetic_chain as _chain
from navsense.geo import helmert as _helmert
from navsense.geo import stateplane as _sp
from navsense.geo import utm as _utm
from navsense.geo._arrays import (
    as_float,
    require_finite,
    require_range,
    shaped,
    utm_zone_array,
    zone_int,
)
from navsense.geo.acre_steps import ACRE_ORIGIN_FT
from navsense.geo.affine import AffineGridUtm
from navsense.geo.epoch import DEFAULT_START_UTC, parse_utc, year_clock
from navsense.geo.fix_chain import GRID_ROTATION_STEP_M, ins_points
from navsense.geo.geoid import egm96_undulation_m
from navsense.rotation import wrap_degrees

__all__ = [
    "ACRE_ORIGIN_FT",
    "FRAMES",
    "FRAME_KEYS",
    "GRID_ROTATION_STEP_M",
    "OUTPUT_KEYS",
    "AffineGridUtm",
    "Georeference",
]


OUTPUT_KEYS = (
    "nad83_harn_lat_deg",
    "nad83_harn_lon_deg",
    "nad83_2011_lat_deg",
    "nad83_2011_lon_deg",
    "nad83_2011_height_m",
    "wgs84_lat_deg",
    "wgs84_lon_deg",
    "wgs84_height_m",
    "navd88_height_m",
    "geoid_undulation_m",
)
FRAME_KEYS = OUTPUT_KEYS[:8]  # the frames' latitude, longitude and height (before NAVD88's)

# Frames accepted by geodetic_to_enu and grid_rotation_deg. "nad83" alone is refused on
# purpose: it means HARN for the GNSS receiver and NAD83(2011) for the INS (spec caveat
# "Two meanings of nad83").
FRAMES = ("nad83_2011", "nad83_harn", "wgs84_g2139")


_CF = _sp.US_SURVEY_FOOT_M
_FIX_KEYS = ("lat_deg", "lon_deg", "height_m", "easting_m", "northing_m")


def _check_frame(frame: str) -> str:
    if frame not in FRAMES:
        hint = " ('nad83' is ambiguous: use nad83_harn or nad83_2011)" if frame == "nad83" else ""
        raise DatumError(f"frame = {frame!r} is not one of {list(FRAMES)}{hint}")
    return frame


def _points(enu, t_s) -> tuple:
    """Validated points of a public call: ``(e, n, u, t, shape)``.

    ``shape`` is the broadcast shape of enu[..., 0] and t_s; e, n, u are float64 arrays of that
    shape, t a float64 array of that shape or 0-d. Raises DatumError: enu not of shape (..., 3),
    a value not finite.
    """
    arr = _enu_array(enu)
    t = as_float("t_s", t_s)
    require_finite("t_s", t)
    pshape = arr.shape[:-1]
    shape = pshape if pshape == t.shape or t.ndim == 0 else np.broadcast_shapes(pshape, t.shape)
    e, n, u = arr[..., 0], arr[..., 1], arr[..., 2]
    if pshape != shape:
        e, n, u = (np.broadcast_to(v, shape) for v in (e, n, u))
    if t.ndim and t.shape != shape:
        t = np.broadcast_to(t, shape)
    return e, n, u, t, shape


def _enu_array(enu) -> np.ndarray:
    arr = as_float("enu", enu)
    if arr.ndim == 0 or arr.shape[-1] != 3:
        raise DatumError(f"Expected enu to have shape (..., 3), got {arr.shape}")
    require_finite("enu", arr)
    return arr


def _datum_config(datum: DatumConfig | None, start_utc: str | None) -> DatumConfig:
    """``datum`` (None: the specification's, navsense.config.typed.datum.default_datum) with
    ``start_utc``, when given, as its start time. A datum given as a dict is converted (and
    checked) by navsense.config.typed.datum.datum_config: the geodesy takes it typed."""
    if datum is None:
        cfg = _default_datum()
    elif isinstance(datum, DatumConfig):
        cfg = datum
    else:
        raise TypeError(
            f"datum: a navsense.config.typed.datum.DatumConfig (datum_config(dict) makes one), "
            f"not {type(datum).__name__}"
        )
    if start_utc is not None:
        cfg = replace(cfg, start_utc=start_utc)
    return cfg


@functools.cache
def _default_datum() -> DatumConfig:
    from navsense.config.typed.datum import default_datum

    return default_datum()


class Georeference:
    """A site's georeference: grid/tangent ENU metres <-> geodetic frames, UTM, epochs.

    Build with :meth:`acre` (the specification's site and chain) or :meth:`local` (a tangent
    frame at any WGS84 origin). See the module docstring for the chain and the choices made for
    local sites. Instances are immutable.

    Every method runs the chain's kernels on numpy arrays, elementwise, so a point gets the same
    bits alone, in a chunk or in the whole log. Constants of the site and the start time
    (decimal-year calendar, rotation of a local frame) are computed at construction; a method
    computes only the steps of the chain its frame needs (NAD83 frames stop at step 4).
    """

    __slots__ = (
        "_chain_par",
        "_clock",
        "_datum",
        "_datum_a",
        "_fix_par",
        "_kind",
        "_local",
        "_local_f",
        "_start_posix",
    )

    def __init__(self, kind: str, datum: DatumConfig, local: tuple | None = None):
        self._kind = kind
        self._datum = datum
        self._datum_a = _steps.datum_row(datum)  # as the chain's kernel takes it
        self._fix_par: tuple = ((), None)  # (frame, zone) and fix_chain.fix_parameters of them
        self._start_posix = parse_utc(datum.start_utc)
        self._clock = year_clock(datum.start_utc)  # DecimalYear of start_utc + t
        q = _helmert._parameter_row(datum.helmert)
        self._chain_par = _chain.chain_parameters(self._datum_a, q, self._clock.constants())
        self._local = local
        # local frame as Python floats: X0 (3) and the rows east, north, up of R (9)
        self._local_f = (
            None
            if local is None
            else tuple(float(v) for v in np.concatenate([local[4], local[5].ravel()]))
        )

    # ----------------------------------------------------------------- construction
    @classmethod
    def acre(cls, start_utc: str | None = None, datum: DatumConfig | None = None) -> Georeference:
        """The ACRE tile with the specification's datum chain.

        ``datum`` is the typed gnss.datum (navsense.config.typed.datum.DatumConfig; a dict of
        the specification's keys becomes one with datum_config, which checks it and fills the
        keys it leaves out with the specification's values); None: the specification's
        (default_datum). ``start_utc`` (ISO 8601,
        the time at t = 0) overrides datum["start_utc"]; when neither is given it is the
        specification's default 2026-09-23T15:00:00Z.
        """
        return cls("acre", _datum_config(datum, start_utc))

    @classmethod
    def local(
        cls,
        lat_deg: float,
        lon_deg: float,
        height_m: float,
        start_utc: str = DEFAULT_START_UTC,
        geoid_undulation_m: float | None = None,
    ) -> Georeference:
        """A local ENU tangent frame on WGS84 at the WGS84 (G2139) origin (lat, lon, h).

        All frames are equal at a local site (see the module docstring); the geoid is EGM96 at
        each point, or the constant ``geoid_undulation_m`` (m) when one is given.
        """
        lat, lon, h = (
            float(as_float(k, v))
            for k, v in (("lat_deg", lat_deg), ("lon_deg", lon_deg), ("height_m", height_m))
        )
        gu = (
            None
            if geoid_undulation_m is None
            else float(as_float("geoid_undulation_m", geoid_undulation_m))
        )
        require_range("lat_deg", np.asarray(lat), -90.0, 90.0, "deg")
        for k, v in (("lon_deg", lon), ("height_m", h), ("geoid_undulation_m", gu or 0.0)):
            require_finite(k, np.asarray(v))
        lon = wrap_degrees(lon)
        phi, lam = math.radians(lat), math.radians(lon)
        x0, y0, z0 = (
            float(v)
            for v in _ell._geodetic_to_ecef(
                np.float64(phi), np.float64(lam), np.float64(h), _ell.WGS84
            )
        )
        sp, cp, sl, cl = math.sin(phi), math.cos(phi), math.sin(lam), math.cos(lam)
        # Rows: east, north, up unit vectors in ECEF (local tangent frame)
        rot = np.array([[-sl, cl, 0.0], [-sp * cl, -sp * sl, cp], [cp * cl, cp * sl, sp]])
        datum = _datum_config(None, start_utc)
        return cls("local", datum, (lat, lon, h, gu, np.array([x0, y0, z0]), rot))

    # ----------------------------------------------------------------- properties
    @property
    def kind(self) -> str:
        """ "acre" or "local"."""
        return self._kind

    @property
    def start_utc(self) -> str:
        """The UTC time at t = 0 (ISO 8601), as given."""
        return self._datum.start_utc

    @property
    def datum(self) -> dict:
        """The effective gnss.datum block (a copy)."""
        return self._datum.to_dict()

    @property
    def vertical_datum(self) -> str:
        """The datum of the orthometric heights (the key navd88_height_m of enu_to_geodetic):
        "navd88" at ACRE (GEOID12B plane of the chain), "egm96" at a local site, "geoid" at a
        local site given a constant geoid_undulation_m."""
        if self._local is None:
            return "navd88"
        return "egm96" if self._local[3] is None else "geoid"

    @property
    def nad83_applies(self) -> bool:
        """True where the nad83 frames are defined: ACRE, or a local site whose origin lies in
        the area of NAD83(2011) (:mod:`navsense.geo.areas`)."""
        if self._local is None:
            return True
        from navsense.geo.areas import in_nad83_area

        return in_nad83_area(self._local[0], self._local[1])

    @property
    def origin_lat_lon_h(self) -> tuple[float, float, float] | None:
        """For a local site: its WGS84 origin (deg, deg, m); None for the ACRE site."""
        return None if self._local is None else self._local[:3]

    def __repr__(self) -> str:
        if self._local is not None:
            lat, lon, h = self._local[:3]
            return f"Georeference.local({lat!r}, {lon!r}, {h!r}, start_utc={self.start_utc!r})"
        return f"Georeference.acre(start_utc={self.start_utc!r})"

    def decimal_year(self, t_s):
        """Decimal year of start_utc + t_s (DESIGN.md ruling "Decimal year"; see geo.epoch)."""
        t = as_float("t_s", t_s)
        require_finite("t_s", t)
        return shaped(np.asarray(self._clock.array(t), dtype=np.float64))

    def _epoch(self, t):
        """Decimal years of episode times t (an array), unchecked (the kernels)."""
        return self._clock.array(t)

    # ----------------------------------------------------------------- ENU -> geodetic
    def enu_to_geodetic(self, enu, t_s=0.0) -> dict:
        """All frames of ENU points at episode times (spec "Datum Chain", Geodetic).

        ``enu``: shape (..., 3), metres in the site's ENU frame; ``t_s``: episode time(s) in s,
        broadcast against enu[..., 0]. Returns a dict of float64 arrays (keys OUTPUT_KEYS) of
        the broadcast shape; a single point (3,) with a scalar time gives 0-d values
        (numpy scalars). Vectorised over points and times; a point gets the same bits alone
        or in any batch.
        """
        e, n, u, t, _ = _points(enu, t_s)
        return {k: shaped(v) for k, v in zip(OUTPUT_KEYS, self._geodetic(e, n, u, t))}

    def geodetic_rows(self, enu, t_s):
        """:meth:`enu_to_geodetic`'s values of points enu (m, 3) at times t_s (m,), as rows (m,)
        in OUTPUT_KEYS' order (the GNSS receiver's epochs). A few points (float64 arrays, m <=
        geodetic_chain.FUSED_MAX) at the ACRE site take the fused kernels of
        navsense.geo.geodetic_chain (the same bits); any other input (checked and broadcast as
        by enu_to_geodetic), or a point the chain refuses (its error line), the generic chain."""
        if (
            self._local is None
            and type(enu) is np.ndarray
            and type(t_s) is np.ndarray
            and enu.dtype == t_s.dtype == np.float64
            and enu.ndim == 2
            and enu.shape[1] == 3
            and 0 < enu.shape[0] <= _chain.FUSED_MAX
            and t_s.shape == enu.shape[:1]
        ):
            w = _chain.acre_geodetic(
                np.ascontiguousarray(enu), np.ascontiguousarray(t_s), self._chain_par
            )
            if w is not None:
                return w[_chain.OUT : _chain.OUT + 10]
        e, n, u, t, _ = _points(enu, t_s)
        return [np.asarray(v, dtype=np.float64).reshape(-1) for v in self._geodetic(e, n, u, t)]

    def _geodetic(self, e, n, u, t) -> tuple:
        """All OUTPUT_KEYS values (in that order) of points (arrays)."""
        if self._kind == "local":
            return self._local_geodetic(e, n, u)
        return self._acre_geodetic(e, n, u, t, wgs84=True)

    def _acre_geodetic(self, e, n, u, t, wgs84: bool) -> tuple:
        """The ACRE chain on arrays: OUTPUT_KEYS values in order.

        Steps 1-4 always (navsense.geo.acre_steps' kernels around the EPSG:2968 inverse, all
        the points in one call each); steps 5-6 (ECEF, inverse Helmert, WGS84) only when
        ``wgs84`` (else the three WGS84 values are None). Raises DatumError for a point outside
        EPSG:2968's domain.
        """
        shape = e.shape if type(e) is np.ndarray else np.shape(e)
        pts: tuple | np.ndarray = (e, n, u)  # rows already (the fix's)
        if not (
            len(shape) == 1
            and e.flags.c_contiguous
            and n.flags.c_contiguous
            and u.flags.c_contiguous
        ):
            pts = np.empty((3, math.prod(shape)))
            pts[0], pts[1], pts[2] = np.reshape(e, -1), np.reshape(n, -1), np.reshape(u, -1)
        g = self._acre_rows(pts[0], pts[1], pts[2])  # steps 1-4
        rows = tuple(g) if len(shape) == 1 else tuple(v.reshape(shape) for v in g)
        lat_h, lon_h, lat_11, lon_11, h_11, h_navd, n_g = rows
        if not wgs84:
            return lat_h, lon_h, lat_11, lon_11, h_11, None, None, None, h_navd, n_g
        xg, yg, zg = _ell._geodetic_to_ecef(
            lat_11 * _D2R, lon_11 * _D2R, h_11, _ell.GRS80
        )  # step 5
        xw, yw, zw = _helmert._inverse(
            xg, yg, zg, self._epoch(t), self._datum.helmert
        )  # step 5: inverse Helmert
        del xg, yg, zg
        phi_w, lam_w, h_w = _ell._ecef_to_geodetic(xw, yw, zw, _ell.WGS84)  # step 6
        return lat_h, lon_h, lat_11, lon_11, h_11, phi_w * _R2D, lam_w * _R2D, h_w, h_navd, n_g

    def _acre_rows(self, e: np.ndarray, n: np.ndarray, u: np.ndarray) -> np.ndarray:
        """Steps 1-4 of the ACRE chain on rows e, n, u (k,) (float64, C order): (7, k), the rows
        of acre_steps.DATUM_ROWS. Raises DatumError for a point outside EPSG:2968's domain."""
        grid = np.empty((4, e.shape[0]))
        _steps.grid_rows(e, n, grid)  # Datum Chain, step 1
        if not _steps.in_domain(grid):
            _steps.check_enu(e, n, grid[0], grid[1])
        harn = _sp._inverse_rows(grid[0], grid[1])  # Datum Chain, step 2: EPSG:2968 inverse
        g = np.empty((len(_steps.DATUM_ROWS), e.shape[0]))
        _steps.datum_rows(e, n, u, harn[0], harn[1], self._datum_a, g)  # steps 3-4
        return g

    def _local_geodetic(self, e, n, u) -> tuple:
        """The local tangent frame on arrays: OUTPUT_KEYS values in order."""
        assert self._local is not None and self._local_f is not None  # a local site
        x0, y0, z0, r00, r01, _, r10, r11, r12, r20, r21, r22 = self._local_f
        gu = self._local[3]
        # ECEF = X0 + R^T enu (R rows: east, north, up)
        x = x0 + r00 * e + r10 * n + r20 * u
        y = y0 + r01 * e + r11 * n + r21 * u
        z = z0 + r12 * n + r22 * u
        phi, lam, h = _ell._ecef_to_geodetic(x, y, z, _ell.WGS84)
        lat = phi * _R2D
        lon = lam * _R2D
        if gu is None:  # EGM96 at each point (geo.geoid)
            undulation = np.asarray(egm96_undulation_m(lat, lon))
        else:
            undulation = np.full_like(h, gu)
        return lat, lon, lat, lon, h, lat, lon, h, h - undulation, undulation

    def _frame_llh(self, e, n, u, t, frame: str) -> tuple:
        """Latitude, longitude (deg) and height (m) of points in ``frame`` (arrays).

        nad83_harn pairs HARN latitude and longitude with the NAD83(2011) height (as
        geodetic_to_enu); only the WGS84 frame runs steps 5-6 of the chain.
        """
        if self._kind == "local":
            g = self._local_geodetic(e, n, u)
            return g[5], g[6], g[7]
        wgs84 = frame == "wgs84_g2139"
        g = self._acre_geodetic(e, n, u, t, wgs84)
        if wgs84:
            return g[5], g[6], g[7]
        if frame == "nad83_2011":
            return g[2], g[3], g[4]
        return g[0], g[1], g[4]

    # ----------------------------------------------------------------- geodetic -> ENU
    def geodetic_to_enu(self, lat_deg, lon_deg, height_m, t_s, frame: str):
        """ENU (..., 3) of geodetic points in ``frame`` at episode time(s) (spec EnuFromWgs84).

        ``frame``: "wgs84_g2139" (WGS84 latitude, longitude, ellipsoidal height at the epoch),
        "nad83_2011" (NAD83(2011) latitude, longitude, ellipsoidal height) or "nad83_harn"
        (NAD83(HARN) latitude, longitude with the NAD83(2011) ellipsoidal height, as the
        specification's output_frame nad83). For the ACRE site the chain is the exact reverse of
        enu_to_geodetic except the Helmert, whose forward and inverse differ by ~2e-7 m
        (DESIGN.md ruling). Inputs broadcast together; the result has shape (..., 3) (a single
        point gives (3,)). ``t_s`` and ``frame`` have no default on purpose: a fix must state its
        datum (spec caveat "Datum of a fix"), and the epoch moves WGS84 points by 1.7 cm/yr.
        """
        _check_frame(frame)
        lat = as_float("latitude_deg", lat_deg)
        lon = as_float("longitude_deg", lon_deg)
        h = as_float("height_m", height_m)
        t = as_float("t_s", t_s)
        require_range("latitude_deg", lat, -90.0, 90.0, "deg")
        require_finite("longitude_deg", lon)
        require_finite("height_m", h)
        require_finite("t_s", t)
        if not (lat.shape == lon.shape == h.shape == t.shape):
            lat, lon, h, t = np.broadcast_arrays(lat, lon, h, t)
        if self._kind == "acre":
            _sp._check_geodetic(lat, lon)  # DatumError naming the input value
        if self._kind == "local":
            return np.stack(self._local_enu(lat, lon, h)[:3], axis=-1)
        e, n, u, x, y = self._acre_enu(lat, lon, h, t, frame)
        _sp._check_forward_result(lat, lon, x, y)
        return np.stack([e, n, u], axis=-1)

    def _acre_enu(self, lat, lon, h, t, frame):
        """EnuFromWgs84 on arrays (no checks): e, n, u and the grid x, y."""
        d = self._datum
        if frame == "wgs84_g2139":
            x, y, z = _ell._geodetic_to_ecef(lat * _D2R, lon * _D2R, h, _ell.WGS84)
            x, y, z = _helmert._forward(x, y, z, self._epoch(t), d.helmert)  # Helmert forward
            phi, lam, h11 = _ell._ecef_to_geodetic(x, y, z, _ell.GRS80)  # NAD83(2011), GRS80
            lat_h = phi * _R2D - d.shift_lat_deg  # reverse of step 3
            lon_h = lam * _R2D - d.shift_lon_deg
        elif frame == "nad83_2011":
            lat_h, lon_h, h11 = lat - d.shift_lat_deg, lon - d.shift_lon_deg, h
        else:  # nad83_harn
            lat_h, lon_h, h11 = lat, lon, h
        x, y = _sp._forward_m(lat_h * _D2R, lon_h * _D2R)  # reverse of step 2
        e0, n0, z0 = ACRE_ORIGIN_FT
        e = x - _CF * e0  # reverse of step 1
        n = y - _CF * n0
        # reverse of step 4: u = h_2011 - N_g - c_f Z0
        u = h11 - (d.geoid_n0_m + d.geoid_dn_de * e + d.geoid_dn_dn * n) - _CF * z0
        return e, n, u, x, y

    def _local_enu(self, lat, lon, h):
        """Local tangent frame ENU of WGS84 points (arrays, no checks)."""
        x0, y0, z0, r00, r01, _, r10, r11, r12, r20, r21, r22 = self._local_f
        x, y, z = _ell._geodetic_to_ecef(lat * _D2R, lon * _D2R, h, _ell.WGS84)
        dx, dy, dz = x - x0, y - y0, z - z0
        e = r00 * dx + r01 * dy
        n = r10 * dx + r11 * dy + r12 * dz
        u = r20 * dx + r21 * dy + r22 * dz
        return e, n, u

    # ----------------------------------------------------------------- UTM, grid rotation
    def _lat_lon(self, enu, t, frame):
        """Latitude, longitude (deg) of ENU points in a frame (helper of the UTM methods)."""
        e, n, u, tt, _ = _points(enu, t)
        lat, lon, _ = self._frame_llh(e, n, u, tt, frame)
        return lat, lon

    def enu_to_utm(self, enu, t_s, zone, frame: str = "nad83_2011", south: bool = False):
        """UTM (E, N, gamma_deg, k) of ENU points through the chain to ``frame``.

        The UTM projection is on the WGS84 ellipsoid for every frame, as the vehicle's converter
        does (spec caveat "Ellipsoid of the UTM projection").
        """
        _check_frame(frame)
        lat, lon = self._lat_lon(enu, t_s, frame)
        return _utm.forward(lat, lon, zone, south=south)

    def grid_rotation_deg(self, enu, t_s, zone, frame: str = "nad83_2011"):
        """Grid rotation alpha (deg): the UTM azimuth of the grid north of the site.

        Spec "INS", "Fix and UTM Odometry": with P1 = enu and P2 = enu + (0, 10 m, 0), both
        through the chain to ``frame`` and then GeographicToUtm in ``zone``::

            alpha = atan2(E2 - E1, N2 - N1)

        Shape: the broadcast shape of enu[..., 0] and t_s. 0.0541 deg at the ACRE origin.
        Only the chain steps the frame needs and only E, N of the projection are computed.
        """
        return self.enu_to_fix_utm(enu, t_s, zone, frame, grid_rotation=True)["grid_rotation_deg"]

    def enu_to_fix_utm(
        self,
        enu,
        t_s,
        zone,
        frame: str = "nad83_2011",
        south: bool = False,
        grid_rotation: bool = False,
    ) -> dict:
        """The INS fix and UTM odometry of ENU points in one pass (spec "INS", "Fix and UTM Odometry").

        Returns a dict of arrays of the broadcast shape of enu[..., 0] and t_s:

        ``lat_deg``, ``lon_deg``, ``height_m``
            the point in ``frame`` (as the keys of enu_to_geodetic: nad83_2011 -> nad83_2011_*,
            wgs84_g2139 -> wgs84_*, nad83_harn -> HARN latitude, longitude and NAD83(2011) height)
        ``easting_m``, ``northing_m``
            GeographicToUtm of that latitude and longitude in ``zone`` (+ 10 000 000 m when
            ``south``)
        ``grid_rotation_deg`` (only with ``grid_rotation=True``)
            alpha = atan2(E2 - E1, N2 - N1) with P2 10 m grid-north (northern northings)

        Bit for bit the values of enu_to_geodetic and utm.forward(lat, lon, zone, south), with
        only the chain steps the frame needs, the points and their P2 in one pass.
        """
        _check_frame(frame)
        z = zone_int(zone)
        e, n, u, t, shape = _points(enu, t_s)
        size = math.prod(shape)
        pts = np.stack([e.ravel(), n.ravel(), u.ravel()])
        times = np.broadcast_to(t, shape).ravel()
        if type(z) is not int:
            z = np.broadcast_to(z, shape).ravel()
        if grid_rotation:
            pts = np.concatenate([pts, pts], axis=1)
            pts[1, size:] += GRID_ROTATION_STEP_M  # P2, 10 m grid-north
            times = np.concatenate([times, times])
            if type(z) is not int:
                z = np.concatenate([z, z])
        values = self._fix(pts, times, z, frame, south, size, size if grid_rotation else None)
        keys = _FIX_KEYS + (("grid_rotation_deg",) if grid_rotation else ())
        return {k: shaped(v.reshape(shape)) for k, v in zip(keys, values)}

    def ins_fix_utm(
        self,
        p_ins: np.ndarray,
        p_truth: np.ndarray,
        t_s: np.ndarray,
        zone: int,
        frame: str,
        south: bool,
        points: np.ndarray | None = None,
    ) -> tuple:
        """The INS epochs' fix and UTM odometry in one pass (spec "INS", "Fix and UTM Odometry";
        DESIGN.md ruling "INS heights"): :meth:`enu_to_fix_utm` of the INS positions ``p_ins``
        (m, 3) with their grid rotation, and of the truth points ``p_truth`` (m, 3) without, at
        the times ``t_s`` (m,) in ``zone`` (an int). ``points``: these points as the chain takes
        them (:func:`ins_points`), when the INS's kernel wrote them.

        Returns ``(lat_deg, lon_deg, height_m, easting_m, northing_m, grid_rotation_deg)`` of
        p_ins and ``(height_m, easting_m, northing_m)`` of p_truth, arrays (m,).
        """
        m = t_s.shape[0]
        pts = ins_points(p_ins, p_truth) if points is None else points
        lat, lon, h, east, north, alpha = self.ins_fix_rows(pts, t_s, zone, frame, south)
        truth = (h[m : 2 * m], east[m : 2 * m], north[m : 2 * m])
        return (lat[:m], lon[:m], h[:m], east[:m], north[:m], alpha * _R2D), truth

    def ins_fix_rows(self, pts: np.ndarray, t_s: np.ndarray, zone: int, frame: str, south: bool):
        """:meth:`ins_fix_utm` on the chain's points pts (3, 3 m) (:func:`ins_points`): lat, lon,
        h, E, N of at least the first 2 m points (the INS's, then the truth's), and the grid
        rotation atan2(E2 - E1, N2 - N1) of the INS's in radians (m,)."""
        m = t_s.shape[0]
        k = 2 * m  # the fix's points: p_ins and p_truth; then P2
        if self._fix_par[0] == (frame, zone) and m:  # ACRE, a NAD83 frame: fix_chain's kernels
            lat, lon, h, east, north, rot = _fix.nad83_fix_utm(pts, t_s, self._fix_par[1], zone)
        elif self._kind == "acre" and _check_frame(frame) != "wgs84_g2139" and m:
            self._fix_par = ((frame, zone), _fix.fix_parameters(self._datum_a, frame, zone))
            return self.ins_fix_rows(pts, t_s, zone, frame, south)
        else:  # one sum for the usual all-finite case (an overflow only takes the checks)
            _check_frame(frame)
            if not math.isfinite(pts.sum() + (t_s[0] if m == 1 else t_s.sum())):
                require_finite("enu", pts.T)
                require_finite("t_s", t_s)
            lat, lon, h = self._frame_llh(pts[0], pts[1], pts[2], np.tile(t_s, 3), frame)
            east, north = _utm._forward_arrays(lat, lon, zone, factors=False, check_lat=False)
            # INS: alpha = atan2(E2 - E1, N2 - N1) (northern northings)
            rot = np.arctan2(east[k:] - east[:m], north[k:] - north[:m])
        if south:
            north = north[:k] + _utm.FALSE_NORTHING_SOUTH_M
        return lat, lon, h, east, north, rot

    def nad83_fix_parameters(self, frame: str, zone: int) -> np.ndarray | None:
        """fix_chain.fix_parameters of (frame, zone) where :meth:`ins_fix_rows` runs the fused
        chain (navsense.geo.fix_chain: the ACRE site, a NAD83 frame), else None."""
        if self._kind != "acre" or _check_frame(frame) == "wgs84_g2139":
            return None
        return _fix.fix_parameters(self._datum_a, frame, zone)

    def _fix(self, pts, t, zone, frame, south, size: int, rotated: int | None) -> list:
        """lat, lon, h, E, N of the first ``size`` points (pts (3, k): rows e, n, u; t (k,)), and
        the grid rotation of the first ``rotated`` of them, whose P2 are the points after
        ``size`` (None: no grid rotation)."""
        lat, lon, h = self._frame_llh(pts[0], pts[1], pts[2], t, frame)
        east, north = _utm._forward_arrays(lat, lon, zone, factors=False, check_lat=False)
        out = [lat[:size], lon[:size], h[:size], east[:size], north[:size]]
        if south:
            out[4] = out[4] + _utm.FALSE_NORTHING_SOUTH_M
        if rotated is not None:
            # INS: alpha = atan2(E2 - E1, N2 - N1)
            e1, n1 = east[:rotated], north[:rotated]
            out.append(np.arctan2(east[size:] - e1, north[size:] - n1) * _R2D)
        return out

    def affine_grid_utm(self, zone, frame: str = "nad83_2011", t_s: float = 0.0) -> AffineGridUtm:
        """The affine grid <-> UTM map of "ACRES Core INS" at the origin (see AffineGridUtm)."""
        _check_frame(frame)
        z = int(utm_zone_array(zone))
        pts = np.array([[0.0, 0.0, 0.0], [0.0, GRID_ROTATION_STEP_M, 0.0]])
        lat, lon = self._lat_lon(pts, t_s, frame)
        e, n, _, _ = _utm.forward(lat, lon, z)
        alpha = math.atan2(e[1] - e[0], n[1] - n[0])  # INS: alpha at the origin
        scale = math.hypot(e[1] - e[0], n[1] - n[0]) / GRID_ROTATION_STEP_M
        return AffineGridUtm(z, frame, float(e[0]), float(n[0]), math.degrees(alpha), scale)

    def site_wgs84_lat_lon_h(self) -> tuple[float, float, float]:
        """WGS84 (G2139) latitude (deg), longitude (deg), height (m) of the origin at t = 0.

        The site position of the GNSS constellation (DESIGN.md ruling "Site position for the
        constellation"); for a local site, its origin.
        """
        g = self.enu_to_geodetic(np.zeros(3), 0.0)
        return float(g["wgs84_lat_deg"]), float(g["wgs84_lon_deg"]), float(g["wgs84_height_m"])
