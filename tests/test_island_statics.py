"""Statics of a mechanism beside a heavy part joined to nothing of it (a 10 kg, 20 m pole
hanging 30 m away) is the mechanism's alone: each balance row's load scale and rounding
floor (analyses/equilibrium/statics_newton.py) are those of its own mechanism (island),
not of the model's heaviest part or farthest reach."""
from __future__ import annotations

import pytest

from solver import Mechanism
from test_statics_stiff import angle_z, sprung_arm, sprung_arm_angle


def pole_along_gravity(m: Mechanism, at, length: float = 20.0) -> Mechanism:
    """A 10 kg pole ``length`` m long hanging at rest along -y (the sprung arm's gravity)
    from a pin about z at ``at`` (m, world) on the ground, joined to nothing else."""
    inertia = 10.0 * length ** 2 / 12.0
    m.add_part("pole", mass=10.0, inertia=(inertia, 0.1, inertia),
               center_of_mass=(0.0, -length / 2.0, 0.0), position=tuple(at))
    m.add_marker("pole top", "pole")
    m.add_marker("pole pin", "ground", position=tuple(at))
    m.add_joint("pole hinge", "revolute", "pole top", "pole pin")
    return m


@pytest.mark.parametrize("size, mass", [(1e-3, 1e-6), (1e-2, 1e-3)])
def test_a_light_arm_beside_a_heavy_pole_rests_where_it_rests_alone(size, mass) -> None:
    """test_statics_stiff's sprung arm (spring 100 times its weight), 1 mm and 1 mg or
    1 cm and 1 g, beside the pole: the closed-form angle as alone.  Before, the balance's
    load scale was the pole's weight, 98 N, for every row, and its rounding floor the
    pole's 30 m reach: the 1 mm arm (1e-5 N) found no equilibrium ('arm' free to move),
    the 1 cm arm rested 3.2e-13 rad and the 10 cm one 3.0e-14 rad off (1e-16 alone).
    Bound: test_statics_stiff's 1e-10 rad would pass the 3e-13; the arms alone reach
    1.4e-13 rad (1 mm, its float rounding 1e-16 m over 1e-3 m) and 1e-16 rad, so 2e-13
    rad, above the 1 mm arm's own rounding and below the 1 cm arm's offset before."""
    m = pole_along_gravity(sprung_arm(size, mass, 1e2), (30.0, 0.0, 0.0))
    eq = m.statics()
    assert abs(angle_z(eq, "arm")[0] - sprung_arm_angle(1e2)) < 2e-13
    assert eq.stable
