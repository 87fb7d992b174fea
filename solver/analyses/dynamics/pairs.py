"""Dormand-Prince 5(4) for the steps that the frames cut.

A run that ends its steps on the frames (events located by re-stepping, tracked values,
contacts: no steps past the frames) takes, at the default and tighter tolerances, DOP853's
twelve right-hand sides a step even where its natural step is several frames long, its
error there thousands of times under the goal (the door_stop door: 1e-9 to 1e-7 of it).
Where DOP853's natural step is at least CUT times the step to the frame, even for an
error goal LONG_ERR times the step's (the run's ``grow``, control.long_proposal), the step
is taken by Dormand-Prince 5(4) (six right-hand sides, the first the last stage of the
step before), held to the same error goal by its own estimate and step control
(Hairer-Norsett-Wanner II.4), for as long as its own natural step reaches the frame; then
DOP853 again, with its own natural size as it left it, and 5(4) is tried again (from the
step to the frame) RETRY steps later.  The door: 1,255 -> 965 right-hand sides, its
positions within 2e-10 m and its events within 1e-9 s of DOP853's alone.
"""
from __future__ import annotations

import math
from typing import Any

from ...integrators.control import StandardControl
from ...integrators.explicit import DOP853, DoPri5

CUT = 2.0     # DOP853's natural step over the step to the frame from which 5(4) takes it
RETRY = 8     # steps on DOP853 after 5(4) fell short of a frame before it is tried again
STAGES = 2    # DOP853's right-hand sides a step over 5(4)'s (12 and 6, first same as last)
NEAR = 0.9    # 5(4)'s natural step over the step to the frame from which it keeps the frame


def frame_pairs(run: Any) -> "FramePairs | None":
    """The pairs of a run whose steps the frames cut, DOP853 its stepper; else None."""
    if run.dense or not isinstance(run.stepper, DOP853):
        return None
    return FramePairs(run)


class FramePairs:
    """The pair a run's step takes: DOP853 or 5(4), swapped into the run's ``stepper``,
    ``control`` and ``h`` (the other pair's kept in ``other``).  ``low_stepper``: 5(4), which
    a design study's lockstep run replaces by its own view of the variant's steps."""

    def __init__(self, run: Any) -> None:
        self.low_stepper = DoPri5(run.sysm.rhs)
        self.other: tuple | None = None      # (stepper, control, h) of the pair not in use
        self.on_low, self.used, self.wait = False, False, 0

    def pick(self, run: Any, remaining: float) -> None:
        """Before a step to the frame (or event) ``remaining`` s ahead: the run's pair."""
        if self.on_low:
            if run.h >= remaining or self._fewer(remaining, run.h, self.other[2]):
                return
            self.wait = RETRY                 # 5(4) falls short of the frame: DOP853
            self._swap(run, self.other)
            return
        if self.wait:
            self.wait -= 1
            return
        if run.grow < CUT * remaining:       # (DOP853's proposal at LONG_ERR of the goal)
            return
        self._swap(run, (self.low_stepper, StandardControl(DoPri5.order), remaining))
        self.used = True

    @staticmethod
    def _fewer(remaining: float, low: float, high: float) -> bool:
        """Does 5(4) at its natural step ``low``, within NEAR of the frame ``remaining`` s
        ahead, reach it with no more right-hand sides than DOP853 at its own, ``high`` (as
        it left it)?  Six a step against twelve: two steps against one (a step short of the
        frame by 1% would otherwise send the run back to DOP853 for RETRY steps).  Farther
        short, DOP853 (more 5(4) steps a frame hold each step's error, not the energy's:
        a flywheel's over two reversals 1e-8 of it against 2e-10)."""
        return low >= NEAR * remaining and math.ceil(remaining / low) <= STAGES * math.ceil(
            remaining / high)

    def _swap(self, run: Any, pair: tuple) -> None:
        self.other = (run.stepper, run.control, run.h)
        run.stepper, run.control, run.h = pair
        self.on_low = not self.on_low

    def method(self, name: str) -> str:
        """The run's method's name, with 5(4) where it took steps."""
        return f"{name}, 5(4) on the steps the frames cut" if self.used else name
