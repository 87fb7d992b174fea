"""A design study's variants in one lockstep forward-dynamics run (study/batch.py): the group
of variants still in it (``_Group``: their models stacked, the equations, the per-variant
error scales and projection scales, the stepper over the variant axis, each variant's own
equations for its long steps) and their output frames (``_Frames``), which each variant
reaches at its own iteration."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..analyses.dynamics.frames import REST, at_rest, at_rest_many, frames_inside, travel
from ..analyses.dynamics.equations import Equations
from ..analyses.structure import Structure
from ..base.errors import SolverCancelled
from ..integrators.control import error_scale, initial_step
from ..model.compile import Model
from ..model.frame_buffer import FRAME
from ..model.results import Result
from ..model.state import RunState, State
from .stack import stack_models, stacked_tracks


class _Row:
    """Row i of a stacked stepper's dense output, as frames_inside reads a stepper."""

    def __init__(self, stepper: Any, i: int) -> None:
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
    steps.  ``make(group)``: the stepper over the variant axis (the explicit one of the
    equations' right-hand side, made anew when the group changes; Radau IIA, which keeps
    each variant's state and goes on with the variants kept).  ``frame_bytes``: the frame
    buffers' size (``_Frames``).  ``stack``: how the variants' models are stacked
    (stack.py ``stack_models``, or a study's Writer.stack, study/writes.py).
    ``keep(mask)`` goes on with some of them: a variant at a singular position, or whose
    step collapsed, leaves and runs alone."""

    def __init__(self, models: list[Model], st: Structure, outs: list[Result], F: int,
                 make: Callable[["_Group"], Any], starts: list[State], frame_bytes: int,
                 stack: Callable[..., Model | None] = stack_models) -> None:
        self.st, self.make, self.stack = st, make, stack
        self.index = np.arange(len(models))          # into the run's variants
        self._alone: dict[int, Equations] = {}       # a variant's own, for its long steps
        # each variant's tracked values from its start's, as its separate run (dynamics.py)
        self._build(models, None, stacked_tracks(starts))
        self.stepper = make(self)
        self.frames = _Frames(self.eq, outs, F, frame_bytes)

    def _build(self, models: list[Model], ts_ref, track) -> None:
        stacked = self.stack(models, switched=True)     # (batch_dynamics: compliant stops)
        if stacked is None:
            raise _Fallback("the variants left do not stack")
        self.models, self.stacked = models, stacked
        self.eq = eq = Equations(stacked, self.st)
        # each variant's torsion springs' turns (V, nts) and tracked values (V, ntrack)
        eq.tell(RunState(np.zeros((len(models), len(stacked.forces.ts_names)))
                         if ts_ref is None else ts_ref, track))
        self.rs = np.stack([1.0 / m.row_length for m in models])               # (V, nc)
        col = np.ones((len(models), eq.nb, 6))
        col[..., 3:] = np.stack([m.body_length for m in models])[..., None]
        self.cw = col.reshape(len(models), -1)
        self.L = np.array([m.length_scale for m in models])
        self.body_length = np.stack([m.body_length for m in models])            # (V, nb)
        self.scale = error_scale(eq.pack, self.L, eq.nb)     # as each separate run's

    def keep(self, mask: np.ndarray) -> None:
        """Go on with the variants ``mask`` (V,); an empty group raises _Fallback."""
        if not mask.any():
            raise _Fallback("no variant left")
        self.index = self.index[mask]
        track = self.eq.run.track
        self._build([m for m, k in zip(self.models, mask) if k], self.eq.run.ts_ref[mask],
                    None if track is None else track[mask])
        keep = getattr(self.stepper, "keep", None)
        if keep is not None:
            keep(mask)
        else:
            self.stepper = self.make(self)
        self.frames.keep(mask, self.eq)

    def inside(self, i: int, t0: float, t1: float, k: int, times: np.ndarray,
               rest: float) -> int:
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
                                     sysm.run.tracked(None), None)
            if self.autonomous and k < F and at_rest(model, *last, rest):
                out.hold(k - 1)
                k = F
        self.frames.base[i] = k
        return k

    def project(self, t, r, p, v, w, todo: np.ndarray):
        """Positions onto Phi = 0, then velocities onto J v = nu, for the variants
        ``todo`` (V,) (the others are returned as they are): Equations.project_many, each
        variant's Newton giving the bits of its separate run's projection; the equations
        are then told the projected variants' tracked values."""
        eq = self.eq
        r, p, v, w, track = eq.project_many(t, r, p, v, w, todo, self.rs, self.cw, self.L)
        eq.tell(eq.run.tracked(track))
        return r, p, v, w

    def own(self, i: int) -> Equations:
        """Variant i's own equations (its model's), with its run state (torsion springs'
        turns, tracked values) from the group's."""
        model = self.models[i]
        sysm = self._alone.get(id(model))
        if sysm is None:
            sysm = self._alone[id(model)] = Equations(model, self.st)
        run = self.eq.run
        sysm.tell(RunState(run.ts_ref[i].copy(),
                           None if run.track is None else run.track[i].copy()))
        return sysm

    @property
    def autonomous(self) -> bool:
        """Nothing depends on time (no motion, applied load or actuator): a variant at rest
        stays at rest, and its separate run holds its pose (dynamics.py)."""
        fs = self.stacked.forces
        return (not self.stacked.motion_functions and not fs.ld_names
                and all(a is None for a in list(fs.sd_act) + list(fs.ts_act)))

    def begin(self, t, r, p, v, w, work, k: np.ndarray, h: np.ndarray, times: np.ndarray,
              rest: float, rtol: float, progress):
        """One right-hand side at the variants' states, (y, f0, k, live, h): it serves the
        frames they reached (``_reach``) and the steps that start here; the variants still
        running (``live``: a frame ahead) and each one's step, its first (NaN: none yet) as
        its separate run takes it (dynamics.initial_step)."""
        y = self.eq.pack(r, p, v, w, work)
        f0, parts = self.eq.rhs_parts(t, y)
        k = self._reach(k, t, r, p, v, w, work, parts, times, rest, progress)
        live = k < len(times)
        new = np.isnan(h)
        if new.any():
            h = np.where(new, [initial_step(f0[i], y[i], self.scale[i], rtol, times)
                               if new[i] else 0.0 for i in range(len(h))], h)
        return y, f0, k, live, h

    def _reach(self, k: np.ndarray, t, r, p, v, w, work, parts, times: np.ndarray,
               rest: float, progress) -> np.ndarray:
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
                                                   rest)
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
                k: np.ndarray, times: np.ndarray, rest: float, progress) -> tuple:
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
            k[i] = self.inside(i, t0[i], t[i], int(k[i]), times, rest)
        if past.any() and progress is not None \
                and progress(len(k) * int(k.min()) // F) is False:     # (Esc: as at frames)
            raise SolverCancelled("design study cancelled", float(t.min()))
        eq = self.eq
        if eq.run.ts_ref.shape[1]:
            eq.tell(eq.run.turned(np.where(ok[:, None], eq.turns(r, p), eq.run.ts_ref)))
        return t, r, p, v, w, work, still, k


def stacked_starts(starts: list[State], t0: float):
    """(t, r, p, v, w) of the variants' start states with a leading variant axis."""
    return (np.full(len(starts), t0),) + tuple(
        np.stack([getattr(s, f) for s in starts]) for f in ("r", "p", "v", "w"))


class _Frames:
    """Each variant's output frames as they are reached (the lockstep run reaches a frame at
    a different iteration for each variant), gathered in a buffer of C frames per variant
    and stored into its Result a buffer at a time (C: all frames, or as many as frame_bytes
    holds for all variants: a long run's Jacobians are not all kept)."""

    def __init__(self, eq: Equations, outs: list[Result], F: int, frame_bytes: int) -> None:
        m, nb, V = eq.m, eq.nb, len(outs)
        self.eq, self.outs, self.F = eq, outs, F
        per = 8 * (nb * FRAME + m.nc * (1 + m.row_width) + 4)
        self.C = C = int(max(1, min(F, frame_bytes // (V * per))))
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
        if eq.run.ts_ref.shape[1]:
            eq.tell(eq.run.turned(np.where(at[:, None], fe.ts_angle, eq.run.ts_ref)))
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
            self.track[i, kk] = eq.run.track[i]
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
