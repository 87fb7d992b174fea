"""Moving parts whose mesh changes shape as a bake plays.

The solver moves each part as a rigid body, its mass and contact shapes those of its mesh
as it stands at the first frame.  A modifier that ties vertices to another object (a
Hook, a Lattice, a Shrinkwrap, an Armature whose bones are posed), a deforming parent, or
a deformation keyed over the frames (a shape key, a modifier's setting) reshapes the
mesh as the baked keys move the part or the frames play: an arm's end hooked to an Empty
stays at the Empty as the arm swings, stretched across the scene.  ``shape_notes`` reads
each such part's evaluated mesh in its own coordinates at frames spread over the baked
range and names the part whose vertices move on it (Bake's report); ``moving_shape_notes``
names, before any bake, the moving part whose mesh a trial move of the part reshapes
(Check).
"""
from __future__ import annotations

import bpy
import numpy as np
from mathutils import Matrix, Vector

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
# the trial move: a turn of TURN rad about a skew axis through the part's origin and a shift
# of SHIFT times the mesh's size, in the part's own axes (any move the bake may key: a
# deformer tied to something that does not move with the part reshapes the mesh under it)
TURN, SHIFT = 0.5, (0.3, 0.2, 0.1)
CHANNELS = ("location", "rotation_euler", "rotation_quaternion", "rotation_axis_angle",
            "scale")


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


def _reshaped_by_move(parts) -> list[float]:
    """How far (the parts' own coordinates, through their scale: Blender units) a vertex of
    each part's evaluated mesh moves on the part when the part alone is moved by the trial
    move (TURN, SHIFT) from where it stands; inf where the number of vertices changes.  The
    parts' channels are put back as they were, to the bit."""
    saved = [[tuple(getattr(ob, name)) for name in CHANNELS] for ob in parts]
    linear = [np.array(ob.matrix_world, dtype=float)[:3, :3] for ob in parts]
    first = _meshes(parts)
    try:
        for ob, verts in zip(parts, first):
            size = float(np.ptp(verts, axis=0).max()) if len(verts) else 1.0
            move = Matrix.Translation(Vector(SHIFT) * size) @ Matrix.Rotation(
                TURN, 4, Vector((1.0, 2.0, 3.0)).normalized())
            ob.matrix_basis = ob.matrix_basis @ move
        bpy.context.view_layer.update()
        moved = _meshes(parts)
    finally:
        for ob, values in zip(parts, saved):
            for name, value in zip(CHANNELS, values):
                setattr(ob, name, value)
        bpy.context.view_layer.update()
    return [np.inf if len(a) != len(b) else
            float(np.linalg.norm((b - a) @ m.T, axis=1).max(initial=0.0))
            for a, b, m in zip(first, moved, linear)]


def moving_shape_notes(scene, sm) -> list[str]:
    """Check's lines on parts whose mesh changes shape: ``shape_notes`` over the frames (a
    keyed deformation, or a bake's motion played), and, for each moving part not named
    there with something that may deform it (vertex_markers.deformers), one whose
    evaluated vertices move on it by more than RESHAPED of its size when the part alone is
    moved (a Hook, Lattice, Shrinkwrap or posed Armature tied to an object not under the
    part): the part, how far, what deforms it.  The scene is put back as it was."""
    out = shape_notes(scene, sm)
    named = {ob.name for ob in sm.parts if any(f"part {ob.name!r}" in line for line in out)}
    found = [(ob, movers) for ob in sm.parts if ob.type == "MESH" and not ob.mechanism.ground
             and ob.name not in named for movers in [deformers(ob)] if movers]
    if not found:
        return out
    far = _reshaped_by_move([ob for ob, _ in found])
    for (ob, movers), move in zip(found, far):
        size = max(ob.dimensions)
        if move <= RESHAPED * size:
            continue
        how = ("changes its number of vertices" if move == np.inf else
               f"moves {length_text(scene, move * metres_per_unit(scene))} on the part")
        out.append(f"part {ob.name!r} changes shape as it moves: a vertex of its mesh {how} "
                   f"as the part moves (the mesh is deformed by its {', '.join(movers)}), but "
                   "the solver moves it as a rigid body, its mass and contacts as it stands: "
                   "apply the deformation, or tie what it follows to the part (parent a "
                   "Hook's or Lattice's object to the part)")
    return out
