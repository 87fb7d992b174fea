"""The events inside an accepted step of a dynamic run: a rigid stop's bound reached, a
slipping joint's speed through zero, a sticking joint's needed force reaching its static
limit (``analyses/dynamics/driver.py`` acts on them: impact, sticking, breaking loose), and a
slipping dry joint's speed through its coefficient's breakpoints and a resting stop's push
through zero (where a step only ends: the run lets that stop go at the step's end);
and the record of friction's events in the Result (``record_friction``).

Each kind is checked at the step's end; a crossing is located by re-stepping from the
step's start (``stops.locate``: every trial a full step of the integrator, so the state at
the event is the integrator's own, never an interpolation; each trial's end also gives
Newton's next instant, the event function's rate there by one right-hand side, and a
trial just past the root by its own tangent ends the search; a breakpoint of mu's first
trial placed by a Runge-Kutta probe, ``_probed``, and a step whose start's tangent puts
one, or a slip reversal, inside it aimed just past it, ``aim_at_event``, its own end then
the located step, no trial at all).  The located step is then a
step like any other, and its own error estimate must be within the goal (err <= 1): when it
is not, the step is cut as a rejected step is (``control.rejected``) and its end checked
for events again.  What happens just before an event is often the least smooth part of the
motion (a dry joint's coefficient rising from dynamic to static in the last 1e-4 s before
its slip reverses, at the default transition speed of 1e-3 rad/s), and an accepted step
that spans the event says nothing about the shorter step that ends on it: unchecked, such a
step can carry an error of 6e4 times its goal into the rest of the run, whatever the
tolerance, its size set by where the output frames cut the steps.
"""
from __future__ import annotations

from typing import Any, Callable, NamedTuple

import numpy as np

from ...base.errors import FrictionJam
from ...integrators.explicit import end_rate
from .friction import event, free, magnitudes
from .stops import EVENT_TIME, Stops, locate
from .switching import friction_rates, hold_margin, stop_push
from .touchdown import touchdown_event


class StepEnd(NamedTuple):
    """An accepted step: its size hs (s), its end y1 (packed state), its error norm (<= 1
    unless the step was cut below MIN_STEP: the run stops there), and the events at its
    end (indices): stop bounds ``hit``, slipping friction elements whose speed reached
    zero ``slid``, sticking ones whose needed force reached the static limit ``broke`` (at
    most one kind non-empty);
    ``cut``: the step was cut short of where the control put it, for its error at an
    event; ``located``: its end is a located instant (the stepper's last stage is then
    a trial's, not this step's)."""
    hs: float
    y1: np.ndarray
    err: float
    hit: np.ndarray
    slid: np.ndarray
    broke: np.ndarray
    cut: bool
    located: bool = False


# s: a breakpoint of mu located to this.  Past it, mu is only once differentiable, the
# motion's fourth derivative jumps, and a step that crosses it by this much carries an error
# of order 1e-28 times that jump (the door's answers as located to EVENT_TIME to 1e-13; to
# 1e-5 s, 1e-9 rad off).  Where the joint reverses or a stop strikes, the state there is
# acted on: those instants stay located to EVENT_TIME.
KINK_TIME = 1e-7
MIN_STEP = 1e-12     # a step cut for its error stops being cut below this x max(1, |t|) s


def step_events(sysm, stepper, control, stops: Stops | None, t: float, y: np.ndarray,
                f0: np.ndarray, hs: float, y1: np.ndarray, err: float,
                norm: Callable, aimed: bool = False) -> StepEnd:
    """The accepted step (t, y) -> y1 of size hs (error norm err <= 1) ended at its first
    event, if any, with the located step's error within the goal: a located step whose
    error exceeds it is cut (``control.rejected``) and the shorter step's end checked for
    events again, until a step's error is within the goal.  ``sysm``: the run's Equations;
    ``stepper``, ``control``, ``norm``: its integrator, step control and error norm;
    ``aimed``: the step was aimed at a breakpoint of mu or a slip reversal
    (``aim_at_event``)."""
    cut = False
    while True:
        end = _first_event(sysm, stepper, stops, t, y, f0, hs, y1, err, norm, aimed)
        aimed = False
        if end.err <= 1.0 or end.hs < MIN_STEP * max(1.0, abs(t)):
            return end._replace(cut=cut)
        hs = control.rejected(end.hs, end.err, stepper)
        y1, err = stepper.step(t, y, f0, hs, norm)
        cut = True


