"""A whole mechanism duplicated (Shift D) in real Blender: the copy is a mechanism of its own
(its joints join its own parts), and one scene holding both bakes each as it bakes alone.
Scenes: sample_scenes/ (test_addon_contact_profiles.sample)."""
from __future__ import annotations

import numpy as np

import blender_scenes as bs
from test_addon_contact_profiles import sample

ASIDE = 50.0       # m along y: the copy's place, far enough that the scene's size is its


def part_keys(bpy, names) -> dict:
    """{part: (frames (n,), location (n, 3), quaternion (n, 4))} of the baked parts."""
    return {n: bs.baked_pose(bpy.context.scene.objects[n]) for n in names}


def test_a_steering_duplicated_aside_bakes_as_it_bakes_alone(blender) -> None:
    """The rack-and-pinion steering sample (kinematic), duplicated whole 50 m along y: both
    copies' parts are keyed as the steering alone keys them (the copy 50 m aside).  Before,
    the sweep's test that keeps a block of frames on its assembly branch weighed each part's
    miss against the largest motion of any part, and the pinion, whose markers are at its
    centre, weighs a radian as the mechanism's whole size (50 m with the copy): from frame
    42 on, both right wheels were keyed 0.126 m off, flipped onto the other assembly, with
    no note.  Tolerance: the scene's size grows 100-fold with the copy, and Newton's
    stopping rule with it (1e-12 of the size), so poses agree to about 1e-10 m; the keys are
    float32 (6e-8 relative of the 50 m locations, 3e-6 m): 1e-5 m and 1e-6 of a quaternion."""
    bpy = blender
    sample("rack_steering").build()
    scene = bpy.context.scene
    parts = [ob.name for ob in scene.objects
             if ob.mechanism.role == "PART" and not ob.mechanism.ground]
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    alone = part_keys(bpy, parts)
    assert bpy.ops.mechanism.clear_bake() == {"FINISHED"}
    scene.frame_set(scene.frame_start)
    bs.select(bpy, list(scene.objects), scene.objects[parts[0]])
    assert bpy.ops.object.duplicate_move(TRANSFORM_OT_translate={"value": (0.0, ASIDE, 0.0)}) \
        == {"FINISHED"}
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert scene.mechanism.report == ""
    both = part_keys(bpy, parts + [n + ".001" for n in parts])
    for name in parts:
        frames, loc, quat = alone[name]
        for copy, dy in ((name, 0.0), (name + ".001", ASIDE)):
            f, got_loc, got_quat = both[copy]
            np.testing.assert_array_equal(f, frames)
            np.testing.assert_allclose(got_loc - (0.0, dy, 0.0), loc, rtol=0, atol=1e-5,
                                       err_msg=copy)
            np.testing.assert_allclose(got_quat, quat, rtol=0, atol=1e-6, err_msg=copy)
