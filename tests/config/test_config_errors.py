"""Error messages: file, dotted key, value and what is allowed (DESIGN.md invariant 4)."""

import json
import math

import pytest

from navsense.config import load_config, parse_config_text, read_config_file, validate
from navsense.errors import ConfigError, NavsenseError


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    """Work in tmp_path, so files are named as a user names them ("my.json")."""
    monkeypatch.chdir(tmp_path)

    def write(name, content):
        text = content if isinstance(content, str) else json.dumps(content, indent=2)
        (tmp_path / name).write_text(text, encoding="utf-8")
        return name

    return write


def _error(**kwargs) -> str:
    with pytest.raises(ConfigError) as err:
        load_config(**kwargs)
    assert isinstance(err.value, NavsenseError) and isinstance(err.value, ValueError)
    return str(err.value)


# Unknown keys --------------------------------------------------------------------------------


def test_unknown_key_suggests_the_nearest(in_tmp):
    name = in_tmp("my.json", {"gnss": {"elevation_mask": 10}})
    assert _error(config_path=name) == (
        "my.json: gnss.elevation_mask = 10 is not a known key; did you mean gnss.elevation_mask_deg?"
    )


@pytest.mark.parametrize(
    "overrides, message",
    [
        (
            {"gnss.elevation_mask": 10},
            "command line: gnss.elevation_mask = 10 is not a known key; did you mean gnss.elevation_mask_deg?",
        ),
        (
            {"ins.frames": "nad83"},
            'command line: ins.frames = "nad83" is not a known key; did you mean ins.frame?',
        ),
        (
            {"gnss.states.rtk_fix.tau_s": 5},
            "command line: gnss.states.rtk_fix.tau_s = 5 is not a known key; did you mean gnss.states.rtk_fixed.tau_s?",
        ),
        (
            {"gnss.rtk_fixed.tau_s": 5},
            "command line: gnss.rtk_fixed.tau_s = 5 is not a known key; did you mean gnss.states.rtk_fixed.tau_s?",
        ),
        (
            {"gnss.hz.max": 5},
            "command line: gnss.hz.max = 5 is not a known key; did you mean gnss.hz?",
        ),
        (
            {"gnss.qqq.www": 5},
            "command line: gnss.qqq.www = 5 is not a known key; the keys of gnss are "
            "enabled, hz, antenna_flu_m, std_m, start, cold_ttff_s, elevation_mask_deg, constellations, "
            "multipath_tau_s, multipath_vertical_ratio, states, rtk, corrections, obstruction, datum, "
            "signal_outages_s, orbits, systems, nmea, heading, receiver",
        ),
        # A key in the wrong section: the same name elsewhere.
        (
            {"hz": 5},
            "command line: hz = 5 is not a known key; did you mean physics.hz, gnss.hz or imu.hz?",
        ),
        (
            {"gnss.ttf_median_s": 5},
            "command line: gnss.ttf_median_s = 5 is not a known key; did you mean gnss.rtk.ttf_median_s?",
        ),
    ],
)
def test_unknown_override_key(overrides, message):
    assert _error(overrides=overrides) == message


def test_unknown_key_without_a_near_one_lists_the_section(in_tmp):
    name = in_tmp("my.json", {"imu": {"xyz": 1}})
    assert _error(config_path=name) == (
        "my.json: imu.xyz = 1 is not a known key; the keys of imu are enabled, hz, "
        "accel_std_mps2, gyro_std_radps, accel_bias_mps2, gyro_bias_radps, position_flu_m, model, "
        "preset, configurable, earth, vibration"
    )


def test_unknown_key_in_the_overlay(in_tmp):
    name = in_tmp("sensors_polaris.json", {"ins": {"utm": 16}})
    assert _error(overlay_path=name) == (
        "sensors_polaris.json: ins.utm = 16 is not a known key; did you mean ins.utm_zone?"
    )


