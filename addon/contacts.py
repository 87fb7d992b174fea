"""The Blender side of contacts between parts: Add Contact (a Contact Empty naming the two
selected parts) and the reading of a Contact object into the solver's ``add_contact``.
The shapes' geometry (a part's mesh in its frame, the fitted primitives) is
io/contact_shapes.py, tested without Blender; errors are MechanismError naming the contact.
"""
from __future__ import annotations

import bpy
import numpy as np

from ..solver import Mechanism, MechanismError
from .coupling import selected_with_role
from .curve_reader import length_text, metres_per_unit
from .io.contact_shapes import (ProfileSettings, contact_shape, end_sink, flat_top,
                                outward_faces, part_vertices, resolved_kind)
from .io.mesh_checks import coarse_grid_note, refuse_open_mesh
from .io.part_frames import PartFrame
from .mesh_arrays import (evaluated, refuse_collection_instance, triangle_vertices,
                          vertex_positions)


def selected_parts(context) -> list:
    """The selected part objects, the active one first, the others by name."""
    return selected_with_role(context, "PART")


def add_contact_object(context, part_a, part_b) -> bpy.types.Object:
    """A new Contact Empty between ``part_a`` and ``part_b`` ("Contact a-b"), midway between
    their origins, selected and active; each side's shape Floor for a ground part whose
    top is flat and level, else Auto (io/contact_shapes.py: Sphere for a faceted sphere,
    Box for a box, Profile for another prism along the part's z, else Mesh)."""
    ob = bpy.data.objects.new(f"Contact {part_a.name}-{part_b.name}", None)
    ob.empty_display_type = "SPHERE"
    ob.empty_display_size = 0.05 / metres_per_unit(context.scene)         # 0.05 m
    context.scene.collection.objects.link(ob)
    ob.location = 0.5 * (part_a.matrix_world.translation + part_b.matrix_world.translation)
    s = ob.mechanism
    s.role, s.contact_part_a, s.contact_part_b = "CONTACT", part_a, part_b
    depsgraph = context.evaluated_depsgraph_get()
    s.contact_shape_a, s.contact_shape_b = (
        "FLOOR" if part.mechanism.ground and _level_top(part, depsgraph) else "AUTO"
        for part in (part_a, part_b))
    for o in context.selected_objects:
        o.select_set(False)
    ob.select_set(True)
    context.view_layer.objects.active = ob
    return ob


def contact_between(scene, part_a, part_b):
    """The scene's Contact object that joins ``part_a`` and ``part_b`` (either way round),
    or None."""
    pair = {part_a, part_b}
    return next((ob for ob in scene.objects if ob.mechanism.role == "CONTACT"
                 and {ob.mechanism.contact_part_a, ob.mechanism.contact_part_b} == pair), None)


def _level_top(ob, depsgraph) -> bool:
    """Whether the object's evaluated mesh, in world axes as it stands, has a flat and level
    top (io/contact_shapes.py ``flat_top``); an object without a mesh has none."""
    local, triangles = _mesh_triangles(ob, depsgraph)
    if local is None:
        return False
    M = np.array(ob.matrix_world)
    return flat_top(local @ M[:3, :3].T + M[:3, 3], triangles)


def _mesh_triangles(ob, depsgraph) -> tuple[np.ndarray | None, np.ndarray | None]:
    """(vertices (n, 3) in the object's local coordinates, triangles (f, 3)) of the
    object's evaluated mesh (modifiers applied), or (None, None) for an object that is not
    a mesh."""
    if ob.type != "MESH":
        return None, None
    ev = evaluated(ob, depsgraph, f"part {ob.name!r}")
    mesh = ev.to_mesh()
    try:
        return vertex_positions(mesh), triangle_vertices(mesh)
    finally:
        ev.to_mesh_clear()


def profile_settings(s, scale: float) -> ProfileSettings:
    """A Contact's Profile settings in metres: its Profile Cell and Point Spacing (Blender
    units times ``scale``; 0: the solver's default) and Levels."""
    cell, spacing = s.contact_profile_cell * scale, s.contact_profile_spacing * scale
    return ProfileSettings(cell if cell != 0.0 else None, spacing if spacing != 0.0 else None,
                           int(s.contact_profile_levels))


def _side_shape(what: str, part, kind: str, frame: PartFrame, scale: float, cells: int,
                depsgraph, scene, profile: ProfileSettings) -> tuple:
    """(Shape, notes): one side's Shape in its part's frame (m), Auto resolved to Profile
    or Mesh; a Mesh side's open edges refused (where, in world Blender units, and what to
    do) and a grid too coarse for its thinnest part noted (io/mesh_checks.py)."""
    local, faces = _mesh_triangles(part, depsgraph)
    if local is None:
        refuse_collection_instance(part, "shape", "pick the contact's parts among meshes",
                                   what.rsplit(", part", 1)[0] + ": ")
    vertices = None if local is None else part_vertices(local, frame.stretch, scale)
    faces = None if faces is None else outward_faces(faces, frame.stretch)
    kind = resolved_kind(kind, vertices, faces)
    notes = []
    if kind == "MESH" and vertices is not None and len(faces):
        refuse_open_mesh(f"{what} mesh", faces, local @ frame.matrix[:3, :3].T + frame.matrix[:3, 3])
    up = frame.rotation.T @ np.array([0.0, 0.0, 1.0])
    shape = contact_shape(what, kind, vertices, faces, up, cells, part.mechanism.ground, profile,
                          _bvh_nearest(vertices, faces) if kind == "MESH" else None)
    if kind == "MESH":
        notes.append(coarse_grid_note(what, vertices, faces, cells,
                                      lambda metres: length_text(scene, metres)))
    return shape, [n for n in notes if n]


