"""The IMU's vibration keys, ``imu.vibration`` (issue 30 item 2): sines, a random band and
an engine's orders added to the specific force and rate at the IMU point on the physics clock
(navsense.sensors.vibration), and the presets that set them (``preset``:
navsense.config.vibration_presets, a layer just above the defaults, navsense.config.load);
navsense.config.keys puts the section in the IMU section."""

from __future__ import annotations

from collections.abc import Mapping

from navsense.config.fields import Field, Section
from navsense.config.vibration_presets import VIBRATION_PRESETS

__all__ = ["VIBRATION_SECTION", "one_random_level"]


def one_random_level(vib: Mapping):
    """The random vibration's level is given once: a PSD (random_psd_g2_per_hz) or its RMS over
    the band (random_rms_g), not both (a preset sets the RMS: an explicit PSD over it is a
    choice between the two the user makes by zeroing one)."""
    psd, rms = vib.get("random_psd_g2_per_hz") or (), vib.get("random_rms_g") or ()
    if any(psd) and any(rms):
        return (
            "random_rms_g",
            list(rms),
            f"and random_psd_g2_per_hz = {list(psd)} are both set: the random vibration's "
            "level is one of them (set the other to [0, 0, 0])",
        )
    return None


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
        "random_rms_g": Field(
            "vector",
            length=3,
            minimum=0,
            maximum=100,
            extension=True,
            chosen="RMS of the random vibration over its band on the IMU's x, y, z axes, g "
            "(instead of a PSD; shock test levels stay below 100 g); 0: none",
            default=[0, 0, 0],
        ),
        "random_band_hz": Field(
            "vector",
            length=2,
            minimum=0,
            extension=True,
            chosen="[low, high] edges of the random vibration's band, Hz, 0.1 <= low < high "
            "< half the physics rate, 0.1 Hz apart and from it (checked when a level is set)",
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
        "preset": Field(
            "enum",
            choices=("none", *VIBRATION_PRESETS),
            extension=True,
            chosen="the vibration of a vehicle with its sources "
            "(navsense.config.vibration_presets), under the explicit keys",
            default="none",
        ),
    },
    final_checks=(one_random_level,),  # the preset's RMS and a file's PSD: two layers
)
