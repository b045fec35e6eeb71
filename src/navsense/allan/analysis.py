"""The overlapping Allan deviation of a run's IMU rows and the error terms read off it.

For each axis of ``angular_velocity_flu_radps`` and ``specific_force_flu_mps2`` (rates, the
``freq`` data of allantools), at averaging times tau = m / rate (m whole samples, about ten a
decade from one sample to a tenth of the run: at least ten clusters), the overlapping Allan
deviation of allantools (``allantools.oadev``; IEEE Std 1139-2008 eq. (9))::

    AVAR(tau) = 1 / (2 m^2 (M - 2m + 1)) sum_j (sum_{i=j}^{j+m-1} (y_{i+m} - y_i))^2

and the readings of IEEE Std 952-1997 Annex C (Table C.2) beside the configured values
(:mod:`navsense.allan.terms`):

- angle (gyro) or velocity (accelerometer) random walk N: the line of slope -1/2 fitted (in
  log-log, slope fixed; each point weighted by 2 (T / tau - 1), the inverse of its relative
  variance) through the contiguous points of tau <= 10 s whose local slope (over the two points either side) is within 0.15 of
  -1/2 nearest tau = 1 s, read at tau = 1 s;
- bias instability B: the minimum of the Allan deviation / 0.664 (sqrt(2 ln 2 / pi), the flicker
  floor), at the tau of the minimum; a minimum at the longest tau is only an upper bound (the
  run is too short to show the floor), and the table says so;
- rate random walk K: the line of slope +1/2 through the last contiguous points (at least three)
  whose local slope is within 0.2 of +1/2, read at tau = 3 s; none: not seen. (The rising
  side of a Gauss-Markov bias, tau < Tc, has that slope too: read as a user reads it.)

The ``expected`` value of each reading is the same reading (:func:`read_curve`) of the Allan
deviation the configured terms add up to (navsense.allan.terms), over the run's taus: what an
infinitely long run would read, so that a model whose curve has no flat floor (the configurable
IMU's Gauss-Markov bias instability) is compared with what it should give.

Uncertainty (stated with each reading): the relative standard error of an overlapping Allan
deviation estimate at tau from a run of length T, ~ 1 / sqrt(2 (T / tau - 1)) (IEEE Std
952-1997 Annex C, C.2: the error of sigma from K = T / tau independent clusters), taken at
tau = 1 s for N (conservative: the fit averages several points), at the minimum for B and at
the last point for K.

The rate is the rows' mean rate, (rows - 1) / (last - first sample time): rows are taken as
consecutive samples (an IMU whose rate does not divide the physics rate samples on the physics
clock with a jitter under one physics step; a truth reset drops a few); a mean rate more than
1 % from imu.hz (rows missing) is refused, naming the largest gap. Ruling: the analysis is
meant for a stationary recording (a still truth log; docs/guide/allan.md); motion adds its own
variance, which the table does not separate.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

import numpy as np

from navsense.allan.terms import FLICKER_FLOOR, SensorTerms, configured_terms
from navsense.errors import DependencyError, FormatError
from navsense.runs.episode import Episode

__all__ = [
    "AXES",
    "MIN_DURATION_S",
    "AllanResult",
    "Reading",
    "allan_of_run",
    "allan_of_rates",
    "read_curve",
    "read_imu_rates",
    "relative_error",
    "require_allantools",
]

#: the six series: (name, sensor, column, axis)
AXES = (
    ("gyro x", "gyro", "angular_velocity_flu_radps", 0),
    ("gyro y", "gyro", "angular_velocity_flu_radps", 1),
    ("gyro z", "gyro", "angular_velocity_flu_radps", 2),
    ("accel x", "accel", "specific_force_flu_mps2", 0),
    ("accel y", "accel", "specific_force_flu_mps2", 1),
    ("accel z", "accel", "specific_force_flu_mps2", 2),
)
#: shortest run analysed: tau reaches 1 s with ten clusters at 10 s; twice that
MIN_DURATION_S = 20.0
MIN_CLUSTERS = 10  # the longest tau: a tenth of the run
#: the rows' mean rate against imu.hz (_check_spacing): a tau off by 1 % at most
RATE_TOLERANCE = 0.01
TAUS_PER_DECADE = 10
SLOPE_SPAN = 2  # the local slope: over two points either side
MAX_WALK_TAU_S = 10.0  # the -1/2 line is fitted up to 10 s (beyond, bias instability adds)


def require_allantools(command: str = "navsense allan") -> None:
    """DependencyError with the one-line hint when allantools (the ``allan`` extra) is not
    installed."""
    import importlib.util

    if importlib.util.find_spec("allantools") is None:
        raise DependencyError(
            f"{command} computes the Allan deviation with allantools, which is not installed: "
            "pip install 'navsense[allan]'"
        )


def relative_error(duration_s: float, tau_s: float) -> float:
    """~ 1 / sqrt(2 (T / tau - 1)): the relative standard error of an Allan deviation at tau
    from a run of T seconds (module docstring)."""
    clusters = duration_s / tau_s
    return 1.0 / math.sqrt(2.0 * (clusters - 1.0)) if clusters > 1.0 else math.inf


@dataclass(frozen=True)
class Reading:
    """One term of one axis: the configured value, what its reading returns on the configured
    process (``expected``), the value read off the run (``fitted``, NaN: not seen), the tau it
    was read at, its relative uncertainty and a note; SI units of the sensor."""

    axis: str
    term: str
    configured: float
    expected: float
    fitted: float
    tau_s: float
    rel_uncertainty: float
    note: str = ""


@dataclass(frozen=True)
class AllanResult:
    """The Allan deviation of the six series (``adev``: (len(tau_s), 6), columns in
    :data:`AXES` order) and the readings."""

    run_dir: str
    rate_hz: float
    duration_s: float
    rows: int
    tau_s: np.ndarray
    adev: np.ndarray
    terms: dict[str, SensorTerms]
    readings: list[Reading] = field(default_factory=list)


def read_imu_rates(run_dir: str | os.PathLike) -> tuple[np.ndarray, np.ndarray, Episode]:
    """(sample times (m,), rates (m, 6) in :data:`AXES` order, episode.json) of a run's IMU
    rows; FormatError for a run without IMU rows, rows with nulls, or too short a run."""
    from navsense.runs.reader import FLOAT, RunReader, vector

    run = RunReader(run_dir)
    if not run.has("imu"):
        raise FormatError(f"{run.path}: no IMU rows (imu.enabled false): nothing to analyse")
    cols = run.columns(
        "imu",
        {
            "sample_time_s": FLOAT,
            "angular_velocity_flu_radps": vector(3),
            "specific_force_flu_mps2": vector(3),
        },
    )
    t = cols["sample_time_s"]
    y = np.hstack([cols["angular_velocity_flu_radps"], cols["specific_force_flu_mps2"]])
    path = run.file("imu")
    bad = np.flatnonzero(~np.isfinite(y).all(axis=1) | ~np.isfinite(t))
    if bad.size:
        raise FormatError(f"{path}: row {bad[0] + 1} has a null or non-finite IMU value")
    duration = float(t[-1] - t[0]) if t.size > 1 else 0.0
    if duration < MIN_DURATION_S:
        raise FormatError(
            f"{path}: {t.size} IMU rows over {duration:g} s: the Allan deviation needs a run of "
            f"at least {MIN_DURATION_S:g} s (a stationary run of an hour or more shows the "
            "bias instability)"
        )
    d = np.diff(t)
    if np.any(d <= 0.0):
        raise FormatError(f"{path}: sample_time_s does not increase")
    episode = run.episode
    if episode.has_config:  # rows missing (module docstring)
        _check_spacing(path, t, d, float(episode.imu_config.hz), episode.physics_hz)
    return t, y, episode


class RowsMissing(FormatError):
    """The IMU rows' mean rate is not imu.hz (:func:`_check_spacing`): rows are missing."""


