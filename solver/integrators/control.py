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

The error goal both use is written here once, for a single run (analyses/dynamics/driver.py)
and for a design study's variants in lockstep (study/lockstep.py): the local tolerance
(``local_tolerance``), the weights of the state's blocks (``error_scale``), the error norm
(``ErrorNorm``, over any leading axes) and the first step (``initial_step``); the other
jobs of a run's tolerance are named beside it (``Goals``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from .explicit import DoPri5, explicit_method


@dataclass(frozen=True)
class Goals:
    """What a run's ``tolerance`` (the user's one accuracy number, Settings.tolerance) sets,
    each role derived here and nowhere else:

    - ``local(method)``: the relative local error goal of one step (``local_tolerance``);
    - ``explicit_pair(method)``: the explicit pair that goal calls for (DOP853 at tight
      goals, Dormand-Prince 5(4) at loose ones: ``explicit_method``);
    - ``singular``: the constraint residual a projection may be left at while a run passes
      a singular position by least-norm solves (Equations; the run's own accuracy, so a
      looser run is not held tighter there than elsewhere);
    - ``rest``: the scale of the at-rest test, which holds a settled mechanism's pose for
      the frames after (no part faster than REST_SPEED x rest x the model's size, none
      accelerating faster than REST_ACCEL x ...; analyses/dynamics/driver.py ``at_rest``).
    """
    tolerance: float

    def local(self, method: str) -> float:
        return local_tolerance(self.tolerance, method)

    def explicit_pair(self, method: str = "explicit") -> type[DoPri5]:
        return explicit_method(self.local(method))

    @property
    def singular(self) -> float:
        return self.tolerance

    @property
    def rest(self) -> float:
        return self.tolerance


def local_tolerance(tolerance: float, method: str) -> float:
    """The relative local error goal of one step for a run's ``tolerance``: a decade under
    it, whichever the integrator (``method``, "explicit" or "implicit"), so that a
    tolerance asks the same of both.  The explicit method's decade meets the measured
    global error with room (largest energy change over m g L N^2 / 2, 24 fps; tolerance
    1e-6: chaotic double pendulum 10 s 3.2e-7, benchmark chain N = 5 10 s 6.4e-8, N = 10
    2 s 3.4e-9, N = 50 5.1e-11; two decades gave 30-100 times less for 20-25% more
    right-hand sides; tolerance=1e-7 is that setting).  Radau IIA's goal was two decades
    under: its error estimate is of order 5 for a result of order 9 (why Hairer and Wanner
    1996, IV.8, map RADAU5's tolerance), yet what set its runs' error was Newton's
    stopping error, which the estimate does not see (implicit.py NEWTON_KAPPA).  With
    Newton held under it, the decade takes 22-32% fewer steps and is as accurate as the
    two decades were, or more (the suspension sample 444 -> 324 steps; the chain of 10
    still 13 to 11,000 times the explicit pair's accuracy; a goal looser still fails
    tests' bounds measured on Radau IIA: docs/benchmarks.md, "What a tolerance
    delivers", both integrators at tolerances 1e-4 to 1e-8)."""
    return tolerance * 1e-1


def error_scale(pack: Callable, body_size, nb: int, body_island=None, start=None) -> tuple:
    """(scale, island, origin): each state component's error weight, |e_i| <= rtol
    (scale_i + |y_i - origin_i|), and the island (model/islands.py) of the body it belongs
    to (``body_island`` (nb,), Model.body_island; None: one).  The absolute part:
    positions r [m] and velocities v [m/s] the size of the body's island (``body_size``
    (nb,), Model.body_size, or (V, nb) for a study's stacked state: then scale (V, n)),
    Euler parameters p [-] and angular velocities w [rad/s] 1, the work of the loads
    infinite (not controlled).  The relative part of a position is its distance from where
    its mechanism is held (``start`` (nb, 3) m, Model.body_anchor, or (V, nb, 3) for a
    study's variants: the origin, 0 for the rest), of the rest its magnitude: a position's
    distance from the world origin says nothing of the accuracy a mechanism needs (weighed
    by it, a 1 m pendulum 1 km from the origin was held 1e3 times looser than at the
    origin, its swing 17 times less accurate), and a part's island's size, not the largest
    one beside it, is the length its accuracy is relative to.  ``pack``: Equations.pack."""
    size = np.asarray(body_size, dtype=float)
    lead = size.shape[:-1]
    lin = size[..., None] * np.ones(lead + (nb, 3))
    scale = pack(lin, np.ones(lead + (nb, 4)), lin, np.ones(lead + (nb, 3)),
                 np.full(lead, np.inf))
    one = np.ones((nb, 3))
    isl = np.zeros(nb) if body_island is None else np.asarray(body_island, dtype=float)
    island = pack(isl[:, None] * one, isl[:, None] * np.ones((nb, 4)), isl[:, None] * one,
                  isl[:, None] * one, 0.0).astype(int)
    r0 = np.zeros(lead + (nb, 3)) if start is None else np.asarray(start, dtype=float)
    zero = np.zeros(lead + (nb, 3))
    origin = pack(r0, np.zeros(lead + (nb, 4)), zero, zero, np.zeros(lead))
    return scale, island, origin


