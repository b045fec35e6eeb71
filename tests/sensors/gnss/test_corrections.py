"""Correction age (specification, "Correction Stream"; DESIGN.md ruling "Correction stream")."""

import math

import numpy as np
import pytest

from navsense.config import load_config
from navsense.config.typed.gnss import CorrectionsConfig
from navsense.sensors.gnss.corrections import CorrectionStream

ms = 1e-3


def brute_force_age(t, interval, latency, outages, cold):
    """Independent reference: the newest message j <= j0 that is received, by enumeration."""
    j0 = math.floor((t - latency) / interval + 1e-9)
    for j in range(j0, j0 - 100_000, -1):
        if cold and j < 0:
            return math.nan
        gen = j * interval
        if not any(a <= gen < b for a, b in outages):
            return t - j * interval
    raise AssertionError("no message found")


def test_age_without_outages_converged():
    s = CorrectionStream(1.0, 0.3)
    t = np.array([0.0, 0.29, 0.3, 0.5, 1.29, 1.3, 2.0])
    # j = floor(t - 0.3 + 1e-9): -1, -1, 0, 0, 0, 1, 1; the stream ran before t = 0
    np.testing.assert_allclose(s.age_s(t), [1.0, 1.29, 0.3, 0.5, 1.29, 0.3, 1.0], atol=1e-12)


def test_cold_start_has_no_age_before_the_first_message():
    s = CorrectionStream(1.0, 0.3, cold=True)
    age = s.age_s(np.array([0.0, 0.2999, 0.3, 1.0]))
    assert np.isnan(age[:2]).all()
    np.testing.assert_allclose(age[2:], [0.3, 1.0], atol=1e-12)


def test_arrival_exactly_at_the_epoch_counts():
    # t - T_l = j T_c up to rounding: the 1e-9 of the floor takes message j
    s = CorrectionStream(0.1, 0.3)
    t = np.arange(1, 200) / 120.0
    j = s.message_index(t)
    arrived = j * 0.1 + 0.3
    assert (arrived <= t + 1e-9).all()
    assert ((j + 1) * 0.1 + 0.3 > t + 1e-9 - 1e-12).all()


def test_outage_start_is_inclusive_and_end_exclusive():
    s = CorrectionStream(1.0, 0.3, outages_s=((3.0, 5.0),))
    t = np.array([3.29, 3.3, 4.3, 5.29, 5.3])
    # messages 3 and 4 (generated at 3.0 and 4.0) are lost; message 5 (at 5.0) is received
    np.testing.assert_allclose(s.age_s(t), [1.29, 1.3, 2.3, 3.29, 0.3], atol=1e-12)


def test_outage_between_two_generation_times_loses_nothing():
    s = CorrectionStream(1.0, 0.3, outages_s=((3.2, 3.9),))
    t = np.linspace(0.0, 8.0, 801)
    np.testing.assert_array_equal(s.age_s(t), CorrectionStream(1.0, 0.3).age_s(t))


def test_outage_ending_on_a_generation_time():
    s = CorrectionStream(1.0, 0.0, outages_s=((2.5, 4.0),))
    # message 3 lost (2.5 <= 3.0 < 4.0), message 4 received (end exclusive)
    np.testing.assert_allclose(s.age_s(np.array([3.5, 4.0])), [1.5, 0.0], atol=1e-12)


def test_step_back_repeats_through_an_earlier_outage():
    s = CorrectionStream(1.0, 0.3, outages_s=((3.0, 5.0), (1.0, 2.5)))
    # at 4.3: j = 4 is lost -> last before 3.0 is j = 2, also lost (1.0 <= 2.0 < 2.5) -> j = 0
    np.testing.assert_allclose(s.age_s(np.array([4.3])), [4.3], atol=1e-12)


def test_overlapping_outages():
    s = CorrectionStream(1.0, 0.0, outages_s=((2.0, 10.0), (5.0, 6.0)))
    np.testing.assert_allclose(s.age_s(np.array([5.5, 9.9, 10.0])), [4.5, 8.9, 0.0], atol=1e-12)


