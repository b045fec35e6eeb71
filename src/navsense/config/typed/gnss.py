"""The ``gnss`` section for the GNSS receiver (specification "Parameters", GNSS receiver), typed.

Built by :meth:`GnssConfig.from_validated` from the effective configuration that
navsense.config validated (section ``gnss`` of navsense.config.schema: ranges, the start mode,
the output frame, one system on, [start, end) outages of the corrections and of the
signals, positive time constants): the conversion
checks nothing. Units are the specification's (s, m, deg, ppm, km).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "GnssConfig",
    "FixConfig",
    "ErrorConfig",
    "StateParams",
    "CorrectionsConfig",
    "STATE_PARAM_KEYS",
]

STATE_PARAM_KEYS = (
    "sigma_h_m",
    "sigma_v_m",
    "initial_sigma_h_m",
    "initial_sigma_v_m",
    "convergence_tau_s",
    "white_h_m",
    "white_v_m",
    "tau_s",
    "multipath_h_m",
)


@dataclass(frozen=True)
class FixConfig:
    """The fix-state machine (gnss.start, gnss.cold_ttff_s, gnss.rtk.*, gnss.corrections ages)."""

    cold: bool  # gnss.start == "cold"
    cold_ttff_s: float
    rtk_max_age_s: float
    dgps_max_age_s: float
    float_min_satellites: int
    min_clear_satellites: int
    max_pdop: float
    cycle_slip_rate_per_s: float
    ttf_median_s: float
    ttf_log_sigma: float
    ttf_multipath_gain: float
    reacquire_factor: float
    reacquire_window_s: float

    @classmethod
    def from_validated(cls, cfg: Mapping[str, Any]) -> FixConfig:
        gnss = cfg["gnss"]
        rtk, corr = gnss["rtk"], gnss["corrections"]
        return cls(
            cold=gnss["start"] == "cold",
            cold_ttff_s=float(gnss["cold_ttff_s"]),
            rtk_max_age_s=float(corr["rtk_max_age_s"]),
            dgps_max_age_s=float(corr["dgps_max_age_s"]),
            float_min_satellites=int(rtk["float_min_satellites"]),
            min_clear_satellites=int(rtk["min_clear_satellites"]),
            max_pdop=float(rtk["max_pdop"]),
            cycle_slip_rate_per_s=float(rtk["cycle_slip_rate_per_s"]),
            ttf_median_s=float(rtk["ttf_median_s"]),
            ttf_log_sigma=float(rtk["ttf_log_sigma"]),
            ttf_multipath_gain=float(rtk["ttf_multipath_gain"]),
            reacquire_factor=float(rtk["reacquire_factor"]),
            reacquire_window_s=float(rtk["reacquire_window_s"]),
        )


@dataclass(frozen=True)
class StateParams:
    """One fix state's parameters (gnss.states.<state>)."""

    sigma_h_m: float
    sigma_v_m: float
    initial_sigma_h_m: float
    initial_sigma_v_m: float
    convergence_tau_s: float
    white_h_m: float
    white_v_m: float
    tau_s: float
    multipath_h_m: float

    @classmethod
    def from_validated(cls, block: Mapping[str, Any]) -> StateParams:
        return cls(**{k: float(block[k]) for k in STATE_PARAM_KEYS})


@dataclass(frozen=True)
class ErrorConfig:
    """The error model: the parameters of each state (no_fix takes single's), the multipath
    terms, the RTK baseline term (gnss.corrections.baseline_km, ppm_h, ppm_v) and the noise
    switch."""

    rtk_fixed: StateParams
    rtk_float: StateParams
    dgps: StateParams
    single: StateParams
    multipath_tau_s: float
    multipath_vertical_ratio: float
    baseline_km: float
    ppm_h: float
    ppm_v: float
    noise: bool

    @classmethod
    def from_validated(cls, cfg: Mapping[str, Any]) -> ErrorConfig:
        gnss = cfg["gnss"]
        states, corr = gnss["states"], gnss["corrections"]
        return cls(
            rtk_fixed=StateParams.from_validated(states["rtk_fixed"]),
            rtk_float=StateParams.from_validated(states["rtk_float"]),
            dgps=StateParams.from_validated(states["dgps"]),
            single=StateParams.from_validated(states["single"]),
            multipath_tau_s=float(gnss["multipath_tau_s"]),
            multipath_vertical_ratio=float(gnss["multipath_vertical_ratio"]),
            baseline_km=float(corr["baseline_km"]),
            ppm_h=float(corr["ppm_h"]),
            ppm_v=float(corr["ppm_v"]),
            noise=bool(cfg["noise"]),
        )


