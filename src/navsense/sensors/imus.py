"""The IMU of a run: the ACRES IMU (``imu.model`` "acres", navsense.sensors.imu) or the
configurable IMU ("configurable", navsense extension, navsense.sensors.configurable_imu).

One builder for the suite's one ``imu`` entry (navsense.suite.SENSORS["imu"]): both models
write ``imu.jsonl`` with the same layout.
"""

from __future__ import annotations

from typing import Any

__all__ = ["build_model"]


def build_model(context) -> Any:
    """The IMU that ``imu.model`` names (``context`` a navsense.suite.ModelContext)."""
    cfg = context.cfg
    if cfg["imu"]["model"] == "configurable":
        from navsense.config.typed.configurable_imu import ConfigurableImuConfig
        from navsense.sensors.configurable_imu import ConfigurableImuModel

        config = ConfigurableImuConfig.from_validated(cfg)
        return ConfigurableImuModel(config, context.vehicle, context.georef)
    from navsense.config.typed.imu import ImuConfig
    from navsense.sensors.imu import ImuModel

    return ImuModel(ImuConfig.from_validated(cfg), context.vehicle, context.georef)
