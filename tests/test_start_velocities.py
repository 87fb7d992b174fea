"""The parts' initial velocities at the start of a run: a dynamic run starts from the
nearest velocities the joints and motions allow, weighted by the parts' masses and inertias
(what an impulse through the joints leaves: the momentum they allow is kept), and says so
in its notes when the given ones do not fit; velocities that fit are kept as given; a
kinematic sweep takes every velocity from its motions and says the given ones are unused."""
from __future__ import annotations

import numpy as np
import pytest

from solver import Mechanism

MASS, ARM, I_COM = 1.0, 0.5, 0.01      # kg, m (centre of mass from the pivot), kg m^2


def pendulum(velocity=(0.0, 0.0, 0.0), angular_velocity=(0.0, 0.0, 0.0)) -> Mechanism:
    """A link pinned at the origin about z, its centre of mass ARM along x; no gravity."""
    m = Mechanism(gravity=(0.0, 0.0, 0.0))
    m.add_part("ground", fixed=True)
    m.add_part("link", mass=MASS, inertia=(I_COM, I_COM, I_COM), center_of_mass=(ARM, 0, 0),
               velocity=velocity, angular_velocity=angular_velocity)
    m.add_marker("O", "ground")
    m.add_marker("A", "link")
    m.add_joint("pin", "revolute", "A", "O")
    return m


def test_a_push_at_the_pivot_starts_the_swing_with_its_angular_momentum() -> None:
    """The link's frame origin (the pivot) given 1 m/s along y, which the pin forbids: an
    impulse through the pin (acting at the pivot) keeps the angular momentum about it,
    m ARM v = I_O w with I_O = I + m ARM^2, so w = 0.5 / 0.26 = 1.923 rad/s (the mass-weighted
    projection; a plain least-squares one would give 0.4).  The note names the pin and how
    far its rate was off (the pivot's 1 m/s)."""
    res = pendulum(velocity=(0.0, 1.0, 0.0)).solve(0.5, 10, analysis="dynamic")
    w = MASS * ARM * 1.0 / (I_COM + MASS * ARM ** 2)
    np.testing.assert_allclose(res.angular_velocity("link"), [[0.0, 0.0, w]] * len(res.times),
                               atol=1e-9)
    note = [n for n in res.notes if "initial velocities" in n]
    assert len(note) == 1 and "joint 'pin'" in note[0] and "off by 1 m/s" in note[0]


def test_velocities_that_fit_the_joints_are_kept_without_a_note() -> None:
    """Two links on ball joints, each given an angular velocity and the second its origin's
    velocity w1 x elbow (what the first link carries it at): the run starts with exactly
    these and says nothing about them."""
    w1, w2, elbow = np.array([0.3, -0.2, 2.0]), np.array([-1.0, 0.5, -3.0]), np.array([0.5, 0.1, -0.2])
    m = Mechanism(gravity=(0.0, 0.0, -9.81))
    m.add_part("ground", fixed=True)
    m.add_part("upper", mass=1.0, inertia=(0.01, 0.02, 0.025), center_of_mass=(0.25, 0.05, -0.1),
               angular_velocity=w1)
    m.add_part("fore", mass=0.7, inertia=(0.01, 0.02, 0.025), position=elbow,
               center_of_mass=(0.2, 0, 0), velocity=np.cross(w1, elbow), angular_velocity=w2)
    m.add_marker("O", "ground"); m.add_marker("a", "upper")
    m.add_marker("b", "upper", position=elbow); m.add_marker("c", "fore")
    m.add_joint("shoulder", "spherical", "a", "O"); m.add_joint("elbow", "spherical", "c", "b")
    res = m.solve(0.1, 10, analysis="dynamic")
    np.testing.assert_allclose(res.angular_velocity("upper")[0], w1, atol=1e-12)
    np.testing.assert_allclose(res.angular_velocity("fore")[0], w2, atol=1e-12)
    np.testing.assert_allclose(res.velocity("fore")[0], np.cross(w1, elbow), atol=1e-12)
    assert not [n for n in res.notes if "initial velocities" in n]


def test_a_speed_other_than_the_motions_is_named_with_the_motion() -> None:
    """A crank driven at 2 rad/s, given 5 rad/s, in a dynamic run: it starts at the motion's
    2 rad/s and the note names the motion, 3 rad/s off."""
    m = pendulum(angular_velocity=(0.0, 0.0, 5.0))
    m.add_motion("drive", "pin", "2*t")
    res = m.solve(0.5, 10, analysis="dynamic")
    assert res.angular_velocity("link")[0, 2] == pytest.approx(2.0, abs=1e-12)
    note = [n for n in res.notes if "initial velocities" in n]
    assert len(note) == 1 and "motion 'drive'" in note[0] and "off by 3 rad/s" in note[0]


def test_a_kinematic_sweep_says_given_velocities_are_unused() -> None:
    """The sweep's velocities are its motion's (2 rad/s), whatever the part was given."""
    m = pendulum(angular_velocity=(0.0, 0.0, 5.0))
    m.add_motion("drive", "pin", "2*t")
    res = m.solve(0.5, 10)
    assert res.analysis == "kinematic"
    assert res.angular_velocity("link")[0, 2] == pytest.approx(2.0, abs=1e-12)
    assert any("not used by a kinematic sweep" in n for n in res.notes)
    assert not [n for n in pendulum().solve(0.5, 10, analysis="dynamic").notes
                if "initial velocities" in n]


