"""navsense._runtime.memory: the allocator thresholds of `navsense simulate`, the collector's pause."""

import platform
import sys

import pytest

from navsense._runtime import memory as heap


@pytest.mark.skipif(
    not (sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"),
    reason="mallopt is glibc's",
)
def test_glibc_takes_both_thresholds():
    assert heap.keep_freed_memory() is True
    assert heap.MMAP_THRESHOLD_BYTES == 32 << 20  # glibc's largest mmap threshold on 64 bits


def test_elsewhere_nothing_is_set(monkeypatch):
    monkeypatch.setattr(sys, "platform", "darwin")
    assert heap.keep_freed_memory() is False


def test_the_simulate_command_sets_them(monkeypatch, tmp_path):
    from navsense.cli import main

    calls = []
    monkeypatch.setattr(heap, "keep_freed_memory", lambda: calls.append("heap") or True)
    monkeypatch.setattr(heap, "arrow_on_the_heap", lambda: calls.append("arrow") or True)
    assert (
        main(
            [
                "simulate",
                "--scenario",
                "acre-loop",
                "--out",
                str(tmp_path / "run"),
                "--quiet",
                "--workers",
                "threads",
                "--no-gnss",
                "--no-ins",
            ]
        )
        == 0
    )
    assert calls == ["heap", "arrow"]


def test_arrow_goes_to_the_c_heap():
    import pyarrow as pa

    before = pa.default_memory_pool()
    try:
        assert heap.arrow_on_the_heap() is True
        assert pa.default_memory_pool().backend_name == "system"
        assert pa.array([1.5, 2.5]).to_pylist() == [1.5, 2.5]
    finally:
        pa.set_memory_pool(before)


def test_the_collector_is_paused_in_the_block_and_restored_after():
    import gc

    assert gc.isenabled()
    with heap.collector_paused():
        assert not gc.isenabled()
        with heap.collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # an inner pause leaves the outer one paused
    assert gc.isenabled()
    with pytest.raises(KeyError), heap.collector_paused():
        raise KeyError("x")
    assert gc.isenabled()
