"""A coupler's row is scaled in its own mechanism's size (model/plans.py coupler_unit): a
rack's slide term is measured against the rack and pinion's size, not a 20 m pole's beside
them that nothing joins to them, so the pole changes neither the run nor what it says."""
from __future__ import annotations

import math

import numpy as np

from solver import Mechanism
from test_couplers import Y_AXIS
from test_island_tolerances import hanging_pole

X_AXIS = (math.cos(math.pi / 4), 0.0, math.sin(math.pi / 4), 0.0)    # marker z along world x


def rack_and_pinion(pole: bool) -> Mechanism:
    """test_couplers' 40 mm pinion and 2 kg rack, undriven: the pinion given 5 rad/s about
    y and the rack 0.2 m/s the wrong way (the teeth want x' = r w), beside the pole or not."""
    m = Mechanism(gravity=(0, 0, -9.81))
    m.add_part("ground", fixed=True)
    m.add_part("pinion", mass=0.3, inertia=(1e-4, 2e-4, 1e-4), position=(0, 0, 0.04),
               angular_velocity=(0.0, 5.0, 0.0))
    m.add_part("rack", mass=2.0, inertia=(1e-3, 1e-2, 1e-2), velocity=(-0.2, 0.0, 0.0))
    m.add_marker("axle", "ground", position=(0, 0, 0.04), orientation=Y_AXIS)
    m.add_marker("hub", "pinion", orientation=Y_AXIS)
    m.add_joint("spin", "revolute", "hub", "axle")
    m.add_marker("way", "ground", orientation=X_AXIS)
    m.add_marker("shoe", "rack", orientation=X_AXIS)
    m.add_joint("guide", "prismatic", "shoe", "way")
    m.add_rack_pinion("teeth", "spin", "guide", pitch_radius=0.04)
    return hanging_pole(m, (30.0, 0.0, 0.0)) if pole else m


def test_a_pole_beside_a_rack_and_pinion_leaves_its_run_and_note_as_alone() -> None:
    """Three seconds of the free rack and pinion (Radau IIA, default tolerance), alone and
    beside the pole: the same rack travel and the same note on the start velocities.
    Before, the teeth's row was scaled by the model's 10 m, not the pair's 0.07 m: the
    projection held it 140 times looser (the rack 5.8e-13 m apart after 3 s) and the
    note said its rate off by 0.04 where alone it says 5.52 (the rack's 0.4 m/s over the
    pair's size).  Bound: each run's projection holds the teeth to 1e-12 of the pair's
    0.0725 m, 7e-14 m, so the two agree to twice that, 1.5e-13 m (measured 0)."""
    runs = [rack_and_pinion(pole).solve(duration=3.0, fps=20, analysis="dynamic")
            for pole in (False, True)]
    x = [r.position("rack")[:, 0] for r in runs]
    assert np.abs(x[1] - x[0]).max() < 1.5e-13
    said = [[n for n in r.notes if "initial velocities" in n] for r in runs]
    assert len(said[0]) == 1 and said[1] == said[0], said
