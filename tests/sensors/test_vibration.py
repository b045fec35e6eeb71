"""imu.vibration.sines (issue 30 item 2): a sine shows in the IMU's spectrum at its frequency and
amplitude; above the IMU's Nyquist frequency it aliases where it must, and the configurable
IMU's low-pass removes it."""

import numpy as np
import pytest

from navsense.config import load_config
from navsense.errors import ConfigError
from navsense.simulate import build_models
from navsense.truth.states import TruthStates
from navsense.vehicles import vehicle_profile

POLARIS = vehicle_profile("polaris")
G = 9.80665


def _imu(rate_hz: float, sines, hz: float = 100, **keys):
    over = {
        "physics.hz": rate_hz,
        "imu.hz": hz,
        "noise": False,
        "mount_frame": "chassis",
        "imu.position_flu_m": [0, 0, 0],
        "gnss.enabled": False,
        "ins.enabled": False,
        "imu.vibration.sines": sines,
        **keys,
    }
    (model,) = build_models(load_config(vehicle="polaris", overrides=over), POLARIS, None, None)
    return model


def at_rest(seconds: float, rate_hz: float) -> TruthStates:
    n = int(round(seconds * rate_hz)) + 1
    p = np.tile([0.0, 0.0, 0.6], (n, 1))
    return TruthStates(
        step0=0,
        p_m=p,
        q_xyzw=np.tile([0.0, 0.0, 0.0, 1.0], (n, 1)),
        v_mps=np.zeros((n, 3)),
        w_radps=np.zeros((n, 3)),
        c_m=p.copy(),
        reset=np.zeros(n, dtype=bool),
        rate_hz=rate_hz,
    )


def amplitude_at(y: np.ndarray, rate_hz: float, hz: float) -> float:
    """The amplitude of the sine at ``hz`` in ``y`` (a whole number of periods: one FFT bin)."""
    spectrum = np.abs(np.fft.rfft(y - y.mean())) * 2 / y.size
    freqs = np.fft.rfftfreq(y.size, 1 / rate_hz)
    return float(spectrum[np.argmin(np.abs(freqs - hz))])


def welch_peak(y: np.ndarray, rate_hz: float) -> float:
    from scipy.signal import welch

    freqs, psd = welch(y - y.mean(), fs=rate_hz, nperseg=256)
    return float(freqs[np.argmax(psd)])


def test_a_sine_shows_at_its_frequency_and_amplitude():
    """7 Hz, 0.3 m/s^2 on x and 0.02 rad/s on z, 1 kHz clock, IMU at 100 Hz: the specification's
    two-step average passes cos(pi 7 / 1000) = 0.99976 of it."""
    sines = [{"hz": 7, "accel_mps2": [0.3, 0, 0], "gyro_radps": [0, 0, 0.02]}]
    block = _imu(1000.0, sines).process(at_rest(10.0, 1000.0))
    f = block["specific_force_flu_mps2"][-900:]  # 9 s, 63 periods
    w = block["angular_velocity_flu_radps"][-900:]
    gain = np.cos(np.pi * 7 / 1000)
    assert welch_peak(f[:, 0], 100.0) == pytest.approx(7.0, abs=0.4)
    assert amplitude_at(f[:, 0], 100.0, 7.0) == pytest.approx(0.3 * gain, rel=1e-3)
    assert amplitude_at(w[:, 2], 100.0, 7.0) == pytest.approx(0.02 * gain, rel=1e-3)
    np.testing.assert_allclose(f[:, 2], G, atol=1e-12)  # the other axes untouched
    np.testing.assert_allclose(w[:, :2], 0.0, atol=1e-15)


