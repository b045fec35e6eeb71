"""navsense allan: a stationary run of a preset recovers the datasheet's random walk and bias
instability within the statistical uncertainty of the run's length (issue 30 item 4).

Uncertainty used: the relative standard error of an overlapping Allan deviation at tau from a
run of T seconds, 1 / sqrt(2 (T / tau - 1)) (IEEE Std 952-1997 Annex C), at tau = 1 s for the
random walk and at the minimum for the bias instability; a reading passes within 3 of them.
External truths: the KVH 1750 datasheet's figures (typed here, not taken from the preset), the
Gauss-Markov Allan variance's definition and its published peak (0.618 sigma at 1.89 Tc) and allantools.
"""

from __future__ import annotations

import csv
import math

import numpy as np
import pytest

from conftest import stationary_truth
from navsense.cli import main
from navsense.truth.io import write_truth

allantools = pytest.importorskip("allantools")

G = 9.80665
# KVH 1750 IMU technical specification sheet (the figures imu_presets.py quotes), in the units
# navsense allan prints
KVH_ARW_DEG_RTH = 0.012  # angle random walk, deg/sqrt(h)
KVH_GYRO_BI_DEG_H = 0.05  # gyro bias instability, deg/h
KVH_VRW_M_S_RTH = 0.12e-3 * G * 60.0  # 0.12 mg/sqrt(Hz) as m/s/sqrt(h)
KVH_ACCEL_BI_UG = 50.0  # 0.05 mg


def _still(tmp_path, seconds: float):
    path = tmp_path / f"still{seconds:g}.parquet"
    write_truth(stationary_truth(int(round(seconds * 120))), path)
    return path


def _run(tmp_path, truth, name: str, *extra: str):
    out = tmp_path / name
    args = ["simulate", "--truth", str(truth), "--no-gnss", "--no-ins", "--quiet"]
    assert main([*args, "--format", "parquet", "--out", str(out), *extra]) == 0
    return out


def _table(path) -> dict[tuple[str, str], dict]:
    with open(path, newline="") as f:
        return {(r["axis"], r["term"]): r for r in csv.DictReader(f)}


@pytest.fixture(scope="module")
def kvh_table(tmp_path_factory):
    """Two hours standing still, the kvh1750 preset at 20 Hz (the Allan deviation needs the
    length, not the rate: 144 000 rows); its table."""
    tmp = tmp_path_factory.mktemp("allan")
    run = _run(
        tmp,
        _still(tmp, 7200.0),
        "kvh",
        "--set",
        "imu.model=configurable",
        "--set",
        "imu.preset=kvh1750",
        "--imu-hz",
        "20",
        "--seed",
        "7",
    )
    assert main(["allan", str(run), "--out", str(tmp / "allan.csv")]) == 0
    return _table(tmp / "allan.csv")


def test_kvh1750_random_walks_are_the_datasheets(kvh_table):
    for axis, term, datasheet in [
        *((f"gyro {a}", "ARW", KVH_ARW_DEG_RTH) for a in "xyz"),
        *((f"accel {a}", "VRW", KVH_VRW_M_S_RTH) for a in "xyz"),
    ]:
        row = kvh_table[(axis, term)]
        assert float(row["configured"]) == pytest.approx(datasheet, rel=1e-5)
        sigma = float(row["rel_uncertainty"])
        assert sigma == pytest.approx(1 / math.sqrt(2 * (7200 - 1)), rel=1e-3)  # tau = 1 s
        assert abs(float(row["fitted"]) / datasheet - 1) < 3 * sigma, (axis, row)


def test_kvh1750_bias_instability_is_read_as_configured(kvh_table):
    """The accelerometer's floor (tau ~ 50 .. 150 s) is within the run: its reading (minimum /
    0.664) matches the reading of the configured process within 3 sigma at the tau of the
    run's minimum (a noisy curve's minimum may lie further out, where sigma is larger);
    the configured value is the datasheet's. The configurable IMU's bias instability is a
    Gauss-Markov process (tau 300 s), whose curve has no flat floor: its reading is 0.69 B with
    this random walk (the ``expected`` column), not B."""
    for a in "xyz":
        row = kvh_table[(f"accel {a}", "bias instability")]
        assert float(row["configured"]) == pytest.approx(KVH_ACCEL_BI_UG, rel=1e-5)
        expected, fitted = float(row["expected"]), float(row["fitted"])
        assert 0.6 < expected / KVH_ACCEL_BI_UG < 0.8
        assert abs(fitted / expected - 1) < 3 * float(row["rel_uncertainty"]), row
    for a in "xyz":  # the gyro's minimum lies near 570 s: at most an upper bound in 2 h
        row = kvh_table[(f"gyro {a}", "bias instability")]
        assert float(row["configured"]) == pytest.approx(KVH_GYRO_BI_DEG_H, rel=1e-5)
        expected, fitted = float(row["expected"]), float(row["fitted"])
        assert abs(fitted / expected - 1) < 3 * float(row["rel_uncertainty"]), row


