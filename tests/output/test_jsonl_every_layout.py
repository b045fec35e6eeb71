"""Every JSON Lines file of a run is jsonl_from_columns's bytes (navsense.output.columns): here
each chunk of each model of many real configurations (every sensor, the configurable IMU and its
presets, the Earth's terms, delay, the INS's frames, the receiver's states, presets, heading,
real orbits, outages, obstructions, a site outside NAD83, no noise, a truth with resets, no fix)
is compared, on both of its paths (orjson of each row below JOIN_ROWS rows, Arrow's join from
there), with orjson.dumps of each row of rows_from_columns, the contract."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest

import navsense.simulate
from navsense.cli import main
from navsense.output import columns
from navsense.output.columns import jsonl_buffer_from_columns, rows_from_columns

TESTS = Path(__file__).parents[1]
EXAMPLES = TESTS.parent / "examples"
RINEX = TESTS / "data" / "rinex" / "ELKO00USA_R_20182100000_01D_MN.rnx.gz"
LINE = orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_APPEND_NEWLINE
EVERY = ["--mag", "--baro", "--odom"]

# name -> (chunk steps, seconds, options); 120 Hz physics: 60 steps give a 100 Hz model 50 rows
# a chunk (orjson of each row), 1200 steps 1000 (Arrow's join); every chunk is checked both ways
CONFIGS: dict[str, tuple[int, float, list[str]]] = {
    "every_sensor": (1200, 12, EVERY),
    "every_sensor_small_chunks": (60, 3, EVERY),
    "delay_and_frames": (
        700,
        8,
        [*EVERY, "--delay", "0.05", "--set", "ins.frame=wgs84_g2139", "--gnss-frame", "nad83"],
    ),
    "ins_nad83_wgs84_output": (
        700,
        6,
        ["--set", "ins.frame=nad83", "--gnss-frame", "wgs84_g2139", "--no-imu"],
    ),
    "configurable_imu_earth": (
        700,
        6,
        ["--set", "imu.model=configurable", "--set", "imu.earth=wgs84", "--no-gnss"],
    ),
    "imu_preset_bmi088": (
        1200,
        6,
        ["--set", "imu.model=configurable", "--set", "imu.preset=bmi088", "--no-gnss", "--no-ins"],
    ),
    "imu_preset_kvh1750_integrated": (
        500,
        5,
        [
            "--set",
            "imu.model=configurable",
            "--set",
            "imu.preset=kvh1750",
            "--set",
            "imu.configurable.deltas=integrated",
            "--imu-hz",
            "120",
            "--no-gnss",
            "--no-ins",
        ],
    ),
    "imu_vibration": (
        300,
        4,
        ["--set", "imu.vibration.preset=tractor_field", "--no-gnss", "--no-ins"],
    ),
    "no_noise": (1200, 10, [*EVERY, "--no-noise"]),
    "rtk_heading_corrections": (
        1200,
        14,
        [
            "--receiver",
            "rtk",
            "--gnss-baseline-km",
            "3",
            "--gnss-hz",
            "10",
            "--set",
            "gnss.heading.baseline_m=1.2",
            "--set",
            "gnss.heading.rtk_float=true",
            "--corrections-outage",
            "4:7",
            "--no-imu",
            "--no-ins",
        ],
    ),
    "cold_start_signal_outage": (
        1200,
        16,
        [
            "--gnss-start",
            "cold",
            "--set",
            "gnss.cold_ttff_s=3",
            "--gnss-hz",
            "20",
            "--gnss-signal-outage",
            "8:11",
            "--no-imu",
        ],
    ),
    "receivers": (600, 5, ["--receiver", "phone", "--gnss-hz", "5", "--no-imu", "--no-ins"]),
    "dgps_no_corrections": (
        600,
        5,
        ["--receiver", "dgps", "--no-corrections", "--no-imu", "--no-ins"],
    ),
    "gps_only_multipath": (
        900,
        8,
        [
            "--set",
            "gnss.constellations.galileo=false",
            "--set",
            "gnss.constellations.glonass=false",
            "--set",
            "gnss.multipath_tau_s=0.5",
            "--gnss-hz",
            "30",
            "--no-imu",
            "--no-ins",
        ],
    ),
    "real_orbits": (
        1200,
        6,
        [
            "--gnss-orbits",
            str(RINEX),
            "--set",
            "gnss.datum.start_utc=2018-07-29T18:00:00Z",
            "--gnss-systems",
            "gps,galileo,glonass,beidou",
            "--gnss-hz",
            "25",
            "--nmea-sentences",
            "GGA,GSA,GSV,GST,ZDA",
            "--no-imu",
            "--no-ins",
        ],
    ),
    "ins_aided_first_fix": (  # the receiver's first fix at 26 s: the INS's nulls end in a chunk
        1200,
        32,
        ["--set", "ins.aiding=gnss", "--set", "ins.imu_grade=tactical", "--no-imu"],
    ),
    "nmea_heading_sentences": (
        600,
        8,
        [
            "--receiver",
            "rtk",
            "--set",
            "gnss.heading.baseline_m=0.8",
            "--nmea-sentences",
            "HDT,RMC,VTG,GGA,GST,ZDA",
            "--set",
            "mount_frame=base_footprint",
            "--no-imu",
        ],
    ),
    "survey_gsv_below_mask": (
        600,
        4,
        [
            "--receiver",
            "survey",
            "--set",
            "gnss.nmea.gsv_below_mask=true",
            "--set",
            "gnss.elevation_mask_deg=25",
            "--no-imu",
            "--no-ins",
        ],
    ),
}


class Check:
    """simulate's encoder, checked: each chunk's bytes on both paths against orjson's rows."""

    def __init__(self) -> None:
        self.rows: list[int] = []

    def __call__(self, cols, m):
        got = jsonl_buffer_from_columns(cols, m)
        want = b"".join(orjson.dumps(r, option=LINE) for r in rows_from_columns(cols, m))
        joined = columns._jsonl_joined(cols, m)
        assert bytes(got) == want, [c.name for c in cols]
        assert bytes(joined) == want, [c.name for c in cols]
        self.rows.append(m)
        return got