def _check_spacing(path, t: np.ndarray, d: np.ndarray, imu_hz: float, physics_hz: float) -> None:
    """The rows are taken as consecutive samples at their mean rate (module docstring): that
    rate must be imu.hz within :data:`RATE_TOLERANCE`, else every tau is off by as much.

    Ruling: rows missing from a run (a gap of 300 rows of a 25 s run ran to a table read at
    8 % below the IMU's rate, with no word; found by the fuzz helper) are one line naming the
    largest gap. A few missing rows are not refused: a truth log's reset drops the IMU's samples
    of the two physics steps after it (its differences need two steps), a run of resets more,
    and an IMU whose rate does not divide the physics rate samples with a jitter of one physics
    step; the mean rate of such a run is the IMU's within a fraction of a percent."""
    rate = (t.size - 1) / float(t[-1] - t[0])
    if abs(rate / imu_hz - 1.0) <= RATE_TOLERANCE:
        return
    k = int(np.argmax(np.abs(d - 1.0 / imu_hz)))
    raise RowsMissing(
        f"{path}: {t.size} rows over {float(t[-1] - t[0]):.9g} s are {rate:.6g} Hz, not imu.hz = "
        f"{imu_hz:g} within {RATE_TOLERANCE:.0%} (rows {k + 1} and {k + 2} are {d[k]:.9g} s "
        f"apart, sample_time_s {t[k]:.9g} and {t[k + 1]:.9g}; one physics step is "
        f"{1.0 / physics_hz:.6g} s): the Allan deviation reads its taus at the rows' rate, and "
        "rows are missing (a damaged file, or a truth log's resets, which drop the samples of "
        "two physics steps each)"
    )


