"""The least-movement assembly as a Newton problem (algebra/newton.py): the pose (r, p)
brought onto the given constraint rows by least-squares steps in (r, world rotation)."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..algebra.newton import NewtonProblem, scaled_jacobian, step_pose, step_size
from ..kernels.constraints import body_arrays, evaluate, global_jacobian, residual
from ..model.compile import Model

# an assembly's Newton step that moves no part by more than this share of the model's size
# (rotations times the part's length) cannot carry a curve contact to another branch: the
# trial poses after it follow the contact from the accepted iterate (assembly.least_movement)
TRACK_STEP = 1e-3


class LeastMovement(NewtonProblem):
    """Rows ``rows`` of the model's residual at the motion values ``f`` driven to zero;
    ``sparse`` the sparse least-squares step (or None: a dense lstsq).  ``ref`` holds the
    accepted iterate's tracked values once steps are small (TRACK_STEP), else None;
    ``turns`` the limits' angles a held stop's row reads its angle near (None: the limits'
    centres)."""

    def __init__(self, model: Model, f: np.ndarray, rows: np.ndarray, rs: np.ndarray,
                 cw: np.ndarray, sparse: Callable | None) -> None:
        self.model, self.f, self.rows, self.rs, self.cw, self.sparse = model, f, rows, rs, cw, sparse
        self.ref = None
        self.turns: np.ndarray | None = None

    def residual(self, x) -> tuple[float, Any]:
        """(largest scaled residual of the rows, (row evaluation, scaled residual))."""
        ev = evaluate(self.model, *body_arrays(self.model, *x)[:2], ref=self.ref)
        res = residual(self.model, ev.phi, self.f, self.turns) * self.rs
        return np.max(np.abs(res[self.rows]), initial=0.0), (ev, res)

    def solve(self, x, data) -> np.ndarray:
        """The least-squares step dq (r in m, world rotation in rad per body)."""
        ev, res = data
        rs, cw, rows = self.rs, self.cw, self.rows
        if self.sparse is not None:
            dq = self.sparse(ev.jac * rs[:, None], res[rows])
        else:
            Js = scaled_jacobian(self.model, global_jacobian(self.model, ev.jac), rows)
            dq = np.linalg.lstsq(Js, -res[rows], rcond=1e-10)[0] / cw
        self.ref = ev.track if step_size(self.model, dq, 1.0, cw) <= TRACK_STEP else None
        return dq

    def move(self, x, dq, alpha):
        return step_pose(*x, dq, alpha)

    def size(self, x1, dq, alpha):
        return step_size(self.model, dq, alpha)

    def first_alpha(self, dq) -> float:
        """Keep each rotation step below 0.5 rad so that a far start does not flip parts."""
        return first_alpha_half_radian(dq)


def first_alpha_half_radian(dq: np.ndarray) -> float:
    """The step fraction (<= 1) that turns no body by more than 0.5 rad."""
    big = np.abs(dq.reshape(-1, 6)[:, 3:]).max(initial=0.0)
    return 0.5 / big if big > 0.5 else 1.0        # (no division by a denormal)
