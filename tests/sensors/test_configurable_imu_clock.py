"""The configurable IMU on a fast physics clock (issue 30 item 1): increments integrated over the
physics sub-steps (imu.configurable.deltas "integrated") and the output low-pass
(imu.configurable.bandwidth_hz), against analytic motions."""

import numpy as np
import pytest

from navsense.config import load_config
from navsense.errors import ConfigError
from navsense.run import check_rates
from navsense.simulate import build_models
from navsense.truth.states import TruthStates
from navsense.vehicles import vehicle_profile

POLARIS = vehicle_profile("polaris")


def _imu(rate_hz: float, hz: float = 100, **keys):
    over = {
        "physics.hz": rate_hz,
        "imu.hz": hz,
        "imu.model": "configurable",
        "noise": False,
        "mount_frame": "chassis",
        "imu.position_flu_m": [0, 0, 0],
        "gnss.enabled": False,
        "ins.enabled": False,
        **{f"imu.configurable.{k}": v for k, v in keys.items()},
    }
    cfg = load_config(vehicle="polaris", overrides=over)
    check_rates(cfg)
    (model,) = build_models(cfg, POLARIS, None, None)
    return model


def _states(t: np.ndarray, r: np.ndarray, w_world: np.ndarray, rate_hz: float) -> TruthStates:
    """A vehicle at rest at one point with attitude matrices ``r`` (body -> world)."""
    from scipy.spatial.transform import Rotation

    n = t.size
    p = np.tile([0.0, 0.0, 0.6], (n, 1))
    return TruthStates(
        step0=0,
        p_m=p,
        q_xyzw=Rotation.from_matrix(r).as_quat(),
        v_mps=np.zeros((n, 3)),
        w_radps=w_world,
        c_m=p.copy(),
        reset=np.zeros(n, dtype=bool),
        rate_hz=rate_hz,
    )


OMEGA, BETA = 2 * np.pi * 2.0, 0.1  # a cone swept twice a second, half-angle 0.1 rad


def coning_truth(seconds: float, rate_hz: float) -> TruthStates:
    """R(t) = Rz(W t) Rx(b) Rz(-W t): the body's axis on a cone of half-angle b about z;
    w_b = R^T dR/dt = W (R^T z - z) = W (-sin b sin W t, sin b cos W t, cos b - 1) (Savage,
    Strapdown Analytics, coning motion), w = R w_b in the world."""
    from scipy.spatial.transform import Rotation

    t = np.arange(int(round(seconds * rate_hz)) + 1) / rate_hz
    rz = Rotation.from_rotvec(np.outer(OMEGA * t, [0, 0, 1]))
    r = (rz * Rotation.from_rotvec([BETA, 0, 0]) * rz.inv()).as_matrix()
    w_b = OMEGA * np.column_stack(
        [
            -np.sin(BETA) * np.sin(OMEGA * t),
            np.sin(BETA) * np.cos(OMEGA * t),
            np.full(t.size, np.cos(BETA) - 1),
        ]
    )
    return _states(t, r, np.einsum("nij,nj->ni", r, w_b), rate_hz)


def integral_of_w_b(t1, t2):
    """The analytic integral of w_b over (t1, t2]."""
    s = np.sin(BETA)
    return np.column_stack(
        [
            s * (np.cos(OMEGA * t2) - np.cos(OMEGA * t1)),
            s * (np.sin(OMEGA * t2) - np.sin(OMEGA * t1)),
            OMEGA * (np.cos(BETA) - 1) * (t2 - t1),
        ]
    )


def test_the_truth_of_the_coning_motion_is_consistent():
    """w_b is the body rate of R(t): R_k+1 = R_k exp(w_b dt) to second order in dt."""
    from scipy.spatial.transform import Rotation

    truth = coning_truth(0.5, 2000.0)
    rot = Rotation.from_quat(truth.q_xyzw)
    w_b = np.einsum("nji,nj->ni", rot.as_matrix(), truth.w_radps)
    mid = 0.5 * (w_b[1:] + w_b[:-1]) / 2000.0
    step = (rot[:-1].inv() * rot[1:]).as_rotvec()
    np.testing.assert_allclose(step, mid, rtol=0, atol=1e-8)  # a 2e-9 rad second-order term


