"""Campaigns end to end: Dask = serial in any order, reruns, failing points, resuming."""

import fnmatch
import json
import random
from pathlib import Path

import orjson
import pyarrow.parquet as pq
import pytest

from campaign.campaign_helpers import campaign_cli, write_campaign, write_open_sky_truth
from navsense.campaign.runner import (
    RESULTS_DIR,
    execute_run,
    rerun,
    run_campaign,
    serial_executor,
)
from navsense.campaign.spec import load_campaign
from navsense.campaign.summary import statistics_table, summary_table, write_summary
from navsense.cli import main as navsense_main

EIGHT_RUNS = {
    "seeds": {"start": 40, "count": 4},
    "sources": [{"truth": "circle.csv"}],
    "sweep": {"grid": {"gnss.corrections.baseline_km": [1, 30]}},
}


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("campaign")
    write_open_sky_truth(base / "circle.csv", seconds=20.0)
    return base


@pytest.fixture(scope="module")
def serial(folder) -> Path:
    """The 8-run campaign, run serially in this process."""
    path = write_campaign(folder / "eight.json", **EIGHT_RUNS)
    out = folder / "serial"
    outcome = run_campaign(load_campaign(path), out, workers=0, progress=False)
    assert (outcome.ok, outcome.failed) == (8, 0)
    return out


def _shuffled(seed):
    def execute(runs, fn):
        runs = list(runs)
        random.Random(seed).shuffle(runs)
        return serial_executor(runs, fn)

    return execute


def test_dask_local_cluster_with_two_workers_gives_the_serial_table(folder, serial):
    pytest.importorskip("distributed")
    out = folder / "dask"
    assert (
        campaign_cli(
            ["run", str(folder / "eight.json"), "--out", str(out), "--workers", "2", "--quiet"]
        )
        == 0
    )
    assert (out / "statistics.parquet").read_bytes() == (serial / "statistics.parquet").read_bytes()
    table = pq.read_table(out / "statistics.parquet")
    assert table.num_rows == 8 and table.column("run_id").to_pylist() == sorted(
        table.column("run_id").to_pylist()
    )
    assert set(table.column("status").to_pylist()) == {"ok"}
    workers = {json.loads(p.read_text())["worker"] for p in (out / RESULTS_DIR).glob("*.json")}
    assert len(workers) == 2  # both workers ran runs


@pytest.mark.parametrize("order", [1, 2])
def test_any_completion_order_gives_the_same_table(folder, serial, order):
    out = folder / f"order{order}"
    run_campaign(
        load_campaign(folder / "eight.json"), out, executor=_shuffled(order), progress=False
    )
    assert (out / "statistics.parquet").read_bytes() == (serial / "statistics.parquet").read_bytes()


def test_table_columns(serial):
    table = statistics_table(serial)
    assert table.column_names[:10] == [
        "run_id",
        "status",
        "error",
        "source",
        "vehicle",
        "agent",
        "seed",
        "point",
        "point_label",
        "gnss.corrections.baseline_km",
    ]
    assert sorted(set(table.column("seed").to_pylist())) == [40, 41, 42, 43]
    assert table.column("gnss.corrections.baseline_km").to_pylist().count(30) == 4
    assert table.column("gnss_rtk_fixed_fraction").to_pylist() == [1.0] * 8


def test_summary_per_sweep_point(serial, capsys):
    assert campaign_cli(["summary", str(serial)]) == 0
    printed = capsys.readouterr().out
    assert (
        "p000 gnss.corrections.baseline_km=1 | circle.csv | polaris: 4 runs ok, 0 failed" in printed
    )
    summary = pq.read_table(serial / "summary.parquet")
    assert summary.equals(summary_table(serial))
    assert (serial / "summary.csv").read_text().startswith('"point","point_label","source"')
    rows = [r for r in summary.to_pylist() if r["statistic"] == "gnss_rtk_fixed_h_rms_m"]
    assert [r["point"] for r in rows] == [0, 1] and all(r["n"] == 4 for r in rows)
    for r in rows:
        assert r["p5"] <= r["p50"] <= r["p95"] and r["std"] > 0
    # the 30 km baseline adds 1 ppm: 30 mm to the horizontal sigma (specification, error model)
    assert rows[1]["mean"] > rows[0]["mean"] + 0.01


