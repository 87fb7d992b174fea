"""A joint's coordinate over a run (solver.joint_coordinate): a revolute's angle with its
turns, a prismatic's slide, a cylindrical joint's two, each against its motion's closed
form; joints without such a coordinate, or a cylindrical one left unnamed, refused by name."""
from __future__ import annotations

import numpy as np
import pytest

from mechanisms import rail_slider
from solver import Mechanism, MechanismError, joint_coordinate


def spun(kind: str = "revolute", turn: str = "3 + 20*t", slide: str | None = None) -> Mechanism:
    """A part on a joint of ``kind`` about (and along) the ground's z axis, its angle driven
    by ``turn`` (rad) and, on a cylindrical joint, its slide by ``slide`` (m)."""
    m = Mechanism(gravity=(0.0, 0.0, -9.81))
    m.add_part("ground", fixed=True)
    m.add_part("rotor", mass=1.0, inertia=(0.01, 0.01, 0.02), center_of_mass=(0.1, 0, 0))
    m.add_marker("seat", "ground")
    m.add_marker("hub", "rotor")
    m.add_joint("axle", kind, "hub", "seat")
    if kind != "prismatic":
        m.add_motion("turn", "axle", turn, coordinate="angle")
    if slide is not None:
        m.add_motion("push", "axle", slide, coordinate="slide")
    return m


def test_an_angle_keeps_its_turns_where_frames_are_more_than_half_a_turn_apart() -> None:
    """20 rad/s at 3 frames a second: 6.7 rad between frames, more than half a turn, which
    frame-to-frame unwrapping would take the wrong way; the rates keep the turns: the angle
    is the motion's 3 + 20 t to rounding."""
    res = spun().solve(duration=2.0, fps=3)
    angle = joint_coordinate(res, "axle")
    np.testing.assert_allclose(angle, 3.0 + 20.0 * res.times, atol=1e-9)
    assert np.abs(np.unwrap(angle % (2 * np.pi)) - angle).max() > 1.0   # (unwrapping misses)


def test_a_slide_and_a_cylindrical_joints_two_coordinates() -> None:
    """A prismatic joint's slide is its motion; a cylindrical joint driven 0.5 + t rad and
    0.2 sin(3 t) m gives both, each asked for by name."""
    m = rail_slider("z", part="ram", mass=2.0, spring=None, gravity=(0.0, 0.0, 0.0))
    m.add_motion("stroke", "rail", "0.1*t*t")
    res = m.solve(duration=1.0, fps=10)
    np.testing.assert_allclose(joint_coordinate(res, "rail"), 0.1 * res.times ** 2,
                               atol=1e-12)
    res = spun("cylindrical", "0.5 + t", "0.2*sin(3*t)").solve(duration=1.0, fps=10)
    np.testing.assert_allclose(joint_coordinate(res, "axle", "angle"), 0.5 + res.times,
                               atol=1e-9)
    np.testing.assert_allclose(joint_coordinate(res, "axle", "slide"),
                               0.2 * np.sin(3.0 * res.times), atol=1e-12)


def test_joints_without_the_coordinate_are_refused_by_name() -> None:
    """An unknown joint, a spherical joint (no single coordinate), a revolute's slide and a
    cylindrical joint's coordinate left unnamed: MechanismError naming the joint."""
    res = spun("cylindrical", "t", "0.1*t").solve(duration=0.5, fps=4)
    for joint, coordinate, said in (("shaft", None, "unknown joint 'shaft'"),
                                    ("axle", None, "name its coordinate, 'angle' or 'slide'"),
                                    ("axle", "twist", "not 'twist'")):
        with pytest.raises(MechanismError, match=said):
            joint_coordinate(res, joint, coordinate)
    m = Mechanism(gravity=(0.0, 0.0, -9.81))
    m.add_part("ground", fixed=True)
    m.add_part("bob", mass=1.0, position=(0.0, 0.0, -1.0))
    m.add_marker("top", "ground")
    m.add_marker("rod", "bob", position=(0.0, 0.0, 1.0))
    m.add_joint("ball", "spherical", "rod", "top")
    with pytest.raises(MechanismError, match="joint 'ball' is spherical"):
        joint_coordinate(m.solve(duration=0.2, fps=10), "ball")
    with pytest.raises(MechanismError, match="not 'slide'"):
        joint_coordinate(spun().solve(duration=0.2, fps=10), "axle", "slide")
