"""Layers and overrides: defaults < config file < overlay < overrides (specification
"Parameters" and "Command-Line Options")."""

import json

import numpy as np
import pytest

from navsense.config import (
    SCHEMA,
    Field,
    Section,
    apply_overrides,
    canonical,
    deep_merge,
    load_config,
    parse_outage,
    validate,
)
from navsense.config.schema import BOOLEAN, RATE_HZ, nonnegative
from navsense.errors import ConfigError, NavsenseWarning


@pytest.fixture
def write(tmp_path):
    def write(name, content):
        path = tmp_path / name
        path.write_text(json.dumps(content), encoding="utf-8")
        return path

    return write


def test_merge_order(write):
    config = write(
        "my.json",
        {
            "delay_s": 0.2,
            "mount_frame": "chassis",
            "gnss": {"hz": 5, "corrections": {"outages_s": [[1, 2]]}},
            "imu": {"hz": 100},
            "ins": {"hz": 50, "enabled": False},
        },
    )
    overlay = write("overlay.json", {"gnss": {"hz": 2}, "ins": {"velocity_white_mps": 0.05}})
    cfg = load_config(config, overlay, overrides={"gnss.hz": 1})
    assert cfg["gnss"]["hz"] == 1  # overrides win
    assert cfg["ins"]["velocity_white_mps"] == 0.05  # overlay over config file
    assert cfg["delay_s"] == 0.2 and cfg["imu"]["hz"] == 100 and cfg["ins"]["hz"] == 50
    assert cfg["ins"]["enabled"] is False
    assert cfg["mount_frame"] == "chassis"  # the overlay file replaced Polaris's
    assert cfg["gnss"]["corrections"]["outages_s"] == [[1, 2]]
    assert cfg["gnss"]["elevation_mask_deg"] == 10  # untouched default
    assert cfg["gnss"]["corrections"]["ppm_v"] == 1.5  # siblings of merged keys kept


def test_embedded_overlay_wins_over_the_config_file(write):
    config = write(
        "my.json",
        {
            "mount_frame": "chassis",
            "gnss": {"antenna_flu_m": [0, 0, 3]},
            "ins": {"velocity_white_mps": 0.5},
        },
    )
    with pytest.warns(NavsenseWarning, match="overridden by the vehicle overlay") as seen:
        polaris = load_config(config)
    assert len(seen) == 3  # one line per key the overlay replaces (issue 18 item 3)
    assert polaris["mount_frame"] == "base_footprint"
    assert polaris["gnss"]["antenna_flu_m"] == [1.1, 0, 2.15]
    assert polaris["ins"]["velocity_white_mps"] == 0.02
    maxxum = load_config(config, vehicle="maxxum")
    assert maxxum["mount_frame"] == "chassis"
    assert maxxum["gnss"]["antenna_flu_m"] == [0, 0, 3]
    assert maxxum["ins"]["velocity_white_mps"] == 0.5


def test_a_complete_config_file_replaces_the_defaults(write):
    complete = load_config(vehicle="maxxum")
    complete["seed"] = 1
    complete["gnss"]["states"]["single"]["tau_s"] = 100
    assert load_config(write("full.json", complete), vehicle="maxxum") == complete


def test_arrays_are_replaced_not_merged(write):
    config = write("my.json", {"gnss": {"antenna_flu_m": [1, 2, 3]}})
    assert load_config(config, vehicle="maxxum")["gnss"]["antenna_flu_m"] == [1, 2, 3]


def test_overlay_path_applies_to_either_vehicle(write):
    overlay = write("overlay.json", {"ins": {"enabled": True}})
    for vehicle in ("polaris", "maxxum"):
        cfg = load_config(overlay_path=overlay, vehicle=vehicle)
        assert cfg["mount_frame"] == "chassis"  # the embedded overlay is not applied
        assert cfg["ins"]["enabled"] is True
        # A partial ins block: the keys it leaves out have the "Code" values.
        assert cfg["ins"]["velocity_white_mps"] == 0.01


def test_empty_overlay_gives_the_plain_defaults(write):
    assert load_config(overlay_path=write("empty.json", {})) == load_config(vehicle="maxxum")


def test_every_command_line_option_of_the_specification():
    cfg = load_config(
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
            "gnss.corrections.outages_s+": [[10, 20]],
        }
    )
    assert (cfg["seed"], cfg["delay_s"], cfg["gnss"]["hz"], cfg["imu"]["hz"]) == (7, 0.1, 5, 100)
    assert cfg["noise"] is False
    assert not (cfg["gnss"]["enabled"] or cfg["imu"]["enabled"] or cfg["ins"]["enabled"])
    assert cfg["gnss"]["start"] == "cold"
    assert cfg["gnss"]["datum"]["output_frame"] == "nad83"
    assert cfg["gnss"]["corrections"]["baseline_km"] == 20
    assert cfg["gnss"]["corrections"]["outages_s"] == [[10, 20]]


def test_outages_append(write):
    config = write("my.json", {"gnss": {"corrections": {"outages_s": [[1, 2]]}}})
    cfg = load_config(config, overrides={"gnss.corrections.outages_s+": [[10, 20], [30, 40.5]]})
    assert cfg["gnss"]["corrections"]["outages_s"] == [[1, 2], [10, 20], [30, 40.5]]
    cfg = apply_overrides(cfg, {"gnss.corrections.outages_s+": [(50, 60)]})
    assert cfg["gnss"]["corrections"]["outages_s"] == [[1, 2], [10, 20], [30, 40.5], [50, 60]]
    # Without "+", the list is replaced.
    cfg = apply_overrides(cfg, {"gnss.corrections.outages_s": [[5, 6]]})
    assert cfg["gnss"]["corrections"]["outages_s"] == [[5, 6]]