class ErrorNorm:
    """The RMS error norm of the steppers and the stage Newton: sqrt(mean((e_i / (rtol
    (scale_i + max(|y0_i - o_i|, |y1_i - o_i|))))^2)) over the state's components but the
    last (the work, not controlled), each island's (model/islands.py) mean apart and the
    largest taken, so that parts beside a mechanism that nothing joins to it, at rest or
    slow, do not dilute its error and lengthen its steps; a non-finite value counts as
    1e10 (a step far over its goal).  ``weights``: error_scale's (scale, island, origin
    o); scale and o (n,) for one run, or (V, n) for a study's variants: then e, y0, y1
    have the variant axis first (any axes between, e.g. Radau's stages) and ``rows`` (an
    index) picks the variants they belong to (all when None); island (n,).  A float for
    one state, else one per state."""

    def __init__(self, weights: tuple, rtol: float) -> None:
        (self.scale, island, self.origin), self.rtol = weights, rtol
        island = np.asarray(island)[:-1]
        self._order = None                 # one island: the plain mean
        if island.size and island.max() > 0:
            self._order = np.argsort(island, kind="stable")
            count = np.bincount(island)
            self._starts = np.concatenate([[0], np.cumsum(count)[:-1]])
            self._count = count.astype(float)

    def means(self, q: np.ndarray) -> np.ndarray:
        """(..., k) the mean of q (..., n - 1) over each island's components (k = 1: one)."""
        if self._order is None:
            return (np.add.reduce(q, axis=-1) / q.shape[-1])[..., None]   # (np.mean's numbers)
        return np.add.reduceat(q[..., self._order], self._starts, axis=-1) / self._count

    def __call__(self, e: np.ndarray, y0: np.ndarray, y1: np.ndarray, rows=None):
        scale, o = self.scale, self.origin
        if scale.ndim > 1:
            scale, o = (scale, o) if rows is None else (scale[rows], o[rows])
            lead = scale.shape[:1] + (1,) * (np.ndim(e) - 2)
            scale, o = scale.reshape(lead + scale.shape[1:]), o.reshape(lead + o.shape[1:])
        o = o[..., :-1]
        y = np.maximum(np.abs(y0[..., :-1] - o), np.abs(y1[..., :-1] - o))
        sc = self.rtol * (scale[..., :-1] + y)
        q = (e[..., :-1] / sc) ** 2
        if self._order is None:
            x = np.sqrt(np.add.reduce(q, axis=-1) / q.shape[-1])     # (np.mean's numbers)
        else:
            x = np.sqrt(self.means(q).max(axis=-1))
        if np.ndim(x) == 0:
            x = float(x)
            return x if np.isfinite(x) else 1e10
        return np.where(np.isfinite(x), x, 1e10)


def initial_step(k1: np.ndarray, y: np.ndarray, norm: ErrorNorm, times: np.ndarray) -> float:
    """Starting step (s): an explicit Euler step that moves the state by a hundredth of its
    size, h0 = 0.01 ||y|| / ||y'|| with weights rtol (scale_i + |y_i|) (``norm``, one
    run's; Hairer-Norsett-Wanner I, section II.4, the starting step's first estimate), the
    least over the islands that move (each island's norms apart, as ``ErrorNorm``), within
    a frame and 0.01 s; 1e-3 s where no island's state and rate are both above nil in those
    weights.  A position's magnitude |y_i| is its distance from where its mechanism is held
    (ErrorNorm's origin), so the first step is the same wherever the mechanism stands.
    One state's (n,)."""
    size = np.abs(y - norm.origin)
    sc = norm.rtol * (norm.scale + size)
    d0 = np.sqrt(norm.means((size[:-1] / sc[:-1]) ** 2))
    d1 = np.sqrt(norm.means((k1[:-1] / sc[:-1]) ** 2))
    live = np.minimum(d0, d1) > 1e-5
    h = 0.01 * float(np.min(d0[live] / d1[live])) if live.any() else 1e-3
    return min(h, frame_spacing(times, first=True), 1e-2)


def next_break(breaks: np.ndarray, t: float) -> float:
    """The first of the ascending times ``breaks`` (s) past t (beyond its rounding), where a
    step must end; inf when none is left."""
    if not len(breaks):
        return np.inf
    k = int(np.searchsorted(breaks, t + 1e-14 * max(1.0, abs(t)), side="right"))
    return float(breaks[k]) if k < len(breaks) else np.inf


