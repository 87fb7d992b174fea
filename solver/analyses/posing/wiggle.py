"""Wiggle: one joint coordinate set by hand with the rest of the mechanism assembled
(drag.py's ``Poser`` inherits it; its workspace, the held rows, the pose and the
stops' active set, are the Poser's).

``set_coordinate``: the least-movement assembly with one more row, the joint's angle or
slide (docs/conventions.md) held at a value, reached in small steps from the present
value so the branch is kept (a step from a singular position, where the branches meet,
starts from the pose carried on along the step before it: ``_predicted``); the other
joints' angles and slides that the loops leave
free are held where they are (``_others``: setting an arm's elbow keeps its shoulder, as
a rig's joint does; moved the least, the shoulder turned back against the elbow), and
only where holding them blocks the move (near a singular pose) is the rest moved the
least.  Stops (drag_stops.py): a value beyond the joint's own stop
is clamped to it, and the coordinate is moved to it within its range; another joint that
reaches its stop on the way is held there (its limit row at its bound) while the rest
follow, and when holding it leaves the coordinate no way on, the coordinate stops where
that stop was reached.  ``coordinate_range`` sweeps a coordinate to find the range a one-DOF
mechanism can move through (a full turn for a crank), ending at the stops.  An angle a
limit bounds is read on its joint's continuous turns (``value``), so a range wider than a
turn is set and swept across its turns.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...algebra.blas import single_thread
from ...algebra.newton import NewtonOptions, newton, rounding_tols, scaled_jacobian
from ...base.errors import SolverError, finite_number
from ...kernels.constraints import KERNELS, body_arrays, global_jacobian
from ...model.plans import RowGroup, coordinate_row, row_group
from ...vocabulary.joints import ANGLE, JOINT_COORDINATES
from ..start.assembly import curve_contacts
from .drag_stops import allowed, held_stop
from .held_newton import RCOND, HoldCoordinate

ANGLE_STEP = 0.1        # rad: set_coordinate moves an angle in steps of at most this
SLIDE_STEP = 0.05       # of the slider's mechanism's size: ... and a slide in steps up to this
INDEPENDENT = 1e-6      # sine of a coordinate row's angle to the held rows' span: kept above
# the smallest singular value's share of the largest, of the held rows with the coordinate's
# (scaled), below which a pose is at a singular position (a parallelogram lined up: some
# 1e-6 on a pose set onto the line, 7e-3 half a degree off it) and a step from it starts
# on the branch the steps came along (``_predicted``)
BRANCH_SHARE = 1e-3


@dataclass(frozen=True)
class Coordinate:
    """One joint coordinate as a one-row group that the angle and dot-2 kernels evaluate."""
    joint: str
    name: str               # "angle" | "slide"
    group: RowGroup
    motion: str | None      # the motion that drives it, if any
    limits: tuple[float | None, float | None]   # its stops (rad or m), if any
    own: np.ndarray         # the indices of its stops among the Model's bounds (drag_stops)
    tracked: int = -1       # its index among the couplers' coordinates (their tracked turns),
    #                         -1: not coupled (an angle and the same plus a turn are one pose)


@dataclass(frozen=True)
class CoordinateRange:
    """The values a coordinate can be set to from the present pose (rad or m):
    [lower, upper], or a whole turn (``full_turn``: any angle) for a crank."""
    joint: str
    name: str
    lower: float
    upper: float
    full_turn: bool


def wrap(angle: float) -> float:
    """An angle in [-pi, pi)."""
    return (angle + np.pi) % (2.0 * np.pi) - np.pi


def _amount(x: float, angle: bool, size: float = 1.0) -> str:
    """A coordinate's value in its unit: "0.1 m", or "2.7 rad (154.699 deg)" (Blender shows
    angles in degrees); within ROUNDING of ``size`` (1 rad, or its mechanism's size) of zero, 0
    (a pose read from Blender's float32 placements: "it is at 8.6e-09 m" said nothing)."""
    x = 0.0 if abs(x) < ROUNDING * size else x
    return f"{x:.6g} rad ({np.degrees(x):.6g} deg)" if angle else f"{x:.6g} m"


ROUNDING = 1e-7     # of a coordinate's size: a value this near zero is said as zero


class Wiggle:
    """set_coordinate, value, coordinate_range: the Poser's wiggle half (module docstring)."""

    _keep: tuple = ()       # (Coordinate, value) of other joints held while one is set
    _past_end: str | None = None   # the curve joint a refused pose took past its open end
    # the last step of a coordinate set: (joint, name, the pose before it, the pose it
    # reached, its size in rad or m), the direction of the branch it came along
    _came: tuple | None = None

    def _others(self, c: Coordinate) -> tuple:
        """The other joints' coordinates (scene order; none a motion drives) that the held
        rows and ``c`` leave free at the present pose, each with its value there: one is
        taken while its row is independent of the rows taken before (its part outside
        their span more than INDEPENDENT of its length), so an open chain keeps every
        other joint and a loop the joints it does not tie to ``c``."""
        x, model = (self.r, self.p), self.model
        ev = self._evaluate(x)[0]
        J = np.vstack([scaled_jacobian(model, global_jacobian(model, ev.jac), self._held()),
                       self._coordinate_row(c, x)[1]])
        _, s, vt = np.linalg.svd(J, full_matrices=False)
        basis = vt[s > RCOND * s[0]]
        kept = []
        for joint in model.joint_names:
            for name in JOINT_COORDINATES.get(self._kinds.get(joint, ""), ()):
                if (joint, name) == (c.joint, c.name):
                    continue
                o = self.coordinate(joint, name)
                if o.motion is not None:
                    continue
                q, row = self._coordinate_row(o, x)
                out = row - basis.T @ (basis @ row)
                size = float(np.linalg.norm(out))
                if size > INDEPENDENT * float(np.linalg.norm(row)):
                    basis = np.vstack([basis, out / size])
                    kept.append((o, q))
        return tuple(kept)

    def coordinate(self, joint: str, name: str | None = None) -> Coordinate:
        """Joint ``joint``'s coordinate ``name`` ("angle" or "slide"; default the joint's
        first); SolverError naming the joint if it has none."""
        model = self.model
        if joint not in model.joint_names:
            raise SolverError(f"joint {joint!r} is not a joint of the mechanism", self.t, (joint,))
        kind = self._kinds.get(joint, "")
        names = JOINT_COORDINATES.get(kind, ())
        name = name or (names[0] if names else None)
        if name not in names:
            raise SolverError(f"joint {joint!r} ({kind or 'a curve joint'}) has no "
                              f"{name or 'angle or slide'} to set (revolute, prismatic and "
                              "cylindrical joints have)", self.t, (joint,))
        jn = model.joint_names.index(joint)
        mi, mj = model.joint_marker_i[jn], model.joint_marker_j[jn]
        row = coordinate_row(mi, mj, name, model.marker_body, model.marker_point, model.marker_axes)
        one = lambda key, dtype=float: np.array([row[key]], dtype=dtype)    # noqa: E731
        g = row_group(row["kind"], slice(0, 1), one("bi", int), one("bj", int), one("bj", int),
                      one("ui"), one("uj"), one("a"), one("b"), np.zeros(1))
        motion = None
        for k in np.flatnonzero(model.row_motion >= 0):
            if model.row_label[k].endswith(f": {name} of {joint}"):
                motion = model.motion_names[model.row_motion[k]]
        lower = upper = None
        own = []
        bd = self._bounds
        if bd is not None:
            for k, (jt, side, value) in enumerate(zip(bd.joints, bd.sides, bd.value)):
                if jt == joint and bool(bd.angle[k]) == (name == "angle"):
                    own.append(k)
                    lower, upper = (float(value), upper) if side == "lower" else (lower, float(value))
        return Coordinate(joint, name, g, motion, (lower, upper), np.array(own, int),
                          _coupled_index(model, joint, name))

    def _unit(self, c: Coordinate) -> float:
        """A coordinate's unit: 1 for an angle (rad), for a slide its joint's mechanism's
        size (m, Model.size_of: a slider's steps and tolerances are its own, not those of
        a larger mechanism beside it)."""
        g = c.group
        if g.kind == ANGLE:
            return 1.0
        return float(self.model.size_of([int(g.bi[0]), int(g.bj[0])]))

    def _coordinate_row(self, c: Coordinate, x):
        """(value, scaled Jacobian row (6 nb,)) of a coordinate at x: rad or m, the row in
        residual units (a slide over its mechanism's size) and scaled columns."""
        g, nb = c.group, self.model.nb
        rg, A = body_arrays(self.model, *x)[:2]
        phi, jac = np.empty(1), np.zeros((1, 12))
        KERNELS[g.kind](g, rg, A, None, None, phi, jac, None)
        row = np.zeros(6 * (nb + 1))
        row[6 * g.bi[0]: 6 * g.bi[0] + 6] += jac[0, :6]
        row[6 * g.bj[0]: 6 * g.bj[0] + 6] += jac[0, 6:]
        return float(phi[0]), row[: 6 * nb] / (self._unit(c) * self.cw)

    def value(self, joint: str, name: str | None = None) -> float:
        """The coordinate's present value: rad (an angle a limit bounds on its joint's
        continuous turns, which the drags follow: analyses/limit_turns.py; another in
        (-pi, pi]), or m."""
        c = self.coordinate(joint, name)
        return self._continuous(c, self._coordinate_row(c, (self.r, self.p))[0])

    def _continuous(self, c: Coordinate, q: float) -> float:
        """An angle q (rad, atan2's) of a coordinate its limits bound on the turn nearest
        the limits' last one (the Poser's ``_turns``), of a coupled one on the turn its
        coupler follows (the Poser's ``_track``); else q."""
        if c.group.kind != ANGLE:
            return q
        if c.own.size and self._turns is not None:
            near = float(self._turns[c.own[0]])
        elif c.tracked >= 0 and self._track is not None:
            near = float(self._track[c.tracked])
        else:
            return q
        return q + 2.0 * np.pi * round((near - q) / (2.0 * np.pi))

    def _span(self, c: Coordinate, q: float) -> tuple[float, float, float]:
        """(the coordinate's value q taken on the turn of its range, the range's ends):
        rad or m; an angle without stops gets (-inf, inf), one with a lone stop is open on
        its other side; a range wider than a turn takes q as it is (on the joint's
        continuous turns)."""
        lo, hi = allowed(*c.limits, c.group.kind == ANGLE)
        if c.group.kind == ANGLE and np.isfinite(lo) and not hi - lo > 2.0 * np.pi:
            mid = 0.5 * (lo + hi)
            q = mid + wrap(q - mid)
        return q, lo, hi

    def _hold(self, c: Coordinate | None, x, target: float, start=None):
        """Least-movement Newton from x with the held rows (joints, motions, the stops held)
        and the coordinate at ``target`` (an angle taken on the turn nearest to it; c None:
        no coordinate row): the pose and its tracked values, or None.  ``start``: a pose
        to start from first (``_predicted``: on the branch the steps came along), x if
        Newton fails from it."""
        rows, cw = self._held(), self.cw
        angle = c is not None and c.group.kind == ANGLE
        unit = 1.0 if c is None else self._unit(c)

        problem = HoldCoordinate(self, c, rows, target, angle, unit, cw, wrap, self._keep)
        tol, step_tol = (float(v) for v in rounding_tols(x[0], self.model.body_size))  # far
        for x0 in ((x,) if start is None else (start, x)):
            out = newton(problem, x0, NewtonOptions(40, tol, step_tol, line_search=True,
                                                    stall=(0.9, 8)))
            if out.ok and out.err <= tol:
                return self._on_the_curves((out.x, out.data[0].track))
        return None

    def _predicted(self, c: Coordinate, x, step: float):
        """Where a step of ``step`` (rad or m) of c from the pose x starts its Newton: x
        carried on along the last step of c (``_came``: the secant from the pose before,
        scaled to this step) when x is at a singular position (BRANCH_SHARE), else None
        (Newton from x).  There the branches meet and the least movement from x holds no
        record of the one the steps came along: a parallelogram set onto its lined-up
        position went on crossed."""
        came = self._came
        if (came is None or came[:2] != (c.joint, c.name) or not came[4]
                or not (np.array_equal(came[3][0], x[0]) and np.array_equal(came[3][1], x[1]))):
            return None
        model = self.model
        J = np.vstack([scaled_jacobian(model, global_jacobian(model, self._evaluate(x)[0].jac),
                                       self._held()), self._coordinate_row(c, x)[1]])
        sv = np.linalg.svd(J, compute_uv=False)
        if sv[-1] >= BRANCH_SHARE * sv[0]:
            return None
        (r0, p0), (r1, p1), f = came[2], came[3], step / came[4]
        p0 = np.where(np.sum(p0 * p1, axis=-1, keepdims=True) < 0.0, -p0, p0)   # (q, -q)
        p = p1 + f * (p1 - p0)
        return r1 + f * (r1 - r0), p / np.linalg.norm(p, axis=-1, keepdims=True)

    def _on_the_curves(self, out):
        """``out`` (a pose and its tracked values), or None where a curve contact lies past
        the end of its open curve: the spline continued past the end closes the rows there,
        but there is no slot, so posing goes no further than the end (as the assembly,
        analyses/start/assembly.py, refuses to close a joint there)."""
        if out is None:
            return None
        for name, k, curve in curve_contacts(self.model):
            if not curve.inside(float(out[1][k])):
                self._past_end = name
                return None
        return out

    def _passed(self, c: Coordinate, out) -> np.ndarray:
        """The free bounds (not c's own: clamped) that the pose of ``out`` = (pose, its
        tracked values) lies past."""
        bd = self._bounds
        if bd is None:
            return np.zeros(0, int)
        g = self._gaps(*out)
        free = ~np.isin(np.arange(len(g)), np.concatenate([self._active, c.own]))
        return np.flatnonzero(free & (g < -bd.tol))

    def _step_to(self, c: Coordinate, x, target: float, start=None):
        """One small step of the coordinate to ``target`` with the stops: (pose, tracks,
        True when a stop ended the move there), or None when the joints cannot close.
        ``start``: the pose its Newton starts from first (``_hold``)."""
        out = self._let_go(c, x, target, self._hold(c, x, target, start))
        if out is None and self._active.size:   # a stop held here blocks the move: stay
            out = self._hold(None, x, 0.0)
            return None if out is None else (*out, True)
        if out is None:
            return None
        passed = self._passed(c, out)
        while passed.size:                     # stops reached on the way: hold them
            self._active = np.union1d(self._active, passed)
            again = self._hold(c, x, target)
            if again is None:                  # no way on with them held: stop at them
                out = self._hold(None, x, 0.0)
                return None if out is None else (*out, True)
            out, passed = again, self._passed(c, again)
        return (*out, False)

    def _let_go(self, c: Coordinate, x, target: float, out):
        """``out`` (the step to target with the stops held; None: there is none), or the
        same step with a held stop let go when the coordinate then moves its joint back
        into its range."""
        for j in self._active:
            held = self._active
            self._active = held[held != j]
            free = self._hold(c, x, target)
            if free is not None and self._gaps(*free)[j] >= -self._bounds.tol[j] and \
                    not self._passed(c, free).size:
                out = free
            else:
                self._active = held
        return out

    def _move(self, c: Coordinate, delta: float) -> float | None:
        """Move the coordinate by ``delta`` (rad or m) from its present value in steps
        small enough to stay on the branch: how far it went (delta, or less where a stop
        held it), or None (pose and stops unchanged) if a step fails."""
        q0 = self._coordinate_row(c, (self.r, self.p))[0]
        most = ANGLE_STEP if c.group.kind == ANGLE else SLIDE_STEP * self._unit(c)
        steps = max(1, int(np.ceil(abs(delta) / most)))
        x, track, active, turns = (self.r, self.p), self._track, self._active, self._turns
        came = self._came
        for k in range(1, steps + 1):
            out = self._step_to(c, x, q0 + delta * k / steps,
                                self._predicted(c, x, delta / steps))
            if out is None:
                self._track, self._active, self._turns = track, active, turns
                self._came = came
                return None
            self._came = (c.joint, c.name, x, out[0], delta / steps)
            x, self._track, stopped = out
            if stopped:
                self._came = None
                self.r, self.p = x
                d = self._coordinate_row(c, x)[0] - q0
                if c.group.kind == ANGLE:     # the turn nearest the move asked so far
                    d += 2.0 * np.pi * round((delta * k / steps - d) / (2.0 * np.pi))
                return d
        self.r, self.p = x
        return delta

    @single_thread
    def set_coordinate(self, joint: str, value: float, name: str | None = None
                       ) -> tuple[np.ndarray, np.ndarray]:
        """Pose the mechanism with joint ``joint``'s coordinate ``name`` (default its first)
        at ``value`` (rad: reached the shorter way round; a coupled angle, whose turns move
        what it drives (a screw's nut, a rack), and one across a range wider than a turn on
        the joint's turns; or m) and every held row exact, the other joints' coordinates
        the loops leave free kept where they are (``_others``), the rest moved the least;
        returns the new pose (r, p).  A value past the joint's
        own stop is clamped to the stop (reached within the range, never through the
        stop), like a hand turning the joint against it; another joint's stop reached on
        the way holds that joint, and may end the move short of the value.  ``stopped``
        says which stops hold the pose (empty: none).  SolverError naming the joint (pose
        unchanged) when a motion drives it or the value cannot be reached with the joints
        closed."""
        c = self.coordinate(joint, name)
        value = finite_number(value, f"set_coordinate: joint {joint!r}'s {c.name} "
                                     f"({'rad' if c.group.kind == ANGLE else 'm'})")
        if c.motion is not None:
            raise SolverError(f"joint {joint!r}: its {c.name} is driven by motion "
                              f"{c.motion!r}; it cannot be set by hand", self.t, (joint, c.motion))
        angle = c.group.kind == ANGLE
        q0 = self._continuous(c, self._coordinate_row(c, (self.r, self.p))[0])
        start, lo, hi = self._span(c, q0)
        if np.isfinite(lo) or np.isfinite(hi):
            want = float(np.clip(self._span(c, float(value))[0], lo, hi))
            delta = want - start
        else:
            delta = wrap(float(value) - q0) if angle and c.tracked < 0 else float(value) - q0
        self._keep, self._past_end = self._others(c), None
        try:
            went = self._move(c, delta)
            if went is None and self._keep:     # the others held block it: least movement
                self._keep = ()
                went = self._move(c, delta)
        finally:
            self._keep = ()
        if went is None:
            past = ("" if self._past_end is None else
                    f": joint {self._past_end!r} would take its point past its curve's end")
            raise SolverError(f"joint {joint!r}: its {c.name} cannot reach "
                              f"{_amount(float(value), angle)} with the other joints closed"
                              f"{_motions_held(self.model, self.t)} (it is at "
                              f"{_amount(q0, angle, self._unit(c))}){past}",
                              self.t, (joint,) + (() if self._past_end is None
                                                  else (self._past_end,)))
        g = self._gaps((self.r, self.p), self._track) if self._bounds is not None else ()
        at = [int(k) for k in c.own if g[k] <= self._bounds.tol[k]]
        self.stopped = tuple(held_stop(self._bounds, int(k)) for k in np.union1d(at, self._active))
        return self.r, self.p

    @single_thread
    def coordinate_range(self, joint: str, name: str | None = None,
                         tol: float = 1e-6) -> CoordinateRange:
        """How far the coordinate can be set each way from the present pose: swept in
        steps until the joints cannot close (located to ``tol`` rad, or ``tol`` of the
        slider's mechanism's size), a stop (its own, or another joint's that leaves it no
        way on) or, for an angle, a whole turn (a crank: ``full_turn``; a coupled angle, a
        turn each way; a joint with one stop: a turn from the stop on its open side); a
        slide is swept at most 10 of its mechanism's sizes each way.  The pose is left as
        it was."""
        c = self.coordinate(joint, name)
        if c.motion is not None:
            raise SolverError(f"joint {joint!r}: its {c.name} is driven by motion "
                              f"{c.motion!r}", self.t, (joint, c.motion))
        angle = c.group.kind == ANGLE
        start, track, active, turns = (self.r, self.p), self._track, self._active, self._turns
        q0, lo, hi = self._span(c, self._continuous(c, self._coordinate_row(c, start)[0]))
        if angle and np.isfinite(lo) != np.isfinite(hi):     # a lone stop: a turn from it
            lo, hi = (lo, lo + 2.0 * np.pi) if np.isfinite(lo) else (hi - 2.0 * np.pi, hi)
        unit = self._unit(c)
        step = 5.0 * ANGLE_STEP if angle else 10.0 * SLIDE_STEP * unit
        # a whole turn each way for an angle (a range wider than a turn: to its stops)
        reach = ((np.inf if np.isfinite(lo) and np.isfinite(hi) else 2.0 * np.pi) if angle
                 else 10.0 * unit)
        eps = tol * unit
        ends = []
        for sign, stop in ((1.0, hi), (-1.0, lo)):
            span = min(reach, max(0.0, sign * (stop - q0)))
            done = 0.0
            self.r, self.p = start
            self._track, self._active, self._turns = track, active, turns
            while done < span:
                d = min(step, span - done)
                went = self._move(c, sign * d)
                if went is not None:
                    done += abs(went)
                    if abs(went) < d - eps:
                        break                   # another joint's stop
                    continue
                low, high = 0.0, d              # bisect the failing step
                while high - low > eps:
                    mid = 0.5 * (low + high)
                    went = self._move(c, sign * (mid - low))
                    if went is None:
                        high = mid
                    else:
                        short = abs(went) < mid - low - eps
                        low += abs(went)
                        if short:
                            high = low          # a stop in the bisected step
                done += low
                break
            ends.append(q0 + sign * done)
            if (angle and c.tracked < 0 and sign > 0 and not np.isfinite(hi)
                    and done >= reach - eps):
                self.r, self.p = start
                self._track, self._active, self._turns = track, active, turns
                return CoordinateRange(joint, c.name, -np.pi, np.pi, True)     # a crank
        self.r, self.p = start
        self._track, self._active, self._turns = track, active, turns
        return CoordinateRange(joint, c.name, ends[1], ends[0], False)


def _motions_held(model, t: float) -> str:
    """" and motion(s) ... held at t = ... s": the motions that hold their values while a
    coordinate is set (a driven crank holds the slide of its piston too); "" for none."""
    names = model.motion_names
    if not names:
        return ""
    said = ", ".join(repr(n) for n in names)
    return f" and motion{'s' if len(names) > 1 else ''} {said} held at t = {t:.6g} s"


def _coupled_index(model, joint: str, name: str) -> int:
    """The index of joint ``joint``'s coordinate ``name`` among the couplers' coordinates
    (CouplerPlan: the first ``n`` of the tracked values), or -1 when no coupler has it."""
    cp = model.couplers
    if cp is None:
        return -1
    for c, joints in enumerate(cp.coupled):
        for i, jt in enumerate(joints):
            k = int(cp.terms[c, i])
            if jt == joint and bool(cp.is_angle[k]) == (name == "angle"):
                return k
    return -1