@pytest.fixture(scope="module")
def kept(folder) -> Path:
    """A 4-run campaign with keep = "runs", run serially."""
    path = write_campaign(
        folder / "keep.json",
        keep="runs",
        seeds=[7, 8],
        sources=[{"truth": "circle.csv"}],
        sweep={"points": [{"gnss.hz": 5}, {"ins.hz": 50}]},
    )
    out = folder / "keep"
    outcome = run_campaign(load_campaign(path), out, workers=0, progress=False)
    assert outcome.ok == 4
    return out


def test_rerun_is_byte_identical_to_the_kept_run(folder, kept, capsys):
    out = kept
    run_id = sorted(p.name for p in (out / "runs").iterdir())[3]
    new = folder / "rerun-copy"
    assert campaign_cli(["rerun", str(out), run_id[:12], "--out", str(new)]) == 0
    assert "identical to the campaign's copy" in capsys.readouterr().out
    names = sorted(p.name for p in (out / "runs" / run_id).iterdir())
    assert names == [
        "episode.json",
        "gnss.jsonl",
        "gnss.nmea",
        "imu.jsonl",
        "ins.frames",
        "ins.jsonl",
    ]
    for name in names:
        assert (new / name).read_bytes() == (out / "runs" / run_id / name).read_bytes(), name


def test_a_campaign_run_equals_navsense_simulate_with_the_same_options(folder, kept):
    out = kept
    run = next(
        r for r in load_campaign(folder / "keep.json").runs if r["seed"] == 8 and r["point"] == 0
    )
    sim = folder / "simulate-copy"
    assert (
        navsense_main(
            [
                "simulate",
                "--truth",
                str((folder / "circle.csv").resolve()),
                "--seed",
                "8",
                "--gnss-hz",
                "5",
                "--out",
                str(sim),
                "--quiet",
            ]
        )
        == 0
    )
    for name in ("episode.json", "gnss.jsonl", "ins.frames", "imu.jsonl"):
        assert (sim / name).read_bytes() == (out / "runs" / run["run_id"] / name).read_bytes()


def test_rerun_of_a_statistics_campaign_compares_the_statistics(serial):
    run_id = sorted(p.stem for p in (serial / RESULTS_DIR).glob("*.json"))[5]
    report = rerun(serial, run_id)
    assert report.compared == "statistics" and report.identical
    assert report.run_dir == serial / "reruns" / run_id
    assert (report.run_dir / "gnss.jsonl").is_file()


def test_rerun_refuses_a_changed_input(tmp_path, capsys):
    write_open_sky_truth(tmp_path / "t.csv", seconds=3.0)
    path = write_campaign(tmp_path / "c.json", seeds=[1], sources=[{"truth": "t.csv"}])
    run_campaign(load_campaign(path), tmp_path / "out", workers=0, progress=False)
    write_open_sky_truth(tmp_path / "t.csv", seconds=4.0)
    run_id = load_campaign(path).runs[0]["run_id"]
    old_id = json.loads((tmp_path / "out" / "campaign.json").read_text())["runs"][0]["run_id"]
    assert old_id != run_id
    assert campaign_cli(["rerun", str(tmp_path / "out"), old_id]) == 2
    assert "changed since the campaign ran" in capsys.readouterr().err


@pytest.fixture(scope="module")
def bad_campaign(folder) -> Path:
    """A campaign whose sweep point p001 fails its runs: the GNSS in the nad83 frame at a site in
    Munich, outside NAD83 (a valid value that the run's site refuses)."""
    site = {"name": "munich", "georeference": {"kind": "local", "lat_deg": 48.1, "lon_deg": 11.6}}
    (folder / "munich.site.json").write_text(json.dumps(site))
    return write_campaign(
        folder / "bad.json",
        seeds=[1, 2],
        sources=[{"truth": "circle.csv", "site": "munich.site.json"}],
        sweep={"points": [{}, {"gnss.datum.output_frame": "nad83"}, {"gnss.hz": 5}]},
    )