def on_break(breaks: np.ndarray, t: float) -> bool:
    """Whether t (s) is one of the times ``breaks`` (to its rounding, as ``next_break``
    reaches them): a step ended there, and the motions' rates after it are the ones to
    go on with (a kink of max(0, t - 0.5): a jump of the rate)."""
    if not len(breaks):
        return False
    k = int(np.searchsorted(breaks, t))
    near = 1e-14 * max(1.0, abs(t))
    return any(abs(float(breaks[j]) - t) <= near for j in (k - 1, k) if 0 <= j < len(breaks))


def side_of(breaks: np.ndarray, t: float) -> float:
    """The time to evaluate a step's first stage at from t (s): on one of ``breaks`` the
    float just after it (a motion's rate after its kink, a step function's side past its
    edge, whatever value it takes at the edge itself); else t."""
    return float(np.nextafter(t, np.inf)) if on_break(breaks, t) else t


def frame_spacing(times: np.ndarray, first: bool = False) -> float:
    """The output frames' spacing (s): the largest gap (the first with ``first``), 1 s for a
    single frame."""
    if len(times) < 2:
        return 1.0
    return float(times[1] - times[0]) if first else float(np.max(np.diff(times)))


def step_factor(err, expo: float):
    """0.9 err^expo, 5.0 where err is 0 (no error: the largest growth), of a float or of
    each element of an array (one step's error norm, or a study's variants' (V,)).  The
    power is C's pow, as Python's float power takes it, element by element: numpy's array
    power takes SIMD paths on some processors whose last bit differs, and a study's variant
    must size its steps to the bits of its separate run."""
    if isinstance(err, float):
        return _factor(err, expo)
    return np.array([_factor(e, expo) for e in np.asarray(err, dtype=float).tolist()])


def _factor(err: float, expo: float) -> float:
    return 0.9 * err ** expo if err > 0 else 5.0


def within(x, lo: float, hi: float):
    """x held to [lo, hi]: a float, or each element of an array."""
    if isinstance(x, float):
        return min(hi, max(lo, x))
    return np.minimum(hi, np.maximum(lo, x))


def lesser(a, b):
    """The smaller of a and b: floats, or element by element."""
    if isinstance(a, float) and isinstance(b, float):
        return min(a, b)
    return np.minimum(a, b)


def pick(take, a, b):
    """a where ``take``, else b: a bool and floats, or element by element."""
    if isinstance(take, (bool, np.bool_)):
        return a if take else b
    return np.where(take, a, b)


LONG_ERR = 1e-3      # a step past the frames is sized for this share of its error goal


def long_proposal(hs, err, expo: float):
    """The next step past the frames after an accepted step hs with error norm err (floats,
    or a study's variants' (V,), each with its separate run's bits): the standard
    proposal, hs min(5, 0.9 (err / LONG_ERR)^-|expo|)
    (expo: the control's exponent, -1/(q+1) or 1/(q+1)), for an error goal LONG_ERR times
    the step's.  The dense output between step ends is of lower order than the step's end
    (DOP853: 7 against 8; Dormand-Prince 5(4): 4 against 5; Radau IIA: 5 against 9): on
    long steps its error reaches some 40 times the step's (a tumbling body at the default
    tolerance: 4e-6 against 1e-7), so a long step is held to about 0.4 (DOP853), 0.25
    (5(4)) or 0.3 (Radau IIA, whose error estimate is of order 5 as its polynomial) of
    what the step's own goal would allow, which keeps the
    frames within it to the tolerance; a mechanism at rest (err ~ 0) still takes steps of
    many frames."""
    return hs * within(step_factor(err / LONG_ERR, -abs(expo)), 0.0, 5.0)


def next_size(h, hs, h_next, long, implicit: bool):
    """The step size kept for the next step after an accepted step hs (h: the natural one
    before it, h_next: the control's proposal): h_next, unless the step was cut to a frame
    and the proposal grows (the implicit method's grows after cut steps too: held below a
    frame it took two steps a frame at rest).  Floats, or a study's variants' (V,)."""
    return pick(long | (hs == h) | (h_next < h) | (implicit & (h_next > h)), h_next, h)


class StandardControl:
    """h_new = h min(5, max(0.2, 0.9 err^(-1/(q+1)))); after a rejection the factor is
    held to [0.1, 0.9] (an infinite err, a failed step: 0.1).  Each rule takes one step's
    floats or many variants' arrays (V,) (a design study's variants in lockstep) and gives
    each the bits of its own run's floats."""

    def __init__(self, order: int) -> None:
        self.expo = -1.0 / (order + 1)

    def trial(self, h, remaining):
        """The step to try: h, or what is left to the next output time."""
        return lesser(h, remaining)

    def accepted(self, h, err, stepper=None):
        return h * within(step_factor(err, self.expo), 0.2, 5.0)

    def rejected(self, h, err, stepper=None):
        return h * within(step_factor(err, self.expo), 0.1, 0.9)


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
