"""Constraint primitives, evaluated for all rows at once (Haug 1989, "dot-1", "dot-2",
"spherical", "double spherical"; Haug ch. 9 and 11 for the Jacobians and gamma).

Velocities are per body: the centre-of-mass velocity and the angular velocity, both in
world axes.  A virtual displacement of body b is (delta r_b, delta pi_b) with delta pi_b a
small world-axes rotation, so every Jacobian row has 12 entries:
``[Phi_ri (3), Phi_pii (3), Phi_rj (3), Phi_pij (3)]`` for the bodies of marker I and J.

For a body-fixed vector u (world components), ``du/dt = w x u`` and
``d2u/dt2 = alpha x u + w x (w x u)``; ``quad`` is the part of d2(Phi)/dt2 that does not
multiply accelerations, so ``J a = gamma = -quad + d2f/dt2`` (f: a motion's function).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base.einsum import einsum
from ..base.rotations import cross, euler_angles, euler_axes, joint_angle, own_loop, quat_to_matrix
from ..model.compile import Model, RowGroup
from ..model.gear_mesh import pitch_geometry
from ..vocabulary.joints import ANGLE, AT, CAM, COUPLER, CURVE, DIST, DOT1, DOT2, EULER, SPIN
from ..vocabulary.timefunctions import derivatives_of
from .curve_rows import cam, point_on_curve


@dataclass
class RowEval:
    phi: np.ndarray    # (nc,) residuals without motion functions (angle rows: the angle, rad)
    jac: np.ndarray    # (nc, 12) Jacobian blocks, see module docstring
    quad: np.ndarray   # (nc,) velocity-quadratic part of the second derivative, or None
    track: np.ndarray | None = None    # (ntrack,) tracked values: the couplers' joint
    #                                    coordinates (angles unwrapped), the curve parameters
    rate: np.ndarray | None = None     # (ntrack,) their time derivatives (with velocities)


def _dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return einsum("...i,...i->...", a, b)


# ---------------------------------------------------------------- one kernel per primitive kind
# Each kernel reads its RowGroup (model/compile.py) and the bodies' state, and writes its
# rows of phi, the Jacobian blocks (if asked) and quad (if velocities are given) into the
# views it is passed.  Leading axes of r, A, v, w (frames) are carried through.

# -[P x] as a gather and a sign: rows (0, P2, -P1), (-P2, 0, P0), (P1, -P0, 0)
_NEG_SKEW_AT = np.array([[0, 2, 1], [2, 0, 0], [1, 0, 0]])
_NEG_SKEW_FLAT = _NEG_SKEW_AT.reshape(-1)      # (a take and a reshape: a fancy index costs more)
_NEG_SKEW_SIGN = np.array([[0.0, 1.0, -1.0], [-1.0, 0.0, 1.0], [1.0, -1.0, 0.0]])
_END_SIGN = np.stack([_NEG_SKEW_SIGN, -_NEG_SKEW_SIGN])[:, None]     # I: -[P_I x]; J: +[P_J x]
_EPS = float(np.finfo(float).eps)                # (read once: np.finfo is Python)
_EYE_ROWS: dict[int, np.ndarray] = {}
_ONES3 = np.ones(3)             # x @ _ONES3: the sum over a last axis of 3 (a fast row sum)


def _eye_rows(n: int) -> np.ndarray:
    """(n, 3, 2, 3) the at-point rows' translation blocks, I on body I and -I on body J,
    for n joint points (point, row, end, column: at_point's block layout), made once per n."""
    if n not in _EYE_ROWS:
        e = np.stack([np.eye(3), -np.eye(3)], axis=1)                 # (3, 2, 3)
        _EYE_ROWS[n] = np.ascontiguousarray(np.broadcast_to(e, (n, 3, 2, 3)))
        _EYE_ROWS[n].setflags(write=False)
    return _EYE_ROWS[n]


def _turned(g: RowGroup, A, U=None) -> np.ndarray:
    """(..., k, n, 3) the group's body-fixed vectors in world axes (RowGroup.vecs on the
    bodies RowGroup.ends: model/plans.py VECTORS), one gather and one product; or, given
    U (..., K, 3), every group's vectors turned together (evaluate), the group's part."""
    if U is not None:
        return U[..., g.turn, :].reshape(U.shape[:-2] + g.ends.shape + (3,))
    return (A.take(g.ends, axis=-3) @ g.vecs[..., None])[..., 0]


def _centripetal(wE: np.ndarray, U: np.ndarray) -> np.ndarray:
    """w x (w x u) = w (w . u) - u |w|^2 for stacked w, u (..., 3)."""
    return wE * ((wE * U) @ _ONES3)[..., None] - U * ((wE * wE) @ _ONES3)[..., None]


SKEW_GATHER = 64        # joint points up to which at_point gathers its skew blocks at once


def _skew_blocks(jac: np.ndarray, P: np.ndarray, lead: tuple) -> None:
    """at_point's Jacobian blocks [I, -[P_I x], -I, [P_J x]] (jac zero on entry) entry by
    entry: for many joint points (a design study's stacks) the gather costs per element
    (100 chains of 10: 38 us against 89; a study's sweep block 10x less)."""
    n = P.shape[-2]
    J = jac.reshape(lead + (n, 3, jac.shape[-1]))    # a view: the rows, 3 per point
    if not np.may_share_memory(J, jac):         # (rows that are not one strided block)
        raise AssertionError("at_point's Jacobian rows are not a view")
    for k in range(3):
        J[..., k, k] = 1.0
        J[..., k, 6 + k] = -1.0
    for c0, sgn, Q in ((3, -1.0, P[..., 0, :, :]), (9, 1.0, P[..., 1, :, :])):
        # sgn [Q x], rows (0, -Q2, Q1), (Q2, 0, -Q0), (-Q1, Q0, 0)
        np.multiply(Q[..., 2], -sgn, out=J[..., 0, c0 + 1])
        np.multiply(Q[..., 1], sgn, out=J[..., 0, c0 + 2])
        np.multiply(Q[..., 2], sgn, out=J[..., 1, c0])
        np.multiply(Q[..., 0], -sgn, out=J[..., 1, c0 + 2])
        np.multiply(Q[..., 1], -sgn, out=J[..., 2, c0])
        np.multiply(Q[..., 0], sgn, out=J[..., 2, c0 + 1])


def at_point(g: RowGroup, r, A, v, w, phi, jac, quad, U=None) -> None:
    """Haug 1989, "Spherical": the world x, y, z of P_I - P_J, three rows per joint point.
    Both ends in one set of calls: the arms P = A u as one product, the Jacobian's rotation
    blocks -[P_I x] and [P_J x] as one gather and sign, the centripetal terms w x (w x P)."""
    lead = r.shape[:-2]
    P = _turned(g, A, U)                                             # (..., 2, n, 3)
    d = r.take(g.ends, axis=-2) + P
    # straight into the rows (phi's last axis split into (point, x y z): always a view)
    np.subtract(d[..., 0, :, :], d[..., 1, :, :], out=phi.reshape(lead + (-1, 3)))
    if jac is not None and P[..., 0, :, 0].size > SKEW_GATHER:
        _skew_blocks(jac, P, lead)
    elif jac is not None:
        S = P.take(_NEG_SKEW_FLAT, axis=-1).reshape(P.shape + (3,)) * _END_SIGN   # (..., 2, n, 3, 3)
        # the rows' blocks [r_I, pi_I, r_J, pi_J] as (point, row, block, column): the two
        # translation blocks and the two rotation blocks, one assignment each
        J = jac[..., :12].reshape(lead + (P.shape[-2], 3, 4, 3))
        if J.base is None:                       # a copy: rows that are not one strided block
            raise AssertionError("at_point's Jacobian rows are not a view")
        J[..., 0::2, :] = _eye_rows(P.shape[-2])
        J[..., 1::2, :] = S.swapaxes(-4, -3).swapaxes(-3, -2)           # (..., n, 3, 2, 3)
    if quad is not None:   # centripetal part of d2(P_I - P_J)/dt2
        cen = _centripetal(w.take(g.ends, axis=-2), P)
        np.subtract(cen[..., 0, :, :], cen[..., 1, :, :], out=quad.reshape(lead + (-1, 3)))


def _separation(g: RowGroup, r, A, v, w, rates: bool, U=None):
    """The turned vectors U (P_I, P_J first), d = P_I - P_J as points, and with rates the
    centripetal part of d2d/dt2, dd/dt, and w x u and w x (w x u) of every vector."""
    U = _turned(g, A, U)
    d = r.take(g.bi, axis=-2) + U[..., 0, :, :] - r.take(g.bj, axis=-2) - U[..., 1, :, :]
    if not rates:
        return U, d, None, None, None, None
    wE = w.take(g.ends, axis=-2)
    C, X = _centripetal(wE, U), cross(wE, U)
    cen = C[..., 0, :, :] - C[..., 1, :, :]
    dd = v.take(g.bi, axis=-2) + X[..., 0, :, :] - v.take(g.bj, axis=-2) - X[..., 1, :, :]
    return U, d, cen, dd, C, X


def dot2(g: RowGroup, r, A, v, w, phi, jac, quad, U=None) -> None:
    """Haug 1989, "Dot-2": a_J . (P_I - P_J) = 0 (vectors P_I, P_J, a: VECTORS "ija")."""
    U, d, cen, dd, C, X = _separation(g, r, A, v, w, quad is not None, U)
    pi_, pj_, a = U[..., 0, :, :], U[..., 1, :, :], U[..., 2, :, :]
    phi[...] = (a * d) @ _ONES3
    if jac is not None:
        jac[..., 0:3] = a
        jac[..., 3:6] = cross(pi_, a)
        jac[..., 6:9] = -a
        jac[..., 9:12] = cross(a, d + pj_)
    if quad is not None:
        quad[...] = (C[..., 2, :, :] * d + 2.0 * X[..., 2, :, :] * dd + a * cen) @ _ONES3


def distance(g: RowGroup, r, A, v, w, phi, jac, quad, U=None) -> None:
    """Haug 1989, "Double spherical", scaled to metres: (|d|^2 - L^2) / (2 L) = 0."""
    U, d, cen, dd, _, _ = _separation(g, r, A, v, w, quad is not None, U)
    L = g.target
    phi[...] = ((d * d) @ _ONES3 - L * L) / (2.0 * L)
    if jac is not None:
        Lc = L[..., None]
        arms = cross(U, d[..., None, :, :]) / Lc                         # P x d of both ends
        jac[..., 0:3] = d / Lc
        jac[..., 3:6] = arms[..., 0, :, :]
        jac[..., 6:9] = -d / Lc
        jac[..., 9:12] = -arms[..., 1, :, :]
    if quad is not None:
        quad[...] = ((dd * dd + d * cen) @ _ONES3) / L


def dot1(g: RowGroup, r, A, v, w, phi, jac, quad, U=None) -> None:
    """Haug 1989, "Dot-1": a_I . b_J = 0 (a_I = ui on I, b_J = a on J: VECTORS "ia")."""
    U = _turned(g, A, U)
    ai, aj = U[..., 0, :, :], U[..., 1, :, :]
    phi[...] = (ai * aj) @ _ONES3
    if jac is not None:
        axb = cross(ai, aj)
        jac[..., 3:6] = axb
        jac[..., 9:12] = -axb
    if quad is not None:   # (w_I x (w_I x a)) . b + 2 (w_I x a) . (w_J x b) + a . (w_J x (w_J x b))
        wE = w.take(g.ends, axis=-2)
        C, X = _centripetal(wE, U), cross(wE, U)
        quad[...] = (C[..., 0, :, :] * aj + ai * C[..., 1, :, :]
                     + 2.0 * X[..., 0, :, :] * X[..., 1, :, :]) @ _ONES3


def angle(g: RowGroup, r, A, v, w, phi, jac, quad, U=None) -> None:
    """A motion's angle row: the joint angle of x_I from x_J about z_J (joint_angle;
    vectors x_I, x_J, y_J: VECTORS "iab")."""
    U = _turned(g, A, U)
    xi = U[..., 0, :, :]
    theta, grad, c, sn, rho, gc, gs = joint_angle(xi, U[..., 1:3, :, :])      # x_J, y_J
    phi[...] = theta
    if jac is not None:
        jac[..., 3:6] = grad
        jac[..., 9:12] = -grad
    if quad is not None:
        wE = w.take(g.ends, axis=-2)
        wr = wE[..., 0, :, :] - wE[..., 2, :, :]
        cd, sd = _dot(gc, wr), _dot(gs, wr)
        thd = (c * sd - sn * cd) / rho
        C, X = _centripetal(wE, U), cross(wE, U)
        # the velocity parts of d2(x_I . v_J)/dt2 for v_J = x_J, y_J (vectors 1, 2) at once
        q2 = (C[..., :1, :, :] * U[..., 1:, :, :] + 2.0 * X[..., :1, :, :] * X[..., 1:, :, :]
              + xi[..., None, :, :] * C[..., 1:, :, :]) @ _ONES3
        quad[...] = ((c * q2[..., 1, :] - sn * q2[..., 0, :]) / rho
                     - 2.0 * thd * (c * cd + sn * sd) / rho)


def spin_measure(Ri: np.ndarray, Rj: np.ndarray) -> np.ndarray:
    """(..., 3) vee(skew(Rj^T Ri)): the rotation of frame I relative to frame J (world axes
    Ri, Rj (..., 3, 3)) in J's axes, sin(theta) times the unit axis; a small rotation's
    rotation vector to first order, zero exactly when the frames agree."""
    M = einsum("...ki,...kj->...ij", Rj, Ri)
    return 0.5 * np.stack([M[..., 2, 1] - M[..., 1, 2], M[..., 0, 2] - M[..., 2, 0],
                           M[..., 1, 0] - M[..., 0, 1]], axis=-1)


def spin(g: RowGroup, r, A, v, w, phi, jac, quad, U=None) -> None:
    """A ball's relative rotation about marker J's axis e_k (model/plans.py ``spin_rows``),
    the rows friction holds while a spherical joint sticks.  phi = vee(skew(C_J^T C_I))_k
    (spin_measure, the design pose's C_I, C_J); the Jacobian is the relative angular
    velocity's component e_k . (w_I - w_J), which is d(phi)/dq exactly where C_I = C_J.
    Sticking holds the rows about the lock orientation L instead, phi = vee(skew(C_J^T C_I
    L^T)), whose gradient there is this Jacobian exactly (analyses/dynamics/friction.py
    ``lock_residual``); and d/dt (e_k . w_rel) = e_k . (alpha_I - alpha_J) + (w_J x e_k)
    . w_rel, so quad = (w_J x e_k) . w_rel."""
    U = _turned(g, A, U)               # VECTORS "iIab": I's axes k+1, k+2, J's k+2, k+1
    ui, ui2, a, b = U[..., 0, :, :], U[..., 1, :, :], U[..., 2, :, :], U[..., 3, :, :]
    phi[...] = 0.5 * (_dot(a, ui) - _dot(b, ui2))
    e = cross(b, a)                    # J's axis k = (k+1) x (k+2)
    if jac is not None:
        jac[..., 3:6] = e
        jac[..., 9:12] = -e
    if quad is not None:
        wj = w.take(g.bj, axis=-2)
        quad[...] = _dot(cross(wj, e), w.take(g.bi, axis=-2) - wj)



def euler_angle(g: RowGroup, r, A, v, w, phi, jac, quad, U=None) -> None:
    """A general motion's rotation row: body-fixed angle k (RowGroup.target: 0, 1, 2 for
    B1, B2, B3) of marker I relative to marker J (base/rotations.py ``euler_angles``;
    vectors x_I, y_I on I, x_J, y_J on J: VECTORS "iIab").  With the rotation axes e_l and
    their dual basis g_l (``euler_axes``), b_k' = g_k . (w_I - w_J): the Jacobian blocks
    g_k, -g_k.  Differentiating w_I - w_J = sum_l e_l b_l' gives b_k'' = g_k . (alpha_I -
    alpha_J) - g_k . sum_l e_l' b_l', the second term quad, with e1' = w_J x e1,
    e2' = b1' (x_J x e2) + w_J x e2, e3' = w_I x e3."""
    U = _turned(g, A, U)
    xi, yi, xj, yj = U[..., 0, :, :], U[..., 1, :, :], U[..., 2, :, :], U[..., 3, :, :]
    angles, cb = euler_angles(xi, yi, xj, yj)
    pick = np.eye(3)[g.target.astype(int)]                        # (n, 3): the row's angle
    phi[...] = (angles * pick) @ _ONES3
    if jac is None and quad is None:
        return
    E, G = euler_axes(xi, yi, xj, yj, angles, cb)                 # (..., 3, n, 3) each
    gk = einsum("...knd,nk->...nd", G, pick)
    if jac is not None:
        jac[..., 3:6] = gk
        jac[..., 9:12] = -gk
    if quad is not None:
        wI, wJ = w.take(g.bi, axis=-2), w.take(g.bj, axis=-2)
        rate = _dot(G, (wI - wJ)[..., None, :, :])                # (..., 3, n): b1', b2', b3'
        # e2 turned a quarter turn about e1: d e2 / d b1
        e2_turned = cross(xj, E[..., 1, :, :])
        de = np.stack([cross(wJ, xj), rate[..., 0, :, None] * e2_turned
                       + cross(wJ, E[..., 1, :, :]), cross(wI, E[..., 2, :, :])], axis=-3)
        quad[...] = -_dot(gk, (de * rate[..., None]).sum(axis=-3))

KERNELS = {AT: at_point, DOT2: dot2, DIST: distance, DOT1: dot1, ANGLE: angle, SPIN: spin,
           EULER: euler_angle}


def coordinates(model: Model, r, A, v=None, w=None, need_jac: bool = False, rates: bool = False):
    """The couplers' joint coordinates (angles raw in (-pi, pi], slides): (q, Jacobian
    blocks (..., n, 12) or None, with velocities quad, with ``rates`` dq/dt), by the same
    kernels as the motions' angle and slide rows."""
    cp = model.couplers
    lead = r.shape[:-2]
    q = np.empty(lead + (cp.n,))
    qj = np.zeros(lead + (cp.n, 12)) if need_jac or rates else None
    qq = None if v is None else np.empty(lead + (cp.n,))
    for g in cp.coords:
        KERNELS[g.kind](g, r, A, v, w, q[..., g.rows], None if qj is None else qj[..., g.rows, :],
                        None if qq is None else qq[..., g.rows])
    rate = None
    if rates:
        vw = np.concatenate([v, w], -1)
        ends = np.empty(lead + (cp.n, 2, 6))
        ends[..., 0, :] = vw[..., np.concatenate([g.bi for g in cp.coords]), :]
        ends[..., 1, :] = vw[..., np.concatenate([g.bj for g in cp.coords]), :]
        rate = einsum("...ke,...ke->...k", qj, ends.reshape(lead + (cp.n, 12)))
    return q, qj, qq, rate


def couplers(model: Model, r, A, v, w, phi, jac, quad, ref, track, rate) -> None:
    """The couplers' rows, sum_i s_i (q_i - q_i0), each angle on the turn nearest its value
    in ``ref`` (the tracked values of a nearby pose; None: the pose as built), so a gear pair
    holds its ratio over any number of turns; their Jacobian blocks (term i's joint at
    ends 2i, 2i+1) and quad.  Writes the coordinates and their rates into track, rate."""
    cp = model.couplers
    q, qj, qq, qd = coordinates(model, r, A, v, w, need_jac=jac is not None, rates=rate is not None)
    ref = cp.q0 if ref is None else ref[..., : cp.n]
    q = q + 2.0 * np.pi * np.where(cp.is_angle, ((ref - q) / (2.0 * np.pi)).round(), 0.0)
    track[..., : cp.n] = q
    if rate is not None:
        rate[..., : cp.n] = qd
    terms = q[..., cp.terms] * cp.scale
    phi[...] = np.add.reduce(terms, axis=-1) - cp.offset
    # after many turns the angles are large and their sum cancels: below its rounding (a few
    # ulps of the terms) the relation holds as well as doubles can tell, so it is met
    noise = 8.0 * _EPS * (np.add.reduce(np.abs(terms), axis=-1) + np.abs(cp.offset))
    phi[...] = np.where(np.abs(phi) <= noise, 0.0, phi)
    if jac is not None:
        blocks = qj[..., cp.terms, :] * cp.scale[..., None]           # (..., ncpl, T, 12)
        jac[..., : 12 * cp.terms.shape[1]] = blocks.reshape(blocks.shape[:-2] + (-1,))
    if quad is not None:
        quad[...] = einsum("...ct,...ct->...c", qq[..., cp.terms], cp.scale)
    if cp.mesh:
        mesh_rows(model, r, A, v, w, phi, jac, quad)


def mesh_forces(cp: Any, r: np.ndarray, A: np.ndarray) -> np.ndarray:
    """(..., 2 ng, 5) how much of each of its axle joint's five functions (CouplerPlan
    ``mesh``: (P_I - P_J) . x_J, . y_J, . z_J, z_I . x_J, . y_J) a meshing gear's row adds, so that
    its multiplier acts on the gears as the tooth force at the pitch point (Adams GEAR's
    common-velocity marker), not as torques about the axles.

    The pitch point P lies on the line between the axles (marker I origins c_1, c_2, axis
    z_1 = gear 1's z_J) where it divides the centre distance as the pitch radii do
    (``pitch_geometry``: r_1 / (r_1 + r_2) of it from axle 1, between the axles, when the
    gears turn opposite ways, r_1 / (r_1 - r_2), outside them, when they turn the same
    way, an internal mesh), half way between the markers along the axis.  On gear i
    (its joint's part I) the row's multiplier then acts as the force f_i at P, tangent to
    its pitch circle, with the torque s_i about its axis that the coupler's angle term
    gives: f_i = s_i / rho_i z_i x u_i (rho_i u_i: P's arm from the axle, across it); an
    external or internal mesh gives f_2 = -f_1, the teeth's action and reaction.  Added
    through the joint's functions, which vanish while it holds, the row keeps its value,
    the motion and its own multiplier; only the axle joints' multipliers change: they now
    carry the tooth force to the parts J (the housing) (Haug 1989: a row's multiplier
    acts on the parts as -J^T lambda)."""
    s = cp.scale[..., cp.mesh_coupler, :2]
    c, C, P, arm, f = pitch_geometry(s, cp.mesh_sense.reshape(-1, 2), cp.mesh_slide,
                                     cp.mesh_helix, cp.mesh_bi, cp.mesh_point, cp.mesh_bj,
                                     cp.mesh_axes, r, A)
    z, x, y = C[..., 2], C[..., 0], C[..., 1]
    turning = np.where(cp.mesh_slide, 0.0, s)      # an angle term's torque about z_J
    tau = cross(arm, f) - turning[..., None] * z    # what the tilt rows carry
    # along the axle: helical teeth's thrust (a rack's slide force is its own term's)
    along = np.where(cp.mesh_slide | (cp.mesh_helix == 0.0)[:, None], 0.0, _dot(f, z))
    out = np.empty(along.shape + (5,))
    out[..., 0], out[..., 1], out[..., 2] = _dot(f, x), _dot(f, y), along
    out[..., 3], out[..., 4] = _dot(tau, y), -_dot(tau, x)
    return out.reshape(c.shape[:-3] + (-1, 5))


def mesh_rows(model: Model, r: np.ndarray, A: np.ndarray, v: np.ndarray | None,
              w: np.ndarray | None, phi: np.ndarray, jac: np.ndarray | None,
              quad: np.ndarray | None) -> None:
    """Add to each meshing gear's row (phi, Jacobian blocks on its ends 0-3: gear 1's
    joint parts I, J, gear 2's, and quad) its axle joints' functions times ``mesh_forces``
    (the functions evaluated by the dot-2 and dot-1 kernels)."""
    cp = model.couplers
    lead, ng = r.shape[:-2], len(cp.mesh_coupler)
    coef = mesh_forces(cp, r, A)
    n = 5 * len(cp.mesh_bi)
    ph = np.empty(lead + (n,))
    jj = None if jac is None else np.zeros(lead + (n, 12))
    qq = None if quad is None else np.empty(lead + (n,))
    for g in cp.mesh:
        KERNELS[g.kind](g, r, A, v, w, ph[..., g.rows], None if jj is None else jj[..., g.rows, :],
                        None if qq is None else qq[..., g.rows])
    at, rows = cp.mesh_rows, cp.mesh_coupler

    def added(x: np.ndarray) -> np.ndarray:          # (..., ng): each gear's sum
        return np.add.reduce(_dot(coef, x[..., at]).reshape(lead + (ng, 2)), axis=-1)
    phi[..., rows] += added(ph)
    if quad is not None:
        quad[..., rows] += added(qq)
    if jac is not None:
        blocks = einsum("...uc,...uce->...ue", coef, jj[..., at, :])
        jac[..., rows, :24] += blocks.reshape(lead + (ng, 24))


def evaluate(model: Model, r: np.ndarray, A: np.ndarray, v: np.ndarray | None = None,
             w: np.ndarray | None = None, need_jac: bool = True,
             ref: np.ndarray | None = None, quads: np.ndarray | None = None,
             groups: np.ndarray | None = None) -> RowEval:
    """Residual, Jacobian and (with velocities) quad of every row.

    r (nb+1, 3), A (nb+1, 3, 3): COM positions and rotation matrices with the ground last
    (r = 0, A = I); v, w (nb+1, 3): COM and angular velocities, ground zero.  Any leading
    axes (e.g. frames: r (F, nb+1, 3)) are carried through: phi (F, nc), jac (F, nc, 12).
    The rows are computed grouped by kind, one kernel per kind (Model.plan), and put back
    in model order at the end.  need_jac=False skips the Jacobian (jac is None): for quad
    at a pose whose Jacobian is known.  ``ref`` (ntrack,) (or with the leading axes): the
    tracked values (RowEval.track) of a nearby pose, run state that the analyses carry from
    frame to frame: the couplers' angles are taken on its turns, the curve joints' contact
    parameters start from it; None: the pose as built (a global search on the curves).
    ``quads`` (one bool a group of ``model.plan``, or None: all): the groups whose quad is
    wanted (row_groups); the others' quad entries are NaN (a dynamic run's rows outside its
    kept set, a limit's and a friction's coordinate, need only phi and the Jacobian).
    ``groups`` (the same, or None: all): the groups evaluated at all; the others' entries
    are NaN (an event function's stop gaps or friction rates: their own rows only).
    """
    nc = model.nc
    plan = model.plan
    lead = r.shape[:-2]
    phi = np.empty(lead + (nc,))
    jac = np.zeros(lead + (nc, model.row_width)) if need_jac else None
    quad = None if v is None else np.empty(lead + (nc,))
    track = np.empty(lead + (model.ntrack,)) if model.ntrack else None
    rate = np.empty(lead + (model.ntrack,)) if model.ntrack and v is not None else None
    # every group's body-fixed vectors into world axes by one gather and one product
    U = None
    if plan.ends.size:      # (the ends' rotations gathered into numpy's own matmul loop)
        Ae = A.take(plan.ends, axis=-3, out=own_loop(A.shape[:-3] + plan.ends.shape + (3, 3)),
                    mode="clip")
        U = (Ae @ plan.vecs[..., None])[..., 0]
    for i, g in enumerate(plan.groups):
        s = g.rows
        views = (phi[..., s], None if jac is None else jac[..., s, :],
                 None if quad is None else quad[..., s])
        if groups is not None and not groups[i]:
            for x in views:
                if x is not None:
                    x[...] = np.nan
            continue
        if quads is not None and not quads[i] and quad is not None:
            quad[..., s] = np.nan
            views = views[:2] + (None,)
        if g.kind in TRACKED:
            TRACKED[g.kind](model, r, A, v, w, *views, ref, track, rate)
        else:
            KERNELS[g.kind](g, r, A, v, w, *views, U)
    if not plan.identity:                 # back to model row order
        inv = plan.inv
        phi = phi.take(inv, axis=-1)
        jac = None if jac is None else jac.take(inv, axis=-2)
        quad = None if quad is None else quad.take(inv, axis=-1)
    return RowEval(phi, jac, quad, track, rate)


TRACKED = {COUPLER: couplers, CURVE: point_on_curve, CAM: cam}


def row_groups(model: Model, rows: np.ndarray) -> np.ndarray:
    """(ngroups,) bool: the groups of ``model.plan`` with a row among ``rows`` (model row
    indices), for ``evaluate``'s ``quads`` or ``groups``; tracked groups always (their
    tracked values go with them)."""
    plan = model.plan
    wanted = np.zeros(model.nc, dtype=bool)
    wanted[rows] = True
    at = wanted[plan.order]                              # in the plan's (kind) order
    return np.array([g.kind in TRACKED or bool(at[g.rows].any()) for g in plan.groups])


def global_jacobian(model: Model, jac: np.ndarray) -> np.ndarray:
    """Dense (nc, 6 nb) Jacobian from row blocks (leading axes carried through); ground
    columns dropped.

    Columns of body b: 6b..6b+2 translation, 6b+3..6b+5 world rotation.  One gather and
    one scatter by the model's ``jacobian_layout``.
    """
    nc, nb = model.nc, model.nb
    src, dst, unique = model.jacobian_layout
    lead = jac.shape[:-2]
    J = np.zeros(lead + (nc * 6 * nb,))
    x = jac.reshape(lead + (-1,))[..., src]
    if unique:
        J[..., dst] = x
    else:                                          # (ends repeat for a coupler: added)
        np.add.at(np.moveaxis(J, -1, 0), dst, np.moveaxis(x, -1, 0))
    return J.reshape(lead + (nc, 6 * nb))


def row_rates(model: Model, rows: np.ndarray, jac: np.ndarray, vel: np.ndarray,
              ends: np.ndarray | None = None) -> np.ndarray:
    """(..., n) the rates J_row v of the given rows (a coordinate's q') from the rows'
    Jacobian blocks jac (..., nc, W) and body velocities vel (..., nb+1, 6) (ground last);
    ``ends``: model.row_ends[rows], if the caller keeps them."""
    ends = model.row_ends[rows] if ends is None else ends             # (n, E)
    blocks = jac.take(rows, axis=-2).reshape(jac.shape[:-2] + ends.shape + (6,))
    return einsum("...ked,...ked->...k", blocks, vel[..., ends, :])


def row_forces(model: Model, rows: np.ndarray, Qq: np.ndarray, jac: np.ndarray,
               nbg: int) -> np.ndarray:
    """(..., nbg, 6) the bodies' generalized forces J_row^T Q_q of forces Q_q (..., n) along
    the given rows' coordinates (ground row last)."""
    ends = model.row_ends[rows]
    blocks = jac[..., rows, :].reshape(jac.shape[:-2] + ends.shape + (6,)) * Qq[..., None, None]
    out = np.zeros(blocks.shape[:-3] + (nbg, 6))       # (Q_q may have more leading axes)
    np.add.at(np.moveaxis(out, -2, 0), ends.reshape(-1),
              np.moveaxis(blocks.reshape(blocks.shape[:-3] + (-1, 6)), -2, 0))
    return out


_UNIT_QUAT = np.array([1.0, 0.0, 0.0, 0.0])


def _with_ground(x: np.ndarray, ground: np.ndarray) -> np.ndarray:
    """x (..., n, k) with the row ``ground`` (k,) appended as row n."""
    out = np.empty(x.shape[:-2] + (x.shape[-2] + 1, x.shape[-1]))
    out[..., :-1, :] = x
    out[..., -1, :] = ground
    return out


def body_arrays(model: Model, r: np.ndarray, p: np.ndarray, v: np.ndarray | None = None,
                w: np.ndarray | None = None, A: np.ndarray | None = None):
    """Append the ground (index nb) to body arrays: (r, A, v, w) each with nb+1 rows
    (leading axes, e.g. frames, carried through); the ground's A is the unit quaternion's
    matrix, I exactly.  ``A``: the rotation matrices at p made already (with the ground),
    returned as they are (a sweep's rates at the poses its Newton evaluated last)."""
    zero = np.zeros(3)
    rg = _with_ground(r, zero)
    if A is None:
        A = quat_to_matrix(_with_ground(p, _UNIT_QUAT))
    if v is None:
        return rg, A, None, None
    return rg, A, _with_ground(v, zero), _with_ground(w, zero)


def motion_values(model: Model, t) -> np.ndarray:
    """(nmotion, 3): value, first and second time derivative of every motion at t; for
    times t (S,) (S, nmotion, 3), each function evaluated once on all of them."""
    return derivatives_of(model.motion_functions, t)


def limit_offsets(model: Model, q: np.ndarray, turns: np.ndarray | None = None) -> np.ndarray:
    """(..., nbound) q - bound of every bound from its row's coordinate q (..., nbound), an
    angle (atan2's, in (-pi, pi]) moved by whole turns to the turn nearest ``turns``
    (..., nbound): the joint's continuous angle at a nearby instant, run state that the
    analyses carry (analyses/limit_turns.py), so that a range wider than a turn and a
    joint past its stop keep their turns; None: the turn nearest the limit's centre
    (LimitPlan.centre, a pose with no history)."""
    lm = model.limits
    ang = model.row_kind[lm.rows] == ANGLE
    near = lm.centre if turns is None else turns
    q = np.where(ang, q + 2.0 * np.pi * np.round((near - q) / (2.0 * np.pi)), q)
    return q - lm.value


def residual(model: Model, phi: np.ndarray, f: np.ndarray,
             turns: np.ndarray | None = None) -> np.ndarray:
    """Constraint residuals with motion functions subtracted; angles wrapped to (-pi, pi],
    a limit's angle taken on the turn nearest ``turns`` (``limit_offsets``).
    phi (..., nc) and f (..., nmotion, 3) may carry leading axes (frames)."""
    res = phi.copy()
    lm = model.limits
    if lm is not None:              # a limit's row: the coordinate's distance from its bound
        res[..., lm.rows] = limit_offsets(model, phi[..., lm.rows], turns)
    drv, motion, ang = model.motion_rows
    if drv.size:
        fv = f[..., motion, 0]
        rd = res[..., drv] - fv
        if ang.size == drv.size:    # (every motion an angle: no gather and scatter)
            rd = (rd + np.pi) % (2.0 * np.pi) - np.pi
        elif ang.size:
            rd[..., ang] = (rd[..., ang] + np.pi) % (2.0 * np.pi) - np.pi
        # a motion's value after many turns: below its rounding the row is met (as couplers)
        noise = 8.0 * _EPS * (np.abs(fv) + np.pi)
        res[..., drv] = np.where(np.abs(rd) <= noise, 0.0, rd)
    return res
