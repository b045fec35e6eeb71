"""The kinds of configuration keys: :class:`Field` (one key: its kind, range, default) and
:class:`Section` (a JSON object of keys), each kind's check, and the building blocks of the table
(navsense.config.keys).

A field knows its kind (``number``, ``integer``, ``boolean``, ``enum``, ``vector``, ``intervals``,
``utc``, ``enum_list``, ``text``: a non-empty string such as a file path), its range or allowed values, its default (the value of the effective
configuration when no layer sets it), and, where the specification gives no range, the reason
for the one navsense chose (``Field.chosen``; empty when the range is the specification's).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from navsense.jsonfile import is_finite
from navsense.utc import utc_datetime

__all__ = [
    "Field",
    "Section",
    "NO_DEFAULT",
    "KINDS",
    "LIST_KINDS",
    "MAGNITUDE_LIMIT",
    "MAX_INTERVALS",
    "BOOLEAN",
    "RATE_HZ",
    "PHYSICS_HZ_RANGE",
    "VECTOR3_M",
    "FINITE",
    "EXTENSION_ENABLED",
    "EXTENSION_RATE_HZ",
    "nonnegative",
    "positive",
    "enum",
    "number_text",
]


#: A check of a whole section: returns what is wrong ("has no system on; ...") or None; or, to
#: name one key of the section, (its dotted path in the section, its value, what is wrong).
SectionCheck = Callable[[Mapping], "str | tuple[str, Any, str] | None"]


class _NoDefault:
    """The default of a field that has none yet (a building block before ``with_default``)."""

    def __repr__(self) -> str:
        return "NO_DEFAULT"


NO_DEFAULT: Any = _NoDefault()


@dataclass(frozen=True)
class Field:
    """One configuration key: its kind and what values are allowed.

    ``minimum``/``maximum`` bound numbers, integers and the elements of vectors (``min_open``
    makes the minimum exclusive); ``choices`` lists an enum's values in the specification's
    order; ``length`` is a vector's number of elements; ``nullable`` admits JSON null;
    ``chosen`` says why navsense chose the range where the specification states none;
    ``extension`` marks a key that navsense adds to the specification's.

    ``default`` is the key's value when no layer of the configuration sets it: the one default
    (navsense.config.defaults derives the default layers from it, and the typed sections read
    the completed configuration), a JSON value with tuples for arrays; :data:`NO_DEFAULT` in a
    field not yet given one (:meth:`with_default`). ``null_means`` is what a nullable key's
    null stands for when nothing else fills it (imu.configurable: the preset's value first).
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
    default: Any = NO_DEFAULT
    null_means: Any = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown field kind {self.kind!r}; known: {', '.join(KINDS)}")
        object.__setattr__(self, "default", _frozen(self.default))
        object.__setattr__(self, "null_means", _frozen(self.null_means))

    def with_default(self, default: Any) -> Field:
        """This field with the default ``default`` (a JSON value: lists may be given)."""
        return replace(self, default=default)

    @property
    def has_range(self) -> bool:
        return self.minimum is not None or self.maximum is not None

    def range_text(self) -> str:
        """The allowed range as it appears in messages: ``1..120``, ``>= 4``, ``> 0``."""
        lo, hi = self.minimum, self.maximum
        if lo is not None and hi is not None:
            return f"{number_text(lo)}..{number_text(hi)}"
        if lo is not None:
            return f"{'>' if self.min_open else '>='} {number_text(lo)}"
        if hi is not None:
            return f"<= {number_text(hi)}"
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
            "text": "string",
            "sines": 'array of {"hz", "accel_mps2", "gyro_radps"} objects',
            "engine_orders": 'array of {"order", "accel_mps2"} objects',
        }[self.kind]

    def allowed_text(self) -> str:
        if self.kind in ("enum", "enum_list"):
            return ", ".join(self.choices)
        if self.kind == "intervals":
            return "start < end"
        if self.kind == "utc":
            return "YYYY-MM-DDThh:mm:ss[.f]Z"
        if self.kind == "text":
            return "a non-empty string"
        if self.kind == "sines":
            return f"hz > 0, 3 amplitudes each; at most {MAX_SINES}"
        if self.kind == "engine_orders":
            return f"order 0 < n <= {MAX_ENGINE_ORDER:g}, 3 amplitudes each; at most {MAX_SINES}"
        return self.range_text()


