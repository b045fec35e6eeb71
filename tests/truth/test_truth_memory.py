"""A truth log read chunk by chunk holds one row group at a time, not the whole file (issue 31
item 4: with pyarrow's pre-buffering the reader kept every row group read until the file was
closed, and a 24 h run's peak grew by 12.6 MiB an hour)."""

import pyarrow as pa

from conftest import open_sky_circle
from navsense.truth.io import TruthWriter, iter_truth_chunks
from navsense.truth.states import TruthStates

GROUP_ROWS = 4000
GROUPS = 30


def test_reading_a_log_chunk_by_chunk_holds_one_row_group(tmp_path):
    path = tmp_path / "long.parquet"
    base = open_sky_circle(GROUP_ROWS)
    with TruthWriter(path) as writer:  # one row group a write
        for k in range(GROUPS):
            writer.write(
                TruthStates(
                    k * GROUP_ROWS,
                    base.p_m,
                    base.q_xyzw,
                    base.v_mps,
                    base.w_radps,
                    base.c_m,
                    base.reset,
                    base.rate_hz,
                )
            )
    group_bytes = GROUP_ROWS * (16 * 8 + 1)  # 16 float64 columns and the reset flags
    before = pa.total_allocated_bytes()
    held = 0
    steps = 0
    for chunk in iter_truth_chunks(path, 1000):
        steps += len(chunk)
        held = max(held, pa.total_allocated_bytes() - before)
    assert steps == GROUPS * GROUP_ROWS
    # Arrow holds a row group or two at a time (the old reader: most of the file's 15 MB)
    assert held < 4 * group_bytes, (
        f"{held / 2**20:.1f} MiB held by Arrow while reading {GROUPS} row groups of "
        f"{group_bytes / 2**20:.2f} MiB"
    )
