"""Contact forces between parts: every contact point (model/contact_model.py) against the
other side's signed distance, as force elements on the bodies, in a fixed set of numpy
calls (one distance call per kind of shape present) with any leading axes of the state.

Geometry per point: its centre P = r_s + A_s s in world, taken into the other body's shape
frame, x = R_f^T (A_f^T (P - r_f) - t_f); the distance d(x) and its unit gradient g there
(base/shapes.py, base/sdf_grid.py, base/profile_grid.py); the gap d - rho (rho the point's radius: a sphere's
contact with any shape is exact), the normal n = A_f R_f g (out of the distance's side,
toward the point), the penetration delta = max(0, -gap) and the contact point C = P -
(rho + d)/2 n, midway between the two surfaces.  A contact whose two shapes' bounding
spheres are apart (``pair_bounds``) skips its points' distances: their gap is the spheres'.

Normal force (Hunt and Crossley 1975 with Flores et al. 2011's damping, eq. 23):
    F_n = K delta^n (1 + 8 (1 - e) / (5 e) * delta' / delta'_0) >= 0,
delta' = -(v_rel . n) the approach rate and delta'_0 the approach speed at the instant of
touchdown (run state: the dynamics locates each point's onset, analyses/dynamics/events.py,
and keeps delta'_0 in ``RunState.onset``; where none is known, the present approach speed),
at least ONSET_FLOOR.  The force is continuous at touchdown (zero at delta = 0) and never
pulls.  K is per sphere (Hertz: 4/3 E* sqrt(R*), Johnson 1985) or shared among a side's
surface points by area (box corners, cylinder rims, mesh samples: an elastic-foundation
model, each point a spring with its share of the surface).

Friction: regularized Coulomb, F_t = -mu(|v_t|) F_n v_t / |v_t| with v_t the tangential
slip velocity at C: mu rises from 0 to mu_s at the slip speed v_s (a quadratic with zero
slope at v_s), then steps (cubic) to mu_d at 2 v_s.

Energy: the elastic part stores K delta^(n+1) / (n+1) (``potential``), changing at the
rate of delta itself (on a mesh's grid, by the interpolant's own derivative, which the
smooth interpolated normal that directs the force only approximates); the rest of the
forces' power is the damping's and friction's work (``power_nc``).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..base.elementary import power
from ..base.rotations import cross
from ..base.profile_grid import profile_distance
from ..base.sdf_grid import grid_distance
from ..base.shapes import PRIMITIVES
from ..model.contact_model import ContactPlan

ONSET_FLOOR = 1e-2      # m/s: the least touchdown speed the damping is scaled by
# kind -> (its grid's distance function, the plan's field holding the grids)
_GRIDS = {"mesh": (grid_distance, "grids"), "profile": (profile_distance, "profiles")}


def _dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.einsum("...i,...i->...", a, b)


class Geometry(NamedTuple):
    """The contact points' geometry at one state (..., np)."""
    P: np.ndarray        # (..., np, 3) the points' centres, world
    d: np.ndarray        # (..., np) their signed distance from the other side
    gap: np.ndarray      # (..., np) d - radius
    n: np.ndarray        # (..., np, 3) unit normal toward the point, world
    C: np.ndarray        # (..., np, 3) contact point, world
    slope: np.ndarray    # (..., np, 3) d's own gradient, world (n, but on a mesh's grid)


def pair_bounds(cp: ContactPlan, r: np.ndarray, A: np.ndarray) -> np.ndarray:
    """(..., nct) each contact's bounding spheres' gap: the distance of their centres less
    their radii, a lower bound of every gap of its points (-inf with a half-space)."""
    c = r[..., cp.bound_body, :] + (A[..., cp.bound_body, :, :] @ cp.bound_centre[..., None])[..., 0]
    apart = c[..., 1, :] - c[..., 0, :]
    return np.sqrt(_dot(apart, apart)) - cp.bound_radius.sum(axis=-1)


