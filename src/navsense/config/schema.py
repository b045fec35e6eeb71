"""The schema of the sensor configuration, and its validator (specification "Parameters").

The schema is data: a tree of :class:`Section` objects whose leaves are :class:`Field` objects.
The validator walks any such tree, so a later sensor adds its configuration by adding a section
to :data:`SCHEMA` (and its defaults to ``code_defaults.json``), never by adding a code path::

    "mag": Section({
        "enabled": BOOLEAN,
        "hz": RATE_HZ,
        "noise_nt": nonnegative("a standard deviation is not negative"),
    }),

A field knows its kind (``number``, ``integer``, ``boolean``, ``enum``, ``vector``, ``intervals``,
``utc``, ``enum_list``), its range or allowed values, and, where the specification gives no range, the reason
for the one navsense chose (``Field.chosen``; empty when the range is the specification's).
:func:`describe_keys` lists them all; ``navsense config keys`` prints that list.

Every error is a :class:`~navsense.errors.ConfigError` of the form
``<source>: <dotted.key> = <value> <what is wrong and what is allowed>``, for example
``sensors.json: gnss.hz = 240 is out of range 1..120``.
"""

from __future__ import annotations

import datetime
import difflib
import json
import numbers
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

import numpy as np

from navsense.config.imu_presets import PRESETS
from navsense.errors import ConfigError
from navsense.jsonfile import is_finite
from navsense.utc import utc_datetime

__all__ = [
    "Field",
    "Section",
    "SCHEMA",
    "validate",
    "validate_section",
    "canonical",
    "lookup",
    "known_keys",
    "describe_keys",
    "unknown_key_error",
    "format_value",
    "parse_utc",
    "KINDS",
    "BOOLEAN",
    "RATE_HZ",
    "VECTOR3_M",
    "FINITE",
    "nonnegative",
    "positive",
    "enum",
    "NMEA_SENTENCES",
]

#: A check of a whole section: returns what is wrong ("has no system on; ...") or None.
SectionCheck = Callable[[Mapping], "str | None"]


@dataclass(frozen=True)
class Field:
    """One configuration key: its kind and what values are allowed.

    ``minimum``/``maximum`` bound numbers, integers and the elements of vectors (``min_open``
    makes the minimum exclusive); ``choices`` lists an enum's values in the specification's
    order; ``length`` is a vector's number of elements; ``nullable`` admits JSON null;
    ``chosen`` says why navsense chose the range where the specification states none;
    ``extension`` marks a key that navsense adds to the specification's.
    """

    kind: str
    minimum: float | None = None
    maximum: float | None = None
    min_open: bool = False
    choices: tuple[str, ...] = ()
    length: int | None = None
    nullable: bool = False
    chosen: str = ""
    extension: bool = False

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown field kind {self.kind!r}; known: {', '.join(KINDS)}")

    @property
    def has_range(self) -> bool:
        return self.minimum is not None or self.maximum is not None

    def range_text(self) -> str:
        """The allowed range as it appears in messages: ``1..120``, ``>= 4``, ``> 0``."""
        lo, hi = self.minimum, self.maximum
        if lo is not None and hi is not None:
            return f"{_number_text(lo)}..{_number_text(hi)}"
        if lo is not None:
            return f"{'>' if self.min_open else '>='} {_number_text(lo)}"
        if hi is not None:
            return f"<= {_number_text(hi)}"
        return ""

    def type_text(self) -> str:
        return {
            "number": "number",
            "integer": "integer",
            "boolean": "boolean",
            "enum": "string",
            "vector": f"array of {self.length} numbers",
            "intervals": "array of [start, end) pairs",
            "utc": "string, ISO 8601 UTC",
            "enum_list": "array of strings, each at most once",
        }[self.kind]

    def allowed_text(self) -> str:
        if self.kind in ("enum", "enum_list"):
            return ", ".join(self.choices)
        if self.kind == "intervals":
            return "start < end"
        if self.kind == "utc":
            return "YYYY-MM-DDThh:mm:ss[.f]Z"
        return self.range_text()


@dataclass(frozen=True)
class Section:
    """A JSON object of the configuration: its keys in canonical order, and whole-section checks."""

    fields: Mapping[str, Field | Section]
    checks: tuple[SectionCheck, ...] = ()


