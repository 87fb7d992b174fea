"""Step-size controllers: the next step from the error norm of the last one (err <= 1: the
step is accepted).  The error of an estimate of order q behaves like C h^(q+1), so
h_new = h (1 / err)^(1/(q+1)) times a safety factor, within bounds on the change.

- ``StandardControl`` (Hairer-Norsett-Wanner I, section II.4): the explicit steppers'.
- ``PredictiveControl`` (Gustafsson's predictive controller, Hairer-Wanner II, section IV.8
  "Step size selection", as in the code RADAU5): for implicit steppers, whose steps are
  expensive to reject and whose factorized iteration matrices are worth keeping.  From two
  accepted steps it also predicts h_new = h (h / h_prev) (err_prev / err^2)^(1/(q+1)) and
  takes the smaller proposal, which damps the oscillation of accepted/rejected steps when
  the error behaves like h^(q+1) only roughly (stiff components, Newton error); the safety
  factor shrinks when Newton needed many iterations; a new h within a factor 1 to 1.2 of
  the old one is not taken while the stepper keeps its Jacobian, so the factorizations
  stay valid.
"""
from __future__ import annotations


class StandardControl:
    """h_new = h min(5, max(0.2, 0.9 err^(-1/(q+1)))); after a rejection the factor is
    held to [0.1, 0.9] (an infinite err, a failed step: 0.1)."""

    def __init__(self, order: int) -> None:
        self.expo = -1.0 / (order + 1)

    def trial(self, h: float, remaining: float) -> float:
        """The step to try: h, or what is left to the next output time."""
        return min(h, remaining)

    def accepted(self, h: float, err: float, stepper) -> float:
        fac = 0.9 * err ** self.expo if err > 0 else 5.0
        return h * min(5.0, max(0.2, fac))

    def rejected(self, h: float, err: float, stepper) -> float:
        fac = 0.9 * err ** self.expo if err > 0 else 5.0
        return h * max(0.1, min(0.9, fac))


class PredictiveControl:
    """Gustafsson's controller as RADAU5 applies it (see the module docstring); the
    stepper tells how many Newton iterations the step took (``newton_iterations``), its
    iteration limit (``newton_max``) and whether it keeps its Jacobian (``keeps_matrix``)."""

    GROW, SHRINK = 8.0, 0.2          # bounds of h_new / h
    KEEP = 1.2                       # h_new / h in [1, KEEP]: keep h (and the factorizations)

    def __init__(self, order: int) -> None:
        self.expo = 1.0 / (order + 1)
        self.h_acc: float | None = None
        self.err_acc = 1.0

    def trial(self, h: float, remaining: float) -> float:
        """h, what is left to the next output time, or half of it when h would leave a
        sliver under h: a short step would cost as much as a full one, and the next step's
        Newton starts from the short step's polynomial extrapolated far beyond it."""
        if remaining <= h:
            return remaining
        return 0.5 * remaining if remaining < 2.0 * h else h

    def _safety(self, stepper) -> float:
        nmax = stepper.newton_max
        return 0.9 * (2 * nmax + 1) / (2 * nmax + stepper.newton_iterations)

    def accepted(self, h: float, err: float, stepper) -> float:
        fac = self._safety(stepper)
        e = max(err, 1e-10)
        quot = min(1.0 / self.SHRINK, max(1.0 / self.GROW, e ** self.expo / fac))
        if self.h_acc is not None:
            gus = (self.h_acc / h) * (e * e / self.err_acc) ** self.expo / 0.9
            quot = max(quot, min(1.0 / self.SHRINK, max(1.0 / self.GROW, gus)))
        self.h_acc, self.err_acc = h, max(1e-2, e)
        if stepper.keeps_matrix and 1.0 / self.KEEP <= quot <= 1.0:
            return h
        return h / quot

    def rejected(self, h: float, err: float, stepper) -> float:
        if err == float("inf"):      # Newton failed: halve (with a new Jacobian)
            return 0.5 * h
        fac = self._safety(stepper)
        return h / min(1.0 / self.SHRINK, max(1.0 / self.GROW, err ** self.expo / fac))
