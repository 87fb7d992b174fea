"""Scenes for the tests of markers that follow an object (tests/test_addon_follow.py), built
as blender_scenes.py builds its own: primitives, Set Role, Connect and Add Marker operators
(real bpy).  Lengths in Blender units (metres at unit scale 1)."""
from __future__ import annotations

from typing import Any

from blender_scenes import (add_box, add_marker, channelbag, circle_points, connect, curve_object,
                            empty, set_range, tag)


def keyed_empty(bpy, name: str, keys, interpolation: str = "LINEAR"):
    """An Empty whose location is keyed at ``keys`` [(frame, (x, y, z)), ...] with the given
    interpolation on every key."""
    ob = empty(bpy, name)
    for frame, location in keys:
        ob.location = location
        ob.keyframe_insert("location", frame=frame)
    for fc in channelbag(ob).fcurves:
        for k in fc.keyframe_points:
            k.interpolation = interpolation
    return ob


def cross_slide(bpy) -> dict[str, Any]:
    """An XY table: a carriage on a prismatic joint along world x on the ground, a slide on a
    prismatic joint along world y on the carriage, and a marker "tool" on the slide at the
    origin (all at the origin as designed); kinematic."""
    set_range(bpy)
    ground = add_box(bpy, "ground", (0.2, 0.2, 0.2), (0.0, 0.0, -0.3))
    carriage = add_box(bpy, "carriage", (0.3, 0.1, 0.05), (0.0, 0.0, -0.1))
    slide = add_box(bpy, "slide", (0.1, 0.1, 0.05), (0.0, 0.0, 0.0))
    tag(bpy, [ground, carriage, slide], "PART")
    ground.mechanism.ground = True
    x = connect(bpy, carriage, ground, (0.0, 0.0, -0.1), "PRISMATIC", "X")
    y = connect(bpy, slide, carriage, (0.0, 0.0, 0.0), "PRISMATIC", "Y")
    tool = add_marker(bpy, slide, (0.0, 0.0, 0.0))
    tool.name = "tool"
    bpy.context.scene.mechanism.analysis = "KINEMATIC"
    return dict(ground=ground, carriage=carriage, slide=slide, x=x, y=y, tool=tool)


def two_link_arm(bpy, upper: float = 0.5, fore: float = 0.4) -> dict[str, Any]:
    """A planar arm about world z: the upper link along x from the origin (shoulder, revolute
    to the ground), the fore link along y from (upper, 0, 0) (elbow, revolute), a marker
    "tip" at (upper, fore, 0); kinematic."""
    set_range(bpy)
    ground = add_box(bpy, "ground", (0.2, 0.2, 0.2), (0.0, 0.0, -0.3))
    up = add_box(bpy, "upper", (upper, 0.05, 0.05), (upper / 2, 0.0, 0.0))
    fo = add_box(bpy, "fore", (0.05, fore, 0.05), (upper, fore / 2, 0.1))
    tag(bpy, [ground, up, fo], "PART")
    ground.mechanism.ground = True
    shoulder = connect(bpy, up, ground, (0.0, 0.0, 0.0), "REVOLUTE", "Z")
    elbow = connect(bpy, fo, up, (upper, 0.0, 0.0), "REVOLUTE", "Z")
    tip = add_marker(bpy, fo, (upper, fore, 0.0))
    tip.name = "tip"
    bpy.context.scene.mechanism.analysis = "KINEMATIC"
    return dict(ground=ground, upper=up, fore=fo, shoulder=shoulder, elbow=elbow, tip=tip)


