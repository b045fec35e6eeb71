"""The barometer: static pressure of the standard atmosphere at the sensor (``baro.jsonl``).

A navsense extension (issue 7; the article's barometer): the specification has no barometer.

Measurement equation, at each sample k::

    H_k   = orthometric (NAVD88) height of the sensor point p_k + R_k r_b, m
    P_k   = P_0 (1 - L' H_k)^n                       ICAO / ISO 2533 troposphere
    b_k   = a_k b_k-1 + sigma_b sqrt(1 - a_k^2) g_b,k,   a_k = exp(-(t_k - t_k-1) / tau_b)
    y_k   = P_k + b_k + o + c (T - 25) + w_k + sigma_w g_w,k      pressure_pa
    h_k   = (1 - (y_k / P_0)^(1 / n)) / L'           pressure_altitude_m (the inverse of P)

where

    P_0 = 101 325 Pa, L' = 2.25577e-5 1/m (= L / T_0 = 0.0065 K/m / 288.15 K),
    n = 5.25588 (= g_0 M / (R L)) — ICAO Doc 7488 / ISO 2533:1975, troposphere (H < 11 km);
    the geopotential height of the standard is taken as the orthometric height (they differ by
    about H^2 / 6.4e6 m: 0.2 m at 1 km)
    r_b     baro.position_flu_m, converted from ``mount_frame`` (DESIGN.md ruling "Mounts")
    H_k     ``navd88_height_m`` of ``Georeference.enu_to_geodetic`` of the sensor point; without
            a georeference (a site that has none) H_k = baro.base_altitude_m + the point's ENU up
    b_k     the slowly drifting bias: first-order Gauss-Markov, stationary standard deviation
            sigma_b = baro.bias_sigma_pa, correlation time tau_b = baro.bias_tau_s, discretised
            exactly over each sample interval (never 1 - dt / tau). The first sample has a = 0:
            b = sigma_b g_b, a draw from the stationary distribution (not zero)
    sigma_w baro.noise_std_pa;  g_b, g_w standard normal values
    o       the absolute offset (issue 30 item 3): o = sigma_o g_o, drawn once a run, sigma_o =
            baro.offset_sigma_pa (a datasheet's "absolute accuracy")
    c, T    baro.temp_coeff_pa_per_k, the offset's temperature coefficient ("TCO"), and
            baro.temperature_c, the sensor's temperature; 25 deg C is the reference
            temperature of Bosch's datasheets (offset 0 there)
    w_k     the weather: the pressure change since the run's first sample, a first-order
            Gauss-Markov process w_k = a_k w_k-1 + sigma_W sqrt(1 - a_k^2) g_W,k with a_k =
            exp(-(t_k - t_k-1) / tau_W), w = 0 at the first sample; sigma_W =
            baro.weather_sigma_pa, tau_W = baro.weather_tau_s (default 12 h, hours-long: over
            dt << tau_W the change has a standard deviation sigma_W sqrt(2 dt / tau_W), e.g.
            300 Pa and 12 h give 2.1 hPa in 3 h, a common synoptic pressure tendency).
            Ruling: the weather is the whole column's, so it moves the pressure, and the
            pressure altitude, as a height error of about 8 m per hPa would

Random values: the stream Pcg32(seed + 8011, 12) (a sequence no specification stream uses),
two Gaussians a sample in the order g_b, g_w, nothing at the start; the offset's g_o, one
Gaussian of Pcg32(seed + 8011, 18) at the start; the weather's g_W, one Gaussian a sample of
Pcg32(seed + 8011, 19) when baro.weather_sigma_pa > 0 (none otherwise). No earlier stream moves
(issue 30). With cfg["noise"] False every sigma and the coefficient are zero (y = P, h = H) and
the same values are drawn.

Outputs: ``pressure_pa`` y_k, ``pressure_altitude_m`` h_k and ``bias_pa`` b_k, (m,) each; the
rows of ``baro.jsonl`` are ``navsense.output.layouts.baro``'s.
"""

