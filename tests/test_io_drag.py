"""addon/io/drag.py without Blender: the mouse ray on the drag plane, a grabbed point in its
part's frame, a joint coordinate from its markers' world matrices, the one-DOF slider's
range and the order in which its joint is chosen."""
from __future__ import annotations

import math

import numpy as np

from test_io_addon import io

drag, part_frames = io("drag"), io("part_frames")


def turn_z(angle: float, at=(0.0, 0.0, 0.0), scale: float = 1.0) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    M = np.eye(4)
    M[:3, :3] = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]]) * scale
    M[:3, 3] = at
    return M


def test_ray_meets_the_plane_facing_the_view() -> None:
    p = drag.drag_plane_point((0, 0, 10), (0.6, 0, -0.8), (0, 0, 1), (0, 0, -1))
    np.testing.assert_allclose(p, (6.75, 0.0, 1.0), atol=1e-12)
    assert drag.drag_plane_point((0, 0, 10), (1, 0, 0), (0, 0, 1), (0, 0, 1)) is None   # along it
    assert drag.drag_plane_point((0, 0, 10), (0, 0, 1), (0, 0, 1), (0, 0, 1)) is None   # away


def test_point_in_a_scaled_turned_part_in_metres() -> None:
    """A part turned 90 degrees about z, scaled 2, at (1, 2, 3) BU; 0.5 m per BU."""
    frame = part_frames.part_frame(turn_z(math.pi / 2, (1, 2, 3), 2.0))
    np.testing.assert_allclose(drag.point_in_part(frame, (1, 3, 3), 0.5), (0.5, 0.0, 0.0), atol=1e-12)


def test_joint_coordinates_from_marker_matrices() -> None:
    Mj = turn_z(0.3, (1, 0, 0), scale=3.0)            # a marker's scale is dropped
    Mi = turn_z(0.3 + 2.0, (1, 0, 0.25))
    assert math.isclose(drag.joint_coordinate(Mi, Mj, "angle", 1.0), 2.0, abs_tol=1e-12)
    assert math.isclose(drag.joint_coordinate(Mi, Mj, "slide", 0.01), 0.0025, abs_tol=1e-15)
    Mi = turn_z(0.3 - 3.0)
    assert math.isclose(drag.joint_coordinate(Mi, Mj, "angle", 1.0), -3.0, abs_tol=1e-12)


def test_slider_range_both_ways() -> None:
    assert drag.range_value(0.25, 1.0, 3.0) == 1.5
    assert drag.range_value(-1.0, 1.0, 3.0) == 1.0 and drag.range_value(2.0, 1.0, 3.0) == 3.0
    assert drag.range_fraction(1.5, 1.0, 3.0, angle=False) == 0.25
    # a rocker swinging through pi: 170 .. 250 degrees; -150 degrees is 210, the middle
    lo, hi = math.radians(170), math.radians(250)
    assert math.isclose(drag.range_fraction(math.radians(-150), lo, hi, angle=True), 0.5)
    # a full turn is [-pi, pi): any angle has its place
    assert math.isclose(drag.range_fraction(math.radians(90), -math.pi, math.pi, True, True), 0.75)
    assert math.isclose(drag.range_fraction(3 * math.pi, -math.pi, math.pi, True, True), 0.0)
    assert drag.range_fraction(1.0, 2.0, 2.0, angle=False) == 0.0


def test_wiggle_candidates_prefer_a_grounded_undriven_angle() -> None:
    joints = [("pin", "revolute", "", False), ("slide", "prismatic", "", True),
              ("drive", "revolute", "angle", True), ("ball", "spherical", "", True),
              ("crank", "revolute", "", True), ("tube", "cylindrical", "", False),
              ("screw", "cylindrical", "angle", True)]
    assert drag.wiggle_candidates(joints) == [("crank", "angle"), ("pin", "angle"),
                                              ("tube", "angle"), ("slide", "slide"),
                                              ("screw", "slide"), ("tube", "slide")]


def test_time_of_a_frame() -> None:
    assert drag.time_of_frame(1, 24.0, 13) == 0.5


def test_stops_note_in_scene_units() -> None:
    from types import SimpleNamespace as Stop
    stops = (Stop(joint="hinge", side="upper", value=math.pi / 3, angle=True),
             Stop(joint="rail", side="lower", value=-0.05, angle=False))
    mm = lambda metres: f"{metres * 1000:g} mm"                   # noqa: E731
    assert drag.stops_note(stops, mm) == ("'hinge' rests on its upper stop (60 degrees); "
                                          "'rail' rests on its lower stop (-50 mm)")
    assert drag.stops_note((), mm) == ""


def test_range_path_goes_through_a_range_wider_than_half_a_turn() -> None:
    """A range -217 .. 37 degrees: from 0 to -217 the path steps down through the range in
    moves under a quarter turn (never the shorter way round, +143, across the upper end);
    a present angle read within one turn (+143 for -217) is taken on the range's turn; a
    full turn, a slide: the target alone."""
    lo, hi = math.radians(-217.0), math.radians(37.0)
    path = drag.range_path(0.0, lo, lo, hi, True)
    steps = np.diff([0.0] + path)
    assert path[-1] == lo and (steps < 0).all() and (np.abs(steps) < math.pi / 2).all()
    back = drag.range_path(math.radians(143.0), 0.0, lo, hi, True)
    assert back[-1] == 0.0 and (np.diff([lo] + back) > 0).all()
    assert np.all(np.abs(np.diff([lo] + back)) < math.pi / 2)
    assert drag.range_path(0.0, 3.0, -math.pi, math.pi, True, full_turn=True) == [3.0]
    assert drag.range_path(0.0, -0.3, -0.5, 0.5, False) == [-0.3]


def test_an_angle_is_read_on_the_turn_of_its_stops() -> None:
    """Stops 100 .. 260 degrees: -160 is 200; a lone lower stop at 100: -160 is 200, 50 is
    410 (a turn above the stop); a lone upper stop at -100: 170 is -190; no stops, or a
    range wider than a turn: as read."""
    deg = math.radians
    assert math.isclose(drag.angle_in_stops(deg(-160), deg(100), deg(260)), deg(200))
    assert math.isclose(drag.angle_in_stops(deg(-160), deg(100), None), deg(200))
    assert math.isclose(drag.angle_in_stops(deg(50), deg(100), None), deg(410))
    assert math.isclose(drag.angle_in_stops(deg(170), None, deg(-100)), deg(-190))
    assert drag.angle_in_stops(deg(-160), None, None) == deg(-160)
    assert drag.angle_in_stops(deg(-160), deg(-400), deg(400)) == deg(-160)
