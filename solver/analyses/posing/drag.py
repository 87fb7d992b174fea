"""Posing by hand: drag a point of a part towards a target, or set one joint coordinate,
with every joint (and every motion at the posing's time) held exactly.

A ``Poser`` is made once per interaction (a mouse drag, a slider being moved) from the
compiled Model and a start pose; it keeps its own workspace (the held rows, the row and
column scales, the tracked values of couplers and curve joints, the current pose), the
model is only read.  Each call starts from the pose the previous call left (warm start), so
the mechanism follows one branch.

Drag (``drag_to``): minimise |P(q) - T|^2 subject to Phi(q) = 0 (P the grabbed point, T
the target, Phi the held rows).  Each step closes Phi to first order and moves along the
held rows' free directions: by Gauss-Newton (point rows below the held rows in priority:
among such steps the one that moves the point as close to T as it can with the smallest
weighted motion) while it converges fast, which it does, quadratically, when T is reached;
by Newton on the Lagrangian (drag_newton.py: the full Hessian, the curvature of the
point's path and of the joints included) once the linearised point rows cannot reach T or a
Gauss-Newton step leaves more than a quarter of |P - T|^2 (T out of reach: Gauss-Newton
would converge linearly, or crawl where the joints pull straight, and leave the pose short
of the closest one).  The pose is brought back onto Phi = 0 by Newton
(``algebra.newton.newton``, chord steps with the step's own Jacobian, else the
least-movement assembly of analyses/start/assembly.py), and the step is shortened (Armijo,
quadratic interpolation) until |P - T| decreases.  A far step is cut to turn no body by more
than MAX_ROTATION and move none by more than MAX_MOVE of the mechanism's size; after such a
cut step taken whole whose drop the linear model foretold (AGREE), the caps double, up to
REACH times (a trust region: Nocedal and Wright 2006, 4.1), back to them after any other.
Either way one call ends on the target or on the closest pose the joints allow (the
Lagrange conditions met to rounding: Newton's steps, past what |P - T|^2 can tell, stop
shrinking; a step under STATIONARY is taken, then ends it), unless its step count or time
budget runs out first.

Stops (drag_stops.py): the joints' limits are inequalities with an active set.  A step
that would carry a coordinate past its bound is cut where the bound is reached, and the
bound is held from then on (one more held row) while the point goes on as close to the
target as the other joints allow; it is let go when the pull's reaction on it would pull
(its multiplier changes sign) and a step without it moves the joint back into its range.
A start past a bound is brought to it first.

Wiggle (``set_coordinate``, ``coordinate_range``): in wiggle.py, the Poser's other half.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ...algebra.blas import single_thread
from ...algebra.newton import (NEWTON_TOL, NewtonOptions, converged, newton, rounding_tols,
                               scaled_jacobian, scales, step_pose, step_size)
from ...base.errors import ExpressionError, SolverError
from ...base.rotations import quat_to_matrix, skew
from ...kernels.constraints import body_arrays, evaluate, global_jacobian, motion_values, residual
from ...model.compile import Model
from ...vocabulary.validate import vector
from ..start.assembly import assemble_pose, least_movement, sparse_assembly
from ..dynamics.stops import amount, describe
from ..start.singular_start import nearby_structure
from ..structure import structure
from .drag_newton import ESCAPE, newton_step, reduced_hessian
from .drag_stops import HeldStop, blocking, bounds_of, gaps, held_stop
from ..limit_turns import on_turn, pose_turns
from .held_newton import ChordOntoRows, held_directions
from .wiggle import Coordinate, CoordinateRange, Wiggle

__all__ = ["Coordinate", "CoordinateRange", "Poser", "joint_kinds"]

MAX_ROTATION = 0.3      # rad: the largest turn of a body in one drag step
MAX_MOVE = 0.25         # of the dragged part's mechanism's size: a body's largest move a step
STATIONARY = 1e-11      # scaled step at which an unreachable target's closest point is found
DAMPING = 1e-12         # Levenberg term on the point rows (scaled), keeps singular poses calm
UNREACHED = 0.25        # the linearised point rows keep this share of |P - T|^2: out of reach
SLOW = 0.25             # a Gauss-Newton step keeps this share of |P - T|^2: on with Newton
PUSH_TOL = 1e-9         # a held stop's multiplier below -PUSH_TOL x the largest: it pulls
REACH = 2.0             # the step caps' largest multiple (a trust region's radius)
AGREE = 0.5             # a capped step dropping this x its linear prediction: caps doubled
SHRINK = 0.25           # a Newton step past f's resolution not below this x the last: noise


def joint_kinds(model: Model) -> dict[str, str]:
    """Joint name -> kind ("revolute", ...)."""
    return dict(zip(model.joint_names, model.joint_kind))


@dataclass
class _Direction:
    """One drag step's direction (Poser._drag_direction)."""
    dq: np.ndarray              # (6 nb,) the whole step
    free: np.ndarray            # its move along the joints' freedoms
    pinv: np.ndarray            # the held rows' pseudo-inverse (scaled)
    newton: bool                # a Newton step at a minimum's curvature
    curved: bool                # lengthened down a negative curvature (drag_newton.py)
    fitted: bool                # damped to fit the caps (Poser._fit)
    push: np.ndarray            # (nactive,) the held stops' push (<0: it would pull)
    mu_size: float              # the largest multiplier of any held row (scaled)
    gap: np.ndarray             # (nbound,) every bound's gap (rad or m)
    rate: np.ndarray            # (nbound,) its change per unit step


