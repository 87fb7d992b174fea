"""Forward dynamics: integrate the constrained equations of motion through the output
frames (Haug 1989, "Forward dynamics - dynamically driven").

The equations (the augmented system by its Schur complement, the state's layout, the
projection) are ``equations.py``'s; after every accepted step the positions and velocities
are projected back onto the constraints (M-weighted least change; Hairer-Wanner VII.2), so
constraints hold to Newton precision at every frame, and the multipliers at each output
frame give the reactions and motion efforts as in kinematics.

Singular positions (links lined up: the kept rows dependent for an instant) make
J M^-1 J^T singular, and its vanishing eigenvalue turns rounding into steps that shrink
without end.  When a step has been cut below a tenth of a frame there, and no motion is
involved (else a lock-up), the run goes on with least-norm solves (Golub-Van Loan 5.5.4)
until the Jacobian is well conditioned again, on the branch its momentum carries.  A
general motion's free b2 carried to +-90 deg (its b1, b3 rows' singular pose) is named.

Output frames are step ends: a step is cut to end on the next frame.  Only where the steps
outgrow the frames (a mechanism coming to rest, or frames faster than the motion needs)
does a step run past them, LONG_STEP frames or more, when nothing needs the steps' ends
near it: no stops or friction (events located by re-stepping), no couplers or curve joints
(tracked values go from frame to frame), and an open tree of joints or a closed loop at
rest (a moving loop's lined-up positions are found by the cut steps). The frames inside a
long step are its dense output (DOP853's of order 7, Dormand-Prince 5(4)'s of order 4,
Hairer-Norsett-Wanner II.6; Radau IIA's collocation polynomial, Hairer-Wanner IV.5), each
projected and evaluated like a step end, all the frames of a step as one stack
(``frames_inside``).  At rest with nothing depending on time acting, the pose is held.

Integrators (error-controlled):
- explicit Runge-Kutta (``explicit.py``): Dormand-Prince 8(5,3) at the default and tighter
  tolerances (eighth order: few steps and projections), Dormand-Prince 5(4) at loose ones;
- the L-stable Radau IIA method of order 9 (Hairer-Wanner IV.5 and IV.8, ``implicit.py``)
  when the force elements make the system stiff (``choose_method``): stiff modes the step
  does not resolve are damped out, and the slow motion (a governor's spin) takes long
  steps; Gustafsson's predictive step control (``integrators/control.py``).

The run is a loop over the output frames (``dynamic_run``) whose carry is a DynamicRun: the
pose, the step sizes, the integrator's state and the RunState (model/state.py).  A step is a
list of stages, each a method that reads and advances the carry: its size (``_proposal``:
cut to the next frame, or long; then aimed at a breakpoint of mu just ahead, events.py
``aim_at_event``), its trials until one is accepted (``_attempt``: rejected steps, what
passed inside an accepted one, ``inside.py``, singular positions, rows chosen anew, a
collapse named), the next size (``_next_size``), its end on
its first event (``_end_on_event``: events.py locates it on re-stepped trials), the
projection and the limits' turns (``_advance``), the event's action (``_act``: an impact,
a joint sticking or breaking loose, a stop let go) and the run state at the new point
(``_after_step``: springs' turns, contacts' touchdown, least-norm solves), both in
actions.py.  A frame is a step's end (``_frame``) or inside a long step
(``_frames_in_step``).
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Callable

import numpy as np

from ...algebra.newton import scales
from ...base.errors import ExpressionError, FrictionJam, SolverError
from ...integrators.control import (ErrorNorm, Goals, PredictiveControl, StandardControl,
                                    error_scale, frame_spacing, initial_step, long_proposal,
                                    next_break, next_size, on_break, side_of)
from ...integrators.explicit import DoPri5, end_rate
from ...integrators.implicit import RadauStepper
from ...kernels.constraints import body_arrays
from ...kernels.contacts import summary_rows
from ...model.compile import Model
from ...model.frame_buffer import FrameBuffer
from ...model.results import Result, report_progress
from ...model.state import RunState, State
from .actions import StepActions, passage_note
from .equations import Equations
from .method import STIFF_RATE, choose_method  # noqa: F401 (STIFF_RATE: the threshold)
from .events import StepEnd, aim_at_event, crossed_at_end, record_friction, step_events
from .inside import asks_singular, before_failure, collapsed_size, inside_step
from .pairs import frame_pairs
from .requests import Request, Requests, drive
from .frames import (at_rest, frames_inside, hold_after, motion_power, motion_rate,
                     on_frame_within, project_run, rests)
from .friction import aim, magnitudes
from .singular import (collapsed, free_singular, gave_up, lock_up, near_singular,
                       rows_chosen_anew)
from .stops import Stops, check_start
from ..checks.curve_ends import END_TOL, end_sizes, open_ends
from .touchdown import reach_time
from .switching import friction_rates, rest_at_start, slipping, stick, use_rows
from ..general_motions import held_turns
from ..limit_turns import advanced, started, turn_time
from ..structure import Structure, open_tree


_NONE = np.zeros(0, dtype=int)
LONG_STEP = 2.0      # steps of at least this many frames run past the frames (dense output,
#                      sized for control.LONG_ERR of the step's error goal: long_proposal)
RATE_EVERY = 16      # steps between estimates of that rate (each costs 31 right-hand sides)


def dynamic_run(model: Model, st: Structure, start: State, times: np.ndarray,
                tolerance: float = 1e-6, method: str = "auto", progress=None,
                keep: Any = None) -> Result:
    """Integrate from the assembled start state at times[0] through every output frame;
    returns a Result (of the quantities ``keep`` names: model/kept.py; None: all).  method:
    "explicit", "implicit" or "auto" (implicit where the system is stiff, ``choose_method``)."""
    return drive(DynamicRun(model, st, start, times, tolerance, method, progress,
                            keep).frames())


class DynamicRun(StepActions):
    """One dynamic run in progress, the loop's carry: the settings made at its start (the
    equations, stepper, step control, error norm, stops, what the run watches for) and what
    its steps advance (time t, pose r, p, v, w, the loads' work, the step size h and the
    proposal past the frames ``grow``, the last stage ``f_end``, the kept rows ``st``, the
    RunState ``run``, the frames stored ahead).  ``step`` runs a step's stages; ``frame``
    and ``frames_in_step`` store output frames; ``finish`` returns the Result; ``frames``
    is the whole run, a generator of the Requests its stages make (``drive``)."""

    def __init__(self, model: Model, st: Structure, start: State, times: np.ndarray,
                 tolerance: float, method: str, progress, keep: Any = None,
                 buffered: bool = True) -> None:    # (False: the caller gives its ``buffer``)
        self.model, self.times, self.progress = model, times, progress
        self.goals = goals = Goals(tolerance)     # the tolerance's jobs (integrators/control.py)
        self.sysm = Equations(model, st, singular=goals.singular)
        self.stops = Stops(model) if model.limits is not None else None
        self.base = st          # the structure without stops in contact or joints sticking
        self.t = float(times[0])
        self._settle(st, start)
        try:
            method = choose_method(self.sysm, self.t, self.r, self.p, self.v, self.w, method,
                                   span=float(times[-1] - times[0]))
        except ExpressionError as exc:        # a load that cannot be evaluated at the start
            raise SolverError(str(exc), self.t) from None
        self._integrator(method, keep)
        self.buffer = FrameBuffer(self.out) if buffered else None   # frames, a block at a time
        self._watch()

    def _settle(self, st: Structure, start: State) -> None:
        """The start: projected (consistent velocities), coordinates on a rigid stop resting
        on it, joints at rest sticking if they can and moving ones slipping."""
        model, sysm, t = self.model, self.sysm, self.t
        r, p, v, w = start.r, start.p, start.v, start.w   # (the limits' turns: limit_turns.py)
        run = started(model, RunState.start(model, start.track, t), t, r, p, v, w)
        sysm.tell(run)
        check_start(model, r, p, t, run.limit_ref)
        try:
            (r, p, v, w), run = project_run(sysm, run, t, r, p, v, w)
        except np.linalg.LinAlgError:
            raise SolverError(f"the initial position is singular: the constraints cannot be "
                              f"met at t = {t:.6g} s", t) from None
        except ExpressionError as exc:
            raise SolverError(str(exc), t) from None
        if self.stops is not None:     # coordinates that start on a rigid stop rest on it
            (r, p, v, w), st, run = rest_at_start(sysm, self.stops, self.base, t, r, p, v, w)
        if run.slip is not None:       # joints at rest stick if they can, moving ones slip
            vq = friction_rates(sysm, sysm.pack(r, p, v, w, 0.0))
            run = slipping(sysm, aim(model, run.slip, vq))
            still = np.flatnonzero(magnitudes(model, vq) <= 1e-9 * model.frictions.speed)
            if still.size:
                (r, p, v, w), st, run = stick(sysm, t, r, p, v, w, still, self.base,
                                              self.stops)
        self.r, self.p, self.v, self.w, self.st, self.run = r, p, v, w, st, run
        self.at_start = run        # the run state the last step's stages used

    def _integrator(self, method: str, keep: Any = None) -> None:
        """The stepper, its step control and error norm for ``method``; the Result (of the
        quantities ``keep`` names)."""
        model, goals = self.model, self.goals
        self.method = method
        self.rtol = goals.local(method)
        self.stepper = (RadauStepper(self.sysm) if method == "implicit"
                        else goals.explicit_pair()(self.sysm.rhs))
        self.control = (PredictiveControl if method == "implicit"
                        else StandardControl)(self.stepper.order)
        self.out = out = Result.empty(model, self.times, "dynamic", keep)
        if self.run.slip is not None:         # the joints held at the start
            record_friction(out, self.t, np.zeros_like(self.run.slip.stuck),
                            model.frictions.names, self.run.slip)
        out.method = self.stepper.name
        self.norm = ErrorNorm(error_scale(self.sysm.pack, model.body_size, model.nb,
                                          model.body_island, model.body_anchor), self.rtol)
        self.explicit = isinstance(self.stepper, DoPri5)     # both Dormand-Prince pairs

    def _watch(self) -> None:
        """What the run watches for and what its steps advance, as at the start."""
        model, run, fm = self.model, self.run, self.model.forces
        # long steps with dense output (module docstring): every stepper has one; no events
        # to locate; in a closed loop only while it rests (no lined-up position to find
        # then) and no tracked values (a coupler's turns, a cam's contact) to carry frame
        # by frame
        self.contacts = run.onset is not None      # contact points touching down
        self.dense = (self.stops is None and run.slip is None and model.ntrack == 0
                      and not self.contacts)
        self.locating = self.stops is not None or run.slip is not None or self.contacts
        self.pairs = frame_pairs(self)             # steps the frames cut: 5(4) where it does
        self.tree = open_tree(model)
        # a singular position the inputs' rounding folded (actions.py _rounded_fold): the
        # accelerations at the last step starts, and the column weights they are read in
        self.folds = bool(model.input_rounding) and not self.tree
        self.fold_rates, self.fold_cw = (), scales(model)[1]
        # (the carry where a fold was taken, its note's place; where one was refuted)
        self.fold_from = self.fold_note = self.fold_refuted = None
        self.turns = bool(len(run.ts_ref))         # torsion springs, whose turns are carried
        self.gimbals = held_turns(model)           # general motions' free b2 (+-90 deg)
        self.curve_ends = open_ends(model)         # open curves' contacts (inside.py)
        self.curve_end_tol = END_TOL * end_sizes(model, self.curve_ends)   # m, each end's
        self.curve_last = None                     # (time, their gaps, rates) at a step end
        # nothing depends on time (no motion, applied load or actuator): once at rest, at rest
        self.autonomous = (not model.motion_functions and not fm.ld_names
                           and all(a is None for a in list(fm.sd_act) + list(fm.ts_act)))
        self.frame_dt = frame_spacing(self.times)
        self.t_end, self.t_last = float(self.times[-1]), self.t
        self.work = 0.0
        self.h = self.f_end = None
        self.touch_by = np.inf   # s: steps end by then after a touchdown (contact_time)
        self.y_frame = None        # the packed state of the frame the run stands on
        self.resting = False       # the last accepted step left every part where it was
        self.rate, self.rate_age, self.rate_wait = 0.0, RATE_EVERY, RATE_EVERY   # the
        #     equations' fastest rate, steps since it was estimated, steps to the next
        self.grow = 0.0            # the step the control proposed after the last accepted one
        self.passed: list[tuple[float, tuple[str, ...]]] = []   # singular positions passed
        self.passage, self.passage_losses = None, []   # their energy balance (actions.py)
        self.stored = 0            # frames stored ahead (those inside a long step, together)
        self.done = 0              # frames stored (or held)

    def frames(self) -> Requests:
        """The run through every output frame, a generator of the Requests its stages make;
        returns the Result."""
        for k in range(self.done, len(self.times)):   # (from where a study's lanes left it)
            t_out = self.times[k]
            if k < self.stored:            # stored with the long step that passed it
                continue
            near = on_frame_within(t_out)
            while self.t < t_out - near:   # integrate up to the frame time
                yield from self.step(k, t_out)
            if self.t > t_out + near:      # within a long step: it and the frames after
                if self.frames_in_step(k):     # ... at rest: held
                    break
                continue
            if (yield from self.frame(k)):     # a step's end; at rest: held
                break
        return self.finish()

    def resume(self, t: float, y: np.ndarray, h: float | None, f_end: np.ndarray | None,
               grow: float, resting: bool, t_last: float, rate_age: int, done: int,
               steps: int) -> None:
        """Go on from a carry kept elsewhere (a design study's lanes, study/lanes.py, that
        took this run's steps over the variant axis): at time t (s) in the packed state y,
        the natural step h (None: none yet), the last stage f_end (None: anew), the
        proposal past the frames ``grow``, whether the last step rested, its start t_last,
        the steps since the fastest rate was estimated, the frames done and steps taken."""
        self.t, (self.r, self.p, self.v, self.w, work) = t, self.sysm.unpack(y)
        self.work, self.h, self.f_end, self.y_frame = float(work), h, f_end, None
        self.grow, self.resting, self.t_last, self.rate_age = grow, resting, t_last, rate_age
        self.done, self.out.steps = done, steps

    def served_by(self, wrap: Callable[[Any, bool], Any], buffer: FrameBuffer) -> None:
        """Take the steps and store the frames through a design study's group
        (study/lockstep.py): each stepper of the run (its own, and the 5(4) pair it cuts
        frames with, dynamics/pairs.py) replaced by ``wrap(stepper, low)``, which serves its
        requests over the variant axis, and the frames stored in ``buffer`` (the group's
        block).  Called once, before the first step."""
        self.stepper = wrap(self.stepper, False)
        if self.pairs is not None:
            self.pairs.low_stepper = wrap(self.pairs.low_stepper, True)
        self.buffer = buffer

    def fail(self, msg: str, k: int, tt: float, who=()) -> None:
        """Raise SolverError with the frames before frame k (the Result so far)."""
        self.buffer.flush()
        raise SolverError(msg, tt, who, self.out.truncated(k))

    @contextmanager
    def _named(self, k: int, tt: float | None = None, lock_up_at=None):
        """Errors inside a stage as SolverErrors at tt (default: the run's time when it
        failed) with the frames before frame k: an expression that cannot be evaluated, a
        dry joint jammed, and singular equations (``lock_up_at()``, or a lock-up at tt)."""
        try:
            yield
        except ExpressionError as exc:      # at the stage's time where it says it failed
            self.fail(str(exc), k, exc.time if exc.time is not None
                      else self.t if tt is None else tt)
        except FrictionJam as exc:
            at = self.t if tt is None else tt
            self.fail(exc.at(at), k, at, exc.names)
        except np.linalg.LinAlgError:
            if lock_up_at is not None:
                lock_up_at()
                return
            at = self.t if tt is None else tt
            self.fail(f"lock-up at t = {at:.6g} s: the constraint equations are singular",
                      k, at)

    # -- a step, as a list of stages ------------------------------------------------------
    def step(self, k: int, t_out: float) -> Requests:
        """One accepted step towards frame k at t_out (s), its event acted on."""
        with self._named(k, lock_up_at=lambda: self._singular_equations(k)):
            sysm = self.sysm
            y = self.y_frame          # the state as the frame here packed it, or anew
            if y is None:
                y = sysm.pack(self.r, self.p, self.v, self.w, self.work)
            self.y_frame = None
            # first stage: the step before's last (first same as last: y before projected),
            # anew, or left to a stepper that takes it with its first stages (Radau IIA:
            # where nothing before the step reads it and its time is the step's start)
            f0 = self.f_end
            if f0 is None and not self._f0_with_stages():
                f0 = yield Request("rhs", sysm.rhs, (side_of(self.model.breakpoints, self.t), y))
            if self.h is None:
                self.h = initial_step(f0, y, self.norm, self.times)
            hs, long = yield from self._proposal(t_out, y)
            self.at_start = self.run             # the run state a step's stages use
            aimed = None if long or not self.locating else aim_at_event(sysm, self.t, y, f0, hs)
            hs, long, f0, y1, err, h_next = yield from self._attempt(k, t_out, y, f0,
                                                                     aimed or hs, long)
            if self.folds:                       # (inputs rounded, a closed loop)
                self._rates_at_start(f0)
            kept = self.h                        # the natural size the step started from
            self._next_size(hs, err, h_next, long, hs == aimed)
            ended = self._end_on_event(k, y, f0, hs, y1, err, hs == aimed, kept)
            yield from self._advance(ended)
            if self.locating:                    # (events to act on: none otherwise)
                self._act(ended)
            self._after_step()

    def _f0_with_stages(self) -> bool:
        """Whether the step's stepper takes f at its start with its first stages (Radau
        IIA, ``takes_f0``): where the step size is known (not the first step's, sized from
        it), no event is aimed at from it (not ``locating``) and the step's start is not a
        breakpoint (where f is taken just after it, ``side_of``)."""
        return (getattr(self.stepper, "takes_f0", False) and self.h is not None
                and not self.locating and not on_break(self.model.breakpoints, self.t))

    def _proposal(self, t_out: float, y: np.ndarray) -> Requests:
        """(size, long): a step cut to the next frame, function's turn or contact's reach, or
        past the frames when the steps outgrow them, within the explicit method's stability."""
        t, frame = self.t, self.frame_dt
        long = wants_long(self.dense, self.tree, self.resting, self.grow, frame, t_out - t)
        stable = self.stepper.stable if self.explicit else np.inf
        if long and self.explicit:      # within the explicit method's stability
            if self.rate_age >= self.rate_wait:
                self.rate = yield Request("rate", motion_rate, (self.sysm, t, y))
                self.rate_age = 0
                short = stable / max(self.rate, 1e-300) < LONG_STEP * frame   # (then less often)
                self.rate_wait = (min(2 * self.rate_wait, 64 * RATE_EVERY) if short
                                  else RATE_EVERY)
            long = min(self.grow, stable / max(self.rate, 1e-300)) >= LONG_STEP * frame
        bound = stable / max(self.rate, 1e-300)            # (inf: the implicit method)
        nb = next_break(self.model.breakpoints, t)    # its stages short of it (``cap``)
        self.cap = np.nextafter(nb, -np.inf) if nb < np.inf else None
        brk = min(nb, t + reach_time(
            self.sysm, self.r, self.p, self.v, self.w) if self.contacts else np.inf,
            t + turn_time(self.model, self.run),             # (limit_turns.py)
            self.touch_by if self.touch_by > t else np.inf)  # (touchdown.contact_time)
        if self.pairs is not None and not long:          # DOP853 or 5(4) for this step
            self.pairs.pick(self, min(t_out, brk) - t)
        hs = (min(self.grow, self.t_end - t, bound, brk - t) if long
              else self.control.trial(self.h, min(t_out, brk) - t))
        self.rate_age += 1
        return hs, long

    def _attempt(self, k: int, t_out: float, y: np.ndarray, f0: np.ndarray, hs: float,
                 long: bool) -> Requests:
        """The step tried until accepted (its error within the goal, or over it past an
        event: step_events ends it there): (hs, long, f0, y1, err, the control's next h).
        A step cut below SINGULAR_STEP of a frame at a singular position the motion may
        pass goes on with rows chosen anew or least-norm solves; one cut below rounding, or
        below GROWTH_STEP of a frame where a function grows without bound, fails, naming why."""
        sysm, stepper, control, cut = self.sysm, self.stepper, self.control, False
        while True:             # (cut: once to a bound passed and left inside the step)
            try:
                y1, err = yield Request("step", stepper.step,
                                        (self.t, y, f0, hs, self.norm, self.cap))
            except ExpressionError as exc:       # a load that fails inside: close in on it
                hs = before_failure(exc, self.t, hs, self.frame_dt)     # (inside.py)
                continue
            if f0 is None:                       # taken with the stages: for the next trials
                f0 = stepper.f_start
            if err <= 1.0 or (self.locating and err < np.inf and
                              crossed_at_end(sysm, self.stops, self.t, y, hs, y1)):
                again, cut = inside_step(self, k, y, y1, hs, err, cut)   # (inside.py)
                if again is None:
                    return hs, long, f0, y1, err, control.accepted(hs, err, stepper)
                hs = again
                continue
            hs = control.rejected(hs, err, stepper)
            who = (free_singular(self.model, self.st, self.r, self.p, self.t + self.frame_dt,
                                 self.run.track)
                   if asks_singular(hs, self.frame_dt) and not self.run.robust else ())
            if who:
                self._singular_position(who)
                hs, long = control.trial(self.h, t_out - self.t), False
                f0 = sysm.rhs(self.t, y)
                continue
            if gave_up(self.model, hs, self.t, self.frame_dt):
                msg, who = collapsed(sysm, self.st, self.r, self.p, self.t, hs, t_out, k,
                                     self.run.track)
                self.fail(msg, k, self.t, who)

    def _singular_position(self, who: tuple[str, ...]) -> None:
        """A singular position the motion may pass: redundant equations whose independent
        subset changed as the mechanism moved (a spatial overconstrained loop) are exact
        again with the rows independent here; else least-norm solves until it is passed
        (constraints dependent for an instant)."""
        better = rows_chosen_anew(self.model, self.st, self.r, self.p)
        if better is not None:
            self.st = better
            self.run = use_rows(self.sysm, self.st)
        else:
            self.run = self.run.solving(True)
            self.sysm.tell(self.run)
            self._passage_starts(who)

    def _singular_equations(self, k: int) -> None:
        """Singular equations inside a step: at a free singular position, least-norm solves
        from here (the step is taken again); passing one taken for the rounding's fold,
        exact solves again from where it was taken (StepActions._fold_refuted); else a
        lock-up, its joints named."""
        self.run = run = self.sysm.run     # as told when it failed (an event's part-way)
        model, t_out = self.model, float(self.times[k])
        who = () if run.robust else free_singular(model, self.st, self.r, self.p,
                                                  self.t + self.frame_dt, run.track)
        if who:                     # S not positive definite at a free singular position
            self.run = run.solving(True)
            self._rates_jump()
            self.sysm.tell(self.run)
            self._passage_starts(who)
            return
        if (not run.robust and self.h is not None and not collapsed_size(0.5 * self.h, self.t)
                and not near_singular(model, self.st, self.r, self.p)):
            # a stage on a singular pose the step's start is not near (a dead centre at an
            # output frame's time exactly): the step tried again shorter, from nearer it
            self.h = 0.5 * min(self.h, t_out - self.t)
            return
        if run.rounded:             # a fold wider than the run's tolerance: the geometry given
            self._fold_refuted()
            return
        msg, who = lock_up(self.model, self.st, self.r, self.p, self.t)
        self.fail(msg, k, self.t, who)

    def _next_size(self, hs: float, err: float, h_next: float, long: bool, aimed: bool) -> None:
        """The next step's natural size (control.next_size), kept as it was after a step
        ``aimed`` at an event (events.aim_at_event); ``grow``: the proposal past the frames."""
        if not aimed:
            self.h = next_size(self.h, hs, h_next, long, self.method == "implicit")
        self.grow = long_proposal(hs, err, self.control.expo)

    def _end_on_event(self, k: int, y: np.ndarray, f0: np.ndarray, hs: float,
                      y1: np.ndarray, err: float, aimed: bool, kept: float) -> StepEnd:
        """The step's first event (a stop, a slip reversal, a joint breaking loose, a dry
        coefficient's breakpoint), located by re-stepping or (``aimed``) its end, in the goal;
        then the size ``kept`` from before it (the trial across the event measured the kink:
        a door's slip reversals, 12% of its right-hand sides), unless cut for its error or
        on a touchdown (the faster motion that follows is what that error says)."""
        stepper, control = self.stepper, self.control
        if not self.locating:            # nothing to locate: the step as it is
            self.f_end = getattr(stepper, "k_end", None)
            return StepEnd(hs, y1, err, _NONE, _NONE, _NONE, False)
        ended = step_events(self.sysm, stepper, control, self.stops, self.t, y, f0, hs, y1,
                            err, self.norm, aimed)
        if ended.err > 1.0:              # cut to MIN_STEP, still over the goal
            self.fail(f"integration failed at t = {self.t:.6g} s: a step ending on an event "
                      f"stays over the error goal at {ended.hs:.1e} s (a discontinuity or "
                      "an extremely stiff element)", k, self.t)
        self.h = kept if ended.located and not self.contacts else self.h
        if ended.cut:                    # cut short for its error: so is the next
            self.h = min(self.h, control.accepted(ended.hs, ended.err, stepper))
        # the last stage at the new point (a located instant's: the step's that ended there)
        self.f_end = (end_rate(stepper, ended.y1) if ended.located
                      else getattr(stepper, "k_end", None))
        return ended

    def _advance(self, ended: StepEnd) -> Requests:
        """To the step's end, projected onto the constraints."""
        r1, p1, v1, w1, work1 = self.sysm.unpack(ended.y1)
        r0, p0 = self.r, self.p
        (self.r, self.p, self.v, self.w), self.run = yield Request(
            "project", self.project, (self.t + ended.hs, r1, p1, v1, w1))
        self.resting = not self.tree and bool(rests(self.model.body_length,
                                                    self.model.body_size, r0, p0,
                                                    self.r, self.p))
        self.t_last, self.t, self.work = self.t, self.t + ended.hs, work1
        if on_break(self.model.breakpoints, self.t):     # the rates after it: projected anew
            self._rates_jump()
        if self.stops is not None:        # the limits' turns at the step's end, before its event
            self.run = advanced(self.model, self.run, ended.hs, self.r, self.p, self.v, self.w,
                                self.sysm.rows_at)
            self.sysm.tell(self.run)
        self.out.steps += 1

    def project(self, t: float, r, p, v, w) -> tuple[tuple, RunState]:
        """(r, p, v, w) at t projected onto the constraints with the run state, and the run
        state with the tracked values found there (``project_run``; on copies: the step's
        end is the stepper's)."""
        return project_run(self.sysm, self.run, t, r.copy(), p.copy(), v.copy(), w.copy())

    # -- output frames ----------------------------------------------------------------------
    def frames_in_step(self, k: int) -> bool:
        """Frames k, ... inside the last (long) step from its dense output; True when the
        last of them is at rest and nothing depending on time acts (the rest held)."""
        t_out = self.times[k]
        self.buffer.flush()
        with self._named(k, t_out):
            self.stored, last = frames_inside(self.sysm, self.stepper, self.out, self.times,
                                              k, (self.t_last, self.t), self.at_start,
                                              self.progress)
            self.done = self.stored
            if (self.autonomous and self.stored < len(self.times)
                    and at_rest(self.model, *last, self.goals.rest)):
                hold_after(self.out, self.stored - 1, self.progress)   # at rest: held
                self.done = len(self.times)
                return True
        return False

    def frame(self, k: int) -> Requests:
        """Frame k at the step's end: accelerations and multipliers, energy and power,
        stored; True when at rest and nothing depending on time acts (the rest held)."""
        model, sysm, t = self.model, self.sysm, self.t
        r, p, v, w = self.r, self.p, self.v, self.w
        with self._named(k, t):   # the next step starts here: its first stage is this one
            self.y_frame = sysm.pack(r, p, v, w, self.work)
            dy, (a, lam, fe, J, f) = yield Request("frame", sysm.rhs_parts,
                                                   (side_of(model.breakpoints, t), self.y_frame))
            if self.f_end is None:
                self.f_end = dy
        if len(self.run.ts_ref):          # the springs' turns, as this frame took them
            self.run = self.run.turned(fe.ts_angle)
            sysm.tell(self.run)
        mr = sysm.mrows
        power = fe.power_nc + motion_power(lam, f, mr, model.row_motion)
        self.buffer.add(k, State(t, r, p, v, w, a[:, :3], a[:, 3:]), lam, J, self.run.track,
                        fe.potential, power, self.work, sysm.friction if sysm.dry else None,
                        None if fe.contact is None else
                        summary_rows(model.forces.contacts, fe.contact,
                                     body_arrays(model, r, p)[0]))
        report_progress(self.progress, k, len(self.times), self.out, self.buffer.flush)
        self.done = k + 1
        if (self.autonomous and k + 1 < len(self.times)
                and at_rest(model, v, w, a, self.goals.rest)):
            self.hold(k)                  # nothing will move it again
            return True
        return False

    def hold(self, k: int) -> None:
        """The frames after frame k hold its pose (at rest, nothing depending on time acting)."""
        self.buffer.flush()
        hold_after(self.out, k, self.progress)
        self.done = len(self.times)

    def finish(self) -> Result:
        """The Result, with a note of the singular positions passed."""
        self.buffer.flush()
        out = self.out
        out.method = out.method if self.pairs is None else self.pairs.method(out.method)
        if self.run.robust:                # the run ends within a passage
            self._passage_ends(rescale=False)
        if self.passed:
            (t0, who), more = self.passed[0], len(self.passed) - 1
            more = f" and {more} more" if more else ""
            motions = [n for n in who if n in self.model.motion_names]
            joints = ", ".join(n for n in who if n not in motions)
            what = (f"the dead centre of motion {', '.join(map(repr, motions))}: joints "
                    f"{joints} in line for an instant, carried through by the momentum"
                    if motions else
                    f"joints {joints} dependent for an instant, e.g. links lined up")
            out.notes.append(f"the mechanism passed a singular position at t = {t0:.6g} s"
                             f"{more} ({what}); near it the reactions of those joints "
                             + ("and the motion's effort " if motions else "")
                             + "are the least-norm ones")
        lost = passage_note(self.passage_losses, self.goals.tolerance)
        if lost is not None:
            out.notes.append(lost)
        return out


def wants_long(dense, tree, resting, grow, frame: float, remaining):
    """Would the next step run past the frames (before the explicit method's stability has
    its say)?  Steps outgrowing the frames (the proposal ``grow`` at least LONG_STEP frames
    and past the next one, ``remaining`` away) where nothing needs the steps' ends
    (``dense``) and no lined-up position is to be found (an open tree, or a closed loop
    ``resting``).  Bools and floats, or a study's variants' arrays (V,)."""
    return dense & (tree | resting) & (grow >= LONG_STEP * frame) & (grow > remaining)
