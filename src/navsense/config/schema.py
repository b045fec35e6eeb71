"""The schema of the sensor configuration, and its validator (specification "Parameters").

The schema is data: a tree of :class:`Section` objects whose leaves are :class:`Field` objects
(navsense.config.fields), the table :data:`SCHEMA` (navsense.config.keys, where each key is
written once with its range and default). The validator walks any such tree, so a later sensor
adds its configuration by adding a section to the table, never by adding a code path.

:func:`describe_keys` lists every key; ``navsense config keys`` prints that list.
:func:`defaults` gives the default layers the table holds.

Every error is a :class:`~navsense.errors.ConfigError` of the form
``<source>: <dotted.key> = <value> <what is wrong and what is allowed>``, for example
``sensors.json: gnss.hz = 2400 is out of range 1..2000``.
"""

from __future__ import annotations

import difflib
import json
import numbers
from collections.abc import Callable, Iterator, Mapping

import numpy as np

from navsense.config.fields import (
    BOOLEAN,
    FINITE,
    KINDS,
    LIST_KINDS,
    MAGNITUDE_LIMIT,
    MAX_INTERVALS,
    NO_DEFAULT,
    RATE_HZ,
    VECTOR3_M,
    Field,
    Section,
    enum,
    nonnegative,
    positive,
)
from navsense.config.keys import NMEA_SENTENCES, SCHEMA
from navsense.errors import ConfigError

__all__ = [
    "validate_effective",
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
    "defaults",
    "KINDS",
    "LIST_KINDS",
    "MAGNITUDE_LIMIT",
    "MAX_INTERVALS",
    "BOOLEAN",
    "RATE_HZ",
    "VECTOR3_M",
    "FINITE",
    "nonnegative",
    "positive",
    "enum",
    "NMEA_SENTENCES",
]

# --------------------------------------------------------------------------------------------
# Messages.


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
    given on its own, as ``navsense.config.typed.datum.datum_config`` takes it); messages name the full key
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
        if isinstance(complaint, tuple):  # (a key of the section, its value, the complaint)
            key, item, text = complaint
            raise _error(source, _join(path, key), item, text)
        if complaint:
            raise _error(source, path, dict(value), complaint)


def validate_effective(
    cfg: Mapping, source_of: Callable[[str], str], schema: Section = SCHEMA, path: str = ""
) -> None:
    """Run the sections' ``final_checks`` on the effective configuration ``cfg`` (validated):
    the checks of keys that different layers may set, which no single layer can be refused
    for. A complaint names the key (``(key, value, text)``, or the section) and
    ``source_of(dotted key)`` names the layer that set it (the file, ``command line``)."""
    for check in schema.final_checks:
        complaint = check(cfg)
        if isinstance(complaint, tuple):
            key, item, text = complaint
            raise _error(source_of(_join(path, key)), _join(path, key), item, text)
        if complaint:
            raise _error(source_of(path), path, dict(cfg), complaint)
    for key, node in schema.fields.items():
        if isinstance(node, Section) and isinstance(cfg.get(key), Mapping):
            validate_effective(cfg[key], source_of, node, _join(path, key))


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


# --------------------------------------------------------------------------------------------
# Defaults.


def defaults(layer: str | None = None, schema: Section = SCHEMA) -> dict:
    """The defaults of ``schema`` as a nested plain dict (arrays as lists), keys in its order.

    ``layer`` picks a default layer: ``"sensors.json"`` the keys of the specification's
    sensors.json (neither a navsense extension nor in a section marked ``in_sensors_json``
    false: the INS table's "Code" column), ``"code"`` every other key; None every key.
    Sections left empty are left out. ValueError names a field that has no default.
    """
    return _defaults(schema, "", layer, True)


def _defaults(section: Section, path: str, layer: str | None, in_file: bool) -> dict:
    out: dict = {}
    in_file = in_file and section.in_sensors_json
    for key, node in section.fields.items():
        p = _join(path, key)
        if isinstance(node, Section):
            block = _defaults(node, p, layer, in_file)
            if block:
                out[key] = block
            continue
        if node.default is NO_DEFAULT:
            raise ValueError(f"the configuration key {p} has no default")
        if layer is None or (layer == "sensors.json") == (in_file and not node.extension):
            out[key] = _json_value(node.default)
    return out


def _json_value(value):
    """A default as JSON holds it: tuples as lists."""
    return [_json_value(x) for x in value] if isinstance(value, tuple) else value
