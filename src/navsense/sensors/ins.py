"""The INS: an OxTS-style unit that reports one point of the vehicle (``ins.jsonl``, ``ins.frames``).

Specification "INS and GNSS", section "INS" (FAcresSensorRecorder::InsEpoch) and section "ACRES
Core INS"; CoreSimIns.h (FInsConfig, FInsModel, EInsField). The INS is the truth with errors: no
inertial mechanisation, no alignment, no GNSS outage.

Truth at the INS point (section "INS", "Truth at the INS Point")::

    p_n = p + R r_n,        v_n = v + w x (p_n - p_c)

    p, R     chassis origin (grid ENU, m) and rotation body FLU -> ENU
    v, w     centre-of-mass velocity (m/s) and angular velocity (rad/s), world axes
    p_c      centre of mass (grid ENU, m)
    r_n      lever arm of the INS point, body FLU from the chassis origin: ins.position_flu_m
             converted from ``mount_frame`` (DESIGN.md ruling "Mounts")

Errors (section "INS", "Errors"): six unit first-order Gauss-Markov states x_1..x_6 (east,
north, up, heading, roll, pitch)::

    a = exp(-dt / tau_p),   x_j,k = a x_j,k-1 + sqrt(1 - a^2) g_j,k
    first epoch: x_j = g_j and dt = 1/f (stationary start)

    p_ins = p_n + sigma_p (x_1, x_2, 1.5 x_3) + sigma_pw g_p
    dpsi = sigma_psi x_4,   dphi = sigma_theta x_5,   dtheta = sigma_theta x_6
    q_ins = q_z(dpsi) q_true q_y(dtheta) q_x(dphi)
    v_ins = R^T v_n + sigma_v g_v
    w_ins = R^T w + sigma_w g_w
    f_ins = R^T ((v_n,k - v_n,k-1) / dt + (0, 0, 9.80665)) + sigma_f g_f

    dt       time since the previous INS epoch (t_k - t_k-1), s; 1/f on the first epoch
    tau_p    position_tau_s;  sigma_p position_sigma_m;  sigma_pw position_white_m
    sigma_psi, sigma_theta   heading_sigma_deg, attitude_sigma_deg (converted to rad)
    sigma_v, sigma_f, sigma_w   velocity_white_mps, accel_white_mps2, gyro_white_radps
    g_*      standard normal values of the INS stream

The first epoch and the first epoch after a reset report gravity alone, f_ins = R^T (0, 0, g)
+ sigma_f g_f (a reset flag at any physics step after the previous INS epoch, up to and including
the epoch's own step, counts; the streaming API's Ins.teleported sets the same flag).
The body axes of navsense's truth are FLU already, so the specification's FLU() is the identity.

Random values (section "Seeds and Determinism"; DESIGN.md ruling "Random values per epoch"): the
stream Pcg32(seed + 5045 + 7919 agent, 6) (5045 = 5 x 1009, CoreSimIns.h; agent 0 is the game's
stream) gives 18 Gaussians an epoch, in this order: 6 for the states, 3 position, 3 velocity,
3 specific force, 3 angular rate. They are drawn in every epoch, also with noise off
(cfg["noise"] False zeroes every sigma and the covariance, and moves no draw).

Fix and UTM odometry (section "INS", "Fix and UTM Odometry")::

    (lat, lon, h) = datum chain (p_ins, t) in ins.frame
        nad83       -> NAD83(2011) latitude, longitude and ellipsoidal height
        wgs84_g2139 -> WGS84 (G2139) at the epoch, WGS84 ellipsoidal height
    (E, N) = UTM(lat, lon, ins.utm_zone)          (GeographicToUtm)
    alpha = atan2(E_2 - E_1, N_2 - N_1)           point 2: 10 m grid-north of p_ins, every epoch
    q_utm = q_z(-alpha) q_ins
    fix status 2 (RTK), service 1 (GPS)
    cov = diag(s2, s2, 2.25 s2),  s2 = sigma_p^2 + sigma_pw^2

Truth fields of the frame (DESIGN.md ruling "INS heights"): the truth INS point p_n through the
same chain and projection (UTM E, N and ellipsoidal height of ins.frame), the truth attitude
q_z(-alpha) q_true with the epoch's alpha, and |v_n|.

Implementation. One kernel (:class:`InsCore`) evaluates the equations for a block of epochs
with numpy; :class:`InsModel` (batch / chunks, the contract of CONTRACTS.md) and
navsense.ins_stream.Ins (the streaming API of FInsModel: one epoch a call) both call it, so they
give identical numbers. The
Gauss-Markov recursion is a tight scalar loop (the literal recursion, one multiply and one add an
epoch and state): dt varies from epoch to epoch (100 Hz on the 120 Hz clock gives steps of 1 and
2 physics steps), so a constant-coefficient filter does not apply, and any reassociated scan would
make the numbers depend on where a log is cut. Every other operation is elementwise, so an epoch's
values do not depend on how many epochs share a call (batch = chunks = steps, bit for bit).

Outputs: the model returns its epochs as SI arrays (the keys of :meth:`InsCore.run`); the rows of
``ins.jsonl`` and the 40-value frames of ``ins.frames`` (EInsField order) are laid out by
navsense.output.layouts.ins from these arrays and :meth:`InsModel.output_info`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from navsense.clock import Due
from navsense.config.typed.ins import InsConfig
from navsense.constants import GRAVITY_MPS2
from navsense.errors import ConfigError
from navsense.gauss_markov import GaussMarkovStates
from navsense.rng import Pcg32
from navsense.rotation import (
    about_axis_floats as _q_about,
)
from navsense.rotation import (
    cross,
    quat_about_x,
    quat_about_y,
    quat_about_z,
    quat_multiply,
    quat_to_matrix,
    rotate,
    rotate_inverse,
)
from navsense.rotation import (
    matrix_floats as _matrix_of,
)
from navsense.rotation import (
    multiply_floats as _qmul,
)
from navsense.truth.states import TruthStates
from navsense.vehicles import VehicleProfile, lever_arm_from_chassis

__all__ = [
    "InsConfig",
    "InsCore",
    "InsModel",
    "INS_SEED_OFFSET",
    "AGENT_SEED_STRIDE",
    "INS_SEQUENCE",
    "DRAWS_PER_EPOCH",
    "INS_FRAMES",
]

INS_SEED_OFFSET = 5045  # spec "Seeds and Determinism": RngIns seed + 5045 (CoreSimIns.h: 5 x 1009)
AGENT_SEED_STRIDE = 7919  # spec "ACRES Core INS": seed + 5045 + 7919 x agent index
INS_SEQUENCE = 6  # spec "Seeds and Determinism": RngIns sequence 6
DRAWS_PER_EPOCH = 18  # spec "INS": 18 Gaussian values an epoch
UP_SIGMA_FACTOR = 1.5  # spec "INS": the up axis uses 1.5 sigma_p
_GM_POSITION_SCALE = np.array([1.0, 1.0, UP_SIGMA_FACTOR])  # (x1, x2, 1.5 x3): 1.0 x is x exactly
COV_UP_FACTOR = 2.25  # spec "INS": cov = diag(s2, s2, 2.25 s2)
_DEG = math.pi / 180.0

# ins.frame -> (geo frame name, keys of Georeference.enu_to_geodetic: lat, lon, height)
INS_FRAMES: dict[str, tuple[str, str, str, str]] = {
    "nad83": ("nad83_2011", "nad83_2011_lat_deg", "nad83_2011_lon_deg", "nad83_2011_height_m"),
    "wgs84_g2139": ("wgs84_g2139", "wgs84_lat_deg", "wgs84_lon_deg", "wgs84_height_m"),
}


@dataclass(frozen=True)
class _Sigmas:
    """The error magnitudes in SI units; all zero with noise off."""

    position_m: float
    position_white_m: float
    heading_rad: float
    attitude_rad: float
    velocity_mps: float
    accel_mps2: float
    gyro_radps: float

    @classmethod
    def of(cls, c: InsConfig) -> _Sigmas:
        k = 1.0 if c.noise else 0.0
        return cls(
            position_m=k * c.position_sigma_m,
            position_white_m=k * c.position_white_m,
            heading_rad=k * (c.heading_sigma_deg * _DEG),
            attitude_rad=k * (c.attitude_sigma_deg * _DEG),
            velocity_mps=k * c.velocity_white_mps,
            accel_mps2=k * c.accel_white_mps2,
            gyro_radps=k * c.gyro_white_radps,
        )

    @property
    def fix_variance_m2(self) -> float:
        """s2 = sigma_p^2 + sigma_pw^2 (spec "Fix and UTM Odometry")."""
        return self.position_m**2 + self.position_white_m**2


# ------------------------------------------------------------------- elementwise vector algebra
# navsense.rotation's helpers are written term by term, so a value never depends on how many rows
# share a call: R v = rotate, R^T v = rotate_inverse, a x b = cross.
def _columns3(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """(m, 3) from three (m,) columns."""
    out = np.empty((a.shape[0], 3))
    out[:, 0], out[:, 1], out[:, 2] = a, b, c
    return out


def _norm(v: np.ndarray) -> np.ndarray:
    """|v|, rows (m, 3) -> (m,)."""
    return np.sqrt(v[:, 0] * v[:, 0] + v[:, 1] * v[:, 1] + v[:, 2] * v[:, 2])


# ---------------------------------------------------------------------------------- the kernel
_BLOCK_SHAPES: dict[str, tuple[int, ...]] = {
    "sample_time_s": (),
    "dt_s": (),
    "gravity_only": (),
    "error_states": (6,),
    "position_enu_m": (3,),
    "orientation_enu_xyzw": (4,),
    "velocity_flu_mps": (3,),
    "angular_velocity_flu_radps": (3,),
    "specific_force_flu_mps2": (3,),
    "lat_deg": (),
    "lon_deg": (),
    "height_m": (),
    "utm_m": (3,),
    "orientation_utm_xyzw": (4,),
    "grid_rotation_deg": (),
    "covariance_enu_m2": (3,),
    "truth_position_enu_m": (3,),
    "truth_utm_m": (3,),
    "truth_orientation_utm_xyzw": (4,),
    "truth_speed_mps": (),
}


def _empty_block() -> dict[str, np.ndarray]:
    block = {k: np.zeros((0,) + s) for k, s in _BLOCK_SHAPES.items()}
    block["gravity_only"] = np.zeros(0, dtype=bool)
    return block


class InsCore:
    """The INS equations over a block of epochs, with the state carried between blocks.

    State: the six Gauss-Markov states, the time and INS-point velocity of the previous epoch,
    a pending reset flag and the random stream.
    """

    def __init__(self, config: InsConfig, georef, agent: int = 0) -> None:
        if isinstance(agent, bool) or int(agent) != agent or agent < 0:
            raise ConfigError(f"agent = {agent} is not an integer >= 0")
        self.config = config
        self.georef = georef
        self.agent = int(agent)
        self.sigmas = _Sigmas.of(config)
        self.stream_seed = config.seed + INS_SEED_OFFSET + AGENT_SEED_STRIDE * self.agent
        self.rng = Pcg32(self.stream_seed, INS_SEQUENCE)
        self.period_s = 1.0 / float(config.hz)
        self.geo_frame = INS_FRAMES[config.frame][0]
        # a site south of the equator uses the southern UTM (false northing 10 000 km)
        self._south = bool(georef is not None and georef.site_wgs84_lat_lon_h()[0] < 0.0)
        self.states = GaussMarkovStates(6)  # the Gauss-Markov states x_1..x_6
        self.t_prev: float | None = None  # time of the previous epoch (None: no epoch yet)
        self.v_prev = [0.0, 0.0, 0.0]  # INS-point velocity of the previous epoch, world m/s
        self.reset_pending = False  # a reset since the previous epoch

    def output_info(self) -> dict:
        """What the layout needs (navsense.output.layouts.ins): the fix's datum and the UTM zone."""
        return {"datum": self.geo_frame, "utm_zone": self.config.utm_zone}

    def run(self, t_s, p_n, q_xyzw, c_m, v_mps, w_radps, reset) -> dict[str, np.ndarray]:
        """Epochs at times t_s (m,): INS point p_n (m, 3), attitude (m, 4), centre of mass,
        centre-of-mass velocity, angular velocity (m, 3), reset since the previous epoch (m,)."""
        m = t_s.shape[0]
        if m == 0:
            return _empty_block()
        s = self.sigmas
        # spec "INS": 18 values an epoch: 6 states, 3 position, 3 velocity, 3 force, 3 rate
        g = self.rng.gaussians(DRAWS_PER_EPOCH * m).reshape(m, DRAWS_PER_EPOCH)
        g_x, g_p, g_v, g_f, g_w = g[:, 0:6], g[:, 6:9], g[:, 9:12], g[:, 12:15], g[:, 15:18]

        # dt: time since the previous INS epoch; 1/f on the first epoch
        t_before = np.empty(m)
        t_before[1:] = t_s[:-1]
        first = self.t_prev is None
        t_before[0] = t_s[0] - self.period_s if first else self.t_prev
        dt = t_s - t_before
        if first:
            dt[0] = self.period_s  # exactly 1/f, not t_0 - (t_0 - 1/f)

        # Errors: a = exp(-dt / tau_p), x_k = a x_k-1 + sqrt(1 - a^2) g; first epoch x = g
        a = np.exp(-dt / self.config.position_tau_s)
        if first:
            a[0] = 0.0
        x = self.states.run(a, g_x)

        r = quat_to_matrix(q_xyzw)
        # Truth at the INS point: v_n = v + w x (p_n - p_c)
        v_n = v_mps + cross(w_radps, p_n - c_m)

        # p_ins = p_n + sigma_p (x1, x2, 1.5 x3) + sigma_pw g_p
        gm_pos = x[:, 0:3] * _GM_POSITION_SCALE
        p_ins = p_n + s.position_m * gm_pos + s.position_white_m * g_p

        # q_ins = q_z(dpsi) q_true q_y(dtheta) q_x(dphi)
        q_ins = quat_multiply(
            quat_multiply(
                quat_multiply(quat_about_z(s.heading_rad * x[:, 3]), q_xyzw),
                quat_about_y(s.attitude_rad * x[:, 5]),
            ),
            quat_about_x(s.attitude_rad * x[:, 4]),
        )

        # v_ins = R^T v_n + sigma_v g_v;  w_ins = R^T w + sigma_w g_w
        vel = rotate_inverse(r, v_n) + s.velocity_mps * g_v
        gyro = rotate_inverse(r, w_radps) + s.gyro_radps * g_w

        # f_ins = R^T ((v_n,k - v_n,k-1) / dt + (0, 0, g)) + sigma_f g_f; gravity alone on the
        # first epoch and the first epoch after a reset
        v_before = np.empty_like(v_n)
        v_before[1:] = v_n[:-1]
        v_before[0] = self.v_prev
        gravity_only = np.asarray(reset, dtype=bool).copy()
        gravity_only[0] |= first or self.reset_pending
        acc = (v_n - v_before) / dt[:, None]
        acc[gravity_only] = 0.0
        acc[:, 2] = acc[:, 2] + GRAVITY_MPS2
        force = rotate_inverse(r, acc) + s.accel_mps2 * g_f

        # Fix and UTM odometry: the chain to ins.frame for p_ins and the truth point p_n
        # and alpha from the point 10 m grid-north, every epoch; q_utm = q_z(-alpha) q_ins
        fix = self.georef.enu_to_fix_utm(
            p_ins,
            t_s,
            self.config.utm_zone,
            frame=self.geo_frame,
            south=self._south,
            grid_rotation=True,
        )
        tru = self.georef.enu_to_fix_utm(
            p_n, t_s, self.config.utm_zone, frame=self.geo_frame, south=self._south
        )
        alpha_deg = fix["grid_rotation_deg"]
        q_rot = quat_about_z(-(alpha_deg * _DEG))
        q_utm = quat_multiply(q_rot, q_ins)
        q_truth_utm = quat_multiply(q_rot, q_xyzw)
        s2 = s.fix_variance_m2
        cov = np.empty((m, 3))
        cov[:] = (s2, s2, COV_UP_FACTOR * s2)

        # carry the state to the next block
        self.t_prev = float(t_s[-1])
        self.v_prev = v_n[-1].tolist()
        self.reset_pending = False

        return {
            "sample_time_s": np.array(t_s, dtype=np.float64),
            "dt_s": dt,
            "gravity_only": gravity_only,
            "error_states": x,
            "position_enu_m": p_ins,
            "orientation_enu_xyzw": q_ins,
            "velocity_flu_mps": vel,
            "angular_velocity_flu_radps": gyro,
            "specific_force_flu_mps2": force,
            "lat_deg": fix["lat_deg"],
            "lon_deg": fix["lon_deg"],
            "height_m": fix["height_m"],
            "utm_m": _columns3(fix["easting_m"], fix["northing_m"], fix["height_m"]),
            "orientation_utm_xyzw": q_utm,
            "grid_rotation_deg": alpha_deg,
            "covariance_enu_m2": cov,
            "truth_position_enu_m": p_n,
            "truth_utm_m": _columns3(tru["easting_m"], tru["northing_m"], tru["height_m"]),
            "truth_orientation_utm_xyzw": q_truth_utm,
            "truth_speed_mps": _norm(v_n),
        }

    def epoch_values(
        self, t: float, p_n: list, q: list, c: list, v: list, w: list, reset: bool = False
    ) -> dict:
        """One epoch on Python floats -> the values of its block row (the keys of :meth:`run`).

        The operations of :meth:`run` for one epoch (``reset``: a reset in its step), in the same
        order: IEEE binary64 gives the bits of ``run(...)`` (tests/sensors/test_ins.py) at a
        tenth of the cost of numpy calls on one-row arrays. Transcendental functions are numpy's
        ufuncs. Values are floats, vectors lists of floats (gravity_only a bool).
        """
        s = self.sigmas
        g = self.rng.gaussian_list(
            DRAWS_PER_EPOCH
        )  # 6 states, 3 position, 3 velocity, 3 force, 3 rate
        t_prev = self.t_prev
        first = t_prev is None
        if t_prev is None:
            dt, a = self.period_s, 0.0  # dt = 1/f; x = g on the first epoch
        else:
            dt = t - t_prev
            if not dt > 0.0:
                raise ValueError(
                    f"INS epoch at t_s = {t!r} is not after the previous epoch at {self.t_prev!r} s"
                )
            a = float(np.exp(-dt / self.config.position_tau_s))
        x = self.states.step(a, g[0:6])

        qx, qy, qz, qw = q
        r00, r01, r02, r10, r11, r12, r20, r21, r22 = _matrix_of(qx, qy, qz, qw)
        # v_n = v + w x (p_n - p_c)
        d0, d1, d2 = p_n[0] - c[0], p_n[1] - c[1], p_n[2] - c[2]
        w0, w1, w2 = w
        vn0 = v[0] + (w1 * d2 - w2 * d1)
        vn1 = v[1] + (w2 * d0 - w0 * d2)
        vn2 = v[2] + (w0 * d1 - w1 * d0)

        # p_ins = p_n + sigma_p (x1, x2, 1.5 x3) + sigma_pw g_p
        sp, spw = s.position_m, s.position_white_m
        e_ins = p_n[0] + sp * x[0] + spw * g[6]  # (1.0 x is x exactly)
        n_ins = p_n[1] + sp * x[1] + spw * g[7]
        u_ins = p_n[2] + sp * (x[2] * UP_SIGMA_FACTOR) + spw * g[8]

        # q_ins = q_z(dpsi) q_true q_y(dtheta) q_x(dphi)
        q_ins = _qmul(
            _qmul(_qmul(_q_about(s.heading_rad * x[3], 2), q), _q_about(s.attitude_rad * x[5], 1)),
            _q_about(s.attitude_rad * x[4], 0),
        )

        # R^T u for the velocity, the rate and the specific force
        sv, sw, sf = s.velocity_mps, s.gyro_radps, s.accel_mps2
        vel = (
            r00 * vn0 + r10 * vn1 + r20 * vn2 + sv * g[9],
            r01 * vn0 + r11 * vn1 + r21 * vn2 + sv * g[10],
            r02 * vn0 + r12 * vn1 + r22 * vn2 + sv * g[11],
        )
        gyro = (
            r00 * w0 + r10 * w1 + r20 * w2 + sw * g[15],
            r01 * w0 + r11 * w1 + r21 * w2 + sw * g[16],
            r02 * w0 + r12 * w1 + r22 * w2 + sw * g[17],
        )
        gravity_only = reset or first or self.reset_pending
        if gravity_only:
            a0 = a1 = a2 = 0.0  # gravity alone
        else:
            vp0, vp1, vp2 = self.v_prev
            a0, a1, a2 = (vn0 - vp0) / dt, (vn1 - vp1) / dt, (vn2 - vp2) / dt
        a2 = a2 + GRAVITY_MPS2
        force = (
            r00 * a0 + r10 * a1 + r20 * a2 + sf * g[12],
            r01 * a0 + r11 * a1 + r21 * a2 + sf * g[13],
            r02 * a0 + r12 * a1 + r22 * a2 + sf * g[14],
        )

        geo = self.georef
        zone = self.config.utm_zone
        lat, lon, h, east, north, alpha_deg = geo.fix_utm_of_point(
            e_ins, n_ins, u_ins, t, zone, self.geo_frame, self._south, grid_rotation=True
        )
        _, _, h_t, east_t, north_t = geo.fix_utm_of_point(
            p_n[0], p_n[1], p_n[2], t, zone, self.geo_frame, self._south
        )
        q_rot = _q_about(-(alpha_deg * _DEG), 2)
        s2 = s.fix_variance_m2

        self.t_prev = t
        self.v_prev = [vn0, vn1, vn2]
        self.reset_pending = False
        return {
            "sample_time_s": t,
            "dt_s": dt,
            "gravity_only": bool(gravity_only),
            "error_states": x,
            "position_enu_m": [e_ins, n_ins, u_ins],
            "orientation_enu_xyzw": list(q_ins),
            "velocity_flu_mps": list(vel),
            "angular_velocity_flu_radps": list(gyro),
            "specific_force_flu_mps2": list(force),
            "lat_deg": lat,
            "lon_deg": lon,
            "height_m": h,
            "utm_m": [east, north, h],
            "orientation_utm_xyzw": list(_qmul(q_rot, q_ins)),
            "grid_rotation_deg": alpha_deg,
            "covariance_enu_m2": [s2, s2, COV_UP_FACTOR * s2],
            "truth_position_enu_m": list(p_n),
            "truth_utm_m": [east_t, north_t, h_t],
            "truth_orientation_utm_xyzw": list(_qmul(q_rot, q)),
            "truth_speed_mps": math.sqrt(vn0 * vn0 + vn1 * vn1 + vn2 * vn2),
        }


