"""A sweep's frame that lands on a singular position of the joints (a parallelogram's links
lined up, where its parallel and crossed branches meet): there the joints' equations lose
rank, so J v = nu leaves the speed along the lost direction to rounding (the follower crank
of a parallelogram turning at pi rad/s came out at 1.05 rad/s) and the next frame, predicted
off that speed, fell onto the crossed branch.  At such a frame the velocities and the
accelerations are the solutions of their equations nearest the ones continued from the
frame before (least change, Golub-Van Loan 5.5.4 on the scaled Jacobian, the directions it
loses left as they were), so the sweep passes on the branch it came along, as a dynamic
run does on its momentum.  A frame on a motion's dead centre (a slider-crank driven by its
slide, the slide's target touching crank and rod in line and turning back) is passed so
too: there the joints are sound but the motion's row depends on theirs, and the rates
solved exactly came out of rounding (the crank at rest, then on the other branch for a
frame, the slide's effort 2e10 N)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...algebra.rank import involved
from ...base.errors import SolverError
from ...kernels.constraints import global_jacobian
from ...model.compile import Model
from .algebra import Algebra, Factors

# the scaled 1-norm condition of the kept Jacobian above which a frame is looked at: a
# sound pose's is 1 to 1e3 (a parallelogram 7.5 degrees off lined up: 210), a frame on the
# lined-up position's some 1e6 and more; singular values below the largest over it are
# the directions the joints lose there
SINGULAR_COND = 1e5
# a frame's rates continued across it that miss their equations by more than this share of
# their size (scaled): the motions ask for a rate the joints cannot give there (a slide
# driven at 0.02 m/s onto its dead centre misses by 6%; one touching it and turning back,
# by 4e-9), a lock-up at that frame
RATES_MISSED = 1e-3


def lost_share(model: Model, keep: np.ndarray) -> float:
    """The share of the largest singular value of a frame's scaled Jacobian (its kept rows
    ``keep``) below which its lost direction may be the inputs' rounding alone:
    1 / SINGULAR_COND, or, for inputs given rounded (Blender's float32: the rows' islands'
    Model.row_rounding), sqrt(8 rounding) where larger, the share the start's test ranks as
    lost (start/singular_start.py: rounded_singular).  The rounding's length mismatch
    folds a lined-up parallelogram off its line, so on a frame at that position its lost
    row stays independent by a small share (one read from Blender: 1.4e-5 against its
    rounding's 2.1e-3), and its rates solved exactly are the rounding's: they took the
    crossed branch."""
    rounding = float(np.max(model.row_rounding[keep], initial=0.0))
    return max(1.0 / SINGULAR_COND, float(np.sqrt(8.0 * rounding)))


# the share of their size by which a frame's exactly solved velocities must leave those
# continued from the frame before, on a frame whose joints lose rank within the inputs'
# rounding only, for it to count as lined up: a sound frame's differ by the continuation's
# error (a fraction of a percent), a lined-up parallelogram's turn its coupler (all of it)
RATES_JUMP = 0.1


def lined_up_frames(model: Model, alg: Algebra, fac: Factors, jac: np.ndarray,
                    keep: np.ndarray, rates: tuple | None = None
                    ) -> tuple[np.ndarray, dict] | None:
    """(near, dead): near (V, F) True at the frames of a block whose kept rows are nearly
    dependent, a singular position of the joints or a motion's dead centre (its row
    dependent on the joints' sound ones), and dead {(v, f): the motions' names} for the
    latter; None when there is none (or the block was factored banded: no condition).  A
    motion driven past its dead centre has no pose there: Newton fails and the sweep locks
    up, as it should.  A frame whose joints lose rank only within the inputs' rounding
    (lost_share) is one where ``rates`` (the block's velocities solved exactly, the sweep,
    the block's frame numbers and the velocities' right-hand side nu) show it: the
    velocities continued from the frame before fit its equations and the exact ones jump
    away from them; in a block of more frames it is marked, to be solved alone.  None
    before the sweep's first frame is solved (nothing to continue from)."""
    if fac.cond is None or (rates is not None and rates[1].prev is None):
        return None
    lost = lost_share(model, keep)
    near = fac.cond > 1.0 / lost
    if not near.any():
        return None
    joint = model.row_motion[keep] < 0
    v, f = np.nonzero(near)
    J = global_jacobian(model, jac[v, f])[:, keep, :]
    Js = J * alg.rs[v, 0][:, :, None] / alg.cw[v, 0][:, None, :]
    u, s, _ = np.linalg.svd(Js)
    sj = np.linalg.svd(Js[:, joint], compute_uv=False)
    lined = sj[:, -1] < sj[:, 0] / SINGULAR_COND
    rounded = ~lined & (sj[:, -1] < sj[:, 0] * lost)
    if rounded.any() and rates is not None and len(rates[2]) == 1:
        lined |= rounded & _jumped(model, alg, jac, keep, v, f, rounded, rates)
    elif rounded.any():
        lined |= rounded
    near[v, f] = lined | (s[:, -1] < s[:, 0] / SINGULAR_COND)
    dead = {}
    for n in np.flatnonzero(near[v, f] & ~lined):     # the motions in the lost combination
        share = np.abs(u[n, :, -1]) * ~joint
        dead[int(v[n]), int(f[n])] = tuple(dict.fromkeys(
            model.motion_names[model.row_motion[r]] for r in keep[share > 0.2 * share.max()]))
    return (near, dead) if near.any() else None