def test_cold_start_stepping_back_below_zero_has_no_age():
    s = CorrectionStream(1.0, 0.3, outages_s=((0.0, 10.0),), cold=True)
    age = s.age_s(np.array([0.5, 9.9, 10.29, 10.3]))
    assert np.isnan(age[:3]).all()
    assert age[3] == pytest.approx(0.3, abs=1e-12)


def test_converged_start_steps_back_to_messages_before_t0():
    s = CorrectionStream(1.0, 0.3, outages_s=((0.0, 10.0),))
    # the last message before the outage is j = -1 (generated at -1.0)
    np.testing.assert_allclose(s.age_s(np.array([0.5, 9.5])), [1.5, 10.5], atol=1e-12)


def test_decimal_interval_boundaries():
    # 0.1 s interval: 3 x 0.1 = 0.30000000000000004 lies in [0.3, 0.5), 2 x 0.1 does not
    s = CorrectionStream(0.1, 0.0, outages_s=((0.3, 0.5),))
    j = s.message_index(np.array([0.35, 0.45, 0.5]))
    np.testing.assert_array_equal(j, [2.0, 2.0, 5.0])


@pytest.mark.parametrize("cold", [False, True])
@pytest.mark.parametrize("interval,latency", [(1.0, 0.3), (0.2, 0.05), (2.5, 1.0), (0.1, 0.0)])
def test_against_enumeration(cold, interval, latency):
    rng = np.random.default_rng(7)
    # outage edges on and off the generation times
    edges = np.sort(
        np.concatenate([rng.integers(0, 60, 4) * interval, rng.uniform(0.0, 60 * interval, 4)])
    )
    outages = tuple(
        (float(edges[k]), float(edges[k + 1])) for k in range(0, 8, 2) if edges[k] < edges[k + 1]
    )
    s = CorrectionStream(interval, latency, outages_s=outages, cold=cold)
    t = np.arange(0, int(70 * interval * 120)) / 120.0
    got = s.age_s(t)
    want = np.array([brute_force_age(x, interval, latency, outages, cold) for x in t])
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    np.testing.assert_allclose(got[ok], want[ok], rtol=0, atol=1e-9 * ms)


def test_any_cut_gives_the_same_ages():
    s = CorrectionStream(1.0, 0.3, outages_s=((12.0, 31.0),), cold=True)
    t = np.arange(0, 120 * 50) / 120.0
    whole = s.age_s(t)
    parts = np.concatenate([s.age_s(t[a : a + 77]) for a in range(0, t.size, 77)])
    np.testing.assert_array_equal(whole, parts)


def test_from_the_validated_configuration():
    """gnss.corrections and gnss.start as the stream takes them (the schema checks them:
    tests/config)."""
    cfg = load_config(
        overrides={
            "gnss.start": "cold",
            "gnss.corrections.interval_s": 1,
            "gnss.corrections.outages_s": [[1, 2]],
        }
    )
    s = CorrectionStream.of(CorrectionsConfig.from_validated(cfg))
    assert s.cold and s.interval_s == 1.0 and s.latency_s == 0.3
    assert s.outages_s == ((1.0, 2.0),) and type(s.outages_s[0][0]) is float


@pytest.mark.parametrize("cold", [False, True])
def test_one_epoch_equals_the_batch_bit_for_bit(cold):
    # outages on and off the generation times, nested and overlapping; cold: NaN before the
    # first message and when stepping back goes below 0
    s = CorrectionStream(
        0.2, 0.05, outages_s=((0.0, 0.9), (3.0, 7.4), (5.0, 6.0), (9.1, 9.9)), cold=cold
    )
    t = np.concatenate([np.arange(0, 120 * 12) / 120.0, [-0.3, -0.0, 123456.789, 1e9 + 0.05]])
    for method in (s.age_s, s.message_index):
        whole = method(t)
        steps = [method(t[k : k + 1]) for k in range(t.size)]
        assert all(x.shape == (1,) and x.dtype == whole.dtype for x in steps)
        assert np.concatenate(steps).tobytes() == whole.tobytes()
        assert cold == bool(np.isnan(whole).any())
