"""Capsules in contact (add_contact, Shape.capsule): a ball on a capsule's middle, whichever
side of the contact each is, and a rod lying across a bar, felt along its axis with
``spacing`` (its end spheres alone never meet the bar)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from solver import Mechanism, MechanismError, Shape

G = 9.81


@pytest.mark.parametrize("rod_first", [False, True])
def test_a_ball_rests_on_the_middle_of_a_capsule_either_way_round(rod_first: bool) -> None:
    """A ball dropped onto the middle of a fixed horizontal rod (a capsule 0.5 m long)
    rests on it where K delta = m g, whichever side of the contact the rod is: the ball's
    centre against the capsule's exact distance.  The capsule's end centres against the
    ball's distance never meet a ball on its middle: with the rod given first the ball
    fell through it (z = -1.18 m after 0.5 s)."""
    K, mass, R, rod_radius = 1e5, 0.1, 0.01, 0.01
    lying = (math.cos(math.pi / 4), math.sin(math.pi / 4), 0.0, 0.0)    # rod along y
    rod, ball = Shape.capsule(rod_radius, 0.5, orientation=lying), Shape.sphere(R)
    m = Mechanism(gravity=(0.0, 0.0, -G))
    m.add_part("ground", fixed=True)
    m.add_part("ball", mass=mass, inertia=(0.4 * mass * R * R,) * 3, position=(0, 0, 0.05))
    law = dict(stiffness=K, exponent=1.0, restitution=0.3)
    if rod_first:
        m.add_contact("hit", "ground", "ball", rod, ball, **law)
    else:
        m.add_contact("hit", "ball", "ground", ball, rod, **law)
    r = m.solve(duration=0.5, fps=20)
    # settled by 0.5 s (e = 0.3: the bounces die out within 0.1 s); 1e-6 of the depth
    height = R + rod_radius - mass * G / K
    assert r.position("ball")[-1, 2] == pytest.approx(height, abs=1e-6 * mass * G / K)
    force_on_ball = r.contact("hit")["force"][-1] * (-1.0 if rod_first else 1.0)
    assert force_on_ball == pytest.approx([0.0, 0.0, mass * G], rel=1e-6, abs=1e-9)


@pytest.mark.parametrize("bar", ["capsule", "box", "cylinder"])
def test_a_rod_with_spacing_rests_across_a_bar(bar: str) -> None:
    """A rod (a capsule 0.3 m long, on a vertical slide) dropped across the middle of a
    fixed bar 2 cm thick: its end spheres never meet the bar, and it fell through
    (z = -1.18 m after 0.5 s); with spacing 0.05 m its 7 centres share the end spheres'
    2 K, the middle one alone reaches the bar (the next are 5 cm along it), and the rod
    rests where (2 K / 7) delta = m g, to 1e-6 of the depth (settled: e = 0.3)."""
    K, mass = 1e5, 0.2
    along_x = (math.cos(math.pi / 4), 0.0, math.sin(math.pi / 4), 0.0)
    along_y = (math.cos(math.pi / 4), math.sin(math.pi / 4), 0.0, 0.0)
    crossing = {"capsule": Shape.capsule(0.01, 0.5, orientation=along_y),
                "box": Shape.box((0.02, 0.5, 0.02)),
                "cylinder": Shape.cylinder(0.01, 0.5, orientation=along_y)}[bar]
    drops = {}
    for spacing in (None, 0.05):
        m = Mechanism(gravity=(0.0, 0.0, -G))
        m.add_part("ground", fixed=True)
        m.add_part("rod", mass=mass, inertia=(2e-3, 2e-3, 1e-5), position=(0, 0, 0.05),
                   orientation=along_x)
        m.add_marker("slide", "rod", orientation=(along_x[0], 0.0, -along_x[2], 0.0))
        m.add_marker("up", "ground")
        m.add_joint("drop", "prismatic", "slide", "up")
        m.add_contact("hit", "rod", "ground", Shape.capsule(0.01, 0.3, spacing=spacing),
                      crossing, stiffness=K, exponent=1.0, restitution=0.3)
        drops[spacing] = m.solve(duration=0.5, fps=20).position("rod")[-1, 2]
    depth = 7 * mass * G / (2 * K)
    assert drops[None] < -1.0                       # the end spheres alone: through the bar
    assert drops[0.05] == pytest.approx(0.02 - depth, abs=1e-6 * depth)


def test_capsule_spacing_spreads_the_end_spheres_along_its_axis() -> None:
    """The centres run from end to end no farther apart than the spacing, evenly, their
    shares summing to the two end spheres' 2; without spacing, the two ends at 1 each."""
    pts, w, radius = Shape.capsule(0.02, 0.3, spacing=0.07).samples()
    assert radius == 0.02
    assert np.allclose(pts[:, 2], np.linspace(-0.15, 0.15, 6)) and np.allclose(pts[:, :2], 0)
    assert np.allclose(w, 2.0 / 6.0)
    pts, w, _ = Shape.capsule(0.02, 0.3).samples()
    assert np.allclose(pts[:, 2], [-0.15, 0.15]) and np.allclose(w, 1.0)
    with pytest.raises(MechanismError, match="capsule spacing"):
        Shape.capsule(0.02, 0.3, spacing=-1.0)
