"""What happened inside a step whose ends look right, before it stands.

A step is accepted on its error at its end; these can pass unseen between its ends:
- a general motion's free b2 carried through +-90 deg (its b1 and b3 rows' singular pose,
  general_motions.past_gimbal): the step is halved towards it, and the run stops, naming
  the motion, once a step cut below SINGULAR_STEP of a frame still passes it;
- a rigid bound's coordinate carried past its bound and back (a swing turning just beyond
  a stop: both ends inside; Stops.turned_back): the step is cut once to where the gaps'
  cubic dips deepest, so that its end is past the bound and the impact is located; and
  a contact point carried into the other side and out again (``touchdown.skimmed``): the
  same, its touchdown then located.
- a curve joint's contact carried past the end of its open curve (at the step's end, or
  past it and back: where the cubic Hermite interpolant of its distances from the ends
  dips below zero, the step is cut there): the step is halved towards the end until it is
  below FAILED_STEP of a frame, and the run stops there naming the joint, the end and the
  instant (at frames only, a pin that left its slot between two frames went unseen).
And a step whose stage cannot evaluate a load's expression (log(0.5 - t) past 0.5 s) is
cut towards the time it failed at (``before_failure``), so that the run stops there with
every frame before it, not at the start of a long step.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ...base.errors import ExpressionError
from ...base.rotations import unit_quaternions
from ...kernels.constraints import row_groups
from ..checks.curve_ends import between_message, end_gaps, hermite
from ..general_motions import carried_to_gimbal, past_gimbal
from .touchdown import skimmed

SINGULAR_STEP = 0.1     # a step cut to below this share of a frame: is it a singular position?
FAILED_STEP = 1e-6      # of a frame: how close a step is cut to a load's failing time
COLLAPSED = 1e-12       # a step cut below this x max(1, |t|) s: the run cannot go on


def asks_singular(hs, frame_dt: float):
    """Is a rejected step's size ``hs`` (s; or one per variant) small enough, below
    SINGULAR_STEP of a frame, to ask whether a singular position holds the run up?"""
    return hs < SINGULAR_STEP * frame_dt


def collapsed_size(hs, t):
    """Has a rejected step from time t (s) been cut to rounding's share of t, COLLAPSED
    (the run stops and says why)?  Floats, or arrays (a study's variants)."""
    return hs < COLLAPSED * np.maximum(1.0, np.abs(t))


def inside_step(run: Any, k: int, y: np.ndarray, y1: np.ndarray, hs: float, err: float,
                cut: bool) -> tuple[float | None, bool]:
    """(None, cut) when the step (t, y) -> y1 of size hs (s) stands; else (the size to try
    it again at, whether it was cut to a bound's dip: once a step).  ``run``: the
    DynamicRun (its model, equations, stops, gimbals, time, frame spacing and ``fail``,
    which a free b2 carried to +-90 deg calls for frame k)."""
    if run.curve_ends and err <= 1.0:
        again = curve_end(run, k, y, y1, hs)
        if again is not None:
            return again, cut
    turned = run.gimbals and past_gimbal(run.model, run.gimbals, run.t + hs,
                                         run.sysm.split(y1)[1])
    back = (None if turned or cut or run.stops is None or err > 1.0
            else run.stops.turned_back(run.sysm, y, y1, hs))
    if back is None and not (turned or cut) and run.contacts and err <= 1.0:
        back = skimmed(run.sysm, y, y1, hs)
    if back is not None:
        return back * hs, True
    if not turned:
        return None, cut
    if asks_singular(hs, run.frame_dt):           # a free b2 carried to +-90 deg
        run.fail(carried_to_gimbal(run.model, turned, run.p, run.t), k, run.t, (turned,))
    return 0.5 * hs, cut                         # ... through it: cut towards it


def curve_end(run: Any, k: int, y: np.ndarray, y1: np.ndarray, hs: float) -> float | None:
    """The size (s) to try the step (t, y) -> y1 of size hs again at where it carried a
    curve contact past an end of its open curve (``run.curve_ends``, checks/curve_ends.py
    ``open_ends``): half the step where its end is past, the share where the distances'
    cubic dips deepest where it went past and back; None where it stays on.  Fails the run
    (frame k) once a step whose end is past is below FAILED_STEP of a frame."""
    last = run.curve_last             # (time, g, g') of the last step end tried: a step
    (g0, d0) = last[1:] if last is not None and last[0] == run.t else _end_gaps(run, y)
    g1, d1 = _end_gaps(run, y1)       # starts where the last accepted one ended (projected
    run.curve_last = (run.t + hs, g1, d1)         # there by the tolerance: read as it)
    tol = run.curve_end_tol
    off = g1 < -tol
    if off.any():
        if hs < FAILED_STEP * run.frame_dt:
            t = run.t + hs
            msg, name = between_message(run.curve_ends, int(np.argmax(off)), t, k, False)
            run.fail(msg, k, t, (name,))
        return 0.5 * hs
    s = np.linspace(0.0, 1.0, 33)[1:-1, None]
    cubic = hermite(g0, d0, g1, d1, hs, s)
    if not (cubic.min(axis=0) < -tol).any():
        return None
    return float(s[int(np.argmin(cubic.min(axis=1))), 0]) * hs


def _end_gaps(run: Any, y: np.ndarray):
    """(g, g') of the open curves' contacts (checks/curve_ends.py ``end_gaps``) at the
    packed state y, each contact searched from the run state's tracked values."""
    sysm = run.sysm
    r, p, vel, _ = sysm.split(y)
    groups = row_groups(run.model, np.zeros(0, dtype=int))     # the tracked rows only
    return end_gaps(run.curve_ends, *sysm.tracked_at(r, unit_quaternions(p), vel, groups))


def before_failure(exc: ExpressionError, t: float, hs: float, frame_dt: float) -> float:
    """The size (s) to try a step from t (s) of size hs again at when an expression failed
    in one of its stages: half-way to the time it failed at (``exc.time``; else half the
    step), the stages then short of it.  Raises ``exc`` once that is below FAILED_STEP of
    a frame, or when it failed at t itself: the run stops there (analyses/dynamics/
    driver.py ``_named``), its frames up to there kept."""
    at = exc.time if exc.time is not None and t < exc.time <= t + hs else t + hs
    cut = 0.5 * (at - t)
    if cut < FAILED_STEP * frame_dt or (exc.time is not None and exc.time <= t):
        raise exc
    return cut
