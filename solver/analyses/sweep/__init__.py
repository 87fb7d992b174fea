"""Kinematic sweep of fully driven mechanisms: positions by Newton, then velocities,
accelerations, multipliers and joint reactions at every output frame (Haug 1989:
"Inverse dynamics - kinematically driven", "Lagrange multipliers for specific
constraints"), of one mechanism or of a design study's variants at once.

Frames are solved in blocks whose arrays are (variants, frames, ...): a model whose numbers
differ between the variants carries them as (variants, 1, ...) (study/stack.py
``stack_models(..., axes=1)``), and one mechanism is the case of one variant.  Each frame
starts from a Taylor prediction off its variant's last solved frame (r + v h + a h^2/2 +
j h^3/6, j from the accelerations of the last two frames, and the same for rotations), and
Newton, the velocity and acceleration solves and the reactions run on the whole block at
once: a few array passes a block instead of a Python loop of small-array work per frame.

A frame is kept only if it continues the frame before it smoothly: its distance from the
second-order prediction off that frame is small next to the frame-to-frame motion.  A
frame on another assembly branch (a four-bar flipped) is far from it, so the block is cut
there (at the first frame where any variant fails or leaves its prediction) and the sweep
goes on with smaller blocks, down to one frame at a time, the frame-by-frame sweep.
Blocks grow while Newton converges in a few iterations.  A variant that cannot solve a frame
(a lock-up, a singular position, a friction jam, a rigid stop driven through, a motion
undefined there) leaves the sweep with its error and the others go on."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, NamedTuple

import numpy as np

from ...algebra.newton import converged, moves, rounding_tols, step_pose
from ...algebra.rank import involved
from ...base.einsum import einsum
from ...base.errors import ExpressionError, FrictionJam, SolverCancelled, SolverError
from ...base.rotations import rotate_world
from ...kernels.constraints import body_arrays, evaluate, global_jacobian, residual, row_rates
from ...kernels.forces import body_loads
from ...kernels.stop_forces import stop_forces
from ...model.compile import Model
from ...model.force_model import spring_turns
from ...model.results import Result, ResultStack, report_progress
from ...model.state import State
from ..dynamics.friction import rates
from ..dynamics.stops import check_start, tolerance
from ..general_motions import lock_up_cause
from ..limit_turns import frames_on_turns, pose_turns
from ..structure import Structure, least_norm, self_stresses
from .algebra import Algebra, _inverse, _solve_stack, banded, matvec  # noqa: F401 (tests')
from ..checks.curve_ends import end_sizes, open_ends
from .between import first_crossings, watched
from .frames import block_forces, motion_table, smooth_prefix, with_friction, wrong_turns
from .lined_up import least_norm_multipliers, lined_up_frames, passed, rates_continued
from .poles import banded_signs, noted, suspect, walk
from .touches import passed_through
from .tree import tree_poses

BLOCK_FIRST = 4       # frames in the first block after frame 0
BLOCK_MAX = 128       # largest block (lower-pair slider-crank, 240 frames: 203 M instr., 210 at 64)
BLOCK_FLOATS = 2e6    # and at most this many numbers in a block's Jacobians (16 MB)
# Variants: at most this many numbers in a block's Jacobians (1.6 MB, about a cache's
# worth): they share every call already, and small blocks stay in cache and are predicted
# from nearer frames.  Slider-crank, 240 frames: 100 variants 0.80 s at 3 frames a block,
# 1.13 s at 64; 9 variants 0.095 s at 16, 0.21 s at 1 (bench/bench_study.py, 2026-11-27).
CACHE_FLOATS = 2e5
QUICK = 6             # Newton iterations up to which a block counts as easy: it may grow
GROWTH = 2            # by this factor
FEW_LIVE = 0.25       # variants: Newton goes on with only the poses still iterating below this share
BUDGET = 25           # Newton iterations at most


@dataclass(frozen=True)
class VariantAxis:
    """A design study's variants as one model (study/stack.py): ``stack(models)`` their
    numbers that differ on a leading axis (V, 1, ...), None if they do not stack;
    ``take(stacked, first, idx)`` the constraint rows' model of variants ``idx`` of a stack
    whose first is ``first`` (Newton on a few of them)."""
    stack: Callable[[list[Model]], Model | None]
    take: Callable[[Model, Model, np.ndarray], Model]


def kinematic_sweep(model: Model, st: Structure, start: State, times: np.ndarray,
                    progress=None, keep: Any = None) -> Result:
    """Positions, velocities, accelerations, multipliers and reactions at every frame from
    the assembled start at times[0], one variant's sweep, storing ``keep`` (model/kept.py).
    ``progress(frames done, frames)`` after each frame; False cancels (SolverCancelled)."""
    sweep = _Sweep([model], model, st, [start], times, None, keep)
    out = sweep.outs.results[0]

    def report(ks: np.ndarray) -> None:
        for k in ks:             # once per frame, as the frame-by-frame sweep did
            report_progress(progress, int(k), len(times), out)
    sweep.run(report if progress is not None else lambda ks: None)
    if sweep.errors[0] is not None:
        raise sweep.errors[0]
    return out


def sweep_variants(models: list[Model], st: Structure, starts: list[State], times: np.ndarray,
                   axis: VariantAxis, progress: Callable[[int], Any] | None = None
                   ) -> list[Result | None] | None:
    """Kinematic sweeps of every variant (models of one topology, structure ``st``, each
    from its assembled start) over ``times`` as one: their Results, None for a variant
    that left at a frame it could not solve (its own sweep says why), or None for all when
    they do not stack (``axis.stack``) or their J M^-1 J^T is banded (``banded``: the
    variants are then swept one by one).  ``progress(variants' worth done)`` after each
    block; False stops the sweep (SolverCancelled)."""
    if not models[0].nb or len(st.keep) != 6 * models[0].nb or banded(models[0], st.keep):
        return None
    model = axis.stack(models)
    if model is None:
        return None
    sweep = _Sweep(models, model, st, starts, times, axis)
    n = len(times)

    def report(ks: np.ndarray) -> None:
        k0 = int(ks[-1]) + 1
        if progress is not None and progress(len(sweep.alive) * k0 // n) is False:
            raise SolverCancelled("design study cancelled", float(times[k0 - 1]))
    sweep.run(report)
    left = set(sweep.alive.tolist())
    return [o if i in left else None for i, o in enumerate(sweep.results)]


class _Last(NamedTuple):
    """Each variant's last solved frame: its state (with accelerations, (V, nb, k)), the
    rates of change of its accelerations (the third-order predictor's), its Jacobian blocks
    and its tracked values (evaluate's ref) and their rates (V, ntrack)."""
    state: State
    jerk: np.ndarray
    djerk: np.ndarray
    jac: np.ndarray
    q: np.ndarray | None
    qd: np.ndarray | None

    def only(self, keep: np.ndarray) -> "_Last":
        """The variants ``keep`` (V,) only."""
        s = self.state
        return _Last(State(s.t, *(x[keep] for x in (s.r, s.p, s.v, s.w, s.a, s.alpha))),
                     *(None if x is None else x[keep] for x in self[1:]))


class _Sweep:
    """One sweep of variants ``models`` (``model`` all of them as one; ``axis`` None for one
    mechanism): ``run`` fills ``results`` and sets ``errors[i]`` for a variant that left."""

    def __init__(self, models: list[Model], model: Model, st: Structure, starts: list[State],
                 times: np.ndarray, axis: VariantAxis | None, keep: Any = None) -> None:
        self.models, self.model, self.st, self.times, self.axis = models, model, st, times, axis
        V = len(models)
        self.alive = np.arange(V)                  # the variants still in the sweep
        self.errors: list[SolverError | None] = [None] * V
        self.outs = ResultStack(models, times, keep=keep)
        self.results = list(self.outs.results)
        take = None if axis is None else (lambda sm, vi: axis.take(sm, self.models[self.alive[0]], vi))
        self.alg = Algebra(model, models, st.keep, take)
        tables, n_ok, self.bad = zip(*(motion_table(m, times) for m in models))  # its own
        self.fv, self.n_ok = np.stack(tables), np.array(n_ok)     # (V, frames, motions, 3)
        self.ts_ref = np.zeros((V, 2, len(model.forces.ts_names)))  # torsion angles, rates
        self.ts_ref[:, 0] = spring_turns(model.forces, self.fv[:, 0])  # first turns
        self.tol = (None if model.limits is None
                    else np.stack([tolerance(m) for m in models])[:, None])   # (V, 1, nbound)
        self.r0, self.p0 = np.stack([s.r for s in starts]), np.stack([s.p for s in starts])
        per_frame = max(model.nc, 1) * (12 + (0 if self.alg.sparse else 6 * model.nb))
        floats = BLOCK_FLOATS if V == 1 else CACHE_FLOATS / V    # variants share calls too
        self.biggest = int(max(1, min(BLOCK_MAX, floats // per_frame)))
        self.prev: _Last | None = None
        self.walking, self.walked, self.signs_seen = False, None, []   # poles.py
        self.det_last: tuple | None = None     # (sign of det J, condition) (V,) at the last
        #                                        kept frame (algebra.py det_signs)
        self.turns: np.ndarray | None = None      # a frame's tracked values to start from
        self.lim: np.ndarray | None = None        # (V, 2, nbound) each limit's coordinate and
        #                                           rate at the last kept frame (limit_turns.py)
        self.gone = np.zeros(V, dtype=bool)        # variants of ``alive`` leaving at this frame
        self.watch_last: np.ndarray | None = None  # (V, 2, n) between.py's watched g, g' at
        self.touch_last: np.ndarray | None = None  # (V, 2, np) touches.py's, the same way
        #                                            the last kept frame
        self.ends = open_ends(model)             # the open curves' contacts (between.py)
        # (V, 2 n) m: each watched end's mechanism's size, per variant (END_TOL's unit)
        self.end_size = np.stack([end_sizes(m, self.ends) for m in models]) if self.ends else None
        self.q0 = self._start_tracks(starts)
        # an open tree of driven joints, banded (one mechanism): its exact poses as Newton's
        # start (tree.py); a design study's variants are never banded (sweep_variants)
        self.tree = (tree_poses(model, st.keep, self.r0[0], self.p0[0], self.fv[0, 0])
                     if self.alg.sparse and self.n_ok[0] else None)

    def _start_tracks(self, starts: list[State]) -> np.ndarray | None:
        """(V, 1, ntrack) the tracked values (couplers' turns, curve contacts) at each
        variant's start, from those its assembly found (State.track); the start's limits
        checked (check_start: a variant starting outside one leaves at its first frame) on
        their start turns (``lim0`` (V, nbound): limit_turns.py)."""
        t0 = float(self.times[0])
        lim0 = []
        for i, (m, s) in enumerate(zip(self.models, starts)):
            lim0.append(pose_turns(m, s.r, s.p, t0, s.track))
            try:
                check_start(m, s.r, s.p, t0, lim0[-1])
            except SolverError as exc:
                self._fail(i, exc)
        self.lim0 = None if self.model.limits is None else np.stack(lim0)
        if not self.model.ntrack:
            return None
        tracks = [s.track for s in starts]
        ref = None if any(q is None for q in tracks) else np.stack(tracks)[:, None]
        return evaluate(self.model, *body_arrays(self.model, self.r0[:, None],
                                                 self.p0[:, None])[:2], ref=ref).track

    def _fail(self, at: int, error: SolverError) -> None:
        """Variant ``alive[at]`` leaves the sweep with ``error``."""
        self.errors[int(self.alive[at])] = error
        self.gone[at] = True

    def _leave(self) -> None:
        """The variants marked ``gone`` leave; the sweep goes on with the others."""
        stay = ~self.gone
        self.alive = self.alive[stay]
        self.gone = np.zeros(len(self.alive), dtype=bool)
        if not len(self.alive):
            return
        model = self.axis.stack([self.models[i] for i in self.alive])
        if model is None:                     # (their sweeps alone say how they end)
            self.alive = self.alive[:0]
            return
        self.model = model
        self.alg = self.alg.only(np.flatnonzero(stay), model, self.alg.take)
        self.outs.keep(stay)
        self.fv, self.n_ok, self.ts_ref, self.r0, self.p0 = (
            x[stay] for x in (self.fv, self.n_ok, self.ts_ref, self.r0, self.p0))
        self.bad = [b for b, s in zip(self.bad, stay) if s]
        self.tol, self.q0, self.lim, self.lim0, self.watch_last, self.touch_last = (
            None if x is None else x[stay] for x in (self.tol, self.q0, self.lim, self.lim0,
                                                     self.watch_last, self.touch_last))
        self.det_last = None if self.det_last is None else tuple(x[stay] for x in self.det_last)
        self.prev = None if self.prev is None else self.prev.only(stay)

    def run(self, report: Callable[[np.ndarray], None]) -> None:
        """Every frame of every variant that can solve it; ``report(frames)`` after each
        block kept."""
        n = len(self.times)
        k0, size = 0, 1
        while True:
            if np.count_nonzero(self.gone):
                self._leave()
            if not len(self.alive) or k0 >= n:
                return
            end = int(self.n_ok.min())
            if k0 == end:                 # a motion undefined at frame k0
                for i in np.flatnonzero(self.n_ok == k0):
                    self._fail(i, SolverError(str(self.bad[i]), float(self.times[k0]), (),
                                              self.results[self.alive[i]].truncated(k0)))
                continue
            ks = np.arange(k0, min(k0 + size, end))
            m, more = self._block(ks)
            if not m:                     # cut: ``more`` frames next
                size = more
                continue
            if np.count_nonzero(self.gone) < len(self.gone):     # (not the last variant
                report(ks[:m])                                     # left at a rigid stop)
            k0 = int(ks[m - 1]) + 1
            size = next_block(k0, m, len(ks), more, size, self.biggest)

    def _predict(self, ks: np.ndarray):
        """The block's first poses (V, F, nb, k) and tracked values (V, F, ntrack): the start
        for the first frame; else the third-order predictor off each variant's last solved
        frame (jerk from two frames), and each tracked value from its last rate."""
        if self.prev is None:
            return self.r0[:, None].copy(), self.p0[:, None].copy(), self.q0
        if self.tree is not None:
            R, P = self.tree.poses(self.fv[0, ks])
            return R[None], P[None], None
        s, jerk, djerk, _, q, qd = (x[:, None] if isinstance(x, np.ndarray) else x
                                    for x in self.prev)
        dt = self.times[ks] - s.t
        h = dt[None, :, None, None]
        R = s.r[:, None] + h * (s.v[:, None] + h * (0.5 * s.a[:, None] + h / 6.0 * jerk))
        turn = h * (s.w[:, None] + h * (0.5 * s.alpha[:, None] + h / 6.0 * djerk))
        P = rotate_world(s.p[:, None], turn)      # (p broadcast by the products themselves)
        return R, P, None if q is None else q + qd * dt[None, :, None]

    def _block(self, ks: np.ndarray) -> tuple[int, int]:
        """Solve frames ``ks`` of every variant; store the leading frames that all solve
        smoothly: (their number, Newton's iterations), or (0, the frames to try next) where
        none is kept (a variant that cannot solve frame ks[0] is marked ``gone``)."""
        model, alg, st, times = self.model, self.alg, self.st, self.times
        keep, nb, nc = st.keep, model.nb, model.nc
        V = len(self.alive)
        R, P, ref = self._predict(ks)
        again = self.turns is not None    # a frame re-solved on its couplers' right turns
        if again:
            ref, self.turns = self.turns, None
        walked, self.walked = self.walked, None   # a frame re-solved from a walk (poles.py)
        if walked is not None:
            R, P, ref = walked[1:4]
        f = self.fv[:, ks]
        R, P, jac, A, ok, iters, ref = _newton(model, alg, R, P, f, ref)
        m, solved = _prefix(ok), ok[:, 0]
        if m:
            fac = alg.factor(jac[:, :m], A[:, :m], self.det_last, self.walking)
            m, solved = _prefix(fac.ok), solved & fac.ok[:, 0]
            fac = fac.take(m)
        if m == 0:
            if len(ks) == 1:
                self._lock_up(int(ks[0]), jac, ~solved)
            return 0, 1
        ks, R, P, f, jac = ks[:m], R[:, :m], P[:, :m], f[:, :m], jac[:, :m]
        mrows = np.flatnonzero(model.row_motion >= 0)
        mix = model.row_motion[mrows]
        evq = lined = None
        if self.tree is not None:         # a tree's rates joint by joint (tree.py)
            Vv, W, Ac, Al = (x[None] for x in self.tree.rates(P[0], f[0]))
            rg, A, vg, wg = body_arrays(model, R, P, Vv, W, A[:, :m])
        else:
            # velocities J v = nu and accelerations J a = gamma (nu, gamma: df/dt, d2f/dt2
            # on the motion rows; gamma also -quad)
            nu = np.zeros((V, m, nc))
            nu[..., mrows] = f[..., mix, 1]
            vel = alg.solve(fac, nu[..., keep])
            lined = lined_up_frames(model, alg, fac, jac, keep, (vel, self, ks, nu))
            if lined is not None:         # joints lined up, a motion's dead centre: that
                lined, dead = lined       # frame alone, its rates continued (lined_up.py)
                if len(ks) > 1:
                    return 0, max(int(np.argmax(lined.any(axis=0))), 1)
                vel = rates_continued(model, alg, jac, keep, lined, self.prev,
                                      times[ks[0]], vel, nu[..., keep], 1)
                locked = passed(self, alg, jac, keep, lined, dead, vel, nu[..., keep], int(ks[0]))
                for i, error in locked.items():             # still moving: a lock-up there
                    self._fail(i, error)
                if locked:
                    return 0, 1
            Vv, W = vel[..., :3], vel[..., 3:]
            rg, A, vg, wg = body_arrays(model, R, P, Vv, W, A[:, :m])
            evq = evaluate(model, rg, A, vg, wg, need_jac=False,
                           ref=None if ref is None else ref[:, :m])
            gamma = -evq.quad                                           # J: Newton's, same pose
            gamma[..., mrows] += f[..., mix, 2]
            accel = alg.solve(fac, gamma[..., keep])
            if lined is not None:
                accel = rates_continued(model, alg, jac, keep, lined, self.prev,
                                        times[ks[0]], accel, gamma[..., keep], 2)
            Ac, Al = accel[..., :3], accel[..., 3:]
            if lined is not None and fac.sign is not None:   # a frame on a pole: no side
                fac = replace(fac, sign=np.where(lined, 0.0, fac.sign))
            elif fac.sign is not None and self.prev is not None and not (walked or self.walking):
                if alg.sparse:            # (det J's sign where a pole is near: poles.py)
                    fac = replace(fac, sign=banded_signs(self, fac.near, jac))
                j = suspect(self, fac.sign, fac.near, ks, Vv, W, Ac, Al)
                self.walked = None if j != 0 else walk(self, int(ks[0]), _Sweep, _newton)
                if j or self.walked is not None:   # the frames before it, then it walked
                    return 0, max(j, 1)
        if evq is not None and self.prev is not None and ref is not None and not again:
            j, turns = wrong_turns(self.model, self.prev, self.times, ks, evq.track[:, :m],
                                   evq.rate[:, :m])
            if j < m:                     # the frames before it next, then it alone
                self.turns = turns if j == 0 else None
                return 0, max(j, 1)
        if self.prev is not None and len(ks) > 1 and self.tree is None:
            ps = self.prev.state          # (a tree's poses stay on their branch by construction)
            m = smooth_prefix((ps.r, ps.p, ps.v, ps.w, ps.a, ps.alpha), np.diff(times[np.r_[ks[0] - 1, ks]]), R, P,
                              Vv, W, Ac, Al, alg.blen, alg.size[:, 0])
            if m == 0:
                return 0, 1
            fac = fac.take(m)
            ks, R, P, Vv, W, Ac, Al, f = (x[:m] if x is ks else x[:, :m]
                                          for x in (ks, R, P, Vv, W, Ac, Al, f))
            rg, A, vg, wg, jac = rg[:, :m], A[:, :m], vg[:, :m], wg[:, :m], jac[:, :m]
        # inverse dynamics: J^T lambda = Q - M a
        Q, Iw = body_loads(model, A, wg)
        pot, pnc = np.zeros((V, m)), np.zeros((V, m))
        ts_next = self.ts_ref                 # (handed on once the block is kept)
        if not model.forces.empty:
            before = times[ks[0]] if self.prev is None else self.prev.state.t
            try:
                Qf, pot, pnc, ts_next = block_forces(model, times[ks], rg, A, vg, wg,
                                                     self.ts_ref, float(before))
            except ExpressionError as exc:
                return self._force_undefined(ks, exc)
            Q += Qf[..., :nb, :]
        phi = None if evq is None else evq.phi[:, :m]      # (a tree has no stops: tree.py)
        speeds = np.concatenate([vg, wg], axis=-1)
        turns, turn_rate, lim_next = self._limit_turns(ks, phi, jac, speeds)
        stop = stop_forces(model, phi, jac, speeds, turns)
        if stop is not None:              # compliant stops the motions push into: their force
            Q = Q + stop.Q[..., :nb, :]
            pnc = pnc + stop.power
        Ma = np.concatenate([model.body_mass[..., None] * Ac, matvec(Iw, Al, "vfbij,vfbj->vfbi")],
                            axis=-1)
        lam = np.zeros((V, m, nc))
        lam[..., keep] = alg.solve_t(fac, Q - Ma)
        if lined is not None:             # dependent rows: the least-norm multipliers
            lam[..., keep] = least_norm_multipliers(model, alg, jac, keep, lined,
                                                    lam[..., keep], Q - Ma)
        report = None             # redundant rows: the least-norm joint multipliers, reported
        if st.redundant.size:     # and friction's load (structure.least_norm)
            report = least_norm(self_stresses(model, keep, st.redundant, jac,
                                              lambda F: alg.solve_t(fac, F), fac.J))
            lam = report(lam)
        if stop is not None:              # read as the limit's force (Result.limit)
            lam[..., model.limits.rows[stop.bounds]] = -stop.Qq
        if model.frictions is not None:   # joint friction: its load is the reaction (friction.py)
            try:
                lam, Qq = with_friction(model, keep, lambda F: alg.solve_t(fac, F), lam, jac,
                                        A, vg, wg, report)
            except FrictionJam as exc:    # the motions cannot drive a joint of variant v
                v, j = exc.index[:2]
                if j:                     # the block's frames before it first, then it alone
                    return 0, j
                tj = float(times[ks[0]])
                self._fail(v, SolverError(exc.at(tj), tj, exc.names,
                                          self.results[self.alive[v]].truncated(int(ks[0]))))
                return 0, len(ks)
            pnc = pnc + np.sum(Qq * rates(model, jac, speeds), axis=-1)
            self.outs._friction[:, ks[0]: ks[-1] + 1] = Qq
        block = slice(int(ks[0]), int(ks[-1]) + 1)
        self.outs.store(block, State(times[ks], R, P, Vv, W, Ac, Al), lam, jac,
                        None if evq is None or evq.track is None else evq.track[:, :m], A)
        self.outs.store_energy(block, Iw, pot, pnc - einsum("vfm,vfm->vf", lam[..., mrows],
                                                               f[..., mix, 1]))
        watch = watched(self, phi, turns, turn_rate, evq)
        if watch is not None:             # a motion driven through a rigid stop or off an open
            first_crossings(self, ks, watch, State(times[ks], R, P, Vv, W, Ac, Al), evq, phi,
                            turns, turn_rate, _newton)    # curve, at or between frames
            self.watch_last = np.stack([x[:, -1] for x in watch], axis=1)
        if model.forces.contacts is not None and not self.walking:   # parts driven through
            passed_through(self, ks, State(times[ks], R, P, Vv, W, Ac, Al), _newton, evq)
        self._remember(ks, R, P, Vv, W, Ac, Al, jac, evq)
        if fac.sign is not None:          # det J's sign at the last kept frame (poles.py)
            self.det_last = fac.last()
            self.signs_seen += [(times[ks], fac.sign)] if self.walking else []
        if walked is not None:
            noted(self, walked)
        self.ts_ref, self.lim = ts_next, lim_next
        return m, iters

    def _force_undefined(self, ks: np.ndarray, exc: ExpressionError) -> tuple[int, int]:
        """A force element that cannot be evaluated at a frame of the block (at exc.time):
        the frames before it are solved first, then the sweep stops there with a
        SolverError naming the element and the time, with the frames before (as a dynamic
        run and an undefined motion do).  Variants (whose own functions fail for all at a
        frame) raise it as it is."""
        if len(self.alive) > 1 or exc.time is None:
            raise exc
        j = int(np.searchsorted(self.times[ks], exc.time))
        if j:
            return 0, j
        t = float(self.times[ks[0]])
        self._fail(0, SolverError(str(exc), t, (),
                                  self.results[self.alive[0]].truncated(int(ks[0]))))
        return 0, len(ks)

    def _remember(self, ks, R, P, Vv, W, Ac, Al, jac, evq) -> None:
        """The block's last frame as each variant's last solved frame (``_Last``)."""
        times, prev, m = self.times, self.prev, len(ks)
        if m > 1:
            dt, a0, al0 = times[ks[-1]] - times[ks[-2]], Ac[:, -2], Al[:, -2]
        elif prev is not None:
            dt, a0, al0 = times[ks[-1]] - prev.state.t, prev.state.a, prev.state.alpha
        else:
            dt, a0, al0 = 1.0, Ac[:, -1], Al[:, -1]
        q = qd = None
        if self.model.ntrack:
            q, qd = evq.track[:, m - 1], evq.rate[:, m - 1]
        self.prev = _Last(State(times[ks[-1]], R[:, -1], P[:, -1], Vv[:, -1], W[:, -1],
                                Ac[:, -1], Al[:, -1]),
                          (Ac[:, -1] - a0) / dt, (Al[:, -1] - al0) / dt, jac[:, -1], q, qd)

    def _lock_up(self, k: int, jac: np.ndarray, failing: np.ndarray) -> None:
        """The variants ``failing`` cannot solve frame k: each leaves with its lock-up, naming
        the joints involved at its last solved pose."""
        t = float(self.times[k])
        for i in np.flatnonzero(failing):
            model = self.models[self.alive[i]]
            jl = self.prev.jac[i] if self.prev is not None else jac[i, 0]
            who = involved(model, global_jacobian(model, jl), self.st.keep)
            reach = "" if self.prev is None else lock_up_cause(
                model, who, self.st.keep, self.prev.state.r[i], self.prev.state.p[i],
                float(self.prev.state.t), t, None if self.prev.q is None else self.prev.q[i])
            self._fail(i, SolverError(
                f"lock-up at t = {t:.6g} s (frame {k}): the mechanism cannot follow its "
                f"motions (singular or unreachable position); joints involved: {', '.join(who)}"
                + (f"; {reach}" if reach else ""),
                t, who, self.results[self.alive[i]].truncated(k)))

    def _limit_turns(self, ks: np.ndarray, phi: np.ndarray | None, jac: np.ndarray,
                     speeds: np.ndarray) -> tuple:
        """(the block's limit coordinates (V, F, nbound), each angle on its joint's
        continuous turns (limit_turns.py ``frames_on_turns``: from the last kept frame's,
        or at the first frame the start's), their rates, and the last frame's with its rates
        (V, 2, nbound)); (None, None, None) without limits."""
        lm = self.model.limits
        if lm is None or phi is None:
            return None, None, None
        raw = phi[..., lm.rows]
        rate = row_rates(self.model, lm.rows, jac, speeds)
        if self.lim is None:              # the first frame: on the start's turns
            last, t_last = np.stack([self.lim0, rate[:, 0]], axis=-2), self.times[ks[0]]
        else:
            last, t_last = self.lim, self.prev.state.t
        dt = np.diff(np.concatenate([[t_last], self.times[ks]]))
        q = frames_on_turns(self.model, last, dt, raw, rate)
        return q, rate, np.stack([q[:, -1], rate[:, -1]], axis=-2)


def _prefix(ok: np.ndarray) -> int:
    """The number of leading frames where every variant is ok (ok (V, F))."""
    every = ok[0] if len(ok) == 1 else ok.all(axis=0)
    return int(np.argmin(every)) if np.count_nonzero(every) < len(every) else len(every)


def next_block(k0: int, solved: int, tried: int, iters: int, size: int, biggest: int) -> int:
    """The next block's frames, after a block that solved ``solved`` of ``tried`` frames in
    ``iters`` Newton iterations and ends before frame k0: BLOCK_FIRST after frame 0, the
    frames solved after a cut, GROWTH times more after an easy block (up to ``biggest``)."""
    if k0 == 1:
        return min(BLOCK_FIRST, biggest)
    if solved < tried:
        return max(1, solved)
    return min(GROWTH * size, biggest) if iters <= QUICK else size


def _newton(model: Model, alg: Algebra, R: np.ndarray, P: np.ndarray, fv: np.ndarray,
            ref: np.ndarray | None = None, size: np.ndarray | None = None, budget: int = BUDGET):
    """Newton on every pose of a block (V, F, ...) from its prediction, each stopping by the
    one rule (algebra.newton.converged), each iteration on the frames some variant still
    iterates; ``ref`` (V, F, ntrack): the tracked values predicted for each frame (couplers'
    turns, curve contacts' start), every iteration's contact searched from there (from a
    poorly predicted pose a contact's Newton may jump to another branch, which the pose's
    would then follow); ``size``: the last steps' sizes.  Variants (``alg.take``): once few
    poses still iterate (FEW_LIVE: near a singular position), those alone go on.  Returns
    the poses, the Jacobian blocks and rotation matrices at them, a (V, F) converged mask,
    the iterations and the tracked values each pose's last evaluation found (None without)."""
    keep = alg.keep
    found = None if ref is None else np.array(ref, dtype=float)
    shape = R.shape[:2]
    done = np.zeros(shape, dtype=bool)
    size = np.full(shape, np.inf) if size is None else size   # last step, relative to the islands' sizes
    fr = slice(None)                           # the frames some variant still iterates
    lv = np.ones(shape, dtype=bool)            # (V, len(fr)): which variants there
    it = 0
    for it in range(budget):
        rg, Al = body_arrays(model, R[:, fr], P[:, fr])[:2]
        ev = evaluate(model, rg, Al, ref=None if ref is None else ref[:, fr])
        if isinstance(fr, slice):      # every pose: the evaluation's own (new) arrays
            jac, A = ev.jac, Al
        else:
            jac[:, fr], A[:, fr] = ev.jac, Al
        if found is not None:
            found[:, fr] = ev.track
        res = residual(model, ev.phi, fv[:, fr])[..., keep]
        with np.errstate(invalid="ignore"):
            err = np.maximum.reduce(np.abs(res * alg.rs), axis=-1, initial=0.0)  # (no wrapper)
            conv = converged(err, size[:, fr], *rounding_tols(R[:, fr], alg.size)) & lv
            fine = np.logical_and.reduce(np.isfinite(ev.jac), axis=(-2, -1))
            lv = lv & np.isfinite(err) & fine & ~conv
        done[:, fr] |= conv
        fr, lv, res = _still(fr, lv, res)
        if not lv.shape[1]:
            break
        if alg.take is not None and it >= 1 and lv.sum() <= FEW_LIVE * lv.shape[0] * shape[1]:
            return _newton_apart(model, alg, R, P, fv, ref, size, budget - it, jac, A, done,
                                 fr, lv, found, it)
        every = np.count_nonzero(lv) == lv.size
        dq = alg.newton_step(jac[:, fr], A[:, fr], res, None if every else lv)
        lv = lv & np.isfinite(dq).all(axis=-1)
        fr, lv, dq = _still(fr, lv, dq)
        if not lv.shape[1]:            # every pose left diverged: not done, the caller cuts
            break
        if every and np.count_nonzero(lv) == lv.size:
            size[:, fr] = moves(np.abs(dq * alg.cw), alg.size)
            R[:, fr], P[:, fr] = step_pose(R[:, fr], P[:, fr], dq)
        else:                          # variants done or diverged in these frames stay
            dq = np.where(lv[..., None], dq, 0.0)
            step = moves(np.abs(dq * alg.cw), alg.size)
            R1, P1 = step_pose(R[:, fr], P[:, fr], dq)
            size[:, fr] = np.where(lv, step, size[:, fr])
            R[:, fr] = np.where(lv[..., None, None], R1, R[:, fr])
            P[:, fr] = np.where(lv[..., None, None], P1, P[:, fr])
    return R, P, jac, A, done, it, found


def _still(fr: np.ndarray, lv: np.ndarray, x: np.ndarray):
    """The frames ``fr`` (indices, or a slice: all) where some variant still iterates (``lv``
    (V, frames of fr)), with their columns of lv and of x (V, frames of fr, ...)."""
    on = lv[0] if len(lv) == 1 else np.logical_or.reduce(lv, axis=0)
    if np.count_nonzero(on) == len(on):
        return fr, lv, x
    return np.flatnonzero(on) if isinstance(fr, slice) else fr[on], lv[:, on], x[:, on]


def _newton_apart(model, alg, R, P, fv, ref, size, budget, jac, A, done, fr, lv, found, it):
    """_newton's last iterations on the poses still iterating (variants ``lv`` (V, len(fr))
    of frames ``fr``) alone, each a variant of its own (``alg.take``), the rest of the
    block as it is."""
    vi, fi = np.nonzero(lv)
    fi = np.arange(R.shape[1])[fr][fi]
    sub = alg.only(vi, alg.take(model, vi))
    Rc, Pc, jc, Ac, dc, more, rc = _newton(
        sub.model, sub, R[vi, fi][:, None], P[vi, fi][:, None], fv[vi, fi][:, None],
        None if ref is None else ref[vi, fi][:, None], size[vi, fi][:, None], budget)
    R[vi, fi], P[vi, fi], jac[vi, fi], A[vi, fi] = Rc[:, 0], Pc[:, 0], jc[:, 0], Ac[:, 0]
    done[vi, fi] = dc[:, 0]
    if found is not None:
        found[vi, fi] = rc[:, 0]
    return R, P, jac, A, done, it + more, found
