"""Statistics of one run directory against errors computed here from the rows and the truth."""

import json
import math
from pathlib import Path

import numpy as np
import pytest

from campaign.campaign_helpers import write_open_sky_truth
from navsense.campaign.stats import STATISTICS_KEYS, run_statistics
from navsense.config import load_config
from navsense.errors import FormatError
from navsense.simulate import simulate
from navsense.site import embedded_site
from navsense.truth.io import read_truth
from navsense.vehicles import vehicle_profile

mm = 1e-3
um = 1e-6


@pytest.fixture(scope="module")
def truth_log(tmp_path_factory) -> Path:
    return write_open_sky_truth(tmp_path_factory.mktemp("truth") / "circle.parquet", seconds=30.0)


def _run(base: Path, truth_log: Path, name: str, **overrides) -> Path:
    cfg = load_config(overrides=overrides)
    out = base / name
    simulate(
        read_truth(truth_log),
        cfg,
        vehicle_profile("polaris"),
        embedded_site("acre"),
        out,
        source={"truth": str(truth_log)},
    )
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory, truth_log):
    base = tmp_path_factory.mktemp("runs")
    return {
        "noisy": _run(base, truth_log, "noisy", seed=11),
        "quiet": _run(base, truth_log, "quiet", noise=False),
        "cold": _run(base, truth_log, "cold", **{"gnss.start": "cold", "gnss.cold_ttff_s": 8}),
        "no_gnss": _run(base, truth_log, "no_gnss", **{"gnss.enabled": False}),
    }


def _same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(
        (math.isnan(a[k]) and math.isnan(b[k])) or a[k] == b[k] for k in a
    )


def test_keys_and_types(runs):
    stats = run_statistics(runs["noisy"])
    assert tuple(stats) == STATISTICS_KEYS
    assert all(isinstance(v, float) for v in stats.values())
    assert stats["duration_s"] == 30.0
    assert stats["gnss_epochs"] == 301.0 and stats["ins_epochs"] == 3001.0


def test_noise_off_errors_are_only_the_rounding_of_the_rows(runs):
    s = run_statistics(runs["quiet"])
    # gnss.jsonl positions have 4 decimals: at most 0.05 mm an axis
    assert s["gnss_rtk_fixed_h_rms_m"] <= 0.05 * mm * math.sqrt(2)
    assert s["gnss_rtk_fixed_v_rms_m"] <= 0.05 * mm
    assert s["gnss_rtk_fixed_fraction"] == 1.0
    for key in (
        "ins_pos_h_rms_m",
        "ins_pos_v_rms_m",
        "ins_vel_rms_mps",
        "ins_att_rms_deg",
        "ins_heading_rms_deg",
    ):
        assert s[key] <= 1e-9, key
    for key in (
        "gnss_rtk_fixed_h_in_1sigma",
        "gnss_rtk_fixed_v_in_1sigma",
        "ins_pos_h_in_1sigma",
        "ins_vel_in_1sigma",
        "ins_heading_in_1sigma",
        "ins_tilt_in_1sigma",
    ):
        assert s[key] == 1.0, key


def test_gnss_errors_match_an_independent_computation(runs, truth_log):
    run = runs["noisy"]
    s = run_statistics(run)
    rows = [json.loads(line) for line in (run / "gnss.jsonl").read_text().splitlines()]
    truth = read_truth(truth_log)
    # antenna 1.1 m ahead, 2.15 m above base_footprint; the Polaris's chassis origin is
    # 0.4 x 2.06 m ahead of it and 0.60 m up (DESIGN.md ruling "Mounts")
    lever = np.array([1.1 - 0.4 * 2.06, 0.0, 2.15 - 0.60])
    e_h, e_v = [], []
    for row in rows:
        if row["fix_type"] != "rtk_fixed":
            continue
        k = round(row["sample_time_s"] * 120)
        yaw = 2.0 * math.atan2(truth.q_xyzw[k, 2], truth.q_xyzw[k, 3])  # level drive
        arm = np.array(
            [
                math.cos(yaw) * lever[0] - math.sin(yaw) * lever[1],
                math.sin(yaw) * lever[0] + math.cos(yaw) * lever[1],
                lever[2],
            ]
        )
        e = np.array(row["position_enu_m"]) - (truth.p_m[k] + arm)
        e_h.append(math.hypot(e[0], e[1]))
        e_v.append(abs(e[2]))
    assert len(e_h) == s["gnss_rtk_fixed_fraction"] * s["gnss_epochs"]
    assert s["gnss_rtk_fixed_h_rms_m"] == pytest.approx(math.sqrt(np.mean(np.square(e_h))), abs=um)
    assert s["gnss_rtk_fixed_v_p95_m"] == pytest.approx(np.percentile(e_v, 95), abs=um)
    # rtk_fixed errors are centimetres (specification: sigma_h 8 mm + 1 ppm of 5 km)
    assert 2 * mm < s["gnss_rtk_fixed_h_rms_m"] < 60 * mm


