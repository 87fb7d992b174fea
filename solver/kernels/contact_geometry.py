"""Where the contact points (model/contact_model.py) are against the other side's signed
distance: each side's frames, the points in the distance's shape frame, which of them can
touch (their reach), and the distances themselves, in a fixed set of numpy calls with any
leading axes of the state (kernels/contacts.py turns them into forces).

A contact has one or two sides (one way round each): the points of a shape on one body
(sb) against the distance of the other shape on the other (fb).  Per side, the map from
sb's frame to the shape frame of fb's shape, x = R p + t with R = M^T A_s and
t = M^T (r_s - o) (M = A_f R_f the shape's axes in world, o = r_f + A_f t_f its origin),
is one 3x3 product; each point then takes its side's map.  A point outside its reach (a
box about the other shape, and for a cavity a ball inside it: ``reach_lo``, ``reach_hi``,
``reach_inner``, built with the plan so that every point outside has a positive gap) is
culled: its distance is not looked up and it carries no force.

Geometry per point: the distance d(x) and its unit gradient g in the shape frame
(base/shapes.py, base/sdf_grid.py, base/profile_grid.py); the gap d - rho (rho the
point's radius: a sphere's contact with any shape is exact), the normal g (out of the
distance's side, toward the point) and the contact point C = x - (rho + d)/2 g, midway
between the two surfaces; on a grid, also d's own derivative (``slope``).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..base.einsum import einsum
from ..base.profile_grid import profile_distance
from ..base.sdf_grid import grid_distance
from ..base.shapes import PRIMITIVES
from ..model.contact_model import FIXED, FLUSH_KINDS, ContactPlan
from .segment_search import axis_vectors, slide

# kind -> (its grid's distance function, the plan's field holding the grids)
_GRIDS = {"mesh": (grid_distance, "grids"), "profile": (profile_distance, "profiles")}


def _dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return einsum("...i,...i->...", a, b)


class Sides(NamedTuple):
    """Each side's frames at one state (..., ns, ...), world axes (m)."""
    M: np.ndarray            # (..., ns, 3, 3) the distance's shape axes (columns)
    o: np.ndarray            # (..., ns, 3) the distance's shape origin
    R: np.ndarray            # (..., ns, 3, 3) sb's frame into the shape frame
    t: np.ndarray            # (..., ns, 3) sb's centre of mass in the shape frame
    arm: np.ndarray          # (..., ns, 2, 3) o less sb's and fb's centres of mass


def side_frames(cp: ContactPlan, r: np.ndarray, A: np.ndarray) -> Sides:
    """Every side's frames at COM positions r (..., nb+1, 3) and rotation matrices A
    (..., nb+1, 3, 3) (ground last)."""
    ends = A.take(cp.side_ends, axis=-3)                        # (..., ns, 2, 3, 3)
    at = r.take(cp.side_ends, axis=-2)                          # (..., ns, 2, 3)
    Af = ends[..., 1, :, :]
    M = Af @ cp.side_frame
    o = at[..., 1, :] + (Af @ cp.side_origin[..., None])[..., 0]
    MT = M.swapaxes(-1, -2)
    R = MT @ ends[..., 0, :, :]
    t = (MT @ (at[..., 0, :] - o)[..., None])[..., 0]
    return Sides(M, o, R, t, o[..., None, :] - at)


def shape_points(cp: ContactPlan, sides: Sides, idx: np.ndarray | None = None) -> np.ndarray:
    """(..., np, 3) every point's centre in its distance's shape frame (``idx`` (k,):
    those points', (..., k, 3))."""
    if idx is None:
        return (einsum("...nij,nj->...ni", sides.R.take(cp.side, axis=-3), cp.point)
                + sides.t.take(cp.side, axis=-2))
    side = cp.side.take(idx)
    return (einsum("...nij,nj->...ni", sides.R.take(side, axis=-3), cp.point.take(idx, axis=0))
            + sides.t.take(side, axis=-2))


