"""Many variants of one mechanism in one forward-dynamics run.

A study's variants share their topology, so their compiled models differ only in numbers
(masses, inertias, marker points, spring rates, gravity): ``stack_models`` (stack.py) puts
those on a leading variant axis, and the equations (analyses/dynamics/equations.py) then
evaluate every variant's right-hand side in one set of numpy calls, the per-call cost that
dominates a small mechanism paid once for all.

One lockstep loop (``_run``) runs analyses/dynamics/driver.py's ``dynamic_run`` for every
variant of a group (group.py), with the method its separate run takes: ``batch_dynamics``
the explicit one (each variant's first stage its last stage of the step before, as alone),
``batch_implicit`` Radau IIA for the stiff variants (integrators/implicit.py ``RadauIIA``
over the variant axis; the stages of all variants one right-hand side call, on a model
whose numbers are each variant's repeated s times).  Each variant has its own time, step
size and control (the error goal of integrators/control.py), its own projection
(``Equations.project_many``, giving each variant the bits of its separate run's; couplers
and curve joints with their own tracked values) and its own output frames, so its Result
equals its separate run's to the last bit.  Long steps past the frames are taken as the
separate run takes them (the explicit method within each variant's stability bound,
``spectral_radii``), the frames inside from that variant's row of the dense output; a
variant at rest holds its pose.  Compliant stops are forces (no events).

Friction and rigid stops (events), models that do not stack, a start that does not
project: None, and the caller runs the variants one by one, each with its own full
treatment and error message.  A variant that leaves its separate run's common path (its
step collapsing at a singular position, a projection that fails) leaves the lockstep run
(None in its place) and runs alone; the others go on.
"""
from __future__ import annotations

from typing import Any, Callable, NamedTuple

import numpy as np

from ..analyses.dynamics.driver import LONG_STEP, RATE_EVERY, SINGULAR_STEP, long_proposal
from ..analyses.dynamics.singular import free_singular
from ..analyses.dynamics.equations import Equations
from ..analyses.structure import Structure, open_tree
from ..integrators.control import (ErrorNorm, PredictiveControl, StandardControl,
                                   Goals, frame_spacing)
from ..integrators.implicit import NEWTON_MAX, RadauIIA, spectral_radii
from ..model.compile import Model
from ..model.results import Result
from ..model.state import RunState, State
from .group import _Fallback, _Group, stacked_starts
from .stack import stack_models

FRAME_BYTES = 64 * 2 ** 20    # output frames kept at once before they go into the Results


def batch_dynamics(models: list[Model], st: Structure, starts: list[State],
                   times: np.ndarray, tolerance: float, method: str = "auto",
                   progress: Callable[[int], Any] | None = None,
                   stack: Callable[..., Model | None] = stack_models
                   ) -> list[Result | None] | None:
    """Forward dynamics of every variant (models of one topology, structure ``st``, each
    from its assembled start) in lockstep by the explicit method; their Results (None for a
    variant that left the run: it then runs alone), or None when the batch cannot take
    them (see the module docstring): then run them separately.  ``progress(variants' worth
    done)``, as the slowest variant passes each output frame; returning False stops the run
    (SolverCancelled).  Each variant's separate run must take the explicit method (the
    caller chose: study/engine.py ``_dynamics``; "implicit" gives None).  ``stack``: how
    the variants' models are stacked (stack_models, or a study's Writer.stack)."""
    if method == "implicit":       # (stiff variants: batch_implicit)
        return None
    return _lockstep(models, st, starts, times, tolerance, "explicit", progress, stack)


def batch_implicit(models: list[Model], st: Structure, starts: list[State], times: np.ndarray,
                   tolerance: float, progress: Callable[[int], Any] | None = None,
                   stack: Callable[..., Model | None] = stack_models
                   ) -> list[Result | None] | None:
    """batch_dynamics for stiff variants, each as ``dynamic_run`` takes its implicit path
    (Radau IIA, Gustafsson's step control, f(t, y) anew at every step, long steps from the
    collocation polynomial)."""
    return _lockstep(models, st, starts, times, tolerance, "implicit", progress, stack)