from __future__ import annotations

import numpy as np

from navsense import gauss_markov
from navsense.clock import Due
from navsense.config.typed.baro import BaroConfig
from navsense.rng import Pcg32
from navsense.rotation import quat_to_matrix, rotate
from navsense.truth.states import TruthStates
from navsense.vehicles import VehicleProfile, lever_arm_from_chassis

__all__ = [
    "build_model",
    "BarometerModel",
    "pressure_pa",
    "pressure_altitude_m",
    "ISA_P0_PA",
    "ISA_LAPSE_PER_M",
    "ISA_EXPONENT",
    "BARO_SEED_OFFSET",
    "BARO_SEQUENCE",
]

ISA_P0_PA = 101_325.0  # ICAO standard atmosphere, sea-level pressure, Pa (ISO 2533)
ISA_LAPSE_PER_M = 2.25577e-5  # L / T_0 = 0.0065 K/m / 288.15 K, 1/m (ISO 2533 troposphere)
ISA_EXPONENT = 5.25588  # g_0 M / (R L), dimensionless (ISO 2533 troposphere)
BARO_SEED_OFFSET = 8011  # navsense: barometer stream seed + 8011 (no specification stream)
BARO_SEQUENCE = 12  # navsense: sequence 12 (the specification uses 1, 2, 4, 6)
DRAWS_PER_SAMPLE = 2  # Gaussians a sample: g_b (bias), g_w (white)
OFFSET_SEQUENCE = 18  # navsense: the absolute offset's stream Pcg32(seed + 8011, 18)
WEATHER_SEQUENCE = 19  # navsense: the weather's stream Pcg32(seed + 8011, 19)
REFERENCE_TEMPERATURE_C = 25.0  # Bosch BMP388/BMP390 data sheets: offset specified at 25 deg C


def pressure_pa(height_m):
    """ISA troposphere pressure (Pa) at orthometric/geopotential ``height_m`` (array or scalar)."""
    h = np.asarray(height_m, dtype=np.float64)
    return ISA_P0_PA * (1.0 - ISA_LAPSE_PER_M * h) ** ISA_EXPONENT  # ISO 2533, troposphere


def pressure_altitude_m(p_pa):
    """The inverse of :func:`pressure_pa`: the standard-atmosphere height of ``p_pa``, m."""
    p = np.asarray(p_pa, dtype=np.float64)
    return (1.0 - (p / ISA_P0_PA) ** (1.0 / ISA_EXPONENT)) / ISA_LAPSE_PER_M


