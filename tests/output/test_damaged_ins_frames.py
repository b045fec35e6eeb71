"""A damaged ins.frames (an infinity, a negative variance: no INS writes either) is refused by
its readers in one line naming the file, epoch, field and value (issue 21), not turned into NaN
statistics."""

import shutil
from pathlib import Path

import numpy as np
import pytest

from navsense.cli import main
from navsense.output.frames import INS_FIELD_INDEX
from navsense.runs.ins_frames import read_ins_frames

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "drive.csv"


@pytest.fixture(scope="module")
def good_run(tmp_path_factory) -> Path:
    run = tmp_path_factory.mktemp("frames") / "run"
    assert main(["simulate", "--truth", str(EXAMPLE), "--quiet", "--out", str(run)]) == 0
    return run


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("InsCovN", -1e-4, "InsCovN = -0.0001 is not a variance >= 0 (or NaN)"),
        ("InsUtmE", np.inf, "InsUtmE = inf is not a finite number"),
    ],
)
@pytest.mark.parametrize("command", [["report"], ["export", "mcap"]])
def test_a_damaged_frame_is_one_line_naming_epoch_field_and_value(
    good_run, tmp_path, capsys, field, value, message, command
):
    run = tmp_path / "run"
    shutil.copytree(good_run, run)
    frames = read_ins_frames(run / "ins.frames")
    frames[7, INS_FIELD_INDEX[field]] = value
    (run / "ins.frames").write_bytes(frames.astype("<f8").tobytes())
    assert main([*command, str(run)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"ins.frames: epoch 7: {message}" in err[0]
    assert not (run / "ros2.mcap").exists() and not (run / "report").exists()
