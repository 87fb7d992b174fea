"""The Blender side of joints on curves: the curve objects a Point on Curve or Cam joint
names, read into the solver's curves (the rules, frames and messages are io/curve_joints.py,
tested without Blender), and lengths written in the scene's units.

A curve object is read at its design pose: its world matrix through its parents, a part's
from before any bake (``design_world``); it belongs to the part it is parented to (directly
or through other objects), which must be its marker's part.  Nothing in the scene is changed.
"""
from __future__ import annotations

import hashlib

import bpy
import numpy as np

from ..solver import MechanismError
from .io.curve_joints import (CURVE_KINDS, FIELDS, CurveShape, SplineData, curve_matrix,
                              joint_curve, loose_note, marker_world, reshaped_message,
                              unset_message)
from .io.part_frames import OBJECT_PARENTING, VERTEX_PARENTING, vertex_parent_matrix
from .io.start_gaps import marker_frames
from .io import units as io_units
from .io.units import fixed_unit_text, in_metres, lengths_in_scene_units


def length_text(scene, metres: float) -> str:
    """A length in the scene's units, as its fields show it: in its Length unit where that
    is fixed ("91.3 mm" in a millimetre scene; "0.05 m" with Metres, Blender's default:
    a fixed unit is the one every length field shows, BKE_unit_value_as_string), else
    (Adaptive) as Blender writes it ("5 cm"); plain Blender units when the unit system is
    None."""
    units = scene.unit_settings
    if units.system == "NONE":
        return f"{metres:.4g}"
    fixed = fixed_unit_text(units.length_unit, metres)
    return fixed or bpy.utils.units.to_string(units.system, "LENGTH", metres, precision=3)


def metres_per_unit(scene) -> float:
    """Metres per Blender unit in ``scene``: its Unit Scale, ignored with no unit system as
    Blender ignores it (io/units.py metres_per_unit)."""
    units = scene.unit_settings
    return io_units.metres_per_unit(units.system, units.scale_length)


def angle_text(scene, radians: float, digits: int = 6) -> str:
    """An angle as the scene's rotation fields show it: in degrees, or in radians in a scene
    whose Rotation unit is Radians (io/units.py angle_text)."""
    return io_units.angle_text(scene.unit_settings.system_rotation, radians, digits)


def acceleration_text(scene):
    """A function writing an acceleration in m/s^2 as the scene's acceleration fields show
    and take it (Scene > Gravity: "9.80665 m/s²", "32.1740 ft/s²"); None with no unit
    system, whose fields show the stored Blender units/s^2 (io/settings.gravity_note)."""
    system = scene.unit_settings.system
    if system == "NONE":
        return None
    return lambda value: bpy.utils.units.to_string(system, "ACCELERATION", value, precision=6)


def scene_lengths(text: str, scene) -> str:
    """A solver line's lengths in metres and angles in degrees also in the scene's units
    (io/units.py), where the scene's fields do not show metres (a millimetre scene's user
    typed millimetres) or the unit of its angles (radians, degrees)."""
    units = scene.unit_settings
    text = io_units.angles_in_radians(text) if units.system_rotation == "RADIANS" else \
        io_units.angles_in_degrees(text)
    if in_metres(units.system, units.length_unit, units.scale_length):
        return text
    return lengths_in_scene_units(text, lambda metres: length_text(scene, metres))


# the scene's Mass unit (unit_settings.mass_unit) -> the symbol Blender writes and reads for it
MASS_SYMBOLS = {"TONNES": "t", "KILOGRAMS": "kg", "GRAMS": "g", "MILLIGRAMS": "mg",
                "TONS": "ton", "HUNDREDWEIGHT": "cwt", "STONES": "st", "POUNDS": "lb",
                "OUNCES": "oz"}


def mass_text(scene, kg: float) -> str:
    """A mass in the scene's mass unit, as its Mass fields show it ("22.0462 lb" in an
    Imperial scene in pounds; Adaptive: Blender's choice; kg with no unit system)."""
    return mass_writer(scene)(kg)


def mass_writer(scene, digits: int = 6):
    """A function writing a mass (kg) as ``mass_text`` does, to ``digits`` significant
    digits, in the scene's units as they are now (it keeps their names, not the scene)."""
    system, symbol = scene.unit_settings.system, MASS_SYMBOLS.get(scene.unit_settings.mass_unit)
    if system == "NONE":
        return lambda kg: f"{kg:.{digits}g} kg"
    if symbol is None:
        return lambda kg: bpy.utils.units.to_string(system, "MASS", kg, precision=digits)
    per = bpy.utils.units.to_value(system, "MASS", f"1 {symbol}")
    return lambda kg: f"{kg / per:.{digits}g} {symbol}"


