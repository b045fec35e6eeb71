"""Typed sections read from the table of keys: each field of a frozen dataclass reads one key
of the validated configuration, converted by that key's kind (navsense.config.keys), so a key's
type, range and default are written once, in the table, and a dataclass only names its fields.

A field reads the key of its own name in the dataclass's ``section``, or the key that
:func:`key` names (``seed: int = field(metadata=key("seed"))``; a path from the mapping read); a field with a
default value of its own, or given to :func:`build`, reads nothing. Conversion by kind: number
float, integer int, boolean bool, enum and utc str, vector a tuple of floats, intervals a tuple
of (float, float) pairs, enum_list a tuple of str, a nullable key's null None. Nothing is
checked (the schema did) and nothing is defaulted: a key left out is a KeyError naming it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, TypeVar

from navsense.config.fields import Field, Section
from navsense.config.schema import lookup

__all__ = ["key", "section", "build", "convert"]

T = TypeVar("T")


def key(path: str) -> dict[str, str]:
    """The metadata of a dataclass field that reads the dotted key ``path`` (from the mapping
    :func:`build` reads): ``seed: int = field(metadata=key("seed"))``."""
    return {"key": path}


def section(path: str) -> Section:
    """The section of the schema at the dotted ``path``."""
    node = lookup(path)
    if not isinstance(node, Section):
        raise TypeError(f"{path} is a key, not a section")
    return node


def convert(node: Field, value: Any) -> Any:
    """``value`` of a validated key of kind ``node.kind`` as its Python type (module docstring)."""
    if value is None:
        return None
    kind = node.kind
    if kind == "number":
        return float(value)
    if kind == "integer":
        return int(value)
    if kind == "boolean":
        return bool(value)
    if kind == "vector":
        return tuple(float(x) for x in value)
    if kind == "intervals":
        return tuple((float(a), float(b)) for a, b in value)
    if kind == "enum_list":
        return tuple(str(x) for x in value)
    if kind == "sines":  # (hz, accel x y z, gyro x y z), a missing amplitude zero
        zero = (0.0, 0.0, 0.0)
        return tuple(
            (
                float(s["hz"]),
                tuple(float(x) for x in s.get("accel_mps2", zero)),
                tuple(float(x) for x in s.get("gyro_radps", zero)),
            )
            for s in value
        )
    if kind == "engine_orders":  # (order, accel x y z)
        return tuple((float(o["order"]), tuple(float(x) for x in o["accel_mps2"])) for o in value)
    return str(value)  # enum, utc


def _join(*parts: str) -> str:
    return ".".join(p for p in parts if p)


def build(cls: type[T], root: Mapping, section: str = "", root_path: str = "", **given: Any) -> T:
    """``cls`` from the validated mapping ``root`` (the configuration, or its block at the
    schema path ``root_path``): a field reads ``section.<name>`` of ``root``, or its :func:`key`;
    ``given`` sets fields outright (a computed or nested value)."""
    kw = dict(given)
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if f.name in kw:
            continue
        path = f.metadata.get("key")
        if path is None:
            if f.default is not dataclasses.MISSING:
                continue
            path = _join(section, f.name)
        value: Any = root
        for name in path.split("."):
            value = value[name]
        node = lookup(_join(root_path, path))
        if not isinstance(node, Field):
            raise TypeError(f"{_join(root_path, path)} is a section, not a key")
        kw[f.name] = convert(node, value)
    return cls(**kw)
