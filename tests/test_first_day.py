"""What a user hits on the first day (issue 18 item 6): a failed run leaves nothing behind, the
report refuses a time outside the run, the truth command refuses an existing file."""

from __future__ import annotations

import pytest

from navsense.cli import main


def test_a_failed_simulate_leaves_no_empty_runs_directory(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["simulate", "--truth", "missing.csv", "--quiet"]) == 2
    assert "missing.csv: no such truth log" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
    # the same with --out in new folders: none of them is left
    assert main(["simulate", "--truth", "missing.csv", "--out", "a/b/run", "--quiet"]) == 2
    assert list(tmp_path.iterdir()) == []
    # a folder that existed before the run stays, with what it held
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "old").mkdir()
    assert main(["simulate", "--truth", "missing.csv", "--quiet"]) == 2
    assert [p.name for p in (tmp_path / "runs").iterdir()] == ["old"]


def test_report_refuses_a_sky_time_outside_the_run(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    run = tmp_path / "run"
    argv = ["simulate", "--scenario", "acre-loop", "--duration", "30", "--no-ins", "--no-imu"]
    assert main([*argv, "--out", str(run), "--quiet"]) == 0
    for bad in ("9999", "-5", "30.2"):
        assert main(["report", str(run), "--time-s", bad]) == 2
        err = capsys.readouterr().err.splitlines()
        assert err == [
            f"navsense: error: --time-s {float(bad):g} is outside the run: its GNSS epochs are "
            "at 0 .. 30 s"
        ]
        assert not (run / "report").exists()
    assert main(["report", str(run), "--time-s", "30.04"]) == 0  # within half an epoch
    assert (run / "report" / "report.html").is_file()
