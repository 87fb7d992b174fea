"""The position and velocity projection of a dynamics run (Equations.project and
project_many): the pose (r, p) brought onto Phi = 0 by M-weighted least-change Newton steps
-M^-1 J^T S^-1 res, S = J M^-1 J^T over the kept rows, then the velocities onto J v = nu by
the same least change (the coordinate projection of Hairer & Wanner 1996, VII.2).

Written once over any leading axes: the residual, the matrices, the Newton step and the
velocity correction are shared by the run's one state (``project``: the one Newton,
algebra/newton.py, with a singular position's robust acceptance and sticking joints held)
and by many states at once (``project_many``: a design study's variants, a long step's
frames, each stopping by the same rule on a mask), so that a variant's projection takes its
separate run's bits."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...algebra.newton import (NewtonOptions, NewtonProblem, converged, newton,
                               moves, rounding_tols, step_pose, step_size)
from ...base.rotations import unit_quaternions
from ...integrators.control import side_of
from ...kernels.constraints import body_arrays, evaluate, motion_values, residual
from .friction import lock_residual

PROJECT_RCOND = 1e-14   # Tikhonov filter of the position projection's Newton steps


def matrices(eq: Any, ev: Any, A: np.ndarray) -> tuple:
    """(S's factors, M^-1 J^T) of the kept rows at a pose (its rows ``ev``, rotation
    matrices A with the ground), leading axes allowed; the inverse mass blocks made as the
    right-hand side makes them (Equations._minv_ground), so a projection that takes a step's
    last stage's matrices and one that makes them at the same pose hold the same bits."""
    sc = eq.schur
    return sc.matrix(sc.blocks(ev.jac), eq._minv_ground(A))


def least_change(eq: Any, mats: tuple, res: np.ndarray) -> np.ndarray:
    """The Newton step -M^-1 J^T S^-1 res (..., 6 nb) for the kept rows' residuals res."""
    d = -eq.schur.apply(mats[1], eq.solve(mats[0], res, PROJECT_RCOND))
    return d.reshape(res.shape[:-1] + (-1,))


