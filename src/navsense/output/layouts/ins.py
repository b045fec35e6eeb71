"""The INS's outputs: the rows of ``ins.jsonl`` / ``ins.parquet`` and the 40-value ``ins.frames``.

Built from ``InsModel.output_info()`` (``datum``: the fix's frame name, ``utm_zone``) and fed the
model's blocks (SI arrays, the keys of navsense.sensors.ins). Specification "INS and GNSS",
section "INS" (fix status 2 = RTK, service 1 = GPS) and "Outputs" (frame names).

Rows (decimals chosen by navsense, the specification gives none for the INS)::

    {"frame": "oxts_link",
     "fix": {"latitude": deg (9 decimals, 0.1 mm), "longitude": deg (9), "altitude": m (4),
             "datum": "nad83_2011" | "wgs84_g2139", "status": 2, "service": 1,
             "position_covariance": [E, N, U] m^2 (10)},
     "imu": {"orientation_enu_xyzw": q_ins (9), "angular_velocity_flu_radps": (8),
             "linear_acceleration_flu_mps2": (6)},
     "velocity": {"linear_flu_mps": (6), "angular_flu_radps": (8)},
     "position_enu_m": p_ins (4),
     "odom": {"frame_id": "utm", "child_frame_id": "base_footprint",
              "position_m": [E, N, h] (4), "orientation_xyzw": q_utm (9),
              "twist": {"linear_flu_mps": (6), "angular_flu_radps": (8)},
              "grid_rotation_deg": alpha (7), "zone": ins.utm_zone}}

Frames: (m, 40) float64 in EInsField order (navsense.output.frames.INS_FIELDS), see
:data:`FRAME_LAYOUT`.

The aided INS (``ins.aiding`` "gnss", navsense extension, issue 19; output_info() has
``aiding``, the INS state names by code, and the block ``ins_state``): the status and service
follow the state (:data:`NAVSAT_STATUS`, :data:`NAVSAT_SERVICE`; sensor_msgs/NavSatStatus as
nmea_navsat_driver maps the GGA quality: RTK -> GBAS_FIX 2, DGPS -> SBAS_FIX 1, single -> FIX 0;
dead reckoning is a fix from no GNSS service, FIX 0 with service 0, its covariance says how
good; not initialised NO_FIX -1, service 0), the row adds ``fix.ins_state`` (the state's name)
and ``fix.oxts_position_mode`` (:data:`OXTS_POSITION_MODE`, the OxTS NCOM GNSS position mode
the filter uses: 0 none, 3 SPS, 4 differential, 5 RTK float, 6 RTK integer), and before
initialisation every navigation value is null (the position, its covariance, the attitude, the
velocity, the odometry; an OxTS unit outputs none before it is initialised), NaN in the frame;
the measured angular rate and specific force stay. InsFixStatus is the status.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from navsense.errors import FormatError
from navsense.output.columns import Column
from navsense.output.frames import INS_FIELD_COUNT

__all__ = ["InsLayout", "ROW_DECIMALS", "FRAME_LAYOUT"]

FIX_STATUS_RTK = 2  # spec "INS": the fix has status 2 (RTK)
FIX_SERVICE_GPS = 1  # spec "Outputs": service 1 (sensor_msgs/NavSatStatus SERVICE_GPS)
# the aided INS (ins.aiding "gnss"): INS state code (GGA quality) -> NavSatStatus status,
# service and the OxTS NCOM GNSS position mode
NAVSAT_STATUS = {0: -1, 1: 0, 2: 1, 4: 2, 5: 2, 6: 0}
NAVSAT_SERVICE = {0: 0, 1: 1, 2: 1, 4: 1, 5: 1, 6: 0}
OXTS_POSITION_MODE = {0: 0, 1: 3, 2: 4, 4: 6, 5: 5, 6: 0}
ROW_FRAME_ID = "oxts_link"  # spec "Outputs": frame name of a row
ODOM_FRAME_ID = "utm"  # spec "Outputs": odom frame utm, child frame base_footprint
ODOM_CHILD_FRAME_ID = "base_footprint"

ROW_DECIMALS = {  # navsense's choice (the specification gives no INS decimals)
    "latitude": 9,
    "longitude": 9,  # 1e-9 deg = 0.1 mm
    "altitude": 4,
    "position_enu_m": 4,
    "position_utm_m": 4,  # 0.1 mm
    "position_covariance": 10,  # m^2: 1.09e-4 (the default) keeps 6 digits
    "quaternion": 9,  # 1e-9 rad
    "linear_velocity": 6,
    "linear_acceleration": 6,  # as imu.jsonl's specific force
    "angular_velocity": 8,  # as imu.jsonl's angular velocity
    "grid_rotation_deg": 7,
}

# the 40 fields of a frame (EInsField order): block keys (a vector gives its elements in
# order) and the constants "fix_status" and "utm_zone"
FRAME_LAYOUT = (
    "utm_m",  # InsUtmE, InsUtmN, InsUtmH
    "orientation_utm_xyzw",  # InsUtmQx..Qw
    "velocity_flu_mps",  # InsVelX..Z
    "angular_velocity_flu_radps",  # InsGyroX..Z
    "specific_force_flu_mps2",  # InsAccelX..Z
    "lat_deg",  # InsLat
    "lon_deg",  # InsLon
    "height_m",  # InsHeight
    "covariance_enu_m2",  # InsCovE, N, U
    "orientation_enu_xyzw",  # InsEnuQx..Qw
    "position_enu_m",  # InsEnuX..Z
    "fix_status",  # InsFixStatus
    "grid_rotation_deg",  # InsGridRotationDeg
    "utm_zone",  # InsUtmZone
    "truth_utm_m",  # InsTruthX..Z
    "truth_orientation_utm_xyzw",  # InsTruthQx..Qw
    "truth_speed_mps",  # InsTruthSpeed
)


# FRAME_LAYOUT's keys and whether each is one value an epoch (a block's (m,) column)
_FRAME_PARTS = tuple(
    (key, key in ("lat_deg", "lon_deg", "height_m", "grid_rotation_deg", "truth_speed_mps"))
    for key in FRAME_LAYOUT
)


def _table(mapping: Mapping[int, int]) -> np.ndarray:
    """A lookup array indexed by the INS state code (codes 0..6; 3 is unused)."""
    out = np.zeros(7, dtype=np.int64)
    for code, value in mapping.items():
        out[code] = value
    return out


class InsLayout:
    """The INS's row keys and frames for one run (``info``: InsModel.output_info())."""

    def __init__(self, info: Mapping[str, Any]) -> None:
        self.datum = str(info["datum"])
        self.utm_zone = int(info["utm_zone"])
        self._frame_constants = {
            "fix_status": float(FIX_STATUS_RTK),
            "utm_zone": float(self.utm_zone),
        }
        self._constant_columns: tuple[int, dict[str, np.ndarray]] = (-1, {})
        # the aided INS: the state's names, and lookup tables of the state's outputs by code
        self.states: dict[int, str] | None = None
        if info.get("aiding"):
            self.states = {int(k): str(v) for k, v in info["aiding"].items()}
            self._status = _table(NAVSAT_STATUS)
            self._service = _table(NAVSAT_SERVICE)
            self._mode = _table(OXTS_POSITION_MODE)

    def fix_status(self, block: Mapping[str, np.ndarray]) -> np.ndarray | int:
        """The NavSatStatus status of each epoch (the specification's 2 without aiding)."""
        if self.states is None:
            return FIX_STATUS_RTK
        return self._status[np.asarray(block["ins_state"], dtype=np.intp)]

    def columns(self, block: Mapping[str, np.ndarray]) -> list[Column]:
        """The ins.jsonl keys as columns, rounded to :data:`ROW_DECIMALS`."""
        d = ROW_DECIMALS

        def rnd(key: str, decimals: int) -> np.ndarray:
            return np.round(block[key], decimals)

        gyro = rnd("angular_velocity_flu_radps", d["angular_velocity"])
        vel = rnd("velocity_flu_mps", d["linear_velocity"])
        if self.states is not None:
            return self._aided_columns(block, rnd, gyro, vel)
        return [
            Column("frame", ROW_FRAME_ID, constant=True),
            Column("fix.latitude", rnd("lat_deg", d["latitude"])),
            Column("fix.longitude", rnd("lon_deg", d["longitude"])),
            Column("fix.altitude", rnd("height_m", d["altitude"])),
            Column("fix.datum", self.datum, constant=True),
            Column("fix.status", FIX_STATUS_RTK, constant=True),
            Column("fix.service", FIX_SERVICE_GPS, constant=True),
            Column("fix.position_covariance", rnd("covariance_enu_m2", d["position_covariance"])),
            Column("imu.orientation_enu_xyzw", rnd("orientation_enu_xyzw", d["quaternion"])),
            Column("imu.angular_velocity_flu_radps", gyro),
            Column(
                "imu.linear_acceleration_flu_mps2",
                rnd("specific_force_flu_mps2", d["linear_acceleration"]),
            ),
            Column("velocity.linear_flu_mps", vel),
            Column("velocity.angular_flu_radps", gyro),
            Column("position_enu_m", rnd("position_enu_m", d["position_enu_m"])),
            Column("odom.frame_id", ODOM_FRAME_ID, constant=True),
            Column("odom.child_frame_id", ODOM_CHILD_FRAME_ID, constant=True),
            Column("odom.position_m", rnd("utm_m", d["position_utm_m"])),
            Column("odom.orientation_xyzw", rnd("orientation_utm_xyzw", d["quaternion"])),
            Column("odom.twist.linear_flu_mps", vel),
            Column("odom.twist.angular_flu_radps", gyro),
            Column("odom.grid_rotation_deg", rnd("grid_rotation_deg", d["grid_rotation_deg"])),
            Column("odom.zone", self.utm_zone, constant=True),
        ]

    def _aided_columns(self, block, rnd, gyro, vel) -> list[Column]:
        """The rows of the aided INS: the state's status, service, name and OxTS position
        mode; null navigation values before initialisation."""
        d = ROW_DECIMALS
        state = np.asarray(block["ins_state"], dtype=np.intp)
        ok = state != 0
        valid = None if ok.all() else ok
        assert self.states is not None
        return [
            Column("frame", ROW_FRAME_ID, constant=True),
            Column("fix.latitude", rnd("lat_deg", d["latitude"]), valid),
            Column("fix.longitude", rnd("lon_deg", d["longitude"]), valid),
            Column("fix.altitude", rnd("height_m", d["altitude"]), valid),
            Column("fix.datum", self.datum, constant=True),
            Column("fix.status", self._status[state]),
            Column("fix.service", self._service[state]),
            Column("fix.ins_state", [self.states[k] for k in state.tolist()]),
            Column("fix.oxts_position_mode", self._mode[state]),
            Column(
                "fix.position_covariance",
                rnd("covariance_enu_m2", d["position_covariance"]),
                valid,
            ),
            Column("imu.orientation_enu_xyzw", rnd("orientation_enu_xyzw", d["quaternion"]), valid),
            Column("imu.angular_velocity_flu_radps", gyro),
            Column(
                "imu.linear_acceleration_flu_mps2",
                rnd("specific_force_flu_mps2", d["linear_acceleration"]),
            ),
            Column("velocity.linear_flu_mps", vel, valid),
            Column("velocity.angular_flu_radps", gyro),
            Column("position_enu_m", rnd("position_enu_m", d["position_enu_m"]), valid),
            Column("odom.frame_id", ODOM_FRAME_ID, constant=True),
            Column("odom.child_frame_id", ODOM_CHILD_FRAME_ID, constant=True),
            Column("odom.position_m", rnd("utm_m", d["position_utm_m"]), valid),
            Column("odom.orientation_xyzw", rnd("orientation_utm_xyzw", d["quaternion"]), valid),
            Column("odom.twist.linear_flu_mps", vel, valid),
            Column("odom.twist.angular_flu_radps", gyro),
            Column(
                "odom.grid_rotation_deg",
                rnd("grid_rotation_deg", d["grid_rotation_deg"]),
                valid,
            ),
            Column("odom.zone", self.utm_zone, constant=True),
        ]

    @property
    def frame_constants(self) -> dict[str, float]:
        """The frame's constant fields (FRAME_LAYOUT's names that are no block key) and values
        (the specification's INS; an aided INS's status follows its state: not constant)."""
        return dict(self._frame_constants)

    def frame_index(self, slots: Mapping[str, tuple[int, int]]) -> np.ndarray:
        """Where each of the frame's 40 values is in a record whose ``slots`` give each
        FRAME_LAYOUT name's (first index, values) (navsense.sensors.ins_one: its outputs and
        :attr:`frame_constants`): ``record.take(index)`` is the frame of :meth:`extra`."""
        index = np.concatenate(
            [np.arange(slots[key][0], slots[key][0] + slots[key][1]) for key in FRAME_LAYOUT]
        )
        if index.shape[0] != INS_FIELD_COUNT:  # pragma: no cover - layout guard
            raise FormatError(f"INS frame has {index.shape[0]} fields, expected {INS_FIELD_COUNT}")
        return index

    def extra(self, block: Mapping[str, np.ndarray]) -> np.ndarray:
        """The block's epochs as (m, 40) float64 frames (``ins.frames``): the fields of
        :data:`FRAME_LAYOUT`, EInsField order."""
        m = block["sample_time_s"].shape[0]
        if self._constant_columns[0] != m:  # the constants' columns, kept for blocks of m epochs
            self._constant_columns = (
                m,
                {k: np.full((m, 1), v) for k, v in self._frame_constants.items()},
            )
        constants = self._constant_columns[1]
        if self.states is not None:  # the aided INS: the status follows the state
            status = np.asarray(self.fix_status(block), dtype=np.float64)[:, None]
            constants = {**constants, "fix_status": status}
        parts = [
            constants[key] if key in constants else block[key][:, None] if one else block[key]
            for key, one in _FRAME_PARTS
        ]
        out = np.concatenate(parts, axis=1)
        if out.shape[1] != INS_FIELD_COUNT:  # pragma: no cover - layout guard
            raise FormatError(f"INS frame has {out.shape[1]} fields, expected {INS_FIELD_COUNT}")
        return out
