"""Whether a cam's two curves stay on their sides of each other over a run's frames.

A cam joint (kernels/curve_rows.py) holds one common normal between its curves, found by
Newton from the contact before.  Where the follower cannot stay on one point of touch (a
flat face over a flank concave more tightly than the face is straight, a roller larger
than a concave seat), that common normal ceases to exist between two frames and the next
frame's Newton lands on another: the follower passes through the cam to its far side and
goes on touching there, a wrong motion that the joint's equations hold exactly.  The only
trace is geometric: one curve then cuts into the other.  ``cam_crossing`` looks for that:
the curve that is closed (a disc, a roller) as a polygon in its marker's plane, the
other's points taken into that plane at every frame, each point inside or outside it (the
even-odd rule: a ray's crossings of its edges) and its distance from it; the side most of
the points lie on at the first frame is the follower's, and a point deeper than ``DEPTH``
of the closed curve's size on the other side is a crossing."""
from __future__ import annotations

import numpy as np

from ...model.compile import Model
from ...model.results import Result

POLYGON = 128         # points of the closed curve's polygon (chord error 1.5e-4 of a circle's size)
SAMPLES = 32          # points of the other curve per size of the closed one (32 to 256 in all)
DEPTH = 1e-3          # a cut deeper than this share of the closed curve's size is a crossing
CHUNK = 4096          # points at a time near the polygon (arrays of CHUNK x POLYGON)


def cam_crossing(model: Model, out: Result, name: str) -> tuple[int, float] | None:
    """(the first frame where cam ``name``'s curves cut into each other, the deepest cut
    there, m), or None where they never do or neither curve is closed."""
    cp = model.curves
    e = cp.cam_names.index(name)
    k = model.joint_names.index(name)
    ci, cj = cp.cam_curve[e]
    mi, mj = model.joint_marker_i[k], model.joint_marker_j[k]
    if cj.closed:
        closed, other, m_closed, m_other = cj, ci, mj, mi
    elif ci.closed:
        closed, other, m_closed, m_other = ci, cj, mi, mj
    else:
        return None
    polygon = closed.evaluate(np.linspace(0.0, closed.length, POLYGON, endpoint=False), 0)[0]
    count = int(np.clip(np.ceil(SAMPLES * other.length / closed.size), SAMPLES, 8 * SAMPLES))
    points = other.evaluate(np.linspace(0.0, other.length, count,
                                        endpoint=not other.closed), 0)[0]
    oc, ac = out.marker_frame(m_closed)
    oo, ao = out.marker_frame(m_other)
    world = oo[:, None, :] + np.einsum("fij,pj->fpi", ao, points)
    local = np.einsum("fji,fpj->fpi", ac, world - oc[:, None, :])[..., :2]    # (F, P, 2)
    inside, distance = _classified(local, polygon[:, :2], DEPTH * closed.size)
    deep = distance > DEPTH * closed.size
    # the follower's side: where most of its points lie at the first frame
    side = bool(np.count_nonzero(inside[0] & deep[0]) > np.count_nonzero(~inside[0] & deep[0]))
    cut = np.where((inside != side) & deep, distance, 0.0).max(axis=1)
    if not cut.any():
        return None
    f = int(np.argmax(cut > 0.0))
    inside, distance = _inside_and_distance(local[f], polygon[:, :2])    # that frame exactly
    return f, float(np.where(inside != side, distance, 0.0).max())


def _classified(points: np.ndarray, polygon: np.ndarray, depth: float):
    """(inside, distance) of planar points (..., 2) from a closed polygon (E, 2), as
    ``_inside_and_distance``, but only the points within ``depth`` of the ring between the
    polygon's nearest and farthest reach from its centroid are measured edge by edge: the
    others are inside (or outside) it by more than ``depth`` (their distance is given as
    their distance from that ring, a lower bound, which is all a crossing's test reads;
    the cut reported is measured exactly).  A polygon whose centroid lies outside it has
    no inner circle: every point within its reach is measured."""
    centre = polygon.mean(axis=0)
    reach = np.sqrt(((polygon - centre) ** 2).sum(axis=-1)).max()
    held, near = (x[0] for x in _inside_and_distance(centre[None], polygon))
    near = near if held else 0.0          # the circle about the centroid inside the polygon
    r = np.sqrt(((points - centre) ** 2).sum(axis=-1))
    inside = r < near
    distance = np.where(inside, near - r, r - reach)
    ring = np.flatnonzero(((r >= near - depth) & (r <= reach + depth)).ravel())
    flat_inside, flat_distance = inside.reshape(-1), distance.reshape(-1)
    flat = points.reshape(-1, 2)
    for k in range(0, len(ring), CHUNK):
        at = ring[k:k + CHUNK]
        flat_inside[at], flat_distance[at] = _inside_and_distance(flat[at], polygon)
    return flat_inside.reshape(inside.shape), flat_distance.reshape(distance.shape)


def _inside_and_distance(points: np.ndarray, polygon: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(inside (..., P) bool, distance (..., P) m) of planar points (..., P, 2) from a closed
    polygon (E, 2): the even-odd rule's crossings of a ray along +x, and the least
    distance to its edges."""
    a, b = polygon, np.roll(polygon, -1, axis=0)
    x, y = points[..., None, 0], points[..., None, 1]
    straddle = (a[:, 1] > y) != (b[:, 1] > y)
    dy = np.where(b[:, 1] == a[:, 1], 1.0, b[:, 1] - a[:, 1])
    x_cross = a[:, 0] + (y - a[:, 1]) * (b[:, 0] - a[:, 0]) / dy
    inside = np.count_nonzero(straddle & (x < x_cross), axis=-1) % 2 == 1
    edge = b - a
    rel = points[..., None, :] - a
    s = np.clip(np.einsum("...ei,ei->...e", rel, edge) / np.maximum(
        np.einsum("ei,ei->e", edge, edge), 1e-300), 0.0, 1.0)
    gap = rel - s[..., None] * edge
    return inside, np.sqrt(np.einsum("...ei,...ei->...e", gap, gap).min(axis=-1))
