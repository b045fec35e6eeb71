"""The run report: statistics against independent computations, the PNGs, and the page as a
browser renders it (headless Chromium)."""

import argparse
import base64
import io
import math
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import orjson
import pytest

from navsense.config import load_config
from navsense.output.report import (
    GAUSSIAN_WITHIN_1SIGMA,
    GAUSSIAN_WITHIN_2SIGMA,
    STATISTICS_DOC,
    RunData,
    read_run,
    run_statistics,
    statistics,
    write_report,
)
from navsense.scenarios import load_scenario
from navsense.simulate import simulate
from navsense.vehicles import vehicle_profile

CHROMIUM = Path("/usr/bin/chromium")
PNGS = ("track.png", "gnss_error.png", "ins_error.png", "fix_states.png", "sky.png", "imu.png")
mm = 1e-3


def _simulate(out: Path, duration_s: float | None) -> Path:
    scenario = load_scenario("acre-loop", duration_s=duration_s)
    simulate(scenario.truth, load_config(vehicle="polaris"), vehicle_profile("polaris"),
             scenario.site, out, source={"scenario": "acre-loop"})
    return out


@pytest.fixture(scope="module")
def full_run(tmp_path_factory) -> Path:
    """acre-loop, the whole route (600 s), default seed 42, with its report."""
    run = _simulate(tmp_path_factory.mktemp("full") / "run", None)
    write_report(run)
    return run


@pytest.fixture(scope="module")
def short_run(tmp_path_factory) -> Path:
    """The first 40 s of acre-loop: out of the garage, past the grain bins."""
    return _simulate(tmp_path_factory.mktemp("short") / "run", 40.0)


@pytest.fixture(scope="module")
def full_stats(full_run) -> dict:
    return run_statistics(full_run)


def _rows(path: Path) -> list[dict]:
    with open(path, "rb") as f:
        return [orjson.loads(line) for line in f]


# ----------------------------------------------------------------------------- statistics
def test_statistics_is_a_flat_dict_of_floats_with_every_documented_key(full_stats):
    assert list(full_stats) == list(STATISTICS_DOC)
    assert all(type(v) is float for v in full_stats.values())
    assert full_stats["duration_s"] == 600.0
    assert full_stats["gnss_epochs"] == 6001.0 and full_stats["ins_epochs"] == 60001.0


def test_ins_sigma_honesty_is_close_to_gaussian_on_acre_loop(full_stats):
    """Seed 42, acre-loop: measured 66.6 % / 94.1 % horizontal and 63.2 % / 95.8 % vertical.

    The INS error is a Gauss-Markov process (tau 30 s) plus white noise, so 600 s hold about
    20 independent samples per axis; the tolerances allow that scatter, while a wrong sigma (the
    variance taken for the standard deviation, or the up axis without its factor 1.5) moves the
    fractions by tens of percent.
    """
    s = full_stats
    assert abs(s["ins_h_within_1sigma"] - GAUSSIAN_WITHIN_1SIGMA) < 0.06
    assert abs(s["ins_v_within_1sigma"] - GAUSSIAN_WITHIN_1SIGMA) < 0.08
    assert abs(s["ins_h_within_2sigma"] - GAUSSIAN_WITHIN_2SIGMA) < 0.03
    assert abs(s["ins_v_within_2sigma"] - GAUSSIAN_WITHIN_2SIGMA) < 0.03
    # RMS near the configured sigma: sqrt(0.01^2 + 0.003^2) per horizontal axis, 1.5 x up
    sigma = math.hypot(0.01, 0.003)
    assert 0.7 * sigma * math.sqrt(2) < s["ins_h_rms_m"] < 1.3 * sigma * math.sqrt(2)
    assert 0.7 * 1.5 * sigma < s["ins_v_rms_m"] < 1.3 * 1.5 * sigma


def test_fix_state_times_and_time_to_first_fix_from_the_rows(full_run, full_stats):
    rows = _rows(full_run / "gnss.jsonl")
    fix = [r["fix_type"] for r in rows]
    for state in ("no_fix", "single", "dgps", "rtk_float", "rtk_fixed"):
        assert full_stats[f"gnss_{state}_time_s"] == pytest.approx(fix.count(state) * 0.1, abs=1e-9)
    first = next(r["sample_time_s"] for r in rows if r["fix_type"] != "no_fix")
    assert full_stats["gnss_time_to_first_fix_s"] == first
    first_fixed = next(r["sample_time_s"] for r in rows if r["fix_type"] == "rtk_fixed")
    assert full_stats["gnss_time_to_first_rtk_fixed_s"] == first_fixed
    assert 20.0 < first < 40.0  # the antenna is inside the garage for the first 20 s
    assert math.isnan(full_stats["gnss_single_h_rms_m"])  # never single on acre-loop


