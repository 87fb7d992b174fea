"""An object's rotation channels by its rotation mode (quaternion, axis-angle or an Euler
order): its delta rotation as a quaternion, and a quaternion written as the mode's channel
holds it.  Used where a pose is written to parts (bake.py ``place_parts``) and to the
channels Clear Bake puts back (moved_parts.py)."""
from __future__ import annotations

from mathutils import Quaternion

ROTATION_CHANNEL = {"QUATERNION": "rotation_quaternion", "AXIS_ANGLE": "rotation_axis_angle"}
#                    (any other mode: an Euler order, "rotation_euler")


def delta_turn(ob, mode: str) -> tuple:
    """An object's delta rotation as a quaternion (w, x, y, z) in rotation mode ``mode``
    (axis-angle has none)."""
    if mode == "QUATERNION":
        return tuple(ob.delta_rotation_quaternion)
    if mode == "AXIS_ANGLE":
        return (1.0, 0.0, 0.0, 0.0)
    return tuple(ob.delta_rotation_euler.to_quaternion())


def in_rotation_mode(quat: Quaternion, mode: str, euler_near):
    """``quat`` as rotation mode ``mode``'s channel holds it: the quaternion, (angle,
    axis) or Euler angles in that order nearest ``euler_near`` (no jump of a turn)."""
    if mode == "QUATERNION":
        return quat
    if mode == "AXIS_ANGLE":
        axis, angle = quat.to_axis_angle()
        return (angle, *axis)
    return quat.to_euler(mode, euler_near)