def test_a_part_turned_by_the_assembly_keeps_its_given_spin() -> None:
    """Built with its pin axis tilted 0.3 rad about x (centre of mass off the pin's plane),
    the link is turned upright by the assembly; its frame origin (on the pin) at rest and
    5 rad/s about z fit the pin there, so the run starts with exactly 5 rad/s and no note.
    (The centre of mass's velocity taken at the built pose, w x A c with the tilted A,
    would not fit the pin: projected, it starts at 5.024 rad/s.)"""
    tilt = 0.3
    m = Mechanism(gravity=(0.0, 0.0, 0.0))
    m.add_part("ground", fixed=True)
    m.add_part("link", mass=MASS, inertia=(I_COM, I_COM, I_COM), center_of_mass=(ARM, 0, 0.2),
               orientation=(np.cos(tilt / 2), np.sin(tilt / 2), 0, 0), angular_velocity=(0, 0, 5.0))
    m.add_marker("O", "ground")
    m.add_marker("A", "link")
    m.add_joint("pin", "revolute", "A", "O")
    res = m.solve(0.5, 10, analysis="dynamic")
    np.testing.assert_allclose(res.angular_velocity("link"), [[0.0, 0.0, 5.0]] * len(res.times),
                               atol=1e-9)
    assert not [n for n in res.notes if "initial velocities" in n]


def hinged_door(origin, velocity, angular_velocity, precision: float) -> Mechanism:
    """A 30 kg door on a hinge about z at the world origin, its frame origin at ``origin``
    (off the hinge), given ``velocity`` and ``angular_velocity``; numbers rounded by
    ``precision`` (the builder's input_precision); no gravity."""
    m = Mechanism(gravity=(0.0, 0.0, 0.0), input_precision=precision)
    m.add_part("ground", fixed=True)
    m.add_part("door", mass=30.0, inertia=(2.0, 1.0, 1.6), position=origin, velocity=velocity,
               angular_velocity=angular_velocity)
    m.add_marker("J", "ground")
    m.add_marker("I", "door", position=-np.asarray(origin))
    m.add_joint("hinge", "revolute", "I", "J")
    return m


def test_velocities_that_fit_once_rounded_to_float32_have_no_note() -> None:
    """Blender stores a part's location, Velocity and Angular Velocity in float32 and tells
    the solver so (input_precision 2^-24): a door's origin d from its hinge (0.1 to 2 m, any
    direction) turning at w about the hinge, its Velocity w x d, fits the hinge to the
    rounding of those numbers (a relative 6e-8 each, so the rate is off by a few 1e-8 of the
    speed, over the 1e-9 that exact input allows), and has no note.  A Velocity off by 1e-4
    of it is named (the mass-weighted start then differs from the typed spin)."""
    f32 = lambda x: np.asarray(x, np.float32).astype(float)      # noqa: E731
    rng = np.random.default_rng(3)
    for _ in range(20):
        th, d = rng.uniform(0.0, 2.0 * np.pi), rng.uniform(0.1, 2.0)
        origin, w = f32([d * np.cos(th), d * np.sin(th), 0.0]), f32([0.0, 0.0, rng.uniform(-5, 5)])
        v = f32(np.cross(w, origin))
        for off, noted in ((1.0, False), (1.0 + 1e-4, True)):
            res = hinged_door(origin, v * off, w, 2.0 ** -24).solve(0.05, 20, analysis="dynamic")
            assert any("initial velocities" in n for n in res.notes) == noted, (origin, w, off)


def test_a_pole_beside_the_link_leaves_its_note_as_alone() -> None:
    """The link spinning at 2 rad/s with its pivot pushed 5e-9 m/s along y (the pin
    forbids it: 5e-9 of the link's 1 m/s, above RATE_TOL's 1e-9), beside a 20 m pole
    hanging 30 m away: the pin is named as alone.  Before, the rates were measured against
    the model's size (10 m with the pole: 20 m/s given) and the note went quiet.  And the
    pole given a swing that fits its hinge beside the link driven from rest (no velocity
    given to it): no note, as for the link alone; before, the link's motion was named
    against the pole's speed."""
    from test_island_tolerances import hanging_pole
    m = hanging_pole(pendulum(velocity=(0.0, 5e-9, 0.0), angular_velocity=(0.0, 0.0, 2.0)),
                     (30.0, 0.0, 0.0))
    note = [n for n in m.solve(0.1, 10, analysis="dynamic").notes if "initial velocities" in n]
    assert len(note) == 1 and "joint 'pin'" in note[0] and "off by 5e-09 m/s" in note[0]
    m = pendulum()
    m.add_motion("drive", "pin", "2*t")
    hanging_pole(m, (30.0, 0.0, 0.0))
    m.parts["pole"].angular_velocity = np.array([0.0, 0.0, 1.0])
    assert not [n for n in m.solve(0.1, 10, analysis="dynamic").notes
                if "initial velocities" in n]
