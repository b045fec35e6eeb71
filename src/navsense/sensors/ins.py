"""The INS: an OxTS-style unit that reports one point of the vehicle (``ins.jsonl``, ``ins.frames``).

Specification "INS and GNSS", section "INS" (FAcresSensorRecorder::InsEpoch) and section "ACRES
Core INS"; CoreSimIns.h (FInsConfig, FInsModel, EInsField). The INS is the truth with errors: no
inertial mechanisation, no alignment, no GNSS outage. With ``ins.aiding`` "gnss" (navsense
extension, issue 19) :class:`InsModel` adds the errors of a GNSS-aided INS that follows its own
receiver (navsense.sensors.ins_aiding: states, filtered receiver error, dead reckoning) to these;
the streaming API navsense.ins_stream.Ins (FInsModel, fed truth alone) stays the specification's.

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

With ``imu.earth`` "wgs84" (navsense extension, issue 19; navsense.geo.earth) the rate and the
force see the turning Earth at the truth INS point p_n: w_ins = R^T (w + W) + sigma_w g_w and
(0, 0, 9.80665) becomes F (Earth and transport rate; Coriolis and WGS84 normal gravity; the
terms of :meth:`navsense.geo.earth.SiteEarth.terms` with v_n).

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

Implementation. One kernel (:class:`InsCore`) evaluates the equations for a block of epochs:
its arithmetic in the compiled kernels of navsense.sensors.ins_kernels (numpy's or numba's, the
same bits; navsense.kernels), numpy's sines, exponential and the datum chain between them;
:class:`InsModel` (batch, chunks and single physics steps, the contract of
CONTRACTS.md) and navsense.ins_stream.Ins (the streaming API of FInsModel: one epoch a call) both
call it, so they give identical numbers. The Gauss-Markov recursion runs in anchored segments
(navsense.gauss_markov.GaussMarkovStates: the same bits however the epochs are cut, though dt
varies from epoch to epoch: 100 Hz on the 120 Hz clock gives steps of 1 and 2 physics steps).
Every other operation is elementwise, so an epoch's values do not depend on how many epochs
share a call (batch = chunks = steps, bit for bit).

Outputs: the model returns its epochs as SI arrays (the keys of :meth:`InsCore.run`); the rows of
``ins.jsonl`` and the 40-value frames of ``ins.frames`` (EInsField order) are laid out by
navsense.output.layouts.ins from these arrays and :meth:`InsModel.output_info`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np

from navsense.clock import Due
from navsense.config.typed.ins import InsConfig
from navsense.constants import DEG
from navsense.errors import ConfigError, DatumError
from navsense.gauss_markov import GaussMarkovStates
from navsense.geo.earth import site_earth
from navsense.geo.fix_chain import ins_points
from navsense.rng import Pcg32
from navsense.rotation import quat_about_axes, quat_multiply, quat_to_matrix, rotate, rotate_inverse
from navsense.sensors import ins_kernels as _k
from navsense.truth.states import TruthStates
from navsense.vehicles import VehicleProfile, lever_arm_from_chassis

__all__ = [
    "build_model",
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
UP_SIGMA_FACTOR = _k.UP_SIGMA_FACTOR  # spec "INS": the up axis uses 1.5 sigma_p
COV_UP_FACTOR = 2.25  # spec "INS": cov = diag(s2, s2, 2.25 s2)

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
    attitude_sigmas_rad: np.ndarray  # (sigma_psi, sigma_theta, sigma_theta): x4, x6, x5
    white_vfw: np.ndarray  # (sigma_v, sigma_f, sigma_w), shape (3, 1)
    fix_covariance_m2: np.ndarray  # (s2, s2, 2.25 s2), s2 = sigma_p^2 + sigma_pw^2

    @classmethod
    def of(cls, c: InsConfig) -> _Sigmas:
        k = 1.0 if c.noise else 0.0
        position_m, white_m = k * c.position_sigma_m, k * c.position_white_m
        heading, attitude = k * (c.heading_sigma_deg * DEG), k * (c.attitude_sigma_deg * DEG)
        s2 = position_m**2 + white_m**2  # spec "Fix and UTM Odometry"
        return cls(
            position_m=position_m,
            position_white_m=white_m,
            attitude_sigmas_rad=np.array([heading, attitude, attitude]),
            white_vfw=np.array(
                [[k * c.velocity_white_mps], [k * c.accel_white_mps2], [k * c.gyro_white_radps]]
            ),
            fix_covariance_m2=np.array([s2, s2, COV_UP_FACTOR * s2]),
        )


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


def _empty_block(aided: bool = False) -> dict[str, np.ndarray]:
    block = {k: np.zeros((0,) + s) for k, s in _BLOCK_SHAPES.items()}
    block["gravity_only"] = np.zeros(0, dtype=bool)
    if aided:
        block["ins_state"] = np.zeros(0, dtype=np.int64)
    return block


# block keys without a value before the aided INS is initialised (ins.aiding "gnss")
_NOT_INITIALISED_KEYS = (
    "position_enu_m",
    "orientation_enu_xyzw",
    "velocity_flu_mps",
    "lat_deg",
    "lon_deg",
    "height_m",
    "utm_m",
    "orientation_utm_xyzw",
    "grid_rotation_deg",
    "covariance_enu_m2",
)


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
        self.earth = site_earth(config.earth, georef)
        # a site south of the equator uses the southern UTM (false northing 10 000 km)
        self._south = bool(georef is not None and georef.site_wgs84_lat_lon_h()[0] < 0.0)
        self.states = GaussMarkovStates(6)  # the Gauss-Markov states x_1..x_6
        self.t_prev: float | None = None  # time of the previous epoch (None: no epoch yet)
        self.v_prev = np.zeros(3)  # INS-point velocity of the previous epoch, world m/s
        self._no_terms = np.zeros((1, 2, 3))  # the kernels' Earth terms without imu.earth
        # the kernels' parameters (navsense.sensors.ins_kernels.PARAMETERS)
        sg = self.sigmas
        self._par = np.array(
            [sg.position_m, sg.position_white_m, *sg.attitude_sigmas_rad[:2], *sg.white_vfw[:, 0]]
            + [0.0 if self.earth is None else 1.0]
        )
        self.reset_pending = False  # a reset since the previous epoch

    def output_info(self) -> dict:
        """What the layout needs (navsense.output.layouts.ins): the fix's datum and the UTM zone."""
        return {"datum": self.geo_frame, "utm_zone": self.config.utm_zone}

    def run(
        self, t_s, p_n, q_xyzw, c_m, v_mps, w_radps, reset, aid=None, r=None
    ) -> dict[str, np.ndarray]:
        """Epochs at times t_s (m,): INS point p_n (m, 3), attitude (m, 4), centre of mass,
        centre-of-mass velocity, angular velocity (m, 3), reset since the previous epoch (m,),
        float64 rows (C order, as the kernels take them); ``aid`` (ins.aiding "gnss") a
        function of the INS's own tilt (m, 2) (:func:`_tilt_enu`) giving the epochs of
        navsense.sensors.ins_aiding.GnssAiding.run, None: the specification's INS; ``r`` the
        attitude's rotation matrices quat_to_matrix(q_xyzw) (m, 3, 3) where the caller has
        them (None: computed here)."""
        m = t_s.shape[0]
        if m == 0:
            return _empty_block(aid is not None)
        s = self.sigmas
        # spec "INS": 18 values an epoch: 6 states, 3 position, 3 velocity, 3 force, 3 rate
        g = self.rng.gaussians(DRAWS_PER_EPOCH * m).reshape(m, DRAWS_PER_EPOCH)

        # dt: time since the previous INS epoch; 1/f on the first epoch (exactly, not
        # t_0 - (t_0 - 1/f)); errors: a = exp(-dt / tau_p), x_k = a x_k-1 + sqrt(1 - a^2) g,
        # x = g on the first epoch
        t_prev = self.t_prev
        first = t_prev is None
        if m == 1 and t_prev is not None:  # one epoch: the same operations on Python floats
            d = float(t_s[0]) - t_prev
            dt = np.array([d])
            a = np.exp(np.array([-d / self.config.position_tau_s]))
        else:
            dt = self._dt(t_s, first)
            a = np.exp(-dt / self.config.position_tau_s)
            if first:
                a[0] = 0.0
        x = self.states.run(a, g[:, 0:6])

        gravity = np.array(reset, dtype=np.float64)  # 1.0: gravity alone (the first epoch
        if first or self.reset_pending:  # and the first after a reset)
            gravity[0] = 1.0
        # the kernels of navsense.sensors.ins_kernels (the Earth's terms between them)
        if r is None:
            r = quat_to_matrix(q_xyzw)
        v_n, p_ins, half, acc = np.empty((4, m, 3))  # (each a C-ordered (m, 3))
        speed = np.empty(m)
        points: np.ndarray | None = np.empty((3, 3 * m))  # Georeference.ins_fix_utm's points
        _k.epoch_vectors(
            p_n, c_m, v_mps, w_radps, x, g, dt, gravity, self.v_prev, self._par,
            v_n, p_ins, half, speed, acc, points,
        )  # fmt: skip
        # Earth terms at the truth INS point (imu.earth "wgs84"), else not read
        terms = self._no_terms if self.earth is None else self.earth.terms(p_n, v_n)
        q_ins = np.empty((m, 4))
        body = np.empty((m, 3, 3))
        _k.attitude_and_body(q_xyzw, half, r, v_n, acc, w_radps, terms, g, self._par, q_ins, body)

        covariance = (
            s.fix_covariance_m2[None].copy()
            if m == 1
            else np.repeat(s.fix_covariance_m2[None], m, axis=0)
        )
        p_fix = p_ins
        if aid is not None:  # ins.aiding "gnss": the aided INS's errors (ins_aiding)
            aid = aid(_tilt_enu(r, x, s.attitude_sigmas_rad[1]))
            p_ins, q_ins, covariance = _aided(aid, p_ins, q_ins, body, r, s.fix_covariance_m2)
            # before initialisation the chain runs on the truth point (no value is kept)
            p_fix = np.where(aid["initialised"][:, None], p_ins, p_n)
            points = None  # the chain's points of p_fix (Georeference.ins_fix_utm)

        (lat, lon, h, alpha_deg), q_utm, utm = self._fix_utm(p_fix, p_n, t_s, q_ins, q_xyzw, points)

        # carry the state to the next block
        self.t_prev = float(t_s[-1])
        self.v_prev = v_n[-1]
        self.reset_pending = False

        block = {
            "sample_time_s": np.array(t_s, dtype=np.float64),
            "dt_s": dt,
            "gravity_only": gravity != 0.0,
            "error_states": x,
            "position_enu_m": p_ins,
            "orientation_enu_xyzw": q_ins,
            "velocity_flu_mps": body[:, 0],
            "angular_velocity_flu_radps": body[:, 2],
            "specific_force_flu_mps2": body[:, 1],
            "lat_deg": lat,
            "lon_deg": lon,
            "height_m": h,
            "utm_m": utm[:, 0],
            "orientation_utm_xyzw": q_utm[:, 0],
            "grid_rotation_deg": alpha_deg,
            "covariance_enu_m2": covariance,
            "truth_position_enu_m": p_n,
            "truth_utm_m": utm[:, 1],
            "truth_orientation_utm_xyzw": q_utm[:, 1],
            "truth_speed_mps": speed,  # |v_n|
        }
        if aid is not None:
            _with_aided_state(block, aid)
        return block

    def _dt(self, t_s: np.ndarray, first: bool) -> np.ndarray:
        """The time since the previous INS epoch of each epoch (m,); 1/f on the first epoch."""
        if t_s.shape[0] == 1:
            dt = t_s - (t_s if first else self.t_prev)
        else:
            t_before = np.empty(t_s.shape[0])  # the previous epoch's time of each epoch
            t_before[0] = t_s[0] if first else self.t_prev
            t_before[1:] = t_s[:-1]
            dt = t_s - t_before
        if first:
            dt[0] = self.period_s
        return dt

    def fix_error(self, exc: DatumError) -> DatumError:
        """The chain's DatumError naming the key (a zone far from the site: only its number)."""
        return DatumError(
            f"the INS's UTM odometry in zone {self.config.utm_zone} (ins.utm_zone): {exc}"
        )

    def _fix_utm(self, p_fix, p_n, t_s, q_ins, q_xyzw, points=None):
        """Fix and UTM odometry: ``(fix, q_utm, utm)``: the chain to ins.frame for ``p_fix`` and
        the truth point p_n (one pass; ``points`` their rows, when the caller has them), alpha
        from the point 10 m grid-north, every epoch (``fix`` (lat, lon, h, alpha_deg));
        ``q_utm`` (m, 2, 4): q_z(-alpha) q_ins and the truth attitude q_z(-alpha) q_true;
        ``utm`` (m, 2, 3): (E, N, h) of p_fix and of p_n."""
        pts = ins_points(p_fix, p_n) if points is None else points
        try:
            lat, lon, h, e, n, alpha = self.georef.ins_fix_rows(
                pts, t_s, self.config.utm_zone, self.geo_frame, self._south
            )
        except DatumError as exc:
            raise self.fix_error(exc) from None
        m = t_s.shape[0]
        q_utm, utm, alpha_deg = np.empty((m, 2, 4)), np.empty((m, 2, 3)), np.empty(m)
        _k.utm_attitudes(alpha, q_ins, q_xyzw, e, n, h, q_utm, utm, alpha_deg)
        return (lat[:m], lon[:m], h[:m], alpha_deg), q_utm, utm


