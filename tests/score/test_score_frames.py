"""Frames: one estimate given in site ENU, in UTM and in latitude-longitude scores the same.

The UTM and geodetic versions are made here with the run's datum chain forwards
(Georeference.enu_to_fix_utm, enu_to_geodetic; PROJ-checked in tests/geo); the score takes them
back through it. Attitude and covariance turn with the frame's axes: for UTM by the INS's grid
rotation alpha (q_utm = q_z(-alpha) q_enu, spec "Fix and UTM Odometry"), for the geodetic frame by
the azimuth beta of grid north on the ellipsoid (pyproj's Geod, independent of navsense).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from navsense.rotation import quat_about_z, quat_multiply
from navsense.score.api import ScoreOptions, score_estimate
from navsense.score.runinfo import read_run_info
from score.score_helpers import PHYSICS_HZ, truth_point, write_csv

mm = 1e-3
pyproj = pytest.importorskip("pyproj")


def _rz(angle: np.ndarray) -> np.ndarray:
    c, s = np.cos(angle), np.sin(angle)
    r = np.zeros(angle.shape + (3, 3))
    r[:, 0, 0], r[:, 0, 1], r[:, 1, 0], r[:, 1, 1], r[:, 2, 2] = c, -s, s, c, 1.0
    return r


def _cov_columns(cov: np.ndarray) -> dict:
    pairs = (("ee", 0, 0), ("en", 0, 1), ("eu", 0, 2), ("nn", 1, 1), ("nu", 1, 2), ("uu", 2, 2))
    return {f"cov_{name}_m2": cov[:, a, b] for name, a, b in pairs}


@pytest.fixture(scope="module")
def estimates(run_dir, tmp_path_factory):
    """The same estimate as ENU, UTM (NAD83(2011), zone 16), geodetic NAD83(2011) and WGS84."""
    tmp = tmp_path_factory.mktemp("frames")
    rng = np.random.default_rng(3)
    run = read_run_info(run_dir)
    steps = np.arange(0, 60 * 120 + 1, 12)
    t = steps / PHYSICS_HZ
    n = len(t)
    p_true, q_true = truth_point(run_dir, run.lever_arm_m("ins"), steps)
    p = p_true + rng.normal(0, 0.2, (n, 3))
    q = quat_multiply(q_true, quat_about_z(rng.normal(0, 0.01, n)))
    sig = np.array([0.3, 0.1, 0.2])
    cov = _rz(rng.uniform(0, np.pi, n)) @ np.diag(sig**2) @ _rz(np.zeros(n)).transpose(0, 2, 1)
    cov = np.array([r @ np.diag(sig**2) @ r.T for r in _rz(rng.uniform(0, np.pi, n))])

    geo = run.georeference()
    fix = geo.enu_to_fix_utm(p, t, 16, frame="nad83_2011", grid_rotation=True)
    alpha = np.radians(fix["grid_rotation_deg"])
    q_utm = quat_multiply(quat_about_z(-alpha), q)
    cov_utm = _rz(-alpha) @ cov @ _rz(-alpha).transpose(0, 2, 1)

    out = {}
    quat = lambda x: {"qx": x[:, 0], "qy": x[:, 1], "qz": x[:, 2], "qw": x[:, 3]}
    out["enu"] = write_csv(
        tmp / "enu.csv",
        {"t_s": t, "e_m": p[:, 0], "n_m": p[:, 1], "u_m": p[:, 2], **quat(q), **_cov_columns(cov)},
    )
    out["utm"] = write_csv(
        tmp / "utm.csv",
        {
            "t_s": t,
            "easting_m": fix["easting_m"],
            "northing_m": fix["northing_m"],
            "height_m": fix["height_m"],
            **quat(q_utm),
            **_cov_columns(cov_utm),
        },
    )
    g0 = geo.enu_to_geodetic(p, t)
    g1 = geo.enu_to_geodetic(p + [0.0, 10.0, 0.0], t)
    for datum, prefix, ellps in (
        ("nad83_2011", "nad83_2011", "GRS80"),
        ("wgs84", "wgs84", "WGS84"),
    ):
        height = g0[f"{prefix}_height_m"]
        lat, lon = g0[f"{prefix}_lat_deg"], g0[f"{prefix}_lon_deg"]
        az, _, _ = pyproj.Geod(ellps=ellps).inv(
            lon, lat, g1[f"{prefix}_lon_deg"], g1[f"{prefix}_lat_deg"]
        )
        beta = np.radians(az)  # azimuth of grid north, clockwise from true north
        q_geo = quat_multiply(quat_about_z(-beta), q)
        cov_geo = _rz(-beta) @ cov @ _rz(-beta).transpose(0, 2, 1)
        out[f"geodetic_{datum}"] = write_csv(
            tmp / f"geo_{datum}.csv",
            {
                "unix_time_s": t + run.start_ns * 1e-9,
                "lat_deg": lat,
                "lon_deg": lon,
                "height_m": height,
                **quat(q_geo),
                **_cov_columns(cov_geo),
            },
        )
    return out


def test_enu_utm_and_geodetic_score_the_same(run_dir, estimates):
    enu = score_estimate(run_dir, estimates["enu"], ScoreOptions()).scores
    utm = score_estimate(run_dir, estimates["utm"], ScoreOptions()).scores
    geo = score_estimate(run_dir, estimates["geodetic_nad83_2011"], ScoreOptions()).scores
    wgs = score_estimate(
        run_dir, estimates["geodetic_wgs84"], ScoreOptions(datum="wgs84_g2139")
    ).scores
    assert (enu["frame"], utm["frame"], geo["frame"]) == ("enu", "utm", "geodetic")
    assert (utm["datum"], utm["utm_zone"], wgs["datum"]) == ("nad83_2011", 16, "wgs84_g2139")
    assert wgs["time_base"] == "unix"
    assert enu["epochs"] == 601 and enu["ate_3d_rms_m"] > 0.2
    for other in (utm, geo, wgs):
        assert other["epochs"] == enu["epochs"]
        for key, value in enu.items():
            if not isinstance(value, float) or math.isnan(value):
                continue
            if key.endswith("_m"):
                assert other[key] == pytest.approx(value, abs=1 * mm), key
            elif key.endswith("_deg"):
                assert other[key] == pytest.approx(value, abs=1e-4), key
            elif "nees" in key:
                assert other[key] == pytest.approx(value, rel=1e-4), key
            elif "sigma" in key:
                assert other[key] == pytest.approx(value, abs=2 / enu["epochs"]), key


def test_a_wrong_datum_moves_the_estimate(run_dir, estimates):
    """WGS84 coordinates read as NAD83(2011): the ~1 m datum offset shows in the ATE."""
    right = score_estimate(run_dir, estimates["geodetic_wgs84"], ScoreOptions(datum="wgs84_g2139"))
    wrong = score_estimate(run_dir, estimates["geodetic_wgs84"], ScoreOptions(datum="nad83_2011"))
    shift = np.mean(wrong.error_enu_m - right.error_enu_m, axis=0)
    assert 0.5 < np.hypot(shift[0], shift[1]) < 2.0
