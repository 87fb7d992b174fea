"""The posing tools' Newton problems (algebra/newton.py): a pose brought back onto the held
rows (joints, motions, the stops held), by chord steps (Poser._project) or by least
movement with one coordinate at a target (Wiggle._hold).  ``owner`` is the Wiggle or Poser
whose model, row evaluation and coordinate rows they use."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...algebra.newton import NewtonProblem, scaled_jacobian, step_pose, step_size
from ...kernels.constraints import global_jacobian
from ..assembly_newton import first_alpha_half_radian

RCOND = 1e-10           # singular values below this share of the largest are not steps


class ChordOntoRows(NewtonProblem):
    """The held ``rows`` closed by the chord steps dq = -(pinv res) / cw, pinv the scaled
    Jacobian's pseudo-inverse at the start of the step (no Jacobian evaluated)."""

    def __init__(self, owner: Any, rows: np.ndarray, pinv: np.ndarray, cw: np.ndarray) -> None:
        self.owner, self.rows, self.pinv, self.cw = owner, rows, pinv, cw

    def residual(self, y):
        ev, res = self.owner._evaluate(y, need_jac=False)
        return np.max(np.abs(res[self.rows]), initial=0.0), (ev, res)

    def solve(self, y, data):
        return -(self.pinv @ data[1][self.rows]) / self.cw

    def move(self, y, dq, a):
        return step_pose(*y, dq, a)

    def size(self, y, dq, a):
        return step_size(self.owner.model, dq, a)


class HoldCoordinate(NewtonProblem):
    """Least movement onto the held ``rows`` with the coordinate c at ``target`` (rad or m;
    an angle's difference wrapped to (-pi, pi]); c None: the rows alone.  Rows in residual
    units, the coordinate row divided by ``unit`` (1 for an angle, the length scale)."""

    def __init__(self, owner: Any, c: Any, rows: np.ndarray, target: float, angle: bool,
                 unit: float, cw: np.ndarray, wrap: Any) -> None:
        self.owner, self.c, self.rows, self.target = owner, c, rows, target
        self.angle, self.unit, self.cw, self.wrap = angle, unit, cw, wrap

    def residual(self, y):
        ev, res = self.owner._evaluate(y)
        rows = self.rows
        if self.c is None:
            return np.max(np.abs(res[rows]), initial=0.0), (ev, res[rows], None)
        q, jq = self.owner._coordinate_row(self.c, y)
        d = self.wrap(q - self.target) if self.angle else q - self.target
        full = np.append(res[rows], d / self.unit)
        return np.max(np.abs(full)), (ev, full, jq)

    def solve(self, y, data):
        ev, full, jq = data
        model = self.owner.model
        Js = scaled_jacobian(model, global_jacobian(model, ev.jac), self.rows)
        M = Js if jq is None else np.vstack([Js, jq])
        return np.linalg.lstsq(M, -full, rcond=RCOND)[0] / self.cw

    def move(self, y, dq, a):
        return step_pose(*y, dq, a)

    def size(self, y, dq, a):
        return step_size(self.owner.model, dq, a)

    def first_alpha(self, dq) -> float:
        return first_alpha_half_radian(dq)
