"""A mechanism's accuracy is its own: not looser far from the world origin, and not looser
beside a large part that nothing joins to it (a 20 m pole elsewhere in the scene).

Each tolerance a run applies to a mechanism's gaps and steps is relative to the size of the
mechanism itself (Model.body_size: its island's, model/islands.py), and the integrators'
error weights do not grow with the distance of a part from the origin.
"""
from __future__ import annotations

import numpy as np

import test_scale as far
from solver import Mechanism


def hanging_pole(m: Mechanism, at, ground: str = "ground", origin=(0.0, 0.0, 0.0),
                 length: float = 20.0) -> Mechanism:
    """A 10 kg pole ``length`` m long hanging at rest from a pin at ``at`` (m, world) on the
    fixed part ``ground`` (placed at ``origin``), joined to nothing else in ``m``."""
    inertia = 10.0 * length ** 2 / 12.0
    m.add_part("pole", mass=10.0, inertia=(inertia, inertia, 0.1),
               center_of_mass=(0.0, 0.0, -length / 2.0), position=tuple(at))
    m.add_marker("pole top", "pole")
    m.add_marker("pole pin", ground, position=tuple(np.subtract(at, origin)))
    m.add_joint("pole hinge", "revolute", "pole top", "pole pin")
    return m


def test_a_driven_pole_beside_a_four_bar_leaves_its_sweep_as_alone() -> None:
    """The four-bar of test_scale swept alone and beside a 20 m pole swung by its own motion:
    the same rocker pose and ground pin load.  Before, Newton stopped at 1e-12 of the pole's
    10 m: the rocker 4.2e-12 m and the pin's load 9.5e-11 N off.  Bounds: Newton now holds
    the four-bar to 1e-12 of its own 1 m, 1e-12 m, in both runs; the loads (about 20 N)
    follow the poses to 1e-12 of themselves, 2e-11 N (both measured 0)."""
    def sweep(pole: bool):
        m = far.four_bar(0.0)
        m.add_motion("drive", "j1", "1 + 3*t")
        if pole:
            hanging_pole(m, (5.0, 0.0, 0.0))
            m.add_motion("swing", "pole hinge", "0.1*sin(t)")
        r = m.solve(duration=1.0, fps=24)
        return r.position("rocker"), np.hstack(r.reaction("j4"))
    (r0, f0), (r1, f1) = sweep(False), sweep(True)
    assert np.abs(r1 - r0).max() < 1e-12
    assert np.abs(f1 - f0).max() < 2e-11
