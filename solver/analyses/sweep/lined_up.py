"""A sweep's frame that lands on a singular position of the joints (a parallelogram's links
lined up, where its parallel and crossed branches meet): there the joints' equations lose
rank, so J v = nu leaves the speed along the lost direction to rounding (the follower crank
of a parallelogram turning at pi rad/s came out at 1.05 rad/s) and the next frame, predicted
off that speed, fell onto the crossed branch.  At such a frame the velocities and the
accelerations are the solutions of their equations nearest the ones continued from the
frame before (least change, Golub-Van Loan 5.5.4 on the scaled Jacobian, the directions it
loses left as they were), so the sweep passes on the branch it came along, as a dynamic
run does on its momentum."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...kernels.constraints import global_jacobian
from ...model.compile import Model
from .algebra import Algebra, Factors

# the scaled 1-norm condition of the kept Jacobian above which a frame is looked at: a
# sound pose's is 1 to 1e3 (a parallelogram 7.5 degrees off lined up: 210), a frame on the
# lined-up position's some 1e6 and more; singular values below the largest over it are
# the directions the joints lose there
SINGULAR_COND = 1e5


def lined_up_frames(model: Model, alg: Algebra, fac: Factors, jac: np.ndarray,
                    keep: np.ndarray) -> np.ndarray | None:
    """(V, F) True at the frames of a block whose kept joint rows (without the motions) are
    nearly dependent: a singular position of the joints, not a motion's dead centre (there
    the joints are sound and the motion's row is the one lost: the sweep locks up as it
    should); None when there is none (or the block was factored banded: no condition)."""
    if fac.cond is None:
        return None
    near = fac.cond > SINGULAR_COND
    if not near.any():
        return None
    joint = model.row_motion[keep] < 0
    v, f = np.nonzero(near)
    J = global_jacobian(model, jac[v, f])[:, keep[joint], :]
    Js = J * alg.rs[v, 0][:, joint, None] / alg.cw[v, 0][:, None, :]
    s = np.linalg.svd(Js, compute_uv=False)
    near[v, f] = s[:, -1] < s[:, 0] / SINGULAR_COND
    return near if near.any() else None


def rates_continued(model: Model, alg: Algebra, jac: np.ndarray, keep: np.ndarray,
                    where: np.ndarray, last: Any, t: float, x: np.ndarray,
                    rhs: np.ndarray, order: int) -> np.ndarray:
    """A one-frame block's velocities (``order`` 1) or accelerations (2) x (V, 1, nb, 6),
    solving J_keep x = rhs, at the frames ``where`` (V, 1) the solution nearest those
    continued from the sweep's last solved frame ``last`` (its state and the rates of its
    accelerations, ``jerk`` and ``djerk``) to time t (s): v + a h + j h^2 / 2, or a + j h."""
    s, h = last.state, t - float(last.state.t)
    jerk = np.concatenate([last.jerk, last.djerk], axis=-1)
    acc = np.concatenate([s.a, s.alpha], axis=-1)
    guess = (np.concatenate([s.v, s.w], axis=-1) + h * (acc + 0.5 * h * jerk) if order == 1
             else acc + h * jerk)
    return least_change(model, alg, jac, keep, where, x, guess[:, None], rhs)


def least_change(model: Model, alg: Algebra, jac: np.ndarray, keep: np.ndarray,
                 where: np.ndarray, x: np.ndarray, guess: np.ndarray,
                 rhs: np.ndarray) -> np.ndarray:
    """x (V, F, nb, 6) with its frames ``where`` (V, F) replaced by the solution of
    J_keep x = rhs (rhs (V, F, kept rows)) nearest ``guess`` (V, F, nb, 6) in the scaled
    norm (rows in residual units, rotations in body lengths), the singular values below
    1/SINGULAR_COND of the largest dropped: guess + J^+ (rhs - J guess)."""
    v, f = np.nonzero(where)
    J = global_jacobian(model, jac[v, f])[:, keep, :]
    rs, cw = alg.rs[v, 0], alg.cw[v, 0]
    Js = J * rs[:, :, None] / cw[:, None, :]
    g = guess[v, f].reshape(len(v), -1)
    d = rs * (rhs[v, f] - np.einsum("nij,nj->ni", J, g))
    u, s, vt = np.linalg.svd(Js)
    inv = np.where(s > s[:, :1] / SINGULAR_COND, 1.0 / np.where(s > 0.0, s, 1.0), 0.0)
    y = np.einsum("nji,nj->ni", vt, inv * np.einsum("nji,nj->ni", u, d))
    out = x.copy()
    out[v, f] = (g + y / cw).reshape(out[v, f].shape)
    return out


def note_passed(results: list, alive: np.ndarray, where: np.ndarray, t: float, k: int) -> None:
    """Tell each variant's Result (``results[alive[v]]`` for the variants ``where`` (V, 1)
    marks) that frame k (t, s) lies on a singular position of its joints, once."""
    note = (f"frame {k} (t = {t:.6g} s) lies on a singular position of the joints (links "
            "lined up): the sweep passed it on the branch it came along, its velocities and "
            "accelerations continued from the frame before; the joints' reactions and the "
            "motions' efforts there are not determined by rigid joints (they grow without "
            "bound toward it)")
    for v in np.flatnonzero(where[:, 0]):
        notes = results[int(alive[v])].notes
        if note not in notes:
            notes.append(note)
