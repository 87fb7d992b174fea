"""The position projection of a dynamics run as a Newton problem (algebra/newton.py): the
pose (r, p) brought onto Phi = 0 by M-weighted least-change steps -M^-1 J^T S^-1 res,
S = J M^-1 J^T over the kept rows (Equations.project)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...algebra.newton import NewtonProblem, step_pose, step_size
from ...kernels.constraints import body_arrays, residual
from .friction import lock_residual

PROJECT_RCOND = 1e-14   # Tikhonov filter of the position projection's Newton steps


class PositionProjection(NewtonProblem):
    """``eq``: the run's Equations (model, kept rows, Schur layout, tracked values, sticking
    joints); ``f``: the motion values at the time; ``rs``: the kept rows' scales;
    ``cw``: the column weights.  ``pending``: the right-hand side's evaluation at the
    start pose (equations.LastRhs: rows, A, S and M^-1 J^T) if a step's last stage left
    them there, taken for the first residual as they are.  After the iteration, ``ready`` holds (S, M^-1 J^T) when they came with
    the last residual, ``mats`` those of the last step (None if none was taken)."""

    def __init__(self, eq: Any, f: np.ndarray, rs: np.ndarray, cw: np.ndarray, pending: Any) -> None:
        self.eq, self.f, self.rs, self.cw, self.pending = eq, f, rs, cw, pending
        self.ready = None            # J M^-1 J^T at the pose the residual was last taken
        self.mats = None

    def residual(self, x):
        """(largest scaled residual of the kept rows, (row evaluation, A, residual))."""
        eq = self.eq
        m = eq.m
        if self.pending is not None:
            ev, A, self.ready = self.pending.ev, self.pending.A, self.pending.mats
            self.pending = None
        else:
            rg, A = body_arrays(m, *x)[:2]
            ev = eq.rows_at(rg, A)
            self.ready = None
        res = residual(m, ev.phi, self.f, eq.run.limit_ref)
        if eq.run.slip is not None:    # sticking joints held
            lock_residual(m, eq.run.slip, res, A)
        return np.abs(res[eq.keep] * self.rs).max(initial=0.0), (ev, A, res)

    def solve(self, x, data):
        """M-weighted least change: -M^-1 J^T S^-1 res."""
        eq = self.eq
        sc = eq.schur
        ev, A, res = data
        self.mats = mats = (self.ready if self.ready is not None
                            else sc.matrix(sc.blocks(ev.jac), eq._minv_ground(A)))
        return -sc.apply(mats[1], eq.solve(mats[0], res[eq.keep], PROJECT_RCOND)).reshape(-1)

    def move(self, x, d, alpha):
        return step_pose(*x, d, alpha)

    def size(self, x1, d, alpha):
        return step_size(self.eq.m, d, alpha, self.cw)
