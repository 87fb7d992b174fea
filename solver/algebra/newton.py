"""Newton's shared pieces: the stopping tolerance, the row scales and column weights that make
residuals and steps comparable across lengths and angles, and the pose update."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base.rotations import rotate_world

NEWTON_TOL = 1e-12      # scaled residual (rows in m divided by the length scale)
RANK_TOL = 1e-6         # relative size of a row's new direction to count as independent
COND_LIMIT = 1e10       # 1-norm condition of the scaled Jacobian taken as a lock-up


def scales(model: Any) -> tuple[np.ndarray, np.ndarray]:
    """Row scales (1/m for length rows) and column weights (body length for rotations);
    a design study's stacked model (study/stack.py): each variant's, on its leading axes."""
    bl = np.asarray(model.body_length)
    col = np.ones(bl.shape + (6,))
    col[..., 3:] = bl[..., None]
    return 1.0 / model.row_length, col.reshape(bl.shape[:-1] + (-1,))


def scaled_jacobian(model: Any, J: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
    """J (of the given rows) with rows in residual units (length rows divided by the length
    scale) and rotation columns in body lengths: the matrix whose rank, condition and
    least-squares steps compare lengths and angles fairly."""
    rs, cw = scales(model)
    if rows is None:
        return J * rs[:, None] / cw[None, :]
    return J[..., rows, :] * rs[rows, None] / cw[None, :]


def step_size(model: Any, dq: np.ndarray, alpha: float = 1.0, cw: np.ndarray | None = None) -> Any:
    """Size of the step alpha dq (..., 6 nb) for the stopping rule: the largest move of a
    body, rotations times the body's length, relative to the size of its island (a float,
    or one per frame for leading axes), so that a part far larger beside a mechanism does
    not stop its iteration early.  ``cw``: scales(model)'s column weights, if kept."""
    cw = scales(model)[1] if cw is None else cw
    return moves(np.abs(alpha * dq * cw), model.body_size)


def moves(move: np.ndarray, body_size: Any) -> Any:
    """The largest of |move| (..., 6 nb), each body's six components over its island's size
    ``body_size`` (..., nb) m (Model.body_size): a step's size relative to the mechanism
    each body belongs to (the ufunc's reduce: ndarray.max goes through a Python wrapper,
    once a projection step)."""
    m = np.maximum.reduce(move.reshape(move.shape[:-1] + (-1, 6)), axis=-1, initial=0.0)
    return np.maximum.reduce(m / np.asarray(body_size), axis=-1, initial=0.0)


def step_pose(r: np.ndarray, p: np.ndarray, dq: np.ndarray, alpha: float = 1.0):
    """(r, p) moved by alpha dq, dq = (dr, world rotation) per body (..., nb*6)."""
    d = alpha * dq.reshape(r.shape[:-1] + (6,))
    return r + d[..., :3], rotate_world(p, d[..., 3:])


# ---------------------------------------------------------------- the one Newton
STEP_TOL = 1e-15        # scaled step at rounding level: the iteration cannot get closer


def converged(err: Any, size: Any, tol: float = NEWTON_TOL, step_tol: float = STEP_TOL) -> Any:
    """The one stopping rule of every Newton iteration here: the scaled residual ``err`` is
    at most ``tol``, or the last scaled step ``size`` is at most ``step_tol`` (rounding
    level) with the residual within 1000 tol.  ``err`` None means the residual is not
    measured (the implicit stages' simplified Newton): the step alone decides.  Works on
    floats and on per-frame arrays."""
    if err is None:
        return size <= step_tol
    return (err <= tol) | ((size <= step_tol) & (err <= 1e3 * tol))


ROUNDING_ULPS = 16.0    # rounding units of a coordinate a residual row's few sums may leave
_EPS = float(np.finfo(float).eps)


def rounding_tols(r: np.ndarray, body_size: Any) -> tuple[Any, Any]:
    """(tol, step_tol) of the stopping rule for poses whose part positions are ``r``
    (..., nb, 3) m: NEWTON_TOL and STEP_TOL, or the scaled rounding of the positions'
    coordinates where that is larger.  A mechanism far from the world origin (a 1 m
    pendulum 1e4 m away) has residuals and steps that cannot go below the rounding of its
    coordinates, ROUNDING_ULPS eps |r| / size (2e-12 m there), however well it is
    closed; the rule would otherwise never stop.  ``body_size`` (..., nb) m: each body's
    island's size (Model.body_size), the unit of its rows' scaled residuals.  One pair per
    leading index."""
    reach = np.maximum.reduce(np.maximum.reduce(np.abs(r), axis=-1, initial=0.0)
                              / np.asarray(body_size), axis=-1, initial=0.0)
    floor = ROUNDING_ULPS * _EPS * reach
    return np.maximum(NEWTON_TOL, floor), np.maximum(STEP_TOL, floor)


@dataclass
class NewtonResult:
    x: Any            # the last iterate
    ok: bool          # converged by the stopping rule
    iterations: int
    err: Any          # its scaled residual (None when not measured)
    size: float       # the last scaled step
    data: Any         # what residual() returned with err at x
    rate: float = 0.0  # the last contraction estimate (with ``rate``), size / previous size


@dataclass(frozen=True)
class NewtonOptions:
    """How newton() iterates and when it stops.

    max_iter: the most steps.  tol, step_tol: the stopping rule's scaled residual and
    scaled step (``converged``).  line_search: halve alpha (up to 30 times) until the
    residual decreases.  stall (ratio, count): stop after more than count steps in a row
    that reduce the residual by less than the ratio.  rate (step-only problems, residual
    not measured): the first step's contraction estimate, which switches the stopping rule
    to the predicted remaining error (see newton())."""
    max_iter: int
    tol: float = NEWTON_TOL
    step_tol: float = STEP_TOL
    line_search: bool = False
    stall: tuple[float, int] | None = None
    rate: float | None = None


