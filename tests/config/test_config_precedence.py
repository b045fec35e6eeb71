"""Configuration precedence made visible (issue 18 item 3): the overlay's overriding of a
configuration-file value is one warning line, ``config show --explain`` names each value's
origin, and ``--set KEY=VALUE`` sets any key over both files."""

from __future__ import annotations

import json
import warnings

import pytest

from navsense.cli import main
from navsense.config import load_config
from navsense.config.load import DEFAULT_CODE, DEFAULT_SENSORS, explain_config, parse_set
from navsense.errors import ConfigError, NavsenseWarning


@pytest.fixture
def zone32(tmp_path):
    path = tmp_path / "zone32.json"
    path.write_text(json.dumps({"ins": {"utm_zone": 32, "hz": 100}, "seed": 5}))
    return path


def _show(capsys, *argv):
    assert main(["config", "show", *argv]) == 0
    captured = capsys.readouterr()
    return captured.out, captured.err.splitlines()


def test_a_config_value_the_overlay_overrides_is_one_warning_line(zone32, capsys):
    out, err = _show(capsys, "--config", str(zone32))
    assert json.loads(out)["ins"]["utm_zone"] == 16  # the order stays the specification's
    assert len(err) == 1
    line = err[0]
    assert line.startswith("navsense: warning: ")
    # the file, the key and both values; ins.hz (100 in both) and seed (not in the overlay) not
    assert str(zone32) in line and "ins.utm_zone = 32" in line and "ins.utm_zone = 16" in line
    assert "sensors_polaris.json" in line and "ins.hz" not in line and "seed" not in line
    # set again by an option: no warning, the option's value
    out, err = _show(capsys, "--config", str(zone32), "--set", "ins.utm_zone=17")
    assert err == [] and json.loads(out)["ins"]["utm_zone"] == 17
    # the maxxum has no overlay: nothing overrides the file
    out, err = _show(capsys, "--config", str(zone32), "--vehicle", "maxxum")
    assert err == [] and json.loads(out)["ins"]["utm_zone"] == 32


def test_load_config_warns_with_a_navsense_warning(zone32):
    with pytest.warns(NavsenseWarning, match="ins.utm_zone = 32 is overridden"):
        load_config(zone32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_config(zone32, later_keys=["ins.utm_zone"])
        load_config(zone32, overrides={"ins": {"utm_zone": 17}})


def test_explain_names_the_origin_of_every_value(zone32, tmp_path, capsys):
    overlay = tmp_path / "overlay.json"
    overlay.write_text(json.dumps({"ins": {"enabled": True, "frame": "wgs84_g2139"}}))
    cfg, origins = explain_config(
        zone32,
        overlay,
        overrides={"gnss.hz": 5, "gnss.corrections.outages_s+": [[1, 2]]},
        override_labels={"gnss.hz": "option --gnss-hz"},
    )
    assert cfg == load_config(
        zone32, overlay, overrides={"gnss.hz": 5, "gnss.corrections.outages_s+": [[1, 2]]}
    )
    assert origins["seed"] == f"config file {zone32}"
    assert origins["ins.utm_zone"] == f"config file {zone32}"  # this overlay leaves it
    assert origins["ins.frame"] == f"vehicle overlay {overlay}"
    assert origins["gnss.hz"] == "option --gnss-hz"
    assert origins["gnss.corrections.outages_s"] == "command line (appended)"
    assert origins["gnss.elevation_mask_deg"] == DEFAULT_SENSORS
    assert origins["noise"] == DEFAULT_CODE
    assert origins["ins.velocity_white_mps"] == DEFAULT_CODE  # the INS "Code" column
    # every leaf of the configuration has an origin
    assert len(origins) > 100
    # the command: one line a value, the origin after '#', the order stated once
    out, err = _show(capsys, "--config", str(zone32), "--gnss-hz", "5", "--explain")
    lines = out.splitlines()
    assert lines[0].startswith("# the order: defaults < configuration file")
    by_key = {ln.split(" = ")[0]: ln.split("# ")[-1] for ln in lines[1:]}
    assert by_key["gnss.hz"] == "option --gnss-hz"
    assert by_key["seed"] == f"config file {zone32}"
    assert by_key["ins.utm_zone"] == "vehicle overlay sensors_polaris.json (embedded, polaris)"
    assert len(err) == 1  # the warning as well


def test_set_sets_any_key_over_both_files_with_ranges_checked(zone32, capsys):
    out, err = _show(
        capsys,
        "--config",
        str(zone32),
        "--set",
        "gnss.elevation_mask_deg=12.5",
        "--set",
        "gnss.datum.output_frame=nad83",
        "--set",
        "ins.position_flu_m=[0, 0, 1]",
        "--set",
        "gnss.constellations.glonass=false",
        "--set",
        "imu.hz=50",
        "--imu-hz",
        "100",  # a named option and --set: --set, applied after the named options
    )
    cfg = json.loads(out)
    assert cfg["gnss"]["elevation_mask_deg"] == 12.5
    assert cfg["gnss"]["datum"]["output_frame"] == "nad83"
    assert cfg["ins"]["position_flu_m"] == [0, 0, 1]
    assert cfg["gnss"]["constellations"]["glonass"] is False
    assert cfg["imu"]["hz"] == 50
    assert cfg["seed"] == 5
    for bad, message in (
        ("gnss.hz=2400", "command line: gnss.hz = 2400 is out of range 1..2000"),
        ("gnss.hzz=5", "gnss.hzz = 5 is not a known key; did you mean gnss.hz?"),
        ("gnss.hz", '--set "gnss.hz" is not KEY=VALUE'),
        ("ins.frame=utm", 'ins.frame = "utm" is not one of'),
    ):
        assert main(["config", "show", "--set", bad]) == 2
        err = capsys.readouterr().err.splitlines()
        assert len(err) == 1 and message in err[0], (bad, err)


def test_set_values_are_json_or_text():
    assert parse_set("gnss.hz=5") == ("gnss.hz", 5)
    assert parse_set("noise=false") == ("noise", False)
    assert parse_set("gnss.start=cold") == ("gnss.start", "cold")
    assert parse_set("gnss.datum.start_utc=2026-01-01T00:00:00Z") == (
        "gnss.datum.start_utc",
        "2026-01-01T00:00:00Z",
    )
    assert parse_set("a.b=NaN") == ("a.b", "NaN")  # not a number: the schema refuses the text
    assert parse_set("gnss.corrections.outages_s+=[[1, 2]]") == (
        "gnss.corrections.outages_s+",
        [[1, 2]],
    )
    with pytest.raises(ConfigError, match="is not KEY=VALUE"):
        parse_set("=5")


def test_set_appends_with_the_outage_option(capsys):
    out, _ = _show(
        capsys, "--gnss-outage", "1:2", "--set", "gnss.corrections.outages_s+=[[10, 20]]"
    )
    assert json.loads(out)["gnss"]["corrections"]["outages_s"] == [[1, 2], [10, 20]]


def test_simulate_takes_set_and_warns_once(zone32, tmp_path, capsys):
    out = tmp_path / "run"
    argv = ["simulate", "--scenario", "acre-loop", "--config", str(zone32), "--quiet"]
    assert main([*argv, "--out", str(out), "--set", "imu.hz=50", "--no-gnss", "--no-ins"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "ins.utm_zone = 32 is overridden" in err[0]
    episode = json.loads((out / "episode.json").read_text())
    assert episode["config"]["imu"]["hz"] == 50