def crossed_at_end(sysm, stops: Stops | None, t: float, y: np.ndarray, hs: float,
                   y1: np.ndarray) -> bool:
    """Whether the step (t, y) -> y1 of size hs ends past an event of any kind (a stop's
    bound, a slip reversal, a breakpoint of mu, a hold's margin, a resting stop's push).
    A step that fails its error goal for an event inside it (a dry joint's kinks: errors of
    2 to 600 times the goal at 24 fps, the step then cut six or seven times over) is
    better ended on the event (``step_events``: the located step is held to the goal
    like any other, and cut when it misses it)."""
    run = sysm.run
    if stops is not None and stops.crossed(stops.at_state(sysm, y1, run.track)[0],
                                           run.resting).size:
        return True
    kinds = _friction_events(sysm, t, y) if run.slip is not None else []
    if stops is not None and run.resting.any():
        kinds.append((None, *_release_event(sysm, stops, t, y)))
    if run.onset is not None:            # a contact point touching down (touchdown.py)
        kinds.append((None, *touchdown_event(sysm, t, y)))
    return any(armed.any() and bool((armed & (measure(t + hs, y1) <= 0.0)).any())
               for _, measure, armed, _ in kinds)


def _first_event(sysm, stepper, stops: Stops | None, t: float, y: np.ndarray, f0: np.ndarray,
                 hs: float, y1: np.ndarray, err: float, norm: Callable,
                 aimed: bool = False) -> StepEnd:
    """The step's first event located, or the step as it is; the returned error is the
    located step's own.  The kinds (stops, the coefficient's breakpoints, slip reversals,
    breaking loose, a resting stop's push, a touchdown) crossed at the step's end are
    located in the order their crossings come on the straight line between the step's
    ends (``_by_first_crossing``), each checked at the end of the step as the kinds before
    left it: the step ends on the earliest event, and only that kind's events are acted on
    (a later kind's location drops an earlier kind's, now ahead).  Locating the earliest
    first spares the trials that place a later one (a door's stop, 15 ms ahead, located
    to 1e-10 s before the slip reversal 1 ms into the step: 300 of its 2,000 right-hand
    sides).  A step ``aimed`` at a breakpoint of mu that ends on it first is located there
    by its own end when that end's tangent puts it within KINK_TIME past it."""
    none = np.zeros(0, dtype=int)
    found = [none, none, none]        # hit, slid, broke
    located = False

    def restep(measure):
        """A trial step of size hh for ``locate``: ((its end, its error, the event
        function there, hh), the event function ``measure(t_end, y_end)`` there)."""
        def trial(hh: float):
            yy, ee = stepper.step(t, y, f0, hh, norm)
            g = measure(t + hh, yy)
            return (yy, ee, g, hh), g
        return trial

    kinds = _event_kinds(sysm, stops, t, y)
    kink = kinds[1].measure if kinds[1] is not None else None     # the breakpoints of mu
    end = y1
    for kind, g_end in _by_first_crossing(kinds, t, hs, y1, stepper.dense):
        slot, measure, _, at_start, crossing = kind
        g1 = g_end if y1 is end else measure(t + hs, y1)
        which = crossing(g1)
        if not which.size:
            continue
        if slot == 0:                    # a stop reached within the step: its instant
            hs, (y1, err, g, _) = stops.locate(
                restep(measure), at_start, g1, which, hs,
                lambda th: measure(None, stepper.dense(th)), _tangent(sysm, t, measure, stepper))
            # the bounds in contact there, to their gap tolerance, take the impact together
            found, located = [reached(g, which, -stops.tol), none, none], True
            continue
        guess = _tangent_guess(measure, t, y, f0, at_start, which, hs)
        own = (y1, err, g1, hs) if aimed and measure is _aimed(sysm) and y1 is end else None
        if measure is kink and guess is not None and own is None:
            guess = _probed(sysm.rhs, t, y, f0, guess, measure, which, _tangent(sysm, t, measure),
                            KINK_TIME)
        hs, (y1, err, g, _) = locate(restep(measure), at_start, g1, which, hs, guess=guess,
                                     width=KINK_TIME if measure is kink else EVENT_TIME,
                                     tangent=_tangent(sysm, t, measure, stepper), end=own)
        found, located = [none, none, none], True
        if slot is not None:
            found[slot] = reached(g, which)
    return StepEnd(hs, y1, err, *found, False, located)