def test_append_errors():
    with pytest.raises(
        ConfigError,
        match=r"^command line: gnss\.hz\+ = \[1\] appends to a list, "
        r"but gnss\.hz is not a list$",
    ):
        load_config(overrides={"gnss.hz+": [1]})
    with pytest.raises(
        ConfigError,
        match=r"^command line: gnss\.corrections\.outages_s\+ = 10 is "
        r"not an array of items to append",
    ):
        load_config(overrides={"gnss.corrections.outages_s+": 10})


def test_overrides_apply_in_order_and_sections_merge():
    cfg = apply_overrides(load_config(), {"gnss.hz": 5, "gnss": {"hz": 7, "start": "cold"}})
    assert cfg["gnss"]["hz"] == 7 and cfg["gnss"]["start"] == "cold"
    assert cfg["gnss"]["elevation_mask_deg"] == 10


def test_apply_overrides_returns_a_new_canonical_dict():
    base = load_config()
    before = json.dumps(base)
    cfg = apply_overrides(
        base,
        {
            "gnss.antenna_flu_m": (1, 2, 3),
            "seed": np.int64(9),
            "delay_s": np.float64(0.25),
            "noise": np.bool_(False),
        },
    )
    assert json.dumps(base) == before
    assert cfg["gnss"]["antenna_flu_m"] == [1, 2, 3]
    assert type(cfg["seed"]) is int and type(cfg["delay_s"]) is float
    assert cfg["noise"] is False
    assert list(cfg) == list(base)
    json.dumps(cfg)


def test_integers_stay_integers_and_floats_floats():
    cfg = load_config(overrides={"gnss.hz": 5, "imu.hz": 100.0})
    assert type(cfg["gnss"]["hz"]) is int and type(cfg["imu"]["hz"]) is float


def test_paths_may_be_str_or_pathlike(write):
    path = write("my.json", {"seed": 3})
    assert load_config(str(path))["seed"] == load_config(path)["seed"] == 3


def test_deep_merge_does_not_change_its_inputs():
    base = {"a": {"b": 1, "c": [1]}, "d": 2}
    layer = {"a": {"b": 3}, "e": {"f": 4}}
    merged = deep_merge(base, layer)
    assert merged == {"a": {"b": 3, "c": [1]}, "d": 2, "e": {"f": 4}}
    merged["a"]["c"].append(2)
    merged["e"]["f"] = 5
    assert base == {"a": {"b": 1, "c": [1]}, "d": 2} and layer == {"a": {"b": 3}, "e": {"f": 4}}


@pytest.mark.parametrize(
    "text, pair",
    [("10:20", [10, 20]), ("1.5:2", [1.5, 2]), (" 0 : 3600 ", [0, 3600]), ("-5:1e3", [-5, 1000.0])],
)
def test_parse_outage(text, pair):
    assert parse_outage(text) == pair


@pytest.mark.parametrize("text", ["10", "a:b", "1:2:3", "nan:1", "1:inf", "", "10-20"])
def test_parse_outage_rejects(text):
    with pytest.raises(ConfigError) as err:
        parse_outage(text)
    assert str(err.value) == (
        f"command line: --gnss-outage = {json.dumps(text)} is not "
        f"<start>:<end> in seconds, such as 10:20"
    )


def test_a_new_section_is_data():
    """A later sensor adds a section to the schema, not code (as mag, baro, odom did)."""
    schema = Section(
        {
            **SCHEMA.fields,
            "sonar": Section(
                {
                    "enabled": BOOLEAN,
                    "hz": RATE_HZ,
                    "noise_nt": nonnegative("a standard deviation"),
                    "hard_iron_nt": Field("vector", length=3),
                    "model": Field("enum", choices=("wmm", "igrf")),
                }
            ),
        }
    )
    cfg = load_config()
    cfg["sonar"] = {
        "enabled": True,
        "hz": 50,
        "noise_nt": 10,
        "hard_iron_nt": [1, 2, 3],
        "model": "wmm",
    }
    validate(cfg, schema=schema)
    with pytest.raises(
        ConfigError, match=r"^sensors\.json: sonar\.hz = 2400 is out of range 1\.\.2000$"
    ):
        validate({**cfg, "sonar": {**cfg["sonar"], "hz": 2400}}, schema=schema)
    with pytest.raises(ConfigError, match=r"did you mean sonar\.noise_nt\?$"):
        validate({**cfg, "sonar": {**cfg["sonar"], "noise": 1}}, schema=schema)
    with pytest.raises(ConfigError, match=r"^sensors\.json: sonar\.model is missing$"):
        validate(
            {**cfg, "sonar": {k: v for k, v in cfg["sonar"].items() if k != "model"}}, schema=schema
        )
    out = apply_overrides(cfg, {"sonar.hz": 10}, schema=schema)
    assert list(out)[-1] == "sonar" and out["sonar"]["hz"] == 10
    assert list(canonical(cfg, schema)) == list(schema.fields)
    # The package's own schema does not know it.
    with pytest.raises(ConfigError, match="sonar = .* is not a known key"):
        validate(cfg)
