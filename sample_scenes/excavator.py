"""A hydraulic excavator arm whose bucket tip follows a keyed path, and the force each
cylinder must give to make it do so.

Boom, stick and bucket turn on pins about world y; three hydraulic cylinders (boom, stick,
bucket), each a barrel and a rod on a prismatic joint along the cylinder, pinned at both ends,
set their angles.  The bucket tip is a marker that follows the Empty "Dig path" (keyed along
a dig-and-lift stroke) in x and z, while the bucket cylinder curls the bucket by an
expression: the first bake solves the arm's inverse kinematics, the cylinder strokes
included.  A cylinder's force is the force along its slide that makes the stroke; so, as an
engineer sizing actuators does, the boom and stick cylinders are then driven by the strokes
that bake found (keyed at every frame), the tip's Follow cleared, and the bake that
run_all.py makes bakes each cylinder's motion effort along its slide: the cylinder forces
(positive pushes the rod out).  The tip stays on the path to the strokes' spline between
frames and float32 at them (4 micrometres at most).
"""
import math
import os
import sys

import bpy
import numpy as np
from mathutils import Matrix, Vector

from common import box, joint, marker, new_scene, stage

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from addon.io.follow import not_a_knot_slopes  # noqa: E402  (numpy only: the repository's)

SECONDS = 4.0
SIDE = 0.32            # the cylinders run beside the arm, at y = SIDE

# the arm in the xz plane (metres): pins, the bucket tip, the path the tip follows
BOOM_FOOT, BOOM_TIP = (0.6, 0.0, 1.4), (3.2, 0.0, 2.6)
STICK_TAIL, BUCKET_PIN, TIP = (3.04, 0.0, 3.02), (3.9, 0.0, 0.7), (4.45, 0.0, 0.45)
PATH = [(1, TIP), (37, (3.9, 0.0, 0.05)), (67, (3.1, 0.0, 0.35)), (97, (3.7, 0.0, 1.5))]
CYLINDERS = {              # name: (barrel's pin on, at; rod's pin on, at)
    "Boom cylinder": ("Cab", (1.0, SIDE, 0.8), "Boom", (1.77, SIDE, 1.94)),
    "Stick cylinder": ("Boom", (2.03, SIDE, 2.41), "Stick", (STICK_TAIL[0], SIDE, STICK_TAIL[2])),
    "Bucket cylinder": ("Stick", (3.575, SIDE, 2.307), "Bucket", (4.2, SIDE, 0.85)),
}


def bar(name: str, a: tuple, b: tuple, width: float, depth: float, density: float,
        color: tuple, y: float = 0.0):
    """A box part from ``a`` to ``b`` in the xz plane (at y), ``width`` across in z, ``depth``
    in y."""
    d = Vector(b) - Vector(a)
    mid = (Vector(a) + Vector(b)) / 2
    return box(name, (d.length, depth, width), (mid.x, y, mid.z),
               rotation=(0.0, math.atan2(-d.z, d.x), 0.0), density=density, color=color)


def slide_marker(part, name: str, at: tuple, along: Vector):
    """A marker on ``part`` at ``at`` whose z axis points along ``along`` (in the xz plane)."""
    mk = marker(part, name, at)
    bpy.context.view_layer.update()
    turn = Matrix.Rotation(math.atan2(along.x, along.z), 4, "Y")
    mk.matrix_world = Matrix.Translation(Vector(at)) @ turn
    return mk


def pin(name: str, part_i, part_j, at: tuple, motion: str | None = None):
    """A revolute joint about world y at ``at`` between two parts."""
    return joint(name, "REVOLUTE", marker(part_i, f"{name}.I", at, "Y"),
                 marker(part_j, f"{name}.J", at, "Y"), motion=motion)


def hydraulic(name: str, parts: dict) -> bpy.types.Object:
    """A cylinder: barrel pinned to one part, rod to another, a prismatic joint between them
    along the line of the pins (the rod's marker I, the barrel's J, both at its middle)."""
    on_a, a, on_b, b = CYLINDERS[name]
    u = (Vector(b) - Vector(a)).normalized()
    length = (Vector(b) - Vector(a)).length
    mid = tuple((Vector(a) + Vector(b)) / 2)
    barrel = bar(f"{name} barrel", a, tuple(Vector(a) + 0.62 * length * u), 0.16, 0.16, 2500,
                 (0.25, 0.25, 0.28), y=SIDE)
    rod = bar(f"{name} rod", tuple(Vector(b) - 0.62 * length * u), b, 0.07, 0.07, 7800,
              (0.85, 0.85, 0.9), y=SIDE)
    pin(f"{name} foot", barrel, parts[on_a], a)
    pin(f"{name} eye", rod, parts[on_b], b)
    return joint(name, "PRISMATIC", slide_marker(rod, f"{name}.rod", mid, u),
                 slide_marker(barrel, f"{name}.barrel", mid, u))


