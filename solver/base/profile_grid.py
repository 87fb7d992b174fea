"""An extruded planar profile's signed distance: a 2-D grid of the profile's distance built
once in numpy, its bilinear interpolation at many points (one set of gathers for all
profiles), combined with the extrusion's z extent; and the profile's surface samples.

A profile is one or more closed polygons in its shape frame's xy plane (an outer boundary
and its holes, either orientation: inside is decided by the even-odd rule), extruded over
z in [-h, h].  Its 3-D signed distance is a box's in (d2, |z|), d2 the 2-D signed distance
(the cylinder's rule with d2 in place of rho - R: exact where the 2-D distance is exact).

Build (``build_profile_grid``): the nodes of a regular grid around the profile, each
node's exact distance to the nearest edge (point to segment, Ericson 2005, "Real-Time
Collision Detection", 5.1.2), signed by the parity of the edges a line along x crosses
before the node, its gradient the unit vector from the nearest edge point.  A grid too
coarse for the profile's features shows as an error at the edges' midpoints, where the
exact distance is zero (``edge_error``); ``fine_enough`` refines or refuses by it.

Evaluation (``profile_distance``): the points' cell, four corner values by flat gathers,
bilinear weights; outside the grid's box, at the box's nearest point plus the distance to
it, as the 3-D grid does (sdf_grid.py).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .elementary import arctan2
from .errors import MechanismError, shown
from .sdf_grid import candidate_pairs, interpolated

CELLS = 128            # cells along the profile's largest extent to start from
PAD = 3                # cells of margin around the profile
TOLERANCE = 1e-3       # the grid's largest error at the edges, a share of the profile's size
MAX_NODES = 4_000_000  # the finest grid a profile may build


@dataclass(frozen=True)
class ProfileGrid:
    """One profile's distance grid in its shape frame: origin (2,), cell size (m), node
    counts (2,), half thickness h (m), distances (nx ny,) and unit gradients (nx ny, 2),
    x-major."""
    origin: np.ndarray
    cell: float
    dims: np.ndarray
    half: float
    distance: np.ndarray
    gradient: np.ndarray


def closed_loops(loops, what: str) -> list[np.ndarray]:
    """The profile's polygons as (k, 2) float arrays, each with at least 3 distinct
    vertices, a repeated closing vertex dropped; MechanismError naming ``what`` otherwise."""
    try:
        whole = np.asarray(loops, dtype=float)
        single = whole.ndim == 2
    except (TypeError, ValueError):
        single = False
    try:
        polys = [np.asarray(loops, dtype=float)] if single else [
            np.asarray(p, dtype=float) for p in loops]
    except (TypeError, ValueError):
        polys = [None]
    if not polys or any(p is None or p.ndim != 2 or p.shape[1] != 2 for p in polys):
        raise MechanismError(f"{what}: a profile is one polygon (k, 2) or a list of them "
                             "(x, y in the shape frame, m)")
    out = []
    for i, p in enumerate(polys):
        if not np.all(np.isfinite(p)):
            raise MechanismError(f"{what}: polygon {i} has a NaN or infinite vertex")
        step = np.linalg.norm(np.roll(p, -1, axis=0) - p, axis=1)
        p = p[step > 0.0]
        area = 0.5 * np.sum(p[:, 0] * np.roll(p[:, 1], -1) - np.roll(p[:, 0], -1) * p[:, 1])
        if len(p) < 3 or abs(area) <= 1e-12 * np.ptp(p, axis=0).max() ** 2:
            raise MechanismError(f"{what}: polygon {i} encloses no area (it needs at least "
                                 "3 distinct vertices not on one line)")
        out.append(p)
    return out


def edges(loops: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(a (s, 2), b (s, 2)): every polygon's edges, each from a vertex to the next."""
    a = np.concatenate(loops)
    b = np.concatenate([np.roll(p, -1, axis=0) for p in loops])
    return a, b