def _bvh_nearest(vertices: np.ndarray | None, faces: np.ndarray | None):
    """A mesh's distance to its surface for its grid's nodes, by Blender's BVH tree of its
    triangles (mathutils.bvhtree: compiled, exact to its float32 coordinates, some 1e-7
    of the mesh's size; about 20 times the solver's numpy computation: a 4,000-triangle
    mesh's 59,000 nodes in 0.2 s against 4.9 s), None without a mesh."""
    if vertices is None or faces is None or not len(faces):
        return None
    from mathutils.bvhtree import BVHTree
    tree = BVHTree.FromPolygons(vertices.tolist(), np.asarray(faces).tolist(), all_triangles=True)

    def nearest(points: np.ndarray) -> np.ndarray:
        find = tree.find_nearest
        return np.array([find(p)[3] for p in np.asarray(points).tolist()])
    return nearest


def _refuse_same_or_ground(what: str, part_a, part_b) -> None:
    """A contact of a part with itself, or between two ground parts (which never move, so
    never touch), refused naming the contact and what to do."""
    if part_a == part_b:
        raise MechanismError(f"{what}: Part A and Part B are both {part_a.name!r}; a contact "
                             "is between two different parts: set Part B to the part it "
                             "touches")
    if part_a.mechanism.ground and part_b.mechanism.ground:
        raise MechanismError(f"{what}: Part A {part_a.name!r} and Part B {part_b.name!r} are "
                             "both ground parts, which never move and so never touch: set "
                             "one side to a moving part, or delete the contact")


def shapes_size(shapes) -> float:
    """m: the largest bounding-sphere radius of ``shapes`` (a half-space's, infinite, left
    out): the contact's size, which clash detection's tolerance is relative to."""
    radii = [shape.bounding_sphere()[1] for shape in shapes]
    return max([r for r in radii if np.isfinite(r)], default=0.0)


def _standing_profiles(what: str, s, parts: list, sides: list, part_frames: dict,
                       scale: float, depsgraph, scene) -> tuple[list, list[str]]:
    """(sides, notes): a Profile side standing on an end face on the other side's Floor
    (io/contact_shapes.py ``end_sink``) would sink into it, its flat ends carrying no
    points: Auto's takes the part's Mesh instead, a Profile picked by hand is noted with
    how far it sinks."""
    sides, notes = list(sides), []
    for k, kind in enumerate((s.contact_shape_a, s.contact_shape_b)):
        shape, other = sides[k][1], sides[1 - k][1]
        if shape.kind != "profile" or other.kind != "half-space":
            continue
        frame = part_frames[parts[k].name]
        sink = end_sink(shape, frame.rotation, other, part_frames[parts[1 - k].name].rotation)
        if sink == 0.0:
            continue
        side = f"{what}: Shape {'AB'[k]}, part {parts[k].name!r}"
        if kind == "AUTO":
            mesh, said = _side_shape(side, parts[k], "MESH", frame, scale, s.contact_cells,
                                     depsgraph, scene, profile_settings(s, scale))
            sides[k] = (sides[k][0], mesh)
            notes += said
        else:
            notes.append(f"{side}: a Profile on its flat end on the Floor sinks "
                         f"{length_text(scene, sink)} into it (its flat ends carry no contact "
                         "points): pick Mesh or Cylinder for this side")
    return sides, notes


def add_contact(mech: Mechanism, ob, scene, part_frames: dict, scale: float,
                depsgraph) -> tuple[float, list[str]]:
    """The Contact object's ``add_contact``: its two parts' shapes in their frames (m),
    restitution, stiffness (0: the solver's default time constant; else N/m^n with the
    exponent n; a NaN is passed on for the solver to refuse), friction (a Dynamic of 0:
    the static coefficient).  Returns the contact's size (m, ``shapes_size``) and its
    notes (a Mesh grid too coarse)."""
    s = ob.mechanism
    what = f"contact {ob.name!r}"
    parts = []
    for label, part in (("Part A", s.contact_part_a), ("Part B", s.contact_part_b)):
        if part is None or scene.objects.get(part.name) is not part or \
                part.mechanism.role != "PART":
            raise MechanismError(f"{what}: {label} is not set, was deleted or is no longer a part")
        parts.append(part)
    _refuse_same_or_ground(what, *parts)
    sides, notes = [], []
    for label, part, kind in (("A", parts[0], s.contact_shape_a), ("B", parts[1], s.contact_shape_b)):
        side = f"{what}: Shape {label}, part {part.name!r}"
        shape, said = _side_shape(side, part, kind, part_frames[part.name], scale,
                                  s.contact_cells, depsgraph, scene, profile_settings(s, scale))
        sides.append((part.name, shape))
        notes += said
    sides, more = _standing_profiles(what, s, parts, sides, part_frames, scale, depsgraph, scene)
    notes += more
    stiffness = None if s.contact_stiffness == 0.0 else s.contact_stiffness
    mech.add_contact(ob.name, sides[0][0], sides[1][0], sides[0][1], sides[1][1],
                     restitution=s.contact_restitution, stiffness=stiffness,
                     exponent=s.contact_exponent if stiffness is not None else None,
                     friction=s.contact_friction,
                     dynamic_friction=s.contact_dynamic_friction or None)
    return shapes_size([shape for _, shape in sides]), notes
