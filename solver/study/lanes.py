"""A design study's variants on the common path stepping as lanes: the single run's stages
(analyses/dynamics/driver.py DynamicRun) taken for all of them at once, their carry held
in arrays over the variant axis (time, state, first stage, step sizes, frames done).

A variant of a lockstep run (study/lockstep.py) whose run has nothing of its own to do (the
explicit method; no stops, friction, contacts, torsion springs' turns or tracked values;
the study's rows, exact solves; no closed loop whose inputs were given rounded, whose
accelerations the run watches for a fold) starts as a lane.  A lane's frames, first stages, trial
steps and projections are made in the lockstep run's calls over the variant axis, and its
steps accepted, rejected and sized by the single run's rules (integrators/control.py) over
that axis, each element with its separate run's bits; its frames are stored a block at a
time (model/frame_buffer.py FrameBlock).  Where its run would do something of its own (a
step past the frames, a rejected step small enough to ask for a singular position, a call
that fails), the lane hands its carry back to its DynamicRun where the step started (or,
after a step, before its frame) and the run goes on by its own stages from there: the
step taken again by them gives the same bits, every call being the same.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..analyses.dynamics.driver import DynamicRun, wants_long
from ..analyses.dynamics.frames import motion_power, on_frame_within, rests, settled
from ..analyses.dynamics.inside import asks_singular, collapsed_size
from ..integrators.control import initial_step, long_proposal, next_size
from ..model.frame_buffer import FrameBlock, FrameBuffer

EVAL, STEP, PROJECT, OFF = 0, 1, 2, 3     # what a lane waits for: "frame"/"rhs", "step", ...
PHASE = {"frame": EVAL, "step": STEP, "project": PROJECT}


def lanes_fit(runs: list[DynamicRun], implicit: bool) -> bool:
    """Can these runs start as lanes: explicit, with nothing of their own to track or to
    watch (a general motion's free b2, a closed loop's accelerations where its inputs were
    given rounded: DynamicRun.folds) and no time where a function turns to end on."""
    return not implicit and all(
        run.explicit and not run.locating and not run.turns and run.model.ntrack == 0
        and not run.gimbals and not len(run.model.breakpoints) and not run.run.robust
        and not run.folds for run in runs)


class Lanes:
    """The lanes of a lockstep run's group (its ``runs``, stacked equations ``eq``,
    ``stepper`` and ``times``): the carry of each variant as rows of arrays, and what each
    lane waits for (``phase``)."""

    def __init__(self, group: Any, budget: int) -> None:
        self.group = g = group
        runs, eq = g.runs, g.eq
        V, run0 = len(runs), runs[0]
        self.runs, self.times, self.F = runs, run0.times, len(run0.times)
        self.control, self.frame_dt, self.rest = run0.control, run0.frame_dt, run0.goals.rest
        self.block = FrameBlock([run.out for run in runs], budget)
        flag = np.array
        self.dense, self.tree = flag([r.dense for r in runs]), flag([r.tree for r in runs])
        self.autonomous = flag([r.autonomous for r in runs])
        self.size = np.stack([r.model.body_size for r in runs])
        self.body_length = np.stack([r.model.body_length for r in runs])
        self.phase = np.full(V, EVAL)
        self.at_frame = np.ones(V, dtype=bool)     # an EVAL lane's evaluation: its frame
        self.T, self.Y = g.t0.copy(), g.y0.copy()  # where each stands (projected)
        self.F0, self.has_f0 = np.zeros_like(self.Y), np.zeros(V, dtype=bool)   # f_end
        self.FN, self.has_fn = np.zeros_like(self.Y), np.zeros(V, dtype=bool)   # its next
        self.Y1 = np.zeros_like(self.Y)            # an accepted step's end, to project
        self.H, self.HS = np.full(V, np.nan), np.zeros(V)   # natural step (nan: none yet), trial
        self.HN, self.GN = np.zeros(V), np.zeros(V)   # an accepted step's next H and grow
        self.grow, self.resting = np.zeros(V), np.zeros(V, dtype=bool)
        self.T_last, self.rate_age = self.T.copy(), np.array([r.rate_age for r in runs])
        self.steps, self.done = np.zeros(V, dtype=int), np.zeros(V, dtype=int)
        self.eq = eq

    def buffer(self, i: int) -> FrameBuffer:
        """Variant i's frame buffer: its row of the lanes' block (a run going on alone
        stores there too)."""
        return FrameBuffer(self.runs[i].out, None, self.block, i)

    def due(self, kind: str) -> np.ndarray:
        """The lanes waiting for a call of ``kind``."""
        return np.flatnonzero(self.phase == PHASE[kind])

    def active(self) -> bool:
        return bool((self.phase != OFF).any())

    # -- after the calls ---------------------------------------------------------------------
    def evaluated(self, rows: np.ndarray, at: np.ndarray, dy: np.ndarray, a, lam, fe, J,
                  f) -> None:
        """The frames and first stages of ``rows`` evaluated (Equations.rhs_parts over the
        variant axis, variant i's results in their row at[i]): frames stored
        (DynamicRun.frame), then on to their next step."""
        first = rows[~self.has_f0[rows]]             # f_end: this evaluation's, if none
        self.F0[first], self.has_f0[first] = dy[at[first]], True
        framed = rows[self.at_frame[rows]]
        if framed.size:
            framed = self._frames(framed, at, a, lam, fe, J, f)
        self._next(np.union1d(rows[~self.at_frame[rows]], framed))

    def _frames(self, rows: np.ndarray, at: np.ndarray, a, lam, fe, J, f) -> np.ndarray:
        """Frames done[rows] stored, each as its run's ``frame`` stores it (its results in
        their row at[i]); those at rest hold their pose and end, as do those past their
        last frame; the rows going on."""
        eq, K, pos = self.eq, len(a), at[rows]
        R, P, Vv, W, work = eq.unpack(self.Y[rows])
        A = a[pos]
        mr = eq.mrows
        power = np.broadcast_to(fe.power_nc, (K,))[pos] + 0.0
        if mr.size:          # the motions' power, as each run's frame takes it (np.dot)
            fm = np.broadcast_to(f, (K,) + f.shape[-2:])
            power = power + np.array([motion_power(lam[i], fm[i], mr, eq.m.row_motion)
                                      for i in pos.tolist()])
        energy = np.stack([np.broadcast_to(fe.potential, (K,))[pos], power, work], axis=-1)
        k = self.done[rows]
        self.block.add_many(rows, k, self.T[rows], np.concatenate((R, P, Vv, W, A), axis=-1),
                            lam[pos], J[pos], energy)
        self.done[rows] = k + 1
        held = (self.autonomous[rows] & (k + 1 < self.F)
                & settled(self.size[rows], self.body_length[rows], Vv, W, A, self.rest))
        for i, kk in zip(rows[held].tolist(), k[held].tolist()):
            self.block.flush(i)
            self.runs[i].hold(kk)
            self.done[i] = self.F
        ended = self.done[rows] >= self.F
        for i in rows[ended].tolist():
            self._finish(i)
        return rows[~ended]

    def stepped(self, rows: np.ndarray, Y1: np.ndarray, E: np.ndarray, k_end) -> None:
        """Trial steps of ``rows`` taken (each from its T, Y, F0 with HS): accepted ones
        sized (control.accepted, next_size, long_proposal) and on to their projection,
        rejected ones cut (control.rejected) and tried again, or handed back to their runs
        where a small step asks for a singular position or a collapse (DynamicRun._attempt)."""
        E = E[rows]
        ok = E <= 1.0
        good, bad = rows[ok], rows[~ok]
        if good.size:
            e, hs, h = E[ok], self.HS[good], self.H[good]
            h_next = self.control.accepted(hs, e)     # (the carry's, once projected)
            self.HN[good] = next_size(h, hs, h_next, False, False)
            self.GN[good] = long_proposal(hs, e, self.control.expo)
            self.has_fn[good] = k_end is not None
            if k_end is not None:
                self.FN[good] = k_end[good]
            self.Y1[good] = Y1[good]
            self.phase[good] = PROJECT
        if bad.size:
            hs = self.control.rejected(self.HS[bad], E[~ok])
            self.HS[bad] = hs
            small = asks_singular(hs, self.frame_dt) | collapsed_size(hs, self.T[bad])
            self.leave(bad[small])

    def projected(self, rows: np.ndarray, r, p, v, w) -> None:
        """Accepted steps' ends of ``rows`` projected (DynamicRun._advance): the lanes
        there, on to their frame or next step."""
        eq = self.eq
        work = eq.unpack(self.Y1[rows])[4]
        loops = rows[~self.tree[rows]]       # (a tree never rests: no need to look)
        if loops.size:
            r0, p0 = eq.unpack(self.Y[loops])[:2]
            self.resting[loops] = rests(self.body_length[loops], self.size[loops], r0, p0,
                                        r[loops], p[loops])
        r, p, v, w = r[rows], p[rows], v[rows], w[rows]
        self.T_last[rows] = self.T[rows]
        self.T[rows] = self.T[rows] + self.HS[rows]
        self.Y[rows] = eq.pack(r, p, v, w, work)
        self.steps[rows] += 1
        self.rate_age[rows] += 1
        self.H[rows], self.grow[rows] = self.HN[rows], self.GN[rows]
        self.F0[rows], self.has_f0[rows] = self.FN[rows], self.has_fn[rows]
        self._next(rows)

    # -- a lane's next call ------------------------------------------------------------------
    def _next(self, rows: np.ndarray) -> None:
        """What ``rows`` do next, as their runs' frame loop and step would: a frame where
        they stand on it, else a step (its first stage first, if none), or back to their
        runs for a step past the frames (or a frame within one)."""
        if not rows.size:
            return
        t, k = self.T[rows], self.done[rows]
        t_out = self.times[k]
        near = on_frame_within(t_out)
        step = t < t_out - near
        self.leave(rows[~step & (t > t_out + near)])      # (a frame inside a long step)
        frame = rows[~step & (t <= t_out + near)]
        self.phase[frame], self.at_frame[frame] = EVAL, True
        rows, t_out, t = rows[step], t_out[step], t[step]
        need = ~self.has_f0[rows]
        self.phase[rows[need]], self.at_frame[rows[need]] = EVAL, False
        rows, t_out, t = rows[~need], t_out[~need], t[~need]
        for i in rows[np.isnan(self.H[rows])].tolist():     # the first step's size
            run = self.runs[i]
            self.H[i] = initial_step(self.F0[i], self.Y[i], run.norm, self.times)
        long = wants_long(self.dense[rows], self.tree[rows], self.resting[rows],
                          self.grow[rows], self.frame_dt, t_out - t)
        self.leave(rows[long])
        rows, t_out, t = rows[~long], t_out[~long], t[~long]
        self.HS[rows] = self.control.trial(self.H[rows], t_out - t)
        self.phase[rows] = STEP

    # -- leaving, ending ---------------------------------------------------------------------
    def leave(self, rows: np.ndarray) -> None:
        """``rows`` go on by their own runs' stages from where they stand (a step's start,
        or a step's end before its frame): each run's carry set from its lane, its frames
        stored, its frame loop started there (the lockstep run serves its requests)."""
        for i in np.asarray(rows, dtype=int).tolist():
            if self.phase[i] == OFF:
                continue
            self._carry(i)
            self.phase[i] = OFF
            self.group.resume_alone(i)

    def _carry(self, i: int) -> None:
        """Run i's carry as its lane has it."""
        self.runs[i].resume(float(self.T[i]), self.Y[i].copy(),
                            None if np.isnan(self.H[i]) else float(self.H[i]),
                            self.F0[i].copy() if self.has_f0[i] else None,
                            float(self.grow[i]), bool(self.resting[i]), float(self.T_last[i]),
                            int(self.rate_age[i]), int(self.done[i]), int(self.steps[i]))
        self.block.flush(i)

    def _finish(self, i: int) -> None:
        """Lane i past its last frame: its run's Result."""
        self._carry(i)
        self.phase[i] = OFF
        self.group.finished(i, self.runs[i].finish())

    def slowest(self) -> tuple[int, float] | None:
        """(frames done, time) of the slowest lane still running, or None."""
        on = np.flatnonzero(self.phase != OFF)
        if not on.size:
            return None
        return int(self.done[on].min()), float(self.T[on].min())