class BarometerModel:
    """``BarometerModel(config, vehicle, georef)``: the barometer over consecutive chunks.

    ``georef`` the site's Georeference (heights: NAVD88) or None (base_altitude_m + ENU up).
    """

    name = "baro"

    def __init__(self, config: BaroConfig, vehicle: VehicleProfile, georef=None) -> None:
        self.config = c = config
        self.georef = georef
        self.lever_arm_m = lever_arm_from_chassis(c.position_flu_m, c.mount_frame, vehicle)
        self._rng = Pcg32(c.seed + BARO_SEED_OFFSET, BARO_SEQUENCE)
        self._sigma_w = c.noise_std_pa if c.noise else 0.0
        self._sigma_b = c.bias_sigma_pa if c.noise else 0.0
        self._due = Due(c.hz, start_s=None)
        on = 1.0 if c.noise else 0.0
        g_o = float(Pcg32(c.seed + BARO_SEED_OFFSET, OFFSET_SEQUENCE).gaussians(1)[0])
        self.offset_pa = on * c.offset_sigma_pa * g_o
        self._constant_pa = self.offset_pa + on * c.temp_coeff_pa_per_k * (
            c.temperature_c - REFERENCE_TEMPERATURE_C
        )
        self._weather_rng = (
            Pcg32(c.seed + BARO_SEED_OFFSET, WEATHER_SEQUENCE) if c.weather_sigma_pa > 0 else None
        )
        self._sigma_weather = on * c.weather_sigma_pa
        self._weather_pa = 0.0  # w at the previous sample
        self._bias_pa = 0.0  # b at the previous sample
        self._t_prev: float | None = None  # time of the previous sample (None: no sample yet)

    def height_m(self, p_m: np.ndarray, t_s: np.ndarray) -> np.ndarray:
        """Orthometric height (m) of the sensor points ``p_m`` (m, 3) at ``t_s`` (m,)."""
        if self.georef is None:
            return self.config.base_altitude_m + p_m[:, 2]
        return np.asarray(
            self.georef.enu_to_geodetic(p_m, t_s)["navd88_height_m"], dtype=np.float64
        ).reshape(-1)

    def process(self, truth: TruthStates) -> dict:
        """The barometer samples in this chunk of physics steps."""
        if len(truth) == 0:
            return _empty_block()
        rows = self._due.sample_indices(truth.t_s)
        m = rows.size
        if m == 0:
            return _empty_block()
        g = self._rng.gaussians(DRAWS_PER_SAMPLE * m).reshape(m, DRAWS_PER_SAMPLE)
        t = truth.t_s[rows]
        r = quat_to_matrix(truth.q_xyzw[rows])
        p = truth.p_m[rows] + rotate(r, np.broadcast_to(self.lever_arm_m, (m, 3)))
        true_pa = pressure_pa(self.height_m(p, t))

        # Gauss-Markov bias, exact discretisation over each sample interval; a = 0 at the first
        t_before = np.empty(m)
        t_before[1:] = t[:-1]
        t_before[0] = t[0] if self._t_prev is None else self._t_prev
        a = np.exp(-(t - t_before) / self.config.bias_tau_s)
        if self._t_prev is None:
            a[0] = 0.0
        drive = self._sigma_b * np.sqrt(1.0 - a * a) * g[:, 0]
        bias = gauss_markov.scan(a, drive[:, None], [self._bias_pa])[:, 0]
        self._bias_pa = float(bias[-1])
        meas = true_pa + bias + self._sigma_w * g[:, 1]
        if self._constant_pa != 0.0:
            meas = meas + self._constant_pa
        if self._weather_rng is not None:
            meas = meas + self._weather(t, t_before)
        self._t_prev = float(t[-1])
        return {
            "sample_time_s": t,
            "pressure_pa": meas,
            "pressure_altitude_m": pressure_altitude_m(meas),
            "bias_pa": bias,
        }

    def _weather(self, t: np.ndarray, t_before: np.ndarray) -> np.ndarray:
        """w at the samples ``t`` (module docstring): 0 at the run's first sample."""
        assert self._weather_rng is not None
        g = self._weather_rng.gaussians(t.size)
        a = np.exp(-(t - t_before) / self.config.weather_tau_s)  # 1 at the first sample
        drive = self._sigma_weather * np.sqrt(1.0 - a * a) * g
        w = gauss_markov.scan(a, drive[:, None], [self._weather_pa])[:, 0]
        self._weather_pa = float(w[-1])
        return w

    def output_info(self) -> dict:
        """For the layout (navsense.output.layouts.baro): nothing per run."""
        return {}

    def episode_info(self) -> dict:
        """``baro_offset_pa``, the absolute offset drawn, when baro.offset_sigma_pa is set."""
        return {"baro_offset_pa": self.offset_pa} if self.config.offset_sigma_pa > 0 else {}


def _empty_block() -> dict:
    z = np.zeros(0)
    return {
        "sample_time_s": z,
        "pressure_pa": z.copy(),
        "pressure_altitude_m": z.copy(),
        "bias_pa": z.copy(),
    }


def build_model(context) -> BarometerModel:
    """The barometer of a run (navsense.suite.SENSORS["baro"]; ``context`` a
    navsense.suite.ModelContext)."""
    return BarometerModel(BaroConfig.from_validated(context.cfg), context.vehicle, context.georef)
