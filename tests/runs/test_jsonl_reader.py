"""The JSON Lines reader of a run's rows (navsense.runs.jsonl): a row whose value is of another
kind is named by its line in the file, whichever of Arrow's blocks it falls in (Arrow's own
message counts rows from 0 within a block of 4 MiB: the 30 001st row of a 10 MB file was 'row
13758'; found by the fuzz hunt of 2026-12-05)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from navsense.errors import FormatError
from navsense.runs import jsonl
from navsense.runs.kinds import FLOAT, INT, TEXT, vector

SPEC = {"sample_time_s": FLOAT, "count": INT, "fix_type": TEXT, "v": vector(3), "fix.lat": FLOAT}


def _rows(n: int) -> list[dict]:
    return [
        {
            "sample_time_s": i / 10,
            "count": i,
            "fix_type": "single",
            "v": [1.0, 2.0, i],
            "fix": {"lat": 40.0 + i * 1e-6},
            "pad": "x" * 100,
        }
        for i in range(n)
    ]


def _write(path, rows: list) -> None:
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda r: r.update(sample_time_s="oops"),
            'sample_time_s = "oops" is not a number (or null)',
        ),
        (lambda r: r.update(count=3.5), "count = 3.5 is not an integer (or null)"),
        (lambda r: r.update(count=True), "count = true is not an integer (or null)"),
        (lambda r: r.update(fix_type=7), "fix_type = 7 is not a string (or null)"),
        (
            lambda r: r.update(v=[[1.0], 2.0, 3.0]),
            "v = [[1.0],2.0,3.0] is not a list of numbers (or null)",
        ),
        (lambda r: r.update(fix=5), "fix = 5 is not an object"),
        (lambda r: r.update(fix={"lat": "n"}), 'fix.lat = "n" is not a number (or null)'),
    ],
    ids=["time text", "int fraction", "int bool", "text number", "vector nested", "parent", "leaf"],
)
def test_a_value_of_another_kind_is_named_by_its_line_beyond_the_first_block(
    tmp_path, monkeypatch, change, message
):
    monkeypatch.setattr(jsonl, "_JSON_BLOCK_BYTES", 4096)  # a few dozen rows a block
    rows = _rows(400)
    change(rows[300])
    path = tmp_path / "gnss.jsonl"
    _write(path, rows)
    with pytest.raises(FormatError) as err:
        jsonl.jsonl_columns(path, SPEC)
    assert str(err.value) == f"{path}: line 301: {message}"


def test_a_line_that_is_no_json_object_is_named(tmp_path):
    rows: list = _rows(50)
    rows[20] = "[1, 2]"
    path = tmp_path / "imu.jsonl"
    _write(path, rows)
    with pytest.raises(FormatError, match=r": line 21: not a JSON object"):
        jsonl.jsonl_columns(path, SPEC)
    rows[20] = json.dumps(_rows(21)[20]) + " x"
    _write(path, rows)
    with pytest.raises(FormatError, match=r": line 21: not a JSON row"):
        jsonl.jsonl_columns(path, SPEC)


def test_valid_rows_read_as_before(tmp_path, monkeypatch):
    monkeypatch.setattr(jsonl, "_JSON_BLOCK_BYTES", 4096)
    rows = _rows(400)
    rows[7]["fix"] = None
    path = tmp_path / "gnss.jsonl"
    _write(path, rows)
    cols = jsonl.jsonl_columns(path, SPEC)
    assert np.array_equal(cols["sample_time_s"], np.arange(400) / 10)
    assert np.isnan(cols["fix.lat"][7]) and cols["fix.lat"][8] == 40.0 + 8 * 1e-6
    assert cols["v"].shape == (400, 3) and list(cols["fix_type"][:2]) == ["single", "single"]