def _jumped(model: Model, alg: Algebra, jac: np.ndarray, keep: np.ndarray, v: np.ndarray,
            f: np.ndarray, rounded: np.ndarray, rates: tuple) -> np.ndarray:
    """For the frames (v, f) of a one-frame block whose joints lose rank within the
    rounding (``rounded``; ``rates`` as lined_up_frames takes them): do the velocities
    continued from the sweep's last solved frame fit the frame's equations while the
    exactly solved ones leave them by RATES_JUMP of their size (rounding choosing the
    branch)?"""
    vel, sweep, ks, nu = rates
    rhs = nu[..., keep]
    where = np.zeros(vel.shape[:2], dtype=bool)
    where[v[rounded], f[rounded]] = True
    kept = rates_continued(model, alg, jac, keep, where, sweep.prev, float(sweep.times[ks[0]]),
                           vel, rhs, 1)
    fits = ~rates_missed(model, alg, jac, keep, where, kept, rhs)
    cw = alg.cw[v, 0]
    gap = np.abs(((vel - kept)[v, f]).reshape(len(v), -1) * cw).max(axis=-1)
    size = np.abs(kept[v, f].reshape(len(v), -1) * cw).max(axis=-1)
    return fits[v, f] & (gap > RATES_JUMP * size)


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
    lost_share of the largest dropped: guess + J^+ (rhs - J guess)."""
    v, f = np.nonzero(where)
    J = global_jacobian(model, jac[v, f])[:, keep, :]
    rs, cw = alg.rs[v, 0], alg.cw[v, 0]
    Js = J * rs[:, :, None] / cw[:, None, :]
    g = guess[v, f].reshape(len(v), -1)
    d = rs * (rhs[v, f] - np.einsum("nij,nj->ni", J, g))
    u, s, vt = np.linalg.svd(Js)
    inv = np.where(s > s[:, :1] * lost_share(model, keep), 1.0 / np.where(s > 0.0, s, 1.0), 0.0)
    y = np.einsum("nji,nj->ni", vt, inv * np.einsum("nji,nj->ni", u, d))
    out = x.copy()
    out[v, f] = (g + y / cw).reshape(out[v, f].shape)
    return out


def rates_missed(model: Model, alg: Algebra, jac: np.ndarray, keep: np.ndarray,
                 where: np.ndarray, x: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """(V, F) True at the frames ``where`` whose rates x (V, F, nb, 6), continued across
    dependent rows (``least_change``), miss J_keep x = rhs by more than RATES_MISSED of
    their size, both scaled: the motions drive the parts there at a rate the joints do not
    allow (a slide at its dead centre still pushing), where none is."""
    v, f = np.nonzero(where)
    J = global_jacobian(model, jac[v, f])[:, keep, :]
    rs, cw = alg.rs[v, 0], alg.cw[v, 0]
    xs = x[v, f].reshape(len(v), -1)
    miss = np.abs(rs * (np.einsum("nij,nj->ni", J, xs) - rhs[v, f])).max(axis=-1)
    size = np.maximum(np.abs(xs * cw).max(axis=-1), np.abs(rs * rhs[v, f]).max(axis=-1))
    out = np.zeros(where.shape, dtype=bool)
    out[v, f] = miss > RATES_MISSED * size
    return out


def passed(sweep: Any, alg: Algebra, jac: np.ndarray, keep: np.ndarray, lined: np.ndarray,
           dead: dict, vel: np.ndarray, rhs: np.ndarray, k: int) -> dict:
    """A one-frame block's frame k whose rates ``vel`` (V, 1, nb, 6) were continued across
    dependent rows at the frames ``lined`` (V, 1) of the variants of ``sweep`` (its
    ``models``, ``alive``, ``results`` and ``times``): {variant: its lock-up} for those
    whose rates miss their equations (``rates_missed``), else {} and the frame's note."""
    t = float(sweep.times[k])
    missed = rates_missed(sweep.model, alg, jac, keep, lined, vel, rhs)
    if missed.any():
        return {int(i): missed_lock_up(sweep.models[sweep.alive[i]], jac[i, 0], keep,
                                       dead.get((int(i), 0)), t, k,
                                       sweep.results[sweep.alive[i]])
                for i in np.flatnonzero(missed[:, 0])}
    note_passed(sweep.results, sweep.alive, lined, dead, t, k)
    return {}


