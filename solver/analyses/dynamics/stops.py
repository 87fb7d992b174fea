"""Joint stops in the analyses (vocabulary/limits.py).  Compliant stops are
forces (kernels/forces.py ``stop_forces``, in dynamics and statics); what follows is about
rigid ones, except the sweep's and the start's checks, which hold for both.

Each bound of a limit is a row of the model (model.limits, LimitPlan) that is not among the
kept rows while the coordinate is inside its range; its gap g = sgn (q - bound) >= 0.

- Dynamics: after each accepted step the free bounds' gaps are checked at the step's end; a
  crossing is located by re-stepping from the step's start (regula falsi with the Illinois
  modification on the step size, every trial a full integrator step, so the located state
  is the integrator's own, never an interpolation; the first trial where the step's dense
  output puts the crossing, ``dense_guess``, the next ones Newton's from each trial's end
  while they converge as Newton's do) to ``EVENT_TIME`` s; then Newton's impact
  law through all the constraints (Pfeiffer and Glocker, Multibody Dynamics with Unilateral
  Contacts, ch. 5; Haug eq. 11.5.x for the impulse form): the velocities jump by
  M^-1 C^T Lambda with C the kept rows and the hitting bound's row, so that every joint and
  motion holds at the velocity level and the bound's rate becomes -e times its rate
  before.  A rebound slower than the bound's rest speed becomes resting contact: the row
  joins the kept rows (the projection holds q at the bound) until the stop would have to
  pull, when it is released: at once after the impact, or at the instant within a step
  its push -sgn lambda falls to zero (located by re-stepping, ``events._release_event``).  A
  run that starts on a bound at rest (below its rest speed) starts resting on it.  Of the
  bounds a step crosses, only those reached at the located instant are struck (``events.reached``).  The kinetic energy lost at an
  impact is added to the work of non-conservative loads, so kinetic + potential - work stays
  constant (Result.energy).
- Kinematic sweep: a motion that drives a coordinate past a bound stops the sweep there
  (SolverError naming the limit, the joint, the bound and the frame, with the frames before).
- Statics: an active set: bounds the equilibrium would pass are held, bounds whose stop
  would pull are let go, until neither changes.  An equilibrium that is unstable or past a
  rigid bound gives way to one on the stop the start's load pushes toward, when that one is
  stable and within every stop; one past a rigid bound is never returned (an error names it).
- Every analysis: a start outside the range is refused, naming the limit.
"""
from __future__ import annotations

import math

import numpy as np

from ...base.errors import SolverError
from ...base.rotations import unit_quaternions
from ...kernels.constraints import body_arrays, evaluate, global_jacobian, residual, row_groups
from ...model.compile import Model
from ...model.impacts import Impact
from ...vocabulary.joints import ANGLE
from ..checks.curve_ends import hermite

EVENT_TIME = 1e-10      # s: an impact's instant located to this
GAP_TOL = 1e-9          # a gap below -GAP_TOL (times the model's size for a slide) is a crossing


def gaps(model: Model, phi: np.ndarray, turns: np.ndarray | None = None) -> np.ndarray:
    """(..., nbound) sgn (q - bound) of every bound from the rows' phi (..., nc), an angle
    on the turn nearest ``turns`` (kernels/constraints.py ``limit_offsets``)."""
    lm = model.limits
    res = residual(model, phi, np.zeros(phi.shape[:-1] + (len(model.motion_names), 3)), turns)
    return lm.sgn * res[..., lm.rows]


def tolerance(model: Model) -> np.ndarray:
    """(nbound,) the gap below which a bound is crossed: GAP_TOL rad, or GAP_TOL of the size
    of the mechanism its joint is in (its row's unit, Model.row_length), not of a larger
    one beside it."""
    return GAP_TOL * model.row_length[model.limits.rows]


def amount(model: Model, b: int, x: float, digits: int = 6) -> str:
    """``x`` in bound b's unit: "0.1 m", or for an angle "0.5 rad (28.6479 deg)" (Blender
    shows angles in degrees)."""
    if model.row_kind[model.limits.rows[b]] != ANGLE:
        return f"{x:.{digits}g} m"
    return f"{x:.{digits}g} rad ({math.degrees(x):.{digits}g} deg)"


def describe(model: Model, b: int) -> str:
    lm = model.limits
    return (f"limit {lm.names[b]!r}: joint {lm.joints[b]!r} past its {lm.bounds[b]} bound "
            f"{amount(model, b, float(lm.value[b]))}")


