"""Moving parts whose mesh changes shape as a bake plays.

The solver moves each part as a rigid body, its mass and contact shapes those of its mesh
as it stands at the first frame.  A modifier that ties vertices to another object (a
Hook, a Lattice, a Shrinkwrap, an Armature whose bones are posed), a deforming parent, or
a deformation keyed over the frames (a shape key, a modifier's setting) reshapes the
mesh as the baked keys move the part or the frames play: an arm's end hooked to an Empty
stays at the Empty as the arm swings, stretched across the scene.  ``shape_notes`` reads
each such part's evaluated mesh in its own coordinates at frames spread over the baked
range and names the part whose vertices move on it (Bake's report).
"""
from __future__ import annotations

import bpy
import numpy as np

from .anim import over_frames
from .curve_reader import length_text, metres_per_unit
from .mesh_arrays import vertex_positions
from .vertex_markers import deformers

# frames read after the first, spread evenly over the range (a bake of a few frames: each)
SAMPLES = 16
# how far a vertex may move on its part, as a share of the mesh's size, before the part
# counts as reshaped: float32 positions (unit round-off 6e-8) through a modifier's matrix
# products stay within a few times 1e-7, and 1e-5 is ten times that and far below sight
RESHAPED = 1e-5


def _meshes(parts) -> list[np.ndarray | None]:
    """Each part's evaluated mesh's vertices (n, 3), its own coordinates, now."""
    depsgraph = bpy.context.evaluated_depsgraph_get()
    out = []
    for ob in parts:
        ev = ob.evaluated_get(depsgraph)
        mesh = ev.to_mesh()
        try:
            out.append(vertex_positions(mesh))
        finally:
            ev.to_mesh_clear()
    return out


def shape_notes(scene, sm) -> list[str]:
    """One line per moving part (of the scene read, ``sm``) with something that may deform
    its mesh (vertex_markers.deformers) whose evaluated vertices, at up to SAMPLES frames
    spread over the range, move on the part from where they are at the first frame (in
    the part's axes and scale: how far in the scene's units), or change in number: the
    part, how far, the frame, what deforms it.  The scene is put back as it was."""
    found = [(ob, movers) for ob in sm.parts if ob.type == "MESH"
             for movers in [deformers(ob)] if movers]
    if not found:
        return []
    start, end = scene.frame_start, scene.frame_end
    frames = np.unique(np.linspace(start, end, min(SAMPLES, end - start) + 1).round())
    meshes = over_frames(scene, lambda: _meshes([ob for ob, _ in found]), frames)
    out = []
    for i, (ob, movers) in enumerate(found):
        linear = sm.part_frames[ob.name].matrix[:3, :3]
        first = meshes[0][i] @ linear.T
        size = float(np.ptp(first, axis=0).max()) if len(first) else 0.0
        far, at = 0.0, None
        for k in range(1, len(frames)):
            now = meshes[k][i]
            if len(now) != len(first):
                far, at = np.inf, k
                break
            move = float(np.linalg.norm(now @ linear.T - first, axis=1).max(initial=0.0))
            if move > far:
                far, at = move, k
        if at is None or far <= RESHAPED * size:
            continue
        how = ("changes its number of vertices" if far == np.inf else
               f"moves {length_text(scene, far * metres_per_unit(scene))} on the part")
        out.append(f"part {ob.name!r} changes shape as the bake plays: a vertex of its mesh "
                   f"{how} from where it is at the first frame (at frame {int(frames[at])}; "
                   f"the mesh is deformed by its {', '.join(movers)}), but the solver moves "
                   "it as a rigid body, its mass and contacts as at the first frame: apply "
                   "the deformation, or tie what it follows to the part (parent a Hook's or "
                   "Lattice's object to the part) and keep it still over the frames")
    return out
