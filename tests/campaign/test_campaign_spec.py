"""The campaign file: structure, resolution, run ids and the messages of bad files."""

import json
from pathlib import Path

import pytest

from campaign.campaign_helpers import write_campaign, write_open_sky_truth
from navsense import __version__
from navsense.campaign.spec import load_campaign
from navsense.errors import ConfigError


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("spec")
    (base / "logs").mkdir()
    write_open_sky_truth(base / "logs" / "circle.csv", seconds=2.0)
    return base


TOML = """
name = "sweep"
keep = "runs"
duration_s = 30
agents = [0, 1]
seeds = { start = 5, count = 3 }

[[sources]]
scenario = "acre-loop"

[[sources]]
truth = "logs/circle.csv"

[overrides]
"gnss.start" = "cold"

[sweep.grid]
gnss.hz = [5, 10]
"gnss.corrections.baseline_km" = [1, 20]
"""


def test_toml_campaign_resolves_every_run(folder):
    path = folder / "c.toml"
    path.write_text(TOML, encoding="utf-8")
    c = load_campaign(path)
    assert (c.name, c.keep, c.seeds, c.agents) == ("sweep", "runs", (5, 6, 7), (0, 1))
    assert c.sweep_keys == ("gnss.hz", "gnss.corrections.baseline_km")
    # grid: the cartesian product in file order, the last key fastest
    assert [p["overrides"] for p in c.points] == [
        {"gnss.hz": 5, "gnss.corrections.baseline_km": 1},
        {"gnss.hz": 5, "gnss.corrections.baseline_km": 20},
        {"gnss.hz": 10, "gnss.corrections.baseline_km": 1},
        {"gnss.hz": 10, "gnss.corrections.baseline_km": 20},
    ]
    assert len(c.runs) == 2 * 2 * 4 * 3  # sources x agents x points x seeds
    assert len({r["run_id"] for r in c.runs}) == len(c.runs)
    scenario, log = c.sources
    assert scenario["run_source"] == {"scenario": "acre-loop", "duration_s": 30}
    assert scenario["vehicle"] == "polaris" and scenario["label"] == "acre-loop[30s]"
    # a truth log: absolute path, content digest, cut to the campaign's duration too; no site:
    # the log's own, else acre (issue 18 items 2 and 5)
    assert log["run_source"]["truth"] == str((folder / "logs" / "circle.csv").resolve())
    assert len(log["run_source"]["sha256"]) == 64 and "site" not in log["run_source"]
    assert log["run_source"]["duration_s"] == 30 and log["label"] == "circle.csv[30s]"
    run = c.runs[-1]
    assert run["run_id"].startswith("p003-s0007-")
    assert run["overrides"] == [
        ["overrides", {"gnss.start": "cold"}],
        ["sweep point p003", {"gnss.hz": 10, "gnss.corrections.baseline_km": 20}],
    ]
    assert run["navsense_version"] == __version__


def test_json_and_toml_give_the_same_runs_and_ids_are_stable(folder):
    toml = folder / "same.toml"
    toml.write_text(
        'seeds = [1, 2]\n[[sources]]\ntruth = "logs/circle.csv"\n'
        '[sweep.grid]\n"gnss.hz" = [5, 10]\n',
        encoding="utf-8",
    )
    js = write_campaign(
        folder / "same.json",
        seeds=[1, 2],
        sources=[{"truth": "logs/circle.csv"}],
        sweep={"grid": {"gnss.hz": [5, 10]}},
    )
    a, b, again = load_campaign(toml), load_campaign(js), load_campaign(toml)
    assert [r["run_id"] for r in a.runs] == [r["run_id"] for r in b.runs]
    assert a.runs == again.runs


def test_a_changed_truth_log_gives_new_run_ids(tmp_path):
    write_open_sky_truth(tmp_path / "t.csv", seconds=2.0)
    path = write_campaign(tmp_path / "c.json", seeds=[1], sources=[{"truth": "t.csv"}])
    before = load_campaign(path).runs[0]["run_id"]
    write_open_sky_truth(tmp_path / "t.csv", seconds=3.0)
    after = load_campaign(path).runs[0]["run_id"]
    assert before[:10] == after[:10] == "p000-s0001" and before != after


