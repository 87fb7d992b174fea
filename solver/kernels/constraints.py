"""Constraint primitives, evaluated for all rows at once (seed 003 "dot-1", "dot-2",
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

import numpy as np

from ..base.rotations import cross, quat_to_matrix, skew
from ..model.compile import Model
from ..spec.joints import ANGLE


@dataclass
class RowEval:
    phi: np.ndarray    # (nc,) residuals without motion functions (angle rows: the angle, rad)
    jac: np.ndarray    # (nc, 12) Jacobian blocks, see module docstring
    quad: np.ndarray   # (nc,) velocity-quadratic part of the second derivative, or None


def _dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.einsum("...i,...i->...", a, b)


def _rot(A: np.ndarray, u: np.ndarray) -> np.ndarray:
    """A_n u_n for stacks of matrices (..., n, 3, 3) and vectors (n, 3)."""
    return np.einsum("...nij,nj->...ni", A, u)


def evaluate(model: Model, r: np.ndarray, A: np.ndarray, v: np.ndarray | None = None,
             w: np.ndarray | None = None, need_jac: bool = True) -> RowEval:
    """Residual, Jacobian and (with velocities) quad of every row.

    r (nb+1, 3), A (nb+1, 3, 3): COM positions and rotation matrices with the ground last
    (r = 0, A = I); v, w (nb+1, 3): COM and angular velocities, ground zero.  Any leading
    axes (e.g. frames: r (F, nb+1, 3)) are carried through: phi (F, nc), jac (F, nc, 12).
    The rows are computed grouped by kind (contiguous slices, Model.kind_index) and put
    back in model order at the end.  need_jac=False skips the Jacobian (jac is None): for
    quad at a pose whose Jacobian is known.
    """
    nc = model.nc
    ix = model.kind_index
    bi, bj, ba = ix["bi"], ix["bj"], ix["ba"]
    lead = r.shape[:-2]
    phi = np.empty(lead + (nc,))
    jac = np.zeros(lead + (nc, 12)) if need_jac else None
    quad = None if v is None else np.empty(lead + (nc,))
    # world components of each row's body-fixed vectors and points (at-point rows: below)
    n_at = ix["at"].stop              # at-point rows first: their a is a constant world axis
    ui = np.empty(lead + (nc, 3))
    ui[..., n_at:, :] = _rot(A[..., bi[n_at:], :, :], ix["ui"][n_at:])
    a = np.empty(lead + (nc, 3))
    a[..., :n_at, :] = ix["a"][:n_at]
    a[..., n_at:, :] = _rot(A[..., ba[n_at:], :, :], ix["a"][n_at:])

    # at-point (seed 003 "Spherical"): the world x, y, z of P_I - P_J, three rows per joint
    # point, computed once per point; d/dpi_I of row k is (P_I x e_k) = row k of -[P_I x]
    s = ix["at"]
    if s.stop:
        tp = ix["at_points"]
        Pi = _rot(A[..., bi[tp], :, :], ix["ui"][tp])
        Pj = _rot(A[..., bj[tp], :, :], ix["uj"][tp])
        phi[..., s] = (r[..., bi[tp], :] + Pi - r[..., bj[tp], :] - Pj).reshape(lead + (-1,))
        if need_jac:
            e = ix["a"][s]
            jac[..., s, 0:3] = e
            jac[..., s, 3:6] = -skew(Pi).reshape(lead + (-1, 3))
            jac[..., s, 6:9] = -e
            jac[..., s, 9:12] = skew(Pj).reshape(lead + (-1, 3))
        if quad is not None:   # centripetal part of d2(P_I - P_J)/dt2
            wi, wj = w[..., bi[tp], :], w[..., bj[tp], :]
            cen = cross(wi, cross(wi, Pi)) - cross(wj, cross(wj, Pj))
            quad[..., s] = cen.reshape(lead + (-1,))

    # dot-2: a . (P_I - P_J) = 0 (seed 003 "Dot-2")
    # distance: (|d|^2 - L^2) / (2 L) = 0 (seed 003 "Double spherical", scaled to metres)
    pt = slice(n_at, ix["point"].stop)
    if pt.stop > pt.start:
        pi_ = ui[..., pt, :]
        pj_ = _rot(A[..., bj[pt], :, :], ix["uj"][pt])
        d = r[..., bi[pt], :] + pi_ - r[..., bj[pt], :] - pj_
        if quad is not None:
            wi, wj = w[..., bi[pt], :], w[..., bj[pt], :]
            cen = cross(wi, cross(wi, pi_)) - cross(wj, cross(wj, pj_))
            dd = v[..., bi[pt], :] + cross(wi, pi_) - v[..., bj[pt], :] - cross(wj, pj_)

        def local(s: slice) -> slice:      # a group's rows within the dot-2 + distance rows
            return slice(s.start - n_at, s.stop - n_at)
        s = ix["dot2"]
        if s.stop > s.start:
            q = local(s)
            ak, dk, uik, ujk = a[..., s, :], d[..., q, :], pi_[..., q, :], pj_[..., q, :]
            onj = ix["a_on_j"][s][:, None]
            phi[..., s] = _dot(ak, dk)
            if need_jac:
                jac[..., s, 0:3] = ak
                jac[..., s, 3:6] = cross(uik, ak)
                jac[..., s, 6:9] = -ak
                jac[..., s, 9:12] = onj * cross(ak, dk) + cross(ak, ujk)
            if quad is not None:
                wa = w[..., ba[s], :]
                quad[..., s] = (_dot(cross(wa, cross(wa, ak)), dk)
                                + 2.0 * _dot(cross(wa, ak), dd[..., q, :]) + _dot(ak, cen[..., q, :]))
        s = ix["dist"]
        if s.stop > s.start:
            q = local(s)
            dk, uik, ujk = d[..., q, :], pi_[..., q, :], pj_[..., q, :]
            L = ix["target"][s]
            phi[..., s] = (_dot(dk, dk) - L * L) / (2.0 * L)
            if need_jac:
                Lc = L[:, None]
                jac[..., s, 0:3] = dk / Lc
                jac[..., s, 3:6] = cross(uik, dk) / Lc
                jac[..., s, 6:9] = -dk / Lc
                jac[..., s, 9:12] = -cross(ujk, dk) / Lc
            if quad is not None:
                ddk = dd[..., q, :]
                quad[..., s] = (_dot(ddk, ddk) + _dot(dk, cen[..., q, :])) / L

    # dot-1: a_I . b_J = 0 (seed 003 "Dot-1"), a_I = ui, b_J = a
    s = ix["dot1"]
    if s.stop > s.start:
        ai, aj = ui[..., s, :], a[..., s, :]
        phi[..., s] = _dot(ai, aj)
        if need_jac:
            axb = cross(ai, aj)
            jac[..., s, 3:6] = axb
            jac[..., s, 9:12] = -axb
        if quad is not None:
            wi, wj = w[..., bi[s], :], w[..., bj[s], :]
            quad[..., s] = (_dot(cross(wi, cross(wi, ai)), aj)
                            + 2.0 * _dot(cross(wi, ai), cross(wj, aj))
                            + _dot(ai, cross(wj, cross(wj, aj))))

    # angle of x_I from x_J about z_J: theta = atan2(x_I . y_J, x_I . x_J)
    s = ix["angle"]
    if s.stop > s.start:
        xi, xj = ui[..., s, :], a[..., s, :]
        yj = _rot(A[..., bj[s], :, :], ix["b"][s])
        c, sn = _dot(xi, xj), _dot(xi, yj)
        rho = c * c + sn * sn
        gc, gs = cross(xi, xj), cross(xi, yj)      # d c / d pi_I, d s / d pi_I
        phi[..., s] = np.arctan2(sn, c)
        if need_jac:
            g = (c[..., None] * gs - sn[..., None] * gc) / rho[..., None]
            jac[..., s, 3:6] = g
            jac[..., s, 9:12] = -g
        if quad is not None:
            wi, wj = w[..., bi[s], :], w[..., bj[s], :]
            wr = wi - wj
            cd, sd = _dot(gc, wr), _dot(gs, wr)
            thd = (c * sd - sn * cd) / rho
            wxi = cross(wi, xi)

            def q2(vj: np.ndarray) -> np.ndarray:  # velocity part of d2(x_I . v_J)/dt2
                return (_dot(cross(wi, wxi), vj) + 2.0 * _dot(wxi, cross(wj, vj))
                        + _dot(xi, cross(wj, cross(wj, vj))))

            quad[..., s] = (c * q2(yj) - sn * q2(xj)) / rho - 2.0 * thd * (c * cd + sn * sd) / rho
    if not ix["identity"]:                 # back to model row order
        inv = ix["inv"]
        phi = phi[..., inv]
        jac = None if jac is None else jac[..., inv, :]
        quad = None if quad is None else quad[..., inv]
    return RowEval(phi, jac, quad)


def global_jacobian(model: Model, jac: np.ndarray) -> np.ndarray:
    """Dense (nc, 6 nb) Jacobian from row blocks (leading axes carried through); ground
    columns dropped.

    Columns of body b: 6b..6b+2 translation, 6b+3..6b+5 world rotation.
    """
    nc, nb = model.nc, model.nb
    J = np.zeros(jac.shape[:-2] + (nc, 6 * (nb + 1)))
    rows = np.arange(nc)[:, None]
    J[..., rows, 6 * model.row_bi[:, None] + np.arange(6)] += jac[..., :6]
    J[..., rows, 6 * model.row_bj[:, None] + np.arange(6)] += jac[..., 6:]
    return J[..., : 6 * nb]


def _with_ground(x: np.ndarray, ground: np.ndarray) -> np.ndarray:
    """x (..., n, *ground.shape) with ground appended as row n."""
    ax = x.ndim - ground.ndim - 1              # the body axis
    shape = list(x.shape)
    shape[ax] += 1
    out = np.empty(shape)
    out[(Ellipsis, slice(0, x.shape[ax])) + (slice(None),) * ground.ndim] = x
    out[(Ellipsis, x.shape[ax]) + (slice(None),) * ground.ndim] = ground
    return out


def body_arrays(model: Model, r: np.ndarray, p: np.ndarray, v: np.ndarray | None = None,
                w: np.ndarray | None = None):
    """Append the ground (index nb) to body arrays: (r, A, v, w) each with nb+1 rows
    (leading axes, e.g. frames, carried through)."""
    zero = np.zeros(3)
    rg = _with_ground(r, zero)
    A = _with_ground(quat_to_matrix(p), np.eye(3))
    if v is None:
        return rg, A, None, None
    return rg, A, _with_ground(v, zero), _with_ground(w, zero)


def motion_values(model: Model, t: float) -> np.ndarray:
    """(nmotion, 3): value, first and second time derivative of every motion at t."""
    if not model.motion_functions:
        return np.zeros((0, 3))
    return np.array([fn.derivatives(t) for fn in model.motion_functions], dtype=float)


def residual(model: Model, phi: np.ndarray, f: np.ndarray) -> np.ndarray:
    """Constraint residuals with motion functions subtracted; angles wrapped to (-pi, pi].
    phi (..., nc) and f (..., nmotion, 3) may carry leading axes (frames)."""
    res = phi.copy()
    drv = model.row_motion >= 0
    if drv.any():
        res[..., drv] -= f[..., model.row_motion[drv], 0]
        ang = drv & (model.row_kind == ANGLE)
        res[..., ang] = (res[..., ang] + np.pi) % (2.0 * np.pi) - np.pi
    return res