def _lockstep(models: list[Model], st: Structure, starts: list[State], times: np.ndarray,
              tolerance: float, method: str, progress,
              stack: Callable[..., Model | None] = stack_models) -> list[Result | None] | None:
    """The variants' group and stepper for ``method`` ("explicit", "implicit"), then the
    lockstep run; None where the batch cannot take them."""
    V = len(models)
    if V < 2 or len(starts) != V or st is None:
        return None
    m0 = models[0]
    if m0.frictions is not None or (m0.limits is not None and not m0.limits.compliant.all()):
        return None                # events (impacts, sticking): each variant's own run
    goals = Goals(tolerance)         # the jobs of the tolerance (integrators/control.py)
    rtol = goals.local(method)
    if method == "implicit":
        def make(g: _Group) -> RadauIIA:
            return RadauIIA(_Stages(g), len(g.models))
    else:
        cls = goals.explicit_pair()                  # as each separate run chooses it

        def make(g: _Group):
            return cls(g.eq.rhs)                     # steps every variant with its own h
    outs = [Result.empty(m, times, "dynamic") for m in models]
    try:
        g = _Group(models, st, outs, len(times), make, starts, FRAME_BYTES, stack)
        for o in outs:
            o.method = g.stepper.name
        return _run(g, method == "implicit", times, goals.rest, rtol, progress,
                    *stacked_starts(starts, float(times[0])))
    except (_Fallback, np.linalg.LinAlgError, FloatingPointError, ArithmeticError):
        return None


class _Stages:
    """A group's stacked equations as RadauIIA's system: its equations, each variant's own
    (its force Jacobians), and the right-hand sides of all variants' stages in one call."""

    def __init__(self, g: _Group) -> None:
        self.g = g
        self._seq: dict[str, Any] = {}      # the stages' equations (each variant's model s times)

    @property
    def eq(self) -> Equations:
        return self.g.eq

    def own(self, i: int) -> Equations:
        return self.g.own(i)

    def _repeated(self, s: int) -> Equations:
        """The group's equations with each variant's model repeated s times (its stages),
        their run state (torsion springs' turns, tracked values) the variant's."""
        g, seq = self.g, self._seq
        if seq.get("for") is not g.models:
            rep = g.stack([m for m in g.models for _ in range(s)], switched=True)
            if rep is None:
                raise np.linalg.LinAlgError("the stages do not stack")
            seq["eq"], seq["for"] = Equations(rep, g.st), g.models
        eq = seq["eq"]
        run = g.eq.run
        eq.tell(RunState(np.repeat(run.ts_ref, s, axis=0),
                         None if run.track is None else np.repeat(run.track, s, axis=0)))
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


class _View(NamedTuple):
    """What PredictiveControl reads of one variant's Radau IIA stepper after its step."""
    newton_iterations: int
    keeps_matrix: bool
    newton_max: int = NEWTON_MAX


def _view(stepper: Any, i: int) -> Any:
    """Variant i's stepper as its step control reads it."""
    if isinstance(stepper, RadauIIA):
        return _View(int(stepper.iters[i]), stepper.keeps_matrix(i))
    return stepper


class _Lanes:
    """Each variant's run state besides its pose, as the separate run keeps it: its next
    frame k, step h, the proposal past the frames after its last accepted step (grow), a
    rejected step's next size (retry, NaN: none), the loads' work, whether its last step
    moved no part (still, a closed loop at rest), whether its step is long, the explicit
    method's rate estimate (rate, its age, the steps to the next) and its last stage
    (fsal, NaN: none yet)."""

    NAMES = ("k", "h", "grow", "retry", "work", "still", "long", "rate", "rate_age",
             "rate_wait", "fsal")

    def __init__(self, V: int, n: int) -> None:
        self.k = np.zeros(V, dtype=int)
        self.h, self.grow, self.retry = np.full(V, np.nan), np.zeros(V), np.full(V, np.nan)
        self.work = np.zeros(V)
        self.still, self.long = np.zeros(V, dtype=bool), np.zeros(V, dtype=bool)
        self.rate, self.rate_age, self.rate_wait = (np.zeros(V), np.full(V, RATE_EVERY),
                                                    np.full(V, RATE_EVERY))
        self.fsal = np.full((V, n), np.nan)

    def keep(self, mask: np.ndarray) -> None:
        for name in self.NAMES:
            setattr(self, name, getattr(self, name)[mask])