def check_start(model: Model, r: np.ndarray, p: np.ndarray, t: float,
                turns: np.ndarray | None = None) -> None:
    """SolverError naming the limit when the start lies outside a limit's range (an angle
    read on the turn nearest ``turns``, analyses/limit_turns.py ``start_turns``)."""
    if model.limits is None:
        return
    g = gaps(model, evaluate(model, *body_arrays(model, r, p)[:2], need_jac=False).phi, turns)
    bad = np.flatnonzero(g < -tolerance(model))
    if bad.size:
        b = int(bad[0])
        lm = model.limits
        raise SolverError(f"the mechanism starts outside a limit: {describe(model, b)} by "
                          f"{amount(model, b, float(-g[b]), 3)} at t = {t:.6g} s; move the "
                          "joint inside its range or change the motion", t,
                          (lm.names[b], lm.joints[b]))


def sweep_check(model: Model, phi: np.ndarray, times: np.ndarray, first: int, out,
                turns: np.ndarray | None = None) -> None:
    """A sweep's block of frames (phi (F, nc) at times (F,), frame index of the first; an
    angle on the turn nearest ``turns`` (F, nbound)): SolverError at the first frame a
    motion drove a coordinate past a rigid bound (a compliant stop is a force there: the
    sweep's efforts carry it)."""
    g = gaps(model, phi, turns)
    past = (g < -tolerance(model)) & ~model.limits.compliant
    if past.any():
        f, b = np.argwhere(past)[0]
        t = float(times[f])
        lm = model.limits
        raise SolverError(f"{describe(model, int(b))} at t = {t:.6g} s (frame {first + f}): the "
                          "motion drives it through its stop; change the motion or the limit",
                          t, (lm.names[b], lm.joints[b]), out.truncated(first + int(f)))


def locate(step, g0: np.ndarray, g1: np.ndarray, hit: np.ndarray, hs: float,
           offset: np.ndarray | float = 0.0, guess: float | None = None,
           width: float = EVENT_TIME, tangent=None, end=None):
    """The first instant h in (0, hs] where min over ``hit`` of g + offset reaches zero, and
    the step's result there: ``step(h)`` integrates from the step's start and returns (its
    result, g there); g0, g1 are g at the step's start and end (the start positive, the
    end not).  Regula falsi with the Illinois modification on h, every trial a full step of
    the integrator, to ``width`` s; the result returned is the one on the far side.
    ``guess``: where the step's dense output puts the instant (``dense_guess``), the first
    trial: from a good one two or three trials narrow to EVENT_TIME instead of seven.
    ``tangent(result, hit, offset)``: where the tangent of the first of ``hit`` to reach
    zero at a trial's end puts the instant (h), or None: each next trial is then that
    Newton step, a tenth of ``width`` past the root, and a trial past the root that its
    tangent puts within 0.9 ``width`` of it ends the search without a trial from the near
    side (the tangent's error, g''/(2 g') times that distance squared, is far below the
    width).  ``end``: the step's own result at hs, as a trial's (a step aimed at the
    instant, events.aim_at_event): when its tangent puts it past the root by at most 0.9 ``width``
    it is the located step, with no trial; else Newton's step from it is the first trial."""
    worst = _worst(hit, offset, g0)

    def trial(c):
        y_c, g_c = step(c)
        return worst(g_c), y_c
    off = np.broadcast_to(np.asarray(offset, dtype=float), np.shape(g0))
    newton = None if tangent is None else lambda y_c: tangent(y_c, hit, off)
    if newton is not None and end is not None:
        root = newton(end)
        if root is not None and 0.0 <= hs - root <= 0.9 * width:
            return hs, end
        guess = guess if root is None else root + 0.1 * width
    b, y_b = _falsi(trial, 0.0, worst(g0), hs, worst(g1), width, guess, newton)
    if y_b is None:
        y_b, _ = step(b)
    return b, y_b


def dense_guess(value, g0: np.ndarray, g1: np.ndarray, hit: np.ndarray, hs: float,
                offset: np.ndarray | float = 0.0) -> float:
    """Where ``locate``'s instant lies by the last step's dense output: ``value(theta)`` is
    g at t + theta hs from the step's interpolant (no integrator step, within its error of
    the integrated state, so only a first trial for ``locate``); the same regula falsi on
    theta to EVENT_TIME s."""
    worst = _worst(hit, offset, g0)
    theta, _ = _falsi(lambda th: (worst(value(th)), None), 0.0, worst(g0), 1.0, worst(g1),
                      EVENT_TIME / hs)
    return theta * hs


