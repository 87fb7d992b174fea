"""A closed triangle mesh's signed-distance grid and surface samples, built once in numpy,
and the trilinear interpolation of many grids at many points (one set of gathers).

Build (``build_grid``): the nodes of a regular grid around the mesh, each node's exact
distance to the nearest triangle (Ericson 2005, "Real-Time Collision Detection", 5.1.5:
the closest point on a triangle by its Voronoi regions, vectorized over the candidate
node-triangle pairs) signed by parity (the triangles a line along the grid's x crosses
before the node: odd inside), and the gradient at the nodes by central differences.  The mesh must be closed
(every edge shared by two faces that run along it in opposite directions); an open edge is
named.

Evaluation (``grid_distance``): the points' cell and the eight corner values by flat
gathers from all grids concatenated, trilinear weights, the gradient interpolated and made
unit.  A point outside its grid's box is taken at the nearest point of the box, its
distance there plus the distance to it (a lower bound growing away from the mesh).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from .einsum import einsum
from .errors import MechanismError, shown

CELLS = 32             # cells along the mesh's largest extent, by default
PAD = 3                # cells of margin around the mesh's bounding box
CHUNK = 2_000_000      # node-face pairs at a time while building


@dataclass(frozen=True)
class Grid:
    """One mesh's distance grid in its shape frame: origin (3,), cell size (m), node counts
    (3,), distances (nx ny nz,) and gradients (nx ny nz, 3), x-major."""
    origin: np.ndarray
    cell: float
    dims: np.ndarray
    distance: np.ndarray
    gradient: np.ndarray


def open_edge(faces: np.ndarray) -> tuple[int, int] | None:
    """The first edge (i, j) of a triangle mesh that is not shared by exactly two faces
    running along it in opposite directions, or None for a closed, consistently wound mesh."""
    directed = np.concatenate([faces[:, [0, 1]], faces[:, [1, 2]], faces[:, [2, 0]]])
    n = int(faces.max()) + 1
    key = directed[:, 0] * n + directed[:, 1]
    back = directed[:, 1] * n + directed[:, 0]
    uniq, count = np.unique(key, return_counts=True)
    twice = uniq[count > 1]
    if twice.size:
        k = int(twice[0])
        return k // n, k % n
    lone = ~np.isin(back, uniq)
    if lone.any():
        i, j = directed[np.argmax(lone)]
        return int(i), int(j)
    return None


def check_mesh(vertices: np.ndarray, faces: np.ndarray, what: str) -> None:
    """MechanismError naming ``what`` and the open (or doubly used) edge with its vertices'
    positions, or a degenerate mesh."""
    if len(faces) < 4:
        raise MechanismError(f"{what}: a closed mesh needs at least 4 triangles, got {len(faces)}")
    if faces.min() < 0 or faces.max() >= len(vertices):
        raise MechanismError(f"{what}: a face refers to vertex {int(faces.max())} of "
                             f"{len(vertices)}")
    edge = open_edge(faces)
    if edge is not None:
        i, j = edge
        raise MechanismError(f"{what}: the mesh is not closed: its edge between vertices {i} "
                             f"{shown(vertices[i])} and {j} {shown(vertices[j])} is not shared "
                             "by two faces running along it in opposite directions (a hole, a "
                             "flipped face or a non-manifold edge); a contact mesh must be a "
                             "closed surface")
    if face_areas(vertices, faces).sum() <= 0.0:
        raise MechanismError(f"{what}: the mesh has no area")


def face_areas(vertices: np.ndarray, faces: np.ndarray) -> np.ndarray:
    """(nf,) triangle areas."""
    a, b, c = (vertices[faces[:, k]] for k in range(3))
    return 0.5 * np.linalg.norm(np.cross(b - a, c - a), axis=-1)


def _template(k: int) -> tuple[np.ndarray, np.ndarray]:
    """(nodes (m, 2) barycentric (i/k, j/k) with i + j <= k, faces (k^2, 3) into them) of a
    triangle cut into k^2 triangles wound as it is."""
    ij = np.array([(i, j) for i in range(k + 1) for j in range(k + 1 - i)])
    at = {tuple(x): n for n, x in enumerate(ij)}
    up = [(at[i, j], at[i + 1, j], at[i, j + 1]) for i, j in ij if i + j <= k - 1]
    down = [(at[i + 1, j], at[i + 1, j + 1], at[i, j + 1]) for i, j in ij if i + j <= k - 2]
    return ij / k, np.array(up + down, dtype=int)


def subdivide(vertices: np.ndarray, faces: np.ndarray, spacing: float
              ) -> tuple[np.ndarray, np.ndarray]:
    """The mesh with each triangle cut into k^2 similar ones (k: its longest edge over
    ``spacing``, rounded up), the points shared along edges merged."""
    a, b, c = (vertices[faces[:, n]] for n in range(3))
    longest = np.max([np.linalg.norm(b - a, axis=1), np.linalg.norm(c - b, axis=1),
                      np.linalg.norm(a - c, axis=1)], axis=0)
    level = np.maximum(np.ceil(longest / spacing), 1).astype(int)
    points, tris, count = [], [], 0
    for k in np.unique(level):                  # build time: one template per level
        sel = level == k
        bary, sub = _template(int(k))
        P = (a[sel, None] + bary[None, :, :1] * (b - a)[sel, None]
             + bary[None, :, 1:] * (c - a)[sel, None])             # (t, m, 3)
        points.append(P.reshape(-1, 3))
        tris.append((sub[None] + count + len(bary) * np.arange(sel.sum())[:, None, None])
                    .reshape(-1, 3))
        count += P.shape[0] * P.shape[1]
    P, F = np.concatenate(points), np.concatenate(tris)
    scale = float(np.ptp(vertices, axis=0).max()) or 1.0
    _, first, inverse = np.unique(np.round(P / (1e-9 * scale)), axis=0, return_index=True,
                                  return_inverse=True)
    return P[first], inverse.reshape(-1)[F]


def surface_samples(vertices: np.ndarray, faces: np.ndarray,
                    spacing: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(points (k, 3), weights (k,) summing to 1): the vertices and the face centroids,
    each carrying an area share (a vertex a sixth of each face around it, a centroid half
    its face), so that the samples stand for equal parts of the surface where it is even;
    with ``spacing`` (m), of the mesh subdivided to triangles no longer than it."""
    if spacing is not None:
        vertices, faces = subdivide(vertices, faces, spacing)
    area = face_areas(vertices, faces)
    vw = np.zeros(len(vertices))
    np.add.at(vw, faces.reshape(-1), np.repeat(area / 6.0, 3))
    points = np.concatenate([vertices, vertices[faces].mean(axis=1)])
    weights = np.concatenate([vw, area / 2.0])
    keep = weights > 0.0
    return points[keep], weights[keep] / weights[keep].sum()


