"""Compiled kernels (issue 31 item 1): an array function written once, run by numpy or by numba.

A kernel is a plain function in numpy's array expressions over arrays of a fixed rank whose first
axis holds the rows (one physics step or a whole chunk), writing its results into an ``out``
array it is given. :func:`kernel` wraps it: the call runs the function itself (numpy) or its
numba compilation (``numba.njit(cache=True)``), the same source either way, so each equation is
written once. A kernel uses only ``+``, ``-``, ``*``, ``/`` and ``sqrt``: numba compiles them to
the same IEEE operations in the same order as numpy's loops (fastmath off, no fused
multiply-add), so both give the same bits, row for row (tests/test_kernels.py). ``sin``, ``cos``,
``exp``, ``atan2``, ``atanh``, ``sinh`` and the like are left to numpy: numba's come from LLVM
and libm and differ from numpy's SIMD loops in the last bit (measured on this project's machine:
exp 5 %, atan2 8 %, sinh 26 % of 200 000 values). ``sin`` and ``cos`` may be used by a kernel
declared ``libm=True``: numpy's float64 sine and cosine are the C library's on x86-64 Linux
(0 of a million values differ from numba's, measured), but not on every build, so such a kernel
runs compiled only where a probe finds them equal (:func:`libm_agrees`, once a process), and as
numpy elsewhere: the bits are numpy's either way.

Which runs (ruling, issue 31): numpy's per-call overhead (about a microsecond a call) dominates a
one-step call, where the compiled kernel costs well under one; over a chunk numpy's loops are as
fast, and importing numba (0.15 to 0.25 s of CPU) would double a short run's start-up. So the
one-step-a-call APIs (navsense.ins_stream.Ins, navsense.stream.SensorStream and what uses them)
call :func:`use_compiled` when built, and a batch run (navsense simulate) keeps numpy. The
environment variable ``NAVSENSE_KERNELS`` overrides it: ``numba`` compiles everywhere, ``numpy``
nowhere. Without numba installed, or where its cache cannot be written (a file-size limit), every
kernel runs as numpy. The compilations are cached on disk (``cache=True``, numba's
``__pycache__``): only the first run on a machine compiles.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np

from navsense import file_size_limited

__all__ = ["Kernel", "kernel", "use_compiled", "compiled", "libm_agrees"]

_ENV = "NAVSENSE_KERNELS"


# under a file-size limit numba's cache writes fail ('OSError: [Errno 27] File too large' out
# of its caching, a traceback of use_compiled, seen): kernels then run as numpy
_on = os.environ.get(_ENV, "") == "numba" and not file_size_limited()


def compiled() -> bool:
    """True when kernels run compiled in this process."""
    return _on


def use_compiled() -> bool:
    """Run every kernel compiled from now on in this process (unless ``NAVSENSE_KERNELS`` is
    ``numpy``, or numba is missing); numba is imported here and every kernel's usual signature
    (C-contiguous float64 rows) is loaded from numba's cache now, so that no step pays for it
    (a worker builds its models, then counts its CPU). Returns :func:`compiled`."""
    global _on
    if _on or os.environ.get(_ENV, "") == "numpy" or file_size_limited():
        return _on
    try:
        import numba  # noqa: F401
    except ImportError:  # pragma: no cover - numba is a run-time dependency
        return False
    _on = True
    _warm(_KERNELS)
    return _on


def _warm(kernels: list[Kernel]) -> None:
    """Load (or compile) ``kernels``; where numba's cache cannot be written (no writable
    ``__pycache__`` nor user cache: numba's RuntimeError 'cannot cache function'; a failed
    write) every kernel runs as numpy from then on."""
    global _on
    try:
        for k in kernels:
            k.warm()
    except (OSError, RuntimeError):
        _on = False


_libm: bool | None = None


def _probe_values():
    """Float64 values over the ranges navsense's sines and cosines see (angles of a few turns,
    latitudes, half-angles of tiny errors), their signed zeros, and large arguments (argument
    reduction); deterministic."""
    turns = np.linspace(-8.0 * np.pi, 8.0 * np.pi, 1 << 15)
    small = np.geomspace(1e-300, 1.0, 2048)
    large = np.geomspace(1.0, 1e12, 2048)
    return np.concatenate([turns, turns + 1e-9, small, -small, large, -large, [0.0, -0.0]])


def libm_agrees() -> bool:
    """True when numba's compiled ``sin`` and ``cos`` give numpy's bits on :func:`_probe_values`
    here (computed once a process); a ``libm=True`` kernel runs compiled only then."""
    global _libm
    if _libm is None:
        x = _probe_values()
        out = np.empty((x.shape[0], 2))
        _sin_cos_probe._dispatcher()(x, out)
        _libm = bool(
            np.array_equal(out[:, 0].view(np.int64), np.sin(x).view(np.int64))
            and np.array_equal(out[:, 1].view(np.int64), np.cos(x).view(np.int64))
        )
    return _libm


_KERNELS: list[Kernel] = []


class Kernel:
    """A kernel function and, once compiled, its numba dispatcher; ``ranks``: the ranks of its
    float64 arguments (rows first), for the signature loaded by :meth:`warm`."""

    def __init__(
        self,
        fn: Callable[..., None],
        ranks: tuple[int, ...],
        libm: bool = False,
        probe: bool = False,
    ) -> None:
        self.fn = fn
        self.ranks = ranks
        self.libm = libm  # calls sin or cos: compiled only where libm_agrees()
        self._jit: Any = None
        self.__doc__ = fn.__doc__
        self.__name__ = fn.__name__
        if probe:
            return
        _KERNELS.append(self)
        if _on:
            _warm([self])

    def _dispatcher(self) -> Any:
        if self._jit is None:
            import numba

            self._jit = numba.njit(cache=True)(self.fn)
        return self._jit

    def warm(self) -> None:
        """Compile, or load from the cache, the signature of C-contiguous float64 arrays."""
        if self._compiled() is self.fn:
            return
        from numba import types

        args = [types.Array(types.float64, rank, "C") for rank in self.ranks]
        self._dispatcher().compile(tuple(args))

    def __call__(self, *args: Any) -> None:
        if not _on:
            return self.fn(*args)
        return (self._jit or self._compiled())(*args)

    def runner(self) -> Callable[..., None]:
        """What a call of the kernel runs now (the compiled dispatcher once :func:`use_compiled`,
        else the function): a caller on a one-step path keeps it and calls it without
        :meth:`__call__`'s Python (about 0.25 us a call); it does not follow a later change."""
        return (self._jit or self._compiled()) if _on else self.fn

    def _compiled(self) -> Any:
        """What a compiled call runs, decided once: the dispatcher, or the function itself for a
        ``libm`` kernel where the probe found numba's sines unlike numpy's."""
        if self.libm and not libm_agrees():
            self._jit = self.fn
            return self.fn
        return self._dispatcher()


def kernel(*ranks: int, libm: bool = False) -> Callable[[Callable[..., None]], Kernel]:
    """Decorator: ``@kernel(2, 2, 2)`` makes ``fn``, of float64 arrays of those ranks, a
    :class:`Kernel` (the module docstring's rules); ``libm=True``: ``fn`` also calls ``np.sin``
    or ``np.cos``."""
    return lambda fn: Kernel(fn, ranks, libm)


def _sin_cos(x, out):
    """out[:, 0] = sin x, out[:, 1] = cos x (the probe of :func:`libm_agrees`)."""
    out[:, 0] = np.sin(x)
    out[:, 1] = np.cos(x)


_sin_cos_probe = Kernel(_sin_cos, (1, 2), probe=True)
