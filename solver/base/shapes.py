"""Analytic signed-distance functions of contact primitives, each in its own shape frame,
evaluated over many points at once (one call per kind, leading axes carried through).

Every function takes points x (..., n, 3) in the shape frame and the shapes' parameters
(n, 3) (one row per point: the points of many shapes of one kind are evaluated together)
and returns (d (..., n), g (..., n, 3)): the signed distance (m; negative inside the solid)
and its unit gradient, the outward normal of the nearest surface point.  Conventions:

- sphere: centre at the origin, parameters (R, 0, 0);
- box: centred, edges along the axes, parameters (half sizes hx, hy, hz);
- capsule: a segment from (0, 0, -h) to (0, 0, h) swept by a sphere, parameters (R, h, 0);
- cylinder: axis z, from z = -h to h, parameters (R, h, 0);
- half-space: the solid z <= 0 (its surface the plane z = 0, the normal +z);
- cavity: the solid around a spherical hole of radius R at the origin (a bowl's inside),
  parameters (R, 0, 0).

The box's and cylinder's distances are exact outside and inside (Quilez's formulas: the
distance to the nearest face inside, to the nearest point of the surface outside).

They run in a right-hand side, on a few points: numpy's C functions and ufunc reductions,
not its Python-level wrappers (np.einsum's dispatch, np.clip, np.stack, ndarray.max, ...:
each about a microsecond, more than the arithmetic; tests/test_rhs_cost.py).
"""
from __future__ import annotations

import numpy as np

from .einsum import einsum

_UP = np.array([0.0, 0.0, 1.0])
_EYES = {k: np.eye(k) for k in (2, 3)}     # a face's normal by its axis (``_box_like``)
_RADIAL = np.array([1.0, 0.0])              # a cylinder's radial direction on its axis


def _unit(v: np.ndarray, fallback: np.ndarray = _UP) -> tuple[np.ndarray, np.ndarray]:
    """(|v| (..., n), v / |v| (..., n, 3)), ``fallback`` where v vanishes (a point on a
    sphere's centre or a capsule's axis: any direction is as near)."""
    size = np.sqrt(einsum("...i,...i->...", v, v))
    safe = np.where(size > 0.0, size, 1.0)[..., None]
    return size, np.where(size[..., None] > 0.0, v / safe, fallback)