def point_triangle_distance(p: np.ndarray, a: np.ndarray, b: np.ndarray,
                            c: np.ndarray) -> np.ndarray:
    """(..., ) the distance from points p to triangles (a, b, c), broadcast against each
    other (Ericson 2005, 5.1.5: the closest point by the triangle's Voronoi regions)."""
    ab, ac, ap = b - a, c - a, p - a
    bp, cp = p - b, p - c

    def dot(u, v):
        return np.einsum("...i,...i->...", u, v)
    d1, d2 = dot(ab, ap), dot(ac, ap)
    d3, d4 = dot(ab, bp), dot(ac, bp)
    d5, d6 = dot(ab, cp), dot(ac, cp)
    va = d3 * d6 - d5 * d4
    vb = d5 * d2 - d1 * d6
    vc = d1 * d4 - d3 * d2
    with np.errstate(divide="ignore", invalid="ignore"):
        denom = va + vb + vc
        v_in, w_in = vb / denom, vc / denom
        t_ab = d1 / (d1 - d3)
        t_ac = d2 / (d2 - d6)
        t_bc = (d4 - d3) / ((d4 - d3) + (d5 - d6))
    # the barycentric (v, w) of the closest point, region by region (last match wins)
    v, w = np.nan_to_num(v_in), np.nan_to_num(w_in)
    regions = [
        ((va <= 0) & (d4 - d3 >= 0) & (d5 - d6 >= 0), 1.0 - t_bc, t_bc),       # edge bc
        ((vb <= 0) & (d2 >= 0) & (d6 <= 0), 0.0, t_ac),                        # edge ac
        ((vc <= 0) & (d1 >= 0) & (d3 <= 0), t_ab, 0.0),                        # edge ab
        ((d6 >= 0) & (d5 <= d6), 0.0, 1.0),                                    # vertex c
        ((d3 >= 0) & (d4 <= d3), 1.0, 0.0),                                    # vertex b
        ((d1 <= 0) & (d2 <= 0), 0.0, 0.0),                                     # vertex a
    ]
    for where, vv, ww in regions:
        v, w = np.where(where, vv, v), np.where(where, ww, w)
    near = a + v[..., None] * ab + w[..., None] * ac
    return np.sqrt(dot(p - near, p - near))


