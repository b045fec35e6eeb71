"""The Earth's main field of the recording's date: WMM2025, WMM2020 or IGRF-14 (issue 29, item 5).

A navsense extension (the specification has no magnetometer). The magnetometer
(:mod:`navsense.sensors.magnetometer`) takes the field of the model that covers the run's start
(``gnss.datum.start_utc``, a track's or a truth log's start time), by decimal year ``y``::

    2025.0 <= y < 2030.0   WMM2025   pygeomag's wmm/WMM_2025.COF (NOAA/BGS, epoch 2025.0)
    2020.0 <= y < 2025.0   WMM2020   pygeomag's wmm/WMM_2020.COF (NOAA/BGS, epoch 2020.0)
    1900.0 <= y < 2020.0   IGRF-14   ppigrf's IGRF14.shc (IAGA V-MOD; DGRF 1945..2020)
    otherwise              ConfigError naming gnss.datum.start_utc and the years covered

Ruling "one model a run": the model is chosen by the start's decimal year and kept for the whole
run, including the field's rate (evaluated one day after the start, magnetometer docstring): a
run that starts on 2024-12-31 takes WMM2020 and its rate (WMM's secular variation is linear, so
a day past its life span is its own extrapolation), not a jump to WMM2025 at midnight. Ruling
"WMM where there is one": from 2020 the World Magnetic Model is used (the issue's choice; it is
the model navigation systems carry), before 2020 the IGRF; at 2020.0 the two differ by tens of
nT (the test measures it), well inside either model's error budget below.

Uncertainty (1 sigma, per component, at the Earth's surface, the model's whole life span):

* WMM2025: X 137, Y 89, Z 141, H 133, F 138 nT, I 0.20 deg, D 0.26 deg (and 5417 nT / H),
  the error model of the WMM2025 Technical Report (NOAA NCEI and BGS, December 2024), as
  NOAA's calculators report it.
* WMM2020: X 131, Y 94, Z 157, H 128, F 148 nT, I 0.21 deg, D 0.26 deg (and 5625 nT / H),
  The US/UK World Magnetic Model for 2020-2025: Technical Report (Chulliat et al. 2020,
  doi:10.25923/ytk1-yx35), its error model.
* IGRF-14: the IGRF publishes no error budget per component: it is a model of the core
  (main) field to degree 13 (IAGA V-MOD; Alken et al. 2021, Earth Planets Space 73:49, for
  the 13th generation), and the crustal and external fields it leaves out are the user's
  error as they are WMM's. Ruling: navsense reports WMM2020's error
  model for it, since that budget is dominated by the same omitted (crustal and disturbance)
  fields and the definitive DGRF coefficients have no forecast error; before 1945 (the
  non-definitive IGRF epochs, fitted to few observatories) the field is less certain than that,
  which ``note`` says.

Packages: pygeomag (pure Python, the run-time WMM package) and ppigrf (pure Python, maintained
by IAGA's V-MOD group; numpy and pandas), imported when a model of theirs is first used.
"""

from __future__ import annotations

import calendar
import datetime as _dt
import functools
from dataclasses import dataclass

import numpy as np

from navsense.errors import ConfigError, NavsenseError
from navsense.rotation import wrap_degrees

__all__ = ["FIELD_MODELS", "FieldModel", "field_model_for", "FIRST_YEAR", "LAST_YEAR"]

FIRST_YEAR = 1900.0  # IGRF-14's first epoch
LAST_YEAR = 2030.0  # WMM2025's end (and IGRF-14's)


def _wmm_uncertainty(x, y, z, h, f, i, d, d_h, source) -> dict:
    return {
        "x_nt": x,
        "y_nt": y,
        "z_nt": z,
        "h_nt": h,
        "f_nt": f,
        "inclination_deg": i,
        "declination_deg": d,
        "declination_over_h_nt": d_h,
        "source": source,
    }


WMM2025_UNCERTAINTY = _wmm_uncertainty(
    137.0, 89.0, 141.0, 133.0, 138.0, 0.20, 0.26, 5417.0,
    "WMM2025 Technical Report (NOAA NCEI, BGS 2024), error model, 1 sigma",
)  # fmt: skip
WMM2020_UNCERTAINTY = _wmm_uncertainty(
    131.0, 94.0, 157.0, 128.0, 148.0, 0.21, 0.26, 5625.0,
    "WMM2020 Technical Report (Chulliat et al. 2020), error model, 1 sigma",
)  # fmt: skip
IGRF_UNCERTAINTY = {
    **WMM2020_UNCERTAINTY,
    "source": "navsense ruling: the IGRF states no error budget; WMM2020's error model, 1 sigma",
}
IGRF_EARLY_NOTE = "before 1945 the IGRF is not definitive: the field is less certain than this"


