"""Many variants of one mechanism in one forward-dynamics run.

Each variant runs the single run's own code, a DynamicRun (analyses/dynamics/driver.py):
its step control, its events (a rigid stop struck, resting, let go), its singular positions,
its long steps and its frames.  Its stages ask for their costly calls as Requests; this
lockstep run makes the calls of one kind of every variant on the common path together, on
their models stacked on a leading variant axis (study/stack.py), one set of numpy calls for
all (the per-call cost that dominates a small mechanism paid once): right-hand sides, the
explicit method's fastest rate, trial steps (Dormand-Prince over the variant axis, each
variant with its own h; Radau IIA with the stages of all variants in one call), the
projections of step ends (Equations.project_many) and the frames' evaluations.  Variants
with nothing of their own to do step as lanes (study/lanes.py), their stages over the
variant axis, each DynamicRun taken up only when its variant leaves them.  The stacked
equations give each variant the bits of its own (explicit.py ``_combine``'s padding,
project_many's per-variant Newton), so each variant's Result equals its separate run's.

On the common path a variant solves with the study's rows and nothing else held: a variant
with a stop resting or passing a singular position (least-norm solves) has its calls made
on its own equations, as its separate run makes them, while the others go on together.
Radau IIA keeps each variant's Jacobian and factors between its steps (its memory of its
steps): where a stiff variant steps alone (an event's re-steps, a stop resting, a singular
position) its own stepper takes that memory from its row of the group's, and gives it
back when the variant steps with the group again, so each step is its separate run's.  A
variant whose run fails leaves the run (None in its place: the caller runs it alone, and
its separate run says why).  Contacts are stacked, each variant's
touchdown speeds its run state's, and joint friction, each variant's slip directions its
own: a variant with a joint stuck has its calls made alone (as with a stop resting); the
slipping elements' loads settle state by state (friction.py), each as it would alone; a
stiff variant's stages take its slip directions, repeated over the stages of the call.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable

import numpy as np

from ..analyses.dynamics.driver import DynamicRun
from ..analyses.dynamics.frames import motion_rate
from ..analyses.dynamics.requests import Request
from ..analyses.dynamics.equations import Equations
from ..analyses.structure import Structure
from ..base.errors import SolverCancelled, SolverError
from ..integrators.control import ErrorNorm, Goals, error_scale, side_of
from ..integrators.explicit import DoPri5
from ..integrators.implicit import NEWTON_MAX, RadauIIA
from ..model.compile import Model
from ..model.frame_buffer import FrameBuffer
from ..model.results import Result
from ..model.state import RunState, State
from .lanes import Lanes, lanes_fit
from .due import due_equations, project_rows, stacked_state, step_rows
from .stack import stack_models

# served in this order each round; "rhs" and "frame" together (one evaluation serves both)
KINDS = (("rhs", "frame"), ("rate",), ("step",), ("project",))
FRAME_BYTES = 64 * 2 ** 20    # output frames buffered at once by all the variants together


def batch_dynamics(models: list[Model], st: Structure, starts: list[State],
                   times: np.ndarray, tolerance: float, method: str = "auto",
                   progress: Callable[[int], Any] | None = None,
                   stack: Callable[..., Model | None] = stack_models
                   ) -> list[Result | None] | None:
    """Forward dynamics of every variant (models of one topology, structure ``st``, each
    from its assembled start) in lockstep by the explicit method; their Results (None for a
    variant that left the run: it then runs alone), or None when the variants cannot run
    together (see the module docstring): then run them separately.  ``progress(variants'
    worth done)``, as the slowest variant passes each output frame; returning False stops
    the run (SolverCancelled).  Each variant's separate run must take the explicit method
    (the caller chose: study/engine.py ``_dynamics``; "implicit" gives None).  ``stack``:
    how the variants' models are stacked (stack_models, or a study's Writer.stack)."""
    if method == "implicit":       # (stiff variants: batch_implicit)
        return None
    return _lockstep(models, st, starts, times, tolerance, "explicit", progress, stack)


def batch_implicit(models: list[Model], st: Structure, starts: list[State], times: np.ndarray,
                   tolerance: float, progress: Callable[[int], Any] | None = None,
                   stack: Callable[..., Model | None] = stack_models
                   ) -> list[Result | None] | None:
    """batch_dynamics for stiff variants, each as its separate run takes its implicit path
    (Radau IIA, Gustafsson's step control, f(t, y) anew at every step, long steps from the
    collocation polynomial)."""
    return _lockstep(models, st, starts, times, tolerance, "implicit", progress, stack)


def _lockstep(models: list[Model], st: Structure, starts: list[State], times: np.ndarray,
              tolerance: float, method: str, progress,
              stack: Callable[..., Model | None]) -> list[Result | None] | None:
    """Each variant's DynamicRun and the group that serves their requests, then the run;
    None where they cannot run together."""
    V = len(models)
    if V < 2 or len(starts) != V or st is None:
        return None
    stacked = stack(models, switched=True)
    if stacked is None:
        return None
    try:
        runs = [DynamicRun(m, st, s, times, tolerance, method, None, buffered=False)
                for m, s in zip(models, starts)]
    except SolverError:
        return None              # a start that does not project: each alone says so
    return _Group(models, st, stacked, runs, method, tolerance, stack).run(times, progress)


class _Group:
    """The variants' runs and what serves their requests together: the stacked equations
    (told each variant's run state, RunState's torsion springs' turns and tracked values,
    before each call), the stepper over the variant axis, each variant's error and
    projection scales, and a state each variant's model evaluates at (its start: the rows
    of variants whose request is not among a call's take it)."""

    def __init__(self, models: list[Model], st: Structure, stacked: Model,
                 runs: list[DynamicRun], method: str, tolerance: float,
                 stack: Callable[..., Model | None] = stack_models) -> None:
        V = len(runs)
        self.models, self.st, self.runs, self.stack = models, st, runs, stack
        goals = Goals(tolerance)
        self.eq = eq = Equations(stacked, st, singular=goals.singular)
        self.rs = np.stack([1.0 / m.row_length for m in models])               # (V, nc)
        col = np.ones((V, eq.nb, 6))
        col[..., 3:] = np.stack([m.body_length for m in models])[..., None]
        self.cw = col.reshape(V, -1)
        self.size = np.stack([m.body_size for m in models])                     # (V, nb)
        self.norm = ErrorNorm(error_scale(eq.pack, self.size, eq.nb, models[0].body_island,
                                          np.stack([m.body_anchor for m in models])),
                              goals.local(method))
        self.implicit = method == "implicit"
        self.stepper = (RadauIIA(_Stages(self), V) if self.implicit
                        else type(runs[0].stepper)(eq.rhs))
        self.t0 = np.array([run.t for run in runs])
        self.y0 = np.stack([run.sysm.pack(run.r, run.p, run.v, run.w, 0.0) for run in runs])
        self.stepped = np.zeros(V, dtype=bool)   # the group took each variant's last step
        self.own_memory = np.zeros(V, dtype=bool)   # Radau IIA: its own stepper holds the
        #     variant's memory of its steps (after a step of its own), else the group's row
        self.told_start = False       # the stepper's dense output: told the steps' start
        self._told: tuple | None = None   # (the run states, the RunState) eq was told last
        self.served = {"together": 0, "alone": 0}   # requests made together, and alone
        # 5(4) steps where frames cut (dynamics/pairs.py)
        self.low = (DoPri5(eq.rhs) if any(run.pairs is not None for run in runs) else None)
        # the frames buffered at once: FRAME_BYTES for all; the variants as lanes if they can
        self.lanes = (Lanes(self, FRAME_BYTES // V) if lanes_fit(runs, self.implicit)
                      else None)
        for i, run in enumerate(runs):    # each run's steps and frames served by the group
            run.served_by(lambda own, low, i=i: _Lane(self, i, own, low),
                          FrameBuffer(run.out, FRAME_BYTES // V) if self.lanes is None
                          else self.lanes.buffer(i))
        self.due: tuple | None = None     # the last step's due rows alone: (equations, at)
        self.gens: list = [None] * V         # each run's frame loop, while it goes alone
        self.asks: dict[int, Request] = {}
        self.out: list[Result | None] = [None] * V

    # -- the lockstep run ------------------------------------------------------------------
    def run(self, times: np.ndarray, progress) -> list[Result | None]:
        """Every variant's run to its end, the requests of one kind served together each
        round (with the lanes waiting for that kind); their Results (None: a variant that
        runs alone)."""
        V, F = len(self.runs), len(times)
        asks, lanes = self.asks, self.lanes
        if lanes is None:                 # (lanes: each run taken up only when it leaves)
            for i in range(V):
                self.resume_alone(i)
        shown = 0
        while asks or (lanes is not None and lanes.active()):
            for kinds in KINDS:
                who = [i for i, a in asks.items() if a.kind in kinds]
                for i, answer, exc in self._serve(kinds[-1], who, asks):
                    g = self.gens[i]
                    if exc is None:
                        self._resume(i, g, asks, self.out, g.send, answer)
                    else:
                        self._resume(i, g, asks, self.out, g.throw, exc)
            lane = None if lanes is None else lanes.slowest()
            slowest = min([self.runs[i].done for i in asks] + ([lane[0]] if lane else []),
                          default=F)
            if progress is not None and slowest > shown:
                shown = slowest
                if progress(V * slowest // F) is False:
                    raise SolverCancelled("design study cancelled",
                                          min([self.runs[i].t for i in asks]
                                              + ([lane[1]] if lane else [])))
        return self.out

    def resume_alone(self, i: int) -> None:
        """Variant i's run goes on by its own stages from where its carry stands (its
        requests served with the others' each round)."""
        g = self.gens[i] = self.runs[i].frames()
        self._resume(i, g, self.asks, self.out, next, g)

    def finished(self, i: int, result: Result) -> None:
        """Variant i's Result (a lane's, at its end)."""
        self.out[i] = result

    @staticmethod
    def _resume(i: int, g, asks: dict, out: list, go: Callable, arg: Any) -> None:
        """Variant i's run on to its next request (``go(arg)``: next, send or throw); its
        Result when it ends, None when it fails or leaves (it runs alone, and its separate
        run says why)."""
        try:
            asks[i] = go(arg)
        except StopIteration as stop:
            asks.pop(i, None)
            out[i] = stop.value
        except SolverCancelled:
            raise
        except Exception:         # noqa: BLE001 - this variant's alone: its own run tells
            asks.pop(i, None)
            out[i] = None

    def _serve(self, kind: str, who: list[int], asks: dict) -> list[tuple]:
        """[(variant, answer, exception)] of the requests of ``kind`` of the variants
        ``who``: those on the common path in one call with the lanes waiting for it (then
        on to their next), the others (or all, where the call fails; the lanes then go on
        alone) each on its own equations (a stiff variant's step by its own stepper, its
        memory of its steps with it: ``_Lane.step``)."""
        lanes = (self.lanes.due(kind) if self.lanes is not None and kind != "rate"
                 else np.zeros(0, dtype=int))
        if not who and not lanes.size:
            return []
        common = [i for i in who if self._common(i)]
        shared = set(common)
        alone = [i for i in who if i not in shared]
        got: list[tuple] = []
        if common or lanes.size:
            try:
                answers, made = getattr(self, "_" + kind)(common, [asks[i] for i in common],
                                                          lanes)
                got = [(i, a, None) for i, a in zip(common, answers)]
                self.served["together"] += len(common) + len(lanes)
            except Exception:     # noqa: BLE001 - which variant: each on its own
                alone, made = alone + common, None
                if lanes.size:
                    self.lanes.leave(lanes)
            if made is not None and lanes.size:
                getattr(self.lanes, made[0])(lanes, *made[1:])
        self.served["alone"] += len(alone)
        for i in alone:
            ask = asks[i]
            try:
                got.append((i, ask.fn(*ask.args), None))
            except Exception as exc:     # noqa: BLE001 - raised in its run where it asked
                got.append((i, None, exc))
        return got

    def _common(self, i: int) -> bool:
        """Variant i solves with the study's rows and nothing else: no stop resting, no
        joint stuck by its friction, not at a singular position."""
        run = self.runs[i]
        state = run.run
        if state.robust or (state.resting is not None and state.resting.any()):
            return False
        if state.slip is not None and state.slip.stuck.any():
            return False
        return run.st is self.st or np.array_equal(run.st.keep, self.st.keep)

    # -- the calls, made together --------------------------------------------------------
    def _tell(self, states: list[RunState]) -> None:
        """The stacked equations told each variant's run state (its row of ``states``):
        torsion springs' turns, tracked values, contact points' touchdown speeds (not again
        while they have these very states told)."""
        told = self._told
        if (told is not None and self.eq.run is told[1]
                and all(a is b for a, b in zip(states, told[0]))):
            return
        self.eq.tell(stacked_state(states))
        self._told = (states, self.eq.run)

    def _told_now(self, who: list[int], states: list[RunState] | None = None) -> None:
        """Told each variant's run state as its equations have it (``states`` for who)."""
        now = [run.sysm.run for run in self.runs]
        for i, s in zip(who, states or []):
            now[i] = s
        self._tell(now)

    def _states(self, who: list[int], t, y, lanes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(t (V,), y (V, n)): who's at their requests' (t, y), the lanes where they stand,
        the others at their start."""
        if lanes.size == len(self.t0):          # every variant a lane, waiting for this
            return self.lanes.T.copy(), self.lanes.Y.copy()
        T, Y = self.t0.copy(), self.y0.copy()
        if who:
            T[who], Y[who] = t, np.stack(y)
        if lanes.size:
            T[lanes], Y[lanes] = self.lanes.T[lanes], self.lanes.Y[lanes]
        return T, Y

    def _rate(self, who: list[int], asks: list[Request], lanes: np.ndarray) -> tuple:
        """The explicit method's fastest rate of each (frames.motion_rate, all at once)."""
        args = [q.args for q in asks]
        T, Y = self._states(who, [a[1] for a in args], [a[2] for a in args], lanes)
        self._told_now(who)
        rate = motion_rate(self.eq, T, Y)
        return [float(rate[i]) for i in who], None

    def _step(self, who: list[int], asks: list[Request], lanes: np.ndarray) -> tuple:
        """Trial steps (each variant's t, y, f0, h; a lane's own), one for all."""
        args = [q.args for q in asks]
        T, Y = self._states(who, [a[0] for a in args], [a[1] for a in args], lanes)
        # the others: no step (explicit), or a step Radau IIA's live mask leaves untaken
        F0, H = np.zeros(Y.shape), np.full(len(T), 1.0 if self.implicit else 0.0)
        cap = np.full(len(T), np.inf)          # (each run's stages short of its breakpoint)
        if who:
            F0[who], H[who] = np.stack([a[2] for a in args]), [a[3] for a in args]
            cap[who] = [a[5] if len(a) > 5 and a[5] is not None else np.inf for a in args]
        cap = cap if np.isfinite(cap).any() else None
        if lanes.size:
            F0[lanes], H[lanes] = self.lanes.F0[lanes], self.lanes.HS[lanes]
        self.due = None
        if not who and not self.implicit and lanes.size:     # (lanes alone: some idle?)
            self.due = due_equations(self, lanes)
        if self.due is not None and self.due[0] is not self.eq:
            Y1, E = step_rows(self, T, Y, F0, H, cap)
        elif self.implicit:
            self._told_now(who)
            live = np.zeros(len(T), dtype=bool)
            live[who] = True
            for i in who:                # back from steps of its own: its memory with it
                if self.own_memory[i]:
                    self.stepper.copy_row(i, self.runs[i].stepper.own.radau, 0)
                    self.own_memory[i] = False
            Y1, E = self.stepper.step(T, Y, F0, H, self.norm, live, cap)
        else:
            self._told_now(who)
            low = [i for i, q in zip(who, asks) if getattr(q.fn.__self__, "low", False)]
            Y1, E = self._explicit(T, Y, F0, H, np.array(low, dtype=int), len(who) > len(low)
                                   or bool(lanes.size), cap)
        self.stepped[:] = False
        self.stepped[who] = True
        self.stepped[lanes] = True
        self.told_start = False
        return ([(Y1[i], float(E[i])) for i in who],
                ("stepped", Y1, E, getattr(self.stepper, "k_end", None)))

    def _explicit(self, T, Y, F0, H, low: np.ndarray, high: bool, cap=None) -> tuple:
        """The explicit trial steps: the variants ``low`` on Dormand-Prince 5(4) (where the
        frames cut their steps) by the group's 5(4) stepper, the others (if ``high``) by
        its DOP853; a variant's step as its separate run takes it."""
        if not low.size:
            return self.stepper.step(T, Y, F0, H, self.norm, cap)
        Hl = np.zeros_like(H)
        Hl[low], H = H[low], H.copy()
        H[low] = 0.0
        Y1l, El = self.low.step(T, Y, F0, Hl, self.norm, cap)
        if not high:
            return Y1l, El
        Y1, E = self.stepper.step(T, Y, F0, H, self.norm, cap)
        Y1[low], E[low] = Y1l[low], El[low]
        return Y1, E

    def _project(self, who: list[int], asks: list[Request], lanes: np.ndarray) -> tuple:
        """Step ends onto the constraints (each variant's t, r, p, v, w; a lane's accepted
        step's end), the tracked values taken near each one's run state: ((r, p, v, w), its
        run state with them), which its equations are told (analyses/dynamics/frames.py
        ``project_run``)."""
        args = [q.args for q in asks]
        T = self.t0.copy()
        T[who] = [a[0] for a in args]
        R, P, Vv, W, _ = self.eq.unpack(self.y0)
        R, P, Vv, W = R.copy(), P.copy(), Vv.copy(), W.copy()
        if who:
            for x, j in ((R, 1), (P, 2), (Vv, 3), (W, 4)):
                x[who] = np.stack([a[j] for a in args])
        if lanes.size:
            T[lanes] = self.lanes.T[lanes] + self.lanes.HS[lanes]
            for x, y in zip((R, P, Vv, W), self.eq.unpack(self.lanes.Y1[lanes])):
                x[lanes] = y
        todo = np.zeros(len(T), dtype=bool)
        todo[who] = True
        todo[lanes] = True
        if (not who and self.due is not None and self.due[0] is not self.eq
                and (self.due[1][lanes] >= 0).all()):
            return [], ("projected",) + project_rows(self, T, (R, P, Vv, W), todo)
        self._told_now(who, [self.runs[i].run for i in who])
        # a variant on one of its breakpoints: its motions' rates just after it (project)
        rate_t = T.copy()
        rate_t[who] = [side_of(self.runs[i].model.breakpoints, T[i]) for i in who]
        rate_t = None if np.array_equal(rate_t, T) else rate_t
        r, p, v, w, track = self.eq.project_many(T, R, P, Vv, W, todo, self.rs, self.cw,
                                                 self.size, rate_t)
        got = []
        for i in who:
            run = self.runs[i]
            state = run.run.tracked(None if track is None else track[i])
            run.sysm.tell(state)
            got.append(((r[i], p[i], v[i], w[i]), state))
        return got, ("projected", r, p, v, w)

    def _frame(self, who: list[int], asks: list[Request], lanes: np.ndarray) -> tuple:
        """Output frames' evaluations and right-hand sides (each variant's t, y; a lane's
        where it stands), one Equations.rhs_parts for both: its rows, or for a right-hand
        side only dy's row (as Equations.rhs is rhs_parts' dy: the same bits).  Only the
        variants due are evaluated (due.py ``due_equations``): the results' rows are theirs,
        variant i's at ``at[i]``."""
        args = [q.args for q in asks]
        T, Y = self._states(who, [a[0] for a in args], [a[1] for a in args], lanes)
        parts = [q.kind == "rhs" for q in asks]
        eq, at = due_equations(self, np.union1d(np.array(who, dtype=int), lanes))
        if eq is self.eq:
            self._told_now(who)
        else:
            rows = np.flatnonzero(at >= 0)
            T, Y = T[rows], Y[rows]
        dy, (a, lam, fe, J, f) = eq.rhs_parts(T, Y)
        if eq.dry:               # what a frame reads of its own equations: its friction
            for i in who:
                self.runs[i].sysm.took(eq.friction[at[i]], eq.headroom[at[i]])
        K = len(T)
        potential = np.broadcast_to(fe.potential, (K,))
        power = np.broadcast_to(fe.power_nc, (K,))
        ts = np.broadcast_to(fe.ts_angle, (K,) + np.shape(fe.ts_angle)[-1:])
        f = np.broadcast_to(f, (K,) + f.shape[-2:])
        return ([dy[k] if only else
                 (dy[k], (a[k], lam[k], _ForcesRow(ts[k], power[k], potential[k],
                                                   None if fe.contact is None
                                                   else fe.contact.variant(k)), J[k], f[k]))
                 for k, only in zip(at[who].tolist(), parts)],
                ("evaluated", at, dy, a, lam, fe, J, f))

    def dense(self, i: int, theta, low: bool = False) -> np.ndarray:
        """Variant i's row of the last step's dense output (``low``: its 5(4) step's), the
        stepper's extra stages (if any) evaluated with each variant's run state at its
        step's start."""
        if not self.told_start:
            self._told_now(list(range(len(self.runs))),
                           [run.at_start for run in self.runs])
            self.told_start = True
        return (self.low if low else self.stepper).dense(theta, row=i)


class _ForcesRow:
    """What a frame reads of one variant's ForceEval (kernels/forces.py) in a stack."""

    def __init__(self, ts_angle: np.ndarray, power_nc: float, potential: float,
                 contact: Any = None) -> None:
        self.ts_angle, self.power_nc, self.potential = ts_angle, power_nc, potential
        self.contact = contact


class _Lane:
    """Variant i's stepper as its DynamicRun reads it: a step of its own (an event's
    re-steps, a step off the common path) by its own stepper; the dense output, the last
    stage and Newton's figures of its last step from the group's stepper when the group
    took that step."""

    def __init__(self, group: _Group, i: int, own: Any, low: bool = False) -> None:
        self.group, self.i, self.own, self.low = group, i, own, low   # low: the 5(4) of pairs
        self.order, self.name = own.order, own.name
        self.stable = getattr(own, "stable", np.inf)
        self.newton_max = getattr(own, "newton_max", NEWTON_MAX)

    def step(self, t: float, y: np.ndarray, f0: np.ndarray, h: float, norm, cap=None):
        g, i = self.group, self.i
        g.stepped[i] = False
        if g.implicit and not g.own_memory[i]:   # its memory of its steps comes with it
            self.own.radau.copy_row(0, g.stepper, i)
            g.own_memory[i] = True
        return self.own.step(t, y, f0, h, norm, cap)

    def restart(self) -> None:
        """The variant's right-hand side jumped (RadauIIA.restart): its own stepper's and
        its row of the group's memory of the steps before forgotten."""
        for stepper, row in ((self.own, ()), (None if self.low else self.group.stepper,
                                              (self.i,))):
            restart = getattr(stepper, "restart", None)
            if restart is not None:
                restart(*row)

    def dense(self, theta) -> np.ndarray:
        if self.group.stepped[self.i]:
            return self.group.dense(self.i, theta, self.low)
        return self.own.dense(theta)

    @property
    def k_end(self) -> np.ndarray | None:
        if self.group.stepped[self.i]:
            k = getattr(self.group.low if self.low else self.group.stepper, "k_end", None)
            return None if k is None else k[self.i]
        return getattr(self.own, "k_end", None)

    def end_rate(self, y: np.ndarray) -> np.ndarray | None:
        """explicit.DoPri5.end_rate: its own stepper's after a step of its own, its row of
        the group's after the group's."""
        if self.group.stepped[self.i]:
            group = self.group.low if self.low else self.group.stepper
            rate = getattr(group, "end_rate", None)
            return None if rate is None else rate(y, self.i)
        rate = getattr(self.own, "end_rate", None)
        return None if rate is None else rate(y)

    @property
    def keeps_matrix(self) -> bool:
        if self.group.stepped[self.i]:
            return self.group.stepper.keeps_matrix(self.i)
        return self.own.keeps_matrix

    @property
    def newton_iterations(self) -> int:
        if self.group.stepped[self.i]:
            return int(self.group.stepper.iters[self.i])
        return self.own.newton_iterations


class _Stages:
    """The group's stacked equations as RadauIIA's system: its equations, each variant's
    own (its force Jacobians), and the right-hand sides of all variants' stages in one
    call."""

    def __init__(self, g: _Group) -> None:
        self.g = g
        self._seq: dict[str, Any] = {}      # the stages' equations (each variant's model s times)

    @property
    def eq(self) -> Equations:
        return self.g.eq

    def own(self, i: int) -> Equations:
        return self.g.runs[i].sysm

    def _repeated(self, s: int) -> Equations:
        """The group's equations with each variant's model repeated s times (its stages),
        their run state (torsion springs' turns, tracked values) the variant's."""
        g, seq = self.g, self._seq
        if "eq" not in seq:
            rep = g.stack([m for m in g.models for _ in range(s)], switched=True)
            if rep is None:
                raise np.linalg.LinAlgError("the stages do not stack")
            seq["eq"] = Equations(rep, g.st)
        eq = seq["eq"]
        run = g.eq.run
        slip = run.slip
        eq.tell(RunState(np.repeat(run.ts_ref, s, axis=0),
                         None if run.track is None else np.repeat(run.track, s, axis=0),
                         onset=None if run.onset is None else np.repeat(run.onset, s, axis=0),
                         slip=None if slip is None else dataclasses.replace(
                             slip, direction=np.repeat(slip.direction, s, axis=0)),
                         limit_ref=None if run.limit_ref is None
                         else np.repeat(run.limit_ref, s, axis=0)))
        return eq

    def stages(self, ts: np.ndarray, Y: np.ndarray,
               act: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The right-hand sides at Y (V, [s,] n), times ts (V, [s]), of all variants in one
        call (those not ``act`` at a state that evaluates); a variant whose own evaluation
        raises LinAlgError is flagged (its separate run's step fails there)."""
        eq = self._repeated(Y.shape[1]) if Y.ndim == 3 else self.g.eq
        bad = np.zeros(len(Y), dtype=bool)
        try:
            return eq.rhs(ts.reshape(-1), Y.reshape(-1, Y.shape[-1])).reshape(Y.shape), bad
        except np.linalg.LinAlgError:     # which variant: each on its own model
            out = np.zeros(Y.shape)
            for i in np.flatnonzero(act):
                try:
                    out[i] = self.own(int(i)).rhs(ts[i], Y[i])
                except np.linalg.LinAlgError:
                    bad[i] = True
            return out, bad
