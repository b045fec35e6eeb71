"""Truth to a worker: chunks through shared-memory slots (the same bits, slots freed in order),
steps as lists (the same bits), and SensorStream's steps through a ring of slots that the worker
looks at without being woken (the same bits, in order, the end after the last slot)."""

import multiprocessing
import time

import numpy as np
import pytest

from navsense._runtime.transport import StepRing, TruthSlots, steps_message, truth_of_steps
from navsense._runtime.worker import ChunkWorker, Worker, fork_available
from navsense.truth.states import TruthStates


def _chunk(step0: int, n: int, seed: int = 0) -> TruthStates:
    rng = np.random.default_rng(seed)
    p = rng.normal(size=(n, 3)) * 1e5
    if n:
        p[0, 0] = -0.0  # signs of zero and subnormals keep their bits
        p[-1, 2] = 5e-324
    return TruthStates(
        step0=step0,
        p_m=p,
        q_xyzw=rng.normal(size=(n, 4)),
        v_mps=rng.normal(size=(n, 3)),
        w_radps=rng.normal(size=(n, 3)),
        c_m=rng.normal(size=(n, 3)),
        reset=rng.random(n) < 0.3,
        rate_hz=120.0,
    )


def _same(a: TruthStates, b: TruthStates) -> bool:
    fields = ("p_m", "q_xyzw", "v_mps", "w_radps", "c_m", "reset")
    return (
        a.step0 == b.step0
        and a.rate_hz == b.rate_hz
        and all(getattr(a, f).tobytes() == getattr(b, f).tobytes() for f in fields)
    )


def test_a_chunk_comes_out_of_its_slot_bit_for_bit_in_its_own_arrays():
    slots = TruthSlots(multiprocessing.get_context(), n_slots=2, capacity=50)
    chunks = [_chunk(0, 50, 1), _chunk(50, 7, 2), _chunk(57, 1, 3)]
    for chunk in chunks:
        out = slots.take(slots.put(chunk))
        assert _same(out, chunk)
        assert not np.shares_memory(out.p_m, slots._map)  # a copy: the slot is reused next
    assert slots.fits(chunks[0]) and not slots.fits(_chunk(0, 51)) and not slots.fits(_chunk(0, 0))


def test_put_waits_for_a_free_slot_and_a_dead_reader_ends_the_wait():
    slots = TruthSlots(multiprocessing.get_context(), n_slots=2, capacity=10)
    first, second = slots.put(_chunk(0, 10)), slots.put(_chunk(10, 10))
    assert (first[0], second[0]) == (0, 1)
    t0 = time.perf_counter()
    with pytest.raises(BrokenPipeError):
        slots.put(_chunk(20, 10), alive=lambda: False)  # every slot taken, nobody frees one
    assert time.perf_counter() - t0 < 1.0
    slots.take(first)
    assert slots.put(_chunk(20, 10))[0] == 0  # the ring goes round


def _echo(channel):
    out = []
    while (chunk := channel.receive()) is not None:
        out.append(chunk)
    return out


@pytest.mark.skipif(not fork_available(), reason="forked workers need Linux")
def test_the_worker_gets_every_chunk_whichever_way_it_travels():
    """Chunks that fit go through the slots, longer ones and other objects through the pipe; the
    worker sees them all, in order, with the same bits."""
    sent = [_chunk(0, 40, 1), _chunk(40, 100, 2), "not truth", _chunk(140, 1, 3)]
    sent += [_chunk(141 + 40 * k, 40, 10 + k) for k in range(8)]  # more chunks than slots
    worker = ChunkWorker(_echo, lag=3, slot_steps=40)
    for item in sent:
        worker.send(item)
    got = worker.finish()
    assert len(got) == len(sent) and got[2] == "not truth"
    assert all(_same(g, s) for g, s in zip(got, sent) if isinstance(s, TruthStates))
    assert not multiprocessing.active_children()


@pytest.mark.skipif(not fork_available(), reason="forked workers need Linux")
def test_without_semaphores_every_chunk_goes_through_the_pipe(monkeypatch):
    import navsense._runtime.transport

    def no_semaphores(*args, **kwargs):
        raise OSError("no /dev/shm")

    monkeypatch.setattr(navsense._runtime.transport, "TruthSlots", no_semaphores)
    sent = [_chunk(40 * k, 40, k) for k in range(5)]
    worker = ChunkWorker(_echo, lag=3, slot_steps=40)
    assert worker.worker.slots is None
    for item in sent:
        worker.send(item)
    assert all(_same(g, s) for g, s in zip(worker.finish(), sent))


def test_steps_travel_as_lists_with_their_bits():
    """One step, or a batch of consecutive steps in several messages, comes back as the same
    arrays, bit for bit."""
    whole = _chunk(7, 5, 4)
    one = truth_of_steps([steps_message(whole)])
    parts = truth_of_steps([steps_message(whole.slice(0, 2)), steps_message(whole.slice(2, 5))])
    assert _same(one, whole) and _same(parts, whole)


def _fill_and_post(ring: StepRing, chunk: TruthStates) -> None:
    start = 0
    while start < len(chunk):
        start += ring.fill(chunk, start)
        if ring.full:
            ring.post()


def test_a_ring_slot_gives_its_steps_bit_for_bit_step_by_step_or_in_chunks():
    ring = StepRing(multiprocessing.get_context(), 120.0, n_slots=4, capacity=8)
    whole = _chunk(100, 8 * 3 + 5, 6)
    assert ring.take() is None  # nothing posted
    for k in range(8):  # one step at a time: the slot's first row is written alone
        assert ring.fill(whole.slice(k, k + 1)) == 1
    assert ring.full and ring.post() and not ring.post()  # an empty slot is not posted
    _fill_and_post(ring, whole.slice(8, len(whole)))  # a chunk over two slots and a part
    assert ring.filled == 5 and ring.post()
    got = [ring.take() for _ in range(4)]
    assert ring.take() is None
    assert [len(g) for g in got] == [8, 8, 8, 5]
    assert _same(TruthStates.concatenate(got), whole)
    assert not np.shares_memory(got[0].p_m, ring._map)  # a copy: the slot is reused next


def _ring_echo(channel):
    out = []
    while (chunk := channel.receive()) is not None:
        out.append(chunk)
        channel.reply(chunk.step0)
    return out


@pytest.mark.skipif(not fork_available(), reason="forked workers need Linux")
def test_a_forked_worker_takes_every_ring_slot_in_order_then_the_end():
    """More slots than the ring has: the parent reads an answer before reusing a slot (the
    worker freed it by taking it), and the slot posted just before the end is not lost."""
    ring = StepRing(multiprocessing.get_context("fork"), 120.0, n_slots=2, capacity=4)
    worker = Worker(_ring_echo, method="fork", slots=ring)
    assert worker.slots is ring
    whole, out, answers = _chunk(0, 4 * 7 + 3, 8), 0, []
    for k in range(len(whole)):
        if ring.filled == 0 and out == ring.n_slots:
            answers.append(worker.receive()[1])
            out -= 1
        if ring.filled == 0:
            out += 1
        ring.fill(whole.slice(k, k + 1))
        if ring.full:
            ring.post()
    ring.post()
    worker.end()
    while not (reply := worker.receive())[0]:
        answers.append(reply[1])
    got = reply[1]
    assert answers == [4 * k for k in range(8)]
    assert _same(TruthStates.concatenate(got), whole)
