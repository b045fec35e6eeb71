"""Memory over a long run: the C allocator's thresholds, Arrow's pool, the garbage collector.

The allocator (glibc's ``mallopt``).

A run allocates and frees arrays of a few hundred KiB to a few MiB per chunk. With glibc's
defaults the larger ones are mapped and unmapped (mmap/munmap) one by one and a freed heap top is
returned to the system, so the next chunk's arrays fault their pages in again: about 100 000 page
faults and a third of a second of system time for an hour of driving. Keeping blocks up to
32 MiB on the heap and freed memory up to 256 MiB in the process halves the page faults and takes
about 4 % off the wall time of `navsense simulate` (benchmarks/bench_run.py, 2026-11-29), for no
larger peak (the memory is reused by the next chunk, not added).

Arrow's buffers (the Parquet tables of each chunk, the truth read) come from pyarrow's bundled
allocator, mimalloc, which hands freed pages back to the system within milliseconds, so each
chunk faults them in again; on the C heap, with the thresholds above, they are reused instead:
system time for an hour of Parquet 0.37 -> 0.21 s, wall time -5 % (medians of 8 runs,
2026-11-30).

Only `navsense simulate` (the command) applies them, before it forks its worker (which inherits
them): a process-wide setting is the command's business, not a library import's.

The garbage collector. A chunk's rows and blocks are many short-lived objects without reference
cycles; the cyclic collector would scan them again and again as they are made. A run pauses it
(:func:`collector_paused`) and collects the youngest generation once a chunk
(:func:`collect_young`), which frees what the chunks left in cycles.
"""

from __future__ import annotations

import contextlib
import gc
import sys
from collections.abc import Iterator

__all__ = [
    "keep_freed_memory",
    "arrow_on_the_heap",
    "collector_paused",
    "collect_young",
    "MMAP_THRESHOLD_BYTES",
    "TRIM_THRESHOLD_BYTES",
]

MMAP_THRESHOLD_BYTES = 32 << 20  # blocks below this come from the heap (glibc's maximum)
TRIM_THRESHOLD_BYTES = 256 << 20  # free memory kept at the heap's top before it is returned
_M_TRIM_THRESHOLD = -1  # glibc <malloc.h>
_M_MMAP_THRESHOLD = -3


def keep_freed_memory() -> bool:
    """Set the two thresholds (glibc on Linux; elsewhere nothing). True when both were taken."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc (or no C library to load)
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    # the mmap threshold first: setting either one turns off glibc's dynamic adjustment of both
    return bool(
        mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)
        and mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD_BYTES)
    )


def arrow_on_the_heap() -> bool:
    """pyarrow's default memory pool set to the C heap (pyarrow.system_memory_pool), where
    :func:`keep_freed_memory` keeps freed memory for the next chunk. True when it was set."""
    try:
        import pyarrow as pa

        pa.set_memory_pool(pa.system_memory_pool())
    except (ImportError, AttributeError, NotImplementedError):  # pragma: no cover - old pyarrow
        return False
    return True


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off inside the block; its previous state restored after."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def collect_young() -> None:
    """Collect the youngest generation (once a chunk, while the collector is paused)."""
    gc.collect(0)
