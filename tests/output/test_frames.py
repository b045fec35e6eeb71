"""Tests of the INS frame writer and reader (40 little-endian float64 per epoch, EInsField order)."""

from __future__ import annotations

import os
import struct

import numpy as np
import pytest

import navsense.runs.ins_frames as frames_module
from navsense.errors import FormatError
from navsense.output.frames import (
    INS_FIELD_COUNT,
    INS_FIELD_INDEX,
    INS_FIELDS,
    INS_FRAME_BYTES,
    InsFrameWriter,
    pack_ins_frame,
    unpack_ins_frame,
)
from navsense.runs.ins_frames import read_ins_fields, read_ins_frames

# CoreSimIns.h, EInsField, in order (copied from the specification, not from the module)
EINS_FIELD = [
    "InsUtmE",
    "InsUtmN",
    "InsUtmH",
    "InsUtmQx",
    "InsUtmQy",
    "InsUtmQz",
    "InsUtmQw",
    "InsVelX",
    "InsVelY",
    "InsVelZ",
    "InsGyroX",
    "InsGyroY",
    "InsGyroZ",
    "InsAccelX",
    "InsAccelY",
    "InsAccelZ",
    "InsLat",
    "InsLon",
    "InsHeight",
    "InsCovE",
    "InsCovN",
    "InsCovU",
    "InsEnuQx",
    "InsEnuQy",
    "InsEnuQz",
    "InsEnuQw",
    "InsEnuX",
    "InsEnuY",
    "InsEnuZ",
    "InsFixStatus",
    "InsGridRotationDeg",
    "InsUtmZone",
    "InsTruthX",
    "InsTruthY",
    "InsTruthZ",
    "InsTruthQx",
    "InsTruthQy",
    "InsTruthQz",
    "InsTruthQw",
    "InsTruthSpeed",
]


def test_layout_is_einsfield():
    assert tuple(EINS_FIELD) == INS_FIELDS
    assert INS_FIELD_COUNT == 40 and INS_FRAME_BYTES == 320
    assert INS_FIELD_INDEX["InsFixStatus"] == 29 and INS_FIELD_INDEX["InsTruthSpeed"] == 39


def test_round_trip_little_endian(tmp_path):
    rng = np.random.default_rng(7)
    frames = rng.normal(size=(25, 40)) * 1e6
    frames[3, 5] = -0.0
    variances = [INS_FIELD_INDEX[name] for name in ("InsCovE", "InsCovN", "InsCovU")]
    frames[:, variances] = np.abs(frames[:, variances])  # the reader refuses a negative variance
    path = tmp_path / "ins.frames"
    with InsFrameWriter(path) as w:
        w.write(frames[:10])
        w.write(frames[10])  # a single frame (40,)
        w.write(frames[11:])
        w.write(np.zeros((0, 40)))
    assert w.frames_written == 25
    data = path.read_bytes()
    assert len(data) == 25 * 320
    # little-endian float64, independent of numpy
    assert struct.unpack_from("<40d", data, 320) == tuple(frames[1])
    back = read_ins_frames(path)
    assert back.dtype == np.float64 and back.shape == (25, 40)
    assert back.tobytes() == frames.tobytes()
    assert unpack_ins_frame(pack_ins_frame(frames[4])) == tuple(frames[4])


def test_failed_write_leaves_no_file(tmp_path):
    path = tmp_path / "ins.frames"
    with pytest.raises(RuntimeError):
        with InsFrameWriter(path) as w:
            w.write(np.ones((2, 40)))
            raise RuntimeError("crash")
    assert list(tmp_path.iterdir()) == []


def test_refuses_to_overwrite_and_bad_shapes(tmp_path):
    path = tmp_path / "ins.frames"
    path.write_bytes(b"")
    with pytest.raises(FormatError, match="exists"):
        with InsFrameWriter(path):
            pass
    with InsFrameWriter(path, overwrite=True) as w:
        with pytest.raises(FormatError, match=r"\(\.\.\., 40\)"):
            w.write(np.ones((2, 39)))
        w.write(np.ones(40))
    assert read_ins_frames(path).shape == (1, 40)