def candidates(cp: ContactPlan, sides: Sides) -> np.ndarray | None:
    """(k,) ascending: the points whose cluster's ball (model/contact_clusters.py) meets
    its side's reach box in some state, a superset of those within reach (``in_reach``),
    or None (every point) for a plan without clusters.  The ball is widened by 1e-9 of its
    centre's coordinates and radius: the points' own coordinates in the shape frame round
    by about 1e-16 of their size."""
    cl = cp.clusters
    if cl is None:
        return None
    X = (einsum("...kij,kj->...ki", sides.R.take(cl.side, axis=-3), cl.centre)
         + sides.t.take(cl.side, axis=-2))
    pad = cl.radius[:, None] + 1e-9 * (np.abs(X) + cl.radius[:, None])
    meets = np.logical_and.reduce((X + pad >= cl.lo) & (X - pad <= cl.hi), axis=-1)
    return np.logical_or.reduce(meets.reshape(-1, len(cl.side)), axis=0).take(
        cl.of_point).nonzero()[0]


def shape_homes(cp: ContactPlan, sides: Sides) -> np.ndarray:
    """(..., np, 3) the centre of every point's own shape in its distance's shape frame
    (a box's or cylinder's distance measures a point lying in one of its face planes from
    the face it came through: base/shapes.py ``flush_faces``)."""
    return (einsum("...nij,nj->...ni", sides.R.take(cp.side, axis=-3), cp.home)
            + sides.t.take(cp.side, axis=-2))


def in_reach(cp: ContactPlan, x: np.ndarray, e: np.ndarray | None = None,
             idx: np.ndarray | None = None) -> np.ndarray:
    """(np,) the points within their reach in any of the states x (..., np, 3): those that
    may touch; every other point's gap is positive (model/contact_model.py ``_reach``).
    ``e`` (..., np, 3): the moving points' axes (segment_search.axis_vectors): such a point
    is within reach where its axis' bounding box meets the reach box.  ``idx`` (k,): x and
    e are those points' (..., k, 3), and so is the answer (k,)."""
    def of(a: np.ndarray) -> np.ndarray:
        return a if idx is None else a.take(idx, axis=0)
    if e is None:
        inside = np.logical_and.reduce((x >= of(cp.reach_lo)) & (x <= of(cp.reach_hi)),
                                       axis=-1)
    else:
        tip = x + e
        inside = np.logical_and.reduce((np.maximum(x, tip) >= of(cp.reach_lo))
                                       & (np.minimum(x, tip) <= of(cp.reach_hi)), axis=-1)
    if cp.any_inner:                      # cavities: not within their inner ball
        inner = of(cp.reach_inner)
        inside &= _dot(x, x) >= inner * inner
    if len(cp.cells) > 1:                         # grids: in a cell within reach
        u = np.maximum((x - of(cp.cell_origin)) * of(cp.cell_scale), 0.0)
        cell = np.minimum(np.floor(u), of(cp.cell_last)).astype(np.intp)
        near_cell = cp.cells.take(of(cp.cell_first) + _dot(cell, of(cp.cell_stride)))
        inside &= near_cell if e is None else near_cell | (of(cp.role) != FIXED)
    return np.logical_or.reduce(inside.reshape(-1, x.shape[-2]), axis=0)


def placed(cp: ContactPlan, x: np.ndarray, e: np.ndarray | None, idx: np.ndarray
           ) -> np.ndarray:
    """(..., k, 3) the points ``idx`` (ascending) at x (..., np, 3), a capsule's moving
    points placed on their axes e (segment_search.slide)."""
    return placed_at(cp, x.take(idx, axis=-2), None if e is None else e.take(idx, axis=-2),
                     idx)


def placed_at(cp: ContactPlan, x: np.ndarray, e: np.ndarray | None, idx: np.ndarray
              ) -> np.ndarray:
    """``placed`` for x, e (..., k, 3) already the points ``idx``'s."""
    if e is None:
        return x
    return slide(cp, x, e, idx, local_distances)


