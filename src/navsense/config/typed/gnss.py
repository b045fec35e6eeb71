"""The ``gnss`` section for the GNSS receiver (specification "Parameters", GNSS receiver), typed.

Built by :meth:`GnssConfig.from_validated` from the effective configuration that
navsense.config validated (section ``gnss`` of navsense.config.schema: ranges, the start mode,
the output frame, one system on, [start, end) outages of the corrections and of the
signals, positive time constants): the conversion
checks nothing. Units are the specification's (s, m, deg, ppm, km).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from navsense.config.keys import DEFAULT_NMEA_SENTENCES
from navsense.config.receiver import resolve_receiver
from navsense.config.typed.keyed import build, key, section

__all__ = [
    "GnssConfig",
    "FixConfig",
    "ErrorConfig",
    "StateParams",
    "CorrectionsConfig",
    "HeadingConfig",
    "STATE_PARAM_KEYS",
    "STATE_NAMES",
]


@dataclass(frozen=True)
class FixConfig:
    """The fix-state machine (gnss.start, gnss.cold_ttff_s, gnss.rtk.*, gnss.corrections ages)."""

    cold: bool  # gnss.start == "cold"
    cold_ttff_s: float = field(metadata=key("gnss.cold_ttff_s"))
    rtk_max_age_s: float = field(metadata=key("gnss.corrections.rtk_max_age_s"))
    dgps_max_age_s: float = field(metadata=key("gnss.corrections.dgps_max_age_s"))
    float_min_satellites: int
    min_clear_satellites: int
    max_pdop: float
    cycle_slip_rate_per_s: float
    ttf_median_s: float
    ttf_log_sigma: float
    ttf_multipath_gain: float
    reacquire_factor: float
    reacquire_window_s: float
    #: the highest class of fix states the receiver reaches (gnss.receiver; receiver_presets):
    #: "single" (no_fix, single), "dgps" (and dgps) or "rtk" (every state: the specification's)
    reach: str

    @classmethod
    def from_validated(cls, cfg: Mapping[str, Any]) -> FixConfig:
        cfg, reach = resolve_receiver(cfg)  # a receiver preset's values (receiver_presets)
        return build(cls, cfg, "gnss.rtk", cold=cfg["gnss"]["start"] == "cold", reach=reach)


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
        return build(cls, block, root_path="gnss.states.single")


#: the keys of a fix state (gnss.states.<state>), in the table's order
STATE_PARAM_KEYS = tuple(f.name for f in fields(StateParams))
#: the fix states that have parameters (no_fix takes single's)
STATE_NAMES = tuple(section("gnss.states").fields)


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
    baseline_km: float = field(metadata=key("gnss.corrections.baseline_km"))
    ppm_h: float = field(metadata=key("gnss.corrections.ppm_h"))
    ppm_v: float = field(metadata=key("gnss.corrections.ppm_v"))
    noise: bool = field(metadata=key("noise"))

    @classmethod
    def from_validated(cls, cfg: Mapping[str, Any]) -> ErrorConfig:
        cfg, _ = resolve_receiver(cfg)  # a receiver preset's values (receiver_presets)
        states = cfg["gnss"]["states"]
        return build(
            cls,
            cfg,
            "gnss",
            rtk_fixed=StateParams.from_validated(states["rtk_fixed"]),
            rtk_float=StateParams.from_validated(states["rtk_float"]),
            dgps=StateParams.from_validated(states["dgps"]),
            single=StateParams.from_validated(states["single"]),
        )


@dataclass(frozen=True)
class CorrectionsConfig:
    """The base station's message schedule (gnss.corrections, and gnss.start for its start)."""

    interval_s: float
    latency_s: float
    outages_s: tuple[tuple[float, float], ...]  # [t1, t2) pairs, s
    cold: bool  # gnss.start == "cold": the first message is j = 0
    enabled: bool  # gnss.corrections.enabled: false, no stream (a phone's preset sets it)

    @classmethod
    def from_validated(cls, cfg: Mapping[str, Any]) -> CorrectionsConfig:
        cfg, _ = resolve_receiver(cfg)  # a receiver preset's values (receiver_presets)
        return build(cls, cfg, "gnss.corrections", cold=cfg["gnss"]["start"] == "cold")