def test_gauss_markov_allan_variance_is_its_definition():
    """h(x) against the Allan variance computed from its definition, var(mean of a block of
    tau) - cov(adjacent blocks), for the autocorrelation exp(-|u| / Tc) (numerical integration);
    its peak is the published 0.618 sigma at tau = 1.89 Tc (e.g. El-Sheimy, Hou and Niu, IEEE
    Trans. Instrum. Meas. 57(1), 2008)."""
    from navsense.allan.terms import FLICKER_FLOOR, gauss_markov_avar

    for x in (0.05, 0.3, 1.0, 1.89, 5.0, 40.0):
        u = np.linspace(0.0, x, 20001)
        var = 2.0 / x**2 * np.trapezoid((x - u) * np.exp(-u), u)
        u2 = np.linspace(0.0, 2.0 * x, 40001)
        cov = np.trapezoid(np.where(u2 < x, u2, 2.0 * x - u2) * np.exp(-u2), u2) / x**2
        assert gauss_markov_avar(x) == pytest.approx(var - cov, rel=1e-6), x  # trapezoid rule
    x = np.logspace(-2, 2, 40001)
    adev = np.sqrt(gauss_markov_avar(x))
    k = int(np.argmax(adev))
    assert adev[k] == pytest.approx(0.618, abs=1e-3)
    assert x[k] == pytest.approx(1.89, abs=0.01)
    assert abs(FLICKER_FLOOR - 0.664) < 5e-4  # IEEE Std 952: 0.664


def test_acres_imu_white_noise_reads_as_its_sigma(tmp_path):
    """The ACRES IMU: white noise sigma per sample, N = sigma / sqrt(hz); a 60 s run; every
    curve is the -1/2 line (its bias is a constant), and allantools' own numbers are the ones
    shown."""
    from navsense.allan.analysis import allan_of_run

    run = _run(tmp_path, _still(tmp_path, 60.0), "acres")
    result = allan_of_run(run)
    sigma = 1 / math.sqrt(2 * (60 - 1))
    for r in result.readings:
        if r.term in ("ARW", "VRW"):
            want = (0.002 if r.axis.startswith("gyro") else 0.03) / math.sqrt(120.0)
            assert r.configured == pytest.approx(want)
            assert abs(r.fitted / want - 1) < 3 * sigma, r
    t, dev, _, _ = allantools.oadev(
        np.asarray(_imu_x(run)), rate=result.rate_hz, data_type="freq", taus=result.tau_s
    )
    np.testing.assert_allclose(dev, result.adev[:, 0], rtol=1e-12)


def _imu_x(run):
    from navsense.runs.reader import RunReader, vector

    cols = RunReader(run).columns("imu", {"angular_velocity_flu_radps": vector(3)})
    return cols["angular_velocity_flu_radps"][:, 0]


# ------------------------------------------------------------------------------ bad input
@pytest.fixture(scope="module")
def short_runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("allan_bad")
    truth = _still(tmp, 30.0)
    return {
        "ok": _run(tmp, truth, "ok"),
        "no_imu": _run(tmp, truth, "no_imu", "--no-imu", "--mag"),
        "short": _run(tmp, truth, "short", "--duration", "10"),
        "tmp": tmp,
    }


def _fails(capsys, args, *words):
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("navsense: error: "), err
    for w in words:
        assert w in err, err
    return err


