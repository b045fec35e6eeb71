"""The IMU's vibration keys, ``imu.vibration`` (issue 30 item 2): sines, a random band and
an engine order added to the specific force and rate at the IMU point on the physics clock
(navsense.sensors.vibration); navsense.config.keys puts the section in the IMU section."""

from __future__ import annotations

from navsense.config.fields import Field, Section

__all__ = ["VIBRATION_SECTION"]

#: imu.vibration: every key off (no vibration) by default
VIBRATION_SECTION = Section(
    {
        "sines": Field(
            "sines",
            extension=True,
            chosen="sines of the specific force and rate in the IMU's axes, added on "
            "the physics clock before the IMU samples; [] none",
            default=[],
        ),
        "random_psd_g2_per_hz": Field(
            "vector",
            length=3,
            minimum=0,
            extension=True,
            chosen="one-sided acceleration PSD on the IMU's x, y, z axes within the "
            "band, g^2/Hz (a power is not negative); 0: none",
            default=[0, 0, 0],
        ),
        "random_band_hz": Field(
            "vector",
            length=2,
            minimum=0,
            extension=True,
            chosen="[low, high] edges of the random vibration's band, Hz, low < high "
            "< half the physics rate",
            default=[10, 100],
        ),
        "engine_idle_rpm": Field(
            "number",
            minimum=0,
            extension=True,
            chosen="the engine's speed at rest, rpm; 0 with engine_rpm_per_mps 0: no "
            "engine vibration",
            default=0,
        ),
        "engine_rpm_per_mps": Field(
            "number",
            minimum=0,
            extension=True,
            chosen="engine rpm per m/s of the vehicle's speed: overall gear ratio x 60 "
            "/ (2 pi wheel radius)",
            default=0,
        ),
        "engine_order": Field(
            "number",
            minimum=0,
            min_open=True,
            extension=True,
            chosen="the order of the engine's rotation: 2 is a 4-cylinder four-stroke "
            "engine's firing; > 0",
            default=2,
        ),
        "engine_accel_mps2": Field(
            "vector",
            length=3,
            extension=True,
            chosen="amplitude of the order's specific force on the IMU's x, y, z, m/s^2",
            default=[0, 0, 0],
        ),
        "engine_orders": Field(
            "engine_orders",
            extension=True,
            chosen="more orders of the same engine, each its own amplitude, added to "
            "engine_order's; [] none",
            default=[],
        ),
    }
)
