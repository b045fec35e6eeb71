"""The physics clock's key, ``physics.hz`` (issue 30 item 1), and the cross-key check of the
sensors' rates against it (:func:`rates_above_physics`); navsense.config.keys puts the section
in the table of keys."""

from __future__ import annotations

from collections.abc import Mapping

from navsense.config.fields import PHYSICS_HZ_RANGE, Field, Section

__all__ = ["PHYSICS_SECTION", "rates_above_physics", "BAND_MARGIN_HZ", "advice"]

#: the random vibration's band: its low edge at least this far above 0 Hz, its high edge this far
#: above the low one and below half the physics rate (rates_above_physics)
BAND_MARGIN_HZ = 0.1

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
                f"{name}.hz = {section['hz']:.12g} is above the physics rate, {rate:.12g} Hz "
                "(physics.hz): a sensor samples at most once a physics step"
            )
    imu = cfg.get("imu")
    vib = (imu or {}).get("vibration") or {}
    level = [*(vib.get("random_psd_g2_per_hz") or ()), *(vib.get("random_rms_g") or ())]
    if imu and imu.get("enabled") and any(level):
        lo, hi = vib["random_band_hz"]
        # a band-pass from 0 Hz has no lower edge; one below 0.1 Hz is motion, not vibration, and
        # its filter's impulse response (summed to scale random_rms_g) lasts millions of steps.
        # Ruling: the edges are also BAND_MARGIN_HZ apart and below half the rate by as much: a
        # narrower band or an edge nearer half the rate puts the second-order band-pass's poles
        # on or past the unit circle in its (b, a) form (at 120 Hz [0.1, 0.10000001] and
        # [59.9, 59.99999999] ended in an internal error), where 0.1 Hz keeps every pole within
        # 1 - 7.6e-5 (its impulse response under 480 000 steps at 2 kHz)
        half = 0.5 * rate
        if not (lo >= BAND_MARGIN_HZ and lo + BAND_MARGIN_HZ <= hi <= half - BAND_MARGIN_HZ):
            out.append(
                f"imu.vibration.random_band_hz = [{lo:.12g}, {hi:.12g}] is not 0.1 <= low < high "
                f"< half the physics rate, {half:g} Hz (physics.hz), with the edges at least "
                f"{BAND_MARGIN_HZ:g} Hz apart and below {half - BAND_MARGIN_HZ:g} Hz: the random "
                "vibration is made on the physics clock"
            )
    bandwidth = ((imu or {}).get("configurable") or {}).get("bandwidth_hz") or 0
    if imu and imu.get("enabled") and imu.get("model") == "configurable" and bandwidth:
        # the low-pass runs on the physics clock. Ruling: 0.1 Hz at least and 0.1 Hz below half
        # the rate at most (BAND_MARGIN_HZ, as the vibration's band): at 120 Hz 1e-7 Hz ended in
        # scipy's 'Singular matrix' as an internal error, at 2 kHz 1e-5 Hz had a gain of 1.11 at
        # 0 Hz and 999.999999 Hz a pole past the unit circle; within these edges the gain at 0 Hz
        # is 1 to 1e-10 and every pole within 1 - 2.3e-4
        half = 0.5 * rate
        if not BAND_MARGIN_HZ <= float(bandwidth) <= half - BAND_MARGIN_HZ:
            out.append(
                f"imu.configurable.bandwidth_hz = {bandwidth:.12g} is not 0 (no filter) or "
                f"{BAND_MARGIN_HZ:g} Hz up to {BAND_MARGIN_HZ:g} Hz below half the physics rate, "
                f"{half:g} Hz (physics.hz): the output low-pass runs on the physics clock"
            )
    return out


def advice(message: str) -> str:
    """What to do about a text of :func:`rates_above_physics`: a rate above the physics rate is
    lowered or the clock raised; a band or a filter's edge may be wrong either way (0.05 Hz is
    below its 0.1 Hz), so it is changed."""
    if " is above the physics rate" in message:
        return "lower it or raise the physics rate"
    return "change it, or the physics rate"
