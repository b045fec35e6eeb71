"""``navsense live``'s stop request, made by a signal's handler in the main thread: the handler
takes no lock, so a stop that lands inside the pacer's own wait ends the run (with a
``threading.Event`` it hung: ``Event.set`` waited for the lock its ``wait`` held), and a second
stop inside a region of ``stops_deferred`` is raised at the region's end, not inside it."""

from __future__ import annotations

import signal

import pytest

from stop_children import stops_of_loops

# SIGALRM at a random moment of a tight loop of the pacer's waits, with the live command's own
# handler: hundreds of stops, each ends its loop (the loop's own end, 0.4 s on, counts no stop:
# a timer's signal is now and then lost here, not the handler's doing)
_WAITS = """
import faulthandler, random, signal
from navsense.commands.live import _stop_on_signals
from navsense.live.pacing import Pacer, StopRequest

faulthandler.dump_traceback_later(45, exit=True)  # a hang ends the child with its stacks
random.seed(7)
stops = 0
for trial in range(300):
    stop = StopRequest()
    with _stop_on_signals(stop):
        signal.signal(signal.SIGALRM, signal.getsignal(signal.SIGINT))
        pacer = Pacer(1.0)
        pacer.start(0.0)
        signal.setitimer(signal.ITIMER_REAL, random.uniform(0.0, 0.005))
        k = 0  # a step every 20 us: each wait a few microseconds, or none when late
        while k < 20000 and pacer.wait_until(k * 2e-5, stop):
            k += 1
        stops += stop.is_set()
        signal.setitimer(signal.ITIMER_REAL, 0)
    stop.close()
print("ended", stops)
"""


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="POSIX timers")
def test_a_stop_during_the_pacers_wait_ends_the_run():
    assert stops_of_loops(_WAITS) > 250  # nearly every loop was ended by its stop


def test_a_second_stop_in_a_deferred_region_is_raised_at_its_end():
    from navsense._runtime import process
    from navsense.commands.live import _stop_on_signals
    from navsense.live.pacing import StopRequest

    previous = signal.signal(signal.SIGINT, process.raise_interrupt)
    stop = StopRequest()
    try:
        with pytest.raises(KeyboardInterrupt):
            with _stop_on_signals(stop):
                signal.raise_signal(signal.SIGINT)  # the first: a request
                assert stop.is_set() and stop.wait(0)
                with process.stops_deferred():
                    signal.raise_signal(signal.SIGINT)  # the second: held here
                    reached_region_end = True
                pytest.fail("the region's end did not raise")
        assert reached_region_end
    finally:
        stop.close()
        signal.signal(signal.SIGINT, previous)


def test_a_stop_before_the_first_step_writes_a_run_of_no_step(tmp_path, capsys):
    """Ctrl-C between the start of the serving and its first step: the run's line said the time
    of its last step, None (an internal error, exit 2); now the run of no step is written."""
    import contextlib
    from unittest import mock

    from conftest import open_sky_circle
    from navsense.cli import main
    from navsense.live import pacing
    from navsense.truth.io import write_truth

    write_truth(open_sky_circle(240), tmp_path / "truth.csv")
    serve = pacing.serve_paced

    def stopped_at_once(truth, live, *args, stop, **kwargs):
        stop.set()
        return serve(truth, live, *args, stop=stop, **kwargs)

    argv = ["live", "--truth", "truth.csv", "--no-foxglove", "--speed", "100", "--out", "out"]
    with (
        contextlib.chdir(tmp_path),
        mock.patch("navsense.live.pacing.serve_paced", side_effect=stopped_at_once),
    ):
        assert main(argv) == 0
    out, err = capsys.readouterr()
    assert err == "" and "navsense live: stopped before the first physics step" in out
    assert '"steps": 0' in (tmp_path / "out" / "episode.json").read_text()
