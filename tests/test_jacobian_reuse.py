"""Radau IIA keeps its iteration matrix's Jacobian while Newton contracts well
(integrators/implicit.py REFRESH_RATE; Hairer and Wanner 1996, IV.8): on the suspension
sample (tests/test_side_by_side.py), whose Newton contracts at a rate of 1e-3 to 1e-2 a
step, rebuilding it after every step slower than 1e-3 built it at 12 of 94 steps over the
first 0.5 s (257 of 431 over the sample's 3 s, 18% of the solve), against 2 (43) now.
"""
from __future__ import annotations

import numpy as np

from solver.integrators import radau_matrix
from test_side_by_side import suspensions

DURATION = 0.5          # s: the bushings' start transient, 94 steps
TOLERANCE = 1e-6


def built_jacobians(monkeypatch, m) -> tuple:
    """(the run at TOLERANCE, how many Jacobians its Radau IIA steps built)."""
    count = []
    build = radau_matrix.IterationMatrices.build
    monkeypatch.setattr(radau_matrix.IterationMatrices, "build",
                        lambda self, *a: count.append(1) or build(self, *a))
    r = m.solve(duration=DURATION, fps=24, tolerance=TOLERANCE)
    monkeypatch.undo()
    return r, len(count)


def test_a_suspension_keeps_its_jacobian_while_newton_contracts(monkeypatch) -> None:
    """At most 4 Jacobians over the first 0.5 s (2 measured; 12 before), and the hub's
    reaction and the wheel's position as a run at tolerance 1e-8 gives them (itself within
    2e-11 of a run at 1e-10 over the sample's 3 s), to the run's tolerance: the reaction
    within 1e-6 of its largest (measured 9e-9), the wheel within 1e-6 of the model's size,
    0.5 m (measured 7e-12 m)."""
    m = suspensions((0.0, 0.0, 0.0))
    r, built = built_jacobians(monkeypatch, m)
    assert built <= 4, built
    ref = m.solve(duration=DURATION, fps=24, tolerance=1e-8)
    hub, hub_ref = np.hstack(r.reaction("s0 hub")), np.hstack(ref.reaction("s0 hub"))
    err = np.abs(hub - hub_ref).max() / np.abs(hub_ref).max()
    wheel = np.abs(r.position("s0 wheel") - ref.position("s0 wheel")).max()
    print(f"built {built}, hub {err:.1e}, wheel {wheel:.1e} m")
    assert err < TOLERANCE and wheel < TOLERANCE * 0.5, (err, wheel)