def test_gnss_errors_are_the_receiver_models_errors(short_run):
    """The report's truth antenna (rebuilt from the scenario and the lever arm) against the
    receiver model run again over the same truth: the errors agree to the rows' 0.1 mm."""
    data = read_run(short_run)
    assert data.truth_source == "scenario acre-loop (rebuilt)"
    block = data.receiver().process(data.truth)
    np.testing.assert_array_equal(block["sample_time_s"], data.gnss_t_s)
    np.testing.assert_allclose(block["antenna_enu_m"], data.gnss_truth_antenna_enu_m, rtol=0,
                               atol=1e-9 * mm)
    ok = np.isfinite(data.gnss_error_enu_m[:, 0])
    assert ok.sum() > 100
    np.testing.assert_allclose(data.gnss_error_enu_m[ok], block["error_enu_m"][ok], rtol=0,
                               atol=0.05 * mm)


def test_ins_errors_are_the_frame_errors_in_grid_axes(short_run):
    """INS error from the UTM fields against the grid ENU position minus the truth INS point
    (rebuilt from the scenario truth and the INS lever arm)."""
    from navsense.rotation import quat_to_matrix, rotate

    data = read_run(short_run)
    idx = np.round(data.ins_t_s * 120.0).astype(int)
    arm = np.array(data.episode["ins"]["point_chassis_flu_m"])
    truth_enu = data.truth.p_m[idx] + rotate(quat_to_matrix(data.truth.q_xyzw[idx]), arm)
    # UTM scale 0.9996 and the two heights differ by parts in 1e4 of a centimetre error
    np.testing.assert_allclose(data.ins_truth_enu_m, truth_enu, rtol=0, atol=0.05 * mm)


def test_within_sigma_fractions_of_iid_gaussian_errors():
    """_error_stats on 200 000 i.i.d. Gaussian samples with a known sigma: the Gaussian fractions
    within 4 binomial standard deviations, and the RMS of a 2-D error sqrt(2) sigma."""
    rng = np.random.default_rng(7)
    n = 200_000
    sigma = np.tile([0.02, 0.02, 0.05], (n, 1))
    data = RunData(run_dir=Path("."), episode={"steps": 2, "physics_hz": 120.0})
    data.ins_t_s = np.arange(n) / 100.0
    data.ins_error_enu_m = rng.standard_normal((n, 3)) * sigma
    data.ins_sigma_enu_m = sigma
    s = statistics(data)
    for p, key in ((GAUSSIAN_WITHIN_1SIGMA, "1sigma"), (GAUSSIAN_WITHIN_2SIGMA, "2sigma")):
        tol_h = 4 * math.sqrt(p * (1 - p) / (2 * n))
        tol_v = 4 * math.sqrt(p * (1 - p) / n)
        assert abs(s[f"ins_h_within_{key}"] - p) < tol_h
        assert abs(s[f"ins_v_within_{key}"] - p) < tol_v
    assert s["ins_h_rms_m"] == pytest.approx(0.02 * math.sqrt(2), rel=0.01)
    assert s["ins_v_rms_m"] == pytest.approx(0.05, rel=0.01)
    # 95th percentile of |N(0, s)| is 1.96 s; of a 2-D (Rayleigh) error sqrt(-2 ln 0.05) s
    assert s["ins_v_p95_m"] == pytest.approx(1.959964 * 0.05, rel=0.02)
    assert s["ins_h_p95_m"] == pytest.approx(math.sqrt(-2 * math.log(0.05)) * 0.02, rel=0.02)
    assert math.isnan(s["gnss_h_rms_m"])  # no GNSS: every GNSS key is NaN


# ----------------------------------------------------------------------------------- files
def test_pngs_exist_and_are_non_trivial(full_run):
    from PIL import Image

    folder = full_run / "report"
    assert sorted(p.name for p in folder.glob("*.png")) == sorted(PNGS)
    for name in PNGS:
        data = (folder / name).read_bytes()
        assert len(data) > 20_000, name
        img = Image.open(io.BytesIO(data)).convert("RGB")
        assert img.width >= 700 and img.height >= 600, (name, img.size)
        colors = img.getcolors(maxcolors=1 << 20)
        assert len(colors) >= 20, name  # lines, bands, markers, text: many colours
        counts = sorted(c for c, _ in colors)
        assert counts[-1] < 0.97 * img.width * img.height, name  # not one flat colour


