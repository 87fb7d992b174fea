"""The events inside an accepted step of a dynamic run: a rigid stop's bound reached, a
slipping joint's speed through zero, a sticking joint's needed force reaching its static
limit (``analyses/dynamics.py`` acts on them: impact, sticking, breaking loose).

Each kind is checked at the step's end; a crossing is located by re-stepping from the
step's start (``stops.locate``: every trial a full step of the integrator, so the state at
the event is the integrator's own, never an interpolation).  The located step is then a
step like any other, and its own error estimate must be within the goal (err <= 1): when it
is not, the step is cut as a rejected step is (``control.rejected``) and its end checked
for events again.  What happens just before an event is often the least smooth part of the
motion (a dry joint's coefficient rising from dynamic to static in the last 1e-4 s before
its slip reverses, at the default transition speed of 1e-3 rad/s), and an accepted step
that spans the event says nothing about the shorter step that ends on it: unchecked, such a
step carried an error of 6e4 times its goal into the rest of the run, whatever the
tolerance, and how large it was depended on where the output frames cut the steps.
"""
from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np

from .stops import Stops, locate
from .switching import friction_rates, hold_margin


class StepEnd(NamedTuple):
    """An accepted step: its size hs (s), its end y1 (packed state), its error norm (<= 1
    unless the step reached MIN_STEP), and the events at its end (indices): stop bounds
    ``hit``, slipping friction elements whose speed reached zero ``slid``, sticking ones
    whose needed force reached the static limit ``broke`` (at most one kind non-empty);
    ``cut``: the step was cut short of where the control put it, for its error at an
    event."""
    hs: float
    y1: np.ndarray
    err: float
    hit: np.ndarray
    slid: np.ndarray
    broke: np.ndarray
    cut: bool


MIN_STEP = 1e-12     # a step cut for its error stops being cut below this x max(1, |t|) s


def step_events(sysm, stepper, control, stops: Stops | None, t: float, y: np.ndarray,
                f0: np.ndarray, hs: float, y1: np.ndarray, err: float,
                norm: Callable) -> StepEnd:
    """The accepted step (t, y) -> y1 of size hs (error norm err <= 1) ended at its first
    event, if any, with the located step's error within the goal: a located step whose
    error exceeds it is cut (``control.rejected``) and the shorter step's end checked for
    events again, until a step's error is within the goal.  ``sysm``: the run's Equations;
    ``stepper``, ``control``, ``norm``: its integrator, step control and error norm."""
    cut = False
    while True:
        end = _first_event(sysm, stepper, stops, t, y, f0, hs, y1, err, norm)
        if end.err <= 1.0 or end.hs < MIN_STEP * max(1.0, abs(t)):
            return end._replace(cut=cut)
        hs = control.rejected(end.hs, end.err, stepper)
        y1, err = stepper.step(t, y, f0, hs, norm)
        cut = True


def _first_event(sysm, stepper, stops: Stops | None, t: float, y: np.ndarray, f0: np.ndarray,
                 hs: float, y1: np.ndarray, err: float, norm: Callable) -> StepEnd:
    """The step's first event located (stops first, then slip reversals, then breaking
    loose), or the step as it is; the returned error is the located step's own."""
    none = np.zeros(0, dtype=int)

    def restep(measure):
        """A trial step of size hh for ``locate``: ((its end, its error, the event
        function there), the event function ``measure(t_end, y_end)`` there)."""
        def trial(hh: float):
            yy, ee = stepper.step(t, y, f0, hh, norm)
            g = measure(t + hh, yy)
            return (yy, ee, g), g
        return trial

    if stops is not None:                # a stop reached within the step: its instant
        g1 = stops.gaps_at(*sysm.unpack(y1)[:2], sysm.track)
        hit = stops.crossed(g1)
        if hit.size:
            g0 = stops.gaps_at(*sysm.unpack(y)[:2], sysm.track)

            def gaps(_, yy):
                return stops.gaps_at(*sysm.unpack(yy)[:2], sysm.track)

            def along(th: float):        # the gaps on the step's dense output
                return gaps(None, stepper.dense(th))
            hs, (y1, err, g) = stops.locate(restep(gaps), g0, g1, hit, hs, along)
            return StepEnd(hs, y1, err, reached(g, hit, 0.5 * stops.tol), none, none, False)
    slip = sysm.slip
    if slip is not None and slip.free().any():   # a slipping joint's speed through zero
        vq0 = friction_rates(sysm, y) if sysm.m.frictions.is_ball.any() else None

        def event(_, yy):
            return slip.event(friction_rates(sysm, yy), vq0)
        s1 = event(None, y1)
        slid = np.flatnonzero(slip.free() & (s1 <= 0.0))
        if slid.size:
            hs, (y1, err, g) = locate(restep(event), event(None, y), s1, slid, hs)
            return StepEnd(hs, y1, err, none, reached(g, slid), none, False)
    if slip is not None and slip.stuck.any():    # a held force reaching the static limit
        def margin(tt, yy):
            return hold_margin(sysm, tt, yy)
        m1 = margin(t + hs, y1)
        broke = np.flatnonzero(m1 < 0.0)
        if broke.size:
            hs, (y1, err, g) = locate(restep(margin), margin(t, y), m1, broke, hs)
            return StepEnd(hs, y1, err, none, none, reached(g, broke), False)
    return StepEnd(hs, y1, err, none, none, none, False)


def reached(g: np.ndarray, which: np.ndarray, offset: np.ndarray | float = 0.0) -> np.ndarray:
    """The events of ``which`` that the located instant has reached: g + offset <= 0 there
    (``locate`` ends on the far side of the first).  The others crossed later in the step
    the event was found in, and are not events yet: a second dry pin reversing later in
    that step must not be held now, at a speed of 2 rad/s (its hold would take its motion
    without booking the energy: 0.08 J of 0.66 J lost in a double pendulum)."""
    off = np.broadcast_to(np.asarray(offset, dtype=float), np.shape(g))
    now = which[g[which] + off[which] <= 0.0]
    return now if now.size else which[[int(np.argmin(g[which] + off[which]))]]
