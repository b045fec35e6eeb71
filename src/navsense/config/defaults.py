"""The default layers (specification "Parameters", "INS" and "Command-Line Options").

Every key's default is written once, in the table of keys (navsense.config.keys); the two
default layers are derived from it:

``sensors.json`` (:func:`sensors_defaults`)
    The specification's ``Acres/Content/Simulation/sensors.json``: the "Default" column of the
    tables Common Keys, GNSS Receiver (with ``gnss.states``, ``rtk``, ``corrections``,
    ``obstruction``, ``datum`` with ``geoid`` and ``helmert_itrf2014_to_nad83_2011``) and IMU.
    It has no ``ins`` block, as the specification says.
the code's defaults (:func:`code_defaults`)
    What the code assumes for keys that ``sensors.json`` does not set: the INS table's "Code"
    column (``ins.enabled`` false, ``ins.velocity_white_mps`` 0.01, ...), the navsense
    extension ``noise`` (true; false is ``-SensorNoNoise``) and the other extension keys
    (``gnss.nmea.sentences``, the ``mag``, ``baro`` and ``odom`` blocks, ``imu.model``, ...).
    These lie under ``sensors.json``, so the effective configuration always has a complete
    ``ins`` block, and a partial ``ins`` block in an overlay takes the "Code" value for every
    key it leaves out.

One file ships next to this module: ``sensors_polaris.json``, the Polaris overlay
(``mount_frame`` base_footprint, ``gnss.antenna_flu_m`` [1.1, 0, 2.15], ``imu.position_flu_m``
[0.95, -0.45, 0.7] and the ``ins`` block with the INS table's "Default" column). The vehicle
overlays: ``polaris`` uses it; ``maxxum`` has none.
"""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Mapping
from pathlib import Path

from navsense.config.schema import defaults

__all__ = [
    "VEHICLE_OVERLAYS",
    "sensors_defaults",
    "code_defaults",
    "all_defaults",
    "complete_recorded_config",
    "deep_merge",
    "vehicle_overlay",
    "read_embedded",
]

#: vehicle name -> name of its embedded overlay file (None: no overlay).
VEHICLE_OVERLAYS: dict[str, str | None] = {
    "polaris": "sensors_polaris.json",
    "maxxum": None,
}


@functools.cache
def _parsed(name: str) -> dict:
    if name in _LAYERS:
        return defaults(_LAYERS[name])
    return json.loads((Path(__file__).parent / name).read_text(encoding="utf-8"))


#: the default layers by the name they go by (errors, ``config show --explain``)
_LAYERS = {"sensors.json": "sensors.json", "code_defaults.json": "code"}


def read_embedded(name: str) -> dict:
    """A fresh copy of the embedded layer ``name`` (``sensors.json``, ``code_defaults.json``,
    derived from the table of keys; ``sensors_polaris.json``, a file)."""
    return copy.deepcopy(_parsed(name))


def sensors_defaults() -> dict:
    """The specification's ``sensors.json`` (no ``ins`` block, no ``noise``)."""
    return read_embedded("sensors.json")


def code_defaults() -> dict:
    """The keys the code assumes without a file: ``noise``, the INS "Code" column and the
    navsense extensions."""
    return read_embedded("code_defaults.json")


def all_defaults() -> dict:
    """Every key's default: the code's defaults under sensors.json, keys in the schema's order."""
    return copy.deepcopy(_all())


@functools.cache
def _all() -> dict:
    return defaults()


def complete_recorded_config(recorded: dict) -> dict:
    """The configuration a run used, from the ``config`` its episode.json records.

    episode.json leaves out the extension keys that hold their default (navsense.simulate's
    ``_recorded_config``: ``gnss.signal_outages_s`` empty, ``imu.earth`` none, the aided INS's keys
    with ``ins.aiding`` none), and a run written before navsense had a key does not name it
    either; both ran with the code's default. So every key the record lacks takes the defaults
    under every configuration (``code_defaults.json``, then ``sensors.json``), and every key it
    has keeps its recorded value. (A run older than ``gnss.nmea.sentences`` then reads as the
    default sentence set; its gnss.nmea holds GGA alone: only the files tell.)
    """
    return deep_merge(_all(), recorded)


def deep_merge(base: Mapping, layer: Mapping) -> dict:
    """A new dict: ``layer`` over ``base``, objects merged key by key, anything else replaced."""
    out = copy.deepcopy(dict(base))
    for key, value in layer.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def vehicle_overlay(vehicle: str) -> tuple[dict, str] | None:
    """``(overlay, file name)`` of the embedded overlay of ``vehicle``, or None if it has none.

    The caller checks the name against :data:`VEHICLE_OVERLAYS` first (KeyError otherwise).
    """
    name = VEHICLE_OVERLAYS[vehicle]
    return None if name is None else (read_embedded(name), name)
