"""Process-wide settings of the ``navsense`` command: one BLAS thread, and its exit.

BLAS. The command line's numeric work is elementwise numpy, never a large matrix product, so it
runs one BLAS thread: OpenBLAS's pool (numpy's and scipy's wheels) otherwise spins for about
0.13 s of CPU after numpy's import, on the cores the models need. OpenBLAS reads the variable
when numpy loads it, so :func:`one_blas_thread` runs before anything imports numpy
(:mod:`navsense._runtime.console`); a value the user has set wins.

The exit. Once a command has closed every file it wrote and joined every worker, the process may
end without the interpreter's teardown (freeing numpy's and pyarrow's modules: 40 to 50 ms, a
sixth of a short run), which has nothing left to do for it: the command calls
:func:`teardown_not_needed`, and :func:`exit_process` then ends the process with ``os._exit``.

Stops. Ctrl-C (KeyboardInterrupt), SIGTERM and SIGHUP (:class:`Terminated`, raised by
:func:`raise_terminated` as the signal's handler) end a command with one line and exit 130, 143
or 129, also when a library has turned one into its own error (:func:`stop_line`): the console
script
while the command line's modules load, :func:`navsense.cli.main` once they have. A stopped
process runs its atexit handlers (multiprocessing's stop its children) and ends with ``os._exit``
too: CPython 3.11's teardown ends a process with SIGINT itself, whatever its exit code, once a
KeyboardInterrupt has left code that ``eval`` or ``exec`` ran from text (``Py_RunMain`` and
``_Py_UnhandledKeyboardInterrupt``), which is what Ctrl-C during ``collections.namedtuple``'s eval
in an import does: the status was -2 instead of 130 after the line had been printed.
A stop that arrives while a child process is forked waits until the fork is done
(:func:`stops_held`): raised in the fork's own callbacks (logging's lock release), Python prints it
as "Exception ignored" and the command went on to its end.
A stop that arrives while the main thread is inside :func:`stops_deferred` (its waits on the
run's threads, :mod:`navsense._runtime.waits`; a run's cleanup) is raised when the region ends:
raised between a lock's acquire and its release inside ``threading``, ``queue`` or
``concurrent.futures``, it left the lock held (the writer thread, then the cleanup that joins
it, hung: a SIGHUP that did not end a run in 60 s, CI of stop 36) or released twice ("release
unlocked lock" printed by the writer thread). The handlers that defer are this module's
(:func:`raise_terminated`, and :func:`raise_interrupt` for Ctrl-C, which the command line installs
in place of Python's own when that is SIGINT's handler); a library user's own handlers are theirs.
A stop raised inside a callback that Python calls from C (a weakref's callback, ``__del__``, a
ctypes callback: importlib's module-lock callback at the end of a lazy import, numba's object
cache) cannot leave it: Python printed "Exception ignored in: ..." with the stop's traceback and
went on, and the command ran to its end (exit 0 after a SIGTERM; found by the stop hunt in
``navsense live``'s start-up). The command line's ``sys.unraisablehook`` (:func:`_unraisable`)
takes such a stop and delivers it again a moment later (SIGALRM, :func:`_raise_lost`), outside the
callback.

Only the console script applies these; importing the library changes no process setting.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator

__all__ = [
    "Terminated",
    "exit_process",
    "one_blas_thread",
    "raise_interrupt",
    "raise_terminated",
    "stop_line",
    "stop_signals_default",
    "stop_signals_raise",
    "stop_signals_restore",
    "stops_deferred",
    "stops_held",
    "stops_released",
    "teardown_not_needed",
]

_SKIP_TEARDOWN = False


def one_blas_thread() -> None:
    """OPENBLAS_NUM_THREADS = 1 unless the user has set it (before numpy is imported)."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def teardown_not_needed() -> None:
    """Every file of the command is closed and every worker joined: :func:`exit_process` may skip the
    interpreter's teardown."""
    global _SKIP_TEARDOWN
    _SKIP_TEARDOWN = True


STOP_CODES = (129, 130, 143)  # SIGHUP, Ctrl-C, SIGTERM


def exit_process(code: int) -> None:
    """End the process with ``code``: without the interpreter's teardown after
    :func:`teardown_not_needed` or a stop (:data:`STOP_CODES`; after the atexit handlers), else as
    ``sys.exit``."""
    stopped = code in STOP_CODES
    if not (_SKIP_TEARDOWN or stopped):
        sys.exit(code)
    if stopped:
        atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):  # a reader that has gone, or a closed stream
        code = code or 120  # as Python's own exit after a failed flush
    os._exit(code)


