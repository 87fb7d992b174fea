"""An applied load's values at many times (TimeFunction.values): what a right-hand side of
Radau IIA asks at a step's five stage times, a load's six components each.

A load needs its value alone, not its derivatives: the values are the expression evaluated
on the times, the same bits as the value part of the Jet evaluation (a Jet's value is that
same evaluation on its values), without the Jets' derivatives (three numbers and their
product rule for every operation: the suspension sample's bump force took 310 us of a
right-hand side's 500 us before, 100 us after).
"""
from __future__ import annotations

import os

import numpy as np
import pytest

from solver.base import jet
from solver.base.errors import ExpressionError
from solver.vocabulary.timefunctions import time_function, values_of
from test_rhs_cost import python_calls

# a Radau IIA step's stage times across the bump's rise and fall, and past a kink at 0.3
STAGES = np.array([0.0571, 0.2768, 0.5836, 0.8602, 1.0])
TIMES = np.concatenate([1.0 + 0.06 * STAGES, 1.09 + 0.07 * STAGES, 0.25 + 0.05 * STAGES])
EXPRESSIONS = ("3000*step5(t, 1.0, 0, 1.05, 1)*step5(t, 1.1, 1, 1.15, 0)",
               "2*sin(3*t) + cos(t)**2 - exp(-t)*log(1 + t)", "sqrt(0.4 - min(t, 0.3))",
               "atan2(t - 1, 0.5) + abs(t - 1.05) + max(t, 1, 0.5)", "ramp(t, 1, 1.1)",
               "t**2.5 / (1 + t) + step(t, 1.02, -1, 1.12, 2) + tan(t / 4) + 7", "12.5")
JET = os.path.abspath(jet.__file__)


def jet_operations(fn) -> int:
    """How many Jet operations (a Jet made, its arithmetic, the chain rule) fn() runs."""
    return sum(python_calls(fn, lambda path, name: os.path.abspath(path) == JET and (
        name in ("_jet", "_chain", "_as_jet") or name.startswith("__"))).values())


@pytest.mark.parametrize("text", EXPRESSIONS)
def test_a_loads_values_are_its_functions_values_bit_for_bit(text: str) -> None:
    """values(ts) is table(ts)'s value column bit for bit, and value(t) at each time to
    rounding (a time alone is evaluated by Python's math, the arrays by numpy)."""
    fn = time_function(text, "bump")
    got = fn.values(TIMES)
    assert got.shape == TIMES.shape
    assert np.array_equal(got, fn.table(TIMES)[:, 0])
    assert got == pytest.approx([fn.value(t) for t in TIMES], rel=1e-14, abs=1e-14)


def test_a_loads_values_take_no_derivatives() -> None:
    """A load's six components (the bump force of the suspension sample and five zeros) at
    a step's stages: no Jet operation (before: 65 for the bump's two step5's)."""
    row = [time_function(x) for x in (0, 0, EXPRESSIONS[0], 0, 0, 0)]
    vals = values_of([row], TIMES)
    assert vals.shape == (len(TIMES), 1, 6)
    assert jet_operations(lambda: values_of([row], TIMES)) == 0


def test_a_loads_values_fail_as_one_time_fails() -> None:
    """Where the vectorized pass fails, each time alone: an infinite value is the error of
    the first time that gives it; an infinite derivative where the value is finite (the
    square root at 0) is no failure for a load."""
    with pytest.raises(ExpressionError, match="t=1.0"):
        time_function("1/(t - 1)", "pulse").values(np.array([0.5, 1.0, 1.5]))
    ts = np.array([0.2, 0.3])
    assert np.array_equal(time_function("sqrt(0.3 - t)").values(ts), np.sqrt(0.3 - ts))