def test_points_list_and_default_vehicle_per_source(folder):
    path = write_campaign(
        folder / "points.json",
        seeds=[3],
        vehicles=["polaris", "maxxum"],
        sources=[{"truth": "logs/circle.csv"}],
        sweep={"points": [{}, {"gnss": {"hz": 5}}, {"gnss.corrections.outages_s+": [[2, 4]]}]},
    )
    c = load_campaign(path)
    assert [p["label"] for p in c.points] == [
        "defaults",
        "gnss.hz=5",
        "gnss.corrections.outages_s+=[[2,4]]",
    ]
    assert c.sweep_keys == ("gnss.hz", "gnss.corrections.outages_s+")
    assert [r["vehicle"] for r in c.runs] == ["polaris"] * 3 + ["maxxum"] * 3


@pytest.mark.parametrize(
    "data, message",
    [
        (
            {"seeds": [1], "sources": [{"scenario": "acre-loop"}], "keep": "all"},
            'c.json: keep = "all" is not one of statistics, runs',
        ),
        (
            {"seed": [1], "sources": [{"scenario": "acre-loop"}]},
            "c.json: seed = [1] is not a known key; did you mean seeds?",
        ),
        (
            {"seeds": {"start": 1, "count": 0}, "sources": [{"scenario": "acre-loop"}]},
            "c.json: seeds.count = 0 is not an integer >= 1",
        ),
        (
            {"seeds": [1, -2], "sources": [{"scenario": "acre-loop"}]},
            "c.json: seeds[1] = -2 is not an integer in 0..4294967295",
        ),
        (
            {"seeds": [1, 1], "sources": [{"scenario": "acre-loop"}]},
            "c.json: seeds = [1, 1] lists the seed 1 twice",
        ),
        ({"seeds": [1], "sources": []}, "c.json: sources = [] is not a non-empty array of sources"),
        (
            {"seeds": [1], "sources": [{"scenario": "acre-lop"}]},
            'c.json: sources[0].scenario = "acre-lop" is not an embedded scenario; known: acre-loop',
        ),
        (
            {"seeds": [1], "sources": [{"truth": "missing.csv"}]},
            'c.json: sources[0].truth = "missing.csv" is not a file',
        ),
        (
            {"seeds": [1], "sources": [{"scenario": "acre-loop", "duration": 3}]},
            "c.json: sources[0].duration = 3 is not a known key; did you mean duration_s?",
        ),
        (
            {"seeds": [1], "sources": [{"scenario": "acre-loop"}], "vehicles": ["tractor"]},
            'c.json: vehicles[0] = "tractor" is not one of polaris, maxxum',
        ),
        (
            {"seeds": [1], "sources": [{"scenario": "acre-loop"}], "agents": [-1]},
            "c.json: agents[0] = -1 is not an integer >= 0",
        ),
        (
            {
                "seeds": [1],
                "sources": [{"scenario": "acre-loop"}],
                "sweep": {"grid": {"gnss.hzz": [5]}},
            },
            "c.json: sweep.grid: gnss.hzz = [5] is not a known key; did you mean gnss.hz?",
        ),
        (
            {
                "seeds": [1],
                "sources": [{"scenario": "acre-loop"}],
                "sweep": {"grid": {"gnss.hz": 5}},
            },
            "c.json: sweep.grid.gnss.hz = 5 is not a non-empty array of values to sweep",
        ),
        (
            {
                "seeds": [1],
                "sources": [{"scenario": "acre-loop"}],
                "sweep": {"points": [{"seed": 3}]},
            },
            "c.json: sweep.points[0].seed = 3 cannot be set here: the seeds come from seeds",
        ),
        (
            {
                "seeds": [1],
                "sources": [{"scenario": "acre-loop"}],
                "sweep": {"grid": {}, "points": []},
            },
            "c.json: sweep = ",
        ),
        (
            {"seeds": [1], "sources": [{"scenario": "acre-loop"}], "duration_s": 0},
            "c.json: duration_s = 0 is not a number of seconds > 0",
        ),
        (  # an internal error (OverflowError) before the first run (the third fuzz helper)
            {"seeds": [1], "sources": [{"scenario": "acre-loop"}], "duration_s": 1e308},
            "c.json: duration_s = 1e+308 is more than 1e+09 s",
        ),
        (  # every run failed on its own episode.json (source.duration_s within (0, 1e9])
            {"seeds": [1], "sources": [{"scenario": "acre-loop", "duration_s": 4294967297}]},
            "c.json: sources[0].duration_s = 4294967297 is more than 1e+09 s",
        ),
        (
            {"seeds": [1], "sources": [{"track": "drive.parquet"}]},
            'c.json: sources[0].track = "drive.parquet" is not a track (.gpx, .csv)',
        ),
        (
            {"seeds": [1], "sources": [{"track": "none.gpx"}]},
            'c.json: sources[0].track = "none.gpx" is not a file',
        ),
        (
            {"seeds": [1], "sources": [{"track": "t.gpx", "bank": "steep"}]},
            'c.json: sources[0].bank = "steep" is not one of none, coordinated',
        ),
        (  # an internal error: TypeError: unhashable type: 'list' (the third fuzz helper)
            {"seeds": [1], "sources": [{"scenario": "acre-loop"}], "vehicles": [[]]},
            "c.json: vehicles[0] = [] is not one of",
        ),
        (
            {"seeds": [1], "sources": [{"track": "t.gpx", "bank": ["none"]}]},
            'c.json: sources[0].bank = ["none"] is not one of none, coordinated',
        ),
        (  # every run of the source failed on it, the campaign exit 1 (the third fuzz helper)
            {"seeds": [1], "sources": [{"track": "t.gpx", "smoothing_m": 1e308}]},
            "c.json: sources[0].smoothing_m = 1e+308 is not 0 (through every point) or "
            "0.001 .. 100 m",
        ),
        (
            {"seeds": [1], "sources": [{"track": "t.gpx", "smoothing_m": 5e-324}]},
            "c.json: sources[0].smoothing_m = 5e-324 is not 0 (through every point) or",
        ),
        (
            {"seeds": [1], "sources": [{"track": "r.json", "smoothing_m": 0.5}]},
            "c.json: sources[0].smoothing_m = 0.5 applies to recorded tracks (GPX, CSV); a "
            "waypoint route is planned",
        ),
        (
            {"seeds": [1], "sources": [{"track": "r.json", "bank": "coordinated"}]},
            'c.json: sources[0].bank = "coordinated" applies to recorded tracks',
        ),
        (
            {"seeds": [1], "sources": [{"track": "t.gpx", "smoothing_m": -1}]},
            "c.json: sources[0].smoothing_m = -1 is not a number of metres >= 0",
        ),
        (
            {"seeds": [1], "sources": [{"track": "t.gpx", "speed": 3}]},
            "c.json: sources[0].speed = 3 is not a known key",
        ),
        (
            {"seeds": [1], "sources": [{"track": "t.gpx", "truth": "t.csv"}]},
            "c.json: sources[0] = ",
        ),
    ],
)
def test_bad_campaign_files_name_file_key_value_and_what_is_allowed(tmp_path, data, message):
    (tmp_path / "t.gpx").write_text("<gpx/>")
    (tmp_path / "r.json").write_text("{}")
    path = write_campaign(tmp_path / "c.json", **data)
    with pytest.raises(ConfigError) as err:
        load_campaign(path)
    assert str(err.value).startswith(message), str(err.value)


