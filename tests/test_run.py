"""navsense.run.prepare_run: one way to prepare a run, for the CLI, campaigns and the API."""

import json
from pathlib import Path

import numpy as np
import pytest

from campaign.campaign_helpers import write_open_sky_truth
from navsense.cli import main
from navsense.errors import ConfigError
from navsense.geo.utm import zone_of
from navsense.run import prepare_run
from navsense.site import Site, embedded_site, resolve_site
from navsense.truth.io import read_truth

REFERENCE = Path(__file__).parent / "reference"
ACRE_TRACK = REFERENCE / "track_acre_field.csv"
PARIS_TRACK = REFERENCE / "track_paris_loop.gpx"


def _local_site_file(path: Path, lat: float, lon: float) -> Path:
    site = {"name": "far", "georeference": {"kind": "local", "lat_deg": lat, "lon_deg": lon}}
    path.write_text(json.dumps(site))
    return path


def test_the_default_run_is_acre_loop_on_its_site():
    run = prepare_run()
    assert run.source == {"scenario": "acre-loop"} and run.label == "acre-loop"
    assert run.vehicle.name == "polaris" and run.site.name == "acre"
    assert run.cfg["ins"]["utm_zone"] == 16 and run.total_steps == len(run.truth)
    assert not run.save_truth and run.truth_chunks(100) is run.truth


def test_each_source_has_its_default_site_vehicle_and_episode_source(tmp_path):
    log = write_open_sky_truth(tmp_path / "drive.parquet", seconds=2.0)
    run = prepare_run(truth=log)
    assert run.site.name == "acre" and run.vehicle.name == "polaris"
    assert run.source == {"truth": str(log)} and run.label == "drive" and run.truth is None
    chunks = list(run.truth_chunks(100))
    assert [len(c) for c in chunks] == [100, 100, 41]
    track = prepare_run(track=PARIS_TRACK)
    assert track.site.georeference["kind"] == "local" and track.save_truth
    assert track.source == {"track": str(PARIS_TRACK)} and track.label == "track_paris_loop"
    assert track.cfg["gnss"]["datum"]["start_utc"] == "2013-05-09T11:24:28.776000Z"
    maxxum = prepare_run(scenario="acre-loop", vehicle="maxxum", site="acre", duration_s=5.0)
    assert maxxum.vehicle.name == "maxxum" and maxxum.source["duration_s"] == 5.0
    assert len(maxxum.truth) == 601


def test_a_local_site_runs_the_ins_in_its_own_utm_zone_unless_a_key_says_otherwise(tmp_path):
    """Paris is in zone 31, whatever the truth source; a configuration file or an override that
    sets ins.utm_zone wins."""
    site = _local_site_file(tmp_path / "paris.json", 48.85, 2.35)
    log = write_open_sky_truth(tmp_path / "drive.csv", seconds=1.0)
    assert zone_of(2.35) == 31
    assert prepare_run(truth=log, site=site).cfg["ins"]["utm_zone"] == 31
    assert prepare_run(track=PARIS_TRACK).cfg["ins"]["utm_zone"] == 31
    assert (
        prepare_run(truth=log, site=site, overrides={"ins.utm_zone": 30}).cfg["ins"]["utm_zone"]
        == 30
    )
    zone_file = tmp_path / "zone.json"
    zone_file.write_text(json.dumps({"ins": {"utm_zone": 32}}))
    assert prepare_run(truth=log, site=site, overlay=zone_file).cfg["ins"]["utm_zone"] == 32
    # the Maxxum has no overlay that would override the configuration file
    maxxum = prepare_run(truth=log, site=site, config=zone_file, vehicle="maxxum")
    assert maxxum.cfg["ins"]["utm_zone"] == 32
    assert prepare_run(truth=log).cfg["ins"]["utm_zone"] == 16  # ACRE


def test_duration_cuts_every_source(tmp_path):
    log = write_open_sky_truth(tmp_path / "drive.csv", seconds=3.0)
    whole = read_truth(log)
    cut = list(prepare_run(truth=log, duration_s=1.0).truth_chunks(50))
    assert sum(len(c) for c in cut) == 121
    assert np.array_equal(np.concatenate([c.p_m for c in cut]), whole.p_m[:121])
    track = prepare_run(track=ACRE_TRACK)
    short = prepare_run(track=ACRE_TRACK, duration_s=2.0)
    assert len(short.truth) == 241 and short.source["duration_s"] == 2.0
    assert np.array_equal(short.truth.p_m, track.truth.p_m[:241])


def test_override_layers_are_applied_in_order_and_named_in_errors():
    run = prepare_run(overrides=[("first", {"gnss.hz": 5}), ("second", {"gnss.hz": 2})])
    assert run.cfg["gnss"]["hz"] == 2
    with pytest.raises(ConfigError, match=r"^camp\.toml: sweep point p001: gnss\.hz = 2400"):
        prepare_run(overrides=[("camp.toml: sweep point p001", {"gnss.hz": 2400})])
    with pytest.raises(ConfigError, match="^command line: gnss.hz = 0"):
        prepare_run(overrides={"gnss.hz": 0})


