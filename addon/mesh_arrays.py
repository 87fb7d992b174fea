"""A Blender mesh's numbers as numpy arrays, read in bulk.

``foreach_get`` copies a whole array at once when the buffer's type is the data's own
(memcpy); any other type is converted item by item.  Vertex positions are 32-bit floats,
read into float32 and widened (exact), 300 times as fast as reading them into float64.
The corners' vertices are read from the mesh's ``.corner_vert`` attribute (Blender 3.6 and
newer keep them there), 500 times as fast as ``loops.foreach_get("vertex_index")``; a
mesh without that attribute (no faces) is read the slow way, which then costs nothing.
"""
from __future__ import annotations

import bpy
import numpy as np

from ..solver import MechanismError
from .io import mass


def vertex_positions(mesh) -> np.ndarray:
    """The mesh's vertex positions (n, 3) in its object's local coordinates (float64)."""
    n = len(mesh.vertices)
    co = np.empty(3 * n, dtype=np.float32)
    positions = mesh.attributes.get("position")
    if positions is not None and len(positions.data) == n:
        positions.data.foreach_get("vector", co)
    else:
        mesh.vertices.foreach_get("co", co)
    return co.astype(float).reshape(n, 3)


def polygon_corners(mesh) -> tuple[np.ndarray, np.ndarray]:
    """(every polygon's vertex indices one polygon after another, each polygon's corner
    count) of a Blender mesh.  Blender keeps a mesh's faces as ascending offsets into its
    corners (a polygon's corners run from its loop_start to the next one's); loops stored
    in any other order are read by their counts."""
    starts = np.empty(len(mesh.polygons), dtype=np.int32)
    mesh.polygons.foreach_get("loop_start", starts)
    corners = corner_vertices(mesh)
    sizes = np.diff(starts, append=np.int32(len(corners))).astype(np.int32)
    if len(starts) and (starts[0] != 0 or np.any(sizes <= 0)):
        mesh.polygons.foreach_get("loop_total", sizes)
        return corners[mass.in_polygon_order(starts, sizes)], sizes
    return corners, sizes


def corner_vertices(mesh) -> np.ndarray:
    """Each corner's (loop's) vertex index, in corner order (int32)."""
    corners = np.empty(len(mesh.loops), dtype=np.int32)
    stored = mesh.attributes.get(".corner_vert")
    if stored is not None and len(stored.data) == len(corners):
        stored.data.foreach_get("value", corners)
    else:
        mesh.loops.foreach_get("vertex_index", corners)
    return corners


def triangle_vertices(mesh) -> np.ndarray:
    """The mesh's faces as Blender triangulates them (loop triangles), each row a
    triangle's three vertex indices (f, 3), read as corners and mapped to their vertices."""
    mesh.calc_loop_triangles()
    loops = np.empty(3 * len(mesh.loop_triangles), dtype=np.int32)
    mesh.loop_triangles.foreach_get("loops", loops)
    return corner_vertices(mesh)[loops].reshape(-1, 3)


def refuse_collection_instance(ob, needs: str, otherwise: str, where: str = "") -> None:
    """MechanismError when part ``ob`` is a collection instance (an Empty showing a
    collection): it shows meshes but has none of its own for its ``needs`` (its mass, a
    contact's shape), which the plain "needs a mesh" would leave a puzzle; the way to one
    mesh, or ``otherwise``; ``where`` leads the message (the contact and its side)."""
    shown = ob.instance_collection if ob.instance_type == "COLLECTION" else None
    if shown is not None:
        raise MechanismError(f"{where}part {ob.name!r} shows collection {shown.name!r} (a "
                             "collection instance), which has no mesh of its own for its "
                             f"{needs}: make it real (Object > Apply > Make Instances Real), "
                             "join its meshes (Ctrl J) and make the joined mesh the part, or "
                             + otherwise)


def evaluated(ob, depsgraph, what: str):
    """The object as Blender evaluates it (its modifiers applied), for its mesh's numbers.
    An object disabled in viewports (its own or a collection's Disable in Viewports, or its
    collection excluded from the view layer) is evaluated without its modifiers unless a
    visible object depends on it: where its mesh then is its base mesh though it has
    modifiers, its mass and contact shape would silently be the base mesh's, so that is
    refused, naming ``what`` (e.g. "part 'ball'") and the fix; so is an object whose
    modifiers make instances, which its mesh leaves out, and one with a modifier on in
    renders only or viewports only: the mesh read is the viewport's, so the render would
    show another body (an Array's copies, a Solidify's thickness) than the one solved."""
    for m in getattr(ob, "modifiers", ()):
        if m.show_viewport != m.show_render:
            raise MechanismError(f"{what}: its modifier {m.name!r} is on in "
                                 f"{'viewports' if m.show_viewport else 'renders'} only, and "
                                 "its mass and contact are read from the mesh the viewport "
                                 "shows, so the render would show another body: turn it on "
                                 "or off in both, or apply it (or, for the mass alone, type "
                                 "it in: Mass Typed In)")
    ev = ob.evaluated_get(depsgraph)
    disabled = (ob.hide_viewport or any(c.hide_viewport for c in ob.users_collection)
                or bpy.context.view_layer.objects.get(ob.name) is None)
    if disabled and any(m.show_viewport for m in getattr(ob, "modifiers", ())):
        mesh = ev.to_mesh()
        try:
            bare = (len(mesh.vertices) == len(ob.data.vertices)
                    and np.array_equal(vertex_positions(mesh), vertex_positions(ob.data)))
        finally:
            ev.to_mesh_clear()
        if bare:
            raise MechanismError(f"{what}: it is disabled in viewports (its own or its "
                                 "collection's Disable in Viewports, or its collection "
                                 "excluded from the view layer), so Blender leaves its "
                                 "modifiers out of its mesh, and of its mass and contact: "
                                 "enable it (hide it with H instead) or apply its modifiers")
    if _instances(ev):
        raise MechanismError(f"{what}: its modifiers make instances (Geometry Nodes), which "
                             "Blender keeps apart from the object's mesh, so its mass and "
                             "contact would leave them out: add a Realize Instances node at the "
                             "end of the node tree, or apply the modifier")
    return ev


def _instances(ev) -> bool:
    """Whether the evaluated object's geometry holds instances (Geometry Nodes' Instance on
    Points and the like, not realized): ``to_mesh`` leaves them out."""
    geometry = getattr(ev, "evaluated_geometry", None)      # Blender 4.3 and newer
    return geometry is not None and geometry().instances_pointcloud() is not None
