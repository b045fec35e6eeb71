"""Every file of the golden runs is byte-identical to the recorded digests (issue 17's proof)."""

import json

import pytest

from golden_runs import GOLDEN_FILE, RUNS, machine, run_all


def test_golden_outputs_unchanged(tmp_path):
    golden = json.loads(GOLDEN_FILE.read_text())
    if golden["machine"] != machine():
        pytest.skip(
            "digests recorded with another numpy or CPU: "
            f"{golden['machine']['numpy']} vs {machine()['numpy']}"
        )
    assert set(golden["runs"]) == set(RUNS)
    runs = run_all(tmp_path)
    for name, files in golden["runs"].items():
        assert runs[name].keys() == files.keys(), f"{name}: files differ"
        changed = [f for f in files if runs[name][f] != files[f]]
        assert not changed, f"{name}: changed bytes in {changed}"