def local_distances(cp: ContactPlan, x: np.ndarray, idx: np.ndarray,
                    home: np.ndarray | None = None
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(d (..., k), unit gradient g (..., k, 3), d's own gradient (..., k, 3)) of the points
    ``idx`` (k,) (ascending) at x (..., k, 3) in their shape frames: one distance call per
    kind of shape (the plan's groups), each over its points among ``idx``; ``home``
    (..., k, 3) their own shapes' centres there (``shape_homes``), for a box's or
    cylinder's distance."""
    d = np.empty(x.shape[:-1])
    g = np.empty(x.shape)
    slope = np.empty(x.shape)
    cuts = idx.searchsorted(cp.group_starts).tolist()
    for (kind, at, spec), a, b in zip(cp.groups, cuts[:-1], cuts[1:]):
        if a == b:                                      # none of this kind's points
            continue
        which = spec.take(idx[a:b] - at.start, axis=0)
        if kind in _GRIDS:
            grid_of, table = _GRIDS[kind]
            d[..., a:b], g[..., a:b, :], slope[..., a:b, :] = grid_of(
                x[..., a:b, :], which, getattr(cp, table))
        elif kind in FLUSH_KINDS and home is not None:       # (a rounded side's: itself)
            own = np.where(cp.homed[idx[a:b], None], home[..., a:b, :], x[..., a:b, :])
            d[..., a:b], g[..., a:b, :] = PRIMITIVES[kind](x[..., a:b, :], which, own)
            slope[..., a:b, :] = g[..., a:b, :]
        else:
            d[..., a:b], g[..., a:b, :] = PRIMITIVES[kind](x[..., a:b, :], which)
            slope[..., a:b, :] = g[..., a:b, :]
    return d, g, slope


class Geometry(NamedTuple):
    """The contact points' geometry at one state (..., np), world axes."""
    P: np.ndarray        # (..., np, 3) the points' centres
    d: np.ndarray        # (..., np) their signed distance from the other side
    gap: np.ndarray      # (..., np) d - radius
    n: np.ndarray        # (..., np, 3) unit normal toward the point
    C: np.ndarray        # (..., np, 3) contact point
    slope: np.ndarray    # (..., np, 3) d's own gradient (n, but on a mesh's grid)


def pair_bounds(cp: ContactPlan, r: np.ndarray, A: np.ndarray) -> np.ndarray:
    """(..., nct) each contact's bounding spheres' gap: the distance of their centres less
    their radii, a lower bound of every gap of its points (-inf with a half-space)."""
    c = r[..., cp.bound_body, :] + (A[..., cp.bound_body, :, :] @ cp.bound_centre[..., None])[..., 0]
    apart = c[..., 1, :] - c[..., 0, :]
    return np.sqrt(_dot(apart, apart)) - np.add.reduce(cp.bound_radius, axis=-1)


def geometry(cp: ContactPlan, r: np.ndarray, A: np.ndarray, cull: bool = True) -> Geometry:
    """Every contact point's gap and normal at COM positions r (..., nb+1, 3) and rotation
    matrices A (..., nb+1, 3, 3) (ground last).  ``cull``: the distances of the points of
    pairs whose bounding spheres are apart in every state are not evaluated; their gap is
    the spheres' (a lower bound, positive), their normal +z."""
    sides = side_frames(cp, r, A)
    x = shape_points(cp, sides)
    bound = pair_bounds(cp, r, A)[..., cp.contact] if cull else np.full(x.shape[:-1], -np.inf)
    idx = np.flatnonzero((bound <= 0.0).reshape(-1, cp.n).any(axis=0))
    x[..., idx, :] = placed(cp, x, axis_vectors(cp, sides.R), idx)
    d = np.maximum(bound, 0.0) + cp.radius
    g = np.zeros(x.shape)
    g[..., 2] = 1.0
    slope = g.copy()
    home = shape_homes(cp, sides).take(idx, axis=-2)
    d[..., idx], g[..., idx, :], slope[..., idx, :] = local_distances(cp, x[..., idx, :], idx,
                                                                      home)
    M = sides.M[..., cp.side, :, :]
    n = (M @ g[..., None])[..., 0]
    P = (M @ x[..., None])[..., 0] + sides.o[..., cp.side, :]
    C = P - (0.5 * (cp.radius + d))[..., None] * n
    return Geometry(P, d, d - cp.radius, n, C, (M @ slope[..., None])[..., 0])


def gaps(cp: ContactPlan, r: np.ndarray, A: np.ndarray) -> np.ndarray:
    """(..., np) every contact point's gap (m; negative: penetrating): exact for the
    points of pairs whose bounding spheres meet, the spheres' gap for the rest."""
    sides = side_frames(cp, r, A)
    x = shape_points(cp, sides)
    bound = pair_bounds(cp, r, A)[..., cp.contact]
    idx = np.logical_or.reduce((bound <= 0.0).reshape(-1, cp.n), axis=0).nonzero()[0]
    d = np.maximum(bound, 0.0) + cp.radius
    home = shape_homes(cp, sides).take(idx, axis=-2) if cp.takes_homes else None
    d[..., idx] = local_distances(cp, placed(cp, x, axis_vectors(cp, sides.R), idx), idx,
                                  home)[0]
    return d - cp.radius
