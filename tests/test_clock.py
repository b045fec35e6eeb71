"""The physics clock: Due as the specification's loop, vectorised; delivery times."""

import numpy as np
import pytest

from navsense.clock import DUE_SLACK_S, Due, delivery_times


def _loop(hz, t):
    """The specification's rule written as its loop: sample when t + 1e-8 >= t_due."""
    t_due, out = 0.0, []
    for i, ti in enumerate(t):
        if ti + 1e-8 >= t_due:
            t_due += 1.0 / hz
            out.append(i)
    return out


T = np.arange(0, 24_001) / 120.0


@pytest.mark.parametrize("hz", [120, 100, 50, 33.3, 10, 7, 1])
def test_vectorised_due_equals_the_loop(hz):
    np.testing.assert_array_equal(Due(hz).sample_indices(T), _loop(hz, T))


@pytest.mark.parametrize("sizes", [(1,) * 500, (5, 17, 1000, 3), (24_001,)])
def test_due_in_chunks_equals_one_call(sizes):
    whole = Due(100).sample_indices(T)
    due, got, start = Due(100), [], 0
    for k in sizes:
        got.extend(start + due.sample_indices(T[start : start + k]))
        start += k
    np.testing.assert_array_equal(got, whole[: len(got)])


def test_scalar_call_matches_vectorised():
    a, b = Due(100), Due(100)
    scalar = [i for i, t in enumerate(T[:1000]) if a(t)]
    np.testing.assert_array_equal(scalar, b.sample_indices(T[:1000]))


def test_rate_100_hz_gives_intervals_of_one_and_two_steps():
    """Specification: the INS at 100 Hz gives intervals of one and of two physics steps."""
    steps = Due(100).sample_indices(T)
    assert set(np.diff(steps)) == {1, 2}
    assert len(steps) == 20_001  # mean rate 100 Hz over 200 s, first sample at t = 0


def test_first_sample_at_first_call_for_streaming():
    due = Due(10, start_s=None)
    assert due(5.0) and not due(5.05) and due(5.1 - DUE_SLACK_S / 2)


def test_delivery_is_the_first_step_at_or_after_available():
    sample = np.arange(0, 600) / 120.0
    for delay in (0.0, 0.05, 0.1, 0.013, 1.0):
        avail = sample + delay
        got = delivery_times(avail, 120.0)
        steps = np.arange(0, 1000) / 120.0
        want = steps[np.searchsorted(steps, avail, side="left")]
        np.testing.assert_array_equal(got, want)
        assert all(
            delivery_times(avail[i : i + 1], 120.0).tolist() == [got[i]] for i in range(len(avail))
        )
