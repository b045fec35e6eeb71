"""ATE and RPE against evo (github.com/MichaelGrupp/evo, its Python API): equal to 1e-9 relative.

The same trajectories go to both: the estimate as a TUM file to ``navsense score``, as arrays to
evo; the reference for evo is the truth's INS point p + R r at the estimate's stamps, computed
here from truth.parquet with scipy (the stamps are on physics steps, so no interpolation).
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

from navsense.score.api import ScoreOptions, score_estimate
from navsense.score.runinfo import read_run_info
from score.score_helpers import PHYSICS_HZ, truth_point, write_tum

evo_metrics = pytest.importorskip("evo.core.metrics")
evo_trajectory = pytest.importorskip("evo.core.trajectory")

REL = 1e-9


def _estimate(run_dir, tmp_path, seed: int, scale: float = 1.0):
    """A noisy, biased, rotated (and for Sim(3) scaled) estimate at 10 Hz on physics steps."""
    from scipy.spatial.transform import Rotation

    rng = np.random.default_rng(seed)
    steps = np.arange(0, 60 * 120 + 1, 12)
    t = steps / PHYSICS_HZ
    arm = read_run_info(run_dir).lever_arm_m("ins")
    p_true, q_true = truth_point(run_dir, arm, steps)
    rot = Rotation.from_euler("zyx", [0.02, 0.003, -0.002])
    p = scale * rot.apply(p_true - p_true.mean(0)) + p_true.mean(0) + [0.3, -0.2, 0.1]
    p = p + np.cumsum(rng.normal(0, 0.01, p.shape), axis=0) + rng.normal(0, 0.05, p.shape)
    noise = Rotation.from_rotvec(rng.normal(0, 0.01, (len(t), 3)))
    q = (rot * Rotation.from_quat(q_true) * noise).as_quat()
    return t, p, q, p_true, q_true, write_tum(tmp_path / f"est{seed}.tum", t, p, q)


def _evo(t, p, q, p_true, q_true, align: str):
    wxyz = lambda x: np.roll(x, 1, axis=1)
    ref = evo_trajectory.PoseTrajectory3D(p_true, wxyz(q_true), t)
    est = evo_trajectory.PoseTrajectory3D(p, wxyz(q), t)
    if align != "none":
        est = copy.deepcopy(est)
        est.align(ref, correct_scale=align == "sim3")
    return ref, est


def _evo_stats(metric, data) -> dict:
    metric.process_data(data)
    return metric.get_all_statistics()


@pytest.mark.parametrize("align", ["none", "se3", "sim3"])
def test_ate_equals_evo_ape(run_dir, tmp_path, align):
    t, p, q, p_true, q_true, path = _estimate(run_dir, tmp_path, 1, 1.002)
    score = score_estimate(run_dir, path, ScoreOptions(align=align)).scores
    ref, est = _evo(t, p, q, p_true, q_true, align)
    ape = _evo_stats(evo_metrics.APE(evo_metrics.PoseRelation.translation_part), (ref, est))
    for ours, theirs in (("rms", "rmse"), ("mean", "mean"), ("median", "median"), ("max", "max")):
        assert score[f"ate_3d_{ours}_m"] == pytest.approx(ape[theirs], rel=REL, abs=0)
    assert score["epochs"] == len(t)
    if align == "sim3":
        assert score["align_scale"] == pytest.approx(1 / 1.002, rel=1e-3)
    # the estimate's attitude against the truth's, as evo's APE rotation angle
    ape_rot = _evo_stats(evo_metrics.APE(evo_metrics.PoseRelation.rotation_angle_deg), (ref, est))
    assert score["att_rms_deg"] == pytest.approx(ape_rot["rmse"], rel=1e-7)
    assert score["att_max_deg"] == pytest.approx(ape_rot["max"], rel=1e-7)


@pytest.mark.parametrize("align", ["none", "se3", "sim3"])
@pytest.mark.parametrize(("delta", "unit"), [(1.0, "s"), (2.5, "s"), (5.0, "m"), (12.0, "m")])
def test_rpe_equals_evo(run_dir, tmp_path, align, delta, unit):
    t, p, q, p_true, q_true, path = _estimate(run_dir, tmp_path, 2, 0.998)
    options = ScoreOptions(align=align, rpe_delta=delta, rpe_unit=unit)
    score = score_estimate(run_dir, path, options).scores
    ref, est = _evo(t, p, q, p_true, q_true, align)
    if unit == "s":  # 10 Hz stamps: D seconds are 10 D frames
        kw = dict(delta=int(round(delta * 10)), delta_unit=evo_metrics.Unit.frames)
    else:
        kw = dict(delta=delta, delta_unit=evo_metrics.Unit.meters, pairs_from_reference=True)
    rel = evo_metrics.PoseRelation
    trans = _evo_stats(evo_metrics.RPE(rel.translation_part, **kw), (ref, est))
    rot = _evo_stats(evo_metrics.RPE(rel.rotation_angle_deg, **kw), (ref, est))
    for ours, theirs in (("rms", "rmse"), ("mean", "mean"), ("median", "median"), ("max", "max")):
        assert score[f"rpe_trans_{ours}_m"] == pytest.approx(trans[theirs], rel=REL, abs=0)
        assert score[f"rpe_rot_{ours}_deg"] == pytest.approx(rot[theirs], rel=1e-7, abs=0)
    metric = evo_metrics.RPE(rel.translation_part, **kw)
    metric.process_data((ref, est))
    assert score["rpe_pairs"] == len(metric.error)