# --------------------------------------------------------------------------------------------
# Field kinds. A checker returns None when the value is allowed, else (path, value, complaint),
# where path and value may name one element of the value (outages_s[1] = [20, 10]).


def _is_number(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def _is_integer(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


#: Every number navsense reads is at most this in magnitude, also where a key states no range
#: of its own: a noise, time, lever arm or coefficient beyond it turns some model's arithmetic
#: into infinities (issue 21); no key's meaningful value in its SI unit comes near it.
MAGNITUDE_LIMIT = 1e9


def _in_range(f: Field, value) -> bool:
    if f.minimum is not None and (value <= f.minimum if f.min_open else value < f.minimum):
        return False
    return f.maximum is None or value <= f.maximum


def _range_complaint(f: Field, value) -> str | None:
    """What is wrong with a number's value (its range, or :data:`MAGNITUDE_LIMIT`), or None."""
    if not _in_range(f, value):
        return f"is out of range {f.range_text()}"
    if abs(value) > MAGNITUDE_LIMIT:
        return f"is out of range: navsense takes numbers up to {MAGNITUDE_LIMIT:g} in magnitude" + (
            f" ({f.range_text()})" if f.has_range else ""
        )
    return None


def _check_number(f: Field, value, path: str):
    if not _is_number(value):
        return path, value, "is not a number"
    if not is_finite(value):
        return path, value, "is not a finite number"
    complaint = _range_complaint(f, value)
    return None if complaint is None else (path, value, complaint)


def _check_integer(f: Field, value, path: str):
    if not _is_integer(value):
        return path, value, "is not an integer"
    if f.maximum is not None and f.maximum > MAGNITUDE_LIMIT:  # e.g. a 32-bit seed
        return None if _in_range(f, value) else (path, value, f"is out of range {f.range_text()}")
    complaint = _range_complaint(f, value)
    return None if complaint is None else (path, value, complaint)


def _check_boolean(f: Field, value, path: str):
    if not isinstance(value, (bool, np.bool_)):
        return path, value, "is not a boolean (true or false)"
    return None


def _check_enum(f: Field, value, path: str):
    if not isinstance(value, str) or value not in f.choices:
        return path, value, f"is not one of {', '.join(f.choices)}"
    return None


def _check_enum_list(f: Field, value, path: str):
    if not isinstance(value, (list, tuple)):
        return path, value, f"is not an array of strings from {', '.join(f.choices)}"
    for i, item in enumerate(value):
        if not isinstance(item, str) or item not in f.choices:
            return f"{path}[{i}]", item, f"is not one of {', '.join(f.choices)}"
        if item in value[:i]:
            return f"{path}[{i}]", item, "is given twice; each value at most once"
    return None


def _check_vector(f: Field, value, path: str):
    if (
        not isinstance(value, (list, tuple))
        or len(value) != f.length
        or not all(_is_number(x) and is_finite(x) for x in value)
    ):
        return path, value, f"is not an array of {f.length} numbers"
    for i, x in enumerate(value):
        complaint = _range_complaint(f, x)
        if complaint is not None:
            return f"{path}[{i}]", x, complaint
    return None


#: Windows of one intervals key (outages): each is looked at every epoch of a run, and a file of
#: millions (the JSON reader's 256 MB) took minutes and gigabytes before the run began (issue 21).
MAX_INTERVALS = 100_000


def _check_intervals(f: Field, value, path: str):
    if not isinstance(value, (list, tuple)):
        return path, value, "is not an array of [start, end) pairs"
    if len(value) > MAX_INTERVALS:
        # the first few shown (the message is one line)
        return path, value[:8], f"... has {len(value)} windows; at most {MAX_INTERVALS}"
    for i, pair in enumerate(value):
        if (
            not isinstance(pair, (list, tuple))
            or len(pair) != 2
            or not all(_is_number(x) and is_finite(x) for x in pair)
        ):
            return f"{path}[{i}]", pair, "is not a [start, end) pair of numbers"
        if not pair[0] < pair[1]:
            return f"{path}[{i}]", pair, "is not a [start, end) pair: start must be less than end"
        if max(abs(pair[0]), abs(pair[1])) > MAGNITUDE_LIMIT:
            return (
                f"{path}[{i}]",
                pair,
                f"is out of range: navsense takes times up to {MAGNITUDE_LIMIT:g} s in magnitude",
            )
    return None


_UTC_PATTERN = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|\+00:00)")


def parse_utc(text: str) -> datetime.datetime:
    """``YYYY-MM-DDThh:mm:ss[.f]Z`` (or ``+00:00``) as an aware UTC datetime; ValueError if not."""
    if not isinstance(text, str) or not _UTC_PATTERN.fullmatch(text):
        raise ValueError(f"not an ISO 8601 UTC time: {text!r}")
    return utc_datetime(text)


def _check_utc(f: Field, value, path: str):
    try:
        parse_utc(value)
    except ValueError:
        return path, value, "is not an ISO 8601 UTC time such as 2026-09-23T15:00:00Z"
    return None


#: kind -> checker. A new kind is a new entry here and in Field.type_text.
KINDS: dict[str, Callable] = {
    "number": _check_number,
    "integer": _check_integer,
    "boolean": _check_boolean,
    "enum": _check_enum,
    "vector": _check_vector,
    "intervals": _check_intervals,
    "utc": _check_utc,
    "enum_list": _check_enum_list,
}

#: kinds whose value is a JSON array (the "+" override appends to these).
LIST_KINDS = frozenset({"intervals", "enum_list"})

#: gnss.nmea.sentences: the NMEA 0183 sentences gnss.nmea may carry (navsense.output.nmea),
#: in the order a receiver sends them within an epoch.
NMEA_SENTENCES = ("RMC", "VTG", "GGA", "GSA", "GSV", "GST", "ZDA")


# --------------------------------------------------------------------------------------------
# Building blocks of the table.

_SIGMA = "a standard deviation is not negative"
_HELMERT = "the published ITRF2014 -> NAD83(2011) parameters are a thousand times smaller"
_TAU = "a correlation time divides the time step, exp(-dt / tau)"
_TIME = "a duration is not negative"


def nonnegative(chosen: str) -> Field:
    """A finite number >= 0, a range navsense chose for the reason ``chosen``."""
    return Field("number", minimum=0, chosen=chosen)


def positive(chosen: str) -> Field:
    """A finite number > 0, a range navsense chose for the reason ``chosen``."""
    return Field("number", minimum=0, min_open=True, chosen=chosen)


def enum(*choices: str) -> Field:
    return Field("enum", choices=choices)


BOOLEAN = Field("boolean")
RATE_HZ = Field("number", minimum=1, maximum=120)  # spec: "Range 1 to 120"
VECTOR3_M = Field("vector", length=3)
FINITE = Field("number")  # any finite number
# the navsense extension sensors' switch and rate (mag, baro, odom)
EXTENSION_ENABLED = Field("boolean", extension=True)
EXTENSION_RATE_HZ = Field(
    "number", minimum=1, maximum=120, extension=True, chosen="as every sensor: 1..120"
)


def _datum(lo: float, hi: float, why: str, length: int | None = None) -> Field:
    """A datum parameter: a range around the published values (``why``), far beyond them."""
    return Field(
        "vector" if length else "number", length=length, minimum=lo, maximum=hi, chosen=why
    )


def _at_least_one_system(section: Mapping) -> str | None:
    """Parameters, gnss.constellations: "One system must be on"."""
    names = ("gps", "galileo", "glonass")
    if all(name in section for name in names) and not any(section[n] for n in names):
        return "has no system on; at least one of gps, galileo, glonass must be true"
    return None


MAX_POSITION_SIGMA_M = 1000.0  # m, position_sigma()'s bound


def position_sigma() -> Field:
    """A position error's standard deviation, m: 0 .. MAX_POSITION_SIGMA_M. Not negative (a
    standard deviation); at most a kilometre, navsense's ruling: a reported position kilometres
    off is no fix a receiver or an INS gives, and tens of kilometres take it out of the site's
    datum domain, a run that would end in the datum chain without naming the key."""
    return Field(
        "number",
        minimum=0,
        maximum=MAX_POSITION_SIGMA_M,
        chosen="a standard deviation is not negative; over 1 km no receiver or INS reports a fix",
    )


#: a correction's error per kilometre of baseline (gnss.corrections.ppm_h, ppm_v)
_PPM = Field(
    "number",
    minimum=0,
    maximum=1000,
    chosen="an error per kilometre is not negative; at most 1000 ppm (200 m at the longest "
    "baseline, 200 km)",
)

_FIX_STATE = Section(
    {
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
)


def _drift(maximum: float, unit: str) -> Field:
    """A navsense-extension key of ``ins.drift``: 0 .. ``maximum`` (``unit``)."""
    return Field(
        "number",
        minimum=0,
        maximum=maximum,
        extension=True,
        chosen=f"{unit}; a 1-sigma is not negative; <= {maximum:g} keeps the "
        "closed form of a dead-reckoning error to its inertial-grade range",
    )


#: ins.drift: the inertial error model of the dead-reckoning INS (navsense.sensors.ins_aiding)
_INS_DRIFT = Section(
    {
        "velocity_sigma_mps": _drift(1.0, "m/s, velocity error at the loss of aiding"),
        "tilt_sigma_deg": _drift(1.0, "deg, residual tilt at the loss of aiding"),
        "accel_bias_ug": _drift(10000.0, "micro-g, accelerometer bias"),
        "gyro_bias_deg_per_h": _drift(100.0, "deg/h, gyro bias"),
        "accel_vrw_mps_per_sqrt_h": _drift(10.0, "m/s/sqrt(h), velocity random walk"),
        "gyro_arw_deg_per_sqrt_h": _drift(10.0, "deg/sqrt(h), angle random walk"),
    }
)


def _imu_triad(u: str, rw: str, gyro: bool) -> Section:
    """``imu.configurable.gyro`` / ``.accel``: null takes the preset's value (or 0)."""

    def opt(kind="number", length=None, minimum=None, min_open=False, choices=()):
        return Field(
            kind,
            minimum=minimum,
            min_open=min_open,
            length=length,
            choices=choices,
            nullable=True,
            extension=True,
            chosen="" if minimum is None else "a density, deviation, time or LSB is not negative",
        )

    v3 = opt("vector", 3, 0)
    fields = {
        f"noise_density_{u}_rthz": v3,
        f"bias_instability_{u}": v3,
        "bias_instability_tau_s": opt(minimum=0, min_open=True),
        f"random_walk_{rw}": v3,
        f"random_walk_bound_{u}": v3,
        f"bias_{u}": opt("vector", 3),
        f"turn_on_bias_sigma_{u}": v3,
        "scale_factor_ppm": opt("vector", 3),
        "misalignment_rad": opt("vector", 9),
        f"temp_bias_{u}_per_k": opt("vector", 3),
        "temp_scale_ppm_per_k": opt("vector", 3),
        f"lsb_{u}": opt(minimum=0),
        "carry_error": opt("boolean"),
        "round_direction": opt("enum", choices=("to_zero", "from_zero", "near")),
        f"saturation_{u}": opt(minimum=0),
    }
    if gyro:
        fields["g_sensitivity_radps_per_mps2"] = opt("vector", 3)
    return Section(fields)


_CONFIGURABLE_IMU = Section(
    {
        "platform_ypr_deg": Field("vector", length=3, extension=True),
        "temperature_c": Field("number", extension=True),
        "reference_temperature_c": Field("number", extension=True),
        "gyro": _imu_triad("radps", "radps2_rthz", True),
        "accel": _imu_triad("mps2", "mps3_rthz", False),
    }
)

#: The sensor configuration (specification "Parameters", plus the navsense extension ``noise``).
#: The order of the keys is the canonical order of the effective configuration.
SCHEMA = Section(
    {
        "seed": Field(
            "integer",
            minimum=0,
            maximum=2**32 - 1,
            chosen="PCG32 seeds are unsigned; 32 bits keep seed + 5045 + 7919 x agent "
            "well inside the 64-bit state",
        ),
        "delay_s": Field("number", minimum=0, maximum=10),
        "mount_frame": enum("chassis", "base_footprint"),
        # navsense extension: false is -SensorNoNoise (every error, bias and noise zero; same draws).
        "noise": Field("boolean", extension=True),
        "gnss": Section(
            {
                "enabled": BOOLEAN,
                "hz": RATE_HZ,
                "antenna_flu_m": VECTOR3_M,
                "std_m": nonnegative(_SIGMA + " (the key is not used)"),
                "start": enum("converged", "cold"),
                "cold_ttff_s": nonnegative(_TIME),
                "elevation_mask_deg": Field("number", minimum=0, maximum=45),
                "constellations": Section(
                    {"gps": BOOLEAN, "galileo": BOOLEAN, "glonass": BOOLEAN},
                    checks=(_at_least_one_system,),
                ),
                "multipath_tau_s": positive(_TAU),
                "multipath_vertical_ratio": nonnegative(
                    "a ratio of standard deviations is not negative"
                ),
                "states": Section(
                    {
                        "rtk_fixed": _FIX_STATE,
                        "rtk_float": _FIX_STATE,
                        "dgps": _FIX_STATE,
                        "single": _FIX_STATE,
                    }
                ),
                "rtk": Section(
                    {
                        "ttf_median_s": nonnegative(_TIME),
                        "ttf_log_sigma": nonnegative(_SIGMA),
                        "ttf_multipath_gain": nonnegative(
                            "a negative gain would let multipath shorten the time to fix"
                        ),
                        "reacquire_factor": Field("number", minimum=0, maximum=1),
                        "reacquire_window_s": nonnegative(_TIME),
                        "min_clear_satellites": Field("integer", minimum=4),
                        "float_min_satellites": Field("integer", minimum=4),
                        "max_pdop": positive("a PDOP is positive"),
                        "cycle_slip_rate_per_s": nonnegative("a rate is not negative"),
                    }
                ),
                "corrections": Section(
                    {
                        "interval_s": positive("the correction age divides by it"),
                        "latency_s": nonnegative(_TIME),
                        "rtk_max_age_s": nonnegative(_TIME),
                        "dgps_max_age_s": nonnegative(_TIME),
                        "baseline_km": Field("number", minimum=0, maximum=200),
                        "ppm_h": _PPM,
                        "ppm_v": _PPM,
                        "outages_s": Field("intervals"),
                    }
                ),
                "obstruction": Section(
                    {
                        "near_margin_m": nonnegative("a margin is not negative"),
                        "foliage_block_path_m": positive(
                            "with 0 every line of sight touching a crown is blocked"
                        ),
                        "reflector_range_m": positive(
                            "the reflector index divides by it, 1 - D / d_r"
                        ),
                    }
                ),
                "datum": Section(
                    {
                        "output_frame": enum("wgs84_g2139", "nad83"),
                        "start_utc": Field("utc"),
                        "harn_to_nad83_2011_shift_deg": _datum(
                            -0.01, 0.01, "the realisations differ by centimetres (1e-7 deg)", 2
                        ),
                        "geoid": Section(
                            {
                                "n0_m": _datum(-200, 200, "the geoid is within 110 m of WGS84"),
                                "dn_de": _datum(-0.01, 0.01, "a geoid slope is below 10 m/km"),
                                "dn_dn": _datum(-0.01, 0.01, "a geoid slope is below 10 m/km"),
                            }
                        ),
                        "helmert_itrf2014_to_nad83_2011": Section(
                            {
                                "t_m": _datum(-1000, 1000, _HELMERT, 3),
                                "r_arcsec": _datum(-100, 100, _HELMERT, 3),
                                "s_ppm": _datum(-1000, 1000, _HELMERT),
                                "dt_m_per_yr": _datum(-1, 1, _HELMERT, 3),
                                "dr_arcsec_per_yr": _datum(-1, 1, _HELMERT, 3),
                                "ds_ppm_per_yr": _datum(-1, 1, _HELMERT),
                                "reference_epoch": _datum(1900, 2200, "a year"),
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
                ),
                # navsense extension (issue 20): the sentences of gnss.nmea
                "nmea": Section(
                    {
                        "sentences": Field(
                            "enum_list",
                            choices=NMEA_SENTENCES,
                            extension=True,
                            chosen="written in this order within an epoch, whatever the order "
                            "given; [] writes no sentence",
                        ),
                    }
                ),
            }
        ),
        "imu": Section(
            {
                "enabled": BOOLEAN,
                "hz": RATE_HZ,
                "accel_std_mps2": nonnegative(_SIGMA),
                "gyro_std_radps": nonnegative(_SIGMA),
                "accel_bias_mps2": nonnegative(_SIGMA),
                "gyro_bias_radps": nonnegative(_SIGMA),
                "position_flu_m": VECTOR3_M,
                # navsense extension (issue 8): the configurable IMU, sensors/configurable_imu/
                "model": Field("enum", choices=("acres", "configurable"), extension=True),
                "preset": Field("enum", choices=("none", *PRESETS), extension=True),
                "configurable": _CONFIGURABLE_IMU,
                # navsense extension (issue 19 s.3): the turning WGS84 Earth in the IMU readings
                # (the ACRES IMU, the configurable IMU and the INS's rate and force), geo/earth.py
                "earth": Field(
                    "enum",
                    choices=("none", "wgs84"),
                    extension=True,
                    chosen="none: the specification (g = 9.80665, no Earth rate); wgs84: Earth "
                    "rate, transport rate, Coriolis and WGS84 normal gravity, at true north",
                ),
            }
        ),
        "ins": Section(
            {
                "enabled": BOOLEAN,
                "hz": RATE_HZ,
                "position_flu_m": VECTOR3_M,
                "position_sigma_m": position_sigma(),
                "position_tau_s": positive(_TAU),
                "position_white_m": position_sigma(),
                "heading_sigma_deg": nonnegative(_SIGMA),
                "attitude_sigma_deg": nonnegative(_SIGMA),
                "velocity_white_mps": nonnegative(_SIGMA),
                "accel_white_mps2": nonnegative(_SIGMA),
                "gyro_white_radps": nonnegative(_SIGMA),
                "frame": enum("nad83", "wgs84_g2139"),
                "utm_zone": Field("integer", minimum=1, maximum=60),
                # navsense extension (issue 19): the GNSS-aided INS, sensors/ins_aiding.py
                "aiding": Field("enum", choices=("none", "gnss"), extension=True),
                "aiding_tau_s": Field(
                    "number",
                    minimum=0.01,
                    maximum=100,
                    extension=True,
                    chosen="s, the loosely coupled filter's time constant: >= 0.01 s (one "
                    "epoch at 100 Hz), <= 100 s",
                ),
                "drift": _INS_DRIFT,
            }
        ),
        # navsense extensions (issue 7), off by default: magnetometer, barometer, wheel odometer.
        "mag": Section(
            {
                "enabled": EXTENSION_ENABLED,
                "hz": EXTENSION_RATE_HZ,
                "noise_std_ut": Field("number", minimum=0, extension=True, chosen=_SIGMA),
                "hard_iron_ut": Field("vector", length=3, extension=True),
                "soft_iron_matrix": Field(
                    "vector",
                    length=9,
                    extension=True,
                    chosen="3 x 3 row-major, dimensionless; identity: none",
                ),
            }
        ),
        "baro": Section(
            {
                "enabled": EXTENSION_ENABLED,
                "hz": EXTENSION_RATE_HZ,
                "noise_std_pa": Field("number", minimum=0, extension=True, chosen=_SIGMA),
                "bias_sigma_pa": Field("number", minimum=0, extension=True, chosen=_SIGMA),
                "bias_tau_s": Field(
                    "number", minimum=0, min_open=True, extension=True, chosen=_TAU
                ),
                "base_altitude_m": Field(
                    "number",
                    minimum=-1000,
                    maximum=11000,
                    extension=True,
                    chosen="the ISA troposphere formula holds below 11 km",
                ),
                "position_flu_m": Field("vector", length=3, extension=True),
            }
        ),
        "odom": Section(
            {
                "enabled": EXTENSION_ENABLED,
                "hz": EXTENSION_RATE_HZ,
                "noise_std_mps": Field("number", minimum=0, extension=True, chosen=_SIGMA),
                "scale_factor_sigma": Field(
                    "number",
                    minimum=0,
                    maximum=0.1,
                    extension=True,
                    chosen="dimensionless (0.01 = 1 %); <= 0.1 keeps 1 + eps positive to 10 sigma",
                ),
                "encoder_tick_m": Field(
                    "number",
                    minimum=0,
                    extension=True,
                    chosen="distance per encoder tick; 0 is no quantisation",
                ),
            }
        ),
    }
)


# --------------------------------------------------------------------------------------------
# Messages.


def _number_text(x) -> str:
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e15 else repr(float(x))


def format_value(value, limit: int = 80) -> str:
    """A value as JSON (``"utm"``, ``true``, ``[1, 2]``), shortened to about ``limit`` characters."""
    try:
        text = json.dumps(value, ensure_ascii=False, default=_json_fallback)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _json_fallback(value):
    if isinstance(value, np.generic):  # numpy integers and booleans
        return value.item()
    return repr(value)


def _error(source: str, path: str, value, complaint: str) -> ConfigError:
    return ConfigError(f"{source}: {path} = {format_value(value)} {complaint}")


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _nodes(section: Section, path: str = "") -> Iterator[tuple[str, Field | Section]]:
    for key, node in section.fields.items():
        p = _join(path, key)
        yield p, node
        if isinstance(node, Section):
            yield from _nodes(node, p)


def known_keys(schema: Section = SCHEMA) -> list[str]:
    """Every dotted key path of ``schema`` that holds a value (sections excluded), in order."""
    return [p for p, node in _nodes(schema) if isinstance(node, Field)]


def lookup(path: str, schema: Section = SCHEMA) -> Field | Section:
    """The Field or Section at the dotted ``path``; KeyError if there is none."""
    node: Field | Section = schema
    for key in path.split("."):
        if not isinstance(node, Section) or key not in node.fields:
            raise KeyError(path)
        node = node.fields[key]
    return node


def unknown_key_error(source: str, path: str, value, schema: Section = SCHEMA) -> ConfigError:
    """``<source>: <path> = <value> is not a known key; did you mean <nearest>?``.

    The first component of ``path`` that the schema does not know is looked up: a sibling that
    adds a suffix to it (a unit left out), the same name in another section (a key in the wrong
    place), the sibling closest in spelling (difflib), the closest name anywhere. The rest
    of ``path`` is kept when the corrected path exists.
    """
    parts = path.split(".")
    node: Field | Section = schema
    i = 0
    while i < len(parts) and isinstance(node, Section) and parts[i] in node.fields:
        node = node.fields[parts[i]]
        i += 1
    parent_path = ".".join(parts[:i])
    if not isinstance(node, Section):  # a path below a key that holds a value
        return _error(source, path, value, f"is not a known key; did you mean {parent_path}?")
    key, rest = parts[min(i, len(parts) - 1)], ".".join(parts[i + 1 :])
    paths = [p for p, _ in _nodes(schema)]
    # A sibling with a unit suffix the key left out ("utm" for "utm_zone"); the same name in
    # another section (a key in the wrong place); the closest spelling among the siblings,
    # then anywhere.
    suggestions = [_join(parent_path, k) for k in node.fields if k.startswith(key + "_")][:3]
    suggestions = suggestions or [p for p in paths if p.rpartition(".")[2] == key][:3]
    if not suggestions:
        near = difflib.get_close_matches(key, list(node.fields), n=1, cutoff=0.6)
        suggestions = [_join(parent_path, k) for k in near]
    if not suggestions:
        names = sorted({p.rpartition(".")[2] for p in paths})
        close = set(difflib.get_close_matches(key, names, n=3, cutoff=0.75))
        suggestions = [p for p in paths if p.rpartition(".")[2] in close][:3]
    if rest:
        suggestions = [_with_rest(s, rest, schema) for s in suggestions]
    if suggestions:
        hint = (
            "; did you mean "
            + (
                suggestions[0]
                if len(suggestions) == 1
                else ", ".join(suggestions[:-1]) + " or " + suggestions[-1]
            )
            + "?"
        )
    else:
        hint = f"; the keys of {parent_path or 'the top level'} are {', '.join(node.fields)}"
    return _error(source, path, value, "is not a known key" + hint)


def _with_rest(prefix: str, rest: str, schema: Section) -> str:
    try:
        lookup(f"{prefix}.{rest}", schema)
    except KeyError:
        return prefix
    return f"{prefix}.{rest}"


# --------------------------------------------------------------------------------------------
# Validation.


def validate(
    cfg, source: str = "sensors.json", *, partial: bool = False, schema: Section = SCHEMA
) -> None:
    """Check ``cfg`` against ``schema``; raise a ConfigError naming ``source`` at the first problem.

    Specification "Parameters": every key's type and range, "One system must be on", and
    "The game stops with a message when a value is out of its range". Unknown keys are errors
    with the nearest known key suggested. With ``partial`` false (the default) every key of the
    schema must be present, as in an effective configuration; with ``partial`` true a file that
    sets only some keys (an overlay) passes, and the section checks run where their keys are all
    present.
    """
    if not isinstance(cfg, Mapping):
        raise ConfigError(
            f"{source}: the configuration is {format_value(cfg, 40)}, not a JSON object"
        )
    _validate_section(schema, cfg, "", source, partial, schema)


def validate_section(
    path: str, value, source: str, *, partial: bool = False, schema: Section = SCHEMA
) -> None:
    """Check ``value`` as the section at the dotted ``path`` of ``schema`` (e.g. ``gnss.datum``
    given on its own, as ``Georeference.acre(datum=...)`` takes it); messages name the full key
    (``<source>: gnss.datum.geoid.n0_m = "x" is not a number``). ``partial`` as in :func:`validate`.
    """
    node = lookup(path, schema)
    if not isinstance(node, Section):
        raise KeyError(f"{path} is a key, not a section of the schema")
    if not isinstance(value, Mapping):
        raise _error(
            source,
            path,
            value,
            f"is not an object (a section with the keys {', '.join(node.fields)})",
        )
    _validate_section(node, value, path, source, partial, schema)


def _validate_section(
    section: Section, value: Mapping, path: str, source: str, partial: bool, schema: Section
) -> None:
    for key, item in value.items():
        p = _join(path, str(key))
        node = section.fields.get(key) if isinstance(key, str) else None
        if node is None:
            raise unknown_key_error(source, p, item, schema)
        if isinstance(node, Section):
            if not isinstance(item, Mapping):
                raise _error(
                    source,
                    p,
                    item,
                    f"is not an object (a section with the keys {', '.join(node.fields)})",
                )
            _validate_section(node, item, p, source, partial, schema)
        elif not (item is None and node.nullable):
            problem = KINDS[node.kind](node, item, p)
            if problem is not None:
                raise _error(source, *problem)
    if not partial:
        for key in section.fields:
            if key not in value:
                raise ConfigError(f"{source}: {_join(path, key)} is missing")
    for check in section.checks:
        complaint = check(value)
        if complaint:
            raise _error(source, path, dict(value), complaint)


def canonical(cfg: Mapping, schema: Section = SCHEMA) -> dict:
    """A deep copy of a validated ``cfg`` as plain JSON types, keys in the schema's order.

    Tuples become lists, numpy scalars become int, float or bool, integers stay integers.
    """
    return _canonical_section(schema, cfg)


def _canonical_section(section: Section, value: Mapping) -> dict:
    out = {}
    for key, node in section.fields.items():
        if key not in value:
            continue
        item = value[key]
        out[key] = (
            _canonical_section(node, item) if isinstance(node, Section) else _canonical_value(item)
        )
    return out


def _canonical_value(value):
    if isinstance(value, (list, tuple)):
        return [_canonical_value(x) for x in value]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    return value


def _range_from(node: Field) -> str:
    if node.extension:
        return "navsense extension" + (f"; {node.chosen}" if node.chosen else "")
    if node.chosen:
        return f"navsense: {node.chosen}"
    if node.kind in ("number", "vector") and not node.has_range:
        return "none stated; any finite number"
    if node.kind == "boolean":
        return ""
    return "specification"


def describe_keys(schema: Section = SCHEMA) -> list[dict]:
    """One dict per key: ``key``, ``type``, ``allowed`` and ``range_from`` (``specification``;
    ``navsense: <reason>`` where the specification states no range and navsense chose one;
    ``navsense extension`` for a key the specification does not have)."""
    rows = []
    for path, node in _nodes(schema):
        if isinstance(node, Field):
            rows.append(
                {
                    "key": path,
                    "type": node.type_text(),
                    "allowed": node.allowed_text(),
                    "range_from": _range_from(node),
                }
            )
    return rows
