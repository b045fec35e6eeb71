"""Layouts: how a model's epochs become rows, sentences and frames (DESIGN.md "Data flows one way").

A sensor model returns its sampled epochs as SI arrays (a block: a dict of arrays with a leading
axis m, always with ``sample_time_s``) and, once per run, its plain ``output_info()``; a layout
turns them into what the writers write:

- ``columns(block) -> list[Column]``: the row keys (dotted names, values rounded to the row's
  decimals, validity masks for nulls), from which JSON Lines rows and Parquet columns are built;
- ``extra(block)``: what the model adds beside its rows (the NMEA sentences of ``gnss.nmea``, the
  40-value frames of ``ins.frames``), or None.

A layout never imports a model; a model never imports ``navsense.output``. :func:`layout_for`
finds the layout of a model by its name.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any, Protocol

from navsense.output.columns import Column

__all__ = ["Layout", "layout_for", "LAYOUTS"]


class Layout(Protocol):
    """The output layout of one sensor in one run."""

    def columns(self, block: Mapping[str, Any]) -> list[Column]: ...

    def extra(self, block: Mapping[str, Any]) -> Any: ...


# model name -> "module:class"; the class is built with the model's output_info() dict
LAYOUTS: dict[str, str] = {
    "gnss": "navsense.output.layouts.gnss:GnssLayout",
    "ins": "navsense.output.layouts.ins:InsLayout",
    "imu": "navsense.output.layouts.imu:ImuLayout",
    "mag": "navsense.output.layouts.mag:MagLayout",
    "baro": "navsense.output.layouts.baro:BaroLayout",
    "odom": "navsense.output.layouts.odom:OdomLayout",
}


class _ModelLayout:
    """A model that still formats its own rows (until its layout moves here)."""

    def __init__(self, model: Any) -> None:
        self._model = model

    def columns(self, block: Mapping[str, Any]) -> list[Column]:
        return self._model.columns(block)

    def extra(self, block: Mapping[str, Any]) -> Any:
        if hasattr(self._model, "frames"):
            return self._model.frames(block)
        return None


def layout_for(model: Any) -> Layout:
    """The layout of ``model`` (by ``model.name``), built from ``model.output_info()``."""
    target = LAYOUTS.get(model.name)
    if target is None:
        return _ModelLayout(model)
    module, cls = target.split(":")
    return getattr(importlib.import_module(module), cls)(model.output_info())
