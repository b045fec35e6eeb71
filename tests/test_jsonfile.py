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


def _depth_by_characters(text: str, limit: int) -> str | None:
    """The depth scan as the specification of json_depth_error states it, one character at a
    time (the scan it replaced)."""
    depth, in_string, escaped, line = 0, False, False, 1
    for c in text:
        if in_string:
            escaped, in_string = (False, True) if escaped else (c == "\\", c != '"')
        elif c == '"':
            in_string = True
        elif c in "[{":
            depth += 1
            if depth > limit:
                return f"s: line {line}: nested deeper than {limit} levels of objects and arrays"
        elif c in "]}":
            depth -= 1
        elif c == "\n":
            line += 1
    return None


def test_the_depth_scan_skips_strings_and_counts_lines_outside_them(monkeypatch):
    import random

    import navsense.jsonfile as jsonfile

    monkeypatch.setattr(jsonfile, "_DEPTH_CHUNK", 5)  # chunk edges everywhere
    rng = random.Random(7)
    for _ in range(3000):
        text = "".join(rng.choice('[]{}"\\\n a\u00e9\ud800') for _ in range(rng.randrange(80)))
        limit = rng.randrange(5)
        got = jsonfile.json_depth_error(text, "s", ValueError, limit)
        assert (None if got is None else str(got)) == _depth_by_characters(text, limit), text


def test_the_depth_scan_of_a_big_file_is_quick():
    """A 40 MB array took 9 s in a loop over its characters (a configuration of 2 million outage
    windows): well under a second now."""
    import time

    from navsense.jsonfile import json_depth_error

    text = "[" + ",".join(["[1.5, 2.5]", '"a[[\\"[{"']) * 1_000_000 + "]"
    t0 = time.process_time()
    assert json_depth_error(text, "s", ValueError) is None
    assert time.process_time() - t0 < 2.0
