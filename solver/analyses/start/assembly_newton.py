"""The least-movement assembly as a Newton problem (algebra/newton.py): the pose (r, p)
brought onto the given constraint rows by least-squares steps in (r, world rotation)."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ...algebra.newton import NewtonProblem, scaled_jacobian, step_pose, step_size
from ...kernels.constraints import body_arrays, evaluate, global_jacobian, residual
from ...model.compile import Model

# an assembly's Newton step that moves no part by more than this share of the model's size
# (rotations times the part's length) cannot carry a curve contact to another branch: the
# trial poses after it follow the contact from the accepted iterate (assembly.least_movement)
TRACK_STEP = 1e-3


class LeastMovement(NewtonProblem):
    """Rows ``rows`` of the model's residual at the motion values ``f`` driven to zero;
    ``sparse`` the sparse least-squares step (or None: a dense lstsq).  ``ref`` holds the
    accepted iterate's tracked values once steps are small (TRACK_STEP), else ``start``
    (start_track: None, the pose as built, unless a motion puts a coupled joint's angle on
    another turn); ``turns`` the limits' angles a held stop's row reads its angle near
    (None: the limits' centres)."""

    def __init__(self, model: Model, f: np.ndarray, rows: np.ndarray, rs: np.ndarray,
                 cw: np.ndarray, sparse: Callable | None, start: np.ndarray | None = None,
                 turns: np.ndarray | None = None) -> None:
        self.model, self.f, self.rows, self.rs, self.cw, self.sparse = model, f, rows, rs, cw, sparse
        self.ref = self.start = start
        self.turns = turns

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
        self.ref = (ev.track if step_size(self.model, dq, 1.0, cw) <= TRACK_STEP
                    else _couplers_followed(self.model, self.start, ev.track))
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


def _couplers_followed(model: Model, start: np.ndarray | None, track: np.ndarray):
    """The tracked values a trial pose takes after a large step: as built (None), or with a
    start's (start_track) the couplers' angles followed from the accepted iterate (a part
    turns at most half a radian a step: first_alpha_half_radian) and the curve contacts'
    from the start."""
    if start is None:
        return None
    ref = start.copy()
    ref[: model.couplers.n] = track[: model.couplers.n]
    return ref


def start_track(model: Model, r: np.ndarray, p: np.ndarray, f: np.ndarray) -> np.ndarray | None:
    """The tracked values an assembly at the motion values ``f`` starts from: None (the
    pose as built: each coupled angle on the turn nearest its angle as built, a curve
    contact by a global search), unless a motion drives a coupled joint's angle to a value
    more than half a turn from it (a crank driven 5 + t): then that coordinate on the
    motion's turn, the others as built, so that the coupler counts the turns the motion
    gives (its gear 2.5 rad off otherwise at a ratio of 0.4)."""
    cp = model.couplers
    if cp is None or not (cp.motion >= 0).any():
        return None
    driven = np.flatnonzero(cp.motion >= 0)
    value = f[cp.motion[driven], 0]
    if not np.any(np.round((value - cp.q0[driven]) / (2.0 * np.pi))):
        return None
    start = evaluate(model, *body_arrays(model, r, p)[:2]).track.copy()
    start[: cp.n] = cp.q0
    start[driven] = value
    _implied_turns(cp, start, set(driven.tolist()))
    return start


def _implied_turns(cp: Any, start: np.ndarray, known: set[int]) -> None:
    """The start's angle of each coupled joint that a coupler of angles alone relates to
    angles known already (a gear train from its driven gear on), from the coupler's
    relation sum_i s_i (q_i - q_i0) = 0: an assembly then turns that joint by less than
    half a turn to its place, where from its angle as built it would turn by
    r_1/r_2 of the motion's turns (and stall at half a radian a step)."""
    more = True
    while more:
        more = False
        for c in range(len(cp.count)):
            idx, s = cp.terms[c, : cp.count[c]], cp.scale[c, : cp.count[c]]
            left = [k for k, i in enumerate(idx) if int(i) not in known]
            if len(left) != 1 or not cp.is_angle[idx].all():
                continue
            u = left[0]
            rest = sum(s[k] * (start[idx[k]] - cp.q0[idx[k]]) for k in range(len(idx)) if k != u)
            start[idx[u]] = cp.q0[idx[u]] - rest / s[u]
            known.add(int(idx[u]))
            more = True
