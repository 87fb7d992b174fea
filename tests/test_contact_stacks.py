"""Boxes and cylinders resting on each other with their edges flush (equal boxes stacked,
a box flush with another's side): a corner lying in the other shape's side plane is
measured from the face it came through (base/shapes.py ``flush_faces``), so the stack
rests at its closed-form sag instead of passing through."""
from __future__ import annotations

import numpy as np
import pytest

from solver import Mechanism, Shape
from solver.base.shapes import box_distance, cylinder_distance

G = 9.81
K = 1e6          # N/m, linear: a box-box contact meets K / 2 through a face (a quarter
                 # each way round: four corners of eight, each way half of K), and a
                 # box on a floor K / 2 (four corners of eight)


def stack(shapes: list, offsets: list, mass: float = 1.0, size: float = 0.1) -> Mechanism:
    """Parts of ``mass`` kg with ``shapes`` (height ``size``) stacked on a floor, each
    shifted sideways by its offset (m), the lowest first, each resting exactly on the one
    below."""
    m = Mechanism(gravity=(0.0, 0.0, -G))
    m.add_part("ground", fixed=True)
    inertia = (mass * size * size / 6.0,) * 3
    below = "ground"
    for k, (shape, offset) in enumerate(zip(shapes, offsets)):
        name = f"part{k}"
        m.add_part(name, mass=mass, inertia=inertia,
                   position=(offset[0], offset[1], size / 2 + k * size))
        under = Shape.half_space() if below == "ground" else shapes[k - 1]
        m.add_contact(f"rest{k}", name, below, shape, under, friction=0.5, stiffness=K,
                      exponent=1.0)
        below = name
    return m


def sags(count: int, mass: float = 1.0) -> np.ndarray:
    """(count,) each part's drop at rest: the sum of the contacts' squeezes below it,
    contact j carrying the weight of the count - j parts above it through K / 2."""
    squeeze = (count - np.arange(count)) * mass * G / (K / 2)
    return np.cumsum(squeeze)


def test_three_equal_boxes_stacked_rest_without_drift() -> None:
    """Three equal 10 cm cubes stacked for 10 s: each rests at its sag (1e-9 m: the run's
    tolerance on positions of 1e-4 m), the top one drifts sideways by nothing (1e-12 m)
    and does not turn.  Measured from the nearest face, the corners in the side planes of
    the box below met it at depth 0 and the upper two fell 490 m."""
    boxes = [Shape.box((0.1, 0.1, 0.1))] * 3
    r = stack(boxes, [(0.0, 0.0)] * 3).solve(duration=10.0, fps=10)
    drop = np.array([r.position(f"part{k}")[0, 2] - r.position(f"part{k}")[-1, 2]
                     for k in range(3)])
    assert np.abs(drop - sags(3)).max() < 1e-9
    top = r.position("part2")
    assert np.abs(top[:, :2] - top[0, :2]).max() < 1e-12
    assert np.abs(r.orientation("part2")[:, 1:]).max() < 1e-12


@pytest.mark.parametrize("scale", [1.0 + 1e-6, 1.0 - 1e-6])
def test_a_box_a_millionth_off_the_one_below_rests(scale: float) -> None:
    """A box 1e-6 larger or smaller than the one it rests on (float32's rounding of a
    scene): the larger one's corners are just outside the smaller, whose corners alone
    meet it, K / 4 (four of eight, half of K), so it rests 2 m g / (K / 2) + m g / (K / 4)
    below where it was built, within 1e-7 m (its 5e-8 m start gap or overlap)."""
    boxes = [Shape.box((0.1, 0.1, 0.1)), Shape.box((0.1 * scale,) * 3)]
    r = stack(boxes, [(0.0, 0.0)] * 2).solve(duration=1.0, fps=10)
    top = r.position("part1")[:, 2]
    assert abs(top[0] - top[-1] - (2 * G / (K / 2) + G / (K / 4))) < 1e-7


def test_a_box_flush_on_one_side_rests() -> None:
    """A box shifted 3 cm along y over an equal one, their x faces flush: it rests on the
    two corners of each over the other (9.3e-5 m down, within 2e-4 m; tilting a little on
    that uneven support), at rest at the end but for the regularized friction's creep
    (5.8e-6 m/s measured, below 1e-4: a hundredth of the slip speed)."""
    boxes = [Shape.box((0.1, 0.1, 0.1))] * 2
    r = stack(boxes, [(0.0, 0.0), (0.0, 0.03)]).solve(duration=1.0, fps=10)
    top = r.position("part1")[:, 2]
    assert 0.0 < top[0] - top[-1] < 2e-4
    assert np.abs(r.velocity("part1")[-1]).max() < 1e-4


def test_equal_cylinders_stacked_rest() -> None:
    """Two equal cylinders (radius 5 cm, 10 cm long, upright) stacked: the upper one's rim
    points lie on the lower one's round side; it rests (within 1e-4 m of its start after
    1 s) instead of sinking through."""
    cans = [Shape.cylinder(0.05, 0.1)] * 2
    r = stack(cans, [(0.0, 0.0)] * 2).solve(duration=1.0, fps=10)
    top = r.position("part1")[:, 2]
    assert top[0] - top[-1] < 1e-4


def test_a_corner_in_a_side_plane_is_measured_from_the_face_it_came_through() -> None:
    """A corner 1 mm down through a 10 cm box's top, in its side planes x = y = 0.05: 1 mm
    deep with the normal +z where its box's centre is above; measured from the nearest
    face (no centre given) it is at depth 0.  A point entering the side, its centre beside
    the box, is measured from the side; outside by more than the flush band, outside."""
    half = np.array([[0.05, 0.05, 0.05]])
    corner = np.array([[0.05, 0.05, 0.049]])
    d, g = box_distance(corner, half, np.array([[0.0, 0.0, 0.149]]))
    assert d[0] == pytest.approx(-0.001) and np.allclose(g[0], [0.0, 0.0, 1.0])
    assert box_distance(corner, half)[0][0] == 0.0
    side = np.array([[0.049, 0.0, 0.0]])
    d, g = box_distance(side, half, np.array([[0.149, 0.0, 0.02]]))
    assert d[0] == pytest.approx(-0.001) and np.allclose(g[0], [1.0, 0.0, 0.0])
    beside = np.array([[0.051, 0.05, 0.049]])
    assert box_distance(beside, half, np.array([[0.0, 0.0, 0.149]]))[0][0] > 0.0
    rim = np.array([[0.05, 0.0, 0.049]])
    d, g = cylinder_distance(rim, np.array([[0.05, 0.05, 0.0]]), np.array([[0.0, 0.0, 0.15]]))
    assert d[0] == pytest.approx(-0.001) and np.allclose(g[0], [0.0, 0.0, 1.0])