def test_a_sweep_value_is_refused_before_the_first_run(folder, capsys):
    """Issue 18 item 5: a wrong value is refused when the campaign is read, as a wrong key is,
    naming the file, the sweep point, the key, the value and the range; no run starts."""
    path = write_campaign(
        folder / "bad-value.json",
        seeds=[1, 2],
        sources=[{"truth": "circle.csv"}],
        sweep={"points": [{}, {"gnss.hz": 2400}, {"gnss.hz": 5}]},
    )
    out = folder / "bad-value"
    assert campaign_cli(["run", str(path), "--out", str(out), "--workers", "0", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "bad-value.json: sweep point p001: gnss.hz = 2400 is out of range 1..2000" in err
    assert not out.exists()
    overrides = write_campaign(
        folder / "bad-override.json",
        seeds=[1],
        sources=[{"truth": "circle.csv"}],
        overrides={"gnss.start": "lukewarm"},
    )
    assert campaign_cli(["run", str(overrides), "--out", str(out), "--quiet"]) == 2
    assert 'bad-override.json: overrides: gnss.start = "lukewarm"' in capsys.readouterr().err


def test_one_failing_sweep_point_fails_alone_with_a_clear_message(folder, bad_campaign, capsys):
    path = bad_campaign
    out = folder / "bad"
    assert campaign_cli(["run", str(path), "--out", str(out), "--workers", "0", "--quiet"]) == 1
    err = capsys.readouterr().err
    message = "gnss.datum.output_frame = \"nad83\": the site 'munich' at 48.1000, 11.6000 deg"
    assert "4 ok, 2 failed" in err and message in err
    table = statistics_table(out).to_pylist()
    assert [r["status"] for r in table] == ["ok", "ok", "failed", "failed", "ok", "ok"]
    assert all(message in r["error"] for r in table if r["status"] == "failed")
    assert all(r["gnss_epochs"] is None for r in table if r["status"] == "failed")
    summary = write_summary(out).to_pylist()
    p1 = [r for r in summary if r["point"] == 1]
    assert p1 and all(r["runs"] == 0 and r["failed"] == 2 and r["mean"] is None for r in p1)


def test_resumed_campaign_does_only_what_was_missing(folder, serial):
    out = folder / "resume"
    campaign = load_campaign(folder / "eight.json")
    done = []

    class Stop(Exception):
        pass

    def interrupted(runs, fn):  # a campaign killed after its third run
        for run in runs:
            if len(done) == 3:
                raise Stop
            done.append(run["run_id"])
            yield fn(run)

    with pytest.raises(Stop):
        run_campaign(campaign, out, executor=interrupted, progress=False)
    assert statistics_table(out).num_rows == 3  # the table of what finished is written
    first = list(done)

    def counting(runs, fn):
        for run in runs:
            done.append(run["run_id"])
            yield fn(run)

    outcome = run_campaign(campaign, out, executor=counting, progress=False)
    assert (outcome.skipped, outcome.ok) == (3, 5)
    assert sorted(done) == sorted(r["run_id"] for r in campaign.runs)  # each run once
    assert set(done[3:]).isdisjoint(first)
    assert (out / "statistics.parquet").read_bytes() == (serial / "statistics.parquet").read_bytes()
    again = run_campaign(campaign, out, executor=counting, progress=False)
    assert (again.skipped, again.ok, len(done)) == (8, 0, 8)


def test_failed_runs_are_kept_unless_retried(folder, bad_campaign):
    campaign = load_campaign(bad_campaign)
    out = folder / "bad-retry"
    assert run_campaign(campaign, out, workers=0, progress=False).failed == 2
    calls = []

    def counting(runs, fn):
        calls.extend(r["run_id"] for r in runs)
        return serial_executor(runs, fn)

    assert run_campaign(campaign, out, executor=counting, progress=False).skipped == 6
    assert calls == []
    outcome = run_campaign(campaign, out, executor=counting, progress=False, retry_failed=True)
    assert (outcome.skipped, outcome.failed, len(calls)) == (4, 2, 2)


def test_execute_run_records_an_unexpected_error(folder):
    run = dict(load_campaign(folder / "eight.json").runs[0])
    run["source"] = {"truth": str(folder / "vanished.csv")}
    result = execute_run(run)
    assert result["status"] == "failed" and "vanished.csv" in result["error"]
    assert orjson.loads(orjson.dumps(result)) == result


def test_command_line_errors(folder, serial, capsys):
    assert campaign_cli(["run", str(folder / "none.toml"), "--out", str(folder / "x")]) == 2
    assert "cannot read the campaign file" in capsys.readouterr().err
    assert (
        campaign_cli(
            ["run", str(folder / "eight.json"), "--out", str(folder / "x"), "--workers", "-1"]
        )
        == 2
    )
    assert campaign_cli(["summary", str(folder / "nothing")]) == 2
    assert "not a campaign directory" in capsys.readouterr().err
    assert campaign_cli(["rerun", str(folder / "serial"), "p999"]) == 2
    assert "no run 'p999'" in capsys.readouterr().err


def test_an_empty_out_or_a_file_is_one_line(tmp_path, monkeypatch, capsys):
    """campaign run --out '' ran the campaign into the working directory (Path('') is '.': its
    campaign.json, results/ and statistics.parquet among the user's files, exit 0), and --out
    on an existing file ended in mkdir's bare 'c.json: File exists' (found by the fuzz
    helper). Now one line each naming --out and what it takes, nothing written."""
    write_open_sky_truth(tmp_path / "drive.parquet", seconds=2.0)
    write_campaign(tmp_path / "c.json", seeds=[1], sources=[{"truth": "drive.parquet"}])
    monkeypatch.chdir(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    for out, words in (
        ("", "--out '': not a directory name; give the campaign directory"),
        ("c.json", "--out c.json: is a file, not a directory; give the campaign directory"),
    ):
        assert campaign_cli(["run", "c.json", "--out", out, "--workers", "0", "--quiet"]) == 2
        err = capsys.readouterr().err.strip()
        assert err == f"navsense: error: {words}" or err.startswith(f"navsense: error: {words} ")
        assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_a_grown_campaign_keeps_the_runs_it_still_has(folder, serial, capsys):
    out = folder / "grown"
    small = write_campaign(folder / "grown.json", **{**EIGHT_RUNS, "seeds": [40, 41]})
    run_campaign(load_campaign(small), out, workers=0, progress=False)
    assert statistics_table(out).num_rows == 4
    calls = []

    def counting(runs, fn):
        calls.extend(r["seed"] for r in runs)
        return serial_executor(runs, fn)

    big = write_campaign(folder / "grown.json", **EIGHT_RUNS)  # seeds 40..43
    outcome = run_campaign(load_campaign(big), out, executor=counting, progress=False)
    assert (outcome.skipped, outcome.ok) == (4, 4) and sorted(calls) == [42, 42, 43, 43]
    assert "held another version of the campaign" in capsys.readouterr().err
    assert (out / "statistics.parquet").read_bytes() == (serial / "statistics.parquet").read_bytes()


def test_tables_of_a_campaign_with_no_finished_run(folder):
    out = folder / "empty"

    def nothing(runs, fn):
        return iter(())

    run_campaign(load_campaign(folder / "eight.json"), out, executor=nothing, progress=False)
    table = pq.read_table(out / "statistics.parquet")
    assert table.num_rows == 0 and "gnss_rtk_fixed_h_rms_m" in table.column_names
    assert write_summary(out).num_rows == 0


def test_results_of_another_statistics_version_are_done_again(folder, serial):
    out = folder / "versions"
    campaign = load_campaign(folder / "eight.json")
    run_campaign(campaign, out, workers=0, progress=False)
    old = sorted((out / RESULTS_DIR).glob("*.json"))[2]
    data = json.loads(old.read_text())
    data["statistics_version"] = 0
    old.write_text(json.dumps(data))
    calls = []

    def counting(runs, fn):
        calls.extend(r["run_id"] for r in runs)
        return serial_executor(runs, fn)

    run_campaign(campaign, out, executor=counting, progress=False)
    assert calls == [old.stem]
    assert (out / "statistics.parquet").read_bytes() == (serial / "statistics.parquet").read_bytes()


def test_a_campaign_over_a_track_equals_navsense_simulate_with_the_track(tmp_path):
    """A track source is prepared as `navsense simulate --track` prepares it (the one
    prepare_run): the same files, the truth kept, statistics against that truth."""
    track = Path(__file__).parents[1] / "reference" / "track_acre_field.csv"
    path = write_campaign(
        tmp_path / "tracks.json",
        keep="runs",
        seeds=[4],
        sources=[{"track": str(track), "smoothing_m": 0.2}],
    )
    outcome = run_campaign(load_campaign(path), tmp_path / "camp", workers=0, progress=False)
    assert (outcome.ok, outcome.failed) == (1, 0)
    (kept,) = (tmp_path / "camp" / "runs").iterdir()
    sim = tmp_path / "sim"
    argv = ["simulate", "--track", str(track), "--smoothing-m", "0.2", "--seed", "4"]
    assert navsense_main([*argv, "--out", str(sim), "--quiet"]) == 0
    names = sorted(p.name for p in sim.iterdir())
    assert "truth.parquet" in names and names == sorted(p.name for p in kept.iterdir())
    for name in names:
        assert (kept / name).read_bytes() == (sim / name).read_bytes(), name
    stats = orjson.loads((tmp_path / "camp" / RESULTS_DIR / f"{kept.name}.json").read_bytes())
    assert stats["status"] == "ok" and stats["statistics"]["gnss_any_fix_h_rms_m"] < 0.1


def test_summary_keys_and_formats_print_the_chosen_statistics(serial, capsys):
    """campaign summary --keys/--format (issue 32): the printed view holds the statistics the
    patterns match, as a table, CSV or JSON whose values are summary.parquet's; the files keep
    every statistic."""
    full = pq.read_table(serial / "summary.parquet").to_pylist()
    want = [r for r in full if r["statistic"].startswith("gnss_rtk_fixed_")]
    assert want and len(want) < len(full)

    assert (
        campaign_cli(["summary", str(serial), "--keys", "gnss_rtk_fixed_*", "--format", "json"])
        == 0
    )
    assert orjson.loads(capsys.readouterr().out) == want
    assert pq.read_table(serial / "summary.parquet").to_pylist() == full  # files keep all

    assert (
        campaign_cli(["summary", str(serial), "--keys", "gnss_rtk_fixed_*", "--format", "csv"]) == 0
    )
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == (serial / "summary.csv").read_text().splitlines()[0]
    assert len(lines) == 1 + len(want)

    assert (
        campaign_cli(
            ["summary", str(serial), "--keys", "gnss_rtk_fixed_h_rms_m", "--keys", "ins_*_rms_deg"]
        )
        == 0
    )
    printed = capsys.readouterr().out
    stats = {
        line.split()[0]
        for line in printed.splitlines()
        if line.startswith("  ") and "statistic" not in line
    }
    assert stats == {"gnss_rtk_fixed_h_rms_m"} | {
        r["statistic"]
        for r in full
        if fnmatch.fnmatchcase(r["statistic"], "ins_*_rms_deg") and r["n"]
    }


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--keys", "gnss_rtk_fixd_*"], "--keys 'gnss_rtk_fixd_*' matches no statistic"),
        (["--format", "yaml"], "--format 'yaml' is not one of table, csv, json"),
    ],
)
def test_summary_refuses_a_pattern_or_format_it_cannot_show(serial, capsys, argv, words):
    assert campaign_cli(["summary", str(serial), *argv]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1


def test_summary_of_runs_without_results_says_so(serial, tmp_path, capsys):
    """Found by the fuzz helper: a campaign directory whose result files are all damaged (or
    not yet written) was summarised to exit 0 with 'wrote summary.parquet and summary.csv' and
    a summary of no runs, which looks complete. Now one line and exit 2, nothing written; some
    runs without a result: a note naming how many, and the summary of the others."""
    import shutil

    camp = tmp_path / "c"
    shutil.copytree(serial, camp)
    for name in ("summary.parquet", "summary.csv"):
        (camp / name).unlink(missing_ok=True)
    results = sorted((camp / "results").glob("*.json"))
    results[0].write_text("{")
    assert campaign_cli(["summary", str(camp)]) == 0
    err = capsys.readouterr().err
    assert f"navsense: note: 1 of the campaign's {len(results)} runs have no result in " in err
    for path in results:
        path.write_text("{")
    (camp / "summary.csv").unlink()
    assert campaign_cli(["summary", str(camp)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert f"{camp}: none of the campaign's {len(results)} runs has a result in " in err
    assert not (camp / "summary.csv").exists()


@pytest.mark.parametrize("run_id", ["", " "])
def test_rerun_of_an_empty_run_id_is_one_line(tmp_path, capsys, run_id):
    """An empty RUN_ID matched a campaign's only run as a prefix of every id (the second fuzz
    helper's note): refused, naming what to give; nothing written."""
    write_open_sky_truth(tmp_path / "t.csv", seconds=3.0)
    path = write_campaign(tmp_path / "c.json", seeds=[1], sources=[{"truth": "t.csv"}])
    run_campaign(load_campaign(path), tmp_path / "out", workers=0, progress=False)
    assert campaign_cli(["rerun", str(tmp_path / "out"), run_id]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and f"RUN_ID {run_id!r}: empty" in err[0], err
    assert not (tmp_path / "out" / "reruns").exists()
