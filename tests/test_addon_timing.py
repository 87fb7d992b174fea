"""A bake in time, in real Blender (scenes: blender_scenes.py): what Blender plays between
the baked frames (motion blur's subframes)."""
from __future__ import annotations

import blender_scenes as bs


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