def test_integrated_increments_show_the_coning_a_strapdown_imu_sees():
    """Over 1 s at 1 kHz with the IMU at 100 Hz: the integrated increments are the integral of
    the body rate over each interval (the trapezoid's h^2/12 w'' error: 1.6e-7 rad), so their sum about the cone's axis
    drifts by W (cos b - 1) = -0.0628 rad a second though the attitude returns every 0.5 s; the
    specification's increments (the attitude change) leave out that coning term."""
    truth = coning_truth(1.0, 1000.0)
    block = _imu(1000.0, deltas="integrated").process(truth)
    assert block["sample_time_s"].size == 99  # 100 Hz, the first sample the reference
    t2 = block["sample_time_s"]
    want = integral_of_w_b(t2 - 0.01, t2)
    trapezoid = 1e-3**2 / 12 * OMEGA**3 * np.sin(BETA) * 0.01  # 1.6e-7 rad
    np.testing.assert_allclose(block["delta_angle_flu_rad"], want, rtol=0, atol=1.1 * trapezoid)
    np.testing.assert_allclose(block["delta_angle_flu_rad"][:, 2], want[:, 2], rtol=0, atol=1e-15)
    drift = block["delta_angle_flu_rad"][:, 2].sum()
    assert drift == pytest.approx(OMEGA * (np.cos(BETA) - 1) * 0.99, abs=1e-9)
    spec = _imu(1000.0).process(truth)["delta_angle_flu_rad"]
    # the coning correction, 1/12 (dtheta_1 x dtheta_2) an interval: about 1.2e-6 rad each
    assert abs(spec[:, 2].sum() - drift) > 5e-5
    # the rate and force outputs do not depend on the increments' option
    rate = _imu(1000.0).process(truth)["angular_velocity_flu_radps"]
    assert np.array_equal(block["angular_velocity_flu_radps"], rate)


def roll_truth(seconds: float, rate_hz: float, hz: float, amp_radps: float) -> TruthStates:
    """A roll oscillation w = (A cos 2 pi f t, 0, 0), roll angle A sin(2 pi f t) / (2 pi f)."""
    from scipy.spatial.transform import Rotation

    t = np.arange(int(round(seconds * rate_hz)) + 1) / rate_hz
    roll = amp_radps * np.sin(2 * np.pi * hz * t) / (2 * np.pi * hz)
    r = Rotation.from_rotvec(np.outer(roll, [1, 0, 0])).as_matrix()
    w = np.column_stack([amp_radps * np.cos(2 * np.pi * hz * t), np.zeros((t.size, 2))])
    return _states(t, r, w, rate_hz)


def _amplitude_at(y: np.ndarray, rate_hz: float, hz: float) -> float:
    spectrum = np.abs(np.fft.rfft(y - y.mean())) * 2 / y.size
    freqs = np.fft.rfftfreq(y.size, 1 / rate_hz)
    return float(spectrum[np.argmin(np.abs(freqs - hz))])


def test_a_rate_above_nyquist_aliases_and_the_low_pass_removes_it():
    """A 290 Hz roll oscillation on a 2 kHz clock, sampled at 100 Hz: it shows at |290 - 300| =
    10 Hz with the amplitude the specification's two-step average leaves, cos(pi 290 / 2000) =
    0.898 of it; a 40 Hz low-pass (2nd-order Butterworth: |H(290 Hz)| = 0.019) removes it."""
    truth = roll_truth(4.0, 2000.0, 290.0, 0.5)
    raw = _imu(2000.0, hz=100).process(truth)
    wx = raw["angular_velocity_flu_radps"][:, 0]
    assert _amplitude_at(wx, 100.0, 10.0) == pytest.approx(0.5 * np.cos(np.pi * 290 / 2000), 0.02)
    filtered = _imu(2000.0, bandwidth_hz=40.0).process(truth)["angular_velocity_flu_radps"][:, 0]
    assert _amplitude_at(filtered, 100.0, 10.0) < 0.5 * 0.03


