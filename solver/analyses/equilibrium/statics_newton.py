"""The force balance of statics.py as a Newton problem (algebra/newton.py): x = (r, p,
lambda), the residual R = [Q - J^T lambda; scaled Phi] over the rows held, the step the
least-squares solution of the tangent system

    [ dQ/dq - d(J^T lambda)/dq   -J^T ]
    [ J                            0  ]

whose first block is taken by forward differences (it holds the springs' stiffness and the
geometric stiffness that makes a hanging pendulum stable; Haug 1989, "Statics")."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ...algebra.newton import NewtonProblem, scales, step_size
from ...base.errors import SolverError
from ...base.rotations import rotate_world
from ...kernels.constraints import body_arrays, evaluate, global_jacobian, residual
from ...kernels.forces import total_forces
from ...kernels.stop_forces import stop_forces
from ...model.compile import Model
from ...model.force_model import spring_turns
from ...model.islands import island_max
from ..dynamics.friction import lock_residual
from ..limit_turns import on_turn, pose_turns
from ...model.state import RunState, SlipState


@dataclass(frozen=True)
class BalanceState:
    """What statics' active set holds between its Newton solves, in one record so that a
    try along another way is undone by putting the record back.

    keep: the rows held (the structure's, the stops held, the joints friction holds);
    shift: (nbound,) per limit bound, a compliant stop held at a penetration (its row's
    residual offset, m or rad), else 0; run: the branch the balance is read on, a dynamic
    run's record (model/state.py RunState): the torsion springs' angles ``ts_ref``, the
    couplers' and curve contacts' tracked values ``track``, friction's holds ``slip`` (None
    without friction) and the limits' coordinates ``limit_ref`` (an angle on its joint's
    continuous turns from the start's, analyses/limit_turns.py; None without limits), all
    following the accepted pose."""
    keep: np.ndarray
    shift: np.ndarray
    run: RunState

    def holding(self, keep: np.ndarray) -> "BalanceState":
        """The same record with the rows ``keep`` held."""
        return replace(self, keep=keep)

    def shifted(self, shift: np.ndarray) -> "BalanceState":
        """The same record with the compliant stops' penetrations ``shift``."""
        return replace(self, shift=shift)

    def on(self, run: RunState) -> "BalanceState":
        """The same record on the branch ``run``."""
        return replace(self, run=run)


