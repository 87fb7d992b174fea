"""The closed shells of a mesh, and the volume that shells lying on or in each other count
twice.

A part modelled as one mesh of several pieces (primitives joined, a Mirror modifier without
Merge) has one closed shell per piece.  The divergence theorem sums every shell's signed
volume: right for shells apart, and for a cavity (an inner shell with inward normals,
negative volume), but a region inside two outward shells is counted twice.  Here:

* ``vertex_shells``: each vertex's shell (the faces joined through shared vertices);
* ``_inside_out``: a shell of negative volume inside no outward one is no cavity but
  inside out: turned, exact;
* ``coincident``: the shells that repeat another (the same vertex positions, the same
  signed volume): dropped, the solid's volume is then exact;
* ``shared_volumes``: for the other shells whose bounding boxes meet, the volume inside
  two outward shells, sampled at the centres of a grid over the boxes' intersection by the
  shells' winding numbers (the solid angle of each triangle, Van Oosterom & Strackee 1983,
  eq. 8, over 4 pi): an estimate to within a grid cell across the shells' surfaces there.

numpy and the stdlib only (the module ships inside the Blender extension).
"""
from __future__ import annotations

import numpy as np

from . import elementary

# points times triangles of all pairs' winding numbers (about 0.2 s of numpy): a pair's
# grid has as many cells per axis as its share allows, within GRID_CELLS; taken CHUNK at a
# time (a few MB of arrays: in the processor's cache)
WINDING_BUDGET = 2_000_000
GRID_CELLS = (4, 24)
CHUNK = 100_000
# coordinates equal to this fraction of the mesh's extent are the same point: Blender keeps
# vertex positions in float32 (unit round-off 6e-8), a mirrored copy's to that rounding
SAME_POINT_RTOL = 1e-6


def vertex_shells(flat: np.ndarray, sizes: np.ndarray, starts: np.ndarray,
                  nv: int) -> np.ndarray:
    """(nv,) each vertex's shell, labelled by the smallest vertex index in it: the
    connected components of the polygons' corners.  Each pass hooks the label of every
    corner onto the smallest label of its polygon, then jumps pointers to the roots, until
    every polygon's corners share one label (a mesh of one piece: one pass, about a tenth
    of the mass sums' time)."""
    flat = flat.astype(np.int32)
    label = np.arange(nv, dtype=np.int32)
    corner = flat
    while True:
        least = np.repeat(np.minimum.reduceat(corner, starts), sizes)
        if np.array_equal(least, corner):
            return label
        np.minimum.at(label, corner, least)     # each root onto the least label it meets
        while True:
            root = label[label]
            if np.array_equal(root, label):
                break
            label = root
        corner = label[flat]
        if corner.min() == corner.max():        # one piece (cheaper than a pass to see it)
            return label


