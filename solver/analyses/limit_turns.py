"""The turns of the joint angles that limits bound: run state that the analyses carry.

A joint's angle is read by atan2 in (-pi, pi]; a limit on it (vocabulary/limits.py) reads it
on the joint's continuous angle, the turn nearest the value carried from the last accepted
step or frame (RunState.limit_ref; kernels/constraints.py ``limit_offsets``).  So a wheel
pushed past its stop is pushed back however far it went, a lone stop is met only where it
is (never half a turn away, on the other side of the turn), and a range may be wider than
a turn (a handwheel's stops at -10 and +10 rad).

- The start: the angle of the pose as built, in (-pi, pi], or when that lies outside a
  range with both bounds and a whole turn of it lies inside, that turn (a range such as
  [5, 7] rad); a joint a motion drives, on the motion's value at the start time.
- A step or a frame from one instant to the next: the angle on the turn nearest the last
  one plus the change its rates give by the trapezoidal rule, so that a joint turning fast
  (more than half a turn between frames) keeps its turns.  Within a dynamic step the
  angles are read on the turn nearest the step's start (a stop's gap, its crossing, its
  force), so a step turns each such joint by at most a quarter turn (``turn_time``).
"""
from __future__ import annotations

import numpy as np

from ..kernels.constraints import body_arrays, evaluate, motion_values, row_groups, row_rates
from ..model.compile import Model
from ..model.state import RunState
from ..vocabulary.joints import ANGLE


def limit_coordinates(model: Model, r: np.ndarray, p: np.ndarray, v: np.ndarray,
                      w: np.ndarray, track: np.ndarray | None = None, rows=None
                      ) -> tuple[np.ndarray, np.ndarray]:
    """(q, q') (nbound,): each limit's coordinate (an angle as atan2 gives it, in (-pi, pi],
    rad; a slide in m) and its rate (rad/s or m/s) at the state (r, p, v, w).  ``rows``:
    a dynamic run's Equations.rows_at (its pose memo, on ``track``), or None."""
    lm = model.limits
    rg, A, vg, wg = body_arrays(model, r, p, v, w)
    groups = row_groups(model, lm.rows)
    ev = evaluate(model, rg, A, ref=track, groups=groups) if rows is None else rows(rg, A, groups)
    rate = row_rates(model, lm.rows, ev.jac, np.concatenate([vg, wg], axis=-1))
    return ev.phi[..., lm.rows], rate


def on_turn(model: Model, raw: np.ndarray, near: np.ndarray) -> np.ndarray:
    """(nbound,) the coordinates ``raw`` with each angle moved by whole turns to the turn
    nearest ``near`` (rad); slides as they are."""
    angle = model.row_kind[model.limits.rows] == ANGLE
    return np.where(angle, raw + 2.0 * np.pi * np.round((near - raw) / (2.0 * np.pi)), raw)


def start_turns(model: Model, t: float, raw: np.ndarray) -> np.ndarray:
    """(nbound,) each limit's coordinate at the start: an angle ``raw`` (in (-pi, pi]) on the
    turn the module docstring gives (a driven joint's motion value at t, else the pose's
    own turn or the one inside a range with both bounds)."""
    lm = model.limits
    lower, upper = _range(model)
    inside = (raw >= lower) & (raw <= upper)
    two_pi = 2.0 * np.pi
    up = raw + two_pi * np.ceil((lower - raw) / two_pi)      # the first turn above lower
    down = raw - two_pi * np.ceil((raw - upper) / two_pi)    # the first turn below upper
    moved = np.where(raw < lower, up, down)
    both = np.isfinite(lower) & np.isfinite(upper)      # (a lone bound: the pose's turn)
    q = np.where(inside | ~both | (moved < lower) | (moved > upper), raw, moved)
    driven = lm.motion >= 0
    if driven.any():
        f = motion_values(model, float(t))[np.maximum(lm.motion, 0), 0]
        q = np.where(driven, on_turn(model, raw, f), q)
    return on_turn(model, raw, q)


