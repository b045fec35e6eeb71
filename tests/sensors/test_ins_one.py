"""navsense.sensors.ins_one: one epoch on a kept record gives, bit for bit, every value of
InsCore.run for that epoch (the kernels it replaces: gauss_markov's unit process, epoch_vectors,
attitude_and_body, utm_attitudes; the chain's rows kept from epoch to epoch), as numpy and
compiled, over segments of the Gauss-Markov states, gaps (a < A_MIN), resets, the first epoch
and epochs refused by the chain (the state after them); and the streaming INS equals the batch
model where InsOne does not apply (imu.earth wgs84, the frame wgs84_g2139)."""

import copy

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import navsense.kernels as kernels
from navsense.config import load_config
from navsense.config.typed.datum import datum_config
from navsense.errors import DatumError
from navsense.geo import Georeference
from navsense.ins_stream import Ins
from navsense.output.layouts.ins import InsLayout
from navsense.sensors.ins import InsConfig, InsCore, InsModel
from navsense.sensors.ins_one import SLOTS, InsOne
from navsense.truth import TruthStates
from navsense.vehicles import VEHICLES


@pytest.fixture(scope="module")
def georef() -> Georeference:
    datum = load_config()["gnss"]["datum"]
    return Georeference.acre(datum["start_utc"], datum_config(datum))


def _config(**ins) -> InsConfig:
    cfg = copy.deepcopy(load_config())
    cfg["ins"].update(ins)
    return InsConfig.from_validated(cfg)


def _epochs(n, seed):
    """n epochs: times with 1- and 2-step gaps of a 120 Hz clock, a few long gaps (a < A_MIN)
    and their values (p_n, q, p_c, v, w), resets, and points the chain refuses."""
    rng = np.random.default_rng(seed)
    steps = rng.choice([1, 2], n)
    steps[[5, 150]] = [900, 4000]  # 7.5 s and 33 s: a = exp(-dt / 30) < 0.95, anchors
    t = 3.0 + np.cumsum(steps) / 120.0
    q = Rotation.from_euler("ZYX", rng.normal(0.0, [1.0, 0.1, 0.1], (n, 3))).as_quat()
    p = rng.normal(0.0, 200.0, (n, 3))
    c = p + rng.normal(0.0, 0.5, (n, 3))
    v, w = rng.normal(0.0, 5.0, (n, 3)), rng.normal(0.0, 0.2, (n, 3))
    v[3], w[3] = [0.0, -0.0, 0.0], [-0.0, 0.0, -0.0]  # signed zeros, a truth at rest
    reset = np.zeros(n, dtype=bool)
    reset[[40, 41, 200]] = True
    bad = {60: [np.nan, 0.0, 0.0], 61: [4e6, 0.0, 0.0], 62: [0.0, 0.0, np.inf]}
    return t, p, q, c, v, w, reset, bad


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # the points refused (inf)
@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("zone, frame", [(16, "nad83"), (21, "nad83"), (16, "wgs84_g2139")])
def test_one_epoch_is_the_block_of_one_bit_for_bit(monkeypatch, georef, compiled, zone, frame):
    if compiled:
        pytest.importorskip("numba")
    cfg = _config(utm_zone=zone, frame=frame)
    t, p, q, c, v, w, reset, bad = _epochs(260, zone)
    ref, core = InsCore(cfg, georef, 2), InsCore(cfg, georef, 2)
    monkeypatch.setattr(kernels, "_on", compiled)  # InsOne keeps the kernels as they run now
    one = InsOne.of(core, {"fix_status": 2.0})
    assert one is not None and one.slots["fix_status"] == (len(one.record) - 1, 1)
    for k in range(len(t)):
        if reset[k]:
            ref.reset_pending = core.reset_pending = True
        p_k = np.array(bad.get(k, p[k]))
        monkeypatch.setattr(kernels, "_on", False)
        try:
            block = ref.run(t[k : k + 1], p_k[None], q[k : k + 1], c[k : k + 1], v[k : k + 1],
                            w[k : k + 1], np.zeros(1, dtype=bool))  # fmt: skip
        except DatumError as exc:
            block = exc
        monkeypatch.setattr(kernels, "_on", compiled)
        one.inputs[:] = [*one.head(float(t[k])), *p_k, *q[k], *c[k], *v[k], *w[k]]
        if isinstance(block, DatumError):
            assert k in bad
            with pytest.raises(DatumError) as refused:
                one.run(float(t[k]))
            assert str(refused.value) == str(block)
            assert (core.t_prev, core.reset_pending) == (ref.t_prev, ref.reset_pending)
            continue
        s = one.run(float(t[k]))
        for key, (i, size) in SLOTS.items():
            want = np.ascontiguousarray(block[key], dtype=np.float64).reshape(-1)
            assert want.size == size, key
            assert s[i : i + size].tobytes() == want.tobytes(), (k, key)
        assert core.t_prev == ref.t_prev and core.reset_pending is ref.reset_pending is False
    assert core.rng.state == ref.rng.state


