"""Loading the effective configuration (specification "Parameters" and "Command-Line Options").

The layers, each deep-merged over the ones before it (objects merge key by key; any other value,
arrays included, replaces the one below):

1. the code's defaults (``noise``, the INS "Code" column, the extensions: navsense.config.keys);
2. the specification's ``sensors.json`` (its defaults, also in navsense.config.keys);
3. the file ``config_path`` (``-SensorConfig=``). The specification calls it "a different complete
   configuration file"; navsense also accepts a partial file: the keys it leaves out keep the
   values of layers 1 and 2. A complete file thus replaces them, as in the specification;
4. the vehicle overlay: the file ``overlay_path`` (``-PolarisSensorConfig=``) if given, else the
   embedded ``sensors_polaris.json`` for the Polaris and nothing for the Maxxum;
5. the overrides (the other command-line options), as dotted key paths.

An error-model preset (``ins.imu_grade``, ``baro.preset``, ``mag.preset``;
navsense.config.error_presets) or a vibration preset (``imu.vibration.preset``;
navsense.config.vibration_presets), named
in any layer, puts its keys in a layer just above the defaults (1 and 2): every key a file or an
option sets explicitly wins over it (issue 30 item 3).

The configuration is validated after each layer, so an error names the layer that caused it:
the file's path as given, ``sensors.json``/``sensors_polaris.json`` for the embedded files, and
``command line`` for the overrides.

The order is the specification's and silent there; navsense makes it visible:

- a value of the configuration file that the vehicle overlay replaces by another draws one
  warning line (:class:`~navsense.errors.NavsenseWarning`) naming the key and both values (the
  Polaris overlay sets the whole ``ins`` block, so ``{"ins": {"utm_zone": 32}}`` in ``--config``
  is overridden: an option, ``--set ins.utm_zone=32``, is applied over both files);
- :func:`explain_config` returns, with the configuration, where each value came from (the
  defaults, the configuration file, the overlay, an option): ``navsense config show --explain``.
"""

from __future__ import annotations

import copy
import json
import math
import os
import warnings
from collections.abc import Iterable, Mapping

from navsense.config.defaults import (
    VEHICLE_OVERLAYS,
    all_defaults,
    code_defaults,
    deep_merge,
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
    validate_effective,
)
from navsense.errors import ConfigError, NavsenseWarning

__all__ = [
    "load_config",
    "preset_layer",
    "explain_config",
    "parse_set",
    "apply_overrides",
    "check_effective",
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
    *,
    later_keys: Iterable[str] = (),
    presets: Mapping | None = None,
    final_checks: bool = True,
) -> dict:
    """The effective sensor configuration: defaults < config file < overlay < overrides.

    Returns a new plain nested dict (JSON types only, keys in the schema's order) with every key
    of the schema: the configuration that goes into ``episode.json``. Raises ConfigError (naming
    the file, the dotted key, the value and what is allowed) on any invalid layer; warns
    (NavsenseWarning) for each value of the configuration file that the overlay replaces, unless
    ``overrides`` or ``later_keys`` (the dotted keys of overrides the caller applies afterwards)
    set it again. See the module docstring for the layers and :func:`apply_overrides` for
    ``overrides``. ``presets``: a preset layer (:func:`preset_layer`) to put over the defaults
    with those the layers name: that of overrides the caller applies afterwards
    (navsense.run.prepare_run). ``final_checks`` False leaves the checks of keys that different
    layers may set (the sections' ``final_checks``) to the caller, who applies more layers and
    then calls :func:`check_effective` (navsense.run.prepare_run).
    """
    return _build(
        config_path, overlay_path, vehicle, overrides, None, None, later_keys, presets, final_checks
    )


def check_effective(
    cfg: Mapping,
    config_path: str | os.PathLike | None = None,
    overlay_path: str | os.PathLike | None = None,
    vehicle: str = "polaris",
    layers: Iterable[tuple[str, Mapping]] = (),
) -> None:
    """The sections' ``final_checks`` (navsense.config.schema.validate_effective) on ``cfg``,
    the configuration of :func:`load_config` (with ``final_checks`` False) and the override
    ``layers`` ``[(label, {dotted key: value}), ...]`` applied after it: a complaint names the
    last layer that set the key (a layer's label, else the file or overlay, else the
    defaults)."""
    validate_effective(cfg, _setter(_file_layers(config_path, overlay_path, vehicle), layers, cfg))


