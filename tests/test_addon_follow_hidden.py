"""A Follow target kept out of sight in real Blender: an object in a collection excluded
from the view layer, or disabled in viewports (itself or its collection), is not evaluated
by Blender, so its parent, constraints and animation do not move it as the frames change,
and its motion cannot be sampled.  Hidden with the eye icon it is still evaluated, and
follows as when shown.  Scenes: blender_scenes.py, follow_scenes.py."""
from __future__ import annotations

import pytest

import blender_scenes as bs
import follow_scenes as fs

HIDES = ("excluded", "collection disabled", "object disabled", "eye")


def into_helpers(bpy, objects, hide: str) -> None:
    """Move ``objects`` into a new collection "helpers" and hide it (or its first object) the
    way ``hide`` says: Exclude from View Layer, the collection's or the object's Disable in
    Viewports, or the view layer's eye icon (Hide in Viewport)."""
    helpers = bpy.data.collections.new("helpers")
    bpy.context.scene.collection.children.link(helpers)
    for ob in objects:
        for c in list(ob.users_collection):
            c.objects.unlink(ob)
        helpers.objects.link(ob)
    layer = bpy.context.view_layer.layer_collection.children["helpers"]
    if hide == "excluded":
        layer.exclude = True
    elif hide == "collection disabled":
        helpers.hide_viewport = True
    elif hide == "object disabled":
        objects[0].hide_viewport = True
    else:
        layer.hide_viewport = True


def led_slide(bpy, hide: str | None):
    """The XY table's tool following an Empty "target" 0.05 m off a keyed Empty "lead" it is
    parented to (a parent moves it: sampled), both in "helpers" hidden as ``hide`` says."""
    d = fs.cross_slide(bpy)
    lead = fs.keyed_empty(bpy, "lead", [(1, (0.0, 0.0, 0.0)), (25, (0.4, 0.2, 0.0))])
    target = bs.empty(bpy, "target", lead)
    target.location = (0.0, 0.05, 0.0)
    s = d["tool"].mechanism
    s.follow, s.follow_axes = target, (True, True, False)
    if hide is not None:
        into_helpers(bpy, [target, lead], hide)
    return d


def turned_spindle(bpy, hide: str | None):
    """A spindle on a cylindrical joint along world z, its marker "grip" following an Empty's
    location keys (z: 0 to 0.3, exactly) and its turn about z (keyed 0 to 2 rad with a
    sine easing: sampled), the Empty in "helpers" hidden as ``hide`` says."""
    bs.set_range(bpy)
    ground = bs.add_box(bpy, "ground", (0.2, 0.2, 0.2), (0.0, 0.0, -0.5))
    spindle = bs.add_box(bpy, "spindle", (0.3, 0.1, 0.1), (0.0, 0.0, 0.0))
    bs.tag(bpy, [ground, spindle], "PART")
    ground.mechanism.ground = True
    bs.connect(bpy, spindle, ground, (0.0, 0.0, 0.0), "CYLINDRICAL", "Z")
    grip = bs.add_marker(bpy, spindle, (0.0, 0.0, 0.0))
    grip.name = "grip"
    bpy.context.scene.mechanism.analysis = "KINEMATIC"
    target = fs.keyed_empty(bpy, "target", [(1, (0.0, 0.0, 0.0)), (25, (0.0, 0.0, 0.3))])
    for frame, angle in ((1, 0.0), (25, 2.0)):
        target.rotation_euler = (0.0, 0.0, angle)
        target.keyframe_insert("rotation_euler", frame=frame)
    for fc in bs.channelbag(target).fcurves:
        if fc.data_path == "rotation_euler":
            for k in fc.keyframe_points:
                k.interpolation = "SINE"
    s = grip.mechanism
    s.follow, s.follow_axes, s.follow_rotation = target, (False, False, True), (False, False, True)
    if hide is not None:
        into_helpers(bpy, [target], hide)
    return spindle


def baked_keys(bpy) -> dict:
    return {ob.name: bs.action_keys(ob.mechanism.bake_action) for ob in bpy.data.objects
            if ob.mechanism.bake_action is not None}


@pytest.mark.parametrize("hide", HIDES)
@pytest.mark.parametrize("scene", ["sampled path", "sampled turn"])
def test_a_follow_target_blender_does_not_evaluate_is_named(blender, scene: str,
                                                            hide: str) -> None:
    """Excluded or disabled, the target is named with why, and nothing is baked (before: the
    tool's target, sampled still, was said not to move: "key its location, or give it a
    parent", which it had; the spindle's turn, sampled still while its location keys moved
    it, baked without turning, "fitting error 0 deg", where it turns 2 rad).  Hidden with the
    eye, it bakes the keys it bakes when shown."""
    bpy = blender
    build = led_slide if scene == "sampled path" else turned_spindle
    build(bpy, None)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    shown = baked_keys(bpy)
    bpy.ops.wm.read_homefile(use_factory_startup=True, use_empty=True)
    build(bpy, hide)
    if hide == "eye":
        assert bpy.ops.mechanism.bake() == {"FINISHED"}
        assert baked_keys(bpy) == shown
        return
    before = bs.snapshot(bpy)
    for op in (bpy.ops.mechanism.check, bpy.ops.mechanism.bake):
        with pytest.raises(RuntimeError, match=r"Follow target 'target' is not evaluated by "
                           r"Blender.*'helpers'.*eye icon"):
            op()
    assert [d for d in bs.differences(before, bs.snapshot(bpy)) if "/report" not in d] == []