def _boxes(V: np.ndarray, shell: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """((k, 3) lows, (k, 3) highs) of each shell's vertices; ``shell`` (n,) in 0..k-1."""
    order = np.argsort(shell, kind="stable")
    first = np.searchsorted(shell[order], np.arange(k))
    return np.minimum.reduceat(V[order], first), np.maximum.reduceat(V[order], first)


def coincident(V: np.ndarray, shell: np.ndarray, volumes: np.ndarray, lo: np.ndarray,
               extent: float) -> np.ndarray:
    """(k,) bool: the shells that repeat another kept: the same number of vertices at the
    same positions (to SAME_POINT_RTOL of ``extent``) and the same signed volume (to that
    rounding, relative).  ``shell`` (n,) each vertex's shell in 0..k-1, or -1 for a vertex
    of no face; ``volumes`` (k,) signed; ``lo`` (k, 3) their boxes' lowest corners.  The
    shells sorted by vertex count, box corner (to a thousandth of the extent) and volume,
    a copy comes next to its original: only neighbours are compared (a copy missed where
    a rounded corner straddles a step is still said as two shells overlapping)."""
    k = volumes.size
    used = shell >= 0
    count = np.bincount(shell[used], minlength=k)
    corner = np.floor(lo / (1e-3 * extent))
    order = np.lexsort((volumes, corner[:, 2], corner[:, 1], corner[:, 0], count))
    p, q = order[:-1], order[1:]
    tol = SAME_POINT_RTOL * extent
    alike = ((count[p] == count[q]) & np.isclose(volumes[p], volumes[q], rtol=1e-5, atol=0)
             & np.all(np.abs(lo[p] - lo[q]) <= tol, axis=1))
    drop = np.zeros(k, dtype=bool)
    for i, j in zip(p[alike], q[alike]):
        P, Q = V[shell == i], V[shell == j]
        P, Q = (Y[np.lexsort(np.round(Y / tol).T[::-1])] for Y in (P, Q))
        drop[j] = bool(np.all(np.abs(P - Q) <= tol))
    return drop


def winding_numbers(points: np.ndarray, A: np.ndarray, B: np.ndarray,
                    C: np.ndarray) -> np.ndarray:
    """(P,) the winding number of a closed surface of triangles (A, B, C) (each (T, 3),
    counter-clockwise seen from outside) about each of ``points`` (P, 3): 1 inside, 0
    outside (-1 inside an inside-out surface); the sum of the triangles' signed solid
    angles over 4 pi (Van Oosterom & Strackee 1983, eq. 8)."""
    out = np.empty(len(points))
    step = max(1, CHUNK // max(len(A), 1))
    for s in range(0, len(points), step):
        p = points[s:s + step, None, :]
        a, b, c = A - p, B - p, C - p
        la, lb, lc = (np.sqrt(np.einsum("ptk,ptk->pt", x, x)) for x in (a, b, c))
        num = np.einsum("ptk,ptk->pt", a, np.cross(b, c))
        den = (la * lb * lc + np.einsum("ptk,ptk->pt", a, b) * lc
               + np.einsum("ptk,ptk->pt", b, c) * la + np.einsum("ptk,ptk->pt", c, a) * lb)
        out[s:s + step] = elementary.arctan2(num, den).sum(axis=1) / (2.0 * np.pi)
    return out


def _meeting(lo: np.ndarray, hi: np.ndarray, which: np.ndarray) -> list[tuple[int, int]]:
    """The pairs (i, j) of the shells ``which`` whose boxes (lo, hi) overlap with a volume:
    swept along x, each box against those starting before it ends."""
    order = which[np.argsort(lo[which, 0], kind="stable")]
    ends = np.searchsorted(lo[order, 0], hi[order, 0])
    pairs = []
    for pos in np.flatnonzero(ends > np.arange(order.size) + 1):
        i, js = order[pos], order[pos + 1:ends[pos]]
        js = js[np.all(np.maximum(lo[i], lo[js]) < np.minimum(hi[i], hi[js]), axis=1)]
        pairs += [(int(min(i, j)), int(max(i, j))) for j in js]
    return sorted(pairs)


def shared_volumes(V: np.ndarray, tri: tuple, tri_shell: np.ndarray, volumes: np.ndarray,
                   skip: np.ndarray, lo: np.ndarray,
                   hi: np.ndarray) -> list[tuple[int, int, float]]:
    """[(i, j, volume)] of each pair of outward shells (positive signed volume, not in
    ``skip``) whose bounding boxes (``lo``, ``hi``) meet: the volume inside both, estimated
    on a grid of cell centres over the boxes' intersection (module docstring), the grids
    of all pairs within WINDING_BUDGET together; pairs sharing none are left out.  ``tri``
    the triangles' vertex indices (i0, i1, i2), ``tri_shell`` their shell, ``volumes``
    each shell's signed volume."""
    k = volumes.size
    pairs = _meeting(lo, hi, np.flatnonzero((volumes > 0) & ~skip))
    by_shell = np.argsort(tri_shell, kind="stable")
    first = np.searchsorted(tri_shell[by_shell], np.arange(k + 1))
    corners = [V[t[by_shell]] for t in tri]              # (each (T, 3), shell by shell)
    found = []
    for i, j in pairs:
        low, high = np.maximum(lo[i], lo[j]), np.minimum(hi[i], hi[j])
        faces = [[c[first[s]:first[s + 1]] for c in corners] for s in (i, j)]
        n = sum(len(f[0]) for f in faces)
        cells = int(np.clip(np.cbrt(WINDING_BUDGET / len(pairs) / n), *GRID_CELLS))
        h = (high - low) / cells
        axes = [low[d] + h[d] * (np.arange(cells) + 0.5) for d in range(3)]
        P = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, 3)
        inside = (winding_numbers(P, *faces[0]) > 0.5) & (winding_numbers(P, *faces[1]) > 0.5)
        if inside.any():
            shared = min(inside.sum() * np.prod(h), volumes[i], volumes[j])
            found.append((i, j, float(shared)))           # (no more than either has)
    return found


def _inside_out(X: np.ndarray, tri: tuple, tri_shell: np.ndarray, moment: np.ndarray,
                volumes: np.ndarray) -> np.ndarray:
    """(k,) bool: the shells of negative volume whose centroid is inside no outward shell
    (their winding numbers there summed below 1/2): inside out, not a cavity.  ``moment``
    (3, T) each triangle's det times the sum of its corners (24 times its first moment).
    None of them when every shell is: the whole mesh is inside out, flipped as one."""
    inward = volumes < 0
    if not inward.any() or inward.all():
        return np.zeros(volumes.size, dtype=bool)
    k = volumes.size
    centroid = np.stack([np.bincount(tri_shell, m, k) for m in moment], axis=1)[inward]
    centroid /= 4.0 * volumes[inward, None]                  # (24 first) / (6 vol) / 4
    outward = ~inward[tri_shell]
    A, B, C = (X[t[outward]] for t in tri)
    flip = np.zeros(k, dtype=bool)
    flip[inward] = winding_numbers(centroid, A, B, C) < 0.5
    return flip


def one_solid(V: np.ndarray, flat: np.ndarray, sizes: np.ndarray, starts: np.ndarray,
              tri: tuple) -> tuple[tuple, list[str]]:
    """(the triangles (i0, i1, i2) of a closed mesh's solid, what to say of its shells):
    a shell inside out and inside no other is turned (exact), a shell repeating another
    is left out (exact); shells overlapping are kept and said, with the share of the
    volume counted twice and the remedy.  A mesh of one piece is returned as it is, after
    one pass of ``vertex_shells``."""
    label = vertex_shells(flat, sizes, starts, len(V))
    roots = label[flat]
    if roots.min() == roots.max():
        return tri, []
    roots = np.unique(roots)
    used = np.zeros(len(V), dtype=bool)
    used[flat] = True
    shell = np.where(used, np.searchsorted(roots, label), -1)
    tri_shell = shell[tri[0]]
    X = V - V[used].mean(axis=0)
    a, b, c = (X[t] for t in tri)
    d = np.einsum("tk,tk->t", a, np.cross(b, c))
    volumes = np.bincount(tri_shell, d, roots.size) / 6.0
    said = []
    flip = _inside_out(X, tri, tri_shell, d * (a + b + c).T, volumes)
    if flip.any():
        n = int(flip.sum())
        said.append(f"{n} shell{'s' if n > 1 else ''} inside out (negative volume) and "
                    "inside no other: flipped")
        turned = flip[tri_shell]
        tri = (tri[0], np.where(turned, tri[2], tri[1]), np.where(turned, tri[1], tri[2]))
        volumes = np.where(flip, -volumes, volumes)
    extent = float(np.max(np.ptp(X[used], axis=0)))
    lo, hi = _boxes(X[used], shell[used], roots.size)
    drop = coincident(X, shell, volumes, lo, extent)
    if drop.any():
        n = int(drop.sum())
        said.append(f"{n} shell{'s' if n > 1 else ''} lying on another, the same vertices "
                    "(a copy not moved, or a Mirror modifier without Merge): left out")
        tri = tuple(t[~drop[tri_shell]] for t in tri)
    pairs = shared_volumes(X, tri, shell[tri[0]], volumes, drop, lo, hi)
    if pairs:
        total = float(volumes[~drop].sum())
        twice = sum(v for _, _, v in pairs)
        i, j, v = max(pairs, key=lambda p: p[2] / min(volumes[p[0]], volumes[p[1]]))
        small, big = (i, j) if volumes[i] <= volumes[j] else (j, i)
        first = lambda s: int(roots[s])                      # noqa: E731 (its least vertex)
        said.append(
            f"{len(pairs)} pair{'s' if len(pairs) > 1 else ''} of shells overlapping: about "
            f"{100 * twice / total:.3g}% of the volume is inside two shells and counted twice "
            f"(the shell of vertex {first(small)} has {100 * v / volumes[small]:.3g}% of its "
            f"volume inside that of vertex {first(big)}): join them (Boolean modifier, "
            "Union), or type the mass in")
    return tri, said
