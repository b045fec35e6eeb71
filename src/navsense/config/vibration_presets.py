"""Presets of the vibration at the IMU (``imu.vibration.preset``, issue 30 item 2), with their
sources: the ``imu.vibration`` keys each preset sets, put by navsense.config.load in a layer just
above the defaults (an explicit key of a file or an option wins), as ``baro.preset`` does.

Axes are the IMU's (FLU: x longitudinal, y transverse, z vertical). The random part is given
as its RMS over its band (``random_rms_g``, navsense.sensors.vibration: the band-passed noise's
RMS is exactly this at any physics rate), because the sources give an RMS, not a spectrum
navsense could reproduce; where a source gives a spectrum over a band, the band is its band.

Ruling (issue 30 item 2), what each number rests on:

- ``mil_std_810h_cwv``: the one published vibration level found and checked for this preset
  list: MIL-STD-810H (31 January 2019), Method 514.8 Vibration, Annex C, paragraph 2.1.3 b (2),
  "Composite wheeled vehicle" (Figure 514.8C-6, Table 514.8C-VII), "RMS Acceleration (G-rms):
  Vertical - 2.24; Transverse - 1.45; Longitudinal - 1.32" (read in a transcription of the
  ASSIST copy downloaded 2019-03-04; Change Notice 1 not checked). It is a test level for
  secured cargo on the bed of wheeled military vehicles on highways and cross-country, a
  composite of many vehicles and conservative by design: an upper bound for a ground vehicle,
  not what a car or a tractor measures. Its band, 5 .. 500 Hz, is the frequency range of the
  standard's wheeled-vehicle spectra as quoted by users of it (not in the transcription read:
  check it in Figure 514.8C-6); the spectrum's shape (its breakpoints) is not reproduced, only
  its RMS over the band (a flat PSD of the same RMS). It needs a physics clock above 1 kHz
  (the band below half the physics rate).
- ``car_paved_road`` and ``tractor_field``: no measured spectrum or level of a car body or a
  tractor chassis could be found and checked for this list, so their figures are navsense's
  choices, each with its reasoning on its line, anchored where a published figure exists:
  the European whole-body vibration limits (Directive 2002/44/EC, Article 3: exposure action
  value 0.5 m/s^2 and exposure limit value 1.15 m/s^2, A(8), frequency-weighted RMS), which
  tractor field work is known to exceed at the action value (HSE's assessment for the
  Control of Vibration at Work Regulations 2005 as reported by Farmers Weekly: "most field
  operations ... likely to exceed the EAVs"), and the lateral vibration of a tractor, which
  "can equal or exceed vertical vibrations" (Sensors 2014, 14(10), 19713, "The Influence of
  Tractor-Seat Height above the Ground on Lateral Vibrations"), and for a car the seat's
  overall vibration total value on roads, 0.3 .. 0.5 m/s^2 on average in the studies surveyed by
  "Variability in whole-body vibration of a seated person measured in the passenger car"
  (58 cars of 6 categories; Noise & Vibration Worldwide, doi:10.1177/09574565261444069,
  Introduction). A weighted RMS at a seat is
  not an unweighted RMS at the chassis: these anchor the size, not the figure. The engines'
  orders (a four-stroke 4-cylinder's 2nd order, its firing, and 4th; a diesel's half order
  from cylinder-to-cylinder differences) are textbook engine dynamics; their amplitudes are
  navsense's choice. Replace them by a measurement of your vehicle when you have one.

Engines: rpm = idle + ``engine_rpm_per_mps`` x speed (one gear, navsense.sensors.vibration);
``engine_rpm_per_mps`` = overall gear ratio x 60 / (2 pi wheel radius).
"""

from __future__ import annotations

__all__ = ["VIBRATION_PRESETS"]

#: imu.vibration.preset -> the ``imu.vibration`` keys it sets
VIBRATION_PRESETS: dict[str, dict] = {
    "car_paved_road": {
        # navsense choice: road input to a car body, between its heave (1 .. 2 Hz) and wheel
        # hop (10 .. 15 Hz) modes, with room above; below 60 Hz, so it runs on the 120 Hz clock
        "random_band_hz": [1, 25],
        # navsense choice: 0.3 m/s^2 vertical, 0.15 m/s^2 horizontal on a paved road, under
        # the 0.5 m/s^2 exposure action value of Directive 2002/44/EC Art. 3 (a car is not
        # a vibration hazard), at the low end of the 0.3 .. 0.5 m/s^2 seat vibration total
        # values of cars surveyed in doi:10.1177/09574565261444069; g = 9.80665 m/s^2
        "random_rms_g": [0.0153, 0.0153, 0.0306],
        "engine_idle_rpm": 800,  # navsense choice: a petrol 4-cylinder's idle, 700 .. 900 rpm
        # navsense choice: 4th gear 1.0 x final drive 3.9 on 0.31 m wheels: 3.9 x 60 /
        # (2 pi 0.31) = 120.1 rpm per m/s
        "engine_rpm_per_mps": 120,
        "engine_orders": [
            # 2nd order, a 4-cylinder four-stroke's firing and its free second-order force
            # (vertical); navsense choice of its size at the body: 0.1 m/s^2
            {"order": 2, "accel_mps2": [0.0, 0.0, 0.1]},
            # 4th order, the firing's harmonic; navsense choice: a third of the 2nd
            {"order": 4, "accel_mps2": [0.0, 0.0, 0.03]},
        ],
    },
    "tractor_field": {
        # navsense choice: a tractor without axle suspension on a tilled field: pitch and
        # bounce on its tyres (1 .. 5 Hz) and what the soil and the implement add to 25 Hz
        "random_band_hz": [1, 25],
        # navsense choice: 1.0 m/s^2 vertical, between the exposure action value (0.5) and
        # limit value (1.15 m/s^2) of Directive 2002/44/EC Art. 3, which field work exceeds
        # at the action value (HSE, as reported by Farmers Weekly); lateral as large
        # (Sensors 2014, 14(10), 19713: "can equal or exceed vertical"), longitudinal 0.6
        "random_rms_g": [0.0612, 0.102, 0.102],
        "engine_idle_rpm": 850,  # navsense choice: a tractor diesel's low idle, 800 .. 900 rpm
        # navsense choice: a field gear, 2 m/s at 2050 rpm: (2050 - 850) / 2 = 600 rpm per m/s
        "engine_rpm_per_mps": 600,
        "engine_orders": [
            # 2nd order, a 4-cylinder diesel's firing; navsense choice: 0.3 m/s^2 vertical,
            # 0.1 m/s^2 lateral (the engine's roll on its mounts)
            {"order": 2, "accel_mps2": [0.0, 0.1, 0.3]},
            # half order, cylinder-to-cylinder differences of a four-stroke (one cycle: two
            # turns); navsense choice: a third of the 2nd
            {"order": 0.5, "accel_mps2": [0.0, 0.0, 0.1]},
        ],
    },
    "mil_std_810h_cwv": {
        # MIL-STD-810H Method 514.8 Annex C (Figure 514.8C-6): the wheeled-vehicle spectra's
        # frequency range, 5 .. 500 Hz (not in the transcription read: see module docstring)
        "random_band_hz": [5, 500],
        # MIL-STD-810H Method 514.8 Annex C 2.1.3 b (2), Table 514.8C-VII: G-rms
        # longitudinal 1.32, transverse 1.45, vertical 2.24
        "random_rms_g": [1.32, 1.45, 2.24],
    },
}
