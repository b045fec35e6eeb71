"""INS frames: 40 little-endian float64 values per INS epoch (``ins.frames``).

The layout is the sensor stream's INS frame of the specification (CoreSimIns.h ``EInsField``,
AcresSensorStream.h ``EIns``): one record of 40 IEEE-754 binary64 values, little-endian, 320
bytes, records back to back, no header. The order of the fields is ``EInsField``:

====  ====================  =======  ==============================================================
 #    name                  unit     meaning
====  ====================  =======  ==============================================================
  0   InsUtmE               m        UTM easting of the INS position (with errors), zone InsUtmZone
  1   InsUtmN               m        UTM northing of the INS position (with errors)
  2   InsUtmH               m        ellipsoidal height of ins.frame (DESIGN ruling "INS heights")
  3   InsUtmQx              -        q_utm = q_z(-alpha) q_ins, x: attitude FLU -> UTM grid axes
  4   InsUtmQy              -        q_utm, y
  5   InsUtmQz              -        q_utm, z
  6   InsUtmQw              -        q_utm, w
  7   InsVelX               m/s      velocity of the INS point, body forward, with white noise
  8   InsVelY               m/s      velocity, body left
  9   InsVelZ               m/s      velocity, body up
 10   InsGyroX              rad/s    angular rate about body forward, with white noise
 11   InsGyroY              rad/s    angular rate about body left
 12   InsGyroZ              rad/s    angular rate about body up
 13   InsAccelX             m/s^2    specific force along body forward, with white noise
 14   InsAccelY             m/s^2    specific force along body left
 15   InsAccelZ             m/s^2    specific force along body up (+9.80665 at rest, level)
 16   InsLat                deg      latitude of the INS position in ins.frame
                                     (nad83: NAD83(2011); wgs84_g2139: WGS84 (G2139) at the epoch)
 17   InsLon                deg      longitude in ins.frame, east positive
 18   InsHeight             m        ellipsoidal height in ins.frame (same value as InsUtmH)
 19   InsCovE               m^2      fix covariance, east: sigma_p^2 + sigma_pw^2
 20   InsCovN               m^2      fix covariance, north: sigma_p^2 + sigma_pw^2
 21   InsCovU               m^2      fix covariance, up: 2.25 (sigma_p^2 + sigma_pw^2)
 22   InsEnuQx              -        q_ins, x: attitude with errors, body FLU -> grid ENU
 23   InsEnuQy              -        q_ins, y
 24   InsEnuQz              -        q_ins, z
 25   InsEnuQw              -        q_ins, w
 26   InsEnuX               m        INS position with errors, grid east (tile origin)
 27   InsEnuY               m        INS position with errors, grid north
 28   InsEnuZ               m        INS position with errors, grid up
 29   InsFixStatus          -        fix status, always 2 (RTK)
 30   InsGridRotationDeg    deg      grid rotation alpha: UTM azimuth of the simulator's grid north
 31   InsUtmZone            -        UTM zone of the odometry (ins.utm_zone)
 32   InsTruthX             m        truth INS point, UTM easting (same zone and datum)
 33   InsTruthY             m        truth INS point, UTM northing
 34   InsTruthZ             m        truth INS point, ellipsoidal height of ins.frame
 35   InsTruthQx            -        truth attitude in the UTM frame q_z(-alpha) q_true, x
 36   InsTruthQy            -        truth attitude in the UTM frame, y
 37   InsTruthQz            -        truth attitude in the UTM frame, z
 38   InsTruthQw            -        truth attitude in the UTM frame, w
 39   InsTruthSpeed         m/s      norm of the truth velocity of the INS point, |v_n|
====  ====================  =======  ==============================================================

Quaternions are x, y, z, w, active rotations from the body FLU axes (forward, left, up).
``alpha`` is the grid rotation of the epoch (the same value for the errored and the truth
attitude). The truth fields follow DESIGN.md, ruling "INS heights".

:class:`InsFrameWriter` is a context manager: it writes to a temporary name in the target
directory and renames to the final name only when the ``with`` block ends without an exception,
so a failed run never leaves a file that looks complete. :func:`read_ins_frames` reads a file
back as an ``(m, 40)`` float64 array, :func:`read_ins_fields` only the fields a reader uses.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path
from typing import BinaryIO

import numpy as np

from navsense.errors import FormatError

__all__ = [
    "INS_FIELDS",
    "INS_FIELD_COUNT",
    "INS_FIELD_INDEX",
    "INS_FRAME_STRUCT",
    "INS_FRAME_DTYPE",
    "INS_FRAME_BYTES",
    "InsFrameWriter",
    "read_ins_fields",
    "read_ins_frames",
    "pack_ins_frame",
    "unpack_ins_frame",
]

INS_FIELDS: tuple[str, ...] = (
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
)  # CoreSimIns.h EInsField, in order
INS_FIELD_COUNT = len(INS_FIELDS)  # EInsField::InsFieldCount = 40
INS_FIELD_INDEX: dict[str, int] = {name: i for i, name in enumerate(INS_FIELDS)}
INS_FRAME_STRUCT = struct.Struct("<" + "d" * INS_FIELD_COUNT)  # one frame, 320 bytes
INS_FRAME_DTYPE = np.dtype("<f8")  # element type of the frames file
INS_FRAME_BYTES = INS_FRAME_STRUCT.size


def pack_ins_frame(values) -> bytes:
    """One frame (40 numbers) as 320 little-endian bytes (the sensor stream's record)."""
    values = np.asarray(values, dtype=np.float64)
    if values.shape != (INS_FIELD_COUNT,):
        raise FormatError(f"an INS frame has shape ({INS_FIELD_COUNT},), got {values.shape}")
    return INS_FRAME_STRUCT.pack(*values.tolist())


def unpack_ins_frame(data: bytes) -> tuple[float, ...]:
    """The 40 values of one 320-byte record."""
    if len(data) != INS_FRAME_BYTES:
        raise FormatError(f"an INS frame has {INS_FRAME_BYTES} bytes, got {len(data)}")
    return INS_FRAME_STRUCT.unpack(data)


class InsFrameWriter:
    """Write INS frames to ``path``: ``with InsFrameWriter(path) as w: w.write(frames)``.

    ``frames`` is an array of shape ``(m, 40)`` or ``(40,)``. The data go to a temporary file
    next to ``path`` that is renamed to ``path`` when the block ends without an exception (and
    removed when it ends with one). An existing ``path`` is an error unless ``overwrite`` is True.
    """

    def __init__(self, path, *, overwrite: bool = False) -> None:
        self.path = Path(path)
        self.overwrite = bool(overwrite)
        self._tmp_path = self.path.with_name(f".{self.path.name}.{os.getpid()}.partial")
        self._file: BinaryIO | None = None
        self.frames_written = 0

    def __enter__(self) -> InsFrameWriter:
        if self.path.exists() and not self.overwrite:
            raise FormatError(f"{self.path}: the file exists; not overwriting it")
        self._file = open(self._tmp_path, "wb")
        return self

    def write(self, frames) -> None:
        """Append frames, shape (m, 40) or (40,)."""
        if self._file is None:
            raise FormatError(f"{self.path}: write() outside the writer's with block")
        frames = np.asarray(frames, dtype=np.float64)
        if frames.ndim == 1:
            frames = frames[None, :]
        if frames.ndim != 2 or frames.shape[1] != INS_FIELD_COUNT:
            raise FormatError(
                f"{self.path}: expected INS frames of shape (..., {INS_FIELD_COUNT}), "
                f"got {frames.shape}"
            )
        self._file.write(np.ascontiguousarray(frames, dtype=INS_FRAME_DTYPE).tobytes())
        self.frames_written += frames.shape[0]

    def __exit__(self, exc_type, exc, tb) -> None:
        f, self._file = self._file, None
        if f is None:
            return
        try:
            f.close()
            if exc_type is None:
                os.replace(self._tmp_path, self.path)
        finally:  # whatever failed (a full disk while closing too): no temporary file left
            self._tmp_path.unlink(missing_ok=True)


_READ_BLOCK_FRAMES = 4096  # frames read and checked at a time: 1.3 MB, stays in the cache


def read_ins_frames(path) -> np.ndarray:
    """All frames of an ``ins.frames`` file as a float64 array of shape (m, 40), checked
    (:func:`_check_frame_values`; FormatError naming the epoch, field and value)."""
    out = np.empty((0, INS_FIELD_COUNT))
    for m, k, block in _frame_blocks(path):
        if k == 0:
            out = np.empty((m, INS_FIELD_COUNT))
        out[k : k + block.shape[0]] = block
    return out


def read_ins_fields(path, names) -> dict[str, np.ndarray]:
    """The fields ``names`` (of :data:`INS_FIELDS`) of every frame of an ``ins.frames`` file,
    each a contiguous (m,) float64 array; every field of every frame checked as by
    :func:`read_ins_frames` (the same FormatError).

    Why not ``read_ins_frames(path)[:, i]``: a reader that uses a few fields (the report and
    the statistics: 28 of 40) then holds the whole file, 115 MB for an hour, and each column
    it takes is a strided gather that pulls every 320-byte frame through the cache again.
    Here the file goes through a buffer of 1.3 MB (:data:`_READ_BLOCK_FRAMES` frames) that
    is checked and whose fields are copied out while it is in the cache: one pass over the
    file, memory for the fields asked for only (an hour: 0.04 s of CPU instead of 0.11 s for
    the whole array and 0.07 s more for its columns)."""
    index = [INS_FIELD_INDEX[name] for name in names]
    out = np.empty((len(index), 0))
    for m, k, block in _frame_blocks(path):
        if k == 0:
            out = np.empty((len(index), m))
        out[:, k : k + block.shape[0]] = block[:, index].T
    return {name: out[j] for j, name in enumerate(names)}


def _frame_blocks(path):
    """``(m, k, block)``: the file's m frames, of which k .. k + len(block) - 1 as a
    (len(block), 40) float64 view of one reused buffer, checked (:func:`_check_frame_values`)
    before it is yielded; nothing for an empty file. FormatError when the size is not a whole
    number of frames, or the file gets shorter while it is read."""
    path = Path(path)
    with open(path, "rb", buffering=0) as f:
        size = os.fstat(f.fileno()).st_size
        if size % INS_FRAME_BYTES:
            raise FormatError(
                f"{path}: {size} bytes is not a whole number of {INS_FRAME_BYTES}-byte INS frames"
            )
        m = size // INS_FRAME_BYTES
        if m == 0:
            return
        buf = np.empty((min(m, _READ_BLOCK_FRAMES), INS_FIELD_COUNT), dtype=INS_FRAME_DTYPE)
        raw = memoryview(buf).cast("B")
        k = 0
        while k < m:
            n = min(_READ_BLOCK_FRAMES, m - k)
            want = n * INS_FRAME_BYTES
            got = 0
            while got < want:  # a read may return less than asked (a pipe, a signal)
                r = f.readinto(raw[got:want])
                if not r:
                    raise FormatError(
                        f"{path}: ends at byte {k * INS_FRAME_BYTES + got} of {size} "
                        "(the file got shorter while it was read)"
                    )
                got += r
            block = buf[:n].astype(np.float64, copy=False)  # a view where native is "<f8"
            _check_frame_values(path, block, k)
            yield m, k, block
            k += n


#: the fields that are variances: NaN (an aided INS before initialisation) or >= 0
_VARIANCE_FIELDS = ("InsCovE", "InsCovN", "InsCovU")
_VARIANCE_SLICE = slice(INS_FIELD_INDEX["InsCovE"], INS_FIELD_INDEX["InsCovU"] + 1)


def _check_frame_values(path: Path, frames: np.ndarray, first_epoch: int = 0) -> None:
    """FormatError naming the epoch (``first_epoch`` is the epoch of ``frames[0]``), field and
    value when a frame holds an infinity or a negative variance (no INS writes either: a
    damaged file).

    A good block is passed by three reductions without temporaries: the largest and smallest
    value ignoring NaN (``fmax``, ``fmin``: NaN is allowed, an aided INS before its
    initialisation) are finite, and the smallest variance is not negative; only a bad block is
    searched for its first bad epoch and field."""
    variances = frames[:, _VARIANCE_SLICE]
    if frames.size == 0 or not (
        np.isinf(np.fmax.reduce(frames, axis=None))
        or np.isinf(np.fmin.reduce(frames, axis=None))
        or np.fmin.reduce(variances, axis=None) < 0.0  # False when all are NaN
    ):
        return
    bad_rows = np.isinf(frames).any(axis=1) | (variances < 0.0).any(axis=1)
    k = int(np.flatnonzero(bad_rows)[0])
    row = frames[k]
    field = next(
        name
        for i, name in enumerate(INS_FIELDS)
        if np.isinf(row[i]) or (name in _VARIANCE_FIELDS and row[i] < 0.0)
    )
    allowed = "a variance >= 0 (or NaN)" if field in _VARIANCE_FIELDS else "a finite number"
    raise FormatError(
        f"{path}: epoch {first_epoch + k}: {field} = {float(row[INS_FIELD_INDEX[field]])!r} "
        f"is not {allowed}"
    )
