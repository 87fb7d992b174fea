"""Force elements: translational spring-damper-actuators between two markers, torsion
spring-damper-actuators on a joint's angle, bushings (six-component spring-dampers between
two markers, model/bushings.py), and applied forces and torques at a marker
(Nikravesh 1988, "Translational / Rotational spring-damper-actuator", Haug 1989's generalized forces).

Sign conventions
- Spring-damper between markers I and J: tension
  ``f = k (l - L0) + c dl/dt + preload + friction * tanh((dl/dt) / V_FRICTION) + actuator(t, l, dl/dt)``
  pulls the two markers together (positive f: force on I toward J), l = |P_J - P_I|.
  ``preload`` is the tension at the free length (negative: a compressed, pushing spring).
- Torsion spring on a joint: ``T = k (theta - theta0) + c dtheta/dt + preload + friction
  * tanh(...) + actuator(t, angle, speed)`` resists the joint angle theta (angle of x_I from
  x_J about z_J, continuous over turns): torque -T on part I, +T on part J.
- Compliant stop on a joint limit's bound (vocabulary/limits.py, Adams IMPACT): a push
  ``F = max(0, k delta^n + c(delta) d delta/dt) >= 0`` along the coordinate back into its
  range, delta the penetration past the bound (kernels/stop_forces.py).
- Coulomb friction is smoothed by tanh over V_FRICTION (1 mm/s, 1 mrad/s) so the
  equations stay smooth for the integrator.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from ..base.einsum import einsum
from ..base.rotations import congruence, cross, skew
from ..model.bushings import bushing_state, potential as bushing_potential, power as bushing_power
from ..model.bushings import jacobian_blocks as bushing_blocks, world_loads as bushing_loads
from ..model.force_model import ForceModel
from ..model.springs import V_FRICTION
from ..model.springs import actuator_value as _actuator, fixed as _fixed, on_turn as _on_turn
from ..model.springs import spring_dampers as _spring_dampers, spring_law as _law
from ..model.springs import zero_terms as _zero_terms
from ..model.springs import torsion_geometry as _torsion_angles
from ..model.vector_forces import jacobians as vector_force_jacobians
from ..model.vector_forces import power as vector_force_power, vector_force_state
from ..model.vector_forces import world_loads as vector_force_loads
from ..vocabulary.timefunctions import values_of
from .contacts import ContactEval, contact_forces, contact_jacobians

_ONES3 = np.ones(3)


@dataclass
class ForceEval:
    """Generalized forces Q (nb+1, 6) (ground row last, force and moment about the COM) and
    what energy bookkeeping needs."""
    Q: np.ndarray
    power_nc: float           # power of dampers, friction, actuators and loads, W
    sd_length: np.ndarray
    sd_tension: np.ndarray
    ts_angle: np.ndarray
    ts_torque: np.ndarray
    fm: ForceModel | None = None
    bu_disp: np.ndarray | None = None     # (..., n, 6) bushings' displacements (model/bushings.py)
    contact: ContactEval | None = None      # the contacts' forces (kernels/contacts.py)

    @property
    def potential(self):
        """The springs' and contacts' stored energy (k and preload terms; the contacts'
        elastic part), J (a float, or one per state with leading axes): made when asked
        (output frames), not at every right-hand side."""
        fm = self.fm
        if fm is None:
            return 0.0
        L, th = self.sd_length, self.ts_angle
        pot = ((0.5 * fm.sd_k * (L - fm.sd_L0) ** 2 + fm.sd_pre * L).sum(-1)
               + (0.5 * fm.ts_k * (th - fm.ts_th0) ** 2 + fm.ts_pre * th).sum(-1))
        if self.bu_disp is not None:
            pot = pot + bushing_potential(fm, self.bu_disp)
        if self.contact is not None:
            pot = pot + self.contact.potential
        return float(pot) if not np.ndim(pot) else pot


_NO_FORCES = ForceEval(np.zeros((0, 6)), 0.0, np.zeros(0), np.zeros(0), np.zeros(0), np.zeros(0))


def _dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return einsum("...i,...i->...", a, b)


class _Torsions(NamedTuple):
    """Torsion-spring angles and torques at one state (one entry per element)."""
    xi: np.ndarray       # (n, 3) x_I, x_J, y_J in world axes
    xj: np.ndarray
    yj: np.ndarray
    angle: tuple         # joint_angle's (theta, g, c, s, rho, gc, gs)
    th: np.ndarray       # (n,) angle on the turn of ts_ref
    thd: np.ndarray      # (n,) its rate g . (w_I - w_J)
    tanh: np.ndarray
    tnc: np.ndarray      # (n,) the non-conservative part of the torque
    T: np.ndarray        # (n,) torque


def torsion_angles(fm: ForceModel, A: np.ndarray, ts_ref: np.ndarray,
                   w: np.ndarray | None = None) -> Any:
    """Each torsion spring's joint angle (..., n) at rotation matrices A (..., nb+1, 3, 3)
    on the atan2 branch nearest ts_ref: ForceEval.ts_angle without the rest of the
    forces (a run keeps it after each step, so that the next step's stages take the same
    turn).  Given angular velocities w (..., nb+1, 3), (angle, rate): the rate (rad/s)
    g . (w_I - w_J), the one the torque's damping reads."""
    angle, th = _torsion_angles(fm, A, ts_ref)[3:]
    if w is None:
        return th
    return th, ((w.take(fm.ts_bi, axis=-2) - w.take(fm.ts_bj, axis=-2)) * angle[1]) @ _ONES3