def _tangent(sysm, t: float, measure: Callable, stepper=None) -> Callable:
    """For ``locate``: where the tangents at a trial's end (data: (its end, its error, g
    there, its size hh from t)) put the first instant one of ``which`` reaches zero,
    g + offset (Newton's step for each, g' by a difference along f there: one right-hand
    side, a twelfth of a trial, none when the end is the ``stepper``'s last and its last
    stage is f there, 5(4)'s ``end_rate``), or None when one that is past zero there does
    not fall (its crossing is then bracketed only).  The difference moves the state by
    1e-8 of its largest entry (rounding leaves about 1e-8 of g' whatever the step's size)."""
    def newton(data, which: np.ndarray, offset: np.ndarray) -> float | None:
        yy, _, g, hh = data
        f = end_rate(stepper, yy)
        f = sysm.rhs(t + hh, yy) if f is None else f
        speed = float(np.abs(f[:-1]).max())          # (the work, last, left out)
        if not 0.0 < speed < np.inf:
            return None
        d = 1e-8 * max(1.0, float(np.abs(yy[:-1]).max())) / speed
        left = g[which] + offset[which]
        rate = (measure(t + hh + d, yy + d * f)[which] - g[which]) / d
        falls = (rate < 0.0) & np.isfinite(rate)
        if not np.all(falls | (left > 0.0)) or not falls.any():
            return None
        return hh + float(np.min(-left[falls] / rate[falls]))
    return newton


class _Kind(NamedTuple):
    """One kind of event: what it is (0 a stop struck, 1 slid, 2 broke, None: the step
    only ends there, a breakpoint of mu or a stop let go), its event function (t, y) -> g,
    which entries are armed, g at the step's start, and which entries an end's g has
    crossed (indices)."""
    slot: int | None
    measure: Callable
    armed: np.ndarray
    at_start: np.ndarray
    crossing: Callable


def _event_kinds(sysm, stops: Stops | None, t: float, y: np.ndarray) -> list[_Kind]:
    """The kinds of event a step from (t, y) can meet, stops first, then friction's
    breakpoints of mu (always second, a placeholder when there is no friction), slip
    reversals and breaking loose, a resting stop's push, a touchdown."""
    kinds = [_Kind(0, *_stop_event(sysm, stops, t, y))] if stops is not None else [None]
    friction = _friction_events(sysm, t, y) if sysm.run.slip is not None else [None]
    extra = []
    if stops is not None and sysm.run.resting.any():
        extra.append((None, *_release_event(sysm, stops, t, y)))
    if sysm.run.onset is not None:       # a contact point touching down (touchdown.py)
        extra.append((None, *touchdown_event(sysm, t, y)))
    for k in friction + extra:
        if k is not None:
            slot, measure, armed, at_start = k
            kinds.append(_Kind(slot, measure, armed, at_start, _armed_below_zero(armed)))
        else:
            kinds.append(None)
    return kinds


def _armed_below_zero(armed: np.ndarray) -> Callable:
    return lambda g: (armed & (g <= 0.0)).nonzero()[0]


def _stop_event(sysm, stops: Stops, t: float, y: np.ndarray):
    """(event function, armed, its value at the step's start, crossing) of the rigid
    stops: their gaps, crossed below their tolerance (``Stops.crossed``) while not resting
    (the equations' told RunState.resting, as it is at the step's start)."""
    run = sysm.run

    def gaps(_, yy):
        return stops.at_state(sysm, yy, run.track)[0]

    def crossing(g):
        return stops.crossed(g, run.resting)
    return gaps, np.ones(len(stops.tol), dtype=bool), gaps(None, y), crossing


ORDER_SAMPLES = 8      # points of a step's dense output that order its kinds of event
TIE_SPLITS = 10        # bisections of the dense output that order kinds tied at a point


