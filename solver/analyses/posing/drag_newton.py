"""The second-order part of a drag step (posing/drag.py): Newton on the constrained
least-squares problem

    minimise F(q) = |P(q) - T|^2 / (2 L^2)   subject to  c(q) = 0   (the held rows, scaled),

whose optimum satisfies the Lagrange conditions grad F + J^T mu = 0, c = 0.  Gauss-Newton
uses only G^T G (G = dP/dq) for the Hessian of the Lagrangian; it converges quadratically
when the target is reached (F = 0 at the optimum) but only linearly, or crawls, when it is
not: then the curvature of the point's path (weighted by P - T) and of the held rows
(weighted by mu) are of the same size as G^T G (a stretched arm: G^T G is singular along
the stretch, only the curvature keeps the optimum).  Here the full Hessian of the
Lagrangian, reduced to the held rows' free directions N (the columns of the null space of
the scaled Jacobian), is taken by forward differences of the Lagrangian's exact gradient
along those directions, all of them in one vectorized evaluation of the rows (the kernels
carry leading axes): H = N^T (grad L(x + h N) - grad L(x)) / h, symmetrised (its
antisymmetric part is the rotations' non-commuting second order, which vanishes at the
optimum).  The difference step is FD_STEP of the mechanism's size: the Hessian is then exact
to about 1e-6 (truncation) and 1e-10 (rounding) of its size, which only sets how fast
Newton contracts (by about 1e-6 a step), never where it stops: the stopping test is on the
exact gradient.

Steps are in the scaled coordinates y = cw dq (rotations times each body's length) that
``algebra.newton`` uses; lengths over the dragged part's mechanism's size L.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ...algebra.newton import step_pose
from ...base.rotations import quat_to_matrix
from ...kernels.constraints import body_arrays, evaluate, row_forces
from ...model.compile import Model

FD_STEP = 1e-6          # of the dragged part's mechanism's size: the Hessian's difference step
NEGATIVE = 1e-6         # an eigenvalue below -NEGATIVE x the largest: not a minimum's Hessian
FLAT = 1e-8             # an eigenvalue below FLAT x the largest: no curvature (noise ~1e-10)
ESCAPE = 0.1            # of the mechanism's size: the least move down a negative curvature


def lagrangian_gradients(model: Model, r: np.ndarray, p: np.ndarray, jac: np.ndarray,
                         held: np.ndarray, mu: np.ndarray, b: int, u: np.ndarray,
                         T: np.ndarray, cw: np.ndarray) -> np.ndarray:
    """(..., 6 nb) grad F + J^T mu in scaled coordinates at poses (r (..., nb, 3), p (...,
    nb, 4)) whose rows' Jacobian blocks are ``jac``: F's gradient is (P - T, a x (P - T)) /
    L^2 on body b (a its arm u in world axes), the held rows' is J^T (mu times their row
    scales)."""
    L = float(model.body_size[b])       # the dragged part's mechanism's size (drag.py's L)
    nb = model.nb
    a = np.einsum("...ij,j->...i", quat_to_matrix(p[..., b, :]), u)
    e = r[..., b, :] + a - T
    out = row_forces(model, held, mu / model.row_length[held], jac, nb + 1)[..., :nb, :]
    out[..., b, :3] += e / (L * L)
    out[..., b, 3:] += np.cross(a, e) / (L * L)
    return out.reshape(out.shape[:-2] + (6 * nb,)) / cw


def reduced_hessian(model: Model, x: tuple[np.ndarray, np.ndarray], N: np.ndarray,
                    held: np.ndarray, mu: np.ndarray, b: int, u: np.ndarray, T: np.ndarray,
                    cw: np.ndarray, track: np.ndarray | None) -> np.ndarray:
    """N^T H N (m, m): the Hessian of F + mu . c along the free directions N (6 nb, m)
    (scaled), by forward differences of the exact gradient (module docstring)."""
    m = N.shape[1]
    h = FD_STEP * float(model.body_size[b])
    r, p = x
    dq = np.vstack([np.zeros(N.shape[0]), h * N.T / cw])            # x itself, then x + h n_k
    rr, pp = step_pose(np.broadcast_to(r, (m + 1,) + r.shape), np.broadcast_to(p, (m + 1,) + p.shape), dq)
    ref = None if track is None else np.broadcast_to(track, (m + 1,) + track.shape)
    ev = evaluate(model, *body_arrays(model, rr, pp)[:2], ref=ref)
    grads = lagrangian_gradients(model, rr, pp, ev.jac, held, mu, b, u, T, cw)
    H = (grads[1:] - grads[0]) @ N / h
    return 0.5 * (H + H.T)


def newton_step(H: np.ndarray, grad: np.ndarray, escape: float,
                unreached: bool) -> tuple[np.ndarray, bool, bool, Callable, float]:
    """The free step z (m,) that solves H z = -grad in the least-squares sense; True when H
    is a minimum's Hessian (no curvature clearly negative); True when the step was
    lengthened down a negative curvature; the step damped, ``damped(lm)`` (each curvature's
    size plus lm: Levenberg-Marquardt, Nocedal and Wright 2006, 4.3), and the largest
    curvature's size, the damping's scale.

    Directions of curvature below FLAT x the largest in size do not move (a redundant
    mechanism's freedoms that the point does not feel: the least movement); a clearly
    negative curvature (a saddle of |P - T|, far from the closest pose) is taken by its
    size, so the step goes down it (saddle-free Newton, Dauphin et al. 2014).  Where the
    linearised point rows cannot reach the target (``unreached``), the step also goes down
    the most negative curvature at least ``escape`` (scaled m, ESCAPE of the mechanism's
    size; the caps and the line search then cut it): at or near the saddle itself the
    gradient is nil or tiny (a straight arm pulled along itself) and the step by its size
    alone would not move, or creep away doubling each step.  Near a target in reach the
    negative curvature is the small one of |P - T| times the point's path's curvature, and
    such a move would only stray from it."""
    lam, V = np.linalg.eigh(H)
    top = float(np.max(np.abs(lam), initial=0.0))
    keep = np.abs(lam) > FLAT * top
    Vk, gk, size = V[:, keep], V[:, keep].T @ grad, np.abs(lam[keep])
    extra = np.zeros(len(grad))                  # the move down the negative curvature

    def damped(lm: float) -> np.ndarray:
        return -Vk @ (gk / (size + lm)) + extra
    z = damped(0.0)
    minimum = bool(top > 0.0 and lam[0] >= -NEGATIVE * top)
    if minimum or top == 0.0:
        return z, minimum, False, damped, top
    v = V[:, 0]                                  # the most negative curvature
    c = float(v @ z)                             # the step's move along it (downhill)
    if abs(c) >= escape or not unreached:
        return z, False, False, damped, top
    extra = ((escape if c >= 0.0 else -escape) - c) * v
    return z + extra, False, True, damped, top
