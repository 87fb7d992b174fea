"""Markers made by the sidebar: an Empty on a part at a world frame (Add Marker, Connect),
and in Edit Mode the frame of the face or vertex the user clicked last."""
from __future__ import annotations

import bpy
from mathutils import Matrix, Vector

from .curve_reader import metres_per_unit

# how large the Empties the sidebar makes are drawn, in metres (Blender units at the scene's
# Unit Scale: a size in Blender units would be a quarter millimetre in a millimetre scene)
MARKER_SIZE = 0.25
JOINT_SIZE = 0.1


def display_size(scene, metres: float) -> float:
    """An Empty's display size (Blender units) that draws it ``metres`` long in ``scene``."""
    return metres / metres_per_unit(scene)


def add_marker(context, part, world_matrix: Matrix, name: str = "",
               evaluate: bool = True) -> bpy.types.Object:
    """An Empty (single arrow along z) parented to ``part`` at a world frame.  ``evaluate``:
    bring the part's world matrix up to date first (a script may have moved it); False when
    the caller did so and has added objects since (Connect's second marker), since
    evaluating again rebuilds the scene's relations for the new object, a cost that grows
    with the scene."""
    if evaluate:
        context.view_layer.update()
    mk = bpy.data.objects.new(name or f"{part.name}.marker", None)
    mk.empty_display_type = "SINGLE_ARROW"
    mk.empty_display_size = display_size(context.scene, MARKER_SIZE)
    context.scene.collection.objects.link(mk)
    mk.parent = part
    mk.matrix_parent_inverse = part.matrix_world.inverted()
    loc, rot, _ = world_matrix.decompose()
    mk.matrix_world = Matrix.LocRotScale(loc, rot, Vector((1, 1, 1)))
    mk.mechanism.role = "MARKER"
    return mk


def picked_frame(part) -> Matrix | None:
    """The world frame of a mesh part in Edit Mode at its picked face's centre (or picked
    vertex), z along its normal (``_picked``); None with nothing selected."""
    import bmesh
    bm = bmesh.from_edit_mesh(part.data)
    face = _picked(bm, bm.faces, bmesh.types.BMFace)
    vert = _picked(bm, bm.verts, bmesh.types.BMVert)
    if face is not None:
        co, normal = face.calc_center_median(), face.normal
    elif vert is not None:
        co, normal = vert.co, vert.normal
    else:
        return None
    mw = part.matrix_world
    n = (mw.to_3x3().inverted().transposed() @ normal).normalized()
    return Matrix.Translation(mw @ co) @ n.to_track_quat("Z", "Y").to_matrix().to_4x4()


def _picked(bm, elements, kind):
    """The selected element of ``kind`` (a BMFace or BMVert) a marker goes on: the one
    selected last (the edit mesh's selection history: the active face, the vertex clicked
    last), else the last selected in index order (a selection made without clicks), else
    None."""
    clicked = [e for e in bm.select_history if isinstance(e, kind) and e.select]
    if clicked:
        return clicked[-1]
    selected = [e for e in elements if e.select]
    return selected[-1] if selected else None
