"""Contact forces between parts: every contact point (model/contact_model.py) within its
reach against the other side's signed distance (kernels/contact_geometry.py), as force
elements on the bodies, in a fixed set of numpy calls (one distance call per kind of shape
present) with any leading axes of the state.  The points out of reach, whose gap is
positive, are culled before any distance is looked up: their force is zero, so only the
points that may touch cost more than one box test each.

Each point's force is found in its distance's shape frame (its side's: kernels/
contact_geometry.py): the relative velocity of the point's body against the other's at
C is the side's twist a + b x C (both in the shape frame, found once per side), and each
side's points' loads sum there, as a force and a moment about the shape's origin, before
they are turned into world axes and moved to the two bodies' centres of mass.

Normal force (Hunt and Crossley 1975 with Flores et al. 2011's damping, eq. 23):
    F_n = K delta^n (1 + 8 (1 - e) / (5 e) * delta' / delta'_0) >= 0,
delta' = -(v_rel . n) the approach rate and delta'_0 the approach speed at the instant of
touchdown (run state: the dynamics locates each point's onset, analyses/dynamics/events.py,
and keeps delta'_0 in ``RunState.onset``; where none is known, the present approach speed),
at least ONSET_FLOOR.  ``ContactEval.impact_speed`` is each point's v_e = sqrt(2 K
delta^(n+1) / ((n+1) m)), the speed whose kinetic energy with the parts' reduced mass m
its elastic energy holds: the least touchdown speed of an impact that would press it this
deep (its elastic energy is at most the kinetic energy it arrived with, and the effective
mass at a point is at most m).  A point found inside with no touchdown (a run that starts
with its parts overlapping) should take that speed, not its present approach speed: with
that (tiny) speed its damping is K delta^n / ONSET_FLOOR, so large that it creeps out at
ONSET_FLOOR / damping m/s in steps of about m / c (1e-7 s for a 1 cm ball started 5 mm
through a floor at K = 1e7).  The force is continuous at touchdown (zero at delta = 0) and never
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
from ..model.contact_model import ContactPlan
from .contact_geometry import (Geometry, Sides, _dot, candidates, gaps, geometry, in_reach,
                               local_distances, pair_bounds, placed, placed_at, shape_homes,
                               shape_points, side_frames)
from .segment_search import axis_vectors

__all__ = ["Geometry", "gaps", "geometry", "pair_bounds", "contact_forces", "ContactEval",
           "contact_jacobians", "summary", "summary_rows", "friction_coefficient", "every_point"]

ONSET_FLOOR = 1e-2      # m/s: the least touchdown speed the damping is scaled by


def friction_coefficient(speed: np.ndarray, static: np.ndarray, dynamic: np.ndarray,
                         slip: np.ndarray) -> np.ndarray:
    """mu(|v_t|): s (2 - s) mu_s for s = |v_t| / v_s below 1, then a cubic step from mu_s
    to mu_d up to s = 2; once differentiable throughout."""
    s = speed / slip
    low = static * s * (2.0 - s)
    u = np.minimum(np.maximum(s - 1.0, 0.0), 1.0)          # (np.clip's numbers)
    high = static + (dynamic - static) * u * u * (3.0 - 2.0 * u)
    return np.where(s < 1.0, low, high)


class ContactEval(NamedTuple):
    """The contact forces at one state (leading axes carried); the points' numbers are of
    the points ``near`` only, the rest carrying no force (their gap positive)."""
    Q: np.ndarray            # (..., nb+1, 6) force and moment about each COM (ground last)
    potential: np.ndarray    # (...) elastic energy stored, J
    power_nc: np.ndarray     # (...) power of damping and friction, W (<= 0)
    near: np.ndarray         # (k,) the points evaluated (ascending), those within reach
    gap: np.ndarray          # (..., k) their gaps, m
    depth: np.ndarray        # (..., k) penetration, m
    approach: np.ndarray     # (..., k) approach rate delta', m/s
    impact_speed: np.ndarray  # (..., k) v_e, m/s: the touchdown speed whose kinetic
                             # energy (reduced mass) the point's elastic energy holds
    F: np.ndarray            # (..., k, 3) force on the point's body at C, shape frame
    C: np.ndarray            # (..., k, 3) contact point, shape frame
    sides: Sides             # each side's frames
    pull: np.ndarray         # (..., ns, 2, 3) each side's force on its points' body and
                             # its moment about the shape's origin, world

    def variant(self, i: int) -> "ContactEval":
        """Variant i's evaluation of one made for a stack of states (V, ...): each number's
        row i, the points evaluated the stack's."""
        row = {k: v[i] for k, v in self._asdict().items() if k not in ("near", "sides")}
        return self._replace(sides=Sides(*(x[i] for x in self.sides)), **row)


