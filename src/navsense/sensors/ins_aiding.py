"""The GNSS-aided INS (``ins.aiding: "gnss"``, navsense extension, issue 19 section 1).

The specification's INS (navsense.sensors.ins) is the truth plus RTK-level errors whatever the
sky does. With ``ins.aiding: "gnss"`` the INS follows the run's own GNSS receiver: the same
epochs, fix states and errors as ``gnss.jsonl`` (the INS runs its own instance of
:class:`navsense.sensors.gnss.receiver.GnssReceiver` with the run's ``gnss`` configuration and
seed, so it needs neither the receiver's rows nor the process that writes them; batch, chunks
and single steps give the same epochs). Each INS epoch holds the receiver's latest epoch at or
before it (same physics clock, a sample-and-hold at the receiver's rate).

States (numbered as the GGA quality: 0 not initialised, 1 single, 2 dgps, 4 rtk_fixed,
5 rtk_float, 6 dead reckoning), decided at each INS epoch that holds a new receiver epoch::

    not initialised   until the receiver's first fix; then aided (the filter starts at the
                      receiver's error and variance)
    aided             while the receiver has a fix of the rank used before or better (rank
                      rtk_fixed > rtk_float > dgps > single), or a lower one whose filtered
                      variance is not above the INS's (P_ss,h <= P_ref)
    dead reckoning    the receiver lost its fix, or degraded to a lower rank whose filtered
                      variance is above the INS's (a loosely coupled filter keeps its own
                      solution rather than follow a much worse measurement); it ends at the
                      first epoch with a fix whose filtered variance is at most the
                      dead-reckoning variance, P_ss,h <= P_ref + P_dr,h(T)

    P_ss,h  the mean of the east and north P_ss of the receiver's epoch (below)
    P_ref   P_ss,h of the last aided epoch;  T the time since the last aided epoch

Errors. One filter state f per axis (east, north, up), with the velocity error dv and the
attitude error phi (ENU rotation vector), carried from epoch to epoch
(navsense.gauss_markov.AnchoredScan: the same bits however the log is cut)::

    aided:   a = exp(-dt / tau_f),  f_k = a f_k-1 + (1 - a) e_g,k,  dv_k = a dv_k-1,  phi_k = a phi_k-1
             s_k = a s_k-1 + (1 - a) sqrt(P_ss,k),   Q_k = a^2 Q_k-1
    first aided epoch: a = 0 (f = e_g, s = sigma_g)
    dead reckoning, T = t - t_0 (t_0 the last aided epoch):
             (f, dv, phi)_k = (f, dv, phi)_k-1 + D(T_k) xi - D(T_k-1) xi,  D(T_k-1) = 0 before
             the first (the velocity error sigma_v xi and the tilt phi_0 appear at the loss)
             s_k = s_k-1,   Q_k = Q_k-1 + V(T_k) - V(T_k-1),   V(T) = sum_i D_i(T)^2
    P = s^2 + Q

    s   the 1-sigma of the receiver's part of f: filtered as the error itself, since the
        receiver's error is correlated far beyond tau_f (its Gauss-Markov tau is 30 to 300 s),
        so a change of the receiver's state (float -> fixed, a jump of sigma_g) moves the
        error and its sigma together
    Q   the variance of the dead-reckoning part (independent of the receiver's): V(T) during an
        outage, decaying as a^2 once aided again (its error decays as a)
    when aiding resumes (epoch k, after an outage from t_0): the receiver's part frozen at t_0
    is correlated with the receiver's error now by rho = exp(-(t_k - t_0) / tau_g) (its
    Gauss-Markov state u goes on; tau_g of the state now): s_k = a rho s_k-1 + (1 - a)
    sqrt(P_ss,k) and Q_k = a^2 (Q_k-1 + (1 - rho^2) s_k-1^2), which is the variance
    a^2 s^2 + (1 - a)^2 sigma^2 + 2 a (1 - a) rho s sigma of the sum

    e_g, sigma_g   the receiver's error and 1-sigma (gnss error_enu_m, sigma_enu_m)
    tau_f          ins.aiding_tau_s, the loosely coupled filter's time constant (default 1 s)
    P_ss           the variance of the filtered receiver error in steady state: each term of
                   the receiver's error (specification "Error Model": Gauss-Markov sigma_gm
                   with phi = exp(-D / tau), white sigma_w, multipath sigma_mp with
                   phi_m = exp(-D / tau_m)) smoothed at the receiver's interval D with
                   A = exp(-D / tau_f):  sigma^2 (1 - A)(1 + A phi) / ((1 + A)(1 - A phi))

The position is p_ins = p_n + f + the specification's own INS noise (sigma_p x + sigma_pw g);
the covariance is P + the specification's diag(s2, s2, 2.25 s2): the modelled error's, so the
fraction of errors inside 1 and 2 sigma is the Gaussian one in every state.

Dead reckoning (the inertial error model, closed form in T, Titterton & Weston "Strapdown
Inertial Navigation Technology" ch. 12 and Groves "Principles of GNSS, Inertial, and
Multisensor Integrated Navigation Systems" ch. 14, short-term free-inertial propagation without
the Schuler feedback, valid for outages well below the 84-minute Schuler period). The 18
Gaussians xi of an outage (drawn at its first epoch, in this order): velocity errors (E, N, U),
accelerometer biases (E, N, U), initial tilts phi_0 (about E, N, U), gyro biases (E, N, U),
velocity random walks (E, N, U), angle random walks (E, N, U)::

    east   sigma_v xi_0 T + sigma_a xi_3 T^2/2 + g sigma_phi xi_7 T^2/2 + g sigma_g xi_10 T^3/6
           + N_v xi_12 sqrt(T^3/3) + g N_g xi_16 sqrt(T^5/20) + g phi_c,N T^2/2
    north  sigma_v xi_1 T + sigma_a xi_4 T^2/2 - g sigma_phi xi_6 T^2/2 - g sigma_g xi_9 T^3/6
           + N_v xi_13 sqrt(T^3/3) - g N_g xi_15 sqrt(T^5/20) - g phi_c,E T^2/2
    up     sigma_v xi_2 T + sigma_a xi_5 T^2/2 + N_v xi_14 sqrt(T^3/3)
    dv     the time derivative of each term (T -> 1, T^2/2 -> T, T^3/6 -> T^2/2,
           sqrt(T^3/3) -> sqrt(3 T)/2, sqrt(T^5/20) -> 5 T^1.5 / (2 sqrt 20))
    phi    about E: sigma_phi xi_6 + sigma_g xi_9 T + N_g xi_15 sqrt(T);  N: xi_7, xi_10, xi_16;
           U (heading): xi_8, xi_11, xi_17

The tilt phi about north turns gravity into an east acceleration error g phi_N (about east,
-g phi_E north): a gyro bias gives g sigma_g T^3/6 and an angle random walk
g N_g sqrt(T^5/20), the standard deviations of the double integral of the tilt. Each random
walk is one Gaussian times its standard deviation's closed form (a smooth path with the exact
variance at every T), so the error of every epoch is exactly Gaussian with the variance V(T)
the covariance reports. Velocity and attitude errors are those paths' derivatives and tilts, so
position, velocity and attitude drift together. The specification's own attitude and velocity
noise stays on top.

The tilt at the loss (issue 30 item 3; navsense ruling). The dead reckoning starts from the
attitude error the INS shows, and reports, while aided: the specification's roll and pitch
errors (sigma_theta = ins.attitude_sigma_deg, 0.03 deg; heading sigma_psi =
ins.heading_sigma_deg, 0.1 deg), which go on as they are through the outage. Their tilt about
east and north at the last aided epoch (t_0), phi_c = R (sigma_theta x5, sigma_theta x6, 0) to
first order (navsense.sensors.ins._tilt_enu, from the INS stream's states x5, x6), is carried
into the outage, a known value and not a draw: it adds g phi_c,N T^2/2 east and -g phi_c,E T^2/2
north (velocity g phi_c T) and (g sigma_theta T^2/2)^2 to each horizontal variance of V(T) (the
INS's tilt about E and N has the variance sigma_theta^2 each: the specification's states are
unit and stationary), so the covariance grows as the reported tilt says and the error over
sigma stays 1 (tests/sensors/test_ins_dead_reckoning_start.py: over 200 seeds the RMS of the
roll, pitch and heading errors over their sigmas at the loss 0.94, 1.02, 1.02, of the horizontal
drift after 5 s over its sigma 0.96, 0.95). The drift is computed from the tilt of t_0 while the
specification's states, of tau_p = ins.position_tau_s (30 s), go on as they do without aiding, so
the tilt shown later in an outage decorrelates from the one the drift follows as exp(-T /
tau_p); the attitude part phi of an earlier outage still decaying at t_0 is not carried (after
5 tau_f it is below 1 % of what it was). tilt_sigma_deg is a further tilt drawn at the loss
(phi_0, in phi and in the drift), independent of the INS's own: its default 0.0006 deg, the bias
/ g residual of the accelerometer bias and the tilt an aided filter estimates together, adds
0.02 % to the 0.03 deg. An INS of a better grade than 0.03 deg is given by a smaller
ins.attitude_sigma_deg, which then drifts less as well.

Defaults (``ins.drift.*``): a generic grade, navsense's choice, not a datasheet quote (issue 30:
the earlier attribution to an OxTS AV200 datasheet could not be checked, and OxTS figures quoted
elsewhere, RT3000 v3 gyro 2 deg/h and accelerometer 2 micro-g, differ); each value keeps its
bytes (the runs' outputs) and has its reasoning (docs/guide/error-models.md, sources there):
gyro bias 2 deg/h, the in-run bias stability of industrial MEMS gyros (ADIS16465 Rev. C: 2
deg/h), the low end of the tactical range 1-10 deg/h (El-Sheimy and Youssef 2020, Satellite
Navigation 1:2, Table 1); angle random walk 0.2 deg/sqrt(h), between industrial (ADIS16465
0.15) and consumer MEMS (BMI088 0.84); accelerometer bias 10 micro-g, the residual an aided
filter leaves, between ADIS16465's in-run 3.6 micro-g and a navigation-grade 25 micro-g
(HG9900); velocity random walk 0.03 m/s/sqrt(h), between ADIS16465 (0.012) and KVH 1750 (0.071);
velocity_sigma_mps 0.014 (0.05 km/h RMS) a GNSS-aided filter's velocity accuracy (not verified
against a datasheet). ``ins.imu_grade`` (navsense.config.error_presets) sets the four inertial
terms and the tilt from one datasheet of a grade: consumer_mems, industrial, tactical,
navigation.
With the defaults the horizontal 1-sigma per axis is 0.30 m after a 10 s outage and 10.5 m after
60 s, most of it the tilt of 0.03 deg (g 0.03 deg T^2/2: 0.26 m and 9.2 m; before issue 30 the
drift started from the 0.0006 deg alone: 0.15 m and 5.0 m; tests/sensors/test_ins_aiding.py).

Random values: the stream Pcg32(seed + 10007 + 7919 agent, 16) (a sequence no other stream of
navsense uses: the specification uses 1, 2, 4, 6; navsense 8, 10 to 14), 18 Gaussians at the
first epoch of each outage, none otherwise (with noise off the sigmas are 0 and the draws go on).
"""