def _torsions(fm: ForceModel, t: float, A, w, ts_ref, rows=None) -> _Torsions:
    """Nikravesh 1988, "Rotational spring-damper-actuator" on the joint angle: T = k (theta -
    theta0) + preload + c dtheta/dt + friction tanh(dtheta/dt / V) + actuator(t, theta,
    dtheta/dt), theta on the atan2 branch nearest ts_ref.  ``rows``: the constraint rows'
    (phi, jac) at this state, read for the angle and its gradient when every spring's joint
    has an angle row (ForceModel.ts_row; then x_I, x_J, y_J and the angle's other parts
    are None: the force needs only theta and its gradient)."""
    bi, bj = fm.ts_bi, fm.ts_bj
    if rows is not None and _angles_in_rows(fm):
        xi = xj = yj = None
        raw = rows[0].take(fm.ts_row, axis=-1)
        angle = (raw, rows[1].take(fm.ts_row, axis=-2)[..., 3:6])
        th = _on_turn(raw, ts_ref)
    else:
        xi, xj, yj, angle, th = _torsion_angles(fm, A, ts_ref)
    ground = w.shape[-2] - 1
    if _fixed(fm, ("ts_grounded", ground), lambda: bool((fm.ts_bj == ground).all())):
        thd = (w.take(bi, axis=-2) * angle[1]) @ _ONES3     # w_J = 0 (x - 0 is x)
    else:
        thd = ((w.take(bi, axis=-2) - w.take(bj, axis=-2)) * angle[1]) @ _ONES3
    pre, fric = _zero_terms(fm, "ts")
    tanh, tnc, T = _law("torsion spring", fm.ts_names, fm.ts_k, fm.ts_th0, pre, fm.ts_c,
                        fric, fm.ts_act, t, th, thd)
    return _Torsions(xi, xj, yj, angle, th, thd, tanh, tnc, T)


def torsion_angles_in_rows(fm: ForceModel, phi: np.ndarray, ts_ref: np.ndarray):
    """torsion_angles read from the constraint rows' values phi (..., nc), or None unless
    every spring's joint has an angle row (ForceModel.ts_row)."""
    return _on_turn(phi.take(fm.ts_row, axis=-1), ts_ref) if _angles_in_rows(fm) else None


