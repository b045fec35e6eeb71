"""Fuzz: ``navsense live``'s own options at the edges (--speed, --agent, --host, the ports,
--nmea-pty, --out and its companions), with --duration down to a few physics steps.

A bad option must end in one line before anything is served; a good one serves the base truth
log (2 s). The wall clock is taken out of the pacing here (:meth:`Pacer.wait_until` returns at
once), so that a valid ``--speed 0.001`` is a fast example; the truth source and sensor options
``live`` shares with ``simulate`` are fuzzed there (test_fuzz_options.py).
"""

from __future__ import annotations

import contextlib
import shutil
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fuzz.fuzz_helpers import (
    check_outcome,
    check_run_directory,
    fuzz_settings,
    nasty_token,
    run_cli,
    scratch,
    tree,
)

# the kernels a live run uses are compiled before an example's time limit starts (conftest)
pytestmark = pytest.mark.usefixtures("compiled_kernels")

LIVE_OPTIONS: dict[str, list[str]] = {
    "--speed": [
        "0",
        "-1",
        "nan",
        "inf",
        "-inf",
        "1e-300",
        "1e-9",
        "0.0009",
        "0.001",
        "1e9",
        "1.0000001e9",
        "1e307",
    ]
    + ["1", "1e6", "1e7", "1e300"],
    "--agent": ["-1", "0", "1", "1000000", "1000001", "9" * 30],
    "--host": ["127.0.0.1", "0.0.0.0", "::1", "", "1.2.3.4", "a\0b", "-1", "::ffff:127.0.0.1"],
    "--foxglove-port": ["0", "-1", "65535", "65536", "1", "99999999999", "x"],
    "--nmea-tcp": ["0", "-1", "65536", "1", "99999999999"],
    "--nmea-pty": ["", "lnk", "nodir/lnk", "truth.csv", "a\0b", "x" * 300, "/dev/null"],
    "--out": ["out", "", ".", "truth.csv", "nodir/out", "a\0b", "truth.csv/out"],
    "--format": ["jsonl", "parquet", "x"],
    "--save-truth": [],
    "--mcap": [],
    "--no-foxglove": [],
    # a run of a few physics steps served (the least is 3: 0.0167 s at 120 Hz), and beyond
    "--duration": ["1e-300", "0", "-1", "nan", "0.001", "0.0166", "0.0167", "0.017", "0.025"]
    + ["1", "2", "2.5", "1e300"],
}


@contextlib.contextmanager
def no_wall_clock():
    """Pacing without waiting: each step is due at once (unless stopped)."""

    def wait_until(self, t_s, stop=None):
        return stop is None or not stop.is_set()

    with mock.patch("navsense.live.pacing.Pacer.wait_until", wait_until):
        yield


def live_checked(folder, options, *, must_fail=False):
    """``navsense live --truth truth.csv OPTIONS`` in ``folder``, checked by check_outcome; a
    success with --out must leave a complete run directory."""
    argv = ["live", "--truth", "truth.csv", "--quiet", *options]
    if "--foxglove-port" not in options and "--no-foxglove" not in options:
        argv.append("--no-foxglove")  # the default port may be another session's
    before = tree(folder)
    with no_wall_clock():
        outcome = run_cli(argv, folder, timeout_s=120)
    after = tree(folder)
    out = options[options.index("--out") + 1] if "--out" in options else None
    made = tuple(Path(out).parts[:1]) if out else ()  # --out nodir/out makes nodir too
    check_outcome(outcome, before, after, must_fail=must_fail, may_create=made)
    if outcome.code == 0 and out:
        check_run_directory(folder / out)
    return outcome


@fuzz_settings(share=1.5)
@given(
    options=st.dictionaries(
        st.sampled_from(sorted(LIVE_OPTIONS)),
        st.one_of(nasty_token(), st.just("<own>")),
        min_size=1,
        max_size=3,
    ),
    own=st.data(),
)
def test_live_options_at_the_edges(bases, options, own):
    argv: list[str] = []
    for option, value in options.items():
        if not LIVE_OPTIONS[option]:  # a flag
            argv.append(option)
            continue
        if value == "<own>" or own.draw(st.booleans()):
            value = own.draw(st.sampled_from(LIVE_OPTIONS[option]))
        if option == "--foxglove-port" and value == "1":
            value = "0"  # a fixed port may be taken; 0 is any free one
        argv += [option, value]
    if "--foxglove-port" in argv and "--no-foxglove" in argv:
        argv.remove("--no-foxglove")
    with scratch() as folder:
        shutil.copy(bases["truth.csv"], folder / "truth.csv")
        live_checked(folder, argv)


BAD_VALUES = ["0", "-1", "nan", "1e-300", "1e-9", "65536", "1000001", "", "a\0b", "truth.csv"]
#: The values of BAD_VALUES that are good for the option (skipped).
GOOD = {
    "--speed": {"65536", "1000001"},
    "--agent": {"0", "65536"},
    "--foxglove-port": {"0"},
    "--nmea-tcp": {"0"},
    "--out": {"0", "-1", "nan", "1e-300", "1e-9", "65536", "1000001"},
}


@fuzz_settings(share=0.5)
@given(option=st.sampled_from(sorted(GOOD)), value=st.sampled_from(BAD_VALUES))
def test_bad_live_options_fail_before_serving(bases, option, value):
    """A bad value (a port 65536, a speed of 1e-9: 63 years for 2 s) ends in one line before
    the truth is served: serving is an assertion here, and a hang would be a finding."""
    if value in GOOD[option]:
        return
    argv = ["live", "--truth", "truth.csv", "--quiet", option, value]
    if option != "--foxglove-port":
        argv.append("--no-foxglove")
    with scratch() as folder:
        shutil.copy(bases["truth.csv"], folder / "truth.csv")
        before = tree(folder)
        served = AssertionError("served")
        with mock.patch("navsense.live.pacing.serve_paced", side_effect=served):
            outcome = run_cli(argv, folder, timeout_s=60)
        assert "served" not in outcome.err, outcome.describe()
        check_outcome(outcome, before, tree(folder), must_fail=True)


def test_a_live_run_of_the_base_truth(bases):
    """The seed of the examples is valid: live serves it (no wall clock) and writes --out."""
    with scratch() as folder:
        shutil.copy(bases["truth.csv"], folder / "truth.csv")
        outcome = live_checked(folder, ["--out", "out", "--speed", "1", "--nmea-tcp", "0"])
        assert outcome.code == 0, outcome.describe()
