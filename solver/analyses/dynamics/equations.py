"""The equations of one forward-dynamics run (Haug 1989, "Forward dynamics - dynamically
driven"): the ODE state's layout, the right-hand side, and the projection onto the
constraints after each step (dynamics.py drives them).

Each right-hand side solves the augmented system (Haug eq. 11.1.4)
    [M  J^T] [a     ]   [Q    ]
    [J  0  ] [lambda] = [gamma]
by the Schur complement (M is block diagonal): (J M^-1 J^T) lambda = J M^-1 Q - gamma,
a = M^-1 (Q - J^T lambda).  The state is y = [r (3 nb), p (4 nb), (v, w) (6 nb, body by
body), work], integrated as an ODE with ``dp/dt = 1/2 [0, w] * p``; the velocities of a
body are next to each other so that the accelerations a (nb, 6) are one copy into dy.

Cost: the right-hand side is a fixed set of numpy calls whatever the number of bodies
the bodies' arrays are written into buffers made once per leading shape
(``_Work``; the ground's row and the inverse masses' constant blocks set once), the world
inertia and inverse inertia come from one pair of products, and J M^-1 J^T from the
kept rows' fixed layout (``algebra/schur.py``).  With joint friction, the right-hand sides
of a force of 1 along each friction component's row are solved beside the applied loads'
(one factorization of J M^-1 J^T): a slipping element's friction is then a weighted sum
of those responses (friction.py ``with_slip``).
"""
from __future__ import annotations

import copy
import math
from typing import Any, NamedTuple

import numpy as np

from ...algebra.newton import scales
from ...algebra.schur import Schur, inverse_mass
from ...base.einsum import einsum
from ...base.rotations import own_loop, quat_rate, quat_to_matrix, unit_quaternions
from ...kernels.constraints import RowEval, body_arrays, evaluate, motion_values, row_groups
from ...kernels.forces import torsion_angles, torsion_angles_in_rows, total_forces
from ...kernels.stop_forces import stop_forces
from ...model.compile import Model
from ...model.state import RunState
from .friction import held_by_stops, rates, with_slip
from . import projection
from ..structure import Structure, least_norm, self_stresses

ROBUST_RCOND = 1e-11    # Tikhonov filter of J M^-1 J^T's eigenvalues at a singular position
_NO_MOTION = np.zeros((0, 3))   # motion_values of a model without motions
_NO_MOTION.setflags(write=False)
# numpy's C concatenate without its array-function dispatch (a Python call, about 1 us)
_concatenate = getattr(np.concatenate, "_implementation", np.concatenate)


class LastRhs(NamedTuple):
    """What the last right-hand side evaluated (one state, or a stack of them): its pose
    r, p (unit quaternions), rows ``ev`` and rotations ``A`` (the work buffer the next such
    call refills, and replaces this), (J M^-1 J^T's entries, M^-1 J^T) ``mats`` and the tracked
    values ``track`` it took; the projection's first iteration and ``rows_at`` read them."""
    r: np.ndarray
    p: np.ndarray
    ev: RowEval
    A: np.ndarray
    mats: tuple
    track: Any


def _responses(dlam: np.ndarray, da: np.ndarray):
    """respond(Q_q) -> (multipliers (..., nc), accelerations (..., nb, 6)) for forces Q_q
    (..., m) along the friction components (or (L, ..., m): L sets at once): the sums of
    each component's responses to a force of 1, dlam (m, ..., nc) and da (m, ..., nb, 6),
    weighted by Q_q (both linear in the forces)."""
    def respond(Qq: np.ndarray):
        return (einsum("...j,j...c->...c", Qq, dlam),
                einsum("...j,j...bi->...bi", Qq, da))
    return respond


def _ground_row(x: np.ndarray) -> np.ndarray:
    """x (..., nb, k) with a zero row for the ground appended (..., nb+1, k)."""
    return np.concatenate([x, np.zeros(x.shape[:-2] + (1,) + x.shape[-1:])], axis=-2)