def allan_of_run(run_dir: str | os.PathLike) -> AllanResult:
    """The Allan deviation of a run directory's IMU and the readings (module docstring)."""
    require_allantools()
    t, y, episode = read_imu_rates(run_dir)
    if not episode.has_config:
        raise FormatError(f"{run_dir}: episode.json has no config: the configured terms unknown")
    cfg = episode.config
    rate = (t.size - 1) / float(t[-1] - t[0])
    return allan_of_rates(y, rate, configured_terms(cfg), run_dir=str(run_dir))


def _taus(rate_hz: float, rows: int) -> np.ndarray:
    longest = rows / rate_hz / MIN_CLUSTERS
    decades = math.log10(longest * rate_hz)
    k = max(2, int(decades * TAUS_PER_DECADE) + 1)
    m = np.unique(np.round(np.logspace(0.0, decades, k)).astype(np.int64))
    return m / rate_hz


def allan_of_rates(
    y: np.ndarray, rate_hz: float, terms: dict[str, SensorTerms], *, run_dir: str = ""
) -> AllanResult:
    """The Allan deviation of rates ``y`` (m, 6) sampled at ``rate_hz`` and the readings
    against ``terms`` (module docstring)."""
    import allantools

    rows = y.shape[0]
    duration = rows / rate_hz
    taus = _taus(rate_hz, rows)
    adev = np.empty((taus.size, 6))
    for i in range(6):
        got, dev, _, _ = allantools.oadev(y[:, i], rate=rate_hz, data_type="freq", taus=taus)
        if got.size != taus.size:  # allantools keeps the taus of whole samples: ours are
            raise AssertionError("allantools dropped an averaging time")
        adev[:, i] = dev
    readings: list[Reading] = []
    for i, (axis, sensor, _, k) in enumerate(AXES):
        readings += _readings(axis, sensor, taus, adev[:, i], terms[sensor], k, duration)
    return AllanResult(run_dir, rate_hz, duration, rows, taus, adev, terms, readings)


def _local_slope(tau: np.ndarray, sigma: np.ndarray) -> np.ndarray:
    """d log sigma / d log tau at each point, over the points two on either side (half a
    decade: single steps of a noisy long-tau curve wander)."""
    ls, lt = np.log(sigma), np.log(tau)
    n = tau.size
    lo = np.maximum(np.arange(n) - SLOPE_SPAN, 0)
    hi = np.minimum(np.arange(n) + SLOPE_SPAN, n - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (ls[hi] - ls[lo]) / (lt[hi] - lt[lo])


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """The (start, stop) of each run of True in ``mask``."""
    edges = np.diff(np.concatenate([[0], mask.astype(np.int8), [0]]))
    return list(zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)))