def test_white_ins_velocity_noise_is_inside_its_sigma_as_often_as_a_gaussian(runs):
    s = run_statistics(runs["noisy"])
    n = 3 * 3001  # components of the velocity errors (white: independent)
    for key, p in (
        ("ins_vel_in_1sigma", math.erf(1 / math.sqrt(2))),
        ("ins_vel_in_2sigma", math.erf(2 / math.sqrt(2))),
    ):
        assert abs(s[key] - p) <= 4 * math.sqrt(p * (1 - p) / n), key
    sigma_v = 0.02  # sensors_polaris.json ins.velocity_white_mps
    assert s["ins_vel_rms_mps"] == pytest.approx(math.sqrt(3) * sigma_v, rel=0.05)


def test_time_to_first_fix_is_the_first_epoch_with_a_fix(runs):
    run = runs["cold"]
    s = run_statistics(run)
    rows = [json.loads(line) for line in (run / "gnss.jsonl").read_text().splitlines()]
    first = next(r["sample_time_s"] for r in rows if r["fix_type"] != "no_fix")
    assert s["gnss_time_to_first_fix_s"] == pytest.approx(first, abs=1e-9)
    assert s["gnss_time_to_first_fix_s"] >= 8.0  # cold_ttff_s
    times = sum(
        s[f"gnss_{state}_time_s"]
        for state in ("rtk_fixed", "rtk_float", "dgps", "single", "no_fix")
    )
    assert times == pytest.approx(s["gnss_epochs"] / 10)  # gnss.hz 10


def test_truth_rebuilt_from_the_source_equals_the_truth_passed_in(runs, truth_log):
    run = runs["noisy"]
    assert _same(run_statistics(run), run_statistics(run, truth=read_truth(truth_log)))


def test_the_ins_statistics_do_not_depend_on_their_block_of_rows(runs, monkeypatch):
    import navsense.runs.stats

    run = runs["noisy"]  # 3001 INS epochs: one block of the default size
    whole = run_statistics(run)
    monkeypatch.setattr(navsense.runs.stats, "_BLOCK_ROWS", 1000)  # blocks of 1000, 1000, 1000, 1
    assert _same(run_statistics(run), whole)


def test_position_statistics_in_blocks_are_their_definition(monkeypatch):
    import navsense.runs.stats
    from navsense.runs.stats import position_statistics

    rng = np.random.default_rng(5)
    e = rng.standard_normal((2500, 3))
    sigma = np.abs(rng.standard_normal((2500, 3)))
    sigma[::7] = 0.0  # sigma 0: inside only with an error within the rounding
    e[::11] = 3e-5
    given = e.copy(), sigma.copy()
    monkeypatch.setattr(navsense.runs.stats, "_BLOCK_ROWS", 1000)  # blocks of 1000, 1000, 500
    got = position_statistics(e, sigma, 5e-5)
    assert np.array_equal(e, given[0]) and np.array_equal(sigma, given[1])  # inputs kept
    h, v = np.hypot(e[:, 0], e[:, 1]), np.abs(e[:, 2])
    a = np.maximum(np.abs(e) - 5e-5, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        r2 = (
            np.where(a[:, 0] == 0, 0, a[:, 0] / sigma[:, 0]) ** 2
            + np.where(a[:, 1] == 0, 0, a[:, 1] / sigma[:, 1]) ** 2
        )
    assert got == {
        "h_rms_m": math.sqrt(np.mean(h * h)),
        "h_p95_m": np.percentile(h, 95),
        "v_rms_m": math.sqrt(np.mean(v * v)),
        "v_p95_m": np.percentile(v, 95),
        "h_in_1sigma": np.count_nonzero(r2 <= 1) / 2500,
        "h_in_2sigma": np.count_nonzero(r2 <= 4) / 2500,
        "v_in_1sigma": np.count_nonzero(a[:, 2] <= sigma[:, 2]) / 2500,
        "v_in_2sigma": np.count_nonzero(a[:, 2] <= 2 * sigma[:, 2]) / 2500,
    }
    assert all(math.isnan(x) for x in position_statistics(e[:0], sigma[:0]).values())


def test_a_sensor_that_is_off_has_no_statistics(runs):
    s = run_statistics(runs["no_gnss"])
    assert all(math.isnan(v) for k, v in s.items() if k.startswith("gnss_"))
    assert not math.isnan(s["ins_pos_h_rms_m"])


def test_not_a_run_directory(tmp_path):
    with pytest.raises(FormatError, match="not a run directory"):
        run_statistics(tmp_path)