def test_the_low_pass_passes_what_is_below_its_bandwidth():
    """A 5 Hz roll rate through a 40 Hz Butterworth: |H| = 1 / sqrt(1 + (5/40)^4) = 0.99988."""
    truth = roll_truth(4.0, 1000.0, 5.0, 0.5)
    wx = _imu(1000.0, bandwidth_hz=40.0).process(truth)["angular_velocity_flu_radps"][:, 0]
    # 100 samples a second: the last 2 s, 10 periods
    assert _amplitude_at(wx[-200:], 100.0, 5.0) == pytest.approx(0.5 * 0.99988, abs=2e-3)


@pytest.mark.parametrize("keys", [{"deltas": "integrated"}, {"bandwidth_hz": 30.0}])
def test_batch_equals_chunks_equals_steps(keys):
    truth = coning_truth(0.6, 1000.0)
    reset = truth.reset.copy()
    reset[311] = True  # a teleport restarts the differences, the filter and the sums
    truth = TruthStates(**{**truth.__dict__, "reset": reset})
    whole = _imu(1000.0, hz=250, **keys).process(truth)
    for sizes in [(1,), (7, 100, 1, 64), (311, 1, 2)]:
        model = _imu(1000.0, hz=250, **keys)
        parts, start, i = [], 0, 0
        while start < len(truth):
            parts.append(model.process(truth.slice(start, start + sizes[i % len(sizes)])))
            start += sizes[i % len(sizes)]
            i += 1
        for key, value in whole.items():
            assert np.array_equal(np.concatenate([p[key] for p in parts]), value), (key, sizes)


def test_a_bandwidth_at_half_the_physics_rate_is_refused():
    with pytest.raises(ConfigError, match=r"imu\.configurable\.bandwidth_hz = 60 is not 0 "):
        _imu(120.0, hz=120, bandwidth_hz=60.0)


@pytest.mark.parametrize(
    ("rate", "bandwidth"), [(120.0, 1e-9), (120.0, 1e-300), (120.0, 0.0999), (2000.0, 999.999999)]
)
def test_a_bandwidth_near_0_or_half_the_rate_is_one_line(rate, bandwidth):
    """imu.configurable.bandwidth_hz = 1e-9 at 120 Hz ended in scipy's 'Singular matrix' as an
    internal error (the low-pass's poles at 1 in its (b, a) form); 999.999999 at 2 kHz put a
    pole past the unit circle. Now one line naming the key and the value: 0.1 Hz up to 0.1 Hz
    below half the physics rate (0: no filter)."""
    with pytest.raises(
        ConfigError, match=r"bandwidth_hz = \S+ is not 0 \(no filter\) or 0\.1"
    ) as e:
        _imu(rate, hz=50, bandwidth_hz=bandwidth)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("rate", [50.0, 120.0, 2000.0])
def test_the_bandwidths_at_the_edges_are_a_stable_filter_of_gain_1(rate):
    """The edges of the rule (scipy's design of the same filter): every pole inside the unit
    circle, the gain at 0 Hz 1."""
    from scipy.signal import butter, lfilter_zi

    for bandwidth in (0.1, 0.5 * rate - 0.1):
        b, a = butter(2, bandwidth, fs=rate)
        assert np.max(np.abs(np.roots(a))) < 1.0 - 2e-4
        assert abs(b.sum() / a.sum() - 1.0) < 1e-9
        assert np.all(np.isfinite(lfilter_zi(b, a)))


def test_the_advice_fits_a_value_below_its_edge(tmp_path, capsys):
    """imu.configurable.bandwidth_hz = 0.05 was told to 'lower it or raise the physics rate',
    which cannot help a value below 0.1 Hz (found by the fuzz helper): the advice for a band or
    a filter's edge is to change it, or the physics rate; a rate above the clock keeps its own."""
    from navsense.cli import main

    argv = ["simulate", "--scenario", "acre-loop", "--duration", "1", "--out", str(tmp_path / "o")]
    low = ["--set", "imu.model=configurable", "--set", "imu.configurable.bandwidth_hz=0.05"]
    assert main([*argv, *low]) == 2
    assert "; change it, or the physics rate (--physics-hz" in capsys.readouterr().err
    assert main([*argv, "--imu-hz", "200"]) == 2
    assert "; lower it or raise the physics rate (--physics-hz" in capsys.readouterr().err
