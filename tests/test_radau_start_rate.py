"""Radau IIA takes f at a step's start with the step's first stages, one stack of six
states (integrators/implicit.py ``_first``): a right-hand side's numpy calls cost about as
much for one state as for six, and on the suspension sample (tests/test_side_by_side.py)
the single-state call of each step's start was about a sixth of the solve (373 of them in
445 steps, the other steps starting on a frame, whose evaluation serves)."""
from __future__ import annotations

import numpy as np

from solver.analyses.dynamics import equations
from solver.integrators import implicit
from test_side_by_side import suspensions

DURATION = 0.5          # s: the bushings' start transient, 98 steps


def counted_run(monkeypatch, m, stacked: bool):
    """(the run at the default tolerance, its right-hand sides of one state, of stacks),
    f at a step's start taken with its stages (``stacked``) or alone before the step."""
    single, stacks = [], []
    rhs = equations.Equations.rhs
    monkeypatch.setattr(equations.Equations, "rhs", lambda self, t, y: (
        (single if np.ndim(y) == 1 else stacks).append(1) or rhs(self, t, y)))
    monkeypatch.setattr(implicit.RadauStepper, "takes_f0", stacked, raising=False)
    r = m.solve(duration=DURATION, fps=24)
    monkeypatch.undo()
    return r, len(single), len(stacks)


def test_a_radau_step_takes_its_start_rate_with_its_first_stages(monkeypatch) -> None:
    """Over the first 0.5 s of the suspension (its steps mostly between frames), the run
    evaluates f of one state only where a step has no last step to start from or repeats
    its estimate (at most 4; measured none: the first step starts on a frame), against
    one a step not starting on a frame before (measured 86 in 98 steps); the stacked
    calls are as many as before, and the frames bit for bit those of the run taking f
    alone (a stack's rows are each state's own numbers)."""
    m = suspensions((0.0, 0.0, 0.0))
    r, single, stacks = counted_run(monkeypatch, m, True)
    alone, single_before, stacks_before = counted_run(monkeypatch, m, False)
    print(f"steps {r.steps}: single {single_before} -> {single}, stacks {stacks_before} -> "
          f"{stacks}")
    assert single <= 4, single
    assert single_before > r.steps / 2, single_before
    assert stacks == stacks_before and r.steps == alone.steps
    for read in ("position", "orientation", "velocity"):
        assert np.array_equal(getattr(r, read)("s0 wheel"), getattr(alone, read)("s0 wheel"))
    for a, b in zip(r.reaction("s0 hub"), alone.reaction("s0 hub")):
        assert np.array_equal(a, b)
