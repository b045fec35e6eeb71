"""Loading the effective configuration (specification "Parameters" and "Command-Line Options").

The layers, each deep-merged over the ones before it (objects merge key by key; any other value,
arrays included, replaces the one below):

1. the code's defaults (``code_defaults.json``: ``noise`` and the INS "Code" column);
2. the embedded ``sensors.json``;
3. the file ``config_path`` (``-SensorConfig=``). The specification calls it "a different complete
   configuration file"; navsense also accepts a partial file: the keys it leaves out keep the
   values of layers 1 and 2. A complete file thus replaces them, as in the specification;
4. the vehicle overlay: the file ``overlay_path`` (``-PolarisSensorConfig=``) if given, else the
   embedded ``sensors_polaris.json`` for the Polaris and nothing for the Maxxum;
5. the overrides (the other command-line options), as dotted key paths.

The configuration is validated after each layer, so an error names the layer that caused it:
the file's path as given, ``sensors.json``/``sensors_polaris.json`` for the embedded files, and
``command line`` for the overrides.
"""

from __future__ import annotations

import copy
import json
import math
import os
from collections.abc import Mapping

from navsense.config.defaults import (
    VEHICLE_OVERLAYS,
    code_defaults,
    sensors_defaults,
    vehicle_overlay,
)
from navsense.config.schema import (
    LIST_KINDS,
    SCHEMA,
    Field,
    Section,
    canonical,
    format_value,
    lookup,
    unknown_key_error,
    validate,
)
from navsense.errors import ConfigError

__all__ = [
    "load_config",
    "apply_overrides",
    "read_config_file",
    "parse_config_text",
    "deep_merge",
    "parse_outage",
    "parse_number",
    "COMMAND_LINE",
]

#: The source named in errors caused by overrides.
COMMAND_LINE = "command line"


def load_config(
    config_path: str | os.PathLike | None = None,
    overlay_path: str | os.PathLike | None = None,
    vehicle: str = "polaris",
    overrides: Mapping | None = None,
) -> dict:
    """The effective sensor configuration: defaults < config file < overlay < overrides.

    Returns a new plain nested dict (JSON types only, keys in the schema's order) with every key
    of the schema: the configuration that goes into ``episode.json``. Raises ConfigError (naming
    the file, the dotted key, the value and what is allowed) on any invalid layer.
    See the module docstring for the layers and :func:`apply_overrides` for ``overrides``.
    """
    if vehicle not in VEHICLE_OVERLAYS:
        raise ConfigError(
            f"vehicle = {format_value(vehicle)} is not one of {', '.join(VEHICLE_OVERLAYS)}"
        )
    cfg = deep_merge(code_defaults(), sensors_defaults())
    validate(cfg, "sensors.json")
    layers: list[tuple[dict, str]] = []
    if config_path is not None:
        layers.append((read_config_file(config_path), os.fspath(config_path)))
    if overlay_path is not None:
        layers.append((read_config_file(overlay_path), os.fspath(overlay_path)))
    else:
        embedded = vehicle_overlay(vehicle)
        if embedded is not None:
            layers.append(embedded)
    for layer, source in layers:
        if not isinstance(layer, Mapping):
            raise ConfigError(
                f"{source}: the configuration is {format_value(layer, 40)}, not a JSON object"
            )
        cfg = deep_merge(cfg, layer)
        validate(cfg, source)
    if overrides:
        cfg = apply_overrides(cfg, overrides)
    return canonical(cfg)