def test_a_sine_above_nyquist_aliases_and_the_low_pass_removes_it():
    """130 Hz on a 1 kHz clock, sampled at 100 Hz (Nyquist 50 Hz): it shows at |130 - 100| =
    30 Hz with the amplitude the two-step average leaves, cos(pi 130 / 1000) = 0.918; the
    configurable IMU with a 20 Hz low-pass (|H(130 Hz)| = 0.024) removes it."""
    sines = [{"hz": 130, "accel_mps2": [0, 0.3, 0]}]
    f = _imu(1000.0, sines).process(at_rest(10.0, 1000.0))["specific_force_flu_mps2"][-900:, 1]
    assert welch_peak(f, 100.0) == pytest.approx(30.0, abs=0.4)
    assert amplitude_at(f, 100.0, 30.0) == pytest.approx(0.3 * np.cos(np.pi * 0.13), rel=1e-3)
    configurable = {"imu.model": "configurable", "imu.configurable.bandwidth_hz": 20}
    model = _imu(1000.0, sines, **configurable)
    f = model.process(at_rest(10.0, 1000.0))["specific_force_flu_mps2"][-900:, 1]
    assert amplitude_at(f, 100.0, 30.0) < 0.3 * 0.03


def test_the_sines_are_in_the_configurable_imus_axes():
    """Platform yawed 90 deg: a sine on the IMU's x axis reads on its x axis."""
    sines = [{"hz": 7, "accel_mps2": [0.3, 0, 0]}]
    keys = {"imu.model": "configurable", "imu.configurable.platform_ypr_deg": [90, 0, 0]}
    f = _imu(1000.0, sines, **keys).process(at_rest(10.0, 1000.0))["specific_force_flu_mps2"]
    assert amplitude_at(f[-900:, 0], 100.0, 7.0) == pytest.approx(0.3, rel=1e-3)
    assert amplitude_at(f[-900:, 1], 100.0, 7.0) < 1e-9


@pytest.mark.parametrize("model", ["acres", "configurable"])
def test_batch_equals_chunks_equals_steps(model):
    sines = [{"hz": 130, "accel_mps2": [0, 0.3, 0.1], "gyro_radps": [0.01, 0, 0]}]
    truth = at_rest(0.5, 1000.0)
    whole = _imu(1000.0, sines, **{"imu.model": model}).process(truth)
    imu = _imu(1000.0, sines, **{"imu.model": model})
    parts = [imu.process(truth.slice(k, k + 1)) for k in range(len(truth))]
    for key, value in whole.items():
        assert np.array_equal(np.concatenate([p[key] for p in parts]), value), key


@pytest.mark.parametrize(
    "sines, message",
    [
        ([{"hz": 0}], r"imu\.vibration\.sines\[0\]\.hz = 0 is not a frequency > 0 Hz"),
        (
            [{"hz": 5, "accel": [1, 0, 0]}],
            r"imu\.vibration\.sines\[0\]\.accel = \[1, 0, 0\] is not a key",
        ),
        (
            [{"hz": 5, "gyro_radps": [1, 0]}],
            r"imu\.vibration\.sines\[0\]\.gyro_radps = \[1, 0\] is not an array",
        ),
        ({"hz": 5}, r"imu\.vibration\.sines = .* is not an array of"),
    ],
)
def test_a_bad_sine_is_one_line(sines, message):
    with pytest.raises(ConfigError, match=r"^command line: " + message) as err:
        load_config(overrides={"imu.vibration.sines": sines})
    assert "\n" not in str(err.value)


RANDOM = {
    "imu.vibration.random_psd_g2_per_hz": [0, 0, 0.001],
    "imu.vibration.random_band_hz": [50, 150],
}


def test_random_vibration_has_its_psd_in_its_band():
    """0.001 g^2/Hz on z in 50 .. 150 Hz, 1 kHz clock and IMU, 60 s: Welch's PSD of the
    specific force over 80 .. 120 Hz is S g0^2 |H_bp|^2 cos^2(pi f / 1000) (the band-pass's
    response from scipy.signal.freqz, the two-step average's) within 5 %; at 300 Hz it is
    below 1 % of S g0^2; x and y have none."""
    from scipy.signal import butter, freqz, welch

    block = _imu(1000.0, [], hz=1000, **RANDOM).process(at_rest(60.0, 1000.0))
    f = block["specific_force_flu_mps2"]
    freqs, psd = welch(f[:, 2] - G, fs=1000.0, nperseg=1000)
    _, h = freqz(*butter(2, [50, 150], btype="bandpass", fs=1000.0), worN=freqs, fs=1000.0)
    level = 0.001 * G**2
    want = level * np.abs(h) ** 2 * np.cos(np.pi * freqs / 1000.0) ** 2
    band = (freqs >= 80) & (freqs <= 120)
    assert psd[band].mean() / want[band].mean() == pytest.approx(1.0, abs=0.05)
    assert psd[np.argmin(np.abs(freqs - 300))] < 0.01 * level
    np.testing.assert_allclose(f[:, :2], 0.0, atol=1e-15)


