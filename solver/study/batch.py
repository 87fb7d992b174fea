"""Many variants of one mechanism in one forward-dynamics run.

The variants of a study share their topology, so their compiled models differ only in
numbers (masses, inertias, marker points, spring rates, gravity).  ``stack_models``
(stack.py) puts those numbers on a leading variant axis, and the equations (analyses/dynamics/equations.py), whose
kernels, force elements and J M^-1 J^T solves carry leading axes through, then evaluate
every variant's right-hand side in one set of numpy calls: the per-call cost that dominates
a small mechanism is paid once for all of them.

``batch_dynamics`` runs the explicit integrator of analyses/dynamics/driver.py on all variants in
lockstep, each with its own time, step size and step control, its own projection onto its
constraints (a Newton iteration per variant, masked) and its own output frames, so each
variant takes exactly the steps its separate run takes and its Result equals that run's to
the last bit. It covers the common case (the explicit method, Dormand-Prince 8(5,3) or at loose
tolerances 5(4), whose first stage is each variant's last stage of its step before, as in
its separate run; no friction or rigid stops (compliant stops are forces: no events);
couplers and curve joints with each variant's own tracked values, from its own
projections (``Equations.project_many``; a curve's foot-point and common-normal Newton
stop state by state and a lone point's polynomial is evaluated as a stack, so a stack
rounds as one state alone, base/curves.py); motions, applied
loads and actuators each variant's own; the variants whose separate runs take the implicit method
run together in batch_implicit.py); anything else, and a projection that fails, returns None,
and the caller runs the variants one by one, where each gets its own full treatment and its
own error message. Long steps past the frames (an open tree, or a closed loop at rest) are
taken as the separate run takes them: the stability bound from each variant's own rate
estimates (power iteration on the stacked equations, ``spectral_radii``), the frames inside
from the stepper's dense output of that variant's row, stored by the separate run's own
``frames_inside``; a variant at rest holds its pose. A variant at a singular position or
whose step collapses leaves the lockstep run there (``_Group.keep``) and runs alone; the
others go on.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..analyses.dynamics.driver import (LONG_STEP, RATE_EVERY, REST, SINGULAR_STEP, at_rest,
                                 at_rest_many, frames_inside, free_singular,
                                 initial_step, long_proposal, travel)
from ..analyses.dynamics.equations import Equations
from ..analyses.structure import Structure, open_tree
from ..base.errors import SolverCancelled
from ..integrators.control import StandardControl
from ..integrators.explicit import DoPri5, explicit_method
from ..integrators.implicit import spectral_radii
from ..model.compile import Model
from ..model.results import FRAME, Result
from ..model.state import State
from .stack import stack_models, stacked_tracks

FRAME_BYTES = 64 * 2 ** 20    # output frames kept at once before they go into the Results


class _Row:
    """Row i of a stacked stepper's dense output, as frames_inside reads a stepper."""

    def __init__(self, stepper: DoPri5, i: int) -> None:
        self.stepper, self.i = stepper, i

    def dense(self, theta):
        return self.stepper.dense(theta, row=self.i)


class _Fallback(Exception):
    """The batch meets something its separate runs handle specially."""


