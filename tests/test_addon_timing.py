"""A bake in time, in real Blender (scenes: blender_scenes.py): what Blender plays between
the baked frames (motion blur's subframes)."""
from __future__ import annotations

import numpy as np

import blender_scenes as bs
from test_addon_bake import joint_angle


def _open_between_frames(bpy, joints) -> float:
    """The widest any of the revolute ``joints`` opens (its markers' origins apart, Blender
    units) at the quarter, half and three-quarter subframes of the scene's range."""
    scene = bpy.context.scene
    widest = 0.0
    for frame in range(scene.frame_start, scene.frame_end):
        for sub in (0.25, 0.5, 0.75):
            scene.frame_set(frame, subframe=sub)
            for joint in joints:
                s = joint.mechanism
                gap = s.marker_i.matrix_world.translation - s.marker_j.matrix_world.translation
                widest = max(widest, gap.length)
    return widest


def test_joints_stay_closed_between_the_baked_frames(blender) -> None:
    """Between two baked frames Blender plays each channel along its keys' Bezier curve:
    the dynamic pendulum (1 m, 24 fps, about 5 degrees a frame at the bottom) keeps its pin
    closed there to 1e-4 m.  A cubic whose slopes are central differences of the keys
    (Auto handles) errs by O(h^3) of the motion's third derivative, 1.1e-5 m here; a
    channel flattened at the key nearest where it turns (Auto Clamped handles; the swing
    turns between frames) opened the pin by 2.1e-3 m."""
    bpy = blender
    pin = bs.pendulum(bpy)["pin"]
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert _open_between_frames(bpy, [pin]) < 1e-4


def test_a_part_does_not_pass_its_stop_between_the_baked_frames(blender) -> None:
    """The door bounces on its stop (the hinge angle's lower bound 0) between frames: at
    twenty subframes of every frame the hinge never passes 0 (to 1e-6 rad, float32 keys):
    the keys on either side of an impact keep a channel flat where it turns, as the
    motion's true turn at the stop lies between them (with Auto handles there the door
    went 0.0027 rad into its stop)."""
    bpy = blender
    bs.door(bpy)
    joint, = [ob for ob in bpy.context.scene.objects if ob.mechanism.role == "JOINT"]
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    scene = bpy.context.scene
    s = joint.mechanism
    lowest = np.inf
    for frame in range(scene.frame_start, scene.frame_end):
        for sub in np.linspace(0.0, 0.95, 20):
            scene.frame_set(frame, subframe=float(sub))
            lowest = min(lowest, joint_angle(s.marker_i, s.marker_j))
    assert lowest > -1e-6
