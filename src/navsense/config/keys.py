"""The table of configuration keys (specification "Parameters"): :data:`SCHEMA`.

Each key is written once, here: its kind, its range (and why navsense chose it where the
specification states none) and its default. Everything else derives from this table: the
validation and messages (navsense.config.schema), the default layers (navsense.config.defaults:
the specification's sensors.json and the code's defaults), ``navsense config keys``, and the
typed sections (navsense.config.typed: each field reads its key, typed by the key's kind).

A new key is one entry in its section, with its default::

    "mag": Section({
        ...
        "noise_std_ut": Field("number", minimum=0, extension=True, chosen=_SIGMA, default=0.3),
    }),

and, if a model reads it, one field of the same name in the section's typed dataclass
(navsense.config.typed.<section>). A new sensor adds a section (``XXX_SECTION``) that its record
in navsense.suite.SENSORS names (``Sensor.section``): :data:`SCHEMA` holds each sensor's section
under its name, in the suite's order.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from navsense.config.error_presets import BARO_PRESETS, INS_IMU_GRADES, MAG_PRESETS
from navsense.config.fields import (
    BOOLEAN,
    EXTENSION_ENABLED,
    EXTENSION_RATE_HZ,
    NO_DEFAULT,
    RATE_HZ,
    VECTOR3_M,
    Field,
    Section,
    enum,
    nonnegative,
    positive,
)
from navsense.config.heading import HEADING_SECTION, heading_antennas
from navsense.config.imu_presets import PRESETS
from navsense.config.physics import PHYSICS_SECTION
from navsense.config.receiver_presets import RECEIVERS
from navsense.config.vibration import VIBRATION_SECTION
from navsense.constants import GNSS_SYSTEMS

__all__ = [
    "BARO_SECTION",
    "COMMON_FIELDS",
    "GNSS_SECTION",
    "IMU_SECTION",
    "INS_SECTION",
    "MAG_SECTION",
    "MAX_POSITION_SIGMA_M",
    "NMEA_SENTENCES",
    "DEFAULT_NMEA_SENTENCES",
    "ODOM_SECTION",
    "ROUND_DIRECTIONS",
    "SCHEMA",
]

#: gnss.nmea.sentences: the NMEA 0183 sentences gnss.nmea may carry (navsense.output.nmea),
#: in the order a receiver sends them within an epoch (HDT first, as a Hemisphere VS100 dual-
#: antenna compass sends it: navsense.output.nmea.interleave).
NMEA_SENTENCES = ("HDT", "RMC", "VTG", "GGA", "GSA", "GSV", "GST", "ZDA")
#: gnss.nmea.sentences' default: every sentence but HDT, which joins them when the receiver has a
#: heading (gnss.heading.baseline_m > 0; navsense.output.layouts.gnss)
DEFAULT_NMEA_SENTENCES = tuple(s for s in NMEA_SENTENCES if s != "HDT")

#: imu.configurable.<sensor>.round_direction: in the order of Basilisk's roundDirection_t
#: (discretize.h: TO_ZERO 0, FROM_ZERO 1, NEAR 2), so a name's index is its code.
ROUND_DIRECTIONS = ("to_zero", "from_zero", "near")

_SIGMA = "a standard deviation is not negative"
_HELMERT = "the published ITRF2014 -> NAD83(2011) parameters are a thousand times smaller"
_TAU = "a correlation time divides the time step, exp(-dt / tau)"
_TIME = "a duration is not negative"


def _datum(lo: float, hi: float, why: str, default: Any, length: int | None = None) -> Field:
    """A datum parameter: a range around the published values (``why``), far beyond them."""
    return Field(
        "vector" if length else "number",
        length=length,
        minimum=lo,
        maximum=hi,
        chosen=why,
        default=default,
    )


def _at_least_one_system(section: Mapping) -> str | None:
    """Parameters, gnss.constellations: "One system must be on"."""
    names = ("gps", "galileo", "glonass")
    if all(name in section for name in names) and not any(section[n] for n in names):
        return "has no system on; at least one of gps, galileo, glonass must be true"
    return None


MAX_POSITION_SIGMA_M = 1000.0  # m, position_sigma()'s bound


def position_sigma(default: Any = NO_DEFAULT) -> Field:
    """A position error's standard deviation, m: 0 .. MAX_POSITION_SIGMA_M. Not negative (a
    standard deviation); at most a kilometre, navsense's ruling: a reported position kilometres
    off is no fix a receiver or an INS gives, and tens of kilometres take it out of the site's
    datum domain, a run that would end in the datum chain without naming the key."""
    return Field(
        "number",
        minimum=0,
        maximum=MAX_POSITION_SIGMA_M,
        chosen="a standard deviation is not negative; over 1 km no receiver or INS reports a fix",
        default=default,
    )


#: a correction's error per kilometre of baseline (gnss.corrections.ppm_h, ppm_v)
_PPM = Field(
    "number",
    minimum=0,
    maximum=1000,
    chosen="an error per kilometre is not negative; at most 1000 ppm (200 m at the longest "
    "baseline, 200 km)",
)

#: gnss.states.<state>: the keys of one fix state, each with its range.
_FIX_STATE_FIELDS = {
    "sigma_h_m": position_sigma(),
    "sigma_v_m": position_sigma(),
    "initial_sigma_h_m": position_sigma(),
    "initial_sigma_v_m": position_sigma(),
    "convergence_tau_s": positive(
        "the float convergence divides by it, exp(-(t - t_lock) / tau_c)"
    ),
    "white_h_m": position_sigma(),
    "white_v_m": position_sigma(),
    "tau_s": positive(_TAU),
    "multipath_h_m": position_sigma(),
}

#: The defaults of gnss.states (specification "Parameters", GNSS receiver: the table of fix
#: states), one column per state, rows in the order of _FIX_STATE_FIELDS.
_FIX_STATE_DEFAULTS = {
    #           sigma_h sigma_v init_h init_v conv_tau white_h white_v tau   multipath_h
    "rtk_fixed": (0.008, 0.015, 0, 0, 30, 0.003, 0.006, 60, 0.015),
    "rtk_float": (0.10, 0.20, 0.40, 0.80, 30, 0.02, 0.04, 30, 0.15),
    "dgps": (0.35, 0.70, 0, 0, 30, 0.10, 0.20, 120, 0.50),
    "single": (1.0, 2.0, 0, 0, 30, 0.30, 0.60, 300, 1.50),
}


def _fix_state(state: str) -> Section:
    """gnss.states.<state> with its defaults."""
    return Section(
        {
            key: f.with_default(d)
            for (key, f), d in zip(
                _FIX_STATE_FIELDS.items(), _FIX_STATE_DEFAULTS[state], strict=True
            )
        }
    )


def _drift(maximum: float, unit: str, default: float) -> Field:
    """A navsense-extension key of ``ins.drift``: 0 .. ``maximum`` (``unit``)."""
    return Field(
        "number",
        minimum=0,
        maximum=maximum,
        extension=True,
        chosen=f"{unit}; a 1-sigma is not negative; <= {maximum:g} keeps the "
        "closed form of a dead-reckoning error to its inertial-grade range",
        default=default,
    )


#: ins.drift: the inertial error model of the dead-reckoning INS (navsense.sensors.ins_aiding).
#: The defaults are a generic grade, navsense's choice with its reasoning in ins_aiding's
#: docstring and docs/guide/error-models.md (not a datasheet quote); ins.imu_grade sets them from
#: one datasheet of a grade (navsense.config.error_presets).
_INS_DRIFT = Section(
    {
        # a generic grade (navsense choice, not a datasheet quote; docs/guide/error-models.md):
        # 0.05 km/h RMS, a GNSS-aided filter's velocity accuracy (not verified)
        "velocity_sigma_mps": _drift(1.0, "m/s, velocity error at the loss of aiding", 0.014),
        # bias / g: the residual tilt an aided filter leaves with a 10 ug bias (1e-5 rad), drawn
        # at the loss on top of the INS's own tilt (attitude_sigma_deg, carried: ins_aiding)
        "tilt_sigma_deg": _drift(
            1.0, "deg, a tilt drawn at the loss of aiding beyond the INS's own", 0.0006
        ),
        # between ADIS16465 Rev. C's in-run 3.6 ug and HG9900's 25 ug
        "accel_bias_ug": _drift(10000.0, "micro-g, accelerometer bias", 10),
        # ADIS16465 Rev. C's in-run 2 deg/h; tactical 1 .. 10 deg/h (El-Sheimy 2020, Table 1)
        "gyro_bias_deg_per_h": _drift(100.0, "deg/h, gyro bias", 2),
        # between ADIS16465 Rev. C (0.012) and KVH 1750 (0.071 m/s/sqrt(h))
        "accel_vrw_mps_per_sqrt_h": _drift(10.0, "m/s/sqrt(h), velocity random walk", 0.03),
        # between ADIS16465 Rev. C (0.15) and BMI088 DS001 (0.84 deg/sqrt(h))
        "gyro_arw_deg_per_sqrt_h": _drift(10.0, "deg/sqrt(h), angle random walk", 0.2),
    }
)


def _imu_triad(u: str, rw: str, gyro: bool) -> Section:
    """``imu.configurable.gyro`` / ``.accel``: default null, which takes the preset's value, else
    ``null_means`` (zero: no such error; Basilisk's tau 100 s, rounding to the nearest)."""

    def opt(null_means, kind="number", length=None, minimum=None, min_open=False, choices=()):
        return Field(
            kind,
            minimum=minimum,
            min_open=min_open,
            length=length,
            choices=choices,
            nullable=True,
            extension=True,
            chosen="" if minimum is None else "a density, deviation, time or LSB is not negative",
            default=None,
            null_means=null_means,
        )

    zero3 = (0.0, 0.0, 0.0)
    v3 = opt(zero3, "vector", 3, 0)
    fields = {
        f"noise_density_{u}_rthz": v3,
        f"bias_instability_{u}": v3,
        "bias_instability_tau_s": opt(100.0, minimum=0, min_open=True),
        f"random_walk_{rw}": v3,
        f"random_walk_bound_{u}": v3,
        f"bias_{u}": opt(zero3, "vector", 3),
        f"turn_on_bias_sigma_{u}": v3,
        "scale_factor_ppm": opt(zero3, "vector", 3),
        "misalignment_rad": opt((0.0,) * 9, "vector", 9),
        f"temp_bias_{u}_per_k": opt(zero3, "vector", 3),
        "temp_scale_ppm_per_k": opt(zero3, "vector", 3),
        f"lsb_{u}": opt(0.0, minimum=0),
        "carry_error": opt(False, "boolean"),
        "round_direction": opt("near", "enum", choices=ROUND_DIRECTIONS),
        f"saturation_{u}": opt(0.0, minimum=0),
    }
    if gyro:
        fields["g_sensitivity_radps_per_mps2"] = opt(zero3, "vector", 3)
    return Section(fields)


_CONFIGURABLE_IMU = Section(
    {
        "platform_ypr_deg": Field("vector", length=3, extension=True, default=[0, 0, 0]),
        "temperature_c": Field("number", extension=True, default=25),
        "reference_temperature_c": Field("number", extension=True, default=25),
        # issue 30 item 1: the increments over the physics sub-steps, the output low-pass
        "deltas": Field(
            "enum",
            choices=("basilisk", "integrated"),
            extension=True,
            chosen="basilisk: from the truth at the two samples (the specification); integrated: "
            "the sums of the body rate and specific force over the physics steps between them",
            default="basilisk",
        ),
        "bandwidth_hz": Field(
            "number",
            minimum=0,
            extension=True,
            chosen="0: no output filter; else a 2nd-order Butterworth low-pass at the physics "
            "rate, 0.1 Hz up to 0.1 Hz below half of it",
            default=0,
        ),
        "gyro": _imu_triad("radps", "radps2_rthz", True),
        "accel": _imu_triad("mps2", "mps3_rthz", False),
    }
)

#: The GNSS receiver's section (specification "Parameters", GNSS Receiver).
GNSS_SECTION = Section(
    {
        "enabled": BOOLEAN.with_default(True),
        "hz": RATE_HZ.with_default(10),
        "antenna_flu_m": VECTOR3_M.with_default([0, 0, 1.7]),
        "std_m": nonnegative(_SIGMA + " (the key is not used)", 0.02),
        "start": enum("converged", "cold", default="converged"),
        "cold_ttff_s": nonnegative(_TIME, 20),
        "elevation_mask_deg": Field("number", minimum=0, maximum=45, default=10),
        "constellations": Section(
            {
                "gps": BOOLEAN.with_default(True),
                "galileo": BOOLEAN.with_default(True),
                "glonass": BOOLEAN.with_default(True),
            },
            checks=(_at_least_one_system,),
        ),
        "multipath_tau_s": positive(_TAU, 8),
        "multipath_vertical_ratio": nonnegative(
            "a ratio of standard deviations is not negative", 1.5
        ),
        "states": Section({state: _fix_state(state) for state in _FIX_STATE_DEFAULTS}),
        "rtk": Section(
            {
                "ttf_median_s": nonnegative(_TIME, 10),
                "ttf_log_sigma": nonnegative(_SIGMA, 0.5),
                "ttf_multipath_gain": nonnegative(
                    "a negative gain would let multipath shorten the time to fix", 2
                ),
                "reacquire_factor": Field("number", minimum=0, maximum=1, default=0.3),
                "reacquire_window_s": nonnegative(_TIME, 10),
                "min_clear_satellites": Field("integer", minimum=4, default=6),
                "float_min_satellites": Field("integer", minimum=4, default=5),
                "max_pdop": positive("a PDOP is positive", 5),
                "cycle_slip_rate_per_s": nonnegative("a rate is not negative", 0.3),
            }
        ),
        "corrections": Section(
            {
                "interval_s": positive("the correction age divides by it", 1),
                "latency_s": nonnegative(_TIME, 0.3),
                "rtk_max_age_s": nonnegative(_TIME, 10),
                "dgps_max_age_s": nonnegative(_TIME, 60),
                "baseline_km": Field("number", minimum=0, maximum=200, default=5),
                "ppm_h": _PPM.with_default(1),
                "ppm_v": _PPM.with_default(1.5),
                "outages_s": Field("intervals", default=[]),
                # navsense extension (issue 29): false, no correction stream at all
                "enabled": Field(
                    "boolean",
                    extension=True,
                    chosen="false: no correction message ever arrives (no correction "
                    "age; single at best)",
                    default=True,
                ),
            }
        ),
        "obstruction": Section(
            {
                "near_margin_m": nonnegative("a margin is not negative", 1.5),
                "foliage_block_path_m": positive(
                    "with 0 every line of sight touching a crown is blocked", 8
                ),
                "reflector_range_m": positive("the reflector index divides by it, 1 - D / d_r", 60),
            }
        ),
        "datum": Section(
            {
                "output_frame": enum("wgs84_g2139", "nad83", default="wgs84_g2139"),
                "start_utc": Field("utc", default="2026-09-23T15:00:00Z"),
                "harn_to_nad83_2011_shift_deg": _datum(
                    -0.01,
                    0.01,
                    "the realisations differ by centimetres (1e-7 deg)",
                    [-7.742258e-09, 2.4261007e-07],
                    2,
                ),
                "geoid": Section(
                    {
                        "n0_m": _datum(
                            -200, 200, "the geoid is within 110 m of WGS84", -33.6268735
                        ),
                        "dn_de": _datum(
                            -0.01, 0.01, "a geoid slope is below 10 m/km", -1.07779725e-05
                        ),
                        "dn_dn": _datum(
                            -0.01, 0.01, "a geoid slope is below 10 m/km", -6.19783884e-06
                        ),
                    }
                ),
                "helmert_itrf2014_to_nad83_2011": Section(
                    {
                        "t_m": _datum(-1000, 1000, _HELMERT, [1.00530, -1.90921, -0.54157], 3),
                        "r_arcsec": _datum(
                            -100, 100, _HELMERT, [0.02678138, -0.00042027, 0.01093206], 3
                        ),
                        "s_ppm": _datum(-1000, 1000, _HELMERT, 0.00036891),
                        "dt_m_per_yr": _datum(-1, 1, _HELMERT, [0.00079, -0.00060, -0.00144], 3),
                        "dr_arcsec_per_yr": _datum(
                            -1, 1, _HELMERT, [0.00006667, -0.00075744, -0.00005133], 3
                        ),
                        "ds_ppm_per_yr": _datum(-1, 1, _HELMERT, -0.00007201),
                        "reference_epoch": _datum(1900, 2200, "a year", 2010.0),
                    }
                ),
            }
        ),
        # navsense extension (issue 19): windows in which every satellite is lost
        "signal_outages_s": Field(
            "intervals",
            extension=True,
            chosen="[start, end) in s of the run's clock: every satellite is lost "
            "(jamming, a tunnel); [] none",
            default=[],
        ),
        # navsense extension (issue 29): the sky from a RINEX navigation file
        "orbits": Field(
            "text",
            extension=True,
            chosen='"synthetic" (the specification\'s constellation) or the path of a '
            "RINEX 2.x/3.0x navigation file (navsense.sky.orbits)",
            default="synthetic",
        ),
        "systems": Field(
            "enum_list",
            choices=GNSS_SYSTEMS,
            extension=True,
            chosen="the systems the receiver may track (with gnss.constellations); the "
            "synthetic constellation has gps, galileo, glonass",
            default=list(GNSS_SYSTEMS),
        ),
        # navsense extension (issue 20): the sentences of gnss.nmea
        "nmea": Section(
            {
                "sentences": Field(
                    "enum_list",
                    choices=NMEA_SENTENCES,
                    extension=True,
                    chosen="written in this order within an epoch, whatever the order "
                    "given; [] writes no sentence; HDT only with gnss.heading on, "
                    "where it joins the default list",
                    default=list(DEFAULT_NMEA_SENTENCES),
                ),
                # issue 29: GSV lists the satellites in view below the mask too
                "gsv_below_mask": Field(
                    "boolean",
                    extension=True,
                    chosen="true: GSV lists every satellite above the horizon, those "
                    "below gnss.elevation_mask_deg without C/N0 (a receiver lists the "
                    "satellites in view it does not use); false: those at or above the "
                    "mask",
                    default=False,
                ),
            }
        ),
        # navsense extension (issue 29 item 4): heading from two antennas
        "heading": HEADING_SECTION,
        # navsense extension (issue 29): the receiver's grade
        "receiver": Field(
            "enum",
            choices=RECEIVERS,
            extension=True,
            chosen="acres: the specification's receiver; a preset sets the error model "
            "and the fix states it can reach (navsense.config.receiver_presets)",
            default="acres",
        ),
    },
    final_checks=(heading_antennas,),  # gnss.heading and the antenna may come from two layers
)

#: The IMU's section (specification "Parameters", IMU).
IMU_SECTION = Section(
    {
        "enabled": BOOLEAN.with_default(True),
        "hz": RATE_HZ.with_default(120),
        "accel_std_mps2": nonnegative(_SIGMA, 0.03),
        "gyro_std_radps": nonnegative(_SIGMA, 0.002),
        "accel_bias_mps2": nonnegative(_SIGMA, 0.01),
        "gyro_bias_radps": nonnegative(_SIGMA, 0.001),
        "position_flu_m": VECTOR3_M.with_default([0, 0, 0]),
        # navsense extension (issue 8): the configurable IMU, sensors/configurable_imu/
        "model": Field("enum", choices=("acres", "configurable"), extension=True, default="acres"),
        "preset": Field("enum", choices=("none", *PRESETS), extension=True, default="none"),
        "configurable": _CONFIGURABLE_IMU,
        # navsense extension (issue 19 s.3): the turning WGS84 Earth in the IMU readings
        # (the ACRES IMU, the configurable IMU and the INS's rate and force), geo/earth.py
        "earth": Field(
            "enum",
            choices=("none", "wgs84"),
            extension=True,
            chosen="none: the specification (g = 9.80665, no Earth rate); wgs84: Earth "
            "rate, transport rate, Coriolis and WGS84 normal gravity, at true north",
            default="none",
        ),
        # navsense extension (issue 30 item 2): vibration at the IMU point (sensors/vibration.py)
        "vibration": VIBRATION_SECTION,
    }
)

#: The INS's section (specification "INS").
INS_SECTION = Section(
    {
        "enabled": BOOLEAN.with_default(False),
        "hz": RATE_HZ.with_default(100),
        "position_flu_m": VECTOR3_M.with_default([0, 0, 0]),
        "position_sigma_m": position_sigma(0.01),
        "position_tau_s": positive(_TAU, 30),
        "position_white_m": position_sigma(0.003),
        "heading_sigma_deg": nonnegative(_SIGMA, 0.1),
        "attitude_sigma_deg": nonnegative(_SIGMA, 0.03),
        "velocity_white_mps": nonnegative(_SIGMA, 0.01),
        "accel_white_mps2": nonnegative(_SIGMA, 0.02),
        "gyro_white_radps": nonnegative(_SIGMA, 0.0005),
        "frame": enum("nad83", "wgs84_g2139", default="nad83"),
        "utm_zone": Field("integer", minimum=1, maximum=60, default=16),
        # navsense extension (issue 19): the GNSS-aided INS, sensors/ins_aiding.py
        "aiding": Field("enum", choices=("none", "gnss"), extension=True, default="none"),
        "aiding_tau_s": Field(
            "number",
            minimum=0.01,
            maximum=100,
            extension=True,
            chosen="s, the loosely coupled filter's time constant: >= 0.01 s (one "
            "epoch at 100 Hz), <= 100 s",
            default=1.0,
        ),
        "drift": _INS_DRIFT,
        # navsense extension (issue 30 item 3): the ins.drift keys of an IMU grade
        # (navsense.config.error_presets), under the explicit keys
        "imu_grade": Field(
            "enum", choices=("none", *INS_IMU_GRADES), extension=True, default="none"
        ),
    },
    in_sensors_json=False,  # specification "INS": the "Code" column
)

#: navsense extensions (issue 7), off by default: magnetometer, barometer, wheel odometer.
MAG_SECTION = Section(
    {
        "enabled": EXTENSION_ENABLED.with_default(False),
        "hz": EXTENSION_RATE_HZ.with_default(50),
        "noise_std_ut": Field("number", minimum=0, extension=True, chosen=_SIGMA, default=0.3),
        "hard_iron_ut": Field("vector", length=3, extension=True, default=[0, 0, 0]),
        "soft_iron_matrix": Field(
            "vector",
            length=9,
            extension=True,
            chosen="3 x 3 row-major, dimensionless; identity: none",
            default=[1, 0, 0, 0, 1, 0, 0, 0, 1],
        ),
        # navsense extension (issue 30 item 3): hard and soft iron of an installation
        "preset": Field("enum", choices=("none", *MAG_PRESETS), extension=True, default="none"),
    }
)

BARO_SECTION = Section(
    {
        "enabled": EXTENSION_ENABLED.with_default(False),
        "hz": EXTENSION_RATE_HZ.with_default(25),
        "noise_std_pa": Field("number", minimum=0, extension=True, chosen=_SIGMA, default=1.0),
        "bias_sigma_pa": Field("number", minimum=0, extension=True, chosen=_SIGMA, default=10.0),
        "bias_tau_s": Field(
            "number", minimum=0, min_open=True, extension=True, chosen=_TAU, default=300
        ),
        "base_altitude_m": Field(
            "number",
            minimum=-1000,
            maximum=11000,
            extension=True,
            chosen="the ISA troposphere formula holds below 11 km",
            default=0,
        ),
        "position_flu_m": Field("vector", length=3, extension=True, default=[0, 0, 0]),
        # navsense extensions (issue 30 item 3), 0 by default: an absolute offset drawn
        # once a run, the offset's temperature coefficient, the weather's pressure change
        "offset_sigma_pa": Field("number", minimum=0, extension=True, chosen=_SIGMA, default=0),
        "temp_coeff_pa_per_k": Field(
            "number",
            minimum=-100,
            maximum=100,
            extension=True,
            chosen="Pa/K, either sign; datasheets give under 1 Pa/K, 100 is far beyond",
            default=0,
        ),
        "temperature_c": Field(
            "number",
            minimum=-60,
            maximum=100,
            extension=True,
            chosen="deg C, beyond the -40 .. 85 deg C a MEMS barometer works in",
            default=25,
        ),
        "weather_sigma_pa": Field(
            "number",
            minimum=0,
            maximum=10000,
            extension=True,
            chosen="Pa; the sea-level pressure spans about 87 000 .. 108 000 Pa on record",
            default=0,
        ),
        "weather_tau_s": Field(
            "number",
            minimum=60,
            maximum=10_000_000,
            extension=True,
            chosen="s; weather changes over hours to days (a minute .. 4 months)",
            default=43200,
        ),
        "preset": Field("enum", choices=("none", *BARO_PRESETS), extension=True, default="none"),
    }
)

ODOM_SECTION = Section(
    {
        "enabled": EXTENSION_ENABLED.with_default(False),
        "hz": EXTENSION_RATE_HZ.with_default(50),
        "noise_std_mps": Field("number", minimum=0, extension=True, chosen=_SIGMA, default=0.02),
        "scale_factor_sigma": Field(
            "number",
            minimum=0,
            maximum=0.1,
            extension=True,
            chosen="dimensionless (0.01 = 1 %); <= 0.1 keeps 1 + eps positive to 10 sigma",
            default=0.01,
        ),
        "encoder_tick_m": Field(
            "number",
            minimum=0,
            extension=True,
            chosen="distance per encoder tick; 0 is no quantisation",
            default=0,
        ),
    }
)

#: The keys common to every sensor (specification "Parameters", Common Keys, plus the navsense
#: extension ``noise``), before the sensors' sections.
COMMON_FIELDS: dict[str, Field | Section] = {
    "seed": Field(
        "integer",
        minimum=0,
        maximum=2**32 - 1,
        chosen="PCG32 seeds are unsigned; 32 bits keep seed + 5045 + 7919 x agent "
        "well inside the 64-bit state",
        default=42,
    ),
    "delay_s": Field("number", minimum=0, maximum=10, default=0.05),
    "mount_frame": enum("chassis", "base_footprint", default="chassis"),
    # navsense extension: false is -SensorNoNoise (every error, bias and noise zero; same draws).
    "noise": Field("boolean", extension=True, default=True),
    # navsense extension (issue 30 item 1): the physics clock; a truth log runs at its own rate
    "physics": PHYSICS_SECTION,
}


class _SchemaFields(Mapping):
    """The top-level keys of :data:`SCHEMA`: :data:`COMMON_FIELDS`, then the section of each sensor
    of navsense.suite.SENSORS in its order (``Sensor.section``), looked up when used so that a
    sensor added to the suite is known to the schema."""

    def __init__(self) -> None:
        self._key: tuple = ()
        self._cache: dict[str, Field | Section] = {}

    def _fields(self) -> dict[str, Field | Section]:
        from navsense.suite import SENSORS, resolve

        key = tuple(SENSORS.values())
        if key != self._key:  # the suite changed (or the first use)
            self._key = key
            self._cache = {**COMMON_FIELDS, **{s.name: resolve(s.section) for s in key}}
        return self._cache

    def __getitem__(self, key: str) -> Field | Section:
        return self._fields()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._fields())

    def __len__(self) -> int:
        return len(self._fields())


#: The sensor configuration (specification "Parameters", plus the navsense extension ``noise``):
#: the common keys, then each sensor's section (navsense.suite.SENSORS, ``Sensor.section``). The
#: order of the keys is the canonical order of the effective configuration.
SCHEMA = Section(_SchemaFields())
