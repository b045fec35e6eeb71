"""gnss.orbits and gnss.systems (navsense.sky.orbits): the synthetic default is the
specification's constellation unchanged; gnss.systems chooses what is tracked; the rulings'
refusals are one line."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import numpy as np
import pytest

from navsense.commands.config import add_config_arguments, overrides_from_args
from navsense.config import load_config
from navsense.config.typed.gnss import GnssConfig
from navsense.constants import GNSS_SYSTEMS
from navsense.errors import ConfigError
from navsense.sky.broadcast_sky import BroadcastSky
from navsense.sky.constellation import Constellation
from navsense.sky.orbits import make_orbits
from navsense.sky.systems import ALL_SYSTEMS

RINEX = Path(__file__).parents[1] / "data" / "rinex" / "ELKO00USA_R_20182100000_01D_MN.rnx.gz"
SITE = (40.4716, -86.9944, 180.0)
ON = {"gps": True, "galileo": True, "glonass": True}


def test_the_system_names_are_one_list():
    assert GNSS_SYSTEMS == ALL_SYSTEMS


def test_default_is_the_specifications_constellation():
    c = GnssConfig.from_validated(load_config())
    assert c.orbits == "synthetic" and c.systems == ALL_SYSTEMS
    sky = make_orbits(c.orbits, c.systems, dict(c.constellations), 7, c.start_utc, *SITE)
    ref = Constellation(7, ON, *SITE)
    assert isinstance(sky, Constellation)
    t = np.arange(0.0, 50.0, 0.1)
    los, vis = sky.sky(t, 10.0)
    assert np.array_equal(los, ref.los_enu(t))
    assert np.array_equal(vis, ref.visible(ref.los_enu(t), 10.0))
    assert np.array_equal(sky.enabled, ref.enabled)


def test_systems_choose_what_the_synthetic_receiver_tracks():
    sky = make_orbits("synthetic", ("gps", "beidou"), ON, 7, "2026-09-23T15:00:00Z", *SITE)
    assert set(sky.system[sky.enabled]) == {"gps"}
    assert sky.systems_on == ["gps"]
    ref = Constellation(7, ON, *SITE)
    assert np.array_equal(sky.los_enu(np.arange(5.0)), ref.los_enu(np.arange(5.0)))  # same draws


@pytest.mark.parametrize(
    ("orbits", "systems", "on", "match"),
    [
        ("synthetic", ("beidou", "qzss"), ON, r"synthetic constellation .* has gps, galileo"),
        ("synthetic", ("gps",), {**ON, "gps": False}, r"no system is tracked"),
        (str(RINEX), ("qzss",), ON, r"no ephemeris of the tracked systems"),
    ],
)
def test_nothing_tracked_is_one_line(orbits, systems, on, match):
    with pytest.raises(ConfigError, match=match) as err:
        make_orbits(orbits, systems, on, 7, "2018-07-29T12:00:00Z", *SITE)
    assert "\n" not in str(err.value)


def test_constellations_off_also_applies_to_a_file():
    sky = make_orbits(
        str(RINEX), ALL_SYSTEMS, {**ON, "glonass": False}, 7, "2018-07-29T12:00:00Z", *SITE
    )
    assert isinstance(sky, BroadcastSky)
    assert sky.systems == ("gps", "galileo", "beidou")


def test_command_line_options(tmp_path, monkeypatch):
    parser = argparse.ArgumentParser()
    add_config_arguments(parser)
    monkeypatch.chdir(tmp_path)
    args = parser.parse_args(["--gnss-orbits", "brdc.rnx", "--gnss-systems", "GPS, beidou"])
    over = overrides_from_args(args)
    assert over["gnss.orbits"] == os.path.join(str(tmp_path), "brdc.rnx")
    assert over["gnss.systems"] == ["gps", "beidou"]
    cfg = load_config(overrides=over)
    assert cfg["gnss"]["systems"] == ["gps", "beidou"]
    with pytest.raises(ConfigError, match=r'gnss.systems\[0\] = "galileo2" is not one of'):
        load_config(overrides={"gnss.systems": ["galileo2"]})
    with pytest.raises(ConfigError, match=r'gnss.orbits = "" is not a non-empty string'):
        load_config(overrides={"gnss.orbits": ""})
