"""One epoch of the INS on a record kept from epoch to epoch: the streaming INS's path (issue 31).

navsense.ins_stream.Ins runs one epoch a call. :meth:`navsense.sensors.ins.InsCore.run` for one
epoch spends more on its Python (about ten allocations, the block dict, the chain's work rows)
than on its arithmetic; :class:`InsOne` runs the same operations on one float64 record (the
slots of navsense.sensors.ins_kernels) and the chain's work rows
(navsense.geo.fix_chain.FixRows), both kept from epoch to epoch::

    head(t)   dt = t - t_prev and a = exp(-dt / tau_p) (numpy's exp, remembered by dt: the same
              dt gives the same a), or dt = 1/f and a = 0 on the first epoch; gravity alone on
              the first epoch and after a reset
    run(t)    18 Gaussians of the INS stream; ins_kernels.one_epoch (the Gauss-Markov states,
              epoch_vectors' and attitude_and_body's equations); fix_chain.run_chain (the datum
              chain and UTM, numpy's transcendental functions between its kernels);
              ins_kernels.one_utm (utm_attitudes' equations, then v_prev = v_n)

the operations of InsCore.run for one epoch on the same values in the same order, so the same
bits (tests/sensors/test_ins_one.py; the stream against the batch model in
tests/sensors/test_ins.py). The record's outputs are read through :data:`SLOTS` (the layout's
frame is one ``take``, navsense.output.layouts.ins.InsLayout.frame_index); a frame taken is a
new array, so the record is overwritten at the next epoch without touching it.

State: the time of the previous epoch, the pending reset and the random stream stay InsCore's
(``t_prev``, ``reset_pending``, ``rng``); the Gauss-Markov states and the previous epoch's v_n
live in the record from the first epoch on, so an InsCore given to InsOne runs every epoch
through it (never InsCore.run). The chain is fix_chain's on kept rows where InsCore.run's is
(the ACRE site, a NAD83 frame, northern UTM), else Georeference.ins_fix_rows as InsCore.run
calls it (another site, the frame wgs84_g2139, the southern UTM). InsOne applies where
imu.earth is none (the Earth's terms come between its kernels' equations: :meth:`InsOne.of`
gives None, and the caller keeps InsCore.run).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from navsense.errors import DatumError
from navsense.geo.fix_chain import ALPHA, EAST, HEIGHT, LAT, LON, NORTH, FixRows, run_chain
from navsense.sensors import ins_kernels as _k
from navsense.sensors.ins import DRAWS_PER_EPOCH, InsCore

__all__ = ["InsOne", "SLOTS"]

# block key (navsense.sensors.ins) -> (first slot, values) of the record
SLOTS: dict[str, tuple[int, int]] = {
    "sample_time_s": (_k.T, 1),
    "dt_s": (_k.DT, 1),
    "error_states": (_k.X, 6),
    "position_enu_m": (_k.P_INS, 3),
    "orientation_enu_xyzw": (_k.Q_INS, 4),
    "velocity_flu_mps": (_k.BODY, 3),
    "specific_force_flu_mps2": (_k.BODY + 3, 3),
    "angular_velocity_flu_radps": (_k.BODY + 6, 3),
    "lat_deg": (_k.LAT, 1),
    "lon_deg": (_k.LON, 1),
    "height_m": (_k.HEIGHT, 1),
    "utm_m": (_k.UTM, 3),
    "orientation_utm_xyzw": (_k.Q_UTM, 4),
    "grid_rotation_deg": (_k.GRID_DEG, 1),
    "covariance_enu_m2": (_k.COVARIANCE, 3),
    "truth_position_enu_m": (_k.P_N, 3),
    "truth_utm_m": (_k.TRUTH_UTM, 3),
    "truth_orientation_utm_xyzw": (_k.TRUTH_Q_UTM, 4),
    "truth_speed_mps": (_k.SPEED, 1),
}
_A_KEPT = 4096  # the a = exp(-dt / tau_p) remembered (by dt); a stream at a steady rate has few


class InsOne:
    """One epoch at a time of ``core`` (an InsCore before its first epoch) on a kept record;
    ``constants`` (name -> value) are put in slots of their own after the outputs (the frame's
    constant fields), listed with the outputs' in :attr:`slots`. Build it with :meth:`of`."""

    def __init__(self, core: InsCore, fix_par: np.ndarray | None, constants: Mapping[str, float]):
        if core.t_prev is not None:
            raise ValueError("InsOne takes an InsCore before its first epoch")
        self._core = core
        self._fix_par = fix_par
        self._zone = core.config.utm_zone
        self._tau = core.config.position_tau_s
        s = self.record = np.zeros(_k.RECORD + len(constants))
        s[_k.PAR : _k.PAR + len(_k.PARAMETERS)] = core._par
        s[_k.PRODUCT] = 1.0  # AnchoredScan's state before its first epoch: P = 1, the rest 0
        s[_k.COVARIANCE : _k.COVARIANCE + 3] = core.sigmas.fix_covariance_m2
        self.slots = dict(SLOTS)
        for i, (name, value) in enumerate(constants.items()):
            s[_k.RECORD + i] = value
            self.slots[name] = (_k.RECORD + i, 1)
        self.inputs = s[: _k.INPUTS]  # written by the caller: head(t) and the epoch's values
        self._t = s[_k.T : _k.T + 1]
        self._pts = np.empty((3, 3))  # the chain's points: p_ins, p_n, P2
        self._rows = FixRows(3, 1, one=True)  # the chain's kernels point by point
        self._a: dict[float, float] = {}
        # the kernels as they run now (use_compiled() comes before: navsense.ins_stream.Ins)
        self._one_epoch, self._one_utm = _k.one_epoch.runner(), _k.one_utm.runner()

    @classmethod
    def of(cls, core: InsCore, constants: Mapping[str, float]) -> InsOne | None:
        """InsOne of ``core`` where it applies (module docstring), else None."""
        if core.earth is not None or core.t_prev is not None:
            return None
        fix_par = None
        if not core._south:
            fix_par = core.georef.nad83_fix_parameters(core.geo_frame, core.config.utm_zone)
        return cls(core, fix_par, constants)

    def head(self, t: float) -> tuple[float, float, float, float]:
        """The record's first four inputs of an epoch at ``t`` (after the previous epoch's time):
        (t, dt, a, gravity) as InsCore.run computes them for one epoch."""
        core = self._core
        t_prev = core.t_prev
        if t_prev is None:  # the first epoch: dt = 1/f (exactly), x = g (a = 0), gravity alone
            return (t, core.period_s, 0.0, 1.0)
        d = t - t_prev
        a = self._a.get(d)
        if a is None:  # numpy's exp (its bits: not math.exp), as InsCore.run
            a = float(np.exp(np.array([-d / self._tau]))[0])
            if len(self._a) < _A_KEPT:
                self._a[d] = a
        return (t, d, a, 1.0 if core.reset_pending else 0.0)

    def run(self, t: float) -> np.ndarray:
        """The epoch whose inputs are in :attr:`inputs` (``t`` its time, as there) -> the record
        (read it before the next epoch). DatumError (InsCore's line) when the point leaves the
        chain's domain; the random stream and the Gauss-Markov states have then moved on, and
        the previous epoch's time and v_n have not (as in InsCore.run)."""
        core = self._core
        s = self.record
        self._one_epoch(s, core.rng.gaussians_view(DRAWS_PER_EPOCH), self._pts)
        try:
            if self._fix_par is not None:
                run_chain(self._rows, self._pts, self._t, self._fix_par, self._zone)
            else:  # Georeference.ins_fix_rows' chain (another site, frame or hemisphere)
                self._fix_rows()
        except DatumError as exc:
            raise core.fix_error(exc) from None
        self._one_utm(s, self._rows.w)
        core.t_prev = t
        core.reset_pending = False
        return s

    def _fix_rows(self) -> None:
        """Georeference.ins_fix_rows of the epoch's points, as InsCore.run calls it, into the
        rows one_utm reads (the fix and the truth point's lat, lon, h, E, N; alpha)."""
        core = self._core
        fix = core.georef.ins_fix_rows(self._pts, self._t, self._zone, core.geo_frame, core._south)
        w = self._rows.w
        for row, values in zip((LAT, LON, HEIGHT, EAST, NORTH), fix):
            w[row, :2] = values[:2]
        w[ALPHA, 0] = fix[5][0]
