"""A closed route repeated beyond one run is made chunk by chunk from one run (issue 31 item 4:
a day of acre-loop is 1.3 GB whole): the same rows as the whole, and the same run directory."""

from pathlib import Path

import numpy as np
import pytest

from navsense.run import prepare_run
from navsense.scenarios import load_scenario
from navsense.truth.states import TruthStates

FIELDS = ("p_m", "q_xyzw", "v_mps", "w_radps", "c_m", "reset")


def test_the_chunks_of_a_repeated_route_are_the_slices_of_its_whole_log():
    lap_s = load_scenario("acre-loop").truth_duration_s
    scen = load_scenario("acre-loop", duration_s=2.5 * lap_s)  # three laps, the second flipped
    chunks = scen.truth_chunks(7001)
    assert not isinstance(chunks, TruthStates)
    chunks = list(chunks)
    whole = load_scenario("acre-loop", duration_s=2.5 * lap_s).truth
    assert sum(len(c) for c in chunks) == len(whole) == scen.truth_rows
    for chunk, part in zip(chunks, whole.chunks(7001)):
        assert chunk.step0 == part.step0 and chunk.rate_hz == part.rate_hz
        for name in FIELDS:
            assert np.array_equal(getattr(chunk, name), getattr(part, name)), name
    assert scen.truth_chunks(100).__class__ is not TruthStates  # not built by asking
    assert load_scenario("acre-loop", duration_s=60.0).truth_chunks(100).__class__ is TruthStates


def _files(run: Path) -> dict:
    return {p.name: p.read_bytes() for p in sorted(run.iterdir())}


@pytest.mark.parametrize("fmt", ["parquet"])
def test_a_run_over_a_repeated_route_writes_the_bytes_of_the_whole_truth(tmp_path, fmt):
    lap_s = load_scenario("acre-loop").truth_duration_s
    duration = round(lap_s + 30.0)
    lazy = prepare_run(duration_s=duration, overrides=[("test", {"ins.enabled": False})])
    assert lazy.total_steps == round(duration * 120) + 1
    lazy.simulate(tmp_path / "lazy", output_format=fmt, chunk_steps=5000)
    whole = prepare_run(duration_s=duration, overrides=[("test", {"ins.enabled": False})])
    assert len(whole.truth) == lazy.total_steps  # built: the run then takes it whole
    whole.simulate(tmp_path / "whole", output_format=fmt, chunk_steps=5000)
    assert _files(tmp_path / "lazy") == _files(tmp_path / "whole")
