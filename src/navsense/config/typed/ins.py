"""The ``ins`` section as the INS model takes it (CoreSimIns.h FInsConfig).

Built by :meth:`InsConfig.from_validated` from the effective configuration
(navsense.config.load_config), whose schema (navsense.config.schema, section ``ins``) has
checked every key: the conversion checks nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from navsense.config.typed.keyed import build, key

__all__ = ["InsConfig", "InsDriftConfig"]


@dataclass(frozen=True)
class InsDriftConfig:
    """``ins.drift``: the inertial error model of the dead-reckoning INS (navsense extension,
    issue 19; navsense.sensors.ins_aiding), in the datasheet's units of its names."""

    velocity_sigma_mps: float
    tilt_sigma_deg: float
    accel_bias_ug: float
    gyro_bias_deg_per_h: float
    accel_vrw_mps_per_sqrt_h: float
    gyro_arw_deg_per_sqrt_h: float

    @classmethod
    def from_validated(cls, drift: Mapping) -> InsDriftConfig:
        """From the validated, complete ``ins.drift`` block (its defaults: navsense.config.keys)."""
        return build(cls, drift, root_path="ins.drift")


@dataclass(frozen=True)
class InsConfig:
    """FInsConfig: the ``ins`` block with the ``seed`` and ``noise`` of the configuration.

    Units in the names (specification "INS" table); ``frame`` nad83 | wgs84_g2139; ``utm_zone``
    1..60. ``mount_frame`` is always base_footprint: FInsConfig's point is "in base_footprint
    FLU, m" whatever the other mounts' frame (so the Maxxum's INS reports base_footprint too).
    ``earth`` is imu.earth (one key for every IMU reading, the INS's rate and force included).
    """

    enabled: bool
    hz: float
    position_flu_m: tuple[float, float, float]
    position_sigma_m: float
    position_tau_s: float
    position_white_m: float
    heading_sigma_deg: float
    attitude_sigma_deg: float
    velocity_white_mps: float
    accel_white_mps2: float
    gyro_white_radps: float
    frame: str
    utm_zone: int
    seed: int = field(metadata=key("seed"))
    noise: bool = field(metadata=key("noise"))
    earth: str = field(metadata=key("imu.earth"))
    aiding: str  # navsense extension (issue 19): none | gnss
    aiding_tau_s: float  # the loosely coupled filter's time constant, s
    drift: InsDriftConfig
    mount_frame: str = "base_footprint"

    @classmethod
    def from_validated(cls, cfg: Mapping) -> InsConfig:
        """From the effective configuration: its ``ins`` block, ``seed`` and ``noise``."""
        return build(cls, cfg, "ins", drift=InsDriftConfig.from_validated(cfg["ins"]["drift"]))
