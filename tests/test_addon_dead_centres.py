"""A slider-crank built in Blender at its dead centre and driven by its slide, a
parallelogram built lined up: Blender's float32 coordinates fold them off that position by
their rounding (tests/test_rounded_dead_centres.py), and Check said nothing of it while
Bake went on along the branch the rounding chose.  Check names the motion or the joints
and says what to do; Bake refuses with the same words and leaves the scene as it was."""
from __future__ import annotations

import re

import numpy as np
import pytest

import blender_scenes as bs

MOTION = "Prismatic piston-block: motion (slide)"


def slide_driven(bpy, at) -> None:
    """blender_scenes' slider-crank with crank 0.13 m and rod 0.37 m built at ``at`` at its
    dead centre (crank and rod in line), its main bearing undriven and its cylinder's
    Slide driven by -0.05 t^2 m (back from the dead centre)."""
    d = bs.slider_crank(bpy, crank=0.13, rod=0.37, at=at)
    d["main"].mechanism.motion_type = "NONE"
    c = d["cylinder"].mechanism
    c.motion_type, c.motion_coordinate, c.motion_expression = "EXPRESSION", "SLIDE", "-0.05*t**2"


@pytest.mark.parametrize("at", [(1.7, 0.9, 0.3), (0.0, 0.0, 0.0)])
def test_check_and_bake_name_a_slide_started_at_its_dead_centre(blender, at) -> None:
    """Built about (1.7, 0.9, 0.3) the rounding folds the crank by 2.3e-4 rad: Check said
    "1 (0 after motions)" with no problem and Bake finished on the branch the rounding
    chose; built about the origin the rounding leaves it on the dead centre, which was
    already refused.  Both: Check's problem and Bake's error name the motion at its dead
    centre and say to build it a little off, and the failed Bake changes nothing."""
    bpy = blender
    slide_driven(bpy, at)
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    report = bpy.context.scene.mechanism.report
    assert f"problem: motion '{MOTION}' starts at a dead centre" in report, report
    assert "build the mechanism a little off the dead centre, the way it should go" in report
    before = bs.snapshot(bpy)
    refused = re.escape(f"motion '{MOTION}' starts at a dead centre")
    with pytest.raises(RuntimeError, match=refused):
        bpy.ops.mechanism.bake()
    assert not bs.differences(before, bs.snapshot(bpy))


def lined_up_parallelogram(bpy, at, driven: bool) -> None:
    """Boxes about ``at``: a ground cube, cranks of 0.5 m from ``at`` and 1 m along x from
    it, a coupler of 1 m 0.05 m above their tips, all lined up along world x; Connect's
    revolute joints about z at the two pivots and the two tips; crank0's pivot driven by
    2 t rad (``driven``); gravity -y."""
    bs.set_range(bpy)
    w = lambda x, z=0.0: tuple(np.asarray(at, dtype=float) + (x, 0.0, z))  # noqa: E731
    ground = bs.add_box(bpy, "ground", (0.05, 0.05, 0.05), w(0.0, -0.2))
    crank0 = bs.add_box(bpy, "crank0", (0.5, 0.02, 0.02), w(0.25))
    crank1 = bs.add_box(bpy, "crank1", (0.5, 0.02, 0.02), w(1.25))
    coupler = bs.add_box(bpy, "coupler", (1.0, 0.02, 0.02), w(1.0, 0.05))
    bs.tag(bpy, [ground, crank0, crank1, coupler], "PART")
    ground.mechanism.ground = True
    pivot = bs.connect(bpy, crank0, ground, w(0.0))
    bs.connect(bpy, crank1, ground, w(1.0))
    bs.connect(bpy, coupler, crank0, w(0.5))
    bs.connect(bpy, coupler, crank1, w(1.5))
    if driven:
        s = pivot.mechanism
        s.motion_type, s.motion_coordinate, s.motion_expression = "EXPRESSION", "ANGLE", "2*t"
    bpy.context.scene.gravity = (0.0, -9.81, 0.0)