def missed_lock_up(model: Model, jac: np.ndarray, keep: np.ndarray, motions: tuple | None,
                   t: float, k: int, result) -> SolverError:
    """The lock-up of a variant whose frame k (t, s) is on a dead centre of ``motions`` (or,
    None, a singular position of its joints) that its motions reach still moving
    (``rates_missed``): named at that frame, with its joints (Jacobian blocks ``jac`` of
    that frame) and the frames before it (of its ``result``)."""
    who = involved(model, global_jacobian(model, jac), keep)
    where = (f"motion {', '.join(map(repr, motions))} reaches a dead centre (the joints it "
             "drives in line)" if motions else
             "the joints reach a singular position (links lined up)")
    return SolverError(f"lock-up at t = {t:.6g} s (frame {k}): {where} still moving, at a "
                       f"rate the joints cannot give there; joints involved: {', '.join(who)}",
                       t, who, result.truncated(int(k)))


def least_norm_multipliers(model: Model, alg: Algebra, jac: np.ndarray, keep: np.ndarray,
                           where: np.ndarray, lam: np.ndarray, F: np.ndarray) -> np.ndarray:
    """The kept rows' multipliers lam (V, F, kept rows) with its frames ``where`` (V, F)
    replaced by the least-norm solution (in residual units) of J_keep^T lam = F (F (V, F,
    nb, 6): the loads the joints must carry, Q - M a), the singular values below
    lost_share of the largest dropped: where the rows are dependent the factored solve
    returns rounding magnified by the condition (2e10 N for a slide at its dead centre
    pushing 0.13 N on either side)."""
    v, f = np.nonzero(where)
    J = global_jacobian(model, jac[v, f])[:, keep, :]
    rs, cw = alg.rs[v, 0], alg.cw[v, 0]
    Js = J * rs[:, :, None] / cw[:, None, :]
    u, s, vt = np.linalg.svd(Js, full_matrices=False)
    inv = np.where(s > s[:, :1] * lost_share(model, keep), 1.0 / np.where(s > 0.0, s, 1.0), 0.0)
    rhs = F[v, f].reshape(len(v), -1) / cw
    out = lam.copy()
    out[v, f] = rs * np.einsum("nij,nj->ni", u, inv * np.einsum("nij,nj->ni", vt, rhs))
    return out


def note_passed(results: list, alive: np.ndarray, where: np.ndarray, dead: dict, t: float,
                k: int) -> None:
    """Tell each variant's Result (``results[alive[v]]`` for the variants ``where`` (V, 1)
    marks) that frame k (t, s) lies on a singular position of its joints, or on the dead
    centre of the motions ``dead[v, 0]`` names, once: "(frame k)", which the add-on says
    as the scene's frame (addon/io/timeline.py with_scene_frame)."""
    for v in np.flatnonzero(where[:, 0]):
        motions = dead.get((int(v), 0))
        if motions is None:
            what, why = ("a singular position of the joints (links lined up)",
                         "they grow without bound toward it; the least-norm ones are given")
        else:
            what, why = (f"a dead centre of motion {', '.join(map(repr, motions))} (the "
                         "joints it drives in line: it cannot move the parts there)",
                         "the least-norm ones are given")
        note = (f"the sweep passed {what} at t = {t:.6g} s (frame {k}) on the branch it came "
                "along, its velocities and accelerations there continued from the frame "
                "before; the joints' reactions and the motions' efforts there are not "
                f"determined by rigid joints ({why})")
        notes = results[int(alive[v])].notes
        if note not in notes:
            notes.append(note)