def _by_first_crossing(kinds: list, t: float, hs: float, y1: np.ndarray,
                       dense: Callable) -> list[tuple[_Kind, np.ndarray]]:
    """The armed kinds with g at the step's end y1, in the order to locate them: when more
    than one kind is crossed there, those first in the order of the first of
    ORDER_SAMPLES points of the step's dense output ``dense(theta)`` where they are
    crossed (a straight line between the ends would not do: a stop just left is crossed
    again at the step's end from a gap of nearly zero), kinds first crossed at the same
    point by where bisection on the dense output (TIE_SPLITS halvings of the interval
    before that point) puts their crossings (a door's slip reversal 1.0 ms and its stop 3.7
    ms into a step of 33 ms, both before its first point: the stop taken first cost four
    trials that the reversal then dropped), remaining ties and the rest in the kinds' own
    order.  Only an order: each is still checked at the step's end as the kinds located
    before it left it."""
    ends = [(k, k.measure(t + hs, y1)) for k in kinds if k is not None and k.armed.any()]
    crossed = [bool(k.crossing(g1).size) for k, g1 in ends]
    if sum(crossed) < 2:
        return ends
    thetas = np.arange(1, ORDER_SAMPLES + 1) / ORDER_SAMPLES
    states = dense(thetas)

    def first(k: _Kind) -> float:
        return next((th for th, yy in zip(thetas, states)
                     if k.crossing(k.measure(t + th * hs, yy)).size), 1.0)

    def refined(k: _Kind, th: float) -> float:
        lo, hi = th - 1.0 / ORDER_SAMPLES, th         # not crossed at lo, crossed at hi
        for _ in range(TIE_SPLITS):
            mid = 0.5 * (lo + hi)
            if k.crossing(k.measure(t + mid * hs, dense(mid))).size:
                hi = mid
            else:
                lo = mid
        return hi
    firsts = [first(k) if c else np.inf for (k, _), c in zip(ends, crossed)]
    keys = [refined(k, f) if f < np.inf and firsts.count(f) > 1 else f
            for (k, _), f in zip(ends, firsts)]
    return [ends[i] for _, i in sorted((key, i) for i, key in enumerate(keys))]


def _tangent_guess(measure, t: float, y: np.ndarray, f0: np.ndarray, g0: np.ndarray,
                   which: np.ndarray, hs: float, ahead: tuple | None = None) -> float | None:
    """Where the tangent at the step's start puts the first zero of ``which``'s event
    functions (Newton's step from the start: g0 / -g'(0), g'(0) by a difference along
    the start's derivative f0, no right-hand side), or None outside (0, hs).  A step that
    crossed a kink of mu before the event is far from linear over its length; its start
    is smooth.  ``ahead``: that state along f0, (t + d, y + d f0), made once for the
    tangents of several event functions of one state (friction's: one evaluation)."""
    d = 1e-6 * hs
    tt, yd = _ahead(t, y, f0, hs) if ahead is None else ahead
    rate = (measure(tt, yd)[which] - g0[which]) / d
    ahead = np.where(rate < 0.0, -g0[which] / np.where(rate < 0.0, rate, -1.0), np.inf)
    c = float(np.min(ahead))
    return c if 0.0 < c < hs else None


def _ahead(t: float, y: np.ndarray, f0: np.ndarray, hs: float) -> tuple[float, np.ndarray]:
    """The state a millionth of the step hs along f0 from (t, y): _tangent_guess's
    difference, made once where several event functions take their tangents."""
    d = 1e-6 * hs
    return t + d, y + d * f0


def aim_at_event(sysm, t: float, y: np.ndarray, f0: np.ndarray, hs: float) -> float | None:
    """A step from (t, y) (f0 = f(t, y)) shorter than the proposed hs that ends a tenth of
    the event's width (KINK_TIME, EVENT_TIME) past the first breakpoint of mu or slip
    reversal the step would cross, where the start's tangent and a Runge-Kutta probe put
    it (``_probed``: four right-hand sides); None when the tangent puts neither inside the
    step.  A step that ends there is located by its own end (``step_events``' ``aimed``;
    the event function aimed at is kept with the start's events, ``_aimed``): near a slip
    reversal the breakpoints and the reversal come within a few milliseconds of each other
    (the door's v_s and 1.5 v_s 0.4 ms apart, the reversal 0.8 ms after v_s), and a step of
    the proposed size past each, then trials back to it, cost eight to twelve right-hand
    sides more than the probe.  Below the transition speed the motion is smooth (mu_s
    throughout), so the probe's reversal agrees with the aimed step's to far below
    EVENT_TIME."""
    if sysm.run.slip is None:
        return None
    kinds = _friction_events(sysm, t, y)
    first = None                        # (the tangent's guess, kind, armed entries, width)
    ahead = _ahead(t, y, f0, hs)          # (one state for both kinds' tangents)
    for (_, measure, armed, at_start), width in zip(kinds[:2], (KINK_TIME, EVENT_TIME)):
        which = armed.nonzero()[0]
        guess = (_tangent_guess(measure, t, y, f0, at_start, which, hs, ahead)
                 if which.size else None)
        if guess is not None and (first is None or guess < first[0]):
            first = (guess, measure, which, width)
    if first is None:
        return None
    guess, measure, which, width = first
    try:
        c = _probed(sysm.rhs, t, y, f0, guess, measure, which, _tangent(sysm, t, measure),
                    width)
    except (np.linalg.LinAlgError, FrictionJam):   # a probe's stage off the motion: the
        return None                                # step as proposed says what is there
    sysm.events_memo = sysm.events_memo._replace(aimed=measure)
    return c if 0.0 < c < hs else None