def dig_path() -> bpy.types.Object:
    """The Empty the bucket tip follows, keyed (Bezier) along a dig-and-lift stroke."""
    ob = bpy.data.objects.new("Dig path", None)
    ob.empty_display_type, ob.empty_display_size = "SPHERE", 0.08
    bpy.context.scene.collection.objects.link(ob)
    for frame, at in PATH:
        ob.location = at
        ob.keyframe_insert("location", frame=frame)
    return ob


def slide_of(cylinder: bpy.types.Object) -> float:
    """The cylinder's slide now: its rod marker's origin from its barrel marker's along the
    barrel marker's z (the joint's Slide)."""
    s = cylinder.mechanism
    mi, mj = s.marker_i.matrix_world, s.marker_j.matrix_world
    axis = mj.to_3x3().normalized().col[2]
    return (mi.translation - mj.translation).dot(axis)


def drive_by_strokes(cylinders: list) -> None:
    """Key each cylinder's Slide at every frame as the baked scene plays it, and drive the
    cylinder by those keys (a Keyframed motion).  The keys' handles a third of a frame
    either side along the slopes of the C2 spline through the strokes make each segment that
    spline's cubic: the strokes' rates and accelerations run on smoothly from frame to frame
    (Blender's automatic handles would make the accelerations jump at every key)."""
    scene = bpy.context.scene
    frames = np.arange(scene.frame_start, scene.frame_end + 1, dtype=float)
    strokes = np.zeros((len(frames), len(cylinders)))
    for k, f in enumerate(frames):
        scene.frame_set(int(f))
        strokes[k] = [slide_of(c) for c in cylinders]
    slopes = not_a_knot_slopes(frames, strokes)          # per frame
    assert bpy.ops.mechanism.clear_bake() == {"FINISHED"}
    for i, c in enumerate(cylinders):
        s = c.mechanism
        s.motion_type, s.motion_coordinate = "KEYFRAMED", "SLIDE"
        for f, value in zip(frames, strokes[:, i]):
            s.motion_slide = value
            c.keyframe_insert("mechanism.motion_slide", frame=f)
        fc = _channel(c, "mechanism.motion_slide")
        for key, value, slope in zip(fc.keyframe_points, strokes[:, i], slopes[:, i]):
            key.handle_left_type = key.handle_right_type = "FREE"
            key.handle_left = (key.co[0] - 1 / 3, value - slope / 3)
            key.handle_right = (key.co[0] + 1 / 3, value + slope / 3)
    scene.frame_set(scene.frame_start)


def _channel(ob, path: str):
    """The F-curve ``path`` of the object's action (its slot's channelbag)."""
    from bpy_extras import anim_utils
    ad = ob.animation_data
    return anim_utils.action_get_channelbag_for_slot(ad.action, ad.action_slot).fcurves.find(path)


def build() -> dict:
    new_scene(SECONDS)
    bpy.context.scene.mechanism.analysis = "KINEMATIC"
    cab = box("Cab", (1.6, 1.2, 1.0), (0.0, 0.0, 0.9), ground=True, color=(0.9, 0.7, 0.1))
    box("Tracks", (2.6, 1.6, 0.4), (0.0, 0.0, 0.2), color=(0.2, 0.2, 0.2)).mechanism.role = "NONE"
    boom = bar("Boom", BOOM_FOOT, BOOM_TIP, 0.35, 0.3, 2000, (0.9, 0.6, 0.1))
    stick = bar("Stick", STICK_TAIL, BUCKET_PIN, 0.25, 0.22, 2000, (0.9, 0.6, 0.1))
    bucket = bar("Bucket", BUCKET_PIN, TIP, 0.45, 0.6, 1500, (0.4, 0.4, 0.4))
    parts = {"Cab": cab, "Boom": boom, "Stick": stick, "Bucket": bucket}
    pin("Boom pin", boom, cab, BOOM_FOOT)
    pin("Stick pin", stick, boom, BOOM_TIP)
    pin("Bucket pin", bucket, stick, BUCKET_PIN)
    boom_cyl, stick_cyl, bucket_cyl = (hydraulic(n, parts) for n in CYLINDERS)
    s = bucket_cyl.mechanism
    s.motion_type, s.motion_coordinate = "EXPRESSION", "SLIDE"
    s.motion_expression = "-0.12*sin(pi*t/4)"
    tip = marker(bucket, "Bucket tip", TIP)
    tip.mechanism.follow, tip.mechanism.follow_axes = dig_path(), (True, False, True)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}, bpy.context.scene.mechanism.report
    drive_by_strokes([boom_cyl, stick_cyl])
    tip.mechanism.follow = None
    stage(target=(2.2, 0, 1.3), distance=9.0, azimuth=-70.0)
    return {"preview_frame": 60}
