"""A run directory whose episode.json holds a configuration value of the wrong type or out of
range (a damaged file: navsense writes only validated configurations) is refused by every reader
in one line naming episode.json and the key (issue 21), found by the fuzz suite as ValueError,
ZeroDivisionError and TypeError inside run_statistics."""

import json
import shutil
from pathlib import Path

import pytest

from navsense.cli import main
from navsense.errors import FormatError
from navsense.runs.stats import run_statistics

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "drive.csv"


@pytest.fixture(scope="module")
def good_run(tmp_path_factory) -> Path:
    run = tmp_path_factory.mktemp("config") / "run"
    assert main(["simulate", "--truth", str(EXAMPLE), "--quiet", "--out", str(run)]) == 0
    return run


DAMAGE = [
    (("gnss", "hz"), "", 'gnss.hz = "" is not a number'),
    (("gnss", "hz"), 0, "gnss.hz = 0"),
    (("gnss", "antenna_flu_m"), [1.1, [0.0], 2.15], "gnss.antenna_flu_m"),
    (("gnss", "antenna_flu_m"), [1.1, 0.0], "gnss.antenna_flu_m"),
    (("gnss",), [], "gnss"),
]


@pytest.mark.parametrize(("keys", "value", "message"), DAMAGE)
def test_a_damaged_configuration_value_is_named(good_run, tmp_path, capsys, keys, value, message):
    run = tmp_path / "run"
    shutil.copytree(good_run, run)
    episode = json.loads((run / "episode.json").read_text())
    block = episode["config"]
    for key in keys[:-1]:
        block = block[key]
    block[keys[-1]] = value
    (run / "episode.json").write_text(json.dumps(episode))
    with pytest.raises(FormatError, match="episode.json: config: ") as info:
        run_statistics(run)
    assert message in str(info.value) and "\n" not in str(info.value)
    assert main(["report", str(run)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]
    assert not (run / "report").exists()


def test_a_fix_type_the_receiver_never_writes_is_named(good_run, tmp_path, capsys):
    run = tmp_path / "run"
    shutil.copytree(good_run, run)
    rows = (run / "gnss.jsonl").read_bytes()
    (run / "gnss.jsonl").write_bytes(rows.replace(b'"fix_type":"', b'"fix_type":" ', 1))
    assert main(["report", str(run)]) == 2  # used to hang: the figure child was never reaped
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "gnss.jsonl: row 1: fix_type = ' " in err[0]