from __future__ import annotations

import math

import numpy as np

from navsense.config.typed.ins import InsConfig
from navsense.constants import DEG as _DEG
from navsense.constants import GRAVITY_MPS2
from navsense.gauss_markov import AnchoredScan
from navsense.rng import Pcg32
from navsense.sensors.gnss.fixstate import DGPS, NO_FIX, RTK_FIXED, RTK_FLOAT, SINGLE
from navsense.truth.states import TruthStates

__all__ = [
    "GnssAiding",
    "DriftModel",
    "AIDING_SEED_OFFSET",
    "AIDING_SEQUENCE",
    "DRIFT_DRAWS",
    "INS_STATES",
    "NOT_INITIALISED",
    "DEAD_RECKONING",
    "filtered_variance",
]

AIDING_SEED_OFFSET = 10007  # navsense: the aided INS's drift stream Pcg32(seed + 10007 + ..., 16)
AIDING_SEQUENCE = 16  # navsense: sequence 16 (the specification uses 1, 2, 4, 6)
AGENT_SEED_STRIDE = 7919  # as the INS's own stream: + 7919 x agent index
DRIFT_DRAWS = 18  # Gaussians per outage (module docstring)

# INS states, numbered as the GGA quality (6: "estimated (dead reckoning)")
NOT_INITIALISED = 0
DEAD_RECKONING = 6
INS_STATES = {
    NOT_INITIALISED: "not_initialised",
    SINGLE: "single",
    DGPS: "dgps",
    RTK_FIXED: "rtk_fixed",
    RTK_FLOAT: "rtk_float",
    DEAD_RECKONING: "dead_reckoning",
}
_RANK = {NO_FIX: 0, SINGLE: 1, DGPS: 2, RTK_FLOAT: 3, RTK_FIXED: 4}