def _probed(rhs: Callable, t: float, y: np.ndarray, f0: np.ndarray, c: float,
            measure: Callable, which: np.ndarray, newton: Callable, width: float) -> float:
    """A better first trial than the tangent's guess c (s from t) for a breakpoint of mu:
    the state at t + c by one step of the classical Runge-Kutta method (Hairer-Norsett-
    Wanner II.1, its 4-stage order-4 table: three right-hand sides, f0 the first stage),
    and Newton's step from there (``newton``: one right-hand side for the event function's
    rate) and a tenth of the ``width`` past it (the trial then ends on the far side, as
    ``locate`` needs, and its own tangent ends the search), or c when Newton has none.
    Only a guess (the located state is still a full
    trial step of the run's integrator): inside the coefficient's cubic step the speed's
    curvature puts the start's tangent some 1e-5 s off (two trial steps an event), while
    four right-hand sides put this within KINK_TIME (one)."""
    k2 = rhs(t + 0.5 * c, y + 0.5 * c * f0)
    k3 = rhs(t + 0.5 * c, y + 0.5 * c * k2)
    k4 = rhs(t + c, y + c * k3)
    yc = y + (c / 6.0) * (f0 + 2.0 * (k2 + k3) + k4)
    root = newton((yc, None, measure(t + c, yc), c), which, np.zeros(len(measure(t + c, yc))))
    return c if root is None else root + 0.1 * width


def _release_event(sysm, stops: Stops, t: float, y: np.ndarray):
    """(event function, armed, its value at the step's start) of a resting stop letting go:
    its push (``stop_push``) through zero, armed for the stops that push at the step's start.
    The step ends at the instant; the run lets the stop go there (``released``), so a
    coordinate the load turns away leaves its stop then, not at the step's end (a plastic
    impact's pendulum held to the next frame: 0.07 rad off at 1 s at 24 fps).  A stop that
    pulls from the step's start already is let go at its end."""
    def push(tt, yy):
        return stop_push(sysm, stops, tt, yy)
    start = push(t, y)
    return push, sysm.run.resting & (start > 0.0), start


