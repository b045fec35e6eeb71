"""gnss.signal_outages_s through a whole run (issue 19 section 2): the rows, GGA sentences,
statistics and the report's sky follow the receiver's states, counts and times.

``navsense simulate --track examples/underpass.waypoints.json --site examples/underpass.site.json
--gnss-signal-outage 10:16``: in [10, 16) the vehicle is on the open farm track, 100 m and more
south of the bridge, so the outage alone takes the satellites away (the bridge takes them later). External truths: the fix-state
machine's rules (no fix below 4 satellites, the lock ends, a new lock in RTK float at the first
epoch back, no second time to first fix), GGA's quality 0 and empty position for no fix (NMEA
0183), and the run without the outage.
"""

import json
import math
from pathlib import Path

import numpy as np
import pytest

from navsense.cli import main

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
T1, T2 = 10.0, 16.0
RTK_KEYS = ("rtk_lock_age_s", "rtk_converge_s", "rtk_time_to_fix_s")


def _simulate(out: Path, *extra: str) -> Path:
    argv = [
        "simulate",
        "--track",
        str(EXAMPLES / "underpass.waypoints.json"),
        "--site",
        str(EXAMPLES / "underpass.site.json"),
        "--out",
        str(out),
        *extra,
    ]
    assert main(argv) == 0
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("signal_outage_run")
    base = _simulate(root / "base")
    lost = _simulate(root / "lost", "--gnss-signal-outage", f"{T1:g}:{T2:g}")
    return base, lost


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def _rows(run: Path) -> list[dict]:
    return [json.loads(line) for line in _lines(run / "gnss.jsonl")]


def test_the_rows_in_the_window_have_no_fix_and_no_satellite(runs):
    base, lost = runs
    b_rows, rows = _rows(base), _rows(lost)
    inside = [i for i, r in enumerate(rows) if T1 <= r["sample_time_s"] < T2]
    assert len(inside) == 60
    for i in inside:
        r, b = rows[i], b_rows[i]
        assert b["fix_type"] == "rtk_fixed"  # open sky there without the outage
        assert r["fix_type"] == "no_fix" and r["gga_quality"] == 0
        assert r["satellites_used"] == r["satellites_clear"] == 0
        assert r["satellites_near_obstruction"] == r["satellites_foliage"] == 0
        assert r["satellites_blocked"] == r["satellites_above_mask"] == b["satellites_above_mask"]
        assert r["satellites_above_mask"] >= 4
        assert r["position_enu_m"] is None and r["latitude_deg"] is None
        assert all(r[k] is None for k in RTK_KEYS)
        # the corrections keep coming: their age is the run's without the outage
        assert r["correction_age_s"] == b["correction_age_s"]
        # GGA: quality 0, no satellite, no position (NMEA 0183)
        f = r["nmea_gga"].split(",")
        assert f[6] == "0" and f[7] == "00" and f[2] == f[4] == f[9] == ""
    # the GGA sentences of gnss.nmea are the rows'
    gga = [line for line in _lines(lost / "gnss.nmea") if line[3:6] == "GGA"]
    assert gga == [r["nmea_gga"] for r in rows]


def test_before_the_window_the_run_is_the_same_and_after_it_the_fix_comes_back(runs):
    base, lost = runs
    b_lines, lines = _lines(base / "gnss.jsonl"), _lines(lost / "gnss.jsonl")
    rows = [json.loads(line) for line in lines]
    k0 = next(i for i, r in enumerate(rows) if r["sample_time_s"] >= T1)
    assert lines[:k0] == b_lines[:k0]
    k1 = next(i for i, r in enumerate(rows) if r["sample_time_s"] >= T2)
    assert rows[k1]["sample_time_s"] == pytest.approx(T2)
    # a fix at once (no second time to first fix), a new RTK lock in float, then fixed
    assert rows[k1]["fix_type"] == "rtk_float" and rows[k1]["rtk_lock_age_s"] == 0.0
    k_fix = next(i for i in range(k1, len(rows)) if rows[i]["fix_type"] == "rtk_fixed")
    t_fix = rows[k1]["rtk_time_to_fix_s"]
    assert all(rows[i]["fix_type"] == "rtk_float" for i in range(k1, k_fix))
    assert rows[k_fix]["rtk_converge_s"] >= t_fix > rows[k_fix - 1]["rtk_converge_s"]
    for i in range(k1, k_fix + 1):  # the lock's age counts from its start
        assert rows[i]["rtk_lock_age_s"] == pytest.approx(rows[i]["sample_time_s"] - T2, abs=1e-3)
    assert math.isfinite(t_fix) and t_fix > 0


def test_the_statistics_count_the_window_as_no_fix(runs):
    from navsense.runs.report import run_statistics

    base, lost = runs
    sb, sl = run_statistics(base), run_statistics(lost)
    # the base run's no fix is the bridge's; the outage adds its 6 s (the fix returns at T2)
    assert sb["gnss_no_fix_time_s"] > 0.0
    assert sl["gnss_no_fix_time_s"] - sb["gnss_no_fix_time_s"] == pytest.approx(T2 - T1, abs=1e-9)
    assert sl["gnss_time_to_first_fix_s"] == sb["gnss_time_to_first_fix_s"] == 0.0
    states = ("rtk_fixed", "rtk_float", "dgps", "single")
    with_fix = [sum(x[f"gnss_{s}_time_s"] for s in states) for x in (sb, sl)]
    assert with_fix[0] - with_fix[1] == pytest.approx(T2 - T1, abs=1e-9)


def test_the_reports_sky_in_the_window_is_the_rows(runs):
    """The report recomputes the sky of an epoch with navsense.sky; in a signal outage it loses
    every satellite as the receiver did (the counts of the row), and says so."""
    pytest.importorskip("matplotlib")
    from navsense.runs import report_plots
    from navsense.runs.report import read_run, write_report
    from navsense.sky import obstruction as sky

    _, lost = runs
    data = read_run(lost)
    run_sky = data.sky()
    assert run_sky.signal_outages_s == ((T1, T2),)
    for t in (9.9, 10.0, 13.0, 15.9, 16.0):
        k = report_plots.sky_epoch(data, t)
        _, _, _, status = report_plots.sky_status(data, k, run_sky)
        counts = sky.counts(status[None, :])
        for key, value in counts.items():
            assert int(value[0]) == int(data.gnss_counts[key][k]), (key, t)
    k = report_plots.sky_epoch(data, 13.0)
    assert int(data.gnss_counts["satellites_used"][k]) == 0
    fig = report_plots.sky_figure(data, 13.0)
    assert fig is not None and fig.png[:8] == b"\x89PNG\r\n\x1a\n"
    assert write_report(lost, sky_time_s=13.0).is_file()
    assert np.isfinite(data.gnss_t_s).all()
