"""The equilibrium of statics.py as a Newton problem (algebra/newton.py): x = (r, p,
lambda), the residual R = [Q - J^T lambda; scaled Phi] over the kept rows, the step the
least-squares solution of the tangent system."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..algebra.newton import NewtonProblem, step_size
from ..base.rotations import rotate_world
from ..model.compile import Model


class Equilibrium(NewtonProblem):
    """``resid(r, p, lam) -> (R, Q, J)``, ``tangent(r, p, lam, R)`` (n, n) and ``merit(R)``
    are the statics run's force balance (its loads, stops and friction); ``keep`` the rows
    held (set again for each active set); ``follow(r, p)`` takes the accepted pose's
    torsion angles as the branch the next residual follows.  ``big`` is the last tangent
    system (n + nk square), kept for the report when no equilibrium is found; ``fail(big,
    R, why)`` raises that report."""

    def __init__(self, model: Model, resid: Callable, tangent: Callable, merit: Callable,
                 follow: Callable, fail: Callable, keep: np.ndarray, rs: np.ndarray) -> None:
        self.model, self.resid, self.tangent, self.merit = model, resid, tangent, merit
        self.follow, self.fail, self.keep, self.rs = follow, fail, keep, rs
        self.nb = model.nb
        self.n = 6 * model.nb
        self.big: Any = None

    def residual(self, x):
        R_, _, J_ = self.resid(*x)
        return self.merit(R_), (R_, J_)

    def solve(self, x, data):
        R_, J_ = data
        n, keep, rs = self.n, self.keep, self.rs
        nk = len(keep)
        big = self.big = np.zeros((n + nk, n + nk))
        big[:n, :n] = self.tangent(*x, R_)
        big[:n, n:] = -J_[keep].T
        big[n:, :n] = J_[keep] * rs[keep, None]
        # least squares: a neutral direction (no stiffness and no load, e.g. a part's spin
        # about the one point its springs hold) is left where it is
        try:
            dx = np.linalg.lstsq(big, -R_, rcond=1e-12)[0]
            if not np.all(np.isfinite(dx)):
                raise np.linalg.LinAlgError
        except np.linalg.LinAlgError:
            self.fail(big, R_, "the tangent matrix is not finite")
        return dx

    def move(self, x, dx, alpha):
        n, nb = self.n, self.nb
        d = alpha * dx[:n].reshape(nb, 6)
        return x[0] + d[:, :3], rotate_world(x[1], d[:, 3:]), x[2] + alpha * dx[n:]

    def size(self, x1, dx, alpha):
        return step_size(self.model, dx[:self.n], alpha)

    def accept(self, x, data) -> None:
        """The torsion angles' branch follows the accepted pose."""
        self.follow(x[0], x[1])