def relative_twist(cp: ContactPlan, sides: Sides, r: np.ndarray, v: np.ndarray,
                   w: np.ndarray) -> np.ndarray:
    """(..., ns, 2, 3) each side's (a, b) in its shape frame: the velocity of sb's body
    less fb's at a point X of the shape frame is a + b x X (m/s, rad/s)."""
    v_ends, w_ends = v.take(cp.side_ends, axis=-2), w.take(cp.side_ends, axis=-2)
    turn = cross(w_ends, sides.arm)                              # (..., ns, 2, 3)
    at_o = (v_ends[..., 0, :] - v_ends[..., 1, :] + turn[..., 0, :]) - turn[..., 1, :]
    spin = w_ends[..., 0, :] - w_ends[..., 1, :]
    world = np.concatenate([at_o[..., None, :], spin[..., None, :]], axis=-2)
    return world @ sides.M                      # rows times M: M^T of each


def contact_forces(cp: ContactPlan, r: np.ndarray, A: np.ndarray, v: np.ndarray,
                   w: np.ndarray, onset: np.ndarray | None = None,
                   cull: bool = True) -> ContactEval:
    """The contact forces at (r, A, v, w) (..., nb+1, ...) (ground last); ``onset``
    (..., np): each point's approach speed at its touchdown (NaN or None: not known, the
    present approach speed is used).  ``cull``: only the points within reach in some
    state are evaluated (False: every point; the forces are the same).  With no point
    within reach, the forces are zero and nothing more is evaluated (``_apart``)."""
    sides = side_frames(cp, r, A)
    idx = candidates(cp, sides) if cull else None   # (None: every point)
    x = shape_points(cp, sides, idx)
    e = axis_vectors(cp, sides.R, idx)
    if not cull:
        near = np.arange(cp.n)
    elif idx is None:
        near = in_reach(cp, x, e).nonzero()[0]
    else:                # x, e of the candidates: those within reach, and their points
        local = in_reach(cp, x, e, idx).nonzero()[0] if len(idx) else idx
        near, x = idx.take(local), x.take(local, axis=-2)
        e = None if e is None else e.take(local, axis=-2)
        idx = near
    if not len(near):
        return _apart(cp, sides, r, near)
    x = placed(cp, x, e, near) if idx is None else placed_at(cp, x, e, near)
    home = shape_homes(cp, sides).take(near, axis=-2) if cp.takes_homes else None
    d, g, slope = local_distances(cp, x, near, home)
    # (a design study's law: (V, np, 8), each variant's parameters), law first
    law = cp.law.take(near, axis=-2)
    rho, K, expo, damping, static, dynamic, slip_speed, mass = law.transpose(
        (law.ndim - 1,) + tuple(range(law.ndim - 1)))
    twist = relative_twist(cp, sides, r, v, w).take(cp.side[near], axis=-3)
    a, b = twist[..., 0, :], twist[..., 1, :]
    gap = d - rho
    depth = np.maximum(-gap, 0.0)
    C = x - (0.5 * (rho + d))[..., None] * g
    vrel = a + cross(b, C)
    vn = _dot(vrel, g)
    rate = -vn
    if onset is None:
        v0 = np.abs(rate)
    else:
        known = onset.take(near, axis=-1)
        v0 = np.where(np.isfinite(known), known, np.abs(rate))
    v0 = np.maximum(v0, ONSET_FLOOR)
    inside = depth > 0.0
    elastic = np.where(inside, K * power(np.where(inside, depth, 1.0), expo), 0.0)
    stored = elastic * depth / (expo + 1.0)             # J: K delta^(n+1) / (n+1)
    Fn = np.maximum(elastic * (1.0 + damping * rate / v0), 0.0)
    F = Fn[..., None] * g
    if cp.friction:              # with every coefficient zero, the friction term is zero
        vt = vrel - vn[..., None] * g
        slip = np.sqrt(_dot(vt, vt))
        mu = friction_coefficient(slip, static, dynamic, slip_speed)
        scale = np.where(slip > 0.0, mu * Fn / np.where(slip > 0.0, slip, 1.0), 0.0)
        F = F - scale[..., None] * vt
    # d(delta)/dt by d's own gradient along the point centre's relative velocity
    depth_rate = -_dot(slope, a + cross(b, x))
    each = every_point(cp, near, np.concatenate(
        [F, cross(C, F), stored[..., None],
         (_dot(F, vrel) + elastic * depth_rate)[..., None]], axis=-1))
    load = cp.side_sum @ each[..., :6]
    pull = (load.reshape(load.shape[:-1] + (2, 3)) @ sides.M.swapaxes(-1, -2))
    Q = _body_loads(cp, sides, r, pull)
    potential = np.add.reduce(each[..., 6], axis=-1)
    power_nc = np.add.reduce(each[..., 7], axis=-1)
    impact_speed = np.sqrt(2.0 * stored / mass)
    return ContactEval(Q, potential, power_nc, near, gap, depth, rate, impact_speed, F, C,
                       sides, pull)


