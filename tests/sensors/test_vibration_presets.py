"""imu.vibration.preset (issue 30 item 2): a preset run's IMU specific force has its source's
RMS over its band (MIL-STD-810H's composite wheeled vehicle: 2.24, 1.45, 1.32 g), the level
given as an RMS (random_rms_g) is that RMS at any physics rate, the engines' orders read at
their frequencies, and the preset is a layer under the explicit keys."""

import numpy as np
import pytest
from scipy.signal import welch

from navsense.cli import main
from navsense.config import load_config
from navsense.config.load import explain_config
from navsense.errors import ConfigError
from sensors.test_vibration import G, _imu, amplitude_at, at_rest


def band_rms_g(f: np.ndarray, rate_hz: float) -> np.ndarray:
    """The RMS (g) of the vibration in the IMU's specific force ``f`` (n, 3) at ``rate_hz``:
    Welch's PSD divided by the specification's two-step average's response cos^2(pi f / f_s)
    (navsense.sensors.imu), integrated up to 0.4 f_s (the average's zero at f_s / 2)."""
    nperseg = min(8192, len(f) // 8)
    freqs, psd = welch(f - f.mean(axis=0), fs=rate_hz, nperseg=nperseg, axis=0)
    keep = freqs < 0.4 * rate_hz
    gain = np.cos(np.pi * freqs[keep] / rate_hz) ** 2
    return np.sqrt(np.trapezoid(psd[keep] / gain[:, None], freqs[keep], axis=0)) / G


def preset_force(preset: str, rate_hz: float, seconds: float = 60.0, **keys) -> np.ndarray:
    keys = {"imu.vibration.preset": preset, **keys}
    model = _imu(rate_hz, [], hz=rate_hz, **keys)
    return model.process(at_rest(seconds, rate_hz))["specific_force_flu_mps2"]


def test_the_cwv_preset_has_mil_std_810h_rms_on_each_axis():
    """MIL-STD-810H Method 514.8 Annex C, Table 514.8C-VII (composite wheeled vehicle): G-rms
    longitudinal 1.32, transverse 1.45, vertical 2.24, over 5 .. 500 Hz; a noise-off run at
    rest on a 2 kHz clock and IMU, 60 s, reads them within 2 % (measured: 1.320, 1.450,
    2.244)."""
    f = preset_force("mil_std_810h_cwv", 2000.0)
    np.testing.assert_allclose(band_rms_g(f, 2000.0), [1.32, 1.45, 2.24], rtol=0.02)
    freqs, psd = welch(f[:, 2] - G, fs=2000.0, nperseg=4096)
    inside = psd[(freqs > 20) & (freqs < 300)].mean()
    assert psd[(freqs > 700) & (freqs < 800)].mean() < 0.05 * inside  # the band's top, 500 Hz
    assert psd[freqs < 1.5].mean() < 0.05 * inside  # and its foot, 5 Hz


@pytest.mark.parametrize(
    "preset, rms_mps2",
    [("car_paved_road", [0.15, 0.15, 0.3]), ("tractor_field", [0.6, 1.0, 1.0])],
)
@pytest.mark.parametrize("rate_hz", [120.0, 1000.0])
def test_the_vehicle_presets_have_their_rms_on_any_clock(preset, rms_mps2, rate_hz):
    """The car's and the tractor's levels (navsense's choices, in m/s^2: the module
    vibration_presets) read within 3 % on the 120 Hz clock and at 1 kHz: the RMS is set on
    the run's own clock. Engines off here (the orders have their own test)."""
    f = preset_force(preset, rate_hz, **{"imu.vibration.engine_orders": []})
    np.testing.assert_allclose(band_rms_g(f, rate_hz) * G, rms_mps2, rtol=0.03)


def test_the_car_presets_engine_orders_read_at_their_frequencies():
    """At rest the car's engine idles at 800 rpm: its 2nd order at 26.67 Hz (0.1 m/s^2) and 4th
    at 53.33 Hz (0.03 m/s^2) on z, times the two-step average's cos(pi f / 1000); the random
    part off (random_rms_g set to 0 over the preset)."""
    f = preset_force("car_paved_road", 1000.0, 61.0, **{"imu.vibration.random_rms_g": [0, 0, 0]})
    z = f[-60000:, 2]  # 60 s: 1600 and 3200 periods
    for hz, amp in [(2 * 800 / 60, 0.1), (4 * 800 / 60, 0.03)]:
        assert amplitude_at(z, 1000.0, hz) == pytest.approx(
            amp * np.cos(np.pi * hz / 1000), rel=1e-3
        )


def test_a_preset_is_a_layer_under_the_explicit_keys():
    """--set over a preset wins; config show --explain names the preset for the keys it set."""
    over = {"imu.vibration.preset": "tractor_field", "imu.vibration.random_band_hz": [2, 30]}
    cfg, origins = explain_config(overrides=over)
    vib = cfg["imu"]["vibration"]
    assert vib["random_band_hz"] == [2, 30] and vib["random_rms_g"] == [0.0612, 0.102, 0.102]
    assert origins["imu.vibration.random_band_hz"] == "command line"
    assert origins["imu.vibration.random_rms_g"] == (
        "preset tractor_field (imu.vibration; navsense.config.vibration_presets)"
    )
    assert load_config()["imu"]["vibration"]["random_rms_g"] == [0, 0, 0]  # default: none


def test_a_psd_over_a_presets_rms_is_one_line():
    with pytest.raises(ConfigError, match=r"random_rms_g = .* and random_psd_g2_per_hz") as err:
        load_config(
            overrides={
                "imu.vibration.preset": "car_paved_road",
                "imu.vibration.random_psd_g2_per_hz": [0, 0, 0.001],
            }
        )
    assert "\n" not in str(err.value) and "set the other to [0, 0, 0]" in str(err.value)


def test_a_psd_over_a_presets_rms_names_the_preset(tmp_path):
    """A file's PSD over a preset's RMS was one line that began 'the defaults: random_rms_g =
    [0.0612, 0.102, 0.102] ...' (a value no default has; found by the fuzz helper): the line
    names the preset that set it, from a file and from an option alike."""
    path = tmp_path / "c.json"
    path.write_text(
        '{"imu": {"vibration": {"preset": "tractor_field", "random_psd_g2_per_hz": [1, 1, 1]}}}'
    )
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert str(err.value).startswith(
        "preset tractor_field (imu.vibration): imu.vibration.random_rms_g = [0.0612, 0.102, 0.102]"
        " and random_psd_g2_per_hz = [1, 1, 1] are both set"
    )
    over = {
        "imu.vibration.preset": "car_paved_road",
        "imu.vibration.random_psd_g2_per_hz": [1, 1, 1],
    }
    with pytest.raises(ConfigError, match=r"^preset car_paved_road \(imu\.vibration\): "):
        load_config(overrides=over)


@pytest.mark.parametrize(
    "keys, words",
    [
        (
            ["imu.vibration.preset=truck"],
            'imu.vibration.preset = "truck" is not one of none, car_paved_road, tractor_field',
        ),
        (
            ["imu.vibration.preset=mil_std_810h_cwv"],
            "imu.vibration.random_band_hz = [5, 500] is not 0.1 <= low < high < half the physics rate",
        ),
        (
            ["imu.vibration.random_rms_g=[0, 0, -1]"],
            "imu.vibration.random_rms_g[2] = -1 is out of range 0..100",
        ),
    ],
)
def test_a_bad_preset_or_level_is_one_line_and_exit_2(capsys, tmp_path, keys, words):
    out = tmp_path / "run"
    argv = ["simulate", "--scenario", "acre-loop", "--duration", "1", "--out", str(out)]
    for key in keys:
        argv += ["--set", key]
    assert main(argv) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and words in lines[0], lines
    assert not out.exists()