def test_truncated_file_is_a_format_error(tmp_path):
    path = tmp_path / "ins.frames"
    path.write_bytes(b"\0" * 321)
    with pytest.raises(FormatError, match="321 bytes"):
        read_ins_frames(path)
    with pytest.raises(FormatError):
        unpack_ins_frame(b"\0" * 8)


def _frames_file(path, m: int = 25) -> np.ndarray:
    """m frames of random values (variances >= 0) written to ``path``; frames 7 .. 13 are all
    NaN (an aided INS before its initialisation writes NaN)."""
    rng = np.random.default_rng(3)
    frames = rng.normal(size=(m, 40)) * 1e5
    variances = [INS_FIELD_INDEX[name] for name in ("InsCovE", "InsCovN", "InsCovU")]
    frames[:, variances] = np.abs(frames[:, variances])
    frames[2, variances[1]] = -0.0  # -0.0 is not negative
    frames[7:14] = np.nan
    with InsFrameWriter(path) as w:
        w.write(frames)
    return frames


def test_fields_are_the_frames_columns_across_read_blocks(tmp_path, monkeypatch):
    # blocks of 7 frames: the file's 25 frames in 4 blocks, the second one all NaN
    monkeypatch.setattr(frames_module, "_READ_BLOCK_FRAMES", 7)
    path = tmp_path / "ins.frames"
    frames = _frames_file(path)
    assert read_ins_frames(path).tobytes() == frames.tobytes()
    names = ["InsTruthSpeed", "InsUtmE", "InsCovN", "InsLat"]
    got = read_ins_fields(path, names)
    assert list(got) == names
    for name in names:
        column = got[name]
        assert column.dtype == np.float64 and column.flags.c_contiguous
        assert column.tobytes() == np.ascontiguousarray(frames[:, INS_FIELD_INDEX[name]]).tobytes()
    path.write_bytes(b"")
    assert read_ins_frames(path).shape == (0, 40)
    assert read_ins_fields(path, names)["InsLat"].shape == (0,)


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("InsLon", -np.inf, "InsLon = -inf is not a finite number"),
        ("InsTruthSpeed", np.inf, "InsTruthSpeed = inf is not a finite number"),
        ("InsCovU", -1e-9, "InsCovU = -1e-09 is not a variance >= 0 (or NaN)"),
    ],
)
def test_a_bad_value_in_a_later_block_names_its_epoch(tmp_path, monkeypatch, field, value, message):
    monkeypatch.setattr(frames_module, "_READ_BLOCK_FRAMES", 7)
    path = tmp_path / "ins.frames"
    frames = _frames_file(path)
    frames[17, INS_FIELD_INDEX[field]] = value  # in the third block
    frames[22, INS_FIELD_INDEX["InsUtmN"]] = np.inf  # a later one (fourth block) is not named
    path.write_bytes(frames.astype("<f8").tobytes())
    for read in (read_ins_frames, lambda p: read_ins_fields(p, ["InsUtmE"])):
        with pytest.raises(FormatError) as err:
            read(path)
        assert str(err.value) == f"{path}: epoch 17: {message}"


def test_a_file_that_gets_shorter_while_read_is_a_format_error(tmp_path, monkeypatch):
    path = tmp_path / "ins.frames"
    _frames_file(path)
    real = os.fstat

    class Longer:  # fstat as it was before the file lost its last frame
        def __init__(self, fd):
            self.st_size = real(fd).st_size + INS_FRAME_BYTES

    monkeypatch.setattr(frames_module.os, "fstat", Longer)
    with pytest.raises(FormatError, match=r"ends at byte 8000 of 8320 \(the file got shorter"):
        read_ins_fields(path, ["InsUtmE"])
