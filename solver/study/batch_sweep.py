"""Many variants of one fully driven mechanism in one kinematic sweep.

The sweep of analyses/sweep.py solves blocks of frames as one array computation; here the
block is (variants, frames): a model stacked with ``stack_models(models, axes=1)`` (arrays
(V, 1, ...)) broadcasts against poses (V, F, ...), and every step of the sweep (the third-
order prediction off each variant's last frame, Newton on every frame of every variant with
the one stopping rule, velocities J v = nu, accelerations J a = gamma, the reactions
J^T lambda = Q - M a) is a set of numpy calls on the whole block.  A block is cut at the
first frame where any variant has not converged or leaves its smooth prediction, as the
single sweep cuts its own; each variant's frames are the solutions of the same equations to
the same tolerance, so its Result equals its separate sweep to Newton's tolerance.

It covers the common case: dense J (up to MIN_BANDED kept rows, or more where J M^-1 J^T
is not banded, as the single sweep then solves densely too); redundant rows, as a
planar loop of revolutes has, with the least-norm multipliers sweep.py gives them; each
variant's own motions, tabulated for it; spring-dampers, torsion springs, actuators and
applied loads a frame at a time for all variants, as sweep.py takes them, each variant's
own functions where their constants differ (study/stack.py stack_models); couplers and
curve joints with each variant's tracked values (the couplers' turns, the contact
parameters) predicted from its own last frame, as sweep.py predicts them; stops (a
compliant one's force, a rigid one a motion drives through: that variant leaves the batch
there) and joint friction (its load the reaction, a jam cutting the block as sweep.py
cuts its own).  Anything else returns None, and the caller sweeps the variants
one by one, where each gets its own full treatment and error message.  A variant that
cannot solve a frame (a lock-up, a singular position: a study of a range often reaches
past what the mechanism can do) leaves the batch there, and the others go on; the caller
sweeps it alone for its own result or error.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..algebra.banded import MIN_BANDED
from ..algebra.schur import Schur
from ..algebra.newton import COND_LIMIT, converged, step_pose
from ..analyses.structure import Structure, least_norm, self_stresses
from ..base.errors import FrictionJam, SolverCancelled
from ..analyses.dynamics.friction import rates
from ..analyses.dynamics.stops import gaps, tolerance
from ..analyses.sweep import (BLOCK_MAX, condition_scales, motion_table, next_block,
                               scaled_condition, smooth_prefix, with_friction)
from ..base.rotations import rotate_world
from ..kernels.constraints import body_arrays, evaluate, global_jacobian, residual
from ..kernels.forces import body_loads, evaluate_forces
from ..kernels.stop_forces import stop_forces
from ..model.compile import Model
from ..model.results import Result, ResultStack
from ..model.state import State
from .stack import stack_models, stacked_tracks, take_variants


# A (variants, frames) block holds at most this many numbers in its Jacobians (1.6 MB, about
# a cache's worth).  The variants already share every call, so few frames a block suffice,
# and small blocks are faster: their arrays stay in cache and their frames are predicted
# from nearer ones (fewer Newton steps).  Slider-crank, 240 frames, by frames a block:
# 100 variants 0.80 s at 3 against 1.13 s at 64; 400 variants 2.9 s at 1 against 3.6 s;
# 9 variants 0.095 s at 16 against 0.21 s at 1 (bench/bench_study.py's case, 2026-11-27).
CACHE_FLOATS = 2e5


class _Fail(Exception):
    """A frame the batch leaves to the separate sweeps."""


def batch_sweep(models: list[Model], st: Structure, starts: list[State],
                times: np.ndarray, progress: Callable[[int], Any] | None = None
                ) -> list[Result | None] | None:
    """Kinematic sweeps of every variant (models of one topology, structure ``st``, each
    from its assembled start) over ``times`` as one; their Results, None for a variant
    that left the batch at a frame it could not solve, or None for all (see the module
    docstring).  ``progress(variants' worth done)`` after each block; returning
    False stops the sweep (SolverCancelled)."""
    m0 = models[0]
    keep = st.keep
    if len(keep) != 6 * m0.nb or (len(keep) > MIN_BANDED and Schur(m0, keep).band.banded):
        # (a large mechanism whose J M^-1 J^T is banded: its sweep solves through S =
        # J M^-1 J^T, whose rounding grows with cond(J)^2 (1e-9 of a 12-link chain's
        # reactions); a batch's poses, within Newton's tolerance of the sweep's own, then
        # part from them by as much: the variants run one by one)
        return None
    sm = stack_models(models, axes=1, motions=False, switched=True)
    if sm is None or not m0.nb:
        return None
    tables = [motion_table(m, times) for m in models]     # each variant's own motions
    if any(bad is not None for _, _, bad in tables):
        return None
    fv = np.stack([tab for tab, _, _ in tables])         # (V, frames, motions, 3)
    try:
        return _sweep(models, sm, st, starts, times, fv, progress)
    except (_Fail, np.linalg.LinAlgError, FloatingPointError, ArithmeticError):
        return None


def _sweep(models, sm: Model, st: Structure, starts, times, fv, progress) -> list[Result]:
    V, nb, nc, n = len(models), sm.nb, sm.nc, len(times)
    keep = st.keep
    mrows = np.flatnonzero(sm.row_motion >= 0)
    mix = sm.row_motion[mrows]
    rs = np.stack([1.0 / m.row_length for m in models])[:, None, keep]        # (V, 1, nk)
    col = np.ones((V, nb, 6))
    col[..., 3:] = np.stack([m.body_length for m in models])[..., None]
    cw = col.reshape(V, 1, -1)
    L = np.array([m.length_scale for m in models])[:, None]                    # (V, 1)
    js, jsinv = condition_scales(rs, cw)      # the condition check's scalings, made once
    blen = np.stack([m.body_length for m in models])                           # (V, nb)
    outs = ResultStack(models, times)
    results = list(outs.results)
    # the force elements are evaluated a frame at a time (states (V, 1, ...), as the
    # stacked model's numbers are), each variant's torsion springs on its frame before's turns
    ts_ref = np.zeros((V, 1, len(models[0].forces.ts_names)))

    def take(vi):        # the variants of the batch's entries vi
        return take_variants(sm, models[alive[0]], vi)

    alive = np.arange(V)              # the variants still in the batch
    biggest = int(max(1, min(BLOCK_MAX, CACHE_FLOATS // (V * max(nc, 1) * (12 + 6 * nb)))))
    prev = None                       # each variant's last solved frame
    r0 = np.stack([s.r for s in starts])
    p0 = np.stack([s.p for s in starts])
    # the tracked values (couplers' turns, curve contacts) at each variant's start, from
    # those its assembly found (State.track), as sweep.py takes them
    ref0 = stacked_tracks(starts)
    q0 = (evaluate(sm, *body_arrays(sm, r0[:, None], p0[:, None])[:2],
                   ref=None if ref0 is None else ref0[:, None]).track
          if sm.ntrack else np.zeros((V, 1, 0)))                                  # (V, 1, nt)
    k0, size = 0, 1
    gone = None                       # variants that leave the batch at frame k0
    while k0 < n:
        if gone is not None:          # the batch goes on without them; their sweeps say why
            if gone.all():
                raise _Fail("no variant left")
            solved = ~gone
            alive = alive[solved]
            sm = stack_models([models[i] for i in alive], axes=1, motions=False,
                              switched=True)
            if sm is None:
                raise _Fail("the variants left do not stack")
            V = len(alive)
            rs, cw, js, jsinv, L, blen, r0, p0, ts_ref, fv, q0 = (
                x[solved] for x in (rs, cw, js, jsinv, L, blen, r0, p0, ts_ref, fv, q0))
            if prev is not None:
                prev = prev[:1] + tuple(x[solved] for x in prev[1:])
            outs.keep(solved)
            gone = None
        ks = np.arange(k0, min(k0 + size, n))
        tried = len(ks)
        if prev is None:
            R, P = r0[:, None].copy(), p0[:, None].copy()
        else:      # sweep.py's third-order predictor off each variant's last frame
            t1, r1, p1, v1, w1, a1, al1, jerk, djerk, q1, qd1 = prev
            h = (times[ks] - t1)[None, :, None, None]
            R = r1[:, None] + h * (v1[:, None] + h * (0.5 * a1[:, None] + h / 6.0 * jerk[:, None]))
            P = rotate_world(np.broadcast_to(p1[:, None], (V, len(ks), nb, 4)),
                             h * (w1[:, None] + h * (0.5 * al1[:, None] + h / 6.0 * djerk[:, None])))
        f = fv[:, ks]                                                           # (V, F, nm, 3)
        # each tracked value predicted from its variant's last frame's rate (sweep.py)
        ref = (None if not sm.ntrack else q0 if prev is None
               else q1[:, None] + qd1[:, None] * (times[ks] - t1)[None, :, None])
        R, P, jac, A, ok, iters, ref = _newton(sm, keep, rs, cw, L, R, P, f, take, ref=ref)
        m = int(np.argmin(ok.all(axis=0))) if not ok.all() else len(ks)
        Jinv = None
        solved = ok[:, 0]                # (V,) the variants that solve the block's first frame
        if m:
            Jg = global_jacobian(sm, jac[:, :m])[..., keep, :]
            Jinv = np.linalg.inv(Jg)
            with np.errstate(invalid="ignore"):
                cond = scaled_condition(Jg, Jinv, js, jsinv)
            goodv = np.isfinite(cond) & (cond < COND_LIMIT)
            good = goodv.all(axis=0)
            m = int(np.argmin(good)) if not good.all() else m
            solved = solved & goodv[:, 0]
        if m == 0:
            if len(ks) > 1:
                size = 1
                continue
            if not solved.any():
                raise _Fail("a frame no variant's Newton solves here")
            gone = ~solved        # (a lock-up, a singular position)
            continue
        ks, R, P, jac, A, Jinv, f = ks[:m], R[:, :m], P[:, :m], jac[:, :m], A[:, :m], Jinv[:, :m], f[:, :m]
        nu = np.zeros((V, m, nc))
        nu[..., mrows] = f[..., mix, 1]
        vel = (Jinv @ nu[..., keep, None])[..., 0].reshape(V, m, nb, 6)
        Vv, W = vel[..., :3], vel[..., 3:]
        rg, Ag, vg, wg = body_arrays(sm, R, P, Vv, W)
        evq = evaluate(sm, rg, Ag, vg, wg, need_jac=False,
                       ref=None if ref is None else ref[:, :m])
        gamma = -evq.quad
        gamma[..., mrows] += f[..., mix, 2]
        acc = (Jinv @ gamma[..., keep, None])[..., 0].reshape(V, m, nb, 6)
        Ac, Al = acc[..., :3], acc[..., 3:]
        if prev is not None and len(ks) > 1:
            m2 = smooth_prefix(prev[1:7], np.diff(times[np.r_[ks[0] - 1, ks]]), R, P, Vv, W, Ac, Al,
                               blen, L[:, 0])
            if m2 == 0:
                size = 1
                continue
            if m2 < m:
                m = m2
                ks, R, P, jac, A, Jinv, f = ks[:m], R[:, :m], P[:, :m], jac[:, :m], A[:, :m], Jinv[:, :m], f[:, :m]
                Vv, W, Ac, Al = Vv[:, :m], W[:, :m], Ac[:, :m], Al[:, :m]
                rg, Ag, vg, wg = rg[:, :m], Ag[:, :m], vg[:, :m], wg[:, :m]
        # inverse dynamics: J^T lambda = Q - M a
        Q, Iw = body_loads(sm, Ag, wg)
        pot, pnc = np.zeros((V, m)), np.zeros((V, m))
        vel = np.concatenate([vg, wg], axis=-1)
        stop = stop_forces(sm, evq.phi[:, :m], jac, vel) if sm.limits is not None else None
        if stop is not None:    # compliant stops the motions push into: their force (sweep.py)
            Q = Q + stop.Q[..., :nb, :]
            pnc = pnc + stop.power
        ts_next = ts_ref                  # (handed on once the block is kept)
        if not sm.forces.empty:  # force elements frame by frame (a variant's own functions
            for j in range(m):   # take one time for all: _PerVariant.value), torsion turns
                at = slice(j, j + 1)     # handed on from frame to frame as sweep.py hands them
                fe = evaluate_forces(sm.forces, float(times[ks[j]]), rg[:, at], Ag[:, at],
                                     vg[:, at], wg[:, at], ts_next)
                Q[:, at] += fe.Q[..., :nb, :]
                pot[:, at], pnc[:, at] = fe.potential, fe.power_nc
                if ts_next.shape[-1]:     # (no torsion spring: ts_angle has no variant axis)
                    ts_next = fe.ts_angle
        Ma = np.concatenate([sm.body_mass[..., None] * Ac, (Iw @ Al[..., None])[..., 0]], -1)
        lam = np.zeros((V, m, nc))
        JinvT = np.swapaxes(Jinv, -1, -2)

        def solve_t(F):                   # the kept rows' multipliers for body forces F
            return (JinvT @ F.reshape(F.shape[:-2] + (-1,))[..., None])[..., 0]
        lam[..., keep] = solve_t(Q - Ma)
        report = None                     # the least-norm joint multipliers (sweep.py)
        if st.redundant.size:
            report = least_norm(self_stresses(sm, keep, st.redundant, jac, solve_t))
            lam = report(lam)
        if stop is not None:              # read as the limit's force (Result.limit)
            lam[..., sm.limits.rows[stop.bounds]] = -stop.Qq
        if sm.frictions is not None:      # joint friction: its load is the reaction (sweep.py)
            try:
                lam, Qq = with_friction(sm, keep, solve_t, lam, jac, Ag, vg, wg, report)
            except FrictionJam as exc:    # the motions cannot drive a joint of variant v
                v, j = exc.index[:2]
                if j:                     # the block's frames before it first
                    size = j
                else:                     # it leaves here; its own sweep names the jam
                    gone = np.arange(V) == v
                continue
            pnc = pnc + np.sum(Qq * rates(sm, jac, vel), axis=-1)
            outs._friction[:, ks[0]: ks[-1] + 1] = Qq
        power = pnc - (lam[..., mrows] * f[..., mix, 1]).sum(axis=-1)
        block = slice(int(ks[0]), int(ks[-1]) + 1)
        track = None if evq.track is None else evq.track[:, :m]
        outs.store(block, State(times[ks], R, P, Vv, W, Ac, Al), lam, jac, track)
        outs.store_energy(block, Iw, pot, power)
        if m > 1:
            dt, a0, al0 = times[ks[-1]] - times[ks[-2]], Ac[:, -2], Al[:, -2]
        elif prev is not None:
            dt, a0, al0 = times[ks[-1]] - prev[0], prev[5], prev[6]
        else:
            dt, a0, al0 = 1.0, Ac[:, -1], Al[:, -1]
        q1, qd1 = ((evq.track[:, m - 1], evq.rate[:, m - 1]) if sm.ntrack
                   else (np.zeros((V, 0)), np.zeros((V, 0))))
        ts_ref = ts_next
        prev = (times[ks[-1]], R[:, -1], P[:, -1], Vv[:, -1], W[:, -1], Ac[:, -1], Al[:, -1],
                (Ac[:, -1] - a0) / dt, (Al[:, -1] - al0) / dt, q1, qd1)
        if sm.limits is not None:   # a motion that drives a rigid stop through: that variant
            tol = np.stack([tolerance(models[i]) for i in alive])[:, None]    # leaves here,
            past = (gaps(sm, evq.phi[:, :m]) < -tol) & ~sm.limits.compliant    # its own sweep
            if past.any():                                                      # says where
                gone = past.any(axis=(-2, -1))
        k0 = int(ks[-1]) + 1
        if progress is not None and progress(V * k0 // n) is False:
            raise SolverCancelled("design study cancelled", float(times[k0 - 1]))
        size = next_block(k0, m, tried, iters, size, biggest)
    if gone is not None:              # the last block's leavers
        alive = alive[~gone]
    left = set(alive.tolist())
    return [o if i in left else None for i, o in enumerate(results)]


FEW_LIVE = 0.25       # Newton goes on with only the frames still iterating below this share


def _newton(sm: Model, keep, rs, cw, L, R, P, f, take=None, size=None, budget: int = 25,
            ref=None):
    """Newton on every frame of every variant of a block in lockstep (sweep.py's _newton on
    a (V, F) block): each stops by the one rule; a frame that has converged is no longer
    moved.  Returns poses, Jacobian blocks, rotation matrices, the (V, F) converged mask and
    the iterations.  ``take(vi)``: the model of variants vi (study/batch.py take_variants);
    with it, once few frames still iterate (FEW_LIVE: a variant near a singular position
    converges slowly), only those go on, each as a variant of its own, so the rest of the
    block is not evaluated again for them; ``size``: the last steps' sizes; ``ref``
    (V, F, ntrack): the tracked values predicted for each frame, every iteration's contact
    searched from there; those the last evaluation found are returned (sweep.py's
    _newton)."""
    shape = R.shape[:2]
    size = np.full(shape, np.inf) if size is None else size
    done = np.zeros(shape, dtype=bool)
    it = 0
    for it in range(budget):
        rg, A = body_arrays(sm, R, P)[:2]
        ev = evaluate(sm, rg, A, ref=ref)
        res = residual(sm, ev.phi, f)[..., keep]
        with np.errstate(invalid="ignore"):
            err = np.max(np.abs(res * rs), axis=-1, initial=0.0)
            done = converged(err, size) & np.isfinite(ev.jac).all(axis=(-2, -1))
        live = ~done & np.isfinite(err)
        if not live.any():
            break
        if take is not None and it >= 1 and live.sum() <= FEW_LIVE * live.size:
            vi, fi = np.nonzero(live)
            Rc, Pc, jc, Ac, dc, more, rc = _newton(
                take(vi), keep, rs[vi], cw[vi], L[vi], R[vi, fi][:, None], P[vi, fi][:, None],
                f[vi, fi][:, None], take=None, size=size[vi, fi][:, None], budget=budget - it,
                ref=None if ref is None else ref[vi, fi][:, None])
            R, P, jac, A = R.copy(), P.copy(), ev.jac.copy(), A.copy()
            R[vi, fi], P[vi, fi], jac[vi, fi], A[vi, fi] = Rc[:, 0], Pc[:, 0], jc[:, 0], Ac[:, 0]
            found = None if ref is None else ev.track.copy()
            if found is not None:
                found[vi, fi] = rc[:, 0]
            done = done.copy()
            done[vi, fi] = dc[:, 0]
            return R, P, jac, A, done, it + more, found
        Jg = global_jacobian(sm, ev.jac)[..., keep, :]
        Jg = np.where(live[..., None, None], Jg, np.eye(len(keep)))     # converged: any solvable J
        dq = -np.linalg.solve(Jg, np.where(live[..., None], res, 0.0)[..., None])[..., 0]
        step = np.max(np.abs(dq * cw), axis=-1, initial=0.0) / L
        R1, P1 = step_pose(R, P, dq)
        sel = live[..., None, None]
        R, P = np.where(sel, R1, R), np.where(sel, P1, P)
        size = np.where(live, step, size)
    return R, P, ev.jac, A, done, it, None if ref is None else ev.track
