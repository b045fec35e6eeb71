"""The magnetometer: the Earth's field of the run's date in body axes (``mag.jsonl``).

A navsense extension (issue 7; the article's "compass"): the specification has no magnetometer.

Measurement equation, at each sample k::

    B_enu,k = B_0 + G p_k + Bdot t_k                      field at the vehicle, grid ENU, nT
    m_k     = 1e-3 (S R_k^T B_enu,k) + b_hi + sigma_m g_k  reading, body FLU, uT

where

    p_k, R_k   chassis origin (grid ENU, m) and rotation body FLU -> ENU at the sample's step
    t_k        episode time, s
    B_0        the main field of the start's model (WMM2025, WMM2020 or IGRF-14, see
               navsense.sensors.field_models) at the site origin (ENU (0, 0, 0)) at t = 0, rotated from the
               geodetic north/east/down of the WGS84 (G2139) latitude, longitude and ellipsoidal
               height given by the site's Georeference into the site's grid ENU (see below)
    G          its gradient dB_enu/dp_enu (3 x 3, nT/m): central differences of the same
               evaluation at ENU (+-500 m, 0, 0), (0, +-500 m, 0), (0, 0, +-500 m), t = 0
    Bdot       its rate (nT/s): the same model's field at the origin one day after the start,
               minus B_0, divided by 86 400 s. The models' secular variation is linear in time
               (IGRF: between its 5-year epochs), so this is the model's own rate (the decimal year's 365/366-day divisor is taken as that of the
               start's year)
    S          mag.soft_iron_matrix (3 x 3, row-major, dimensionless; identity = none)
    b_hi       mag.hard_iron_ut (body FLU, uT)
    sigma_m    mag.noise_std_ut (uT);  g_k three standard normal values

The model is evaluated seven times at the start (the origin, six gradient points, the origin a
day later), never per epoch or per chunk: the field changes by a few nT per kilometre and by
about 0.1 nT per day, so the first-order expansion above is exact to well under 0.1 nT over a
site of several kilometres and an episode of days, and every epoch is an elementwise function
of its own p_k and t_k: batch = chunks = steps. The field is taken at the chassis origin (a
lever arm of metres changes it by hundredths of a nT).

Geodetic north/east/down to grid ENU. The WMM gives X (north), Y (east), Z (down) along the
true (geodetic) meridian (so does the IGRF, ppigrf's geodetic components). The site's grid north differs from true north by the grid
convergence gamma (the ACRE tile's EPSG:2968 transverse Mercator: gamma = +0.0578 deg, grid
north east of true north; a local tangent site: 0 at the origin). At each evaluation point
gamma is measured by navsense.geo.earth.grid_convergence_deg (the one true north of the site,
shared with the IMUs' and the INS's Earth, ``imu.earth``). Then::

    B_east  = -X sin(gamma) + Y cos(gamma)
    B_north =  X cos(gamma) + Y sin(gamma)
    B_up    = -Z

(a conformal grid: grid east is grid north turned 90 deg clockwise).

Models (navsense.sensors.field_models): WMM2025 for a start in 2025.0..2030.0, WMM2020 in
2020.0..2025.0 (pygeomag's NOAA coefficient files), IGRF-14 in 1900.0..2020.0 (ppigrf); a start
outside 1900..2030 is a ConfigError naming gnss.datum.start_utc. Without a georeference (a site
that has none) the field is that of the specification's ACRE tile at gnss.datum.start_utc, as
the GNSS receiver's sky.

episode.json's ``mag_field`` names the model and its package; ruling "uncertainty": the model's
1-sigma error budget (field_models) is written as ``mag_field.uncertainty`` for WMM2020 and
IGRF-14 runs only. A WMM2025 run's episode.json keeps its bytes (the golden runs start in 2026
and their episode.json is pinned); its budget is field_models.WMM2025_UNCERTAINTY, the one the
model's name implies (docs/guide/magnetometer-field.md).

With cfg["noise"] False: sigma_m = 0, b_hi = 0 and S = identity (every error zeroed), and the
same values are drawn.

Random values: the stream Pcg32(seed + 6073, 8) (a sequence no specification stream uses:
those are 1, 2, 4, 6), three Gaussians a sample (x, y, z), nothing at the start.

Output: ``magnetic_field_flu_ut`` (m, 3) in uT; the rows of ``mag.jsonl`` are
``navsense.output.layouts.mag``'s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from navsense.clock import Due
from navsense.config.typed.mag import MagConfig
from navsense.geo.earth import grid_convergence_deg, ned_to_grid_enu
from navsense.rng import Pcg32
from navsense.rotation import quat_to_matrix, rotate, rotate_inverse
from navsense.sensors.field_models import FieldModel, field_model_for
from navsense.truth.states import TruthStates
from navsense.vehicles import VehicleProfile

__all__ = [
    "build_model",
    "MagnetometerModel",
    "SiteField",
    "site_field",
    "main_field_ned_nt",
    "MAG_SEED_OFFSET",
    "MAG_SEQUENCE",
]

MAG_SEED_OFFSET = 6073  # navsense: magnetometer stream seed + 6073 (no specification stream)
MAG_SEQUENCE = 8  # navsense: sequence 8 (the specification uses 1, 2, 4, 6)
DRAWS_PER_SAMPLE = 3  # Gaussians a sample: x, y, z
NT_PER_UT = 1000.0  # 1 uT = 1000 nT

GRADIENT_STEP_M = 500.0  # half-width of the central differences of the field's gradient, m
RATE_STEP_S = 86_400.0  # the field's rate from the field one day after the start, s


# ------------------------------------------------------------------------------ the field
def main_field_ned_nt(
    lat_deg: float, lon_deg: float, height_m: float, decimal_year: float
) -> np.ndarray:
    """The main field of the model of ``decimal_year`` (X north, Y east, Z down), nT, (3,).

    ``lat_deg``, ``lon_deg``: WGS84 geodetic; ``height_m``: above the WGS84 ellipsoid;
    ``decimal_year`` in [1900.0, 2030.0) (else ConfigError), the model that covers it
    (navsense.sensors.field_models).
    """
    model = field_model_for(decimal_year)
    return model.field_ned_nt(lat_deg, lon_deg, height_m, decimal_year)[0]


@dataclass(frozen=True)
class SiteField:
    """The first-order field model of a site (module docstring), nT, grid ENU.

    ``b0_enu_nt`` (3,), ``gradient_enu_nt_per_m`` (3, 3) [i, j] = dB_i / dp_j,
    ``rate_enu_nt_per_s`` (3,); plus what produced them (for episode.json).
    """

    b0_enu_nt: np.ndarray
    gradient_enu_nt_per_m: np.ndarray
    rate_enu_nt_per_s: np.ndarray
    b0_ned_nt: np.ndarray
    lat_deg: float
    lon_deg: float
    height_m: float
    decimal_year: float
    convergence_deg: float
    model: FieldModel

    def field_enu_nt(self, p_m: np.ndarray, t_s: np.ndarray) -> np.ndarray:
        """B_0 + G p + Bdot t for points (m, 3) at times (m,), term by term, (m, 3)."""
        p = np.asarray(p_m, dtype=np.float64)
        t = np.asarray(t_s, dtype=np.float64)
        g = np.broadcast_to(self.gradient_enu_nt_per_m, p.shape[:-1] + (3, 3))
        return self.b0_enu_nt + rotate(g, p) + self.rate_enu_nt_per_s * t[..., None]

    def info(self) -> dict:
        b = self.b0_ned_nt
        h = math.hypot(b[0], b[1])
        out = {
            "model": self.model.name,
            "package": self.model.package_version(),
            "wgs84_lat_deg": self.lat_deg,
            "wgs84_lon_deg": self.lon_deg,
            "wgs84_height_m": self.height_m,
            "decimal_year": self.decimal_year,
            "field_ned_nt": b.tolist(),
            "field_enu_nt": self.b0_enu_nt.tolist(),
            "declination_deg": math.degrees(math.atan2(b[1], b[0])),
            "inclination_deg": math.degrees(math.atan2(b[2], h)),
            "total_intensity_nt": math.hypot(h, b[2]),
            "grid_convergence_deg": self.convergence_deg,
        }
        if self.model.name != "WMM2025":  # ruling "uncertainty" (module docstring)
            out["uncertainty"] = self.model.uncertainty(self.decimal_year)
        return out


def site_field(georef) -> SiteField:
    """Evaluate the start's field model at the site (seven points, then the origin a day later;
    two calls) and build the first-order model."""
    d = GRADIENT_STEP_M
    pts = np.array(
        [
            [0.0, 0.0, 0.0],
            [d, 0.0, 0.0],
            [-d, 0.0, 0.0],
            [0.0, d, 0.0],
            [0.0, -d, 0.0],
            [0.0, 0.0, d],
            [0.0, 0.0, -d],
        ]
    )
    geo = georef.enu_to_geodetic(pts, 0.0)
    gamma = grid_convergence_deg(georef, pts, 0.0)
    year0 = float(georef.decimal_year(0.0))
    model = field_model_for(year0)
    b_ned = model.field_ned_nt(
        geo["wgs84_lat_deg"], geo["wgs84_lon_deg"], geo["wgs84_height_m"], year0
    )
    b_enu = ned_to_grid_enu(b_ned, gamma)
    grad = np.empty((3, 3))
    for j in range(3):
        grad[:, j] = (b_enu[1 + 2 * j] - b_enu[2 + 2 * j]) / (2.0 * d)
    geo_later = georef.enu_to_geodetic(pts[0], RATE_STEP_S)
    year1 = float(georef.decimal_year(RATE_STEP_S))
    b_later = model.field_ned_nt(
        geo_later["wgs84_lat_deg"], geo_later["wgs84_lon_deg"], geo_later["wgs84_height_m"], year1
    )[0]
    rate = (ned_to_grid_enu(b_later, gamma[0]) - b_enu[0]) / RATE_STEP_S
    return SiteField(
        b0_enu_nt=b_enu[0].copy(),
        gradient_enu_nt_per_m=grad,
        rate_enu_nt_per_s=rate,
        b0_ned_nt=b_ned[0].copy(),
        lat_deg=float(geo["wgs84_lat_deg"][0]),
        lon_deg=float(geo["wgs84_lon_deg"][0]),
        height_m=float(geo["wgs84_height_m"][0]),
        decimal_year=year0,
        convergence_deg=float(gamma[0]),
        model=model,
    )


# ------------------------------------------------------------------------------ the model
class MagnetometerModel:
    """``MagnetometerModel(config, vehicle, georef)``: the magnetometer over consecutive chunks.

    ``config`` the typed ``mag`` section, ``vehicle`` a VehicleProfile (unused: the field is
    uniform over the vehicle), ``georef`` the site's Georeference or None (the ACRE tile).
    """

    name = "mag"

    def __init__(
        self, config: MagConfig, vehicle: VehicleProfile | None = None, georef=None
    ) -> None:
        self.config = c = config
        if georef is None:
            from navsense.geo import Georeference  # the ACRE tile (module docstring)

            georef = Georeference.acre(start_utc=c.start_utc)
        self.field = site_field(georef)
        self._rng = Pcg32(c.seed + MAG_SEED_OFFSET, MAG_SEQUENCE)
        self._sigma_ut = c.noise_std_ut if c.noise else 0.0
        self.hard_iron_ut = np.array(c.hard_iron_ut if c.noise else (0.0, 0.0, 0.0))
        soft = np.array(c.soft_iron_matrix).reshape(3, 3) if c.noise else np.eye(3)
        self.soft_iron = soft
        self._due = Due(c.hz, start_s=None)

    def process(self, truth: TruthStates) -> dict:
        """The magnetometer samples in this chunk of physics steps."""
        if len(truth) == 0:
            return _empty_block()
        rows = self._due.sample_indices(truth.t_s)
        m = rows.size
        g = self._rng.gaussians(DRAWS_PER_SAMPLE * m).reshape(m, DRAWS_PER_SAMPLE)
        t = truth.t_s[rows]
        b_enu_nt = self.field.field_enu_nt(truth.p_m[rows], t)
        r = quat_to_matrix(truth.q_xyzw[rows])
        b_body_ut = rotate_inverse(r, b_enu_nt) / NT_PER_UT  # R^T B, uT
        soft = np.broadcast_to(self.soft_iron, (m, 3, 3))
        meas = rotate(soft, b_body_ut) + self.hard_iron_ut + self._sigma_ut * g
        return {"sample_time_s": t, "magnetic_field_flu_ut": meas}

    def output_info(self) -> dict:
        """For the layout (navsense.output.layouts.mag): nothing per run."""
        return {}

    def episode_info(self) -> dict:
        """``mag_field``: the field model's evaluation at the site origin (for episode.json)."""
        return {"mag_field": self.field.info()}


def _empty_block() -> dict:
    return {"sample_time_s": np.zeros(0), "magnetic_field_flu_ut": np.zeros((0, 3))}


def build_model(context) -> MagnetometerModel:
    """The magnetometer of a run (navsense.suite.SENSORS["mag"]; ``context`` a
    navsense.suite.ModelContext)."""
    return MagnetometerModel(MagConfig.from_validated(context.cfg), context.vehicle, context.georef)