@pytest.fixture
def check(monkeypatch):
    c = Check()
    monkeypatch.setattr(navsense.simulate, "jsonl_buffer_from_columns", c)
    return c


def _simulate(tmp_path: Path, chunk: int, seconds: float, options: list[str], source=None):
    source = source or ["--scenario", "acre-loop"]
    argv = ["simulate", *source, "--duration", str(seconds), "--chunk-steps", str(chunk),
            "--workers", "threads", "--quiet", "--out", str(tmp_path / "run"), *options]  # fmt: skip
    assert main(argv) == 0


@pytest.mark.parametrize("name", CONFIGS)
def test_every_chunk_of_a_configuration(name, tmp_path, check):
    chunk, seconds, options = CONFIGS[name]
    _simulate(tmp_path, chunk, seconds, options)
    assert check.rows


def test_the_chunks_cover_both_paths(tmp_path, check):
    _simulate(tmp_path, 1200, 11, EVERY)
    _simulate(tmp_path / "small", 30, 1, EVERY)
    assert min(check.rows) < columns.JOIN_ROWS <= max(check.rows)


def test_a_truth_with_resets_and_a_site_outside_nad83(tmp_path, check):
    from conftest import open_sky_circle
    from golden_runs import write_inputs
    from navsense.truth.io import write_truth

    write_inputs(tmp_path)
    _simulate(tmp_path, 1000, 14, EVERY, ["--truth", str(tmp_path / "resets.csv")])
    site = {
        "name": "sydney",
        "georeference": {"kind": "local", "lat_deg": -33.8688, "lon_deg": 151.2093, "height_m": 30},
    }
    (tmp_path / "sydney.site.json").write_text(json.dumps(site))
    log = write_truth(open_sky_circle(5 * 120 + 1), tmp_path / "sydney.parquet")
    source = ["--truth", str(log), "--site", str(tmp_path / "sydney.site.json")]
    _simulate(tmp_path / "sydney", 200, 5, EVERY, source)
    assert check.rows


def test_a_street_of_buildings(tmp_path, check):
    """The example street's buildings block satellites (the GNSS's counts and nulls change)."""
    source = ["--track", str(EXAMPLES / "musterstrasse.waypoints.json"),
              "--site", str(EXAMPLES / "musterstrasse.site.json"),
              "--buildings", str(EXAMPLES / "musterstrasse.osm")]  # fmt: skip
    _simulate(tmp_path, 1200, 30, ["--gnss-hz", "5", *EVERY], source)
    assert check.rows
