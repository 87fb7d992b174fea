"""Radau IIA's stage equations as a Newton problem (algebra/newton.py): the simplified
Newton iteration on the stage increments Z (s, n), Hairer-Wanner IV.8, with the residual
not measured (the step's size decides, by the predicted remaining error)."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..algebra.newton import NewtonProblem


class RadauStages(NewtonProblem):
    """Z with Z_i = h sum_j a_ij f(t + c_j h, y + Z_j): the residual is f at every stage
    (one right-hand side call for all), the step the stepper's transformed solve
    (``stepper._solve``), the size the RMS over stages of ``norm`` (the step's error norm)."""

    def __init__(self, stepper: Any, ts: np.ndarray, y: np.ndarray, h: float, norm: Callable) -> None:
        self.stepper, self.ts, self.y, self.h, self.norm = stepper, ts, y, h, norm

    def residual(self, Z):
        return None, self.stepper.sysm.rhs(self.ts, self.y[None, :] + Z)    # all stages in one call

    def solve(self, Z, F):
        return self.stepper._solve(F, Z, self.h)

    def move(self, Z, dZ, alpha):
        return Z + dZ

    def size(self, Z1, dZ, alpha) -> float:
        norm, y = self.norm, self.y
        return float(np.sqrt(np.mean([norm(dZ[i], y, y + Z1[i]) ** 2 for i in range(self.stepper.s)])))
