"""Layouts: how a model's epochs become rows, sentences and frames (DESIGN.md "Data flows one way").

A sensor model returns its sampled epochs as SI arrays (a block: a dict of arrays with a leading
axis m, always with ``sample_time_s``) and, once per run, its plain ``output_info()``; a layout
turns them into what the writers write:

- ``columns(block) -> list[Column]``: the row keys (dotted names, values rounded to the row's
  decimals, validity masks for nulls), from which JSON Lines rows and Parquet columns are built;
- ``extra(block)``: what the model adds beside its rows (the NMEA sentences of ``gnss.nmea``, the
  40-value frames of ``ins.frames``), or None.

A layout never imports a model; a model never imports ``navsense.output``. :func:`layout_for`
finds the layout of a model by its name: the ``layout`` of its record in navsense.suite.SENSORS
(``"module:Class"``, built with the model's ``output_info()``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from navsense.output.columns import Column
from navsense.suite import SENSORS, resolve

__all__ = ["Layout", "layout_for"]


class Layout(Protocol):
    """The output layout of one sensor in one run."""

    def columns(self, block: Mapping[str, Any]) -> list[Column]: ...

    def extra(self, block: Mapping[str, Any]) -> Any: ...


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
    """The layout of ``model`` (its record's in navsense.suite.SENSORS, by ``model.name``), built
    from ``model.output_info()``."""
    sensor = SENSORS.get(model.name)
    if sensor is None:
        return _ModelLayout(model)
    return resolve(sensor.layout)(model.output_info())
