"""The truth at a point of the rigid chassis: its position and its body-frame velocity.

Specification "INS and GNSS", section "INS", "Truth at the INS Point" (the same rigid-body
equation the IMU, the INS and the odometer use for their points)::

    p_P = p + R r_P,    v_P = v + w x (p_P - p_c),    v_P^b = R^T v_P,    w^b = R^T w

    p, R     chassis origin (grid ENU, m) and rotation body FLU -> ENU (from q_xyzw)
    v, w     centre-of-mass velocity (m/s) and angular velocity (rad/s), world axes
    p_c      centre of mass (grid ENU, m)
    r_P      the point's lever arm, body FLU from the chassis origin (m)

For the readers of a run (statistics, the ROS 2 bag's ground truth), on the rows of
:func:`navsense.runs.stats.truth_at_steps` (``p_m``, ``q_xyzw``, ``v_mps``, ``w_radps``, ``c_m``).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from navsense.rotation import cross, quat_to_matrix, rotate, rotate_inverse

__all__ = ["point_kinematics"]


def point_kinematics(rows: Mapping[str, np.ndarray], r_point_m) -> dict[str, np.ndarray]:
    """The point ``r_point_m`` (3,) (body FLU from the chassis origin) of truth ``rows``:
    ``position_m`` p_P, ``velocity_mps`` v_P (world axes), ``velocity_body_mps`` R^T v_P and
    ``angular_body_radps`` R^T w, each (m, 3)."""
    p = np.asarray(rows["p_m"], dtype=np.float64).reshape(-1, 3)
    r = quat_to_matrix(np.asarray(rows["q_xyzw"], dtype=np.float64).reshape(-1, 4))
    arm = np.asarray(r_point_m, dtype=np.float64)
    p_point = p + rotate(r, arm)
    v_point = rows["v_mps"] + cross(rows["w_radps"], p_point - rows["c_m"])
    return {
        "position_m": p_point,
        "velocity_mps": v_point,
        "velocity_body_mps": rotate_inverse(r, v_point),
        "angular_body_radps": rotate_inverse(r, rows["w_radps"]),
    }