def test_keys_set_by_different_layers_are_checked_together_once(tmp_path, capsys):
    """A section's final checks (gnss.heading: HDT needs the heading on; the second antenna
    lies gnss.heading.baseline_m from the first) see every layer of prepare_run, the files and
    the options, and name the layer that set the key. On the old main they ran on the files
    alone: a file listing HDT with the heading turned on by --set was refused, and an option's
    second antenna 3 m from the first (the Polaris overlay's 1.1, 0, 2.15) ran."""
    hdt = tmp_path / "hdt.json"
    hdt.write_text('{"gnss": {"nmea": {"sentences": ["HDT", "GGA"]}}}')
    on = [("--set", {"gnss.heading.baseline_m": 1})]
    assert prepare_run(config=hdt, overrides=on).cfg["gnss"]["nmea"]["sentences"][0] == "HDT"
    with pytest.raises(ConfigError, match=r"hdt\.json: gnss\.nmea\.sentences = \["):
        prepare_run(config=hdt)
    far = {"gnss.heading.baseline_m": 1, "gnss.heading.antenna2_flu_m": [0, 0, 5]}
    with pytest.raises(ConfigError) as err:
        prepare_run(overrides=[("camp.toml: sweep point p001", far)])
    assert str(err.value) == (
        "camp.toml: sweep point p001: gnss.heading.antenna2_flu_m = [0, 0, 5] is 3.055 m from "
        "gnss.antenna_flu_m [1.1, 0, 2.15], not gnss.heading.baseline_m = 1 m (within 0.02 m)"
    )
    out = tmp_path / "run"
    argv = ["simulate", "--duration", "2", "--quiet", "--out", str(out)]
    second = ["--set", "gnss.heading.antenna2_flu_m=[0,0,5]"]
    assert main([*argv, "--set", "gnss.heading.baseline_m=1", *second]) == 2
    assert capsys.readouterr().err.count("\n") == 1 and not out.exists()
    assert main([*argv, "--set", "gnss.heading.baseline_m=1", "--config", str(hdt)]) == 0
    assert any(line[3:6] == "HDT" for line in (out / "gnss.nmea").read_text().splitlines())


def test_one_source_at_a_time_and_a_positive_duration(tmp_path):
    with pytest.raises(ConfigError, match="one truth source; got scenario and track"):
        prepare_run(scenario="acre-loop", track=PARIS_TRACK)
    with pytest.raises(ConfigError, match="duration_s = 0 must be"):
        prepare_run(duration_s=0)


def test_the_one_site_resolver(tmp_path):
    acre = embedded_site("acre")
    assert resolve_site(None) is None and resolve_site(acre) is acre
    assert resolve_site("acre").name == "acre"
    path = _local_site_file(tmp_path / "far.json", 10.0, 20.0)
    for spec in (path, str(path), {"path": str(path)}):
        site = resolve_site(spec)
        assert isinstance(site, Site) and site.name == "far"
    (tmp_path / "noext").write_text(path.read_text())
    assert resolve_site("noext", base=tmp_path).name == "far"  # an existing file, relative
    with pytest.raises(ConfigError, match="is not an embedded site"):
        resolve_site("nowhere")


def test_the_api_writes_what_the_command_writes(tmp_path):
    argv = ["--track", str(ACRE_TRACK), "--seed", "3", "--no-imu"]
    assert main(["simulate", *argv, "--out", str(tmp_path / "cli"), "--quiet"]) == 0
    run = prepare_run(track=ACRE_TRACK, overrides={"seed": 3, "imu.enabled": False})
    run.simulate(tmp_path / "api", workers="processes")
    names = sorted(p.name for p in (tmp_path / "cli").iterdir())
    assert "truth.parquet" in names and names == sorted(
        p.name for p in (tmp_path / "api").iterdir()
    )
    for name in names:
        assert (tmp_path / "api" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes()


def _corner_track(path: Path) -> Path:
    """A 1 Hz ENU track of 60 s: 20 points east at 5 m/s, then north (a right-angle corner)."""
    rows = ["x_m,y_m,z_m,t_s"]
    for i in range(61):
        x, y = (400.0 + 5.0 * min(i, 20), 300.0 + 5.0 * max(i - 20, 0))
        rows.append(f"{x},{y},0,{i}")
    path.write_text("\n".join(rows) + "\n")
    return path


def test_simulate_track_says_how_it_read_the_track_as_truth_does(tmp_path, capsys):
    """simulate --track prints the lines navsense truth prints of the track (points, length,
    smoothing, standstills, outliers; the site and start), unless --quiet (issue 32: it said
    nothing of how it read the track)."""
    track = _corner_track(tmp_path / "corner.csv")
    assert main(["truth", "--track", str(track), "--out", str(tmp_path / "t.parquet")]) == 0
    truth_lines = capsys.readouterr().out.splitlines()
    assert truth_lines[0].startswith(f"navsense: track {track}: 61 points, 60.0 s")
    assert main(["simulate", "--track", str(track), "--out", str(tmp_path / "run")]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert truth_lines[0] in printed
    site = truth_lines[1].split(" (in ")[0]  # the site; simulate adds the run's start_utc
    assert any(line.startswith(site) for line in printed)
    assert main(["simulate", "--track", str(track), "--out", str(tmp_path / "q"), "--quiet"]) == 0
    assert capsys.readouterr().out == ""


def test_an_outage_after_the_run_warns_in_one_line(tmp_path, capsys):
    """--gnss-signal-outage 400:500 on a 60 s track is said (issue 32: accepted without a
    word); a window that begins within the run is not; the run is the same."""
    track = _corner_track(tmp_path / "corner.csv")
    argv = ["simulate", "--track", str(track), "--quiet", "--out"]
    assert main([*argv, str(tmp_path / "a"), "--gnss-signal-outage", "400:500"]) == 0
    err = capsys.readouterr().err
    assert err == (
        "navsense: warning: gnss.signal_outages_s: [400, 500) s begins after the run's end "
        "(60.0 s) and changes nothing\n"
    )
    assert main([*argv, str(tmp_path / "b"), "--gnss-outage", "30:100"]) == 0
    assert capsys.readouterr().err == ""