def nearest_on_segments(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(..., 2) the point of segment (a, b) nearest p, broadcast (Ericson 2005, 5.1.2:
    the projection's parameter clamped to [0, 1])."""
    ab = b - a
    t = np.einsum("...i,...i->...", p - a, ab) / np.einsum("...i,...i->...", ab, ab)
    return a + np.clip(t, 0.0, 1.0)[..., None] * ab


def nearest_points(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(k, 2) each point's nearest point on the nearest of the segments (a, b): exact
    distances to the candidates only, the segments whose bounding circle about their
    midpoint comes nearer than the nearest midpoint (an upper bound: it lies on its
    segment); points in chunks (sdf_grid.candidate_pairs; build time)."""
    mid = 0.5 * (a + b)
    reach = 0.5 * np.linalg.norm(b - a, axis=1)
    out = np.empty(p.shape)
    for rows, q, i, j in candidate_pairs(p, mid, reach):
        near = nearest_on_segments(q[i], a[j], b[j])
        dist = np.linalg.norm(q[i] - near, axis=1)
        order = np.lexsort((dist, i))                    # per point, its nearest first
        first = order[np.r_[True, i[order][1:] != i[order][:-1]]]
        out[rows][i[first]] = near[first]
    return out


def inside_by_parity(origin: np.ndarray, h: float, dims: np.ndarray, a: np.ndarray,
                     b: np.ndarray) -> np.ndarray:
    """(nx, ny) bool: the nodes inside the profile by the even-odd rule, counting the
    edges a line along x crosses before each node.  The lines are moved off the grid by a
    few millionths of a cell, so that they pass through no vertex on a grid line."""
    y = origin[1] + h * (np.arange(dims[1]) + 1.4142135e-6)
    lo, hi = np.minimum(a[:, 1], b[:, 1]), np.maximum(a[:, 1], b[:, 1])
    line, seg = np.nonzero((y[:, None] >= lo) & (y[:, None] < hi))
    t = (y[line] - a[seg, 1]) / (b[seg, 1] - a[seg, 1])
    x = a[seg, 0] + t * (b[seg, 0] - a[seg, 0])
    first = np.clip(np.ceil((x - origin[0]) / h), 0, dims[0]).astype(int)
    crossings = np.zeros((dims[1], dims[0] + 1))
    np.add.at(crossings, (line, first), 1.0)
    return (np.cumsum(crossings[:, :-1], axis=1) % 2 == 1).T


def build_profile_grid(loops: list[np.ndarray], half: float, cell: float) -> ProfileGrid:
    """The signed-distance grid of a profile (``closed_loops``) with cells of ``cell`` m
    and PAD cells of margin, extruded over z in [-half, half]."""
    pts = np.concatenate(loops)
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    origin = lo - PAD * cell
    dims = np.ceil((hi - lo) / cell).astype(int) + 2 * PAD + 1
    axes = [origin[k] + cell * np.arange(dims[k]) for k in range(2)]
    nodes = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, 2)
    a, b = edges(loops)
    away = nodes - nearest_points(nodes, a, b)
    dist = np.linalg.norm(away, axis=1)
    sign = np.where(inside_by_parity(origin, cell, dims, a, b).reshape(-1), -1.0, 1.0)
    d = sign * dist
    numeric = np.stack(np.gradient(d.reshape(tuple(dims)), cell), axis=-1).reshape(-1, 2)
    exact = sign[:, None] * away / np.where(dist > 0.0, dist, 1.0)[:, None]
    grad = np.where((dist > 0.0)[:, None], exact, numeric)
    return ProfileGrid(origin, float(cell), dims, float(half), d, grad)


SHARP = 0.35           # rad: a vertex turning more than this is a corner the grid rounds


def sharp_corners(loops: list[np.ndarray]) -> np.ndarray:
    """(c, 2) the vertices where the boundary turns by more than SHARP."""
    out = []
    for p in loops:
        e_in, e_out = p - np.roll(p, 1, axis=0), np.roll(p, -1, axis=0) - p
        turn = arctan2(np.cross(e_in, e_out), np.einsum("ij,ij->i", e_in, e_out))
        out.append(p[np.abs(turn) > SHARP])
    return np.concatenate(out)


def edge_error(grid: ProfileGrid, loops: list[np.ndarray]) -> tuple[float, np.ndarray]:
    """(the largest |distance| the grid gives at its edges' midpoints, where it is zero;
    that midpoint (2,)): about cell^2 / (8 radius) on a curve, more where a feature (a
    slot, a tooth) is thinner than a few cells.  Midpoints within two cells of a sharp
    corner are left out: a grid rounds a corner by a fraction of a cell however fine."""
    a, b = edges(loops)
    mid = 0.5 * (a + b)
    corners = sharp_corners(loops)
    if len(corners):
        near = np.linalg.norm(mid[:, None] - corners[None], axis=-1).min(axis=1)
        mid = mid[near > 2.0 * grid.cell] if np.any(near > 2.0 * grid.cell) else mid
    ps = profile_set([grid])
    x = np.column_stack([mid, np.zeros(len(mid))])
    d = profile_distance(x, np.zeros(len(mid), int), ps)[0]
    k = int(np.argmax(np.abs(d)))
    return float(abs(d[k])), mid[k]


def fine_enough(loops: list[np.ndarray], half: float, cell: float | None,
                what: str) -> ProfileGrid:
    """The profile's grid: with ``cell`` given, that grid if its edge error is within
    TOLERANCE of the profile's size, else a MechanismError naming ``what``, the error,
    where, and the cell that would do; without, from CELLS cells along its largest extent,
    refined (the error falls as the cell squared) until it is within."""
    pts = np.concatenate(loops)
    size = float(np.ptp(pts, axis=0).max())
    allowed = TOLERANCE * size
    h = size / CELLS if cell is None else float(cell)
    for _ in range(6):
        nodes = np.prod(np.ceil(np.ptp(pts, axis=0) / h) + 2 * PAD + 1)
        if nodes > MAX_NODES:
            raise MechanismError(f"{what}: a profile grid of cell {h:.3g} m needs {nodes:.3g} "
                                 f"nodes (at most {MAX_NODES:.0e}): the profile has features "
                                 f"too fine for its size {size:.3g} m; simplify it")
        grid = build_profile_grid(loops, half, h)
        err, at = edge_error(grid, loops)
        if err <= allowed:
            return grid
        better = 0.8 * h * min(np.sqrt(allowed / err), 0.7)
        if cell is not None:
            raise MechanismError(f"{what}: the profile's grid of cell {h:.3g} m is off by "
                                 f"{err:.3g} m at its edge near {shown(at)} (a feature "
                                 f"thinner than a few cells; at most {allowed:.3g} m, a "
                                 f"thousandth of its size); a cell of {better:.3g} m would do")
        h = better
    raise MechanismError(f"{what}: no profile grid down to a cell of {h:.3g} m meets its "
                         f"edges within {allowed:.3g} m (near {shown(at)}); simplify it")


def boundary_samples(loops: list[np.ndarray], half: float, spacing: float,
                     levels: int) -> tuple[np.ndarray, np.ndarray]:
    """(points (k, 3), weights (k,) summing to 1): every vertex (corners and slot ends
    are sampled) and points along each edge no farther apart than ``spacing`` (m), at
    ``levels`` heights z = h ((2 i + 1) / levels - 1), the middles of equal slabs, each
    weighted by the boundary length it stands for."""
    a, b = edges(loops)
    length = np.linalg.norm(b - a, axis=1)
    count = np.maximum(np.ceil(length / spacing), 1).astype(int)
    seg = np.repeat(np.arange(len(a)), count)
    start = np.cumsum(count) - count
    t = (np.arange(count.sum()) - start[seg]) / count[seg]
    xy = a[seg] + t[:, None] * (b[seg] - a[seg])
    piece = length[seg] / count[seg]                       # the piece after each point
    # each point stands for half the piece before it and half the piece after it
    loop_of = np.repeat(np.arange(len(loops)), [len(p) for p in loops])[seg]
    first = np.r_[True, loop_of[1:] != loop_of[:-1]]
    last = np.r_[loop_of[1:] != loop_of[:-1], True]
    before = np.roll(piece, 1)
    before[first] = piece[last]
    w = 0.5 * (piece + before)
    z = half * ((2.0 * np.arange(levels) + 1.0) / levels - 1.0)
    pts = np.concatenate([np.column_stack([xy, np.full(len(xy), zk)]) for zk in z])
    weights = np.tile(w, levels)
    return pts, weights / weights.sum()


@dataclass(frozen=True)
class ProfileSet:
    """Many profile grids concatenated for one set of gathers: per grid its origin (g, 2),
    cell (g,), node counts (g, 2), first node (g,), half thickness (g,); the distances
    (N,) and unit gradients (N, 2), and both side by side (N, 3) for the evaluation's one
    gather of a cell's corners."""
    origin: np.ndarray
    cell: np.ndarray
    dims: np.ndarray
    first: np.ndarray
    half: np.ndarray
    distance: np.ndarray
    gradient: np.ndarray
    stride: np.ndarray          # (g, 2) a node's flat step along x, y
    corner: np.ndarray          # (g, 4) a cell's four corners' flat offsets, x-major
    table: np.ndarray           # (3, N) each node's distance and gradient, row by row
    top: np.ndarray             # (g, 2) the last node's index along each axis (float)


_CORNERS = np.array([[i, j] for i in (0, 1) for j in (0, 1)])


def profile_set(grids: list[ProfileGrid]) -> ProfileSet:
    sizes = [len(g.distance) for g in grids]
    dims = np.array([g.dims for g in grids])
    stride = np.stack([dims[:, 1], np.ones(len(grids), int)], -1)
    distance = np.concatenate([g.distance for g in grids])
    gradient = np.concatenate([g.gradient for g in grids])
    return ProfileSet(np.array([g.origin for g in grids]), np.array([g.cell for g in grids]),
                      dims, np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(int),
                      np.array([g.half for g in grids]), distance, gradient, stride,
                      stride @ _CORNERS.T, np.ascontiguousarray(np.vstack([distance, gradient.T])),
                      (dims - 1).astype(float))


_RIGHT = np.array([1.0, 0.0])


def planar_distance(x: np.ndarray, which: np.ndarray, ps: ProfileSet
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(d2 (..., n), unit gradient (..., n, 2), d2's own derivative (..., n, 2)) at points
    x (..., n, 2), point i in profile which[i]'s frame, by bilinear interpolation of the
    nodes' distances and gradients (one gather of the cells' corners, one weighted sum,
    sdf_grid.interpolated); outside a grid's box, at its nearest point
    plus the distance to it."""
    first, rows = ps.first.take(which), ps.stride[:, 0].take(which)
    return interpolated(x, ps.origin.take(which, axis=0), ps.cell.take(which)[:, None],
                        ps.top.take(which, axis=0), ps.table, ps.corner.take(which, axis=0),
                        lambda i0: first + (i0[..., 0] * rows + i0[..., 1]).astype(np.intp),
                        _RIGHT)


def profile_distance(x: np.ndarray, which: np.ndarray, ps: ProfileSet
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(d (..., n), unit gradient (..., n, 3), d's own derivative (..., n, 3)) of the
    extruded profiles at points x (..., n, 3): a box's distance in (d2, |z| - h) (outside
    both: their norm; else the larger), d2 and its gradients from ``planar_distance``.
    Each gradient is the planar one times w_p, and w_z along z: outside, the shares
    (d2, |z| - h)^+ / d; inside, the larger one's 1 and the other's 0."""
    d2, g2, e2 = planar_distance(x[..., :2], which, ps)
    qz = np.abs(x[..., 2]) - ps.half[which]
    p2, pz = np.maximum(d2, 0.0), np.maximum(qz, 0.0)
    out = np.sqrt(p2 * p2 + pz * pz)
    d = out + np.minimum(np.maximum(d2, qz), 0.0)
    apart = out > 0.0
    safe = np.where(apart, out, 1.0)
    wp = np.where(apart, p2 / safe, d2 >= qz)
    wz = np.where(apart, pz / safe, d2 < qz) * np.where(x[..., 2] < 0.0, -1.0, 1.0)
    return (d, np.concatenate([g2 * wp[..., None], wz[..., None]], axis=-1),
            np.concatenate([e2 * wp[..., None], wz[..., None]], axis=-1))