# ------------------------------------------------------------------------------ the batch model
class InsModel:
    """The INS as a sensor model (CONTRACTS.md): consecutive truth chunks -> INS epochs.

    ``InsModel(config, vehicle, georef, agent=0)``: ``config`` the typed ``ins`` section
    (``InsConfig.from_validated(cfg)`` of the effective configuration), ``vehicle`` the
    VehicleProfile (for a base_footprint mount), ``georef`` a navsense.geo.Georeference,
    ``agent`` the ACRES Core agent index (seed + 7919 agent). Epochs at ``ins.hz`` with the first
    at t = 0 (Due). See the module docstring for the equations.
    """

    name = "ins"

    def __init__(self, config: InsConfig, vehicle: VehicleProfile, georef, agent: int = 0) -> None:
        self.config = config
        self.vehicle = vehicle
        # spec "Truth at the INS Point": r_n, body FLU from the chassis origin (ruling "Mounts")
        self.lever_arm_m = lever_arm_from_chassis(
            self.config.position_flu_m, self.config.mount_frame, vehicle
        )
        self._arm = np.asarray(self.lever_arm_m, dtype=np.float64).tolist()
        self._core = InsCore(self.config, georef, agent)
        self._due = Due(self.config.hz)  # first epoch at t = 0
        self._reset_pending = False

    def process(self, truth: TruthStates) -> dict[str, np.ndarray]:
        """The INS epochs sampled in this chunk of physics steps (columns, leading axis m)."""
        n = len(truth)
        idx = self._due.sample_indices(truth.t_s)
        reset = np.asarray(truth.reset, dtype=bool)
        if n == 1 and idx.size == 1:  # one physics step, an epoch (streaming): on Python floats
            return self._one_epoch(truth, bool(reset[0]))
        if idx.size == 0:
            self._reset_pending = self._reset_pending or bool(reset.any())
            return _empty_block()
        # a reset at any step after the previous epoch, up to and including this epoch's step
        counts = np.concatenate([[0], np.cumsum(reset, dtype=np.int64)])
        since = counts[idx + 1] - np.concatenate([[0], counts[idx[:-1] + 1]])
        epoch_reset = since > 0
        epoch_reset[0] |= self._reset_pending
        self._reset_pending = bool(counts[n] - counts[idx[-1] + 1] > 0)

        p = truth.p_m[idx]
        q = truth.q_xyzw[idx]
        r = quat_to_matrix(q)
        # p_n = p + R r_n
        p_n = p + rotate(r, np.broadcast_to(self.lever_arm_m, p.shape))
        return self._core.run(
            truth.t_s[idx],
            p_n,
            q,
            truth.c_m[idx],
            truth.v_mps[idx],
            truth.w_radps[idx],
            epoch_reset,
        )

    def _one_epoch(self, truth: TruthStates, reset: bool) -> dict[str, np.ndarray]:
        """:meth:`process` of one step that samples: p_n = p + R r_n and the core's
        :meth:`InsCore.epoch_values` on Python floats (the same bits), as a one-row block."""
        epoch_reset = reset or self._reset_pending
        self._reset_pending = False
        p, q = truth.p_m[0].tolist(), truth.q_xyzw[0].tolist()
        r00, r01, r02, r10, r11, r12, r20, r21, r22 = _matrix_of(*q)
        a0, a1, a2 = self._arm
        p_n = [
            p[0] + (r00 * a0 + r01 * a1 + r02 * a2),
            p[1] + (r10 * a0 + r11 * a1 + r12 * a2),
            p[2] + (r20 * a0 + r21 * a1 + r22 * a2),
        ]
        values = self._core.epoch_values(
            truth.step0 / truth.rate_hz,
            p_n,
            q,
            truth.c_m[0].tolist(),
            truth.v_mps[0].tolist(),
            truth.w_radps[0].tolist(),
            epoch_reset,
        )
        return {k: np.array([v]) for k, v in values.items()}

    def output_info(self) -> dict:
        """What the layout needs (navsense.output.layouts.ins): the fix's datum and the UTM zone."""
        return self._core.output_info()

    def episode_info(self) -> dict:
        """episode.json keys: the INS stream, the agent and the INS point from the chassis."""
        core = self._core
        return {
            "ins": {
                "agent": core.agent,
                "rng_seed": core.stream_seed,
                "rng_sequence": INS_SEQUENCE,
                "datum": core.geo_frame,
                "utm_zone": self.config.utm_zone,
                "point_chassis_flu_m": [float(v) for v in self.lever_arm_m],
            }
        }


def __getattr__(name: str):
    """``navsense.sensors.ins.Ins``, the streaming API's documented name: it lives in
    navsense.ins_stream (a model and its frame layout together; a model formats nothing)."""
    if name == "Ins":
        from navsense.ins_stream import Ins

        return Ins
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
