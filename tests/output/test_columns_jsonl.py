"""jsonl_from_columns: an array under several keys is turned into text once, the rows unchanged."""

from __future__ import annotations

import numpy as np
import orjson

from navsense.output import columns
from navsense.output.columns import Column, jsonl_from_columns, rows_from_columns


def test_one_array_under_three_keys_is_made_text_once(monkeypatch):
    m = 5
    gyro = np.arange(3 * m, dtype=np.float64).reshape(m, 3) * 0.25
    valid = np.array([True, False, True, True, False])
    cols = [
        Column("t", np.arange(m) * 0.1),
        Column("imu.w", gyro),
        Column("velocity.w", gyro),
        Column("odom.w", gyro, valid),  # the same array with nulls: text of its own
        Column("odom.twist.w", gyro),
    ]
    calls: list[str] = []
    made = columns._json_tokens

    def counted(col, m, bracketed):
        calls.append(col.name)
        return made(col, m, bracketed)

    monkeypatch.setattr(columns, "_json_tokens", counted)
    text = jsonl_from_columns(cols, m)
    assert calls == ["t", "imu.w", "odom.w"]
    assert text == b"".join(orjson.dumps(r) + b"\n" for r in rows_from_columns(cols, m))


def test_rows_of_constants_alone_and_of_one_row_are_orjson_of_each_row():
    constants = [Column("frame", "a%s", constant=True), Column("b.zone", 16, constant=True)]
    line = orjson.dumps({"frame": "a%s", "b": {"zone": 16}}) + b"\n"
    assert jsonl_from_columns(constants, 3) == line * 3
    for cols, m in (
        ([*constants, Column("x", np.array([[0.5, 1e-7]]))], 1),
        ([Column("x", np.array([0.5, 2.0])), *constants], 2),
    ):
        expected = b"".join(orjson.dumps(r) + b"\n" for r in rows_from_columns(cols, m))
        assert jsonl_from_columns(cols, m) == expected