def _angles_in_rows(fm: ForceModel) -> bool:
    """Whether every torsion spring's joint angle is a constraint row's (ForceModel.ts_row)."""
    return _fixed(fm, "ts_in_rows", lambda: bool(fm.ts_row.size) and bool((fm.ts_row >= 0).all()))


def _loads(fm: ForceModel, t: float, A) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(F, T, s) (n, 3) each: every applied load's force and torque in world axes (turned
    by the marker's axes when given in them) and its point's arm from the centre of mass."""
    vals = values_of(fm.ld_funcs, t)        # (n, 6), (S, n, 6) for S times, (V, n, 6) per variant
    Ab = A[..., fm.ld_body, :, :]
    axes = einsum("...nij,...njk->...nik", Ab, fm.ld_axes)
    inm = fm.ld_in_marker[:, None]
    F = np.where(inm, einsum("...nij,...nj->...ni", axes, vals[..., :3]), vals[..., :3])
    Tq = np.where(inm, einsum("...nij,...nj->...ni", axes, vals[..., 3:]), vals[..., 3:])
    return F, Tq, einsum("...nij,...nj->...ni", Ab, fm.ld_point)


def evaluate_forces(fm: ForceModel, t, r: np.ndarray, A: np.ndarray, v: np.ndarray,
                    w: np.ndarray, ts_ref: np.ndarray, onset: np.ndarray | None = None,
                    rows: tuple[np.ndarray, np.ndarray] | None = None) -> ForceEval:
    """Generalized forces of all force elements at one state (arrays with the ground last).

    ``ts_ref`` (nts,) is a recent value of each torsion angle (or one per state, (..., nts):
    a sweep's frames, each the frame before's); the angle returned is the branch of atan2
    nearest to it, so springs wound past half a turn keep their torque.
    With t an array (S,) and one leading axis S on r, A, v, w: S states at once (the stages
    of an implicit step), every field of the result with that axis.  ``onset``: the contact
    points' approach speeds at touchdown (kernels/contacts.py; None: not tracked).
    ``rows``: the constraint rows' (phi, jac) at this state (kernels/constraints.py
    ``evaluate``), when the caller has them: a torsion spring whose joint has an angle row
    reads its angle and gradient there (ForceModel.ts_row), not computed a second time.
    """
    Q = np.zeros(r.shape[:-1] + (6,))
    pnc = 0.0
    nbg = r.shape[-2]
    # translational spring-damper-actuators (Nikravesh 1988)
    n = len(fm.sd_names)
    L = fsd = np.zeros(0)
    if n:
        sd = _spring_dampers(fm, t, r, A, v, w)
        L, fsd = sd.L, sd.f
        F = fsd[..., None] * sd.u                         # on I; -F on J
        Fe = np.concatenate([F, -F], axis=-2)
        arms = sd.arms                                    # si, then sj
        Q = _incidence(fm, "sd", nbg) @ np.concatenate([Fe, cross(arms, Fe)], axis=-1)
        pnc = -np.add.reduce(sd.fnc * sd.Ld, axis=-1)
    # torsion springs: generalized torque -T dtheta/dpi (the angle row's Jacobian g)
    n = len(fm.ts_names)
    th = T = np.zeros(0)
    if n:
        ts = _torsions(fm, t, A, w, ts_ref, rows)
        th, T = ts.th, ts.T
        tq = T[..., None] * ts.angle[1]
        gen = np.zeros(tq.shape[:-2] + (2 * n, 6))
        gen[..., :n, 3:], gen[..., n:, 3:] = -tq, tq
        Q = Q + _incidence(fm, "ts", nbg) @ gen
        pnc = pnc - np.add.reduce(ts.tnc * ts.thd, axis=-1)
    # applied forces and torques at markers
    n = len(fm.ld_names)
    if n:
        b = fm.ld_body
        F, Tq, s = _loads(fm, t, A)
        _scatter(Q, b, np.concatenate([F, cross(s, F) + Tq], axis=-1))
        vp = v[..., b, :] + cross(w[..., b, :], s)
        pnc = pnc + np.sum(_dot(F, vp) + _dot(Tq, w[..., b, :]), axis=-1)
    # bushings (Adams BUSHING; model/bushings.py)
    disp = None
    if len(fm.bu_names):
        bs = bushing_state(fm, r, A, v, w)
        on_i, on_j = bushing_loads(bs)
        Q = Q + _incidence(fm, "bu", nbg) @ np.concatenate([on_i, on_j], axis=-2)
        pnc = pnc + bushing_power(fm, bs)
        disp = bs.disp
    # vector forces (Adams GFORCE; model/vector_forces.py): functions of time and state
    if len(fm.vf_names):
        vs = vector_force_state(fm, t, r, A, v, w)
        on_i, on_j = vector_force_loads(vs)
        Q = Q + _incidence(fm, "vf", nbg) @ np.concatenate([on_i, on_j], axis=-2)
        pnc = pnc + vector_force_power(vs)
    ce = None
    if fm.contacts is not None:          # contacts between parts (kernels/contacts.py)
        ce = contact_forces(fm.contacts, r, A, v, w, onset)
        Q = Q + ce.Q
        pnc = pnc + ce.power_nc
    if not getattr(pnc, "ndim", 0):       # (np.ndim without its wrapper)
        pnc = float(pnc)
    return ForceEval(Q, pnc, L, fsd, th, T, fm, disp, ce)


def _incidence(fm: ForceModel, kind: str, nbg: int) -> np.ndarray:
    """(nbg, 2 n) the 0/1 matrix that adds each element's loads on its I ends (first n
    columns) and J ends (last n) into the bodies' rows: the scatter of many elements as one
    product, leading axes carried by matmul.  Made once per force model and body count."""
    key = (kind, nbg)
    cache = fm.__dict__.setdefault("_incidence", {})
    if key not in cache:
        ends = np.concatenate([getattr(fm, kind + "_bi"), getattr(fm, kind + "_bj")])
        S = np.zeros((nbg, len(ends)))
        S[ends, np.arange(len(ends))] = 1.0
        S.setflags(write=False)
        cache[key] = S
    return cache[key]


def _scatter(Q: np.ndarray, bodies: np.ndarray, vals: np.ndarray) -> None:
    """Q[..., bodies, :] += vals with repeated bodies summed (leading axes carried)."""
    np.add.at(np.moveaxis(Q, -2, 0), bodies, np.moveaxis(vals, -2, 0))


def total_forces(model: Any, t: float, rg: np.ndarray, A: np.ndarray, vg: np.ndarray,
                 wg: np.ndarray, ts_ref: np.ndarray, Iw: np.ndarray | None = None,
                 onset: np.ndarray | None = None,
                 rows: tuple[np.ndarray, np.ndarray] | None = None,
                 out: np.ndarray | None = None) -> tuple[np.ndarray, ForceEval]:
    """Q (nb, 6): gravity at the centre of mass, gyroscopic moment -w x (I_w w) and every
    force element, as force and moment about each body's centre of mass (world axes).
    Iw: the world inertia A I A^T if the caller has it (else computed); ``onset``: the
    contact points' touchdown speeds; ``rows``: the rows' (phi, jac) here (evaluate_forces);
    ``out``: body_loads' buffer (a right-hand side's), Q itself when no element acts."""
    if model.forces.empty:
        return body_loads(model, A, wg, Iw, out)[0], _NO_FORCES
    fe = evaluate_forces(model.forces, t, rg, A, vg, wg, ts_ref, onset, rows)
    return fe.Q[..., : model.nb, :] + body_loads(model, A, wg, Iw)[0], fe


def body_loads(model: Any, A: np.ndarray, wg: np.ndarray, Iw: np.ndarray | None = None,
               out: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(Q (..., nb, 6): gravity at each centre of mass and the gyroscopic moment
    -w x (I_w w); I_w (..., nb, 3, 3) = A I A^T) for rotation matrices and angular
    velocities with at least nb rows (leading axes, e.g. frames, carried through).
    ``out`` (..., nb, 6): Q's buffer with the weights in its forces already (a right-hand
    side's, equations._Work), its moments written."""
    nb = model.nb
    w = wg[..., :nb, :]
    if Iw is None:
        Iw = congruence(A[..., :nb, :, :], model.body_inertia)
    if out is None:
        Q = np.empty(w.shape[:-1] + (6,))
        Q[..., :3] = model.body_weight
    else:
        Q = out
    Q[..., 3:] = cross((Iw @ w[..., None])[..., 0], w)    # (-(a x b) = b x a to the bit)
    return Q, Iw