@dataclass(frozen=True)
class Section:
    """A JSON object of the configuration: its keys in canonical order, and whole-section checks.

    ``in_sensors_json`` false marks a section whose defaults the specification's sensors.json
    does not hold (the INS table's "Code" column): they are code defaults, as are the
    extension keys' (navsense.config.defaults). ``final_checks`` see below.
    """

    fields: Mapping[str, Field | Section]
    checks: tuple[SectionCheck, ...] = ()
    in_sensors_json: bool = True
    #: checks of keys that different layers may set (a file, the vehicle overlay, an option):
    #: run once, on the effective configuration (navsense.config.schema.validate_effective),
    #: never on a layer on its way there
    final_checks: tuple[SectionCheck, ...] = ()


def _frozen(value: Any) -> Any:
    """A JSON value with its arrays as tuples (a Field is frozen and hashable)."""
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(x) for x in value)
    return value


def number_text(x) -> str:
    """A bound as messages print it: ``120``, ``0.01``."""
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e15 else repr(float(x))


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


#: the last year a run may start in (navsense's ruling): the NMEA sentences and the ISO 8601
#: times of a run write a year of four digits, and a run from 9999-12-31T23:59:50Z wrote its
#: ZDA sentences of the next year as 0000 (found by the fuzz helper); a run lasts days at most
LAST_START_YEAR = 9998


def _check_utc(f: Field, value, path: str):
    try:  # the one parser, in the configuration's form (navsense.utc)
        year = utc_datetime(value, strict=True).year
    except ValueError:
        return path, value, "is not an ISO 8601 UTC time such as 2026-09-23T15:00:00Z"
    if year > LAST_START_YEAR:
        return (
            path,
            value,
            f"is after {LAST_START_YEAR}: a run's NMEA sentences and ISO 8601 times write a year "
            "of four digits, which a run from the last year could pass",
        )
    return None


#: The longest text value (a file path): the name limits of file systems are far below.
MAX_TEXT_CHARS = 4096


def _check_text(f: Field, value, path: str):
    if not isinstance(value, str) or not value.strip():
        return path, value, "is not a non-empty string"
    if len(value) > MAX_TEXT_CHARS or "\x00" in value:
        return path, value[:80], f"is not a file name (NUL, or over {MAX_TEXT_CHARS} characters)"
    return None


#: The most sines of a vibration (each is evaluated at every physics step).
MAX_SINES = 64
_SINE_KEYS = ("hz", "accel_mps2", "gyro_radps")


def _check_sines(f: Field, value, path: str):
    """imu.vibration.sines (issue 30 item 2): objects with a frequency > 0 Hz and the amplitude
    of the specific force (m/s^2) and of the rate (rad/s) on each IMU axis, both optional."""
    if not isinstance(value, (list, tuple)):
        return path, value, 'is not an array of {"hz", "accel_mps2", "gyro_radps"} objects'
    if len(value) > MAX_SINES:
        return path, value[:4], f"... has {len(value)} sines; at most {MAX_SINES}"
    for i, sine in enumerate(value):
        where = f"{path}[{i}]"
        if not isinstance(sine, dict) or "hz" not in sine:
            return where, sine, 'is not an object with "hz" and "accel_mps2" or "gyro_radps"'
        unknown = [k for k in sine if k not in _SINE_KEYS]
        if unknown:
            return (
                f"{where}.{unknown[0]}",
                sine[unknown[0]],
                "is not a key of a sine: " + (", ".join(_SINE_KEYS)),
            )
        hz = sine["hz"]
        if not (_is_number(hz) and is_finite(hz) and 0 < hz <= MAGNITUDE_LIMIT):
            return f"{where}.hz", hz, "is not a frequency > 0 Hz"
        for key in _SINE_KEYS[1:]:
            amp = sine.get(key, [0, 0, 0])
            if not _is_amplitudes(amp):
                return f"{where}.{key}", amp, "is not an array of 3 amplitudes (|a| <= 1e6)"
    return None


