"""Applying a receiver preset (``gnss.receiver``) to a validated configuration.

The presets themselves are plain data in navsense.config.receiver_presets (their figures,
sources, the fix states they reach and the ruling "a preset under the configuration"); this
module applies one. It sits above navsense.config.defaults because a preset's value replaces a
key only where the configuration holds the key's default, so the table of keys
(navsense.config.keys, which names the presets as the choices of ``gnss.receiver``) never
imports the default layers back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from navsense.config.defaults import all_defaults
from navsense.config.receiver_presets import PRESETS, preset_values

__all__ = ["resolve_receiver"]


def resolve_receiver(cfg: Mapping[str, Any]) -> tuple[Mapping[str, Any], str]:
    """``(cfg with the preset's values, reach)`` for the validated ``cfg``.

    ``reach`` is the highest state class the receiver can reach (receiver_presets.REACH): "rtk"
    for the specification's receiver. A preset's value replaces a key only where ``cfg`` holds
    the specification's default (sensors.json, or the code's default for an extension key):
    receiver_presets' ruling "a preset under the configuration".
    """
    name = cfg["gnss"]["receiver"]
    if name == "acres":
        return cfg, "rtk"
    defaults = all_defaults()
    out = _copy_gnss(cfg)
    for key, value in preset_values(name).items():
        *parents, leaf = key.split(".")
        node, default = out, defaults
        for part in parents:
            node, default = node[part], default[part]
        if node[leaf] == default[leaf]:
            node[leaf] = value
    return out, PRESETS[name]["reach"]


def _copy_gnss(cfg: Mapping[str, Any]) -> dict:
    """A copy of ``cfg`` whose gnss section (nested dicts) may be changed."""

    def copy(node):
        return {k: copy(v) if isinstance(v, Mapping) else v for k, v in node.items()}

    return {**cfg, "gnss": copy(cfg["gnss"])}
