"""The ``ins`` section as the INS model takes it (CoreSimIns.h FInsConfig).

Built by :meth:`InsConfig.from_validated` from the effective configuration
(navsense.config.load_config), whose schema (navsense.config.schema, section ``ins``) has
checked every key: the conversion checks nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

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
        """From the validated, complete ``ins.drift`` block (its defaults: code_defaults.json)."""
        return cls(**{k: float(drift[k]) for k in cls.__dataclass_fields__})


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
    seed: int
    noise: bool
    earth: str
    aiding: str  # navsense extension (issue 19): none | gnss
    aiding_tau_s: float  # the loosely coupled filter's time constant, s
    drift: InsDriftConfig
    mount_frame: str = "base_footprint"

    @classmethod
    def from_validated(cls, cfg: Mapping) -> InsConfig:
        """From the effective configuration: its ``ins`` block, ``seed`` and ``noise``."""
        ins = cfg["ins"]
        x, y, z = (float(v) for v in ins["position_flu_m"])
        return cls(
            enabled=bool(ins["enabled"]),
            hz=float(ins["hz"]),
            position_flu_m=(x, y, z),
            position_sigma_m=float(ins["position_sigma_m"]),
            position_tau_s=float(ins["position_tau_s"]),
            position_white_m=float(ins["position_white_m"]),
            heading_sigma_deg=float(ins["heading_sigma_deg"]),
            attitude_sigma_deg=float(ins["attitude_sigma_deg"]),
            velocity_white_mps=float(ins["velocity_white_mps"]),
            accel_white_mps2=float(ins["accel_white_mps2"]),
            gyro_white_radps=float(ins["gyro_white_radps"]),
            frame=str(ins["frame"]),
            utm_zone=int(ins["utm_zone"]),
            seed=int(cfg["seed"]),
            noise=bool(cfg["noise"]),
            earth=str(cfg["imu"]["earth"]),
            aiding=str(ins["aiding"]),
            aiding_tau_s=float(ins["aiding_tau_s"]),
            drift=InsDriftConfig.from_validated(ins["drift"]),
        )
