"""``navsense config show`` and the shared sensor options, through a tiny argparse parser."""

import argparse
import json

import pytest

from navsense.commands import config as cli_config
from navsense.config import known_keys, load_config
from navsense.errors import ConfigError


def _parser():
    parser = argparse.ArgumentParser(prog="navsense")
    subparsers = parser.add_subparsers(dest="command", required=True)
    cli_config.add_parser(subparsers)
    return parser


def _show(capsys, *argv):
    args = _parser().parse_args(["config", "show", *argv])
    assert args.func is cli_config.run
    assert cli_config.run(args) == 0
    out = capsys.readouterr().out
    assert out.startswith('{\n  "seed": ')  # indented JSON
    return json.loads(out)


def test_show_prints_the_default_polaris_configuration(capsys):
    assert _show(capsys) == load_config()


def test_show_maxxum(capsys):
    assert _show(capsys, "--vehicle", "maxxum") == load_config(vehicle="maxxum")


def test_show_with_files(capsys, tmp_path):
    config = tmp_path / "my.json"
    config.write_text('{"seed": 5}')
    overlay = tmp_path / "overlay.json"
    overlay.write_text('{"ins": {"hz": 50}}')
    shown = _show(capsys, "--config", str(config), "--overlay", str(overlay))
    assert shown == load_config(config, overlay)
    assert shown["seed"] == 5 and shown["ins"]["hz"] == 50


def test_show_with_every_sensor_option(capsys):
    shown = _show(
        capsys,
        "--seed",
        "7",
        "--delay",
        "0.1",
        "--gnss-hz",
        "5",
        "--imu-hz",
        "100",
        "--no-noise",
        "--no-gnss",
        "--no-imu",
        "--no-ins",
        "--gnss-start",
        "cold",
        "--gnss-frame",
        "nad83",
        "--gnss-baseline-km",
        "20",
        "--gnss-outage",
        "10:20",
        "--gnss-outage",
        "30.5:40",
        "--nmea-sentences",
        "gga, RMC,gsv",
    )
    assert shown == load_config(
        overrides={
            "seed": 7,
            "delay_s": 0.1,
            "gnss.hz": 5,
            "imu.hz": 100,
            "noise": False,
            "gnss.enabled": False,
            "imu.enabled": False,
            "ins.enabled": False,
            "gnss.start": "cold",
            "gnss.datum.output_frame": "nad83",
            "gnss.corrections.baseline_km": 20,
            "gnss.corrections.outages_s+": [[10, 20], [30.5, 40]],
            "gnss.nmea.sentences": ["GGA", "RMC", "GSV"],
        }
    )
    assert type(shown["gnss"]["hz"]) is int
    assert _show(capsys, "--nmea-sentences", "")["gnss"]["nmea"]["sentences"] == []


def test_overrides_from_args_skips_what_was_not_given():
    args = _parser().parse_args(["config", "show"])
    assert cli_config.overrides_from_args(args) == {}
    assert cli_config.overrides_from_args(argparse.Namespace()) == {}


def test_errors_are_config_errors(capsys):
    parser = _parser()
    with pytest.raises(
        ConfigError, match=r"^command line: gnss\.hz = 2400 is out of range 1\.\.2000$"
    ):
        cli_config.run(parser.parse_args(["config", "show", "--gnss-hz", "2400"]))
    with pytest.raises(
        ConfigError,
        match=r'^command line: gnss\.start = "hot" is not one of '
        r"converged, cold$",
    ):
        cli_config.run(parser.parse_args(["config", "show", "--gnss-start", "hot"]))
    with pytest.raises(
        ConfigError, match=r'^command line: --gnss-outage = "10" is not <start>:<end>'
    ):
        cli_config.run(parser.parse_args(["config", "show", "--gnss-outage", "10"]))
    with pytest.raises(
        ConfigError,
        match=r'^command line: gnss\.nmea\.sentences\[1\] = "GLL" is not one of HDT, RMC, ',
    ):
        cli_config.run(parser.parse_args(["config", "show", "--nmea-sentences", "GGA,GLL"]))
    with pytest.raises(ConfigError, match=r"nowhere\.json: cannot read the configuration file"):
        cli_config.run(parser.parse_args(["config", "show", "--config", "nowhere.json"]))
    assert capsys.readouterr().out == ""


def test_argparse_rejects_non_numbers():
    with pytest.raises(SystemExit):
        _parser().parse_args(["config", "show", "--gnss-hz", "fast"])


def test_keys_lists_every_key(capsys):
    args = _parser().parse_args(["config", "keys"])
    assert cli_config.run(args) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:3] == ["key", "type", "allowed"]
    assert [line.split()[0] for line in lines[1:]] == known_keys()
    by_key = {line.split()[0]: line for line in lines[1:]}
    assert "1..2000" in by_key["gnss.hz"] and "specification" in by_key["gnss.hz"]
    assert "navsense extension" in by_key["noise"]
    assert "> 0" in by_key["ins.position_tau_s"] and "navsense:" in by_key["ins.position_tau_s"]


def test_config_requires_an_action():
    with pytest.raises(SystemExit):
        _parser().parse_args(["config"])


def test_overrides_from_args_takes_parsed_outage_pairs():
    args = argparse.Namespace(gnss_outage=[[1.0, 2.0], "3:4"], seed=None, no_noise=True)
    assert cli_config.overrides_from_args(args) == {
        "noise": False,
        "gnss.corrections.outages_s+": [[1.0, 2.0], [3, 4]],
    }
