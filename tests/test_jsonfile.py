"""navsense.jsonfile: the errors of the site, waypoint and scenario readers name file and place."""

import pytest

from navsense.errors import ConfigError, TruthError
from navsense.jsonfile import parse_json, read_json
from navsense.site import load_site
from navsense.truth.waypoints import load_waypoints


def test_a_file_that_cannot_be_read(tmp_path):
    missing = tmp_path / "nowhere.json"
    with pytest.raises(
        ConfigError, match=r"nowhere\.json: cannot read the site file \(No such file"
    ):
        load_site(missing)
    with pytest.raises(TruthError, match=r"nowhere\.json: cannot read the waypoint file \(No such"):
        load_waypoints(missing)


def test_a_syntax_error_names_line_and_column(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{\n  "a": 1,,\n}', encoding="utf-8")
    with pytest.raises(TruthError, match=r"bad\.json: line 2 column 10: Expecting property name"):
        load_waypoints(bad)
    with pytest.raises(ConfigError, match=r"^inline: line 1 column 1: Expecting value"):
        parse_json("", "inline", ConfigError)
    assert read_json(_write(tmp_path / "ok.json", '{"k": [1, 2.5]}'), "x", ValueError) == {
        "k": [1, 2.5]
    }


def _write(path, text):
    path.write_text(text, encoding="utf-8")
    return path