def _friction_events(sysm, t: float, y: np.ndarray):
    """[(what its event is: 1 slid, 2 broke, None a breakpoint; event function (t, y) -> g,
    which of its entries are armed, g at (t, y))] of friction, in the order they are
    located: a slipping element's speed through its coefficient's breakpoints v_s and
    1.5 v_s, where mu(|q'|) is only once differentiable (coefficient's cubic step; no
    breakpoint when mu_s = mu_d), a slipping element's q' . d through zero (friction.py ``event``),
    and a stuck one's hold margin through zero (hold_margin: a right-hand side, taken only
    while some element sticks).  A step across a breakpoint has an error its embedded
    estimate does not see (both solutions of the pair miss the kink alike): a dry slide's
    reversal 1e-7 s early at tolerance 1e-9, its position 4e-8 m off; ending the steps
    there leaves each step smooth.  A joint slowing to its reversal
    passes both breakpoints first, so they are located first, the reversal then checked at
    the earlier end (no trial steps through the kinks to locate a reversal that a breakpoint
    overtakes); and a coordinate's speed is signed, q' . d (a ball's is |q'|), so that a
    step past the reversal, back above 1.5 v_s the other way, still shows the crossing.
    Made once for a step's start (the same y, t and run state: ``aim_at_event``, then
    ``step_events``), kept in the equations' ``events_memo`` (with the event function a
    step from there was aimed at, when it was)."""
    memo = sysm.events_memo               # made already at this start (aim_at_event)
    if memo is not None and memo.y is y and memo.t == t and memo.run is sysm.run:
        return memo.kinds
    m, slip = sysm.m, sysm.run.slip       # as told at the step's start
    fp = m.frictions
    loose = free(m, slip, sysm.frozen)
    vq0 = friction_rates(sysm, y)
    balls = vq0 if fp.is_ball.any() else None
    last: list = [y, vq0]                 # the last state's rates: (state, rates)

    def rates_at(yy):
        if last[0] is not yy:
            last[:] = yy, friction_rates(sysm, yy)
        return last[1]

    def reversal(_, yy):
        return event(m, slip, rates_at(yy), balls)

    def margin(tt, yy):
        return hold_margin(sysm, tt, yy)

    def speed(vq):                        # along the slip for a coordinate, |q'| for a ball
        return np.where(fp.is_ball, magnitudes(m, vq), event(m, slip, vq, None))

    breaks = np.concatenate([fp.speed, 1.5 * fp.speed])
    side = np.sign(np.tile(speed(vq0), 2) - breaks)

    def breakpoint(_, yy):
        return side * (np.tile(speed(rates_at(yy)), 2) - breaks)
    kinked = np.tile(loose & (fp.static != fp.dynamic), 2) & (side != 0.0)
    kinds = [(None, breakpoint, kinked, breakpoint(t, y)),
             (1, reversal, loose, reversal(t, y)),
             (2, margin, slip.stuck.copy(),
              margin(t, y) if slip.stuck.any() else np.full(len(fp.names), np.inf))]
    sysm.events_memo = StartEvents(y, t, sysm.run, kinds)
    return kinds


class StartEvents(NamedTuple):
    """Friction's event functions made at a step's start (``_friction_events``: the state
    y, time t and run state they were made at, and the kinds), and the one a step from
    there was aimed at (``aim_at_event``), if any."""
    y: np.ndarray
    t: float
    run: Any
    kinds: list
    aimed: Callable | None = None


def _aimed(sysm) -> Callable | None:
    """The event function a step from the events' start was aimed at (aim_at_event)."""
    memo = sysm.events_memo
    return None if memo is None else memo.aimed


def reached(g: np.ndarray, which: np.ndarray, offset: np.ndarray | float = 0.0) -> np.ndarray:
    """The events of ``which`` that the located instant has reached: g + offset <= 0 there
    (``locate`` ends on the far side of the first).  The others crossed later in the step
    the event was found in, and are not events yet: a second dry pin reversing later in
    that step must not be held now, still turning at 0.37 rad/s (its hold would take its
    motion without booking the energy: 0.024 J of 0.33 J lost in a double pendulum).  A
    stop's offset is minus its gap tolerance: bounds within it of contact at the instant
    close together and take one impact (Newton's law through all their rows; taken one by
    one, two stops meeting at once ring against each other: 105 impacts instead of 40 in
    0.5 s of a three-link chain)."""
    off = np.broadcast_to(np.asarray(offset, dtype=float), np.shape(g))
    now = which[g[which] + off[which] <= 0.0]
    return now if now.size else which[[int(np.argmin(g[which] + off[which]))]]


def record_friction(out, t: float, held: np.ndarray, names, slip, slid=()) -> None:
    """Append to ``out.friction_events`` (Result) what changed at t for each friction
    element (``names``, the model's): held now (``slip``, a SlipState) and not before
    ``held`` (SlipState.stuck as it was): "stick"; held before
    and not now: "slip"; an element of ``slid`` (its speed reached zero at t) slipping on:
    "reverse".  Events are few: one loop over the elements that changed."""
    now = slip.stuck
    if now is held and not len(slid):      # (most steps: nothing changed)
        return
    back = np.zeros_like(now)
    back[np.asarray(slid, dtype=int)] = True
    for kind, which in (("stick", now & ~held), ("slip", held & ~now),
                        ("reverse", back & ~now & ~held)):
        out.friction_events.extend((t, names[k], kind) for k in np.flatnonzero(which))