def _apart(cp: ContactPlan, sides: Sides, r: np.ndarray, near: np.ndarray) -> ContactEval:
    """The evaluation with no point within reach in any state (``near`` empty): no force,
    no stored energy, no power, no points' numbers (their arrays (..., 0)).  What the full
    evaluation gives then (its sums over no term), without the hundred numpy calls of the
    points' geometry and law: a dropped ball's flight, or a pawl lifted off its wheel."""
    lead = r.shape[:-2]
    none, vectors = np.zeros(lead + (0,)), np.zeros(lead + (0, 3))
    zero = np.zeros(lead)[()]               # (a float for one state, as a sum gives)
    return ContactEval(np.zeros(r.shape[:-1] + (6,)), zero, zero, near, none, none, none,
                       none, vectors, vectors, sides, np.zeros(lead + (len(cp.side_sb), 2, 3)))


def every_point(cp: ContactPlan, near: np.ndarray, values: np.ndarray) -> np.ndarray:
    """(..., np, k) the points' ``values`` (..., len(near), k) in their places among every
    point, zero for the points out of reach.  Sums over the points then run over the same
    np terms whichever points a call evaluated (one state's, or the union of a study's
    variants' or a step's stages'), so each state's sums take the same bits alone or
    stacked."""
    full = np.zeros(values.shape[:-2] + (cp.n, values.shape[-1]))
    full[..., near, :] = values
    return full


def _body_loads(cp: ContactPlan, sides: Sides, r: np.ndarray, pull: np.ndarray) -> np.ndarray:
    """(..., nb+1, 6) the sides' pulls (force on sb's body, moment about the shape's
    origin o) on the bodies: (F, M + (o - r_s) x F) on sb's, the opposite on fb's."""
    F, M = pull[..., 0, :], pull[..., 1, :]
    arms = sides.arm.swapaxes(-2, -3).reshape(F.shape[:-2] + (-1, 3))   # sb's, then fb's
    Fe = np.concatenate([F, -F], axis=-2)
    Me = np.concatenate([M, -M], axis=-2) + cross(arms, Fe)
    return _incidence(cp, r.shape[-2]) @ np.concatenate([Fe, Me], axis=-1)


def _incidence(cp: ContactPlan, nbg: int) -> np.ndarray:
    """(nbg, 2 ns) 0/1: each side's load on its points' body (first ns columns) and on the
    other's (last ns) into the bodies' rows; made once per plan and body count."""
    cache = cp.__dict__.setdefault("_incidence", {})
    if nbg not in cache:
        ends = np.concatenate([cp.side_sb, cp.side_fb])
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
    """Each contact's resultant on part a (a side whose points are on a pulls a, the other
    side pushes it back), from the sides' pulls."""
    first = np.argmax(cp.side_sum, axis=1)             # each side's first point
    sign = np.where(cp.on_a[first], 1.0, -1.0)[:, None]
    F, M = ce.pull[..., 0, :], ce.pull[..., 1, :]
    ra = r[..., cp.body_a[cp.contact[first]], :]
    by_contact = cp.summed @ cp.side_sum.T            # (nct, ns) 0/count
    by_contact = np.where(by_contact > 0.0, 1.0, 0.0)
    force = by_contact @ (sign * F)
    torque = by_contact @ (sign * (M + cross(ce.sides.o - ra, F)))
    summed = cp.summed[:, ce.near]
    depth = np.max(np.where(summed > 0.0, ce.depth[..., None, :], 0.0), axis=-1, initial=0.0)
    side = cp.side[ce.near]
    C = ((ce.sides.M[..., side, :, :] @ ce.C[..., None])[..., 0] + ce.sides.o[..., side, :])
    weighted = every_point(cp, ce.near, np.concatenate([ce.depth[..., None],
                                                        ce.depth[..., None] * C], axis=-1))
    both = cp.summed @ weighted                       # (..., nct, 4): depth, depth x C
    wsum = both[..., :1]
    centroid = both[..., 1:] / np.where(wsum > 0.0, wsum, np.nan)
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