def test_the_frame_is_the_layouts_and_stays(georef):
    """InsLayout.frame_index takes the frame of InsLayout.extra from the record; a frame given
    out is a new array (the next epoch leaves it as it was)."""
    cfg = _config()
    core = InsCore(cfg, georef)
    layout = InsLayout(core.output_info())
    one = InsOne.of(core, layout.frame_constants)
    assert one is not None
    ref = InsCore(cfg, georef)
    index = layout.frame_index(one.slots)
    kept = []
    for k, t in enumerate((0.0, 0.01, 0.02)):
        p = [10.0 * k, 1.0, 0.2]
        block = ref.run(np.array([t]), np.array([p]), np.array([[0.0, 0.0, 0.3, 0.95]]),
                        np.array([p]), np.ones((1, 3)), np.zeros((1, 3)), np.zeros(1, bool))  # fmt: skip
        one.inputs[:] = [*one.head(t), *p, 0.0, 0.0, 0.3, 0.95, *p, 1.0, 1.0, 1.0, 0, 0, 0]
        frame = one.run(t).take(index)
        assert frame.tobytes() == layout.extra(block)[0].tobytes()
        kept.append((frame, frame.copy()))
    assert all(np.array_equal(a, b) for a, b in kept)


def _stream_and_batch(cfg: dict, georef, n=80):
    truth_t = np.arange(n) / 120.0
    p = np.stack([3.0 * truth_t, 1.0 + truth_t, 0.1 * truth_t], 1)
    q = np.tile(Rotation.from_euler("Z", 0.4).as_quat(), (n, 1))
    v = np.tile([3.0, 1.0, 0.1], (n, 1))
    w = np.tile([0.0, 0.0, 0.05], (n, 1))
    truth = TruthStates(step0=0, p_m=p, q_xyzw=q, v_mps=v, w_radps=w, c_m=p.copy(),
                        reset=np.zeros(n, dtype=bool), rate_hz=120.0)  # fmt: skip
    typed = InsConfig.from_validated(cfg)
    model = InsModel(typed, VEHICLES["polaris"], georef)
    want = InsLayout(model.output_info()).extra(model.process(truth))
    arm = model.lever_arm_m
    ins = Ins(cfg, georef)
    got = []
    for k in range(n):
        if ins.due(truth_t[k]):
            p_n = p[k] + Rotation.from_quat(q[k]).apply(arm)
            got.append(ins.epoch(truth_t[k], p_n, q[k], p[k], v[k], w[k]))
    return ins, want, np.array(got)


@pytest.mark.parametrize(
    "site, overrides, path",
    [
        ("acre", {"imu.earth": "wgs84"}, None),  # InsCore.run
        ("acre", {"ins.frame": "wgs84_g2139"}, "ins_fix_rows"),
        ("sydney", {"ins.frame": "wgs84_g2139", "ins.utm_zone": 56}, "ins_fix_rows"),  # south
        ("acre", {}, "fix_chain"),
    ],
)
def test_stream_equals_batch_with_and_without_the_kept_record(georef, site, overrides, path):
    """The streaming INS's frames are the batch model's bit for bit on each of its paths: the
    kept record with fix_chain's rows, with Georeference.ins_fix_rows (another frame, a
    southern site), and InsCore.run (imu.earth wgs84)."""
    cfg = load_config(overrides=overrides)
    if site == "sydney":
        georef = Georeference.local(-33.8688, 151.2093, 30.0)
    ins, want, got = _stream_and_batch(cfg, georef)
    if path is None:
        assert ins._one is None
    else:
        assert (ins._one._fix_par is not None) == (path == "fix_chain")
    assert got.tobytes() == want.tobytes()
