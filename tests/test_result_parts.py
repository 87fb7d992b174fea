"""A Result's part accessors read alike for fixed and moving parts: a fixed part stands
where it was built at every frame, its centre of mass included."""
from __future__ import annotations

import math

import numpy as np

from solver import Mechanism
from solver.base.rotations import quat_to_matrix


def _rotated_base_and_arm() -> Mechanism:
    """A fixed base turned 90 deg about world z, its centre of mass 0.2 m along its own x
    (world y), and a pendulum arm on a pin along world z swinging under gravity along -y."""
    m = Mechanism(gravity=(0.0, -9.81, 0.0))
    q = (math.cos(math.pi / 4), 0.0, 0.0, math.sin(math.pi / 4))
    m.add_part("base", fixed=True, position=(1.0, 2.0, 3.0), orientation=q,
               center_of_mass=(0.2, 0.0, 0.0))
    m.add_part("arm", mass=1.0, inertia=(1e-3, 1e-2, 1e-2), position=(1.0, 2.0, 3.0),
               center_of_mass=(0.25, 0.0, 0.0))
    m.add_marker("pivot", "arm")
    m.add_marker("hinge", "base")
    m.add_joint("pin", "revolute", "pivot", "hinge")
    return m


def test_a_fixed_parts_centre_of_mass_stands_where_it_was_built() -> None:
    r = _rotated_base_and_arm().solve(duration=0.5, fps=10, analysis="dynamic")
    com = r.center_of_mass("base")
    # the base's x axis is world y: its centre of mass 0.2 m along world y from its origin
    np.testing.assert_allclose(com, np.tile([1.0, 2.2, 3.0], (len(r), 1)), rtol=0, atol=1e-15)
    np.testing.assert_allclose(r.position("base"), np.tile([1.0, 2.0, 3.0], (len(r), 1)))


def test_a_moving_parts_centre_of_mass_is_its_frame_carried_point() -> None:
    r = _rotated_base_and_arm().solve(duration=0.5, fps=10, analysis="dynamic")
    assert np.ptp(r.position("arm"), axis=0).max() < 1e-12   # (the pin holds its origin)
    assert np.ptp(r.center_of_mass("arm")[:, 1]) > 0.1       # it swings
    A = quat_to_matrix(r.orientation("arm"))
    np.testing.assert_allclose(r.center_of_mass("arm"),
                               r.position("arm") + A @ np.array([0.25, 0.0, 0.0]),
                               rtol=0, atol=1e-12)
