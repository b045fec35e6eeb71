"""Each configuration key is written once (issue 28 item 4): the table navsense.config.keys holds
its kind, range and default; the default layers and the typed sections derive from it."""

import dataclasses

import pytest

from navsense.config import load_config
from navsense.config.defaults import all_defaults, code_defaults, sensors_defaults
from navsense.config.fields import Field, Section
from navsense.config.load import leaves
from navsense.config.schema import SCHEMA, defaults, known_keys, lookup, validate
from navsense.config.typed.baro import BaroConfig
from navsense.config.typed.configurable_imu import ConfigurableImuConfig
from navsense.config.typed.gnss import GnssConfig
from navsense.config.typed.imu import ImuConfig
from navsense.config.typed.ins import InsConfig
from navsense.config.typed.mag import MagConfig
from navsense.config.typed.odom import OdomConfig


def test_every_key_has_one_default_in_one_layer():
    code, spec = dict(leaves(code_defaults())), dict(leaves(sensors_defaults()))
    assert not set(code) & set(spec)
    assert sorted({**code, **spec}) == sorted(known_keys())
    assert dict(leaves(all_defaults())) == {**code, **spec}
    validate(all_defaults(), "defaults")  # each default passes its own key's check


def test_the_layers_split_by_the_specification_file():
    # sensors.json holds the specification's keys; the INS block and the extensions are code's
    assert "ins" not in sensors_defaults() and "noise" not in sensors_defaults()
    assert set(code_defaults()["ins"]) == set(lookup("ins").fields)
    assert "earth" in code_defaults()["imu"] and "earth" not in sensors_defaults()["imu"]


def test_a_key_without_a_default_is_named():
    schema = Section({"a": Section({"b": Field("number")})})
    with pytest.raises(ValueError, match="the configuration key a.b has no default"):
        defaults(schema=schema)
    assert defaults(schema=Section({"a": Field("number", default=2)})) == {"a": 2}


def test_defaults_keep_their_json_types():
    # episode.json records them: 10 stays an integer, 2010.0 a float, arrays lists
    d = all_defaults()
    assert d["gnss"]["hz"] == 10 and type(d["gnss"]["hz"]) is int
    ref = d["gnss"]["datum"]["helmert_itrf2014_to_nad83_2011"]["reference_epoch"]
    assert type(ref) is float
    assert d["gnss"]["antenna_flu_m"] == [0, 0, 1.7]
    assert SCHEMA.fields["gnss"].fields["antenna_flu_m"].default == (0, 0, 1.7)


@pytest.mark.parametrize(
    "typed, section",
    [
        (ImuConfig, "imu"),
        (InsConfig, "ins"),
        (MagConfig, "mag"),
        (BaroConfig, "baro"),
        (OdomConfig, "odom"),
    ],
)
def test_typed_fields_take_the_type_of_their_key(typed, section):
    cfg = load_config(overrides={f"{section}.hz": 7})
    obj = typed.from_validated(cfg)
    assert obj.hz == 7.0 and type(obj.hz) is float  # a number key is a float
    for f in dataclasses.fields(typed):
        path = f.metadata.get("key", f"{section}.{f.name}")
        try:
            node = lookup(path)
        except KeyError:
            continue  # fixed (mount_frame of the INS)
        if isinstance(node, Field) and node.kind == "vector":
            assert all(type(x) is float for x in getattr(obj, f.name))


def test_gnss_reads_each_key_where_the_table_has_it():
    cfg = load_config(
        overrides={"gnss.rtk.max_pdop": 3, "gnss.corrections.ppm_v": 2, "gnss.nmea.sentences": []}
    )
    g = GnssConfig.from_validated(cfg)
    assert g.fix.max_pdop == 3.0 and g.errors.ppm_v == 2.0 and g.nmea_sentences == ()
    assert g.constellations == (("gps", True), ("galileo", True), ("glonass", True))


def test_a_null_imu_term_takes_what_the_table_says_null_means():
    p = ConfigurableImuConfig.from_validated(load_config(overrides={"imu.model": "configurable"}))
    assert p.gyro.bias_instability_tau_s == 100.0  # Basilisk's
    assert p.gyro.round_direction == "near" and p.gyro.carry_error is False
    assert p.accel.g_sensitivity.tolist() == [0.0, 0.0, 0.0]
    assert p.gyro.misalignment_rad.shape == (3, 3) and not p.gyro.misalignment_rad.any()