class _Work:
    """Arrays one right-hand side fills in place, made once per leading shape (a single
    state, or the stages of an implicit step): the bodies' positions, velocities and
    rotation matrices with the ground's row (zero, I) appended, and the inverse mass blocks
    with their constant translational part.  Nothing read from them outlives the call."""

    def __init__(self, model: Model, lead: tuple[int, ...]) -> None:
        nb = model.nb
        self.nb = nb
        self.rg = np.zeros(lead + (nb + 1, 3))
        self.velg = np.zeros(lead + (nb + 1, 6))          # (v, w), ground zero
        self.vg, self.wg = self.velg[..., :3], self.velg[..., 3:]
        self.A9 = np.zeros(lead + (nb + 1, 9))
        self.A9[..., nb, :] = np.eye(3).reshape(9)
        self.A = self.A9.reshape(lead + (nb + 1, 3, 3))
        # the inertias' products in numpy's own matmul loop (rotations.own_loop; the 6x6
        # inverse masses stay with BLAS, faster at that size on one thread)
        self.Z, self.both = own_loop(lead + (nb, 2, 9)), own_loop(lead + (nb, 6, 3))
        if model.frictions is None:
            self.Mi = np.zeros(lead + (nb, 6, 6))
            self.Mi[...] = model.body_inverse_mass[..., :nb, :, :]
            self.MiQ = np.zeros(lead + (nb + 1, 6))           # M^-1 Q, ground zero
        else:
            # with joint friction also the ground's (zero) block, and M^-1 Q stacked with
            # M^-1 J_f^T of each friction component's row (``unit_friction``): one Schur
            # solve for the multipliers and their responses to each component's force
            m = len(model.frictions.rows)
            self.Mig = np.zeros(lead + (nb + 1, 6, 6))
            self.Mig[...] = model.body_inverse_mass
            self.Mi = self.Mig[..., :nb, :, :]
            self.MiX = np.zeros((1 + m,) + lead + (nb + 1, 6))
            self.MiQ = self.MiX[0]
            ends = self.friction_ends = model.row_ends[model.frictions.rows]   # (m, E)
            self.unit_at = (1 + np.repeat(np.arange(m), ends.shape[1]), Ellipsis,
                            ends.reshape(-1), slice(None))
        self.MiQ_moving = self.MiQ[..., :nb, :, None]     # its moving bodies, as matmul's out
        self.Q = np.empty(lead + (nb, 6))                 # the bodies' loads, their weights set
        self.Q[..., :3] = model.body_weight
        self.MiQ_rows = self.MiQ[..., :nb, :]
        # the views each call writes or reads, made once (a view costs about as much as a
        # small product): the moving bodies' rows, A's moving blocks and their transposes,
        # the products' halves
        self.r_moving, self.vel_moving = self.rg[..., :nb, :], self.velg[..., :nb, :]
        self.A9_moving = self.A9[..., :nb, :]
        self.Ab = self.A[..., :nb, :, :]
        self.Ab_rows, self.AbT = self.Ab.reshape(lead + (nb, 1, 9)), self.Ab.swapaxes(-1, -2)
        self.Z63 = self.Z.reshape(lead + (nb, 6, 3))
        if not np.may_share_memory(self.Z63, self.Z):   # (splitting one axis: always a view)
            raise AssertionError("the inertias' product buffer is not a view")
        self.Iw, self.both_rot = self.both[..., :3, :], self.both[..., 3:, :]
        self.Mi_rot = self.Mi[..., 3:, 3:]

    def unit_friction(self, model: Model, jac: np.ndarray) -> np.ndarray:
        """MiX (1 + m, ..., nb+1, 6): M^-1 Q (filled by the caller) and, written here,
        M^-1 J_f^T for a force of 1 along each friction component's row f (N or N m on
        its two bodies, world axes), the ground's zero.  Only the rows' own bodies are
        written, the same entries every call: the others stay zero."""
        fp = model.frictions
        ends = self.friction_ends
        lead = jac.shape[:-2]
        blocks = jac.take(fp.rows, axis=-2).reshape(lead + ends.shape + (6,))   # (..., m, E, 6)
        unit = einsum("...jeab,...jeb->je...a", self.Mig.take(ends, axis=-3), blocks)
        self.MiX[self.unit_at] = unit.reshape((-1,) + lead + (6,))
        return self.MiX

    def bodies(self, r: np.ndarray, p: np.ndarray, vel: np.ndarray | None):
        """(rg, A, vg, wg, velg) for COM positions r, unit quaternions p, velocities vel
        (..., nb, 6) (None: the pose alone, the velocities' buffers as they were)."""
        self.r_moving[...] = r
        if vel is not None:
            self.vel_moving[...] = vel
        quat_to_matrix(p, out=self.A9_moving)
        return self.rg, self.A, self.vg, self.wg, self.velg

    def mass(self, A: np.ndarray, pair: np.ndarray, diag: np.ndarray | None = None
             ) -> tuple[np.ndarray, np.ndarray]:
        """(I_w = A I A^T (..., nb, 3, 3), inverse mass blocks (..., nb, 6, 6)): both
        inertias turned by one pair of products.  ``pair`` (nb, 3, 6) is [I, I^-1] side by
        side: A [I, I^-1] restacked as [A I; A I^-1] (6, 3) times A^T gives both at once
        (numpy's stacked 3x3 products cost per matrix, broadcasting more: half the time
        of a broadcast pair at 200 bodies).  ``diag`` (nb, 2, 9): the diagonals of I and
        I^-1 when every inertia is diagonal in its part's axes, each entry where it scales
        A's entries row by row (d0 d1 d2 d0 d1 d2 d0 d1 d2); then A D is one contiguous
        product (4x faster than a broadcast one on a study's stacks) and one product
        remains."""
        if A is self.A and diag is not None:     # a right-hand side's own rotations
            np.multiply(self.Ab_rows, diag, out=self.Z)
            np.matmul(self.Z63, self.AbT, out=self.both)
            self.Mi_rot[...] = self.both_rot
            return self.Iw, self.Mi
        nb = self.nb
        Ab = A[..., :nb, :, :]
        lead = Ab.shape[:-3]
        if diag is not None:
            Z = np.multiply(Ab.reshape(lead + (nb, 1, 9)), diag, out=self.Z).reshape(lead + (nb, 6, 3))
        else:
            X = Ab @ pair
            Z = X.reshape(lead + (nb, 3, 2, 3)).swapaxes(-3, -2).reshape(lead + (nb, 6, 3))
        both = np.matmul(Z, Ab.swapaxes(-1, -2), out=self.both)
        self.Mi[..., 3:, 3:] = both[..., 3:, :]
        return both[..., :3, :], self.Mi


