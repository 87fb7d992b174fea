"""addon/io/start_gaps.py without Blender: each joint kind's gap at the start read from the
joint table, and Check's lines on joints open at the start and the parts the assembly moves
(the Blender-free tier of test_io_addon.py, in a file of its own for the size limit)."""
from __future__ import annotations

import numpy as np
import pytest

from test_io_addon import io, rot, solver

start_gaps = io("start_gaps")


def test_joint_gap_reads_the_joint_table() -> None:
    """Marker I at (0.3, 0, 0.4) in J's frame, its axes turned 0.2 rad about J's y: the gap
    of each kind is what that kind holds (docs/conventions.md's table): the distance from J's origin
    (0.5), from J's z axis (0.3) or from J's xy plane (0.4), and the angle between the z axes
    (0.2 rad; perpendicular: pi/2 - 0.2); a distance joint misses by its length's error."""
    oi, ai = np.array([0.3, 0.0, 0.4]), rot("y", 0.2)
    tilt = np.pi / 2 - 0.2

    def gap(kind, length=None):
        return start_gaps.joint_gap(kind, (oi, ai), (np.zeros(3), np.eye(3)), length)

    want = {"fixed": (0.5, 0.2), "revolute": (0.5, 0.2), "prismatic": (0.3, 0.2),
            "cylindrical": (0.3, 0.2), "spherical": (0.5, 0.0), "universal": (0.5, tilt),
            "planar": (0.4, 0.2), "in-line": (0.3, 0.0), "in-plane": (0.4, 0.0),
            "parallel-axes": (0.0, 0.2), "perpendicular": (0.0, tilt), "distance": (0.0, 0.0)}
    assert set(want) == set(solver.JOINT_KINDS)
    for kind, (dist, angle) in want.items():
        assert gap(kind) == pytest.approx((dist, angle), abs=1e-15), kind
    assert gap("distance", 0.7) == pytest.approx((0.2, 0.0), abs=1e-15)
    assert gap("IN_LINE") == gap("in-line")


def test_start_notes_name_the_open_joint_and_the_move() -> None:
    """A 1 m arm pinned to the ground at its end, its pin marker 5 cm off the ground's: the
    assembly moves the arm 5 cm and the note names the pin and both lengths; pinned where it
    is, nothing to say; a motion whose start value turns the arm is named as the reason."""
    def arm(offset: float, angle: str = "0*t"):
        m = solver.Mechanism(gravity=(0.0, 0.0, -9.81))
        m.add_part("ground", fixed=True)
        m.add_part("arm", mass=1.0, inertia=(0.01, 0.1, 0.1), position=(0.5, 0.0, 0.0))
        m.add_marker("O", "ground")
        m.add_marker("A", "arm", position=(-0.5 + offset, 0.0, 0.0))
        m.add_joint("pin", "revolute", "A", "O")
        m.add_motion("turn", "pin", angle)
        before = {"arm": m.pose("arm")}
        m.assemble()
        return start_gaps.start_notes(m, before, {"arm": m.pose("arm")}, lambda x: f"{x:.3g} m")

    assert arm(0.05) == ["joint 'pin' is open at the start by 0.05 m",
                         "the assembly moves part 'arm' by 0.05 m to close them: a Bake starts "
                         "there (Assemble shows it)"]
    assert arm(0.0) == []
    assert arm(1e-6) == []                        # below OPEN_SHARE of the 1 m model
    turned = arm(0.0, "0.1")
    assert len(turned) == 1 and "to meet the motions at the start" in turned[0]


def test_a_part_whose_markers_sit_at_its_origin_is_measured_by_its_own_size() -> None:
    """A wheel (radius of gyration sqrt(trace(I) / 2m) = 0.2 m) on an axle at its origin,
    at (0.4, 0.2, 0.1): every marker and part origin at one point, so their spread is 0.
    Its pin marker 1e-8 m off the ground's (a float32 rounding of that position is
    3e-8 m) is no joint open at the start; 1 mm off (5e-3 of the wheel's size) is."""
    def wheel(offset: float):
        m = solver.Mechanism(gravity=(0.0, 0.0, -9.81))
        m.add_part("ground", fixed=True)
        m.add_part("wheel", mass=2.0, inertia=(0.04, 0.04, 0.08), position=(0.4, 0.2, 0.1))
        m.add_marker("O", "ground", position=(0.4, 0.2, 0.1))
        m.add_marker("A", "wheel", position=(offset, 0.0, 0.0))
        m.add_joint("axle", "revolute", "A", "O")
        before = {"wheel": m.pose("wheel")}
        m.assemble()
        return start_gaps.start_notes(m, before, {"wheel": m.pose("wheel")}, lambda x: f"{x:.3g} m")

    assert wheel(1e-8) == []
    assert wheel(1e-3)[0] == "joint 'axle' is open at the start by 0.001 m"