def _run(g: _Group, implicit: bool, times: np.ndarray, rest: float, rtol: float,
         progress, t, r, p, v, w) -> list[Result | None] | None:
    """dynamic_run's loop for every variant of ``g`` at once (explicit or implicit)."""
    V, F = len(g.models), len(times)
    outs = list(g.frames.outs)
    r, p, v, w, gone = _project(g, np.ones(V, dtype=bool), t, r, p, v, w)
    if gone.any():                     # a singular start: each alone says so
        return None
    Control = PredictiveControl if implicit else StandardControl
    controls = [Control(g.stepper.order) for _ in range(V)]
    frame, t_end = frame_spacing(times), float(times[-1])
    tree = open_tree(g.models[0])
    # no long steps with tracked values to carry frame by frame or stops to watch
    dense = g.models[0].ntrack == 0 and g.models[0].limits is None
    s = _Lanes(V, 13 * g.eq.nb + 1)
    while True:
        norm = ErrorNorm(g.scale, rtol)
        y, f0, s.k, live, s.h = g.begin(t, r, p, v, w, s.work, s.k, s.h, times, rest,
                                        rtol, progress)
        if not live.any():
            break
        t_out = times[np.minimum(s.k, F - 1)]
        # a new step (not a retry) is cut to the next frame (the control's trial), or runs
        # past it when the steps outgrow the frames (the explicit method within its
        # stability); a retry takes the rejected step's proposal
        fresh = live & np.isnan(s.retry)
        cand = (fresh & dense & (tree | s.still) & (s.grow >= LONG_STEP * frame)
                & (s.grow > t_out - t))
        bound = np.full(len(t), np.inf) if implicit else _stability(g, s, cand, t, y, f0, frame)
        s.long = np.where(fresh, cand & (np.minimum(s.grow, bound) >= LONG_STEP * frame), s.long)
        hs = np.where(s.long, np.minimum(np.minimum(s.grow, t_end - t), bound),
                      Control.trials(s.h, t_out - t))
        hs = np.where(np.isnan(s.retry), hs, s.retry)
        hs = np.where(live, hs, s.h)                 # finished variants: any valid step
        s.rate_age = s.rate_age + fresh
        if implicit:          # f(t, y) anew at every step, as dynamic_run's implicit path
            ynew, err = g.stepper.step(t, y, f0, hs, norm, live)
        else:                 # the first stage: the last of the step before, as alone
            ynew, err = g.stepper.step(t, y, np.where(np.isnan(s.fsal[:, :1]), f0, s.fsal),
                                       hs, norm)
        ok = live & (err <= 1.0)
        leave = np.zeros(len(t), dtype=bool)
        for i in np.flatnonzero(live & ~ok):  # (one at a time: numpy's array power rounds
            s.retry[i] = controls[i].rejected(float(hs[i]), float(err[i]),   # otherwise)
                                              _view(g.stepper, i))
            if s.retry[i] < SINGULAR_STEP * frame:
                # a singular position, or a step that collapsed: the separate run's
                leave[i] = bool(s.retry[i] < 1e-12 * max(1.0, abs(t[i])) or free_singular(
                    g.models[i], g.st, r[i], p[i]))
        if ok.any():
            t, r, p, v, w = _accept(g, s, controls, implicit, ok, leave, tree, times,
                                    rest, progress, hs, err, ynew, t, r, p, v, w)
        if leave.any():
            # (after the others' accepted steps: a stepper with state moved on already)
            if leave.all():
                return None
            g.keep(~leave)
            s.keep(~leave)
            controls = [c for c, gone in zip(controls, leave) if not gone]
            t, r, p, v, w = (x[~leave] for x in (t, r, p, v, w))
    done = set(g.index.tolist())
    return [o if i in done else None for i, o in enumerate(outs)]


