"""A hydraulic excavator arm whose bucket tip follows a keyed path, and the force each
cylinder must give to make it do so.

Boom, stick and bucket turn on pins about world y; three hydraulic cylinders (boom, stick,
bucket), each a barrel and a rod on a prismatic joint along the cylinder, pinned at both ends,
set their angles.  The bucket tip is a marker that follows the Empty "Dig path" (keyed along
a dig-and-lift stroke) in x and z, with the boom and stick cylinders named as its Actuators,
while the bucket cylinder curls the bucket by an expression: one bake solves the arm's
inverse kinematics, the cylinder strokes included, and writes each actuating cylinder's
force along its slide as its motion effort (positive pushes the rod out), as an engineer
sizing actuators reads it.
"""
import math

import bpy
from mathutils import Matrix, Vector

from common import box, joint, marker, new_scene, stage

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
    tip.mechanism.follow_actuators = f"{boom_cyl.name}, {stick_cyl.name}"
    stage(target=(2.2, 0, 1.3), distance=9.0, azimuth=-70.0)
    return {"preview_frame": 60}