class Terminated(BaseException):
    """SIGTERM or SIGHUP (``signum``), raised in the main thread so that a command cleans up (a
    run's worker and NAME.partial) and ends with one line."""

    def __init__(self, signum: int = signal.SIGTERM) -> None:
        super().__init__(signum)
        self.signum = int(signum)


class _Held:
    """The stop :func:`stops_deferred` holds (its signal number; the first if several came), and
    how many of its regions the main thread is in."""

    depth = 0
    signum: int | None = None


def _stop(signum: int) -> BaseException:
    return KeyboardInterrupt() if signum == signal.SIGINT else Terminated(signum)


def raise_terminated(signum, frame) -> None:
    """The SIGTERM and SIGHUP handler of the console script and :func:`navsense.cli.main`
    (held inside :func:`stops_deferred`)."""
    _raise_or_hold(signum)


def raise_interrupt(signum, frame) -> None:
    """Ctrl-C's handler in :func:`navsense.cli.main`: KeyboardInterrupt, as Python's own handler
    raises, but held inside :func:`stops_deferred`."""
    _raise_or_hold(signum)


def _raise_or_hold(signum: int) -> None:
    """The stop of ``signum`` (:func:`_stop`) raised, or held inside :func:`stops_deferred` (the
    first of several)."""
    if _Held.depth:
        _Held.signum = _Held.signum or signum
        return
    _Lost.stopping = True
    raise _stop(signum)


class stops_deferred:
    """A region of the main thread in which a stop is held, then raised when the region ends
    (module docstring, "Stops"); regions nest, the outermost raises. In another thread (where no
    handler runs) it does nothing."""

    __slots__ = ("_main",)

    def __enter__(self) -> None:
        self._main = threading.current_thread() is threading.main_thread()
        if self._main:
            _Held.depth += 1

    def __exit__(self, *exc) -> None:
        if not self._main:
            return
        _Held.depth -= 1
        if not _Held.depth and _Held.signum is not None:
            signum, _Held.signum = _Held.signum, None
            _Lost.stopping = True
            raise _stop(signum)


class _Lost:
    """A stop that a callback swallowed (:func:`_unraisable`), to be raised again by SIGALRM;
    ``stopping`` once a stop has been raised."""

    signum: int | None = None
    stopping = False


_AGAIN_S = 0.001  # s: a swallowed stop is raised again this long after (outside the callback)


def _signum_of(exc: BaseException | None) -> int | None:
    if isinstance(exc, KeyboardInterrupt):
        return int(signal.SIGINT)
    if isinstance(exc, Terminated):
        return exc.signum
    return None


def _unraisable(hook) -> None:
    """``sys.unraisablehook`` while this module's handlers are installed: a stop that a callback
    called from C swallowed is raised again :data:`_AGAIN_S` later (module docstring, "Stops");
    anything else goes to the previous hook, but once a stop has been raised: then it is left out,
    the failure of a ``__del__`` of an object that the stop left half made (llvmlite's
    OutputString without its ``_owned``, after a SIGHUP while numba loaded its kernels: 'Exception
    ignored in ...' and a traceback after the stop's one line)."""
    signum = _signum_of(hook.exc_value)
    if signum is None or threading.current_thread() is not threading.main_thread():
        if not _Lost.stopping:
            _previous_hook(hook)
        return
    _Lost.signum = _Lost.signum or signum
    signal.setitimer(signal.ITIMER_REAL, _AGAIN_S)


def _previous_hook(hook) -> None:
    getattr(_unraisable, "previous", sys.__unraisablehook__)(hook)


def _raise_lost(signum, frame) -> None:
    """SIGALRM's handler while :func:`_unraisable` is the hook: the swallowed stop, raised (or
    held inside :func:`stops_deferred`) as its own handler does; later again while the main
    thread is still in the hook."""
    lost = _Lost.signum
    if lost is None:
        return
    f = frame
    while f is not None:
        if f.f_code is _unraisable.__code__:
            signal.setitimer(signal.ITIMER_REAL, _AGAIN_S)
            return
        f = f.f_back
    _Lost.signum = None
    _raise_or_hold(lost)