_MODE_NOT_INITIALISED, _MODE_AIDED, _MODE_DEAD_RECKONING = 0, 1, 2
_UG = 1e-6 * GRAVITY_MPS2  # one micro-g in m/s^2


def filtered_variance(sigma: np.ndarray, phi, big_a) -> np.ndarray:
    """Steady-state variance of y_j = A y_j-1 + (1 - A) x_j for x a Gauss-Markov sequence of
    1-sigma ``sigma`` and correlation ``phi`` per step: sigma^2 (1 - A)(1 + A phi) /
    ((1 + A)(1 - A phi)) (phi = 0: white noise, (1 - A) / (1 + A))."""
    ap = big_a * phi
    return sigma * sigma * ((1.0 - big_a) * (1.0 + ap) / ((1.0 + big_a) * (1.0 - ap)))


# (axis, draw, term, sign) of the position error (terms: _DriftModel.terms)
_POSITION_TERMS = (
    (0, 0, "v", 1.0),
    (0, 3, "a", 1.0),
    (0, 7, "tilt", 1.0),
    (0, 10, "gyro", 1.0),
    (0, 12, "vrw", 1.0),
    (0, 16, "arw", 1.0),
    (1, 1, "v", 1.0),
    (1, 4, "a", 1.0),
    (1, 6, "tilt", -1.0),
    (1, 9, "gyro", -1.0),
    (1, 13, "vrw", 1.0),
    (1, 15, "arw", -1.0),
    (2, 2, "v", 1.0),
    (2, 5, "a", 1.0),
    (2, 14, "vrw", 1.0),
)
# (axis, draw, term) of the attitude error (ENU rotation vector)
_ATTITUDE_TERMS = tuple(
    (axis, draw, term)
    for axis in range(3)
    for draw, term in ((6 + axis, "phi0"), (9 + axis, "gyro_rate"), (15 + axis, "arw_angle"))
)


