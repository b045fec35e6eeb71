"""Every file of the golden runs is byte-identical to the recorded digests (issue 17's proof)."""

import json

import pytest

from golden_runs import GOLDEN_FILE, RUNS, machine, run_all


def test_golden_outputs_unchanged(tmp_path):
    """Skipped with another numpy. With the same numpy on a CPU of other features (numpy
    dispatches its loops by them: this machine lacks the recorded one's AVX512FP16 and
    AVX512_SPR), the runs are still compared: equal digests pass, and a difference skips,
    since it cannot be told from a dispatch difference (before, the test skipped on any other
    CPU and checked nothing on the machines of the developers and of CI)."""
    golden = json.loads(GOLDEN_FILE.read_text())
    here = machine()
    if golden["machine"]["numpy"] != here["numpy"]:
        pytest.skip(
            f"digests recorded with numpy {golden['machine']['numpy']}, not {here['numpy']}"
        )
    assert set(golden["runs"]) == set(RUNS)
    runs = run_all(tmp_path)
    same_cpu = golden["machine"] == here
    for name, files in golden["runs"].items():
        assert runs[name].keys() == files.keys(), f"{name}: files differ"
        changed = [f for f in files if runs[name][f] != files[f]]
        if changed and not same_cpu:
            pytest.skip(f"{name}: changed bytes in {changed}, on a CPU of other features")
        assert not changed, f"{name}: changed bytes in {changed}"
