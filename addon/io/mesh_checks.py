"""What the add-on says about a contact's Mesh shape before the solver builds its distance
grid: an open mesh, refused with its open edges where the user finds them (the object's
vertex numbers and their world positions) and what to do; and a grid too coarse for the
mesh's thinnest part, a warning with the Grid Cells that would follow it.

An open mesh is refused, never replaced by a fitted shape: a Box in its place would push
where the user's mesh has no material, a silent wrong result.

Thickness: from each face's centroid (of a big mesh, an even spread of them) straight inward (against its outward normal) to the
first other face the line meets (Moller and Trumbore 1997, the ray-triangle test), the
least over the faces; its half is the largest cell whose nodes still fall inside it.  The
grid (solver/base/sdf_grid.py) interpolates node distances trilinearly, so a part thinner
than about two cells has no node inside and reads as outside: points pushed into it feel
no force.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ...solver import MechanismError

BUDGET = 2_000_000       # ray-triangle pairs measured (about 0.4 s, besides the grid's seconds)
MIN_RAYS = 64            # faces measured however big the mesh (evenly spread over it)
PAIRS = 400_000          # ray-triangle pairs at a time
MAX_CELLS = 256          # the largest Grid Cells the solver builds
SLACK = 1e-6             # relative: Blender's float32 mesh coordinates (2^-24) and their sums
CACHE_SIZE = 16          # meshes whose thickness is kept (Check, Bake and Drag read it again)
_thin: dict[tuple, "Thinnest"] = {}


def open_edges(faces: np.ndarray) -> np.ndarray:
    """(k, 2) the directed edges (i, j) of a triangle mesh that are not met once by a face
    running along (j, i): a hole's border, a face wound against its neighbours, an edge of
    three faces; (0, 2) for a closed, consistently wound mesh."""
    F = np.asarray(faces, dtype=np.int64).reshape(-1, 3)
    directed = np.concatenate([F[:, [0, 1]], F[:, [1, 2]], F[:, [2, 0]]])
    n = int(F.max()) + 1 if F.size else 1
    key = directed[:, 0] * n + directed[:, 1]
    back = directed[:, 1] * n + directed[:, 0]
    uniq, count = np.unique(key, return_counts=True)
    forward = count[np.searchsorted(uniq, key)]
    at = np.clip(np.searchsorted(uniq, back), 0, len(uniq) - 1)
    reverse = np.where(uniq[at] == back, count[at], 0)
    return directed[(forward != 1) | (reverse != 1)]


def refuse_open_mesh(what: str, faces: np.ndarray, world: np.ndarray) -> None:
    """MechanismError naming ``what`` when the mesh is open: how many edges, the first one's
    vertex numbers (the object's evaluated mesh: its own without modifiers) and world
    positions ``world`` (n, 3) (Blender units, at the design pose), and the remedies."""
    bad = open_edges(faces)
    if not len(bad):
        return
    i, j = (int(x) for x in bad[0])
    at = lambda k: "(" + ", ".join(f"{x:.4g}" for x in world[k]) + ")"      # noqa: E731
    raise MechanismError(
        f"{what}: the mesh is not closed: {len(bad)} edge(s) are open or wound against a "
        f"neighbour, the first between vertices {i} at {at(i)} and {j} at {at(j)} (world); in "
        "Edit Mode, Select > Select All by Trait > Non Manifold shows them: fill the holes "
        "(Mesh > Clean Up > Fill Holes) and Mesh > Normals > Recalculate Outside, or pick "
        "a fitted shape (Box, Sphere, Capsule, Cylinder) for this side")


@dataclass(frozen=True)
class Thinnest:
    """A mesh's least thickness (m) and the face centroid it was measured from (the mesh's
    coordinates)."""
    thickness: float
    where: np.ndarray


def _ray_hits(origin: np.ndarray, direction: np.ndarray, a: np.ndarray, b: np.ndarray,
              c: np.ndarray) -> np.ndarray:
    """(r, f) the distance along each ray (unit directions) to each triangle, inf where it
    misses (Moller and Trumbore 1997)."""
    e1, e2 = (b - a)[None], (c - a)[None]
    d = direction[:, None]
    p = np.cross(d, e2)
    det = np.sum(e1 * p, axis=-1)
    ok = np.abs(det) > 1e-300
    inv = np.where(ok, 1.0 / np.where(ok, det, 1.0), 0.0)
    s = origin[:, None] - a[None]
    u = np.sum(s * p, axis=-1) * inv
    q = np.cross(s, e1)
    v = np.sum(d * q, axis=-1) * inv
    t = np.sum(e2 * q, axis=-1) * inv
    hit = ok & (u >= 0.0) & (v >= 0.0) & (u + v <= 1.0)
    return np.where(hit, t, np.inf)


def thinnest(vertices: np.ndarray, faces: np.ndarray) -> Thinnest:
    """The least distance from a face's centroid straight inward to another face (every
    face's while faces^2 is within BUDGET, else BUDGET / faces of them and at least
    MIN_RAYS, evenly spread), for a closed mesh wound outward; the same answer kept
    for the last CACHE_SIZE meshes asked about."""
    V = np.ascontiguousarray(vertices, dtype=float)
    F = np.ascontiguousarray(faces, dtype=np.int64).reshape(-1, 3)
    key = (hashlib.sha1(V.tobytes()).hexdigest(), V.shape, hashlib.sha1(F.tobytes()).hexdigest())
    found = _thin.pop(key, None) or _measure(V, F)
    _thin[key] = found                                  # the newest last
    while len(_thin) > CACHE_SIZE:
        _thin.pop(next(iter(_thin)))
    return found


def _measure(V: np.ndarray, F: np.ndarray) -> Thinnest:
    """``thinnest`` measured."""
    a, b, c = V[F[:, 0]], V[F[:, 1]], V[F[:, 2]]
    normal = np.cross(b - a, c - a)
    length = np.linalg.norm(normal, axis=1)
    used = np.flatnonzero(length > 0.0)
    rays = min(len(used), max(MIN_RAYS, BUDGET // max(len(F), 1)))
    used = used[np.linspace(0, len(used) - 1, rays).astype(int)]
    origin = (a[used] + b[used] + c[used]) / 3.0
    inward = -normal[used] / length[used, None]
    floor = 1e-9 * float(np.ptp(V, axis=0).max())        # the face the ray starts on
    step = max(1, PAIRS // max(len(F), 1))
    best = np.full(len(used), np.inf)
    for k in range(0, len(used), step):
        t = _ray_hits(origin[k:k + step], inward[k:k + step], a, b, c)
        t[np.arange(len(t)), used[k:k + step]] = np.inf
        best[k:k + step] = np.where(t > floor, t, np.inf).min(axis=1)
    k = int(np.argmin(best))
    return Thinnest(float(best[k]), origin[k])


def cells_needed(extent: float, thickness: float) -> int:
    """The Grid Cells along ``extent`` whose cell is at most half ``thickness`` (to SLACK of
    it: a mesh read in float32 is not refused a whole number of cells by its rounding)."""
    return int(np.ceil(2.0 * extent / thickness * (1.0 - SLACK)))


def coarse_grid_note(what: str, vertices: np.ndarray, faces: np.ndarray, cells: int,
                     length: Callable[[float], str]) -> str | None:
    """A warning naming ``what`` when the mesh's thinnest part (``thinnest``) is under two
    cells of its grid: the thickness, the cell size and the Grid Cells that would follow
    it (or that none up to MAX_CELLS would); ``length(m)`` writes a length in the scene's
    units.  None when the grid is fine enough."""
    extent = float(np.ptp(np.asarray(vertices, dtype=float), axis=0).max())
    thin = thinnest(vertices, faces)
    cell = extent / cells
    if not np.isfinite(thin.thickness) or cell <= 0.5 * thin.thickness * (1.0 + SLACK):
        return None
    need = cells_needed(extent, thin.thickness)
    advice = (f"Grid Cells {need} (cells of {length(extent / need)}) would follow it"
              if need <= MAX_CELLS else
              f"even Grid Cells {MAX_CELLS} would not: pick a fitted shape or thicken it")
    return (f"{what}: its thinnest part, {length(thin.thickness)}, is under two grid cells of "
            f"{length(cell)} (Grid Cells {cells}): points pushed into it may feel no force; "
            f"{advice}")