def onto_velocities(eq: Any, ev: Any, mats: tuple, v: np.ndarray, w: np.ndarray,
                    rates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(v, w) moved by the M-weighted least change onto J v = nu, nu the motions' rates
    (``rates``: motion_values' at the time, (..., nmotion, 3)).  S and M^-1 J^T (``mats``)
    may be the last Newton iteration's, whose pose differs from ev's by about the local
    error: J v - nu is taken at ev's pose, so J v = nu holds there up to (change of J) x
    (velocity correction), far below rounding."""
    m, sc, nb, mr = eq.m, eq.schur, eq.nb, eq.mrows
    lead = v.shape[:-2]
    vel = np.zeros(lead + (nb + 1, 6))
    vel[..., :nb, :3], vel[..., :nb, 3:] = v, w
    gap = sc.times(sc.blocks(ev.jac), vel)          # J v - nu, nu zero but on motion rows
    if mr.size:
        nu = np.zeros(lead + (m.nc,))
        nu[..., mr] = rates[..., m.row_motion[mr], 1]
        gap = gap - nu[..., eq.keep]
    mu = eq.solve(mats[0], gap)
    vel = vel[..., :nb, :] - sc.apply(mats[1], mu)
    return vel[..., :3], vel[..., 3:]


class PositionProjection(NewtonProblem):
    """One state's pose onto Phi = 0 for newton().  ``eq``: the run's Equations (model,
    kept rows, Schur layout, tracked values, sticking joints); ``f``: the motion values at
    the time; ``rs``: the kept rows' scales; ``cw``: the column weights.  ``pending``: the
    right-hand side's evaluation at the start pose (equations.LastRhs: rows, A, S and
    M^-1 J^T) if a step's last stage left them there, taken for the first residual as they
    are.  After the iteration, ``ready`` holds (S, M^-1 J^T) when they came with the last
    residual, ``mats`` those of the last step (None if none was taken)."""

    def __init__(self, eq: Any, f: np.ndarray, rs: np.ndarray, cw: np.ndarray,
                 pending: Any) -> None:
        self.eq, self.f, self.rs, self.cw, self.pending = eq, f, rs, cw, pending
        self.ready = None            # J M^-1 J^T at the pose the residual was last taken
        self.mats = None

    def residual(self, x):
        """(largest scaled residual of the kept rows, (row evaluation, A, residual))."""
        eq = self.eq
        m = eq.m
        if self.pending is not None:
            ev, A, self.ready = self.pending.ev, self.pending.A, self.pending.mats
            self.pending = None
        else:
            rg, A = body_arrays(m, *x)[:2]
            ev = eq.rows_at(rg, A)
            self.ready = None
        res = residual(m, ev.phi, self.f, eq.run.limit_ref)
        if eq.run.slip is not None:    # sticking joints held
            lock_residual(m, eq.run.slip, res, A)
        # (the largest by the ufunc's reduce: ndarray.max goes through a Python wrapper)
        return (np.maximum.reduce(np.abs(res[eq.keep] * self.rs), axis=None, initial=0.0),
                (ev, A, res))

    def solve(self, x, data):
        ev, A, res = data
        self.mats = self.ready if self.ready is not None else matrices(self.eq, ev, A)
        return least_change(self.eq, self.mats, res[self.eq.keep])

    def move(self, x, d, alpha):
        return step_pose(*x, d, alpha)

    def size(self, x1, d, alpha):
        return step_size(self.eq.m, d, alpha, self.cw)


def _same(a: np.ndarray, b: np.ndarray, rows: np.ndarray | None = None) -> bool:
    """np.array_equal(a, b) in two C calls (its Python wrapper costs a few microseconds,
    twice a step); given ``rows`` (S,) bool, a and b (S, ...) compared in those rows."""
    if a.shape != b.shape:
        return False
    eq = np.equal(a, b)
    if rows is not None:
        eq |= ~rows.reshape(rows.shape + (1,) * (a.ndim - 1))
    return bool(np.logical_and.reduce(eq, axis=None))


def project(eq: Any, t: float, r, p, v, w):
    """Equations.project: one state (r, p, v, w) at time t (s) onto the constraints; while
    the run passes a singular position (RunState.robust) Newton may take 100 steps and a
    residual up to the run's ``robust_tol`` is accepted (at a singular position the
    residual along the lost direction is quadratic in the distance, out of Newton's reach;
    it is left for the exact projections after the crossing)."""
    m = eq.m
    f = motion_values(m, t)
    p = unit_quaternions(p)
    # an explicit step whose last stage is its new point (Dormand-Prince 5(4)) evaluated
    # the rows and J M^-1 J^T there: the first iteration's, taken as they are
    last = eq._last
    pending = last if last is not None and _same(r, last.r) and _same(p, last.p) else None
    problem = PositionProjection(eq, f, eq._rs_keep, eq._cw, pending)
    robust = eq.run.robust
    tol, step_tol = (float(x) for x in rounding_tols(r, m.body_size))
    out = newton(problem, (r, p), NewtonOptions(100 if robust else 20, tol, step_tol))
    if not out.ok and not (robust and out.err <= eq.robust_tol):
        raise np.linalg.LinAlgError("position projection did not converge")
    (r, p), (ev, A, _) = out.x, out.data
    track = ev.track if m.ntrack else eq.run.track    # the couplers' turns, curve contacts
    if not eq.schur.n:
        return r, p, v, w, track
    mats = (problem.mats if problem.mats is not None else problem.ready
            if problem.ready is not None else matrices(eq, ev, A))
    # at a breakpoint the rates after it (a motion's kink: the impulse its jump takes)
    after = side_of(m.breakpoints, t)
    v, w = onto_velocities(eq, ev, mats, v, w, f if after == t else motion_values(m, after))
    return r, p, v, w, track


def project_many(eq: Any, t, r, p, v, w, todo: np.ndarray, rs, cw, size, rate_t=None):
    """Equations.project_many: the states ``todo`` (S,) of (t, r, p, v, w) with a leading
    axis S projected, each state's Newton stopping by the one rule (``converged``) on a
    mask, the others returned as they are.  Row scales ``rs`` (..., nc), column weights
    ``cw`` (..., 6 nb) and the bodies' island sizes ``size`` (..., nb) (Model.body_size)
    broadcast against (S, ...).  Not for a run
    at a singular position or with joints sticking (``project``).  Tracked values are
    taken near the run state's ``track`` ((S, ntrack), or None: as built).  ``rate_t``
    (S,): the times to take the motions' rates at, else t."""
    m, keep = eq.m, eq.keep
    f = motion_values(m, t) if eq.mrows.size else np.zeros((len(t), 0, 3))
    p = unit_quaternions(p)
    rk = np.asarray(rs)[..., keep]
    ref, turns = eq.run.track, eq.run.limit_ref

    def residual_at(r, p):
        rg, A = body_arrays(m, r, p)[:2]
        ev = evaluate(m, rg, A, ref=ref)
        res = residual(m, ev.phi, f, turns)[:, keep]
        return np.abs(res * rk).max(axis=-1, initial=0.0), ev, A, res

    # states that are the last right-hand side's (a design study's explicit steps' ends,
    # their last stage; the others' rows, returned as they are, may be any state's): its
    # rows, rotations and J M^-1 J^T for the first iteration, as project takes them for one
    # state (the same bits)
    made = eq._last
    if (made is not None and made.track is ref and _same(r, made.r, todo)
            and _same(p, made.p, todo)):
        ev, A, made = made.ev, made.A, made.mats
        res = residual(m, ev.phi, f, turns)[:, keep]
        err = np.abs(res * rk).max(axis=-1, initial=0.0)
    else:
        made = None
        err, ev, A, res = residual_at(r, p)
    last = np.full(len(t), np.inf)
    tol, step_tol = rounding_tols(r, size)
    live = todo & ~converged(err, last, tol, step_tol)
    mats = None
    for _ in range(20):
        if not live.any():
            break
        mv, mW = made = made if made is not None else matrices(eq, ev, A)
        mats = made if mats is None else (np.where(live[:, None], mv, mats[0]),
                                          np.where(live[:, None, None, None], mW, mats[1]))
        dq = least_change(eq, made, res)
        r1, p1 = step_pose(r, p, dq)
        moved = moves(np.abs(dq * cw), size)
        r = np.where(live[:, None, None], r1, r)
        p = np.where(live[:, None, None], p1, p)
        last = np.where(live, moved, last)
        err, ev, A, res = residual_at(r, p)
        made = None
        live &= ~converged(err, last, tol, step_tol)
    if (todo & ~converged(err, last, tol, step_tol)).any():
        raise np.linalg.LinAlgError("position projection did not converge")
    # the projected states' turns and contacts, for their next step
    track = ((ev.track if ref is None else np.where(todo[:, None], ev.track, ref))
             if m.ntrack else ref)
    if not eq.schur.n:
        return r, p, v, w, track
    if mats is None:          # no Newton step at all: J M^-1 J^T at the (final) pose; a
        # state that took none beside others got it at its pose
        mats = made if made is not None else matrices(eq, ev, A)
    rates = f if rate_t is None else motion_values(m, rate_t)
    vp, wp = onto_velocities(eq, ev, mats, v, w, rates)
    sel = todo[:, None, None]
    return r, p, np.where(sel, vp, v), np.where(sel, wp, w), track
