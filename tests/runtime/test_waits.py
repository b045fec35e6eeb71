"""A stop raised while the main thread waits on a run's threads (navsense._runtime.waits): the
wait is never left half done, so the cleanup after the stop ends. Found by CI on stop 36 (a SIGHUP
did not end a run in 60 s). Each case runs in a child process with a timer that raises
Terminated at a random moment of a tight loop of waits, hundreds of times; the same loops with
the plain calls (``future.result()``, ``queue.put``) hang within a few hundred stops."""

from __future__ import annotations

import pytest

from stop_children import run_child, stops_of_loops

_PRELUDE = """
import faulthandler, queue, random, signal, sys, threading
from navsense._runtime import process, waits
from navsense._runtime.pools import WriteQueue

faulthandler.dump_traceback_later(45, exit=True)  # a hang ends the child with its stacks
signal.signal(signal.SIGALRM, process.raise_terminated)
random.seed(7)
stops = 0


def stop_soon():
    signal.setitimer(signal.ITIMER_REAL, random.uniform(0.0, 0.01))


def no_timer():
    signal.setitimer(signal.ITIMER_REAL, 0)
"""

_WRITE_QUEUE = """
for trial in range(TRIALS):
    writes = WriteQueue()
    try:
        stop_soon()
        for i in range(5000):
            writes.submit(abs, i)
    except process.Terminated:
        stops += 1
    finally:
        no_timer()
        writes.close()
print("ended", stops)
"""

_FEEDER = """
def drain(q):
    while q.get() is not None:
        pass


for trial in range(TRIALS):
    q = queue.Queue(maxsize=3)
    feeder = threading.Thread(target=drain, args=(q,))
    waits.start(feeder)
    try:
        stop_soon()
        for i in range(20000):
            waits.put(q, i)
    except process.Terminated:
        stops += 1
    finally:
        no_timer()
        with process.stops_deferred():
            q.put(None)
        waits.join(feeder)
print("ended", stops)
"""


@pytest.mark.skipif(not hasattr(__import__("signal"), "setitimer"), reason="POSIX timers")
@pytest.mark.parametrize("loop", [_WRITE_QUEUE, _FEEDER], ids=["write-queue", "feeder-queue"])
def test_a_stop_during_the_waits_never_leaves_a_lock_behind(loop):
    # nearly every trial was stopped mid-loop
    assert stops_of_loops(_PRELUDE + loop.replace("TRIALS", "300")) > 250


def test_a_stop_in_a_region_is_raised_at_its_end_and_only_there():
    import signal

    from navsense._runtime import process

    previous = signal.signal(signal.SIGALRM, process.raise_terminated)
    try:
        with pytest.raises(process.Terminated) as stopped:
            with process.stops_deferred():
                with process.stops_deferred():
                    signal.raise_signal(signal.SIGALRM)
                    signal.raise_signal(signal.SIGALRM)
                reached_inner_end = True
            pytest.fail("the region's end did not raise")
        assert reached_inner_end and stopped.value.signum == signal.SIGALRM
        with process.stops_deferred():  # nothing held over from the region before
            pass
    finally:
        signal.signal(signal.SIGALRM, previous)


_SWALLOWED = """
import signal, sys, time, weakref
from navsense._runtime import process

signal.signal(signal.SIGHUP, signal.SIG_DFL)  # as a terminal's, whatever was inherited (nohup)
previous = process.stop_signals_raise()


class Owner:
    pass


for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    owner = Owner()
    ref = weakref.ref(owner, lambda _, s=signum: signal.raise_signal(s))
    try:
        del owner  # the callback runs here: the stop's handler raises inside it
        time.sleep(5)
        print("lost", signum)
    except (process.Terminated, KeyboardInterrupt) as exc:
        print("raised", process.stop_line(exc)[1])
owner = Owner()  # once stopped: a __del__ of what the stop left half made fails unseen
ref = weakref.ref(owner, lambda _: Owner()._owned)
del owner
process.stop_signals_restore(previous)
"""


@pytest.mark.skipif(not hasattr(__import__("signal"), "setitimer"), reason="POSIX timers")
def test_a_stop_that_a_callback_swallowed_is_raised_after_it():
    """A stop raised inside a callback that Python calls from C (here a weakref's; in the hunt
    importlib's module-lock callback and numba's object cache) cannot leave it: Python printed
    'Exception ignored in' with its traceback and the command ran on to exit 0. It is raised
    again once the callback is over; after a stop, another callback's failure is left unsaid."""
    proc = run_child(_SWALLOWED)
    assert proc.returncode == 0 and not proc.stderr, proc.stderr[-3000:]
    assert proc.stdout.split("\n")[:3] == ["raised 143", "raised 130", "raised 129"], proc.stdout
