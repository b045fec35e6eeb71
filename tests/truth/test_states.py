"""TruthStates: slices, chunks and concatenation keep every field (the streaming API's step)."""

import dataclasses

import numpy as np

from navsense.truth.states import TruthStates


def _truth(n: int = 10) -> TruthStates:
    rng = np.random.default_rng(3)
    return TruthStates(
        step0=40,
        p_m=rng.normal(size=(n, 3)),
        q_xyzw=rng.normal(size=(n, 4)),
        v_mps=rng.normal(size=(n, 3)),
        w_radps=rng.normal(size=(n, 3)),
        c_m=rng.normal(size=(n, 3)),
        reset=rng.random(n) < 0.3,
        rate_hz=100.0,
    )


def test_a_slice_is_the_truthstates_of_its_rows():
    truth = _truth()
    for start, stop in ((3, 4), (0, 10), (-5, 2), (8, 99), (6, 6)):
        part = truth.slice(start, stop)
        lo, hi = max(0, start), min(10, stop)
        want = TruthStates(
            step0=40 + lo,
            p_m=truth.p_m[lo:hi],
            q_xyzw=truth.q_xyzw[lo:hi],
            v_mps=truth.v_mps[lo:hi],
            w_radps=truth.w_radps[lo:hi],
            c_m=truth.c_m[lo:hi],
            reset=truth.reset[lo:hi],
            rate_hz=100.0,
        )
        assert type(part) is TruthStates and len(part) == hi - lo
        for field in dataclasses.fields(TruthStates):
            got, expected = getattr(part, field.name), getattr(want, field.name)
            assert np.array_equal(got, expected) and type(got) is type(expected), field.name
        assert np.shares_memory(part.p_m, truth.p_m) or hi == lo  # views, no copy
    step = truth.slice(3, 4)
    assert step.t_s.tolist() == [43 / 100.0] and step.steps.tolist() == [43]


def test_chunks_join_back_into_the_whole():
    truth = _truth()
    back = TruthStates.concatenate(list(truth.chunks(3)))
    for field in dataclasses.fields(TruthStates):
        assert np.array_equal(getattr(back, field.name), getattr(truth, field.name)), field.name
