"""navsense.runs.Episode: episode.json written and read by one class, its defaults given once."""

import json

import orjson
import pytest

from navsense.cli import main
from navsense.config.defaults import complete_recorded_config
from navsense.errors import FormatError
from navsense.runs import Episode, RunReader


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("episode") / "run"
    argv = ["simulate", "--scenario", "acre-loop", "--duration", "3", "--quiet", "--out", str(out)]
    assert main([*argv, "--workers", "threads"]) == 0
    return out


def test_what_is_read_writes_the_same_bytes(run):
    """The writer and the reader are one class: simulate's episode.json, read and written again
    through Episode.to_json (as navsense.output.rundir writes it), is the same bytes."""
    episode = Episode.read(run)
    again = orjson.dumps(episode.to_json(), option=orjson.OPT_INDENT_2) + b"\n"
    assert again == (run / "episode.json").read_bytes()
    assert RunReader(run).episode == episode


def test_the_run_values_are_typed_and_the_configuration_complete(run):
    episode = Episode.read(run)
    recorded = json.loads((run / "episode.json").read_text())
    assert episode.physics_hz == 120.0 and episode.steps == recorded["steps"] == 361
    assert episode.duration_s == 3.0 and episode.last_step == episode.first_step + 360
    assert episode.config == complete_recorded_config(recorded["config"])
    assert "earth" not in recorded["config"]["imu"] and episode.config["imu"]["earth"] == "none"
    assert episode.gnss_config.hz == recorded["config"]["gnss"]["hz"]
    assert episode.ins_point_chassis_m.tolist() == recorded["ins"]["point_chassis_flu_m"]
    assert episode.ins_datum == recorded["ins"]["datum"] == "nad83_2011"
    assert episode.models.keys() >= {"ins", "gnss_constellation", "imu_bias_flu"}


def test_a_key_the_file_lacks_takes_its_recorded_default_once(tmp_path):
    """A run of no keys but its configuration's INS frame: every value from the one table of
    defaults in Episode's docstring, and the INS's datum from the configuration's frame."""
    (tmp_path / "episode.json").write_text(
        json.dumps({"config": {"ins": {"frame": "wgs84_g2139"}}})
    )
    episode = Episode.read(tmp_path)
    defaults = complete_recorded_config({})
    assert (episode.vehicle, episode.physics_hz, episode.first_step, episode.steps) == (
        "polaris",
        120.0,
        0,
        0,
    )
    assert episode.start_utc == defaults["gnss"]["datum"]["start_utc"]
    assert (episode.seed, episode.noise) == (defaults["seed"], defaults["noise"])
    assert episode.output_format == "jsonl" and episode.source == {} and episode.site is None
    assert episode.ins_datum == "wgs84_g2139"  # the configuration's frame, as the INS names it
    assert episode.ins_utm_zone == defaults["ins"]["utm_zone"]
    assert episode.has_config and episode.enabled("mag") is False
    (tmp_path / "episode.json").write_text("{}")
    bare = Episode.read(tmp_path)
    assert not bare.has_config and bare.enabled("gnss") is None  # says nothing of the sensors
    assert bare.config == defaults and bare.ins_datum == "nad83_2011"  # nad83, as the INS names it


def test_a_value_of_the_wrong_kind_is_named(tmp_path):
    (tmp_path / "episode.json").write_text(json.dumps({"physics_hz": -5}))
    with pytest.raises(FormatError, match=r"episode.json: physics_hz = -5 is not a rate"):
        Episode.read(tmp_path)
