"""Shared test helpers: analytic truth motions built without navsense's trajectory builders."""

import signal

import numpy as np
import pytest

from navsense.output.columns import rows_from_columns
from navsense.output.layouts import layout_for
from navsense.truth.states import TruthStates

# A suite started in the background by a non-interactive shell (``pytest &``, nohup) inherits
# SIGINT ignored, and so does every command its tests start: Ctrl-C sent by a test then did
# nothing (tests/runtime/test_console.py's SIGINT case failed so, seen). The tests stop their
# commands as a user's terminal does: with SIGINT at its default, which a child gets on exec.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def layout_rows(model, block) -> list[dict]:
    """The rows (without the three time keys) that a run writes for ``model``'s ``block``."""
    return rows_from_columns(layout_for(model).columns(block), len(block["sample_time_s"]))


def stationary_truth(n: int, yaw_rad: float = 0.3, position=(10.0, -5.0, 0.6)) -> TruthStates:
    """A vehicle parked with a heading, n physics steps from step 0."""
    p = np.tile(np.asarray(position, dtype=float), (n, 1))
    q = np.tile([0.0, 0.0, np.sin(yaw_rad / 2), np.cos(yaw_rad / 2)], (n, 1))
    z = np.zeros((n, 3))
    return TruthStates(
        step0=0,
        p_m=p,
        q_xyzw=q,
        v_mps=z.copy(),
        w_radps=z.copy(),
        c_m=p.copy(),
        reset=np.zeros(n, dtype=bool),
    )


def circle_truth(
    n: int, radius_m: float = 25.0, speed_mps: float = 5.0, rate_hz: float = 120.0, step0: int = 0
) -> TruthStates:
    """Counter-clockwise circle about the origin, constant speed, heading along the velocity.

    Chassis origin = centre of mass; angular velocity (0, 0, speed / radius).
    """
    w = speed_mps / radius_m
    t = (step0 + np.arange(n)) / rate_hz
    ang = w * t
    p = np.column_stack([radius_m * np.cos(ang), radius_m * np.sin(ang), np.full(n, 0.6)])
    v = np.column_stack([-speed_mps * np.sin(ang), speed_mps * np.cos(ang), np.zeros(n)])
    yaw = ang + np.pi / 2
    q = np.column_stack([np.zeros(n), np.zeros(n), np.sin(yaw / 2), np.cos(yaw / 2)])
    omega = np.tile([0.0, 0.0, w], (n, 1))
    return TruthStates(
        step0=step0,
        p_m=p,
        q_xyzw=q,
        v_mps=v,
        w_radps=omega,
        c_m=p.copy(),
        reset=np.zeros(n, dtype=bool),
        rate_hz=rate_hz,
    )


def open_sky_circle(n: int, radius_m: float = 30.0, speed_mps: float = 4.0) -> TruthStates:
    """:func:`circle_truth` moved 400 m east and 300 m north of the farmstead: open sky."""
    t = circle_truth(n, radius_m=radius_m, speed_mps=speed_mps)
    shift = np.array([400.0, 300.0, 0.0])
    return TruthStates(t.step0, t.p_m + shift, t.q_xyzw, t.v_mps, t.w_radps, t.c_m + shift, t.reset)


def make_site(boxes=(), cylinders=(), crowns=(), overhead=None):
    """A Site from plain tuples: boxes (min, max); cylinders (x, y, base, top, r); crowns (x, y, z, r).

    ``overhead``: a bool per box, True for a box that does not stand on the ground (its min z is
    its underside, as a building's base_m gives it)."""
    from navsense.site import Site

    cyl = np.array(cylinders, dtype=float).reshape(-1, 5)
    crn = np.array(crowns, dtype=float).reshape(-1, 4)
    return Site(
        name="test",
        georeference=None,
        box_min_m=np.array([b[0] for b in boxes], dtype=float).reshape(-1, 3),
        box_max_m=np.array([b[1] for b in boxes], dtype=float).reshape(-1, 3),
        cyl_xy_m=cyl[:, :2].copy(),
        cyl_base_m=cyl[:, 2].copy(),
        cyl_top_m=cyl[:, 3].copy(),
        cyl_radius_m=cyl[:, 4].copy(),
        crown_center_m=crn[:, :3].copy(),
        crown_radius_m=crn[:, 3].copy(),
        box_overhead=None if overhead is None else np.array(overhead, dtype=bool),
    )


@pytest.fixture
def stationary():
    return stationary_truth


@pytest.fixture
def circle():
    return circle_truth


@pytest.fixture(scope="session")
def compiled_kernels(tmp_path_factory):
    """A live run's compiled kernels, compiled and loaded in this process before a test that
    serves one under a time limit starts its clock.

    ``navsense live`` (a SensorStream) runs the kernels compiled (navsense.kernels.use_compiled,
    once a process). On a fresh checkout or install (CI's new virtual environment, a new
    worktree) numba first compiles them into its cache: about 65 s of CPU for the 55 kernels,
    more than ten minutes of wall time on a machine loaded ten times over (measured). Inside
    a test's limit (the fuzz suite's 120 s an example, test_bad_input's 60 s) that was a Hang,
    reported as an internal error, and the alarm raised inside numba could leave LLVM's lock
    held, on which the next run's model threads waited for ever (the suite hung). One short
    live run here, with no limit, compiles and loads what the tests' live runs use; later
    processes load it from numba's cache.
    """
    from navsense.cli import main
    from navsense.truth.io import write_truth

    folder = tmp_path_factory.mktemp("kernels")
    write_truth(open_sky_circle(240), folder / "truth.csv")
    argv = ["live", "--truth", str(folder / "truth.csv"), "--no-foxglove", "--quiet"]
    assert main([*argv, "--speed", "1e9"]) == 0


# ------------------------------------------------------------------ the fuzz suite's options
def pytest_addoption(parser):
    group = parser.getgroup("navsense fuzz suite (tests/fuzz)")
    group.addoption(
        "--fuzz",
        action="store_true",
        help="long fuzz run: many examples per test (--fuzz-examples), new random ones each run",
    )
    group.addoption(
        "--fuzz-examples",
        type=int,
        default=None,
        metavar="N",
        help="examples per fuzz test (default: 12 in a normal run, 500 with --fuzz)",
    )