def inertia_world(model: Any, A: np.ndarray) -> np.ndarray:
    """(nb, 3, 3) inertia about the centre of mass in world axes, A I A^T."""
    return congruence(A, model.body_inertia)


# ---------------------------------------------------------------- force Jacobians
# K = dQ/dq and C = dQ/dv of total_forces, with q_b = (delta r_b, delta pi_b) (COM shift and
# small world-axes turn) and v_b = (v_b, w_b), world axes: what an implicit integrator's
# iteration matrix and the stiffness rate need.  The chain rule of each force element's
# formula, as Nikravesh 1988 differentiates it in time ("Translational spring-damper-actuator":
# F_dot = (f_dot l d + f l d_dot - f l_dot d) / l^2), here in the coordinates instead.
# Identities used: d(pi x s) = -[s x] d pi; [a x][b x] - [b x][a x] = [(a x b) x].

def _act_slopes(acts: list, what: str, names: list, t: float, x: np.ndarray,
                xd: np.ndarray, scale: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(d act/dx, d act/dxd) of user actuators by central differences (steps 1e-6 of the
    value's size plus ``scale``; truncation about 1e-12, rounding about 1e-10 of the
    actuator's size over that step): the one place a force Jacobian is not analytic, since
    an actuator is any function of (t, x, xd), a user's callable included."""
    dx, dxd = np.zeros(len(acts)), np.zeros(len(acts))
    for k, act in enumerate(acts):
        if act is None:
            continue
        label = f"{what} {names[k]!r}"
        hx = 1e-6 * (abs(x[k]) + scale[k])
        hv = 1e-6 * (abs(xd[k]) + scale[k])
        dx[k] = (_actuator(act, label, t, x[k] + hx, xd[k])
                 - _actuator(act, label, t, x[k] - hx, xd[k])) / (2.0 * hx)
        dxd[k] = (_actuator(act, label, t, x[k], xd[k] + hv)
                  - _actuator(act, label, t, x[k], xd[k] - hv)) / (2.0 * hv)
    return dx, dxd


def _add_blocks(G: np.ndarray, rows: np.ndarray, cols: np.ndarray, blocks: np.ndarray) -> None:
    """G[..., rows[n], :, cols[n], :] += blocks[..., n, :, :] for (..., n, a, b) blocks, in
    element order (repeats add up one after the other, as np.add.at adds them); leading
    axes: a study's variants."""
    ra, rb = blocks.shape[-2:]
    for k, (i, j) in enumerate(zip(rows.tolist(), cols.tolist())):
        G[..., i, :ra, j, :rb] += blocks[..., k, :, :]


def _spring_damper_jacobian(fm: ForceModel, t, r, A, v, w, K, C, coulomb: bool) -> None:
    """Spring-dampers: F = f u on I at P_I, -F on J at P_J (d = P_J - P_I, u = d / l, d_dot
    the relative velocity): dF = Kd delta(d) + Cd delta(d_dot) with
    Kd = (f / l) P + k' u u^T + (c' / l) u (P d_dot)^T, Cd = c' u u^T, P = I - u u^T,
    k' = k + d act/dl, c' = c + the friction's slope + d act/d(dl/dt); delta(P_b) = G_b dq_b
    with G_b = [I, -[s_b x]], and the point's velocity turns with the body too,
    delta(w_b x s_b) = -[w_b x][s_b x] d pi_b; Q_I = G_I^T F gains [0; [F x][s_I x] d pi_I].
    Leading axes (a study's variants) carried through, without actuators."""
    bi, bj = fm.sd_bi, fm.sd_bj
    arms, u, L, dd, Ld, tanh, _, f = _spring_dampers(fm, t, r, A, v, w)
    n = len(fm.sd_names)
    si, sj = arms[..., :n, :], arms[..., n:, :]
    if np.ndim(L) > 1:
        if any(a is not None for a in fm.sd_act):
            raise ValueError("stacked spring-damper Jacobians take no actuators")
        dl = dld = 0.0
    else:
        dl, dld = _act_slopes(fm.sd_act, "spring-damper", fm.sd_names, t, L, Ld, L)
    kp = fm.sd_k + dl
    cp = fm.sd_c + coulomb * fm.sd_fric * (1.0 - tanh * tanh) / V_FRICTION + dld
    uu = u[..., :, None] * u[..., None, :]
    P = np.eye(3) - uu
    Pdd = einsum("...nij,...nj->...ni", P, dd)
    Kd = (f / L)[..., None, None] * P + kp[..., None, None] * uu \
        + (cp / L)[..., None, None] * (u[..., :, None] * Pdd[..., None, :])
    Cd = cp[..., None, None] * uu
    F = f[..., None] * u

    def G(s: np.ndarray) -> np.ndarray:            # (..., n, 3, 6): [I, -[s x]]
        out = np.zeros(s.shape[:-1] + (3, 6))
        out[..., :, :3] = np.eye(3)
        out[..., :, 3:] = -skew(s)
        return out

    Gi, Gj = G(si), G(sj)
    Gti, Gtj = Gi.swapaxes(-1, -2), Gj.swapaxes(-1, -2)
    dFq_i = -Kd @ Gi
    dFq_i[..., :, 3:] += Cd @ skew(w[..., bi, :]) @ skew(si)
    dFq_j = Kd @ Gj
    dFq_j[..., :, 3:] -= Cd @ skew(w[..., bj, :]) @ skew(sj)
    dFv_i, dFv_j = -Cd @ Gi, Cd @ Gj
    turn_i = np.zeros(si.shape[:-1] + (6, 6))
    turn_i[..., 3:, 3:] = skew(F) @ skew(si)
    turn_j = np.zeros(si.shape[:-1] + (6, 6))
    turn_j[..., 3:, 3:] = skew(F) @ skew(sj)
    _add_blocks(K, bi, bi, Gti @ dFq_i + turn_i)
    _add_blocks(K, bi, bj, Gti @ dFq_j)
    _add_blocks(K, bj, bi, -Gtj @ dFq_i)
    _add_blocks(K, bj, bj, -Gtj @ dFq_j - turn_j)
    _add_blocks(C, bi, bi, Gti @ dFv_i)
    _add_blocks(C, bi, bj, Gti @ dFv_j)
    _add_blocks(C, bj, bi, -Gtj @ dFv_i)
    _add_blocks(C, bj, bj, -Gtj @ dFv_j)


def _torsion_jacobian(fm: ForceModel, t, A, w, ts_ref, K, C, coulomb: bool) -> None:
    """Torsion springs: moment -T g on I, +T g on J, g = d theta / d pi_I = -d theta / d pi_J
    (joint_angle), theta_dot = g . (w_I - w_J).  g = (c gs - s gc) / rho turns with the
    bodies: with c = x_I . x_J, s = x_I . y_J, gc = x_I x x_J, gs = x_I x y_J,
    dc/dpi_I = gc, ds/dpi_I = gs, dgc/dpi_I = [x_J x][x_I x], dgs/dpi_I = [y_J x][x_I x],
    and for pi_J the negatives with dgc/dpi_J = -[x_I x][x_J x], dgs/dpi_J = -[x_I x][y_J x].
    Leading axes (a study's variants) carried through, without actuators."""
    bi, bj = fm.ts_bi, fm.ts_bj
    xi, xj, yj, angle, th, thd, tanh, _, T = _torsions(fm, t, A, w, ts_ref)
    _, g, c, s, rho, gc, gs = angle
    dw = w[..., bi, :] - w[..., bj, :]
    if np.ndim(th) > 1:
        if any(a is not None for a in fm.ts_act):
            raise ValueError("stacked torsion-spring Jacobians take no actuators")
        dth = dthd = 0.0
    else:
        dth, dthd = _act_slopes(fm.ts_act, "torsion spring", fm.ts_names, t, th, thd,
                                np.ones(len(th)))
    kp = fm.ts_k + dth
    cp = fm.ts_c + coulomb * fm.ts_fric * (1.0 - tanh * tanh) / V_FRICTION + dthd
    Xi, Xj, Yj = skew(xi), skew(xj), skew(yj)
    outer = np.einsum                                   # outer(a, b) = a b^T per element

    def dg(sign: float, dgc: np.ndarray, dgs: np.ndarray) -> np.ndarray:
        dc, ds = sign * gc, sign * gs
        drho = 2.0 * (c[..., None] * dc + s[..., None] * ds)
        num = (outer("...ni,...nj->...nij", gs, dc) + c[..., None, None] * dgs
               - outer("...ni,...nj->...nij", gc, ds) - s[..., None, None] * dgc)
        return (num - outer("...ni,...nj->...nij", g, drho)) / rho[..., None, None]

    Dg = (dg(1.0, Xj @ Xi, Yj @ Xi), dg(-1.0, -Xi @ Xj, -Xi @ Yj))   # d g / d pi_I, d pi_J
    dT = (kp[..., None] * g + cp[..., None] * einsum("...nji,...nj->...ni", Dg[0], dw),
          -kp[..., None] * g + cp[..., None] * einsum("...nji,...nj->...ni", Dg[1], dw))
    gT = cp[..., None] * g                                          # d T / d w_I = -d T / d w_J
    for b, Dgb, dTb, sw in ((bi, Dg[0], dT[0], 1.0), (bj, Dg[1], dT[1], -1.0)):
        dM = -(outer("...ni,...nj->...nij", g, dTb) + T[..., None, None] * Dgb)  # d(-T g)/d pi_b
        dMw = -sw * outer("...ni,...nj->...nij", g, gT)                        # d(-T g)/d w_b
        for row, sr in ((bi, 1.0), (bj, -1.0)):
            blk = np.zeros(dM.shape[:-2] + (6, 6))
            blk[..., 3:, 3:] = sr * dM
            _add_blocks(K, row, b, blk)
            blk = np.zeros(dM.shape[:-2] + (6, 6))
            blk[..., 3:, 3:] = sr * dMw
            _add_blocks(C, row, b, blk)


def _load_jacobian(fm: ForceModel, t: float, A, K) -> None:
    """Applied loads (functions of time): the moment arm s = A s_body turns with the body,
    d(s x F) = [F x][s x] d pi; a load in marker axes turns too, dF = -[F x] d pi,
    dT = -[T x] d pi, so then d(s x F) = [(F x s) x] d pi."""
    b, mk = fm.ld_body, fm.ld_in_marker
    F, Tq, s = _loads(fm, t, A)
    blk = np.zeros((len(b), 6, 6))
    blk[:, 3:, 3:] = np.where(mk[:, None, None], skew(cross(F, s)) - skew(Tq), skew(F) @ skew(s))
    blk[:, :3, 3:] = np.where(mk[:, None, None], -skew(F), 0.0)
    _add_blocks(K, b, b, blk)


def _bushing_jacobian(fm: ForceModel, r, A, v, w, K, C) -> None:
    """Bushings: each one's 12 x 12 blocks (model/bushings.py ``jacobian_blocks``) added at
    its two parts' rows and columns."""
    dq, dv = bushing_blocks(fm, r, A, v, w)
    for G, D in ((K, dq), (C, dv)):
        for rows, ro in ((fm.bu_bi, 0), (fm.bu_bj, 6)):
            for cols, co in ((fm.bu_bi, 0), (fm.bu_bj, 6)):
                _add_blocks(G, rows, cols, D[..., ro:ro + 6, co:co + 6])


def force_jacobians(model: Any, t, rg: np.ndarray, A: np.ndarray, vg: np.ndarray, wg: np.ndarray,
                    ts_ref: np.ndarray, coulomb: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """K = dQ/dq and C = dQ/dv (6 nb, 6 nb) of total_forces at one state (arrays with the
    ground last): every force element and the gyroscopic moment -w x (I_w w), whose
    derivatives are d/dw = [(I_w w) x] - [w x] I_w and d/dpi = [w x][(I_w w) x] - [w x] I_w [w x]
    (I_w = A I A^T turns with the body).  Gravity is constant.  Columns and rows of body b:
    6b..6b+2 translation, 6b+3..6b+5 world rotation (as the constraint Jacobian).  Leading
    axes (a study's stiff variants, t (V,)): K, C (..., 6 nb, 6 nb) as one state at a time,
    for elements without actuators or applied loads (else ValueError: one state at a time).
    ``coulomb`` False: without the springs' smoothed friction's slope (no damping: modes)."""
    nb = model.nb
    lead = rg.shape[:-2]
    K = np.zeros(lead + (nb + 1, 6, nb + 1, 6))
    C = np.zeros(lead + (nb + 1, 6, nb + 1, 6))
    fm = model.forces
    if len(fm.sd_names):
        _spring_damper_jacobian(fm, t, rg, A, vg, wg, K, C, coulomb)
    if len(fm.ts_names):
        _torsion_jacobian(fm, t, A, wg, ts_ref, K, C, coulomb)
    if len(fm.ld_names):
        if lead:
            raise ValueError("stacked force Jacobians take no applied loads")
        _load_jacobian(fm, t, A, K)
    if len(fm.bu_names):
        _bushing_jacobian(fm, rg, A, vg, wg, K, C)
    if len(fm.vf_names):
        if lead:
            raise ValueError("stacked force Jacobians take no vector forces")
        Kv, Cv = vector_force_jacobians(fm, t, rg, A, vg, wg)
        K += Kv
        C += Cv
    if fm.contacts is not None:        # by finite differences (kernels/contacts.py)
        if lead:
            raise ValueError("stacked force Jacobians take no contacts")
        Kc, Cc = contact_jacobians(fm.contacts, nb, rg, A, vg, wg, None,
                                   1e-7 * model.length_scale)
        K[:nb, :, :nb, :] += Kc.reshape(nb, 6, nb, 6)
        C[:nb, :, :nb, :] += Cc.reshape(nb, 6, nb, 6)
    w = wg[..., :nb, :]
    Iw = congruence(A[..., :nb, :, :], model.body_inertia)
    h = einsum("...bij,...bj->...bi", Iw, w)
    W, H = skew(w), skew(h)
    gyro_q, gyro_v = W @ H - W @ Iw @ W, H - W @ Iw
    for b in range(nb):
        K[..., b, 3:, b, 3:] += gyro_q[..., b, :, :]
        C[..., b, 3:, b, 3:] += gyro_v[..., b, :, :]
    shape = lead + (6 * nb, 6 * nb)
    return K[..., :nb, :, :nb, :].reshape(shape), C[..., :nb, :, :nb, :].reshape(shape)

