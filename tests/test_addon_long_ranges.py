"""Checks that visit the frames, on a 10,000-frame range in real Blender: a marker on a
deformed part's vertices, a setting driven through a moving object, parts carried by a
posed bone.  Each frame visited costs the whole scene's evaluation (in a scene with a
deformation playing, milliseconds), so Check visits a long range at frames spread over it
and beside every key, not at each of its frames, and still names a change that lasts a few
frames between the spread ones."""
from __future__ import annotations

import re

import pytest

import blender_scenes as bs
from test_addon_marker_parents import PIN_END, bone_mount, lift_shape_key
from test_addon_parents import vertex_parent

LONG = 10000


def knob_driven_density(bpy, arm, keys):
    """The arm's Density driven by an Empty "knob"'s x location (1000 + 1000 x), the knob
    keyed (frame, x) at ``keys``."""
    knob = bs.empty(bpy, "knob")
    for frame, x in keys:
        knob.location.x = x
        knob.keyframe_insert("location", index=0, frame=frame)
    fc = arm.driver_add("mechanism.density")
    x = fc.driver.variables.new()
    x.name, x.type = "x", "TRANSFORMS"
    x.targets[0].id, x.targets[0].transform_type = knob, "LOC_X"
    fc.driver.expression = "1000 + 1000*x"


def counted_check(bpy) -> tuple[int, str]:
    """(how many frames Check set, its report)."""
    seen = []

    def count(scene, *args) -> None:
        seen.append(scene.frame_current)

    bpy.app.handlers.frame_change_pre.append(count)
    try:
        assert bpy.ops.mechanism.check() == {"FINISHED"}
    finally:
        bpy.app.handlers.frame_change_pre.remove(count)
    return len(seen), bpy.context.scene.mechanism.report


@pytest.mark.parametrize("what", ["vertex marker", "driver", "bone"])
def test_check_on_a_long_range_visits_a_bounded_number_of_frames(blender, what) -> None:
    """The pendulum over 10,000 frames with each check's subject present and still (a
    marker on the vertices of a part with a Bevel; the Density driven by a knob keyed to
    stay; the mechanism on an Empty carried by a bone keyed to stay): Check visited all
    10,000 frames for each (0.2 to 0.9 s in this bare scene, 10 minutes in one with a
    32,000-face Displace playing).  Now at most 300: the 128 spread frames and four around
    each of the few keys, once per check, and the frame shown set back.  Nothing is
    named."""
    bpy = blender
    d = bs.pendulum(bpy)
    arm = d["arm"]
    if what == "vertex marker":
        vertex_parent(bpy, d["pin"].mechanism.marker_i, arm, "VERTEX_TRI")
        arm.modifiers.new("bevel", "BEVEL").width = 0.01
    elif what == "driver":
        knob_driven_density(bpy, arm, [(1, 0.5), (LONG, 0.5)])
    else:
        mount = bone_mount(bpy)
        bpy.data.objects["rig"].animation_data_clear()      # its turn's keys
        posed = bpy.data.objects["rig"].pose.bones["Bone"]
        posed.rotation_euler = (0.0, 0.0, 0.0)
        for frame in (1, LONG):
            posed.keyframe_insert("rotation_euler", frame=frame)
        bpy.context.scene.frame_set(1)
        d["ground"].parent = mount
        d["ground"].matrix_parent_inverse = mount.matrix_world.inverted()
    bpy.context.scene.frame_end = LONG
    visited, report = counted_check(bpy)
    assert visited <= 300, visited
    assert "over the frames" not in report and "apart" not in report, report


def test_a_driven_change_of_a_few_frames_in_a_long_range_is_named(blender) -> None:
    """The Density driven by a knob keyed 0 at frame 1 and 6000, 1 at 6010, 0 at 6020: a
    bump of 20 frames in 10,000, between two of the spread frames (79 apart).  Check
    names it at its peak, the key at 6010 (2000 there)."""
    bpy = blender
    d = bs.pendulum(bpy)
    knob_driven_density(bpy, d["arm"], [(1, 0.0), (6000, 0.0), (6010, 1.0), (6020, 0.0)])
    bpy.context.scene.frame_end = LONG
    _, report = counted_check(bpy)
    words = (r"part 'arm': its Density \(mechanism.density\) is driven and changes over the "
             r"frames \(1000 at frame 1, 2000 at frame 6010\)")
    assert re.search(words, report), report


def test_a_marker_moved_a_few_frames_in_a_long_range_is_named(blender) -> None:
    """The pin's marker on the arm's vertices that a shape key lifts, keyed 0 at frame 1
    and 7000, 1 at 7005, 0 at 7010: Check names the marker, farthest at the key at 7005,
    moved from frame 7001 on, as a visit of every frame would."""
    bpy = blender
    d = bs.pendulum(bpy)
    arm = d["arm"]
    vertex_parent(bpy, d["pin"].mechanism.marker_i, arm, "VERTEX_TRI")
    lift = lift_shape_key(arm, 0.0, keyed=False)
    for frame, v in ((1, 0.0), (7000, 0.0), (7005, 1.0), (7010, 0.0)):
        lift.value = v
        lift.keyframe_insert("value", frame=frame)
    bpy.context.scene.frame_end = LONG
    bpy.context.scene.frame_set(1)
    _, report = counted_check(bpy)
    words = (rf"marker '{PIN_END}' is parented to vertices of part 'arm' that move over the "
             r"frames \(by [0-9.]+ m at frame 7005, from frame 7001 on;")
    assert re.search(words, report), report