@dataclass(frozen=True)
class FieldModel:
    """One main-field model: its name, life span [start, end) in decimal years, package."""

    name: str
    years: tuple[float, float]
    package: str
    source: str  # the coefficient file

    def covers(self, decimal_year: float) -> bool:
        return self.years[0] <= decimal_year < self.years[1]

    def field_ned_nt(self, lat_deg, lon_deg, height_m, decimal_year: float) -> np.ndarray:
        """X north, Y east, Z down (nT), shape (n, 3), at WGS84 points (n,) at one time.

        The time is not checked against the life span (the rate's day after the start may
        pass it: module docstring); :func:`field_model_for` chose the model.
        """
        lat = np.atleast_1d(np.asarray(lat_deg, dtype=np.float64))
        lon = wrap_degrees(np.atleast_1d(np.asarray(lon_deg, dtype=np.float64)))
        h = np.atleast_1d(np.asarray(height_m, dtype=np.float64))
        if self.package == "ppigrf":
            return _igrf_ned_nt(self.source, lat, lon, h, decimal_year)
        g = _geomag(self.source)
        out = np.empty((lat.size, 3))
        for i in range(lat.size):
            r = g.calculate(
                glat=float(lat[i]),
                glon=float(lon[i]),
                alt=float(h[i]) / 1000.0,
                time=float(decimal_year),
                allow_date_outside_lifespan=True,
            )
            out[i] = (r.x, r.y, r.z)
        return out

    def uncertainty(self, decimal_year: float) -> dict:
        """The model's 1-sigma error budget (module docstring), for episode.json."""
        if self.name == "WMM2025":
            return dict(WMM2025_UNCERTAINTY)
        if self.name == "WMM2020":
            return dict(WMM2020_UNCERTAINTY)
        out = dict(IGRF_UNCERTAINTY)
        if decimal_year < 1945.0:
            out["note"] = IGRF_EARLY_NOTE
        return out

    def package_version(self) -> str:
        try:
            from importlib.metadata import version

            return f"{self.package} {version(self.package)}"
        except Exception:  # pragma: no cover - metadata missing in an unusual install
            return f"{self.package} unknown"


WMM2025 = FieldModel("WMM2025", (2025.0, 2030.0), "pygeomag", "wmm/WMM_2025.COF")
WMM2020 = FieldModel("WMM2020", (2020.0, 2025.0), "pygeomag", "wmm/WMM_2020.COF")
IGRF14 = FieldModel("IGRF-14", (1900.0, 2020.0), "ppigrf", "IGRF14.shc")
FIELD_MODELS = (WMM2025, WMM2020, IGRF14)  # newest first


def field_model_for(decimal_year: float) -> FieldModel:
    """The model of a run that starts at ``decimal_year`` (module docstring), else ConfigError."""
    for model in FIELD_MODELS:
        if model.covers(decimal_year):
            return model
    raise ConfigError(
        f"gnss.datum.start_utc: the decimal year {decimal_year:.4f} is outside the years the "
        f"Earth's field models cover, {FIRST_YEAR:.1f}..{LAST_YEAR:.1f} (IGRF-14 from 1900, "
        f"WMM2020 from 2020, WMM2025 from 2025 to 2030; the magnetometer needs one)"
    )


# ------------------------------------------------------------------------------ packages
@functools.cache
def _geomag(coefficients: str):
    try:
        from pygeomag import GeoMag
    except ImportError as exc:  # pragma: no cover - a missing run-time dependency
        raise NavsenseError(
            "the magnetometer needs the World Magnetic Model package pygeomag "
            "(pip install 'pygeomag>=1.1,<2')"
        ) from exc
    return GeoMag(coefficients_file=coefficients)


def _ppigrf():
    try:
        import ppigrf
    except ImportError as exc:  # pragma: no cover - a missing run-time dependency
        raise NavsenseError(
            "the magnetometer needs the IGRF package ppigrf for a start before 2020 "
            "(pip install 'ppigrf>=2.1,<3')"
        ) from exc
    return ppigrf


def decimal_year_datetime(decimal_year: float) -> _dt.datetime:
    """The naive UTC time of a decimal year (the inverse of geo.epoch's: year + elapsed / the
    year's length), for ppigrf, which takes times."""
    year = int(np.floor(decimal_year))
    days = 366 if calendar.isleap(year) else 365
    return _dt.datetime(year, 1, 1) + _dt.timedelta(days=(decimal_year - year) * days)


def _igrf_ned_nt(shc: str, lat, lon, h, decimal_year: float) -> np.ndarray:
    """ppigrf.igrf (geodetic in and out: east, north, up) as X north, Y east, Z down."""
    from pathlib import Path

    ppigrf = _ppigrf()
    fn = str(Path(ppigrf.__file__).with_name(shc))
    when = decimal_year_datetime(decimal_year)
    be, bn, bu = ppigrf.igrf(lon, lat, h / 1000.0, when, coeff_fn=fn)
    return np.stack([bn[0], be[0], -bu[0]], axis=-1).astype(np.float64)
