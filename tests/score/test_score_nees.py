"""NEES and sigma fractions: estimates whose error is drawn from their own covariance score near
the chi-square values; over- and under-confident ones as their scale says.

Expected values from scipy.stats.chi2 (not from navsense): a covariance reported as c times the
true one gives mean NEES k / c (k degrees of freedom), and P(NEES_h <= j^2) = chi2(2).cdf(j^2 c),
P(|e_U| <= j sigma_U) = chi2(1).cdf(j^2 c).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import chi2

from navsense.score.api import ScoreOptions, score_estimate
from navsense.score.metrics import nees
from navsense.score.runinfo import read_run_info
from navsense.score.scores import group_figures
from score.score_helpers import PHYSICS_HZ, truth_point, write_csv

N = 40_000


def _random_covariances(rng, n: int) -> np.ndarray:
    """Correlated, anisotropic covariances: R diag(s^2) R^T, sigmas 1 cm .. 1 m."""
    from scipy.spatial.transform import Rotation

    r = Rotation.random(n, random_state=rng).as_matrix()
    s = 10.0 ** rng.uniform(-2, 0, (n, 3))
    return r @ (s[:, :, None] ** 2 * np.eye(3)) @ np.swapaxes(r, 1, 2)


def _figures(e: np.ndarray, cov: np.ndarray) -> dict:
    n = e.shape[0]
    return group_figures(
        np.ones(n, bool), e, np.zeros(0, np.int64), np.zeros(0), None, None, nees(e, cov)
    )


@pytest.mark.parametrize("c", [1.0, 0.25, 4.0], ids=["consistent", "over", "under"])
def test_nees_and_sigma_fractions(c):
    rng = np.random.default_rng(7)
    cov = _random_covariances(rng, N)
    e = (np.linalg.cholesky(cov) @ rng.standard_normal((N, 3, 1)))[:, :, 0]
    f = _figures(e, c * cov)
    # 4-sigma tolerances of the sample means and shares
    assert f["nees_epochs"] == N
    assert f["nees_3d_mean"] == pytest.approx(3.0 / c, abs=4 * np.sqrt(6 / N) / c)
    assert f["nees_h_mean"] == pytest.approx(2.0 / c, abs=4 * np.sqrt(4 / N) / c)
    assert f["nees_v_mean"] == pytest.approx(1.0 / c, abs=4 * np.sqrt(2 / N) / c)
    for key, dof, k in (
        ("h_in_1sigma", 2, 1),
        ("h_in_2sigma", 2, 2),
        ("v_in_1sigma", 1, 1),
        ("v_in_2sigma", 1, 2),
    ):
        p = chi2(dof).cdf(k * k * c)
        assert f[key] == pytest.approx(p, abs=4 * np.sqrt(p * (1 - p) / N)), key
    if c == 1.0:  # the figures
        assert f["nees_3d_mean"] == pytest.approx(3.0, abs=0.05)
        assert (f["h_in_1sigma"], f["h_in_2sigma"]) == pytest.approx((0.39, 0.86), abs=0.015)
        assert (f["v_in_1sigma"], f["v_in_2sigma"]) == pytest.approx((0.68, 0.95), abs=0.015)


def test_a_covariance_that_is_not_positive_definite_is_left_out():
    e = np.array([[0.1, 0.0, 0.0], [0.1, 0.0, 0.0], [0.0, 0.0, 0.0]])
    cov = np.array([np.eye(3) * 0.01, np.diag([0.01, 0.0, 0.01]), np.full((3, 3), np.nan)])
    f = _figures(e, cov)
    assert f["nees_epochs"] == 1
    assert f["nees_3d_mean"] == pytest.approx(1.0)


@pytest.mark.parametrize("columns", ["full", "sigma"])
def test_covariance_columns_through_the_run(run_dir, tmp_path, columns):
    """A CSV whose errors are drawn from its own (correlated) covariance columns."""
    rng = np.random.default_rng(11)
    steps = np.arange(0, 60 * 120 + 1, 3)  # 40 Hz: 2401 epochs
    p_true, _ = truth_point(run_dir, read_run_info(run_dir).lever_arm_m("ins"), steps)
    n = len(steps)
    cov = _random_covariances(rng, n)
    if columns == "sigma":
        cov = cov * np.eye(3)
    e = (np.linalg.cholesky(cov) @ rng.standard_normal((n, 3, 1)))[:, :, 0]
    p = p_true + e
    cols = {"t_s": steps / PHYSICS_HZ, "e_m": p[:, 0], "n_m": p[:, 1], "u_m": p[:, 2]}
    if columns == "full":
        for name, (a, b) in zip(
            ("ee", "en", "eu", "nn", "nu", "uu"),
            ((0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2)),
        ):
            cols[f"cov_{name}_m2"] = cov[:, a, b]
    else:
        for k, axis in enumerate("enu"):
            cols[f"sigma_{axis}_m"] = np.sqrt(cov[:, k, k])
    path = write_csv(tmp_path / "est.csv", cols)
    s = score_estimate(run_dir, path, ScoreOptions()).scores
    assert s["has_covariance"] and s["nees_epochs"] == n
    assert s["nees_3d_mean"] == pytest.approx(3.0, abs=4 * np.sqrt(6 / n))
    p1 = chi2(2).cdf(1.0)
    assert s["h_in_1sigma"] == pytest.approx(p1, abs=4 * np.sqrt(p1 * (1 - p1) / n))
    # the same estimate claiming a 10 times smaller sigma is over-confident
    for name in list(cols)[4:]:
        cols[name] = cols[name] / (100.0 if name.startswith("cov") else 10.0)
    s = score_estimate(run_dir, write_csv(tmp_path / "over.csv", cols), ScoreOptions()).scores
    assert s["nees_3d_mean"] == pytest.approx(300.0, rel=0.15)
    assert s["h_in_2sigma"] < 0.1