def geometry(cp: ContactPlan, r: np.ndarray, A: np.ndarray, cull: bool = True) -> Geometry:
    """Every contact point's gap and normal at COM positions r (..., nb+1, 3) and rotation
    matrices A (..., nb+1, 3, 3) (ground last).  ``cull``: the distances of the points of
    pairs whose bounding spheres are apart in every state are not evaluated; their gap is
    the spheres' (a lower bound, positive), their normal +z."""
    As = A[..., cp.sb, :, :]
    P = r[..., cp.sb, :] + (As @ cp.point[..., None])[..., 0]
    Mf = A[..., cp.fb, :, :] @ cp.frame                        # shape axes in world
    x = np.einsum("...ji,...j->...i", Mf, P - r[..., cp.fb, :]
                  - (A[..., cp.fb, :, :] @ cp.origin[..., None])[..., 0])
    bound = pair_bounds(cp, r, A)[..., cp.contact] if cull else np.full(x.shape[:-1], -np.inf)
    near = (bound <= 0.0).reshape(-1, cp.n).any(axis=0)         # (np,) in any state
    d = np.maximum(bound, 0.0) + cp.radius
    g = np.zeros(x.shape)
    g[..., 2] = 1.0
    own = []                           # d's own derivative where it is not g (grids)
    for kind, at, spec in cp.groups:
        sel = np.flatnonzero(near[at])
        idx = at.start + sel
        if kind in _GRIDS:
            grid_of, table = _GRIDS[kind]
            d[..., idx], g[..., idx, :], exact = grid_of(x[..., idx, :], spec[sel],
                                                         getattr(cp, table))
            own.append((idx, exact))
        else:
            d[..., idx], g[..., idx, :] = PRIMITIVES[kind](x[..., idx, :], spec[sel])
    slope = g.copy() if own else None
    for idx, exact in own:
        slope[..., idx, :] = exact
    n = (Mf @ g[..., None])[..., 0]
    gap = d - cp.radius
    C = P - (0.5 * (cp.radius + d))[..., None] * n
    return Geometry(P, d, gap, n, C, n if slope is None else (Mf @ slope[..., None])[..., 0])


def gaps(cp: ContactPlan, r: np.ndarray, A: np.ndarray) -> np.ndarray:
    """(..., np) every contact point's gap (m; negative: penetrating)."""
    return geometry(cp, r, A).gap


def friction_coefficient(speed: np.ndarray, static: np.ndarray, dynamic: np.ndarray,
                         slip: np.ndarray) -> np.ndarray:
    """mu(|v_t|): s (2 - s) mu_s for s = |v_t| / v_s below 1, then a cubic step from mu_s
    to mu_d up to s = 2; once differentiable throughout."""
    s = speed / slip
    low = static * s * (2.0 - s)
    u = np.clip(s - 1.0, 0.0, 1.0)
    high = static + (dynamic - static) * u * u * (3.0 - 2.0 * u)
    return np.where(s < 1.0, low, high)


class ContactEval(NamedTuple):
    """The contact forces at one state (leading axes carried)."""
    Q: np.ndarray            # (..., nb+1, 6) force and moment about each COM (ground last)
    potential: np.ndarray    # (...) elastic energy stored, J
    power_nc: np.ndarray     # (...) power of damping and friction, W (<= 0)
    geo: Geometry
    depth: np.ndarray        # (..., np) penetration
    approach: np.ndarray     # (..., np) approach rate delta'
    F: np.ndarray            # (..., np, 3) force on the point's body at C, world


def relative_velocity(cp: ContactPlan, geo: Geometry, r, v, w) -> np.ndarray:
    """(..., np, 3) v_rel: the point's body's velocity at C less the other body's there."""
    vs = v[..., cp.sb, :] + cross(w[..., cp.sb, :], geo.C - r[..., cp.sb, :])
    vf = v[..., cp.fb, :] + cross(w[..., cp.fb, :], geo.C - r[..., cp.fb, :])
    return vs - vf


def _depth_rate(cp: ContactPlan, geo: Geometry, r, v, w) -> np.ndarray:
    """(..., np) d(delta)/dt: minus d's own gradient along the point centre's velocity
    relative to the other body (the rate the stored energy K delta^(n+1)/(n+1) changes
    by; -(v_rel . n) itself for an exact distance)."""
    vs = v[..., cp.sb, :] + cross(w[..., cp.sb, :], geo.P - r[..., cp.sb, :])
    vf = v[..., cp.fb, :] + cross(w[..., cp.fb, :], geo.P - r[..., cp.fb, :])
    return -_dot(geo.slope, vs - vf)


def contact_forces(cp: ContactPlan, r: np.ndarray, A: np.ndarray, v: np.ndarray,
                   w: np.ndarray, onset: np.ndarray | None = None) -> ContactEval:
    """The contact forces at (r, A, v, w) (..., nb+1, ...) (ground last); ``onset``
    (..., np): each point's approach speed at its touchdown (NaN or None: not known, the
    present approach speed is used)."""
    geo = geometry(cp, r, A)
    depth = np.maximum(-geo.gap, 0.0)
    vrel = relative_velocity(cp, geo, r, v, w)
    vn = _dot(vrel, geo.n)
    rate = -vn
    v0 = np.abs(rate) if onset is None else np.where(np.isfinite(onset), onset, np.abs(rate))
    v0 = np.maximum(v0, ONSET_FLOOR)
    inside = depth > 0.0
    elastic = np.where(inside, cp.stiffness * power(np.where(inside, depth, 1.0), cp.exponent), 0.0)
    Fn = np.maximum(elastic * (1.0 + cp.damping * rate / v0), 0.0)
    vt = vrel - vn[..., None] * geo.n
    slip = np.sqrt(_dot(vt, vt))
    mu = friction_coefficient(slip, cp.static, cp.dynamic, cp.slip_speed)
    scale = np.where(slip > 0.0, mu * Fn / np.where(slip > 0.0, slip, 1.0), 0.0)
    F = Fn[..., None] * geo.n - scale[..., None] * vt
    arms = np.concatenate([geo.C - r[..., cp.sb, :], geo.C - r[..., cp.fb, :]], axis=-2)
    Fe = np.concatenate([F, -F], axis=-2)
    Q = _incidence(cp, r.shape[-2]) @ np.concatenate([Fe, cross(arms, Fe)], axis=-1)
    potential = np.sum(elastic * depth / (cp.exponent + 1.0), axis=-1)
    power_nc = np.sum(_dot(F, vrel) + elastic * _depth_rate(cp, geo, r, v, w), axis=-1)
    return ContactEval(Q, potential, power_nc, geo, depth, rate, F)


