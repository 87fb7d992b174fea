"""Stops while posing by hand (posing/drag.py): the joints' limits (vocabulary/limits.py)
as inequalities gap_k(q) = sgn_k (q_k - bound_k) >= 0, one per bound, with an active set.

A bound is inactive (free) until a step would carry its coordinate past it; the step is
then cut where the linearised gap reaches zero (``blocking``) and the bound is held as one
more row at its value (its limit row of the Model: LimitPlan), so the other joints follow
while it stays at the stop.  It is let go when the pull (a drag) or the set coordinate (a
slider) would move the coordinate back into its range.  Posing by hand applies no loads,
so a compliant stop is held at its bound like a rigid one.

Posing reads an angle on the joint's continuous turns, followed from pose to pose
(drag.py, analyses/limit_turns.py), so a range may be wider than a turn.  A slider sets a
value within a turn about the middle of a range with both bounds narrower than a turn; on
the open side of a lone bound and across a wider range, as it is (``allowed``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...model.compile import Model
from ...vocabulary.joints import ANGLE
from ..dynamics.stops import tolerance


@dataclass(frozen=True)
class Bounds:
    """Every bound of the Model's limits (nbound,): its limit row, side and value."""
    rows: np.ndarray            # model row (the coordinate's angle or slide)
    sgn: np.ndarray             # +1 a lower bound, -1 an upper
    value: np.ndarray           # rad or m
    mid: np.ndarray             # an angle's turn is taken nearest this (rad); slides: 0
    angle: np.ndarray           # True for an angle
    tol: np.ndarray             # a gap below -tol is past the bound
    names: tuple[str, ...]      # the limit of each bound
    joints: tuple[str, ...]
    sides: tuple[str, ...]      # "lower" | "upper"


def bounds_of(model: Model) -> Bounds | None:
    """The Model's bounds, or None when it has no limits."""
    lm = model.limits
    if lm is None:
        return None
    angle = model.row_kind[lm.rows] == ANGLE
    return Bounds(lm.rows, lm.sgn, lm.value, np.where(angle, lm.centre, 0.0), angle,
                  tolerance(model), lm.names, lm.joints, lm.bounds)


def gaps(bd: Bounds, phi: np.ndarray, turns: np.ndarray | None = None) -> np.ndarray:
    """(nbound,) sgn (q - bound) from the rows' phi (nc,): rad or m, >= 0 inside; an angle
    on the turn nearest ``turns`` (nbound,) (the joint's continuous angle: analyses/
    limit_turns.py), or without them nearest ``mid``."""
    q = phi[bd.rows]
    near = bd.mid if turns is None else turns
    q = np.where(bd.angle, q + 2.0 * np.pi * np.round((near - q) / (2.0 * np.pi)), q)
    return bd.sgn * (q - bd.value)


def blocking(gap: np.ndarray, rate: np.ndarray, free: np.ndarray,
             alpha: float) -> tuple[float, int]:
    """The largest share (<= alpha) of a step along which no free bound is passed, the
    gaps changing at ``rate`` per unit share (linearised), and the bound that stops it
    (-1: none)."""
    hit = free & (rate < 0.0)
    if not hit.any():
        return alpha, -1
    share = np.where(hit, np.maximum(gap, 0.0) / np.where(hit, -rate, 1.0), np.inf)
    j = int(np.argmin(share))
    return (float(share[j]), j) if share[j] < alpha else (alpha, -1)


def allowed(lower: float | None, upper: float | None, angle: bool) -> tuple[float, float]:
    """The interval a coordinate with these bounds may take (rad or m), as ``gaps`` counts
    it on the joint's continuous turns: a lone bound leaves the other side open (a wheel
    turning away from its one stop spins on, as in dynamics)."""
    return (-np.inf if lower is None else lower), (np.inf if upper is None else upper)


@dataclass(frozen=True)
class HeldStop:
    """A stop that holds the pose: its limit, joint, side ("lower" | "upper") and bound
    (rad or m)."""
    limit: str
    joint: str
    side: str
    value: float
    angle: bool

    def __str__(self) -> str:
        unit = "rad" if self.angle else "m"
        return f"joint {self.joint!r} at its {self.side} stop {self.value:.6g} {unit} (limit {self.limit!r})"


def held_stop(bd: Bounds, j: int) -> HeldStop:
    return HeldStop(bd.names[j], bd.joints[j], bd.sides[j], float(bd.value[j]), bool(bd.angle[j]))


def describe(bd: Bounds, j: int) -> str:
    """'joint 'pin' at its upper stop 0.5 rad (limit 'stop')'."""
    return str(held_stop(bd, j))
