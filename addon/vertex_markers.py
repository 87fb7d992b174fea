"""Markers parented to a part's vertices (Vertex, Vertex (Triangle)): on one vertex of a
moving part, and on a mesh that shape keys, modifiers or a deforming parent (Armature,
Lattice) reshape.

Blender's one-vertex parent (Vertex) moves its child with the vertex but does not turn it:
the marker's offset from the vertex stays put in the world's axes, so as a baked part turns
the viewport shows the marker straying from where the solver holds it on the part (up to
twice its distance from the vertex) and its axes unturned; the solve and the part's keys
are right, and ``one_vertex_note`` says so when the scene is read (a three-vertex parent,
Vertex (Triangle), turns the marker with the part).

A marker on the vertices of a deformed mesh is placed by Blender on the deformed mesh at
every frame (a vertex parent reads the evaluated mesh), but a marker is read once, where it stands at the first frame, and
the solver holds it there on its rigid part.  A deformation that stays still over the
frame range (a shape key held at one value, a Bevel or Subdivision) is read as the
viewport shows it, at every frame alike; one that moves the marker's vertices over the
frames (a keyed shape key, a keyed or time-dependent modifier, an animated armature) would
carry the marker off its joint as the bake plays, so ``deformed_vertex_problems`` names the
marker, its part, what deforms the mesh and the frames (Check lists it; Bake, Bake Mode,
Export CSV and studies refuse it: bake_checks.py).
"""
from __future__ import annotations

import numpy as np

from .anim import check_frames, over_frames
from .curve_reader import angle_text, length_text, metres_per_unit
from .io.part_frames import VERTEX_PARENTING, drift, vertex_parent_matrix

# a marker this close to its vertex (Blender units) strays by no more than float32 rounding
ON_VERTEX = 1e-6

# how far a marker may stand from where it was at the first frame, as a share of its part's
# size (the larger of the part's dimensions and the marker's distance from the part's
# origin), and how far its axes may turn (rad), before it counts as moved: Blender's
# matrices are float32 (unit round-off 6e-8), and the vertex is taken out of three of them
# and an inverse, a few times 1e-7 at most; 1e-5 is ten times that and far below sight
DRIFT = 1e-5


def deformers(part) -> list[str]:
    """What may move ``part``'s vertices, as a message names it: its shape keys (but the
    reference), its modifiers shown in viewports, a parent that deforms it."""
    key = getattr(part.data, "shape_keys", None)
    out = [] if key is None else [f"shape key {kb.name!r}" for kb in key.key_blocks
                                  if kb.name != key.reference_key.name]
    out += [f"modifier {m.name!r}" for m in part.modifiers if m.show_viewport]
    if part.parent is not None and part.parent_type in ("ARMATURE", "LATTICE"):
        out.append(f"parent {part.parent.name!r} ({part.parent_type.title()} deform)")
    return out


def _candidates(scene) -> list[tuple]:
    """(marker, part, deformers) of every marker parented to the vertices of a part that
    something may deform."""
    out = []
    for ob in scene.objects:
        part = ob.parent
        if (ob.mechanism.role != "MARKER" or part is None or part.mechanism.role != "PART"
                or ob.parent_type not in VERTEX_PARENTING):
            continue
        movers = deformers(part)
        if movers:
            out.append((ob, part, movers))
    return out


def _sampled(scene, found: list[tuple]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """((m, n, 4, 4) world matrices of the m markers ``found`` at the n frames (the third
    item) of the scene's range anim.check_frames gives, each as its vertex parent places it at that frame on its part standing
    as at the first frame (part_frames.vertex_parent_matrix, with its own local matrix of
    the first frame: only the vertices' motion counts), (m, 3) the parts' origins at the
    first frame).  The scene is put back as it was (anim.over_frames)."""
    def read() -> list[tuple]:
        return [(np.array(part.matrix_world, dtype=float),
                 np.array(ob.matrix_parent_inverse, dtype=float)
                 @ np.array(ob.matrix_basis, dtype=float),
                 np.array(ob.matrix_world, dtype=float)) for ob, part, _ in found]

    frames = check_frames(scene)
    read = over_frames(scene, read, frames)
    worlds = np.array([[vertex_parent_matrix(ob.parent_type, P0, P, C, L) @ L0
                        for (ob, _, _), (P, L, C), (P0, L0, _) in zip(found, now, read[0])]
                       for now in read])
    return (np.swapaxes(worlds, 0, 1), np.array([P0[:3, 3] for P0, _, _ in read[0]]),
            frames)


def deformed_vertex_problems(scene) -> list[str]:
    """One line per marker parented to the vertices of a part whose deformation moves it
    over the scene's frame range: the marker, the part, how far (the scene's units) at the
    frame it is farthest from where it stands at the first frame, the first frame it has
    moved, and what deforms the mesh.  Nothing when no such marker is on a deformed part
    (no frame is then visited)."""
    found = _candidates(scene)
    if not found:
        return []
    worlds, origins, frames = _sampled(scene, found)
    out = []
    for (ob, part, movers), w, origin in zip(found, worlds, origins):
        far, turn = drift(w)
        size = max(max(part.dimensions), float(np.linalg.norm(w[0, :3, 3] - origin)))
        moved = (far > DRIFT * size) | (turn > DRIFT)
        if not moved.any():
            continue
        k = int(np.argmax(far + turn * size))
        how = length_text(scene, far[k] * metres_per_unit(scene))
        if turn[k] > DRIFT:
            how += f" and {angle_text(scene, turn[k], 3)}"
        out.append(f"marker {ob.name!r} is parented to vertices of part {part.name!r} that "
                   f"move over the frames (by {how} at frame {frames[k]}, from "
                   f"frame {frames[int(np.argmax(moved))]} on; the mesh is "
                   f"deformed by its {', '.join(movers)}), but a marker is read once, where "
                   "it is at the first frame, so its joints would open as the bake plays: "
                   "parent it to the part's object (Ctrl P > Object (Keep Transform)), or "
                   "keep the deformation still over the frame range")
    return out


def one_vertex_note(ob, part, scene) -> str | None:
    """The note for marker ``ob`` parented to one vertex (Vertex) of the moving ``part``:
    how far the viewport can show it from where the solver holds it as the part turns,
    twice its distance from the vertex (its local matrix's offset, in the world's axes,
    which the relation adds to the vertex's position unturned); None for any other marker,
    one on a ground part (it never turns) or one on its vertex."""
    if ob.parent_type != "VERTEX" or part.mechanism.ground:
        return None
    local = np.array(ob.matrix_parent_inverse, dtype=float) @ np.array(ob.matrix_basis,
                                                                         dtype=float)
    offset = float(np.linalg.norm(local[:3, 3]))
    if offset <= ON_VERTEX:
        return None
    stray = length_text(scene, 2.0 * offset * metres_per_unit(scene))
    return (f"marker {ob.name!r} is parented to one vertex of the moving part {part.name!r} "
            "(Vertex), which moves it with the vertex but does not turn it: as the part "
            f"turns, the viewport shows it up to {stray} off where the solver holds it, its "
            "axes unturned (the bake's motion is right): "
            "parent it by Vertex (Triangle) or to the part's object (Ctrl P) to see it "
            "ride the part")