def _tilt_enu(r: np.ndarray, x: np.ndarray, sigma_theta: float) -> np.ndarray:
    """The INS's own tilt about east and north, (m, 2) rad: R (dphi, dtheta, 0) to first order,
    dphi = sigma_theta x5 and dtheta = sigma_theta x6 the roll and pitch errors (body axes, the
    right factors q_y(dtheta) q_x(dphi) of q_ins); the dead reckoning of the aided INS starts
    from it (navsense.sensors.ins_aiding, "The tilt at the loss")."""
    d_phi, d_theta = sigma_theta * x[:, 4], sigma_theta * x[:, 5]
    return r[:, 0:2, 0] * d_phi[:, None] + r[:, 0:2, 1] * d_theta[:, None]


def _aided(aid, p_ins, q_ins, body, r, fix_covariance_m2):
    """The aided INS's errors (ins.aiding "gnss", navsense.sensors.ins_aiding) on the
    specification's: ``(p_ins, q_ins, covariance)``; ``body``'s velocity is changed in place.

    p += dp_enu;  q = q_z(phi_U) q_y(phi_N) q_x(phi_E) q;  v_body += R^T dv_enu;
    covariance = the aided variance + the specification's (s2, s2, 2.25 s2)."""
    p_ins = p_ins + aid["position_error_enu_m"]
    phi = aid["attitude_error_enu_rad"]
    q_phi = quat_about_axes(phi[:, ::-1], (2, 1, 0))  # q_z(phi_U) q_y(phi_N) q_x(phi_E)
    q_phi = quat_multiply(quat_multiply(q_phi[:, 0], q_phi[:, 1]), q_phi[:, 2])
    q_ins = quat_multiply(q_phi, q_ins)
    body[:, 0] += rotate_inverse(r, aid["velocity_error_enu_mps"])
    return p_ins, q_ins, aid["variance_enu_m2"] + fix_covariance_m2


