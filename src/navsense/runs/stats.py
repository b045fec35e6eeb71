"""Error statistics of one run directory: GNSS receiver and INS against the truth.

The one implementation of a run's statistics: ``navsense campaign`` records them per run
(``navsense.campaign.stats`` re-exports this module) and ``navsense report`` shows them.

``run_statistics(run_dir) -> dict[str, float]`` reads ``episode.json``, the GNSS rows, the INS
rows' sample times and ``ins.frames`` of a run directory written by
:func:`navsense.simulate.simulate` (JSON Lines or Parquet, :class:`navsense.runs.reader.RunReader`),
and returns flat statistics, always the keys of
:data:`STATISTICS_KEYS` in that order. A statistic without data (a fix state never reached, a
sensor turned off, no truth for an error that needs it) is ``nan``. Counts are floats too, so the
dict is ``dict[str, float]``.

Where the truth is: :mod:`navsense.runs.truth` (:func:`find_truth`).

Truth used (DESIGN.md "Data contracts"; CONTRACTS.md "Lever arms"):

- GNSS: the truth antenna position at the epoch's physics step k = round(t sample_rate),
  ``p_a = p + R r_a`` (:func:`navsense.sky.obstruction.antenna_position_enu`) with
  ``r_a = lever_arm_from_chassis(gnss.antenna_flu_m, mount_frame, vehicle)`` of the run's
  configuration and vehicle. A truth log is streamed chunk by chunk for the epochs' rows. The
  error is ``e = position_enu_m - p_a`` (grid ENU, m); horizontal ``|e_h| = hypot(e_E, e_N)``,
  vertical ``|e_U|``.
- INS position and attitude: the frame's own truth fields (``ins.frames``, no truth source
  needed): position error ``(InsUtmE, InsUtmN, InsUtmH) - (InsTruthX, InsTruthY, InsTruthZ)``
  (UTM grid and ellipsoidal height of ins.frame, m; the INS covariance is
  ``diag(s2, s2, 2.25 s2)``, round in the horizontal, so the grid rotation between UTM and grid
  ENU axes changes neither the norms nor the sigma tests), attitude error between ``InsUtmQ``
  and ``InsTruthQ`` (both ``q_z(-alpha) q``, so the grid rotation cancels).
- INS velocity: ``(InsVelX, InsVelY, InsVelZ) - R^T v_n`` with ``v_n = v + w x (p_n - p_c)`` and
  ``p_n = p + R r_n`` (specification "INS", "Truth at the INS Point"), ``r_n`` the run's
  ``episode.json`` ``ins.point_chassis_flu_m``; body FLU axes, m/s.

Statistics (``<state>`` is one of rtk_fixed, rtk_float, dgps, single, no_fix; ``<pos>`` one of
rtk_fixed, rtk_float, dgps, single and ``any_fix``, every epoch with a position)::

    duration_s                      simulated time: (physics steps - 1) / physics rate, s
    gnss_epochs                     GNSS epochs (rows of gnss.jsonl)
    gnss_time_to_first_fix_s        first epoch in a state other than no_fix, from the first epoch
    gnss_time_to_rtk_fixed_s        first rtk_fixed epoch, from the first epoch (nan: never)
    gnss_<state>_time_s             epochs in the state / gnss.hz, s
    gnss_<state>_fraction           epochs in the state / epochs
    gnss_<pos>_h_rms_m, _h_p95_m    horizontal error: RMS and 95th percentile, m
    gnss_<pos>_v_rms_m, _v_p95_m    vertical error: RMS and 95th percentile of |e_U|, m
    gnss_<pos>_h_in_1sigma, _2sigma fraction of epochs with (e_E/s_E)^2 + (e_N/s_N)^2 <= k^2,
                                    s = the row's sigma_enu_m (a consistent 2-D Gaussian error
                                    gives 0.393 and 0.865); for these tests each component of e
                                    is first shrunk by 0.05 mm, the rounding of position_enu_m
    gnss_<pos>_v_in_1sigma, _2sigma fraction with |e_U| <= k s_U (Gaussian: 0.683, 0.954)
    ins_epochs                      INS epochs (frames)
    ins_pos_h_rms_m, _h_p95_m, ins_pos_v_rms_m, _v_p95_m     as for the GNSS
    ins_pos_h_in_1sigma .. ins_pos_v_in_2sigma   as for the GNSS, s^2 = InsCovE, InsCovN, InsCovU
    ins_vel_rms_mps, ins_vel_p95_mps            3-D velocity error norm: RMS, 95th percentile
    ins_vel_in_1sigma, _2sigma      fraction of velocity error components with |e| <= k s_v
    ins_att_rms_deg, ins_att_p95_deg            total attitude error angle, deg
    ins_heading_rms_deg, ins_roll_rms_deg, ins_pitch_rms_deg   differences of the z-y-x Euler
                                    angles (yaw, pitch, roll) of InsUtmQ and InsTruthQ, deg
    ins_heading_in_1sigma, _2sigma  fraction with |heading error| <= k s_psi
    ins_tilt_in_1sigma, _2sigma     fraction of roll and pitch errors with |e| <= k s_theta

The INS reports a position covariance but no velocity or attitude one, so the velocity and
attitude sigmas are the configured ones: s_v = ins.velocity_white_mps, s_psi =
ins.heading_sigma_deg, s_theta = ins.attitude_sigma_deg (all zero when ``noise`` is false; then
an error of exactly 0 counts as inside).
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np

from navsense.errors import FormatError
from navsense.runs.episode import Episode
from navsense.runs.reader import FLOAT, TEXT, RunReader, vector
from navsense.runs.truth import (
    RUN_TRUTH_FILE,
    TruthSource,
    TruthTable,
    find_truth,
    truth_at_steps,
    truth_table,
)
from navsense.truth.states import TruthStates

__all__ = [
    "EXPECTED_GAUSSIAN_FRACTIONS",
    "GNSS_STATES",
    "POSITION_GROUPS",
    "RUN_TRUTH_FILE",
    "STATISTICS_INS_FIELDS",
    "STATISTICS_KEYS",
    "STATISTICS_VERSION",
    "TruthSource",
    "find_truth",
    "position_statistics",
    "run_statistics",
    "truth_at_steps",
]

#: Version of the definitions below: a campaign does again the runs whose recorded statistics
#: have another version. Increase it when a statistic changes its meaning or its computation.
STATISTICS_VERSION = 1

#: Fix states of gnss.jsonl's fix_type, best first.
GNSS_STATES = ("rtk_fixed", "rtk_float", "dgps", "single", "no_fix")
#: The groups of epochs with a position (every fix state but no_fix, and all of them together).
POSITION_GROUPS = ("rtk_fixed", "rtk_float", "dgps", "single", "any_fix")

#: Fractions inside k sigma of a consistent Gaussian error: 2-D (horizontal, chi-square with
#: 2 degrees of freedom: 1 - exp(-k^2 / 2)) and 1-D (erf(k / sqrt 2)).
EXPECTED_GAUSSIAN_FRACTIONS = {
    "h_in_1sigma": 1.0 - math.exp(-0.5),
    "h_in_2sigma": 1.0 - math.exp(-2.0),
    "v_in_1sigma": math.erf(1.0 / math.sqrt(2.0)),
    "v_in_2sigma": math.erf(2.0 / math.sqrt(2.0)),
}

_POSITION_STATS = (
    "h_rms_m",
    "h_p95_m",
    "v_rms_m",
    "v_p95_m",
    "h_in_1sigma",
    "h_in_2sigma",
    "v_in_1sigma",
    "v_in_2sigma",
)
_INS_KEYS = (
    "ins_epochs",
    *(f"ins_pos_{s}" for s in _POSITION_STATS),
    "ins_vel_rms_mps",
    "ins_vel_p95_mps",
    "ins_vel_in_1sigma",
    "ins_vel_in_2sigma",
    "ins_att_rms_deg",
    "ins_att_p95_deg",
    "ins_heading_rms_deg",
    "ins_roll_rms_deg",
    "ins_pitch_rms_deg",
    "ins_heading_in_1sigma",
    "ins_heading_in_2sigma",
    "ins_tilt_in_1sigma",
    "ins_tilt_in_2sigma",
)
_GNSS_KEYS = (
    "gnss_epochs",
    "gnss_time_to_first_fix_s",
    "gnss_time_to_rtk_fixed_s",
    *(f"gnss_{state}_{what}" for state in GNSS_STATES for what in ("time_s", "fraction")),
    *(f"gnss_{group}_{s}" for group in POSITION_GROUPS for s in _POSITION_STATS),
)
#: Every key of :func:`run_statistics`, in order.
STATISTICS_KEYS: tuple[str, ...] = ("duration_s", *_GNSS_KEYS, *_INS_KEYS)

#: The run's own truth in its directory (``navsense simulate --save-truth``, ``--track``).

_NAN = float("nan")
_GNSS_COLUMNS = {
    "sample_time_s": FLOAT,
    "fix_type": TEXT,
    "position_enu_m": vector(3),
    "sigma_enu_m": vector(3),
}


def run_statistics(
    run_dir: str | os.PathLike | RunReader,
    truth: TruthStates | None = None,
    *,
    search_truth: bool = True,
) -> dict[str, float]:
    """GNSS and INS error statistics of the run directory ``run_dir`` (module docstring; or of
    a :class:`~navsense.runs.reader.RunReader` of it, whose cache then serves what the
    caller read already).

    ``truth`` is the run's truth if the caller holds it (it must cover the run's physics steps);
    without it the truth is the one :func:`find_truth` finds, unless ``search_truth`` is false
    (then, as without any truth source, the statistics that need the truth are ``nan``). Returns
    a new dict with the keys of :data:`STATISTICS_KEYS`, in that order, float values (``nan``:
    no data). Raises :class:`~navsense.errors.FormatError` if a file of the run is missing or
    malformed or the truth does not cover the run's epochs, and the truth readers' errors if a
    named truth source cannot be read.
    """
    reader = _reader(run_dir)
    run = reader.path
    episode = reader.episode
    rate_hz = episode.physics_hz
    out = dict.fromkeys(STATISTICS_KEYS, _NAN)
    out["duration_s"] = episode.duration_s

    gnss = _read_gnss(reader, rate_hz) if reader.has("gnss") else None
    ins = _read_ins(reader, rate_hz) if reader.has_ins_frames() else None
    steps = []
    if gnss is not None:
        steps.append(gnss["steps"])
    if ins is not None:
        steps.append(ins["steps"])
    if not steps:
        return out
    wanted = _sorted_unique(np.concatenate(steps))
    source: TruthStates | TruthSource | None = truth
    if source is None and search_truth:
        source = find_truth(run, episode)
    rows = None if source is None else truth_table(source, wanted, rate_hz, where=episode.where)
    if gnss is not None:
        out.update(_gnss_statistics(gnss, episode, rows))
    if ins is not None:
        out.update(_ins_statistics(ins, episode, rows))
    return out


# ------------------------------------------------------------------------------------- reading
def _reader(run_dir) -> RunReader:
    if isinstance(run_dir, RunReader):  # the caller's reader (its cache: what it read already)
        return run_dir
    run = Path(run_dir)
    if not run.is_dir():
        raise FormatError(f"{run}: not a run directory (not found)")
    return RunReader(run)


def _sorted_unique(steps: np.ndarray) -> np.ndarray:
    """np.unique of int64 steps by a sort (numpy 2.4's hashing np.unique is ~80x slower on
    an hour's 400 000 steps: 0.38 s against 5 ms)."""
    s = np.sort(steps)
    return s[np.concatenate([[True], s[1:] != s[:-1]])] if s.size else s


def _steps_of(t_s: np.ndarray, rate_hz: float) -> np.ndarray:
    """Physics steps of sample times (the rows' times are rounded to 1 ns)."""
    return np.rint(t_s * rate_hz).astype(np.int64)


def _read_gnss(run: RunReader, rate_hz: float) -> dict:
    got = run.columns("gnss", _GNSS_COLUMNS)
    t = got["sample_time_s"]
    return {
        "t_s": t,
        "steps": _steps_of(t, rate_hz),
        "fix_type": got["fix_type"],
        "position_enu_m": got["position_enu_m"],
        "sigma_enu_m": got["sigma_enu_m"],
    }


#: The ins.frames fields that :func:`run_statistics` reads (a reader with a cache that reads
#: these together with its own reads the file once).
STATISTICS_INS_FIELDS = (
    *(f"InsUtm{c}" for c in ("E", "N", "H", "Qx", "Qy", "Qz", "Qw")),
    *(f"InsTruth{c}" for c in ("X", "Y", "Z", "Qx", "Qy", "Qz", "Qw")),
    *(f"InsCov{c}" for c in "ENU"),
    *(f"InsVel{c}" for c in "XYZ"),
)


def _read_ins(run: RunReader, rate_hz: float) -> dict:
    fields, times = run.ins_fields(STATISTICS_INS_FIELDS)
    t = times[:, 0]
    return {"t_s": t, "steps": _steps_of(t, rate_hz), "fields": fields}


# ------------------------------------------------------------------------------ the statistics
#: rows of the statistics' row-wise equations at a time: their temporaries (a few dozen arrays
#: of a block) stay in the cache and are reused, where arrays of all an hour's 360 000 INS
#: epochs cost a page fault every 4 KiB and 0.2 GB of memory at the report's peak
_BLOCK_ROWS = 1 << 14


def _rms(x: np.ndarray) -> float:
    return float(np.sqrt(np.mean(x * x))) if x.size else _NAN


def _p95(x: np.ndarray, overwrite: bool = False) -> float:
    """The 95th percentile (linear interpolation); ``overwrite``: x may be reordered (no copy)."""
    return float(np.percentile(x, 95.0, overwrite_input=overwrite)) if x.size else _NAN


def _fraction(mask: np.ndarray) -> float:
    return float(np.count_nonzero(mask) / mask.size) if mask.size else _NAN


def position_statistics(
    e: np.ndarray, sigma: np.ndarray, rounding_m: float = 0.0
) -> dict[str, float]:
    """RMS, p95 and sigma fractions of position errors e (m, 3) with one-sigmas (m, 3),
    ENU-like: the keys ``h_rms_m .. v_in_2sigma`` of the module docstring (the horizontal sigma
    test is 2-D, :data:`EXPECTED_GAUSSIAN_FRACTIONS`); nan when m = 0.

    ``rounding_m``: half the last decimal of the written positions; for the sigma tests each
    error component is first shrunk towards 0 by it (the part the rounding may explain), so a
    run with noise off (sigma 0, error only rounding) counts as inside.

    The row-wise part (|e_h|, |e_U| and the sigma tests' counts) is evaluated a block of
    :data:`_BLOCK_ROWS` rows at a time, so its temporaries stay in the cache (an hour's INS
    epochs: a dozen arrays of 3 to 9 MB otherwise); RMS and percentiles over all rows.
    """
    m = e.shape[0]
    h = np.empty(m)
    v = np.empty(m)
    inside = np.zeros(4, dtype=np.int64)  # h 1 sigma, h 2 sigma, v 1 sigma, v 2 sigma
    for lo in range(0, m, _BLOCK_ROWS):
        eb, sb = e[lo : lo + _BLOCK_ROWS], sigma[lo : lo + _BLOCK_ROWS]
        np.hypot(eb[:, 0], eb[:, 1], out=h[lo : lo + eb.shape[0]])
        np.abs(eb[:, 2], out=v[lo : lo + eb.shape[0]])
        a = np.maximum(np.abs(eb) - rounding_m, 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            ne = np.where(a[:, 0] == 0.0, 0.0, a[:, 0] / sb[:, 0])
            nn = np.where(a[:, 1] == 0.0, 0.0, a[:, 1] / sb[:, 1])
        m2 = ne * ne + nn * nn  # inf when sigma is 0 and the error is not
        inside += (
            np.count_nonzero(m2 <= 1.0),
            np.count_nonzero(m2 <= 4.0),
            np.count_nonzero(a[:, 2] <= sb[:, 2]),
            np.count_nonzero(a[:, 2] <= 2.0 * sb[:, 2]),
        )
    fractions = [float(c / m) if m else _NAN for c in inside.tolist()]
    return {
        "h_rms_m": _rms(h),
        "h_p95_m": _p95(h, overwrite=True),
        "v_rms_m": _rms(v),
        "v_p95_m": _p95(v, overwrite=True),
        "h_in_1sigma": fractions[0],
        "h_in_2sigma": fractions[1],
        "v_in_1sigma": fractions[2],
        "v_in_2sigma": fractions[3],
    }


def _gnss_statistics(gnss: dict, episode: Episode, rows: TruthTable | None) -> dict[str, float]:
    from navsense.output.layouts.gnss import ROW_DECIMALS
    from navsense.sky.obstruction import antenna_position_enu

    out: dict[str, float] = {}
    fix = gnss["fix_type"]
    t = gnss["t_s"]
    n = fix.shape[0]
    out["gnss_epochs"] = float(n)
    if n == 0:
        return out
    hz = episode.gnss_config.hz
    has_fix = fix != "no_fix"
    if has_fix.any():
        out["gnss_time_to_first_fix_s"] = float(t[np.argmax(has_fix)] - t[0])
    fixed = fix == "rtk_fixed"
    if fixed.any():
        out["gnss_time_to_rtk_fixed_s"] = float(t[np.argmax(fixed)] - t[0])
    for state in GNSS_STATES:
        count = int(np.count_nonzero(fix == state))
        out[f"gnss_{state}_time_s"] = count / hz
        out[f"gnss_{state}_fraction"] = count / n
    if rows is None:  # no truth: the errors stay nan
        return out

    truth = rows.at(gnss["steps"], ("p_m", "q_xyzw"))
    lever = episode.mount_point("gnss", "antenna_flu_m")
    p_a = antenna_position_enu(truth["p_m"], truth["q_xyzw"], lever)
    e = gnss["position_enu_m"] - p_a
    sigma = gnss["sigma_enu_m"]
    rounding_m = 0.5 * 10.0 ** -ROW_DECIMALS["position_m"]  # position_enu_m has 4 decimals
    for group in POSITION_GROUPS:
        mask = has_fix if group == "any_fix" else fix == group
        for key, value in position_statistics(e[mask], sigma[mask], rounding_m).items():
            out[f"gnss_{group}_{key}"] = value
    return out


def _ins_statistics(ins: dict, episode: Episode, rows: TruthTable | None) -> dict:
    """The ins_* statistics (module docstring). The equations are row-wise, so they are
    evaluated a block of :data:`_BLOCK_ROWS` epochs at a time (the same values as on whole
    arrays); the statistics (RMS, percentiles, fractions) are then taken over all epochs."""
    from navsense.rotation import euler_zyx_of_quat, quat_conjugate, quat_multiply, wrap_angle
    from navsense.truth.points import point_kinematics

    fields = ins["fields"]
    steps = ins["steps"]
    solution = np.isfinite(fields["InsUtmE"])
    out: dict[str, float] = {"ins_epochs": float(solution.shape[0])}
    if not solution.all():  # an aided INS before initialisation (ins.aiding "gnss"): left out
        fields = {k: v[solution] for k, v in fields.items()}
        steps = steps[solution]
    m = steps.shape[0]
    if m == 0:
        return out

    def columns(names, out: np.ndarray, fn=None) -> np.ndarray:
        """``out`` (m, len(names)): the fields ``names``, or ``fn`` of each (into ``out``)."""
        for j, name in enumerate(names):
            if fn is None:
                out[:, j] = fields[name]
            else:
                fn(fields[name], out=out[:, j])
        return out

    # position: the frame's errored and truth points, UTM E, N and ellipsoidal height
    e = columns(("InsUtmE", "InsUtmN", "InsUtmH"), np.empty((m, 3)))
    e -= columns(("InsTruthX", "InsTruthY", "InsTruthZ"), np.empty((m, 3)))
    sigma = columns(("InsCovE", "InsCovN", "InsCovU"), np.empty((m, 3)), np.sqrt)
    for key, value in position_statistics(e, sigma).items():
        out[f"ins_pos_{key}"] = value
    del e, sigma

    ins_cfg = episode.ins_config
    noise = 1.0 if ins_cfg.noise else 0.0
    r_n = episode.ins_point_chassis_m
    q_names = tuple(f"InsUtmQ{c}" for c in "xyzw"), tuple(f"InsTruthQ{c}" for c in "xyzw")
    angle = np.empty(m)
    d_euler = np.empty((m, 3))  # yaw, pitch, roll
    e_v = None if rows is None else np.empty((m, 3))
    q_ins, q_true = np.empty((_BLOCK_ROWS, 4)), np.empty((_BLOCK_ROWS, 4))
    for lo in range(0, m, _BLOCK_ROWS):
        hi = min(lo + _BLOCK_ROWS, m)
        block = {k: v[lo:hi] for k, v in fields.items()}
        n = hi - lo
        # attitude: InsUtmQ against InsTruthQ (both in the UTM grid axes)
        for j in range(4):
            q_ins[:n, j] = block[q_names[0][j]]
            q_true[:n, j] = block[q_names[1][j]]
        dq = quat_multiply(quat_conjugate(q_true[:n]), q_ins[:n])
        angle[lo:hi] = np.degrees(
            2.0 * np.arctan2(np.linalg.norm(dq[:, :3], axis=1), np.abs(dq[:, 3]))
        )
        d_euler[lo:hi] = np.degrees(
            np.abs(wrap_angle(euler_zyx_of_quat(q_ins[:n]) - euler_zyx_of_quat(q_true[:n])))
        )
        # velocity: body FLU, against R^T v_n at the INS point (needs the truth)
        if e_v is not None and rows is not None:
            truth = rows.at(steps[lo:hi])
            v_body = point_kinematics(truth, r_n)["velocity_body_mps"]
            for j, c in enumerate("XYZ"):
                np.subtract(block[f"InsVel{c}"], v_body[:, j], out=e_v[lo:hi, j])

    heading, pitch, roll = d_euler[:, 0], d_euler[:, 1], d_euler[:, 2]
    s_psi = noise * ins_cfg.heading_sigma_deg
    s_theta = noise * ins_cfg.attitude_sigma_deg
    tilt = np.concatenate([roll, pitch])
    out.update(
        ins_att_rms_deg=_rms(angle),
        ins_att_p95_deg=_p95(angle, overwrite=True),  # after its RMS, its last use
        ins_heading_rms_deg=_rms(heading),
        ins_roll_rms_deg=_rms(roll),
        ins_pitch_rms_deg=_rms(pitch),
        ins_heading_in_1sigma=_fraction(heading <= s_psi),
        ins_heading_in_2sigma=_fraction(heading <= 2 * s_psi),
        ins_tilt_in_1sigma=_fraction(tilt <= s_theta),
        ins_tilt_in_2sigma=_fraction(tilt <= 2 * s_theta),
    )
    if e_v is None:
        return out
    s_v = noise * ins_cfg.velocity_white_mps
    norm_v = np.sqrt(np.sum(e_v * e_v, axis=1))
    a_v = np.abs(e_v).ravel()
    out.update(
        ins_vel_rms_mps=_rms(norm_v),
        ins_vel_p95_mps=_p95(norm_v, overwrite=True),  # after its RMS, its last use
        ins_vel_in_1sigma=_fraction(a_v <= s_v),
        ins_vel_in_2sigma=_fraction(a_v <= 2 * s_v),
    )
    return out
