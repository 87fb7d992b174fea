"""Joints open where the parts were built: a run starts from the assembled pose, and its
Result says which joints were open, by how much, and how far the assembly moved each part;
parts built closed, or moved only to meet the motions, get no such note."""
from __future__ import annotations

import numpy as np
import pytest

from solver import Mechanism
from solver.study import Study, grid

ABOUT_Y = (np.sqrt(0.5), np.sqrt(0.5), 0.0, 0.0)      # marker z along world -y


def pendulum(at=(0.0, 0.0, 0.0), drive: str | None = None, hub=(0.0, 0.0, 0.0)) -> Mechanism:
    """An arm whose hub marker is ``hub`` in its frame (its origin by default), built with
    that origin ``at``, pinned to the ground's origin about y (so built with the hub
    elsewhere than the origin, the pin is open by the hub's distance from it); ``drive``: a
    motion on the pin."""
    m = Mechanism(gravity=(0.0, 0.0, -9.81))
    m.add_part("ground", fixed=True)
    m.add_part("arm", mass=1.0, inertia=(1e-3, 1e-2, 1e-2), center_of_mass=(0.5, 0, 0),
               position=at)
    m.add_marker("pivot", "ground", orientation=ABOUT_Y)
    m.add_marker("hub", "arm", position=hub, orientation=ABOUT_Y)
    m.add_joint("hinge", "revolute", "hub", "pivot")
    if drive is not None:
        m.add_motion("turn", "hinge", drive)
    return m


def opened(notes: list[str]) -> list[str]:
    return [n for n in notes if "open where the parts were built" in n]


def test_a_hub_built_off_its_pivot_is_named_with_its_gap_and_the_parts_move() -> None:
    """The hub built 0.05 m along x and 0.02 m along z off the pivot: the pin is open by
    their length, sqrt(0.05^2 + 0.02^2) = 0.0539 m, and the run starts with the hub on the
    pivot (the arm moved: the note says by how much, as the start's poses show); check()
    says the same before any run."""
    m = pendulum(at=(0.05, 0.0, 0.02))
    report = m.check()
    res = m.solve(0.25, 8)
    assert report.opened == opened(res.notes)[0] and report.opened in str(report)
    np.testing.assert_allclose(res.position("arm")[0], 0.0, atol=1e-9)
    note, = opened(res.notes)
    assert "joint 'hinge' (by 0.0539 m)" in note
    moved = np.linalg.norm(res.center_of_mass("arm")[0] - np.array([0.55, 0.0, 0.02]))
    assert f"part 'arm' by {moved:.3g} m" in note


def test_a_pin_whose_axes_are_built_askew_is_named_with_its_angle() -> None:
    """The arm's hub marker turned 3 degrees about its x axis off the pivot's (the pivot's
    quarter turn about x and 3 degrees more): the pin's axes miss by 3 degrees, which the
    note gives (its sine rows read back through arcsin)."""
    tilt = np.radians(3.0)
    c, s_ = np.cos(tilt / 2), np.sin(tilt / 2)
    w, x = ABOUT_Y[0], ABOUT_Y[1]
    m2 = Mechanism(gravity=(0.0, 0.0, -9.81))
    m2.add_part("ground", fixed=True)
    m2.add_part("arm", mass=1.0, inertia=(1e-3, 1e-2, 1e-2), center_of_mass=(0.5, 0, 0))
    m2.add_marker("pivot", "ground", orientation=ABOUT_Y)
    m2.add_marker("hub", "arm", orientation=(w * c - x * s_, w * s_ + x * c, 0, 0))
    m2.add_joint("hinge", "revolute", "hub", "pivot")
    note, = opened(m2.solve(0.25, 8).notes)
    assert "joint 'hinge' (by 3 deg)" in note


def test_parts_built_closed_or_moved_by_a_motion_get_no_note() -> None:
    """Built on the pivot: no note; built on the pivot with the pin driven from 30 degrees
    (the assembly turns the arm to meet the motion, as asked): no note either."""
    assert not opened(pendulum().solve(0.25, 8).notes)
    assert pendulum().check().opened is None
    driven = pendulum(drive="0.5236 + t")
    res = driven.solve(0.25, 8)
    assert not opened(res.notes)
    com = res.center_of_mass("arm")[0]           # turned 0.5236 rad about y, up or down
    assert abs(abs(np.arctan2(com[2], com[0])) - 0.5236) < 1e-9


def test_rounding_of_a_typed_position_is_no_gap() -> None:
    """The hub built 1e-7 m off (numbers typed to seven digits, or Blender's float32): far
    below OPEN_SHARE of the model's size: no note."""
    assert not opened(pendulum(at=(1e-7, 0.0, -1e-7)).solve(0.25, 8).notes)


def test_a_studys_variant_moved_by_a_marker_is_noted_as_its_separate_run_is() -> None:
    """A study moving the arm's hub marker: each variant's Result has its separate run's
    note (the same code starts both), the nominal variant none."""
    study = Study(pendulum(), grid({"hub.position.x": [0.0, 0.03]}))
    res = study.run(duration=0.25, fps=8)
    assert not opened(res.result(0).notes)
    alone = pendulum(hub=(0.03, 0.0, 0.0)).solve(0.25, 8)
    assert opened(res.result(1).notes) == opened(alone.notes) != []


def _arm(reach: float) -> Mechanism:
    """An arm pinned at the ground's origin, a ground marker ``reach`` m out along x (so the
    model's size is ``reach``), a marker on the arm 0.1 m out."""
    m = Mechanism(gravity=(0.0, 0.0, 0.0))
    m.add_part("ground", fixed=True)
    m.add_part("arm", mass=1.0, inertia=(1e-3, 1e-3, 1e-3))
    m.add_marker("O", "ground"); m.add_marker("A", "arm")
    m.add_marker("far", "ground", position=(reach, 0, 0))
    m.add_marker("B", "arm", position=(0.1, 0, 0))
    return m


@pytest.mark.parametrize("reach", [1.0, 1.1])
def test_a_gap_in_length_is_given_in_metres_whatever_the_models_size(reach: float) -> None:
    """A joint's length rows miss by metres and its angle rows by degrees or radians, for a
    model 1 m in size as for any other (a length row was taken for an angle where the size,
    which scales the length rows, is exactly 1): the loop that cannot close leaves a gap of
    reach - 0.1 m, the pin built open misses by reach m, the slider given 0.3 m/s across
    its guide is off by 0.3 m/s."""
    m = _arm(reach)
    m.add_joint("pin", "revolute", "A", "O"); m.add_joint("tie", "spherical", "B", "far")
    assert f"leave a gap of {reach - 0.1:.3g} m, " in m.check().problems[0]
    m = _arm(reach)
    m.add_joint("pin", "revolute", "A", "far")
    assert f"joint 'pin' (by {reach:.3g} m) is open" in m.check().opened
    m = _arm(reach)
    m.add_part("slider", mass=1.0, velocity=(0.3, 0, 0))
    m.add_marker("S", "slider"); m.add_marker("G", "ground")
    m.add_joint("pin", "revolute", "A", "O"); m.add_joint("slide", "prismatic", "S", "G")
    assert "(its rate is off by 0.3 m/s)" in " ".join(m.solve(0.1, 24).notes)