#: The origins :func:`explain_config` names (with the file or option).
DEFAULT_CODE = "default (navsense code: navsense.config.keys)"
DEFAULT_SENSORS = "default (sensors.json)"


def explain_config(
    config_path: str | os.PathLike | None = None,
    overlay_path: str | os.PathLike | None = None,
    vehicle: str = "polaris",
    overrides: Mapping | None = None,
    override_labels: Mapping[str, str] | None = None,
) -> tuple[dict, dict[str, str]]:
    """:func:`load_config` and where each value came from: ``(cfg, {dotted key: origin})``.

    The origin of a leaf value (a number, a string, a boolean, an array) is the last layer that
    set it: :data:`DEFAULT_CODE`, :data:`DEFAULT_SENSORS`, ``config file PATH``, ``vehicle
    overlay PATH`` (``sensors_polaris.json (embedded, polaris)`` for the embedded one), or for
    an override ``override_labels[key]`` (default ``command line``), ``(appended)`` added for a
    key ending in ``+``.
    """
    origins: dict[str, str] = {}
    cfg = _build(config_path, overlay_path, vehicle, overrides, origins, override_labels or {})
    return cfg, {key: origins.get(key, DEFAULT_CODE) for key, _ in leaves(cfg)}


def _build(
    config_path,
    overlay_path,
    vehicle,
    overrides,
    origins,
    override_labels,
    later_keys=(),
    presets=None,
    final_checks=True,
) -> dict:
    cfg = all_defaults()  # code_defaults() under sensors_defaults(), in the schema's order
    layers = _file_layers(config_path, overlay_path, vehicle)
    for layer, source, _ in layers:
        if not isinstance(layer, Mapping):
            raise ConfigError(
                f"{source}: the configuration is {format_value(layer, 40)}, not a JSON object"
            )
        cfg = deep_merge(cfg, layer)
        validate(cfg, source)
    if config_path is not None and len(layers) == 2:
        again = {k.removesuffix("+") for k in [*(overrides or {}), *later_keys]}
        _warn_overridden(layers[0], layers[1], again)
    if overrides:
        cfg = apply_overrides(cfg, overrides)
    wanted = merge_presets(preset_layer(cfg), presets)
    if wanted:  # again, over the defaults and the presets' keys: an explicit key wins
        cfg = deep_merge(all_defaults(), wanted)
        for layer, _, _ in layers:
            cfg = deep_merge(cfg, layer)
        if overrides:
            cfg = apply_overrides(cfg, overrides)
        validate(cfg, "the presets")
    if final_checks:
        validate_effective(cfg, _setter(layers, [(COMMAND_LINE, overrides or {})], cfg))
    if origins is not None:
        for layer, label in (
            (code_defaults(), DEFAULT_CODE),
            (sensors_defaults(), DEFAULT_SENSORS),
        ):
            origins.update((key, label) for key, _ in leaves(layer))
        for section, (name, keys, module) in _preset_keys(cfg).items():
            label = f"preset {name} ({section}; {module})"
            origins.update((k, label) for k, _ in leaves(keys, f"{section}."))
        for layer, _, label in layers:
            origins.update((key, label) for key, _ in leaves(layer))
        for key, value in (overrides or {}).items():
            path = key.removesuffix("+")
            label = override_labels.get(key, COMMAND_LINE)
            if path != key:
                label += " (appended)"
            if isinstance(value, Mapping):
                origins.update((k, label) for k, _ in leaves(value, f"{path}."))
            else:
                origins[path] = label
    return canonical(cfg)


#: the preset keys of the error models (issue 30 item 3) and of the IMU's vibration (item 2):
#: (section, preset key, its table as module:name in navsense.config, the sub-section its
#: values go in)
_PRESET_KEYS = (
    ("ins", "imu_grade", "error_presets:INS_IMU_GRADES", "ins.drift"),
    ("baro", "preset", "error_presets:BARO_PRESETS", "baro"),
    ("mag", "preset", "error_presets:MAG_PRESETS", "mag"),
    ("imu.vibration", "preset", "vibration_presets:VIBRATION_PRESETS", "imu.vibration"),
)


def _preset_keys(cfg: Mapping) -> dict[str, tuple[str, dict, str]]:
    """{sub-section: (preset name, its keys, its module)} of the presets ``cfg`` names (not
    "none")."""
    from navsense.config import error_presets, vibration_presets

    modules = {"error_presets": error_presets, "vibration_presets": vibration_presets}
    out = {}
    for section, key, table, target in _PRESET_KEYS:
        node = cfg
        for part in section.split("."):
            node = node.get(part, {}) if isinstance(node, Mapping) else {}
        name = node.get(key, "none") if isinstance(node, Mapping) else "none"
        if name != "none":
            module, attr = table.split(":")
            presets = getattr(modules[module], attr)
            out[target] = (name, copy.deepcopy(dict(presets[name])), f"navsense.config.{module}")
    return out