def test_random_vibration_moves_no_other_stream():
    """With noise on, the vibration adds to the IMU's readings without changing its own noise:
    (on - off) with noise equals (on - off) without."""
    truth = at_rest(2.0, 1000.0)

    def force(noise, **keys):
        model = _imu(1000.0, [], hz=1000, **{"noise": noise, **keys})
        return model.process(truth)["specific_force_flu_mps2"]

    np.testing.assert_allclose(
        force(True, **RANDOM) - force(True), force(False, **RANDOM) - force(False), atol=1e-12
    )


@pytest.mark.parametrize("model", ["acres", "configurable"])
def test_random_vibration_batch_equals_chunks_equals_steps(model):
    truth = at_rest(0.3, 1000.0)
    keys = {"imu.model": model, **RANDOM}
    whole = _imu(1000.0, [], **keys).process(truth)
    imu = _imu(1000.0, [], **keys)
    parts = [imu.process(truth.slice(k, k + 1)) for k in range(len(truth))]
    for key, value in whole.items():
        assert np.array_equal(np.concatenate([p[key] for p in parts]), value), key


def test_a_band_beyond_the_clock_is_one_line():
    from navsense.run import prepare_run

    over = {**RANDOM, "imu.vibration.random_band_hz": [50, 80]}
    with pytest.raises(
        ConfigError, match=r"random_band_hz = \[50, 80\] is not 0.1 <= low < high < half"
    ):
        prepare_run(scenario="acre-loop", duration_s=1.0, overrides={**over, "physics.hz": 120})


def driving(seconds: float, rate_hz: float, speed_mps: float) -> TruthStates:
    """Straight east at a constant speed, level."""
    truth = at_rest(seconds, rate_hz)
    p = truth.p_m.copy()
    p[:, 0] = speed_mps * truth.t_s
    v = np.zeros_like(p)
    v[:, 0] = speed_mps
    return TruthStates(**{**truth.__dict__, "p_m": p, "c_m": p.copy(), "v_mps": v})


ENGINE = {
    "imu.vibration.engine_idle_rpm": 800,
    "imu.vibration.engine_rpm_per_mps": 156,  # 3rd gear 1.3 x final drive 3.9, wheel 0.31 m
    "imu.vibration.engine_accel_mps2": [0, 0, 0.5],
}


@pytest.mark.parametrize(
    "speed, hz", [(0.0, 2 * 800 / 60), (5.0, 2 * 1580 / 60), (10, 2 * 2360 / 60)]
)
def test_the_engine_order_follows_the_vehicles_speed(speed, hz):
    """rpm = 800 + 156 v; the 2nd order at 2 rpm / 60 Hz (26.7 Hz at rest, 52.7 Hz at 5 m/s,
    78.7 Hz at 10 m/s), 0.5 m/s^2 on z times the two-step average's cos(pi f / 1000)."""
    f = _imu(1000.0, [], hz=1000, **ENGINE).process(driving(60.0, 1000.0, speed))
    fz = f["specific_force_flu_mps2"][:, 2] - G
    assert welch_peak(fz, 1000.0) == pytest.approx(hz, abs=2.0)  # its 3.9 Hz bins
    assert amplitude_at(fz[-30000:], 1000.0, hz) == pytest.approx(
        0.5 * np.cos(np.pi * hz / 1000), rel=0.01
    )