def test_bad_runs_are_one_line(short_runs, capsys, tmp_path):
    _fails(capsys, ["allan", str(short_runs["no_imu"])], "no IMU rows")
    _fails(capsys, ["allan", str(short_runs["short"])], "imu.parquet", "at least 20 s")
    _fails(capsys, ["allan", str(tmp_path)], "not a run directory")
    damaged = tmp_path / "damaged"
    import shutil

    shutil.copytree(short_runs["ok"], damaged)
    data = (damaged / "imu.parquet").read_bytes()
    (damaged / "imu.parquet").write_bytes(data[: len(data) // 2])
    _fails(capsys, ["allan", str(damaged)], "imu.parquet")


def test_rows_missing_from_the_middle_are_one_line(short_runs, capsys, tmp_path):
    """A run whose IMU rows lost 300 rows (2.5 s) in the middle ran to exit 0 with a table read
    at the rows' mean rate (every tau off by the gap); now one line naming the file, the two
    rows, their spacing and what is allowed. The whole run, one at 100 Hz on the 120 Hz clock
    (spacings of one and two physics steps) and one over a truth log with resets (each drops
    the samples of two physics steps) still pass."""
    import shutil

    import pyarrow.parquet as pq

    damaged = tmp_path / "gap"
    shutil.copytree(short_runs["ok"], damaged)
    table = pq.read_table(damaged / "imu.parquet")
    kept = table.slice(0, 100).to_batches() + table.slice(400).to_batches()
    import pyarrow as pa

    pq.write_table(pa.Table.from_batches(kept, table.schema), damaged / "imu.parquet")
    _fails(
        capsys,
        ["allan", str(damaged)],
        "imu.parquet: 3298 rows over 29.975 s are 109.992 Hz, not imu.hz = 120 within 1%",
        "rows 100 and 101 are 2.50833333 s apart",
    )
    from navsense.allan import figure
    from navsense.allan.analysis import read_imu_rates

    # the report leaves the figure out (its other figures do not need evenly spaced rows)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(figure, "REPORT_MIN_DURATION_S", 10.0)
        assert figure.run_report_figures(damaged) == []
        assert [f.title for f in figure.run_report_figures(short_runs["ok"])] == [
            "IMU Allan deviation"
        ]
    assert read_imu_rates(short_runs["ok"])[0].size > 3590
    truth = short_runs["tmp"] / "still30.parquet"
    run = _run(tmp_path, truth, "imu100", "--imu-hz", "100")
    assert read_imu_rates(run)[0].size > 2990
    from navsense.truth.io import read_truth

    still = read_truth(truth)
    reset = still.reset.copy()
    reset[[1500, 2000, 2001, 2002]] = True
    resets = tmp_path / "resets.parquet"
    write_truth(type(still)(**{**still.__dict__, "reset": reset}), resets)
    t = read_imu_rates(_run(tmp_path, resets, "resets"))[0]
    assert np.diff(t).max() == pytest.approx(5 / 120)  # three resets in a row: 4 rows missing


@pytest.mark.parametrize("option", ["--out", "--plot"])
@pytest.mark.parametrize("name", ["imu.parquet", "episode.json"])
def test_out_or_plot_is_never_a_file_the_run_reads(short_runs, capsys, tmp_path, option, name):
    """--plot RUN/imu.jsonl --force replaced the run's IMU rows with the PNG (exit 0; the run
    unreadable after; found by the fuzz helper), as --out RUN/episode.json did its episode: the
    files allan reads are refused as check_out_file refuses a command's own input (truth, geo,
    site), one line naming the option; a new file in the run directory is fine."""
    import shutil

    run = tmp_path / "run"
    shutil.copytree(short_runs["ok"], run)
    before = (run / name).read_bytes()
    _fails(
        capsys,
        ["allan", str(run), option, str(run / ".." / "run" / name), "--force"],
        f"{option} ",
        "is the RUN_DIR file that it is made from",
    )
    assert (run / name).read_bytes() == before
    new = run / ("allan.png" if option == "--plot" else "allan.out")
    assert main(["allan", str(run), option, str(new)]) == 0


def test_out_is_checked_before_reading_and_written_whole(short_runs, capsys, tmp_path):
    out = tmp_path / "t.csv"
    out.write_text("keep")
    _fails(capsys, ["allan", str(short_runs["ok"]), "--out", str(out)], "--out", "exists")
    assert out.read_text() == "keep"
    _fails(capsys, ["allan", str(short_runs["no_imu"]), "--out", str(tmp_path / "n.csv")])
    assert not (tmp_path / "n.csv").exists() and not list(tmp_path.glob(".n.csv*"))
    assert main(["allan", str(short_runs["ok"]), "--out", str(out), "--force"]) == 0
    printed = capsys.readouterr().out
    rows = list(csv.DictReader(out.open()))
    assert len(rows) == 18 and "gyro x" in printed and "bias instability" in printed


def test_missing_allantools_says_what_to_install(short_runs, capsys, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda n, *a: None if n == "allantools" else real(n, *a)
    )
    _fails(capsys, ["allan", str(short_runs["ok"])], "pip install 'navsense[allan]'")


def test_noise_off_reads_zero_and_draws(tmp_path, capsys):
    """--no-noise: every Allan deviation is 0 (a still IMU reads constants); the table says ~0
    and the figure is drawn (no log scale of nothing)."""
    pytest.importorskip("matplotlib")
    run = _run(tmp_path, _still(tmp_path, 30.0), "quiet", "--no-noise")
    plot = tmp_path / "a.png"
    assert main(["allan", str(run), "--plot", str(plot), "--out", str(tmp_path / "a.csv")]) == 0
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    rows = _table(tmp_path / "a.csv")
    assert float(rows[("gyro x", "ARW")]["fitted"]) == 0.0
    # accel z reads g, a constant: 0 but for allantools' rounding of its sums
    assert float(rows[("accel z", "bias instability")]["fitted"]) < 1e-12


@pytest.mark.parametrize("name", ["figure.csv", "figure", "figure.png.txt"])
def test_plot_is_a_png_file(short_runs, capsys, tmp_path, name):
    """--plot x.csv wrote PNG bytes into a file named .csv (the fuzz helper's note): the figure
    is a PNG, so its file's name ends in .png; one line, nothing written."""
    out = tmp_path / name
    _fails(capsys, ["allan", str(short_runs["ok"]), "--plot", str(out)], "--plot", "FILE.png")
    assert not out.exists()