@dataclass(frozen=True)
class HeadingConfig:
    """The second antenna (gnss.heading, issue 29 item 4; navsense.sensors.gnss.heading):
    ``baseline_m`` 0 (off) or the antennas' distance, ``antenna2_flu_m`` the second antenna's
    lever arm in mount_frame axes (None: baseline_m straight ahead of the first)."""

    baseline_m: float
    antenna2_flu_m: tuple[float, float, float] | None
    sigma_deg_at_1m: float
    pitch_sigma_ratio: float
    rtk_float: bool

    @property
    def on(self) -> bool:
        return self.baseline_m > 0

    def second_antenna_flu_m(self, antenna_flu_m) -> tuple[float, float, float]:
        """r_2 in mount_frame axes: antenna2_flu_m, or baseline_m straight ahead (x forward)
        of the first antenna ``antenna_flu_m``."""
        if self.antenna2_flu_m is not None:
            return self.antenna2_flu_m
        x, y, z = (float(v) for v in antenna_flu_m)
        return (x + self.baseline_m, y, z)

    @classmethod
    def from_validated(cls, cfg: Mapping[str, Any]) -> HeadingConfig:
        return build(cls, cfg, "gnss.heading")


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
    mount_frame: str = field(metadata=key("mount_frame"))
    seed: int = field(metadata=key("seed"))
    noise: bool = field(metadata=key("noise"))
    elevation_mask_deg: float
    constellations: tuple[tuple[str, bool], ...]
    near_margin_m: float = field(metadata=key("gnss.obstruction.near_margin_m"))
    foliage_block_path_m: float = field(metadata=key("gnss.obstruction.foliage_block_path_m"))
    reflector_range_m: float = field(metadata=key("gnss.obstruction.reflector_range_m"))
    signal_outages_s: tuple[tuple[float, float], ...]  # gnss.signal_outages_s, [t1, t2) pairs, s
    output_frame: str = field(metadata=key("gnss.datum.output_frame"))
    start_utc: str = field(metadata=key("gnss.datum.start_utc"))
    fix: FixConfig
    errors: ErrorConfig
    corrections: CorrectionsConfig
    nmea_sentences: tuple[str, ...] = field(metadata=key("gnss.nmea.sentences"))  # as given
    receiver: str  # gnss.receiver: acres or a preset (navsense.config.receiver_presets)
    nmea_gsv_below_mask: bool = field(metadata=key("gnss.nmea.gsv_below_mask"))
    heading: HeadingConfig
    orbits: str  # gnss.orbits: "synthetic" or a RINEX navigation file (navsense.sky.orbits)
    systems: tuple[str, ...]  # gnss.systems: the systems it may track

    @property
    def nmea_sentences_written(self) -> tuple[str, ...]:
        """The sentences of gnss.nmea: gnss.nmea.sentences, and HDT with them when the heading
        is on (gnss.heading) and the list is the default set (HDT joins it); a list the user
        chose is written as chosen (the schema refuses HDT without a heading)."""
        chosen = self.nmea_sentences
        if self.heading.on and "HDT" not in chosen and set(chosen) == set(DEFAULT_NMEA_SENTENCES):
            return ("HDT", *chosen)
        return chosen

    @classmethod
    def from_validated(cls, cfg: Mapping[str, Any]) -> GnssConfig:
        """From the effective configuration that navsense.config validated (no check here)."""
        return build(
            cls,
            cfg,
            "gnss",
            constellations=tuple((s, bool(on)) for s, on in cfg["gnss"]["constellations"].items()),
            fix=FixConfig.from_validated(cfg),
            errors=ErrorConfig.from_validated(cfg),
            corrections=CorrectionsConfig.from_validated(cfg),
            heading=HeadingConfig.from_validated(cfg),
        )