def _range(model: Model) -> tuple[np.ndarray, np.ndarray]:
    """(lower, upper) (nbound,): each bound's limit's range (-inf, +inf where not given)."""
    lm = model.limits
    value = np.asarray(lm.value).reshape(-1, len(lm.names))[0]   # (a stacked plan's first)
    lower = np.full(len(lm.names), -np.inf)
    upper = np.full(len(lm.names), np.inf)
    names = np.array(lm.names)
    for b, name in enumerate(lm.names):          # (a limit's one or two bounds)
        for c in np.flatnonzero(names == name):
            (lower if lm.bounds[c] == "lower" else upper)[b] = value[c]
    return lower, upper


def started(model: Model, run: RunState, t: float, r, p, v, w) -> RunState:
    """The run state ``run`` with the limits' coordinates at the start (``start_turns``) and
    their rates; ``run`` itself without limits."""
    if model.limits is None:
        return run
    raw, rate = limit_coordinates(model, r, p, v, w, run.track)
    return run.limits_at(start_turns(model, t, raw), rate)


def advanced(model: Model, run: RunState, h: float, r, p, v, w, rows=None) -> RunState:
    """The run state ``run`` with the limits' coordinates after a step or frame of h s to
    (r, p, v, w): each angle on the turn nearest the last one plus h times the mean of its
    rates at both ends (the trapezoidal rule); ``rows``: as limit_coordinates'."""
    raw, rate = limit_coordinates(model, r, p, v, w, run.track, rows)
    guess = run.limit_ref + 0.5 * h * (run.limit_rate + rate)
    return run.limits_at(on_turn(model, raw, guess), rate)


def pose_turns(model: Model, r: np.ndarray, p: np.ndarray, t: float,
               track: np.ndarray | None = None) -> np.ndarray | None:
    """(nbound,) each limit's coordinate at a start pose (r, p) at time t (``start_turns``);
    None without limits."""
    if model.limits is None:
        return None
    phi = evaluate(model, *body_arrays(model, r, p)[:2], need_jac=False, ref=track).phi
    return start_turns(model, t, phi[model.limits.rows])


def frames_on_turns(model: Model, last: np.ndarray, dt: np.ndarray, raw: np.ndarray,
                    rate: np.ndarray) -> np.ndarray:
    """(..., F, nbound) the coordinates of F frames in turn (raw (..., F, nbound) as atan2
    gives an angle, rates (..., F, nbound)), each angle on the turn nearest the one before
    plus the change its rates give by the trapezoidal rule over dt (F,) s; ``last``
    (..., 2, nbound): the coordinate and its rate at the frame before the first (dt[0]
    before it).  As np.unwrap with the rates' change in place of none: each frame's turn
    from its own step, so that no error adds up over the frames."""
    angle = model.row_kind[model.limits.rows] == ANGLE
    x = np.concatenate([last[..., :1, :], raw], axis=-2)
    qd = np.concatenate([last[..., 1:, :], rate], axis=-2)
    change = 0.5 * dt[:, None] * (qd[..., :-1, :] + qd[..., 1:, :])
    turns = np.round((change - np.diff(x, axis=-2)) / (2.0 * np.pi))
    return raw + 2.0 * np.pi * np.where(angle, np.cumsum(turns, axis=-2), 0.0)


def turn_time(model: Model, run: RunState) -> float:
    """The longest step (s) in which no angle a limit bounds turns more than a quarter turn
    at its rate at the last step end: a step's end is read on the turn nearest its start
    (a stop's gap, its crossing, its force), so a step must turn each such joint by less
    than half a turn (a wheel at 100 rad/s between frames at 24 fps turns 4.2 rad a frame);
    inf without limits or while they stand still."""
    if run.limit_rate is None:
        return np.inf
    angle = model.row_kind[model.limits.rows] == ANGLE
    fastest = float(np.max(np.abs(run.limit_rate[angle]), initial=0.0))
    return 0.5 * np.pi / fastest if fastest > 0.0 else np.inf
