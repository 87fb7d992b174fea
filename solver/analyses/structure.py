"""Degrees of freedom and redundancy at an assembled pose (rank of the scaled Jacobian)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..algebra.newton import RANK_TOL
from ..algebra.rank import independent_rows
from ..kernels.constraints import body_arrays, evaluate, global_jacobian, row_forces
from ..model.compile import Model


@dataclass
class Structure:
    """Row selection at an assembled pose: joint rows kept, motion rows, dof."""
    keep: np.ndarray            # independent rows (joints then motions)
    redundant: np.ndarray       # joint rows dropped as redundant
    dof: int
    driven_dof: int
    bad_motions: list[str]


def structure(model: Model, r: np.ndarray, p: np.ndarray, tol: float | np.ndarray = RANK_TOL,
              ref: np.ndarray | None = None, jac: np.ndarray | None = None) -> Structure:
    """Independent rows at an assembled pose: joints first, then motions (a row is
    redundant when less than ``tol`` of its scaled length is new: one for all rows, or
    (nc,) each row's own); ``ref``: the tracked values there (State.track; None: as
    built); ``jac``: the rows' Jacobian blocks at (r, p) where the caller has them (an
    assembly's last evaluation: start/assembly.py ``last_jacobian``), else evaluated."""
    if jac is None:
        jac = evaluate(model, *body_arrays(model, r, p)[:2], ref=ref).jac
    J = global_jacobian(model, jac)
    jrows = model.constraint_rows
    mrows = np.flatnonzero(model.row_motion >= 0)
    kj = independent_rows(model, J, jrows, tol)
    # (no motion rows: the joints' independent rows again, the same test on the same rows)
    kall = independent_rows(model, J, np.concatenate([kj, mrows]), tol) if mrows.size else kj
    kept = set(kall.tolist())
    bad = [model.motion_names[model.row_motion[k]] for k in mrows if k not in kept]
    return Structure(kall, np.setdiff1d(jrows, kj), 6 * model.nb - len(kj),
                     6 * model.nb - len(kall), bad)


def open_tree(model: Model) -> bool:
    """True when the joints join the parts as a tree (no closed loop, no coupler or curve
    joint): then the joints' rows stay independent wherever the mechanism moves, with no
    lined-up position to pass (analyses/dynamics/driver.py lets such runs step past their frames)."""
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


def self_stresses(model: Model, keep: np.ndarray, redundant: np.ndarray, jac: np.ndarray,
                  solve_kept: Callable[[np.ndarray], np.ndarray],
                  J: np.ndarray | None = None) -> np.ndarray:
    """(..., k, nc) a basis of the joints' self-stresses: multipliers of the joint rows
    that load no part (J_joints^T x = 0), one for each of the k redundant rows r: e_r minus
    the kept rows' multipliers with the same generalized forces J_r^T (``solve_kept(F)``:
    the kept rows' multipliers lambda_k with J_k^T lambda_k = F for body forces F
    (k, ..., nb, 6), any F in their range), zero outside the joint rows.  ``jac``: the
    rows' Jacobian blocks (..., nc, W); leading axes (frames, variants) carried through.
    ``J``: the rows' global Jacobian (..., nc, 6 nb) where the caller has it (the dense
    sweep's): J_r^T is then its rows r, the same numbers as the blocks scattered onto
    their parts (global_jacobian and row_forces both copy each block, adding the blocks of
    ends on one part in the same order), without the scatter (a sweep's block of the
    slider-crank 15-135 us)."""
    k = len(redundant)
    lead = jac.shape[:-2]
    unit = np.eye(k).reshape((k,) + (1,) * len(lead) + (k,))
    if J is None:
        F = row_forces(model, redundant, unit, jac, model.nb + 1)[..., : model.nb, :]
    else:
        F = np.moveaxis(J[..., redundant, :], -2, 0).reshape((k,) + lead + (model.nb, 6))
    x = np.zeros((k,) + lead + (model.nc,))
    x[..., keep] = -solve_kept(F)
    x[..., redundant] += unit
    x[..., model.switched | (model.row_motion >= 0)] = 0.0     # joints' rows only
    return np.moveaxis(x, 0, -2)


def least_norm(stresses: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """lam -> the least-norm multipliers with lam's forces on the parts: lam less its part
    along the self-stresses N (``self_stresses``, (..., k, nc)), lam - N^T (N N^T)^-1 N lam,
    the orthogonal projection (Golub-Van Loan 5.3).  Only the joint rows change; lam may
    have more leading axes than N (friction's unit responses)."""
    G = np.linalg.inv(stresses @ np.swapaxes(stresses, -1, -2))
    P = np.swapaxes(stresses, -1, -2) @ G                 # (..., nc, k)

    def report(lam: np.ndarray) -> np.ndarray:
        return lam - (P @ (stresses @ lam[..., None]))[..., 0]
    return report
