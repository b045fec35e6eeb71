"""The example files in examples/ load as the README says (issue 18 item 6)."""

from __future__ import annotations

import warnings
from pathlib import Path

from navsense.campaign.spec import load_campaign
from navsense.errors import NavsenseWarning
from navsense.site import load_site
from navsense.truth.io import read_truth, read_truth_metadata
from navsense.truth.tracks import build_truth_from_track, load_track

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_the_site_json_has_a_datum_and_obstacles():
    site = load_site(EXAMPLES / "site.json")
    assert site.georeference["kind"] == "local"
    assert site.box_min_m.shape == (2, 3) and site.cyl_xy_m.shape == (1, 2)
    assert site.crown_center_m.shape == (2, 3)
    geo = site.make_georeference("2026-05-04T09:30:00Z")
    assert geo.vertical_datum == "egm96" and not geo.nad83_applies


def test_the_waypoint_route_becomes_truth_on_the_site():
    site = load_site(EXAMPLES / "site.json")
    track = load_track(EXAMPLES / "route.waypoints.json", site=site)
    with warnings.catch_warnings():
        warnings.simplefilter("error", NavsenseWarning)  # nothing a vehicle cannot do
        truth = build_truth_from_track(track, "polaris")
    assert 50.0 < truth.t_s[-1] < 120.0 and track.route is not None


def test_the_truth_csv_reads_with_its_site_and_start_time():
    truth = read_truth(EXAMPLES / "drive.csv")
    assert len(truth) == 181
    meta = read_truth_metadata(EXAMPLES / "drive.csv")
    assert meta.site.to_json() == load_site(EXAMPLES / "site.json").to_json()
    assert meta.start_utc == "2026-05-04T09:30:00Z"
    assert meta.where == str(EXAMPLES / "drive.truth.json")


def test_the_campaign_file_loads_with_its_runs():
    campaign = load_campaign(EXAMPLES / "campaign.toml")
    assert len(campaign.runs) == 18
    assert [s["run_source"].get("duration_s") for s in campaign.sources] == [30, 30, 60]