def _is_amplitudes(amp) -> bool:
    """An amplitude on each IMU axis: 3 finite numbers of at most 1e6."""
    return (
        isinstance(amp, (list, tuple))
        and len(amp) == 3
        and all(_is_number(x) and is_finite(x) and abs(x) <= 1e6 for x in amp)
    )


#: The highest engine order (a 32-cylinder engine's firing is its 16th order; 64: room for its
#: harmonics).
MAX_ENGINE_ORDER = 64.0
_ORDER_KEYS = ("order", "accel_mps2")


def _check_engine_orders(f: Field, value, path: str):
    """imu.vibration.engine_orders (issue 30 item 2): objects with an engine order n, 0 < n <=
    64 (0.5: a four-stroke's camshaft; 2: a 4-cylinder's firing), and the amplitude of the
    specific force on each IMU axis (m/s^2)."""
    if not isinstance(value, (list, tuple)):
        return path, value, 'is not an array of {"order", "accel_mps2"} objects'
    if len(value) > MAX_SINES:
        return path, value[:4], f"... has {len(value)} orders; at most {MAX_SINES}"
    for i, item in enumerate(value):
        where = f"{path}[{i}]"
        if not isinstance(item, dict) or "order" not in item or "accel_mps2" not in item:
            return where, item, 'is not an object with "order" and "accel_mps2"'
        unknown = [k for k in item if k not in _ORDER_KEYS]
        if unknown:
            return (
                f"{where}.{unknown[0]}",
                item[unknown[0]],
                "is not a key of an engine order: " + ", ".join(_ORDER_KEYS),
            )
        n = item["order"]
        if not (_is_number(n) and is_finite(n) and 0 < n <= MAX_ENGINE_ORDER):
            return f"{where}.order", n, f"is not an engine order 0 < n <= {MAX_ENGINE_ORDER:g}"
        amp = item["accel_mps2"]
        if not _is_amplitudes(amp):
            return f"{where}.accel_mps2", amp, "is not an array of 3 amplitudes (|a| <= 1e6)"
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
    "text": _check_text,
    "sines": _check_sines,
    "engine_orders": _check_engine_orders,
}

#: kinds whose value is a JSON array (the "+" override appends to these).
LIST_KINDS = frozenset({"intervals", "enum_list", "sines", "engine_orders"})


# --------------------------------------------------------------------------------------------
# Building blocks of the table.


def nonnegative(chosen: str, default: Any = NO_DEFAULT) -> Field:
    """A finite number >= 0, a range navsense chose for the reason ``chosen``."""
    return Field("number", minimum=0, chosen=chosen, default=default)


def positive(chosen: str, default: Any = NO_DEFAULT) -> Field:
    """A finite number > 0, a range navsense chose for the reason ``chosen``."""
    return Field("number", minimum=0, min_open=True, chosen=chosen, default=default)


def enum(*choices: str, default: Any = NO_DEFAULT) -> Field:
    """One of ``choices`` (the specification's order)."""
    return Field("enum", choices=choices, default=default)


BOOLEAN = Field("boolean")
#: The physics clock's rates (physics.hz, issue 30 item 1), Hz: physics simulators step at 50 Hz
#: to 1 kHz (Gazebo, MuJoCo, Isaac Sim), real IMUs sample at 100 Hz to 2 kHz.
PHYSICS_HZ_RANGE = (50, 2000)
_UP_TO_PHYSICS = (
    "the specification: 1..120 on its 120 Hz clock; navsense: up to the physics rate "
    "(physics.hz, at most 2000 Hz; a sensor samples at most once a physics step)"
)
RATE_HZ = Field("number", minimum=1, maximum=PHYSICS_HZ_RANGE[1], chosen=_UP_TO_PHYSICS)
VECTOR3_M = Field("vector", length=3)
FINITE = Field("number")  # any finite number
# the navsense extension sensors' switch and rate (mag, baro, odom)
EXTENSION_ENABLED = Field("boolean", extension=True)
EXTENSION_RATE_HZ = Field(
    "number",
    minimum=1,
    maximum=PHYSICS_HZ_RANGE[1],
    extension=True,
    chosen="as every sensor: 1 Hz up to the physics rate (physics.hz)",
)