# SIGHUP: the terminal closed or the ssh session was lost; ended by its default action, a run left
# NAME.partial and its worker's end to the kernel
_HANGUP = getattr(signal, "SIGHUP", None)
_STOPS = {signal.SIGINT, signal.SIGTERM} | ({_HANGUP} if _HANGUP is not None else set())


def stop_signals_raise() -> dict:
    """Make SIGTERM, and SIGHUP unless it is ignored (``nohup``: the user asked the run to outlive
    the terminal), raise :class:`Terminated` in the main thread, and Ctrl-C KeyboardInterrupt by
    :func:`raise_interrupt` where Python's own handler had it; each held inside
    :func:`stops_deferred`; a stop that a callback swallowed is raised again (SIGALRM and
    ``sys.unraisablehook``, unless SIGALRM has a handler already: module docstring, "Stops").
    Returns the handlers replaced (for :func:`stop_signals_restore`)."""
    previous: dict = {signal.SIGTERM: signal.signal(signal.SIGTERM, raise_terminated)}
    if _HANGUP is not None and signal.getsignal(_HANGUP) is signal.SIG_DFL:
        previous[_HANGUP] = signal.signal(_HANGUP, raise_terminated)
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # not ignored (``cmd &``)
        previous[signal.SIGINT] = signal.signal(signal.SIGINT, raise_interrupt)
    alarm = getattr(signal, "SIGALRM", None)
    _Lost.stopping = False
    if alarm is not None and signal.getsignal(alarm) is signal.SIG_DFL:  # not a user's alarm
        previous[alarm] = signal.signal(alarm, _raise_lost)
        previous[_HOOK] = sys.unraisablehook
        _unraisable.previous = sys.unraisablehook  # type: ignore[attr-defined]
        sys.unraisablehook = _unraisable
    return previous


_HOOK = -1  # the key of the previous sys.unraisablehook in stop_signals_raise's result


def stop_signals_restore(previous: dict) -> None:
    """Put back the handlers :func:`stop_signals_raise` replaced (a stop still to be raised
    again after a callback swallowed it is dropped with them)."""
    if _HOOK in previous:
        signal.setitimer(signal.ITIMER_REAL, 0)
        _Lost.signum = None
    for signum, handler in previous.items():
        if signum == _HOOK:
            sys.unraisablehook = handler
        else:
            signal.signal(signum, signal.SIG_DFL if handler is None else handler)


def stop_signals_default() -> None:
    """In a forked child: the stop signals this module's handler took get their default action
    back (the handler would turn them into an exception read as the child's error); an ignored
    SIGHUP stays ignored; Ctrl-C gets Python's own handler back, and nothing the parent held is
    raised here."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if _HANGUP is not None and signal.getsignal(_HANGUP) is raise_terminated:
        signal.signal(_HANGUP, signal.SIG_DFL)
    if signal.getsignal(signal.SIGINT) is raise_interrupt:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if sys.unraisablehook is _unraisable:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        sys.unraisablehook = getattr(_unraisable, "previous", sys.__unraisablehook__)
    _Held.depth, _Held.signum, _Lost.signum = 0, None, None


@contextlib.contextmanager
def stops_held() -> Iterator[None]:
    """SIGINT, SIGTERM and SIGHUP held back (blocked in this thread) while a child process is forked,
    then delivered (module docstring, "Stops"). The child inherits the block: it calls
    :func:`stops_released` first."""
    if not hasattr(signal, "pthread_sigmask"):  # Windows: no signal masks (and no fork)
        yield
        return
    held = signal.pthread_sigmask(signal.SIG_BLOCK, _STOPS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def stops_released() -> None:
    """In a child forked under :func:`stops_held`: SIGINT, SIGTERM and SIGHUP reach it again."""
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOPS)


def stop_line(exc: BaseException) -> tuple[str, int] | None:
    """The line and exit code of the Ctrl-C, SIGTERM or SIGHUP that is ``exc`` or behind it (its cause
    or context, at any depth): a library may turn one into its own error, e.g. pybind11's
    ``ImportError: initialization failed`` for a module whose import Ctrl-C interrupted
    (scipy.optimize's, loaded by a track's first fit). None if there is none."""
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        e = todo.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        if isinstance(e, KeyboardInterrupt):
            return "navsense: interrupted", 130
        if isinstance(e, Terminated):
            signum = e.signum if e.signum in (signal.SIGTERM, _HANGUP) else signal.SIGTERM
            return f"navsense: terminated ({signal.Signals(signum).name})", 128 + signum
        todo += [e.__cause__, e.__context__]
    return None
