"""The posing tools' Newton problems (algebra/newton.py): a pose brought back onto the held
rows (joints, motions, the stops held), by chord steps (Poser._project) or by least
movement with one coordinate at a target (Wiggle._hold).  ``owner`` is the Wiggle or Poser
whose model, row evaluation and coordinate rows they use."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...algebra.newton import NewtonProblem, scaled_jacobian, step_pose, step_size
from ...kernels.constraints import global_jacobian
from ...vocabulary.joints import ANGLE
from ..start.assembly_newton import first_alpha_half_radian

RCOND = 1e-10           # singular values below this share of the largest are not steps


def held_directions(Js: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(pinv (n, m), N (n, n - k)) of the held rows' scaled Jacobian Js (m, n): its
    pseudo-inverse, singular values below RCOND x the largest left out (their count k the
    rank), and an orthonormal basis N of the directions it leaves free (its null space).

    From one QR of Js^T = Q R (Golub and Van Loan 2013, 5.2; N the last n - m columns of the
    complete Q, pinv = Q_1 R^-T) when that shows every singular value kept: sigma_max <=
    |Js|_F and 1 / sigma_min = |pinv|_2 <= |pinv|_F, so |Js|_F |pinv|_F < 1 / RCOND is
    the SVD's full rank, with the same pinv and null space (to rounding) at an eighth of
    the SVD's cost (102 x 120: 0.11 against 0.88 ms); else, or with more rows than
    columns, from the full SVD."""
    m, n = Js.shape
    if 0 < m <= n:
        Q, R = np.linalg.qr(Js.T, mode="complete")
        try:
            pinv = np.linalg.solve(R[:m], Q[:, :m].T).T
        except np.linalg.LinAlgError:              # an exact zero on R's diagonal
            pinv = None
        if pinv is not None and np.sqrt(np.sum(Js * Js) * np.sum(pinv * pinv)) * RCOND < 1.0:
            return pinv, Q[:, m:]
    U, S, Vt = np.linalg.svd(Js, full_matrices=True)
    k = int(np.sum(S > RCOND * S[0])) if S.size else 0
    return (Vt[:k].T / S[:k]) @ U[:, :k].T, Vt[k:].T


class ChordOntoRows(NewtonProblem):
    """The held ``rows`` closed by the chord steps dq = -(pinv res) / cw, pinv the scaled
    Jacobian's pseudo-inverse at the start of the step (no Jacobian evaluated); ``start``
    the residual it started from."""

    def __init__(self, owner: Any, rows: np.ndarray, pinv: np.ndarray, cw: np.ndarray) -> None:
        self.owner, self.rows, self.pinv, self.cw = owner, rows, pinv, cw
        self.start = np.inf                     # the residual at the start

    def residual(self, y):
        ev, res = self.owner._evaluate(y, need_jac=False)
        err = np.max(np.abs(res[self.rows]), initial=0.0)
        self.start = err if self.start == np.inf else self.start
        return err, (ev, res)

    def solve(self, y, data):
        return -(self.pinv @ data[1][self.rows]) / self.cw

    def move(self, y, dq, a):
        return step_pose(*y, dq, a)

    def size(self, y, dq, a):
        return step_size(self.owner.model, dq, a)


class HoldCoordinate(NewtonProblem):
    """Least movement onto the held ``rows`` with the coordinate c at ``target`` (rad or m;
    an angle's difference wrapped to (-pi, pi]) and each of ``others`` ((coordinate,
    value) pairs: other joints' coordinates kept where they are) at its value; c None: the
    rows alone.  Rows in residual units, a coordinate row divided by its unit (1 for an
    angle, ``unit``, the length scale, for a slide)."""

    def __init__(self, owner: Any, c: Any, rows: np.ndarray, target: float, angle: bool,
                 unit: float, cw: np.ndarray, wrap: Any, others: tuple = ()) -> None:
        self.owner, self.c, self.rows, self.target = owner, c, rows, target
        self.angle, self.unit, self.cw, self.wrap = angle, unit, cw, wrap
        self.held = () if c is None else ((c, target),) + tuple(others)

    def residual(self, y):
        ev, res = self.owner._evaluate(y)
        rows = self.rows
        if self.c is None:
            return np.max(np.abs(res[rows]), initial=0.0), (ev, res[rows], None)
        d, jq = [], []
        for c, target in self.held:
            q, row = self.owner._coordinate_row(c, y)
            angle = c.group.kind == ANGLE
            d.append((self.wrap(q - target) if angle else q - target) /
                     (1.0 if angle else self.unit))
            jq.append(row)
        full = np.concatenate([res[rows], d])
        return np.max(np.abs(full)), (ev, full, np.array(jq))

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