@pytest.mark.parametrize("driven", [True, False])
@pytest.mark.parametrize("at", [(1.7, 0.9, 0.3), (3.3, -2.1, 0.7), (0.0, 0.0, 0.0)])
def test_check_and_bake_name_a_parallelogram_built_lined_up(blender, at, driven) -> None:
    """Built away from the origin, Check said "1 (0 after motions)" (or 1 after) with no
    problem, and Bake went on (driven: a branch the rounding chose, or a lock-up at frame
    2; undriven: "passed a singular position at t = 0.0019 s"); at the origin it was
    already refused.  Now Check's problem and Bake's error name the singular position and
    the four joints, and the failed Bake changes nothing."""
    bpy = blender
    lined_up_parallelogram(bpy, at, driven)
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    report = bpy.context.scene.mechanism.report
    assert "problem: the mechanism starts at a singular position" in report, report
    assert "'Revolute coupler-crank1'" in report and "build it a little off" in report
    before = bs.snapshot(bpy)
    with pytest.raises(RuntimeError, match="the mechanism starts at a singular position"):
        bpy.ops.mechanism.bake()
    assert not bs.differences(before, bs.snapshot(bpy))


def released_parallelogram(bpy) -> dict:
    """Boxes built 30 degrees off lined up: a crank 1 m from the origin, a coupler of 3 m
    0.2 m above its tip, a follower of 1 m from (3, 0, 0) 0.4 m above, pinned about z
    (Connect at the pivots and the tips), released at rest under gravity -y, frames 1 to
    73 at 24 fps; Blender's float32 leaves the ground pivots some 3e-8 m further apart
    than the coupler is long (tests/test_rounded_dead_centres.py)."""
    bs.set_range(bpy, 1, 73)
    c, s = np.cos(np.radians(30.0)), np.sin(np.radians(30.0))
    turned = (0.0, 0.0, np.radians(30.0))
    ground = bs.add_box(bpy, "ground", (0.1, 0.1, 0.1), (1.5, -1.0, -1.0))
    crank = bs.add_box(bpy, "crank", (1.0, 0.05, 0.05), (c / 2, s / 2, 0.0), turned)
    coupler = bs.add_box(bpy, "coupler", (3.0, 0.05, 0.05), (c + 1.5, s, 0.2))
    follower = bs.add_box(bpy, "follower", (1.0, 0.05, 0.05), (3.0 + c / 2, s / 2, 0.4), turned)
    bs.tag(bpy, [ground, crank, coupler, follower], "PART")
    ground.mechanism.ground = True
    bs.connect(bpy, crank, ground, (0.0, 0.0, 0.0))
    bs.connect(bpy, coupler, crank, (c, s, 0.0))
    bs.connect(bpy, follower, coupler, (3.0 + c, s, 0.0))
    bs.connect(bpy, follower, ground, (3.0, 0.0, 0.0))
    scene = bpy.context.scene
    scene.gravity = (0.0, -9.81, 0.0)
    scene.mechanism.analysis = "DYNAMIC"
    return {"crank": crank, "coupler": coupler, "follower": follower}


def test_a_released_parallelogram_bakes_through_its_lined_up_position_as_one(blender) -> None:
    """Released from 30 degrees it lines up at t = 0.33 s (frame 8.9): the bake went over
    to the crossed branch there (the crank turning back at the line, the coupler swinging
    to 39 degrees, the follower on down), noting only a singular position passed.  Baked,
    the coupler stays level and the cranks turn together through the line and back."""
    bpy = blender
    parts = released_parallelogram(bpy)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    turn = {}
    for name, ob in parts.items():
        frames, _, q = bs.baked_pose(ob)
        assert len(frames) == 73
        turn[name] = np.unwrap(2 * np.arctan2(q[:, 3], q[:, 0]))
    assert turn["crank"].min() < -np.pi / 2          # it swings down through the line
    # the rounding alone moves the coupler at most the fold's width, some 1.5e-4 rad; the
    # crossed branch turns it 0.68 rad (and float32 keys hold 6e-8)
    assert np.abs(turn["coupler"]).max() < 3e-4
    assert np.abs(turn["follower"] - turn["crank"]).max() < 3e-4