def design_world(ob, part_frames: dict) -> np.ndarray:
    """(4, 4) world matrix of ``ob`` as designed: a part's from before any bake (``part_frames``:
    part name -> io PartFrame), any other object's through its parents (object parenting,
    and vertex parenting: the vertices as on the parent as designed,
    io/part_frames.vertex_parent_matrix), an object without a parent (or parented to a
    bone) where it is."""
    if ob.name in part_frames:
        return part_frames[ob.name].matrix
    parent = ob.parent
    if parent is None or ob.parent_type not in OBJECT_PARENTING + VERTEX_PARENTING:
        return np.array(ob.matrix_world, dtype=float)
    local = np.array(ob.matrix_parent_inverse, dtype=float) @ np.array(ob.matrix_basis, dtype=float)
    above = design_world(parent, part_frames)
    if ob.parent_type in VERTEX_PARENTING:
        above = vertex_parent_matrix(ob.parent_type, above,
                                     np.array(parent.matrix_world, dtype=float),
                                     np.array(ob.matrix_world, dtype=float), local)
    return above @ local


def owning_part(ob):
    """The part object ``ob`` is parented to (directly or through other objects), or None."""
    up = ob.parent
    while up is not None and up.mechanism.role != "PART":
        up = up.parent
    return up


def curves_on(part, joints) -> list[tuple]:
    """(curve object, its joint) for each curve of the curve joints among ``joints`` that
    rides ``part`` (parented to it, directly or through other objects: ``owning_part``)."""
    out = []
    for joint in joints:
        s = joint.mechanism
        for field, _label, _side in FIELDS.get(s.joint_kind, ()):
            cv = getattr(s, field)
            if cv is not None and cv.type == "CURVE" and owning_part(cv) == part:
                out.append((cv, joint))
    return out


def control_points(cv) -> np.ndarray:
    """(n, 3) a curve object's control points (a Bezier's handles too) in its own space,
    every spline's."""
    rows = []
    for sp in cv.data.splines:
        if sp.type == "BEZIER":
            n = len(sp.bezier_points)
            for attr in ("co", "handle_left", "handle_right"):
                a = np.empty(3 * n)
                sp.bezier_points.foreach_get(attr, a)
                rows.append(a.reshape(n, 3))
        else:
            a = np.empty(4 * len(sp.points))
            sp.points.foreach_get("co", a)
            rows.append(a.reshape(-1, 4)[:, :3])
    return np.concatenate(rows) if rows else np.zeros((0, 3))


def spline_data(what: str, ob) -> SplineData:
    """The numbers of a curve object's only spline; MechanismError naming ``what`` for a
    curve object without a spline or with several."""
    splines = ob.data.splines
    if len(splines) == 0:
        raise MechanismError(f"{what} has no spline: draw one in Edit Mode")
    if len(splines) > 1:
        raise MechanismError(f"{what} has {len(splines)} splines and a joint follows one: "
                             "separate the others into their own object (Edit Mode, P) or "
                             "delete them")
    sp = splines[0]
    if sp.type == "BEZIER":
        n = len(sp.bezier_points)
        arrays = []
        for attr in ("co", "handle_left", "handle_right"):
            a = np.empty(3 * n)
            sp.bezier_points.foreach_get(attr, a)
            arrays.append(a.reshape(n, 3))
        return SplineData("BEZIER", arrays[0], sp.use_cyclic_u, arrays[1], arrays[2])
    n = len(sp.points)
    co = np.empty(4 * n)
    sp.points.foreach_get("co", co)
    co = co.reshape(n, 4)
    return SplineData(sp.type, co[:, :3], sp.use_cyclic_u, weights=co[:, 3], order=sp.order_u,
                      endpoint=sp.use_endpoint_u, bezier_knots=sp.use_bezier_u)


def shape_keys_in_effect(ob) -> list[str]:
    """Names of a curve object's shape keys that change its shape now: relative keys with
    a value other than 0 and not muted (the reference key aside), or every key of an
    absolute set (played by its Evaluation Time)."""
    key = ob.data.shape_keys
    if key is None or len(key.key_blocks) < 2:
        return []
    blocks = list(key.key_blocks)[1:]
    if not key.use_relative:
        return [kb.name for kb in blocks]
    return [kb.name for kb in blocks if not kb.mute and kb.value != 0.0]