def test_unreadable_and_malformed_files(tmp_path, monkeypatch):
    with pytest.raises(ConfigError, match="cannot read the campaign file"):
        load_campaign(tmp_path / "none.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("seeds = [1,\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"bad.toml: invalid TOML"):
        load_campaign(bad)
    monkeypatch.chdir(tmp_path)  # named as given, not by its absolute path
    with pytest.raises(ConfigError) as err:
        load_campaign("bad.toml")
    assert str(err.value).startswith("bad.toml: invalid TOML"), str(err.value)
    other = tmp_path / "c.yaml"
    other.write_text("{}", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"use .toml or .json"):
        load_campaign(other)
    dup = tmp_path / "dup.json"
    dup.write_text('{"seeds": [1], "seeds": [2]}', encoding="utf-8")
    with pytest.raises(ConfigError, match="appears twice"):
        load_campaign(dup)


def test_to_json_is_json_ready(folder):
    path = write_campaign(
        folder / "j.json", seeds=[1], sources=[{"scenario": "acre-loop", "duration_s": 5}]
    )
    data = load_campaign(path).to_json()
    assert json.loads(json.dumps(data)) == data
    assert data["runs"][0]["source"] == {"scenario": "acre-loop", "duration_s": 5}


def test_a_track_source_with_its_options_and_the_campaign_duration(tmp_path):
    track = tmp_path / "drive.gpx"
    track.write_text("<gpx/>")  # read by the run, not by the campaign file
    path = write_campaign(
        tmp_path / "c.json",
        seeds=[1],
        duration_s=30,
        sources=[{"track": "drive.gpx", "smoothing_m": 0.5, "bank": "coordinated"}],
    )
    (run,) = load_campaign(path).runs
    assert run["vehicle"] == "polaris" and run["source_label"] == "drive.gpx[30s]"
    source = run["source"]
    assert source["track"] == str(track.resolve()) and len(source["sha256"]) == 64
    assert (source["smoothing_m"], source["bank"], source["duration_s"]) == (0.5, "coordinated", 30)


def test_heading_keys_from_the_file_and_a_sweep_are_checked_together(tmp_path):
    """A campaign's values are checked as its runs will build them (navsense.run.prepare_run):
    HDT in the campaign's overrides with the heading turned on by a sweep point passes; a sweep
    point's second antenna 3 m from the Polaris antenna is refused, named by the point. On the
    old main the first was refused before its sweep points were applied."""
    hdt = {"seeds": [1], "sources": [{"scenario": "acre-loop"}]}
    hdt["overrides"] = {"gnss.nmea.sentences": ["HDT", "GGA"]}
    c = load_campaign(
        write_campaign(
            tmp_path / "c.json", **hdt, sweep={"grid": {"gnss.heading.baseline_m": [1, 2]}}
        )
    )
    assert len(c.points) == 2
    far = {"gnss.heading.baseline_m": [1], "gnss.heading.antenna2_flu_m": [[0, 0, 5]]}
    path = write_campaign(tmp_path / "far.json", **hdt, sweep={"grid": far})
    with pytest.raises(ConfigError) as err:
        load_campaign(path)
    assert "far.json: sweep point p" in str(err.value)
    assert "gnss.heading.antenna2_flu_m = [0, 0, 5] is 3.055 m from" in str(err.value)


def test_a_gnss_orbits_file_that_cannot_be_read_is_refused_at_load(tmp_path, monkeypatch):
    """A campaign whose overrides or sweep set gnss.orbits to a missing file (or a FIFO: every
    run waited on it) passed the load, and every run of it failed, the campaign exit 1 (the
    third fuzz helper). The file is now checked before the first run, where the runs read it
    (a relative path from the working directory, as navsense simulate), with the key named."""
    import os

    monkeypatch.chdir(tmp_path)
    os.mkfifo(tmp_path / "pipe.rnx")
    (tmp_path / "folder.rnx").mkdir()
    for value, words in (
        ("none.rnx", 'gnss.orbits = "none.rnx" cannot be read (No such file or directory)'),
        ("pipe.rnx", 'gnss.orbits = "pipe.rnx" is not a regular file'),
        ("folder.rnx", 'gnss.orbits = "folder.rnx" is a directory'),
    ):
        for data in (
            {"overrides": {"gnss.orbits": value}},
            {"sweep": {"grid": {"gnss.orbits": ["synthetic", value]}}},
        ):
            path = write_campaign(
                tmp_path / "c.json", seeds=[1], sources=[{"scenario": "acre-loop"}], **data
            )
            with pytest.raises(ConfigError) as err:
                load_campaign(path)
            assert f"c.json: {words}" in str(err.value), str(err.value)
    # off with the receiver, as the runs do not read it
    path = write_campaign(
        tmp_path / "c.json",
        seeds=[1],
        sources=[{"scenario": "acre-loop"}],
        overrides={"gnss.orbits": "none.rnx", "gnss.enabled": False},
    )
    load_campaign(path)
