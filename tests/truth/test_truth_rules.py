"""The truth log's rules in their two forms (navsense.truth.rules): the cheap answer of
values_pass / clock_passes is exactly "no failure" of the rules that name the value, for every
column, at and just beyond every limit, for NaN and the infinities; and the reader built on them
still names the first bad value by row and column in any block of a streamed log."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from navsense.errors import TruthError
from navsense.truth import TRUTH_COLUMNS, iter_truth_chunks, read_truth, write_truth
from navsense.truth.rules import (
    LIMITS,
    NUMERIC,
    QUAT_NORM_TOLERANCE,
    TIME_TOLERANCE_S,
    clock_passes,
    quaternion_failures,
    value_failures,
    values_pass,
)
from navsense.truth.states import TruthStates

RATE = 120.0


def _block(n: int = 40, seed: int = 3, k0: int = 5) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(n, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    cols = {"t_s": (k0 + np.arange(n)) / RATE}
    for c in NUMERIC[1:]:
        cols[c] = rng.normal(scale=50.0, size=n)
    for j, c in enumerate(("qx", "qy", "qz", "qw")):
        cols[c] = q[:, j].copy()
    return cols


def _old_clock_ok(t: np.ndarray, k_first: int) -> bool:
    """The clock rule of the reader's failures, with the value rule's finiteness of t_s (a NaN
    time is named by the value rule, which clock_passes leaves to its caller's values_pass)."""
    k = k_first + np.arange(len(t), dtype=np.int64)
    return bool(np.all(np.isfinite(t))) and not np.any(np.abs(t - k / RATE) > TIME_TOLERANCE_S)


def _bad_values(limit: float) -> list[float]:
    up = np.nextafter(limit, np.inf)
    return [np.nan, np.inf, -np.inf, limit, -limit, up, -up, 1e300, -0.0]


def _cases():
    """(column, value) pairs: every column at and beyond its limit, NaN and infinities."""
    for c in NUMERIC:
        limit = LIMITS[c][0] if c in LIMITS else 1.0
        for v in _bad_values(limit):
            yield c, float(v)


@pytest.mark.filterwarnings("ignore:overflow encountered in square")  # |q| of 1e300
@pytest.mark.parametrize("row", [0, 17, 39])
def test_values_pass_is_no_failure_for_every_column_and_edge(row):
    checked = 0
    for column, value in _cases():
        cols = _block()
        cols[column][row] = value
        expected = not (value_failures(cols) or quaternion_failures(cols))
        assert values_pass(cols) == expected, (column, value)
        checked += 1
    assert checked == len(NUMERIC) * 9
    assert values_pass(_block())


def test_values_pass_at_the_limits_themselves():
    cols = _block()
    for c, (limit, _, _) in LIMITS.items():
        if c != "t_s":
            cols[c][3], cols[c][4] = limit, -limit
    assert values_pass(cols) and not value_failures(cols)
    cols["vy_mps"][9] = np.nextafter(LIMITS["vy_mps"][0], np.inf)
    assert not values_pass(cols) and value_failures(cols)


def test_quaternion_norm_at_and_beyond_the_tolerance():
    """Norms around 1 +- tol, one ulp at a time: both forms agree on every one."""
    for sign in (1.0, -1.0):
        edge = 1.0 + sign * QUAT_NORM_TOLERANCE
        for k in range(-40, 41):
            norm = edge + k * np.spacing(edge)
            cols = _block()
            cols["qx"][7], cols["qy"][7], cols["qz"][7], cols["qw"][7] = 0.0, 0.0, 0.0, norm
            assert values_pass(cols) == (not quaternion_failures(cols)), norm


def test_clock_passes_agrees_with_the_clock_rule():
    rng = np.random.default_rng(11)
    for k_first in (0, 5, 431_990, 12_000_000_000):
        t = (k_first + np.arange(50)) / RATE
        assert clock_passes(t, k_first, RATE) and _old_clock_ok(t, k_first)
        for off in (TIME_TOLERANCE_S, -TIME_TOLERANCE_S, 2e-6, np.nan, np.inf, 1 / RATE):
            for i in (0, int(rng.integers(1, 49)), 49):
                bad = t.copy()
                bad[i] += off
                for ulps in (-1, 0, 1):
                    bad2 = bad.copy()
                    bad2[i] = bad2[i] + ulps * np.spacing(bad2[i])
                    assert clock_passes(bad2, k_first, RATE) == _old_clock_ok(bad2, k_first)


def _truth(n: int) -> TruthStates:
    rng = np.random.default_rng(5)
    q = rng.normal(size=(n, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    return TruthStates(
        step0=0,
        p_m=rng.normal(scale=100.0, size=(n, 3)),
        q_xyzw=q,
        v_mps=rng.normal(size=(n, 3)),
        w_radps=rng.normal(scale=0.1, size=(n, 3)),
        c_m=rng.normal(scale=100.0, size=(n, 3)),
        reset=np.zeros(n, dtype=bool),
    )


@pytest.mark.parametrize(
    "column, value, message",
    [
        ("vx_mps", np.nan, "vx_mps = nan is not a finite number"),
        ("qz", np.inf, "qz = inf is not a finite number"),
        ("cy_m", -2e9, r"cy_m = -2000000000\.0 is beyond the limit of a grid coordinate"),
        ("wz_radps", 1000.5, r"wz_radps = 1000\.5 is beyond the limit of an angular rate"),
        ("qw", 1.5, r"quaternion \(qx, qy, qz, qw\) = .* has norm"),
        ("t_s", 123.0, r"t_s = 123\.0 is not on the 120 Hz physics clock"),
    ],
)
def test_a_bad_value_in_a_later_block_is_named_by_row(tmp_path, column, value, message):
    """Blocks of 16 rows: the bad row 91 is in the sixth block, after five valid ones."""
    path = write_truth(_truth(200), tmp_path / "t.parquet")
    table = pq.read_table(path)
    values = table.column(column).to_numpy().copy()
    values[90] = value
    bad = table.set_column(TRUTH_COLUMNS.index(column), column, pa.array(values))
    pq.write_table(bad, tmp_path / "bad.parquet")
    with pytest.raises(TruthError, match=r"bad\.parquet: row 91: " + message):
        for _ in iter_truth_chunks(tmp_path / "bad.parquet", 16):
            pass
    with pytest.raises(TruthError, match=r"bad\.parquet: row 91: " + message):
        read_truth(tmp_path / "bad.parquet")


def test_a_log_at_the_limits_reads_back_exactly(tmp_path):
    truth = _truth(60)
    truth.v_mps[10] = [1e4, -1e4, 0.0]
    truth.w_radps[20] = [-1e3, 1e3, -0.0]
    truth.p_m[30] = [1e9, -1e9, 0.0]
    path = write_truth(truth, tmp_path / "edge.parquet")
    chunks = list(iter_truth_chunks(path, 16))
    back = TruthStates.concatenate(chunks)
    for name in ("p_m", "q_xyzw", "v_mps", "w_radps", "c_m", "reset"):
        assert np.array_equal(getattr(back, name), getattr(truth, name)), name
