"""The sensor configuration: embedded defaults, overlays, overrides and validation.

Specification sections "Parameters" (every table) and "Command-Line Options".

>>> from navsense.config import load_config
>>> cfg = load_config()                                # the Polaris with the embedded files
>>> cfg = load_config(vehicle="maxxum", overrides={"gnss.hz": 5, "noise": False,
...                   "gnss.corrections.outages_s+": [[10, 20]]})

``load_config`` returns the effective configuration, a plain nested dict with every key (the one
that goes into ``episode.json``): defaults < ``config_path`` < vehicle overlay < ``overrides``
(see :mod:`navsense.config.load`). Every layer is validated against :data:`SCHEMA`; an error is a
:class:`~navsense.errors.ConfigError` that names the file (``command line`` for overrides), the
dotted key, the value and what is allowed::

    sensors.json: gnss.hz = 2400 is out of range 1..2000
    sensors_polaris.json: ins.frame = "utm" is not one of nad83, wgs84_g2139
    my.json: gnss.elevation_mask = 10 is not a known key; did you mean gnss.elevation_mask_deg?

Layout of the effective configuration: ``seed``, ``delay_s``, ``mount_frame``, ``noise``,
``gnss`` (``enabled``, ``hz``, ``antenna_flu_m``, ``std_m``, ``start``, ``cold_ttff_s``,
``elevation_mask_deg``, ``constellations``, ``multipath_tau_s``, ``multipath_vertical_ratio``,
``states``, ``rtk``, ``corrections``, ``obstruction``, ``datum``), ``imu`` and ``ins``; the keys and
units are the specification's.

navsense extensions (keys the specification does not have):

``noise`` (boolean, default true)
    False sets every error, bias and noise of every sensor to zero, as ``-SensorNoNoise`` does;
    the models still draw the same random values. ``--no-noise`` sets it false.

Where the specification states no range, navsense chose one (a standard deviation is not
negative, a correlation time is positive, ...); ``Field.chosen`` records why, and
``navsense config keys`` lists every key with its allowed values and where they come from.

Vehicles: ``polaris`` applies the embedded ``sensors_polaris.json`` (with its ``ins`` block);
``maxxum`` has no overlay, so its ``ins`` block is the INS table's "Code" column (``enabled``
false). ``overlay_path`` replaces the embedded overlay for either vehicle.
"""

from navsense.config.defaults import (
    VEHICLE_OVERLAYS,
    code_defaults,
    sensors_defaults,
    vehicle_overlay,
)
from navsense.config.load import (
    COMMAND_LINE,
    apply_overrides,
    deep_merge,
    load_config,
    parse_config_text,
    parse_number,
    parse_outage,
    read_config_file,
)
from navsense.config.schema import (
    SCHEMA,
    Field,
    Section,
    canonical,
    describe_keys,
    known_keys,
    lookup,
    validate,
    validate_section,
)

__all__ = [
    "load_config",
    "apply_overrides",
    "validate",
    "validate_section",
    "SCHEMA",
    "Field",
    "Section",
    "canonical",
    "describe_keys",
    "known_keys",
    "lookup",
    "VEHICLE_OVERLAYS",
    "sensors_defaults",
    "code_defaults",
    "vehicle_overlay",
    "read_config_file",
    "parse_config_text",
    "deep_merge",
    "parse_outage",
    "parse_number",
    "COMMAND_LINE",
]