def _incidence(cp: ContactPlan, nbg: int) -> np.ndarray:
    """(nbg, 2 np) 0/1: each point's load on its own body (first np columns) and on the
    other side's (last np) into the bodies' rows; made once per plan and body count."""
    cache = cp.__dict__.setdefault("_incidence", {})
    if nbg not in cache:
        ends = np.concatenate([cp.sb, cp.fb])
        S = np.zeros((nbg, len(ends)))
        S[ends, np.arange(len(ends))] = 1.0
        S.setflags(write=False)
        cache[nbg] = S
    return cache[nbg]


class Summary(NamedTuple):
    """Per contact (..., nct): the force and moment on part a (moment about a's centre of
    mass), world axes; the deepest penetration; the contact points' centroid weighted by
    their penetration (NaN where nothing touches)."""
    force: np.ndarray
    torque: np.ndarray
    depth: np.ndarray
    centroid: np.ndarray


def summary(cp: ContactPlan, ce: ContactEval, r: np.ndarray) -> Summary:
    """Each contact's resultant on part a (points on a carry F, points on b -F)."""
    sign = np.where(cp.on_a, 1.0, -1.0)[:, None]
    Fa = sign * ce.F
    ra = r[..., cp.body_a[cp.contact], :]
    Ta = cross(ce.geo.C - ra, Fa)
    force = cp.summed @ Fa
    torque = cp.summed @ Ta
    depth = np.max(np.where(cp.summed > 0.0, ce.depth[..., None, :], 0.0), axis=-1)
    wsum = cp.summed @ ce.depth[..., None]
    centroid = (cp.summed @ (ce.depth[..., None] * ce.geo.C)) / np.where(wsum > 0.0, wsum, np.nan)
    return Summary(force, torque, depth, centroid)


def summary_rows(cp: ContactPlan, ce: ContactEval, r: np.ndarray) -> np.ndarray:
    """(..., nct, 10) ``summary`` side by side: force, torque, depth, centroid (as
    Result.contact stores them)."""
    s = summary(cp, ce, r)
    return np.concatenate([s.force, s.torque, s.depth[..., None], s.centroid], axis=-1)


def contact_jacobians(cp: ContactPlan, nb: int, r: np.ndarray, A: np.ndarray, v: np.ndarray,
                      w: np.ndarray, onset: np.ndarray | None, step: float
                      ) -> tuple[np.ndarray, np.ndarray]:
    """dQ/dq and dQ/dv (6 nb, 6 nb) of the contact forces at one state by forward
    differences (all 12 nb perturbed states as one stack): columns of body b 6b..6b+2
    translation, 6b+3..6b+5 a world rotation, each moved by ``step`` (m, rad; m/s, rad/s).  An iteration matrix for Radau IIA's Newton and the stiffness rate."""
    base = contact_forces(cp, r, A, v, w, onset).Q[:nb].reshape(-1)
    k = 6 * nb
    R = np.broadcast_to(r, (2 * k,) + r.shape).copy()
    AA = np.broadcast_to(A, (2 * k,) + A.shape).copy()
    V = np.broadcast_to(v, (2 * k,) + v.shape).copy()
    W = np.broadcast_to(w, (2 * k,) + w.shape).copy()
    col = np.arange(k)
    body, comp = col // 6, col % 6
    move = comp < 3
    R[col[move], body[move], comp[move]] += step
    turn = np.zeros((k, 3))
    turn[~move, comp[~move] - 3] = step
    Kx = np.zeros((k, 3, 3))
    Kx[:, 0, 1], Kx[:, 0, 2], Kx[:, 1, 2] = -turn[:, 2], turn[:, 1], -turn[:, 0]
    Kx = Kx - Kx.swapaxes(-1, -2)
    rot = np.eye(3) + Kx + 0.5 * Kx @ Kx
    AA[col, body] = rot @ AA[col, body]
    V[k + col[move], body[move], comp[move]] += step
    W[k + col[~move], body[~move], comp[~move] - 3] += step
    Q = contact_forces(cp, R, AA, V, W, onset).Q[:, :nb].reshape(2 * k, -1)
    D = (Q - base) / step
    return D[:k].T, D[k:].T
