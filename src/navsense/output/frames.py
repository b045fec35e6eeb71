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
so a failed run never leaves a file that looks complete. :func:`navsense.runs.ins_frames.read_ins_frames`
reads a file back as an ``(m, 40)`` float64 array, ``read_ins_fields`` only the fields a
reader uses.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path
from typing import BinaryIO

import numpy as np

from navsense.errors import FormatError
from navsense.output.appendfile import write_sliced

__all__ = [
    "INS_FIELDS",
    "INS_FIELD_COUNT",
    "INS_FIELD_INDEX",
    "INS_FRAME_STRUCT",
    "INS_FRAME_DTYPE",
    "INS_FRAME_BYTES",
    "InsFrameWriter",
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
        write_sliced(self._file, np.ascontiguousarray(frames, dtype=INS_FRAME_DTYPE))
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
