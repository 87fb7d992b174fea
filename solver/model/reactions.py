"""Each joint's reaction (force and moment on its part I at marker I, world axes) from the
multipliers of its rows, as every Result stores them (Haug 1989)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..base.rotations import cross, quat_to_matrix


def all_joint_reactions(model: Any, ji_body: np.ndarray, ji_point: np.ndarray, p: np.ndarray,
               lam: np.ndarray, jac: np.ndarray, A: np.ndarray | None = None) -> np.ndarray:
    """(..., joints, 6) each joint's force and moment on body I at marker I, world axes, from
    the multipliers lam (..., nc) and Jacobian blocks jac (..., nc, 12) at orientations p
    (..., nb, 4) (Haug 1989): the generalized force of a joint's rows on body I is
    -jac_I^T lambda; its moment is moved from I's centre of mass to marker I.  ji_point
    (joints, 3), or with a variant axis broadcasting against p's leading axes; ``A`` those
    at p with the ground's last (body_arrays), if made already."""
    jr = model.row_joint >= 0
    gen = -lam[..., jr, None] * jac[..., jr, :6]              # (..., joint rows, 6)
    tot = np.zeros(gen.shape[:-2] + (len(model.joint_names), 6))
    for joints, rows in model.joint_rows_in_turn:   # each joint's rows in turn
        tot[..., joints, :] += gen[..., rows, :]
    if A is None:
        A = np.concatenate([quat_to_matrix(p),
                            np.broadcast_to(np.eye(3), p.shape[:-2] + (1, 3, 3))], axis=-3)
    arm = (A[..., ji_body, :, :] @ ji_point[..., None])[..., 0]          # P_I - r_I
    tot[..., 3:] -= cross(arm, tot[..., :3])
    return tot


def rows_in_turn(row_joint: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """[(joints, their k-th rows) for k = 0, 1, ...] of the joint rows' joints ``row_joint``
    (n,): the k-th rows added in turn sum each joint's in row order, np.add.at's bits."""
    order = np.argsort(row_joint, kind="stable")
    _, first, n = np.unique(row_joint[order], return_index=True, return_counts=True)
    rank = np.empty(len(order), dtype=int)
    rank[order] = np.arange(len(order)) - np.repeat(first, n)
    return [(row_joint[rank == k], np.flatnonzero(rank == k)) for k in range(n.max(initial=0))]
