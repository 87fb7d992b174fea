"""The Blender side of couplers' tools: Couple (a coupler Empty for the selected joints, its
kind guessed from theirs), Radii from Meshes (a gear's pitch radius measured from its part's
mesh about the joint axis) and the joint origins the viewport's tie line joins.  The rules
and the geometry are io/couplers.py, tested without Blender; errors are MechanismError
naming the object, reported by the operators."""
from __future__ import annotations

import bpy
import numpy as np

from ..solver import MechanismError
from .curve_reader import length_text, metres_per_unit
from .io.couplers import (SLOT_LABELS, coupler_object_name, gear_sides, guess_kind,
                          internal_radii, rack_pitch_sign, radii_about_axis)
from .io.settings import kind_name
from .mesh_arrays import evaluated, vertex_positions


def selected_with_role(context, role: str) -> list:
    """The selected objects of ``role`` ("JOINT", "PART"), the active one first, the others
    by name."""
    found = sorted((o for o in context.selected_objects if o.mechanism.role == role),
                   key=lambda o: o.name)
    active = context.active_object
    if active in found:
        found.remove(active)
        found.insert(0, active)
    return found


def selected_joints(context) -> list:
    """The selected joint objects, the active one first, the others by name."""
    return selected_with_role(context, "JOINT")


def joint_origin(joint: bpy.types.Object) -> np.ndarray:
    """Where a joint is now (world, Blender units): its marker I's origin, which moves with
    its part; the joint object's own origin when marker I is unset."""
    mk = joint.mechanism.marker_i
    return np.array((mk or joint).matrix_world.translation, dtype=float)


def used_joints(ob: bpy.types.Object) -> list:
    """The coupler's joint fields its kind uses (A, B[, C]), each an object or None."""
    s = ob.mechanism
    return list((s.joint_a, s.joint_b, s.joint_c)[:len(SLOT_LABELS[s.coupler_kind])])


def couple(context, joints: list) -> bpy.types.Object:
    """A new coupler Empty tying ``joints`` (the active first): named after its kind and
    joints ("Gear j1-j2"), at the mean of their origins, selected and active."""
    kind, order = guess_kind([(j.name, kind_name(j.mechanism.joint_kind)) for j in joints])
    joints = [joints[k] for k in order]
    ob = bpy.data.objects.new(coupler_object_name(kind, [j.name for j in joints]), None)
    ob.empty_display_type = "CIRCLE"
    ob.empty_display_size = 0.1 / metres_per_unit(context.scene)        # 0.1 m
    context.scene.collection.objects.link(ob)
    ob.location = np.mean([joint_origin(j) for j in joints], axis=0)
    s = ob.mechanism
    s.role, s.coupler_kind = "COUPLER", kind
    for k, joint in enumerate(joints):
        setattr(s, "joint_" + "abc"[k], joint)
        if kind == "COUPLER":
            prismatic = kind_name(joint.mechanism.joint_kind) == "prismatic"
            setattr(s, "coordinate_" + "abc"[k], "SLIDE" if prismatic else "ANGLE")
    for o in context.selected_objects:
        o.select_set(False)
    ob.select_set(True)
    context.view_layer.objects.active = ob
    return ob


def _marker_part(marker):
    """The part object a marker is on (its parent, or a parent further up), or None."""
    up = marker.parent if marker is not None else None
    while up is not None and up.mechanism.role != "PART":
        up = up.parent
    return up


def _sides(joints: list) -> tuple[list, list[float]]:
    """(each joint's (part I, part J) objects, each joint's gear side +1 / -1:
    io/couplers.gear_sides; +1 where a joint or a part is unset)."""
    pairs = []
    for joint in joints:
        s = joint.mechanism if joint is not None else None
        pairs.append((_marker_part(s.marker_i), _marker_part(s.marker_j)) if s is not None
                     else (None, None))
    if any(p is None for pair in pairs for p in pair):
        return pairs, [1.0] * len(joints)
    return pairs, gear_sides([(a.name, b.name) for a, b in pairs])


def gear_part(joints: list, k: int):
    """(part object or None, "I" | "J") of joint ``joints[k]`` that is its gear (or pinion,
    or rack) and the marker it carries: the part the coupler's other joint does not also
    hold (io/couplers.gear_sides), marker I's when that says nothing (a joint unset, or no
    single shared part)."""
    pairs, sides = _sides(joints)
    return (pairs[k][0], "I") if sides[k] > 0 else (pairs[k][1], "J")


