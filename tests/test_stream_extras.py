"""SensorStream(extras=True): the lines of gnss.nmea and the frames of ins.frames, each with its
row, equal to a run's files over the same truth (in this process or in a worker)."""

import numpy as np
import pytest

from navsense.config import load_config
from navsense.runs.ins_frames import read_ins_frames
from navsense.scenarios import load_scenario
from navsense.simulate import simulate
from navsense.stream import SensorStream

STEPS = 600  # 5 s of acre-loop: 50 GNSS epochs, 500 INS epochs


@pytest.fixture(scope="module")
def scenario():
    return load_scenario("acre-loop")


@pytest.fixture(scope="module")
def cfg():
    return load_config(vehicle="polaris")


@pytest.fixture(scope="module")
def run(scenario, cfg, tmp_path_factory):
    out = tmp_path_factory.mktemp("run") / "run"
    simulate(scenario.truth.slice(0, STEPS), cfg, scenario.vehicle, scenario.site, out)
    return out


def _feed(stream, truth, sizes):
    """[(last step, delivered)] and the rest at close, ``truth`` fed in chunks of ``sizes``."""
    out, start, i = [], 0, 0
    while start < len(truth):
        chunk = truth.slice(start, start + sizes[i % len(sizes)])
        out.append((chunk.step0 + len(chunk) - 1, stream.step(chunk)))
        start += len(chunk)
        i += 1
    out.append((None, stream.close()))
    return out


@pytest.mark.parametrize(("worker", "sizes"), [(False, (1,)), (True, (1,)), (True, (1, 37, 5))])
def test_the_extras_are_the_runs_files_with_their_rows(scenario, cfg, run, worker, sizes):
    stream = SensorStream(cfg, scenario.vehicle, scenario.site, worker=worker, extras=True)
    delivered = _feed(stream, scenario.truth.slice(0, STEPS), sizes)
    lines, frames, ins_rows = [], [], 0
    for last, got in delivered:
        lines += got.get("gnss.nmea", [])
        frames += got.get("ins.frames", [])
        assert len(got.get("ins.frames", [])) == len(got.get("ins", []))  # a frame with its row
        ins_rows += len(got.get("ins", []))
        if sizes == (1,) and last is not None:  # one step a call: each epoch's lines with its row
            gga = [x for x in got.get("gnss.nmea", []) if x.startswith("$GNGGA")]
            assert gga == [r["nmea_gga"] for r in got.get("gnss", [])]
            assert bool(got.get("gnss.nmea")) == bool(got.get("gnss"))
    assert lines == (run / "gnss.nmea").read_text().splitlines()
    assert sum(x.startswith("$GNGGA") for x in lines) == 50 and ins_rows == 500
    assert len(lines) > 500  # the whole sentence set of each epoch (issue 20)
    assert np.array_equal(np.array(frames), read_ins_frames(run / "ins.frames"))


def test_without_extras_only_rows(scenario, cfg):
    stream = SensorStream(cfg, scenario.vehicle, scenario.site, worker=False)
    names = set()
    for _, got in _feed(stream, scenario.truth.slice(0, 30), (1,)):
        names |= got.keys()
    assert names == {"gnss", "imu", "ins"}