class Poser(Wiggle):
    """The drag and wiggle workspace of one interaction (module docstring).

    ``r`` (nb, 3) centre-of-mass positions (m) and ``p`` (nb, 4) Euler parameters of the
    start pose (Model body order); it is assembled first (least movement, motions at time
    ``t``, s; a coordinate past one of its stops brought to the stop).  ``pose`` is the
    present (r, p); ``stopped`` names the stops that held the last pose."""

    @single_thread
    def __init__(self, model: Model, r: np.ndarray, p: np.ndarray, t: float = 0.0) -> None:
        self.model, self.t = model, float(t)
        try:
            self._f = motion_values(model, self.t)
        except ExpressionError as exc:
            raise SolverError(str(exc), self.t) from None
        asm = assemble_pose(model, np.array(r, float), np.array(p, float), self.t)
        self.r, self.p = asm.r, asm.p
        st = asm.structure or structure(model, self.r, self.p)
        # at a singular start (a parallelogram lined up) the rows independent near it
        st = nearby_structure(model, st, self.r, self.p, self.t, asm.track) or st
        self.rows = st.keep                        # independent joint, coupler, motion rows
        self.rs, self.cw = scales(model)
        self._assemblies: dict[bytes, object] = {}   # held rows -> their banded solve
        self._bounds = bounds_of(model)            # the stops (drag_stops.py)
        self._active = np.zeros(0, int)            # ... held at their bounds
        self.stopped: tuple[HeldStop, ...] = ()
        self._track = self._turns = None
        # the assembly's tracked values (a coupled angle a motion starts turns away keeps
        # its turns), else the pose's as built
        self._track = (asm.track if asm.track is not None
                       else self._evaluate((self.r, self.p))[0].track)
        self._turns = pose_turns(model, self.r, self.p, self.t, self._track)   # limit_turns.py
        self._second = False                       # drag: Newton from the first step
        self._rest = None        # (pose, aim, size): the last drag's last whole Newton step
        self._kinds = joint_kinds(model)
        if self._bounds is not None:
            self._start_inside()

    # ---------------------------------------------------------------- shared pieces
    @property
    def pose(self) -> tuple[np.ndarray, np.ndarray]:
        return self.r, self.p

    def part_poses(self) -> tuple[np.ndarray, np.ndarray]:
        """(positions (nb, 3) of the part-frame origins, m; unit quaternions (nb, 4) with
        w >= 0), in Model body order (``model.body_part``)."""
        q = self.p / np.linalg.norm(self.p, axis=1, keepdims=True)
        q = np.where(q[:, :1] < 0, -q, q)
        return self.r - np.einsum("bij,bj->bi", quat_to_matrix(q), self.model.body_com), q

    def _evaluate(self, x, need_jac: bool = True):
        """(row evaluation, scaled residual of every row) at pose x = (r, p)."""
        ev = evaluate(self.model, *body_arrays(self.model, *x)[:2], need_jac=need_jac,
                      ref=self._track)
        return ev, residual(self.model, ev.phi, self._f, self._near(ev.phi)) * self.rs

    def _near(self, phi: np.ndarray) -> np.ndarray | None:
        """(nbound,) the limits' coordinates at a pose (rows' phi (nc,)), each angle on its
        joint's continuous turns: the turn nearest the last pose's, which they then follow
        (every pose posing evaluates lies within a step, REACH x MAX_ROTATION, of the last
        one);
        None without limits."""
        if self._turns is None:
            return None
        self._turns = on_turn(self.model, phi[self.model.limits.rows], self._turns)
        return self._turns

    def _held(self) -> np.ndarray:
        """The rows held: the independent joint, coupler and motion rows, and the stops at
        their bounds."""
        if not self._active.size:
            return self.rows
        return np.concatenate([self.rows, self._bounds.rows[self._active]])

    def _gaps(self, x, track) -> np.ndarray:
        """(nbound,) every bound's gap (rad or m, >= 0 inside) at pose x with its tracks."""
        ev = evaluate(self.model, *body_arrays(self.model, *x)[:2], need_jac=False, ref=track)
        return gaps(self._bounds, ev.phi, self._near(ev.phi))

    def _project(self, x, pinv: np.ndarray | None):
        """x brought back onto the held rows: Newton with the chord steps -pinv res (the
        Jacobian of the step's start), else the least-movement assembly from where the
        chord steps ended (from x if they got no closer); None if neither converges, or a
        curve contact lies past its open curve's end (``_on_the_curves``)."""
        rows, cw = self._held(), self.cw
        tol, step_tol = (float(v) for v in rounding_tols(x[0], self.model.body_size))  # far
        if pinv is not None:
            chord = ChordOntoRows(self, rows, pinv, cw)
            out = newton(chord, x, NewtonOptions(8, tol, step_tol))
            if out.ok:
                return self._on_the_curves((out.x, out.data[0].track))
            if out.err < chord.start:
                x = out.x
        out = least_movement(self.model, *x, self._f, rows, 12, self._turns,
                             self._sparse(rows))
        if out.ok and out.err <= tol:
            return self._on_the_curves((out.x, self._evaluate(out.x, need_jac=False)[0].track))
        return None

    def _sparse(self, rows: np.ndarray):
        """The least-movement step's banded solve for the held ``rows``, made once per set
        of rows (``assembly.sparse_assembly``: its ordering and pattern depend on the rows
        alone; a far drag falls back on it at most steps)."""
        key = rows.tobytes()
        if key not in self._assemblies:
            self._assemblies[key] = sparse_assembly(self.model, self.cw, rows)
        return self._assemblies[key]

    def _settle(self, moved, extra: tuple[int, ...] = ()):
        """``moved`` = (pose, tracks) with every free bound it lies past (and ``extra``)
        held at its stop from now on, the pose brought onto them (least movement); None
        (the stops as they were) if the joints cannot close so."""
        bd = self._bounds
        if bd is None:
            return moved
        active = self._active
        for _ in range(len(bd.rows) + 1):
            g = self._gaps(*moved)
            free = ~np.isin(np.arange(len(g)), self._active)
            new = np.union1d(np.flatnonzero(free & (g < -bd.tol)), np.array(extra, int))
            if not new.size:
                return moved
            extra = ()
            self._active = np.union1d(self._active, new)
            moved = self._project(moved[0], None)
            if moved is None:
                break
        self._active = active
        return None

    def _start_inside(self) -> None:
        """A start past a stop brought to it (least movement); SolverError naming the limit
        when the joints cannot close so (a motion holding the joint outside its range)."""
        g = self._gaps((self.r, self.p), self._track)
        past = np.flatnonzero(g < -self._bounds.tol)
        if not past.size:
            return
        moved = self._settle(((self.r, self.p), self._track))
        if moved is None:
            b = int(past[0])
            raise SolverError(f"the mechanism starts outside a limit: {describe(self.model, b)} "
                              f"by {amount(self.model, b, float(-g[b]), 3)}, and the "
                              "joints and motions held cannot bring it to its stop",
                              self.t, (self._bounds.names[b], self._bounds.joints[b]))
        (self.r, self.p), self._track = moved
        self.stopped = tuple(held_stop(self._bounds, int(k)) for k in self._active)

    # ---------------------------------------------------------------- drag
    def _body(self, part: str) -> int:
        try:
            return self.model.body_part.index(part)
        except ValueError:
            fixed = part in self.model.fixed_parts
            raise SolverError(f"part {part!r} " + ("is ground: it does not move" if fixed else
                                                   "is not a part of the mechanism"),
                              self.t, (part,)) from None

    def _point(self, x, b: int, u: np.ndarray):
        """World point (3,) of body b's arm u (from its centre of mass, body axes) and
        its arm in world axes."""
        a = quat_to_matrix(x[1][b]) @ u
        return x[0][b] + a, a

    @single_thread
    def drag_to(self, part: str, point: np.ndarray, target: np.ndarray, max_iter: int = 30,
                budget: float | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Pull ``point`` of ``part`` (m, in the part's frame) towards ``target`` (m, world)
        as far as the joints and their stops allow, every held row (joints, couplers,
        motions at t) exact; returns the new pose (r, p) and keeps it for the next call.
        Stops when the point is on the target, at the closest pose the joints allow (the
        Lagrange conditions met, every held stop pushing: Newton with the full Hessian
        converges there quadratically, so one call lands on it), or after ``max_iter``
        steps or ``budget`` seconds (a pose as close as found so far, assembled: a live
        drag goes on from it at the next mouse move)."""
        start = time.perf_counter()
        b = self._body(part)
        u = vector(point, 3, f"drag_to: the point on part {part!r} (m)") - self.model.body_com[b]
        T = vector(target, 3, f"drag_to: the target of part {part!r} (m)")
        model = self.model
        L = float(model.body_size[b])             # the dragged part's mechanism's size, m
        x = (self.r, self.p)
        P, a = self._point(x, b, u)
        e = P - T
        f0 = float(e @ e)
        last = 1.0                                    # the last step's length
        aim = (b, u.tobytes(), T.tobytes())
        rest = self._rest                     # the same aim from the pose it left: its noise
        whole = rest[2] if rest and rest[0] is x[0] and rest[1] == aim else np.inf
        second = self._second                 # Newton from the start (out of reach last time)
        reach = 1.0                           # the caps' multiple (MAX_ROTATION, MAX_MOVE)
        for _ in range(max_iter):
            if converged(np.sqrt(f0) / L, np.inf):
                break
            step = self._drag_step(x, b, u, a, e, T, second, reach)
            size = float(step_size(model, step.free))
            d = step.dq.reshape(-1, 6)
            alpha = min(1.0, reach * MAX_ROTATION / max(np.abs(d[:, 3:]).max(), 1e-300),
                        reach * MAX_MOVE * L / max(np.abs(d[:, :3]).max(), 1e-300))
            capped = alpha < 1.0 or step.fitted
            G = self._point_jacobian(b, a)
            df0 = 2.0 * float(e @ (G @ step.free))   # d|P - T|^2 / d alpha at 0 (yc: rounding)
            if df0 >= 0.0 and not step.curved:
                break                                 # stationary: the closest point
            stop = -1
            if self._bounds is not None:          # a stop on the way: go as far as it
                free = ~np.isin(np.arange(len(step.gap)), self._active)
                alpha, stop = blocking(step.gap, step.rate, free, alpha)
            if -alpha * df0 <= 1e3 * NEWTON_TOL * L * np.sqrt(f0) and not step.curved:
                # the drop is below what the joints' own tolerance lets |P - T|^2 tell: a
                # Newton step whole, a Gauss-Newton one as long as the last, and no test;
                # a Newton step not shrinking after a whole one is the rounding noise of
                # the gradient and the Hessian: the closest pose is reached
                if step.newton and stop < 0 and size > SHRINK * whole:
                    break
                if stop < 0:
                    alpha = alpha if step.newton else min(alpha, last)
                moved = self._project(step_pose(*x, step.dq, alpha), step.pinv)
                taken = alpha
            else:
                found = self._line_search(x, step.dq, alpha, step.pinv, b, u, T, f0, df0)
                moved, taken = (None, 0.0) if found is None else (found[0], found[4])
            if moved is not None and self._bounds is not None:
                moved = self._settle(moved, (stop,) if stop >= 0 and taken == alpha else ())
            if moved is None:
                break                                 # no step gets closer
            last = taken
            whole = size if step.newton and stop < 0 and taken == 1.0 else np.inf
            x, self._track = moved
            P1, a = self._point(x, b, u)
            f1 = float((P1 - T) @ (P1 - T))
            # Gauss-Newton converging slowly (linearly: the target is out of reach)
            second = second or f1 > SLOW * f0
            # a trust region: a capped step taken whole whose drop the linear model foretold
            # lets the next go twice as far, up to REACH times the caps; else back to them
            reach = (min(2.0 * reach, REACH) if capped and stop < 0 and taken == alpha and
                     f0 - f1 >= AGREE * -taken * df0 else 1.0)
            e, f0 = P1 - T, f1
            if (taken * size <= STATIONARY and stop < 0) or \
                    budget is not None and time.perf_counter() - start > budget:
                break
        self.r, self.p = x
        self._second = second and not converged(np.sqrt(f0) / L, np.inf)
        self._rest = (self.r, aim, whole)
        if self._bounds is not None:
            self.stopped = tuple(held_stop(self._bounds, int(k)) for k in self._active)
        return x

    def _drag_step(self, x, b: int, u: np.ndarray, a: np.ndarray, e: np.ndarray,
                   T: np.ndarray, second: bool, reach: float = 1.0) -> _Direction:
        """The drag direction from x, a held stop let go first when it would have to pull
        (the most negative multiplier) and the direction without it moves its joint back
        into its range."""
        step = self._drag_direction(x, b, u, a, e, T, second, reach)
        if not step.push.size or step.push.min() >= -PUSH_TOL * step.mu_size:
            return step
        held = self._active
        j = int(held[int(np.argmin(step.push))])
        self._active = held[held != j]
        trial = self._drag_direction(x, b, u, a, e, T, second, reach)
        if trial.rate[j] > 0.0:
            return trial
        self._active = held
        return step

    def _point_jacobian(self, b: int, a: np.ndarray) -> np.ndarray:
        """dP/dq (3, 6 nb) of body b's point with world arm a."""
        G = np.zeros((3, 6 * self.model.nb))
        G[:, 6 * b: 6 * b + 3] = np.eye(3)
        G[:, 6 * b + 3: 6 * b + 6] = -skew(a)
        return G

    def _drag_direction(self, x, b: int, u: np.ndarray, a: np.ndarray, e: np.ndarray,
                        T: np.ndarray, second: bool, reach: float = 1.0) -> _Direction:
        """One drag step from x with the held rows (the stops at their bounds among them).
        The step closes the held rows to first order (yc) and moves along their free
        directions N by Gauss-Newton, point rows below the held rows in priority; by Newton
        on the Lagrangian (drag_newton.py) when ``second`` or when the linearised point
        rows keep more than UNREACHED of |P - T|^2 (the target out of reach), a saddle's
        step damped to fit the caps ``reach`` times MAX_ROTATION and MAX_MOVE (``_fit``).
        The held stops' pushes are their multipliers of the pull (least squares), -sgn mu."""
        model, cw, rows = self.model, self.cw, self._held()
        L = float(model.body_size[b])             # as drag_to's
        ev, res = self._evaluate(x)
        J = global_jacobian(model, ev.jac)
        Js = scaled_jacobian(model, J, rows)
        pinv, N = held_directions(Js)                      # N: free directions (scaled)
        Gs = self._point_jacobian(b, a) / (cw * L)
        yc = -pinv @ res[rows]
        A = Gs @ N
        rhs = -(e / L + Gs @ yc)
        Ua, Sa, Vta = np.linalg.svd(A, full_matrices=False)
        z = Vta.T @ (Sa / (Sa * Sa + DAMPING) * (Ua.T @ rhs))      # Gauss-Newton
        lin = rhs - A @ z                          # what the linear model leaves of P - T
        newton_dir = curved = fitted = False
        g = Gs.T @ (e / L)                                 # grad F (scaled)
        mu = -(pinv.T @ g)
        unreached = float(lin @ lin) > UNREACHED * float(rhs @ rhs)
        if N.shape[1] and (second or unreached):
            # the target is out of the joints' reach: Newton on the Lagrangian
            H = reduced_hessian(model, x, N, rows, mu, b, u, T, cw, self._track)
            z, newton_dir, curved, damped, scale = newton_step(H, -(A.T @ rhs), ESCAPE * L,
                                                               unreached)
            if not newton_dir:                 # a saddle: damped to the caps, not cut
                z, fitted = self._fit(z, damped, scale, N, yc, reach, L)
        free = (N @ z) / cw                    # the move along the joints' freedoms
        dq = yc / cw + free
        bd = self._bounds
        size = float(np.max(np.abs(mu), initial=0.0))
        if bd is None:
            return _Direction(dq, free, pinv, newton_dir, curved, fitted, np.zeros(0), size,
                              np.zeros(0), np.zeros(0))
        push = -bd.sgn[self._active] * mu[len(self.rows):]
        return _Direction(dq, free, pinv, newton_dir, curved, fitted, push, size,
                          gaps(bd, ev.phi, self._near(ev.phi)),
                          bd.sgn * (J[bd.rows] @ dq))

    def _fit(self, z, damped, scale, N, yc, reach, L):
        """A saddle's step z made to fit the caps (reach x MAX_ROTATION and MAX_MOVE) by
        the least damping that does (``damped(lm)``, lm from 1e-12 to 1e6 times the largest
        curvature ``scale``, bisected on its log: Levenberg-Marquardt as a trust region,
        Nocedal and Wright 2006, 4.3), and True; (z, False) when it fits already or no
        damping fits it.  Cut to the caps instead, a saddle-free step goes mostly where the
        curvature is faint (the gradient over a small size): a spatial chain of three
        links then crept 1e-3 to 1e-2 of the step a step, 30 steps a call."""
        cw = self.cw

        def fits(z) -> float:
            d = (yc + N @ z).reshape(-1, 6) / cw.reshape(-1, 6)
            return min(reach * MAX_ROTATION / max(np.abs(d[:, 3:]).max(), 1e-300),
                       reach * MAX_MOVE * L / max(np.abs(d[:, :3]).max(), 1e-300))
        if scale <= 0.0 or fits(z) >= 1.0:
            return z, False
        lo, hi = -12.0, 6.0                       # log10 of lm / scale
        if fits(damped(scale * 10.0 ** hi)) < 1.0:
            return z, False
        for _ in range(12):
            mid = 0.5 * (lo + hi)
            if fits(damped(scale * 10.0 ** mid)) >= 1.0:
                hi = mid
            else:
                lo = mid
        return damped(scale * 10.0 ** hi), True

    def _line_search(self, x, dq, alpha, pinv, b, u, T, f0, df0):
        """The step alpha dq (projected onto the held rows) shortened until |P - T|^2
        drops (Armijo, quadratic interpolation): (pose and tracks, arm, point, |P - T|^2, alpha) or None."""
        for _ in range(12):
            moved = self._project(step_pose(*x, dq, alpha), pinv)
            if moved is None:
                alpha *= 0.5
                continue
            P1, a1 = self._point(moved[0], b, u)
            f1 = float((P1 - T) @ (P1 - T))
            if f1 <= f0 + 1e-4 * alpha * df0:
                return moved, a1, P1, f1, alpha
            c = (f1 - f0 - df0 * alpha) / (alpha * alpha)
            alpha = float(np.clip(-df0 / (2.0 * c), 0.1 * alpha, 0.5 * alpha)) if c > 0 else 0.5 * alpha
        return None