def merge_presets(*layers: Mapping | None) -> dict:
    """The preset layers merged (None and {} skipped)."""
    out: dict = {}
    for layer in layers:
        if layer:
            out = deep_merge(out, layer)
    return out


def preset_layer(cfg: Mapping) -> dict:
    """The layer of the presets that ``cfg`` names (``ins.imu_grade``, ``baro.preset``,
    ``mag.preset``: navsense.config.error_presets; ``imu.vibration.preset``:
    navsense.config.vibration_presets): their keys, nested, {} for none. It lies
    just above the defaults, so the configuration file, the overlay and the options win."""
    layer: dict = {}
    for target, (_, keys, _) in _preset_keys(cfg).items():
        node = layer
        for part in target.split("."):
            node = node.setdefault(part, {})
        node.update(keys)
    return layer


def _file_layers(config_path, overlay_path, vehicle: str) -> list[tuple[dict, str, str]]:
    """The configuration file and the vehicle overlay (the file given, else the vehicle's
    embedded one), read: (layer, source named in errors, origin named by explain_config)."""
    if vehicle not in VEHICLE_OVERLAYS:
        raise ConfigError(
            f"vehicle = {format_value(vehicle)} is not one of {', '.join(VEHICLE_OVERLAYS)}"
        )
    layers: list[tuple[dict, str, str]] = []
    if config_path is not None:
        source = os.fspath(config_path)
        layers.append((read_config_file(config_path), source, f"config file {source}"))
    if overlay_path is not None:
        source = os.fspath(overlay_path)
        layers.append((read_config_file(overlay_path), source, f"vehicle overlay {source}"))
    else:
        embedded = vehicle_overlay(vehicle)
        if embedded is not None:
            layer, source = embedded
            layers.append((layer, source, f"vehicle overlay {source} (embedded, {vehicle})"))
    return layers


def _setter(
    layers: list[tuple[dict, str, str]],
    overrides: Iterable[tuple[str, Mapping]],
    cfg: Mapping | None = None,
):
    """source_of(dotted key) for validate_effective: the last layer that set the key (a file,
    the vehicle overlay, an override layer's label such as ``command line``), else the preset
    that ``cfg`` names and that sets it (``preset tractor_field (imu.vibration)``), else ``the
    defaults``. ``overrides``: the override layers, (label, {dotted key: value}). (A preset's
    random_rms_g under a file's PSD was named ``the defaults``: found by the fuzz helper.)"""
    overrides = list(overrides)
    presets = {
        key: f"preset {name} ({section})"
        for section, (name, keys, _) in (_preset_keys(cfg) if cfg is not None else {}).items()
        for key, _ in leaves(keys, f"{section}.")
    }

    def source_of(path: str) -> str:
        found = next(
            (label for k, label in presets.items() if k == path or k.startswith(path + ".")),
            "the defaults",
        )
        for layer, source, _ in layers:
            if any(k == path or k.startswith(path + ".") for k, _ in leaves(layer)):
                found = source
        for label, override in overrides:
            for key in override:
                k = key.removesuffix("+")
                if k == path or k.startswith(path + ".") or path.startswith(k + "."):
                    found = label
        return found

    return source_of


def leaves(node: Mapping, prefix: str = "") -> list[tuple[str, object]]:
    """The (dotted key, value) pairs of a nested configuration's leaves (arrays are leaves)."""
    out: list[tuple[str, object]] = []
    for key, value in node.items():
        if isinstance(value, Mapping):
            out.extend(leaves(value, f"{prefix}{key}."))
        else:
            out.append((f"{prefix}{key}", value))
    return out


def _warn_overridden(
    config: tuple[dict, str, str], overlay: tuple[dict, str, str], overridden: set[str]
) -> None:
    """One NavsenseWarning for each value of the configuration file that the overlay replaces
    by a different value (the layers' order is the specification's; the user may not know it),
    unless an override sets the key again (``overridden``: its dotted keys and sections)."""
    replaced = dict(leaves(overlay[0]))
    for key, value in leaves(config[0]):
        parts = key.split(".")
        if any(".".join(parts[:i]) in overridden for i in range(1, len(parts) + 1)):
            continue
        if key in replaced and replaced[key] != value:
            warnings.warn(
                f"{config[1]}: {key} = {format_value(value)} is overridden by the vehicle "
                f"overlay {overlay[1]}: {key} = {format_value(replaced[key])} (the order is "
                f"configuration file < vehicle overlay < options; --set {key}=VALUE is applied "
                "over both)",
                NavsenseWarning,
                stacklevel=4,
            )


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


