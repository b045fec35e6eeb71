"""--format parquet: the same values as the JSONL rows; chunked = one-shot for every sensor."""

import json
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from conftest import circle_truth
from navsense.cli import main
from navsense.truth.io import write_truth

SENSORS = ("gnss", "imu", "ins", "mag", "baro", "odom")


@pytest.fixture(scope="module")
def truth_parquet(tmp_path_factory) -> Path:
    """12 s on a circle north of the grain bins (some sky obstructed), as a Parquet truth log."""
    truth = circle_truth(1440, radius_m=20.0, speed_mps=3.0)
    shift = np.array([60.0, 10.0, 0.0])
    truth = type(truth)(
        truth.step0,
        truth.p_m + shift,
        truth.q_xyzw,
        truth.v_mps,
        truth.w_radps,
        truth.c_m + shift,
        truth.reset,
    )
    path = tmp_path_factory.mktemp("truth") / "circle.parquet"
    write_truth(truth, path)
    return path


def _run(folder: Path, truth: Path, name: str, *extra) -> Path:
    out = folder / name
    args = [
        "simulate",
        "--truth",
        str(truth),
        "--out",
        str(out),
        "--quiet",
        "--mag",
        "--baro",
        "--odom",
        "--gnss-start",
        "cold",
        *extra,
    ]
    assert main(args) == 0
    return out


def _flatten(row: dict, prefix: str = "") -> dict:
    flat = {}
    for key, value in row.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(_flatten(value, name + "."))
        else:
            flat[name] = value
    return flat


@pytest.fixture(scope="module")
def runs(tmp_path_factory, truth_parquet):
    folder = tmp_path_factory.mktemp("runs")
    return {
        "jsonl": _run(folder, truth_parquet, "jsonl"),
        "parquet": _run(folder, truth_parquet, "parquet", "--format", "parquet"),
        "parquet_chunked": _run(
            folder, truth_parquet, "parquet7", "--format", "parquet", "--chunk-steps", "7"
        ),
        "jsonl_chunked": _run(folder, truth_parquet, "jsonl13", "--chunk-steps", "13"),
    }


@pytest.mark.parametrize("sensor", SENSORS)
def test_parquet_carries_the_jsonl_values(runs, sensor):
    rows = [
        json.loads(line) for line in (runs["jsonl"] / f"{sensor}.jsonl").read_text().splitlines()
    ]
    table = pq.read_table(runs["parquet"] / f"{sensor}.parquet").to_pydict()
    assert rows, sensor
    assert len(next(iter(table.values()))) == len(rows)
    for i, row in enumerate(rows):
        for key, value in _flatten(row).items():
            if isinstance(value, list):
                for j, v in enumerate(value):
                    assert table[f"{key}.{j}"][i] == v, (sensor, i, key, j)
            elif value is None and f"{key}.0" in table:  # a null vector: every element null
                assert table[f"{key}.0"][i] is None, (sensor, i, key)
            else:
                assert table[key][i] == value, (sensor, i, key)


def test_gnss_rows_cover_null_positions(runs):
    rows = [json.loads(line) for line in (runs["jsonl"] / "gnss.jsonl").read_text().splitlines()]
    assert {r["fix_type"] for r in rows} >= {"no_fix"}  # the cold start's first seconds
    assert any(r["position_enu_m"] is None for r in rows)


@pytest.mark.parametrize("sensor", SENSORS)
def test_chunked_equals_one_shot_in_both_formats(runs, sensor):
    a = runs["parquet"] / f"{sensor}.parquet"
    b = runs["parquet_chunked"] / f"{sensor}.parquet"
    assert a.read_bytes() == b.read_bytes()
    assert (runs["jsonl"] / f"{sensor}.jsonl").read_bytes() == (
        runs["jsonl_chunked"] / f"{sensor}.jsonl"
    ).read_bytes()


def test_episode_json_is_the_same_but_for_the_format(runs):
    a = json.loads((runs["jsonl"] / "episode.json").read_text())
    b = json.loads((runs["parquet"] / "episode.json").read_text())
    assert a.pop("output_format") == "jsonl" and b.pop("output_format") == "parquet"
    assert a == b


def test_parquet_bytes_do_not_depend_on_chunks_across_row_groups(
    tmp_path, truth_parquet, monkeypatch
):
    import navsense.output.parquet as parquet

    monkeypatch.setattr(parquet, "ROW_GROUP_ROWS", 100)  # many row groups, cut across chunks
    a = _run(tmp_path, truth_parquet, "a", "--format", "parquet", "--chunk-steps", "31")
    b = _run(tmp_path, truth_parquet, "b", "--format", "parquet", "--chunk-steps", "1000")
    for sensor in SENSORS:
        assert (a / f"{sensor}.parquet").read_bytes() == (b / f"{sensor}.parquet").read_bytes()
    assert pq.ParquetFile(a / "imu.parquet").num_row_groups > 10