@pytest.mark.parametrize("model", ["acres", "configurable"])
def test_the_engine_batch_equals_chunks_equals_steps(model):
    truth = driving(0.3, 1000.0, 7.0)
    keys = {"imu.model": model, **ENGINE}
    whole = _imu(1000.0, [], **keys).process(truth)
    imu = _imu(1000.0, [], **keys)
    parts = [imu.process(truth.slice(k, k + 1)) for k in range(len(truth))]
    for key, value in whole.items():
        assert np.array_equal(np.concatenate([p[key] for p in parts]), value), key


ORDERS = {
    "imu.vibration.engine_idle_rpm": 1200,  # 20 rev/s at rest
    "imu.vibration.engine_orders": [
        {"order": 0.5, "accel_mps2": [0.3, 0, 0]},  # a four-stroke's half order: 10 Hz
        {"order": 2, "accel_mps2": [0, 0, 0.5]},  # a 4-cylinder's firing: 40 Hz
        {"order": 4, "accel_mps2": [0, 0.1, 0.2]},  # its 2nd harmonic: 80 Hz
    ],
}


@pytest.mark.parametrize("model", ["acres", "configurable"])
def test_several_engine_orders_show_at_their_frequencies_and_amplitudes(model):
    """imu.vibration.engine_orders (issue 30 item 2): at 1200 rpm the orders 0.5, 2 and 4 read
    at 10, 40 and 80 Hz with their own amplitudes on their own axes, times the two-step
    average's cos(pi f / 1000) (both IMUs' specific force)."""
    block = _imu(1000.0, [], hz=1000, **{"imu.model": model, **ORDERS}).process(
        at_rest(10.0, 1000.0)
    )
    f = block["specific_force_flu_mps2"][-9000:]  # 9 s: whole periods of each
    gain = lambda hz: np.cos(np.pi * hz / 1000)
    for axis, hz, amp in [(0, 10, 0.3), (2, 40, 0.5), (1, 80, 0.1), (2, 80, 0.2)]:
        got = amplitude_at(f[:, axis], 1000.0, hz)
        assert got == pytest.approx(amp * gain(hz), rel=1e-3), (axis, hz)
    assert amplitude_at(f[:, 0], 1000.0, 40) < 1e-6  # each order on its own axes only
    assert amplitude_at(f[:, 2], 1000.0, 10) < 1e-6


def test_the_list_adds_to_engine_order_which_stays_as_it_was():
    """engine_order's own amplitude keeps its bits with the list beside it: the run with both
    minus the run of the list alone is the run of engine_order alone, to rounding."""
    scalar = {"imu.vibration.engine_idle_rpm": 1200, "imu.vibration.engine_accel_mps2": [0, 0, 0.5]}
    truth = at_rest(1.0, 1000.0)

    def force(**keys):
        return _imu(1000.0, [], hz=1000, **keys).process(truth)["specific_force_flu_mps2"]

    both = force(**scalar, **{"imu.vibration.engine_orders": ORDERS["imu.vibration.engine_orders"]})
    alone = force(**scalar)
    listed = force(**ORDERS)
    np.testing.assert_allclose(both - listed + G * np.array([0, 0, 1]), alone, atol=1e-12)
    assert amplitude_at(both[-900:, 2], 1000.0, 40) == pytest.approx(
        np.cos(np.pi * 0.04) * 1.0, rel=1e-3
    )  # engine_order 2 (0.5) and the listed order 2 (0.5) at one phase: 1.0


@pytest.mark.parametrize("model", ["acres", "configurable"])
def test_the_engine_orders_batch_equals_chunks_equals_steps(model):
    truth = driving(0.3, 1000.0, 7.0)
    keys = {"imu.model": model, **ORDERS, "imu.vibration.engine_rpm_per_mps": 156}
    whole = _imu(1000.0, [], **keys).process(truth)
    imu = _imu(1000.0, [], **keys)
    parts = [imu.process(truth.slice(k, k + 1)) for k in range(len(truth))]
    for key, value in whole.items():
        assert np.array_equal(np.concatenate([p[key] for p in parts]), value), key