def circling_empty(bpy, radius: float, n: int = 720, frames: tuple[int, int] = (1, 25)):
    """An Empty on a Follow Path constraint (fixed position, Offset Factor keyed linearly from
    0 to 1 over ``frames``) round a closed poly circle of ``radius`` about the origin in the xy
    plane with ``n`` points (within radius (1 - cos(pi / n)) of the true circle): one turn,
    counter-clockwise from +x, at constant speed; (empty, circle curve)."""
    path = curve_object(bpy, "circle", "POLY", circle_points(radius, (0, 0, 0), n), cyclic=True)
    ob = empty(bpy, "rider")
    c = ob.constraints.new("FOLLOW_PATH")
    c.target, c.use_fixed_location, c.use_curve_follow = path, True, False
    for frame, factor in zip(frames, (0.0, 1.0)):
        c.offset_factor = factor
        ob.keyframe_insert(f'constraints["{c.name}"].offset_factor', frame=frame)
    for fc in channelbag(ob).fcurves:
        for k in fc.keyframe_points:
            k.interpolation = "LINEAR"
    return ob, path


def keyed_bone(bpy, name: str, bone: str, keys):
    """An armature at the origin with one bone from (0, 0, 0) to (0, 0.2, 0) (along world y,
    roll 0: its pose axes are the world's), its pose location keyed linearly at ``keys``
    [(frame, (x, y, z)), ...]: the bone's head is at each key's location."""
    data = bpy.data.armatures.new(name)
    ob = bpy.data.objects.new(name, data)
    bpy.context.scene.collection.objects.link(ob)
    bpy.context.view_layer.objects.active = ob
    bpy.ops.object.mode_set(mode="EDIT")
    eb = data.edit_bones.new(bone)
    eb.head, eb.tail, eb.roll = (0.0, 0.0, 0.0), (0.0, 0.2, 0.0), 0.0
    bpy.ops.object.mode_set(mode="OBJECT")
    pb = ob.pose.bones[bone]
    for frame, location in keys:
        pb.location = location
        pb.keyframe_insert("location", frame=frame)
    for fc in channelbag(ob).fcurves:
        for k in fc.keyframe_points:
            k.interpolation = "LINEAR"
    return ob


def ball_on_ground(bpy) -> dict[str, Any]:
    """A box "ball" on a spherical joint to the ground at the origin (its orientation free,
    its centre held) and a marker "grip" on it at the joint's centre; kinematic."""
    set_range(bpy)
    ground = add_box(bpy, "ground", (0.2, 0.2, 0.2), (0.0, 0.0, -0.5))
    ball = add_box(bpy, "ball", (0.4, 0.2, 0.1), (0.0, 0.0, 0.0))
    tag(bpy, [ground, ball], "PART")
    ground.mechanism.ground = True
    ball_joint = connect(bpy, ball, ground, (0.0, 0.0, 0.0), "SPHERICAL", "Z")
    grip = add_marker(bpy, ball, (0.0, 0.0, 0.0))
    grip.name = "grip"
    bpy.context.scene.mechanism.analysis = "KINEMATIC"
    return dict(ground=ground, ball=ball, joint=ball_joint, grip=grip)


def turning_empty(bpy, name: str, mode: str, keys, data_path: str = "rotation_euler",
                  interpolation: str = "LINEAR"):
    """An Empty in rotation ``mode`` whose ``data_path`` (rotation_euler or
    rotation_quaternion) is keyed at ``keys`` [(frame, values), ...]."""
    ob = empty(bpy, name)
    ob.rotation_mode = mode
    for frame, values in keys:
        setattr(ob, data_path, values)
        ob.keyframe_insert(data_path, frame=frame)
    for fc in channelbag(ob).fcurves:
        for k in fc.keyframe_points:
            k.interpolation = interpolation
    return ob


def arm_following_a_path(bpy) -> tuple[dict[str, Any], Any]:
    """two_link_arm whose tip follows (along x and y) an Empty keyed (Bezier, Blender's
    automatic handles) from the tip's start (0.5, 0.4) through (0.3, 0.6) to (0.6, 0.1)
    over frames 1-25: (the arm's objects, the Empty)."""
    d = two_link_arm(bpy)
    path = [(1, (0.5, 0.4, 0.0)), (13, (0.3, 0.6, 0.0)), (25, (0.6, 0.1, 0.0))]
    target = keyed_empty(bpy, "target", path, interpolation="BEZIER")
    s = d["tip"].mechanism
    s.follow, s.follow_axes = target, (True, True, False)
    return d, target
