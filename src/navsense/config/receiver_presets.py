"""Receiver grades for ``gnss.receiver``: the specification's receiver with other figures.

A navsense extension (issue 29, item 2). ``gnss.receiver`` is ``"acres"`` (the default: the
specification's receiver, "GNSS Receiver", with the values of the configuration) or one of the
presets of :data:`PRESETS`. A preset runs the same receiver (the specification's error terms,
fix-state machine, correction stream; navsense.sensors.gnss): it sets the values of some keys of
the ``gnss`` section and which fix states the receiver can reach, nothing else. The figures come
from the datasheet or the published measurement named on their line; what no source gives keeps
the specification's value and says so.

This module is plain data (it imports nothing of navsense, so the table of keys may name
:data:`RECEIVERS`); applying a preset to a configuration, which needs the default layers, is
navsense.config.receiver.resolve_receiver, above navsense.config.defaults.

Conversions (a circular Gaussian error of sigma per horizontal axis, sigma_v vertically):
CEP (50 % horizontal) = 1.1774 sigma; horizontal RMS (DRMS) = sqrt(2) sigma; 2DRMS = 2 sqrt(2)
sigma; R50 (50 % vertical) = 0.6745 sigma_v. So sigma = CEP / 1.1774 = RMS / sqrt(2) =
2DRMS / 2.8284 and sigma_v = R50 / 0.6745. A "0.01 m + 1 ppm" figure converts both terms: the
state's sigma and gnss.corrections.ppm_h (ppm_v).

Shape of each state (ruling "the specification's shape"): a datasheet gives one figure, the
total sigma of an axis in open sky; the model has a correlated and a white term
(sigma^2 = s^2 + w^2, specification "Error Model"). A preset keeps the specification's ratio
w / s and correlation time tau_s of the same state, and its ratio multipath_h_m / sigma (the
multipath error grows with the receiver's code error), and scales s, w and multipath_h_m to
the cited sigma: ``s = sigma / sqrt(1 + (w0/s0)^2)``, ``w = s w0 / s0``, ``mp = sigma mp0 /
sigma0``. A vertical figure the source does not give takes the specification's sigma_v / sigma_h
of that state (2). rtk_float, whose accuracy no datasheet states, keeps the specification's.

Fix states (``FixConfig.reach``): a phone and a standalone module reach single only (no
corrections: the correction stream is off, ``gnss.corrections.enabled`` false, so the rows have
no correction age); an SBAS receiver and a DGPS receiver reach dgps with corrections (SBAS fixes
are reported as differential, GGA quality 2, as u-blox and NovAtel report them) and single
without; the RTK receivers reach every state. no_fix is reached by every receiver (fewer than 4
satellites, a cold start).

User values win (ruling "a preset under the configuration"): a preset's value replaces a key
only where the configuration holds the specification's default (sensors.json); a key the user
set to another value keeps it, so ``--receiver rtk --set gnss.corrections.baseline_km=20`` or a
changed ``gnss.states.single.sigma_h_m`` tunes the preset. (A key set to exactly the
specification's default is taken as not set.)
"""

from __future__ import annotations

import math
from typing import Any

__all__ = [
    "RECEIVERS",
    "PRESETS",
    "REACH",
    "preset_values",
    "CEP_PER_SIGMA",
    "R50_PER_SIGMA",
]

CEP_PER_SIGMA = 1.1774  # CEP = sqrt(2 ln 2) sigma, circular Gaussian
R50_PER_SIGMA = 0.6745  # 50 % of |e| for a Gaussian of sigma (vertical R50)
DRMS_PER_SIGMA = math.sqrt(2.0)  # horizontal RMS
#: which fix states a receiver can reach besides no_fix (FixConfig.reach)
REACH = ("single", "dgps", "rtk")

# The specification's gnss.states (sensors.json), the shape every preset keeps.
_SPEC = {
    "rtk_fixed": {"sigma": (0.008, 0.003, 0.015), "v": (0.015, 0.006)},
    "rtk_float": {"sigma": (0.10, 0.02, 0.15), "v": (0.20, 0.04)},
    "dgps": {"sigma": (0.35, 0.10, 0.50), "v": (0.70, 0.20)},
    "single": {"sigma": (1.0, 0.30, 1.50), "v": (2.0, 0.60)},
}