def _worst(hit: np.ndarray, offset, g0: np.ndarray):
    off = np.broadcast_to(np.asarray(offset, dtype=float), np.shape(g0))
    return lambda g: float(np.min(g[hit] + off[hit]))


def _falsi(trial, a: float, fa: float, b: float, fb: float, width: float,
           first: float | None = None, newton=None):
    """Regula falsi with the Illinois modification on (a, b), fa > 0 >= fb, narrowed to
    ``width``: trial(c) -> (f(c), its data); ``first``: the first trial when inside.
    Each trial is where the secant through the last two trials crosses zero when that lies
    inside the bracket (superlinear near the root, where a bracket's far end is a poor
    second point), else the bracket's Illinois point.  ``newton(data)``: the root by the
    tangent at a trial (or None): the next trial a tenth of the width past it while
    Newton's steps shrink at least tenfold (a trial step across a kink of the motion
    converges only linearly, its integrated values off the smooth curve), and a trial
    past the root by at most 0.9 width by its own tangent ends the search.
    Returns (b, the data of the last trial at b, None if none)."""
    data_b = None
    side = 0
    moved = None                         # the size of the last Newton step (newton)
    c = first
    recent = [(a, fa), (b, fb)]          # the last two points tried (the ends at first)
    while b - a > width:
        if c is None or not a < c < b:
            c = _secant(*recent)
        if c is None or not a < c < b:
            c = b - fb * (b - a) / (fb - fa) if fb != fa else 0.5 * (a + b)
            if not a < c < b:    # the root at an end, to rounding: a trial just inside it
                c = a + width if c <= a else b - width
                if not a < c < b:
                    c = 0.5 * (a + b)
        c = _past_the_root(c, a, b, width)
        fc, data = trial(c)
        recent = [recent[1], (c, fc)]
        if fc == 0.0:                      # on the root exactly
            return c, data
        root = None if newton is None else newton(data)
        if fc > 0.0:
            a, fa = c, fc
            if side == 1:
                fb *= 0.5              # Illinois: the end kept twice has its value halved
            side = 1
        else:
            b, fb, data_b = c, fc, data
            if side == -1:
                fa *= 0.5
            side = -1
            if root is not None and 0.0 <= c - root <= 0.9 * width:
                return c, data         # past the root, within the width by its tangent
        if root is not None:
            # Newton's next trial while its steps shrink as Newton's do (each at most a
            # tenth of the one before), else the secant's and Illinois' from here on
            move = abs(root - c)
            newton = newton if moved is None or move <= 0.1 * moved else None
            moved = move
        c = None if root is None or newton is None else root + 0.1 * width
    return b, data_b


def _secant(p0: tuple[float, float], p1: tuple[float, float]) -> float | None:
    """Where the line through two points (x, f(x)) crosses zero; None if it is flat."""
    (x0, f0), (x1, f1) = p0, p1
    return None if f1 == f0 else x1 - f1 * (x1 - x0) / (f1 - f0)


def _past_the_root(c: float, a: float, b: float, width: float) -> float:
    """The trial c, or, when it lies closer than 0.9 ``width`` to an end of the bracket
    (a, b), a tenth of the width past it, away from that end (but no farther than 0.9 width
    from it): a trial within the width of an end leaves the bracket as wide as it was on the
    other side, to be narrowed by more trials from that side; just past a good estimate of
    the root the next trial closes it (Brent 1973, ch. 4: the step of at least the
    tolerance), and the far side's end, the located instant, is within 0.1 width of the
    root (a stop's impact starts from the state there).  A bracket narrower than twice the
    width keeps its trial midway."""
    if b - a <= 2.0 * width:
        return 0.5 * (a + b)
    step = 0.9 * width
    if c - a < step:
        return min(a + step, c + 0.1 * width)
    if b - c < step:
        return max(b - step, c - 0.1 * width)
    return c