@pytest.mark.parametrize(
    "orders, message",
    [
        ([{"order": 0, "accel_mps2": [0, 0, 1]}], r"\[0\]\.order = 0 is not an engine order 0 < n"),
        ([{"order": 65, "accel_mps2": [0, 0, 1]}], r"\[0\]\.order = 65 is not an engine order"),
        ([{"order": 2}], r"\[0\] = \{.*\} is not an object with \"order\" and \"accel_mps2\""),
        (
            [{"order": 2, "accel_mps2": [0, 1]}],
            r"\[0\]\.accel_mps2 = \[0, 1\] is not an array of 3 amplitudes",
        ),
        (
            [{"order": 2, "accel_mps2": [0, 0, 1], "hz": 3}],
            r"\[0\]\.hz = 3 is not a key of an engine order: order, accel_mps2",
        ),
        ({"order": 2}, r" = .* is not an array of \{\"order\", \"accel_mps2\"\} objects"),
    ],
)
def test_a_bad_engine_order_is_one_line(orders, message):
    with pytest.raises(
        ConfigError, match=r"^command line: imu\.vibration\.engine_orders" + message
    ) as err:
        load_config(overrides={"imu.vibration.engine_orders": orders})
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("low", [0, 1e-6, 0.0999])
def test_a_band_from_0_hz_is_one_line(low):
    """random_band_hz = [0, 50] with a PSD ended in scipy's 'filter critical frequencies must
    be greater than 0' as an internal error (exit 2 with a request for a report); now one
    line naming the key. A low edge of 1e-6 Hz made the RMS scaling sum the band-pass's impulse
    response to its cap of 20 million samples (160 MB, an inexact RMS): 0.1 Hz at least."""
    from navsense.run import prepare_run

    over = {**RANDOM, "imu.vibration.random_band_hz": [low, 50]}
    with pytest.raises(
        ConfigError, match=rf"random_band_hz = \[{low:g}, 50\] is not 0.1 <= low < high"
    ):
        prepare_run(scenario="acre-loop", duration_s=1.0, overrides=over)


@pytest.mark.parametrize(
    "band", [[0.1, 0.10000001], [59.9999, 59.99999], [30, 30.05], [10, 59.95], [59.9, 59.99999]]
)
@pytest.mark.parametrize("level", ["random_rms_g", "random_psd_g2_per_hz"])
def test_a_band_too_narrow_or_at_half_the_rate_is_one_line(band, level):
    """random_band_hz = [0.1, 0.10000001] or [59.9999, 59.99999] at 120 Hz with random_rms_g
    ended in numpy's 'negative dimensions are not allowed' as an internal error: the band-pass's
    poles sat on or past the unit circle in its (b, a) form. The edges are now at least 0.1 Hz
    apart and 0.1 Hz below half the physics rate, one line naming the key and its value."""
    from navsense.run import prepare_run

    over = {f"imu.vibration.{level}": [0.1, 0.1, 0.1], "imu.vibration.random_band_hz": band}
    with pytest.raises(ConfigError, match=r"random_band_hz = \[.*at least 0\.1 Hz apart") as err:
        prepare_run(scenario="acre-loop", duration_s=1.0, overrides={**over, "physics.hz": 120})
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("rate", [50.0, 120.0, 1000.0, 2000.0])
@pytest.mark.parametrize("where", ["low", "high"])
def test_the_narrowest_band_allowed_is_a_stable_filter(rate, where):
    """At the edges of the rule (0.1 Hz wide, at 0.1 Hz or 0.1 Hz below half the rate) the
    band-pass's poles are inside the unit circle and its RMS scaling ends (the bound the rule
    was chosen by: scipy's design of the same filter)."""
    from scipy.signal import butter

    from navsense.sensors.vibration import _impulse_energy

    half = 0.5 * rate
    band = (0.1, 0.2) if where == "low" else (half - 0.2, half - 0.1)
    b, a = butter(2, band, btype="bandpass", fs=rate)
    assert np.max(np.abs(np.roots(a))) < 1.0 - 7e-5
    assert 0.0 < _impulse_energy(b, a) < 1.0
