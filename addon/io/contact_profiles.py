"""A part's mesh read as an extruded planar profile (the solver's ``Shape.profile``): its
outline in the part frame's xy plane and its thickness along z.

The mesh (vertices in the part frame, m; triangles) is a prism along z when every vertex
lies on its top plane z = hi or its bottom plane z = lo, the outline of its top faces (the
triangles with all three vertices on the top plane, seen from +z) is the outline of its
bottom faces, and its other faces (the sides) stand upright.  The outline is the boundary
of the top faces: the edges that belong to one top triangle only, chained into closed
loops (an outer boundary and its holes); vertices at the same place (within the
tolerance) count as one, so a mesh split along seams reads the same.  The thickness is
hi - lo, the profile centred at z = (lo + hi) / 2.

A mesh that is not such a prism is refused with how far off it is (m): a vertex's
distance from the nearer of the two planes, a bottom outline point's from the top
outline (and the reverse), a side's lean (the horizontal run of its slope over the
thickness).  The tolerance is PRISM_TOLERANCE of the mesh's largest extent: Blender keeps
coordinates as 32-bit floats, good to about 1e-7 of them.
"""
from __future__ import annotations

import numpy as np

from ...solver import MechanismError

PRISM_TOLERANCE = 1e-5     # share of the mesh's largest extent a prism may be off by
CHUNK = 1_000_000          # point-segment pairs at a time


def _welded(vertices: np.ndarray, faces: np.ndarray, tol: float) -> np.ndarray:
    """``faces`` with vertices at the same place (to ``tol``) given one index, the
    triangles left with two corners at one place (no area) dropped."""
    keys = np.round(vertices / max(tol, 1e-300)).astype(np.int64)
    _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    welded = first[inverse.reshape(-1)][faces]
    return welded[(welded[:, 0] != welded[:, 1]) & (welded[:, 1] != welded[:, 2])
                  & (welded[:, 2] != welded[:, 0])]


def _boundary_edges(tris: np.ndarray) -> np.ndarray:
    """(e, 2) the undirected edges that belong to one triangle of ``tris`` only."""
    all_edges = np.concatenate([tris[:, [0, 1]], tris[:, [1, 2]], tris[:, [2, 0]]])
    all_edges = np.sort(all_edges, axis=1)
    unique, count = np.unique(all_edges, axis=0, return_counts=True)
    return unique[count == 1]


def _chained(edges: np.ndarray, what: str) -> list[np.ndarray]:
    """The boundary ``edges`` chained into closed loops of vertex indices; a vertex on an
    odd number of them (an outline that does not close) refused naming ``what``."""
    neighbours: dict[int, list[int]] = {}
    for a, b in edges.tolist():
        neighbours.setdefault(a, []).append(b)
        neighbours.setdefault(b, []).append(a)
    if any(len(n) % 2 for n in neighbours.values()):
        raise MechanismError(f"{what}: the outline of the mesh's top faces does not close "
                             "(a face missing or a gap in it): not a prism along the part's z")
    loops = []
    while neighbours:
        start = next(iter(neighbours))
        loop, here = [start], start
        while True:
            nxt = neighbours[here].pop()
            neighbours[nxt].remove(here)
            for v in (here, nxt):
                if not neighbours[v]:
                    del neighbours[v]
            if nxt == start:
                break
            loop.append(nxt)
            here = nxt
            if here not in neighbours:
                raise MechanismError(f"{what}: the outline of the mesh's top faces does not "
                                     "close: not a prism along the part's z")
        loops.append(np.array(loop))
    return loops


