"""navsense.runs.report_draw.FigureWorker: the child forked before the run is read."""

from __future__ import annotations

import dataclasses
import os

import pytest


@dataclasses.dataclass
class _Data:
    early: object = None
    late: object = None
    reader: object = None  # not sent to the child
    truth: object = None


def _maker(name: str, fail: str = ""):
    def make(data):
        if os.getpid() != PARENT[0] and fail == "raise":
            raise RuntimeError("a bug in the child")
        if os.getpid() != PARENT[0] and fail == "die":
            os._exit(3)
        return (name, data.early, data.late, os.getpid() == PARENT[0])

    return make


PARENT = [0]


def _early(fail: str = ""):
    def read(data):
        if fail == "damaged":
            raise ValueError("imu.jsonl: line 3: damaged")
        data.early = ("early rows", os.getpid() == PARENT[0])

    return read


@pytest.fixture
def two_cores(monkeypatch):
    from navsense._runtime import machine, worker

    if not worker.fork_available():
        pytest.skip("no fork here")
    monkeypatch.setattr(machine, "available_cores", lambda: 2)
    monkeypatch.setattr(worker, "fork_safe", lambda: True)  # other tests' threads may linger
    PARENT[0] = os.getpid()


@pytest.mark.parametrize("fail", ["", "raise", "die"])
def test_the_early_figure_is_drawn_in_the_child_from_its_own_rows(two_cores, fail):
    """The child reads the early rows and draws the early figure; the late figures see the
    parent's data; order is the makers'; a child that fails or dies is replaced by the parent
    (which then reads the early rows itself)."""
    from navsense.runs.report_draw import FigureWorker

    makers = [_maker(f"fig{i}", fail) for i in range(5)]
    with FigureWorker(_Data(), _early(), makers, [4]) as w:
        data = _Data(late="parent's rows", reader=object(), truth=object())
        calls = []
        got = w.draw(data, meanwhile=lambda: calls.append(os.getpid()))
    assert calls == [os.getpid()]
    assert [g[0] for g in got] == [f"fig{i}" for i in range(5)]
    assert all(g[2] == "parent's rows" for g in got[:4])
    name, early, late, in_parent = got[4]
    assert early == ("early rows", bool(fail)) and in_parent == bool(fail)
    assert late == ("parent's rows" if fail else None)  # drawn before the parent's data came
    if not fail:  # the late figures are shared out: the child's early rows reach the others
        assert all(g[1] is None or g[1] == ("early rows", False) for g in got[:4])


def test_a_damaged_early_file_raises_in_the_parent(two_cores):
    from navsense.runs.report_draw import FigureWorker

    makers = [_maker(f"fig{i}") for i in range(3)]
    with FigureWorker(_Data(), _early("damaged"), makers, [2]) as w:
        with pytest.raises(ValueError, match="line 3: damaged"):
            w.draw(_Data(late="parent's rows"))


def test_a_parent_failing_before_drawing_stops_the_child(two_cores):
    from navsense.runs.report_draw import FigureWorker

    with pytest.raises(KeyError):
        with FigureWorker(_Data(), _early(), [_maker("a"), _maker("b")], [1]) as w:
            child = w._child
            raise KeyError("episode.json damaged")
    assert child is not None and child.exitcode is not None


def test_without_a_child_everything_is_drawn_here(two_cores):
    from navsense.runs.report_draw import FigureWorker

    makers = [_maker(f"fig{i}") for i in range(3)]
    calls = []
    with FigureWorker(_Data(), _early(), makers, [2], parallel=False) as w:
        assert w._child is None
        got = w.draw(_Data(late="rows"), meanwhile=lambda: calls.append(1))
    assert [g[3] for g in got] == [True] * 3 and got[2][1] == ("early rows", True)
    assert calls == [1]