class Equilibrium(NewtonProblem):
    """Q(q) - J^T lambda = 0 and Phi(q) = 0 at ``time``, with the motions at their values
    ``f``, the couplers and curve contacts from the start's ``track`` (then the accepted
    pose's).

    It reads the active set's state from ``state`` (a BalanceState, which statics.py's
    loop replaces between solves and Newton's accepted poses move along their branch;
    ``keep``, ``shift``, ``slip``, ``ts_ref``, ``limit_ref`` and ``track`` read it).
    ``big`` is the last tangent system (n + nk square), kept for the report when no
    equilibrium is found; ``start_load`` the generalized loads at the start pose."""

    def __init__(self, model: Model, time: float, f: np.ndarray, track: Any, slip: SlipState | None,
                 keep: np.ndarray, r: np.ndarray, p: np.ndarray) -> None:
        self.model, self.time, self.f = model, time, f
        lm = model.limits
        # the torsion springs' first branch: a driven joint's from its motion
        run = RunState(spring_turns(model.forces, f), track, slip=slip,
                       limit_ref=pose_turns(model, r, p, time, track))
        self.state = BalanceState(keep, np.zeros(len(lm.rows) if lm is not None else 0), run)
        self.nb = model.nb
        self.n = 6 * model.nb
        self.rs, self.cw = scales(model)
        self.zero = np.zeros((model.nb, 3))
        self.big: Any = None
        self.row_scale = 1.0          # the constraint rows' factor in ``big`` (_block_scale)
        Q0, _, _, fe = self.parts(r, p)
        self.start_load = Q0
        self.state = self.state.on(run.turned(fe.ts_angle))
        # load scale: gravity and the force elements' present loads, the moments over
        # their part's length (a force at its end: a force and a moment compared fairly,
        # whatever the mechanism's size), each row's of its own mechanism (island): a
        # 10 kg pole beside a 1 mg arm left the arm's balance no load to be measured by
        load = np.maximum(np.abs(Q0 / self.cw).reshape(-1, 6).max(axis=1, initial=0.0),
                          model.body_mass * float(np.linalg.norm(model.gravity)))
        own = np.maximum(island_max(model.body_island, load), 1e-9)
        self.fscale = np.maximum(np.repeat(own, 6), self._rounding_floor(r, p, Q0))

    keep = property(lambda self: self.state.keep, doc="The rows held (BalanceState.keep).")
    shift = property(lambda self: self.state.shift, doc="The compliant stops' shifts.")
    slip = property(lambda self: self.state.run.slip, doc="Friction's holds, or None.")
    ts_ref = property(lambda self: self.state.run.ts_ref, doc="The torsion springs' branch.")
    limit_ref = property(lambda self: self.state.run.limit_ref, doc="The limits' turns.")
    track = property(lambda self: self.state.run.track, doc="The tracked values.")

    def _rounding_floor(self, r: np.ndarray, p: np.ndarray, Q0: np.ndarray) -> np.ndarray:
        """Each balance row's least load scale (n,), N: its force elements' stiffness
        (its row of dQ/dq, moments over their part's length, turns times it) times a
        thousandth of the reach of the part each column moves (its mechanism's size, or
        that mechanism's farthest part's distance from the origin: a 20 m pole 30 m away,
        joined to nothing of it, no longer sets a small mechanism's).  The balance cannot
        be closed better than the stiffness times the coordinates' rounding (a 3e4 N/m
        bushing 0.3 m from the origin: 6e-13 N), so with no load (no gravity, springs at
        rest) or a light part on a stiff one that rounding read as a large fraction of a
        load scale of 1e-9 N or m g, and statics and modes found no equilibrium where the
        start was one.  With this floor the balance's tolerance stays a displacement of
        1e-15 of the reach."""
        n, cw = self.n, self.cw
        # each part's reach: its mechanism's size or farthest part (island_max), per m
        reach = np.repeat(island_max(self.model.body_island, np.maximum(
            self.model.body_size, np.abs(r).max(axis=1, initial=0.0))), 6)
        K = np.zeros((n, n))
        for c in range(n):
            b, k = divmod(c, 6)
            h = 1e-6 * cw[6 * b + 3]
            e = np.zeros((self.nb, 3))
            e[b, k % 3] = h if k < 3 else h / cw[6 * b + 3]
            r1, p1 = (r + e, p) if k < 3 else (r, rotate_world(p, e))
            K[:, c] = (self.parts(r1, p1)[0] - Q0) / h      # N/m, N (m), per m of motion
        return 1e-3 * np.max(np.abs(K / cw[:, None]) * reach, axis=1, initial=0.0)

    def parts(self, r: np.ndarray, p: np.ndarray) -> tuple:
        """(Q (6 nb,), the global Jacobian (nc, 6 nb), the residual of every row (nc,) with
        the compliant stops' shifts and friction's holds, the force elements' evaluation)."""
        model = self.model
        rg, A = body_arrays(model, r, p)[:2]
        ev = evaluate(model, rg, A, ref=self.track)
        Q, fe = total_forces(model, self.time, *body_arrays(model, r, p, self.zero, self.zero),
                             self.ts_ref)
        stop = stop_forces(model, ev.phi, ev.jac, np.zeros((self.nb + 1, 6)), self.limit_ref)
        if stop is not None:          # compliant stops (a spring past their bounds)
            Q = Q + stop.Q[:self.nb]
        res = residual(model, ev.phi, self.f, self.limit_ref)
        if self.shift.size:           # compliant stops approached: held at a penetration
            res[model.limits.rows] += self.shift
        if self.slip is not None:     # joints friction holds, where they start
            lock_residual(self.model, self.slip, res, A)
        return Q.ravel(), global_jacobian(model, ev.jac), res, fe

    def balance(self, r: np.ndarray, p: np.ndarray, lam: np.ndarray) -> tuple:
        """(R = [Q - J_k^T lambda; scaled Phi_k], Q, J) at the pose, over the rows held."""
        Q, J, phi, _ = self.parts(r, p)
        keep = self.keep
        return np.concatenate([Q - J[keep].T @ lam, phi[keep] * self.rs[keep]]), Q, J

    def merit(self, R: np.ndarray) -> float:
        """The residual's size: the force balance relative to the load scale (each moment
        over its part's length, as the load scale's), the constraints in their scaled
        units.  Moments in N m over a load in N alone made the balance's size depend on
        the mechanism's: a 1 mm arm's unbalanced moment read as 1e-3 of its load, so
        the line search took the full steps that close the joints less well for 1/16
        steps and statics crawled to no equilibrium."""
        n = self.n
        return max(float(np.max(np.abs(R[:n] / self.cw) / self.fscale, initial=0.0)),
                   float(np.max(np.abs(R[n:]), initial=0.0)))

    def tangent(self, r: np.ndarray, p: np.ndarray, lam: np.ndarray, R: np.ndarray,
                central: bool = False) -> np.ndarray:
        """d(Q - J^T lambda)/dq (n, n) by differences in (r, world rotation): forward from
        the residual R (Newton's steps), or ``central`` (error of order h^2, for the
        stiffness of a linear analysis; R unused)."""
        n, cw = self.n, self.cw
        T = np.zeros((n, n))
        for c in range(n):
            b, k = divmod(c, 6)
            if central:         # a hundred-thousandth of the part's size, or of a radian
                hstep = 1e-5 * (cw[6 * b + 3] if k < 3 else 1.0)
            else:
                hstep = 1e-7 * cw[c] if k < 3 else 1e-7
            T[:, c] = ((self._moved(r, p, lam, b, k, hstep) - self._moved(r, p, lam, b, k, -hstep))
                       / (2.0 * hstep) if central else
                       (self._moved(r, p, lam, b, k, hstep) - R[:n]) / hstep)
            if not central and not T[:, c].any():
                # nothing resists the move forward: a contact whose parts touch with no
                # overlap, which a move back presses in (its stiffness one-sided)
                T[:, c] = (R[:n] - self._moved(r, p, lam, b, k, -hstep)) / hstep
        return T

    def _moved(self, r, p, lam, b: int, k: int, h: float) -> np.ndarray:
        """Q - J^T lambda (n,) with body b moved by h along its coordinate k (0-2: world
        translation, 3-5: world rotation)."""
        e = np.zeros((self.nb, 3))
        e[b, k % 3] = h
        r1, p1 = (r + e, p) if k < 3 else (r, rotate_world(p, e))
        return self.balance(r1, p1, lam)[0][:self.n]

    def residual(self, x):
        R_, _, J_ = self.balance(*x)
        return self.merit(R_), (R_, J_)

    def solve(self, x, data):
        R_, J_ = data
        n, keep, rs = self.n, self.keep, self.rs
        nk = len(keep)
        big = self.big = np.zeros((n + nk, n + nk))
        big[:n, :n] = self.tangent(*x, R_)
        Jk = J_[keep] * rs[keep, None]
        # the constraint rows and the multipliers' columns in the stiffness's units: a
        # saddle-point system [K, -J^T; J, 0] has singular values down to |J|^2 / |K|, so
        # springs stiff against the rows' scale (1e8 N/m on a 1 m arm) put the joints'
        # directions below the cut-off that leaves neutral ones alone
        sc = self.row_scale = _block_scale(big[:n, :n], Jk)
        big[:n, n:] = -J_[keep].T * sc
        big[n:, :n] = Jk * sc
        rhs = -R_
        rhs[n:] *= sc
        # least squares: a neutral direction (no stiffness and no load, e.g. a part's spin
        # about the one point its springs hold) is left where it is
        try:
            dx = np.linalg.lstsq(big, rhs, rcond=1e-12)[0]
            if not np.all(np.isfinite(dx)):
                raise np.linalg.LinAlgError
        except np.linalg.LinAlgError:
            self.fail(R_, "the tangent matrix is not finite")
        dx[n:] *= sc
        return dx

    def move(self, x, dx, alpha):
        n, nb = self.n, self.nb
        d = alpha * dx[:n].reshape(nb, 6)
        return x[0] + d[:, :3], rotate_world(x[1], d[:, 3:]), x[2] + alpha * dx[n:]

    def size(self, x1, dx, alpha):
        return step_size(self.model, dx[:self.n], alpha)

    def accept(self, x, data) -> None:
        """The torsion angles' branch, the limits' turns and the tracked values (the
        couplers' turns, the curve joints' contact parameters) follow the accepted pose: a
        curve contact's few Newton steps start from the last pose's parameters, not from the
        start's, which a cam turned far from its start leaves behind (its contact point
        found on another branch, the balance off by its whole load)."""
        run = self.state.run.turned(self.parts(x[0], x[1])[3].ts_angle)
        ev = evaluate(self.model, *body_arrays(self.model, x[0], x[1])[:2], need_jac=False,
                      ref=run.track)
        if ev.track is not None:
            run = run.tracked(ev.track)
        lm = self.model.limits
        if lm is not None:
            run = run.limits_at(on_turn(self.model, ev.phi[lm.rows], run.limit_ref), None)
        self.state = self.state.on(run)

    def fail(self, R: np.ndarray, why: str) -> None:
        """Raise naming the parts whose unbalanced load lies in the last tangent system's
        null space (directions with no stiffness to hold the load)."""
        model, n = self.model, self.n
        try:
            U, s, _ = np.linalg.svd(self.big)
            null = U[:, s <= 1e-9 * s.max()] if s.size and s.max() > 0 else U
            Rs = np.concatenate([R[:n], R[n:] * self.row_scale])     # big's rows
            x = null @ (null.T @ Rs) if null.size else U[:, -1]
            v = np.abs(x[:n]).reshape(-1, 6).max(axis=1)
            if not v.max() > 0:
                v = np.abs(U[:n, -1]).reshape(-1, 6).max(axis=1)
            names = [model.body_part[b] for b in np.flatnonzero(v > 0.2 * v.max())]
        except (np.linalg.LinAlgError, ValueError):
            names = list(model.body_part)
        raise SolverError(f"no static equilibrium near the start ({why}): parts "
                          f"{', '.join(map(repr, names))} are free to move under the loads "
                          f"(an unrestrained degree of freedom){_rubbing(model, names)}",
                          self.time, tuple(names))


def _rubbing(model: Model, parts: list[str]) -> str:
    """What to add to statics' failure naming ``parts``: the contacts with friction that
    touch them, whose friction acts on the slip speed, zero at rest ('' if none)."""
    cp = model.forces.contacts
    if cp is None:
        return ""
    rubbing = [n for c, n in enumerate(cp.names)
               if (cp.part_a[c] in parts or cp.part_b[c] in parts)
               and np.any(cp.static[cp.contact == c] > 0.0)]
    if not rubbing:
        return ""
    return (f"; the friction of contact {', '.join(map(repr, rubbing))} holds nothing in "
            "statics (it acts on the slip speed, zero at rest): a dynamic run rests the part "
            "on it")


def _block_scale(K: np.ndarray, J: np.ndarray) -> float:
    """The factor that brings the scaled constraint rows J (nk, n) to the size of the
    stiffness block K (n, n), both by their largest entry (1 where either is empty or
    zero)."""
    k, j = (float(np.max(np.abs(a), initial=0.0)) for a in (K, J))
    return k / j if k > 0.0 and j > 0.0 else 1.0