def read_config_file(path: str | os.PathLike) -> dict:
    """The JSON object in the file ``path``; ConfigError naming the path if it cannot be read."""
    from navsense.jsonfile import MAX_INPUT_BYTES, check_input_file

    source = os.fspath(path)
    if not source:  # Path("") is ".": the line named no file (": cannot read ...")
        raise ConfigError("'' is not a file name; give a configuration file (JSON)")
    try:  # a directory, FIFO or device is refused before it is opened
        check_input_file(path, "configuration file", ConfigError, MAX_INPUT_BYTES)
    except ConfigError as e:
        try:
            os.lstat(path)
        except FileNotFoundError:
            raise ConfigError(
                f"{source}: cannot read the configuration file: No such file or directory"
            ) from e
        except (OSError, ValueError):  # its own reason (a name too long, a NUL): e says it
            pass
        raise
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
    from navsense.jsonfile import json_depth_error, long_integer_words

    deep = json_depth_error(text, source, ConfigError)
    if deep is not None:
        raise deep
    try:
        value = json.loads(
            text, object_pairs_hook=_no_duplicate_keys(source), parse_constant=_no_constant(source)
        )
    except json.JSONDecodeError as e:
        # a .toml file given as a configuration (campaign files are TOML, these are not)
        toml = (
            "; a sensor configuration or overlay is JSON (TOML is read for campaign files only)"
            if source.lower().endswith(".toml")
            else ""
        )
        raise ConfigError(
            f"{source}: invalid JSON at line {e.lineno}, column {e.colno}: {e.msg}{toml}"
        ) from None
    except ConfigError:  # a repeated key or NaN, from the hooks
        raise
    except ValueError as e:  # an integer of more than 4300 digits
        raise ConfigError(f"{source}: invalid JSON: {long_integer_words(text, e)}") from None
    if not isinstance(value, dict):
        raise ConfigError(
            f"{source}: the configuration is {format_value(value, 40)}, not a JSON object"
        )
    _check_array_lengths(value, source, "")
    return value


def _check_array_lengths(node: dict, source: str, prefix: str) -> None:
    """No array of the file longer than the schema allows any (its outage windows), checked as
    it is read: merging copies the file's values, and millions of windows took a minute and
    gigabytes before the schema's check named the key."""
    from navsense.config.schema import MAX_INTERVALS

    for key, value in node.items():
        if isinstance(value, dict):
            _check_array_lengths(value, source, f"{prefix}{key}.")
        elif isinstance(value, list) and len(value) > MAX_INTERVALS:
            raise ConfigError(
                f"{source}: {prefix}{key} = {format_value(value[:8])} ... has {len(value)} "
                f"values; a configuration array holds at most {MAX_INTERVALS}"
            )


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


def parse_set(text: str, option: str = "--set") -> tuple[str, object]:
    """``KEY=VALUE`` of ``--set`` as (dotted key, value): the value as JSON when it is JSON
    (``5``, ``true``, ``[0, 0, 1]``, ``"x"``), else the text itself (``cold``,
    ``2026-01-01T00:00:00Z``). The key and the value are checked with the configuration."""
    key, sep, value = text.partition("=") if isinstance(text, str) else ("", "", "")
    key = key.strip()
    if not sep or not key:
        raise ConfigError(
            f"{COMMAND_LINE}: {option} {format_value(text)} is not KEY=VALUE "
            "(such as --set gnss.hz=5 or --set ins.frame=wgs84_g2139)"
        )
    from navsense.jsonfile import json_depth_error

    where = f"{COMMAND_LINE}: {option} {key}"
    deep = json_depth_error(value, where, ConfigError)
    if deep is not None:  # the parser recurses per level
        raise deep
    try:
        parsed = json.loads(
            value, object_pairs_hook=_no_duplicate_keys(where), parse_constant=_refuse_constant
        )
    except ConfigError:  # a key twice in one object (the hook)
        raise
    except ValueError:  # not JSON: the text (a string value)
        parsed = value
    return key, parsed


def _refuse_constant(name: str):
    raise ValueError(name)