def test_a_report_figure_is_laid_out_and_drawn_once(monkeypatch):
    """report_plots._png: one draw of the figure (savefig draws a figure that has a layout
    engine, even the "none" placeholder, twice); report_plots._place's fixed margins leave
    room for the label (that the labels fit every figure: tests/output/test_report.py)."""
    pytest.importorskip("matplotlib")
    import numpy as np
    from matplotlib.figure import Figure

    from navsense.runs import report_plots

    draws = []
    real = Figure.draw
    monkeypatch.setattr(Figure, "draw", lambda self, r: (draws.append(1), real(self, r))[1])
    fig = report_plots._new(6, 4)
    assert fig.get_layout_engine() is None
    ax = fig.add_subplot()
    report_plots._place(fig, [ax], 0.8)
    ax.plot(np.arange(10.0), np.arange(10.0) ** 2)
    ax.set_ylabel("a long label\non two lines")
    fig_png = report_plots._png(fig, "t", "c", "f.png")
    assert len(draws) == 1
    assert fig_png.png.startswith(b"\x89PNG")
    assert ax.get_position().x0 == pytest.approx(0.8 / 6)  # room for the label


@pytest.mark.parametrize("fail", ["", "die"])
def test_a_child_late_figure_sees_the_early_and_the_parents_data(two_cores, fail):
    """child_late: drawn by the child once the parent's data came (it needs both); the parent
    never takes it, unless the child failed (then after reading the early rows itself)."""
    from navsense.runs.report_draw import FigureWorker

    makers = [_maker(f"fig{i}", fail if i == 1 else "") for i in range(4)]
    with FigureWorker(_Data(), _early(), makers, [3], child_late=[1]) as w:
        got = w.draw(_Data(late="parent's rows"))
    name, early, late, in_parent = got[1]
    assert late == "parent's rows" and early == ("early rows", bool(fail))
    assert in_parent == bool(fail)


def _nameless(spill) -> bool:
    return os.fstat(spill.fileno()).st_nlink == 0  # no name in any folder: nothing to remove


def test_arrays_reach_the_child_through_a_spill_file_without_a_name():
    """_send/_receive: the arrays (out-of-band buffers: contiguous ones; a strided view goes in
    the pickle) arrive equal, writable and independent of the sender's, through the spill file
    of _spill_file (no name: nothing to remove, however the processes end)."""
    import multiprocessing
    import threading

    import numpy as np

    from navsense.runs.report_draw import _receive, _send, _spill_file

    spill = _spill_file()
    assert spill is not None and _nameless(spill)
    a = np.arange(300_000, dtype=np.float64).reshape(-1, 3)
    fields = {"a": a, "strided": a[:, 1], "names": np.array(["rtk_fixed", "single"]), "n": 3}
    receive, send = multiprocessing.Pipe(duplex=False)
    sender = threading.Thread(target=_send, args=(send, fields, spill))  # more than the pipe
    sender.start()
    got = _receive(receive, spill)
    sender.join()
    assert os.fstat(spill.fileno()).st_size >= a.nbytes  # a's memory went through the file
    spill.close()
    for k in ("a", "strided", "names"):
        assert np.array_equal(got[k], fields[k]) and got[k].dtype == fields[k].dtype
    assert got["n"] == 3
    got["a"][0, 0] = -1.0  # writable, a copy
    assert a[0, 0] == 0.0


@pytest.mark.parametrize("fail", ["", "die"])
def test_the_workers_spill_file_has_no_name(two_cores, fail):
    import numpy as np

    from navsense.runs.report_draw import FigureWorker

    makers = [_maker(f"fig{i}", fail) for i in range(3)]
    with FigureWorker(_Data(), _early(), makers, [2]) as w:
        assert _nameless(w._spill)
        got = w.draw(_Data(late=np.ones(100_000)))
    assert [g[0] for g in got] == ["fig0", "fig1", "fig2"]
    assert all(np.array_equal(g[2], np.ones(100_000)) for g in got[:2])
    assert w._spill.closed


def test_without_room_for_the_spill_file_the_arrays_go_through_the_pipe(two_cores, monkeypatch):
    """A file size limit or a full /dev/shm (OSError writing the spill file): the data still
    reach the child, through the pipe."""
    import numpy as np

    from navsense.runs import report_draw

    def full(*args, **kwargs):
        raise OSError(27, "File too large")

    monkeypatch.setattr(report_draw, "_spilled", full)
    makers = [_maker(f"fig{i}") for i in range(3)]
    with report_draw.FigureWorker(_Data(), _early(), makers, [2]) as w:
        got = w.draw(_Data(late=np.arange(200_000.0)))
    assert all(np.array_equal(g[2], np.arange(200_000.0)) for g in got[:2])
