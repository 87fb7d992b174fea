"""Posing by hand: drag a point of a part towards a target, or set one joint coordinate,
with every joint (and every motion at the session's time) held exactly.

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
least-movement assembly of analyses/assembly.py), and the step is shortened (Armijo,
quadratic interpolation) until |P - T| decreases.  Either way one call ends on the target
or on the closest pose the joints allow (the Lagrange conditions met to rounding), unless
its step count or time budget runs out first.

Wiggle (``set_coordinate``): the least-movement assembly with one more row, the joint's
angle or slide (design.md "Conventions") held at a value, reached in small steps from the
present value so the branch is kept.  ``coordinate_range`` sweeps a coordinate to find the
range a one-DOF mechanism can move through (a full turn for a crank).
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ..algebra.newton import NEWTON_TOL, converged, newton, scaled_jacobian, scales, step_pose, step_size
from ..base.errors import ExpressionError, SolverError
from ..base.rotations import quat_to_matrix, skew
from ..kernels.constraints import KERNELS, body_arrays, evaluate, global_jacobian, motion_values, residual
from ..model.compile import Model
from ..model.plans import RowGroup, coordinate_row
from ..vocabulary.joints import ANGLE, JOINT_COORDINATES
from .assembly import assemble_pose, least_movement
from .drag_newton import newton_step, reduced_hessian
from .structure import structure

RCOND = 1e-10           # singular values below this share of the largest are not steps
MAX_ROTATION = 0.3      # rad: the largest turn of a body in one drag step
MAX_MOVE = 0.25         # of the model's length scale: the largest move of a body in one step
STATIONARY = 1e-11      # scaled step at which an unreachable target's closest point is found
DAMPING = 1e-12         # Levenberg term on the point rows (scaled), keeps singular poses calm
UNREACHED = 0.25        # the linearised point rows keep this share of |P - T|^2: out of reach
SLOW = 0.25             # a Gauss-Newton step keeps this share of |P - T|^2: on with Newton
ANGLE_STEP = 0.1        # rad: set_coordinate moves an angle in steps of at most this
SLIDE_STEP = 0.05       # of the length scale: ... and a slide in steps of at most this


@dataclass(frozen=True)
class Coordinate:
    """One joint coordinate as a one-row group that the angle and dot-2 kernels evaluate."""
    joint: str
    name: str               # "angle" | "slide"
    group: RowGroup
    motion: str | None      # the motion that drives it, if any
    limits: tuple[float | None, float | None]   # its stops (rad or m), if any


@dataclass(frozen=True)
class CoordinateRange:
    """The values a coordinate can be set to from the present pose (rad or m):
    [lower, upper], or a whole turn (``full_turn``: any angle) for a crank."""
    joint: str
    name: str
    lower: float
    upper: float
    full_turn: bool


def joint_kinds(model: Model) -> dict[str, str]:
    """Joint name -> kind ("revolute", ...)."""
    return dict(zip(model.joint_names, model.joint_kind))


class Poser:
    """The drag and wiggle workspace of one interaction (module docstring).

    ``r`` (nb, 3) centre-of-mass positions (m) and ``p`` (nb, 4) Euler parameters of the
    start pose (Model body order); it is assembled first (least movement, motions at time
    ``t``, s).  ``pose`` is the present (r, p)."""

    def __init__(self, model: Model, r: np.ndarray, p: np.ndarray, t: float = 0.0) -> None:
        self.model, self.t = model, float(t)
        try:
            self._f = motion_values(model, self.t)
        except ExpressionError as exc:
            raise SolverError(str(exc), self.t) from None
        asm = assemble_pose(model, np.array(r, float), np.array(p, float), self.t)
        self.r, self.p = asm.r, asm.p
        st = asm.structure or structure(model, self.r, self.p)
        self.rows = st.keep                        # independent joint, coupler, motion rows
        self.rs, self.cw = scales(model)
        self.L = model.length_scale
        self._track = None
        self._track = self._evaluate((self.r, self.p))[0].track
        self._second = False                       # drag: Newton from the first step
        self._kinds = joint_kinds(model)

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
        return ev, residual(self.model, ev.phi, self._f) * self.rs

    def _project(self, x, pinv: np.ndarray | None):
        """x brought back onto the held rows: Newton with the chord steps -pinv res (the
        Jacobian of the step's start), else the least-movement assembly; None if neither
        converges."""
        rows, cw = self.rows, self.cw
        if pinv is not None:
            def resid(y):
                ev, res = self._evaluate(y, need_jac=False)
                return np.max(np.abs(res[rows]), initial=0.0), (ev, res)
            out = newton(x, resid, lambda y, d: -(pinv @ d[1][rows]) / cw,
                         lambda y, dq, a: step_pose(*y, dq, a),
                         lambda y, dq, a: step_size(self.model, dq, a), 8)
            if out.ok:
                return out.x, out.data[0].track
        out = least_movement(self.model, *x, self._f, rows, 12)
        if out.ok and out.err <= NEWTON_TOL:
            return out.x, self._evaluate(out.x, need_jac=False)[0].track
        return None

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

    def drag_to(self, part: str, point: np.ndarray, target: np.ndarray, max_iter: int = 30,
                budget: float | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Pull ``point`` of ``part`` (m, in the part's frame) towards ``target`` (m, world)
        as far as the joints allow, every held row (joints, couplers, motions at t) exact;
        returns the new pose (r, p) and keeps it for the next call.  Stops when the point
        is on the target, at the closest pose the joints allow (the Lagrange conditions
        met: Newton with the full Hessian converges there quadratically, so one call lands
        on it), or after ``max_iter`` steps or ``budget`` seconds (a pose as close as found
        so far, assembled: a live drag goes on from it at the next mouse move)."""
        start = time.perf_counter()
        b = self._body(part)
        u = np.asarray(point, float) - self.model.body_com[b]
        T = np.asarray(target, float)
        model, L = self.model, self.L
        x = (self.r, self.p)
        P, a = self._point(x, b, u)
        e = P - T
        f0 = float(e @ e)
        last = 1.0                                    # the last step's length
        second = self._second                 # Newton from the start (out of reach last time)
        for _ in range(max_iter):
            if converged(np.sqrt(f0) / L, np.inf):
                break
            dq, free, pinv, newton_dir = self._drag_direction(x, b, u, a, e, T, second)
            size = float(step_size(model, free))
            if size <= STATIONARY:
                break
            d = dq.reshape(-1, 6)
            alpha = min(1.0, MAX_ROTATION / max(np.abs(d[:, 3:]).max(), 1e-300),
                        MAX_MOVE * L / max(np.abs(d[:, :3]).max(), 1e-300))
            G = self._point_jacobian(b, a)
            df0 = 2.0 * float(e @ (G @ free))     # d|P - T|^2 / d alpha at 0 (yc: rounding)
            if df0 >= 0.0:
                break                                 # stationary: the closest point
            if -alpha * df0 <= 1e3 * NEWTON_TOL * L * np.sqrt(f0):
                # the drop is below what the joints' own tolerance lets |P - T|^2 tell: a
                # Newton step whole, a Gauss-Newton one as long as the last, and no test
                alpha = alpha if newton_dir else min(alpha, last)
                moved = self._project(step_pose(*x, dq, alpha), pinv)
                if moved is None:
                    break
                P1, a1 = self._point(moved[0], b, u)
                f1 = float((P1 - T) @ (P1 - T))
            else:
                found = self._line_search(x, dq, alpha, pinv, b, u, T, f0, df0)
                if found is None:
                    break                             # no step gets closer
                moved, a1, P1, f1, alpha = found
            last = alpha
            x, self._track = moved
            # Gauss-Newton converging slowly (linearly: the target is out of reach)
            second = second or f1 > SLOW * f0
            a, e, f0 = a1, P1 - T, f1
            if alpha * size <= STATIONARY or \
                    budget is not None and time.perf_counter() - start > budget:
                break
        self.r, self.p = x
        self._second = second and not converged(np.sqrt(f0) / L, np.inf)
        return x

    def _point_jacobian(self, b: int, a: np.ndarray) -> np.ndarray:
        """dP/dq (3, 6 nb) of body b's point with world arm a."""
        G = np.zeros((3, 6 * self.model.nb))
        G[:, 6 * b: 6 * b + 3] = np.eye(3)
        G[:, 6 * b + 3: 6 * b + 6] = -skew(a)
        return G

    def _drag_direction(self, x, b: int, u: np.ndarray, a: np.ndarray, e: np.ndarray,
                        T: np.ndarray, second: bool):
        """One drag step from x: (dq, its move along the joints' freedoms, the held rows'
        pseudo-inverse, True for a Newton step at a minimum's curvature).  The step closes
        the held rows to first order (yc) and moves along their free directions N by
        Gauss-Newton, point rows below the held rows in priority; by Newton on the
        Lagrangian (drag_newton.py) when ``second`` or when the linearised point rows keep
        more than UNREACHED of |P - T|^2 (the target out of reach)."""
        model, L, cw, rows = self.model, self.L, self.cw, self.rows
        ev, res = self._evaluate(x)
        Js = scaled_jacobian(model, global_jacobian(model, ev.jac), rows)
        U, S, Vt = np.linalg.svd(Js, full_matrices=True)
        k = int(np.sum(S > RCOND * S[0])) if S.size else 0
        pinv = (Vt[:k].T / S[:k]) @ U[:, :k].T
        N = Vt[k:].T                                       # free directions (scaled)
        Gs = self._point_jacobian(b, a) / (cw * L)
        yc = -pinv @ res[rows]
        A = Gs @ N
        rhs = -(e / L + Gs @ yc)
        Ua, Sa, Vta = np.linalg.svd(A, full_matrices=False)
        z = Vta.T @ (Sa / (Sa * Sa + DAMPING) * (Ua.T @ rhs))      # Gauss-Newton
        lin = rhs - A @ z                          # what the linear model leaves of P - T
        newton_dir = False
        if N.shape[1] and (second or float(lin @ lin) > UNREACHED * float(rhs @ rhs)):
            # the target is out of the joints' reach: Newton on the Lagrangian
            g = Gs.T @ (e / L)                             # grad F (scaled)
            H = reduced_hessian(model, x, N, rows, -(pinv.T @ g), b, u, T, cw, self._track)
            z, newton_dir = newton_step(H, -(A.T @ rhs))
        free = (N @ z) / cw                    # the move along the joints' freedoms
        return yc / cw + free, free, pinv, newton_dir

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

    # ---------------------------------------------------------------- wiggle
    def coordinate(self, joint: str, name: str | None = None) -> Coordinate:
        """Joint ``joint``'s coordinate ``name`` ("angle" or "slide"; default the joint's
        first); SolverError naming the joint if it has none."""
        model = self.model
        if joint not in model.joint_names:
            raise SolverError(f"joint {joint!r} is not a joint of the mechanism", self.t, (joint,))
        kind = self._kinds.get(joint, "")
        allowed = JOINT_COORDINATES.get(kind, ())
        name = name or (allowed[0] if allowed else None)
        if name not in allowed:
            raise SolverError(f"joint {joint!r} ({kind or 'a curve joint'}) has no "
                              f"{name or 'angle or slide'} to set (revolute, prismatic and "
                              "cylindrical joints have)", self.t, (joint,))
        jn = model.joint_names.index(joint)
        mi, mj = model.joint_marker_i[jn], model.joint_marker_j[jn]
        row = coordinate_row(mi, mj, name, model.marker_body, model.marker_point, model.marker_axes)
        one = lambda key, dtype=float: np.array([row[key]], dtype=dtype)    # noqa: E731
        g = RowGroup(row["kind"], slice(0, 1), one("bi", int), one("bj", int), one("bj", int),
                     one("ui"), one("uj"), one("a"), one("b"), np.zeros(1))
        motion = None
        for k in np.flatnonzero(model.row_motion >= 0):
            if model.row_label[k].endswith(f": {name} of {joint}"):
                motion = model.motion_names[model.row_motion[k]]
        lower = upper = None
        lm = model.limits
        if lm is not None:
            for jt, bound, value, rw in zip(lm.joints, lm.bounds, lm.value, lm.rows):
                if jt == joint and (model.row_kind[rw] == ANGLE) == (name == "angle"):
                    lower, upper = (float(value), upper) if bound == "lower" else (lower, float(value))
        return Coordinate(joint, name, g, motion, (lower, upper))

    def _coordinate_row(self, c: Coordinate, x):
        """(value, scaled Jacobian row (6 nb,)) of a coordinate at x: rad or m, the row in
        residual units (a slide over the length scale) and scaled columns."""
        g, nb = c.group, self.model.nb
        rg, A = body_arrays(self.model, *x)[:2]
        phi, jac = np.empty(1), np.zeros((1, 12))
        KERNELS[g.kind](g, rg, A, None, None, phi, jac, None)
        row = np.zeros(6 * (nb + 1))
        row[6 * g.bi[0]: 6 * g.bi[0] + 6] += jac[0, :6]
        row[6 * g.bj[0]: 6 * g.bj[0] + 6] += jac[0, 6:]
        unit = 1.0 if g.kind == ANGLE else self.L
        return float(phi[0]), row[: 6 * nb] / (unit * self.cw)

    def value(self, joint: str, name: str | None = None) -> float:
        """The coordinate's present value: rad in (-pi, pi], or m."""
        return self._coordinate_row(self.coordinate(joint, name), (self.r, self.p))[0]

    def _hold(self, c: Coordinate, x, target: float):
        """Least-movement Newton from x with the held rows and the coordinate at
        ``target`` (an angle taken on the turn nearest to it): the pose, or None."""
        rows, cw = self.rows, self.cw
        angle = c.group.kind == ANGLE
        unit = 1.0 if angle else self.L

        def gap(q: float) -> float:
            d = q - target
            return ((d + np.pi) % (2.0 * np.pi) - np.pi) if angle else d

        def resid(y):
            ev, res = self._evaluate(y)
            q, jq = self._coordinate_row(c, y)
            full = np.append(res[rows], gap(q) / unit)
            return np.max(np.abs(full)), (ev, full, jq)

        def solve(y, data):
            ev, full, jq = data
            Js = scaled_jacobian(self.model, global_jacobian(self.model, ev.jac), rows)
            return np.linalg.lstsq(np.vstack([Js, jq]), -full, rcond=RCOND)[0] / cw

        def first_alpha(dq):
            big = np.abs(dq.reshape(-1, 6)[:, 3:]).max(initial=0.0)
            return min(1.0, 0.5 / big) if big > 0 else 1.0

        out = newton(x, resid, solve, lambda y, dq, a: step_pose(*y, dq, a),
                     lambda y, dq, a: step_size(self.model, dq, a), 40, line_search=True,
                     first_alpha=first_alpha, stall=(0.9, 8))
        if not out.ok or out.err > NEWTON_TOL:
            return None
        return out.x, out.data[0].track

    def _move(self, c: Coordinate, delta: float) -> bool:
        """Move the coordinate by ``delta`` (rad or m) from its present value in steps
        small enough to stay on the branch; False (pose unchanged) if a step fails."""
        q0 = self._coordinate_row(c, (self.r, self.p))[0]
        most = ANGLE_STEP if c.group.kind == ANGLE else SLIDE_STEP * self.L
        steps = max(1, int(np.ceil(abs(delta) / most)))
        x, track, keep = (self.r, self.p), self._track, self._track
        for k in range(1, steps + 1):
            out = self._hold(c, x, q0 + delta * k / steps)
            if out is None:
                self._track = keep
                return False
            x, self._track = out
        self.r, self.p = x
        return True

    def set_coordinate(self, joint: str, value: float, name: str | None = None
                       ) -> tuple[np.ndarray, np.ndarray]:
        """Pose the mechanism with joint ``joint``'s coordinate ``name`` (default its first)
        at ``value`` (rad: reached the shorter way round, or m) and every held row exact,
        the rest moved the least; returns the new pose (r, p).  SolverError naming the
        joint (pose unchanged) when a motion drives it or the value cannot be reached."""
        c = self.coordinate(joint, name)
        if c.motion is not None:
            raise SolverError(f"joint {joint!r}: its {c.name} is driven by motion "
                              f"{c.motion!r}; it cannot be set by hand", self.t, (joint, c.motion))
        q0 = self._coordinate_row(c, (self.r, self.p))[0]
        delta = float(value) - q0
        if c.group.kind == ANGLE:
            delta = (delta + np.pi) % (2.0 * np.pi) - np.pi
        if not self._move(c, delta):
            unit = "rad" if c.group.kind == ANGLE else "m"
            raise SolverError(f"joint {joint!r}: its {c.name} cannot reach {float(value):.6g} "
                              f"{unit} with the other joints closed (it is at {q0:.6g} {unit})",
                              self.t, (joint,))
        return self.r, self.p

    def coordinate_range(self, joint: str, name: str | None = None,
                         tol: float = 1e-6) -> CoordinateRange:
        """How far the coordinate can be set each way from the present pose: swept in
        steps until the joints cannot close (located to ``tol`` rad, or ``tol`` of the
        length scale), a stop or, for an angle, a whole turn (a crank: ``full_turn``);
        a slide is swept at most 10 length scales each way.  The pose is left as it was."""
        c = self.coordinate(joint, name)
        if c.motion is not None:
            raise SolverError(f"joint {joint!r}: its {c.name} is driven by motion "
                              f"{c.motion!r}", self.t, (joint, c.motion))
        angle = c.group.kind == ANGLE
        start, track = (self.r, self.p), self._track
        q0 = self._coordinate_row(c, start)[0]
        step = 5.0 * ANGLE_STEP if angle else 10.0 * SLIDE_STEP * self.L
        reach = 2.0 * np.pi if angle else 10.0 * self.L
        eps = tol * (1.0 if angle else self.L)
        ends = []
        for sign, stop in ((1.0, c.limits[1]), (-1.0, c.limits[0])):
            span = reach if stop is None else max(0.0, sign * (stop - q0))
            done = 0.0
            self.r, self.p = start
            self._track = track
            while done < span:
                d = min(step, span - done)
                if self._move(c, sign * d):
                    done += d
                    continue
                lo, hi = 0.0, d                 # bisect the failing step
                while hi - lo > eps:
                    mid = 0.5 * (lo + hi)
                    if self._move(c, sign * (mid - lo)):
                        lo = mid
                    else:
                        hi = mid
                done += lo
                break
            ends.append(q0 + sign * done)
            if angle and sign > 0 and c.limits == (None, None) and done >= reach - eps:
                self.r, self.p = start
                self._track = track
                return CoordinateRange(joint, c.name, -np.pi, np.pi, True)     # a crank
        self.r, self.p = start
        self._track = track
        return CoordinateRange(joint, c.name, ends[1], ends[0], False)