def _in_scene(ob, scene) -> bool:
    return ob is not None and scene.objects.get(ob.name) is ob


def add_curve_joint(mech, ob, scene, part_frames: dict, scale: float
                    ) -> tuple[list[CurveShape], list[str]]:
    """Add joint object ``ob`` (kind Point on Curve or Cam, its markers already checked and
    added to ``mech``) with its curve objects; returns the curves read and Check's notes on
    curves not parented to their moving part.  MechanismError naming the joint, the field
    and the curve object."""
    s = ob.mechanism
    kind = s.joint_kind
    text = lambda m: length_text(scene, m)     # noqa: E731 (lengths in the scene's units)
    frames = marker_frames(mech, {})
    shapes, notes = [], []
    for field, label, side in FIELDS[kind]:
        cv = getattr(s, field)
        if cv is None:
            raise MechanismError(unset_message(ob.name, kind, field, label))
        what = f"joint {ob.name!r}: {label} {cv.name!r}"
        if not _in_scene(cv, scene):
            raise MechanismError(f"{what} was deleted or is not in the scene: pick a curve object")
        if cv.type != "CURVE":
            raise MechanismError(f"{what} is a {cv.type.lower()} object, not a curve: pick a curve "
                                 "object (Add > Curve)")
        # A modifier on in renders only is refused too: the render (a slot or profile with a
        # bevel) draws the curve it shapes while the joint follows the bare spline.
        reshaped = reshaped_message(what, [(m.name, m.type) for m in cv.modifiers
                                           if m.show_viewport or m.show_render],
                                    shape_keys_in_effect(cv))
        if reshaped:
            raise MechanismError(reshaped)
        marker = (s.marker_i if side == "I" else s.marker_j).name
        part = mech.markers[marker].part
        owner = owning_part(cv)
        if owner is not None and owner.name != part:
            raise MechanismError(f"{what} is parented to part {owner.name!r}, but marker {side} "
                                 f"{marker!r} is on part {part!r}: parent the curve to {part!r}")
        if owner is None and not mech.parts[part].fixed:
            notes.append(loose_note(ob.name, label, cv.name, part))
        origin, axes = frames[marker]
        M = curve_matrix(marker_world(origin, axes), design_world(cv, part_frames), scale)
        shapes.append(joint_curve(ob.name, label, cv.name, spline_data(what, cv), M,
                                  cam=kind == "CAM", marker_reach=float(np.linalg.norm(origin)),
                                  length_text=text))
    mi, mj = s.marker_i.name, s.marker_j.name
    if CURVE_KINDS[kind] == "cam":
        mech.add_cam(ob.name, mi, shapes[1].curve, mj, shapes[0].curve)
    else:
        mech.add_point_on_curve(ob.name, mi, mj, shapes[0].curve)
    return shapes, notes


def fit_signature(ob, scene) -> str:
    """A digest of what a curve joint's fit line (its panel's "Curve Fit") was measured on:
    the joint's kind, its curve objects' names, splines (points, handles, type, order,
    cyclic and knot options) and world scale, and the scene's length units.  The panel
    shows the line only while this is the same (ui.py), so a curve edited, scaled or
    replaced since the last Check or Bake never shows the old figure; moving the parts
    (a bake playing, a drag) does not change it."""
    s = ob.mechanism
    units = scene.unit_settings
    h = hashlib.blake2b(digest_size=16)
    h.update(f"{s.joint_kind}|{units.system}|{units.scale_length!r}".encode())
    for field, _label, _side in FIELDS.get(s.joint_kind, ()):
        cv = getattr(s, field)
        if cv is None or cv.type != "CURVE":
            h.update(f"|{field}: none".encode())
            continue
        scale = " ".join(f"{v:.6g}" for v in cv.matrix_world.to_scale())
        h.update(f"|{field}: {cv.name} {scale} {len(cv.data.splines)}".encode())
        for sp in cv.data.splines:
            h.update(f"{sp.type} {sp.use_cyclic_u} {sp.order_u} {sp.use_endpoint_u} "
                     f"{sp.use_bezier_u}".encode())
            if sp.type == "BEZIER":
                for attr in ("co", "handle_left", "handle_right"):
                    a = np.empty(3 * len(sp.bezier_points), dtype=np.float32)
                    sp.bezier_points.foreach_get(attr, a)
                    h.update(a.tobytes())
            else:
                a = np.empty(4 * len(sp.points), dtype=np.float32)
                sp.points.foreach_get("co", a)
                h.update(a.tobytes())
    return h.hexdigest()
