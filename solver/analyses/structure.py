"""Degrees of freedom and redundancy at an assembled pose (rank of the scaled Jacobian)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..algebra.newton import RANK_TOL
from ..algebra.rank import independent_rows
from ..kernels.constraints import body_arrays, evaluate, global_jacobian
from ..model.compile import Model


@dataclass
class Structure:
    """Row selection at an assembled pose: joint rows kept, motion rows, dof."""
    keep: np.ndarray            # independent rows (joints then motions)
    redundant: np.ndarray       # joint rows dropped as redundant
    dof: int
    driven_dof: int
    bad_motions: list[str]


def structure(model: Model, r: np.ndarray, p: np.ndarray, tol: float = RANK_TOL,
              ref: np.ndarray | None = None) -> Structure:
    """Independent rows at an assembled pose: joints first, then motions (a row is
    redundant when less than ``tol`` of its scaled length is new); ``ref``: the tracked
    values there (State.track; None: as built)."""
    ev = evaluate(model, *body_arrays(model, r, p)[:2], ref=ref)
    J = global_jacobian(model, ev.jac)
    jrows = model.constraint_rows
    mrows = np.flatnonzero(model.row_motion >= 0)
    kj = independent_rows(model, J, jrows, tol)
    # (no motion rows: the joints' independent rows again, the same test on the same rows)
    kall = independent_rows(model, J, np.concatenate([kj, mrows]), tol) if mrows.size else kj
    bad = [model.motion_names[model.row_motion[k]] for k in mrows if k not in set(kall)]
    return Structure(kall, np.setdiff1d(jrows, kj), 6 * model.nb - len(kj),
                     6 * model.nb - len(kall), bad)


def open_tree(model: Model) -> bool:
    """True when the joints join the parts as a tree (no closed loop, no coupler or curve
    joint): then the joints' rows stay independent wherever the mechanism moves, with no
    lined-up position to pass (analyses/dynamics.py lets such runs step past their frames)."""
    if model.couplers is not None or model.curves is not None:
        return False
    parent = list(range(model.nb + 1))

    def root(b: int) -> int:
        while parent[b] != b:
            parent[b] = parent[parent[b]]
            b = parent[b]
        return b
    rows = np.flatnonzero(model.row_joint >= 0)
    _, first = np.unique(model.row_joint[rows], return_index=True)
    for k in rows[first]:                      # one row of each joint: its two bodies
        a, b = root(int(model.row_bi[k])), root(int(model.row_bj[k]))
        if a == b:
            return False
        parent[a] = b
    return True