def _distance_to_outline(points: np.ndarray, loops: list[np.ndarray]) -> np.ndarray:
    """(k,) each 2-D point's distance to the nearest edge of ``loops`` ((m, 2) polygons)."""
    a = np.concatenate(loops)
    b = np.concatenate([np.roll(p, -1, axis=0) for p in loops])
    ab = b - a
    length2 = np.maximum(np.einsum("ij,ij->i", ab, ab), 1e-300)
    out = np.empty(len(points))
    step = max(1, CHUNK // len(a))
    for s in range(0, len(points), step):
        q = points[s: s + step, None, :]
        t = np.clip(np.einsum("kij,ij->ki", q - a, ab) / length2, 0.0, 1.0)
        gap = q - (a + t[..., None] * ab)
        out[s: s + step] = np.sqrt(np.einsum("kij,kij->ki", gap, gap).min(axis=1))
    return out


def _side_lean(vertices: np.ndarray, sides: np.ndarray, thickness: float) -> float:
    """m: the largest horizontal run over the thickness of a side triangle's slope
    (thickness |n_z| / |n_xy|, n its normal; 0 for an upright side)."""
    if not len(sides):
        return 0.0
    p = vertices[sides]
    n = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
    flat = np.hypot(n[:, 0], n[:, 1])
    area = np.linalg.norm(n, axis=1)
    n, flat = n[area > 0.0], flat[area > 0.0]
    lean = thickness * np.abs(n[:, 2]) / np.maximum(flat, 1e-300)
    return float(lean.max(initial=0.0))


def prism_outline(vertices: np.ndarray, faces: np.ndarray, what: str
                  ) -> tuple[list[np.ndarray], float, float]:
    """(loops, lo, hi): the outline (a list of (k, 2) polygons, m, the part frame's x and
    y) of a mesh that is a prism along the part frame's z, from ``lo`` to ``hi`` (m); a
    mesh that is not refused naming ``what`` and how far off it is (module docstring)."""
    V = np.asarray(vertices, dtype=float).reshape(-1, 3)
    F = np.asarray(faces, dtype=np.int64).reshape(-1, 3)
    if not len(V) or not len(F):
        raise MechanismError(f"{what}: the part has no faces to read a profile from")
    size = float(np.ptp(V, axis=0).max())
    tol = PRISM_TOLERANCE * size
    z = V[:, 2]
    lo, hi = float(z.min()), float(z.max())
    if hi - lo <= tol:
        raise MechanismError(f"{what}: the mesh is flat along the part's z (no thickness to "
                             "extrude the profile over): give it a thickness or pick Mesh")
    off_plane = np.minimum(np.abs(z - lo), np.abs(z - hi))
    worst = int(np.argmax(off_plane))
    if off_plane[worst] > tol:
        raise MechanismError(
            f"{what}: not a prism along the part's z: vertex {worst} is {off_plane[worst]:.6g} m "
            f"from both its top (z = {hi:.6g} m) and its bottom (z = {lo:.6g} m); a Profile "
            "needs every vertex on one of the two (pick Mesh, or turn the part's z along the "
            "extrusion)")
    F = _welded(V, F, tol)
    on_top, on_bottom = (np.abs(z[F] - hi) <= tol).all(axis=1), (np.abs(z[F] - lo) <= tol).all(axis=1)
    outlines = [[V[loop, :2] for loop in _chained(_boundary_edges(F[mask]), what)]
                for mask in (on_top, on_bottom)]
    if not outlines[0] or not outlines[1]:
        raise MechanismError(f"{what}: not a prism along the part's z: it has no "
                             f"{'top' if not outlines[0] else 'bottom'} faces")
    top, bottom = outlines
    off = max(_distance_to_outline(np.concatenate(bottom), top).max(),
              _distance_to_outline(np.concatenate(top), bottom).max())
    if off > tol:
        raise MechanismError(f"{what}: not a prism along the part's z: its bottom outline is "
                             f"{off:.6g} m off its top outline (pick Mesh)")
    lean = _side_lean(V, F[~(on_top | on_bottom)], hi - lo)
    if lean > tol:
        raise MechanismError(f"{what}: not a prism along the part's z: a side leans "
                             f"{lean:.6g} m over the thickness (pick Mesh)")
    return top, lo, hi


def is_prism(vertices: np.ndarray, faces: np.ndarray) -> bool:
    """Whether the mesh is a prism along the part frame's z (``prism_outline`` reads it)."""
    try:
        prism_outline(vertices, faces, "mesh")
    except MechanismError:
        return False
    return True