class DriftModel:
    """The dead-reckoning error of an outage as closed forms in T (module docstring).

    ``DriftModel(drift, noise)``: the ``ins.drift`` block (InsDriftConfig) converted to SI:
    sigma_v m/s, sigma_phi rad, sigma_a m/s^2, sigma_g rad/s, N_v m/s/sqrt(s), N_g rad/sqrt(s);
    all zero with noise off. Every term is c T^p: the position c T^p, its velocity c p T^(p-1),
    its variance c^2 T^(2p); the attitude terms c T^p likewise.
    """

    def __init__(self, drift, noise: bool = True, attitude_sigma_rad: float = 0.0) -> None:
        k = 1.0 if noise else 0.0
        g = GRAVITY_MPS2
        # the INS's own tilt carried into the outage (about E and N, sigma_theta each): its
        # position term g phi_c T^2 / 2, a known value at the loss, not a draw
        self.carried = g * k * attitude_sigma_rad / 2.0
        sigma_v = k * drift.velocity_sigma_mps
        sigma_phi = k * drift.tilt_sigma_deg * _DEG
        sigma_a = k * drift.accel_bias_ug * _UG
        sigma_g = k * drift.gyro_bias_deg_per_h * _DEG / 3600.0
        n_v = k * drift.accel_vrw_mps_per_sqrt_h / 60.0
        n_g = k * drift.gyro_arw_deg_per_sqrt_h * _DEG / 60.0
        # term -> (c, p)
        self.terms = {
            "v": (sigma_v, 1.0),  # sigma_v T
            "a": (sigma_a / 2.0, 2.0),  # sigma_a T^2 / 2
            "tilt": (g * sigma_phi / 2.0, 2.0),  # g sigma_phi T^2 / 2
            "gyro": (g * sigma_g / 6.0, 3.0),  # g sigma_g T^3 / 6
            "vrw": (n_v / math.sqrt(3.0), 1.5),  # N_v sqrt(T^3 / 3)
            "arw": (g * n_g / math.sqrt(20.0), 2.5),  # g N_g sqrt(T^5 / 20)
            "phi0": (sigma_phi, 0.0),  # attitude: phi_0
            "gyro_rate": (sigma_g, 1.0),  # sigma_g T
            "arw_angle": (n_g, 0.5),  # N_g sqrt(T)
        }
        rows, draws, c, p = [], [], [], []
        for axis, draw, term, sign in _POSITION_TERMS:
            rows.append(axis)
            draws.append(draw)
            c.append(sign * self.terms[term][0])
            p.append(self.terms[term][1])
        self._pos = (np.array(rows), np.array(draws), np.array(c), np.array(p))
        rows, draws, c, p = [], [], [], []
        for axis, draw, term in _ATTITUDE_TERMS:
            rows.append(6 + axis)
            draws.append(draw)
            c.append(self.terms[term][0])
            p.append(self.terms[term][1])
        self._att = (np.array(rows), np.array(draws), np.array(c), np.array(p))
        horizontal = self._pos[0] < 2
        # the mean of east and north, with the carried tilt's (g sigma_theta / 2)^2 T^4
        self._h_c2 = np.append(0.5 * self._pos[2][horizontal] ** 2, self.carried**2)
        self._h_2p = np.append(2.0 * self._pos[3][horizontal], 4.0)

    def coefficients(self, t_s: np.ndarray) -> np.ndarray:
        """D(T): (m, 9, 18), rows position (E, N, U), velocity, attitude; columns the draws."""
        t = np.maximum(np.asarray(t_s, dtype=np.float64), 0.0)[:, None]
        d = np.zeros((t.shape[0], 9, DRIFT_DRAWS))
        rows, draws, c, p = self._pos
        d[:, rows, draws] = c * t**p
        d[:, rows + 3, draws] = c * p * t ** (p - 1.0)
        rows, draws, c, p = self._att
        d[:, rows, draws] = c * t**p
        return d

    def evaluate(
        self, t_s: np.ndarray, xi: np.ndarray, tilt: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """(D(T) xi (m, 9): position, velocity, attitude errors; V(T) (m, 3) the position
        variances) at times T since the last aided epoch; ``tilt`` (2,): the INS's own tilt
        (phi_c,E, phi_c,N) at the loss, rad, which adds g phi_c,N T^2 / 2 east and
        -g phi_c,E T^2 / 2 north (velocity g phi_c T) and (g sigma_theta T^2 / 2)^2 to the
        horizontal variances (module docstring, "The tilt at the loss")."""
        d = self.coefficients(t_s)
        values = d @ xi
        variances = np.einsum("mij,mij->mi", d[:, 0:3], d[:, 0:3])
        if self.carried:
            t = np.maximum(np.asarray(t_s, dtype=np.float64), 0.0)
            gain = GRAVITY_MPS2 * t * t / 2.0  # g T^2 / 2
            ct = np.zeros(2) if tilt is None else np.asarray(tilt, dtype=np.float64)
            values[:, 0] += gain * ct[1]
            values[:, 1] -= gain * ct[0]
            values[:, 3] += GRAVITY_MPS2 * t * ct[1]
            values[:, 4] -= GRAVITY_MPS2 * t * ct[0]
            variances[:, 0:2] += (self.carried * t * t)[:, None] ** 2
        return values, variances

    def horizontal_variance(self, t_s: float) -> float:
        """V_h(T): the mean of the east and north variances at one T (the state decision)."""
        return float(np.dot(self._h_c2, max(t_s, 0.0) ** self._h_2p))


class GnssAiding:
    """The aiding of one INS by its receiver: per INS epoch the state, the position, velocity
    and attitude errors and the position variance (module docstring).

    ``GnssAiding(config, receiver, agent=0)``: ``config`` the typed ins section
    (``aiding_tau_s``, ``drift``, ``seed``, ``noise``), ``receiver`` a GnssReceiver of the run's
    gnss configuration (fed every chunk, so it must be this INS's own instance).
    """

    def __init__(self, config: InsConfig, receiver, agent: int = 0) -> None:
        self.receiver = receiver
        self.tau_f = float(config.aiding_tau_s)
        self.drift = DriftModel(config.drift, config.noise, config.attitude_sigma_deg * _DEG)
        self.stream_seed = config.seed + AIDING_SEED_OFFSET + AGENT_SEED_STRIDE * int(agent)
        self.rng_sequence = AIDING_SEQUENCE
        self.rng = Pcg32(self.stream_seed, AIDING_SEQUENCE)
        self.multipath_tau_s = float(receiver.config.errors.multipath_tau_s)
        self.period_s = 1.0 / float(config.hz)
        # the receiver's last epoch (fix, error (3), variance (3), P_ss (3)) and its number
        self._held: tuple | None = None
        self._count = 0  # receiver epochs seen
        self._last_id = -1  # the receiver epoch the previous INS epoch held (-1: none)
        self._mode = _MODE_NOT_INITIALISED
        self._rank = 0  # rank of the fix the filter used last
        self._p_ref = 0.0  # P_ss,h of the last aided epoch
        self._t0 = 0.0  # time of the last aided epoch (dead reckoning)
        self._xi = np.zeros(DRIFT_DRAWS)  # the current outage's draws
        self._t_last = 0.0  # T of the previous dead-reckoning epoch
        self._tilt0 = np.zeros(2)  # the INS's own tilt at the current outage's loss (E, N)
        self._tilt_last = np.zeros(2)  # the INS's own tilt at the previous INS epoch
        self._t_prev: float | None = None  # time of the previous INS epoch
        self._errors = AnchoredScan(9)  # f (E, N, U), dv, phi
        self._sigma_r = AnchoredScan(3)  # s_r, the 1-sigma of the receiver's part of f
        self._drift_p = AnchoredScan(3)  # D, the variance of the dead-reckoning part of f

    def _receiver_epochs(self, truth: TruthStates):
        """The receiver's epochs of this chunk, after the one held from before: times, fix,
        error, variance sigma^2 and P_ss, each with the held epoch first (if any)."""
        block = self.receiver.process(truth)
        t = np.asarray(block["sample_time_s"], dtype=np.float64)
        fix = np.asarray(block["fix"], dtype=np.int64)
        err = np.asarray(block["error_enu_m"], dtype=np.float64).reshape(-1, 3)
        sigma = np.asarray(block["sigma_enu_m"], dtype=np.float64).reshape(-1, 3)
        # P_ss of each epoch: the three terms smoothed at the receiver's interval
        big_a = np.exp(-np.asarray(block["dt_s"], dtype=np.float64) / self.tau_f)[:, None]
        dt = np.asarray(block["dt_s"], dtype=np.float64)[:, None]
        phi = np.exp(-dt / np.asarray(block["tau_s"], dtype=np.float64)[:, None])
        phi_m = np.exp(-dt / self.multipath_tau_s)
        pss = (
            filtered_variance(np.asarray(block["sigma_gm_m"]).reshape(-1, 3), phi, big_a)
            + filtered_variance(np.asarray(block["sigma_white_m"]).reshape(-1, 3), 0.0, big_a)
            + filtered_variance(np.asarray(block["sigma_mp_m"]).reshape(-1, 3), phi_m, big_a)
        )
        held: tuple = self._held or (  # before the first epoch: none, no fix
            np.array([-np.inf]),
            np.array([NO_FIX]),
            np.zeros((1, 3)),
            np.zeros((1, 3)),
            np.zeros((1, 3)),
            np.ones(1),
        )
        out = (
            np.concatenate([held[0], t]),
            np.concatenate([held[1], fix]),
            np.concatenate([held[2], err]),
            np.concatenate([held[3], sigma * sigma]),
            np.concatenate([held[4], pss]),
            np.concatenate([held[5], np.asarray(block["tau_s"], dtype=np.float64)]),
        )
        first_id = self._count - 1  # the held epoch's number (-1: none yet)
        if t.shape[0]:
            self._held = tuple(x[-1:].copy() for x in out)
            self._count += t.shape[0]
        return out, first_id

    def run(
        self, truth: TruthStates, t_s: np.ndarray, tilt_enu: np.ndarray | None = None
    ) -> dict[str, np.ndarray]:
        """The INS epochs at times ``t_s`` (m,) of this chunk; ``tilt_enu`` (m, 2) the INS's own
        tilt at each of them (the specification's roll and pitch errors about east and north,
        rad; None: zero): ``state`` (m,) INS state codes,
        ``initialised`` (m,), ``position_error_enu_m``, ``velocity_error_enu_mps``,
        ``attitude_error_enu_rad``, ``variance_enu_m2`` (m, 3)."""
        (g_t, g_fix, g_err, g_var, g_pss, g_tau), first_id = self._receiver_epochs(truth)
        t_s = np.asarray(t_s, dtype=np.float64)
        m = t_s.shape[0]
        j = np.searchsorted(g_t, t_s, side="right") - 1  # the held receiver epoch (>= 0)
        ids = first_id + j
        new = ids != np.concatenate([[self._last_id], ids[:-1]])
        if m:
            self._last_id = int(ids[-1])
        fix = g_fix[j]
        pss_h = 0.5 * (g_pss[:, 0] + g_pss[:, 1])

        # the state at each INS epoch with a new receiver epoch (the only loop: receiver rate)
        mode = np.empty(m, dtype=np.int8)
        init = np.zeros(m, dtype=bool)
        starts: dict[int, float] = {}  # INS epoch where an outage begins -> its t_0
        exits: dict[int, float] = {}  # INS epoch where aiding resumes -> the outage's t_0
        carried_t0 = self._t0  # t_0 of an outage that goes on from the previous chunk
        k_prev = 0
        for k in np.flatnonzero(new).tolist():
            mode[k_prev:k] = self._mode
            k_prev = k
            f, jk = int(fix[k]), int(j[k])
            if self._mode == _MODE_NOT_INITIALISED:
                if f != NO_FIX:
                    self._mode, self._rank, self._p_ref = _MODE_AIDED, _RANK[f], float(pss_h[jk])
                    init[k] = True
            elif self._mode == _MODE_AIDED:
                rank = _RANK.get(f, 0)
                if f == NO_FIX or (rank < self._rank and float(pss_h[jk]) > self._p_ref):
                    self._mode = _MODE_DEAD_RECKONING
                    # t_0: the previous INS epoch, the last aided one (one exists: aided before)
                    self._t0 = float(t_s[k - 1]) if k else float(self._t_prev or 0.0)
                    starts[k] = self._t0
                else:
                    self._rank, self._p_ref = rank, float(pss_h[jk])
            elif f != NO_FIX and float(pss_h[jk]) <= self._p_ref + self.drift.horizontal_variance(
                float(t_s[k]) - self._t0
            ):
                self._mode, self._rank, self._p_ref = _MODE_AIDED, _RANK[f], float(pss_h[jk])
                exits[k] = self._t0
        mode[k_prev:m] = self._mode

        # dt since the previous INS epoch
        prev = np.empty(m)
        if m:
            prev[0] = self.period_s if self._t_prev is None else t_s[0] - self._t_prev
            prev[1:] = np.diff(t_s)
        a = np.exp(-prev / self.tau_f)
        aided = mode == _MODE_AIDED
        dr = mode == _MODE_DEAD_RECKONING
        a = np.where(aided, a, 1.0)
        a[init] = 0.0
        drive = np.zeros((m, 9))
        drive_s = np.zeros((m, 3))
        drive_p = np.zeros((m, 3))
        drive[aided, 0:3] = (1.0 - a[aided, None]) * g_err[j[aided]]
        target = np.sqrt(np.where(init[:, None], g_var[j], g_pss[j]))
        drive_s[aided] = (1.0 - a[aided, None]) * target[aided]
        tilt = np.zeros((m, 2)) if tilt_enu is None else np.asarray(tilt_enu, dtype=np.float64)
        if dr.any():
            self._drift_drives(t_s, dr, starts, carried_t0, drive, drive_p, tilt)
        if m:
            self._tilt_last = tilt[-1].copy()
        err = self._errors.run(a, drive)
        # aiding resumes: the receiver's part frozen at t_0 keeps its correlation rho with the
        # receiver's error now (the Gauss-Markov u of tau_g); the rest joins Q
        a_s = a.copy()
        rho = np.ones(m)
        for k, t0 in exits.items():
            rho[k] = math.exp(-(float(t_s[k]) - t0) / float(g_tau[j[k]]))
            a_s[k] *= rho[k]
        s_before = self._sigma_r.last.copy()
        s_r = self._sigma_r.run(a_s, drive_s)
        for k in exits:
            s_prev = s_r[k - 1] if k else s_before
            drive_p[k] += a[k] * a[k] * (1.0 - rho[k] * rho[k]) * s_prev * s_prev
        var = s_r * s_r + self._drift_p.run(np.where(dr, 1.0, a * a), drive_p)
        if m:
            self._t_prev = float(t_s[-1])

        state = np.where(aided, fix, NOT_INITIALISED)
        state = np.where(dr, DEAD_RECKONING, state)
        return {
            "state": state.astype(np.int64),
            "initialised": mode != _MODE_NOT_INITIALISED,
            "position_error_enu_m": err[:, 0:3],
            "velocity_error_enu_mps": err[:, 3:6],
            "attitude_error_enu_rad": err[:, 6:9],
            "variance_enu_m2": var,
        }

    def _drift_drives(self, t_s, dr, starts, carried_t0, drive, drive_p, tilt) -> None:
        """The increments D(T_k) xi - D(T_k-1) xi and V(T_k) - V(T_k-1) of the dead-reckoning
        epochs, run by run (a run continues an outage of the previous chunk or starts one); an
        outage's tilt at the loss is ``tilt`` (m, 2) of its last aided epoch, the one before
        its first (the previous chunk's last epoch for the first of a chunk)."""
        idx = np.flatnonzero(dr)
        # runs of consecutive dead-reckoning epochs
        breaks = np.flatnonzero(np.diff(idx) > 1) + 1
        t0 = carried_t0
        for run in np.split(idx, breaks):
            k0 = int(run[0])
            if k0 in starts:  # a new outage: its draws, T from 0
                self._xi = self.rng.gaussians(DRIFT_DRAWS)
                self._tilt0 = (tilt[k0 - 1] if k0 else self._tilt_last).copy()
                self._t_last = 0.0
                t0 = starts[k0]
            t = np.concatenate([[self._t_last], t_s[run] - t0])
            values, variances = self.drift.evaluate(t, self._xi, self._tilt0)
            if k0 in starts:  # from no drift: the velocity error and tilt appear at the loss
                values[0] = 0.0
            drive[run] = np.diff(values, axis=0)
            drive_p[run] = np.diff(variances, axis=0)
            self._t_last = float(t[-1])