# Wrong types ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "key, value, complaint",
    [
        ("gnss.hz", "10", "is not a number"),
        ("gnss.hz", True, "is not a number"),  # bool is an int in Python
        ("gnss.hz", None, "is not a number"),
        ("gnss.hz", [10], "is not a number"),
        ("gnss.hz", math.nan, "is not a finite number"),
        ("gnss.hz", math.inf, "is not a finite number"),
        ("seed", 4.5, "is not an integer"),
        ("seed", 7.0, "is not an integer"),
        ("seed", True, "is not an integer"),
        ("seed", "42", "is not an integer"),
        ("gnss.enabled", 1, "is not a boolean (true or false)"),
        ("gnss.enabled", "true", "is not a boolean (true or false)"),
        ("noise", 0, "is not a boolean (true or false)"),
        ("gnss.antenna_flu_m", [1, 2], "is not an array of 3 numbers"),
        ("gnss.antenna_flu_m", [1, 2, 3, 4], "is not an array of 3 numbers"),
        ("gnss.antenna_flu_m", [1, "a", 2], "is not an array of 3 numbers"),
        ("gnss.antenna_flu_m", [1, True, 2], "is not an array of 3 numbers"),
        ("gnss.antenna_flu_m", "1,0,2", "is not an array of 3 numbers"),
        ("gnss.datum.harn_to_nad83_2011_shift_deg", [0, 0, 0], "is not an array of 2 numbers"),
        ("gnss.start", "hot", "is not one of converged, cold"),
        ("gnss.start", 1, "is not one of converged, cold"),
        ("gnss.datum.output_frame", "NAD83", "is not one of wgs84_g2139, nad83"),
        ("ins.frame", "utm", "is not one of nad83, wgs84_g2139"),
        ("mount_frame", "base_link", "is not one of chassis, base_footprint"),
        (
            "gnss.datum.start_utc",
            "2026-09-23 15:00:00",
            "is not an ISO 8601 UTC time such as 2026-09-23T15:00:00Z",
        ),
        (
            "gnss.datum.start_utc",
            "2026-09-23T15:00:00+02:00",
            "is not an ISO 8601 UTC time such as 2026-09-23T15:00:00Z",
        ),
        (
            "gnss.datum.start_utc",
            "2026-02-30T15:00:00Z",
            "is not an ISO 8601 UTC time such as 2026-09-23T15:00:00Z",
        ),
        (
            "gnss.datum.start_utc",
            "2026-09-23T15:00:00",
            "is not an ISO 8601 UTC time such as 2026-09-23T15:00:00Z",
        ),
        ("gnss.corrections.outages_s", "10:20", "is not an array of [start, end) pairs"),
        ("gnss.corrections.outages_s", [10, 20], None),  # reported on its first element
    ],
)
def test_wrong_type(key, value, complaint):
    message = _error(overrides={key: value})
    if complaint is None:
        assert message == (
            "command line: gnss.corrections.outages_s[0] = 10 is not a [start, end) pair of numbers"
        )
    else:
        assert message.startswith(f"command line: {key} = ")
        assert message.endswith(f" {complaint}")


def test_start_utc_accepts_fractions_and_offset_zero():
    for text in ("2026-09-23T15:00:00.250Z", "2026-09-23T15:00:00+00:00", "2024-02-29T00:00:00Z"):
        assert (
            load_config(overrides={"gnss.datum.start_utc": text})["gnss"]["datum"]["start_utc"]
            == text
        )


@pytest.mark.parametrize(
    "outages, message",
    [
        (
            [[20, 10]],
            "gnss.corrections.outages_s[0] = [20, 10] is not a [start, end) pair: "
            "start must be less than end",
        ),
        (
            [[0, 5], [10, 10]],
            "gnss.corrections.outages_s[1] = [10, 10] is not a [start, end) pair: "
            "start must be less than end",
        ),
        ([[10]], "gnss.corrections.outages_s[0] = [10] is not a [start, end) pair of numbers"),
        (
            [[10, "20"]],
            'gnss.corrections.outages_s[0] = [10, "20"] is not a [start, end) pair of numbers',
        ),
        (
            [[10, 20, 30]],
            "gnss.corrections.outages_s[0] = [10, 20, 30] is not a [start, end) pair of numbers",
        ),
    ],
)
def test_outage_pairs(in_tmp, outages, message):
    name = in_tmp("my.json", {"gnss": {"corrections": {"outages_s": outages}}})
    assert _error(config_path=name) == f"my.json: {message}"