def sphere_distance(x: np.ndarray, params: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """|x| - R and x / |x|."""
    size, g = _unit(x)
    return size - params[:, 0], g


def capsule_distance(x: np.ndarray, params: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distance to the segment z in [-h, h] on the axis, less R."""
    h = params[:, 1]
    near = np.zeros(x.shape)
    near[..., 2] = np.minimum(np.maximum(x[..., 2], -h), h)
    size, g = _unit(x - near)
    return size - params[:, 0], g


def _box_like(q: np.ndarray, signs: np.ndarray, behind: np.ndarray | None = None
              ) -> tuple[np.ndarray, np.ndarray]:
    """A box's distance from q = |x| - half sizes (..., n, k) per axis: outside, the norm
    of q's positive part; inside, its largest (negative) entry.  Gradient (..., n, k) with
    the point's signs.  ``behind`` (..., n, k): the faces a point may not be measured
    from, where another face is left (``flush_faces``)."""
    if behind is not None:
        q = np.where(behind & ~np.logical_and.reduce(behind, axis=-1, keepdims=True),
                     -np.inf, q)
    pos = np.maximum(q, 0.0)
    out_size = np.sqrt(einsum("...i,...i->...", pos, pos))
    inside = np.minimum(np.maximum.reduce(q, axis=-1), 0.0)
    face = _EYES[q.shape[-1]][q.argmax(axis=-1)]
    outward = pos / np.where(out_size > 0.0, out_size, 1.0)[..., None]
    g = np.where((out_size > 0.0)[..., None], outward, face) * signs
    return out_size + inside, g


FLUSH = 1e-5     # a point outside a box's (cylinder's) face plane by less than this times
                 # its size lies in it (parts designed flush, read from float32)


def flush_faces(q: np.ndarray, qh: np.ndarray, size: np.ndarray) -> np.ndarray:
    """(..., n, k) the faces a point is not measured from: those its own shape's centre
    is not beyond (qh <= 0, qh the centre's q on the point's side), where the point is
    inside their plane or in it (q < FLUSH size).  A point inside a box is measured from
    the faces it can have come through, not from the nearest: the corner of a box resting
    on an equal box lies in that box's side planes, at depth 0 from them however deep it
    sinks through the top face, and one moved in from the edge is nearer the side than
    the top once it is inside by less than its depth.  Where every face is left out (the
    centre inside the box), every face counts; a point that is its own centre (a
    sphere's or capsule's, whose distance is exact) is measured as without one."""
    return (qh <= 0.0) & (q < FLUSH * size[:, None])


def box_distance(x: np.ndarray, params: np.ndarray, home: np.ndarray | None = None
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Exact signed distance of the box with half sizes params; ``home`` (..., n, 3): each
    point's own shape's centre: a point inside is measured from the faces that centre is
    beyond (``flush_faces``)."""
    signs = np.where(x < 0.0, -1.0, 1.0)
    q = np.abs(x) - params
    behind = None if home is None else flush_faces(q, home * signs - params,
                                                   np.maximum.reduce(params, axis=-1))
    return _box_like(q, signs, behind)


def cylinder_distance(x: np.ndarray, params: np.ndarray, home: np.ndarray | None = None
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Exact signed distance of the cylinder: a box in (radial distance, |z|); ``home`` as
    the box's."""
    rho, radial = _unit(x[..., :2], _RADIAL)
    q = np.empty(rho.shape + (2,))
    q[..., 0], q[..., 1] = rho - params[:, 0], np.abs(x[..., 2]) - params[:, 1]
    signs = np.empty(q.shape)
    signs[..., 0], signs[..., 1] = 1.0, np.where(x[..., 2] < 0.0, -1.0, 1.0)
    behind = None
    if home is not None:
        qh = np.empty(q.shape)
        qh[..., 0] = np.sqrt(einsum("...i,...i->...", home[..., :2], home[..., :2])) - params[:, 0]
        qh[..., 1] = home[..., 2] * signs[..., 1] - params[:, 1]
        behind = flush_faces(q, qh, np.maximum.reduce(params[:, :2], axis=-1))
    d, g2 = _box_like(q, signs, behind)
    g = np.concatenate([g2[..., :1] * radial, g2[..., 1:]], axis=-1)
    return d, g


def half_space_distance(x: np.ndarray, params: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """z, and +z."""
    g = np.zeros(x.shape)
    g[..., 2] = 1.0
    return x[..., 2].copy(), g


def cavity_distance(x: np.ndarray, params: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """R - |x| and -x / |x|: a sphere's distance turned inside out."""
    size, g = _unit(x, -_UP)
    return params[:, 0] - size, -g


# kind -> its distance function (the kinds' order: the model groups contact points by it)
PRIMITIVES = {"sphere": sphere_distance, "capsule": capsule_distance, "box": box_distance,
              "cylinder": cylinder_distance, "half-space": half_space_distance,
              "cavity": cavity_distance}


def box_corners(half: np.ndarray) -> np.ndarray:
    """(8, 3) the corners of a box with half sizes ``half``."""
    signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], float)
    return signs * half


_BOX_QUADS = ((0, 2, 6, 4), (1, 5, 7, 3), (0, 4, 5, 1), (2, 3, 7, 6), (0, 1, 3, 2), (4, 6, 7, 5))


def box_mesh(half: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(corners (8, 3), triangles (12, 3)) of a box with half sizes ``half``, wound
    counter-clockwise seen from outside (corner 4 ix + 2 iy + iz at signs -1, +1)."""
    faces = np.array([t for a, b, c, d in _BOX_QUADS for t in ((a, b, c), (a, c, d))])
    return box_corners(half), faces


def cylinder_rims(radius: float, half: float, count: int) -> np.ndarray:
    """(2 count, 3) points evenly spaced on the cylinder's two rim circles."""
    a = 2.0 * np.pi * np.arange(count) / count
    ring = np.stack([radius * np.cos(a), radius * np.sin(a), np.zeros(count)], axis=-1)
    return np.concatenate([ring - [0.0, 0.0, half], ring + [0.0, 0.0, half]])


def primitive_reach(kind: str, params: np.ndarray, reach: float
                    ) -> tuple[np.ndarray, np.ndarray, float]:
    """(lo (3,), hi (3,), inner radius) in the shape frame (m): the box outside which, and
    the ball about the origin inside which, a point's distance from the primitive is more
    than ``reach`` (a cavity's inner ball; 0 for the rest).  Each side is the shape's
    extent plus ``reach`` plus 1e-9 of that extent, more than the distances' rounding."""
    R, h = float(params[0]), float(params[1])
    size = float(np.abs(params).sum()) + reach
    far = reach + 1e-9 * size
    inf = np.full(3, np.inf)
    half = {"sphere": lambda: np.full(3, R),
            "capsule": lambda: np.array([R, R, R + h]),
            "box": lambda: np.asarray(params, dtype=float),
            "cylinder": lambda: np.array([R, R, h]),
            "half-space": lambda: inf, "cavity": lambda: inf}[kind]() + far
    lo = -half
    if kind == "half-space":           # the solid z <= 0: only z is bounded, from above
        half = np.array([np.inf, np.inf, far])
    inner = max(R - far, 0.0) if kind == "cavity" else 0.0
    return lo, half, inner