def contraction_verdict(it: int, s1, last, rate0, last_ratio, left: int, tol: float):
    """Simplified Newton's stop by its predicted remaining error (Hairer-Wanner IV.8,
    simplified Newton iterations; the code RADAU5), on floats or on arrays (a study's
    variants, each its own): after step ``it`` (from 0) of scaled size s1, the previous
    size ``last``, ``left`` steps left: (ratio, theta, converged, failed).  theta, the
    contraction: ``rate0`` at the first step, s1 / last at the second, then the geometric
    mean of the last two ratios (``last_ratio``, the ratio before).  Converged when
    theta / (1 - theta) s1 <= tol; failed when theta >= 1 (or s1 is not finite), or from
    the third step on when theta^left / (1 - theta) s1 > tol (it would not converge in
    time).  The second step's single ratio is kept out of that forecast on purpose: from
    a poor start the iteration may contract slowly once, then fast (measured on a spinning
    governor: 0.5, then 0.04)."""
    ratio = s1 / last if it else rate0
    theta = np.sqrt(ratio * last_ratio) if it > 1 else ratio
    rest = np.where(theta < 1.0, 1.0 - theta, 1.0)        # (theta >= 1, NaN: failed)
    failed = ~np.isfinite(s1) | (theta >= 1.0)
    if it > 1:
        failed = failed | (powers(theta, left) / rest * s1 > tol)
    return ratio, theta, ~failed & (theta / rest * s1 <= tol), failed


def powers(x, e: float):
    """x ** e of each element of x (a float or an array) as a Python float's power (C pow):
    numpy's vectorized power may round differently in the last bit, and a study's variant
    must take its separate run's bits; x outside [0, 1) or NaN (a contraction that fails
    anyway, or a variant not iterating, whose power decides nothing) gives 1."""
    out = np.array([a ** e if 0.0 <= a < 1.0 else 1.0 for a in np.ravel(x).tolist()])
    return out.reshape(np.shape(x))


class NewtonProblem:
    """One system for newton(): a subclass holds what its iteration needs as attributes
    and defines residual, solve, move and size; first_alpha and accept have defaults.

    residual(x) -> (err, data): the scaled residual's size (None: not measured) and what
    solve needs.  solve(x, data) -> dx, the Newton step.  move(x, dx, alpha) -> x + alpha
    dx.  size(x1, dx, alpha) -> the scaled size of the step just taken (to x1).
    first_alpha(dx) -> the line search's first alpha (1).  accept(x, data) is called with
    each accepted iterate (nothing)."""

    def residual(self, x: Any) -> tuple[Any, Any]:
        raise NotImplementedError

    def solve(self, x: Any, data: Any) -> Any:
        raise NotImplementedError

    def move(self, x: Any, dx: Any, alpha: float) -> Any:
        raise NotImplementedError

    def size(self, x1: Any, dx: Any, alpha: float) -> float:
        raise NotImplementedError

    def first_alpha(self, dx: Any) -> float:
        return 1.0

    def accept(self, x: Any, data: Any) -> None:
        return None


def newton(problem: NewtonProblem, x: Any, options: NewtonOptions) -> NewtonResult:
    """Newton's iteration on one system from x, used by assembly, position projection,
    statics, posing and the implicit stages (the kinematic sweep runs many frames in
    lockstep with the same rule, ``converged``).

    With ``options.line_search``, alpha starts at problem.first_alpha(dx) and is halved
    (up to 30 times) until the residual decreases.  ``options.rate`` (step-only
    iterations, err None) switches the step rule to the predicted remaining error
    (``contraction_verdict``, with ``rate`` the first step's contraction and step_tol its
    goal).  Stops with ok=False when max_iter steps do not converge, no step reduces the
    residual, or it diverges or stalls.
    """
    max_iter, tol, step_tol = options.max_iter, options.tol, options.step_tol
    line_search, stall, rate = options.line_search, options.stall, options.rate
    err, data = problem.residual(x)
    last = np.inf
    stalled = 0
    last_ratio = rate
    for it in range(max_iter):
        if converged(err, last, tol, step_tol):
            return NewtonResult(x, True, it, err, last, data)
        dx = problem.solve(x, data)
        alpha = problem.first_alpha(dx)
        for _ in range(30 if line_search else 1):
            x1 = problem.move(x, dx, alpha)
            s1 = problem.size(x1, dx, alpha)
            if err is None and rate is not None:     # step-only, predicted remaining error
                ratio, theta, done, failed = contraction_verdict(
                    it, s1, last, rate, last_ratio, max_iter - it - 1, step_tol)
                if failed or done:
                    return NewtonResult(x1, bool(done), it + 1, None, s1, None, float(theta))
                last_ratio = ratio
            err1, data1 = problem.residual(x1)
            if not line_search or err1 < err or converged(err1, s1, tol, step_tol):
                break
            alpha *= 0.5
        else:
            return NewtonResult(x, False, it, err, last, data)   # no step reduces the residual
        if stall is not None:
            stalled = stalled + 1 if err1 > stall[0] * err else 0
        x, err, data, last = x1, err1, data1, s1
        problem.accept(x, data)
        if stall is not None and stalled > stall[1]:
            return NewtonResult(x, False, it + 1, err, last, data)
    return NewtonResult(x, bool(converged(err, last, tol, step_tol)), max_iter, err, last, data)