class Equations:
    """The workspace of one dynamic run: the constrained equations of one model (state
    packing, right-hand side, projection) with what they reuse (the kept rows' J M^-1 J^T
    layout, buffers).  ``run`` is the run state (RunState: the torsion springs' turns, the
    tracked values, the stops resting, the contacts' touchdown speeds, the friction
    elements' sticking and slip directions) the equations are
    evaluated at: told by the run (``tell``) at the start and whenever a step's end or an
    event makes a new one, read here and never changed (a projection returns its tracked
    values).  While the run passes a singular position (RunState.robust, driver.py) its
    projections are accepted within ``singular`` (Goals.singular, the run's tolerance)."""

    def __init__(self, model: Model, st: Structure, singular: float = 1e-6) -> None:
        self.m = model
        self.nb = model.nb
        self.mrows = np.flatnonzero(model.row_motion >= 0)
        self._mrow_motion = model.row_motion[self.mrows]     # each motion row's motion
        self.dry = model.frictions is not None   # friction elements: RunState.slip
        # the row groups of the friction coordinates (their rates: switching.friction_rates)
        self.friction_groups = row_groups(model, model.frictions.rows) if self.dry else None
        # compliant stops (their forces: kernels/stop_forces.py); rigid ones are rows
        self.compliant = model.limits is not None and bool(model.limits.compliant.any())
        self.tell(RunState.start(model))
        self.friction = None      # the friction elements' Q_q at the last accelerations
        self.friction_power = 0.0
        self.headroom = None      # the friction elements' headroom from a jam (with_slip), last
        self.stop_power = 0.0     # the compliant stops' power at the last accelerations
        self.events_memo = None   # friction's events at a step's start (events.StartEvents)
        self._pair = np.concatenate([model.body_inertia, model.body_inverse_inertia], -1)
        both = np.stack([model.body_inertia, model.body_inverse_inertia], -3)  # (..., nb, 2, 3, 3)
        on = np.diagonal(both, axis1=-2, axis2=-1)
        self._diag = (np.concatenate([on, on, on], -1)     # (..., nb, 2, 9), see _Work.mass
                      if np.array_equal(both, on[..., None] * np.eye(3)) else None)
        self._work: dict[tuple[int, ...], _Work] = {}
        self._last: LastRhs | None = None   # the last right-hand side's
        self._poses: list = []    # the rows at the last two poses asked for (rows_at)
        self._pose_work = None    # the bodies' arrays of one pose asked about (pose_bodies)
        self._rs, self._cw = scales(model)      # the projection's row scales, column weights
        # constraint residual a projection may be left at while the run passes a singular
        # position (RunState.robust): the run's own accuracy (Goals.singular), given at
        # construction; a change of kept rows (``use``) keeps it
        self.robust_tol = singular
        self._layouts: dict[bytes, tuple] = {}     # each set of kept rows' (use)
        self.use(st)

    def variants(self, model: Model, idx: np.ndarray, run: RunState) -> "Equations":
        """The equations of the variants ``idx`` (V,) of this one's stacked model (a design
        study's, study/stack.py), ``model`` their sub-stack (stack.take_variants), at their
        run state ``run``: for a call on some variants only (a lockstep run's frames).
        This one's structures are shared, made once (the kept rows' groups, J M^-1 J^T's
        layout and banded buffers, the motion rows), its per-variant numbers taken (the
        inertias, the row scales: their leading axis), its buffers and memory of the last
        calls its own; each variant's rows are the same numpy calls on its own numbers,
        so the same bits as in this one."""
        def take(x: np.ndarray | None, ndim: int) -> np.ndarray | None:
            return x[idx] if x is not None and x.ndim > ndim else x     # (V, ...): taken
        sub = copy.copy(self)
        sub.m = model
        sub._pair, sub._diag = take(self._pair, 3), take(self._diag, 3)
        sub._rs, sub._cw = take(self._rs, 1), take(self._cw, 1)
        sub._rs_keep = take(self._rs_keep, 1)
        sub._layouts = {self.keep.tobytes(): (self._quads, self.schur, sub._rs_keep,
                                              self._kept_motions)}
        sub._work, sub._last, sub._poses, sub._pose_work = {}, None, [], None
        sub.friction = sub.headroom = sub.events_memo = None
        sub.friction_power = sub.stop_power = 0.0
        sub.run = None
        sub.tell(run)
        return sub

    def use(self, st: Structure) -> None:
        """Solve with the kept rows of ``st`` (at the start, and when the independent
        subset of redundant equations changes as the mechanism moves).  A run's change of
        rows also ends least-norm solves (switching.use_rows).  A run moves between a few
        sets of rows (a stop's row on and off, a joint stuck and slipping): each set's
        layout is made once (``_layouts``)."""
        self.keep = st.keep
        self.redundant = st.redundant
        key = st.keep.tobytes()
        if key not in self._layouts:
            km = np.flatnonzero(self.m.row_motion[st.keep] >= 0)
            self._layouts[key] = (
                row_groups(self.m, st.keep),        # only the kept rows' quad is solved with
                Schur(self.m, st.keep), self._rs[..., st.keep],
                (km, self.m.row_motion[st.keep[km]]))   # positions in keep, motions
        self._quads, self.schur, self._rs_keep, self._kept_motions = self._layouts[key]
        self._last = None
        # the least-norm filter past a singular position the inputs' rounding folded
        # (RunState.rounded): S's eigenvalues go as the squares of the scaled Jacobian's
        # singular values, so the rounding's share of the largest (singular.rounded_share)
        # squared
        self.rounded_rcond = 8.0 * float(np.max(self.m.row_rounding[st.keep], initial=0.0))

    def tell(self, run: RunState) -> None:
        """Evaluate the equations at the run state ``run`` from now on; ``frozen``: the
        friction elements a resting stop holds there (friction.held_by_stops), which take
        no friction (made anew only when the stops' rest or the slip changed: a run state
        is told several times a step)."""
        last, self.run = getattr(self, "run", None), run
        if last is not None and run.resting is last.resting and run.slip is last.slip:
            return
        self.frozen = held_by_stops(self.m, run.resting) if self.dry else None
        if self.dry:      # the slipping elements' components: not stuck, not frozen
            self._sliding = (~run.slip.stuck & ~self.frozen)[self.m.frictions.element]

    def pose_bodies(self, r: np.ndarray, p: np.ndarray, vel: np.ndarray | None = None):
        """(rg, A, vg, wg, velg) of one state (r, unit quaternions p, vel (nb, 6)) as a
        right-hand side makes them, in buffers of their own that the next call overwrites
        (an event function's, read at once)."""
        if self._pose_work is None:
            self._pose_work = _Work(self.m, ())
        return self._pose_work.bodies(r, p, vel)

    def rows_at(self, rg: np.ndarray, A: np.ndarray, groups: np.ndarray | None = None
                ) -> RowEval:
        """The rows at one pose (rg, A: body_arrays' with the ground) on the run state's
        tracked values: phi and the Jacobian of ``groups`` (row_groups; None: all), no
        quads.  A step's projected end is asked about four times (the projection's last
        residual, the limits' turns, the friction rates and the stops' gaps of the next
        step's events), so the last two poses' are kept, by their bits and the tracked
        values, each serving any groups it has (a group's rows take the same bits
        evaluated alone or with the others)."""
        key = (rg.tobytes(), A.tobytes())
        track = self.run.track
        for k, ref, had, ev in self._poses:
            if k == key and ref is track and (had is None or (
                    groups is not None and bool(np.all(had | ~groups)))):
                return ev
        last = self._last         # the last right-hand side's (a step's end: its last stage)
        if (last is not None and last.track is track and key[1] == last.A.tobytes()
                and key[0][:last.r.nbytes] == last.r.tobytes()):     # (rg: r, then ground)
            return last.ev
        ev = evaluate(self.m, rg, A, ref=track, groups=groups)
        self._poses = [(key, track, groups, ev)] + self._poses[:1]
        return ev

    def tracked_at(self, r: np.ndarray, p: np.ndarray, vel: np.ndarray, groups: np.ndarray):
        """(tracked values, their rates) at one state (r, unit quaternions p, vel (nb, 6)),
        each contact searched from the run state's: the last right-hand side's where it was
        at that pose (a step's end, its last stage: its velocities too), else the rows of
        ``groups`` (row_groups) evaluated there."""
        last = self._last
        if (last is not None and last.track is self.run.track and last.ev.rate is not None
                and np.array_equal(last.r, r) and np.array_equal(last.p, p)):
            return last.ev.track, last.ev.rate
        rg, A, vg, wg, _ = self.pose_bodies(r, p, vel)
        ev = evaluate(self.m, rg, A, vg, wg, need_jac=False, ref=self.run.track, groups=groups)
        return ev.track, ev.rate

    def work(self, lead: tuple[int, ...]) -> _Work:
        w = self._work.get(lead)
        if w is None:
            w = self._work[lead] = _Work(self.m, lead)
        return w

    def took(self, friction: np.ndarray, headroom: Any) -> None:
        """The friction elements' loads and headroom (``friction``, ``headroom``) of an
        evaluation of this run's state made for it elsewhere (a design study's stacked
        call), kept as its own last evaluation would keep them (what a frame reads)."""
        self.friction, self.headroom = friction, headroom

    def solve(self, vals: np.ndarray, b: np.ndarray, rcond: float | None = None) -> np.ndarray:
        """S x = b with S = J M^-1 J^T of the kept rows.  While the run passes a singular
        position (RunState.robust: the constraints dependent for an instant, e.g. a parallelogram
        lined up) the least-norm solution with S's vanishing directions left out
        (ROBUST_RCOND, or ``rcond``; past a position the inputs' rounding folded,
        RunState.rounded, at least ``rounded_rcond``, so that the direction the fold keeps
        is left out too and the projections do not follow it onto the other branch): the
        accelerations and velocities stay those the momentum carries, instead of dividing
        rounding noise by a vanishing eigenvalue."""
        run = self.run
        if run.robust:
            rcond = ROBUST_RCOND if rcond is None else rcond
            return self.schur.solve_least_norm(
                vals, b, max(rcond, self.rounded_rcond) if run.rounded else rcond)
        return self.schur.solve(vals, b)

    # y = [r (3nb), p (4nb), (v, w) (6nb), work]; leading axes (stages) carried through
    def pack(self, r, p, v, w, work) -> np.ndarray:
        nb, lead = self.nb, np.shape(work)
        y = np.empty(lead + (13 * nb + 1,), dtype=np.result_type(r, p, v, w, work))
        y[..., : 3 * nb] = np.reshape(r, lead + (-1,))
        y[..., 3 * nb: 7 * nb] = np.reshape(p, lead + (-1,))
        vel = y[..., 7 * nb: 13 * nb].reshape(lead + (nb, 6))
        vel[..., :3] = v
        vel[..., 3:] = w
        y[..., -1] = work
        return y

    def split(self, y: np.ndarray):
        """Views (r (..., nb, 3), p (..., nb, 4), vel (..., nb, 6), work) of a state."""
        nb, lead = self.nb, y.shape[:-1]
        return (y[..., : 3 * nb].reshape(lead + (nb, 3)), y[..., 3 * nb: 7 * nb].reshape(lead + (nb, 4)),
                y[..., 7 * nb: 13 * nb].reshape(lead + (nb, 6)), y[..., -1])

    def unpack(self, y: np.ndarray):
        r, p, vel, work = self.split(y)
        return r, p, vel[..., :3], vel[..., 3:], work

    def minv(self, A: np.ndarray) -> np.ndarray:
        """(nb, 6, 6) inverse mass blocks, world axes: 1/m I and A I^-1 A^T."""
        return inverse_mass(self.m, A)[: self.nb]

    def _apply_minv(self, Mi: np.ndarray, X: np.ndarray) -> np.ndarray:
        """M^-1 X for X (6nb, k)."""
        k = X.shape[1]
        return einsum("bij,bjk->bik", Mi, X.reshape(self.nb, 6, k)).reshape(6 * self.nb, k)

    def _minv_ground(self, A: np.ndarray) -> np.ndarray:
        """The moving bodies' inverse mass blocks (..., nb, 6, 6) for Schur.matrix, made as
        the right-hand side makes them (``_Work.mass``): a projection that takes
        a step's last stage's matrices for its first iteration (PositionProjection's
        ``pending``) and one that makes them at the same pose (project_many, a design
        study's) then hold the same bits."""
        return self.work(A.shape[:-3]).mass(A, self._pair, self._diag)[1].copy()

    def accelerations(self, t, r, p, v, w):
        """(a (nb,6), lambda (nc,), ForceEval, jac, f): the augmented system at one state.
        With t an array (S,) and a leading axis S on r, p, v, w: S states at once (the
        stages of an implicit step), every result with that axis: the kinematics, the force
        elements and the Schur solves are one set of numpy calls for all of them."""
        return self._accelerations(t, r, p, np.concatenate([v, w], axis=-1))

    def _accelerations(self, t, r, p, vel, report: bool = True):
        m, sc, nb, keep = self.m, self.schur, self.nb, self.keep
        lead = r.shape[:-2]
        wk = self._work.get(lead) or self.work(lead)
        rg, A, vg, wg, velg = wk.bodies(r, p, vel)
        run = self.run
        ev = evaluate(m, rg, A, vg, wg, ref=run.track, quads=self._quads)
        f = motion_values(m, t) if self.mrows.size else _NO_MOTION
        Iw, Mi = wk.mass(A, self._pair, self._diag)
        Q, fe = total_forces(m, t, rg, A, vg, wg, run.ts_ref, Iw, run.onset, (ev.phi, ev.jac),
                             wk.Q)
        stop = stop_forces(m, ev.phi, ev.jac, velg, run.limit_ref) if self.compliant else None
        if stop is not None:             # compliant stops: forces along their coordinates
            Q = Q + stop.Q[..., :nb, :]
            self.stop_power = stop.power
        np.matmul(Mi, Q[..., None], out=wk.MiQ_moving)
        # with friction, M^-1 Q and each friction component's unit force (1 + m, ...): the
        # multipliers and accelerations of both from one solve
        X = wk.MiQ if not self.dry else wk.unit_friction(m, ev.jac)
        Jb = sc.blocks(ev.jac)
        vals, W = sc.matrix(Jb, Mi)
        # S lambda = J M^-1 Q - gamma, gamma = -quad + f'' (f'' on the motion rows)
        b = sc.times(Jb, X)
        b0 = b if not self.dry else b[0]
        b0 += ev.quad if sc.every else ev.quad.take(keep, axis=-1)
        km, motion = self._kept_motions
        if km.size:
            b0[..., km] -= f[..., 2].take(motion, axis=-1)
        lam_k = self.solve(vals, b)
        if sc.every:
            lam = lam_k
        else:
            lam = np.zeros(lam_k.shape[:-1] + (m.nc,))
            lam[..., keep] = lam_k
        a = (wk.MiQ_rows if X is wk.MiQ else X[..., :nb, :]) - sc.apply(W, lam_k)
        # redundant rows: the least-norm joint multipliers, as the sweep and statics report
        # them (structure.least_norm), and friction's load from them; a stage of a step
        # (``report`` False) needs them only for friction
        reported = None
        if self.redundant.size and (report or self.dry):
            reported = least_norm(self_stresses(
                m, keep, self.redundant, ev.jac,
                lambda F: self.solve(vals, sc.times(Jb, _ground_row((Mi @ F[..., None])[..., 0])))))
            lam = reported(lam)
        if self.dry:                     # friction from the joints' reactions (friction.py)
            vq = rates(m, ev.jac, velg, wk.friction_ends)
            fp = m.frictions
            # a joint held by a resting stop takes no friction (``tell``: ``_sliding``); one a
            # motion drives slips the way the motion moves it (no event: its speed is given)
            slip, sliding = run.slip, self._sliding
            d = (np.where(fp.held[fp.element], np.sign(vq), slip.direction)
                 if fp.kinds[2] else slip.direction)
            lam, a, respond = lam[0], a[0], _responses(lam[1:], a[1:])
            Qq, lam, da, room = with_slip(m, respond, lam, ev.jac, A, vq, d, sliding)
            self.headroom = room
            if da is not None:
                a = a + da
            self.friction = np.where(sliding, Qq, -lam[..., m.frictions.rows])
            self.friction_power = np.add.reduce(Qq * vq, axis=-1)
        if stop is not None:             # read as the limit's force (Result.limit)
            lam[..., m.limits.rows[stop.bounds]] = -stop.Qq
        if not math.isfinite(np.add.reduce(a, axis=None)):   # NaN or inf anywhere (Q, lambda)
            raise np.linalg.LinAlgError("non-finite accelerations")
        self._last = LastRhs(r, p, ev, A, (vals, W), run.track)
        return a, lam, fe, ev.jac, f

    def turns(self, r: np.ndarray, p: np.ndarray) -> np.ndarray:
        """The torsion springs' angles at the pose (r, p) (leading axes allowed) on the
        turns of the run state's ``ts_ref``: what ``ts_ref`` becomes after a step, so that
        the next step's stages take their angles on the same turn (the springs' angles
        alone, not a right-hand side; at one pose from its rows, ``rows_at``, when every
        spring's angle is a row's)."""
        if r.ndim == 2:
            rg, A = self.pose_bodies(r, unit_quaternions(p))[:2]
            th = torsion_angles_in_rows(self.m.forces, self.rows_at(rg, A).phi, self.run.ts_ref)
            if th is not None:
                return th
        return torsion_angles(self.m.forces, body_arrays(self.m, r, p)[1], self.run.ts_ref)

    def rhs(self, t, y: np.ndarray) -> np.ndarray:
        """dy/dt at (t, y); t (S,) and y (S, n): S states at once (see accelerations)."""
        return self.rhs_parts(t, y, report=False)[0]

    def rhs_parts(self, t, y: np.ndarray, report: bool = True):
        """(dy/dt, (a, lambda, ForceEval, jac, f)) at (t, y): the derivative and what an
        output frame stores (accelerations' results), from one evaluation, so that a frame
        and the step that starts there share it.  ``report`` False: the multipliers of
        redundant joint rows as solved (the kept rows'), not as reported (rhs: dy is the
        same)."""
        r, p, vel, _ = self.split(y)
        pn = unit_quaternions(p)
        parts = self._accelerations(t, r, pn, vel, report)
        a, lam, fe, _, f = parts
        # dy = [v, dp/dt, a, power] in one concatenation (fewer calls than its views' writes)
        lead = y.shape[:-1]
        dy = _concatenate((vel[..., :3].reshape(lead + (-1,)),
                             quat_rate(pn, vel[..., 3:]).reshape(lead + (-1,)),
                             a.reshape(lead + (-1,)), np.empty(lead + (1,))), axis=-1)
        power = fe.power_nc + self.stop_power
        mr = self.mrows
        if mr.size:       # (the same bits as adding the negated terms' sum)
            power = power - np.add.reduce(lam.take(mr, axis=-1)
                                          * f[..., 1].take(self._mrow_motion, axis=-1), -1)
        if self.dry:
            power = power + self.friction_power
        dy[..., -1] = power
        return dy, parts

    def project_many(self, t, r, p, v, w, todo: np.ndarray, rs, cw, size, rate_t=None):
        """Equations.project for many states at once (leading axis S: a design study's
        variants, the frames within a long step), the states ``todo`` (S,) projected, the
        others returned as they are (projection.project_many).  Returns (r, p, v, w,
        track).  Raises LinAlgError when a state's positions do not converge."""
        return projection.project_many(self, t, r, p, v, w, todo, rs, cw, size, rate_t)

    def project(self, t: float, r, p, v, w):
        """Positions onto Phi = 0 (M-weighted least-change Newton), then velocities onto
        J v = nu: (r, p, v, w, track), ``track`` the tracked values (couplers' turns, curve
        contacts) at the projected pose, found near the run state's (without tracked rows:
        the run state's as it is).  Raises LinAlgError when the constraints cannot be met
        (projection.project)."""
        return projection.project(self, t, r, p, v, w)