def _stability(g: _Group, s: _Lanes, cand: np.ndarray, t, y, f0, frame: float) -> np.ndarray:
    """The explicit method's longest stable step of each variant (V,), its stepper's
    ``stable`` over the equations' fastest rate, estimated anew (dynamic_run's
    ``motion_rate``, for all variants at once) for the candidates of a long step whose
    estimate is due; a rate that keeps the steps short is looked at again later and
    later."""
    stable = g.stepper.stable
    due = cand & (s.rate_age >= s.rate_wait)
    if due.any():
        eq = g.eq
        eps = 1e-7 * np.maximum(1.0, np.max(np.abs(y[:, :-1]), axis=-1))[:, None]
        est = spectral_radii(lambda X: (eq.rhs(t, y + eps * X) - f0) / eps, len(t),
                             y.shape[-1], 30)
        s.rate, s.rate_age = np.where(due, est, s.rate), np.where(due, 0, s.rate_age)
        short = stable / np.maximum(s.rate, 1e-300) < LONG_STEP * frame
        s.rate_wait = np.where(due, np.where(short, np.minimum(2 * s.rate_wait,
                                                               64 * RATE_EVERY),
                                             RATE_EVERY), s.rate_wait)
    return stable / np.maximum(s.rate, 1e-300)


def _project(g: _Group, sel: np.ndarray, t, r, p, v, w):
    """Positions onto the constraints, then velocities, for the variants ``sel``: all at
    once (Equations.project_many, whose Newton gives each variant the bits of its separate
    run's projection, its tracked values told to ``g.eq``), or, where one fails,
    each on its own equations (Equations.project) to tell which; (r, p, v, w, failed): a
    variant whose projection fails (a lock-up, a singular position) runs alone."""
    failed = np.zeros(len(t), dtype=bool)
    try:
        return g.project(t, r, p, v, w, sel) + (failed,)
    except np.linalg.LinAlgError:
        pass
    r, p, v, w = (x.copy() for x in (r, p, v, w))
    tracks = {}
    for i in np.flatnonzero(sel):
        try:
            own = g.own(int(i))
            r[i], p[i], v[i], w[i], tracks[i] = own.project(
                float(t[i]), r[i].copy(), p[i].copy(), v[i].copy(), w[i].copy())
        except np.linalg.LinAlgError:
            failed[i] = True
    if g.eq.m.ntrack and tracks:
        run = g.eq.run
        track = np.zeros((len(t), g.eq.m.ntrack)) if run.track is None else run.track.copy()
        for i, q in tracks.items():
            track[i] = q
        g.eq.tell(run.tracked(track))
    return r, p, v, w, failed


def _accept(g: _Group, s: _Lanes, controls: list, implicit: bool, ok, leave, tree: bool,
            times, rest, progress, hs, err, ynew, t, r, p, v, w):
    """The accepted steps ``ok``: the projection (a variant whose projection fails is put
    in ``leave``), each variant's next h from its control (the explicit method keeps its
    natural step after a step cut to a frame; the implicit one takes every proposal), the
    proposal past the frames, the last stage, the frames inside a long step and the
    torsion springs' turns, as dynamic_run after a step.  Returns (t, r, p, v, w)."""
    k_end = getattr(g.stepper, "k_end", None)
    if k_end is not None:
        s.fsal = np.where(ok[:, None], k_end, s.fsal)
    r1, p1, v1, w1, work1 = g.eq.unpack(ynew)
    r1, p1, v1, w1, gone = _project(g, ok, t + hs, r1, p1, v1, w1)
    leave |= gone
    ok = ok & ~gone
    h_next = s.h.copy()
    for i in np.flatnonzero(ok):      # (one at a time: numpy's array power rounds otherwise)
        h_next[i] = controls[i].accepted(float(hs[i]), float(err[i]), _view(g.stepper, i))
        s.grow[i] = long_proposal(float(hs[i]), float(err[i]), controls[i].expo)
    s.h = np.where(ok & (implicit | s.long | (hs == s.h) | (h_next < s.h)), h_next, s.h)
    s.retry = np.where(ok, np.nan, s.retry)
    t, r, p, v, w, s.work, s.still, s.k = g.advance(ok, hs, t, r, p, v, w, s.work,
                                                    (r1, p1, v1, w1, work1), s.still, tree,
                                                    s.k, times, rest, progress)
    return t, r, p, v, w