def mesh_distances(p: np.ndarray, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """(k,) each point's distance to the nearest of the triangles (a, b, c) (f, 3): the
    exact distance to the candidates only, the triangles whose bounding sphere about their
    centroid comes nearer than the nearest centroid (an upper bound: it lies on its
    triangle); points in chunks of CHUNK point-triangle pairs (build time)."""
    centroid = (a + b + c) / 3.0
    reach = np.max([np.linalg.norm(x - centroid, axis=1) for x in (a, b, c)], axis=0)
    out = np.empty(len(p))
    for rows, q, i, j in candidate_pairs(p, centroid, reach):
        near = np.full(len(q), np.inf)
        np.minimum.at(near, i, point_triangle_distance(q[i], a[j], b[j], c[j]))
        out[rows] = near
    return out


def candidate_pairs(p: np.ndarray, centers: np.ndarray, reach: np.ndarray):
    """For the points p (k, d) in chunks of CHUNK point-element pairs: (rows of p, those
    points q, i, j) with (q[i], element j) every pair where element j, within ``reach`` of
    its centre ``centers[j]``, can come nearer to the point than the nearest centre (an
    upper bound of the nearest distance: each centre lies on its element)."""
    step = max(1, CHUNK // len(centers))
    for s in range(0, len(p), step):
        q = p[s: s + step]
        sq = (q * q).sum(1)[:, None] + (centers * centers).sum(1) - 2.0 * q @ centers.T
        far = np.sqrt(np.maximum(sq, 0.0))
        bound = far.min(axis=1, keepdims=True)
        i, j = np.nonzero(far - reach <= bound * (1.0 + 1e-9) + 1e-12)
        yield slice(s, s + step), q, i, j


def inside_by_parity(origin: np.ndarray, h: float, dims: np.ndarray, a: np.ndarray,
                     b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """(nx, ny, nz) bool: the grid's nodes inside the closed mesh, by the parity of the
    triangles a line along x crosses before each node.  The lines are moved off the grid
    by a few millionths of a cell (irrational shares), so that they pass no edge or vertex
    of a mesh that sits on the grid's planes; a node that close to the surface has a
    distance of about that, whichever side it is counted on."""
    y = origin[1] + h * (np.arange(dims[1]) + 1.4142135e-6)
    z = origin[2] + h * (np.arange(dims[2]) + 1.7320508e-6)
    Y, Z = (g.reshape(-1) for g in np.meshgrid(y, z, indexing="ij"))       # (lines,)
    crossings = np.zeros((len(Y), dims[0] + 1))
    e1, e2 = b - a, c - a
    det = e1[:, 1] * e2[:, 2] - e1[:, 2] * e2[:, 1]                         # yz-projected area
    step = max(1, CHUNK // len(a))
    for s in range(0, len(Y), step):
        py, pz = Y[s: s + step, None] - a[:, 1], Z[s: s + step, None] - a[:, 2]
        with np.errstate(divide="ignore", invalid="ignore"):   # edge-on triangles: no hit
            u = (py * e2[:, 2] - pz * e2[:, 1]) / det
            v = (e1[:, 1] * pz - e1[:, 2] * py) / det
            hit = (det != 0.0) & (u >= 0.0) & (v >= 0.0) & (u + v <= 1.0)
        line, tri = np.nonzero(hit)
        x = a[tri, 0] + u[line, tri] * e1[tri, 0] + v[line, tri] * e2[tri, 0]
        first = np.clip(np.ceil((x - origin[0]) / h), 0, dims[0]).astype(int)   # next node
        np.add.at(crossings, (s + line, first), 1.0)
    odd = np.cumsum(crossings[:, :-1], axis=1) % 2 == 1
    return odd.reshape(dims[1], dims[2], dims[0]).transpose(2, 0, 1)


def build_grid(vertices: np.ndarray, faces: np.ndarray, cells: int = CELLS,
               nearest: Callable[[np.ndarray], np.ndarray] | None = None) -> Grid:
    """The signed-distance grid of a closed mesh (check_mesh first): ``cells`` cells along
    its largest extent, PAD cells of margin.  ``nearest``: a function giving the distance
    of points (k, 3) to the mesh's surface (unsigned, m), used for the nodes' distances
    instead of the exact numpy computation (the add-on passes Blender's BVH tree, 20 times
    faster); the inside is found by ray parity either way."""
    lo, hi = vertices.min(axis=0), vertices.max(axis=0)
    h = float((hi - lo).max()) / cells
    origin = lo - PAD * h
    dims = np.ceil((hi - lo) / h).astype(int) + 2 * PAD + 1
    axes = [origin[k] + h * np.arange(dims[k]) for k in range(3)]
    nodes = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, 3)
    a, b, c = (vertices[faces[:, k]] for k in range(3))
    dist = mesh_distances(nodes, a, b, c) if nearest is None else _given(nearest, nodes)
    d = np.where(inside_by_parity(origin, h, dims, a, b, c).reshape(-1), -dist, dist)
    grad = np.stack(np.gradient(d.reshape(tuple(dims)), h), axis=-1).reshape(-1, 3)
    return Grid(origin, h, dims, d, grad)


def _given(nearest: Callable[[np.ndarray], np.ndarray], nodes: np.ndarray) -> np.ndarray:
    """``nearest(nodes)``, refused unless one finite distance >= 0 for each node."""
    try:
        dist = np.asarray(nearest(nodes), dtype=float)
    except (TypeError, ValueError):
        dist = np.full(1, np.nan)
    if dist.shape != (len(nodes),) or not np.all(dist >= 0.0):       # (NaN fails too)
        raise MechanismError(f"the distance function gave {dist.shape} values for the grid's "
                             f"{len(nodes)} nodes, or some negative or not a number: it must "
                             "give each point's unsigned distance to the surface (m)")
    return dist


@dataclass(frozen=True)
class GridSet:
    """Many grids concatenated for one set of gathers: per grid its origin (g, 3), cell (g,),
    node counts (g, 3) and first node (g,); the distances (N,) and gradients (N, 3), and
    both side by side (N, 4) for the evaluation's one gather of a cell's corners."""
    origin: np.ndarray
    cell: np.ndarray
    dims: np.ndarray
    first: np.ndarray
    distance: np.ndarray
    gradient: np.ndarray
    stride: np.ndarray          # (g, 3) a node's flat step along x, y, z
    corner: np.ndarray          # (g, 8) a cell's eight corners' flat offsets, x-major
    table: np.ndarray           # (4, N) each node's distance and gradient, row by row
    top: np.ndarray             # (g, 3) the last node's index along each axis (float)


_CORNERS = np.array([[i, j, k] for i in (0, 1) for j in (0, 1) for k in (0, 1)])


def grid_set(grids: list[Grid]) -> GridSet:
    sizes = [len(g.distance) for g in grids]
    dims = np.array([g.dims for g in grids])
    stride = np.stack([dims[:, 1] * dims[:, 2], dims[:, 2], np.ones(len(grids), int)], -1)
    distance = np.concatenate([g.distance for g in grids])
    gradient = np.concatenate([g.gradient for g in grids])
    return GridSet(np.array([g.origin for g in grids]), np.array([g.cell for g in grids]),
                   dims, np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(int),
                   distance, gradient, stride, stride @ _CORNERS.T,
                   np.ascontiguousarray(np.vstack([distance, gradient.T])), (dims - 1).astype(float))


def interpolate(table: np.ndarray, flat: np.ndarray, f: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
    """(values (c, ..., n), derivatives (k, ..., n)) of a k-D grid's (k = 2 or 3) node
    ``table`` (c, N) (row 0 the distance) at points whose cells' corners are ``flat``
    (..., n, 2^k) (x-major) and whose place in their cell is f (..., n, k): the corners'
    multilinear interpolation of every row, and the interpolated distance's derivative
    along each axis (per cell).  Component first, so that every product runs over all
    the points at once: each corner's weight is a product of one factor per axis, 1 - f_a
    or f_a (its derivative along a: -1 or +1 in place of that factor)."""
    k = f.shape[-1]
    fT = _axis_first(f)                                          # (k, ..., n)
    T = np.empty((k + 1, k, 2) + fT.shape[1:])                   # row 0 and each d/df_a
    T[:, :, 0] = 1.0 - fT
    T[:, :, 1] = fT
    T[_ROWS[:k], _ROWS[:k] - 1] = _STEP.reshape((2,) + (1,) * (fT.ndim - 1))
    W = T[:, 0, :, None] * T[:, 1, None, :]
    if k == 3:
        W = W[:, :, :, None] * T[:, 2, None, None, :]
    W = W.reshape((k + 1, 2 ** k) + fT.shape[1:])
    corners = table.take(_axis_first(flat), axis=1)              # (c, 2^k, ..., n)
    return np.add.reduce(W[0] * corners, axis=1), np.add.reduce(W[1:] * corners[0], axis=1)


_ROWS = np.arange(1, 4)


def _axis_first(a: np.ndarray) -> np.ndarray:
    """A view of ``a`` with its last axis first."""
    return a.transpose((a.ndim - 1,) + tuple(range(a.ndim - 1)))


def axis_last(a: np.ndarray) -> np.ndarray:
    """A view of ``a`` with its first axis last."""
    return a.transpose(tuple(range(1, a.ndim)) + (0,))
_STEP = np.array([-1.0, 1.0])
_UP = np.array([0.0, 0.0, 1.0])


def grid_distance(x: np.ndarray, which: np.ndarray, gs: GridSet
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(d (..., n), unit gradient (..., n, 3), d's own derivative (..., n, 3)) at points x
    (..., n, 3), point i in grid which[i]'s frame, by trilinear interpolation of the nodes'
    distances and gradients; outside a grid's box, at the box's nearest point plus the
    distance to it.  The interpolated gradient is smooth across cells and gives the force's
    direction; the interpolant's own derivative (not continuous across cells) gives the
    exact rate of d along a motion, for the energy's bookkeeping.  One gather of the cells'
    corners (distance and gradient together) and one weighted sum (``interpolate``)."""
    first, stride = gs.first.take(which), gs.stride.take(which, axis=0)
    return interpolated(x, gs.origin.take(which, axis=0), gs.cell.take(which)[:, None],
                        gs.top.take(which, axis=0), gs.table, gs.corner.take(which, axis=0),
                        lambda i0: first + einsum("...i,...i->...", i0, stride).astype(np.intp),
                        _UP)


def interpolated(x: np.ndarray, origin: np.ndarray, cell: np.ndarray, top: np.ndarray,
                 table: np.ndarray, corner: np.ndarray, base_of, away: np.ndarray):
    """(d (..., n), unit gradient (..., n, k), d's own derivative (..., n, k)) at points x
    (..., n, k) in grids (3-D meshes' or 2-D profiles') of ``origin`` (n, k), ``cell``
    (n, 1), last node index ``top`` (n, k), nodes' distances and gradients side by side in
    ``table``, a cell's corners' offsets ``corner`` and ``base_of(i0)`` the flat index of
    the node at cell indices i0: one gather of the cells' corners and one weighted sum
    (``interpolate``); outside a grid's box, at the box's nearest point plus the distance
    to it; ``away``: the direction where the gradient vanishes."""
    u = (x - origin) / cell
    inside = np.minimum(np.maximum(u, 0.0), top)
    out = (u - inside) * cell
    beyond = np.sqrt(einsum("...i,...i->...", out, out))
    i0 = np.minimum(np.floor(inside), top - 1.0)
    values, slopes = interpolate(table, base_of(i0)[..., None] + corner, inside - i0)
    d = values[0] + beyond
    g = axis_last(values[1:])
    size = np.sqrt(einsum("...i,...i->...", g, g))
    g = np.where(size[..., None] > 0.0, g / np.where(size > 0.0, size, 1.0)[..., None], away)
    # the interpolant's own derivative: none along an axis clamped at the box, plus the
    # way out of the box
    exact = axis_last(slopes) * (u == inside) / cell
    return d, g, exact + out / np.where(beyond > 0.0, beyond, 1.0)[..., None]


SLACK = 1e-6           # cells: a reach box's allowance for the rounding of a point's cell


def reach_box(values: np.ndarray, origin: np.ndarray, cell: float, reach: float
              ) -> tuple[np.ndarray, np.ndarray]:
    """(lo (k,), hi (k,)) in the grid's frame (m): an axis-aligned box outside which the
    interpolated distance of a k-D grid of node ``values`` (nx, ny[, nz]) is at least
    ``reach``, so that a point there cannot touch (empty, lo > hi, where no node comes
    within it).  Inside the grid's box, an interpolated value is a weighted mean of its
    cell's corners: a cell none of whose corners is below ``reach`` (plus the rounding of
    that mean, 1e-9 of the largest value) stays above it, and every cell with such a
    corner lies within one cell of those corners' index range.  Outside, the value is the
    nearest face's plus the way out, so the box reaches beyond a face only where that
    range does, by ``reach`` less the faces' least value."""
    k = values.ndim
    top = np.array(values.shape) - 1
    below = reach + 1e-9 * float(np.abs(values).max())
    near = np.argwhere(values < below)
    if not len(near):
        return np.full(k, np.inf), np.full(k, -np.inf)
    first, last = near.min(axis=0), near.max(axis=0)
    faces = min(float(np.take(values, [0, -1], axis=a).min()) for a in range(k))
    out = max(0.0, below - faces) / cell + SLACK
    lo = np.where(first >= 2, first - 1 - SLACK, -out)
    hi = np.where(last <= top - 2, last + 1 + SLACK, top + out)
    return origin + lo * cell, origin + hi * cell


def reach_cells(values: np.ndarray, reach: float) -> np.ndarray:
    """(nx, ny[, nz]) bool: the cells (by their lowest corner's node) where a point may be
    nearer than ``reach`` by the interpolation of a k-D grid of node ``values``: those with
    a corner below ``reach`` (plus the rounding of the interpolation's weighted mean, as
    ``reach_box``), widened by one node each way (a point's cell as the reach test rounds
    it may be its neighbour).  A point outside the grid's box takes its nearest cell on
    the box, where the value only grows on the way out."""
    below = values < reach + 1e-9 * float(np.abs(values).max())
    for axis in range(values.ndim):              # each cell's nodes from i - 1 to i + 2
        n = below.shape[axis]
        pad = np.take(below, np.clip(np.arange(-1, n + 2), 0, n - 1), axis=axis)
        below = np.logical_or.reduce([np.take(pad, np.arange(k, k + n), axis=axis)
                                      for k in range(4)])
    return below
