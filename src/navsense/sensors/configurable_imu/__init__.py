"""The configurable IMU: Basilisk's imuSensor (``BasiliskImu``) and a navsense IMU with every
common error term (``ConfigurableImuModel``).

Modules, one job each: :mod:`.error_terms` (Gauss-Markov error states, quantisation,
saturation: the order of the error terms), :mod:`.basilisk` (the drop-in for Basilisk's
``imuSensor.ImuSensor``, Basilisk's names kept), :mod:`.model` (the navsense sensor model over
truth chunks). Its configuration is ``navsense.config.typed.configurable_imu``; its DCM helpers
are in ``navsense.rotation``; its rows in ``navsense.output.layouts.imu``.
"""

from navsense.sensors.configurable_imu.basilisk import (
    BASILISK_ACCEL_SEQUENCE,
    BASILISK_DEFAULT_SEED,
    BASILISK_GYRO_SEQUENCE,
    BasiliskImu,
)
from navsense.sensors.configurable_imu.error_terms import (
    IMU_STREAM_SEED_OFFSET,
    ROUND_FROM_ZERO,
    ROUND_NEAR,
    ROUND_TO_ZERO,
    GaussMarkov,
    Quantizer,
    apply_imu_errors,
)
from navsense.sensors.configurable_imu.model import (
    CONFIGURABLE_ACCEL_SEQUENCE,
    CONFIGURABLE_GYRO_SEQUENCE,
    ConfigurableImuModel,
)

__all__ = [
    "ROUND_TO_ZERO",
    "ROUND_FROM_ZERO",
    "ROUND_NEAR",
    "GaussMarkov",
    "Quantizer",
    "apply_imu_errors",
    "BasiliskImu",
    "ConfigurableImuModel",
    "IMU_STREAM_SEED_OFFSET",
    "BASILISK_ACCEL_SEQUENCE",
    "BASILISK_GYRO_SEQUENCE",
    "CONFIGURABLE_ACCEL_SEQUENCE",
    "CONFIGURABLE_GYRO_SEQUENCE",
    "BASILISK_DEFAULT_SEED",
]
