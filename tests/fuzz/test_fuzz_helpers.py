"""The fuzz machinery's own rules (fuzz_helpers), which the tests of tests/ also use."""

import time

import pytest

from fuzz.fuzz_helpers import Hang, time_limit

_STAND_IN = """
def compile_():
    end = time.monotonic() + 0.3
    while time.monotonic() < end:
        pass
    return "compiled"
"""


def test_the_time_limit_lets_a_compile_end_first():
    """The alarm that falls inside numba's or llvmlite's code raises its Hang once that code has
    returned: raised inside a compile it left LLVM's lock held, and the next run's model threads
    waited on it for ever (one failed example hung the whole suite, seen). A function of a
    module named as numba's stands for a compile here."""
    space = {"__name__": "numba.core.stand_in", "time": time}
    exec(_STAND_IN, space)
    returned = []
    with pytest.raises(Hang), time_limit(0.05):
        returned.append(space["compile_"]())
        time.sleep(30)  # the Hang ends it
    assert returned == ["compiled"]
    with pytest.raises(Hang), time_limit(0.05):  # the block ends first: the Hang at its end
        returned.append(space["compile_"]())
    assert returned == ["compiled"] * 2