def apply_overrides(
    cfg: Mapping, overrides: Mapping, *, source: str = COMMAND_LINE, schema: Section = SCHEMA
) -> dict:
    """A validated copy of ``cfg`` with ``overrides`` applied (``cfg`` is not changed).

    ``overrides`` maps dotted key paths to values, in the order given: ``{"seed": 7,
    "gnss.hz": 5, "noise": False, "gnss.datum.output_frame": "nad83"}``. A key ending in ``+``
    appends the items of its value to a list: ``{"gnss.corrections.outages_s+": [[10, 20]]}``
    (the repeatable ``-SensorGnssOutage=``). A section path with an object value is deep-merged.
    Errors name ``source`` ("command line").
    """
    out = copy.deepcopy(dict(cfg))
    for key, value in overrides.items():
        append = isinstance(key, str) and key.endswith("+")
        path = key[:-1] if append else key
        if not isinstance(path, str) or not path:
            raise ConfigError(f"{source}: {format_value(key)} is not a dotted key path")
        try:
            node = lookup(path, schema)
        except KeyError:
            raise unknown_key_error(source, path, value, schema) from None
        *parents, leaf = path.split(".")
        parent = out
        for name in parents:
            parent = parent.setdefault(name, {})
            if not isinstance(parent, dict):
                raise ConfigError(f"{source}: {path} cannot be set: {name} is not an object")
        if append:
            if not (isinstance(node, Field) and node.kind in LIST_KINDS):
                raise ConfigError(
                    f"{source}: {key} = {format_value(value)} appends to a list, "
                    f"but {path} is not a list"
                )
            if not isinstance(value, (list, tuple)):
                raise ConfigError(
                    f"{source}: {key} = {format_value(value)} is not an array "
                    f"of items to append to {path}"
                )
            parent[leaf] = list(parent.get(leaf, [])) + copy.deepcopy(list(value))
        elif isinstance(node, Section) and isinstance(value, Mapping):
            parent[leaf] = deep_merge(parent.get(leaf, {}), value)
        else:
            parent[leaf] = copy.deepcopy(value)
    validate(out, source, schema=schema)
    return canonical(out, schema)


def deep_merge(base: Mapping, layer: Mapping) -> dict:
    """A new dict: ``layer`` over ``base``, objects merged key by key, anything else replaced."""
    out = copy.deepcopy(dict(base))
    for key, value in layer.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def read_config_file(path: str | os.PathLike) -> dict:
    """The JSON object in the file ``path``; ConfigError naming the path if it cannot be read."""
    source = os.fspath(path)
    try:
        with open(path, encoding="utf-8-sig") as f:
            text = f.read()
    except OSError as e:
        raise ConfigError(
            f"{source}: cannot read the configuration file: {e.strerror or e}"
        ) from None
    except UnicodeDecodeError as e:
        raise ConfigError(f"{source}: is not UTF-8 text (byte {e.start})") from None
    return parse_config_text(text, source)


def parse_config_text(text: str, source: str) -> dict:
    """Parse JSON ``text``; errors name ``source``, the line and the column.

    Stricter than :func:`json.loads`: a key twice in one object and the non-JSON constants
    NaN and Infinity are errors. The top level must be an object.
    """
    try:
        value = json.loads(
            text, object_pairs_hook=_no_duplicate_keys(source), parse_constant=_no_constant(source)
        )
    except json.JSONDecodeError as e:
        raise ConfigError(
            f"{source}: invalid JSON at line {e.lineno}, column {e.colno}: {e.msg}"
        ) from None
    if not isinstance(value, dict):
        raise ConfigError(
            f"{source}: the configuration is {format_value(value, 40)}, not a JSON object"
        )
    return value


def _no_duplicate_keys(source: str):
    def hook(pairs):
        out = {}
        for key, value in pairs:
            if key in out:
                raise ConfigError(
                    f"{source}: the key {format_value(key)} appears twice in one object"
                )
            out[key] = value
        return out

    return hook


def _no_constant(source: str):
    def hook(name):
        raise ConfigError(f"{source}: {name} is not valid JSON; numbers must be finite")

    return hook


def parse_outage(text: str, option: str = "--gnss-outage") -> list[float]:
    """``"<start>:<end>"`` (``-SensorGnssOutage=``) as ``[start, end]`` in seconds.

    Integers stay integers (``"10:20"`` gives ``[10, 20]``). The order start < end is checked
    with the rest of the configuration.
    """
    parts = text.split(":") if isinstance(text, str) else []
    try:
        if len(parts) != 2:
            raise ValueError
        pair = [parse_number(p) for p in parts]
    except ValueError:
        raise ConfigError(
            f"{COMMAND_LINE}: {option} = {format_value(text)} is not "
            f"<start>:<end> in seconds, such as 10:20"
        ) from None
    return pair


def parse_number(text: str) -> int | float:
    """A command-line number: an int if it is written as one, else a finite float (ValueError)."""
    text = text.strip()
    try:
        return int(text)
    except ValueError:
        value = float(text)
        if not math.isfinite(value):
            raise ValueError(text) from None
        return value