class Stops:
    """A dynamic run's rigid stops: their gaps, crossings, rows and impact law.  Which
    bounds rest on their stop is run state (RunState.resting), passed in and returned as a
    new array, never kept here."""

    def __init__(self, model: Model) -> None:
        self.m = model
        self.lm = model.limits
        self.tol = tolerance(model)
        self.groups = row_groups(model, model.limits.rows)    # the rows the gaps are read from
        self._recent: list = []     # (state, track, (gaps, rates)) of the last two states

    def at_state(self, sysm, y: np.ndarray, track) -> tuple[np.ndarray, np.ndarray]:
        """(gaps, rates) (``gaps_and_rates``) at a packed state y: the same state's are
        asked for several times in a step (its two ends by ``turned_back``, then by the
        event functions), so the last two states' are kept (the state arrays are never
        changed in place)."""
        turns = sysm.run.limit_ref            # (the run state's turns, as told)
        for state, ref, at, got in self._recent:
            if state is y and ref is track and at is turns:
                return got
        got = self.gaps_and_rates(sysm, *sysm.unpack(y)[:4], turns)
        self._recent = [(y, track, turns, got)] + self._recent[:1]
        return got

    def gaps_at(self, r, p, track=None, turns=None) -> np.ndarray:
        """Every bound's gap (nbound,) at (r, p), an angle on the turn nearest ``turns``."""
        return gaps(self.m, evaluate(self.m, *body_arrays(self.m, r, p)[:2], need_jac=False,
                                     ref=track, groups=self.groups).phi, turns)

    def gaps_and_rates(self, sysm, r, p, v, w, turns=None) -> tuple[np.ndarray, np.ndarray]:
        """Every bound's gap and its rate, sgn dq/dt (nbound,), at (r, p, v, w), the rows
        read through the run's Equations ``sysm`` (its pose buffers and memo, on its run
        state's tracked values)."""
        rg, A = sysm.pose_bodies(r, unit_quaternions(p))[:2]
        ev = sysm.rows_at(rg, A, self.groups)
        rate = global_jacobian(self.m, ev.jac)[self.lm.rows] @ np.concatenate([v, w], 1).ravel()
        return gaps(self.m, ev.phi, turns), self.lm.sgn * rate

    def turned_back(self, sysm, y: np.ndarray, y1: np.ndarray, hs: float) -> float | None:
        """A step that carried a rigid bound's coordinate past it and back (a swing's turning
        point just beyond a stop: both ends inside, the impact unseen): the share of the
        step (0, 1) where the gaps' cubic Hermite interpolant (gaps and rates at both ends)
        is least, if below -tol there; else None.  A step cut there ends past the bound,
        and the impact is located as any other.  An end within the tolerance past the bound
        is not past it (``crossed``): a step from a frame that ended there, 0.3 tol past a
        ceiling, carried a ball thrown up to it at 0.05 m/s through it and back unstruck."""
        run = sysm.run
        (g0, d0), (g1, d1) = self.at_state(sysm, y, run.track), self.at_state(sysm, y1, run.track)
        dip = (~run.resting & ~self.lm.compliant & (g0 >= -self.tol) & (g1 >= -self.tol)
               & (d0 < 0) & (d1 > 0))
        if not dip.any():
            return None
        s = np.linspace(0.0, 1.0, 33)[1:-1, None]
        cubic = hermite(g0, d0, g1, d1, hs, s)[:, dip]
        if not (cubic.min(axis=0) < -self.tol[dip]).any():
            return None
        return float(s[int(np.argmin(cubic.min(axis=1))), 0])

    def crossed(self, g: np.ndarray, resting: np.ndarray) -> np.ndarray:
        """Rigid bounds not ``resting`` (nbound,) whose gaps g are crossed (a compliant
        stop's penetration is its force's, no event)."""
        return (~resting & ~self.lm.compliant & (g < -self.tol)).nonzero()[0]

    def active_rows(self, resting: np.ndarray) -> np.ndarray:
        """The constraint rows of the bounds ``resting`` (nbound,)."""
        return self.lm.rows[resting]

    def locate(self, step, g0: np.ndarray, g1: np.ndarray, hit: np.ndarray, hs: float,
               dense=None, tangent=None):
        """The first instant in (0, hs] where one of the ``hit`` bounds' gaps reaches -tol/2
        (inside the tolerance either way): ``locate`` with the stops' offsets; ``dense``:
        the gaps along the step's dense output, for the first trial (``dense_guess``);
        ``tangent``: Newton's steps from the trials (``locate``).
        Which bounds the instant has reached is the caller's (``events.reached``)."""
        guess = None if dense is None else dense_guess(dense, g0, g1, hit, hs, 0.5 * self.tol)
        return locate(step, g0, g1, hit, hs, 0.5 * self.tol, guess, tangent=tangent)

    def impact(self, sysm, t: float, r, p, v, w, hit: np.ndarray, f: np.ndarray):
        """Newton's impact law at (t, r, p): new (v, w), the kinetic energy change (J, <= 0),
        the impact's record (model/impacts.py: the coordinates' rates before and after,
        the stops' impulses lambda, which move the velocities by M^-1 C^T lambda, so that
        along a coordinate whose row is dq/dx they push toward a larger q) and the run
        state after it (the equations' told RunState with the bounds whose rebound is
        slower than their rest speed come to rest)."""
        m, nb = self.m, self.m.nb
        rg, A, vg, wg = body_arrays(m, r, p, v, w)
        ev = evaluate(m, rg, A, vg, wg, ref=sysm.run.track)
        J = global_jacobian(m, ev.jac)
        rows = np.concatenate([sysm.keep, self.lm.rows[hit]])
        C = J[rows]
        Mi = np.zeros((6 * nb, 6 * nb))
        for b, blk in enumerate(sysm.minv(A[:nb])):
            Mi[6 * b: 6 * b + 6, 6 * b: 6 * b + 6] = blk
        vel = np.concatenate([v, w], axis=1).reshape(-1)
        nu = np.zeros(m.nc)
        mr = sysm.mrows
        nu[mr] = f[m.row_motion[mr], 1]
        target = nu[rows]
        rate = J[self.lm.rows[hit]] @ vel                       # d q / dt into the stop
        bounce = -self.lm.restitution[hit] * rate
        rest = np.abs(bounce) < self.lm.rest_speed[hit]
        if not rest.all():            # (one right-hand side more: only where it may decide)
            rest |= self._within_the_gap(sysm, t, r, p, v, w, J, ev.quad, hit, rate, bounce)
        target[len(sysm.keep):] = np.where(rest, 0.0, bounce)
        lam = np.linalg.lstsq(C @ Mi @ C.T, target - C @ vel, rcond=1e-12)[0]
        new = (vel + Mi @ C.T @ lam).reshape(nb, 6)
        ke = kinetic(m, A[:nb], vel.reshape(nb, 6))
        ke1 = kinetic(m, A[:nb], new)
        resting = sysm.run.resting.copy()
        resting[hit[rest]] = True
        lm = self.lm
        record = Impact(t, (lm.names[b] for b in hit), (lm.joints[b] for b in hit),
                        (lm.bounds[b] for b in hit), rate, J[lm.rows[hit]] @ new.reshape(-1),
                        lam[len(sysm.keep):])
        return new[:, :3], new[:, 3:], ke1 - ke, record, sysm.run.rests(resting)

    def _within_the_gap(self, sysm, t: float, r, p, v, w, J: np.ndarray, quad: np.ndarray,
                        hit: np.ndarray, rate: np.ndarray, bounce: np.ndarray) -> np.ndarray:
        """(hit,) True where the bounce would rise off its stop by less than the gap within
        which a crossing is located (GAP_TOL, ``tol``): pressed into the stop at q'' (the
        coordinate's acceleration with the stop free, J a + quad), it rises bounce^2 /
        (2 |q''|).  Such a bounce's flight lies inside the location's own error, which
        gives each return about sqrt(|q''| tol) of speed: with a stiff spring pressing a
        pendulum onto its stop at 3e5 rad/s^2 the bounces settled at 0.02 rad/s, above any
        rest speed, one every 1e-7 s without end.  It rests instead."""
        lm = self.lm
        rows = lm.rows[hit]
        a = sysm.accelerations(t, r, p, v, w)[0]
        qdd = J[rows] @ a.reshape(-1) + quad[rows]
        into = qdd * np.sign(rate) > 0.0              # pressed toward the stop it struck
        return into & (bounce * bounce < 2.0 * np.abs(qdd) * self.tol[hit])

    def release(self, lam: np.ndarray, resting: np.ndarray) -> tuple[np.ndarray, bool]:
        """Let go of the ``resting`` (nbound,) bounds whose stop would pull or carries
        nothing (push -sgn lambda <= 0: the instant a push falls to zero is located,
        ``events._release_event``, and the state there may have it exactly zero): (the
        bounds still resting, True if any was let go)."""
        push = -self.lm.sgn * lam[self.lm.rows]
        go = resting & (push <= 0.0)
        return resting & ~go, bool(go.any())


def kinetic(model: Model, A: np.ndarray, vel: np.ndarray) -> float:
    """Kinetic energy of body velocities (nb, 6) (world axes)."""
    Iw = A @ model.body_inertia @ np.swapaxes(A, -1, -2)
    w = vel[:, 3:]
    return float(0.5 * np.sum(model.body_mass * np.sum(vel[:, :3] ** 2, axis=1))
                 + 0.5 * np.einsum("bi,bij,bj->", w, Iw, w))