def _distance(run: tuple[int, int], i: int) -> int:
    """How many points the run [start, stop) is from point i (0: it holds it)."""
    start, stop = run
    return 0 if start <= i < stop else min(abs(start - i), abs(stop - 1 - i))


@dataclass(frozen=True)
class _Read:
    """The three readings of one Allan deviation curve: value (NaN: not seen), tau, note."""

    walk: float
    walk_note: str
    bias: float
    bias_tau: float
    bias_note: str
    rrw: float
    rrw_tau: float
    rrw_note: str


def read_curve(tau: np.ndarray, sigma: np.ndarray, duration: float) -> _Read:
    """The IEEE Std 952 readings of one Allan deviation curve (module docstring)."""
    positive = sigma > 0.0
    slope = _local_slope(tau, np.where(positive, sigma, np.nan))
    # random walk: the -1/2 line nearest tau = 1 s, up to 10 s, each point weighted by the
    # inverse of its relative variance (~ 2 (T / tau - 1))
    near_one = int(np.argmin(np.abs(np.log(tau))))
    runs = _runs(positive & (np.abs(slope + 0.5) < 0.15) & (tau <= MAX_WALK_TAU_S))
    walk_note = ""
    if runs:
        a, b = min(runs, key=lambda r: _distance(r, near_one))
        w = duration / tau[a:b] - 1.0
        line = np.log(sigma[a:b]) + 0.5 * np.log(tau[a:b])
        walk = float(np.exp(np.sum(w * line) / np.sum(w)))
    else:
        walk = float(sigma[near_one] * math.sqrt(tau[near_one]))
        walk_note = "no slope -1/2: read at the tau nearest 1 s"
    # bias instability: the minimum / 0.664
    i = int(np.argmin(np.where(positive, sigma, np.inf)))
    bias = float(sigma[i] / FLICKER_FLOOR) if positive[i] else 0.0
    bias_note = "minimum at the longest tau: an upper bound" if i == tau.size - 1 else ""
    # rate random walk: the last +1/2 line of at least three points, read at 3 s
    runs = [r for r in _runs(positive & (np.abs(slope - 0.5) < 0.2)) if r[1] - r[0] >= 3]
    if runs:
        a, b = runs[-1]
        rrw = float(np.exp(np.mean(np.log(sigma[a:b]) - 0.5 * np.log(tau[a:b] / 3.0))))
        rrw_tau, rrw_note = float(tau[b - 1]), ""
    else:
        rrw, rrw_tau, rrw_note = math.nan, math.nan, "no slope +1/2"
    return _Read(walk, walk_note, bias, float(tau[i]), bias_note, rrw, rrw_tau, rrw_note)


def _readings(
    axis: str,
    sensor: str,
    tau: np.ndarray,
    sigma: np.ndarray,
    terms: SensorTerms,
    k: int,
    duration: float,
) -> list[Reading]:
    """The three Readings of one axis: the run's curve and the configured one (``expected``),
    read alike."""
    got = read_curve(tau, sigma, duration)
    want = read_curve(tau, np.sqrt(terms.avar(tau)[:, k]), duration)
    rrw_tau = got.rrw_tau if not math.isnan(got.rrw_tau) else want.rrw_tau
    return [
        Reading(
            axis,
            "ARW" if sensor == "gyro" else "VRW",
            float(terms.white[k]),
            want.walk,
            got.walk,
            1.0,
            relative_error(duration, 1.0),
            got.walk_note,
        ),
        Reading(
            axis,
            "bias instability",
            float(terms.bias_instability[k]),
            want.bias,
            got.bias,
            got.bias_tau,
            relative_error(duration, got.bias_tau),
            got.bias_note,
        ),
        Reading(
            axis,
            "rate random walk",
            float(terms.random_walk[k]),
            want.rrw,
            got.rrw,
            rrw_tau,
            relative_error(duration, rrw_tau) if not math.isnan(rrw_tau) else math.nan,
            got.rrw_note,
        ),
    ]
