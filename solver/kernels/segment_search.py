"""A capsule's points that move along its axis (model/contact_model.py: SLIDING and
FAR_END), placed at each evaluation in the other shape's frame, all pairs at once in a
fixed set of numpy calls.

A capsule is a segment x(s) = x0 + s e (s in [0, 1]) swept by a sphere; against another
shape's signed distance D its exact gap is min_s D(x(s)) - radius.  Its SLIDING point is
that minimizer (the axis point nearest the other shape), its FAR_END point the end of
the axis whose distance is the larger.  The minimum of D along the segment is a
continuous function of the state even where its minimizer jumps (a rod level on a face:
from one end to the other), and so is the larger of the two ends' distances; on a face,
where the minimizer is an end, the far end is the other one, so a level rod meets 2 K
at its two ends, and tilted, K at its lower end only.  Wherever the minimizer is an end,
the SLIDING point stands at the first end and FAR_END at the second (their two forces
the same as the other way round), so a rod rocking on a face keeps each end's point, its
touchdown speed (the damping's scale) included, as the two end spheres did (an end as
deep as the search's least sample, within TIE, is its minimizer: a level rod's interior
samples, equal to its ends' but for rounding, never take its point off an end).

The minimizer:
- against a capsule: the segment-segment closest points in closed form (Ericson 2005,
  "Real-Time Collision Detection", sec. 5.1.9), exact;
- along a profile's z (a pin in a slot): where |z| is least, the profile's distance the
  same all along the axis within its thickness, exact;
- against a box, cylinder or profile: ROUNDS rounds of SAMPLES points each along a
  bracket that shrinks around the least sample (D along a segment is convex outside and
  inside a convex shape, so its minimum lies between the least sample's neighbours), then
  the better of two steps: to where the tangents at the bracket's ends cross (exact where
  D is piecewise linear along the segment, as inside a box) and to where the secant of
  D's rate vanishes (exact where D is quadratic; third order where it is smooth).  A
  profile with two separate hollows along one axis is met at the deeper one only.  Where
  the axis' middle is as near as the least (within TIE: a rod across a flat-topped bar,
  the distance level along the stretch over the bar), the point stands at the middle, a
  point of the rod as a spacing's centre is, so a rod resting there does not rock from
  one edge of the stretch to the other as the search's least sample wanders over it;
  elsewhere on a level stretch, at its first least sample.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ..base.einsum import einsum
from ..model.contact_model import SLIDING, ContactPlan

SAMPLES = 33        # points along the bracket per round (odd: its centre is sampled again)
ROUNDS = 5          # each round shrinks the bracket 16-fold: 2/32 16^-4 of the axis after 5
TIE = 1e-9          # ends' distances this close (times the axis length) are level
END = 1e-9          # a nearest point this close to an end (of the axis' 1) is the end
PARALLEL = 1e-9     # an axis this close to a profile's z (its x, y over its z) is along it
_U = np.linspace(0.0, 1.0, SAMPLES)      # a round's samples across its bracket
_ENDS = np.array([0.0, 1.0])


def _dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return einsum("...i,...i->...", a, b)


def _pick(a: np.ndarray, i: np.ndarray) -> np.ndarray:
    """(...) a[..., i[...]] of a (..., j) at indices i (...) (np.take_along_axis's numbers,
    without its Python wrapper: a right-hand side's fixed cost)."""
    j = a.shape[-1]
    return a.reshape(-1).take(np.arange(0, a.size, j) + i.reshape(-1)).reshape(i.shape)


def axis_vectors(cp: ContactPlan, R: np.ndarray, idx: np.ndarray | None = None
                 ) -> np.ndarray | None:
    """(..., np, 3) each point's axis e in its distance's shape frame (sb's frame turned by
    each side's R (..., ns, 3, 3)), or None where the plan has no moving points; ``idx``
    (k,): those points' (..., k, 3)."""
    moving = cp.__dict__.get("_moving")            # (read once per plan)
    if moving is None:
        moving = cp.__dict__["_moving"] = bool(np.logical_or.reduce(cp.role, axis=None))
    if not moving:
        return None
    if idx is None:
        return einsum("...nij,nj->...ni", R.take(cp.side, axis=-3), cp.axis)
    return einsum("...nij,nj->...ni", R.take(cp.side.take(idx), axis=-3),
                  cp.axis.take(idx, axis=0))


def slide(cp: ContactPlan, x: np.ndarray, e: np.ndarray, idx: np.ndarray,
          distances: Callable) -> np.ndarray:
    """x (..., k, 3) of the points ``idx`` (ascending; a FAR_END point follows its SLIDING
    one) with the moving points placed on their axes e (..., k, 3): SLIDING at the axis
    point nearest the other shape, FAR_END at the end farther from it (where the nearest
    is an end, SLIDING at the first end and FAR_END at the second).  ``distances``:
    kernels/contact_geometry.py's local_distances."""
    at = (cp.role.take(idx) == SLIDING).nonzero()[0]
    if not len(at):
        return x
    ids = idx.take(at)
    x0, ax = x.take(at, axis=-2), e.take(at, axis=-2)
    how = _how(cp, ids, ax)
    s = np.empty(x0.shape[:-1])
    least = np.empty(x0.shape[:-1])             # D at s
    ends = np.empty(x0.shape[:-1] + (2,))       # D at each axis' two ends
    for code, nearest in enumerate((_search, _on_a_capsule, _along_a_profiles_z)):
        sub = (how == code).nonzero()[0]
        if len(sub):
            s[..., sub], least[..., sub], ends[..., sub, :] = nearest(
                cp, x0.take(sub, axis=-2), ax.take(sub, axis=-2), ids.take(sub), distances)
    length = np.sqrt(_dot(ax, ax))
    far = _far_end(ends, s, length)
    at_end = ((s <= END) | (s >= 1.0 - END)
              | (np.minimum.reduce(ends, axis=-1) <= least + TIE * length))
    s, far = np.where(at_end, 0.0, s), np.where(at_end, 1.0, far)
    out = x.copy()
    out[..., at, :] = x0 + s[..., None] * ax
    out[..., at + 1, :] = x0 + far[..., None] * ax
    return out


def _far_end(ends: np.ndarray, s: np.ndarray, length: np.ndarray) -> np.ndarray:
    """(..., m) 0 or 1: the end whose distance (ends (..., m, 2)) is the larger; where the
    two are level (within TIE of the axis length), the end away from the nearest point s
    (a rod level on a face: the other end than the one the search stopped at)."""
    d0, d1 = ends[..., 0], ends[..., 1]
    level = np.abs(d1 - d0) <= TIE * length
    return np.where(level, np.where(s < 0.5, 1.0, 0.0), np.where(d1 > d0, 1.0, 0.0))


def _along(cp: ContactPlan, x0: np.ndarray, ax: np.ndarray, s: np.ndarray, ids: np.ndarray,
           distances: Callable) -> tuple[np.ndarray, np.ndarray]:
    """(D (..., m, j), dD/ds (..., m, j)) at s (..., m, j) along each axis: one distance
    call over the m j points."""
    j = s.shape[-1]
    pts = x0[..., None, :] + s[..., None] * ax[..., None, :]
    d, _, slope = distances(cp, pts.reshape(pts.shape[:-3] + (-1, 3)), ids.repeat(j))
    slope = slope.reshape(pts.shape)
    return d.reshape(s.shape), _dot(slope, ax[..., None, :])


def _search(cp: ContactPlan, x0: np.ndarray, ax: np.ndarray, ids: np.ndarray,
            distances: Callable) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(s (..., m) in [0, 1], D there, D at the two ends (..., m, 2)) the least D along each
    axis: the bracketed rounds, then the better of two steps inside the last bracket
    [a, b] where D's rate turns from falling to rising (module docstring): where the
    tangents at a and b cross (exact for D piecewise linear) and where the secant of its
    rate vanishes (exact for D quadratic)."""
    lo, width = np.zeros(x0.shape[:-1]), np.zeros(x0.shape[:-1]) + 1.0
    for k in range(ROUNDS):
        s = lo[..., None] + width[..., None] * _U
        f, rate = _along(cp, x0, ax, s, ids, distances)
        if k == 0:
            ends, middle = f[..., ::SAMPLES - 1], f[..., SAMPLES // 2]
        i = f.argmin(axis=-1)
        ia, ib = np.maximum(i - 1, 0), np.minimum(i + 1, SAMPLES - 1)
        a = _pick(s, ia)
        lo, width = a, _pick(s, ib) - a
    best, f_best = _pick(s, i), _pick(f, i)
    fa, fb = _pick(f, ia), _pick(f, ib)
    pa, pb = _pick(rate, ia), _pick(rate, ib)
    a, b = lo, lo + width
    turning = (pa < 0.0) & (pb > 0.0)
    spread = np.where(turning, pb - pa, 1.0)
    tangents = (fb - fa + a * pa - b * pb) / -spread
    secant = a - pa * (b - a) / spread
    steps = np.empty(a.shape + (2,))
    steps[..., 0], steps[..., 1] = tangents, secant
    steps = np.minimum(np.maximum(steps, a[..., None]), b[..., None])
    f_steps = _along(cp, x0, ax, steps, ids, distances)[0]
    j = f_steps.argmin(axis=-1)
    s_step, f_step = _pick(steps, j), _pick(f_steps, j)
    lower = turning & (f_step < f_best)
    s, f = np.where(lower, s_step, best), np.where(lower, f_step, f_best)
    level = middle <= f + TIE * np.sqrt(_dot(ax, ax))
    return np.where(level, 0.5, s), np.where(level, middle, f), ends


def segment_closest(x0: np.ndarray, ax: np.ndarray, half: np.ndarray) -> np.ndarray:
    """(..., m) s in [0, 1]: the point x0 + s ax of each segment nearest the segment from
    (0, 0, -h) to (0, 0, h) (``half`` (m,) h), Ericson 2005, sec. 5.1.9 (parallel
    segments: the first end's s = 0, then clamped to the other's ends)."""
    r = x0 + 0.0                                   # (np.stack's numbers: -0.0 made 0.0)
    r[..., 2] = x0[..., 2] + half
    a = _dot(ax, ax)
    e2 = 4.0 * half * half
    b = 2.0 * half * ax[..., 2]
    c = _dot(ax, r)
    f = 2.0 * half * r[..., 2]
    denom = a * e2 - b * b
    skew = denom > 1e-12 * a * e2
    s = np.where(skew, _unit_clip((b * f - c * e2) / np.where(skew, denom, 1.0)), 0.0)
    t = np.where(e2 > 0.0, (b * s + f) / np.where(e2 > 0.0, e2, 1.0), 0.0)
    s = np.where(t < 0.0, _unit_clip(-c / a), s)
    return np.where(t > 1.0, _unit_clip((b - c) / a), s)


def _unit_clip(s: np.ndarray) -> np.ndarray:
    """s clipped to [0, 1] (np.clip's numbers)."""
    return np.minimum(np.maximum(s, 0.0), 1.0)


def _how(cp: ContactPlan, ids: np.ndarray, ax: np.ndarray) -> np.ndarray:
    """(m,) how each axis' nearest point is found: 0 by the search, 1 against a capsule
    (closed form), 2 along a profile's z in every state (a pin in a slot: the profile's
    distance is the same at every point of the axis within its thickness and grows off
    it, least where |z| is)."""
    how = np.zeros(len(ids), int)
    for kind, at, _ in cp.groups:
        mine = (ids >= at.start) & (ids < at.stop)
        if kind == "capsule":
            how[mine] = 1
        elif kind == "profile":
            across = np.abs(ax[..., 0]) + np.abs(ax[..., 1])
            upright = np.logical_and.reduce(
                (across <= PARALLEL * np.abs(ax[..., 2])).reshape(-1, len(ids)), axis=0)
            how[mine & upright] = 2
    return how


def _with_ends(cp: ContactPlan, x0: np.ndarray, ax: np.ndarray, s: np.ndarray,
               ids: np.ndarray, distances: Callable
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(s, D at s, D at the two ends) from one distance call at s, 0 and 1."""
    at = np.empty(s.shape + (3,))
    at[..., 0], at[..., 1:] = s, _ENDS
    f = _along(cp, x0, ax, at, ids, distances)[0]
    return s, f[..., 0], f[..., 1:]


def _on_a_capsule(cp: ContactPlan, x0: np.ndarray, ax: np.ndarray, ids: np.ndarray,
                  distances: Callable) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(s, D at s, D at the ends) against a capsule: its segment's closest points."""
    s = segment_closest(x0, ax, _capsule_half(cp, ids))
    return _with_ends(cp, x0, ax, s, ids, distances)


def _along_a_profiles_z(cp: ContactPlan, x0: np.ndarray, ax: np.ndarray, ids: np.ndarray,
                        distances: Callable) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(s, D at s, D at the ends) of an axis along a profile's z: where |z| is least."""
    s = _unit_clip(-x0[..., 2] / ax[..., 2])
    return _with_ends(cp, x0, ax, s, ids, distances)


def _capsule_half(cp: ContactPlan, ids: np.ndarray) -> np.ndarray:
    """(m,) the half length h of the capsule each of the points ``ids`` is measured
    against (its group's parameters (R, h, 0))."""
    for kind, at, spec in cp.groups:
        if kind == "capsule":
            return spec.take(ids - at.start, axis=0)[..., 1]
    raise ValueError("no capsule distances in the plan")
