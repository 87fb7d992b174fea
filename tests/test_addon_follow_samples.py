"""Follow targets whose motion is sampled, in real Blender: one whose animation Blender
plays from samples (Graph Editor > Channel > Keys to Samples), whose F-curves have no
keyframes, so that its keys alone do not say where it is; and one sampled in a scene whose
Time Remapping shows the animation's frame F at another scene frame.  Scenes:
blender_scenes.py, follow_scenes.py."""
from __future__ import annotations

import numpy as np

import blender_scenes as bs
import follow_scenes as fs


def test_a_target_whose_location_keys_are_samples_is_followed_where_it_plays(blender) -> None:
    """The XY table's tool follows an Empty keyed linearly from (0.1, -0.2, 0) at frame 1
    to (0.7, 0.6, 0) at frame 25, its x F-curve converted to samples: the x keys were
    taken as missing and x held at 0.1, so the slide stood 0.6 off the Empty at frame 25
    with the note "along its location keys, exactly".  The slide is keyed on the line the
    Empty plays (a straight line's samples through the spline: float32 keys, 1e-6)."""
    bpy = blender
    d = fs.cross_slide(bpy)
    a, b = np.array([0.1, -0.2, 0.0]), np.array([0.7, 0.6, 0.0])
    target = fs.keyed_empty(bpy, "target", [(1, a), (25, b)])
    bs.channelbag(target).fcurves.find("location", index=0).convert_to_samples(1, 26)
    s = d["tool"].mechanism
    s.follow, s.follow_axes = target, (True, True, False)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert "exactly" not in bpy.context.scene.mechanism.report
    frames, loc, _ = bs.baked_pose(d["slide"])
    np.testing.assert_allclose(loc, a + np.outer((frames - 1) / 24, b - a), atol=1e-6)


def test_a_target_whose_rotation_keys_are_samples_is_turned_with_as_it_plays(blender) -> None:
    """The box on its ball joint turns with an Empty in Euler mode XYZ keyed linearly in x
    from 0 to 1 rad over the second, that F-curve converted to samples: x was held at 0,
    the box did not turn, with the note "along its rotation keys, exactly".  The box is
    keyed at Rx(t rad) at every frame (float32 keys and the sampled angles' spline of a
    straight line: 1e-5 rad)."""
    bpy = blender
    d = fs.ball_on_ground(bpy)
    target = fs.turning_empty(bpy, "spinner", "XYZ", [(1, (0.0, 0.0, 0.0)), (25, (1.0, 0.0, 0.0))])
    bs.channelbag(target).fcurves.find("rotation_euler", index=0).convert_to_samples(1, 26)
    s = d["grip"].mechanism
    s.follow, s.follow_axes, s.follow_rotation = target, (False, False, False), (True, True, True)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert "exactly" not in bpy.context.scene.mechanism.report
    frames, _, quat = bs.baked_pose(d["ball"])
    half = (frames - 1) / 24 / 2                      # half the angle about x, rad
    want = np.stack([np.cos(half), np.sin(half), 0 * half, 0 * half], axis=1)
    np.testing.assert_allclose(quat * np.sign(quat[:, :1]), want, atol=1e-5)


def test_a_sampled_target_is_followed_under_time_remapping(blender) -> None:
    """The XY table's tool follows an Empty keyed linearly from (0.1, -0.2, 0) at frame 1
    to (0.7, 0.6, 0) at frame 25, parented to a still Empty (so it is sampled), in a scene
    whose Time Remapping is 100 -> 200 (every animation's frame F shown at scene frame 2F,
    the bake's keys too): the samples were read at scene frames 1..25, the target's frames
    0.5..12.5, so the tool played 0.27 off it at scene frame 26.  Sampled at the scene
    frames that show the target's frames, the slide's keys are the Empty's line (its
    samples through the spline: float32 keys, 1e-6) and, played, the tool is on it."""
    bpy = blender
    d = fs.cross_slide(bpy)
    a, b = np.array([0.1, -0.2, 0.0]), np.array([0.7, 0.6, 0.0])
    target = fs.keyed_empty(bpy, "target", [(1, a), (25, b)])
    target.parent = bs.empty(bpy, "holder")
    s = d["tool"].mechanism
    s.follow, s.follow_axes = target, (True, True, False)
    scene = bpy.context.scene
    scene.render.frame_map_old, scene.render.frame_map_new = 100, 200
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    frames, loc, _ = bs.baked_pose(d["slide"])
    np.testing.assert_allclose(loc, a + np.outer((frames - 1) / 24, b - a), atol=1e-6)
    for frame in (13, 26, 40):
        scene.frame_set(frame)
        gap = d["tool"].matrix_world.translation - target.matrix_world.translation
        assert np.hypot(gap.x, gap.y) < 1e-5, (frame, tuple(gap))