def test_outages_may_start_before_t0_and_overlap():
    cfg = load_config(overrides={"gnss.corrections.outages_s": [[-5, 1], [0.5, 2.5], [100, 1e6]]})
    assert cfg["gnss"]["corrections"]["outages_s"] == [[-5, 1], [0.5, 2.5], [100, 1e6]]


_ALLOWED = "HDT, RMC, VTG, GGA, GSA, GSV, GST, ZDA"


@pytest.mark.parametrize(
    "sentences, message",
    [
        ("GGA", f'gnss.nmea.sentences = "GGA" is not an array of strings from {_ALLOWED}'),
        (["GGA", "GLL"], f'gnss.nmea.sentences[1] = "GLL" is not one of {_ALLOWED}'),
        (["gga"], f'gnss.nmea.sentences[0] = "gga" is not one of {_ALLOWED}'),
        ([1], f"gnss.nmea.sentences[0] = 1 is not one of {_ALLOWED}"),
        (
            ["RMC", "GGA", "RMC"],
            'gnss.nmea.sentences[2] = "RMC" is given twice; each value at most once',
        ),
    ],
)
def test_nmea_sentences(in_tmp, sentences, message):
    name = in_tmp("my.json", {"gnss": {"nmea": {"sentences": sentences}}})
    assert _error(config_path=name) == f"my.json: {message}"


def test_nmea_sentences_any_order_none_or_appended():
    cfg = load_config(overrides={"gnss.nmea.sentences": ["ZDA", "GGA"]})
    assert cfg["gnss"]["nmea"]["sentences"] == ["ZDA", "GGA"]
    assert load_config(overrides={"gnss.nmea.sentences": []})["gnss"]["nmea"]["sentences"] == []
    cfg = load_config(overrides={"gnss.nmea.sentences": ["GGA"], "gnss.nmea.sentences+": ["GSV"]})
    assert cfg["gnss"]["nmea"]["sentences"] == ["GGA", "GSV"]
    assert _error(overrides={"gnss.nmea.sentences+": ["GGA"]}) == (
        'command line: gnss.nmea.sentences[7] = "GGA" is given twice; each value at most once'
    )


def test_section_that_is_not_an_object(in_tmp):
    name = in_tmp("my.json", {"gnss": {"constellations": True}})
    assert _error(config_path=name) == (
        "my.json: gnss.constellations = true is not an object (a section with the keys "
        "gps, galileo, glonass)"
    )


# At least one constellation ------------------------------------------------------------------


def test_all_constellations_off_in_a_file(in_tmp):
    name = in_tmp(
        "my.json", {"gnss": {"constellations": {"gps": False, "galileo": False, "glonass": False}}}
    )
    assert _error(config_path=name) == (
        'my.json: gnss.constellations = {"gps": false, "galileo": false, "glonass": false} '
        "has no system on; at least one of gps, galileo, glonass must be true"
    )


def test_the_last_constellation_turned_off_names_its_layer(in_tmp):
    name = in_tmp("my.json", {"gnss": {"constellations": {"gps": False, "galileo": False}}})
    assert load_config(name)["gnss"]["constellations"] == {
        "gps": False,
        "galileo": False,
        "glonass": True,
    }
    message = _error(config_path=name, overrides={"gnss.constellations.glonass": False})
    assert message.startswith("command line: gnss.constellations = ")
    assert message.endswith("has no system on; at least one of gps, galileo, glonass must be true")


@pytest.mark.parametrize("system", ["gps", "galileo", "glonass"])
def test_any_single_constellation_is_enough(system):
    overrides = {f"gnss.constellations.{s}": s == system for s in ("gps", "galileo", "glonass")}
    assert sum(load_config(overrides=overrides)["gnss"]["constellations"].values()) == 1


# Files ---------------------------------------------------------------------------------------


def test_invalid_json_names_the_file_line_and_column(in_tmp):
    name = in_tmp("my.json", '{\n  "seed": 7,\n  "delay_s": 0.1\n  "noise": false\n}\n')
    assert _error(config_path=name) == (
        "my.json: invalid JSON at line 4, column 3: Expecting ',' delimiter"
    )


