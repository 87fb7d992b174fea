"""The note that names the joints whose reactions redundant equations leave undetermined
(a planar four-bar of revolutes, a door on two hinges on one axis): given once by check(),
every run that keeps reactions and statics; never for a mechanism without redundancy."""
from __future__ import annotations

import numpy as np
import pytest

from solver import Mechanism
from mechanisms import four_bar, pendulum

NOT_UNIQUE = "reactions not unique"


def door(driven: bool = True) -> Mechanism:
    """A 10 kg door on two hinges on the world z axis (0.2 m and 1.8 m up), its centre of
    mass 0.4 m out along x; gravity -z; turned by a motion on the lower hinge."""
    m = Mechanism(gravity=(0.0, 0.0, -9.81))
    m.add_part("frame", fixed=True)
    m.add_part("door", mass=10.0, inertia=(1.0, 1.0, 1.0), center_of_mass=(0.4, 0.0, 1.0))
    for name, z in (("low", 0.2), ("high", 1.8)):
        m.add_marker(f"{name}_door", "door", position=(0, 0, z))
        m.add_marker(f"{name}_frame", "frame", position=(0, 0, z))
        m.add_joint(name, "revolute", f"{name}_door", f"{name}_frame")
    if driven:
        m.add_motion("swing", "low", "0.5*sin(2*pi*t)")
    return m


def notes_with(notes, text):
    return [n for n in notes if text in n]


def test_four_bar_run_notes_every_joint_of_the_loop_once():
    r = four_bar().solve(duration=0.5, fps=10)
    shared = notes_with(r.notes, NOT_UNIQUE)
    assert len(shared) == 1
    note = shared[0]
    for joint in ("pivot2", "pin_A", "pin_B", "pivot4"):
        assert repr(joint) in note
    # a loop in the xy plane: its self-stresses are out of the plane
    assert "force along z" in note and "torque about x" in note and "torque about y" in note
    assert "force along x" not in note and "torque about z" not in note
    assert "least-norm" in note


def test_check_names_every_joint_whose_reaction_is_not_unique():
    report = four_bar().check()
    shared = notes_with(report.notes, NOT_UNIQUE)
    assert len(shared) == 1
    for joint in ("pivot2", "pin_A", "pin_B", "pivot4"):
        assert repr(joint) in shared[0]


def test_two_hinges_on_one_axis_share_their_axial_force():
    r = door().solve(duration=0.25, fps=8)
    shared = notes_with(r.notes, NOT_UNIQUE)
    assert len(shared) == 1 and "'low'" in shared[0] and "'high'" in shared[0]
    assert "force along z" in shared[0]
    low, high = r.reaction("low")[0][:, 2], r.reaction("high")[0][:, 2]
    # what is determined: the sum along the common axis carries the weight (a kinematic
    # sweep: no z motion, so exactly m g); 1e-9 relative: the solve's rounding
    np.testing.assert_allclose(low + high, 10.0 * 9.81, rtol=1e-9)


def test_statics_notes_reactions_not_unique():
    r = door(driven=False).statics()
    assert len(notes_with(r.notes, NOT_UNIQUE)) == 1


@pytest.mark.parametrize("build", [pendulum, lambda: _one_hinge()])
def test_no_note_without_redundant_equations(build):
    m = build()
    assert not notes_with(m.check().notes, NOT_UNIQUE)
    assert not notes_with(m.solve(duration=0.25, fps=8).notes, NOT_UNIQUE)


def _one_hinge() -> Mechanism:
    """The door on its lower hinge alone: no redundant equation."""
    m = Mechanism(gravity=(0.0, 0.0, -9.81))
    m.add_part("frame", fixed=True)
    m.add_part("door", mass=10.0, inertia=(1.0, 1.0, 1.0), center_of_mass=(0.4, 0.0, 1.0))
    m.add_marker("a", "door")
    m.add_marker("b", "frame")
    m.add_joint("hinge", "revolute", "a", "b")
    m.add_motion("swing", "hinge", "0.5*sin(2*pi*t)")
    return m


def test_no_note_when_reactions_are_not_kept():
    r = four_bar().solve(duration=0.5, fps=10, keep=("efforts",))
    assert not notes_with(r.notes, NOT_UNIQUE)



def test_each_study_variant_notes_that_its_reactions_are_shares():
    """A study of the four-bar over three crank masses: each variant's Result says once
    that its reactions (the table's reaction columns) are least-norm shares."""
    res = four_bar().study({"crank.mass": [1.0, 2.0, 3.0]}, duration=0.25, fps=8)
    assert [len(notes_with(res.result(i).notes, NOT_UNIQUE)) for i in range(3)] == [1, 1, 1]
