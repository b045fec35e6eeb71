"""navsense.heap: the allocator thresholds of `navsense simulate`."""

import platform
import sys

import pytest

from navsense import heap


@pytest.mark.skipif(not (sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"),
                    reason="mallopt is glibc's")
def test_glibc_takes_both_thresholds():
    assert heap.keep_freed_memory() is True
    assert heap.MMAP_THRESHOLD_BYTES == 32 << 20  # glibc's largest mmap threshold on 64 bits


def test_elsewhere_nothing_is_set(monkeypatch):
    monkeypatch.setattr(sys, "platform", "darwin")
    assert heap.keep_freed_memory() is False


def test_the_simulate_command_sets_them(monkeypatch, tmp_path):
    from navsense.cli import main

    calls = []
    monkeypatch.setattr(heap, "keep_freed_memory", lambda: calls.append(1) or True)
    assert main(["simulate", "--scenario", "acre-loop", "--out", str(tmp_path / "run"), "--quiet",
                 "--workers", "threads", "--no-gnss", "--no-ins"]) == 0
    assert calls == [1]
