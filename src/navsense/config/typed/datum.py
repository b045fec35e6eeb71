"""The ``gnss.datum`` section as the datum chain takes it (navsense.geo.Georeference).

Built by :meth:`DatumConfig.from_validated` from a complete ``gnss.datum`` dict that the schema
(navsense.config.schema, section ``gnss.datum``) has checked: the conversion checks nothing.
Keys and units are the specification's ("Parameters", GNSS receiver, gnss.datum).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields

from navsense.config.typed.keyed import build, key

__all__ = ["DatumConfig", "HelmertParameters", "datum_config", "default_datum"]


@dataclass(frozen=True)
class HelmertParameters:
    """The 14 parameters and reference epoch of a time-dependent Helmert transformation.

    Keys and units of gnss.datum.helmert_itrf2014_to_nad83_2011; rotations in the
    coordinate-frame convention (as published by NGS and EPSG).
    """

    t_m: tuple[float, float, float]  # translation T0, m
    r_arcsec: tuple[float, float, float]  # rotation r0, arcsec (coordinate frame)
    s_ppm: float  # scale s0, ppm
    dt_m_per_yr: tuple[float, float, float]  # translation rate, m/yr
    dr_arcsec_per_yr: tuple[float, float, float]  # rotation rate, arcsec/yr
    ds_ppm_per_yr: float  # scale rate, ppm/yr
    reference_epoch: float  # reference epoch t_ref, decimal year

    @classmethod
    def from_validated(cls, d: Mapping) -> HelmertParameters:
        """From a complete, validated helmert_itrf2014_to_nad83_2011 dict."""
        return build(cls, d, root_path="gnss.datum.helmert_itrf2014_to_nad83_2011")

    def to_dict(self) -> dict:
        """The parameters as the specification's dict (lists for the vectors)."""
        out: dict = {}
        for f in fields(self):
            v = getattr(self, f.name)
            out[f.name] = list(v) if isinstance(v, tuple) else v
        return out


@dataclass(frozen=True)
class DatumConfig:
    """The gnss.datum block, typed and frozen."""

    output_frame: str  # wgs84_g2139 | nad83 (the GNSS receiver's output frame)
    start_utc: str  # UTC at t = 0, ISO 8601
    shift_lat_deg: float  # harn_to_nad83_2011_shift_deg[0], deg
    shift_lon_deg: float  # harn_to_nad83_2011_shift_deg[1], deg
    geoid_n0_m: float = field(metadata=key("geoid.n0_m"))  # m
    geoid_dn_de: float = field(metadata=key("geoid.dn_de"))  # m/m
    geoid_dn_dn: float = field(metadata=key("geoid.dn_dn"))  # m/m
    helmert: HelmertParameters  # helmert_itrf2014_to_nad83_2011

    @classmethod
    def from_validated(cls, datum: Mapping) -> DatumConfig:
        """From a complete, validated gnss.datum dict."""
        lat, lon = (float(v) for v in datum["harn_to_nad83_2011_shift_deg"])
        return build(
            cls,
            datum,
            root_path="gnss.datum",
            shift_lat_deg=lat,
            shift_lon_deg=lon,
            helmert=HelmertParameters.from_validated(datum["helmert_itrf2014_to_nad83_2011"]),
        )

    def to_dict(self) -> dict:
        """The block as the specification's dict."""
        return {
            "output_frame": self.output_frame,
            "start_utc": self.start_utc,
            "harn_to_nad83_2011_shift_deg": [self.shift_lat_deg, self.shift_lon_deg],
            "geoid": {
                "n0_m": self.geoid_n0_m,
                "dn_de": self.geoid_dn_de,
                "dn_dn": self.geoid_dn_dn,
            },
            "helmert_itrf2014_to_nad83_2011": self.helmert.to_dict(),
        }


def default_datum() -> DatumConfig:
    """The specification's gnss.datum (the embedded sensors.json's, the one copy), typed."""
    return datum_config(None)


def datum_config(
    datum: Mapping | DatumConfig | None,
    start_utc: str | None = None,
    where: str = "Georeference datum",
) -> DatumConfig:
    """The typed gnss.datum of ``datum``: a DatumConfig as it is, or a dict whose keys left out
    take the specification's values, checked by the configuration's schema (section
    gnss.datum; ConfigError naming ``where``, the key, the value and what is allowed); None:
    the specification's. ``start_utc``, when given, replaces the block's start time. The one
    conversion of a datum given as a dict, so that the geodesy (navsense.geo) takes a typed
    datum and imports no configuration loader."""
    from dataclasses import replace

    if isinstance(datum, DatumConfig):
        cfg = datum
    else:
        from navsense.config.defaults import sensors_defaults
        from navsense.config.load import deep_merge
        from navsense.config.schema import validate_section

        d = {} if datum is None else datum
        validate_section("gnss.datum", d, where, partial=True)
        cfg = DatumConfig.from_validated(deep_merge(sensors_defaults()["gnss"]["datum"], d))
    if start_utc is not None:
        cfg = replace(cfg, start_utc=start_utc)
    return cfg