@dataclass(frozen=True)
class CorrectionsConfig:
    """The base station's message schedule (gnss.corrections, and gnss.start for its start)."""

    interval_s: float
    latency_s: float
    outages_s: tuple[tuple[float, float], ...]  # [t1, t2) pairs, s
    cold: bool  # gnss.start == "cold": the first message is j = 0

    @classmethod
    def from_validated(cls, cfg: Mapping[str, Any]) -> CorrectionsConfig:
        gnss = cfg["gnss"]
        corr = gnss["corrections"]
        return cls(
            interval_s=float(corr["interval_s"]),
            latency_s=float(corr["latency_s"]),
            outages_s=tuple((float(a), float(b)) for a, b in corr["outages_s"]),
            cold=gnss["start"] == "cold",
        )


@dataclass(frozen=True)
class GnssConfig:
    """The receiver's settings, with the run's seed, noise switch and mount frame.

    ``antenna_flu_m`` in ``mount_frame`` axes (chassis or base_footprint), m; ``constellations``
    one (system, on) pair for each key of gnss.constellations; ``output_frame`` and ``start_utc``
    from gnss.datum.
    """

    enabled: bool
    hz: float
    antenna_flu_m: tuple[float, float, float]
    mount_frame: str
    seed: int
    noise: bool
    elevation_mask_deg: float
    constellations: tuple[tuple[str, bool], ...]
    near_margin_m: float
    foliage_block_path_m: float
    reflector_range_m: float
    signal_outages_s: tuple[tuple[float, float], ...]  # gnss.signal_outages_s, [t1, t2) pairs, s
    output_frame: str
    start_utc: str
    fix: FixConfig
    errors: ErrorConfig
    corrections: CorrectionsConfig
    nmea_sentences: tuple[str, ...]  # gnss.nmea.sentences, as given

    @classmethod
    def from_validated(cls, cfg: Mapping[str, Any]) -> GnssConfig:
        """From the effective configuration that navsense.config validated (no check here)."""
        gnss = cfg["gnss"]
        e, n, u = (float(v) for v in gnss["antenna_flu_m"])
        obstruction = gnss["obstruction"]
        return cls(
            enabled=bool(gnss["enabled"]),
            hz=float(gnss["hz"]),
            antenna_flu_m=(e, n, u),
            mount_frame=str(cfg["mount_frame"]),
            seed=int(cfg["seed"]),
            noise=bool(cfg["noise"]),
            elevation_mask_deg=float(gnss["elevation_mask_deg"]),
            constellations=tuple((s, bool(on)) for s, on in gnss["constellations"].items()),
            near_margin_m=float(obstruction["near_margin_m"]),
            foliage_block_path_m=float(obstruction["foliage_block_path_m"]),
            reflector_range_m=float(obstruction["reflector_range_m"]),
            signal_outages_s=tuple((float(a), float(b)) for a, b in gnss["signal_outages_s"]),
            output_frame=str(gnss["datum"]["output_frame"]),
            start_utc=str(gnss["datum"]["start_utc"]),
            fix=FixConfig.from_validated(cfg),
            errors=ErrorConfig.from_validated(cfg),
            corrections=CorrectionsConfig.from_validated(cfg),
            nmea_sentences=tuple(str(name) for name in gnss["nmea"]["sentences"]),
        )