def test_report_html_is_self_contained_with_the_pngs_embedded(full_run):
    folder = full_run / "report"
    page = (folder / "report.html").read_text(encoding="utf-8")
    srcs = re.findall(r"<img src='([^']*)'", page)
    assert len(srcs) == len(PNGS)
    embedded = sorted(base64.b64decode(s.split(",", 1)[1]) for s in srcs)
    assert embedded == sorted((folder / n).read_bytes() for n in PNGS)
    assert all(s.startswith("data:image/png;base64,") for s in srcs)
    assert "http://" not in page and "https://" not in page and "<script" not in page
    assert "Gaussian reference" in page and "rtk_fixed" in page
    stats = orjson.loads((folder / "statistics.json").read_bytes())
    assert set(stats) == set(STATISTICS_DOC)


_PROBE = """<script>
window.addEventListener('load', function () {
  var imgs = Array.prototype.slice.call(document.images);
  var bad = imgs.filter(function (i) { return !(i.complete && i.naturalWidth > 0); });
  var d = document.createElement('div');
  d.id = 'navsense-probe';
  d.textContent = 'images=' + imgs.length + ' broken=' + bad.length;
  document.body.appendChild(d);
});
</script>"""


@pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is not installed "
                    "(Debian package chromium; .ci/run installs it)")
def test_report_renders_in_headless_chromium(full_run, tmp_path):
    """Chromium loads the page with no console message and every image decoded (a probe
    script, added to a copy of the page, reports naturalWidth > 0 for each image)."""
    page = (full_run / "report" / "report.html").read_text(encoding="utf-8")
    probe = tmp_path / "probe.html"
    probe.write_text(page.replace("</body>", _PROBE + "</body>"), encoding="utf-8")
    cmd = [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr",
           "--v=0", "--virtual-time-budget=10000", "--dump-dom", probe.as_uri()]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    found = re.search(r'<div id="navsense-probe">images=(\d+) broken=(\d+)</div>', done.stdout)
    assert found, done.stdout[-2000:]
    assert (int(found.group(1)), int(found.group(2))) == (len(PNGS), 0)
    console = [line for line in done.stderr.splitlines()
               if ":CONSOLE" in line or "Uncaught" in line]
    assert console == []


# ------------------------------------------------------------------------------------- sky
def test_sky_plot_at_a_chosen_time_matches_the_row(short_run):
    from navsense.output import report_plots
    from navsense.sensors.gnss import sky

    path = write_report(short_run, sky_time_s=33.33)
    page = path.read_text(encoding="utf-8")
    assert "moved to the nearest GNSS epoch, t = 33.30 s" in page
    data = read_run(short_run)
    k = report_plots.sky_epoch(data, 33.33)
    t, _, _, status = report_plots.sky_status(data, k)
    assert t == pytest.approx(33.3, abs=1e-9)
    row = _rows(short_run / "gnss.jsonl")[k]
    counts = sky.counts(status[None, :])
    for key, value in counts.items():
        assert int(value[0]) == row[key], key
    # a second report replaces the first whole
    write_report(short_run)
    assert sorted(p.name for p in (short_run / "report").iterdir()) == sorted(
        PNGS + ("report.html", "statistics.json"))
    assert not list(short_run.glob(".report*"))


def test_default_sky_epoch_shows_obstructions(full_run):
    from navsense.output import report_plots

    data = read_run(full_run)
    k = report_plots.sky_epoch(data, None)
    c = {key: int(v[k]) for key, v in data.gnss_counts.items()}
    assert c["satellites_used"] > 0 and c["satellites_foliage"] > 0
    assert c["satellites_near_obstruction"] + c["satellites_blocked"] > 0


# ----------------------------------------------------------------------- without a truth
def test_report_without_truth_source_keeps_the_ins_and_says_why(short_run, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(short_run, run, ignore=shutil.ignore_patterns("report", "*.mcap"))
    episode = orjson.loads((run / "episode.json").read_bytes())
    episode["source"] = {}
    (run / "episode.json").write_bytes(orjson.dumps(episode))
    stats = run_statistics(run)
    assert math.isnan(stats["gnss_h_rms_m"]) and math.isnan(stats["gnss_rtk_float_v_p95_m"])
    assert not math.isnan(stats["ins_h_rms_m"])
    assert stats["gnss_time_to_first_fix_s"] > 0  # from the rows alone
    page = write_report(run).read_text(encoding="utf-8")
    assert "No truth for the GNSS errors: episode.json names no truth source." in page
    assert "gnss_error.png" not in page and "sky.png" in page  # sky from the INS pose


# --------------------------------------------------------------------------------- the CLI
def test_cli_report(short_run, capsys):
    from navsense import cli_export

    parser = argparse.ArgumentParser(prog="navsense")
    cli_export.add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["report", str(short_run), "--time-s", "30"])
    assert args.func(args) == 0
    assert str(short_run / "report" / "report.html") in capsys.readouterr().out
