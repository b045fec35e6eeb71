"""The fuzz suite's settings and valid inputs (the seeds that the tests damage).

A normal run tries a small, fixed set of examples per test (derandomized: the same inputs every
run, so CI is stable); ``pytest tests/fuzz --fuzz`` tries many more, new ones each run
(``--fuzz-examples N`` or the environment variable ``NAVSENSE_FUZZ_EXAMPLES=N`` sets the count).
Hypothesis keeps failing examples in .hypothesis/ and tries them first next time.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, settings

from conftest import open_sky_circle

_COMMON = {
    "deadline": None,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
    "report_multiple_bugs": True,
}
settings.register_profile("navsense-fuzz-ci", max_examples=12, derandomize=True, **_COMMON)
settings.register_profile("navsense-fuzz-long", max_examples=500, **_COMMON)


def pytest_configure(config):
    """Choose the profile of the fuzz tests (fuzz_helpers.fuzz_settings; other tests keep
    hypothesis's defaults)."""
    from fuzz import fuzz_helpers

    fuzz = config.getoption("--fuzz", default=False)
    n = config.getoption("--fuzz-examples", default=None)
    if n is None and os.environ.get("NAVSENSE_FUZZ_EXAMPLES"):
        n = int(os.environ["NAVSENSE_FUZZ_EXAMPLES"])
    profile = settings.get_profile("navsense-fuzz-long" if fuzz else "navsense-fuzz-ci")
    if n is not None:
        profile = settings(profile, max_examples=int(n))
    fuzz_helpers.PROFILE = profile


ROUTE_POINTS = [
    {"enu_m": [400.0, 300.0, 0.0]},
    {"enu_m": [430.0, 300.0, 0.0], "speed_mps": 5.0},
    {"enu_m": [430.0, 330.0, 0.0], "speed_mps": 5.0},
]


@pytest.fixture(scope="session")
def bases(tmp_path_factory) -> dict[str, Path]:
    """Valid inputs of every format, small enough for a run in tens of milliseconds."""
    import navsense.scenarios
    from navsense.cli import main
    from navsense.truth.io import write_truth

    base = tmp_path_factory.mktemp("fuzz-bases")
    truth = open_sky_circle(240)
    write_truth(truth, base / "truth.csv")
    write_truth(truth, base / "truth.parquet")
    # a GPS track: 20 points 1 s apart near the ACRE tile (lat 40.4716, lon -86.9944)
    lines = []
    for i in range(20):
        lat = 40.4740 + 2.0e-5 * i
        lon = -86.9900 + 1.5e-5 * i
        lines.append(
            f'<trkpt lat="{lat:.7f}" lon="{lon:.7f}"><ele>{180.0 + 0.1 * i:.2f}</ele>'
            f"<time>2026-05-01T12:00:{i:02d}Z</time></trkpt>"
        )
    (base / "track.gpx").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="fuzz" '
        'xmlns="http://www.topografix.com/GPX/1/1"><trk><name>t</name><trkseg>\n'
        + "\n".join(lines)
        + "\n</trkseg></trk></gpx>\n",
        encoding="utf-8",
    )
    rows = ["lat_deg,lon_deg,alt_m,time"]
    for i in range(20):
        rows.append(
            f"{40.4740 + 2.0e-5 * i:.7f},{-86.9900 + 1.5e-5 * i:.7f},{180.0:.2f},"
            f"2026-05-01T12:00:{i:02d}Z"
        )
    (base / "track.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    rows = ["x_m,y_m,z_m,t_s"] + [f"{400 + 2.0 * i},{300 + 1.0 * i},0,{i}" for i in range(20)]
    (base / "track-enu.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    route = {"name": "fuzz", "vehicle": "polaris", "rate_hz": 120, "points": ROUTE_POINTS}
    (base / "route.json").write_text(json.dumps(route, indent=1), encoding="utf-8")
    sites = Path(navsense.scenarios.__file__).parent / "sites"
    shutil.copy(sites / "acre.json", base / "site.json")
    local = {
        "name": "local",
        "georeference": {"kind": "local", "lat_deg": 48.1, "lon_deg": 11.6, "height_m": 520.0},
        "buildings": [{"name": "b", "min_enu_m": [-5, -5, 0], "max_enu_m": [5, 5, 6]}],
        "grain_bins": [],
        "tree_crowns": [],
    }
    (base / "site-local.json").write_text(json.dumps(local, indent=1), encoding="utf-8")
    config = {
        "seed": 7,
        "delay_s": 0.05,
        "gnss": {"hz": 5, "std_m": 0.02, "antenna_flu_m": [1.1, 0, 2.15]},
        "imu": {"hz": 100},
        "ins": {"hz": 50},
    }
    (base / "config.json").write_text(json.dumps(config, indent=1), encoding="utf-8")
    campaign = {
        "name": "fuzz",
        "seeds": [1, 2],
        "sources": [{"truth": "truth.csv"}],
        "sweep": {"grid": {"gnss.corrections.baseline_km": [1, 30]}},
    }
    (base / "campaign.json").write_text(json.dumps(campaign, indent=1), encoding="utf-8")
    (base / "campaign.toml").write_text(
        'name = "fuzz"\nseeds = [1, 2]\n\n[[sources]]\ntruth = "truth.csv"\n\n'
        '[sweep.grid]\n"gnss.corrections.baseline_km" = [1, 30]\n',
        encoding="utf-8",
    )
    (base / "points.csv").write_text("e_m,n_m,u_m\n1.5,2.5,3.5\n-100,200,5\n", encoding="utf-8")
    # The bases' bytes are the same on every machine and in every session (the examples are
    # drawn from them: CI's derandomized examples are then the same too), so no file may record
    # the temporary folder. The runs are made from it with relative paths: episode.json's source
    # is "truth.csv", which find_truth takes relative to the run directory (the log is copied
    # there) when the working directory has none.
    with contextlib.chdir(base):
        for args in (
            ["--out", "run", "--mag", "--baro", "--odom", "--save-truth"],
            ["--out", "run-parquet", "--format", "parquet"],
        ):
            argv = ["simulate", "--truth", "truth.csv", "--quiet", "--workers", "threads"]
            assert main(argv + args) == 0
            shutil.copy("truth.csv", Path(args[1]) / "truth.csv")
    _campaign_dir(base, base / "campaign-dir")
    return {p.name: p for p in base.iterdir()}


#: Where the base campaign is run: a campaign records the absolute paths of its file and of its
#: truth logs (campaign.json), and its run ids (the results' file names) hash them.
FIXED_CAMPAIGN_FOLDER = Path("/tmp/navsense-fuzz-campaign")


def _campaign_dir(base: Path, out: Path) -> None:
    """``campaign run base/campaign.json`` into ``out``, run from :data:`FIXED_CAMPAIGN_FOLDER`
    (one session at a time: a lock file beside it), so that its files are the same bytes in
    every session (from a folder of this session where the fixed one cannot be made: another
    user's; then with this session's paths)."""
    from navsense.campaign.runner import RESULTS_DIR, write_json_atomic
    from navsense.cli import main

    try:
        lock = open(f"{FIXED_CAMPAIGN_FOLDER}.lock", "a")  # noqa: SIM115 (held until closed)
    except OSError:
        lock, folder = None, base / "campaign-build"
    else:
        fcntl.flock(lock, fcntl.LOCK_EX)
        folder = FIXED_CAMPAIGN_FOLDER
    try:
        shutil.rmtree(folder, ignore_errors=True)
        try:
            folder.mkdir()
        except OSError:
            folder = base / "campaign-build"
            folder.mkdir()
        for name in ("campaign.json", "truth.csv"):
            shutil.copy(base / name, folder / name)
        argv = ["campaign", "run", folder / "campaign.json", "--out", folder / "campaign-dir"]
        assert main([str(a) for a in argv + ["--workers", "0", "--quiet"]]) == 0
        shutil.copytree(folder / "campaign-dir", out)
        shutil.rmtree(folder)
    finally:
        if lock is not None:
            lock.close()
    # and each result's wall time and worker (host:pid) are of this session: fixed ones instead
    for path in sorted((out / RESULTS_DIR).glob("*.json")):
        result = orjson.loads(path.read_bytes())
        result.update(wall_s=0.05, worker="fuzz:1")
        write_json_atomic(path, result)


@pytest.fixture(scope="session")
def score_bases(bases) -> dict[str, Path]:
    """Valid estimates of the base run ``run`` for ``navsense score`` (from its INS rows, every
    4th: 50 epochs over 2 s): ``est.tum`` (site ENU), ``est-utm.tum`` (UTM easting, northing,
    height with --frame utm), ``est.csv`` (ENU with attitude and sigmas), ``est-geo.csv``
    (latitude, longitude, height with a full covariance) and ``est.mcap`` (``navsense export
    mcap`` of the run: /vehicle/odom, /oxts/fix, /sim/ground_truth/odom ...). Their bytes follow
    from the base run's, the same in every session."""
    from navsense.cli import main

    folder = bases["run"].parent / "score-bases"
    folder.mkdir(exist_ok=True)
    rows = [orjson.loads(line) for line in (bases["run"] / "ins.jsonl").read_bytes().splitlines()]
    rows = rows[::4]

    def text(header: str | None, sep: str, values) -> str:
        lines = [] if header is None else [header]
        lines += [sep.join(repr(float(v)) for v in row) for row in values]
        return "\n".join(lines) + "\n"

    enu = [
        (r["sample_time_s"], *r["position_enu_m"], *r["imu"]["orientation_enu_xyzw"]) for r in rows
    ]
    (folder / "est.tum").write_text(text("# t x y z qx qy qz qw", " ", enu), encoding="utf-8")
    utm = [
        (r["sample_time_s"], *r["odom"]["position_m"], *r["odom"]["orientation_xyzw"]) for r in rows
    ]
    (folder / "est-utm.tum").write_text(text(None, " ", utm), encoding="utf-8")
    sig = [
        (*e, *(c**0.5 for c in r["fix"]["position_covariance"]))
        for e, r in zip(enu, rows, strict=True)
    ]
    header = "t_s,e_m,n_m,u_m,qx,qy,qz,qw,sigma_e_m,sigma_n_m,sigma_u_m"
    (folder / "est.csv").write_text(text(header, ",", sig), encoding="utf-8")
    geo = []
    for r in rows:
        f, (ce, cn, cu) = r["fix"], r["fix"]["position_covariance"]
        geo.append(
            (r["sample_time_s"], f["latitude"], f["longitude"], f["altitude"], ce, 0, 0, cn, 0, cu)
        )
    header = (
        "t_s,lat_deg,lon_deg,height_m,cov_ee_m2,cov_en_m2,cov_eu_m2,cov_nn_m2,cov_nu_m2,cov_uu_m2"
    )
    (folder / "est-geo.csv").write_text(text(header, ",", geo), encoding="utf-8")
    if not (folder / "est.mcap").exists():
        with contextlib.chdir(folder.parent):  # relative paths: the bag names no temporary folder
            assert main(["export", "mcap", "run", "--out", "score-bases/est.mcap"]) == 0
    return {p.name: p for p in folder.iterdir()}
