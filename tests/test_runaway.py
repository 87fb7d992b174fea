"""A dynamic run whose motion grows without bound is said (analyses/checks/runaway.py): a
block on a slide held by an actuator that pushes the way it moves, a sign mistaken."""
from __future__ import annotations

import numpy as np

from solver import Mechanism

G = 9.81


def sprung_block(actuator: str) -> Mechanism:
    """A 2 kg block on a vertical slide, its spring's tension the ``actuator`` of its
    length (free length 0.5 m, where the block starts at rest)."""
    m = Mechanism(gravity=(0.0, 0.0, -G))
    m.add_part("ground", fixed=True)
    m.add_part("block", mass=2.0, inertia=(1e-3, 1e-3, 1e-3), position=(0.0, 0.0, -0.5))
    m.add_marker("g", "ground")
    m.add_marker("b", "block")
    m.add_joint("slide", "prismatic", "b", "g")
    m.add_spring_damper("s", "b", "g", stiffness=0.0, damping=0.0, free_length=0.5,
                        actuator=actuator)
    return m


def test_a_run_away_motion_is_named_with_the_frame_it_passes_a_million_sizes() -> None:
    """Tension -800 (length - 0.5) pushes the block the way it moves: its drop x from rest
    obeys x'' = 400 x + g, x = (g / 400) (cosh 20 t - 1), past 1e24 m at 3 s, with no
    note before (the energy balances). The note names the block at the first frame past
    1e6 times the mechanism's size (0.5 m, the block's distance from its pin: 5e5 m), the
    frame the closed form gives."""
    r = sprung_block("-800*(length-0.5)").solve(3.0, 24)
    drop = G / 400.0 * (np.cosh(20.0 * r.times) - 1.0)
    first = r.times[np.argmax(drop > 1e6 * 0.5)]
    note, = [n for n in r.notes if "runs away" in n]
    assert note.startswith("part 'block' runs away") and f"t = {first:.6g} s" in note
    # the run itself is the closed form's up to that frame: relative error 1.9e-7 measured
    # (the default tolerance 1e-6 on an exponential's growth), asserted within 1e-5
    k = np.flatnonzero(r.times <= first)
    z = r.position("block")[k, 2]
    np.testing.assert_allclose(-0.5 - z, drop[k], rtol=1e-5)


def test_a_bounded_motion_is_not_said_to_run_away() -> None:
    """The same spring the right way round: the block oscillates about its sag; no note."""
    r = sprung_block("800*(length-0.5)").solve(3.0, 24)
    assert not [n for n in r.notes if "runs away" in n]