def test_invalid_json_in_the_overlay(in_tmp):
    name = in_tmp("polaris.json", '{"ins": {"hz": 50,}}')
    assert _error(overlay_path=name).startswith("polaris.json: invalid JSON at line 1, column ")


def test_a_toml_configuration_is_told_that_configurations_are_json(in_tmp):
    """Found by the fuzz helper: a configuration written in TOML (as a campaign file is) was
    only 'invalid JSON at line 1, column 1: Expecting value', not what is allowed."""
    name = in_tmp("my.toml", "seed = 7\n[gnss]\nhz = 5\n")
    assert _error(config_path=name) == (
        "my.toml: invalid JSON at line 1, column 1: Expecting value; a sensor configuration or "
        "overlay is JSON (TOML is read for campaign files only)"
    )


def test_empty_file(in_tmp):
    name = in_tmp("my.json", "")
    assert _error(config_path=name) == (
        "my.json: invalid JSON at line 1, column 1: Expecting value"
    )


def test_missing_file_names_the_path(tmp_path):
    path = tmp_path / "nowhere" / "sensors.json"
    assert _error(config_path=path) == (
        f"{path}: cannot read the configuration file: No such file or directory"
    )
    assert _error(overlay_path=str(path)).startswith(f"{path}: cannot read")


def test_a_directory_is_not_a_file(tmp_path):
    assert _error(config_path=tmp_path).startswith(
        f"{tmp_path}: cannot read the configuration file"
    )


def test_top_level_must_be_an_object(in_tmp):
    name = in_tmp("my.json", "[1, 2]")
    assert _error(config_path=name) == "my.json: the configuration is [1, 2], not a JSON object"


def test_duplicate_key_is_an_error(in_tmp):
    name = in_tmp("my.json", '{"gnss": {"hz": 5, "hz": 20}}')
    assert _error(config_path=name) == 'my.json: the key "hz" appears twice in one object'


def test_nan_is_not_json(in_tmp):
    name = in_tmp("my.json", '{"gnss": {"hz": NaN}}')
    assert _error(config_path=name) == "my.json: NaN is not valid JSON; numbers must be finite"


def test_utf8_bom_is_accepted(in_tmp):
    name = in_tmp("my.json", '\ufeff{"seed": 3}')
    assert read_config_file(name) == {"seed": 3}


def test_not_utf8(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my.json").write_bytes(b'{"seed": "\xff"}')
    assert _error(config_path="my.json") == "my.json: is not UTF-8 text (byte 10)"


def test_parse_config_text_names_the_source():
    with pytest.raises(ConfigError, match=r"^inline: invalid JSON at line 2, column 1"):
        parse_config_text('{"a":\n}', "inline")


# Other ---------------------------------------------------------------------------------------


def test_unknown_vehicle():
    assert _error(vehicle="tractor") == 'vehicle = "tractor" is not one of polaris, maxxum'


def test_complete_validation_reports_a_missing_key():
    cfg = load_config()
    del cfg["gnss"]["rtk"]["max_pdop"]
    with pytest.raises(ConfigError, match=r"^episode\.json: gnss\.rtk\.max_pdop is missing$"):
        validate(cfg, "episode.json")
    validate(cfg, "episode.json", partial=True)


def test_validate_rejects_a_non_object():
    with pytest.raises(ConfigError, match=r"^x\.json: the configuration is 5, not a JSON object$"):
        validate(5, "x.json")


def test_long_values_are_shortened_in_messages():
    message = _error(
        overrides={"gnss.corrections.outages_s": [[i, i + 0.5] for i in range(100)] + [[2, 1]]}
    )
    assert message == (
        "command line: gnss.corrections.outages_s[100] = [2, 1] is not a "
        "[start, end) pair: start must be less than end"
    )
    message = _error(overrides={"gnss.xyz": list(range(100))})
    assert "gnss.xyz = [0, 1, 2" in message and "..." in message
    assert len(message.split(" is not a known key")[0]) < 110


def test_bad_enum_in_an_overlay_file(in_tmp):
    name = in_tmp("sensors_polaris.json", {"ins": {"frame": "utm"}})
    assert _error(overlay_path=name) == (
        'sensors_polaris.json: ins.frame = "utm" is not one of nad83, wgs84_g2139'
    )
