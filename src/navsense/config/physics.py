"""The physics clock's key, ``physics.hz`` (issue 30 item 1), and the cross-key check of the
sensors' rates against it (:func:`rates_above_physics`); navsense.config.keys puts the section
in the table of keys."""

from __future__ import annotations

from collections.abc import Mapping

from navsense.config.fields import PHYSICS_HZ_RANGE, Field, Section

__all__ = ["PHYSICS_SECTION", "rates_above_physics"]

#: physics.hz: 120 Hz, the specification's clock, by default
PHYSICS_SECTION = Section(
    {
        "hz": Field(
            "number",
            minimum=PHYSICS_HZ_RANGE[0],
            maximum=PHYSICS_HZ_RANGE[1],
            extension=True,
            chosen="120: the specification's clock; physics simulators step at 50 Hz to "
            "1 kHz, real IMUs sample at up to 2 kHz",
            default=120,
        )
    },
    in_sensors_json=False,
)


def rates_above_physics(cfg: Mapping, physics_hz: float | None = None) -> list[str]:
    """The enabled sensors' rates above the physics rate (``physics_hz``, else the
    configuration's physics.hz), one text each: ``imu.hz = 400 is above the physics rate,
    120 Hz (physics.hz): ...``; and the configurable IMU's output low-pass
    (imu.configurable.bandwidth_hz) at or above half the physics rate, where the discrete
    filter has no such frequency.

    The specification's Due rule samples at most once a physics step, so a sensor faster than
    the clock would silently run at the clock's rate: refused instead (issue 30, ruling). A
    disabled sensor's rate is not checked (the INS's default 100 Hz on a 50 Hz clock)."""
    rate = float(physics_hz if physics_hz is not None else cfg["physics"]["hz"])
    out = []
    for name, section in cfg.items():
        if not isinstance(section, Mapping) or name == "physics" or "hz" not in section:
            continue
        if section.get("enabled", True) and float(section["hz"]) > rate:
            out.append(
                f"{name}.hz = {section['hz']:g} is above the physics rate, {rate:g} Hz "
                "(physics.hz): a sensor samples at most once a physics step"
            )
    imu = cfg.get("imu")
    vib = (imu or {}).get("vibration") or {}
    level = [*(vib.get("random_psd_g2_per_hz") or ()), *(vib.get("random_rms_g") or ())]
    if imu and imu.get("enabled") and any(level):
        lo, hi = vib["random_band_hz"]
        # a band-pass from 0 Hz has no lower edge; one below 0.1 Hz is motion, not vibration, and
        # its filter's impulse response (summed to scale random_rms_g) lasts millions of steps
        if not 0.1 <= lo < hi < 0.5 * rate:
            out.append(
                f"imu.vibration.random_band_hz = [{lo:g}, {hi:g}] is not 0.1 <= low < high < half "
                f"the physics rate, {0.5 * rate:g} Hz (physics.hz): the random vibration is made "
                "on the physics clock"
            )
    bandwidth = ((imu or {}).get("configurable") or {}).get("bandwidth_hz") or 0
    if imu and imu.get("enabled") and imu.get("model") == "configurable" and bandwidth:
        if float(bandwidth) >= 0.5 * rate:  # the low-pass runs on the physics clock
            out.append(
                f"imu.configurable.bandwidth_hz = {bandwidth:g} is not below half the physics "
                f"rate, {0.5 * rate:g} Hz (physics.hz): the output low-pass runs on the "
                "physics clock"
            )
    return out