class _Group:
    """The variants still in the lockstep run: their models stacked, the equations (with the
    torsion springs' turns, run state), the per-variant scales of the masked projection
    (Equations.project_many: each variant's Newton stops by the one rule), the stepper and
    the frame buffers, and each variant's own equations for the frames inside its long
    steps.  ``keep(mask)`` goes on with some of them: a variant at a singular position, or
    whose step collapsed, leaves and runs alone."""

    def __init__(self, models: list[Model], st: Structure, outs: list[Result], F: int,
                 method: type[DoPri5], starts: list[State]) -> None:
        self.st, self.method = st, method
        self.index = np.arange(len(models))          # into the run's variants
        self._alone: dict[int, Equations] = {}       # a variant's own, for its long steps
        # each variant's tracked values from its start's, as its separate run (dynamics.py)
        self._build(models, None, stacked_tracks(starts))
        self.frames = _Frames(self.eq, outs, F)

    def _build(self, models: list[Model], ts_ref, track) -> None:
        stacked = stack_models(models, switched=True)     # (batch_dynamics: compliant stops)
        if stacked is None:
            raise _Fallback("the variants left do not stack")
        self.models, self.stacked = models, stacked
        self.eq = eq = Equations(stacked, self.st)
        eq.ts_ref = (np.zeros((len(models), len(stacked.forces.ts_names))) if ts_ref is None
                     else ts_ref)
        eq.track = track          # each variant's tracked values (V, ntrack): project_many's
        self.rs = np.stack([1.0 / m.row_length for m in models])               # (V, nc)
        col = np.ones((len(models), eq.nb, 6))
        col[..., 3:] = np.stack([m.body_length for m in models])[..., None]
        self.cw = col.reshape(len(models), -1)
        self.L = np.array([m.length_scale for m in models])
        self.body_length = np.stack([m.body_length for m in models])            # (V, nb)
        V, nb = len(models), eq.nb
        # the separate run's integrator settings (analyses/dynamics/driver.py)
        self.scale = eq.pack(self.L[:, None, None] * np.ones((V, nb, 3)), np.ones((V, nb, 4)),
                             self.L[:, None, None] * np.ones((V, nb, 3)), np.ones((V, nb, 3)),
                             np.full(V, np.inf))
        self.stepper = self.method(eq.rhs)              # steps every variant with its own h

    def keep(self, mask: np.ndarray) -> None:
        """Go on with the variants ``mask`` (V,); an empty group raises _Fallback."""
        if not mask.any():
            raise _Fallback("no variant left")
        self.index = self.index[mask]
        track = self.eq.track
        self._build([m for m, k in zip(self.models, mask) if k], self.eq.ts_ref[mask],
                    None if track is None else track[mask])
        self.frames.keep(mask, self.eq)

    def inside(self, i: int, t0: float, t1: float, k: int, times: np.ndarray,
               tolerance: float) -> int:
        """Variant i's frames k, k+1, ... within its last step (t0, t1) stored as its
        separate run stores them (dynamics.frames_inside, on its own model, from the
        stepper's dense output of that row) and, nothing depending on time, its pose held
        from the first that rests; returns its next frame (F when held)."""
        model = self.models[i]
        sysm = self.own(i)
        self.frames.flush(i, k)
        out = self.frames.outs[i]
        stepper = _Row(self.stepper, i)
        F = len(times)
        while k < F and times[k] < t1 - 1e-14 * max(1.0, abs(t1)):
            k, last = frames_inside(sysm, stepper, out, times, k, (t0, t1),
                                     (None, sysm.ts_ref), None)
            if self.autonomous and k < F and at_rest(model, *last, tolerance):
                out.hold(k - 1)
                k = F
        self.frames.base[i] = k
        return k

    def project(self, t, r, p, v, w, todo: np.ndarray):
        """Positions onto Phi = 0, then velocities onto J v = nu, for the variants
        ``todo`` (V,) (the others are returned as they are): Equations.project_many, each
        variant's Newton giving the bits of its separate run's projection."""
        return self.eq.project_many(t, r, p, v, w, todo, self.rs, self.cw, self.L)

    def own(self, i: int) -> Equations:
        """Variant i's own equations (its model's), with its run state (torsion springs'
        turns, tracked values) from the group's."""
        model = self.models[i]
        sysm = self._alone.get(id(model))
        if sysm is None:
            sysm = self._alone[id(model)] = Equations(model, self.st)
        sysm.ts_ref = self.eq.ts_ref[i].copy()
        sysm.track = None if self.eq.track is None else self.eq.track[i].copy()
        return sysm

    @property
    def autonomous(self) -> bool:
        """Nothing depends on time (no motion, applied load or actuator): a variant at rest
        stays at rest, and its separate run holds its pose (dynamics.py)."""
        fs = self.stacked.forces
        return (not self.stacked.motion_functions and not fs.ld_names
                and all(a is None for a in list(fs.sd_act) + list(fs.ts_act)))

    def begin(self, t, r, p, v, w, work, k: np.ndarray, h: np.ndarray, times: np.ndarray,
              tolerance: float, rtol: float, progress):
        """One right-hand side at the variants' states, (y, f0, k, live, h): it serves the
        frames they reached (``_reach``) and the steps that start here; the variants still
        running (``live``: a frame ahead) and each one's step, its first (NaN: none yet) as
        its separate run takes it (dynamics.initial_step)."""
        y = self.eq.pack(r, p, v, w, work)
        f0, parts = self.eq.rhs_parts(t, y)
        k = self._reach(k, t, r, p, v, w, work, parts, times, tolerance, progress)
        live = k < len(times)
        new = np.isnan(h)
        if new.any():
            h = np.where(new, [initial_step(f0[i], y[i], self.scale[i], rtol, times)
                               if new[i] else 0.0 for i in range(len(h))], h)
        return y, f0, k, live, h

    def _reach(self, k: np.ndarray, t, r, p, v, w, work, parts, times: np.ndarray,
               tolerance: float, progress) -> np.ndarray:
        """The variants at their next frame's time store it (projected state, ``parts``:
        Equations.rhs_parts' at this state); one at rest, nothing depending on time, holds
        its pose for its later frames (dynamics._hold); progress as the slowest variant
        passes a frame (False: SolverCancelled).  Returns each variant's next frame."""
        F = len(times)
        t_out = times[np.minimum(k, F - 1)]
        at = (k < F) & (t >= t_out - 1e-14 * np.maximum(1.0, np.abs(t_out)))
        if not at.any():
            return k
        self.frames.take(at, k, t, r, p, v, w, work, parts)
        held = np.zeros(len(t), dtype=bool)
        if self.autonomous:
            held = at & (k + 1 < F) & at_rest_many(self.L, self.body_length, v, w, parts[0],
                                                   tolerance)
        slowest = int(k.min())
        k = k + at
        for i in np.flatnonzero(held):
            self.frames.flush(i, int(k[i]))
            self.frames.outs[i].hold(int(k[i]) - 1)
            k[i] = F
        if progress is not None and k.min() > slowest \
                and progress(len(k) * int(k.min()) // F) is False:
            raise SolverCancelled("design study cancelled", float(t.min()))
        return k

    def advance(self, ok: np.ndarray, hs, t, r, p, v, w, work, new: tuple, still, tree: bool,
                k: np.ndarray, times: np.ndarray, tolerance: float, progress) -> tuple:
        """The accepted steps ``ok`` (of sizes hs): each such variant at its projected step
        end ``new`` (r, p, v, w, work), whether its step moved no part (a closed loop, REST:
        it rests), its step count, the frames within a long step from its dense output
        (``inside``), progress (False: SolverCancelled) and the torsion springs' turns, as
        dynamics.py after a step.  Returns (t, r, p, v, w, work, still, k)."""
        F = len(times)
        r1, p1, v1, w1, work1 = new
        sel = ok[:, None, None]
        if not tree:     # as analyses/dynamics/driver.py: no part moved by REST of the size
            still = np.where(ok, travel(self.body_length, r, p, r1, p1) <= REST * self.L, still)
        t0 = t
        r, p = np.where(sel, r1, r), np.where(sel, p1, p)
        v, w = np.where(sel, v1, v), np.where(sel, w1, w)
        t, work = np.where(ok, t + hs, t), np.where(ok, work1, work)
        for i in np.flatnonzero(ok):
            self.frames.outs[i].steps += 1
        t_out = times[np.minimum(k, F - 1)]
        past = ok & (k < F) & (t > t_out + 1e-14 * np.maximum(1.0, np.abs(t_out)))
        for i in np.flatnonzero(past):
            k[i] = self.inside(i, t0[i], t[i], int(k[i]), times, tolerance)
        if past.any() and progress is not None \
                and progress(len(k) * int(k.min()) // F) is False:     # (Esc: as at frames)
            raise SolverCancelled("design study cancelled", float(t.min()))
        eq = self.eq
        if eq.ts_ref.shape[1]:
            eq.ts_ref = np.where(ok[:, None], eq.turns(r, p), eq.ts_ref)
        return t, r, p, v, w, work, still, k


def stacked_starts(starts: list[State], t0: float):
    """(t, r, p, v, w) of the variants' start states with a leading variant axis."""
    return (np.full(len(starts), t0),) + tuple(
        np.stack([getattr(s, f) for s in starts]) for f in ("r", "p", "v", "w"))


def batch_dynamics(models: list[Model], st: Structure, starts: list[State],
                   times: np.ndarray, tolerance: float, method: str = "auto",
                   progress: Callable[[int], Any] | None = None) -> list[Result | None] | None:
    """Forward dynamics of every variant (models of one topology, structure ``st``, each
    from its assembled start) in lockstep; their Results (None for a variant that left the
    run: it then runs alone), or None when the batch cannot take them (see the module
    docstring): then run them separately.  ``progress(variants' worth done)``, as the
    slowest variant passes each output frame; returning False stops the run
    (SolverCancelled).  Each variant's separate run must take the explicit method (the
    caller chose: study/engine.py ``_dynamics``)."""
    rtol = tolerance * 1e-1
    if method == "implicit":       # (stiff variants: batch_implicit.py)
        return None
    m0 = models[0]
    if m0.frictions is not None or (m0.limits is not None and not m0.limits.compliant.all()):
        return None                # events (impacts, sticking): each variant's own run
    stepper = explicit_method(rtol)              # as each separate run chooses it
    outs = [Result.empty(m, times, "dynamic") for m in models]
    for o in outs:
        o.method = stepper.name
    try:
        g = _Group(models, st, outs, len(times), stepper, starts)
    except _Fallback:                               # not only numbers differ
        return None
    V, F = len(models), len(times)
    t, r, p, v, w = stacked_starts(starts, float(times[0]))
    try:
        r, p, v, w = g.project(t, r, p, v, w, np.ones(V, dtype=bool))
        control = StandardControl(stepper.order)

        def norm(e, y0, y1):
            scale = g.scale
            sc = rtol * (scale[:, :-1] + np.maximum(np.abs(y0[:, :-1]), np.abs(y1[:, :-1])))
            x = np.sqrt(np.mean((e[:, :-1] / sc) ** 2, axis=-1))
            return np.where(np.isfinite(x), x, 1e10)

        frame = float(np.max(np.diff(times))) if F > 1 else 1.0
        t_end = float(times[-1])
        k = np.zeros(V, dtype=int)                     # each variant's next output frame
        h = np.full(V, np.nan)
        grow = np.zeros(V)                             # the proposal after the last accepted step
        retry = np.full(V, np.nan)                     # a rejected step's next size
        work = np.zeros(V)
        tree = open_tree(models[0])
        # no long steps with tracked values to carry frame by frame or stops to watch
        # (analyses/dynamics/driver.py)
        dense = models[0].ntrack == 0 and models[0].limits is None
        still = np.zeros(V, dtype=bool)      # a closed loop's last step moved no part (REST)
        # long steps past the frames, as analyses/dynamics/driver.py takes them: the step is long,
        # the equations' fastest rate (its estimate's age, the steps to the next estimate)
        long = np.zeros(V, dtype=bool)
        rate, rate_age, rate_wait = np.zeros(V), np.full(V, RATE_EVERY), np.full(V, RATE_EVERY)
        # Dormand-Prince 5(4): each variant's last stage of its last accepted step, its
        # next step's first (first same as last; NaN: none yet, the evaluation here serves)
        fsal = np.full((V, 13 * g.eq.nb + 1), np.nan)        # (the state's size)
        while True:
            eq = g.eq
            y, f0, k, live, h = g.begin(t, r, p, v, w, work, k, h, times, tolerance, rtol,
                                        progress)
            if not live.any():
                break
            t_out = times[np.minimum(k, F - 1)]
            leave = np.zeros(len(t), dtype=bool)
            # a new step (not a retry) is cut to the next frame, or runs past it when the
            # steps outgrow the frames, within the explicit method's stability
            fresh = live & np.isnan(retry)
            cand = (fresh & dense & (tree | still) & (grow >= LONG_STEP * frame)
                    & (grow > t_out - t))
            due = cand & (rate_age >= rate_wait)
            if due.any():
                eps = 1e-7 * np.maximum(1.0, np.max(np.abs(y[:, :-1]), axis=-1))[:, None]
                est = spectral_radii(lambda X: (eq.rhs(t, y + eps * X) - f0) / eps, len(t),
                                     y.shape[-1], 30)
                rate, rate_age = np.where(due, est, rate), np.where(due, 0, rate_age)
                short = stepper.stable / np.maximum(rate, 1e-300) < LONG_STEP * frame
                rate_wait = np.where(due, np.where(short, np.minimum(2 * rate_wait,
                                                                      64 * RATE_EVERY),
                                                   RATE_EVERY), rate_wait)
            bound = stepper.stable / np.maximum(rate, 1e-300)
            long = np.where(fresh, cand & (np.minimum(grow, bound) >= LONG_STEP * frame), long)
            hs = np.where(long, np.minimum(np.minimum(grow, t_end - t), bound),
                          np.minimum(h, t_out - t))
            hs = np.where(np.isnan(retry), hs, retry)
            hs = np.where(live, hs, h)                 # finished variants: any valid step
            rate_age = rate_age + fresh
            first = np.where(np.isnan(fsal[:, :1]), f0, fsal)     # as its separate run
            ynew, err = g.stepper.step(t, y, first, hs, norm)
            ok = live & (err <= 1.0)
            bad = live & ~ok
            if bad.any():   # (each as its separate run: numpy's array power rounds otherwise)
                for i in np.flatnonzero(bad):
                    retry[i] = control.rejected(float(hs[i]), float(err[i]), stepper)
                for i in np.flatnonzero(bad & (retry < SINGULAR_STEP * frame)):
                    # a singular position, or a step that collapsed: the separate run's
                    leave[i] = bool(retry[i] < 1e-12 * max(1.0, abs(t[i])) or free_singular(
                        g.models[i], st, r[i], p[i]))
                if leave.any():        # (the others take this step again, as they were)
                    g.keep(~leave)
                    (t, r, p, v, w, k, h, grow, retry, work, still, long, rate, rate_age,
                     rate_wait, fsal) = (x[~leave] for x in (t, r, p, v, w, k, h, grow, retry,
                                                             work, still, long, rate,
                                                             rate_age, rate_wait, fsal))
                    continue
            if not ok.any():
                continue
            h_next = h.copy()
            for i in np.flatnonzero(ok):     # (one at a time, as above)
                h_next[i] = control.accepted(float(hs[i]), float(err[i]), stepper)
                grow[i] = long_proposal(float(hs[i]), float(err[i]), control.expo)
            h = np.where(ok & (long | (hs == h) | (h_next < h)), h_next, h)
            if g.stepper.k_end is not None:
                fsal = np.where(ok[:, None], g.stepper.k_end, fsal)
            r1, p1, v1, w1, work1 = eq.unpack(ynew)
            r1, p1, v1, w1 = g.project(t + hs, r1, p1, v1, w1, ok)
            retry = np.where(ok, np.nan, retry)
            t, r, p, v, w, work, still, k = g.advance(ok, hs, t, r, p, v, w, work,
                                                      (r1, p1, v1, w1, work1), still, tree, k,
                                                      times, tolerance, progress)
    except (_Fallback, np.linalg.LinAlgError, FloatingPointError, ArithmeticError):
        return None
    left = set(g.index.tolist())
    return [o if i in left else None for i, o in enumerate(outs)]


class _Frames:
    """Each variant's output frames as they are reached (the lockstep run reaches a frame at
    a different iteration for each variant), gathered in a buffer of C frames per variant
    and stored into its Result a buffer at a time (C: all frames, or as many as FRAME_BYTES
    holds for all variants: a long run's Jacobians are not all kept)."""

    def __init__(self, eq: Equations, outs: list[Result], F: int) -> None:
        m, nb, V = eq.m, eq.nb, len(outs)
        self.eq, self.outs, self.F = eq, outs, F
        per = 8 * (nb * FRAME + m.nc * (1 + m.row_width) + 4)
        self.C = C = int(max(1, min(F, FRAME_BYTES // (V * per))))
        self.base = np.zeros(V, dtype=int)                # each buffer's first frame
        self.t = np.zeros((V, C))
        self.state = np.zeros((V, C, nb, FRAME))           # r, p, v, w, a, alpha
        self.lam = np.zeros((V, C, m.nc))
        self.jac = np.zeros((V, C, m.nc, m.row_width))
        self.energy = np.zeros((V, C, 3))                  # potential, power, work
        self.track = np.zeros((V, C, m.ntrack))            # tracked values (couplers, curves)

    def keep(self, mask: np.ndarray, eq: Equations) -> None:
        """Go on with the variants ``mask`` (V,) and their equations ``eq`` (the others'
        frames are dropped: they run alone)."""
        self.eq = eq
        self.outs = [o for o, k in zip(self.outs, mask) if k]
        for name in ("base", "t", "state", "lam", "jac", "energy", "track"):
            setattr(self, name, getattr(self, name)[mask])

    def take(self, at: np.ndarray, k: np.ndarray, t, r, p, v, w, work, parts) -> None:
        """Frame k[i] of each variant i in ``at``: its projected state, accelerations,
        multipliers and energies (``parts``: Equations.rhs_parts' at this state), as
        analyses/dynamics/driver.py stores them."""
        eq = self.eq
        a, lam, fe, jac, f = parts
        if eq.ts_ref.shape[1]:
            eq.ts_ref = np.where(at[:, None], fe.ts_angle, eq.ts_ref)
        power = np.broadcast_to(fe.power_nc, t.shape)
        mr = eq.mrows
        if mr.size:
            power = power + np.einsum("vk,vk->v", -lam[:, mr], f[:, eq.m.row_motion[mr], 1])
        i = np.flatnonzero(at)
        kk = k[i] - self.base[i]
        self.t[i, kk] = t[i]
        self.state[i, kk] = np.concatenate([r, p, v, w, a], -1)[i]
        self.lam[i, kk], self.jac[i, kk] = lam[i], jac[i]
        self.energy[i, kk] = np.stack([np.broadcast_to(fe.potential, t.shape), power, work], -1)[i]
        if eq.m.ntrack:                # the projection's, at this state (as dynamics.py stores)
            self.track[i, kk] = eq.track[i]
        for j in i[(kk == self.C - 1) | (k[i] == self.F - 1)]:     # a full buffer, the end
            self.flush(int(j), int(k[j]) + 1)

    def flush(self, i: int, upto: int) -> None:
        """Store variant i's buffered frames before frame ``upto`` into its Result; its
        buffer then starts at frame ``upto`` (frames a long step stored directly, a held
        pose)."""
        n = upto - int(self.base[i])
        if n > 0:
            self._store(i, n)
        self.base[i] = upto

    def _store(self, i: int, n: int) -> None:
        self.outs[i].store_packed(int(self.base[i]), self.t[i, :n], self.state[i, :n],
                                  self.lam[i, :n], self.jac[i, :n], self.energy[i, :n],
                                  self.track[i, :n] if self.eq.m.ntrack else None)