def _world_vertices(ob, depsgraph, what: str) -> np.ndarray:
    """(n, 3) world positions (Blender units, the object's scale included) of a mesh
    object's evaluated vertices; ``what`` names it in the error of one Blender leaves
    unevaluated."""
    ev = evaluated(ob, depsgraph, what)
    mesh = ev.to_mesh()
    try:
        co = vertex_positions(mesh)
    finally:
        ev.to_mesh_clear()
    M = np.array(ev.matrix_world, dtype=float)
    return co @ M[:3, :3].T + M[:3, 3]


def _centre(ob, depsgraph) -> np.ndarray:
    """World centre (Blender units) of an object's evaluated mesh's bounds (its origin for
    an object without vertices)."""
    if ob.type == "MESH":
        world = _world_vertices(ob, depsgraph, f"part {ob.name!r}")
        if len(world):
            return 0.5 * (world.min(axis=0) + world.max(axis=0))
    return np.array(ob.matrix_world.translation, dtype=float)


def rack_side_sign(joints: list, depsgraph) -> float:
    """The sign of a rack and pinion's pitch radius that meshes them where the rack is
    drawn (io/couplers.rack_pitch_sign): the rack's bounds centre from the pinion's axis."""
    pinion, rack = joints
    _, sides = _sides(joints)
    rack_part, _ = gear_part(joints, 1)
    if rack_part is None or rack.mechanism.marker_j is None or pinion.mechanism.marker_j is None:
        return 1.0
    P = np.array(pinion.mechanism.marker_j.matrix_world, dtype=float)
    U = np.array(rack.mechanism.marker_j.matrix_world, dtype=float)
    return rack_pitch_sign(sides, P[:3, 2], U[:3, 2], _centre(rack_part, depsgraph) - P[:3, 3])


def mesh_radii(coupler: str, label: str, joints: list, k: int, depsgraph) -> tuple[float, float]:
    """(least, largest) distance (Blender units) of the vertices of the evaluated mesh of the
    gear part of joint ``joints[k]`` (``gear_part``: the part that is not the housing) from
    the joint axis (marker J's z axis line), world space with the object's scale: a ring's
    bore, and a cylinder's radius or a toothed gear's tip radius."""
    what = f"coupler {coupler!r}: {label}"
    joint = joints[k]
    if joint is None:
        raise MechanismError(f"{what} is not set: pick the gear's joint first")
    mi, mj = joint.mechanism.marker_i, joint.mechanism.marker_j
    if mi is None or mj is None:
        raise MechanismError(f"{what}: joint {joint.name!r} has no marker I or J")
    part, side = gear_part(joints, k)
    if part is None or part.type != "MESH":
        marker = mi if side == "I" else mj
        raise MechanismError(f"{what}: marker {side} {marker.name!r} of joint {joint.name!r} is "
                             "not on a mesh part: nothing to measure")
    world = _world_vertices(part, depsgraph, f"{what}: part {part.name!r}")
    if len(world) == 0:
        raise MechanismError(f"{what}: part {part.name!r} has no vertices to measure")
    J = np.array(mj.matrix_world, dtype=float)
    return radii_about_axis(world, J[:3, 3], J[:3, 2])


def _length(context, blender_units: float) -> str:
    """A length measured in Blender units, in the scene's units ("8 cm")."""
    scene = context.scene
    return length_text(scene, blender_units * metres_per_unit(scene))


def measure_radii(context, ob) -> str:
    """Radii from Meshes on coupler ``ob``: a gear's two pitch radii (Ratio From: Pitch
    Radii; an internal pair's ring its bore, io/couplers.internal_radii), or a rack's
    pinion radius with the sign that meshes the rack where it is (``rack_side_sign``);
    returns what was set, for the report."""
    s = ob.mechanism
    context.view_layer.update()
    depsgraph = context.evaluated_depsgraph_get()
    labels = SLOT_LABELS[s.coupler_kind]
    if s.coupler_kind == "GEAR":
        g1 = mesh_radii(ob.name, labels[0], [s.joint_a, s.joint_b], 0, depsgraph)
        g2 = mesh_radii(ob.name, labels[1], [s.joint_a, s.joint_b], 1, depsgraph)
        r1, r2 = internal_radii(g1, g2) if s.mesh == "INTERNAL" else (g1[1], g2[1])
        s.radius_a, s.radius_b, s.ratio_mode = r1, r2, "RADII"
        return f"radii {_length(context, r1)} and {_length(context, r2)}"
    if s.coupler_kind == "RACK_PINION":
        r = mesh_radii(ob.name, labels[0], [s.joint_a, s.joint_b], 0, depsgraph)[1]
        s.pitch_radius = r * rack_side_sign([s.joint_a, s.joint_b], depsgraph)
        return f"pitch radius {_length(context, s.pitch_radius)}"
    raise MechanismError(f"coupler {ob.name!r}: Radii from Meshes measures gears and pinions")