def _state(state: str, sigma_h: float, sigma_v: float | None = None, mp_scale: float = 1.0):
    """The keys of one fix state for an open-sky sigma per axis (module docstring)."""
    s0, w0, mp0 = _SPEC[state]["sigma"]
    sv0, wv0 = _SPEC[state]["v"]
    total0 = math.hypot(s0, w0)
    s = sigma_h / math.hypot(1.0, w0 / s0)
    if sigma_v is None:  # the specification's vertical / horizontal ratio of the state
        sigma_v = sigma_h * math.hypot(sv0, wv0) / total0
    sv = sigma_v / math.hypot(1.0, wv0 / sv0)
    return {
        f"gnss.states.{state}.sigma_h_m": round(s, 5),
        f"gnss.states.{state}.white_h_m": round(s * w0 / s0, 5),
        f"gnss.states.{state}.sigma_v_m": round(sv, 5),
        f"gnss.states.{state}.white_v_m": round(sv * wv0 / sv0, 5),
        f"gnss.states.{state}.multipath_h_m": round(mp_scale * sigma_h * mp0 / total0, 5),
    }


#: preset -> {"reach", "corrections", "source", "figures" (for docs and tests: the cited
#: open-sky sigma per axis of each reachable state, and the ppm), "keys" (dotted key -> value)}
PRESETS: dict[str, dict[str, Any]] = {
    # A smartphone: Xiaomi Mi 8 (Broadcom BCM47755), single-point L1/E1 code solution:
    # 2DRMS 5.36 m (Robustelli, Baiocchi, Pugliano 2019, "Assessment of dual frequency GNSS
    # observations from a Xiaomi Mi 8 Android smartphone and positioning performance analysis",
    # Electronics 8(1):91) -> sigma = 5.36 / 2.8284 = 1.895 m. Multipath: twice the
    # specification's scale (ruling: a phone's linear antenna, "higher multipath compared
    # with those of the geodetic receiver", same paper; an iPhone 6 averaged 7-13 m in a town,
    # Merry and Bettinger 2019, PLoS ONE 14(7):e0219890). Time to first fix: the
    # specification's 20 s (no published figure used).
    "phone": {
        "reach": "single",
        "corrections": False,
        "source": "Robustelli et al. 2019 (Xiaomi Mi 8): single point L1/E1 2DRMS 5.36 m",
        "figures": {"single": 5.36 / 2.0 / DRMS_PER_SIGMA},
        "keys": {**_state("single", 5.36 / 2.0 / DRMS_PER_SIGMA, mp_scale=2.0)},
    },
    # A single-frequency GNSS module: u-blox NEO-M8N (data sheet UBX-15031086): horizontal
    # position accuracy 2.5 m CEP (autonomous) -> sigma = 2.5 / 1.1774 = 2.123 m; cold start
    # 26 s (GPS + GLONASS). Vertical: not in the data sheet (the specification's ratio).
    "standalone": {
        "reach": "single",
        "corrections": False,
        "source": "u-blox NEO-M8N data sheet: 2.5 m CEP, cold start 26 s",
        "figures": {"single": 2.5 / CEP_PER_SIGMA},
        "keys": {**_state("single", 2.5 / CEP_PER_SIGMA), "gnss.cold_ttff_s": 26.0},
    },
    # The same module with SBAS: NEO-M8N data sheet: 2.0 m CEP with SBAS -> 1.699 m.
    "sbas": {
        "reach": "dgps",
        "corrections": True,
        "source": "u-blox NEO-M8N data sheet: 2.5 m CEP, SBAS 2.0 m CEP, cold start 26 s",
        "figures": {"single": 2.5 / CEP_PER_SIGMA, "dgps": 2.0 / CEP_PER_SIGMA},
        "keys": {
            **_state("single", 2.5 / CEP_PER_SIGMA),
            **_state("dgps", 2.0 / CEP_PER_SIGMA),
            "gnss.cold_ttff_s": 26.0,
        },
    },
    # A code-differential receiver: NovAtel OEM7 class (SMART7 Installation and Operation User
    # Manual v6, Table 22, horizontal RMS): single point L1/L2 1.2 m -> sigma 0.849 m; DGPS
    # 0.4 m -> 0.283 m. Without RTK (a DGPS licence or a code-only correction service).
    "dgps": {
        "reach": "dgps",
        "corrections": True,
        "source": "NovAtel OEM7 (SMART7 manual, Table 22): L1/L2 1.2 m RMS, DGPS 0.4 m RMS",
        "figures": {"single": 1.2 / DRMS_PER_SIGMA, "dgps": 0.4 / DRMS_PER_SIGMA},
        "keys": {
            **_state("single", 1.2 / DRMS_PER_SIGMA),
            **_state("dgps", 0.4 / DRMS_PER_SIGMA),
        },
    },
    # An RTK receiver: u-blox ZED-F9P (data sheet UBX-17051259): horizontal PVT 1.5 m CEP ->
    # 1.274 m, SBAS 1.0 m CEP -> 0.849 m, RTK 0.01 m + 1 ppm CEP -> 0.0085 m + 0.85 ppm;
    # vertical PVT 2.0 m R50 -> 2.965 m, SBAS 0.9 m R50 -> 1.334 m, RTK 0.01 m + 1 ppm R50 ->
    # 0.0148 m + 1.48 ppm; convergence time RTK < 10 s (ttf_median_s 5 s: with the
    # specification's ttf_log_sigma 0.5, 92 % of the fixes come within 10 s); cold start 25 s.
    "rtk": {
        "reach": "rtk",
        "corrections": True,
        "source": "u-blox ZED-F9P data sheet: 1.5 m / SBAS 1.0 m / RTK 0.01 m + 1 ppm CEP, "
        "RTK convergence < 10 s, cold start 25 s",
        "figures": {
            "single": 1.5 / CEP_PER_SIGMA,
            "dgps": 1.0 / CEP_PER_SIGMA,
            "rtk_fixed": 0.01 / CEP_PER_SIGMA,
            "ppm_h": 1.0 / CEP_PER_SIGMA,
        },
        "keys": {
            **_state("single", 1.5 / CEP_PER_SIGMA, 2.0 / R50_PER_SIGMA),
            **_state("dgps", 1.0 / CEP_PER_SIGMA, 0.9 / R50_PER_SIGMA),
            **_state("rtk_fixed", 0.01 / CEP_PER_SIGMA, 0.01 / R50_PER_SIGMA),
            "gnss.corrections.ppm_h": round(1.0 / CEP_PER_SIGMA, 4),
            "gnss.corrections.ppm_v": round(1.0 / R50_PER_SIGMA, 4),
            "gnss.rtk.ttf_median_s": 5.0,
            "gnss.cold_ttff_s": 25.0,
        },
    },
    # A dual-frequency survey receiver: NovAtel OEM7 class (SMART7 manual v6, Table 22,
    # horizontal RMS): single point L1/L2 1.2 m -> 0.849 m, DGPS 0.4 m -> 0.283 m, RTK 1 cm +
    # 1 ppm -> 0.0071 m + 0.71 ppm. Vertical, convergence and time to first fix are not in
    # that table (the specification's ratios and values).
    "survey": {
        "reach": "rtk",
        "corrections": True,
        "source": "NovAtel OEM7 (SMART7 manual, Table 22): L1/L2 1.2 m, DGPS 0.4 m, "
        "RTK 1 cm + 1 ppm RMS",
        "figures": {
            "single": 1.2 / DRMS_PER_SIGMA,
            "dgps": 0.4 / DRMS_PER_SIGMA,
            "rtk_fixed": 0.01 / DRMS_PER_SIGMA,
            "ppm_h": 1.0 / DRMS_PER_SIGMA,
        },
        "keys": {
            **_state("single", 1.2 / DRMS_PER_SIGMA),
            **_state("dgps", 0.4 / DRMS_PER_SIGMA),
            **_state("rtk_fixed", 0.01 / DRMS_PER_SIGMA),
            "gnss.corrections.ppm_h": round(1.0 / DRMS_PER_SIGMA, 4),
            "gnss.corrections.ppm_v": round(1.5 / DRMS_PER_SIGMA, 4),  # the spec.'s 1.5 / 1
        },
    },
}

#: the choices of gnss.receiver: the specification's receiver, then the presets
RECEIVERS = ("acres", *PRESETS)


def preset_values(name: str) -> dict[str, Any]:
    """The dotted keys a preset sets, with its correction switch (``gnss.corrections.enabled``)."""
    if name == "acres":
        return {}
    preset = PRESETS[name]
    out = dict(preset["keys"])
    if not preset["corrections"]:
        out["gnss.corrections.enabled"] = False
    return out