def _with_aided_state(block: dict, aid) -> None:
    """The aided INS's state code in ``block``, and no value (NaN) in the keys of
    _NOT_INITIALISED_KEYS before it is initialised."""
    block["ins_state"] = aid["state"]
    blank = ~aid["initialised"]
    if blank.any():
        for key in _NOT_INITIALISED_KEYS:
            block[key] = np.array(block[key], dtype=np.float64)
            block[key][blank] = np.nan


# ------------------------------------------------------------------------------ the batch model
class InsModel:
    """The INS as a sensor model (CONTRACTS.md): consecutive truth chunks -> INS epochs.

    ``InsModel(config, vehicle, georef, agent=0)``: ``config`` the typed ``ins`` section
    (``InsConfig.from_validated(cfg)`` of the effective configuration), ``vehicle`` the
    VehicleProfile (for a base_footprint mount), ``georef`` a navsense.geo.Georeference,
    ``agent`` the ACRES Core agent index (seed + 7919 agent). Epochs at ``ins.hz`` with the first
    at the first physics step given (t = 0 in the specification; navsense.clock). See the
    module docstring for the equations. With ``ins.aiding`` "gnss", ``receiver`` is this INS's
    own GnssReceiver of the run's gnss configuration (navsense.sensors.ins_aiding).
    """

    name = "ins"

    def __init__(
        self,
        config: InsConfig,
        vehicle: VehicleProfile,
        georef,
        agent: int = 0,
        receiver=None,
    ) -> None:
        self.config = config
        self.vehicle = vehicle
        # spec "Truth at the INS Point": r_n, body FLU from the chassis origin (ruling "Mounts")
        self.lever_arm_m = lever_arm_from_chassis(
            self.config.position_flu_m, self.config.mount_frame, vehicle
        )
        self._core = InsCore(self.config, georef, agent)
        self._due = Due(self.config.hz, start_s=None)
        self._reset_pending = False
        self._aiding = None
        if config.aiding == "gnss":
            from navsense.sensors.ins_aiding import GnssAiding

            if receiver is None:
                raise ConfigError('ins.aiding = "gnss" needs the run\'s GNSS receiver')
            self._aiding = GnssAiding(config, receiver, agent)

    def process(self, truth: TruthStates) -> dict[str, np.ndarray]:
        """The INS epochs sampled in this chunk of physics steps (columns, leading axis m)."""
        t_s = truth.t_s
        idx = self._due.sample_indices(t_s)
        reset = np.asarray(truth.reset, dtype=bool)
        aid = None  # the aiding's epochs as a function of the INS's own tilt (InsCore.run)
        if self._aiding is not None:
            aid = partial(self._aiding.run, truth, t_s[idx])
        if idx.size == 0:
            if aid is not None:
                aid(np.zeros((0, 2)))  # the receiver's epochs of the chunk all the same
            self._reset_pending = self._reset_pending or bool(reset.any())
            return _empty_block(aid is not None)
        # a reset at any step after the previous epoch, up to and including this epoch's step
        end = int(idx[-1]) + 1
        if reset[:end].any():
            epoch_reset = np.logical_or.reduceat(reset[:end], np.concatenate([[0], idx[:-1] + 1]))
        else:  # no reset in the chunk (the usual case): the same all-False flags
            epoch_reset = np.zeros(idx.size, dtype=bool)
        epoch_reset[0] |= self._reset_pending
        self._reset_pending = bool(reset[end:].any())

        # the epochs' rows (np.take: the values of truth.x[idx], at a tenth of the cost)
        q = truth.q_xyzw.take(idx, axis=0)
        r = quat_to_matrix(q)
        p_n = truth.p_m.take(idx, axis=0) + rotate(r, self.lever_arm_m)  # p_n = p + R r_n
        return self._core.run(
            t_s[idx],
            p_n,
            q,
            truth.c_m.take(idx, axis=0),
            truth.v_mps.take(idx, axis=0),
            truth.w_radps.take(idx, axis=0),
            epoch_reset,
            aid,
            r,
        )

    def output_info(self) -> dict:
        """What the layout needs (navsense.output.layouts.ins): the fix's datum, the UTM zone
        and, with ins.aiding "gnss", ``aiding`` (the INS state's code -> name)."""
        info = self._core.output_info()
        if self._aiding is not None:
            from navsense.sensors.ins_aiding import INS_STATES

            info["aiding"] = dict(INS_STATES)
        return info

    def episode_info(self) -> dict:
        """episode.json keys: the INS stream, the agent and the INS point from the chassis."""
        core = self._core
        info = {
            "ins": {
                "agent": core.agent,
                "rng_seed": core.stream_seed,
                "rng_sequence": INS_SEQUENCE,
                "datum": core.geo_frame,
                "utm_zone": self.config.utm_zone,
                "point_chassis_flu_m": [float(v) for v in self.lever_arm_m],
            }
        }
        if self._aiding is not None:
            info["ins"]["aiding"] = {
                "rng_seed": self._aiding.stream_seed,
                "rng_sequence": self._aiding.rng_sequence,
            }
        return info


def build_model(context) -> InsModel:
    """The INS of a run (navsense.suite.SENSORS["ins"]; ``context`` a
    navsense.suite.ModelContext), with its own GNSS receiver when ``ins.aiding`` is "gnss"
    (navsense.sensors.ins_aiding). ConfigError without a georeference: the INS reports UTM and
    geodetic positions."""
    site, georef = context.site, context.georef
    if georef is None:
        raise ConfigError(
            f"site {getattr(site, 'name', None)!r} has no georeference; the INS "
            "(ins.enabled) reports UTM and geodetic positions and needs one: give the site "
            'a "georeference", or turn the INS off (--no-ins)'
        )
    ins = InsConfig.from_validated(context.cfg)
    receiver = None
    if ins.aiding == "gnss":  # the INS's own receiver (navsense.sensors.ins_aiding)
        from navsense.sensors.gnss.receiver import build_model as build_receiver

        receiver = build_receiver(context)
    return InsModel(ins, context.vehicle, georef, agent=context.agent, receiver=receiver)
